//! The ssh transport: `ROOT/bin/mesh-node node session` on the node, one remote process per node
//! per run, through a ControlMaster (an install before it, or a later run with `[ssh] persist`,
//! reuses the connection).

use super::session::{LONG, NodeSession, Patience};
use super::ssh::{Ssh, SshError};
use super::{Transport, TransportError};
use crate::config::{MeshConfig, NodeConfig};
use std::path::Path;

/// A node reached over ssh.
pub struct SshNode {
    session: Ssh,
    /// Leave the connection open for the next run (`[ssh] persist`).
    persist: bool,
    /// With `[ssh] persist`: how long the node's session lingers after a run, and the local
    /// socket the kept connection forwards to it (`ROOT/.session.sock`), so that the next runs
    /// start no remote command, and no login shell, at all.
    linger: Option<(std::time::Duration, std::path::PathBuf)>,
    /// How long the node may take: to greet, and between two signs of progress.
    patience: Patience,
    root: String,
    program: String,
    /// The node's name, for what this run should tell a person.
    name: String,
    /// What a person should know about this node's sessions this run (a lingering session
    /// that did not answer).
    notes: std::sync::Mutex<Vec<String>>,
}

impl SshNode {
    /// The node's session for this run; `control_dir` holds the ControlMaster socket.
    pub fn new(mesh: &MeshConfig, node: &NodeConfig, control_dir: &Path) -> SshNode {
        let mut options = mesh.ssh.options.clone();
        options.extend(node.options.iter().cloned());
        let address = node.address.clone().unwrap_or_default();
        let mut session = Ssh::new(&address, &options, control_dir, mesh.ssh.connect_timeout);
        if let Some(persist) = mesh.ssh.persist {
            session = session.with_persist(persist);
        }
        // A relative root has no one socket path on the node: no lingering session (said once
        // per run by `Connections`).
        let absolute = node.root.starts_with('/');
        let linger = mesh.ssh.persist.filter(|_| absolute).map(|p| {
            let name = linger_socket_name(&options, &address, &node.root, &node.name);
            (p, control_dir.join(name))
        });
        SshNode {
            linger,
            patience: Patience::new(mesh.ssh.connect_timeout, mesh.ssh.timeout),
            persist: mesh.ssh.persist.is_some(),
            session,
            program: format!(
                "{}/bin/{}",
                node.root.trim_end_matches('/'),
                mesh_node::BINARY
            ),
            root: node.root.clone(),
            name: node.name.clone(),
            notes: std::sync::Mutex::new(Vec::new()),
        }
    }
}

