//! Where a JS import names a file of the repository, not a package: tsconfig `paths` and
//! `baseUrl`, and the aliases a bundler or test runner config resolves first (Vite's and
//! vitest's `resolve.alias`, jest's `moduleNameMapper`). Such an import is no package to
//! declare.

use crate::source::{self, RepoSnapshot, SourceError, blob_text};

/// One alias: an import it matches names a file of the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Alias {
    /// The pattern, with at most one `*` (`@lexical/*`).
    pub pattern: String,
    /// The repo-relative target, the `*` kept.
    pub target: String,
    /// Where it is written (`tsconfig.test.json:8`), for `--explain`.
    pub at: String,
    /// Whether only the module's tests resolve through it (a test runner's config): its
    /// shipped code is built without it.
    pub tests_only: bool,
    /// A `baseUrl` one: it holds only where the file it names is there (TypeScript falls
    /// back to `node_modules` otherwise).
    pub base_url: bool,
}

impl Alias {
    /// The path the import `spec` (which this alias matches) names: the target with the
    /// `*` filled in.
    pub(crate) fn path_of(&self, spec: &str) -> String {
        mesh_imports::tsconfig::apply(&[(self.pattern.clone(), self.target.clone())], spec)
            .unwrap_or_else(|| self.target.clone())
    }
}

/// The aliases of the tsconfig at `path` (repo-relative, its `text`): its own `paths`, or
/// when it sets none, those of the configs its `extends` names in the repository (the last
/// one listed that has any, as TypeScript merges them), up to 8 configs deep; and what its
/// `baseUrl` (found the same way) makes importable by a bare name (see [`base_url_aliases`]).
pub(crate) fn tsconfig_aliases(
    snap: &RepoSnapshot,
    path: &str,
    text: &str,
) -> Result<Vec<Alias>, SourceError> {
    let root = snap.root_tree()?;
    let mut todo = vec![(path.to_string(), text.to_string(), 0)];
    let mut seen = std::collections::HashSet::new();
    let mut paths = None;
    let mut base = None;
    while let Some((path, text, depth)) = todo.pop() {
        // A config extending itself, or one another many times, is read once.
        if !seen.insert(path.clone()) {
            continue;
        }
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        if paths.is_none() && mesh_imports::tsconfig::has_paths(&text) {
            paths = Some(aliases_of(dir, &path, &text));
        }
        if base.is_none()
            && let Some(b) = mesh_imports::tsconfig::base_url(&text)
            && let Some(at) = mesh_imports::repo_path(&[dir, &b])
        {
            let line = mesh_imports::tsconfig::pattern_line(&text, "baseUrl");
            base = Some((at, format!("{path}:{line}")));
        }
        if (paths.is_some() && base.is_some()) || depth >= 8 {
            continue;
        }
        // Later configs override earlier ones: popped first.
        for e in mesh_imports::tsconfig::extends(dir, &text) {
            if let Some(t) = blob_text(snap, &root, &e)? {
                todo.push((e, t, depth + 1));
            }
        }
    }
    let mut out = paths.unwrap_or_default();
    if let Some((dir, at)) = base {
        out.extend(base_url_aliases(snap, &dir, &at)?);
    }
    Ok(out)
}

/// What a tsconfig's `baseUrl` (the repository directory `dir`, set at `at`) makes importable
/// by a bare name, which TypeScript resolves before packages (gradio's root `"baseUrl": "."`
/// makes `client/js/src` a file of the repository): the paths below each directory
/// (`client/*`) and each script by its stem. Each holds only where the file it names is there
/// ([`file_there`]): TypeScript falls back to `node_modules` otherwise, so `firebase/auth`
/// beside a `src/firebase/config.ts` is still the package.
fn base_url_aliases(snap: &RepoSnapshot, dir: &str, at: &str) -> Result<Vec<Alias>, SourceError> {
    const SCRIPTS: &[&str] = &[
        ".d.ts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".json", ".svelte",
        ".vue",
    ];
    let Some(tree) = snap.dir_tree(dir)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in tree.iter() {
        let entry =
            entry.map_err(|err| SourceError::git(&snap.name, "cannot decode a tree", err))?;
        let name = entry.filename().to_string();
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        let alias = |pattern: String, target: String| Alias {
            pattern,
            target,
            at: format!("{at} (baseUrl)"),
            tests_only: false,
            base_url: true,
        };
        if entry.mode().is_tree() {
            out.push(alias(
                format!("{name}/*"),
                source::join(dir, &format!("{name}/*")),
            ));
        } else if let Some(stem) = SCRIPTS.iter().find_map(|ext| name.strip_suffix(ext)) {
            out.push(alias(stem.to_string(), source::join(dir, &name)));
        }
    }
    Ok(out)
}

