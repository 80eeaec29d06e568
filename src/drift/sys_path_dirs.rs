//! The directories a Python file puts on `sys.path` where its code says which plainly: a
//! path built from `__file__` (`Path(__file__).resolve().parent`, `os.path.dirname(__file__)`,
//! `parents[2] / "studio"`, `os.path.join(HERE, "..", "lib")`), directly or through a name
//! assigned such a path earlier in the file. Anything else (a function's result, a string
//! relative to the working directory, an environment variable) is not evaluated.

/// A `sys.path` change whose directory is evaluated.
#[derive(Debug)]
pub(super) struct OnPath {
    /// Its 1-based line.
    pub line: u32,
    /// The line's text, cut at 120 characters.
    pub text: String,
    /// The directory, module-relative (`""` for the module's root).
    pub dir: String,
}

/// Each `sys.path` change of `text` (the module's file at `rel`, module-relative) whose
/// directory evaluates inside the module.
pub(super) fn sys_path_dirs(text: &str, rel: &str) -> Vec<OnPath> {
    let file: Vec<String> = rel.split('/').map(str::to_string).collect();
    let mut names: std::collections::HashMap<String, Vec<String>> = Default::default();
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = code_of(raw).trim();
        // A path a person writes fits on a line; a generated one is not evaluated.
        if line.is_empty() || line.len() > MAX_LINE {
            continue;
        }
        if let Some(arg) = inserted(line) {
            if let Some(dir) = eval(arg, &file, &names, 0) {
                out.push(OnPath {
                    line: n as u32 + 1,
                    text: raw.trim().chars().take(120).collect(),
                    dir: dir.join("/"),
                });
            }
            continue;
        }
        if let Some((name, value)) = assignment(line) {
            match eval(value, &file, &names, 0) {
                Some(path) => names.insert(name.to_string(), path),
                None => names.remove(name),
            };
        } else {
            // Bound another way (`X /= "sub"`, `a, X = …`, `for X in`, `with … as X`, `X :=`):
            // its value is no longer known.
            names.retain(|name, _| !rebinds(line, name));
        }
    }
    out
}

/// The longest line evaluated, and the deepest expression: past them it is not one a person
/// wrote by hand.
const MAX_LINE: usize = 2000;
const MAX_DEPTH: usize = 32;

/// Whether `line` (no plain assignment) may bind `name` anew: as the target of an augmented
/// assignment, in a tuple target, after `for`, `as` or before `:=`.
fn rebinds(line: &str, name: &str) -> bool {
    let words: Vec<&str> = line
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if !words.contains(&name) {
        return false;
    }
    let before_eq = line.split_once('=').map(|(l, _)| l);
    let augmented = before_eq.is_some_and(|l| {
        let l = l.trim_end();
        l.ends_with(['+', '-', '*', '/', '%', '&', '|', '^', '@', '<', '>']) && !l.ends_with("==")
    });
    let tuple = before_eq.is_some_and(|l| l.contains(','));
    let in_target = |l: &str| {
        l.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == name)
    };
    (augmented || tuple) && before_eq.is_some_and(in_target)
        || line.starts_with("for ") && line.split(" in ").next().is_some_and(in_target)
        || line.contains(" as ") && line.split(" as ").skip(1).any(in_target)
        || line.contains(":=")
}

/// The line without a comment (a `#` outside quotes).
fn code_of(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '#') => return &line[..i],
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    line
}

/// The directory argument of a `sys.path` change on `line`: `sys.path.insert(i, X)`,
/// `sys.path.append(X)`, `site.addsitedir(X)`.
fn inserted(line: &str) -> Option<&str> {
    for (call, nth) in [
        ("sys.path.insert(", 1),
        ("sys.path.append(", 0),
        ("addsitedir(", 0),
    ] {
        if let Some(at) = line.find(call) {
            let args = inside(&line[at + call.len() - 1..])?;
            return split_top(args, ',').get(nth).copied();
        }
    }
    None
}

