//! Python's own drift rules: a module's declarations (its manifests and what its test
//! environment installs), what an installed environment says a distribution is imported
//! by, and when nothing of it can be called unused. Where a name is the module's own is
//! `python_path.rs`.

use super::explain::Probe;
use super::{Decl, DriftKind, Finding, Manifests, Use, UseKeys, World, declared, names};
use crate::source::ModuleSource;
use mesh_imports::{ImportKind, Language, ScannedFile};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Python findings `py` without the unused ones when no Python code of the module is here to
/// judge by: a package its pyproject names is missing and no shipped Python file is there
/// (its code is put together at build time: a build script copies another package's sources
/// in), or there is no Python file at all, or none it ships imports anything (a
/// meta-package, whose code is a version string, or one assembled whole).
pub(super) fn without_unused_when_no_code(
    world: &World,
    rec: &crate::store::ModuleRecord,
    py: &mut Vec<Finding>,
) {
    let absent = rec
        .manifests
        .notes
        .iter()
        .find(|n| n.contains("which is not in the module"));
    let python = |kind: Option<ImportKind>| {
        rec.files
            .iter()
            .any(|f| f.language == Language::Python && kind.is_none_or(|k| f.kind == k))
    };
    // A meta-package's code is a version string: it exists to install its dependencies.
    let imports_nothing = rec
        .files
        .iter()
        .filter(|f| f.language == Language::Python && f.kind == ImportKind::Build)
        .all(|f| f.imports.iter().all(|i| i.name.starts_with('.')));
    let why = match (absent, python(Some(ImportKind::Build)), python(None)) {
        (_, _, false) => Some("the module has no Python file".to_string()),
        (Some(note), false, _) => Some(format!("{note}, and no shipped Python file is there")),
        (_, true, _) if imports_nothing => {
            Some("no shipped Python file of the module imports anything".to_string())
        }
        _ => None,
    };
    if let Some(why) = why {
        // What ships is not here: nothing is unused, nor used by tests alone.
        let quiet = |f: &Finding| matches!(f.kind, DriftKind::Unused | DriftKind::DevOnly);
        let probed = world
            .probe
            .filter(|p| py.iter().any(|f| quiet(f) && p.names(&f.dependency)));
        py.retain(|f| !quiet(f));
        if let Some(p) = probed {
            p.say(format!(
                "{why}: its code is put together at build time (or it only pulls its dependencies in), so nothing is called unused or dev-only"
            ));
        }
    }
}

