//! What a crate's `Cargo.toml` switches on of the crates it declares (`features = […]`,
//! default features, what `workspace = true` inherits): the evidence behind Rust's doubts
//! that an unused declaration is there to switch a feature on for another crate.

use std::collections::{BTreeSet, HashMap, HashSet};

/// The dependencies a `Cargo.toml` (parsed) declares with features switched on (`features = […]`, not
/// empty), in any of its dependency tables.
pub(super) fn feature_switches(table: &toml::Table) -> HashSet<String> {
    switch_declarations(table)
        .map(|(name, _)| name.clone())
        .collect()
}

/// Every dependency table of `table`, as (its section's name, the table), the targets' too.
fn sections(table: &toml::Table) -> impl Iterator<Item = (&'static str, &toml::Table)> + '_ {
    const SECTIONS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    let targets = table
        .get("target")
        .and_then(|t| t.as_table())
        .into_iter()
        .flat_map(|t| t.values().filter_map(|v| v.as_table()));
    std::iter::once(table).chain(targets).flat_map(|t| {
        SECTIONS
            .iter()
            .filter_map(|s| Some((*s, t.get(*s)?.as_table()?)))
    })
}

/// Every declaration of `table`, as (key, spec), in every dependency section and target.
fn declarations(table: &toml::Table) -> impl Iterator<Item = (&String, &toml::Value)> + '_ {
    sections(table).flat_map(|(_, deps)| deps.iter())
}

/// The declarations of `table` that switch features on (a non-empty `features`), as (key,
/// spec), in every dependency section and target.
fn switch_declarations(table: &toml::Table) -> impl Iterator<Item = (&String, &toml::Value)> + '_ {
    declarations(table).filter(|(_, spec)| !spec_features(spec).is_empty())
}

/// The features a declaration's spec names (`features = [...]`).
fn spec_features(spec: &toml::Value) -> Vec<&str> {
    (spec
        .get("features")
        .and_then(|f| f.as_array())
        .into_iter()
        .flatten())
    .filter_map(|f| f.as_str())
    .collect()
}

/// What a crate's `Cargo.toml` (`table`) switches on of each crate it declares (by the key
/// declared), with what an inheriting entry (`workspace = true`) gets from its workspace's
/// `[workspace.dependencies]` (`workspace`): Cargo adds the two. Its default features count
/// as the feature `default` unless an entry turns them off. In every section (`all`), and in
/// those a normal build of it resolves (`normal`: `[dependencies]`, a target's too), which is
/// what it switches on for the crates built with it.
pub(super) fn declared_features(
    table: &toml::Table,
    workspace: Option<&toml::Table>,
) -> DeclaredFeatures {
    let inherited = workspace.and_then(|w| w.get("workspace")?.get("dependencies")?.as_table());
    let mut out = DeclaredFeatures::default();
    for (section, deps) in sections(table) {
        for (key, spec) in deps {
            let ws = (spec.get("workspace").and_then(|w| w.as_bool()) == Some(true))
                .then(|| inherited.and_then(|d| d.get(key)))
                .flatten();
            let mut on: BTreeSet<String> = spec_features(spec)
                .into_iter()
                .chain(ws.map(spec_features).unwrap_or_default())
                .map(str::to_string)
                .collect();
            let no_default = |s: &toml::Value| {
                s.get("default-features").and_then(|d| d.as_bool()) == Some(false)
            };
            if !no_default(spec) && !ws.is_some_and(no_default) {
                on.insert("default".to_string());
            }
            out.all
                .entry(key.clone())
                .or_default()
                .extend(on.iter().cloned());
            if section == "dependencies" {
                out.normal.entry(key.clone()).or_default().extend(on);
            }
        }
    }
    out
}

/// What a crate's `Cargo.toml` switches on of the crates it declares (see
/// [`declared_features`]).
#[derive(Default)]
pub(super) struct DeclaredFeatures {
    /// In every section.
    pub(super) all: HashMap<String, BTreeSet<String>>,
    /// In the sections a normal build resolves.
    pub(super) normal: HashMap<String, BTreeSet<String>>,
}

/// The declarations of `table` that switch on a feature choosing how a native library is
/// built or found, of a `*-sys` or `*-src` crate (`bundled`, `vendored`, `static`,
/// `pkg-config`, …), or which entropy source `getrandom` uses (`js`, `wasm_js`, `custom`,
/// `rdrand`), as key → package: declared for a crate that uses it through others, which
/// Cargo's unified features reach however deep it is.
pub(super) fn native_switches(table: &toml::Table) -> HashMap<String, String> {
    const NATIVE: &[&str] = &[
        "bundle",
        "vendor",
        "static",
        "system",
        "pkg-config",
        "pkg_config",
    ];
    const ENTROPY: &[&str] = &["js", "wasm_js", "custom", "rdrand"];
    switch_declarations(table)
        .filter_map(|(key, spec)| {
            let package = spec.get("package").and_then(|p| p.as_str());
            let name = package.unwrap_or(key.as_str()).replace('_', "-");
            let features = spec_features(spec);
            let switches = |words: &[&str], exact: bool| {
                features.iter().any(|f| {
                    let f = f.to_ascii_lowercase();
                    words
                        .iter()
                        .any(|w| if exact { f == *w } else { f.contains(w) })
                })
            };
            let native =
                (name.ends_with("-sys") || name.ends_with("-src")) && switches(NATIVE, false);
            let entropy = name == "getrandom" && switches(ENTROPY, true);
            (native || entropy).then(|| (key.clone(), name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_features_add_the_workspace_s_and_defaults_and_keep_normal_apart() {
        let ws: toml::Table = toml::from_str(
            "[workspace.dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\nlog = { version = \"0.4\", default-features = false }\n",
        )
        .expect("toml");
        let krate: toml::Table = toml::from_str(
            "[dependencies]\nserde = { workspace = true, features = [\"rc\"] }\nlog.workspace = true\n\n[dev-dependencies]\nrand = { version = \"0.8\", features = [\"small_rng\"] }\n\n[target.'cfg(unix)'.dependencies]\nnix = { version = \"0.29\", default-features = false }\n",
        )
        .expect("toml");
        let f = declared_features(&krate, Some(&ws));
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        assert_eq!(f.normal["serde"], set(&["default", "derive", "rc"]));
        assert_eq!(f.normal["log"], set(&[]));
        assert_eq!(f.normal["nix"], set(&[]));
        assert!(!f.normal.contains_key("rand"));
        assert_eq!(f.all["rand"], set(&["default", "small_rng"]));
    }
}
