//! `mesh node …`: the node half of the protocol, run on the machine (over ssh or for a local
//! directory). Dispatch only; the work is in `crate::node`.

mod apply;
mod have;
mod install;
mod list;
mod receive;
mod report;
mod show;

use super::{Cli, Ctx, Ui};
use crate::Result;

/// The node side: run on a node by the controller, over ssh or locally.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    Have(have::Args),
    Install(install::Args),
    List(list::Args),
    Show(show::Args),
    Receive(receive::Args),
    Apply(apply::Args),
    Report(report::Args),
}

pub fn run(cli: &Cli, ui: &Ui, a: &Args) -> Result<i32> {
    match &a.command {
        Command::Install(a) => install::run(&Ctx::load(cli)?, ui, a),
        Command::List(a) => list::run(&Ctx::load(cli)?, ui, a),
        Command::Show(a) => show::run(&Ctx::load(cli)?, ui, a),
        Command::Have(a) => have::run(ui, a),
        Command::Receive(a) => receive::run(ui, a),
        Command::Apply(a) => apply::run(ui, a),
        Command::Report(a) => report::run(ui, a),
    }
}
