//! Real `sshd` processes on loopback ports: the `ssh` nodes of the tests (DESIGN.md §12), and the
//! tests of `mesh::transport::ssh` against them.
//!
//! Each [`SshNode`] has its own host key, config, log and node root; every node authorizes the
//! one client key of this test process ([`client_key`]).

#![allow(dead_code)]

use mesh::transport::ssh::{Ssh, SshError};
use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The sshd binary (package openssh-server).
const SSHD: &str = "/usr/sbin/sshd";
/// How long sshd may take to accept connections.
const READY_WITHIN: Duration = Duration::from_secs(5);

/// A real sshd on 127.0.0.1:<free port>, with its own host key, an authorized client key, and a
/// node root dir; stopped (killed + waited) on Drop, also when the test panics.
pub struct SshNode {
    /// The port sshd listens on (kept across [`restart`](Self::restart)).
    pub port: u16,
    /// The node root: where `mesh node` keeps modules and reports.
    pub root: PathBuf,
    /// The node's own directory (`<base>/<name>`): keys, config, log, root.
    pub dir: PathBuf,
    /// The node's name.
    pub name: String,
    /// The running sshd, if any.
    sshd: Option<Child>,
}

impl SshNode {
    /// Makes `<base>/<name>` with a fresh host key, an authorized_keys holding the test client
    /// key, a config and an empty `root/`, and starts sshd on a free port.
    pub fn start(base: &Path, name: &str) -> SshNode {
        let dir = base.join(name);
        let root = dir.join("root");
        fs::create_dir_all(&root).expect("mkdir node root");
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).expect("chmod node dir");
        let authorized = dir.join("authorized_keys");
        fs::copy(client_key().with_extension("pub"), &authorized).expect("authorized_keys");
        fs::set_permissions(&authorized, fs::Permissions::from_mode(0o600)).expect("chmod");
        keygen(&dir.join("host_key"));
        // sshd's privilege separation directory; root-only, and not needed when not root.
        let _ = fs::create_dir_all("/run/sshd");

