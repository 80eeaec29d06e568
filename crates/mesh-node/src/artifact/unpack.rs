//! Unpacking an untrusted artifact tar on a node, whole or not at all.

use super::{
    ArtifactError, CopyError, MODE_EXEC, MODE_FILE, copy_split, is_real_dir_chain,
    link_lexically_inside, link_stays_inside,
};
use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::{self, OpenOptions};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::durable::sync_dir;

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
    Ok(sync_dir(parent)?)
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
    let mut tree = Extraction::new(root);
    for entry in entries {
        let mut entry = entry.map_err(|source| ArtifactError::Corrupt { source })?;
        tree.entry(&mut entry)?;
    }
    tree.link_pending()?;
    tree.seal()
}

/// An extraction in progress: what was written into `root` and what is still to come.
struct Extraction<'a> {
    /// The fresh directory written into.
    root: &'a Path,
    /// Every entry path met so far: an entry may appear once.
    seen: HashSet<PathBuf>,
    /// The symlinks met: nothing may be written below one.
    links: HashSet<PathBuf>,
    /// (path, target) of each symlink, made once the tree is complete.
    pending: Vec<(PathBuf, PathBuf)>,
    /// The directories made, for the final fsync.
    made: Vec<PathBuf>,
}

impl<'a> Extraction<'a> {
    /// An extraction into the fresh directory `root`, nothing written yet.
    fn new(root: &'a Path) -> Self {
        Extraction {
            root,
            seen: HashSet::new(),
            links: HashSet::new(),
            pending: Vec::new(),
            made: Vec::new(),
        }
    }

    /// Writes one entry (a symlink is only noted): refused when its path is unsafe, lies below
    /// a symlink, is met twice, or its kind is not one an artifact holds.
    fn entry<R: Read>(&mut self, entry: &mut tar::Entry<'_, R>) -> Result<(), ArtifactError> {
        let rel = safe_rel(&entry.path_bytes())?;
        let kind = entry.header().entry_type();
        if !self.admit(&rel, kind, &entry.path_bytes())? {
            return Ok(());
        }
        let parent = rel.parent().unwrap_or(Path::new(""));
        match kind {
            tar::EntryType::Directory => ensure_dirs(self.root, &rel, &mut self.made),
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                ensure_dirs(self.root, parent, &mut self.made)?;
                self.file(entry, &rel)
            }
            tar::EntryType::Symlink => self.symlink(entry, rel),
            other => Err(ArtifactError::Unsupported {
                path: rel,
                kind: unsupported_kind(other),
            }),
        }
    }

    /// Whether the entry at `rel` is to be written: not below a symlink, and met once. The
    /// root is skipped when it is a directory and refused otherwise. `raw` is the entry's path
    /// as written, for that refusal.
    fn admit(
        &mut self,
        rel: &Path,
        kind: tar::EntryType,
        raw: &[u8],
    ) -> Result<bool, ArtifactError> {
        if let Some(link) = rel.ancestors().skip(1).find(|a| self.links.contains(*a)) {
            return Err(ArtifactError::ThroughLink {
                path: rel.to_path_buf(),
                link: link.to_path_buf(),
            });
        }
        if rel.as_os_str().is_empty() {
            if kind.is_dir() {
                return Ok(false);
            }
            return Err(ArtifactError::Malformed {
                path: PathBuf::from(OsStr::from_bytes(raw)),
                reason: "a non-directory entry names the artifact root".to_string(),
            });
        }
        if !self.seen.insert(rel.to_path_buf()) {
            return Err(ArtifactError::Malformed {
                path: rel.to_path_buf(),
                reason: "the entry appears twice".to_string(),
            });
        }
        Ok(true)
    }

    /// Writes a regular file at `rel` (its directory exists): 0o755 when its header has an
    /// executable bit, 0o644 otherwise; fsynced.
    fn file<R: Read>(
        &mut self,
        entry: &mut tar::Entry<'_, R>,
        rel: &Path,
    ) -> Result<(), ArtifactError> {
        let mode = match entry.header().mode() {
            Ok(m) if m & 0o111 != 0 => MODE_EXEC,
            Ok(_) => MODE_FILE,
            Err(source) => return Err(ArtifactError::Corrupt { source }),
        };
        let full = self.root.join(rel);
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
                        path: rel.to_path_buf(),
                        reason: "it is already a directory of the artifact".to_string(),
                    }
                } else {
                    io_err(e)
                }
            })?;
        copy_split(entry, &mut f, |_| {}).map_err(|e| match e {
            CopyError::Read(source) => ArtifactError::Corrupt { source },
            CopyError::Write(source) => io_err(source),
        })?;
        f.set_permissions(fs::Permissions::from_mode(mode))
            .and_then(|()| f.sync_all())
            .map_err(io_err)
    }

    /// Notes a symlink at `rel`, made once the tree is complete: refused without a target,
    /// when its target leaves the tree as written, or when its path is already taken.
    fn symlink<R: Read>(
        &mut self,
        entry: &tar::Entry<'_, R>,
        rel: PathBuf,
    ) -> Result<(), ArtifactError> {
        let target = match entry.link_name_bytes() {
            Some(t) if !t.is_empty() => PathBuf::from(OsStr::from_bytes(&t)),
            _ => {
                return Err(ArtifactError::Malformed {
                    path: rel,
                    reason: "a symlink without a target".to_string(),
                });
            }
        };
        let parent = rel.parent().unwrap_or(Path::new(""));
        if !link_lexically_inside(parent.components().count(), &target) {
            return Err(ArtifactError::LinkOutOfTree { path: rel, target });
        }
        ensure_dirs(self.root, parent, &mut self.made)?;
        if fs::symlink_metadata(self.root.join(&rel)).is_ok() {
            return Err(ArtifactError::Malformed {
                path: rel,
                reason: "it is already a directory of the artifact".to_string(),
            });
        }
        self.links.insert(rel.clone());
        self.pending.push((rel, target));
        Ok(())
    }

    /// Makes the symlinks, last: the tree they point into is complete, and no file was
    /// written through one. Each must stay inside the tree as it now stands.
    fn link_pending(&mut self) -> Result<(), ArtifactError> {
        for (rel, target) in std::mem::take(&mut self.pending) {
            let parent: Vec<&OsStr> = rel
                .parent()
                .map(|p| p.components().map(|c| c.as_os_str()).collect())
                .unwrap_or_default();
            if !is_real_dir_chain(self.root, &parent) {
                return Err(ArtifactError::Malformed {
                    path: rel,
                    reason: "its parent is not a directory of the artifact".to_string(),
                });
            }
            if !link_stays_inside(self.root, &parent, &target) {
                return Err(ArtifactError::LinkOutOfTree { path: rel, target });
            }
            let full = self.root.join(&rel);
            std::os::unix::fs::symlink(&target, &full)
                .map_err(|source| ArtifactError::Io { path: full, source })?;
        }
        Ok(())
    }

    /// Gives the root its mode and fsyncs every directory made, deepest first, then the root.
    fn seal(self) -> Result<(), ArtifactError> {
        let root = self.root;
        fs::set_permissions(root, fs::Permissions::from_mode(MODE_EXEC)).map_err(|source| {
            ArtifactError::Io {
                path: root.to_path_buf(),
                source,
            }
        })?;
        for dir in self.made.iter().rev() {
            sync_dir(dir)?;
        }
        Ok(sync_dir(root)?)
    }
}
