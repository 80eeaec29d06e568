//! The shared side of the import scanners: the types they produce and the lexing helpers
//! every language uses. It depends on no scanner, so the scanners and the dispatch in
//! `mod.rs` can all build on it without importing each other.
//!
//! Each language has a small hand-written lexer (comments and literals understood, no parser)
//! that turns a file into [`Token`]s; a few token patterns then name the imports. Lexers work on
//! bytes: every delimiter they look for is ASCII, so token boundaries are always char
//! boundaries, and text is only ever taken with `str::get`, which cannot panic.

use serde::{Deserialize, Serialize};

/// A source language that has an import scanner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Language {
    /// Go (`.go`).
    Go,
    /// Rust (`.rs`).
    Rust,
    /// Python (`.py`, `.pyi`).
    Python,
    /// JavaScript and TypeScript, which share one scanner.
    Js,
}

impl Language {
    /// By file extension: .go; .rs; .py/.pyi and notebooks (.ipynb); .js .jsx .mjs .cjs .ts .tsx .mts .cts, the
    /// components .svelte .vue .astro, HTML pages (.html .htm: their inline module scripts)
    /// and stylesheets (.css .scss .sass .less: their `@import`s), which a JS build reads.
    pub fn of_path(path: &str) -> Option<Language> {
        let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let (stem, ext) = file.rsplit_once('.')?;
        if stem.is_empty() {
            return None; // a dot file such as `.go` has no extension
        }
        match ext {
            "go" => Some(Language::Go),
            "rs" => Some(Language::Rust),
            // A Jupyter notebook's code cells (see `notebook`).
            "py" | "pyi" | "ipynb" => Some(Language::Python),
            "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => Some(Language::Js),
            // Components: their script blocks are read (see `component`).
            "svelte" | "vue" | "astro" => Some(Language::Js),
            // Pages and stylesheets a JS build bundles: read through `component` too.
            "html" | "htm" | "css" | "scss" | "sass" | "less" => Some(Language::Js),
            _ => None,
        }
    }

    /// The separator between segments of this language's import names: "/" for Go and Js,
    /// "::" for Rust, "." for Python.
    pub fn separator(self) -> &'static str {
        match self {
            Language::Go | Language::Js => "/",
            Language::Rust => "::",
            Language::Python => ".",
        }
    }
}

/// Where an import stands, which decides the kind of edge it makes: code the artifact is built
/// from, code that only tests or shows it, or an import guarded against being absent. Ordered
/// weakest first, so `max` is the strongest of several.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ImportKind {
    /// Not part of the artifact: tests, benches, examples, tool configs.
    Dev,
    /// Guarded: the code runs without it (Python's `try: … except ImportError`).
    Optional,
    /// Compiled into or shipped with the artifact.
    #[default]
    Build,
}

impl ImportKind {
    /// The word used in output and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ImportKind::Dev => "dev",
            ImportKind::Optional => "optional",
            ImportKind::Build => "build",
        }
    }
}

