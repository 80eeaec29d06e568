//! `mesh drift` on one repository holding all four ecosystems, each with drift planted in it:
//! unused, undeclared and dev-only dependencies, internal and external, beside what must not
//! count (standard libraries, renames, sub-paths, scoped names, distribution names that are not
//! import names, a tool a script runs, an ignored dependency).

use crate::common::TestMesh;
use serde_json::Value;

const MESH: &str = "[mesh]\nname = \"mono\"\n\n[[repo]]\nname = \"mono\"\npath = \"mono\"\n";

fn module(t: &TestMesh, dir: &str, name: &str, extra: &str) {
    t.write(
        &format!("mono/{dir}/mesh-module.toml"),
        &format!("name = \"{name}\"\nkind = \"library\"\nbuild = 'true'\n{extra}"),
    );
}

fn planted() -> TestMesh {
    let t = TestMesh::new();
    t.empty_repo("mono");
    t.write("mesh.toml", MESH);
    rust(&t);
    go(&t);
    python(&t);
    js(&t);
    t.commit("mono", "drift planted");
    t
}

fn rust(t: &TestMesh) {
    module(t, "rust/core", "r-core", "");
    t.write(
        "mono/rust/core/Cargo.toml",
        r#"[package]
name = "r-core"

[dependencies]
serde = { version = "1", features = ["derive"] }
log = "0.4"
json = { package = "serde_json", version = "1" }
anyhow = "1"
rand = "0.8"

[dev-dependencies]
testkit-rs = { path = "../testkit" }
proptest = "1"

[build-dependencies]
cc = "1"
"#,
    );
    t.write(
        "mono/rust/core/src/lib.rs",
        "use std::collections::HashMap;\nuse serde::Serialize;\n\npub fn f() -> String {\n    log::info!(\"x\");\n    core::mem::drop(1);\n    let _ = regex::Regex::new(\"a\");\n    r_util::helper();\n    json::to_string(&1).unwrap_or_default()\n}\n\n#[cfg(test)]\nmod tests {\n    use testkit_rs::fake;\n}\n",
    );
    t.write(
        "mono/rust/core/build.rs",
        "fn main() { cc::Build::new(); }\n",
    );
    t.write("mono/rust/core/tests/it.rs", "use rand::Rng;\n");
    module(t, "rust/testkit", "testkit-rs", "");
    t.write(
        "mono/rust/testkit/Cargo.toml",
        "[package]\nname = \"testkit-rs\"\n",
    );
    t.write("mono/rust/testkit/src/lib.rs", "pub fn fake() {}\n");
    module(t, "rust/util", "r-util", "");
    t.write(
        "mono/rust/util/Cargo.toml",
        "[package]\nname = \"r-util\"\n",
    );
    t.write("mono/rust/util/src/lib.rs", "pub fn helper() {}\n");
}

fn go(t: &TestMesh) {
    module(t, "go/svc", "gosvc", "");
    t.write(
        "mono/go/svc/go.mod",
        "module example.com/svc\n\ngo 1.22\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n\tgithub.com/stretchr/testify v1.8.0\n\tgithub.com/unused/thing v1.0.0\n\tgithub.com/ind/x v1.0.0 // indirect\n\texample.com/golib v0.0.0\n)\n\nreplace example.com/golib => ../golib\n",
    );
    t.write(
        "mono/go/svc/main.go",
        "package main\n\nimport (\n\t\"fmt\"\n\t\"net/http\"\n\n\t\"example.com/golib/strs\"\n\t\"example.com/goother/x\"\n\t\"example.com/goworked/w\"\n\t\"example.com/svc/internal/db\"\n\t\"github.com/google/uuid\"\n\t\"github.com/pkg/errors\"\n)\n",
    );
    t.write("mono/go/svc/internal/db/db.go", "package db\n");
    t.write(
        "mono/go/svc/main_test.go",
        "package main\n\nimport \"github.com/stretchr/testify/assert\"\n",
    );
    // A go.work beside them uses a fourth module: found in workspace mode without a require.
    t.write(
        "mono/go/go.work",
        "go 1.22\n\nuse (\n\t./svc\n\t./golib\n\t./goworked\n)\n",
    );
    module(t, "go/goworked", "goworked", "");
    t.write(
        "mono/go/goworked/go.mod",
        "module example.com/goworked\n\ngo 1.22\n",
    );
    t.write("mono/go/goworked/w/w.go", "package w\n");
    module(t, "go/golib", "golib", "");
    t.write(
        "mono/go/golib/go.mod",
        "module example.com/golib\n\ngo 1.22\n",
    );
    t.write("mono/go/golib/strs/strs.go", "package strs\n");
    module(t, "go/goother", "goother", "");
    t.write(
        "mono/go/goother/go.mod",
        "module example.com/goother\n\ngo 1.22\n",
    );
    t.write("mono/go/goother/x/x.go", "package x\n");
}

