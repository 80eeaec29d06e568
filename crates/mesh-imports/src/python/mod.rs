//! The Python import scanner: the dotted module names of `import` and `from … import`
//! statements, at any indentation. Relative imports (`from .a import x`) keep their leading
//! dots: they stay inside the module, and say which of its files loads which.
//!
//! f-strings are lexed as plain strings: before Python 3.12 their expressions cannot reuse the
//! enclosing quote, and a 3.12 reuse still pairs up, so the lexer stays in step.

use super::lex::{
    Collector, FileScan, ImportKind, Kind, Token, at, ident_end, is_ident_start, kind_at,
    line_comment, punct_at, quoted_end, recycle_tokens, token_buffer,
};

/// Scans a Python file: its imports, and notes on what could not be read whole.
/// `import a.b` → "a.b", `from a.b import c` → "a.b.c" and "a.b", `__import__("a")` and
/// `importlib.import_module("a")` → "a". Imports inside a `try` that handles `ImportError` or
/// `ModuleNotFoundError` (its body or its handlers) are `optional`, and so are those under
/// `if TYPE_CHECKING:` (read by type checkers only, never run) and inside
/// `with suppress(ImportError):`.
pub fn scan_file(src: &str) -> FileScan {
    let mut c = Collector::new(src);
    let toks = lex(src.as_bytes(), &mut c);
    collect(&toks, src, &mut c);
    let mut notes = Vec::new();
    // The logical lines, made once for the passes that need them (most files need none).
    let lines = std::cell::OnceCell::new();
    let lines_of = || lines.get_or_init(|| logical_lines(&toks, src)).as_slice();
    let lines_of = &lines_of;
    guards::guarded(&toks, src, lines_of, &mut c, &mut notes);
    guards::type_checking(&toks, src, lines_of, &mut c);
    guards::installed_checks(&toks, src, lines_of, &mut c);
    guards::version_branches(&toks, src, lines_of, &mut c);
    function_bodies(&toks, src, lines_of, &mut c);
    let has_main = main_block(&toks, src, lines_of, &mut c);
    if inline_script(src) {
        c.weaken(0, src.len(), ImportKind::Optional);
    }
    if src.contains("sys.path") || src.contains("syspath_prepend") {
        made_modules(&toks, src, &mut c);
    }
    let mut imports = c.finish();
    if has_main && !defines_test(&toks, src) {
        imports.iter_mut().for_each(|i| i.in_script = true);
    }
    recycle_tokens(toks);
    if let Some(lines) = lines.into_inner() {
        recycle_lines(lines);
    }
    FileScan {
        imports: imports.into(),
        notes,
        ..FileScan::default()
    }
}

/// A file that changes `sys.path` and names a module in a string of its own besides any
/// import of it — a test writing a package into a directory it puts on the path
/// (django-oscar's `fork_app("basket", …)` then `__import__("basket.apps")`, metaflow's
/// `tmp_path / "fixture_retry_dep" / "__init__.py"`): its imports of that module are of one
/// it makes, optional.
fn made_modules(toks: &[Token], src: &str, c: &mut Collector) {
    // A string used as a path: joined with `/` (`tmp_path / "pkg"`), holding one, or given
    // to a call that makes a directory or a package (`tmpdir.mkdir("fork")`,
    // `fork_app("basket", …)`, `os.path.join(d, "pkg")`).
    const MAKERS: &[&str] = &[
        "dir", "path", "join", "fork", "app", "package", "module", "write", "make", "create",
    ];
    let mut named: Vec<&str> = Vec::new();
    for (i, t) in toks.iter().enumerate().filter(|(_, t)| t.kind == Kind::Str) {
        let value = t.value(src);
        let first = value.split('/').next().unwrap_or(value);
        let identifier = !first.is_empty() && !first.contains('.') && dotted_module(first);
        let joined = punct_at(toks, i + 1, b'/') || (i > 0 && punct_at(toks, i - 1, b'/'));
        let made = i >= 2 && punct_at(toks, i - 1, b'(') && kind_at(toks, i - 2, Kind::Ident) && {
            let call = toks[i - 2].text(src).to_ascii_lowercase();
            MAKERS.iter().any(|m| call.contains(m))
        };
        let as_path = value.contains('/') || joined || made;
        if identifier && as_path && !c.import_at(t.start) && !named.contains(&first) {
            named.push(first);
        }
    }
    for name in named {
        c.weaken_module(0, usize::MAX, name);
    }
}

