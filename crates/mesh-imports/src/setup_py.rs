//! `setup.py` read without running it, when its `setup(...)` call says what it declares in
//! literals: strings, lists, dicts, `+`, and names the file binds once to such a value
//! (`plugin_requires = ["flytekit>=1.3"]` … `install_requires=plugin_requires`). Read as the
//! `setup.cfg` it stands for ([`SetupCfg`]), so one reader of packages and dependencies serves
//! all three files. A requirement argument that is computed (a call, a comprehension, a name
//! used otherwise than read after it is bound, `**kwargs`) makes the file unread: setuptools
//! would have to run it, and a dependency list mesh guessed at would make findings no one
//! could trust. What else the call says (its name, packages) is taken when literal.
//!
//! Bounded on any input: brackets nested deeper than [`MAX_DEPTH`] make the file unread, and
//! evaluation stops past [`BUDGET`] values made (a name doubled into itself many times).

use crate::setup_cfg::SetupCfg;
use std::collections::{HashMap, HashSet};

/// How deep brackets may nest in a file that is read (CPython's parser stops at 200).
const MAX_DEPTH: i32 = 100;

/// How many values (and string bytes / 64) one file's evaluation may make.
const BUDGET: usize = 20_000;

/// A token of Python source, with its 1-based line.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// A string literal's value; `f` when it is an f-string (its `{name}`s still to fill).
    Str {
        s: String,
        f: bool,
    },
    Name(String),
    Punct(char),
    /// `+=`, `-=`, …: the name before it changes.
    AugAssign,
    /// `**`, `==`, a number, an operator mesh does not evaluate.
    Other,
    /// The end of a logical line (a newline outside brackets).
    End,
    /// An indented logical line begins: what it binds is bound in a block.
    Indent,
}

/// The tokens of `text`, each with its line and whether it starts a logical line at column 0.
fn tokens(text: &str) -> Vec<(Tok, u32)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line, mut depth) = (0usize, 1u32, 0i32);
    while i < b.len() {
        let c = b[i];
        match c {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'\n' => {
                if depth == 0 && out.last().is_some_and(|(t, _)| *t != Tok::End) {
                    out.push((Tok::End, line));
                }
                line += 1;
                i += 1;
                if depth == 0 && matches!(b.get(i), Some(b' ' | b'\t')) {
                    let rest = text[i..].trim_start_matches([' ', '\t']);
                    if !rest.starts_with(['\n', '#', '\r']) && !rest.is_empty() {
                        out.push((Tok::Indent, line));
                    }
                }
            }
            b'\\' if b.get(i + 1) == Some(&b'\n') => {
                line += 1;
                i += 2;
            }
            b'\'' | b'"' => {
                let (s, next, lines) = string(b, i, false);
                out.push((Tok::Str { s, f: false }, line));
                line += lines;
                i = next;
            }
            _ if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80)
                {
                    i += 1;
                }
                let word = &text[start..i];
                let prefix = word.len() <= 2
                    && word.chars().all(|c| "rRbBuUfF".contains(c))
                    && matches!(b.get(i), Some(b'\'' | b'"'));
                if prefix {
                    let (s, next, lines) = string(b, i, word.contains(['r', 'R']));
                    let f = word.contains(['f', 'F']);
                    out.push((Tok::Str { s, f }, line));
                    line += lines;
                    i = next;
                } else {
                    out.push((Tok::Name(word.to_string()), line));
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                out.push((Tok::Punct(c as char), line));
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth -= 1;
                out.push((Tok::Punct(c as char), line));
                i += 1;
            }
            b'+' | b'*' | b'-' | b'/' | b'|' | b'&' | b'<' | b'>' | b'!' | b'%' | b'@' => {
                // `+` alone is concatenation, `%` alone formatting; `+=`, `**` and the rest are
                // what mesh does not evaluate.
                let two = matches!(b.get(i + 1), Some(b'='))
                    || (c == b'*' && b.get(i + 1) == Some(&b'*'));
                let augmented =
                    two && b.get(i + 1) == Some(&b'=') && !matches!(c, b'<' | b'>' | b'!');
                out.push((
                    match (c, two) {
                        (b'+' | b'%', false) => Tok::Punct(c as char),
                        _ if augmented => Tok::AugAssign,
                        _ => Tok::Other,
                    },
                    line,
                ));
                i += if two { 2 } else { 1 };
            }
            b'=' if b.get(i + 1) == Some(&b'=') => {
                out.push((Tok::Other, line));
                i += 2;
            }
            b'=' | b',' | b':' | b'.' | b';' => {
                out.push((Tok::Punct(c as char), line));
                i += 1;
            }
            _ if c.is_ascii_whitespace() => i += 1,
            _ => {
                out.push((Tok::Other, line));
                i += 1;
            }
        }
    }
    out.push((Tok::End, line));
    out
}

