//! What drift reads once per module (its manifests) and once per run (the mesh's view of
//! every module: the distributions, packages and workspace roots the modules make).

use super::declared::{Declared, Scope};
use super::local_names::LocalNames;
use super::tools::ToolEvidence;
use super::{
    aliases, app_requirements, declared, explain, ignores, js, lockfile, names, python, python_env,
    rust, tools,
};
use crate::Result;
use crate::graph::Loaded;
use crate::source::{self, ModuleSource, RepoSnapshot, SourceError, blob_text};
use mesh_imports::Language;
use mesh_imports::manifest::rust_ident;
use std::collections::{HashMap, HashSet};

/// A module's language manifests, read at the configured ref.
#[derive(Default)]
pub(super) struct Manifests {
    /// `Cargo.toml`, when it describes a package.
    pub(super) cargo: Option<String>,
    /// Whether a `Cargo.toml` is there at all (a virtual workspace's too).
    pub(super) has_cargo_toml: bool,
    /// `package.json`.
    pub(super) package_json: Option<String>,
    /// `package.json` parsed, once for every rule that reads its keys (none when it does not
    /// parse).
    pub(super) package_json_value: Option<serde_json::Value>,
    /// `go.mod`.
    pub(super) go_mod: Option<String>,
    /// `pyproject.toml`.
    pub(super) pyproject: Option<String>,
    /// `hatch.toml` beside `pyproject.toml`: hatch's config kept apart from the pyproject
    /// (its `[envs.*]` are the pyproject's `[tool.hatch.envs.*]`).
    pub(super) hatch_toml: Option<String>,
    /// `pyproject.toml` parsed, once for every rule that reads it (none when it does not
    /// parse: its declarations are then none either).
    pub(super) pyproject_table: Option<toml::Table>,
    /// The dependencies `pyproject.toml` declares, read once: the module's own comparison and
    /// the mesh's view of its distribution both need them.
    pub(super) pyproject_decls: Vec<Declared>,
    /// The requirements files (repo-relative, `requirements.txt` and what it includes) that
    /// declare the module's dependencies in place of a pyproject.toml declaring none.
    pub(super) app_requirements: Vec<String>,
    /// A requirements file (module-relative) the pyproject reads its dependencies from
    /// (`[tool.setuptools.dynamic] dependencies = {file = …}`) that is not in the tree: what
    /// the module declares for shipping is unknown.
    pub(super) requirements_missing: Option<String>,
    /// `setup.cfg`.
    pub(super) setup_cfg: Option<String>,
    /// `setup.py`, when its `setup(...)` call declares in literals (see
    /// [`mesh_imports::setup_py`]): none when it would have to be run.
    pub(super) setup_py: Option<mesh_imports::setup_cfg::SetupCfg>,
    /// Whether a `setup.py` is there, read or not: pip builds it with setuptools.
    pub(super) has_setup_py: bool,
    /// Whether a `setup.py` that computes its requirements names files mesh read them from
    /// (see [`declared::setup_py_requirement_files`]).
    pub(super) setup_py_files: bool,
    /// Whether its `setup.cfg` declares any requirement (one with `[metadata]` alone is no
    /// manifest of its own).
    pub(super) setup_cfg_declares: bool,
    /// Its `tsconfig.json` (else `jsconfig.json`) `paths` and `baseUrl` aliases, through its
    /// `extends`, and its bundler's and test runner's aliases: imports through them are
    /// files, not packages.
    pub(super) js_paths: Vec<aliases::Alias>,
    /// What its tools' configs and commands say they use.
    pub(super) tools: ToolEvidence,
    /// A JS workspace root: its package.json names `workspaces`, or a `pnpm-workspace.yaml`
    /// is beside it.
    pub(super) js_workspace_root: bool,
    /// The Rust build script (module-relative), the files it includes with `#[path]` (code
    /// of the crate too, as nu-cmd-lang's theme file of `src/`), and the modules its `mod x;`
    /// declare, down theirs (build-script code only: bat's `build/application.rs`).
    pub(super) rust_build: Option<(String, Vec<String>, Vec<String>)>,
    /// Whether the crate's doc tests are compiled (`[lib] doctest = false` says not): a doc
    /// test's import uses a dependency only when they are.
    pub(super) rust_doctests: bool,
    /// What each Python distribution installed beside the module says it is imported by.
    pub(super) installed_python: HashMap<String, Vec<String>>,
    /// What its Python test environment installs besides its manifests: requirements files a
    /// test runner installs, the uv workspace root's groups.
    pub(super) python_env: Vec<python_env::EnvDecl>,
}

