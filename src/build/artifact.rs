//! Artifacts (DESIGN.md §1, §6, §8): the deterministic tar of a build's `$MESH_OUT`, the
//! content-addressed store under `.mesh/artifacts/`, and the safe unpacking of an artifact on a
//! node.
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

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use miette::Diagnostic;
use thiserror::Error;

/// A blake3 digest of an artifact's bytes, lowercase hex (64 chars). It names the artifact.
pub type Digest = String;

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

/// Validates a digest string: exactly 64 lowercase hex chars. Check this before turning a
/// digest from outside into a path, so it can never name anything but a store file.
pub fn is_digest(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

// ---------------------------------------------------------------------------------------------
// pack
// ---------------------------------------------------------------------------------------------

/// What a walked path is.
enum Kind {
    Dir,
    File,
    Symlink,
}

/// One entry of the tree being packed: its path relative to the root, as components.
struct Node {
    rel: Vec<Vec<u8>>,
    kind: Kind,
}

impl Node {
    fn rel_path(&self) -> PathBuf {
        let mut p = PathBuf::new();
        for c in &self.rel {
            p.push(OsStr::from_bytes(c));
        }
        p
    }

    /// The byte-order sort key: the components joined by `/`.
    fn key(&self) -> Vec<u8> {
        self.rel.join(&b'/')
    }
}

/// A writer that hashes and counts what passes through it, and stops writing once poisoned
/// (so the tar builder's trailer never lands in `out` after a failure).
struct HashWriter<W: Write> {
    inner: W,
    hasher: blake3::Hasher,
    len: u64,
    write_failed: bool,
    poisoned: bool,
}

impl<W: Write> Write for HashWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.poisoned {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Ok(n) => {
                let done = buf.get(..n).unwrap_or(buf);
                self.hasher.update(done);
                self.len += done.len() as u64;
                Ok(n)
            }
            Err(e) => {
                if e.kind() != io::ErrorKind::Interrupted {
                    self.write_failed = true;
                    self.poisoned = true;
                }
                Err(e)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.poisoned {
            return Ok(());
        }
        self.inner.flush().inspect_err(|_| {
            self.write_failed = true;
            self.poisoned = true;
        })
    }
}

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

/// Packs the directory `dir` into a deterministic tar and writes it to `out`; returns its
/// digest and byte length.
///
/// Entries are sorted by path (byte order), directories included, with mtime 0, uid/gid 0,
/// empty user/group names and modes 0o755 (directories, executable files) or 0o644 (other
/// files), in GNU headers (long names via GNU extensions). The same tree always gives the
/// same bytes, so a reproducible build reproduces its digest. Symlinks are kept only when
/// they stay inside `dir` (else [`ArtifactError::LinkOutOfTree`]); devices, fifos and sockets
/// are refused ([`ArtifactError::Unsupported`]).
pub fn pack(dir: &Path, out: &mut impl Write) -> Result<(Digest, u64), ArtifactError> {
    let mut nodes = walk(dir)?;
    nodes.sort_by_cached_key(Node::key);

    let mut builder = tar::Builder::new(HashWriter {
        inner: out,
        hasher: blake3::Hasher::new(),
        len: 0,
        write_failed: false,
        poisoned: false,
    });
    for node in &nodes {
        if let Err(e) = append_node(&mut builder, dir, node) {
            builder.get_mut().poisoned = true;
            return Err(e);
        }
    }
    let mut w = builder
        .into_inner()
        .map_err(|source| ArtifactError::Write { source })?;
    w.flush()
        .map_err(|source| ArtifactError::Write { source })?;
    Ok((w.hasher.finalize().to_hex().to_string(), w.len))
}

/// Lists every entry under `dir` without following symlinks; refuses special files.
fn walk(dir: &Path) -> Result<Vec<Node>, ArtifactError> {
    let mut nodes = Vec::new();
    let mut pending: Vec<Vec<Vec<u8>>> = vec![Vec::new()];
    while let Some(rel) = pending.pop() {
        let mut here = dir.to_path_buf();
        for c in &rel {
            here.push(OsStr::from_bytes(c));
        }
        let read = fs::read_dir(&here).map_err(|source| ArtifactError::Io {
            path: here.clone(),
            source,
        })?;
        for entry in read {
            let entry = entry.map_err(|source| ArtifactError::Io {
                path: here.clone(),
                source,
            })?;
            let path = entry.path();
            let ft = entry.file_type().map_err(|source| ArtifactError::Io {
                path: path.clone(),
                source,
            })?;
            let mut child = rel.clone();
            child.push(entry.file_name().as_bytes().to_vec());
            let kind = if ft.is_dir() {
                pending.push(child.clone());
                Kind::Dir
            } else if ft.is_file() {
                Kind::File
            } else if ft.is_symlink() {
                Kind::Symlink
            } else {
                let kind = if ft.is_block_device() {
                    "block device"
                } else if ft.is_char_device() {
                    "character device"
                } else if ft.is_fifo() {
                    "fifo"
                } else if ft.is_socket() {
                    "socket"
                } else {
                    "special file"
                };
                return Err(ArtifactError::Unsupported {
                    path,
                    kind: kind.to_string(),
                });
            };
            nodes.push(Node { rel: child, kind });
        }
    }
    Ok(nodes)
}

/// A header with every field set to its normalised value.
fn fresh_header(kind: tar::EntryType, size: u64, mode: u32) -> tar::Header {
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(kind);
    h.set_size(size);
    h.set_mode(mode);
    h.set_uid(0);
    h.set_gid(0);
    h.set_mtime(0);
    // Empty names always fit; the GNU header of `new_gnu` already has them empty.
    let _ = h.set_username("");
    let _ = h.set_groupname("");
    h
}

/// Appends one entry, mapping errors to the file concerned or to the output.
fn append_node<W: Write>(
    builder: &mut tar::Builder<HashWriter<W>>,
    dir: &Path,
    node: &Node,
) -> Result<(), ArtifactError> {
    let rel = node.rel_path();
    let full = dir.join(&rel);
    let io_err = |builder: &tar::Builder<HashWriter<W>>, source: io::Error| {
        if builder.get_ref().write_failed {
            ArtifactError::Write { source }
        } else {
            ArtifactError::Io {
                path: full.clone(),
                source,
            }
        }
    };
    match node.kind {
        Kind::Dir => {
            let mut h = fresh_header(tar::EntryType::Directory, 0, MODE_EXEC);
            let mut name = node.key();
            name.push(b'/');
            let name = PathBuf::from(OsStr::from_bytes(&name));
            builder
                .append_data(&mut h, &name, io::empty())
                .map_err(|e| io_err(builder, e))
        }
        Kind::File => {
            let mut f = File::open(&full).map_err(|e| io_err(builder, e))?;
            let meta = f.metadata().map_err(|e| io_err(builder, e))?;
            if !meta.is_file() {
                return Err(ArtifactError::Io {
                    path: full.clone(),
                    source: io::Error::other("it stopped being a regular file while being packed"),
                });
            }
            let mode = if meta.permissions().mode() & 0o111 != 0 {
                MODE_EXEC
            } else {
                MODE_FILE
            };
            let mut h = fresh_header(tar::EntryType::Regular, meta.len(), mode);
            let data = Exact::new(
                &mut f,
                meta.len(),
                "the file shrank while it was being packed",
            );
            builder
                .append_data(&mut h, &rel, data)
                .map_err(|e| io_err(builder, e))?;
            let mut probe = [0u8; 1];
            match f.read(&mut probe) {
                Ok(0) => Ok(()),
                Ok(_) => Err(ArtifactError::Io {
                    path: full.clone(),
                    source: io::Error::other("the file grew while it was being packed"),
                }),
                Err(source) => Err(ArtifactError::Io {
                    path: full.clone(),
                    source,
                }),
            }
        }
        Kind::Symlink => {
            let target = fs::read_link(&full).map_err(|e| io_err(builder, e))?;
            let parent: Vec<&OsStr> = node
                .rel
                .iter()
                .take(node.rel.len().saturating_sub(1))
                .map(|c| OsStr::from_bytes(c))
                .collect();
            if !link_stays_inside(dir, &parent, &target) {
                return Err(ArtifactError::LinkOutOfTree { path: full, target });
            }
            let mut h = fresh_header(tar::EntryType::Symlink, 0, MODE_LINK);
            builder
                .append_link(&mut h, &rel, &target)
                .map_err(|e| io_err(builder, e))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// link rule (shared by pack and unpack)
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// store
// ---------------------------------------------------------------------------------------------

/// The content-addressed artifact store under `.mesh/artifacts/`: one file per digest, named
/// by it. Files are written to a temp file beside, fsynced, then renamed, so a digest's file
/// is always whole; identical artifacts share one file.
#[derive(Debug, Clone)]
pub struct ArtifactStore {
    root: PathBuf,
}

impl ArtifactStore {
    /// A store rooted at `root` (usually `.mesh/artifacts`); created on first write.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        ArtifactStore { root: root.into() }
    }

    /// Packs `dir` (a build's `$MESH_OUT`) into the store and returns its (digest, size).
    /// Two builds producing the same bytes share one file.
    pub fn put_dir(&self, dir: &Path) -> Result<(Digest, u64), ArtifactError> {
        let mut tmp = self.temp()?;
        let tmp_path = tmp.path().to_path_buf();
        let to_tmp = |source| ArtifactError::Io {
            path: tmp_path.clone(),
            source,
        };
        let (digest, size) = {
            let mut w = BufWriter::with_capacity(CHUNK, tmp.as_file_mut());
            let packed = pack(dir, &mut w).map_err(|e| match e {
                ArtifactError::Write { source } => to_tmp(source),
                e => e,
            })?;
            w.flush().map_err(to_tmp)?;
            packed
        };
        self.commit(tmp, &digest, size)?;
        Ok((digest, size))
    }

    /// Stores the bytes read from `r` as the artifact `expected`, after checking that their
    /// blake3 is `expected` (else [`ArtifactError::DigestMismatch`], and nothing is left
    /// behind). Returns the size. Used by a node receiving artifacts it was sent. Reads `r`
    /// to its end: hand it `stream.take(len)` when several artifacts share one stream.
    pub fn put_verified(&self, expected: &str, r: &mut impl Read) -> Result<u64, ArtifactError> {
        if !is_digest(expected) {
            return Err(ArtifactError::InvalidDigest {
                digest: expected.to_string(),
            });
        }
        let mut tmp = self.temp()?;
        let tmp_path = tmp.path().to_path_buf();
        let mut hasher = blake3::Hasher::new();
        let size = copy_split(r, tmp.as_file_mut(), |chunk| {
            hasher.update(chunk);
        })
        .map_err(|e| match e {
            CopyError::Read(source) => ArtifactError::Read { source },
            CopyError::Write(source) => ArtifactError::Io {
                path: tmp_path.clone(),
                source,
            },
        })?;
        let actual = hasher.finalize().to_hex().to_string();
        if actual != expected {
            return Err(ArtifactError::DigestMismatch {
                expected: expected.to_string(),
                actual,
            });
        }
        self.commit(tmp, expected, size)?;
        Ok(size)
    }

    /// Where the artifact `digest` is (or would be) stored. Check [`is_digest`] first on any
    /// digest from outside.
    pub fn path(&self, digest: &str) -> PathBuf {
        self.root.join(digest)
    }

    /// Whether the store holds the artifact `digest` (false for anything not a digest).
    pub fn contains(&self, digest: &str) -> bool {
        is_digest(digest) && fs::metadata(self.path(digest)).is_ok_and(|m| m.is_file())
    }

    /// Whether the file stored as `digest` holds exactly the bytes of that digest (false for
    /// an absent file). Read whole: used before an artifact is sent and when a build's output
    /// meets a file already there.
    pub fn verify(&self, digest: &str) -> Result<bool, ArtifactError> {
        if !is_digest(digest) {
            return Ok(false);
        }
        let path = self.path(digest);
        let mut f = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(source) => return Err(ArtifactError::Io { path, source }),
        };
        let mut hasher = blake3::Hasher::new();
        hasher
            .update_reader(&mut f)
            .map_err(|source| ArtifactError::Io {
                path: path.clone(),
                source,
            })?;
        Ok(hasher.finalize().to_hex().as_str() == digest)
    }

    /// The artifact `digest` compressed with zstd, as it travels to nodes: (path, length),
    /// made from the stored tar the first time it is asked for (then kept beside it, and
    /// removed with it). A copy that does not decompress to `digest` is made again.
    pub fn compressed(&self, digest: &str) -> Result<(PathBuf, u64), ArtifactError> {
        let path = self.compressed_path(digest);
        if let Ok(m) = fs::metadata(&path)
            && m.is_file()
            && self.verify_compressed(digest).unwrap_or(false)
        {
            return Ok((path, m.len()));
        }
        let tar = self.path(digest);
        let mut input = File::open(&tar).map_err(|source| ArtifactError::Io {
            path: tar.clone(),
            source,
        })?;
        let mut tmp = self.temp()?;
        let tmp_path = tmp.path().to_path_buf();
        let io = |source| ArtifactError::Io {
            path: tmp_path.clone(),
            source,
        };
        {
            let mut encoder = zstd::stream::write::Encoder::new(
                BufWriter::with_capacity(CHUNK, tmp.as_file_mut()),
                ZSTD_LEVEL,
            )
            .map_err(io)?;
            encoder.include_checksum(true).map_err(io)?;
            io::copy(&mut input, &mut encoder).map_err(io)?;
            encoder.finish().and_then(|mut w| w.flush()).map_err(io)?;
        }
        tmp.as_file().sync_all().map_err(io)?;
        let len = tmp.as_file().metadata().map_err(io)?.len();
        tmp.persist(&path).map_err(|e| ArtifactError::Io {
            path: path.clone(),
            source: e.error,
        })?;
        sync_dir(&self.root)?;
        Ok((path, len))
    }

    /// Where the compressed copy of `digest` is (or would be) kept.
    fn compressed_path(&self, digest: &str) -> PathBuf {
        self.root.join(format!("{digest}{COMPRESSED}"))
    }

    /// Whether the compressed copy of `digest` decompresses to exactly that digest.
    fn verify_compressed(&self, digest: &str) -> Result<bool, ArtifactError> {
        let path = self.compressed_path(digest);
        let file = File::open(&path).map_err(|source| ArtifactError::Io {
            path: path.clone(),
            source,
        })?;
        let Ok(mut decoder) = zstd::stream::read::Decoder::new(file) else {
            return Ok(false);
        };
        let mut hasher = blake3::Hasher::new();
        Ok(hasher.update_reader(&mut decoder).is_ok()
            && hasher.finalize().to_hex().as_str() == digest)
    }

    /// Removes the file stored as `digest` (a damaged one: its module is built again).
    pub fn remove(&self, digest: &str) -> Result<(), ArtifactError> {
        if !is_digest(digest) {
            return Ok(());
        }
        let _ = fs::remove_file(self.compressed_path(digest));
        let path = self.path(digest);
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(ArtifactError::Io { path, source }),
        }
    }

    /// Every digest held, sorted (file names that are digests; temp files are ignored). An
    /// absent store holds nothing.
    pub fn list(&self) -> Result<Vec<Digest>, ArtifactError> {
        let read = match fs::read_dir(&self.root) {
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(ArtifactError::Io {
                    path: self.root.clone(),
                    source,
                });
            }
        };
        let mut out = Vec::new();
        for entry in read {
            let entry = entry.map_err(|source| ArtifactError::Io {
                path: self.root.clone(),
                source,
            })?;
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if is_digest(&name) && entry.file_type().is_ok_and(|t| t.is_file()) {
                out.push(name);
            }
        }
        out.sort();
        Ok(out)
    }

    /// A fresh temp file in the store directory (creating it).
    fn temp(&self) -> Result<tempfile::NamedTempFile, ArtifactError> {
        fs::create_dir_all(&self.root).map_err(|source| ArtifactError::Io {
            path: self.root.clone(),
            source,
        })?;
        tempfile::NamedTempFile::new_in(&self.root).map_err(|source| ArtifactError::Io {
            path: self.root.clone(),
            source,
        })
    }

    /// Fsyncs the temp file and renames it to `digest`, unless a whole file of that digest is
    /// already there (then the temp is dropped).
    fn commit(
        &self,
        tmp: tempfile::NamedTempFile,
        digest: &str,
        size: u64,
    ) -> Result<(), ArtifactError> {
        tmp.as_file()
            .sync_all()
            .map_err(|source| ArtifactError::Io {
                path: tmp.path().to_path_buf(),
                source,
            })?;
        let dest = self.path(digest);
        // A file already there is kept only when its content is this digest: a damaged one
        // of the same size (a flipped bit) is replaced, never believed.
        if fs::symlink_metadata(&dest).is_ok_and(|m| m.is_file() && m.len() == size)
            && self.verify(digest).unwrap_or(false)
        {
            return Ok(());
        }
        tmp.persist(&dest).map_err(|e| ArtifactError::Io {
            path: dest.clone(),
            source: e.error,
        })?;
        sync_dir(&self.root)
    }
}