/// A Python module's declarations (pyproject.toml, setup.cfg and a literal setup.py, and what its test
/// environment installs) with the import names each provides, and the file an undeclared
/// import is named against; none without either file. `dir` is the module's directory.
pub(super) fn declarations(
    world: &World,
    man: &Manifests,
    dir: &str,
) -> Option<(Vec<Decl>, &'static str)> {
    if !man.python_checked() {
        return None;
    }
    let mut found = man.pyproject_decls.clone();
    found.extend(
        man.setup_cfg
            .as_deref()
            .map(declared::setup_cfg)
            .unwrap_or_default(),
    );
    if let Some(py) = &man.setup_py {
        found.extend(declared::setup_requirements(py, "setup.py"));
    }
    // Undeclared imports are named against the file a person would add them to.
    let file = match (&man.pyproject, found.first()) {
        _ if !man.app_requirements.is_empty() => "requirements.txt",
        (Some(_), Some(d)) if d.manifest == "setup.cfg" => "setup.cfg",
        (Some(_), Some(d)) if d.manifest == "setup.py" => "setup.py",
        (Some(_), _) => "pyproject.toml",
        (None, Some(d)) if d.manifest == "setup.py" => "setup.py",
        (None, _) if man.setup_cfg.is_some() => "setup.cfg",
        (None, _) => "setup.py",
    };
    // What the test environment installs answers test imports: said to `--explain` with
    // what installs it.
    for e in &man.python_env {
        if let Some(p) = world.probe.filter(|p| p.names(&e.d.name)) {
            p.say(format!(
                "{}:{} declares it, and {}",
                e.d.path(dir),
                e.d.line,
                e.via
            ));
        }
    }
    found.extend(man.python_env.iter().map(|e| e.d.clone()));
    // The build backend's environment, where `setup.py` runs.
    let build = match (&man.pyproject_table, &man.pyproject) {
        (Some(t), Some(text)) => declared::build_requires(t, text),
        _ => Vec::new(),
    };
    // Without a `[build-system]`, pip builds a `setup.py` with setuptools (PEP 517's
    // fallback): what `setup.py` imports of it is there.
    if build.is_empty() && man.has_setup_py {
        found.push(declared::implied(
            Language::Python,
            "setuptools",
            "setup.py",
        ));
    }
    found.extend(build);
    let installed_by_extras = through_extras(world, man, dir, &found);
    found.extend(installed_by_extras);
    // `pkg[a,b]` in pkg's own extras or groups (recursive extras) names no dependency.
    let own = man
        .pyproject_table
        .as_ref()
        .and_then(|t| t.get("project")?.get("name")?.as_str().map(names::pep503));
    let services = man
        .pyproject_table
        .as_ref()
        .map(service_stubs)
        .unwrap_or_default();
    let decls = found
        .into_iter()
        .map(|d| (names::pep503(&d.name), d))
        .filter(|(norm, _)| own.as_deref() != Some(norm.as_str()))
        .map(|(norm, d)| {
            let mut keys = world
                .python_dists
                .get(&norm)
                .or_else(|| man.installed_python.get(&norm))
                .cloned()
                .unwrap_or_else(|| names::python_keys(&d.name));
            keys.extend(
                (services.iter())
                    .filter(|(dist, _)| *dist == norm)
                    .map(|(_, key)| key.clone()),
            );
            Decl { d, keys }
        })
        .collect();
    Some((decls, file))
}

/// Makes unsure each sure undeclared finding of a module whose pyproject reads its
/// dependencies from a requirements file that is not in the repository (baserow's
/// `deps/base.txt`, which its image build makes from `requirements/base.in`): what it
/// declares is unknown, so no import can be said to be declared nowhere — the missing file is
/// what to look at.
pub(super) fn requirements_missing(man: &Manifests, dir: &str, py: &mut [Finding]) {
    let Some(file) = &man.requirements_missing else {
        return;
    };
    let pyproject = crate::source::join(dir, "pyproject.toml");
    let file = crate::source::join(dir, file);
    for f in (py.iter_mut()).filter(|f| f.kind == DriftKind::Undeclared && f.doubt.is_none()) {
        f.doubt = Some(format!(
            "{pyproject} reads its dependencies from {file}, which is not in the repository (a build may make it): what the module declares is unknown"
        ));
    }
}

/// Makes unsure each sure undeclared finding that only the module's `setup.py` imports when
/// its pyproject.toml builds with another backend (guidance's stitch: a
/// `__import__("setuptools").setup()` shim beside hatchling): no build runs that file — it
/// is there for tools that call `python setup.py` — and whoever runs it brings what it
/// imports.
pub(super) fn setup_py_shim(man: &Manifests, dir: &str, uses: &[Use], py: &mut [Finding]) {
    let backend = (man.pyproject_table.as_ref())
        .and_then(|t| t.get("build-system")?.get("build-backend")?.as_str());
    let Some(backend) = backend.filter(|b| !b.starts_with("setuptools")) else {
        return;
    };
    let setup_py = crate::source::join(dir, "setup.py");
    let at_setup_py = format!("{setup_py}:");
    let only_setup_py = |f: &Finding| {
        f.kind == DriftKind::Undeclared
            && f.doubt.is_none()
            && (f.evidence.as_deref()).is_some_and(|e| e.starts_with(&at_setup_py))
    };
    // Most modules have no such finding: the other files' names are read only when one does.
    if !py.iter().any(only_setup_py) {
        return;
    }
    let elsewhere: HashSet<String> = (uses.iter())
        .filter(|u| u.language == Language::Python && u.file != setup_py)
        .map(|u| names::python_dist_for(&u.key))
        .collect();
    for f in py
        .iter_mut()
        .filter(|f| only_setup_py(f) && !elsewhere.contains(&f.dependency))
    {
        f.doubt = Some(format!(
            "only {setup_py} imports it, and pyproject.toml builds with {backend}, which never runs setup.py: a shim for tools that call it, which bring what it imports"
        ));
    }
}

