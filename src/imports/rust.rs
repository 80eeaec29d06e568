//! The Rust import scanner: the crate names a file uses, from `use` trees, `extern crate`, and
//! paths written in place (`serde_json::to_string(..)`, `#[tokio::main]`).
//!
//! A path's first segment is only a crate when nothing in the file shadows it, so names the
//! file declares (`mod x`) or binds by a `use` (`use std::fmt;` then `fmt::Display`) are left
//! out; other lowercase false positives are left for resolution to drop.

use super::lex::{
    Collector, FileScan, ImportKind, Kind, Token, at, block_comment, ident_end, is_ident_start,
    kind_at, line_comment, punct_at, quoted_end, utf8_len,
};
use std::collections::HashSet;

/// How deeply `use` groups (`use a::{b::{c}}`) are followed; deeper ones are not real code.
const MAX_USE_DEPTH: usize = 32;

/// Scans a Rust file: its imports, the first segment (crate name) of every `use`,
/// `extern crate` and in-place path that is not a local name (those inside test-only items are
/// `dev`), and the modules it declares only for tests (`#[cfg(test)] mod tests;`), whose files
/// are dev code.
pub fn scan_file(src: &str) -> FileScan {
    let mut c = Collector::new(src);
    let toks = lex(src.as_bytes(), &mut c);
    let mut parser = Parser {
        src,
        toks: &toks,
        found: Vec::new(),
        local_mods: HashSet::new(),
        aliases: HashSet::new(),
        statements: Vec::new(),
    };
    parser.run();
    parser.report(&mut c);
    let mut notes = Vec::new();
    let test_mods = test_items(&toks, src, &mut c, &mut notes);
    FileScan {
        imports: c.finish(),
        test_mods,
        notes,
    }
}

/// Marks the items compiled only for tests as dev code: an item under `#[cfg(test)]` (also
/// inside `all(…)`/`any(…)`, never under `not(…)`) or a test function (`#[test]`,
/// `#[tokio::test]`); an inner `#![cfg(test)]` marks the whole file. Returns the names of
/// `#[cfg(test)] mod name;` declarations. An item whose braces never close runs to the end.
fn test_items(
    toks: &[Token],
    src: &str,
    c: &mut Collector,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let mut mods = Vec::new();
    let mut i = 0;
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
        let close = matching(toks, open);
        let attr = toks.get(open + 1..close).unwrap_or(&[]);
        if is_test_attr(attr, src) {
            let start = toks[i].start;
            if inner {
                c.weaken(start, src.len(), ImportKind::Dev);
            } else {
                let (item_start, end) = item_extent(toks, close + 1);
                if end == usize::MAX {
                    let line = src.get(..start).map_or(0, |s| s.matches('\n').count()) + 1;
                    notes.push(format!(
                        "line {line}: a test-only item never closes: the rest of the file is read as test code"
                    ));
                }
                if let Some(name) = mod_declaration(toks, item_start, src) {
                    mods.push(name);
                }
                c.weaken(start, end.min(src.len()), ImportKind::Dev);
            }
        }
        i = close + 1;
    }
    mods
}

