//! `mesh node apply`.

use crate::Result;
use std::path::PathBuf;

/// Apply the declaration in force: unpack, switch, activate, read back, and report.
///
/// Run by the controller after a receive, and by the node's own timer.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node's root directory.
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
}

/// Runs `mesh node apply` and returns its exit code.
pub fn run(ui: &super::Ui, a: &Args) -> Result<i32> {
    // The node's floor first: ROOT this user's alone (crate::node::floor).
    crate::node::floor::check_root(&a.root)?;
    let report = crate::node::apply(&a.root)?;
    ui.data(serde_json::to_string(&report).unwrap_or_default());
    Ok(if report.outcome == crate::node::Outcome::Applied {
        0
    } else {
        3
    })
}
