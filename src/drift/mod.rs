//! Drift: each module's manifests set beside what its code imports, in every ecosystem at once.
//!
//! A dependency declared and never imported makes every change to it rebuild and redeploy a
//! module that does not use it; an import declared nowhere a clean build looks (a phantom
//! resolved by hoisting or a workspace) builds on a laptop and breaks on a clean machine. The
//! imports come from what [`crate::graph::load`] already learned (the store's scans, with their
//! kinds); only the manifests are read again, for the lines a finding points at.

pub mod cache;
mod compare;
pub mod declared;
mod doubt;
pub mod explain;
mod go;
mod ignores;
pub mod js;
mod lockfile;
pub mod names;
pub mod python;
mod python_env;
mod python_names;
pub mod rust;
pub mod stdlib;
pub mod tools;

use crate::Result;
use crate::graph::Loaded;
use crate::source::{self, ModuleSource, RepoSnapshot, SourceError, blob_text};
use compare::{Around, compare};
use declared::{Declared, Scope};
use mesh_imports::{ImportKind, Language, ScannedFile};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use tools::ToolEvidence;

/// What a finding says about a dependency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DriftKind {
    /// Declared (for shipping, dev or optional use), never imported by code of that kind.
    Unused,
    /// Imported by shipped or test code, declared nowhere a clean build would find it.
    Undeclared,
    /// Declared for shipping, imported only by tests, benches and examples: move it.
    DevOnly,
    /// Declared for development, imported by shipped code (JS): right for a package that
    /// bundles what it imports (then never said), missing at run time otherwise.
    ShippedDev,
}

impl DriftKind {
    /// The word used in tables and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            DriftKind::Unused => "unused",
            DriftKind::Undeclared => "undeclared",
            DriftKind::DevOnly => "dev-only",
            DriftKind::ShippedDev => "shipped-dev",
        }
    }
}

/// One difference between a module's manifest and its imports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The module.
    pub module: String,
    /// The dependency, as it is (or would be) written in that manifest.
    pub dependency: String,
    /// What is wrong with it.
    pub kind: DriftKind,
    /// The manifest, repo-relative.
    pub manifest: String,
    /// The declaration's line; `None` for an undeclared dependency.
    pub line: Option<u32>,
    /// The import that shows it (`file:line`, repo-relative), where there is one.
    pub evidence: Option<String>,
    /// Why it may not be what it says, when the module holds evidence the comparison cannot
    /// weigh (the name written in a config, an import only examples make): such a finding is
    /// *unsure*, listed apart and never failing `--check` (see [`doubt`]).
    pub doubt: Option<String>,
}

/// The findings of every module asked about, grouped by module (in name order), then by
/// manifest and dependency.
pub fn drift(loaded: &Loaded, only: &[String]) -> Result<Vec<Finding>> {
    run(loaded, only, None)
}

