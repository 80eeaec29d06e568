//! Edge kinds and cycles on the patterns real monorepos have: test code that imports back,
//! guarded imports, `tests` packages, namespace packages, components, test data; a Go
//! module-level cycle built as one unit with early cutoff at its boundary.

use crate::common::{TestMesh, edges, named, set};
use serde_json::Value;

const MESH: &str = "[mesh]\nname = \"mono\"\n\n[[repo]]\nname = \"mono\"\npath = \"mono\"\n";

fn module(t: &TestMesh, dir: &str, name: &str, build: &str) {
    t.write(
        &format!("mono/{dir}/mesh-module.toml"),
        &format!("name = \"{name}\"\nkind = \"library\"\nbuild = '{build}'\n"),
    );
}

/// One repository holding each pattern, with the edges each must make.
fn patterns() -> TestMesh {
    let t = TestMesh::new();
    t.empty_repo("mono");
    t.write("mesh.toml", MESH);
    rust_patterns(&t);
    go_patterns(&t);
    python_patterns(&t);
    js_patterns(&t);
    t.commit("mono", "patterns");
    t
}

/// Rust: a test-support crate that uses the crate its tests use.
fn rust_patterns(t: &TestMesh) {
    module(t, "rust/corelib", "corelib", "true");
    t.write(
        "mono/rust/corelib/Cargo.toml",
        "[package]\nname = \"corelib\"\n[dev-dependencies]\ntestkit = { path = \"../testkit\" }\n",
    );
    t.write(
        "mono/rust/corelib/src/lib.rs",
        "pub struct Thing;\n#[cfg(test)]\nmod more;\n\n#[cfg(test)]\nmod tests {\n    use testkit::fake;\n}\n\n#[test]\nfn inline() { testkit::fake(); }\n",
    );
    t.write("mono/rust/corelib/src/more.rs", "use testkit::other;\n");
    t.write("mono/rust/corelib/tests/it.rs", "use testkit::fake;\n");
    module(t, "rust/testkit", "testkit", "true");
    t.write(
        "mono/rust/testkit/Cargo.toml",
        "[package]\nname = \"testkit\"\n[dependencies]\ncorelib = { path = \"../corelib\" }\n",
    );
    t.write(
        "mono/rust/testkit/src/lib.rs",
        "use corelib::Thing;\npub fn fake() {}\n",
    );
}

/// Go: a root module whose test imports a nested module that imports the root; test data
/// that would import it too is not read.
fn go_patterns(t: &TestMesh) {
    module(t, "go", "gomono", "true");
    t.write("mono/go/go.mod", "module example.com/mono\n\ngo 1.22\n");
    t.write("mono/go/util/util.go", "package util\n");
    t.write(
        "mono/go/util/util_test.go",
        "package util\n\nimport \"example.com/mono/nested/helper\"\n",
    );
    t.write(
        "mono/go/util/testdata/gen.go",
        "package gen\n\nimport \"example.com/mono/nested/helper\"\n",
    );
    module(t, "go/nested", "gonested", "true");
    t.write(
        "mono/go/nested/go.mod",
        "module example.com/mono/nested\n\ngo 1.22\n",
    );
    t.write(
        "mono/go/nested/helper/h.go",
        "package helper\n\nimport \"example.com/mono/util\"\n",
    );
}

/// Python: a guarded import, a `tests` package in two modules, a namespace package.
fn python_patterns(t: &TestMesh) {
    // Python: a guarded import of a plugin that imports the package back.
    module(t, "py/app", "app", "true");
    t.write("mono/py/app/pyproject.toml", "[project]\nname = \"app\"\n");
    t.write(
        "mono/py/app/app/__init__.py",
        "try:\n    import plugin_x\nexcept ImportError:\n    plugin_x = None\n",
    );
    module(t, "py/plugin_x", "plugin-x", "true");
    t.write(
        "mono/py/plugin_x/pyproject.toml",
        "[project]\nname = \"plugin-x\"\n",
    );
    t.write("mono/py/plugin_x/plugin_x/__init__.py", "import app\n");
    // Python: a `tests` package in two modules is neither module's name.
    for (dir, name) in [("py/alpha", "alpha"), ("py/beta", "beta")] {
        module(t, dir, name, "true");
        t.write(&format!("mono/{dir}/{name}/__init__.py"), "");
        t.write(&format!("mono/{dir}/tests/__init__.py"), "");
        t.write(&format!("mono/{dir}/tests/cli.py"), "x = 1\n");
        t.write(
            &format!("mono/{dir}/tests/test_cli.py"),
            "from tests.cli import x\n",
        );
    }
    // Python: a namespace package shared by two modules.
    module(t, "py/ns_one", "ns-one", "true");
    t.write("mono/py/ns_one/acme/one/__init__.py", "");
    module(t, "py/ns_two", "ns-two", "true");
    t.write(
        "mono/py/ns_two/acme/two/__init__.py",
        "import acme\nfrom acme.one import thing\n",
    );
}

