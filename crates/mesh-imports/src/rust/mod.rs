//! The Rust import scanner: the crate names a file uses, from `use` trees, `extern crate`, and
//! paths written in place (`serde_json::to_string(..)`, `#[tokio::main]`).
//!
//! A path's first segment is only a crate when nothing in the file shadows it, so names the
//! file declares (`mod x`) or binds by a `use` (`use std::fmt;` then `fmt::Display`) are left
//! out; other lowercase false positives are left for resolution to drop.
//!
//! Doc tests (the Rust code blocks of `///` and `//!` comments) are compiled as tests against
//! the crate's dev-dependencies: their imports are read too, as `dev`.

mod attrs;
mod lexer;
mod macros;
mod parser;
#[cfg(test)]
mod tests;

use super::lex::{
    Collector, FileScan, Import, ImportKind, Kind, Token, kind_at, punct_at, recycle_tokens,
};
use attrs::test_items;
use lexer::lex;
use parser::Parser;

/// How deeply `use` groups (`use a::{b::{c}}`) are followed; deeper ones are not real code.
const MAX_USE_DEPTH: usize = 32;

/// Scans a Rust file: its imports, the first segment (crate name) of every `use`,
/// `extern crate` and in-place path that is not a local name (those inside test-only items are
/// `dev`), and the modules it declares only for tests (`#[cfg(test)] mod tests;`), whose files
/// are dev code.
pub fn scan_file(src: &str) -> FileScan {
    let mut c = Collector::new(src);
    let toks = lex(src.as_bytes(), &mut c);
    let mut parser = Parser::new(src, &toks);
    parser.run();
    parser.report(&mut c);
    let mut notes = Vec::new();
    let test_mods = test_items(&toks, src, &mut c, &mut notes);
    let exported = macro_bodies(&toks, src, &mut c);
    let calls = macros::calls(&toks, src, &c);
    let mut imports = c.finish();
    let rust_macros = macros::facts(src, calls, &exported, &toks, &imports).map(Into::into);
    let doc = doc_tests(src);
    if !doc.is_empty() {
        imports.extend(doc_imports(&doc));
    }
    let links = doc_links(src);
    if !doc.is_empty() || !links.is_empty() {
        imports.extend(links);
        imports.sort_by_key(|i| i.line);
    }
    let (includes, mods) = (includes(&toks, src), out_of_line_mods(&toks, src));
    recycle_tokens(toks);
    FileScan {
        imports: imports.into(),
        test_mods,
        includes,
        mods,
        notes,
        rust_macros,
    }
}

/// The names of the modules the file declares out of line (`[pub] mod name;`), wherever
/// they stand (an inline module's are taken as the file's: a wider reach, never a narrower).
fn out_of_line_mods(toks: &[Token], src: &str) -> Vec<String> {
    let mut out: Vec<String> = (0..toks.len())
        .filter(|&i| {
            toks[i].kind == Kind::Ident
                && toks[i].text(src) == "mod"
                && kind_at(toks, i + 1, Kind::Ident)
                && punct_at(toks, i + 2, b';')
        })
        .map(|i| toks[i + 1].value(src).to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The files this file compiles in from elsewhere (see [`FileScan::includes`]): each
/// `#[path = "…"]` and each `include!` whose source is a literal, or a literal below
/// `CARGO_MANIFEST_DIR`.
fn includes(toks: &[Token], src: &str) -> Vec<String> {
    let word = |k: usize| {
        toks.get(k)
            .filter(|t| t.kind == Kind::Ident)
            .map(|t| t.text(src))
    };
    let literal = |k: usize| {
        toks.get(k)
            .filter(|t| t.kind == Kind::Str)
            .map(|t| t.value(src).to_string())
    };
    let mut out = Vec::new();
    for i in 0..toks.len() {
        let found = if punct_at(toks, i, b'#')
            && punct_at(toks, i + 1, b'[')
            && word(i + 2) == Some("path")
            && punct_at(toks, i + 3, b'=')
        {
            literal(i + 4)
        } else if word(i) == Some("include")
            && punct_at(toks, i + 1, b'!')
            && punct_at(toks, i + 2, b'(')
        {
            // `include!("x.rs")`, or `include!(concat!(env!("CARGO_MANIFEST_DIR"), "/x.rs"))`.
            let below_root = word(i + 3) == Some("concat")
                && punct_at(toks, i + 4, b'!')
                && punct_at(toks, i + 5, b'(')
                && word(i + 6) == Some("env")
                && punct_at(toks, i + 7, b'!')
                && punct_at(toks, i + 8, b'(')
                && literal(i + 9).as_deref() == Some("CARGO_MANIFEST_DIR")
                && punct_at(toks, i + 10, b')')
                && punct_at(toks, i + 11, b',');
            match below_root {
                true => literal(i + 12).map(|p| format!("/{}", p.trim_start_matches('/'))),
                false => literal(i + 3),
            }
        } else {
            None
        };
        out.extend(found.filter(|p| p.ends_with(".rs")));
    }
    out.sort();
    out.dedup();
    out
}

/// Marks the body of every `macro_rules!` macro: its paths resolve where it expands — in the
/// crates calling an exported one, or beside a call site's own `use`s (`shell_error::…` bound
/// by the caller) — so drift counts them as uses of what the crate declares but never makes it
/// owe a declaration (a macro the crate expands itself cannot name an undeclared crate and
/// compile). Their kind, and so the graph's edges, are unchanged. Returns the exported ones.
fn macro_bodies<'a>(toks: &[Token], src: &'a str, c: &mut Collector) -> Vec<macros::Exported<'a>> {
    let mut exported = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let is_macro_rules = t.kind == Kind::Ident
            && t.text(src) == "macro_rules"
            && punct_at(toks, i + 1, b'!')
            && kind_at(toks, i + 2, Kind::Ident);
        let open = i + 3;
        if !is_macro_rules
            || !matches!(
                toks.get(open).map(|t| t.kind),
                Some(Kind::Punct(b'{' | b'(' | b'['))
            )
        {
            continue;
        }
        let close = attrs::matching(toks, open);
        let end = toks.get(close).map_or(src.len(), |t| t.end);
        c.in_macro(toks[open].start, end);
        if is_exported(toks, src, i) {
            c.generated(toks[open].start, end);
            exported.push(macros::Exported {
                name: toks[i + 2].value(src),
                at: i,
                body: (toks[open].start, end),
            });
        }
    }
    exported
}

