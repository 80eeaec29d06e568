//! Loading the graph: read the sources, reuse what the store learned about modules whose source
//! id did not move, scan only blobs never scanned before, resolve, record what is new.
//!
//! The graph cache ([`super::cache`]) comes first: on refs that did not move, a load is the
//! cache's head and each module's edges, read with the store opened read-only; on a commit
//! that changes one module, that module is walked and resolved, the rest reused.

use super::cache::{self, CachedEdges, CachedModule, Facts, Head, Resolved};
use super::names;
use super::record::{Committing, Recorder};
use super::scan::{KnownScans, Learned, scan_modules, walk_all};
use super::{EdgeKind, GraphModule, ImportEdge, ModuleGraph};
use crate::Result;
use crate::config::MeshConfig;
use crate::source::Snapshot;
use crate::store::{self, IMPORTS, MODULES, ModuleRecord, Store};
use gix::ObjectId;
use mesh_imports::resolve::{self, Evidence, ModuleImports};
use mesh_imports::{Language, SCANNER_VERSION};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// How much work loading took: a second run over an unchanged mesh parses nothing.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Stats {
    /// Source files read and scanned this run.
    pub files_parsed: u64,
    /// Source files whose imports came from the store.
    pub files_cached: u64,
    /// Modules whose tree was walked (their source id moved, or they are new).
    pub modules_walked: u64,
}

/// The sources and the graph derived from them.
pub struct Loaded {
    /// Repositories and modules at their refs.
    pub snapshot: Snapshot,
    /// The module graph.
    pub graph: ModuleGraph,
    /// How much work it took.
    pub stats: Stats,
    /// Details for `-v`: modules without a language manifest, skipped files.
    pub notes: Vec<String>,
    /// What the store knows about each module (its files and their imports), in
    /// `snapshot.modules` order: filled by [`load_with_records`] only (a plain load reads the
    /// records of the modules that moved, and keeps none).
    pub records: Vec<ModuleRecord>,
    /// Whether the graph cache alone answered (its head's key was this load's, every module's
    /// edges were reused, nothing was walked, read or resolved): then the next load on the
    /// same key gives exactly this, and a verb may keep what it rendered ([`super::answer`]).
    pub from_cache: bool,
    /// The load's store write, still committing ([`load_with_evidence`] only).
    committing: Option<Committing>,
}

impl Loaded {
    /// Waits until the store holds what this load learned, or says why it does not: a verb
    /// that renders while the write commits ([`load_with_evidence`]) calls it before it
    /// prints. Every other load returns settled.
    pub fn settle(&mut self) -> Result<()> {
        match self.committing.take() {
            Some(c) => Ok(c.wait()?),
            None => Ok(()),
        }
    }
}

/// Reads every repository, derives the module graph, and records what was learned in one
/// store write (only when something was new). Nothing is written when anything fails.
/// `records` is left empty ([`load_with_records`] fills it), and so is the evidence of edges
/// whose resolution was reused, unless they are in a cycle ([`load_with_evidence`] reads all).
pub fn load(mesh: &MeshConfig, store_path: &Path) -> Result<Loaded> {
    load_as(mesh, store_path, Want::default())
}

/// [`load`], with every module's record (its files and their imports) in `records`: what
/// `mesh drift` reads. A plain load reads only the records of modules that moved.
pub fn load_with_records(mesh: &MeshConfig, store_path: &Path) -> Result<Loaded> {
    load_as(
        mesh,
        store_path,
        Want {
            records: true,
            ..Want::default()
        },
    )
}

/// [`load`], with the import lines of every edge (what `mesh graph` shows). It returns while
/// its store write commits, so that the caller renders meanwhile: the caller calls
/// [`Loaded::settle`] before it prints.
pub fn load_with_evidence(mesh: &MeshConfig, store_path: &Path) -> Result<Loaded> {
    load_as(
        mesh,
        store_path,
        Want {
            records: false,
            evidence: true,
            unsettled: true,
        },
    )
}

/// What a load reads beyond the graph's modules and edges.
#[derive(Debug, Clone, Copy, Default)]
struct Want {
    /// Every module's record.
    records: bool,
    /// Every edge's import lines.
    evidence: bool,
    /// Return while the store write commits.
    unsettled: bool,
}

