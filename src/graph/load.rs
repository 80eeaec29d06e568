//! Loading the graph: read the sources, reuse what the store learned about modules whose source
//! id did not move, scan only blobs never scanned before, resolve, record what is new.

use super::{EdgeKind, GraphModule, ModuleGraph};
use crate::Result;
use crate::config::MeshConfig;
use crate::imports::manifest::{self, MANIFEST_FILES, ManifestFacts};
use crate::imports::resolve::{self, ModuleImports};
use crate::imports::{
    FileScan, Language, SCANNER_VERSION, ScannedFile, component, place, tsconfig,
};
use crate::source::{self, ModuleSource, RepoSnapshot, Snapshot, SourceError};
use crate::store::{self, IMPORTS, MODULES, ModuleRecord, Store};
use gix::ObjectId;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// Files larger than this are not scanned (generated code, vendored bundles).
const MAX_SCANNED_FILE: u64 = 4 << 20;

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
    /// `snapshot.modules` order. Kept, not freed at the end of [`load`], so that a verb about
    /// to exit can `std::mem::forget` the whole `Loaded` instead of freeing some 300 000 small
    /// allocations one by one (some 15 ms of a warm `mesh graph` on 20 000 files).
    pub records: Vec<ModuleRecord>,
}

/// What one module's walk (or its cached record) gave.
struct Learned {
    record: ModuleRecord,
    walked: bool,
    new_imports: Vec<(ObjectId, FileScan)>,
    parsed: u64,
    cached: u64,
    skipped: Vec<String>,
}

/// Reads every repository, derives the module graph, and records what was learned in one
/// store write (only when something was new). Nothing is written when anything fails.
pub fn load(mesh: &MeshConfig, store_path: &Path) -> Result<Loaded> {
    let snapshot = Snapshot::read(mesh)?;
    let (records, walked, known) = recall(&snapshot, store_path)?;
    let learned = learn(&snapshot, records, walked, &known)?;
    let (stats, notes) = tally(&snapshot, &learned);
    if learned.iter().any(|l| l.walked) {
        record_learned(store_path, &snapshot, &learned)?;
    }
    let graph = derive_graph(&snapshot, &learned)?;
    let records = learned.into_iter().map(|l| l.record).collect();
    Ok(Loaded {
        snapshot,
        graph,
        stats,
        notes,
        records,
    })
}

/// What the store knows of each blob scanned before, by blob id.
type KnownScans = HashMap<ObjectId, FileScan>;

/// What the store holds for this snapshot: each module's record (in `snapshot.modules`
/// order), the files of the modules whose source id moved (walked now: git reads only), and
/// the scans of those files' blobs scanned before. One open for every read; closed before
/// scanning, reopened to write only when something was learned.
fn recall(
    snapshot: &Snapshot,
    store_path: &Path,
) -> Result<(Vec<Option<ModuleRecord>>, Walked, KnownScans)> {
    let store = Store::open(store_path)?;
    let records: Vec<Option<ModuleRecord>> = store.read(|r| {
        snapshot
            .modules
            .iter()
            .map(|m| r.get(MODULES, m.name().as_bytes()))
            .collect()
    })?;
    let walked = walk_all(snapshot, &moved(snapshot, &records))?;
    // Which blobs of the modules walked were scanned before.
    let wanted: Vec<ObjectId> = walked
        .iter()
        .flat_map(|(_, files)| files.iter().filter(|f| f.1.is_some()).map(|f| f.0.id))
        .collect();
    let known = if wanted.is_empty() {
        HashMap::new()
    } else {
        store.read(|r| {
            let mut out = HashMap::new();
            for id in &wanted {
                let key = store::imports_key(id.as_bytes(), SCANNER_VERSION);
                if let Some(v) = r.get(IMPORTS, &key)? {
                    out.insert(*id, v);
                }
            }
            Ok(out)
        })?
    };
    Ok((records, walked, known))
}

