//! Secrets on the node: taken with a declaration only when encrypted to this node's key and
//! bound to that declaration, written for the version a module runs (0600), changed as a new
//! version of that module alone, removed when no longer declared.

use std::os::unix::fs::PermissionsExt;

use super::tests::{all_reports, artifact, envelope, module, send_raw};
use super::*;
use mesh_proto::secret::{Delivery, SecretRef, Value};
use mesh_proto::wire::DeclaredModule;

/// The stream of `envelope` with a `secrets` entry of `values` (digest, value), encrypted to
/// `recipient`, bound to `bound` (the envelope's digest unless given).
fn stream_with(
    artifacts: &[&(String, Vec<u8>)],
    envelope: &mesh_proto::wire::Envelope,
    values: &[(&str, &str)],
    recipient: &age::x25519::Recipient,
    bound: Option<&str>,
) -> Vec<u8> {
    let delivery = Delivery {
        declaration: bound.unwrap_or(&envelope.digest).to_string(),
        values: values
            .iter()
            .map(|(d, v)| Value {
                digest: d.to_string(),
                hex: mesh_proto::keys::hex(v.as_bytes()),
            })
            .collect(),
    };
    let sealed =
        mesh_proto::secret::encrypt(std::slice::from_ref(recipient), &delivery.to_bytes()).unwrap();
    let bytes = envelope.to_bytes();
    let mut s = format!("declaration {}\n", bytes.len()).into_bytes();
    s.extend_from_slice(&bytes);
    s.extend_from_slice(format!("secrets {}\n", sealed.len()).as_bytes());
    s.extend_from_slice(&sealed);
    for (digest, bytes) in artifacts {
        s.extend_from_slice(format!("artifact {digest} {}\n", bytes.len()).as_bytes());
        s.extend_from_slice(bytes);
    }
    s.extend_from_slice(b"end\n");
    s
}

/// A digest for test value `v` (any 64 hex do: the node never computes one).
fn digest(v: &str) -> String {
    blake3::hash(v.as_bytes()).to_hex().to_string()
}

/// `name`, with secret `PW` of `value`, whose activate appends `name` to ROOT/runs and checks
/// it reads the value.
fn with_secret(name: &str, art: &(String, Vec<u8>), value: &str) -> DeclaredModule {
    DeclaredModule {
        secrets: vec![SecretRef {
            digest: digest(value),
            name: "PW".into(),
        }],
        ..module(
            name,
            art,
            Some(&format!(
                "echo {name} >> \"$MESH_NODE_ROOT/runs\"; test \"$(cat \"$MESH_SECRETS/PW\")\" = {value}"
            )),
        )
    }
}

fn runs(root: &Root, name: &str) -> usize {
    fs::read_to_string(root.join("runs"))
        .unwrap_or_default()
        .lines()
        .filter(|l| *l == name)
        .count()
}

use std::fs;

#[test]
fn secrets_are_taken_written_changed_alone_and_removed() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let me = secrets::identity(root, true).unwrap().unwrap().to_public();
    let (a, b) = (artifact(&[("a", "1")]), artifact(&[("b", "1")]));
    let other = module("other", &b, Some("echo other >> \"$MESH_NODE_ROOT/runs\""));
    let e1 = envelope(vec![with_secret("svc", &a, "value-one"), other.clone()], 1);
    let (got, _) = send_raw(
        root,
        &stream_with(
            &[&a, &b],
            &e1,
            &[(&digest("value-one"), "value-one")],
            &me,
            None,
        ),
    );
    got.unwrap();
    assert_eq!(apply(root).unwrap().outcome, Outcome::Applied);
    let file = root.join("secrets/svc/PW");
    assert_eq!(fs::read_to_string(&file).unwrap(), "value-one");
    assert_eq!(
        fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        fs::metadata(root.join("secrets/svc"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o700
    );
    let report = all_reports(root).pop().unwrap();
    let svc = report
        .resources
        .iter()
        .find(|r| r.id == "module:svc")
        .unwrap();
    assert_eq!(
        svc.secrets.get("PW"),
        Some(&digest("value-one")),
        "the read-back names it"
    );
    // Sealed to the node's own key, not in plain text.
    let sealed = fs::read(root.join("sealed.age")).unwrap();
    assert!(!sealed.windows(9).any(|w| w == b"value-one"));

    // A damaged sealed file is no value held, said in `have` (so they are sent again), never an
    // error that would stop the node from answering.
    let kept = fs::read(root.join("sealed.age")).unwrap();
    fs::write(root.join("sealed.age"), b"garbage").unwrap();
    assert_eq!(have(root).unwrap().secrets, Vec::<String>::new());
    fs::write(root.join("sealed.age"), kept).unwrap();
    assert_eq!(have(root).unwrap().secrets, vec![digest("value-one")]);

    // Changed: svc runs again, other does not.
    let e2 = envelope(vec![with_secret("svc", &a, "value-two"), other.clone()], 2);
    let (got, _) = send_raw(
        root,
        &stream_with(&[], &e2, &[(&digest("value-two"), "value-two")], &me, None),
    );
    got.unwrap();
    assert_eq!(apply(root).unwrap().outcome, Outcome::Applied);
    assert_eq!((runs(root, "svc"), runs(root, "other")), (2, 1));
    assert_eq!(fs::read_to_string(&file).unwrap(), "value-two");

    // No longer declared: gone, and its sealed values too (but what going back needs).
    let e3 = envelope(vec![other], 3);
    super::tests::send(root, &[], &e3);
    apply(root).unwrap();
    assert!(!root.join("secrets/svc").exists());
    let held = secrets::sealed(&Layout::new(root)).unwrap();
    assert!(!held.contains(&digest("value-one")), "{held:?}");
}

#[test]
fn secrets_not_for_this_node_or_this_declaration_or_missing_are_refused_whole() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let me = secrets::identity(root, true).unwrap().unwrap().to_public();
    let stranger = age::x25519::Identity::generate().to_public();
    let a = artifact(&[("a", "1")]);
    let e = envelope(vec![with_secret("svc", &a, "value-one")], 1);
    let refused = |bytes: Vec<u8>, needle: &str| {
        let (got, _) = send_raw(root, &bytes);
        match got {
            Err(NodeError::Refused { reason }) => assert!(reason.contains(needle), "{reason}"),
            other => panic!("expected a refusal, got {other:?}"),
        }
        assert!(!root.join("declaration.json").exists(), "nothing in force");
    };
    refused(
        super::tests::stream(&[&a], &e.to_bytes()),
        "whose value the node does not hold",
    );
    refused(
        stream_with(
            &[&a],
            &e,
            &[(&digest("value-one"), "value-one")],
            &stranger,
            None,
        ),
        "not encrypted to this key",
    );
    refused(
        stream_with(
            &[&a],
            &e,
            &[(&digest("value-one"), "value-one")],
            &me,
            Some(&digest("another")),
        ),
        "sent with declaration",
    );
    // A refusal says nothing of the value.
    for r in all_reports(root) {
        assert!(!serde_json::to_string(&r).unwrap().contains("value-one"));
    }
}
