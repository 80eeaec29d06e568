//! The Python scanner's cases, each from a real pattern.

use super::scan_file;
use crate::lex::tests::{assert_survives, names, pairs};
use crate::lex::{Import, ImportKind};

/// The imports `scan_file` finds in `src`, for compact assertions.
fn scan(src: &str) -> Vec<Import> {
    scan_file(src).imports.to_vec()
}

#[test]
fn plain_imports() {
    assert_eq!(pairs(&scan("import a.b.c\n")), [(1, "a.b.c")]);
    assert_eq!(
        names(&scan("import a, b.c as d, e as f")),
        ["a", "b.c", "e"]
    );
    assert_eq!(names(&scan("import a . b")), ["a.b"]);
}

#[test]
fn from_imports() {
    assert_eq!(
        pairs(&scan("from a.b import c, d as e\n")),
        [(1, "a.b.c"), (1, "a.b.d"), (1, "a.b")]
    );
    assert_eq!(names(&scan("from a import *")), ["a"]);
    assert_eq!(
        names(&scan("from __future__ import annotations")),
        ["__future__.annotations", "__future__"]
    );
}

#[test]
fn parenthesised_from_import_spans_lines() {
    let src = "from a.b import (\n    c,\n    d,  # import e\n)\nimport f\n";
    assert_eq!(
        pairs(&scan(src)),
        [(1, "a.b.c"), (1, "a.b.d"), (1, "a.b"), (5, "f")]
    );
}

#[test]
fn backslash_continuations() {
    assert_eq!(
        pairs(&scan("import a, \\\n    b\nimport c")),
        [(1, "a"), (2, "b"), (3, "c")]
    );
    assert_eq!(
        pairs(&scan("from a \\\n  import b\r\nimport c")),
        [(1, "a.b"), (1, "a"), (3, "c")]
    );
    assert!(scan("x = \\\nimport y").is_empty());
}

#[test]
fn relative_imports_keep_their_dots() {
    let src = "from . import x\nfrom .mod import y\nfrom ..pkg import (z,\n  v)\nfrom ... import w\nfrom .a.b import *\ndef f():\n    from .lazy import q\n";
    assert_eq!(
        pairs(&scan(src)),
        [
            (1, ".x"),
            (2, ".mod.y"),
            (2, ".mod"),
            (3, "..pkg.z"),
            (3, "..pkg.v"),
            (3, "..pkg"),
            (5, "...w"),
            (6, ".a.b"),
            (8, ".lazy.q"),
            (8, ".lazy")
        ]
    );
    assert!(scan(src).iter().skip(8).all(|i| i.in_function));
}

#[test]
fn indented_and_nested_imports_count() {
    let src = "def f():\n    import os\n    if x:\n        from json import loads\ntry: import yaml\nexcept ImportError: yaml = None\nelse: import toml\n";
    assert_eq!(
        pairs(&scan(src)),
        [
            (2, "os"),
            (4, "json.loads"),
            (4, "json"),
            (5, "yaml"),
            (7, "toml")
        ]
    );
}

#[test]
fn semicolons_start_statements() {
    assert_eq!(
        names(&scan("x = 1; import a; from b import c")),
        ["a", "b.c", "b"]
    );
}

#[test]
fn import_must_start_a_statement() {
    let src = "x = 1 if importer else 2\nsomething.import_x()\ny = a.from_b\nprint(import_)\nz = {k: v for k in w}\n";
    assert!(scan(src).is_empty());
    assert!(scan("d = {1: 2}\nf(a=b, import_=3)").is_empty());
    assert!(scan("yield from gen()").is_empty());
}

#[test]
fn comments_are_not_imports() {
    assert_eq!(
        pairs(&scan("# import a\nx = 1  # from b import c\nimport d")),
        [(3, "d")]
    );
}

#[test]
fn strings_are_not_imports() {
    let src = "s = 'import a'\nt = \"from b import c\"\nu = r'\\'import d'\nv = b\"import e\"\nw = f'{x!r} import f'\nimport real\n";
    assert_eq!(pairs(&scan(src)), [(6, "real")]);
}

#[test]
fn docstrings_are_not_imports() {
    let src = "\"\"\"Module doc.\n\nimport os\nfrom sys import path\n\"\"\"\ndef f():\n    '''\n    import json\n    '''\n    import re\nx = rb'''\nimport z'''\n";
    assert_eq!(pairs(&scan(src)), [(10, "re")]);
}