/// Whether the file declares its own dependencies as a script (PEP 723: a `# /// script`
/// comment block closed by `# ///`, every line between a comment): whoever runs it (`uv run`,
/// `pipx run`) installs those, so its imports are owed nothing by the package around it.
fn inline_script(src: &str) -> bool {
    let mut lines = src.lines().map(|l| l.trim_end());
    while lines.by_ref().any(|l| l == "# /// script") {
        for l in lines.by_ref() {
            if l == "# ///" {
                return true;
            }
            if !(l == "#" || l.starts_with("# ")) {
                break;
            }
        }
    }
    false
}

/// One logical line: its tokens `toks[start..end]` and the indentation of its first token.
struct Line {
    start: usize,
    end: usize,
    indent: usize,
}

thread_local! {
    /// The lines buffer the last scan on this thread gave back ([`recycle_lines`]).
    static SPARE_LINES: std::cell::Cell<Vec<Line>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The most lines a buffer kept for the next file may hold.
const KEPT_LINES: usize = 1 << 16;

/// Gives a file's lines back for the next file's [`logical_lines`]: as with tokens, one
/// buffer grown per thread rather than one per file, each touching fresh memory.
fn recycle_lines(mut lines: Vec<Line>) {
    if lines.capacity() <= KEPT_LINES {
        lines.clear();
        SPARE_LINES.with(|spare| spare.set(lines));
    }
}

/// The logical lines (those with tokens), with their indentation in bytes.
fn logical_lines(toks: &[Token], src: &str) -> Vec<Line> {
    let b = src.as_bytes();
    let line = |start: usize, end: usize| {
        let first = toks[start].start;
        let line_start = b
            .get(..first)
            .and_then(|s| s.iter().rposition(|&c| c == b'\n'))
            .map_or(0, |p| p + 1);
        Line {
            start,
            end,
            indent: first - line_start,
        }
    };
    let mut lines = SPARE_LINES.with(std::cell::Cell::take);
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        if t.kind == Kind::Newline {
            if start < i {
                lines.push(line(start, i));
            }
            start = i + 1;
        }
    }
    if start < toks.len() {
        lines.push(line(start, toks.len()));
    }
    lines
}

/// The end (exclusive line index) of the block whose header is line `h`: the lines after it
/// that are indented deeper.
fn block_end(lines: &[Line], h: usize) -> usize {
    let mut k = h + 1;
    while lines.get(k).is_some_and(|l| l.indent > lines[h].indent) {
        k += 1;
    }
    k
}

/// The text of a line's first token ("" for none).
fn first_word<'s>(toks: &[Token], src: &'s str, l: &Line) -> &'s str {
    toks.get(l.start).map_or("", |t| t.text(src))
}

