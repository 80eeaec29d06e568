//! The `mesh-node` binary: the node half of mesh, and nothing of the controller. What
//! `mesh node install` sends to a node; it answers `mesh-node session --root DIR` and the other
//! node verbs, and `mesh-node node session …` the same, so one command line serves both it and
//! a full `mesh` binary.

use clap::Parser;
use mesh_node::cli::Verb;

/// The node half of mesh: run by a controller over ssh, or by the node's own timer.
#[derive(Debug, Parser)]
#[command(name = "mesh-node", version)]
struct Args {
    #[command(subcommand)]
    verb: Verb,
}

fn main() {
    // `mesh-node node session …` is `mesh-node session …`: the controller speaks to either binary.
    let args = std::env::args_os()
        .enumerate()
        .filter(|(i, a)| !(*i == 1 && a == "node"))
        .map(|(_, a)| a);
    let args = Args::parse_from(args);
    mesh_node::process::stop_on_signals();
    let code = match (args.verb.run(), mesh_node::process::stopped()) {
        // Asked to stop (SIGINT, SIGTERM): the exit code says so, as mesh's does.
        (_, Some(signal)) => 128 + signal,
        (Ok(code), None) => code,
        (Err(e), None) => {
            eprintln!("{}", mesh_node::cli::said(&e));
            e.exit_code()
        }
    };
    std::process::exit(code);
}
