//! `mesh rollout`: the rollouts in progress or halted, and what a person does to one.

use super::{Ctx, Ui, table};
use mesh::Result;
use mesh::rollout::RolloutStatus;
use mesh_node::artifact::short;

/// Say which rollouts are in progress or halted; promote, abort or retry one.
///
/// Each: module, build from → to, wave k of n, the nodes on the new build, since when they run
/// it healthy, and what it waits for.
///
/// A module's new declared build reaches its nodes in the waves of `[rollout]` (mesh.toml, or
/// `rollout = { … }` in its manifest): each `reconcile` or `push` moves it one wave further,
/// once every node of the waves before applied it and has reported it healthy for `wait`. A
/// node that fails it halts the rollout and the nodes that took it are declared the previous
/// build again.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    /// Only these modules.
    modules: Vec<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Move a rollout to its next wave now (with `--full`, to every node), without waiting.
    Promote {
        /// The module.
        module: String,
        /// Every node now.
        #[arg(long)]
        full: bool,
    },
    /// Halt a rollout and put the previous build back on the nodes that took the new one.
    Abort {
        /// The module.
        module: String,
    },
    /// Start a halted build's rollout again from the first wave.
    Retry {
        /// The module.
        module: String,
    },
}

/// Runs `mesh rollout` and returns its exit code: listing, 3 when a rollout is halted.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let paths = ctx.paths();
    let module = match &a.command {
        None => return list(ctx, ui, &a.modules),
        Some(Command::Promote { module, full }) => {
            let _lock = ctx.lock("rollout")?;
            let r = mesh::rollout::promote(paths, &ctx.config, module, *full)?;
            ui.status(format!(
                "{module}: build {} is given to wave {} at the next push",
                r.to,
                r.wave + 1
            ));
            module
        }
        Some(Command::Abort { module }) => {
            let _lock = ctx.lock("rollout")?;
            let events = mesh::rollout::abort(paths, &ctx.config, module)?;
            super::run_hooks(ctx, ui, &events);
            ui.status(format!(
                "{module}: the rollout is halted; its nodes are sent the previous build at the next push"
            ));
            module
        }
        Some(Command::Retry { module }) => {
            let _lock = ctx.lock("rollout")?;
            let r = mesh::rollout::retry(paths, module)?;
            ui.status(format!(
                "{module}: build {} is declared again, from the first wave",
                r.to
            ));
            module
        }
    };
    ui.hint("`mesh push` (or the next `mesh reconcile`) sends it");
    // What was asked was done: the rollout as it now is, and 0.
    list(ctx, ui, std::slice::from_ref(module))?;
    Ok(0)
}

/// Lists the rollouts; 3 when one is halted.
fn list(ctx: &Ctx, ui: &Ui, modules: &[String]) -> Result<i32> {
    let all = mesh::rollout::rollouts(ctx.paths(), &ctx.config, modules)?;
    if ui.json {
        ui.json_data(&all);
    } else if all.is_empty() {
        ui.status("no rollout in progress or halted");
    } else {
        ui.data(render(&all));
    }
    Ok(if all.iter().any(|r| r.halted.is_some()) {
        3
    } else {
        0
    })
}

/// The table: one row per rollout.
pub fn render(all: &[RolloutStatus]) -> String {
    let mut t = table::new(&[
        "module",
        "build",
        "wave",
        "on new build",
        "healthy since",
        "waits for",
    ]);
    for r in all {
        let commit =
            |c: &Option<String>| c.as_deref().map_or("-".into(), |c| short(c, 8).to_string());
        let wave = match &r.halted {
            Some(_) => format!("HALTED at {} of {}", r.wave, r.waves),
            None => format!("{} of {}", r.wave, r.waves),
        };
        t.add_row(vec![
            r.module.clone(),
            format!(
                "{} ({}) → {} ({})",
                r.from,
                commit(&r.from_commit),
                r.to,
                commit(&r.to_commit)
            ),
            wave,
            format!("{} of {} nodes", r.on_new.len(), r.nodes),
            r.healthy_since.clone().unwrap_or_else(|| "-".into()),
            match &r.halted {
                Some(h) => format!("{}\n{}: {}", r.waiting_for, h.node, one_line(&h.reason)),
                None => r.waiting_for.clone(),
            },
        ]);
    }
    table::render(&t)
}

/// A node's words on one line, at most [`SHOWN`] characters (the whole is in `--json`).
fn one_line(s: &str) -> String {
    let words: Vec<&str> = s.split_whitespace().collect();
    let line = words.join(" ");
    match line.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// How much of a halt's reason the table shows.
const SHOWN: usize = 240;
