//! `mesh node accept NODE`.

use crate::cli::{Ctx, Ui};
use mesh::Result;

/// Accept the new age key a node offers, so that secrets go to it again.
///
/// mesh pins each node's age key the first time it reaches it, as ssh pins a host key. A node
/// that later says another key (its root was wiped or made anew, another machine answers to its
/// name, or someone took its place) is a `node-replaced` fact, and no secret is sent to it until
/// a person who checked the node accepts the key here. On the node,
/// `ROOT/bin/mesh-node node have --root ROOT` prints its key (`age`).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node.
    #[arg(value_name = "NODE")]
    node: String,
    /// Accept only this key (`age1…`), as read on the node.
    #[arg(long, value_name = "AGE1…")]
    key: Option<String>,
}

/// Runs `mesh node accept` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    ctx.config.node(&a.node)?;
    let _lock = ctx.lock("node accept")?;
    let key = mesh::secrets::keys::accept(ctx.paths(), &a.node, a.key.as_deref())?;
    ui.status(format!(
        "{}: accepted its age key {key}; the next push sends its secrets",
        a.node
    ));
    Ok(0)
}
