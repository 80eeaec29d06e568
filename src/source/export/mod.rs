//! Exporting a repository's tree at a commit into a plain directory, for builds: made from git
//! objects (never the work tree), one per (repo, commit), shared read-only by every build of
//! that commit.
//!
//! A new commit's export is made from an earlier one that no run is using: that directory is
//! taken over (renamed) and the tree diff between the two commits is applied to it, as
//! `git checkout` does — what changed is written, what went is removed. A one-file commit
//! writes one file; only the first export of a repository writes the whole tree.
//!
//! Beside each export `{repo}-{commit}/` under `exports/` live:
//! - `{repo}-{commit}.ok`, the marker, written last (`COMMIT TREE`): an export without it, or
//!   whose marker names another tree, is never trusted but removed and made again — which is
//!   how a run killed mid-export is repaired;
//! - `{repo}-{commit}.lock`, an flock: shared by each run building in the export, exclusive
//!   while it is made, taken over or removed. So an export in use never changes under a build,
//!   and two runs of two commits never share a mutable file.

use super::{RepoSnapshot, SourceError, join};
use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::objs::tree::EntryKind;
use std::collections::HashSet;
use std::fs::{self, File, TryLockError};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Where the export of `commit` lives under `exports`.
pub(crate) fn export_dir(exports: &Path, repo: &str, commit: &ObjectId) -> PathBuf {
    exports.join(format!("{repo}-{commit}"))
}

/// An export in use: while it lives, no other run takes the directory over or removes it.
pub struct Export {
    path: PathBuf,
    _lease: File,
    /// `{dir}.building-{pid}`, there while this run may build in the export: a run killed
    /// before it checked its builds' writes ([`restore_written`]) leaves it, and the next run
    /// then makes the export again rather than trust it.
    flag: Option<PathBuf>,
}

impl Drop for Export {
    fn drop(&mut self) {
        if let Some(f) = &self.flag {
            let _ = fs::remove_file(f);
        }
    }
}

impl Export {
    /// The export's root directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// How an export came to be, for tests and benches: what its making cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Made {
    /// A trusted export of the commit was there.
    Reused,
    /// An earlier commit's export was updated by the tree diff.
    Updated,
    /// The whole tree was written.
    Written,
}

/// Exports the snapshot's tree under `exports` unless a trusted export is there; returns it,
/// held for the caller's use. Files are read-only: builds write only into `$MESH_OUT`.
pub fn export(snap: &RepoSnapshot, exports: &Path) -> Result<Export, SourceError> {
    export_made(snap, exports).map(|(e, _)| e)
}

/// [`export`], saying how the export was made.
pub(crate) fn export_made(
    snap: &RepoSnapshot,
    exports: &Path,
) -> Result<(Export, Made), SourceError> {
    let io = |what: String, e: std::io::Error| io_error(snap, what, e);
    fs::create_dir_all(exports)
        .map_err(|e| io(format!("cannot create {}", exports.display()), e))?;
    let dest = export_dir(exports, &snap.name, &snap.commit);
    let names = Names::of(&dest);
    let want = marker_text(&snap.commit, &snap.tree);
    let mut made = Made::Reused;
    // A few rounds: another run may take the export over between making and sharing it.
    for _ in 0..8 {
        let lease = lock(&names.lock, true)
            .map_err(|e| io(format!("cannot lock {}", names.lock.display()), e))?;
        if trusted(&names, &want) && !left_by_a_killed_run(&names) {
            let flag = names.flag(std::process::id());
            let flag = fs::write(&flag, b"").is_ok().then_some(flag);
            return Ok((
                Export {
                    path: dest,
                    _lease: lease,
                    flag,
                },
                made,
            ));
        }
        drop(lease);
        let mine = lock(&names.lock, false)
            .map_err(|e| io(format!("cannot lock {}", names.lock.display()), e))?;
        if !trusted(&names, &want) || left_by_a_killed_run(&names) {
            made = make(snap, exports, &names, &want)?;
        }
        drop(mine);
    }
    Err(SourceError {
        repo: snap.name.clone(),
        message: format!(
            "the export at {} kept being taken over by other runs",
            dest.display()
        ),
        help: "another mesh is building this repository at other commits; run the build again"
            .into(),
    })
}

/// The three paths of one export.
struct Names {
    dir: PathBuf,
    marker: PathBuf,
    lock: PathBuf,
}

impl Names {
    /// The flag a run with `pid` leaves while it may build in the export.
    fn flag(&self, pid: u32) -> PathBuf {
        let mut s = self.dir.as_os_str().to_owned();
        s.push(format!(".building-{pid}"));
        PathBuf::from(s)
    }

