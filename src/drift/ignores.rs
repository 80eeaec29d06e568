//! What the maintainers told their ecosystem's own dependency checker to leave alone: knip's
//! `ignoreDependencies` (JS) and deptry's `per_rule_ignores` (Python), as cargo-shear's list
//! is read for Rust (see [`super::rust::tool_ignored`]). Such a list is the maintainers' word
//! that a dependency is right where no import shows it (a package loaded by name, a
//! framework's convention), so drift says nothing of it either. [`apply`] is the one place
//! every ecosystem's list is applied.

use super::explain::Probe;
use super::{DriftKind, Finding};
use mesh_imports::Language;

/// Knip's config files at the repository's root, in the order knip looks for them.
pub(crate) const KNIP_CONFIGS: &[&str] = &["knip.json", "knip.jsonc", ".knip.json", ".knip.jsonc"];

/// One dependency a list names, the findings it silences and where it is said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ignored {
    /// The dependency, as the finding names it (a Python one PEP 503-normalized).
    pub name: String,
    /// The kinds of finding the list turns off for it.
    pub kinds: &'static [DriftKind],
    /// The file and key that say so, for `--explain`.
    pub at: String,
    /// The ecosystem of the list: a Python name is matched PEP 503-normalized.
    pub language: Language,
}

impl Ignored {
    /// Whether it silences a finding of `kind` about `dependency`.
    pub(crate) fn silences(&self, dependency: &str, kind: DriftKind) -> bool {
        let same = match self.language {
            Language::Python => self.name == super::names::pep503(dependency),
            _ => self.name == dependency,
        };
        same && self.kinds.contains(&kind)
    }
}

/// Drops from `found` (one ecosystem's findings of one module) what `lists` silence, telling
/// `probe` which list says so.
pub(super) fn apply(lists: &[Ignored], probe: Option<&Probe>, found: &mut Vec<Finding>) {
    if lists.is_empty() {
        return;
    }
    let said_by = |f: &Finding| lists.iter().find(|l| l.silences(&f.dependency, f.kind));
    if let Some(p) = probe {
        for f in found.iter().filter(|f| p.names(&f.dependency)) {
            if let Some(l) = said_by(f) {
                let how = match f.kind {
                    DriftKind::Unused | DriftKind::DevOnly => " as used where no import shows it",
                    _ => "",
                };
                p.say(format!(
                    "{} lists it{how}: not called {}",
                    l.at,
                    f.kind.as_str()
                ));
            }
        }
    }
    found.retain(|f| said_by(f).is_none());
}

/// Unused and dev-only: a list of what an unused-dependency check must leave alone.
pub(super) const USED: &[DriftKind] = &[DriftKind::Unused, DriftKind::DevOnly];

/// Every kind: knip's `ignoreDependencies` turns off its unused and unlisted reports alike.
const ALL: &[DriftKind] = &[
    DriftKind::Unused,
    DriftKind::Undeclared,
    DriftKind::DevOnly,
    DriftKind::ShippedDev,
];

/// The dependencies a knip config (`text`, at `file`; JSONC, or a root package.json's `knip`
/// key) ignores for the workspace at `dir`: its top-level `ignoreDependencies`, and those of
/// each `workspaces` entry whose key (a directory or a glob) is `dir`. A regular expression
/// (which only a JS config can hold) is not read.
pub(crate) fn knip(text: &str, file: &str, dir: &str) -> Vec<Ignored> {
    let stripped = mesh_imports::tsconfig::strip_jsonc(text);
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&stripped) else {
        return Vec::new();
    };
    let config = match file.ends_with("package.json") {
        true => match json.get("knip") {
            Some(k) => k.clone(),
            None => return Vec::new(),
        },
        false => json,
    };
    let mut out = Vec::new();
    let mut add = |list: Option<&serde_json::Value>, key: String| {
        for name in list.and_then(|l| l.as_array()).into_iter().flatten() {
            if let Some(name) = name.as_str() {
                out.push(Ignored {
                    name: name.to_string(),
                    kinds: ALL,
                    at: format!("knip's `{key}` in {file}"),
                    language: Language::Js,
                });
            }
        }
    };
    add(
        config.get("ignoreDependencies"),
        "ignoreDependencies".into(),
    );
    let here = if dir.is_empty() { "." } else { dir };
    for (key, ws) in config
        .get("workspaces")
        .and_then(|w| w.as_object())
        .into_iter()
        .flatten()
    {
        let key_dir = key.trim_end_matches('/');
        let matches = key_dir == here
            || globset::GlobBuilder::new(key_dir)
                .literal_separator(true)
                .build()
                .map(|g| g.compile_matcher().is_match(here))
                .unwrap_or(false);
        if matches {
            add(
                ws.get("ignoreDependencies"),
                format!("workspaces.{key}.ignoreDependencies"),
            );
        }
    }
    out
}