#[test]
fn triple_quotes_with_inner_quotes() {
    let src = "s = \"\"\"a \"quoted\" ''' b\"\"\"\nimport real";
    assert_eq!(names(&scan(src)), ["real"]);
}

#[test]
fn an_unclosed_single_quote_ends_at_the_line() {
    assert_eq!(names(&scan("s = 'oops\nimport real")), ["real"]);
}

#[test]
fn mesh_ignore() {
    let src = "import foo  # mesh: ignore\nimport bar\nfrom baz import q  # mesh: ignore";
    assert_eq!(names(&scan(src)), ["bar"]);
}

#[test]
fn duplicates_on_a_line_collapse() {
    assert_eq!(
        pairs(&scan("import a, a, b; import a")),
        [(1, "a"), (1, "b")]
    );
}

#[test]
fn text_is_the_trimmed_line() {
    let imports = scan("if x:\n    from a.b import (c,\n    d)   \n");
    assert_eq!(imports[0].text, "from a.b import (c,");
    assert_eq!(imports[0].line, 2);
}

/// (line, name, kind) triples.
fn kinds(src: &str) -> Vec<(u32, String, crate::lex::ImportKind)> {
    crate::lex::tests::kinds(&scan_file(src).imports)
}

/// Each import's name and whether it is inside a function's body that runs only when
/// called.
fn lazy(src: &str) -> Vec<(String, bool)> {
    scan(src)
        .into_iter()
        .map(|i| (i.name, i.in_function))
        .collect()
}

/// `want` as [`lazy`] answers it.
fn owned(want: &[(&str, bool)]) -> Vec<(String, bool)> {
    want.iter().map(|(n, l)| (n.to_string(), *l)).collect()
}

#[test]
fn an_entry_point_s_imports_run_when_the_program_does() {
    let src = "class K:\n    def m(self):\n        return _helper()\ndef _helper():\n    import lazy_one\ndef main():\n    import rich\n@app.command()\ndef plot():\n    import matplotlib\n@click.group\ndef cli(): import click_extra\ndef _load():\n    import yaml\nCONFIG = _load()\ndef later():\n    import altair\nif __name__ == '__main__':\n    main()\n";
    let want = [
        ("lazy_one", true),
        ("rich", false),
        ("matplotlib", false),
        ("click_extra", false),
        ("yaml", false),
        ("altair", true),
    ];
    assert_eq!(lazy(src), owned(&want));
}

#[test]
fn imports_in_a_function_run_when_it_is_called() {
    let src = "import os\ndef f():\n    import altair\n    class C:\n        import a\nclass K:\n    import b\n    async def g(self): import c\n\n    def h(\n        self,\n    ):\n        from d import e\nimport z\n@decorated\ndef i(): pass\nimport y\n";
    let want = [
        ("os", false),
        ("altair", true),
        ("a", true),
        ("b", false),
        ("c", true),
        ("d.e", true),
        ("d", true),
        ("z", false),
        ("y", false),
    ];
    assert_eq!(lazy(src), owned(&want));
}

#[test]
fn type_checking_imports_are_optional() {
    use crate::lex::ImportKind::{Build, Optional};
    // pydantic_graph/_utils.py's pattern, with the `typing.` and one-line forms.
    let src = "from typing import TYPE_CHECKING\nimport typing\nif TYPE_CHECKING:\n    from opentelemetry.trace import Span\n    import a\nelse:\n    import b\nif typing.TYPE_CHECKING: import c\nif not TYPE_CHECKING:\n    import d\nimport e\n";
    assert_eq!(
        kinds(src),
        [
            (1, "typing.TYPE_CHECKING".into(), Build),
            (1, "typing".into(), Build),
            (2, "typing".into(), Build),
            (4, "opentelemetry.trace.Span".into(), Optional),
            (4, "opentelemetry.trace".into(), Optional),
            (5, "a".into(), Optional),
            (7, "b".into(), Build),
            (8, "c".into(), Optional),
            (10, "d".into(), Build),
            (11, "e".into(), Build),
        ]
    );
}

