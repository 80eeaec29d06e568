//! Resolution: which module each import names. Longest provided prefix by path segment; a
//! relative path landing in another module's directory; ambiguity means an edge to every
//! candidate, because staleness must over-approximate and never miss.

use super::{Language, ScannedFile};
use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// What resolution needs to know about one module.
pub struct ModuleImports<'a> {
    /// The module's name.
    pub name: &'a str,
    /// Which repository it is in (an index; relative imports stay within a repository).
    pub repo: usize,
    /// Its directory, repo-relative.
    pub dir: &'a str,
    /// Names it provides.
    pub provides: &'a [(Language, String)],
    /// Rust renames: (name in code, crate name).
    pub renames: &'a [(String, String)],
    /// `[imports] ignore` patterns.
    pub ignore: &'a [String],
    /// Its scanned source files.
    pub files: &'a [ScannedFile],
}

/// One import line that makes a build edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// Repo-relative file.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// The import as written.
    pub import: String,
}

/// Build edges (from, to) by module index with their evidence, and warnings.
#[derive(Debug, Default)]
pub struct Resolution {
    /// (importer, imported) → the import lines that make the edge.
    pub edges: BTreeMap<(usize, usize), Vec<Evidence>>,
    /// Ambiguities and other things a person should know.
    pub warnings: Vec<String>,
}

/// Resolves every import of every module.
pub fn resolve(modules: &[ModuleImports]) -> Resolution {
    let mut providers: HashMap<(Language, &str), Vec<usize>> = HashMap::new();
    for (i, m) in modules.iter().enumerate() {
        for (lang, name) in m.provides {
            let v = providers.entry((*lang, name.as_str())).or_default();
            if !v.contains(&i) {
                v.push(i);
            }
        }
    }
    let mut res = Resolution::default();
    let mut ambiguous: Vec<_> = providers.iter().filter(|(_, v)| v.len() > 1).collect();
    ambiguous.sort_by_key(|((lang, name), _)| (format!("{lang:?}"), *name));
    for ((lang, name), v) in ambiguous {
        let names: Vec<&str> = v.iter().map(|&i| modules[i].name).collect();
        res.warnings.push(format!(
            "modules {} all provide the {lang:?} name `{name}`: an import of it makes a build edge to each",
            names.join(", ")
        ));
    }
    let dirs: HashMap<(usize, &str), usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| ((m.repo, m.dir), i))
        .collect();

    for (from, m) in modules.iter().enumerate() {
        let ignore = globs(m.ignore);
        for file in m.files {
            for imp in &file.imports {
                if ignore.is_match(&imp.name) {
                    continue;
                }
                let targets: Vec<usize> = if is_relative(&imp.name) {
                    relative_target(&dirs, m.repo, &file.path, &imp.name)
                        .into_iter()
                        .collect()
                } else {
                    let name = match file.language {
                        Language::Rust => rename(m.renames, &imp.name),
                        _ => imp.name.clone(),
                    };
                    longest_prefix(&providers, file.language, &name)
                };
                for to in targets.into_iter().filter(|&to| to != from) {
                    let ev = Evidence {
                        file: file.path.clone(),
                        line: imp.line,
                        import: imp.text.clone(),
                    };
                    let list = res.edges.entry((from, to)).or_default();
                    if !list.contains(&ev) {
                        list.push(ev);
                    }
                }
            }
        }
    }
    res
}

fn globs(patterns: &[String]) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        // Patterns were validated when the manifest was parsed.
        if let Ok(g) = Glob::new(p) {
            b.add(g);
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

fn is_relative(name: &str) -> bool {
    name == "." || name == ".." || name.starts_with("./") || name.starts_with("../")
}

/// Rust code names a crate by its local name; `Cargo.toml` may rename it.
fn rename(renames: &[(String, String)], name: &str) -> String {
    renames
        .iter()
        .find(|(local, _)| local == name)
        .map_or_else(|| name.to_string(), |(_, krate)| krate.clone())
}

/// The providers of the longest prefix of `name` (by segments) in `lang`.
fn longest_prefix(
    providers: &HashMap<(Language, &str), Vec<usize>>,
    lang: Language,
    name: &str,
) -> Vec<usize> {
    let sep = lang.separator();
    let segments: Vec<&str> = name.split(sep).collect();
    for n in (1..=segments.len()).rev() {
        let prefix = segments[..n].join(sep);
        if let Some(v) = providers.get(&(lang, prefix.as_str())) {
            return v.clone();
        }
    }
    Vec::new()
}

/// The module owning the path a relative import lands on, in the same repository.
fn relative_target(
    dirs: &HashMap<(usize, &str), usize>,
    repo: usize,
    file: &str,
    spec: &str,
) -> Option<usize> {
    let mut parts: Vec<&str> = file.split('/').collect();
    parts.pop();
    for seg in spec.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    loop {
        let dir = parts.join("/");
        if let Some(&i) = dirs.get(&(repo, dir.as_str())) {
            return Some(i);
        }
        parts.pop()?;
    }
}
