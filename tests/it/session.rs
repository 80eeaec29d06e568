//! `mesh node session`: one remote process per node per run. A conversation cut at any frame
//! boundary leaves the node's declaration whole and the controller's record truthful; a node
//! whose mesh predates sessions is upgraded; what a login shell prints is skipped; a node that
//! answers garbage is a failure, and nothing is recorded.

use crate::common::ssh::{SshNode, one_node_mesh};
use crate::common::{Run, TestMesh};
use crate::push::push;
use serde_json::Value;
use std::path::Path;

/// `cp -a`: symlinks (a module's `current`) stay symlinks.
fn copy_all(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .expect("cp");
    assert!(ok.success());
}

/// Each frame the controller wrote: its kind byte and where it ends (kind, u32 length,
/// payload).
fn frames(trace: &[u8]) -> Vec<(u8, usize)> {
    let mut frames = Vec::new();
    let mut at = 0;
    while at + 5 <= trace.len() {
        let len = u32::from_be_bytes(trace[at + 1..at + 5].try_into().expect("4 bytes")) as usize;
        let kind = trace[at];
        at += 5 + len;
        frames.push((kind, at));
    }
    assert_eq!(at, trace.len(), "the trace is whole frames");
    frames
}

/// Where to cut the conversation traced at `trace`: before it, at the end of each frame and
/// 3 bytes past it; and where the receive's stream is whole (once its End frame arrived, not
/// before).
fn cut_points(trace: &Path) -> (Vec<usize>, usize) {
    let frames = frames(&std::fs::read(trace).expect("trace"));
    assert!(
        frames.len() >= 7,
        "hello, have, receive, data…, end, apply, quit: {frames:?}"
    );
    let whole = frames
        .iter()
        .find(|(k, _)| *k == b'E')
        .map(|(_, e)| *e)
        .expect("an End frame");
    let mut cuts: Vec<usize> = frames.iter().flat_map(|&(_, e)| [e, e + 3]).collect();
    cuts.insert(0, 0);
    (cuts, whole)
}

/// The declaration the node holds, parsed.
fn declaration(n: &SshNode) -> serde_json::Result<Value> {
    serde_json::from_slice(&std::fs::read(n.root.join("declaration.json")).expect("held"))
}

#[test]
fn a_session_cut_at_every_frame_boundary_keeps_the_node_whole_and_the_record_truthful() {
    let t = crate::common::example();
    let n = SshNode::start(t.dir(), "ace");
    let (cut, trace) = (t.path("cut"), t.path("trace"));
    // The node's mesh, behind a cut: only the first N bytes the controller sends reach it
    // (dd passes each read on at once; GNU head -c holds them back).
    n.program(
        &format!(
            "#!/bin/sh\nif [ -s {cut} ]; then dd bs=65536 iflag=count_bytes count=\"$(cat {cut})\" status=none | REAL \"$@\"; else tee {trace} | REAL \"$@\"; fi\n",
            cut = cut.display(),
            trace = trace.display()
        ),
    );
    one_node_mesh(&t, &n, &n.client_options());
    t.ok(&["build", "--behind", "-q"]);
    assert_eq!(push(&t, &[]).json()[0]["outcome"], "sent");
    let old = declaration(&n).expect("json");
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "build    = '",
        "build    = 'head -c 600000 /dev/urandom > \"$MESH_OUT/blob\"; ",
        "bigger",
    );
    t.ok(&["build", "--behind", "-q"]);
    let (saved_node, saved_store) = (t.path("saved-root"), t.path("saved-mesh"));
    copy_all(&n.root, &saved_node);
    copy_all(&t.path(".mesh"), &saved_store);
    // One whole push, traced, says where the frames of this conversation end.
    let run = push(&t, &[]);
    let r = run.json();
    assert_eq!(
        (run.code, &r[0]["outcome"]),
        (0, &Value::from("sent")),
        "{run}"
    );
    let new = r[0]["digest"].as_str().expect("digest").to_string();
    let (cuts, whole) = cut_points(&trace);
    for at in cuts {
        copy_all(&saved_node, &n.root);
        copy_all(&saved_store, &t.path(".mesh"));
        std::fs::write(&cut, at.to_string()).expect("write");
        let run = push(&t, &[]);
        let r = run.json();
        let held = declaration(&n)
            .unwrap_or_else(|e| panic!("cut at {at}: the declaration is not whole: {e}"));
        let outcome = r[0]["outcome"].as_str().expect("outcome").to_string();
        let state = t.json(&["status"])["nodes"][0]["state"].clone();
        if outcome == "sent" {
            // Recorded as sent only when the node holds it.
            assert_eq!(held["digest"], new.as_str(), "cut at {at}: {run}");
            assert_eq!(state, "outstanding", "cut at {at}");
        } else {
            assert_eq!(state, "out of date", "cut at {at}: {run}");
        }
        if at < whole {
            assert_eq!(
                held["digest"], old["digest"],
                "cut at {at}: taken before its stream ended"
            );
        }
    }
    // Whole again: the next push converges.
    std::fs::remove_file(&cut).expect("rm");
    let run = push(&t, &[]);
    assert_eq!(run.code, 0, "{run}");
    t.ok(&["collect", "-q"]);
    assert_eq!(t.json(&["status"])["nodes"][0]["state"], "current");
}