/// JS/TS: Svelte and Vue components import sibling packages; a test imports a test kit;
/// a jscodeshift-style test fixture imports something no build has.
fn js_patterns(t: &TestMesh) {
    module(t, "js/ui", "ui", "true");
    t.write("mono/js/ui/package.json", r#"{"name": "@demo/ui"}"#);
    t.write(
        "mono/js/ui/src/App.svelte",
        "<script lang=\"ts\">\n  import { x } from '@demo/lib';\n</script>\n<p>import y from '@demo/other'</p>\n",
    );
    t.write(
        "mono/js/ui/src/C.vue",
        "<template><div/></template>\n<script setup>\nimport y from '@demo/util'\n</script>\n",
    );
    t.write(
        "mono/js/ui/src/App.test.ts",
        "import { render } from '@demo/testkit';\n",
    );
    t.write(
        "mono/js/ui/src/__testfixtures__/t.input.js",
        "import z from '@demo/other';\n",
    );
    for (dir, name, pkg) in [
        ("js/lib", "lib", "@demo/lib"),
        ("js/util", "util", "@demo/util"),
        ("js/other", "other", "@demo/other"),
        ("js/testkit", "testkit-js", "@demo/testkit"),
    ] {
        module(t, dir, name, "true");
        t.write(
            &format!("mono/{dir}/package.json"),
            &format!("{{\"name\": \"{pkg}\"}}"),
        );
        t.write(&format!("mono/{dir}/index.js"), "export const x = 1;\n");
    }
}

#[test]
fn each_pattern_makes_exactly_its_edges_with_kinds() {
    let t = patterns();
    let v = t.json(&["graph"]);
    assert_eq!(
        edges(&v, "build"),
        set(&[
            ("gonested", "gomono"),
            ("ns-two", "ns-one"),
            ("plugin-x", "app"),
            ("testkit", "corelib"),
            ("ui", "lib"),
            ("ui", "util"),
        ])
    );
    assert_eq!(
        edges(&v, "dev"),
        set(&[
            ("corelib", "testkit"),
            ("gomono", "gonested"),
            ("ui", "testkit-js"),
        ])
    );
    assert_eq!(edges(&v, "optional"), set(&[("app", "plugin-x")]));
    assert_eq!(v["cycles"], serde_json::json!([]));
    assert_eq!(v["warnings"], serde_json::json!([]), "no ambiguity: {v}");
    // Every piece of evidence carries its kind.
    let corelib: &Value = v["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .find(|e| e["from"] == "corelib")
        .expect("corelib's edge");
    let mut lines: Vec<String> = corelib["evidence"]
        .as_array()
        .expect("evidence")
        .iter()
        .map(|e| {
            format!(
                "{}:{} {}",
                e["file"].as_str().unwrap_or(""),
                e["line"],
                e["kind"].as_str().unwrap_or("")
            )
        })
        .collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            "rust/corelib/src/lib.rs:11 dev",
            "rust/corelib/src/lib.rs:7 dev",
            "rust/corelib/src/more.rs:1 dev",
            "rust/corelib/tests/it.rs:1 dev",
        ]
    );
    // The kind filter, the table and --why name the kinds; --check passes.
    let dev = t.json(&["graph", "--kind", "dev"]);
    assert_eq!(dev["edges"].as_array().map(Vec::len), Some(3));
    let why = t.ok(&["graph", "--why", "app", "plugin-x"]);
    assert!(why.starts_with("optional edge app → plugin-x"), "{why}");
    assert!(
        why.contains("py/app/app/__init__.py:2: [optional] import plugin_x"),
        "{why}"
    );
    let table = t.ok(&["graph"]);
    assert!(table.contains("  dev           → testkit"), "{table}");
    let dot = t.ok(&["graph", "--format", "dot"]);
    assert!(
        dot.contains("\"app\" -> \"plugin-x\" [style=dashed, color=steelblue, label=\"optional\"]"),
        "{dot}"
    );
    t.ok(&["graph", "--check"]);
}

