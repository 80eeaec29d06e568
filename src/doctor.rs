//! `doctor`: checks the store's invariants and the artifacts it names, says each problem, and
//! with `repair` fixes what can be fixed from the artifacts and the nodes — never inventing
//! history. What cannot be fixed is said with what to do.

use crate::Result;
use crate::artifact::ArtifactStore;
use crate::events::EVENTS;
use crate::store::{
    BUILDS, BuildRecord, CURRENT, DECLARED, LATEST, META, NODES, Paths, StoreError,
};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// What `doctor` found.
#[derive(Debug, Default, Serialize)]
pub struct Checkup {
    /// What was checked and found sound, one line each.
    pub checked: Vec<String>,
    /// What was found wrong.
    pub problems: Vec<Problem>,
}

/// One problem.
#[derive(Debug, Serialize)]
pub struct Problem {
    /// What is wrong.
    pub what: String,
    /// What to do about it (or what `--repair` did).
    pub fix: String,
    /// Whether `--repair` fixed it.
    pub repaired: bool,
}

impl Checkup {
    fn problem(&mut self, what: String, fix: impl Into<String>) {
        self.problems.push(Problem {
            what,
            fix: fix.into(),
            repaired: false,
        });
    }

    fn repaired(&mut self, what: String, fix: impl Into<String>) {
        self.problems.push(Problem {
            what,
            fix: fix.into(),
            repaired: true,
        });
    }

    /// Whether something is still wrong.
    pub fn unwell(&self) -> bool {
        self.problems.iter().any(|p| !p.repaired)
    }
}

