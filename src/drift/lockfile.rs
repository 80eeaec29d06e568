//! What a lockfile records that no manifest of a module says. A JS lockfile at the
//! repository's root: which packages each package needs installed beside it (its required
//! peers). `next` needs `react-dom`, `@angular/platform-browser` needs `@angular/common`: a
//! module declares them for the package that uses them, and no line of its code imports them.
//! Any lockfile (JS, `uv.lock`, `poetry.lock`, `Cargo.lock`): what each package itself
//! depends on, so a declaration of a package another declaration brings anyway can be told
//! for what it likely is — a pin of that copy's version or a switch of its features.

use std::collections::HashMap;

/// The lockfiles read, in the order they are looked for.
pub(crate) const LOCKFILES: &[&str] = &["pnpm-lock.yaml", "package-lock.json", "yarn.lock"];

/// Per package name, the peers it requires (optional ones left out), across its versions,
/// and the lockfile they were read from.
#[derive(Debug, Default)]
pub(crate) struct Peers {
    /// The lockfile's repo-relative path.
    pub file: String,
    /// Package → its required peers.
    pub required: HashMap<String, Vec<String>>,
    /// A workspace package of the mesh → the peers (required or optional) its own code
    /// imports: what it needs installed beside it, read from its package.json and its code
    /// rather than from a lockfile (`@trpc/next` imports `@tanstack/react-query`, an optional
    /// peer, so an app using `@trpc/next` needs it).
    pub workspace: HashMap<String, Vec<String>>,
}

impl Peers {
    /// Whether `package` requires `peer` installed beside it.
    #[cfg(test)]
    fn requires(&self, package: &str, peer: &str) -> bool {
        self.recorded_by(package, peer).is_some()
    }

    /// Where it is recorded that `package` requires `peer`: the lockfile, or the workspace
    /// package's own peerDependencies with its imports.
    pub(crate) fn recorded_by(&self, package: &str, peer: &str) -> Option<String> {
        let has = |m: &HashMap<String, Vec<String>>| {
            m.get(package).is_some_and(|p| p.iter().any(|x| x == peer))
        };
        if has(&self.required) {
            Some(format!("{} records the peer", self.file))
        } else if has(&self.workspace) {
            Some(format!(
                "{package}'s package.json declares it a peer, and its code imports it"
            ))
        } else {
            None
        }
    }
}

/// Per package name (as its ecosystem normalizes it), the packages it depends on itself, as
/// one lockfile records them: what comes with a package whether or not a module declares it.
#[derive(Debug)]
pub(crate) struct Depends {
    /// The lockfile's repo-relative path.
    pub file: String,
    /// Package → what it depends on (required and optional), both normalized by `norm`.
    pub of: HashMap<String, Vec<String>>,
    /// Package → its optional dependencies: what it loads when they could be installed (JS
    /// lockfiles), or what the extras asked of it install (`uv.lock`'s; none recorded for
    /// poetry's or Cargo's).
    pub optional: HashMap<String, Vec<String>>,
    /// How the ecosystem compares names: PEP 503 for Python, `-` for `_` in Rust's.
    norm: fn(&str) -> String,
}

impl Depends {
    /// Whether `package` depends on `dependency`, as the lockfile records.
    pub(crate) fn on(&self, package: &str, dependency: &str) -> bool {
        let dependency = (self.norm)(dependency);
        self.of
            .get(&(self.norm)(package))
            .is_some_and(|d| d.contains(&dependency))
    }

    /// Whether a package other than `own` depends on `dependency`, as the lockfile records.
    pub(crate) fn brought_by_other(&self, dependency: &str, own: &str) -> bool {
        let (dependency, own) = ((self.norm)(dependency), (self.norm)(own));
        self.of
            .iter()
            .any(|(p, deps)| *p != own && deps.contains(&dependency))
    }

