//! One walk over the tokens: candidate crate names and the local names that hide them.

use super::MAX_USE_DEPTH;
use super::attrs::{matching, no_paths, string_paths};
use crate::lex::{Collector, Kind, Token, kind_at, punct_at};
use std::collections::HashMap;

/// Where a candidate crate name came from; decides which local names hide it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// The first segment of a `use` tree.
    Use,
    /// `extern crate name`, or a path with a leading `::` (`::serde::Serialize`): always a
    /// crate, whatever the file declares.
    Extern,
    /// A path written in place.
    Path,
    /// A `use` tree that is its root alone (`use name as other;`): since the 2018 edition it
    /// may name a function of the file as well as a crate.
    BareUse,
    /// A path an attribute writes as a string (`#[serde(with = "serde_bytes")]`): a use of a
    /// declared crate, never one owed (a compile-fail fixture names what does not exist).
    Attribute,
}

/// Walks the tokens once, gathering candidate crate names and the local names that hide them.
pub(super) struct Parser<'a, 't> {
    src: &'a str,
    toks: &'t [Token],
    /// (offset, name, origin) of every candidate, in source order.
    found: Vec<(usize, &'a str, Origin)>,
    /// Local names (`mod name`, `macro_rules! name`, a module a macro call makes), each with
    /// the byte range of the block that declares it: it hides a crate only there.
    local_mods: HashMap<&'a str, Vec<(usize, usize)>>,
    /// Names a `use` or `extern crate` binds to something other than a crate of that name,
    /// with the block each binding holds in.
    aliases: HashMap<&'a str, Vec<(usize, usize)>>,
    /// Byte ranges of `use` statements: an ignore marker on any of their lines counts.
    statements: Vec<(usize, usize)>,
    /// Per token, the index in `blocks` of the innermost `{…}` around it (`NO_BLOCK` at the
    /// top of the file).
    block_of: Vec<u32>,
    /// Byte ranges of the file's `{…}` blocks (an unclosed one runs to the end).
    blocks: Vec<(usize, usize)>,
    /// Per block, the block around it (`NO_BLOCK` at the top), and whether it is a macro
    /// call's body (`cfg_unix! { … }`), whose items expand into the block around it.
    parents: Vec<(u32, bool)>,
    /// Per block, whether it is a `mod name { … }` body: a module's items stand there.
    mod_bodies: Vec<bool>,
    /// The `use` keyword of the statement being read: its bindings hold in that one's block.
    use_at: usize,
    /// Byte ranges of the modules an item macro is called in (`bindgen!({ … });`), and the
    /// offsets of the macros' own roots: its output may bring a module a path there starts
    /// with.
    item_macros: Vec<(usize, usize)>,
    macro_roots: Vec<usize>,
    /// The crates item macros called by a bare name come from (`use wiggle::from_witx;`):
    /// never a module the macro writes.
    macro_crates: Vec<&'a str>,
    /// What each `use` binds a name to: its tree's root (`from_witx` → `wiggle`).
    use_roots: HashMap<&'a str, &'a str>,
    /// The file's own `macro_rules!` names, each with whether its body declares a `mod`.
    local_macros: HashMap<&'a str, bool>,
    /// Token ranges (the `macro_rules` keyword to its body's closing bracket) of the file's
    /// `macro_rules!` definitions: one defined inside another's rules is defined where that
    /// one expands.
    macro_defs: Vec<(usize, usize)>,
    /// Byte ranges of the blocks a glob import (`use crate::*;`, `use x::prelude::*;`, not
    /// one of the standard library's) is in scope in: it may bring a module whose name a path
    /// there starts with.
    globs: Vec<(usize, usize)>,
    /// Functions the file defines, with the block each is visible in: a bare `use` of one
    /// (`use byte_from_hex as pair;`) names it, not a crate.
    fns: HashMap<&'a str, Vec<(usize, usize)>>,
    /// Where the root of the use tree being read starts: a glob's own root is the crate it
    /// comes from, never a name it brings.
    root_at: usize,
    /// The roots of glob imports, by offset.
    glob_roots: Vec<usize>,
    /// In a file that writes code with `quote!`, the token ranges of its macro calls'
    /// arguments: a path with a leading `::` there is code handed on to a `quote!` (tauri's
    /// `literal_struct!(tokens, ::tauri::utils::Config, …)`), the generated code's import.
    token_args: Vec<(usize, usize)>,
    /// Byte ranges of the `quote!`-family calls' arguments: code written for other crates.
    quote_bodies: Vec<(usize, usize)>,
    /// Offsets of leading `::` paths in `token_args`: handed on to a `quote!`.
    handed_on: Vec<usize>,
}

/// The macros that write code as tokens for a proc macro to return: the paths in their
/// arguments are the expanding crate's, not this one's.
const QUOTE_MACROS: &[&str] = &[
    "quote",
    "quote_spanned",
    "parse_quote",
    "parse_quote_spanned",
];

/// Macros called at item level that make no module: what they expand to is statics, types,
/// impls or assertions (or the items of their body, which are read as written).
const NO_MODULES: &[&str] = &[
    "macro_rules",
    "thread_local",
    "lazy_static",
    "bitflags",
    "cfg_if",
    "compile_error",
    "const_assert",
    "const_assert_eq",
    "assert_impl_all",
    "assert_not_impl_any",
    "assert_eq_size",
    "assert_obj_safe",
    "pin_project",
    "doctest",
    "criterion_group",
    "criterion_main",
    "proptest",
    "prop_compose",
    "quickcheck",
    "global_asm",
];

/// `block_of` for a token outside every block.
const NO_BLOCK: u32 = u32::MAX;

impl<'a, 't> Parser<'a, 't> {
    /// A parser over `toks`, the tokens of `src`.
    pub(super) fn new(src: &'a str, toks: &'t [Token]) -> Parser<'a, 't> {
        let mut blocks: Vec<(usize, usize)> = Vec::new();
        let mut parents: Vec<(u32, bool)> = Vec::new();
        let mut mod_bodies: Vec<bool> = Vec::new();
        let mut block_of = Vec::with_capacity(toks.len());
        let mut open: Vec<u32> = Vec::new();
        for (i, t) in toks.iter().enumerate() {
            if t.is_punct(b'}')
                && let Some(b) = open.pop()
            {
                blocks[b as usize].1 = t.end;
            }
            block_of.push(open.last().copied().unwrap_or(NO_BLOCK));
            if t.is_punct(b'{') {
                let macro_body =
                    i >= 2 && punct_at(toks, i - 1, b'!') && kind_at(toks, i - 2, Kind::Ident);
                parents.push((open.last().copied().unwrap_or(NO_BLOCK), macro_body));
                mod_bodies.push(
                    i >= 2
                        && kind_at(toks, i - 1, Kind::Ident)
                        && toks[i - 2].kind == Kind::Ident
                        && toks[i - 2].text(src) == "mod",
                );
                open.push(blocks.len() as u32);
                blocks.push((t.start, usize::MAX));
            }
        }
        let quotes = toks.iter().enumerate().any(|(i, t)| {
            t.kind == Kind::Ident
                && QUOTE_MACROS.contains(&t.value(src))
                && punct_at(toks, i + 1, b'!')
        });
        // In a file that writes code, every macro call's arguments (`token_args`); those of
        // the `quote!` family are the code written (`quote_bodies`, as byte ranges).
        let calls: Vec<(usize, usize)> = match quotes {
            true => (0..toks.len())
                .filter(|&i| {
                    kind_at(toks, i, Kind::Ident)
                        && punct_at(toks, i + 1, b'!')
                        && matches!(
                            toks.get(i + 2).map(|t| t.kind),
                            Some(Kind::Punct(b'(' | b'[' | b'{'))
                        )
                })
                .map(|i| (i, matching(toks, i + 2)))
                .collect(),
            false => Vec::new(),
        };
        let quote_bodies = (calls.iter())
            .filter(|&&(i, _)| QUOTE_MACROS.contains(&toks[i].value(src)))
            .map(|&(i, close)| {
                let end = toks.get(close).map_or(src.len(), |t| t.end);
                (toks[i + 2].start, end)
            })
            .collect();
        let token_args = calls.iter().map(|&(i, close)| (i + 2, close)).collect();
        let macro_defs: Vec<(usize, usize)> = (0..toks.len())
            .filter(|&i| {
                toks[i].kind == Kind::Ident
                    && toks[i].text(src) == "macro_rules"
                    && punct_at(toks, i + 1, b'!')
                    && kind_at(toks, i + 2, Kind::Ident)
                    && matches!(
                        toks.get(i + 3).map(|t| t.kind),
                        Some(Kind::Punct(b'(' | b'[' | b'{'))
                    )
            })
            .map(|i| (i, matching(toks, i + 3).min(toks.len())))
            .collect();
        let local_macros = (macro_defs.iter())
            .map(|&(i, close)| {
                let makes_mod = (toks[i + 3..close].iter())
                    .any(|t| t.kind == Kind::Ident && t.text(src) == "mod");
                (toks[i + 2].value(src), makes_mod)
            })
            .collect();
        Parser {
            src,
            toks,
            found: Vec::new(),
            local_mods: HashMap::new(),
            aliases: HashMap::new(),
            statements: Vec::new(),
            block_of,
            blocks,
            parents,
            mod_bodies,
            use_at: 0,
            globs: Vec::new(),
            item_macros: Vec::new(),
            macro_roots: Vec::new(),
            macro_crates: Vec::new(),
            use_roots: HashMap::new(),
            local_macros,
            macro_defs,
            fns: HashMap::new(),
            root_at: usize::MAX,
            glob_roots: Vec::new(),
            token_args,
            quote_bodies,
            handed_on: Vec::new(),
        }
    }

