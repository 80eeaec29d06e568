//! `mesh node trust NODE [--reset]`.

use crate::cli::{Ctx, Ui};
use mesh::{Error, Result};
use mesh_node::trust::Trust;

/// Show which controllers a node takes declarations from, or make it forget them.
///
/// A node pins the first controller that declares to it (as ssh pins host keys), and the node
/// name and mesh that declaration was made for; it trusts the controller that signed the
/// declaration in force and those listed under `[controllers]` in it. `--reset` forgets them
/// all: the next controller to declare to the node is pinned, with the name it declares to
/// (after a node was renamed in mesh.toml, say). Only a person does that.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node.
    #[arg(value_name = "NODE")]
    node: String,
    /// Forget whom the node trusts: the next controller to declare is pinned.
    #[arg(long)]
    reset: bool,
}

/// Runs `mesh node trust` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    ctx.config.node(&a.node)?;
    let _lock = ctx.lock("node trust")?;
    let sessions = mesh::transport::Connections::new(&ctx.config, 0)?;
    let mut taken = sessions.take(&a.node).map_err(|e| {
        Error::failed(
            format!("could not reach `{}`: {e}", a.node),
            "check that it is reachable (`mesh status` says when it was last seen), then try again",
        )
    })?;
    let trust = taken.session.trust(a.reset).map_err(|e| {
        Error::failed(
            format!("`{}` did not answer: {e}", a.node),
            "try again; `mesh doctor` checks the node's mesh",
        )
    })?;
    taken.session.quit();
    if ui.json {
        ui.json_data(&serde_json::json!({"node": a.node, "trust": trust, "reset": a.reset}));
        return Ok(0);
    }
    let who = |t: &Option<Trust>| t.as_ref().map(Trust::describe);
    match (a.reset, who(&trust)) {
        (false, Some(w)) => ui.data(format!("{} trusts {w}\n", a.node)),
        (false, None) => ui.data(format!(
            "{} trusts no controller yet: the next to declare to it is pinned\n",
            a.node
        )),
        (true, Some(w)) => {
            ui.status(format!("{} no longer trusts {w}", a.node));
            ui.hint(format!(
                "the next controller to declare to it is pinned: `mesh push {}` from the one that should be",
                a.node
            ));
        }
        (true, None) => ui.status(format!(
            "{} trusted no controller: nothing to reset",
            a.node
        )),
    }
    Ok(0)
}
