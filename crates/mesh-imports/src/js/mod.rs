//! The JavaScript/TypeScript import scanner: the specifier string of static imports and
//! re-exports (`import … from "s"`, `export … from "s"`, `import "s"`), dynamic `import("s")`,
//! `require("s")` and `require.resolve("s")`, exactly as written ("@scope/pkg/sub", "./x", "lodash/fp").
//! Those inside a `try` whose `catch` handles a missing module are optional.
//!
//! The lexer follows template literals through nested `${…}` expressions and tells regex
//! literals from division by the token before the `/`, so neither can derail string tracking.

use memchr::memmem::Finder;
use std::sync::LazyLock;

use super::lex::{
    Collector, FileScan, ImportKind, Kind, Token, at, block_comment, has_marker, ident_end,
    is_ident_continue, is_ident_start, kind_at, line_comment, line_end, punct_at, quoted_end,
    recycle_tokens, token_buffer,
};

/// Scans a JS or TS file: every import specifier given as a string literal. JS files declare
/// no test-only modules, so only the imports are filled in.
pub fn scan_file(src: &str) -> FileScan {
    scan(src, false)
}

/// [`scan_file`]: only the statements that may import need tokens, so lexing stops past the
/// last of them, unless something else in the file must be read `whole` (an ignore marker,
/// whose comment may follow an import on its line; a `try`/`catch`; a virtual mock).
fn scan(src: &str, whole: bool) -> FileScan {
    let found = survey(src.as_bytes());
    let marker = has_marker(src);
    let mut c = Collector::with_marker(src, marker);
    let pragmas = pragmas(src, &mut c) | jsdoc_imports(src, &mut c) | reference_types(src, &mut c);
    let react_named = REACT_GLOBAL.find(src.as_bytes()).is_some();
    let whole = whole
        || marker
        || found.catches
        || found.virtual_
        || found.runs
        || found.paths
        || found.umd
        || react_named;
    let stop = if whole {
        None
    } else {
        match last_candidate(src.as_bytes()) {
            Some(at) => Some(at),
            None if pragmas => {
                return FileScan {
                    imports: c.finish().into(),
                    ..FileScan::default()
                };
            }
            None => return FileScan::default(),
        }
    };
    let toks = Lexer::new(src.as_bytes(), &mut c).run(stop);
    collect(&toks, src, &mut c);
    if react_named
        && !c.found_any(|n| n == "react" || n.starts_with("react/"))
        && let Some(at) = global_react(&toks, src)
    {
        c.push_optional(at, "react");
    }
    if found.catches {
        optional_requires(&toks, src, &mut c);
    }
    if found.runs {
        commands_run(&toks, src, &mut c);
    }
    if found.paths {
        node_modules_paths(&toks, src, &mut c);
    }
    if found.umd {
        umd_requires(&toks, src, &mut c);
    }
    let mut imports = c.finish();
    let virtual_modules = if found.virtual_ {
        virtual_mocks(&toks, src)
    } else {
        Vec::new()
    };
    if !virtual_modules.is_empty() {
        imports.retain(|i| !virtual_modules.contains(&i.name.as_str()));
    }
    recycle_tokens(toks);
    FileScan {
        imports: imports.into(),
        ..FileScan::default()
    }
}

static REACT_GLOBAL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("React."));

/// Makes a UMD wrapper's `require("x")`s optional: code testing `define.amd` (an AMD
/// loader), else `exports`, else a browser global requires its dependencies only in its
/// CommonJS branch, and a page loading it by `<script>` (ckan's vendored DataTables
/// plugins) takes the global one. Its `import`s, and files that only mention `define.amd`
/// in a comment or a string, keep their kind.
fn umd_requires(toks: &[Token], src: &str, c: &mut Collector) {
    let amd = (0..toks.len()).any(|i| {
        ident_at(toks, i, src, "define")
            && punct_at(toks, i + 1, b'.')
            && ident_at(toks, i + 2, src, "amd")
    });
    if !amd {
        return;
    }
    for i in 0..toks.len() {
        if ident_at(toks, i, src, "require")
            && punct_at(toks, i + 1, b'(')
            && let Some(arg) = toks.get(i + 2).filter(|t| t.kind == Kind::Str)
        {
            c.weaken(arg.start, arg.end, ImportKind::Optional);
        }
    }
}

