//! `mesh drift` on the shapes real repositories have, each taken from one (named beside it):
//! the cases where a first run on them reported drift that was not there.

use crate::common::TestMesh;
use serde_json::Value;

const MESH: &str = "[mesh]\nname = \"real\"\n\n[[repo]]\nname = \"ws\"\npath = \"ws\"\n";

fn module(t: &TestMesh, dir: &str, name: &str) {
    t.write(
        &format!("ws/{dir}/mesh-module.toml"),
        &format!("name = \"{name}\"\nkind = \"library\"\nbuild = 'true'\n"),
    );
}

/// Each finding as `module kind dependency`.
fn findings(v: &Value) -> Vec<String> {
    v["drift"]
        .as_array()
        .expect("a drift list")
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or("-").to_string();
            format!("{} {} {}", s("module"), s("kind"), s("dependency"))
        })
        .collect()
}

/// Each unsure finding as `module kind dependency: doubt`.
fn unsure(v: &Value) -> Vec<String> {
    v["unsure"]
        .as_array()
        .expect("an unsure list")
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or("-").to_string();
            format!(
                "{} {} {}: {}",
                s("module"),
                s("kind"),
                s("dependency"),
                s("doubt")
            )
        })
        .collect()
}

/// A Cargo workspace shaped like nushell's (github.com/nushell/nushell).
fn nushell_shapes(t: &TestMesh) {
    // The root package: `build = "scripts/build.rs"` uses a build dependency.
    module(t, "", "nu");
    t.write(
        "ws/Cargo.toml",
        "[package]\nname = \"nu\"\nbuild = \"scripts/build.rs\"\n\n[dependencies]\nnu-formats = { path = \"crates/formats\" }\n\n[build-dependencies]\nwinresource = \"0.1\"\n\n[workspace]\nmembers = [\"crates/*\"]\n",
    );
    t.write("ws/src/main.rs", "fn main() { nu_formats::run(); }\n");
    t.write(
        "ws/scripts/build.rs",
        "fn main() { winresource::WindowsResource::new(); }\n",
    );
    // A dev-dependency of the crate on itself switches features on for its tests (gitoxide's
    // `gix-odb = { path = "." }`).
    // nu_plugin_formats: `rust-ini` is imported as `ini`; nu_plugin_polars: `pub use
    // dataframe::*` brings the modules `command` and `values` in; nu-protocol: the
    // `strum_macros` derive expands to `::strum::…`.
    module(t, "crates/formats", "nu-formats");
    t.write(
        "ws/crates/formats/Cargo.toml",
        "[package]\nname = \"nu-formats\"\n\n[dependencies]\nrust-ini = \"0.21\"\nstrum = \"0.26\"\nstrum_macros = \"0.26\"\nplanus = \"1\"\n\n[dev-dependencies]\nnu-test-support = { path = \"../testsupport\" }\nnu-formats = { path = \".\", features = [\"full\"] }\n",
    );
    t.write(
        "ws/crates/formats/src/lib.rs",
        "pub mod dataframe;\npub use dataframe::*;\nuse values::Value;\nuse command::Open;\nuse strum_macros::EnumIter;\n\n#[derive(EnumIter)]\npub enum Kind { A }\n\npub fn run() { let _ = ini::Ini::new(); }\n",
    );
    t.write(
        "ws/crates/formats/src/dataframe/mod.rs",
        "pub mod command;\npub mod values;\n",
    );
    t.write(
        "ws/crates/formats/src/dataframe/values.rs",
        "pub struct Value;\n",
    );
    t.write(
        "ws/crates/formats/src/dataframe/command/mod.rs",
        "pub struct Open;\n",
    );
    // nu-test-support's library is named otherwise than its package.
    t.write(
        "ws/crates/formats/tests/it.rs",
        "use nutest::check;\n#[test]\nfn t() { check(); }\n",
    );
    module(t, "crates/testsupport", "nu-test-support");
    t.write(
        "ws/crates/testsupport/Cargo.toml",
        "[package]\nname = \"nu-test-support\"\n\n[lib]\nname = \"nutest\"\n",
    );
    t.write("ws/crates/testsupport/src/lib.rs", "pub fn check() {}\n");
    // nu-cmd-extra: build.rs compiles a file of `src/` in with `#[path]`; its imports are
    // the build script's.
    module(t, "crates/extra", "nu-extra");
    t.write(
        "ws/crates/extra/Cargo.toml",
        "[package]\nname = \"nu-extra\"\n\n[dependencies]\nnu-formats = { path = \"../formats\" }\n\n[build-dependencies]\nnu-formats = { path = \"../formats\" }\n",
    );
    t.write(
        "ws/crates/extra/build.rs",
        "fn main() {\n    #[path = \"src/theme.rs\"]\n    mod theme;\n    theme::load();\n}\n",
    );
    t.write(
        "ws/crates/extra/src/theme.rs",
        "pub fn load() { nu_formats::run(); }\n",
    );
    t.write("ws/crates/extra/src/lib.rs", "pub mod theme;\n");
}

#[test]
fn nushell_shapes_make_no_findings_but_the_planted_one() {
    let t = TestMesh::new();
    t.empty_repo("ws");
    t.write("mesh.toml", MESH);
    nushell_shapes(&t);
    t.commit("ws", "nushell shapes");
    let run = t.run_json(&["drift"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // `planus` is declared and never imported (as in nu_plugin_polars): still found.
    assert_eq!(findings(&run.json()), ["nu-formats unused planus"]);
}

/// Go modules nested in one another, shaped like opentelemetry-go
/// (github.com/open-telemetry/opentelemetry-go): the root module requires `metric` and
/// `trace`, modules in directories below it, and imports them; `sdk` imports
/// `sdk/metric/metricdata` from a test.
fn otel_shapes(t: &TestMesh) {
    module(t, "", "otel");
    t.write(
        "ws/go.mod",
        "module go.opentelemetry.io/otel\n\ngo 1.22\n\nrequire (\n\tgo.opentelemetry.io/otel/metric v1.45.0\n\tgo.opentelemetry.io/otel/trace v1.45.0\n\tgo.opentelemetry.io/otel/log v1.45.0\n)\n\nreplace go.opentelemetry.io/otel/metric => ./metric\n",
    );
    t.write(
        "ws/global.go",
        "package otel\n\nimport (\n\t\"go.opentelemetry.io/otel/attribute\"\n\t\"go.opentelemetry.io/otel/metric\"\n\t\"go.opentelemetry.io/otel/trace/embedded\"\n)\n",
    );
    t.write("ws/attribute/kv.go", "package attribute\n");
    for m in ["metric", "trace", "log"] {
        module(t, m, m);
        t.write(
            &format!("ws/{m}/go.mod"),
            &format!("module go.opentelemetry.io/otel/{m}\n\ngo 1.22\n"),
        );
        t.write(&format!("ws/{m}/{m}.go"), &format!("package {m}\n"));
    }
    module(t, "sdk", "sdk");
    t.write(
        "ws/sdk/go.mod",
        "module go.opentelemetry.io/otel/sdk\n\ngo 1.22\n\nrequire (\n\tgo.opentelemetry.io/otel v1.45.0\n\tgo.opentelemetry.io/otel/sdk/metric v1.45.0\n)\n",
    );
    t.write(
        "ws/sdk/trace/span_test.go",
        "package trace\n\nimport (\n\t\"go.opentelemetry.io/otel/attribute\"\n\t\"go.opentelemetry.io/otel/sdk/metric/metricdata\"\n)\n",
    );
    module(t, "sdk/metric", "sdk-metric");
    t.write(
        "ws/sdk/metric/go.mod",
        "module go.opentelemetry.io/otel/sdk/metric\n\ngo 1.22\n",
    );
    t.write("ws/sdk/metric/metricdata/data.go", "package metricdata\n");
}

#[test]
fn nested_go_modules_are_their_own_not_the_enclosing_ones() {
    let t = TestMesh::new();
    t.empty_repo("ws");
    t.write("mesh.toml", MESH);
    otel_shapes(&t);
    t.commit("ws", "opentelemetry-go shapes");
    let run = t.run_json(&["drift"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // `log` is required by the root and imported nowhere: still found.
    assert_eq!(
        findings(&run.json()),
        ["otel unused go.opentelemetry.io/otel/log"]
    );
}

/// kratos' `contrib/middleware/validate`: a test imports the module's own
/// `internal/testdata` package by path, whose generated code imports what go.mod requires.
/// The go command compiles it (and `go mod tidy` keeps the requires); a testdata directory
/// nothing imports stays unread.
#[test]
fn a_testdata_package_imported_by_path_uses_what_it_imports() {
    let t = TestMesh::new();
    t.empty_repo("ws");
    t.write("mesh.toml", MESH);
    module(&t, "validate", "validate");
    t.write(
        "ws/validate/go.mod",
        "module example.com/validate\n\ngo 1.22\n\nrequire (\n\tbuf.build/gen/go/protovalidate v1.0.0\n\tgithub.com/unused/only v1.0.0\n)\n",
    );
    t.write(
        "ws/validate/validate_test.go",
        "package validate\n\nimport (\n\t\"testing\"\n\n\t\"example.com/validate/internal/testdata\"\n)\n\nfunc TestX(t *testing.T) { _ = testdata.Msg{} }\n",
    );
    t.write("ws/validate/validate.go", "package validate\n");
    t.write(
        "ws/validate/internal/testdata/test.pb.go",
        "package testdata\n\nimport _ \"buf.build/gen/go/protovalidate/protocolbuffers\"\n\ntype Msg struct{}\n",
    );
    t.write(
        "ws/validate/other/testdata/fixture.go",
        "package fixture\n\nimport _ \"github.com/unused/only\"\n",
    );
    t.commit("ws", "kratos shapes");
    let found = findings(&t.json(&["drift"]));
    assert_eq!(found, ["validate unused github.com/unused/only"]);

    // dagger's modules: `internal/dagger` is generated by `dagger develop` and kept out of
    // git; what it imports (go.mod keeps) is unknown, so an unused require is unsure.
    module(&t, "mod", "dagger-mod");
    t.write(
        "ws/mod/go.mod",
        "module dagger/mod\n\ngo 1.22\n\nrequire github.com/vektah/gqlparser/v2 v2.5.0\n",
    );
    t.write(
        "ws/mod/main.go",
        "package main\n\nimport \"dagger/mod/internal/dagger\"\n\nfunc main() { _ = dagger.Connect }\n",
    );
    t.write(
        "ws/mod/internal/dagger/.gitattributes",
        "*.go linguist-generated\n",
    );
    t.commit("ws", "a dagger module");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["validate unused github.com/unused/only"]);
    assert_eq!(
        unsure(&v),
        [
            "dagger-mod unused github.com/vektah/gqlparser/v2: its code imports `dagger/mod/internal/dagger` (mod/main.go:3), a package of its own the repository lacks (generated, kept out of git): what that code imports is unknown"
        ]
    );
}

/// Shipped JS code that imports a package declared only for development: a bundled package
/// inlines it (nothing to say), any other misses it at run time (`shipped-dev`, not
/// `undeclared`: it is declared, in the wrong section).
#[test]
fn a_dev_dependency_imported_by_shipped_code_is_said_as_such_and_not_for_a_bundle() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    for (dir, build) in [("lib", "tsc"), ("app", "vite build")] {
        module(&t, dir, dir);
        t.write(
            &format!("ws/{dir}/package.json"),
            &format!(
                r#"{{"name": "{dir}", "scripts": {{"build": "{build}"}}, "devDependencies": {{"left-pad": "1", "typescript": "5", "vite": "5"}}}}"#
            ),
        );
        t.write(
            &format!("ws/{dir}/src/index.js"),
            "const pad = require('left-pad');\nconst missing = require('not-declared');\nmodule.exports = pad;\n",
        );
    }
    // A test runner's setup file, outside any test directory, imports a dev dependency:
    // test code, no finding.
    t.write(
        "ws/lib/vitest.config.ts",
        "export default { test: { setupFiles: ['./support/setup.ts'] } };\n",
    );
    t.write("ws/lib/support/setup.ts", "import 'vite';\n");
    // The workspace root's dev dependencies serve the tests of every package below it.
    t.write(
        "ws/package.json",
        "{\n  \"private\": true,\n  \"workspaces\": [\"lib\", \"app\"],\n  \"devDependencies\": {\"prettier\": \"3\"}\n}\n",
    );
    t.write("ws/lib/src/index.test.js", "import 'prettier';\n");
    t.empty_repo("ws");
    t.commit("ws", "two packages");
    let found = findings(&t.json(&["drift"]));
    assert!(
        found.contains(&"lib shipped-dev left-pad".to_string()),
        "{found:?}"
    );
    assert!(
        !found.iter().any(|f| f.starts_with("app shipped-dev")),
        "{found:?}"
    );
    // What is declared nowhere is still undeclared, bundle or not.
    for m in ["lib", "app"] {
        assert!(
            found.contains(&format!("{m} undeclared not-declared")),
            "{found:?}"
        );
        assert!(
            !found.contains(&format!("{m} undeclared left-pad")),
            "{found:?}"
        );
    }

    // `--explain` shows what decided each: the declaration and its section, the import and
    // its kind of code, the tool that runs it.
    let e = t.json(&["drift", "--explain", "lib", "left-pad"]);
    let evidence: Vec<&str> = e["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        evidence
            .iter()
            .any(|l| l.starts_with("declared in lib/package.json:1 for development")),
        "{evidence:?}"
    );
    assert!(
        evidence
            .iter()
            .any(|l| l.starts_with("imported by lib/src/index.js:1 (shipped code)")),
        "{evidence:?}"
    );
    assert_eq!(e["findings"][0]["kind"], "shipped-dev", "{e}");
    let e = t.json(&["drift", "--explain", "lib", "typescript"]);
    let evidence = e["evidence"].to_string();
    assert!(
        evidence.contains("used by a tool: a command runs it: `tsc`"),
        "{evidence}"
    );
    assert_eq!(e["findings"].as_array().unwrap().len(), 0, "{e}");
    let e = t.json(&["drift", "--explain", "lib", "vite"]);
    let evidence = e["evidence"].to_string();
    assert!(
        evidence.contains("lib/support/setup.ts:1 (test, bench or example code)"),
        "{evidence}"
    );
    let text = t.ok(&["drift", "--explain", "app", "not-declared"]);
    assert!(
        text.contains("no declaration a clean build reads answers it"),
        "{text}"
    );
    assert!(
        text.contains("undeclared: imported and declared nowhere"),
        "{text}"
    );
    // A declaration the workspace root holds is said where it is: the root's file and line.
    let text = t.ok(&["drift", "--explain", "lib", "prettier"]);
    assert!(
        text.contains("declared in package.json:4 for development"),
        "{text}"
    );
    t.fails(&["drift", "--explain", "nope", "x"], 1);
}

/// Python projects whose shapes made false `unused`: a package put together at build time
/// (its pyproject names a package that is not in the module), a test project declaring pytest
/// and its plugins as its dependencies, and a server run by a command.
#[test]
fn python_packages_built_elsewhere_test_projects_and_commands_make_no_false_unused() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "assembled", "assembled");
    t.write(
        "ws/assembled/pyproject.toml",
        "[project]\nname = \"assembled\"\ndependencies = [\"requests\"]\n\n[tool.setuptools]\npackages = [\"assembled_pkg\"]\n",
    );
    t.write(
        "ws/assembled/build.sh",
        "cp -r ../core/src/assembled_pkg .\n",
    );
    module(&t, "suite", "suite");
    t.write(
        "ws/suite/pyproject.toml",
        "[project]\nname = \"suite\"\ndependencies = [\"pytest\", \"pytest-xdist\", \"gunicorn\", \"attrs\", \"weird-dist\"]\n",
    );
    // prefect-client: hatch builds `src/prefect`, which client/build_client.sh copies in; a
    // CI smoke script beside the manifest is not what the wheel ships.
    module(&t, "copied", "copied");
    t.write(
        "ws/copied/pyproject.toml",
        "[project]\nname = \"copied\"\ndependencies = [\"requests\", \"dateparser\"]\n\n[tool.hatch.build.targets.wheel]\npackages = [\"src/copied_pkg\"]\n",
    );
    t.write("ws/copied/client_flow.py", "import requests\n");
    // opentelemetry-contrib-instrumentations: a meta-package whose code is its version.
    module(&t, "meta", "meta");
    t.write(
        "ws/meta/pyproject.toml",
        "[project]\nname = \"meta\"\ndependencies = [\"instrument-a\", \"instrument-b\"]\n",
    );
    t.write("ws/meta/src/meta/version.py", "__version__ = \"1.0\"\n");
    t.write("ws/suite/Makefile", "serve:\n\tgunicorn suite.app:app\n");
    t.write("ws/suite/suite/__init__.py", "");
    t.write("ws/suite/suite/app.py", "import pytest\nimport wd\n");
    // A distribution whose import name no rule guesses, installed in the module's `.venv`
    // (not committed): its own top_level.txt says what it is imported by.
    t.write("ws/.gitignore", ".venv/\n");
    t.write(
        "ws/suite/.venv/lib/python3.12/site-packages/weird_dist-2.0.dist-info/top_level.txt",
        "wd\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "python shapes");
    let found = findings(&t.json(&["drift"]));
    assert!(
        !found.iter().any(|f| f.starts_with("assembled ")),
        "{found:?}"
    );
    assert!(
        !found.contains(&"suite unused pytest-xdist".to_string()),
        "{found:?}"
    );
    assert!(
        !found.contains(&"suite unused gunicorn".to_string()),
        "{found:?}"
    );
    // What nothing uses is still found.
    assert!(
        found.contains(&"suite unused attrs".to_string()),
        "{found:?}"
    );
    assert!(
        !found
            .iter()
            .any(|f| f.contains("weird-dist") || f.ends_with(" wd")),
        "{found:?}"
    );
    assert!(!found.iter().any(|f| f.starts_with("meta ")), "{found:?}");
    assert!(!found.iter().any(|f| f.starts_with("copied ")), "{found:?}");
    let e = t.ok(&["drift", "--explain", "assembled", "requests"]);
    assert!(e.contains("put together at build time"), "{e}");
    let e = t.ok(&["drift", "--explain", "meta", "instrument-a"]);
    assert!(
        e.contains("no shipped Python file of the module imports anything"),
        "{e}"
    );
}

#[test]
fn python_names_on_sys_path_and_exported_macro_bodies_are_not_undeclared() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    // A test suite whose conftest puts its helpers directory on sys.path (a shape many
    // projects have: `tests/helpers/fakes.py` imported as `fakes`), and a tool directory that
    // pytest's `pythonpath` names; a script elsewhere importing the same names has no such
    // path and still owes its declaration.
    module(&t, "svc", "svc");
    t.write(
        "ws/svc/pyproject.toml",
        "[project]\nname = \"svc\"\ndependencies = []\n\n[tool.pytest.ini_options]\npythonpath = [\"tools\"]\n",
    );
    t.write("ws/svc/svc/__init__.py", "");
    t.write(
        "ws/svc/tests/conftest.py",
        "import os, sys\n# sys.path is changed below\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), \"helpers\"))\n",
    );
    t.write("ws/svc/tests/helpers/fakes.py", "X = 1\n");
    t.write(
        "ws/svc/tests/unit/test_a.py",
        "import fakes\nimport toolbox\n",
    );
    t.write("ws/svc/tools/toolbox.py", "Y = 2\n");
    t.write("ws/svc/bin/run.py", "import fakes\n");
    // A crate whose exported macro's body names `tracing`: the crates calling it declare it.
    module(&t, "mac", "mac");
    t.write(
        "ws/mac/Cargo.toml",
        "[package]\nname = \"mac\"\n\n[dependencies]\n",
    );
    t.write(
        "ws/mac/src/lib.rs",
        "#[macro_export]\nmacro_rules! trace_it {\n    ($e:expr) => { ::tracing::info!(\"{}\", $e) };\n}\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "path shapes");
    let v = t.json(&["drift"]);
    // The script has no sys.path change, so it owes a declaration of `fakes` — but a file of
    // the repository bears that name, so the finding is unsure, and says why.
    let doubts = unsure(&v);
    assert!(
        doubts
            .iter()
            .any(|d| d.starts_with("svc undeclared fakes: `svc/tests/helpers/fakes.py`")),
        "the script has no sys.path change: {doubts:?}"
    );
    let found = findings(&v);
    assert!(!found.iter().any(|f| f.ends_with(" toolbox")), "{found:?}");
    assert!(!found.iter().any(|f| f.starts_with("mac ")), "{found:?}");
    let e = t.ok(&["drift", "--explain", "svc", "fakes"]);
    assert!(
        e.contains("`fakes` is in `tests/helpers/`, which tests/conftest.py:3 puts on sys.path"),
        "the conftest is the evidence: {e}"
    );
    let e = t.ok(&["drift", "--explain", "svc", "toolbox"]);
    assert!(e.contains("pytest's `pythonpath` (pyproject.toml)"), "{e}");
}

#[test]
fn a_doc_test_uses_a_dev_dependency_only_when_the_library_s_doc_tests_run() {
    // nushell's nu-plugin-test-support: `[lib] doctest = false`, and a dev-dependency named
    // only in a doc example is unused (rustdoc never compiles the example).
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    for (dir, lib) in [("off", "\n[lib]\ndoctest = false\n"), ("on", "")] {
        module(&t, dir, dir);
        t.write(
            &format!("ws/{dir}/Cargo.toml"),
            &format!("[package]\nname = \"{dir}\"\n{lib}\n[dev-dependencies]\ntempfile = \"3\"\n"),
        );
        t.write(
            &format!("ws/{dir}/src/lib.rs"),
            "/// Adds.\n///\n/// ```\n/// let d = tempfile::tempdir().unwrap();\n/// ```\npub fn add() {}\n",
        );
    }
    t.empty_repo("ws");
    t.commit("ws", "doc tests");
    let found = findings(&t.json(&["drift"]));
    assert!(
        found
            .iter()
            .any(|f| f.starts_with("off ") && f.ends_with(" tempfile")),
        "{found:?}"
    );
    assert!(!found.iter().any(|f| f.starts_with("on ")), "{found:?}");
    let e = t.ok(&["drift", "--explain", "off", "tempfile"]);
    assert!(
        e.contains("off/src/lib.rs:4 names it in a doc test") && e.contains("doctest = false"),
        "{e}"
    );
}

/// Three Rust shapes where the code shows no import of a dependency that is there: a derive
/// whose expansion names a crate, which the maintainers list for cargo-shear (ruff's
/// `ruff_cache`); a module a glob import brings (`pub use criterion::*;` then
/// `measurement::WallTime`, `use crate::*;` then lib.rs's `mem`); and a crate named only by
/// intra-doc links beside its use by tests, which rustdoc resolves against `[dependencies]`
/// (bevy's `disqualified`; a crate only links name is still unused, as nushell's `heck`).
/// Beside each, the same shape without its reason is still a finding.
#[test]
fn tool_ignore_lists_glob_imports_and_intra_doc_links_make_no_false_rust_findings() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "derives", "derives");
    t.write(
        "ws/derives/Cargo.toml",
        "[package]\nname = \"derives\"\n\n[dependencies]\ncache = \"1\"\nunneeded = \"1\"\n\n[package.metadata.cargo-shear]\n# Used via macro expansion.\nignored = [\"cache\"]\n",
    );
    t.write("ws/derives/src/lib.rs", "pub struct Options;\n");
    module(&t, "globs", "globs");
    t.write(
        "ws/globs/Cargo.toml",
        "[package]\nname = \"globs\"\n\n[dependencies]\ncriterion = \"0.5\"\n",
    );
    t.write(
        "ws/globs/src/lib.rs",
        "mod bench;\nuse std::mem;\npub use criterion::*;\npub fn f() { let _: measurement::WallTime; }\n",
    );
    t.write(
        "ws/globs/src/bench.rs",
        "use crate::*;\npub fn g(v: &mut Vec<u8>) { mem::take(v); }\npub fn h() { rand::random(); }\n",
    );
    module(&t, "links", "links");
    t.write(
        "ws/links/Cargo.toml",
        "[package]\nname = \"links\"\n\n[dependencies]\ndisqualified = \"1\"\nonly_tests = \"1\"\nlinked_only = \"1\"\n",
    );
    t.write(
        "ws/links/src/lib.rs",
        "//! Names are shortened as [`disqualified::ShortName`] does, cased as [`linked_only::Case`].\n//!\n//! ```text\n//! [x](only_tests::Thing)\n//! ```\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { disqualified::ShortName::of::<u8>(); only_tests::run(); }\n}\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "rust shapes");
    let mut found = findings(&t.json(&["drift"]));
    found.sort();
    // `rand` stands beside `use crate::*` too: a glob may bring any name, and a crate named
    // without a declaration would not compile, so nothing is said of it.
    assert_eq!(
        found,
        [
            "derives unused unneeded",
            "links dev-only only_tests",
            "links unused linked_only",
        ]
    );
    let e = explained(&t, "derives", "cache");
    assert!(
        e.contains("`[package.metadata.cargo-shear]` in derives/Cargo.toml:10 lists it as used"),
        "{e}"
    );
    let e = explained(&t, "links", "disqualified");
    assert!(e.contains("an intra-doc link"), "{e}");
}

/// rust-analyzer's and helix's shapes: a tool's attribute (`#[rust_analyzer::rust_fixture]`),
/// an `extern crate X as Y;` at the root used as `Y::` in another file, the toolchain's own
/// crates under `#![feature(rustc_private)]`, a parser's `test_data/` inputs, and a bare `use`
/// of a function of the file. None is a crate to declare, and the renamed crate is used.
#[test]
fn tool_attributes_extern_renames_toolchain_crates_and_test_data_are_no_rust_findings() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "ide", "ide");
    t.write(
        "ws/ide/Cargo.toml",
        "[package]\nname = \"ide\"\n\n[dependencies]\nra_ap_rustc_abi = \"0.1\"\n",
    );
    t.write(
        "ws/ide/src/lib.rs",
        "#![feature(rustc_private)]\nextern crate rustc_driver;\nextern crate ra_ap_rustc_abi as rustc_abi;\nmod layout;\npub fn check(#[rust_analyzer::rust_fixture] fixture: &str) {}\nfn byte_from_hex(b: u8) -> u8 { b }\nfn parse() { use byte_from_hex as pair; }\n",
    );
    t.write(
        "ws/ide/src/layout.rs",
        "pub fn size() -> rustc_abi::Size { rustc_span::DUMMY; rustc_abi::Size::ZERO }\n",
    );
    t.write(
        "ws/ide/test_data/parser/ok/0001.rs",
        "use not_a_dependency::x;\n",
    );
    // cargo's `tests/testsuite/cargo_add/*/in/Cargo.toml`: a test's fixture manifest, no
    // code beside it; a crate with code beside it is still held to its manifest.
    module(&t, "tests/fixture/in", "fixture");
    t.write(
        "ws/tests/fixture/in/Cargo.toml",
        "[package]\nname = \"cargo-list-test-fixture\"\n\n[dependencies]\nmy-package = \"0.1\"\n",
    );
    // Or beside an empty `src/lib.rs` (cargo's `cargo_add/*/in/primary`).
    module(&t, "tests/stub/in", "stub");
    t.write(
        "ws/tests/stub/in/Cargo.toml",
        "[package]\nname = \"bar\"\n\n[dependencies]\nfoo = \"0.1\"\n",
    );
    t.write("ws/tests/stub/in/src/lib.rs", "");
    module(&t, "tool", "tool");
    t.write(
        "ws/tool/Cargo.toml",
        "[package]\nname = \"tool\"\n\n[dependencies]\nleft-over = \"1\"\n",
    );
    t.write("ws/tool/src/main.rs", "use std::env;\nfn main() {}\n");
    t.empty_repo("ws");
    t.commit("ws", "rust-analyzer shapes");
    let found = findings(&t.json(&["drift"]));
    assert_eq!(found, ["tool unused left-over"]);
    let e = explained(&t, "fixture", "my-package");
    assert!(e.contains("the module has no Rust file"), "{e}");
}

/// The third held-out set's shapes fixed as rules: a component file's compiled code imports its
/// framework (astro's sites, svelte's components: the package is used though no line names
/// it), ESLint's legacy `plugin:` configs name their plugin packages (TanStack's examples),
/// `pytest.importorskip("x")` is a guarded import (langgraph's optional test dependencies),
/// and a package another used one requires as a peer (the lockfile says so) is used. Beside
/// them, what nothing uses is still found.
#[test]
fn component_runtimes_eslint_plugin_configs_and_importorskip_make_no_false_findings() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "site", "site");
    t.write(
        "ws/site/package.json",
        "{\"name\": \"site\", \"dependencies\": {\"astro\": \"5\", \"svelte\": \"5\", \"react\": \"19\", \"left-pad\": \"1\"}, \"devDependencies\": {\"eslint-plugin-react\": \"7\"}}\n",
    );
    t.write("ws/site/src/pages/index.astro", "<h1>Hi</h1>\n");
    // JSX compiles to imports of `react/jsx-runtime`, which no line names.
    t.write(
        "ws/site/src/Button.tsx",
        "export const B = () => <b>hi</b>;\n",
    );
    // TanStack's next examples: `react-dom` is next's required peer, as the root's
    // pnpm-lock.yaml records; no line of the module imports it. `graphql`, an optional peer,
    // is still unused.
    module(&t, "app", "app");
    t.write(
        "ws/app/package.json",
        "{\"name\": \"app\", \"dependencies\": {\"next\": \"15\", \"react-dom\": \"19\", \"graphql\": \"16\"}}\n",
    );
    t.write("ws/app/src/page.js", "import Link from 'next/link'\n");
    t.write(
        "ws/pnpm-lock.yaml",
        "lockfileVersion: '9.0'\n\npackages:\n\n  next@15.0.0:\n    resolution: {integrity: sha512-z}\n    peerDependencies:\n      graphql: '*'\n      react: ^19\n      react-dom: ^19\n    peerDependenciesMeta:\n      graphql:\n        optional: true\n",
    );
    t.write("ws/site/src/Counter.svelte", "<button>+</button>\n");
    t.write(
        "ws/site/.eslintrc.json",
        "{\"extends\": [\"plugin:react/recommended\"]}\n",
    );
    module(&t, "graph", "graph");
    t.write(
        "ws/graph/pyproject.toml",
        "[project]\nname = \"graph\"\ndependencies = []\n",
    );
    t.write("ws/graph/graph/__init__.py", "import os\n");
    t.write(
        "ws/graph/tests/test_redis.py",
        "import pytest\nredis = pytest.importorskip(\"redis\")\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "round 4 shapes");
    let found = findings(&t.json(&["drift"]));
    assert!(
        found.iter().all(|f| [
            "site unused left-pad",
            "graph undeclared pytest",
            "app unused graphql"
        ]
        .contains(&f.as_str())),
        "{found:?}"
    );
    assert!(
        found.contains(&"site unused left-pad".to_string()),
        "{found:?}"
    );
    assert!(
        found.contains(&"app unused graphql".to_string()),
        "{found:?}"
    );
    let e = explained(&t, "app", "react-dom");
    assert!(
        e.contains("next requires it installed beside it (pnpm-lock.yaml records"),
        "{e}"
    );
    let e = explained(&t, "site", "astro");
    assert!(e.contains("compiled code imports its runtime"), "{e}");
}

/// The fourth held-out set's shapes fixed as rules: the maintainers' lists for knip (nuxt's
/// `ignoreDependencies`, top-level and per workspace glob) and deptry (`per_rule_ignores`)
/// silence what they name, as cargo-shear's does; a crate with no library and no binary
/// (tokio's benches) has nothing dev-only. Beside each, an unlisted finding stays.
#[test]
fn knip_and_deptry_lists_and_a_crate_that_ships_nothing() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    t.write(
        "ws/knip.json",
        "{\n  \"ignoreDependencies\": [\"ofetch\"],\n  \"workspaces\": {\"fixtures/*\": {\"ignoreDependencies\": [\"nuxt\"]}}\n}\n",
    );
    module(&t, "fixtures/basic", "basic");
    t.write(
        "ws/fixtures/basic/package.json",
        "{\"name\": \"basic\", \"dependencies\": {\"ofetch\": \"1\", \"nuxt\": \"4\", \"left-pad\": \"1\", \"@pulumi/camelNames\": \"1\"}}\n",
    );
    // pulumi's published `@pulumi/camelNames`: a scoped name with capitals, declared and
    // imported, is used (it was dropped as a bundler alias before).
    t.write(
        "ws/fixtures/basic/app.js",
        "import * as c from \"@pulumi/camelNames\";\nexport default c\n",
    );
    module(&t, "api", "api");
    t.write(
        "ws/api/pyproject.toml",
        "[project]\nname = \"api\"\ndependencies = [\"uvicorn\", \"attrs\"]\n\n[tool.deptry.per_rule_ignores]\nDEP002 = [\"uvicorn\"]\n",
    );
    t.write("ws/api/api/__init__.py", "import os\n");
    module(&t, "benches", "benches");
    t.write(
        "ws/benches/Cargo.toml",
        "[package]\nname = \"benches\"\npublish = false\n\n[dependencies]\ncriterion = \"0.5\"\nunused_one = \"1\"\n\n[[bench]]\nname = \"spawn\"\nharness = false\n",
    );
    t.write(
        "ws/benches/benches/spawn.rs",
        "fn main() { criterion::black_box(1); }\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "round 5 shapes");
    let mut found = findings(&t.json(&["drift"]));
    found.sort();
    assert_eq!(
        found,
        [
            "api unused attrs",
            "basic unused left-pad",
            "benches unused unused_one"
        ]
    );
    let e = explained(&t, "basic", "nuxt");
    assert!(
        e.contains("knip's `workspaces.fixtures/*.ignoreDependencies` in knip.json"),
        "{e}"
    );
    let e = explained(&t, "benches", "criterion");
    assert!(e.contains("no library and no binary"), "{e}");
}