fn python(t: &TestMesh) {
    module(t, "py/app", "pyapp", "[drift]\nignore = [\"flask\"]\n");
    t.write(
        "mono/py/app/pyproject.toml",
        r#"[project]
name = "pyapp"
dependencies = [
    "PyYAML>=6",
    "requests",
    "beautifulsoup4",
    "acme-lib",
    "attrs",
    "flask",
]

[dependency-groups]
test = ["pytest>=8", "hypothesis"]
"#,
    );
    t.write(
        "mono/py/app/pyapp/__init__.py",
        "import os, json\nimport tomllib\nfrom collections import abc\nimport yaml\nimport requests\nfrom . import core\nimport pyapp.core\nimport acmelib\n",
    );
    t.write(
        "mono/py/app/pyapp/core.py",
        "import numpy\nfrom dateutil import parser\nimport otherpkg\ntry:\n    import ujson\nexcept ImportError:\n    ujson = None\n",
    );
    t.write(
        "mono/py/app/tests/test_app.py",
        // A guarded import in a test (pydantic-ai's conftest) is optional there too.
        "import pytest\nfrom bs4 import BeautifulSoup\nimport helpers\nfrom contextlib import suppress\nwith suppress(ImportError):\n    import pandas\n",
    );
    t.write("mono/py/app/tests/helpers.py", "");
    // A setup.cfg project (no pyproject.toml), its package under src/.
    module(t, "py/cfg", "pycfg", "");
    t.write(
        "mono/py/cfg/setup.cfg",
        "[metadata]\nname = acme-cfg\n\n[options]\npackage_dir =\n    = src\npackages = find:\ninstall_requires =\n    requests>=2,<3\n    six\n    acme-lib\ntests_require = pytest\n\n[options.packages.find]\nwhere = src\n",
    );
    t.write(
        "mono/py/cfg/src/cfgpkg/__init__.py",
        "import requests\nimport acmelib\nimport toolz\n",
    );
    t.write(
        "mono/py/cfg/tests/test_cfg.py",
        "import pytest\nimport cfgpkg\n",
    );
    module(t, "py/lib", "pylib", "");
    t.write(
        "mono/py/lib/pyproject.toml",
        "[project]\nname = \"acme-lib\"\n",
    );
    t.write("mono/py/lib/acmelib/__init__.py", "");
    module(t, "py/other", "pyother", "");
    t.write(
        "mono/py/other/pyproject.toml",
        "[project]\nname = \"otherpkg\"\n",
    );
    t.write("mono/py/other/otherpkg/__init__.py", "");
}