    /// Visits every token, but those of attribute arguments that are no paths.
    pub(super) fn run(&mut self) {
        let skip = no_paths(self.toks, self.src);
        let mut next_skip = skip.iter().peekable();
        let mut i = 0;
        while i < self.toks.len() {
            while next_skip.peek().is_some_and(|&&(_, end)| end < i) {
                next_skip.next();
            }
            if let Some(&&(start, end)) = next_skip.peek()
                && start <= i
            {
                i = end + 1;
                continue;
            }
            i = self.step(i).max(i + 1);
        }
        // A crate an attribute names in a string (`#[serde(with = "serde_bytes")]`): the
        // derive writes it as a path there.
        for (start, end) in string_paths(self.toks, self.src) {
            let name = self.src.get(start..end).unwrap_or("");
            if name.starts_with(|c: char| c.is_ascii_lowercase()) && !is_reserved(name) {
                self.found.push((start, name, Origin::Attribute));
            }
        }
        self.found.sort_by_key(|&(offset, _, _)| offset);
    }

    /// Pushes the candidates that survive the file's local names into `c`.
    pub(super) fn report(&self, c: &mut Collector) {
        let within = |names: &HashMap<&str, Vec<(usize, usize)>>, name: &str, at: usize| {
            names
                .get(name)
                .is_some_and(|scopes| scopes.iter().any(|&(s, e)| s <= at && at < e))
        };
        for &(offset, name, origin) in &self.found {
            let hidden = origin != Origin::Extern
                && (within(&self.local_mods, name, offset)
                    || within(&self.aliases, name, offset)
                    || (origin == Origin::BareUse && within(&self.fns, name, offset)));
            if !hidden {
                match origin {
                    Origin::Attribute => c.push_optional(offset, name),
                    _ => c.push(offset, name),
                }
                if self.handed_on.contains(&offset)
                    || self
                        .quote_bodies
                        .iter()
                        .any(|&(s, e)| s <= offset && offset < e)
                {
                    c.generated(offset, offset + name.len());
                }
                let in_glob = self.globs.iter().any(|&(s, e)| s <= offset && offset < e);
                if origin != Origin::Extern && in_glob && !self.glob_roots.contains(&offset) {
                    c.glob_scoped(offset);
                }
                let by_macro = (self.item_macros.iter()).any(|&(s, e)| s <= offset && offset < e);
                if origin != Origin::Extern
                    && by_macro
                    && !self.macro_roots.contains(&offset)
                    && !self.macro_crates.contains(&name)
                {
                    c.macro_scoped(offset);
                }
            }
        }
        for &(start, end) in &self.statements {
            c.statement(start, end);
        }
    }