/// opentelemetry-python's shapes: distributions sharing the PEP 420 namespace `opentelemetry`
/// (no `__init__.py`; each wheel ships `src/opentelemetry` whole), test dependencies declared
/// only in a `test-requirements.txt` the root's tox.ini installs (`-e` sibling paths, pins,
/// a `-r` include, a `-c` constraint), and a test-helper library whose shipped package is
/// `opentelemetry.test`. Before, the namespace was each module's own (shipped imports of a
/// sibling unseen: `dev-only`), its directories made `grpc` local, the test imports were
/// `undeclared`, and the helper library's code was tests.
#[test]
fn python_namespaces_test_requirements_and_a_shipped_test_package() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    let hatch = "[tool.hatch.build.targets.wheel]\npackages = [\"src/opentelemetry\"]\n";
    let dist = |dir: &str, name: &str, deps: &str| {
        module(&t, dir, name);
        t.write(
            &format!("ws/{dir}/pyproject.toml"),
            &format!("[project]\nname = \"{name}\"\ndependencies = [{deps}]\n\n{hatch}"),
        );
    };
    dist("api", "opentelemetry-api", "");
    t.write("ws/api/src/opentelemetry/trace/__init__.py", "X = 1\n");
    t.write("ws/api/src/opentelemetry/context/__init__.py", "Y = 1\n");
    t.write(
        "ws/api/tests/test_context.py",
        "from opentelemetry import context\n",
    );
    dist("sdk", "opentelemetry-sdk", "\"opentelemetry-api\"");
    t.write(
        "ws/sdk/src/opentelemetry/sdk/__init__.py",
        "from opentelemetry import trace\nfrom opentelemetry.context import Y\n",
    );
    t.write(
        "ws/sdk/tests/test_sdk.py",
        "import pytest\nimport flaky\nfrom opentelemetry.sdk import trace\nfrom opentelemetry.test.helpers import T\n",
    );
    t.write(
        "ws/sdk/tox-requirements.txt",
        "-c ../constraints.txt\npytest==9.0.3  # the runner\n-r common-requirements.txt\n-e api\n-e test-utils\n-e sdk\n",
    );
    t.write("ws/sdk/common-requirements.txt", "flaky==3.8.1\n");
    t.write("ws/constraints.txt", "requests==2.0\n");
    dist(
        "grpc-exporter",
        "opentelemetry-exporter-grpc",
        "\"grpcio\", \"opentelemetry-sdk\"",
    );
    t.write(
        "ws/grpc-exporter/src/opentelemetry/exporter/grpc/__init__.py",
        "from grpc import insecure_channel\nfrom opentelemetry.sdk import X\n",
    );
    dist("test-utils", "opentelemetry-test-utils", "\"asgiref\"");
    t.write("ws/test-utils/src/opentelemetry/test/__init__.py", "");
    t.write(
        "ws/test-utils/src/opentelemetry/test/helpers.py",
        "import asgiref\nT = 1\n",
    );
    t.write(
        "ws/tox.ini",
        "[tox]\nenvlist = sdk\n\n[testenv]\ndeps =\n  sdk: -r {toxinidir}/sdk/tox-requirements.txt\n  -c {toxinidir}/constraints.txt\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "otel shapes");
    let found = findings(&t.json(&["drift"]));
    assert!(found.is_empty(), "{found:?}");
    let e = t.ok(&["drift", "--explain", "opentelemetry-sdk", "flaky"]);
    assert!(
        e.contains("sdk/common-requirements.txt:1 declares it")
            && e.contains("sdk/tox-requirements.txt:3 includes it"),
        "{e}"
    );
    let e = t.ok(&[
        "drift",
        "--explain",
        "opentelemetry-sdk",
        "opentelemetry-api",
    ]);
    assert!(
        e.contains("src/opentelemetry/sdk/__init__.py:1 (shipped code)"),
        "a shipped import of the api is seen: {e}"
    );

    // Without the runner, the same imports are undeclared (the file tox installs has no
    // name of a package's development requirements), named by the
    // distributions of the mesh that provide them; and a sibling's namespace directory
    // never makes the api the module's own.
    t.write("ws/tox.ini", "[tox]\nenvlist = none\n");
    t.commit("ws", "no runner");
    let found = findings(&t.json(&["drift"]));
    for f in [
        "opentelemetry-sdk undeclared pytest",
        "opentelemetry-sdk undeclared flaky",
        "opentelemetry-sdk undeclared opentelemetry-test-utils",
    ] {
        assert!(found.contains(&f.to_string()), "{f}: {found:?}");
    }
    assert_eq!(found.len(), 3, "{found:?}");
}

/// autogen's uv workspace: a virtual root (`python/pyproject.toml`, no `[project]`) whose
/// `dev` group holds the test tools every member's tests import; a group `uv sync` does not
/// install by default declares nothing for them.
#[test]
fn a_uv_workspace_root_s_default_groups_serve_its_members_tests() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    t.write(
        "ws/python/pyproject.toml",
        "[tool.uv.workspace]\nmembers = [\"packages/*\"]\n\n[tool.uv.sources]\nacme-core = { workspace = true }\n\n[dependency-groups]\ndev = [\"pytest\", {include-group = \"lint\"}]\nlint = [\"pytest-asyncio\"]\ndocs = [\"sphinx\"]\n",
    );
    module(&t, "python/packages/acme-core", "acme-core");
    t.write(
        "ws/python/packages/acme-core/pyproject.toml",
        "[project]\nname = \"acme-core\"\ndependencies = []\n",
    );
    t.write("ws/python/packages/acme-core/src/acme_core/__init__.py", "");
    t.write(
        "ws/python/packages/acme-core/tests/test_a.py",
        "import pytest\nimport pytest_asyncio\nimport sphinx\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "uv workspace");
    let found = findings(&t.json(&["drift"]));
    assert_eq!(found, ["acme-core undeclared sphinx"], "{found:?}");
    let e = t.ok(&["drift", "--explain", "acme-core", "pytest"]);
    assert!(
        e.contains("the uv workspace root python/pyproject.toml"),
        "{e}"
    );
}

/// The evidence `mesh drift --explain MODULE DEP` gives, as one string.
fn explained(t: &TestMesh, module: &str, dep: &str) -> String {
    t.json(&["drift", "--explain", module, dep])["evidence"].to_string()
}

/// A pnpm workspace shaped like vite's playgrounds: a page's inline module script and its
/// stylesheets import packages, a playground's test helper imports what the enclosing
/// `playground/package.json` (no module) declares, and a library is built by a bundler whose
/// config stands beside it.
#[test]
fn pages_stylesheets_enclosing_packages_and_bundler_configs_make_no_false_findings() {
    let t = TestMesh::new();
    t.empty_repo("ws");
    t.write("mesh.toml", MESH);
    t.write(
        "ws/package.json",
        "{\"private\": true, \"devDependencies\": {\"vitest\": \"3\"}}\n",
    );
    t.write(
        "ws/pnpm-workspace.yaml",
        "packages:\n  - packages/*\n  - playground/**\n",
    );
    // Not a module: it only holds what its playgrounds' tests share.
    t.write(
        "ws/playground/package.json",
        "{\n  \"private\": true,\n  \"devDependencies\": {\n    \"kill-port\": \"1\",\n    \"express\": \"4\"\n  }\n}\n",
    );
    module(&t, "playground/ssr-html", "ssr-html");
    t.write(
        "ws/playground/ssr-html/package.json",
        "{\"name\": \"ssr-html\", \"private\": true}\n",
    );
    t.write(
        "ws/playground/ssr-html/__tests__/serve.ts",
        "import kill from 'kill-port';\nimport { test } from 'vitest';\n",
    );
    // Shipped code cannot reach the enclosing package: its dev declaration is said as one
    // shipped code imports, as the workspace root's is.
    t.write(
        "ws/playground/ssr-html/server.js",
        "import express from 'express';\n",
    );
    module(&t, "playground/nested-deps", "nested-deps");
    t.write(
        "ws/playground/nested-deps/package.json",
        "{\"name\": \"nested-deps\", \"private\": true, \"dependencies\": {\"@acme/self-ref\": \"workspace:*\", \"tailwindcss\": \"4\", \"@acme/scss-theme\": \"1\", \"unused-one\": \"1\", \"chai\": \"5\"}}\n",
    );
    t.write(
        "ws/playground/nested-deps/__tests__/a.spec.js",
        "import { expect } from 'chai';\n",
    );
    t.write(
        "ws/playground/nested-deps/index.html",
        "<!doctype html>\n<link rel=\"stylesheet\" href=\"./tailwind.css\">\n<script type=\"module\" src=\"./main.js\"></script>\n<div id=\"app\"></div>\n<script type=\"module\">\n  import { isSelfReference } from '@acme/self-ref/test'\n  document.querySelector('#app').textContent = isSelfReference\n</script>\n",
    );
    t.write(
        "ws/playground/nested-deps/main.js",
        "import './style.scss';\n",
    );
    t.write(
        "ws/playground/nested-deps/tailwind.css",
        "@import 'tailwindcss';\n@import url('https://fonts.example.com/inter.css');\n",
    );
    t.write(
        "ws/playground/nested-deps/style.scss",
        "@use 'sass:math';\n@use '@acme/scss-theme';\n// a partial beside it, on the load path\n@use 'partials';\n",
    );
    module(&t, "packages/self-ref", "self-ref");
    t.write(
        "ws/packages/self-ref/package.json",
        "{\"name\": \"@acme/self-ref\", \"exports\": {\"./test\": \"./test.js\"}}\n",
    );
    t.write(
        "ws/packages/self-ref/test.js",
        "export const isSelfReference = true;\n",
    );
    // Built by a bundler its script runs through a build file: the config beside it says so.
    module(&t, "packages/lib", "lib");
    t.write(
        "ws/packages/lib/package.json",
        "{\"name\": \"lib\", \"scripts\": {\"build\": \"node scripts/build.mjs\"}, \"devDependencies\": {\"left-pad\": \"1\"}}\n",
    );
    t.write("ws/packages/lib/rolldown.config.ts", "export default {};\n");
    t.write(
        "ws/packages/lib/src/index.ts",
        "import pad from 'left-pad';\n",
    );
    t.commit("ws", "vite shapes");

    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["nested-deps unused unused-one"]);
    // The playground is private: it runs where its dev dependencies are installed.
    assert!(
        unsure(&v)
            .iter()
            .any(|d| d.starts_with("ssr-html shipped-dev express: the package is private")),
        "{:?}",
        unsure(&v)
    );
    // Nor is a private package's dependency only its tests use a sure dev-only: its
    // sections change no install where it runs.
    assert!(
        unsure(&v)
            .iter()
            .any(|d| d.starts_with("nested-deps dev-only chai: the package is private")),
        "{:?}",
        unsure(&v)
    );
    // The page's import is an edge of the graph, as a JS file's would be.
    let graph = t.json(&["graph"]);
    let edge = graph["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .find(|e| e["from"] == "nested-deps" && e["to"] == "self-ref");
    assert!(edge.is_some(), "{}", graph["edges"]);

    let e = explained(&t, "nested-deps", "@acme/self-ref");
    assert!(
        e.contains("imported by playground/nested-deps/index.html:6 (shipped code, an HTML page's inline module script)"),
        "{e}"
    );
    let e = explained(&t, "nested-deps", "tailwindcss");
    assert!(
        e.contains("imported by playground/nested-deps/tailwind.css:1 (shipped code, a stylesheet's @import/@use)"),
        "{e}"
    );
    let e = explained(&t, "nested-deps", "partials");
    assert!(e.contains("never called undeclared"), "{e}");
    let e = explained(&t, "ssr-html", "kill-port");
    assert!(
        e.contains(
            "declared in playground/package.json:4 for development by an enclosing package.json"
        ),
        "{e}"
    );
    let e = explained(&t, "lib", "left-pad");
    assert!(
        e.contains("the package is bundled (rolldown.config.ts is beside it)"),
        "{e}"
    );
}

/// A workspace shaped like lexical's: packages' tests import their siblings through the
/// `paths` of a `tsconfig.test.json` at the repository's root, which the root's vitest config
/// turns into aliases; an example's tsconfig `extends` the root's.
#[test]
fn root_tsconfig_aliases_answer_tests_and_an_extended_tsconfig_counts() {
    let t = TestMesh::new();
    t.empty_repo("ws");
    t.write("mesh.toml", MESH);
    t.write(
        "ws/package.json",
        "{\"private\": true, \"workspaces\": [\"packages/*\", \"examples/*\"]}\n",
    );
    t.write(
        "ws/vitest.config.mts",
        "import fs from 'node:fs';\nconst paths = JSON.parse(fs.readFileSync('tsconfig.test.json', 'utf8'));\nexport default { resolve: { alias: paths } };\n",
    );
    t.write(
        "ws/tsconfig.test.json",
        "{\n  \"compilerOptions\": {\n    \"paths\": {\n      \"@acme/core\": [\"./packages/core/src/index.ts\"],\n      \"@acme/table\": [\"./packages/table/src/index.ts\"]\n    }\n  }\n}\n",
    );
    t.write(
        "ws/tsconfig.base.json",
        "{\n  // shared\n  \"compilerOptions\": {\"paths\": {\"@acme/core\": [\"./packages/core/src/index.ts\"]}},\n}\n",
    );
    module(&t, "packages/core", "core");
    t.write(
        "ws/packages/core/package.json",
        "{\"name\": \"@acme/core\"}\n",
    );
    t.write("ws/packages/core/src/index.ts", "export const x = 1;\n");
    // A test of core imports table, which depends on core: declaring it would make a cycle.
    t.write(
        "ws/packages/core/src/__tests__/table.test.ts",
        "import { t } from '@acme/table';\n",
    );
    module(&t, "packages/table", "table");
    t.write(
        "ws/packages/table/package.json",
        "{\"name\": \"@acme/table\", \"dependencies\": {\"@acme/core\": \"1\"}}\n",
    );
    // Shipped code is published without the root: an alias there answers nothing.
    t.write(
        "ws/packages/table/src/index.ts",
        "import { x } from '@acme/core';\nimport { y } from '@acme/undeclared-sibling';\nexport const t = x;\n",
    );
    t.write(
        "ws/tsconfig.json",
        "{\"compilerOptions\": {\"paths\": {\"@acme/undeclared-sibling\": [\"./packages/sibling/src/index.ts\"]}}}\n",
    );
    // An example whose tsconfig extends the root's base: its aliased import still uses the
    // declaration, which is not unused.
    module(&t, "examples/app", "app");
    t.write(
        "ws/examples/app/package.json",
        "{\"name\": \"app\", \"private\": true, \"dependencies\": {\"@acme/core\": \"1\"}}\n",
    );
    t.write(
        "ws/examples/app/tsconfig.json",
        "{\"extends\": \"../../tsconfig.base.json\"}\n",
    );
    t.write(
        "ws/examples/app/src/main.ts",
        "import { x } from '@acme/core';\n",
    );
    t.commit("ws", "lexical shapes");

    let found = findings(&t.json(&["drift"]));
    assert_eq!(found, ["table undeclared @acme/undeclared-sibling"]);
    let e = explained(&t, "core", "@acme/table");
    assert!(
        e.contains("and tsconfig.test.json:5 maps it to packages/table/src/index.ts: a file of the repository"),
        "{e}"
    );
    let e = explained(&t, "app", "@acme/core");
    assert!(
        e.contains("imported by examples/app/src/main.ts:1 (shipped code)"),
        "{e}"
    );
}

#[test]
fn findings_with_evidence_mesh_cannot_weigh_are_unsure_apart_and_never_fail_check() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    // A JS package whose code loads a plugin by a name in a string, whose task file runs a
    // tool, and a dependency nothing names: only the last is sure.
    module(&t, "web", "web");
    t.write(
        "ws/web/package.json",
        r#"{"name": "web", "dependencies": {"left-pad": "1", "shiny-plugin": "1"}, "devDependencies": {"task-tool": "3", "unused-thing": "1"}}"#,
    );
    t.write(
        "ws/web/src/index.js",
        "import pad from 'left-pad';\n// unused-thing was here\nexport const plugins = ['shiny-plugin'].map((n) => import(n));\nimport B from 'components/Button';\nimport chalk from 'chalk';\n",
    );
    // `components/` on the package's baseUrl is a local module; a `chalk/` directory deep in
    // another package is no alias's.
    t.write("ws/web/src/components/Button.js", "export default 1;\n");
    t.write("ws/lib/src/adapters/chalk/index.js", "export default 1;\n");
    t.write("ws/web/tasks.yml", "fmt:\n  run: task-tool --write src\n");
    t.write(
        "ws/web/README.md",
        "Run by task-tool; loads shiny-plugin; once unused-thing.\n",
    );
    // A Python package whose examples import what a reader installs, and whose shipped code
    // imports a name a directory elsewhere in the repository bears.
    module(&t, "py", "py");
    t.write(
        "ws/py/pyproject.toml",
        "[project]\nname = \"py\"\ndependencies = []\n",
    );
    t.write(
        "ws/py/py/__init__.py",
        "import requests\nimport helpers_x\nimport openai\nimport yaml\nimport azure.core\nimport tooling.helper\n",
    );
    // A directory of sample scripts named `azure` (no `__init__.py`) holds no `azure.core`; a
    // namespace directory `tooling` holding `helper.py` is what `tooling.helper` may be.
    t.write("ws/samples/azure/run.py", "print(1)\n");
    t.write("ws/devtools/tooling/helper.py", "X = 1\n");
    // Names that are no module a bare import could reach: a directory of YAML samples, and a
    // subpackage of another package (its parent holds `__init__.py`).
    t.write("ws/samples/openai/agent.yaml", "model: x\n");
    t.write("ws/other/pkg/__init__.py", "");
    t.write("ws/other/pkg/yaml/__init__.py", "");
    t.write("ws/py/examples/demo.py", "import matplotlib\n");
    t.write("ws/tools/helpers_x/__init__.py", "");
    // A private app importing a dev dependency (built where dev dependencies are installed),
    // and a builder whose bundle inlines a sibling's source by path (nuxt's rspack builder
    // imports ../../webpack/src, whose `webpack-hot` it declares).
    module(&t, "app", "app");
    t.write(
        "ws/app/package.json",
        r#"{"name": "app", "private": true, "devDependencies": {"chalk": "5"}}"#,
    );
    t.write("ws/app/src/main.js", "import chalk from 'chalk';\n");
    module(&t, "packs/webpack", "webpack-builder");
    t.write(
        "ws/packs/webpack/package.json",
        r#"{"name": "webpack-builder", "dependencies": {"webpack-hot": "1"}}"#,
    );
    t.write(
        "ws/packs/webpack/src/index.js",
        "import hot from 'webpack-hot';\n",
    );
    module(&t, "packs/rspack", "rspack-builder");
    t.write(
        "ws/packs/rspack/package.json",
        r#"{"name": "rspack-builder", "dependencies": {"webpack-hot": "1"}}"#,
    );
    t.write(
        "ws/packs/rspack/src/index.js",
        "export * from '../../webpack/src/index.js';\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "doubts");
    let v = t.json(&["drift"]);
    let found = findings(&v);
    let doubts = unsure(&v);
    assert!(
        found.contains(&"web unused unused-thing".to_string()),
        "{found:?}"
    );
    for sure in [
        "py undeclared requests",
        "py undeclared openai",
        "py undeclared pyyaml",
        "py undeclared azure-core",
        "web undeclared chalk",
    ] {
        assert!(found.contains(&sure.to_string()), "{sure}: {found:?}");
    }
    assert!(
        doubts
            .iter()
            .any(|d| d.starts_with("web undeclared components: `web/src/components`")),
        "{doubts:?}"
    );
    assert!(
        doubts
            .iter()
            .any(|d| d.starts_with("py undeclared tooling: `devtools/tooling/helper`")),
        "{doubts:?}"
    );
    for name in [
        "shiny-plugin",
        "task-tool",
        "matplotlib",
        "helpers-x",
        "helpers_x",
    ] {
        assert!(
            !found.iter().any(|f| f.ends_with(name)),
            "{name} is unsure: {found:?}"
        );
    }
    let has = |prefix: &str| doubts.iter().any(|d| d.starts_with(prefix));
    assert!(
        has("web unused shiny-plugin: named at web/src/index.js:3"),
        "{doubts:?}"
    );
    assert!(
        has("web unused task-tool: named at web/tasks.yml:2"),
        "{doubts:?}"
    );
    assert!(
        has("py undeclared matplotlib: imported only by py/examples/demo.py:1"),
        "{doubts:?}"
    );
    assert!(
        doubts
            .iter()
            .any(|d| d.contains(" undeclared helpers") && d.contains("`tools/helpers_x`")),
        "{doubts:?}"
    );
    assert!(
        has("app shipped-dev chalk: the package is private"),
        "{doubts:?}"
    );
    assert!(
        has(
            "rspack-builder unused webpack-hot: its code imports webpack-builder's files by path or an alias to them (packs/rspack/src/index.js:1)"
        ),
        "{doubts:?}"
    );
    // The table lists the sure ones, and counts the rest; `--unsure` lists them with why.
    let run = t.run(&["drift"]);
    assert!(!run.stdout.contains("shiny-plugin"), "{run}");
    assert!(
        run.stderr
            .contains("8 more findings mesh cannot be sure of"),
        "{run}"
    );
    let all = t.ok(&["drift", "--unsure"]);
    assert!(all.contains("unsure: named at web/src/index.js:3"), "{all}");
    // `--check` fails on the sure findings only.
    t.write(
        "ws/web/src/index.test.js",
        "import u from 'unused-thing';\n",
    );
    t.write("ws/py/py/__init__.py", "import helpers_x\n");
    t.write(
        "ws/web/src/index.js",
        "import pad from 'left-pad';\nexport const plugins = ['shiny-plugin'].map((n) => import(n));\nimport B from 'components/Button';\n",
    );
    t.commit("ws", "only unsure findings left");
    let run = t.run(&["drift", "--check"]);
    assert_eq!(run.code, 0, "only unsure findings: {run}");
    let e = t.ok(&["drift", "--explain", "web", "task-tool"]);
    assert!(
        e.contains("unused (unsure: named at web/tasks.yml:2"),
        "{e}"
    );
}

#[test]
fn a_workspace_package_s_peers_its_code_imports_are_used_by_the_apps_that_use_it() {
    // trpc's `@trpc/next` imports `@tanstack/react-query`, which it declares only as an
    // (optional) peer: the example apps using `@trpc/next` declare it, and import nothing of
    // it. A peer the package's code never imports is still unused in the app.
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "packages/next", "trpc-next");
    t.write(
        "ws/packages/next/package.json",
        r#"{"name": "@acme/next", "peerDependencies": {"@tanstack/react-query": "5", "left-x": "1"}, "peerDependenciesMeta": {"@tanstack/react-query": {"optional": true}}}"#,
    );
    t.write(
        "ws/packages/next/src/index.js",
        "import { QueryClient } from '@tanstack/react-query';\n",
    );
    t.write(
        "ws/packages/next/test/a.test.js",
        "import x from 'left-x';\n",
    );
    module(&t, "examples/app", "app");
    t.write(
        "ws/examples/app/package.json",
        r#"{"name": "app", "dependencies": {"@acme/next": "1", "@tanstack/react-query": "5", "left-x": "1"}}"#,
    );
    t.write(
        "ws/examples/app/src/main.js",
        "import { withTRPC } from '@acme/next';\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "workspace peers");
    let found = findings(&t.json(&["drift"]));
    assert!(
        found.contains(&"app unused left-x".to_string()),
        "{found:?}"
    );
    assert!(
        !found
            .iter()
            .any(|f| f.starts_with("app ") && f.ends_with("react-query")),
        "{found:?}"
    );
    let e = explained(&t, "app", "@tanstack/react-query");
    assert!(
        e.contains("@acme/next's package.json declares it a peer, and its code imports it"),
        "{e}"
    );
}

#[test]
fn a_package_json_nested_in_a_module_answers_the_imports_of_its_files() {
    // kubeflow/pipelines' `frontend/server/package.json`: no name, no module, its own
    // dependencies for the server the frontend's build deploys beside the pages.
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "web", "web");
    t.write(
        "ws/web/package.json",
        r#"{"name": "web", "dependencies": {"react": "19"}}"#,
    );
    t.write(
        "ws/web/src/app.js",
        "import React from 'react';\nimport x from 'left-pad';\n",
    );
    t.write(
        "ws/web/server/package.json",
        r#"{"dependencies": {"express": "5"}, "devDependencies": {"supertest": "7"}}"#,
    );
    t.write(
        "ws/web/server/handlers/app.js",
        "import express from 'express';\nimport chalk from 'chalk';\n",
    );
    t.write(
        "ws/web/server/app.test.js",
        "import request from 'supertest';\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "a nested package");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["web undeclared left-pad"], "{v}");
    // The server's manifest lacks `chalk`: that one is to change, not web's.
    assert!(
        unsure(&v).iter().any(|d| d.starts_with(
            "web undeclared chalk: imported by web/server/handlers/app.js:2, a file of the package of web/server/package.json"
        )),
        "{v}"
    );
    let e = explained(&t, "web", "express");
    assert!(
        e.contains("web/server/package.json declares it for the files below it"),
        "{e}"
    );
}

#[test]
fn an_installed_package_s_peers_are_used_where_no_lockfile_records_them() {
    // kubeflow/pipelines' frontend: `@mui/material` needs `@emotion/styled` installed beside
    // it, which no code imports; the repository keeps no lockfile at its root, and the
    // installed package says it.
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "web", "web");
    t.write(
        "ws/web/package.json",
        r#"{"name": "web", "dependencies": {"@mui/material": "5", "@emotion/styled": "11", "left-x": "1"}}"#,
    );
    t.write(
        "ws/web/src/app.js",
        "import { Button } from '@mui/material';\n",
    );
    t.write("ws/.gitignore", "node_modules/\n");
    t.empty_repo("ws");
    t.commit("ws", "a frontend");
    let before = findings(&t.json(&["drift"]));
    assert!(
        before.contains(&"web unused @emotion/styled".to_string()),
        "{before:?}"
    );
    t.write(
        "ws/web/node_modules/@mui/material/package.json",
        r#"{"name": "@mui/material", "peerDependencies": {"@emotion/styled": "^11", "@types/react": "*"}, "peerDependenciesMeta": {"@types/react": {"optional": true}}}"#,
    );
    let after = findings(&t.json(&["drift"]));
    assert_eq!(after, ["web unused left-x"], "{after:?}");
    let e = explained(&t, "web", "@emotion/styled");
    assert!(
        e.contains("@mui/material requires it installed beside it (its installed package.json"),
        "{e}"
    );
}

#[test]
fn go_files_of_a_module_without_a_go_mod_use_the_requirements_above_it() {
    // prometheus' `web/ui`: a JS package whose directory also holds the Go package that
    // embeds the built UI, compiled into the root's Go module.
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "", "server");
    t.write(
        "ws/go.mod",
        "module example.com/server\n\ngo 1.22\n\nrequire (\n\tgithub.com/prometheus/common v0.60.0\n\tgithub.com/left/over v1.0.0\n)\n",
    );
    t.write(
        "ws/main.go",
        "package main\n\nimport _ \"example.com/server/web/ui\"\n\nfunc main() {}\n",
    );
    module(&t, "web/ui", "ui");
    t.write("ws/web/ui/package.json", r#"{"name": "ui"}"#);
    t.write(
        "ws/web/ui/ui.go",
        "package ui\n\nimport _ \"github.com/prometheus/common/assets\"\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "a web UI embedded in a Go module");
    let found = findings(&t.json(&["drift"]));
    assert_eq!(found, ["server unused github.com/left/over"]);
}

#[test]
fn a_requirement_s_extras_declare_what_they_install() {
    // livekit/agents: `livekit-plugins-azure` asks for `livekit-agents[openai]`, whose extra
    // installs `livekit-plugins-openai`, and imports it.
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "agents", "agents");
    t.write(
        "ws/agents/pyproject.toml",
        "[project]\nname = \"acme-agents\"\ndependencies = []\n\n[project.optional-dependencies]\nopenai = [\"acme-plugins-openai>=1.0\"]\nyaml = [\"pyyaml\"]\n",
    );
    t.write("ws/agents/acme_agents/__init__.py", "import os\n");
    // The plugin requires the package back: the extra is a bundle, never imported by it.
    module(&t, "plugins/openai", "openai");
    t.write(
        "ws/plugins/openai/pyproject.toml",
        "[project]\nname = \"acme-plugins-openai\"\ndependencies = [\"acme-agents\"]\n",
    );
    t.write(
        "ws/plugins/openai/acme_openai/__init__.py",
        "import acme_agents\n",
    );
    module(&t, "plugins/azure", "azure");
    t.write(
        "ws/plugins/azure/pyproject.toml",
        "[project]\nname = \"acme-plugins-azure\"\ndependencies = [\"acme-agents[openai]>=1.0\"]\n",
    );
    t.write(
        "ws/plugins/azure/acme_azure/__init__.py",
        "import acme_agents\nimport acme_openai\nimport acme_other\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "extras that install plugins");
    let found = findings(&t.json(&["drift"]));
    assert_eq!(
        found,
        ["agents unused pyyaml", "azure undeclared acme_other"],
        "{found:?}"
    );
    let e = explained(&t, "azure", "acme-plugins-openai");
    assert!(
        e.contains("asks for acme-agents[openai], which installs it"),
        "{e}"
    );
    let e = explained(&t, "agents", "acme-plugins-openai");
    assert!(e.contains("a plugin that requires acme-agents back"), "{e}");
}

#[test]
fn a_tsconfig_uses_the_package_it_extends_by_path_and_tslib_for_its_helpers() {
    // vercel/ai's packages: `"extends": "./node_modules/@vercel/ai-tsconfig/ts-library.json"`,
    // and a compile whose output imports its helpers from tslib.
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "lib", "lib");
    t.write(
        "ws/lib/package.json",
        r#"{"name": "lib", "dependencies": {"tslib": "2", "left-x": "1"}, "devDependencies": {"@acme/tsconfig": "1"}}"#,
    );
    t.write(
        "ws/lib/tsconfig.json",
        "{\n  \"extends\": \"./node_modules/@acme/tsconfig/ts-library.json\",\n  \"compilerOptions\": { \"importHelpers\": true }\n}\n",
    );
    t.write("ws/lib/src/index.ts", "export const a = 1;\n");
    t.empty_repo("ws");
    t.commit("ws", "tsconfig shapes");
    let found = findings(&t.json(&["drift"]));
    assert_eq!(found, ["lib unused left-x"], "{found:?}");
}

#[test]
fn a_workspace_root_s_dev_tools_are_used_by_what_its_members_run() {
    // prometheus' `web/ui`: the workspace root declares typescript and ts-jest for its
    // members, whose scripts run `tsc` and whose jest config names the preset.
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "web/ui", "ui");
    t.write(
        "ws/web/ui/package.json",
        r#"{"name": "ui", "private": true, "workspaces": ["app"], "devDependencies": {"typescript": "5", "ts-jest": "29", "left-x": "1"}}"#,
    );
    module(&t, "web/ui/app", "app");
    t.write(
        "ws/web/ui/app/package.json",
        r#"{"name": "app", "scripts": {"build": "tsc -b"}}"#,
    );
    t.write(
        "ws/web/ui/app/jest.config.cjs",
        "module.exports = { preset: 'ts-jest' };\n",
    );
    t.write("ws/web/ui/app/src/index.js", "export const a = 1;\n");
    t.empty_repo("ws");
    t.commit("ws", "a workspace below the root");
    let found = findings(&t.json(&["drift"]));
    assert_eq!(found, ["ui unused left-x"], "{found:?}");
}

