//! Which shipped Python files of a module load only under a guard. Python carries a failed
//! import up the chain of files importing each other, so an `import torch` at the top of
//! `extras/pytorch/checkpoint.py` is as optional as the `try: from .checkpoint import …
//! except ImportError` (or the `if _torch_installed:` after it) that loads it: flytekit's
//! optional integrations, each a package its `__init__.py` loads only so.

use mesh_imports::{ImportKind, Language, ScannedFile};
use std::collections::{HashMap, HashSet, VecDeque};

/// How far an import chain's failure reaches, ordered: the most exposed chain into a file
/// decides how it is loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum State {
    Unreached,
    /// Every chain that loads it passes a guard after its last function call.
    Guarded,
    /// Some chain loads it with no guard between it and the program's start or a call.
    Exposed,
}

/// The shipped Python files of a module (`files`) that only guarded imports of other shipped
/// files load (the body of a `try … except ImportError`, an `if` testing what such a `try`
/// assigns: [`mesh_imports::Import::load_guarded`]), each with the import that loads it
/// (`path:line`): their own imports are as optional. A file no other shipped file imports
/// is loaded unguarded (a script, a module its users import by name), and so is a top-level
/// module or package, a module `entry` names (an entry point's `pkg.cli`) or a `__main__.py`
/// with their packages' `__init__.py`, and a chain of files importing only each other. An
/// import inside a function loads its file when the function is called, where no guard
/// catches what fails (chainlit's CLI loads its whole server so). Tests importing a file say
/// nothing of how the package loads it.
pub(super) fn guarded<'a>(files: &'a [ScannedFile], entry: &[String]) -> HashMap<&'a str, String> {
    let files = PythonFiles::of(files);
    let (python, by_name) = (&files.files, &files.by_name);
    let packages = files.packages();
    let shipped = |i: usize| python[i].kind == ImportKind::Build;
    // Each file's imports of others: (file, the state the edge leaves — `None` passes the
    // importer's on —, line).
    let mut out: Vec<Vec<(usize, Option<State>, u32)>> = vec![Vec::new(); python.len()];
    let mut imported = vec![false; python.len()];
    for (from, f) in python.iter().enumerate().filter(|(i, _)| shipped(*i)) {
        for imp in f.imports.iter() {
            let Some(to) = packages.resolve(&f.path, &imp.name, by_name) else {
                continue;
            };
            // A handler's fallback or a `TYPE_CHECKING` import is optional, but guards no
            // load: it passes its importer's state on, as an unguarded one does.
            let how = match (imp.load_guarded, imp.in_function) {
                (true, _) => Some(State::Guarded),
                (_, true) => Some(State::Exposed),
                _ => None,
            };
            for to in packages.with_parents(to, &f.path, python) {
                if to != from && shipped(to) {
                    out[from].push((to, how, imp.line));
                    imported[to] = true;
                }
            }
        }
    }
    // An entry point's module and `__main__.py` load with their packages' `__init__.py`.
    let entry: HashSet<usize> = entry
        .iter()
        .filter_map(|e| by_name.get(e.as_str()).copied())
        .chain((0..python.len()).filter(|&i| python[i].path.ends_with("__main__.py")))
        .flat_map(|i| packages.with_parents(i, "", python))
        .collect();
    let mut state = vec![State::Unreached; python.len()];
    let mut by: Vec<Option<(usize, u32)>> = vec![None; python.len()];
    let mut queue = VecDeque::new();
    for (i, f) in python.iter().enumerate().filter(|(i, _)| shipped(*i)) {
        // A top-level module or package users import by its name.
        let top = !packages.is_package(split(&f.path).0)
            || (f.path.ends_with("/__init__.py")
                && !packages.is_package(split(split(&f.path).0).0));
        if !imported[i] || entry.contains(&i) || top {
            state[i] = State::Exposed;
            queue.push_back(i);
        }
    }
    loop {
        while let Some(from) = queue.pop_front() {
            for &(to, how, line) in &out[from] {
                let (s, via) = match how {
                    None => (state[from], by[from]),
                    Some(s) => (s, Some((from, line))),
                };
                if s > state[to] {
                    state[to] = s;
                    by[to] = via;
                    queue.push_back(to);
                }
            }
        }
        // Files that only import each other: nothing here says how they are loaded.
        for (i, s) in state.iter_mut().enumerate() {
            if shipped(i) && *s == State::Unreached {
                *s = State::Exposed;
                queue.push_back(i);
            }
        }
        if queue.is_empty() {
            break;
        }
    }
    (0..python.len())
        .filter(|&i| state[i] == State::Guarded)
        .filter_map(|i| {
            let (f, line) = by[i]?;
            Some((
                python[i].path.as_str(),
                format!("{}:{line}", python[f].path),
            ))
        })
        .collect()
}

