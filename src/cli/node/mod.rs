//! `mesh node …`: the nodes as people use them (`list`, `show`, `install`, `trust`, `forget`), and the
//! node half of the protocol, run on the machine over ssh or for a local directory (`have`,
//! `receive`, `apply`, `report`, `session`, `serve`: hidden from `mesh node --help`, see `cli::help`). Dispatch
//! only; the work is in `crate::node`.

mod apply;
mod forget;
mod have;
mod install;
mod list;
mod receive;
mod report;
mod serve;
mod session;
mod show;
mod trust;

use super::{Cli, Ctx, Ui};
use crate::Result;

/// The nodes: list them, show one, install mesh on one, see or reset whom one trusts, forget
/// one gone from mesh.toml.
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
        Command::Have(a) => have::run(ui, a),
        Command::Receive(a) => receive::run(ui, a),
        Command::Apply(a) => apply::run(ui, a),
        Command::Report(a) => report::run(ui, a),
        Command::Session(a) => session::run(ui, a),
        Command::Serve(a) => serve::run(ui, a),
    }
}