/// Round 7's true-by-rule shapes: a package declared for the tool whose config is beside it
/// (vercel/ai's sites: `postcss` beside `postcss.config.mjs`) is used; one another declared
/// package of its family depends on itself, as the lockfile records, is unsure — most often
/// a pin of the version that one gets (`@vue/runtime-core` beside `vue`, livekit's
/// `aws-sdk-signers` beside `aws-sdk-bedrock-runtime`) — and in Rust one declared with
/// features another brings, of any family (a switch: `getrandom`'s `js` under `rand`).
/// Beside each, what nothing brings, or brings from another family (`chalk`, `tokenizers`),
/// or a bare Rust declaration, is sure.
#[test]
fn a_config_s_tool_is_used_and_a_dependency_another_brings_is_unsure() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "site", "site");
    t.write(
        "ws/site/package.json",
        r#"{"name": "site", "dependencies": {"vue": "3", "@vue/runtime-core": "3.5.0", "chalk": "5", "left-x": "1"}, "devDependencies": {"postcss": "8", "@tailwindcss/postcss": "4"}}"#,
    );
    t.write(
        "ws/site/postcss.config.mjs",
        "export default { plugins: { '@tailwindcss/postcss': {} } };\n",
    );
    t.write("ws/site/src/main.js", "import { createApp } from 'vue';\n");
    t.write(
        "ws/pnpm-lock.yaml",
        "lockfileVersion: '9.0'\n\nimporters:\n\n  site:\n    dependencies:\n      vue:\n        specifier: '3'\n        version: 3.5.0\n\npackages:\n\n  vue@3.5.0:\n    resolution: {integrity: sha512-v}\n\nsnapshots:\n\n  vue@3.5.0:\n    dependencies:\n      '@vue/runtime-core': 3.5.0\n      '@vue/shared': 3.5.0\n      chalk: 5.0.0\n",
    );
    module(&t, "crew", "crew");
    t.write(
        "ws/crew/pyproject.toml",
        "[project]\nname = \"crew\"\ndependencies = [\"chromadb>=0.5\", \"tokenizers>=0.20.3\", \"aws-sdk-bedrock-runtime\", \"aws-sdk-signers\", \"left-y\"]\n",
    );
    t.write(
        "ws/crew/crew/__init__.py",
        "import chromadb\nimport aws_sdk_bedrock_runtime\n",
    );
    t.write(
        "ws/crew/uv.lock",
        "version = 1\n\n[[package]]\nname = \"chromadb\"\nversion = \"0.5.0\"\ndependencies = [\n    { name = \"tokenizers\" },\n    { name = \"Left_Z\" },\n]\n\n[[package]]\nname = \"aws-sdk-bedrock-runtime\"\nversion = \"0.1\"\ndependencies = [{ name = \"aws-sdk-signers\" }]\n",
    );
    module(&t, "app", "app");
    t.write(
        "ws/app/Cargo.toml",
        "[package]\nname = \"app\"\n\n[dependencies]\nrand = \"0.8\"\nserde_json = \"1\"\nserde = \"1\"\n\n[dev-dependencies]\ngetrandom = { version = \"0.2\", features = [\"js\"] }\n",
    );
    t.write(
        "ws/app/src/lib.rs",
        "pub fn roll() -> u8 { rand::random() }\npub fn v() -> serde_json::Value { serde_json::Value::Null }\n",
    );
    t.write(
        "ws/app/Cargo.lock",
        "version = 4\n\n[[package]]\nname = \"rand\"\nversion = \"0.8.5\"\ndependencies = [\n \"getrandom\",\n \"libc\",\n]\n\n[[package]]\nname = \"serde_json\"\nversion = \"1.0.0\"\ndependencies = [\n \"serde 1.0.0 (registry+https://github.com/rust-lang/crates.io-index)\",\n]\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "round 7 true-by-rule shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "app unused serde",
            "crew unused left-y",
            "crew unused tokenizers",
            "site unused chalk",
            "site unused left-x"
        ],
        "{found:?}"
    );
    let doubts = unsure(&v);
    let has = |prefix: &str| doubts.iter().any(|d| d.starts_with(prefix));
    assert!(
        has(
            "site unused @vue/runtime-core: vue, also declared, depends on it (pnpm-lock.yaml records it)"
        ),
        "{doubts:?}"
    );
    assert!(
        has(
            "crew unused aws-sdk-signers: aws-sdk-bedrock-runtime, also declared, depends on it (crew/uv.lock records it)"
        ),
        "{doubts:?}"
    );
    assert!(
        has("app unused getrandom: rand, also declared, depends on it (app/Cargo.lock records it)"),
        "{doubts:?}"
    );
    assert_eq!(doubts.len(), 3, "{doubts:?}");
    let e = explained(&t, "site", "postcss");
    assert!(e.contains("postcss.config.mjs is its config"), "{e}");
}

/// Round 8's JavaScript shapes, fixed after its measurement: a bundler config at the
/// workspace root builds the members with no build command of their own (vue's
/// `rollup.config.js`): their shipped code's dev dependencies are inlined, and an import of
/// a sibling package may be (unsure); an `angular.json` names its polyfills; a legacy ESLint
/// `plugin:` may write the plugin's package in full; `svelte-package` is
/// `@sveltejs/package`'s command; UnoCSS's icon preset loads an `@iconify-json/*` set by its
/// name, and serves `uno.css` as a virtual module (an import named like a stylesheet is
/// unsure). Beside them, what nothing uses is still found.
#[test]
fn a_workspace_root_s_bundler_builds_its_members_and_angular_and_eslint_name_packages() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    t.write(
        "ws/package.json",
        r#"{"name": "root", "private": true, "workspaces": ["packages/*"]}"#,
    );
    t.write("ws/rollup.config.js", "export default [];\n");
    module(&t, "packages/compat", "compat");
    t.write(
        "ws/packages/compat/package.json",
        r#"{"name": "@acme/compat", "devDependencies": {"hash-sum": "2"}}"#,
    );
    t.write(
        "ws/packages/compat/src/index.js",
        "import { x } from '@acme/shared';\nimport hash from 'hash-sum';\nimport q from 'left-q';\n",
    );
    module(&t, "packages/shared", "shared");
    t.write(
        "ws/packages/shared/package.json",
        r#"{"name": "@acme/shared"}"#,
    );
    t.write("ws/packages/shared/src/index.js", "export const x = 1;\n");
    module(&t, "app", "app");
    t.write(
        "ws/app/package.json",
        r#"{"name": "app", "scripts": {"build": "svelte-package -o dist"}, "dependencies": {"zone.js": "0.15", "left-x": "1"}, "devDependencies": {"@sveltejs/package": "2", "@tanstack/eslint-plugin-query": "5", "unocss": "66", "@iconify-json/mdi": "1"}}"#,
    );
    t.write(
        "ws/app/angular.json",
        "{\"projects\": {\"app\": {\"architect\": {\"build\": {\"options\": {\"polyfills\": [\"zone.js\"]}}}}}}\n",
    );
    t.write(
        "ws/app/.eslintrc.cjs",
        "module.exports = { extends: ['plugin:@tanstack/eslint-plugin-query/recommended'] };\n",
    );
    t.write(
        "ws/app/src/main.js",
        "import 'uno.css';\nexport const a = 1;\n",
    );
    t.write(
        "ws/app/uno.config.ts",
        "import { defineConfig, presetIcons } from 'unocss';\nexport default defineConfig({ presets: [presetIcons()] });\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "round 8 JS shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        ["app unused left-x", "compat undeclared left-q"],
        "{found:?}"
    );
    let doubts = unsure(&v);
    assert!(
        doubts.iter().any(|d| d.starts_with(
            "compat undeclared @acme/shared: the package is bundled (rollup.config.js at its workspace root builds it"
        )),
        "{doubts:?}"
    );
    assert!(
        doubts
            .iter()
            .any(|d| d.starts_with("app undeclared uno.css: `uno.css` is a stylesheet's name")),
        "{doubts:?}"
    );
}

/// Round 8's Go shape: a test file linked to another file of the module (etcd's
/// `client/v3/example_metrics_test.go` links to a shared example) is compiled as that file:
/// its imports are the module's, even where the target itself is not read (test data). A link out of the module is no file of it (the module's
/// source id would not move with its target, and the kept scan would go stale), nor is a
/// link to nothing.
#[test]
fn a_source_file_linked_to_another_is_read_as_that_file() {
    let t = TestMesh::new();
    t.empty_repo("ws");
    t.write("mesh.toml", MESH);
    module(&t, "client", "client");
    t.write(
        "ws/client/go.mod",
        "module example.com/client\n\ngo 1.22\n\nrequire (\n\tgithub.com/acme/metrics v1.0.0\n\tgithub.com/acme/left v1.0.0\n)\n",
    );
    t.write("ws/client/client.go", "package client\n");
    t.write(
        "ws/client/testdata/metrics_test.go",
        "package client_test\n\nimport \"github.com/acme/metrics\"\n\nvar _ = metrics.X\n",
    );
    t.write(
        "ws/tests/left_test.go",
        "package client_test\n\nimport \"github.com/acme/left\"\n\nvar _ = left.X\n",
    );
    for (link, target) in [
        (
            "ws/client/example_metrics_test.go",
            "testdata/metrics_test.go",
        ),
        ("ws/client/outside_test.go", "../tests/left_test.go"),
        ("ws/client/dangling_test.go", "testdata/absent_test.go"),
    ] {
        std::os::unix::fs::symlink(target, t.path(link)).expect("a symlink");
    }
    t.commit("ws", "a linked test file");
    let found = findings(&t.json(&["drift"]));
    assert_eq!(found, ["client unused github.com/acme/left"], "{found:?}");
}

/// Round 9's shapes, fixed after its measurement: a workspace package declared for the
/// command its own `bin` names (radix's `@repo/builder`, run as `radix-build`); an npm alias
/// runs its package's commands (`"@typescript/native": "npm:typescript@^7"` is `tsc`);
/// `attw` is `@arethetypeswrong/cli`'s; a Google client's versioned module is its package's
/// (`google.cloud.modelarmor_v1`), `vertexai` is `google-cloud-aiplatform`'s; a Rust file no
/// `mod` reaches is not compiled, so what only it imports is unsure. Beside them, what
/// nothing uses is still found.
#[test]
fn workspace_bins_npm_aliases_google_versions_and_unreached_rust_files() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "tools/builder", "builder");
    t.write(
        "ws/tools/builder/package.json",
        r#"{"name": "@repo/builder", "bin": {"radix-build": "./bin.js"}}"#,
    );
    t.write("ws/tools/builder/bin.js", "console.log(1);\n");
    module(&t, "packages/avatar", "avatar");
    t.write(
        "ws/packages/avatar/package.json",
        r#"{"name": "avatar", "scripts": {"build": "radix-build && tsc --noEmit && attw --pack ."}, "devDependencies": {"@repo/builder": "workspace:*", "@typescript/native": "npm:typescript@^7", "@arethetypeswrong/cli": "0.18", "left-x": "1"}}"#,
    );
    t.write("ws/packages/avatar/src/index.js", "export const a = 1;\n");
    module(&t, "genai", "genai");
    t.write(
        "ws/genai/pyproject.toml",
        "[project]\nname = \"genai\"\ndependencies = [\"google-cloud-modelarmor\", \"google-cloud-aiplatform\", \"left-y\"]\n",
    );
    t.write(
        "ws/genai/genai/__init__.py",
        "from google.cloud import modelarmor_v1\nimport vertexai\n",
    );
    module(&t, "tui", "tui");
    t.write(
        "ws/tui/Cargo.toml",
        "[package]\nname = \"tui\"\n\n[dependencies]\nleft-z = \"1\"\n",
    );
    t.write("ws/tui/src/lib.rs", "pub mod widgets;\n");
    t.write("ws/tui/src/widgets/mod.rs", "mod block;\n// mod list;\n");
    t.write("ws/tui/src/widgets/block.rs", "pub struct Block;\n");
    t.write(
        "ws/tui/src/widgets/list.rs",
        "use unicode_width::UnicodeWidthStr;\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "round 9 shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "avatar unused left-x",
            "genai unused left-y",
            "tui unused left-z"
        ],
        "{found:?}"
    );
    let doubts = unsure(&v);
    assert!(
        doubts.iter().any(|d| d.starts_with(
            "tui undeclared unicode_width: only tui/src/widgets/list.rs imports it, and no `mod` declaration reaches that file"
        )),
        "{doubts:?}"
    );
}

/// Round 10's Rust shape, fixed after its measurement: a crate whose build script writes
/// code with a generator (tonic's examples: `tonic-prost-build`, pulled in by
/// `include_proto!`) uses what that code uses, which no file shows — its findings are
/// unsure. A crate without one keeps its unused sure.
#[test]
fn a_build_script_s_generated_code_makes_a_crate_s_findings_unsure() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "routeguide", "routeguide");
    t.write(
        "ws/routeguide/Cargo.toml",
        "[package]\nname = \"routeguide\"\n\n[dependencies]\ntonic = \"0.14\"\nprost = \"0.14\"\n\n[build-dependencies]\ntonic-prost-build = \"0.14\"\n",
    );
    t.write(
        "ws/routeguide/build.rs",
        "fn main() { tonic_prost_build::compile_protos(\"proto/route_guide.proto\").unwrap(); }\n",
    );
    t.write(
        "ws/routeguide/src/main.rs",
        "mod routeguide { tonic::include_proto!(\"routeguide\"); }\nfn main() {}\n",
    );
    module(&t, "plain", "plain");
    t.write(
        "ws/plain/Cargo.toml",
        "[package]\nname = \"plain\"\n\n[dependencies]\nleft-z = \"1\"\n",
    );
    t.write("ws/plain/src/lib.rs", "pub fn f() {}\n");
    t.empty_repo("ws");
    t.commit("ws", "generated code");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["plain unused left-z"]);
    let doubts = unsure(&v);
    assert!(
        doubts.iter().any(|d| d.starts_with(
            "routeguide unused prost: the build script generates Rust code with tonic-prost-build"
        )),
        "{doubts:?}"
    );
}

/// Round 10's Python shape, fixed after its measurement: a `.pyi` stub file is read by type
/// checkers only (logfire-api's shims of logfire), so what it imports is owed nothing — but
/// a declared package it names is used. Beside it, a shipped `.py` file's import is owed.
#[test]
fn a_stub_file_s_imports_are_owed_nothing() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "api", "api");
    t.write(
        "ws/api/pyproject.toml",
        "[project]\nname = \"acme-api\"\ndependencies = [\"typing-extensions\"]\n\n[tool.hatch.build.targets.wheel]\npackages = [\"acme_api\"]\n",
    );
    t.write(
        "ws/api/acme_api/__init__.pyi",
        "import rich\nfrom _typeshed import StrPath\nfrom typing_extensions import Self\n",
    );
    t.write("ws/api/acme_api/__init__.py", "import requests\n");
    t.empty_repo("ws");
    t.commit("ws", "a stub file");
    let found = findings(&t.json(&["drift"]));
    assert_eq!(found, ["api undeclared requests"], "{found:?}");
}

/// Round 10's shapes, fixed after its measurement: a package another declared one has as an
/// optional dependency, as the lockfile records (starlight's sites declare `sharp` for
/// `astro`'s image service), is unsure, of any family — an optional peer is not, though
/// pnpm's snapshot lists it among the optional dependencies (`jsdom` beside vitest stays
/// sure); a script declaring its own dependencies (PEP 723, mcp's examples) owes the
/// package around it nothing; a distribution declared in two extras is one finding
/// (markitdown's `lxml`); `pywin32`'s modules are its own; an MkDocs config loads the
/// theme, plugins and mkdocstrings handlers it names. Beside each, what nothing uses is
/// still found.
#[test]
fn optional_loads_inline_scripts_extras_pywin32_and_mkdocs_make_no_false_findings() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "site", "site");
    t.write(
        "ws/site/package.json",
        r#"{"name": "site", "scripts": {"test": "vitest"}, "dependencies": {"astro": "7", "sharp": "0.35", "left-x": "1"}, "devDependencies": {"vitest": "4", "jsdom": "26"}}"#,
    );
    t.write("ws/site/astro.config.mjs", "export default {};\n");
    t.write("ws/site/src/main.js", "import 'astro';\n");
    t.write(
        "ws/pnpm-lock.yaml",
        "lockfileVersion: '9.0'\n\npackages:\n\n  astro@7.1.6:\n    resolution: {integrity: sha512-a}\n\n  vitest@4.0.0:\n    resolution: {integrity: sha512-v}\n    peerDependencies:\n      jsdom: '*'\n    peerDependenciesMeta:\n      jsdom:\n        optional: true\n\nsnapshots:\n\n  astro@7.1.6:\n    dependencies:\n      vite: 7.0.0\n    optionalDependencies:\n      sharp: 0.35.3\n\n  vitest@4.0.0(jsdom@26.0.0):\n    optionalDependencies:\n      jsdom: 26.0.0\n",
    );
    module(&t, "py", "py");
    t.write(
        "ws/py/pyproject.toml",
        "[project]\nname = \"py\"\ndependencies = [\"pywin32>=311; sys_platform == 'win32'\"]\n\n[project.optional-dependencies]\nall = [\"lxml\", \"left-y\"]\ndocx = [\"lxml\"]\n\n[dependency-groups]\ndocs = [\"mkdocs-material\", \"mkdocstrings-python\", \"mkdocs-redirects\"]\n",
    );
    t.write(
        "ws/py/mkdocs.yml",
        "site_name: py\ntheme:\n  name: material\nplugins:\n  - mkdocstrings:\n      handlers:\n        python:\n          paths: [src]\n",
    );
    t.write(
        "ws/py/py/__init__.py",
        "import sys\nif sys.platform == 'win32':\n    import pywintypes\n    import win32job\n",
    );
    t.write(
        "ws/py/py/tool.py",
        "# /// script\n# dependencies = [\"numpy\"]\n# ///\nimport numpy\n",
    );
    t.write("ws/py/py/other.py", "import pandas\n");
    t.empty_repo("ws");
    t.commit("ws", "round 10 shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "py undeclared pandas",
            "py unused left-y",
            "py unused lxml",
            "py unused mkdocs-redirects",
            "site unused jsdom",
            "site unused left-x"
        ],
        "{found:?}"
    );
    let doubts = unsure(&v);
    assert_eq!(
        doubts,
        [
            "site unused sharp: astro, also declared, loads it when it is installed: it is an optional dependency of astro (pnpm-lock.yaml records it), which a declaration makes sure is installed"
        ],
        "{doubts:?}"
    );
    let e = explained(&t, "py", "mkdocstrings-python");
    assert!(e.contains("mkdocs.yml names it"), "{e}");
}

/// Round 11's shapes, fixed after its measurement: hatch's environments kept in
/// `hatch.toml` (hatch's tests run there, with the pytest its `hatch-test` brings); a native
/// library's crate declared to switch how it is built (`pq-sys` with `bundled`, diesel's
/// examples; not `web-sys`'s API features); 3.14's `annotationlib`; a module's `.scss` files
/// compiled by `sass`; JSDoc comments' type imports (sveltekit: a `@types/*` package they
/// name is used, and a config's type names no dev-only); a `[tool.pyright]` tool in a `dev`
/// extra (a runtime declaration of a tool stays unused); the directory of a script a command
/// runs (`streamlit run app/home.py`, a package or not) on `sys.path`; a requirements file
/// nested in the module declaring for the files below it (a CI script's). Beside each, what
/// nothing uses is still found.
#[test]
fn hatch_toml_native_switches_jsdoc_scripts_and_nested_requirements_make_no_false_findings() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "py", "py");
    t.write(
        "ws/py/pyproject.toml",
        "[project]\nname = \"py\"\ndependencies = [\"streamlit\", \"mypy\"]\n\n[project.optional-dependencies]\ndev = [\"pyright\", \"six\", \"mypy\"]\n\n[tool.pyright]\nstrict = true\n\n[tool.mypy]\nstrict = true\n\n[tool.poe.tasks]\nstart = \"streamlit run app/home.py\"\n",
    );
    t.write(
        "ws/py/hatch.toml",
        "[envs.hatch-test]\nextra-dependencies = [\n  \"trustme\",\n]\n",
    );
    t.write("ws/py/app/__init__.py", "");
    t.write(
        "ws/py/app/home.py",
        "import annotationlib\nimport streamlit\nfrom app_logic import run\nfrom rag.typing import T\n",
    );
    t.write("ws/py/app/app_logic.py", "def run(): pass\n");
    t.write("ws/py/app/rag/__init__.py", "");
    t.write("ws/py/app/rag/typing.py", "T = 1\n");
    t.write(
        "ws/py/tests/test_x.py",
        "import pytest\nimport trustme\nimport app_logic_elsewhere\n",
    );
    t.write(
        "ws/py/ci/people/requirements.txt",
        "pyyaml\nrequests>=2  # the API\n",
    );
    t.write(
        "ws/py/ci/people/people.py",
        "import yaml\nimport requests\n",
    );
    module(&t, "crate", "crate");
    t.write(
        "ws/crate/Cargo.toml",
        "[package]\nname = \"crate\"\n\n[dependencies]\npq-sys = { version = \"0.6\", features = [\"bundled\"] }\nserde = { version = \"1\", features = [\"derive\"] }\nweb-sys = { version = \"0.3\", features = [\"console\"] }\n",
    );
    t.write("ws/crate/src/lib.rs", "pub fn f() {}\n");
    module(&t, "web", "web");
    t.write(
        "ws/web/package.json",
        r#"{"name": "web", "dependencies": {"sass": "1", "left-js": "1"}, "devDependencies": {"@types/deno": "2"}, "scripts": {"build": "vite build"}}"#,
    );
    t.write("ws/web/src/style.scss", "$c: red;\n");
    t.write(
        "ws/web/src/index.js",
        "/** @import {} from 'deno' */\n/** @param {import('node:http').Server} s */\nexport function f(s) {}\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "round 11 shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "crate unused serde",
            "crate unused web-sys",
            "py undeclared app_logic_elsewhere",
            "py unused mypy",
            "py unused six",
            "web unused left-js"
        ],
        "{found:?}"
    );
    let doubts = unsure(&v);
    assert_eq!(
        doubts,
        [
            "crate unused pq-sys: declared to switch features on of a crate that builds or picks a native library (a `-sys` or `-src` crate, `getrandom`): a crate using it through others gets them, as Cargo unifies features"
        ],
        "{doubts:?}"
    );
    let e = explained(&t, "py", "app_logic");
    assert!(
        e.contains("the directory of a script a command runs"),
        "{e}"
    );
    let e = explained(&t, "py", "yaml");
    assert!(
        e.contains("py/ci/people/requirements.txt declares it"),
        "{e}"
    );
}

/// Round 13's shapes: what only the sdist holds (fastapi's `docs_src/`), lazy imports of
/// optional integrations (marimo's formatters), a cargo-hakari workspace-hack (dbt-fusion),
/// a `#[path]` test module one directory down (zellij), the root tsconfig's type packages
/// and a documentation demo (vueuse).
#[test]
fn sdist_files_lazy_imports_workspace_hacks_path_tests_root_types_and_demos() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "py", "py");
    t.write(
        "ws/py/pyproject.toml",
        "[project]\nname = \"py\"\ndependencies = [\"starlette\"]\n\n[dependency-groups]\ntests = [\"flask\"]\n\n[tool.pdm.build]\nsource-includes = [\"tests/\", \"docs_src/\"]\n",
    );
    t.write("ws/py/py/__init__.py", "import starlette\n");
    t.write(
        "ws/py/py/formatters.py",
        "def register():\n    import altair\n    return altair\n\nimport owed_at_import\n",
    );
    t.write("ws/py/docs_src/wsgi/tutorial001.py", "import flask\n");
    module(&t, "crate", "crate");
    t.write(
        "ws/crate/Cargo.toml",
        "[package]\nname = \"crate\"\n\n[dependencies]\nacme-workspace-hack = { version = \"0.1\" }\nsnap = \"1\"\n\n[dev-dependencies]\ninsta = \"1\"\n",
    );
    t.write("ws/crate/src/lib.rs", "pub mod panes;\n");
    t.write("ws/crate/src/panes/mod.rs", "pub mod interceptor;\n");
    t.write(
        "ws/crate/src/panes/interceptor.rs",
        "pub fn f() {}\n#[path = \"./unit/interceptor_tests.rs\"]\n#[cfg(test)]\nmod interceptor_tests;\n",
    );
    t.write(
        "ws/crate/src/panes/unit/interceptor_tests.rs",
        "use insta::assert_snapshot;\nuse snap::raw;\n",
    );
    t.write(
        "ws/tsconfig.json",
        "{\"compilerOptions\": {\"types\": [\"@types/web-bluetooth\"]}}\n",
    );
    module(&t, "web", "web");
    t.write(
        "ws/web/package.json",
        r#"{"name": "web", "dependencies": {"@types/web-bluetooth": "1", "left-pad": "1"}, "devDependencies": {"@web/components": "1"}}"#,
    );
    t.write(
        "ws/web/index.ts",
        "import pad from 'left-pad'\nexport const p = pad\n",
    );
    t.write(
        "ws/web/useBluetooth/demo.vue",
        "<script setup>\nimport { Thing } from '@web/components'\n</script>\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "round 13 shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        ["crate dev-only snap", "py undeclared owed_at_import"],
        "{found:?}"
    );
    let doubts = unsure(&v);
    assert_eq!(
        doubts,
        [
            "py undeclared altair: shipped code imports it only inside functions or a `__main__` block (py/py/formatters.py:2): a lazy import runs when its function is called, as a library imports an optional integration its caller installs, and a `__main__` block only when a person runs the file"
        ],
        "{doubts:?}"
    );
    let e = explained(&t, "crate", "acme-workspace-hack");
    assert!(e.contains("the cargo-hakari convention"), "{e}");
}

/// Round 14's shape: a package bundled by a script its build command runs (drizzle-kit's
/// `tsx build.ts`, which calls esbuild's API): its shipped code's dev dependencies are
/// inlined, so none is shipped-dev — and one whose build script calls no bundler keeps them.
#[test]
fn a_build_script_calling_a_bundler_s_api_bundles_the_package() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    for (dir, build) in [
        (
            "kit",
            "import * as esbuild from 'esbuild'\nawait esbuild.build({})\n",
        ),
        (
            "plain",
            "import { cp } from 'node:fs/promises'\nawait cp('src', 'dist')\n",
        ),
    ] {
        module(&t, dir, dir);
        t.write(
            &format!("ws/{dir}/package.json"),
            &format!(
                r#"{{"name": "{dir}", "scripts": {{"build": "rm -rf dist && tsx build.ts"}}, "devDependencies": {{"chalk": "5", "esbuild": "0.25", "tsx": "4"}}}}"#
            ),
        );
        t.write(&format!("ws/{dir}/build.ts"), build);
        t.write(
            &format!("ws/{dir}/src/index.ts"),
            "import chalk from 'chalk'\nexport const c = chalk\n",
        );
    }
    t.empty_repo("ws");
    t.commit("ws", "round 14 shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        ["plain shipped-dev chalk", "plain unused esbuild"],
        "{found:?}"
    );
    let e = explained(&t, "kit", "chalk");
    assert!(e.contains("its build script build.ts calls esbuild"), "{e}");
}

/// Round 15's Rust shapes: typst's proc macro writes `::typst_timing::…` into the functions it
/// marks, so every crate using it declares `typst-timing` without naming it; sea-orm-cli keeps
/// a project template's sources (which import the crate that depends on it) outside any
/// target, and zellij includes generated code from `assets/`. Round 16's: leptos_dom's
/// exported macro and dioxus-desktop's test helper name the crate depending on theirs.
#[test]
fn a_proc_macro_s_output_and_code_cargo_never_compiles_make_no_false_findings() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    let krate = |dir: &str, toml: &str, files: &[(&str, &str)]| {
        module(&t, dir, dir);
        t.write(&format!("ws/{dir}/Cargo.toml"), toml);
        for (f, text) in files {
            t.write(&format!("ws/{dir}/{f}"), text);
        }
    };
    krate(
        "timing-macros",
        "[package]\nname = \"timing-macros\"\n\n[lib]\nproc-macro = true\n\n[dependencies]\nquote = \"1\"\nsyn = \"2\"\n\n[dev-dependencies]\nrocket = \"0.5\"\n",
        &[(
            "src/lib.rs",
            "use quote::quote;\npub fn time(item: syn::ItemFn) {\n    let stmt: syn::Stmt = syn::parse_quote! { let __s = ::timing::Scope::new(); };\n    let _ = quote! { impl rocket::Sentinel for X {} };\n}\n",
        )],
    );
    krate(
        "timing",
        "[package]\nname = \"timing\"\n",
        &[("src/lib.rs", "pub struct Scope;\n")],
    );
    krate(
        "eval",
        "[package]\nname = \"eval\"\n\n[dependencies]\ntiming = { path = \"../timing\" }\ntiming-macros = { path = \"../timing-macros\" }\n",
        &[(
            "src/lib.rs",
            "#[timing_macros::time(name = \"eval\")]\npub fn eval() {}\n",
        )],
    );
    krate(
        "other",
        "[package]\nname = \"other\"\n\n[dependencies]\ntiming = { path = \"../timing\" }\n",
        &[("src/lib.rs", "pub fn f() {}\n")],
    );
    // leptos_dom's exported macro names `::leptos`, which depends on it; dioxus-desktop's
    // test target keeps a helper beside it that imports `dioxus`, which depends on it too.
    krate(
        "dom",
        "[package]\nname = \"dom\"\n\n[[test]]\nname = \"events\"\npath = \"headless_tests/events.rs\"\n\n[dev-dependencies]\nweb = { path = \"../web\" }\n",
        &[
            (
                "src/lib.rs",
                "#[macro_export]\nmacro_rules! props { () => { ::web::tracing::span!() }; }\n",
            ),
            ("headless_tests/events.rs", "mod utils;\n"),
            ("headless_tests/utils.rs", "use web::launch;\n"),
        ],
    );
    krate(
        "web",
        "[package]\nname = \"web\"\n\n[dependencies]\ndom = { path = \"../dom\" }\ntracing = \"0.1\"\n",
        &[(
            "src/lib.rs",
            "pub use dom::props;\npub use tracing;\npub fn launch() {}\n",
        )],
    );
    // A build script's modules in a directory of their own; an exported macro the crate
    // expands itself, naming a crate that does not depend on it: an edge.
    krate(
        "bindings",
        "[package]\nname = \"bindings\"\n\n[dependencies]\ntiming = { path = \"../timing\" }\n\n[build-dependencies]\nbindgen = \"0.70\"\n",
        &[
            ("build.rs", "mod codegen;\nfn main() { codegen::run(); }\n"),
            (
                "codegen/mod.rs",
                "pub fn run() { bindgen::Builder::default(); }\n",
            ),
            (
                "src/lib.rs",
                "#[macro_export]\nmacro_rules! scope { () => { ::timing::Scope }; }\npub fn f() { let _ = scope!(); }\n",
            ),
        ],
    );
    // leptos' cucumber suites declare `mod fixtures;`: compiled test code; a fixture no
    // `mod` reaches stays data.
    krate(
        "suite",
        "[package]\nname = \"suite\"\n\n[dev-dependencies]\nfantoccini = \"0.21\"\n",
        &[
            ("src/lib.rs", "pub fn f() {}\n"),
            ("tests/app_suite.rs", "mod fixtures;\n"),
            ("tests/fixtures/mod.rs", "pub mod steps;\n"),
            ("tests/fixtures/steps.rs", "use fantoccini::Client;\n"),
            (
                "tests/data/fixtures/expected.rs",
                "use rust_decimal::Decimal;\n",
            ),
        ],
    );
    // The template imports `migration`, which depends on `cli`: read as code, a cycle.
    krate(
        "cli",
        "[package]\nname = \"cli\"\n\n[dependencies]\nprost = \"0.13\"\n",
        &[
            (
                "src/lib.rs",
                "pub mod api {\n    include!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/assets/gen/api.rs\"));\n}\npub const MAIN: &str = include_str!(\"../template/migration/src/main.rs\");\n",
            ),
            ("assets/gen/api.rs", "include!(\"api.action.rs\");\n"),
            (
                "assets/gen/api.action.rs",
                "#[derive(prost::Message)]\npub struct Action {}\n",
            ),
            (
                "template/migration/src/main.rs",
                "fn main() { migration::run(); sea_orm_migration::cli::run(); }\n",
            ),
        ],
    );
    krate(
        "migration",
        "[package]\nname = \"migration\"\n\n[dependencies]\ncli = { path = \"../cli\" }\n",
        &[("src/lib.rs", "pub fn run() { cli::MAIN.len(); }\n")],
    );
    t.empty_repo("ws");
    t.commit("ws", "round 15 rust shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        ["other unused timing", "timing-macros unused rocket"],
        "{found:?}"
    );
    let e = explained(&t, "eval", "timing");
    assert!(
        e.contains("src/lib.rs:1 (shipped code, through the output of timing_macros"),
        "{e}"
    );
    // No cycle through the template, the exported macro or the test helper; the macro a
    // crate expands itself still orders it after the crate it names.
    let graph = t.json(&["graph"]);
    let edges: Vec<String> = (graph["edges"].as_array().expect("edges").iter())
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or("-").to_string();
            format!("{} {} {}", s("from"), s("to"), s("kind"))
        })
        .collect();
    assert!(
        edges.contains(&"bindings timing build".to_string()),
        "{edges:?}"
    );
    assert!(edges.contains(&"dom web dev".to_string()), "{edges:?}");
}

