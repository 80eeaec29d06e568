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
    /// `tests/worker.py`, for a server that runs builds.
    worker: Option<Child>,
    /// Its scheduler's database, for a server that runs builds.
    postgres: Option<Postgres>,
    /// The CA's PEM file, for a server over TLS.
    pub ca: Option<PathBuf>,
    certs: Option<tempfile::TempDir>,
    secret: Option<tempfile::NamedTempFile>,
    _dir: tempfile::TempDir,
}

/// How a server is set up beyond its CAS and action cache.
#[derive(Default)]
struct Serve<'a> {
    /// More top-level config (connections, schedulers).
    extra: Option<&'a str>,
    /// More services of the instance.
    services: &'a str,
    /// The channel's TLS lines (none: plain).
    tls: Option<&'a str>,
    /// The `authorization` block (none: `method: none`).
    auth: Option<&'a str>,
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
                    .args(["install", "-q", &format!("buildgrid[database]=={VERSION}")])
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
        BuildGrid::serve(Serve::default())
    }

    /// [`BuildGrid::start`] taking only calls that carry a bearer token (a JWT signed with a
    /// secret of its own); the token it takes.
    pub fn start_with_token() -> (BuildGrid, String) {
        let secret = tempfile::NamedTempFile::new().expect("tmp");
        std::fs::write(secret.path(), "mesh-test-secret").expect("secret");
        let python = bgd().with_file_name("python");
        let out = Command::new(python)
            .args([
                "-c",
                "import jwt, time; print(jwt.encode({'sub': 'mesh', 'exp': int(time.time()) + 3600}, 'mesh-test-secret', algorithm='HS256'))",
            ])
            .output()
            .expect("python");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let token = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let auth = format!(
            "authorization:\n  method: jwt\n  secret: {}\n  algorithm: hs256\n",
            secret.path().display()
        );
        let mut bg = BuildGrid::serve(Serve {
            auth: Some(&auth),
            ..Serve::default()
        });
        bg.secret = Some(secret);
        (bg, token)
    }

    /// [`BuildGrid::start`] over TLS: a CA and a certificate for `localhost` and 127.0.0.1
    /// made with `openssl`; the CA's PEM file is [`BuildGrid::ca`].
    pub fn start_tls() -> BuildGrid {
        let certs = tempfile::tempdir().expect("tmp");
        let d = certs.path();
        let openssl = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(d)
                .output()
                .expect("openssl");
            assert!(
                out.status.success(),
                "openssl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        openssl(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=mesh test CA",
        ]);
        openssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ]);
        std::fs::write(
            d.join("san.ext"),
            "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
        )
        .expect("ext");
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "san.ext",
        ]);
        let tls = format!(
            "    insecure-mode: false\n    credentials:\n      tls-server-key: {}\n      tls-server-cert: {}\n",
            d.join("server.key").display(),
            d.join("server.pem").display()
        );
        let mut bg = BuildGrid::serve(Serve {
            tls: Some(&tls),
            ..Serve::default()
        });
        bg.endpoint = bg.endpoint.replace("http://127.0.0.1", "grpcs://localhost");
        bg.ca = Some(d.join("ca.pem"));
        bg.certs = Some(certs);
        bg
    }

    /// Starts a server that also runs builds: its scheduler on a PostgreSQL of its own
    /// (schema made with `bgd migrate apply`), and one worker (`tests/worker.py`) that runs
    /// them on this machine with `worker_env` added to its environment. A build waits at most
    /// 15 s in the queue (no worker: the engine says so) — long enough for the worker to take
    /// it on a loaded 2-core machine, where 5 s once ran out with the worker there.
    pub fn executing(worker_env: &[(&str, &str)]) -> BuildGrid {
        let pg = Postgres::start();
        let url = pg.url();
        let out = Command::new(bgd())
            .args(["migrate", "apply", &url])
            .output()
            .expect("bgd migrate");
        assert!(
            out.status.success(),
            "bgd migrate apply: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let scheduler = format!(
            r#"connections:
  - !sql-connection &sql
    connection-string: "{url}"
schedulers:
  - !sql-scheduler &scheduler
    sql: *sql
    storage: *main-storage
    action-cache: *main-action
    bot-session-keepalive-timeout: 10
    queue-timeout-job-max-age:
      seconds: 15
    queue-timeout-period:
      seconds: 1
    assigners:
      - !priority-age-assigner
        interval: 0.1
"#
        );
        let execution = "      - !execution\n        scheduler: *scheduler\n        operation-stream-keepalive-timeout: 5\n";
        let mut bg = BuildGrid::serve(Serve {
            extra: Some(&scheduler),
            services: execution,
            ..Serve::default()
        });
        bg.postgres = Some(pg);
        bg.start_worker(worker_env);
        bg
    }

    /// Starts `tests/worker.py` against this server and waits until it has its bot session.
    pub fn start_worker(&mut self, env: &[(&str, &str)]) {
        let python = bgd().with_file_name("python");
        let worker = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/worker.py");
        let log_path = self._dir.path().join("worker.log");
        let log = std::fs::File::create(&log_path).expect("log");
        let mut c = Command::new(python);
        c.arg(worker)
            .args(["--endpoint", self.endpoint.trim_start_matches("http://")])
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log);
        for (k, v) in env {
            c.env(k, v);
        }
        self.worker = Some(c.spawn().expect("tests/worker.py"));
        let started = Instant::now();
        loop {
            let text = std::fs::read_to_string(&log_path).unwrap_or_default();
            if text.contains("bot session") {
                return;
            }
            assert!(
                started.elapsed() < READY_WITHIN,
                "the worker did not register within {READY_WITHIN:?}: {text}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops the worker (SIGTERM: it tells the engine it goes), as an operator would.
    pub fn stop_worker(&mut self) {
        if let Some(mut w) = self.worker.take() {
            let _ = Command::new("kill").arg(w.id().to_string()).status();
            let _ = w.wait();
        }
    }

    /// A server as `how` says.
    fn serve(how: Serve) -> BuildGrid {
        let Serve {
            extra,
            services,
            tls,
            auth,
        } = how;
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
{channel}{auth}storages:
  - !disk-storage &main-storage
    path: {cas}
caches:
  - !lru-action-cache &main-action
    storage: *main-storage
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: false
{extra}instances:
  - name: ""
    services:
      - !action-cache
        cache: *main-action
      - !cas
        storage: *main-storage
      - !bytestream
        storage: *main-storage
{services}"#,
            cas = cas.display(),
            extra = extra.unwrap_or(""),
            channel = tls.unwrap_or("    insecure-mode: true\n"),
            auth = auth.unwrap_or("authorization:\n  method: none\n")
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
            worker: None,
            postgres: None,
            ca: None,
            certs: None,
            secret: None,
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

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// Kills the server (as a crash would) and waits for it; then its worker and database.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        if let Some(mut w) = self.worker.take() {
            let _ = w.kill();
            let _ = w.wait();
        }
        if let Some(pg) = self.postgres.take() {
            pg.stop();
        }
    }
}

