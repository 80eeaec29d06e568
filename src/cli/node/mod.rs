//! `mesh node …`: the nodes as people use them (`list`, `show`, `install`, `trust`, `accept`, `forget`), and the
//! node half of the protocol, run on the machine over ssh or for a local directory (`have`,
//! `receive`, `apply`, `report`, `session`, `serve`: hidden from `mesh node --help`, see `cli::help`). Dispatch
//! only; the work is in `mesh_node`, whose own `cli` holds the node half's arguments (the
//! `mesh-node` binary is those alone).

mod accept;
mod forget;
mod install;
mod list;
mod show;
mod trust;

use mesh_node::cli::{apply, have, receive, report, serve, session};

use super::{Cli, Ctx, Ui};
use mesh::Result;

/// The nodes: list them, show one, install mesh on one, see or reset whom one trusts, accept
/// one's new age key, forget one gone from mesh.toml.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    List(list::Args),
    Show(show::Args),
    Install(install::Args),
    Forget(forget::Args),
    Trust(trust::Args),
    Accept(accept::Args),
    Have(have::Args),
    Receive(receive::Args),
    Apply(apply::Args),
    Report(report::Args),
    Session(session::Args),
    Serve(serve::Args),
}

pub fn run(cli: &Cli, ui: &Ui, a: &Args) -> Result<i32> {
    match &a.command {
        Command::Install(a) => install::run(&Ctx::load(cli)?, ui, a),
        Command::List(a) => list::run(&Ctx::load(cli)?, ui, a),
        Command::Show(a) => show::run(&Ctx::load(cli)?, ui, a),
        Command::Forget(a) => forget::run(&Ctx::load(cli)?, ui, a),
        Command::Trust(a) => trust::run(&Ctx::load(cli)?, ui, a),
        Command::Accept(a) => accept::run(&Ctx::load(cli)?, ui, a),
        Command::Have(a) => Ok(have::run(a)?),
        Command::Receive(a) => Ok(receive::run(a)?),
        Command::Apply(a) => Ok(apply::run(a)?),
        Command::Report(a) => Ok(report::run(a)?),
        Command::Session(a) => Ok(session::run(a)?),
        Command::Serve(a) => Ok(serve::run(a)?),
    }
}
