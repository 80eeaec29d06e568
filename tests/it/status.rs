//! `mesh collect` and `mesh status`: reports taken by sequence, the failure streak, every node
//! state at once, and the JSON shape.

use crate::common::{TestMesh, example, local_nodes_toml, named};
use serde_json::Value;

pub(crate) const NODES: &[&str] = &[
    "n-current",
    "n-failed",
    "n-never",
    "n-nwo",
    "n-outofdate",
    "n-outstanding",
    "n-stuck",
];

/// Seven local nodes, each running resolver (whose activate fails where a `fail` file is in
/// the node's root); n-nwo also gets inventory, a hold module nobody declared.
pub(crate) fn mesh() -> TestMesh {
    let t = example();
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "activate = \"bin/resolver\"",
        "activate = 'if test -f \"$MESH_NODE_ROOT/fail\"; then echo \"resolver failed at $(date +%s%N)\"; exit 1; fi; bin/resolver'",
        "activate can fail",
    );
    let nodes: Vec<(&str, &[&str])> = NODES.iter().map(|n| (*n, &["all"][..])).collect();
    t.write(
        "mesh.toml",
        &local_nodes_toml(
            &nodes,
            &[("resolver", &["@all"]), ("inventory", &["n-nwo"])],
        ),
    );
    t
}

/// What the node's own timer runs: `mesh node apply` in its root (it may fail).
fn node_apply(t: &TestMesh, n: &str) {
    let root = t.path(&format!("nodes/{n}")).display().to_string();
    t.run(&["node", "apply", "--root", &root]);
}

fn states(v: &Value) -> Vec<(String, String)> {
    v["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| {
            (
                n["name"].as_str().expect("name").to_string(),
                n["state"].as_str().expect("state").to_string(),
            )
        })
        .collect()
}

fn node<'a>(v: &'a Value, name: &str) -> &'a Value {
    named(v, "nodes", name)
}

/// Brings the nodes of [`mesh`] to every state at once: n-current applied what it was sent,
/// n-failed's apply failed once and n-stuck's three times, n-outstanding was sent and not
/// collected, n-outofdate is assigned something new, n-nwo waits on a module nobody declared,
/// and n-never was never sent anything.
pub(crate) fn every_state(t: &TestMesh) {
    t.ok(&["build", "--behind", "-q"]);
    for n in ["n-failed", "n-stuck"] {
        t.write(&format!("nodes/{n}/fail"), "");
    }
    // Two of the applies fail: push says so (exit 3).
    t.fails(
        &[
            "push",
            "-q",
            "n-current",
            "n-failed",
            "n-stuck",
            "n-outofdate",
        ],
        3,
    );
    // The stuck node's own timer applies twice more: three reports, the same failure.
    for _ in 0..2 {
        node_apply(t, "n-stuck");
    }
    t.ok(&["collect", "-q"]);
    t.ok(&["push", "-q", "n-outstanding"]);
    // A new assignment: n-outofdate would now be sent something else.
    t.edit(
        "mesh.toml",
        "inventory = [\"n-nwo\"]",
        "inventory = [\"n-nwo\"]\nreporter = [\"n-outofdate\"]",
    );
}

/// Asserts that a node and a module of `mesh status --json` have every field it promises.
fn assert_status_fields(node: &Value, module: &Value) {
    for field in [
        "name",
        "state",
        "reason",
        "last_seen",
        "unreachable_since",
        "silent",
        "declared",
        "sent",
        "applied",
        "failure",
    ] {
        assert!(
            node.get(field).is_some(),
            "status JSON lacks {field}: {node}"
        );
    }
    for field in [
        "name",
        "source",
        "built_from",
        "verdict",
        "declared_on",
        "applied_on",
        "outstanding_on",
    ] {
        assert!(
            module.get(field).is_some(),
            "module JSON lacks {field}: {module}"
        );
    }
}