impl Manifests {
    /// Whether a Python manifest mesh reads declares the module's dependencies:
    /// pyproject.toml, setup.cfg, or a `setup.py` declaring in literals.
    pub(super) fn declares_python(&self) -> bool {
        self.pyproject.is_some()
            || self.setup_cfg.is_some()
            || self.setup_py.is_some()
            || self.setup_py_files
    }

    /// Whether the module's Python dependencies are declared where mesh does not read: a
    /// `setup.py` that computes them, beside no `setup.cfg` declaring any and a
    /// pyproject.toml that declares none for shipping (a file of tools' settings, or
    /// `dynamic` ones the `setup.py` fills). Read as declaring nothing, every import would be
    /// called undeclared.
    pub(super) fn python_unread(&self) -> bool {
        self.has_setup_py
            && self.setup_py.is_none()
            && !self.setup_cfg_declares
            && !self
                .pyproject_decls
                .iter()
                .any(|d| d.scope == Scope::Normal)
    }

    /// Whether the module's Python imports are compared: it declares Python dependencies
    /// where mesh reads them.
    pub(super) fn python_checked(&self) -> bool {
        self.declares_python() && !self.python_unread()
    }

    pub(super) fn read(
        snap: &RepoSnapshot,
        m: &ModuleSource,
    ) -> std::result::Result<Manifests, SourceError> {
        let tree = snap.module_tree(m)?;
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
        let mut js_paths = match (read("tsconfig.json")?, read("jsconfig.json")?) {
            (Some(t), _) => {
                aliases::tsconfig_aliases(snap, &source::join(&m.dir, "tsconfig.json"), &t)?
            }
            (None, Some(t)) => {
                aliases::tsconfig_aliases(snap, &source::join(&m.dir, "jsconfig.json"), &t)?
            }
            (None, None) => Vec::new(),
        };
        if package_json_value.is_some() {
            js_paths.extend(aliases::own_config_aliases(snap, &tree, &m.dir)?);
        }
        let cargo_toml = read("Cargo.toml")?;
        let has_cargo_toml = cargo_toml.is_some();
        let cargo = cargo_toml.filter(|t| declared::cargo_has_package(t));
        let rust_build = match cargo.as_deref().and_then(rust::build_script) {
            Some(script) => {
                let (mut includes, mut modules) = (Vec::new(), Vec::new());
                // The script's `#[path]` files, and the modules its `mod x;` declare, down
                // their own (bat's `build/main.rs` declares `mod application;`); each file
                // read once.
                let mut todo = match read(&script)? {
                    Some(text) => vec![(script.clone(), text)],
                    None => Vec::new(),
                };
                while let Some((file, text)) = todo.pop() {
                    includes.extend(rust::build_includes(&file, &text));
                    for name in mesh_imports::rust::scan_file(&text).mods {
                        let candidates =
                            mesh_imports::place::rust_mod_candidates(&file, file == script, &name);
                        for candidate in candidates {
                            let known = candidate == script || modules.contains(&candidate);
                            if known || modules.len() >= rust::MAX_BUILD_FILES {
                                break;
                            }
                            if let Some(text) = read(&candidate)? {
                                modules.push(candidate.clone());
                                todo.push((candidate, text));
                                break;
                            }
                        }
                    }
                }
                Some((script, includes, modules))
            }
            None => None,
        };
        // Dependencies setuptools reads from requirements files are the pyproject's own.
        let mut pyproject_decls = match (&pyproject_table, &pyproject) {
            (Some(t), Some(text)) => declared::pyproject_of(t, text),
            _ => Vec::new(),
        };
        let mut files = (pyproject_table.as_ref())
            .map(declared::setuptools_dynamic_files)
            .unwrap_or_default();
        // setuptools reads the dependencies' file only when `[project] dynamic` says they are;
        // a hook's file pushed below is a guess, never missing.
        let dynamic = (pyproject_table.as_ref())
            .and_then(|t| t.get("project")?.get("dynamic")?.as_array())
            .is_some_and(|d| d.iter().any(|v| v.as_str() == Some("dependencies")));
        let setuptools_files = files.len();
        // A custom hatch hook filling the dependencies from `requirements.txt` (its code
        // names the file; netbox's): that file declares them.
        if !files.iter().any(|(_, scope)| *scope == Scope::Normal)
            && let Some(hook) = pyproject_table.as_ref().and_then(declared::custom_hook)
            && read(&hook)?.is_some_and(|code| code.contains("requirements.txt"))
        {
            files.push(("requirements.txt".to_string(), Scope::Normal));
        }
        let mut requirements_missing = None;
        for (i, (file, scope)) in files.into_iter().enumerate() {
            match read(&file)? {
                Some(text) => {
                    pyproject_decls.extend(declared::requirements_file(&file, &text, scope))
                }
                None if dynamic && scope == Scope::Normal && i < setuptools_files => {
                    requirements_missing = Some(file)
                }
                None => {}
            }
        }
        let setup_cfg = read("setup.cfg")?;
        let setup_py = read("setup.py")?;
        let mut setup_py_literal = setup_py.as_deref().and_then(mesh_imports::setup_py::read);
        // A `setup.py` computing its requirements from files its code names (ckan's extras,
        // mindsdb's `install_requires`): those files declare them. Beside an
        // `install_requires` read, they fill the extras it computes (metaflow's `dev`, read
        // from `devtools/requirements-devstack.txt`).
        let mut setup_py_files = false;
        let computed_extras = (setup_py_literal.as_ref())
            .is_some_and(|s| s.computed_extras && !s.requirements.is_empty());
        // setuptools merges `setup.cfg`: where its `install_requires` declares them and
        // setup.py's code names no requirements keyword, a file that code names is for
        // something else (spaCy's copies `requirements.txt` into a test package), while one
        // it reads into a keyword declares (ckan's `extras_require`, beside setup.cfg's one
        // requirement).
        let setup_cfg_declares = (setup_cfg.as_deref())
            .is_some_and(|t| !mesh_imports::setup_cfg::read(t).requirements.is_empty());
        let names_requirements = |code: &str| {
            ["install_requires", "extras_require", "tests_require"]
                .iter()
                .any(|k| code.contains(k))
        };
        if let Some(code) = setup_py.as_deref()
            && (computed_extras
                || ((setup_py_literal.as_ref()).is_none_or(|s| s.requirements.is_empty())
                    && (!setup_cfg_declares || names_requirements(code))))
        {
            for (file, scope) in declared::setup_py_requirement_files(code) {
                let scope = match scope {
                    Scope::Normal if computed_extras => Scope::Optional,
                    scope => scope,
                };
                if let Some(text) = read(&file)? {
                    setup_py_files = true;
                    pyproject_decls.extend(declared::requirements_file(&file, &text, scope));
                }
            }
        }
        // Computed extras no file fills could declare anything: the file is unread.
        if !setup_py_files && setup_py_literal.as_ref().is_some_and(|s| s.computed_extras) {
            setup_py_literal = None;
        }
        // An application's dependencies kept in `requirements.txt` beside a pyproject.toml
        // that declares none for shipping (see [`app_requirements`]), nor a `setup.cfg` or
        // `setup.py` (one that only builds: openlibrary's cythonizes a module).
        let declares_none = !pyproject_decls.iter().any(|d| d.scope == Scope::Normal)
            && pyproject_table
                .as_ref()
                .is_some_and(declared::declares_no_dependencies);
        // No `setup.py`, or one read in literals that declares no requirement; a `setup.py`
        // that computes its requirements may declare anything.
        let setup_py_declares_none = match (&setup_py, &setup_py_literal) {
            (None, _) => true,
            (Some(_), Some(literal)) => literal.requirements.is_empty(),
            (Some(_), None) => false,
        };
        let setup_declares_none = !setup_py_files && setup_py_declares_none && !setup_cfg_declares;
        let app_requirements = match declares_none && setup_declares_none {
            true => app_requirements::read(snap, m)?,
            false => Default::default(),
        };
        pyproject_decls.extend(app_requirements.decls);
        let app_requirements = app_requirements.files;
        let installed_python = match pyproject.is_some() {
            true => python::installed(&python::environments(&snap.path, &m.dir)),
            false => HashMap::new(),
        };
        Ok(Manifests {
            rust_doctests: cargo.as_deref().is_none_or(rust::doc_tests_run),
            cargo,
            has_cargo_toml,
            rust_build,
            installed_python,
            package_json,
            package_json_value,
            go_mod: read("go.mod")?,
            pyproject_decls,
            hatch_toml: match pyproject.is_some() {
                true => read("hatch.toml")?,
                false => None,
            },
            pyproject,
            pyproject_table,
            requirements_missing,
            setup_cfg,
            app_requirements,
            setup_py: setup_py_literal,
            has_setup_py: setup_py.is_some(),
            setup_py_files,
            setup_cfg_declares,
            js_paths,
            tools,
            js_workspace_root,
            python_env: Vec::new(),
        })
    }
}

