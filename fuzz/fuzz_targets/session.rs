//! The node's side of a session (`mesh_node::session`): arbitrary frames from a controller,
//! served on a fresh node root — or on one that already holds a declaration (signed by the
//! controller it trusts) and its reports, chosen by the first byte.
//!
//! Properties: the node never panics; what it writes back is its greeting and then whole
//! frames only of the kinds a node sends (`Hello` first), each `Error` frame JSON naming its
//! kind; and nothing is written outside the root.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mesh_fuzz::{Fence, Input};
use mesh_proto::frame::{self, FrameError, Kind};

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let held = input.byte() & 1 == 1;
    let fence = Fence::new();
    let root = mesh_fuzz::node_root(&fence.inside);
    if held {
        // A declaration in force (no modules), received as a controller sends it.
        let envelope = mesh_fuzz::envelope(&mesh_fuzz::controller(), Vec::new(), 1).to_bytes();
        let mut stream = mesh_fuzz::declaration_part(&envelope);
        stream.extend_from_slice(b"end\n");
        let mut answer = Vec::new();
        mesh_node::receive(&root, &mut &stream[..], &mut answer)
            .expect("the harness's declaration is received");
    }
    let mut wire = input.rest();
    let mut out = Vec::new();
    let _ = mesh_node::session(&root, &mut wire, &mut out);

    let mut said = out
        .strip_prefix(frame::GREETING)
        .expect("the node greets first");
    let mut first = true;
    loop {
        match frame::read(&mut said) {
            Ok((kind, payload)) => {
                if first {
                    assert_eq!(kind, Kind::Hello, "the node's first frame is its hello");
                    let hello: mesh_node::Hello =
                        serde_json::from_slice(&payload).expect("the hello is JSON");
                    assert_eq!(hello.protocol, mesh_proto::PROTOCOL);
                    first = false;
                    continue;
                }
                assert!(
                    matches!(kind, Kind::Answer | Kind::Error | Kind::Alive),
                    "a node sends no {kind:?} frame"
                );
                if kind == Kind::Error {
                    let v: serde_json::Value =
                        serde_json::from_slice(&payload).expect("an error frame is JSON");
                    assert!(v["error"].is_string() && v["message"].is_string(), "{v}");
                }
            }
            Err(FrameError::Closed) => break,
            Err(e) => panic!("the node wrote a broken frame: {e}"),
        }
    }
    assert!(!first, "the node said hello");
    fence.check();
});
