//! `mesh node list`.

use crate::cli::{Ctx, table};
use mesh::Result;

/// List the nodes: transport, where, tags and state.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `mesh node list` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &super::Ui, _a: &Args) -> Result<i32> {
    let status = mesh::status::nodes::status(ctx.paths(), &ctx.config, &ctx.sources()?)?;
    if ui.json {
        let rows: Vec<serde_json::Value> = ctx
            .config
            .nodes
            .values()
            .map(|n| {
                let state = status
                    .nodes
                    .iter()
                    .find(|s| s.name == n.name)
                    .map(|s| s.state);
                serde_json::json!({
                    "name": n.name, "transport": n.transport, "address": n.address,
                    "root": n.root, "tags": n.tags, "state": state,
                })
            })
            .collect();
        ui.json_data(&rows);
        return Ok(0);
    }
    let mut t = table::new(&["node", "transport", "where", "tags", "state"]);
    for n in ctx.config.nodes.values() {
        let state = status
            .nodes
            .iter()
            .find(|s| s.name == n.name)
            .map_or("", |s| s.state.as_str());
        let at = match &n.address {
            Some(a) => format!("{a}:{}", n.root),
            None => n.root.clone(),
        };
        t.add_row(vec![
            n.name.clone(),
            n.transport.to_string(),
            at,
            n.tags.join(" "),
            state.to_string(),
        ]);
    }
    ui.data(table::render(&t));
    Ok(0)
}