        let mut node = SshNode {
            port: 0,
            root,
            dir,
            name: name.to_string(),
            sshd: None,
        };
        // Another process may take the free port before sshd binds it: then try another.
        for _ in 0..5 {
            node.port = free_port();
            match node.spawn() {
                Ok(()) => return node,
                Err(why) if why.contains("Address already in use") => continue,
                Err(why) => panic!("sshd for node {name} did not start: {why}"),
            }
        }
        panic!("sshd for node {name} found no free port");
    }

    /// ssh options a client needs: port, the client key, and no host key check
    /// (`StrictHostKeyChecking=no`, an empty known_hosts), quiet.
    pub fn client_options(&self) -> Vec<String> {
        let mut options = vec![
            "-p".to_string(),
            self.port.to_string(),
            "-i".to_string(),
            client_key().display().to_string(),
            // Only our key: an agent with many keys would exhaust sshd's MaxAuthTries.
            "-o".to_string(),
            "IdentitiesOnly=yes".to_string(),
        ];
        for option in [
            "StrictHostKeyChecking=no",
            "UserKnownHostsFile=/dev/null",
            "LogLevel=ERROR",
        ] {
            options.push("-o".to_string());
            options.push(option.to_string());
        }
        options
    }

    /// ssh options that do check the host key, against `known_hosts`.
    pub fn strict_client_options(&self, known_hosts: &Path) -> Vec<String> {
        [
            "-p",
            &self.port.to_string(),
            "-i",
            &client_key().display().to_string(),
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            "StrictHostKeyChecking=yes",
            "-o",
            &format!("UserKnownHostsFile={}", known_hosts.display()),
            "-o",
            "LogLevel=ERROR",
        ]
        .map(String::from)
        .to_vec()
    }

    /// "root@127.0.0.1" (or the current user's name if not root).
    pub fn address(&self) -> String {
        format!("{}@127.0.0.1", user())
    }

    /// The node's line for a known_hosts file: `[127.0.0.1]:PORT ssh-ed25519 KEY`.
    pub fn known_hosts_line(&self) -> String {
        let public = fs::read_to_string(self.dir.join("host_key.pub")).expect("host key");
        let mut fields = public.split_whitespace();
        let (kind, key) = (fields.next().expect("type"), fields.next().expect("key"));
        format!("[127.0.0.1]:{} {kind} {key}\n", self.port)
    }

    /// Replaces the host key with a new one; sshd uses it from the next [`restart`](Self::restart).
    pub fn rotate_host_key(&mut self) {
        let key = self.dir.join("host_key");
        fs::remove_file(&key).expect("rm host key");
        fs::remove_file(key.with_extension("pub")).expect("rm host key.pub");
        keygen(&key);
    }

    /// sshd's log so far.
    pub fn log(&self) -> String {
        let log = fs::read_to_string(self.dir.join("sshd.log")).unwrap_or_default();
        let stderr = fs::read_to_string(self.dir.join("sshd.stderr")).unwrap_or_default();
        format!("{log}{stderr}")
    }

    /// Kills sshd and every process it started (the per-connection sshds, the sessions), so the
    /// node becomes unreachable, established connections and control masters included.
    pub fn stop(&mut self) {
        let Some(mut sshd) = self.sshd.take() else {
            return;
        };
        let pid = sshd.id().to_string();
        // Freeze the listener so it forks nothing new while its descendants are listed.
        let _ = Command::new("kill").args(["-STOP", &pid]).status();
        let mut pids = descendants(sshd.id());
        pids.push(sshd.id());
        let _ = Command::new("kill")
            .arg("-KILL")
            .args(pids.iter().map(u32::to_string))
            .stderr(Stdio::null())
            .status();
        let _ = sshd.wait();
    }

    /// Starts sshd again on the same port (with the current host key).
    pub fn restart(&mut self) {
        self.stop();
        if let Err(why) = self.spawn() {
            panic!("sshd for node {} did not restart: {why}", self.name);
        }
    }

    /// Writes the config for `self.port`, runs sshd and waits until it accepts connections.
    ///
    /// `SetEnv SHLVL=1`: bash sources ~/.bashrc for every command run by sshd when SHLVL is
    /// unset (Debian builds it so), and this machine's root ~/.bashrc runs `pyenv init`, which
    /// made each command cost ~0.3 s. With SHLVL set, bash runs the command straight away.
    fn spawn(&mut self) -> Result<(), String> {
        let config = self.dir.join("sshd_config");
        let path = |file: &str| self.dir.join(file).display().to_string();
        fs::write(
            &config,
            format!(
                "Port {port}\n\
                 ListenAddress 127.0.0.1\n\
                 HostKey {host_key}\n\
                 AuthorizedKeysFile {authorized}\n\
                 PidFile {pid}\n\
                 StrictModes no\n\
                 UsePAM no\n\
                 PermitRootLogin prohibit-password\n\
                 PasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\n\
                 Subsystem sftp internal-sftp\n\
                 SetEnv SHLVL=1\n",
                port = self.port,
                host_key = path("host_key"),
                authorized = path("authorized_keys"),
                pid = path("sshd.pid"),
            ),
        )
        .expect("write sshd_config");
        let stderr = fs::File::create(self.dir.join("sshd.stderr")).expect("sshd.stderr");
        let sshd = Command::new(SSHD)
            .arg("-D")
            .arg("-f")
            .arg(&config)
            .arg("-E")
            .arg(self.dir.join("sshd.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run {SSHD}: {e} (apt-get install -y openssh-server)")
            });
        self.sshd = Some(sshd);

        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.port));
        let started = Instant::now();
        loop {
            let sshd = self.sshd.as_mut().expect("just started");
            if let Ok(Some(status)) = sshd.try_wait() {
                self.sshd = None;
                return Err(format!("sshd exited ({status}):\n{}", self.log()));
            }
            if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                return Ok(());
            }
            if started.elapsed() > READY_WITHIN {
                self.stop();
                return Err(format!(
                    "sshd did not accept connections on port {} within {READY_WITHIN:?}:\n{}",
                    self.port,
                    self.log()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for SshNode {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The private key every node authorizes (`<key>.pub` beside it): made once per test process, in
/// a temp dir that lives as long as the process.
pub fn client_key() -> &'static Path {
    static KEY: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, key) = KEY.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("mesh-ssh-client-")
            .tempdir()
            .expect("temp dir");
        let key = dir.path().join("id_ed25519");
        keygen(&key);
        (dir, key)
    });
    key
}

/// The user sshd logs us in as: the current one.
fn user() -> &'static str {
    static USER: OnceLock<String> = OnceLock::new();
    USER.get_or_init(|| {
        let out = Command::new("id").arg("-un").output().expect("id -un");
        String::from_utf8(out.stdout)
            .expect("user name")
            .trim()
            .to_string()
    })
}

/// A new ed25519 key pair without a passphrase at `key` and `key.pub`.
fn keygen(key: &Path) {
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "mesh-test", "-f"])
        .arg(key)
        .stdin(Stdio::null())
        .output()
        .expect("ssh-keygen (apt-get install -y openssh-client)");
    assert!(out.status.success(), "ssh-keygen: {out:?}");
}