/// Marks the body of every function (`def`, `async def`, methods and nested ones too) that
/// runs only when something calls it: its imports run then, not when the module is
/// imported. An entry point is left out — a `main`, a command a CLI framework's decorator
/// registers (`@app.command()`, `@click.group()`), a top-level function the module's own
/// top-level code calls (`CONFIG = _load()`) — since it runs whenever the program does.
fn function_bodies<'l>(
    toks: &[Token],
    src: &str,
    lines: &dyn Fn() -> &'l [Line],
    c: &mut Collector,
) {
    if !src.contains("def") {
        return;
    }
    let lines = lines();
    // (name, top level, body start, body end) of each function not an entry point by its
    // name or decorators.
    let mut bodies: Vec<(&str, bool, usize, usize)> = Vec::new();
    let mut entry_bodies: Vec<(usize, usize)> = Vec::new();
    for (h, line) in lines.iter().enumerate() {
        let text = |i: usize| toks.get(i).map(|t| t.text(src));
        let def_at = match (text(line.start), text(line.start + 1)) {
            (Some("def"), _) => line.start,
            (Some("async"), Some("def")) => line.start + 1,
            _ => continue,
        };
        let name = text(def_at + 1).unwrap_or("");
        let k = block_end(lines, h);
        // The decorators right above it: `@x.command(…)` registers a command.
        let command = lines[..h]
            .iter()
            .rev()
            .take_while(|l| l.indent == line.indent && toks[l.start].is_punct(b'@'))
            .any(|l| {
                let words = toks[l.start + 1..l.end]
                    .iter()
                    .take_while(|t| !t.is_punct(b'('))
                    .filter(|t| t.kind == Kind::Ident);
                words
                    .last()
                    .is_some_and(|t| matches!(t.text(src), "command" | "group" | "callback"))
            });
        // From the header (a one-line `def f(): import x` holds its body) to the end of the
        // deeper-indented lines below.
        let last = &lines[k - 1];
        let end = toks
            .get(last.end.saturating_sub(1))
            .map_or(src.len(), |t| t.end);
        if name == "main" || command {
            entry_bodies.push((toks[line.start].start, end));
            continue;
        }
        bodies.push((name, line.indent == 0, toks[line.start].start, end));
    }
    // What the module's top-level code calls: names before `(` outside every function's
    // body, a method's too (the outermost bodies, in source order and apart: one walk with
    // a cursor). An entry point's body counts as a function's: what `main` calls is no more
    // called at import than what any function calls.
    let mut top: Vec<(usize, usize)> = Vec::new();
    let mut all: Vec<(usize, usize)> = bodies.iter().map(|&(_, _, s, e)| (s, e)).collect();
    all.extend(entry_bodies);
    all.sort_unstable();
    for (s, e) in all {
        match top.last_mut() {
            Some(last) if s < last.1 => last.1 = last.1.max(e),
            _ => top.push((s, e)),
        }
    }
    let mut called = std::collections::HashSet::new();
    let mut next = 0;
    for w in toks.windows(2) {
        while top.get(next).is_some_and(|&(_, e)| e <= w[0].start) {
            next += 1;
        }
        let inside = top.get(next).is_some_and(|&(s, _)| s <= w[0].start);
        if !inside && w[0].kind == Kind::Ident && w[1].is_punct(b'(') {
            called.insert(w[0].text(src));
        }
    }
    for &(name, top, start, end) in &bodies {
        if !(top && called.contains(name)) {
            c.in_function(start, end);
        }
    }
}

/// Whether the file defines a test a runner collects: a `def test…` (pytest's functions
/// and methods, `async` ones too) or a `class Test…` (pytest's classes, unittest's
/// `TestCase`s by custom).
fn defines_test(toks: &[Token], src: &str) -> bool {
    toks.windows(2).any(|w| {
        w[1].kind == Kind::Ident
            && match w[0].text(src) {
                "def" => w[1].text(src).starts_with("test"),
                "class" => w[1].text(src).starts_with("Test"),
                _ => false,
            }
    })
}

/// Marks the body of `if __name__ == "__main__":` as a function's: it runs when the file is
/// run as a script, never when the module is imported — a developer's command at the foot of
/// a library module (mitmproxy's `utils/emoji.py` regenerating itself with `requests`), so
/// drift is unsure an import there is owed, as it is of a lazy one. Says whether there is one.
fn main_block<'l>(
    toks: &[Token],
    src: &str,
    lines: &dyn Fn() -> &'l [Line],
    c: &mut Collector,
) -> bool {
    if !src.contains("__main__") {
        return false;
    }
    let mut found = false;
    let lines = lines();
    for (h, line) in lines.iter().enumerate() {
        let header = &toks[line.start..line.end];
        if !header
            .first()
            .is_some_and(|t| matches!(t.text(src), "if" | "elif"))
        {
            continue;
        }
        // Exactly `__name__ == "__main__"` (either way round), then the colon.
        let Some(colon) = header.iter().position(|t| t.is_punct(b':')) else {
            continue;
        };
        let compared: String = header[1..colon]
            .iter()
            .map(|t| match t.kind {
                Kind::Str => format!("'{}'", t.value(src)),
                _ => t.text(src).to_string(),
            })
            .collect();
        if !matches!(
            compared.as_str(),
            "__name__=='__main__'" | "'__main__'==__name__"
        ) {
            continue;
        }
        let k = block_end(lines, h);
        let last = &lines[k - 1];
        let end = toks
            .get(last.end.saturating_sub(1))
            .map_or(src.len(), |t| t.end);
        c.in_function(header[colon].end, end);
        found = true;
    }
    found
}