/// The string literal opening at `b[i]`: (its value, the index after it, the newlines in it).
/// `\n`, `\t` and `\r` are what they stand for, other escapes the escaped character, and
/// in a `raw` string both; an unterminated string ends the file.
fn string(b: &[u8], i: usize, raw: bool) -> (String, usize, u32) {
    let q = b[i];
    let triple = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
    let mut j = i + if triple { 3 } else { 1 };
    let mut s = Vec::new();
    let mut lines = 0;
    while j < b.len() {
        let c = b[j];
        if c == b'\\' && j + 1 < b.len() {
            match (raw, b[j + 1]) {
                (_, b'\n') => lines += 1,
                (true, c) => s.extend([b'\\', c]),
                (false, b'n') => s.push(b'\n'),
                (false, b't') => s.push(b'\t'),
                (false, b'r') => s.push(b'\r'),
                (false, c) => s.push(c),
            }
            if raw && b[j + 1] == b'\n' {
                s.extend([b'\\', b'\n']);
            }
            j += 2;
            continue;
        }
        if triple && c == q && b.get(j + 1) == Some(&q) && b.get(j + 2) == Some(&q) {
            return (String::from_utf8_lossy(&s).into_owned(), j + 3, lines);
        }
        if !triple && (c == q || c == b'\n') {
            return (String::from_utf8_lossy(&s).into_owned(), j + 1, lines);
        }
        if c == b'\n' {
            lines += 1;
        }
        s.push(c);
        j += 1;
    }
    (String::from_utf8_lossy(&s).into_owned(), j, lines)
}

/// A literal value, as far as mesh evaluates one.
#[derive(Debug, Clone)]
enum Value {
    /// A string and the line it starts on; `f` for an f-string.
    Str {
        s: String,
        line: u32,
        f: bool,
    },
    List(Vec<Value>),
    Dict(Vec<(Value, Value)>),
    Name(String),
    /// `a + b + …`, flat.
    Concat(Vec<Value>),
    /// A call, by its dotted name, with its keyword arguments (`find_packages(where="src")`).
    Call(String, Vec<(String, Value)>),
    /// What mesh does not evaluate.
    Unknown,
}

