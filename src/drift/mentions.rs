//! The mentions reader: a dependency's name written in a config, a script or a string of
//! the module's code — where a tool or a loader takes it by name, which no import shows —
//! makes an unused finding unsure. Every readable file of a module with such a finding is
//! read, one module per core.

use super::{DriftKind, Finding};
use crate::source::{self, ModuleSource, RepoSnapshot, SourceError};
use gix::ObjectId;
use std::collections::HashMap;

/// Files that declare dependencies (or pin, or schedule their updates) rather than use them:
/// a name written there is no evidence of use.
const DECLARING: &[&str] = &[
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    "bun.lock",
    "bun.lockb",
    "deno.json",
    "deno.lock",
    "cargo.toml",
    "cargo.lock",
    "go.mod",
    "go.sum",
    "go.work",
    "go.work.sum",
    "setup.cfg",
    "setup.py",
    "pipfile",
    "pipfile.lock",
    "poetry.lock",
    "uv.lock",
    "pdm.lock",
    "environment.yml",
    "environment.yaml",
    "mesh-module.toml",
    "renovate.json",
    "renovate.json5",
    ".renovaterc",
    ".renovaterc.json",
    "dependabot.yml",
    "knip.json",
    "knip.jsonc",
    ".knip.json",
    ".knip.jsonc",
];

/// Prose: a name written there describes, it does not load.
const PROSE_EXTENSIONS: &[&str] = &[
    "md", "markdown", "rst", "txt", "adoc", "asciidoc", "rdoc", "org", "textile",
];

/// Prose files by name, whatever their extension.
const PROSE_NAMES: &[&str] = &[
    "readme",
    "changelog",
    "changes",
    "history",
    "news",
    "license",
    "licence",
    "notice",
    "authors",
    "contributors",
    "contributing",
    "copying",
    "codeowners",
];

/// Binary formats by extension: no name is written in them.
const BINARY_EXTENSIONS: &[&str] = &[
    "png", "gif", "jpg", "jpeg", "webp", "ico", "bmp", "tif", "tiff", "avif", "pdf", "zip", "gz",
    "tgz", "tar", "xz", "bz2", "zst", "7z", "jar", "war", "whl", "so", "dylib", "dll", "exe",
    "wasm", "woff", "woff2", "ttf", "otf", "eot", "mp3", "mp4", "mov", "webm", "wav", "ogg",
    "flac", "psd", "sqlite", "db", "pyc", "class", "o", "a", "parquet", "pkl", "npy", "npz",
    "onnx", "pt",
];

/// Larger files are data, not configs: not read for mentions.
const MENTION_LIMIT: u64 = 1 << 20;

/// What the mentions reader ([`mentions`]) reads for one module: its readable files, held,
/// with its repository opened anew for the thread that reads them.
pub(super) struct MentionJob {
    repo: gix::Repository,
    what: String,
    files: Vec<source::FileEntry>,
}

/// The [`MentionJob`] of module `m`, whose findings are `found`: none when no unused finding
/// is left to doubt.
pub(super) fn mention_job(
    snap: &RepoSnapshot,
    m: &ModuleSource,
    found: &[Finding],
) -> Result<Option<MentionJob>, SourceError> {
    if !found.iter().any(mentionable) {
        return Ok(None);
    }
    // Code that loads nothing by name is not read for a name: Rust's, for crates, Go's for
    // modules (see [`Mention::line`]). When every finding sought is of one such ecosystem,
    // its code files are not read at all — most of a Rust workspace's files.
    let mut sought = (found.iter())
        .filter(|f| mentionable(f))
        .map(|f| f.manifest.rsplit('/').next().unwrap_or(""));
    let first = sought.next().unwrap_or_default();
    let unread = match (first, sought.all(|e| e == first)) {
        ("Cargo.toml", true) => ".rs",
        ("go.mod", true) => ".go",
        _ => "",
    };
    // A blob a partial clone does not hold is not read (nothing to read it from).
    let files: Vec<_> = source::module_files(snap, &m.dir, m.tree, &m.nested)?
        .into_iter()
        .filter(|f| unread.is_empty() || !f.path.ends_with(unread))
        .filter(|f| readable(&f.path) && snap.repo.has_object(f.id))
        .collect();
    Ok(Some(MentionJob {
        repo: snap.repo.clone(),
        what: snap.name.clone(),
        files,
    }))
}

