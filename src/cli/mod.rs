//! The command line: clap definitions (one file per verb), rendering, and the one place errors
//! become exit codes. Data goes to stdout; progress, summaries and hints go to stderr.

pub(crate) mod build;
mod builds;
mod collect;
pub mod complete;
pub mod completions;
mod context;
mod declare;
mod doctor;
mod drift;
mod events;
mod example;
mod gc;
mod graph;
pub mod help;
mod id;
mod init;
pub mod man;
mod node;
mod plan;
mod progress;
mod provision;
mod push;
mod reconcile;
mod rollout;
mod secret;
mod status;
pub(crate) mod table;
mod ui;
mod where_;

pub use context::Ctx;
pub use ui::Ui;

use clap::{CommandFactory, Parser, Subcommand};
use mesh::status::nodes::NodeState;
use std::path::PathBuf;

/// A local-first delivery controller: builds what is stale, declares what each machine should
/// run, pushes it over SSH, and says what every machine applied.
#[derive(Debug, Parser)]
#[command(name = "mesh", version = version(), max_term_width = 100)]
pub struct Cli {
    /// The mesh directory (default: the nearest directory upward holding mesh.toml).
    #[arg(short = 'C', global = true, help_heading = help::GLOBAL, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The store file (default: .mesh/state.redb in the mesh directory).
    #[arg(long, global = true, help_heading = help::GLOBAL, env = "MESH_STATE", value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Machine-readable output on every reading verb.
    #[arg(long, global = true, help_heading = help::GLOBAL)]
    pub json: bool,
    /// Say less: only errors and what needs a person.
    #[arg(short, long, global = true, help_heading = help::GLOBAL, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Say more (repeat for even more).
    #[arg(short, long, global = true, help_heading = help::GLOBAL, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Fetch nothing: read repositories followed by URL as their clones hold them.
    #[arg(long, global = true, help_heading = help::GLOBAL, env = "MESH_OFFLINE", value_parser = clap::builder::FalseyValueParser::new())]
    pub offline: bool,
    /// When to use colour (NO_COLOR is honoured by `auto`).
    #[arg(long, global = true, help_heading = help::GLOBAL, value_enum, default_value_t = ui::ColorChoice::Auto, value_name = "WHEN")]
    pub color: ui::ColorChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Init(init::Args),
    Graph(graph::Args),
    Drift(drift::Args),
    Plan(plan::Args),
    Build(build::Args),
    Builds(builds::Args),
    Declare(declare::Args),
    Push(push::Args),
    Collect(collect::Args),
    Status(status::Args),
    Reconcile(reconcile::Args),
    Rollout(rollout::Args),
    Secret(secret::Args),
    Provision(provision::Args),
    Events(events::Args),
    Doctor(doctor::Args),
    Gc(gc::Args),
    Where(where_::Args),
    Id(id::Args),
    Node(node::Args),
    Completions(completions::Args),
    Man(man::Args),
}

impl Command {
    /// The verb's name when it is a reading verb: one that never fetches the repositories
    /// followed by `url` but reads their clones as they are, so it never waits on a remote.
    /// Only the verbs that act on what they read fetch: `build`, `declare`, `push`,
    /// `reconcile`.
    fn reading(&self) -> Option<&'static str> {
        Some(match self {
            Command::Build(_)
            | Command::Declare(_)
            | Command::Push(_)
            | Command::Reconcile(_)
            | Command::Provision(_) => {
                return None;
            }
            Command::Init(_) => "init",
            Command::Graph(_) => "graph",
            Command::Drift(_) => "drift",
            Command::Plan(_) => "plan",
            Command::Builds(_) => "builds",
            Command::Collect(_) => "collect",
            Command::Status(_) => "status",
            Command::Rollout(_) => "rollout",
            Command::Secret(_) => "secret",
            Command::Events(_) => "events",
            Command::Doctor(_) => "doctor",
            Command::Gc(_) => "gc",
            Command::Where(_) => "where",
            Command::Id(_) => "id",
            Command::Node(_) => "node",
            Command::Completions(_) => "completions",
            Command::Man(_) => "man",
        })
    }
}

fn version() -> String {
    format!(
        "{} (store format {})",
        env!("CARGO_PKG_VERSION"),
        mesh::store::FORMAT
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

/// A node's reason without the node's name in front (`edge-1: failed: edge-1: …` says it twice).
fn about<'a>(node: &str, reason: &'a str) -> &'a str {
    reason
        .strip_prefix(node)
        .and_then(|r| r.strip_prefix(": "))
        .unwrap_or(reason)
}