/// Makes unsure each sure unused or dev-only finding that a Python file of a module nested
/// in this one imports, when that module is made by another language's manifest and holds
/// no Python one (gpt-researcher's `multi_agents/`, Python packages beside a stray
/// package.json; unsloth's `studio/`, whose `backend/` the root's pyproject ships): mesh
/// reads those files as that module's, yet they may be this one's code. `keys` are the
/// import names each declaration (by name) answers to.
pub(super) fn used_in_other_language_module(
    world: &World,
    m: &ModuleSource,
    keys: &[(String, Vec<String>)],
    py: &mut [Finding],
) {
    if m.nested.is_empty() || !py.iter().any(unused_or_dev_only) {
        return;
    }
    // Those holding Python packages.
    let nested = without_python_manifest(world, m, |_, r| {
        (r.manifests.provides.iter()).any(|(l, _)| *l == Language::Python)
    });
    // The first import of each name in those modules' Python files, in name order.
    let mut imported: std::collections::BTreeMap<String, (String, u32)> = Default::default();
    for (_, r) in nested {
        for f in r.files.iter().filter(|f| super::python_path::importable(f)) {
            for i in f.imports.iter() {
                imported
                    .entry(i.name.to_lowercase())
                    .or_insert_with(|| (f.path.clone(), i.line));
            }
        }
    }
    if imported.is_empty() {
        return;
    }
    for f in py.iter_mut().filter(|f| unused_or_dev_only(f)) {
        let Some((_, ks)) = keys.iter().find(|(name, _)| *name == f.dependency) else {
            continue;
        };
        let at = imported
            .iter()
            .find(|(name, _)| ks.iter().any(|k| names::segment_prefix(k, name, ".")));
        if let Some((_, (file, line))) = at {
            f.doubt = Some(format!(
                "imported by {file}:{line}, a Python file of a module another language's manifest makes: mesh reads it as that module's, but it may be this one's code"
            ));
        }
    }
}

/// Makes the module's unused and dev-only Python findings unsure when its own Python
/// package's directory (`gradio/` of the distribution providing `gradio`, or
/// `src/gradio/`) is a module nested in it (`rec` is the module's record): gradio's
/// `gradio/` is a JS package too, with a package.json, so mesh reads its `.py` files as that
/// module's, and what they import is not seen here.
pub(super) fn nested_code(
    world: &World,
    m: &ModuleSource,
    rec: &crate::store::ModuleRecord,
    py: &mut [Finding],
) {
    if m.nested.is_empty() || !py.iter().any(unused_or_dev_only) {
        return;
    }
    let own: Vec<&str> = (rec.manifests.provides.iter())
        .filter(|(l, _)| *l == Language::Python)
        .map(|(_, n)| n.as_str())
        .collect();
    let nested = without_python_manifest(world, m, |n, r| {
        let rel = crate::source::relative(&n.dir, &m.dir);
        own.iter()
            .any(|o| rel == *o || rel.strip_prefix("src/") == Some(*o))
            && r.files.iter().any(super::python_path::importable)
    });
    let Some((n, _)) = nested.into_iter().next() else {
        return;
    };
    for f in py.iter_mut().filter(|f| unused_or_dev_only(f)) {
        f.doubt = Some(format!(
            "{}/ is its Python package's directory and a module of its own: its files may import it, but mesh reads them as {}'s",
            n.dir,
            n.name()
        ));
    }
}

/// A sure unused or dev-only finding: what a module's code read elsewhere may use.
fn unused_or_dev_only(f: &Finding) -> bool {
    matches!(f.kind, DriftKind::Unused | DriftKind::DevOnly) && f.doubt.is_none()
}