    /// Whether `package` has `dependency` as an optional dependency, as the lockfile records:
    /// it loads it when it could be installed.
    pub(crate) fn loads(&self, package: &str, dependency: &str) -> bool {
        let dependency = (self.norm)(dependency);
        self.optional
            .get(&(self.norm)(package))
            .is_some_and(|d| d.contains(&dependency))
    }
}

/// The lockfiles of Python projects read for [`Depends`], looked for beside a module's
/// manifest and in each directory above it.
pub(crate) const PYTHON_LOCKFILES: &[&str] = &["uv.lock", "poetry.lock"];

/// The lockfile of a Rust crate or workspace, looked for as [`PYTHON_LOCKFILES`] are.
pub(crate) const RUST_LOCKFILES: &[&str] = &["Cargo.lock"];

/// A lockfile's dependencies, shared by the modules below it; `None` where there is none.
pub(crate) type Lock = Option<std::rc::Rc<Depends>>;

/// What a JS lockfile records: the peers each package requires, and what each depends on.
pub(crate) struct JsLockfile {
    /// The peers each package requires.
    pub peers: Peers,
    /// What each package depends on.
    pub depends: Depends,
}

/// A JS lockfile below the repository's root, shared by the packages below it.
pub(crate) type JsLock = Option<std::rc::Rc<JsLockfile>>;

/// The lockfiles looked for, by (repository, path): what each records (`T`: a Python or
/// Rust lockfile's [`Depends`], a JS one's [`JsLockfile`]), or `None` where there is none or
/// it records nothing. Each is read once, on first need.
pub(crate) struct Locks<T>(std::cell::RefCell<HashMap<LockKey, Option<std::rc::Rc<T>>>>);

/// A lockfile's place: its repository (by index) and repo-relative path.
type LockKey = (usize, String);

impl<T> Default for Locks<T> {
    fn default() -> Self {
        Locks(Default::default())
    }
}

impl<T> Locks<T> {
    /// The nearest of the lockfiles `names` in `dir` of repository `repo` (`snap`) or in a
    /// directory above it (the repository's root too when `root_too`), and what `read` makes
    /// of it: a workspace keeps one at its root. A lockfile that cannot be read, or records
    /// nothing `read` knows (yarn 1's), is as none, and the walk goes on above it: it only
    /// ever adds doubt.
    pub(crate) fn above(
        &self,
        (snap, repo): (&crate::source::RepoSnapshot, usize),
        dir: &str,
        names: &[&str],
        root_too: bool,
        read: fn(&str, &str) -> Option<T>,
    ) -> Option<std::rc::Rc<T>> {
        let root = snap.root_tree().ok()?;
        for at in mesh_imports::ancestors(dir).filter(|d| root_too || !d.is_empty()) {
            for name in names {
                let path = crate::source::join(at, name);
                let key = (repo, path.clone());
                let cached = self.0.borrow().get(&key).cloned();
                let found = match cached {
                    Some(found) => found,
                    None => {
                        let read = crate::source::blob_text(snap, &root, &path)
                            .ok()
                            .flatten()
                            .and_then(|text| read(&path, &text))
                            .map(std::rc::Rc::new);
                        self.0.borrow_mut().insert(key, read.clone());
                        read
                    }
                };
                if found.is_some() {
                    return found;
                }
            }
        }
        None
    }
}

/// The required peers and the dependencies a JS lockfile named `file` (one of
/// [`LOCKFILES`]) records in `text`.
pub(crate) fn js(file: &str, text: &str) -> (Peers, Depends) {
    let Read {
        peers: required,
        depends: of,
        optional,
        ..
    } = match file.rsplit('/').next() {
        Some("package-lock.json") => package_lock(text),
        _ => yaml_lock(text),
    };
    let peers = Peers {
        file: file.to_string(),
        required,
        workspace: HashMap::new(),
    };
    let depends = Depends {
        file: file.to_string(),
        of,
        optional,
        norm: str::to_string,
    };
    (peers, depends)
}

