//! Resolution: which module each import names. Longest provided prefix by path segment; a
//! relative path landing in another module's directory; ambiguity means an edge to every
//! candidate, because staleness must over-approximate and never miss.

use super::ScannedFile;
use super::lex::{Import, ImportKind, Language};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

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
    /// Its `tsconfig.json` `paths` aliases: (pattern, repo-relative target), each with at
    /// most one `*` (see [`super::tsconfig`]).
    pub js_paths: &'a [(String, String)],
}

/// One import line that makes a build edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// Repo-relative file.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// The import as written.
    pub import: String,
    /// Where it stands: build, dev or optional code.
    pub kind: ImportKind,
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
    let providers = providers(modules);
    let warnings = ambiguity_warnings(&providers, modules);
    let edges = edges(modules, &providers);
    Resolution {
        edges: edges.into_iter().collect(),
        warnings,
    }
}

/// Every provided name, with the modules providing it (each once, in module order).
fn providers<'a>(modules: &[ModuleImports<'a>]) -> Providers<'a> {
    let mut providers: Providers = HashMap::default();
    for (i, m) in modules.iter().enumerate() {
        for (lang, name) in m.provides {
            let v = providers.entry((*lang, name.as_str())).or_default();
            if !v.contains(&i) {
                v.push(i);
            }
        }
    }
    providers
}

/// A warning for each name several modules provide (an import of it makes an edge to each),
/// ordered by language and name so the output is stable.
fn ambiguity_warnings(providers: &Providers, modules: &[ModuleImports]) -> Vec<String> {
    let mut ambiguous: Vec<_> = providers.iter().filter(|(_, v)| v.len() > 1).collect();
    ambiguous.sort_by_key(|((lang, name), _)| (format!("{lang:?}"), *name));
    ambiguous
        .into_iter()
        .map(|((lang, name), v)| {
            let names: Vec<&str> = v.iter().map(|&i| modules[i].name).collect();
            format!(
                "modules {} all provide the {lang:?} name `{name}`: an import of it makes a build edge to each",
                names.join(", ")
            )
        })
        .collect()
}

/// The build edges every import makes, with their evidence; hashed while collecting (one
/// lookup per resolved import), ordered once by the caller.
fn edges(
    modules: &[ModuleImports],
    providers: &Providers,
) -> FxHashMap<(usize, usize), Vec<Evidence>> {
    let dirs: HashMap<(usize, &str), usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| ((m.repo, m.dir), i))
        .collect();
    // Separator positions of the name being looked up, reused for every import.
    let mut cuts = Vec::new();
    let mut edges: FxHashMap<(usize, usize), Vec<Evidence>> = HashMap::default();
    // The edges only an exported macro's body makes, added last (see below).
    let mut exported: FxHashMap<(usize, usize), Vec<Evidence>> = HashMap::default();
    for (from, m) in modules.iter().enumerate() {
        // Most modules ignore nothing: no glob set, no candidate per import.
        let ignore = (!m.ignore.is_empty()).then(|| crate::globs(m.ignore, false));
        for file in m.files {
            for imp in file.imports.iter() {
                // A rustdoc link is read by drift; docs make no build edge.
                // Nor does code written for other crates (a `quote!` body): theirs to build.
                if imp.in_doc_link || (imp.generated && !imp.in_macro) {
                    continue;
                }
                // A Python relative import stays inside its package, which is this module's.
                if file.language == Language::Python && imp.name.starts_with('.') {
                    continue;
                }
                if let Some(ignore) = &ignore
                    && ignore.is_match(&imp.name)
                {
                    continue;
                }
                let relative;
                let aliased = match file.language {
                    Language::Js => super::tsconfig::apply(m.js_paths, &imp.name),
                    _ => None,
                };
                let targets: &[usize] = if let Some(path) = aliased {
                    // A `paths` alias names a path in the repository, as a relative import does.
                    relative = owning_module(&dirs, m.repo, &path);
                    relative.as_slice()
                } else if is_relative(&imp.name) {
                    relative = relative_target(&dirs, m.repo, &file.path, &imp.name);
                    relative.as_slice()
                } else {
                    let name = match file.language {
                        Language::Rust => rename(m.renames, &imp.name),
                        _ => &imp.name,
                    };
                    longest_prefix(providers, file.language, name, &mut cuts)
                };
                // A name the importing module itself provides is its own: a self-import,
                // whoever else provides it too.
                if targets.contains(&from) {
                    continue;
                }
                let into = match imp.generated {
                    true => &mut exported,
                    false => &mut edges,
                };
                for &to in targets {
                    add_evidence(into.entry((from, to)).or_default(), file, imp);
                }
            }
        }
    }
    // An exported macro's body is written for its callers, and the crate may expand it
    // itself: its path is an edge unless the crate it names depends on this one already
    // (leptos_dom's `tracing_props!` names `::leptos`, which depends on leptos_dom): Cargo
    // forbids that cycle, so the path is the callers'.
    let mut pending: Vec<((usize, usize), Vec<Evidence>)> = exported.into_iter().collect();
    pending.sort_by_key(|(k, _)| *k);
    for ((from, to), evidence) in pending {
        if reaches(&edges, to, from) {
            continue;
        }
        edges.entry((from, to)).or_default().extend(evidence);
    }
    edges
}

