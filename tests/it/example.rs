//! `mesh init --example`: a newcomer gets a demo mesh that delivers end to end, run from inside it.

use crate::common::{EXAMPLE_BUILD_EDGES, edges, fixtures, git, json_in, mesh_in, ok_in, set};
use std::path::{Path, PathBuf};

/// Every file under `dir` (relative path → bytes), leaving out `.git`.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).expect("read dir") {
            let p = e.expect("entry").path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).expect("below root").to_path_buf();
                out.push((rel, std::fs::read(&p).expect("read")));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Makes the example in `<tmp>/demo`; returns it.
fn init_example(tmp: &Path) -> PathBuf {
    let demo = tmp.join("demo");
    let run = mesh_in(tmp, &["init", "--example", "demo"]);
    let err = &run.stderr;
    assert!(run.success(), "{err}");
    assert!(
        err.contains("cd demo && mesh reconcile && mesh status"),
        "{err}"
    );
    demo
}

#[test]
fn example_delivers_to_every_node() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let demo = init_example(tmp.path());

    // The repository is the fixture, committed on main and checked out with a clean status.
    let platform = demo.join("platform");
    assert_eq!(files(&platform), files(&fixtures().join("example")));
    assert_eq!(
        git(&platform, &["symbolic-ref", "HEAD"]).trim(),
        "refs/heads/main"
    );
    assert_eq!(git(&platform, &["rev-list", "--count", "main"]).trim(), "1");
    assert_eq!(git(&platform, &["status", "--porcelain"]), "");
    git(&platform, &["fsck", "--strict"]);

    ok_in(&demo, &["build", "--behind", "-q"]);
    ok_in(&demo, &["push", "-q"]);
    // Current once the nodes' reports say they applied it.
    ok_in(&demo, &["collect", "-q"]);

    let plan = json_in(&demo, &["plan"]);
    let nodes = plan["nodes"].as_array().expect("nodes");
    let names: Vec<&str> = nodes
        .iter()
        .map(|n| n["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names.len(), 3, "{plan}");
    for n in nodes {
        assert_eq!(n["state"], "current", "{n}");
    }
    for (node, modules) in [
        ("edge-1", &["route-proxy", "resolver"][..]),
        ("edge-2", &["route-proxy", "resolver"][..]),
        ("lab", &["dashboard", "reporter"][..]),
    ] {
        for m in modules {
            let current = demo
                .join("nodes")
                .join(node)
                .join("modules")
                .join(m)
                .join("current");
            assert!(current.exists(), "{} is missing", current.display());
        }
    }
}

#[test]
fn example_has_the_fixture_build_edges() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let demo = init_example(tmp.path());
    let v = json_in(&demo, &["graph"]);
    assert_eq!(edges(&v, "build"), set(EXAMPLE_BUILD_EDGES));
}

#[test]
fn example_refuses_a_non_empty_directory_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let demo = tmp.path().join("demo");
    std::fs::create_dir(&demo).expect("mkdir");
    std::fs::write(demo.join("notes.txt"), "mine").expect("write");

    let run = mesh_in(tmp.path(), &["init", "--example", "demo"]);
    assert_eq!(run.code, 1);
    let err = &run.stderr;
    assert!(err.contains("is not empty"), "{err}");
    assert!(err.contains("help:"), "{err}");
    assert_eq!(
        files(&demo),
        vec![(PathBuf::from("notes.txt"), b"mine".to_vec())]
    );
    assert!(!demo.join(".git").exists());

    // A file in the way is refused too.
    std::fs::write(tmp.path().join("file"), "x").expect("write");
    assert_eq!(mesh_in(tmp.path(), &["init", "--example", "file"]).code, 1);
    assert_eq!(std::fs::read(tmp.path().join("file")).expect("read"), b"x");
}

#[test]
fn example_goes_into_an_empty_directory() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = mesh_in(tmp.path(), &["init", "--example"]);
    assert!(run.success());
    let err = &run.stderr;
    assert!(err.contains("hint: mesh reconcile && mesh status"), "{err}");
    assert!(tmp.path().join("mesh.toml").is_file());
    assert!(tmp.path().join("platform/.git").is_dir());
}
