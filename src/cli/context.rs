//! Where the mesh is: its `mesh.toml`, its store and its artifact and log directories.

use super::Cli;
use crate::config::{MESH_TOML, MeshConfig, find_mesh_toml};
use crate::{Error, Result};

/// A loaded mesh: its configuration and where its state lives.
pub struct Ctx {
    /// `mesh.toml`, validated.
    pub mesh: MeshConfig,
    /// `.mesh/` and the store file.
    paths: crate::store::Paths,
    /// Where to say what taking the lock tidied up.
    ui: super::Ui,
}

impl Ctx {
    /// Finds and loads `mesh.toml` (from `-C DIR` or upward from the working directory).
    pub fn load(cli: &Cli) -> Result<Ctx> {
        let start = match &cli.dir {
            Some(d) => d.clone(),
            None => std::env::current_dir().map_err(|e| {
                Error::io(
                    "cannot read the working directory",
                    e,
                    "cd into the mesh directory, or pass -C DIR",
                )
            })?,
        };
        let file = if cli.dir.is_some() {
            let f = start.join(MESH_TOML);
            if !f.is_file() {
                return Err(Error::Failed {
                    message: format!("there is no {MESH_TOML} in {}", start.display()),
                    hint: "run `mesh init` there to write one, or point -C at the directory that holds it".into(),
                });
            }
            f
        } else {
            find_mesh_toml(&start).ok_or_else(|| Error::Failed {
                message: format!(
                    "no {MESH_TOML} in {} or any directory above it",
                    start.display()
                ),
                hint: "run `mesh init` to write one, `mesh init --example demo` for a demo mesh, or pass -C DIR".into(),
            })?
        };
        let mesh = MeshConfig::load(&file)?;
        let dot_mesh = mesh.dir.join(".mesh");
        let state = cli
            .state
            .clone()
            .unwrap_or_else(|| dot_mesh.join("state.redb"));
        Ok(Ctx {
            mesh,
            paths: crate::store::Paths { dot_mesh, state },
            ui: super::Ui::new(cli),
        })
    }

    /// The one reading of the mesh: every repository at its ref, every module's manifest, and
    /// `[assign]` checked against them (no unknown module, no library). Every verb that acts
    /// on or reports about nodes goes through it, so no verb sees a mesh another would refuse.
    pub fn sources(&self) -> Result<crate::source::Snapshot> {
        Ok(crate::source::Snapshot::read(&self.mesh)?)
    }

    /// Where the state lives.
    pub fn paths(&self) -> &crate::store::Paths {
        &self.paths
    }

    /// Checks, before any slow work, that a verb that signs declarations to the mesh's nodes
    /// has this controller's key to sign with (never made here: `mesh id --new` makes it).
    pub fn signer_key(&self) -> Result<()> {
        if !self.mesh.nodes.is_empty() {
            crate::controller::open_key(&self.paths.dot_mesh, &self.mesh.controller)?;
        }
        Ok(())
    }

    /// Takes the mesh lock for a verb that changes the mesh (exit 75 if another holds it),
    /// then clears what a killed run left: it stops the build process groups that run
    /// recorded, sweeps `.mesh/tmp` and removes half-made copies of the store. Only the
    /// lock's holder may: no other run is building.
    pub fn lock(&self, verb: &str) -> Result<crate::store::MeshLock> {
        crate::store::make_dir(&self.paths.dot_mesh)?;
        let lock = crate::store::MeshLock::take(&self.paths.dot_mesh, verb)?;
        for line in mesh_node::process::stop_orphans(&self.paths.groups()) {
            self.ui.warn(line);
        }
        sweep(&self.paths.tmp());
        crate::store::sweep_copies(&self.paths.state);
        Ok(lock)
    }
}

/// Removes everything inside `dir` (a killed build's `$MESH_OUT`), keeping `dir`.
fn sweep(dir: &std::path::Path) {
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
