//! `mesh node install NODE`.

use crate::cli::Ctx;
use crate::{Error, Result};

/// Put this mesh binary on a node, under ROOT/bin/mesh, so it can apply.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node.
    node: String,
}

pub fn run(ctx: &Ctx, ui: &super::Ui, a: &Args) -> Result<i32> {
    let node = ctx.mesh.nodes.get(&a.node).ok_or_else(|| {
        Error::failed(
            format!("there is no node `{}`", a.node),
            format!(
                "name a node of mesh.toml{}",
                crate::config::known_list("nodes", ctx.mesh.nodes.keys().map(String::as_str))
            ),
        )
    })?;
    let control = tempfile::Builder::new()
        .prefix("mesh-ssh-")
        .tempdir_in("/tmp")
        .map_err(|e| {
            Error::io(
                "cannot make a directory for ssh's control sockets",
                e,
                "check /tmp",
            )
        })?;
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
