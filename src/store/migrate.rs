//! Migrations: an older store is brought to [`super::FORMAT`] in the same write transaction
//! that records the new format, so a killed migration leaves the old file as it was.
//!
//! Each step is one function, run when the file's format is below the one that introduced it;
//! steps run in order, so steps from different changes stack.

use super::{BUILDS, BuildRecord, DECLARED, IMPORTS, LATEST, MODULES, StoreError, Writer, codec};
use serde::{Deserialize, Serialize};

/// Runs every step the file at `found` still needs.
pub(super) fn run(w: &Writer, found: u32) -> Result<(), StoreError> {
    if found < 2 {
        add_checksums(w)?;
    }
    if found < 3 {
        edge_kinds(w)?;
    }
    if found < 4 {
        records_name_blobs(w)?;
    }
    if found < 5 {
        checks_and_rollouts(w)?;
    }
    if found < 6 {
        instantiations_named(w)?;
    }
    Ok(())
}

/// Format 2: every value gets its checksum. Values are re-sealed byte for byte, never decoded,
/// so this step needs no knowledge of any table's records.
fn add_checksums(w: &Writer) -> Result<(), StoreError> {
    use redb::{ReadableTable, TableHandle};
    let names: Vec<String> =
        w.tx.list_tables()
            .map_err(|e| w.store.err(e))?
            .map(|h| h.name().to_string())
            .collect();
    for name in names {
        let def = redb::TableDefinition::<&[u8], &[u8]>::new(&name);
        let mut table = w.tx.open_table(def).map_err(|e| w.store.err(e))?;
        let mut sealed = Vec::new();
        for item in table.iter().map_err(|e| w.store.err(e))? {
            let (k, v) = item.map_err(|e| w.store.err(e))?;
            if let Some(new) = codec::upgrade(&name, k.value(), v.value()) {
                sealed.push((k.value().to_vec(), new));
            }
        }
        for (k, v) in sealed {
            table
                .insert(k.as_slice(), v.as_slice())
                .map_err(|e| w.store.err(e))?;
        }
    }
    Ok(())
}

/// Format 3: build records gain the source ids of their dev, optional and cycle
/// dependencies and the closure rules they were judged under (1 for every older build, so
/// `plan` says once that the rules changed); the import caches, whose shape changed with edge
/// kinds, are emptied (they are caches: the next `graph` reads the files again).
fn edge_kinds(w: &Writer) -> Result<(), StoreError> {
    for table in [BUILDS, LATEST, DECLARED] {
        for (key, old) in w.range(table.as_shape::<BuildRecordV1>(), b"", None)? {
            w.put(table.as_shape::<BuildRecordV4>(), &key, &old.upgrade())?;
        }
    }
    for table in [MODULES.as_shape::<()>(), IMPORTS.as_shape()] {
        let n = w.len(table)?;
        w.drop_first(table, n)?;
    }
    Ok(())
}

/// Format 4: module records name their files' blobs rather than copying their imports. The
/// old records are emptied (a cache: the next load walks the modules again, and finds every
/// blob's imports in `imports`, which keeps its shape).
fn records_name_blobs(w: &Writer) -> Result<(), StoreError> {
    let table = MODULES.as_shape::<()>();
    let n = w.len(table)?;
    w.drop_first(table, n)
}

/// Format 5: build records gain the module's check and rollout, as its manifest said at the
/// build's commit (none for every older build: a rebuild reads them).
fn checks_and_rollouts(w: &Writer) -> Result<(), StoreError> {
    for table in [BUILDS, LATEST, DECLARED] {
        for (key, old) in w.range(table.as_shape::<BuildRecordV4>(), b"", None)? {
            w.put(table.as_shape::<BuildRecordV5>(), &key, &old.upgrade())?;
        }
    }
    Ok(())
}

