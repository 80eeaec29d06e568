//! Crash-safe file handling under the node root: atomic writes, directory fsyncs, the root lock
//! (opened without following a link, see [`super::floor`]).

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use serde::de::DeserializeOwned;

use super::NodeError;

/// The entries of `dir` (names that are not UTF-8 left out); a missing directory has none.
pub(super) fn list_dir(dir: &Path) -> Result<Vec<(String, fs::DirEntry)>, NodeError> {
    let read = match fs::read_dir(dir) {
        Ok(read) => read,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(NodeError::io("list", dir)(e)),
    };
    let mut out = Vec::new();
    for entry in read {
        let entry = entry.map_err(NodeError::io("list", dir))?;
        if let Some(name) = entry.file_name().to_str().map(str::to_string) {
            out.push((name, entry));
        }
    }
    Ok(out)
}

/// Reads and parses a JSON file mesh wrote; `None` if it does not exist. A symbolic link in
/// its place is refused, not followed (mesh writes each of these files itself, by rename,
/// never as a link): whoever planted it would choose what the node believes.
pub(super) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, NodeError> {
    let read = || -> io::Result<Vec<u8>> {
        let mut file = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)?;
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut file, &mut bytes)?;
        Ok(bytes)
    };
    let bytes = match read() {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(NodeError::Corrupt {
                path: path.to_path_buf(),
                reason: "it is a symbolic link, which mesh does not follow (mesh writes this file itself, never as a link); remove it".into(),
            });
        }
        Err(source) => {
            return Err(NodeError::Io {
                what: "read",
                path: path.to_path_buf(),
                source,
            });
        }
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| NodeError::Corrupt {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
}

/// How long `receive` and `apply` wait for the node's lock before saying the node is busy.
pub const ROOT_LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(5);

/// The exclusive lock on `root/.lock`, held while `receive` or `apply` runs so that a node's
/// own timer never applies half of what is being received. Released on drop.
#[derive(Debug)]
pub(super) struct RootLock {
    _file: File,
}

impl RootLock {
    /// Waits (bounded, as [`RootLock::acquire`]) for a lock that exists, creating nothing: a
    /// reader of the node (its reports) waits for a receive or apply in progress, and a lock
    /// held without end makes the node busy for the reader too, not silently half-read.
    pub(super) fn probe(lock: &Path) -> Result<Option<RootLock>, NodeError> {
        let file = match super::floor::open_lock(lock, false) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(NodeError::io("open the lock file", lock)(e)),
        };
        Self::wait(file, lock).map(Some)
    }

    /// Waits for the lock, up to [`ROOT_LOCK_PATIENCE`] (then [`NodeError::Busy`]: a lock
    /// held without end must never hang the controller), creating the root (0700, see
    /// [`super::floor::make_root`]) and the lock file if missing.
    pub(super) fn acquire(root: &Path, lock: &Path) -> Result<RootLock, NodeError> {
        super::floor::make_root(root)?;
        let file = super::floor::open_lock(lock, true)
            .map_err(NodeError::io("open the lock file", lock))?;
        Self::wait(file, lock)
    }

    fn wait(file: File, lock: &Path) -> Result<RootLock, NodeError> {
        let start = std::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(RootLock { _file: file }),
                Err(fs::TryLockError::WouldBlock) if start.elapsed() < ROOT_LOCK_PATIENCE => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(NodeError::Busy {
                        path: lock.to_path_buf(),
                        waited: ROOT_LOCK_PATIENCE,
                    });
                }
                Err(fs::TryLockError::Error(e)) => return Err(NodeError::io("lock", lock)(e)),
            }
        }
    }
}