/// Whether the mentions reader looks for the finding's name: a sure unused one.
fn mentionable(f: &Finding) -> bool {
    f.kind == DriftKind::Unused && f.doubt.is_none()
}

/// A module's files read beside the reading thread rather than on it: as many as the scan
/// reads so.
const MANY_FILES: usize = 400;

/// Each job with the findings it reads for, on every core: a module's files apart from
/// another's, the next module's job to the first reader free — or, for one module of many
/// files (saleor's 4,600), its files matched on the other cores while one reads them.
pub(super) fn mentions_everywhere(
    mut jobs: Vec<(MentionJob, &mut Vec<Finding>)>,
) -> Result<(), SourceError> {
    let cores = crate::cores::cores();
    if let [(job, found)] = jobs.as_mut_slice()
        && cores > 1
        && job.files.len() > MANY_FILES
    {
        return mentions(job, found, cores - 1);
    }
    let threads = cores.min(jobs.len());
    if threads <= 1 {
        for (job, found) in jobs {
            mentions(&job, found, 0)?;
        }
        return Ok(());
    }
    let queue = std::sync::Mutex::new(jobs.into_iter());
    let results = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    loop {
                        let next = match queue.lock() {
                            Ok(mut q) => q.next(),
                            Err(_) => None,
                        };
                        let Some((job, found)) = next else {
                            return Ok(());
                        };
                        mentions(&job, found, 0)?;
                    }
                })
            })
            .collect();
        crate::cores::join_all(handles)
    });
    results.into_iter().collect()
}

/// Where a finding was first named: (the blob's place in the reading order, the path's
/// place among the blob's paths, the doubt it says).
type Named = (usize, usize, String);

