//! Going back: a module's new version that fails is switched back to the last one that
//! activated, on a real temp root with real `sh` activates that count their runs.

use std::fs;
use std::path::PathBuf;

use super::tests::{artifact, current, envelope, module, resource, send};
use super::*;
use mesh_proto::wire::DeclaredModule;

/// An activate that appends `tag` to `$MESH_NODE_ROOT/runs` and then runs `then`.
fn counting(tag: &str, then: &str) -> String {
    format!("echo {tag} >> \"$MESH_NODE_ROOT/runs\"; {then}")
}

/// The tags the activates appended, in order.
pub(super) fn runs(root: &Root) -> Vec<String> {
    fs::read_to_string(root.join("runs"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A declared module with its build id.
fn build(name: &str, art: &(String, Vec<u8>), activate: &str, id: &str) -> DeclaredModule {
    DeclaredModule {
        build: id.into(),
        ..module(name, art, Some(activate))
    }
}

#[test]
fn a_failing_version_goes_back_to_the_last_that_activated_and_stays_there() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let v1 = artifact(&[("v", "1")]);
    let v2 = artifact(&[("v", "2")]);
    let v3 = artifact(&[("v", "3")]);
    let ok1 = build("svc", &v1, &counting("v1", "true"), "1");
    send(root, &[&v1], &envelope(vec![ok1], 1));
    assert_eq!(apply(root).unwrap().outcome, Outcome::Applied);

    let bad = build(
        "svc",
        &v2,
        &counting("v2", "echo 'no port' >&2; exit 1"),
        "2",
    );
    send(root, &[&v2], &envelope(vec![bad], 2));
    let report = apply(root).unwrap();
    assert_eq!(report.outcome, Outcome::Failed);
    let svc = resource(&report, "module:svc");
    assert_eq!(svc.outcome, ResourceOutcome::Failed);
    let reason = svc.reason.clone().unwrap();
    assert!(
        reason
            .starts_with("build 2 (commit c0ffee) failed; rolled back to build 1 (commit c0ffee)"),
        "{reason}"
    );
    assert!(
        reason.contains("exited with status 1; last output:\nno port"),
        "{reason}"
    );
    let back = svc.rolled_back.clone().expect("rolled back");
    assert_eq!(
        (back.failed_build.as_str(), back.to_build.as_str()),
        ("2", "1")
    );
    assert!(!back.down);
    assert!(
        report
            .reason
            .as_deref()
            .unwrap()
            .contains("module:svc rolled back to build 1"),
        "{report:?}"
    );
    assert_eq!(
        current(root, "svc"),
        Some(PathBuf::from(&v1.0)),
        "v1 runs again"
    );
    assert_eq!(
        runs(root),
        ["v1", "v2", "v1"],
        "v2 tried, v1 activated again"
    );

    // Later applies of the same declaration keep v1 and run nothing: the same failure again.
    let again = apply(root).unwrap();
    let svc_again = resource(&again, "module:svc");
    assert_eq!(svc_again.outcome, ResourceOutcome::Failed);
    assert_eq!(svc_again.rolled_back, svc.rolled_back);
    assert!(
        svc_again
            .reason
            .unwrap()
            .starts_with("not tried again: build 2")
    );
    assert_eq!(runs(root), ["v1", "v2", "v1"]);
    assert_eq!(current(root, "svc"), Some(PathBuf::from(&v1.0)));

    // The next version that activates is current, and is what a later failure goes back to.
    let ok3 = build("svc", &v3, &counting("v3", "true"), "3");
    send(root, &[&v3], &envelope(vec![ok3], 3));
    let fixed = apply(root).unwrap();
    assert_eq!(fixed.outcome, Outcome::Applied, "{fixed:?}");
    assert_eq!(resource(&fixed, "module:svc").rolled_back, None);
    assert_eq!(current(root, "svc"), Some(PathBuf::from(&v3.0)));
    assert!(!root.join("modules/svc/failed.json").exists());
    assert_eq!(runs(root), ["v1", "v2", "v1", "v3"]);
}

#[test]
fn a_first_version_that_fails_has_nothing_to_go_back_to_and_is_tried_again() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let v1 = artifact(&[("v", "1")]);
    let bad = build("svc", &v1, &counting("v1", "exit 4"), "1");
    send(root, &[&v1], &envelope(vec![bad], 1));
    let svc = resource(&apply(root).unwrap(), "module:svc");
    assert_eq!(svc.outcome, ResourceOutcome::Failed);
    assert_eq!(svc.rolled_back, None);
    assert!(
        svc.reason
            .unwrap()
            .ends_with("nothing to go back to: no earlier version of svc activated on this node")
    );
    // Nothing runs well to be disturbed: the next apply tries it again.
    apply(root).unwrap();
    assert_eq!(runs(root), ["v1", "v1"]);
}

#[test]
fn going_back_that_fails_too_leaves_the_module_down_and_says_so() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let v1 = artifact(&[("v", "1")]);
    let v2 = artifact(&[("v", "2")]);
    // v1 activates while the root holds no `broken` file.
    let ok1 = build(
        "svc",
        &v1,
        &counting("v1", "test ! -f \"$MESH_NODE_ROOT/broken\""),
        "1",
    );
    send(root, &[&v1], &envelope(vec![ok1], 1));
    assert_eq!(apply(root).unwrap().outcome, Outcome::Applied);
    fs::write(root.join("broken"), "").unwrap();
    send(
        root,
        &[&v2],
        &envelope(vec![build("svc", &v2, &counting("v2", "exit 1"), "2")], 2),
    );
    let report = apply(root).unwrap();
    let svc = resource(&report, "module:svc");
    let reason = svc.reason.clone().unwrap();
    assert!(
        reason.starts_with(
            "DOWN: build 2 (commit c0ffee) failed, and going back to build 1 (commit c0ffee) failed too"
        ),
        "{reason}"
    );
    assert!(svc.rolled_back.expect("went back").down);
    assert!(report.reason.unwrap().contains("module:svc is DOWN"));
    assert_eq!(runs(root), ["v1", "v2", "v1"]);
    // Nothing runs well: the next apply tries the declared version again, and goes back again.
    fs::remove_file(root.join("broken")).unwrap();
    let next = resource(&apply(root).unwrap(), "module:svc");
    assert!(
        !next.rolled_back.expect("went back").down,
        "{:?}",
        next.reason
    );
    assert_eq!(runs(root), ["v1", "v2", "v1", "v2", "v1"]);
}

