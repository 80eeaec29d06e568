//! `mesh node have`.

use crate::Result;
use std::path::PathBuf;

/// Print what this node holds: artifacts, the declaration in force, what was last applied.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node's root directory.
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
}

/// Runs `mesh node have` and returns its exit code.
pub fn run(ui: &super::Ui, a: &Args) -> Result<i32> {
    // The node's floor first: ROOT this user's alone (crate::node::floor).
    crate::node::floor::check_root(&a.root)?;
    let have = crate::node::have(&a.root)?;
    ui.data(serde_json::to_string(&have).unwrap_or_default());
    Ok(0)
}
