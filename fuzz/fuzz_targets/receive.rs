//! The receive stream (`mesh_node::receive`) into a fresh node root, the stream chosen by
//! the first byte:
//!
//! 0. the input as the whole stream;
//! 1. a valid declaration (signed by the controller the node then pins), then the input;
//! 2. a valid declaration, a `secrets` entry encrypted to the node's key holding the input's
//!    first part (`@DIGEST@` in it stands for the declaration's digest), then the rest;
//! 3. a declaration naming one module whose artifact is the input's first part, sent raw
//!    (its digest and size right), then the rest of the input;
//! 4. the same sent compressed: `artifact D SIZE zstd LENGTH`, the input's first part as
//!    the zstd frame (its digest and size those of what it decompresses to, when it does).
//!
//! Properties: no panic; the answer is nothing (a cut) or one JSON line saying `received`,
//! `refused` or `untrusted`; a declaration is in force exactly when it was received, and
//! then it holds the bytes sent; the artifact store holds only whole files named by the
//! digest of their bytes; nothing is written outside the root.
#![no_main]

use std::io::Read;

use libfuzzer_sys::fuzz_target;
use mesh_fuzz::{Fence, Input, SEP};

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let mode = input.byte() % 5;
    let me = mesh_fuzz::controller();
    let fence = Fence::new();
    let root = mesh_fuzz::node_root(&fence.inside);

    let mut sent_envelope = None;
    let stream = match mode {
        0 => input.rest().to_vec(),
        1 | 2 => {
            let envelope = mesh_fuzz::envelope(&me, Vec::new(), 1);
            let bytes = envelope.to_bytes();
            let mut s = mesh_fuzz::declaration_part(&bytes);
            if mode == 2 {
                let plain =
                    String::from_utf8_lossy(input.until(SEP)).replace("@DIGEST@", &envelope.digest);
                let sealed = mesh_fuzz::to_node(plain.as_bytes());
                s.extend_from_slice(format!("secrets {}\n", sealed.len()).as_bytes());
                s.extend_from_slice(&sealed);
            }
            s.extend_from_slice(input.rest());
            sent_envelope = Some(bytes);
            s
        }
        _ => {
            let part = input.until(SEP);
            let (plain, head) = if mode == 3 {
                (part.to_vec(), String::new())
            } else {
                let mut plain = Vec::new();
                let decoded = zstd::stream::read::Decoder::new(part)
                    .map(|d| d.single_frame())
                    .and_then(|mut d| d.by_ref().take(1 << 20).read_to_end(&mut plain));
                if decoded.is_err() {
                    plain.clear();
                }
                (plain, format!(" zstd {}", part.len()))
            };
            let digest = blake3::hash(&plain).to_hex().to_string();
            let modules = vec![mesh_fuzz::module("m", &digest, plain.len() as u64)];
            let bytes = mesh_fuzz::envelope(&me, modules, 1).to_bytes();
            let mut s = mesh_fuzz::declaration_part(&bytes);
            s.extend_from_slice(format!("artifact {digest} {}{head}\n", plain.len()).as_bytes());
            s.extend_from_slice(part);
            s.extend_from_slice(input.rest());
            sent_envelope = Some(bytes);
            s
        }
    };

    let mut answer = Vec::new();
    let result = mesh_node::receive(&root, &mut &stream[..], &mut answer);

    let in_force = std::fs::read(root.join("declaration.json")).ok();
    match &result {
        Ok(received) => {
            let kept = in_force.expect("a received declaration is in force");
            if let Some(sent) = &sent_envelope {
                assert_eq!(&kept, sent, "the declaration in force is the one sent");
            }
            let envelope: mesh_proto::wire::Envelope =
                serde_json::from_slice(&kept).expect("the declaration in force parses");
            assert_eq!(envelope.digest, received.digest);
            assert!(
                envelope.verify().is_ok(),
                "the declaration in force is signed"
            );
        }
        Err(_) => assert!(
            in_force.is_none(),
            "a declaration not received is not in force"
        ),
    }
    if answer.is_empty() {
        assert!(
            matches!(result, Err(mesh_node::NodeError::Cut { .. })),
            "only a cut stream is not answered: {result:?}"
        );
    } else {
        let text = std::str::from_utf8(&answer).expect("the answer is text");
        assert_eq!(text.matches('\n').count(), 1, "one answer line: {text:?}");
        let v: serde_json::Value = serde_json::from_str(text).expect("the answer is JSON");
        let said = ["received", "refused", "untrusted"]
            .iter()
            .filter(|k| v.get(**k).is_some())
            .count();
        assert_eq!(said, 1, "the answer says one thing: {v}");
        assert_eq!(v.get("received").is_some(), result.is_ok(), "{v}");
    }
    // Only whole artifacts, each named by its digest.
    if let Ok(entries) = std::fs::read_dir(root.join("artifacts")) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let bytes = std::fs::read(e.path()).expect("a stored artifact reads");
            assert_eq!(
                blake3::hash(&bytes).to_hex().as_str(),
                name,
                "the store holds only whole artifacts named by their digest"
            );
        }
    }
    fence.check();
});