/// What every module needs to know about the others: Python distributions the mesh holds
/// (normalized project name → the import names that module provides), and Go module paths.
pub(super) struct World<'a> {
    pub(super) loaded: &'a Loaded,
    pub(super) python_dists: HashMap<String, Vec<String>>,
    /// The extras of the mesh's Python distributions (PEP 503 names), each with what it
    /// installs: a module declaring `livekit-agents[openai]` has `livekit-plugins-openai`.
    pub(super) python_extras: HashMap<String, HashMap<String, Vec<String>>>,
    /// What each of the mesh's Python distributions requires to run (PEP 503 names): a plugin
    /// requires the package it plugs into.
    pub(super) python_requires: HashMap<String, Vec<String>>,
    /// Dotted prefixes of the Python names the mesh's modules provide that no module
    /// provides itself: PEP 420 namespaces shared by distributions (`opentelemetry`).
    pub(super) python_namespaces: HashSet<String>,
    pub(super) go_modules: Vec<String>,
    /// Workspace crates whose `[lib] name` is not their package's.
    pub(super) rust_libs: HashMap<String, String>,
    /// Per crate of the mesh (by repository and [`rust_ident`] of its package name), the features its
    /// `Cargo.toml` switches on of each crate it declares (see [`rust_features::declared_features`]).
    pub(super) rust_features: HashMap<(usize, String), super::rust_features::DeclaredFeatures>,
    /// What the shipped code of each workspace proc-macro crate (by the name it is imported
    /// by) writes for the crates expanding its macros (see [`rust::generated_names`]).
    pub(super) rust_generated: HashMap<String, Vec<String>>,
    /// The `#[macro_export]` macros of each workspace crate's shipped code (by the name it is
    /// imported by), each with its file (see [`rust::exported_macros`]).
    pub(super) rust_macros: HashMap<&'a str, Vec<rust::MacroDef<'a>>>,
    /// The dependency `--explain` looks at, told what the comparison sees of it.
    pub(super) probe: Option<&'a explain::Probe>,
    /// Per repository, what its root says of its JS packages.
    pub(super) js_roots: Vec<JsRoot>,
    /// Per repository with JS or Python modules, its file and directory names (see
    /// [`LocalNames`]).
    pub(super) local_names: Vec<LocalNames>,
    /// None, for the repositories and ecosystems that need none.
    pub(super) no_local_names: LocalNames,
    /// Each Python or Rust lockfile looked for, read on first need.
    pub(super) locks: lockfile::Locks<lockfile::Depends>,
    /// Each JS lockfile below a repository's root looked for (a front end's own
    /// `frontend/pnpm-lock.yaml`), read on first need; the root's is [`JsRoot`]'s.
    pub(super) js_locks: lockfile::Locks<lockfile::JsLockfile>,
    /// Every name a module of the mesh provides, with its language: asked for each pair of
    /// declarations a doubt weighs, so made once.
    pub(super) provides: HashSet<(Language, String)>,
    /// Per module (by index), whether its package.json says what imports it in the
    /// repository consumes its source (see [`super::js::consumed_as_source`]): a bundler
    /// compiles it into what imports it.
    pub(super) js_source: Vec<bool>,
}