/// Records, optionally, the package a string's path to files in `node_modules` names
/// (`"node_modules/htmx.org/dist/htmx.js"` in a gulp task copying it,
/// `"./node_modules/@s/x/fonts/*"`): a tool reads its files by path, no import names it.
fn node_modules_paths(toks: &[Token], src: &str, c: &mut Collector) {
    const DIR: &str = "node_modules/";
    for t in toks.iter().filter(|t| t.kind == Kind::Str) {
        let v = t.value(src);
        let Some(at) = v.rfind(DIR).filter(|&at| at == 0 || v[..at].ends_with('/')) else {
            continue;
        };
        let rest = &v[at + DIR.len()..];
        // The package's own segments (`@scope/name` or `name`); a glob may follow them.
        let segments = if rest.starts_with('@') { 2 } else { 1 };
        let end = (rest.match_indices('/').nth(segments - 1)).map_or(rest.len(), |(i, _)| i);
        let pkg = &rest[..end];
        let plain = pkg.split('/').count() == segments
            && pkg.split('/').all(|p| {
                !p.is_empty()
                    && !p.starts_with('.')
                    && p.bytes().all(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'@')
                    })
            });
        // A file of it, or a glob of its files (`…/dist/htmx.js`, `…/webfonts/*`): read by
        // path. A bare package directory is a resolution root (a bundler's alias to
        // `./node_modules/lodash` for what code imports), a directory a test on an id.
        let last = rest[end..].rsplit('/').next().unwrap_or("");
        let files = end < rest.len() && (last.contains('*') || last.contains('.'));
        if plain && files {
            c.push_optional(t.value.0 + at + DIR.len(), pkg);
        }
    }
}

/// Where a file first writes React's global namespace in code (`React.ReactNode`,
/// `React.FC`): the name `React`, not a property, then `.` and a name — never in a string, a
/// template's text or a comment, and not where the file binds `React` itself (`import * as
/// React from 'preact/compat'`, `const React = …`). `@types/react` declares `React` global, so
/// TypeScript code may name React's types with no import; the file uses `react` (optional: a
/// global names no dependency the module must declare).
fn global_react(toks: &[Token], src: &str) -> Option<usize> {
    let react = |i: usize| ident_at(toks, i, src, "React");
    let binds = (1..toks.len()).any(|i| {
        react(i)
            && ["import", "as", "const", "let", "var", "function", "class"]
                .iter()
                .any(|w| ident_at(toks, i - 1, src, w))
    });
    if binds {
        return None;
    }
    (0..toks.len())
        .find(|&i| {
            react(i)
                && !i.checked_sub(1).is_some_and(|p| punct_at(toks, p, b'.'))
                && punct_at(toks, i + 1, b'.')
                && kind_at(toks, i + 2, Kind::Ident)
        })
        .map(|i| toks[i].start)
}

static JSX_SOURCE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("@jsxImportSource"));
static ENVIRONMENT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("-environment"));

/// Records the packages a file's comment pragmas load, which no import names: JSX compiled
/// against `/** @jsxImportSource preact */` imports `preact/jsx-runtime`, and a test file
/// whose docblock says `@jest-environment jsdom` runs in `jest-environment-jsdom` (vitest's
/// `@vitest-environment happy-dom` in `happy-dom`) — optional, since the runner resolves an
/// environment from its own root, so the file's package need not declare it. Only a pragma
/// that opens a comment line counts (`// @x`, `/** @x`, ` * @x`), never one a string or code
/// holds. Whether any was.
fn pragmas(src: &str, c: &mut Collector) -> bool {
    let b = src.as_bytes();
    let mut any = false;
    let value = |at: usize| -> Option<(usize, &str)> {
        let line_start = src[..at].rfind('\n').map_or(0, |n| n + 1);
        let lead = &src[line_start..at];
        if !lead
            .bytes()
            .all(|c| matches!(c, b' ' | b'\t' | b'/' | b'*'))
            || !lead.contains(['/', '*'])
        {
            return None;
        }
        let rest = &src[at..];
        let word_start = rest.find(char::is_whitespace)?;
        let after = &rest[word_start..];
        let trimmed = after.trim_start_matches([' ', '\t']);
        let start = at + word_start + (after.len() - trimmed.len());
        let end = trimmed
            .find(|c: char| c.is_whitespace() || c == '*')
            .unwrap_or(trimmed.len());
        Some((start, &trimmed[..end])).filter(|(_, v)| !v.is_empty())
    };
    for at in JSX_SOURCE.find_iter(b) {
        if let Some((start, v)) = value(at) {
            c.push(start, format!("{v}/jsx-runtime"));
            any = true;
        }
    }
    for at in ENVIRONMENT.find_iter(b) {
        let Some(runner) = ["@jest", "@vitest"]
            .into_iter()
            .find(|r| src[..at].ends_with(r))
        else {
            continue;
        };
        let Some((start, v)) = value(at - runner.len()) else {
            continue;
        };
        if let Some(package) = environment_package(runner, v) {
            // The runner loads it from its own root, not the file's package: a use, never
            // owed by the file's manifest.
            c.push(start, package);
            c.weaken(start, start + v.len(), ImportKind::Optional);
            any = true;
        }
    }
    any
}

static JSDOC_IMPORT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("import"));

