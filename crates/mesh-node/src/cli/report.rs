//! `mesh node report`.

use crate::NodeError;
use std::path::PathBuf;

/// Run every module's check, then print the reports newer than `--since`, one JSON object per
/// line.
///
/// When a module the node runs has a `check`, a `checked` report with each module's health is
/// appended first, so what is printed ends with whether what runs works now.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node's root directory.
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
    /// Only reports with a higher report sequence.
    #[arg(long, default_value_t = 0)]
    since: u64,
}

/// Runs `mesh node report` and returns its exit code.
pub fn run(a: &Args) -> Result<i32, NodeError> {
    // The node's floor first: ROOT this user's alone (a `Root` is only made checked).
    let root = crate::Root::check(&a.root)?;
    crate::check(&root)?;
    let mut out = std::io::stdout().lock();
    crate::reports_since(&root, a.since, &mut out)?;
    Ok(0)
}
