//! Drift: each module's manifests set beside what its code imports, in every ecosystem at once.
//!
//! A dependency declared and never imported makes every change to it rebuild and redeploy a
//! module that does not use it; an import declared nowhere a clean build looks (a phantom
//! resolved by hoisting or a workspace) builds on a laptop and breaks on a clean machine. The
//! imports come from what [`crate::graph::load`] already learned (the store's scans, with their
//! kinds); only the manifests are read again, for the lines a finding points at.

mod aliases;
mod app_requirements;
pub mod cache;
mod compare;
mod compiled;
pub mod declared;
mod docs_build;
mod doubt;
pub mod explain;
mod go;
mod ignores;
pub mod js;
mod local_names;
mod lockfile;
mod mentions;
pub mod names;
mod nested;
mod packed;
pub mod python;
mod python_env;
mod python_extras;
mod python_names;
mod python_path;
mod python_reach;
pub mod rust;
mod rust_doc_md;
mod rust_features;
mod said_why;
pub mod stdlib;
mod sys_path_dirs;
pub mod tools;
mod uses;
mod world;

use crate::Result;
use crate::graph::Loaded;
use crate::source::{self, ModuleSource};
use compare::{Around, compare};
use declared::Declared;
use local_names::LocalNames;
use mesh_imports::{Language, ScannedFile};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use uses::{Decl, Use, UseKeys, js_statements, uses};
use world::{JsRoot, Manifests, World};

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

/// A module whose code drift could not set beside a manifest: what it did not check, said
/// so rather than read as agreement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unchecked {
    /// The module.
    pub module: String,
    /// What was not checked, and why.
    pub why: String,
}

/// Why module `m` (`rec`, `man`) is not checked, when it has Python code and no manifest
/// mesh reads (no `pyproject.toml`, `setup.cfg`, nor another language's: a module of another
/// language may keep a Python script beside its code), or only a pyproject.toml that
/// declares nothing for shipping beside a `setup.py` computing what it declares
/// (huggingface_hub's root): its dependencies are declared where mesh does not read (a
/// `setup.py`, which would have to be run), so nothing of its imports was compared (celery's
/// examples).
fn unchecked(
    m: &ModuleSource,
    rec: &crate::store::ModuleRecord,
    man: &Manifests,
) -> Option<Unchecked> {
    let manifest = man.python_checked()
        || man.has_cargo_toml
        || man.package_json.is_some()
        || man.go_mod.is_some();
    if manifest || !has(&rec.files, Language::Python) {
        return None;
    }
    let setup_py = source::join(&m.dir, "setup.py");
    let why = match rec.files.iter().any(|f| f.path == setup_py) {
        true => {
            "its Python imports: its setup.py computes what it declares, and mesh does not run it (declare them in literals in its setup() call, in pyproject.toml's [project] or in setup.cfg to have them checked)"
        }
        false => "its Python imports: no pyproject.toml or setup.cfg declares its dependencies",
    };
    Some(Unchecked {
        module: m.name().to_string(),
        why: why.to_string(),
    })
}

/// The findings of every module asked about, grouped by module (in name order), then by
/// manifest and dependency.
pub fn drift(loaded: &Loaded, only: &[String]) -> Result<(Vec<Finding>, Vec<Unchecked>)> {
    run(loaded, only, None)
}