#[test]
fn every_pattern_builds_and_a_dev_dependency_move_rejudges_its_users() {
    let t = patterns();
    assert_eq!(built(&t).len(), 15, "every module built, each fit");
    // The test kit moves: the crate whose tests use it is re-judged; the kit's own
    // dependents are not (nothing depends on corelib's artifact through a dev edge).
    t.write(
        "mono/rust/testkit/src/lib.rs",
        "use corelib::Thing;\npub fn fake() { }\n",
    );
    t.commit("mono", "testkit moves");
    let plan = t.json(&["plan"]);
    let corelib = named(&plan, "modules", "corelib");
    assert_eq!(corelib["state"], "stale");
    assert_eq!(corelib["reason"], "dev dependency testkit moved");
    assert_eq!(named(&plan, "modules", "gomono")["state"], "current");
}

/// A Go root module and a nested module that import each other's packages in non-test code,
/// and a service built against the root.
fn go_cycle() -> TestMesh {
    let t = TestMesh::new();
    t.empty_repo("mono");
    t.write("mesh.toml", MESH);
    // Each build's artifact is made from its own files only, so a rebuild whose own files did
    // not change reproduces its digest.
    module(&t, "go", "root", "cp types/t.go \"$MESH_OUT/\"");
    t.write("mono/go/go.mod", "module example.com/mono\n\ngo 1.22\n");
    t.write(
        "mono/go/types/t.go",
        "package types\n\nimport \"example.com/mono/api/client\"\n",
    );
    module(&t, "go/api", "api", "cp client/c.go \"$MESH_OUT/\"");
    t.write(
        "mono/go/api/go.mod",
        "module example.com/mono/api\n\ngo 1.22\n",
    );
    t.write(
        "mono/go/api/client/c.go",
        "package client\n\nimport \"example.com/mono/types\"\n",
    );
    module(
        &t,
        "svc",
        "svc",
        "test -f \"$MESH_DEP_ROOT/t.go\" && cp main.go \"$MESH_OUT/\"",
    );
    t.write("mono/svc/go.mod", "module example.com/svc\n\ngo 1.22\n");
    t.write(
        "mono/svc/main.go",
        "package main\n\nimport \"example.com/mono/types\"\n",
    );
    t.commit("mono", "a module-level cycle");
    t
}

fn built(t: &TestMesh) -> Vec<String> {
    let run = t.run_json(&["build", "--behind"]);
    assert!(run.success(), "{}", run.stderr);
    let v = run.json();
    let mut names: Vec<String> = v["built"]
        .as_array()
        .expect("built")
        .iter()
        .map(|b| {
            assert_eq!(b["verdict"], "fit", "{v}");
            b["module"].as_str().unwrap_or("").to_string()
        })
        .collect();
    names.sort();
    names
}

#[test]
fn a_go_module_cycle_is_built_as_one_unit_with_early_cutoff_at_its_boundary() {
    let t = go_cycle();
    let v = t.json(&["graph"]);
    assert_eq!(
        edges(&v, "build"),
        set(&[("api", "root"), ("root", "api"), ("svc", "root")])
    );
    assert_eq!(
        v["cycles"][0]["modules"],
        serde_json::json!(["api", "root"])
    );
    assert_eq!(built(&t), ["api", "root", "svc"]);
    assert!(built(&t).is_empty(), "a second run builds nothing");

    // A change inside the cycle rebuilds the whole unit; root's artifact did not change, so
    // svc, built against it, is spared.
    t.write(
        "mono/go/api/client/c.go",
        "package client\n\nimport \"example.com/mono/types\"\n\n// v2\n",
    );
    t.commit("mono", "api moves");
    let plan = t.json(&["plan"]);
    assert_eq!(
        named(&plan, "modules", "root")["reason"],
        "api, in its build cycle, moved"
    );
    assert_eq!(named(&plan, "modules", "svc")["state"], "waits");
    assert_eq!(built(&t), ["api", "root"]);
    assert_eq!(
        named(&t.json(&["plan"]), "modules", "svc")["state"],
        "current"
    );

    // A change to root's own files changes its artifact: the unit and its dependent rebuild.
    t.write(
        "mono/go/types/t.go",
        "package types\n\nimport \"example.com/mono/api/client\"\n\n// v2\n",
    );
    t.commit("mono", "root moves");
    assert_eq!(built(&t), ["api", "root", "svc"]);
}