/// Round 15's other shapes: loki's vendored Go packages, prisma's packages whose code the
/// build generates, typst's `@types/vscode`, textual's grammars loaded by a computed name and
/// its split MkDocs config, and effect's type tests, benchmarks and solution tsconfig.
#[test]
fn vendored_go_generated_packages_type_packages_computed_imports_and_benchmarks() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/go.mod",
        "module example.com/app\n\ngo 1.22\n\nrequire github.com/x/y v1.0.0\n",
    );
    t.write(
        "ws/app/main.go",
        "package main\n\nimport \"github.com/x/y\"\n\nfunc main() { y.Run() }\n",
    );
    t.write(
        "ws/app/vendor/github.com/x/y/y.go",
        "package y\n\nimport \"github.com/q/r\"\n\nfunc Run() { r.Go() }\n",
    );
    module(&t, "orm", "orm");
    t.write(
        "ws/orm/package.json",
        r#"{"name": "orm", "exports": {"./runtime": "./dist/runtime.mjs"}, "dependencies": {"arktype": "2"}, "devDependencies": {"tsdown": "0.15"}}"#,
    );
    t.write("ws/orm/tsdown.config.ts", "export default {}\n");
    module(&t, "ext", "ext");
    t.write(
        "ws/ext/package.json",
        r#"{"name": "ext", "main": "./dist/ext.js", "dependencies": {"left-pad": "1"}, "devDependencies": {"@types/vscode": "1", "tstyche": "4", "tinybench": "2", "lodash": "4", "@types/lodash": "4"}}"#,
    );
    t.write(
        "ws/ext/src/ext.ts",
        "import * as vscode from 'vscode'\nexport const w = vscode.window\n",
    );
    t.write(
        "ws/ext/typetest/index.tst.ts",
        "import { expect } from 'tstyche'\nexpect(1).type.toBe<number>()\n",
    );
    t.write(
        "ws/ext/benchmark/pool.ts",
        "import { Bench } from 'tinybench'\nnew Bench()\n",
    );
    module(&t, "tui", "tui");
    t.write(
        "ws/tui/pyproject.toml",
        "[project]\nname = \"tui\"\ndependencies = [\"tree-sitter-json\", \"tree-sitter-css\", \"stale-thing\"]\n\n[dependency-groups]\ndocs = [\"mkdocs-rss-plugin\"]\n",
    );
    t.write("ws/tui/mkdocs-common.yml", "plugins:\n  - rss\n");
    // Round 16: jupyterhub's dependencies live in the requirements file setuptools reads;
    // `import __main__` and a bare namespace; Docusaurus' `@site` alias.
    module(&t, "hub", "hub");
    t.write(
        "ws/hub/pyproject.toml",
        "[project]\nname = \"hub\"\ndynamic = [\"dependencies\"]\n\n[tool.setuptools.dynamic]\ndependencies = {file = \"requirements.txt\"}\n",
    );
    t.write(
        "ws/hub/requirements.txt",
        "tornado>=6.5\ngoogle-cloud-bigquery\nunused-req\n",
    );
    t.write(
        "ws/hub/hub/__init__.py",
        "import __main__\nimport google\nimport tornado\nfrom google.cloud import bigquery\n",
    );
    // A shipped import of a dev package beside its types is said of the package.
    t.write(
        "ws/ext/src/wait.ts",
        "import debounce from 'lodash/debounce'\nexport const d = debounce\n",
    );
    // celery's example: a package whose dependencies only its setup.py computes is not
    // checked, and says so rather than "no drift".
    module(&t, "tasks", "tasks");
    t.write(
        "ws/tasks/setup.py",
        "from setuptools import setup\nsetup(name='tasks', install_requires=open('requirements.txt').read().splitlines())\n",
    );
    t.write("ws/tasks/proj/__init__.py", "import celery\n");
    t.write(
        "ws/ext/src/logo.ts",
        "import logo from '@site/static/img/logo.png'\nexport default logo\n",
    );
    t.write("ws/tui/mkdocs-online.yml", "INHERIT: mkdocs-common.yml\n");
    // effect's solution tsconfig: its tests resolve through a referenced config's `paths`.
    t.write(
        "ws/tsconfig.json",
        "{\"files\": [], \"references\": [{\"path\": \"tsconfig.tests.json\"}]}\n",
    );
    t.write(
        "ws/tsconfig.tests.json",
        "{\"compilerOptions\": {\"paths\": {\"ext-test/*\": [\"./ext/test/utils/*\"]}}}\n",
    );
    t.write(
        "ws/ext/test/window.test.ts",
        "import { fake } from 'ext-test/fake'\nfake()\n",
    );
    t.write("ws/ext/test/utils/fake.ts", "export const fake = () => 1\n");
    t.write(
        "ws/tui/tui/__init__.py",
        "from importlib import import_module\n\ndef language(name):\n    return import_module(f\"tree_sitter_{name}\")\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "round 15 shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "ext shipped-dev lodash",
            "ext unused left-pad",
            "hub unused unused-req",
            "tui unused stale-thing"
        ],
        "{found:?}"
    );
    assert!(unsure(&v).is_empty(), "{:?}", unsure(&v));
    let unchecked: Vec<&str> = (v["unchecked"].as_array().expect("an unchecked list").iter())
        .filter_map(|u| u["module"].as_str())
        .collect();
    assert_eq!(unchecked, ["tasks"]);
    let run = t.run(&["drift", "tasks"]);
    assert!(
        run.stderr.contains(
            "tasks not checked: its Python imports: its setup.py computes what it declares"
        ) && !run.stderr.contains("every manifest matches"),
        "{run}"
    );
    // Its explanation says so, never that the dependency agrees with the imports.
    let e = t.json(&["drift", "--explain", "tasks", "requests"]);
    assert!(
        e["unchecked"]
            .as_str()
            .is_some_and(|w| w.contains("setup.py computes what it declares")),
        "{e}"
    );
    let text = t.run(&["drift", "--explain", "tasks", "requests"]);
    assert!(
        text.stdout.contains("not checked:") && !text.stdout.contains("agrees"),
        "{text}"
    );
    let e = explained(&t, "orm", "arktype");
    assert!(e.contains("made at build time"), "{e}");
    let e = explained(&t, "ext", "@types/vscode");
    assert!(e.contains("types only"), "{e}");
    let e = explained(&t, "hub", "tornado");
    assert!(
        e.contains("declared in hub/requirements.txt:1 for shipping"),
        "{e}"
    );
}

/// Round 16's remaining classes: configs in the directories above a package (redux-toolkit's
/// root `.eslintrc.js`, effect's root vitest `projects`, a root `netlify.toml` building the
/// site below), git hook tools configured in package.json, GraphQL Code Generator's plugins
/// by short name, a test runner's ambient `@types`; in Python, tox's shared sections
/// (scrapy), `setup.py` in the build backend's environment and `noxfile.py` under nox
/// (jupyterhub), and a stub bundle's service extras (dlt).
#[test]
fn configs_above_hook_keys_codegen_test_globals_build_requires_and_runners() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    t.write(
        "ws/package.json",
        "{\"private\": true, \"workspaces\": [\"packages/*\", \"site\"]}\n",
    );
    t.write(
        "ws/.eslintrc.js",
        "module.exports = {\n  extends: ['prettier'],\n  rules: { 'react-hooks/exhaustive-deps': 'warn' },\n}\n",
    );
    t.write(
        "ws/vitest.config.ts",
        "export default { test: { projects: [\n  { test: { root: './packages/kit', environment: 'jsdom' } },\n  { test: { root: './packages/own', environment: 'node' } },\n  // { test: { root: './packages/api', environment: 'happy-dom' } },\n] } }\n",
    );
    // jest stops at a package's own package.json: a root config that names no project is
    // not the member's.
    t.write(
        "ws/jest.config.js",
        "module.exports = { testEnvironment: 'node' }\n",
    );
    t.write(
        "ws/.prettierrc",
        "{\"plugins\": [\"prettier-plugin-tailwindcss\"]}\n",
    );
    t.write(
        "ws/netlify.toml",
        "[build]\nbase = \"site\"\n\n[[plugins]]\npackage = \"netlify-plugin-cache\"\n",
    );
    module(&t, "packages/kit", "kit");
    t.write(
        "ws/packages/kit/package.json",
        r#"{"name": "kit", "scripts": {"lint": "eslint src", "test": "react-scripts test"},
  "devDependencies": {"eslint": "9", "react-scripts": "5", "eslint-config-prettier": "9",
    "eslint-plugin-react-hooks": "5", "jsdom": "26", "husky": "4", "pretty-quick": "4",
    "@types/jest": "29", "@testing-library/react": "16", "stale-dev": "1"},
  "husky": {"hooks": {"pre-commit": "pretty-quick --staged"}}}
"#,
    );
    t.write("ws/packages/kit/tsconfig.json", "{}\n");
    t.write("ws/packages/kit/src/index.ts", "export const x = 1\n");
    t.write(
        "ws/packages/kit/src/index.test.tsx",
        "import { render } from '@testing-library/react'\ndescribe('x', () => { it('renders', () => render(null)) })\n",
    );
    // A tsconfig that lists `types` loads only those: `@types/jest` is unused there.
    module(&t, "packages/typed", "typed");
    t.write(
        "ws/packages/typed/package.json",
        r#"{"name": "typed", "devDependencies": {"@types/jest": "29", "@testing-library/react": "16"}}"#,
    );
    t.write(
        "ws/packages/typed/tsconfig.json",
        "{\"compilerOptions\": {\"types\": [\"node\"]}}\n",
    );
    t.write("ws/packages/typed/src/index.ts", "export const y = 2\n");
    t.write(
        "ws/packages/typed/src/index.test.tsx",
        "import { render } from '@testing-library/react'\nrender(null)\n",
    );
    module(&t, "packages/gql", "gql");
    t.write(
        "ws/packages/gql/package.json",
        r#"{"name": "gql", "scripts": {"codegen": "graphql-codegen"},
  "devDependencies": {"@graphql-codegen/cli": "5", "@graphql-codegen/typescript-operations": "4",
    "@graphql-codegen/near-operation-file-preset": "3"}}
"#,
    );
    t.write(
        "ws/packages/gql/codegen.yml",
        "schema: schema.graphql\ngenerates:\n  src/:\n    preset: near-operation-file # beside each\n    plugins:\n      - typescript-operations\n",
    );
    t.write("ws/packages/gql/src/index.ts", "export const z = 3\n");
    // The nearest config wins: a package with its own `.prettierrc` or `eslint.config.js`
    // reads no config above; a site is Netlify's only where it is the `base`.
    module(&t, "packages/own", "own");
    t.write(
        "ws/packages/own/package.json",
        r#"{"name": "own", "scripts": {"fmt": "prettier --check .", "lint": "eslint ."},
  "dependencies": {"ms": "2"},
  "devDependencies": {"prettier": "3", "eslint": "9", "prettier-plugin-tailwindcss": "0.6",
    "eslint-config-prettier": "9", "netlify-plugin-cache": "1", "jsdom": "26"}}
"#,
    );
    t.write("ws/packages/own/.prettierrc", "{}\n");
    t.write("ws/packages/own/eslint.config.js", "export default []\n");
    t.write(
        "ws/packages/own/src/index.js",
        "import ms from 'ms'\nexport const o = ms\n",
    );
    // A legacy `.eslintrc.json` of its own without `root: true` cascades to the root's; a
    // generated `.eslintrc-auto-import.json` is no config.
    module(&t, "packages/legacy", "legacy");
    t.write(
        "ws/packages/legacy/package.json",
        r#"{"name": "legacy", "scripts": {"lint": "eslint ."}, "dependencies": {"ms": "2"},
  "devDependencies": {"eslint": "8", "eslint-plugin-react-hooks": "5"}}"#,
    );
    t.write("ws/packages/legacy/.eslintrc.json", "{\"rules\": {}}\n");
    t.write(
        "ws/packages/legacy/.eslintrc-auto-import.json",
        "{\"globals\": {}}\n",
    );
    t.write(
        "ws/packages/legacy/src/index.js",
        "import ms from 'ms'\nexport const l = ms\n",
    );
    // A rule-shaped string outside an ESLint config, a codegen script that is no config, the
    // globals' types of a runner that does not run, `packages/api`'s jest environment.
    module(&t, "packages/api", "api");
    t.write(
        "ws/packages/api/package.json",
        r#"{"name": "api", "scripts": {"test": "jest", "gen": "sh codegen.sh", "build": "vite build"},
  "dependencies": {"ms": "2"},
  "devDependencies": {"jest": "29", "vite": "6", "vitest": "3", "jest-environment-jsdom": "29",
    "eslint-plugin-react": "7", "@graphql-codegen/cli": "5", "@types/mocha": "10"}}
"#,
    );
    t.write(
        "ws/packages/api/vite.config.ts",
        "export default { optimizeDeps: { include: ['react/jsx-runtime'] } }\n",
    );
    t.write("ws/packages/api/codegen.sh", "echo none\n");
    t.write("ws/packages/api/tsconfig.json", "{}\n");
    t.write(
        "ws/packages/api/src/index.ts",
        "import ms from 'ms'\nexport const a = ms\n",
    );
    t.write(
        "ws/packages/api/src/index.test.ts",
        "import { describe } from 'vitest'\ndescribe('a', () => {})\n",
    );
    module(&t, "site", "site");
    t.write(
        "ws/site/package.json",
        r#"{"name": "site", "devDependencies": {"netlify-plugin-cache": "1"}}"#,
    );
    t.write("ws/site/src/index.js", "export const page = 1\n");
    module(&t, "py", "py");
    t.write(
        "ws/py/pyproject.toml",
        "[build-system]\nrequires = [\"setuptools>=77\", \"setuptools-scm\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"py\"\ndependencies = []\n\n[dependency-groups]\ndev = [\"boto3-stubs[s3]\"]\n",
    );
    t.write(
        "ws/py/setup.py",
        "import setuptools\nimport setuptools_scm\nsetuptools.setup()\n",
    );
    t.write(
        "ws/py/noxfile.py",
        "import nox\n\n@nox.session\ndef tests(session):\n    session.run('pytest')\n",
    );
    t.write(
        "ws/py/tox.ini",
        "[test-requirements]\ndeps =\n    pyftpdlib >= 2.0.1\n\n[testenv]\ndeps =\n    {[test-requirements]deps}\ncommands = pytest\n",
    );
    t.write(
        "ws/py/tests/test_ftp.py",
        "import pyftpdlib\nimport mypy_boto3_s3\n",
    );
    // A test's own `import nox` is owed, whatever the noxfile's.
    t.write("ws/py/tests/test_nox.py", "import nox\n");
    t.write("ws/py/py/__init__.py", "import requests\n");
    t.empty_repo("ws");
    t.commit("ws", "round 16 shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "api unused @graphql-codegen/cli",
            "api unused @types/mocha",
            "api unused eslint-plugin-react",
            "api unused jest-environment-jsdom",
            "kit unused stale-dev",
            "own unused eslint-config-prettier",
            "own unused jsdom",
            "own unused netlify-plugin-cache",
            "own unused prettier-plugin-tailwindcss",
            "py undeclared nox",
            "py undeclared requests",
            "typed unused @types/jest"
        ],
        "{found:?}"
    );
    assert!(unsure(&v).is_empty(), "{:?}", unsure(&v));
    let e = explained(&t, "kit", "@types/jest");
    assert!(e.contains("test runner's globals"), "{e}");
    let e = explained(&t, "kit", "pretty-quick");
    assert!(e.contains("pretty-quick --staged"), "{e}");
    let e = explained(&t, "py", "nox");
    assert!(e.contains("in a file its own command runs"), "{e}");
}

/// Round 17's shapes: gradio's requirements read by hatch's requirements hook and its
/// package directory that is a JS module too; pipecat's guarded imports of distributions
/// named otherwise and the backport of a module newer Pythons dropped; wasmtime's item
/// macros and C-style types; lapce's capitalized crate.
#[test]
fn hatch_requirements_nested_package_guarded_pairs_backports_and_item_macros() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "hub", "hub");
    t.write(
        "ws/hub/pyproject.toml",
        "[build-system]\nrequires = [\"hatchling\", \"hatch-requirements-txt\"]\n\n[project]\nname = \"hub\"\ndynamic = [\"dependencies\", \"optional-dependencies\"]\n\n[tool.hatch.metadata.hooks.requirements_txt]\nfilename = \"requirements.txt\"\n\n[tool.hatch.metadata.hooks.requirements_txt.optional-dependencies]\nmcp = [\"requirements-mcp.txt\"]\n",
    );
    t.write("ws/hub/requirements.txt", "anyio\nstale-req\n");
    t.write("ws/hub/requirements-mcp.txt", "mcp\n");
    t.write("ws/hub/demo/run.py", "import anyio\n");
    // The package directory is a JS package too: its own module.
    module(&t, "hub/hub", "hub-frontend");
    t.write(
        "ws/hub/hub/package.json",
        r#"{"name": "hub-frontend", "private": true}"#,
    );
    t.write("ws/hub/hub/__init__.py", "import anyio\nimport mcp\n");
    module(&t, "pc", "pc");
    t.write(
        "ws/pc/pyproject.toml",
        "[project]\nname = \"pc\"\ndependencies = [\"mem0ai\", \"audioop-lts\", \"stale-dep\", \"httpx\"]\n",
    );
    t.write(
        "ws/pc/pc/__init__.py",
        "import audioop\nimport httpx\n\ntry:\n    import mem0\nexcept ImportError:\n    mem0 = None\n",
    );
    module(&t, "wt", "wt");
    t.write(
        "ws/wt/Cargo.toml",
        "[package]\nname = \"wt\"\n\n[dependencies]\nwasmtime = \"30\"\nInflector = \"0.11\"\n",
    );
    t.write(
        "ws/wt/src/lib.rs",
        "wasmtime::component::bindgen!({ world: \"x\" });\n\npub enum wt_kind_t { A }\n\npub fn f() {\n    let _ = wt_kind_t::A;\n    exports::run();\n    inflector::cases::x();\n}\n",
    );
    // A workspace root's declaration a member imports without declaring it is used.
    module(&t, "web", "web");
    t.write(
        "ws/web/package.json",
        r#"{"name": "web", "private": true, "workspaces": ["pkgs/*"],
  "devDependencies": {"left-pad": "1", "stale-root": "1", "ms": "2"}}"#,
    );
    t.write("ws/web/test/run.test.js", "import ms from 'ms'\nms(1)\n");
    module(&t, "web/pkgs/a", "web-a");
    t.write("ws/web/pkgs/a/package.json", r#"{"name": "web-a"}"#);
    t.write(
        "ws/web/pkgs/a/src/index.test.js",
        "import leftPad from 'left-pad'\nleftPad('a', 2)\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "round 17 shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        ["pc unused stale-dep", "web unused stale-root"],
        "{found:?}"
    );
    let mut doubted = unsure(&v);
    doubted.sort();
    let kinds: Vec<&str> = doubted
        .iter()
        .map(|d| d.split(':').next().unwrap_or(d))
        .collect();
    assert_eq!(
        kinds,
        [
            "hub unused mcp",
            "hub unused stale-req",
            "pc unused mem0ai",
            "wt undeclared exports"
        ],
        "{doubted:?}"
    );
    assert!(
        doubted[0].contains("hub/hub/ is its Python package's directory"),
        "{doubted:?}"
    );
    assert!(doubted[2].contains("`mem0`"), "{doubted:?}");
    assert!(doubted[3].contains("item macro"), "{doubted:?}");
    let e = explained(&t, "pc", "audioop-lts");
    assert!(e.contains("removed from the standard library"), "{e}");
    let e = explained(&t, "web", "left-pad");
    assert!(e.contains("in a package below this one"), "{e}");
}

/// Round 18's shapes: a crate named only in a serde attribute's string and one after a
/// keyword's `::`; bundler and test runner aliases, a root `baseUrl`, a script outside the
/// package, a root test config's setup file, jest's TypeScript config and a Babel scope;
/// a database URL's driver, a framework feature's need, a PyInstaller hook, CI's
/// requirements files and a tox plugin.
#[test]
fn attribute_strings_aliases_outside_scripts_setup_files_urls_and_ci_requirements() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "eg", "eg");
    t.write(
        "ws/eg/Cargo.toml",
        "[package]\nname = \"eg\"\n\n[dependencies]\nserde = \"1\"\nserde_bytes = \"0.11\"\nimage = \"0.25\"\nstale_rs = \"1\"\n",
    );
    t.write(
        "ws/eg/src/lib.rs",
        "use crate::widget::image;\n#[derive(serde::Serialize)]\npub struct P {\n    #[serde(with = \"serde_bytes\")]\n    pub bytes: Vec<u8>,\n}\npub fn f(b: &[u8]) {\n    match ::image::load_from_memory(b) { _ => {} }\n}\n",
    );
    // A JS workspace: a root vitest config with a setup file, a root tsconfig with baseUrl.
    module(&t, "web", "web");
    t.write(
        "ws/web/package.json",
        r#"{"name": "web", "private": true, "workspaces": ["app", "pkgs/*"],
  "devDependencies": {"vitest": "3", "vitest-canvas-mock": "0.3"}}"#,
    );
    t.write(
        "ws/web/vitest.config.mts",
        "export default { test: { setupFiles: [\"./setupTests.ts\", \"vitest-localstorage-mock\"] } }\n",
    );
    t.write(
        "ws/web/setupTests.ts",
        "import \"@testing-library/jest-dom\";\nimport \"vitest-canvas-mock\";\nimport \"./more\";\n",
    );
    t.write(
        "ws/tsconfig.json",
        "{ \"compilerOptions\": { \"baseUrl\": \".\" } }\n",
    );
    t.write("ws/web/client/src/index.ts", "export type T = number;\n");
    // `web/firebase/` holds no `auth`: the import falls back to a package, owed.
    t.write("ws/web/firebase/config.ts", "export const c = 1;\n");
    t.write(
        "ws/web/scripts/buildPackage.js",
        "const sass = require(\"esbuild-sass-plugin\");\nrequire(\"./woff2/plugins\");\n",
    );
    t.write(
        "ws/web/scripts/woff2/plugins.js",
        "const which = require(\"which\");\n",
    );
    module(&t, "web/app", "web-app");
    t.write(
        "ws/web/app/package.json",
        r#"{"name": "web-app", "private": true, "dependencies": {"react": "19"}}"#,
    );
    t.write(
        "ws/web/app/vite.config.mts",
        "export default { resolve: { alias: [\n  { find: /^@web\\/lib\\/(.*?)/, replacement: path.resolve(__dirname, \"../pkgs/lib/src/$1\") },\n] } }\n",
    );
    t.write(
        "ws/web/app/src/main.tsx",
        "import React from 'react'\nimport { x } from '@web/lib/x'\nimport { y } from '@web/other'\n",
    );
    module(&t, "web/pkgs/lib", "web-lib");
    t.write(
        "ws/web/pkgs/lib/package.json",
        r#"{"name": "@web/lib", "main": "src/index.ts",
  "scripts": {"build": "node ../../scripts/buildPackage.js"},
  "dependencies": {"ms": "2"},
  "devDependencies": {"@testing-library/jest-dom": "6", "esbuild-sass-plugin": "3", "which": "4", "stale-js": "1", "vitest-canvas-mock": "0.3", "vitest-localstorage-mock": "0.1"}}"#,
    );
    t.write(
        "ws/web/pkgs/lib/src/index.ts",
        "import ms from 'ms'\nimport type { T } from 'web/client/src'\nexport const a = ms('1s')\n",
    );
    t.write(
        "ws/web/pkgs/lib/src/index.test.ts",
        "import { a } from './index'\nimport { c } from 'web/firebase/config'\nimport { getAuth } from 'web/firebase/auth'\n",
    );
    module(&t, "web/pkgs/ui", "web-ui");
    t.write(
        "ws/web/pkgs/ui/package.json",
        r#"{"name": "@web/ui", "main": "src/index.js", "dependencies": {"ms": "2"},
  "devDependencies": {"jest": "30", "ts-node": "10", "@emotion/babel-plugin": "11", "@web/ui": "workspace:*"}}"#,
    );
    t.write("ws/web/pkgs/ui/jest.config.ts", "export default {}\n");
    t.write(
        "ws/web/pkgs/ui/.babelrc",
        "{ \"plugins\": [\"@emotion\"] }\n",
    );
    t.write("ws/web/pkgs/ui/src/index.js", "import ms from 'ms'\n");
    // It declares itself so that its tests import it by name, as its users do.
    t.write(
        "ws/web/pkgs/ui/src/index.test.js",
        "import { a } from '@web/ui'\n",
    );
    // Python: a driver a URL names, CI's test requirements, a tox plugin.
    module(&t, "py", "py");
    t.write(
        "ws/py/pyproject.toml",
        "[project]\nname = \"py\"\ndependencies = [\"sqlalchemy\", \"aiosqlite\", \"stale-py\", \"fastapi\", \"python-multipart\"]\n\n[dependency-groups]\ndev = [\"tox\", \"tox-uv\"]\n\n[tool.tox]\nenv_list = [\"py\"]\n",
    );
    t.write(
        "ws/py/py/__init__.py",
        "import sqlalchemy\nURL = \"sqlite+aiosqlite:///app.db\"\n",
    );
    t.write("ws/py/tests/test_x.py", "import tqdm\n");
    // FastAPI parses forms with python-multipart; PyInstaller runs its hooks.
    t.write("ws/py/py/api.py", "from fastapi import FastAPI, Form\n");
    t.write(
        "ws/py/py/_pyinstaller/hook-py.py",
        "from PyInstaller.utils.hooks import collect_data_files\n",
    );
    t.write("ws/py/test/requirements.txt", "tqdm\n");
    t.write(
        "ws/.github/workflows/ci.yml",
        "jobs:\n  t:\n    steps:\n      - run: pip install -r py/test/requirements.txt\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "round 18 shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "eg unused stale_rs",
            "py unused stale-py",
            // The root's own setup file imports it undeclared: it resolves only by hoisting.
            "web undeclared @testing-library/jest-dom",
            "web-app undeclared @web/other",
            "web-lib undeclared web",
            "web-lib unused stale-js",
            // The root declares what its setup file imports: the member's is its own, unused.
            "web-lib unused vitest-canvas-mock",
        ],
        "{found:?}"
    );
    let doubted = unsure(&v);
    assert!(
        doubted.iter().all(|u| !u.starts_with("web-ui ")),
        "{doubted:?}"
    );
    let e = explained(&t, "web-lib", "which");
    assert!(e.contains("scripts/buildPackage.js, outside it"), "{e}");
    let e = explained(&t, "web-lib", "@testing-library/jest-dom");
    assert!(e.contains("vitest.config.mts, above the package"), "{e}");
    let e = explained(&t, "web-lib", "vitest-localstorage-mock");
    assert!(e.contains("vitest.config.mts, above the package"), "{e}");
    let e = explained(&t, "web-ui", "ts-node");
    assert!(e.contains("jest.config.ts"), "{e}");
    let e = explained(&t, "py", "tqdm");
    assert!(e.contains(".github/workflows/ci.yml:4"), "{e}");
}

/// Round 19's classes: a binary-only crate named like a registry crate another crate uses
/// (an example app `futures` beside the `futures` crate), a distribution imported by its
/// name's parts joined, an import under `if __name__ == "__main__":`, TypeScript's
/// triple-slash type references, a loader in `NODE_OPTIONS`, swc's plugins, a package shipped
/// code runs through `npx`, and ESM's `import.meta.resolve`.
#[test]
fn binary_crates_joined_names_main_blocks_type_references_loaders_and_runners() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/Cargo.toml",
        "[package]\nname = \"app\"\n\n[dependencies]\nfutures = \"0.3\"\n",
    );
    t.write("ws/app/src/lib.rs", "pub use futures::stream::Stream;\n");
    // An example app named as the registry crate: it has no library, so nothing imports it.
    module(&t, "examples/futures", "futures");
    t.write(
        "ws/examples/futures/Cargo.toml",
        "[package]\nname = \"futures\"\npublish = false\n\n[dependencies]\napp = { path = \"../../app\" }\n",
    );
    t.write(
        "ws/examples/futures/src/main.rs",
        "use app::Stream;\nfn main() {}\n",
    );
    // A crate that compiles what its build script writes (its docs' code blocks).
    module(&t, "docs-test", "docs-test");
    t.write(
        "ws/docs-test/Cargo.toml",
        "[package]\nname = \"docs-test\"\n\n[dev-dependencies]\ntokio = \"1\"\n",
    );
    t.write("ws/docs-test/build.rs", "fn main() {}\n");
    t.write(
        "ws/docs-test/src/lib.rs",
        "include!(concat!(env!(\"OUT_DIR\"), \"/website_tests.rs\"));\n",
    );
    // A crate whose build writes a module's sources, kept out of the repository.
    module(&t, "dialects", "dialects");
    t.write(
        "ws/dialects/Cargo.toml",
        "[package]\nname = \"dialects\"\n\n[dependencies]\nonce_cell = \"1\"\n",
    );
    t.write("ws/dialects/build.rs", "fn main() {}\n");
    t.write(
        "ws/dialects/src/lib.rs",
        "/* mod commented;\n mod still; */\nmod inline {\n    mod nested;\n}\n#[cfg_attr(unix, path = \"sys/unix.rs\")]\nmod sys;\n#[cfg(test)]\nmod tests;\npub mod dialect; // written by build.rs\nmod util;\npub use dialect::*;\n",
    );
    t.write("ws/dialects/src/util.rs", "pub fn f() {}\n");
    module(&t, "py", "py");
    t.write(
        "ws/py/pyproject.toml",
        "[project]\nname = \"py\"\ndependencies = [\"searchengine-py\", \"expr-python\", \"psycopg[pool]\"]\n\n[dependency-groups]\ndev = [\"requests\", \"sphinx\", \"grpcio-testing\"]\n",
    );
    // A Makefile that makes in a directory below; gRPC's testing add-on.
    t.write("ws/py/Makefile", "docs:\n\tcd docs && $(MAKE) html\n");
    t.write(
        "ws/py/docs/Makefile",
        "html:\n\tpython -m sphinx -b html . _build\n",
    );
    t.write("ws/py/tests/test_rpc.py", "import grpc_testing\n");
    t.write(
        "ws/py/py/__init__.py",
        "import searchenginepy\nimport exprpy\nimport psycopg\nfrom psycopg_pool import ConnectionPool\n\nif __name__ == \"__main__\":\n    import requests\n    import click\n",
    );
    module(&t, "web", "web");
    t.write(
        "ws/web/package.json",
        r#"{"name": "web", "private": true,
  "scripts": {"e2e": "NODE_OPTIONS=\"--import=tsx/esm\" playwright test", "build": "swc src -d dist", "app": "vite build",
    "codegen": "graphql-codegen --require dotenv/config --config gql-codegen.yml",
    "protos": "pbjs -t static-module -o src/p.js p.proto && pbts -o src/p.d.ts src/p.js"},
  "dependencies": {"@cloudflare/workers-types": "4", "prettier": "3", "process": "0.11"},
  "devDependencies": {"tsx": "4", "@playwright/test": "1", "@swc/cli": "0.7", "@swc/core": "1", "swc-plugin-remove-x": "1", "@babel/plugin-y": "7", "stale-js": "1",
    "@graphql-codegen/cli": "6", "@graphql-codegen/typed-document-node": "6", "@graphql-typed-document-node/core": "3", "dotenv": "16", "postcss": "8", "autoprefixer": "10", "protobufjs-cli": "1", "@nestjs/schematics": "11"}}"#,
    );
    // A codegen config under the name `--config` gives it, whose generated code is not
    // committed; PostCSS's plugins by key.
    t.write(
        "ws/web/gql-codegen.yml",
        "generates:\n  src/gql.ts:\n    plugins:\n      - typed-document-node\n",
    );
    t.write(
        "ws/web/nest-cli.json",
        "{ \"collection\": \"@nestjs/schematics\", \"sourceRoot\": \"src\" }\n",
    );
    t.write(
        "ws/web/postcss.config.cjs",
        "module.exports = {\n  plugins: {\n    autoprefixer: {},\n  },\n}\n",
    );
    t.write(
        "ws/web/.swcrc",
        "{ \"jsc\": { \"experimental\": { \"plugins\": [[\"swc-plugin-remove-x\", {}]] } } }\n",
    );
    // A browser bundle's polyfill of a Node built-in, by the built-in's bare name.
    t.write(
        "ws/web/index.html",
        "<script type=\"module\">\n  import process from \"process\"\n  window.process = process\n</script>\n",
    );
    t.write(
        "ws/web/src/env.d.ts",
        "/// <reference types=\"@cloudflare/workers-types/2023-07-01\" />\n",
    );
    t.write(
        "ws/web/src/format.ts",
        "import { execSync } from 'node:child_process'\nexport const f = (p: string) => execSync(`npx prettier --write ${p}`)\n",
    );
    t.write(
        "ws/web/test/transform.js",
        "export default { plugins: [import.meta.resolve('@babel/plugin-y')] }\n",
    );
    // The manifest a framework writes for the app it generates: no JS file beside it.
    module(&t, "site/app.lock", "site-lock");
    t.write(
        "ws/site/app.lock/package.json",
        r#"{"name": "site", "scripts": {"dev": "vite"}, "dependencies": {"@radix-ui/themes": "3"}, "devDependencies": {"vite": "6", "stale-dev": "1"}}"#,
    );
    t.write("ws/site/app.lock/bun.lock", "{}\n");
    // A workspace root with no code of its own still owes nothing it does not use.
    module(&t, "mono", "mono");
    t.write(
        "ws/mono/package.json",
        r#"{"name": "mono", "private": true, "workspaces": ["packages/*"], "dependencies": {"left-pad": "1"}}"#,
    );
    t.empty_repo("ws");
    t.commit("ws", "round 19 shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "mono unused left-pad",
            "site-lock unused stale-dev",
            "web unused stale-js"
        ],
        "{found:?}"
    );
    let e = explained(&t, "site-lock", "@radix-ui/themes");
    assert!(e.contains("has no JS file"), "{e}");
    let doubted = unsure(&v);
    assert!(
        doubted
            .iter()
            .any(|u| u.starts_with("py undeclared click: ") && u.contains("`__main__` block")),
        "{doubted:?}"
    );
    assert!(
        doubted.iter().any(|u| u.starts_with("docs-test unused tokio: ")
            && u.contains("build script writes")),
        "{doubted:?}"
    );
    assert!(
        doubted
            .iter()
            .any(|u| u.starts_with("dialects unused once_cell: ")
                && u.contains("declares `mod dialect;`, whose file is not in the repository")),
        "{doubted:?}"
    );
    assert_eq!(doubted.len(), 4, "{doubted:?}");
}

/// A Rust crate that declares, with features, a crate another workspace crate it declares
/// depends on is unsure (it may switch them on for that one), unless that crate already
/// switches every one of them on itself — here through the workspace's entry both inherit
/// (biome's members and `serde`'s `derive`). What it switches on that the other lacks stays
/// unsure.
#[test]
fn a_feature_another_workspace_crate_already_switches_on_is_no_switch() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    t.write(
        "ws/Cargo.toml",
        "[workspace]\nmembers = [\"base\", \"cli\", \"web\"]\n\n[workspace.dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\n",
    );
    module(&t, "base", "base");
    t.write(
        "ws/base/Cargo.toml",
        "[package]\nname = \"base\"\n\n[dependencies]\nserde = { workspace = true, optional = true }\n",
    );
    t.write(
        "ws/base/src/lib.rs",
        "#[derive(serde::Serialize)]\npub struct A;\n",
    );
    for (dir, features) in [("cli", "\"derive\""), ("web", "\"derive\", \"rc\"")] {
        module(&t, dir, dir);
        t.write(
            &format!("ws/{dir}/Cargo.toml"),
            &format!(
                "[package]\nname = \"{dir}\"\n\n[dependencies]\nbase = {{ path = \"../base\" }}\nserde = {{ workspace = true, features = [{features}] }}\n"
            ),
        );
        t.write(&format!("ws/{dir}/src/lib.rs"), "pub use base::A;\n");
    }
    t.write(
        "ws/Cargo.lock",
        "version = 4\n\n[[package]]\nname = \"base\"\nversion = \"0.1.0\"\ndependencies = [\n \"serde\",\n]\n\n[[package]]\nname = \"serde\"\nversion = \"1.0.0\"\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "a feature switched on twice");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["cli unused serde"], "{v}");
    let doubts = unsure(&v);
    assert_eq!(
        doubts,
        [
            "web unused serde: base, also declared, depends on it (Cargo.lock records it): it may be declared to pin the version base gets or to switch on its features"
        ],
        "{doubts:?}"
    );
}

