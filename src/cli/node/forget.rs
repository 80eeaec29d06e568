//! `mesh node forget NODE`.

use crate::cli::{Ctx, Ui};
use mesh::{Error, Result};

/// Drop the records of a node removed from mesh.toml.
///
/// A node gone from mesh.toml keeps running what it was last sent, so `mesh status` lists it
/// under the nodes table until its records are dropped here. Stop what it runs first (or
/// accept that it keeps running unmanaged); the node itself is not touched. One fact,
/// `forgotten`, records it.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node (no longer in mesh.toml).
    #[arg(value_name = "NODE")]
    node: String,
}

/// Runs `mesh node forget` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    if ctx.config.nodes.contains_key(&a.node) {
        return Err(Error::failed(
            format!("`{}` is still in mesh.toml", a.node),
            format!(
                "remove its [node.{}] section (and its assignments) from mesh.toml first; \
                 `mesh node forget` is for nodes the mesh no longer has",
                a.node
            ),
        ));
    }
    let _lock = ctx.lock("node forget")?;
    let store = ctx.paths().open()?;
    let events = mesh::deliver::forget::forget(&store, &a.node, ctx.config.settings.events_keep)?;
    drop(store);
    let Some(events) = events else {
        let status = mesh::status::nodes::status(ctx.paths(), &ctx.config, &ctx.sources()?)?;
        return Err(Error::failed(
            format!("the mesh has no records of a node `{}`", a.node),
            match status.forgotten.is_empty() {
                true => "no node gone from mesh.toml is left to forget".to_string(),
                false => format!(
                    "nodes gone from mesh.toml: {}",
                    status
                        .forgotten
                        .iter()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
        ));
    };
    crate::cli::run_hooks(ctx, ui, &events);
    ui.status(format!("forgot {}: its records are dropped", a.node));
    Ok(0)
}