/// Records the packages a file's JSDoc comments import types from, which TypeScript reads in
/// JavaScript it checks: `/** @import { Foo } from 'x' */` and `@type {import('x').Foo}`.
/// A comment never runs, so each is a type-only use (drift reads it so from its line), and
/// optional: owed nothing, as the file does not say whether anything checks it. Only an
/// `import` inside a JSDoc block counts: after a `/**` its line does not close before it, or
/// on a line going on with `*`. Whether any was.
fn jsdoc_imports(src: &str, c: &mut Collector) -> bool {
    // A line's bytes looked at around a match, either way: a longer line (minified code)
    // is not read whole for each match, which would make one long line quadratic.
    const REACH: usize = 256;
    let b = src.as_bytes();
    let mut any = false;
    let (mut line_start, mut seen) = (0, 0);
    for at in JSDOC_IMPORT.find_iter(b) {
        if let Some(nl) = memchr::memrchr(b'\n', &b[seen..at]) {
            line_start = seen + nl + 1;
        }
        seen = at;
        let first = src[line_start..].trim_start_matches([' ', '\t']);
        let mut from = line_start.max(at.saturating_sub(REACH));
        while !src.is_char_boundary(from) {
            from += 1;
        }
        let lead = &src[from..at];
        // Inside a JSDoc block (`/** … */`, or a line of one going on: ` * @param …`) not
        // closed before the match; a `//` or `/* */` comment TypeScript does not read.
        let in_comment = match lead.rfind("*/") {
            Some(closed) => lead[closed..].contains("/**"),
            None => first.starts_with('*') && !first.starts_with("*/") || lead.contains("/**"),
        };
        if !in_comment || (at > 0 && is_ident_continue(b[at - 1])) {
            continue;
        }
        let mut to = (at + "import".len() + REACH).min(src.len());
        while !src.is_char_boundary(to) {
            to -= 1;
        }
        let rest = &src[at + "import".len()..to];
        let line_rest = &rest[..rest.find('\n').unwrap_or(rest.len())];
        // `import('x')`, or `@import … from 'x'` on the same line.
        let spec = if let Some(r) = line_rest.strip_prefix('(') {
            Some(r.trim_start())
        } else if at > 0 && b[at - 1] == b'@' {
            line_rest
                .find(" from ")
                .map(|f| line_rest[f + " from ".len()..].trim_start())
        } else {
            None
        };
        if let Some(spec) = spec {
            any |= push_quoted(src, spec, c);
        }
    }
    any
}

/// Pushes the name `s` (a part of `src`) opens with in quotes (`'x'`, `"x"`) as an optional
/// import: a comment's, read by a type checker only. Whether there was one.
fn push_quoted(src: &str, s: &str, c: &mut Collector) -> bool {
    let Some(q) = s.chars().next().filter(|q| matches!(q, '\'' | '"')) else {
        return false;
    };
    let Some(end) = s[1..].find(q) else {
        return false;
    };
    let name = &s[1..1 + end];
    if name.is_empty() || name.contains(char::is_whitespace) {
        return false;
    }
    c.push_optional(s.as_ptr() as usize - src.as_ptr() as usize + 1, name);
    true
}

static REFERENCE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("<reference"));

/// Records the packages a TypeScript triple-slash directive loads the types of, which no
/// import names: `/// <reference types="vite/client" />` makes the compiler read that
/// package's declarations (a `react-app-env.d.ts`'s `react-scripts`, a test's ambient
/// `@cloudflare/workers-types`). A type-only use, optional like a JSDoc import: the file does
/// not say whether anything checks it. Only a directive opening its line counts (`///`
/// first); `path` and `lib` references name no package. Whether any was.
fn reference_types(src: &str, c: &mut Collector) -> bool {
    let b = src.as_bytes();
    let mut any = false;
    for at in REFERENCE.find_iter(b) {
        // The directive opens its line: `///` and blanks before it, looked for a short way
        // back (a long line is no directive's).
        let from = at.saturating_sub(32);
        let line_start = match memchr::memrchr(b'\n', &b[from..at]) {
            Some(n) => from + n + 1,
            None if from == 0 => 0,
            None => continue,
        };
        if src[line_start..at].trim() != "///" {
            continue;
        }
        let rest = &src[at + "<reference".len()..line_end(b, at)];
        if !rest.starts_with(char::is_whitespace) {
            continue;
        }
        let Some(after) = rest.trim_start().strip_prefix("types") else {
            continue;
        };
        let Some(after) = after.trim_start().strip_prefix('=') else {
            continue;
        };
        let after = after.trim_start();
        // `types="node"` is Node's own types: what a `node:` import uses.
        if after.starts_with("\"node\"") || after.starts_with("'node'") {
            c.push_optional(after.as_ptr() as usize - src.as_ptr() as usize + 1, "node:");
            any = true;
            continue;
        }
        any |= push_quoted(src, after, c);
    }
    any
}

/// The commands that run a package by its name, fetching it when it is not installed:
/// `npx prettier`, `pnpm exec tsc`, `yarn dlx create-x`.
const RUNNERS: &[&[&str]] = &[
    &["npx"],
    &["bunx"],
    &["npm", "exec"],
    &["pnpm", "exec"],
    &["pnpm", "dlx"],
    &["yarn", "exec"],
    &["yarn", "dlx"],
];

