//! The store: one redb file holding everything the mesh has recorded.
//!
//! It is opened for moments, never across a build, a test or a network call: read what is
//! needed, drop the [`Store`], do the slow work, reopen and record in one [`Store::write`].

mod codec;
mod lock;
mod tables;

pub use codec::{decode, encode};
pub use lock::MeshLock;
pub use tables::*;

use miette::Diagnostic;
use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use serde::{Serialize, de::DeserializeOwned};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use thiserror::Error;

/// The store format this binary reads and writes. Raised when a table's shape changes.
pub const FORMAT: u32 = 1;

/// A table: byte keys, codec-encoded values.
pub type Table = TableDefinition<'static, &'static [u8], &'static [u8]>;

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
    /// A value could not be decoded.
    #[error("a value in table `{table}` could not be read: {message}")]
    #[diagnostic(
        code(mesh::store::corrupt),
        help(
            "the store may have been written by another program; move it aside and run `mesh reconcile` to rebuild what can be rebuilt"
        )
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
    pub fn is_locked(&self) -> bool {
        matches!(self, StoreError::Locked { .. } | StoreError::Busy { .. })
    }
}

/// Where a mesh keeps its state: the store file and the directories beside it in `.mesh/`.
#[derive(Debug, Clone)]
pub struct Paths {
    /// `.mesh/`.
    pub dot_mesh: PathBuf,
    /// The store file (default `.mesh/state.redb`).
    pub state: PathBuf,
}

impl Paths {
    /// `.mesh/artifacts/`: the content-addressed artifact store.
    pub fn artifacts(&self) -> PathBuf {
        self.dot_mesh.join("artifacts")
    }
    /// `.mesh/logs/`: build and test logs, bounded per module.
    pub fn logs(&self) -> PathBuf {
        self.dot_mesh.join("logs")
    }
    /// `.mesh/exports/`: trees exported at a commit for builds.
    pub fn exports(&self) -> PathBuf {
        self.dot_mesh.join("exports")
    }
    /// `.mesh/deps/`: unpacked artifacts handed to builds as `MESH_DEP_<NAME>`.
    pub fn deps(&self) -> PathBuf {
        self.dot_mesh.join("deps")
    }
    /// `.mesh/tmp/`: scratch space (`$MESH_OUT`).
    pub fn tmp(&self) -> PathBuf {
        self.dot_mesh.join("tmp")
    }
    /// Opens the store.
    pub fn open(&self) -> Result<Store, StoreError> {
        Store::open(&self.state)
    }
}

/// Creates `dir` (and its parents) unless it exists; a file in its place (or in a parent's) is
/// [`StoreError::NotADirectory`] rather than the OS's "File exists".
pub fn make_dir(dir: &Path) -> Result<(), StoreError> {
    match std::fs::create_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) => {
            if let Some(blocker) = dir.ancestors().find(|a| a.exists() && !a.is_dir()) {
                return Err(StoreError::NotADirectory {
                    path: blocker.to_path_buf(),
                });
            }
            Err(StoreError::Db {
                path: dir.to_path_buf(),
                message: e.to_string(),
            })
        }
    }
}

/// An open store. Drop it before slow work.
pub struct Store {
    db: redb::Database,
    path: PathBuf,
}

/// How every store is opened: a modest cache, and several processes may have it open at once
/// (one write transaction at a time), so readers are not locked out by a writer.
fn builder() -> redb::Builder {
    let mut b = redb::Builder::new();
    b.set_cache_size(64 << 20)
        .set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
    b
}

/// How long an open, or a write, waits for another process before saying so (exit 75).
const OPEN_PATIENCE: Duration = Duration::from_secs(2);

impl Store {
    /// Opens (or creates) the store at `path`, creating its directory; waits up to 2 s for
    /// another process, checks the format and migrates an older file in one transaction.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let db_err = |e: &dyn std::fmt::Display| StoreError::Db {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
        {
            make_dir(dir).map_err(|e| match e {
                StoreError::Db { message, .. } => db_err(&message),
                e => e,
            })?;
        }
        if !path.exists() {
            Self::create_whole(path).map_err(|e| match e {
                StoreError::Db { message, .. } => db_err(&message),
                e => e,
            })?;
        }
        let start = Instant::now();
        let db = loop {
            let res = builder().create(path);
            match res {
                Ok(db) => break db,
                Err(redb::DatabaseError::DatabaseAlreadyOpen)
                    if start.elapsed() < OPEN_PATIENCE =>
                {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(redb::DatabaseError::DatabaseAlreadyOpen) => {
                    return Err(StoreError::Locked {
                        path: path.to_path_buf(),
                    });
                }
                Err(e) => return Err(db_err(&e)),
            }
        };
        let store = Store {
            db,
            path: path.to_path_buf(),
        };
        store.prepare()?;
        Ok(store)
    }

