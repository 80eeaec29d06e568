//! Migrations of older store files, each in the one write transaction that opens them
//! (DESIGN.md §4): a store is read at the format this binary writes, or refused.

use super::{BUILDS, BuildRecord, DECLARED, IMPORTS, LATEST, MODULES, StoreError, Writer};
use serde::{Deserialize, Serialize};

/// Format 1 → 2: build records gain the source ids of their dev, optional and cycle
/// dependencies and the closure rules they were judged under (1 for every older build, so
/// `plan` says once that the rules changed); the import caches, whose shape changed with edge
/// kinds, are emptied (they are caches: the next `graph` reads the files again).
pub fn from_1(w: &Writer) -> Result<(), StoreError> {
    for table in [BUILDS, LATEST, DECLARED] {
        for (key, old) in w.range::<BuildRecordV1>(table, b"", None)? {
            w.put(table, &key, &old.upgrade())?;
        }
    }
    for table in [MODULES, IMPORTS] {
        let n = w.len(table)?;
        w.drop_first(table, n)?;
    }
    Ok(())
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
    verdict: crate::build::Verdict,
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
    fn upgrade(self) -> BuildRecord {
        BuildRecord {
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
    use crate::store::{META, Store};

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
            verdict: crate::build::Verdict::Fit,
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
    fn a_format_1_store_is_migrated_whole_when_opened() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("state.redb");
        {
            let s = Store::open(&path).expect("new store");
            s.write(|w| {
                w.put(META, b"format", &1u32)?;
                w.put(BUILDS, &crate::store::id_key(7), &v1(7, "geo"))?;
                w.put(LATEST, b"geo", &v1(7, "geo"))?;
                w.put(DECLARED, b"geo", &v1(7, "geo"))?;
                w.put(MODULES, b"geo", &"an old record")?;
                w.put(IMPORTS, b"blob", &"old imports")
            })
            .expect("write a format 1 store");
        }
        let s = Store::open(&path).expect("migrated");
        s.read(|r| {
            assert_eq!(r.get::<u32>(META, b"format")?, Some(crate::store::FORMAT));
            for t in [BUILDS, LATEST, DECLARED] {
                let all = r.range::<BuildRecord>(t, b"", None)?;
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
}