/// Records the packages the file's code runs as commands through a package runner: a string
/// (or a template literal's text before its first `${`) that starts `npx prettier --write`
/// (create-payload-app's `execSync`). The runner takes the package from the install around
/// it, so a declaration of it is used; optional, since `npx` fetches what is not installed.
/// The word is taken as the package's name: a command named otherwise (`npx tsc`) names no
/// declaration, and is left to the package's other uses.
fn commands_run(toks: &[Token], src: &str, c: &mut Collector) {
    for t in toks {
        let text = match t.kind {
            Kind::Str => t.value(src),
            Kind::Other if t.text(src).starts_with('`') => {
                let raw = &t.text(src)[1..];
                &raw[..raw.find("${").unwrap_or(raw.len())]
            }
            _ => continue,
        };
        let mut words = text.split_ascii_whitespace();
        let first: Vec<&str> = words.by_ref().take(2).collect();
        let Some(runner) = RUNNERS.iter().find(|r| first.starts_with(r)) else {
            continue;
        };
        // The runner's words, then its flags (`npx -y`, `npx --yes`), then the package.
        let rest = first[runner.len()..].iter().copied().chain(words);
        let Some(spec) = rest.into_iter().find(|w| !w.starts_with('-')) else {
            continue;
        };
        if let Some(name) = runner_package(spec) {
            c.push_optional(t.start, name);
        }
    }
}

/// The package a runner's word names: `prettier@3` → `prettier`, `@scope/x@1` → `@scope/x`;
/// `None` for what no package name looks like (a path, a variable's text).
fn runner_package(spec: &str) -> Option<&str> {
    let (scope, rest) = match spec.strip_prefix('@') {
        Some(r) => {
            let slash = r.find('/')?;
            (slash + 2, &spec[slash + 2..])
        }
        None => (0, spec),
    };
    let name = &spec[..scope + rest.find('@').unwrap_or(rest.len())];
    let ok = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._@/".contains(c);
    (!rest.is_empty() && name.chars().all(ok) && !name.starts_with(['.', '/'])).then_some(name)
}

/// The package a test runner loads for the environment `v` a docblock names: none for Node's
/// own or a file path; jest completes a short name (`jsdom` → `jest-environment-jsdom`),
/// vitest has `jsdom`, `happy-dom` and `edge-runtime` built in (their packages are peers) and
/// completes the rest (`vitest-environment-x`).
fn environment_package(runner: &str, v: &str) -> Option<String> {
    if v == "node" || v.starts_with(['.', '/', '<']) {
        return None;
    }
    let prefix = match runner {
        "@jest" => "jest-environment-",
        _ => match v {
            "jsdom" | "happy-dom" => return Some(v.to_string()),
            "edge-runtime" => return Some("@edge-runtime/vm".to_string()),
            _ => "vitest-environment-",
        },
    };
    match v.starts_with('@') || v.starts_with(prefix) {
        true => Some(v.to_string()),
        false => Some(format!("{prefix}{v}")),
    }
}

/// The modules a file mocks as virtual: `jest.mock('x', factory, {virtual: true})`, and the
/// same option to `jest.doMock` and `jest.unstable_mockModule`. jest then serves `x` from the
/// factory and never looks for it, so the file's own imports of `x` are no dependency
/// (jest-transform's tests `require('test_preprocessor')` so). Vitest's `vi.mock` has no such
/// option (it takes `{spy}`), so it is not read.
fn virtual_mocks<'s>(toks: &[Token], src: &'s str) -> Vec<&'s str> {
    let ident = |j: usize, names: &[&str]| {
        toks.get(j)
            .is_some_and(|t| t.kind == Kind::Ident && names.contains(&t.text(src)))
    };
    let mut out = Vec::new();
    for i in 0..toks.len() {
        let open = i + 3;
        if !ident(i, &["jest"])
            || !punct_at(toks, i + 1, b'.')
            || !ident(i + 2, &["mock", "doMock", "unstable_mockModule"])
            || !punct_at(toks, open, b'(')
        {
            continue;
        }
        let Some(name) = toks.get(open + 1).filter(|t| t.kind == Kind::Str) else {
            continue;
        };
        let Some(close) = closing(toks, open) else {
            continue;
        };
        // The options are the third argument: what follows the call's second own comma.
        let mut depth = 0usize;
        let mut commas = 0;
        let mut options = close;
        for (j, t) in toks.iter().enumerate().take(close).skip(open + 1) {
            match t.kind {
                Kind::Punct(b'{' | b'(' | b'[') => depth += 1,
                Kind::Punct(b'}' | b')' | b']') => depth = depth.saturating_sub(1),
                Kind::Punct(b',') if depth == 0 => {
                    commas += 1;
                    if commas == 2 {
                        options = j + 1;
                    }
                }
                _ => {}
            }
        }
        let is_virtual = (options..close.saturating_sub(2)).any(|j| {
            ident(j, &["virtual"]) && punct_at(toks, j + 1, b':') && ident(j + 2, &["true"])
        });
        if is_virtual {
            out.push(name.value(src));
        }
    }
    out
}

