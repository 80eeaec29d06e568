//! Declarations whose manifest says why they are there: a comment on the declaration's line
//! (`"contourpy>=1.3,<2",  # helps the resolver converge`), or in the comment block right
//! above it naming the dependency (`# cmeel-urdfdom 6 bumped the soname: <5 keeps …`). A
//! maintainer who wrote down why a package is declared meant it: a pin of what another
//! dependency brings, a cap, a platform's build tool. Whether the reason still holds only
//! reading tells.

use super::{DriftKind, Finding};

/// Marks each sure unused or dev-only finding of the TOML manifest `manifest` (repo-relative,
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

/// The comment on line `at` (0-based) of `lines` that explains the declaration of `name`
/// there, with its line: the line's own trailing comment, else the nearest line of the
/// comment block right above it that names the dependency.
fn comment_on<'t>(lines: &[&'t str], at: usize, name: &str) -> Option<(usize, &'t str)> {
    if let Some(c) = trailing_comment(lines.get(at)?) {
        return Some((at, c));
    }
    let key = |s: &str| s.to_ascii_lowercase().replace('_', "-");
    let name = key(name);
    (0..at)
        .rev()
        .map_while(|n| {
            let line = lines[n].trim_start();
            let text = line.strip_prefix('#')?.trim();
            Some((n, text))
        })
        .find(|(_, text)| key(text).contains(&name))
}

/// The text of a TOML line's comment after its value (`"x>=1",  # why`), `None` for a line
/// that is all comment or has none; a `#` inside a string is no comment.
fn trailing_comment(line: &str) -> Option<&str> {
    if line.trim_start().starts_with('#') {
        return None;
    }
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
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
        let text = "[project.optional-dependencies]\nplot = [\"matplotlib\", \"contourpy>=1.3\"] # NOTE: helps the resolver\n# cmeel_urdfdom 6 broke the ABI: <5 keeps it\n# (pinned until placo moves)\nplaco = [\"placo\", \"cmeel-urdfdom<5\"]\n# linters\ndev = [\"ruff\", \"url#fragment\", \"left-pad\"]\n";
        let mut found = [
            unused("contourpy", 2),
            unused("cmeel-urdfdom", 5),
            unused("ruff", 7),
            unused("left-pad", 7),
        ];
        commented("pyproject.toml", text, &mut found);
        assert!(
            found[0]
                .doubt
                .as_deref()
                .unwrap_or("")
                .contains(":2 says why")
        );
        assert!(
            found[1]
                .doubt
                .as_deref()
                .unwrap_or("")
                .contains(":3 says why")
        );
        // A heading above that names something else, a `#` in a string: no reason given.
        assert_eq!(found[2].doubt, None);
        assert_eq!(found[3].doubt, None);
        // Another manifest's finding is not this one's to read.
        let mut other = [unused("contourpy", 2)];
        other[0].manifest = "sub/pyproject.toml".into();
        commented("pyproject.toml", text, &mut other);
        assert_eq!(other[0].doubt, None);
    }
}
