//! The node protocol end to end on a temp root: receive, apply, report, and every refusal
//! (trust and the node's own files: `trust_tests.rs`).

use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use super::*;
use crate::artifact::pack;
use mesh_proto::wire::{Declaration, DeclaredModule, Envelope};

/// An artifact packed from a temp dir holding `files`: (digest, bytes).
pub(super) fn artifact(files: &[(&str, &str)]) -> (String, Vec<u8>) {
    let t = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let p = t.path().join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
    }
    let mut bytes = Vec::new();
    let (digest, _) = pack(t.path(), &mut bytes).unwrap();
    (digest.into_string(), bytes)
}

/// A tar whose second entry is `../evil`: (digest, bytes).
fn evil_artifact() -> (String, Vec<u8>) {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in [(&b"ok.txt"[..], &b"fine"[..]), (b"../evil", b"pwned")] {
        let mut h = tar::Header::new_gnu();
        h.as_gnu_mut().unwrap().name[..name.len()].copy_from_slice(name);
        h.set_entry_type(tar::EntryType::Regular);
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append(&h, data).unwrap();
    }
    let bytes = b.into_inner().unwrap();
    (blake3::hash(&bytes).to_hex().to_string(), bytes)
}

/// A declared module.
pub(super) fn module(
    name: &str,
    art: &(String, Vec<u8>),
    activate: Option<&str>,
) -> DeclaredModule {
    DeclaredModule {
        activate: activate.map(str::to_string),
        artifact: art.0.clone(),
        build: format!("build-{name}"),
        commit: "c0ffee".into(),
        name: name.into(),
        size: art.1.len() as u64,
        check: None,
        check_timeout_ms: None,
        settle_ms: None,
        provide: None,
        secrets: Vec::new(),
    }
}

/// The controller the tests sign as (the first to declare is pinned).
pub(super) fn laptop() -> mesh_proto::keys::Identity {
    mesh_proto::keys::Identity::from_seed("laptop", [7; 32])
}

/// A sealed envelope for `modules`, signed by [`laptop`].
pub(super) fn envelope(modules: Vec<DeclaredModule>, sequence: u64) -> Envelope {
    signed_by(&laptop(), modules, sequence, Vec::new())
}

/// A sealed envelope for `modules`, signed by `me`, delivering `controllers`.
pub(super) fn signed_by(
    me: &mesh_proto::keys::Identity,
    modules: Vec<DeclaredModule>,
    sequence: u64,
    controllers: Vec<mesh_proto::keys::Signer>,
) -> Envelope {
    Declaration {
        controllers,
        halted: Vec::new(),
        mesh: "demo".into(),
        modules,
        node: "ace".into(),
    }
    .seal(sequence)
    .signed(me, Default::default())
}

/// The stream the controller writes: the envelope, then artifacts as given (digest, bytes).
pub(super) fn stream(artifacts: &[&(String, Vec<u8>)], envelope: &[u8]) -> Vec<u8> {
    let mut s = Vec::new();
    s.extend_from_slice(format!("declaration {}\n", envelope.len()).as_bytes());
    s.extend_from_slice(envelope);
    for (digest, bytes) in artifacts {
        s.extend_from_slice(format!("artifact {digest} {}\n", bytes.len()).as_bytes());
        s.extend_from_slice(bytes);
    }
    s.extend_from_slice(b"end\n");
    s
}

/// Runs `receive` on `bytes`: the result and the answer line.
pub(super) fn send_raw(
    root: &Root,
    bytes: &[u8],
) -> (Result<Received, NodeError>, serde_json::Value) {
    let mut out = Vec::new();
    let result = receive(root, &mut &bytes[..], &mut out);
    let text = String::from_utf8(out).unwrap();
    if text.is_empty() {
        // A cut stream is not answered.
        return (result, serde_json::Value::Null);
    }
    assert_eq!(text.lines().count(), 1, "one answer line: {text:?}");
    (result, serde_json::from_str(&text).unwrap())
}

/// Sends `artifacts` and `envelope`; expects it received.
pub(super) fn send(root: &Root, artifacts: &[&(String, Vec<u8>)], envelope: &Envelope) -> Received {
    let (result, answer) = send_raw(root, &stream(artifacts, &envelope.to_bytes()));
    let received = result.unwrap();
    assert_eq!(
        answer,
        serde_json::json!({"received": envelope.digest, "sequence": envelope.sequence})
    );
    received
}