/// The modules nested in `m` (its repository, below its directory) that `wanted` takes and
/// that have no Python manifest of their own (`pyproject.toml`, `setup.cfg`, `setup.py`),
/// which would make them a distribution apart. A manifest is looked for only in a module
/// `wanted` takes.
fn without_python_manifest<'w>(
    world: &'w World,
    m: &ModuleSource,
    wanted: impl Fn(&ModuleSource, &crate::store::ModuleRecord) -> bool,
) -> Vec<(&'w ModuleSource, &'w crate::store::ModuleRecord)> {
    let loaded = world.loaded;
    let snap = loaded.snapshot.repo_of(m);
    let Ok(tree) = snap.root_tree() else {
        return Vec::new();
    };
    let manifest = |dir: &str| {
        ["pyproject.toml", "setup.cfg", "setup.py"].iter().any(|f| {
            crate::source::blob_text(snap, &tree, &crate::source::join(dir, f))
                .ok()
                .flatten()
                .is_some()
        })
    };
    (loaded.snapshot.modules.iter().zip(&loaded.records))
        .filter(|(n, r)| {
            n.repo == m.repo && m.nested.contains(&n.dir) && wanted(n, r) && !manifest(&n.dir)
        })
        .collect()
}

/// The top names of the module's guarded Python imports (`try: import mem0`) no declaration
/// answers and no distribution mesh knows provides, each once: never owed, but a declaration
/// imported by a name mesh does not know may be theirs. A `TYPE_CHECKING` import, a stub's,
/// a runner's or a removed standard module's is no such guess.
pub(super) fn guarded_unanswered(uses: &[Use], decls: &[Decl]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for u in uses {
        if u.language != Language::Python || u.kind != ImportKind::Optional || u.type_only {
            continue;
        }
        if u.file.ends_with(".pyi") || names::python_known(&names::python_dist_for(&u.key)) {
            continue;
        }
        let answered =
            (decls.iter()).any(|d| d.keys.iter().any(|k| names::segment_prefix(k, &u.key, ".")));
        let top = u.key.split('.').next().unwrap_or(&u.key);
        // A namespace (`google`, `opentelemetry`) is a word of many distributions' names.
        if !answered && !names::is_python_namespace(top) && !out.iter().any(|o| o == top) {
            out.push(top.to_string());
        }
    }
    out
}

/// Type stub bundles whose extras each install one service's stubs as a distribution of its
/// own, with the module prefix that distribution is imported by: `boto3-stubs[s3]` installs
/// `mypy-boto3-s3`, imported as `mypy_boto3_s3`.
const SERVICE_STUBS: &[(&str, &str)] = &[
    ("boto3-stubs", "mypy_boto3_"),
    ("types-boto3", "types_boto3_"),
    ("types-aiobotocore", "types_aiobotocore_"),
    ("types-aioboto3", "types_aioboto3_"),
];

/// The service stub modules ([`SERVICE_STUBS`]) a pyproject's requirements ask for, in any
/// section (dlt's dev group declares `boto3-stubs[lakeformation,s3,s3tables]`), as
/// (the bundle's PEP 503 name, the module its extra installs).
fn service_stubs(t: &toml::Table) -> Vec<(String, String)> {
    fn strings<'t>(v: &'t toml::Value, out: &mut Vec<&'t str>) {
        match v {
            toml::Value::String(s) => out.push(s),
            toml::Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
            toml::Value::Table(t) => t.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    t.values().for_each(|v| strings(v, &mut all));
    let mut out = Vec::new();
    for req in all {
        let Some(name) = declared::pep508_name(req) else {
            continue;
        };
        let dist = names::pep503(name);
        if let Some((_, prefix)) = SERVICE_STUBS.iter().find(|(d, _)| *d == dist) {
            for extra in declared::pep508_extras(req) {
                out.push((dist.clone(), format!("{prefix}{}", extra.replace('-', "_"))));
            }
        }
    }
    out
}

/// Files a command runs (a name, or a `*` pattern), each with the module that command's own
/// distribution provides: `noxfile.py` is run by nox, `fabfile.py` by Fabric, `dodo.py` by
/// doit, a PyInstaller hook (`hook-mitmproxy.py`) by PyInstaller as it freezes the package.
/// The command is installed apart (pipx, a CI image), and the file's `import nox` comes with
/// it.
const RUN_BY: &[(&str, &str)] = &[
    ("noxfile.py", "nox"),
    ("fabfile.py", "fabric"),
    ("dodo.py", "doit"),
    ("hook-*.py", "pyinstaller"),
];

/// The command that runs the Python file `file` and brings the module `key` imports with it
/// ([`RUN_BY`]): such an import uses a declaration of its name but is never undeclared
/// (jupyterhub's `noxfile.py`).
pub(super) fn runner_of(file: &str, key: &str) -> Option<&'static str> {
    let base = file.rsplit('/').next().unwrap_or(file);
    let top = key.split('.').next().unwrap_or(key);
    let named = |f: &str| match f.split_once('*') {
        Some((pre, post)) => base.starts_with(pre) && base.ends_with(post),
        None => f == base,
    };
    RUN_BY
        .iter()
        .find(|(f, m)| named(f) && m.eq_ignore_ascii_case(top))
        .map(|(_, m)| *m)
}