fn js(t: &TestMesh) {
    module(t, "js/web", "web", "");
    t.write(
        "mono/js/web/package.json",
        r#"{
  "name": "@demo/web",
  "scripts": { "build": "tsc -b && vite build", "test": "vitest run" },
  "dependencies": {
    "lodash": "^4",
    "@scope/icons": "^1",
    "left-pad": "^1",
    "msw": "^2",
    "JSONStream": "^1",
    "@demo/jslib": "workspace:*"
  },
  "devDependencies": {
    "vitest": "^1",
    "@types/lodash": "^4",
    "@types/node": "^20",
    "@types/react": "^18",
    "typescript": "^5",
    "eslint": "^9"
  }
}
"#,
    );
    t.write(
        "mono/js/web/src/index.ts",
        "import debounce from 'lodash/debounce';\nimport { Star } from '@scope/icons/star';\nimport type { FC } from 'react';\nimport fs from 'fs';\nimport { readFile } from 'node:fs/promises';\nimport { x } from './x';\nimport { lib } from '@demo/jslib';\nimport axios from 'axios';\nimport { y } from '@demo/jsutil';\n",
    );
    t.write("mono/js/web/src/x.ts", "export const x = 1;\n");
    t.write(
        "mono/js/web/src/App.test.ts",
        "import { describe } from 'vitest';\nimport { http } from 'msw';\n",
    );
    // jest's own test patterns: a haste module name (no npm package could be called so) and
    // a virtual mock; and a legacy capitalised package that is declared and used.
    t.write(
        "mono/js/web/src/haste.test.js",
        "require('RegularModule');\njest.mock('test_preprocessor', () => ({}), {virtual: true});\nrequire('test_preprocessor');\n",
    );
    t.write(
        "mono/js/web/src/stream.ts",
        "import JSONStream from 'JSONStream';\n",
    );
    for (dir, name, pkg) in [
        ("js/lib", "jslib", "@demo/jslib"),
        ("js/util", "jsutil", "@demo/jsutil"),
    ] {
        module(t, dir, name, "");
        t.write(
            &format!("mono/{dir}/package.json"),
            &format!("{{\"name\": \"{pkg}\"}}"),
        );
        t.write(&format!("mono/{dir}/index.js"), "export const x = 1;\n");
    }
}

/// Each finding as one comparable line.
fn lines(v: &Value) -> Vec<String> {
    v["drift"]
        .as_array()
        .expect("a drift list")
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or("-").to_string();
            let line = f["line"]
                .as_u64()
                .map_or("-".to_string(), |l| l.to_string());
            format!(
                "{} {} {} {}:{line} {}",
                s("module"),
                s("kind"),
                s("dependency"),
                s("manifest"),
                s("evidence")
            )
        })
        .collect()
}