/// The modules whose record cannot be reused: new, their source id moved, or scanned by
/// another scanner version.
fn moved(snapshot: &Snapshot, records: &[Option<ModuleRecord>]) -> Vec<usize> {
    (0..snapshot.modules.len())
        .filter(|&i| {
            records[i].as_ref().is_none_or(|r| {
                r.source_id != snapshot.modules[i].source_id || r.scanner_version != SCANNER_VERSION
            })
        })
        .collect()
}

/// Every module's [`Learned`], in `snapshot.modules` order: the walked modules scanned, the
/// others from their record.
fn learn(
    snapshot: &Snapshot,
    records: Vec<Option<ModuleRecord>>,
    walked: Walked,
    known: &KnownScans,
) -> Result<Vec<Learned>> {
    let mut learned: Vec<Option<Learned>> = records
        .into_iter()
        .map(|r| {
            r.map(|record| Learned {
                record,
                walked: false,
                new_imports: Vec::new(),
                parsed: 0,
                cached: 0,
                skipped: Vec::new(),
            })
        })
        .collect();
    for (i, l) in scan_modules(snapshot, walked, known)? {
        learned[i] = Some(l);
    }
    Ok(learned
        .into_iter()
        .map(|l| l.expect("every module is either cached or walked"))
        .collect())
}

/// How much work loading took, and the notes for `-v`.
fn tally(snapshot: &Snapshot, learned: &[Learned]) -> (Stats, Vec<String>) {
    let mut stats = Stats::default();
    let mut notes = Vec::new();
    for (m, l) in snapshot.modules.iter().zip(learned) {
        stats.files_parsed += l.parsed;
        stats.files_cached += l.cached;
        stats.modules_walked += u64::from(l.walked);
        for n in &l.record.manifests.notes {
            notes.push(format!("module `{}`: {n}", m.name()));
        }
        notes.extend(l.skipped.iter().cloned());
    }
    (stats, notes)
}

/// Writes, in one transaction, the scans of blobs never scanned before and the record of
/// every module walked.
fn record_learned(store_path: &Path, snapshot: &Snapshot, learned: &[Learned]) -> Result<()> {
    let store = Store::open(store_path)?;
    store.write(|w| {
        for l in learned.iter().filter(|l| l.walked) {
            for (id, imports) in &l.new_imports {
                w.put(
                    IMPORTS,
                    &store::imports_key(id.as_bytes(), SCANNER_VERSION),
                    imports,
                )?;
            }
        }
        for (m, l) in snapshot.modules.iter().zip(learned) {
            if l.walked {
                w.put(MODULES, m.name().as_bytes(), &l.record)?;
            }
        }
        Ok(())
    })?;
    Ok(())
}

/// The module graph: each module's names (its manifests' and its Go import path), its
/// imports resolved against them into build edges, and the edges its manifest declares.
fn derive_graph(snapshot: &Snapshot, learned: &[Learned]) -> Result<ModuleGraph> {
    let go = go_names(snapshot, learned)?;
    let renames = rust_renames(snapshot, learned)?;
    let js_paths = js_paths(snapshot, learned)?;
    let provides: Vec<Vec<(Language, String)>> = learned
        .iter()
        .zip(go)
        .map(|(l, go)| {
            let mut p = l.record.manifests.provides.clone();
            p.extend(go.map(|g| (Language::Go, g)));
            p
        })
        .collect();
    let inputs: Vec<ModuleImports> = snapshot
        .modules
        .iter()
        .zip(learned)
        .zip(&provides)
        .zip(&renames)
        .zip(&js_paths)
        .map(|((((m, l), p), renames), js_paths)| ModuleImports {
            name: m.name(),
            repo: m.repo,
            dir: &m.dir,
            provides: p,
            renames,
            ignore: &m.manifest.ignore,
            files: &l.record.files,
            js_paths,
        })
        .collect();
    let res = resolve::resolve(&inputs);
    let modules: Vec<GraphModule> = snapshot
        .modules
        .iter()
        .zip(&provides)
        .map(|(m, p)| GraphModule {
            name: m.name().to_string(),
            kind: m.manifest.kind,
            repo: snapshot.repo_of(m).name.clone(),
            path: m.dir.clone(),
            source: m.source_id.clone(),
            provides: p.iter().map(|(_, n)| n.clone()).collect(),
        })
        .collect();
    let graph = ModuleGraph::new(modules, res.edges, declared_edges(snapshot), res.warnings);
    refuse_rust_cycles(&graph)?;
    Ok(graph)
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

/// A module's files: (entry, language if it is a source file to scan).
type Walked = Vec<(usize, Vec<(source::FileEntry, Option<Language>)>)>;

/// The `dir/` every repository path of a module's files starts with (empty at the root).
fn module_prefix(dir: &str) -> String {
    if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    }
}

