//! `TestMesh`: real git repositories in a temp dir, a mesh.toml, and the real binary.

#![allow(dead_code)]

pub mod buildgrid;
pub mod ssh;

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Output};
use std::time::{Duration, Instant};

/// The repository's fixtures directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A mesh in a temp dir.
pub struct TestMesh {
    pub tmp: tempfile::TempDir,
}

impl TestMesh {
    /// A temp dir with this controller's key made (as `mesh init` or `mesh id --new` would):
    /// no verb makes one by itself.
    pub fn new() -> TestMesh {
        let t = TestMesh::without_key();
        mesh::controller::create_key(&t.path(".mesh"), "test").expect("key");
        t
    }

    /// A temp dir, nothing in it.
    pub fn without_key() -> TestMesh {
        TestMesh {
            tmp: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn dir(&self) -> &Path {
        self.tmp.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir().join(rel)
    }

    /// Copies `fixtures/<fixture>` into `<name>/`, makes it a git repo on `main` and commits.
    pub fn repo_from_fixture(&self, name: &str, fixture: &str) -> PathBuf {
        let dest = self.path(name);
        copy_dir(&fixtures().join(fixture), &dest);
        git(&dest, &["init", "-q", "-b", "main"]);
        self.commit(name, "initial");
        dest
    }

    /// `platform/` as a clone of `other`'s (another controller at the same commits).
    pub fn clone_platform_of(&self, other: &TestMesh) {
        git(
            self.dir(),
            &[
                "clone",
                "-q",
                "-b",
                "main",
                &other.path("platform").display().to_string(),
                "platform",
            ],
        );
    }

    /// Takes `other`'s commits into `platform/` (`git pull` from its platform repository).
    pub fn pull_platform_from(&self, other: &TestMesh) {
        git(
            &self.path("platform"),
            &[
                "pull",
                "-q",
                "--ff-only",
                &other.path("platform").display().to_string(),
                "main",
            ],
        );
    }

    /// An empty git repo `<name>/` on `main`.
    pub fn empty_repo(&self, name: &str) -> PathBuf {
        let dest = self.path(name);
        std::fs::create_dir_all(&dest).expect("mkdir");
        git(&dest, &["init", "-q", "-b", "main"]);
        dest
    }

    /// Writes a file (creating directories).
    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(p, text).expect("write");
    }

    /// Replaces `from`, which must be there, with `to` in the file `rel`.
    pub fn edit(&self, rel: &str, from: &str, to: &str) {
        let p = self.path(rel);
        let text = std::fs::read_to_string(&p).expect("read");
        assert!(text.contains(from), "{rel} has no {from:?}:\n{text}");
        std::fs::write(&p, text.replace(from, to)).expect("write");
    }

    /// [`edit`](Self::edit)s `<repo>/<rel>` and commits repo `repo`.
    pub fn edit_and_commit(&self, repo: &str, rel: &str, from: &str, to: &str, msg: &str) {
        self.edit(&format!("{repo}/{rel}"), from, to);
        self.commit(repo, msg);
    }

    /// Commits a change to resolver in the example repository `platform`: what its binary prints.
    pub fn resolver_v2(&self) {
        self.edit_and_commit(
            "platform",
            "go/services/resolver/mesh-module.toml",
            "echo resolver ok",
            "echo resolver v2",
            "resolver v2",
        );
    }

    /// Commits, in the example repository `platform`, a geo build that sleeps 3 s first: long
    /// enough to run other verbs while it runs.
    pub fn slow_geo(&self) {
        self.edit_and_commit(
            "platform",
            "go/lib/geo/mesh-module.toml",
            "build = '",
            "build = 'sleep 3; ",
            "slow",
        );
    }

    /// Commits, in the example repository `platform`, an import from logx (in go-platform) of
    /// route-proxy, which closes the build-edge cycle go-platform → route-proxy → geo →
    /// go-platform.
    pub fn commit_a_cycle(&self) {
        self.write(
            "platform/go/internal/logx/cycle.go",
            "package logx\n\nimport \"example.com/platform/services/route-proxy\"\n",
        );
        self.commit("platform", "cycle");
    }

    /// Commits, in the example repository `platform`, a typo in geo's manifest: `tset` for
    /// `test`, at line 4, column 1.
    pub fn commit_a_manifest_typo(&self) {
        self.edit_and_commit(
            "platform",
            "go/lib/geo/mesh-module.toml",
            "test  =",
            "tset  =",
            "typo",
        );
    }

    /// Commits everything in repo `name`.
    pub fn commit(&self, name: &str, msg: &str) {
        let dir = self.path(name);
        git(&dir, &["add", "-A"]);
        git(
            &dir,
            &[
                "-c",
                "user.email=test@example.org",
                "-c",
                "user.name=test",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                msg,
            ],
        );
    }

    /// `mesh -C <dir> ARGS`.
    pub fn mesh(&self, args: &[&str]) -> Command {
        let mut c = mesh_command();
        c.arg("-C").arg(self.dir()).args(args);
        c
    }

    /// Starts `mesh -C <dir> ARGS` in the background, in the test's own environment.
    pub fn spawn(&self, args: &[&str]) -> Child {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("mesh"))
            .arg("-C")
            .arg(self.dir())
            .args(args)
            .spawn()
            .expect("spawn")
    }

