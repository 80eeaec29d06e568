//! The local transport: a node that is a directory on this machine, spoken to in-process with
//! the same protocol functions the node binary runs.

use super::{Answer, Transport, TransportError};
use crate::node::{self, Have, NodeError};
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

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

fn failed(e: NodeError) -> TransportError {
    match e {
        // A busy node was not reached this run: a fact about reachability, retried next run.
        NodeError::Busy { .. } => TransportError::Unreachable(e.to_string()),
        e => TransportError::Failed(e.to_string()),
    }
}

impl Transport for Local {
    fn have(&self) -> Result<Have, TransportError> {
        node::have(&self.root).map_err(failed)
    }

    fn receive(&self, stream: &mut (dyn Read + Send)) -> Result<Answer, TransportError> {
        let mut input = BufReader::new(stream);
        let mut out = Vec::new();
        match node::receive(&self.root, &mut input, &mut out) {
            Ok(r) => Ok(Answer::Received {
                received: r.digest,
                sequence: r.sequence,
            }),
            Err(NodeError::Refused { reason }) => Ok(Answer::Refused { refused: reason }),
            Err(e) => Err(failed(e)),
        }
    }

    fn apply(&self) -> Result<Option<String>, TransportError> {
        // One local apply at a time in this process: an apply writes executables while another
        // forks for `activate`, and a fork can hold a file open for writing just when the other
        // executes it (ETXTBSY). Separate node processes (ssh) do not share this.
        static APPLY: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one = APPLY.lock().unwrap_or_else(|p| p.into_inner());
        node::apply(&self.root)
            .map(|r| {
                (r.outcome != node::Outcome::Applied)
                    .then(|| r.reason.unwrap_or_else(|| "the apply failed".into()))
            })
            .map_err(failed)
    }

    fn reports(&self, since: u64) -> Result<Vec<u8>, TransportError> {
        let mut out = Vec::new();
        node::reports_since(&self.root, since, &mut out).map_err(failed)?;
        Ok(out)
    }

    fn install(&self) -> Result<(), TransportError> {
        // The protocol runs in this very process: nothing to install.
        Ok(())
    }
}
