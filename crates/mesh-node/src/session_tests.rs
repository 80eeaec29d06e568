//! `mesh node session` end to end on a temp root: the same protocol over frames, cut at any
//! frame, refused frames, and reports in pages.

use std::fs;
use std::path::Path;

use super::tests::{artifact, envelope, module, send, stream};
use super::*;
use mesh_proto::wire::Envelope;

/// A whole conversation: hello, have, a receive of `artifacts` (raw) and `envelope`, apply,
/// report, quit. Returns the bytes and where each frame ends.
fn conversation(artifacts: &[&(String, Vec<u8>)], envelope: &Envelope) -> (Vec<u8>, Vec<usize>) {
    use mesh_proto::frame::{Kind, write};
    let mut wire = Vec::new();
    let mut ends = Vec::new();
    let hello = serde_json::json!({"protocol": PROTOCOL, "version": "test"}).to_string();
    write(&mut wire, Kind::Hello, hello.as_bytes()).unwrap();
    ends.push(wire.len());
    for (kind, payload) in [(Kind::Have, &b""[..]), (Kind::Receive, b"")] {
        write(&mut wire, kind, payload).unwrap();
        ends.push(wire.len());
    }
    let body = stream(artifacts, &envelope.to_bytes());
    for chunk in body.chunks(4096) {
        write(&mut wire, Kind::Data, chunk).unwrap();
        ends.push(wire.len());
    }
    for (kind, payload) in [
        (Kind::End, &b""[..]),
        (Kind::Apply, b""),
        (Kind::Report, b"0"),
        (Kind::Quit, b""),
    ] {
        write(&mut wire, kind, payload).unwrap();
        ends.push(wire.len());
    }
    (wire, ends)
}

/// The answers a session wrote: (kind, payload) after the greeting.
fn answers(out: &[u8]) -> Vec<(mesh_proto::frame::Kind, Vec<u8>)> {
    let mut r = out
        .strip_prefix(mesh_proto::frame::GREETING)
        .expect("the greeting comes first");
    let mut frames = Vec::new();
    while let Ok(f) = mesh_proto::frame::read(&mut r) {
        frames.push(f);
    }
    frames
}

#[test]
fn a_whole_session_receives_applies_and_reports() {
    use mesh_proto::frame::Kind;
    let t = tempfile::tempdir().unwrap();
    let art = artifact(&[("bin/run", "v1")]);
    let env = envelope(vec![module("web", &art, None)], 1);
    let (wire, _) = conversation(&[&art], &env);
    let mut out = Vec::new();
    session(&Root::check(t.path()).unwrap(), &mut &wire[..], &mut out).unwrap();
    let got = answers(&out);
    let kinds: Vec<Kind> = got.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        kinds,
        [
            Kind::Hello,
            Kind::Answer,
            Kind::Answer,
            Kind::Answer,
            Kind::Answer
        ]
    );
    let received: serde_json::Value = serde_json::from_slice(&got[2].1).unwrap();
    assert_eq!(received["received"], env.digest.as_str());
    let report: Report = serde_json::from_slice(&got[3].1).unwrap();
    assert_eq!(report.outcome, Outcome::Applied);
    assert!(String::from_utf8_lossy(&got[4].1).contains(&env.digest));
}

