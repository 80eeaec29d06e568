//! The repository's own names an import may be: the Python modules at the top of some
//! directory, its namespace directories, and every directory a JS alias may reach. An
//! undeclared import named like one is unsure (see [`super::doubt::undeclared`]).

use super::doubt::by_hand;
use crate::source::{self, RepoSnapshot, SourceError};
use mesh_imports::Language;
use std::collections::{HashMap, HashSet};

/// Where a repository's own modules could be imported from by a bare name: the Python modules
/// that stand at the top of some directory (a `.py` file or a package, whose parent is no
/// package), which a `sys.path` entry or a runner's roots make importable — and the namespace
/// directories there (`.py` files, no `__init__.py`), which only a dotted name reaches through
/// (`import azure.core` needs `azure/core`); and every directory, which a JS bundler alias or a
/// `baseUrl` makes importable from the module that holds it.
#[derive(Default)]
pub(super) struct LocalNames {
    /// Python top-level module or package name (lowercase) → its first path (in path order).
    python: HashMap<String, String>,
    /// Python top-level namespace directory name (lowercase) → its paths, in order.
    namespaces: HashMap<String, Vec<String>>,
    /// Every directory of the repository, and every `.py` file without its extension.
    paths: HashSet<String>,
    /// Every Python package's directory (one with an `__init__.py`).
    packages: HashSet<String>,
    /// Every `.py` file, without its extension.
    modules: HashSet<String>,
    /// The names a package of the mesh provides (lowercase): an import of one is a phantom
    /// dependency, a fact.
    provided: HashSet<String>,
}

impl LocalNames {
    /// The local names of `snap`'s tree, less those a package of the mesh provides
    /// (`provided`, lowercase): an import of one of those is a phantom dependency, a fact.
    pub(super) fn read(
        snap: &RepoSnapshot,
        provided: &HashSet<String>,
    ) -> Result<LocalNames, SourceError> {
        let files = source::module_files(snap, "", snap.tree, &[])?;
        let parent = |p: &str| p.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        let mut packages = HashSet::new();
        let mut py_dirs = HashSet::new();
        let mut paths = HashSet::new();
        let mut py_modules = HashSet::new();
        for f in &files {
            let mut d = parent(&f.path);
            while !d.is_empty() && paths.insert(d.clone()) {
                d = parent(&d);
            }
            if let Some(stem) = f.path.strip_suffix(".py") {
                py_dirs.insert(parent(&f.path));
                if stem.ends_with("/__init__") || stem == "__init__" {
                    packages.insert(parent(&f.path));
                } else {
                    paths.insert(stem.to_string());
                    py_modules.insert(stem.to_string());
                }
            }
        }
        let name_of = |p: &str| p.rsplit('/').next().unwrap_or(p).to_ascii_lowercase();
        let mut names = LocalNames::default();
        // (the module's path without `.py`, the path to show)
        let modules = files
            .iter()
            .filter_map(|f| Some((f.path.strip_suffix(".py")?, f.path.as_str())))
            .filter(|(stem, _)| !stem.ends_with("__init__"))
            .map(|(stem, path)| (stem.to_string(), path.to_string()))
            .chain(packages.iter().map(|d| (d.clone(), d.clone())));
        for (module, path) in modules {
            let name = name_of(&module);
            if !module.is_empty()
                && !packages.contains(&parent(&module))
                && !provided.contains(&name)
            {
                // The first path in order, whatever order the sets above give.
                let first = names.python.entry(name).or_insert_with(|| path.clone());
                if path < *first {
                    *first = path;
                }
            }
        }
        for d in py_dirs
            .iter()
            .filter(|d| !d.is_empty() && !packages.contains(*d))
        {
            let name = name_of(d);
            if !packages.contains(&parent(d)) && !provided.contains(&name) {
                names.namespaces.entry(name).or_default().push(d.clone());
            }
        }
        for dirs in names.namespaces.values_mut() {
            dirs.sort();
        }
        names.paths = paths;
        names.packages = packages;
        names.modules = py_modules;
        names.provided = provided.clone();
        Ok(names)
    }

    /// The file or directory in the directory of `file` (repository-relative) named as the
    /// Python import `key` begins, but `file` itself: what the import loads when the file
    /// runs with its directory on `sys.path` — as a script or a test does, in a directory
    /// that is no package or one of files run by hand (a package's own module imports a
    /// distribution by its bare name: ragas' `integrations/langchain.py` imports
    /// `langsmith` beside `integrations/langsmith.py`).
    pub(super) fn beside(&self, key: &str, file: &str) -> Option<String> {
        let top = key.split('.').next()?.to_ascii_lowercase();
        let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
        if (self.packages.contains(dir) && !by_hand(file)) || self.provided.contains(&top) {
            return None;
        }
        let path = source::join(dir, &top);
        let own = file
            .strip_suffix(".py")
            .unwrap_or(file)
            .to_ascii_lowercase();
        // A module or a regular package: a directory without `__init__.py` is a namespace
        // portion, which an installed package of the name comes before.
        let module = self.modules.contains(&path) || self.packages.contains(&path);
        (path != own && module).then_some(path)
    }

    /// The local module a bare import of `key` (a Python dotted name, a JS package) by a file
    /// of the module at `dir` may be, if any.
    pub(super) fn at(&self, key: &str, lang: Language, dir: &str) -> Option<String> {
        match lang {
            Language::Python => {
                let key = key.to_ascii_lowercase();
                let mut parts = key.split('.');
                let top = parts.next()?;
                if let Some(p) = self.python.get(top) {
                    return Some(p.clone());
                }
                let next = parts.next()?;
                self.namespaces
                    .get(top)?
                    .iter()
                    .map(|ns| format!("{ns}/{next}"))
                    .find(|p| self.paths.contains(p))
            }
            _ => [
                source::join(dir, key),
                source::join(dir, &format!("src/{key}")),
            ]
            .into_iter()
            .find(|d| self.paths.contains(d)),
        }
    }
}