/// Whether a `/` right after this token starts a regex rather than a division: after most
/// punctuation (not `)`, `]`, `.`) and after keywords that precede expressions.
fn regex_may_follow(kind: Kind, text: &[u8]) -> bool {
    match kind {
        Kind::Punct(p) => matches!(
            p,
            b'(' | b','
                | b'='
                | b':'
                | b'['
                | b'!'
                | b'&'
                | b'|'
                | b'?'
                | b'{'
                | b'}'
                | b';'
                | b'+'
                | b'-'
                | b'*'
                | b'%'
                | b'<'
                | b'>'
                | b'~'
                | b'^'
        ),
        Kind::Ident => matches!(
            text,
            b"return"
                | b"typeof"
                | b"case"
                | b"do"
                | b"else"
                | b"in"
                | b"of"
                | b"new"
                | b"delete"
                | b"void"
                | b"throw"
                | b"instanceof"
                | b"yield"
                | b"await"
        ),
        _ => false,
    }
}

/// The JS lexer's state: where it is, and what it needs to tell a regex from a division and
/// to come back into a template literal after a `${…}` expression.
struct Lexer<'a, 'c, 's> {
    b: &'a [u8],
    c: &'c mut Collector<'s>,
    toks: Vec<Token>,
    i: usize,
    /// Whether a `/` here would start a regex (decided by the previous token).
    regex_ok: bool,
    /// Whether nothing but whitespace precedes `i` on its line.
    line_start: bool,
    /// One entry per open `${` expression: how many `{` are open inside it.
    templates: Vec<u32>,
}

impl<'a, 'c, 's> Lexer<'a, 'c, 's> {
    /// A lexer at the start of `b`.
    fn new(b: &'a [u8], c: &'c mut Collector<'s>) -> Self {
        Lexer {
            b,
            c,
            toks: token_buffer(),
            i: 0,
            regex_ok: true,
            line_start: true,
            templates: Vec::new(),
        }
    }

    /// Lexes the input (comments are recorded, not returned): all of it, or with `stop`, only
    /// as far as every import form that starts before `stop` needs. Each form reads at most
    /// seven tokens past its keyword (`import . meta . resolve ( "s"`), and a clause (`import {a, b} from "s"`) ends at the
    /// first token that is no name, string, `,`, `*`, `{` or `}`: lexing stops once both are
    /// past the first token at or after `stop`.
    fn run(mut self, stop: Option<usize>) -> Vec<Token> {
        if self.b.starts_with(b"#!") {
            self.i = line_end(self.b, 0);
        }
        // The index of the first token at or past `stop`, once lexed; whether a token that
        // ends every clause came after it.
        let mut past: Option<usize> = None;
        let mut ended = false;
        while let Some(&ch) = self.b.get(self.i) {
            let before = self.toks.len();
            self.step(ch);
            let (Some(stop), Some(last)) = (stop, self.toks.last()) else {
                continue;
            };
            if self.toks.len() == before {
                continue;
            }
            match past {
                None if last.start >= stop => past = Some(before),
                Some(_) => ended |= ends_clauses(last.kind),
                None => {}
            }
            // The longest form after its keyword: `import . meta . resolve ( "s"`.
            if ended && past.is_some_and(|k| self.toks.len() > k + 7) {
                break;
            }
        }
        self.toks
    }