/// What a repository's root says of every JS package in it, whatever its module.
#[derive(Default)]
pub(super) struct JsRoot {
    /// Its tsconfig aliases (see [`aliases::root_aliases`]).
    pub(super) aliases: Vec<aliases::Alias>,
    /// The required peers its lockfile records (see [`lockfile`]).
    pub(super) peers: Option<lockfile::Peers>,
    /// What each package depends on, as its lockfile records.
    pub(super) depends: Option<lockfile::Depends>,
    /// Its knip config, (file, text): a knip.json (or .jsonc, or dotted), else the root
    /// package.json when it has a `knip` key.
    pub(super) knip: Option<(String, String)>,
    /// The type packages its `tsconfig.json` loads (`compilerOptions.types`): TypeScript
    /// reads the nearest tsconfig.json above a file, so a package without its own is checked
    /// and built with these (vueuse's root names `@types/web-bluetooth` for `core`).
    pub(super) tsconfig_types: Vec<String>,
}

impl JsRoot {
    /// Reads the root of `snap`.
    pub(super) fn read(snap: &RepoSnapshot) -> Result<JsRoot> {
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
        let tsconfig_types = blob_text(snap, &root, "tsconfig.json")?
            .map(|t| tools::tsconfig_types(&t))
            .unwrap_or_default();
        Ok(JsRoot {
            aliases: aliases::root_aliases(snap)?,
            peers,
            depends,
            knip,
            tsconfig_types,
        })
    }
}

