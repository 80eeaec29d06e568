//! What a build wrote into its export: an export is read-only, but a build running as root (or
//! one that gives itself write permission) can still change it, and every later build of the
//! commit — and, through the tree diff that makes the next commit's export from this one, of
//! every later commit — would build from a tree that is not its commit's.
//!
//! After each build, every entry of the export is stat'ed (no content is read): the entries whose
//! change time (ctime, which no process can set back) is at or after the build's start are
//! compared with the commit's tree, and what differs is put back from git objects. Content is
//! read only for those entries, so the check costs a walk of the export's metadata.

use super::{Opened, SourceError, io_error, local_path, make_read_only, remove_path, write_entry};
use crate::source::RepoSnapshot;
use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::objs::tree::EntryKind;
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// One way an export differed from its commit's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The path inside the export (the repository's path).
    pub path: String,
    /// `changed` (content, kind or mode), `added` (not in the commit) or `removed`.
    pub what: &'static str,
}

impl std::fmt::Display for Written {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.what, self.path)
    }
}

/// Finds what changed in the export at `root` at or after `since` (by ctime), compares it with
/// the snapshot's tree, and restores what differs. Returns what differed (empty: the export
/// is its commit's tree).
pub(crate) fn restore_written(
    snap: &RepoSnapshot,
    root: &Path,
    since: SystemTime,
) -> Result<Vec<Written>, SourceError> {
    let io = |what: String, e: std::io::Error| io_error(snap, what, e);
    let since = since
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    let mut suspects = Vec::new();
    let top =
        fs::symlink_metadata(root).map_err(|e| io(format!("cannot read {}", root.display()), e))?;
    if ctime(&top) >= since {
        suspects.push(Vec::new());
    }
    suspects.extend(
        walk(root, since)
            .map_err(|e| io(format!("cannot read the export {}", root.display()), e))?,
    );
    suspects.sort();
    let mut found = Vec::new();
    let mut fixes = Vec::new();
    for rel in &suspects {
        compare(snap, root, rel, &mut found, &mut fixes)?;
    }
    if !fixes.is_empty() {
        restore(snap, root, &fixes)?;
    }
    found.sort_by(|a: &Written, b| a.path.cmp(&b.path));
    found.dedup();
    Ok(found)
}

/// An entry's change time in nanoseconds since the epoch.
fn ctime(m: &fs::Metadata) -> i128 {
    i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec())
}

/// The paths (relative, `/`-separated bytes) under `root` changed at or after `since`: one
/// stat per entry, through its directory's handle, on as many threads as there are cores (the
/// walk is all system calls; directories are shared out as they are found).
fn walk(root: &Path, since: i128) -> std::io::Result<Vec<Vec<u8>>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    // Directories to read, and how many are queued or being read: none left and none being
    // read is the end.
    let queue = Mutex::new(vec![(root.to_path_buf(), Vec::new())]);
    let open = AtomicUsize::new(1);
    let found = Mutex::new(Vec::new());
    let failed = Mutex::new(None);
    fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        m.lock().unwrap_or_else(|p| p.into_inner())
    }
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let next = lock(&queue).pop();
                    let Some((dir, rel)) = next else {
                        if open.load(Ordering::Acquire) == 0 {
                            return;
                        }
                        std::thread::yield_now();
                        continue;
                    };
                    let mut mine = Vec::new();
                    let mut subdirs = Vec::new();
                    if let Err(e) = read_one(&dir, &rel, since, &mut mine, &mut subdirs) {
                        lock(&failed).get_or_insert(e);
                    }
                    open.fetch_add(subdirs.len(), Ordering::AcqRel);
                    lock(&queue).extend(subdirs);
                    lock(&found).extend(mine);
                    open.fetch_sub(1, Ordering::AcqRel);
                }
            });
        }
    });
    match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(found.into_inner().unwrap_or_else(|p| p.into_inner())),
    }
}

/// Reads one directory of the walk: its entries changed at or after `since` go to `out`, its
/// sub-directories to `subdirs`.
fn read_one(
    dir: &Path,
    rel: &[u8],
    since: i128,
    out: &mut Vec<Vec<u8>>,
    subdirs: &mut Vec<(std::path::PathBuf, Vec<u8>)>,
) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let m = entry.metadata()?;
        let path = join(rel, entry.file_name().as_bytes());
        if ctime(&m) >= since {
            out.push(path.clone());
        }
        if m.is_dir() {
            subdirs.push((entry.path(), path));
        }
    }
    Ok(())
}

