//! Secret files of the mesh directory (`secrets/<module>/<NAME>.age`): their plain-text
//! header read by `mesh::secrets::Index::read` and their age body opened by
//! `mesh::secrets::open` with the controller's key; and, on the same input, an age file as
//! `mesh_proto::secret::decrypt` reads one (a node's secrets) and a decrypted delivery
//! (`mesh_proto::secret::Delivery::from_bytes`).
//!
//! The first byte picks the file: 0, the input as written; 1, a valid file (the value from
//! the input) with one byte changed, where and to what chosen by the input; 2, a valid
//! header and an age body encrypted to the controller holding the input (so the decrypted
//! bytes, too short or not, are the input's).
//!
//! Properties: no panic; a file that opens gives a value whose keyed digest is the one its
//! header says, and a changed file never opens to another value than the one written.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use mesh_fuzz::Input;

/// The header and armored age body of a secret file holding `plain` (digest key + value).
fn file(module: &str, name: &str, digest: &str, plain: &[u8]) -> Vec<u8> {
    let me = mesh::controller::age_identity(&mesh_fuzz::controller()).to_public();
    let sealed = mesh_proto::secret::encrypt(&[me], plain).expect("the harness encrypts");
    let mut out = format!(
        "{} {module}/{name} (the value is encrypted below; this file may be committed)\n# set-by: fuzz\n# set-at: 2026-12-04T08:00:00Z\n# digest: {digest}\n",
        mesh::secrets::HEADER
    )
    .into_bytes();
    let mut w = age::armor::ArmoredWriter::wrap_output(&mut out, age::armor::Format::AsciiArmor)
        .expect("the harness armors");
    w.write_all(&sealed).expect("the harness armors");
    w.finish().expect("the harness armors");
    out
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let mode = input.byte() % 3;
    let key = [3u8; 32];
    let (bytes, written) = match mode {
        0 => (input.rest().to_vec(), None),
        1 => {
            let at = input.u32() as usize;
            let to = input.byte();
            let value = input.rest().to_vec();
            let digest = mesh_proto::secret::digest(&key, &value);
            let mut plain = key.to_vec();
            plain.extend_from_slice(&value);
            let mut bytes = file("db", "PASSWORD", &digest, &plain);
            let at = at % bytes.len();
            bytes[at] = if bytes[at] == to { to ^ 0x20 } else { to };
            (bytes, Some(value))
        }
        _ => {
            let plain = input.rest();
            let digest = match plain.len() >= 32 {
                true => {
                    let mut k = [0u8; 32];
                    k.copy_from_slice(&plain[..32]);
                    mesh_proto::secret::digest(&k, &plain[32..])
                }
                false => "ab".repeat(32),
            };
            (file("db", "PASSWORD", &digest, plain), None)
        }
    };

    let t = mesh_fuzz::scratch();
    let dir = t.path().join("secrets").join("db");
    std::fs::create_dir_all(&dir).expect("the harness makes the secrets folder");
    std::fs::write(dir.join("PASSWORD.age"), &bytes).expect("the harness writes the file");
    let me = mesh::controller::age_identity(&mesh_fuzz::controller());
    if let Ok(index) = mesh::secrets::Index::read(t.path()) {
        for entry in index.entries() {
            assert!(mesh_proto::names::is_digest(&entry.digest), "{entry:?}");
            if let Ok(opened) = mesh::secrets::open(entry, &me) {
                assert_eq!(
                    mesh_proto::secret::digest(&opened.key, &opened.value),
                    entry.digest,
                    "an opened value has the digest its header says"
                );
                if let Some(written) = &written {
                    assert_eq!(
                        &opened.value[..],
                        &written[..],
                        "a changed file opened to another value"
                    );
                }
            }
        }
    }

    // The same bytes as a node's age file, and as a decrypted delivery.
    let node = mesh_fuzz::node_age_identity();
    let limit = 1 << 16;
    if let Ok(plain) = mesh_proto::secret::decrypt(&node, &bytes, limit) {
        assert!(plain.len() <= limit);
    }
    if let Ok(delivery) = mesh_proto::secret::Delivery::from_bytes(data) {
        let again = mesh_proto::secret::Delivery::from_bytes(&delivery.to_bytes())
            .expect("a delivery encoded again decodes");
        assert_eq!(again.declaration, delivery.declaration);
        assert_eq!(again.values.len(), delivery.values.len());
    }
});
