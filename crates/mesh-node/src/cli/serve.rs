//! `mesh node serve`.

use crate::NodeError;
use std::path::PathBuf;

/// Answer sessions on ROOT/.session.sock until none came for `--idle` seconds.
///
/// Started, detached, by `mesh node session --linger`: with `[ssh] persist`, later runs reach
/// the node through their kept ssh connection and this socket, with no login shell. One per
/// root; it exits early when its binary is replaced.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node's root directory.
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
    /// Seconds without a session after which it exits.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    idle: u64,
}

/// Runs `mesh node serve` and returns its exit code.
pub fn run(a: &Args) -> Result<i32, NodeError> {
    // The node's floor first: ROOT this user's alone (a `Root` is only made checked).
    let root = crate::Root::check(&a.root)?;
    crate::serve(&root, std::time::Duration::from_secs(a.idle.max(1)))?;
    Ok(0)
}