/// Marks each unused finding in `found` whose name the module (`job`) writes outside its
/// manifests and prose: in a config, a script, or a string of its code — where a tool or a
/// loader takes it by name, which no import shows. The files are matched on `threads`
/// workers beside the reading thread, or on it when none; each finding gets the first place
/// that names it in the reading order, as one reader would find.
fn mentions(job: &MentionJob, found: &mut [Finding], threads: usize) -> Result<(), SourceError> {
    let wanted: Vec<usize> = (0..found.len())
        .filter(|&i| mentionable(&found[i]))
        .collect();
    let files = &job.files;
    let ids: Vec<_> = files.iter().map(|f| f.id).collect();
    let mut paths: HashMap<_, Vec<&str>> = HashMap::new();
    for f in files {
        paths.entry(f.id).or_default().push(f.path.as_str());
    }
    let sought: Vec<(usize, Mention)> = (wanted.iter())
        .map(|&i| (i, Mention::new(&found[i].dependency, &found[i].manifest)))
        .collect();
    // One pass over each file finds which dependencies it may name at all (any spelling, any
    // case): most files name none, and only those it may name are looked at closely.
    let mut owner = Vec::new();
    let mut spellings = Vec::new();
    for (k, (_, m)) in sought.iter().enumerate() {
        for n in &m.needles {
            owner.push(k);
            spellings.push(n.needle());
        }
    }
    let prefilter = aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(&spellings)
        .ok();
    // The first place each sought finding is named at so far: a later blob is not read for it.
    let first: Vec<std::sync::atomic::AtomicUsize> = (0..sought.len())
        .map(|_| std::sync::atomic::AtomicUsize::new(usize::MAX))
        .collect();
    let named_before = |k: usize, n: usize| first[k].load(std::sync::atomic::Ordering::Relaxed) < n;
    let read = |got: &mut HashMap<usize, Named>,
                n: usize,
                id: ObjectId,
                blob: &source::blobs::Blob| {
        let source::blobs::Blob::Data(data) = blob else {
            return;
        };
        if data[..data.len().min(8000)].contains(&0) {
            return;
        }
        let text = String::from_utf8_lossy(data);
        let mut named: Option<std::collections::HashSet<usize>> = None;
        let lower = std::cell::OnceCell::new();
        let mut here = std::collections::HashSet::new();
        for (p, path) in paths.get(&id).into_iter().flatten().enumerate() {
            let parts = config_parts(path, &text);
            // A manifest's parts are read back from its parsed form: looked at whole.
            let named = match (&parts, &prefilter) {
                (None, Some(ac)) => Some(&*named.get_or_insert_with(|| {
                    (ac.find_overlapping_iter(text.as_bytes()))
                        .map(|m| owner[m.pattern().as_usize()])
                        .collect()
                })),
                _ => None,
            };
            // An ESLint config is read whole for the short names of ESLint's packages, which
            // the prefilter does not seek (`"jest"` is any file's word).
            let eslint_config = is_legacy_eslintrc(path);
            for (k, (_, sought)) in sought.iter().enumerate() {
                let prefiltered = !(eslint_config && sought.eslint.is_some());
                if here.contains(&k)
                    || named_before(k, n)
                    || (prefiltered && named.is_some_and(|s| !s.contains(&k)))
                {
                    continue;
                }
                // Python names are sought in the lowercase text, others as written.
                let lower = match sought.python {
                    true => lower.get_or_init(|| text.to_ascii_lowercase()).as_str(),
                    false => "",
                };
                let at = match &parts {
                    // A manifest's own tool configs: `package.json`'s `"jest"`,
                    // `pyproject.toml`'s `[tool.pytest.ini_options]`.
                    Some(parts) => parts.iter().find_map(|(key, part)| {
                        let lower = part.to_ascii_lowercase();
                        sought
                            .line("config", part, &lower)
                            .map(|_| format!("in {path}'s {key}"))
                    }),
                    None => sought
                        .line(path, &text, lower)
                        .map(|line| format!("at {path}:{line}")),
                };
                if let Some(at) = at {
                    here.insert(k);
                    first[k].fetch_min(n, std::sync::atomic::Ordering::Relaxed);
                    let doubt = format!(
                        "named {at}, outside the declarations: a tool, a loader or a config may take it by name"
                    );
                    let earlier = got.get(&k).is_some_and(|(m, q, _)| (*m, *q) < (n, p));
                    if !earlier {
                        got.insert(k, (n, p, doubt));
                    }
                }
            }
        }
    };
    let more = |n: usize| (0..sought.len()).any(|k| !named_before(k, n));
    let got = source::blobs::read_beside(
        &job.repo,
        &job.what,
        (&ids, MENTION_LIMIT),
        threads,
        HashMap::new,
        read,
        more,
    )?;
    // Each finding's first place over every worker's.
    let mut best: HashMap<usize, Named> = HashMap::new();
    for (k, named) in got.into_iter().flatten() {
        let earlier = best
            .get(&k)
            .is_some_and(|(m, q, _)| (*m, *q) < (named.0, named.1));
        if !earlier {
            best.insert(k, named);
        }
    }
    for (k, (_, _, doubt)) in best {
        found[sought[k].0].doubt = Some(doubt);
    }
    Ok(())
}

/// Keys of a package.json that declare, pin or describe rather than configure a tool.
const PACKAGE_JSON_DECLARING: &[&str] = &[
    "name",
    "version",
    "description",
    "dependencies",
    "devDependencies",
    "peerDependencies",
    "peerDependenciesMeta",
    "optionalDependencies",
    "bundledDependencies",
    "bundleDependencies",
    "dependenciesMeta",
    "overrides",
    "resolutions",
    "pnpm",
    "catalog",
    "catalogs",
    "workspaces",
    "knip",
    "repository",
    "homepage",
    "bugs",
    "author",
    "contributors",
    "maintainers",
    "keywords",
    "license",
    "funding",
    "publishConfig",
    "packageManager",
    "engines",
];

/// The parts of a manifest that configure tools, as (where, text), for a package.json or a
/// pyproject.toml; `None` for any other file (read whole). The parts that declare
/// dependencies are left out: a name written there is the declaration, not a use.
fn config_parts(path: &str, text: &str) -> Option<Vec<(String, String)>> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name {
        "package.json" => {
            let map: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(text).unwrap_or_default();
            Some(
                map.into_iter()
                    .filter(|(k, _)| !PACKAGE_JSON_DECLARING.contains(&k.as_str()))
                    // The key too: `"jest": {…}` configures jest.
                    .map(|(k, v)| (format!("`\"{k}\"`"), format!("\"{k}\": {v}")))
                    .collect(),
            )
        }
        "pyproject.toml" => {
            let table: toml::Table = toml::from_str(text).unwrap_or_default();
            let Some(toml::Value::Table(tools)) = table.get("tool") else {
                return Some(Vec::new());
            };
            Some(
                tools
                    .iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "poetry" | "uv" | "pdm" | "deptry"))
                    .map(|(k, v)| {
                        let mut v = v.clone();
                        without_declarations(&mut v);
                        (format!("`[tool.{k}]`"), v.to_string())
                    })
                    .collect(),
            )
        }
        _ => None,
    }
}

