//! The Go import scanner (`mesh_imports::scan_file(Language::Go, …)`): the input as a
//! source file, decoded as mesh decodes one (lossily UTF-8).
//!
//! Properties: it terminates (libFuzzer's timeout) and never panics; every import lies on a
//! line of the file, its text within the cap; the output is bounded by the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mesh_imports::Language;

fuzz_target!(|data: &[u8]| {
    let src = mesh_fuzz::imports::text(data);
    mesh_fuzz::imports::scan(Language::Go, &src);
});