/// Checks the store at `paths` (the caller holds the mesh lock when `repair`).
pub fn doctor(paths: &Paths, repair: bool) -> Result<Checkup> {
    let mut c = Checkup::default();
    let state = &paths.state;
    if !state.exists() {
        c.checked
            .push(format!("there is no store yet at {}", state.display()));
        return Ok(c);
    }
    let bak = crate::store::backup_path(state);
    let store = match crate::store::Store::open(state) {
        Ok(s) => s,
        Err(StoreError::Damaged { message, help, .. }) => {
            c.problem(format!("the store is damaged: {message}"), help);
            backup_health(&mut c, paths);
            return Ok(c);
        }
        Err(e) => return Err(e.into()),
    };
    // Every value's checksum, and each table's count.
    match store.read(|r| r.verify_all()) {
        Ok(tables) => c.checked.push(format!(
            "every value's checksum matches ({} values in {} tables)",
            tables.iter().map(|(_, n)| n).sum::<u64>(),
            tables.len()
        )),
        Err(StoreError::Damaged { message, help, .. }) => {
            c.problem(format!("the store is damaged: {message}"), help);
            backup_health(&mut c, paths);
            return Ok(c);
        }
        Err(e) => return Err(e.into()),
    }
    let r = store.read(|r| {
        Ok((
            r.range(BUILDS, b"", None)?,
            r.range(CURRENT, b"", None)?,
            r.range(LATEST, b"", None)?,
            r.range(DECLARED, b"", None)?,
            r.range(NODES, b"", None)?,
            r.range(EVENTS, b"", None)?,
            r.get(META, b"next_build")?,
            r.get(META, b"next_event")?,
        ))
    });
    let (builds, current, latest, declared, nodes, events, next_build, next_event) = match r {
        Ok(v) => v,
        Err(StoreError::Damaged { message, help, .. }) => {
            c.problem(format!("the store is damaged: {message}"), help);
            return Ok(c);
        }
        Err(e) => return Err(e.into()),
    };
    drop(store);
    // redb's page checksums, on a copy (its repair rewrites the file it checks).
    match crate::store::check_pages(state) {
        Ok(()) => c.checked.push("redb's page checksums match".into()),
        Err(why) => c.problem(
            format!("the store's pages do not verify: {why}"),
            format!(
                "restore the backup ({}) if it verifies, or keep this store while it reads",
                bak.display()
            ),
        ),
    }

    let by_id: BTreeMap<u64, &BuildRecord> = builds.iter().map(|(_, b)| (b.id, b)).collect();
    // Keys and ids agree; ids below the next id.
    let mut sound = true;
    for (k, b) in &builds {
        if k.as_slice() != crate::store::id_key(b.id) {
            sound = false;
            c.problem(
                format!("build {} is recorded under another key", b.id),
                "restore the backup",
            );
        }
        if next_build.is_some_and(|n| b.id >= n) {
            sound = false;
            c.problem(
                format!("build {} is not below the next build id", b.id),
                "restore the backup",
            );
        }
    }
    let mut last = 0;
    for (_, e) in &events {
        if e.seq <= last {
            sound = false;
            c.problem(
                format!("the facts log is out of order at {}", e.seq),
                "restore the backup",
            );
        }
        last = e.seq;
    }
    if next_event.is_some_and(|n| last >= n) {
        sound = false;
        c.problem(
            format!("fact {last} is not below the next fact's sequence"),
            "restore the backup",
        );
    }
    if sound {
        c.checked.push(format!(
            "build ids and fact sequences rise ({} builds, {} facts)",
            builds.len(),
            events.len()
        ));
    }

    // Every send names builds the store holds; sequences never go back.
    let mut sends = 0;
    for (k, n) in &nodes {
        let node = String::from_utf8_lossy(k);
        if let Some(sent) = &n.sent {
            sends += 1;
            for (module, id) in &n.sent_builds {
                if !by_id.contains_key(id) {
                    c.problem(
                        format!(
                            "{node} was sent build {id} of {module}, which the store does not hold"
                        ),
                        "`mesh push --all` sends what is declared now",
                    );
                }
            }
            if let Some(a) = &n.applied
                && a.sequence > sent.sequence
            {
                c.problem(
                    format!(
                        "{node} applied sequence {}, above the {} it was last sent",
                        a.sequence, sent.sequence
                    ),
                    "the next push numbers above what the node holds; nothing to do",
                );
            }
        }
    }
    c.checked.push(format!(
        "{sends} recorded sends name builds the store holds"
    ));
    for (k, d) in &declared {
        if d.verdict != crate::builder::Verdict::Fit {
            c.problem(
                format!(
                    "{} is declared with build {}, which is {}",
                    String::from_utf8_lossy(k),
                    d.id,
                    d.verdict
                ),
                "`mesh declare` it again",
            );
        }
    }

    // Every recorded artifact exists with its digest.
    let artifacts = ArtifactStore::new(paths.artifacts());
    let mut named: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for (_, b) in &builds {
        if let Some(a) = &b.artifact {
            named.entry(a.as_str()).or_default().push(b.id);
        }
    }
    for (_, d) in &declared {
        if let Some(a) = &d.artifact {
            named.entry(a.as_str()).or_default().push(d.id);
        }
    }
    let needed: BTreeSet<u64> = current
        .iter()
        .map(|(_, e)| e.id)
        .chain(latest.iter().map(|(_, b)| b.id))
        .chain(declared.iter().map(|(_, b)| b.id))
        .chain(
            nodes
                .iter()
                .flat_map(|(_, n)| n.sent_builds.iter().chain(&n.applied_builds).map(|p| p.1)),
        )
        .collect();
    let mut whole = 0;
    for (digest, ids) in &mut named {
        ids.sort_unstable();
        ids.dedup();
        let ok = artifacts.verify(digest).unwrap_or(false);
        if ok {
            whole += 1;
            continue;
        }
        let exists = artifacts.path(digest).exists();
        let still_needed = ids.iter().any(|id| needed.contains(id));
        let what = format!(
            "the artifact {} of build{} {} is {}",
            &digest[..digest.len().min(12)],
            if ids.len() > 1 { "s" } else { "" },
            ids.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            if exists {
                "damaged (its content does not match its digest)"
            } else {
                "missing"
            }
        );
        if !still_needed {
            c.checked.push(format!(
                "{what}; no node, declaration or current build needs it"
            ));
            continue;
        }
        if !exists {
            c.problem(
                what,
                "its module is stale: the next `mesh reconcile` builds it again",
            );
        } else if repair {
            let _ = artifacts.remove(digest);
            c.repaired(
                what,
                "removed; the module is stale and the next `mesh reconcile` builds it again",
            );
        } else {
            c.problem(
                what,
                "`mesh doctor --repair` removes it so that the next `mesh reconcile` builds it again",
            );
        }
    }
    c.checked
        .push(format!("{whole} artifacts match their digests"));
    backup_health(&mut c, paths);
    if repair && !c.unwell() && !crate::store::backup_path(state).exists() {
        match crate::store::backup(state, std::time::Duration::ZERO) {
            Ok(_) => c.checked.push("a backup was made".into()),
            Err(e) => c.problem(format!("no backup could be made: {e}"), "free disk space"),
        }
    }
    Ok(c)
}

/// Whether the backup is there and whole.
fn backup_health(c: &mut Checkup, paths: &Paths) {
    let bak = crate::store::backup_path(&paths.state);
    if !bak.exists() {
        c.checked.push(format!(
            "there is no backup yet ({} is made after a run that changed something)",
            bak.display()
        ));
        return;
    }
    match crate::store::check_backup(&paths.state) {
        Ok((tables, values)) => c.checked.push(format!(
            "the backup {} is whole ({values} values in {tables} tables)",
            bak.display()
        )),
        Err(e) => c.problem(
            format!("the backup {} is not usable: {e}", bak.display()),
            "the next `mesh reconcile` that changes something makes a new one from a sound store",
        ),
    }
}