    /// The byte range a name declared at token `i` is visible in: its block, or the file.
    ///
    /// A name declared inside a `quote!` body is the generated code's: it is visible nowhere
    /// in this file (`quote! { use serde::de::*; }` brings nothing into the function around it).
    fn scope(&self, i: usize) -> (usize, usize) {
        let at = self.toks.get(i).map_or(0, |t| t.start);
        if self.quote_bodies.iter().any(|&(s, e)| s <= at && at < e) {
            return (0, 0);
        }
        let mut b = self.block_of.get(i).copied().unwrap_or(NO_BLOCK);
        // A macro call's body is no scope: what it declares expands around it.
        while let Some(&(parent, true)) = self.parents.get(b as usize) {
            b = parent;
        }
        match b {
            NO_BLOCK => (0, usize::MAX),
            b => self.blocks[b as usize],
        }
    }

    /// Records `name`, declared at token `i`, as a local name of its block.
    fn declare(&mut self, i: usize, name: &'a str) {
        let scope = self.scope(i);
        self.local_mods.entry(name).or_default().push(scope);
    }

    /// Handles the token at `i`; returns the index of the next one to visit.
    fn step(&mut self, i: usize) -> usize {
        match self.keyword(i) {
            "use" => {
                self.use_at = i;
                let end = self.use_tree(i + 1, None, None, 0);
                let last = self.toks.get(end).or(self.toks.last());
                if let (Some(first), Some(last)) = (self.toks.get(i), last) {
                    self.statements.push((first.start, last.end));
                }
                end
            }
            "extern" if self.keyword(i + 1) == "crate" => self.extern_crate(i + 2),
            "fn" if kind_at(self.toks, i + 1, Kind::Ident) => {
                let scope = self.scope(i);
                self.fns.entry(self.value(i + 1)).or_default().push(scope);
                i + 2
            }
            "mod" => {
                if kind_at(self.toks, i + 1, Kind::Ident) {
                    let name = self.value(i + 1);
                    let (start, end) = self.scope(i + 1);
                    if start == end {
                        // Visible nowhere: declared in a `quote!` body.
                        return i + 2;
                    }
                    // `mod serde { use serde::Serialize; }`: inside its own body the module's
                    // name is the crate's again (the module is its parent's item).
                    let scopes = match punct_at(self.toks, i + 2, b'{') {
                        true => {
                            let close = matching(self.toks, i + 2);
                            let body_end = self.toks.get(close).map_or(usize::MAX, |t| t.end);
                            vec![(start, self.toks[i + 2].start), (body_end, end)]
                        }
                        false => vec![(start, end)],
                    };
                    self.local_mods.entry(name).or_default().extend(scopes);
                }
                i + 2
            }
            // A local macro, which a `use` may re-export (`pub(crate) use generate_tests;`);
            // one defined in another's rules is defined where that one expands (surrealdb's
            // `keyword_t`, made by the macro that makes its keywords).
            "macro_rules"
                if punct_at(self.toks, i + 1, b'!') && kind_at(self.toks, i + 2, Kind::Ident) =>
            {
                let outer = (self.macro_defs.iter())
                    .filter(|&&(start, close)| start < i && i < close)
                    .map(|&(start, _)| start)
                    .min();
                match outer {
                    // Where the outer one expands is not known: the name answers a bare
                    // `use` of it anywhere its definition is visible, never a path.
                    Some(outer) => {
                        let scope = self.scope(outer);
                        self.fns.entry(self.value(i + 2)).or_default().push(scope);
                    }
                    None => self.declare(i + 2, self.value(i + 2)),
                }
                i + 3
            }
            // A type the file defines, whatever its case (a C API's `wasm_kind_t`), is a
            // path's root there (`wasm_kind_t::A`), not a crate.
            "struct" | "enum" | "union" | "trait" | "type"
                if kind_at(self.toks, i + 1, Kind::Ident)
                    // An `impl`'s or a trait's associated type is no path root by its name.
                    && (self.keyword(i) != "type" || self.in_module(i) || self.in_fn_body(i)) =>
            {
                self.declare(i + 1, self.value(i + 1));
                i + 2
            }
            // An item-level macro call naming one identifier makes a module of that name
            // (shadow-rs's `shadow!(build);`, then `build::BRANCH`).
            _ if kind_at(self.toks, i, Kind::Ident)
                && punct_at(self.toks, i + 1, b'!')
                && punct_at(self.toks, i + 2, b'(')
                && kind_at(self.toks, i + 3, Kind::Ident)
                && punct_at(self.toks, i + 4, b')')
                && punct_at(self.toks, i + 5, b';') =>
            {
                self.declare(i + 3, self.value(i + 3));
                i + 6
            }
            _ => {
                self.item_macro(i);
                self.path(i);
                i + 1
            }
        }
    }

