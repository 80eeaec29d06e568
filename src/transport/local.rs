//! The local transport: a node that is a directory on this machine, served by this very mesh
//! binary as a child process (`mesh node session --root DIR`). A process per node, not a thread:
//! an apply writes executables while another forks for `activate`, and a fork would hold the
//! other's fresh file open for writing (ETXTBSY).

use super::session::{NodeSession, Patience};
use super::{Transport, TransportError};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A node at a directory on this machine.
pub struct Local {
    root: PathBuf,
    patience: Patience,
}

impl Local {
    /// A local node rooted at `root`, its process given `patience` as an ssh node's is (a
    /// stuck disk stalls a local node as well).
    pub fn new(root: &Path, patience: Patience) -> Local {
        Local {
            root: root.to_path_buf(),
            patience,
        }
    }
}

impl Transport for Local {
    fn open(&self) -> Result<NodeSession, TransportError> {
        let exe = std::env::current_exe().map_err(|e| {
            let said = format!("cannot find this mesh binary: {e}");
            TransportError::failed(said).caused_by(e)
        })?;
        let mut command = Command::new(exe);
        command.args(["node", "session", "--root"]).arg(&self.root);
        NodeSession::spawn(
            command,
            Box::new(|status, stderr| match status {
                None => TransportError::failed(
                    "the node's mesh gave no answer in time (an `activate` that hangs?): check the node's directory, then try again",
                ),
                Some(status) => TransportError::failed(format!(
                    "the node's mesh ended ({status}): {}",
                    super::node_said(stderr)
                )),
            }),
            self.patience,
            |e| {
                let said = format!("cannot run this mesh binary: {e}");
                TransportError::failed(said).caused_by(e)
            },
        )
    }

    fn install(&self) -> Result<u64, TransportError> {
        // This very binary serves the node: nothing to install.
        Ok(0)
    }
}
