//! What a module's manifests declare: each dependency as written, where (file and line), and
//! for what (shipping, dev, optional, the build script). Read from the manifests' text at the
//! configured ref; the lines are found by a small line reader beside the TOML/JSON parse, since
//! a finding must point at the line a person edits.

mod python;

use mesh_imports::Language;
use serde::Serialize;

pub(crate) use python::{
    build_requires, custom_hook, declares_no_dependencies, min_python, pep508_extras, pep508_name,
    pyproject_exact_pins, pyproject_extras, pyproject_requirement_extras,
    pyproject_sections_pep503, python_line, requirements_file, setup_cfg,
    setup_py_requirement_files, setup_requirements, setuptools_dynamic_files,
};
pub use python::{pyproject, pyproject_of};

/// What a declaration is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Scope {
    /// Shipped with the artifact: Cargo `[dependencies]`, npm `dependencies`, a Go `require`,
    /// `[project] dependencies`.
    Normal,
    /// Optional for the artifact: npm `optionalDependencies` and `peerDependencies`, Python
    /// extras (`[project.optional-dependencies]`). Never dev-only (an extra named `test` is
    /// fine).
    Optional,
    /// Only for tests, benches and examples: `[dev-dependencies]`, `devDependencies`,
    /// `[dependency-groups]`, poetry groups, uv's, rye's and pdm's dev lists.
    Dev,
    /// Only for Rust's `build.rs`: `[build-dependencies]`.
    BuildScript,
}

/// One dependency a manifest declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// Its ecosystem.
    pub language: Language,
    /// The name as written in the manifest.
    pub name: String,
    /// What it is declared for.
    pub scope: Scope,
    /// The manifest's path relative to the module directory (or to `elsewhere`): a fixed name,
    /// or a requirements file's, which each repository names its own way.
    pub manifest: std::borrow::Cow<'static, str>,
    /// The repo-relative directory of the manifest when it is not the module's own (a JS
    /// workspace root's, whose declarations serve every package below it).
    pub elsewhere: Option<String>,
    /// 1-based line of the declaration.
    pub line: u32,
    /// A Go `// indirect` requirement, or a Cargo dependency inherited by name only: never
    /// reported unused.
    pub indirect: bool,
}

/// The Rust dependency sections of a `Cargo.toml` header, by what they are for.
fn cargo_section(header: &str) -> Option<(Scope, Option<String>)> {
    let scope_of = |s: &str| match s {
        "dependencies" => Some(Scope::Normal),
        "dev-dependencies" | "dev_dependencies" => Some(Scope::Dev),
        "build-dependencies" | "build_dependencies" => Some(Scope::BuildScript),
        _ => None,
    };
    let parts = toml_key_parts(header);
    let rest: &[String] = match parts.first().map(String::as_str) {
        Some("target") if parts.len() >= 3 => &parts[2..],
        Some(_) => &parts,
        None => return None,
    };
    match rest {
        [section] => Some((scope_of(section)?, None)),
        [section, name] => Some((scope_of(section)?, Some(name.clone()))),
        _ => None,
    }
}

/// A dotted TOML key split into its parts, quotes removed (`target.'cfg(unix)'.dependencies`).
fn toml_key_parts(key: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    for ch in key.chars() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => quote = Some(ch),
            (None, '.') => parts.push(std::mem::take(&mut cur).trim().to_string()),
            (None, c) => cur.push(c),
        }
    }
    parts.push(cur.trim().to_string());
    parts
}

/// How deep a line leaves the brackets of a multi-line value (strings skipped), from `depth`.
pub(super) fn bracket_depth(line: &str, mut depth: i32) -> i32 {
    let mut quote = None;
    for ch in line.chars() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(ch),
            (None, '#') => break,
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            _ => {}
        }
    }
    depth.max(0)
}

/// The key of a `key = value` line (its first dotted part, unquoted), if it is one.
pub(super) fn line_key(line: &str) -> Option<String> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') || t.starts_with('[') {
        return None;
    }
    let (key, _) = t.split_once('=')?;
    toml_key_parts(key)
        .into_iter()
        .next()
        .filter(|k| !k.is_empty())
}

/// The dependencies a `Cargo.toml` declares, with their lines. A workspace root's
/// `[workspace.dependencies]` declares nothing for itself.
pub fn cargo(text: &str) -> Vec<Declared> {
    let mut out = Vec::new();
    let mut section: Option<Scope> = None;
    let mut depth = 0;
    for (n, line) in text.lines().enumerate() {
        let lineno = n as u32 + 1;
        let t = line.trim();
        if depth == 0 && t.starts_with('[') {
            let header = t.trim_start_matches('[').split(']').next().unwrap_or("");
            section = None;
            if let Some((scope, name)) = cargo_section(header) {
                match name {
                    Some(name) => {
                        out.push(declared(Language::Rust, name, scope, "Cargo.toml", lineno))
                    }
                    None => section = Some(scope),
                }
            }
            continue;
        }
        if depth == 0
            && let Some(scope) = section
            && let Some(key) = line_key(line)
        {
            out.push(declared(Language::Rust, key, scope, "Cargo.toml", lineno));
        }
        depth = bracket_depth(line, depth);
    }
    out
}

