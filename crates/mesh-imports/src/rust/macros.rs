//! The macro facts of a Rust file (see [`RustMacros`]): the macros it calls, and what each
//! of its `#[macro_export]` macros names where it expands.

use crate::lex::{
    Collector, ExportedMacro, Import, Kind, LineCursor, MacroCall, RustMacros, Token, kind_at,
    punct_at,
};

/// The standard library's macros: calls of them are left out (most files call several, and
/// no crate of a workspace shadows them to name another crate).
const STD_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "cfg",
    "column",
    "compile_error",
    "concat",
    "dbg",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "env",
    "eprint",
    "eprintln",
    "file",
    "format",
    "format_args",
    "include",
    "include_bytes",
    "include_str",
    "line",
    "matches",
    "module_path",
    "option_env",
    "panic",
    "print",
    "println",
    "stringify",
    "thread_local",
    "todo",
    "unimplemented",
    "unreachable",
    "vec",
    "write",
    "writeln",
];

/// An exported `macro_rules!` found by the scanner: its name, the token of its
/// `macro_rules`, and the byte range of its body.
pub(super) struct Exported<'a> {
    pub(super) name: &'a str,
    pub(super) at: usize,
    pub(super) body: (usize, usize),
}

/// A call found before the imports are finished: byte offset, path, name, kind.
pub(super) struct Found<'a> {
    offset: usize,
    path: Option<String>,
    name: &'a str,
    kind: crate::ImportKind,
}

/// Every macro call of the file's tokens (`name!` then a bracket; a `$name!` of a macro's
/// matcher and `macro_rules!` itself are no calls), with the kind an import there would have.
pub(super) fn calls<'a>(toks: &[Token], src: &'a str, c: &Collector) -> Vec<Found<'a>> {
    let mut out = Vec::new();
    for i in 0..toks.len() {
        if !(kind_at(toks, i, Kind::Ident)
            && punct_at(toks, i + 1, b'!')
            && matches!(
                toks.get(i + 2).map(|t| t.kind),
                Some(Kind::Punct(b'(' | b'[' | b'{'))
            ))
        {
            continue;
        }
        let name = toks[i].value(src);
        if name == "macro_rules"
            || STD_MACROS.contains(&name)
            || (i > 0 && punct_at(toks, i - 1, b'$'))
        {
            continue;
        }
        // Back over `a::b::` to the path's first segment; `$crate` keeps its mark.
        let mut first = i;
        while first >= 2
            && kind_at(toks, first - 1, Kind::PathSep)
            && kind_at(toks, first - 2, Kind::Ident)
        {
            first -= 2;
        }
        let path = (first < i).then(|| {
            let word = toks[first].value(src);
            match first > 0 && punct_at(toks, first - 1, b'$') {
                true => format!("${word}"),
                false => word.to_string(),
            }
        });
        out.push(Found {
            offset: toks[i].start,
            path,
            name,
            kind: c.kind_of(toks[i].start),
        });
    }
    out
}

/// The file's facts from its calls, its exported macros and its finished imports (whose
/// `generated` ones inside an exported body are what that macro names): none when it has
/// neither calls nor exported macros.
pub(super) fn facts(
    src: &str,
    found: Vec<Found>,
    exported: &[Exported],
    toks: &[Token],
    imports: &[Import],
) -> Option<RustMacros> {
    if found.is_empty() && exported.is_empty() {
        return None;
    }
    let mut lines = LineCursor::new(src);
    let mut out = RustMacros::default();
    let mut bodies: Vec<ExportedMacro> = exported
        .iter()
        .map(|e| {
            let line = lines.line_of(toks[e.at].start);
            let (first, last) = (lines.line_of(e.body.0), lines.line_of(e.body.1));
            let mut names: Vec<String> = (imports.iter())
                .filter(|i| i.generated && i.in_macro && (first..=last).contains(&i.line))
                .map(|i| i.name.clone())
                .filter(|n| !matches!(n.as_str(), "std" | "core" | "alloc"))
                .collect();
            names.sort();
            names.dedup();
            ExportedMacro {
                name: e.name.to_string(),
                line,
                names,
                calls: Vec::new(),
            }
        })
        .collect();
    let mut lines = LineCursor::new(src);
    for f in found {
        let call = MacroCall {
            path: f.path,
            name: f.name.to_string(),
            line: lines.line_of(f.offset),
            kind: f.kind,
        };
        // The innermost exported body holding it (a macro defined inside another's).
        let inside = (exported.iter().enumerate())
            .filter(|(_, e)| (e.body.0..e.body.1).contains(&f.offset))
            .min_by_key(|(_, e)| e.body.1 - e.body.0)
            .map(|(k, _)| k);
        let list = match inside {
            Some(k) => &mut bodies[k].calls,
            None => &mut out.calls,
        };
        if !list
            .iter()
            .any(|c| c.path == call.path && c.name == call.name && c.kind == call.kind)
        {
            list.push(call);
        }
    }
    out.exported = bodies;
    Some(out)
}
