//! `mesh graph`: modules, edges from imports, the cache, nesting, cycles, bad input.

use crate::common::{EXAMPLE_BUILD_EDGES, TestMesh, edges, example, git, named, set};
use serde_json::Value;

#[test]
fn example_edges_are_exactly_the_imports() {
    let t = example();
    let v = t.json(&["graph"]);
    assert_eq!(edges(&v, "build"), set(EXAMPLE_BUILD_EDGES));
    assert_eq!(edges(&v, "presence"), set(&[("route-proxy", "resolver")]));
    assert_eq!(
        edges(&v, "instantiation"),
        set(&[("dashboard", "route-proxy")])
    );
    let names: Vec<&str> = v["modules"]
        .as_array()
        .expect("modules")
        .iter()
        .map(|m| m["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names.len(), 10);
    let proxy = named(&v, "modules", "route-proxy");
    assert_eq!(proxy["kind"], "service");
    assert_eq!(proxy["repo"], "platform");
    assert_eq!(proxy["path"], "go/services/route-proxy");
    assert_eq!(
        proxy["provides"][0],
        "example.com/platform/services/route-proxy"
    );
    assert_eq!(v["warnings"].as_array().expect("warnings").len(), 0);
}

#[test]
fn why_prints_the_import_lines() {
    let t = example();
    let out = t.ok(&["graph", "--why", "dashboard", "reporter"]);
    assert_eq!(
        out.trim(),
        "build edge dashboard → reporter\n\
         ts/dashboard/src/app.ts:2: [build] import schema from \"../../../python/reporter/schema.json\";"
    );
    let out = t.ok(&["graph", "--why", "inventory", "rust-core"]);
    assert_eq!(
        out.trim(),
        "build edge inventory → rust-core\nrust/inventory/src/main.rs:1: [build] use core::Node;"
    );
    let err = t.fails(&["graph", "--why", "geo", "route-proxy"], 1);
    assert!(err.contains("the edge goes the other way"), "{err}");
}

#[test]
fn text_and_dot_formats() {
    let t = example();
    let text = t.ok(&["graph"]);
    assert!(
        text.contains("route-proxy (service, platform:go/services/route-proxy"),
        "{text}"
    );
    assert!(text.contains("  presence      → resolver"), "{text}");
    let dot = t.ok(&["graph", "--format", "dot"]);
    assert!(dot.starts_with("digraph mesh {"), "{dot}");
    assert!(
        dot.contains(r#""route-proxy" -> "geo" [style=solid"#),
        "{dot}"
    );
}

fn stats(v: &Value) -> (u64, u64, u64) {
    let s = &v["stats"];
    (
        s["files_parsed"].as_u64().expect("parsed"),
        s["files_cached"].as_u64().expect("cached"),
        s["modules_walked"].as_u64().expect("walked"),
    )
}

#[test]
fn unchanged_mesh_parses_nothing_and_one_change_parses_one_file() {
    let t = example();
    let (parsed, _, walked) = stats(&t.json(&["graph"]));
    assert_eq!((parsed, walked), (12, 10));
    assert_eq!(stats(&t.json(&["graph"])), (0, 0, 0));

    t.write(
        "platform/go/lib/geo/geo.go",
        "package geo\n\nimport \"example.com/platform/internal/logx\"\n\nvar X = logx.Line\n",
    );
    t.commit("platform", "one file");
    assert_eq!(stats(&t.json(&["graph"])), (1, 0, 1));
    assert_eq!(stats(&t.json(&["graph"])), (0, 0, 0));

    // A new file whose bytes equal an existing file's: read from the cache, not parsed.
    let same = std::fs::read_to_string(t.path("platform/go/lib/geo/geo.go")).expect("read");
    t.write("platform/go/lib/geo/copy.go", &same);
    t.commit("platform", "copy");
    assert_eq!(stats(&t.json(&["graph"])), (0, 2, 1));
}

#[test]
fn nested_modules_leave_the_parent_source_id_alone() {
    let t = example();
    let source = |v: &Value, name: &str| {
        named(v, "modules", name)["source"]
            .as_str()
            .expect("source")
            .to_string()
    };
    let before = t.json(&["graph"]);
    t.write("platform/go/services/resolver/extra.go", "package main\n");
    t.commit("platform", "nested change");
    let after = t.json(&["graph"]);
    assert_eq!(
        source(&before, "go-platform"),
        source(&after, "go-platform")
    );
    assert_ne!(source(&before, "resolver"), source(&after, "resolver"));

    t.write("platform/go/internal/logx/more.go", "package logx\n");
    t.commit("platform", "parent change");
    let last = t.json(&["graph"]);
    assert_ne!(source(&after, "go-platform"), source(&last, "go-platform"));
    assert_eq!(source(&after, "resolver"), source(&last, "resolver"));
    // A module with no nested modules and no inputs: its source id is its git tree id.
    let tree = git(
        &t.path("platform"),
        &["rev-parse", "HEAD:go/services/resolver"],
    );
    assert_eq!(source(&last, "resolver"), tree.trim());
}

#[test]
fn inputs_move_the_source_id() {
    let t = example();
    let manifest = t.path("platform/go/services/resolver/mesh-module.toml");
    let text = std::fs::read_to_string(&manifest).expect("read");
    std::fs::write(&manifest, format!("inputs = [\"go/go.mod\"]\n{text}")).expect("write");
    t.commit("platform", "inputs");
    let src = |v: &Value| {
        named(v, "modules", "resolver")["source"]
            .as_str()
            .expect("source")
            .to_string()
    };
    let before = src(&t.json(&["graph"]));
    t.write(
        "platform/go/go.mod",
        "module example.com/platform\n\ngo 1.23\n",
    );
    t.commit("platform", "go.mod");
    assert_ne!(before, src(&t.json(&["graph"])));
}

#[test]
fn a_cycle_is_a_note_with_evidence_and_check_exits_3() {
    let t = example();
    t.commit_a_cycle();
    let run = t.run(&["graph"]);
    assert!(run.success());
    let err = &run.stderr;
    assert!(
        err.contains("geo, go-platform, route-proxy import each other: built as one unit"),
        "{err}"
    );
    assert!(
        err.contains(
            "geo → go-platform   go/lib/geo/geo.go:6: \"example.com/platform/internal/logx\""
        ),
        "{err}"
    );
    assert!(
        err.contains("go-platform → route-proxy   go/internal/logx/cycle.go:3:"),
        "{err}"
    );
    let v = t.json(&["graph"]);
    assert_eq!(
        v["cycles"][0]["modules"],
        serde_json::json!(["geo", "go-platform", "route-proxy"])
    );
    assert_eq!(v["cycles"][0]["edges"].as_array().map(Vec::len), Some(3));
    t.fails(&["graph", "--check"], 3);
}

#[test]
fn ambiguous_names_make_edges_to_both_and_a_warning() {
    let t = example();
    t.write(
        "platform/ts/ui-kit-2/mesh-module.toml",
        "name = \"ui-kit-2\"\nkind = \"library\"\nbuild = \"true\"\n",
    );
    t.write(
        "platform/ts/ui-kit-2/package.json",
        r#"{"name": "@mesh/ui-kit"}"#,
    );
    t.commit("platform", "twin");
    let run = t.run_json(&["graph"]);
    assert!(run.success());
    let v = run.json();
    let build = edges(&v, "build");
    assert!(build.contains(&("dashboard".into(), "ui-kit".into())));
    assert!(build.contains(&("dashboard".into(), "ui-kit-2".into())));
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("ui-kit, ui-kit-2"), "{warnings}");
    assert!(run.stderr.contains("warning: modules ui-kit, ui-kit-2"));
}

#[test]
fn mesh_ignore_comment_drops_an_import() {
    let t = example();
    t.write(
        "platform/go/services/resolver/main.go",
        "package main\n\nimport . \"example.com/platform/lib/geo\" // mesh: ignore\n",
    );
    t.commit("platform", "ignore");
    let v = t.json(&["graph"]);
    assert!(!edges(&v, "build").contains(&("resolver".into(), "geo".into())));
}

#[test]
fn odd_files_are_skipped_not_fatal() {
    let t = example();
    // Binary, non-UTF-8, a large generated file, a symlink loop.
    std::fs::write(
        t.path("platform/go/lib/geo/blob.go"),
        [0u8, 159, 146, 150, 0, 1, 2],
    )
    .expect("w");
    std::fs::write(
        t.path("platform/go/lib/geo/latin1.go"),
        b"package geo\n// caf\xe9\nimport \"example.com/platform/internal/logx\"\n",
    )
    .expect("w");
    let big = "// generated\n".repeat(50 * 1024 * 1024 / 13);
    std::fs::write(t.path("platform/go/lib/geo/big.go"), big).expect("w");
    std::os::unix::fs::symlink("loop", t.path("platform/go/lib/geo/loop")).expect("link");
    t.commit("platform", "odd files");
    let run = t.run(&["graph", "--json", "-v"]);
    assert!(run.success(), "{}", run.stderr);
    let err = &run.stderr;
    assert!(err.contains("go/lib/geo/big.go: skipped"), "{err}");
    assert!(err.contains("go/lib/geo/blob.go: skipped, binary"), "{err}");
}

#[test]
fn module_without_language_manifest_is_said_in_verbose() {
    let t = example();
    t.write(
        "platform/scripts/mesh-module.toml",
        "name = \"scripts\"\nbuild = \"true\"\n",
    );
    t.write("platform/scripts/run.sh", "echo hi\n");
    t.commit("platform", "scripts");
    let run = t.run(&["graph", "-v"]);
    assert!(run.success());
    assert!(
        run.stderr
            .contains("module `scripts`: no language manifest"),
        "{}",
        run.stderr
    );
}

#[test]
fn bad_repositories_are_clear_errors_and_write_nothing() {
    let t = TestMesh::new();
    t.write(
        "mesh.toml",
        "[mesh]\nname = \"x\"\n[[repo]]\nname = \"p\"\npath = \"nowhere\"\n",
    );
    let err = t.fails(&["graph"], 1);
    assert!(err.contains("repository `p`"), "{err}");
    assert!(err.contains("mesh.toml:5:8"), "{err}");
    assert!(!t.path(".mesh/state.redb").exists());

    t.repo_from_fixture("platform", "example");
    t.write(
        "mesh.toml",
        "[mesh]\nname = \"x\"\n[[repo]]\nname = \"p\"\npath = \"platform\"\nref = \"refs/heads/nope\"\n",
    );
    let err = t.fails(&["graph"], 1);
    assert!(err.contains("ref `refs/heads/nope`"), "{err}");
    assert!(err.contains("mesh.toml:6:7"), "{err}");
    assert!(!t.path(".mesh/state.redb").exists());
}

#[test]
fn only_committed_objects_are_read() {
    let t = example();
    let before = t.json(&["graph"]);
    // An uncommitted change in the work tree is not seen.
    t.write("platform/go/services/resolver/main.go", "package main\n");
    let after = t.json(&["graph"]);
    assert_eq!(before["modules"], after["modules"]);
    assert_eq!(edges(&before, "build"), edges(&after, "build"));
}

/// The graph as a load with no cache gives it (a store of its own), without the stats.
fn uncached(t: &TestMesh) -> Value {
    let fresh = tempfile::tempdir().expect("tempdir");
    let state = fresh.path().join("state.redb");
    let mut v = t.json(&["--state", state.to_str().expect("path"), "graph"]);
    v["stats"] = Value::Null;
    v
}

/// The graph as the mesh's own store (and its cache) gives it, without the stats.
fn cached(t: &TestMesh) -> Value {
    let mut v = t.json(&["graph"]);
    v["stats"] = Value::Null;
    v
}

#[test]
fn the_graph_cache_follows_every_change_and_never_answers_stale() {
    let t = example();
    t.json(&["graph"]);
    assert_eq!(stats(&t.json(&["graph"])), (0, 0, 0));
    let start = cached(&t);
    assert_eq!(start, uncached(&t));

    // A module's manifest: its import rules change its edges.
    t.edit_and_commit(
        "platform",
        "go/services/route-proxy/mesh-module.toml",
        "ignore = [\"golang.org/x/*\"]",
        "ignore = [\"golang.org/x/*\", \"example.com/platform/lib/*\"]",
        "route-proxy ignores geo",
    );
    let ignored = cached(&t);
    assert_ne!(ignored, start);
    assert!(!edges(&ignored, "build").contains(&("route-proxy".into(), "geo".into())));
    assert_eq!(ignored, uncached(&t));
    assert_eq!(cached(&t), ignored, "a second read of the cache");

    // A moved ref: one file of one module.
    t.write(
        "platform/go/lib/geo/geo.go",
        "package geo\n\nimport \"example.com/platform/internal/logx\"\n\nvar X = logx.Line\n",
    );
    t.commit("platform", "one file");
    let moved = cached(&t);
    assert_eq!(moved, uncached(&t));
    assert_eq!(cached(&t), moved);

    // mesh.toml: another ref of the same repository.
    let platform = t.path("platform");
    git(&platform, &["branch", "-f", "older", "HEAD~2"]);
    let toml = std::fs::read_to_string(t.path("mesh.toml")).expect("mesh.toml");
    t.write(
        "mesh.toml",
        &toml.replace("refs/heads/main", "refs/heads/older"),
    );
    let older = cached(&t);
    assert_eq!(older, start, "the ref's tree is the first one's");
    assert_eq!(older, uncached(&t));
    t.write("mesh.toml", &toml);
    assert_eq!(cached(&t), moved);
    // That was the answer kept for these trees, which leaves the cache's head at the older
    // ref's: a load that is not `--json` (nothing kept) moves it back.
    t.ok(&["graph"]);
    // mesh.toml moved but no tree did: nothing is walked again.
    t.write("mesh.toml", &format!("{toml}\n# a comment\n"));
    assert_eq!(stats(&t.json(&["graph"])), (0, 0, 0));
    assert_eq!(cached(&t), moved);
}

#[test]
fn a_damaged_graph_cache_is_recomputed_never_an_error() {
    let t = example();
    t.json(&["graph"]);
    let want = cached(&t);
    let store = t.path(".mesh/state.redb");
    crate::common::damage_table(&store, "graph_edges");
    assert_eq!(cached(&t), want);
    // The edges were written again, whole.
    assert_eq!(stats(&t.json(&["graph"])), (0, 0, 0));
    crate::common::damage_table(&store, "graph_head");
    assert_eq!(cached(&t), want);
    assert_eq!(cached(&t), want);
    // Plan and status read the same cache.
    t.ok(&["plan"]);
    t.ok(&["status"]);
    // The import lines are kept apart from the edges (a plan reads none of them): damaged,
    // a plan does not notice, and the graph (its kept answer gone too) resolves them again.
    crate::common::damage_table(&store, "graph_evidence");
    crate::common::damage_table(&store, "graph_answer");
    t.ok(&["plan"]);
    assert_eq!(cached(&t), want);
    assert!(
        want["edges"].as_array().is_some_and(|e| e
            .iter()
            .any(|e| e["evidence"].as_array().is_some_and(|v| !v.is_empty()))),
        "{want}"
    );
}

#[test]
fn a_kept_graph_answer_is_a_fresh_one_and_a_damaged_one_is_ignored() {
    let t = example();
    let store = t.path(".mesh/state.redb");
    let graph = || t.ok(&["--json", "graph"]);
    graph();
    assert_eq!(
        crate::common::entries(&store, "graph_answer"),
        0,
        "a load that walked keeps nothing"
    );
    // Answered by the graph cache: that answer is kept, and given again as it was.
    let warm = graph();
    assert_eq!(crate::common::entries(&store, "graph_answer"), 1);
    assert_eq!(graph(), warm);
    assert_eq!(graph(), warm);

    // One commit: the kept answer is never served for the new tree.
    t.write(
        "platform/go/lib/geo/geo.go",
        "package geo\n\nimport \"example.com/platform/internal/logx\"\n\nvar X = logx.Line\n",
    );
    t.commit("platform", "one file");
    let changed = graph();
    assert_ne!(changed, warm);
    let hit = graph();
    let kept = graph();
    assert_eq!(kept, hit, "the kept answer is the answer the cache gave");
    let mut v: Value = serde_json::from_str(&kept).expect("JSON");
    v["stats"] = Value::Null;
    assert_eq!(v, uncached(&t), "and the answer of a load with no cache");

    // --check keeps its own answer, exit code included.
    assert_eq!(t.ok(&["--json", "graph", "--check"]), kept);
    assert_eq!(t.ok(&["--json", "graph", "--check"]), kept);

    // A damaged answer is no answer: the graph is loaded, and its answer kept again.
    crate::common::damage_table(&store, "graph_answer");
    assert_eq!(graph(), kept);
    assert_eq!(graph(), kept);
    // A cycle makes `--check` exit 3, kept or not.
    t.commit_a_cycle();
    for _ in 0..3 {
        assert_eq!(t.run(&["--json", "graph", "--check"]).code, 3);
    }
}

/// Enough files that one thread reads while others scan, packed as deltas of each other (as
/// `git gc` stores similar files) so that each is read through its chain: every file's
/// import is found, on its line, once.
#[test]
fn many_files_packed_as_deltas_are_each_read_and_scanned() {
    let t = example();
    for i in 0..450 {
        t.write(
            &format!("platform/go/lib/geo/g{i:03}.go"),
            &format!(
                "package geo\n\nimport \"example.com/platform/internal/logx\"\n\n// file {i}\nvar V{i} = logx.Line\n"
            ),
        );
    }
    t.commit("platform", "many files");
    git(
        &t.path("platform"),
        &[
            "repack",
            "-a",
            "-d",
            "-f",
            "-q",
            "--depth=50",
            "--window=50",
        ],
    );
    let v = t.json(&["graph"]);
    let lines: Vec<(String, u64)> = v["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .filter(|e| e["from"] == "geo")
        .flat_map(|e| e["evidence"].as_array().expect("evidence"))
        .map(|ev| {
            let file = ev["file"].as_str().expect("file").to_string();
            (file, ev["line"].as_u64().expect("line"))
        })
        .filter(|(file, _)| file.starts_with("go/lib/geo/g") && file != "go/lib/geo/geo.go")
        .collect();
    let want: Vec<(String, u64)> = (0..450)
        .map(|i| (format!("go/lib/geo/g{i:03}.go"), 3))
        .collect();
    let mut got = lines;
    got.sort();
    assert_eq!(got, want);
    assert!(stats(&v).0 >= 450, "{}", v["stats"]);
}
