//! `mesh collect`: read nodes' new reports.

use super::{Ctx, Ui};
use mesh::Result;

/// Read nodes' new reports over the transport and record them.
///
/// Reports are taken by report sequence, so none is lost or counted twice however rarely this
/// runs. "applied" comes only from a node's read-back report. A node found without mesh gets
/// it back first, so that its reports are read. Exits 3 when a node could not be read from
/// (unreachable, refusing us, its mesh failing).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Nodes to collect from (default: every node); `@tag` names every node with that tag.
    #[arg(value_name = "NODE")]
    nodes: Vec<String>,
}

/// Runs `mesh collect` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    // What a node holds is compared with what it was sent: not while a push records sends.
    let _lock = ctx.lock("collect")?;
    // A mesh another verb would refuse is refused here too.
    ctx.sources()?;
    let sessions = mesh::transport::Connections::new(&ctx.config, 0)?;
    let (results, events) = mesh::deliver::collect::collect(
        ctx.paths(),
        &ctx.config,
        &super::select_nodes(&ctx.config, &a.nodes)?,
        &sessions,
    )?;
    // Said after the work: what it met (a lingering session that did not answer) too.
    for w in sessions.warnings() {
        ui.warn(w);
    }
    drop(sessions);
    if ui.json {
        ui.json_data(&results);
    }
    for r in &results {
        if let Some(u) = &r.unreachable {
            ui.status(format!(
                "{}: unreachable: {}",
                r.node,
                super::about(&r.node, u)
            ));
        } else if let Some(f) = &r.failed {
            ui.status(format!("{}: failed: {}", r.node, super::about(&r.node, f)));
        } else if r.reports > 0 {
            ui.detail(format!(
                "{}: {}",
                r.node,
                super::count(r.reports as u64, "new report", "new reports")
            ));
        }
        if r.installed {
            ui.status(format!(
                "{}: mesh was missing there and was installed",
                r.node
            ));
        }
        if r.lost {
            ui.status(format!(
                "{}: no longer holds the declaration it was sent: `mesh push` sends it again",
                r.node
            ));
        }
    }
    let reports: usize = results.iter().map(|r| r.reports).sum();
    ui.status(format!(
        "collected {} from {}; {}",
        super::count(reports as u64, "report", "reports"),
        super::count(results.len() as u64, "node", "nodes"),
        super::count(events.len() as u64, "new fact", "new facts")
    ));
    super::run_hooks(ctx, ui, &events);
    Ok(if results.iter().any(|r| r.trouble()) {
        3
    } else {
        0
    })
}