#[test]
fn suppressed_import_errors_are_optional() {
    use crate::lex::ImportKind::{Build, Optional};
    // pydantic-ai's tests/conftest.py: `with suppress(ImportError):\n    import pandas`;
    // the `contextlib.` form with several exceptions, and a `suppress` of something else.
    let src = "from contextlib import suppress\nimport contextlib\nwith suppress(ImportError):\n    import pandas  # noqa: F401\nwith contextlib.suppress(KeyError, ModuleNotFoundError): import numpy\nwith suppress(KeyError):\n    import b\nwith open('x') as f, suppress(ImportError):\n    import c\nimport d\n";
    assert_eq!(
        kinds(src),
        [
            (1, "contextlib.suppress".into(), Build),
            (1, "contextlib".into(), Build),
            (2, "contextlib".into(), Build),
            (4, "pandas".into(), Optional),
            (5, "numpy".into(), Optional),
            (7, "b".into(), Build),
            (9, "c".into(), Optional),
            (10, "d".into(), Build),
        ]
    );
}

#[test]
fn guarded_imports_are_optional_in_body_and_handlers() {
    use crate::lex::ImportKind::{Build, Optional};
    let src = "import a\ntry:\n    import b\n    from c import d\nexcept (ImportError, OSError):\n    import e\nelse:\n    import f\nfinally:\n    import g\nimport h\ntry: import i\nexcept ModuleNotFoundError: i = None\ntry:\n    import j\nexcept ValueError:\n    pass\n";
    assert_eq!(
        kinds(src),
        [
            (1, "a".into(), Build),
            (3, "b".into(), Optional),
            (4, "c.d".into(), Optional),
            (4, "c".into(), Optional),
            (6, "e".into(), Optional),
            (8, "f".into(), Build),
            (10, "g".into(), Build),
            (11, "h".into(), Build),
            (12, "i".into(), Optional),
            (15, "j".into(), Build),
        ]
    );
}

#[test]
fn a_bare_except_and_one_catching_exception_guard_too() {
    use crate::lex::ImportKind::{Build, Optional};
    // Python 2's fallbacks; a check that catches everything; one on a line; a handler for
    // another error.
    let src = "try:\n    import cPickle as pickle\nexcept:\n    import pickle\ntry:\n    import torch\nexcept Exception as e:\n    torch = None\ntry:\n    import x\nexcept BaseException:\n    pass\ntry:\n    import y\nexcept KeyError: raise Exception(\"y\")\ntry: import ujson\nexcept: pass\n";
    assert_eq!(
        kinds(src),
        [
            (2, "cPickle".into(), Optional),
            (4, "pickle".into(), Optional),
            (6, "torch".into(), Optional),
            (10, "x".into(), Optional),
            (14, "y".into(), Build),
            (16, "ujson".into(), Optional),
        ]
    );
    // Not a body that does more than import, nor a handler that gives up.
    let src = "try:\n    import click\n    main()\nexcept Exception:\n    sys.exit(1)\ntry:\n    import boto3\nexcept Exception:\n    log.exception(\"no\")\n    raise\ntry:\n    bucket = os.environ[\"B\"]\nexcept Exception:\n    bucket = None\nif bucket:\n    import s3fs\n";
    assert_eq!(
        kinds(src),
        [
            (2, "click".into(), Build),
            (7, "boto3".into(), Build),
            (16, "s3fs".into(), Build),
        ]
    );
}

#[test]
fn python_2_s_fallback_for_a_relative_import_is_the_sibling() {
    use crate::lex::ImportKind::Build;
    // Vendored chevron's fallback: the bare name is the sibling the body imports relatively;
    // another name in the same handler, or one no relative import names, stays absolute.
    let src = "try:\n    from .metadata import version\nexcept (ValueError, SystemError):\n    from metadata import version\n    import yaml\ntry:\n    import tokenizer\nexcept ValueError:\n    import metadata\ntry:\n    from .yaml import load\nexcept AttributeError:\n    from yaml import load\n";
    assert_eq!(
        kinds(src),
        [
            (2, ".metadata.version".into(), Build),
            (2, ".metadata".into(), Build),
            (4, ".metadata.version".into(), Build),
            (4, ".metadata".into(), Build),
            (5, "yaml".into(), Build),
            (7, "tokenizer".into(), Build),
            (9, "metadata".into(), Build),
            (11, ".yaml.load".into(), Build),
            (11, ".yaml".into(), Build),
            (13, "yaml.load".into(), Build),
            (13, "yaml".into(), Build),
        ]
    );
}