/// A recursive-descent reader of one expression over `toks` from `at`.
struct Parser<'a> {
    toks: &'a [(Tok, u32)],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        self.toks.get(self.at).map_or(&Tok::End, |(t, _)| t)
    }

    fn line(&self) -> u32 {
        self.toks.get(self.at).map_or(0, |(_, l)| *l)
    }

    fn eat(&mut self, c: char) -> bool {
        if *self.peek() == Tok::Punct(c) {
            self.at += 1;
            return true;
        }
        false
    }

    /// `term ('+' term)*`; anything after it up to `,`, a closing bracket or the line's end
    /// (a comparison, a conditional expression) makes it [`Value::Unknown`].
    fn expr(&mut self) -> Value {
        let mut terms = vec![self.term()];
        while self.eat('+') {
            terms.push(self.term());
        }
        let mut v = match terms.len() {
            1 => terms.pop().unwrap_or(Value::Unknown),
            _ => Value::Concat(terms),
        };
        // `"x==%s" % version`: a requirement formatted with its version, whose name is
        // written before the placeholder (metaflow's `metaflow-stubs`).
        if matches!(v, Value::Str { f: false, .. }) && self.eat('%') {
            let _version = self.term();
            if let Value::Str { s, .. } = &mut v {
                match s.find("==%") {
                    Some(at) => s.truncate(at),
                    None => v = Value::Unknown,
                }
            }
        }
        if !matches!(
            self.peek(),
            Tok::Punct(',' | ')' | ']' | '}' | ':') | Tok::End
        ) {
            self.skip_to_boundary();
            return Value::Unknown;
        }
        v
    }

    /// Skips to the next `,` or closing bracket at this depth (or the line's end).
    fn skip_to_boundary(&mut self) {
        let mut depth = 0;
        loop {
            match self.peek() {
                Tok::End => return,
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') if depth == 0 => return,
                Tok::Punct(')' | ']' | '}') => depth -= 1,
                Tok::Punct(',') if depth == 0 => return,
                _ => {}
            }
            self.at += 1;
        }
    }

    fn term(&mut self) -> Value {
        let line = self.line();
        match self.peek().clone() {
            Tok::Str { s, f } => {
                self.at += 1;
                let mut s = s;
                let mut f = f;
                // Adjacent literals are one string.
                while let Tok::Str { s: more, f: mf } = self.peek().clone() {
                    s.push_str(&more);
                    f |= mf;
                    self.at += 1;
                }
                Value::Str { s, line, f }
            }
            Tok::Punct(open @ ('[' | '(')) => {
                self.at += 1;
                let close = if open == '[' { ']' } else { ')' };
                let mut items = Vec::new();
                let mut comma = false;
                while !self.eat(close) {
                    if *self.peek() == Tok::End {
                        return Value::Unknown;
                    }
                    items.push(self.expr());
                    if self.eat(',') {
                        comma = true;
                    } else if !self.eat(close) {
                        self.skip_to_boundary();
                        self.eat(close);
                        return Value::Unknown;
                    } else {
                        break;
                    }
                }
                // `(x)` is x; `(x,)` and `[x]` are sequences.
                match (open, items.len(), comma) {
                    ('(', 1, false) => items.pop().unwrap_or(Value::Unknown),
                    _ => Value::List(items),
                }
            }
            Tok::Punct('{') => {
                self.at += 1;
                let mut items = Vec::new();
                while !self.eat('}') {
                    if *self.peek() == Tok::End {
                        return Value::Unknown;
                    }
                    let k = self.expr();
                    if !self.eat(':') {
                        self.skip_to_boundary();
                        self.eat('}');
                        return Value::Unknown;
                    }
                    let v = self.expr();
                    items.push((k, v));
                    if !self.eat(',') && !self.eat('}') {
                        self.skip_to_boundary();
                        self.eat('}');
                        return Value::Unknown;
                    } else if matches!(self.toks.get(self.at - 1), Some((Tok::Punct('}'), _))) {
                        break;
                    }
                }
                Value::Dict(items)
            }
            Tok::Name(n) => {
                self.at += 1;
                let mut name = n;
                while self.eat('.') {
                    match self.peek().clone() {
                        Tok::Name(more) => {
                            name = format!("{name}.{more}");
                            self.at += 1;
                        }
                        _ => return Value::Unknown,
                    }
                }
                if self.eat('(') {
                    return self.call(name);
                }
                Value::Name(name)
            }
            _ => {
                self.skip_to_boundary();
                Value::Unknown
            }
        }
    }

    /// The keyword arguments of a call whose `(` was just read; positional or `**` ones make
    /// a call whose arguments are not all known (its name kept, its keywords none).
    fn call(&mut self, name: String) -> Value {
        let mut kwargs = Vec::new();
        let mut whole = true;
        while !self.eat(')') {
            if *self.peek() == Tok::End {
                return Value::Unknown;
            }
            let is_kw = matches!(self.peek(), Tok::Name(_))
                && self.toks.get(self.at + 1).map(|(t, _)| t) == Some(&Tok::Punct('='));
            if is_kw {
                let Tok::Name(k) = self.peek().clone() else {
                    return Value::Unknown;
                };
                self.at += 2;
                kwargs.push((k, self.expr()));
            } else {
                whole = false;
                self.skip_to_boundary();
            }
            if !self.eat(',') && !self.eat(')') {
                return Value::Unknown;
            } else if matches!(self.toks.get(self.at - 1), Some((Tok::Punct(')'), _))) {
                break;
            }
        }
        match whole {
            true => Value::Call(name, kwargs),
            false => Value::Call(format!("{name}(…)"), kwargs),
        }
    }
}