/// The files of each module in `stale`, test data left out, each with its language.
fn walk_all(snapshot: &Snapshot, stale: &[usize]) -> Result<Walked> {
    let mut out = Vec::new();
    for &i in stale {
        let m = &snapshot.modules[i];
        let snap = snapshot.repo_of(m);
        let files = source::module_files(snap, &m.dir, m.tree, &m.nested)?;
        let prefix = module_prefix(&m.dir);
        let foreign = foreign_crates(snap, &files, &prefix)?;
        let files = files
            .into_iter()
            // Test data is not code: never read.
            .filter(|f| !place::is_test_data(f.path.strip_prefix(&prefix).unwrap_or(&f.path)))
            // Nor is a crate outside the module's build.
            .filter(|f| {
                let rel = f.path.strip_prefix(&prefix).unwrap_or(&f.path);
                !(rel.ends_with(".rs") && foreign.iter().any(|d| rel.starts_with(d.as_str())))
            })
            .map(|f| {
                let lang = Language::of_path(&f.path);
                (f, lang)
            })
            .collect();
        out.push((i, files));
    }
    Ok(out)
}

/// The module-relative directories (each with a trailing `/`) of the Rust crates inside a
/// module that are not part of its build: a nested `Cargo.toml` declaring its own
/// `[workspace]` (cargo-fuzz's `fuzz/`), or a directory its own `Cargo.toml` lists under
/// `[workspace] exclude`. Their files are not the module's code.
fn foreign_crates(
    snap: &RepoSnapshot,
    files: &[source::FileEntry],
    prefix: &str,
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for f in files {
        let rel = f.path.strip_prefix(prefix).unwrap_or(&f.path);
        let Some(dir) = (if rel == "Cargo.toml" {
            Some("")
        } else {
            rel.strip_suffix("/Cargo.toml")
        }) else {
            continue;
        };
        let blob = snap
            .repo
            .find_blob(f.id)
            .map_err(|e| unreadable(&snap.name, &f.path, &e))?;
        let text = String::from_utf8_lossy(&blob.data);
        if dir.is_empty() {
            out.extend(
                manifest::cargo_workspace_excludes(&text)
                    .into_iter()
                    .map(|d| format!("{d}/")),
            );
        } else if manifest::cargo_declares_workspace(&text) {
            out.push(format!("{dir}/"));
        }
    }
    Ok(out)
}

