//! `TestMesh`: real git repositories in a temp dir, a mesh.toml, and the real binary.

#![allow(dead_code)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The repository's fixtures directory.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A mesh in a temp dir.
pub struct TestMesh {
    pub tmp: tempfile::TempDir,
}

impl TestMesh {
    pub fn new() -> TestMesh {
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
        let mut c = Command::cargo_bin("mesh").expect("binary");
        c.arg("-C").arg(self.dir()).args(args);
        c.env("NO_COLOR", "1").env_remove("MESH_STATE");
        c
    }

    /// Runs and asserts success; stdout as a string.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.mesh(args).output().expect("run mesh");
        assert!(
            out.status.success(),
            "mesh {args:?} failed ({:?}):\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs with `--json` and parses stdout.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut a = args.to_vec();
        a.push("--json");
        let s = self.ok(&a);
        serde_json::from_str(&s).unwrap_or_else(|e| panic!("not JSON ({e}):\n{s}"))
    }

    /// Runs, expecting failure with `code`; stderr as a string.
    pub fn fails(&self, args: &[&str], code: i32) -> String {
        let out = self.mesh(args).output().expect("run mesh");
        assert_eq!(
            out.status.code(),
            Some(code),
            "mesh {args:?}: stdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
}

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

/// The mesh.toml the example fixture is used with in tests.
pub const EXAMPLE_MESH: &str = r#"
[mesh]
name = "test"

[[repo]]
name = "platform"
path = "platform"
ref  = "refs/heads/main"

[node.g14]
transport = "local"
root = "nodes/g14"
tags = ["edge"]

[assign]
route-proxy = ["@edge"]
"#;

/// A mesh with the example fixture as repo `platform`.
pub fn example() -> TestMesh {
    let t = TestMesh::new();
    t.repo_from_fixture("platform", "example");
    t.write("mesh.toml", EXAMPLE_MESH);
    t
}
