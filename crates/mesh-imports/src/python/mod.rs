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
    guarded(&toks, src, lines_of, &mut c, &mut notes);
    type_checking(&toks, src, lines_of, &mut c);
    installed_checks(&toks, src, lines_of, &mut c);
    python2_branches(&toks, src, lines_of, &mut c);
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

/// Marks the body and the handlers of every `try` statement that handles `ImportError` or
/// `ModuleNotFoundError` as optional (and, when a module-level one's handler skips the
/// whole test file, every import of what its body imports), and the body of every later
/// `if` testing that a name
/// a module-level such `try` assigns holds (`if _torch_installed:`, `if np is not None:`;
/// never its `else`, nor `if not …`): the flag idiom for an optional integration. A `try`
/// body and such an `if` body are load guards too. A `try` with no `except` guards
/// nothing.
fn guarded<'l>(
    toks: &[Token],
    src: &str,
    lines: &dyn Fn() -> &'l [Line],
    c: &mut Collector,
    notes: &mut Vec<String>,
) {
    if !src.contains("try") {
        return;
    }
    let lines = lines();
    let first_word = |l: &Line| first_word(toks, src, l);
    let block_end = |h: usize| block_end(lines, h);
    let span = |from: usize, to: usize| {
        let start = toks[lines[from].start].start;
        let last = &lines[to - 1];
        let end = toks
            .get(last.end.saturating_sub(1))
            .map_or(src.len(), |t| t.end);
        (start, end)
    };
    // The first words of the statements of the block whose header is line `h` (its lines
    // end at `end`): its own level's, or those after the header's colon on its line.
    let statements = |h: usize, end: usize| -> Vec<&str> {
        if end > h + 1 {
            let indent = lines[h + 1].indent;
            return (lines[h + 1..end].iter())
                .filter(|l| l.indent == indent)
                .map(first_word)
                .collect();
        }
        let header = toks.get(lines[h].start..lines[h].end).unwrap_or(&[]);
        (header.iter().position(|t| t.is_punct(b':')))
            .and_then(|c| header.get(c + 1))
            .map(|t| t.text(src))
            .into_iter()
            .collect()
    };
    // Each name a module-level guard binds, with the line after which it is known.
    let mut flags: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (h, line) in lines.iter().enumerate() {
        if first_word(line) != "try" || !punct_at(toks, line.start + 1, b':') {
            continue;
        }
        let body_end = block_end(h);
        let mut handles = false;
        let mut clauses = Vec::new(); // (first line, end line) of each except clause
        let mut k = body_end;
        while let Some(l) = lines.get(k).filter(|l| l.indent == line.indent) {
            match first_word(l) {
                "except" => {
                    let header = toks.get(l.start..l.end).unwrap_or(&[]);
                    handles |= match catches(header, src) {
                        Catches::ImportError => true,
                        // A handler of everything guards a body of imports alone, and only
                        // when it goes on (not `raise`, not `sys.exit`): a CLI's body
                        // wrapped to print an error guards nothing.
                        Catches::Everything => {
                            statements(h, body_end)
                                .iter()
                                .all(|w| matches!(*w, "import" | "from"))
                                && !statements(k, block_end(k))
                                    .iter()
                                    .any(|w| matches!(*w, "raise" | "sys" | "exit"))
                        }
                        Catches::Other => false,
                    };
                    let end = block_end(k);
                    clauses.push((k, end));
                    k = end;
                }
                "else" | "finally" => k = block_end(k),
                _ => break,
            }
        }
        if k == body_end {
            let line = src
                .get(..toks[line.start].start)
                .map_or(0, |s| s.matches('\n').count())
                + 1;
            notes.push(format!(
                "line {line}: `try:` has no `except` or `finally`: nothing is guarded"
            ));
        }
        // Python 2's fallback for a sibling (`try: from .metadata import version` /
        // `except (ValueError, SystemError): from metadata import version`): the handler's
        // bare name is the sibling the body imports relatively, as Python 2 read it. Only a
        // handler of what a relative import raises where it cannot be one (`ImportError`,
        // `ValueError`, `SystemError`, or everything).
        let (s, e) = span(h, body_end);
        let siblings = c.relative_siblings(s, e);
        for &(from, to) in &clauses {
            let header = toks.get(lines[from].start..lines[from].end).unwrap_or(&[]);
            let relative_failure = catches(header, src) != Catches::Other
                || (header.iter()).any(|t| matches!(t.text(src), "ValueError" | "SystemError"));
            if !relative_failure {
                continue;
            }
            let (cs, ce) = span(from, to);
            for top in &siblings {
                c.make_relative(cs, ce, top);
            }
        }
        if !handles {
            continue;
        }
        c.weaken(s, e, ImportKind::Optional);
        c.load_guard(s, e);
        // A name a module-level guard binds at its own level (`_torch_installed = True`,
        // `torch = None`) says whether the import worked: a later `if` testing it loads
        // what its body imports only when it did.
        let top = line.indent == 0;
        let binds = |l: &Line| {
            let name = toks.get(l.start).filter(|t| t.kind == Kind::Ident)?;
            let assigns = punct_at(toks, l.start + 1, b'=') && !punct_at(toks, l.start + 2, b'=');
            assigns.then(|| name.text(src))
        };
        let own_level = |from: usize, to: usize| {
            let indent = lines.get(from + 1).map_or(0, |l| l.indent);
            lines[from + 1..to]
                .iter()
                .filter(move |l| l.indent == indent)
        };
        if top {
            for n in own_level(h, body_end).filter_map(binds) {
                flags.entry(n).or_insert(k);
            }
        }
        let mut skips_module = false;
        for (from, to) in clauses {
            let (s, e) = span(from, to);
            c.weaken(s, e, ImportKind::Optional);
            if top {
                // Only a clause handling the import's failure says what happens without it.
                let header = toks.get(lines[from].start..lines[from].end).unwrap_or(&[]);
                let import_error = catches(header, src) == Catches::ImportError;
                for n in own_level(from, to).filter_map(binds) {
                    skips_module |= import_error && n == "pytestmark";
                    flags.entry(n).or_insert(k);
                }
                skips_module |= import_error
                    && toks[lines[from].start..lines[to - 1].end]
                        .iter()
                        .any(|t| t.text(src) == "allow_module_level");
            }
        }
        // pytest's idiom for an optional integration's tests: a module-level guard whose
        // handler skips the whole file (`pytestmark = pytest.mark.skip(…)`,
        // `pytest.skip(…, allow_module_level=True)`). No test of the file runs without what
        // the guard imports, so every import of it there is optional (dspy's
        // `test_databricks.py` imports `databricks.sdk` again inside its tests).
        if skips_module {
            let (s, e) = span(h, body_end);
            c.weaken_modules_of(s, e);
        }
    }
    if flags.is_empty() {
        return;
    }
    for (h, line) in lines.iter().enumerate() {
        if first_word(line) != "if" {
            continue;
        }
        let header = toks.get(line.start..line.end).unwrap_or(&[]);
        // The condition: the tokens between `if` and the colon ending it (at depth 0).
        let mut depth = 0i32;
        let colon = header.iter().position(|t| {
            match t.kind {
                Kind::Punct(b'(' | b'[' | b'{') => depth += 1,
                Kind::Punct(b')' | b']' | b'}') => depth -= 1,
                _ => {}
            }
            depth == 0 && t.is_punct(b':')
        });
        let Some(colon) = colon else {
            continue;
        };
        let cond = &header[1..colon];
        let words: Vec<&str> = cond.iter().map(|t| t.text(src)).collect();
        // `if FLAG:`, `if FLAG is not None:`, `if FLAG and …:` — the branch that runs when
        // the import worked; a `not` before the name is the other one.
        let tests_flag = match words.as_slice() {
            [name] | [name, "is", "not", "None"] => flags.get(name).is_some_and(|&k| h >= k),
            [name, "and", ..] => flags.get(name).is_some_and(|&k| h >= k),
            _ => false,
        };
        if !tests_flag {
            continue;
        }
        // The body: after the colon (a one-line `if x: import y`) to the deeper lines below.
        let start = header[colon].end;
        let end = body_end(toks, src, lines, h, block_end(h));
        c.weaken(start, end, ImportKind::Optional);
        c.load_guard(start, end);
    }
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

/// Marks the body of every `if TYPE_CHECKING:` (or `if typing.TYPE_CHECKING:`) as optional:
/// its imports give a type checker names and never run, so the code runs without them
/// (pydantic-graph's `from opentelemetry.trace import Span`). So is the body of every
/// `with suppress(ImportError):` (or `contextlib.suppress(…, ModuleNotFoundError)`): the
/// `try/except ImportError` of the context-manager form (pydantic-ai's `tests/conftest.py`
/// guards `import pandas` so); and `x`'s imports in the body of every
/// `if "x" in sys.modules:`, which runs only where something imported `x` already (lancedb's
/// optional integrations) — not the other imports there.
fn type_checking<'l>(toks: &[Token], src: &str, lines: &dyn Fn() -> &'l [Line], c: &mut Collector) {
    if !src.contains("TYPE_CHECKING") && !src.contains("suppress") && !src.contains("sys.modules") {
        return;
    }
    let lines = lines();
    for (h, line) in lines.iter().enumerate() {
        let header: Vec<&str> = toks[line.start..line.end]
            .iter()
            .map(|t| t.text(src))
            .collect();
        let Some((colon, module)) = guard_colon(&header) else {
            continue;
        };
        let colon = line.start + colon;
        let k = block_end(lines, h);
        // The body: after the colon (a one-line `if TYPE_CHECKING: import x`) to the end of
        // the deeper-indented lines below.
        let start = toks[colon].end;
        let end = body_end(toks, src, lines, h, k);
        // `if "torch" in sys.modules:` guards torch's imports only.
        match module {
            Some(module) => c.weaken_module(start, end, module),
            None => c.weaken(start, end, ImportKind::Optional),
        }
    }
}

