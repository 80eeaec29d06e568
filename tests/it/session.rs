//! `mesh node session`: one remote process per node per run. A conversation cut at any frame
//! boundary leaves the node's declaration whole and the controller's record truthful; a node
//! whose mesh predates sessions is upgraded; what a login shell prints is skipped; a node that
//! answers garbage is a failure, and nothing is recorded.

use crate::common::ssh::{SshNode, one_node_mesh};
use crate::common::{MESH_HEAD, Run, TestMesh};
use crate::push::push;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

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
    let installed = std::fs::read(n.root.join("bin/mesh-node")).expect("bin");
    let real = std::fs::read(assert_cmd::cargo::cargo_bin("mesh-node")).expect("mesh-node");
    assert!(
        installed == real,
        "the node runs this mesh-node now, byte for byte"
    );
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

/// `printf` octal escapes for `bytes`.
fn octal(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("\\{b:03o}")).collect()
}

/// Nothing waits forever. One node's session stalls after connecting (it greets, then nothing: a
/// hung disk, a wedged process); another answers with a frame that never ends, a byte at a time.
/// With `[ssh] timeout = "2s"` the push ends by itself, the good node is delivered, the two
/// others are unreachable with their reasons, the push exits 3, and its lock is free.
#[test]
fn a_stalled_node_and_an_endless_answer_are_unreachable_and_the_run_ends() {
    let t = crate::common::example();
    let ace = SshNode::with_mesh(t.dir(), "ace");
    let bee = SshNode::start(t.dir(), "bee");
    let cee = SshNode::start(t.dir(), "cee");
    bee.program("#!/bin/sh\nprintf 'mesh-session\\n'\nexec sleep 600\n");
    let hello = br#"{"protocol":999,"version":"endless"}"#;
    let mut frames = b"H".to_vec();
    frames.extend_from_slice(&(hello.len() as u32).to_be_bytes());
    frames.extend_from_slice(hello);
    // The answer to the first request: a frame of 1 MiB, announced, never finished.
    frames.push(b'a');
    frames.extend_from_slice(&(1u32 << 20).to_be_bytes());
    cee.program(&format!(
        "#!/bin/sh\nprintf 'mesh-session\\n{}'\nwhile printf x; do sleep 0.2; done\n",
        octal(&frames)
    ));
    let edge = |n: &SshNode| n.stanza(&n.client_options(), &["edge"]);
    t.write(
        "mesh.toml",
        &format!(
            "{MESH_HEAD}\n[ssh]\nconnect_timeout = \"5s\"\ntimeout = \"2s\"\n\n{}\n{}\n{}\n[assign]\nroute-proxy = [\"@edge\"]\nresolver    = [\"@edge\"]\n",
            edge(&ace),
            edge(&bee),
            edge(&cee)
        ),
    );
    t.ok(&["build", "--behind", "-q"]);
    // A generous deadline on each process: past it, the run was held.
    let within = Duration::from_secs(90);
    let run = Run::of(t.mesh(&["push", "--json"]).timeout(within));
    assert_ne!(run.code, Run::KILLED, "push did not end by itself: {run}");
    assert_eq!(run.code, 3, "{run}");
    let outcome = |name: &str| {
        run.json()
            .as_array()
            .expect("outcomes")
            .iter()
            .find(|o| o["node"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {run}"))
    };
    assert_eq!(outcome("ace")["outcome"], "sent", "{run}");
    for (name, reason) in [
        ("bee", "no answer for 2s after connecting"),
        ("cee", "no answer for 2s to `have`"),
    ] {
        let o = outcome(name);
        assert_eq!(o["outcome"], "unreachable", "{o}");
        assert!(
            o["reason"].as_str().is_some_and(|r| r.contains(reason)),
            "{name}: {o}"
        );
    }
    // The lock was let go: the next runs go on, and end too (a reconcile counts an
    // unreachable node as a fact, not a failure).
    let run = Run::of(t.mesh(&["reconcile"]).timeout(within));
    assert_ne!(
        run.code,
        Run::KILLED,
        "reconcile did not end by itself: {run}"
    );
    assert_ne!(run.code, 75, "{run}");
    let status = t.json(&["status"]);
    let node = |name: &str| {
        status["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .find(|n| n["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {status}"))
    };
    assert_eq!(node("ace")["state"], "current", "{status}");
    for name in ["bee", "cee"] {
        let n = node(name);
        assert_eq!(n["state"], "never told", "{n}");
        assert!(!n["unreachable_since"].is_null(), "{n}");
        assert!(
            n["reason"]
                .as_str()
                .is_some_and(|r| r.contains("no answer for 2s")),
            "{n}"
        );
    }
    drop((ace, bee, cee));
}