/// `v` without the keys that declare what an environment installs (`dependencies`,
/// `extra-dependencies`, `requires`, `features`), at any depth.
fn without_declarations(v: &mut toml::Value) {
    match v {
        toml::Value::Table(t) => {
            t.retain(|k, _| !(k.contains("depend") || k.contains("requires") || k == "features"));
            t.iter_mut().for_each(|(_, v)| without_declarations(v));
        }
        toml::Value::Array(a) => a.iter_mut().for_each(without_declarations),
        _ => {}
    }
}

/// Whether a file may hold a mention: not a lockfile, a declaring file or prose.
fn readable(path: &str) -> bool {
    // A recorded HTTP exchange (vcrpy's and pytest-recording's `cassettes/`, nock's
    // `__recordings__`) is data a test replays, naming whatever a server said.
    if path
        .split('/')
        .any(|d| matches!(d, "cassettes" | "__recordings__" | "__snapshots__"))
    {
        return false;
    }
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or(&name);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    !(DECLARING.contains(&name.as_str())
        || PROSE_NAMES.contains(&stem)
        || PROSE_EXTENSIONS.contains(&ext)
        || BINARY_EXTENSIONS.contains(&ext)
        || name.starts_with("requirements")
        || name.starts_with("constraints"))
}

/// What names a dependency: made once per dependency and asked of every file, it finds
/// the line of `text` (the file at `path`) that names the dependency `dep` (declared in
/// `manifest`) as a whole word: in a config or script, anywhere; in code of its own
/// ecosystem, only as the start of a string (`"babel-loader"`, `'pytest_asyncio'`), since its
/// code's imports were read already and a word in a comment is no use. Rust's and Go's code
/// loads no crate or module by name, so theirs is not read at all.
struct Mention {
    /// The manifest's file name: which ecosystem's code may load it by name.
    ecosystem: String,
    /// Whether it is a Python distribution: its name is sought in lowercase, with `-`, `_`
    /// and `.` alike.
    python: bool,
    /// The spellings sought.
    needles: Vec<memchr::memmem::Finder<'static>>,
    /// For an ESLint plugin or shareable config, the short name ESLint's legacy configs write
    /// for it (`"no-only-tests"` in `plugins`, `"react-app"` in `extends`, `plugin:x/…`),
    /// sought in those files only.
    eslint: Option<memchr::memmem::Finder<'static>>,
}

/// Whether the file at `path` is a legacy ESLint config (`.eslintrc*`), at any depth: each
/// applies to the files below it, and names plugins and configs by short names ESLint
/// expands. A flat config (`eslint.config.*`) imports them, and its rules' prefixes
/// (`"@typescript-eslint/no-unused-vars"`) load nothing.
fn is_legacy_eslintrc(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .unwrap_or(path)
        .starts_with(".eslintrc")
}

/// The name an ESLint config writes for the plugin or shareable config `dep`, as ESLint
/// expands it back: `eslint-plugin-x` and `eslint-config-x` are `x`, `@s/eslint-plugin` and
/// `@s/eslint-config` are `@s`, `@s/eslint-plugin-x` is `@s/x`.
fn eslint_short_name(dep: &str) -> Option<String> {
    let (scope, name) = match dep.split_once('/') {
        Some((scope, name)) if scope.starts_with('@') => (Some(scope), name),
        Some(_) => return None,
        None => (None, dep),
    };
    let rest = ["eslint-plugin", "eslint-config"]
        .iter()
        .find_map(|p| name.strip_prefix(p))?;
    match (scope, rest) {
        (Some(scope), "") => Some(scope.to_string()),
        (Some(scope), r) => r.strip_prefix('-').map(|x| format!("{scope}/{x}")),
        (None, r) => r
            .strip_prefix('-')
            .filter(|x| !x.is_empty())
            .map(str::to_string),
    }
}