    /// Makes a new store beside `path` and links it into place whole, so a process killed
    /// while creating it never leaves a file that is not a store.
    fn create_whole(path: &Path) -> Result<(), StoreError> {
        let name = path
            .file_name()
            .map_or_else(|| "state.redb".into(), |n| n.to_string_lossy().into_owned());
        let tmp = path.with_file_name(format!(".{name}.new-{}", std::process::id()));
        let err = |e: &dyn std::fmt::Display| StoreError::Db {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let _ = std::fs::remove_file(&tmp);
        {
            let db = builder().create(&tmp).map_err(|e| err(&e))?;
            let store = Store {
                db,
                path: tmp.clone(),
            };
            store.prepare()?;
        }
        let linked = std::fs::hard_link(&tmp, path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => {}
            // Another process made it first: theirs is whole too.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(err(&e)),
        }
        if let Some(dir) = path.parent()
            && let Ok(d) = std::fs::File::open(if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            })
        {
            let _ = d.sync_all();
        }
        Ok(())
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, e: impl std::fmt::Display) -> StoreError {
        StoreError::Db {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    /// Creates every table and checks the format, migrating an older file.
    fn prepare(&self) -> Result<(), StoreError> {
        let found = self.read(|r| r.get::<u32>(META, b"format"))?;
        match found {
            Some(f) if f == FORMAT => Ok(()),
            Some(f) if f > FORMAT => Err(StoreError::NewerFormat {
                path: self.path.clone(),
                found: f,
            }),
            _ => self.write(|w| {
                for t in ALL_TABLES {
                    w.table(*t)?;
                }
                w.put(META, b"format", &FORMAT)
            }),
        }
    }

    /// Runs `f` in one read transaction: a consistent snapshot.
    pub fn read<T>(
        &self,
        f: impl FnOnce(&Reader) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let tx = self.db.begin_read().map_err(|e| self.err(e))?;
        f(&Reader { tx, store: self })
    }

    /// Runs `f` in one write transaction and commits it (immediate durability) when `f`
    /// succeeds; nothing is written when it fails.
    pub fn write<T>(
        &self,
        f: impl FnOnce(&Writer) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        // Another process may be in its write transaction (they are short): wait a little,
        // then say so (exit 75) rather than wait without end.
        let start = Instant::now();
        let tx = loop {
            match self.db.try_begin_write() {
                Ok(tx) => break tx,
                Err(redb::TransactionError::WouldBlock) if start.elapsed() < OPEN_PATIENCE => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(redb::TransactionError::WouldBlock) => {
                    return Err(StoreError::Locked {
                        path: self.path.clone(),
                    });
                }
                Err(e) => return Err(self.err(e)),
            }
        };
        let w = Writer { tx, store: self };
        let out = f(&w)?;
        w.tx.commit().map_err(|e| self.err(e))?;
        Ok(out)
    }
}

/// A read transaction.
pub struct Reader<'s> {
    tx: redb::ReadTransaction,
    store: &'s Store,
}

/// A write transaction.
pub struct Writer<'s> {
    tx: redb::WriteTransaction,
    store: &'s Store,
}

fn table_name(t: Table) -> String {
    use redb::TableHandle;
    t.name().to_string()
}

impl Reader<'_> {
    /// One value.
    pub fn get<T: DeserializeOwned>(&self, t: Table, key: &[u8]) -> Result<Option<T>, StoreError> {
        let table = match self.tx.open_table(t) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(self.store.err(e)),
        };
        let v = table.get(key).map_err(|e| self.store.err(e))?;
        v.map(|v| decode(&table_name(t), v.value())).transpose()
    }

    /// Every (key, value) with `lo <= key < hi` (`hi` None: to the end), in key order.
    pub fn range<T: DeserializeOwned>(
        &self,
        t: Table,
        lo: &[u8],
        hi: Option<&[u8]>,
    ) -> Result<Vec<(Vec<u8>, T)>, StoreError> {
        let table = match self.tx.open_table(t) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(self.store.err(e)),
        };
        collect(self.store, t, &table, lo, hi)
    }

    /// How many entries a table holds.
    pub fn len(&self, t: Table) -> Result<u64, StoreError> {
        match self.tx.open_table(t) {
            Ok(table) => table.len().map_err(|e| self.store.err(e)),
            Err(redb::TableError::TableDoesNotExist(_)) => Ok(0),
            Err(e) => Err(self.store.err(e)),
        }
    }
}