/// [`drift`], saying to `probe` what it sees of the dependency it looks at.
fn run(loaded: &Loaded, only: &[String], probe: Option<&explain::Probe>) -> Result<Vec<Finding>> {
    let snapshot = &loaded.snapshot;
    let mut manifests: Vec<Manifests> = snapshot
        .modules
        .iter()
        .map(|m| Manifests::read(snapshot.repo_of(m), m))
        .collect::<std::result::Result<_, _>>()?;
    // What Python test runners and uv workspace roots install for each module.
    let python: Vec<bool> = manifests
        .iter()
        .map(|m| m.pyproject.is_some() || m.setup_cfg.is_some())
        .collect();
    for (man, env) in manifests
        .iter_mut()
        .zip(python_env::declarations(snapshot, &python)?)
    {
        man.python_env = env;
        if let (Some(t), Some(text)) = (&man.pyproject_table, &man.pyproject) {
            man.python_env.extend(python_env::hatch_envs(t, text));
        }
    }
    tools::workspace_tools(snapshot, &mut manifests);
    tools::workspace_bins(&mut manifests);
    // A JS package with no build command and no bundler config of its own is built by the
    // bundler config at its workspace root, when there is one.
    let mut bundler_memo = HashMap::new();
    for (m, man) in snapshot.modules.iter().zip(manifests.iter_mut()) {
        let Some(v) = &man.package_json_value else {
            continue;
        };
        if man.tools.bundler_config.is_none() && !js::has_build_script(v) {
            man.tools.workspace_bundler =
                js::workspace_bundler(snapshot.repo_of(m), m.repo, &m.dir, &mut bundler_memo)?;
        }
    }
    let mut world = World::new(loaded, &manifests);
    world.probe = probe;
    // What each repository's root says of its JS packages, read once per repository with
    // JS modules.
    for (r, snap) in snapshot.repos.iter().enumerate() {
        let js = snapshot
            .modules
            .iter()
            .zip(&manifests)
            .any(|(m, man)| m.repo == r && man.package_json.is_some());
        world.js_roots.push(match js {
            true => JsRoot::read(snap)?,
            false => JsRoot::default(),
        });
    }
    // What each workspace package needs beside it: the peers its own code imports.
    for (i, (m, man)) in snapshot.modules.iter().zip(&manifests).enumerate() {
        let Some(v) = &man.package_json_value else {
            continue;
        };
        let (name, peers) = js::imported_peers(v, &loaded.records[i].files);
        if let (Some(name), false) = (name, peers.is_empty())
            && let Some(root) = world.js_roots.get_mut(m.repo)
        {
            root.peers
                .get_or_insert_with(lockfile::Peers::default)
                .workspace
                .insert(name, peers);
        }
    }
    let provided = world.provided();
    for (r, snap) in snapshot.repos.iter().enumerate() {
        let local = snapshot
            .modules
            .iter()
            .zip(&manifests)
            .zip(&python)
            .any(|((m, man), &py)| m.repo == r && (py || man.package_json.is_some()));
        world.local_names.push(match local {
            true => doubt::LocalNames::read(snap, &provided)?,
            false => doubt::LocalNames::default(),
        });
    }
    let mut work_memo = HashMap::new();
    let mut js_memo = HashMap::new();
    let (mut go_above, guests) = go::guests(loaded, &manifests)?;
    let mut out = Vec::new();
    for (i, m) in snapshot.modules.iter().enumerate() {
        if !only.is_empty() && !only.iter().any(|o| o == m.name()) {
            continue;
        }
        let go_mod = go_above[i].take();
        let own_go_mod = (m.repo, source::join(&m.dir, "go.mod"));
        let go_guests = guests.get(&own_go_mod).map_or(&[][..], Vec::as_slice);
        let workspace = if has(&loaded.records[i].files, Language::Go) {
            go::workspace(snapshot.repo_of(m), m.repo, &m.dir, &mut work_memo)?
        } else {
            Vec::new()
        };
        let js_root = if manifests[i].package_json.is_some() {
            js::enclosing(snapshot.repo_of(m), m.repo, &m.dir, &mut js_memo)?
        } else {
            Vec::new()
        };
        let mut found = module_drift(
            &world,
            i,
            m,
            &manifests[i],
            (go_mod.as_ref(), go_guests),
            &workspace,
            &js_root,
        );
        doubt::mentions(snapshot.repo_of(m), m, &mut found)?;
        let ignore = mesh_imports::globs(&m.manifest.drift_ignore, false);
        if let Some(p) = probe {
            for f in found.iter().filter(|f| p.names(&f.dependency)) {
                if ignore.is_match(&f.dependency) {
                    p.say(format!(
                        "`[drift] ignore` in {}/mesh-module.toml silences it",
                        m.dir
                    ));
                }
            }
        }
        found.retain(|f| !ignore.is_match(&f.dependency));
        found.sort_by(|a, b| {
            (&a.manifest, &a.dependency, a.kind).cmp(&(&b.manifest, &b.dependency, b.kind))
        });
        // A name listed in several extras (`openai` in seven of pydantic-ai-slim's) is one
        // finding.
        found.dedup();
        out.extend(found);
    }
    Ok(out)
}

fn has(files: &[ScannedFile], lang: Language) -> bool {
    files.iter().any(|f| f.language == lang)
}

/// A module's language manifests, read at the configured ref.
#[derive(Default)]
struct Manifests {
    /// `Cargo.toml`, when it describes a package.
    cargo: Option<String>,
    /// `package.json`.
    package_json: Option<String>,
    /// `package.json` parsed, once for every rule that reads its keys (none when it does not
    /// parse).
    package_json_value: Option<serde_json::Value>,
    /// `go.mod`.
    go_mod: Option<String>,
    /// `pyproject.toml`.
    pyproject: Option<String>,
    /// `pyproject.toml` parsed, once for every rule that reads it (none when it does not
    /// parse: its declarations are then none either).
    pyproject_table: Option<toml::Table>,
    /// The dependencies `pyproject.toml` declares, read once: the module's own comparison and
    /// the mesh's view of its distribution both need them.
    pyproject_decls: Vec<Declared>,
    /// `setup.cfg`.
    setup_cfg: Option<String>,
    /// Its `tsconfig.json` (else `jsconfig.json`) `paths` aliases, through its `extends`:
    /// imports through them are files, not packages.
    js_paths: Vec<js::Alias>,
    /// What its tools' configs and commands say they use.
    tools: ToolEvidence,
    /// A JS workspace root: its package.json names `workspaces`, or a `pnpm-workspace.yaml`
    /// is beside it.
    js_workspace_root: bool,
    /// The Rust build script (module-relative) and the files it includes with `#[path]`.
    rust_build: Option<(String, Vec<String>)>,
    /// Whether the crate's doc tests are compiled (`[lib] doctest = false` says not): a doc
    /// test's import uses a dependency only when they are.
    rust_doctests: bool,
    /// What each Python distribution installed beside the module says it is imported by.
    installed_python: HashMap<String, Vec<String>>,
    /// What its Python test environment installs besides its manifests: requirements files a
    /// test runner installs, the uv workspace root's groups.
    python_env: Vec<python_env::EnvDecl>,
}

