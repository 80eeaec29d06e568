//! Real `sshd` processes on loopback ports: the `ssh` nodes of the tests, and what a test does
//! to make one a node of its mesh (the mesh under test on it, its stanza in mesh.toml).
//!
//! Each [`SshNode`] has its own host key, config, log and node root; every node authorizes the
//! one client key of this test process ([`client_key`]).

use super::{MESH_HEAD, TestMesh, toml_array};
use std::collections::HashMap;
use std::fs;
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

    /// [`start`](Self::start)s a node that has the mesh under test on it already
    /// ([`preinstall`](Self::preinstall)).
    pub fn with_mesh(base: &Path, name: &str) -> SshNode {
        let node = SshNode::start(base, name);
        node.preinstall();
        node
    }

    /// Puts the node binary under test on the node the way `mesh node install` would, without
    /// copying it: `ROOT/bin/mesh-node` is a link to it.
    pub fn preinstall(&self) {
        let bin = self.root.join("bin");
        fs::create_dir_all(&bin).expect("mkdir");
        std::os::unix::fs::symlink(
            assert_cmd::cargo::cargo_bin("mesh-node"),
            bin.join("mesh-node"),
        )
        .expect("link");
    }

    /// Puts `script` at `ROOT/bin/mesh-node` (`REAL` in it is the node binary under test), never writing
    /// through a link that is there ([`preinstall`](Self::preinstall)'s points at the mesh under
    /// test).
    pub fn program(&self, script: &str) {
        let bin = self.root.join("bin");
        fs::create_dir_all(&bin).expect("mkdir");
        let real = assert_cmd::cargo::cargo_bin("mesh-node");
        let path = bin.join("mesh-node");
        let _ = fs::remove_file(&path);
        fs::write(&path, script.replace("REAL", &real.display().to_string())).expect("write");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
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

    /// [`client_options`](Self::client_options) with a new key, made at `key`, that the node
    /// does not authorize.
    pub fn unauthorized_options(&self, key: &Path) -> Vec<String> {
        keygen(key);
        let mut options = self.client_options();
        let i = options.iter().position(|o| o == "-i").expect("-i");
        options[i + 1] = key.display().to_string();
        options
    }

    /// The node's stanza in mesh.toml: `[node.NAME]` with its address, its root and `options`,
    /// and `tags` unless there are none.
    pub fn stanza(&self, options: &[String], tags: &[&str]) -> String {
        let mut stanza = format!(
            "[node.{}]\naddress = \"{}\"\nroot = \"{}\"\noptions = {}\n",
            self.name,
            self.address(),
            self.root.display(),
            toml_array(options)
        );
        if !tags.is_empty() {
            stanza.push_str(&format!("tags = {}\n", toml_array(tags)));
        }
        stanza
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

/// Writes a mesh.toml of the one ssh node `n`, reached with `options`, running route-proxy and
/// resolver.
pub fn one_node_mesh(t: &TestMesh, n: &SshNode, options: &[String]) {
    t.write(
        "mesh.toml",
        &format!(
            "{MESH_HEAD}\n{}\n[assign]\nroute-proxy = [\"{name}\"]\nresolver = [\"{name}\"]\n",
            n.stanza(options, &[]),
            name = n.name
        ),
    );
}
