//! `tsconfig.json` (or `jsconfig.json`) `compilerOptions.paths` and `baseUrl`: the aliases
//! TypeScript resolves before packages (`@shared/*` → `../shared/src/*`), so an aliased import
//! of another module's files is an edge like a relative one. The file is JSON with comments and
//! trailing commas. [`extends`] names the configs one builds on, for a reader that can
//! open other files of the repository (the graph reads only the module's own file).

/// The aliases of a module's tsconfig at `dir` (repo-relative): (pattern, repo-relative
/// target), the pattern and target each with at most one `*`, the first target of each.
/// `baseUrl` (default: the tsconfig's directory) is where targets start.
pub fn paths(dir: &str, text: &str) -> Vec<(String, String)> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&strip_jsonc(text)) else {
        return Vec::new();
    };
    let opts = v.get("compilerOptions");
    let base = opts
        .and_then(|o| o.get("baseUrl"))
        .and_then(|b| b.as_str())
        .unwrap_or(".");
    let Some(paths) = opts
        .and_then(|o| o.get("paths"))
        .and_then(|p| p.as_object())
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (pattern, targets) in paths {
        let Some(target) = targets
            .as_array()
            .and_then(|a| a.first())
            .and_then(|t| t.as_str())
        else {
            continue;
        };
        if pattern.matches('*').count() > 1 || target.matches('*').count() > 1 {
            continue;
        }
        if let Some(repo_path) = crate::repo_path(&[dir, base, target]) {
            out.push((pattern.clone(), repo_path));
        }
    }
    // The longest pattern prefix wins, as TypeScript picks it.
    out.sort_by_key(|(p, _)| std::cmp::Reverse(p.split('*').next().unwrap_or("").len()));
    out
}

/// The configs the tsconfig at `dir` (repo-relative) builds on: its `extends` (a string, or
/// a list since TypeScript 5.0, later ones overriding earlier), as repo-relative paths, for
/// those that are files of the repository (`./base.json`, `../../tsconfig`, `.json` added
/// when missing). A package's config (`@tsconfig/node20/tsconfig.json`) is none of them.
pub fn extends(dir: &str, text: &str) -> Vec<String> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&strip_jsonc(text)) else {
        return Vec::new();
    };
    let named: Vec<&str> = match v.get("extends") {
        Some(serde_json::Value::String(s)) => vec![s.as_str()],
        Some(serde_json::Value::Array(a)) => a.iter().filter_map(|s| s.as_str()).collect(),
        _ => Vec::new(),
    };
    named
        .into_iter()
        .filter(|n| n.starts_with("./") || n.starts_with("../"))
        .filter_map(|n| {
            let path = crate::repo_path(&[dir, n])?;
            Some(match path.ends_with(".json") {
                true => path,
                false => format!("{path}.json"),
            })
        })
        .collect()
}

/// The repository paths of the configs a tsconfig in `dir` names under `references` (a
/// solution config: `{"files": [], "references": [{"path": "tsconfig.tests.json"}]}`); a
/// directory named stands for its `tsconfig.json`. Paths above the repository are left out.
pub fn references(dir: &str, text: &str) -> Vec<String> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&strip_jsonc(text)) else {
        return Vec::new();
    };
    let listed = v.get("references").and_then(|r| r.as_array());
    listed
        .into_iter()
        .flatten()
        .filter_map(|r| r.get("path")?.as_str())
        .filter_map(|p| {
            let path = crate::repo_path(&[dir, p])?;
            Some(match path.ends_with(".json") {
                true => path,
                false if path.is_empty() => "tsconfig.json".to_string(),
                false => format!("{path}/tsconfig.json"),
            })
        })
        .collect()
}

/// Whether a tsconfig sets `compilerOptions.paths` itself: then its aliases replace, rather
/// than add to, those of the configs it extends.
pub fn has_paths(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(&strip_jsonc(text))
        .ok()
        .is_some_and(|v| {
            v.get("compilerOptions")
                .and_then(|o| o.get("paths"))
                .is_some()
        })
}

/// `compilerOptions.baseUrl` of a tsconfig's `text`: the directory (relative to the config)
/// bare imports resolve against before packages.
pub fn base_url(text: &str) -> Option<String> {
    let v = serde_json::from_str::<serde_json::Value>(&strip_jsonc(text)).ok()?;
    let base = v.get("compilerOptions")?.get("baseUrl")?.as_str()?;
    Some(base.to_string())
}

