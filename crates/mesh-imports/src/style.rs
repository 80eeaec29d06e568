//! Stylesheets (`.css`, `.scss`, `.sass`, `.less`): the names their at-rules load. A JS build
//! (vite, webpack, postcss) resolves `@import 'tailwindcss'` or Sass's
//! `@use '@scope/theme'` to a package as it resolves a JS import, so a package only a
//! stylesheet loads is still used. Comments, `url(…)`, remote addresses (`http:`, `//cdn…`)
//! and Sass's built-in modules (`sass:math`) name no package and are left out; a relative
//! path is kept as written (it is a file, as in a JS import).

use super::lex::{Collector, FileScan, at, block_comment, ident_end, line_comment, quoted_end};

/// The stylesheet languages, which differ in their comments and at-rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// Plain CSS: `/* */` comments only.
    Css,
    /// Sass's SCSS syntax: `//` comments, `@use` and `@forward` too.
    Scss,
    /// Sass's indented syntax: as SCSS, and `@import` may take a name unquoted.
    Sass,
    /// Less: `//` comments, `@import (options) "x"`.
    Less,
}

/// The stylesheet language of a path, by its extension.
pub fn syntax_of(path: &str) -> Option<Syntax> {
    let ext = path.rsplit_once('.')?.1;
    match ext {
        "css" => Some(Syntax::Css),
        "scss" => Some(Syntax::Scss),
        "sass" => Some(Syntax::Sass),
        "less" => Some(Syntax::Less),
        _ => None,
    }
}

/// The at-rules that load another stylesheet (or a plugin) by name: CSS `@import`, Sass's
/// `@use` and `@forward`, Tailwind's and Less's `@plugin`, Tailwind's `@reference`.
const LOADING: &[&str] = &["import", "use", "forward", "plugin", "reference"];

/// Scans a stylesheet: every name a loading at-rule gives, each at its own line.
pub fn scan_file(src: &str, syntax: Syntax) -> FileScan {
    let b = src.as_bytes();
    let mut c = Collector::new(src);
    let slashes = syntax != Syntax::Css;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if at(b, i + 1) == b'*' => i = block_comment(&mut c, b, i, false),
            b'/' if slashes && at(b, i + 1) == b'/' => i = line_comment(&mut c, b, i),
            q @ (b'"' | b'\'') => i = quoted_end(b, i + 1, q, false).1,
            b'u' | b'U' if is_url(b, i) => i = url_end(b, i),
            b'@' => {
                let end = ident_end_dashed(b, i + 1);
                let rule = src.get(i + 1..end).unwrap_or("").to_ascii_lowercase();
                i = match LOADING.contains(&rule.as_str()) {
                    true => arguments(&mut c, src, end, syntax),
                    false => end.max(i + 1),
                };
            }
            _ => i += 1,
        }
    }
    FileScan {
        imports: c.finish().into(),
        ..FileScan::default()
    }
}

/// The end of an at-rule's or a property's name: letters, digits, `_` and `-`.
fn ident_end_dashed(b: &[u8], i: usize) -> usize {
    let mut j = i;
    loop {
        let k = ident_end(b, j);
        if at(b, k) == b'-' {
            j = k + 1;
        } else {
            return k;
        }
    }
}

/// Whether `url(` starts at `i` (any case), not inside a longer name.
fn is_url(b: &[u8], i: usize) -> bool {
    let before = i.checked_sub(1).map(|p| b[p]);
    let word = before.is_none_or(|p| !(p.is_ascii_alphanumeric() || p == b'-' || p == b'_'));
    word && b
        .get(i..i + 4)
        .is_some_and(|w| w.eq_ignore_ascii_case(b"url("))
}

