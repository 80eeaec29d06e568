//! What a JS lockfile at the repository's root records that no manifest of a module says:
//! which packages each package needs installed beside it (its required peers). `next` needs
//! `react-dom`, `@angular/platform-browser` needs `@angular/common`: a module declares them
//! for the package that uses them, and no line of its code imports them.

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

/// The required peers a lockfile named `file` (one of [`LOCKFILES`]) records in `text`.
pub(crate) fn peers(file: &str, text: &str) -> Peers {
    let required = match file.rsplit('/').next() {
        Some("package-lock.json") => package_lock(text),
        _ => yaml_lock(text),
    };
    Peers {
        file: file.to_string(),
        required,
        workspace: HashMap::new(),
    }
}

/// npm's `package-lock.json` (v2, v3): each `packages` entry's `peerDependencies`, less
/// those its `peerDependenciesMeta` marks optional.
fn package_lock(text: &str) -> HashMap<String, Vec<String>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        return out;
    };
    let Some(packages) = json.get("packages").and_then(|p| p.as_object()) else {
        return out;
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
            add(&mut out, name, &peer);
        }
    }
    out
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

/// pnpm's `pnpm-lock.yaml` and yarn's (berry) `yarn.lock`, read by indentation: an entry's
/// key (`'@angular/platform-browser@20.0.0':`, `"react-dom@npm:^18.2.0":`), its
/// `peerDependencies:` and `peerDependenciesMeta:` blocks below it. Yarn 1's lockfile records
/// no peers, and gives none.
fn yaml_lock(text: &str) -> HashMap<String, Vec<String>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    // The entry being read: its name and indentation.
    let mut entry: Option<(String, usize)> = None;
    // The block being read inside it (`peerDependencies` or `peerDependenciesMeta`) and its
    // indentation, and the meta block's current peer.
    let mut block: Option<(&str, usize)> = None;
    let mut meta_peer: Option<String> = None;
    let mut peers: Vec<String> = Vec::new();
    let mut optional: Vec<String> = Vec::new();
    let mut flush =
        |entry: &Option<(String, usize)>, peers: &mut Vec<String>, optional: &mut Vec<String>| {
            if let Some((name, _)) = entry {
                for p in peers.drain(..) {
                    if !optional.contains(&p) {
                        add(&mut out, name, &p);
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
            flush(&entry, &mut peers, &mut optional);
            entry = None;
        }
        let key = trimmed.strip_suffix(':').map(unquote);
        match (block, key) {
            (None, Some(k)) if entry.is_none() => {
                if let Some(name) = entry_name(k) {
                    entry = Some((name, indent));
                }
            }
            (None, Some(k @ ("peerDependencies" | "peerDependenciesMeta"))) => {
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
                let name = match trimmed.chars().next() {
                    Some(q @ ('\'' | '"')) => trimmed[1..].split(q).next().unwrap_or(""),
                    _ => trimmed.split_once(':').map_or(trimmed, |(k, _)| k).trim(),
                };
                if !name.is_empty() {
                    peers.push(name.to_string());
                }
            }
            _ => {}
        }
    }
    flush(&entry, &mut peers, &mut optional);
    out
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
        let p = peers("pnpm-lock.yaml", text);
        assert!(p.requires("next", "react-dom"));
        assert!(p.requires("@angular/platform-browser", "@angular/common"));
        assert!(!p.requires("@angular/platform-browser", "@angular/animations"));
        assert!(!p.requires("@0no-co/graphql.web", "graphql"));
        assert!(!p.required.contains_key("@eslint-react/eslint-plugin"));
        // pnpm 8's keys start with `/`.
        let v6 = "lockfileVersion: '6.0'\n\npackages:\n\n  /@angular/common@16.0.0(rxjs@7.8.1):\n    resolution: {integrity: sha512-a}\n    peerDependencies:\n      '@angular/core': 16.0.0\n      rxjs: ^7.4.0\n";
        let p = peers("pnpm-lock.yaml", v6);
        assert!(p.requires("@angular/common", "@angular/core"));
        assert!(p.requires("@angular/common", "rxjs"));
    }

    #[test]
    fn yarn_berry_and_package_lock_peers() {
        let yarn = "__metadata:\n  version: 8\n\n\"@algolia/autocomplete-shared@npm:1.19.2\":\n  version: 1.19.2\n  peerDependencies:\n    \"@algolia/client-search\": \">= 4.9.1 < 6\"\n    algoliasearch: \">= 4.9.1 < 6\"\n  checksum: 10/x\n\n\"react-dom@npm:^18.0.0, react-dom@npm:^18.2.0\":\n  version: 18.2.0\n  peerDependencies:\n    react: ^18.2.0\n";
        let p = peers("yarn.lock", yarn);
        assert!(p.requires("@algolia/autocomplete-shared", "@algolia/client-search"));
        assert!(p.requires("@algolia/autocomplete-shared", "algoliasearch"));
        assert!(p.requires("react-dom", "react"));
        let npm = "{\"packages\": {\"\": {\"name\": \"root\"}, \"node_modules/next\": {\"peerDependencies\": {\"react\": \"^19\", \"sass\": \"*\"}, \"peerDependenciesMeta\": {\"sass\": {\"optional\": true}}}}}";
        let p = peers("package-lock.json", npm);
        assert!(p.requires("next", "react") && !p.requires("next", "sass"));
        // Garbage gives nothing, never a panic.
        assert!(peers("pnpm-lock.yaml", "::\n  - ]\n'@").required.is_empty());
        assert!(peers("package-lock.json", "{").required.is_empty());
    }
}