#[test]
fn a_session_cut_at_any_frame_boundary_leaves_the_declaration_whole() {
    let base = tempfile::tempdir().unwrap();
    let first = artifact(&[("bin/run", "v1")]);
    let old = envelope(vec![module("web", &first, None)], 1);
    let held = Root::check(&base.path().join("held")).unwrap();
    send(&held, &[&first], &old);
    // A second artifact big enough for several Data frames.
    let big: String = (0..20_000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let second = artifact(&[("bin/run", big.as_str())]);
    let new = envelope(vec![module("web", &second, None)], 2);
    let (wire, ends) = conversation(&[&second], &new);
    let end_of_receive = ends[ends.len() - 4];
    // Every frame boundary, and a cut inside the next frame's header and payload.
    let mut cuts: Vec<usize> = ends.iter().flat_map(|&e| [e, e + 2, e + 7]).collect();
    cuts.insert(0, 0);
    cuts.retain(|&c| c <= wire.len());
    for cut in cuts {
        let root = Root::check(&base.path().join(format!("cut-{cut}"))).unwrap();
        copy_tree(&held, &root);
        let mut out = Vec::new();
        let _ = session(&root, &mut &wire[..cut], &mut out);
        let bytes = fs::read(root.join("declaration.json")).unwrap();
        let now: Envelope = serde_json::from_slice(&bytes).expect("the declaration is whole");
        if cut >= end_of_receive {
            assert_eq!(
                now.digest, new.digest,
                "cut at {cut}: the whole stream arrived"
            );
        } else {
            assert_eq!(
                now.digest, old.digest,
                "cut at {cut}: the old one stays in force"
            );
        }
        // A receive is answered only when its stream arrived whole.
        let answered = answers(&out)
            .iter()
            .any(|(_, p)| String::from_utf8_lossy(p).contains("\"received\""));
        assert_eq!(answered, cut >= end_of_receive, "cut at {cut}");
    }
}

#[test]
fn a_garbage_frame_is_refused_and_ends_the_session() {
    use mesh_proto::frame::{Kind, write};
    let t = tempfile::tempdir().unwrap();
    for wire in [
        b"GET / HTTP/1.1\r\n\r\n".to_vec(),
        {
            let mut w = Vec::new();
            write(&mut w, Kind::Data, b"stray").unwrap();
            w
        },
        {
            let mut w = Vec::new();
            write(&mut w, Kind::Hello, b"{\"protocol\":1,\"version\":\"old\"}").unwrap();
            w
        },
        {
            let mut w = Vec::new();
            write(&mut w, Kind::Report, b"soon").unwrap();
            w
        },
    ] {
        let mut out = Vec::new();
        let err = session(&Root::check(t.path()).unwrap(), &mut &wire[..], &mut out).unwrap_err();
        assert!(matches!(err, NodeError::Session { .. }), "{err:?}");
        let got = answers(&out);
        let (kind, payload) = got.last().unwrap();
        assert_eq!(*kind, Kind::Error);
        let said: serde_json::Value = serde_json::from_slice(payload).unwrap();
        assert_eq!(said["error"], "frame", "{said}");
    }
    assert!(!t.path().join("declaration.json").exists());
}

/// Copies a directory tree (files and directories only).
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_tree(&entry.path(), &dest);
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(entry.path()).unwrap(), &dest).unwrap();
        } else {
            fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

#[test]
fn a_refused_receive_is_answered_and_the_session_goes_on() {
    use mesh_proto::frame::{Kind, write};
    let t = tempfile::tempdir().unwrap();
    let art = artifact(&[("bin/run", "v1")]);
    let env = envelope(vec![module("web", &art, None)], 1);
    // The artifact's bytes do not match its digest: refused at once, the rest drained.
    let mut body = stream(&[&art], &env.to_bytes());
    let at = body.iter().position(|&b| b == b'\n').unwrap() + 10;
    body[at] ^= 0xff;
    let mut wire = Vec::new();
    write(&mut wire, Kind::Receive, &[]).unwrap();
    for chunk in body.chunks(100) {
        write(&mut wire, Kind::Data, chunk).unwrap();
    }
    write(&mut wire, Kind::End, &[]).unwrap();
    write(&mut wire, Kind::Have, &[]).unwrap();
    let mut out = Vec::new();
    session(&Root::check(t.path()).unwrap(), &mut &wire[..], &mut out).unwrap();
    let got = answers(&out);
    assert_eq!(got.len(), 3, "hello, the refusal, the have");
    assert!(String::from_utf8_lossy(&got[1].1).contains("\"refused\""));
    let have: Have = serde_json::from_slice(&got[2].1).unwrap();
    assert!(have.declaration.is_none());
}

#[test]
fn many_reports_come_in_pages_the_controller_asks_on_from() {
    // Lines of a little over 1 MiB each: a 4 MiB page holds three, then says there are more.
    let line = |seq: u64| {
        let mut l = format!("{{\"report_sequence\":{seq},\"x\":\"").into_bytes();
        l.resize(1024 * 1024, b'x');
        l.extend_from_slice(b"\"}\n");
        l
    };
    let all: Vec<u8> = (1..=9).flat_map(line).collect();
    let page = super::session::page(all.clone());
    assert!(page.ends_with(mesh_proto::frame::MORE));
    let body = &page[..page.len() - mesh_proto::frame::MORE.len()];
    assert_eq!(body.iter().filter(|&&b| b == b'\n').count(), 3);
    assert!(body.len() <= mesh_proto::frame::REPORT_PAGE);
    // Few enough: as they are.
    let small: Vec<u8> = (1..=2).flat_map(line).collect();
    assert_eq!(super::session::page(small.clone()), small);
}