/// Drops the unused findings of an extra that installs a plugin of the module's own
/// distribution (`livekit-agents[groq]` installs `livekit-plugins-groq`, which requires
/// `livekit-agents`): a bundle for its users to install, which the package itself never
/// imports (a plugin importing it back would make a cycle).
pub(super) fn without_unused_plugin_bundles(world: &World, man: &Manifests, py: &mut Vec<Finding>) {
    let Some(t) = man.pyproject_table.as_ref() else {
        return;
    };
    let Some(own) = t
        .get("project")
        .and_then(|p| p.get("name")?.as_str())
        .map(names::pep503)
    else {
        return;
    };
    let extras = declared::pyproject_extras(t);
    let bundle = |dep: &str| -> Option<String> {
        let dist = names::pep503(dep);
        let plugs_in = world
            .python_requires
            .get(&dist)
            .is_some_and(|r| r.contains(&own));
        let extra = extras
            .iter()
            .find(|(_, deps)| deps.iter().any(|d| names::pep503(d) == dist))?;
        plugs_in.then(|| extra.0.clone())
    };
    py.retain(|f| {
        if f.kind != DriftKind::Unused {
            return true;
        }
        let Some(extra) = bundle(&f.dependency) else {
            return true;
        };
        if let Some(p) = world.probe.filter(|p| p.names(&f.dependency)) {
            p.say(format!(
                "the extra `{extra}` installs it, a plugin that requires {own} back: a bundle for users to install, never imported by the package itself"
            ));
        }
        false
    });
}

/// Marks each unused distribution named after the module's own (`OctoPrint-FileCheck` in
/// OctoPrint's `[project] dependencies`): a plugin of it, bundled — the project loads its
/// plugins through entry points, by their names, never by an import.
pub(super) fn own_plugins(world: &World, man: &Manifests, py: &mut [Finding]) {
    let Some(own) = (man.pyproject_table.as_ref())
        .and_then(|t| t.get("project")?.get("name")?.as_str())
        .map(names::pep503)
    else {
        return;
    };
    for f in py
        .iter_mut()
        .filter(|f| f.kind == DriftKind::Unused && f.doubt.is_none())
    {
        let dist = names::pep503(&f.dependency);
        // A distribution of the mesh is a library of the project's own (langchain's
        // `langchain-core`), no plugin it loads.
        if world.mesh_package(Language::Python, &f.dependency) {
            continue;
        }
        if dist
            .strip_prefix(own.as_str())
            .is_some_and(|r| r.len() > 1 && r.starts_with('-'))
        {
            f.doubt = Some(format!(
                "named after the project itself ({own}): a plugin of it, which a project loads through its entry points rather than an import"
            ));
        }
    }
}