/// The name of the local socket forwarded to a node's lingering session: a digest of
/// everything that decides which machine, which account and which root it reaches (every ssh
/// option, the address, the root) and of the node's name, so that two nodes never share one,
/// whatever they have in common.
pub(crate) fn linger_socket_name(
    options: &[String],
    address: &str,
    root: &str,
    node: &str,
) -> String {
    let mut hasher = blake3::Hasher::new();
    // Each part with its length: no two lists of parts hash the same.
    for part in options
        .iter()
        .map(String::as_str)
        .chain([address, root, node])
    {
        hasher.update(&(part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.update(&(options.len() as u64).to_le_bytes());
    format!("{}.s", &hasher.finalize().to_hex()[..16])
}

/// What the end of a session's ssh means: ssh's own failure (exit 255), a node without mesh
/// or with one from before sessions, a timeout, or mesh failing there.
fn failure(
    ssh: &Ssh,
    program: &str,
    status: Option<std::process::ExitStatus>,
    stderr: &str,
) -> TransportError {
    let Some(code) = status.and_then(|s| s.code()) else {
        return match status {
            None => TransportError::failed(format!(
                "{}: no answer in time; the node or the network is slow or stuck (an `activate` that hangs?): check the node, then try again",
                ssh.address()
            )),
            Some(s) => TransportError::failed(format!("{}: ssh ended ({s})", ssh.address())),
        };
    };
    match code {
        255 => ssh_error(ssh.failure(stderr)),
        127 | 126 => {
            TransportError::not_installed(format!("{} cannot be run there (exit {code})", program))
        }
        // clap's answer to a verb it does not know: a mesh from before sessions.
        2 if stderr.contains("unrecognized subcommand")
            || stderr.contains("unexpected argument") =>
        {
            TransportError::not_installed(format!(
                "{program} is older than this mesh (it has no `node session`, or not all of it)"
            ))
        }
        _ => TransportError::failed(format!(
            "`mesh node session` ended (exit {code}): {}",
            super::node_said(stderr)
        )),
    }
}

/// ssh's failure as one sentence, with its help (what to do next) after a semicolon.
fn ssh_error(e: SshError) -> TransportError {
    use miette::Diagnostic;
    let text = match e.help() {
        Some(help) => format!("{e}; {help}"),
        None => e.to_string(),
    };
    if e.is_unreachable() {
        TransportError::unreachable(text)
    } else if matches!(e, SshError::HostKey { .. } | SshError::KeyRefused { .. }) {
        TransportError::refused(text)
    } else {
        TransportError::failed(text)
    }
}

impl Transport for SshNode {
    fn open(&self) -> Result<NodeSession, TransportError> {
        // A lingering session, through the kept connection: no remote command started.
        if let Some((_, local)) = &self.linger
            && let Ok(stream) = std::os::unix::net::UnixStream::connect(local)
        {
            // Mid-conversation (a session that does not answer at all is replaced below): the
            // kept connection under it was cut, a broken network, not a node to see to.
            let broke = |_: Option<std::process::ExitStatus>, _: &str| {
                TransportError::unreachable(
                    "the connection to the node's lingering session broke; the next run tries again",
                )
            };
            match NodeSession::over_socket(stream, Box::new(broke), self.patience) {
                Ok(session) => return Ok(session),
                // Paid once, and said: the session started next replaces a lingering server
                // that does not answer (`mesh_node::linger`).
                Err(e) => {
                    self.note(format!(
                        "node {}: its lingering session did not answer ({e}); a new session was started, which replaces it",
                        self.name
                    ));
                }
            }
        }
        let linger = self
            .linger
            .as_ref()
            .map(|(d, _)| d.as_secs().max(1).to_string());
        let mut argv = vec![
            self.program.as_str(),
            "node",
            "session",
            "--root",
            self.root.as_str(),
        ];
        if let Some(secs) = &linger {
            argv.extend(["--linger", secs.as_str()]);
        }
        let command = self.session.command_for(&argv).map_err(ssh_error)?;
        let (ssh, program) = (self.session.clone(), self.program.clone());
        let session = NodeSession::spawn(
            command,
            Box::new(move |status, stderr| failure(&ssh, &program, status, stderr)),
            self.patience,
            |e| ssh_error(self.session.spawn_error(e)),
        )?;
        if let Some((_, local)) = &self.linger {
            let remote = mesh_node::socket_path(std::path::Path::new(&self.root));
            self.session.forward(local, &remote.to_string_lossy());
        }
        Ok(session)
    }

    fn notes(&self) -> Vec<String> {
        self.notes.lock().map(|n| n.clone()).unwrap_or_default()
    }

    fn install(&self) -> Result<u64, TransportError> {
        let binary = super::install::node_binary()?;
        let failed = |what: &str, out: &super::ssh::Output| {
            TransportError::failed(format!(
                "{what} under {}/bin failed: exit {}: {}",
                self.root,
                out.status,
                super::last_line(&super::from_node(&out.stderr, 64 * 1024))
            ))
        };
        let probe = self
            .session
            .run(&["sh", "-c", super::install::PROBE], None, LONG)
            .map_err(ssh_error)?;
        if probe.status != 0 {
            return Err(failed(
                "checking the node before installing mesh-node",
                &probe,
            ));
        }
        let zstd = String::from_utf8_lossy(&probe.stdout).trim() == "zstd";
        let (how, bytes) = if zstd {
            ("zstd", &binary.compressed)
        } else {
            self.note(format!(
                "node {}: it has no zstd, so mesh-node was sent uncompressed ({} bytes rather than {}): install zstd there",
                self.name,
                binary.size,
                binary.compressed.len()
            ));
            ("plain", &binary.plain)
        };
        // The node's floor first (the check `mesh-node` makes, in sh: no mesh runs there yet).
        let script = mesh_node::floor::SHELL_CHECK.to_string() + super::install::PUT_IN_PLACE;
        let mut input: &[u8] = bytes;
        let out = self
            .session
            .run(
                &["sh", "-c", &script, "sh", &self.root, how, &binary.sha256],
                Some(&mut input),
                LONG,
            )
            .map_err(ssh_error)?;
        if out.status != 0 {
            return Err(failed("installing mesh-node", &out));
        }
        Ok(bytes.len() as u64)
    }
}

impl SshNode {
    /// Keeps `note` for [`Transport::notes`].
    fn note(&self, note: String) {
        if let Ok(mut notes) = self.notes.lock() {
            notes.push(note);
        }
    }
}

impl Drop for SshNode {
    fn drop(&mut self) {
        if !self.persist {
            self.session.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::linger_socket_name;

    #[test]
    fn every_option_and_the_node_name_make_the_lingering_socket_name() {
        let port = |p: &str| vec!["-p".to_string(), p.to_string()];
        let a = linger_socket_name(&port("2201"), "root@h", "/srv/mesh", "ace");
        assert_eq!(
            a,
            linger_socket_name(&port("2201"), "root@h", "/srv/mesh", "ace")
        );
        // The same address and root on two ports, or under two names: two sockets.
        assert_ne!(
            a,
            linger_socket_name(&port("2202"), "root@h", "/srv/mesh", "ace")
        );
        assert_ne!(
            a,
            linger_socket_name(&port("2201"), "root@h", "/srv/mesh", "bee")
        );
        assert_ne!(a, linger_socket_name(&[], "root@h", "/srv/mesh", "ace"));
        // Parts never run into each other.
        assert_ne!(
            linger_socket_name(&["-p2".into()], "a", "/r", "n"),
            linger_socket_name(&["-p".into()], "2a", "/r", "n")
        );
        assert!(a.len() < 20, "short enough for a socket path: {a}");
    }
}
