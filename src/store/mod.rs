//! The store: one redb file holding everything the mesh has recorded.
//!
//! It is opened for moments, never across a build, a test or a network call: read what is
//! needed, drop the [`Store`], do the slow work, reopen and record in one [`Store::write`].

mod backup;
mod codec;
mod error;
mod guard;
mod lock;
mod migrate;
mod paths;
mod roots;
mod tables;

pub(crate) use backup::{BACKUP_EVERY, check_backup, check_pages, sweep_copies};
pub use backup::{backup, backup_path};
pub(crate) use codec::seal;
pub use codec::{decode, encode};
pub use error::StoreError;
use error::read_only;
pub use lock::MeshLock;
pub use paths::Paths;
pub use roots::checked_pages;
pub use tables::*;

/// Every declared build, by module.
pub fn declared_builds(
    r: &Reader,
) -> Result<std::collections::HashMap<String, BuildRecord>, StoreError> {
    Ok(r.range(DECLARED, b"", None)?
        .into_iter()
        .map(|(_, b)| (b.module.clone(), b))
        .collect())
}

use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use serde::{Serialize, de::DeserializeOwned};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The store format this binary reads and writes. Raised when a table's shape changes; an
/// older file is migrated in one transaction (`migrate.rs`).
///
/// 2: every value carries a checksum (`codec.rs`).
/// 3: build records name the source ids of dev, optional and cycle dependencies.
/// 4: module records name their files' blobs instead of copying their imports.
/// 5: build records carry the module's check and rollout.
/// 6: build records name each instantiation's `as` and carry the module's `provide`.
pub const FORMAT: u32 = 6;

/// The `meta` table read for its `format` entry, a `u32` (the other entries are `u64`s).
pub const META_FORMAT: Table<u32> = META.as_shape();

/// The `meta` table read for its `tables` entry: the name of every table the store has made,
/// so that one it made and cannot find is damage, and one it never made reads as empty.
const META_TABLES: Table<Vec<String>> = META.as_shape();
/// The key of that entry.
const TABLES_KEY: &[u8] = b"tables";

/// A table of the store: byte keys, values of type `V` (codec-encoded). Typed so that a read
/// names no type at its call site and a write cannot put another record in. Declared beside
/// the records they hold: most in `tables.rs`, the facts log's in `events/`.
pub struct Table<V> {
    name: &'static str,
    value: PhantomData<fn() -> V>,
}

impl<V> Clone for Table<V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V> Copy for Table<V> {}

impl<V> Table<V> {
    /// The table called `name`.
    pub const fn new(name: &'static str) -> Self {
        Table {
            name,
            value: PhantomData,
        }
    }

    /// Its name in the file.
    pub const fn name(self) -> &'static str {
        self.name
    }

    /// The same table read or written as another shape: a migration's older records, a
    /// single fact of another type.
    pub const fn as_shape<W>(self) -> Table<W> {
        Table::new(self.name)
    }

    pub(crate) fn def(self) -> TableDefinition<'static, &'static [u8], &'static [u8]> {
        TableDefinition::new(self.name)
    }
}

impl<V: Serialize> Table<V> {
    /// `v` under `key`, encoded for this table ahead of the write that puts it: encoding is
    /// most of the cost of a large write, and can be done on the threads that made the values.
    pub(crate) fn seal(self, key: Vec<u8>, v: &V) -> Sealed<V> {
        let bytes = encode(self.name, &key, v);
        Sealed {
            key,
            bytes,
            value: PhantomData,
        }
    }
}

/// A key and its value, encoded for one table ([`Table::seal`]); put by [`Writer::put_sealed`].
pub struct Sealed<V> {
    key: Vec<u8>,
    bytes: Vec<u8>,
    value: PhantomData<fn() -> V>,
}

impl<V> Sealed<V> {
    /// Its key.
    pub fn key(&self) -> &[u8] {
        &self.key
    }
}

