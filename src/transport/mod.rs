//! Transports: how the controller reaches its nodes. One conversation per node per run (`mesh
//! node session`: have, receive, apply, report) behind one trait, with an ssh side and a local
//! side; the controller never knows which. This room opens sessions and moves frames; what to
//! send and what an answer means is decided above it, in the delivery room.

pub mod local;
pub mod session;
pub mod ssh;
pub mod ssh_node;
pub mod stream;

use crate::config::{MeshConfig, NodeConfig, Transport as Kind};
use serde::Deserialize;
use session::NodeSession;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

/// The node's answer to a receive.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Answer {
    /// It holds this declaration now.
    Received {
        /// The digest in force.
        received: String,
        /// Its sequence.
        sequence: u64,
    },
    /// It refused the whole declaration.
    Refused {
        /// The node's reason.
        refused: String,
    },
    /// It refused the declaration before keeping anything: not signed by a controller it
    /// trusts. Not in its journal.
    Untrusted {
        /// The node's reason, naming the controllers it trusts.
        untrusted: String,
    },
}

/// What kind of failure a transport call met: what delivery decides on (record the node
/// unreachable, install mesh, call a person), never the words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The node could not be reached: a fact about reachability, not a failure of the node.
    Unreachable,
    /// The node has no (or an older) mesh binary.
    NotInstalled,
    /// The node's ssh refused this controller (a changed host key, a refused key): no run can
    /// repair it, a person must act.
    Refused,
    /// The node answered, and the call failed there.
    Failed,
}

/// Why a transport call did not do what was asked: its kind, and its cause in words for
/// people (ssh's failure made into a sentence with its help, the node's last line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportError {
    /// What kind of failure it is.
    pub kind: ErrorKind,
    /// The cause, one sentence.
    pub source: String,
}

impl TransportError {
    /// The node could not be reached.
    pub fn unreachable(source: impl Into<String>) -> TransportError {
        TransportError::new(ErrorKind::Unreachable, source)
    }

    /// The node's mesh is missing or older.
    pub fn not_installed(source: impl Into<String>) -> TransportError {
        TransportError::new(ErrorKind::NotInstalled, source)
    }

    /// The node's ssh refused this controller.
    pub fn refused(source: impl Into<String>) -> TransportError {
        TransportError::new(ErrorKind::Refused, source)
    }

    /// The call failed on the node.
    pub fn failed(source: impl Into<String>) -> TransportError {
        TransportError::new(ErrorKind::Failed, source)
    }

    fn new(kind: ErrorKind, source: impl Into<String>) -> TransportError {
        TransportError {
            kind,
            source: source.into(),
        }
    }
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            ErrorKind::NotInstalled => {
                write!(f, "mesh is not installed on the node: {}", self.source)
            }
            _ => f.write_str(&self.source),
        }
    }
}

/// One node, reached somehow.
pub trait Transport: Send + Sync {
    /// Opens the node's session, one for every request of the run: its `mesh node session`, or
    /// (ssh with `[ssh] persist`) the one lingering there from an earlier run.
    /// [`TransportError::NotInstalled`] when the node's mesh is missing or older.
    fn open(&self) -> Result<NodeSession, TransportError>;
    /// Puts this mesh binary on the node.
    fn install(&self) -> Result<(), TransportError>;
}

/// Opens the node's session, installing this mesh first when the node's is missing or older;
/// whether it installed.
fn connect(t: &dyn Transport) -> Result<(NodeSession, bool), TransportError> {
    match t.open() {
        Ok(s) => Ok((s, false)),
        Err(e) if e.kind == ErrorKind::NotInstalled => {
            t.install().map_err(|e| match e.kind {
                ErrorKind::Failed => {
                    TransportError::failed(format!("could not install mesh: {}", e.source))
                }
                _ => e,
            })?;
            Ok((t.open()?, true))
        }
        Err(e) => Err(e),
    }
}

