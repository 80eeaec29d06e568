//! Packing a build's `$MESH_OUT` into a deterministic tar.

use super::{ArtifactError, Digest, Exact, MODE_EXEC, MODE_FILE, MODE_LINK, link_stays_inside};
use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};

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
    Ok((Digest::of(w.hasher.finalize()), w.len))
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
    match node.kind {
        Kind::Dir => append_dir(builder, node, &full),
        Kind::File => append_file(builder, &rel, &full),
        Kind::Symlink => append_symlink(builder, dir, node, &rel, &full),
    }
}

/// An I/O error while appending the entry at `full`: the output's when its write failed,
/// else the file's.
fn io_err<W: Write>(
    builder: &tar::Builder<HashWriter<W>>,
    full: &Path,
    source: io::Error,
) -> ArtifactError {
    if builder.get_ref().write_failed {
        ArtifactError::Write { source }
    } else {
        ArtifactError::Io {
            path: full.to_path_buf(),
            source,
        }
    }
}

/// Appends a directory: its name ends in `/`, as tar's directories do.
fn append_dir<W: Write>(
    builder: &mut tar::Builder<HashWriter<W>>,
    node: &Node,
    full: &Path,
) -> Result<(), ArtifactError> {
    let mut h = fresh_header(tar::EntryType::Directory, 0, MODE_EXEC);
    let mut name = node.key();
    name.push(b'/');
    let name = PathBuf::from(OsStr::from_bytes(&name));
    builder
        .append_data(&mut h, &name, io::empty())
        .map_err(|e| io_err(builder, full, e))
}

/// Appends a regular file with exactly the length it had when opened; refuses one that
/// changed kind, shrank or grew while being packed, since its bytes would not be its digest's.
fn append_file<W: Write>(
    builder: &mut tar::Builder<HashWriter<W>>,
    rel: &Path,
    full: &Path,
) -> Result<(), ArtifactError> {
    let mut f = File::open(full).map_err(|e| io_err(builder, full, e))?;
    let meta = f.metadata().map_err(|e| io_err(builder, full, e))?;
    if !meta.is_file() {
        return Err(ArtifactError::Io {
            path: full.to_path_buf(),
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
        .append_data(&mut h, rel, data)
        .map_err(|e| io_err(builder, full, e))?;
    let mut probe = [0u8; 1];
    match f.read(&mut probe) {
        Ok(0) => Ok(()),
        Ok(_) => Err(ArtifactError::Io {
            path: full.to_path_buf(),
            source: io::Error::other("the file grew while it was being packed"),
        }),
        Err(source) => Err(ArtifactError::Io {
            path: full.to_path_buf(),
            source,
        }),
    }
}

/// Appends a symlink as it is, when its target stays inside `dir`.
fn append_symlink<W: Write>(
    builder: &mut tar::Builder<HashWriter<W>>,
    dir: &Path,
    node: &Node,
    rel: &Path,
    full: &Path,
) -> Result<(), ArtifactError> {
    let target = fs::read_link(full).map_err(|e| io_err(builder, full, e))?;
    let parent: Vec<&OsStr> = node
        .rel
        .iter()
        .take(node.rel.len().saturating_sub(1))
        .map(|c| OsStr::from_bytes(c))
        .collect();
    if !link_stays_inside(dir, &parent, &target) {
        return Err(ArtifactError::LinkOutOfTree {
            path: full.to_path_buf(),
            target,
        });
    }
    let mut h = fresh_header(tar::EntryType::Symlink, 0, MODE_LINK);
    builder
        .append_link(&mut h, rel, &target)
        .map_err(|e| io_err(builder, full, e))
}