/// What the extras of the mesh's distributions that the module's requirements (`own`, its
/// declarations read already) ask for install (`livekit-agents[openai]` installs
/// `livekit-plugins-openai`), and for another distribution the one its extra's name makes
/// (`psycopg[pool]` → `psycopg-pool`): declared for the module, in the requirement's
/// section, never unused (the requirement is the module's declaration).
fn through_extras(
    world: &World,
    man: &Manifests,
    dir: &str,
    own: &[declared::Declared],
) -> Vec<declared::Declared> {
    let Some(t) = man.pyproject_table.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (name, extras) in declared::pyproject_requirement_extras(t) {
        let dist = names::pep503(&name);
        let Some(req) = own.iter().find(|d| names::pep503(&d.name) == dist) else {
            continue;
        };
        let Some(of) = world.python_extras.get(&dist) else {
            // A distribution outside the mesh: its extra `e` installs `dist-e` by the common
            // convention (`psycopg[pool]` → `psycopg-pool`, imported as `psycopg_pool`).
            for extra in &extras {
                let dep = format!("{dist}-{}", names::pep503(extra));
                if let Some(p) = world.probe.filter(|p| p.names(&dep)) {
                    p.say(format!(
                        "{}:{} asks for {name}[{extra}], whose extra installs {dep} by its name",
                        req.path(dir),
                        req.line
                    ));
                }
                out.push(declared::Declared {
                    name: dep,
                    indirect: true,
                    ..req.clone()
                });
            }
            continue;
        };
        for extra in &extras {
            for dep in of.get(extra).into_iter().flatten() {
                if let Some(p) = world.probe.filter(|p| p.names(dep)) {
                    p.say(format!(
                        "{}:{} asks for {name}[{extra}], which installs it",
                        req.path(dir),
                        req.line
                    ));
                }
                out.push(declared::Declared {
                    name: dep.clone(),
                    indirect: true,
                    ..req.clone()
                });
            }
        }
    }
    out
}

/// Whether `--explain`'s probe looks at the Python import `key`: by its top name or by the
/// distribution it would be declared as.
pub(super) fn probed(p: &Probe, key: &str) -> bool {
    p.names(key.split('.').next().unwrap_or(key)) || p.names(&names::python_dist_for(key))
}

/// Tells `--explain` why the Python import `imp` of `f` is the module's own, when it is: once
/// per package of the module (`said` holds those told).
pub(super) fn own_evidence(
    world: &World,
    keys: &UseKeys,
    f: &ScannedFile,
    imp: &mesh_imports::Import,
    said: &mut HashSet<String>,
) {
    let Some(p) = world.probe else {
        return;
    };
    let lower = imp.name.to_lowercase();
    if lower.starts_with('.') || !probed(p, &lower) {
        return;
    }
    if let Some(own) = keys
        .own_python
        .iter()
        .find(|o| names::segment_prefix(o, &lower, "."))
        && said.insert(own.clone())
    {
        p.say(format!(
            "imported by {}:{}, and it is the module's own: the module ships `{own}`",
            f.path, imp.line
        ));
    }
}

/// Whether the Python import `key` of `f` names only a namespace package (`opentelemetry`
/// of `from opentelemetry import trace`) whose submodule the same statement imports too
/// (`opentelemetry.trace`): no distribution provides a namespace whole, so the submodule is
/// what a declaration must answer, and the namespace is left out.
pub(super) fn namespace_only(
    world: &World,
    keys: &UseKeys,
    f: &ScannedFile,
    imp: &mesh_imports::Import,
    key: &str,
) -> bool {
    let namespace = world.python_namespaces.contains(key)
        || keys
            .own_python
            .iter()
            .any(|o| names::segment_prefix(key, o, ".") && o != key)
        || names::is_python_namespace(key);
    if !namespace {
        return false;
    }
    let below = f.imports.iter().any(|other| {
        other.line == imp.line
            && other.name.len() > key.len()
            && names::segment_prefix(key, &other.name.to_lowercase(), ".")
    });
    if below && let Some(p) = world.probe.filter(|p| probed(p, key)) {
        p.say(format!(
            "{}:{} names the namespace `{key}`, which no distribution provides whole: the submodule the same line imports is matched instead",
            f.path, imp.line
        ));
    }
    below
}

/// The environments a module's distributions may be installed in: a `.venv` (or `venv`)
/// beside its manifest in the work tree at `repo`, and `VIRTUAL_ENV`.
pub(super) fn environments(repo: &Path, dir: &str) -> Vec<PathBuf> {
    let here = repo.join(dir);
    let mut out: Vec<PathBuf> = [".venv", "venv"]
        .iter()
        .map(|v| here.join(v))
        .filter(|p| p.is_dir())
        .collect();
    out.extend(std::env::var_os("VIRTUAL_ENV").map(PathBuf::from));
    out
}