/// A package whose `setup.py` declares in literals (flytekit's plugins: a name bound to a
/// list, an f-string name) is checked like one with a setup.cfg: its findings are named
/// against `setup.py`, and the setuptools its `setup.py` imports is pip's (no
/// `[build-system]`).
#[test]
fn a_literal_setup_py_is_read_as_a_manifest() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "plugin", "plugin");
    t.write(
        "ws/plugin/setup.py",
        "from setuptools import setup\n\nPLUGIN = \"athena\"\nplugin_requires = [\n    \"celery>=5\",\n    \"stale-dep\",\n]\n\nsetup(\n    name=f\"acme-{PLUGIN}\",\n    packages=[f\"acmeplugins.{PLUGIN}\"],\n    install_requires=plugin_requires,\n    extras_require={\"s3\": [\"boto3\"]},\n)\n",
    );
    t.write(
        "ws/plugin/acmeplugins/athena/__init__.py",
        "import celery\nimport requests\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "a plugin declared in setup.py");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "plugin undeclared requests",
            "plugin unused boto3",
            "plugin unused stale-dep"
        ],
        "{v}"
    );
    let at = |dep: &str| {
        v["drift"]
            .as_array()
            .and_then(|a| a.iter().find(|f| f["dependency"] == dep))
            .map(|f| format!("{}:{}", f["manifest"].as_str().unwrap_or("-"), f["line"]))
    };
    assert_eq!(at("stale-dep").as_deref(), Some("plugin/setup.py:6"));
    assert_eq!(v["unchecked"].as_array().map(Vec::len), Some(0), "{v}");
}

/// A workspace root's `dependencies` answer a shipped import of a member that is installed
/// only from the repository (private, or its entry TypeScript source: documenso's UI keeps
/// its `@radix-ui/*` in the root's), as the repository's production install puts them beside
/// it; never a published member's, and never the root's `devDependencies`. Nor is one the
/// member's tests alone import dev-only: it is not the member's to move.
#[test]
fn a_workspace_root_s_dependencies_ship_with_its_internal_packages() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    t.write(
        "ws/package.json",
        r#"{"name": "root", "private": true, "workspaces": ["packages/*"], "dependencies": {"radix-dialog": "1", "test-only-lib": "1"}, "devDependencies": {"orm-client": "5"}}"#,
    );
    for (dir, manifest) in [
        (
            "ui",
            r#"{"name": "@acme/ui", "version": "0.0.0", "main": "./index.ts"}"#,
        ),
        ("app", r#"{"name": "@acme/app", "private": true}"#),
        (
            "sdk",
            r#"{"name": "@acme/sdk", "version": "1.2.0", "main": "./dist/index.js"}"#,
        ),
    ] {
        module(&t, &format!("packages/{dir}"), dir);
        t.write(&format!("ws/packages/{dir}/package.json"), manifest);
        t.write(
            &format!("ws/packages/{dir}/index.ts"),
            "import { Dialog } from 'radix-dialog'\nimport { Role } from 'orm-client'\nexport { Dialog, Role }\n",
        );
        t.write(
            &format!("ws/packages/{dir}/index.test.ts"),
            "import lib from 'test-only-lib'\nlib()\n",
        );
    }
    t.empty_repo("ws");
    t.commit("ws", "root dependencies");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "sdk shipped-dev orm-client",
            "sdk shipped-dev radix-dialog",
            "ui shipped-dev orm-client",
        ],
        "{v}"
    );
    // A private package's dev dependency may be installed where it runs: unsure, as ever.
    let doubts = unsure(&v);
    assert_eq!(doubts.len(), 1, "{doubts:?}");
    assert!(
        doubts[0].starts_with("app shipped-dev orm-client: the package is private"),
        "{doubts:?}"
    );
    let e = explained(&t, "ui", "radix-dialog");
    assert!(e.contains("installed only from this repository"), "{e}");
}

/// A package with TypeScript sources uses the `typescript` it declares, tsconfig or not
/// (react-scripts compiles an app's `.tsx` and writes the tsconfig on first run); one with
/// declaration files only does not.
#[test]
fn typescript_sources_use_typescript() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    for (dir, file) in [("app", "src/index.tsx"), ("types", "index.d.ts")] {
        module(&t, dir, dir);
        t.write(
            &format!("ws/{dir}/package.json"),
            &format!(
                r#"{{"name": "{dir}", "private": true, "scripts": {{"build": "react-scripts build"}}, "dependencies": {{"react-scripts": "5"}}, "devDependencies": {{"typescript": "5"}}}}"#
            ),
        );
        t.write(&format!("ws/{dir}/{file}"), "export const a: number = 1;\n");
    }
    t.empty_repo("ws");
    t.commit("ws", "typescript sources");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["types unused typescript"], "{v}");
    let e = explained(&t, "app", "typescript");
    assert!(e.contains("TypeScript sources"), "{e}");
}

/// Round 20's Python classes: a private standard module (`_datetime`), fsspec's filesystems
/// beside what opens paths through it (never unused, never dev-only), pytest's own `py`,
/// the requirements a Makefile installs with pip, and a package's own development
/// requirements file beside its manifest. Beside them, what nothing uses is still found.
#[test]
fn private_stdlib_fsspec_filesystems_and_make_and_dev_requirements() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "", "kit");
    t.write(
        "ws/pyproject.toml",
        "[project]\nname = \"kit\"\ndependencies = [\"fsspec\", \"s3fs\", \"gcsfs\", \"requests\"]\n",
    );
    t.write("ws/kit/__init__.py", "import fsspec\nimport _datetime\n");
    t.write(
        "ws/tests/test_io.py",
        "import py\nimport s3fs\nimport hypothesis\nimport yaml\n",
    );
    t.write(
        "ws/Makefile",
        ".PHONY: setup\nsetup:\n\tuv pip install --system -r dev-requirements.in\n",
    );
    t.write("ws/dev-requirements.in", "pytest\nhypothesis\n");
    module(&t, "plugins/athena", "athena");
    t.write(
        "ws/plugins/athena/setup.py",
        "from setuptools import setup\nsetup(name='kit-athena', install_requires=['kit'])\n",
    );
    t.write("ws/plugins/athena/dev-requirements.in", "aioresponses\n");
    t.write(
        "ws/plugins/athena/kitplugins/athena/__init__.py",
        "import kit\n",
    );
    // The plugin's tests run in the environment its enclosing package's Makefile makes.
    t.write(
        "ws/plugins/athena/tests/test_athena.py",
        "import aioresponses\nimport pytest\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "round 20 python shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        ["kit undeclared pyyaml", "kit unused requests"],
        "{v}"
    );
    let e = explained(&t, "kit", "hypothesis");
    assert!(e.contains("Makefile:3 installs it with make"), "{e}");
    let e = explained(&t, "athena", "aioresponses");
    assert!(
        e.contains("plugins/athena/dev-requirements.in is its development requirements file"),
        "{e}"
    );
    let e = explained(&t, "kit", "gcsfs");
    assert!(e.contains("an fsspec filesystem beside fsspec"), "{e}");
    let e = explained(&t, "athena", "pytest");
    assert!(e.contains("around the packages below it too"), "{e}");
}

/// A Python tool configured in a pyproject.toml above the package (chainlit's root holds
/// `[tool.ruff]` and `[tool.mypy]` for `backend/`) is configured for it, and an extra named
/// for a configured tool (`mypy = ["mypy", …]`) installs development tools.
#[test]
fn a_python_tool_configured_above_the_package_is_used() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    t.write(
        "ws/pyproject.toml",
        "[tool.ruff]\nline-length = 100\n\n[tool.mypy]\nstrict = true\n\n[tool.uv.workspace]\nmembers = [\"backend\"]\n",
    );
    module(&t, "backend", "backend");
    t.write(
        "ws/backend/pyproject.toml",
        "[project]\nname = \"backend\"\ndependencies = [\"requests\"]\n\n[project.optional-dependencies]\nmypy = [\"mypy\", \"black\"]\n\n[dependency-groups]\ndev = [\"ruff\", \"isort\"]\n",
    );
    t.write("ws/backend/backend/__init__.py", "import requests\n");
    t.empty_repo("ws");
    t.commit("ws", "tools configured above");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        ["backend unused black", "backend unused isort"],
        "{v}"
    );
}

/// A package whose sources the enclosing package's bundler builds (mem0's `tsup.config.ts`
/// takes `src/oss/src/index.ts`, beside `src/oss/package.json`) ships in that bundle: the
/// enclosing package's peers and dependencies answer its shipped imports. A nested package
/// the config does not name still cannot reach them.
#[test]
fn a_package_the_enclosing_bundler_builds_ships_under_its_declarations() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "sdk", "sdk");
    t.write(
        "ws/sdk/package.json",
        r#"{"name": "sdk", "version": "2.0.0", "main": "./dist/index.js", "scripts": {"build": "tsup"}, "peerDependencies": {"vec-db": "1"}, "peerDependenciesMeta": {"vec-db": {"optional": true}}, "devDependencies": {"tsup": "8"}}"#,
    );
    t.write(
        "ws/sdk/tsup.config.ts",
        "import { defineConfig } from 'tsup';\nexport default defineConfig([{ entry: ['src/client/index.ts'] }, { entry: ['src/oss/src/index.ts'], external: ['vec-db'] }]);\n",
    );
    t.write("ws/sdk/src/client/index.ts", "export const c = 1;\n");
    for dir in ["oss", "other"] {
        module(&t, &format!("sdk/src/{dir}"), dir);
        t.write(
            &format!("ws/sdk/src/{dir}/package.json"),
            &format!(r#"{{"name": "sdk-{dir}", "version": "1.0.0", "main": "dist/index.js"}}"#),
        );
        t.write(
            &format!("ws/sdk/src/{dir}/src/index.ts"),
            "import { connect } from 'vec-db'\nexport const db = connect\n",
        );
    }
    t.empty_repo("ws");
    t.commit("ws", "a nested package the bundler builds");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["other shipped-dev vec-db"], "{v}");
}

/// A Python file only a guarded import loads (`try: from .checkpoint import …` or an `if`
/// testing what such a `try` assigns) is as optional as that import: a failed import climbs
/// the chain of files (flytekit's `extras/pytorch`). A function's import, an entry point or
/// one unguarded import elsewhere leaves its file's imports owed.
#[test]
fn a_file_only_a_guard_loads_imports_optionally() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "", "kit");
    t.write(
        "ws/pyproject.toml",
        "[project]\nname = \"kit\"\ndependencies = []\n[project.scripts]\nkit = \"kit.cli:main\"\n",
    );
    t.write(
        "ws/kit/__init__.py",
        "from kit.extras import torch\nfrom . import core\n",
    );
    t.write("ws/kit/extras/__init__.py", "");
    t.write(
        "ws/kit/extras/torch.py",
        "try:\n    import torch\n    _torch = True\nexcept ImportError:\n    _torch = False\nif _torch:\n    from ._checkpoint import Checkpoint\n",
    );
    t.write(
        "ws/kit/extras/_checkpoint.py",
        "import torch\nimport safetensors\n",
    );
    // Loaded under a guard here, and unguarded by core.py: owed.
    t.write("ws/kit/extras/_yaml.py", "import yaml\n");
    t.write(
        "ws/kit/core.py",
        "from .extras import _yaml\ntry:\n    from .extras import _yaml as y\nexcept ImportError:\n    y = None\ndef load():\n    from . import _late\n",
    );
    // Loaded inside a function: the call fails, nothing catches it.
    t.write("ws/kit/_late.py", "import orjson\n");
    // Only a guard imports it, but an entry point names it: owed.
    t.write("ws/kit/cli.py", "import click\n");
    t.write(
        "ws/kit/main.py",
        "try:\n    from kit import cli\nexcept ImportError:\n    cli = None\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "optional integrations loaded under a guard");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "kit undeclared click",
            "kit undeclared orjson",
            "kit undeclared pyyaml"
        ],
        "{v}"
    );
    let e = explained(&t, "kit", "safetensors");
    assert!(
        e.contains("in a file loaded only under a guard (kit/extras/torch.py:7)"),
        "{e}"
    );
}

/// Round 21's shapes: a static site's generator bundles it (VitePress); an example outside
/// a package's `files` is never installed; `.github/` scripts run with what their workflow
/// installs; a bare import beside a file of its name, outside a package, may be that file.
#[test]
fn static_sites_examples_ci_scripts_and_files_beside() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "", "kit");
    t.write(
        "ws/pyproject.toml",
        "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n[project]\nname = \"kit\"\ndependencies = []\n",
    );
    t.write("ws/src/kit/__init__.py", "from . import chains\n");
    // A package's module imports the distribution, whatever file stands beside it.
    t.write("ws/src/kit/chains.py", "import langsmith\n");
    t.write("ws/src/kit/langsmith.py", "X = 1\n");
    t.write("ws/.github/scripts/check_version.py", "import semver\n");
    // A module of recipes, each a package run as a script beside the file it imports.
    module(&t, "recipes", "demos");
    t.write(
        "ws/recipes/pyproject.toml",
        "[project]\nname = \"demos\"\ndependencies = []\n",
    );
    t.write("ws/recipes/flows/__init__.py", "");
    t.write("ws/recipes/flows/prompt/__init__.py", "");
    t.write("ws/recipes/flows/prompt/evals.py", "import run_prompt\n");
    t.write("ws/recipes/flows/prompt/run_prompt.py", "X = 1\n");
    module(&t, "site", "site");
    t.write(
        "ws/site/package.json",
        r#"{"name": "site", "private": true, "scripts": {"docs:build": "vitepress build ."}, "devDependencies": {"vitepress": "1", "vue": "3"}}"#,
    );
    t.write(
        "ws/site/theme/index.ts",
        "import { h } from 'vue'\nimport DefaultTheme from 'vitepress/theme'\n",
    );
    // An example outside the package's `files` is never installed.
    module(&t, "otel", "otel");
    t.write(
        "ws/otel/package.json",
        r#"{"name": "otel", "files": ["dist", "src"], "main": "dist/index.js", "dependencies": {"api": "1"}, "devDependencies": {"sdk-node": "1"}}"#,
    );
    t.write("ws/otel/src/index.ts", "import { trace } from 'api'\n");
    t.write(
        "ws/otel/examples/run.ts",
        "import { NodeSDK } from 'sdk-node'\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "round 21 shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(found, ["kit undeclared langsmith"], "{v}");
    let e = explained(&t, "otel", "sdk-node");
    assert!(
        e.contains("otel/examples/run.ts is outside the package's `files` list"),
        "{e}"
    );
    let doubts = unsure(&v).join("\n");
    assert!(
        doubts.contains("kit undeclared semver: imported only by .github/scripts/check_version.py:1, in a directory of files run by hand (examples, scripts, docs) or by CI (`.github/`)"),
        "{doubts}"
    );
    assert!(
        doubts.contains("demos undeclared run_prompt: `recipes/flows/prompt/run_prompt` stands beside recipes/flows/prompt/evals.py:1"),
        "{doubts}"
    );
}

/// A `tox.ini` in a directory above the packages, held by none of them (openinference's
/// `python/tox.ini`: `deps = -r dev-requirements.txt`, each environment `changedir`s into a
/// package), installs its environments' requirements for the tests of every package below.
#[test]
fn a_tox_ini_above_the_packages_serves_their_tests() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    for name in ["alpha", "beta"] {
        module(&t, &format!("python/{name}"), name);
        t.write(
            &format!("ws/python/{name}/pyproject.toml"),
            &format!("[project]\nname = \"{name}\"\ndependencies = []\n"),
        );
        t.write(&format!("ws/python/{name}/src/{name}/__init__.py"), "");
        t.write(
            &format!("ws/python/{name}/tests/test_it.py"),
            "import pytest\nimport vcr\n",
        );
    }
    t.write(
        "ws/python/tox.ini",
        "[tox]\nenvlist = py3-{alpha,beta}\n\n[testenv]\ndeps =\n  -r dev-requirements.txt\nchangedir =\n  alpha: alpha/\n  beta: beta/\n",
    );
    t.write("ws/python/dev-requirements.txt", "pytest==9.0.3\n");
    t.empty_repo("ws");
    t.commit("ws", "a tox.ini above the packages");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        ["alpha undeclared vcrpy", "beta undeclared vcrpy"],
        "{v}"
    );
    let e = explained(&t, "beta", "pytest");
    assert!(
        e.contains("python/tox.ini:6 installs it for the tests of the packages below it"),
        "{e}"
    );
}

/// oxlint's `typeAware` switch (in its config, or `--type-aware` on its command) runs its
/// `oxlint-tsgolint` backend.
#[test]
fn oxlint_s_type_aware_backend_is_used() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "js", "web");
    t.write(
        "ws/js/package.json",
        r#"{"name": "web", "scripts": {"lint": "oxlint"}, "devDependencies": {"oxlint": "1", "oxlint-tsgolint": "1", "left-pad": "1"}}"#,
    );
    t.write(
        "ws/js/.oxlintrc.json",
        "{\n  \"options\": { \"typeAware\": true },\n  \"plugins\": [\"react\"]\n}\n",
    );
    t.write("ws/js/src/index.ts", "export const x = 1\n");
    module(&t, "cli", "cli");
    t.write(
        "ws/cli/package.json",
        r#"{"name": "cli", "scripts": {"lint": "oxlint --type-aware src"}, "devDependencies": {"oxlint": "1", "oxlint-tsgolint": "1"}}"#,
    );
    t.write("ws/cli/src/index.ts", "export const y = 1\n");
    t.empty_repo("ws");
    t.commit("ws", "tool configs");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["web unused left-pad"], "{v}");
}

/// A package of the mesh whose `setup.py` computes its arguments (phoenix-sqlean's
/// `setuptools.setup(**get_setup_args())`) is the distribution the mesh names it: another
/// package declaring that name is answered by the packages it ships.
#[test]
fn an_unread_setup_py_names_its_distribution_as_the_mesh_does() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "packages/fast-sqlite", "acme-fast-sqlite");
    t.write(
        "ws/packages/fast-sqlite/setup.py",
        "import setuptools\ndef args():\n    return {\"name\": \"acme-fast-sqlite\", \"packages\": [\"fastsqlite\"]}\nsetuptools.setup(**args())\n",
    );
    t.write(
        "ws/packages/fast-sqlite/setup.cfg",
        "[build_ext]\ninclude_dirs=/usr/include\n",
    );
    t.write("ws/packages/fast-sqlite/fastsqlite/__init__.py", "X = 1\n");
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\ndependencies = [\"acme-fast-sqlite\"]\n",
    );
    t.write("ws/app/app/__init__.py", "import fastsqlite\n");
    t.empty_repo("ws");
    t.commit("ws", "a computed setup.py");
    let v = t.json(&["drift"]);
    assert!(findings(&v).is_empty(), "{v}");
}

/// Doc tests kept in Markdown a doc attribute includes (`#![doc =
/// include_str!("../README.md")]`, opendal's `#[doc = include_str!("docs.md")]`) use the
/// dev-dependencies: `cargo test` compiles their Rust blocks.
#[test]
fn markdown_doc_tests_a_doc_attribute_includes_use_dev_dependencies() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "svc", "svc");
    t.write(
        "ws/svc/Cargo.toml",
        "[package]\nname = \"svc\"\n\n[dev-dependencies]\nanyhow = \"1\"\ntokio = \"1\"\ncriterion = \"0.5\"\n",
    );
    t.write(
        "ws/svc/src/lib.rs",
        "#![doc = include_str!(\"../README.md\")]\nmod backend;\n",
    );
    t.write(
        "ws/svc/src/backend.rs",
        "#[doc = include_str!(\"docs.md\")]\npub struct Backend;\n",
    );
    t.write(
        "ws/svc/README.md",
        "# svc\n\n```no_run\nuse anyhow::Result;\n```\n",
    );
    t.write(
        "ws/svc/src/docs.md",
        "```rust\n#[tokio::main]\nasync fn main() {}\n```\n\n```rust,ignore\nuse criterion::Criterion;\n```\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "markdown doc tests");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["svc unused criterion"], "{v}");
    let e = explained(&t, "svc", "tokio");
    assert!(e.contains("svc/src/docs.md:2 uses it in a doc test"), "{e}");
}

/// A front end with its own install in a directory of the repository (chainlit's
/// `frontend/pnpm-lock.yaml`, opendal's `website/`): its lockfile records the peers its
/// packages require, as a root's does — `plotly.js` beside `react-plotly.js`. The root's
/// lockfile, for other packages, says nothing of them.
#[test]
fn a_front_end_s_own_lockfile_records_its_peers() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "frontend", "app");
    t.write(
        "ws/frontend/package.json",
        r#"{"name": "app", "dependencies": {"react-plotly.js": "2", "plotly.js": "2", "left-pad": "1"}}"#,
    );
    t.write(
        "ws/frontend/src/Plot.js",
        "import Plot from 'react-plotly.js'\n",
    );
    t.write(
        "ws/frontend/pnpm-lock.yaml",
        "lockfileVersion: '9.0'\n\npackages:\n\n  react-plotly.js@2.6.0:\n    resolution: {integrity: sha512-z}\n    peerDependencies:\n      plotly.js: '>1.34.0'\n      react: '>0.13.0'\n",
    );
    t.write(
        "ws/pnpm-lock.yaml",
        "lockfileVersion: '9.0'\n\npackages:\n\n  left-pad@1.0.0:\n    resolution: {integrity: sha512-z}\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "a front end of its own");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app unused left-pad"], "{v}");
    let e = explained(&t, "app", "plotly.js");
    assert!(
        e.contains(
            "react-plotly.js requires it installed beside it (frontend/pnpm-lock.yaml records"
        ),
        "{e}"
    );
}

/// Notebooks (graphiti's `examples/*.ipynb`, ragas' tutorials): their code cells are read as
/// Python run by hand — what they import is used, what no declaration answers is unsure,
/// and a notebook that `%pip install`s its packages owes nothing. Jupyter's kernel and front
/// ends, declared beside them, run them with no import.
#[test]
fn notebooks_are_code_run_by_hand_in_jupyter() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "py", "graph");
    t.write(
        "ws/py/pyproject.toml",
        "[project]\nname = \"graph\"\ndependencies = [\"httpx\", \"notebook\"]\n\n[project.optional-dependencies]\ndev = [\"ipykernel\", \"jupyterlab\", \"langgraph\", \"requests\"]\n",
    );
    t.write("ws/py/graph/__init__.py", "import httpx\n");
    let notebook = |cells: &[&str]| {
        let cells: Vec<String> = cells
            .iter()
            .map(|c| {
                format!(
                    "  {{\n   \"cell_type\": \"code\",\n   \"metadata\": {{}},\n   \"outputs\": [],\n   \"source\": [\n    {}\n   ]\n  }}",
                    serde_json::to_string(c).expect("a string")
                )
            })
            .collect();
        format!(
            "{{\n \"cells\": [\n{}\n ],\n \"nbformat\": 4\n}}\n",
            cells.join(",\n")
        )
    };
    t.write(
        "ws/py/examples/agent.ipynb",
        &notebook(&["from langgraph.graph import StateGraph", "import rich"]),
    );
    t.write(
        "ws/py/tutorial.ipynb",
        &notebook(&["%pip install datasets", "import datasets\nimport polars"]),
    );
    t.empty_repo("ws");
    t.commit("ws", "notebooks");
    let v = t.json(&["drift"]);
    // Jupyter declared for shipping is not there to run the examples: still unused.
    assert_eq!(
        findings(&v),
        ["graph unused notebook", "graph unused requests"],
        "{v}"
    );
    let doubts = unsure(&v);
    assert!(
        doubts
            .iter()
            .any(|d| d
                .starts_with("graph undeclared rich: imported only by py/examples/agent.ipynb:16")),
        "{doubts:?}"
    );
    assert!(!v.to_string().contains("datasets"), "{v}");
    // Only what the notebook installs is its own: `polars` is still owed, by hand.
    assert!(
        doubts
            .iter()
            .any(|d| d.starts_with("graph undeclared polars: imported only by py/tutorial.ipynb")),
        "{doubts:?}"
    );
    let e = explained(&t, "graph", "ipykernel");
    assert!(e.contains("the module has notebooks (py/"), "{e}");
}

/// A template with a manifest of its own (slidev's `create-theme/template/`, copied into a
/// new project): its files are that package's, so an import there its manifest does not
/// answer is that manifest's to declare, not the module's: unsure. A `package.json` declaring
/// nothing (`{"type": "module"}`) is no package of its own: the module owes what files below
/// it import.
#[test]
fn a_template_with_a_manifest_of_its_own_declares_for_its_files() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "create-theme", "create-theme");
    t.write(
        "ws/create-theme/package.json",
        r#"{"name": "create-theme", "bin": "index.mjs", "dependencies": {"prompts": "2"}, "devDependencies": {"lodash": "4"}}"#,
    );
    t.write(
        "ws/create-theme/index.mjs",
        "import prompts from 'prompts'\n",
    );
    t.write(
        "ws/create-theme/template/package.json",
        r#"{"name": "theme-starter", "dependencies": {"@slidev/cli": "52"}}"#,
    );
    t.write(
        "ws/create-theme/template/layouts/cover.js",
        "import { ref } from 'vue'\nimport { pick } from 'lodash'\n",
    );
    t.write(
        "ws/create-theme/test/a.test.js",
        "import { pick } from 'lodash'\n",
    );
    t.write("ws/create-theme/esm/package.json", r#"{"type": "module"}"#);
    t.write("ws/create-theme/esm/run.js", "import pad from 'left-pad'\n");
    t.empty_repo("ws");
    t.commit("ws", "a template");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["create-theme undeclared left-pad"], "{v}");
    assert!(
        unsure(&v).iter().any(|d| d.starts_with(
            "create-theme undeclared vue: imported by create-theme/template/layouts/cover.js:1, a file of the package of create-theme/template/package.json"
        )),
        "{v}"
    );
    // Nor is it shipped code of the module's using a dev dependency.
    assert!(
        unsure(&v).iter().any(|d| d.starts_with(
            "create-theme shipped-dev lodash: imported by create-theme/template/layouts/cover.js:2, a file of the package of"
        )),
        "{v}"
    );
}

/// A package whose code is a link into a submodule the repository does not hold (novu's
/// enterprise packages: `src` → `../../.source/auth/src`): its declarations may be used
/// there, so none is surely unused. So is a package holding a submodule in its own tree
/// (docmost's private `src/ee`, checked out by CI before the build). A link that stays in
/// the repository says nothing.
#[test]
fn a_package_linking_its_code_into_a_submodule_is_unsure_of_unused() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    for name in ["auth", "dal", "core"] {
        module(&t, &format!("ee/{name}"), name);
        t.write(
            &format!("ws/ee/{name}/package.json"),
            &format!(r#"{{"name": "{name}", "dependencies": {{"mongoose": "8"}}}}"#),
        );
    }
    t.write("ws/shared/index.js", "export const x = 1\n");
    t.write("ws/ee/auth/index.js", "export * from './src/index.js'\n");
    t.write("ws/ee/dal/index.js", "export const y = 2\n");
    t.write(
        "ws/ee/core/index.js",
        "module.exports = require('./src/ee/mfa')\n",
    );
    // A `-sys` crate's C library as a submodule: what it links may be declared for it.
    module(&t, "foo-sys", "foo-sys");
    t.write(
        "ws/foo-sys/Cargo.toml",
        "[package]\nname = \"foo-sys\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nserde = \"1\"\n",
    );
    t.write("ws/foo-sys/src/lib.rs", "pub fn f() {}\n");
    t.empty_repo("ws");
    for (link, target) in [
        ("ws/ee/auth/src", "../../.source/auth/src"),
        ("ws/ee/dal/shared", "../../shared"),
    ] {
        std::os::unix::fs::symlink(target, t.path(link)).expect("a symlink");
    }
    t.write(
        "ws/.gitmodules",
        "[submodule \".source\"]\n\tpath = .source\n\turl = https://example.org/ee.git\n[submodule \"ee/core/src/ee\"]\n\tpath = ee/core/src/ee\n\turl = https://example.org/core-ee.git\n",
    );
    t.commit("ws", "code linked");
    // Submodules not checked out: gitlinks in the tree, nothing in the work tree.
    let ws = t.path("ws");
    let sub = "1111111111111111111111111111111111111111";
    for path in [".source", "ee/core/src/ee", "foo-sys/libfoo"] {
        crate::common::git(
            &ws,
            &[
                "update-index",
                "--add",
                "--cacheinfo",
                &format!("160000,{sub},{path}"),
            ],
        );
    }
    crate::common::git(
        &ws,
        &[
            "-c",
            "user.email=t@example.org",
            "-c",
            "user.name=t",
            "commit",
            "-q",
            "-m",
            "sub",
        ],
    );
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["dal unused mongoose"], "{v}");
    assert!(
        unsure(&v).iter().any(|d| d
            == "foo-sys unused serde: foo-sys/libfoo is a submodule, which mesh does not read: what is there may use it"),
        "{v}"
    );
    assert!(
        unsure(&v).iter().any(|d| d
            == "auth unused mongoose: ee/auth/src links to ../../.source/auth/src, in the submodule .source, which mesh does not read: what is there may use it"),
        "{v}"
    );
    assert!(
        unsure(&v).iter().any(|d| d
            == "core unused mongoose: ee/core/src/ee is a submodule, which mesh does not read: what is there may use it"),
        "{v}"
    );
}

/// A partial clone leaves a large notebook's blob out: the notebook is not read, so what the
/// module's declarations are used by is not known — its unused findings are unsure, naming
/// the file, and no answer is kept: once the blob is fetched, the next run reads it.
#[test]
fn a_notebook_a_partial_clone_left_out_makes_unused_unsure_until_fetched() {
    let t = TestMesh::new();
    t.write(
        "mesh.toml",
        "[mesh]\nname = \"real\"\n\n[[repo]]\nname = \"clone\"\npath = \"clone\"\n",
    );
    t.write(
        "ws/py/mesh-module.toml",
        "name = \"graph\"\nkind = \"library\"\nbuild = 'true'\n",
    );
    t.write(
        "ws/py/pyproject.toml",
        "[project]\nname = \"graph\"\ndependencies = [\"httpx\", \"pandas\"]\n",
    );
    t.write("ws/py/graph/__init__.py", "import httpx\n");
    // Outputs make a notebook large: over the clone's 1 KiB filter.
    let output = format!("    \"{}\\n\"", "x".repeat(4000));
    t.write(
        "ws/py/explore.ipynb",
        &format!(
            "{{\n \"cells\": [\n  {{\n   \"cell_type\": \"code\",\n   \"metadata\": {{}},\n   \"outputs\": [{{\"text\": [\n{output}\n   ]}}],\n   \"source\": [\n    \"import pandas as pd\"\n   ]\n  }}\n ]\n}}\n"
        ),
    );
    t.empty_repo("ws");
    t.commit("ws", "a notebook");
    let ws = t.path("ws");
    crate::common::git(&ws, &["config", "uploadpack.allowFilter", "true"]);
    crate::common::git(&ws, &["config", "uploadpack.allowAnySHA1InWant", "true"]);
    let url = format!("file://{}", ws.display());
    let clone = t.path("clone");
    crate::common::git(
        t.dir(),
        &[
            "clone",
            "-q",
            "--filter=blob:limit=1k",
            "--no-checkout",
            &url,
            &clone.display().to_string(),
        ],
    );
    for _ in 0..2 {
        let v = t.json(&["drift"]);
        assert!(findings(&v).is_empty(), "{v}");
        assert!(
            unsure(&v).iter().any(|d| d.starts_with(
                "graph unused pandas: py/explore.ipynb was not read: its blob is not in the repository"
            )),
            "{v}"
        );
    }
    let blob = crate::common::git(&clone, &["rev-parse", "HEAD:py/explore.ipynb"]);
    crate::common::git(&clone, &["cat-file", "-p", blob.trim()]);
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["graph dev-only pandas"], "{v}");
}

/// An application keeping its dependencies in `requirements.txt` (a Django API whose Docker
/// image runs `pip install -r requirements.txt`) beside a pyproject.toml that declares none:
/// the file and what it `-r` includes are its declarations; the other files of a
/// requirements directory are its developers' environments; what the pinned environment
/// holds and no code imports is unsure (a framework loads it by a name in its settings, a
/// script runs it). A Django app's distribution drops `django-` on import.
#[test]
fn an_application_s_requirements_txt_declares_when_its_pyproject_does_not() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "api", "api");
    t.write(
        "ws/api/pyproject.toml",
        "[project]\nname = \"api\"\nversion = \"1.0\"\n\n[tool.ruff]\nline-length = 120\n",
    );
    t.write(
        "ws/api/requirements.txt",
        "# for hosts that look here\n-r requirements/production.txt\n",
    );
    t.write(
        "ws/api/requirements/production.txt",
        "-r base.txt\ngunicorn==23.0.0\n",
    );
    t.write(
        "ws/api/requirements/base.txt",
        "Django==4.2\ndjango-gizmo==0.7.9\ncelery==5.4.0\n",
    );
    t.write("ws/api/requirements/test.txt", "-r base.txt\npytest==8.0\n");
    t.write(
        "ws/api/requirements/README.txt",
        "Permission to pin these is granted.\nsix of one\n",
    );
    // A library whose pyproject declares only its development group, and whose
    // requirements.txt is its developers' environment: what that file lists and only tests
    // use, or nothing imports, is unsure, never a sure dev-only.
    module(&t, "lib", "lib");
    t.write(
        "ws/lib/pyproject.toml",
        "[project]\nname = \"lib\"\nversion = \"1.0\"\n\n[dependency-groups]\ndev = [\"pytest\"]\n",
    );
    t.write("ws/lib/requirements.txt", "pytest\nblack\n");
    t.write("ws/lib/lib/__init__.py", "import json\n");
    t.write("ws/lib/tests/test_lib.py", "import pytest\n");
    t.write(
        "ws/api/app/views.py",
        "import django\nfrom gizmo import get_current_user\nimport requests\n",
    );
    t.write(
        "ws/api/app/tests/test_views.py",
        "import pytest\nimport six\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "an application");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        ["api undeclared requests", "api undeclared six"],
        "a README in the requirements directory declares nothing: {v}"
    );
    assert_eq!(
        v["drift"][0]["manifest"], "api/requirements.txt",
        "an undeclared import is named against the file a person adds it to: {v}"
    );
    let u = unsure(&v);
    assert!(
        u.iter().any(|d| d.starts_with(
            "api unused celery: api/requirements/base.txt pins the application's environment"
        )),
        "{v}"
    );
    assert!(
        u.iter()
            .any(|d| d.starts_with("api unused gunicorn: api/requirements/production.txt pins")),
        "{v}"
    );
    // `gizmo` may be django-gizmo's import (no table knows it): a name guess, neither sure.
    assert!(
        u.iter().any(|d| d.starts_with("api undeclared gizmo:")),
        "{v}"
    );
}

