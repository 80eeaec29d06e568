//! Walking and scanning the modules whose source id moved: their files read from git, each
//! blob's imports from the store when it was scanned before, else scanned now (on several
//! threads when there is enough to do).

use crate::Result;
use crate::source::blobs::Blob;
use crate::source::{self, ModuleSource, RepoSnapshot, Snapshot, SourceError};
use crate::store::{self, IMPORTS, MODULES, ModuleRecord, Sealed, StoredModule};
use gix::ObjectId;
use mesh_imports::manifest::{self, MANIFEST_FILES, ManifestFacts};
use mesh_imports::{FileScan, Language, SCANNER_VERSION, ScannedFile, component, place};

/// Files larger than this are not scanned (generated code, vendored bundles).
const MAX_SCANNED_FILE: u64 = 4 << 20;

/// What one module's walk (or its cached record) gave.
pub(super) struct Learned {
    pub record: ModuleRecord,
    /// The record sealed to be stored, for a module walked now.
    pub sealed: Option<Sealed<StoredModule>>,
    pub walked: bool,
    pub parsed: u64,
    pub cached: u64,
    pub skipped: Vec<String>,
}

/// What the store knows of each blob scanned before, by blob id.
pub(super) type KnownScans = gix::hashtable::HashMap<ObjectId, FileScan>;

/// A module's files: (entry, language if it is a source file to scan).
pub(super) type Walked = Vec<(usize, Vec<(source::FileEntry, Option<Language>)>)>;

/// The `dir/` every repository path of a module's files starts with (empty at the root).
pub(super) fn module_prefix(dir: &str) -> String {
    if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    }
}

/// The files of each module in `stale`, test data left out, each with its language.
pub(super) fn walk_all(snapshot: &Snapshot, stale: &[usize]) -> Result<Walked> {
    let mut out = Vec::new();
    for &i in stale {
        let m = &snapshot.modules[i];
        let snap = snapshot.repo_of(m);
        let files = source::module_files(snap, &m.dir, m.tree, &m.nested)?;
        let prefix = module_prefix(&m.dir);
        let foreign = foreign_crates(snap, &files, &prefix)?;
        let files = files
            .into_iter()
            // Test data and committed bundles are not the module's code: never read.
            .filter(|f| !place::never_read(f.path.strip_prefix(&prefix).unwrap_or(&f.path)))
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

/// Scans the walked modules: every blob never scanned before is read (bases first, see
/// [`source::blobs`]) and scanned, on several threads when there is enough to do; then each
/// module's record is made from those scans and the store's. Returns the records and the
/// scans of the blobs scanned now (each once, in key order), sealed to be recorded.
pub(super) fn scan_modules(
    snapshot: &Snapshot,
    walked: Walked,
    known: &KnownScans,
) -> Result<ScannedModules> {
    let mut fresh = FreshScans::default();
    for (r, snap) in snapshot.repos.iter().enumerate() {
        let jobs: Vec<Job> = walked
            .iter()
            .filter(|(i, _)| snapshot.modules[*i].repo == r)
            .flat_map(|(_, files)| files)
            .filter(|(f, _)| !known.contains_key(&f.id) && !absent_notebook(&snap.repo, f))
            .filter_map(|(f, lang)| Some(Job::of(f, (*lang)?)))
            .collect();
        for (id, scans) in scan_blobs(snap, jobs)? {
            fresh.entry(id).or_default().extend(scans);
        }
    }
    let total: usize = walked.iter().map(|(_, f)| f.len()).sum();
    let threads = threads_for(total);
    let mut chunks: Vec<Walked> = (0..threads).map(|_| Vec::new()).collect();
    for (k, w) in walked.into_iter().enumerate() {
        chunks[k % threads].push(w);
    }
    let names: Vec<String> = snapshot.repos.iter().map(|r| r.name.clone()).collect();
    let fresh_scans = &fresh;
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
                                let scans = Scans {
                                    known,
                                    fresh: fresh_scans,
                                };
                                scan_module(&names[m.repo], &repos[m.repo], m, files, scans)
                                    .map(|l| (i, l))
                            })
                            .collect()
                    })
                })
                .collect();
            crate::cores::join_all(handles)
        });
    let mut out = Vec::new();
    for r in results {
        out.extend(r?);
    }
    // Each blob's scan once (a blob at two paths of two languages keeps one).
    let mut new_imports: Vec<Sealed<FileScan>> =
        fresh.into_values().flatten().map(|s| s.sealed).collect();
    new_imports.sort_unstable_by(|a, b| a.key().cmp(b.key()));
    new_imports.dedup_by(|a, b| a.key() == b.key());
    Ok((out, new_imports))
}

