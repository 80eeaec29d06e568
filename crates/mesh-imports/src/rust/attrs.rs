//! Attributes: the items compiled only for tests, and the attribute arguments written like
//! paths that are no paths (diagnostic codes).

use super::MAX_USE_DEPTH;
use crate::lex::{Collector, ImportKind, Kind, Token, kind_at, punct_at};

/// Marks the items compiled only for tests as dev code: an item under `#[cfg(test)]` (also
/// inside `all(…)`/`any(…)`, never under `not(…)`) or a test function (`#[test]`,
/// `#[tokio::test]`), and the attributes a `#[cfg_attr(test, …)]` applies; an inner
/// `#![cfg(test)]` marks the whole file. Returns the names of
/// `#[cfg(test)] mod name;` declarations (a `#[path = "…"]` one's path, ending `.rs`, when
/// no inline module encloses it). An item whose braces never close runs to the end.
pub(super) fn test_items(
    toks: &[Token],
    src: &str,
    c: &mut Collector,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let mut mods = Vec::new();
    let mut i = 0;
    // Where the run of outer attributes `toks[i]` belongs to starts, and where the last
    // attribute read ended: `#[path = "…"]` may stand before `#[cfg(test)]`.
    let (mut run_start, mut last_end) = (0, usize::MAX);
    while i < toks.len() {
        if !punct_at(toks, i, b'#') {
            i += 1;
            continue;
        }
        let inner = punct_at(toks, i + 1, b'!');
        let open = if inner { i + 2 } else { i + 1 };
        if !punct_at(toks, open, b'[') {
            i += 1;
            continue;
        }
        if last_end != i {
            run_start = i;
        }
        let close = matching(toks, open);
        let attr = toks.get(open + 1..close).unwrap_or(&[]);
        if is_test_attr(attr, src) {
            let start = toks[i].start;
            if inner {
                c.weaken(start, src.len(), ImportKind::Dev);
            } else {
                let (_, end) = item_extent(toks, close + 1);
                if end == usize::MAX {
                    let line = src.get(..start).map_or(0, |s| s.matches('\n').count()) + 1;
                    notes.push(format!(
                        "line {line}: a test-only item never closes: the rest of the file is read as test code"
                    ));
                }
                if let Some((name, at)) = mod_declaration(toks, run_start, src) {
                    // Inside `mod a { … }`, `mod tests;` is the file `a/tests.rs`.
                    let mut path = enclosing_mods(toks, i, src);
                    match at {
                        // `#[path = "unit/x_tests.rs"]` outside any inline module: the file,
                        // relative to the declaring file's directory.
                        Some(file) if path.is_empty() => mods.push(file),
                        _ => {
                            path.push(name);
                            mods.push(path.join("/"));
                        }
                    }
                }
                c.weaken(start, end.min(src.len()), ImportKind::Dev);
            }
        } else if is_test_cfg_attr(attr, src) {
            // `#[cfg_attr(test, derive(strum::EnumIter))]`: what it applies exists in test
            // builds only; the item stays.
            let end = toks.get(close).map_or(src.len(), |t| t.end);
            c.weaken(toks[i].start, end, ImportKind::Dev);
        }
        i = close + 1;
        // An inner attribute (`#![allow(…)]`) belongs to the enclosing module: it starts no
        // run of the next item's attributes.
        last_end = if inner { usize::MAX } else { i };
    }
    mods
}

/// Whether an attribute's tokens (inside `#[…]`) are a `cfg_attr` whose predicate holds only
/// in test builds.
fn is_test_cfg_attr(attr: &[Token], src: &str) -> bool {
    if attr.first().map(|t| t.text(src)) != Some("cfg_attr") || !punct_at(attr, 1, b'(') {
        return false;
    }
    let mut i = 2;
    implies_test(attr, &mut i, src, 0)
}

/// The token ranges (inclusive) of what attributes write like paths that are none:
/// diagnostic codes, `#[diagnostic(code(nu::parser::unexpected))]` (miette),
/// `#[error(code(x::y))]` (read as paths, nushell's `nu::…` codes made every crate import the
/// `nu` binary crate), and rstest's named cases, `#[case::empty_list(…)]` and
/// `#[cfg_attr(not(windows), case::quoted(…))]` (a test's name, read as a crate `case` in seven
/// nushell crates); a case's arguments are code.
pub(super) fn no_paths(toks: &[Token], src: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let open = if punct_at(toks, i + 1, b'[') {
            i + 1
        } else if punct_at(toks, i + 1, b'!') && punct_at(toks, i + 2, b'[') {
            i + 2
        } else {
            i + 1
        };
        if !punct_at(toks, i, b'#') || !punct_at(toks, open, b'[') {
            i += 1;
            continue;
        }
        let close = matching(toks, open);
        let mut j = open + 1;
        while j < close {
            // `case::name` heads an attribute, or one that `cfg_attr(pred, …)` applies.
            let named_case = toks[j].text(src) == "case"
                && kind_at(toks, j + 1, Kind::PathSep)
                && (j == open + 1 || punct_at(toks, j - 1, b','));
            if named_case {
                out.push((j, j + 2));
                j += 3;
                continue;
            }
            let is_code = toks[j].kind == Kind::Ident
                && toks[j].text(src) == "code"
                && punct_at(toks, j + 1, b'(');
            if is_code {
                let end = matching(toks, j + 1).min(close);
                out.push((j + 2, end));
                j = end + 1;
            } else {
                j += 1;
            }
        }
        i = close + 1;
    }
    out
}

