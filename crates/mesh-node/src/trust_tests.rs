//! Whom a node trusts (the first controller pinned, another refused whole, a reset), its id,
//! and root files that are links.

use std::fs;

use super::tests::{
    all_reports, artifact, envelope, laptop, module, send, send_raw, signed_by, stream,
};
use super::*;

/// Sends `envelope` with `artifacts`; expects it refused as untrusted: answered, not reported,
/// nothing kept. The reason.
fn untrusted(root: &Root, artifacts: &[&(String, Vec<u8>)], envelope: &[u8]) -> String {
    let before = all_reports(root).len();
    let declaration = fs::read(root.join("declaration.json")).ok();
    let held = have(root).unwrap().artifacts;
    let (result, answer) = send_raw(root, &stream(artifacts, envelope));
    let Err(e @ NodeError::Untrusted { .. }) = result else {
        panic!("expected a refusal, got {result:?}");
    };
    // Issue 33: the words say where the refusal is, and it is not in the reports.
    let help = miette::Diagnostic::help(&e).map(|h| h.to_string());
    assert!(
        help.as_deref()
            .is_some_and(|h| h.contains("not in the node's reports")),
        "{help:?}"
    );
    let NodeError::Untrusted { reason } = e else {
        unreachable!()
    };
    assert_eq!(answer, serde_json::json!({ "untrusted": reason }));
    assert_eq!(
        all_reports(root).len(),
        before,
        "an untrusted sender is not journaled"
    );
    assert_eq!(fs::read(root.join("declaration.json")).ok(), declaration);
    assert_eq!(have(root).unwrap().artifacts, held, "nothing of it is kept");
    reason
}

#[test]
fn the_first_controller_is_pinned_and_another_is_refused_whole() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let b = artifact(&[("b", "2")]);
    send(root, &[&a], &envelope(vec![module("m", &a, None)], 1));
    let cron = mesh_proto::keys::Identity::from_seed("cron", [9; 32]);
    let theirs = signed_by(&cron, vec![module("m", &b, None)], 2, Vec::new());
    let reason = untrusted(root, &[&b], &theirs.to_bytes());
    assert!(reason.contains("signed by cron"), "{reason}");
    assert!(reason.contains("it trusts laptop"), "{reason}");
    assert!(
        reason.contains(&cron.public()),
        "says what to paste: {reason}"
    );

    // Trusted once the pinned controller delivers it in [controllers].
    let listing = vec![cron.signer()];
    send(
        root,
        &[],
        &signed_by(&laptop(), vec![module("m", &a, None)], 2, listing),
    );
    send(
        root,
        &[&b],
        &signed_by(&cron, vec![module("m", &b, None)], 3, Vec::new()),
    );
    // The pin outlives a declaration that lists nobody; cron, no longer listed, does not.
    send(root, &[], &envelope(vec![module("m", &a, None)], 4));
    let again = signed_by(&cron, vec![module("m", &b, None)], 5, Vec::new());
    untrusted(root, &[], &again.to_bytes());
}

#[test]
fn a_flipped_signature_or_none_is_refused_whole() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let mut env = envelope(vec![module("m", &a, None)], 1);
    let mut sig = env.signature.clone().unwrap().into_bytes();
    sig[10] = if sig[10] == b'0' { b'1' } else { b'0' };
    env.signature = Some(String::from_utf8(sig).unwrap());
    let reason = untrusted(root, &[&a], &env.to_bytes());
    assert!(reason.contains("signature"), "{reason}");
    // Unsigned, as a controller from before signing sends it.
    let mut unsigned = envelope(vec![module("m", &a, None)], 1);
    unsigned.controller = None;
    unsigned.signature = None;
    untrusted(root, &[&a], &unsigned.to_bytes());
    // Nothing was pinned by either.
    assert!(!root.join("trust.json").exists());
}

#[test]
fn a_reset_forgets_the_pin_and_the_next_controller_is_pinned() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    send(root, &[&a], &envelope(vec![module("m", &a, None)], 1));
    let cron = mesh_proto::keys::Identity::from_seed("cron", [9; 32]);
    let theirs = signed_by(&cron, vec![module("m", &a, None)], 2, Vec::new());
    untrusted(root, &[], &theirs.to_bytes());
    let was = super::trust::reset(root).unwrap().expect("a pin");
    assert_eq!(was.pinned.name, "laptop");
    send(root, &[], &theirs);
    assert_eq!(
        super::trust::reset(root).unwrap().unwrap().pinned.name,
        "cron"
    );
    assert_eq!(super::trust::reset(root).unwrap(), None);
}

#[test]
fn the_node_id_is_made_once_and_kept() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(&t.path().join("node")).unwrap();
    assert_eq!(super::node_id(root, false).unwrap(), None);
    let id = super::node_id(root, true).unwrap().unwrap();
    assert_eq!(id.len(), 32);
    assert_eq!(super::node_id(root, true).unwrap(), Some(id.clone()));
    assert_eq!(have(root).unwrap().node_id, Some(id));
    fs::write(root.join("id"), "garbage").unwrap();
    assert!(matches!(
        super::node_id(root, true),
        Err(NodeError::Corrupt { .. })
    ));
}

/// Issue 33, item 12: ROOT's files mesh writes are never followed when they are links: a
/// linked `trust.json` would let whoever planted it choose whom the node trusts, a linked `id`
/// would make two roots one.
#[test]
fn linked_root_files_are_refused_not_followed() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(&t.path().join("node")).unwrap();
    let other = t.path().join("other");
    fs::create_dir_all(&other).unwrap();
    let theirs = super::node_id(&other, true).unwrap().unwrap();
    fs::create_dir_all(root).unwrap();
    std::os::unix::fs::symlink(other.join("id"), root.join("id")).unwrap();
    let Err(NodeError::Corrupt { reason, .. }) = super::node_id(root, true) else {
        panic!("a linked id was followed");
    };
    assert!(reason.contains("symbolic link"), "{reason}");
    assert_ne!(have(root).ok().and_then(|h| h.node_id), Some(theirs));

    fs::write(other.join("trust.json"), b"{}").unwrap();
    std::os::unix::fs::symlink(other.join("trust.json"), root.join("trust.json")).unwrap();
    let Err(NodeError::Corrupt { reason, .. }) = super::trust::trusted(root) else {
        panic!("a linked trust.json was followed");
    };
    assert!(reason.contains("symbolic link"), "{reason}");
}