pub(super) fn declared(
    language: Language,
    name: String,
    scope: Scope,
    manifest: &'static str,
    line: u32,
) -> Declared {
    Declared {
        language,
        name,
        scope,
        manifest: manifest.into(),
        elsewhere: None,
        line,
        indirect: false,
    }
}

impl Declared {
    /// The repo-relative path of the manifest that holds it, for a module in `dir`.
    pub fn path(&self, dir: &str) -> String {
        crate::source::join(self.elsewhere.as_deref().unwrap_or(dir), &self.manifest)
    }
}

/// Whether a `Cargo.toml` describes a package (a workspace root alone has no code of its own).
pub(crate) fn cargo_has_package(text: &str) -> bool {
    text.lines().any(|l| l.trim() == "[package]")
}

/// The 1-based line of byte offset `at` in `text`.
fn line_at(text: &str, at: usize) -> u32 {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u32
        + 1
}

/// Where `"key"` followed by `:` first stands in JSON text at or after `from`.
fn json_key(text: &str, key: &str, from: usize) -> Option<usize> {
    let needle = format!("\"{key}\"");
    let mut at = from;
    while let Some(i) = text.get(at..)?.find(&needle) {
        let pos = at + i;
        let after = text.get(pos + needle.len()..)?.trim_start();
        if after.starts_with(':') {
            return Some(pos);
        }
        at = pos + needle.len();
    }
    None
}

/// The dependencies a `package.json` declares, with their lines, and the text of its
/// `scripts` (a dev tool named there is used).
pub(crate) fn package_json(text: &str) -> (Vec<Declared>, String) {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
        return (Vec::new(), String::new());
    };
    let mut out = Vec::new();
    for (section, scope) in [
        ("dependencies", Scope::Normal),
        ("devDependencies", Scope::Dev),
        ("peerDependencies", Scope::Optional),
        ("optionalDependencies", Scope::Optional),
    ] {
        let Some(deps) = v.get(section).and_then(|d| d.as_object()) else {
            continue;
        };
        let start = json_key(text, section, 0).unwrap_or(0);
        for name in deps.keys() {
            let line = json_key(text, name, start).map_or(1, |at| line_at(text, at));
            let mut d = declared(Language::Js, name.clone(), scope, "package.json", line);
            // A peer is a promise to the package's users (often passed on to a dependency's
            // own peer: jest's `node-notifier`, jest-environment-jsdom's `canvas`), never
            // unused; depcheck and knip read them the same way.
            d.indirect = section == "peerDependencies";
            out.push(d);
        }
    }
    // A peer dependency also listed as a dev dependency (installed for the package's own
    // tests) is declared for its users: one entry, the peer, which a shipped import may use
    // (`@babel/core` in babel-jest, `prettier` in jest-snapshot).
    let peers: Vec<String> = out
        .iter()
        .filter(|d| d.scope == Scope::Optional)
        .map(|d| d.name.clone())
        .collect();
    out.retain(|d| !(d.scope == Scope::Dev && peers.contains(&d.name)));
    let scripts = v
        .get("scripts")
        .and_then(|s| s.as_object())
        .map(|s| {
            s.values()
                .filter_map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    (out, scripts)
}

/// What a `go.mod` says: its module path, its requirements (with lines), and the module paths
/// its `replace` directives point elsewhere.
#[derive(Debug, Default)]
pub struct GoMod {
    /// The `module` path.
    pub module: Option<String>,
    /// Each `require`, `// indirect` ones marked.
    pub requires: Vec<Declared>,
}

/// Reads a `go.mod`: `require` lines and blocks, `// indirect` marked; `replace`, `exclude` and
/// the rest are not requirements (a `replace` changes where a required module comes from,
/// never the import path code writes).
pub(crate) fn go_mod(text: &str) -> GoMod {
    let mut out = GoMod {
        module: mesh_imports::manifest::go_module_path(text),
        ..GoMod::default()
    };
    let mut block: Option<&str> = None;
    for (n, line) in text.lines().enumerate() {
        let (code, comment) = line.split_once("//").unwrap_or((line, ""));
        let code = code.trim();
        let mut words: Vec<&str> = code.split_whitespace().collect();
        if let Some(b) = block {
            if code == ")" {
                block = None;
                continue;
            }
            words.insert(0, b);
        } else if words.len() == 2 && words[1] == "(" {
            block = Some(words[0]);
            continue;
        }
        if words.first() == Some(&"require") && words.len() >= 2 {
            let mut d = declared(
                Language::Go,
                words[1].trim_matches('"').to_string(),
                Scope::Normal,
                "go.mod",
                n as u32 + 1,
            );
            d.indirect = comment.trim_start().starts_with("indirect");
            out.requires.push(d);
        }
    }
    out
}

/// The module directories a `go.work` uses (`use ./a`, `use ( ./b ./c )`), relative to it.
pub(crate) fn go_work_uses(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("").trim();
        let dir = if in_block {
            if code == ")" {
                in_block = false;
                continue;
            }
            code
        } else if let Some(rest) = code.strip_prefix("use") {
            let rest = rest.trim();
            if rest == "(" {
                in_block = true;
                continue;
            }
            if !code[3..].starts_with(char::is_whitespace) {
                continue;
            }
            rest
        } else {
            continue;
        };
        let dir = dir
            .trim_matches('"')
            .trim_start_matches("./")
            .trim_end_matches('/');
        if !dir.is_empty() || code.starts_with('.') {
            out.push(if dir == "." {
                String::new()
            } else {
                dir.to_string()
            });
        }
    }
    out
}