/// Makes optional the imports of `x` in the body of an `if` that runs only when `x` is
/// installed: its condition calls `find_spec("x")` (importlib.util's; `find_loader`, with a
/// literal), or tests a name the file's top level set from such a call (redash's
/// `openpyxl_installed = find_spec("openpyxl")`, then `if pandas_installed and
/// openpyxl_installed:`; reflex's `if find_spec("sqlalchemy"):`) — never after `not`, and
/// not a check that raises without it, whose import is owed.
fn installed_checks<'l>(
    toks: &[Token],
    src: &str,
    lines: &dyn Fn() -> &'l [Line],
    c: &mut Collector,
) {
    if !src.contains("find_spec") && !src.contains("find_loader") {
        return;
    }
    let lines = lines();
    let words =
        |l: &Line| -> Vec<&str> { toks[l.start..l.end].iter().map(|t| t.text(src)).collect() };
    // The modules a run of tokens asks for (`find_spec("x")`), each with whether `not`
    // comes before the call.
    let asked = |toks: &[Token]| -> Vec<(String, bool)> {
        let mut out = Vec::new();
        for (i, t) in toks.iter().enumerate() {
            if t.kind != Kind::Ident
                || !matches!(t.text(src), "find_spec" | "find_loader")
                || !punct_at(toks, i + 1, b'(')
            {
                continue;
            }
            let Some(arg) = toks.get(i + 2).filter(|a| a.kind == Kind::Str) else {
                continue;
            };
            let name = arg.value(src);
            let valid = name.split('.').all(|s| {
                !s.is_empty() && s.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
            });
            if valid {
                let mut k = i;
                while k > 0
                    && matches!(
                        toks[k - 1].text(src),
                        "." | "util" | "importlib" | "pkgutil"
                    )
                {
                    k -= 1;
                }
                let negated = k > 0 && toks[k - 1].text(src) == "not";
                out.push((name.to_string(), negated));
            }
        }
        out
    };
    // Names the top level sets from a check: `x_installed = find_spec("x")` (`is not None`
    // after it too; `is None` inverts it).
    let mut flags: std::collections::HashMap<&str, String> = std::collections::HashMap::new();
    for l in lines.iter().filter(|l| l.indent == 0) {
        let w = words(l);
        let assigns = w.len() > 2 && w[1] == "=" && toks[l.start].kind == Kind::Ident;
        let inverted = w.windows(2).any(|p| p == ["is", "None"]);
        if assigns
            && !inverted
            && let [(module, false)] = asked(&toks[l.start..l.end]).as_slice()
        {
            flags.insert(w[0], module.clone());
        }
    }
    for (h, line) in lines.iter().enumerate() {
        let w = words(line);
        if !matches!(w.first(), Some(&("if" | "elif"))) {
            continue;
        }
        let Some(colon) = w.iter().rposition(|t| *t == ":") else {
            continue;
        };
        let cond = &toks[line.start + 1..line.start + colon];
        let mut modules: Vec<String> = (asked(cond).into_iter())
            .filter(|(_, negated)| !negated)
            .map(|(m, _)| m)
            .collect();
        for (k, t) in cond.iter().enumerate() {
            if let Some(m) = flags.get(t.text(src))
                && !(k > 0 && cond[k - 1].text(src) == "not")
            {
                modules.push(m.clone());
            }
        }
        if modules.is_empty() {
            continue;
        }
        let k = block_end(lines, h);
        let start = toks[line.start + colon].end;
        let end = body_end(toks, src, lines, h, k);
        for m in modules {
            c.weaken_module(start, end, &m);
        }
    }
}