/// Whether module `to` is reached from module `from` along `edges`.
fn reaches(edges: &FxHashMap<(usize, usize), Vec<Evidence>>, from: usize, to: usize) -> bool {
    let mut seen = vec![from];
    let mut todo = vec![from];
    while let Some(at) = todo.pop() {
        if at == to {
            return true;
        }
        for &(a, b) in edges.keys() {
            if a == at && !seen.contains(&b) {
                seen.push(b);
                todo.push(b);
            }
        }
    }
    false
}

/// Adds an import line to an edge's evidence unless this file already gave the same line.
/// Its kind is the weaker of the import's and its file's.
fn add_evidence(list: &mut Vec<Evidence>, file: &ScannedFile, imp: &Import) {
    // One file's evidence for an edge is contiguous at the end of its list (files are resolved
    // one after another), so a repeat can only be there.
    let seen = list
        .iter()
        .rev()
        .take_while(|e| e.file == file.path)
        .any(|e| e.line == imp.line && e.import == imp.text);
    if !seen {
        list.push(Evidence {
            file: file.path.clone(),
            line: imp.line,
            import: imp.text.clone(),
            kind: imp.kind.min(file.kind),
        });
    }
}

/// A hash map with [`FxHasher`].
type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Provided names → the modules providing them.
type Providers<'a> = FxHashMap<(Language, &'a str), Vec<usize>>;

/// Whether an import names a path relative to its file (`./x`, `../y`), not a package.
fn is_relative(name: &str) -> bool {
    name == "." || name == ".." || name.starts_with("./") || name.starts_with("../")
}

/// Rust code names a crate by its local name; `Cargo.toml` may rename it.
fn rename<'a>(renames: &'a [(String, String)], name: &'a str) -> &'a str {
    renames
        .iter()
        .find(|(local, _)| local == name)
        .map_or(name, |(_, krate)| krate.as_str())
}

/// The providers of the longest prefix of `name` (by segments) in `lang`. The prefixes are
/// borrowed slices of `name`, longest first; `cuts` is scratch space for the separator positions.
fn longest_prefix<'p>(
    providers: &'p Providers<'_>,
    lang: Language,
    name: &'p str,
    cuts: &mut Vec<usize>,
) -> &'p [usize] {
    separators(name, lang.separator(), cuts);
    cuts.push(name.len());
    cuts.iter()
        .rev()
        .find_map(|&end| providers.get(&(lang, &name[..end])))
        .map_or(&[], Vec::as_slice)
}