/// Sends `bytes`; expects a refusal whose reason contains `needle`, answered and reported.
fn refused(root: &Root, bytes: &[u8], needle: &str) -> Report {
    let before = all_reports(root).len();
    let (result, answer) = send_raw(root, bytes);
    let reason = match result {
        Err(NodeError::Refused { reason }) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(reason.contains(needle), "{reason:?} lacks {needle:?}");
    assert_eq!(answer, serde_json::json!({ "refused": reason }));
    let reports = all_reports(root);
    assert_eq!(reports.len(), before + 1, "a refusal is reported");
    let report = reports.last().unwrap().clone();
    assert_eq!(report.outcome, Outcome::Refused);
    assert_eq!(report.reason.as_deref(), Some(reason.as_str()));
    report
}

/// A stream cut short: an error, no answer, no report (the node refused nothing).
fn cut_short(root: &Root, bytes: &[u8]) {
    let before = all_reports(root).len();
    let (result, answer) = send_raw(root, bytes);
    match result {
        Err(NodeError::Cut { reason }) => assert!(reason.contains("truncated"), "{reason}"),
        other => panic!("expected a cut, got {other:?}"),
    }
    assert!(answer.is_null(), "a cut stream is not answered: {answer}");
    assert_eq!(
        all_reports(root).len(),
        before,
        "a cut stream is not reported"
    );
}

/// Every report in the journal, via `reports_since(0)`.
pub(super) fn all_reports(root: &Root) -> Vec<Report> {
    let mut out = Vec::new();
    reports_since(root, 0, &mut out).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Where a module's `current` link points, if it exists.
pub(super) fn current(root: &Root, name: &str) -> Option<PathBuf> {
    fs::read_link(root.join("modules").join(name).join("current")).ok()
}

/// The report of resource `id`; a panic naming the report when it has none.
pub(super) fn resource(report: &Report, id: &str) -> ResourceReport {
    report
        .resources
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no {id} in {report:?}"))
        .clone()
}

fn held(e: &Envelope) -> Option<Held> {
    Some(Held {
        digest: e.digest.clone(),
        sequence: e.sequence,
    })
}

#[test]
fn receive_apply_report_round_trip() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(&t.path().join("node")).unwrap();
    let web = artifact(&[("hello.txt", "hi\n"), ("bin/run", "#!/bin/sh\n")]);
    let env = envelope(
        vec![module(
            "web",
            &web,
            Some(
                "test -f hello.txt && test \"$MESH_MODULE\" = web && test -d \"$MESH_NODE_ROOT/modules\"",
            ),
        )],
        1,
    );

    let received = send(root, &[&web], &env);
    assert_eq!(received.artifacts, vec![web.0.clone()]);
    assert!(!received.unchanged);
    assert_eq!(
        fs::read(root.join("declaration.json")).unwrap(),
        env.to_bytes()
    );
    let h = have(root).unwrap();
    assert_eq!(h.artifacts, vec![web.0.clone()]);
    assert_eq!(h.declaration, held(&env));
    assert_eq!(h.applied, None);
    assert!(
        all_reports(root).is_empty(),
        "a receive alone reports nothing"
    );

    let report = apply(root).unwrap();
    assert_eq!(report.outcome, Outcome::Applied, "{report:?}");
    assert_eq!(report.reason, None);
    assert_eq!(report.report_sequence, 1);
    assert_eq!(report.declaration, held(&env));
    assert_eq!(report.host_version, HOST_VERSION);
    assert_eq!(
        report.resources,
        [ResourceReport {
            id: "module:web".into(),
            outcome: ResourceOutcome::Ok,
            reason: None,
            rolled_back: None,
            health: None,
            secrets: Default::default(),
        }]
    );
    assert_eq!(current(root, "web"), Some(PathBuf::from(&web.0)));
    assert_eq!(
        fs::read(root.join("modules/web/current/hello.txt")).unwrap(),
        b"hi\n"
    );
    assert_eq!(have(root).unwrap().applied, held(&env));
    assert_eq!(all_reports(root), vec![report.clone()]);

    // Applying again converges and reports again, with the next report sequence.
    let again = apply(root).unwrap();
    assert_eq!(again.report_sequence, 2);
    assert_eq!(again.resources, report.resources);
    let mut out = Vec::new();
    assert_eq!(reports_since(root, 1, &mut out).unwrap(), 1);
    let only: Report = serde_json::from_slice(&out).unwrap();
    assert_eq!(only, again);

    // No temp files left in the root.
    let mut names: Vec<_> = fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ".lock",
            "artifacts",
            "declaration.json",
            "journal-id",
            "kept",
            "modules",
            "reports",
            "state.json",
            "trust.json"
        ]
    );
}