#[test]
fn the_example_cycle_builds_and_check_forbids_it() {
    let t = crate::common::example();
    t.commit_a_cycle();
    assert_eq!(built(&t).len(), 10, "every module built, each fit");
    t.fails(&["graph", "--check"], 3);
}

#[test]
fn damaged_files_are_read_as_far_as_they_go() {
    let t = TestMesh::new();
    t.empty_repo("mono");
    t.write("mesh.toml", MESH);
    module(&t, "a", "a", "true");
    t.write("mono/a/Cargo.toml", "[package]\nname = \"a\"\n");
    t.write(
        "mono/a/src/lib.rs",
        "use b::x;\n#[cfg(test)]\nmod tests {\n    use c::y;\n    fn f() {\n",
    );
    module(&t, "p", "p", "true");
    t.write(
        "mono/p/pyproject.toml",
        "[project]\nname = \"p\"\n[tool.setuptools]\npackages = [\"ghost\", \"p\"]\n",
    );
    t.write(
        "mono/p/p/__init__.py",
        "import b_py\ntry:\n    import c_py\n",
    );
    t.write(
        "mono/p/p/two.svelte",
        "<script>import '@d/x'</script><script>import '@d/y'</script>",
    );
    t.write("mono/p/p/none.svelte", "<p>no script</p>");
    for (dir, name, manifest) in [
        ("b", "b", ("Cargo.toml", "[package]\nname = \"b\"\n")),
        ("c", "c", ("Cargo.toml", "[package]\nname = \"c\"\n")),
        (
            "bpy",
            "b-py",
            ("pyproject.toml", "[project]\nname = \"b_py\"\n"),
        ),
        (
            "cpy",
            "c-py",
            ("pyproject.toml", "[project]\nname = \"c_py\"\n"),
        ),
        ("dx", "dx", ("package.json", "{\"name\": \"@d/x\"}")),
        ("dy", "dy", ("package.json", "{\"name\": \"@d/y\"}")),
    ] {
        module(&t, dir, name, "true");
        t.write(&format!("mono/{dir}/{}", manifest.0), manifest.1);
        // A crate others import has a library.
        if manifest.0 == "Cargo.toml" {
            t.write(&format!("mono/{dir}/src/lib.rs"), "");
        }
    }
    t.commit("mono", "damage");
    let run = t.run(&["graph", "--json", "-v"]);
    assert!(run.success(), "{}", run.stderr);
    let v = run.json();
    assert_eq!(
        edges(&v, "build"),
        set(&[
            ("a", "b"),
            ("p", "b-py"),
            ("p", "c-py"),
            ("p", "dx"),
            ("p", "dy")
        ])
    );
    assert_eq!(edges(&v, "dev"), set(&[("a", "c")]));
    let err = &run.stderr;
    assert!(err.contains("`ghost`, which is not in the module"), "{err}");
    assert!(
        err.contains("mono:a/src/lib.rs: line 2: a test-only item never closes"),
        "{err}"
    );
    assert!(
        err.contains("mono:p/p/__init__.py: line 2: `try:` has no `except`"),
        "{err}"
    );
    assert!(
        err.contains("mono:p/p/none.svelte: no <script> block"),
        "{err}"
    );
}