impl Manifests {
    fn read(snap: &RepoSnapshot, m: &ModuleSource) -> std::result::Result<Manifests, SourceError> {
        let tree = snap
            .repo
            .find_tree(m.tree)
            .map_err(|e| SourceError::git(&snap.name, "cannot read a module's tree", e))?;
        let read = |name: &str| blob_text(snap, &tree, name);
        let package_json = read("package.json")?;
        let package_json_value = package_json
            .as_deref()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok());
        let js_workspace_root = match &package_json_value {
            Some(v) => js::names_workspaces(v) || read("pnpm-workspace.yaml")?.is_some(),
            None => false,
        };
        let pyproject = read("pyproject.toml")?;
        let pyproject_table = pyproject
            .as_deref()
            .and_then(|t| toml::from_str::<toml::Table>(t).ok());
        let tools = tools::evidence(
            snap,
            &tree,
            m,
            package_json_value.as_ref(),
            pyproject_table.as_ref(),
        )?;
        let cargo = read("Cargo.toml")?.filter(|t| declared::cargo_has_package(t));
        let rust_build = match cargo.as_deref().and_then(rust::build_script) {
            Some(script) => {
                let includes = read(&script)?
                    .map(|t| rust::build_includes(&script, &t))
                    .unwrap_or_default();
                Some((script, includes))
            }
            None => None,
        };
        let installed_python = match pyproject.is_some() {
            true => python::installed(&python::environments(&snap.path, &m.dir)),
            false => HashMap::new(),
        };
        Ok(Manifests {
            rust_doctests: cargo.as_deref().is_none_or(rust::doc_tests_run),
            cargo,
            rust_build,
            installed_python,
            package_json,
            package_json_value,
            go_mod: read("go.mod")?,
            pyproject_decls: match (&pyproject_table, &pyproject) {
                (Some(t), Some(text)) => declared::pyproject_of(t, text),
                _ => Vec::new(),
            },
            pyproject,
            pyproject_table,
            setup_cfg: read("setup.cfg")?,
            js_paths: match (read("tsconfig.json")?, read("jsconfig.json")?) {
                (Some(t), _) => {
                    js::tsconfig_aliases(snap, &source::join(&m.dir, "tsconfig.json"), &t)?
                }
                (None, Some(t)) => {
                    js::tsconfig_aliases(snap, &source::join(&m.dir, "jsconfig.json"), &t)?
                }
                (None, None) => Vec::new(),
            },
            tools,
            js_workspace_root,
            python_env: Vec::new(),
        })
    }
}

/// What every module needs to know about the others: Python distributions the mesh holds
/// (normalized project name → the import names that module provides), and Go module paths.
struct World<'a> {
    loaded: &'a Loaded,
    python_dists: HashMap<String, Vec<String>>,
    /// The extras of the mesh's Python distributions (PEP 503 names), each with what it
    /// installs: a module declaring `livekit-agents[openai]` has `livekit-plugins-openai`.
    python_extras: HashMap<String, HashMap<String, Vec<String>>>,
    /// What each of the mesh's Python distributions requires to run (PEP 503 names): a plugin
    /// requires the package it plugs into.
    python_requires: HashMap<String, Vec<String>>,
    /// Dotted prefixes of the Python names the mesh's modules provide that no module
    /// provides itself: PEP 420 namespaces shared by distributions (`opentelemetry`).
    python_namespaces: HashSet<String>,
    go_modules: Vec<String>,
    /// Workspace crates whose `[lib] name` is not their package's.
    rust_libs: HashMap<String, String>,
    /// The dependency `--explain` looks at, told what the comparison sees of it.
    probe: Option<&'a explain::Probe>,
    /// Per repository, what its root says of its JS packages.
    js_roots: Vec<JsRoot>,
    /// Per repository with JS or Python modules, its file and directory names (see
    /// [`doubt::LocalNames`]).
    local_names: Vec<doubt::LocalNames>,
    /// None, for the repositories and ecosystems that need none.
    no_local_names: doubt::LocalNames,
    /// Each Python or Rust lockfile looked for, read on first need.
    locks: lockfile::Locks,
    /// Every name a module of the mesh provides, with its language: asked for each pair of
    /// declarations a doubt weighs, so made once.
    provides: HashSet<(Language, String)>,
}

/// What a repository's root says of every JS package in it, whatever its module.
#[derive(Default)]
struct JsRoot {
    /// Its tsconfig aliases (see [`js::root_aliases`]).
    aliases: Vec<js::Alias>,
    /// The required peers its lockfile records (see [`lockfile`]).
    peers: Option<lockfile::Peers>,
    /// What each package depends on, as its lockfile records.
    depends: Option<lockfile::Depends>,
    /// Its knip config, (file, text): a knip.json (or .jsonc, or dotted), else the root
    /// package.json when it has a `knip` key.
    knip: Option<(String, String)>,
}

