//! `mesh node receive`.

use crate::NodeError;
use std::path::PathBuf;

/// Receive artifacts and a declaration on stdin; answer the digest now held.
///
/// Each artifact's blake3 is verified before it is kept; the declaration is written only after
/// everything it names is held. A lower sequence, a digest that does not match, or an unknown
/// field refuses the whole declaration, and the refusal is reported. A declaration not signed
/// by a controller the node trusts, or made for another node or mesh than the one it was first
/// declared as, is refused whole and not reported: nothing of it is kept.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node's root directory.
    #[arg(long, value_name = "DIR")]
    root: PathBuf,
}

/// Runs `mesh node receive` and returns its exit code.
pub fn run(a: &Args) -> Result<i32, NodeError> {
    // The node's floor first: ROOT this user's alone (a `Root` is only made checked).
    let root = crate::Root::check(&a.root)?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    crate::receive(&root, &mut input, &mut out)?;
    Ok(0)
}