/// Where the body of the block whose header is line `h` ends (its lines end at `k`,
/// exclusive): at its last deeper line, or at the header's own end for a one-line block.
fn body_end(toks: &[Token], src: &str, lines: &[Line], h: usize, k: usize) -> usize {
    let last = match k > h + 1 {
        true => &lines[k - 1],
        false => &lines[h],
    };
    toks.get(last.end.saturating_sub(1))
        .map_or(src.len(), |t| t.end)
}

/// Turns Python source into tokens, with a `Newline` at the end of each logical line (none
/// inside brackets or after a backslash continuation); comments are recorded, not returned.
fn lex(b: &[u8], c: &mut Collector) -> Vec<Token> {
    let mut toks = token_buffer();
    let mut depth = 0u32;
    let mut i = 0;
    while let Some(&ch) = b.get(i) {
        let tok = match ch {
            b'\n' if depth == 0 => Token::new(Kind::Newline, i, i + 1),
            b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' => {
                i += 1;
                continue;
            }
            b'\\' => {
                i = continuation_end(b, i);
                continue;
            }
            b'#' => {
                i = line_comment(c, b, i);
                continue;
            }
            b'\'' | b'"' => string(b, i, i),
            ch if is_ident_start(ch) => word(b, i),
            ch if ch.is_ascii_digit() => Token::new(Kind::Other, i, ident_end(b, i)),
            ch => {
                match ch {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                Token::new(Kind::Punct(ch), i, i + 1)
            }
        };
        i = tok.end.max(i + 1);
        toks.push(tok);
    }
    toks
}

/// Past a backslash and the line end it escapes (a stray backslash is just skipped).
fn continuation_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    if at(b, j) == b'\r' {
        j += 1;
    }
    if at(b, j) == b'\n' {
        j += 1;
    }
    j
}

/// An identifier at `i`, or the string it prefixes (`r"…"`, `b'…'`, `f"""…"""`, `rb'…'`).
fn word(b: &[u8], i: usize) -> Token {
    let end = ident_end(b, i);
    let prefix = b.get(i..end).unwrap_or(&[]);
    let is_prefix = prefix.len() <= 2 && prefix.iter().all(|c| b"rRbBuUfFtT".contains(c));
    if is_prefix && matches!(at(b, end), b'\'' | b'"') {
        return string(b, i, end);
    }
    Token::new(Kind::Ident, i, end)
}

/// A string literal whose opening quote is at `quote` (after any prefix from `start`):
/// triple-quoted ones span lines, others end at the line end if left open. A backslash always
/// escapes the next byte, which is right for raw strings too (`r"\""` is one string).
fn string(b: &[u8], start: usize, quote: usize) -> Token {
    let q = at(b, quote);
    if at(b, quote + 1) == q && at(b, quote + 2) == q {
        let (content_end, end) = triple_end(b, quote + 3, q);
        return Token::with_value(Kind::Str, start, end, (quote + 3, content_end));
    }
    let (content_end, end) = quoted_end(b, quote + 1, q, false);
    Token::with_value(Kind::Str, start, end, (quote + 1, content_end))
}

/// Scans a triple-quoted string's content from `i`; returns (content end, token end).
fn triple_end(b: &[u8], i: usize, q: u8) -> (usize, usize) {
    let mut j = i;
    while let Some(&c) = b.get(j) {
        if c == b'\\' {
            j += 2;
        } else if c == q && at(b, j + 1) == q && at(b, j + 2) == q {
            return (j, j + 3);
        } else {
            j += 1;
        }
    }
    (b.len(), b.len())
}