impl JsRoot {
    /// Reads the root of `snap`.
    fn read(snap: &RepoSnapshot) -> Result<JsRoot> {
        let root = snap.root_tree()?;
        let first = |files: &[&str]| -> Result<Option<(String, String)>> {
            for file in files {
                if let Some(text) = blob_text(snap, &root, file)? {
                    return Ok(Some((file.to_string(), text)));
                }
            }
            Ok(None)
        };
        let (peers, depends) = match first(lockfile::LOCKFILES)? {
            Some((file, text)) => {
                let (peers, depends) = lockfile::js(&file, &text);
                (Some(peers), Some(depends))
            }
            None => (None, None),
        };
        let knip = match first(ignores::KNIP_CONFIGS)? {
            Some(found) => Some(found),
            None => first(&["package.json"])?.filter(|(_, t)| t.contains("\"knip\"")),
        };
        Ok(JsRoot {
            aliases: js::root_aliases(snap)?,
            peers,
            depends,
            knip,
        })
    }
}

impl<'a> World<'a> {
    /// Whether `name` (as declared in `lang`'s manifests) is a package a module of the mesh
    /// provides: the workspace's own version, which no declaration pins.
    fn mesh_package(&self, lang: Language, name: &str) -> bool {
        match lang {
            Language::Python => self.python_dists.contains_key(&names::pep503(name)),
            Language::Rust => self
                .provides
                .contains(&(lang, mesh_imports::manifest::rust_ident(name))),
            _ => self.provides.contains(&(lang, name.to_string())),
        }
    }

    /// The nearest of the lockfiles `names` (Python's or Rust's) beside the module `m` or
    /// above it, and what it records (see [`lockfile::Locks`]).
    fn lock_above(&self, m: &ModuleSource, names: &[&str]) -> lockfile::Lock {
        self.locks
            .above(self.loaded.snapshot.repo_of(m), m.repo, &m.dir, names)
    }

    /// Every JS package and top Python import name a module of the mesh provides
    /// (lowercase).
    fn provided(&self) -> HashSet<String> {
        self.loaded
            .records
            .iter()
            .flat_map(|r| r.manifests.provides.iter())
            .map(|(_, n)| n.split('.').next().unwrap_or(n).to_lowercase())
            .collect()
    }

    fn new(loaded: &'a Loaded, manifests: &[Manifests]) -> World<'a> {
        let mut python_dists = HashMap::new();
        let mut python_extras = HashMap::new();
        let mut python_requires = HashMap::new();
        let mut go_modules = Vec::new();
        for (rec, man) in loaded.records.iter().zip(manifests) {
            let pyproject = man.pyproject_table.clone();
            let table = match &man.setup_cfg {
                Some(cfg) => Some(mesh_imports::setup_cfg::merged(
                    pyproject,
                    &mesh_imports::setup_cfg::read(cfg),
                )),
                None => pyproject,
            };
            if let Some(name) = table
                .as_ref()
                .and_then(|t| t.get("project")?.get("name")?.as_str().map(names::pep503))
            {
                let provided = rec
                    .manifests
                    .provides
                    .iter()
                    .filter(|(l, _)| *l == Language::Python)
                    .map(|(_, n)| n.to_lowercase())
                    .collect();
                if let Some(t) = &table {
                    python_extras.insert(name.clone(), declared::pyproject_extras(t));
                }
                let requires = man
                    .pyproject_decls
                    .iter()
                    .filter(|d| d.scope == Scope::Normal)
                    .map(|d| names::pep503(&d.name))
                    .collect();
                python_requires.insert(name.clone(), requires);
                python_dists.insert(name, provided);
            }
            if let Some(p) = man
                .go_mod
                .as_deref()
                .and_then(mesh_imports::manifest::go_module_path)
            {
                go_modules.push(p);
            }
        }
        let provided: HashSet<&str> = python_dists
            .values()
            .flatten()
            .map(String::as_str)
            .collect();
        let python_namespaces = provided
            .iter()
            .flat_map(|n| n.match_indices('.').map(move |(i, _)| &n[..i]))
            .filter(|prefix| !provided.contains(prefix))
            .map(str::to_string)
            .collect();
        World {
            loaded,
            python_dists,
            python_extras,
            python_requires,
            python_namespaces,
            go_modules,
            rust_libs: rust::workspace_libs(manifests.iter().filter_map(|m| m.cargo.as_deref())),
            probe: None,
            js_roots: Vec::new(),
            local_names: Vec::new(),
            no_local_names: doubt::LocalNames::default(),
            locks: Default::default(),
            provides: loaded
                .records
                .iter()
                .flat_map(|r| r.manifests.provides.iter().cloned())
                .collect(),
        }
    }
}

/// One import, ready to match: the key its ecosystem matches declarations by.
#[derive(Clone)]
struct Use<'a> {
    language: Language,
    /// Rust crate name, JS package, Go import path, Python dotted name (lowercase); `node:`
    /// for a Node built-in (only `@types/node` matches it). Borrowed from the import's name
    /// where it can be.
    key: Cow<'a, str>,
    kind: ImportKind,
    /// Guarded (`try/except ImportError`, `if TYPE_CHECKING:`, a `MODULE_NOT_FOUND` catch):
    /// the code runs without it, in shipped and test files alike, so it is never undeclared.
    optional: bool,
    /// Imported by Rust's `build.rs`.
    build_script: bool,
    /// A TypeScript `import type` / `export type`, a `typeof import("x")`, an import of a
    /// `.d.ts`: erased from the build.
    type_only: bool,
    /// A JS import whose statement begins on an earlier line (`} from "x";`): whether it is
    /// type-only is read from its file when it matters.
    continued: bool,
    /// Why a JS import is answered apart from the module's declarations, as `--explain` says
    /// it: a tsconfig alias maps it to a file of the repository (`tsconfig.test.json:8 maps it
    /// to packages/x/src/index.ts`), or a package.json nested in the module declares it for
    /// the files below it. It uses a declaration of its name, but is never undeclared.
    answered_apart: Option<String>,
    /// A stylesheet's `@import`/`@use`: it uses a declaration of its name, but is never
    /// undeclared (a bare name may be a file on the preprocessor's load path, which is not
    /// read) nor shipped code's dev dependency (a build inlines stylesheets).
    stylesheet: bool,
    /// A Rust path beside a glob import that may bring a module of its name (optional too).
    glob_scoped: bool,
    /// A crate a Rust intra-doc link names (optional too, of its file's kind).
    doc_link: bool,
    file: &'a str,
    line: u32,
}

