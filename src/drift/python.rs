//! Python's own drift rules: a module's declarations (its manifests and what its test
//! environment installs), which names its own files answer to, so that its imports of
//! itself, and of files beside a script or a test, are no dependencies, and when nothing of
//! it can be called unused.

use super::explain::Probe;
use super::{Decl, DriftKind, Finding, Manifests, UseKeys, World, declared, names};
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
        .all(|f| f.imports.is_empty());
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

/// A Python module's declarations (pyproject.toml and setup.cfg, and what its test
/// environment installs) with the import names each provides, and the file an undeclared
/// import is named against; none without either file. `dir` is the module's directory.
pub(super) fn declarations(
    world: &World,
    man: &Manifests,
    dir: &str,
) -> Option<(Vec<Decl>, &'static str)> {
    if man.pyproject.is_none() && man.setup_cfg.is_none() {
        return None;
    }
    let mut found = man.pyproject_decls.clone();
    found.extend(
        man.setup_cfg
            .as_deref()
            .map(declared::setup_cfg)
            .unwrap_or_default(),
    );
    // Undeclared imports are named against the file a person would add them to.
    let file = match (&man.pyproject, found.first()) {
        (Some(_), Some(d)) if d.manifest == "setup.cfg" => "setup.cfg",
        (Some(_), _) => "pyproject.toml",
        (None, _) => "setup.cfg",
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
    let installed_by_extras = through_extras(world, man, dir, &found);
    found.extend(installed_by_extras);
    // `pkg[a,b]` in pkg's own extras or groups (recursive extras) names no dependency.
    let own = man
        .pyproject_table
        .as_ref()
        .and_then(|t| t.get("project")?.get("name")?.as_str().map(names::pep503));
    let decls = found
        .into_iter()
        .filter(|d| own.as_deref() != Some(names::pep503(&d.name).as_str()))
        .map(|d| {
            let keys = world
                .python_dists
                .get(&names::pep503(&d.name))
                .or_else(|| man.installed_python.get(&names::pep503(&d.name)))
                .cloned()
                .unwrap_or_else(|| names::python_keys(&d.name));
            Decl { d, keys }
        })
        .collect();
    Some((decls, file))
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

/// What the extras of the mesh's distributions that the module's requirements (`own`, its
/// declarations read already) ask for install (`livekit-agents[openai]` installs
/// `livekit-plugins-openai`): declared for the module, in the requirement's section, never
/// unused (the requirement is the module's declaration).
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
        let Some(of) = world.python_extras.get(&dist) else {
            continue;
        };
        let Some(req) = own.iter().find(|d| names::pep503(&d.name) == dist) else {
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

/// The Python names a module provides that its own files hold: a package directory or a
/// `.py` file of that name somewhere in it. A meta-package's project name gives it an import
/// name whose code lives in another module (pydantic-ai's root, `pydantic_ai`, ships nothing
/// of its own and pulls in pydantic-ai-slim, which holds `pydantic_ai/`): its tests' `import
/// pydantic_ai` then uses that dependency, not itself.
pub(super) fn own_python_names(
    provided: Vec<String>,
    files: &[ScannedFile],
    prefix: &str,
) -> Vec<String> {
    provided
        .into_iter()
        .filter(|name| {
            let top = name.split('.').next().unwrap_or(name);
            files
                .iter()
                .filter(|f| f.language == Language::Python)
                .any(|f| {
                    let rel = f.path.strip_prefix(prefix).unwrap_or(&f.path);
                    let mut parts = rel.split('/').peekable();
                    let mut hit = false;
                    while let Some(p) = parts.next() {
                        let stem = if parts.peek().is_none() {
                            p.trim_end_matches(".pyi").trim_end_matches(".py")
                        } else {
                            p
                        };
                        hit |= stem.eq_ignore_ascii_case(top);
                    }
                    hit
                })
        })
        .collect()
}

/// The names a module's own Python files answer to from beside them: a script's `import
/// helpers` next to `helpers.py`, a test's `import conftest_utils`. A directory that is no
/// package (no `__init__.py`) is put on `sys.path` by running a script in it or by pytest's
/// rootdir insertion, so its entries are importable from below it; a package's are not
/// (`pydantic_ai/models/openai.py` never makes `import openai` local).
///
/// An entry that is itself a directory without `__init__.py` is a PEP 420 namespace, which
/// many distributions share (opentelemetry-python's `src/opentelemetry/` holds only the
/// sdk's `sdk/` in opentelemetry-sdk, and the api's `trace/` in opentelemetry-api): an
/// import below it is local only when the module holds the package or module it names
/// (`opentelemetry.sdk.trace`, not `opentelemetry.trace`), and a namespace directory's own
/// entries (`…/otlp/proto/grpc/`) never make a top-level name (`grpc`) local.
pub(super) struct LocalPython {
    /// Per lowercase entry name (of a Python file or a directory), the module-relative
    /// directories that are no package holding it.
    entries: HashMap<String, Vec<String>>,
    /// The module-relative regular packages (directories with `__init__.py`), lowercase.
    packages: HashSet<String>,
    /// Every module-relative directory above a Python file, lowercase.
    dirs: HashSet<String>,
    /// The module-relative Python files without their `.py`/`.pyi`, lowercase.
    modules: HashSet<String>,
}

impl LocalPython {
    /// Whether the import `key` (dotted, lowercase) of the file `rel` names an entry of a
    /// non-package directory at or above it, down to the package or module it names.
    pub(super) fn is_local(&self, rel: &str, key: &str) -> bool {
        self.holders(key).any(|d| {
            crate::source::ancestors(rel)
                .skip(1)
                .any(|dir| dir.eq_ignore_ascii_case(d))
        })
    }

    /// Whether the module-relative directory `dir` is a regular package (`__init__.py`).
    pub(super) fn is_package(&self, dir: &str) -> bool {
        self.packages.contains(&dir.to_lowercase())
    }

    /// Where the top of `key` stands beside the file `rel` only as a namespace directory
    /// that does not hold what `key` names: (that directory, the missing part's path), the
    /// evidence `--explain` gives for an import that is not the module's own.
    pub(super) fn namespace_miss(&self, rel: &str, key: &str) -> Option<String> {
        let top = key.split('.').next().unwrap_or(key);
        let dir = self.entries.get(top)?.iter().find(|d| {
            crate::source::ancestors(rel)
                .skip(1)
                .any(|a| a.eq_ignore_ascii_case(d))
                && !self.resolves(d, key)
        })?;
        Some(crate::source::join(dir, top))
    }

    /// Whether `key` resolves below the sys.path directory `dir`: to a regular package or a
    /// module there, or through namespace directories down to one (a bare namespace, all of
    /// whose path is there, resolves too).
    fn resolves(&self, dir: &str, key: &str) -> bool {
        let mut path = dir.to_string();
        for part in key.split('.') {
            path = crate::source::join(&path, part);
            if self.packages.contains(&path) || self.modules.contains(&path) {
                return true;
            }
            if !self.dirs.contains(&path) {
                return false;
            }
        }
        true
    }
}

/// The [`LocalPython`] of a module in `dir` whose Python files are among `files` and which
/// ships the packages `own` (dotted, lowercase): the directories above a dotted package's
/// own directory (`src/opentelemetry/exporter/otlp/proto/` above
/// `opentelemetry.exporter.otlp.proto.grpc`) are its namespace, never on `sys.path`.
pub(super) fn local_python_names(files: &[ScannedFile], dir: &str, own: &[String]) -> LocalPython {
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let rels: Vec<String> = files
        .iter()
        .filter(|f| f.language == Language::Python)
        .map(|f| {
            f.path
                .strip_prefix(&prefix)
                .unwrap_or(&f.path)
                .to_lowercase()
        })
        .collect();
    let packages: HashSet<String> = rels
        .iter()
        .filter_map(|r| r.rsplit_once('/'))
        .filter(|(_, f)| f.starts_with("__init__."))
        .map(|(p, _)| p.to_string())
        .collect();
    let mut dirs = HashSet::new();
    let mut modules = HashSet::new();
    for rel in &rels {
        modules.insert(
            rel.trim_end_matches(".pyi")
                .trim_end_matches(".py")
                .to_string(),
        );
        dirs.extend(
            crate::source::ancestors(rel)
                .skip(1)
                .filter(|d| !d.is_empty())
                .map(str::to_string),
        );
    }
    let mut namespaces = HashSet::new();
    for name in own.iter().filter(|n| n.contains('.')) {
        let path = name.replace('.', "/");
        let depth = name.matches('.').count();
        let found = packages.iter().chain(modules.iter()).filter(|p| {
            **p == path
                || p.strip_suffix(path.as_str())
                    .is_some_and(|base| base.ends_with('/'))
        });
        for p in found {
            namespaces.extend(
                crate::source::ancestors(p)
                    .skip(1)
                    .take(depth)
                    .map(str::to_string),
            );
        }
    }
    let mut entries: HashMap<String, Vec<String>> = HashMap::new();
    for rel in &rels {
        let mut parts: Vec<&str> = rel.split('/').collect();
        while let Some(last) = parts.pop() {
            let parent = parts.join("/");
            if !parent.is_empty() && (packages.contains(&parent) || namespaces.contains(&parent)) {
                continue;
            }
            let stem = last.trim_end_matches(".pyi").trim_end_matches(".py");
            let dirs = entries.entry(stem.to_string()).or_default();
            if !dirs.contains(&parent) {
                dirs.push(parent);
            }
        }
    }
    LocalPython {
        entries,
        packages,
        dirs,
        modules,
    }
}

impl LocalPython {
    /// The directories (module-relative, no package, lowercase) that hold what `key` names:
    /// a `top.py`, a `top/` package, or a namespace `top/` holding the rest of `key`.
    fn holders<'s>(&'s self, key: &'s str) -> impl Iterator<Item = &'s str> + 's {
        let top = key.split('.').next().unwrap_or(key);
        self.entries
            .get(top)
            .into_iter()
            .flatten()
            .filter(move |d| self.resolves(d, key))
            .map(String::as_str)
    }
}

/// Where a module's own code puts its directories on `sys.path`, which makes a name its files
/// hold in a directory that is no package local wherever it is imported from: pytest's
/// `pythonpath` setting (the directories it names, for every file), and a file that changes
/// `sys.path` itself (`sys.path.insert(…)`, `site.addsitedir(…)`) or has a `conftest.py` or
/// `__init__.py` above it that does (then any such directory of the module, for that file:
/// where the path points is not evaluated). Files are read only for an import that such a
/// directory could answer, once each.
pub(super) struct SysPath<'f, R> {
    /// Reads a module-relative file's text.
    read: R,
    /// The module's Python files, module-relative.
    python: HashSet<&'f str>,
    /// (directory, the file that sets it) from pytest's `pythonpath`, once read.
    pythonpath: Option<Vec<(String, &'static str)>>,
    /// Per file read, the line that changes `sys.path` (its number and text), if any.
    changes: HashMap<String, Option<(u32, String)>>,
    /// The module's manifests: its pyproject and its commands (Makefile, tox.ini, package
    /// scripts, …: [`super::tools`]), read already.
    man: &'f Manifests,
    /// (directory, the command line, the names of the modules and packages directly in it)
    /// of each of the module's Python files a command or pyproject.toml runs as a script
    /// (`streamlit run app/home.py`), once read: Python puts a script's directory first on
    /// `sys.path`, package or not.
    scripts: Option<Vec<(String, String, HashSet<String>)>>,
}

impl<'f, R: FnMut(&str) -> Option<String>> SysPath<'f, R> {
    /// The `sys.path` evidence of a module whose files are `files` (below `prefix`), read
    /// through `read`.
    pub(super) fn new(
        files: &'f [ScannedFile],
        prefix: &str,
        man: &'f Manifests,
        read: R,
    ) -> SysPath<'f, R> {
        let python = files
            .iter()
            .filter(|f| f.language == Language::Python)
            .map(|f| f.path.strip_prefix(prefix).unwrap_or(&f.path))
            .collect();
        SysPath {
            read,
            python,
            pythonpath: None,
            changes: HashMap::new(),
            man,
            scripts: None,
        }
    }

    /// Why `key` (its top `top`), imported by the module's file `rel`, is the module's own
    /// through `sys.path`, as a sentence; `None` when it is not.
    pub(super) fn local(&mut self, local: &LocalPython, rel: &str, key: &str) -> Option<String> {
        let top = key.split('.').next().unwrap_or(key);
        if self.scripts.is_none() {
            self.scripts = Some(self.read_scripts());
        }
        // For the files at or below the script's directory: what the script imports, and
        // what those import in turn.
        let beside_script = self.scripts.iter().flatten().find(|(d, _, names)| {
            names.contains(top)
                && (d.is_empty()
                    || rel
                        .strip_prefix(d.as_str())
                        .is_some_and(|r| r.starts_with('/')))
        });
        if let Some((dir, line, _)) = beside_script {
            let place = match dir.as_str() {
                "" => format!("`{top}` is in the module's root"),
                d => format!("`{top}` is in `{d}/`"),
            };
            return Some(format!(
                "{place}, the directory of a script a command runs (`{line}`): Python puts it on sys.path"
            ));
        }
        let holders: Vec<&str> = local.holders(key).collect();
        let first = *holders.first()?;
        let place = |d: &str| match d {
            "" => format!("`{top}` is in the module's root"),
            d => format!("`{top}` is in `{d}/`"),
        };
        if self.pythonpath.is_none() {
            self.pythonpath = Some(self.read_pythonpath());
        }
        if let Some((dir, file)) = self
            .pythonpath
            .iter()
            .flatten()
            .find(|(d, _)| holders.iter().any(|h| h.eq_ignore_ascii_case(d)))
        {
            return Some(format!(
                "{}, which pytest's `pythonpath` ({file}) puts on sys.path",
                place(dir)
            ));
        }
        let mut candidates = vec![rel.to_string()];
        for dir in crate::source::ancestors(rel).skip(1) {
            for name in ["conftest.py", "__init__.py"] {
                candidates.push(crate::source::join(dir, name));
            }
        }
        for file in candidates {
            if !self.python.contains(file.as_str()) {
                continue;
            }
            if !self.changes.contains_key(&file) {
                let found = (self.read)(&file).and_then(|t| changes_sys_path(&t));
                self.changes.insert(file.clone(), found);
            }
            if let Some(Some((line, text))) = self.changes.get(&file) {
                return Some(format!(
                    "{}, and {file}:{line} changes sys.path (`{text}`)",
                    place(first)
                ));
            }
        }
        None
    }

    /// The directories of the module's Python files that its commands or its pyproject.toml
    /// run as a script (`streamlit run app/home_page.py`, `python scripts/gen.py`, `uv run
    /// x.py`: the path right after `python…` or `run`), with the line naming each.
    fn read_scripts(&mut self) -> Vec<(String, String, HashSet<String>)> {
        let pyproject = self.man.pyproject.as_deref().unwrap_or_default();
        let mut out: Vec<(String, String, HashSet<String>)> = Vec::new();
        for line in self.man.tools.commands.lines().chain(pyproject.lines()) {
            let words: Vec<&str> = line
                .split(|c: char| c.is_whitespace() || "\"'=;&|()".contains(c))
                .filter(|w| !w.is_empty())
                .collect();
            // A path right after what runs a file as a script: `python x.py`, `streamlit run
            // x.py`, `uv run x.py` (not `pytest x.py`, which imports it as a test module).
            let scripts = words.windows(2).filter(|p| {
                let runner = p[0].rsplit('/').next().unwrap_or(p[0]);
                runner.starts_with("python") || runner == "run"
            });
            for w in scripts.map(|p| p[1]).filter(|w| w.ends_with(".py")) {
                let path = w.trim_start_matches("./");
                if !self.python.contains(path) {
                    continue;
                }
                let dir = path.rsplit_once('/').map_or("", |(d, _)| d).to_string();
                if out.iter().any(|(d, _, _)| *d == dir) {
                    continue;
                }
                let names = self
                    .python
                    .iter()
                    .filter_map(|p| match dir.as_str() {
                        "" => Some(*p),
                        d => p.strip_prefix(d)?.strip_prefix('/'),
                    })
                    .filter_map(|r| r.split('/').next())
                    .map(|n| n.trim_end_matches(".py").to_string())
                    .collect();
                let shown: String = line.trim().chars().take(120).collect();
                out.push((dir, shown, names));
            }
        }
        out
    }

    /// The directories pytest's `pythonpath` names in the module's `pyproject.toml`,
    /// `pytest.ini`, `tox.ini` or `setup.cfg`, module-relative.
    fn read_pythonpath(&mut self) -> Vec<(String, &'static str)> {
        let mut out = Vec::new();
        if let Some(t) = &self.man.pyproject_table {
            let pytest = t.get("tool").and_then(|t| t.get("pytest"));
            let value = pytest
                .and_then(|p| p.get("ini_options"))
                .and_then(|o| o.get("pythonpath"))
                .or_else(|| pytest.and_then(|p| p.get("pythonpath")));
            let words: Vec<String> = match value {
                Some(toml::Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
                Some(toml::Value::Array(a)) => a
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            };
            out.extend(words.into_iter().map(|w| (w, "pyproject.toml")));
        }
        for (file, section) in [
            ("pytest.ini", "pytest"),
            ("tox.ini", "pytest"),
            ("setup.cfg", "tool:pytest"),
        ] {
            if let Some(t) = (self.read)(file) {
                let words = mesh_imports::setup_cfg::ini_words(&t, section, "pythonpath");
                out.extend(words.into_iter().map(|w| (w, file)));
            }
        }
        out.into_iter()
            .map(|(w, f)| {
                let d = w.trim_start_matches("./").trim_end_matches('/');
                (if d == "." { "" } else { d }.to_string(), f)
            })
            .collect()
    }
}

/// The file names read as a requirements file nested in a module, below its root
/// (`tools/ci/requirements.txt` beside a CI script, a hand-run directory's
/// `requirements.in`): each declares for the files below it, which run in an environment it
/// describes, not the package's.
pub(super) const REQUIREMENTS_FILES: &[&str] = &["requirements.txt", "requirements.in"];

/// The import names (lowercase) of what a requirements file's `text` lists.
pub(super) fn requirement_keys(text: &str) -> Vec<String> {
    super::python_env::requirement_names(text)
        .iter()
        .flat_map(|name| names::python_keys(name))
        .collect()
}

/// The first line of `text` that changes `sys.path` (its number, and its text cut at 120
/// characters): `sys.path.insert(…)`, `.append(…)`, `.extend(…)`, `sys.path[:0] = …`,
/// `sys.path += …`, `sys.path = …`, `site.addsitedir(…)`. Comments are left out.
pub(super) fn changes_sys_path(text: &str) -> Option<(u32, String)> {
    const CHANGES: &[&str] = &[
        "sys.path.insert(",
        "sys.path.append(",
        "sys.path.extend(",
        "sys.path[0:0]=",
        "sys.path[:0]=",
        "sys.path+=",
        "sys.path=",
        "addsitedir(",
    ];
    text.lines().enumerate().find_map(|(n, line)| {
        let code = line.split('#').next().unwrap_or("");
        let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        let changes =
            CHANGES.iter().any(|c| squeezed.contains(c)) && !squeezed.contains("sys.path==");
        changes.then(|| (n as u32 + 1, line.trim().chars().take(120).collect()))
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use mesh_imports::ImportKind;

    #[test]
    fn local_python_names_stop_at_packages() {
        // pydantic-ai: pydantic_ai_slim/pydantic_ai/models/openai.py is no top-level
        // `openai`; a test beside its helper, and the module root's entries, are local.
        let file = |p: &str| ScannedFile {
            path: format!("pydantic_ai_slim/{p}"),
            language: Language::Python,
            kind: ImportKind::Build,
            imports: Default::default(),
        };
        let files: Vec<ScannedFile> = [
            "pydantic_ai/__init__.py",
            "pydantic_ai/models/__init__.py",
            "pydantic_ai/models/openai.py",
            "tests/helpers.py",
            "tests/test_x.py",
            "scripts/gen.py",
        ]
        .iter()
        .map(|p| file(p))
        .collect();
        let local = local_python_names(&files, "pydantic_ai_slim", &[]);
        assert!(!local.is_local("pydantic_ai/models/openai.py", "openai"));
        assert!(!local.is_local("pydantic_ai/agent.py", "models"));
        assert!(local.is_local("tests/test_x.py", "helpers"));
        assert!(!local.is_local("scripts/gen.py", "helpers"));
        assert!(local.is_local("tests/test_x.py", "pydantic_ai"));
        assert!(local.is_local("scripts/gen.py", "tests"));
    }

    #[test]
    fn a_namespace_directory_is_local_only_down_to_what_the_module_holds() {
        // opentelemetry-python's exporter: `src/opentelemetry/` is a namespace (no
        // `__init__.py`) the module shares with the api; its package
        // `opentelemetry.exporter.otlp.proto.grpc` is no top-level `grpc`.
        let file = |p: &str| ScannedFile {
            path: format!("exp/{p}"),
            language: Language::Python,
            kind: ImportKind::Build,
            imports: Default::default(),
        };
        let files: Vec<ScannedFile> = [
            "src/opentelemetry/exporter/otlp/proto/grpc/__init__.py",
            "src/opentelemetry/exporter/otlp/proto/grpc/exporter.py",
            "src/opentelemetry/exporter/otlp/proto/common.py",
            "scripts/helpers/util.py",
            "scripts/run.py",
        ]
        .iter()
        .map(|p| file(p))
        .collect();
        let own = ["opentelemetry.exporter.otlp.proto.grpc".to_string()];
        let local = local_python_names(&files, "exp", &own);
        let rel = "src/opentelemetry/exporter/otlp/proto/grpc/exporter.py";
        assert!(!local.is_local(rel, "grpc"));
        assert!(!local.is_local(rel, "opentelemetry.trace"));
        assert!(local.is_local(rel, "opentelemetry.exporter.otlp.proto.grpc.exporter"));
        assert!(local.is_local(rel, "opentelemetry.exporter.otlp.proto.common"));
        assert_eq!(
            local.namespace_miss(rel, "opentelemetry.trace").as_deref(),
            Some("src/opentelemetry")
        );
        // A script's helper directory without `__init__.py` is still local, down to its
        // modules.
        assert!(local.is_local("scripts/run.py", "helpers.util"));
        assert!(local.is_local("scripts/run.py", "helpers"));
        assert!(!local.is_local("scripts/run.py", "helpers.other"));
    }

    #[test]
    fn names_on_sys_path_are_local_where_the_path_is_changed() {
        let file = |p: &str| ScannedFile {
            path: format!("m/{p}"),
            language: Language::Python,
            kind: ImportKind::Build,
            imports: Default::default(),
        };
        let files: Vec<ScannedFile> = [
            "pkg/__init__.py",
            "pkg/inner/__init__.py",
            "pkg/inner/util.py",
            "tests/conftest.py",
            "tests/support/fixtures_db.py",
            "tests/unit/test_a.py",
            "bench/run.py",
            "lib/extra.py",
            "docs/conf.py",
        ]
        .iter()
        .map(|p| file(p))
        .collect();
        let texts: HashMap<&str, &str> = [
            (
                "tests/conftest.py",
                "import sys\n# sys.path.insert(0, 'x') said in a comment\nsys.path.insert(0, str(HERE / 'support'))\n",
            ),
            ("docs/conf.py", "import site\nsite.addsitedir('../lib')\nimport extra\n"),
            ("bench/run.py", "import sys\nif sys.path == []: pass\n"),
            ("pytest.ini", "[pytest]\npythonpath = ./bench\n  lib/\n"),
        ]
        .into_iter()
        .collect();
        let local = local_python_names(&files, "m", &[]);
        let mut reads = Vec::new();
        let man = Manifests::default();
        let mut on_path = SysPath::new(&files, "m/", &man, |rel: &str| {
            reads.push(rel.to_string());
            texts.get(rel).map(|t| t.to_string())
        });
        let why = on_path
            .local(&local, "tests/unit/test_a.py", "fixtures_db")
            .expect("the conftest above puts tests/support on sys.path");
        assert!(why.contains("tests/conftest.py:3"), "{why}");
        assert!(
            on_path
                .local(&local, "docs/conf.py", "fixtures_db")
                .is_some()
        );
        // pytest.ini's pythonpath names lib/ (written `lib/`), for every file.
        let why = on_path
            .local(&local, "bench/run.py", "extra")
            .expect("lib is on the path");
        assert!(why.contains("pytest.ini"), "{why}");
        // bench/run.py compares sys.path, it does not change it; `util` is inside a package.
        assert_eq!(on_path.local(&local, "bench/run.py", "fixtures_db"), None);
        assert_eq!(on_path.local(&local, "tests/unit/test_a.py", "util"), None);
        // No entry of that name: nothing is read for it.
        assert_eq!(
            on_path.local(&local, "tests/unit/test_a.py", "requests"),
            None
        );
        drop(on_path);
        assert_eq!(
            reads.iter().filter(|r| *r == "tests/conftest.py").count(),
            1
        );
    }

    #[test]
    fn a_meta_package_does_not_own_its_project_name() {
        // pydantic-ai's root: project `pydantic-ai` (so `pydantic_ai` is provided), tests only;
        // pydantic_ai_slim holds `pydantic_ai/`.
        let file = |p: &str| ScannedFile {
            path: p.to_string(),
            language: Language::Python,
            kind: ImportKind::Dev,
            imports: Default::default(),
        };
        let root = [file("tests/test_agent.py"), file("tests/conftest.py")];
        assert!(own_python_names(vec!["pydantic_ai".into()], &root, "").is_empty());
        let slim = [
            file("pydantic_ai_slim/pydantic_ai/__init__.py"),
            file("pydantic_ai_slim/tests/x.py"),
        ];
        assert_eq!(
            own_python_names(
                vec!["pydantic_ai".into(), "pydantic_ai_slim".into()],
                &slim,
                "pydantic_ai_slim/"
            ),
            ["pydantic_ai"]
        );
        let single = [file("svc/src/svc.py")];
        assert_eq!(
            own_python_names(vec!["svc".into()], &single, "svc/"),
            ["svc"]
        );
    }

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