/// The aliases of one tsconfig at `path` in `dir`.
fn aliases_of(dir: &str, path: &str, text: &str) -> Vec<Alias> {
    mesh_imports::tsconfig::paths(dir, text)
        .into_iter()
        .map(|(pattern, target)| Alias {
            at: format!(
                "{path}:{}",
                mesh_imports::tsconfig::pattern_line(text, &pattern)
            ),
            pattern,
            target,
            tests_only: false,
            base_url: false,
        })
        .collect()
}

/// The aliases of the bundler and test runner configs at a JS module's root (`tree`, at
/// `dir`): a bundler's (`vite.config.*`, `webpack.config.*`, …) count for all its code, a test
/// runner's (`vitest.config.*`, `jest.config.*`, package.json's `jest`) for its tests.
pub(crate) fn own_config_aliases(
    snap: &RepoSnapshot,
    tree: &gix::Tree,
    dir: &str,
) -> Result<Vec<Alias>, SourceError> {
    let mut out = Vec::new();
    for f in source::file_names(snap, tree)? {
        if let Some(tests_only) = import_map(&f) {
            if let Some(text) = blob_text(snap, tree, &f)? {
                out.extend(import_map_aliases(
                    &source::join(dir, &f),
                    &text,
                    tests_only,
                ));
            }
            continue;
        }
        let Some(tests_only) = alias_config(&f) else {
            continue;
        };
        if let Some(text) = blob_text(snap, tree, &f)?
            && (text.contains("alias") || text.contains("moduleNameMapper"))
        {
            out.extend(config_aliases(&source::join(dir, &f), &text, tests_only));
        }
    }
    Ok(out)
}

/// Whether a file at a module's root is Deno's config or an import map (`deno.json`,
/// `import_map.json`, `test.importmap.json`): `Some(tests_only)`, a test's map by its name.
fn import_map(file: &str) -> Option<bool> {
    let lower = file.to_ascii_lowercase();
    let map = matches!(lower.as_str(), "deno.json" | "deno.jsonc")
        || lower.ends_with("importmap.json")
        || lower.ends_with("import_map.json")
        || lower.ends_with("import-map.json");
    map.then(|| lower.contains("test"))
}

/// The aliases an import map (or a `deno.json`'s `imports`) at `path` (its `text`) gives: each
/// key mapped to a path (`"@openstatus/analytics": "./src/test/analytics.mock.ts"`, a prefix
/// `"@/": "./src/"`) names a file of the repository; one mapped to a package (`"npm:x@1"`,
/// a URL) still needs it. `tests_only` for a test's map.
pub(crate) fn import_map_aliases(path: &str, text: &str, tests_only: bool) -> Vec<Alias> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    let Some(imports) = v.get("imports").and_then(|i| i.as_object()) else {
        return Vec::new();
    };
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    imports
        .iter()
        .filter_map(|(key, target)| {
            let target = target.as_str()?;
            if !(target.starts_with("./") || target.starts_with("../")) {
                return None;
            }
            let at = mesh_imports::repo_path(&[dir, target])?;
            let (pattern, target) = match key.ends_with('/') {
                true => (format!("{key}*"), format!("{at}/*")),
                false => (key.clone(), at),
            };
            Some(Alias {
                pattern,
                target,
                at: path.to_string(),
                tests_only,
                base_url: false,
            })
        })
        .collect()
}

/// The names a `deno.json` (or `deno.jsonc`) nested in a module maps in its `imports`
/// (`"@std/assert": "jsr:@std/assert@^1"`, a prefix `"@std/": …`), each with whether it
/// maps to a registry package (`jsr:`, `npm:`) rather than a file or a URL: Deno resolves its
/// files' imports of them through the map, so the module's manifest owes none (hono's Deno
/// tests, run with `deno test -c`).
pub(crate) fn deno_import_keys(text: &str) -> Vec<(String, bool)> {
    let text = mesh_imports::tsconfig::strip_jsonc(text);
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let Some(imports) = v.get("imports").and_then(|i| i.as_object()) else {
        return Vec::new();
    };
    (imports.iter())
        .map(|(key, target)| {
            let target = target.as_str().unwrap_or("");
            let registry = target.starts_with("jsr:") || target.starts_with("npm:");
            (key.clone(), registry)
        })
        .collect()
}

