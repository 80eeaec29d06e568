//! `mesh doctor`: check the store's invariants and the artifacts it names.

use super::{Ctx, Ui};
use mesh::Result;

/// Check the store and the artifacts it names; with --repair, fix what can be fixed.
///
/// Checks that the store opens and every value's checksum matches, that redb's page checksums
/// verify (on a copy), that build ids and fact sequences rise, that every send names builds the
/// store holds, that every recorded artifact exists with its digest, and that the backup
/// (.mesh/state.redb.bak) is whole; says, for each repository followed by URL, its clone's size,
/// last fetch and commit. Exit 0 when all is well, 3 when a problem remains.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Fix what can be fixed from the artifacts and the nodes (a damaged artifact is removed
    /// so that its module is built again); history is never invented.
    #[arg(long)]
    repair: bool,
}

/// Runs `mesh doctor` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let _lock = if a.repair {
        Some(ctx.lock("doctor")?)
    } else {
        None
    };
    let mut c = mesh::doctor::doctor(ctx.paths(), a.repair)?;
    mesh::doctor::check_clones(&mut c, &ctx.config);
    if ui.json {
        ui.json_data(&c);
    } else {
        for line in &c.checked {
            ui.detail(format!("ok: {line}"));
        }
        for p in &c.problems {
            let mark = if p.repaired { "repaired" } else { "problem" };
            ui.data(format!("{mark}: {}\n  {}", p.what, p.fix));
        }
    }
    if c.unwell() {
        ui.status(format!(
            "{} problem{} found",
            c.problems.iter().filter(|p| !p.repaired).count(),
            if c.problems.iter().filter(|p| !p.repaired).count() == 1 {
                ""
            } else {
                "s"
            }
        ));
        return Ok(3);
    }
    ui.status(format!("the store is sound ({} checks)", c.checked.len()));
    Ok(0)
}