/// Whether the item at token `i` has `#[macro_export]` among the outer attributes right
/// before it (doc comments are no tokens): its body is written for the crates calling it.
fn is_exported(toks: &[Token], src: &str, mut i: usize) -> bool {
    while i >= 3 && punct_at(toks, i - 1, b']') {
        // Back to the attribute's `#[`.
        let mut depth = 0usize;
        let mut j = i - 1;
        loop {
            match toks[j].kind {
                Kind::Punct(b']') => depth += 1,
                Kind::Punct(b'[') => depth = depth.saturating_sub(1),
                _ => {}
            }
            if depth == 0 || j == 0 {
                break;
            }
            j -= 1;
        }
        if depth != 0 || j == 0 || !punct_at(toks, j - 1, b'#') {
            return false;
        }
        if toks
            .get(j + 1)
            .is_some_and(|t| t.text(src) == "macro_export")
        {
            return true;
        }
        i = j - 1;
    }
    false
}

/// The imports of the doc tests' code (`doc`: the file's lines, each doc-test line's code in
/// place, every other line empty), all `dev`.
fn doc_imports(doc: &str) -> Vec<Import> {
    let mut c = Collector::new(doc);
    let toks = lex(doc.as_bytes(), &mut c);
    let mut parser = Parser::new(doc, &toks);
    parser.run();
    parser.report(&mut c);
    drop(parser);
    recycle_tokens(toks);
    let mut imports = c.finish();
    for i in &mut imports {
        i.kind = ImportKind::Dev;
        i.in_doc = true;
    }
    imports
}

/// The code of `src`'s doc tests, line for line: a fenced block in `///` or `//!` comments
/// whose info string is empty or Rust's (`rust`, `no_run`, `should_panic`, `edition2021`…;
/// not `text`, `ignore`, another language, nor `compile_fail`, whose code is meant not to
/// build, so what it names is owed nothing), its hidden lines (`# use x;`)
/// included; every other line empty. Empty when the file has none. A block ends as Markdown
/// says: at a fence of its own character, at least as long, with nothing after it, indented
/// at most three spaces more than its opening one (an indented fence inside a Python
/// example is the example's text).
fn doc_tests(src: &str) -> String {
    let mut out = String::new();
    let mut any = false;
    for line in doc_lines(src) {
        if let DocLine::Code(code) = line {
            out.push_str(code);
            any = true;
        }
        out.push('\n');
    }
    if any { out } else { String::new() }
}