/// A module's record names its files' blobs, whose imports the store keeps once: were those
/// gone, drift (which reads every module's record) walks the modules again and finds the
/// same, never an error.
#[test]
fn records_whose_imports_are_gone_are_walked_again() {
    let t = planted();
    let run = t.run_json(&["drift"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let want = lines(&run.json());
    assert!(want.iter().any(|l| l.contains("undeclared")), "{want:?}");
    let store = t.path(".mesh/state.redb");
    // The kept drift answer too, or it would answer without a load.
    crate::common::empty_table(&store, "drift");
    crate::common::empty_table(&store, "imports");
    assert_eq!(crate::common::entries(&store, "imports"), 0);
    let run = t.run_json(&["drift"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(lines(&run.json()), want);
    // Walked and scanned again: the imports are kept again.
    assert!(crate::common::entries(&store, "imports") > 0);
}

#[test]
fn every_planted_finding_and_nothing_else() {
    let t = planted();
    let run = t.run_json(&["drift"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        lines(&run.json()),
        [
            "gosvc undeclared example.com/goother go/svc/go.mod:- go/svc/main.go:8",
            "gosvc undeclared github.com/google/uuid go/svc/go.mod:- go/svc/main.go:11",
            "gosvc unused github.com/unused/thing go/svc/go.mod:8 -",
            "pyapp unused attrs py/app/pyproject.toml:8 -",
            "pyapp dev-only beautifulsoup4 py/app/pyproject.toml:6 py/app/tests/test_app.py:2",
            "pyapp unused hypothesis py/app/pyproject.toml:13 -",
            "pyapp undeclared numpy py/app/pyproject.toml:- py/app/pyapp/core.py:1",
            "pyapp undeclared otherpkg py/app/pyproject.toml:- py/app/pyapp/core.py:3",
            "pyapp undeclared python-dateutil py/app/pyproject.toml:- py/app/pyapp/core.py:2",
            "pycfg unused six py/cfg/setup.cfg:10 -",
            "pycfg undeclared toolz py/cfg/setup.cfg:- py/cfg/src/cfgpkg/__init__.py:3",
            "r-core unused anyhow rust/core/Cargo.toml:8 -",
            "r-core unused proptest rust/core/Cargo.toml:13 -",
            "r-core undeclared r_util rust/core/Cargo.toml:- rust/core/src/lib.rs:8",
            "r-core dev-only rand rust/core/Cargo.toml:9 rust/core/tests/it.rs:1",
            "r-core undeclared regex rust/core/Cargo.toml:- rust/core/src/lib.rs:7",
            "web undeclared @demo/jsutil js/web/package.json:- js/web/src/index.ts:9",
            "web undeclared axios js/web/package.json:- js/web/src/index.ts:8",
            "web unused eslint js/web/package.json:18 -",
            "web unused left-pad js/web/package.json:7 -",
            "web dev-only msw js/web/package.json:8 js/web/src/App.test.ts:2",
        ]
    );
}

#[test]
fn check_exits_3_on_drift_and_0_when_clean_and_the_table_groups_by_module() {
    let t = planted();
    let run = t.run(&["drift", "--check", "r-core", "web"]);
    assert_eq!(run.code, 3, "{run}");
    let table = run.stdout;
    assert!(table.contains("r-core\n  unused     anyhow"), "{table}");
    assert!(table.contains("\nweb\n"), "{table}");
    assert!(!table.contains("pyapp"), "{table}");
    let run = t.run(&["drift", "--check", "jslib", "pylib", "golib", "testkit-rs"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    let run = t.run(&["drift", "nosuch"]);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("no module `nosuch`"), "{}", run.stderr);
}

/// The answer kept for refs that did not move is the one a fresh run gives; a commit or a
/// mesh.toml edit is never answered from it; a kept answer that does not decode is recomputed.
#[test]
fn the_kept_answer_is_never_stale_and_a_damaged_one_is_recomputed() {
    let t = planted();
    let kept = "the answer kept for these refs";
    let first = t.run_json(&["drift", "-v"]);
    assert!(!first.stderr.contains(kept), "{}", first.stderr);
    let want = lines(&first.json());
    let again = t.run_json(&["drift", "-v"]);
    assert!(again.stderr.contains(kept), "{}", again.stderr);
    assert_eq!(lines(&again.json()), want);
    // One module asked for: filtered from the kept answer.
    let web = t.run_json(&["drift", "-v", "web"]);
    assert!(web.stderr.contains(kept), "{}", web.stderr);
    let only_web: Vec<String> = want
        .iter()
        .filter(|l| l.starts_with("web "))
        .cloned()
        .collect();
    assert_eq!(lines(&web.json()), only_web);

    let left_pad = "    \"left-pad\": \"^1\",\n";
    t.edit_and_commit("mono", "js/web/package.json", left_pad, "", "left-pad goes");
    let moved = t.run_json(&["drift", "-v"]);
    assert!(!moved.stderr.contains(kept), "{}", moved.stderr);
    let without = lines(&moved.json());
    assert!(
        !without.iter().any(|l| l.contains("left-pad")),
        "{without:?}"
    );
    assert_eq!(without.len(), want.len() - 1);
    // The same as a store that never saw the first commit gives.
    std::fs::remove_file(t.path(".mesh/state.redb")).unwrap();
    assert_eq!(lines(&t.json(&["drift"])), without);
    assert!(t.run(&["drift", "-v"]).stderr.contains(kept));

    t.write("mesh.toml", &format!("{MESH}\n# edited\n"));
    let edited = t.run_json(&["drift", "-v"]);
    assert!(!edited.stderr.contains(kept), "{}", edited.stderr);
    assert_eq!(lines(&edited.json()), without);

    crate::common::damage_table(&t.path(".mesh/state.redb"), "drift");
    let damaged = t.run_json(&["drift", "-v"]);
    assert_eq!(damaged.code, 0, "{}", damaged.stderr);
    assert!(!damaged.stderr.contains(kept), "{}", damaged.stderr);
    assert_eq!(lines(&damaged.json()), without);
    let after = t.run_json(&["drift", "-v"]);
    assert!(after.stderr.contains(kept), "{}", after.stderr);
}