/// Fsyncs a directory so that renames into it survive a crash.
fn sync_dir(dir: &Path) -> Result<(), ArtifactError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|source| ArtifactError::Io {
            path: dir.to_path_buf(),
            source,
        })
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

// ---------------------------------------------------------------------------------------------
// unpack
// ---------------------------------------------------------------------------------------------

/// Unpacks an artifact tar into `dest`, which must not exist yet (its parent is created if
/// missing).
///
/// The input is untrusted. Refused, naming the entry, before anything is written outside
/// `dest` and without following any link: absolute paths, `..` components, symlinks that are
/// absolute or leave the tree (see the module docs), entries below a symlink, hard links,
/// devices, fifos and any other special entry. Files get 0o755 or 0o644 from the executable
/// bit of their header, directories 0o755. Everything is written into a temp directory beside
/// `dest` (links last, once the tree they point into exists), fsynced, then renamed to `dest`:
/// `dest` appears whole or not at all, and on any error nothing is left behind.
pub fn unpack(r: impl Read, dest: &Path) -> Result<(), ArtifactError> {
    match fs::symlink_metadata(dest) {
        Ok(_) => {
            return Err(ArtifactError::DestExists {
                path: dest.to_path_buf(),
            });
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(ArtifactError::Io {
                path: dest.to_path_buf(),
                source,
            });
        }
    }
    let Some(name) = dest.file_name() else {
        return Err(ArtifactError::Io {
            path: dest.to_path_buf(),
            source: io::Error::new(io::ErrorKind::InvalidInput, "not a directory name"),
        });
    };
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::create_dir_all(parent).map_err(|source| ArtifactError::Io {
        path: parent.to_path_buf(),
        source,
    })?;
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".unpack-");
    let tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .tempdir_in(parent)
        .map_err(|source| ArtifactError::Io {
            path: parent.to_path_buf(),
            source,
        })?;

    extract(r, tmp.path())?;

    fs::rename(tmp.path(), dest).map_err(|source| match source.kind() {
        // Someone else unpacked it meanwhile; ours is dropped.
        io::ErrorKind::AlreadyExists | io::ErrorKind::DirectoryNotEmpty => {
            ArtifactError::DestExists {
                path: dest.to_path_buf(),
            }
        }
        _ => ArtifactError::Io {
            path: dest.to_path_buf(),
            source,
        },
    })?;
    // Renamed away: nothing left for the guard to clean.
    let _ = tmp.keep();
    sync_dir(parent)
}