#[test]
fn django_s_backends_and_image_fields_name_their_drivers() {
    use crate::lex::ImportKind::{Build, Optional};
    // A backend's driver, by its dotted name (a wrapper's too); Pillow behind an image
    // field; not a backend of another name, nor a field outside Django.
    let src = "from django.db import models\nDATABASES = {\"default\": {\"ENGINE\": \"django.db.backends.mysql\"}}\nE = \"django_prometheus.db.backends.postgresql\"\nF = \"django.db.backends.sqlite3\"\nclass A(models.Model):\n    image = models.ImageField()\n";
    assert_eq!(
        kinds(src),
        [
            (1, "django.db.models".into(), Build),
            (1, "django.db".into(), Build),
            (2, "MySQLdb".into(), Optional),
            (3, "psycopg".into(), Optional),
            (3, "psycopg2".into(), Optional),
            (6, "PIL".into(), Optional),
        ]
    );
    assert_eq!(kinds("class A:\n    image = ImageField()\n"), []);
    // The settings module Django loads at start, by either spelling; not a value computed.
    let src = "os.environ.setdefault(\"DJANGO_SETTINGS_MODULE\", \"settings.main\")\nos.environ[\"DJANGO_SETTINGS_MODULE\"] = \"site.conf\"\nos.environ.setdefault(\"DJANGO_SETTINGS_MODULE\", f\"{x}\")\n";
    assert_eq!(
        kinds(src),
        [
            (1, "settings.main".into(), Optional),
            (2, "site.conf".into(), Optional),
        ]
    );
}

#[test]
fn a_module_a_test_makes_on_its_path_is_optional() {
    use crate::lex::ImportKind::{Build, Optional};
    // The test writes `basket` and `fixture_dep` where it puts them on the path; `requests`
    // it imports and names in a string no path is made of; a file that leaves `sys.path`
    // alone makes nothing.
    let src = "import sys\nimport requests\n\n\ndef test_fork(tmpdir):\n    fork_app(\"basket\", tmpdir)\n    sys.path.append(str(tmpdir))\n    __import__(\"basket.apps\")\n    (tmpdir / \"fixture_dep\" / \"__init__.py\").write_text(\"\")\n    import fixture_dep\n    r = requests.get(\"requests\")\n";
    let got: Vec<(String, ImportKind)> = scan(src).into_iter().map(|i| (i.name, i.kind)).collect();
    assert_eq!(
        got,
        [
            ("sys".to_string(), Build),
            ("requests".to_string(), Build),
            ("basket.apps".to_string(), Optional),
            ("fixture_dep".to_string(), Optional),
        ]
    );
    let src = "import basket\nx = \"basket\"\n";
    assert_eq!(kinds(src), [(1, "basket".into(), Build)]);
}

#[test]
fn imports_only_python_2_runs_are_optional() {
    use crate::lex::ImportKind::{Build, Optional};
    // `if PY2:`, a version test, the `else` of a Python 3 test; not `not PY2`, nor a minor
    // version's test.
    let src = "if PY2:\n    from cStringIO import StringIO\nelse:\n    import io\nif six.PY3:\n    import queue\nelse:\n    import Queue\nif sys.version_info < (3, 0):\n    import urlparse\nif sys.version_info[0] >= 3:\n    pass\nelse:\n    import cPickle\nif not PY2:\n    import a\nif sys.version_info < (3, 11):\n    import tomli\n";
    assert_eq!(
        kinds(src),
        [
            (2, "cStringIO.StringIO".into(), Optional),
            (2, "cStringIO".into(), Optional),
            (4, "io".into(), Build),
            (6, "queue".into(), Build),
            (8, "Queue".into(), Optional),
            (10, "urlparse".into(), Optional),
            (14, "cPickle".into(), Optional),
            (16, "a".into(), Build),
            (18, "tomli".into(), Build),
        ]
    );
}

#[test]
fn imports_only_older_pythons_run_say_which() {
    // The body of a test for an older Python, the `else` of one for a newer; a slice, a
    // micro version of 0, `<=` and `>` (the newer bound); not an `elif`'s `else`, nor a test
    // of something else.
    let src = "if sys.version_info < (3, 11):\n    import tomli\nif sys.version_info >= (3, 10):\n    import importlib.metadata as md\nelse:\n    import importlib_metadata as md\nif sys.version_info[:2] <= (3, 8):\n    import a\nif sys.version_info > (3, 7, 0):\n    pass\nelse:\n    import b\nif sys.version_info < (3, 9):\n    if sys.version_info < (3, 8):\n        import c\nif x:\n    pass\nelif sys.version_info >= (3, 9):\n    pass\nelse:\n    import d\nif sys.version_info < (3, 9, 1):\n    import e\nif sys.version_info[:2] >= (3, 10, 0):\n    pass\nelse:\n    import g\nimport f\n";
    let found: Vec<(String, Option<u8>)> = scan(src)
        .into_iter()
        .map(|i| (i.name, i.before_python))
        .collect();
    let want: Vec<(String, Option<u8>)> = [
        ("tomli", Some(11)),
        ("importlib.metadata", None),
        ("importlib_metadata", Some(10)),
        ("a", Some(9)),
        ("b", Some(8)),
        ("c", Some(8)),
        ("d", None),
        ("e", None),
        ("g", None),
        ("f", None),
    ]
    .into_iter()
    .map(|(n, v)| (n.to_string(), v))
    .collect();
    assert_eq!(found, want);
}