/// What a `uv.lock`, `poetry.lock` or `Cargo.lock` named `file` records in `text` of each
/// package's dependencies (an unreadable one records none): each `[[package]]`'s
/// `dependencies` — uv's `{ name = … }` tables, Cargo's `"name version"` strings, poetry's
/// table keys — and uv's `optional-dependencies`.
pub(crate) fn toml(file: &str, text: &str) -> Depends {
    let norm: fn(&str) -> String = match file.ends_with("Cargo.lock") {
        true => |n| n.to_ascii_lowercase().replace('_', "-"),
        false => |n| super::names::pep503(n),
    };
    let mut of: HashMap<String, Vec<String>> = HashMap::new();
    let mut optional: HashMap<String, Vec<String>> = HashMap::new();
    let table = ::toml::from_str::<::toml::Table>(text).unwrap_or_default();
    let packages = table.get("package").and_then(|p| p.as_array());
    for p in packages.into_iter().flatten() {
        let Some(name) = p.get("name").and_then(|n| n.as_str()) else {
            continue;
        };
        for dep in p.get("dependencies").into_iter().flat_map(toml_names) {
            add(&mut of, &norm(name), &norm(&dep));
        }
        // What an extra something in the resolution asks for installs (uv's
        // `optional-dependencies`; poetry's `extras` list every extra a package has, asked
        // for or not, so they say nothing): a dependency the package loads for a feature.
        let extras = (p.get("optional-dependencies").and_then(|o| o.as_table()))
            .into_iter()
            .flat_map(|t| t.values());
        for dep in extras.flat_map(toml_names) {
            add(&mut of, &norm(name), &norm(&dep));
            add(&mut optional, &norm(name), &norm(&dep));
        }
    }
    Depends {
        file: file.to_string(),
        of,
        optional,
        norm,
    }
}

