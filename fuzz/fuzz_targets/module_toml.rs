//! `mesh-module.toml` (`mesh::config::ModuleManifest::parse`): the input as the file's text
//! (lossily UTF-8).
//!
//! Properties: no panic; a mistake is a diagnostic whose span lies inside the file and that
//! renders without a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mesh_fuzz::config::check_diagnostic;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(e) = mesh::config::ModuleManifest::parse(&text, "svc/mesh-module.toml") {
        check_diagnostic(&e, &text);
    }
});