#[test]
fn a_module_named_by_its_start_is_a_prefix() {
    // textual's grammars; a concatenation; too short, or a computed start, says nothing.
    let src = "from importlib import import_module\nm = import_module(f\"tree_sitter_{name}\")\nn = importlib.import_module(\"plugins.\" + kind)\nimport_module(f\"x{y}\")\nimport_module(f\"{pkg}.sub\")\nimport_module(\"plain\")\n";
    let found: Vec<(String, bool)> = scan_file(src)
        .imports
        .iter()
        .map(|i| (i.name.clone(), i.prefix))
        .collect();
    assert_eq!(
        found,
        [
            ("importlib.import_module".to_string(), false),
            ("importlib".to_string(), false),
            ("tree_sitter_".to_string(), true),
            ("plugins.".to_string(), true),
            ("plain".to_string(), false),
        ]
    );
}

#[test]
fn nested_guards_and_a_try_without_except() {
    use crate::lex::ImportKind::{Build, Optional};
    let src = "def f():\n    try:\n        import a\n    except ImportError:\n        pass\n    import b\ntry:\n    import c\n";
    assert_eq!(
        kinds(src),
        [
            (3, "a".into(), Optional),
            (6, "b".into(), Build),
            (8, "c".into(), Build)
        ]
    );
}

#[test]
fn a_script_declaring_its_own_dependencies_owes_its_imports_nothing() {
    use crate::lex::ImportKind::{Build, Optional};
    let script = "# /// script\n# requires-python = \">=3.11\"\n# dependencies = [\n#   \"numpy\",\n# ]\n# ///\nimport numpy\n";
    assert_eq!(kinds(script), [(7, "numpy".into(), Optional)]);
    // Not closed, another block type, or a non-comment line inside: not a script block.
    for src in [
        "# /// script\n# dependencies = []\nimport numpy\n",
        "# /// pyproject\n# x = 1\n# ///\nimport numpy\n",
        "# /// script\nx = 1\n# ///\nimport numpy\n",
    ] {
        assert_eq!(
            kinds(src),
            [(src.lines().count() as u32, "numpy".into(), Build)],
            "{src}"
        );
    }
}

#[test]
fn dynamic_imports_with_a_literal() {
    let src = "m = __import__(\"a.b\")\nimportlib.import_module('c')\nimport_module(\"d\", package=None)\nimportlib.import_module(name)\nimportlib.import_module('.rel', 'pkg')\nx.__import__('e')\nother.import_module('f')\nk8s = lazy_module(\"kubernetes.client\")\nlazy_module(name)\n";
    assert_eq!(
        pairs(&scan(src)),
        [(1, "a.b"), (2, "c"), (3, "d"), (8, "kubernetes.client")]
    );
}

#[test]
fn pytest_importorskip_is_a_guarded_import() {
    // langgraph's optional test dependencies: the test is skipped without them.
    use crate::lex::ImportKind::Optional;
    let src = "import pytest\nredis = pytest.importorskip(\"redis\")\nfrom pytest import importorskip\nimportorskip('numpy.linalg', minversion='1')\nother.importorskip('x')\npa = lazy_module(\"pyarrow\")\n";
    let got: Vec<_> = kinds(src)
        .into_iter()
        .filter(|(l, _, _)| *l != 1 && *l != 3)
        .collect();
    assert_eq!(
        got,
        [
            (2, "redis".into(), Optional),
            (4, "numpy.linalg".into(), Optional),
            (6, "pyarrow".into(), Optional)
        ]
    );
}

