//! Walking and scanning the modules whose source id moved: their files read from git, each
//! blob's imports from the store when it was scanned before, else scanned now (on several
//! threads when there is enough to do).

use crate::Result;
use crate::imports::manifest::{self, MANIFEST_FILES, ManifestFacts};
use crate::imports::{FileScan, Language, SCANNER_VERSION, ScannedFile, component, place};
use crate::source::{self, ModuleSource, RepoSnapshot, Snapshot, SourceError};
use crate::store::ModuleRecord;
use gix::ObjectId;
use std::collections::HashMap;

/// Files larger than this are not scanned (generated code, vendored bundles).
const MAX_SCANNED_FILE: u64 = 4 << 20;

/// What one module's walk (or its cached record) gave.
pub(super) struct Learned {
    pub record: ModuleRecord,
    pub walked: bool,
    pub new_imports: Vec<(ObjectId, FileScan)>,
    pub parsed: u64,
    pub cached: u64,
    pub skipped: Vec<String>,
}

/// What the store knows of each blob scanned before, by blob id.
pub(super) type KnownScans = HashMap<ObjectId, FileScan>;

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
pub(super) fn scan_modules(
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
pub(super) fn unreadable(repo_name: &str, path: &str, e: &dyn std::fmt::Display) -> SourceError {
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