/// Whether a `deno.json`'s import map entry (`key`, whether it maps to a registry package:
/// [`deno_import_keys`]) maps `name`: the same name, below a prefix key ending in `/`, or
/// below a registry package's key (`@std/testing/mock` of `"@std/testing":
/// "jsr:@std/testing@^1"`: Deno resolves such a package's subpaths, not a file's).
pub(crate) fn deno_maps((key, registry): &(String, bool), name: &str) -> bool {
    match name.strip_prefix(key.as_str()) {
        Some(rest) => rest.is_empty() || key.ends_with('/') || (*registry && rest.starts_with('/')),
        None => false,
    }
}

/// Whether a file at a module's root is a config with aliases: `Some(tests_only)`.
fn alias_config(file: &str) -> Option<bool> {
    const BUILD: &[&str] = &[
        "vite.config.",
        "webpack.config.",
        "rspack.config.",
        "craco.config.",
    ];
    const TESTS: &[&str] = &["vitest.config.", "vitest.workspace.", "jest.config."];
    if BUILD.iter().any(|p| file.starts_with(p)) {
        Some(false)
    } else if TESTS.iter().any(|p| file.starts_with(p)) || file == "package.json" {
        Some(true)
    } else {
        None
    }
}

/// The aliases a bundler's or test runner's config at `path` (its `text`) resolves first:
/// Vite's and vitest's `alias` (`{ '@': path.resolve(__dirname, 'src') }`, or a list of
/// `{ find, replacement }` whose `find` may be a regex, excalidraw's
/// `/^@excalidraw\/common\/(.*?)/`) and jest's `moduleNameMapper`
/// (`'^@/(.*)$': '<rootDir>/src/$1'`). Only an alias to a path counts: one to another
/// package (`react` → `preact/compat`, or into `node_modules`) still needs that package.
/// A regex counts by its anchored literal start. `tests_only` for a test runner's config.
pub(crate) fn config_aliases(path: &str, text: &str, tests_only: bool) -> Vec<Alias> {
    /// A config is code a person writes: one larger is generated, and not read for aliases.
    const MAX_CONFIG: usize = 512 * 1024;
    /// How many `alias` keys a config is read at (each scans to its value's end).
    const MAX_KEYS: usize = 64;
    if text.len() > MAX_CONFIG {
        return Vec::new();
    }
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |offset: usize| line_starts.partition_point(|&s| s <= offset);
    let mut out = Vec::new();
    for key in ["alias", "moduleNameMapper"] {
        let regex_keys = key == "moduleNameMapper";
        let mut read = 0;
        for (at, _) in text.match_indices(key) {
            if read >= MAX_KEYS {
                break;
            }
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                continue;
            }
            let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
            let line = text[line_start..at].trim_start();
            if line.starts_with("//") || line.starts_with('*') {
                continue;
            }
            let rest = &text[at + key.len()..];
            let rest_trim = rest.trim_start_matches(['"', '\'']).trim_start();
            let Some(value) = rest_trim.strip_prefix(':') else {
                continue;
            };
            let open = at
                + key.len()
                + (rest.len() - value.len())
                + (value.len() - value.trim_start().len());
            // Only an object or a list (`alias: aliases` names a variable mesh does not follow).
            if !matches!(text.as_bytes().get(open), Some(b'[' | b'{')) {
                continue;
            }
            read += 1;
            let Some(end) = js_span_end(text, open) else {
                continue;
            };
            for (off, item) in js_items(text, open, end) {
                let (find, replacement, find_at) = match text.as_bytes()[open] {
                    b'[' => {
                        let Some(inner_open) = item.find('{') else {
                            continue;
                        };
                        let inner_open = off + inner_open;
                        let Some(inner_end) = js_span_end(text, inner_open) else {
                            continue;
                        };
                        let fields = js_items(text, inner_open, inner_end);
                        let field = |name: &str| {
                            fields.iter().find_map(|(o, f)| {
                                let (k, v) = f.split_once(':')?;
                                let lead = k.len() - k.trim_start().len();
                                (unquote(k.trim()) == name).then_some((o + lead, v.trim()))
                            })
                        };
                        let (Some((fo, find)), Some((_, rep))) =
                            (field("find"), field("replacement"))
                        else {
                            continue;
                        };
                        (find.to_string(), rep, fo)
                    }
                    b'{' => {
                        let Some((k, v)) = split_entry(item) else {
                            continue;
                        };
                        (
                            k.trim().to_string(),
                            v.trim(),
                            off + k.len() - k.trim_start().len(),
                        )
                    }
                    _ => continue,
                };
                let Some(target) = local_target(dir, replacement) else {
                    continue;
                };
                let regex = |re: &str| {
                    let patterns = regex_patterns(re).into_iter();
                    patterns.map(|p| (p, target.clone())).collect()
                };
                let patterns: Vec<(String, String)> = match find.strip_prefix('/') {
                    Some(re) => regex(re.rsplit_once('/').map_or(re, |(r, _)| r)),
                    None if regex_keys => regex(&unquote(&find).replace("\\\\", "\\")),
                    // A string key matches itself and the paths below it.
                    None => {
                        let k = unquote(&find);
                        // webpack's `xyz$` matches `xyz` alone.
                        if let Some(exact) = k.strip_suffix('$') {
                            vec![(exact.to_string(), target.clone())]
                        } else if k.ends_with('/') {
                            vec![(format!("{k}*"), format!("{target}/*"))]
                        } else {
                            vec![
                                (k.clone(), target.clone()),
                                (format!("{k}/*"), format!("{target}/*")),
                            ]
                        }
                    }
                };
                let line = line_of(find_at);
                for (pattern, target) in patterns.into_iter().filter(|(p, _)| p.len() >= 2) {
                    out.push(Alias {
                        pattern,
                        target,
                        at: format!("{path}:{line}"),
                        tests_only,
                        base_url: false,
                    });
                }
            }
        }
    }
    out
}