/// React Router (and Remix) builds its own server entry when the app keeps none, and that
/// default imports `isbot` and the framework's Node adapter from the app's dependencies;
/// an app with its own `entry.server.tsx` imports what it uses itself.
#[test]
fn a_framework_s_default_server_entry_uses_what_it_imports() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    for name in ["plain", "custom"] {
        module(&t, name, name);
        t.write(
            &format!("ws/{name}/package.json"),
            &format!(
                r#"{{"name": "{name}", "dependencies": {{"react-router": "7", "isbot": "5", "@react-router/node": "7"}}, "devDependencies": {{"@react-router/dev": "7"}}, "scripts": {{"build": "react-router build"}}}}"#
            ),
        );
        t.write(
            &format!("ws/{name}/app/root.tsx"),
            "import { Outlet } from 'react-router'\nexport default function App() { return <Outlet /> }\n",
        );
    }
    // A docs example's server entry is no app's own.
    t.write(
        "ws/plain/docs/examples/streaming/entry.server.tsx",
        "import { ServerRouter } from 'react-router'\nexport default function handleRequest() {}\n",
    );
    t.write(
        "ws/custom/app/entry.server.tsx",
        "import { ServerRouter } from 'react-router'\nexport default function handleRequest() {}\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "two apps");
    let v = t.json(&["drift"]);
    let sure = findings(&v);
    assert!(sure.contains(&"custom unused isbot".to_string()), "{v}");
    assert!(
        !sure
            .iter()
            .chain(&unsure(&v))
            .any(|f| f.starts_with("plain ")),
        "{v}"
    );
    let e = explained(&t, "plain", "isbot");
    assert!(
        e.contains("@react-router/dev builds its default one, which imports isbot"),
        "{e}"
    );
}

/// TypeScript code may name React's types through the global namespace `@types/react`
/// declares (`message: string | React.ReactNode`) with no import: `@types/react` is used.
/// A comment's `React.FC` is no such use.
#[test]
fn react_s_global_namespace_uses_its_types() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    for name in ["constants", "notes"] {
        module(&t, name, name);
        t.write(
            &format!("ws/{name}/package.json"),
            &format!(
                r#"{{"name": "{name}", "devDependencies": {{"@types/react": "19", "typescript": "5"}}}}"#
            ),
        );
    }
    t.write(
        "ws/constants/src/auth.ts",
        "export type Message = { message: string | React.ReactNode };\n",
    );
    t.write(
        "ws/notes/src/auth.ts",
        "// a React.FC would do here\nexport type Message = { message: string };\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "types");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["notes unused @types/react"], "{v}");
}

/// A file named like a config is a tool's, unless it is code: an app's runtime module its
/// start-up hook imports (`observability.config.ts` from `instrumentation.ts`), the configs a
/// package made of nothing else ships (a shared `tailwind-config` package). A test runner's
/// config naming test files by a suffix of its own (`include: ['src/**/*.clienttest.tsx']`)
/// makes them tests wherever they lie.
#[test]
fn configs_that_are_code_and_tests_a_runner_names_by_suffix() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "web", "web");
    t.write(
        "ws/web/package.json",
        r#"{"name": "web", "private": true, "dependencies": {"dd-trace": "5", "react": "19"}, "devDependencies": {"@testing-library/react": "16", "vitest": "3", "prettier": "3"}, "scripts": {"test": "vitest"}}"#,
    );
    t.write(
        "ws/web/src/instrumentation.ts",
        "export async function register() { await import('./observability.config') }\n",
    );
    t.write(
        "ws/web/src/observability.config.ts",
        "import tracer from 'dd-trace'\nexport default tracer\n",
    );
    t.write(
        "ws/web/src/App.tsx",
        "import { useState } from 'react'\nexport const App = () => useState(0)\n",
    );
    t.write(
        "ws/web/src/App.clienttest.tsx",
        "import { render } from '@testing-library/react'\nimport { test } from 'vitest'\n",
    );
    t.write(
        "ws/web/vitest.config.ts",
        "export default { test: { include: ['src/**/*.clienttest.{ts,tsx}'], coverage: { include: ['src/**'] } } }\n",
    );
    module(&t, "tailwind-config", "tailwind-config");
    t.write(
        "ws/tailwind-config/package.json",
        r#"{"name": "@x/tailwind-config", "main": "tailwind.config.ts", "dependencies": {"@tailwindcss/forms": "0.5"}, "devDependencies": {"tailwindcss": "3"}}"#,
    );
    t.write(
        "ws/tailwind-config/themes.css",
        "@import 'tailwindcss/base';\n",
    );
    t.write(
        "ws/tailwind-config/tailwind.config.ts",
        "import forms from '@tailwindcss/forms'\nexport default { plugins: [forms] }\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "configs");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["web unused prettier"], "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
}

/// A framework imports the companion its feature needs itself (starlette parses a form with
/// `python-multipart`): declared beside it and never imported, it is unsure, while a
/// dependency nothing loads stays unused. A mypy plugin a package ships imports mypy, which
/// mypy brings when it loads the plugin (strawberry's `ext/mypy_plugin.py`).
#[test]
fn a_framework_s_companion_and_a_tool_s_plugin_are_not_sure_drift() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "api", "api");
    t.write(
        "ws/api/pyproject.toml",
        "[project]\nname = \"api\"\nversion = \"1.0\"\ndependencies = [\"starlette\", \"python-multipart\", \"rich\"]\n",
    );
    t.write(
        "ws/api/api/__init__.py",
        "from starlette.applications import Starlette\n",
    );
    t.write(
        "ws/api/api/mypy_plugin.py",
        "from mypy.plugin import Plugin\nfrom mypy.nodes import Var\n\ndef plugin(version):\n    return Plugin\n",
    );
    t.write("ws/api/api/check.py", "import yaml\n");
    t.empty_repo("ws");
    t.commit("ws", "an app");
    let v = t.json(&["drift"]);
    let sure = findings(&v);
    assert_eq!(sure, ["api undeclared pyyaml", "api unused rich"], "{v}");
    let doubts = unsure(&v);
    assert!(
        doubts
            .iter()
            .any(|f| f.starts_with("api unused python-multipart: starlette")),
        "{v}"
    );
    assert!(
        doubts
            .iter()
            .any(|f| f.starts_with("api undeclared mypy: ") && f.contains("a plugin of mypy")),
        "{v}"
    );
}

/// Files run by hand by their directories' names: the sources of a docs site's examples
/// (typer's `docs_src/`, whose tutorials `import items` beside `items.py` in a package
/// directory), tests no runner collects (`core_manual_tests/`). Their undeclared imports are
/// unsure; shipped code's are not, nor a demo file's beside the manifest (an examples
/// package's own code).
#[test]
fn files_run_by_hand_by_their_names_are_unsure_of_undeclared() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "cli", "cli");
    t.write(
        "ws/cli/pyproject.toml",
        "[project]\nname = \"cli\"\nversion = \"1.0\"\ndependencies = [\"click\"]\n",
    );
    t.write("ws/cli/cli/__init__.py", "import click\nimport attrs\n");
    t.write("ws/cli/docs_src/__init__.py", "");
    t.write("ws/cli/docs_src/tutorial001/__init__.py", "");
    t.write(
        "ws/cli/docs_src/tutorial001/main.py",
        "import click\nimport items\n",
    );
    t.write("ws/cli/docs_src/tutorial001/items.py", "import click\n");
    t.write(
        "ws/cli/tests/core_manual_tests/canary.py",
        "import ollama\n",
    );
    t.write("ws/cli/llamaindex_demo.py", "import dotenv\n");
    t.empty_repo("ws");
    t.commit("ws", "a cli");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        ["cli undeclared attrs", "cli undeclared python-dotenv"],
        "{v}"
    );
    let doubts = unsure(&v);
    for name in ["items", "ollama"] {
        assert!(
            doubts
                .iter()
                .any(|f| f.starts_with(&format!("cli undeclared {name}: "))),
            "{name}: {v}"
        );
    }
}

/// A package other packages are nested below serves them: Node resolves their imports through
/// its `node_modules` (better-auth's test umbrella declares the database drivers its adapters'
/// test packages import), so what they import is used, and `@types/x` with `x`.
#[test]
fn a_package_serves_the_packages_below_it() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "e2e/adapter", "adapter");
    module(&t, "e2e/adapter/test/kysely", "kysely");
    t.write(
        "ws/package.json",
        r#"{"name": "root", "private": true, "workspaces": ["e2e/**"]}"#,
    );
    t.write(
        "ws/e2e/adapter/package.json",
        r#"{"name": "adapter", "private": true, "devDependencies": {"mysql2": "3", "@types/pg": "8", "pg": "8", "leftpad": "1"}}"#,
    );
    t.write(
        "ws/e2e/adapter/test/kysely/package.json",
        r#"{"name": "kysely", "private": true, "scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "3"}}"#,
    );
    t.write(
        "ws/e2e/adapter/test/kysely/mysql.test.ts",
        "import { createPool } from 'mysql2/promise'\nimport { Pool } from 'pg'\nimport { test } from 'vitest'\ntest('x', () => { createPool(); new Pool() })\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "a workspace");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["adapter unused leftpad"], "{v}");
}

/// Deno's registry specifiers name a declared package (`jsr:@std/testing/mock` is
/// `@std/testing`) and owe none (`npm:chalk@5` fetches chalk); a triple-slash
/// `<reference types>` naming an `@types` package uses it.
#[test]
fn registry_specifiers_and_type_references_answer_declarations() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "utils", "utils");
    t.write(
        "ws/utils/package.json",
        r#"{"name": "utils", "version": "1.0.0", "dependencies": {"@std/testing": "jsr:^1.0.19", "@std/expect": "jsr:^1"}, "devDependencies": {"@types/google.accounts": "0.0.14", "typescript": "5"}}"#,
    );
    t.write(
        "ws/utils/src/index.ts",
        "/// <reference types=\"@types/google.accounts\" />\nimport { spy } from \"jsr:@std/testing@^1/mock\";\nimport chalk from \"npm:chalk@5\";\nexport const s = spy(); export const c = chalk;\n",
    );
    t.write("ws/utils/tsconfig.json", "{}\n");
    t.empty_repo("ws");
    t.commit("ws", "deno");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["utils unused @std/expect"], "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
}

/// A `requirements.txt` nested in a Python module is an application of its own (camel's
/// `apps/dilemma/`): an import of its files that it does not list is its to declare, unsure
/// for the module; a test environment's (`tests/requirements.txt`) is the module's tests',
/// so an import it misses stays sure.
#[test]
fn a_nested_application_s_requirements_declare_for_its_files() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "lib", "lib");
    t.write(
        "ws/lib/pyproject.toml",
        "[project]\nname = \"lib\"\nversion = \"1.0\"\ndependencies = [\"requests\"]\n",
    );
    t.write("ws/lib/lib/__init__.py", "import requests\n");
    t.write(
        "ws/lib/apps/dilemma/requirements.txt",
        "cloud-sql-python-connector==1.0\nstreamlit\n",
    );
    t.write(
        "ws/lib/apps/dilemma/db.py",
        "import streamlit\nfrom google.cloud.sql.connector import Connector\n",
    );
    t.write("ws/lib/tests/requirements.txt", "pytest\n");
    t.write(
        "ws/lib/tests/test_lib.py",
        "import pytest\nimport responses\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "an app beside");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["lib undeclared responses"], "{v}");
    assert!(
        unsure(&v)
            .iter()
            .any(|f| f.starts_with("lib undeclared google-cloud-sql: ")
                && f.contains("apps/dilemma/requirements.txt")),
        "{v}"
    );
}

/// A Deno import map a test runs with (`deno test --import-map=test.importmap.json`) names
/// files, not packages: an import it maps to a path (openstatus' `@openstatus/analytics-real`)
/// owes no declaration.
#[test]
fn an_import_map_names_files_not_packages() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "server", "server");
    t.write(
        "ws/server/package.json",
        r#"{"name": "server", "private": true, "scripts": {"test": "deno test --import-map=test.importmap.json"}, "dependencies": {"hono": "4"}}"#,
    );
    t.write(
        "ws/server/test.importmap.json",
        r#"{"imports": {"@acme/analytics-real": "../analytics/src/index.ts", "chalk": "npm:chalk@5"}}"#,
    );
    t.write(
        "ws/analytics/src/index.ts",
        "export const track = () => {}\n",
    );
    t.write(
        "ws/server/src/app.ts",
        "import { Hono } from 'hono'\nexport const app = new Hono()\n",
    );
    t.write(
        "ws/server/src/app.test.ts",
        "import { track } from '@acme/analytics-real'\nimport { app } from './app.ts'\nimport { gone } from '@acme/missing'\ntrack(); app; gone\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "deno");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["server undeclared @acme/missing"], "{v}");
}

/// Round 27's Python shapes (khoj, docling): starlette's session middleware imports
/// `itsdangerous` itself; a Django app's import name drops the framework's word
/// (`widgetry_field` of a `django-widgetry-field` no table knows, a guess either way, as
/// `phonenumber_field` was before Debian trixie's table); a Python wrapper
/// of a tool runs the tool's command in a runner's command position (`uv run dprint` for
/// `dprint-py`; `apt-get install ffmpeg` runs no `ffmpeg-python`). A dependency nothing
/// loads stays unused.
#[test]
fn a_framework_s_settings_features_and_wrappers_make_no_sure_drift() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"1.0\"\ndependencies = [\"django\", \"starlette\", \"itsdangerous\", \"django-widgetry-field\", \"rich\", \"ffmpeg-python\"]\n\n[dependency-groups]\ndev = [\"dprint-py\"]\n",
    );
    t.write(
        "ws/app/app/settings.py",
        "DATABASES = {\"default\": {\"ENGINE\": \"django.db.backends.postgresql\"}}\nimport django\n",
    );
    t.write(
        "ws/app/app/web.py",
        "from starlette.applications import Starlette\nfrom starlette.middleware.sessions import SessionMiddleware\nfrom widgetry_field.modelfields import PhoneNumberField\n",
    );
    t.write(
        "ws/app/Makefile",
        "fmt:\n\tuv run dprint check\nsetup:\n\tsudo apt-get install -y ffmpeg\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "an app");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        ["app unused ffmpeg-python", "app unused rich"],
        "{v}"
    );
    let doubts = unsure(&v);
    assert!(
        doubts
            .iter()
            .any(|f| f.starts_with("app unused django-widgetry-field")),
        "{v}"
    );
    assert!(
        doubts
            .iter()
            .any(|f| f.starts_with("app undeclared ") && f.contains("django-widgetry-field")),
        "{v}"
    );
    let e = explained(&t, "app", "itsdangerous");
    assert!(e.contains("starlette.middleware.sessions"), "{e}");
}

/// A pyproject.toml of tools' settings beside a `setup.py` that computes what it declares
/// (huggingface_hub's root): the dependencies are in the `setup.py`, which mesh does not run,
/// so the module is unchecked — never every import called undeclared. A `setup.py` it can
/// read declares as ever.
#[test]
fn a_tool_settings_pyproject_beside_a_computed_setup_py_is_unchecked() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    for name in ["hub", "lit"] {
        module(&t, name, name);
        t.write(
            &format!("ws/{name}/pyproject.toml"),
            "[tool.ruff]\nline-length = 119\n",
        );
        t.write(
            &format!("ws/{name}/{name}/__init__.py"),
            "import requests\nimport tqdm\n",
        );
    }
    t.write(
        "ws/hub/setup.py",
        "from setuptools import setup\n\ndef deps():\n    return ['requests', 'tqdm']\n\nsetup(name='hub', install_requires=deps())\n",
    );
    t.write(
        "ws/lit/setup.py",
        "from setuptools import setup\n\nsetup(name='lit', install_requires=['requests'])\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "two packages");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["lit undeclared tqdm"], "{v}");
    let unchecked: Vec<&str> = (v["unchecked"].as_array().expect("an unchecked list").iter())
        .filter_map(|u| u["module"].as_str())
        .collect();
    assert_eq!(unchecked, ["hub"], "{v}");
}

/// A test directory's script that defines no test but a `__main__` block (crawl4ai's
/// `tests/memory/test_stress_api.py`, a stress tester run against a live server) is run by a
/// person, not collected by a runner: its undeclared imports are unsure. A test file's stay
/// sure, a `__main__` block beside its tests or not, and so do a script's the module's
/// commands run (browser-use's CI runs `tests/ci/evaluate_tasks.py`).
#[test]
fn a_test_directory_s_script_is_unsure_of_undeclared() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "crawler", "crawler");
    t.write(
        "ws/crawler/pyproject.toml",
        "[project]\nname = \"crawler\"\nversion = \"1.0\"\ndependencies = [\"httpx\"]\n",
    );
    t.write("ws/crawler/crawler/__init__.py", "import httpx\n");
    t.write(
        "ws/crawler/tests/test_stress.py",
        "import typer\nimport crawler\napp = typer.Typer()\nif __name__ == \"__main__\":\n    app()\n",
    );
    t.write(
        "ws/crawler/tests/test_fetch.py",
        "import respx\nimport crawler\ndef test_fetch():\n    pass\nif __name__ == \"__main__\":\n    test_fetch()\n",
    );
    // One its Makefile runs, by path or as a module, is run in the project's environment:
    // owed. So is what pytest's `conftest.py` and a helper the tests import import.
    t.write(
        "ws/crawler/Makefile",
        "bench:\n\tpython tests/ci/bench.py\n\tpython -m tests.ci.modrun\n",
    );
    t.write(
        "ws/crawler/tests/ci/bench.py",
        "import yaml\nif __name__ == \"__main__\":\n    print(yaml)\n",
    );
    t.write(
        "ws/crawler/tests/ci/modrun.py",
        "import toml\nif __name__ == \"__main__\":\n    print(toml)\n",
    );
    t.write(
        "ws/crawler/tests/conftest.py",
        "import fakeredis\nif __name__ == \"__main__\":\n    pass\n",
    );
    t.write(
        "ws/crawler/tests/helpers.py",
        "import freezegun\nif __name__ == \"__main__\":\n    pass\n",
    );
    t.write(
        "ws/crawler/tests/test_time.py",
        "from tests.helpers import freezegun\ndef test_time():\n    pass\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "a crawler");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        [
            "crawler undeclared fakeredis",
            "crawler undeclared freezegun",
            "crawler undeclared pyyaml",
            "crawler undeclared respx",
            "crawler undeclared toml"
        ],
        "{v}"
    );
    assert!(
        unsure(&v)
            .iter()
            .any(|f| f.starts_with("crawler undeclared typer: ") && f.contains("defines no test")),
        "{v}"
    );
}

/// A `docs` extra's toolchain (Sphinx, its theme and extensions) is named by the docs'
/// config, never imported. With no config in the module (google/adk-python builds its docs
/// elsewhere), whether they are used only that build tells: unsure. Beside a `conf.py` that
/// names none of it, a theme is a leftover, sure; one only the docs extra does not hold too.
#[test]
fn a_docs_toolchain_built_elsewhere_is_unsure() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "agent", "agent");
    module(&t, "site", "site");
    let pyproject = |name: &str| {
        format!(
            "[project]\nname = \"{name}\"\nversion = \"1.0\"\ndependencies = [\"httpx\", \"myst-parser\"]\n[project.optional-dependencies]\ndocs = [\"furo\", \"myst-parser\"]\n"
        )
    };
    t.write("ws/agent/pyproject.toml", &pyproject("agent"));
    t.write("ws/agent/agent/__init__.py", "import httpx\n");
    t.write("ws/site/pyproject.toml", &pyproject("site"));
    t.write("ws/site/site/__init__.py", "import httpx\n");
    t.write(
        "ws/site/docs/conf.py",
        "project = 'site'\nhtml_theme = 'alabaster'\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "two packages with docs extras");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        [
            "agent unused myst-parser",
            "site unused furo",
            "site unused myst-parser"
        ],
        "{v}"
    );
    assert!(
        unsure(&v)
            .iter()
            .any(|f| f.starts_with("agent unused furo: ") && f.contains("built from elsewhere")),
        "{v}"
    );
}

/// An Electron app's main process `require('electron')`s the runtime's built-in module; the
/// `electron` package downloads the runtime, and belongs among the dev dependencies where
/// packagers read its version: never shipped-dev in an app it runs (its commands run it, or it
/// declares a packager). Another dev package its code imports is, and so is `electron` in a
/// CLI that spawns the binary.
#[test]
fn the_runtime_a_program_runs_in_is_no_shipped_dev() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "desktop", "desktop");
    t.write(
        "ws/desktop/package.json",
        r#"{"name": "desktop", "main": "main.js", "scripts": {"start": "electron ."}, "devDependencies": {"electron": "30", "lodash": "4"}}"#,
    );
    t.write(
        "ws/desktop/main.js",
        "const { app } = require('electron')\nconst _ = require('lodash')\napp.whenReady()\n",
    );
    // A CLI that spawns the binary whose path `require('electron')` gives needs the
    // package where it runs: owed.
    module(&t, "launcher", "launcher");
    t.write(
        "ws/launcher/package.json",
        r#"{"name": "launcher", "bin": {"run-app": "cli.js"}, "devDependencies": {"electron": "30"}}"#,
    );
    t.write(
        "ws/launcher/cli.js",
        "const bin = require('electron')\nrequire('child_process').spawn(bin, ['.'])\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "an electron app");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        [
            "desktop shipped-dev lodash",
            "launcher shipped-dev electron"
        ],
        "{v}"
    );
}

/// A package another declaration requires, declared beside it in one extra (lerobot's
/// `pymunk>=6.6,<7` beside `gym-pusht` in its `pusht` extra), caps what the extra's users get:
/// unsure. Not so in the shipping list, an extra of development tools (`dev`), nor an extra
/// of everything (`all`), which pairs every two: a leftover there stays sure.
#[test]
fn a_transitive_package_beside_its_requirer_in_an_extra_is_unsure() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "robot", "robot");
    t.write(
        "ws/robot/pyproject.toml",
        "[project]\nname = \"robot\"\ndependencies = [\"chromadb\", \"tokenizers\"]\n[project.optional-dependencies]\npusht = [\"gym-pusht\", \"pymunk>=6.6,<7\"]\nall = [\"gym-pusht\", \"left-y\"]\ndev = [\"pytest\", \"pluggy\"]\n",
    );
    t.write(
        "ws/robot/robot/__init__.py",
        "import chromadb\nimport gym_pusht\n",
    );
    t.write(
        "ws/robot/uv.lock",
        "version = 1\n\n[[package]]\nname = \"chromadb\"\nversion = \"0.5.0\"\ndependencies = [{ name = \"tokenizers\" }]\n\n[[package]]\nname = \"gym-pusht\"\nversion = \"0.1\"\ndependencies = [{ name = \"pymunk\" }, { name = \"left-y\" }]\n\n[[package]]\nname = \"pytest\"\nversion = \"8\"\ndependencies = [{ name = \"pluggy\" }]\n",
    );
    t.write(
        "ws/robot/tests/test_robot.py",
        "import pytest\nimport robot\ndef test_robot():\n    pass\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "a robot with extras");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        [
            "robot unused left-y",
            "robot unused pluggy",
            "robot unused tokenizers"
        ],
        "{v}"
    );
    assert!(
        unsure(&v)
            .iter()
            .any(|f| f.starts_with("robot unused pymunk: gym-pusht, also declared, depends on it")),
        "{v}"
    );
}

/// An app whose own tsconfig maps a workspace library's name to its source
/// (`@acme/server/*` → `../../packages/server/src/*`) compiles that source into its bundle,
/// whose bare imports then resolve from the app's `node_modules` (dokploy, logto): what the
/// library's code imports, declared by the app, is unsure. A dependency neither imports
/// stays sure, so does what only the library's tests import, an alias only a test imports
/// through compiles nothing shipped, an app compiled file by file (`tsc`) bundles none, and
/// a published sibling resolves as its built entry (the alias is for types).
#[test]
fn an_alias_to_a_sibling_s_source_ships_what_it_imports() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "apps/web", "web");
    module(&t, "packages/server", "server");
    module(&t, "packages/ui", "ui");
    t.write(
        "ws/apps/web/package.json",
        r#"{"name": "web", "scripts": {"build": "vite build"}, "dependencies": {"drizzle-orm": "1", "left-pad": "1", "react-icons": "5", "msw": "2", "chalk": "5"}}"#,
    );
    // An app compiled file by file (`tsc`): the alias is for types, the import of the
    // library's name resolves from `node_modules` at run time.
    module(&t, "apps/api", "api");
    t.write(
        "ws/apps/api/package.json",
        r#"{"name": "api", "scripts": {"build": "tsc"}, "dependencies": {"drizzle-orm": "1"}}"#,
    );
    t.write(
        "ws/apps/api/tsconfig.json",
        r#"{"compilerOptions": {"paths": {"@acme/server/*": ["../../packages/server/src/*"]}}}"#,
    );
    t.write(
        "ws/apps/api/src/index.ts",
        "import { db } from '@acme/server/db'\nexport const x = db\n",
    );
    t.write(
        "ws/apps/web/tsconfig.json",
        r#"{"compilerOptions": {"paths": {"@acme/server/*": ["../../packages/server/src/*"], "@acme/ui/*": ["../../packages/ui/src/*"], "@acme/kit/*": ["../../packages/kit/src/*"]}}}"#,
    );
    t.write(
        "ws/apps/web/src/index.ts",
        "import { db } from '@acme/server/db'\nimport { k } from '@acme/kit/k'\nexport const x = [db, k]\n",
    );
    // A published sibling resolves as its built entry at run time: the alias is for types.
    module(&t, "packages/kit", "kit");
    t.write(
        "ws/packages/kit/package.json",
        r#"{"name": "@acme/kit", "main": "dist/index.js", "dependencies": {"chalk": "5"}}"#,
    );
    t.write(
        "ws/packages/kit/src/k.ts",
        "import chalk from 'chalk'\nexport const k = chalk\n",
    );
    t.write(
        "ws/apps/web/src/index.test.ts",
        "import { Icon } from '@acme/ui/icon'\nexport const y = Icon\n",
    );
    t.write(
        "ws/packages/server/package.json",
        r#"{"name": "@acme/server", "main": "./src/index.ts", "exports": {".": "./src/index.ts", "./db": {"import": "./src/db.ts", "require": "./dist/db.cjs"}}, "dependencies": {"drizzle-orm": "1"}}"#,
    );
    t.write(
        "ws/packages/server/src/db.ts",
        "import { drizzle } from 'drizzle-orm'\nexport const db = drizzle()\n",
    );
    // What only the library's tests import is no part of a bundle of its source.
    t.write(
        "ws/packages/server/src/db.test.ts",
        "import { setupServer } from 'msw/node'\nexport const s = setupServer\n",
    );
    t.write(
        "ws/packages/ui/package.json",
        r#"{"name": "@acme/ui", "private": true, "dependencies": {"react-icons": "5"}}"#,
    );
    t.write(
        "ws/packages/ui/src/icon.ts",
        "import { FaBeer } from 'react-icons/fa'\nexport const Icon = FaBeer\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "an app compiling a library's source");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        [
            "api unused drizzle-orm",
            "server undeclared msw",
            "web unused chalk",
            "web unused left-pad",
            "web unused msw",
            "web unused react-icons"
        ],
        "{v}"
    );
    assert!(
        unsure(&v).iter().any(|f| f
            .starts_with("web unused drizzle-orm: its code imports server's files by path or an alias to them (apps/web/src/index.ts:1)")),
        "{v}"
    );
}

/// An ORM loads its database driver by the name its config gives (`dialect: "postgres"`
/// makes sequelize require `pg`; outline's server): an unused driver beside a used ORM that
/// loads drivers so is unsure. Beside an ORM nothing uses, it stays sure.
#[test]
fn a_driver_an_orm_loads_by_name_is_unsure() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "server", "server");
    module(&t, "worker", "worker");
    t.write(
        "ws/server/package.json",
        r#"{"name": "server", "dependencies": {"sequelize": "6", "pg": "8", "left-pad": "1"}}"#,
    );
    t.write(
        "ws/server/index.js",
        "const { Sequelize } = require('sequelize')\nmodule.exports = new Sequelize({ dialect: 'postgres' })\n",
    );
    t.write(
        "ws/worker/package.json",
        r#"{"name": "worker", "dependencies": {"knex": "3", "mysql2": "3"}}"#,
    );
    t.write("ws/worker/index.js", "module.exports = 1\n");
    t.empty_repo("ws");
    t.commit("ws", "an orm and its driver");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        [
            "server unused left-pad",
            "worker unused knex",
            "worker unused mysql2"
        ],
        "{v}"
    );
    assert!(
        unsure(&v).iter().any(|f| f
            .starts_with("server unused pg: sequelize, also declared, loads a database driver")),
        "{v}"
    );
}

/// An application whose package build names some of its packages (`[tool.setuptools]
/// packages = ["api"]`) and whose image copies more (`COPY common common`: ragflow's data
/// connectors, run by its entrypoint): what the image copies ships, so a shipping dependency
/// only `common/` imports is used, not dev-only. A directory neither names stays dev code.
#[test]
fn what_an_image_copies_is_shipped_code() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"1.0\"\ndependencies = [\"flask\", \"jira\", \"rich\"]\n[tool.setuptools]\npackages = [\"api\"]\n",
    );
    t.write("ws/app/api/__init__.py", "import flask\n");
    t.write("ws/app/common/jira_connector.py", "import jira\n");
    t.write("ws/app/tools/report.py", "import rich\n");
    t.write(
        "ws/app/Dockerfile",
        "FROM python:3.12\nCOPY pyproject.toml ./\nCOPY api api\nCOPY common common\nCMD [\"python\", \"-m\", \"api\"]\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "an app and its image");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app dev-only rich"], "{v}");
}

/// A framework the code imports that no declaration names (another dependency brings it:
/// ragflow's `pandas`, commented out of its list) loads a companion by name as a declared one
/// does (`pd.read_excel(f, engine="calamine")` → `python-calamine`): unsure when unused. A
/// declaration no framework loads stays sure.
#[test]
fn a_companion_of_an_imported_undeclared_framework_is_unsure() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "rag", "rag");
    t.write(
        "ws/rag/pyproject.toml",
        "[project]\nname = \"rag\"\nversion = \"1.0\"\ndependencies = [\"xgboost\", \"python-calamine\", \"left-y\"]\n",
    );
    t.write(
        "ws/rag/rag/__init__.py",
        "import pandas as pd\nimport xgboost\ndef read(f):\n    return pd.read_excel(f, engine=\"calamine\")\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "a parser reading excel through pandas");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        ["rag unused left-y", "rag undeclared pandas"],
        "{v}"
    );
    assert!(
        unsure(&v)
            .iter()
            .any(|f| f.starts_with("rag unused python-calamine: pandas, which the code imports")),
        "{v}"
    );
}

#[test]
fn a_sys_path_change_built_from_the_file_and_ci_s_inline_installs_declare() {
    // A test package (`tests/__init__.py`) whose test puts its own directory on sys.path, and
    // one putting a sibling package's directory there through a name: what is in them is
    // the module's own, package or not. CI installs the test tools inline (`pip install 'pytest>=8' respx`) for
    // the repository's only Python module.
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "py", "lib");
    t.write(
        "ws/py/pyproject.toml",
        "[project]\nname = \"lib\"\nversion = \"1.0\"\ndependencies = []\n",
    );
    t.write("ws/py/lib/__init__.py", "");
    t.write("ws/py/tests/__init__.py", "");
    t.write("ws/py/tests/_shim_source.py", "X = 1\n");
    t.write(
        "ws/py/tests/test_shim.py",
        "import sys\nfrom pathlib import Path\nimport pytest\nsys.path.insert(0, str(Path(__file__).resolve().parent))\nimport _shim_source\n",
    );
    t.write("ws/py/tests/support/__init__.py", "");
    t.write("ws/py/tests/support/fake_server.py", "Y = 2\n");
    t.write(
        "ws/py/tests/unit/test_server.py",
        "import os, sys\nimport respx\nROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\nsys.path.append(os.path.join(ROOT, 'support'))\nimport fake_server\n",
    );
    t.write("ws/py/tests/unit/test_other.py", "import freezegun\n");
    t.write(
        "ws/.github/workflows/ci.yml",
        "jobs:\n  t:\n    steps:\n      - run: python -m pip install -e . 'pytest>=8' respx && pytest\n      - name: pip install freezegun, said not done\n      # - run: pip install freezegun (glances: a step commented out)\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "sys.path shapes");
    let v = t.json(&["drift"]);
    // Without the rules: `_shim_source` (a package's directory), `fake_server` for
    // test_server.py, `pytest` and `respx` would be undeclared.
    assert_eq!(findings(&v), ["lib undeclared freezegun"], "{v}");
    let e = explained(&t, "lib", "_shim_source");
    assert!(e.contains("tests/test_shim.py:4 puts on sys.path"), "{e}");
    let e = explained(&t, "lib", "fake_server");
    assert!(e.contains("`fake_server` is in `tests/support/`"), "{e}");
    let e = explained(&t, "lib", "respx");
    assert!(
        e.contains(".github/workflows/ci.yml:4 installs it in CI"),
        "{e}"
    );
}