/// What a module's record notes of a notebook it could not read (after its path): what
/// reads the record (drift) is then unsure of what the module uses, and keeps no answer.
pub const NOT_IN_REPOSITORY: &str = "was not read: its blob is not in the repository (a partial clone left it out; `git fetch` it to have it read)";

/// Whether `f` is a notebook whose blob the repository lacks: a partial clone leaves out the
/// largest files, and notebooks keep their outputs. Run by hand, it is dev code no build
/// needs; it is skipped with a note, and the module's record is not stored, so a later load
/// reads it once the blob is there.
fn absent_notebook(repo: &gix::Repository, f: &source::FileEntry) -> bool {
    mesh_imports::notebook::is_notebook(&f.path) && !repo.has_object(f.id)
}

/// What [`scan_modules`] learned: per module (by index) its record, and the scans of the
/// blobs scanned now, sealed for the store in key order.
pub(super) type ScannedModules = (Vec<(usize, Learned)>, Vec<Sealed<FileScan>>);

/// How many threads `n` pieces of work are worth: one for a few hundred, else one per core.
fn threads_for(n: usize) -> usize {
    if n > 400 { crate::cores::cores() } else { 1 }
}

/// One blob to scan: how its text is read depends on its language and on whether it is a
/// component (read through its script blocks), both from its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Job {
    id: ObjectId,
    lang: Language,
    component: Option<component::Component>,
}

impl Job {
    fn of(f: &source::FileEntry, lang: Language) -> Job {
        Job {
            id: f.id,
            lang,
            component: component::of(&f.path),
        }
    }
}

/// What scanning one blob gave: its imports, and why it was skipped when it was (said for
/// each file that is this blob, for `-v`).
pub(super) struct Scanned {
    /// What was scanned, and how.
    job: Job,
    scan: FileScan,
    skipped: Option<String>,
    /// The scan, sealed to be recorded under the blob's id.
    sealed: Sealed<FileScan>,
}

/// The blobs scanned in this load, by blob id (one scan per way the blob was read).
type FreshScans = gix::hashtable::HashMap<ObjectId, Vec<Scanned>>;

/// Where a module's files find their scans: the store's, and this load's.
#[derive(Clone, Copy)]
struct Scans<'a> {
    known: &'a KnownScans,
    fresh: &'a FreshScans,
}

/// Reads and scans the blobs of `jobs` in `snap`: one thread reads, bases first, while the
/// others scan what it read, handed over in batches (all on this thread when there are few).
fn scan_blobs(snap: &RepoSnapshot, jobs: Vec<Job>) -> std::result::Result<FreshScans, SourceError> {
    let mut by_id: gix::hashtable::HashMap<ObjectId, Vec<Job>> = Default::default();
    for j in jobs {
        let same = by_id.entry(j.id).or_default();
        if !same.contains(&j) {
            same.push(j);
        }
    }
    let ids: Vec<ObjectId> = by_id.keys().copied().collect();
    // A few hundred are scanned on this thread as they are read.
    let workers = match threads_for(ids.len()) {
        1 => 0,
        n => n,
    };
    let scan_all = |got: &mut Vec<Scanned>, _, id: ObjectId, blob: &Blob| {
        let jobs = by_id.get(&id).map_or(&[][..], Vec::as_slice);
        got.extend(jobs.iter().map(|&job| scan_blob(job, blob)));
    };
    let scanned = source::blobs::read_beside(
        &snap.repo,
        &snap.name,
        (&ids, MAX_SCANNED_FILE),
        workers,
        Vec::new,
        scan_all,
        |_| true,
    )?;
    let mut out = FreshScans::default();
    for s in scanned.into_iter().flatten() {
        out.entry(s.job.id).or_default().push(s);
    }
    Ok(out)
}

/// Scans one blob as `job` says, and seals the scan for the store: too large or binary
/// blobs are skipped (with the reason), components and pages through their script blocks,
/// stylesheets through their at-rules.
fn scan_blob(job: Job, blob: &Blob) -> Scanned {
    let (scan, skipped) = scan_text(job, blob);
    let key = store::imports_key(job.id.as_bytes(), SCANNER_VERSION);
    let sealed = IMPORTS.seal(key, &scan);
    Scanned {
        job,
        scan,
        skipped,
        sealed,
    }
}