#[test]
fn only_the_failing_module_moves_and_an_unchanged_one_is_not_activated_again() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let (a1, b1, b2, b3) = (
        artifact(&[("a", "1")]),
        artifact(&[("b", "1")]),
        artifact(&[("b", "2")]),
        artifact(&[("b", "3")]),
    );
    let a = build("a", &a1, &counting("a1", "true"), "1");
    send(
        root,
        &[&a1, &b1],
        &envelope(
            vec![a.clone(), build("b", &b1, &counting("b1", "true"), "1")],
            1,
        ),
    );
    assert_eq!(apply(root).unwrap().outcome, Outcome::Applied);
    assert_eq!(runs(root), ["a1", "b1"]);
    // Applying again (the node's timer) runs nothing.
    assert_eq!(apply(root).unwrap().outcome, Outcome::Applied);
    assert_eq!(runs(root), ["a1", "b1"]);

    // b changes and comes up: a is not activated again.
    send(
        root,
        &[&b2],
        &envelope(
            vec![a.clone(), build("b", &b2, &counting("b2", "true"), "2")],
            2,
        ),
    );
    assert_eq!(apply(root).unwrap().outcome, Outcome::Applied);
    assert_eq!(runs(root), ["a1", "b1", "b2"]);

    // b changes and fails: b goes back, a is neither touched nor reported failed.
    send(
        root,
        &[&b3],
        &envelope(vec![a, build("b", &b3, &counting("b3", "exit 1"), "3")], 3),
    );
    let report = apply(root).unwrap();
    assert_eq!(resource(&report, "module:a").outcome, ResourceOutcome::Ok);
    assert_eq!(
        resource(&report, "module:b").rolled_back.unwrap().to_build,
        "2"
    );
    assert_eq!(runs(root), ["a1", "b1", "b2", "b3", "b2"]);
    assert_eq!(current(root, "a"), Some(PathBuf::from(&a1.0)));
}

#[test]
fn an_activate_changed_alone_is_a_new_version() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let v1 = artifact(&[("v", "1")]);
    send(
        root,
        &[&v1],
        &envelope(vec![build("svc", &v1, &counting("one", "true"), "1")], 1),
    );
    apply(root).unwrap();
    send(
        root,
        &[],
        &envelope(vec![build("svc", &v1, &counting("two", "true"), "2")], 2),
    );
    assert_eq!(apply(root).unwrap().outcome, Outcome::Applied);
    assert_eq!(runs(root), ["one", "two"]);
}