/// What restores one path: remove what is there, then write what the tree holds (if it holds
/// anything), or only make a directory read-only again.
enum Fix {
    Replace(Vec<u8>, Option<(EntryKind, ObjectId)>),
    ReadOnly(Vec<u8>),
}

/// Compares the export's entry at `rel` with the tree's, noting what differs and how to fix it.
fn compare(
    snap: &RepoSnapshot,
    root: &Path,
    rel: &[u8],
    found: &mut Vec<Written>,
    fixes: &mut Vec<Fix>,
) -> Result<(), SourceError> {
    let git = |what: &str, e: &dyn std::fmt::Display| SourceError::git(&snap.name, what, e);
    let shown = || String::from_utf8_lossy(rel).into_owned();
    let Some(path) = (if rel.is_empty() {
        Some(root.to_path_buf())
    } else {
        local_path(root, rel)
    }) else {
        return Ok(());
    };
    let Ok(meta) = fs::symlink_metadata(&path) else {
        return Ok(()); // gone since the walk: its directory says so
    };
    let want = if rel.is_empty() {
        Some((EntryKind::Tree, snap.tree))
    } else {
        let tree = snap
            .repo
            .find_tree(snap.tree)
            .map_err(|e| git("cannot read the commit's tree", &e))?;
        tree.lookup_entry(rel.split_str("/"))
            .map_err(|e| git("cannot read the commit's tree", &e))?
            .map(|e| (e.mode().kind(), e.object_id()))
    };
    let Some((kind, id)) = want else {
        found.push(Written {
            path: shown(),
            what: "added",
        });
        fixes.push(Fix::Replace(rel.to_vec(), None));
        return Ok(());
    };
    let same = match kind {
        EntryKind::Tree | EntryKind::Commit if meta.is_dir() => {
            return compare_dir(snap, (&path, rel), &meta, (kind, id), found, fixes);
        }
        EntryKind::Tree | EntryKind::Commit => false,
        EntryKind::Blob | EntryKind::BlobExecutable => {
            // Read-only, executable as git says (the umask may have taken other bits).
            let mode = meta.permissions().mode();
            meta.is_file()
                && mode & 0o222 == 0
                && (mode & 0o100 != 0) == (kind == EntryKind::BlobExecutable)
                && fs::read(&path).is_ok_and(|bytes| blob_is(snap, id, &bytes))
        }
        EntryKind::Link => {
            meta.file_type().is_symlink()
                && fs::read_link(&path).is_ok_and(|t| blob_is(snap, id, t.as_os_str().as_bytes()))
        }
    };
    if !same {
        found.push(Written {
            path: shown(),
            what: "changed",
        });
        fixes.push(Fix::Replace(rel.to_vec(), Some((kind, id))));
    }
    Ok(())
}

/// Compares a directory of the export with the tree (or submodule) it stands for: entries
/// added or removed, and whether it is still read-only.
fn compare_dir(
    snap: &RepoSnapshot,
    (path, rel): (&Path, &[u8]),
    meta: &fs::Metadata,
    (kind, id): (EntryKind, ObjectId),
    found: &mut Vec<Written>,
    fixes: &mut Vec<Fix>,
) -> Result<(), SourceError> {
    let names = if kind == EntryKind::Tree {
        tree_names(snap, id)?
    } else {
        BTreeSet::new()
    };
    let here: BTreeSet<Vec<u8>> = fs::read_dir(path)
        .map_err(|e| io_error(snap, format!("cannot read {}", path.display()), e))?
        .flatten()
        .map(|e| e.file_name().as_bytes().to_vec())
        .collect();
    for name in here.difference(&names) {
        let child = join(rel, name);
        found.push(Written {
            path: String::from_utf8_lossy(&child).into_owned(),
            what: "added",
        });
        fixes.push(Fix::Replace(child, None));
    }
    for name in names.difference(&here) {
        let child = join(rel, name);
        let entry = child_entry(snap, id, name)?;
        found.push(Written {
            path: String::from_utf8_lossy(&child).into_owned(),
            what: "removed",
        });
        fixes.push(Fix::Replace(child, entry));
    }
    if meta.permissions().mode() & 0o222 != 0 {
        found.push(Written {
            path: if rel.is_empty() {
                ".".into()
            } else {
                String::from_utf8_lossy(rel).into_owned()
            },
            what: "changed",
        });
        fixes.push(Fix::ReadOnly(rel.to_vec()));
    }
    Ok(())
}