impl<'a> World<'a> {
    /// Whether `name` (as declared in `lang`'s manifests) is a package a module of the mesh
    /// provides: the workspace's own version, which no declaration pins.
    pub(super) fn mesh_package(&self, lang: Language, name: &str) -> bool {
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
    pub(super) fn lock_above(&self, m: &ModuleSource, names: &[&str]) -> lockfile::Lock {
        let at = (self.loaded.snapshot.repo_of(m), m.repo);
        let read =
            |path: &str, text: &str| Some(lockfile::toml(path, text)).filter(|d| !d.of.is_empty());
        self.locks.above(at, &m.dir, names, true, read)
    }

    /// The nearest JS lockfile beside the JS package `m` or above it, below the
    /// repository's root (whose lockfile [`JsRoot`] holds): a project of its own in a
    /// directory of the repository, with its own install.
    pub(super) fn js_lock_below_root(&self, m: &ModuleSource) -> lockfile::JsLock {
        let at = (self.loaded.snapshot.repo_of(m), m.repo);
        let read = |path: &str, text: &str| {
            let (peers, depends) = lockfile::js(path, text);
            let records = !(peers.required.is_empty() && depends.of.is_empty());
            records.then_some(lockfile::JsLockfile { peers, depends })
        };
        self.js_locks
            .above(at, &m.dir, lockfile::LOCKFILES, false, read)
    }

    /// Every JS package and top Python import name a module of the mesh provides
    /// (lowercase).
    pub(super) fn provided(&self) -> HashSet<String> {
        self.loaded
            .records
            .iter()
            .flat_map(|r| r.manifests.provides.iter())
            .map(|(_, n)| n.split('.').next().unwrap_or(n).to_lowercase())
            .collect()
    }

    pub(super) fn new(loaded: &'a Loaded, manifests: &[Manifests]) -> World<'a> {
        let mut python_dists = HashMap::new();
        let mut python_extras = HashMap::new();
        let mut python_requires = HashMap::new();
        let mut go_modules = Vec::new();
        let modules = loaded.snapshot.modules.iter();
        for ((rec, man), m) in loaded.records.iter().zip(manifests).zip(modules) {
            let pyproject = man.pyproject_table.clone();
            // setuptools reads setup.cfg, then setup.py's keywords, for what pyproject.toml
            // does not say.
            let mut table = match &man.setup_cfg {
                Some(cfg) => Some(mesh_imports::setup_cfg::merged(
                    pyproject,
                    &mesh_imports::setup_cfg::read(cfg),
                )),
                None => pyproject,
            };
            if let Some(py) = &man.setup_py {
                table = Some(mesh_imports::setup_cfg::merged(table, py));
            }
            // A `setup.py` mesh cannot read (phoenix-sqlean's `setup(**get_setup_args())`)
            // names its distribution as the mesh names the module, which is what other
            // packages declare.
            let unread_setup_py = || {
                (man.setup_py.is_none() && man.has_setup_py)
                    .then(|| names::pep503(&m.manifest.name))
            };
            if let Some(name) = table
                .as_ref()
                .and_then(|t| t.get("project")?.get("name")?.as_str().map(names::pep503))
                .or_else(unread_setup_py)
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
            rust_generated: rust::generated_names(&loaded.records, manifests),
            rust_macros: rust::exported_macros(&loaded.records),
            rust_features: rust_features(loaded, manifests),
            probe: None,
            js_roots: Vec::new(),
            local_names: Vec::new(),
            no_local_names: LocalNames::default(),
            locks: Default::default(),
            js_locks: Default::default(),
            provides: loaded
                .records
                .iter()
                .flat_map(|r| r.manifests.provides.iter().cloned())
                .collect(),
            js_source: (manifests.iter())
                .map(|m| (m.package_json_value.as_ref()).is_some_and(super::js::consumed_as_source))
                .collect(),
        }
    }
}

/// Every crate's declared features, with what its entries inherit from its workspace's
/// `Cargo.toml` (read once per workspace). A workspace manifest that cannot be read adds
/// nothing: a doubt it would clear stays.
fn rust_features(
    loaded: &Loaded,
    manifests: &[Manifests],
) -> HashMap<(usize, String), super::rust_features::DeclaredFeatures> {
    let mut memo = source::Nearest::new();
    let mut parsed: HashMap<String, Option<toml::Table>> = HashMap::new();
    let mut out = HashMap::new();
    for (m, man) in loaded.snapshot.modules.iter().zip(manifests) {
        let Some(table) = man
            .cargo
            .as_deref()
            .and_then(|t| t.parse::<toml::Table>().ok())
        else {
            continue;
        };
        let Some(name) = table.get("package").and_then(|p| p.get("name")?.as_str()) else {
            continue;
        };
        let snap = loaded.snapshot.repo_of(m);
        let text = source::cargo_workspace(snap, m.repo, &m.dir, &mut memo)
            .ok()
            .flatten();
        let workspace = text.and_then(|text| {
            parsed
                .entry(text)
                .or_insert_with_key(|t| t.parse::<toml::Table>().ok())
                .as_ref()
        });
        out.insert(
            (m.repo, rust_ident(name)),
            super::rust_features::declared_features(&table, workspace),
        );
    }
    out
}