#[test]
fn an_identical_receive_is_idempotent() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "a")]);
    let env = envelope(vec![module("a", &a, None)], 4);
    send(root, &[&a], &env);
    let written = fs::metadata(root.join("declaration.json"))
        .unwrap()
        .modified()
        .unwrap();
    // Again with the artifact, and again without it (the controller saw it held).
    for artifacts in [&[&a][..], &[]] {
        let r = send(root, artifacts, &env);
        assert!(r.unchanged);
    }
    assert_eq!(
        fs::metadata(root.join("declaration.json"))
            .unwrap()
            .modified()
            .unwrap(),
        written,
        "not rewritten"
    );
    assert!(all_reports(root).is_empty());
    // Also after it was applied.
    apply(root).unwrap();
    assert!(send(root, &[], &env).unchanged);
}

#[test]
fn a_lower_sequence_is_refused_whole() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let b = artifact(&[("a", "2")]);
    let newer = envelope(vec![module("m", &a, None)], 2);
    send(root, &[&a], &newer);

    let older = envelope(vec![module("m", &b, None)], 1);
    let report = refused(
        root,
        &stream(&[&b], &older.to_bytes()),
        "sequence 1 is lower than 2 already held",
    );
    assert_eq!(report.declaration, held(&older));
    assert!(report.resources.is_empty());
    assert_eq!(
        fs::read(root.join("declaration.json")).unwrap(),
        newer.to_bytes(),
        "the declaration in force stays"
    );

    // The same sequence with another digest.
    let same_seq = envelope(vec![module("m", &b, None)], 2);
    refused(
        root,
        &stream(&[], &same_seq.to_bytes()),
        "sequence 2 is already held with another digest",
    );

    // Lower than what was applied, even with declaration.json gone. (The apply removed `b`,
    // which nothing in force names: it is sent again.)
    apply(root).unwrap();
    fs::remove_file(root.join("declaration.json")).unwrap();
    refused(
        root,
        &stream(&[&b], &older.to_bytes()),
        "sequence 1 is lower than 2 already applied",
    );
    assert!(!root.join("declaration.json").exists());

    // Report sequences kept rising through refusals and applies.
    let seqs: Vec<u64> = all_reports(root)
        .iter()
        .map(|r| r.report_sequence)
        .collect();
    assert_eq!(seqs, [1, 2, 3, 4]);

    // A higher one is taken.
    let next = envelope(vec![module("m", &b, None)], 3);
    send(root, &[&b], &next);
    assert_eq!(have(root).unwrap().declaration, held(&next));
}

#[test]
fn a_digest_that_does_not_match_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let mut env = envelope(vec![module("m", &a, None)], 1);
    env.declaration.node = "other".into();
    let report = refused(
        root,
        &stream(&[&a], &env.to_bytes()),
        "does not match content",
    );
    assert_eq!(report.declaration, held(&env));
    assert!(!root.join("declaration.json").exists());
}

#[test]
fn an_unknown_field_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let env = envelope(vec![module("m", &a, None)], 1);
    let mut v = serde_json::to_value(&env).unwrap();
    v["declaration"]["modules"][0]["surprise"] = true.into();
    let report = refused(
        root,
        &stream(&[&a], &serde_json::to_vec(&v).unwrap()),
        "unknown field `surprise`",
    );
    assert_eq!(report.declaration, None, "the envelope could not be read");
    assert!(!root.join("declaration.json").exists());
    refused(root, &stream(&[], b"{not json"), "not a valid envelope");
}

/// Found with the fuzzing of envelopes (`fuzz/fuzz_targets/envelope.rs`): a signature checks
/// the envelope's value, so the node refuses any bytes but the canonical ones it was signed as.
#[test]
fn an_envelope_spelled_otherwise_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let mut m = module("m", &a, None);
    m.activate = Some("run \u{1a}".into());
    let env = String::from_utf8(envelope(vec![m], 1).to_bytes()).unwrap();
    let other = env.replace("\\u001a", "\\u001A");
    assert_ne!(other, env);
    let report = refused(root, &stream(&[&a], other.as_bytes()), "canonical encoding");
    assert_eq!(report.declaration, None);
    assert!(!root.join("declaration.json").exists());
}