    /// The flags beside the export: (path, the pid it names).
    fn flags(&self) -> Vec<(PathBuf, Option<i32>)> {
        let (Some(parent), Some(base)) = (self.dir.parent(), self.dir.file_name()) else {
            return Vec::new();
        };
        let prefix = format!("{}.building-", base.to_string_lossy());
        fs::read_dir(parent)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                let pid = name.strip_prefix(&prefix)?.parse::<i32>().ok();
                Some((e.path(), pid))
            })
            .collect()
    }

    fn of(dir: &Path) -> Names {
        let with = |ext: &str| {
            let mut s = dir.as_os_str().to_owned();
            s.push(ext);
            PathBuf::from(s)
        };
        Names {
            dir: dir.to_path_buf(),
            marker: with(".ok"),
            lock: with(".lock"),
        }
    }
}

fn marker_text(commit: &ObjectId, tree: &ObjectId) -> String {
    format!("{commit} {tree}\n")
}

/// Whether a run that may have built in the export ended without checking its builds' writes
/// (killed): its flag is there and its process is not.
fn left_by_a_killed_run(names: &Names) -> bool {
    names
        .flags()
        .iter()
        .any(|(_, pid)| pid.is_none_or(|p| !alive(p)))
}

/// Whether process `pid` runs.
fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only asks whether the process exists; no memory involved.
    pid > 0
        && (unsafe { libc::kill(pid, 0) } == 0
            || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
}

/// Removes the flags of runs that are gone.
fn remove_dead_flags(names: &Names) {
    for (path, pid) in names.flags() {
        if pid.is_none_or(|p| !alive(p)) {
            let _ = fs::remove_file(path);
        }
    }
}

/// Whether the export is whole: its marker was written last and names the expected tree.
fn trusted(names: &Names, want: &str) -> bool {
    fs::read_to_string(&names.marker).is_ok_and(|m| m == want) && names.dir.is_dir()
}

fn io_error(snap: &RepoSnapshot, what: String, e: std::io::Error) -> SourceError {
    SourceError {
        repo: snap.name.clone(),
        message: format!("{what}: {e}"),
        help: "check that the .mesh directory is writable and the disk is not full".into(),
    }
}

/// Makes the export (its lock held exclusively): whatever untrusted directory is there goes;
/// an earlier export no run uses is taken over and updated, else the whole tree is written.
/// The marker is written last.
fn make(
    snap: &RepoSnapshot,
    exports: &Path,
    names: &Names,
    want: &str,
) -> Result<Made, SourceError> {
    let io = |what: String, e: std::io::Error| io_error(snap, what, e);
    remove_dead_flags(names);
    remove_export(names).map_err(|e| {
        io(
            format!(
                "cannot remove the unfinished export {}",
                names.dir.display()
            ),
            e,
        )
    })?;
    let mut made = Made::Written;
    let mut done = false;
    if let Some(from) = take_over(snap, exports, &names.dir) {
        match update(snap, from, &names.dir) {
            Ok(()) => {
                made = Made::Updated;
                done = true;
            }
            // The donor cannot be updated (its tree is gone from the repository, a file is
            // not what it should be): it goes, and the whole tree is written instead.
            Err(_) => remove_tree(&names.dir).map_err(|e| {
                io(
                    format!("cannot remove the export {}", names.dir.display()),
                    e,
                )
            })?,
        }
    }
    if !done {
        fs::create_dir(&names.dir)
            .map_err(|e| io(format!("cannot create {}", names.dir.display()), e))?;
        write_tree(snap, snap.tree, &names.dir, "")?;
        make_read_only(&names.dir).map_err(|e| io("cannot make the export read-only".into(), e))?;
    }
    mesh_node::durable::write_atomic(&names.marker, want.as_bytes()).map_err(|e| {
        io(
            format!("cannot {} {}", e.action, e.path.display()),
            e.source,
        )
    })?;
    Ok(made)
}