impl Mention {
    /// What to seek for `dep`, declared in `manifest`.
    fn new(dep: &str, manifest: &str) -> Mention {
        let ecosystem = manifest.rsplit('/').next().unwrap_or(manifest).to_string();
        let python = matches!(
            ecosystem.as_str(),
            "pyproject.toml" | "setup.cfg" | "setup.py"
        ) || ecosystem.starts_with("requirements");
        // Python compares names with `-`, `_` and `.` alike, and code and configs write the
        // import name: dotted for a namespace's (Sphinx's `"sphinxcontrib.openapi"`), or the
        // one the name tables give (`"pythonjsonlogger.jsonlogger.JsonFormatter"` in a logging
        // config).
        let mut spellings: Vec<String> = match python {
            true => {
                let lower = dep.to_ascii_lowercase();
                let mut s = vec![
                    lower.replace(['_', '.'], "-"),
                    lower.replace(['-', '.'], "_"),
                    lower.replace(['-', '_'], "."),
                ];
                // Only an import name no common word can be — dotted, with `_`, or the
                // name's words joined — since one word may be any word (`github` of pygithub,
                // `serial`, `agents`, `toolbox` of toolbox-core); never the name of what a
                // type stub describes.
                let norm = super::names::pep503(dep);
                let joined = norm.replace('-', "");
                if super::names::stub_of(&norm).is_none() {
                    let keys = super::names::python_keys(dep).into_iter();
                    s.extend(keys.filter(|k| k.contains(['.', '_']) || *k == joined));
                }
                s
            }
            false => vec![dep.to_string()],
        };
        spellings.sort();
        spellings.dedup();
        let eslint = (ecosystem == "package.json")
            .then(|| eslint_short_name(dep))
            .flatten()
            .map(|short| memchr::memmem::Finder::new(short.as_bytes()).into_owned());
        Mention {
            eslint,
            ecosystem,
            python,
            needles: spellings
                .iter()
                .map(|n| memchr::memmem::Finder::new(n.as_bytes()).into_owned())
                .collect(),
        }
    }

