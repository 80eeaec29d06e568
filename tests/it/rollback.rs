//! Going back (issue 25): a module's new version whose activate fails goes back, on a real
//! local node driven by real `mesh` processes, to the version that ran; the node is rolled
//! back, then stuck, then current again; its neighbour is never activated again.

use crate::common::{Run, TestMesh, example, git, local_nodes_toml, named};
use serde_json::Value;

const RESOLVER: &str = "platform/go/services/resolver/mesh-module.toml";

/// Node `a` running resolver and reporter, each activate appending its name to
/// `ROOT/runs` before it runs.
fn mesh() -> TestMesh {
    let t = example();
    t.edit(
        RESOLVER,
        "activate = \"bin/resolver\"",
        "activate = 'echo resolver >> \"$MESH_NODE_ROOT/runs\"; bin/resolver'",
    );
    t.edit(
        "platform/python/reporter/mesh-module.toml",
        "activate = \"bin/reporter\"",
        "activate = 'echo reporter >> \"$MESH_NODE_ROOT/runs\"; bin/reporter'",
    );
    t.commit("platform", "activates count their runs");
    t.write(
        "mesh.toml",
        &local_nodes_toml(&[("a", &[])], &[("resolver", &["a"]), ("reporter", &["a"])]),
    );
    t
}

