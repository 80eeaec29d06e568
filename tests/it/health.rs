//! Health (issue 35): a module's `check` says whether what a node runs works. On real local
//! nodes driven by real `mesh` processes: a service that dies after a clean activate is
//! unhealthy (exit 3, one fact), then stuck, then current again once it answers; a version
//! failing its check goes back.

use crate::common::{TestMesh, example, local_nodes_toml, named};
use serde_json::Value;

const RESOLVER: &str = "platform/go/services/resolver/mesh-module.toml";

/// Node `a` running resolver, whose check fails while `ROOT/down` exists.
fn mesh() -> TestMesh {
    let t = example();
    t.edit(
        RESOLVER,
        "activate = \"bin/resolver\"",
        "activate = 'echo resolver >> \"$MESH_NODE_ROOT/runs\"; bin/resolver'\ncheck = 'if [ -e \"$MESH_NODE_ROOT/down\" ]; then echo \"resolver: no answer on :53\"; exit 1; fi'",
    );
    t.commit("platform", "resolver has a check");
    t.write(
        "mesh.toml",
        &local_nodes_toml(&[("a", &[])], &[("resolver", &["a"])]),
    );
    t
}

fn node_a(t: &TestMesh) -> Value {
    named(&t.json(&["status"]), "nodes", "a").clone()
}

fn runs(t: &TestMesh) -> usize {
    std::fs::read_to_string(t.path("nodes/a/runs"))
        .unwrap_or_default()
        .lines()
        .count()
}

#[test]
fn a_service_that_dies_after_a_clean_activate_is_unhealthy_then_stuck_then_current_again() {
    let t = mesh();
    let first = t.run_json(&["reconcile"]);
    assert_eq!(first.code, 0, "{first}");
    let a = node_a(&t);
    assert_eq!(a["state"], "current", "{a}");
    assert_eq!(a["modules"][0]["health"]["healthy"], true, "{a}");

    // It dies: nothing was sent, nothing activated, and the next pass says so.
    std::fs::write(t.path("nodes/a/down"), "").unwrap();
    let sick = t.run_json(&["reconcile"]);
    assert_eq!(sick.code, 3, "an unhealthy node needs a person: {sick}");
    let a = node_a(&t);
    assert_eq!(a["state"], "unhealthy", "{a}");
    assert_eq!(a["needs_a_person"], true);
    let reason = a["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("resolver") && reason.contains("resolver: no answer on :53"),
        "REASON names module and output: {reason}"
    );
    let m = &a["modules"][0];
    assert_eq!(m["state"], "unhealthy", "{m}");
    assert_eq!(m["health"]["healthy"], false);
    assert_eq!(t.run(&["status", "--check"]).code, 3);
    let table = t.ok(&["status"]);
    assert!(table.contains("unhealthy"), "{table}");
    let show = t.ok(&["node", "show", "a"]);
    assert!(show.contains("UNHEALTHY since"), "{show}");
    assert_eq!(
        runs(&t),
        1,
        "unhealthy after settling does not go back by itself"
    );

    // Again: the same state, no second fact; the third unhealthy report in a row is stuck.
    assert_eq!(t.run_json(&["reconcile"]).code, 3);
    assert_eq!(node_a(&t)["state"], "unhealthy");
    assert_eq!(t.facts("unhealthy").len(), 1, "one fact, not one per pass");
    assert_eq!(t.run_json(&["reconcile"]).code, 3);
    let a = node_a(&t);
    assert_eq!(a["state"], "stuck", "{a}");
    assert_eq!(t.facts("stuck").len(), 1);

    // It answers again: current, exit 0, one fact.
    std::fs::remove_file(t.path("nodes/a/down")).unwrap();
    let well = t.run_json(&["reconcile"]);
    assert_eq!(well.code, 0, "{well}");
    assert_eq!(node_a(&t)["state"], "current");
    assert_eq!(t.facts("healthy").len(), 1);
    assert_eq!(t.facts("unhealthy").len(), 1);
    assert_eq!(runs(&t), 1, "nothing was activated again");
}

#[test]
fn a_version_failing_its_check_goes_back_and_the_previous_activate_runs_again() {
    let t = mesh();
    assert_eq!(t.run_json(&["reconcile"]).code, 0);
    let v1 = std::fs::read_link(t.path("nodes/a/modules/resolver/current")).unwrap();
    // v2 activates cleanly, and never answers.
    t.edit(RESOLVER, "echo resolver ok", "echo resolver v2");
    t.edit(
        RESOLVER,
        "check = '",
        "check = 'test -e \"$MESH_NODE_ROOT/never\" || { echo \"v2: no answer\"; exit 1; }; ",
    );
    t.commit("platform", "resolver v2 never answers");
    let run = t.run_json(&["reconcile"]);
    assert_eq!(run.code, 3, "{run}");
    let a = node_a(&t);
    assert_eq!(a["state"], "rolled back", "{a}");
    let words = a["failure"]["reasons"].to_string();
    assert!(
        words.contains("the check failed right after activate") && words.contains("v2: no answer"),
        "{words}"
    );
    let now = std::fs::read_link(t.path("nodes/a/modules/resolver/current")).unwrap();
    assert_eq!(now, v1, "v1 runs again");
    assert_eq!(runs(&t), 3, "v1, v2, then v1's activate again");
}

#[test]
fn a_first_version_failing_its_check_leaves_current_naming_nothing() {
    let t = mesh();
    std::fs::create_dir_all(t.path("nodes/a")).unwrap();
    std::fs::write(t.path("nodes/a/down"), "").unwrap();
    let run = t.run_json(&["reconcile"]);
    assert_eq!(run.code, 3, "{run}");
    assert!(
        std::fs::symlink_metadata(t.path("nodes/a/modules/resolver/current")).is_err(),
        "no version of resolver ever worked on a"
    );
    assert_eq!(node_a(&t)["state"], "failed");
}

#[test]
fn over_real_ssh_a_dead_service_is_unhealthy_and_answering_again_is_current() {
    use crate::common::ssh::SshNode;
    let t = example();
    t.edit(
        RESOLVER,
        "activate = \"bin/resolver\"",
        "activate = \"bin/resolver\"\ncheck = 'if [ -e \"$MESH_NODE_ROOT/down\" ]; then echo \"resolver: no answer on :53\"; exit 1; fi'",
    );
    t.commit("platform", "resolver has a check");
    let n = SshNode::with_mesh(t.dir(), "ace");
    t.write(
        "mesh.toml",
        &format!(
            "{}\n{}\n[assign]\nresolver = [\"ace\"]\n",
            crate::common::MESH_HEAD,
            n.stanza(&n.client_options(), &[])
        ),
    );
    let ace = |t: &TestMesh| named(&t.json(&["status"]), "nodes", "ace").clone();
    let first = t.run_json(&["reconcile"]);
    assert_eq!(first.code, 0, "{first}");
    assert_eq!(ace(&t)["state"], "current");
    // The check runs over the session at every collect: no new send, no new apply.
    std::fs::write(n.root.join("down"), "").unwrap();
    assert_eq!(t.run_json(&["reconcile"]).code, 3);
    let a = ace(&t);
    assert_eq!(a["state"], "unhealthy", "{a}");
    assert!(
        a["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("resolver: no answer on :53"),
        "{a}"
    );
    std::fs::remove_file(n.root.join("down")).unwrap();
    assert_eq!(t.run_json(&["reconcile"]).code, 0);
    assert_eq!(ace(&t)["state"], "current");
    assert_eq!(t.facts("unhealthy").len(), 1);
    assert_eq!(t.facts("healthy").len(), 1);
}