/// The dependencies a pyproject's `[tool.deptry]` ignores: `per_rule_ignores` (DEP001
/// missing → undeclared, DEP002 unused → unused and dev-only, DEP003 transitive →
/// undeclared) and the older `ignore_missing`, `ignore_notused`, `ignore_transitive`.
pub(crate) fn deptry(pyproject: &str) -> Vec<Ignored> {
    if !pyproject.contains("deptry") {
        return Vec::new();
    }
    let Ok(table) = toml::from_str::<toml::Table>(pyproject) else {
        return Vec::new();
    };
    let Some(deptry) = table.get("tool").and_then(|t| t.get("deptry")) else {
        return Vec::new();
    };
    const MISSING: &[DriftKind] = &[DriftKind::Undeclared];
    let mut out = Vec::new();
    let mut add = |list: Option<&toml::Value>, kinds: &'static [DriftKind], key: &str| {
        for name in list.and_then(|l| l.as_array()).into_iter().flatten() {
            if let Some(name) = name.as_str() {
                // DEP001 and DEP003 list import names (`yaml`); a finding names the
                // distribution to declare (`pyyaml`).
                let name = match kinds == MISSING {
                    true => super::names::python_dist_for(name),
                    false => name.to_string(),
                };
                out.push(Ignored {
                    name: super::names::pep503(&name),
                    kinds,
                    at: format!("`[tool.deptry] {key}` in pyproject.toml"),
                    language: Language::Python,
                });
            }
        }
    };
    let rules = deptry.get("per_rule_ignores");
    for (rule, kinds) in [("DEP001", MISSING), ("DEP002", USED), ("DEP003", MISSING)] {
        add(
            rules.and_then(|r| r.get(rule)),
            kinds,
            &format!("per_rule_ignores.{rule}"),
        );
    }
    add(deptry.get("ignore_missing"), MISSING, "ignore_missing");
    add(deptry.get("ignore_notused"), USED, "ignore_notused");
    add(
        deptry.get("ignore_transitive"),
        MISSING,
        "ignore_transitive",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knip_lists_at_the_top_and_per_workspace() {
        // nuxt's knip.json: a top-level list, and one for its fixtures by glob.
        let text = "{\n  // comments are allowed\n  \"ignoreDependencies\": [\"ofetch\", \"@rspack/core\"],\n  \"workspaces\": {\n    \".\": {\"entry\": [\"scripts/*\"]},\n    \"test/fixtures/*\": {\"ignoreDependencies\": [\"nuxt\"]},\n    \"packages/kit\": {\"ignoreDependencies\": [\"tinyglobby\"]}\n  }\n}\n";
        let names = |dir: &str| -> Vec<String> {
            knip(text, "knip.json", dir)
                .into_iter()
                .map(|i| i.name)
                .collect()
        };
        assert_eq!(
            names("test/fixtures/basic"),
            ["ofetch", "@rspack/core", "nuxt"]
        );
        assert_eq!(
            names("packages/kit"),
            ["ofetch", "@rspack/core", "tinyglobby"]
        );
        assert_eq!(names(""), ["ofetch", "@rspack/core"]);
        let i = &knip(text, "knip.json", "packages/kit")[2];
        assert!(i.silences("tinyglobby", DriftKind::Unused));
        assert_eq!(
            i.at,
            "knip's `workspaces.packages/kit.ignoreDependencies` in knip.json"
        );
        // In a root package.json, under `knip`; elsewhere nothing.
        let pkg = "{\"name\": \"root\", \"knip\": {\"ignoreDependencies\": [\"x\"]}}";
        assert_eq!(knip(pkg, "package.json", "a").len(), 1);
        assert!(knip("{\"name\": \"root\"}", "package.json", "a").is_empty());
        assert!(knip("{ not json", "knip.json", "a").is_empty());
    }

    #[test]
    fn deptry_rules_and_the_older_keys() {
        let text = "[project]\nname = \"x\"\n\n[tool.deptry]\nignore_notused = [\"uvicorn\"]\n\n[tool.deptry.per_rule_ignores]\nDEP001 = [\"yaml\"]\nDEP002 = [\"psycopg2-binary\"]\nDEP004 = [\"pytest\"]\n";
        let got = deptry(text);
        let said: Vec<(&str, bool, bool)> = got
            .iter()
            .map(|i| {
                (
                    i.name.as_str(),
                    i.silences(&i.name, DriftKind::Unused),
                    i.silences(&i.name, DriftKind::Undeclared),
                )
            })
            .collect();
        assert_eq!(
            said,
            [
                ("pyyaml", false, true),
                ("psycopg2-binary", true, false),
                ("uvicorn", true, false)
            ]
        );
        // The finding names the distribution as written; the list, its import name.
        assert!(got[0].silences("PyYAML", DriftKind::Undeclared));
        assert!(got[1].silences("psycopg2_binary", DriftKind::Unused));
        assert!(deptry("[project]\nname = \"x\"\n").is_empty());
        assert!(deptry("[tool.deptry\n").is_empty());
    }
}