impl<'a> Use<'a> {
    /// A use of `key` by `file:line`, of `kind`, with none of the special cases an import's
    /// text or place may add (for uses no import line makes: a component's runtime, a
    /// testdata package's imports).
    fn plain(
        language: Language,
        key: Cow<'a, str>,
        kind: ImportKind,
        file: &'a str,
        line: u32,
    ) -> Use<'a> {
        Use {
            language,
            key,
            kind,
            optional: false,
            build_script: false,
            type_only: false,
            continued: false,
            answered_apart: None,
            stylesheet: false,
            glob_scoped: false,
            doc_link: false,
            file,
            line,
        }
    }

    fn evidence(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// A declaration with the keys imports match it by.
struct Decl {
    d: Declared,
    keys: Vec<String>,
}

/// The findings of one module.
fn module_drift(
    world: &World,
    i: usize,
    m: &ModuleSource,
    man: &Manifests,
    (go_above, go_guests): (Option<&(String, String)>, &[Use]),
    go_workspace: &[String],
    js_root: &[Declared],
) -> Vec<Finding> {
    let rec = &world.loaded.records[i];
    let mut uses = uses(world, rec, m, man);
    let package_json = man.package_json.as_deref().map(declared::package_json);
    if let Some((decls, _)) = &package_json {
        js_statements(world.loaded.snapshot.repo_of(m), decls, &mut uses);
    }
    let mut out = Vec::new();
    if let Some(text) = &man.cargo {
        rust::drift(world, rec, m, text, &uses, &mut out);
    }
    let check = |lang: Language, decls: Vec<Decl>, manifest: &str, out: &mut Vec<Finding>| {
        let uses: Vec<&Use> = uses.iter().filter(|u| u.language == lang).collect();
        let around = Around {
            tools: &man.tools,
            go_modules: &world.go_modules,
            python_dists: &world.python_dists,
            js_peers: world.js_roots.get(m.repo).and_then(|r| r.peers.as_ref()),
            probe: world.probe,
            local: world
                .local_names
                .get(m.repo)
                .unwrap_or(&world.no_local_names),
        };
        compare(m, lang, &decls, &uses, manifest, &around, out);
    };
    if let Some((decls, _)) = package_json {
        let decls = js_decls(decls, js_root);
        let names = own_names(&decls);
        let mut js = Vec::new();
        check(
            Language::Js,
            decls,
            &source::join(&m.dir, "package.json"),
            &mut js,
        );
        let knip = world.js_roots.get(m.repo).and_then(|r| r.knip.as_ref());
        if let Some((file, text)) = knip {
            ignores::apply(&ignores::knip(text, file, &m.dir), world.probe, &mut js);
        }
        if let Some(v) = &man.package_json_value {
            doubt::private_package(v, &mut js);
        }
        doubt::sibling_sources(world, i, &mut js);
        if let (None, Some(how)) = (man.tools.own_bundler(), man.tools.bundler()) {
            doubt::bundled_siblings(&mut js, &how, &|p| world.mesh_package(Language::Js, p));
        }
        let depends = world.js_roots.get(m.repo).and_then(|r| r.depends.as_ref());
        if let Some(lock) = depends {
            doubt::optionally_loaded(&mut js, &names, lock);
            doubt::transitive(&mut js, &names, lock, &|f, q| {
                doubt::family(q) == doubt::family(&f.dependency)
                    && !world.mesh_package(Language::Js, &f.dependency)
            });
        }
        out.extend(js);
    }
    if let Some((decls, file)) = python::declarations(world, man, &m.dir) {
        let names = own_names(&decls);
        let mut py = Vec::new();
        check(
            Language::Python,
            decls,
            &source::join(&m.dir, file),
            &mut py,
        );
        python::without_unused_when_no_code(world, rec, &mut py);
        python::without_unused_plugin_bundles(world, man, &mut py);
        let known = |dist: &str| {
            let norm = names::pep503(dist);
            names::python_known(&norm)
                || world.python_dists.contains_key(&norm)
                || man.installed_python.contains_key(&norm)
        };
        doubt::name_guesses(&mut py, &known, true);
        if py.iter().any(|f| f.kind == DriftKind::Unused)
            && let Some(lock) = world.lock_above(m, lockfile::PYTHON_LOCKFILES)
        {
            doubt::transitive(&mut py, &names, &lock, &|f, q| {
                doubt::family(q) == doubt::family(&f.dependency)
                    && !world.mesh_package(Language::Python, &f.dependency)
            });
        }
        if let Some(text) = &man.pyproject {
            ignores::apply(&ignores::deptry(text), world.probe, &mut py);
        }
        out.extend(py);
    }
    let go = match (&man.go_mod, go_above) {
        (Some(text), _) => Some((source::join(&m.dir, "go.mod"), text.as_str(), true)),
        (None, Some((path, text))) => Some((path.clone(), text.as_str(), false)),
        (None, None) => None,
    };
    if let Some(go) = go {
        let uses: Vec<Use> = uses.iter().chain(go_guests).cloned().collect();
        go::drift(world, m, go, go_workspace, (rec, &uses), &mut out);
    }
    out
}

/// The names the module's own manifests declare (not a workspace root's, not a test
/// runner's environment).
fn own_names(decls: &[Decl]) -> Vec<String> {
    decls
        .iter()
        .filter(|d| d.d.elsewhere.is_none())
        .map(|d| d.d.name.clone())
        .collect()
}

/// A package.json's declarations, and its workspace root's, with the import names each
/// satisfies (`@types/x` satisfies `x`'s type imports, `@types/node` the `node:` ones).
fn js_decls(decls: Vec<Declared>, js_root: &[Declared]) -> Vec<Decl> {
    decls
        .into_iter()
        .chain(js_root.iter().cloned())
        .map(|d| {
            let keys = match names::js_typed_package(&d.name) {
                Some(t) if t == "node" => vec!["node:".to_string()],
                Some(t) => vec![t],
                None => vec![d.name.clone()],
            };
            Decl { d, keys }
        })
        .collect()
}

/// Every import of the module that a declaration could answer: standard libraries, its own
/// names (Python's through `sys.path` too), relative paths and `[imports] ignore` patterns
/// left out. A Rust file the build script (`rust_build`) is or includes counts for it.
fn uses<'a>(
    world: &World,
    rec: &'a crate::store::ModuleRecord,
    m: &ModuleSource,
    man: &Manifests,
) -> Vec<Use<'a>> {
    let rust_build = man.rust_build.as_ref();
    let root_aliases = world
        .js_roots
        .get(m.repo)
        .map_or(&[][..], |r| r.aliases.as_slice());
    let ignore = mesh_imports::globs(&m.manifest.ignore, false);
    let prefix = if m.dir.is_empty() {
        String::new()
    } else {
        format!("{}/", m.dir)
    };
    let keys = UseKeys::new(rec, m, &prefix);
    let snap = world.loaded.snapshot.repo_of(m);
    let mut tree = None;
    let mut on_path = python::SysPath::new(&rec.files, &prefix, |rel: &str| {
        let tree = tree.get_or_insert_with(|| snap.repo.find_tree(m.tree).ok());
        blob_text(snap, tree.as_ref()?, rel).ok().flatten()
    });
    let mut nested = js::NestedPackages::new(snap, m.tree, &prefix);
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut own_said = HashSet::new();
    for f in &rec.files {
        let rel = f.path.strip_prefix(&prefix).unwrap_or(&f.path);
        for imp in f.imports.iter() {
            // An empty set still splits every name into a candidate path: skip it.
            if !ignore.is_empty() && ignore.is_match(&imp.name) {
                continue;
            }
            let Some(key) = keys.key(f.language, rel, &imp.name) else {
                if f.language == Language::Python {
                    python::own_evidence(world, &keys, f, imp, &mut own_said);
                }
                continue;
            };
            if imp.in_doc && !man.rust_doctests {
                if let Some(p) = world.probe.filter(|p| p.names(&key)) {
                    p.say(format!(
                        "{}:{} names it in a doc test, which rustdoc does not compile: `[lib] doctest = false` in Cargo.toml",
                        f.path, imp.line
                    ));
                }
                continue;
            }
            if f.language == Language::Python {
                let top = key.split('.').next().unwrap_or(&key);
                if let Some(why) = on_path.local(&keys.local_python, rel, &key) {
                    if let Some(p) = world.probe.filter(|p| p.names(top)) {
                        p.say(format!(
                            "imported by {}:{}, and it is the module's own: {why}",
                            f.path, imp.line
                        ));
                    }
                    continue;
                }
                if python::namespace_only(world, &keys, f, imp, &key) {
                    continue;
                }
                if let Some(dir) = keys.local_python.namespace_miss(rel, &key)
                    && let Some(p) = world.probe.filter(|p| python::probed(p, &key))
                {
                    p.say(format!(
                        "imported by {}:{}, and not the module's own: `{dir}/` beside it is a namespace directory (no __init__.py) that does not hold `{key}`",
                        f.path, imp.line
                    ));
                }
            }
            // A JS test runner's setup file is test code wherever it lies.
            let test_support = f.language == Language::Js
                && f.kind == ImportKind::Build
                && tools::is_test_support(rel, &man.tools.test_setup);
            let file_kind = match test_support {
                true => ImportKind::Dev,
                false => f.kind,
            };
            let script = match rust_build {
                Some((s, inc)) if f.language == Language::Rust => {
                    (rel == s, inc.iter().any(|i| i == rel))
                }
                _ => (false, false),
            };
            let mut one = new_use(f, imp, key, file_kind, script.0);
            if one.language == Language::Js {
                let dev = one.kind == ImportKind::Dev || one.type_only;
                one.answered_apart = js::alias_for(&man.js_paths, root_aliases, &imp.name, dev)
                    .map(|a| {
                        format!(
                            "{} maps it to {}: a file of the repository, no package to declare",
                            a.at,
                            a.path_of(&imp.name)
                        )
                    })
                    .or_else(|| {
                        nested.declaring(rel, &one.key).map(|p| {
                            format!("{p} declares it for the files below it, a package of its own")
                        })
                    });
            }
            push_import(&mut out, &mut seen, one, script.1);
        }
        if let Some(runtime) = component_runtime(f) {
            push_import(&mut out, &mut seen, runtime, false);
        }
    }
    out
}

