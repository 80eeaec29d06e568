//! The verified backup `.mesh/state.redb.bak`: a copy of the store made after a run that
//! changed something, at most hourly, checked (it opens, and every value's checksum matches)
//! before it is renamed into place whole. A damaged store's error names it.

use super::{Store, StoreError};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How old the backup may grow before a run that changed something makes a new one.
pub const BACKUP_EVERY: Duration = Duration::from_secs(3600);

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
        if let Some(dir) = bak.parent()
            && let Ok(d) = std::fs::File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(true)
    })();
    if made.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    made
}
