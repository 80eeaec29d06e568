//! `mesh node session`.

use crate::NodeError;
use std::path::PathBuf;

/// Serve the whole node protocol over one conversation on stdin/stdout (framed, versioned).
///
/// What the controller runs on a node: one process per node per run for have, receive, apply
/// and report, so a node pays its ssh handshake and login shell once.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node's root directory.
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
    /// Afterwards, keep answering sessions on ROOT/.session.sock until none came for SECS
    /// (`mesh node serve`): what the controller asks for with `[ssh] persist`.
    #[arg(long, value_name = "SECS")]
    linger: Option<u64>,
}

/// Runs `mesh node session` and returns its exit code.
pub fn run(a: &Args) -> Result<i32, NodeError> {
    // The node's floor first: ROOT this user's alone (a `Root` is only made checked).
    let root = crate::Root::check(&a.root)?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    crate::session(&root, &mut input, &mut out)?;
    if let Some(secs) = a.linger {
        crate::linger(&root, std::time::Duration::from_secs(secs));
    }
    Ok(0)
}
