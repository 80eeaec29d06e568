//! The verified backup `.mesh/state.redb.bak`: a copy of the store made after a run that
//! changed something, at most hourly, checked (it opens, and every value's checksum matches)
//! before it is renamed into place whole. A damaged store's error names it.

use super::{Store, StoreError};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How old the backup may grow before a run that changed something makes a new one.
pub(crate) const BACKUP_EVERY: Duration = Duration::from_secs(3600);

/// Where the backup of the store at `state` is kept: beside it, `.bak` added.
pub fn backup_path(state: &Path) -> PathBuf {
    let mut name = state.as_os_str().to_owned();
    name.push(".bak");
    PathBuf::from(name)
}

/// Makes a new backup of the store at `state` unless the one there is younger than `every`
/// (zero: always). Returns whether one was made. The caller holds the mesh lock and no
/// [`Store`]; a copy that does not verify is removed and named as an error, and the backup
/// already there is kept.
pub fn backup(state: &Path, every: Duration) -> Result<bool, StoreError> {
    let bak = backup_path(state);
    let young = std::fs::metadata(&bak)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age < every);
    if young {
        return Ok(false);
    }
    let name = bak.file_name().map_or_else(
        || "state.redb.bak".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let tmp = bak.with_file_name(format!(".{name}.new-{}", std::process::id()));
    let io = |e: std::io::Error| StoreError::Db {
        path: bak.clone(),
        message: format!("the backup could not be written: {e}"),
    };
    let made = (|| {
        std::fs::copy(state, &tmp).map_err(io)?;
        {
            let copy = Store::open(&tmp).map_err(|e| match e {
                StoreError::Damaged { message, .. } => StoreError::damaged(state, message),
                e => e,
            })?;
            copy.read(|r| r.verify_all()).map_err(|e| match e {
                StoreError::Damaged { message, .. } => StoreError::damaged(state, message),
                e => e,
            })?;
        }
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(io)?;
        std::fs::rename(&tmp, &bak).map_err(io)?;
        let _ = mesh_node::durable::sync_dir(&mesh_node::durable::parent_dir(&bak));
        Ok(true)
    })();
    if made.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    made
}

/// Checks redb's own page checksums of the store at `state` on a copy, so that redb's repair
/// (which rewrites a file whose checksums fail) never touches the store itself. `Ok` when
/// every page verifies; the finding otherwise.
pub(crate) fn check_pages(state: &Path) -> Result<(), String> {
    let name = state
        .file_name()
        .map_or_else(|| "state.redb".into(), |n| n.to_string_lossy().into_owned());
    let copy = state.with_file_name(format!(".{name}.check-{}", std::process::id()));
    let checked = (|| {
        std::fs::copy(state, &copy).map_err(|e| format!("could not copy it to check: {e}"))?;
        let found = super::guard::guarded(|| -> Result<bool, String> {
            let mut db = super::builder().create(&copy).map_err(|e| e.to_string())?;
            db.check_integrity().map_err(|e| e.to_string())
        })
        .map_err(|p| p.to_string())??;
        if found {
            Ok(())
        } else {
            Err("redb's page checksums do not match (a page was changed on disk)".into())
        }
    })();
    let _ = std::fs::remove_file(&copy);
    checked
}

/// Whether the backup of `state` opens and every value in it verifies: (tables, values).
pub(crate) fn check_backup(state: &Path) -> Result<(usize, u64), StoreError> {
    let bak = backup_path(state);
    let name = bak.file_name().map_or_else(
        || "state.redb.bak".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let copy = bak.with_file_name(format!(".{name}.check-{}", std::process::id()));
    let checked = (|| {
        std::fs::copy(&bak, &copy).map_err(|e| StoreError::Db {
            path: bak.clone(),
            message: e.to_string(),
        })?;
        let store = Store::open(&copy).map_err(|e| match e {
            StoreError::Damaged { message, .. } => StoreError::damaged(&bak, message),
            e => e,
        })?;
        let tables = store.read(|r| r.verify_all()).map_err(|e| match e {
            StoreError::Damaged { message, .. } => StoreError::damaged(&bak, message),
            e => e,
        })?;
        Ok((tables.len(), tables.iter().map(|(_, n)| n).sum()))
    })();
    let _ = std::fs::remove_file(&copy);
    checked
}

/// Removes the copies a killed mesh left beside the store at `state` (a backup being made, a
/// copy being checked, a new store being made), each named with the pid that made it: only
/// those whose process is gone, so a `mesh doctor` checking a copy now keeps it.
pub(crate) fn sweep_copies(state: &Path) {
    let (Some(dir), Some(name)) = (state.parent(), state.file_name()) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let name = name.to_string_lossy();
    let prefixes = [
        format!(".{name}.new-"),
        format!(".{name}.check-"),
        format!(".{name}.bak.new-"),
        format!(".{name}.bak.check-"),
    ];
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let file = e.file_name();
        let file = file.to_string_lossy();
        let pid = prefixes
            .iter()
            .find_map(|p| file.strip_prefix(p.as_str()))
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && !Path::new(&format!("/proc/{pid}")).exists()
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}