/// A blob's imports, or why it was not scanned.
fn scan_text(job: Job, blob: &source::blobs::Blob) -> (FileScan, Option<String>) {
    let data = match blob {
        source::blobs::Blob::TooLarge(size) => {
            let why = format!(
                "skipped, {size} bytes is larger than the {MAX_SCANNED_FILE} byte limit for source files"
            );
            return (FileScan::default(), Some(why));
        }
        source::blobs::Blob::Data(d) => d,
    };
    if data[..data.len().min(8000)].contains(&0) {
        return (FileScan::default(), Some("skipped, binary".into()));
    }
    // Nearly every source file is UTF-8: checked fast, copied only when it is not.
    let text = match std::str::from_utf8(data) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(data),
    };
    match job.component {
        Some(kind) => (component::scan(kind, &text), None),
        None => (mesh_imports::scan_file(job.lang, &text), None),
    }
}

/// Scans one walked module: its manifests read, each source file's imports from the store or
/// scanned now, and each file's imports given the kind where the file stands decides.
fn scan_module(
    repo_name: &str,
    repo: &gix::Repository,
    m: &ModuleSource,
    files: Vec<(source::FileEntry, Option<Language>)>,
    scans: Scans,
) -> std::result::Result<Learned, SourceError> {
    let prefix = module_prefix(&m.dir);
    let mut scan = ModuleScan::new(repo_name, repo, scans);
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
    scans: Scans<'a>,
    /// The source files scanned, their imports all of kind build until placed.
    scanned: Vec<ScannedFile>,
    /// The id of each scanned file's blob, in the same order.
    blobs: Vec<Vec<u8>>,
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
    /// Whether the module has `src/lib.rs` (see `manifest::cargo_has_lib`).
    rust_lib_file: bool,
    /// Per scanned file, in the same order, the module-relative prefixes of what it declares
    /// as modules (`mod x;`) or compiles in (`include!`, `#[path]`): see `place::rust_kept`.
    reach: Vec<Vec<String>>,
    /// The first notebook skipped for its blob's absence (module-relative): the record says
    /// so and is not stored.
    partial: Option<String>,
}