/// Creates `dir` (and its parents) unless it exists; a file in its place (or in a parent's) is
/// [`StoreError::NotADirectory`] rather than the OS's "File exists".
pub(crate) fn make_dir(dir: &Path) -> Result<(), StoreError> {
    match std::fs::create_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) => {
            if let Some(blocker) = dir.ancestors().find(|a| a.exists() && !a.is_dir()) {
                return Err(StoreError::NotADirectory {
                    path: blocker.to_path_buf(),
                });
            }
            if read_only(&e) {
                return Err(StoreError::ReadOnly {
                    path: dir.to_path_buf(),
                    message: e.to_string(),
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
    /// `None` only while dropping.
    db: Option<redb::Database>,
    path: PathBuf,
    /// Set once damage was seen: the handle is then never closed (closing writes).
    damaged: AtomicBool,
    /// Whether every table of [`ALL_TABLES`] was found or made when it was opened: then a
    /// table that cannot be found is damage, never an empty table.
    complete: bool,
}

impl Drop for Store {
    fn drop(&mut self) {
        if let Some(db) = self.db.take() {
            if self.damaged.load(Ordering::Relaxed) {
                // Closing writes to the file; a damaged one is left exactly as it was found.
                std::mem::forget(db);
            } else {
                let _ = guard::guarded(|| drop(db));
            }
        }
    }
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
    ///
    /// A file that is there but is not a store (empty, or not a redb file) is refused, never
    /// replaced; damage found on the way, a panic inside redb included, is
    /// [`StoreError::Damaged`].
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
        {
            make_dir(dir).map_err(|e| match e {
                StoreError::Db { message, .. } => StoreError::Db {
                    path: path.to_path_buf(),
                    message,
                },
                e => e,
            })?;
        }
        match std::fs::symlink_metadata(path) {
            Ok(_) => check_header(path)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Self::create_whole(path)?,
            Err(e) => return Err(StoreError::from_redb(path, e)),
        }
        // The table list and root pages, before anything is read or written (opening writes):
        // a damaged table list would otherwise read as a store without those tables, and be
        // "repaired" by making them empty. A file redb must recover first is checked after.
        let checked =
            roots::check(path, false).map_err(|found| StoreError::damaged(path, found))?;
        let start = Instant::now();
        let db = loop {
            let res = guard::guarded(|| builder().create(path))
                .map_err(|p| StoreError::damaged(path, p))?;
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
                Err(e) => return Err(StoreError::from_redb(path, e)),
            }
        };
        let mut store = Store {
            db: Some(db),
            path: path.to_path_buf(),
            damaged: AtomicBool::new(false),
            complete: false,
        };
        if !checked && let Err(found) = roots::check(path, true) {
            return Err(store.damage(found));
        }
        store.prepare()?;
        store.complete = true;
        Ok(store)
    }

    /// Runs `f` in one read transaction of the store at `path` opened read-only: nothing is
    /// written (no header, no sync), nothing made or repaired. `None` when there is no store,
    /// or it cannot be opened so (it needs repair, it is of another format, it is damaged):
    /// for reading a cache, whose absence is never an error — the verb's own opens name any
    /// trouble.
    pub fn peek<T>(path: &Path, f: impl FnOnce(&Reader) -> T) -> Option<T> {
        if !path.is_file() || check_header(path).is_err() {
            return None;
        }
        let db = guard::guarded(|| builder().open_read_only(path))
            .ok()?
            .ok()?;
        // A handle for the reader's error paths only: it owns no database, so dropping it
        // closes nothing.
        let store = Store {
            db: None,
            path: path.to_path_buf(),
            damaged: AtomicBool::new(false),
            complete: false,
        };
        guard::guarded(|| {
            let tx = redb::ReadableDatabase::begin_read(&db).ok()?;
            let r = Reader { tx, store: &store };
            (r.format().ok()?? == FORMAT).then(|| f(&r))
        })
        .ok()
        .flatten()
    }

    /// Makes a new store beside `path` and links it into place whole, so a process killed
    /// while creating it never leaves a file that is not a store.
    fn create_whole(path: &Path) -> Result<(), StoreError> {
        let name = path
            .file_name()
            .map_or_else(|| "state.redb".into(), |n| n.to_string_lossy().into_owned());
        let tmp = path.with_file_name(format!(".{name}.new-{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        {
            let db = guard::guarded(|| builder().create(&tmp))
                .map_err(|p| StoreError::damaged(&tmp, p))?
                .map_err(|e| StoreError::from_redb(path, e))?;
            let store = Store {
                db: Some(db),
                path: tmp.clone(),
                damaged: AtomicBool::new(false),
                complete: false,
            };
            store.prepare()?;
        }
        let linked = std::fs::hard_link(&tmp, path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => {}
            // Another process made it first: theirs is whole too.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(StoreError::from_redb(path, e)),
        }
        let _ = mesh_node::durable::sync_dir(&mesh_node::durable::parent_dir(path));
        Ok(())
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn db(&self) -> Result<&redb::Database, StoreError> {
        self.db.as_ref().ok_or_else(|| StoreError::Db {
            path: self.path.clone(),
            message: "the store was closed".into(),
        })
    }

    fn err(&self, e: impl Into<redb::Error>) -> StoreError {
        let e = StoreError::from_redb(&self.path, e);
        if e.is_damaged() {
            self.damaged.store(true, Ordering::Relaxed);
        }
        e
    }

    /// Damage found in a value (a checksum that does not match, bytes that do not decode).
    fn bad_value(&self, e: StoreError) -> StoreError {
        self.damaged.store(true, Ordering::Relaxed);
        match e {
            StoreError::Decode { table, message } => {
                StoreError::damaged(&self.path, format!("in table `{table}`: {message}"))
            }
            e => e,
        }
    }

    /// A panic caught inside redb (or the code reading through it): damage, named.
    fn panicked(&self, what: String) -> StoreError {
        self.damage(what)
    }

    /// Damage found (`what`): named, and the handle is never closed, so the file is left as
    /// it was found.
    fn damage(&self, what: String) -> StoreError {
        self.damaged.store(true, Ordering::Relaxed);
        StoreError::damaged(&self.path, what)
    }

    /// Checks the format and the tables, migrating an older file and making the tables this
    /// store never made. A table it made (its `meta` entry `tables` lists it) that is not
    /// there is damage, never made anew: it would read as empty.
    fn prepare(&self) -> Result<(), StoreError> {
        let (found, made, present) = self.read(|r| {
            Ok((
                r.format()?,
                r.get(META_TABLES, TABLES_KEY)?,
                r.table_names()?,
            ))
        })?;
        if found.is_none() && !present.is_empty() {
            return Err(self.damage(format!(
                "it holds tables ({}) but no `meta` table saying what it is (a byte of its name or its entry changed)",
                present.join(", ")
            )));
        }
        if let Some(f) = found
            && f > FORMAT
        {
            return Err(StoreError::NewerFormat {
                path: self.path.clone(),
                found: f,
            });
        }
        if let Some(made) = &made
            && let Some(lost) = made.iter().find(|n| !present.contains(n))
        {
            return Err(self.damage(format!(
                "table `{lost}` is not in its list of tables, though the store made it (a byte of its name or its entry changed); it is not read as empty"
            )));
        }
        if made.is_none() && found.is_some() {
            // A store from before the list was kept: a name mesh does not know beside one it
            // misses is a damaged name, not a table never made.
            let unknown = present.iter().find(|n| !ALL_TABLES.contains(&n.as_str()));
            let missing = ALL_TABLES.iter().find(|n| !present.iter().any(|p| p == *n));
            if let (Some(unknown), Some(missing)) = (unknown, missing) {
                return Err(self.damage(format!(
                    "it holds a table `{unknown}` mesh does not know and not its table `{missing}` (a byte of a table's name changed); it is not read as empty"
                )));
            }
        }
        let made = made.unwrap_or_default();
        let whole = ALL_TABLES
            .iter()
            .all(|n| made.iter().any(|m| m == n) && present.iter().any(|p| p == n));
        if found == Some(FORMAT) && whole {
            return Ok(());
        }
        self.write(|w| {
            if let Some(f) = found {
                migrate::run(w, f)?;
            }
            for name in ALL_TABLES {
                w.table(Table::<()>::new(name))?;
            }
            let mut list = made.clone();
            list.extend(ALL_TABLES.iter().map(|n| n.to_string()));
            list.sort();
            list.dedup();
            w.put(META_TABLES, TABLES_KEY, &list)?;
            w.put(META_FORMAT, b"format", &FORMAT)
        })
    }

    /// Runs `f` in one read transaction: a consistent snapshot.
    pub fn read<T>(
        &self,
        f: impl FnOnce(&Reader) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        guard::guarded(|| {
            let tx = self.db()?.begin_read().map_err(|e| self.err(e))?;
            f(&Reader { tx, store: self })
        })
        .map_err(|p| self.panicked(p))?
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
            let tried = guard::guarded(|| self.db().map(|db| db.try_begin_write()))
                .map_err(|p| self.panicked(p))??;
            match tried {
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
        guard::guarded(move || {
            let w = Writer { tx, store: self };
            let out = f(&w)?;
            w.tx.commit().map_err(|e| self.err(e))?;
            Ok(out)
        })
        .map_err(|p| self.panicked(p))?
    }
}

/// Refuses a file that cannot be a store: empty, or not starting as a redb file does. Such a
/// file is never replaced by a new store: its history would be lost without a word.
fn check_header(path: &Path) -> Result<(), StoreError> {
    use std::io::Read;
    /// The first bytes of every redb file.
    const MAGIC: [u8; 9] = [b'r', b'e', b'd', b'b', 0x1A, 0x0A, 0xA9, 0x0D, 0x0A];
    let mut f = std::fs::File::open(path).map_err(|e| StoreError::from_redb(path, e))?;
    let mut head = [0u8; MAGIC.len()];
    let mut got = 0;
    while got < head.len() {
        match f.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => return Err(StoreError::from_redb(path, e)),
        }
    }
    if got == 0 {
        return Err(StoreError::damaged(
            path,
            "it is empty (0 bytes), so everything it recorded is gone; mesh does not start a new store in its place",
        ));
    }
    if got < MAGIC.len() || head != MAGIC {
        return Err(StoreError::damaged(
            path,
            "it is not a redb file (it does not begin as one), so mesh does not use or replace it",
        ));
    }
    Ok(())
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

impl Reader<'_> {
    /// What a read of the table `name` that is not in the file answers: `empty` for a store
    /// read as it is found ([`Store::peek`]); damage, named, for one whose tables were all
    /// found or made when it was opened.
    fn absent<T>(&self, name: &str, empty: T) -> Result<T, StoreError> {
        if self.store.complete {
            Err(self.store.damage(format!(
                "table `{name}` is missing from it, though every table was there when it was opened; it is not read as empty"
            )))
        } else {
            Ok(empty)
        }
    }

    /// The names of the tables in the file.
    fn table_names(&self) -> Result<Vec<String>, StoreError> {
        use redb::TableHandle;
        Ok(self
            .tx
            .list_tables()
            .map_err(|e| self.store.err(e))?
            .map(|h| h.name().to_string())
            .collect())
    }

    /// One value.
    pub fn get<V: DeserializeOwned>(
        &self,
        t: Table<V>,
        key: &[u8],
    ) -> Result<Option<V>, StoreError> {
        Ok(self.get_many(t, std::iter::once(key))?.pop().flatten())
    }

    /// [`Reader::get`] for many keys, with the table opened once: one answer per key, in
    /// order.
    pub(crate) fn get_many<'k, V: DeserializeOwned>(
        &self,
        t: Table<V>,
        keys: impl Iterator<Item = &'k [u8]>,
    ) -> Result<Vec<Option<V>>, StoreError> {
        let table = match self.tx.open_table(t.def()) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => {
                return self.absent(t.name(), keys.map(|_| None).collect());
            }
            Err(e) => return Err(self.store.err(e)),
        };
        keys.map(|key| {
            let v = table.get(key).map_err(|e| self.store.err(e))?;
            v.map(|v| decode(t.name(), key, v.value()))
                .transpose()
                .map_err(|e| self.store.bad_value(e))
        })
        .collect()
    }

    /// One value of a cache table: a value that does not decode (damaged, or written by another
    /// shape of the cache) is as good as none, never an error: the caller recomputes it.
    pub(crate) fn get_cached<V: DeserializeOwned>(&self, t: Table<V>, key: &[u8]) -> Option<V> {
        self.get_many_cached(t, std::iter::once(key))
            .pop()
            .flatten()
    }

    /// [`Reader::get_cached`] for many keys, with the table opened once: one answer per key,
    /// in order.
    pub(crate) fn get_many_cached<'k, V: DeserializeOwned>(
        &self,
        t: Table<V>,
        keys: impl Iterator<Item = &'k [u8]>,
    ) -> Vec<Option<V>> {
        let Ok(table) = self.tx.open_table(t.def()) else {
            return keys.map(|_| None).collect();
        };
        keys.map(|key| {
            let v = table.get(key).ok()??;
            decode(t.name(), key, v.value()).ok()
        })
        .collect()
    }

    /// The store's format number, from a file of any format.
    fn format(&self) -> Result<Option<u32>, StoreError> {
        let table = match self.tx.open_table(META.def()) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(self.store.err(e)),
        };
        let v = table.get(&b"format"[..]).map_err(|e| self.store.err(e))?;
        v.map(|v| codec::decode_any(META.name(), b"format", v.value()))
            .transpose()
            .map_err(|e| self.store.bad_value(e))
    }

    /// The last `n` entries in key order (the newest, for tables keyed by a rising sequence),
    /// in key order: what a page of the newest facts reads without reading the whole log.
    pub fn last<V: DeserializeOwned>(
        &self,
        t: Table<V>,
        n: usize,
    ) -> Result<Vec<(Vec<u8>, V)>, StoreError> {
        let table = match self.tx.open_table(t.def()) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => {
                return self.absent(t.name(), Vec::new());
            }
            Err(e) => return Err(self.store.err(e)),
        };
        let mut out = Vec::new();
        for item in table.iter().map_err(|e| self.store.err(e))?.rev().take(n) {
            let (k, v) = item.map_err(|e| self.store.err(e))?;
            let key = k.value();
            out.push((
                key.to_vec(),
                decode(t.name(), key, v.value()).map_err(|e| self.store.bad_value(e))?,
            ));
        }
        out.reverse();
        Ok(out)
    }

    /// Every (key, value) with `lo <= key < hi` (`hi` None: to the end), in key order.
    pub fn range<V: DeserializeOwned>(
        &self,
        t: Table<V>,
        lo: &[u8],
        hi: Option<&[u8]>,
    ) -> Result<Vec<(Vec<u8>, V)>, StoreError> {
        let table = match self.tx.open_table(t.def()) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => {
                return self.absent(t.name(), Vec::new());
            }
            Err(e) => return Err(self.store.err(e)),
        };
        collect(self.store, t, &table, lo, hi)
    }

    /// Every entry of a table keyed by a name (a node's, a module's), by that name.
    pub fn by_name<V: DeserializeOwned>(
        &self,
        t: Table<V>,
    ) -> Result<std::collections::HashMap<String, V>, StoreError> {
        Ok(self
            .range(t, b"", None)?
            .into_iter()
            .map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v))
            .collect())
    }

    /// How many entries a table holds.
    pub fn len<V>(&self, t: Table<V>) -> Result<u64, StoreError> {
        match self.tx.open_table(t.def()) {
            Ok(table) => table.len().map_err(|e| self.store.err(e)),
            Err(redb::TableError::TableDoesNotExist(_)) => self.absent(t.name(), 0),
            Err(e) => Err(self.store.err(e)),
        }
    }

    /// Every table's name and raw entries, each value's checksum checked: what `mesh doctor`
    /// and the backup's verification read. Returns (table, entries) per table.
    pub(crate) fn verify_all(&self) -> Result<Vec<(String, u64)>, StoreError> {
        use redb::TableHandle;
        let names: Vec<String> = self
            .tx
            .list_tables()
            .map_err(|e| self.store.err(e))?
            .map(|h| h.name().to_string())
            .collect();
        let mut out = Vec::new();
        for name in names {
            let def = redb::TableDefinition::<&[u8], &[u8]>::new(&name);
            let table = self.tx.open_table(def).map_err(|e| self.store.err(e))?;
            let mut n = 0u64;
            for item in table.iter().map_err(|e| self.store.err(e))? {
                let (k, v) = item.map_err(|e| self.store.err(e))?;
                codec::verify(&name, k.value(), v.value()).map_err(|e| self.store.bad_value(e))?;
                n += 1;
            }
            let len = table.len().map_err(|e| self.store.err(e))?;
            if len != n {
                return Err(self.store.panicked(format!(
                    "table `{name}` says it holds {len} entries, {n} were read"
                )));
            }
            out.push((name, n));
        }
        Ok(out)
    }
}