/// What real repositories taught: workspace-inherited Rust renames, Cargo bench targets,
/// Python modules inside a namespace directory, `from pkg import submodule`.
#[test]
fn manifest_facts_found_on_real_repositories() {
    let t = TestMesh::new();
    t.empty_repo("mono");
    t.write("mesh.toml", MESH);
    t.write(
        "mono/ws/Cargo.toml",
        "[workspace]\nmembers = [\"a\", \"b\", \"benches\"]\n[workspace.dependencies]\nbee = { path = \"b\", package = \"b-crate\" }\n",
    );
    module(&t, "ws/a", "a", "true");
    t.write(
        "mono/ws/a/Cargo.toml",
        "[package]\nname = \"a-crate\"\n[dependencies]\nbee = { workspace = true }\n",
    );
    t.write("mono/ws/a/src/lib.rs", "use bee::x;\n");
    module(&t, "ws/b", "b", "true");
    t.write("mono/ws/b/Cargo.toml", "[package]\nname = \"b-crate\"\n");
    module(&t, "ws/benches", "benches", "true");
    t.write(
        "mono/ws/benches/Cargo.toml",
        "[package]\nname = \"benches\"\n[[bench]]\nname = \"fs\"\npath = \"fs.rs\"\n",
    );
    t.write("mono/ws/benches/fs.rs", "use a_crate::y;\n");
    t.write("mono/ws/benches/src/lib.rs", "pub fn y() {}\n");
    module(&t, "py/inst", "inst", "true");
    t.write(
        "mono/py/inst/src/otel/instrumentation/instrumentor.py",
        "x = 1\n",
    );
    t.write(
        "mono/py/inst/src/otel/instrumentation/_labeler/__init__.py",
        "",
    );
    module(&t, "py/dbapi", "dbapi", "true");
    t.write(
        "mono/py/dbapi/src/otel/instrumentation/dbapi/__init__.py",
        "",
    );
    module(&t, "py/user", "user", "true");
    t.write(
        "mono/py/user/user/__init__.py",
        "from otel.instrumentation.instrumentor import Base\nfrom otel.instrumentation import dbapi\n",
    );
    // A service whose entry point stands beside its (inferred) packages: built against lib.
    module(&t, "py/svc", "svc", "true");
    t.write("mono/py/svc/main.py", "import user\n");
    t.write("mono/py/svc/handlers/__init__.py", "");
    t.write(
        "mono/py/svc/tests/test_main.py",
        "from otel.instrumentation import dbapi\n",
    );
    // `any(test, …)` is compiled in normal builds too. (It imports benches, not a: a Rust
    // build cycle is a scanner error, see below.)
    t.write(
        "mono/ws/b/src/lib.rs",
        "#[cfg(any(test, feature = \"testing\"))]\npub mod testing {\n    pub use benches::y;\n}\n",
    );
    t.commit("mono", "facts");
    let v = t.json(&["graph"]);
    assert_eq!(
        edges(&v, "build"),
        set(&[
            ("a", "b"),
            ("b", "benches"),
            ("svc", "user"),
            ("user", "dbapi"),
            ("user", "inst")
        ])
    );
    assert_eq!(edges(&v, "dev"), set(&[("benches", "a"), ("svc", "dbapi")]));
    assert_eq!(v["warnings"], serde_json::json!([]), "{v}");
}

