//! Exporting a repository's tree at a commit into a plain directory, for builds: made from git
//! objects (never the work tree), once per (repo, commit), and shared read-only by every build
//! of that commit.

use super::{RepoSnapshot, SourceError, join};
use gix::ObjectId;
use gix::objs::tree::EntryKind;
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Where the export of `commit` lives under `exports`.
pub fn export_dir(exports: &Path, repo: &str, commit: &ObjectId) -> PathBuf {
    exports.join(format!("{repo}-{commit}"))
}

/// Exports the snapshot's tree under `exports` unless it already is there; returns its path.
/// The tree is written into a temp dir and renamed, so a killed export is never mistaken for a
/// finished one. Files are made read-only: builds write only into `$MESH_OUT`.
pub fn export(snap: &RepoSnapshot, exports: &Path) -> Result<PathBuf, SourceError> {
    let dest = export_dir(exports, &snap.name, &snap.commit);
    if dest.is_dir() {
        return Ok(dest);
    }
    let io = |what: String, e: std::io::Error| SourceError {
        repo: snap.name.clone(),
        message: format!("{what}: {e}"),
        help: "check that the .mesh directory is writable and the disk is not full".into(),
    };
    fs::create_dir_all(exports)
        .map_err(|e| io(format!("cannot create {}", exports.display()), e))?;
    let tmp = tempfile::Builder::new()
        .prefix(".export-")
        .tempdir_in(exports)
        .map_err(|e| {
            io(
                format!("cannot create a temp dir in {}", exports.display()),
                e,
            )
        })?;
    write_tree(snap, snap.tree, tmp.path(), "")?;
    make_read_only(tmp.path()).map_err(|e| io("cannot make the export read-only".into(), e))?;
    let tmp = tmp.keep();
    if let Err(e) = fs::rename(&tmp, &dest) {
        let _ = make_writable(&tmp).and_then(|_| fs::remove_dir_all(&tmp));
        if !dest.is_dir() {
            return Err(io(
                format!("cannot move the export to {}", dest.display()),
                e,
            ));
        }
    }
    Ok(dest)
}

fn write_tree(snap: &RepoSnapshot, id: ObjectId, dir: &Path, rel: &str) -> Result<(), SourceError> {
    let git = |what: String, e: &dyn std::fmt::Display| SourceError::git(&snap.name, &what, e);
    let io = |what: String, e: std::io::Error| SourceError {
        repo: snap.name.clone(),
        message: format!("{what}: {e}"),
        help: "check that the .mesh directory is writable and the disk is not full".into(),
    };
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
        match entry.mode().kind() {
            EntryKind::Tree => {
                fs::create_dir(&path).map_err(|e| io(format!("cannot create {child}"), e))?;
                write_tree(snap, entry.object_id(), &path, &child)?;
            }
            kind @ (EntryKind::Blob | EntryKind::BlobExecutable) => {
                let blob = snap
                    .repo
                    .find_blob(entry.object_id())
                    .map_err(|e| git(format!("cannot read {child}"), &e))?;
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
                    .open(&path)
                    .map_err(|e| io(format!("cannot write {child}"), e))?;
                f.write_all(&blob.data)
                    .map_err(|e| io(format!("cannot write {child}"), e))?;
            }
            EntryKind::Link => {
                let blob = snap
                    .repo
                    .find_blob(entry.object_id())
                    .map_err(|e| git(format!("cannot read {child}"), &e))?;
                let target = std::ffi::OsStr::from_bytes(&blob.data);
                std::os::unix::fs::symlink(target, &path)
                    .map_err(|e| io(format!("cannot link {child}"), e))?;
            }
            EntryKind::Commit => {
                // A submodule: its objects are not in this repository.
                fs::create_dir(&path).map_err(|e| io(format!("cannot create {child}"), e))?;
            }
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
pub fn make_writable(dir: &Path) -> std::io::Result<()> {
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755))?;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            make_writable(&entry.path())?;
        }
    }
    Ok(())
}

/// Removes every export under `exports` except those in `keep`.
pub fn prune(exports: &Path, keep: &[PathBuf]) {
    let Ok(entries) = fs::read_dir(exports) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if !keep.contains(&p) && p.is_dir() {
            let _ = make_writable(&p).and_then(|_| fs::remove_dir_all(&p));
        }
    }
}
