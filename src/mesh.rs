//! A mesh directory, opened: its `mesh.toml` and where its state lives, found the way every verb
//! finds it. What the library's operations start from, as jj's workspace is; the CLI only says
//! which directory and renders what comes back.

use crate::config::{MESH_TOML, MeshConfig, find_mesh_toml};
use crate::store::{MeshLock, Paths};
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// A loaded mesh: its configuration and where its state lives.
pub struct Mesh {
    /// `mesh.toml`, validated.
    pub config: MeshConfig,
    /// `.mesh/` and the store file.
    paths: Paths,
}

impl Mesh {
    /// The mesh in `dir` (its `mesh.toml` must be there), or, without one, the nearest upward
    /// from the working directory; its store is `state`, or `.mesh/state.redb` beside it.
    pub fn open(dir: Option<&Path>, state: Option<PathBuf>) -> Result<Mesh> {
        let file = match dir {
            Some(dir) => {
                let f = dir.join(MESH_TOML);
                if !f.is_file() {
                    return Err(Error::Failed {
                        message: format!("there is no {MESH_TOML} in {}", dir.display()),
                        hint: "run `mesh init` there to write one, or point -C at the directory that holds it".into(),
                    });
                }
                f
            }
            None => {
                let start = std::env::current_dir().map_err(|e| {
                    Error::io(
                        "cannot read the working directory",
                        e,
                        "cd into the mesh directory, or pass -C DIR",
                    )
                })?;
                find_mesh_toml(&start).ok_or_else(|| Error::Failed {
                    message: format!(
                        "no {MESH_TOML} in {} or any directory above it",
                        start.display()
                    ),
                    hint: "run `mesh init` to write one, `mesh init --example demo` for a demo mesh, or pass -C DIR".into(),
                })?
            }
        };
        let config = MeshConfig::load(&file)?;
        let dot_mesh = config.dir.join(".mesh");
        let state = state.unwrap_or_else(|| dot_mesh.join("state.redb"));
        Ok(Mesh {
            config,
            paths: Paths { dot_mesh, state },
        })
    }

    /// Where the state lives.
    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// The one reading of the mesh: every repository at its ref, every module's manifest, and
    /// `[assign]` checked against them (no unknown module, no library). Every verb that acts
    /// on or reports about nodes goes through it, so no verb sees a mesh another would refuse.
    pub fn sources(&self) -> Result<crate::source::Snapshot> {
        Ok(crate::source::Snapshot::read(&self.config)?)
    }

    /// Checks, before any slow work, that a verb that signs declarations to the mesh's nodes
    /// has this controller's key to sign with (never made here: `mesh id --new` makes it).
    pub fn signer_key(&self) -> Result<()> {
        if !self.config.nodes.is_empty() {
            crate::controller::open_key(&self.paths.dot_mesh, &self.config.controller)?;
        }
        Ok(())
    }

    /// Takes the mesh lock for a verb that changes the mesh (exit 75 if another holds it),
    /// then clears what a killed run left: it stops the build process groups that run
    /// recorded, sweeps `.mesh/tmp` and removes half-made copies of the store. Only the
    /// lock's holder may: no other run is building. What it stopped is in [`Lock::tidied`].
    pub fn lock(&self, verb: &str) -> Result<Lock> {
        crate::store::make_dir(&self.paths.dot_mesh)?;
        let held = MeshLock::take(&self.paths.dot_mesh, verb)?;
        let tidied = mesh_node::process::stop_orphans(&self.paths.groups());
        sweep(&self.paths.tmp());
        crate::store::sweep_copies(&self.paths.state);
        Ok(Lock {
            _held: held,
            tidied,
        })
    }
}

/// The mesh lock, held until dropped; what taking it cleared after a killed run.
pub struct Lock {
    _held: MeshLock,
    tidied: Vec<String>,
}

impl Lock {
    /// One sentence per build process group of a killed run that taking the lock stopped.
    pub fn tidied(&self) -> &[String] {
        &self.tidied
    }
}

/// Removes everything inside `dir` (a killed build's `$MESH_OUT`), keeping `dir`.
fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let _ = match e.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&p),
            _ => std::fs::remove_file(&p),
        };
    }
}