/// The Rust patterns that made false edges on real workspaces: a proc-macro crate whose
/// `quote!` writes paths of the crate that uses it (nushell's `nu-derive-value` and
/// `nu-protocol`), a cargo-fuzz `fuzz/` crate with its own `[workspace]`, a tool crate under
/// `[workspace] exclude`, and a crate named by a keyword (`r#type`).
fn rust_gaps() -> TestMesh {
    let t = TestMesh::new();
    t.empty_repo("mono");
    t.write("mesh.toml", MESH);
    module(&t, "proto", "proto", "true");
    t.write(
        "mono/proto/Cargo.toml",
        "[package]\nname = \"nu-proto\"\n[dependencies]\nnu-derive = { path = \"../derive\" }\ntype = { path = \"../kw\" }\n[workspace]\nexclude = [\"tools/gen\"]\n",
    );
    t.write(
        "mono/proto/src/lib.rs",
        "use nu_derive::FromValue;\npub fn kinds() { r#type::Kind::default(); }\n",
    );
    t.write(
        "mono/proto/fuzz/Cargo.toml",
        "[package]\nname = \"nu-proto-fuzz\"\n\n[dependencies]\nlibfuzzer-sys = \"0.4\"\nnu-derive = { path = \"../../derive\" }\n\n# Prevent this from interfering with workspaces\n[workspace]\nmembers = [\".\"]\n",
    );
    t.write(
        "mono/proto/fuzz/fuzz_targets/parse.rs",
        "#![no_main]\nuse libfuzzer_sys::fuzz_target;\nuse nu_derive::Probe;\nfuzz_target!(|d: &[u8]| { nu_derive::probe(d); });\n",
    );
    t.write(
        "mono/proto/tools/gen/src/main.rs",
        "fn main() { nu_derive::generate(); }\n",
    );
    module(&t, "derive", "derive", "true");
    t.write(
        "mono/derive/Cargo.toml",
        "[package]\nname = \"nu-derive\"\n[lib]\nproc-macro = true\n[dependencies]\nquote = \"1\"\n",
    );
    t.write(
        "mono/derive/src/lib.rs",
        "use quote::quote;\n\n#[proc_macro_derive(FromValue)]\npub fn derive(input: proc_macro::TokenStream) -> proc_macro::TokenStream {\n    quote! {\n        impl nu_proto::FromValue for X {\n            fn from(v: nu_proto::Value) -> Self { todo!() }\n        }\n    }\n    .into()\n}\n",
    );
    module(&t, "kw", "kw", "true");
    t.write("mono/kw/Cargo.toml", "[package]\nname = \"type\"\n");
    t.write(
        "mono/kw/src/lib.rs",
        "#[derive(Default)]\npub struct Kind;\n",
    );
    t.commit("mono", "rust gaps");
    t
}

#[test]
fn quote_bodies_nested_workspaces_and_raw_keyword_paths_make_only_real_edges() {
    let t = rust_gaps();
    let v = t.json(&["graph"]);
    // The raw `r#type::` path reaches the crate named `type`; the
    // derive's `quote!` makes no edge back to proto, so there is no cycle; the fuzz and
    // excluded tool crates are not proto's code.
    assert_eq!(
        edges(&v, "build"),
        set(&[("proto", "derive"), ("proto", "kw")])
    );
    assert_eq!(edges(&v, "dev"), set(&[]));
    assert_eq!(v["cycles"], serde_json::json!([]));
    let why = t.ok(&["graph", "--why", "proto", "derive"]);
    assert!(!why.contains("fuzz"), "{why}");
    assert!(!why.contains("tools/gen"), "{why}");
    // Nor does drift see the fuzz crate's `libfuzzer_sys`.
    let d = t.json(&["drift", "proto"]);
    assert_eq!(d["drift"], serde_json::json!([]), "{d}");
}

#[test]
fn a_rust_build_cycle_is_a_scanner_error_naming_the_files_never_a_unit() {
    let t = rust_gaps();
    // A misread import, as the scanner made them before: two crates importing each other.
    t.write(
        "mono/derive/src/more.rs",
        "pub fn f() { nu_proto::kinds(); }\n",
    );
    t.commit("mono", "a false cycle");
    for verb in [&["graph"][..], &["plan"], &["build", "--dry-run"]] {
        let err = t.fails(verb, 1);
        assert!(err.contains("derive, proto import each other"), "{err}");
        assert!(
            err.contains("derive → proto   derive/src/more.rs:1:"),
            "{err}"
        );
        assert!(
            err.contains("proto → derive   proto/src/lib.rs:1:"),
            "{err}"
        );
        assert!(err.contains("mesh: ignore"), "{err}");
    }
    // Marked, the import makes no edge, and the crates build one after the other.
    t.write(
        "mono/derive/src/more.rs",
        "pub fn f() { nu_proto::kinds(); } // mesh: ignore\n",
    );
    t.commit("mono", "marked");
    let v = t.json(&["graph"]);
    assert_eq!(v["cycles"], serde_json::json!([]));
}