/// The token ranges (inclusive) of the diagnostic codes written in attributes:
/// `#[diagnostic(code(nu::parser::unexpected))]` (miette), `#[error(code(x::y))]`. A code is
/// a name written like a path, never an import: read as one, nushell's `nu::…` codes made
/// every crate import the `nu` binary crate.
fn diagnostic_codes(toks: &[Token], src: &str) -> Vec<(usize, usize)> {
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

/// The index of the bracket closing the one at `open` (counting `[`/`]`), or the end.
fn matching(toks: &[Token], open: usize) -> usize {
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
/// builds: `test`, `all(…)` with a part that does, `any(…)` whose every branch does; never
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
        return word == "test";
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
/// attributes, byte offset where it ends: its `;` or its block's closing brace).
fn item_extent(toks: &[Token], mut j: usize) -> (usize, usize) {
    while punct_at(toks, j, b'#') && punct_at(toks, j + 1, b'[') {
        j = matching(toks, j + 1) + 1;
    }
    let start = j;
    let mut depth = 0usize;
    let mut k = j;
    while let Some(t) = toks.get(k) {
        match t.kind {
            Kind::Punct(b'(' | b'[') => depth += 1,
            Kind::Punct(b')' | b']') => depth = depth.saturating_sub(1),
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

/// `[pub[(…)]] mod name;` at `j`: the module's name (an inline `mod name { … }` has no file).
fn mod_declaration(toks: &[Token], mut j: usize, src: &str) -> Option<String> {
    let word = |k: usize| {
        toks.get(k)
            .filter(|t| t.kind == Kind::Ident)
            .map(|t| t.text(src))
    };
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
        .map(|t| t.value(src).to_string())
}

/// Turns Rust source into tokens; comments are recorded, not returned.
fn lex(b: &[u8], c: &mut Collector) -> Vec<Token> {
    let mut toks = Vec::new();
    let mut i = 0;
    while let Some(&ch) = b.get(i) {
        let tok = match ch {
            b' ' | b'\t' | b'\r' | b'\n' => {
                i += 1;
                continue;
            }
            b'/' if at(b, i + 1) == b'/' => {
                i = line_comment(c, b, i);
                continue;
            }
            b'/' if at(b, i + 1) == b'*' => {
                i = block_comment(c, b, i, true);
                continue;
            }
            b'"' => string(b, i, i),
            b'\'' => match char_end(b, i) {
                Some(end) => Token::new(Kind::Other, i, end),
                None => Token::new(Kind::Other, i, ident_end(b, i + 1)), // a lifetime or label
            },
            b':' if at(b, i + 1) == b':' => Token::new(Kind::PathSep, i, i + 2),
            ch if is_ident_start(ch) => word(b, i),
            ch if ch.is_ascii_digit() => Token::new(Kind::Other, i, ident_end(b, i)),
            ch => Token::new(Kind::Punct(ch), i, i + 1),
        };
        i = tok.end.max(i + 1);
        toks.push(tok);
    }
    toks
}

/// An escaped string whose opening quote is at `quote` (after any prefix starting at `start`).
fn string(b: &[u8], start: usize, quote: usize) -> Token {
    let (content_end, end) = quoted_end(b, quote + 1, b'"', true);
    Token::with_value(Kind::Str, start, end, (quote + 1, content_end))
}

/// At a `'`: the end of a char literal (`'a'`, `'\''`, `'\u{1F600}'`), or `None` when it
/// starts a lifetime or label (`'a`, `'static`).
fn char_end(b: &[u8], i: usize) -> Option<usize> {
    if at(b, i + 1) == b'\\' {
        let mut j = i + 3; // past the quote, the backslash and the escaped byte
        while let Some(&c) = b.get(j) {
            match c {
                b'\'' => return Some(j + 1),
                b'\n' => return Some(j),
                _ => j += 1,
            }
        }
        return Some(b.len());
    }
    let lead = at(b, i + 1);
    let after = i + 1 + utf8_len(lead);
    (lead != 0 && lead != b'\n' && at(b, after) == b'\'').then_some(after + 1)
}

/// An identifier at `i`, or the literal it prefixes: raw strings `r#"…"#`, byte and C
/// strings `b"…"`, `c"…"`, `br"…"`, byte chars `b'x'`, raw identifiers `r#name`.
fn word(b: &[u8], i: usize) -> Token {
    let end = ident_end(b, i);
    let prefix = b.get(i..end).unwrap_or(&[]);
    let next = at(b, end);
    match (prefix, next) {
        (b"r" | b"br" | b"cr", b'"' | b'#') => {
            if let Some(tok) = raw_string(b, i, end) {
                return tok;
            }
        }
        (b"b" | b"c", b'"') => return string(b, i, end),
        (b"b", b'\'') => {
            if let Some(char_end) = char_end(b, end) {
                return Token::new(Kind::Other, i, char_end);
            }
        }
        _ => {}
    }
    if prefix == b"r" && next == b'#' && is_ident_start(at(b, end + 1)) {
        let raw_end = ident_end(b, end + 1);
        return Token::with_value(Kind::Ident, i, raw_end, (end + 1, raw_end));
    }
    Token::new(Kind::Ident, i, end)
}

/// A raw string whose prefix runs from `start` to `hashes` (where its `#`s begin), or `None`
/// if no quote follows the hashes. Ends at a quote followed by as many hashes.
fn raw_string(b: &[u8], start: usize, hashes: usize) -> Option<Token> {
    let mut j = hashes;
    while at(b, j) == b'#' {
        j += 1;
    }
    let count = j - hashes;
    if at(b, j) != b'"' {
        return None;
    }
    let content = j + 1;
    let mut k = content;
    while k < b.len() {
        if b[k] == b'"' && (1..=count).all(|h| at(b, k + h) == b'#') {
            return Some(Token::with_value(
                Kind::Str,
                start,
                k + 1 + count,
                (content, k),
            ));
        }
        k += 1;
    }
    Some(Token::with_value(
        Kind::Str,
        start,
        b.len(),
        (content, b.len()),
    ))
}

/// Where a candidate crate name came from; decides which local names hide it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// The first segment of a `use` tree.
    Use,
    /// `extern crate name`: always a crate.
    Extern,
    /// A path written in place.
    Path,
}

/// Walks the tokens once, gathering candidate crate names and the local names that hide them.
struct Parser<'a, 't> {
    src: &'a str,
    toks: &'t [Token],
    /// (offset, name, origin) of every candidate, in source order.
    found: Vec<(usize, &'a str, Origin)>,
    /// Names declared with `mod name`.
    local_mods: HashSet<&'a str>,
    /// Names a `use` or `extern crate` binds to something other than a crate of that name.
    aliases: HashSet<&'a str>,
    /// Byte ranges of `use` statements: an ignore marker on any of their lines counts.
    statements: Vec<(usize, usize)>,
}

impl<'a> Parser<'a, '_> {
    /// Visits every token, but those of diagnostic codes.
    fn run(&mut self) {
        let skip = diagnostic_codes(self.toks, self.src);
        let mut next_skip = skip.iter().peekable();
        let mut i = 0;
        while i < self.toks.len() {
            while next_skip.peek().is_some_and(|&&(_, end)| end < i) {
                next_skip.next();
            }
            if let Some(&&(start, end)) = next_skip.peek()
                && start <= i
            {
                i = end + 1;
                continue;
            }
            i = self.step(i).max(i + 1);
        }
    }

    /// Pushes the candidates that survive the file's local names into `c`.
    fn report(&self, c: &mut Collector) {
        for &(offset, name, origin) in &self.found {
            let hidden = self.local_mods.contains(name)
                || (origin != Origin::Extern && self.aliases.contains(name));
            if !hidden {
                c.push(offset, name);
            }
        }
        for &(start, end) in &self.statements {
            c.statement(start, end);
        }
    }

    /// Handles the token at `i`; returns the index of the next one to visit.
    fn step(&mut self, i: usize) -> usize {
        match self.keyword(i) {
            "use" => {
                let end = self.use_tree(i + 1, None, None, 0);
                let last = self.toks.get(end).or(self.toks.last());
                if let (Some(first), Some(last)) = (self.toks.get(i), last) {
                    self.statements.push((first.start, last.end));
                }
                end
            }
            "extern" if self.keyword(i + 1) == "crate" => self.extern_crate(i + 2),
            // A proc-macro's `quote! { … }` writes code for its users: the paths in it are
            // theirs to import, not the macro crate's own.
            "quote" | "quote_spanned" | "parse_quote" | "parse_quote_spanned"
                if punct_at(self.toks, i + 1, b'!')
                    && matches!(
                        self.toks.get(i + 2).map(|t| t.kind),
                        Some(Kind::Punct(b'{' | b'(' | b'['))
                    ) =>
            {
                matching(self.toks, i + 2) + 1
            }
            "mod" => {
                if kind_at(self.toks, i + 1, Kind::Ident) {
                    self.local_mods.insert(self.value(i + 1));
                }
                i + 2
            }
            _ => {
                self.path(i);
                i + 1
            }
        }
    }

    /// The text of an identifier token as a keyword (raw identifiers never match), else "".
    fn keyword(&self, i: usize) -> &'a str {
        match self.toks.get(i) {
            Some(t) if t.kind == Kind::Ident => t.text(self.src),
            _ => "",
        }
    }

    /// Whether the identifier at `i`, named `name`, is a keyword or another reserved name:
    /// a raw identifier (`r#type`, `r#async`) never is, whatever it spells.
    fn reserved(&self, i: usize, name: &str) -> bool {
        let raw = self
            .toks
            .get(i)
            .is_some_and(|t| t.text(self.src).starts_with("r#"));
        !raw && is_reserved(name)
    }

    /// The value of token `i` (an identifier's name), or "".
    fn value(&self, i: usize) -> &'a str {
        self.toks.get(i).map_or("", |t| t.value(self.src))
    }

    /// `extern crate name [as alias];`, after `crate`. Returns where it ends.
    fn extern_crate(&mut self, i: usize) -> usize {
        let Some(tok) = self.toks.get(i).filter(|t| t.kind == Kind::Ident) else {
            return i;
        };
        let name = tok.value(self.src);
        if name != "self" {
            self.found.push((tok.start, name, Origin::Extern));
        }
        if self.keyword(i + 1) == "as" && kind_at(self.toks, i + 2, Kind::Ident) {
            self.bind(self.value(i + 2), Some(name));
            return i + 3;
        }
        i + 1
    }

    /// A path written in place: an identifier followed by `::` that starts a path.
    fn path(&mut self, i: usize) {
        let Some(tok) = self.toks.get(i).filter(|t| t.kind == Kind::Ident) else {
            return;
        };
        let follows = i
            .checked_sub(1)
            .and_then(|p| self.toks.get(p))
            .map(|t| t.kind);
        // `a::b` continues a path; a leading `::b` (nothing path-like before the `::`) is a
        // crate path of its own.
        let before_sep = i
            .checked_sub(2)
            .and_then(|p| self.toks.get(p))
            .map(|t| t.kind);
        let leading = follows == Some(Kind::PathSep)
            && !matches!(
                before_sep,
                Some(Kind::Ident | Kind::Punct(b'>' | b')' | b']' | b'$'))
            );
        let continues =
            !leading && matches!(follows, Some(Kind::PathSep | Kind::Punct(b'.' | b'$')));
        let name = tok.value(self.src);
        let turbofish = punct_at(self.toks, i + 2, b'<'); // `size_of::<T>()`: a generic item
        if kind_at(self.toks, i + 1, Kind::PathSep)
            && !continues
            && !turbofish
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && !self.reserved(i, name)
        {
            self.found.push((tok.start, name, Origin::Path));
        }
    }

    /// A use tree at `i`: `[::] a::b::c [as d]`, `a::{…}`, `{…}`, `a::*`. `root` is the first
    /// segment of the enclosing path (`None` at the top: the next segment is the root) and
    /// `last` its last segment (what `self` in a group means). Returns where the tree ends.
    fn use_tree(
        &mut self,
        mut i: usize,
        mut root: Option<&'a str>,
        mut last: Option<&'a str>,
        depth: usize,
    ) -> usize {
        if root.is_none() && kind_at(self.toks, i, Kind::PathSep) {
            i += 1;
        }
        loop {
            match self.toks.get(i).map(|t| t.kind) {
                Some(Kind::Ident) => {
                    let name = self.value(i);
                    if root.is_none() {
                        root = Some(name);
                        self.use_root(i, name);
                    }
                    if name != "self" {
                        last = Some(name);
                    }
                    i += 1;
                    if kind_at(self.toks, i, Kind::PathSep) {
                        i += 1;
                        continue;
                    }
                    return self.use_binding(i, root, last);
                }
                Some(Kind::Punct(b'{')) if depth < MAX_USE_DEPTH => {
                    return self.use_group(i + 1, root, last, depth + 1);
                }
                Some(Kind::Punct(b'*')) => return i + 1,
                _ => return i,
            }
        }
    }

    /// The elements of a `{…}` use group starting after its brace. Returns where it ends.
    fn use_group(
        &mut self,
        mut i: usize,
        root: Option<&'a str>,
        last: Option<&'a str>,
        depth: usize,
    ) -> usize {
        loop {
            if punct_at(self.toks, i, b'}') {
                return i + 1;
            }
            let next = self.use_tree(i, root, last, depth);
            if punct_at(self.toks, next, b',') {
                i = next + 1;
            } else if punct_at(self.toks, next, b'}') {
                return next + 1;
            } else {
                return next; // malformed or cut short
            }
        }
    }

    /// The name a finished use path binds: its alias after `as`, else its last segment.
    fn use_binding(&mut self, i: usize, root: Option<&'a str>, last: Option<&'a str>) -> usize {
        if self.keyword(i) == "as" && kind_at(self.toks, i + 1, Kind::Ident) {
            self.bind(self.value(i + 1), root);
            return i + 2;
        }
        if let Some(last) = last {
            self.bind(last, root);
        }
        i
    }

    /// Records the first segment of a use tree as a candidate, unless it is a path keyword.
    fn use_root(&mut self, i: usize, name: &'a str) {
        if let Some(tok) = self.toks.get(i)
            && !self.reserved(i, name)
            && name != "Self"
        {
            self.found.push((tok.start, name, Origin::Use));
        }
    }

    /// Records that `name` is bound locally; binding a crate's own name (`use serde;`) hides
    /// nothing.
    fn bind(&mut self, name: &'a str, root: Option<&'a str>) {
        if Some(name) != root {
            self.aliases.insert(name);
        }
    }
}

/// Keywords, primitive types and tool attribute namespaces (`#[allow(clippy::x)]`): never
/// a crate name, even when followed by `::`.
fn is_reserved(name: &str) -> bool {
    matches!(
        name,
        "clippy"
            | "rustdoc"
            | "rustfmt"
            | "diagnostic"
            | "as"
            | "async"
            | "await"
            | "break"
            | "const"
            | "continue"
            | "crate"
            | "dyn"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "yield"
            | "bool"
            | "char"
            | "str"
            | "f32"
            | "f64"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
    )
}

#[cfg(test)]
mod tests {
    use super::scan_file;
    use crate::imports::lex::tests::{assert_survives, names, pairs};
    use crate::imports::lex::{Import, ImportKind};

    /// The imports `scan_file` finds in `src`, for compact assertions.
    fn scan(src: &str) -> Vec<Import> {
        scan_file(src).imports
    }

    /// (line, name, kind) triples.
    fn kinds(src: &str) -> Vec<(u32, String, ImportKind)> {
        scan(src)
            .into_iter()
            .map(|i| (i.line, i.name, i.kind))
            .collect()
    }

    #[test]
    fn cfg_test_items_and_test_functions_are_dev() {
        let src = "use a::x;\n#[cfg(test)]\nmod tests {\n    use b::y;\n    #[test]\n    fn t() { c::z(); }\n}\n#[tokio::test]\nasync fn u() { d::w(); }\n#[cfg(all(test, unix))]\nuse e::v;\n#[cfg(not(test))]\nuse f::u;\nfn g() { h::i(); }\n#[cfg(any(test, feature = \"testing\"))]\nuse j::k;\n#[cfg(any(test, all(test, unix)))]\nuse l::m;\n#[cfg(any(test, not(test)))]\nuse n::o;\n";
        let got = kinds(src);
        let dev = ImportKind::Dev;
        let build = ImportKind::Build;
        assert_eq!(
            got,
            [
                (1, "a".into(), build),
                (4, "b".into(), dev),
                (6, "c".into(), dev),
                (8, "tokio".into(), dev),
                (9, "d".into(), dev),
                (11, "e".into(), dev),
                (13, "f".into(), build),
                (14, "h".into(), build),
                (16, "j".into(), build),
                (18, "l".into(), dev),
                (20, "n".into(), build),
            ]
        );
    }

    #[test]
    fn cfg_test_module_declarations_are_named() {
        let f = scan_file(
            "#[cfg(test)]\nmod tests;\n#[cfg(test)]\n#[path = \"x.rs\"]\npub(crate) mod more;\nmod real;\n#[cfg(test)]\nmod inline { use a::b; }\n",
        );
        assert_eq!(f.test_mods, ["tests", "more"]);
        assert_eq!(f.imports[0].kind, ImportKind::Dev);
    }

    #[test]
    fn an_inner_cfg_test_makes_the_whole_file_dev() {
        let got = kinds("//! helpers\n#![cfg(test)]\nuse a::b;\nfn f() { c::d(); }\n");
        assert!(got.iter().all(|(_, _, k)| *k == ImportKind::Dev), "{got:?}");
    }

    #[test]
    fn an_unclosed_test_item_runs_to_the_end_without_losing_what_came_before() {
        let got = kinds("use a::x;\n#[cfg(test)]\nmod tests {\n    use b::y;\n    fn f() {\n");
        assert_eq!(
            got,
            [
                (1, "a".into(), ImportKind::Build),
                (4, "b".into(), ImportKind::Dev)
            ]
        );
    }

    #[test]
    fn an_ignore_marker_anywhere_in_a_multi_line_use() {
        let src = "use a::{\n    b, // mesh: ignore\n    c,\n};\nuse d::e;\n";
        assert_eq!(names(&scan(src)), ["d"]);
    }

    #[test]
    fn raw_identifiers_of_keywords_are_names() {
        // From real crates: a crate or module named by a keyword is written raw.
        assert_eq!(names(&scan("use r#type::Kind;")), ["type"]);
        assert_eq!(
            names(&scan("fn f() { r#async::spawn(); let _ = r#continue::X; }")),
            ["async", "continue"]
        );
        // Declared here, it is a local module, as any other name would be.
        assert!(scan("mod r#type;\nfn f() -> r#type::Kind { r#type::Kind::A }").is_empty());
        // The keywords themselves are still no crate.
        assert!(scan("fn f() { type::x(); async::y(); }").is_empty());
    }

    #[test]
    fn quote_bodies_are_the_generated_codes_imports_not_the_macros() {
        // The shape of every derive crate (serde_derive, thiserror-impl, nushell's macros).
        let src = "use proc_macro2::TokenStream;\nuse quote::quote;\n\npub fn derive(input: syn::DeriveInput) -> TokenStream {\n    let name = &input.ident;\n    let body = quote_spanned! { name.span() => nu_protocol::Value::test() };\n    let extra: syn::Expr = syn::parse_quote!(serde_json::Value::Null);\n    quote! {\n        impl nu_protocol::FromValue for #name {\n            fn from(v: ::nu_engine::Value) -> Self { #body; std::process::exit(0) }\n        }\n    }\n}\n";
        assert_eq!(names(&scan(src)), ["proc_macro2", "quote", "syn", "syn"]);
        // An unclosed body runs to the end without a panic.
        assert_eq!(names(&scan("use a::b;\nquote! { c::d(")), ["a"]);
        // `quote` that is no macro call is an ordinary path.
        assert_eq!(
            names(&scan("fn f() { quote::format_ident!(\"x\"); }")),
            ["quote"]
        );
    }

    #[test]
    fn diagnostic_codes_and_tool_lints_are_no_paths() {
        // nushell's errors: miette codes named like paths of the `nu` crate.
        let src = "use miette::Diagnostic;\n#[derive(Diagnostic)]\npub enum E {\n    #[diagnostic(code(nu::compile::garbage), help(\"x\"))]\n    A,\n    #[error(\"b\")]\n    #[diagnostic(\n        code(nu::shell::io),\n        url(docsrs)\n    )]\n    B(#[source] thiserror_ext::Box),\n}\n#[cfg_attr(not(windows), allow(rustdoc::broken_intra_doc_links))]\nfn f() { code(x::y); }\n";
        assert_eq!(names(&scan(src)), ["miette", "thiserror_ext", "x"]);
    }

    #[test]
    fn leading_colons_and_raw_identifiers_in_paths() {
        assert_eq!(names(&scan("fn f() { ::serde::to_string(); }")), ["serde"]);
        assert_eq!(names(&scan("use r#async_x::y;")), ["async_x"]);
    }

    #[test]
    fn use_reports_the_first_segment() {
        assert_eq!(pairs(&scan("use a::b::c;")), [(1, "a")]);
        assert_eq!(names(&scan("use a::{b, c::d};")), ["a"]);
        assert_eq!(names(&scan("use ::a::b;")), ["a"]);
        assert_eq!(names(&scan("use serde;")), ["serde"]);
        assert_eq!(names(&scan("use a::*;")), ["a"]);
        assert_eq!(names(&scan("use a as b;")), ["a"]);
    }

    #[test]
    fn top_level_use_groups_report_each_root() {
        assert_eq!(pairs(&scan("use {a::x,\n b::y};")), [(1, "a"), (2, "b")]);
        assert_eq!(names(&scan("use ::{a, b::{c, d}};")), ["a", "b"]);
    }

    #[test]
    fn visibility_does_not_matter() {
        let src = "pub use a::x;\npub(crate) use b::y;\npub(in crate::m) use c::z;";
        assert_eq!(names(&scan(src)), ["a", "b", "c"]);
    }

    #[test]
    fn local_paths_are_not_crates() {
        let src = "use crate::a;\nuse self::b;\nuse super::c;\nuse super::super::d;\nuse Self::e;";
        assert!(scan(src).is_empty());
    }

    #[test]
    fn extern_crate() {
        assert_eq!(pairs(&scan("extern crate foo;")), [(1, "foo")]);
        assert_eq!(names(&scan("extern crate foo as bar;\nbar::x();")), ["foo"]);
        assert!(scan("extern crate self as me;").is_empty());
        assert!(scan("extern \"C\" { fn f(); }").is_empty());
    }

    #[test]
    fn paths_in_expressions_and_types() {
        assert_eq!(names(&scan("fn f() { a::b(); }")), ["a"]);
        assert_eq!(names(&scan("const X: a::B = a::B;")), ["a"]);
        assert_eq!(names(&scan("type T = <a::T as x::Y>::Z;")), ["a", "x"]);
        assert_eq!(
            pairs(&scan("#[tokio::main]\nasync fn main() {}")),
            [(1, "tokio")]
        );
        assert_eq!(
            names(&scan("#[derive(serde::Serialize)] struct S;")),
            ["serde"]
        );
        assert_eq!(names(&scan("fn f() { foo::bar!(); }")), ["foo"]);
    }

    #[test]
    fn only_the_first_segment_of_a_path() {
        assert_eq!(
            names(&scan("fn f() { a::b::c::d(); x.y::<u8>(); $m::z; }")),
            ["a"]
        );
    }

    #[test]
    fn tool_attributes_and_turbofish_calls_are_not_crates() {
        let src = "#[allow(clippy::all)]\n#[rustfmt::skip]\n#[diagnostic::on_unimplemented(message = \"x\")]\nfn f() { size_of::<u8>(); iter::<T>::x(); }";
        assert!(scan(src).is_empty(), "{:?}", scan(src));
    }

    #[test]
    fn keywords_primitives_and_types_are_not_crates() {
        let src = "fn f() { crate::a(); self::b(); super::c(); Self::d(); u8::MAX; str::from_utf8(x); Vec::<u8>::new(); String::new(); $crate::e(); }";
        assert!(scan(src).is_empty(), "{:?}", scan(src));
    }

    #[test]
    fn local_modules_hide_paths_and_uses() {
        let src =
            "mod util;\npub mod net { }\nuse util::x;\nfn f() { util::y(); net::z(); other::w(); }";
        assert_eq!(pairs(&scan(src)), [(4, "other")]);
    }

    #[test]
    fn use_bindings_hide_later_paths() {
        let src = "use std::fmt;\nuse std::{io::{self, Write}, sync::Arc};\nuse serde_json as json;\nfn f() { fmt::Display; io::stdout(); json::to_string(); serde_json::x(); }";
        assert_eq!(
            pairs(&scan(src)),
            [(1, "std"), (2, "std"), (3, "serde_json"), (4, "serde_json")]
        );
    }

    #[test]
    fn a_use_of_a_crate_itself_does_not_hide_it() {
        let src = "use serde;\nfn f() { serde::x(); }";
        assert_eq!(pairs(&scan(src)), [(1, "serde"), (2, "serde")]);
    }

    #[test]
    fn bindings_hide_uses_through_them() {
        let src = "use std::fmt;\nuse fmt::Write;";
        assert_eq!(pairs(&scan(src)), [(1, "std")]);
    }

    #[test]
    fn std_core_alloc_are_reported() {
        let src = "use std::io;\nuse core::mem;\nextern crate alloc;";
        assert_eq!(names(&scan(src)), ["std", "core", "alloc"]);
    }

    #[test]
    fn comments_are_not_imports() {
        let src = "// use a::b;\n/// use c::d;\n//! e::f()\n/* use g::h; /* nested i::j */ still k::l */\n/** m::n */ use real::x;";
        assert_eq!(pairs(&scan(src)), [(5, "real")]);
    }

    #[test]
    fn strings_are_not_imports() {
        let src = r##"fn f() { let s = "use a::b; \" c::d"; let r = r#"use e::f; " g::h"#; let b = b"i::j"; let br = br"k::l"; let c = c"m::n"; }
use real::x;"##;
        assert_eq!(pairs(&scan(src)), [(2, "real")]);
    }

    #[test]
    fn raw_strings_with_many_hashes() {
        let src = "let s = r###\"a \"## b::c\"###; d::e();";
        assert_eq!(names(&scan(src)), ["d"]);
        assert_eq!(names(&scan("let s = r\"\\\"; a::b();")), ["a"]);
    }

    #[test]
    fn chars_and_lifetimes() {
        let src = "fn f<'a>(x: &'a str) -> char { let q = '\"'; let e = '\\''; let u = '\\u{1F600}'; let b = b'\"'; 'outer: loop {} a::b(); 'x' }";
        assert_eq!(names(&scan(src)), ["a"]);
        assert_eq!(
            names(&scan("impl<'a> T<'a> for X { fn f(&'a self) { c::d() } }")),
            ["c"]
        );
        assert_eq!(names(&scan("let c = 'é'; let s = \"x\"; a::b();")), ["a"]);
    }

    #[test]
    fn raw_identifiers() {
        assert_eq!(
            names(&scan("fn f() { r#foo::bar(); let r#use = 1; }")),
            ["foo"]
        );
        assert_eq!(names(&scan("use r#async_x::y;")), ["async_x"]);
    }

    #[test]
    fn mesh_ignore() {
        let src =
            "use foo::bar; // mesh: ignore\nuse baz::q;\nfn f() { x::y(); /* mesh: ignore */ }";
        assert_eq!(pairs(&scan(src)), [(2, "baz")]);
    }

    #[test]
    fn duplicates_on_a_line_collapse() {
        assert_eq!(
            pairs(&scan("fn f() { a::x(); a::y(); b::z(); }")),
            [(1, "a"), (1, "b")]
        );
    }

    #[test]
    fn text_is_the_trimmed_line() {
        let imports = scan("mod m {\n    use serde::Deserialize;   \n}");
        assert_eq!(imports[0].text, "use serde::Deserialize;");
        assert_eq!(imports[0].line, 2);
    }

    #[test]
    fn garbage_does_not_panic() {
        let deep = format!("use {};", "{a::".repeat(10_000));
        assert_eq!(names(&scan(&deep)), ["a"]);
        assert!(scan("r#\"use a::b;").is_empty());
        assert!(scan("/* /* */ use a::b;").is_empty());
        assert_survives(scan_file);
    }
}
