//! The most likely mistakes, each met with one clear error: one sentence and a `help:` line on
//! stderr (nothing on stdout), the exit code the README's "Exit codes" table gives it, never a
//! panic or a backtrace, and no file left behind where none should be.
//!
//! Covered elsewhere, and not repeated here: a mistake in mesh.toml or a manifest, through
//! `mesh graph` (config_errors.rs, including `no_mesh_toml` and `module_manifest_typo`); a wrong
//! repository path or ref, through `mesh graph` (graph.rs,
//! `bad_repositories_are_clear_errors_and_write_nothing`); a cycle is no error (edges.rs);
//! `mesh push nope` (push.rs, `an_unknown_node_is_a_clear_error`); a second `mesh reconcile`
//! while one runs (reconcile.rs, `a_second_mesh_exits_75_naming_the_holder_and_readers_do_not_wait`).
//! The tests here take the same mistakes through the verbs that change the mesh, and add the
//! ones nothing else checks.

use crate::common::{
    EXAMPLE_MESH, LockHolder, MESH_HEAD, Run, TestMesh, example, local_nodes_toml, mesh_in,
};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Asserts one clear error: exit `code`, nothing on stdout, exactly one diagnostic on stderr
/// holding every one of `words` and a help line, and no panic or backtrace. Returns stderr.
fn one_error(run: Run, args: &[&str], code: i32, words: &[&str]) -> String {
    assert_eq!(run.code, code, "mesh {args:?}: {run}");
    assert_eq!(run.stdout, "", "mesh {args:?} printed data with an error");
    let stderr = run.stderr;
    no_panic(&stderr);
    let errors = stderr
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("x ") || l.starts_with("× ")
        })
        .count();
    assert_eq!(errors, 1, "mesh {args:?}: not exactly one error:\n{stderr}");
    assert!(
        stderr.contains("help:"),
        "mesh {args:?}: no help line:\n{stderr}"
    );
    for w in words {
        assert!(
            stderr.contains(w),
            "mesh {args:?}: expected {w:?} in:\n{stderr}"
        );
    }
    stderr
}

/// Runs each of `verbs` on `t`, asserting [`one_error`] for each.
fn each_one_error(t: &TestMesh, verbs: &[&[&str]], code: i32, words: &[&str]) {
    for args in verbs {
        one_error(t.run(args), args, code, words);
    }
}

/// The verbs that build (`mesh push` sends what is declared, from the store, and does not read
/// the repositories).
const BUILDING: &[&[&str]] = &[&["build"], &["reconcile"], &["plan"]];

fn no_panic(stderr: &str) {
    for bad in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
        assert!(!stderr.contains(bad), "{bad} in:\n{stderr}");
    }
}