/// Finds the import statements: `import` or `from` at the start of a logical statement
/// (a new line, after `;`, or after a block's `:` as in `try: import x`).
fn collect(toks: &[Token], src: &str, c: &mut Collector) {
    let sphinx = sphinx_conf(src);
    let mut at_start = true;
    let mut depth = 0u32;
    for (i, t) in toks.iter().enumerate() {
        if at_start && t.kind == Kind::Ident && matches!(t.text(src), "import" | "from") {
            // The statement runs to the end of its logical line (or a `;`): an ignore marker
            // anywhere in it counts.
            let end = toks
                .get(i..)
                .and_then(|rest| {
                    rest.iter()
                        .find(|t| matches!(t.kind, Kind::Newline | Kind::Punct(b';')))
                })
                .map_or(src.len(), |t| t.start);
            c.statement(t.start, end);
            if t.text(src) == "import" {
                import_names(toks, i + 1, src, c);
            } else {
                from_module(toks, i + 1, src, c);
            }
        }
        if t.kind == Kind::Ident {
            dynamic_import(toks, i, src, c);
            if at_start {
                django::setting(toks, i, src, c);
                if sphinx {
                    sphinx_setting(toks, i, src, c);
                }
            }
        }
        if t.kind == Kind::Str {
            let value = t.value(src);
            if let Some(driver) = url_driver(value) {
                c.push_optional(t.start, driver);
            }
            django::string(toks, i, src, c);
        }
        if t.kind == Kind::Ident {
            django::image_field(toks, i, src, c);
        }
        match t.kind {
            Kind::Punct(b'(' | b'[' | b'{') => depth += 1,
            Kind::Punct(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        at_start = match t.kind {
            Kind::Newline | Kind::Punct(b';') => true,
            Kind::Punct(b':') => depth == 0,
            _ => false,
        };
    }
}

/// At `toks[i]`, a name assigned or extended a list or tuple (`= [`, `+= (`): each string
/// directly in it that is a dotted module name is an optional import.
fn assigned_list(toks: &[Token], i: usize, src: &str, c: &mut Collector) {
    let mut j = i + 1;
    if punct_at(toks, j, b'+') {
        j += 1;
    }
    if !punct_at(toks, j, b'=') || !(punct_at(toks, j + 1, b'[') || punct_at(toks, j + 1, b'(')) {
        return;
    }
    module_strings(toks, j + 1, 1, src, c);
}

/// The strings at bracket depth `at` of the bracketed group opening at `toks[open]` that are
/// dotted module names, each an optional import.
fn module_strings(toks: &[Token], open: usize, at: u32, src: &str, c: &mut Collector) {
    let mut depth = 0u32;
    for t in toks.iter().skip(open) {
        match t.kind {
            Kind::Punct(b'(' | b'[' | b'{') => depth += 1,
            Kind::Punct(b')' | b']' | b'}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return;
                }
            }
            Kind::Newline => return,
            Kind::Str if depth == at => {
                let name = t.value(src);
                if dotted_module(name) {
                    c.push_optional(t.start, name);
                }
            }
            _ => {}
        }
    }
}

/// Whether `name` is a dotted module name (`a.b_c`): identifiers joined by dots.
fn dotted_module(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|p| {
            p.bytes()
                .next()
                .is_some_and(|b| b == b'_' || b.is_ascii_alphabetic())
                && p.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
        })
}

/// Whether a Python file is a Sphinx configuration: it sets `extensions` and one of the
/// settings only Sphinx reads. The names `extensions` and `templates_path` alone are any
/// program's.
fn sphinx_conf(src: &str) -> bool {
    const SPHINX_ONLY: &[&str] = &[
        "html_theme",
        "master_doc",
        "root_doc",
        "html_static_path",
        "intersphinx_mapping",
    ];
    src.contains("extensions") && SPHINX_ONLY.iter().any(|s| src.contains(s))
}

/// Sphinx's own themes: no package provides them.
const SPHINX_THEMES: &[&str] = &[
    "agogo",
    "basic",
    "bizstyle",
    "classic",
    "default",
    "epub",
    "haiku",
    "nature",
    "pyramid",
    "scrolls",
    "sphinxdoc",
    "traditional",
];

