//! `mesh reconcile`: one cron-safe pass.

use super::{Ctx, Ui, progress::BuildProgress};
use mesh::Result;
use mesh::deliver::push::{NodePush, Outcome, PushProgress};

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
    fn node_step(&self, node: &str, step: mesh::deliver::push::Step) {
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
    let lock = ctx.lock("reconcile")?;
    let opts = mesh::reconcile::PassOptions {
        jobs: a
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
    };
    // Under cron (not a terminal) progress stays quiet; only what needs a person is said.
    let quiet_ui = Ui {
        quiet: ui.quiet || !ui.interactive,
        ..ui.clone()
    };
    let progress = BuildProgress::new(&quiet_ui);
    let nodes = Lines(ui, super::progress::NodeProgress::new(ui));
    let s = mesh::reconcile::reconcile(ctx, &lock, &opts, &progress, &nodes)?;
    progress.clear();
    for w in &s.warnings {
        ui.warn(w);
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