/// Where the `url(…)` starting at `i` ends: after its `)`, a quoted argument skipped whole.
fn url_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 4;
    while let Some(&ch) = b.get(j) {
        match ch {
            b'"' | b'\'' => j = quoted_end(b, j + 1, ch, false).1,
            b')' | b'\n' => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// Reads a loading at-rule's names from `i` (just past its name) to the end of its value:
/// quoted names separated by commas (Sass's `@import 'a', 'b'`), after Less's `(options)`;
/// an unquoted name only in the indented syntax. Returns where reading stopped.
fn arguments(c: &mut Collector, src: &str, mut i: usize, syntax: Syntax) -> usize {
    let b = src.as_bytes();
    let blank = |b: &[u8], mut j: usize| {
        while matches!(at(b, j), b' ' | b'\t' | b'\r') {
            j += 1;
        }
        j
    };
    i = blank(b, i);
    if syntax == Syntax::Less && at(b, i) == b'(' {
        while i < b.len() && !matches!(b[i], b')' | b'\n') {
            i += 1;
        }
        i = blank(b, i + 1);
    }
    loop {
        match at(b, i) {
            q @ (b'"' | b'\'') => {
                let (content_end, end) = quoted_end(b, i + 1, q, false);
                push_name(c, i + 1, src.get(i + 1..content_end).unwrap_or(""));
                i = end;
            }
            b'u' | b'U' if is_url(b, i) => i = url_end(b, i),
            ch if syntax == Syntax::Sass && ch != 0 && !b";,{\n ".contains(&ch) => {
                let end = b[i..]
                    .iter()
                    .position(|c| b";,{\n \t\r".contains(c))
                    .map_or(b.len(), |p| i + p);
                push_name(c, i, src.get(i..end).unwrap_or(""));
                i = end;
            }
            _ => return i,
        }
        let next = blank(b, i);
        if at(b, next) != b',' {
            return next;
        }
        i = blank(b, next + 1);
        // A list goes on only with another name (CSS media queries follow a comma too).
        if !matches!(at(b, i), b'"' | b'\'') && syntax != Syntax::Sass {
            return i;
        }
    }
}

/// Records `name` (starting at `offset`) unless it names no package or file: a remote
/// address, a Sass built-in module, an interpolated name. webpack's `~pkg` is `pkg`.
fn push_name(c: &mut Collector, offset: usize, name: &str) {
    let name = name.trim();
    let remote = name.starts_with("//") || name.contains("://") || name.starts_with("data:");
    let builtin = name.starts_with("sass:");
    let interpolated = name.contains("#{") || name.contains("@{");
    if remote || builtin || interpolated {
        return;
    }
    // A path into `node_modules` (`@import "node_modules/bootstrap/dist/css/bootstrap.css"`,
    // `../../node_modules/x/y.scss`) names the package after it.
    if let Some(at) = name.rfind("node_modules/")
        && (at == 0 || name[..at].ends_with('/'))
    {
        let pkg = &name[at + "node_modules/".len()..];
        if !pkg.is_empty() && !pkg.starts_with(['/', '.']) {
            c.push(offset + at + "node_modules/".len(), pkg);
        }
        return;
    }
    match name.strip_prefix('~') {
        Some(pkg) if !pkg.starts_with('/') && !pkg.is_empty() => c.push(offset + 1, pkg),
        _ => c.push(offset, name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lex::tests::{assert_survives, pairs};

    fn imports(src: &str, syntax: Syntax) -> Vec<(u32, String)> {
        pairs(&scan_file(src, syntax).imports)
            .into_iter()
            .map(|(l, n)| (l, n.to_string()))
            .collect()
    }

    fn names(src: &str, syntax: Syntax) -> Vec<String> {
        imports(src, syntax).into_iter().map(|(_, n)| n).collect()
    }

    #[test]
    fn css_imports_a_package_and_not_a_url() {
        // Tailwind 4's entry stylesheet, beside the forms a CSS file imports files by.
        let src = "/* @import 'commented'; */\n@import 'tailwindcss';\n@import url('https://fonts.googleapis.com/css2?family=Inter');\n@import url(./local.css);\n@import \"./theme.css\" screen, print;\n@plugin '@tailwindcss/typography';\n.a { background: url(\"x.png\"); }\n";
        assert_eq!(
            imports(src, Syntax::Css),
            [
                (2, "tailwindcss".to_string()),
                (5, "./theme.css".to_string()),
                (6, "@tailwindcss/typography".to_string())
            ]
        );
        // A path into node_modules names the package after it (paperless' global styles).
        assert_eq!(
            names(
                "@import \"node_modules/bootstrap/dist/css/bootstrap.css\";\n@import '../../node_modules/@scope/ui/x.scss';\n@import './my_node_modules/a.css';\n",
                Syntax::Scss
            ),
            [
                "bootstrap/dist/css/bootstrap.css",
                "@scope/ui/x.scss",
                "./my_node_modules/a.css"
            ]
        );
        // `//` is no comment in CSS: a remote address is still not a package.
        assert!(names("@import '//cdn.example.com/x.css';", Syntax::Css).is_empty());
    }

    #[test]
    fn sass_use_forward_and_builtins() {
        // A Sass entry that loads a package, a built-in module and partials.
        let src = "@use 'sass:math';\n// @use 'commented';\n@use '@acme/scss-theme' as theme;\n@forward \"src/list\" hide list-reset;\n@import 'a', 'b';\n@import '~bootstrap/scss/bootstrap';\n.x { width: math.div(1, 2); }\n";
        assert_eq!(
            imports(src, Syntax::Scss),
            [
                (3, "@acme/scss-theme".to_string()),
                (4, "src/list".to_string()),
                (5, "a".to_string()),
                (5, "b".to_string()),
                (6, "bootstrap/scss/bootstrap".to_string())
            ]
        );
        assert_eq!(
            names(
                "@use \"sass:map\"\n@import normalize, ./local\n",
                Syntax::Sass
            ),
            ["normalize", "./local"]
        );
        assert!(names("@import 'x-#{$theme}';", Syntax::Scss).is_empty());
        assert!(names("@import \"@{themes}/tidal.less\";", Syntax::Less).is_empty());
    }

    #[test]
    fn less_options_and_variables() {
        let src = "@import (reference) \"@acme/less-mixins\";\n@plugin \"my-plugin\";\n@import-color: red;\n@primary: ~\"@{x}\";\n";
        assert_eq!(names(src, Syntax::Less), ["@acme/less-mixins", "my-plugin"]);
    }

    #[test]
    fn syntax_by_extension() {
        assert_eq!(syntax_of("a/b.css"), Some(Syntax::Css));
        assert_eq!(syntax_of("a/_b.scss"), Some(Syntax::Scss));
        assert_eq!(syntax_of("b.sass"), Some(Syntax::Sass));
        assert_eq!(syntax_of("b.less"), Some(Syntax::Less));
        assert_eq!(syntax_of("b.js"), None);
    }

    #[test]
    fn stylesheets_survive_garbage() {
        assert_survives(|s| scan_file(s, Syntax::Css));
        assert_survives(|s| scan_file(s, Syntax::Scss));
        assert_survives(|s| scan_file(s, Syntax::Sass));
        assert_survives(|s| scan_file(s, Syntax::Less));
    }
}