/// Format 6: build records name what each instantiation provider is called (`as`; the
/// provider's name for every older build) and the module's own `provide` (none for every
/// older build: a rebuild reads it).
fn instantiations_named(w: &Writer) -> Result<(), StoreError> {
    for table in [BUILDS, LATEST, DECLARED] {
        for (key, old) in w.range(table.as_shape::<BuildRecordV5>(), b"", None)? {
            w.put(table, &key, &old.upgrade())?;
        }
    }
    Ok(())
}

/// A build record as format 5 wrote it.
#[derive(Serialize, Deserialize)]
struct BuildRecordV5 {
    id: u64,
    module: String,
    repo: String,
    commit: String,
    source: String,
    recipe: String,
    inputs: Vec<(String, String)>,
    sources: Vec<(String, String)>,
    rule: u32,
    closure: String,
    verdict: crate::store::Verdict,
    reason: Option<String>,
    artifact: Option<String>,
    size: u64,
    started: u64,
    finished: u64,
    log: Option<String>,
    activate: Option<String>,
    presence: Vec<String>,
    instantiation: Vec<String>,
    policy: crate::config::Policy,
    check: Option<crate::store::Check>,
    rollout: crate::config::RolloutOverride,
}

impl BuildRecordV5 {
    fn upgrade(self) -> BuildRecord {
        BuildRecord {
            id: self.id,
            module: self.module,
            repo: self.repo,
            commit: self.commit,
            source: self.source,
            recipe: self.recipe,
            inputs: self.inputs,
            sources: self.sources,
            rule: self.rule,
            closure: self.closure,
            verdict: self.verdict,
            reason: self.reason,
            artifact: self.artifact,
            size: self.size,
            started: self.started,
            finished: self.finished,
            log: self.log,
            activate: self.activate,
            presence: self.presence,
            instantiation: self
                .instantiation
                .into_iter()
                .map(|module| crate::config::Instantiation {
                    alias: module.clone(),
                    module,
                })
                .collect(),
            policy: self.policy,
            check: self.check,
            rollout: self.rollout,
            provide: None,
        }
    }
}

/// A build record as formats 3 and 4 wrote it.
#[derive(Serialize, Deserialize)]
struct BuildRecordV4 {
    id: u64,
    module: String,
    repo: String,
    commit: String,
    source: String,
    recipe: String,
    inputs: Vec<(String, String)>,
    sources: Vec<(String, String)>,
    rule: u32,
    closure: String,
    verdict: crate::store::Verdict,
    reason: Option<String>,
    artifact: Option<String>,
    size: u64,
    started: u64,
    finished: u64,
    log: Option<String>,
    activate: Option<String>,
    presence: Vec<String>,
    instantiation: Vec<String>,
    policy: crate::config::Policy,
}

impl BuildRecordV4 {
    fn upgrade(self) -> BuildRecordV5 {
        BuildRecordV5 {
            id: self.id,
            module: self.module,
            repo: self.repo,
            commit: self.commit,
            source: self.source,
            recipe: self.recipe,
            inputs: self.inputs,
            sources: self.sources,
            rule: self.rule,
            closure: self.closure,
            verdict: self.verdict,
            reason: self.reason,
            artifact: self.artifact,
            size: self.size,
            started: self.started,
            finished: self.finished,
            log: self.log,
            activate: self.activate,
            presence: self.presence,
            instantiation: self.instantiation,
            policy: self.policy,
            check: None,
            rollout: Default::default(),
        }
    }
}

/// A build record as format 1 wrote it.
#[derive(Serialize, Deserialize)]
struct BuildRecordV1 {
    id: u64,
    module: String,
    repo: String,
    commit: String,
    source: String,
    recipe: String,
    inputs: Vec<(String, String)>,
    closure: String,
    verdict: crate::store::Verdict,
    reason: Option<String>,
    artifact: Option<String>,
    size: u64,
    started: u64,
    finished: u64,
    log: Option<String>,
    activate: Option<String>,
    presence: Vec<String>,
    instantiation: Vec<String>,
    policy: crate::config::Policy,
}

