//! Checks: a version must pass its check (for its settle time) to count as applied, and every
//! report says whether what runs works — on real temp roots with real `sh` commands.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::going_back_tests::runs;
use super::tests::{all_reports, artifact, current, envelope, module, resource, send};
use super::*;
use mesh_proto::wire::DeclaredModule;

/// A module whose activate appends `tag` to `$MESH_NODE_ROOT/runs`, with a check.
fn checked(name: &str, art: &(String, Vec<u8>), id: &str, check: &str) -> DeclaredModule {
    DeclaredModule {
        build: id.into(),
        check: Some(check.into()),
        ..module(
            name,
            art,
            Some(&format!("echo {id} >> \"$MESH_NODE_ROOT/runs\"")),
        )
    }
}

/// A check that fails once `$MESH_NODE_ROOT/<file>` exists, saying so.
fn alive_unless(file: &str) -> String {
    format!(
        "if [ -e \"$MESH_NODE_ROOT/{file}\" ]; then echo 'connection refused on :8080'; exit 1; fi"
    )
}

#[test]
fn a_version_failing_its_check_goes_back_and_the_previous_activate_runs_again() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let v1 = artifact(&[("v", "1")]);
    let v2 = artifact(&[("v", "2")]);
    send(
        root,
        &[&v1],
        &envelope(vec![checked("svc", &v1, "1", "true")], 1),
    );
    let first = apply(root).unwrap();
    assert_eq!(first.outcome, Outcome::Applied);
    let health = resource(&first, "module:svc").health.expect("checked");
    assert!(health.healthy);
    assert_eq!(health.build, "1");

    let broken = checked("svc", &v2, "2", "echo 'no answer on :8080'; exit 7");
    send(root, &[&v2], &envelope(vec![broken], 2));
    let report = apply(root).unwrap();
    assert_eq!(report.outcome, Outcome::Failed);
    let svc = resource(&report, "module:svc");
    let reason = svc.reason.clone().unwrap();
    assert!(
        reason.contains("the check failed right after activate: check exited with status 7; last output:\nno answer on :8080"),
        "{reason}"
    );
    assert_eq!(svc.rolled_back.clone().expect("went back").to_build, "1");
    assert_eq!(current(root, "svc"), Some(PathBuf::from(&v1.0)));
    assert_eq!(runs(root), ["1", "2", "1"], "v1's activate ran again");
    // What runs again is checked with the declared check, which fails: it says so.
    let now = resource(&report, "module:svc").health.expect("checked");
    assert_eq!((now.healthy, now.build.as_str()), (false, "1"));
}

#[test]
fn a_check_that_fails_while_settling_is_a_failed_version() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let v1 = artifact(&[("v", "1")]);
    let v2 = artifact(&[("v", "2")]);
    send(
        root,
        &[&v1],
        &envelope(vec![checked("svc", &v1, "1", "true")], 1),
    );
    apply(root).unwrap();
    // v2 comes up, answers once, and dies 300 ms later: inside its settle time.
    let dies = DeclaredModule {
        activate: Some("echo 2 >> \"$MESH_NODE_ROOT/runs\"; (sleep 0.3; touch \"$MESH_NODE_ROOT/died\") >/dev/null 2>&1 &".into()),
        settle_ms: Some(1200),
        provide: None,
        secrets: Vec::new(),
        ..checked("svc", &v2, "2", &alive_unless("died"))
    };
    send(root, &[&v2], &envelope(vec![dies], 2));
    let start = Instant::now();
    let report = apply(root).unwrap();
    assert!(start.elapsed() >= Duration::from_millis(400), "it settled");
    let svc = resource(&report, "module:svc");
    let reason = svc.reason.unwrap();
    assert!(
        reason.contains("after activate, while settling"),
        "{reason}"
    );
    assert!(reason.contains("connection refused on :8080"), "{reason}");
    assert_eq!(current(root, "svc"), Some(PathBuf::from(&v1.0)));
    assert_eq!(runs(root), ["1", "2", "1"]);
}

#[test]
fn a_first_version_failing_its_check_leaves_current_naming_nothing() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let v1 = artifact(&[("v", "1")]);
    send(
        root,
        &[&v1],
        &envelope(vec![checked("svc", &v1, "1", "exit 1")], 1),
    );
    let report = apply(root).unwrap();
    let svc = resource(&report, "module:svc");
    assert_eq!(svc.outcome, ResourceOutcome::Failed);
    assert_eq!(current(root, "svc"), None);
    assert_eq!(svc.health, None, "nothing runs, so nothing is checked");
}

#[test]
fn a_service_that_dies_after_settling_is_reported_unhealthy_and_stays() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let v1 = artifact(&[("v", "1")]);
    send(
        root,
        &[&v1],
        &envelope(vec![checked("svc", &v1, "1", &alive_unless("died"))], 1),
    );
    let applied = apply(root).unwrap();
    let since = resource(&applied, "module:svc").health.unwrap().since;

    // Healthy again: the same "since", in a report of its own that says what the apply said.
    let again = check(root).unwrap().expect("a checked report");
    assert_eq!(again.outcome, Outcome::Checked);
    assert_eq!(again.declaration, applied.declaration);
    let h = resource(&again, "module:svc").health.unwrap();
    assert!(h.healthy);
    assert_eq!(h.since, since);

    fs::write(root.join("died"), "").unwrap();
    let sick = check(root).unwrap().expect("a checked report");
    let svc = resource(&sick, "module:svc");
    assert_eq!(
        svc.outcome,
        ResourceOutcome::Ok,
        "it applied; it does not work"
    );
    let h = svc.health.unwrap();
    assert!(!h.healthy);
    assert_eq!(
        h.output.as_deref(),
        Some("check exited with status 1; last output:\nconnection refused on :8080")
    );
    // Unhealthy after settling does not go back by itself: the build may not be at fault.
    assert_eq!(current(root, "svc"), Some(PathBuf::from(&v1.0)));
    assert_eq!(runs(root), ["1"]);
    assert_eq!(all_reports(root).len(), 3);
}

#[test]
fn without_a_check_nothing_is_reported_and_checks_run_side_by_side_under_their_timeouts() {
    let t = tempfile::tempdir().unwrap();
    let root = &Root::check(t.path()).unwrap();
    let a = artifact(&[("a", "1")]);
    let b = artifact(&[("b", "1")]);
    send(root, &[&a], &envelope(vec![module("a", &a, None)], 1));
    apply(root).unwrap();
    assert_eq!(check(root).unwrap(), None);
    assert_eq!(all_reports(root).len(), 1, "no report for nothing to say");

    let hangs = |name, art| DeclaredModule {
        check_timeout_ms: Some(400),
        ..checked(name, art, "1", "test -e \"$MESH_NODE_ROOT/up\" || sleep 30")
    };
    send(
        root,
        &[&a, &b],
        &envelope(vec![hangs("a", &a), hangs("b", &b)], 2),
    );
    fs::write(root.join("up"), "").unwrap();
    apply(root).unwrap();
    fs::remove_file(root.join("up")).unwrap();
    let start = Instant::now();
    let report = check(root).unwrap().unwrap();
    // Two checks of 400 ms each, side by side: well under the 30 s either would hang for.
    assert!(start.elapsed() < Duration::from_secs(10));
    for id in ["module:a", "module:b"] {
        let h = resource(&report, id).health.unwrap();
        assert_eq!(
            h.output.as_deref(),
            Some("check timed out after 400ms"),
            "{id}"
        );
    }
}