/// What the file binds at its top level, once, and only reads after: a name bound twice, in
/// a block, after a `;` or a `:` (`if x: reqs = …`), by `import`, `for`, `as`, `def`, or
/// changed (`reqs += …`, `reqs.append(…)`, `reqs[0] = …`, `del reqs`) is none of these.
fn bindings(toks: &[(Tok, u32)]) -> HashMap<String, Value> {
    let mut out = HashMap::new();
    let mut unknown: HashSet<String> = HashSet::new();
    let (mut depth, mut at) = (0i32, 0usize);
    // At a statement's start; in an indented one; in an `import`, `def` or `class` line; in
    // a `for` target (up to its `in`).
    let (mut start, mut indented, mut binding_line, mut for_target) = (true, false, false, false);
    while at < toks.len() {
        let t = &toks[at].0;
        match t {
            Tok::End => {
                (start, indented, binding_line, for_target) = (true, false, false, false);
                at += 1;
                continue;
            }
            Tok::Indent => {
                indented = true;
                at += 1;
                continue;
            }
            _ => {}
        }
        if let Tok::Name(n) = t {
            let next = toks.get(at + 1).map(|(t, _)| t);
            let prev = match start {
                true => None,
                false => at.checked_sub(1).map(|p| &toks[p].0),
            };
            if start && matches!(n.as_str(), "import" | "from" | "def" | "class") {
                binding_line = true;
            }
            if n == "for" {
                for_target = true;
            } else if n == "in" {
                for_target = false;
            }
            if start && !indented && depth == 0 && next == Some(&Tok::Punct('=')) {
                if out.contains_key(n) {
                    unknown.insert(n.clone());
                }
                let mut p = Parser { toks, at: at + 2 };
                let v = p.expr();
                // `reqs = […]; more` is not a value alone.
                if *p.peek() != Tok::End {
                    unknown.insert(n.clone());
                }
                out.insert(n.clone(), v);
                // What the value names is read: scanned as the rest of the file is.
                (start, at) = (false, at + 2);
                continue;
            }
            let keyword_arg = depth > 0
                && next == Some(&Tok::Punct('='))
                && matches!(prev, Some(Tok::Punct('(' | ',')));
            let attribute = prev == Some(&Tok::Punct('.'));
            if !keyword_arg
                && !attribute
                && (binding_line
                    || for_target
                    || !read_only(prev, next, toks.get(at + 2).map(|(t, _)| t)))
            {
                unknown.insert(n.clone());
            }
        }
        match t {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            _ => {}
        }
        start = false;
        at += 1;
    }
    for n in unknown {
        out.insert(n, Value::Unknown);
    }
    out
}

/// Whether a name between `prev` and `next` (and `after`, the token after `next`) is only
/// read there: a value in an expression, not a target, not changed, not called.
fn read_only(prev: Option<&Tok>, next: Option<&Tok>, after: Option<&Tok>) -> bool {
    let Some(prev) = prev else {
        // A statement that starts with the name: an assignment of some shape, a call.
        return false;
    };
    if let Tok::Name(p) = prev
        && matches!(
            p.as_str(),
            "as" | "del" | "global" | "nonlocal" | "lambda" | "import"
        )
    {
        return false;
    }
    match next {
        None | Some(Tok::End | Tok::Name(_) | Tok::Other | Tok::Str { .. }) => true,
        // `(reqs := …)` binds it.
        Some(Tok::Punct(':')) => after != Some(&Tok::Punct('=')),
        Some(Tok::Punct(',' | ')' | ']' | '}' | '+')) => true,
        Some(_) => false,
    }
}