/// The package names a lockfile's dependency list holds: a list of `"name version"` strings
/// or `{ name = … }` tables, or a table keyed by name.
fn toml_names(list: &::toml::Value) -> Vec<String> {
    match list {
        ::toml::Value::Array(items) => items
            .iter()
            .filter_map(|i| match i {
                ::toml::Value::String(s) => s.split_whitespace().next().map(str::to_string),
                ::toml::Value::Table(t) => t.get("name")?.as_str().map(str::to_string),
                _ => None,
            })
            .collect(),
        ::toml::Value::Table(t) => t.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// Package → packages, as a lockfile reader gives them.
type ByPackage = HashMap<String, Vec<String>>;

/// What a JS lockfile reader gives: per package, its required peers, its dependencies
/// (required and optional), and its optional dependencies.
#[derive(Default)]
struct Read {
    peers: ByPackage,
    depends: ByPackage,
    optional: ByPackage,
    /// Every peer, optional or not: pnpm's snapshots list a resolved optional peer among
    /// the `optionalDependencies`, which it is not.
    any_peers: ByPackage,
}

/// npm's `package-lock.json` (v2, v3): each `packages` entry's `peerDependencies`, less
/// those its `peerDependenciesMeta` marks optional; and its `dependencies` and
/// `optionalDependencies`.
fn package_lock(text: &str) -> Read {
    let mut read = Read::default();
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        return read;
    };
    let Some(packages) = json.get("packages").and_then(|p| p.as_object()) else {
        return read;
    };
    for (path, entry) in packages {
        let Some(name) = path
            .rsplit("node_modules/")
            .next()
            .filter(|n| !n.is_empty())
        else {
            continue;
        };
        for peer in required_peers(entry) {
            add(&mut read.peers, name, &peer);
        }
        for key in ["dependencies", "optionalDependencies"] {
            let deps = entry.get(key).and_then(|d| d.as_object());
            for dep in deps.into_iter().flat_map(|d| d.keys()) {
                add(&mut read.depends, name, dep);
                if key == "optionalDependencies" {
                    add(&mut read.optional, name, dep);
                }
            }
        }
    }
    read
}

/// The required peers of one package's entry (a lockfile's, or an installed package.json):
/// its `peerDependencies` less those its `peerDependenciesMeta` marks optional.
pub(crate) fn required_peers(entry: &serde_json::Value) -> Vec<String> {
    let optional = |peer: &str| {
        entry
            .get("peerDependenciesMeta")
            .and_then(|m| m.get(peer))
            .and_then(|m| m.get("optional"))
            .and_then(|o| o.as_bool())
            .unwrap_or(false)
    };
    let peers = entry.get("peerDependencies").and_then(|p| p.as_object());
    peers
        .into_iter()
        .flat_map(|p| p.keys())
        .filter(|p| !optional(p))
        .cloned()
        .collect()
}

/// pnpm's `pnpm-lock.yaml` and yarn's `yarn.lock`, read by indentation: an entry's key
/// (`'@angular/platform-browser@20.0.0':`, `"react-dom@npm:^18.2.0":`), its
/// `peerDependencies:` and `peerDependenciesMeta:` blocks below it (the peers; yarn 1's
/// lockfile records none), and its `dependencies:` and `optionalDependencies:` blocks.
fn yaml_lock(text: &str) -> Read {
    let mut read = Read::default();
    // The entry being read: its name and indentation.
    let mut entry: Option<(String, usize)> = None;
    // The block being read inside it (`peerDependencies` or `peerDependenciesMeta`) and its
    // indentation, and the meta block's current peer.
    let mut block: Option<(&str, usize)> = None;
    let mut meta_peer: Option<String> = None;
    let mut peers: Vec<String> = Vec::new();
    let mut optional: Vec<String> = Vec::new();
    let flush = |read: &mut Read,
                 entry: &Option<(String, usize)>,
                 peers: &mut Vec<String>,
                 optional: &mut Vec<String>| {
        if let Some((name, _)) = entry {
            for p in peers.drain(..) {
                add(&mut read.any_peers, name, &p);
                if !optional.contains(&p) {
                    add(&mut read.peers, name, &p);
                }
            }
        }
        peers.clear();
        optional.clear();
    };
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = line.len() - trimmed.len();
        if let Some((_, at)) = block
            && indent <= at
        {
            block = None;
        }
        if let Some((_, at)) = &entry
            && indent <= *at
        {
            flush(&mut read, &entry, &mut peers, &mut optional);
            entry = None;
        }
        let key = trimmed.strip_suffix(':').map(unquote);
        match (block, key) {
            (None, Some(k)) if entry.is_none() => {
                if let Some(name) = entry_name(k) {
                    entry = Some((name, indent));
                }
            }
            (
                None,
                Some(
                    k @ ("peerDependencies"
                    | "peerDependenciesMeta"
                    | "dependencies"
                    | "optionalDependencies"),
                ),
            ) => {
                block = Some((k, indent));
            }
            (Some(("peerDependenciesMeta", at)), Some(k)) if indent == at + 2 => {
                meta_peer = Some(k.to_string());
            }
            (Some(("peerDependenciesMeta", _)), _) => {
                if trimmed.replace(' ', "") == "optional:true"
                    && let Some(p) = meta_peer.take()
                {
                    optional.push(p);
                }
            }
            (Some(("peerDependencies", at)), _) if indent == at + 2 => {
                let name = block_name(trimmed);
                if !name.is_empty() {
                    peers.push(name.to_string());
                }
            }
            (Some((_, at)), _) if indent == at + 2 => {
                let name = block_name(trimmed);
                if let (Some((package, _)), false) = (&entry, name.is_empty()) {
                    add(&mut read.depends, package, name);
                    if block.is_some_and(|(k, _)| k == "optionalDependencies") {
                        add(&mut read.optional, package, name);
                    }
                }
            }
            _ => {}
        }
    }
    flush(&mut read, &entry, &mut peers, &mut optional);
    for (package, list) in read.optional.iter_mut() {
        if let Some(peers) = read.any_peers.get(package) {
            list.retain(|d| !peers.contains(d));
        }
    }
    read
}