/// The repositories and modules at their refs, as [`load`] reads them, reusing what the graph
/// cache knows of unchanged trees. Writes nothing: for verbs that need no graph.
pub fn sources(mesh: &MeshConfig, store_path: &Path) -> Result<Snapshot> {
    let head = Store::peek(store_path, cache::read_head).flatten();
    let prior = head.as_ref().and_then(cache::prior);
    Ok(Snapshot::read_since(mesh, prior.as_ref())?)
}

/// One load: the snapshot read reusing the cache's discovery; each module's facts from the
/// cache when its source id did not move (else from its record, else walked); each module's
/// edges from the cache when nothing its resolution reads moved (else resolved now).
fn load_as(mesh: &MeshConfig, store_path: &Path, want: Want) -> Result<Loaded> {
    // The cache, read with the store opened read-only (no write, no sync), closed before the
    // repositories are read (one may be fetched).
    let (head, mut stored) =
        match Store::peek(store_path, |r| cache::read(r, want.evidence)).flatten() {
            Some((head, edges)) => (Some(head), edges),
            None => (None, Vec::new()),
        };
    let prior = head.as_ref().and_then(cache::prior);
    let snapshot = Snapshot::read_since(mesh, prior.as_ref())?;
    let key = cache::key(mesh, &snapshot);
    let (places, cached) = in_head(head.as_ref(), &snapshot);
    let hit = head.as_ref().is_some_and(|h| h.key == key) && cached.iter().all(Option::is_some);
    let mut work = Work::new(&snapshot, store_path);
    let facts = module_facts(&snapshot, &cached, &mut work, want)?;
    let names = if hit {
        None
    } else {
        Some(Names::of(&snapshot, &facts, &cached)?)
    };
    let mut known = Known::reuse(&snapshot, &cached, names, &places, &mut stored);
    known.complete(&snapshot, &facts, &cached)?;
    let mut warnings = head
        .as_ref()
        .map(|h| h.warnings.clone())
        .unwrap_or_default();
    let fresh = known.resolve(&snapshot, &mut work, &mut warnings)?;
    let (stats, notes) = tally(&snapshot, &facts, &work.learned);
    let from_cache =
        known.names.is_none() && fresh.is_empty() && work.learned.iter().all(Option::is_none);
    let committing = if known.names.is_some() || work.recorder.is_some() {
        let new_head = (known.names.as_ref())
            .map(|names| new_head(key, &snapshot, &facts, names, warnings.clone()));
        record(
            &snapshot,
            head.as_ref(),
            new_head,
            fresh,
            &mut work,
            store_path,
            want,
        )?
    } else {
        None
    };
    let provides = known.provides(&cached);
    let graph = assemble(&snapshot, &provides, known.edges, warnings);
    if !want.evidence && !graph.cycles.is_empty() {
        // A cycle is shown (and a Rust one refused) with the imports that make it: read
        // again with every edge's evidence. The cache was just written, so this reads it.
        if let Some(c) = committing {
            c.wait()?;
        }
        return load_as(
            mesh,
            store_path,
            Want {
                evidence: true,
                ..want
            },
        );
    }
    refuse_rust_cycles(&graph)?;
    let records = if want.records {
        work.learned
            .into_iter()
            .map(|l| l.expect("every module's record was read or walked").record)
            .collect()
    } else {
        Vec::new()
    };
    Ok(Loaded {
        snapshot,
        graph,
        stats,
        notes,
        records,
        from_cache,
        committing,
    })
}

/// Per module of the snapshot: its place in the cache's head, and what the head knew of it.
fn in_head<'h>(
    head: Option<&'h Head>,
    snapshot: &Snapshot,
) -> (Vec<Option<usize>>, Vec<Option<&'h CachedModule>>) {
    let by_name: HashMap<&str, usize> = head
        .iter()
        .flat_map(|h| h.modules.iter().enumerate())
        .map(|(k, c)| (c.manifest.name.as_str(), k))
        .collect();
    snapshot
        .modules
        .iter()
        .map(|m| {
            let k = by_name.get(m.name()).copied();
            (k, k.and_then(|k| head.map(|h| &h.modules[k])))
        })
        .unzip()
}