/// `NAME = X` or `NAME: T = X` (one plain name on the left).
fn assignment(line: &str) -> Option<(&str, &str)> {
    let (left, right) = line.split_once('=')?;
    if right.starts_with('=') || left.ends_with(['!', '<', '>', '+', '-', '*', '/']) {
        return None;
    }
    let name = left.split(':').next()?.trim();
    let plain = !name.is_empty()
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    plain.then_some((name, right.trim()))
}

/// What is inside the brackets `s` opens with (`(a, (b))` → `a, (b)`), when they close.
fn inside(s: &str) -> Option<&str> {
    let open = s.chars().next()?;
    let close = match open {
        '(' => ')',
        '[' => ']',
        _ => return None,
    };
    let mut depth = 0;
    let mut quote = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, c) if c == open => depth += 1,
            (None, c) if c == close => {
                depth -= 1;
                if depth == 0 {
                    return Some(&s[1..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// `s` split at each `sep` outside brackets and quotes, each part trimmed.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut from) = (0i32, None, 0);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, c) if c == sep && depth == 0 => {
                out.push(s[from..i].trim());
                from = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(s[from..].trim());
    out
}

/// A string literal's text (`"a/b"`, `'x'`); no f-string, no concatenation.
fn literal(s: &str) -> Option<&str> {
    let q = s.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let body = s.strip_prefix(q)?.strip_suffix(q)?;
    (!body.contains(q) && !body.contains('\\')).then_some(body)
}

/// The path `expr` names, as module-relative parts (the file's own for `__file__`), when it is
/// built from `__file__` and names in `names` by the operations above; `None` when it leaves
/// the module or is anything else.
fn eval(
    expr: &str,
    file: &[String],
    names: &std::collections::HashMap<String, Vec<String>>,
    depth: usize,
) -> Option<Vec<String>> {
    let expr = expr.trim();
    if depth > MAX_DEPTH {
        return None;
    }
    let eval = |e: &str| eval(e, file, names, depth + 1);
    // `a / "b" / "c"`: the first part a path, the rest literals.
    let parts = split_top(expr, '/');
    if parts.len() > 1 {
        let mut path = eval(parts[0])?;
        for p in &parts[1..] {
            join(&mut path, literal(p)?)?;
        }
        return Some(path);
    }
    // A call that keeps the path: `str(…)`, `Path(…)`, `os.path.abspath(…)`.
    const KEEPING: &[&str] = &[
        "str",
        "os.fspath",
        "Path",
        "pathlib.Path",
        "PurePath",
        "os.path.abspath",
        "os.path.realpath",
        "os.path.normpath",
        "path.abspath",
        "path.realpath",
        "abspath",
        "realpath",
    ];
    const PARENT: &[&str] = &["os.path.dirname", "path.dirname", "dirname"];
    const JOIN: &[&str] = &["os.path.join", "path.join", "join"];
    if let Some(open) = expr.find('(')
        && let Some(args) = inside(&expr[open..])
        && open + args.len() + 2 == expr.len()
    {
        let callee = expr[..open].trim();
        let args = split_top(args, ',');
        if KEEPING.contains(&callee) && args.len() == 1 {
            return eval(args[0]);
        }
        if PARENT.contains(&callee) && args.len() == 1 {
            let mut path = eval(args[0])?;
            path.pop()?;
            return Some(path);
        }
        if JOIN.contains(&callee) {
            let mut path = eval(args.first()?)?;
            for a in &args[1..] {
                join(&mut path, literal(a)?)?;
            }
            return Some(path);
        }
    }
    // Methods and attributes on a path: `.resolve()`, `.parent`, `.parents[2]`.
    for (suffix, up) in [
        (".resolve()", 0),
        (".absolute()", 0),
        (".expanduser()", 0),
        (".parent", 1),
    ] {
        if let Some(base) = expr.strip_suffix(suffix) {
            let mut path = eval(base)?;
            for _ in 0..up {
                path.pop()?;
            }
            return Some(path);
        }
    }
    if let Some(base) = expr.strip_suffix(']')
        && let Some((base, n)) = base.rsplit_once(".parents[")
    {
        let mut path = eval(base)?;
        for _ in 0..=n.trim().parse::<usize>().ok()? {
            path.pop()?;
        }
        return Some(path);
    }
    match expr {
        "__file__" => Some(file.to_vec()),
        name => names.get(name).cloned(),
    }
}

/// `path` joined with the relative path `rel` (`..` goes up; an absolute one is refused).
fn join(path: &mut Vec<String>, rel: &str) -> Option<()> {
    if rel.starts_with('/') {
        return None;
    }
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                path.pop()?;
            }
            p => path.push(p.to_string()),
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The directories `text`, at `rel`, puts on sys.path.
    fn dirs(text: &str, rel: &str) -> Vec<String> {
        sys_path_dirs(text, rel)
            .into_iter()
            .map(|p| p.dir)
            .collect()
    }

    #[test]
    fn a_path_built_from_the_file_is_evaluated() {
        let rel = "tests/unit/test_a.py";
        assert_eq!(
            dirs(
                "sys.path.insert(0, str(Path(__file__).resolve().parent))",
                rel
            ),
            ["tests/unit"]
        );
        assert_eq!(
            dirs(
                "sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))",
                rel
            ),
            ["tests/unit"]
        );
        assert_eq!(
            dirs(
                "ROOT = Path(__file__).resolve().parents[2]\nsys.path.insert(0, str(ROOT / \"studio\"))  # studio",
                rel
            ),
            ["studio"]
        );
        assert_eq!(
            dirs(
                "HERE = os.path.dirname(__file__)\nsys.path.append(os.path.join(HERE, '..', 'support'))\n",
                rel
            ),
            ["tests/support"]
        );
        assert_eq!(
            dirs(
                "_ROOT: Path = Path(__file__).parent.parent\nif str(_ROOT) not in sys.path:\n    sys.path.insert(0, str(_ROOT / 'utils'))\n",
                rel
            ),
            ["tests/utils"]
        );
        assert_eq!(
            dirs("site.addsitedir(Path(__file__).parent / 'vendor')", rel),
            ["tests/unit/vendor"]
        );
    }

    #[test]
    fn what_is_not_built_from_the_file_is_not_evaluated() {
        let rel = "tests/test_a.py";
        // The working directory, a function's result, an environment variable, a name
        // assigned something else later, above the module's root.
        assert!(dirs("sys.path.insert(0, 'src')", rel).is_empty());
        assert!(dirs("ROOT = find_root()\nsys.path.insert(0, str(ROOT))", rel).is_empty());
        assert!(dirs("sys.path.append(os.environ['X'])", rel).is_empty());
        assert!(
            dirs(
                "D = Path(__file__).parent\nD = other()\nsys.path.insert(0, str(D))",
                rel
            )
            .is_empty()
        );
        assert!(dirs("sys.path.insert(0, str(Path(__file__).parents[3]))", rel).is_empty());
        // Said in a comment, or compared.
        assert!(dirs("# sys.path.insert(0, os.path.dirname(__file__))", rel).is_empty());
        assert!(
            dirs(
                "X == Path(__file__).parent\nsys.path.insert(0, str(X))",
                rel
            )
            .is_empty()
        );
        // Bound again another way: no longer known.
        for rebound in [
            "X /= 'vendor'",
            "X, Y = a, b",
            "for X in dirs:",
            "with open(p) as X:",
            "if (X := f()):",
        ] {
            let text = format!("X = Path(__file__).parent\n{rebound}\nsys.path.insert(0, str(X))");
            assert!(dirs(&text, rel).is_empty(), "{rebound}");
        }
        // A generated expression: not evaluated, and no stack to run out of.
        let deep = format!(
            "sys.path.insert(0, {}__file__{})",
            "str(".repeat(5000),
            ")".repeat(5000)
        );
        assert!(dirs(&deep, rel).is_empty());
        let nested = format!(
            "sys.path.insert(0, {}__file__{})",
            "str(".repeat(40),
            ")".repeat(40)
        );
        assert!(dirs(&nested, rel).is_empty());
    }
}