#[test]
fn what_the_declaration_names_must_be_valid_and_held() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let env = envelope(vec![module("m", &a, None)], 1);
    refused(
        root,
        &stream(&[], &env.to_bytes()),
        &format!(
            "module m names artifact {} which the node does not hold",
            a.0
        ),
    );
    let bad = envelope(vec![module("../m", &a, None)], 1);
    refused(
        root,
        &stream(&[&a], &bad.to_bytes()),
        "invalid module name \"../m\"",
    );
    let twice = envelope(vec![module("m", &a, None), module("m", &a, None)], 1);
    refused(root, &stream(&[], &twice.to_bytes()), "declared twice");
    assert!(!root.join("declaration.json").exists());
}

#[test]
fn an_artifact_that_does_not_match_its_digest_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let forged = (a.0.clone(), b"other bytes".to_vec());
    let env = envelope(vec![module("m", &a, None)], 1);
    let report = refused(
        root,
        &stream(&[&forged], &env.to_bytes()),
        &format!("artifact {} does not match its digest", a.0),
    );
    assert_eq!(report.declaration, None);
    assert!(have(root).unwrap().artifacts.is_empty());
    assert_eq!(fs::read_dir(root.join("artifacts")).unwrap().count(), 0);
    assert!(!root.join("declaration.json").exists());

    let mut evil = stream(&[], &env.to_bytes());
    evil.truncate(evil.len() - b"end\n".len());
    evil.extend_from_slice(b"artifact ../../etc/passwd 3\nabc");
    refused(root, &evil, "not an artifact digest");
    refused(root, b"hello\n", "must start with the declaration");
}

#[test]
fn a_truncated_stream_is_cut_not_refused() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let env = envelope(vec![module("m", &a, None)], 1);
    let whole = stream(&[&a], &env.to_bytes());

    // Cut inside the artifact, inside the declaration, before `end`, inside `end`.
    let header = format!("artifact {} {}\n", a.0, a.1.len()).len();
    for cut in [
        header + 10,
        whole.len() - 20,
        whole.len() - 4,
        whole.len() - 2,
    ] {
        cut_short(root, &whole[..cut]);
        assert!(!root.join("declaration.json").exists(), "cut at {cut}");
    }
    cut_short(root, b"");
    let mut junk = whole[..whole.len() - 4].to_vec();
    junk.extend_from_slice(b"more\n");
    refused(root, &junk, "unexpected line");
    assert!(!root.join("declaration.json").exists());

    // The whole stream is taken.
    send(root, &[&a], &env);
}

#[test]
fn a_tar_climbing_out_fails_its_module_and_writes_nothing_outside() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(&t.path().join("node")).unwrap();
    let evil = evil_artifact();
    let good = artifact(&[("a", "1")]);
    let env = envelope(
        vec![module("bad", &evil, None), module("good", &good, None)],
        1,
    );
    send(root, &[&evil, &good], &env);
    let report = apply(root).unwrap();
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(
        report.reason.as_deref(),
        Some("1 of 2 resources failed: module:bad")
    );
    let bad = resource(&report, "module:bad");
    assert_eq!(bad.outcome, ResourceOutcome::Failed);
    assert!(
        bad.reason.as_deref().unwrap().contains("unsafe path"),
        "{bad:?}"
    );
    assert_eq!(
        resource(&report, "module:good").outcome,
        ResourceOutcome::Ok
    );

    assert!(!t.path().join("evil").exists());
    assert!(!root.join("evil").exists());
    assert!(!root.join("modules/evil").exists());
    assert_eq!(
        fs::read_dir(root.join("modules/bad")).unwrap().count(),
        0,
        "nothing unpacked, no link"
    );
    let mut outside: Vec<_> = fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    outside.sort();
    assert_eq!(outside, ["node"]);
    // The floor rose all the same.
    assert_eq!(have(root).unwrap().applied, held(&env));
}