/// In a Sphinx configuration, the extensions it names — `extensions = [...]` (or `+=`),
/// `extensions.append("x")`, `.extend([...])`, `.insert(0, "x")` — and its `html_theme`:
/// Sphinx imports each by its module name (`"sphinxcontrib.spelling"`, bentoml's
/// `"hoverxref.extension"`; a theme by the entry point its package names so, `"furo"`). So
/// each is an import, optional: a build may leave an extension out (`if not on_rtd:`).
fn sphinx_setting(toks: &[Token], i: usize, src: &str, c: &mut Collector) {
    match toks[i].text(src) {
        "extensions" if punct_at(toks, i + 1, b'.') => {
            let method = toks.get(i + 2).map(|t| t.text(src));
            if matches!(method, Some("append" | "extend" | "insert")) && punct_at(toks, i + 3, b'(')
            {
                let at = if method == Some("extend") { 2 } else { 1 };
                module_strings(toks, i + 3, at, src, c);
            }
        }
        "extensions" => assigned_list(toks, i, src, c),
        "html_theme" if punct_at(toks, i + 1, b'=') => {
            if let Some(t) = toks.get(i + 2).filter(|t| t.kind == Kind::Str)
                && (toks.get(i + 3)).is_none_or(|n| n.kind == Kind::Newline)
            {
                let name = t.value(src);
                if !name.is_empty()
                    && name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
                    && !SPHINX_THEMES.contains(&name)
                {
                    c.push_optional(t.start, name);
                }
            }
        }
        _ => {}
    }
}

/// The database drivers SQLAlchemy loads by the name a URL gives (`dialect+driver://`), with
/// the module each imports.
const URL_DRIVERS: &[(&str, &str)] = &[
    ("aiomysql", "aiomysql"),
    ("aioodbc", "aioodbc"),
    ("aiosqlite", "aiosqlite"),
    ("asyncmy", "asyncmy"),
    ("asyncpg", "asyncpg"),
    ("cx_oracle", "cx_Oracle"),
    ("mariadbconnector", "mariadb"),
    ("mysqlconnector", "mysql.connector"),
    ("mysqldb", "MySQLdb"),
    ("oracledb", "oracledb"),
    ("pg8000", "pg8000"),
    ("psycopg", "psycopg"),
    ("psycopg2", "psycopg2"),
    ("psycopg2cffi", "psycopg2cffi"),
    ("pymssql", "pymssql"),
    ("pymysql", "pymysql"),
    ("pyodbc", "pyodbc"),
];

/// The module a database URL's driver names (`"sqlite+aiosqlite:///app.db"` → `aiosqlite`):
/// SQLAlchemy imports it when an engine is made from the URL, so the string is the driver's
/// only mention. Reported as optional: a use of a declared driver, never one owed (the URL
/// may be an example or a default the user replaces).
fn url_driver(value: &str) -> Option<&'static str> {
    let (scheme, _) = value.split_once("://")?;
    let (dialect, driver) = scheme.split_once('+')?;
    if dialect.is_empty()
        || !dialect
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        return None;
    }
    URL_DRIVERS
        .iter()
        .find(|(name, _)| *name == driver)
        .map(|(_, module)| *module)
}