/// The byte positions of `sep` in `name` into `out` (cleared first), left to right and not
/// overlapping, exactly where `split(sep)` cuts (a run such as ":::" cuts after the first
/// "::"). A plain byte loop: names are short and `str::match_indices` sets up a two-way
/// searcher per call.
fn separators(name: &str, sep: &str, out: &mut Vec<usize>) {
    out.clear();
    let (name, sep) = (name.as_bytes(), sep.as_bytes());
    let Some((&first, _)) = sep.split_first() else {
        return;
    };
    let mut i = 0;
    while i + sep.len() <= name.len() {
        if name[i] == first && name[i..].starts_with(sep) {
            out.push(i);
            i += sep.len();
        } else {
            i += 1;
        }
    }
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

/// The module owning the repo-relative `path`: the nearest module directory at or above it.
fn owning_module(dirs: &HashMap<(usize, &str), usize>, repo: usize, path: &str) -> Option<usize> {
    crate::ancestors(path.trim_matches('/')).find_map(|at| dirs.get(&(repo, at)).copied())
}

/// A small, fast, non-cryptographic hasher (the multiply-rotate scheme of rustc's FxHash) for
/// the lookups done several times per import (short names, pairs of indices); nothing here is attacker-chosen in a way that matters to a local CLI.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl FxHasher {
    const K: u64 = 0xf135_7aea_2e62_a9c5;

    fn add(&mut self, word: u64) {
        self.0 = self.0.wrapping_add(word).wrapping_mul(Self::K);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 56));
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn providers<'a>(names: &'a [(Language, &'a str)]) -> Providers<'a> {
        let mut p: Providers = HashMap::default();
        for (i, (lang, name)) in names.iter().enumerate() {
            p.entry((*lang, *name)).or_default().push(i);
        }
        p
    }

    #[test]
    fn longest_prefix_by_segments() {
        let names = [
            (Language::Go, "example.com/a"),
            (Language::Go, "example.com/a/b"),
            (Language::Rust, "foo"),
            (Language::Python, "pkg"),
            (Language::Go, ""),
        ];
        let p = providers(&names);
        let mut cuts = Vec::new();
        let mut lp = |lang, name| longest_prefix(&p, lang, name, &mut cuts).to_vec();
        assert_eq!(lp(Language::Go, "example.com/a/b/c"), [1]);
        assert_eq!(lp(Language::Go, "example.com/a/bc"), [0]);
        assert_eq!(lp(Language::Go, "example.com/a"), [0]);
        // Whole segments only; the empty name is a prefix only of names starting with a cut.
        assert_eq!(lp(Language::Go, "example.com/ab"), Vec::<usize>::new());
        assert_eq!(lp(Language::Go, "/x"), [4]);
        assert_eq!(lp(Language::Rust, "foo::bar::baz"), [2]);
        assert_eq!(lp(Language::Rust, "foobar::baz"), Vec::<usize>::new());
        assert_eq!(lp(Language::Python, "pkg.sub.mod"), [3]);
        assert_eq!(lp(Language::Python, "pkgx.sub"), Vec::<usize>::new());
        // Not Rust's separator: the whole name is one segment.
        assert_eq!(lp(Language::Rust, "pkg.sub"), Vec::<usize>::new());
    }

    #[test]
    fn separators_cut_where_split_does() {
        let mut cuts = Vec::new();
        for (name, sep) in [
            ("a::b::c", "::"),
            ("a:::b", "::"),
            ("::a::", "::"),
            ("a::::b", "::"),
            ("", "::"),
            (":", "::"),
            ("x/y//z/", "/"),
            ("a.b.c", "."),
            ("abc", "."),
        ] {
            separators(name, sep, &mut cuts);
            let mut want = Vec::new();
            let mut at = 0;
            let mut parts = name.split(sep).peekable();
            while let Some(p) = parts.next() {
                at += p.len();
                if parts.peek().is_some() {
                    want.push(at);
                    at += sep.len();
                }
            }
            assert_eq!(cuts, want, "{name:?} split by {sep:?}");
        }
    }

    #[test]
    fn renames_borrow() {
        let renames = [("local".to_string(), "krate".to_string())];
        assert_eq!(rename(&renames, "local"), "krate");
        assert_eq!(rename(&renames, "other"), "other");
    }

    #[test]
    fn fx_hasher_differs_by_length_and_content() {
        let h = |b: &[u8]| {
            let mut s = FxHasher::default();
            s.write(b);
            s.finish()
        };
        assert_ne!(h(b"a"), h(b"a\0"));
        assert_ne!(h(b"abcdefgh"), h(b"abcdefgi"));
        assert_ne!(h(b""), h(b"\0"));
    }
}