/// `v` with names resolved (at most `depth` deep) and f-strings filled: `None` when any part
/// is not a literal, or when `budget` (values made) runs out.
fn resolve(
    v: &Value,
    env: &HashMap<String, Value>,
    depth: u8,
    budget: &mut usize,
) -> Option<Value> {
    if depth == 0 || *budget == 0 {
        return None;
    }
    *budget -= 1;
    Some(match v {
        Value::Str { s, line, f: true } => Value::Str {
            s: fill(s, env, depth - 1, budget)?,
            line: *line,
            f: false,
        },
        Value::Str { s, .. } => {
            *budget = budget.checked_sub(s.len() / 64)?;
            v.clone()
        }
        Value::Name(n) => resolve(env.get(n)?, env, depth - 1, budget)?,
        Value::List(items) => Value::List(
            items
                .iter()
                .map(|i| resolve(i, env, depth, budget))
                .collect::<Option<_>>()?,
        ),
        Value::Dict(items) => Value::Dict(
            items
                .iter()
                .map(|(k, v)| {
                    Some((
                        resolve(k, env, depth, budget)?,
                        resolve(v, env, depth, budget)?,
                    ))
                })
                .collect::<Option<_>>()?,
        ),
        Value::Concat(terms) => {
            let (first, rest) = terms.split_first()?;
            match resolve(first, env, depth, budget)? {
                Value::List(mut all) => {
                    for t in rest {
                        let Value::List(more) = resolve(t, env, depth, budget)? else {
                            return None;
                        };
                        all.extend(more);
                    }
                    Value::List(all)
                }
                Value::Str { mut s, line, .. } => {
                    for t in rest {
                        let Value::Str { s: more, .. } = resolve(t, env, depth, budget)? else {
                            return None;
                        };
                        s.push_str(&more);
                        *budget = budget.checked_sub(more.len() / 64)?;
                    }
                    Value::Str { s, line, f: false }
                }
                _ => return None,
            }
        }
        Value::Call(..) | Value::Unknown => return None,
    })
}

