//! Artifacts: the deterministic tar of a build's `$MESH_OUT` (`pack`), the content-addressed
//! store under `.mesh/artifacts/` (`store`), and the safe unpacking of an artifact on a node
//! (`unpack`), used by builds, delivery and the node alike.
//!
//! Packing is deterministic so that a reproducible build reproduces its digest (early cutoff).
//! Unpacking treats its input as untrusted: it never writes outside its destination, never
//! follows a link while writing, and makes the destination appear whole or not at all.
//!
//! Symlinks are held to one rule on both sides: the target is relative, and every `..` in it
//! steps out of a real directory of the tree (never out of a symlink, never above the root).
//! Together with "no entry below a symlink", this guarantees that following any link of an
//! artifact — however links are chained — stays inside it. A purely lexical check would not:
//! `s -> .` and `t -> s/..` each look inside, yet `t` names the parent of the tree.

mod pack;
mod store;
#[cfg(test)]
mod tests;
mod unpack;

pub use pack::pack;
pub use store::ArtifactStore;
pub use unpack::unpack;

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

use miette::Diagnostic;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A blake3 digest of an artifact's bytes, lowercase hex (64 chars). It names the artifact;
/// one made by [`Digest::parse`] can never name anything but a store file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Digest(String);

impl Digest {
    /// A digest from outside, if it is one: exactly 64 lowercase hex characters.
    pub fn parse(s: &str) -> Option<Digest> {
        is_digest(s).then(|| Digest(s.to_string()))
    }

    /// The digest of bytes hashed here.
    pub(crate) fn of(hash: blake3::Hash) -> Digest {
        Digest(hash.to_hex().to_string())
    }

    /// The hex string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The hex string, owned (records keep digests as text).
    pub fn into_string(self) -> String {
        self.0
    }
}

impl std::ops::Deref for Digest {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How many characters of a digest a table shows (commits show 8).
pub const SHORT: usize = 12;

/// The first `width` characters of a digest or commit id (all of it when shorter): enough to
/// tell them apart in a table or a sentence.
pub fn short(id: &str, width: usize) -> &str {
    id.get(..width).unwrap_or(id)
}

/// The name ending of an artifact's compressed copy (`<digest>.zst`), kept beside it.
pub const COMPRESSED: &str = ".zst";

/// zstd's own default: a 10 MiB release binary in ~0.1 s to 40% of its size; made once per
/// artifact, sent to every node.
const ZSTD_LEVEL: i32 = 3;

/// Mode of directories and executable files in an artifact.
const MODE_EXEC: u32 = 0o755;
/// Mode of other files in an artifact.
const MODE_FILE: u32 = 0o644;
/// Mode recorded for symlinks (not applied: Linux ignores symlink modes).
const MODE_LINK: u32 = 0o777;
/// Buffer size for streaming copies.
const CHUNK: usize = 64 * 1024;

/// Why an artifact could not be packed, stored or unpacked.
#[derive(Debug, Error, Diagnostic)]
pub enum ArtifactError {
    /// A file or directory could not be read or written.
    #[error("could not read or write {}: {source}", path.display())]
    #[diagnostic(
        code(mesh::artifact::io),
        help(
            "check that the path exists and is readable/writable by this user, and that the disk is not full"
        )
    )]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },

    /// The packed tar could not be written to its destination.
    #[error("could not write the artifact tar: {source}")]
    #[diagnostic(
        code(mesh::artifact::write),
        help(
            "check where the artifact is being written to (disk space, permissions, a closed pipe)"
        )
    )]
    Write {
        /// The OS error.
        source: io::Error,
    },

    /// The incoming artifact stream failed or ended early.
    #[error("could not read the incoming artifact: {source}")]
    #[diagnostic(
        code(mesh::artifact::read),
        help("the stream failed or ended early; send the artifact again")
    )]
    Read {
        /// The OS error.
        source: io::Error,
    },

    /// The artifact is not a readable tar (truncated or damaged).
    #[error("the artifact is not a readable tar: {source}")]
    #[diagnostic(
        code(mesh::artifact::corrupt),
        help("the artifact is truncated or damaged; send it again from the controller's store")
    )]
    Corrupt {
        /// What the tar reader reported.
        source: io::Error,
    },

    /// A symlink points outside the tree (absolute, or climbing above the root or out of a link).
    #[error("symlink {} points outside the artifact (-> {})", path.display(), target.display())]
    #[diagnostic(
        code(mesh::artifact::link_out_of_tree),
        help(
            "a link in an artifact must be relative and stay inside it, with `..` only stepping out of real directories; have the build write such a link or copy the file instead"
        )
    )]
    LinkOutOfTree {
        /// The symlink.
        path: PathBuf,
        /// What it points to.
        target: PathBuf,
    },

    /// An entry of a kind an artifact cannot hold (device, fifo, socket, hard link, ...).
    #[error("{} is a {kind}, which an artifact cannot hold", path.display())]
    #[diagnostic(
        code(mesh::artifact::unsupported),
        help(
            "an artifact holds only regular files, directories and symlinks; remove it from $MESH_OUT (or do not apply this artifact)"
        )
    )]
    Unsupported {
        /// The entry.
        path: PathBuf,
        /// What kind of entry it is.
        kind: String,
    },

    /// An entry path that is absolute or contains `..`.
    #[error("unsafe path in artifact: {} (absolute or containing `..`)", path.display())]
    #[diagnostic(
        code(mesh::artifact::unsafe_path),
        help(
            "`mesh build` never makes such an artifact; do not apply it, and find out where it came from"
        )
    )]
    UnsafePath {
        /// The entry path as written in the tar.
        path: PathBuf,
    },

    /// An entry lies below a symlink of the same artifact.
    #[error("{} lies below the symlink {}; refusing to write through a link", path.display(), link.display())]
    #[diagnostic(
        code(mesh::artifact::through_link),
        help(
            "`mesh build` never makes such an artifact; do not apply it, and find out where it came from"
        )
    )]
    ThroughLink {
        /// The entry.
        path: PathBuf,
        /// The symlink on its way.
        link: PathBuf,
    },

    /// An entry that contradicts the rest of the tar (a duplicate, a file where a directory is).
    #[error("malformed artifact entry {}: {reason}", path.display())]
    #[diagnostic(
        code(mesh::artifact::malformed),
        help("`mesh build` never makes such an artifact; send it again, or rebuild it")
    )]
    Malformed {
        /// The entry.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// The unpack destination already exists.
    #[error("cannot unpack into {}: it already exists", path.display())]
    #[diagnostic(
        code(mesh::artifact::dest_exists),
        help(
            "an artifact is unpacked once into a fresh directory; use the existing one, or remove it first"
        )
    )]
    DestExists {
        /// The destination.
        path: PathBuf,
    },

    /// The bytes received do not hash to the digest they were sent as.
    #[error("artifact digest mismatch: expected {expected}, got {actual}")]
    #[diagnostic(
        code(mesh::artifact::digest_mismatch),
        help(
            "the bytes were damaged on the way or are not that artifact; nothing was stored, send it again"
        )
    )]
    DigestMismatch {
        /// The digest the artifact was sent as.
        expected: String,
        /// The blake3 of the bytes received.
        actual: String,
    },

    /// A string that is not a digest was used as one.
    #[error("not an artifact digest: {digest:?} (expected 64 lowercase hex characters)")]
    #[diagnostic(
        code(mesh::artifact::invalid_digest),
        help(
            "artifact digests are blake3, 64 lowercase hex characters; check where this one came from"
        )
    )]
    InvalidDigest {
        /// The offending string.
        digest: String,
    },
}

