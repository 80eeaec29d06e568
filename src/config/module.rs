//! `mesh-module.toml`: one module's name, recipe, policy and declared edges.

use super::ConfigError;
use super::diag::Reporter;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::time::Duration;
use toml::Spanned;

/// What a module is: run on nodes, or only built against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Assignable to nodes.
    Service,
    /// Built and judged, never assigned.
    Library,
}

/// Whether a fit build is declared at once or waits for `mesh declare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// A fit build of the current source is declared at once.
    #[default]
    Auto,
    /// Waits for `mesh declare`.
    Hold,
}

/// `instantiation = [{ module = "postgres", as = "db" }]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instantiation {
    /// The module that makes something for this one.
    pub module: String,
    /// What this module calls it.
    pub alias: String,
}

/// A module's manifest, validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleManifest {
    /// The module's name, unique in the mesh.
    pub name: String,
    /// Service or library.
    pub kind: Kind,
    /// Build command, run by `sh -c` in the module directory with `$MESH_OUT`.
    pub build: String,
    /// Test command, the first tier of the verdict.
    pub test: Option<String>,
    /// Auto or hold.
    pub policy: Policy,
    /// Repo-root paths that are part of the source id.
    pub inputs: Vec<String>,
    /// Run on the node in the unpacked artifact after each switch.
    pub activate: Option<String>,
    /// Run on the node in the module's current version to ask whether it works (exit 0).
    pub check: Option<String>,
    /// How long one run of `check` may take (the node's default, 10 s, when unset).
    pub check_timeout: Option<Duration>,
    /// How long after `activate` the check must keep passing before the version counts as
    /// applied (unset: one check right after activate).
    pub settle: Option<Duration>,
    /// How its new builds reach its nodes, where it differs from mesh.toml's `[rollout]`.
    pub rollout: super::RolloutOverride,
    /// Modules that must be assigned to the same node.
    pub presence: Vec<String>,
    /// Modules that make something for this one.
    pub instantiation: Vec<Instantiation>,
    /// Makes credentials for a module that names this one in its `instantiation`: run on a
    /// node that runs this module, its standard output `KEY=VALUE` lines.
    pub provide: Option<String>,
    /// Import patterns dropped before resolution.
    pub ignore: Vec<String>,
    /// Globs over module-relative paths whose imports are dev code (`[imports] dev`).
    pub dev: Vec<String>,
    /// Globs over dependency names `mesh drift` never reports for this module
    /// (`[drift] ignore`): a plugin loaded by name, a tool no code imports.
    #[serde(default)]
    pub drift_ignore: Vec<String>,
    /// How long build and test may each run.
    pub timeout: Duration,
    /// What a remote engine's worker must offer to run its build (`[platform]`, e.g.
    /// `OSFamily = "linux"`, `container-image = "docker://…"`), sent with every action.
    #[serde(default)]
    pub platform: std::collections::BTreeMap<String, String>,
    /// Where the name is written, for diagnostics.
    #[serde(skip)]
    pub name_span: Range<usize>,
    /// Spans of declared edges, for diagnostics: (module named, where).
    #[serde(skip)]
    pub edge_spans: Vec<(String, Range<usize>)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModule {
    name: Spanned<String>,
    kind: Option<Spanned<String>>,
    build: String,
    test: Option<String>,
    policy: Option<Spanned<String>>,
    #[serde(default)]
    inputs: Vec<Spanned<String>>,
    activate: Option<String>,
    check: Option<String>,
    check_timeout: Option<Spanned<String>>,
    settle: Option<Spanned<String>>,
    rollout: Option<super::rollout::RawRollout>,
    #[serde(default)]
    presence: Vec<Spanned<String>>,
    #[serde(default)]
    instantiation: Vec<Spanned<RawInstantiation>>,
    provide: Option<String>,
    imports: Option<RawImports>,
    drift: Option<RawDrift>,
    timeout: Option<Spanned<String>>,
    #[serde(default)]
    platform: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInstantiation {
    module: Spanned<String>,
    #[serde(rename = "as")]
    alias: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawImports {
    #[serde(default)]
    ignore: Vec<Spanned<String>>,
    #[serde(default)]
    dev: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDrift {
    #[serde(default)]
    ignore: Vec<Spanned<String>>,
}

/// One `instantiation` entry: the provider (a module name) and what this module calls it (a
/// prefix of secret names: `db` gives `db_url`); with where the provider is named.
fn parse_instantiation(
    r: &Reporter,
    raw: &RawInstantiation,
) -> Result<(Instantiation, Range<usize>), ConfigError> {
    let module = r.name("module", &raw.module)?;
    let alias = &raw.alias;
    if !mesh_proto::secret::is_secret_name(alias.get_ref()) {
        return Err(r.error(
            "mesh::config::invalid_alias",
            Some(alias.span()),
            format!("`as = {:?}` cannot prefix a secret's name", alias.get_ref()),
            "not a secret name",
            "an `as` names the credentials the provider makes (`db` gives `db_url`): a letter or _, then letters, digits and _",
        ));
    }
    let edge = Instantiation {
        module,
        alias: alias.get_ref().clone(),
    };
    Ok((edge, raw.module.span()))
}

const MODULE_HELP: &str = "a mesh-module.toml holds name, kind, build, test, policy, inputs, activate, check, check_timeout, settle, rollout, presence, instantiation, provide, timeout, [imports] ignore/dev and [drift] ignore; see README.md";

impl ModuleManifest {
    /// Parses a manifest's `text`, shown as `file` in diagnostics.
    pub fn parse(text: &str, file: &str) -> Result<ModuleManifest, ConfigError> {
        let r = Reporter { file, text };
        let raw: RawModule = toml::from_str(text).map_err(|e| r.toml(e, MODULE_HELP))?;
        let name = r.name("module", &raw.name)?;
        let kind = parse_kind(&r, raw.kind.as_ref())?;
        let policy = parse_policy(&r, raw.policy.as_ref())?;
        let inputs = parse_inputs(&r, &raw.inputs)?;
        let mut edge_spans = Vec::new();
        let mut presence = Vec::new();
        for p in &raw.presence {
            let n = r.name("module", p)?;
            edge_spans.push((n.clone(), p.span()));
            presence.push(n);
        }
        let mut instantiation = Vec::new();
        for i in &raw.instantiation {
            let (edge, span) = parse_instantiation(&r, i.get_ref())?;
            edge_spans.push((edge.module.clone(), span));
            instantiation.push(edge);
        }
        let ignore = globs(
            &r,
            raw.imports.iter().flat_map(|i| &i.ignore),
            "ignore patterns are globs such as \"golang.org/x/*\"",
        )?;
        let dev = globs(
            &r,
            raw.imports.iter().flat_map(|i| &i.dev),
            "dev patterns are globs over paths inside the module, such as \"tools/**\"",
        )?;
        let drift_ignore = globs(
            &r,
            raw.drift.iter().flat_map(|d| &d.ignore),
            "drift ignore patterns are globs over dependency names, such as \"pytest*\" or \"@types/*\"",
        )?;
        let timeout = match &raw.timeout {
            Some(t) => r.duration("timeout", t)?,
            None => Duration::from_secs(30 * 60),
        };
        let during = |field: &str, d: &Option<Spanned<String>>| match d {
            Some(d) => r.duration(field, d).map(Some),
            None => Ok(None),
        };
        let check_timeout = during("check_timeout", &raw.check_timeout)?;
        let settle = during("settle", &raw.settle)?;
        let rollout = match &raw.rollout {
            Some(raw) => raw.parse(&r)?,
            None => super::RolloutOverride::default(),
        };
        Ok(ModuleManifest {
            name,
            kind,
            build: raw.build,
            test: raw.test,
            policy,
            inputs,
            activate: raw.activate,
            check: raw.check,
            check_timeout,
            settle,
            rollout,
            presence,
            instantiation,
            provide: raw.provide,
            ignore,
            dev,
            drift_ignore,
            timeout,
            platform: raw.platform,
            name_span: raw.name.span(),
            edge_spans,
        })
    }

    /// A diagnostic pointing at one of this manifest's declared edges.
    pub(crate) fn edge_error(
        &self,
        file: &str,
        text: &str,
        target: &str,
        message: String,
        help: String,
    ) -> ConfigError {
        let span = self
            .edge_spans
            .iter()
            .find(|(n, _)| n == target)
            .map(|(_, s)| s.clone());
        ConfigError::new(
            "mesh::config::unknown_module",
            file,
            text,
            span,
            message,
            "no such module",
            help,
        )
    }
}

/// `kind`: "service" (the default) or "library".
fn parse_kind(r: &Reporter, raw: Option<&Spanned<String>>) -> Result<Kind, ConfigError> {
    match raw.map(|k| (k.get_ref().as_str(), k)) {
        None | Some(("service", _)) => Ok(Kind::Service),
        Some(("library", _)) => Ok(Kind::Library),
        Some((other, k)) => Err(r.error(
            "mesh::config::unknown_kind",
            Some(k.span()),
            format!("unknown kind `{other}`"),
            "not a kind",
            "`kind` is \"service\" (the default) or \"library\"",
        )),
    }
}

/// `policy`: "auto" (the default) or "hold".
fn parse_policy(r: &Reporter, raw: Option<&Spanned<String>>) -> Result<Policy, ConfigError> {
    match raw.map(|p| (p.get_ref().as_str(), p)) {
        None | Some(("auto", _)) => Ok(Policy::Auto),
        Some(("hold", _)) => Ok(Policy::Hold),
        Some((other, p)) => Err(r.error(
            "mesh::config::unknown_policy",
            Some(p.span()),
            format!("unknown policy `{other}`"),
            "not a policy",
            "`policy` is \"auto\" (a fit build is declared at once) or \"hold\" (waits for `mesh declare`)",
        )),
    }
}

/// `inputs`: paths inside the repository, from its root (a trailing `/` dropped).
fn parse_inputs(r: &Reporter, raw: &[Spanned<String>]) -> Result<Vec<String>, ConfigError> {
    let mut inputs = Vec::new();
    for i in raw {
        let p = i.get_ref();
        if p.is_empty() || p.starts_with('/') || p.split('/').any(|s| s == "..") {
            return Err(r.error(
                "mesh::config::invalid_input",
                Some(i.span()),
                format!("input `{p}` is not a path inside the repository"),
                "not a repository path",
                "inputs are paths from the repository root, such as \"go.mod\" or \"proto/\"",
            ));
        }
        inputs.push(p.trim_end_matches('/').to_string());
    }
    Ok(inputs)
}

/// `[imports] ignore` and `dev` are both globs: each is checked where it is written, `help`
/// saying what one looks like.
fn globs<'a>(
    r: &Reporter,
    pats: impl Iterator<Item = &'a Spanned<String>>,
    help: &str,
) -> Result<Vec<String>, ConfigError> {
    pats.map(|pat| match globset::Glob::new(pat.get_ref()) {
        Ok(_) => Ok(pat.get_ref().clone()),
        Err(e) => Err(r.error(
            "mesh::config::invalid_pattern",
            Some(pat.span()),
            format!("`{}` is not a valid pattern: {e}", pat.get_ref()),
            "invalid pattern",
            help,
        )),
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_ignore_is_read_and_a_bad_glob_is_pointed_at() {
        let m = ModuleManifest::parse(
            "name = \"a\"\nbuild = \"true\"\n[drift]\nignore = [\"pytest*\", \"@types/*\"]\n",
            "a/mesh-module.toml",
        )
        .expect("a valid manifest");
        assert_eq!(m.drift_ignore, ["pytest*", "@types/*"]);
        let text = "name = \"a\"\nbuild = \"true\"\n[drift]\nignore = [\"a[\"]\n";
        let e = ModuleManifest::parse(text, "a/mesh-module.toml").expect_err("a bad glob");
        let shown = format!("{e:?}");
        assert!(shown.contains("invalid_pattern"), "{shown}");
        assert!(e.to_string().contains("`a[` is not a valid pattern"), "{e}");
        let unknown = "name = \"a\"\nbuild = \"true\"\n[drift]\nignored = []\n";
        assert!(ModuleManifest::parse(unknown, "a/mesh-module.toml").is_err());
    }

    #[test]
    fn provide_and_instantiation_aliases_are_read_and_a_bad_alias_pointed_at() {
        let text = "name = \"api\"\nbuild = \"true\"\nprovide = \"sh make.sh\"\ninstantiation = [{ module = \"db\", as = \"db\" }]\n";
        let m = ModuleManifest::parse(text, "api/mesh-module.toml").expect("valid");
        assert_eq!(m.provide.as_deref(), Some("sh make.sh"));
        assert_eq!(m.instantiation[0].alias, "db");
        let bad = text.replace("as = \"db\"", "as = \"my-db\"");
        let e = ModuleManifest::parse(&bad, "api/mesh-module.toml").expect_err("a bad alias");
        assert!(
            e.to_string().contains("cannot prefix a secret's name"),
            "{e}"
        );
        assert!(format!("{e:?}").contains("invalid_alias"));
    }

    #[test]
    fn check_settle_and_rollout_are_read_and_bad_ones_pointed_at() {
        let text = "name = \"a\"\nbuild = \"true\"\ncheck = \"curl -fs localhost:8080\"\nsettle = \"30s\"\ncheck_timeout = \"2s\"\nrollout = { waves = [\"tag:canary\", 3, \"100%\"], wait = \"10m\" }\n";
        let m = ModuleManifest::parse(text, "a/mesh-module.toml").expect("valid");
        assert_eq!(m.check.as_deref(), Some("curl -fs localhost:8080"));
        assert_eq!(m.settle, Some(Duration::from_secs(30)));
        assert_eq!(m.check_timeout, Some(Duration::from_secs(2)));
        use crate::config::Wave;
        assert_eq!(
            m.rollout.waves,
            Some(vec![
                Wave::Tag("canary".into()),
                Wave::Nodes(3),
                Wave::Percent(100)
            ])
        );
        assert_eq!(m.rollout.wait, Some(Duration::from_secs(600)));
        for (bad, says) in [
            ("rollout = { waves = [0] }", "reaches none"),
            ("rollout = { waves = [\"150%\"] }", "not a percentage"),
            (
                "rollout = { waves = [1, \"tag:x\"] }",
                "only the first wave may be a tag",
            ),
            ("rollout = { waves = [] }", "`waves` is empty"),
            (
                "rollout = { waves = [5, 2, \"100%\"] }",
                "waves are cumulative",
            ),
            ("settle = \"soon\"", "`settle` is not a duration"),
        ] {
            let text = format!("name = \"a\"\nbuild = \"true\"\n{bad}\n");
            let e = ModuleManifest::parse(&text, "a/mesh-module.toml").expect_err(bad);
            assert!(e.to_string().contains(says), "{bad}: {e}");
        }
    }
}
