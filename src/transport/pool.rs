//! The nodes' sessions for one run: opened on first use, kept between steps, ended together.

use super::control::{ControlDir, control_place, runtime_dir};
use super::session::{self, NodeSession};
use super::{ErrorKind, Transport, TransportError, fan_out, local, ssh_node};
use crate::config::{MeshConfig, NodeConfig, Transport as Kind};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

/// Opens the node's session, installing this mesh first when the node's is missing or older;
/// whether it installed.
fn connect(t: &dyn Transport) -> Result<(NodeSession, bool), TransportError> {
    match t.open() {
        Ok(s) => Ok((s, false)),
        Err(e) if e.kind == ErrorKind::NotInstalled => {
            t.install().map_err(|e| match e.kind {
                ErrorKind::Failed => {
                    TransportError::failed(format!("could not install mesh: {}", e.message))
                }
                _ => e,
            })?;
            Ok((t.open()?, true))
        }
        Err(e) => Err(e),
    }
}

/// The nodes' sessions for one run: each opened once, on first use, and kept for every step of
/// the run (a reconcile pass pushes and collects through the same one); all ended when dropped.
pub struct Connections<'m> {
    mesh: &'m MeshConfig,
    /// How many sessions may wait open for a later step (each holds a process, three sockets
    /// and two threads): a node beyond that opens another in the later step.
    max_kept: usize,
    control: ControlDir,
    /// What a person should know about this run's connections (a refused `[ssh] persist`).
    warnings: Vec<String>,
    transports: Mutex<HashMap<String, std::sync::Arc<dyn Transport>>>,
    open: Mutex<HashMap<String, NodeSession>>,
}

/// A node's session, taken for one step.
pub struct Taken {
    /// The conversation.
    pub session: NodeSession,
    /// This mesh was installed on the node to open it.
    pub installed: bool,
}

impl<'m> Connections<'m> {
    /// No session open yet; ssh's control sockets in this run's directory. Up to `max_kept`
    /// sessions are kept open between steps (0 for a run of one step).
    pub fn new(mesh: &'m MeshConfig, max_kept: usize) -> crate::Result<Connections<'m>> {
        let (control, mut warnings) = control_place(mesh, runtime_dir())?;
        if mesh.ssh.persist.is_some() {
            warnings.extend(
                mesh.nodes
                    .values()
                    .filter(|n| n.transport == Kind::Ssh && !n.root.starts_with('/'))
                    .map(|n| {
                        format!(
                            "node {}: its root `{}` is relative, so its session does not linger between runs (`[ssh] persist` keeps only the connection); give it an absolute root",
                            n.name, n.root
                        )
                    }),
            );
        }
        Ok(Connections {
            mesh,
            max_kept,
            control,
            warnings,
            transports: Mutex::new(HashMap::new()),
            open: Mutex::new(HashMap::new()),
        })
    }

    /// What a person should know about this run's connections so far: `[ssh] persist`
    /// refused in part or whole, and why; a lingering session that did not answer.
    pub fn warnings(&self) -> Vec<String> {
        let mut all = self.warnings.clone();
        if let Ok(transports) = self.transports.lock() {
            let mut names: Vec<&String> = transports.keys().collect();
            names.sort();
            for name in names {
                all.extend(transports[name].notes());
            }
        }
        all
    }

    /// The node's session: the one kept from an earlier step, or a new one.
    pub fn take(&self, node: &str) -> Result<Taken, TransportError> {
        // A kept one whose process ended meanwhile is replaced by a new one.
        if let Some(session) = self.open.lock().ok().and_then(|mut o| o.remove(node))
            && session.is_open()
        {
            return Ok(Taken {
                session,
                installed: false,
            });
        }
        let transport = {
            let mut all = self
                .transports
                .lock()
                .map_err(|_| TransportError::failed("a worker panicked"))?;
            all.entry(node.to_string())
                .or_insert_with(|| {
                    std::sync::Arc::from(for_node(
                        self.mesh,
                        &self.mesh.nodes[node],
                        self.control.path(),
                    ))
                })
                .clone()
        };
        let (session, installed) = connect(transport.as_ref())?;
        Ok(Taken { session, installed })
    }

    /// Keeps a session for the next step, when it is still good for one and there is room;
    /// else ends it.
    pub fn keep(&self, node: &str, taken: Taken) {
        let session = taken.session;
        if !session.is_open() {
            return;
        }
        let Ok(mut open) = self.open.lock() else {
            return session.quit();
        };
        if open.len() < self.max_kept {
            open.insert(node.to_string(), session);
        } else {
            drop(open);
            session.quit();
        }
    }
}

impl Drop for Connections<'_> {
    fn drop(&mut self) {
        let open: Vec<NodeSession> = self
            .open
            .get_mut()
            .map(|o| o.drain().map(|(_, s)| s).collect())
            .unwrap_or_default();
        let transports: Vec<_> = self
            .transports
            .get_mut()
            .map(|t| t.drain().map(|(_, t)| t).collect())
            .unwrap_or_default();
        // Ended side by side: each waits for its process (and an ssh control master to close).
        fan_out(
            open,
            self.mesh.ssh.parallel,
            |s, _: &std::sync::mpsc::Sender<()>| s.quit(),
            |_| {},
        );
        fan_out(
            transports,
            self.mesh.ssh.parallel,
            |t, _: &std::sync::mpsc::Sender<()>| drop(t),
            |_| {},
        );
    }
}

/// The transport for a node: ssh with this run's control directory, or local.
pub fn for_node(mesh: &MeshConfig, node: &NodeConfig, control_dir: &Path) -> Box<dyn Transport> {
    match node.transport {
        Kind::Local => Box::new(local::Local::new(
            Path::new(&node.root),
            session::Patience::new(mesh.ssh.connect_timeout, mesh.ssh.timeout),
        )),
        Kind::Ssh => Box::new(ssh_node::SshNode::new(mesh, node, control_dir)),
    }
}