/// A loopback port nothing listens on right now.
fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local addr").port()
}

/// Every process below `pid`, from /proc.
fn descendants(pid: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for entry in fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(child) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        // "pid (comm) state ppid …": comm may hold spaces and parentheses.
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let parent = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse().ok());
        if let Some(parent) = parent {
            children.entry(parent).or_default().push(child);
        }
    }
    let mut found = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        for &c in children.get(&p).into_iter().flatten() {
            found.push(c);
            todo.push(c);
        }
    }
    found
}

// ---------------------------------------------------------------------------------------------
// The tests: the harness and `mesh::transport::ssh` together.

/// A private (0700) directory for a session's ControlPath socket.
fn control_dir(base: &Path, name: &str) -> PathBuf {
    let dir = base.join(format!("ctl-{name}"));
    fs::create_dir(&dir).expect("mkdir control dir");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).expect("chmod control dir");
    dir
}

fn session(node: &SshNode, base: &Path, options: &[String], ctl: &str) -> Ssh {
    Ssh::new(
        &node.address(),
        options,
        &control_dir(base, ctl),
        Duration::from_secs(5),
    )
}

/// About 1 MB holding every byte value.
fn megabyte(seed: u8) -> Vec<u8> {
    (0..1_000_003u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 ^ seed)
        .collect()
}

const TIMEOUT: Duration = Duration::from_secs(30);

#[test]
fn two_nodes_round_trip_a_megabyte() {
    let base = tempfile::tempdir().expect("temp dir");
    let nodes = [
        SshNode::start(base.path(), "alpha"),
        SshNode::start(base.path(), "beta"),
    ];
    assert_ne!(nodes[0].port, nodes[1].port);
    std::thread::scope(|scope| {
        for (i, node) in nodes.iter().enumerate() {
            let base = base.path();
            scope.spawn(move || {
                let ssh = session(node, base, &node.client_options(), &node.name);
                let data = megabyte(i as u8);
                let out = ssh
                    .run(
                        &["sh", "-c", "echo \"$0\" && cat", "hello world"],
                        Some(&mut data.as_slice()),
                        TIMEOUT,
                    )
                    .unwrap_or_else(|e| panic!("{e}\n{}", node.log()));
                assert_eq!(out.status, 0, "{}", out.stderr);
                assert_eq!(&out.stdout[..12], b"hello world\n");
                assert!(
                    out.stdout[12..] == data[..],
                    "the megabyte came back changed"
                );

                // The node's root is where the test says, and words with shell syntax arrive whole.
                let tricky = "it's $(id) `x` \"q\"\nline two";
                let root = node.root.display().to_string();
                let out = ssh
                    .run(
                        &[
                            "sh",
                            "-c",
                            "cd \"$1\" && pwd && printf %s \"$0\"",
                            tricky,
                            &root,
                        ],
                        None,
                        TIMEOUT,
                    )
                    .expect("run");
                assert_eq!(
                    String::from_utf8(out.stdout).unwrap(),
                    format!("{root}\n{tricky}")
                );

                // The remote command's own failure is the caller's to read.
                let out = ssh
                    .run(&["sh", "-c", "echo oops >&2; exit 3"], None, TIMEOUT)
                    .expect("a failing command is still Ok");
                assert_eq!((out.status, out.stderr.as_str()), (3, "oops\n"));
                let out = ssh
                    .run(&["mesh-not-installed-here", "node", "have"], None, TIMEOUT)
                    .expect("a missing command is still Ok");
                assert_eq!(out.status, 127, "{}", out.stderr);

                // A command that stops reading early is not a deadlock.
                let out = ssh
                    .run(&["head", "-c", "5"], Some(&mut data.as_slice()), TIMEOUT)
                    .expect("run");
                assert_eq!(out.stdout, data[..5]);
                ssh.close();
            });
        }
    });
}

#[test]
fn a_second_run_reuses_the_control_master() {
    let base = tempfile::tempdir().expect("temp dir");
    let node = SshNode::start(base.path(), "gamma");
    let ctl = control_dir(base.path(), "gamma");
    let ssh = Ssh::new(
        &node.address(),
        &node.client_options(),
        &ctl,
        Duration::from_secs(5),
    );
    // `ssh -O check` with the session's ControlPath: is a master running?
    let check = || {
        Command::new("ssh")
            .args(node.client_options())
            .arg("-o")
            .arg(format!("ControlPath={}/%C", ctl.display()))
            .args(["-O", "check", "--", &node.address()])
            .stdin(Stdio::null())
            .output()
            .expect("ssh -O check")
    };
    assert!(!check().status.success(), "no master before the first run");

    let mut times = Vec::new();
    for _ in 0..4 {
        let started = Instant::now();
        let out = ssh.run(&["true"], None, TIMEOUT).expect("run");
        times.push(started.elapsed());
        assert_eq!(out.status, 0);
        let checked = check();
        assert!(checked.status.success(), "master not running: {checked:?}");
    }
    eprintln!("ssh run times, first (handshake) then reusing the master: {times:?}");
    // One connection, one authentication, however many runs.
    let accepted = node.log().matches("Accepted publickey").count();
    assert_eq!(accepted, 1, "{}", node.log());

    ssh.close();
    assert!(!check().status.success(), "close() leaves no master");
}