impl BuildRecordV1 {
    fn upgrade(self) -> BuildRecordV4 {
        BuildRecordV4 {
            id: self.id,
            module: self.module,
            repo: self.repo,
            commit: self.commit,
            source: self.source,
            recipe: self.recipe,
            inputs: self.inputs,
            sources: Vec::new(),
            rule: 1,
            closure: self.closure,
            verdict: self.verdict,
            reason: self.reason,
            artifact: self.artifact,
            size: self.size,
            started: self.started,
            finished: self.finished,
            log: self.log,
            activate: self.activate,
            presence: self.presence,
            instantiation: self.instantiation,
            policy: self.policy,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{META, META_FORMAT, NODES, NodeRecord, Store};

    /// A store as format 1 wrote it: values without checksums.
    fn format_1(path: &std::path::Path) {
        let db = redb::Database::create(path).expect("create");
        let tx = db.begin_write().expect("write");
        {
            let mut meta = tx.open_table(META.def()).expect("meta");
            let mut v = vec![1u8];
            v.extend(
                bincode::serde::encode_to_vec(1u32, bincode::config::standard()).expect("enc"),
            );
            meta.insert(&b"format"[..], v.as_slice()).expect("insert");
            let mut nodes = tx.open_table(NODES.def()).expect("nodes");
            let rec = NodeRecord {
                report_sequence: 42,
                ..NodeRecord::default()
            };
            let mut v = vec![1u8];
            v.extend(
                bincode::serde::encode_to_vec(&rec, bincode::config::standard()).expect("enc"),
            );
            nodes.insert(&b"ace"[..], v.as_slice()).expect("insert");
        }
        tx.commit().expect("commit");
    }

    #[test]
    fn a_format_1_store_is_migrated_in_place_and_keeps_its_values() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("state.redb");
        format_1(&path);
        let store = Store::open(&path).expect("opens and migrates");
        let rec: Option<NodeRecord> = store.read(|r| r.get(NODES, b"ace")).expect("read");
        assert_eq!(rec.map(|r| r.report_sequence), Some(42));
        let format: Option<u32> = store.read(|r| r.get(META_FORMAT, b"format")).expect("read");
        assert_eq!(format, Some(crate::store::FORMAT));
        assert!(store.read(|r| r.verify_all()).is_ok(), "every value sealed");
    }

    fn v1(id: u64, module: &str) -> BuildRecordV1 {
        BuildRecordV1 {
            id,
            module: module.into(),
            repo: "r".into(),
            commit: "c".into(),
            source: "s".into(),
            recipe: "x".into(),
            inputs: vec![("dep".into(), "a1".into())],
            closure: "k".into(),
            verdict: crate::store::Verdict::Fit,
            reason: None,
            artifact: Some("a".into()),
            size: 1,
            started: 2,
            finished: 3,
            log: None,
            activate: None,
            presence: vec![],
            instantiation: vec![],
            policy: crate::config::Policy::Auto,
        }
    }

    #[test]
    fn a_format_3_store_keeps_its_imports_and_empties_its_module_records() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("state.redb");
        {
            let s = Store::open(&path).expect("new store");
            s.write(|w| {
                w.put(META_FORMAT, b"format", &3u32)?;
                w.put(
                    MODULES.as_shape::<String>(),
                    b"geo",
                    "a record with its imports",
                )?;
                w.put(IMPORTS.as_shape::<String>(), b"blob", "a blob's imports")
            })
            .expect("write a format 3 store");
        }
        let s = Store::open(&path).expect("migrated");
        s.read(|r| {
            assert_eq!(r.get(META_FORMAT, b"format")?, Some(crate::store::FORMAT));
            assert_eq!(r.len(MODULES)?, 0);
            assert_eq!(r.len(IMPORTS)?, 1);
            Ok(())
        })
        .expect("read");
    }

