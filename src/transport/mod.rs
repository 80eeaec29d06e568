//! Transports: how the controller reaches its nodes. One conversation per node per run (`mesh
//! node session`: have, receive, apply, report) behind one trait, with an ssh side and a local
//! side; the controller never knows which. This room opens sessions and moves frames; what to
//! send and what an answer means is decided above it, in the delivery room.

mod answer;
mod control;
mod error;
mod fan_out;
pub mod install;
pub mod local;
mod pool;
mod report;
pub mod session;
pub mod ssh;
pub mod ssh_node;
pub mod stream;
mod text;

pub use answer::Answer;
pub use control::{ControlDir, control_dir};
pub use error::{ErrorKind, TransportError};
pub(crate) use fan_out::fan_out;
pub use pool::{Connections, Taken, for_node};
pub use report::ReportLine;
pub(crate) use text::{from_node, from_node_line, report_from_node};
pub use text::{last_line, node_said};

use session::NodeSession;

/// One node, reached somehow.
pub trait Transport: Send + Sync {
    /// Opens the node's session, one for every request of the run: its `mesh node session`, or
    /// (ssh with `[ssh] persist`) the one lingering there from an earlier run.
    /// [`TransportError::NotInstalled`] when the node's mesh is missing or older.
    fn open(&self) -> Result<NodeSession, TransportError>;
    /// Puts `mesh-node` on the node; the bytes it sent.
    fn install(&self) -> Result<u64, TransportError>;
    /// What a person should know about this node's sessions so far this run (none by default).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}
