//! `mesh node apply`.

use crate::NodeError;
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
pub fn run(a: &Args) -> Result<i32, NodeError> {
    // The node's floor first: ROOT this user's alone (a `Root` is only made checked).
    let root = crate::Root::check(&a.root)?;
    let report = crate::apply(&root)?;
    super::data(&report);
    Ok(if report.outcome == crate::Outcome::Applied {
        0
    } else {
        3
    })
}