/// What the activates on `a` appended, in order.
fn runs(t: &TestMesh) -> Vec<String> {
    std::fs::read_to_string(t.path("nodes/a/runs"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn node_a(t: &TestMesh) -> Value {
    named(&t.json(&["status"]), "nodes", "a").clone()
}

/// The artifact resolver's `current` names on `a`.
fn resolver_current(t: &TestMesh) -> String {
    std::fs::read_link(t.path("nodes/a/modules/resolver/current"))
        .expect("resolver is switched on")
        .display()
        .to_string()
}

fn reconcile(t: &TestMesh) -> Run {
    t.run_json(&["reconcile"])
}

fn head(t: &TestMesh) -> String {
    git(&t.path("platform"), &["rev-parse", "HEAD"])
        .trim()
        .to_string()
}

#[test]
fn a_version_that_fails_goes_back_stays_back_and_the_next_that_activates_clears_it() {
    let t = mesh();
    let first = reconcile(&t);
    assert_eq!(first.code, 0, "{first}");
    assert_eq!(runs(&t), ["reporter", "resolver"]);
    assert_eq!(node_a(&t)["state"], "current");
    let v1 = resolver_current(&t);

    // v2: a new artifact, whose activate fails.
    t.edit(RESOLVER, "echo resolver ok", "echo resolver v2");
    t.edit(
        RESOLVER,
        "bin/resolver'",
        "echo \"resolver: port 53 in use\" >&2; exit 1'",
    );
    t.commit("platform", "resolver v2 cannot start");
    let v2_commit = head(&t);
    let run = reconcile(&t);
    assert_eq!(run.code, 3, "a node that went back needs a person: {run}");
    assert!(
        run.json()["needs_a_person"]
            .to_string()
            .contains("a is rolled back"),
        "{run}"
    );
    assert_eq!(
        runs(&t),
        ["reporter", "resolver", "resolver", "resolver"],
        "v2 tried, v1 activated again, reporter untouched"
    );
    assert_eq!(resolver_current(&t), v1, "v1 runs again");
    let a = node_a(&t);
    assert_eq!(a["state"], "rolled back", "{a}");
    assert_eq!(a["needs_a_person"], true);
    let reason = a["reason"].as_str().expect("a reason");
    let short = &v2_commit[..12];
    assert!(
        reason.starts_with("resolver: build ")
            && reason.contains(&format!("(commit {short}) failed; rolled back to build ")),
        "the reason names the version that failed: {reason}"
    );
    let words = a["failure"]["reasons"].to_string();
    assert!(
        words.contains("port 53 in use"),
        "the output's tail: {words}"
    );

    // `mesh where` shows the commit failing on the node.
    let w = t.run_json(&["where", &v2_commit]);
    let line = w.json()["modules"]
        .as_array()
        .expect("modules")
        .iter()
        .find(|m| m["name"] == "resolver")
        .and_then(|m| m["nodes"].as_array())
        .and_then(|n| n.iter().find(|n| n["name"] == "a"))
        .cloned()
        .unwrap_or_else(|| panic!("resolver on a: {w}"));
    assert_eq!(line["state"], "failing", "{line}");
    assert!(
        line["reason"]
            .as_str()
            .expect("why")
            .contains("rolled back to"),
        "{line}"
    );

    // Later passes keep v1 and run nothing; the third report in a row makes it stuck.
    let second = reconcile(&t);
    assert_eq!(second.code, 3, "{second}");
    assert_eq!(node_a(&t)["state"], "rolled back");
    let third = reconcile(&t);
    assert_eq!(third.code, 3, "{third}");
    let a = node_a(&t);
    assert_eq!(
        (a["state"].as_str(), a["failure"]["count"].as_u64()),
        (Some("stuck"), Some(3)),
        "{a}"
    );
    assert_eq!(runs(&t).len(), 4, "no activate ran again: {:?}", runs(&t));
    assert_eq!(resolver_current(&t), v1);

    // v3 activates: current again, and only resolver ran.
    t.edit(
        RESOLVER,
        "echo \"resolver: port 53 in use\" >&2; exit 1'",
        "bin/resolver --port 5353'",
    );
    t.commit("platform", "resolver v3 on another port");
    let fixed = reconcile(&t);
    assert_eq!(fixed.code, 0, "{fixed}");
    let a = node_a(&t);
    assert_eq!(a["state"], "current", "{a}");
    assert_ne!(resolver_current(&t), v1);
    assert_eq!(runs(&t).len(), 5);
    assert_eq!(runs(&t).last().map(String::as_str), Some("resolver"));
}

#[test]
fn a_first_version_that_fails_has_nothing_to_go_back_to() {
    let t = mesh();
    t.edit(RESOLVER, "bin/resolver'", "exit 1'");
    t.commit("platform", "resolver never starts");
    let run = reconcile(&t);
    assert_eq!(run.code, 3, "{run}");
    let a = node_a(&t);
    assert_eq!(a["state"], "failed", "{a}");
    assert!(
        a["reason"].as_str().expect("why").contains(
            "nothing to go back to: no earlier version of resolver activated on this node"
        ),
        "{a}"
    );
}

#[test]
fn going_back_that_fails_too_is_down_and_says_so() {
    let t = example();
    // resolver v1 activates while its root holds no `broken` file.
    t.edit(
        RESOLVER,
        "activate = \"bin/resolver\"",
        "activate = 'test ! -f \"$MESH_NODE_ROOT/broken\" && bin/resolver'",
    );
    t.commit("platform", "resolver can break");
    t.write(
        "mesh.toml",
        &local_nodes_toml(&[("a", &[])], &[("resolver", &["a"])]),
    );
    assert_eq!(reconcile(&t).code, 0);
    t.write("nodes/a/broken", "");
    t.edit(RESOLVER, "&& bin/resolver'", "&& exit 1'");
    t.commit("platform", "resolver v2 fails");
    let run = reconcile(&t);
    assert_eq!(run.code, 3, "{run}");
    let a = node_a(&t);
    assert_eq!(a["state"], "failed", "{a}");
    let reason = a["reason"].as_str().expect("why");
    assert!(reason.starts_with("resolver is DOWN: build "), "{reason}");
    assert!(reason.contains("failed too"), "{reason}");
}

/// Issue 33, item 7, end to end: a version whose activate removes what going back needs
/// (`good.json` as it was, `ROOT/kept/` as it is) and fails; then one that edits the good
/// version's tree and fails: each goes back to v1, and v1 runs as it was built.
#[test]
fn going_back_trusts_nothing_an_activate_did_to_the_nodes_disk() {
    let t = mesh();
    assert_eq!(reconcile(&t).code, 0);
    let v1 = resolver_current(&t);
    let tree = t.path("nodes/a/modules/resolver").join(&v1);
    let pristine = std::fs::read(tree.join("bin/resolver")).expect("v1's program");

    t.edit(RESOLVER, "echo resolver ok", "echo resolver v2");
    t.edit(
        RESOLVER,
        "bin/resolver'",
        "rm -rf \"$MESH_NODE_ROOT/kept\" \"$MESH_NODE_ROOT/modules/resolver/good.json\"; exit 1'",
    );
    t.commit(
        "platform",
        "resolver v2 removes the record of v1, and fails",
    );
    assert_eq!(reconcile(&t).code, 3);
    assert_eq!(node_a(&t)["state"], "rolled back");
    assert_eq!(resolver_current(&t), v1);

    // v3 makes every other version's `bin/resolver` fail, and fails.
    t.edit(RESOLVER, "echo resolver v2", "echo resolver v3");
    t.edit(
        RESOLVER,
        "\"$MESH_NODE_ROOT/modules/resolver/good.json\"; exit 1'",
        "\"$MESH_NODE_ROOT/modules/resolver/good.json\"; for f in \"$MESH_NODE_ROOT\"/modules/resolver/*/bin/resolver; do [ \"$f\" = \"$(pwd)/bin/resolver\" ] || echo \"exit 1\" > \"$f\"; done; exit 1'",
    );
    t.commit("platform", "resolver v3 breaks v1 on its way down");
    let run = reconcile(&t);
    assert_eq!(run.code, 3, "{run}");
    let a = node_a(&t);
    assert_eq!(
        a["state"], "rolled back",
        "not DOWN, not nothing to go back to: {a}"
    );
    assert_eq!(resolver_current(&t), v1);
    assert_eq!(
        std::fs::read(tree.join("bin/resolver")).expect("v1's program"),
        pristine,
        "v1 was unpacked again before it ran"
    );
}