/// What one line of a Rust file is to rustdoc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DocLine<'a> {
    /// Not a doc comment's line, or a fence, or a line of a block rustdoc does not compile.
    Other,
    /// A doc test's code line (a hidden `# ` line without its mark).
    Code(&'a str),
    /// A doc comment's Markdown text, outside every code block.
    Prose(&'a str),
}

/// Each line of `src` as rustdoc reads it: doc-test code, doc prose, or neither.
fn doc_lines(src: &str) -> impl Iterator<Item = DocLine<'_>> {
    // The open block: its fence character, length and indentation, and whether it is Rust.
    let mut fence: Option<(u8, usize, usize, bool)> = None;
    src.lines().map(move |line| {
        let t = line.trim_start();
        let doc = t
            .strip_prefix("///")
            .filter(|r| !r.starts_with('/'))
            .or_else(|| t.strip_prefix("//!"));
        let Some(d) = doc else {
            // A `#![doc = include_str!(…)]` between doc comments is part of the same doc
            // (clap's tutorials put each example's file inside a fence written around it):
            // the open block stays open.
            if !(t.starts_with("#![doc") || t.starts_with("#[doc")) {
                fence = None;
            }
            return DocLine::Other;
        };
        let d = d.strip_prefix(' ').unwrap_or(d);
        let trimmed = d.trim_start();
        let indent = d.len() - trimmed.len();
        let run = fence_run(trimmed);
        match (fence, run) {
            (None, Some((c, n))) => {
                fence = Some((c, n, indent, is_rust_block(&trimmed[n..])));
                DocLine::Other
            }
            (Some((fc, fnn, fi, _)), Some((c, n)))
                if c == fc && n >= fnn && indent <= fi + 3 && trimmed[n..].trim().is_empty() =>
            {
                fence = None;
                DocLine::Other
            }
            (Some((_, _, _, true)), _) => DocLine::Code(match trimmed.strip_prefix("# ") {
                Some(hidden) => hidden,
                None if trimmed == "#" => "",
                None => d,
            }),
            (Some(_), _) => DocLine::Other,
            (None, None) => DocLine::Prose(d),
        }
    })
}

/// The crates named by the intra-doc links of `src`'s doc prose (`[x](criterion::BenchmarkId)`,
/// `` [`disqualified::ShortName`] ``, `[x]: serde::Serialize`): rustdoc resolves them against
/// the crate's normal dependencies, so drift counts each as shipped code's use of what the
/// crate declares, never as one it owes (a broken link is a warning, not a build error).
/// Their kind is `dev`: docs are not the build, and the graph's edges stay as the code makes
/// them. Paths from `crate`, `self`, `super` and the standard library are left out.
fn doc_links(src: &str) -> Vec<Import> {
    let mut out: Vec<Import> = Vec::new();
    for (n, (whole, line)) in src.lines().zip(doc_lines(src)).enumerate() {
        let DocLine::Prose(text) = line else { continue };
        for target in link_targets(text) {
            let Some((first, _)) = target.split_once("::") else {
                continue;
            };
            let crate_like = first.starts_with(|c: char| c.is_ascii_lowercase())
                && first.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !matches!(first, "crate" | "self" | "super" | "std" | "core" | "alloc");
            let line = n as u32 + 1;
            if !crate_like || out.iter().any(|i| i.line == line && i.name == first) {
                continue;
            }
            out.push(Import {
                line,
                name: first.to_string(),
                text: whole.trim().chars().take(200).collect(),
                kind: ImportKind::Dev,
                in_macro: false,
                in_doc: false,
                glob_scoped: false,
                macro_scoped: false,
                in_doc_link: true,
                in_function: false,
                generated: false,
                prefix: false,
                load_guarded: false,
                in_script: false,
                before_python: None,
            });
        }
    }
    out
}

/// The link targets a line of Markdown may hold: `[text](target)`, a reference definition's
/// `[x]: target`, and a shortcut `[target]`, each without backticks, a disambiguator
/// (`struct@`) or a trailing `()`/`!`.
fn link_targets(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find(']') else { break };
        let inner = &rest[..close];
        let after = &rest[close + 1..];
        let target = if let Some(paren) = after.strip_prefix('(') {
            paren.split(')').next().unwrap_or("")
        } else if let Some(def) = after.strip_prefix(':') {
            def.split_whitespace().next().unwrap_or("")
        } else {
            inner
        };
        let target = target.trim().trim_matches('`');
        let target = target.rsplit('@').next().unwrap_or(target);
        let target = target.trim_end_matches("()").trim_end_matches('!');
        if target.contains("::") && !target.contains(['/', ' ', '.']) {
            out.push(target);
        }
        rest = after;
    }
    out
}

/// A Markdown code fence at the start of `s`: its character (`` ` `` or `~`) and length (3 or
/// more).
fn fence_run(s: &str) -> Option<(u8, usize)> {
    let c = *s.as_bytes().first().filter(|c| matches!(c, b'`' | b'~'))?;
    let n = s.bytes().take_while(|&x| x == c).count();
    (n >= 3).then_some((c, n))
}

/// Whether a code block's info string (after the fence) makes it a doc test rustdoc compiles.
fn is_rust_block(info: &str) -> bool {
    info.split([',', ' ', '\t'])
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .all(|w| {
            matches!(
                w,
                "rust" | "no_run" | "should_panic" | "test_harness" | "allow_fail"
            ) || w.starts_with("edition")
        })
}