    /// Runs `mesh -C <dir> ARGS` to its end, whatever its exit code.
    pub fn run(&self, args: &[&str]) -> Run {
        Run::of(&mut self.mesh(args))
    }

    /// Runs `mesh -C <dir> ARGS --json` to its end, whatever its exit code, asserting that it
    /// printed JSON.
    pub fn run_json(&self, args: &[&str]) -> Run {
        let run = self.run(&with_json(args));
        run.json();
        run
    }

    /// Runs and asserts success; stdout as a string.
    pub fn ok(&self, args: &[&str]) -> String {
        succeeded(args, self.run(args)).stdout
    }

    /// Runs with `--json`, asserting success, and parses stdout.
    pub fn json(&self, args: &[&str]) -> Value {
        let args = with_json(args);
        succeeded(&args, self.run(&args)).json()
    }

    /// The facts of `kind` in the mesh's events, oldest first.
    pub fn facts(&self, kind: &str) -> Vec<Value> {
        self.ok(&["events", "--json"])
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
            .filter(|e| e["kind"] == kind)
            .collect()
    }

    /// Runs, expecting failure with `code`; stderr as a string.
    pub fn fails(&self, args: &[&str], code: i32) -> String {
        let run = self.run(args);
        assert_eq!(run.code, code, "mesh {args:?}: {run}");
        run.stderr
    }
}

/// How a run of mesh ended: its exit code and what it printed.
#[derive(Debug)]
pub struct Run {
    /// The exit code, or [`Run::KILLED`] when a signal ended the process.
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The [`code`](Self::code) of a process that a signal ended.
    pub const KILLED: i32 = -1;

    /// Runs `command` to its end.
    pub fn of(command: &mut Command) -> Run {
        Run::from(command.output().expect("run mesh"))
    }

    /// Whether it exited 0.
    pub fn success(&self) -> bool {
        self.code == 0
    }

    /// stdout parsed as JSON; a panic showing both streams when it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {self}"))
    }
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(Run::KILLED),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// The exit code and both streams, for assertion messages.
impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Another process holding the lock of the mesh in a directory, as a running mesh would: flock(1)
/// on `.mesh/lock`, which holds the line a `mesh reconcile` writes there.
pub struct LockHolder {
    holder: Child,
    release: PathBuf,
}

