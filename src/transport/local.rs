//! The local transport: a node that is a directory on this machine, served by this very mesh
//! binary as a child process (`mesh node session --root DIR`). A process per node, not a thread:
//! an apply writes executables while another forks for `activate`, and a fork would hold the
//! other's fresh file open for writing (ETXTBSY).

use super::session::NodeSession;
use super::{Transport, TransportError};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A node at a directory on this machine.
pub struct Local {
    root: PathBuf,
}

impl Local {
    /// A local node rooted at `root`.
    pub fn new(root: &Path) -> Local {
        Local {
            root: root.to_path_buf(),
        }
    }
}

impl Transport for Local {
    fn open(&self) -> Result<NodeSession, TransportError> {
        let exe = std::env::current_exe()
            .map_err(|e| TransportError::failed(format!("cannot find this mesh binary: {e}")))?;
        let mut command = Command::new(exe);
        command.args(["node", "session", "--root"]).arg(&self.root);
        let child = super::session::piped(&mut command)
            .spawn()
            .map_err(|e| TransportError::failed(format!("cannot run this mesh binary: {e}")))?;
        NodeSession::start(
            child,
            Box::new(|status, stderr| match status {
                None => TransportError::failed(
                    "the node's mesh gave no answer in time (an `activate` that hangs?): check the node's directory, then try again",
                ),
                Some(status) => TransportError::failed(format!(
                    "the node's mesh ended ({status}): {}",
                    super::last_line(stderr)
                )),
            }),
        )
    }

    fn install(&self) -> Result<(), TransportError> {
        // This very binary serves the node: nothing to install.
        Ok(())
    }
}