/// An f-string's `{name}`s filled with the strings the file binds them to (at most `depth`
/// names deep, within `budget`).
fn fill(s: &str, env: &HashMap<String, Value>, depth: u8, budget: &mut usize) -> Option<String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}')? + open;
        let name = &rest[open + 1..close];
        match resolve(env.get(name)?, env, depth, budget)? {
            Value::Str { s, .. } => out.push_str(&s),
            _ => return None,
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// A list of strings (a lone string is its lines, as setuptools reads one), with lines.
fn strings(v: &Value) -> Option<Vec<(u32, String)>> {
    match v {
        Value::List(items) => items
            .iter()
            .map(|i| match i {
                Value::Str { s, line, .. } => Some((*line, s.trim().to_string())),
                _ => None,
            })
            .collect(),
        Value::Str { s, line, .. } => Some(
            s.lines()
                .enumerate()
                .map(|(n, l)| {
                    (
                        line + n as u32,
                        l.split(" #").next().unwrap_or("").trim().to_string(),
                    )
                })
                .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
                .collect(),
        ),
        _ => None,
    }
}

/// Reads a `setup.py` whose one `setup(...)` call (`setup`, `setuptools.setup`) declares its
/// requirements in literals; `None` when there is no such call or any requirement it passes
/// (`install_requires`, `extras_require`, `tests_require`) is computed. Its name, packages,
/// `package_dir` and `py_modules` are taken when literal and left out otherwise.
pub fn read(text: &str) -> Option<SetupCfg> {
    let toks = tokens(text);
    let mut depth = 0;
    for (t, _) in &toks {
        match t {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            _ => {}
        }
        if depth > MAX_DEPTH {
            return None;
        }
    }
    let env = bindings(&toks);
    // setuptools' (or distutils') `setup`, imported by name or called on the module; a file
    // that binds `setup` to anything else (`def setup`, `setup = …`) is not read.
    let imported = text.lines().any(|l| {
        let l = l.trim_start();
        (l.starts_with("from setuptools import") || l.starts_with("from distutils.core import"))
            && l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| w == "setup")
    });
    let setup = Tok::Name("setup".to_string());
    let rebound = toks.windows(2).any(|w| {
        (w[0].0 == Tok::Name("def".to_string()) && w[1].0 == setup)
            || (w[0].0 == setup && matches!(w[1].0, Tok::Punct('=') | Tok::AugAssign))
    });
    if !imported && !text.contains("import setuptools") || rebound {
        return None;
    }
    let mut calls = toks.iter().enumerate().filter(|(i, (t, _))| {
        let on = |m: &str| {
            i.checked_sub(2).and_then(|p| toks.get(p)).map(|(t, _)| t)
                == Some(&Tok::Name(m.to_string()))
        };
        let after_dot =
            i.checked_sub(1).and_then(|p| toks.get(p)).map(|(t, _)| t) == Some(&Tok::Punct('.'));
        matches!(t, Tok::Name(n) if n == "setup")
            && toks.get(i + 1).map(|(t, _)| t) == Some(&Tok::Punct('('))
            && (!after_dot && imported || after_dot && on("setuptools"))
            && !matches!(toks.get(i.wrapping_sub(1)), Some((Tok::Name(d), _)) if d == "def")
    });
    let (at, _) = calls.next()?;
    if calls.next().is_some() {
        return None;
    }
    let mut p = Parser { toks: &toks, at };
    let Value::Call(name, kwargs) = p.term() else {
        return None;
    };
    if name.ends_with("(…)") {
        return None;
    }
    let arg = |k: &str| kwargs.iter().find(|(n, _)| n == k).map(|(_, v)| v);
    let mut budget = BUDGET;
    let mut requirements = Vec::new();
    for (key, what) in [("install_requires", "normal"), ("tests_require", "dev")] {
        if let Some(v) = arg(key) {
            let reqs = strings(&resolve(v, &env, 8, &mut budget)?)?;
            requirements.extend(reqs.into_iter().map(|(l, r)| (r, what, l)));
        }
    }
    let mut computed_extras = false;
    if let Some(v) = arg("extras_require") {
        // A name bound to the dict (through names, as `resolve` follows them); its values
        // are resolved one by one below.
        let mut v = v;
        for _ in 0..8 {
            match v {
                Value::Name(n) => v = env.get(n)?,
                _ => break,
            }
        }
        let Value::Dict(extras) = v else {
            return None;
        };
        for (_, reqs) in extras {
            // An extra a call computes (`"dev": read_requirements()`) is not read; the others
            // and `install_requires` still are. Anything else unread leaves the file unread.
            match resolve(reqs, &env, 8, &mut budget)
                .as_ref()
                .and_then(strings)
            {
                Some(reqs) => requirements.extend(reqs.into_iter().map(|(l, r)| (r, "extra", l))),
                None if matches!(reqs, Value::Call(..)) => computed_extras = true,
                None => return None,
            }
        }
    }
    let mut project = toml::Table::new();
    if let Some(Value::Str { s, .. }) = arg("name").and_then(|v| resolve(v, &env, 8, &mut budget)) {
        project.insert("name".into(), toml::Value::String(s));
    }
    let mut setuptools = toml::Table::new();
    let list = |v: Vec<(u32, String)>| {
        toml::Value::Array(v.into_iter().map(|(_, s)| toml::Value::String(s)).collect())
    };
    match arg("packages").map(|v| (v, resolve(v, &env, 8, &mut budget))) {
        Some((_, Some(v))) => {
            if let Some(names) = strings(&v) {
                setuptools.insert("packages".into(), list(names));
            }
        }
        Some((Value::Call(f, kw), None))
            if f.ends_with("find_packages") || f.ends_with("find_namespace_packages") =>
        {
            let mut find = toml::Table::new();
            for (k, v) in kw {
                if let Some(words) = resolve(v, &env, 8, &mut budget).as_ref().and_then(strings) {
                    find.insert(k.clone(), list(words));
                }
            }
            let mut packages = toml::Table::new();
            packages.insert("find".into(), toml::Value::Table(find));
            setuptools.insert("packages".into(), toml::Value::Table(packages));
        }
        _ => {}
    }
    if let Some(Value::Dict(dirs)) =
        arg("package_dir").and_then(|v| resolve(v, &env, 8, &mut budget))
    {
        let dirs: toml::Table = dirs
            .into_iter()
            .filter_map(|(k, v)| match (k, v) {
                (Value::Str { s: k, .. }, Value::Str { s: v, .. }) => {
                    Some((k, toml::Value::String(v)))
                }
                _ => None,
            })
            .collect();
        setuptools.insert("package-dir".into(), toml::Value::Table(dirs));
    }
    if let Some(names) = arg("py_modules")
        .and_then(|v| resolve(v, &env, 8, &mut budget))
        .as_ref()
        .and_then(strings)
    {
        setuptools.insert("py-modules".into(), list(names));
    }
    let mut cfg = SetupCfg::new(project, setuptools, requirements);
    cfg.computed_extras = computed_extras;
    Some(cfg)
}

#[cfg(test)]
mod tests;
