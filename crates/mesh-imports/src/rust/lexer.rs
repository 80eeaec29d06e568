//! Rust source to tokens: comments recorded, strings, chars, lifetimes and raw identifiers
//! told apart.

use crate::lex::{
    Collector, Kind, Token, at, block_comment, ident_end, is_ident_start, line_comment, quoted_end,
    token_buffer, utf8_len,
};

/// Turns Rust source into tokens; comments are recorded, not returned.
pub(super) fn lex(b: &[u8], c: &mut Collector) -> Vec<Token> {
    let mut toks = token_buffer();
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