impl From<crate::durable::DurableError> for ArtifactError {
    fn from(e: crate::durable::DurableError) -> ArtifactError {
        ArtifactError::Io {
            path: e.path,
            source: e.source,
        }
    }
}

/// Validates a digest string: exactly 64 lowercase hex chars (the rule both ends share).
pub use mesh_proto::names::is_digest;

/// Reads exactly `remaining` bytes, failing with `UnexpectedEof` (and `short`) if the source
/// ends sooner: a file that shrank while packed, or a stream that was cut off, is an error and
/// never a short entry or a digest mismatch.
pub struct Exact<'a, R> {
    inner: &'a mut R,
    remaining: u64,
    short: &'static str,
}

impl<'a, R: Read> Exact<'a, R> {
    /// At most, and at least, `len` bytes of `inner`.
    pub fn new(inner: &'a mut R, len: u64, short: &'static str) -> Self {
        Exact {
            inner,
            remaining: len,
            short,
        }
    }
}

impl<R: Read> Read for Exact<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.remaining == 0 || buf.is_empty() {
            return Ok(0);
        }
        let max = buf
            .len()
            .min(usize::try_from(self.remaining).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..max])?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("{} ({} bytes missing)", self.short, self.remaining),
            ));
        }
        self.remaining -= n as u64;
        Ok(n)
    }
}

// The link rule, shared by pack and unpack.

/// Whether `root/parent/*` is a real directory at every step (no symlink, all present).
fn is_real_dir_chain(root: &Path, comps: &[&OsStr]) -> bool {
    let mut p = root.to_path_buf();
    for c in comps {
        p.push(c);
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_dir() => {}
            _ => return false,
        }
    }
    true
}

/// Quick lexical test, needing no file system: relative, not empty, never climbing above root.
fn link_lexically_inside(depth: usize, target: &Path) -> bool {
    if target.as_os_str().is_empty() {
        return false;
    }
    let mut depth = depth;
    for c in target.components() {
        match c {
            Component::RootDir | Component::Prefix(_) => return false,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            Component::Normal(_) => depth += 1,
        }
    }
    true
}

/// The link rule: a link at `root/parent/<name>` may point to `target` iff the target is
/// relative and every `..` steps out of a real directory of the tree that is not the root.
/// `parent` must be real directories (no entry lies below a symlink).
fn link_stays_inside(root: &Path, parent: &[&OsStr], target: &Path) -> bool {
    if !link_lexically_inside(parent.len(), target) {
        return false;
    }
    let mut cur: Vec<&OsStr> = parent.to_vec();
    for c in target.components() {
        match c {
            Component::RootDir | Component::Prefix(_) => return false,
            Component::CurDir => {}
            Component::ParentDir => {
                if cur.is_empty() || !is_real_dir_chain(root, &cur) {
                    return false;
                }
                cur.pop();
            }
            Component::Normal(n) => cur.push(n),
        }
    }
    true
}

/// Which side of a copy failed.
enum CopyError {
    Read(io::Error),
    Write(io::Error),
}

/// Copies `r` to `w`, showing every chunk to `seen`; returns the byte count.
fn copy_split(
    r: &mut impl Read,
    w: &mut impl Write,
    mut seen: impl FnMut(&[u8]),
) -> Result<u64, CopyError> {
    let mut buf = vec![0u8; CHUNK];
    let mut total = 0u64;
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyError::Read(e)),
        };
        let chunk = &buf[..n];
        seen(chunk);
        w.write_all(chunk).map_err(CopyError::Write)?;
        total += n as u64;
    }
    w.flush().map_err(CopyError::Write)?;
    Ok(total)
}