#[test]
fn django_settings_lists_import_their_modules_optionally() {
    use crate::lex::ImportKind::Optional;
    let src = "INSTALLED_APPS = [\n    \"django.contrib.admin\",\n    'corsheaders',\n    f\"{x}\",\n]\nMIDDLEWARE += (\"corsheaders.middleware.CorsMiddleware\",)\nOTHER = [\"not_an_app\"]\nx = INSTALLED_APPS\nAUTHENTICATION_BACKENDS = [\"a b\", \"social_core.backends.github.GithubOAuth2\"]\n";
    assert_eq!(
        kinds(src),
        [
            (2, "django.contrib.admin".into(), Optional),
            (3, "corsheaders".into(), Optional),
            (6, "corsheaders.middleware.CorsMiddleware".into(), Optional),
            (
                9,
                "social_core.backends.github.GithubOAuth2".into(),
                Optional
            )
        ]
    );
}

#[test]
fn an_import_under_if_name_in_sys_modules_is_optional() {
    use crate::lex::ImportKind::{Build, Optional};
    let src = "import sys\nif \"torch\" in sys.modules:\n    import torch.nn\n    import numpy\nelif 'jax' in sys.modules:\n    import jax\nif x in sys.modules:\n    import numpy\n";
    assert_eq!(
        kinds(src),
        [
            (1, "sys".into(), Build),
            (3, "torch.nn".into(), Optional),
            (4, "numpy".into(), Build),
            (6, "jax".into(), Optional),
            (8, "numpy".into(), Build)
        ]
    );
}

#[test]
fn a_project_s_own_optional_importer_imports_its_argument_optionally() {
    // lancedb's `attempt_import_or_raise("botocore")`, pandas' own helper.
    use crate::lex::ImportKind::Optional;
    let src = "boto = attempt_import_or_raise(\"botocore\")\nx = utils.lazy_import('a.b')\npa = import_optional_dependency(\"pyarrow\", extra='x')\nimport_data(\"users\")\nlazy_import(name)\nreimport(\"c\")\ntry_import_table(\"t\")\nimport_or_update(\"u\")\nmaybe_import_settings(\"s\")\n";
    assert_eq!(
        kinds(src),
        [
            (1, "botocore".into(), Optional),
            (2, "a.b".into(), Optional),
            (3, "pyarrow".into(), Optional)
        ]
    );
}

#[test]
fn an_ignore_marker_anywhere_in_a_multi_line_statement() {
    let src = "from a import (  # mesh: ignore\n    b,\n)\nfrom c import (\n    d,  # mesh: ignore\n)\nimport e, \\\n    f  # mesh: ignore\nimport g\n";
    assert_eq!(names(&scan(src)), ["g"]);
}

#[test]
fn a_framework_feature_imports_what_it_needs() {
    // agno's `from fastapi import Form`: FastAPI parses forms with python-multipart.
    let src = "from fastapi import FastAPI, Form\nfrom pydantic import BaseModel, EmailStr\n";
    let optional: Vec<_> = scan(src)
        .into_iter()
        .filter(|i| i.kind == crate::lex::ImportKind::Optional)
        .map(|i| (i.line, i.name))
        .collect();
    assert_eq!(
        optional,
        [
            (1, "multipart".to_string()),
            (2, "email_validator".to_string())
        ]
    );
}

#[test]
fn a_database_url_names_its_driver() {
    // agno's `db_url = "sqlite+aiosqlite:///tmp.db"`: SQLAlchemy imports the driver.
    let src = "URL = \"sqlite+aiosqlite:///tmp.db\"\nengine = create_engine(f\"mysql+mysqldb://{user}@h/db\")\nDOC = \"postgresql://h/db\"\nX = \"a+unknown://x\"\nY = \"see sqlite+aiosqlite://\"\n";
    let found: Vec<_> = scan(src)
        .into_iter()
        .map(|i| (i.line, i.name, i.kind))
        .collect();
    let optional = crate::lex::ImportKind::Optional;
    assert_eq!(
        found,
        [
            (1, "aiosqlite".into(), optional),
            (2, "MySQLdb".into(), optional)
        ]
    );
}

#[test]
fn garbage_does_not_panic() {
    assert!(scan("'''import a").is_empty());
    assert!(scan("f'").is_empty());
    assert!(scan("(((\nimport a").is_empty());
    assert_eq!(names(&scan(")))\nimport a")), ["a"]);
    assert_survives(scan_file);
}

