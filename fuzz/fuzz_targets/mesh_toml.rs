//! `mesh.toml` (`mesh::config::MeshConfig::parse`): the input as the file's text (lossily
//! UTF-8, as a file read with a bad byte would never get this far).
//!
//! Properties: no panic; a mistake is a diagnostic whose span lies inside the file and that
//! renders (the graphical report a terminal shows) without a panic and without showing a
//! URL's password; a parsed file names only valid names.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mesh_fuzz::config::check_diagnostic;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match mesh::config::MeshConfig::parse(&text, "mesh.toml", std::path::Path::new("/m")) {
        Ok(mesh) => {
            assert!(mesh::config::is_valid_name(&mesh.name));
            for node in mesh.nodes.keys() {
                assert!(mesh::config::is_valid_name(node), "{node:?}");
            }
        }
        Err(e) => check_diagnostic(&e, &text),
    }
});