/// Every module's facts: from the cache for a module whose source id it knew, else from its
/// record (read or walked now, as every module's is when `want.records`).
fn module_facts(
    snapshot: &Snapshot,
    cached: &[Option<&CachedModule>],
    work: &mut Work,
    want: Want,
) -> Result<Vec<Facts>> {
    let n = snapshot.modules.len();
    let mut facts: Vec<Option<Facts>> = (0..n)
        .map(|i| {
            cached[i]
                .filter(|c| c.source_id == snapshot.modules[i].source_id)
                .map(|c| c.facts.clone())
        })
        .collect();
    let need: Vec<usize> = (0..n)
        .filter(|&i| want.records || facts[i].is_none())
        .collect();
    work.ensure(&need)?;
    for (i, f) in facts.iter_mut().enumerate() {
        if f.is_none() {
            *f = work.learned[i].as_ref().map(|l| Facts::of(&l.record));
        }
    }
    Ok(facts.into_iter().map(Option::unwrap_or_default).collect())
}

/// The edges known so far: those reused from the cache, and the names read (none when the
/// cache's head answered for every module).
struct Known {
    names: Option<Names>,
    fingerprints: Vec<[u8; 32]>,
    edges: BTreeMap<(usize, usize), ImportEdge>,
    reused: Vec<bool>,
}

impl Known {
    /// The edges of every module whose resolution reads what it read when they were cached.
    fn reuse(
        snapshot: &Snapshot,
        cached: &[Option<&CachedModule>],
        names: Option<Names>,
        places: &[Option<usize>],
        stored: &mut [Option<CachedEdges>],
    ) -> Known {
        let n = snapshot.modules.len();
        let fingerprints: Vec<[u8; 32]> = match &names {
            Some(names) => names.fingerprints.clone(),
            None => cached.iter().flatten().map(|c| c.fingerprint).collect(),
        };
        let index = |name: &str| {
            snapshot
                .modules
                .binary_search_by(|m| m.name().cmp(name))
                .ok()
        };
        let mut edges: BTreeMap<(usize, usize), ImportEdge> = BTreeMap::new();
        let mut reused = vec![false; n];
        for i in 0..n {
            let from_cache = places[i]
                .filter(|_| cached[i].is_some_and(|c| c.fingerprint == fingerprints[i]))
                .and_then(|k| stored.get_mut(k).and_then(Option::take));
            if let Some(list) = from_cache.and_then(|e| cache::edge_list(i, e, index)) {
                edges.extend(list);
                reused[i] = true;
            }
        }
        Known {
            names,
            fingerprints,
            edges,
            reused,
        }
    }

    /// The modules whose edges are still to be resolved.
    fn unresolved(&self) -> Vec<usize> {
        (0..self.reused.len())
            .filter(|&i| !self.reused[i])
            .collect()
    }

    /// When some cached edges are missing or damaged, they are resolved again, which needs
    /// the names the cache would have spared: read now, and any edge whose module's
    /// resolution reads something else is dropped to be resolved again too.
    fn complete(
        &mut self,
        snapshot: &Snapshot,
        facts: &[Facts],
        cached: &[Option<&CachedModule>],
    ) -> Result<()> {
        if self.names.is_some() || self.unresolved().is_empty() {
            return Ok(());
        }
        let read = Names::of(snapshot, facts, cached)?;
        for i in 0..self.reused.len() {
            if read.fingerprints[i] != self.fingerprints[i] && self.reused[i] {
                self.reused[i] = false;
                self.edges.retain(|(from, _), _| *from != i);
            }
        }
        self.fingerprints.clone_from(&read.fingerprints);
        self.names = Some(read);
        Ok(())
    }

