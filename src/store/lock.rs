//! The mesh lock (`.mesh/lock`): verbs that change the mesh take it, so two `mesh reconcile`s
//! never act at once. An flock: a process that dies releases it, so a stale lock is simply taken
//! over. The holder's pid, verb and start time are written in the file for the message the
//! second process prints.

use super::StoreError;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;

/// Held while a verb changes the mesh; released on drop (or when the process dies).
pub struct MeshLock {
    file: File,
}

impl MeshLock {
    /// Takes the lock in `dot_mesh` for `verb`, or fails at once naming the holder (exit 75).
    pub fn take(dot_mesh: &Path, verb: &str) -> Result<MeshLock, StoreError> {
        let path = dot_mesh.join("lock");
        let err = |e: std::io::Error| StoreError::LockFile {
            path: path.clone(),
            message: e.to_string(),
        };
        std::fs::create_dir_all(dot_mesh).map_err(err)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(err)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(StoreError::Busy {
                    holder: if holder.is_empty() {
                        "another mesh process".into()
                    } else {
                        holder.to_string()
                    },
                });
            }
            Err(TryLockError::Error(e)) => return Err(err(e)),
        }
        let since = humantime::format_rfc3339_seconds(std::time::SystemTime::now());
        let _ = file.set_len(0);
        let _ = file.rewind();
        let _ = write!(
            file,
            "pid {} (mesh {verb}) since {since}",
            std::process::id()
        );
        let _ = file.flush();
        Ok(MeshLock { file })
    }
}

impl Drop for MeshLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}
