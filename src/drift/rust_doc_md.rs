//! Doc tests kept in Markdown: `#[doc = include_str!("docs.md")]` (or the crate's
//! `#![doc = include_str!("../README.md")]`) makes the file's Rust code blocks doc tests of
//! the crate, which `cargo test` compiles with its dev-dependencies (opendal's services show
//! their configuration so, with `#[tokio::main]`). The scan reads `.rs` files only, so what
//! those blocks use is read here, when a finding asks.

use crate::source::{RepoSnapshot, blob_text};
use mesh_imports::{Language, ScannedFile};
use std::collections::BTreeMap;

/// The crates (by the first segment of each path) the Markdown doc tests of the Rust files
/// `files` use, each with the Markdown file and line that first does. Read from the
/// repository at `snap`'s root; a file or include that cannot be read adds nothing.
pub(super) fn doc_test_crates(
    snap: &RepoSnapshot,
    files: &[ScannedFile],
) -> BTreeMap<String, (String, u32)> {
    let mut out = BTreeMap::new();
    let Ok(root) = snap.root_tree() else {
        return out;
    };
    let mut read = std::collections::HashSet::new();
    for f in files.iter().filter(|f| f.language == Language::Rust) {
        let Ok(Some(text)) = blob_text(snap, &root, &f.path) else {
            continue;
        };
        let dir = f.path.rsplit_once('/').map_or("", |(d, _)| d);
        for rel in doc_includes(&text) {
            let Some(path) = mesh_imports::place::relative_to(dir, rel) else {
                continue;
            };
            if !read.insert(path.clone()) {
                continue;
            }
            let Ok(Some(md)) = blob_text(snap, &root, &path) else {
                continue;
            };
            for (line, code) in rust_blocks(&md) {
                let scan = mesh_imports::scan_file(Language::Rust, &code);
                for imp in scan.imports.iter() {
                    let top = imp.name.split("::").next().unwrap_or(&imp.name);
                    out.entry(top.to_string())
                        .or_insert_with(|| (path.clone(), line + imp.line));
                }
            }
        }
    }
    out
}

/// The paths a file's doc attributes include (`#[doc = include_str!("docs.md")]`,
/// `#![doc = include_str!("../README.md")]`), as written.
fn doc_includes(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("include_str!(") {
        let before = rest[..at].trim_end();
        let after = &rest[at + "include_str!(".len()..];
        rest = after;
        if !before.ends_with('=') || !before[..before.len() - 1].trim_end().ends_with("doc") {
            continue;
        }
        let Some(lit) = after.trim_start().strip_prefix('"') else {
            continue;
        };
        if let Some((path, _)) = lit.split_once('"') {
            out.push(path);
        }
    }
    out
}

/// The Rust code blocks of a Markdown text that rustdoc compiles (a fence with no language,
/// or only `rust` and rustdoc's attributes: `no_run`, never `ignore` or `compile_fail`),
/// each with the line
/// before its first, and its hidden lines (`# use x;`) shown.
fn rust_blocks(md: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    // Inside a fence: the Rust block being read, or `None` for one not compiled.
    let mut fence: Option<Option<(u32, String)>> = None;
    for (n, line) in md.lines().enumerate() {
        let t = line.trim_start();
        if let Some(info) = t.strip_prefix("```") {
            match fence.take() {
                Some(block) => out.extend(block),
                None => {
                    // rustdoc compiles a block whose every word is `rust` or one of its
                    // attributes (`no_run`, `should_panic`, `edition2021`, …); any other
                    // word names another language, `ignore` skips it, and `compile_fail`
                    // is meant not to build (as for `///` blocks).
                    let compiled = info
                        .split([',', ' ', '\t'])
                        .map(str::trim)
                        .filter(|w| !w.is_empty())
                        .all(|w| {
                            matches!(
                                w,
                                "rust"
                                    | "no_run"
                                    | "should_panic"
                                    | "test_harness"
                                    | "standalone_crate"
                                    | "allow_fail"
                            ) || w.starts_with("edition")
                        });
                    fence = Some(compiled.then(|| (n as u32 + 1, String::new())));
                }
            }
            continue;
        }
        if let Some(Some((_, code))) = fence.as_mut() {
            let shown = t
                .strip_prefix("# ")
                .or(t.strip_prefix('#').filter(|r| r.is_empty()));
            code.push_str(shown.unwrap_or(line));
            code.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_attributes_name_their_markdown() {
        let text = "#![doc = include_str!(\"../README.md\")]\n#[doc = include_str!( \"docs.md\" )]\npub struct X;\nconst S: &str = include_str!(\"data.txt\");\n";
        assert_eq!(doc_includes(text), ["../README.md", "docs.md"]);
    }

    #[test]
    fn compiled_blocks_are_read_with_their_hidden_lines() {
        let md = "# Title\n\n```rust,no_run\n# use anyhow::Result;\n#[tokio::main]\nasync fn main() -> Result<()> { Ok(()) }\n```\n\n```text\nuse not_code::X;\n```\n\n```\nuse plain::Y;\n```\n```no_run\nuse run::Z;\n```\n```rust,ignore\nuse skipped::W;\n```\n";
        let blocks = rust_blocks(md);
        let lines: Vec<u32> = blocks.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [3, 13, 16]);
        assert!(!blocks.iter().any(|(_, c)| c.contains("skipped")));
        assert!(
            blocks[0]
                .1
                .starts_with("use anyhow::Result;\n#[tokio::main]")
        );
        assert!(!blocks.iter().any(|(_, c)| c.contains("not_code")));
    }
}