    /// Resolves the modules whose edges were not reused; their edges join the rest, and what
    /// each resolved to is returned for the cache (the resolution's warnings replace the
    /// cached ones).
    fn resolve(
        &mut self,
        snapshot: &Snapshot,
        work: &mut Work,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<(usize, Resolved)>> {
        let unresolved = self.unresolved();
        let Some(names) = self.names.as_ref().filter(|_| !unresolved.is_empty()) else {
            return Ok(Vec::new());
        };
        work.ensure(&unresolved)?;
        let res = resolve_some(snapshot, names, work, &unresolved);
        *warnings = res.warnings;
        let mut by_module: BTreeMap<usize, Vec<(String, Vec<Evidence>)>> =
            unresolved.iter().map(|&i| (i, Vec::new())).collect();
        for ((from, to), ev) in &res.edges {
            if let Some(list) = by_module.get_mut(from) {
                list.push((snapshot.modules[*to].name().to_string(), ev.clone()));
            }
        }
        let fresh = by_module
            .into_iter()
            .map(|(i, edges)| (i, Resolved::new(self.fingerprints[i], edges)))
            .collect();
        self.edges.extend(
            res.edges
                .into_iter()
                .map(|(at, evidence)| (at, ImportEdge::of(evidence))),
        );
        Ok(fresh)
    }

    /// What each module provides: the names read, else the cache's.
    fn provides(&self, cached: &[Option<&CachedModule>]) -> Vec<Vec<(Language, String)>> {
        match &self.names {
            Some(names) => names.provides.clone(),
            None => cached
                .iter()
                .flatten()
                .map(|c| c.provides.clone())
                .collect(),
        }
    }
}

/// The cache's head for this load: its key, the trees it read, what it learned of each module.
fn new_head(
    key: [u8; 32],
    snapshot: &Snapshot,
    facts: &[Facts],
    names: &Names,
    warnings: Vec<String>,
) -> Head {
    Head {
        key,
        made_by: cache::made_by(),
        repos: snapshot
            .repos
            .iter()
            .map(|r| (r.name.clone(), r.tree.as_bytes().to_vec()))
            .collect(),
        modules: cache::modules(
            snapshot,
            facts,
            &names.provides,
            &names.js_paths,
            &names.fingerprints,
        ),
        warnings,
    }
}

/// Records what the load learned (the new head, each fresh resolution, the modules gone, the
/// records walked) in one store write; returns it still committing when `want.unsettled`.
fn record(
    snapshot: &Snapshot,
    head: Option<&Head>,
    new_head: Option<Head>,
    fresh: Vec<(usize, Resolved)>,
    work: &mut Work,
    store_path: &Path,
    want: Want,
) -> Result<Option<Committing>> {
    let gone: Vec<String> = head
        .iter()
        .flat_map(|h| &h.modules)
        .filter(|c| snapshot.module(&c.manifest.name).is_none())
        .map(|c| c.manifest.name.clone())
        .collect();
    let fresh: Vec<(String, Resolved)> = fresh
        .into_iter()
        .map(|(i, r)| (snapshot.modules[i].name().to_string(), r))
        .collect();
    let recorder = work
        .recorder
        .take()
        .unwrap_or_else(|| Recorder::start(store_path));
    let pending = recorder.commit(new_head, fresh, gone);
    if want.unsettled {
        return Ok(Some(pending));
    }
    pending.wait()?;
    Ok(None)
}

/// What the names of every module are, when the cache could not say: what each provides, its
/// Rust renames and path aliases, and the fingerprint of its resolution.
struct Names {
    provides: Vec<Vec<(Language, String)>>,
    renames: Vec<Vec<(String, String)>>,
    js_paths: Vec<Vec<(String, String)>>,
    fingerprints: Vec<[u8; 32]>,
}

impl Names {
    /// Reads them: each module's names (its manifests' and its Go import path), renames and
    /// aliases (a module whose tree did not move keeps its cached aliases).
    fn of(snapshot: &Snapshot, facts: &[Facts], cached: &[Option<&CachedModule>]) -> Result<Names> {
        let go = names::go_names(snapshot, facts)?;
        let renames = names::rust_renames(snapshot, facts)?;
        let js_paths = names::js_paths(snapshot, facts, |i| {
            cached[i]
                .filter(|c| c.tree == snapshot.modules[i].tree.as_bytes())
                .map(|c| c.js_paths.clone())
        })?;
        let provides: Vec<Vec<(Language, String)>> = facts
            .iter()
            .zip(go)
            .map(|(f, go)| {
                let mut p = f.provides.clone();
                p.extend(go.map(|g| (Language::Go, g)));
                p
            })
            .collect();
        let world = cache::world(snapshot, &provides);
        let fingerprints = snapshot
            .modules
            .iter()
            .zip(&renames)
            .zip(&js_paths)
            .map(|((m, r), j)| cache::fingerprint(&world, m, r, j))
            .collect();
        Ok(Names {
            provides,
            renames,
            js_paths,
            fingerprints,
        })
    }
}

/// Resolves the imports of the modules in `which` (every module's names known, only theirs
/// files read): their edges, and the warnings about names.
fn resolve_some(
    snapshot: &Snapshot,
    names: &Names,
    work: &Work,
    which: &[usize],
) -> resolve::Resolution {
    let inputs: Vec<ModuleImports> = snapshot
        .modules
        .iter()
        .enumerate()
        .map(|(i, m)| ModuleImports {
            name: m.name(),
            repo: m.repo,
            dir: &m.dir,
            provides: &names.provides[i],
            renames: &names.renames[i],
            ignore: &m.manifest.ignore,
            files: match &work.learned[i] {
                Some(l) if which.binary_search(&i).is_ok() => &l.record.files,
                _ => &[],
            },
            js_paths: &names.js_paths[i],
        })
        .collect();
    resolve::resolve(&inputs)
}

/// The module graph: the modules with the names they provide, the edges their imports make,
/// and the edges their manifests declare.
fn assemble(
    snapshot: &Snapshot,
    provides: &[Vec<(Language, String)>],
    edges: BTreeMap<(usize, usize), ImportEdge>,
    warnings: Vec<String>,
) -> ModuleGraph {
    let modules: Vec<GraphModule> = snapshot
        .modules
        .iter()
        .zip(provides)
        .map(|(m, p)| GraphModule {
            name: m.name().to_string(),
            kind: m.manifest.kind,
            repo: snapshot.repo_of(m).name.clone(),
            path: m.dir.clone(),
            source: m.source_id.clone(),
            provides: p.iter().map(|(_, n)| n.clone()).collect(),
        })
        .collect();
    ModuleGraph::new(modules, edges, declared_edges(snapshot), warnings)
}

/// The records of the modules a load needs whole (their files and imports): read from the
/// store, or walked and scanned when their source id moved.
struct Work<'a> {
    snapshot: &'a Snapshot,
    store_path: &'a Path,
    /// Per module, once read or walked.
    learned: Vec<Option<Learned>>,
    /// The load's store write, begun once something was walked.
    recorder: Option<Recorder>,
}