/// The keys of attribute arguments whose string value is a path: serde's
/// `#[serde(with = "serde_bytes")]`, `serialize_with`, `deserialize_with`, `default`,
/// `crate`, `remote`, `from`, `try_from`, `into`, `getter`, and schemars' `schema_with` and
/// validator's `function` (the derive expands the string into code). Only `with` and
/// `crate` name a module by a bare word; the others need a `::` to name a crate (a bare
/// `default = "port"` is a function of the file).
const PATH_KEYS: &[(&str, bool)] = &[
    ("with", true),
    ("crate", true),
    ("serialize_with", false),
    ("deserialize_with", false),
    ("default", false),
    ("remote", false),
    ("from", false),
    ("try_from", false),
    ("into", false),
    ("getter", false),
    ("schema_with", false),
    ("function", false),
];

/// The string literals in attributes that a derive expands into a path (see [`PATH_KEYS`]),
/// as the byte range of each path's first segment in `src`: where a crate is named only in a
/// string (`#[serde(with = "serde_bytes")]`).
pub(super) fn string_paths(toks: &[Token], src: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let open = match punct_at(toks, i + 1, b'!') {
            true => i + 2,
            false => i + 1,
        };
        if !punct_at(toks, i, b'#') || !punct_at(toks, open, b'[') {
            i += 1;
            continue;
        }
        let close = matching(toks, open);
        for j in open + 3..close.min(toks.len()) {
            let (key, eq, s) = (&toks[j - 2], &toks[j - 1], &toks[j]);
            let Some(&(_, bare)) =
                (key.kind == Kind::Ident && eq.is_punct(b'=') && s.kind == Kind::Str)
                    .then(|| PATH_KEYS.iter().find(|(k, _)| *k == key.text(src)))
                    .flatten()
            else {
                continue;
            };
            let value = s.value(src);
            let first = value.split("::").next().unwrap_or("");
            let is_path = !first.is_empty()
                && (bare || value.contains("::"))
                && value.split("::").all(|seg| {
                    !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                });
            if is_path {
                out.push((s.value.0, s.value.0 + first.len()));
            }
        }
        i = close + 1;
    }
    out
}

/// The index of the bracket closing the one at `open` (counting `[`/`]`), or the end.
pub(super) fn matching(toks: &[Token], open: usize) -> usize {
    let (o, c) = match toks.get(open).map(|t| t.kind) {
        Some(Kind::Punct(b'[')) => (b'[', b']'),
        Some(Kind::Punct(b'(')) => (b'(', b')'),
        _ => (b'{', b'}'),
    };
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(open) {
        if t.is_punct(o) {
            depth += 1;
        } else if t.is_punct(c) {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return j;
            }
        }
    }
    toks.len()
}

/// Whether an attribute's tokens (inside `#[…]`) say "only for tests".
fn is_test_attr(attr: &[Token], src: &str) -> bool {
    let text = |t: &Token| t.text(src);
    match attr.first().map(text) {
        Some("cfg") => cfg_has_test(attr.get(1..).unwrap_or(&[]), src),
        // `#[test]`, `#[tokio::test]`, `#[async_std::test(…)]`: a path ending in `test`.
        Some(_) => {
            let path_end = attr
                .iter()
                .position(|t| !matches!(t.kind, Kind::Ident | Kind::PathSep))
                .unwrap_or(attr.len());
            path_end > 0 && attr.get(path_end - 1).is_some_and(|t| text(t) == "test")
        }
        None => false,
    }
}

/// Whether a cfg predicate (the tokens after `cfg`, parentheses included) holds only in test
/// builds: `test` or `doctest`, `all(…)` with a part that does, `any(…)` whose every branch does; never
/// `not(…)` (`#[cfg(any(test, feature = "testing"))]` is also compiled in normal builds).
fn cfg_has_test(pred: &[Token], src: &str) -> bool {
    let mut i = 0;
    if !punct_at(pred, i, b'(') {
        return false;
    }
    i += 1;
    implies_test(pred, &mut i, src, 0)
}