/// The package a line of a lockfile's dependency block names: `react: ^19`,
/// `'@angular/core': 20.0.0`, yarn 1's `"@babel/core" "^7.0.0"` and `lodash "^4.17.0"`.
fn block_name(line: &str) -> &str {
    match line.chars().next() {
        Some(q @ ('\'' | '"')) => line[1..].split(q).next().unwrap_or(""),
        _ => line.split([':', ' ']).next().unwrap_or("").trim(),
    }
}

/// `'x'` or `"x"` as `x`.
fn unquote(s: &str) -> &str {
    let s = s.trim();
    s.strip_prefix(['\'', '"'])
        .and_then(|r| r.strip_suffix(['\'', '"']))
        .unwrap_or(s)
}

/// The package an entry's key names: the first of its specifiers, up to its version's `@`
/// (`@scope/name@1.0.0(peer@2)` → `@scope/name`, `react-dom@npm:^18, react-dom@npm:^17` →
/// `react-dom`); none for a key with no version (a section, an importer's dependency).
fn entry_name(key: &str) -> Option<String> {
    // pnpm 6 to 8 write `/name@version` (`/@angular/core@16.0.0`).
    let first = unquote(key.split(", ").next().unwrap_or(key));
    let first = first.strip_prefix('/').unwrap_or(first);
    let after_scope = usize::from(first.starts_with('@'));
    let at = first.get(after_scope..)?.find('@')? + after_scope;
    let name = &first[..at];
    (!name.is_empty() && !name.contains(' ')).then(|| name.to_string())
}