impl std::fmt::Display for ImportKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One import found in a source file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// 1-based line of the import's name.
    pub line: u32,
    /// The imported name, as resolution wants it (see per-language rules).
    pub name: String,
    /// The source line's text, trimmed, for evidence (`mesh graph --why`), capped at 200 chars.
    pub text: String,
    /// Where it stands inside the file (a `#[cfg(test)]` item, a guarded `try`); the file's
    /// own place in the module may weaken it further.
    pub kind: ImportKind,
    /// In a Rust `macro_rules!` body: the path resolves where the macro expands (in the
    /// crates calling an exported one, beside a call site's own `use`s), so drift counts it as
    /// a use of what the module declares but never makes the module owe a declaration. The
    /// graph's edge stays of `kind`: the module may expand the macro itself.
    pub in_macro: bool,
    /// In a Rust doc test (a code block of a `///` or `//!` comment): compiled only when
    /// the crate's doc tests run, which `[lib] doctest = false` turns off.
    pub in_doc: bool,
    /// A Rust path whose first name a glob import in scope may bring (`use crate::*;` then
    /// `mem::take`, `use criterion::*;` then `measurement::WallTime`): perhaps a module, not
    /// a crate. Drift counts it as a use of what the module declares but never makes the
    /// module owe a declaration, as [`Import::in_macro`].
    pub glob_scoped: bool,
    /// A Rust path beside an item macro's call in the same module (`bindgen!({ … });` then
    /// `exports::…`, wiggle's `from_witx!` then `types::…`): the macro's output may bring a
    /// module of its first name, which only expanding it tells. Drift is unsure it is owed.
    pub macro_scoped: bool,
    /// A crate an intra-doc link of a `///` or `//!` comment names
    /// (`[x](criterion::BenchmarkId)`): rustdoc resolves it against the normal dependencies,
    /// so drift counts it as shipped code's use of a declared crate, never as one owed. Its
    /// kind is dev: docs are not the build.
    pub in_doc_link: bool,
    /// A Python import inside a function's body (or an `if __name__ == "__main__":` block):
    /// it runs when the function is called (the file run as a script), not when the module is
    /// imported — the idiom for an optional integration whose caller installs it (a plotting
    /// formatter's `import altair`), so drift is unsure it is owed.
    pub in_function: bool,
    /// In code this Rust file writes for other crates: the body of a `quote!` (or
    /// `quote_spanned!`, `parse_quote!`), a `::path` handed on to one, or a
    /// `#[macro_export]` macro's body (with `in_macro`). A proc macro's output is no import of
    /// this file and makes no build edge; drift counts it for the crates that use a
    /// proc-macro crate. An exported macro's path is an edge unless the crate it names
    /// depends on this one (leptos_dom's macro names `::leptos`, which depends on leptos_dom).
    pub generated: bool,
    /// A Python import in the body of a `try` that handles `ImportError`, or under an `if`
    /// testing a name such a `try` assigns: when it fails to load (or what it loads fails),
    /// the guard catches it. (A handler's fallback import and one under `if TYPE_CHECKING:`
    /// are optional, but guard nothing they load.)
    pub load_guarded: bool,
    /// A Python import of a script that is no test: its file has an
    /// `if __name__ == "__main__":` block and defines no test (no `def test…`, no
    /// `class Test…`). In a test directory no runner collects it; a person runs it (a
    /// benchmark, a diagnostic against a live server), with what they installed.
    pub in_script: bool,
    /// A Python module name known only by its start: `import_module(f"tree_sitter_{lang}")`
    /// loads whichever module whose name starts so the caller asks for (textual's grammar
    /// packages). `name` is that start; it uses any declaration it begins, and is never owed.
    pub prefix: bool,
    /// A Python import in code only Pythons older than 3.N run: the body of
    /// `if sys.version_info < (3, N):`, the `else` of `if sys.version_info >= (3, N):` (a
    /// backport's import beside the standard module's). N; where the project requires 3.N or
    /// newer, the code never runs and owes nothing.
    pub before_python: Option<u8>,
}

/// What a scanner read from one file: its imports, and the file-level facts that decide the
/// kind of other files (Rust's `#[cfg(test)] mod name;`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileScan {
    /// The imports, in source order (shared, not copied, by every file that is this blob).
    pub imports: std::sync::Arc<[Import]>,
    /// Modules this file declares only for tests (`#[cfg(test)] mod tests;`): their files are
    /// dev code.
    pub test_mods: Vec<String>,
    /// Files this Rust file compiles in from elsewhere, as written: a `#[path = "…"]`
    /// module's file and an `include!("…")` source, relative to the file's directory, and an
    /// `include!(concat!(env!("CARGO_MANIFEST_DIR"), "/…"))` source, starting `/`: relative to
    /// the crate's root. Cargo compiles what they name wherever it stands.
    pub includes: Vec<String>,
    /// The modules this Rust file declares out of line (`mod name;`), by name: where their
    /// files stand says which files of a test directory are compiled code.
    pub mods: Vec<String>,
    /// What a person should know about reading it (a block that never closes), for `-v`.
    pub notes: Vec<String>,
    /// A Rust file's macro calls and exported `macro_rules!` (none when it has neither):
    /// what an exported macro's body names is the calling crate's to declare.
    pub rust_macros: Option<std::sync::Arc<RustMacros>>,
}

/// The `macro_rules!` facts of one Rust file that drift needs across crates: an exported
/// macro expands in the crate calling it, so the crates its body names by path
/// (`::inventory::submit!`, `paste::paste!`) must be that crate's dependencies, though none of
/// its own files names them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RustMacros {
    /// The macros the file calls outside its exported macros' bodies (the standard library's
    /// left out), each once per path and kind.
    pub calls: Vec<MacroCall>,
    /// The `#[macro_export]` macros it defines.
    pub exported: Vec<ExportedMacro>,
}

/// One call of a macro (`name!(…)`, `path::name!{…}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MacroCall {
    /// The first segment of its path (`yazi_macro` of `yazi_macro::act!`, `$crate` inside a
    /// macro's body), none for a bare name (brought by a `use` or `#[macro_use]`).
    pub path: Option<String>,
    /// The macro's name.
    pub name: String,
    /// 1-based line of the call.
    pub line: u32,
    /// Where it stands, as an import there would be (a `#[cfg(test)]` item's is dev).
    pub kind: ImportKind,
}