impl<'a> Work<'a> {
    fn new(snapshot: &'a Snapshot, store_path: &'a Path) -> Self {
        Work {
            snapshot,
            store_path,
            learned: (0..snapshot.modules.len()).map(|_| None).collect(),
            recorder: None,
        }
    }

    /// Makes sure each module in `which` has its record: read from the store when its source
    /// id did not move, else walked (git reads only) and scanned (blobs scanned before come
    /// from the store). The store is read opened read-only; the write that records what was
    /// scanned opens it while the scan runs.
    fn ensure(&mut self, which: &[usize]) -> Result<()> {
        let which: Vec<usize> = which
            .iter()
            .copied()
            .filter(|&i| self.learned[i].is_none())
            .collect();
        if which.is_empty() {
            return Ok(());
        }
        let snapshot = self.snapshot;
        let records: Vec<Option<ModuleRecord>> = self
            .read(|r| {
                let modules = which.iter().map(|&i| &snapshot.modules[i]);
                read_records(r, modules.map(|m| (m.name(), m.source_id.as_str())))
            })?
            .unwrap_or_else(|| vec![None; which.len()]);
        let mut stale = Vec::new();
        for (&i, record) in which.iter().zip(records) {
            match record {
                Some(record) => {
                    self.learned[i] = Some(Learned {
                        record,
                        sealed: None,
                        walked: false,
                        parsed: 0,
                        cached: 0,
                        skipped: Vec::new(),
                    });
                }
                None => stale.push(i),
            }
        }
        if stale.is_empty() {
            return Ok(());
        }
        let walked = walk_all(snapshot, &stale)?;
        // Which blobs of the modules walked were scanned before.
        let wanted: Vec<ObjectId> = walked
            .iter()
            .flat_map(|(_, files)| files.iter().filter(|f| f.1.is_some()).map(|f| f.0.id))
            .collect();
        let known: KnownScans = self
            .read(|r| {
                let keys: Vec<Vec<u8>> = wanted
                    .iter()
                    .map(|id| store::imports_key(id.as_bytes(), SCANNER_VERSION))
                    .collect();
                let found = r.get_many(IMPORTS, keys.iter().map(Vec::as_slice))?;
                Ok(wanted
                    .iter()
                    .zip(found)
                    .filter_map(|(id, scan)| Some((*id, scan?)))
                    .collect::<KnownScans>())
            })?
            .unwrap_or_default();
        // The write opens the store (makes it, the first time) while the blobs are scanned.
        let recorder = self
            .recorder
            .get_or_insert_with(|| Recorder::start(self.store_path));
        let (learned, new_imports) = scan_modules(snapshot, walked, &known)?;
        let mut records = Vec::new();
        for (i, mut l) in learned {
            records.extend(l.sealed.take());
            self.learned[i] = Some(l);
        }
        // Records in module (name) order: keys in order go in fastest.
        records.sort_unstable_by(|a, b| a.key().cmp(b.key()));
        recorder.put(new_imports, records);
        Ok(())
    }