/// A declaration no file writes that a tool's convention makes (setuptools under a
/// `setup.py` without a `[build-system]`): at `file`'s first line, for development, never
/// unused.
pub(crate) fn implied(language: Language, name: &str, file: &'static str) -> Declared {
    Declared {
        indirect: true,
        ..declared(language, name.to_string(), Scope::Dev, file, 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each declaration as (name, scope, line), for compact assertions (Python's tests too).
    pub(super) fn names(d: &[Declared]) -> Vec<(String, Scope, u32)> {
        d.iter()
            .map(|d| (d.name.clone(), d.scope, d.line))
            .collect()
    }

    #[test]
    fn cargo_sections_keys_and_lines() {
        let text = "[package]\nname = \"a\"\n\n[dependencies]\nserde = { version = \"1\", features = [\n  \"derive\",\n] }\nlog.workspace = true\n\"quoted-name\" = \"1\"\n\n[dev-dependencies]\ntestkit = { path = \"../t\" }\n\n[target.'cfg(unix)'.dependencies]\nnix = \"0.29\"\n\n[build-dependencies.cc]\nversion = \"1\"\n\n[workspace.dependencies]\nnot-mine = \"1\"\n";
        assert_eq!(
            names(&cargo(text)),
            [
                ("serde".into(), Scope::Normal, 5),
                ("log".into(), Scope::Normal, 8),
                ("quoted-name".into(), Scope::Normal, 9),
                ("testkit".into(), Scope::Dev, 12),
                ("nix".into(), Scope::Normal, 15),
                ("cc".into(), Scope::BuildScript, 17),
            ]
        );
        assert!(cargo_has_package(text));
        assert!(!cargo_has_package("[workspace]\nmembers = []\n"));
    }

    #[test]
    fn package_json_sections_lines_and_scripts() {
        let text = "{\n  \"name\": \"web\",\n  \"scripts\": {\"test\": \"vitest run\"},\n  \"dependencies\": {\n    \"lodash\": \"4\",\n    \"@scope/ui\": \"1\"\n  },\n  \"devDependencies\": {\"vitest\": \"1\", \"react\": \"18\"},\n  \"peerDependencies\": {\"react\": \"18\"}\n}\n";
        let (d, scripts) = package_json(text);
        assert_eq!(
            names(&d),
            [
                ("@scope/ui".into(), Scope::Normal, 6),
                ("lodash".into(), Scope::Normal, 5),
                ("vitest".into(), Scope::Dev, 8),
                ("react".into(), Scope::Optional, 9),
            ]
        );
        assert_eq!(scripts, "vitest run");
        assert!(d.iter().all(|d| d.indirect == (d.name == "react")));
        assert!(package_json("{").0.is_empty());
    }

    #[test]
    fn go_mod_requires_blocks_indirect_and_replace() {
        let text = "module example.com/mono\n\ngo 1.22\n\nrequire github.com/a/b v1.0.0\n\nrequire (\n\tgolang.org/x/sync v0.7.0\n\tgithub.com/c/d v1.2.0 // indirect\n)\n\nreplace example.com/mono/nested => ./nested\n";
        let g = go_mod(text);
        assert_eq!(g.module.as_deref(), Some("example.com/mono"));
        let got: Vec<(&str, u32, bool)> = g
            .requires
            .iter()
            .map(|d| (d.name.as_str(), d.line, d.indirect))
            .collect();
        assert_eq!(
            got,
            [
                ("github.com/a/b", 5, false),
                ("golang.org/x/sync", 8, false),
                ("github.com/c/d", 9, true)
            ]
        );
    }

    #[test]
    fn go_work_use_lines_and_blocks() {
        let text = "go 1.22\n\nuse ./tools\n\nuse (\n\t.\n\t./svc // the service\n\t\"./lib/\"\n)\n\nreplace x => ./y\n";
        assert_eq!(go_work_uses(text), ["tools", "", "svc", "lib"]);
        assert!(go_work_uses("user ./x\n").is_empty());
    }
}