/// `__import__("a.b")`, `import_module("a.b")` (as `importlib.import_module` or imported
/// by name) or `lazy_module("a.b")` with a literal: reports "a.b". A relative name (`".x"`) stays inside the module.
/// `pytest.importorskip("a")` is reported too, as guarded (the test is skipped without it),
/// and so is `lazy_module("a")` (a stand-in when it is absent), and a project's own optional
/// importer's (`attempt_import_or_raise("a")`: [`optional_importer`]).
fn dynamic_import(toks: &[Token], i: usize, src: &str, c: &mut Collector) {
    let word = toks[i].text(src);
    let optional = optional_importer(word);
    let after_dot = i.checked_sub(1).is_some_and(|p| punct_at(toks, p, b'.'));
    let callee = match word {
        "__import__" => !after_dot,
        "import_module" => {
            !after_dot
                || i.checked_sub(2)
                    .and_then(|p| toks.get(p))
                    .is_some_and(|t| t.text(src) == "importlib")
        }
        // A lazy importer's module (`lazy_module("kubernetes.client")`, the `lazy_import`
        // package's and flytekit's own): imported on first use, and a stand-in when it is
        // not installed — an optional import.
        "lazy_module" => true,
        // A project's own optional importer (`attempt_import_or_raise("botocore")`,
        // `lazy_import("x")`, pandas' `import_optional_dependency("x")`): a name whose parts
        // say import and that it may be absent, lazy or attempted.
        _ if optional => true,
        // `pytest.importorskip("x")` skips the test when `x` is absent: a guarded import.
        "importorskip" => {
            !after_dot
                || i.checked_sub(2)
                    .and_then(|p| toks.get(p))
                    .is_some_and(|t| t.text(src) == "pytest")
        }
        _ => false,
    };
    if !callee || !punct_at(toks, i + 1, b'(') {
        return;
    }
    // `import_module(f"tree_sitter_{name}")`, `import_module("plugins_" + name)`: a name
    // known by its start.
    if let Some(arg) = toks.get(i + 2).filter(|t| t.kind == Kind::Str)
        && word == "import_module"
    {
        let text = arg.text(src);
        let fstring = text.starts_with(['f', 'F'])
            || text
                .get(..2)
                .is_some_and(|p| p.eq_ignore_ascii_case("rf") || p.eq_ignore_ascii_case("fr"));
        let value = arg.value(src);
        let start = match (fstring, value.find('{')) {
            (true, Some(at)) => Some(&value[..at]),
            _ if punct_at(toks, i + 3, b'+') => Some(value),
            _ => None,
        };
        let known = start.filter(|s| {
            s.len() >= 3
                && s.bytes()
                    .all(|b| b == b'_' || b == b'.' || b.is_ascii_alphanumeric())
                && !s.starts_with('.')
                && s.bytes().any(|b| b.is_ascii_alphabetic())
        });
        if let Some(s) = known {
            c.push_prefix(arg.start, s);
            return;
        }
    }
    if let Some(arg) = toks.get(i + 2).filter(|t| t.kind == Kind::Str)
        && (punct_at(toks, i + 3, b')') || punct_at(toks, i + 3, b','))
    {
        let name = arg.value(src);
        let valid = !name.is_empty()
            && name.split('.').all(|s| {
                !s.is_empty() && s.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
            });
        if valid {
            c.push_value(arg);
            if matches!(word, "importorskip" | "lazy_module") || optional {
                c.weaken(arg.start, arg.end, ImportKind::Optional);
            }
        }
    }
}

/// Whether a function named `word` imports its argument and tolerates its absence, by its
/// name's `_`-separated words: `import` after a word saying it is optional, lazy or attempted
/// (`lazy_import`, `try_import`, `safe_import`), `import_optional_…`, or `…import_or_raise`
/// (`…_or_none`, `…_or_skip`). `import_data("x")`, `try_import_table("x")` and
/// `import_or_update("x")` are not.
fn optional_importer(word: &str) -> bool {
    // Asked of every name in every file: most hold no `import` at all.
    if !(word.as_bytes().windows(6)).any(|w| w.eq_ignore_ascii_case(b"import")) {
        return false;
    }
    let lower = word.to_ascii_lowercase();
    let parts: Vec<&str> = lower.split('_').filter(|p| !p.is_empty()).collect();
    let qualifier = |p: &str| {
        matches!(
            p,
            "lazy" | "try" | "attempt" | "optional" | "safe" | "maybe" | "soft"
        )
    };
    match parts.as_slice() {
        // `lazy_import`, `try_import`, `safe_import`.
        [.., q, "import"] => qualifier(q),
        // `import_optional_dependency`, `import_optional_module`.
        ["import", "optional", ..] => true,
        // `attempt_import_or_raise`, `import_or_none`.
        [.., "import", "or", end] => matches!(*end, "raise" | "none" | "skip"),
        _ => false,
    }
}

/// `import a.b [as x], c …` after the keyword: reports each dotted name.
fn import_names(toks: &[Token], mut i: usize, src: &str, c: &mut Collector) {
    while let Some((offset, name, mut next)) = dotted_name(toks, i, src) {
        c.push(offset, name);
        if toks.get(next).is_some_and(|t| t.text(src) == "as") {
            next += 2;
        }
        if !punct_at(toks, next, b',') {
            return;
        }
        i = next + 1;
    }
}

