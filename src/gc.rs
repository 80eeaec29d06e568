//! Garbage collection: removes what nothing needs, so a mesh run by cron for years stops
//! growing. Kept: every build a node was sent or applied, the declared and the newest build of
//! every module, each module's newest `builds_keep` builds and its newest judged one; with
//! them their artifacts, logs and closure entries. Everything else — older builds, their
//! closure entries (`current`), artifacts, logs, the logs of deleted modules, unpacked inputs
//! (`.mesh/deps`) and leftover temp files — goes.
//!
//! Crash-safe by order: the records go first, in one write transaction; files go after, and
//! only files no remaining record names, so a kill at any point leaves a store that opens and
//! files that the next collection finds again. Never removes what a node could still be sent:
//! what is declared is kept, and every declaration is composed from it.

use crate::Result;
use crate::store::Verdict;
use crate::store::{
    BUILDS, BuildRecord, CURRENT, CurrentEntry, DECLARED, LATEST, NODES, NodeRecord, Paths, Reader,
    StoreError, id_key,
};
use mesh_node::artifact::{COMPRESSED, is_digest};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// At most this many records are removed in one pass (one transaction stays short).
const MAX_RECORDS: usize = 5_000;
/// Temp files younger than this may belong to a write in progress.
const TEMP_AGE: Duration = Duration::from_secs(3600);

/// How a collection runs.
#[derive(Debug, Clone)]
pub struct GcOptions {
    /// Only say what would go.
    pub dry_run: bool,
    /// Each module's newest builds kept.
    pub builds_keep: usize,
    /// Stop removing files after this long (the rest goes next time); `None`: no limit.
    pub time_limit: Option<Duration>,
    /// The modules the mesh has now, when known: a module gone from the repositories keeps
    /// only the builds a node holds or was sent and its declared one, so its builds and logs
    /// go too.
    pub modules: Option<BTreeSet<String>>,
}

/// What was removed (or, with `dry_run`, would be).
#[derive(Debug, Default, Serialize)]
pub struct Collected {
    /// Build ids removed.
    pub builds: Vec<u64>,
    /// Closure entries removed.
    pub closures: usize,
    /// Artifact digests removed.
    pub artifacts: Vec<String>,
    /// Log files removed.
    pub logs: usize,
    /// Other files and directories removed (unpacked inputs, temp files).
    pub other: usize,
    /// Bytes freed (files only).
    pub bytes: u64,
    /// Whether the time limit stopped it before it was done.
    pub unfinished: bool,
}

/// Collects. The caller holds the mesh lock and no store.
pub fn gc(paths: &Paths, opts: &GcOptions) -> Result<Collected> {
    let start = Instant::now();
    let mut out = Collected::default();
    let store = paths.open()?;
    let records = store.read(Records::read)?;
    let keep = kept_builds(&records, opts);
    let gone = Gone::select(&records, &keep);
    out.builds = gone.ids.iter().copied().collect();
    out.closures = gone.closures.len();

    // Records first, in one transaction: a kill after it leaves files no record names.
    if !opts.dry_run && (!gone.builds.is_empty() || !gone.closures.is_empty()) {
        store.write(|w| {
            for b in &gone.builds {
                w.remove(BUILDS, &id_key(b.id))?;
                w.remove(crate::remote::BUILT, &id_key(b.id))?;
            }
            for k in &gone.closures {
                w.remove(CURRENT, k)?;
            }
            Ok(())
        })?;
    }
    drop(store);

    let named = named_artifacts(&records, opts, &keep, &gone);
    let mut files = Files {
        dry_run: opts.dry_run,
        deadline: opts.time_limit.map(|l| start + l),
        out: &mut out,
    };
    remove_artifacts(&mut files, &paths.artifacts(), &named);
    remove_logs(&mut files, paths, &records, opts, &gone);
    remove_unpacked_inputs(&mut files, &paths.deps(), &named);
    Ok(out)
}

impl GcOptions {
    /// Whether module `m` is in the mesh now (every module is, when the modules are not known).
    fn in_mesh(&self, m: &str) -> bool {
        self.modules.as_ref().is_none_or(|ms| ms.contains(m))
    }
}

