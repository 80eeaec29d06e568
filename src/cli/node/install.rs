//! `mesh node install NODE`.

use crate::cli::Ctx;
use crate::{Error, Result};

/// Put this mesh binary on a node, under ROOT/bin/mesh, so it can apply.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node.
    node: String,
}

/// Runs `mesh node install` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &super::Ui, a: &Args) -> Result<i32> {
    let node = ctx.mesh.node(&a.node)?;
    let control = crate::transport::control_dir(&ctx.mesh)?;
    let t = crate::transport::for_node(&ctx.mesh, node, control.path());
    t.install().map_err(|e| {
        Error::failed(
            format!("could not install mesh on `{}`: {e}", a.node),
            "check that the node is reachable (`ssh ADDRESS true`) and its root is writable",
        )
    })?;
    ui.status(format!(
        "installed mesh on {} under {}/bin/mesh",
        a.node, node.root
    ));
    Ok(0)
}
