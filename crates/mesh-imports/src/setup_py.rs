//! `setup.py` read without running it, when its `setup(...)` call says what it declares in
//! literals: strings, lists, dicts, `+`, and names the file binds once to such a value
//! (`plugin_requires = ["flytekit>=1.3"]` … `install_requires=plugin_requires`). Read as the
//! `setup.cfg` it stands for ([`SetupCfg`]), so one reader of packages and dependencies serves
//! all three files. Anything computed (a call, a comprehension, a name changed after it is
//! bound, `**kwargs`) makes the file unread: setuptools would have to run it, and a
//! dependency list mesh guessed at would make findings no one could trust.

use crate::setup_cfg::SetupCfg;
use std::collections::HashMap;

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
    /// `+=`, `**`, a number, an operator mesh does not evaluate.
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
                let (s, next, lines) = string(b, i);
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
                    let (s, next, lines) = string(b, i);
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
                // `+` alone is concatenation; `+=`, `**` and the rest are what mesh does not
                // evaluate.
                let two = matches!(b.get(i + 1), Some(b'='))
                    || (c == b'*' && b.get(i + 1) == Some(&b'*'));
                out.push((
                    match (c, two) {
                        (b'+', false) => Tok::Punct('+'),
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
/// Escapes keep the escaped character; an unterminated string ends the file.
fn string(b: &[u8], i: usize) -> (String, usize, u32) {
    let q = b[i];
    let triple = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
    let mut j = i + if triple { 3 } else { 1 };
    let mut s = Vec::new();
    let mut lines = 0;
    while j < b.len() {
        let c = b[j];
        if c == b'\\' && j + 1 < b.len() {
            if b[j + 1] == b'\n' {
                lines += 1;
            } else {
                s.push(b[j + 1]);
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
    Add(Box<Value>, Box<Value>),
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
        let mut v = self.term();
        while self.eat('+') {
            let rhs = self.term();
            v = Value::Add(Box::new(v), Box::new(rhs));
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

/// What the file binds at its top level, once: a name bound twice, in a block, or changed
/// after (`x += […]`, `x.append(…)`, `x.extend(…)`) is none of these.
fn bindings(toks: &[(Tok, u32)]) -> HashMap<String, Value> {
    let mut out = HashMap::new();
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut changed = Vec::new();
    let mut at = 0;
    let mut start = true;
    while at < toks.len() {
        let (t, _) = &toks[at];
        if *t == Tok::End {
            start = true;
            at += 1;
            continue;
        }
        if *t == Tok::Indent {
            // A name bound in a block (`if …:` `reqs = […]`) may be bound or not.
            if let (Some((Tok::Name(n), _)), Some((Tok::Punct('='), _))) =
                (toks.get(at + 1), toks.get(at + 2))
            {
                changed.push(n.clone());
            }
            start = false;
            at += 1;
            continue;
        }
        if let Tok::Name(n) = t {
            match toks.get(at + 1).map(|(t, _)| t) {
                Some(Tok::Punct('=')) if start => {
                    *seen.entry(n.clone()).or_default() += 1;
                    let mut p = Parser { toks, at: at + 2 };
                    out.insert(n.clone(), p.expr());
                    at = p.at;
                    start = false;
                    continue;
                }
                Some(Tok::Other) => changed.push(n.clone()),
                Some(Tok::Punct('.')) => {
                    if let Some((Tok::Name(m), _)) = toks.get(at + 2)
                        && matches!(m.as_str(), "append" | "extend" | "insert" | "update")
                    {
                        changed.push(n.clone());
                    }
                }
                _ => {}
            }
        }
        start = false;
        at += 1;
    }
    for (n, times) in seen {
        if times > 1 {
            out.insert(n, Value::Unknown);
        }
    }
    for n in changed {
        out.insert(n, Value::Unknown);
    }
    out
}

/// `v` with names resolved (at most `depth` deep) and f-strings filled: `None` when any part
/// is not a literal.
fn resolve(v: &Value, env: &HashMap<String, Value>, depth: u8) -> Option<Value> {
    if depth == 0 {
        return None;
    }
    Some(match v {
        Value::Str { s, line, f: true } => Value::Str {
            s: fill(s, env)?,
            line: *line,
            f: false,
        },
        Value::Str { .. } => v.clone(),
        Value::Name(n) => resolve(env.get(n)?, env, depth - 1)?,
        Value::List(items) => Value::List(
            items
                .iter()
                .map(|i| resolve(i, env, depth))
                .collect::<Option<_>>()?,
        ),
        Value::Dict(items) => Value::Dict(
            items
                .iter()
                .map(|(k, v)| Some((resolve(k, env, depth)?, resolve(v, env, depth)?)))
                .collect::<Option<_>>()?,
        ),
        Value::Add(a, b) => match (resolve(a, env, depth)?, resolve(b, env, depth)?) {
            (Value::List(mut a), Value::List(b)) => {
                a.extend(b);
                Value::List(a)
            }
            (Value::Str { s, line, .. }, Value::Str { s: t, .. }) => Value::Str {
                s: s + &t,
                line,
                f: false,
            },
            _ => return None,
        },
        Value::Call(..) | Value::Unknown => return None,
    })
}

/// An f-string's `{name}`s filled with the strings the file binds them to.
fn fill(s: &str, env: &HashMap<String, Value>) -> Option<String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}')? + open;
        let name = &rest[open + 1..close];
        match resolve(env.get(name)?, env, 4)? {
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
    let env = bindings(&toks);
    let mut calls = toks.iter().enumerate().filter(|(i, (t, _))| {
        matches!(t, Tok::Name(n) if n == "setup" || n == "setuptools.setup")
            && toks.get(i + 1).map(|(t, _)| t) == Some(&Tok::Punct('('))
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
    let mut requirements = Vec::new();
    for (key, what) in [("install_requires", "normal"), ("tests_require", "dev")] {
        if let Some(v) = arg(key) {
            let reqs = strings(&resolve(v, &env, 8)?)?;
            requirements.extend(reqs.into_iter().map(|(l, r)| (r, what, l)));
        }
    }
    if let Some(v) = arg("extras_require") {
        let Value::Dict(extras) = resolve(v, &env, 8)? else {
            return None;
        };
        for (_, reqs) in extras {
            let reqs = strings(&reqs)?;
            requirements.extend(reqs.into_iter().map(|(l, r)| (r, "extra", l)));
        }
    }
    let mut project = toml::Table::new();
    if let Some(Value::Str { s, .. }) = arg("name").and_then(|v| resolve(v, &env, 8)) {
        project.insert("name".into(), toml::Value::String(s));
    }
    let mut setuptools = toml::Table::new();
    let list = |v: Vec<(u32, String)>| {
        toml::Value::Array(v.into_iter().map(|(_, s)| toml::Value::String(s)).collect())
    };
    match arg("packages").map(|v| (v, resolve(v, &env, 8))) {
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
                if let Some(words) = resolve(v, &env, 8).as_ref().and_then(strings) {
                    find.insert(k.clone(), list(words));
                }
            }
            let mut packages = toml::Table::new();
            packages.insert("find".into(), toml::Value::Table(find));
            setuptools.insert("packages".into(), toml::Value::Table(packages));
        }
        _ => {}
    }
    if let Some(Value::Dict(dirs)) = arg("package_dir").and_then(|v| resolve(v, &env, 8)) {
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
        .and_then(|v| resolve(v, &env, 8))
        .as_ref()
        .and_then(strings)
    {
        setuptools.insert("py-modules".into(), list(names));
    }
    Some(SetupCfg::new(project, setuptools, requirements))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reqs(cfg: &SetupCfg) -> Vec<(String, &'static str, u32)> {
        cfg.requirements.clone()
    }

    #[test]
    fn names_bound_once_and_f_strings_are_read() {
        let text = "from setuptools import setup\n\nPLUGIN_NAME = \"athena\"\n\nmicrolib_name = f\"flytekitplugins-{PLUGIN_NAME}\"\n\nplugin_requires = [\"flytekit>=1.3.0b2,<2.0.0\", 'boto3']  # AWS\n\nsetup(\n    name=microlib_name,\n    namespace_packages=[\"flytekitplugins\"],\n    packages=[f\"flytekitplugins.{PLUGIN_NAME}\"],\n    install_requires=plugin_requires,\n    extras_require={\"dev\": [\"pytest\"], \"all\": plugin_requires + [\"x\"]},\n    license=\"apache2\",\n)\n";
        let cfg = read(text).expect("static");
        assert_eq!(
            reqs(&cfg),
            [
                ("flytekit>=1.3.0b2,<2.0.0".to_string(), "normal", 7),
                ("boto3".to_string(), "normal", 7),
                ("pytest".to_string(), "extra", 14),
                ("flytekit>=1.3.0b2,<2.0.0".to_string(), "extra", 7),
                ("boto3".to_string(), "extra", 7),
                ("x".to_string(), "extra", 14),
            ]
        );
        let want: toml::Table = toml::from_str(
            "[project]\nname = \"flytekitplugins-athena\"\ndependencies = [\"flytekit>=1.3.0b2,<2.0.0\", \"boto3\"]\n[tool.setuptools]\npackages = [\"flytekitplugins.athena\"]\n",
        )
        .expect("toml");
        assert_eq!(cfg.table, want);
    }

    #[test]
    fn find_packages_package_dir_and_a_string_of_lines() {
        let text = "import setuptools\nsetuptools.setup(name='a-b', package_dir={'': 'src'},\n  packages=setuptools.find_packages(where='src', exclude=['tests*']),\n  install_requires='''\n    requests>=2  # http\n    # a comment\n    rich\n''', tests_require=('pytest',))\n";
        let cfg = read(text).expect("static");
        assert_eq!(
            reqs(&cfg),
            [
                ("requests>=2".to_string(), "normal", 5),
                ("rich".to_string(), "normal", 7),
                ("pytest".to_string(), "dev", 8),
            ]
        );
        let want: toml::Table = toml::from_str(
            "[project]\nname = \"a-b\"\ndependencies = [\"requests>=2\", \"rich\"]\n[tool.setuptools]\npackage-dir = { \"\" = \"src\" }\npackages = { find = { where = [\"src\"], exclude = [\"tests*\"] } }\n",
        )
        .expect("toml");
        assert_eq!(cfg.table, want);
    }

    #[test]
    fn what_setuptools_would_have_to_run_is_not_read() {
        let computed = [
            // a call
            "from setuptools import setup\nsetup(name='a', install_requires=open('requirements.txt').read().splitlines())\n",
            // a comprehension
            "from setuptools import setup\nreqs = [l for l in open('r.txt')]\nsetup(install_requires=reqs)\n",
            // a name changed after it is bound, or bound in a block
            "from setuptools import setup\nreqs = ['a']\nif True:\n    reqs.append('b')\nsetup(install_requires=reqs)\n",
            "from setuptools import setup\nif PY2:\n    reqs = ['a']\nsetup(install_requires=reqs)\n",
            "from setuptools import setup\nreqs = ['a']\nreqs += ['b']\nsetup(install_requires=reqs)\n",
            // bound twice
            "from setuptools import setup\nreqs = ['a']\nreqs = ['b']\nsetup(install_requires=reqs)\n",
            // keywords from elsewhere
            "from setuptools import setup\nsetup(**kwargs)\n",
            "from setuptools import setup\nsetup(name='a', **extra, install_requires=['a'])\n",
            // an unknown name, a conditional, two calls, none
            "from setuptools import setup\nsetup(install_requires=REQS)\n",
            "from setuptools import setup\nsetup(install_requires=['a'] if x else ['b'])\n",
            "setup(install_requires=['a'])\nsetup(install_requires=['b'])\n",
            "print('no setup call')\n",
            "def setup(x):\n    pass\n",
        ];
        for text in computed {
            assert!(read(text).is_none(), "{text}");
        }
    }

    #[test]
    fn odd_input_never_panics() {
        for text in [
            "",
            "setup(",
            "setup(install_requires=[",
            "x = '",
            "setup(name=f'{'",
            "'''",
            "setup(install_requires={'a': ",
            "setup(extras_require={'a' 'b'})",
            "a.b.(",
            "setup(\\\n)",
            "é = 'x'\nsetup(name=é)",
        ] {
            let _ = read(text);
        }
        assert!(read("setup()").is_some_and(|c| c.requirements.is_empty()));
    }
}
