//! The Python scanner's guards: code whose imports may fail or never run — a `try` that
//! handles `ImportError`, `if TYPE_CHECKING:`, a check that a module is installed, a branch
//! only an older Python takes — marked optional (or with the Python they need) on the
//! collector, each a pass over the file's logical lines.

use super::{Line, block_end, body_end, first_word};
use crate::lex::{Collector, ImportKind, Kind, Token, punct_at};

/// Marks the body and the handlers of every `try` statement that handles `ImportError` or
/// `ModuleNotFoundError` as optional (and, when a module-level one's handler skips the
/// whole test file, every import of what its body imports), and the body of every later
/// `if` testing that a name
/// a module-level such `try` assigns holds (`if _torch_installed:`, `if np is not None:`;
/// never its `else`, nor `if not …`): the flag idiom for an optional integration. A `try`
/// body and such an `if` body are load guards too. A `try` with no `except` guards
/// nothing.
pub(super) fn guarded<'l>(
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

/// Marks the body of every `if TYPE_CHECKING:` (or `if typing.TYPE_CHECKING:`) as optional:
/// its imports give a type checker names and never run, so the code runs without them
/// (pydantic-graph's `from opentelemetry.trace import Span`). So is the body of every
/// `with suppress(ImportError):` (or `contextlib.suppress(…, ModuleNotFoundError)`): the
/// `try/except ImportError` of the context-manager form (pydantic-ai's `tests/conftest.py`
/// guards `import pandas` so); and `x`'s imports in the body of every
/// `if "x" in sys.modules:`, which runs only where something imported `x` already (lancedb's
/// optional integrations) — not the other imports there.
pub(super) fn type_checking<'l>(
    toks: &[Token],
    src: &str,
    lines: &dyn Fn() -> &'l [Line],
    c: &mut Collector,
) {
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
pub(super) fn installed_checks<'l>(
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
    let sliced = rest.strip_prefix("[:2]").or(rest.strip_prefix("[0:2]"));
    let rest = sliced.unwrap_or(rest);
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
    // A later part (`(3, 10, 0)`) is a micro version: `0` alone leaves the test as it is —
    // except against a slice of two, which is less than it on 3.10 itself.
    if parts.any(|p| p != "0" || sliced.is_some()) {
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
pub(super) fn version_branches<'l>(
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