    /// Runs `f` on the store opened read-only (no write, no sync); a store that cannot be
    /// read so (it needs repair, or is of an older format) is opened whole, which repairs or
    /// migrates it, or says why it cannot be used. `None` when there is no store yet.
    fn read<T>(
        &self,
        f: impl Fn(&store::Reader) -> std::result::Result<T, store::StoreError>,
    ) -> Result<Option<T>> {
        if !self.store_path.exists() {
            return Ok(None);
        }
        if let Some(got) = Store::peek(self.store_path, &f) {
            return Ok(Some(got?));
        }
        Ok(Some(Store::open(self.store_path)?.read(&f)?))
    }
}

/// The store's record of each module in `modules` (name, source id) when it was made from
/// that source id by this scanner, with its files' imports read from their blobs' (each
/// table opened once): `None` for a module with none, or with a blob whose imports are
/// missing (then the module is walked again).
fn read_records<'m>(
    r: &store::Reader,
    modules: impl Iterator<Item = (&'m str, &'m str)> + Clone,
) -> std::result::Result<Vec<Option<ModuleRecord>>, store::StoreError> {
    let stored = r.get_many(MODULES, modules.clone().map(|(name, _)| name.as_bytes()))?;
    let stored: Vec<Option<store::StoredModule>> = stored
        .into_iter()
        .zip(modules)
        .map(|(s, (_, source_id))| {
            s.filter(|s| s.source_id == source_id && s.scanner_version == SCANNER_VERSION)
        })
        .collect();
    let keys: Vec<Vec<u8>> = stored
        .iter()
        .flatten()
        .flat_map(|s| s.imports_keys(SCANNER_VERSION))
        .collect();
    let mut scans = r
        .get_many(IMPORTS, keys.iter().map(Vec::as_slice))?
        .into_iter();
    Ok(stored
        .into_iter()
        .map(|s| {
            let s = s?;
            // Exactly this module's scans, even when one is missing.
            let mine: Vec<_> = scans.by_ref().take(s.files.len()).collect();
            s.join(mine)
        })
        .collect())
}

/// How much work loading took, and the notes for `-v`.
fn tally(
    snapshot: &Snapshot,
    facts: &[Facts],
    learned: &[Option<Learned>],
) -> (Stats, Vec<String>) {
    let mut stats = Stats::default();
    let mut notes = Vec::new();
    for ((m, f), l) in snapshot.modules.iter().zip(facts).zip(learned) {
        for n in &f.notes {
            notes.push(format!("module `{}`: {n}", m.name()));
        }
        if let Some(l) = l {
            stats.files_parsed += l.parsed;
            stats.files_cached += l.cached;
            stats.modules_walked += u64::from(l.walked);
            notes.extend(l.skipped.iter().cloned());
        }
    }
    (stats, notes)
}

