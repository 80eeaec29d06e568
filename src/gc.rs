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
use crate::artifact::{COMPRESSED, is_digest};
use crate::builder::Verdict;
use crate::store::{BUILDS, BuildRecord, CURRENT, DECLARED, LATEST, NODES, Paths, id_key};
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
    let (builds, current, latest, declared, nodes) = store.read(|r| {
        Ok((
            r.range(BUILDS, b"", None)?,
            r.range(CURRENT, b"", None)?,
            r.range(LATEST, b"", None)?,
            r.range(DECLARED, b"", None)?,
            r.range(NODES, b"", None)?,
        ))
    })?;

    // What stays.
    let mut keep: BTreeSet<u64> = BTreeSet::new();
    let in_mesh = |m: &str| opts.modules.as_ref().is_none_or(|ms| ms.contains(m));
    keep.extend(
        latest
            .iter()
            .filter(|(_, b)| in_mesh(&b.module))
            .map(|(_, b)| b.id),
    );
    keep.extend(declared.iter().map(|(_, b)| b.id));
    for (_, n) in &nodes {
        keep.extend(n.sent_builds.iter().chain(&n.applied_builds).map(|p| p.1));
    }
    let mut per_module: BTreeMap<&str, Vec<&BuildRecord>> = BTreeMap::new();
    for (_, b) in &builds {
        per_module.entry(b.module.as_str()).or_default().push(b);
    }
    per_module.retain(|m, _| in_mesh(m));
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
    let gone: Vec<&BuildRecord> = builds
        .iter()
        .map(|(_, b)| b)
        .filter(|b| !keep.contains(&b.id))
        .take(MAX_RECORDS)
        .collect();
    let gone_ids: BTreeSet<u64> = gone.iter().map(|b| b.id).collect();
    let closures: Vec<&Vec<u8>> = current
        .iter()
        .filter(|(_, e)| !keep.contains(&e.id))
        .map(|(k, _)| k)
        .take(MAX_RECORDS)
        .collect();
    out.builds = gone_ids.iter().copied().collect();
    out.closures = closures.len();

    // Records first, in one transaction: a kill after it leaves files no record names.
    if !opts.dry_run && (!gone.is_empty() || !closures.is_empty()) {
        store.write(|w| {
            for b in &gone {
                w.remove(BUILDS, &id_key(b.id))?;
            }
            for k in &closures {
                w.remove(CURRENT, k)?;
            }
            Ok(())
        })?;
    }
    drop(store);

    // The artifacts every remaining record names.
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for (_, b) in builds.iter().filter(|(_, b)| !gone_ids.contains(&b.id)) {
        named.extend(b.artifact.as_deref());
    }
    for (_, b) in latest.iter().filter(|(_, b)| in_mesh(&b.module)) {
        named.extend(b.artifact.as_deref());
    }
    // The declared build of every module, in the mesh or not: a declaration is composed from
    // these, so what they name could be sent.
    for (_, b) in &declared {
        named.extend(b.artifact.as_deref());
    }
    for (_, e) in &current {
        if keep.contains(&e.id) {
            named.extend(e.artifact.as_deref());
        }
    }
    let deadline = opts.time_limit.map(|l| start + l);
    let mut files = Files {
        dry_run: opts.dry_run,
        deadline,
        out: &mut out,
    };
    // Artifacts no record names, and temp files a killed write left.
    for (name, path) in entries(&paths.artifacts()) {
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
    // Logs of removed builds, then what is left of deleted modules' logs.
    let named_logs: BTreeSet<PathBuf> = builds
        .iter()
        .filter(|(_, b)| !gone_ids.contains(&b.id))
        .filter_map(|(_, b)| b.log.as_ref().map(|l| paths.dot_mesh.join(l)))
        .collect();
    for b in &gone {
        if let Some(l) = &b.log {
            let p = paths.dot_mesh.join(l);
            if !named_logs.contains(&p) && p.exists() && files.remove(&p) {
                files.out.logs += 1;
            }
        }
    }
    let modules: BTreeSet<&str> = builds
        .iter()
        .filter(|(_, b)| !gone_ids.contains(&b.id))
        .map(|(_, b)| b.module.as_str())
        .chain(
            latest
                .iter()
                .filter(|(_, b)| in_mesh(&b.module))
                .map(|(_, b)| b.module.as_str()),
        )
        .collect();
    for (name, path) in entries(&paths.logs()) {
        if !modules.contains(name.as_str()) && path.is_dir() && files.remove(&path) {
            files.out.logs += 1;
        }
    }
    // Unpacked inputs of artifacts no record names.
    for (name, path) in entries(&paths.deps()) {
        if (!is_digest(&name) || !named.contains(name.as_str())) && files.remove(&path) {
            files.out.other += 1;
        }
    }
    Ok(out)
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