#[test]
fn a_stopped_node_is_unreachable() {
    let base = tempfile::tempdir().expect("temp dir");
    let mut node = SshNode::start(base.path(), "delta");
    let ssh = session(&node, base.path(), &node.client_options(), "delta");
    assert_eq!(ssh.run(&["true"], None, TIMEOUT).expect("run").status, 0);

    node.stop();
    // Through the session whose master just lost its connection, and through a fresh one.
    let fresh = session(&node, base.path(), &node.client_options(), "delta-2");
    for ssh in [&ssh, &fresh] {
        let err = ssh.run(&["true"], None, TIMEOUT).unwrap_err();
        assert!(err.is_unreachable(), "{err:?}");
    }
    let err = fresh.run(&["true"], None, TIMEOUT).unwrap_err();
    assert!(matches!(err, SshError::ConnectionRefused { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("{}: connection refused", node.address())
    );

    node.restart();
    assert_eq!(ssh.run(&["true"], None, TIMEOUT).expect("run").status, 0);
    ssh.close();
}

#[test]
fn a_changed_host_key_is_refused() {
    let base = tempfile::tempdir().expect("temp dir");
    let mut node = SshNode::start(base.path(), "epsilon");
    let known_hosts = base.path().join("known_hosts");
    fs::write(&known_hosts, node.known_hosts_line()).expect("known_hosts");
    let strict = node.strict_client_options(&known_hosts);
    let ssh = session(&node, base.path(), &strict, "epsilon");
    assert_eq!(ssh.run(&["true"], None, TIMEOUT).expect("run").status, 0);

    let old_key = node.known_hosts_line();
    node.rotate_host_key();
    assert_ne!(node.known_hosts_line(), old_key);
    node.restart();
    for ssh in [&ssh, &session(&node, base.path(), &strict, "epsilon-2")] {
        let err = ssh.run(&["true"], None, TIMEOUT).unwrap_err();
        assert!(matches!(err, SshError::HostKey { .. }), "{err:?}");
        assert!(!err.is_unreachable());
        assert_eq!(
            err.to_string(),
            format!(
                "{}: the node's host key changed or is unknown: ssh refused to connect",
                node.address()
            )
        );
    }
    // known_hosts is left as it was: mesh never accepts a key by itself.
    assert_eq!(fs::read_to_string(&known_hosts).unwrap(), old_key);

    // An unknown host (empty known_hosts) is refused the same way.
    fs::write(&known_hosts, "").expect("known_hosts");
    let err = session(&node, base.path(), &strict, "epsilon-3")
        .run(&["true"], None, TIMEOUT)
        .unwrap_err();
    assert!(matches!(err, SshError::HostKey { .. }), "{err:?}");
}

#[test]
fn a_refused_key_and_a_timeout_are_named() {
    let base = tempfile::tempdir().expect("temp dir");
    let node = SshNode::start(base.path(), "zeta");
    // Another key, which the node does not authorize.
    let other = base.path().join("other_key");
    keygen(&other);
    let mut options = node.client_options();
    let i = options.iter().position(|o| o == "-i").expect("-i");
    options[i + 1] = other.display().to_string();
    let err = session(&node, base.path(), &options, "zeta-key")
        .run(&["true"], None, TIMEOUT)
        .unwrap_err();
    assert!(matches!(err, SshError::KeyRefused { .. }), "{err:?}");
    assert!(!err.is_unreachable());

    let ssh = session(&node, base.path(), &node.client_options(), "zeta");
    let started = Instant::now();
    let mut endless = std::io::repeat(b'x').take(u64::MAX);
    let err = ssh
        .run(
            &["sleep", "30"],
            Some(&mut endless),
            Duration::from_millis(1500),
        )
        .unwrap_err();
    assert!(matches!(err, SshError::Timeout { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("{}: no answer within 1.5s", node.address())
    );
    assert!(started.elapsed() < Duration::from_secs(5), "{started:?}");
    ssh.close();
}