/// A component file's compiled code imports its framework's runtime (`.astro` pages compile to
/// imports of `astro/compiler-runtime`, `.svelte` to `svelte/internal`, `.vue` to `vue`), which
/// its text never names: a use of that package by the file's code, never one owed (the
/// framework's own tooling supplies it in a repository that declares nothing).
fn component_runtime(f: &ScannedFile) -> Option<Use<'_>> {
    if f.language != Language::Js {
        return None;
    }
    let runtime = js::component_runtime(&f.path)?;
    let plain = Use::plain(Language::Js, Cow::Borrowed(runtime), f.kind, &f.path, 1);
    Some(Use {
        optional: true,
        ..plain
    })
}

/// What a module calls its own, by which an import's name becomes the key a declaration
/// matches, or none (a standard library, the module's own names).
struct UseKeys {
    own_rust: Vec<String>,
    own_js: Vec<String>,
    own_python: Vec<String>,
    local_python: python::LocalPython,
}

impl UseKeys {
    /// The names module `m` (`rec`, its files below `prefix`) provides and resolves itself.
    fn new(rec: &crate::store::ModuleRecord, m: &ModuleSource, prefix: &str) -> UseKeys {
        let own = |lang: Language| -> Vec<String> {
            rec.manifests
                .provides
                .iter()
                .filter(|(l, _)| *l == lang)
                .map(|(_, n)| n.to_lowercase())
                .collect()
        };
        let (own_rust, own_js) = (own(Language::Rust), own(Language::Js));
        let own_python = python::own_python_names(own(Language::Python), &rec.files, prefix);
        let local_python = python::local_python_names(&rec.files, &m.dir, &own_python);
        UseKeys {
            own_rust,
            own_js,
            own_python,
            local_python,
        }
    }

