//! `mesh reconcile`: one cron-safe pass.

use super::{Ctx, Ui, progress::BuildProgress};
use crate::Result;
use crate::deliver::push::{NodePush, Outcome, PushProgress};

/// One pass: read sources, build what is behind, declare (auto), push what is behind, collect.
///
/// For cron: idempotent (a second run in a row builds, sends and states nothing), quiet unless
/// something needs a person. Exit 0 when everything converged or is progressing (an unreachable
/// node converges when it comes back); 3 when a node is not worked out, failed, stuck or
/// refusing us, or a build is broken, unfit or stuck outstanding, or the fetch of a repository
/// followed by URL failed (each one listed; the pass goes on with the last fetched commit); 75
/// when another mesh holds the mesh.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How many builds run at once (default: the number of CPUs).
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
}

struct Lines<'a>(&'a Ui, super::progress::NodeProgress);

impl PushProgress for Lines<'_> {
    fn node_step(&self, node: &str, step: crate::deliver::push::Step) {
        self.1.step(node, step);
    }

    fn node_done(&self, p: &NodePush) {
        let line = match &p.outcome {
            Outcome::Sent { sequence, .. } => Some(format!("{}: sent sequence {sequence}", p.node)),
            // Listed in the pass's summary of what needs a person, not per node.
            Outcome::NotWorkedOut { .. } => None,
            _ => super::push::trouble_line(p),
        };
        self.1.done(&p.node, line, |line| {
            if self.0.interactive {
                self.0.status(line);
            } else {
                self.0.detail(line);
            }
        });
    }
}

/// Runs `mesh reconcile` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let _lock = ctx.lock("reconcile")?;
    ctx.signer_key()?;
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    // Under cron (not a terminal) progress stays quiet; only what needs a person is said.
    let quiet_ui = Ui {
        quiet: ui.quiet || !ui.interactive,
        ..ui.clone()
    };
    let progress = BuildProgress::new(&quiet_ui);
    let s = crate::reconcile::reconcile(
        ctx.paths(),
        &ctx.mesh,
        jobs,
        &progress,
        &Lines(ui, super::progress::NodeProgress::new(ui)),
    )?;
    progress.clear();
    // A failed fetch is said below, among what needs a person, not again on the way out.
    crate::source::follow::take_unsaid();
    for w in &s.warnings {
        ui.warn(w);
    }
    super::run_hooks(ctx, ui, &s.events);
    // What nothing needs any more goes, for a bounded time (the rest next pass).
    if let Err(e) = crate::gc::gc(
        ctx.paths(),
        &crate::gc::GcOptions {
            dry_run: false,
            builds_keep: ctx.mesh.settings.builds_keep,
            time_limit: Some(std::time::Duration::from_secs(5)),
            modules: Some(s.modules.clone()),
        },
    ) {
        ui.warn(format!("garbage collection did not finish: {e}"));
    }
    // A pass that changed something is worth a verified copy of the store (at most hourly),
    // and of this controller's key beside it: a restored store without its key would be
    // refused by every node that trusts this controller.
    if !s.events.is_empty() {
        match crate::store::backup(&ctx.paths().state, crate::store::BACKUP_EVERY) {
            Err(e) => ui.warn(format!("no backup of the store was made: {e}")),
            Ok(true) => {
                if let Err(e) = crate::controller::back_up(&ctx.paths().dot_mesh) {
                    ui.warn(format!("no backup of the controller key was made: {e}"));
                }
            }
            Ok(false) => {}
        }
    }
    // `[status] page`: the page a cron host publishes, written every pass.
    if let (Some(path), Some(status)) = (&ctx.mesh.status.page, &s.status)
        && let Err(e) = crate::status::page::publish(
            ctx.paths(),
            &ctx.mesh.name,
            status,
            path,
            ctx.mesh.status.refresh,
        )
    {
        ui.warn(format!("the status page was not written: {e}"));
    }
    if ui.json {
        ui.json_data(&s);
    }
    let mut line = format!(
        "built {}, declared {}, sent {}, applied {}, outstanding {}, stuck {}",
        s.built, s.declared, s.sent, s.applied, s.outstanding, s.stuck
    );
    if s.fetch_failed > 0 {
        line.push_str(&format!(", fetch failed {}", s.fetch_failed));
    }
    if s.needs_a_person.is_empty() {
        if ui.interactive {
            ui.status(line);
        } else {
            ui.detail(line);
        }
        return Ok(0);
    }
    ui.status(line);
    for n in &s.needs_a_person {
        ui.warn(n);
    }
    Ok(3)
}