    /// When token `i` is the name of a macro called where an item stands in a module
    /// (`wasmtime::component::bindgen!({ … });`, `wiggle::from_witx!({ … });` at a file's
    /// top or in a `mod { … }`), its output may bring modules (`exports`, `types`) the paths
    /// around it start with: they are macro-scoped there. The macro's own crate stays firm
    /// (written as its path's root, or the root of the `use` that names it). Macros known to
    /// make no module ([`NO_MODULES`]), the file's own `macro_rules!` whose body declares no
    /// `mod`, calls inside a function (statements) or inside `(…)`/`[…]` change nothing.
    fn item_macro(&mut self, i: usize) {
        if !(kind_at(self.toks, i, Kind::Ident)
            && punct_at(self.toks, i + 1, b'!')
            && matches!(
                self.toks.get(i + 2).map(|t| t.kind),
                Some(Kind::Punct(b'(' | b'[' | b'{'))
            ))
            || NO_MODULES.contains(&self.value(i))
            || self.local_macros.get(self.value(i)) == Some(&false)
        {
            return;
        }
        // Back over the macro's path (`a::b::name`, `::a::name`) to where it starts.
        let mut start = i;
        while start >= 2
            && self.toks[start - 1].kind == Kind::PathSep
            && kind_at(self.toks, start - 2, Kind::Ident)
        {
            start -= 2;
        }
        if start >= 1 && self.toks[start - 1].kind == Kind::PathSep {
            start -= 1;
        }
        let item_start = start == 0
            || matches!(
                self.toks[start - 1].kind,
                Kind::Punct(b';' | b'}' | b']' | b'{')
            );
        if !item_start || !self.in_module(i) || self.in_group(start) {
            return;
        }
        let scope = self.scope(i);
        if scope.0 == scope.1 {
            return;
        }
        self.item_macros.push(scope);
        if let Some(root) = self.toks.get(start).filter(|t| t.kind == Kind::Ident) {
            self.macro_roots.push(root.start);
        } else if let Some(root) = self.toks.get(start + 1) {
            self.macro_roots.push(root.start);
        }
        if start == i
            && let Some(root) = self.use_roots.get(self.value(i))
        {
            self.macro_crates.push(root);
        }
    }