    /// The key an import `name` of a `lang` file (module-relative `rel`) is matched by; `None`
    /// when no declaration could answer it.
    fn key<'n>(&self, lang: Language, rel: &str, name: &'n str) -> Option<Cow<'n, str>> {
        match lang {
            Language::Rust => {
                let top = name.split("::").next().unwrap_or(name);
                // A crate name is lowercase: `Kind::` or `TokenTree::` in a `use` is an
                // item of this crate (an enum's variants brought in), never a dependency.
                if stdlib::rust(top)
                    || self.own_rust.iter().any(|o| o == top)
                    || !top.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                {
                    return None;
                }
                Some(Cow::Borrowed(top))
            }
            Language::Js => {
                if stdlib::node(name) {
                    Some(Cow::Borrowed("node:"))
                } else {
                    match names::js_package(name) {
                        Some(p) if !self.own_js.iter().any(|o| o == p) => Some(Cow::Borrowed(p)),
                        _ => None,
                    }
                }
            }
            Language::Go => {
                if stdlib::go(name) {
                    return None;
                }
                Some(Cow::Borrowed(name))
            }
            Language::Python => {
                let lower = name.to_lowercase();
                if lower.starts_with('.')
                    || stdlib::python(name.split('.').next().unwrap_or(""))
                    || self
                        .own_python
                        .iter()
                        .any(|o| names::segment_prefix(o, &lower, "."))
                    || self.local_python.is_local(rel, &lower)
                {
                    return None;
                }
                // Matched to a declaration with a Google client's module version dropped:
                // the mesh's own and local names are matched as written, first.
                Some(Cow::Owned(names::google_unversioned(&lower).into_owned()))
            }
        }
    }
}