    /// The line of the file at `path` that names it: `text`, and `lower` (its ASCII
    /// lowercase, which Python names are sought in).
    fn line(&self, path: &str, text: &str, lower: &str) -> Option<u32> {
        let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
        match (self.ecosystem.as_str(), ext) {
            ("Cargo.toml", "rs") | ("go.mod", "go") => return None,
            _ => {}
        }
        let code = match ext {
            "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx" | "vue" | "svelte"
            | "astro" => self.ecosystem == "package.json",
            "py" | "pyi" => self.python,
            _ => false,
        };
        let hay = if self.python { lower } else { text };
        let word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '@');
        if let Some(short) = &self.eslint
            && is_legacy_eslintrc(path)
        {
            let len = short.needle().len();
            for at in short.find_iter(hay.as_bytes()) {
                // A whole string (`"no-only-tests"`), or a plugin's config
                // (`"plugin:no-only-tests/recommended"`, `"react-app/jest"`).
                let before = hay.get(..at).and_then(|h| h.chars().next_back());
                let after = hay.get(at + len..).and_then(|h| h.chars().next());
                let plugin = hay.get(..at).is_some_and(|h| h.ends_with("plugin:"));
                let opens = matches!(before, Some('"' | '\'' | '`')) || plugin;
                // A scope followed by a path is another package of it
                // (`"@typescript-eslint/parser"`), but in a plugin's config name.
                let closes = match after {
                    Some('"' | '\'' | '`') => true,
                    Some('/') => plugin || !short.needle().starts_with(b"@"),
                    _ => false,
                };
                // A key (`"env": {"node": true}`) loads nothing.
                let key = hay
                    .get(at + len + 1..)
                    .is_some_and(|rest| rest.trim_start().starts_with(':'));
                if opens && closes && !key {
                    return Some(
                        1 + memchr::memchr_iter(b'\n', &hay.as_bytes()[..at]).count() as u32,
                    );
                }
            }
        }
        for needle in &self.needles {
            let len = needle.needle().len();
            for at in needle.find_iter(hay.as_bytes()) {
                // Needles are whole strings and the text is UTF-8: a match's ends are char
                // boundaries.
                let before = hay.get(..at).and_then(|h| h.chars().next_back());
                let after = hay.get(at + len..).and_then(|h| h.chars().next());
                let starts = match code {
                    true => matches!(before, Some('"' | '\'' | '`')),
                    false => !before.is_some_and(|c| word(c) || matches!(c, '/' | '.')),
                };
                if starts && !after.is_some_and(word) {
                    return Some(
                        1 + memchr::memchr_iter(b'\n', &hay.as_bytes()[..at]).count() as u32,
                    );
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Mention::line`] of one dependency in one file.
    fn mention(path: &str, text: &str, dep: &str, manifest: &str) -> Option<u32> {
        let lower = text.to_ascii_lowercase();
        Mention::new(dep, manifest).line(path, text, &lower)
    }

    #[test]
    fn an_eslint_config_names_a_plugin_or_config_by_its_short_name() {
        let pj = "package.json";
        let rc = "module.exports = {\n  extends: [\"react-app\", \"plugin:compat/recommended\"],\n  plugins: [\"jest\", \"no-only-tests\", \"@typescript-eslint\"],\n};\n";
        let at = |dep: &str| mention("client/.eslintrc.js", rc, dep, pj);
        assert_eq!(at("eslint-config-react-app"), Some(2));
        assert_eq!(at("eslint-plugin-compat"), Some(2));
        assert_eq!(at("eslint-plugin-no-only-tests"), Some(3));
        assert_eq!(at("@typescript-eslint/eslint-plugin"), Some(3));
        assert_eq!(at("eslint-plugin-only"), None);
        assert_eq!(at("eslint-plugin-react"), None);
        // An `env` key, a parser of the scope: no plugin.
        let env = "{\n  \"env\": {\"node\": true, \"jest\": true},\n  \"parser\": \"@typescript-eslint/parser\"\n}\n";
        assert_eq!(
            mention("src/.eslintrc.json", env, "eslint-plugin-jest", pj),
            None
        );
        assert_eq!(
            mention(
                "src/.eslintrc.json",
                env,
                "@typescript-eslint/eslint-plugin",
                pj
            ),
            None
        );
        // Elsewhere a short name is any word.
        assert_eq!(
            mention("client/src/app.js", rc, "eslint-plugin-jest", pj),
            None
        );
        assert_eq!(
            eslint_short_name("@s/eslint-plugin-x").as_deref(),
            Some("@s/x")
        );
        assert_eq!(eslint_short_name("@s/eslint-config").as_deref(), Some("@s"));
        assert_eq!(eslint_short_name("eslint-plugin"), None);
        assert_eq!(eslint_short_name("eslint"), None);
    }

    #[test]
    fn a_config_names_a_loader_anywhere_code_only_in_a_string() {
        let pj = "packages/web/package.json";
        let config = "module.exports = {\n  use: ['style-loader', 'css-loader'],\n};\n";
        assert_eq!(
            mention("packages/web/webpack.config.js", config, "css-loader", pj),
            Some(2)
        );
        // In code, a word in a comment is no use; a string is.
        let code = "// unlike css-loader, this one\nconst x = 1;\n";
        assert_eq!(mention("src/a.ts", code, "css-loader", pj), None);
        // In a config that is no code, a word is enough.
        let yaml = "steps:\n  - run: prettier --check .\n";
        assert_eq!(mention(".ci.yml", yaml, "prettier", pj), Some(2));
        // Part of a longer name is not the name.
        assert_eq!(
            mention("a.yml", "x: prettier-plugin-foo", "prettier", pj),
            None
        );
        assert_eq!(mention("a.yml", "x: @scope/prettier", "prettier", pj), None);
        assert_eq!(
            mention(
                "a.json",
                "{\"extends\": \"@scope/cfg/base\"}",
                "@scope/cfg",
                pj
            ),
            Some(1)
        );
    }

    #[test]
    fn python_names_match_with_separators_and_case_alike() {
        let pp = "pyproject.toml";
        let ini = "[pytest]\naddopts = -p pytest_randomly\n";
        assert_eq!(mention("pytest.ini", ini, "pytest-randomly", pp), Some(2));
        let code = "importlib.import_module(\"Foo_Bar.sub\")\n";
        assert_eq!(mention("pkg/load.py", code, "foo-bar", pp), Some(1));
        // A namespace package's dotted name; the import name a table gives.
        let conf = "extensions = [\n    \"sphinxcontrib.openapi\",\n]\n";
        assert_eq!(
            mention("docs/conf.py", conf, "sphinxcontrib-openapi", pp),
            Some(2)
        );
        // A one-word import name may be any word: not sought.
        let code = "PROVIDERS = [\"github\", \"gitlab\"]\n";
        assert_eq!(mention("app/auth.py", code, "pygithub", pp), None);
        let logging =
            "formatters:\n  json:\n    class: pythonjsonlogger.jsonlogger.JsonFormatter\n";
        assert_eq!(
            mention("logging.yaml", logging, "python-json-logger", pp),
            Some(3)
        );
        assert_eq!(mention("pkg/load.py", "# foo_bar\n", "foo-bar", pp), None);
    }

    #[test]
    fn a_manifest_s_tool_configs_name_what_its_declarations_do_not() {
        let pj = r#"{"name": "x-eslint-config", "devDependencies": {"ts-jest": "1", "wireit": "1", "x-eslint-config": "1"},
            "jest": {"preset": "ts-jest"}, "wireit": {"build": {"command": "tsc"}}}"#;
        let parts = config_parts("a/package.json", pj).unwrap_or_default();
        let named = |dep: &str| {
            parts
                .iter()
                .find(|(_, t)| mention("config", t, dep, "a/package.json").is_some())
                .map(|(k, _)| k.clone())
        };
        assert_eq!(named("ts-jest").as_deref(), Some("`\"jest\"`"));
        assert_eq!(
            named("wireit").as_deref(),
            Some("`\"wireit\"`"),
            "its config's key"
        );
        assert_eq!(named("x-eslint-config"), None, "the package's own name");
        let pp = "[project]\ndependencies = [\"pytest-xdist\"]\n[tool.pytest.ini_options]\naddopts = \"-p xdist\"\n[tool.hatch.envs.test]\ndependencies = [\"coverage\"]\n[tool.mypy]\nplugins = [\"pydantic.mypy\"]\n";
        let parts = config_parts("pyproject.toml", pp).unwrap_or_default();
        let named = |dep: &str| {
            parts
                .iter()
                .find(|(_, t)| mention("config", t, dep, "pyproject.toml").is_some())
                .map(|(k, _)| k.clone())
        };
        assert_eq!(named("pydantic").as_deref(), Some("`[tool.mypy]`"));
        assert_eq!(named("coverage"), None);
        assert_eq!(named("pytest-xdist"), None);
        assert!(config_parts("a/tox.ini", "").is_none());
    }