/// Everything under `dir`, leaving out the repositories' `.git`.
fn files(dir: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("read dir") {
            let p = e.expect("entry").path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            out.push(p.strip_prefix(root).expect("below root").to_path_buf());
            if p.is_dir() && !p.is_symlink() {
                walk(root, &p, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A failed verb on a new mesh may leave the mesh's (released) lock file, nothing else: no
/// store, no artifacts, no logs (the controller key was there before).
fn nothing_but_the_lock(t: &TestMesh) {
    let dot = t.path(".mesh");
    if dot.exists() {
        let left: Vec<PathBuf> = files(&dot);
        assert!(
            left.iter()
                .all(|p| p == Path::new("lock") || p == Path::new("key")),
            "a failed verb left {left:?} in .mesh"
        );
    }
}

/// A mesh.toml delivering route-proxy and resolver to one local node (the repository's path on
/// line 7, its ref on line 8).
fn one_node_toml() -> String {
    local_nodes_toml(
        &[("g14", &[])],
        &[("route-proxy", &["g14"]), ("resolver", &["g14"])],
    )
}

/// The example repository with [`one_node_toml`].
fn one_node() -> TestMesh {
    let t = TestMesh::new();
    t.repo_from_fixture("platform", "example");
    t.write("mesh.toml", &one_node_toml());
    t
}

fn events(t: &TestMesh) -> String {
    t.ok(&["events", "--json"])
}

// (1) No mesh.toml here: every verb, run from an empty directory (no -C), says so in one sentence
// that names `mesh init`, and leaves the directory empty.
#[test]
fn every_verb_outside_a_mesh_says_so_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let verbs: &[&[&str]] = &[
        &["graph"],
        &["drift"],
        &["plan"],
        &["build"],
        &["build", "--behind"],
        &["builds"],
        &["declare", "inventory"],
        &["push"],
        &["collect"],
        &["status"],
        &["status", "--json"],
        &["reconcile"],
        &["events"],
        &["node", "list"],
        &["node", "show", "g14"],
        &["node", "install", "g14"],
    ];
    for args in verbs {
        one_error(
            mesh_in(tmp.path(), args),
            args,
            1,
            &["no mesh.toml in", "mesh init"],
        );
    }
    assert_eq!(files(tmp.path()), Vec::<PathBuf>::new());
}

// (2) The repository path is wrong: the verbs that build say where, and record nothing.
#[test]
fn a_wrong_repository_path_is_named_and_nothing_is_built() {
    let t = one_node();
    t.write(
        "mesh.toml",
        &one_node_toml().replace("path = \"platform\"", "path = \"platfrom\""),
    );
    each_one_error(
        &t,
        BUILDING,
        1,
        &[
            "mesh.toml:7:8",
            "repository `platform`",
            "platfrom",
            "cannot be opened",
            "must name a git repository",
        ],
    );
    nothing_but_the_lock(&t);
}

// (3) The ref does not exist (a typo, or a branch not fetched yet).
#[test]
fn a_missing_ref_is_named_and_nothing_is_built() {
    let t = one_node();
    t.write(
        "mesh.toml",
        &one_node_toml().replace("refs/heads/main", "refs/heads/mian"),
    );
    each_one_error(
        &t,
        BUILDING,
        1,
        &[
            "mesh.toml:8:8",
            "ref `refs/heads/mian`",
            "does not resolve to a commit",
            "branch -a",
        ],
    );
    nothing_but_the_lock(&t);
}

// (4) An unknown node, in every verb that names one (push.rs covers `mesh push nope`).
#[test]
fn an_unknown_node_is_named_with_the_known_ones() {
    let t = one_node();
    each_one_error(
        &t,
        &[
            &["collect", "nope"],
            &["push", "g14", "nope"],
            &["node", "show", "nope"],
            &["node", "install", "nope"],
        ],
        1,
        &["there is no node `nope`", "known nodes: g14"],
    );
    nothing_but_the_lock(&t);
    assert!(!t.path("nodes/g14").exists(), "g14 was pushed to");
}

// (5) No ssh client on this machine: the push says so for the ssh node, exits 3 (a node was not
// delivered to), and records no send.
#[test]
fn no_ssh_client_is_said_for_the_node_and_no_send_is_recorded() {
    let t = TestMesh::new();
    t.repo_from_fixture("platform", "example");
    t.write(
        "mesh.toml",
        &format!(
            r#"{MESH_HEAD}
[node.far]
address = "mesh@127.0.0.1"
options = ["-p", "9"]

[assign]
resolver = ["far"]
"#
        ),
    );
    t.ok(&["build", "-q"]);
    let empty = t.path("no-ssh-here");
    std::fs::create_dir(&empty).expect("mkdir");

    let run = Run::of(t.mesh(&["push"]).env("PATH", &empty));
    let err = &run.stderr;
    assert_eq!(run.code, 3, "{err}");
    no_panic(err);
    assert!(
        err.contains("far: failed: the ssh client is not installed"),
        "{err}"
    );

    let run = Run::of(t.mesh(&["push", "--json"]).env("PATH", &empty));
    assert_eq!(run.code, 3);
    let v = run.json();
    assert_eq!(v[0]["node"], "far", "{v}");
    assert_eq!(v[0]["outcome"], "failed", "{v}");
    assert!(
        v[0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("ssh client is not installed")),
        "{v}"
    );

    let status = t.json(&["status"]);
    assert_eq!(status["nodes"][0]["state"], "never told", "{status}");
    assert!(status["nodes"][0]["sent"].is_null(), "{status}");
    assert!(!events(&t).contains("\"kind\":\"sent\""));
}

// (6) The mesh is locked by another process (here flock(1), holding `.mesh/lock` and writing a
// holder line as mesh does): a verb that changes the mesh exits 75 at once, naming the holder;
// once the holder is gone the lock is simply taken.
#[test]
fn a_held_lock_exits_75_at_once_naming_the_holder() {
    let t = one_node();
    let holder = LockHolder::hold(t.dir());

    // -v: the whole diagnostic (without it, a pipe gets nothing: see shell.rs).
    for args in [
        &["build", "-v"][..],
        &["declare", "inventory", "-v"],
        &["push", "-v"],
    ] {
        let start = Instant::now();
        let run = t.run(args);
        let took = start.elapsed();
        one_error(
            run,
            args,
            75,
            &[
                "the mesh is busy",
                "pid ",
                "(mesh reconcile)",
                "holds its lock",
            ],
        );
        assert!(took < Duration::from_secs(2), "{args:?} waited {took:?}");
    }
    assert!(!t.path(".mesh/state.redb").exists());

    holder.release();
    t.ok(&["build", "-q"]);
}

// (7) A store written by a newer mesh: every verb that opens it refuses it, names both formats,
// and leaves it as it was.
#[test]
fn a_store_from_a_newer_mesh_is_refused_and_left_alone() {
    let t = one_node();
    let state = t.path(".mesh/state.redb");
    {
        let store = mesh::store::Store::open(&state).expect("make a store");
        store
            .write(|w| w.put(mesh::store::META_FORMAT, b"format", &99u32))
            .expect("raise its format");
    }
    let ours = format!("format {}", mesh::store::FORMAT);
    each_one_error(
        &t,
        &[
            &["status"],
            &["plan"],
            &["build"],
            &["reconcile"],
            &["events"],
            &["builds"],
        ],
        1,
        &["has format 99", &ours, "mesh --version"],
    );
    match mesh::store::Store::open(&state) {
        Err(mesh::store::StoreError::NewerFormat { found: 99, .. }) => {}
        Err(e) => panic!("the store was changed: {e}"),
        Ok(_) => panic!("the store was changed: it opens"),
    }
    assert!(!t.path(".mesh/artifacts").exists());
}

// (8) A typo in a module manifest of a mesh that was delivered: the diagnostic points at it, and
// nothing is built, sent or recorded (config_errors.rs checks the diagnostic itself). `mesh push`
// still sends what was declared before the typo: it reads the store, not the manifests.
#[test]
fn a_manifest_typo_stops_every_verb_and_records_nothing() {
    let t = one_node();
    t.ok(&["reconcile", "-q"]);
    let before = events(&t);
    t.commit_a_manifest_typo();
    each_one_error(
        &t,
        &[&["reconcile"], &["build"], &["plan"]],
        1,
        &[
            "platform:go/lib/geo/mesh-module.toml:4:1",
            "unknown field `tset`",
        ],
    );
    assert_eq!(events(&t), before);
}

// (10) `mesh declare` for a module that has no fit build (its build is broken): exit 1, and
// nothing is declared.
#[test]
fn declaring_a_module_without_a_fit_build_is_refused() {
    let t = one_node();
    t.edit_and_commit(
        "platform",
        "rust/inventory/mesh-module.toml",
        "build    = '",
        "build    = 'exit 1; ",
        "a mistake",
    );
    // A broken build needs a person: exit 3.
    assert_eq!(t.run(&["build", "-q"]).code, 3);
    one_error(
        t.run(&["declare", "inventory"]),
        &["declare", "inventory"],
        1,
        &["`inventory` has no fit build", "mesh builds inventory"],
    );
    let declared = t.ok(&["events", "--json", "--kind", "declared"]);
    assert!(!declared.contains("\"inventory\""), "{declared}");
}

// `.mesh` cannot be a directory (a file is in its place; as root, chmod would not stop mesh, so
// this is the unwritable state directory tests can make): one sentence, exit 1, the file alone.
#[test]
fn a_file_where_the_state_directory_goes_is_one_clear_error() {
    let t = one_node();
    std::fs::remove_dir_all(t.path(".mesh")).expect("no key");
    t.write(".mesh", "not mesh's\n");
    each_one_error(
        &t,
        &[
            &["status"],
            &["plan"],
            &["graph"],
            &["build"],
            &["declare", "inventory"],
            &["push"],
            &["collect"],
            &["reconcile"],
            &["events"],
        ],
        1,
        &[".mesh is not a directory", "move the file"],
    );
    assert_eq!(
        std::fs::read_to_string(t.path(".mesh")).expect("read"),
        "not mesh's\n"
    );
}

#[test]
fn version_names_the_store_format() {
    for flag in ["--version", "-V"] {
        let run = mesh_in(Path::new("/"), &[flag]);
        assert!(run.success());
        assert_eq!(
            run.stdout,
            format!(
                "mesh {} (store format {})\n",
                env!("CARGO_PKG_VERSION"),
                mesh::store::FORMAT
            )
        );
    }
}

#[test]
fn a_usage_mistake_exits_2_without_touching_the_mesh() {
    let t = example();
    t.write("mesh.toml", EXAMPLE_MESH);
    for args in [&["deploy"][..], &["build", "--behnid"], &["declare"]] {
        let run = t.run(args);
        let err = &run.stderr;
        assert_eq!(run.code, 2, "{args:?}: {err}");
        no_panic(err);
        assert!(err.contains("--help"), "{args:?}: {err}");
    }
    assert_eq!(files(&t.path(".mesh")), [PathBuf::from("key")]);
}
