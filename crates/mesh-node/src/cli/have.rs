//! `mesh node have`.

use crate::NodeError;
use std::path::PathBuf;

/// Print what this node holds: artifacts, the declaration in force, what was last applied.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node's root directory.
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
}

/// Runs `mesh node have` and returns its exit code.
pub fn run(a: &Args) -> Result<i32, NodeError> {
    // The node's floor first: ROOT this user's alone (a `Root` is only made checked).
    let root = crate::Root::check(&a.root)?;
    let have = crate::have(&root)?;
    super::data(&have);
    Ok(0)
}
