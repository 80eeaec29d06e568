//! `mesh gc`: remove what nothing needs.

use super::{Ctx, Ui};
use mesh::Result;

/// Remove what nothing needs: old builds, their artifacts, closure entries and logs.
///
/// Kept: every build a node was sent or applied, the declared and newest build of every
/// module, and each module's newest `builds_keep` builds (mesh.toml, default 10) with their
/// artifacts — never anything a node could still be sent. A module gone from the repositories
/// keeps only what a node holds or was sent and its declared build. Also run, time-bounded, at the end
/// of every `mesh reconcile`. Safe to kill at any point.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only list what would be removed.
    #[arg(long)]
    dry_run: bool,
}

/// Runs `mesh gc` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let _lock = ctx.lock("gc")?;
    // Which modules the repositories hold now: a deleted module's builds and logs go. The
    // sources say; the import graph is not needed for it.
    let modules = ctx.sources()?.module_names();
    let c = mesh::gc::gc(
        ctx.paths(),
        &mesh::gc::GcOptions {
            dry_run: a.dry_run,
            builds_keep: ctx.config.settings.builds_keep,
            time_limit: None,
            modules: Some(modules),
        },
    )?;
    if ui.json {
        ui.json_data(&c);
    } else if a.dry_run {
        for id in &c.builds {
            ui.data(format!("build {id}"));
        }
        for d in &c.artifacts {
            ui.data(format!("artifact {d}"));
        }
    }
    ui.status(format!(
        "{} {} builds, {} closure entries, {} artifacts, {} logs, {} other ({} bytes)",
        if a.dry_run { "would remove" } else { "removed" },
        c.builds.len(),
        c.closures,
        c.artifacts.len(),
        c.logs,
        c.other,
        c.bytes
    ));
    Ok(0)
}