#[test]
fn pruning_keeps_the_last_good_version_behind_newer_failures() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let good = artifact(&[("v", "good")]);
    send(
        root,
        &[&good],
        &envelope(vec![build("svc", &good, "true", "1")], 1),
    );
    apply(root).unwrap();
    // More failing versions than are kept besides the one in use: each goes back to `good`.
    let n = KEEP_VERSIONS + 2;
    for i in 0..n {
        let bad = artifact(&[("v", &format!("bad{i}"))]);
        let id = (i + 2).to_string();
        send(
            root,
            &[&bad],
            &envelope(vec![build("svc", &bad, "exit 1", &id)], i as u64 + 2),
        );
        let r = resource(&apply(root).unwrap(), "module:svc");
        assert_eq!(r.rolled_back.unwrap().to_build, "1");
    }
    let dir = root.join("modules/svc");
    assert!(dir.join(&good.0).is_dir(), "the last good version is kept");
    let versions = fs::read_dir(&dir)
        .unwrap()
        .filter(|e| crate::artifact::is_digest(e.as_ref().unwrap().file_name().to_str().unwrap()))
        .count();
    assert_eq!(
        versions,
        1 + KEEP_VERSIONS,
        "the failures beyond {KEEP_VERSIONS} are pruned"
    );

    // And when `current` names another version (a module switched off and declared again
    // with versions that came up, say) and the good one is the oldest used, it is kept.
    let newer: Vec<_> = (0..KEEP_VERSIONS + 1)
        .map(|i| artifact(&[("v", &format!("newer{i}"))]))
        .collect();
    for v in &newer {
        crate::artifact::unpack(&v.1[..], &dir.join(&v.0)).unwrap();
    }
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    fs::File::open(dir.join(&good.0))
        .unwrap()
        .set_modified(past)
        .unwrap();
    fs::remove_file(dir.join("current")).unwrap();
    std::os::unix::fs::symlink(&newer[0].0, dir.join("current")).unwrap();
    super::apply::prune(&dir, KEEP_VERSIONS, Some(&good.0)).unwrap();
    assert!(
        dir.join(&good.0).is_dir(),
        "kept though it is the oldest used"
    );
    assert!(dir.join(&newer[0].0).is_dir(), "current is kept");
}

/// svc at v1 (activated, its activate appending the content of its file `v` to `ROOT/seen`),
/// then v2, whose activate runs `then` and fails: (v1, v2).
fn good_then_failing(root: &Root) -> ((String, Vec<u8>), (String, Vec<u8>)) {
    let v1 = artifact(&[("v", "1"), ("bin/run", "#!/bin/sh\n")]);
    let ok1 = build(
        "svc",
        &v1,
        "echo \"$(cat v)\" >> \"$MESH_NODE_ROOT/seen\"",
        "1",
    );
    send(root, &[&v1], &envelope(vec![ok1], 1));
    assert_eq!(apply(root).unwrap().outcome, Outcome::Applied);
    (v1, artifact(&[("v", "2")]))
}