/// Takes over the newest trusted export of another commit of the same repository that no run
/// holds: its marker goes first (from then on nothing trusts it), then it is renamed to
/// `dest`. Returns the tree it holds.
fn take_over(snap: &RepoSnapshot, exports: &Path, dest: &Path) -> Option<ObjectId> {
    let prefix = format!("{}-", snap.name);
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = fs::read_dir(exports)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let base = name.to_str()?.strip_suffix(".ok")?;
            let hex = base.strip_prefix(&prefix)?;
            let is_id =
                (hex.len() == 40 || hex.len() == 64) && hex.bytes().all(|b| b.is_ascii_hexdigit());
            let dir = exports.join(base);
            (is_id && dir != dest)
                .then(|| Some((e.metadata().ok()?.modified().ok()?, dir)))
                .flatten()
        })
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (_, dir) in found {
        let names = Names::of(&dir);
        let Ok(Some(held)) = try_lock(&names.lock) else {
            continue; // in use by a run: never touched
        };
        if left_by_a_killed_run(&names) {
            continue; // may hold a write no run checked: not a donor
        }
        let Some(tree) = fs::read_to_string(&names.marker)
            .ok()
            .and_then(|m| parse_marker(&m))
            .filter(|_| names.dir.is_dir())
        else {
            continue;
        };
        if fs::remove_file(&names.marker).is_err() || fs::rename(&names.dir, dest).is_err() {
            continue;
        }
        let _ = fs::remove_file(&names.lock);
        drop(held);
        return Some(tree);
    }
    None
}

/// The tree a marker names.
fn parse_marker(text: &str) -> Option<ObjectId> {
    let (_, tree) = text.trim_end().split_once(' ')?;
    ObjectId::from_hex(tree.as_bytes()).ok()
}

/// The changes from the exported tree `from` to the snapshot's, breadth first.
fn tree_changes(
    snap: &RepoSnapshot,
    from: ObjectId,
) -> Result<Vec<gix::diff::tree::recorder::Change>, SourceError> {
    let git = |what: &str, e: &dyn std::fmt::Display| SourceError::git(&snap.name, what, e);
    let old = snap
        .repo
        .find_tree(from)
        .map_err(|e| git("cannot read the exported tree", &e))?
        .detach();
    let new = snap
        .repo
        .find_tree(snap.tree)
        .map_err(|e| git("cannot read the commit's tree", &e))?
        .detach();
    let kind = snap.repo.object_hash();
    let mut rec = gix::diff::tree::Recorder::default();
    gix::diff::tree(
        gix::objs::TreeRefIter::from_bytes(&old.data, kind),
        gix::objs::TreeRefIter::from_bytes(&new.data, kind),
        gix::diff::tree::State::default(),
        &snap.repo.objects,
        &mut rec,
    )
    .map_err(|e| git("cannot diff the exported tree with the commit's", &e))?;
    Ok(rec.records)
}

/// Turns the export of tree `from` at `root` into the snapshot's tree: the tree diff applied,
/// deletions first, then additions and changes parent before child (the diff is breadth
/// first). Directories it opened are made read-only again at the end.
fn update(snap: &RepoSnapshot, from: ObjectId, root: &Path) -> Result<(), SourceError> {
    use gix::diff::tree::recorder::Change;
    let io = |what: String, e: std::io::Error| io_error(snap, what, e);
    let changes = tree_changes(snap, from)?;

    let mut opened = Opened::default();
    let open_parent = |opened: &mut Opened, path: &Path| -> Result<(), SourceError> {
        opened
            .parent_of(root, path)
            .map_err(|e| io(format!("cannot open {} for writing", path.display()), e))
    };
    // Deletions, and the old side of a change of kind.
    for change in &changes {
        let (path, old_kind, new_kind) = match change {
            Change::Deletion {
                path, entry_mode, ..
            } => (path, entry_mode.kind(), None),
            Change::Modification {
                path,
                previous_entry_mode,
                entry_mode,
                ..
            } => (path, previous_entry_mode.kind(), Some(entry_mode.kind())),
            Change::Addition { .. } => continue,
        };
        if new_kind == Some(EntryKind::Tree) && old_kind == EntryKind::Tree {
            continue; // a directory whose content changed: its entries say what
        }
        let Some(p) = local_path(root, path.as_ref()) else {
            continue;
        };
        open_parent(&mut opened, &p)?;
        remove_path(&p).map_err(|e| io(format!("cannot remove {}", p.display()), e))?;
    }
    // Additions and changes, parents first.
    for change in &changes {
        let (path, kind, oid) = match change {
            Change::Addition {
                path,
                entry_mode,
                oid,
                ..
            } => (path, entry_mode.kind(), *oid),
            Change::Modification {
                path,
                previous_entry_mode,
                entry_mode,
                oid,
                ..
            } => {
                if entry_mode.is_tree() && previous_entry_mode.is_tree() {
                    continue;
                }
                (path, entry_mode.kind(), *oid)
            }
            Change::Deletion { .. } => continue,
        };
        let Some(p) = local_path(root, path.as_ref()) else {
            continue;
        };
        open_parent(&mut opened, &p)?;
        let rel = String::from_utf8_lossy(path.as_ref()).into_owned();
        write_entry(snap, kind, oid, &p, &rel)?;
        if matches!(kind, EntryKind::Tree | EntryKind::Commit) {
            // Created writable; its entries follow. Read-only at the end.
            opened.dirs.push(p);
        }
    }
    for d in opened.dirs.iter().rev() {
        fs::set_permissions(d, fs::Permissions::from_mode(0o555))
            .map_err(|e| io(format!("cannot make {} read-only", d.display()), e))?;
    }
    Ok(())
}

