//! Transports: how the controller reaches its nodes (DESIGN.md §8). The same node protocol
//! (`have`, `receive`, `apply`, `report`) behind one trait, with an ssh side and a local side;
//! the controller never knows which.

pub mod collect;
pub mod local;
pub mod push;
pub mod ssh;
pub mod ssh_node;
pub mod stream;
pub mod trouble;

use crate::config::{MeshConfig, NodeConfig, Transport as Kind};
use crate::node::Have;
use serde::Deserialize;
use std::io::Read;
use std::path::Path;

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
}

/// Why a transport call did not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    /// The node could not be reached: a fact about reachability, not a failure of the node.
    Unreachable(String),
    /// The node has no (or an older) mesh binary.
    NotInstalled(String),
    /// The node's ssh refused this controller (a changed host key, a refused key): no run can
    /// repair it, a person must act.
    Refused(String),
    /// The node answered, and the call failed there.
    Failed(String),
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::Unreachable(r)
            | TransportError::Refused(r)
            | TransportError::Failed(r) => f.write_str(r),
            TransportError::NotInstalled(r) => write!(f, "mesh is not installed on the node: {r}"),
        }
    }
}

/// One node's side of the protocol, reached somehow.
pub trait Transport: Send + Sync {
    /// What the node holds.
    fn have(&self) -> Result<Have, TransportError>;
    /// Streams artifacts and an envelope; the node's answer.
    fn receive(&self, stream: &mut (dyn Read + Send)) -> Result<Answer, TransportError>;
    /// Makes the node apply what it holds: `Ok(None)` when it applied cleanly, `Ok(Some(why))`
    /// when the apply ran and failed (its report says more).
    fn apply(&self) -> Result<Option<String>, TransportError>;
    /// The node's reports newer than `since`, as JSON lines.
    fn reports(&self, since: u64) -> Result<Vec<u8>, TransportError>;
    /// Puts this mesh binary on the node.
    fn install(&self) -> Result<(), TransportError>;
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
/// others). Each message a worker sends reaches `on_message` on the calling thread as it
/// arrives: that is where the store is written, one handle per process.
pub fn fan_out<T: Send, M: Send>(
    items: Vec<T>,
    parallel: usize,
    work: impl Fn(T, &std::sync::mpsc::Sender<M>) + Sync,
    mut on_message: impl FnMut(M),
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
        for m in rx {
            on_message(m);
        }
    });
}