/// The patterns an anchored alias regex matches by its literal start: `^@x\/y$` is `@x/y`
/// alone, `^@x\/y\/(.*?)` and `^@x\/y\/` the paths below `@x/y/`, `^@x\/y(\/.*)?$` both, and
/// `^@x` whatever starts so. None for a regex that is not anchored, has alternatives (`|`),
/// or whose literal start a group or class continues within a path segment
/// (`^@(components|hooks)\/` would be every scoped package).
fn regex_patterns(re: &str) -> Vec<String> {
    let Some(re) = re.strip_prefix('^') else {
        return Vec::new();
    };
    // Alternatives at the top (`^react$|^@/(.*)`): each would need its own reading.
    let mut depth = 0i32;
    let mut escaped = false;
    for c in re.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '|' if depth <= 0 => return Vec::new(),
            _ => {}
        }
    }
    let mut prefix = String::new();
    let mut chars = re.char_indices().peekable();
    let mut rest_at = re.len();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some(&(_, e)) if "/.-@_~".contains(e) => {
                    prefix.push(e);
                    chars.next();
                }
                _ => {
                    rest_at = i;
                    break;
                }
            },
            '(' | '[' | '.' | '*' | '+' | '?' | '{' | '$' | ')' => {
                rest_at = i;
                break;
            }
            c => prefix.push(c),
        }
    }
    if prefix.is_empty() {
        return Vec::new();
    }
    let rest = &re[rest_at..];
    match rest {
        "" => vec![format!("{prefix}*")],
        "$" => vec![prefix],
        _ if prefix.ends_with('/') => vec![format!("{prefix}*")],
        // `(\/.*)?`: the path itself, and those below it when the group is optional.
        _ if rest.starts_with("(\\/") || rest.starts_with("(/") => {
            let close = rest.find(')').map_or(rest.len(), |i| i + 1);
            match rest[close..].starts_with('?') {
                true => vec![prefix.clone(), format!("{prefix}/*")],
                false => vec![format!("{prefix}/*")],
            }
        }
        _ => Vec::new(),
    }
}

/// The repository path an alias's replacement expression names, when it names a path: built
/// from the config's directory (`path.resolve(__dirname, '../src/$1')`, `'<rootDir>/src'`,
/// `fileURLToPath(new URL('./src', import.meta.url))`, `'./src'`); `None` for a package name,
/// a path into `node_modules` or a directory resolved from a package (`graphqlDir + '/$1'`).
fn local_target(dir: &str, replacement: &str) -> Option<String> {
    if replacement.contains("node_modules") {
        return None;
    }
    let strings = super::tools::quoted_strings(replacement);
    // Built from the config's own directory; a directory resolved from a package
    // (`path.dirname(require.resolve('graphql/package.json'))`) is that package's.
    let from_here = [
        "__dirname",
        "dirname",
        "fileURLToPath",
        "import.meta",
        "process.cwd",
    ]
    .iter()
    .any(|m| replacement.contains(m));
    let computed = from_here && !replacement.contains("require.resolve");
    let last = strings.last().map(String::as_str).unwrap_or("");
    let rooted = last.starts_with("<rootDir>");
    let relative = last.starts_with('.') || last.starts_with('/');
    if !computed && !rooted && !relative {
        return None;
    }
    let rel = last.trim_start_matches("<rootDir>").replace("$1", "*");
    Some(mesh_imports::repo_path(&[dir, &rel]).unwrap_or(rel))
}