#[test]
fn a_compiled_requirements_file_declares_only_what_its_in_file_asks_for() {
    // setuptools reads the dependencies from a file `uv pip compile` wrote: every transitive
    // package is pinned there too, saying who asked for it.
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"1.0\"\ndynamic = [\"dependencies\"]\n\n[tool.setuptools.dynamic]\ndependencies = { file = \"requirements.txt\" }\n",
    );
    t.write("ws/app/requirements/requirements.in", "httpx\nbackoff\n");
    t.write(
        "ws/app/requirements.txt",
        "# This file was autogenerated by uv via the following command:\n#    uv pip compile requirements/requirements.in\nanyio==4.12.1\n    # via httpx\nbackoff==2.2.1\n    # via -r requirements/requirements.in\nhttpx==0.28.1\n    # via -r requirements/requirements.in\nidna==3.10\n    # via\n    #   anyio\n    #   httpx\n",
    );
    t.write("ws/app/app/__init__.py", "import httpx\nimport idna\n");
    t.empty_repo("ws");
    t.commit("ws", "a compiled lock");
    let v = t.json(&["drift"]);
    // `anyio` came with httpx: no finding; `backoff` was asked for and is unused; `idna`,
    // imported, is pinned.
    assert_eq!(findings(&v), ["app unused backoff"], "{v}");
}

#[test]
fn a_setup_py_no_build_runs_is_unsure_of_what_it_imports() {
    // A `setup.py` shim beside a hatchling build (for tools that call `python setup.py`),
    // and one setuptools itself runs, which owes what it imports.
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "shim", "shim");
    t.write(
        "ws/shim/pyproject.toml",
        "[build-system]\nrequires = [\"hatchling\"]\nbuild-backend = \"hatchling.build\"\n\n[project]\nname = \"shim\"\nversion = \"1.0\"\ndependencies = [\"httpx\"]\n",
    );
    t.write("ws/shim/setup.py", "__import__(\"setuptools\").setup()\n");
    t.write("ws/shim/shim/__init__.py", "import httpx\n");
    module(&t, "built", "built");
    t.write(
        "ws/built/pyproject.toml",
        "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"built\"\nversion = \"1.0\"\ndependencies = []\n",
    );
    t.write(
        "ws/built/setup.py",
        "import setuptools\nimport versioneer\nsetuptools.setup(version=versioneer.get_version())\n",
    );
    t.write("ws/built/built/__init__.py", "");
    t.empty_repo("ws");
    t.commit("ws", "two setup.py files");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["built undeclared versioneer"], "{v}");
    assert!(
        unsure(&v)
            .iter()
            .any(|f| f.starts_with("shim undeclared setuptools: ")
                && f.contains("builds with hatchling.build, which never runs setup.py")),
        "{v}"
    );
}

#[test]
fn python_packages_in_another_language_s_module_may_use_a_declaration() {
    // A stray package.json above the module's `agents/` package makes `multi/` a JS module
    // of its own: mesh reads its Python files as that module's.
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"1.0\"\ndependencies = [\"httpx\", \"langgraph-sdk\", \"stale\"]\n",
    );
    t.write("ws/app/app/__init__.py", "import httpx\n");
    module(&t, "app/multi", "multi-js");
    t.write(
        "ws/app/multi/package.json",
        "{\"name\": \"multi-js\", \"version\": \"1.0.0\"}\n",
    );
    t.write("ws/app/multi/agents/__init__.py", "");
    t.write(
        "ws/app/multi/agents/graph.py",
        "from langgraph_sdk import get_client\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "a package.json over Python packages");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app unused stale"], "{v}");
    assert!(
        unsure(&v)
            .iter()
            .any(|f| f
                .starts_with("app unused langgraph-sdk: imported by app/multi/agents/graph.py:1")),
        "{v}"
    );
}

/// Three ways Python code uses a dependency no import statement shows: a Celery `tasks.py`
/// inside the package is shipped code (invoke's `tasks.py` is dev code at the root only);
/// a project's own optional importer (`attempt_import_or_raise("botocore")`) imports its
/// argument; a Sphinx config names an extension by its dotted module
/// (`"sphinxcontrib.openapi"`) and a logging config a class by its import name.
#[test]
fn celery_tasks_optional_importers_and_dotted_config_names_use_a_dependency() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "shop", "shop");
    t.write(
        "ws/shop/pyproject.toml",
        "[project]\nname = \"shop\"\ndependencies = [\"sendgrid\", \"botocore\", \"python-json-logger\", \"unused-thing\"]\n\n[dependency-groups]\ndev = [\"invoke\", \"sphinxcontrib-openapi\"]\n",
    );
    t.write("ws/shop/shop/__init__.py", "");
    t.write(
        "ws/shop/shop/mail/tasks.py",
        "from sendgrid import SendGridAPIClient\n",
    );
    t.write(
        "ws/shop/shop/storage.py",
        "from .util import attempt_import_or_raise\nboto = attempt_import_or_raise(\"botocore\")\n",
    );
    t.write(
        "ws/shop/shop/util.py",
        "import importlib\ndef attempt_import_or_raise(name):\n    return importlib.import_module(name)\n",
    );
    t.write(
        "ws/shop/shop/logging.yaml",
        "formatters:\n  json:\n    class: pythonjsonlogger.jsonlogger.JsonFormatter\n",
    );
    t.write("ws/shop/tasks.py", "from invoke import task\n");
    t.write(
        "ws/shop/docs/conf.py",
        "extensions = [\n    \"sphinxcontrib.openapi\",\n]\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "shop");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["shop unused unused-thing"], "{v}");
    let unsure = unsure(&v);
    for (dep, at) in [
        ("python-json-logger", "shop/shop/logging.yaml:3"),
        ("sphinxcontrib-openapi", "shop/docs/conf.py:2"),
    ] {
        assert!(
            unsure
                .iter()
                .any(|d| d.starts_with(&format!("shop unused {dep}: named at {at}"))),
            "{dep}: {v}"
        );
    }
    assert_eq!(unsure.len(), 2, "{v}");
}

/// A prebuilt wheel's distribution (`python-magic-bin`, Windows' build of what
/// `python-magic` installs elsewhere) provides the same import; poethepoet is configured by
/// `[tool.poe]`, a section named otherwise than the tool. Neither is unused.
#[test]
fn a_prebuilt_build_s_import_and_a_tool_s_own_section_name_use_a_dependency() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\ndependencies = [\n  \"python-magic; sys_platform != 'win32'\",\n  \"python-magic-bin; sys_platform == 'win32'\",\n]\n\n[dependency-groups]\ndev = [\"poethepoet\", \"unused-tool\"]\n\n[tool.poe.tasks]\nlint = \"echo lint\"\n",
    );
    t.write("ws/app/app/__init__.py", "import magic\n");
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app unused unused-tool"], "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
    assert!(
        explained(&t, "app", "poethepoet").contains("[tool.poe]"),
        "{}",
        explained(&t, "app", "poethepoet")
    );
}

/// A package an Nx target bundles (`@nx/esbuild:esbuild` with `thirdParty: true`, in
/// package.json's `nx` key or a `project.json` beside it) inlines what its shipped code
/// imports, so its dev dependencies are right there; esbuild leaving the packages outside
/// (no `thirdParty`) is no bundle of them.
#[test]
fn a_package_an_nx_target_bundles_may_import_its_dev_dependencies() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    let target = |third_party: bool| {
        format!(
            r#"{{"targets": {{"build": {{"executor": "@nx/esbuild:esbuild", "options": {{"bundle": true, "thirdParty": {third_party}}}}}}}}}"#
        )
    };
    for dir in ["embed", "project", "external"] {
        module(&t, dir, dir);
        let nx = match dir {
            "embed" => format!(r#", "nx": {}"#, target(true)),
            _ => String::new(),
        };
        t.write(
            &format!("ws/{dir}/package.json"),
            &format!(
                r#"{{"name": "{dir}", "scripts": {{"lint": "tsc --noEmit"}}, "devDependencies": {{"ky": "1", "typescript": "5"}}{nx}}}"#
            ),
        );
        t.write(
            &format!("ws/{dir}/src/index.ts"),
            "import ky from 'ky';\nexport const get = ky.get;\n",
        );
    }
    t.write("ws/project/project.json", &target(true));
    t.write("ws/external/project.json", &target(false));
    t.empty_repo("ws");
    t.commit("ws", "three packages");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["external shipped-dev ky"], "{v}");
}

/// A stylesheet importing a path into `node_modules` uses the package after it (paperless'
/// global `@import "node_modules/bootstrap/dist/css/bootstrap.css"`); a Python import under
/// `if "x" in sys.modules:` runs only where something imported `x` already, so nothing owes
/// it a declaration.
#[test]
fn a_stylesheet_path_into_node_modules_and_an_import_under_sys_modules() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "ui", "ui");
    t.write(
        "ws/ui/package.json",
        r#"{"name": "ui", "private": true, "scripts": {"build": "vite build"}, "dependencies": {"bootstrap": "5", "unused-thing": "1"}, "devDependencies": {"sass": "1", "vite": "5"}}"#,
    );
    t.write(
        "ws/ui/src/styles.scss",
        "@import \"node_modules/bootstrap/dist/css/bootstrap.css\";\n",
    );
    t.write("ws/ui/src/main.js", "import './styles.scss';\n");
    module(&t, "py", "py");
    t.write(
        "ws/py/pyproject.toml",
        "[project]\nname = \"py\"\ndependencies = []\n",
    );
    t.write(
        "ws/py/py/__init__.py",
        "import sys\n\ndef to_numpy(x):\n    if \"torch\" in sys.modules:\n        import torch\n        return torch.as_tensor(x)\n    return x\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "ui and py");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["ui unused unused-thing"], "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
}

/// A pyproject.toml whose dependencies a custom hatch hook fills (`dynamic =
/// ["dependencies"]`, `[tool.hatch.metadata.hooks.custom]`: netbox's reads the pinned
/// `requirements.txt` beside it): that file declares what ships.
#[test]
fn a_custom_hatch_hook_s_dependencies_are_the_requirements_beside_it() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[build-system]\nrequires = [\"hatchling\"]\nbuild-backend = \"hatchling.build\"\n\n[project]\nname = \"app\"\ndynamic = [\"version\", \"dependencies\"]\n\n[tool.hatch.metadata.hooks.custom]\npath = \"scripts/hatch_metadata.py\"\n",
    );
    t.write(
        "ws/app/requirements.txt",
        "Django==6.0.8\ndjango-filter==26.1\nunused-thing==1.0\n",
    );
    t.write(
        "ws/app/scripts/hatch_metadata.py",
        "from hatchling.metadata.plugin.interface import MetadataHookInterface\n\nclass Hook(MetadataHookInterface):\n    def update(self, metadata):\n        metadata[\"dependencies\"] = open(\"requirements.txt\").read().split()\n",
    );
    // A hook whose code names no requirements file fills them from elsewhere: not read.
    module(&t, "other", "other");
    t.write(
        "ws/other/pyproject.toml",
        "[project]\nname = \"other\"\ndynamic = [\"dependencies\"]\n\n[tool.hatch.metadata.hooks.custom]\n",
    );
    t.write("ws/other/hatch_build.py", "DEPS = [\"requests\"]\n");
    t.write("ws/other/requirements.txt", "pytest\n");
    t.write("ws/other/other/__init__.py", "import requests\n");
    t.write(
        "ws/app/app/__init__.py",
        "import django\nimport django_filters\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        ["app unused unused-thing", "other undeclared requests"],
        "{v}"
    );
}

/// Django imports the apps, middleware and authentication backends its settings list by
/// their dotted names (`"corsheaders"`, `"social_core.backends.github.GithubOAuth2"`): a
/// distribution only a settings list names is used.
#[test]
fn django_settings_lists_use_the_apps_they_name() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "site", "site");
    t.write(
        "ws/site/pyproject.toml",
        "[project]\nname = \"site\"\ndependencies = [\"django\", \"django-cors-headers\", \"social-auth-core\", \"unused-thing\"]\n",
    );
    t.write("ws/site/site/__init__.py", "");
    t.write(
        "ws/site/site/settings.py",
        "INSTALLED_APPS = [\n    \"django.contrib.admin\",\n    \"corsheaders\",\n]\nMIDDLEWARE = [\"corsheaders.middleware.CorsMiddleware\"]\nAUTHENTICATION_BACKENDS = (\"social_core.backends.github.GithubOAuth2\",)\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "site");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["site unused unused-thing"], "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
}

/// An application's dependency groups (uv's `package = false`): a group named for
/// development is dev, any other holds what a deployment installs (redash's `all_ds`), so
/// its packages are declared for shipped code, optionally.
#[test]
fn an_application_s_runtime_groups_declare_what_its_code_imports() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\ndependencies = [\"flask\"]\n\n[dependency-groups]\nall_ds = [\"openpyxl\", \"pymongo\"]\ndev = [\"pytest\", \"rich\"]\n\n[tool.uv]\npackage = false\n",
    );
    t.write(
        "ws/app/app/__init__.py",
        "import flask\nimport openpyxl\nimport rich\n",
    );
    t.write("ws/app/tests/test_app.py", "import pytest\n");
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    // A dev group is no deployment's: its package imported by shipped code is still owed.
    assert_eq!(
        findings(&v),
        ["app unused pymongo", "app undeclared rich"],
        "{v}"
    );
    // A package's groups are in no wheel, whatever their names.
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\ndependencies = [\"flask\"]\n\n[dependency-groups]\nall_ds = [\"openpyxl\", \"pymongo\"]\ndev = [\"pytest\", \"rich\"]\n",
    );
    t.commit("ws", "a package now");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        [
            "app undeclared openpyxl",
            "app unused pymongo",
            "app undeclared rich"
        ],
        "{v}"
    );
}

/// Hatch's custom build hook is build code, whatever ships it (onyx's CLI `include`s every
/// `.py`): `[build-system] requires` declares what it imports. A file that asks whether a
/// module is installed (`find_spec("x")`) imports it optionally; a test file skipped
/// without a module (`pytestmark = pytest.mark.skip`) imports it optionally throughout.
#[test]
fn build_hooks_installed_checks_and_skipped_test_files() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "cli", "cli");
    t.write(
        "ws/cli/pyproject.toml",
        "[build-system]\nrequires = [\"hatchling\", \"manygo\"]\nbuild-backend = \"hatchling.build\"\n\n[project]\nname = \"cli\"\ndependencies = []\n\n[dependency-groups]\ndev = [\"pytest\"]\n\n[tool.hatch.build]\ninclude = [\"**/*.py\"]\n\n[tool.hatch.build.targets.wheel.hooks.custom]\npath = \"hatch_build.py\"\n",
    );
    t.write(
        "ws/cli/hatch_build.py",
        "import manygo\nfrom hatchling.builders.hooks.plugin.interface import BuildHookInterface\n",
    );
    t.write(
        "ws/cli/cli/__init__.py",
        "from importlib.util import find_spec\n\nHAS_XL = find_spec(\"openpyxl\") is not None\nif HAS_XL:\n    import openpyxl\nimport yaml\n",
    );
    t.write(
        "ws/cli/tests/test_sdk.py",
        "import pytest\ntry:\n    from databricks.sdk import WorkspaceClient\nexcept ImportError:\n    pytestmark = pytest.mark.skip(reason=\"no sdk\")\n\ndef test_client():\n    from databricks.sdk import WorkspaceClient\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "cli");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["cli undeclared pyyaml"], "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
}

/// A JS bundle committed as built (`x.min.js`, `x.umd.js`) is loaded by a `<script>` tag:
/// its `require("react")` is a branch no browser takes, and no import of the package's.
#[test]
fn a_committed_bundle_is_not_the_package_s_code() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "ui", "ui");
    t.write(
        "ws/ui/package.json",
        r#"{"name": "ui", "private": true, "dependencies": {"htmx.org": "2"}}"#,
    );
    t.write("ws/ui/src/index.js", "import 'htmx.org';\n");
    t.write(
        "ws/ui/dist/graphiql/graphiql.min.js",
        "!function(e,t){\"object\"==typeof exports?module.exports=t(require(\"react\"),require(\"react-dom\")):e.GraphiQL=t(e.React,e.ReactDOM)}(this,function(r,d){return{}});\n",
    );
    t.write(
        "ws/ui/dist/graphiql/index.umd.js",
        "(function(g,f){typeof exports==='object'?f(exports,require('graphql')):f(g.X={},g.GraphQL)})(this,function(e,q){});\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "ui");
    let v = t.json(&["drift"]);
    assert!(findings(&v).is_empty(), "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
}

/// A Sphinx configuration's extensions and theme are what Sphinx imports by name: each a
/// use of the distribution providing it, even one whose import name is none of its
/// distribution's words (`hoverxref` of sphinx-hoverxref).
#[test]
fn a_sphinx_configuration_uses_its_extensions_and_theme() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "lib", "lib");
    t.write(
        "ws/lib/pyproject.toml",
        "[project]\nname = \"lib\"\ndependencies = []\n\n[project.optional-dependencies]\ndocs = [\"sphinx\", \"furo\", \"sphinx-hoverxref\", \"sphinxcontrib-spelling\", \"myst-parser\", \"sphinx-autobuild-unused\"]\n",
    );
    t.write("ws/lib/lib/__init__.py", "import json\n");
    t.write(
        "ws/lib/docs/source/conf.py",
        "project = \"lib\"\nextensions = [\"sphinx.ext.autodoc\", \"myst_parser\"]\nif not on_rtd:\n    extensions.append(\"sphinxcontrib.spelling\")\nextensions += [\"hoverxref.extension\"]\nhtml_theme = \"furo\"\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "lib");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["lib unused sphinx-autobuild-unused"], "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
}

/// A legacy ESLint config below the package's root (`client/.eslintrc.js`) names its plugins
/// and shareable configs by the short names ESLint expands (`"no-only-tests"` is
/// eslint-plugin-no-only-tests, `"react-app"` eslint-config-react-app): named, so unsure.
#[test]
fn a_nested_eslintrc_names_plugins_by_short_names() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "web", "web");
    t.write(
        "ws/web/package.json",
        r#"{"name": "web", "private": true, "devDependencies": {"eslint": "8", "eslint-plugin-no-only-tests": "3", "eslint-config-react-app": "7", "eslint-plugin-unused-thing": "1"}, "scripts": {"lint": "eslint client"}}"#,
    );
    t.write(
        "ws/web/client/.eslintrc.js",
        "module.exports = {\n  extends: [\"react-app\"],\n  plugins: [\"no-only-tests\"],\n};\n",
    );
    t.write("ws/web/client/app.js", "export const x = 1;\n");
    t.empty_repo("ws");
    t.commit("ws", "web");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        ["web unused eslint-plugin-unused-thing"],
        "{v}"
    );
    assert_eq!(
        unsure(&v),
        [
            "web unused eslint-config-react-app: named at web/client/.eslintrc.js:2, outside the declarations: a tool, a loader or a config may take it by name",
            "web unused eslint-plugin-no-only-tests: named at web/client/.eslintrc.js:3, outside the declarations: a tool, a loader or a config may take it by name"
        ],
        "{v}"
    );
}

/// A Python development tool configured by a file of its own — at the module's root, the
/// repository's (`.pre-commit-config.yaml`), or a section of `setup.cfg` — is run where it is
/// developed, as a `[tool.X]` section says: not unused. Only for development declarations.
#[test]
fn a_python_tool_s_own_config_file_uses_it() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    t.write(
        "ws/.pre-commit-config.yaml",
        "repos:\n  - repo: local\n    hooks: []\n",
    );
    module(&t, "python", "py");
    t.write(
        "ws/python/pyproject.toml",
        "[project]\nname = \"py\"\ndependencies = [\"mypy\"]\n\n[project.optional-dependencies]\ndev = [\"pre-commit\", \"coverage\", \"yamllint\", \"unused-thing\"]\n",
    );
    t.write("ws/python/setup.cfg", "[coverage:run]\nsource = py\n");
    t.write("ws/python/.yamllint", "extends: default\n");
    t.write("ws/python/mypy.ini", "[mypy]\nstrict = True\n");
    t.write("ws/python/py/__init__.py", "import json\n");
    t.empty_repo("ws");
    t.commit("ws", "py");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["py unused unused-thing"], "{v}");
    // mypy is declared to ship: its config does not say the package's users run it, only
    // that it is named.
    assert_eq!(
        unsure(&v),
        [
            "py unused mypy: named at python/mypy.ini:1, outside the declarations: a tool, a loader or a config may take it by name"
        ],
        "{v}"
    );
}

/// A Prisma schema whose generator writes a client (Prisma 7's `prisma-client`, at an
/// `output` git ignores): the client imports `@prisma/client`'s runtime, so the package's
/// declaration of it is used though no committed file imports it.
#[test]
fn a_prisma_generator_uses_the_client_package() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "db", "db");
    t.write(
        "ws/db/package.json",
        r#"{"name": "db", "private": true, "dependencies": {"@prisma/client": "7", "unused-thing": "1"}}"#,
    );
    t.write(
        "ws/db/prisma/schema.prisma",
        "datasource db {\n  provider = \"postgresql\"\n}\n\ngenerator client {\n  provider = \"prisma-client\"\n  output   = \"../generated/prisma\"\n}\n",
    );
    t.write("ws/db/.gitignore", "generated/\n");
    t.write(
        "ws/db/src/index.ts",
        "import { PrismaClient } from \"../generated/prisma/client\";\nexport const db = new PrismaClient();\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "db");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["db unused unused-thing"], "{v}");
}

/// A `setup.py` that computes its requirements from files its code names (ckan reads
/// `requirements.txt` into an extra and `dev-requirements.txt` into another): those files
/// declare them, the one named for development for development. A `setup.py` that only
/// builds (openlibrary's cythonizes a module) declares nothing, and an application's
/// `requirements.txt` beside it is its declaration.
#[test]
fn a_setup_py_s_requirements_files_declare_what_it_computes() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "ckan", "ckan");
    t.write(
        "ws/ckan/setup.py",
        "import os\nfrom setuptools import setup\n\nextras_require = {}\nfor group, path in [(\"requirements\", \"requirements.txt\"), (\"dev\", \"dev-requirements.txt\")]:\n    with open(os.path.join(os.path.dirname(__file__), path)) as f:\n        extras_require[group] = f.readlines()\n\nsetup(name=\"ckan\", extras_require=extras_require)\n",
    );
    t.write(
        "ws/ckan/requirements.txt",
        "flask==3.0\nunused-thing==1.0\n",
    );
    t.write("ws/ckan/dev-requirements.txt", "pytest==8.0\n");
    t.write("ws/ckan/ckan/__init__.py", "import flask\n");
    t.write("ws/ckan/tests/test_app.py", "import pytest\n");
    module(&t, "ol", "ol");
    t.write(
        "ws/ol/pyproject.toml",
        "[project]\nname = \"ol\"\nversion = \"1.0\"\n",
    );
    t.write(
        "ws/ol/setup.py",
        "from setuptools import find_packages, setup\n\nsetup(packages=find_packages(include=[\"ol\"]))\n",
    );
    t.write("ws/ol/requirements.txt", "uvicorn==0.30\n");
    t.write("ws/ol/ol/__init__.py", "import uvicorn\n");
    t.empty_repo("ws");
    t.commit("ws", "ckan and ol");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["ckan unused unused-thing"], "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
}

/// Poetry building without `packages` ships the package named as the project, as poetry
/// finds it: a script directory beside it (mealie's `dev/code-generation/`) is development
/// code, whose dev-group imports are declared.
#[test]
fn poetry_s_default_package_is_what_ships() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[build-system]\nrequires = [\"poetry-core\"]\nbuild-backend = \"poetry.core.masonry.api\"\n\n[tool.poetry]\nname = \"my-app\"\nversion = \"1.0\"\n\n[tool.poetry.dependencies]\npython = \"^3.12\"\nfastapi = \"*\"\n\n[tool.poetry.group.dev.dependencies]\nrich = \"*\"\n",
    );
    t.write("ws/app/my_app/__init__.py", "import fastapi\n");
    t.write("ws/app/dev/code-generation/main.py", "import rich\n");
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    assert!(findings(&v).is_empty(), "{v}");
}

/// A `macro_rules!` defined inside another's rules is defined where that one is called, and
/// `pub(crate) use name;` re-exports it: no crate (surrealdb's `keyword_t`).
#[test]
fn a_macro_a_macro_defines_is_no_crate() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "", "core");
    t.write(
        "ws/Cargo.toml",
        "[package]\nname = \"core\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    t.write(
        "ws/src/lib.rs",
        "macro_rules! keywords {\n    ($($name:ident => $value:tt,)*) => {\n        pub enum Keyword { $($name,)* }\n        macro_rules! keyword_t {\n            $(($value) => { $crate::Keyword::$name };)*\n        }\n    };\n}\nkeywords! { Get => \"GET\", }\npub(crate) use keyword_t;\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "core");
    let v = t.json(&["drift"]);
    assert!(findings(&v).is_empty(), "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
}

/// A gulp task copying a package's files out of `node_modules` by path uses the package; a
/// vendored UMD plugin's `require` is its CommonJS branch, which no page loading it by
/// `<script>` takes.
#[test]
fn node_modules_paths_use_packages_and_umd_requires_are_optional() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "site", "site");
    t.write(
        "ws/site/package.json",
        r#"{"name": "site", "private": true, "scripts": {"postinstall": "gulp vendor"}, "devDependencies": {"gulp": "4", "htmx.org": "2", "unused-thing": "1"}}"#,
    );
    t.write(
        "ws/site/gulpfile.js",
        "const { src, dest } = require(\"gulp\");\nexports.vendor = () => src(\"node_modules/htmx.org/dist/htmx.js\").pipe(dest(\"public/vendor\"));\n",
    );
    t.write(
        "ws/site/public/vendor/dataTables.scroll.js",
        "(function (factory) {\n  if (typeof define === 'function' && define.amd) {\n    define(['jquery', 'datatables.net'], factory);\n  } else if (typeof exports === 'object') {\n    module.exports = factory(require('jquery'), require('datatables.net'));\n  } else {\n    factory(jQuery);\n  }\n}(function ($) {}));\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "site");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["site unused unused-thing"], "{v}");
}

/// npm's lockfile records each package's commands: a script running `cem` uses
/// @custom-elements-manifest/analyzer though nothing is installed.
#[test]
fn npm_s_lockfile_names_the_commands_scripts_run() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "web", "web");
    t.write(
        "ws/web/package.json",
        r#"{"name": "web", "private": true, "scripts": {"analyze": "cem analyze --litelement"}, "devDependencies": {"@custom-elements-manifest/analyzer": "0.10", "unused-thing": "1"}}"#,
    );
    t.write(
        "ws/web/package-lock.json",
        r#"{"name": "web", "lockfileVersion": 3, "packages": {"": {"name": "web"}, "node_modules/@custom-elements-manifest/analyzer": {"version": "0.10.4", "bin": {"cem": "cem.js", "custom-elements-manifest": "cem.js"}}, "node_modules/unused-thing": {"version": "1.0.0"}}}"#,
    );
    t.write("ws/web/src/index.js", "export const x = 1;\n");
    t.empty_repo("ws");
    t.commit("ws", "web");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["web unused unused-thing"], "{v}");
}

/// A `setup.py` whose `extras_require` computes one extra (metaflow's `"dev":
/// read_dev_requirements()`) is read for the rest of its call, beside a stub `setup.cfg`, and
/// the requirements file its code names fills that extra; a bare `except:` guards the import
/// it tries (Python 2's `cPickle`), and code only Python 2 runs imports optionally; a tool a
/// Makefile runs from a virtualenv's `bin` (`$(VENV)/bin/twine`) or by a command not its
/// name (docutils' `rst2html`) is used.
#[test]
fn a_computed_extra_a_bare_except_and_a_virtualenv_s_commands() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "mf", "mf");
    t.write("ws/mf/setup.cfg", "[metadata]\nlicense_files = LICENSE\n");
    t.write(
        "ws/mf/setup.py",
        "from setuptools import setup, find_packages\n\n\ndef read_dev_requirements():\n    with open(\"requirements-devstack.txt\") as f:\n        return [l.strip() for l in f if l.strip()]\n\n\nsetup(\n    name=\"mf\",\n    packages=find_packages(),\n    install_requires=[\"requests\", \"boto3\", \"unused-thing\"],\n    extras_require={\"dev\": read_dev_requirements()},\n)\n",
    );
    t.write(
        "ws/mf/requirements-devstack.txt",
        "pytest\ntwine\ndocutils\n",
    );
    t.write(
        "ws/mf/Makefile",
        "VENV ?= .venv\n\nrelease:\n\t$(VENV)/bin/twine check dist/*.whl\n\ndocs:\n\trst2html README.rst > README.html\n",
    );
    t.write(
        "ws/mf/mf/compat.py",
        "import sys\n\nif sys.version_info[0] == 2:\n    import urlparse\nelse:\n    import urllib.parse\n",
    );
    t.write(
        "ws/mf/mf/__init__.py",
        "import requests\nimport boto3\n\ntry:\n    import cPickle as pickle\nexcept:\n    import pickle\n",
    );
    t.write("ws/mf/tests/test_mf.py", "import pytest\n");
    t.empty_repo("ws");
    t.commit("ws", "mf");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["mf unused unused-thing"], "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
}

#[test]
fn django_s_drivers_a_sibling_s_python_2_fallback_vendored_code_and_compose_commands() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"1\"\ndependencies = [\"django\", \"mysqlclient\", \"pillow\", \"unused-thing\"]\n\n[dependency-groups]\ndev = [\"watchdog\"]\n",
    );
    // Django imports the driver its `ENGINE` names, and Pillow for an image field; the tests
    // alone import PIL.
    t.write(
        "ws/app/app/settings.py",
        "DATABASES = {\"default\": {\"ENGINE\": \"django.db.backends.mysql\"}}\n",
    );
    t.write(
        "ws/app/app/models.py",
        "from django.db import models\n\n\nclass Photo(models.Model):\n    image = models.ImageField()\n",
    );
    t.write("ws/app/tests/test_photo.py", "from PIL import Image\n");
    // Python 2's fallback for a relative import names the sibling.
    t.write("ws/app/app/__init__.py", "");
    t.write("ws/app/app/tpl/__init__.py", "");
    t.write("ws/app/app/tpl/metadata.py", "version = \"1\"\n");
    t.write(
        "ws/app/app/tpl/main.py",
        "try:\n    from .metadata import version\nexcept (ValueError, SystemError):\n    from metadata import version\n",
    );
    // A vendored library's pytest plugin, which the module never loads.
    t.write("ws/app/app/_vendor/__init__.py", "");
    t.write("ws/app/app/_vendor/typeguard/__init__.py", "");
    t.write(
        "ws/app/app/_vendor/typeguard/_pytest_plugin.py",
        "import pytest\n",
    );
    // The worker runs under watchdog's `watchmedo` in the development containers.
    t.write(
        "ws/app/development/docker-compose.yml",
        "services:\n  worker:\n    build: ..\n    image: app\n    command: watchmedo auto-restart -- celery worker\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app unused unused-thing"], "{v}");
    let unsure = unsure(&v);
    assert_eq!(unsure.len(), 1, "{v}");
    assert!(
        unsure[0].starts_with("app undeclared pytest: imported only by")
            && unsure[0].contains("vendored copy"),
        "{v}"
    );
}

#[test]
fn a_django_project_s_settings_ship_and_karma_and_babel_load_their_packages() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "site", "site");
    t.write(
        "ws/site/pyproject.toml",
        "[project]\nname = \"site\"\nversion = \"1\"\ndependencies = [\"django\", \"django-axes\", \"django-storages\", \"boto3\", \"unused-thing\"]\n\n[dependency-groups]\ndev = [\"tblib\"]\n\n[tool.hatch.build.targets.wheel]\npackages = [\"site\"]\n",
    );
    // The settings package beside the shipped one: `wsgi.py` names it, Django loads it.
    t.write("ws/site/site/__init__.py", "");
    t.write(
        "ws/site/site/wsgi.py",
        "import os\n\nfrom django.core.wsgi import get_wsgi_application\n\nos.environ.setdefault(\"DJANGO_SETTINGS_MODULE\", \"settings.main\")\napplication = get_wsgi_application()\n",
    );
    t.write("ws/site/settings/__init__.py", "");
    t.write("ws/site/settings/main.py", "from .base import *\n");
    t.write(
        "ws/site/settings/base.py",
        "INSTALLED_APPS = [\"django.contrib.admin\", \"axes\", \"storages\"]\nSTORAGES = {\"default\": {\"BACKEND\": \"storages.backends.s3boto3.S3Boto3Storage\"}}\n",
    );
    // The front end's tests run under karma; babel's runtime transform imports its helpers.
    t.write(
        "ws/site/package.json",
        r#"{"name": "site-js", "private": true, "dependencies": {"@babel/runtime": "7"}, "devDependencies": {"karma": "6", "karma-jasmine": "5", "karma-coverage": "2", "left-pad": "1"}}"#,
    );
    t.write(
        "ws/site/.babelrc",
        r#"{"presets": ["@babel/preset-env"], "plugins": ["@babel/plugin-transform-runtime"]}"#,
    );
    t.write(
        "ws/site/karma.conf.js",
        "module.exports = (config) => config.set({ frameworks: ['jasmine'] });\n",
    );
    t.write("ws/site/static/js/app.js", "export const a = 1;\n");
    t.empty_repo("ws");
    t.commit("ws", "site");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        ["site unused left-pad", "site unused unused-thing"],
        "{v}"
    );
    // What Django and karma load by name: unsure, with what loads it.
    let unsure = unsure(&v);
    assert_eq!(unsure.len(), 3, "{v}");
    for (dep, by) in [
        ("boto3", "django-storages"),
        ("tblib", "django"),
        ("karma-coverage", "karma"),
    ] {
        assert!(
            (unsure.iter()).any(|u| u.starts_with(&format!("site unused {dep}: {by}"))),
            "{dep}: {v}"
        );
    }
}

