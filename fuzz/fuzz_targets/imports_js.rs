//! The JS/TS import scanner (`mesh_imports::scan_file(Language::Js, …)`), on a script or, by
//! the first byte, on a single-file component (`.svelte`/`.vue`, `.astro`) read as mesh reads
//! one: its `<script>` blocks (and Astro's frontmatter) kept, everything else blanked.
//!
//! Properties: it terminates and never panics; the component's blanked text has the file's
//! lines (so every import keeps its line number); every import lies on a line of the file,
//! its text within the cap; the output is bounded by the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mesh_imports::Language;
use mesh_imports::component::{self, Component};

fuzz_target!(|data: &[u8]| {
    let (kind, rest) = data.split_first().map_or((0, data), |(k, r)| (*k, r));
    let src = mesh_fuzz::imports::text(rest);
    let kind = match kind % 3 {
        0 => None,
        1 => Some(Component::Script),
        _ => Some(Component::Astro),
    };
    match kind {
        None => {
            mesh_fuzz::imports::scan(Language::Js, &src);
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