/// "1 report", "3 reports", "0 reports": a count and its noun, singular only for one.
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The nodes named on a command line, with each `@tag` replaced by the nodes that carry it
/// (in name order, each once). An unknown node or tag is an error naming the known ones.
fn select_nodes(mesh: &mesh::config::MeshConfig, named: &[String]) -> mesh::Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for n in named {
        match n.strip_prefix('@') {
            Some(tag) => {
                let tagged: Vec<&String> = mesh
                    .nodes
                    .values()
                    .filter(|c| c.tags.iter().any(|t| t == tag))
                    .map(|c| &c.name)
                    .collect();
                if tagged.is_empty() {
                    let mut tags: Vec<&str> = mesh
                        .nodes
                        .values()
                        .flat_map(|c| c.tags.iter().map(String::as_str))
                        .collect();
                    tags.sort_unstable();
                    tags.dedup();
                    return Err(mesh::Error::Usage {
                        message: format!("no node carries the tag `{tag}`"),
                        hint: format!(
                            "name a tag of mesh.toml{}",
                            mesh::config::known_list("tags", tags.into_iter())
                        ),
                    });
                }
                for t in tagged {
                    if !out.contains(t) {
                        out.push(t.clone());
                    }
                }
            }
            None => {
                mesh.node(n)?;
                if !out.contains(n) {
                    out.push(n.clone());
                }
            }
        }
    }
    Ok(out)
}

/// "2 nodes are behind: `mesh push --behind` sends them", when any node is out of date or
/// never told.
fn hint_behind(ui: &Ui, states: impl Iterator<Item = NodeState>) {
    let behind = states
        .filter(|s| matches!(s, NodeState::OutOfDate | NodeState::NeverTold))
        .count();
    if behind > 0 {
        ui.hint(format!(
            "{} behind: `mesh push --behind` sends {}",
            nodes(behind),
            if behind == 1 { "it" } else { "them" }
        ));
    }
}

/// Hands new facts to the `[hooks] on_event` command; what went wrong is a warning.
fn run_hooks(ctx: &Ctx, ui: &Ui, events: &[mesh::events::Event]) {
    for problem in mesh::events::run_hooks(&ctx.config.hooks, &ctx.config.dir, events) {
        ui.warn(problem);
    }
}

/// The clap command with its examples, headings and completers: what completions and man
/// pages are made from.
pub fn command() -> clap::Command {
    complete::attach(help::decorate(Cli::command()))
}

/// Runs mesh with the process's arguments; returns the exit code.
pub fn main() -> i32 {
    // `COMPLETE=bash mesh` prints the shell's registration; the shell then calls mesh with
    // COMPLETE set for candidates. Either way mesh exits here.
    clap_complete::CompleteEnv::with_factory(command).complete();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let color = ui::ColorChoice::from_args(&args);
    let parsed = help::for_parsing(command())
        .color(color.for_clap())
        .try_get_matches_from(&args)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let ui = Ui::new(&cli);
    mesh_node::process::stop_on_signals();
    mesh::source::follow::set_offline(cli.offline);
    if let Some(verb) = cli.command.reading() {
        mesh::source::follow::set_reading(verb);
    }
    let result = run(&cli, &ui);
    // A fetch that failed and was read past is said, unless the verb said it already.
    for stale in mesh::source::follow::take_unsaid() {
        ui.warn(stale);
    }
    // Asked to stop: the builds were stopped and what finished is recorded; the exit code
    // says so (130/143) whatever the verb made of its stopped builds.
    let result = match (result, mesh_node::process::stopped()) {
        (Err(e @ mesh::Error::Stopped { .. }), _) => Err(e),
        (_, Some(signal)) => Err(mesh::Error::Stopped { signal }),
        (r, None) => r,
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let code = e.exit_code();
            ui.error(e);
            code
        }
    }
}

fn run(cli: &Cli, ui: &Ui) -> mesh::Result<i32> {
    match &cli.command {
        Command::Init(a) => init::run(cli, ui, a),
        Command::Graph(a) => graph::run(&Ctx::load(cli)?, ui, a),
        Command::Drift(a) => drift::run(&Ctx::load(cli)?, ui, a),
        Command::Plan(a) => plan::run(&Ctx::load(cli)?, ui, a),
        Command::Build(a) => build::run(&Ctx::load(cli)?, ui, a),
        Command::Builds(a) => builds::run(&Ctx::load(cli)?, ui, a),
        Command::Declare(a) => declare::run(&Ctx::load(cli)?, ui, a),
        Command::Push(a) => push::run(&Ctx::load(cli)?, ui, a),
        Command::Collect(a) => collect::run(&Ctx::load(cli)?, ui, a),
        Command::Status(a) => status::run(&Ctx::load(cli)?, ui, a),
        Command::Reconcile(a) => reconcile::run(&Ctx::load(cli)?, ui, a),
        Command::Rollout(a) => rollout::run(&Ctx::load(cli)?, ui, a),
        Command::Secret(a) => secret::run(&Ctx::load(cli)?, ui, a),
        Command::Provision(a) => provision::run(&Ctx::load(cli)?, ui, a),
        Command::Events(a) => events::run(&Ctx::load(cli)?, ui, a),
        Command::Doctor(a) => doctor::run(&Ctx::load(cli)?, ui, a),
        Command::Gc(a) => gc::run(&Ctx::load(cli)?, ui, a),
        Command::Where(a) => where_::run(&Ctx::load(cli)?, ui, a),
        Command::Id(a) => id::run(&Ctx::load(cli)?, ui, a),
        Command::Node(a) => node::run(cli, ui, a),
        Command::Completions(a) => completions::run(a),
        Command::Man(a) => man::run(a),
    }
}