#[test]
fn every_state_at_once() {
    let t = mesh();
    every_state(&t);
    let v = t.json(&["status"]);
    assert_eq!(
        node(&v, "n-current")["state"],
        "current",
        "{}",
        node(&v, "n-current")
    );
    assert_eq!(
        states(&v),
        vec![
            ("n-current".into(), "current".into()),
            ("n-failed".into(), "failed".into()),
            ("n-never".into(), "never told".into()),
            ("n-nwo".into(), "not worked out".into()),
            ("n-outofdate".into(), "out of date".into()),
            ("n-outstanding".into(), "outstanding".into()),
            ("n-stuck".into(), "stuck".into()),
        ]
    );
    let stuck = node(&v, "n-stuck");
    assert_eq!(stuck["failure"]["count"], 3);
    assert_eq!(
        stuck["failure"]["resources"],
        serde_json::json!(["module:resolver"])
    );
    let failed = node(&v, "n-failed");
    assert_eq!(failed["failure"]["count"], 1);
    assert!(
        failed["reason"]
            .as_str()
            .expect("reason")
            .contains("resolver failed"),
        "{failed}"
    );
    assert!(
        node(&v, "n-nwo")["reason"]
            .as_str()
            .expect("reason")
            .contains("inventory")
    );
    let resolver = named(&v, "modules", "resolver");
    assert_status_fields(stuck, resolver);
    assert_eq!(resolver["declared_on"], 6);
    assert_eq!(resolver["applied_on"], 2);
    // Outstanding is sent and not yet applied: n-never was never sent it.
    assert_eq!(resolver["outstanding_on"], 1);
    assert_eq!(resolver["failed_on"], 2);
    assert_eq!(resolver["not_sent_on"], 1);

    let run = t.run(&["status", "--check"]);
    assert_eq!(run.code, 3);
    let table = run.stdout;
    insta::with_settings!({filters => vec![(r"\b[0-9a-f]{8}\b", "[commit]")]}, {
        insta::assert_snapshot!("every_state_at_once", table);
    });
}

#[test]
fn the_streak_counts_failures_not_words_and_a_clean_apply_clears_it() {
    let t = mesh();
    t.ok(&["build", "--behind", "-q"]);
    t.write("nodes/n-stuck/fail", "");
    t.fails(&["push", "-q", "n-stuck"], 3);
    t.ok(&["collect", "-q"]);
    assert_eq!(node(&t.json(&["status"]), "n-stuck")["failure"]["count"], 1);
    // The same resource fails with other words (the message carries a timestamp).
    node_apply(&t, "n-stuck");
    node_apply(&t, "n-stuck");
    t.ok(&["collect", "-q"]);
    let v = t.json(&["status"]);
    let stuck = node(&v, "n-stuck");
    assert_eq!(stuck["state"], "stuck");
    assert_eq!(stuck["failure"]["count"], 3);
    // Collecting again counts nothing twice.
    t.ok(&["collect", "-q"]);
    assert_eq!(node(&t.json(&["status"]), "n-stuck")["failure"]["count"], 3);
    let show = t.ok(&["node", "show", "n-stuck"]);
    // Label and value, spaced as wide as the labels need.
    let show = show
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        show.contains("failure 3 reports in a row: module:resolver"),
        "{show}"
    );
    assert!(show.contains("resolver failed at"), "{show}");
    assert!(show.contains("host mesh 0.1.0"), "{show}");
    let list = t.ok(&["node", "list"]);
    assert!(list.contains("n-stuck") && list.contains("stuck"), "{list}");
    let events = t.ok(&["events", "--kind", "stuck", "--json"]);
    assert_eq!(events.lines().count(), 1, "{events}");
    // Fixed: a clean apply clears it.
    std::fs::remove_file(t.path("nodes/n-stuck/fail")).expect("rm");
    node_apply(&t, "n-stuck");
    t.ok(&["collect", "-q"]);
    let v = t.json(&["status"]);
    assert_eq!(node(&v, "n-stuck")["state"], "current");
    assert!(node(&v, "n-stuck")["failure"].is_null());
    let recovered = t.ok(&["events", "--kind", "recovered", "--json"]);
    assert_eq!(recovered.lines().count(), 1, "{recovered}");
}

#[test]
fn a_garbage_report_is_recorded_as_unreadable_and_loses_nothing() {
    let t = mesh();
    t.ok(&["build", "--behind", "-q"]);
    t.ok(&["push", "-q", "n-current"]);
    t.ok(&["collect", "-q"]);
    assert_eq!(node(&t.json(&["status"]), "n-current")["state"], "current");
    t.write(
        "nodes/n-current/reports/00000000000000000099.json",
        "{\"report_sequence\": 99, \"trunc",
    );
    t.ok(&["collect", "-q"]);
    let v = t.json(&["status"]);
    let n = node(&v, "n-current");
    assert_eq!(n["state"], "current");
    assert!(n["applied"]["sequence"] == 1, "{n}");
}
