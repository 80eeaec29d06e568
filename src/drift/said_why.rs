//! Declarations whose manifest says why they are there: a comment on the declaration's line
//! (`"contourpy>=1.3,<2",  # helps the resolver converge`), or in the comment block right
//! above it naming the dependency (`# cmeel-urdfdom 6 bumped the soname: <5 keeps the ABI`),
//! giving a reason (a pin, a cap, what requires it) and none to drop it. A maintainer who
//! wrote down why a package is declared meant it: a pin of what another dependency brings, a
//! cap, a platform's build tool. Whether the reason still holds only reading tells.

use super::{DriftKind, Finding};
use crate::source::{RepoSnapshot, blob_text};
use std::collections::BTreeSet;

/// Marks each sure unused or dev-only finding of the manifest `manifest` (repo-relative,
/// its text `text`) whose declaration the manifest comments on as unsure, quoting the comment.
pub(super) fn commented(manifest: &str, text: &str, found: &mut [Finding]) {
    let lines: Vec<&str> = text.lines().collect();
    for f in found.iter_mut().filter(|f| {
        matches!(f.kind, DriftKind::Unused | DriftKind::DevOnly)
            && f.doubt.is_none()
            && f.manifest == manifest
    }) {
        let Some(at) = f.line.and_then(|l| (l as usize).checked_sub(1)) else {
            continue;
        };
        if let Some((n, comment)) = comment_on(&lines, at, &f.dependency) {
            f.doubt = Some(format!(
                "{manifest}:{} says why it is declared (`# {comment}`): a pin, a cap or a choice its maintainers made on purpose",
                n + 1
            ));
        }
    }
}

/// [`commented`] for the requirements files (`.txt`, `.in`; repo-relative) that declare
/// the unused and dev-only Python findings of `found`, read from `snap`: their comments say
/// why as a pyproject's do (changedetection's `# Needed for > 3.10, …` above `greenlet`).
pub(super) fn commented_requirements(snap: &RepoSnapshot, found: &mut [Finding]) {
    let files: BTreeSet<String> = (found.iter())
        .filter(|f| matches!(f.kind, DriftKind::Unused | DriftKind::DevOnly))
        .filter(|f| f.doubt.is_none())
        .filter(|f| f.manifest.ends_with(".txt") || f.manifest.ends_with(".in"))
        .map(|f| f.manifest.to_string())
        .collect();
    if files.is_empty() {
        return;
    }
    let Ok(tree) = snap.root_tree() else {
        return;
    };
    for file in files {
        if let Ok(Some(text)) = blob_text(snap, &tree, &file) {
            commented(&file, &text, found);
        }
    }
}

/// Words that give a reason to declare a package no code imports: a pin or a cap on what
/// another brings, a platform's or a resolver's need.
const REASONS: &[&str] = &[
    "abi",
    "because",
    "bug",
    "cap",
    "capped",
    "compat",
    "compatibility",
    "constrain",
    "constraint",
    "fix",
    "needed",
    "needs",
    "pin",
    "pinned",
    "pinning",
    "platform",
    "platforms",
    "require",
    "required",
    "requires",
    "resolver",
    "transitive",
    "transitively",
    "version",
    "versions",
    "wheel",
    "wheels",
    "workaround",
];

/// Words that say a declaration should go, or agree with the finding: no reason to keep it.
const AGREES: &[&str] = &[
    "remove",
    "unused",
    "leftover",
    "deprecated",
    "delete",
    "drop",
    "only",
    "longer",
];

/// The comment on line `at` (0-based) of `lines` that explains the declaration of `name`
/// there, with its line: the line's own trailing comment (naming the dependency when the
/// line declares more than one), else the nearest line of the comment block right above it
/// that names it — either giving a reason ([`REASONS`]) and none to drop it ([`AGREES`]).
fn comment_on<'t>(lines: &[&'t str], at: usize, name: &str) -> Option<(usize, &'t str)> {
    let line = lines.get(at)?;
    if let Some(c) = trailing_comment(line) {
        let several = line.matches(['"', '\'']).count() > 2;
        return ((!several || names(c, name)) && gives_reason(c)).then_some((at, c));
    }
    (0..at)
        .rev()
        .map_while(|n| {
            let line = lines[n].trim_start();
            let text = line.strip_prefix('#')?.trim();
            Some((n, text))
        })
        .find(|(_, text)| names(text, name) && gives_reason(text))
}