    /// Whether token `start` stands inside a `(…)` or `[…]` of its block (an array type's
    /// length, `[u8; size!(u8)]`, is an expression, not an item). Looks back 256 tokens at
    /// most, to the block's start.
    fn in_group(&self, start: usize) -> bool {
        let mut depth = 0usize;
        for t in self.toks[start.saturating_sub(256)..start].iter().rev() {
            match t.kind {
                Kind::Punct(b')' | b']') => depth += 1,
                Kind::Punct(b'(' | b'[') if depth == 0 => return true,
                Kind::Punct(b'(' | b'[') => depth -= 1,
                Kind::Punct(b'{' | b'}') if depth == 0 => return false,
                _ => {}
            }
        }
        false
    }

    /// Whether token `i` stands in a block that is neither a module's nor a macro call's body,
    /// and whose opening `{` follows a `)` or a return type (a function's body), as far as
    /// one token tells: `fn f() {`, `fn f() -> T {`.
    fn in_fn_body(&self, i: usize) -> bool {
        let b = self.block_of.get(i).copied().unwrap_or(NO_BLOCK);
        let Some(&(open, _)) = self.blocks.get(b as usize) else {
            return false;
        };
        let Ok(at) = self.toks.binary_search_by(|t| t.start.cmp(&open)) else {
            return false;
        };
        at >= 1 && punct_at(self.toks, at - 1, b')')
    }

    /// Whether token `i` stands among a module's items: at the file's top, or in a
    /// `mod name { … }` body (a macro call's body is looked through), not in a function's.
    fn in_module(&self, i: usize) -> bool {
        let mut b = self.block_of.get(i).copied().unwrap_or(NO_BLOCK);
        while let Some(&(parent, true)) = self.parents.get(b as usize) {
            b = parent;
        }
        b == NO_BLOCK || self.mod_bodies.get(b as usize).copied().unwrap_or(false)
    }

    /// The text of an identifier token as a keyword (raw identifiers never match), else "".
    fn keyword(&self, i: usize) -> &'a str {
        match self.toks.get(i) {
            Some(t) if t.kind == Kind::Ident => t.text(self.src),
            _ => "",
        }
    }