/// The records a collection decides over, read in one transaction.
struct Records {
    builds: Vec<(Vec<u8>, BuildRecord)>,
    current: Vec<(Vec<u8>, CurrentEntry)>,
    latest: Vec<(Vec<u8>, BuildRecord)>,
    declared: Vec<(Vec<u8>, BuildRecord)>,
    nodes: Vec<(Vec<u8>, NodeRecord)>,
}

impl Records {
    /// Reads them in the read transaction `r`.
    fn read(r: &Reader) -> std::result::Result<Records, StoreError> {
        Ok(Records {
            builds: r.range(BUILDS, b"", None)?,
            current: r.range(CURRENT, b"", None)?,
            latest: r.range(LATEST, b"", None)?,
            declared: r.range(DECLARED, b"", None)?,
            nodes: r.range(NODES, b"", None)?,
        })
    }

    /// The newest build of every module in the mesh.
    fn latest_in_mesh<'a>(&'a self, opts: &'a GcOptions) -> impl Iterator<Item = &'a BuildRecord> {
        self.latest
            .iter()
            .map(|(_, b)| b)
            .filter(|b| opts.in_mesh(&b.module))
    }

    /// The builds that stay once `gone` is removed.
    fn remaining<'a>(&'a self, gone: &'a Gone) -> impl Iterator<Item = &'a BuildRecord> {
        self.builds
            .iter()
            .map(|(_, b)| b)
            .filter(|b| !gone.ids.contains(&b.id))
    }
}

/// The builds that stay: the newest and the declared build of every module, every build a
/// node was sent or applied, and of each module in the mesh its newest `builds_keep`, its
/// newest judged and its newest fit build.
fn kept_builds(records: &Records, opts: &GcOptions) -> BTreeSet<u64> {
    let mut keep: BTreeSet<u64> = BTreeSet::new();
    keep.extend(records.latest_in_mesh(opts).map(|b| b.id));
    keep.extend(records.declared.iter().map(|(_, b)| b.id));
    for (_, n) in &records.nodes {
        keep.extend(n.sent_builds.iter().chain(&n.applied_builds).map(|p| p.1));
    }
    let mut per_module: BTreeMap<&str, Vec<&BuildRecord>> = BTreeMap::new();
    for (_, b) in &records.builds {
        per_module.entry(b.module.as_str()).or_default().push(b);
    }
    per_module.retain(|m, _| opts.in_mesh(m));
    for list in per_module.values_mut() {
        list.sort_by_key(|b| std::cmp::Reverse(b.id));
        keep.extend(list.iter().take(opts.builds_keep).map(|b| b.id));
        // The newest judged build and the newest fit one: what keeps the module current.
        if let Some(b) = list.iter().find(|b| b.verdict != Verdict::Outstanding) {
            keep.insert(b.id);
        }
        if let Some(b) = list.iter().find(|b| b.verdict == Verdict::Fit) {
            keep.insert(b.id);
        }
    }
    keep
}

/// The records that go this pass: at most [`MAX_RECORDS`] builds and as many closure entries.
struct Gone<'r> {
    /// The builds not kept.
    builds: Vec<&'r BuildRecord>,
    /// Their ids.
    ids: BTreeSet<u64>,
    /// The keys of closure entries whose build is not kept.
    closures: Vec<&'r Vec<u8>>,
}