fn add(out: &mut HashMap<String, Vec<String>>, package: &str, peer: &str) {
    let list = out.entry(package.to_string()).or_default();
    if !list.iter().any(|p| p == peer) {
        list.push(peer.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pnpm_lock_peers_without_the_optional_ones() {
        let text = "lockfileVersion: '9.0'\n\nimporters:\n\n  .:\n    devDependencies:\n      '@eslint-react/eslint-plugin':\n        specifier: ^2.0.1\n        version: 2.13.0\n\npackages:\n\n  '@0no-co/graphql.web@1.2.0':\n    resolution: {integrity: sha512-x}\n    peerDependencies:\n      graphql: ^14.0.0 || ^15.0.0\n    peerDependenciesMeta:\n      graphql:\n        optional: true\n\n  '@angular/platform-browser@20.0.0':\n    resolution: {integrity: sha512-y}\n    peerDependencies:\n      '@angular/animations': 20.0.0\n      '@angular/common': 20.0.0\n      '@angular/core': 20.0.0\n    peerDependenciesMeta:\n      '@angular/animations':\n        optional: true\n\n  next@15.0.0:\n    resolution: {integrity: sha512-z}\n    peerDependencies:\n      react: ^19\n      react-dom: ^19\n";
        let p = js("pnpm-lock.yaml", text).0;
        assert!(p.requires("next", "react-dom"));
        assert!(p.requires("@angular/platform-browser", "@angular/common"));
        assert!(!p.requires("@angular/platform-browser", "@angular/animations"));
        assert!(!p.requires("@0no-co/graphql.web", "graphql"));
        assert!(!p.required.contains_key("@eslint-react/eslint-plugin"));
        // pnpm 8's keys start with `/`.
        let v6 = "lockfileVersion: '6.0'\n\npackages:\n\n  /@angular/common@16.0.0(rxjs@7.8.1):\n    resolution: {integrity: sha512-a}\n    peerDependencies:\n      '@angular/core': 16.0.0\n      rxjs: ^7.4.0\n";
        let p = js("pnpm-lock.yaml", v6).0;
        assert!(p.requires("@angular/common", "@angular/core"));
        assert!(p.requires("@angular/common", "rxjs"));
    }

    #[test]
    fn yarn_berry_and_package_lock_peers() {
        let yarn = "__metadata:\n  version: 8\n\n\"@algolia/autocomplete-shared@npm:1.19.2\":\n  version: 1.19.2\n  peerDependencies:\n    \"@algolia/client-search\": \">= 4.9.1 < 6\"\n    algoliasearch: \">= 4.9.1 < 6\"\n  checksum: 10/x\n\n\"react-dom@npm:^18.0.0, react-dom@npm:^18.2.0\":\n  version: 18.2.0\n  peerDependencies:\n    react: ^18.2.0\n";
        let p = js("yarn.lock", yarn).0;
        assert!(p.requires("@algolia/autocomplete-shared", "@algolia/client-search"));
        assert!(p.requires("@algolia/autocomplete-shared", "algoliasearch"));
        assert!(p.requires("react-dom", "react"));
        let npm = "{\"packages\": {\"\": {\"name\": \"root\"}, \"node_modules/next\": {\"peerDependencies\": {\"react\": \"^19\", \"sass\": \"*\"}, \"peerDependenciesMeta\": {\"sass\": {\"optional\": true}}}}}";
        let p = js("package-lock.json", npm).0;
        assert!(p.requires("next", "react") && !p.requires("next", "sass"));
        // Garbage gives nothing, never a panic.
        assert!(js("pnpm-lock.yaml", "::\n  - ]\n'@").0.required.is_empty());
        assert!(js("package-lock.json", "{").0.required.is_empty());
    }

    #[test]
    fn what_each_package_depends_on_in_every_lockfile() {
        let yarn1 = "# yarn lockfile v1\n\n\"@fortawesome/fontawesome-svg-core@^6.7.2\":\n  version \"6.7.2\"\n  dependencies:\n    \"@fortawesome/fontawesome-common-types\" \"6.7.2\"\n    lodash \"^4\"\n";
        let d = js("yarn.lock", yarn1).1;
        assert!(d.on(
            "@fortawesome/fontawesome-svg-core",
            "@fortawesome/fontawesome-common-types"
        ));
        assert!(d.on("@fortawesome/fontawesome-svg-core", "lodash"));
        let npm = "{\"packages\": {\"node_modules/vue\": {\"dependencies\": {\"@vue/shared\": \"3\"}, \"optionalDependencies\": {\"fsevents\": \"2\"}}}}";
        let d = js("package-lock.json", npm).1;
        assert!(d.on("vue", "@vue/shared") && d.on("vue", "fsevents") && !d.on("vue", "react"));
        // A pnpm importer's dependencies are the module's own, not a package's.
        let pnpm = "importers:\n  .:\n    dependencies:\n      vue:\n        specifier: '3'\n";
        assert!(js("pnpm-lock.yaml", pnpm).1.of.is_empty());
        let poetry = "[[package]]\nname = \"Chroma_DB\"\nversion = \"1\"\n\n[package.dependencies]\ntokenizers = \">=0.13\"\n";
        let d = toml("poetry.lock", poetry);
        assert!(d.on("chroma-db", "Tokenizers"));
        let uv = "[[package]]\nname = \"agents\"\n\n[package.optional-dependencies]\naws = [{ name = \"aws-sdk-signers\" }]\n";
        assert!(toml("uv.lock", uv).on("agents", "aws_sdk_signers"));
        let cargo = "[[package]]\nname = \"gix\"\nversion = \"1\"\ndependencies = [\"gix-transport 0.45.0\"]\n";
        assert!(toml("Cargo.lock", cargo).on("gix", "gix_transport"));
        assert!(toml("Cargo.lock", "[[package").of.is_empty());
    }
}