/// What a version test asks of the running Python.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Version {
    /// Python 2: `PY2`, `six.PY2`, `sys.version_info[0] == 2`, `sys.version_info < (3, 0)`.
    Two,
    /// Python 3, any: `PY3`, `sys.version_info >= (3,)`, `sys.version_info.major == 3`.
    Three,
    /// Older than 3.N: `sys.version_info < (3, N)` (or `[:2] <= (3, N - 1)`).
    Before(u8),
    /// 3.N or newer: `sys.version_info >= (3, N)` (or `> (3, N - 1)`).
    From(u8),
}

/// Which Python a condition tests for, when it is a version test (see [`Version`]); anything
/// else (`not PY2`, `sys.version_info.minor`, an `and`) is `None`.
fn tests_python(cond: &[Token], src: &str) -> Option<Version> {
    let text: String = cond.iter().map(|t| t.text(src)).collect();
    // A name or an attribute (`six.PY2`): no `not`, `and`, `or`.
    let flag = cond.iter().all(|t| {
        t.is_punct(b'.')
            || t.kind == Kind::Ident && !matches!(t.text(src), "not" | "and" | "or" | "is" | "in")
    });
    if flag && text.ends_with("PY2") {
        return Some(Version::Two);
    }
    if flag && text.ends_with("PY3") {
        return Some(Version::Three);
    }
    let rest = text
        .strip_prefix("sys.version_info")
        .or_else(|| text.strip_prefix("version_info"))?;
    if let Some(rest) = rest.strip_prefix("[0]").or(rest.strip_prefix(".major")) {
        // Against the major version alone.
        return match rest {
            "==2" | "<3" | "<=2" => Some(Version::Two),
            ">=3" | "==3" | ">2" => Some(Version::Three),
            _ => None,
        };
    }
    let rest = rest
        .strip_prefix("[:2]")
        .or(rest.strip_prefix("[0:2]"))
        .unwrap_or(rest);
    let (op, tuple) = ["<=", ">=", "<", ">"]
        .into_iter()
        .find_map(|op| Some((op, rest.strip_prefix(op)?)))?;
    let tuple = tuple.strip_prefix('(')?.strip_suffix(')')?;
    let mut parts = tuple.split(',').filter(|p| !p.is_empty());
    let major: u8 = parts.next()?.parse().ok()?;
    let minor: Option<u8> = match parts.next() {
        Some(m) => Some(m.parse().ok()?),
        None => None,
    };
    // A later part (`(3, 10, 0)`) is a micro version: `0` alone leaves the test as it is.
    if parts.any(|p| p != "0") {
        return None;
    }
    match (major, minor.unwrap_or(0), op) {
        (2, _, "<" | "<=") | (3, 0, "<") => Some(Version::Two),
        (3, 0, ">=") | (2, _, ">") => Some(Version::Three),
        // `<= (3, 9)` also holds for 3.9 itself where the tuple is sliced: the older bound
        // would call 3.9's code dead, so the newer one is taken.
        (3, n, "<") => Some(Version::Before(n)),
        (3, n, "<=") => Some(Version::Before(n.checked_add(1)?)),
        (3, n, ">=") => Some(Version::From(n)),
        (3, n, ">") => Some(Version::From(n.checked_add(1)?)),
        _ => None,
    }
}

