//! `mesh id`: this controller's name and public key.

use super::{Ctx, Ui};
use crate::Result;
use crate::controller::Identity;

/// Print this controller's name and public key, as one line to paste under `[controllers]`
/// in the mesh.toml of a controller the nodes already trust.
///
/// Each mesh directory is a controller with its own ed25519 key (`.mesh/key`, made on first
/// use, 0600, copied to `.mesh/key.bak` with the store's backups). Nodes take declarations
/// only from the first controller that declared to them and the ones it lists.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `mesh id` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, _a: &Args) -> Result<i32> {
    let me = Identity::open(&ctx.paths().dot_mesh, &ctx.mesh.controller)?;
    if ui.json {
        ui.json_data(&serde_json::json!({"controller": me.name, "key": me.public()}));
    } else {
        ui.data(format!("{} = \"{}\"\n", me.name, me.public()));
    }
    Ok(0)
}