impl Drop for BuildGrid {
    fn drop(&mut self) {
        self.kill();
    }
}

/// PostgreSQL's programs (Debian's layout: the newest version's).
fn pg_bin() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is installed (scripts/test installs Debian's `postgresql`)")
        .filter_map(|e| Some(e.ok()?.path().join("bin")))
        .filter(|b| b.join("initdb").exists())
        .collect();
    found.sort();
    found.pop().expect("an initdb under /usr/lib/postgresql")
}

/// A PostgreSQL cluster of its own in a temp dir, reached on a socket there (no TCP), run as
/// the `postgres` user (it refuses root).
struct Postgres {
    dir: tempfile::TempDir,
}

impl Postgres {
    fn start() -> Postgres {
        let dir = tempfile::tempdir().expect("tmp");
        let d = dir.path().display().to_string();
        let bin = pg_bin();
        let as_postgres = |prog: &str, args: &[&str]| {
            let out = Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(bin.join(prog))
                .args(args)
                .stdin(Stdio::null())
                .output()
                .expect("runuser");
            assert!(
                out.status.success(),
                "{prog} {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let ok = Command::new("chown")
            .args(["postgres:", &d])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "chown postgres {d}");
        let data = format!("{d}/pgdata");
        as_postgres(
            "initdb",
            &[
                "-D",
                &data,
                "-U",
                "bgd",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        );
        let opts = format!("-c listen_addresses='' -c unix_socket_directories={d} -c fsync=off");
        let log = format!("{d}/pg.log");
        as_postgres(
            "pg_ctl",
            &["-D", &data, "-l", &log, "-w", "-o", &opts, "start"],
        );
        as_postgres("createdb", &["-h", &d, "-U", "bgd", "bgd"]);
        Postgres { dir }
    }

    /// What BuildGrid connects with.
    fn url(&self) -> String {
        format!(
            "postgresql+psycopg2://bgd@/bgd?host={}",
            self.dir.path().display()
        )
    }

    fn stop(self) {
        let data = self.dir.path().join("pgdata");
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(pg_bin().join("pg_ctl"))
            .arg("-D")
            .arg(data)
            .args(["stop", "-m", "immediate"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}