#[test]
fn a_failing_activate_fails_its_module() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let env = envelope(
        vec![module("m", &a, Some("echo 'port 80 in use' >&2; exit 2"))],
        1,
    );
    send(root, &[&a], &env);
    let report = apply(root).unwrap();
    assert_eq!(report.outcome, Outcome::Failed);
    let m = resource(&report, "module:m");
    assert_eq!(m.outcome, ResourceOutcome::Failed);
    assert_eq!(
        m.reason.as_deref(),
        Some(
            "activate exited with status 2; last output:\nport 80 in use\n\
             nothing to go back to: no earlier version of m activated on this node"
        )
    );
    assert_eq!(m.rolled_back, None);
    // It was switched and failed: no version of it ever worked here, so `current` names none
    // (not the one that failed). The floor rose all the same.
    assert_eq!(current(root, "m"), None);
    assert_eq!(have(root).unwrap().applied, held(&env));
    assert_eq!(all_reports(root), [report]);
}

#[test]
fn an_activate_that_hangs_is_killed() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let env = envelope(vec![module("m", &a, Some("sleep 30"))], 1);
    send(root, &[&a], &env);
    let options = ApplyOptions {
        activate_timeout: Duration::from_millis(200),
    };
    let report = apply_with(root, &options).unwrap();
    let m = resource(&report, "module:m");
    assert_eq!(m.outcome, ResourceOutcome::Failed);
    assert!(
        m.reason
            .as_deref()
            .unwrap()
            .starts_with("activate timed out"),
        "{m:?}"
    );
}

#[test]
fn a_module_no_longer_declared_is_switched_off() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let b = artifact(&[("b", "1")]);
    send(
        root,
        &[&a, &b],
        &envelope(vec![module("a", &a, None), module("b", &b, None)], 1),
    );
    apply(root).unwrap();
    assert!(current(root, "b").is_some());

    send(root, &[], &envelope(vec![module("a", &a, None)], 2));
    let report = apply(root).unwrap();
    assert_eq!(report.outcome, Outcome::Applied);
    let ids: Vec<_> = report
        .resources
        .iter()
        .map(|r| (r.id.as_str(), r.outcome))
        .collect();
    assert_eq!(
        ids,
        [
            ("module:a", ResourceOutcome::Ok),
            ("module:b", ResourceOutcome::Removed)
        ]
    );
    assert_eq!(current(root, "b"), None);
    assert!(
        root.join("modules/b").join(&b.0).is_dir(),
        "kept for a way back"
    );
    // Switched off once; not reported again.
    let again = apply(root).unwrap();
    assert_eq!(again.resources.len(), 1);

    // Declaring nothing switches everything off.
    send(root, &[], &envelope(vec![], 3));
    let none = apply(root).unwrap();
    assert_eq!(none.outcome, Outcome::Applied);
    assert_eq!(
        none.resources,
        [ResourceReport {
            id: "module:a".into(),
            outcome: ResourceOutcome::Removed,
            reason: None,
            rolled_back: None,
            health: None,
            secrets: Default::default(),
        }]
    );
}

#[test]
fn only_the_newest_old_versions_are_kept() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let versions: Vec<_> = (0..6).map(|i| artifact(&[("v", &i.to_string())])).collect();
    for (i, v) in versions.iter().enumerate() {
        send(
            root,
            &[v],
            &envelope(vec![module("m", v, None)], i as u64 + 1),
        );
        assert_eq!(apply(root).unwrap().outcome, Outcome::Applied);
    }
    let mut kept: Vec<_> = fs::read_dir(root.join("modules/m"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "current" && n != "good.json")
        .collect();
    kept.sort();
    let mut expected: Vec<_> = versions[2..].iter().map(|v| v.0.clone()).collect();
    expected.sort();
    assert_eq!(kept, expected, "current and the {KEEP_VERSIONS} before it");
    assert_eq!(current(root, "m"), Some(PathBuf::from(&versions[5].0)));

    // Going back to a kept version makes it the most recently used: once another version
    // comes, the oldest-used (v3) goes, not it.
    send(
        root,
        &[],
        &envelope(vec![module("m", &versions[2], None)], 7),
    );
    apply(root).unwrap();
    let v6 = artifact(&[("v", "6")]);
    send(root, &[&v6], &envelope(vec![module("m", &v6, None)], 8));
    apply(root).unwrap();
    let m = root.join("modules/m");
    for kept in [&versions[2], &versions[4], &versions[5], &v6] {
        assert!(m.join(&kept.0).is_dir());
    }
    assert!(!m.join(&versions[3].0).exists());
    assert_eq!(
        fs::read_dir(&m).unwrap().count(),
        1 + 1 + KEEP_VERSIONS,
        "current, the version in use and {KEEP_VERSIONS} more"
    );
}

