//! An application's dependencies kept in `requirements.txt` beside a pyproject.toml that
//! declares none: plane's Django API keeps a `[project]` for its tools only, and its image
//! runs `pip install -r requirements.txt`, which includes `requirements/production.txt`, which
//! includes `base.txt`. Those files are its declarations; the other files of a requirements
//! directory are the environments its developers install.

use super::declared::{self, Declared, Scope};
use super::python_env;
use crate::source::{self, ModuleSource, RepoSnapshot, SourceError, blob_text};

/// What an application's requirements files declare.
#[derive(Default)]
pub(super) struct AppRequirements {
    /// Its declarations: the chain's for shipping, the requirements directory's other files'
    /// for development (never unused).
    pub(super) decls: Vec<Declared>,
    /// The chain's files, repo-relative: what `pip install -r requirements.txt` reads.
    pub(super) files: Vec<String>,
}

/// Names of files a requirements directory may hold that are no requirements.
const PROSE: &[&str] = &[
    "readme",
    "license",
    "licence",
    "notice",
    "changelog",
    "authors",
];

/// Reads module `m`'s `requirements.txt` and what its `-r` lines include (paths relative to
/// each file, anywhere in the repository, as pip reads them), and the other requirements
/// files beside the included ones in a directory of their own. Nothing when there is no
/// `requirements.txt` or it names no distribution (`-e .[dev]` installs the pyproject's).
pub(super) fn read(snap: &RepoSnapshot, m: &ModuleSource) -> Result<AppRequirements, SourceError> {
    let root = snap.root_tree()?;
    let mut out = AppRequirements::default();
    let mut queue = vec![(source::join(&m.dir, "requirements.txt"), 0)];
    while let Some((file, depth)) = queue.pop() {
        if out.files.contains(&file) {
            continue;
        }
        let Some(text) = blob_text(snap, &root, &file)? else {
            continue;
        };
        out.decls
            .extend(declarations(m, &file, &text, Scope::Normal));
        let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
        for rel in python_env::included_files(&text) {
            match mesh_imports::repo_path(&[dir, &rel]) {
                Some(p) if depth < python_env::MAX_INCLUDE_DEPTH => queue.push((p, depth + 1)),
                _ => {}
            }
        }
        out.files.push(file);
    }
    if out.decls.is_empty() {
        return Ok(AppRequirements::default());
    }
    // The directories of included files below the module's (`requirements/`): the module's
    // own directory holds more than requirements.
    let dirs: std::collections::BTreeSet<&str> = (out.files.iter())
        .filter_map(|f| f.rsplit_once('/').map(|(d, _)| d))
        .filter(|d| *d != m.dir)
        .collect();
    let mut dev = Vec::new();
    for dir in dirs {
        let Some(tree) = snap.dir_tree(dir)? else {
            continue;
        };
        for name in source::file_names(snap, &tree)? {
            let file = source::join(dir, &name);
            let stem = name.split('.').next().unwrap_or("").to_ascii_lowercase();
            if !(name.ends_with(".txt") || name.ends_with(".in"))
                || PROSE.contains(&stem.as_str())
                || out.files.contains(&file)
            {
                continue;
            }
            if let Some(text) = blob_text(snap, &root, &file)? {
                dev.extend(
                    declarations(m, &file, &text, Scope::Dev)
                        .into_iter()
                        .map(|d| Declared {
                            indirect: true,
                            ..d
                        }),
                );
            }
        }
    }
    out.decls.extend(dev);
    Ok(out)
}

/// The declarations of the requirements file `file` (repo-relative) for module `m`: at its
/// module-relative path, or at its own directory when it lies outside the module.
fn declarations(m: &ModuleSource, file: &str, text: &str, scope: Scope) -> Vec<Declared> {
    let inside = m.dir.is_empty() || source::is_below(file, &m.dir);
    let (elsewhere, rel) = match inside {
        true => (None, source::relative(file, &m.dir)),
        false => {
            let (dir, name) = file.rsplit_once('/').unwrap_or(("", file));
            (Some(dir.to_string()), name)
        }
    };
    declared::requirements_file(rel, text, scope)
        .into_iter()
        .map(|d| Declared {
            elsewhere: elsewhere.clone(),
            ..d
        })
        .collect()
}