/// Turns a tar entry path into a relative path of normal components; refuses absolute paths
/// and `..`. `.` and empty components are dropped; the result may be empty (the root).
fn safe_rel(raw: &[u8]) -> Result<PathBuf, ArtifactError> {
    let unsafe_path = || ArtifactError::UnsafePath {
        path: PathBuf::from(OsStr::from_bytes(raw)),
    };
    if raw.first() == Some(&b'/') {
        return Err(unsafe_path());
    }
    let mut out = PathBuf::new();
    for comp in raw.split(|b| *b == b'/') {
        match comp {
            b"" | b"." => {}
            b".." => return Err(unsafe_path()),
            c => out.push(OsStr::from_bytes(c)),
        }
    }
    Ok(out)
}

/// Creates `root/rel` and every missing directory on the way (0o755); each one already there
/// must be a real directory. Newly made directories are remembered for the final fsync.
fn ensure_dirs(root: &Path, rel: &Path, made: &mut Vec<PathBuf>) -> Result<(), ArtifactError> {
    let mut p = root.to_path_buf();
    for c in rel.components() {
        p.push(c);
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_dir() => {}
            Ok(_) => {
                return Err(ArtifactError::Malformed {
                    path: rel.to_path_buf(),
                    reason: format!(
                        "{} is already an entry that is not a directory",
                        p.strip_prefix(root).unwrap_or(&p).display()
                    ),
                });
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                fs::create_dir(&p)
                    .and_then(|()| fs::set_permissions(&p, fs::Permissions::from_mode(MODE_EXEC)))
                    .map_err(|source| ArtifactError::Io {
                        path: p.clone(),
                        source,
                    })?;
                made.push(p.clone());
            }
            Err(source) => return Err(ArtifactError::Io { path: p, source }),
        }
    }
    Ok(())
}