/// A cycle made by Rust imports alone is a scanner error, never a unit to build: the verb
/// stops and names the imports, so the misread one can be marked and reported.
fn refuse_rust_cycles(graph: &ModuleGraph) -> Result<()> {
    let rust = super::cycle::rust_only(&graph.cycles, &graph.edges);
    if rust.is_empty() {
        return Ok(());
    }
    let message: Vec<String> = rust
        .iter()
        .map(|c| super::cycle::rust_cycle_message(c, &graph.edges))
        .collect();
    Err(crate::Error::failed(
        message.join("\n"),
        "this is a scanner error: put `// mesh: ignore` on the misread import (or an `[imports] ignore` pattern in the crate's mesh-module.toml) and report it; mesh will not build these crates as one unit",
    ))
}

/// The edges the manifests declare: (module, the module it names, presence or instantiation).
fn declared_edges(snapshot: &Snapshot) -> Vec<(usize, usize, EdgeKind)> {
    let index: HashMap<&str, usize> = snapshot
        .modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name(), i))
        .collect();
    let mut declared = Vec::new();
    for (i, m) in snapshot.modules.iter().enumerate() {
        for p in &m.manifest.presence {
            declared.push((i, index[p.as_str()], EdgeKind::Presence));
        }
        for inst in &m.manifest.instantiation {
            declared.push((i, index[inst.module.as_str()], EdgeKind::Instantiation));
        }
    }
    declared
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{StoredFile, StoredModule};
    use mesh_imports::{FileScan, Import, ImportKind, Language};

    fn stored(source_id: &str, blobs: &[&[u8]]) -> StoredModule {
        StoredModule {
            source_id: source_id.into(),
            scanner_version: SCANNER_VERSION,
            files: blobs
                .iter()
                .enumerate()
                .map(|(k, b)| StoredFile {
                    path: format!("f{k}.js"),
                    language: Language::Js,
                    kind: ImportKind::Build,
                    blob: b.to_vec(),
                })
                .collect(),
            manifests: Default::default(),
        }
    }

    fn scan(name: &str) -> FileScan {
        FileScan {
            imports: vec![Import {
                line: 1,
                name: name.into(),
                text: format!("import '{name}'"),
                kind: ImportKind::Build,
                in_macro: false,
                in_doc: false,
                glob_scoped: false,
                macro_scoped: false,
                in_doc_link: false,
                in_function: false,
                generated: false,
                prefix: false,
                load_guarded: false,
                in_script: false,
                before_python: None,
            }]
            .into(),
            ..FileScan::default()
        }
    }

    /// Each record gets its own files' imports, whatever the records before it lacked; one
    /// with a blob whose imports are gone, or made from another source id, is none.
    #[test]
    fn records_are_joined_with_their_own_blobs_imports() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::open(&dir.path().join("state.redb")).expect("store");
        let key = |b: &[u8]| store::imports_key(b, SCANNER_VERSION);
        store
            .write(|w| {
                // `a`'s first blob has no imports kept; its second, and `b`'s, do.
                w.put(MODULES, b"a", &stored("sa", &[b"1", b"2"]))?;
                w.put(MODULES, b"b", &stored("sb", &[b"3"]))?;
                w.put(MODULES, b"c", &stored("old", &[b"3"]))?;
                w.put(IMPORTS, &key(b"2"), &scan("two"))?;
                w.put(IMPORTS, &key(b"3"), &scan("three"))
            })
            .expect("write");
        let got = store
            .read(|r| {
                read_records(
                    r,
                    [("a", "sa"), ("b", "sb"), ("c", "sc"), ("d", "sd")].into_iter(),
                )
            })
            .expect("read");
        let names: Vec<Option<Vec<String>>> = got
            .iter()
            .map(|r| {
                r.as_ref().map(|r| {
                    r.files
                        .iter()
                        .flat_map(|f| f.imports.iter().map(|i| i.name.clone()))
                        .collect()
                })
            })
            .collect();
        assert_eq!(names, [None, Some(vec!["three".to_string()]), None, None]);
    }
}
