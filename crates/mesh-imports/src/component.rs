//! Single-file components (`.svelte`, `.vue`, `.astro`): their imports live in `<script>`
//! blocks (and Astro's `---` frontmatter). The JS/TS scanner reads the file with everything
//! outside those blocks blanked, so every import keeps its line number.

/// Which kind of component a file is: where its imports are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Component {
    /// Svelte or Vue: its `<script>` blocks.
    Script,
    /// Astro: its `---` frontmatter too.
    Astro,
}

/// The kind of component a path is, if it is one whose script blocks hold its imports.
pub fn of(path: &str) -> Option<Component> {
    if path.ends_with(".astro") {
        Some(Component::Astro)
    } else if path.ends_with(".svelte") || path.ends_with(".vue") {
        Some(Component::Script)
    } else {
        None
    }
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
        keep[content..end].iter_mut().for_each(|k| *k = true);
        blocks += 1;
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
    }
}