/// The kind name of an entry type an artifact cannot hold.
fn unsupported_kind(t: tar::EntryType) -> String {
    match t {
        tar::EntryType::Link => "hard link".to_string(),
        tar::EntryType::Char => "character device".to_string(),
        tar::EntryType::Block => "block device".to_string(),
        tar::EntryType::Fifo => "fifo".to_string(),
        tar::EntryType::GNUSparse => "sparse file".to_string(),
        tar::EntryType::XGlobalHeader => "pax global header".to_string(),
        other => format!("tar entry of type {:?}", char::from(other.as_byte())),
    }
}

/// Extracts the tar into the fresh directory `root`.
fn extract(r: impl Read, root: &Path) -> Result<(), ArtifactError> {
    let mut archive = tar::Archive::new(r);
    let entries = archive
        .entries()
        .map_err(|source| ArtifactError::Corrupt { source })?;
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut links: HashSet<PathBuf> = HashSet::new();
    let mut pending: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut made: Vec<PathBuf> = Vec::new();

    for entry in entries {
        let mut entry = entry.map_err(|source| ArtifactError::Corrupt { source })?;
        let rel = safe_rel(&entry.path_bytes())?;
        let kind = entry.header().entry_type();

        if let Some(link) = rel.ancestors().skip(1).find(|a| links.contains(*a)) {
            return Err(ArtifactError::ThroughLink {
                path: rel.clone(),
                link: link.to_path_buf(),
            });
        }
        if rel.as_os_str().is_empty() {
            if kind.is_dir() {
                continue;
            }
            return Err(ArtifactError::Malformed {
                path: PathBuf::from(OsStr::from_bytes(&entry.path_bytes())),
                reason: "a non-directory entry names the artifact root".to_string(),
            });
        }
        if !seen.insert(rel.clone()) {
            return Err(ArtifactError::Malformed {
                path: rel,
                reason: "the entry appears twice".to_string(),
            });
        }
        let parent = rel.parent().unwrap_or(Path::new(""));

        match kind {
            tar::EntryType::Directory => ensure_dirs(root, &rel, &mut made)?,
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                ensure_dirs(root, parent, &mut made)?;
                let mode = match entry.header().mode() {
                    Ok(m) if m & 0o111 != 0 => MODE_EXEC,
                    Ok(_) => MODE_FILE,
                    Err(source) => return Err(ArtifactError::Corrupt { source }),
                };
                let full = root.join(&rel);
                let io_err = |source| ArtifactError::Io {
                    path: full.clone(),
                    source,
                };
                let mut f = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(MODE_FILE)
                    .open(&full)
                    .map_err(|e| {
                        if e.kind() == io::ErrorKind::AlreadyExists {
                            ArtifactError::Malformed {
                                path: rel.clone(),
                                reason: "it is already a directory of the artifact".to_string(),
                            }
                        } else {
                            io_err(e)
                        }
                    })?;
                copy_split(&mut entry, &mut f, |_| {}).map_err(|e| match e {
                    CopyError::Read(source) => ArtifactError::Corrupt { source },
                    CopyError::Write(source) => io_err(source),
                })?;
                f.set_permissions(fs::Permissions::from_mode(mode))
                    .and_then(|()| f.sync_all())
                    .map_err(io_err)?;
            }
            tar::EntryType::Symlink => {
                let target = match entry.link_name_bytes() {
                    Some(t) if !t.is_empty() => PathBuf::from(OsStr::from_bytes(&t)),
                    _ => {
                        return Err(ArtifactError::Malformed {
                            path: rel,
                            reason: "a symlink without a target".to_string(),
                        });
                    }
                };
                if !link_lexically_inside(parent.components().count(), &target) {
                    return Err(ArtifactError::LinkOutOfTree { path: rel, target });
                }
                ensure_dirs(root, parent, &mut made)?;
                if fs::symlink_metadata(root.join(&rel)).is_ok() {
                    return Err(ArtifactError::Malformed {
                        path: rel,
                        reason: "it is already a directory of the artifact".to_string(),
                    });
                }
                links.insert(rel.clone());
                pending.push((rel, target));
            }
            other => {
                return Err(ArtifactError::Unsupported {
                    path: rel,
                    kind: unsupported_kind(other),
                });
            }
        }
    }

    // Links last: the tree they point into is complete, and no file was written through one.
    for (rel, target) in pending {
        let parent: Vec<&OsStr> = rel
            .parent()
            .map(|p| p.components().map(|c| c.as_os_str()).collect())
            .unwrap_or_default();
        if !is_real_dir_chain(root, &parent) {
            return Err(ArtifactError::Malformed {
                path: rel,
                reason: "its parent is not a directory of the artifact".to_string(),
            });
        }
        if !link_stays_inside(root, &parent, &target) {
            return Err(ArtifactError::LinkOutOfTree { path: rel, target });
        }
        let full = root.join(&rel);
        std::os::unix::fs::symlink(&target, &full)
            .map_err(|source| ArtifactError::Io { path: full, source })?;
    }

    fs::set_permissions(root, fs::Permissions::from_mode(MODE_EXEC)).map_err(|source| {
        ArtifactError::Io {
            path: root.to_path_buf(),
            source,
        }
    })?;
    for dir in made.iter().rev() {
        sync_dir(dir)?;
    }
    sync_dir(root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn write(path: &Path, data: &[u8], mode: u32) {
        if let Some(p) = path.parent() {
            fs::create_dir_all(p).unwrap();
        }
        fs::write(path, data).unwrap();
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }

    /// A small tree with files, an executable, a nested and an empty directory and a link.
    fn sample(root: &Path, file_mode: u32, exec_mode: u32) {
        fs::create_dir_all(root.join("empty")).unwrap();
        write(&root.join("lib/data.txt"), b"hello\n", file_mode);
        write(&root.join("bin/tool"), b"#!/bin/sh\necho hi\n", exec_mode);
        write(&root.join("a.b"), b"dot", file_mode);
        write(&root.join("z"), b"", file_mode);
        symlink("../lib/data.txt", root.join("bin/data")).unwrap();
    }

    fn pack_vec(dir: &Path) -> (Digest, u64, Vec<u8>) {
        let mut out = Vec::new();
        let (d, n) = pack(dir, &mut out).unwrap();
        assert_eq!(n, out.len() as u64);
        assert_eq!(d, blake3::hash(&out).to_hex().to_string());
        (d, n, out)
    }

    fn mode_of(p: &Path) -> u32 {
        fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn same_tree_same_bytes_whatever_mtimes_and_modes() {
        let t = tempfile::tempdir().unwrap();
        let a = t.path().join("a");
        sample(&a, 0o644, 0o755);
        let (d1, _, b1) = pack_vec(&a);
        let (d2, _, b2) = pack_vec(&a);
        assert_eq!(d1, d2);
        assert_eq!(b1, b2);

        let b = t.path().join("b");
        sample(&b, 0o600, 0o700);
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        for f in ["lib/data.txt", "bin/tool", "a.b", "z"] {
            File::options()
                .write(true)
                .open(b.join(f))
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        fs::set_permissions(b.join("empty"), fs::Permissions::from_mode(0o700)).unwrap();
        let (d3, _, b3) = pack_vec(&b);
        assert_eq!(d1, d3);
        assert_eq!(b1, b3);
    }

    #[test]
    fn entries_are_sorted_and_normalised() {
        let t = tempfile::tempdir().unwrap();
        sample(t.path(), 0o600, 0o700);
        let (_, _, bytes) = pack_vec(t.path());
        let mut ar = tar::Archive::new(&bytes[..]);
        let mut names = Vec::new();
        for e in ar.entries().unwrap() {
            let e = e.unwrap();
            let h = e.header();
            assert_eq!(h.mtime().unwrap(), 0);
            assert_eq!(h.uid().unwrap(), 0);
            assert_eq!(h.gid().unwrap(), 0);
            assert_eq!(h.username_bytes().unwrap_or_default(), b"");
            assert_eq!(h.groupname_bytes().unwrap_or_default(), b"");
            names.push(String::from_utf8(e.path_bytes().to_vec()).unwrap());
        }
        assert_eq!(
            names,
            [
                "a.b",
                "bin/",
                "bin/data",
                "bin/tool",
                "empty/",
                "lib/",
                "lib/data.txt",
                "z"
            ]
        );
    }

    #[test]
    fn one_byte_changes_the_digest() {
        let t = tempfile::tempdir().unwrap();
        sample(t.path(), 0o644, 0o755);
        let (d1, _, _) = pack_vec(t.path());
        write(&t.path().join("lib/data.txt"), b"hellO\n", 0o644);
        let (d2, _, _) = pack_vec(t.path());
        assert_ne!(d1, d2);
    }

    #[test]
    fn exec_bit_survives_and_modes_are_normalised() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        sample(&src, 0o600, 0o700);
        let (_, _, bytes) = pack_vec(&src);
        let dest = t.path().join("dest");
        unpack(&bytes[..], &dest).unwrap();
        assert_eq!(mode_of(&dest.join("bin/tool")), 0o755);
        assert_eq!(mode_of(&dest.join("lib/data.txt")), 0o644);
        assert_eq!(mode_of(&dest.join("empty")), 0o755);
        assert_eq!(mode_of(&dest), 0o755);
        assert_eq!(
            fs::read(dest.join("bin/tool")).unwrap(),
            b"#!/bin/sh\necho hi\n"
        );
        // And the unpacked tree packs to the same digest.
        assert_eq!(pack_vec(&src).0, pack_vec(&dest).0);
    }

    #[test]
    fn inside_symlinks_round_trip() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        sample(&src, 0o644, 0o755);
        symlink(".", src.join("self")).unwrap();
        symlink("lib", src.join("lib2")).unwrap();
        let (_, _, bytes) = pack_vec(&src);
        let dest = t.path().join("dest");
        unpack(&bytes[..], &dest).unwrap();
        assert_eq!(
            fs::read_link(dest.join("bin/data")).unwrap(),
            Path::new("../lib/data.txt")
        );
        assert_eq!(fs::read(dest.join("bin/data")).unwrap(), b"hello\n");
        assert_eq!(fs::read_link(dest.join("self")).unwrap(), Path::new("."));
        assert_eq!(fs::read(dest.join("lib2/data.txt")).unwrap(), b"hello\n");
    }

    #[test]
    fn out_of_tree_symlinks_refused_on_pack() {
        for (at, target) in [
            ("l", "/etc/passwd"),
            ("l", "../../x"),
            ("sub/l", "../../x"),
            ("l", ".."),
            ("sub/l", "../sub/../../x"),
        ] {
            let t = tempfile::tempdir().unwrap();
            fs::create_dir(t.path().join("sub")).unwrap();
            symlink(target, t.path().join(at)).unwrap();
            let err = pack(t.path(), &mut Vec::new()).unwrap_err();
            assert!(
                matches!(err, ArtifactError::LinkOutOfTree { .. }),
                "{at} -> {target}: {err}"
            );
        }
        // Chained links: each looks inside lexically, together they name the parent.
        let t = tempfile::tempdir().unwrap();
        symlink(".", t.path().join("s")).unwrap();
        symlink("s/..", t.path().join("t")).unwrap();
        let err = pack(t.path(), &mut Vec::new()).unwrap_err();
        assert!(matches!(err, ArtifactError::LinkOutOfTree { .. }), "{err}");
    }

    #[test]
    fn special_files_refused_on_pack() {
        let t = tempfile::tempdir().unwrap();
        let _sock = std::os::unix::net::UnixListener::bind(t.path().join("sock")).unwrap();
        let err = pack(t.path(), &mut Vec::new()).unwrap_err();
        assert!(
            matches!(&err, ArtifactError::Unsupported { kind, .. } if kind == "socket"),
            "{err}"
        );
    }

    #[test]
    fn empty_dir_round_trips() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        fs::create_dir(&src).unwrap();
        let (_, _, bytes) = pack_vec(&src);
        let dest = t.path().join("dest");
        unpack(&bytes[..], &dest).unwrap();
        assert!(dest.is_dir());
        assert_eq!(fs::read_dir(&dest).unwrap().count(), 0);
    }

    #[test]
    fn long_paths_round_trip() {
        let t = tempfile::tempdir().unwrap();
        let src = t.path().join("src");
        let long_dir = "d".repeat(60);
        let rel = format!("{long_dir}/{long_dir}/{}.txt", "f".repeat(90));
        assert!(rel.len() > 100);
        write(&src.join(&rel), b"long", 0o644);
        let link_target = format!("{long_dir}/{long_dir}/{}.txt", "f".repeat(90));
        symlink(&link_target, src.join("link")).unwrap();
        let (_, _, bytes) = pack_vec(&src);
        let dest = t.path().join("dest");
        unpack(&bytes[..], &dest).unwrap();
        assert_eq!(fs::read(dest.join(&rel)).unwrap(), b"long");
        assert_eq!(fs::read(dest.join("link")).unwrap(), b"long");
        assert_eq!(pack_vec(&dest).0, pack_vec(&src).0);
    }

    /// Appends an entry with raw name and link name bytes (bypassing the tar crate's checks).
    fn raw(
        b: &mut tar::Builder<Vec<u8>>,
        name: &[u8],
        kind: tar::EntryType,
        link: &[u8],
        data: &[u8],
    ) {
        let mut h = tar::Header::new_gnu();
        {
            let gnu = h.as_gnu_mut().unwrap();
            gnu.name[..name.len()].copy_from_slice(name);
            gnu.linkname[..link.len()].copy_from_slice(link);
        }
        h.set_entry_type(kind);
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_uid(0);
        h.set_gid(0);
        h.set_cksum();
        b.append(&h, data).unwrap();
    }

    /// Runs `unpack` on a malicious tar and checks that it was refused with nothing left.
    fn refused(bytes: &[u8], check: impl Fn(&ArtifactError) -> bool) {
        let t = tempfile::tempdir().unwrap();
        let work = t.path().join("work");
        fs::create_dir(&work).unwrap();
        let dest = work.join("dest");
        let err = unpack(bytes, &dest).unwrap_err();
        assert!(check(&err), "unexpected error: {err}");
        assert!(!dest.exists(), "dest left behind");
        assert_eq!(fs::read_dir(&work).unwrap().count(), 0, "temp left behind");
        assert_eq!(
            fs::read_dir(t.path()).unwrap().count(),
            1,
            "written outside"
        );
    }

    /// A tar with an honest file first, then `f` adds the malicious part.
    fn evil(f: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        raw(&mut b, b"ok.txt", tar::EntryType::Regular, b"", b"fine");
        f(&mut b);
        b.into_inner().unwrap()
    }

    #[test]
    fn unpack_refuses_malicious_paths() {
        let unsafe_path = |e: &ArtifactError| matches!(e, ArtifactError::UnsafePath { .. });
        for name in [&b"../evil"[..], b"a/../../evil", b"./../evil", b"a/.."] {
            let bytes = evil(|b| raw(b, name, tar::EntryType::Regular, b"", b"x"));
            refused(&bytes, unsafe_path);
        }

        let outside = tempfile::tempdir().unwrap();
        let sentinel = outside.path().join("abs-sentinel");
        let bytes = evil(|b| {
            raw(
                b,
                sentinel.as_os_str().as_bytes(),
                tar::EntryType::Regular,
                b"",
                b"x",
            )
        });
        refused(&bytes, unsafe_path);
        assert!(!sentinel.exists());

        // A `..` hidden in a GNU long name.
        let bytes = evil(|b| {
            let long = format!("{}/../../../evil", "x".repeat(120));
            raw(
                b,
                b"././@LongLink",
                tar::EntryType::GNULongName,
                b"",
                long.as_bytes(),
            );
            raw(b, b"placeholder", tar::EntryType::Regular, b"", b"x");
        });
        refused(&bytes, unsafe_path);
    }

    #[test]
    fn unpack_refuses_writing_through_links() {
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().as_os_str().as_bytes().to_vec();
        let bytes = evil(|b| {
            raw(b, b"l", tar::EntryType::Symlink, &target, b"");
            raw(b, b"l/x", tar::EntryType::Regular, b"", b"pwned");
        });
        refused(&bytes, |e| matches!(e, ArtifactError::LinkOutOfTree { .. }));
        assert!(!outside.path().join("x").exists());
        let bytes = evil(|b| raw(b, b"l", tar::EntryType::Symlink, b"/tmp", b""));
        refused(&bytes, |e| matches!(e, ArtifactError::LinkOutOfTree { .. }));
        let bytes = evil(|b| raw(b, b"l", tar::EntryType::Symlink, b"../../outside", b""));
        refused(&bytes, |e| matches!(e, ArtifactError::LinkOutOfTree { .. }));

        // An inside link is still no way in for later entries.
        let bytes = evil(|b| {
            raw(b, b"sub/", tar::EntryType::Directory, b"", b"");
            raw(b, b"l", tar::EntryType::Symlink, b"sub", b"");
            raw(b, b"l/x", tar::EntryType::Regular, b"", b"x");
        });
        refused(&bytes, |e| matches!(e, ArtifactError::ThroughLink { .. }));

        // Chained links leaving the tree.
        let bytes = evil(|b| {
            raw(b, b"s", tar::EntryType::Symlink, b".", b"");
            raw(b, b"t", tar::EntryType::Symlink, b"s/..", b"");
        });
        refused(&bytes, |e| matches!(e, ArtifactError::LinkOutOfTree { .. }));

        // A link replacing a directory already written.
        let bytes = evil(|b| {
            raw(b, b"d/x", tar::EntryType::Regular, b"", b"x");
            raw(b, b"d", tar::EntryType::Symlink, b".", b"");
        });
        refused(&bytes, |e| matches!(e, ArtifactError::Malformed { .. }));
    }

    #[test]
    fn unpack_refuses_special_entries_and_junk() {
        let unsupported = |e: &ArtifactError| matches!(e, ArtifactError::Unsupported { .. });
        let bytes = evil(|b| raw(b, b"h", tar::EntryType::Link, b"ok.txt", b""));
        refused(&bytes, unsupported);
        let bytes = evil(|b| raw(b, b"h", tar::EntryType::Link, b"/etc/passwd", b""));
        refused(&bytes, unsupported);
        let bytes = evil(|b| raw(b, b"dev", tar::EntryType::Char, b"", b""));
        refused(&bytes, unsupported);
        let bytes = evil(|b| raw(b, b"blk", tar::EntryType::Block, b"", b""));
        refused(&bytes, unsupported);
        let bytes = evil(|b| raw(b, b"fifo", tar::EntryType::Fifo, b"", b""));
        refused(&bytes, unsupported);
        let bytes = evil(|b| raw(b, b"ok.txt", tar::EntryType::Regular, b"", b"again"));
        refused(&bytes, |e| matches!(e, ArtifactError::Malformed { .. }));

        // Truncated and garbage input.
        let good = evil(|_| {});
        refused(&good[..700], |e| matches!(e, ArtifactError::Corrupt { .. }));
        refused(&[0xffu8; 1024], |e| {
            matches!(e, ArtifactError::Corrupt { .. })
        });
    }

    #[test]
    fn unpack_refuses_existing_dest() {
        let t = tempfile::tempdir().unwrap();
        let bytes = evil(|_| {});
        let err = unpack(&bytes[..], t.path()).unwrap_err();
        assert!(matches!(err, ArtifactError::DestExists { .. }), "{err}");
    }

    #[test]
    fn put_verified_checks_the_digest() {
        let t = tempfile::tempdir().unwrap();
        let store = ArtifactStore::new(t.path().join("artifacts"));
        let data = b"some artifact bytes";
        let wrong = blake3::hash(b"other").to_hex().to_string();
        let err = store.put_verified(&wrong, &mut &data[..]).unwrap_err();
        assert!(matches!(err, ArtifactError::DigestMismatch { .. }), "{err}");
        assert_eq!(fs::read_dir(t.path().join("artifacts")).unwrap().count(), 0);
        assert!(!store.contains(&wrong));

        let err = store.put_verified("../x", &mut &data[..]).unwrap_err();
        assert!(matches!(err, ArtifactError::InvalidDigest { .. }), "{err}");

        let right = blake3::hash(data).to_hex().to_string();
        assert_eq!(
            store.put_verified(&right, &mut &data[..]).unwrap(),
            data.len() as u64
        );
        assert!(store.contains(&right));
        assert_eq!(fs::read(store.path(&right)).unwrap(), data);
        assert_eq!(store.list().unwrap(), [right]);
    }

    #[test]
    fn identical_trees_share_one_file() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        sample(&a, 0o644, 0o755);
        sample(&b, 0o600, 0o700);
        let store = ArtifactStore::new(t.path().join("artifacts"));
        let (d1, n1) = store.put_dir(&a).unwrap();
        let (d2, n2) = store.put_dir(&b).unwrap();
        assert_eq!((&d1, n1), (&d2, n2));
        assert_eq!(fs::read_dir(t.path().join("artifacts")).unwrap().count(), 1);
        assert_eq!(fs::metadata(store.path(&d1)).unwrap().len(), n1);

        // What the store holds unpacks to the tree.
        let dest = t.path().join("dest");
        unpack(File::open(store.path(&d1)).unwrap(), &dest).unwrap();
        assert_eq!(fs::read(dest.join("lib/data.txt")).unwrap(), b"hello\n");
    }

    #[test]
    fn list_ignores_temp_and_other_files() {
        let t = tempfile::tempdir().unwrap();
        let store = ArtifactStore::new(t.path());
        assert!(store.list().unwrap().is_empty());
        let (d, _) = {
            let src = tempfile::tempdir().unwrap();
            sample(src.path(), 0o644, 0o755);
            store.put_dir(src.path()).unwrap()
        };
        let _tmp = tempfile::NamedTempFile::new_in(t.path()).unwrap();
        fs::write(t.path().join("notadigest"), b"").unwrap();
        fs::write(t.path().join(d.to_uppercase()), b"").unwrap();
        fs::create_dir(t.path().join("a".repeat(64))).unwrap();
        assert_eq!(store.list().unwrap(), [d]);
        assert!(
            ArtifactStore::new(t.path().join("missing"))
                .list()
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn digest_validation() {
        assert!(is_digest(&"0a".repeat(32)));
        assert!(!is_digest(&"0A".repeat(32)));
        assert!(!is_digest(&"0a".repeat(31)));
        assert!(!is_digest(&"g".repeat(64)));
        assert!(!is_digest(""));
        assert!(!is_digest(&format!("../{}", "a".repeat(61))));
    }
}