/// A quoted key's text without its quotes (a bare key as it is).
fn unquote(s: &str) -> String {
    let s = s.trim();
    for q in ['"', '\'', '`'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner.to_string();
        }
    }
    s.to_string()
}

/// An object entry `key: value` split at the colon after its key (a quoted key may hold
/// colons of its own).
fn split_entry(item: &str) -> Option<(&str, &str)> {
    let t = item.trim_start();
    let lead = item.len() - t.len();
    let key_end = match t.chars().next()? {
        q @ ('"' | '\'' | '`') => t[1..].find(q)? + 2,
        _ => t.find(':')?,
    };
    let colon = t[key_end..].find(':')? + key_end;
    Some((&item[..lead + key_end], &item[lead + colon + 1..]))
}

/// Where the bracket opening at byte `open` of JS `text` closes (exclusive), skipping
/// strings, regex literals and comments; `None` when it never does.
fn js_span_end(text: &str, open: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    let mut prev = b'(';
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' | b'\'' | b'`' => {
                i += 1;
                while i < b.len() && b[i] != c {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 1);
            }
            // A regex literal stands where a value does.
            b'/' if matches!(
                prev,
                b':' | b',' | b'(' | b'[' | b'{' | b'=' | b'!' | b'&' | b'|' | b'?'
            ) =>
            {
                let mut class = false;
                i += 1;
                while i < b.len() && (class || b[i] != b'/') && b[i] != b'\n' {
                    match b[i] {
                        b'\\' => i += 1,
                        b'[' => class = true,
                        b']' => class = false,
                        _ => {}
                    }
                    i += 1;
                }
            }
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            prev = c;
        }
        i += 1;
    }
    None
}