/// [`drift`], saying to `probe` what it sees of the dependency it looks at.
/// Also the modules whose imports were not checked ([`unchecked`]).
fn run(
    loaded: &Loaded,
    only: &[String],
    probe: Option<&explain::Probe>,
) -> Result<(Vec<Finding>, Vec<Unchecked>)> {
    let snapshot = &loaded.snapshot;
    let mut manifests: Vec<Manifests> = snapshot
        .modules
        .iter()
        .map(|m| Manifests::read(snapshot.repo_of(m), m))
        .collect::<std::result::Result<_, _>>()?;
    // What Python test runners and uv workspace roots install for each module.
    let python: Vec<bool> = manifests.iter().map(Manifests::declares_python).collect();
    for (man, env) in manifests
        .iter_mut()
        .zip(python_env::declarations(snapshot, &python)?)
    {
        man.python_env = env;
        if let (Some(t), Some(text)) = (&man.pyproject_table, &man.pyproject) {
            let envs = t.get("tool").and_then(|t| t.get("hatch"));
            let envs = envs.and_then(|h| h.get("envs")).and_then(|e| e.as_table());
            man.python_env
                .extend(python_env::hatch_envs(envs, text, "pyproject.toml"));
        }
        if let Some(text) = &man.hatch_toml {
            let t = toml::from_str::<toml::Table>(text).unwrap_or_default();
            let envs = t.get("envs").and_then(|e| e.as_table());
            man.python_env
                .extend(python_env::hatch_envs(envs, text, "hatch.toml"));
        }
    }
    python_env::enclosing(snapshot, &python, &mut manifests);
    // Configs above a package, by its own commands: before a root takes its members'.
    tools::configs_above(snapshot, &mut manifests)?;
    tools::workspace_tools(snapshot, &mut manifests);
    tools::workspace_bins(&mut manifests);
    // A JS package with no build command and no bundler config of its own is built by the
    // bundler config at its workspace root, when there is one.
    let mut bundler_memo = HashMap::new();
    let mut bundler_strings: HashMap<(usize, String), Vec<String>> = HashMap::new();
    for (m, man) in snapshot.modules.iter().zip(manifests.iter_mut()) {
        let Some(v) = &man.package_json_value else {
            continue;
        };
        if man.tools.bundler_config.is_none() && !js::has_build_script(v) {
            let snap = snapshot.repo_of(m);
            let found = js::workspace_bundler(snap, m.repo, &m.dir, &mut bundler_memo)?;
            if let Some(f) = &found {
                let strings = match bundler_strings.get(&(m.repo, f.clone())) {
                    Some(s) => s,
                    None => {
                        let text = source::blob_text(snap, &snap.root_tree()?, f)?;
                        let s = (text.map(|t| tools::config_strings(f, &t))).unwrap_or_default();
                        bundler_strings.entry((m.repo, f.clone())).or_insert(s)
                    }
                };
                man.tools.workspace_bundler_strings = strings.clone();
            }
            man.tools.workspace_bundler = found;
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
    // A JS package with no tsconfig of its own is checked with the repository root's: the
    // type packages it loads are the package's too.
    for (m, man) in snapshot.modules.iter().zip(manifests.iter_mut()) {
        if man.package_json.is_some()
            && !man.tools.tsconfig
            && !m.dir.is_empty()
            && let Some(root) = world.js_roots.get(m.repo)
        {
            (man.tools.config_strings).extend(root.tsconfig_types.iter().cloned());
        }
    }
    // The stylesheet languages each module's files are written in: their compiler is used;
    // Jupyter, when any is a notebook; TypeScript's, when any is TypeScript; and whether a
    // server entry is there.
    for ((man, rec), m) in manifests
        .iter_mut()
        .zip(&loaded.records)
        .zip(&snapshot.modules)
    {
        man.tools.stylesheets = rec
            .files
            .iter()
            .filter_map(|f| f.path.rsplit_once('.').map(|(_, ext)| ext))
            .filter(|ext| matches!(*ext, "scss" | "sass" | "less" | "styl"))
            .map(str::to_string)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        man.tools.notebook = (rec.files.iter())
            .find(|f| mesh_imports::notebook::is_notebook(&f.path))
            .map(|f| f.path.clone());
        let generated = |ends: &[&str]| {
            (rec.files.iter())
                .find(|f| ends.iter().any(|e| f.path.ends_with(e)))
                .map(|f| f.path.clone())
        };
        man.tools.protoc_output = generated(&["_pb2.py", "_pb2_grpc.py"]);
        man.tools.protoc_stubs = generated(&["_pb2.pyi", "_pb2_grpc.pyi"]);
        // An app's own server entry: in its app directory (`app/`, `src/app/`), not in a
        // directory of files run by hand (a docs example's).
        man.tools.server_entry = rec.files.iter().any(|f| {
            let rel = source::relative(&f.path, &m.dir);
            let (dir, file) = rel.rsplit_once('/').unwrap_or(("", rel));
            f.kind == mesh_imports::ImportKind::Build
                && file.starts_with("entry.server.")
                && dir.split('/').count() <= 2
                && !doubt::by_hand_dir(dir.split('/').next().unwrap_or(""))
        });
        // A tool's config in TypeScript (`vite.config.ts`) is loaded by the tool, not compiled.
        man.tools.typescript_sources = rec.files.iter().any(|f| {
            !f.path.rsplit('/').next().unwrap_or("").contains(".config.")
                && js::is_typescript_source(&f.path)
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
            true => LocalNames::read(snap, &provided)?,
            false => LocalNames::default(),
        });
    }
    let mut work_memo = HashMap::new();
    let mut js_memo = HashMap::new();
    let (mut go_above, guests) = go::guests(loaded, &manifests)?;
    let mut out = Vec::new();
    let mut not_checked = Vec::new();
    // Each enclosing package's bundler config, read once.
    let mut config_memo = HashMap::new();
    // Each module's findings so far, with what its mentions reader is to read.
    let mut per_module = Vec::new();
    for (i, m) in snapshot.modules.iter().enumerate() {
        if !only.is_empty() && !only.iter().any(|o| o == m.name()) {
            continue;
        }
        not_checked.extend(unchecked(m, &loaded.records[i], &manifests[i]));
        let go_mod = go_above[i].take();
        let own_go_mod = (m.repo, source::join(&m.dir, "go.mod"));
        let go_guests = guests.get(&own_go_mod).map_or(&[][..], Vec::as_slice);
        let workspace = if has(&loaded.records[i].files, Language::Go) {
            go::workspace(snapshot.repo_of(m), m.repo, &m.dir, &mut work_memo)?
        } else {
            Vec::new()
        };
        let js_root = if manifests[i].package_json.is_some() {
            let internal = (manifests[i].package_json_value.as_ref()).is_some_and(js::is_internal);
            let builder = js::built_by_enclosing(snapshot, &manifests, i, &mut config_memo)?;
            let ships_with = |at: &str| internal || builder.as_deref() == Some(at);
            js::enclosing(
                snapshot.repo_of(m),
                m.repo,
                &m.dir,
                &ships_with,
                &mut js_memo,
            )?
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
        js::serving_members(loaded, &manifests, i, probe, &mut found);
        let files = &loaded.records[i].files;
        js::committed_packages(snapshot.repo_of(m), files, probe, &mut found)?;
        docs_build::built_elsewhere(snapshot.repo_of(m), m, &manifests[i], &mut found)?;
        let job = mentions::mention_job(snapshot.repo_of(m), m, &found)?;
        per_module.push((i, job, found));
    }
    // What the modules write of their unused dependencies, read on every core at once.
    let jobs = (per_module.iter_mut())
        .filter_map(|(_, job, found)| Some((job.take()?, found)))
        .collect();
    mentions::mentions_everywhere(jobs)?;
    for (i, _, mut found) in per_module {
        let m = &snapshot.modules[i];
        doubt::code_not_read(snapshot.repo_of(m), (m, &loaded.records[i]), &mut found)?;
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
    Ok((out, not_checked))
}

fn has(files: &[ScannedFile], lang: Language) -> bool {
    files.iter().any(|f| f.language == lang)
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
        rust::drift(world, rec, m, text, &uses, man.rust_doctests, &mut out);
    }
    let js_near = match man.package_json {
        Some(_) => world.js_lock_below_root(m),
        None => None,
    };
    let check = |lang: Language, decls: Vec<Decl>, manifest: &str, out: &mut Vec<Finding>| {
        let uses: Vec<&Use> = uses.iter().filter(|u| u.language == lang).collect();
        let around = Around {
            tools: &man.tools,
            go_modules: &world.go_modules,
            python_dists: &world.python_dists,
            js_peers: world.js_roots.get(m.repo).and_then(|r| r.peers.as_ref()),
            js_near_peers: js_near.as_ref().map(|l| &l.peers),
            probe: world.probe,
            local: world
                .local_names
                .get(m.repo)
                .unwrap_or(&world.no_local_names),
            // Read only for JS: a test runner's globals' types.
            test_file: (rec.files.iter())
                .filter(|_| lang == Language::Js)
                .find(|f| f.language == lang && compare::is_js_test_file(&f.path))
                .map(|f| f.path.as_str()),
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
            js::without_unused_when_no_code(world.probe, rec, v, man.js_workspace_root, &mut js);
            // A bundled package's entries are made by its bundler, wherever it runs.
            let files: Vec<&str> = (rec.files.iter())
                .map(|f| source::relative(&f.path, &m.dir))
                .collect();
            let in_place = !man.tools.bundles() && js::runs_in_place(v, &files);
            let default_entry = files.contains(&"index.js");
            doubt::private_package(v, (in_place, default_entry), &mut js);
        }
        let bundled = man.tools.bundles().then_some(man.js_paths.as_slice());
        doubt::sibling_sources(world, i, bundled, &mut js);
        js::drivers_loaded_by_name(&names, &mut js);
        js::karma_plugins(&names, &mut js);
        if let (None, Some(how)) = (man.tools.own_bundler(), man.tools.bundler()) {
            doubt::bundled_siblings(&mut js, &how, &|p| world.mesh_package(Language::Js, p));
        }
        let root_lock = world.js_roots.get(m.repo).and_then(|r| r.depends.as_ref());
        for lock in js_near
            .as_ref()
            .map(|l| &l.depends)
            .into_iter()
            .chain(root_lock)
        {
            doubt::optionally_loaded(&mut js, &names, lock);
        }
        // Measured with the root's lockfile only: read from a front end's own, the family
        // rule set aside more findings judged real (`@testing-library/dom` beside
        // `@testing-library/react`) than pins.
        if let Some(lock) = root_lock {
            doubt::transitive(&mut js, &names, lock, &|f, q| {
                doubt::family(q) == doubt::family(&f.dependency)
                    && !world.mesh_package(Language::Js, &f.dependency)
            });
        }
        out.extend(js);
    }
    if let Some((decls, file)) = python::declarations(world, man, &m.dir) {
        let names = own_names(&decls);
        let scoped: Vec<(String, declared::Scope)> = (decls.iter())
            .map(|d| (d.d.name.clone(), d.d.scope))
            .collect();
        let guarded = python::guarded_unanswered(&uses, &decls);
        let keys: Vec<(String, Vec<String>)> = (decls.iter())
            .map(|d| (d.d.name.clone(), d.keys.clone()))
            .collect();
        let mut py = Vec::new();
        check(
            Language::Python,
            decls,
            &source::join(&m.dir, file),
            &mut py,
        );
        python::without_unused_when_no_code(world, rec, &mut py);
        let imported: Vec<(&str, bool)> = (uses.iter())
            .filter(|u| u.language == Language::Python)
            .map(|u| (u.key.as_ref(), u.kind != mesh_imports::ImportKind::Dev))
            .collect();
        python_extras::used_by_feature(&mut py, &imported, &scoped, world.probe);
        python::without_unused_plugin_bundles(world, man, &mut py);
        python::own_plugins(world, man, &mut py);
        let known = |dist: &str| {
            let norm = names::pep503(dist);
            names::python_known(&norm)
                || world.python_dists.contains_key(&norm)
                || man.installed_python.contains_key(&norm)
        };
        doubt::name_guesses(&mut py, &known, true, &guarded);
        python::app_requirements_pins(man, &mut py);
        python::nested_code(world, m, rec, &mut py);
        python::setup_py_shim(man, &m.dir, &uses, &mut py);
        python::requirements_missing(man, &m.dir, &mut py);
        python::used_in_other_language_module(world, m, &keys, &mut py);
        if let Some(text) = &man.pyproject {
            said_why::commented(&source::join(&m.dir, "pyproject.toml"), text, &mut py);
        }
        said_why::commented_requirements(world.loaded.snapshot.repo_of(m), &mut py);
        if (py.iter()).any(|f| matches!(f.kind, DriftKind::Unused | DriftKind::DevOnly)) {
            let lock = world.lock_above(m, lockfile::PYTHON_LOCKFILES);
            // Named by dev code only through optional imports (see `loaded_by_framework`).
            let weak_dev = |dist: &str| {
                let keys = names::python_keys(dist);
                let mut naming = (uses.iter())
                    .filter(|u| u.language == Language::Python)
                    .filter(|u| keys.iter().any(|k| names::segment_prefix(k, &u.key, ".")))
                    .peekable();
                naming.peek().is_some() && naming.all(|u| u.optional)
            };
            python_extras::loaded_by_framework(
                &mut py,
                &scoped,
                &imported,
                lock.as_deref(),
                &weak_dev,
            );
            if let Some(lock) = lock {
                // A transitive package in an extra beside the one that requires it (`pymunk<7`
                // beside `gym-pusht` in a `pusht` extra): a cap on what users of the extra get.
                // Measured on extras only: a dev group (phoenix's, of sixty) holds leftovers,
                // and so does an extra of development tools (`dev`, `test`, `docs`); not an
                // extra of everything (`all`, `all-extras`), which pairs every two.
                let sections = (man.pyproject_table.as_ref())
                    .map(declared::pyproject_sections_pep503)
                    .unwrap_or_default();
                let in_one_extra = |a: &str, b: &str| {
                    let (a, b) = (names::pep503(a), names::pep503(b));
                    (sections.iter()).any(|(scope, name, n)| {
                        let everything =
                            matches!(name.as_str(), "full" | "complete" | "everything")
                                || name.split('-').any(|w| w == "all");
                        *scope == declared::Scope::Optional
                            && !everything
                            && !tools::DEV_EXTRAS.contains(&name.as_str())
                            && n.contains(&a)
                            && n.contains(&b)
                    })
                };
                doubt::transitive(&mut py, &names, &lock, &|f, q| {
                    (doubt::family(q) == doubt::family(&f.dependency)
                        || in_one_extra(q, &f.dependency))
                        && !world.mesh_package(Language::Python, &f.dependency)
                });
                // Pinned to one version in the list of one that depends on it (locust's docs
                // group: `alabaster==0.7.16` beside `sphinx==7.4.7`): a version chosen for
                // what that one gets, as a compiled requirements file lists it — of any
                // section, since an exact pin says a version, not a use.
                let pins = (man.pyproject_table.as_ref())
                    .map(declared::pyproject_exact_pins)
                    .unwrap_or_default();
                let pinned_beside = |f: &Finding, q: &str| {
                    let (a, b) = (names::pep503(&f.dependency), names::pep503(q));
                    (pins.iter().zip(&sections)).any(|((_, _, pinned), (_, _, all))| {
                        pinned.contains(&a) && all.contains(&b)
                    }) && lock.on(q, &f.dependency)
                };
                doubt::unused_beside(&mut py, &names, &pinned_beside, &|q| {
                    format!(
                        "pinned to one version beside {q}, which depends on it ({} records it): a version chosen for what {q} gets, as a compiled requirements file pins it",
                        lock.file
                    )
                });
            }
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
/// satisfies (`@types/x` satisfies `x`'s type imports, `@types/node` the `node:` ones, and
/// each `@types/x` its own name, which a `/// <reference types>` directive may write).
fn js_decls(decls: Vec<Declared>, js_root: &[Declared]) -> Vec<Decl> {
    decls
        .into_iter()
        .chain(js_root.iter().cloned())
        .map(|d| {
            let keys = match names::js_typed_package(&d.name) {
                Some(t) if t == "node" => vec!["node:".to_string(), d.name.clone()],
                Some(t) => vec![t, d.name.clone()],
                None => vec![d.name.clone()],
            };
            Decl { d, keys }
        })
        .collect()
}