/// The directories an update made writable, to be made read-only again.
#[derive(Default)]
struct Opened {
    seen: HashSet<PathBuf>,
    dirs: Vec<PathBuf>,
}

impl Opened {
    /// Gives the owner write permission on `path`'s directory (once). A directory already
    /// removed (the entries of a deleted directory) is left alone.
    fn parent_of(&mut self, root: &Path, path: &Path) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or(root);
        if self.seen.insert(dir.to_path_buf()) {
            match fs::set_permissions(dir, fs::Permissions::from_mode(0o755)) {
                Ok(()) => self.dirs.push(dir.to_path_buf()),
                Err(e)
                    if e.kind() == std::io::ErrorKind::NotFound
                        || e.kind() == std::io::ErrorKind::NotADirectory =>
                {
                    self.seen.remove(dir);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// `rel` (a path of the tree, `/`-separated bytes) under `root`, unless a component is one an
/// export never holds (`.git`, `.`, `..`, empty).
fn local_path(root: &Path, rel: &[u8]) -> Option<PathBuf> {
    let mut p = root.to_path_buf();
    for part in rel.split_str("/") {
        if part.is_empty() || part == b"." || part == b".." || part == b".git" {
            return None;
        }
        p.push(std::ffi::OsStr::from_bytes(part));
    }
    Some(p)
}

/// Removes a file, link or directory; one that is already gone (its directory went first) is
/// no error.
fn remove_path(p: &Path) -> std::io::Result<()> {
    let r = match fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => remove_tree(p),
        Ok(_) => fs::remove_file(p),
        Err(e) => Err(e),
    };
    match r {
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.kind() == std::io::ErrorKind::NotADirectory =>
        {
            Ok(())
        }
        r => r,
    }
}

fn write_tree(snap: &RepoSnapshot, id: ObjectId, dir: &Path, rel: &str) -> Result<(), SourceError> {
    let git = |what: String, e: &dyn std::fmt::Display| SourceError::git(&snap.name, &what, e);
    let tree = snap
        .repo
        .find_tree(id)
        .map_err(|e| git(format!("cannot read tree `{rel}`"), &e))?;
    for entry in tree.iter() {
        let entry = entry.map_err(|e| git(format!("cannot decode tree `{rel}`"), &e))?;
        // The name as the bytes git holds (Unix), never through a lossy conversion: two names
        // that are not UTF-8 must not collide. Only messages show it lossily.
        let bytes: &[u8] = entry.filename().as_ref();
        if bytes == b"." || bytes == b".." || bytes.contains(&b'/') || bytes == b".git" {
            continue;
        }
        let path = dir.join(std::ffi::OsStr::from_bytes(bytes));
        let child = join(rel, &String::from_utf8_lossy(bytes));
        let kind = entry.mode().kind();
        write_entry(snap, kind, entry.object_id(), &path, &child)?;
        if kind == EntryKind::Tree {
            write_tree(snap, entry.object_id(), &path, &child)?;
        }
    }
    Ok(())
}

/// Writes one entry of a tree at `path`: a read-only file, a link, or an empty (writable)
/// directory — a sub-tree's entries are the caller's, a submodule's objects are not in this
/// repository.
fn write_entry(
    snap: &RepoSnapshot,
    kind: EntryKind,
    id: ObjectId,
    path: &Path,
    rel: &str,
) -> Result<(), SourceError> {
    let git = |what: String, e: &dyn std::fmt::Display| SourceError::git(&snap.name, &what, e);
    let io = |what: String, e: std::io::Error| io_error(snap, what, e);
    match kind {
        EntryKind::Tree | EntryKind::Commit => {
            fs::create_dir(path).map_err(|e| io(format!("cannot create {rel}"), e))?;
        }
        EntryKind::Blob | EntryKind::BlobExecutable => {
            let blob = snap
                .repo
                .find_blob(id)
                .map_err(|e| git(format!("cannot read {rel}"), &e))?;
            // Read-only from birth: no second pass of chmods over every file.
            let mode = if kind == EntryKind::BlobExecutable {
                0o555
            } else {
                0o444
            };
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(mode)
                .open(path)
                .map_err(|e| io(format!("cannot write {rel}"), e))?;
            f.write_all(&blob.data)
                .map_err(|e| io(format!("cannot write {rel}"), e))?;
        }
        EntryKind::Link => {
            let blob = snap
                .repo
                .find_blob(id)
                .map_err(|e| git(format!("cannot read {rel}"), &e))?;
            let target = std::ffi::OsStr::from_bytes(&blob.data);
            std::os::unix::fs::symlink(target, path)
                .map_err(|e| io(format!("cannot link {rel}"), e))?;
        }
    }
    Ok(())
}

/// Directories are made read-only once filled (files were created read-only).
fn make_read_only(dir: &Path) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            make_read_only(&entry.path())?;
        }
    }
    fs::set_permissions(dir, fs::Permissions::from_mode(0o555))
}

