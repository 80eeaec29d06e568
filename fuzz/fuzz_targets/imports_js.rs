//! The JS/TS import scanner (`mesh_imports::scan_file(Language::Js, …)`), on a script or, by
//! the first byte, on a single-file component (`.svelte`/`.vue`, `.astro`) or an HTML page
//! read as mesh reads one: its `<script>` blocks (a page's module scripts only, Astro's
//! frontmatter too) kept, everything else blanked; or on a stylesheet (`.css`, `.scss`,
//! `.sass`, `.less`), read for its `@import`s.
//!
//! Properties: it terminates and never panics; the component's blanked text has the file's
//! lines (so every import keeps its line number); every import lies on a line of the file,
//! its text within the cap; the output is bounded by the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mesh_imports::Language;
use mesh_imports::component::{self, Component};
use mesh_imports::style::Syntax;

fuzz_target!(|data: &[u8]| {
    let (kind, rest) = data.split_first().map_or((0, data), |(k, r)| (*k, r));
    let src = mesh_fuzz::imports::text(rest);
    let kind = match kind % 8 {
        0 => None,
        1 => Some(Component::Script),
        2 => Some(Component::Astro),
        3 => Some(Component::Html),
        4 => Some(Component::Style(Syntax::Css)),
        5 => Some(Component::Style(Syntax::Scss)),
        6 => Some(Component::Style(Syntax::Sass)),
        _ => Some(Component::Style(Syntax::Less)),
    };
    match kind {
        None => {
            mesh_fuzz::imports::scan(Language::Js, &src);
        }
        Some(kind @ Component::Style(_)) => {
            let scan = component::scan(kind, &src);
            mesh_fuzz::imports::check(&src, &scan);
        }
        Some(kind) => {
            let (script, blocks) = component::script_blocks(&src, kind);
            assert_eq!(
                mesh_fuzz::line_count(&script),
                mesh_fuzz::line_count(&src),
                "a component's script text keeps its lines"
            );
            assert!(blocks <= src.len(), "{blocks} blocks");
            let scan = mesh_imports::scan_file(Language::Js, &script);
            mesh_fuzz::imports::check(&script, &scan);
        }
    }
});