/// Reads one cfg predicate at `*i` (leaving `*i` after it); whether it implies `test`.
fn implies_test(toks: &[Token], i: &mut usize, src: &str, depth: usize) -> bool {
    let Some(word) = toks.get(*i).filter(|t| t.kind == Kind::Ident) else {
        *i += 1;
        return false;
    };
    let word = word.text(src);
    *i += 1;
    if punct_at(toks, *i, b'=') {
        *i += 2; // `feature = "x"`
        return false;
    }
    if !punct_at(toks, *i, b'(') || depth > MAX_USE_DEPTH {
        // `doctest` holds only while rustdoc collects doc tests.
        return matches!(word, "test" | "doctest");
    }
    *i += 1;
    let mut parts = Vec::new();
    while *i < toks.len() && !punct_at(toks, *i, b')') {
        parts.push(implies_test(toks, i, src, depth + 1));
        if punct_at(toks, *i, b',') {
            *i += 1;
        }
    }
    *i += 1; // the `)`
    match word {
        "all" => parts.iter().any(|&p| p),
        "any" => !parts.is_empty() && parts.iter().all(|&p| p),
        _ => false,
    }
}

/// The item after an attribute that ends at `j`: (index of its first token after further
/// attributes, byte offset where it ends: its `;` or its block's closing brace — or, for a
/// field, a variant, a match arm or an argument, the `,` after it or the brace or
/// parenthesis closing what holds it).
fn item_extent(toks: &[Token], mut j: usize) -> (usize, usize) {
    while punct_at(toks, j, b'#') && punct_at(toks, j + 1, b'[') {
        j = matching(toks, j + 1) + 1;
    }
    let start = j;
    let mut depth = 0usize;
    // Generic arguments' `<…>` (`HashMap<K, V>`): their commas end nothing. `->` and `=>`
    // close none.
    let mut angles = 0usize;
    let mut k = j;
    while let Some(t) = toks.get(k) {
        let after_arrow = k > 0 && (punct_at(toks, k - 1, b'-') || punct_at(toks, k - 1, b'='));
        match t.kind {
            Kind::Punct(b'(' | b'[') => depth += 1,
            Kind::Punct(b')' | b']') if depth == 0 => return (start, t.start),
            Kind::Punct(b'}') if depth == 0 => return (start, t.start),
            Kind::Punct(b')' | b']') => depth = depth.saturating_sub(1),
            Kind::Punct(b'<') if depth == 0 => angles += 1,
            Kind::Punct(b'>') if depth == 0 && !after_arrow => angles = angles.saturating_sub(1),
            Kind::Punct(b',') if depth == 0 && angles == 0 => return (start, t.end),
            Kind::Punct(b';') if depth == 0 => return (start, t.end),
            Kind::Punct(b'{') if depth == 0 => {
                let close = matching(toks, k);
                return (start, toks.get(close).map_or(usize::MAX, |t| t.end));
            }
            _ => {}
        }
        k += 1;
    }
    (start, usize::MAX)
}

/// The inline modules (`mod a { mod b { … } }`) the token at `upto` stands in, outermost
/// first: where an out-of-line module declared there has its file.
fn enclosing_mods(toks: &[Token], upto: usize, src: &str) -> Vec<String> {
    let mut open: Vec<Option<String>> = Vec::new();
    for j in 0..upto.min(toks.len()) {
        if punct_at(toks, j, b'{') {
            let named = j >= 2
                && toks[j - 1].kind == Kind::Ident
                && toks[j - 2].kind == Kind::Ident
                && toks[j - 2].text(src) == "mod";
            open.push(named.then(|| toks[j - 1].value(src).to_string()));
        } else if punct_at(toks, j, b'}') {
            open.pop();
        }
    }
    open.into_iter().flatten().collect()
}

/// `[#[…]…] [pub[(…)]] mod name;` at `j`: the module's name (an inline `mod name { … }` has
/// no file), and the file a `#[path = "….rs"]` among its attributes names.
fn mod_declaration(toks: &[Token], mut j: usize, src: &str) -> Option<(String, Option<String>)> {
    let word = |k: usize| {
        toks.get(k)
            .filter(|t| t.kind == Kind::Ident)
            .map(|t| t.text(src))
    };
    // Outer attributes before it; a `#[path = "…"]` names its file.
    let mut file = None;
    while punct_at(toks, j, b'#') && punct_at(toks, j + 1, b'[') {
        let close = matching(toks, j + 1);
        if word(j + 2) == Some("path") && punct_at(toks, j + 3, b'=') {
            file = toks
                .get(j + 4)
                .filter(|t| t.kind == Kind::Str)
                .map(|t| t.value(src).to_string())
                .filter(|f| f.ends_with(".rs"));
        }
        j = close + 1;
    }
    if word(j) == Some("pub") {
        j += 1;
        if punct_at(toks, j, b'(') {
            j = matching(toks, j) + 1;
        }
    }
    if word(j) != Some("mod") || !punct_at(toks, j + 2, b';') {
        return None;
    }
    toks.get(j + 1)
        .filter(|t| t.kind == Kind::Ident)
        .map(|t| (t.value(src).to_string(), file))
}