/// A `#[macro_export] macro_rules!` macro: what its expansion names in the calling crate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedMacro {
    /// Its name.
    pub name: String,
    /// 1-based line of its `macro_rules!`.
    pub line: u32,
    /// The crates its body names by path (not `$crate`, nor the standard library's).
    pub names: Vec<String>,
    /// The macros its body calls, which expand in the calling crate too.
    pub calls: Vec<MacroCall>,
}

/// A comment containing this drops the imports found on its line: the way to silence an
/// import that makes no real edge. A statement a scanner marks (`Collector::statement`)
/// is dropped whole when any of its lines has one.
pub const IGNORE_MARKER: &str = "mesh: ignore";

/// The most characters of a source line kept as an import's evidence text.
const TEXT_CAP: usize = 200;

/// What a lexer found; comments and whitespace produce no token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An identifier or keyword.
    Ident,
    /// A string literal whose whole text is known (no interpolation); `value` is its content.
    Str,
    /// One ASCII punctuation byte.
    Punct(u8),
    /// Rust's `::`.
    PathSep,
    /// A logical line end (Python only).
    Newline,
    /// Anything else: numbers, chars, lifetimes, regexes, interpolated strings.
    Other,
}

/// A token: its kind and byte ranges into the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    /// What it is.
    pub kind: Kind,
    /// Where the whole token starts (a byte offset).
    pub start: usize,
    /// Where it ends (exclusive).
    pub end: usize,
    /// The meaningful part: a string's content, a raw identifier without `r#`; else the token.
    pub value: (usize, usize),
}

impl Token {
    /// A token whose value is the whole token.
    pub fn new(kind: Kind, start: usize, end: usize) -> Token {
        Token {
            kind,
            start,
            end,
            value: (start, end),
        }
    }

    /// A token whose value is a part of it (a literal's content).
    pub fn with_value(kind: Kind, start: usize, end: usize, value: (usize, usize)) -> Token {
        Token {
            kind,
            start,
            end,
            value,
        }
    }

    /// The token's whole text ("" if the offsets are not valid for `src`).
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        src.get(self.start..self.end).unwrap_or("")
    }

    /// The token's value text ("" if the offsets are not valid for `src`).
    pub fn value<'a>(&self, src: &'a str) -> &'a str {
        src.get(self.value.0..self.value.1).unwrap_or("")
    }

    /// Whether it is this punctuation byte.
    pub fn is_punct(&self, p: u8) -> bool {
        self.kind == Kind::Punct(p)
    }
}

/// Whether `toks[i]` exists and is this punctuation byte.
pub(crate) fn punct_at(toks: &[Token], i: usize, p: u8) -> bool {
    toks.get(i).is_some_and(|t| t.is_punct(p))
}

