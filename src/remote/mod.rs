//! Builds shared through a remote-execution engine speaking Bazel's Remote Execution API
//! (REAPI v2: CAS, ActionCache, Execution, ByteStream), the protocol Buildbarn, BuildBuddy,
//! NativeLink, EngFlow and BuildGrid all serve: a module's build named as an action
//! ([`action`]) over Merkle trees ([`merkle`]), results signed by the controller that wrote
//! them ([`sign`]), one run's use of the engine ([`share`]) through a synchronous client
//! ([`client`]).

pub mod action;
pub mod client;
pub mod merkle;
pub mod share;
pub mod sign;

use crate::store::{Paths, StoreError, Table};
use bazel_remote_apis::build::bazel::remote::execution::v2::Digest;
use serde::{Deserialize, Serialize};

/// Each git blob's SHA-256 digest (hash, size), by blob id: a file is read to name it once.
pub(crate) const BLOB_DIGESTS: Table<(String, i64)> = Table::new("remote_blobs");

/// What the engine had to do with a build, by build id: kept with the build's record.
pub(crate) const BUILT: Table<RemoteBuild> = Table::new("remote_builds");

/// A build the engine had a part in.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RemoteBuild {
    /// The action's digest (`hash/size`).
    pub action: String,
    /// `cache` (taken from the cache), `remote` (built on the engine) or `local`.
    pub ran: String,
    /// Who signed the result taken (a cache hit).
    pub signer: Option<String>,
    /// Whether this build was written to the cache.
    pub uploaded: bool,
}

/// The blob digests learnt by earlier runs.
pub fn known_blob_digests(paths: &Paths) -> action::BlobDigests {
    let read = paths
        .open()
        .and_then(|s| s.read(|r| r.range(BLOB_DIGESTS, b"", None)));
    let mut out = action::BlobDigests::default();
    for (k, (hash, size_bytes)) in read.unwrap_or_default() {
        if let Ok(id) = gix::ObjectId::try_from(&k[..]) {
            out.known.insert(id, Digest { hash, size_bytes });
        }
    }
    out
}

/// Keeps the blob digests this run learnt, in one write.
pub fn keep_blob_digests(
    paths: &Paths,
    learnt: &[(gix::ObjectId, Digest)],
) -> Result<(), StoreError> {
    if learnt.is_empty() {
        return Ok(());
    }
    paths.open()?.write(|w| {
        for (id, d) in learnt {
            w.put(BLOB_DIGESTS, id.as_bytes(), &(d.hash.clone(), d.size_bytes))?;
        }
        Ok(())
    })
}

/// The engine `mesh.toml`'s `[remote]` names, for one run: results taken from this
/// controller and `[controllers]`, this controller's own written back signed with its key
/// (none without one: it has signed nothing, it writes nothing). `None` without `[remote]`.
pub fn for_run(
    mesh: &crate::config::MeshConfig,
    dot_mesh: &std::path::Path,
) -> Option<std::sync::Arc<share::Shared>> {
    let cfg = mesh.remote.clone()?;
    let me = crate::controller::open_key_if_made(dot_mesh, &mesh.controller)
        .ok()
        .flatten();
    Some(std::sync::Arc::new(share::Shared::new(
        cfg,
        me,
        &mesh.controllers,
    )))
}
