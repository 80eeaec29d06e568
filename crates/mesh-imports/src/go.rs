//! The Go import scanner: the path of every import spec in the import declarations that open
//! a file (after `package`, before the first other declaration).

use super::lex::{
    Collector, FileScan, ImportKind, Kind, Token, at, block_comment, ident_end, is_ident_start,
    kind_at, line_comment, punct_at, quoted_end, recycle_tokens, token_buffer,
};

/// Scans a Go file: every import path (single, grouped, aliased, dot, blank, raw-string).
/// A file constrained by `//go:build ignore` (a generator or tool run with `go run`) is never
/// part of a build, and `go mod tidy` keeps no requirement for it: its imports are optional.
/// Go files declare no test-only modules, so only the imports are filled in.
pub fn scan_file(src: &str) -> FileScan {
    let mut c = Collector::new(src);
    let toks = lex(src.as_bytes(), &mut c);
    collect(&toks, src, &mut c);
    if build_ignored(src) {
        c.weaken(0, src.len(), ImportKind::Optional);
    }
    recycle_tokens(toks);
    FileScan {
        imports: c.finish().into(),
        ..FileScan::default()
    }
}

/// Whether a `//go:build` line before the package clause names the `ignore` tag alone or as
/// a required term (`ignore`, `ignore && linux`), as Go's tools read it.
fn build_ignored(src: &str) -> bool {
    for line in src.lines() {
        let line = line.trim();
        if line.starts_with("package ") {
            return false;
        }
        if let Some(expr) = line.strip_prefix("//go:build ") {
            let terms: Vec<&str> = expr.split("&&").map(str::trim).collect();
            return !expr.contains("||") && terms.contains(&"ignore");
        }
    }
    false
}

/// Turns Go source into tokens; comments are recorded, not returned.
fn lex(b: &[u8], c: &mut Collector) -> Vec<Token> {
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
                i = block_comment(c, b, i, false);
                continue;
            }
            b'"' => {
                let (content_end, end) = quoted_end(b, i + 1, b'"', false);
                Token::with_value(Kind::Str, i, end, (i + 1, content_end))
            }
            b'`' => raw_string(b, i),
            b'\'' => Token::new(Kind::Other, i, quoted_end(b, i + 1, b'\'', false).1),
            ch if is_ident_start(ch) => Token::new(Kind::Ident, i, ident_end(b, i)),
            ch if ch.is_ascii_digit() => Token::new(Kind::Other, i, ident_end(b, i)),
            ch => Token::new(Kind::Punct(ch), i, i + 1),
        };
        i = tok.end.max(i + 1);
        toks.push(tok);
    }
    toks
}

/// A backquoted raw string starting at `i`: no escapes, may span lines.
fn raw_string(b: &[u8], i: usize) -> Token {
    let rest = b.get(i + 1..).unwrap_or(&[]);
    match rest.iter().position(|&c| c == b'`') {
        Some(p) => Token::with_value(Kind::Str, i, i + p + 2, (i + 1, i + 1 + p)),
        None => Token::with_value(Kind::Str, i, b.len(), (i + 1, b.len())),
    }
}

/// Walks the top-level clauses: `package`, then import declarations; stops at anything else,
/// since Go allows imports nowhere later.
fn collect(toks: &[Token], src: &str, c: &mut Collector) {
    let mut i = 0;
    while let Some(t) = toks.get(i) {
        i = match (t.kind, t.text(src)) {
            (Kind::Punct(b';'), _) => i + 1,
            (Kind::Ident, "package") => i + 2,
            (Kind::Ident, "import") => import_decl(toks, i + 1, c),
            _ => return,
        };
    }
}

/// An import declaration after its keyword: a parenthesised group of specs or one spec.
/// Returns where the declaration ends.
fn import_decl(toks: &[Token], i: usize, c: &mut Collector) -> usize {
    if !punct_at(toks, i, b'(') {
        return import_spec(toks, i, c);
    }
    let mut j = i + 1;
    while let Some(t) = toks.get(j) {
        if t.is_punct(b')') {
            return j + 1;
        }
        if t.kind == Kind::Str {
            c.push_value(t);
        }
        j += 1;
    }
    j
}

/// One spec, `[name | . | _] "path"`. Returns where it ends.
fn import_spec(toks: &[Token], i: usize, c: &mut Collector) -> usize {
    let mut j = i;
    if kind_at(toks, j, Kind::Ident) || punct_at(toks, j, b'.') {
        j += 1;
    }
    match toks.get(j) {
        Some(t) if t.kind == Kind::Str => {
            c.push_value(t);
            j + 1
        }
        _ => j,
    }
}

#[cfg(test)]
mod tests {
    use super::scan_file;
    use crate::lex::Import;
    use crate::lex::tests::{assert_survives, names, pairs};

    /// The imports `scan_file` finds in `src`, for compact assertions.
    fn scan(src: &str) -> Vec<Import> {
        scan_file(src).imports.to_vec()
    }

