//! Files whose imports live inside other markup: single-file components (`.svelte`, `.vue`,
//! `.astro`), whose imports are in `<script>` blocks (and Astro's `---` frontmatter); HTML
//! pages, whose inline `<script type="module">` bodies import as a JS file does (vite's
//! entry is `index.html`); stylesheets, read by [`crate::style`]; and Jupyter notebooks,
//! whose code cells [`crate::notebook`] reads as Python. The JS/TS scanner
//! reads a component or page with everything outside those blocks blanked, so every import
//! keeps its line number.

use crate::lex::FileScan;
use crate::style::{self, Syntax};

/// Which kind of file a path is, when its imports are not the whole file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Component {
    /// Svelte or Vue: its `<script>` blocks.
    Script,
    /// Astro: its `---` frontmatter too.
    Astro,
    /// An HTML page: its inline module scripts only (`<script type="module">` without
    /// `src`). A classic script cannot `import`, and a `src` names a file, not a package.
    Html,
    /// A stylesheet: its `@import`, `@use`, `@forward` rules.
    Style(Syntax),
    /// A Jupyter notebook: its code cells' Python (see [`crate::notebook`]).
    Notebook,
}

/// The kind of file a path is, if its imports are read from parts of it.
pub fn of(path: &str) -> Option<Component> {
    if crate::notebook::is_notebook(path) {
        Some(Component::Notebook)
    } else if path.ends_with(".astro") {
        Some(Component::Astro)
    } else if path.ends_with(".svelte") || path.ends_with(".vue") {
        Some(Component::Script)
    } else if path.ends_with(".html") || path.ends_with(".htm") {
        Some(Component::Html)
    } else {
        style::syntax_of(path).map(Component::Style)
    }
}

/// The imports of a file of kind `kind`: a stylesheet's at-rules, else the JS scanner's over
/// its script blocks. A component with no script block says so (for `-v`); a page with no
/// module script is ordinary and says nothing.
pub fn scan(kind: Component, src: &str) -> FileScan {
    match kind {
        Component::Style(syntax) => return style::scan_file(src, syntax),
        Component::Notebook => return crate::notebook::scan(src),
        _ => {}
    }
    let (script, blocks) = script_blocks(src, kind);
    let mut scan = crate::js::scan_file(&script);
    if blocks == 0 && kind != Component::Html {
        scan.notes.push("no <script> block: no imports".into());
    }
    scan
}

/// The file's text with every byte outside its script blocks turned into a space (newlines
/// kept), and how many blocks it has. A file with no script block gives only blanks; one
/// with several keeps each. A block left open runs to the end of the file. HTML comments are
/// not searched.
pub fn script_blocks(src: &str, kind: Component) -> (String, usize) {
    let b = src.as_bytes();
    let mut keep = vec![false; b.len()];
    let mut blocks = 0;
    if kind == Component::Astro && frontmatter(b, &mut keep) {
        blocks += 1;
    }
    let lower = src.to_ascii_lowercase();
    let lb = lower.as_bytes();
    let mut i = 0;
    while i < lb.len() {
        if lb[i..].starts_with(b"<!--") {
            i = find(lb, i + 4, b"-->").map_or(lb.len(), |e| e + 3);
            continue;
        }
        let opens = lb[i..].starts_with(b"<script")
            && matches!(
                lb.get(i + 7),
                Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/')
            );
        if !opens {
            i += 1;
            continue;
        }
        let Some(tag_end) = find(lb, i + 7, b">") else {
            break;
        };
        if lb[tag_end - 1] == b'/' {
            i = tag_end + 1; // `<script src="…" />`: no content
            continue;
        }
        let content = tag_end + 1;
        let end = find(lb, content, b"</script").unwrap_or(lb.len());
        let tag = lower.get(i + 7..tag_end).unwrap_or("");
        if kind != Component::Html || module_script(tag) {
            keep[content..end].iter_mut().for_each(|k| *k = true);
            blocks += 1;
        }
        i = end.max(content);
    }
    let out: Vec<u8> = b
        .iter()
        .zip(&keep)
        .map(|(&c, &k)| if k || c == b'\n' { c } else { b' ' })
        .collect();
    // Only whole ASCII bytes were replaced by spaces and whole blocks kept, but a block
    // boundary may fall inside a multi-byte character of odd markup: decode lossily.
    (String::from_utf8_lossy(&out).into_owned(), blocks)
}

/// Whether a `<script` tag's attributes (lowercased) make an inline module script:
/// `type="module"` (quoted or not) and no `src`.
fn module_script(tag: &str) -> bool {
    attribute(tag, "type").is_some_and(|t| t.trim() == "module") && attribute(tag, "src").is_none()
}

/// The value of attribute `name` in a tag's attribute text (`""` for one without a value).
fn attribute<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let b = tag.as_bytes();
    let mut from = 0;
    while let Some(p) = tag.get(from..)?.find(name) {
        let start = from + p;
        from = start + name.len();
        let word_before = start == 0 || b[start - 1].is_ascii_whitespace();
        let rest = tag.get(from..)?.trim_start();
        let word_after = rest.is_empty() || rest.starts_with(['=', '/']) || {
            tag.get(from..)
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_whitespace()))
        };
        if !word_before || !word_after {
            continue;
        }
        let Some(value) = rest.strip_prefix('=').map(str::trim_start) else {
            return Some("");
        };
        return Some(match value.chars().next() {
            Some(q @ ('"' | '\'')) => value[1..].split(q).next().unwrap_or(""),
            _ => value
                .split(|c: char| c.is_ascii_whitespace() || c == '/')
                .next()
                .unwrap_or(""),
        });
    }
    None
}