    /// Lexes what starts at `self.i` (the byte `ch`) and moves past it.
    fn step(&mut self, ch: u8) {
        let (b, i) = (self.b, self.i);
        match ch {
            b'\n' => {
                self.line_start = true;
                self.i += 1;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.i += 1,
            b'/' if at(b, i + 1) == b'/' => self.i = line_comment(self.c, b, i),
            b'/' if at(b, i + 1) == b'*' => self.i = block_comment(self.c, b, i, false),
            b'/' if self.regex_ok || self.line_start => self.regex_or_slash(),
            b'\'' | b'"' => {
                let (content_end, end) = quoted_end(b, i + 1, ch, false);
                self.emit(Token::with_value(Kind::Str, i, end, (i + 1, content_end)));
            }
            b'`' => self.template(i + 1, true),
            b'{' => {
                if let Some(open) = self.templates.last_mut() {
                    *open += 1;
                }
                self.emit(Token::new(Kind::Punct(ch), i, i + 1));
            }
            b'}' => self.close_brace(),
            ch if is_js_ident_start(ch) => {
                self.emit(Token::new(Kind::Ident, i, js_ident_end(b, i)));
            }
            ch if ch.is_ascii_digit() => self.emit(Token::new(Kind::Other, i, ident_end(b, i))),
            ch => self.emit(Token::new(Kind::Punct(ch), i, i + 1)),
        }
    }

    /// Adds a token, moves past it, and notes whether a `/` may start a regex after it.
    fn emit(&mut self, tok: Token) {
        let text = self.b.get(tok.start..tok.end).unwrap_or(&[]);
        self.regex_ok = regex_may_follow(tok.kind, text);
        self.line_start = false;
        self.i = tok.end.max(self.i + 1);
        self.toks.push(tok);
    }

    /// A `}`: either closes a `${…}` expression (the template goes on) or is punctuation.
    fn close_brace(&mut self) {
        let i = self.i;
        match self.templates.last_mut() {
            Some(0) => {
                self.templates.pop();
                self.template(i + 1, false);
            }
            Some(open) => {
                *open -= 1;
                self.emit(Token::new(Kind::Punct(b'}'), i, i + 1));
            }
            None => self.emit(Token::new(Kind::Punct(b'}'), i, i + 1)),
        }
    }

    /// Scans template text from `from` up to its closing backquote or the next `${`.
    /// `opening`: this is the literal's first part (just after its backquote), which makes its
    /// token: `Str` if the literal has no `${}`, else `Other`.
    fn template(&mut self, from: usize, opening: bool) {
        let b = self.b;
        let start = from.saturating_sub(1);
        let mut j = from;
        while let Some(&c) = b.get(j) {
            match c {
                b'\\' => j += 2,
                b'`' => {
                    if opening {
                        self.emit(Token::with_value(Kind::Str, start, j + 1, (from, j)));
                    } else {
                        self.after_value(j + 1);
                    }
                    return;
                }
                b'$' if at(b, j + 1) == b'{' => {
                    if opening {
                        self.emit(Token::new(Kind::Other, start, j + 2));
                    }
                    self.templates.push(0);
                    self.regex_ok = true;
                    self.line_start = false;
                    self.i = j + 2;
                    return;
                }
                _ => j += 1,
            }
        }
        if opening {
            self.emit(Token::new(Kind::Other, start, b.len()));
        }
        self.i = b.len();
    }

    /// Moves to `end` after a value that makes no token (the tail of a template literal).
    fn after_value(&mut self, end: usize) {
        self.i = end;
        self.regex_ok = false;
        self.line_start = false;
    }

    /// A `/` where a regex may start: a regex literal if one closes on this line (with its
    /// flags), else a lone `/`.
    fn regex_or_slash(&mut self) {
        let (b, i) = (self.b, self.i);
        let mut j = i + 1;
        let mut in_class = false;
        while let Some(&c) = b.get(j) {
            match c {
                b'\n' => break,
                b'\\' if at(b, j + 1) == b'\n' => break,
                b'\\' => j += 2,
                b'[' => {
                    in_class = true;
                    j += 1;
                }
                b']' => {
                    in_class = false;
                    j += 1;
                }
                b'/' if !in_class => {
                    let end = ident_end(b, j + 1); // flags
                    self.emit(Token::new(Kind::Other, i, end));
                    return;
                }
                _ => j += 1,
            }
        }
        self.emit(Token::new(Kind::Punct(b'/'), i, i + 1));
    }
}

/// The end of the JS identifier at `i` (letters, digits, `_`, `$`, non-ASCII).
fn js_ident_end(b: &[u8], i: usize) -> usize {
    let mut j = i;
    while b.get(j).is_some_and(|&c| is_js_ident_byte(c)) {
        j += 1;
    }
    j
}

/// Whether a token of this kind ends every import or export clause it follows (see
/// [`from_clause`]).
fn ends_clauses(kind: Kind) -> bool {
    !matches!(
        kind,
        Kind::Ident | Kind::Str | Kind::Punct(b',' | b'*' | b'{' | b'}')
    )
}

/// Which passes over the tokens a file needs besides finding its imports, from a search of
/// its bytes. Words in comments and strings count too: each flag says "may", never "is".
#[derive(Debug, Default, Clone, Copy)]
struct Survey {
    /// Both `try` and `catch` occur (see [`optional_requires`]).
    catches: bool,
    /// `virtual` occurs (see [`virtual_mocks`]).
    virtual_: bool,
    /// A package runner's word occurs (see [`commands_run`]).
    runs: bool,
    /// `node_modules/` occurs (see [`node_modules_paths`]).
    paths: bool,
    /// `define.amd` occurs: a UMD wrapper's test for an AMD loader.
    umd: bool,
}

/// Searchers for the words the scanner looks for in whole files, built once (each search
/// is a vectorized scan: one pass per word, faster here than one multi-word automaton).
struct Words {
    import: Finder<'static>,
    require: Finder<'static>,
    export: Finder<'static>,
    try_: Finder<'static>,
    catch: Finder<'static>,
    virtual_: Finder<'static>,
    npx: Finder<'static>,
    exec: Finder<'static>,
    dlx: Finder<'static>,
    bunx: Finder<'static>,
    node_modules: Finder<'static>,
    amd: Finder<'static>,
}

static WORDS: LazyLock<Words> = LazyLock::new(|| Words {
    import: Finder::new("import"),
    require: Finder::new("require"),
    export: Finder::new("export"),
    try_: Finder::new("try"),
    catch: Finder::new("catch"),
    virtual_: Finder::new("virtual"),
    npx: Finder::new("npx "),
    exec: Finder::new(" exec "),
    dlx: Finder::new(" dlx "),
    bunx: Finder::new("bunx "),
    node_modules: Finder::new("node_modules/"),
    amd: Finder::new("define.amd"),
});

/// Surveys `b` for the words of a [`Survey`].
fn survey(b: &[u8]) -> Survey {
    let has = |needle: &Finder| needle.find(b).is_some();
    Survey {
        catches: has(&WORDS.try_) && has(&WORDS.catch),
        virtual_: has(&WORDS.virtual_),
        runs: has(&WORDS.npx) || has(&WORDS.exec) || has(&WORDS.dlx) || has(&WORDS.bunx),
        paths: has(&WORDS.node_modules),
        umd: has(&WORDS.amd),
    }
}

/// The offset of the last place in `b` where an import form may start: the word `import`,
/// the word `require`, or the word `export` not followed by a name other than `type` (so not
/// `export function`, which is no re-export). `None`: the file imports nothing. Words in
/// comments and strings count too, so it is never earlier than the real last one.
fn last_candidate(b: &[u8]) -> Option<usize> {
    let word = |start: usize, end: usize| {
        let before = start.checked_sub(1).map_or(0, |p| at(b, p));
        !is_js_ident_byte(before) && !is_js_ident_byte(at(b, end))
    };
    // After `export`, and after `export type`: a name means no re-export.
    let name_next = |mut j: usize| {
        while at(b, j).is_ascii_whitespace() || at(b, j) == 0x0b {
            j += 1;
        }
        is_js_ident_start(at(b, j)).then(|| (j, js_ident_end(b, j)))
    };
    let re_export = |end: usize| match name_next(end) {
        None => true, // `*`, `{`, a comment, or anything unsure
        Some((start, end)) => b.get(start..end) == Some(b"type") && name_next(end).is_none(),
    };
    let last = |needle: &Finder, also: &dyn Fn(usize) -> bool| {
        let len = needle.needle().len();
        needle
            .find_iter(b)
            .filter(|&k| word(k, k + len) && also(k + len))
            .last()
    };
    let any = |_: usize| true;
    [
        last(&WORDS.import, &any),
        last(&WORDS.require, &any),
        last(&WORDS.export, &re_export),
    ]
    .into_iter()
    .flatten()
    .max()
}

/// Whether the token at `i` is the identifier `word`.
fn ident_at(toks: &[Token], i: usize, src: &str, word: &str) -> bool {
    toks.get(i)
        .is_some_and(|t| t.kind == Kind::Ident && t.text(src) == word)
}

/// Whether `c` can start a JS identifier (`$` too).
fn is_js_ident_start(c: u8) -> bool {
    c == b'$' || is_ident_start(c)
}

/// Whether `c` continues a JS identifier (`$` too).
fn is_js_ident_byte(c: u8) -> bool {
    c == b'$' || is_ident_continue(c)
}

/// Finds the import forms among the tokens. `import`, `export` and `require` only count as
/// keywords when not a property (`x.require`, `obj.import`).
fn collect(toks: &[Token], src: &str, c: &mut Collector) {
    for (i, t) in toks.iter().enumerate() {
        let after_dot = i.checked_sub(1).is_some_and(|p| punct_at(toks, p, b'.'));
        if t.kind != Kind::Ident || after_dot {
            continue;
        }
        let specifier = match t.text(src) {
            // `import.meta.resolve("s")`, ESM's `require.resolve`.
            "import" if punct_at(toks, i + 1, b'.') => (ident_at(toks, i + 2, src, "meta")
                && punct_at(toks, i + 3, b'.')
                && ident_at(toks, i + 4, src, "resolve"))
            .then(|| call_argument(toks, i + 5, false))
            .flatten(),
            "import" => import(toks, i, src),
            "export" => export(toks, i, src),
            // `require.resolve("s")` finds a package by name to load it later (a babel
            // preset, a test runner): the package is used as much as by `require`.
            "require" if punct_at(toks, i + 1, b'.') => ident_at(toks, i + 2, src, "resolve")
                .then(|| call_argument(toks, i + 3, false))
                .flatten(),
            "require" => call_argument(toks, i + 1, false),
            _ => None,
        };
        if let Some(s) = specifier {
            // The statement runs from its keyword to its specifier: an ignore marker on any
            // of its lines counts.
            c.statement(t.start, s.end);
            c.push_value(s);
        }
    }
}

/// Marks the body of every `try { … } catch` that handles a missing module as optional: its
/// `catch` names `MODULE_NOT_FOUND` (or `ERR_MODULE_NOT_FOUND`), or the `try` is short and
/// its `catch` neither throws nor exits (empty, a log, an error kept for later). The code runs
/// without the package: jest-config's `try { require.resolve('jest-jasmine2') } catch (error)
/// { if (error.code === 'MODULE_NOT_FOUND') … }`, and the chain of alternatives a native-addon
/// loader tries in turn (`try { return require('@x/binding-linux-x64-gnu') } catch (e) {
/// loadErrors.push(e) }`). A long `try` whose `catch` logs wraps a program, not a lookup.
fn optional_requires(toks: &[Token], src: &str, c: &mut Collector) {
    for (i, t) in toks.iter().enumerate() {
        if t.kind != Kind::Ident || t.text(src) != "try" || !punct_at(toks, i + 1, b'{') {
            continue;
        }
        let Some(body_end) = closing(toks, i + 1) else {
            continue;
        };
        let k = body_end + 1;
        if !toks
            .get(k)
            .is_some_and(|t| t.kind == Kind::Ident && t.text(src) == "catch")
        {
            continue;
        }
        // `catch {` or `catch (e) {` (a binding with a type or a default is still one group).
        let open = if punct_at(toks, k + 1, b'(') {
            match closing(toks, k + 1) {
                Some(e) => e + 1,
                None => continue,
            }
        } else {
            k + 1
        };
        if !punct_at(toks, open, b'{') {
            continue;
        }
        let Some(catch_end) = closing(toks, open) else {
            continue;
        };
        let handler = &toks[open + 1..catch_end];
        let names_missing = handler
            .iter()
            .any(|t| t.kind == Kind::Str && t.text(src).contains("MODULE_NOT_FOUND"));
        let short = body_end - (i + 1) <= SHORT_TRY_TOKENS;
        let handles = names_missing || (short && !gives_up(handler, src));
        if handles {
            c.weaken(toks[i + 1].start, toks[body_end].end, ImportKind::Optional);
        }
    }
}

/// The most tokens a `try` body whose `catch` carries on may hold for its imports to be
/// alternatives: a lookup or two with a version check (a native-addon loader's is about 60),
/// not a program.
const SHORT_TRY_TOKENS: usize = 200;

/// Whether a `catch` body stops the program after all: it throws, rethrows or exits
/// (`process.exit(1)`), so the package the `try` needed was required.
fn gives_up(handler: &[Token], src: &str) -> bool {
    handler.iter().enumerate().any(|(j, t)| {
        t.kind == Kind::Ident
            && match t.text(src) {
                "throw" => true,
                "exit" => j > 0 && punct_at(handler, j - 1, b'.'),
                _ => false,
            }
    })
}

/// The index of the bracket that closes the one at `open` (`{`, `(` or `[`).
fn closing(toks: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, t) in toks.iter().enumerate().skip(open) {
        match t.kind {
            Kind::Punct(b'{' | b'(' | b'[') => depth += 1,
            Kind::Punct(b'}' | b')' | b']') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// The specifier of the `import` at `i`: dynamic `import("s")`, side-effect `import "s"`, or
/// a clause `import … from "s"`.
fn import<'t>(toks: &'t [Token], i: usize, src: &str) -> Option<&'t Token> {
    let next = toks.get(i + 1)?;
    match next.kind {
        Kind::Punct(b'(') => call_argument(toks, i + 1, true),
        Kind::Str => Some(next),
        _ => from_clause(toks, i + 1, src),
    }
}

/// The specifier of the `export` at `i` if it re-exports: `export [type] * [as n] from "s"`,
/// `export [type] {…} from "s"`.
fn export<'t>(toks: &'t [Token], i: usize, src: &str) -> Option<&'t Token> {
    let mut j = i + 1;
    if toks
        .get(j)
        .is_some_and(|t| t.kind == Kind::Ident && t.text(src) == "type")
    {
        j += 1;
    }
    if punct_at(toks, j, b'*') || punct_at(toks, j, b'{') {
        from_clause(toks, j, src)
    } else {
        None
    }
}