/// The module's Python files that stand outside what it ships but that its shipped code
/// loads, directly or through one another: a Django project's `settings/` package beside its
/// own, which `wsgi.py` names as `DJANGO_SETTINGS_MODULE` and which runs with it, is shipped
/// code too. Only an import that runs when its file does is followed (not one in a function,
/// a guard or `if TYPE_CHECKING:`, which are optional — but the settings module Django loads
/// at start), and only into a package (a directory with `__init__.py`: a loose `tools/redis.py`
/// is no `import redis`). Not a test's, a doc's, an example's or a script's file (by its
/// path): shipped code importing one says nothing of what the file ships with. `prefix` is
/// the module's directory with its slash (`""` at the root).
pub(super) fn shipped_by_import<'a>(files: &'a [ScannedFile], prefix: &str) -> HashSet<&'a str> {
    if !(files.iter()).any(|f| f.language == Language::Python && f.kind == ImportKind::Dev) {
        return HashSet::new();
    }
    let python = PythonFiles::of(files);
    let packages = python.packages();
    let eligible = |i: usize| {
        let path = python.files[i].path.as_str();
        let rel = path.strip_prefix(prefix).unwrap_or(path);
        python.files[i].kind == ImportKind::Dev
            && packages.is_package(split(path).0)
            && !dev_named(rel)
    };
    let runs = |imp: &mesh_imports::Import| {
        (imp.kind == ImportKind::Build && !imp.in_function && !imp.load_guarded)
            || imp.text.contains("DJANGO_SETTINGS_MODULE")
    };
    let mut shipped: HashSet<usize> = HashSet::new();
    let mut queue: VecDeque<usize> = (0..python.files.len())
        .filter(|&i| python.files[i].kind == ImportKind::Build)
        .collect();
    while let Some(from) = queue.pop_front() {
        let importer = python.files[from].path.as_str();
        for imp in python.files[from].imports.iter().filter(|i| runs(i)) {
            let Some(to) = packages.resolve(importer, &imp.name, &python.by_name) else {
                continue;
            };
            for to in packages.with_parents(to, importer, &python.files) {
                if eligible(to) && shipped.insert(to) {
                    queue.push_back(to);
                }
            }
        }
    }
    (shipped.into_iter())
        .map(|i| python.files[i].path.as_str())
        .collect()
}

/// Whether a module-relative Python file is a test's, a doc's, an example's, a script's or
/// a tool's by its path: a directory one of whose words says test (`tests/`,
/// `integration_tests/`, `test_app/`), `e2e/`, a directory of files run by hand (`docs/`,
/// `examples/`, `scripts/`), or a name the tools give their files.
fn dev_named(rel: &str) -> bool {
    let (dirs, name) = split(rel);
    let stem = name.strip_suffix(".py").unwrap_or(name);
    super::doubt::by_hand(rel)
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || matches!(
            stem,
            "tests" | "conftest" | "setup" | "noxfile" | "tasks" | "fabfile" | "manage"
        )
        || (dirs.split('/'))
            .any(|d| matches!(d, "e2e" | "benchmarks") || mesh_imports::manifest::test_named(d))
}

/// A module's Python files (`.py`, not stubs), by path and by the dotted name each is
/// imported by.
struct PythonFiles<'a> {
    files: Vec<&'a ScannedFile>,
    paths: HashMap<&'a str, usize>,
    by_name: HashMap<String, usize>,
}

