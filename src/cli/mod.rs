//! The command line: clap definitions (one file per verb), rendering, and the one place errors
//! become exit codes. Data goes to stdout; progress, summaries and hints go to stderr.

pub(crate) mod build;
mod builds;
mod collect;
pub mod completions;
mod context;
mod declare;
mod events;
mod example;
mod graph;
mod init;
pub mod man;
mod node;
mod plan;
mod progress;
mod push;
mod reconcile;
mod status;
pub(crate) mod table;
mod ui;
mod where_;

pub use context::Ctx;
pub use ui::Ui;

use clap::{CommandFactory, Parser, Subcommand};
use std::path::PathBuf;

/// A local-first delivery controller: builds what is stale, declares what each machine should
/// run, pushes it over SSH, and says what every machine applied.
#[derive(Debug, Parser)]
#[command(name = "mesh", version = version(), max_term_width = 100)]
pub struct Cli {
    /// The mesh directory (default: the nearest directory upward holding mesh.toml).
    #[arg(short = 'C', global = true, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The store file (default: .mesh/state.redb in the mesh directory).
    #[arg(long, global = true, env = "MESH_STATE", value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Machine-readable output on every reading verb.
    #[arg(long, global = true)]
    pub json: bool,
    /// Say less: only errors and what needs a person.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Say more (repeat for even more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// When to use colour (NO_COLOR is honoured by `auto`).
    #[arg(long, global = true, value_enum, default_value_t = ui::ColorChoice::Auto, value_name = "WHEN")]
    pub color: ui::ColorChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Init(init::Args),
    Graph(graph::Args),
    Plan(plan::Args),
    Build(build::Args),
    Builds(builds::Args),
    Declare(declare::Args),
    Push(push::Args),
    Collect(collect::Args),
    Status(status::Args),
    Reconcile(reconcile::Args),
    Events(events::Args),
    Where(where_::Args),
    Node(node::Args),
    Completions(completions::Args),
    Man(man::Args),
}

fn version() -> String {
    format!(
        "{} (store format {})",
        env!("CARGO_PKG_VERSION"),
        crate::store::FORMAT
    )
}

/// "1 node is", "3 nodes are": counts said the way a person says them.
fn nodes(n: usize) -> String {
    if n == 1 {
        "1 node is".to_string()
    } else {
        format!("{n} nodes are")
    }
}

/// "2 nodes are behind: `mesh push --behind` sends them", when any node is out of date or
/// never told.
fn hint_behind<'a>(ui: &Ui, states: impl Iterator<Item = &'a str>) {
    let behind = states
        .filter(|s| matches!(*s, "out of date" | "never told"))
        .count();
    if behind > 0 {
        ui.hint(format!(
            "{} behind: `mesh push --behind` sends them",
            nodes(behind)
        ));
    }
}

/// Hands new facts to the `[hooks] on_event` command; what went wrong is a warning.
fn run_hooks(ctx: &Ctx, ui: &Ui, events: &[crate::events::Event]) {
    for problem in crate::events::run_hooks(&ctx.mesh.hooks, &ctx.mesh.dir, events) {
        ui.warn(problem);
    }
}

/// The clap command, for completions and man pages.
pub fn command() -> clap::Command {
    Cli::command()
}

/// Runs mesh with the process's arguments; returns the exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let ui = Ui::new(&cli);
    match run(&cli, &ui) {
        Ok(code) => code,
        Err(e) => {
            let code = e.exit_code();
            ui.error(e);
            code
        }
    }
}

fn run(cli: &Cli, ui: &Ui) -> crate::Result<i32> {
    match &cli.command {
        Command::Init(a) => init::run(cli, ui, a),
        Command::Graph(a) => graph::run(&Ctx::load(cli)?, ui, a),
        Command::Plan(a) => plan::run(&Ctx::load(cli)?, ui, a),
        Command::Build(a) => build::run(&Ctx::load(cli)?, ui, a),
        Command::Builds(a) => builds::run(&Ctx::load(cli)?, ui, a),
        Command::Declare(a) => declare::run(&Ctx::load(cli)?, ui, a),
        Command::Push(a) => push::run(&Ctx::load(cli)?, ui, a),
        Command::Collect(a) => collect::run(&Ctx::load(cli)?, ui, a),
        Command::Status(a) => status::run(&Ctx::load(cli)?, ui, a),
        Command::Reconcile(a) => reconcile::run(&Ctx::load(cli)?, ui, a),
        Command::Events(a) => events::run(&Ctx::load(cli)?, ui, a),
        Command::Where(a) => where_::run(&Ctx::load(cli)?, ui, a),
        Command::Node(a) => node::run(cli, ui, a),
        Command::Completions(a) => completions::run(a),
        Command::Man(a) => man::run(a),
    }
}