/// What v1's activate saw in its file `v`, each time it ran.
fn seen(root: &Root) -> Vec<String> {
    fs::read_to_string(root.join("seen"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Issue 33, item 7: an activate that removes the record of what to go back to (as
/// `good.json` was, in the module's own directory) does not leave the next failure with
/// nothing to go back to.
#[test]
fn an_activate_that_removes_the_good_record_changes_nothing_for_the_next_failure() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let (v1, v2) = good_then_failing(root);
    let wipe = "rm -rf \"$MESH_NODE_ROOT/kept\" \"$MESH_NODE_ROOT/modules/svc/good.json\"; exit 1";
    send(
        root,
        &[&v2],
        &envelope(vec![build("svc", &v2, wipe, "2")], 2),
    );
    let svc = resource(&apply(root).unwrap(), "module:svc");
    assert_eq!(svc.rolled_back.expect("went back").to_build, "1");
    let v3 = artifact(&[("v", "3")]);
    send(
        root,
        &[&v3],
        &envelope(vec![build("svc", &v3, "exit 1", "3")], 3),
    );
    let svc = resource(&apply(root).unwrap(), "module:svc");
    let reason = svc.reason.clone().unwrap_or_default();
    assert!(!reason.contains("nothing to go back to"), "{reason}");
    let back = svc.rolled_back.expect("went back");
    assert_eq!((back.to_build.as_str(), back.down), ("1", false));
    assert_eq!(current(root, "svc"), Some(PathBuf::from(&v1.0)));
    assert_eq!(seen(root), ["1", "1", "1"]);
}

/// Issue 33, item 7: a good version whose unpacked tree was edited is unpacked again from its
/// artifact before it runs again, never re-activated as it was left.
#[test]
fn going_back_restores_an_edited_tree_before_it_runs_again() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let (v1, v2) = good_then_failing(root);
    let tree = root.join("modules/svc").join(&v1.0);
    fs::write(tree.join("v"), "tampered").unwrap();
    fs::write(tree.join("planted"), "x").unwrap();
    send(
        root,
        &[&v2],
        &envelope(vec![build("svc", &v2, "exit 1", "2")], 2),
    );
    let svc = resource(&apply(root).unwrap(), "module:svc");
    assert!(
        !svc.rolled_back.expect("went back").down,
        "{:?}",
        svc.reason
    );
    assert_eq!(seen(root), ["1", "1"], "v1 ran again as it was unpacked");
    assert_eq!(fs::read_to_string(tree.join("v")).unwrap(), "1");
    assert!(!tree.join("planted").exists());
    assert_eq!(current(root, "svc"), Some(PathBuf::from(&v1.0)));
}

/// Issue 33, item 7: a good version whose tree and `artifacts/` file are both gone is
/// unpacked again from the copy kept for going back.
#[test]
fn going_back_unpacks_from_the_kept_artifact_when_the_tree_and_the_artifact_are_gone() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let (v1, v2) = good_then_failing(root);
    fs::remove_dir_all(root.join("modules/svc").join(&v1.0)).unwrap();
    fs::remove_file(root.join("artifacts").join(&v1.0)).unwrap();
    send(
        root,
        &[&v2],
        &envelope(vec![build("svc", &v2, "exit 1", "2")], 2),
    );
    let svc = resource(&apply(root).unwrap(), "module:svc");
    let back = svc.rolled_back.expect("went back");
    assert!(!back.down, "{:?}", svc.reason);
    assert_eq!(seen(root), ["1", "1"]);
    assert_eq!(current(root, "svc"), Some(PathBuf::from(&v1.0)));
}

/// Issue 33, item 7: when nothing of the good version is left to unpack, the report says
/// exactly what is missing (the module is down), never that nothing ever activated.
#[test]
fn going_back_with_nothing_left_to_unpack_says_what_is_missing() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let (v1, v2) = good_then_failing(root);
    fs::write(root.join("modules/svc").join(&v1.0).join("v"), "tampered").unwrap();
    fs::remove_file(root.join("artifacts").join(&v1.0)).unwrap();
    fs::remove_file(root.join("kept").join(&v1.0)).unwrap();
    send(
        root,
        &[&v2],
        &envelope(vec![build("svc", &v2, "exit 1", "2")], 2),
    );
    let svc = resource(&apply(root).unwrap(), "module:svc");
    let reason = svc.reason.clone().unwrap_or_default();
    assert!(svc.rolled_back.expect("tried").down, "{reason}");
    assert!(reason.starts_with("DOWN: build 2"), "{reason}");
    assert!(reason.contains("is not as it was unpacked"), "{reason}");
    assert!(
        reason.contains(&format!("artifact {} is not held on the node", v1.0)),
        "{reason}"
    );
    assert_eq!(seen(root), ["1"], "the tampered tree never ran");
}

/// The tree check's premise: every unpacked artifact packs to its own digest again.
#[test]
fn an_unpacked_artifact_packs_to_its_digest_again() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    fs::create_dir_all(src.join("a/empty")).unwrap();
    fs::create_dir_all(src.join("b")).unwrap();
    fs::write(src.join("a/x"), "x").unwrap();
    fs::write(src.join("b/run"), "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(src.join("b/run"), fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink("../a/x", src.join("b/link")).unwrap();
    let long = "n".repeat(120);
    fs::write(src.join("a").join(&long), "long").unwrap();
    let mut bytes = Vec::new();
    let (digest, _) = crate::artifact::pack(&src, &mut bytes).unwrap();
    let out = t.path().join("out");
    crate::artifact::unpack(&bytes[..], &out).unwrap();
    let (again, _) = crate::artifact::pack(&out, &mut std::io::sink()).unwrap();
    assert_eq!(again, digest);
}

/// Issue 33, item 7: with the record of what activated gone (removed between applies, by
/// something other than an apply), the failure says exactly that, not that nothing ever did.
#[test]
fn a_failure_without_a_record_says_the_record_is_missing() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let (v1, v2) = good_then_failing(root);
    fs::remove_dir_all(root.join("kept")).unwrap();
    send(
        root,
        &[&v2],
        &envelope(vec![build("svc", &v2, "exit 1", "2")], 2),
    );
    let svc = resource(&apply(root).unwrap(), "module:svc");
    let reason = svc.reason.unwrap_or_default();
    assert!(
        reason.contains(&format!(
            "nothing to go back to: svc was switched to {} before, but no record says it ever activated",
            v1.0
        )) && reason.contains("kept/svc.json is missing"),
        "{reason}"
    );
}