/// Marks as optional the imports of code only Python 2 runs: the body of an `if` or `elif`
/// testing for Python 2 (`if PY2:`, `if sys.version_info < (3,):`), and the `else` of an
/// `if` testing for Python 3. No Python a package supports today runs them (metaflow's
/// vendored click imports `cStringIO` under `if PY2:`), so they owe no declaration. The
/// imports of code only Pythons older than 3.N run (`if sys.version_info < (3, 10):`, the
/// `else` of `>= (3, 10)`) are marked with N: whether they run is the project's minimum
/// Python's to say (datasette's `import importlib_metadata` under `>= (3, 10)`'s `else`).
fn python2_branches<'l>(
    toks: &[Token],
    src: &str,
    lines: &dyn Fn() -> &'l [Line],
    c: &mut Collector,
) {
    if !src.contains("PY2") && !src.contains("PY3") && !src.contains("version_info") {
        return;
    }
    let lines = lines();
    let first_word = |l: &Line| first_word(toks, src, l);
    for (h, line) in lines.iter().enumerate() {
        if !matches!(first_word(line), "if" | "elif") {
            continue;
        }
        let header = toks.get(line.start..line.end).unwrap_or(&[]);
        let Some(colon) = header.iter().rposition(|t| t.is_punct(b':')) else {
            continue;
        };
        let body = |h: usize, colon: usize| {
            let k = block_end(lines, h);
            let start = toks[lines[h].start + colon].end;
            (start, body_end(toks, src, lines, h, k), k)
        };
        // The `else` of this `if` (not of an `elif` chain), if it has one.
        let else_body = || {
            let (_, _, k) = body(h, colon);
            let other = lines.get(k)?;
            let is_else = other.indent == line.indent
                && first_word(other) == "else"
                && punct_at(toks, other.start + 1, b':');
            is_else.then(|| body(k, 1))
        };
        match tests_python(&header[1..colon], src) {
            Some(Version::Two) => {
                let (start, end, _) = body(h, colon);
                c.weaken(start, end, ImportKind::Optional);
            }
            Some(Version::Before(n)) => {
                let (start, end, _) = body(h, colon);
                c.before_python(start, end, n);
            }
            Some(Version::Three) if first_word(line) == "if" => {
                if let Some((start, end, _)) = else_body() {
                    c.weaken(start, end, ImportKind::Optional);
                }
            }
            Some(Version::From(n)) if first_word(line) == "if" => {
                if let Some((start, end, _)) = else_body() {
                    c.before_python(start, end, n);
                }
            }
            _ => {}
        }
    }
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

/// The index of the colon that ends a guard's header (its tokens' texts), with the one
/// module it guards, if only one: `if TYPE_CHECKING:`, `if typing.TYPE_CHECKING:`,
/// `if "x" in sys.modules:` (or `elif`; `x`), or a `with` whose items include `suppress(…)`
/// with `ImportError` or `ModuleNotFoundError` among its arguments.
fn guard_colon<'h>(header: &[&'h str]) -> Option<(usize, Option<&'h str>)> {
    if matches!(
        header,
        ["if", "TYPE_CHECKING", ":", ..] | ["if", _, ".", "TYPE_CHECKING", ":", ..]
    ) {
        return header.iter().position(|t| *t == ":").map(|c| (c, None));
    }
    // `if "torch" in sys.modules:`: the body runs only where something imported it already.
    if let ["if" | "elif", name, "in", "sys", ".", "modules", ":", ..] = header
        && name.starts_with(['"', '\''])
    {
        return Some((6, Some(name.trim_matches(['"', '\'']))));
    }
    if header.first() != Some(&"with") {
        return None;
    }
    // The header's colon is its last `:` at bracket depth 0.
    let mut depth = 0i32;
    let mut colon = None;
    let mut suppressed = false;
    for (i, t) in header.iter().enumerate() {
        match *t {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            ":" if depth == 0 => colon = Some(i),
            "suppress" if header.get(i + 1) == Some(&"(") => {
                let mut d = 0i32;
                for a in &header[i + 1..] {
                    match *a {
                        "(" => d += 1,
                        ")" => {
                            d -= 1;
                            if d == 0 {
                                break;
                            }
                        }
                        "ImportError" | "ModuleNotFoundError" => suppressed = true,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    colon.filter(|_| suppressed).map(|c| (c, None))
}

/// What an `except` clause catches of an import's failure.
#[derive(Debug, PartialEq, Eq)]
enum Catches {
    /// It names `ImportError` or `ModuleNotFoundError`.
    ImportError,
    /// It catches their base classes (`Exception`, `BaseException`) or is bare (`except:`,
    /// Python 2's fallbacks: `try: import cPickle` / `except: import pickle`).
    Everything,
    /// Neither.
    Other,
}

/// What the `except` clause whose header's tokens are `header` catches: read before the
/// colon ending the header, not in a body on the same line.
fn catches(header: &[Token], src: &str) -> Catches {
    let before = header
        .iter()
        .position(|t| t.is_punct(b':'))
        .map_or(header, |c| &header[..c]);
    let names = || before.iter().map(|t| t.text(src));
    if names().any(|n| matches!(n, "ImportError" | "ModuleNotFoundError")) {
        return Catches::ImportError;
    }
    match before.len() == 1 || names().any(|n| matches!(n, "Exception" | "BaseException")) {
        true => Catches::Everything,
        false => Catches::Other,
    }
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

#[cfg(test)]
mod tests;