#[test]
fn a_main_block_runs_only_as_a_script() {
    // mitmproxy's `utils/emoji.py` regenerates itself with `requests` at its foot; a
    // one-line block, and a header with `==` the other way round, too.
    let src = "import json\n\nif __name__ == \"__main__\":\n    import requests\n    main()\nimport after\nif '__main__' == __name__: import click\nif __name__ == \"other\":\n    import kept\nif __name__ != \"__main__\":\n    import lib_only\nif cond(__name__) and mode == \"__main__\":\n    import not_guard\nif x:\n    pass\nelif __name__ == \"__main__\":\n    import script\n";
    let got: Vec<(String, bool)> = scan_file(src)
        .imports
        .iter()
        .map(|i| (i.name.clone(), i.in_function))
        .collect();
    assert_eq!(
        got,
        [
            ("json".to_string(), false),
            ("requests".to_string(), true),
            ("after".to_string(), false),
            ("click".to_string(), true),
            ("kept".to_string(), false),
            ("lib_only".to_string(), false),
            ("not_guard".to_string(), false),
            ("script".to_string(), true),
        ]
    );
}

#[test]
fn an_if_testing_what_a_guard_assigns_is_guarded() {
    let src = "try:\n    import torch\n    _torch = True\nexcept (ImportError, OSError):\n    _torch = False\n    np = None\nif _torch:\n    from .checkpoint import C\nelse:\n    from .fallback import F\nif np is not None: import numpy.linalg\nif self._torch:\n    import a\nif _torch_x:\n    import b\nif not _torch:\n    import c\nif f(_torch=1):\n    import d\n";
    let imports = scan(src);
    let got: Vec<(u32, &str, crate::ImportKind, bool)> = imports
        .iter()
        .map(|i| (i.line, i.name.as_str(), i.kind, i.load_guarded))
        .collect();
    let o = crate::ImportKind::Optional;
    let b = crate::ImportKind::Build;
    assert_eq!(
        got,
        [
            (2, "torch", o, true),
            (8, ".checkpoint.C", o, true),
            (8, ".checkpoint", o, true),
            // The branch that runs without it is no guard.
            (10, ".fallback.F", b, false),
            (10, ".fallback", b, false),
            (11, "numpy.linalg", o, true),
            (13, "a", b, false),
            (15, "b", b, false),
            (17, "c", b, false),
            (19, "d", b, false)
        ]
    );
    // Before the guard, the same test guards nothing; a name a function's `try` assigns is
    // no module's flag; a handler's fallback is optional but guards no load.
    let early =
        "if flag:\n    import c\ntry:\n    import d\nexcept ImportError:\n    flag = False\n";
    assert_eq!(scan(early)[0].kind, b);
    let local = "def f():\n    try:\n        import e\n        ok = True\n    except ImportError:\n        ok = False\nif ok:\n    import g\n";
    assert_eq!(scan(local).last().map(|i| i.kind), Some(b));
    let fallback =
        "try:\n    from ._speedups import x\nexcept ImportError:\n    from ._pure import x\n";
    let got: Vec<(crate::ImportKind, bool)> = scan(fallback)
        .iter()
        .map(|i| (i.kind, i.load_guarded))
        .collect();
    assert_eq!(got, [(o, true), (o, true), (o, false), (o, false)]);
}

#[test]
fn a_script_that_defines_no_test_says_so_on_every_import() {
    let script = "import tabulate\ndef bench():\n    import psutil\nif __name__ == \"__main__\":\n    bench()\n";
    assert!(scan(script).iter().all(|i| i.in_script));
    // A test a runner collects, beside the block: no script.
    for test in [
        "import httpx\ndef test_get():\n    pass\nif __name__ == '__main__':\n    run()\n",
        "import httpx\nasync def test_get():\n    pass\nif __name__ == '__main__':\n    run()\n",
        "import httpx\nclass TestGet(unittest.TestCase):\n    pass\nif __name__ == '__main__':\n    unittest.main()\n",
    ] {
        assert!(scan(test).iter().all(|i| !i.in_script), "{test}");
    }
    // No `__main__` block: a module other files import.
    assert!(!scan("import tabulate\ndef bench():\n    pass\n")[0].in_script);
    // `testing` and `Tester` begin so too: a helper named so is taken for a test (the
    // safe side: the file's imports stay owed).
    assert!(
        !scan("import x\ndef testing():\n    pass\nif __name__ == '__main__':\n    testing()\n")[0]
            .in_script
    );
}