/// Whether a comment's words give a reason to keep a declaration and none to drop it.
fn gives_reason(comment: &str) -> bool {
    let lower = comment.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().any(|w| REASONS.contains(w)) && !words.iter().any(|w| AGREES.contains(w))
}

/// Whether `comment` names the distribution `name` as a whole word (`pandas`, not in
/// `pandas-stubs`), `_` and `-` alike.
fn names(comment: &str, name: &str) -> bool {
    let key = |s: &str| s.to_ascii_lowercase().replace('_', "-");
    let (text, name) = (key(comment), key(name));
    let part = |c: char| c.is_ascii_alphanumeric() || c == '-';
    text.match_indices(&name).any(|(i, _)| {
        let before = text[..i].chars().next_back().is_none_or(|c| !part(c));
        let after = text[i + name.len()..]
            .chars()
            .next()
            .is_none_or(|c| !part(c));
        before && after
    })
}

/// The text of a TOML line's comment after its value (`"x>=1",  # why`), `None` for a line
/// that is all comment or has none; a `#` inside a string is no comment.
fn trailing_comment(line: &str) -> Option<&str> {
    if line.trim_start().starts_with('#') {
        return None;
    }
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if std::mem::take(&mut escaped) {
            continue;
        }
        match (quote, c) {
            (Some('"'), '\\') => escaped = true,
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '#') => {
                let text = line[i + 1..].trim();
                return (!text.is_empty()).then_some(text);
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unused(dep: &str, line: u32) -> Finding {
        Finding {
            module: "m".into(),
            dependency: dep.into(),
            kind: DriftKind::Unused,
            manifest: "pyproject.toml".into(),
            line: Some(line),
            evidence: None,
            doubt: None,
        }
    }

    #[test]
    fn a_comment_beside_or_above_a_declaration_says_why() {
        let text = "[project.optional-dependencies]\nplot = [\"matplotlib\", \"contourpy>=1.3\"] # NOTE: contourpy helps the resolver\n# cmeel_urdfdom 6 broke the ABI: <5 keeps it\n# (pinned until placo moves)\nplaco = [\"placo\", \"cmeel-urdfdom<5\"]\n# linters\ndev = [\"ruff\", \"url#fragment\", \"left-pad\"]\nx = [\n  \"requests>=2\",  # TODO: remove, nothing uses it since the httpx version\n  \"click\",  # CLI\n  \"setuptools<82\",  # torch requires setuptools<82\n  # pandas-stubs pinned in the dev group\n  \"pandas\",\n]\n";
        let mut found = [
            unused("contourpy", 2),
            unused("cmeel-urdfdom", 5),
            unused("ruff", 7),
            unused("left-pad", 7),
            unused("requests", 9),
            unused("click", 10),
            unused("setuptools", 11),
            unused("pandas", 13),
            unused("matplotlib", 2),
        ];
        commented("pyproject.toml", text, &mut found);
        let says = |f: &Finding, at: &str| f.doubt.as_deref().unwrap_or("").contains(at);
        assert!(says(&found[0], ":2 says why"));
        assert!(says(&found[1], ":3 says why"));
        assert!(says(&found[6], ":11 says why"));
        // A heading above that names something else, a `#` in a string, a comment asking to
        // remove it or giving no reason, another's name containing it, a comment on a line
        // of several that names another: no reason given.
        for f in [
            &found[2], &found[3], &found[4], &found[5], &found[7], &found[8],
        ] {
            assert_eq!(f.doubt, None, "{}", f.dependency);
        }
        assert_eq!(trailing_comment(r##""a\"#b",  # why"##), Some("why"));
        // Another manifest's finding is not this one's to read.
        let mut other = [unused("contourpy", 2)];
        other[0].manifest = "sub/pyproject.toml".into();
        commented("pyproject.toml", text, &mut other);
        assert_eq!(other[0].doubt, None);
    }
}