    #[test]
    fn a_format_1_store_is_migrated_whole_when_opened() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("state.redb");
        {
            let s = Store::open(&path).expect("new store");
            s.write(|w| {
                w.put(META_FORMAT, b"format", &1u32)?;
                w.put(
                    BUILDS.as_shape::<BuildRecordV1>(),
                    &crate::store::id_key(7),
                    &v1(7, "geo"),
                )?;
                w.put(LATEST.as_shape::<BuildRecordV1>(), b"geo", &v1(7, "geo"))?;
                w.put(DECLARED.as_shape::<BuildRecordV1>(), b"geo", &v1(7, "geo"))?;
                w.put(MODULES.as_shape::<String>(), b"geo", "an old record")?;
                w.put(IMPORTS.as_shape::<String>(), b"blob", "old imports")
            })
            .expect("write a format 1 store");
        }
        let s = Store::open(&path).expect("migrated");
        s.read(|r| {
            assert_eq!(r.get(META_FORMAT, b"format")?, Some(crate::store::FORMAT));
            for t in [BUILDS, LATEST, DECLARED] {
                let all = r.range(t, b"", None)?;
                assert_eq!(all.len(), 1);
                let b = &all[0].1;
                assert_eq!((b.id, b.rule, b.sources.len()), (7, 1, 0));
                assert_eq!(b.inputs, vec![("dep".to_string(), "a1".to_string())]);
            }
            assert_eq!(r.len(MODULES)?, 0);
            assert_eq!(r.len(IMPORTS)?, 0);
            Ok(())
        })
        .expect("read");
    }

    #[test]
    fn a_format_4_store_keeps_its_builds_with_no_check_and_no_rollout_of_their_own() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("state.redb");
        {
            let s = Store::open(&path).expect("new store");
            s.write(|w| {
                w.put(META_FORMAT, b"format", &4u32)?;
                let v4 = v1(9, "web").upgrade();
                w.put(
                    BUILDS.as_shape::<BuildRecordV4>(),
                    &crate::store::id_key(9),
                    &v4,
                )?;
                w.put(
                    DECLARED.as_shape::<BuildRecordV4>(),
                    b"web",
                    &v1(9, "web").upgrade(),
                )
            })
            .expect("write a format 4 store");
        }
        let s = Store::open(&path).expect("migrated");
        s.read(|r| {
            assert_eq!(r.get(META_FORMAT, b"format")?, Some(crate::store::FORMAT));
            for t in [BUILDS, DECLARED] {
                let all = r.range(t, b"", None)?;
                assert_eq!(all.len(), 1);
                let b = &all[0].1;
                assert_eq!((b.id, b.module.as_str(), b.rule), (9, "web", 1));
                assert_eq!(b.check, None);
                assert_eq!(b.rollout, Default::default());
            }
            Ok(())
        })
        .expect("read");
    }

    #[test]
    fn a_format_5_store_names_each_instantiation_by_its_provider_and_provides_nothing() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("state.redb");
        {
            let s = Store::open(&path).expect("new store");
            s.write(|w| {
                w.put(META_FORMAT, b"format", &5u32)?;
                let mut old = v1(9, "api");
                old.instantiation = vec!["postgres".into()];
                let v5 = old.upgrade().upgrade();
                w.put(
                    BUILDS.as_shape::<BuildRecordV5>(),
                    &crate::store::id_key(9),
                    &v5,
                )
            })
            .expect("write a format 5 store");
        }
        let s = Store::open(&path).expect("migrated");
        s.read(|r| {
            assert_eq!(r.get(META_FORMAT, b"format")?, Some(crate::store::FORMAT));
            let all = r.range(BUILDS, b"", None)?;
            let b = &all[0].1;
            assert_eq!(
                b.instantiation,
                vec![crate::config::Instantiation {
                    module: "postgres".into(),
                    alias: "postgres".into()
                }]
            );
            assert_eq!((b.provide.clone(), b.check.clone()), (None, None));
            Ok(())
        })
        .expect("read");
    }
}