impl LockHolder {
    /// Takes the lock of the mesh in `dir` and holds it (30 s at most) until
    /// [`release`](Self::release).
    pub fn hold(dir: &Path) -> LockHolder {
        std::fs::create_dir_all(dir.join(".mesh")).expect("mkdir");
        let held = dir.join("held");
        let release = dir.join("release");
        let script = format!(
            "printf 'pid %s (mesh reconcile) since 2026-11-29T10:00:00Z' \"$$\" > .mesh/lock; \
             touch '{}'; i=0; while [ ! -e '{}' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done",
            held.display(),
            release.display()
        );
        let holder = std::process::Command::new("flock")
            .arg(".mesh/lock")
            .args(["sh", "-c", &script])
            .current_dir(dir)
            .spawn()
            .expect("flock(1) is needed for this test (util-linux)");
        let deadline = Instant::now() + Duration::from_secs(10);
        while !held.exists() {
            assert!(Instant::now() < deadline, "flock never took the lock");
            std::thread::sleep(Duration::from_millis(10));
        }
        LockHolder { holder, release }
    }

    /// Lets the lock go, and waits for the holder to end.
    pub fn release(mut self) {
        std::fs::write(&self.release, "").expect("release");
        assert!(self.holder.wait().expect("wait for flock").success());
    }
}

/// The binary under test, without colour and without a `MESH_STATE` from outside.
pub fn mesh_command() -> Command {
    let mut c = Command::cargo_bin("mesh").expect("binary");
    c.env("NO_COLOR", "1").env_remove("MESH_STATE");
    c
}

/// `mesh ARGS` run in `cwd` without `-C`, as a user types it: the mesh found from the working
/// directory.
pub fn mesh_in(cwd: &Path, args: &[&str]) -> Run {
    Run::of(mesh_command().current_dir(cwd).args(args))
}

/// [`mesh_in`], asserting success; stdout as a string.
pub fn ok_in(cwd: &Path, args: &[&str]) -> String {
    succeeded(args, mesh_in(cwd, args)).stdout
}

/// [`mesh_in`] with `--json`, asserting success; stdout parsed.
pub fn json_in(cwd: &Path, args: &[&str]) -> Value {
    let args = with_json(args);
    succeeded(&args, mesh_in(cwd, &args)).json()
}

/// Asserts that `mesh ARGS` succeeded.
fn succeeded(args: &[&str], run: Run) -> Run {
    assert!(
        run.success(),
        "mesh {args:?} failed ({}):\n{}",
        run.code,
        run.stderr
    );
    run
}

/// `ARGS --json`.
fn with_json<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut a = args.to_vec();
    a.push("--json");
    a
}

/// The entry of the array `v[list]` (`"nodes"`, `"modules"`) whose `name` is `name`.
pub fn named<'a>(v: &'a Value, list: &str, name: &str) -> &'a Value {
    v[list]
        .as_array()
        .unwrap_or_else(|| panic!("no {list} in {v}"))
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {list}: {v}"))
}

/// The edges of `kind` in `mesh graph --json`, as (from, to).
pub fn edges(v: &Value, kind: &str) -> BTreeSet<(String, String)> {
    v["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .filter(|e| e["kind"] == kind)
        .map(|e| {
            (
                e["from"].as_str().expect("from").to_string(),
                e["to"].as_str().expect("to").to_string(),
            )
        })
        .collect()
}

/// `pairs` as a set of owned (from, to) pairs, to compare with [`edges`].
pub fn set(pairs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// The build edges of the example fixture: exactly its imports.
pub const EXAMPLE_BUILD_EDGES: &[(&str, &str)] = &[
    ("dashboard", "reporter"),
    ("dashboard", "ui-kit"),
    ("geo", "go-platform"),
    ("inventory", "rust-core"),
    ("reporter", "py-common"),
    ("resolver", "geo"),
    ("route-proxy", "geo"),
];

/// Runs git in `dir`, panicking on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read fixture") {
        let e = e.expect("entry");
        let p = e.path();
        let t = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &t);
        } else {
            std::fs::copy(&p, &t).expect("copy");
        }
    }
}

/// The head of every test mesh.toml, as a literal: the mesh `test` and the repository
/// `platform` on `main`, whose `path` is on line 7 and `ref` on line 8.
macro_rules! mesh_head {
    () => {
        r#"
[mesh]
name = "test"

[[repo]]
name = "platform"
path = "platform"
ref  = "refs/heads/main"
"#
    };
}

