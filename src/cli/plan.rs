//! `mesh plan`: what would be built (in order, with why), declared and sent. Changes nothing
//! the mesh knows (it may fill the import cache).

use super::{Ctx, Ui, table};
use mesh::Result;

/// Say what would be built, declared and sent, and why. Changes nothing the mesh knows.
///
/// Every module's answer, in graph order: current; stale (never built, source moved, recipe
/// moved, an input's artifact moved); waits on an input that is itself stale (early cutoff may
/// spare it); or blocked by an input that is broken or unfit.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `mesh plan` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, _a: &Args) -> Result<i32> {
    let loaded = mesh::graph::load(&ctx.config, &ctx.paths().state)?;
    let mut plan = mesh::status::plan::plan(ctx.paths(), &loaded)?;
    let status = mesh::status::nodes::status(ctx.paths(), &ctx.config, &loaded.snapshot)?;
    plan.nodes = mesh::status::plan::nodes(&status);
    plan.instantiations = status.instantiations.clone();
    // About to answer and exit: the graph's many small allocations (every edge's evidence)
    // need not be freed one by one; nothing in `Loaded` needs its `Drop` (the store is closed).
    std::mem::forget(loaded);
    for w in &plan.warnings {
        ui.warn(w);
    }
    if ui.json {
        ui.json_data(&plan);
        return Ok(0);
    }
    let mut t = table::new(&["module", "state", "why"]);
    for m in &plan.modules {
        let why = match (m.state, &m.verdict, &m.reason) {
            ("current", Some(v), _) => v.to_string(),
            (_, _, Some(r)) => r.clone(),
            _ => String::new(),
        };
        t.add_row(vec![m.name.clone(), m.state.to_string(), why]);
    }
    ui.data(table::render(&t));
    if !plan.nodes.is_empty() {
        let mut t = table::new(&["node", "state", "would send", "why"]);
        for n in &plan.nodes {
            t.add_row(vec![
                n.name.clone(),
                n.state.to_string(),
                n.would_send
                    .as_deref()
                    .map(|d| mesh_node::artifact::short(d, mesh_node::artifact::SHORT))
                    .unwrap_or("-")
                    .to_string(),
                n.reason.clone().unwrap_or_default(),
            ]);
        }
        ui.data(format!("\n{}", table::render(&t)));
    }
    if !plan.instantiations.is_empty() {
        ui.data(format!("\n{}", instantiations(&plan.instantiations)));
    }
    super::hint_behind(ui, status.pushable_states());
    let stale = plan.modules.iter().filter(|m| m.state == "stale").count();
    let waits = plan.modules.iter().filter(|m| m.state == "waits").count();
    if stale + waits > 0 {
        ui.hint(format!(
            "{stale} stale, {waits} waiting: `mesh build --behind` builds them"
        ));
    }
    Ok(0)
}

/// The instantiation edges performed, one row each: made, waiting or failed (`plan` and
/// `status` show the same table).
pub(super) fn instantiations(edges: &[mesh::secrets::provided::EdgeState]) -> String {
    let mut t = table::new(&["consumer", "provider", "as", "credentials", "why"]);
    for e in edges {
        let why = match (&e.reason, &e.made_on) {
            (Some(r), _) => r.clone(),
            (None, Some(on)) => format!(
                "made on {on} at {}: {}",
                e.made_at.as_deref().unwrap_or("-"),
                e.secrets.join(", ")
            ),
            (None, None) => "not made yet: the next push makes them".to_string(),
        };
        t.add_row(vec![
            e.consumer.clone(),
            e.provider.clone(),
            e.alias.clone(),
            e.state.to_string(),
            why,
        ]);
    }
    table::render(&t)
}