/// Gives the owner write permission back on an export's directories, so it can be removed.
pub(crate) fn make_writable(dir: &Path) -> std::io::Result<()> {
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755))?;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            make_writable(&entry.path())?;
        }
    }
    Ok(())
}

/// Removes a read-only directory tree.
fn remove_tree(dir: &Path) -> std::io::Result<()> {
    make_writable(dir)?;
    fs::remove_dir_all(dir)
}

/// Removes an export's marker, then its directory (either may be missing).
fn remove_export(names: &Names) -> std::io::Result<()> {
    match fs::remove_file(&names.marker) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    match fs::symlink_metadata(&names.dir) {
        Ok(m) if m.is_dir() => remove_tree(&names.dir),
        Ok(_) => fs::remove_file(&names.dir),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Removes every export under `exports` except those in `keep` and those a run is using.
pub(crate) fn prune(exports: &Path, keep: &[PathBuf]) {
    let Ok(entries) = fs::read_dir(exports) else {
        return;
    };
    let mut bases = std::collections::BTreeSet::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(s) = name.to_str() else { continue };
        let base = s
            .strip_suffix(".ok")
            .or_else(|| s.strip_suffix(".lock"))
            .or_else(|| s.rsplit_once(".building-").map(|(b, _)| b))
            .unwrap_or(s);
        bases.insert(exports.join(base));
    }
    for dir in bases {
        if keep.contains(&dir) {
            continue;
        }
        let names = Names::of(&dir);
        // A run holds it: it is that run's to keep or to take over.
        let Ok(Some(held)) = try_lock(&names.lock) else {
            continue;
        };
        if remove_export(&names).is_ok() {
            remove_dead_flags(&names);
            let _ = fs::remove_file(&names.lock);
        }
        drop(held);
    }
}

/// Waits for a lock on the lock file at `path` (created if missing): shared or exclusive.
fn lock(path: &Path, shared: bool) -> std::io::Result<File> {
    loop {
        let file = open_lock(path)?;
        if shared {
            file.lock_shared()?;
        } else {
            file.lock()?;
        }
        if still_named(&file, path) {
            return Ok(file);
        }
    }
}

/// An exclusive lock on the lock file at `path` if no one holds it; `None` if someone does.
fn try_lock(path: &Path) -> std::io::Result<Option<File>> {
    loop {
        let file = open_lock(path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Ok(None),
            Err(TryLockError::Error(e)) => return Err(e),
        }
        if still_named(&file, path) {
            return Ok(Some(file));
        }
    }
}

fn open_lock(path: &Path) -> std::io::Result<File> {
    fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

/// Whether `path` still names the locked file: a lock file removed (and perhaps made again)
/// while we waited is another file, and then we lock again, so two holders never hold two
/// files of one name.
fn still_named(file: &File, path: &Path) -> bool {
    fs::metadata(path)
        .ok()
        .is_some_and(|m| file.metadata().is_ok_and(|f| f.ino() == m.ino()))
}

/// Makes the export at `dir` untrusted: its marker goes, so the next run that needs its commit
/// removes it and makes it again, and none takes it over. For an export something may still
/// write into (a process a build started that escaped its group).
pub(crate) fn distrust(dir: &Path) -> std::io::Result<()> {
    match fs::remove_file(Names::of(dir).marker) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

mod check;
pub use check::Written;
pub(crate) use check::restore_written;

#[cfg(test)]
mod tests;