#[test]
fn nothing_declared_is_an_error_without_a_report() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(&t.path().join("node")).unwrap();
    let err = apply(root).unwrap_err();
    assert!(matches!(err, NodeError::NothingDeclared { .. }), "{err}");
    assert!(!root.exists(), "nothing created");
    fs::create_dir(root).unwrap();
    assert!(matches!(
        apply(root).unwrap_err(),
        NodeError::NothingDeclared { .. }
    ));
    assert!(all_reports(root).is_empty());
}

#[test]
fn an_unusable_root_is_an_io_error_naming_it() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("file");
    fs::write(&file, b"").unwrap();
    let root =
        Root::check(&file.join("node")).expect("a root under a file is not there: it passes");
    let mut out = Vec::new();
    let err = receive(&root, &mut &b"end\n"[..], &mut out).unwrap_err();
    assert!(
        matches!(&err, NodeError::Io { path, .. } if path == &*root),
        "{err:?}"
    );
    assert!(err.to_string().contains(&root.display().to_string()));
    assert!(out.is_empty());
}

#[test]
fn a_damaged_state_file_is_not_a_floor_to_guess() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    fs::write(root.join("state.json"), b"{torn").unwrap();
    let env = envelope(vec![], 1);
    let mut out = Vec::new();
    let err = receive(root, &mut &stream(&[], &env.to_bytes())[..], &mut out).unwrap_err();
    assert!(matches!(err, NodeError::Corrupt { .. }), "{err:?}");
    assert!(!root.join("declaration.json").exists());
    assert!(matches!(have(root), Err(NodeError::Corrupt { .. })));
}

#[test]
fn apply_removes_the_artifacts_nothing_in_force_or_kept_names() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let b = artifact(&[("a", "2")]);
    let stray = artifact(&[("a", "3")]);
    send(
        root,
        &[&a, &stray],
        &envelope(vec![module("m", &a, None)], 1),
    );
    apply(root).unwrap();
    let held = |d: &str| root.join("artifacts").join(d).exists();
    assert!(held(&a.0), "named by the declaration in force");
    assert!(!held(&stray.0), "named by nothing");
    send(root, &[&b], &envelope(vec![module("m", &b, None)], 2));
    apply(root).unwrap();
    assert!(held(&b.0), "in force");
    assert!(
        held(&a.0),
        "a kept version under modules/ was unpacked from it"
    );
}

#[test]
fn a_compressed_artifact_is_verified_after_decompression() {
    let t = tempfile::tempdir().unwrap();
    let text: String = (0..50_000)
        .map(|i| if i % 7 == 0 { '\n' } else { 'x' })
        .collect();
    let art = artifact(&[("bin/run", text.as_str())]);
    let env = envelope(vec![module("web", &art, None)], 1);
    let packed = zstd::encode_all(&art.1[..], 3).unwrap();
    assert!(packed.len() * 4 < art.1.len());
    let compressed = |digest: &str, size: usize, body: &[u8], env: &Envelope| {
        let mut s = stream(&[], &env.to_bytes());
        s.truncate(s.len() - b"end\n".len());
        s.extend_from_slice(format!("artifact {digest} {size} zstd {}\n", body.len()).as_bytes());
        s.extend_from_slice(body);
        s.extend_from_slice(b"end\n");
        s
    };
    // Not zstd, or zstd of other bytes: refused whole.
    let root = &Root::check(t.path()).unwrap();
    refused(
        root,
        &compressed(&art.0, art.1.len(), &art.1[..packed.len()], &env),
        "compressed bytes",
    );
    let other = zstd::encode_all(&b"other bytes"[..], 3).unwrap();
    refused(
        root,
        &compressed(&art.0, 11, &other, &env),
        "does not match its digest",
    );
    // Cut inside the compressed bytes: not refused, not kept.
    let whole = compressed(&art.0, art.1.len(), &packed, &env);
    let header = whole.iter().position(|&b| b == b'\n').unwrap() + 1;
    cut_short(root, &whole[..header + packed.len() / 2]);
    // Whole: the tar is held under its own digest.
    let (result, _) = send_raw(&Root::check(t.path()).unwrap(), &whole);
    assert_eq!(result.unwrap().artifacts, vec![art.0.clone()]);
    assert_eq!(
        fs::read(t.path().join("artifacts").join(&art.0)).unwrap(),
        art.1
    );
}