/// `rel/name` (or `name` at the top).
fn join(rel: &[u8], name: &[u8]) -> Vec<u8> {
    let mut p = rel.to_vec();
    if !p.is_empty() {
        p.push(b'/');
    }
    p.extend_from_slice(name);
    p
}

/// The names a tree holds that an export writes (never `.git`, `.`, `..`).
fn tree_names(snap: &RepoSnapshot, id: ObjectId) -> Result<BTreeSet<Vec<u8>>, SourceError> {
    let git = |e: &dyn std::fmt::Display| SourceError::git(&snap.name, "cannot read a tree", e);
    let tree = snap.repo.find_tree(id).map_err(|e| git(&e))?;
    let mut names = BTreeSet::new();
    for entry in tree.iter() {
        let entry = entry.map_err(|e| git(&e))?;
        let name: &[u8] = entry.filename().as_ref();
        if name != b"." && name != b".." && name != b".git" && !name.contains(&b'/') {
            names.insert(name.to_vec());
        }
    }
    Ok(names)
}

/// The kind and object of entry `name` of tree `id`.
fn child_entry(
    snap: &RepoSnapshot,
    id: ObjectId,
    name: &[u8],
) -> Result<Option<(EntryKind, ObjectId)>, SourceError> {
    let git = |e: &dyn std::fmt::Display| SourceError::git(&snap.name, "cannot read a tree", e);
    let tree = snap.repo.find_tree(id).map_err(|e| git(&e))?;
    for entry in tree.iter() {
        let entry = entry.map_err(|e| git(&e))?;
        let here: &[u8] = entry.filename().as_ref();
        if here == name {
            return Ok(Some((entry.mode().kind(), entry.object_id())));
        }
    }
    Ok(None)
}

/// Whether blob `id` holds exactly `bytes`.
fn blob_is(snap: &RepoSnapshot, id: ObjectId, bytes: &[u8]) -> bool {
    snap.repo.find_blob(id).is_ok_and(|b| b.data == bytes)
}

/// Applies the fixes: what is there goes, what the tree holds is written (a directory with its
/// whole sub-tree), and every directory opened is made read-only again.
fn restore(snap: &RepoSnapshot, root: &Path, fixes: &[Fix]) -> Result<(), SourceError> {
    let io = |what: String, e: std::io::Error| io_error(snap, what, e);
    let mut opened = Opened::default();
    for fix in fixes {
        match fix {
            Fix::ReadOnly(rel) => {
                let p = if rel.is_empty() {
                    Some(root.to_path_buf())
                } else {
                    local_path(root, rel)
                };
                if let Some(p) = p {
                    opened.dirs.push(p);
                }
            }
            Fix::Replace(rel, want) => {
                let Some(p) = local_path(root, rel) else {
                    continue;
                };
                opened
                    .parent_of(root, &p)
                    .map_err(|e| io(format!("cannot open {} for writing", p.display()), e))?;
                remove_path(&p).map_err(|e| io(format!("cannot remove {}", p.display()), e))?;
                let Some((kind, id)) = *want else { continue };
                let shown = String::from_utf8_lossy(rel).into_owned();
                write_entry(snap, kind, id, &p, &shown)?;
                if kind == EntryKind::Tree {
                    super::write_tree(snap, id, &p, &shown)?;
                }
                if matches!(kind, EntryKind::Tree | EntryKind::Commit) {
                    make_read_only(&p)
                        .map_err(|e| io(format!("cannot make {} read-only", p.display()), e))?;
                }
            }
        }
    }
    for d in opened.dirs.iter().rev() {
        fs::set_permissions(d, fs::Permissions::from_mode(0o555))
            .map_err(|e| io(format!("cannot make {} read-only", d.display()), e))?;
    }
    Ok(())
}