#[test]
fn a_node_mesh_from_before_sessions_is_upgraded() {
    let t = crate::common::example();
    let n = SshNode::start(t.dir(), "ace");
    // What an older mesh says to a verb it does not know (clap's words, exit 2).
    n.program("#!/bin/sh\necho \"error: unrecognized subcommand 'session'\" >&2\nexit 2\n");
    one_node_mesh(&t, &n, &n.client_options());
    t.ok(&["build", "--behind", "-q"]);
    let run = push(&t, &[]);
    let r = run.json();
    assert_eq!(run.code, 0, "{run}");
    assert_eq!(r[0]["outcome"], "sent", "{run}");
    assert_eq!(r[0]["installed"], true, "{run}");
    let installed = std::fs::metadata(n.root.join("bin/mesh"))
        .expect("bin")
        .len();
    let real = std::fs::metadata(assert_cmd::cargo::cargo_bin("mesh"))
        .expect("mesh")
        .len();
    assert_eq!(installed, real, "the node runs this mesh now");
    // The next run opens one session and installs nothing.
    t.ok(&["collect", "-q"]);
    assert_eq!(t.json(&["status"])["nodes"][0]["state"], "current");
}

#[test]
fn what_a_login_shell_prints_is_skipped() {
    let t = crate::common::example();
    let n = SshNode::start(t.dir(), "ace");
    n.program(
        // A banner, and a terminal title with no line break after it.
        "#!/bin/sh\necho 'Welcome to ace!'\necho\nprintf '\\033]0;ace\\007'\nexec REAL \"$@\"\n",
    );
    one_node_mesh(&t, &n, &n.client_options());
    t.ok(&["build", "--behind", "-q"]);
    let run = push(&t, &[]);
    assert_eq!(
        (run.code, &run.json()[0]["outcome"]),
        (0, &Value::from("sent")),
        "{run}"
    );
    t.ok(&["collect", "-q"]);
    assert_eq!(t.json(&["status"])["nodes"][0]["state"], "current");
}

#[test]
fn a_node_answering_garbage_is_a_failure_and_nothing_is_recorded() {
    let t = crate::common::example();
    let n = SshNode::with_mesh(t.dir(), "ace");
    n.program("#!/bin/sh\nprintf 'mesh-session\\nZ\\377\\377\\377\\377garbage'\ncat >/dev/null\n");
    one_node_mesh(&t, &n, &n.client_options());
    t.ok(&["build", "--behind", "-q"]);
    let run = push(&t, &[]);
    assert_eq!(run.code, 3, "{run}");
    assert_eq!(run.json()[0]["outcome"], "failed", "{run}");
    assert_eq!(t.json(&["status"])["nodes"][0]["state"], "never told");
    assert!(!n.root.join("declaration.json").exists());
}

/// A garbage frame sent to `mesh node session` is refused, said, and ends the session; the
/// root is untouched.
#[test]
fn mesh_node_session_refuses_a_garbage_frame() {
    let t = TestMesh::new();
    let root = t.path("root");
    let session = ["node", "session", "--root", root.to_str().expect("utf-8")];
    let run = Run::of(t.mesh(&session).write_stdin("GET / HTTP/1.1\r\n\r\n"));
    assert!(!run.success());
    assert!(run.stderr.contains("not a mesh session frame"), "{run}");
    assert!(run.stdout.starts_with("mesh-session\n"));
    assert!(run.stdout.contains("\"error\":\"frame\""), "{run}");
    assert!(!root.join("declaration.json").exists());
}
