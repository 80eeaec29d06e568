//! `doctor`: checks the store's invariants and the artifacts it names, says each problem, and
//! with `repair` fixes what can be fixed from the artifacts and the nodes — never inventing
//! history. What cannot be fixed is said with what to do.

use crate::Result;
use crate::events::{EVENTS, Event};
use crate::store::{
    BUILDS, BuildRecord, CURRENT, CurrentEntry, DECLARED, LATEST, META, NODES, NodeRecord, Paths,
    Reader, StoreError,
};
use mesh_node::artifact::ArtifactStore;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

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
    let Some(tables) = read_tables(&mut c, paths)? else {
        return Ok(c);
    };
    check_pages(&mut c, state);
    check_ids_rise(&mut c, &tables);
    check_sends(&mut c, &tables);
    check_declared_fit(&mut c, &tables);
    check_artifacts(&mut c, paths, &tables, repair);
    backup_health(&mut c, paths);
    if repair && !c.unwell() && !crate::store::backup_path(state).exists() {
        match crate::store::backup(state, std::time::Duration::ZERO) {
            Ok(_) => c.checked.push("a backup was made".into()),
            Err(e) => c.problem(format!("no backup could be made: {e}"), "free disk space"),
        }
    }
    Ok(c)
}

/// Every table `doctor` looks into, read in one transaction.
struct Tables {
    builds: Vec<(Vec<u8>, BuildRecord)>,
    current: Vec<(Vec<u8>, CurrentEntry)>,
    latest: Vec<(Vec<u8>, BuildRecord)>,
    declared: Vec<(Vec<u8>, BuildRecord)>,
    nodes: Vec<(Vec<u8>, NodeRecord)>,
    events: Vec<(Vec<u8>, Event)>,
    next_build: Option<u64>,
    next_event: Option<u64>,
}

impl Tables {
    /// Reads them in the read transaction `r`.
    fn read(r: &Reader) -> std::result::Result<Tables, StoreError> {
        Ok(Tables {
            builds: r.range(BUILDS, b"", None)?,
            current: r.range(CURRENT, b"", None)?,
            latest: r.range(LATEST, b"", None)?,
            declared: r.range(DECLARED, b"", None)?,
            nodes: r.range(NODES, b"", None)?,
            events: r.range(EVENTS, b"", None)?,
            next_build: r.get(META, b"next_build")?,
            next_event: r.get(META, b"next_event")?,
        })
    }
}

/// Opens the store, checks every value's checksum and reads the tables; the store is closed
/// again when this returns. `None` when the store is damaged (the problem is said, and for a
/// store that does not open or verify, the backup's health with it).
fn read_tables(c: &mut Checkup, paths: &Paths) -> Result<Option<Tables>> {
    let store = match crate::store::Store::open(&paths.state) {
        Ok(s) => s,
        Err(e) => {
            damaged(c, e)?;
            backup_health(c, paths);
            return Ok(None);
        }
    };
    // Every value's checksum, and each table's count.
    match store.read(|r| r.verify_all()) {
        Ok(tables) => c.checked.push(format!(
            "every value's checksum matches ({} values in {} tables)",
            tables.iter().map(|(_, n)| n).sum::<u64>(),
            tables.len()
        )),
        Err(e) => {
            damaged(c, e)?;
            backup_health(c, paths);
            return Ok(None);
        }
    }
    match store.read(Tables::read) {
        Ok(t) => Ok(Some(t)),
        Err(e) => {
            damaged(c, e)?;
            Ok(None)
        }
    }
}

/// A damaged store is a problem found; any other store error is the answer.
fn damaged(c: &mut Checkup, e: StoreError) -> Result<()> {
    match e {
        StoreError::Damaged { message, help, .. } => {
            c.problem(format!("the store is damaged: {message}"), help);
            Ok(())
        }
        e => Err(e.into()),
    }
}

/// redb's page checksums, on a copy (its repair rewrites the file it checks).
fn check_pages(c: &mut Checkup, state: &Path) {
    match crate::store::check_pages(state) {
        Ok(()) => c.checked.push("redb's page checksums match".into()),
        Err(why) => c.problem(
            format!("the store's pages do not verify: {why}"),
            format!(
                "restore the backup ({}) if it verifies, or keep this store while it reads",
                crate::store::backup_path(state).display()
            ),
        ),
    }
}

/// Keys and ids agree; build ids are below the next id; facts rise and are below the next
/// fact's sequence.
fn check_ids_rise(c: &mut Checkup, t: &Tables) {
    let mut sound = true;
    for (k, b) in &t.builds {
        if k.as_slice() != crate::store::id_key(b.id) {
            sound = false;
            c.problem(
                format!("build {} is recorded under another key", b.id),
                "restore the backup",
            );
        }
        if t.next_build.is_some_and(|n| b.id >= n) {
            sound = false;
            c.problem(
                format!("build {} is not below the next build id", b.id),
                "restore the backup",
            );
        }
    }
    let mut last = 0;
    for (_, e) in &t.events {
        if e.seq <= last {
            sound = false;
            c.problem(
                format!("the facts log is out of order at {}", e.seq),
                "restore the backup",
            );
        }
        last = e.seq;
    }
    if t.next_event.is_some_and(|n| last >= n) {
        sound = false;
        c.problem(
            format!("fact {last} is not below the next fact's sequence"),
            "restore the backup",
        );
    }
    if sound {
        c.checked.push(format!(
            "build ids and fact sequences rise ({} builds, {} facts)",
            t.builds.len(),
            t.events.len()
        ));
    }
}

