//! A real REAPI engine for the tests: BuildGrid (PyPI `buildgrid`, pinned), installed into a
//! venv under `target/buildgrid` when missing (scripts/test does it first), started on a free
//! loopback port with a disk CAS and an in-memory action cache (no database), stopped on Drop.

use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The BuildGrid release the tests run.
pub const VERSION: &str = "0.4.4";

/// How long the server may take to listen (it starts in ~5 s here).
const READY_WITHIN: Duration = Duration::from_secs(60);

/// A running `bgd server`.
pub struct BuildGrid {
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
    /// Its disk storage (`cas/objects/<2 hex>/<rest>` per blob).
    pub cas: PathBuf,
    child: Option<Child>,
    _dir: tempfile::TempDir,
}

/// `bgd`, installed once per test run when missing.
fn bgd() -> &'static Path {
    static BGD: OnceLock<PathBuf> = OnceLock::new();
    BGD.get_or_init(|| {
        let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/buildgrid");
        let bgd = venv.join("bin/bgd");
        if !bgd.exists() {
            let ok = Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .status()
                .is_ok_and(|s| s.success())
                && Command::new(venv.join("bin/pip"))
                    .args(["install", "-q", &format!("buildgrid=={VERSION}")])
                    .status()
                    .is_ok_and(|s| s.success());
            assert!(
                ok,
                "BuildGrid could not be installed into {}",
                venv.display()
            );
        }
        bgd
    })
}

impl BuildGrid {
    /// Starts a server: CAS, ByteStream and an action cache that takes updates.
    pub fn start() -> BuildGrid {
        let dir = tempfile::tempdir().expect("tmp");
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let cas = dir.path().join("cas");
        let config = format!(
            r#"server:
  - !channel
    address: "127.0.0.1:{port}"
    insecure-mode: true
authorization:
  method: none
storages:
  - !disk-storage &main-storage
    path: {cas}
caches:
  - !lru-action-cache &main-action
    storage: *main-storage
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: false
instances:
  - name: ""
    services:
      - !action-cache
        cache: *main-action
      - !cas
        storage: *main-storage
      - !bytestream
        storage: *main-storage
"#,
            cas = cas.display()
        );
        let file = dir.path().join("bgd.yml");
        std::fs::write(&file, config).expect("config");
        let log = std::fs::File::create(dir.path().join("bgd.log")).expect("log");
        let child = Command::new(bgd())
            .args(["server", "start"])
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("bgd server start");
        let started = Instant::now();
        while TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
            assert!(
                started.elapsed() < READY_WITHIN,
                "BuildGrid did not listen within {READY_WITHIN:?}: {}",
                std::fs::read_to_string(dir.path().join("bgd.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        BuildGrid {
            endpoint: format!("http://127.0.0.1:{port}"),
            cas,
            child: Some(child),
            _dir: dir,
        }
    }

    /// Where the CAS keeps the blob `hash`.
    pub fn blob_path(&self, hash: &str) -> PathBuf {
        self.cas
            .join("cas/objects")
            .join(&hash[..2])
            .join(&hash[2..])
    }

    /// Kills the server (as a crash would) and waits for it.
    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for BuildGrid {
    fn drop(&mut self) {
        self.kill();
    }
}
