//! The Python import scanner (`mesh_imports::scan_file(Language::Python, …)`): the input as a
//! source file, decoded as mesh decodes one (lossily UTF-8), or, by the first byte, as a
//! Jupyter notebook (its code cells read as Python).
//!
//! Properties: it terminates (libFuzzer's timeout) and never panics; every import lies on a
//! line of the file, its text within the cap; the output is bounded by the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mesh_imports::Language;
use mesh_imports::component::{self, Component};

fuzz_target!(|data: &[u8]| {
    let (kind, rest) = data.split_first().map_or((0, data), |(k, r)| (*k, r));
    let src = mesh_fuzz::imports::text(rest);
    if kind % 2 == 0 {
        mesh_fuzz::imports::scan(Language::Python, &src);
    } else {
        let scan = component::scan(Component::Notebook, &src);
        mesh_fuzz::imports::check(&src, &scan);
    }
});
