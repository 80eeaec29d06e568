//! `mesh node …`: the node half of the protocol, run on the machine (over ssh or for a local
//! directory). Dispatch only; the work is in `crate::node`.

mod apply;
mod have;
mod receive;
mod report;

use super::Ui;
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
    Receive(receive::Args),
    Apply(apply::Args),
    Report(report::Args),
}

pub fn run(ui: &Ui, a: &Args) -> Result<i32> {
    match &a.command {
        Command::Have(a) => have::run(ui, a),
        Command::Receive(a) => receive::run(ui, a),
        Command::Apply(a) => apply::run(ui, a),
        Command::Report(a) => report::run(ui, a),
    }
}