impl<'a> ModuleScan<'a> {
    /// A scan of a module of `repo` (named `repo_name`), nothing taken in yet.
    fn new(repo_name: &'a str, repo: &'a gix::Repository, scans: Scans<'a>) -> Self {
        ModuleScan {
            repo_name,
            repo,
            scans,
            scanned: Vec::new(),
            blobs: Vec::new(),
            parsed: 0,
            cached: 0,
            skipped: Vec::new(),
            manifest_texts: Vec::new(),
            python_files: Vec::new(),
            rust_test_files: Vec::new(),
            rust_lib_file: false,
            reach: Vec::new(),
            partial: None,
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
        if MANIFEST_FILES.contains(&rel)
            || rel == manifest::DOCKERFILE
            || manifest::is_path_file(rel)
        {
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
        self.rust_lib_file |= rel == "src/lib.rs";
        let Some(lang) = lang else { return Ok(()) };
        if absent_notebook(self.repo, f) {
            self.partial.get_or_insert_with(|| f.path.clone());
            self.skipped
                .push(format!("{}:{} {NOT_IN_REPOSITORY}", self.repo_name, f.path));
            return Ok(());
        }
        // A blob scanned before comes from the store; any other was scanned in this load.
        let found = if let Some(found) = self.scans.known.get(&f.id) {
            self.cached += 1;
            found
        } else {
            self.parsed += 1;
            let job = Job::of(f, lang);
            let scanned = self.scans.fresh.get(&f.id).map_or(&[][..], Vec::as_slice);
            let Some(s) = scanned.iter().find(|s| s.job == job) else {
                return Ok(());
            };
            if let Some(why) = &s.skipped {
                self.skipped
                    .push(format!("{}:{}: {why}", self.repo_name, f.path));
            }
            &s.scan
        };
        self.rust_test_files
            .extend(place::rust_test_files(rel, &found.test_mods));
        let mut reach = place::rust_mod_files(rel, &found.mods);
        reach.extend(place::rust_included(rel, &found.includes));
        self.reach.push(reach);
        let repo_name = self.repo_name;
        self.skipped.extend(
            found
                .notes
                .iter()
                .map(|n| format!("{repo_name}:{}: {n}", f.path)),
        );
        self.blobs.push(f.id.as_bytes().to_vec());
        self.scanned.push(ScannedFile {
            path: f.path.clone(),
            language: lang,
            kind: mesh_imports::ImportKind::Build,
            imports: found.imports.clone(),
            rust_macros: found.rust_macros.clone(),
        });
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
        // A dev target's root keeps its modules in its own directory (dioxus-desktop's
        // `[[test]] path = "headless_tests/events.rs"` and its `headless_tests/utils.rs`),
        // unless a shipped target stands there too.
        let cargo_toml = (texts.iter())
            .find(|(name, _)| *name == "Cargo.toml")
            .and_then(|(_, text)| toml::from_str::<toml::Table>(text).ok());
        // A package of binaries only provides no crate name: nothing depends on it.
        if cargo_toml.as_ref().is_some_and(|t| {
            t.contains_key("package") && !manifest::cargo_has_lib(t, self.rust_lib_file)
        }) {
            facts.provides.retain(|(lang, _)| *lang != Language::Rust);
            facts.notes.push(
                "Cargo.toml builds no library (no [lib] table, and no src/lib.rs Cargo finds by itself): it provides no crate name"
                    .into(),
            );
        }
        let shipped_dirs = cargo_toml
            .as_ref()
            .map(manifest::cargo_shipped_dirs)
            .unwrap_or_default();
        for p in &facts.rust_dev_paths {
            self.rust_test_files.push(p.clone());
            if let Some((dir, _)) = p.rsplit_once('/')
                && !dir.is_empty()
                && dir.split('/').next() != Some("src")
            {
                let dir = format!("{dir}/");
                if !shipped_dirs.iter().any(|s| s.starts_with(&dir)) {
                    self.rust_test_files.push(dir);
                }
            }
        }
        let sdist_only: Vec<String> = texts
            .iter()
            .filter(|(name, _)| *name == "pyproject.toml")
            .flat_map(|(_, text)| mesh_imports::python_packages::sdist_only(text))
            .collect();
        let places = place::Places::new(
            &m.manifest.dev,
            facts.python_shipped.clone(),
            self.rust_test_files,
        )
        .with_python_sdist_only(&sdist_only)
        .with_python_build_hooks(
            (texts.iter())
                .filter(|(name, _)| *name == "pyproject.toml")
                .flat_map(|(_, text)| mesh_imports::python_packages::build_hooks(text))
                .collect(),
        );
        // Rust code no target of the build compiles is data: never read.
        let base = cargo_toml.as_ref().and_then(manifest::cargo_compiled);
        let rust: Vec<usize> = (0..self.scanned.len())
            .filter(|&i| self.scanned[i].language == Language::Rust)
            .collect();
        let files: Vec<(&str, &[String])> = (rust.iter())
            .map(|&i| {
                let path = &self.scanned[i].path;
                let rel = path.strip_prefix(prefix).unwrap_or(path);
                (rel, self.reach.get(i).map_or(&[][..], Vec::as_slice))
            })
            .collect();
        let kept = place::rust_kept(&files, base.as_deref());
        let mut compiled = vec![true; self.scanned.len()];
        for (&i, k) in rust.iter().zip(kept) {
            compiled[i] = k;
        }
        if compiled.contains(&false) {
            let mut keep = compiled.iter();
            self.blobs.retain(|_| keep.next().is_some_and(|k| *k));
            for (f, _) in (self.scanned.iter()).zip(&compiled).filter(|(_, c)| !**c) {
                self.skipped.push(format!(
                    "{}:{}: no target compiles it (outside src/, tests/, benches/, examples/ and the paths Cargo.toml names, or a test's fixture no `mod` reaches), so it is data: not read",
                    self.repo_name, f.path
                ));
            }
            let mut keep = compiled.iter();
            self.scanned.retain(|_| keep.next().is_some_and(|k| *k));
        }
        for file in &mut self.scanned {
            let rel = file.path.strip_prefix(prefix).unwrap_or(&file.path);
            file.kind = places.kind(file.language, rel);
        }
        if has_go {
            facts
                .notes
                .retain(|n| !n.starts_with("no language manifest"));
        }
        if let Some(path) = &self.partial {
            facts.notes.push(format!("{path} {NOT_IN_REPOSITORY}"));
        }
        let record = ModuleRecord {
            source_id: m.source_id.clone(),
            scanner_version: SCANNER_VERSION,
            files: self.scanned,
            manifests: facts,
        };
        Learned {
            sealed: self.partial.is_none().then(|| {
                MODULES.seal(
                    m.name().as_bytes().to_vec(),
                    &StoredModule::of(&record, &self.blobs),
                )
            }),
            record,
            walked: true,
            parsed: self.parsed,
            cached: self.cached,
            skipped: self.skipped,
        }
    }
}

/// A blob of the repository that could not be read.
pub(super) fn unreadable(repo_name: &str, path: &str, e: &dyn std::fmt::Display) -> SourceError {
    SourceError {
        repo: repo_name.to_string(),
        message: format!("cannot read {path}: {e}"),
        help: "check the repository with `git fsck`; mesh reads only committed objects".into(),
    }
}