/// The 1-based line where `pattern` is written as a key of `text` (1 when it is not found).
pub fn pattern_line(text: &str, pattern: &str) -> u32 {
    let quoted = format!("\"{pattern}\"");
    let at = text.find(&quoted).unwrap_or(0);
    text[..at].matches('\n').count() as u32 + 1
}

/// The repo-relative path an import names through the aliases, if one matches.
pub fn apply(aliases: &[(String, String)], spec: &str) -> Option<String> {
    aliases.iter().find_map(|(pattern, target)| {
        let matched = match pattern.split_once('*') {
            None => (spec == pattern).then_some(""),
            Some((pre, post)) => spec
                .strip_prefix(pre)
                .and_then(|rest| rest.strip_suffix(post)),
        }?;
        Some(target.replacen('*', matched, 1))
    })
}

/// JSON with comments (`//`, `/* */`) and trailing commas made plain JSON; strings kept.
pub fn strip_jsonc(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                out.push_str(text.get(start..i).unwrap_or(""));
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i = (i + 2).min(b.len());
            }
            b',' => {
                let next = b[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
                if !matches!(next, Some(b'}' | b']')) {
                    out.push(',');
                }
                i += 1;
            }
            _ => {
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&text[i..i + len]);
                i += len;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of a real Nx/Vite monorepo's tsconfig: comments, trailing commas, aliases
    /// into a sibling package and into the app's own source.
    const REAL: &str = r#"{
  // Shared settings.
  "compilerOptions": {
    "baseUrl": ".",
    /* aliases */
    "paths": {
      "@shared/*": ["../../libs/shared/src/*"],
      "@/*": ["./src/*"],
      "@ui": ["../../libs/ui/src/index.ts",],
      "url": "not // a comment",
    },
  },
}"#;

    #[test]
    fn a_solution_config_names_its_projects() {
        let text = "{\n  // a solution\n  \"files\": [],\n  \"references\": [{\"path\": \"tsconfig.tests.json\"}, {\"path\": \"./packages/a\"}, {\"path\": \"../../out\"}]\n}";
        assert_eq!(
            references("", text),
            ["tsconfig.tests.json", "packages/a/tsconfig.json"]
        );
        assert_eq!(references("web", text)[1], "web/packages/a/tsconfig.json");
        assert!(references("", "{").is_empty());
    }

    #[test]
    fn aliases_from_a_real_tsconfig() {
        let a = paths("apps/web", REAL);
        assert_eq!(
            apply(&a, "@shared/date/format").as_deref(),
            Some("libs/shared/src/date/format")
        );
        assert_eq!(
            apply(&a, "@/components/x").as_deref(),
            Some("apps/web/src/components/x")
        );
        assert_eq!(apply(&a, "@ui").as_deref(), Some("libs/ui/src/index.ts"));
        assert_eq!(apply(&a, "@ui/x"), None);
        assert_eq!(apply(&a, "react"), None);
    }

    #[test]
    fn extends_names_repository_files_only() {
        // A package's tsconfig building on the repository root's, and on a shared package.
        let text = r#"{
  // the root's aliases
  "extends": ["@tsconfig/strictest/tsconfig.json", "../../tsconfig"],
}"#;
        assert_eq!(extends("dev-examples/app", text), ["tsconfig.json"]);
        assert_eq!(
            extends("a", r#"{"extends": "./tsconfig.base.json"}"#),
            ["a/tsconfig.base.json"]
        );
        assert!(extends("a", r#"{"extends": "../../../above"}"#).is_empty());
        assert!(extends("a", "{").is_empty());
        assert!(has_paths(REAL));
        assert!(!has_paths(r#"{"compilerOptions": {"strict": true}}"#));
        assert_eq!(pattern_line(REAL, "@ui"), 9);
        assert_eq!(pattern_line(REAL, "absent"), 1);
    }

    #[test]
    fn base_url_and_what_is_not_an_alias() {
        let a = paths(
            "web",
            r#"{"compilerOptions": {"baseUrl": "src", "paths": {"~/*": ["*"]}}}"#,
        );
        assert_eq!(apply(&a, "~/a/b").as_deref(), Some("web/src/a/b"));
        assert!(paths("web", "{").is_empty());
        assert!(
            paths(
                "web",
                r#"{"compilerOptions": {"paths": {"x": ["../../../up"]}}}"#
            )
            .is_empty()
        );
        assert_eq!(
            strip_jsonc(r#"{"a": "b//c", /* d */ "e": [1,],}"#),
            r#"{"a": "b//c",  "e": [1]}"#
        );
    }
}