/// What each distribution installed in `envs` is imported by, by PEP 503 name: its
/// `top_level.txt`, else the top-level names of the files its `RECORD` installed (packages
/// and `.py` modules). What a distribution says of itself beats any table; a distribution
/// not installed is matched by the rules of [`super::names::python_keys`].
pub(super) fn installed(envs: &[PathBuf]) -> HashMap<String, Vec<String>> {
    let mut out = HashMap::new();
    for env in envs {
        let Ok(libs) = std::fs::read_dir(env.join("lib")) else {
            continue;
        };
        for lib in libs.flatten() {
            let Ok(entries) = std::fs::read_dir(lib.path().join("site-packages")) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                let Some(stem) = name.strip_suffix(".dist-info") else {
                    continue;
                };
                let dist = stem.split('-').next().unwrap_or(stem);
                let names = top_level(&e.path());
                if !names.is_empty() {
                    out.entry(super::names::pep503(dist)).or_insert(names);
                }
            }
        }
    }
    out
}

/// The import names of one installed distribution (its `.dist-info` directory), lowercase.
fn top_level(dist_info: &Path) -> Vec<String> {
    let mut names: Vec<String> = match std::fs::read_to_string(dist_info.join("top_level.txt")) {
        Ok(t) => t
            .lines()
            .map(|l| l.trim().to_lowercase())
            .filter(|l| !l.is_empty())
            .collect(),
        Err(_) => std::fs::read_to_string(dist_info.join("RECORD"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let path = l.split(',').next()?;
                let (top, rest) = path.split_once('/').unwrap_or((path, ""));
                let module = top.strip_suffix(".py").filter(|_| rest.is_empty());
                let package = (!rest.is_empty()
                    && !top.ends_with(".dist-info")
                    && !top.ends_with(".data")
                    && top != ".."
                    && top != "__pycache__")
                    .then_some(top);
                module.or(package).map(str::to_lowercase)
            })
            .collect(),
    };
    names.sort();
    names.dedup();
    names
}

/// Marks each unused and dev-only finding declared in an application's requirements files
/// (see [`Manifests::app_requirements`]) unsure: such a file pins the environment the
/// application runs in, and what a framework loads by a name in its settings (a database
/// driver, a cache backend, a middleware) or a start script runs (a server) is there for it
/// as much as what its code imports; one file serves its tests and its server alike.
pub(super) fn app_requirements_pins(man: &Manifests, found: &mut [Finding]) {
    for f in found.iter_mut() {
        let pinned = man.app_requirements.contains(&f.manifest);
        if matches!(f.kind, DriftKind::Unused | DriftKind::DevOnly) && f.doubt.is_none() && pinned {
            f.doubt = Some(format!(
                "{} pins the application's environment: what it loads by name (a database driver or middleware in its settings) or a script runs (its server) is used without an import, and its tests run in it too",
                f.manifest
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_distribution_says_what_it_is_imported_by() {
        let env = tempfile::tempdir().unwrap();
        let site = env.path().join("lib/python3.12/site-packages");
        let top = site.join("Foo_Core-1.0.dist-info");
        std::fs::create_dir_all(&top).unwrap();
        std::fs::write(top.join("top_level.txt"), "foo\n_foo_speedups\n").unwrap();
        let rec = site.join("weird_dist-2.0.dist-info");
        std::fs::create_dir_all(&rec).unwrap();
        std::fs::write(
            rec.join("RECORD"),
            "wd/__init__.py,sha256=x,1\nwd/sub.py,,\nsingle.py,,\nweird_dist-2.0.dist-info/METADATA,,\n../../bin/wd,,\n",
        )
        .unwrap();
        let found = installed(&[env.path().to_path_buf()]);
        assert_eq!(
            found.get("foo-core"),
            Some(&vec!["_foo_speedups".to_string(), "foo".to_string()])
        );
        assert_eq!(
            found.get("weird-dist"),
            Some(&vec!["single".to_string(), "wd".to_string()])
        );
    }
}