    #[test]
    fn rust_and_go_code_is_never_read_for_a_name() {
        let code = "let s = \"serde\";\n";
        assert_eq!(mention("src/lib.rs", code, "serde", "Cargo.toml"), None);
        assert_eq!(
            mention("deny.toml", "skip = [\"serde\"]\n", "serde", "Cargo.toml"),
            Some(1)
        );
    }

    #[test]
    fn manifests_lockfiles_and_prose_hold_no_mention() {
        for f in [
            "a/pnpm-lock.yaml",
            "a/README.md",
            "a/docs/guide.rst",
            "a/requirements-dev.txt",
            "a/CHANGELOG",
            "a/Cargo.toml",
            "a/docs/shot.png",
        ] {
            assert!(!readable(f), "{f}");
        }
        for f in [
            "a/vite.config.ts",
            "a/tox.ini",
            "a/.github/ci.yml",
            "a/Makefile",
        ] {
            assert!(readable(f), "{f}");
        }
    }

    #[test]
    fn recorded_exchanges_and_prose_are_not_read_for_mentions() {
        // crewAI's tests replay HTTP exchanges whose bodies name packages.
        assert!(!readable("lib/crewai/tests/cassettes/test_agent.yaml"));
        assert!(!readable("src/__tests__/__snapshots__/a.test.ts.snap"));
        assert!(!readable("README.md"));
        assert!(readable("tests/conftest.yaml"));
        assert!(readable(".github/workflows/ci.yml"));
    }
}