fn collect<V: DeserializeOwned>(
    store: &Store,
    t: Table<V>,
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    lo: &[u8],
    hi: Option<&[u8]>,
) -> Result<Vec<(Vec<u8>, V)>, StoreError> {
    let iter = match hi {
        Some(hi) => table.range::<&[u8]>(lo..hi),
        None => table.range::<&[u8]>(lo..),
    }
    .map_err(|e| store.err(e))?;
    let name = t.name();
    let mut out = Vec::new();
    for item in iter {
        let (k, v) = item.map_err(|e| store.err(e))?;
        let key = k.value();
        out.push((
            key.to_vec(),
            decode(name, key, v.value()).map_err(|e| store.bad_value(e))?,
        ));
    }
    // A whole table read: its entries must be as many as it says it holds, so a damaged page
    // that hides entries is named rather than believed.
    if lo.is_empty() && hi.is_none() {
        let len = table.len().map_err(|e| store.err(e))?;
        if len != out.len() as u64 {
            return Err(store.panicked(format!(
                "table `{name}` says it holds {len} entries, {} were read",
                out.len()
            )));
        }
    }
    Ok(out)
}

impl Writer<'_> {
    fn table<V>(
        &self,
        t: Table<V>,
    ) -> Result<redb::Table<'_, &'static [u8], &'static [u8]>, StoreError> {
        self.tx.open_table(t.def()).map_err(|e| self.store.err(e))
    }

    /// One value, as this transaction sees it.
    pub fn get<V: DeserializeOwned>(
        &self,
        t: Table<V>,
        key: &[u8],
    ) -> Result<Option<V>, StoreError> {
        let table = self.table(t)?;
        let v = table.get(key).map_err(|e| self.store.err(e))?;
        v.map(|v| decode(t.name(), key, v.value()))
            .transpose()
            .map_err(|e| self.store.bad_value(e))
    }

    /// Every (key, value) with `lo <= key < hi`, as this transaction sees it.
    pub fn range<V: DeserializeOwned>(
        &self,
        t: Table<V>,
        lo: &[u8],
        hi: Option<&[u8]>,
    ) -> Result<Vec<(Vec<u8>, V)>, StoreError> {
        collect(self.store, t, &self.table(t)?, lo, hi)
    }

    /// Sets one value.
    /// `v` may be any borrowed form of `V` (a `&str` for a `String` table): both encode alike.
    pub fn put<V, Q>(&self, t: Table<V>, key: &[u8], v: &Q) -> Result<(), StoreError>
    where
        V: std::borrow::Borrow<Q>,
        Q: Serialize + ?Sized,
    {
        let bytes = encode(t.name(), key, v);
        self.table(t)?
            .insert(key, bytes.as_slice())
            .map_err(|e| self.store.err(e))?;
        Ok(())
    }

    /// Values sealed for table `t` ([`Table::seal`]), with the table opened once (keys in
    /// order go in fastest).
    pub(crate) fn put_sealed<'v, V: 'v>(
        &self,
        t: Table<V>,
        items: impl IntoIterator<Item = &'v Sealed<V>>,
    ) -> Result<(), StoreError> {
        let mut table = self.table(t)?;
        for s in items {
            table
                .insert(s.key.as_slice(), s.bytes.as_slice())
                .map_err(|e| self.store.err(e))?;
        }
        Ok(())
    }

    /// Removes one value.
    pub fn remove<V>(&self, t: Table<V>, key: &[u8]) -> Result<(), StoreError> {
        self.table(t)?.remove(key).map_err(|e| self.store.err(e))?;
        Ok(())
    }

    /// How many entries a table holds.
    pub fn len<V>(&self, t: Table<V>) -> Result<u64, StoreError> {
        self.table(t)?.len().map_err(|e| self.store.err(e))
    }

    /// Removes the first `n` entries (in key order) of a table: retention of logs.
    pub(crate) fn drop_first<V>(&self, t: Table<V>, n: u64) -> Result<(), StoreError> {
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
pub fn peek<V: DeserializeOwned>(
    path: &Path,
    t: Table<V>,
) -> Result<Vec<(Vec<u8>, V)>, StoreError> {
    // A damaged file makes redb panic: guarded, it is an error like any other.
    guard::guarded(|| peek_unguarded(path, t)).unwrap_or_else(|message| {
        Err(StoreError::Db {
            path: path.to_path_buf(),
            message,
        })
    })
}

/// [`peek`] without the guard.
fn peek_unguarded<V: DeserializeOwned>(
    path: &Path,
    t: Table<V>,
) -> Result<Vec<(Vec<u8>, V)>, StoreError> {
    let err = |e: &dyn std::fmt::Display| StoreError::Db {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut b = redb::Builder::new();
    b.set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
    let db = b.open_read_only(path).map_err(|e| err(&e))?;
    let tx = db.begin_read().map_err(|e| err(&e))?;
    let table = match tx.open_table(t.def()) {
        Ok(table) => table,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
        Err(e) => return Err(err(&e)),
    };
    let name = t.name();
    let mut out = Vec::new();
    for entry in table.iter().map_err(|e| err(&e))? {
        let (k, v) = entry.map_err(|e| err(&e))?;
        out.push((
            k.value().to_vec(),
            codec::decode(name, k.value(), v.value())?,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