/// The string argument of a call whose `(` is at `open`: `("s")`, or with `more_args`,
/// also `("s", {…})` (import attributes).
fn call_argument(toks: &[Token], open: usize, more_args: bool) -> Option<&Token> {
    if !punct_at(toks, open, b'(') {
        return None;
    }
    let arg = toks.get(open + 1).filter(|t| t.kind == Kind::Str)?;
    let closed = punct_at(toks, open + 2, b')') || (more_args && punct_at(toks, open + 2, b','));
    closed.then_some(arg)
}

/// Reads an import or export clause from `i` up to `from "s"`: default names, `type`, `*`,
/// `as`, commas, and `{…}` lists of names. `None` at anything else (`=`, `;`, a call…), and
/// at another `import`/`export`, so no token is walked by two clauses.
fn from_clause<'t>(toks: &'t [Token], mut i: usize, src: &str) -> Option<&'t Token> {
    let mut in_braces = false;
    while let Some(t) = toks.get(i) {
        match (in_braces, t.kind) {
            (_, Kind::Ident) if matches!(t.text(src), "import" | "export") => return None,
            (false, Kind::Ident) if t.text(src) == "from" => {
                if let Some(s) = toks.get(i + 1).filter(|s| s.kind == Kind::Str) {
                    return Some(s);
                }
            }
            (_, Kind::Ident | Kind::Punct(b','))
            | (false, Kind::Punct(b'*'))
            | (true, Kind::Str) => {}
            (false, Kind::Punct(b'{')) => in_braces = true,
            (true, Kind::Punct(b'}')) => in_braces = false,
            _ => return None,
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests;
