//! The mesh a verb works on: the library's [`Mesh`], found from `-C` and `--state`, with the
//! `Ui` that says what taking its lock tidied up.

use super::Cli;
use mesh::Result;
use mesh::{Lock, Mesh};

/// A loaded mesh, as the verbs see it: the library's [`Mesh`] (its `config`, `paths()`,
/// `sources()`) and where to say what taking the lock tidied.
pub struct Ctx {
    mesh: Mesh,
    ui: super::Ui,
}

impl Ctx {
    /// Finds and loads `mesh.toml` (from `-C DIR` or upward from the working directory).
    pub fn load(cli: &Cli) -> Result<Ctx> {
        Ok(Ctx {
            mesh: Mesh::open(cli.dir.as_deref(), cli.state.clone())?,
            ui: super::Ui::new(cli),
        })
    }

    /// [`Mesh::lock`], saying what it stopped of a killed run.
    pub fn lock(&self, verb: &str) -> Result<Lock> {
        let lock = self.mesh.lock(verb)?;
        for line in lock.tidied() {
            self.ui.warn(line);
        }
        Ok(lock)
    }
}

impl std::ops::Deref for Ctx {
    type Target = Mesh;
    fn deref(&self) -> &Mesh {
        &self.mesh
    }
}