thread_local! {
    /// The token buffer the last scan on this thread gave back ([`recycle_tokens`]).
    static SPARE_TOKENS: std::cell::Cell<Vec<Token>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The most tokens a buffer kept for the next file may hold (a generated file's are let go).
const KEPT_TOKENS: usize = 1 << 18;

/// An empty buffer to lex a file into: the one the last scan on this thread gave back, so a
/// scan of thousands of files grows one buffer rather than one per file. Each buffer grown
/// anew touched fresh memory: the largest share of what a cold scan of 4,600 Python files
/// faulted in (a token is ten times its bytes of source).
pub(crate) fn token_buffer() -> Vec<Token> {
    SPARE_TOKENS.with(std::cell::Cell::take)
}

/// Gives a file's tokens back for the next file's [`token_buffer`].
pub(crate) fn recycle_tokens(mut toks: Vec<Token>) {
    if toks.capacity() <= KEPT_TOKENS {
        toks.clear();
        SPARE_TOKENS.with(|spare| spare.set(toks));
    }
}

/// Whether `toks[i]` exists and is of this kind.
pub(crate) fn kind_at(toks: &[Token], i: usize, kind: Kind) -> bool {
    toks.get(i).is_some_and(|t| t.kind == kind)
}

/// Gathers one file's imports and `mesh: ignore` markers, then produces the final list:
/// ignored lines dropped, identical (line, name) pairs removed, in source order.
pub(crate) struct Collector<'a> {
    src: &'a str,
    /// Whether the marker occurs in the file at all; most files have none, and their comments
    /// need no search.
    has_marker: bool,
    /// (offset of the name, name) of every import found.
    found: Vec<(usize, String)>,
    /// Offsets of the markers found in comments.
    markers: Vec<usize>,
    /// Byte ranges whose imports are of a weaker kind (a `#[cfg(test)]` item, a `try`).
    ranges: Vec<(usize, usize, ImportKind)>,
    /// Byte ranges of multi-line statements: a marker on any of their lines drops every
    /// import of the statement.
    statements: Vec<(usize, usize)>,
    /// Byte ranges of macro bodies (see [`Import::in_macro`]).
    macros: Vec<(usize, usize)>,
    /// Offsets of names a glob import may bring (see [`Import::glob_scoped`]).
    globbed: Vec<usize>,
    /// Offsets of names an item macro's output may bring (see [`Import::macro_scoped`]).
    macro_scoped: Vec<usize>,
    /// Offsets of imports optional by themselves (a JSDoc comment's): one each, where a
    /// range each would make every import scan them all.
    optional_at: Vec<usize>,
    /// Byte ranges of Python function bodies (see [`Import::in_function`]).
    functions: Vec<(usize, usize)>,
    /// Byte ranges of code written for other crates (see [`Import::generated`]).
    generated: Vec<(usize, usize)>,
    /// Offsets of names known only by their start (see [`Import::prefix`]).
    prefix_at: Vec<usize>,
    /// Byte ranges of Python code a guard loads (see [`Import::load_guarded`]).
    load_guards: Vec<(usize, usize)>,
    /// Byte ranges of Python code only Pythons before 3.N run, with N (see
    /// [`Import::before_python`]).
    before_python: Vec<(usize, usize, u8)>,
}

impl<'a> Collector<'a> {
    /// A collector for this file's text.
    pub fn new(src: &'a str) -> Collector<'a> {
        Collector::with_marker(src, has_marker(src))
    }

    /// A collector for this file's text, which has an ignore marker somewhere if `has_marker`
    /// (for a scanner that searched the text already).
    pub fn with_marker(src: &'a str, has_marker: bool) -> Collector<'a> {
        Collector {
            src,
            has_marker,
            found: Vec::new(),
            markers: Vec::new(),
            ranges: Vec::new(),
            statements: Vec::new(),
            macros: Vec::new(),
            globbed: Vec::new(),
            macro_scoped: Vec::new(),
            optional_at: Vec::new(),
            functions: Vec::new(),
            generated: Vec::new(),
            prefix_at: Vec::new(),
            load_guards: Vec::new(),
            before_python: Vec::new(),
        }
    }

    /// Marks `start..end` as code whose imports are at most of `kind`.
    pub fn weaken(&mut self, start: usize, end: usize, kind: ImportKind) {
        if start < end {
            self.ranges.push((start, end, kind));
        }
    }

    /// Marks `start..end` as code only Pythons before 3.`minor` run.
    pub fn before_python(&mut self, start: usize, end: usize, minor: u8) {
        if start < end {
            self.before_python.push((start, end, minor));
        }
    }

    /// Marks every import of a module the imports found in `start..end` name (or below it)
    /// optional, wherever it is in the file.
    pub fn weaken_modules_of(&mut self, start: usize, end: usize) {
        let names: Vec<String> = (self.found.iter())
            .filter(|(offset, _)| (start..end).contains(offset))
            .map(|(_, name)| name.clone())
            .collect();
        for name in names {
            self.weaken_module(0, usize::MAX, &name);
        }
    }

    /// Marks the imports found in `start..end` of the module `top` (or below it) optional.
    pub fn weaken_module(&mut self, start: usize, end: usize, top: &str) {
        let below = |n: &str| n == top || n.strip_prefix(top).is_some_and(|r| r.starts_with('.'));
        let offsets = (self.found.iter())
            .filter(|(offset, name)| (start..end).contains(offset) && below(name))
            .map(|(offset, _)| *offset);
        self.optional_at.extend(offsets);
    }

    /// Whether an import found so far starts at `offset` (a dynamic import's string).
    pub fn import_at(&self, offset: usize) -> bool {
        self.found.iter().any(|(o, _)| *o == offset)
    }

    /// Marks `start..end` as a macro's body: its paths resolve where the macro expands.
    pub fn in_macro(&mut self, start: usize, end: usize) {
        if start < end {
            self.macros.push((start, end));
        }
    }

    /// Marks `start..end` as code written for other crates (see [`Import::generated`]).
    pub fn generated(&mut self, start: usize, end: usize) {
        if start < end {
            self.generated.push((start, end));
        }
    }

    /// Marks `start..end` as Python code a guard loads (see [`Import::load_guarded`]).
    pub fn load_guard(&mut self, start: usize, end: usize) {
        if start < end {
            self.load_guards.push((start, end));
        }
    }

    /// Marks `start..end` as a Python function's body: its imports run when it is called.
    pub fn in_function(&mut self, start: usize, end: usize) {
        if start < end {
            self.functions.push((start, end));
        }
    }

    /// Marks the name pushed at `offset` as one an item macro's output may bring.
    pub fn macro_scoped(&mut self, offset: usize) {
        self.macro_scoped.push(offset);
    }

    /// Marks the name at `offset` as one a glob import in scope may bring.
    pub fn glob_scoped(&mut self, offset: usize) {
        self.globbed.push(offset);
    }

    /// Marks `start..end` as one statement: an ignore marker on any of its lines counts for
    /// every import in it.
    pub fn statement(&mut self, start: usize, end: usize) {
        if self.has_marker && start < end {
            self.statements.push((start, end));
        }
    }

    /// Records the comment at `start..end`: each `mesh: ignore` in it marks its line.
    pub fn comment(&mut self, start: usize, end: usize) {
        if !self.has_marker {
            return;
        }
        let text = self.src.get(start..end).unwrap_or("");
        let found = text.match_indices(IGNORE_MARKER).map(|(at, _)| start + at);
        self.markers.extend(found);
    }

    /// Records an import named `name` whose name starts at byte `offset` (an empty name, as
    /// in `import ""`, names nothing and is dropped).
    pub fn push(&mut self, offset: usize, name: impl Into<String>) {
        let name = name.into();
        if !name.is_empty() {
            self.found.push((offset, name));
        }
    }

    /// Records the start of a module name at `offset` (see [`Import::prefix`]).
    pub fn push_prefix(&mut self, offset: usize, start: impl Into<String>) {
        self.prefix_at.push(offset);
        self.push(offset, start);
    }

    /// Whether an import found so far has a name `pred` accepts.
    pub fn found_any(&self, pred: impl Fn(&str) -> bool) -> bool {
        self.found.iter().any(|(_, n)| pred(n))
    }

    /// The sibling modules (`x` of `.x`, `.x.y`) imported relatively by one dot between
    /// `start` and `end`.
    pub fn relative_siblings(&self, start: usize, end: usize) -> Vec<String> {
        (self.found.iter())
            .filter(|(o, _)| (start..end).contains(o))
            .filter_map(|(_, n)| {
                let rest = n.strip_prefix('.').filter(|r| !r.starts_with('.'))?;
                Some(rest.split('.').next().unwrap_or(rest).to_string())
            })
            .collect()
    }

    /// Makes each import between `start` and `end` of the module `top` (or below it)
    /// relative to the file's own package: Python 2 read a bare `import x` as the sibling
    /// `x` first.
    pub fn make_relative(&mut self, start: usize, end: usize, top: &str) {
        for (o, n) in &mut self.found {
            let below = n
                .strip_prefix(top)
                .is_some_and(|r| r.is_empty() || r.starts_with('.'));
            if (start..end).contains(o) && below {
                n.insert(0, '.');
            }
        }
    }

    /// Records an import at `offset` that is optional by itself, whatever range holds it.
    pub fn push_optional(&mut self, offset: usize, name: impl Into<String>) {
        self.optional_at.push(offset);
        self.push(offset, name);
    }

    /// Records the value of a literal token as an import.
    pub fn push_value(&mut self, tok: &Token) {
        self.push(tok.start, tok.value(self.src));
    }

    /// The kind an import at byte `offset` would have: the weakest of the ranges holding it
    /// (offsets optional by themselves are searched sorted: before [`Collector::finish`],
    /// only where none were pushed, as in Rust).
    pub fn kind_of(&self, offset: usize) -> ImportKind {
        self.ranges
            .iter()
            .filter(|(start, end, _)| (*start..*end).contains(&offset))
            .map(|r| r.2)
            .chain(
                self.optional_at
                    .binary_search(&offset)
                    .is_ok()
                    .then_some(ImportKind::Optional),
            )
            .min()
            .unwrap_or_default()
    }

    /// The imports: in source order, without ignored lines or repeated (line, name) pairs.
    /// Lines are counted here, in one forward pass, rather than indexed up front.
    pub fn finish(mut self) -> Vec<Import> {
        self.markers.sort_unstable();
        let mut lines = LineCursor::new(self.src);
        let mut ignored: Vec<u32> = self.markers.iter().map(|&at| lines.line_of(at)).collect();
        // A statement with a marker on any of its lines is ignored on all of them.
        if !ignored.is_empty() {
            let mut extra = Vec::new();
            for &(start, end) in &self.statements {
                let mut lines = LineCursor::new(self.src);
                let (first, last) = (lines.line_of(start), lines.line_of(end));
                if ignored.iter().any(|l| (first..=last).contains(l)) {
                    extra.extend(first..=last);
                }
            }
            ignored.extend(extra);
            ignored.sort_unstable();
            ignored.dedup();
        }

        self.found.sort_by_key(|&(offset, _)| offset); // stable: keeps order at one offset
        self.globbed.sort_unstable();
        self.macro_scoped.sort_unstable();
        self.optional_at.sort_unstable();
        let mut lines = LineCursor::new(self.src);
        let mut text = (0, String::new()); // the last line's text, reused by its other imports
        let mut out: Vec<Import> = Vec::with_capacity(self.found.len());
        // Where the imports of the current line start in `out`: a name it already has is a
        // repeat (lines only rise, so no other line can have it).
        let mut line_from = 0;
        for (offset, name) in std::mem::take(&mut self.found) {
            let line = lines.line_of(offset);
            if out.last().is_some_and(|i| i.line != line) {
                line_from = out.len();
            }
            let repeat = out
                .get(line_from..)
                .unwrap_or(&[])
                .iter()
                .any(|i| i.name == name);
            if ignored.binary_search(&line).is_ok() || repeat {
                continue;
            }
            if text.0 != line {
                text = (line, lines.text());
            }
            let kind = self.kind_of(offset);
            let in_macro = self
                .macros
                .iter()
                .any(|(start, end)| (*start..*end).contains(&offset));
            out.push(Import {
                line,
                name,
                text: text.1.clone(),
                kind,
                in_macro,
                in_doc: false,
                glob_scoped: self.globbed.binary_search(&offset).is_ok(),
                macro_scoped: self.macro_scoped.binary_search(&offset).is_ok(),
                in_doc_link: false,
                in_function: self
                    .functions
                    .iter()
                    .any(|(start, end)| (*start..*end).contains(&offset)),
                generated: self
                    .generated
                    .iter()
                    .any(|(start, end)| (*start..*end).contains(&offset)),
                prefix: self.prefix_at.contains(&offset),
                load_guarded: self
                    .load_guards
                    .iter()
                    .any(|(start, end)| (*start..*end).contains(&offset)),
                in_script: false,
                // Inside several such branches, the newest Python any of them leaves out.
                before_python: (self.before_python.iter())
                    .filter(|(start, end, _)| (*start..*end).contains(&offset))
                    .map(|r| r.2)
                    .min(),
            });
        }
        out
    }
}

/// Whether `src` has the ignore marker anywhere (a vectorized search, built once).
pub(crate) fn has_marker(src: &str) -> bool {
    static MARKER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(IGNORE_MARKER));
    MARKER.find(src.as_bytes()).is_some()
}

/// Walks a text forward, counting lines: linear over any sequence of rising offsets.
pub(crate) struct LineCursor<'a> {
    src: &'a str,
    /// Where counting has reached.
    pos: usize,
    /// The 1-based line holding `pos`.
    line: u32,
    /// Where that line starts.
    line_start: usize,
}

impl<'a> LineCursor<'a> {
    /// A cursor at the start of `src`.
    pub fn new(src: &'a str) -> LineCursor<'a> {
        LineCursor {
            src,
            pos: 0,
            line: 1,
            line_start: 0,
        }
    }

    /// The 1-based line holding byte `offset` (offsets past the end are on the last line).
    /// Moving backwards restarts from the top.
    pub fn line_of(&mut self, offset: usize) -> u32 {
        if offset < self.pos {
            *self = LineCursor::new(self.src);
        }
        let bytes = self.src.as_bytes();
        let offset = offset.min(bytes.len());
        let segment = bytes.get(self.pos..offset).unwrap_or(&[]);
        let newlines = memchr::memchr_iter(b'\n', segment).count();
        if let Some(last) = memchr::memrchr(b'\n', segment) {
            self.line_start = self.pos + last + 1;
        }
        let newlines = u32::try_from(newlines).unwrap_or(u32::MAX);
        self.line = self.line.saturating_add(newlines);
        self.pos = offset;
        self.line
    }

    /// The text of the current line, trimmed and capped at [`TEXT_CAP`] chars.
    pub fn text(&self) -> String {
        let end = line_end(self.src.as_bytes(), self.line_start);
        let text = self.src.get(self.line_start..end).unwrap_or("").trim();
        match text.char_indices().nth(TEXT_CAP) {
            Some((cut, _)) => text.get(..cut).unwrap_or("").trim_end().to_string(),
            None => text.to_string(),
        }
    }
}

/// The byte at `i`, or 0 past the end (only for comparing with non-zero ASCII bytes).
pub(crate) fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

/// Whether `c` can start an identifier: an ASCII letter, `_`, or any non-ASCII byte.
pub(crate) fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

/// Whether `c` can continue an identifier (also used for number literals).
pub(crate) fn is_ident_continue(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// The end of the identifier-like run starting at `i`.
pub(crate) fn ident_end(b: &[u8], i: usize) -> usize {
    let mut j = i;
    while b.get(j).is_some_and(|&c| is_ident_continue(c)) {
        j += 1;
    }
    j
}

/// The offset of the next `\n` at or after `i`, or the end.
pub(crate) fn line_end(b: &[u8], i: usize) -> usize {
    b.get(i..)
        .and_then(|rest| rest.iter().position(|&c| c == b'\n'))
        .map_or(b.len(), |p| i + p)
}

/// Scans a backslash-escaped literal whose content starts at `i`, closed by `quote`.
/// Returns (content end, token end). A single-line literal left open ends before the newline;
/// any literal left open ends at the end of the file.
pub(crate) fn quoted_end(b: &[u8], i: usize, quote: u8, multiline: bool) -> (usize, usize) {
    let mut j = i;
    while let Some(&c) = b.get(j) {
        match c {
            b'\\' => j += 2,
            b'\n' if !multiline => return (j, j),
            c if c == quote => return (j, j + 1),
            _ => j += 1,
        }
    }
    (b.len(), b.len())
}

/// Skips the line comment starting at `i` (recording it); returns where it ends (at the `\n`).
pub(crate) fn line_comment(c: &mut Collector, b: &[u8], i: usize) -> usize {
    let end = line_end(b, i);
    c.comment(i, end);
    end
}

/// Skips the `/* */` comment starting at `i` (recording it), nested ones too if `nested`;
/// returns where it ends. An unclosed comment runs to the end of the file.
pub(crate) fn block_comment(c: &mut Collector, b: &[u8], i: usize, nested: bool) -> usize {
    let mut j = i + 2;
    let mut depth = 1u32;
    while j < b.len() {
        if b[j] == b'*' && at(b, j + 1) == b'/' {
            j += 2;
            depth -= 1;
            if depth == 0 {
                break;
            }
        } else if nested && b[j] == b'/' && at(b, j + 1) == b'*' {
            j += 2;
            depth += 1;
        } else {
            j += 1;
        }
    }
    let end = j.min(b.len());
    c.comment(i, end);
    end
}

/// The length of the UTF-8 character whose first byte is `lead` (1 for anything odd).
pub(crate) fn utf8_len(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// (line, name) pairs, for compact assertions.
    pub(crate) fn pairs(imports: &[Import]) -> Vec<(u32, &str)> {
        imports.iter().map(|i| (i.line, i.name.as_str())).collect()
    }

    /// (line, name, kind) triples, for assertions on kinds.
    pub(crate) fn kinds(imports: &[Import]) -> Vec<(u32, String, ImportKind)> {
        imports
            .iter()
            .map(|i| (i.line, i.name.clone(), i.kind))
            .collect()
    }

    /// Names only.
    pub(crate) fn names(imports: &[Import]) -> Vec<&str> {
        imports.iter().map(|i| i.name.as_str()).collect()
    }

    /// Inputs that have broken scanners: unterminated things, lone quotes, odd bytes.
    pub(crate) const ADVERSARIAL: &[&str] = &[
        "",
        "\n",
        "\"",
        "'",
        "`",
        "/",
        "\\",
        "#",
        "r#\"",
        "r##\"abc\"#",
        "br#",
        "b'",
        "'\\",
        "'\\u{",
        "/*",
        "/* /* */",
        "//",
        "\"\"\"",
        "'''",
        "f'",
        "`${",
        "`${`${`${",
        "}}}}`",
        "import",
        "import (",
        "import \"",
        "import `",
        "from",
        "from .",
        "from a import",
        "import a.",
        "import a,",
        "use",
        "use {",
        "use {{{{{{{{",
        "use a::{",
        "use a::{b as",
        "extern crate",
        "mod",
        "a::",
        "require(",
        "require(\"",
        "import(",
        "export {",
        "export * from",
        "/[/",
        "x = /\\",
        "é'é'é\"é`é",
        "\u{FFFD}\u{FFFD}'\u{FFFD}",
        "'\u{1F600}",
        "package",
        "package main\nimport (\n\"a\"",
        "\r\n\r\n\\\r\n",
        "\0\0\"\0'\0",
    ];

    /// Deterministic pseudo-random garbage made of bytes scanners care about.
    pub(crate) fn garbage(seed: u64, len: usize) -> String {
        const ALPHABET: &[u8] = b"\"'`/\\*#{}()[];:.,$!=<> \n\tabrfimportusexnc_0@\xc3\xa9\xff\x00";
        let mut state = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ALPHABET[(state >> 33) as usize % ALPHABET.len()]
            })
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Runs a scanner over the adversarial inputs and garbage, checking its output is sane.
    pub(crate) fn assert_survives(scan_file: fn(&str) -> FileScan) {
        let garbage = (0..300u64).map(|seed| garbage(seed, (seed as usize * 7) % 400));
        let inputs = ADVERSARIAL.iter().map(|s| s.to_string()).chain(garbage);
        for src in inputs {
            let lines = src.split('\n').count() as u32;
            for import in scan_file(&src).imports.iter() {
                assert!(
                    import.line >= 1 && import.line <= lines,
                    "{src:?} -> {import:?}"
                );
                assert!(import.text.chars().count() <= TEXT_CAP);
            }
        }
    }

    #[test]
    fn language_of_path() {
        assert_eq!(Language::of_path("a/b/main.go"), Some(Language::Go));
        assert_eq!(Language::of_path("src/lib.rs"), Some(Language::Rust));
        assert_eq!(Language::of_path("pkg/mod.py"), Some(Language::Python));
        assert_eq!(Language::of_path("pkg/stubs.pyi"), Some(Language::Python));
        let js = ["js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts"];
        let pages = ["html", "htm", "css", "scss", "sass", "less"];
        for ext in js.iter().chain(&pages) {
            assert_eq!(
                Language::of_path(&format!("web/x.{ext}")),
                Some(Language::Js),
                "{ext}"
            );
        }
        assert_eq!(Language::of_path("types/index.d.ts"), Some(Language::Js));
        assert_eq!(Language::of_path("README.md"), None);
        assert_eq!(Language::of_path("Makefile"), None);
        assert_eq!(Language::of_path("dir.go/file"), None);
        assert_eq!(Language::of_path(".go"), None);
        assert_eq!(Language::of_path(""), None);
    }

    #[test]
    fn separators() {
        assert_eq!(Language::Go.separator(), "/");
        assert_eq!(Language::Js.separator(), "/");
        assert_eq!(Language::Rust.separator(), "::");
        assert_eq!(Language::Python.separator(), ".");
    }

    #[test]
    fn collector_dedups_orders_and_ignores() {
        let src = "one\ntwo // mesh: ignore\nthree\n";
        let mut c = Collector::new(src);
        c.push(24, "c");
        c.push(0, "a");
        c.push(1, "a");
        c.push(2, "b");
        c.push(4, "ignored");
        c.comment(8, 23);
        assert_eq!(pairs(&c.finish()), [(1, "a"), (1, "b"), (3, "c")]);
    }

    #[test]
    fn collector_text_is_trimmed_and_capped() {
        let long = format!("  \t{}é{}  \r\n", "x".repeat(150), "y".repeat(100));
        let mut c = Collector::new(&long);
        c.push(5, "x");
        let text = &c.finish()[0].text;
        assert_eq!(text.chars().count(), 200);
        assert!(text.starts_with("xxx") && text.contains('é'));
    }

    #[test]
    fn line_cursor_counts_lines() {
        let mut lines = LineCursor::new("a\nb\n\nc");
        assert_eq!(lines.line_of(0), 1);
        assert_eq!(lines.line_of(1), 1);
        assert_eq!(lines.line_of(2), 2);
        assert_eq!(lines.text(), "b");
        assert_eq!(lines.line_of(4), 3);
        assert_eq!(lines.text(), "");
        assert_eq!(lines.line_of(5), 4);
        assert_eq!(lines.line_of(99), 4);
        assert_eq!(lines.text(), "c");
        assert_eq!(lines.line_of(2), 2, "moving back restarts");
        assert_eq!(lines.text(), "b");
    }

    #[test]
    fn quoted_end_handles_escapes_and_open_literals() {
        assert_eq!(quoted_end(b"ab\"c", 0, b'"', false), (2, 3));
        assert_eq!(quoted_end(b"a\\\"b\"", 0, b'"', false), (4, 5));
        assert_eq!(quoted_end(b"ab\ncd\"", 0, b'"', false), (2, 2));
        assert_eq!(quoted_end(b"ab\ncd\"", 0, b'"', true), (5, 6));
        assert_eq!(quoted_end(b"ab\\", 0, b'"', true), (3, 3));
    }

    #[test]
    fn block_comments_nest_only_when_asked() {
        let src = "/* a /* b */ c */ d";
        let mut c = Collector::new(src);
        assert_eq!(block_comment(&mut c, src.as_bytes(), 0, true), 17);
        assert_eq!(block_comment(&mut c, src.as_bytes(), 0, false), 12);
        assert_eq!(block_comment(&mut c, b"/*/", 0, false), 3);
    }
}