#[test]
fn a_file_that_asks_whether_a_module_is_installed_imports_it_optionally() {
    // redash's yandex_disk.py: a flag from `find_spec`, the import under it.
    let src = "from importlib.util import find_spec\nimport requests\nopenpyxl_installed = find_spec(\"openpyxl\")\nif pandas_installed and openpyxl_installed:\n    import openpyxl.styles\nimport yaml\n";
    let scan = scan_file(src);
    let kind = |name: &str| {
        (scan.imports.iter())
            .find(|i| i.name == name)
            .map(|i| i.kind)
            .expect(name)
    };
    assert_eq!(kind("openpyxl.styles"), ImportKind::Optional);
    assert_eq!(kind("requests"), ImportKind::Build);
    assert_eq!(kind("yaml"), ImportKind::Build);
    // reflex's direct test, and a check that raises without the module: that import is owed.
    let direct = "from importlib.util import find_spec\nif find_spec(\"sqlalchemy\") and find_spec(\"alembic\"):\n    import sqlalchemy\n    import alembic\nif importlib.util.find_spec(\"numpy\") is None:\n    raise ImportError(\"numpy is required\")\nimport numpy\nif not find_spec(\"yaml\"):\n    import yaml\n";
    let scan = scan_file(direct);
    let kind = |name: &str| {
        (scan.imports.iter())
            .find(|i| i.name == name)
            .map(|i| i.kind)
            .expect(name)
    };
    assert_eq!(kind("sqlalchemy"), ImportKind::Optional);
    assert_eq!(kind("alembic"), ImportKind::Optional);
    assert_eq!(kind("numpy"), ImportKind::Build);
    assert_eq!(kind("yaml"), ImportKind::Build);
    // `importlib.util.find_spec(name)` of a variable checks nothing mesh can name.
    let var = "import importlib.util\nok = importlib.util.find_spec(name)\nimport openpyxl\n";
    let scan = scan_file(var);
    assert!((scan.imports.iter()).all(|i| i.name != "openpyxl" || i.kind == ImportKind::Build));
}

#[test]
fn a_test_file_skipped_without_a_module_imports_it_optionally_throughout() {
    let kind = |src: &str, name: &str| {
        let scan = scan_file(src);
        (scan.imports.iter())
            .filter(|i| i.name == name)
            .map(|i| i.kind)
            .collect::<Vec<_>>()
    };
    // dspy's test_databricks.py: the module-level guard skips every test without the SDK.
    let marked = "import pytest\ntry:\n    from databricks.sdk import WorkspaceClient\nexcept (ImportError, Exception):\n    pytestmark = pytest.mark.skip(reason=\"no sdk\")\n\ndef test_x():\n    from databricks.sdk import WorkspaceClient\n    import numpy\n";
    assert_eq!(kind(marked, "databricks.sdk"), [ImportKind::Optional; 2]);
    assert_eq!(kind(marked, "numpy"), [ImportKind::Build]);
    let skipped = "import pytest\ntry:\n    import torch\nexcept ImportError:\n    pytest.skip(\"no torch\", allow_module_level=True)\nimport torch.nn\n";
    assert_eq!(kind(skipped, "torch.nn"), [ImportKind::Optional]);
    // A guard whose handler only falls back guards its own body, as before.
    let fallback =
        "try:\n    import ujson as json\nexcept ImportError:\n    json = None\nimport ujson\n";
    assert_eq!(
        kind(fallback, "ujson"),
        [ImportKind::Optional, ImportKind::Build]
    );
}

#[test]
fn a_sphinx_configuration_imports_its_extensions_and_theme() {
    let conf = "project = \"x\"\nextensions = [\n    \"sphinx.ext.autodoc\",\n    \"myst_parser\",\n]\nextensions += [\"sphinx_click\"]\nif not on_rtd:\n    extensions.append(\"sphinxcontrib.spelling\")\nextensions.extend([\"hoverxref.extension\", \"sphinx_design\"])\nhtml_theme = \"furo\"\ntemplates_path = [\"_templates\"]\n";
    let scan = scan_file(conf);
    let optional: Vec<&str> = (scan.imports.iter())
        .filter(|i| i.kind == ImportKind::Optional)
        .map(|i| &*i.name)
        .collect();
    assert_eq!(
        optional,
        [
            "sphinx.ext.autodoc",
            "myst_parser",
            "sphinx_click",
            "sphinxcontrib.spelling",
            "hoverxref.extension",
            "sphinx_design",
            "furo"
        ]
    );
    // `extensions` in a program that is no Sphinx configuration is only a name, beside a
    // `templates_path` too.
    let program = "extensions = [\"json\", \"yaml\"]\ntemplates_path = \"templates\"\n";
    assert!(scan_file(program).imports.is_empty());
    // Sphinx's own themes are no package's.
    let builtin = "extensions = []\nhtml_theme = \"pyramid\"\n";
    assert!(scan_file(builtin).imports.is_empty());
}