/// The use the import `imp` of file `f` (whose code is of `file_kind`) makes of `key`;
/// `build_script` when the file is the build script.
fn new_use<'a>(
    f: &'a ScannedFile,
    imp: &'a mesh_imports::Import,
    key: Cow<'a, str>,
    file_kind: ImportKind,
    build_script: bool,
) -> Use<'a> {
    let text = imp.text.trim_start();
    let js = f.language == Language::Js;
    // rustdoc resolves an intra-doc link against the normal dependencies: shipped code's use.
    let kind = match imp.in_doc_link {
        true => file_kind,
        false => imp.kind.min(file_kind),
    };
    Use {
        language: f.language,
        key,
        kind,
        // A `.pyi` stub's imports are optional where the file stands, whatever each says.
        optional: imp.kind == ImportKind::Optional
            || file_kind == ImportKind::Optional
            || imp.in_macro
            || imp.glob_scoped
            || imp.in_doc_link,
        build_script,
        type_only: js && js::type_only_text(&f.path, text),
        continued: js && text.starts_with('}'),
        answered_apart: None,
        stylesheet: js && mesh_imports::style::syntax_of(&f.path).is_some(),
        glob_scoped: imp.glob_scoped,
        doc_link: imp.in_doc_link,
        file: &f.path,
        line: imp.line,
    }
}

/// Pushes the use `one`, after the build script's use of the same import when the build
/// script includes its file (`included`).
fn push_import<'a>(
    out: &mut Vec<Use<'a>>,
    seen: &mut HashSet<(Cow<'a, str>, u16)>,
    one: Use<'a>,
    included: bool,
) {
    if included {
        let also = Use {
            build_script: true,
            ..one.clone()
        };
        push_first(out, seen, also);
    }
    push_first(out, seen, one);
}

/// Pushes `u` unless a use alike in all that matching reads (key, language, kind, guard,
/// build script, type-only, statement begun earlier) came before: the first is the evidence,
/// and a module imports the same names from many files.
fn push_first<'a>(out: &mut Vec<Use<'a>>, seen: &mut HashSet<(Cow<'a, str>, u16)>, u: Use<'a>) {
    let lang: u16 = match u.language {
        Language::Rust => 0,
        Language::Js => 1,
        Language::Go => 2,
        Language::Python => 3,
    };
    let kind: u16 = match u.kind {
        ImportKind::Dev => 0,
        ImportKind::Optional => 1,
        ImportKind::Build => 2,
    };
    let flags = [
        u.optional,
        u.build_script,
        u.type_only,
        u.continued,
        u.answered_apart.is_some(),
        u.stylesheet,
        u.glob_scoped,
        u.doc_link,
    ]
    .iter()
    .fold(0u16, |acc, &b| (acc << 1) | u16::from(b));
    let alike = (lang * 3 + kind) << 8 | flags;
    if seen.insert((u.key.clone(), alike)) {
        out.push(u);
    }
}

/// Reads whether the multi-line statements of shipped JS imports that only a dev declaration
/// (or none) answers are `import type { … } from "x"`: the scan keeps the specifier's line
/// (`} from "x";`), so the statement's first line is read from the file, once per file and
/// only for these.
fn js_statements(snap: &RepoSnapshot, decls: &[Declared], uses: &mut [Use]) {
    let shipped: Vec<&str> = decls
        .iter()
        .filter(|d| d.scope != Scope::Dev && names::js_typed_package(&d.name).is_none())
        .map(|d| d.name.as_str())
        .collect();
    let Ok(root) = snap.repo.find_tree(snap.tree) else {
        return;
    };
    let mut files: HashMap<&str, Option<String>> = HashMap::new();
    for u in uses.iter_mut() {
        if !u.continued
            || u.type_only
            || u.kind != ImportKind::Build
            || shipped.contains(&u.key.as_ref())
        {
            continue;
        }
        let src = files
            .entry(u.file)
            .or_insert_with(|| blob_text(snap, &root, u.file).ok().flatten());
        u.type_only = src
            .as_deref()
            .is_some_and(|s| js::statement_is_type_only(s, u.line));
    }
}