impl<'a> PythonFiles<'a> {
    fn of(all: &'a [ScannedFile]) -> PythonFiles<'a> {
        let files: Vec<&ScannedFile> = (all.iter())
            .filter(|f| f.language == Language::Python && f.path.ends_with(".py"))
            .collect();
        let paths: HashMap<&str, usize> = (files.iter().enumerate())
            .map(|(i, f)| (f.path.as_str(), i))
            .collect();
        let packages = Packages { paths: &paths };
        let by_name = (files.iter().enumerate())
            .filter_map(|(i, f)| Some((packages.dotted(&f.path)?, i)))
            .collect();
        PythonFiles {
            files,
            paths,
            by_name,
        }
    }

    fn packages(&self) -> Packages<'_> {
        Packages { paths: &self.paths }
    }
}

/// The module's Python files by path, read as packages: a directory with an `__init__.py`.
struct Packages<'p> {
    paths: &'p HashMap<&'p str, usize>,
}

impl Packages<'_> {
    /// Whether `dir` (repository-relative, `""` the top) is a package.
    fn is_package(&self, dir: &str) -> bool {
        self.paths.contains_key(join(dir, "__init__.py").as_str())
    }

    /// The dotted name a file is imported by: its stem below each enclosing package.
    fn dotted(&self, path: &str) -> Option<String> {
        let (mut dir, file) = split(path);
        let stem = file.strip_suffix(".py")?;
        let mut parts = match stem {
            "__init__" => Vec::new(),
            _ => vec![stem],
        };
        while !dir.is_empty() && self.is_package(dir) {
            let (up, last) = split(dir);
            parts.push(last);
            dir = up;
        }
        parts.reverse();
        (!parts.is_empty()).then(|| parts.join("."))
    }

    /// The file an import `name` of `importer` loads: a relative name from the importer's
    /// package, an absolute one by the dotted names of the module's files.
    fn resolve(
        &self,
        importer: &str,
        name: &str,
        by_name: &HashMap<String, usize>,
    ) -> Option<usize> {
        let rest = name.trim_start_matches('.');
        let dots = name.len() - rest.len();
        if dots == 0 {
            return by_name.get(name).copied();
        }
        let mut dir = split(importer).0;
        for _ in 1..dots {
            if dir.is_empty() {
                return None;
            }
            dir = split(dir).0;
        }
        let base = match rest {
            "" => dir.to_string(),
            _ => join(dir, &rest.replace('.', "/")),
        };
        let found = |p: &str| self.paths.get(p).copied();
        found(&format!("{base}.py")).or_else(|| found(&join(&base, "__init__.py")))
    }

    /// A file and the `__init__.py` of each package enclosing it, which loading it loads
    /// first — but those of packages enclosing the importer, which loading the importer
    /// loaded (`from pkg import x` inside `pkg` loads no `pkg/__init__.py` again).
    fn with_parents(&self, file: usize, importer: &str, python: &[&ScannedFile]) -> Vec<usize> {
        let encloses = |dir: &str| crate::source::is_below(importer, dir);
        let (mut dir, name) = split(&python[file].path);
        if name == "__init__.py" && encloses(dir) {
            return Vec::new();
        }
        let mut all = vec![file];
        while !dir.is_empty() && !encloses(dir) {
            match self.paths.get(join(dir, "__init__.py").as_str()) {
                Some(&init) => all.push(init),
                None => break,
            }
            dir = split(dir).0;
        }
        all
    }
}