#[test]
fn a_test_tree_an_image_copies_stays_tests_and_a_module_named_as_missing_is_unsure() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"1\"\ndependencies = [\"requests\"]\n\n[dependency-groups]\ndev = [\"pytest\"]\n\n[tool.hatch.build.targets.wheel]\npackages = [\"/app\"]\n",
    );
    t.write("ws/app/app/__init__.py", "import requests\n");
    // The image copies the test tree to run it there: it ships nothing.
    t.write(
        "ws/app/Dockerfile",
        "FROM python\nCOPY app app\nCOPY test_app test_app\n",
    );
    t.write("ws/app/test_app/unit_utils.py", "import pytest\n");
    // A test of what a failed import does.
    t.write(
        "ws/app/test_app/test_utils.py",
        "import pytest\n\n\ndef test_missing():\n    with pytest.raises(ImportError):\n        import not_a_package\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    assert!(findings(&v).is_empty(), "{v}");
    let unsure = unsure(&v);
    assert_eq!(unsure.len(), 1, "{v}");
    assert!(
        unsure[0]
            .starts_with("app undeclared not_a_package: `not_a_package` is named as no module"),
        "{v}"
    );
}

#[test]
fn a_gulp_build_is_build_code_and_copies_what_ships() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "web", "web");
    // gulp and its plugins build the assets; htmx.org is copied out of node_modules into
    // what ships; lefthook runs from its config, cog from the justfile.
    t.write(
        "ws/web/package.json",
        r#"{"name": "web", "private": true, "version": "", "dependencies": {"htmx.org": "2"}, "devDependencies": {"gulp": "5", "gulp-concat": "2", "lefthook": "1", "left-pad": "1"}}"#,
    );
    t.write(
        "ws/web/gulpfile.js",
        "const gulp = require('gulp');\nconst concat = require('gulp-concat');\nexports.vendor = () => gulp.src('node_modules/htmx.org/dist/htmx.min.js').pipe(gulp.dest('static/'));\nexports.css = () => gulp.src('css/*.css').pipe(concat('all.css'));\n",
    );
    t.write(
        "ws/web/lefthook.yml",
        "pre-commit:\n  commands:\n    lint:\n      run: npx gulp lint\n",
    );
    t.write(
        "ws/web/pyproject.toml",
        "[project]\nname = \"web\"\nversion = \"1\"\ndependencies = [\"django\", \"psycopg\"]\n\n[dependency-groups]\ndev = [\"cogapp\"]\n\n[tool.hatch.build.targets.wheel]\npackages = [\"web\"]\n",
    );
    t.write("ws/web/justfile", "docs:\n    cog -r README.md\n");
    t.write("ws/web/web/__init__.py", "");
    t.write(
        "ws/web/web/views.py",
        "from django.http import HttpResponse\n",
    );
    // Only the development settings name the production database's backend; production
    // takes it from the environment.
    t.write(
        "ws/web/settings/local_dev.py",
        "DATABASES = {\"default\": {\"ENGINE\": \"django.db.backends.postgresql\"}}\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "web");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["web unused left-pad"], "{v}");
    let unsure = unsure(&v);
    assert_eq!(unsure.len(), 1, "{v}");
    assert!(
        unsure[0].starts_with("web dev-only psycopg: django, declared for shipping"),
        "{v}"
    );
}

#[test]
fn a_package_a_test_writes_onto_its_path_is_its_own() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"1\"\n\n[dependency-groups]\ndev = [\"pytest\"]\n\n[tool.hatch.build.targets.wheel]\npackages = [\"app\"]\n",
    );
    t.write("ws/app/app/__init__.py", "");
    // The test writes `plugin_pkg` into a directory it puts on sys.path, then imports it;
    // `yaml` it imports and never declares.
    t.write(
        "ws/app/tests/test_plugins.py",
        "import sys\n\nimport pytest\nimport yaml\n\n\ndef test_loads(tmp_path):\n    (tmp_path / \"plugin_pkg\").mkdir()\n    (tmp_path / \"plugin_pkg\" / \"__init__.py\").write_text(\"X = 1\")\n    sys.path.insert(0, str(tmp_path))\n    import plugin_pkg\n    assert plugin_pkg.X == 1\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app undeclared pyyaml"], "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
}

#[test]
fn a_backport_older_pythons_import_stubs_by_suffix_and_a_namespace_s_worded_parts() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    // The project requires 3.10: the backport in the `else` never runs. `tomli` under
    // `< (3, 12)` still runs on 3.10 and 3.11, so it is owed. `celery-types` describes
    // celery; the qdrant integration is imported by its worded parts; rye's dev list
    // declares pytest.
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"1\"\nrequires-python = \">=3.10\"\ndependencies = [\"celery\", \"llama-index-core\", \"llama-index-vector-stores-qdrant\"]\n\n[project.optional-dependencies]\ntyping = [\"celery-types\"]\n\n[tool.rye]\ndev-dependencies = [\"pytest\"]\n\n[tool.hatch.build.targets.wheel]\npackages = [\"app\"]\n",
    );
    t.write(
        "ws/app/app/__init__.py",
        "import sys\n\nimport celery\nfrom llama_index.core import Settings\nfrom llama_index.vector_stores.qdrant import QdrantVectorStore\n\nif sys.version_info >= (3, 10):\n    import importlib.metadata as importlib_metadata\nelse:\n    import importlib_metadata\n\nif sys.version_info < (3, 12):\n    import tomli\n",
    );
    t.write("ws/app/tests/test_app.py", "import pytest\n");
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app undeclared tomli"], "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
    let text = t.run(&["drift", "--explain", "app", "importlib-metadata"]);
    assert!(
        text.stdout
            .contains("in code only Pythons older than 3.10 run, which the project's minimum Python leaves out"),
        "{text}"
    );
}

#[test]
fn deno_s_import_map_bun_s_types_and_a_composite_action_s_commands() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "", "web");
    // The Deno tests import through their own `deno.json`'s map; the Bun build script
    // imports Bun's built-in module, typed by `bun-types`; a composite action runs `tsgo`.
    t.write(
        "ws/package.json",
        r#"{"name": "web", "version": "1.0.0", "devDependencies": {"bun-types": "1", "@typescript/native-preview": "7", "left-pad": "1"}, "peerDependencies": {"bun-types": ">=1"}}"#,
    );
    t.write("ws/src/index.ts", "export const a = 1;\n");
    t.write(
        "ws/build/build.ts",
        "import { $ } from 'bun';\nawait $`tsc`;\n",
    );
    t.write(
        "ws/runtime-tests/deno/deno.json",
        r#"{"imports": {"@std/assert": "jsr:@std/assert@^1", "@std/path/": "jsr:/@std/path@^1/", "@std/testing": "jsr:@std/testing@^1"}}"#,
    );
    t.write(
        "ws/runtime-tests/deno/index.test.ts",
        "import { assertEquals } from '@std/assert';\nimport { join } from '@std/path/posix';\nimport { spy } from '@std/testing/mock';\nimport { z } from 'zod';\n",
    );
    t.write(
        "ws/.github/actions/perf/action.yml",
        "runs:\n  using: composite\n  steps:\n    - run: bunx tsgo --noEmit\n      shell: bash\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "web");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        ["web unused left-pad", "web undeclared zod"],
        "{v}"
    );
}

#[test]
fn a_dependencies_file_a_build_makes_leaves_every_import_unsure() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    // `deps/base.txt` is made by the image build: not in the repository. The dev extra's
    // file is there, and what it declares is still checked.
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"1\"\ndynamic = [\"dependencies\", \"optional-dependencies\"]\n\n[tool.setuptools.dynamic]\ndependencies = { file = [\"deps/base.txt\"] }\noptional-dependencies.dev = { file = [\"requirements/dev.txt\"] }\n\n[tool.setuptools.packages.find]\nwhere = [\"src\"]\n",
    );
    t.write("ws/app/requirements/dev.txt", "pytest\nleft-pad\n");
    t.write("ws/app/src/app/__init__.py", "import redis\n");
    t.write("ws/app/tests/test_app.py", "import pytest\n");
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app unused left-pad"], "{v}");
    let unsure = unsure(&v);
    assert_eq!(unsure.len(), 1, "{v}");
    assert!(
        unsure[0].starts_with(
            "app undeclared redis: app/pyproject.toml reads its dependencies from app/deps/base.txt"
        ),
        "{v}"
    );
}

#[test]
fn mkdocs_loads_markdown_extensions_by_module_and_entry_point() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "docs", "docs");
    t.write(
        "ws/docs/pyproject.toml",
        "[project]\nname = \"docs\"\nversion = \"1\"\ndependencies = [\"mkdocs\", \"mdx-include\", \"markdown-callouts\", \"markdown-exec\"]\n\n[tool.setuptools]\npackages = [\"site_hooks\"]\n",
    );
    t.write("ws/docs/site_hooks/__init__.py", "import mkdocs\n");
    // A mapping's key names one extension by its module, a list item another by its entry
    // point's name; `markdown-exec` is named nowhere.
    t.write(
        "ws/docs/mkdocs.yml",
        "site_name: x\nmarkdown_extensions:\n  mdx_include:\n    base_path: docs\n  toc:\n    permalink: true\n",
    );
    t.write(
        "ws/docs/mkdocs-ext.yml",
        "INHERIT: mkdocs.yml\nmarkdown_extensions:\n  - github-callouts\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "docs");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["docs unused markdown-exec"], "{v}");
    assert!(unsure(&v).is_empty(), "{v}");
}

#[test]
fn a_type_stub_declares_none_of_what_it_describes() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    // `types-requests` is used by the import of requests, which it does not install; the
    // service stubs `boto3-stubs[s3]` brings are modules of their own.
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\nversion = \"1\"\ndependencies = [\"types-requests\", \"boto3-stubs[s3]\"]\n\n[tool.hatch.build.targets.wheel]\npackages = [\"app\"]\n",
    );
    t.write(
        "ws/app/app/__init__.py",
        "import requests\nfrom mypy_boto3_s3 import S3Client\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app undeclared requests"], "{v}");
}

#[test]
fn a_requirements_file_s_comment_says_why_a_pin_is_there() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    // setup.py reads requirements.txt; greenlet's comment says why it is there, left-pad's
    // declaration says nothing.
    t.write(
        "ws/app/setup.py",
        "from setuptools import setup\nsetup(name='app', install_requires=open('requirements.txt').readlines(), packages=['app'])\n",
    );
    t.write(
        "ws/app/requirements.txt",
        "flask\n# Needed for > 3.10, playwright's greenlet is too old\ngreenlet>=3.0.3\nleft-pad\n",
    );
    t.write("ws/app/app/__init__.py", "import flask\n");
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app unused left-pad"], "{v}");
    let unsure = unsure(&v);
    assert_eq!(unsure.len(), 1, "{v}");
    assert!(
        unsure[0].starts_with("app unused greenlet: app/requirements.txt:2 says why"),
        "{v}"
    );
}

/// yazi's (round 39), fish-shell's and sway's shape: a workspace crate's exported
/// `macro_rules!` expands in the crate calling it, so what its body names by path —
/// `paste::paste!`, `::inventory::submit!`, another crate's macro and what that one names —
/// the caller declares though none of its files names it. A crate that calls none of the
/// macros still owes its leftovers, and a crate's calls of its own macros add nothing.
#[test]
fn what_another_crate_s_exported_macro_names_is_used_where_it_expands() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    let krate = |dir: &str, deps: &str, lib: &str| {
        module(&t, dir, dir);
        t.write(
            &format!("ws/{dir}/Cargo.toml"),
            &format!("[package]\nname = \"{dir}\"\n\n[dependencies]\n{deps}"),
        );
        t.write(&format!("ws/{dir}/src/lib.rs"), lib);
    };
    krate(
        "macros",
        "",
        "#[macro_export]\nmacro_rules! act {\n    (@pre $l:ident) => { parser::spark!($l) };\n    ($l:ident) => { paste::paste! { $crate::act!(@pre $l); } };\n}\n#[macro_export]\nmacro_rules! data { () => { ::inventory::submit! {} }; }\n",
    );
    krate(
        "parser",
        "serde_json = \"1\"\n",
        "#[macro_export]\nmacro_rules! spark { ($l:ident) => { ::serde_json::json!({}) }; }\n",
    );
    krate(
        "fm",
        "macros = { path = \"../macros\" }\nparser = { path = \"../parser\" }\npaste = \"1\"\nserde_json = \"1\"\ntokio = \"1\"\n",
        "use macros::act;\npub fn f() { act!(x); }\n",
    );
    krate(
        "dds",
        "macros = { path = \"../macros\" }\ninventory = \"0.3\"\n",
        "pub fn f() { macros::data!(); }\n",
    );
    krate(
        "plain",
        "macros = { path = \"../macros\" }\npaste = \"1\"\n",
        "pub fn f() { let _ = macros::act; }\n",
    );
    // A bare `error!` brought by `use log::error;` is log's, not the workspace's same name
    // (the review's case): `tracing` stays a leftover. And a renamed dependency's macro
    // (`m = { package = "macros" }`, `m::data!`) expands too.
    krate(
        "util",
        "",
        "#[macro_export]\nmacro_rules! error { ($e:expr) => { ::tracing::error!($e) }; }\n",
    );
    krate(
        "app",
        "util = { path = \"../util\" }\nlog = \"0.4\"\ntracing = \"0.1\"\nm = { package = \"macros\", path = \"../macros\" }\ninventory = \"0.3\"\n",
        "use log::error;\npub fn f() { error!(\"x\"); let _ = util::X; m::data!(); }\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "macros expanding elsewhere");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "app unused tracing",
            "fm unused tokio",
            "plain unused paste"
        ],
        "{v}"
    );
    assert_eq!(unsure(&v), Vec::<String>::new(), "{v}");
    let e = explained(&t, "fm", "serde_json");
    assert!(
        e.contains("src/lib.rs:2 (shipped code, through `spark!` of parser (parser/src/lib.rs:2)"),
        "{e}"
    );
}

/// locust's docs group (round 38): `alabaster==0.7.16` beside `sphinx==7.4.7`, which
/// depends on it — a version pinned for what another declaration gets, as a compiled
/// requirements file pins one, whatever the list. A range beside the same (`>=`) is no pin of
/// one version and stays sure, as a leftover pinned exactly with nothing depending on it.
#[test]
fn an_exact_pin_of_what_another_declaration_depends_on_is_unsure() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\ndependencies = [\"flask==3.0.0\", \"werkzeug==3.0.1\", \"itsdangerous>=2.1\", \"left-pad==1.0\"]\n",
    );
    t.write("ws/app/app/__init__.py", "import flask\n");
    t.write(
        "ws/app/uv.lock",
        "version = 1\n\n[[package]]\nname = \"flask\"\nversion = \"3.0.0\"\ndependencies = [\n    { name = \"werkzeug\" },\n    { name = \"itsdangerous\" },\n]\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        ["app unused itsdangerous", "app unused left-pad"],
        "{v}"
    );
    assert_eq!(
        unsure(&v),
        [
            "app unused werkzeug: pinned to one version beside flask, which depends on it (app/uv.lock records it): a version chosen for what flask gets, as a compiled requirements file pins it"
        ],
        "{v}"
    );
}

/// OctoPrint's shapes (round 39): plugins named after the project, bundled in its
/// dependencies and loaded through entry points; `go-task-bin`, which runs the root's
/// `Taskfile.yml`, whose tasks run tools as a Makefile's recipes do.
#[test]
fn own_plugins_and_a_taskfile_s_runner_and_tasks_make_no_sure_unused() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"OctoPrint\"\ndependencies = [\"OctoPrint-FileCheck>=2\", \"left-pad\"]\n\n[project.optional-dependencies]\ndevelop = [\"go-task-bin\", \"pip-check\", \"left-dev\"]\n",
    );
    t.write("ws/app/octoprint/__init__.py", "import os\n");
    t.write(
        "ws/app/Taskfile.yml",
        "version: '3'\ntasks:\n  check-deps:\n    cmds:\n      - pip-check -H\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(found, ["app unused left-dev", "app unused left-pad"], "{v}");
    assert_eq!(
        unsure(&v),
        [
            "app unused OctoPrint-FileCheck: named after the project itself (octoprint): a plugin of it, which a project loads through its entry points rather than an import"
        ],
        "{v}"
    );
}

/// slate's shape (round 39): the root's script hands rollup a config kept in a directory of
/// its own, which builds every package and runs Babel's runtime transform, so each
/// package's compiled code imports `@babel/runtime`'s helpers though no source names it. A
/// package with a build of its own is not built by it. And the root's jest config runs one
/// package's tests by naming its directory (`testMatch`), so that one's `@types/jest`
/// describes its tests' globals.
#[test]
fn a_root_script_s_bundler_config_running_babel_s_runtime_transform_uses_the_runtime() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    t.write(
        "ws/package.json",
        r#"{"name": "root", "private": true, "workspaces": ["packages/*"], "scripts": {"build:rollup": "rollup --config ./config/rollup/rollup.config.js --bundleConfigAsCjs"}}"#,
    );
    t.write(
        "ws/config/rollup/rollup.config.js",
        "import babel from 'rollup-plugin-babel';\nexport default { plugins: [babel({ plugins: [['@babel/plugin-transform-runtime', {}]] })] };\n",
    );
    t.write(
        "ws/jest.config.js",
        "module.exports = {\n  testMatch: ['<rootDir>/packages/editor/test/**/*.ts'],\n  testPathIgnorePatterns: ['<rootDir>/packages/own/'],\n  preset: 'ts-jest',\n};\n",
    );
    for (dir, scripts) in [("editor", ""), ("own", r#""scripts": {"build": "tsc"}, "#)] {
        module(&t, &format!("packages/{dir}"), dir);
        t.write(
            &format!("ws/packages/{dir}/package.json"),
            &format!(r#"{{"name": "{dir}", {scripts}"devDependencies": {{"@babel/runtime": "7", "@types/jest": "29", "left-pad": "1"}}}}"#),
        );
        t.write(
            &format!("ws/packages/{dir}/test/a.test.ts"),
            "describe('x', () => {});\n",
        );
        t.write(&format!("ws/packages/{dir}/tsconfig.json"), "{}\n");
        t.write(
            &format!("ws/packages/{dir}/src/index.ts"),
            "export const x = 1;\n",
        );
    }
    t.empty_repo("ws");
    t.commit("ws", "slate's shape");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "editor unused left-pad",
            "own unused @babel/runtime",
            "own unused @types/jest",
            "own unused left-pad"
        ],
        "{v}"
    );
    let e = explained(&t, "editor", "@babel/runtime");
    assert!(
        e.contains("config/rollup/rollup.config.js at its workspace root builds it and names Babel's runtime transform"),
        "{e}"
    );
}

/// glances' shapes (round 39): `windows-curses` brings `curses` to Windows' Python (and
/// `tzdata` the time zones `zoneinfo` reads where the system has none), so an import of
/// the standard module uses it; `memory-profiler` runs as `mprof`; `REUSE.toml` is the
/// config of `reuse`, which a developer runs where it is.
#[test]
fn platform_fills_of_the_standard_library_and_tools_by_command_or_config_are_used() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"glances\"\ndependencies = [\"windows-curses; sys_platform == 'win32'\", \"tzdata\", \"left-pad\"]\n\n[dependency-groups]\ndev = [\"memory-profiler\", \"reuse\", \"left-dev\"]\n",
    );
    t.write(
        "ws/app/glances/__init__.py",
        "import curses\nimport zoneinfo\nimport readline\n",
    );
    t.write("ws/app/Makefile", "profile:\n\tuv run mprof run glances\n");
    t.write("ws/app/REUSE.toml", "version = 1\n");
    t.empty_repo("ws");
    t.commit("ws", "app");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(found, ["app unused left-dev", "app unused left-pad"], "{v}");
    assert_eq!(unsure(&v), Vec::<String>::new(), "{v}");
    let e = explained(&t, "app", "windows-curses");
    assert!(
        e.contains("a standard module some platform's Python lacks"),
        "{e}"
    );
}

/// rerun's shape (round 40): the SDK ships `rerun_sdk/rerun` with a `rerun_sdk.pth` that puts
/// `rerun_sdk` on `sys.path`, so its examples' `import rerun` is the `rerun-sdk` they declare.
#[test]
fn a_path_file_s_directory_makes_its_packages_importable_by_their_own_names() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "rerun_py", "rerun_py");
    t.write(
        "ws/rerun_py/pyproject.toml",
        "[project]\nname = \"rerun-sdk\"\ndependencies = []\n\n[tool.maturin]\nname = \"rerun_bindings\"\npython-packages = [\"rerun_sdk/rerun\"]\ninclude = [\"rerun_sdk.pth\"]\n",
    );
    t.write("ws/rerun_py/rerun_sdk.pth", "rerun_sdk\n");
    t.write("ws/rerun_py/rerun_sdk/rerun/__init__.py", "X = 1\n");
    module(&t, "examples/ocr", "ocr");
    t.write(
        "ws/examples/ocr/pyproject.toml",
        "[project]\nname = \"ocr\"\ndependencies = [\"rerun-sdk\", \"left-pad\"]\n",
    );
    t.write("ws/examples/ocr/ocr.py", "import rerun as rr\n");
    t.empty_repo("ws");
    t.commit("ws", "rerun's shape");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["ocr unused left-pad"], "{v}");
    assert_eq!(unsure(&v), Vec::<String>::new(), "{v}");
}

/// spaCy's GPU extras (round 40): one per CUDA build of cupy (`cupy-cuda102`,
/// `cupy-cuda11x`) and a wheel chooser (`cupy-wheel`), each installing the `cupy` the code
/// imports; freqtrade's fork `ft-scikit-optimize`, imported as scikit-optimize is (`skopt`).
#[test]
fn a_cuda_build_s_distribution_is_imported_by_the_name_before_its_build_word() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\ndependencies = []\n\n[project.optional-dependencies]\ncuda102 = [\"cupy-cuda102>=5\"]\ncuda11x = [\"cupy-cuda11x>=11\"]\ncuda-autodetect = [\"cupy-wheel>=11\"]\nleft = [\"left-pad\"]\nhyperopt = [\"ft-scikit-optimize\"]\n",
    );
    t.write(
        "ws/app/app/__init__.py",
        "try:\n    import cupy\nexcept ImportError:\n    cupy = None\nimport skopt\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "spaCy's shape");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app unused left-pad"], "{v}");
}

/// jj's docs site (round 40): an Astro app with no devDependencies and no entry for a
/// registry's users keeps everything in `dependencies`, so what only its config loads is no
/// sure dev-only finding; a library (with `exports`) still has one.
#[test]
fn an_app_keeping_all_in_one_section_has_no_sure_dev_only() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    for (dir, entry) in [("site", ""), ("lib", r#""exports": "./src/index.js", "#)] {
        module(&t, dir, dir);
        t.write(
            &format!("ws/{dir}/package.json"),
            &format!(r#"{{"name": "{dir}", {entry}"scripts": {{"build": "astro build"}}, "dependencies": {{"astro": "5", "remark-gfm": "4"}}}}"#),
        );
        t.write(
            &format!("ws/{dir}/astro.config.mjs"),
            "import { defineConfig } from 'astro/config';\nimport remarkGfm from 'remark-gfm';\nexport default defineConfig({ markdown: { remarkPlugins: [remarkGfm] } });\n",
        );
        t.write(&format!("ws/{dir}/src/index.js"), "export const x = 1;\n");
    }
    t.empty_repo("ws");
    t.commit("ws", "jj's docs site");
    let v = t.json(&["drift"]);
    assert_eq!(
        findings(&v),
        ["lib dev-only astro", "lib dev-only remark-gfm"],
        "{v}"
    );
    let u = unsure(&v);
    assert_eq!(u.len(), 2, "{v}");
    assert!(
        (u.iter()).all(|d| d.starts_with("site dev-only ")
            && d.contains(": the package declares no devDependencies")),
        "{v}"
    );
}

/// borg's shapes (round 40): an in-package test suite (`borg/testsuite/`, run by `pytest
/// --pyargs borg.testsuite`) is test code, and Read the Docs installs the docs'
/// requirements file its config names, which declares what `docs/conf.py` imports.
#[test]
fn an_in_package_testsuite_and_the_docs_host_s_requirements() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"borg\"\ndependencies = [\"left-pad\"]\n\n[dependency-groups]\ndev = [\"pytest\"]\n",
    );
    t.write("ws/app/borg/__init__.py", "import os\n");
    t.write("ws/app/borg/testsuite/__init__.py", "import pytest\n");
    t.write(
        "ws/app/docs/conf.py",
        "import guzzle_sphinx_theme\nhtml_theme = 'guzzle_sphinx_theme'\n",
    );
    t.write(
        "ws/app/requirements.d/docs.txt",
        "sphinx\nguzzle_sphinx_theme\n",
    );
    t.write(
        "ws/.readthedocs.yaml",
        "version: 2\npython:\n  install:\n    - requirements: app/requirements.d/docs.txt\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "borg's shapes");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app unused left-pad"], "{v}");
    assert_eq!(unsure(&v), Vec::<String>::new(), "{v}");
}

/// spaCy's shape (round 40): setup.cfg's `install_requires` declares what ships; setup.py's
/// code names `requirements.txt` only to copy it into a test package, and CI installs that
/// file as the development environment — so pytest there is no dev-only declaration.
#[test]
fn a_file_setup_py_names_beside_setup_cfg_s_requirements_declares_only_through_a_keyword() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/setup.cfg",
        "[metadata]\nname = app\n\n[options]\npackages = find:\ninstall_requires =\n    requests\n    left-pad\n",
    );
    t.write(
        "ws/app/setup.py",
        "from pathlib import Path\nfrom setuptools import setup\nROOT = Path(__file__).parent\nCOPY = {ROOT / \"requirements.txt\": ROOT / \"app\" / \"tests\" / \"test.txt\"}\nsetup()\n",
    );
    t.write("ws/app/requirements.txt", "requests\npytest\n");
    t.write("ws/app/app/__init__.py", "import requests\n");
    t.write("ws/app/app/tests/test_a.py", "import pytest\n");
    t.write(
        "ws/.github/workflows/tests.yml",
        "jobs:\n  t:\n    steps:\n      - run: pip install -r app/requirements.txt\n",
    );
    // ckan's: setup.py reads `requirements.txt` into `extras_require` beside setup.cfg's
    // one requirement: that file declares.
    module(&t, "ckan", "ckan");
    t.write(
        "ws/ckan/setup.cfg",
        "[metadata]\nname = ckan\n\n[options]\npackages = find:\ninstall_requires =\n    setuptools\n",
    );
    t.write(
        "ws/ckan/setup.py",
        "from setuptools import setup\nextras_require = {}\nfor group, path in [(\"requirements\", \"requirements.txt\")]:\n    with open(path) as f:\n        extras_require[group] = f.readlines()\nsetup(extras_require=extras_require)\n",
    );
    t.write("ws/ckan/requirements.txt", "flask\n");
    t.write("ws/ckan/ckan/__init__.py", "import flask\n");
    t.empty_repo("ws");
    t.commit("ws", "spaCy's shape");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        ["app unused left-pad", "ckan dev-only setuptools"],
        "{v}"
    );
}

/// nitro's shapes (round 40): its test fixture app imports packages committed under
/// `test/fixture/node_modules/`, which Node resolves there; its vitest config's `coverage`
/// block names no provider, so vitest loads its default, `@vitest/coverage-v8`.
#[test]
fn committed_node_modules_and_vitest_s_default_coverage_provider() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "nitro", "nitropack");
    t.write(
        "ws/nitro/package.json",
        r#"{"name": "nitropack", "exports": "./dist/index.mjs", "devDependencies": {"vitest": "2", "@vitest/coverage-v8": "2", "left-pad": "1"}}"#,
    );
    t.write("ws/nitro/src/index.ts", "export const x = 1;\n");
    t.write(
        "ws/nitro/vitest.config.ts",
        "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { coverage: { reporter: ['text'] } } });\n",
    );
    t.write("ws/nitro/test/a.test.ts", "import { it } from 'vitest';\n");
    t.write(
        "ws/nitro/test/fixture/routes/modules.ts",
        "import lib from '@fixture/nitro-lib';\nimport other from 'left-q';\n",
    );
    t.write(
        "ws/nitro/test/fixture/node_modules/@fixture/nitro-lib/package.json",
        r#"{"name": "@fixture/nitro-lib", "version": "1.0.0"}"#,
    );
    t.write(
        "ws/nitro/test/fixture/node_modules/@fixture/nitro-lib/index.mjs",
        "export default 1;\n",
    );
    // The review's case: shipped code imports what only a fixture's committed
    // `node_modules` holds: Node cannot resolve it from `src/`, so it is still owed.
    module(&t, "tiny", "tiny");
    t.write(
        "ws/tiny/package.json",
        r#"{"name": "tiny", "main": "src/index.js"}"#,
    );
    t.write("ws/tiny/src/index.js", "require('left-pad');\n");
    t.write("ws/tiny/fixtures/app/index.js", "require('left-pad');\n");
    t.write(
        "ws/tiny/fixtures/app/node_modules/left-pad/package.json",
        r#"{"name": "left-pad"}"#,
    );
    t.empty_repo("ws");
    t.commit("ws", "nitro's shapes");
    let v = t.json(&["drift"]);
    let mut found = findings(&v);
    found.sort();
    assert_eq!(
        found,
        [
            "nitropack undeclared left-q",
            "nitropack unused left-pad",
            "tiny undeclared left-pad"
        ],
        "{v}"
    );
    let e = explained(&t, "nitropack", "@fixture/nitro-lib");
    assert!(
        e.contains("nitro/test/fixture/node_modules/@fixture/nitro-lib/package.json is committed to the repository, above every file"),
        "{e}"
    );
}

/// bat's shape (round 41): `build = "build/main.rs"`, whose `mod application;` and `mod
/// util;` are `build/application.rs` and `build/util/mod.rs` (and that one's `mod more;`
/// `build/util/more.rs`): build-script code, using the build-dependencies.
#[test]
fn a_build_script_s_modules_are_build_script_code() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "bat", "bat");
    t.write(
        "ws/bat/Cargo.toml",
        "[package]\nname = \"bat\"\nbuild = \"build/main.rs\"\n\n[dependencies]\nregex = \"1\"\n\n[build-dependencies]\nserde = \"1\"\nonce_cell = \"1\"\nclap = \"4\"\n",
    );
    t.write(
        "ws/bat/src/lib.rs",
        "pub fn f() { regex::Regex::new(\"x\").ok(); }\n",
    );
    t.write(
        "ws/bat/build/main.rs",
        "mod application;\nmod util;\nfn main() { application::run(); }\n",
    );
    t.write(
        "ws/bat/build/application.rs",
        "use serde::Deserialize;\npub fn run() {}\n",
    );
    t.write("ws/bat/build/util/mod.rs", "mod more;\n");
    t.write(
        "ws/bat/build/util/more.rs",
        "static X: once_cell::sync::Lazy<u8> = once_cell::sync::Lazy::new(|| 1);\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "bat's shape");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["bat unused clap"], "{v}");
    assert_eq!(unsure(&v), Vec::<String>::new(), "{v}");
}

/// difftastic's vendored tree-sitter grammars (round 41): each Node binding's `binding.gyp`
/// finds its headers through the packages it runs Node to `require`, so `nan` and
/// `node-addon-api` are used though no JS file imports them.
#[test]
fn packages_a_binding_gyp_requires_are_used() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "grammar", "grammar");
    t.write(
        "ws/grammar/package.json",
        r#"{"name": "tree-sitter-x", "main": "bindings/node", "dependencies": {"nan": "2", "node-addon-api": "8", "left-pad": "1"}}"#,
    );
    t.write(
        "ws/grammar/binding.gyp",
        "{\n  'targets': [{\n    'include_dirs': [\"<!(node -e \\\"require('nan')\\\")\", \"<!@(node -p \\\"require('node-addon-api').include\\\")\"],\n    'sources': ['bindings/node/binding.cc']\n  }]\n}\n",
    );
    t.write(
        "ws/grammar/bindings/node/binding.cc",
        "#include \"nan.h\"\n#include <napi.h>\n",
    );
    t.write(
        "ws/grammar/bindings/node/index.js",
        "module.exports = require('../../build/Release/x.node');\n",
    );
    t.empty_repo("ws");
    t.commit("ws", "a grammar's node binding");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["grammar unused left-pad"], "{v}");
    assert_eq!(unsure(&v), Vec::<String>::new(), "{v}");
}

/// tox's dev group (round 41): `flaky` registers a pytest plugin under its own name, and
/// `pre-commit-uv` patches the pre-commit its config runs; neither is imported.
#[test]
fn flaky_and_a_pre_commit_plugin_beside_the_tools_they_plug_into_are_used() {
    let t = TestMesh::new();
    t.write("mesh.toml", MESH);
    module(&t, "app", "app");
    t.write(
        "ws/app/pyproject.toml",
        "[project]\nname = \"app\"\ndependencies = []\n\n[dependency-groups]\ndev = [\"pytest\", \"flaky\", \"pre-commit\", \"pre-commit-uv\", \"left-dev\"]\n",
    );
    t.write("ws/app/app/__init__.py", "import os\n");
    t.write("ws/app/tests/test_a.py", "import pytest\n");
    t.write("ws/app/.pre-commit-config.yaml", "repos: []\n");
    t.empty_repo("ws");
    t.commit("ws", "tox's dev group");
    let v = t.json(&["drift"]);
    assert_eq!(findings(&v), ["app unused left-dev"], "{v}");
    assert_eq!(unsure(&v), Vec::<String>::new(), "{v}");
}