/// The last line of a process's stderr that says something.
pub fn last_line(stderr: &str) -> &str {
    stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("no message")
}

/// The nodes' sessions for one run: each opened once, on first use, and kept for every step of
/// the run (a reconcile pass pushes and collects through the same one); all ended when dropped.
pub struct Connections<'m> {
    mesh: &'m MeshConfig,
    /// How many sessions may wait open for a later step (each holds a process, three pipes and
    /// two threads): a node beyond that opens another in the later step.
    max_kept: usize,
    control: ControlDir,
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
        Ok(Connections {
            mesh,
            max_kept,
            control: control_dir(mesh)?,
            transports: Mutex::new(HashMap::new()),
            open: Mutex::new(HashMap::new()),
        })
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
        Kind::Local => Box::new(local::Local::new(Path::new(&node.root))),
        Kind::Ssh => Box::new(ssh_node::SshNode::new(mesh, node, control_dir)),
    }
}

/// Where this run's ssh ControlMaster sockets live: a private temp dir removed at the end of the
/// run, or, with `[ssh] persist`, a private directory kept between runs so the next run finds
/// the connections still open. Short, under /tmp: a socket path is limited to 108 bytes.
pub enum ControlDir {
    /// Removed when the run ends (the connections close with it).
    Run(tempfile::TempDir),
    /// Kept: `/tmp/mesh-ssh-<uid>-<mesh>`.
    Kept(std::path::PathBuf),
}

impl ControlDir {
    /// The directory.
    pub fn path(&self) -> &Path {
        match self {
            ControlDir::Run(t) => t.path(),
            ControlDir::Kept(p) => p,
        }
    }
}

/// The control directory for a run of `mesh`.
pub fn control_dir(mesh: &MeshConfig) -> crate::Result<ControlDir> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    if mesh.ssh.persist.is_some() {
        let id = blake3::hash(mesh.dir.as_os_str().as_encoded_bytes()).to_hex();
        let uid = std::fs::metadata("/proc/self")
            .map(|m| m.uid())
            .unwrap_or(0);
        let dir = std::path::PathBuf::from(format!("/tmp/mesh-ssh-{uid}-{}", &id[..12]));
        let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
        // Only a directory that is ours and private: otherwise a fresh one for this run.
        if let Ok(m) = std::fs::symlink_metadata(&dir)
            && m.is_dir()
            && m.uid() == uid
            && m.permissions().mode() & 0o077 == 0
        {
            return Ok(ControlDir::Kept(dir));
        }
    }
    tempfile::Builder::new()
        .prefix("mesh-ssh-")
        .tempdir_in("/tmp")
        .map(ControlDir::Run)
        .map_err(|e| {
            crate::Error::io(
                "cannot make a directory for ssh's control sockets",
                e,
                "check that /tmp exists and is writable",
            )
        })
}

/// Runs `work` for every item on up to `parallel` threads (one node failing never stops the
/// others). The messages workers send reach `on_messages` on the calling thread as they
/// arrive, all those waiting at once: that is where the store is written, one handle per
/// process and one write for what arrived together.
pub fn fan_out<T: Send, M: Send>(
    items: Vec<T>,
    parallel: usize,
    work: impl Fn(T, &std::sync::mpsc::Sender<M>) + Sync,
    mut on_messages: impl FnMut(Vec<M>),
) {
    let queue = std::sync::Mutex::new(items.into_iter());
    let (tx, rx) = std::sync::mpsc::channel::<M>();
    std::thread::scope(|s| {
        for _ in 0..parallel.max(1) {
            let (tx, queue, work) = (tx.clone(), &queue, &work);
            s.spawn(move || {
                while let Some(item) = queue.lock().map(|mut q| q.next()).unwrap_or(None) {
                    work(item, &tx);
                }
            });
        }
        drop(tx);
        while let Ok(first) = rx.recv() {
            let mut waiting = vec![first];
            waiting.extend(rx.try_iter());
            on_messages(waiting);
        }
    });
}
