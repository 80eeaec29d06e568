//! Where a mesh keeps its state: the store file and the directories beside it in `.mesh/`.

use super::{Store, StoreError};
use std::path::PathBuf;

/// Where a mesh keeps its state: the store file and the directories beside it in `.mesh/`.
#[derive(Debug, Clone)]
pub struct Paths {
    /// `.mesh/`.
    pub dot_mesh: PathBuf,
    /// The store file (default `.mesh/state.redb`).
    pub state: PathBuf,
}

impl Paths {
    /// `.mesh/artifacts/`: the content-addressed artifact store.
    pub fn artifacts(&self) -> PathBuf {
        self.dot_mesh.join("artifacts")
    }
    /// `.mesh/logs/`: build and test logs, bounded per module.
    pub fn logs(&self) -> PathBuf {
        self.dot_mesh.join("logs")
    }
    /// `.mesh/exports/`: trees exported at a commit for builds.
    pub fn exports(&self) -> PathBuf {
        self.dot_mesh.join("exports")
    }
    /// `.mesh/deps/`: unpacked artifacts handed to builds as `MESH_DEP_<NAME>`.
    pub(crate) fn deps(&self) -> PathBuf {
        self.dot_mesh.join("deps")
    }
    /// `.mesh/tmp/`: scratch space (`$MESH_OUT`), swept by every run that takes the lock.
    pub fn tmp(&self) -> PathBuf {
        self.dot_mesh.join("tmp")
    }
    /// `.mesh/groups/`: one file per running build process group (pid, start time), so a run
    /// after a SIGKILL can stop what the killed one left running.
    pub fn groups(&self) -> PathBuf {
        self.dot_mesh.join("groups")
    }
    /// Opens the store.
    pub fn open(&self) -> Result<Store, StoreError> {
        Store::open(&self.state)
    }
}
