//! `mesh id`: this controller's name and public key; `--new` makes the key.

use super::{Ctx, Ui};
use mesh::Result;

/// Print this controller's name, public key and age recipient, as one line to paste under
/// `[controllers]` in the mesh.toml of a controller the nodes already trust.
///
/// The age recipient (`age1…`, derived from the same key) is what the mesh directory's secrets
/// are encrypted to: a controller listed with it reads them once another runs `mesh secret
/// rekey`.
///
/// Each mesh directory is a controller with its own ed25519 key (`.mesh/key`, 0600, copied to
/// `.mesh/key.bak` with the store's backups). `mesh init` makes it for a new mesh; `mesh id
/// --new` makes it for a mesh directory that has none. No other verb makes one: a lost key is
/// restored from `key.bak`, and a missing, damaged or group/other-readable key is an error,
/// since nodes take declarations only from the first controller that declared to them and the
/// ones it lists, and would refuse a new key.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Make this controller's key (refused when `.mesh/key` or `.mesh/key.bak` is there).
    #[arg(long)]
    new: bool,
}

/// Runs `mesh id` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let dot_mesh = &ctx.paths().dot_mesh;
    let me = if a.new {
        let me = mesh::controller::create_key(dot_mesh, &ctx.config.controller)?;
        ui.status(format!(
            "made this controller's key in {}",
            mesh::controller::key_path(dot_mesh).display()
        ));
        me
    } else {
        mesh::controller::open_key(dot_mesh, &ctx.config.controller)?
    };
    let age = mesh::controller::age_recipient(&me);
    if ui.json {
        ui.json_data(&serde_json::json!({"controller": me.name, "key": me.public(), "age": age}));
    } else {
        ui.data(format!("{} = \"{} {age}\"\n", me.name, me.public()));
    }
    Ok(0)
}