fn collect<T: DeserializeOwned>(
    store: &Store,
    t: Table,
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    lo: &[u8],
    hi: Option<&[u8]>,
) -> Result<Vec<(Vec<u8>, T)>, StoreError> {
    let iter = match hi {
        Some(hi) => table.range::<&[u8]>(lo..hi),
        None => table.range::<&[u8]>(lo..),
    }
    .map_err(|e| store.err(e))?;
    let name = table_name(t);
    let mut out = Vec::new();
    for item in iter {
        let (k, v) = item.map_err(|e| store.err(e))?;
        out.push((k.value().to_vec(), decode(&name, v.value())?));
    }
    Ok(out)
}

impl Writer<'_> {
    fn table(&self, t: Table) -> Result<redb::Table<'_, &'static [u8], &'static [u8]>, StoreError> {
        self.tx.open_table(t).map_err(|e| self.store.err(e))
    }

    /// One value, as this transaction sees it.
    pub fn get<T: DeserializeOwned>(&self, t: Table, key: &[u8]) -> Result<Option<T>, StoreError> {
        let table = self.table(t)?;
        let v = table.get(key).map_err(|e| self.store.err(e))?;
        v.map(|v| decode(&table_name(t), v.value())).transpose()
    }

    /// Every (key, value) with `lo <= key < hi`, as this transaction sees it.
    pub fn range<T: DeserializeOwned>(
        &self,
        t: Table,
        lo: &[u8],
        hi: Option<&[u8]>,
    ) -> Result<Vec<(Vec<u8>, T)>, StoreError> {
        collect(self.store, t, &self.table(t)?, lo, hi)
    }

    /// Sets one value.
    pub fn put<T: Serialize + ?Sized>(
        &self,
        t: Table,
        key: &[u8],
        v: &T,
    ) -> Result<(), StoreError> {
        let bytes = encode(v);
        self.table(t)?
            .insert(key, bytes.as_slice())
            .map_err(|e| self.store.err(e))?;
        Ok(())
    }

    /// Removes one value.
    pub fn remove(&self, t: Table, key: &[u8]) -> Result<(), StoreError> {
        self.table(t)?.remove(key).map_err(|e| self.store.err(e))?;
        Ok(())
    }

    /// How many entries a table holds.
    pub fn len(&self, t: Table) -> Result<u64, StoreError> {
        self.table(t)?.len().map_err(|e| self.store.err(e))
    }

    /// Removes the first `n` entries (in key order) of a table: retention of logs.
    pub fn drop_first(&self, t: Table, n: u64) -> Result<(), StoreError> {
        let mut table = self.table(t)?;
        for _ in 0..n {
            if table.pop_first().map_err(|e| self.store.err(e))?.is_none() {
                break;
            }
        }
        Ok(())
    }
}

/// Every entry of one table, read from a store opened read-only: nothing is created, migrated
/// or written (not even what redb writes when a writable handle closes), and nothing waits.
/// For shell completion, which must answer at once and never change the mesh; a store that is
/// missing, busy or unreadable is an error the caller may ignore.
pub fn peek<T: DeserializeOwned>(path: &Path, t: Table) -> Result<Vec<(Vec<u8>, T)>, StoreError> {
    let err = |e: &dyn std::fmt::Display| StoreError::Db {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut b = redb::Builder::new();
    b.set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
    let db = b.open_read_only(path).map_err(|e| err(&e))?;
    let tx = db.begin_read().map_err(|e| err(&e))?;
    let table = match tx.open_table(t) {
        Ok(table) => table,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
        Err(e) => return Err(err(&e)),
    };
    let name = redb::TableHandle::name(&t).to_string();
    let mut out = Vec::new();
    for entry in table.iter().map_err(|e| err(&e))? {
        let (k, v) = entry.map_err(|e| err(&e))?;
        out.push((k.value().to_vec(), codec::decode(&name, v.value())?));
    }
    Ok(out)
}