impl<'r> Gone<'r> {
    /// What goes of `records` when `keep` stays, in key order.
    fn select(records: &'r Records, keep: &BTreeSet<u64>) -> Gone<'r> {
        let builds: Vec<&BuildRecord> = records
            .builds
            .iter()
            .map(|(_, b)| b)
            .filter(|b| !keep.contains(&b.id))
            .take(MAX_RECORDS)
            .collect();
        let ids = builds.iter().map(|b| b.id).collect();
        let closures = records
            .current
            .iter()
            .filter(|(_, e)| !keep.contains(&e.id))
            .map(|(k, _)| k)
            .take(MAX_RECORDS)
            .collect();
        Gone {
            builds,
            ids,
            closures,
        }
    }
}

/// The artifacts every remaining record names.
fn named_artifacts<'r>(
    records: &'r Records,
    opts: &'r GcOptions,
    keep: &BTreeSet<u64>,
    gone: &'r Gone,
) -> BTreeSet<&'r str> {
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for b in records.remaining(gone) {
        named.extend(b.artifact.as_deref());
    }
    for b in records.latest_in_mesh(opts) {
        named.extend(b.artifact.as_deref());
    }
    // The declared build of every module, in the mesh or not: a declaration is composed from
    // these, so what they name could be sent.
    for (_, b) in &records.declared {
        named.extend(b.artifact.as_deref());
    }
    for (_, e) in &records.current {
        if keep.contains(&e.id) {
            named.extend(e.artifact.as_deref());
        }
    }
    named
}

/// Artifacts no record names, and temp files a killed write left.
fn remove_artifacts(files: &mut Files, dir: &Path, named: &BTreeSet<&str>) {
    for (name, path) in entries(dir) {
        if is_digest(&name) {
            if !named.contains(name.as_str()) && files.remove(&path) {
                files.out.artifacts.push(name);
            }
        } else if let Some(digest) = name.strip_suffix(COMPRESSED).filter(|d| is_digest(d)) {
            // The compressed copy goes with its artifact (not counted twice).
            if !named.contains(digest) {
                files.remove(&path);
            }
        } else if old(&path) && files.remove(&path) {
            files.out.other += 1;
        }
    }
}

/// Logs of removed builds, then what is left of deleted modules' logs.
fn remove_logs(files: &mut Files, paths: &Paths, records: &Records, opts: &GcOptions, gone: &Gone) {
    let named_logs: BTreeSet<PathBuf> = records
        .remaining(gone)
        .filter_map(|b| b.log.as_ref().map(|l| paths.dot_mesh.join(l)))
        .collect();
    for b in &gone.builds {
        if let Some(l) = &b.log {
            let p = paths.dot_mesh.join(l);
            if !named_logs.contains(&p) && p.exists() && files.remove(&p) {
                files.out.logs += 1;
            }
        }
    }
    let modules: BTreeSet<&str> = records
        .remaining(gone)
        .map(|b| b.module.as_str())
        .chain(records.latest_in_mesh(opts).map(|b| b.module.as_str()))
        .collect();
    for (name, path) in entries(&paths.logs()) {
        if !modules.contains(name.as_str()) && path.is_dir() && files.remove(&path) {
            files.out.logs += 1;
        }
    }
}

/// Unpacked inputs of artifacts no record names.
fn remove_unpacked_inputs(files: &mut Files, dir: &Path, named: &BTreeSet<&str>) {
    for (name, path) in entries(dir) {
        if (!is_digest(&name) || !named.contains(name.as_str())) && files.remove(&path) {
            files.out.other += 1;
        }
    }
}

/// Removes files and directories until the deadline, counting what it frees.
struct Files<'a> {
    dry_run: bool,
    deadline: Option<Instant>,
    out: &'a mut Collected,
}

impl Files<'_> {
    /// Removes `path` (a file or a directory); false when it did not (or time is up).
    fn remove(&mut self, path: &Path) -> bool {
        if self.deadline.is_some_and(|d| Instant::now() > d) {
            self.out.unfinished = true;
            return false;
        }
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            return false;
        };
        let size = if meta.is_dir() { 0 } else { meta.len() };
        if self.dry_run {
            self.out.bytes += size;
            return true;
        }
        let removed = if meta.is_dir() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
        if removed.is_ok() {
            self.out.bytes += size;
        }
        removed.is_ok()
    }
}

/// The (name, path) of every entry of `dir`, sorted by name (none when it is absent).
fn entries(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.to_string(), e.path())))
        .collect();
    out.sort();
    out
}

/// Whether a file was last changed longer ago than a write in progress could be.
fn old(path: &Path) -> bool {
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age > TEMP_AGE)
}
