//! Sharing builds through a REAPI engine (issue 37), against a real BuildGrid: so far the
//! client — blobs up and back, checked against their digests, and an engine that goes away.

use crate::common::buildgrid::BuildGrid;
use mesh::remote::client::Remote;
use mesh::remote::merkle;
use std::time::Duration;

#[test]
fn blobs_go_up_once_come_back_whole_and_a_damaged_one_is_named() {
    let mut bg = BuildGrid::start();
    let remote = Remote::connect(&bg.endpoint, "", Duration::from_secs(10)).expect("connect");
    remote.check().expect("SHA-256");
    let t = tempfile::tempdir().expect("tmp");
    std::fs::write(t.path().join("small"), "hello").unwrap();
    std::fs::create_dir(t.path().join("d")).unwrap();
    // Larger than a batch: through ByteStream both ways.
    let big: Vec<u8> = (0..5_000_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(t.path().join("d/big"), &big).unwrap();
    let tree = merkle::tree(t.path()).expect("tree");
    assert_eq!(remote.upload(&tree).expect("upload"), tree.blobs.len());
    assert_eq!(remote.upload(&tree).expect("again"), 0, "nothing twice");
    let big_digest = merkle::digest_of(&big);
    assert_eq!(remote.read(&big_digest).expect("big back"), big);
    let small = merkle::digest_of(b"hello");
    assert_eq!(remote.read(&small).expect("small back"), b"hello");
    let absent = merkle::digest_of(b"never uploaded");
    assert!(remote.read(&absent).is_err());

    // A blob changed in the engine's store is refused, never taken.
    std::fs::write(bg.blob_path(&small.hash), "HELLO").unwrap();
    let e = remote.read(&small).expect_err("damaged");
    assert!(e.to_string().contains("does not match its digest"), "{e}");

    // The engine goes away: an error within the timeout, never a hang.
    bg.kill();
    let started = std::time::Instant::now();
    assert!(remote.find_missing(vec![small]).is_err());
    assert!(Remote::connect(&bg.endpoint, "", Duration::from_secs(2)).is_err());
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn an_action_result_is_a_miss_until_written_then_read_back_as_written() {
    use bazel_remote_apis::build::bazel::remote::execution::v2::{ActionResult, OutputDirectory};
    let bg = BuildGrid::start();
    let remote = Remote::connect(&bg.endpoint, "", Duration::from_secs(10)).expect("connect");
    let t = tempfile::tempdir().expect("tmp");
    std::fs::write(t.path().join("out"), "built").unwrap();
    let mut outputs = merkle::tree(t.path()).expect("tree");
    // An output directory is named by a Tree message, uploaded with its blobs.
    let tree_digest = outputs.as_message();
    remote.upload(&outputs).expect("outputs");
    let action = merkle::digest_of(b"an action");
    assert_eq!(
        remote.action_result(&action).expect("asked"),
        None,
        "a miss, not an error"
    );
    let result = ActionResult {
        output_directories: vec![OutputDirectory {
            path: "out".into(),
            tree_digest: Some(tree_digest),
            ..Default::default()
        }],
        exit_code: 0,
        ..Default::default()
    };
    remote
        .put_action_result(&action, result.clone())
        .expect("written");
    let back = remote
        .action_result(&action)
        .expect("asked")
        .expect("a hit");
    assert_eq!(back.output_directories, result.output_directories);
}