/// The head of every test mesh.toml ([`mesh_head!`]).
pub const MESH_HEAD: &str = mesh_head!();

/// A mesh.toml of local nodes, laid out as [`EXAMPLE_MESH`] is: [`MESH_HEAD`], then each
/// `(node, tags)` rooted at `nodes/<node>`, then `[assign]` with each `(module, targets)`, the
/// `=` signs lined up.
pub fn local_nodes_toml(nodes: &[(&str, &[&str])], assign: &[(&str, &[&str])]) -> String {
    let mut toml = String::from(MESH_HEAD);
    for (node, tags) in nodes {
        toml.push_str(&format!(
            "\n[node.{node}]\ntransport = \"local\"\nroot = \"nodes/{node}\"\n"
        ));
        if !tags.is_empty() {
            toml.push_str(&format!("tags = {}\n", toml_array(tags)));
        }
    }
    toml.push_str("\n[assign]\n");
    let width = assign.iter().map(|(m, _)| m.len()).max().unwrap_or(0);
    for (module, targets) in assign {
        toml.push_str(&format!("{module:width$} = {}\n", toml_array(targets)));
    }
    toml
}

/// `items` as a TOML array of strings: `["a", "b"]`.
pub fn toml_array(items: &[impl AsRef<str>]) -> String {
    let items: Vec<String> = items.iter().map(|i| format!("{:?}", i.as_ref())).collect();
    format!("[{}]", items.join(", "))
}

/// The mesh.toml the example fixture is used with in tests.
pub const EXAMPLE_MESH: &str = concat!(
    mesh_head!(),
    r#"
[node.g14]
transport = "local"
root = "nodes/g14"
tags = ["edge"]

[assign]
route-proxy = ["@edge"]
"#
);

/// A mesh with the example fixture as repo `platform`.
pub fn example() -> TestMesh {
    let t = TestMesh::new();
    t.repo_from_fixture("platform", "example");
    t.write("mesh.toml", EXAMPLE_MESH);
    t
}

/// How many entries `table` of the store at `path` holds.
pub fn entries(path: &std::path::Path, table: &str) -> usize {
    use redb::{ReadableDatabase, ReadableTableMetadata};
    let mut b = redb::Builder::new();
    b.set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
    let db = b.open_read_only(path).expect("open the store");
    let tx = db.begin_read().expect("read");
    let def = redb::TableDefinition::<&[u8], &[u8]>::new(table);
    tx.open_table(def)
        .map_or(0, |t| t.len().expect("len") as usize)
}

/// Removes every entry of `table` in the store at `path` (what a lost cache looks like).
pub fn empty_table(path: &std::path::Path, table: &str) {
    write_table(path, table, |t| {
        t.retain(|_, _| false).expect("remove every entry");
    });
}

/// Runs `f` on `table` of the store at `path` in one write transaction, committed.
fn write_table(
    path: &std::path::Path,
    table: &str,
    f: impl FnOnce(&mut redb::Table<'_, &'static [u8], &'static [u8]>),
) {
    let mut b = redb::Builder::new();
    b.set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
    let db = b.create(path).expect("open the store");
    let def = redb::TableDefinition::<&[u8], &[u8]>::new(table);
    let tx = db.begin_write().expect("write");
    {
        let mut t = tx.open_table(def).expect("table");
        f(&mut t);
    }
    tx.commit().expect("commit");
}

/// Overwrites every value of `table` in the store at `path` with bytes that decode as
/// nothing mesh wrote.
pub fn damage_table(path: &std::path::Path, table: &str) {
    write_table(path, table, |t| {
        let keys: Vec<Vec<u8>> = {
            use redb::ReadableTable;
            t.iter()
                .expect("iter")
                .map(|e| e.expect("entry").0.value().to_vec())
                .collect()
        };
        assert!(!keys.is_empty(), "{table} holds something to damage");
        for k in keys {
            t.insert(k.as_slice(), &b"\x02not a value"[..])
                .expect("insert");
        }
    });
}