/// A path's directory and last part.
fn split(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

fn join(dir: &str, name: &str) -> String {
    match dir {
        "" => name.to_string(),
        _ => format!("{dir}/{name}"),
    }
}

/// The modules a pyproject.toml's entry points name (`[project.scripts]`,
/// `[project.gui-scripts]`, `[project.entry-points.*]`, Poetry's `scripts` and `plugins`):
/// what they load, a program or a plugin host loads at start.
pub(super) fn entry_points(pyproject: Option<&toml::Table>) -> Vec<String> {
    fn table(v: Option<&toml::Value>) -> Option<&toml::Table> {
        v.and_then(|v| v.as_table())
    }
    let Some(t) = pyproject else {
        return Vec::new();
    };
    let project = table(t.get("project"));
    let poetry = table(t.get("tool")).and_then(|t| table(t.get("poetry")));
    let mut tables: Vec<&toml::Table> = Vec::new();
    if let Some(p) = project {
        tables.extend(table(p.get("scripts")));
        tables.extend(table(p.get("gui-scripts")));
        let groups = table(p.get("entry-points")).into_iter();
        tables.extend(groups.flat_map(|g| g.values().filter_map(|v| v.as_table())));
    }
    if let Some(p) = poetry {
        tables.extend(table(p.get("scripts")));
        let groups = table(p.get("plugins")).into_iter();
        tables.extend(groups.flat_map(|g| g.values().filter_map(|v| v.as_table())));
    }
    tables
        .iter()
        .flat_map(|t| t.values())
        .filter_map(|v| match v {
            toml::Value::String(s) => Some(s.as_str()),
            toml::Value::Table(t) => t.get("reference").and_then(|r| r.as_str()),
            _ => None,
        })
        .map(|s| s.split(':').next().unwrap_or(s).trim().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, kind: ImportKind, src: &str) -> ScannedFile {
        let scan = mesh_imports::scan_file(Language::Python, src);
        ScannedFile {
            path: path.to_string(),
            language: Language::Python,
            kind,
            imports: scan.imports,
            rust_macros: None,
        }
    }

    #[test]
    fn files_shipped_code_imports_ship_with_it() {
        use ImportKind::{Build, Dev};
        let files = [
            file(
                "app/wsgi.py",
                Build,
                "import os\nos.environ.setdefault(\"DJANGO_SETTINGS_MODULE\", \"settings.main\")\nfrom tests import helpers\n",
            ),
            file("app/__init__.py", Build, ""),
            file(
                "app/core.py",
                Build,
                "import inspect\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from devtools.strategies import S\n\n\ndef f():\n    from devtools import more\n",
            ),
            file("settings/__init__.py", Dev, ""),
            file(
                "settings/main.py",
                Dev,
                "from .globals import *\ntry:\n    from .local import *\nexcept ImportError:\n    pass\n",
            ),
            file("settings/globals.py", Dev, "import axes\n"),
            file("settings/local.py", Dev, "import debug_toolbar\n"),
            file("tests/__init__.py", Dev, ""),
            file("tests/helpers.py", Dev, ""),
            // A loose file is no package's module; a type checker's import and a function's
            // load nothing at start.
            file("tools/inspect.py", Dev, "import pkginfo\n"),
            file("devtools/__init__.py", Dev, ""),
            file("devtools/strategies.py", Dev, "import hypothesis\n"),
            file("devtools/more.py", Dev, "import hypothesis\n"),
        ];
        let mut got: Vec<&str> = shipped_by_import(&files, "").into_iter().collect();
        got.sort();
        assert_eq!(
            got,
            [
                "settings/__init__.py",
                "settings/globals.py",
                "settings/main.py"
            ]
        );
    }

    fn reached(files: &[ScannedFile], entry: &[&str]) -> Vec<(String, String)> {
        let entry: Vec<String> = entry.iter().map(|e| e.to_string()).collect();
        let mut all: Vec<(String, String)> = guarded(files, &entry)
            .into_iter()
            .map(|(p, by)| (p.to_string(), by))
            .collect();
        all.sort();
        all
    }

    fn pairs(all: &[(&str, &str)]) -> Vec<(String, String)> {
        all.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn a_guard_carries_across_files() {
        let b = ImportKind::Build;
        let files = [
            file(
                "pkg/__init__.py",
                b,
                "from .core import run\nfrom . import extras\n",
            ),
            file("pkg/core.py", b, "import json\nfrom pkg import extras\n"),
            file(
                "pkg/extras/__init__.py",
                b,
                "from pkg.extras import torch\n",
            ),
            // A guarded import of the package's top from inside leaves it loaded at start.
            file(
                "pkg/extras/other.py",
                b,
                "try:\n    import pkg\n    from pkg import core\nexcept ImportError:\n    pass\n",
            ),
            file(
                "pkg/extras/torch/__init__.py",
                b,
                "try:\n    import torch\n    ok = True\nexcept ImportError:\n    ok = False\nif ok:\n    from .checkpoint import Checkpoint\n",
            ),
            file(
                "pkg/extras/torch/checkpoint.py",
                b,
                "import torch\nfrom . import util\n",
            ),
            file("pkg/extras/torch/util.py", b, "import numpy\n"),
            file(
                "tests/test_core.py",
                ImportKind::Dev,
                "from pkg.extras.torch import util\n",
            ),
        ];
        assert_eq!(
            reached(&files, &[]),
            pairs(&[
                (
                    "pkg/extras/torch/checkpoint.py",
                    "pkg/extras/torch/__init__.py:7"
                ),
                ("pkg/extras/torch/util.py", "pkg/extras/torch/__init__.py:7"),
            ])
        );
    }

    #[test]
    fn one_unguarded_chain_loads_a_file_unguarded() {
        let b = ImportKind::Build;
        let files = [
            file("pkg/__init__.py", b, "from . import a, b\n"),
            file(
                "pkg/a.py",
                b,
                "try:\n    from .c import x\nexcept ImportError:\n    x = None\n",
            ),
            file("pkg/b.py", b, "from .c import y\n"),
            file("pkg/c.py", b, "import yaml\n"),
            // Only a guard imports it, but an entry point names it.
            file("pkg/cli.py", b, "import click\n"),
            file(
                "pkg/main.py",
                b,
                "try:\n    from pkg import cli\nexcept ImportError:\n    pass\n",
            ),
            // Two files that only import each other.
            file("pkg/x.py", b, "from .y import q\n"),
            file(
                "pkg/y.py",
                b,
                "try:\n    from .x import p\nexcept ImportError:\n    pass\n",
            ),
        ];
        assert_eq!(reached(&files, &["pkg.cli"]), []);
    }

    #[test]
    fn fallbacks_type_checking_top_packages_and_entry_packages_are_unguarded() {
        let b = ImportKind::Build;
        let files = [
            file(
                "pkg/__init__.py",
                b,
                "try:\n    from ._speedups import x\nexcept ImportError:\n    from ._pure import x\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .types import T\ntry:\n    import other\nexcept ImportError:\n    other = None\n",
            ),
            file("pkg/_speedups.py", b, "import cffi\n"),
            file("pkg/_pure.py", b, "import six\n"),
            file("pkg/types.py", b, "import attrs\n"),
            // A second top-level package, which users import by name.
            file("other/__init__.py", b, "import yaml\n"),
            // An entry point's package loads with it.
            file(
                "pkg/tools/__init__.py",
                b,
                "try:\n    from . import cli\nexcept ImportError:\n    cli = None\n",
            ),
            file("pkg/tools/cli.py", b, "import click\n"),
            file(
                "pkg/plugins/__init__.py",
                b,
                "try:\n    from . import gpu\nexcept ImportError:\n    gpu = None\n",
            ),
            file("pkg/plugins/gpu.py", b, "import torch\n"),
        ];
        assert_eq!(
            reached(&files, &["pkg.tools.cli"]),
            pairs(&[
                ("pkg/_speedups.py", "pkg/__init__.py:2"),
                ("pkg/plugins/gpu.py", "pkg/plugins/__init__.py:2"),
            ])
        );
    }

    #[test]
    fn a_call_after_a_guard_is_unguarded() {
        let b = ImportKind::Build;
        let files = [
            file(
                "pkg/__init__.py",
                b,
                "try:\n    from . import opt\nexcept ImportError:\n    opt = None\n",
            ),
            file("pkg/opt.py", b, "def f():\n    from . import late\n"),
            file("pkg/late.py", b, "import pandas\n"),
        ];
        assert_eq!(
            reached(&files, &[]),
            pairs(&[("pkg/opt.py", "pkg/__init__.py:2")])
        );
    }

    #[test]
    fn entry_points_name_modules() {
        let t: toml::Table = toml::from_str(
            "[project.scripts]\na = \"pkg.cli:main\"\n[project.entry-points.'x.plugins']\nb = \"pkg.plug\"\n[tool.poetry.scripts]\nc = { reference = \"pkg.tool:run\", type = \"console\" }\n",
        )
        .expect("toml");
        let mut got = entry_points(Some(&t));
        got.sort();
        assert_eq!(got, ["pkg.cli", "pkg.plug", "pkg.tool"]);
    }
}