/// Scans the walked modules, on several threads when there is enough to do.
fn scan_modules(
    snapshot: &Snapshot,
    walked: Walked,
    known: &KnownScans,
) -> Result<Vec<(usize, Learned)>> {
    let total: usize = walked.iter().map(|(_, f)| f.len()).sum();
    let threads = if total > 400 {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8)
    } else {
        1
    };
    let mut chunks: Vec<Walked> = (0..threads).map(|_| Vec::new()).collect();
    for (k, w) in walked.into_iter().enumerate() {
        chunks[k % threads].push(w);
    }
    let names: Vec<String> = snapshot.repos.iter().map(|r| r.name.clone()).collect();
    let results: Vec<std::result::Result<Vec<(usize, Learned)>, SourceError>> =
        std::thread::scope(|s| {
            let handles: Vec<_> = chunks
                .into_iter()
                .map(|chunk| {
                    let repos: Vec<gix::Repository> =
                        snapshot.repos.iter().map(|r| r.repo.clone()).collect();
                    let names = &names;
                    let modules = &snapshot.modules;
                    s.spawn(move || {
                        chunk
                            .into_iter()
                            .map(|(i, files)| {
                                let m = &modules[i];
                                scan_module(&names[m.repo], &repos[m.repo], m, files, known)
                                    .map(|l| (i, l))
                            })
                            .collect()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| match h.join() {
                    Ok(r) => r,
                    Err(p) => std::panic::resume_unwind(p),
                })
                .collect()
        });
    let mut out = Vec::new();
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

/// Scans one walked module: its manifests read, each source file's imports from the store or
/// scanned now, and each file's imports given the kind where the file stands decides.
fn scan_module(
    repo_name: &str,
    repo: &gix::Repository,
    m: &ModuleSource,
    files: Vec<(source::FileEntry, Option<Language>)>,
    known: &KnownScans,
) -> std::result::Result<Learned, SourceError> {
    let prefix = module_prefix(&m.dir);
    let mut scan = ModuleScan::new(repo_name, repo, known);
    for (f, lang) in &files {
        let rel = f.path.strip_prefix(&prefix).unwrap_or(&f.path);
        scan.file(f, *lang, rel)?;
    }
    let has_go = files.iter().any(|(_, l)| *l == Some(Language::Go));
    Ok(scan.finish(m, &prefix, has_go))
}

/// One module's scan in progress.
struct ModuleScan<'a> {
    repo_name: &'a str,
    repo: &'a gix::Repository,
    known: &'a KnownScans,
    /// The source files scanned, their imports all of kind build until placed.
    scanned: Vec<ScannedFile>,
    /// The scans of blobs never scanned before, to be recorded.
    new_imports: Vec<(ObjectId, FileScan)>,
    parsed: u64,
    cached: u64,
    /// Files skipped and notes on files, for `-v`.
    skipped: Vec<String>,
    /// (module-relative path, text) of each language manifest.
    manifest_texts: Vec<(String, String)>,
    /// Module-relative paths of the Python files.
    python_files: Vec<&'a str>,
    /// Module-relative paths of Rust files that are test code.
    rust_test_files: Vec<String>,
}

impl<'a> ModuleScan<'a> {
    /// A scan of a module of `repo` (named `repo_name`), nothing taken in yet.
    fn new(repo_name: &'a str, repo: &'a gix::Repository, known: &'a KnownScans) -> Self {
        ModuleScan {
            repo_name,
            repo,
            known,
            scanned: Vec::new(),
            new_imports: Vec::new(),
            parsed: 0,
            cached: 0,
            skipped: Vec::new(),
            manifest_texts: Vec::new(),
            python_files: Vec::new(),
            rust_test_files: Vec::new(),
        }
    }

    /// Takes in file `f` (at `rel` in the module): its text when it is a language manifest,
    /// its imports when it is a source file — from the store when its blob was scanned
    /// before, read and scanned now otherwise.
    fn file(
        &mut self,
        f: &source::FileEntry,
        lang: Option<Language>,
        rel: &'a str,
    ) -> std::result::Result<(), SourceError> {
        if MANIFEST_FILES.contains(&rel) {
            let blob = self
                .repo
                .find_blob(f.id)
                .map_err(|e| unreadable(self.repo_name, &f.path, &e))?;
            self.manifest_texts.push((
                rel.to_string(),
                String::from_utf8_lossy(&blob.data).into_owned(),
            ));
        }
        if lang == Some(Language::Python) {
            self.python_files.push(rel);
        }
        let Some(lang) = lang else { return Ok(()) };
        // A blob scanned before comes from the store; any other is read and scanned now.
        let fresh = if self.known.contains_key(&f.id) {
            self.cached += 1;
            None
        } else {
            self.parsed += 1;
            Some(read_and_scan(
                self.repo,
                self.repo_name,
                f,
                lang,
                &mut self.skipped,
            )?)
        };
        let Some(found) = fresh.as_ref().or_else(|| self.known.get(&f.id)) else {
            return Ok(());
        };
        self.rust_test_files
            .extend(place::rust_test_files(rel, &found.test_mods));
        let repo_name = self.repo_name;
        self.skipped.extend(
            found
                .notes
                .iter()
                .map(|n| format!("{repo_name}:{}: {n}", f.path)),
        );
        self.scanned.push(ScannedFile {
            path: f.path.clone(),
            language: lang,
            kind: crate::imports::ImportKind::Build,
            imports: found.imports.clone(),
        });
        if let Some(scan) = fresh {
            self.new_imports.push((f.id, scan));
        }
        Ok(())
    }

    /// What the module's walk learned: its manifests' facts, and each file's imports of the
    /// kind where the file stands decides (`prefix` is the module's directory). A module with
    /// Go code needs no language manifest (its go.mod may stand above it).
    fn finish(mut self, m: &ModuleSource, prefix: &str, has_go: bool) -> Learned {
        let texts: Vec<(&str, &str)> = self
            .manifest_texts
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let mut facts: ManifestFacts = manifest::read_facts(&texts, &self.python_files);
        // Where each file stands decides the kind of its imports.
        self.rust_test_files
            .extend(facts.rust_dev_paths.iter().cloned());
        let places = place::Places::new(
            &m.manifest.dev,
            facts.python_shipped.clone(),
            self.rust_test_files,
        );
        for file in &mut self.scanned {
            let rel = file.path.strip_prefix(prefix).unwrap_or(&file.path);
            file.kind = places.kind(file.language, rel);
        }
        if has_go {
            facts
                .notes
                .retain(|n| !n.starts_with("no language manifest"));
        }
        Learned {
            record: ModuleRecord {
                source_id: m.source_id.clone(),
                scanner_version: SCANNER_VERSION,
                files: self.scanned,
                manifests: facts,
            },
            walked: true,
            new_imports: self.new_imports,
            parsed: self.parsed,
            cached: self.cached,
            skipped: self.skipped,
        }
    }
}

/// A blob of the repository that could not be read.
fn unreadable(repo_name: &str, path: &str, e: &dyn std::fmt::Display) -> SourceError {
    SourceError {
        repo: repo_name.to_string(),
        message: format!("cannot read {path}: {e}"),
        help: "check the repository with `git fsck`; mesh reads only committed objects".into(),
    }
}

/// Reads one source blob and scans it: too large or binary files are skipped (said in
/// `skipped`, for `-v`), components are read through their script blocks.
fn read_and_scan(
    repo: &gix::Repository,
    repo_name: &str,
    f: &source::FileEntry,
    lang: Language,
    skipped: &mut Vec<String>,
) -> std::result::Result<FileScan, SourceError> {
    let err = |e: &dyn std::fmt::Display| unreadable(repo_name, &f.path, e);
    let header = repo.find_header(f.id).map_err(|e| err(&e))?;
    if header.size() > MAX_SCANNED_FILE {
        skipped.push(format!(
            "{}:{}: skipped, {} bytes is larger than the {} byte limit for source files",
            repo_name,
            f.path,
            header.size(),
            MAX_SCANNED_FILE
        ));
        return Ok(FileScan::default());
    }
    let blob = repo.find_blob(f.id).map_err(|e| err(&e))?;
    if blob.data.iter().take(8000).any(|&b| b == 0) {
        skipped.push(format!("{repo_name}:{}: skipped, binary", f.path));
        return Ok(FileScan::default());
    }
    let text = String::from_utf8_lossy(&blob.data);
    if !component::is_component(&f.path) {
        return Ok(crate::imports::scan_file(lang, &text));
    }
    let (script, blocks) = component::script_blocks(&text, &f.path);
    let mut found = crate::imports::scan_file(lang, &script);
    if blocks == 0 {
        found.notes.push("no <script> block: no imports".into());
    }
    Ok(found)
}

/// Go import names: the nearest `go.mod` at or above each module that has Go code or a go.mod,
/// its `module` path joined with the module's directory below it.
fn go_names(snapshot: &Snapshot, learned: &[Learned]) -> Result<Vec<Option<String>>> {
    let mut memo: HashMap<(usize, String), Option<(String, String)>> = HashMap::new();
    let mut out = Vec::new();
    for (m, l) in snapshot.modules.iter().zip(learned) {
        let has_go = l.record.files.iter().any(|f| f.language == Language::Go);
        if !has_go {
            out.push(None);
            continue;
        }
        let snap = snapshot.repo_of(m);
        let found = nearest_go_mod(snap, m.repo, &m.dir, &mut memo)?;
        out.push(found.map(|(dir, path)| {
            let below = if dir.is_empty() {
                m.dir.as_str()
            } else {
                m.dir
                    .strip_prefix(&dir)
                    .unwrap_or("")
                    .trim_start_matches('/')
            };
            if below.is_empty() {
                path
            } else {
                format!("{path}/{below}")
            }
        }));
    }
    Ok(out)
}

/// Each module's Rust renames: its own `Cargo.toml`'s, and those its workspace's `Cargo.toml`
/// gives the dependencies it inherits. Read on every load (the workspace manifest may lie
/// outside the module, so no cached record can hold them), but only for modules that inherit.
fn rust_renames(snapshot: &Snapshot, learned: &[Learned]) -> Result<Vec<Vec<(String, String)>>> {
    let mut out = Vec::with_capacity(learned.len());
    // Members share their workspace's manifest: each Cargo.toml is read once.
    let mut memo = HashMap::new();
    for (m, l) in snapshot.modules.iter().zip(learned) {
        let facts = &l.record.manifests;
        let mut renames = facts.rust_renames.clone();
        if !facts.rust_workspace_deps.is_empty()
            && let Some(text) = workspace_manifest(snapshot.repo_of(m), m.repo, &m.dir, &mut memo)?
        {
            for pair in manifest::workspace_renames(&text, &facts.rust_workspace_deps) {
                if !renames.contains(&pair) {
                    renames.push(pair);
                }
            }
        }
        out.push(renames);
    }
    Ok(out)
}

/// Each module's `tsconfig.json` (else `jsconfig.json`) `paths` aliases, for the modules with
/// JS/TS code. Read on every load, as renames are: a few small files, and no cached record
/// has to change shape for them.
fn js_paths(snapshot: &Snapshot, learned: &[Learned]) -> Result<Vec<Vec<(String, String)>>> {
    let mut out = Vec::with_capacity(learned.len());
    for (m, l) in snapshot.modules.iter().zip(learned) {
        if !l.record.files.iter().any(|f| f.language == Language::Js) {
            out.push(Vec::new());
            continue;
        }
        let snap = snapshot.repo_of(m);
        let tree = snap
            .repo
            .find_tree(m.tree)
            .map_err(|e| SourceError::git(&snap.name, "cannot read a module's tree", e))?;
        let mut aliases = Vec::new();
        for name in ["tsconfig.json", "jsconfig.json"] {
            let entry = tree
                .lookup_entry_by_path(name)
                .map_err(|e| SourceError::git(&snap.name, "cannot look up tsconfig.json", e))?;
            if let Some(entry) = entry.filter(|e| e.mode().is_blob()) {
                let blob = snap
                    .repo
                    .find_blob(entry.object_id())
                    .map_err(|e| SourceError::git(&snap.name, "cannot read tsconfig.json", e))?;
                aliases = tsconfig::paths(&m.dir, &String::from_utf8_lossy(&blob.data));
                break;
            }
        }
        out.push(aliases);
    }
    Ok(out)
}

/// The text of the nearest `Cargo.toml` at or above `dir` that declares a `[workspace]`.
/// `memo` holds, per (repository, path) already looked at, that file's text if it declares one.
fn workspace_manifest(
    snap: &RepoSnapshot,
    repo: usize,
    dir: &str,
    memo: &mut HashMap<(usize, String), Option<String>>,
) -> Result<Option<String>> {
    let root = snap
        .repo
        .find_tree(snap.tree)
        .map_err(|e| SourceError::git(&snap.name, "cannot read the root tree", e))?;
    let mut at = Some(dir);
    while let Some(d) = at {
        let path = source::join(d, "Cargo.toml");
        let found = match memo.get(&(repo, path.clone())) {
            Some(known) => known.clone(),
            None => {
                let found = workspace_text(snap, &root, &path)?;
                memo.insert((repo, path), found.clone());
                found
            }
        };
        if found.is_some() {
            return Ok(found);
        }
        at = parent(d);
    }
    Ok(None)
}

/// The directory above `d` (`None` above the repository's root).
fn parent(d: &str) -> Option<&str> {
    if d.is_empty() {
        None
    } else {
        Some(d.rsplit_once('/').map_or("", |(p, _)| p))
    }
}

/// The text of the `Cargo.toml` at `path`, if there is one and it declares a `[workspace]`.
fn workspace_text(snap: &RepoSnapshot, root: &gix::Tree, path: &str) -> Result<Option<String>> {
    let entry = root
        .lookup_entry_by_path(path)
        .map_err(|e| SourceError::git(&snap.name, "cannot look up Cargo.toml", e))?;
    let Some(entry) = entry.filter(|e| e.mode().is_blob()) else {
        return Ok(None);
    };
    let blob = snap
        .repo
        .find_blob(entry.object_id())
        .map_err(|e| SourceError::git(&snap.name, "cannot read Cargo.toml", e))?;
    let text = String::from_utf8_lossy(&blob.data);
    let declares = text
        .lines()
        .any(|l| l.trim() == "[workspace]" || l.trim().starts_with("[workspace."));
    Ok(declares.then(|| text.into_owned()))
}

/// (directory of the nearest go.mod at or above `dir`, its module path).
fn nearest_go_mod(
    snap: &RepoSnapshot,
    repo: usize,
    dir: &str,
    memo: &mut HashMap<(usize, String), Option<(String, String)>>,
) -> Result<Option<(String, String)>> {
    if let Some(v) = memo.get(&(repo, dir.to_string())) {
        return Ok(v.clone());
    }
    let root = snap
        .repo
        .find_tree(snap.tree)
        .map_err(|e| SourceError::git(&snap.name, "cannot read the root tree", e))?;
    let path = source::join(dir, "go.mod");
    let here = root
        .lookup_entry_by_path(&path)
        .map_err(|e| SourceError::git(&snap.name, "cannot look up go.mod", e))?;
    let found = match here {
        Some(entry) if entry.mode().is_blob() => {
            let blob = snap
                .repo
                .find_blob(entry.object_id())
                .map_err(|e| SourceError::git(&snap.name, "cannot read go.mod", e))?;
            manifest::go_module_path(&String::from_utf8_lossy(&blob.data))
                .map(|p| (dir.to_string(), p))
        }
        _ if dir.is_empty() => None,
        _ => {
            let parent = dir.rsplit_once('/').map_or("", |(p, _)| p);
            nearest_go_mod(snap, repo, parent, memo)?
        }
    };
    memo.insert((repo, dir.to_string()), found.clone());
    Ok(found)
}