/// The top-level items of the bracketed span `open..end` of `text`, split at its commas: each
/// with its byte offset.
fn js_items(text: &str, open: usize, end: usize) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = open + 1;
    let mut i = open + 1;
    while i < end.saturating_sub(1) {
        let c = text.as_bytes()[i];
        match c {
            b'{' | b'[' | b'(' | b'"' | b'\'' | b'`' | b'/' => {
                // A nested span or a literal: skip it whole.
                let next = match c {
                    b'{' | b'[' | b'(' => js_span_end(text, i),
                    _ => js_literal_end(text, i),
                };
                let comment = c == b'/' && matches!(text.as_bytes().get(i + 1), Some(b'/' | b'*'));
                let before_blank = text.get(start..i).is_none_or(|t| t.trim().is_empty());
                i = next.unwrap_or(end).max(i + 1);
                // A comment before an item is none of it.
                if comment && before_blank {
                    start = i;
                }
                continue;
            }
            b',' => {
                out.push((start, text.get(start..i).unwrap_or("")));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    let last = text
        .get(start..end.saturating_sub(1).max(start))
        .unwrap_or("");
    if !last.trim().is_empty() {
        out.push((start, last));
    }
    out
}

/// Where the string, regex literal or comment starting at byte `at` of `text` ends
/// (exclusive), by wrapping it as a span's only value.
fn js_literal_end(text: &str, at: usize) -> Option<usize> {
    let b = text.as_bytes();
    let q = b[at];
    let mut i = at + 1;
    match q {
        b'/' if b.get(at + 1) == Some(&b'/') => {
            Some(text[at..].find('\n').map_or(b.len(), |e| at + e))
        }
        b'/' if b.get(at + 1) == Some(&b'*') => Some(
            text[at + 2..]
                .find("*/")
                .map_or(b.len(), |e| at + 2 + e + 2),
        ),
        _ => {
            let mut class = false;
            while i < b.len() && b[i] != b'\n' {
                match b[i] {
                    b'\\' => i += 1,
                    b'[' if q == b'/' => class = true,
                    b']' if q == b'/' => class = false,
                    c if c == q && !class => return Some(i + 1),
                    _ => {}
                }
                i += 1;
            }
            // Template strings run over lines.
            (q == b'`').then(|| text[at + 1..].find('`').map_or(b.len(), |e| at + 2 + e))
        }
    }
}

/// The aliases of the repository root, which a test runner or editor run from the root
/// applies to every package: its bundler's and test runner's own (see [`config_aliases`]),
/// `tsconfig.json` (else `jsconfig.json`) with the configs its `references` name, and each
/// `tsconfig.*.json` there that a root test runner config names (lexical's
/// `vitest.config.mts` turns `tsconfig.test.json`'s `paths` into `resolve.alias`).
pub(crate) fn root_aliases(snap: &RepoSnapshot) -> Result<Vec<Alias>, SourceError> {
    let root = snap.root_tree()?;
    let files = source::file_names(snap, &root)?;
    let mut runner_text = String::new();
    for f in files
        .iter()
        .filter(|f| super::tools::is_test_runner_config(f))
    {
        runner_text.push_str(&blob_text(snap, &root, f)?.unwrap_or_default());
    }
    let named = |f: &str| {
        f.starts_with("tsconfig.")
            && f.ends_with(".json")
            && f != "tsconfig.json"
            && runner_text.contains(f)
    };
    let mut out = Vec::new();
    // The root's own bundler and test runner configs (excalidraw's root `vitest.config.mts`
    // maps each `@excalidraw/*` package to its source for every package's tests).
    for f in files.iter().filter(|f| alias_config(f).is_some()) {
        if let Some(text) = blob_text(snap, &root, f)? {
            out.extend(config_aliases(f, &text, true));
        }
    }
    let plain = ["tsconfig.json", "jsconfig.json"]
        .into_iter()
        .find(|p| files.iter().any(|f| f == p));
    for f in plain
        .into_iter()
        .chain(files.iter().map(String::as_str).filter(|f| named(f)))
    {
        if let Some(text) = blob_text(snap, &root, f)? {
            out.extend(tsconfig_aliases(snap, f, &text)?);
            // A solution config's projects (effect's `tsconfig.json` references
            // `tsconfig.tests.json`, whose `paths` its tests resolve through, as vite's
            // `tsconfigPaths` does).
            for r in mesh_imports::tsconfig::references("", &text) {
                if let Some(t) = blob_text(snap, &root, &r)? {
                    out.extend(tsconfig_aliases(snap, &r, &t)?);
                }
            }
        }
    }
    Ok(out)
}

/// Whether the repository path `path` that a `baseUrl` alias names is there, as TypeScript
/// and bundlers look for it: a file as named or with a script's extension (a `.js` name for
/// its `.ts` source too), or a directory with an index or a package.json.
pub(crate) fn file_there(tree: &gix::Tree, path: &str) -> bool {
    let blob = |p: &str| {
        tree.lookup_entry_by_path(p)
            .ok()
            .flatten()
            .is_some_and(|e| e.mode().is_blob())
    };
    // ESM TypeScript names its `.ts` file by the `.js` it compiles to.
    let compiled = [".js", ".jsx", ".mjs", ".cjs"]
        .iter()
        .find_map(|ext| path.strip_suffix(ext));
    let ts = [".ts", ".tsx", ".mts", ".cts", ".d.ts"];
    super::js::RESOLVE_TRIES
        .iter()
        .any(|ext| blob(&format!("{path}{ext}")))
        || compiled.is_some_and(|stem| ts.iter().any(|ext| blob(&format!("{stem}{ext}"))))
        || blob(&format!("{path}/package.json"))
}

/// The alias that maps the import `spec` to a file, if one does: the module's own (its
/// tsconfig, through its `extends`), which its build compiles every file with, or — for a
/// test or type-only import (`dev`) — the repository root's, which only runs in the
/// repository (a published package cannot reach it).
pub(crate) fn alias_for<'a>(
    own: &'a [Alias],
    root: &'a [Alias],
    spec: &str,
    dev: bool,
    exists: &dyn Fn(&str) -> bool,
) -> Option<&'a Alias> {
    let matches = |a: &&Alias| {
        let matched = match a.pattern.split_once('*') {
            None => spec == a.pattern,
            Some((pre, post)) => spec
                .strip_prefix(pre)
                .is_some_and(|rest| rest.ends_with(post)),
        };
        matched && (!a.base_url || exists(&a.path_of(spec)))
    };
    let root = root.iter().filter(|_| dev);
    own.iter()
        .filter(|a| dev || !a.tests_only)
        .find(matches)
        .or_else(|| root.clone().find(matches))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nested_deno_json_maps_names_and_what_is_below_them() {
        let keys = deno_import_keys(
            "{\"imports\": {\n  // the standard library\n  \"@std/assert\": \"jsr:@std/assert@^1\",\n  \"std/\": \"https://deno.land/std/\",\n  \"utils\": \"./utils.ts\",\n}}",
        );
        let maps = |name: &str| keys.iter().any(|k| deno_maps(k, name));
        assert!(maps("@std/assert"));
        assert!(maps("@std/assert/equals"));
        assert!(maps("std/path/mod.ts"));
        assert!(maps("utils"));
        // A file's key maps only itself; a name merely beginning a key, nothing.
        assert!(!maps("utils/extra"));
        assert!(!maps("@std/assertx"));
        assert!(!maps("zod"));
    }

    #[test]
    fn an_import_map_names_files_a_test_imports() {
        let map = r#"{"imports": {"@/": "./src/", "@acme/analytics-real": "../../packages/analytics/src/index.ts", "chalk": "npm:chalk@5", "std/": "https://deno.land/std/"}}"#;
        let got = import_map_aliases("apps/server/test.importmap.json", map, true);
        let pairs: Vec<(&str, &str)> = got
            .iter()
            .map(|a| (a.pattern.as_str(), a.target.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("@/*", "apps/server/src/*"),
                ("@acme/analytics-real", "packages/analytics/src/index.ts")
            ]
        );
        assert!(got.iter().all(|a| a.tests_only));
        assert_eq!(import_map("test.importmap.json"), Some(true));
        assert_eq!(import_map("deno.json"), Some(false));
        assert_eq!(import_map("package.json"), None);
        assert!(import_map_aliases("deno.jsonc", "{ // a comment\n }", false).is_empty());
    }

    #[test]
    fn root_aliases_answer_test_and_type_imports_only() {
        // lexical's shape: the root's `tsconfig.test.json` maps each sibling package to its
        // source; a package's own tsconfig maps `@/*` into itself.
        let root = aliases_of(
            "",
            "tsconfig.test.json",
            "{\"compilerOptions\": {\"paths\": {\n  \"@lexical/clipboard\": [\"./packages/lexical-clipboard/src/index.ts\"],\n  \"lexical/src/*\": [\"./packages/lexical/src/*\"]\n}}}",
        );
        let own = aliases_of(
            "packages/app",
            "packages/app/tsconfig.json",
            "{\"compilerOptions\": {\"paths\": {\"@/*\": [\"./src/*\"]}}}",
        );
        let test = alias_for(&own, &root, "@lexical/clipboard", true, &|_| true).expect("aliased");
        assert_eq!(test.at, "tsconfig.test.json:2");
        assert_eq!(test.target, "packages/lexical-clipboard/src/index.ts");
        assert!(alias_for(&own, &root, "lexical/src/__tests__/utils", true, &|_| true).is_some());
        // Shipped code is published without the repository's root: its aliases are not its.
        assert!(alias_for(&own, &root, "@lexical/clipboard", false, &|_| true).is_none());
        // The package's own aliases count for all its code.
        let mine = alias_for(&own, &root, "@/utils/x", false, &|_| true).expect("own alias");
        assert_eq!(mine.path_of("@/utils/x"), "packages/app/src/utils/x");
        assert!(alias_for(&own, &root, "@lexical/clipboardx", true, &|_| true).is_none());
    }

    #[test]
    fn bundler_and_test_runner_aliases_to_paths() {
        // excalidraw-app's vite.config.mts: regex `find`s, each package mapped to its source.
        let vite = "export default defineConfig({\n  resolve: {\n    alias: [\n      {\n        find: /^@excalidraw\\/common$/,\n        replacement: path.resolve(__dirname, \"../packages/common/src/index.ts\"),\n      },\n      {\n        find: /^@excalidraw\\/common\\/(.*?)/,\n        replacement: path.resolve(__dirname, \"../packages/common/src/$1\"),\n      },\n      { find: 'react', replacement: 'preact/compat' },\n      { find: /^graphql$/, replacement: path.join(graphqlDir, 'index.js') },\n      // { find: '@old', replacement: path.resolve(__dirname, 'old') },\n    ],\n  },\n});\n";
        let own = config_aliases("app/vite.config.mts", vite, false);
        let patterns: Vec<_> = own.iter().map(|a| a.pattern.as_str()).collect();
        assert_eq!(patterns, ["@excalidraw/common", "@excalidraw/common/*"]);
        let a =
            alias_for(&own, &[], "@excalidraw/common/utils", false, &|_| true).expect("aliased");
        assert_eq!(a.at, "app/vite.config.mts:9");
        assert_eq!(
            a.path_of("@excalidraw/common/utils"),
            "packages/common/src/utils"
        );
        assert!(alias_for(&own, &[], "@excalidraw/element", false, &|_| true).is_none());
        assert!(alias_for(&own, &[], "react", false, &|_| true).is_none());
        assert!(alias_for(&own, &[], "graphql", false, &|_| true).is_none());
        assert!(alias_for(&own, &[], "@old", false, &|_| true).is_none());

        // An object of aliases, and jest's regex keys; a test runner's count for tests only.
        let vitest = "export default { resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)), vue: 'vue/dist/vue.esm-bundler.js' } } }";
        let jest = "module.exports = {\n  moduleNameMapper: {\n    '^@/(.*)$': '<rootDir>/src/$1',\n    '^react$': '<rootDir>/node_modules/react',\n    '\\\\.(css|less)$': 'identity-obj-proxy',\n  },\n};\n";
        let mut tests = config_aliases("web/vitest.config.ts", vitest, true);
        tests.extend(config_aliases("web/jest.config.js", jest, true));
        let patterns: Vec<_> = tests.iter().map(|a| a.pattern.as_str()).collect();
        assert_eq!(patterns, ["@/*", "@/*"]);
        assert_eq!(tests[0].path_of("@/x/y"), "web/src/x/y");
        assert_eq!(tests[1].at, "web/jest.config.js:3");
        assert!(alias_for(&tests, &[], "@/x", true, &|_| true).is_some());
        assert!(alias_for(&tests, &[], "@/x", false, &|_| true).is_none());
        assert!(alias_for(&tests, &[], "@scope/pkg", true, &|_| true).is_none());
    }

    #[test]
    fn alias_regexes_count_by_their_anchored_start() {
        assert_eq!(regex_patterns("^@x\\/y$"), ["@x/y"]);
        assert_eq!(regex_patterns("^~\\/(.*)"), ["~/*"]);
        assert_eq!(regex_patterns("^@x\\/y(\\/.*)?$"), ["@x/y", "@x/y/*"]);
        // A required group: the paths below only.
        assert_eq!(regex_patterns("^@x\\/y(\\/.*)$"), ["@x/y/*"]);
        // Alternatives inside a group after the literal start are that group's.
        assert_eq!(
            regex_patterns("^@app\\/(components|hooks)\\/(.*)$"),
            ["@app/*"]
        );
        // Anchored at its start only: whatever starts so.
        assert_eq!(regex_patterns("^@app\\/"), ["@app/*"]);
        assert!(regex_patterns("@x").is_empty());
        assert!(regex_patterns("^(.*)\\.svg$").is_empty());
        // A group within the first segment, or alternatives, would take every scoped package.
        assert!(regex_patterns("^@(components|hooks)\\/(.*)$").is_empty());
        assert!(regex_patterns("^@x(y)\\/").is_empty());
        assert!(regex_patterns("^react$|^@/(.*)").is_empty());
    }

    #[test]
    fn odd_config_text_reads_no_alias_and_never_panics() {
        // Text after `alias:` that is no object: a string with multi-byte characters, an
        // unclosed list, a key at the end, a variable.
        for text in [
            "define: { N: JSON.stringify('alias: ñandú (x)') }",
            "alias: [ { find: 'ü', replacement: './ß",
            "resolve: { alias",
            "resolve: { alias: aliases }",
            "alias: /ñ[/, x: 'é'",
            "alias: {'é': './ü', 'ñ/': `./ñ`}",
        ] {
            let found = config_aliases("vite.config.js", text, false);
            assert!(found.iter().all(|a| !a.pattern.is_empty()), "{text}");
        }
        // Mentions of the word before the key are not keys: they leave the cap alone.
        let noisy = format!(
            "{}export default {{ resolve: {{ alias: {{ '@': path.resolve(__dirname, 'src') }} }} }}",
            "// alias note\nconst aliasName = 1;\n".repeat(70)
        );
        assert_eq!(config_aliases("vite.config.js", &noisy, false).len(), 1);
        // webpack's `xyz$` is `xyz` alone.
        let webpack =
            "module.exports = { resolve: { alias: { vue$: path.resolve(__dirname, 'vue.js') } } }";
        let found = config_aliases("webpack.config.js", webpack, false);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].pattern, "vue");
    }
}