/// Every send names builds the store holds; sequences never go back.
fn check_sends(c: &mut Checkup, t: &Tables) {
    let held: BTreeSet<u64> = t.builds.iter().map(|(_, b)| b.id).collect();
    let mut sends = 0;
    for (k, n) in &t.nodes {
        let node = String::from_utf8_lossy(k);
        let Some(sent) = &n.sent else {
            continue;
        };
        sends += 1;
        for (module, id) in &n.sent_builds {
            if !held.contains(id) {
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
    c.checked.push(format!(
        "{sends} recorded sends name builds the store holds"
    ));
}

/// Only fit builds are declared.
fn check_declared_fit(c: &mut Checkup, t: &Tables) {
    for (k, d) in &t.declared {
        if d.verdict != crate::store::Verdict::Fit {
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
}

/// Every recorded artifact exists with its digest. One that does not is a problem only while
/// a node, a declaration or a current build needs it; with `repair`, a damaged one is removed
/// so that its module builds again.
fn check_artifacts(c: &mut Checkup, paths: &Paths, t: &Tables, repair: bool) {
    let artifacts = ArtifactStore::new(paths.artifacts());
    let needed = needed_builds(t);
    let mut whole = 0;
    for (digest, ids) in builds_by_artifact(t) {
        if artifacts.verify(digest).unwrap_or(false) {
            whole += 1;
            continue;
        }
        let exists = artifacts.path(digest).exists();
        let what = unsound_artifact(digest, &ids, exists);
        if !ids.iter().any(|id| needed.contains(id)) {
            c.checked.push(format!(
                "{what}; no node, declaration or current build needs it"
            ));
        } else if !exists {
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
}

/// Each artifact a build or a declaration names, with the ids of the builds naming it (in
/// order, once each).
fn builds_by_artifact(t: &Tables) -> BTreeMap<&str, Vec<u64>> {
    let mut named: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for (_, b) in t.builds.iter().chain(&t.declared) {
        if let Some(a) = &b.artifact {
            named.entry(a.as_str()).or_default().push(b.id);
        }
    }
    for ids in named.values_mut() {
        ids.sort_unstable();
        ids.dedup();
    }
    named
}

/// The builds something still needs: current, latest, declared, or sent to or applied on a
/// node.
fn needed_builds(t: &Tables) -> BTreeSet<u64> {
    t.current
        .iter()
        .map(|(_, e)| e.id)
        .chain(t.latest.iter().map(|(_, b)| b.id))
        .chain(t.declared.iter().map(|(_, b)| b.id))
        .chain(
            t.nodes
                .iter()
                .flat_map(|(_, n)| n.sent_builds.iter().chain(&n.applied_builds).map(|p| p.1)),
        )
        .collect()
}

/// "the artifact DIGEST of build(s) IDS is missing" (or damaged, when it `exists`).
fn unsound_artifact(digest: &str, ids: &[u64], exists: bool) -> String {
    format!(
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
    )
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

/// The clones of the repositories followed by URL (`.mesh/repos/<name>.git`): each opens, and
/// how big it is, when it last fetched and which commit it holds are said. One not made yet is
/// no problem (the next run that reads the sources makes it).
pub fn check_clones(c: &mut Checkup, mesh: &crate::config::MeshConfig) {
    use crate::source::follow;
    for r in mesh.repos.iter().filter(|r| r.url.is_some()) {
        let clone = &r.path;
        if !clone.exists() {
            c.checked.push(format!(
                "repository `{}` has no clone yet (the next run that reads the sources makes {})",
                r.name,
                clone.display()
            ));
            continue;
        }
        let repo = match gix::open_opts(clone, gix::open::Options::isolated()) {
            Ok(repo) => repo,
            Err(e) => {
                c.problem(
                    format!(
                        "the clone of `{}` at {} does not open: {e}",
                        r.name,
                        clone.display()
                    ),
                    format!(
                        "remove {}: the next run that reads the sources clones it again",
                        clone.display()
                    ),
                );
                continue;
            }
        };
        let tracking = follow::tracking_ref(r.reference.as_deref());
        let holds = repo
            .find_reference(tracking.as_str())
            .ok()
            .and_then(|mut t| t.peel_to_commit().ok())
            .map_or_else(
                || format!("no {tracking}"),
                |commit| format!("{tracking} at {}", commit.id.to_hex_with_len(7)),
            );
        let fetched = follow::last_fetch_said(clone).unwrap_or_else(|| "never".into());
        c.checked.push(format!(
            "repository `{}`: clone {} ({}), last fetch {fetched}, {holds}",
            r.name,
            clone.display(),
            size(dir_bytes(clone)),
        ));
    }
}

/// The bytes of every file under `dir`.
fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            Ok(_) => e.metadata().map_or(0, |m| m.len()),
            Err(_) => 0,
        })
        .sum()
}

/// "812 KiB", "3.4 MiB": a size the way a person reads it.
fn size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    // Precision is not the point: a size said to one decimal.
    #[allow(clippy::cast_precision_loss)]
    let b = bytes as f64;
    if b < KIB * KIB {
        format!("{:.0} KiB", (b / KIB).ceil())
    } else if b < KIB * KIB * KIB {
        format!("{:.1} MiB", b / KIB / KIB)
    } else {
        format!("{:.1} GiB", b / KIB / KIB / KIB)
    }
}