    /// Whether the identifier at `i`, named `name`, is a keyword or another reserved name:
    /// a raw identifier (`r#type`, `r#async`) never is, whatever it spells.
    fn reserved(&self, i: usize, name: &str) -> bool {
        let raw = self
            .toks
            .get(i)
            .is_some_and(|t| t.text(self.src).starts_with("r#"));
        !raw && is_reserved(name)
    }

    /// The value of token `i` (an identifier's name), or "".
    fn value(&self, i: usize) -> &'a str {
        self.toks.get(i).map_or("", |t| t.value(self.src))
    }

    /// `extern crate name [as alias];`, after `crate`. Returns where it ends.
    fn extern_crate(&mut self, i: usize) -> usize {
        let Some(tok) = self.toks.get(i).filter(|t| t.kind == Kind::Ident) else {
            return i;
        };
        let name = tok.value(self.src);
        if name != "self" {
            self.found.push((tok.start, name, Origin::Extern));
        }
        if self.keyword(i + 1) == "as" && kind_at(self.toks, i + 2, Kind::Ident) {
            self.bind(i + 2, self.value(i + 2), Some(name));
            return i + 3;
        }
        i + 1
    }

    /// A path written in place: an identifier followed by `::` that starts a path.
    fn path(&mut self, i: usize) {
        let Some(tok) = self.toks.get(i).filter(|t| t.kind == Kind::Ident) else {
            return;
        };
        let follows = i
            .checked_sub(1)
            .and_then(|p| self.toks.get(p))
            .map(|t| t.kind);
        // `a::b` continues a path; a leading `::b` (nothing path-like before the `::`) is a
        // crate path of its own — after an attribute's `]` too (`#[from] ::cargo_metadata::Error`).
        let before_sep = i
            .checked_sub(2)
            .and_then(|p| self.toks.get(p))
            .map(|t| t.kind);
        // A keyword before the `::` ends no path: `match ::image::load(…)`, `impl ::serde::Serialize`.
        let keyword_before = i >= 2
            && kind_at(self.toks, i - 2, Kind::Ident)
            && precedes_path(self.toks[i - 2].text(self.src));
        let leading = follows == Some(Kind::PathSep)
            && (keyword_before
                || !matches!(
                    before_sep,
                    Some(Kind::Ident | Kind::Punct(b'>' | b')' | b'$'))
                ));
        let continues =
            !leading && matches!(follows, Some(Kind::PathSep | Kind::Punct(b'.' | b'$')));
        let name = tok.value(self.src);
        let turbofish = punct_at(self.toks, i + 2, b'<'); // `size_of::<T>()`: a generic item
        // `#[rust_analyzer::rust_fixture]`, `#[miri::…]`: a tool's attribute, no crate (a
        // path elsewhere may still be a crate of that name).
        let attribute_head = i >= 2
            && punct_at(self.toks, i - 1, b'[')
            && (punct_at(self.toks, i - 2, b'#')
                || (i >= 3
                    && punct_at(self.toks, i - 2, b'!')
                    && punct_at(self.toks, i - 3, b'#')));
        if attribute_head && matches!(name, "rust_analyzer" | "miri") {
            return;
        }
        // `#this_value::#variant` in a `quote!`: a variable interpolated, no crate.
        if follows == Some(Kind::Punct(b'#')) {
            return;
        }
        if leading && self.token_args.iter().any(|&(s, e)| s < i && i < e) {
            self.handed_on.push(tok.start);
        }
        if kind_at(self.toks, i + 1, Kind::PathSep)
            && !continues
            && !turbofish
            && name.starts_with(|c: char| c.is_ascii_lowercase())
            && !self.reserved(i, name)
        {
            // `::serde::Serialize` names the crate whatever the file declares.
            let origin = if leading {
                Origin::Extern
            } else {
                Origin::Path
            };
            self.found.push((tok.start, name, origin));
        }
    }

    /// A use tree at `i`: `[::] a::b::c [as d]`, `a::{…}`, `{…}`, `a::*`. `root` is the first
    /// segment of the enclosing path (`None` at the top: the next segment is the root) and
    /// `last` its last segment (what `self` in a group means). Returns where the tree ends.
    fn use_tree(
        &mut self,
        mut i: usize,
        mut root: Option<&'a str>,
        mut last: Option<&'a str>,
        depth: usize,
    ) -> usize {
        if root.is_none() && kind_at(self.toks, i, Kind::PathSep) {
            i += 1;
        }
        loop {
            match self.toks.get(i).map(|t| t.kind) {
                Some(Kind::Ident) => {
                    let name = self.value(i);
                    if root.is_none() {
                        root = Some(name);
                        self.use_root(i, name);
                        self.root_at = self.toks[i].start;
                        let bare = !kind_at(self.toks, i + 1, Kind::PathSep);
                        if let Some(last) = self.found.last_mut().filter(|_| bare)
                            && last.0 == self.root_at
                        {
                            last.2 = Origin::BareUse;
                        }
                    }
                    if name != "self" {
                        last = Some(name);
                    }
                    i += 1;
                    if kind_at(self.toks, i, Kind::PathSep) {
                        i += 1;
                        continue;
                    }
                    return self.use_binding(i, root, last);
                }
                Some(Kind::Punct(b'{')) if depth < MAX_USE_DEPTH => {
                    return self.use_group(i + 1, root, last, depth + 1);
                }
                Some(Kind::Punct(b'*')) => {
                    if !matches!(root, Some("std" | "core" | "alloc")) {
                        let scope = self.scope(self.use_at);
                        self.globs.push(scope);
                        self.glob_roots.push(self.root_at);
                    }
                    return i + 1;
                }
                _ => return i,
            }
        }
    }

    /// The elements of a `{…}` use group starting after its brace. Returns where it ends.
    fn use_group(
        &mut self,
        mut i: usize,
        root: Option<&'a str>,
        last: Option<&'a str>,
        depth: usize,
    ) -> usize {
        loop {
            if punct_at(self.toks, i, b'}') {
                return i + 1;
            }
            let next = self.use_tree(i, root, last, depth);
            if punct_at(self.toks, next, b',') {
                i = next + 1;
            } else if punct_at(self.toks, next, b'}') {
                return next + 1;
            } else {
                return next; // malformed or cut short
            }
        }
    }

    /// The name a finished use path binds: its alias after `as`, else its last segment.
    fn use_binding(&mut self, i: usize, root: Option<&'a str>, last: Option<&'a str>) -> usize {
        if self.keyword(i) == "as" && kind_at(self.toks, i + 1, Kind::Ident) {
            self.bind(self.use_at, self.value(i + 1), root);
            return i + 2;
        }
        if let Some(last) = last {
            self.bind(self.use_at, last, root);
        }
        i
    }

    /// Records the first segment of a use tree as a candidate, unless it is a path keyword.
    fn use_root(&mut self, i: usize, name: &'a str) {
        if let Some(tok) = self.toks.get(i)
            && !self.reserved(i, name)
            && name != "Self"
        {
            self.found.push((tok.start, name, Origin::Use));
        }
    }

    /// Records that `name` is bound locally, in the block of token `i`; binding a crate's own
    /// name (`use serde;`) hides nothing.
    fn bind(&mut self, i: usize, name: &'a str, root: Option<&'a str>) {
        if let Some(root) = root {
            self.use_roots.insert(name, root);
        }
        if Some(name) != root {
            let scope = self.scope(i);
            self.aliases.entry(name).or_default().push(scope);
        }
    }
}

/// Keywords after which a `::` starts a path of its own rather than continuing one.
fn precedes_path(word: &str) -> bool {
    matches!(
        word,
        "as" | "box"
            | "break"
            | "const"
            | "dyn"
            | "else"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "match"
            | "move"
            | "mut"
            | "ref"
            | "return"
            | "static"
            | "unsafe"
            | "where"
            | "while"
            | "yield"
    )
}

/// Keywords, primitive types and tool attribute namespaces (`#[allow(clippy::x)]`): never
/// a crate name, even when followed by `::`.
fn is_reserved(name: &str) -> bool {
    matches!(
        name,
        "clippy"
            | "rustdoc"
            | "rustfmt"
            | "diagnostic"
            | "as"
            | "async"
            | "await"
            | "break"
            | "const"
            | "continue"
            | "crate"
            | "dyn"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "yield"
            | "bool"
            | "char"
            | "str"
            | "f32"
            | "f64"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
    )
}