    #[test]
    fn build_ignore_files_are_optional() {
        // ent's `examples/migration/ent/migrate/main.go`, run with `go run -mod=mod`.
        use crate::lex::ImportKind;
        let tool = scan("//go:build ignore\n\npackage main\n\nimport \"example.com/x\"\n");
        assert_eq!(tool[0].kind, ImportKind::Optional);
        let linux = scan("//go:build linux\n\npackage a\n\nimport \"example.com/x\"\n");
        assert_eq!(linux[0].kind, ImportKind::Build);
        let either = scan("//go:build ignore || linux\npackage a\nimport \"x\"\n");
        assert_eq!(either[0].kind, ImportKind::Build);
    }

    #[test]
    fn single_import() {
        assert_eq!(
            pairs(&scan("package main\n\nimport \"fmt\"\n")),
            [(3, "fmt")]
        );
    }

    #[test]
    fn grouped_imports_with_every_spec_form() {
        let src = "package x\nimport (\n\t\"fmt\"\n\tnet \"golang.org/x/net\"\n\t. \"math\"\n\t_ \"embed\"\n\t`raw/path`\n)\n";
        assert_eq!(
            pairs(&scan(src)),
            [
                (3, "fmt"),
                (4, "golang.org/x/net"),
                (5, "math"),
                (6, "embed"),
                (7, "raw/path")
            ]
        );
    }

    #[test]
    fn aliased_dot_and_blank_single_imports() {
        let src = "package x\nimport n \"a/b\"\nimport . \"c/d\"\nimport _ \"e/f\"\nimport `g/h`\n";
        assert_eq!(names(&scan(src)), ["a/b", "c/d", "e/f", "g/h"]);
    }

    #[test]
    fn several_declarations_and_semicolons() {
        let src = "package x; import \"a\"; import (\"b\"; \"c\")\nimport \"d\"";
        assert_eq!(names(&scan(src)), ["a", "b", "c", "d"]);
    }

    #[test]
    fn stops_at_the_first_other_declaration() {
        let src = "package x\nimport \"a\"\nfunc f() {}\nimport \"b\"\n";
        assert_eq!(names(&scan(src)), ["a"]);
        for decl in ["type T int", "var v = 1", "const c = 2"] {
            let src = format!("package x\nimport \"a\"\n{decl}\nimport \"b\"\n");
            assert_eq!(names(&scan(&src)), ["a"], "{decl}");
        }
    }

    #[test]
    fn strings_later_in_the_file_never_count() {
        let src = "package x\nimport \"a\"\nvar s = `\nimport \"b\"\n`\nfunc f() { _ = \"import \\\"c\\\"\" }\n";
        assert_eq!(names(&scan(src)), ["a"]);
    }

    #[test]
    fn comments_are_not_imports() {
        let src = "// import \"no1\"\n/* import \"no2\"\n*/\npackage x // import \"no3\"\nimport (\n\t// \"no4\"\n\t/* \"no5\" */ \"yes\"\n)\n";
        assert_eq!(pairs(&scan(src)), [(7, "yes")]);
    }

    #[test]
    fn build_constraints_and_license_headers_are_skipped() {
        let src =
            "// Copyright\n\n//go:build linux\n\n// Package x does.\npackage x\n\nimport \"os\"\n";
        assert_eq!(pairs(&scan(src)), [(8, "os")]);
    }

    #[test]
    fn mesh_ignore_drops_the_line() {
        let src = "package x\nimport (\n\t\"golang.org/x/net\" // mesh: ignore\n\t\"fmt\"\n)\nimport \"os\" /* mesh: ignore */\n";
        assert_eq!(names(&scan(src)), ["fmt"]);
    }

    #[test]
    fn other_comments_do_not_ignore() {
        let src = "package x\nimport \"os\" // mesh: keep\n";
        assert_eq!(names(&scan(src)), ["os"]);
    }

    #[test]
    fn duplicates_on_one_line_collapse() {
        let src = "package x\nimport (\"a\"; \"a\"; \"b\")\nimport \"a\"\n";
        assert_eq!(pairs(&scan(src)), [(2, "a"), (2, "b"), (3, "a")]);
    }

    #[test]
    fn rune_literals_do_not_open_strings() {
        let src = "package x\nimport ('\"' \"a\")\n";
        assert_eq!(names(&scan(src)), ["a"]);
    }

    #[test]
    fn text_is_the_trimmed_line() {
        let imports = scan("package x\nimport (\n\t  m \"a/b\"   \r\n)\n");
        assert_eq!(imports[0].text, "m \"a/b\"");
    }

    #[test]
    fn empty_paths_name_nothing() {
        assert_eq!(names(&scan("package x\nimport (\"\"; ``; \"a\")")), ["a"]);
    }

    #[test]
    fn no_package_clause_still_scans() {
        assert_eq!(names(&scan("import \"a\"")), ["a"]);
    }

    #[test]
    fn unterminated_input_does_not_panic() {
        assert_eq!(names(&scan("package x\nimport (\n\"a\"\n\"b")), ["a", "b"]);
        assert_eq!(names(&scan("package x\nimport `a")), ["a"]);
        assert!(scan("package x\n/* import \"a\"").is_empty());
        assert_survives(scan_file);
    }
}
