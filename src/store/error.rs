//! Why the store could not be used, each with what to do next.

use super::{FORMAT, backup_path};
use miette::Diagnostic;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why the store could not be used.
#[derive(Debug, Error, Diagnostic)]
pub enum StoreError {
    /// Another process kept the file (or its write transaction) for longer than we wait.
    #[error("the store {path} is in use by another mesh process")]
    #[diagnostic(
        code(mesh::store::locked),
        help("another `mesh` is writing; try again in a moment")
    )]
    Locked {
        /// The store file.
        path: PathBuf,
    },
    /// Another mesh process holds the mesh's lock.
    #[error("the mesh is busy: {holder} holds its lock")]
    #[diagnostic(
        code(mesh::store::busy),
        help(
            "wait for it to finish and try again; reading verbs (status, plan, graph, events) do not need the lock"
        )
    )]
    Busy {
        /// Who: pid, verb and since when.
        holder: String,
    },
    /// The lock file could not be made or read.
    #[error("the lock file {path} could not be used: {message}")]
    #[diagnostic(
        code(mesh::store::lock_file),
        help("check that the mesh directory is writable and the disk is not full")
    )]
    LockFile {
        /// The lock file.
        path: PathBuf,
        /// The OS's words.
        message: String,
    },
    /// The file was written by a newer mesh.
    #[error("the store {path} has format {found}; this mesh reads format {FORMAT} and older")]
    #[diagnostic(
        code(mesh::store::newer_format),
        help(
            "use the newer mesh binary that wrote it (`mesh --version` says which format a binary reads)"
        )
    )]
    NewerFormat {
        /// The store file.
        path: PathBuf,
        /// The format found in the file.
        found: u32,
    },
    /// Something that is not a directory is where the mesh keeps its state (`.mesh`).
    #[error("{path} is not a directory, so the mesh's state cannot be kept in it")]
    #[diagnostic(
        code(mesh::store::not_a_directory),
        help(
            "mesh makes this directory itself and keeps its store, artifacts and logs there: move the file that is in its place aside"
        )
    )]
    NotADirectory {
        /// The path that should be a directory.
        path: PathBuf,
    },
    /// The store file is damaged: it cannot be read as it was written. Never repaired or
    /// replaced behind the user's back.
    #[error("the store {path} is damaged: {message}")]
    #[diagnostic(code(mesh::store::damaged), help("{help}"))]
    Damaged {
        /// The store file.
        path: PathBuf,
        /// What was found.
        message: String,
        /// What to do: `mesh doctor`, and the backup to restore.
        help: String,
    },
    /// The store (or its directory) cannot be written.
    #[error("the store {path} cannot be written: {message}")]
    #[diagnostic(
        code(mesh::store::read_only),
        help(
            "mesh records every run in the store, reading verbs included: make {} writable (or mount it read-write), or point `--state FILE` (MESH_STATE) at a writable file",
            path.parent().map_or_else(|| ".".into(), |p| p.display().to_string())
        )
    )]
    ReadOnly {
        /// The store file.
        path: PathBuf,
        /// The OS's words.
        message: String,
    },
    /// redb failed.
    #[error("the store {path} could not be used: {message}")]
    #[diagnostic(
        code(mesh::store::failed),
        help(
            "check that the directory is writable and the disk is not full; `--state FILE` uses another store"
        )
    )]
    Db {
        /// The store file.
        path: PathBuf,
        /// redb's words.
        message: String,
    },
    /// A value could not be decoded (inside the store this becomes [`StoreError::Damaged`]).
    #[error("a value in table `{table}` could not be read: {message}")]
    #[diagnostic(
        code(mesh::store::corrupt),
        help("`mesh doctor` says more about the store")
    )]
    Decode {
        /// The table.
        table: String,
        /// What was wrong.
        message: String,
    },
}

impl StoreError {
    /// Whether this means "another process holds it" (exit 75).
    pub(crate) fn is_locked(&self) -> bool {
        matches!(self, StoreError::Locked { .. } | StoreError::Busy { .. })
    }

    /// The store at `path` is damaged: `message` says how.
    pub fn damaged(path: &Path, message: impl Into<String>) -> StoreError {
        let bak = backup_path(path);
        let restore = if bak.is_file() {
            format!(
                "to go back to the last verified copy, move the damaged file aside and restore {} (`cp {} {}`)",
                bak.display(),
                bak.display(),
                path.display()
            )
        } else {
            format!(
                "there is no backup ({} is made after a run that changed something): move the damaged file aside to start a new store (its history is lost)",
                bak.display()
            )
        };
        StoreError::Damaged {
            path: path.to_path_buf(),
            message: message.into(),
            help: format!("`mesh doctor` says more; {restore}"),
        }
    }

    /// Whether this names a damaged store.
    pub fn is_damaged(&self) -> bool {
        matches!(self, StoreError::Damaged { .. })
    }

    /// A redb error about the store at `path`, named for what it is: damage, a store that
    /// cannot be written, or anything else.
    pub(super) fn from_redb(path: &Path, e: impl Into<redb::Error>) -> StoreError {
        let e: redb::Error = e.into();
        match &e {
            redb::Error::Corrupted(m) => StoreError::damaged(path, m.clone()),
            redb::Error::Io(io) if read_only(io) => StoreError::ReadOnly {
                path: path.to_path_buf(),
                message: io.to_string(),
            },
            // Passing conditions of this process or this machine, not of the file.
            redb::Error::Io(_)
            | redb::Error::DatabaseAlreadyOpen
            | redb::Error::LockProtocolMismatch
            | redb::Error::TransactionInProgress
            | redb::Error::WouldBlock
            | redb::Error::PreviousIo
            | redb::Error::DatabaseClosed
            | redb::Error::Backend(_)
            | redb::Error::Unsupported
            | redb::Error::ValueTooLarge(_) => StoreError::Db {
                path: path.to_path_buf(),
                message: e.to_string(),
            },
            // mesh's tables have one fixed shape: a table that reads as another type, a type
            // that changed, a format redb does not know, are what a damaged file looks like.
            _ => StoreError::damaged(path, e.to_string()),
        }
    }
}

/// Whether an OS error means "this cannot be written here" rather than a passing failure.
pub(super) fn read_only(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ReadOnlyFilesystem | std::io::ErrorKind::PermissionDenied
    )
}
