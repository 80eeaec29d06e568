//! Where a Python name is the module's own: the names its files hold, the directories a
//! script or test sees beside it, what `sys.path` changes and pytest's `pythonpath` add,
//! and the requirements files nested in it, which declare for the files below them.

use super::sys_path_dirs::OnPath;
use super::{Manifests, names};
use mesh_imports::{Language, ScannedFile};
use std::collections::{HashMap, HashSet};

/// Whether `f` is a Python file an import can load: a module or stub, not a notebook (whose
/// code cells are read as Python, but no `import` finds it).
pub(super) fn importable(f: &ScannedFile) -> bool {
    f.language == Language::Python && !mesh_imports::notebook::is_notebook(&f.path)
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
            files.iter().filter(|f| importable(f)).any(|f| {
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
    /// Every name a directory of the module's Python files or a Python file answers to,
    /// package or not, lowercase: what a `sys.path` change could make importable.
    any_entry: HashSet<String>,
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
        let mut path = dir.to_lowercase();
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
        .filter(|f| importable(f))
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
    let any_entry = (rels.iter())
        .flat_map(|r| r.split('/'))
        .map(|p| {
            p.trim_end_matches(".pyi")
                .trim_end_matches(".py")
                .to_string()
        })
        .collect();
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
        any_entry,
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
    /// Those that import `sys`, `site` or `os`: the only ones that may change `sys.path`.
    path_changing: HashSet<&'f str>,
    /// (directory, the file that sets it) from pytest's `pythonpath`, once read.
    pythonpath: Option<Vec<(String, &'static str)>>,
    /// Per file read, its [`Change`], if any.
    changes: HashMap<String, Change>,
    /// The module's manifests: its pyproject and its commands (Makefile, tox.ini, package
    /// scripts, …: [`super::tools`]), read already.
    man: &'f Manifests,
    /// (directory, the command line, the names of the modules and packages directly in it)
    /// of each of the module's Python files a command or pyproject.toml runs as a script
    /// (`streamlit run app/home.py`), once read: Python puts a script's directory first on
    /// `sys.path`, package or not.
    scripts: Option<Vec<(String, String, HashSet<String>)>>,
}

/// A file's `sys.path` change: its first line that changes it (number, text), and each
/// change whose directory is evaluated ([`OnPath`]).
type Change = Option<((u32, String), Vec<OnPath>)>;

impl<'f, R: FnMut(&str) -> Option<String>> SysPath<'f, R> {
    /// The `sys.path` evidence of a module whose files are `files` (below `prefix`), read
    /// through `read`.
    pub(super) fn new(
        files: &'f [ScannedFile],
        prefix: &str,
        man: &'f Manifests,
        read: R,
    ) -> SysPath<'f, R> {
        let rel = |f: &'f ScannedFile| f.path.strip_prefix(prefix).unwrap_or(&f.path);
        let python = files.iter().filter(|f| importable(f)).map(rel).collect();
        // A file can change sys.path only with `sys`, `site` or `os` (`os.sys.path`)
        // imported: no other is read.
        let path_changing = (files.iter().filter(|f| importable(f)))
            .filter(|f| {
                (f.imports.iter()).any(|i| {
                    let top = i.name.split('.').next().unwrap_or(&i.name);
                    matches!(top, "sys" | "site" | "os")
                })
            })
            .map(rel)
            .collect();
        SysPath {
            read,
            python,
            path_changing,
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
        let place = |d: &str| match d {
            "" => format!("`{top}` is in the module's root"),
            d => format!("`{top}` is in `{d}/`"),
        };
        if !local.any_entry.contains(top) {
            return None;
        }
        // A change whose directory is evaluated: what is in it, package or not.
        for file in self.changing(rel) {
            let Some((_, dirs)) = self.change_of(&file) else {
                continue;
            };
            if let Some(on) = dirs.iter().find(|on| local.resolves(&on.dir, key)) {
                return Some(format!(
                    "{}, which {file}:{} puts on sys.path (`{}`)",
                    place(&on.dir),
                    on.line,
                    on.text
                ));
            }
        }
        let holders: Vec<&str> = local.holders(key).collect();
        let first = *holders.first()?;
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
        for file in self.changing(rel) {
            if let Some(((line, text), _)) = self.change_of(&file) {
                return Some(format!(
                    "{}, and {file}:{line} changes sys.path (`{text}`)",
                    place(first)
                ));
            }
        }
        None
    }

    /// The module's files whose `sys.path` changes the file `rel` runs under: itself, and
    /// the `conftest.py` and `__init__.py` files above it.
    fn changing(&self, rel: &str) -> Vec<String> {
        let mut candidates = vec![rel.to_string()];
        for dir in crate::source::ancestors(rel).skip(1) {
            for name in ["conftest.py", "__init__.py"] {
                candidates.push(crate::source::join(dir, name));
            }
        }
        candidates.retain(|f| self.path_changing.contains(f.as_str()));
        candidates
    }

    /// The `sys.path` change of the module's file `file`, read once: its first line that
    /// changes it, and the directories evaluated.
    fn change_of(&mut self, file: &str) -> Option<&((u32, String), Vec<OnPath>)> {
        if !self.changes.contains_key(file) {
            let found = (self.read)(file).and_then(|t| {
                let first = changes_sys_path(&t)?;
                Some((first, super::sys_path_dirs::sys_path_dirs(&t, file)))
            });
            self.changes.insert(file.to_string(), found);
        }
        self.changes.get(file).and_then(Option::as_ref)
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
    // Most files say neither: not looked at line by line.
    if !text.contains("sys") && !text.contains("addsitedir") {
        return None;
    }
    text.lines().enumerate().find_map(|(n, line)| {
        if !line.contains("sys") && !line.contains("addsitedir") {
            return None;
        }
        let code = line.split('#').next().unwrap_or("");
        let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        let changes =
            CHANGES.iter().any(|c| squeezed.contains(c)) && !squeezed.contains("sys.path==");
        changes.then(|| (n as u32 + 1, line.trim().chars().take(120).collect()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mesh_imports::ImportKind;

    /// Shipped Python files of the module in `dir`, at these paths below it.
    fn python_files(dir: &str, paths: &[&str]) -> Vec<ScannedFile> {
        paths
            .iter()
            .map(|p| ScannedFile {
                path: format!("{dir}/{p}"),
                language: Language::Python,
                kind: ImportKind::Build,
                imports: Default::default(),
                rust_macros: None,
            })
            .collect()
    }

    #[test]
    fn local_python_names_stop_at_packages() {
        // pydantic-ai: pydantic_ai_slim/pydantic_ai/models/openai.py is no top-level
        // `openai`; a test beside its helper, and the module root's entries, are local.
        let files = python_files(
            "pydantic_ai_slim",
            &[
                "pydantic_ai/__init__.py",
                "pydantic_ai/models/__init__.py",
                "pydantic_ai/models/openai.py",
                "tests/helpers.py",
                "tests/test_x.py",
                "scripts/gen.py",
            ],
        );
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
        let files = python_files(
            "exp",
            &[
                "src/opentelemetry/exporter/otlp/proto/grpc/__init__.py",
                "src/opentelemetry/exporter/otlp/proto/grpc/exporter.py",
                "src/opentelemetry/exporter/otlp/proto/common.py",
                "scripts/helpers/util.py",
                "scripts/run.py",
            ],
        );
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
        let files = python_files(
            "m",
            &[
                "pkg/__init__.py",
                "pkg/inner/__init__.py",
                "pkg/inner/util.py",
                "tests/conftest.py",
                "tests/support/fixtures_db.py",
                "tests/unit/test_a.py",
                "bench/run.py",
                "lib/extra.py",
                "lib/boot.py",
                "docs/conf.py",
            ],
        );
        let texts: HashMap<&str, &str> = [
            (
                "tests/conftest.py",
                "import sys\n# sys.path.insert(0, 'x') said in a comment\nsys.path.insert(0, str(HERE / 'support'))\n",
            ),
            ("docs/conf.py", "import site\nsite.addsitedir('../lib')\nimport extra\n"),
            ("bench/run.py", "import sys\nif sys.path == []: pass\n"),
            // Not scanned below (its imports stay none): never read.
            ("tests/unit/test_b.py", "sys.path.insert(0, '.')\n"),
            // `os.sys` is `sys`.
            ("lib/boot.py", "import os\nos.sys.path.insert(0, os.path.dirname(__file__))\n"),
            ("pytest.ini", "[pytest]\npythonpath = ./bench\n  lib/\n"),
        ]
        .into_iter()
        .collect();
        // Each file's imports, as scanned: only one importing `sys` or `site` is read.
        let mut files = files;
        for f in &mut files {
            let rel = f.path.trim_start_matches("m/");
            if let Some(text) = texts.get(rel).filter(|_| !rel.ends_with("test_b.py")) {
                f.imports = mesh_imports::scan_file(Language::Python, text).imports;
            }
        }
        files.push(ScannedFile {
            path: "m/tests/unit/test_b.py".into(),
            ..files[0].clone()
        });
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
        assert!(
            on_path
                .local(&local, "tests/unit/test_b.py", "fixtures_db")
                .is_some_and(|why| why.contains("tests/conftest.py:3"))
        );
        drop(on_path);
        assert_eq!(
            reads.iter().filter(|r| *r == "tests/conftest.py").count(),
            1
        );
        assert!(!reads.iter().any(|r| r.ends_with("test_b.py")), "{reads:?}");
        let mut on_path = SysPath::new(&files, "m/", &man, |rel: &str| {
            texts.get(rel).map(|t| t.to_string())
        });
        let why = on_path.local(&local, "lib/boot.py", "extra");
        assert!(
            why.as_deref()
                .is_some_and(|w| w.contains("lib/boot.py:2 puts on sys.path")),
            "{why:?}"
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
            rust_macros: None,
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
}