/// [`script_blocks`]' text alone.
pub fn script_text(src: &str, path: &str) -> String {
    script_blocks(src, of(path).unwrap_or(Component::Script)).0
}

/// Astro's frontmatter: from a first line `---` to the next line `---`. Whether there is one.
fn frontmatter(b: &[u8], keep: &mut [bool]) -> bool {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    if !b[start..].starts_with(b"---") {
        return false;
    }
    let content = start + 3;
    let mut i = content;
    while let Some(nl) = find(b, i, b"\n") {
        let line = &b[nl + 1..];
        if line.starts_with(b"---") {
            keep[content..nl].iter_mut().for_each(|k| *k = true);
            return true;
        }
        i = nl + 1;
    }
    keep[content..].iter_mut().for_each(|k| *k = true);
    true
}

/// The offset of `needle` at or after `from`.
fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js;
    use crate::lex::tests::{assert_survives, pairs};

    fn imports(src: &str, path: &str) -> Vec<(u32, String)> {
        pairs(&js::scan_file(&script_text(src, path)).imports)
            .into_iter()
            .map(|(l, n)| (l, n.to_string()))
            .collect()
    }

    #[test]
    fn svelte_script_blocks() {
        let src = "<script context=\"module\">\n  import a from '@x/a';\n</script>\n<script lang=\"ts\">\n  import { b } from \"@x/b\";\n</script>\n<p>import c from 'c'</p>\n<!-- <script>import d from 'd'</script> -->\n";
        assert_eq!(
            imports(src, "src/App.svelte"),
            [(2, "@x/a".to_string()), (5, "@x/b".to_string())]
        );
    }

    #[test]
    fn vue_setup_and_no_script() {
        let src = "<template><div/></template>\n<SCRIPT setup>\nimport Foo from '../foo/index.js'\n</SCRIPT>\n";
        assert_eq!(imports(src, "C.vue"), [(3, "../foo/index.js".to_string())]);
        assert!(imports("<template>import x from 'y'</template>", "C.vue").is_empty());
        assert!(imports("<script src=\"x.js\" />import a from 'b'", "C.vue").is_empty());
    }

    #[test]
    fn astro_frontmatter_and_scripts() {
        let src = "---\nimport Layout from '@site/layout';\nconst x = 1;\n---\n<Layout/>\n<script>\nimport '@site/analytics';\n</script>\n";
        assert_eq!(
            imports(src, "src/pages/index.astro"),
            [
                (2, "@site/layout".to_string()),
                (7, "@site/analytics".to_string())
            ]
        );
    }

    #[test]
    fn html_module_scripts_only() {
        // A vite playground's `index.html`: an inline module script importing a package, a
        // classic script, an entry by `src`, and one in a comment.
        let src = "<!doctype html>\n<script type=\"module\" src=\"./main.js\"></script>\n<script>\n  import('not-a-module-script')\n</script>\n<div id=app></div>\n<!-- <script type=module>import 'gone'</script> -->\n<script type=\"module\">\n  import { isSelfReference } from '@vitejs/self-referencing/test'\n  import './local.js'\n</script>\n<SCRIPT TYPE='module' defer>\nimport x from \"@acme/x\"\n</SCRIPT>\n";
        assert_eq!(
            imports(src, "playground/nested-deps/index.html"),
            [
                (9, "@vitejs/self-referencing/test".to_string()),
                (10, "./local.js".to_string()),
                (13, "@acme/x".to_string())
            ]
        );
        let scan = super::scan(Component::Html, "<p>no scripts</p>");
        assert!(scan.imports.is_empty() && scan.notes.is_empty());
        assert!(module_script(" type=module"));
        assert!(module_script(" async type = \"module\""));
        assert!(!module_script(" type=\"module\" src=\"/src/main.ts\""));
        assert!(!module_script(" data-type=\"module\""));
        assert!(!module_script(" type=\"text/babel\""));
    }

    #[test]
    fn stylesheets_and_components_by_path() {
        assert_eq!(of("a/index.html"), Some(Component::Html));
        assert_eq!(of("a/x.scss"), Some(Component::Style(Syntax::Scss)));
        assert_eq!(of("a/x.vue"), Some(Component::Script));
        assert_eq!(of("a/x.ts"), None);
        let scan = super::scan(Component::Style(Syntax::Css), "@import 'tailwindcss';\n");
        assert_eq!(pairs(&scan.imports), [(1, "tailwindcss")]);
        let scan = super::scan(Component::Script, "<template/>");
        assert_eq!(scan.notes, ["no <script> block: no imports"]);
    }

    #[test]
    fn blocks_are_counted() {
        assert_eq!(script_blocks("<p/>", Component::Script).1, 0);
        assert_eq!(
            script_blocks("<script></script><script>x</script>", Component::Script).1,
            2
        );
        assert_eq!(script_blocks("---\nx\n---\n", Component::Astro).1, 1);
    }

    #[test]
    fn an_open_block_runs_to_the_end() {
        let src = "<script>\nimport a from 'a'\n";
        assert_eq!(imports(src, "x.svelte"), [(2, "a".to_string())]);
        assert!(imports("<script", "x.svelte").is_empty());
    }

    #[test]
    fn components_survive_garbage() {
        assert_survives(|s| js::scan_file(&script_text(s, "a.astro")));
        assert_survives(|s| js::scan_file(&script_text(&format!("<script>{s}"), "a.vue")));
        assert_survives(|s| super::scan(Component::Html, &format!("<script type=module>{s}")));
        assert_survives(|s| super::scan(Component::Html, s));
    }
}