/// `from a.b import …` after `from`: reports "a.b"; a relative module keeps its leading dots
/// (`from ..a import b` → "..a.b" and "..a", `from . import b` → ".b"): no declaration
/// answers it, but drift follows it to the file it loads.
fn from_module(toks: &[Token], i: usize, src: &str, c: &mut Collector) {
    if punct_at(toks, i, b'.') {
        return from_relative(toks, i, src, c);
    }
    if let Some((offset, name, next)) = dotted_name(toks, i, src)
        && toks
            .get(next)
            .is_some_and(|t| t.kind == Kind::Ident && t.text(src) == "import")
    {
        // `from a.b import c` may import the submodule `a.b.c`, which another module can
        // provide (a namespace package, a plugin): report both, at the statement's line.
        for sub in imported_names(toks, next + 1, src) {
            if let Some((_, _, need)) = FEATURE_NEEDS
                .iter()
                .find(|(m, n, _)| *m == name && *n == sub)
            {
                // At the name's own offset: optional marks every import at its offset.
                let at = (sub.as_ptr() as usize).saturating_sub(src.as_ptr() as usize);
                c.push_optional(at, *need);
            }
            c.push(offset, format!("{name}.{sub}"));
        }
        c.push(offset, name);
    }
}

/// `from .a import b` after `from` (at the first dot): reports ".a.b" and ".a"; a bare
/// `from . import b` reports ".b" alone (the package itself is loaded already).
fn from_relative(toks: &[Token], i: usize, src: &str, c: &mut Collector) {
    let Some(start) = toks.get(i).map(|t| t.start) else {
        return;
    };
    let mut j = i;
    let mut dots = String::new();
    while punct_at(toks, j, b'.') {
        dots.push('.');
        j += 1;
    }
    let is_import = |k: usize| {
        toks.get(k)
            .is_some_and(|t| t.kind == Kind::Ident && t.text(src) == "import")
    };
    let (name, next) = match dotted_name(toks, j, src) {
        Some((_, name, next)) if !is_import(j) => (format!("{dots}{name}"), next),
        _ => (dots.clone(), j),
    };
    if !is_import(next) {
        return;
    }
    let join = if name == dots { "" } else { "." };
    for sub in imported_names(toks, next + 1, src) {
        c.push(start, format!("{name}{join}{sub}"));
    }
    if name != dots {
        c.push(start, name);
    }
}

/// What a framework imports by itself when a feature of it is used (module, name, the
/// module it imports): FastAPI's `Form`, `File` and `UploadFile` parse the body with
/// python-multipart, pydantic's `EmailStr` validates with email-validator, Starlette's
/// `Jinja2Templates` renders with jinja2. Reported as optional: a use of what is declared,
/// never owed (an import of the feature alone does not say it runs).
const FEATURE_NEEDS: &[(&str, &str, &str)] = &[
    ("fastapi", "Form", "multipart"),
    ("fastapi", "File", "multipart"),
    ("fastapi", "UploadFile", "multipart"),
    ("pydantic", "EmailStr", "email_validator"),
    ("pydantic", "NameEmail", "email_validator"),
    ("fastapi.templating", "Jinja2Templates", "jinja2"),
    ("starlette.templating", "Jinja2Templates", "jinja2"),
];

/// The names after `from … import`: `c, d as e`, `(c,\n d)`; none for `*`.
fn imported_names<'a>(toks: &[Token], mut i: usize, src: &'a str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let paren = punct_at(toks, i, b'(');
    if paren {
        i += 1;
    }
    while let Some(t) = toks.get(i).filter(|t| t.kind == Kind::Ident) {
        out.push(t.text(src));
        i += 1;
        if toks.get(i).is_some_and(|t| t.text(src) == "as") {
            i += 2;
        }
        if !punct_at(toks, i, b',') {
            break;
        }
        i += 1;
    }
    out
}

/// A dotted name `a.b.c` at `i`: (offset of its first segment, the name, index after it).
fn dotted_name(toks: &[Token], i: usize, src: &str) -> Option<(usize, String, usize)> {
    let first = toks.get(i).filter(|t| t.kind == Kind::Ident)?;
    let mut name = first.text(src).to_string();
    let mut j = i + 1;
    while punct_at(toks, j, b'.') && kind_at(toks, j + 1, Kind::Ident) {
        name.push('.');
        name.push_str(toks.get(j + 1).map_or("", |t| t.text(src)));
        j += 2;
    }
    Some((first.start, name, j))
}

mod django;
mod guards;

#[cfg(test)]
mod tests;