/// A setuptools project configured by `setup.cfg` alone, its package under a non-standard
/// `lib/` (as older monorepos keep them): it provides the package setup.cfg names, and its
/// files outside that package are dev code.
#[test]
fn setup_cfg_names_the_packages_a_module_ships() {
    let t = TestMesh::new();
    t.empty_repo("mono");
    t.write("mesh.toml", MESH);
    module(&t, "billing", "billing", "true");
    t.write(
        "mono/billing/setup.cfg",
        "[metadata]\nname = acme-billing\n\n[options]\npackage_dir =\n    = lib\npackages = billing\ninstall_requires =\n    requests\n",
    );
    t.write("mono/billing/lib/billing/__init__.py", "");
    t.write("mono/billing/tools/release.py", "import users\n");
    module(&t, "users", "users", "true");
    t.write(
        "mono/users/users/__init__.py",
        "from billing import invoice\n",
    );
    t.commit("mono", "setup.cfg");
    let v = t.json(&["graph"]);
    assert_eq!(edges(&v, "build"), set(&[("users", "billing")]));
    assert_eq!(edges(&v, "dev"), set(&[("billing", "users")]));
    let billing = crate::common::named(&v, "modules", "billing");
    assert_eq!(
        billing["provides"],
        serde_json::json!(["acme_billing", "billing"])
    );
}

/// A TypeScript app reaching a sibling library's source through a `tsconfig.json` alias (the
/// Nx / Vite monorepo layout), beside an alias into its own source: the first is a build edge,
/// the second a self-import, and neither is a package drift should ask to declare.
#[test]
fn tsconfig_paths_aliases_resolve_like_relative_imports() {
    let t = TestMesh::new();
    t.empty_repo("mono");
    t.write("mesh.toml", MESH);
    module(&t, "apps/web", "web", "true");
    t.write(
        "mono/apps/web/package.json",
        "{\"name\": \"@acme/web\", \"dependencies\": {\"react\": \"18\"}}",
    );
    t.write(
        "mono/apps/web/tsconfig.json",
        "{\n  // Nx writes these\n  \"compilerOptions\": {\n    \"baseUrl\": \".\",\n    \"paths\": {\n      \"@shared/*\": [\"../../libs/shared/src/*\"],\n      \"@/*\": [\"./src/*\"],\n    },\n  },\n}\n",
    );
    t.write(
        "mono/apps/web/src/main.tsx",
        "import React from 'react';\nimport { fmt } from '@shared/date/format';\nimport { App } from '@/app';\n",
    );
    t.write("mono/apps/web/src/app.tsx", "export const App = 1;\n");
    module(&t, "libs/shared", "shared", "true");
    t.write(
        "mono/libs/shared/package.json",
        "{\"name\": \"@acme/shared-lib\"}",
    );
    t.write(
        "mono/libs/shared/src/date/format.ts",
        "export const fmt = 1;\n",
    );
    t.commit("mono", "tsconfig paths");
    let v = t.json(&["graph"]);
    assert_eq!(edges(&v, "build"), set(&[("web", "shared")]));
    let why = t.ok(&["graph", "--why", "web", "shared"]);
    assert!(why.contains("apps/web/src/main.tsx:2"), "{why}");
    let d = t.json(&["drift"]);
    assert_eq!(d["drift"], serde_json::json!([]), "{d}");
}

/// yew's shape: an example app named `futures` beside packages that use the registry's
/// `futures`. A package with no library provides no crate name (Cargo ignores a dependency
/// on it), so their imports make no edge to it, and its own import of them is no cycle.
#[test]
fn a_package_without_a_library_provides_no_crate_name() {
    let t = TestMesh::new();
    t.empty_repo("mono");
    t.write("mesh.toml", MESH);
    module(&t, "app", "app", "true");
    t.write(
        "mono/app/Cargo.toml",
        "[package]\nname = \"app\"\n[dependencies]\nfutures = \"0.3\"\n",
    );
    t.write("mono/app/src/lib.rs", "use futures::StreamExt;\n");
    module(&t, "examples/futures", "futures", "true");
    t.write(
        "mono/examples/futures/Cargo.toml",
        "[package]\nname = \"futures\"\n[dependencies]\napp = { path = \"../../app\" }\n",
    );
    t.write(
        "mono/examples/futures/src/main.rs",
        "use app::x;\nfn main() {}\n",
    );
    t.commit("mono", "an example named as a crate");
    let run = t.run(&["graph", "--json", "-v"]);
    assert!(run.success(), "{}", run.stderr);
    assert_eq!(edges(&run.json(), "build"), set(&[("futures", "app")]));
    assert!(run.stderr.contains("builds no library"), "{}", run.stderr);
}
