//! Rollouts in waves (issue 35): on ten real local nodes driven by real `mesh` processes, a
//! good build reaches 1, 1 (before `wait`), 3, then 10 nodes pass by pass; a build failing its
//! check on the first wave reaches exactly one node, which is put back, and nobody else ever
//! runs it until a newer build; `promote --full` gives every node the build at once.

use crate::common::{TestMesh, example, toml_array};
use serde_json::Value;
use std::time::Duration;

const RESOLVER: &str = "platform/go/services/resolver/mesh-module.toml";

/// How long each wave must have run healthy: long enough that a pass never outlasts it.
const WAIT: Duration = Duration::from_secs(4);

const NODES: [&str; 10] = [
    "n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08", "n09", "n10",
];

/// Ten local nodes running resolver, whose activate appends its version to `ROOT/runs` and
/// whose check fails when the version's `bin/broken` exists.
fn mesh() -> TestMesh {
    let t = example();
    t.edit(
        RESOLVER,
        "activate = \"bin/resolver\"",
        "activate = 'bin/resolver >> \"$MESH_NODE_ROOT/runs\"'\ncheck = 'if [ -e bin/broken ]; then echo \"resolver: no answer on :53\"; exit 1; fi'",
    );
    t.commit("platform", "resolver says its version and has a check");
    let mut toml = String::from(crate::common::MESH_HEAD);
    toml.push_str(&format!(
        "\n[status]\npage = \"status.html\"\n\n[rollout]\nwaves = [1, 3, \"100%\"]\nwait = \"{}s\"\n",
        WAIT.as_secs()
    ));
    for n in NODES {
        toml.push_str(&format!(
            "\n[node.{n}]\ntransport = \"local\"\nroot = \"nodes/{n}\"\n"
        ));
    }
    toml.push_str(&format!("\n[assign]\nresolver = {}\n", toml_array(&NODES)));
    t.write("mesh.toml", &toml);
    t
}

/// A new resolver build that prints `version` (and, when `broken`, fails its check).
fn change(t: &TestMesh, version: &str, broken: bool) {
    let text = std::fs::read_to_string(t.path(RESOLVER)).unwrap();
    let broken = if broken {
        " && touch \"$MESH_OUT/bin/broken\""
    } else {
        ""
    };
    let build = format!(
        "build    = 'mkdir -p \"$MESH_OUT/bin\" && printf \"#!/bin/sh\\necho resolver {version}\\n\" > \"$MESH_OUT/bin/resolver\" && chmod +x \"$MESH_OUT/bin/resolver\"{broken}'"
    );
    let text: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("build ") {
                build.clone()
            } else {
                l.to_string()
            }
        })
        .collect();
    t.write(RESOLVER, &(text.join("\n") + "\n"));
    t.commit("platform", &format!("resolver {version}"));
}

/// The nodes whose resolver prints `version` now (read from the node roots themselves).
fn running(t: &TestMesh, version: &str) -> Vec<&'static str> {
    running_in(&t.path("nodes"), &NODES, version)
}

/// The nodes whose activate ever ran `version`.
fn ever_ran(t: &TestMesh, version: &str) -> Vec<&'static str> {
    ever_ran_in(&t.path("nodes"), &NODES, version)
}

/// Of `names` (node roots under `dir`), those whose resolver prints `version` now.
fn running_in(dir: &std::path::Path, names: &[&'static str], version: &str) -> Vec<&'static str> {
    let says = format!("resolver {version}");
    names
        .iter()
        .copied()
        .filter(|n| {
            let bin = dir.join(n).join("modules/resolver/current/bin/resolver");
            std::fs::read_to_string(bin).is_ok_and(|s| s.contains(&says))
        })
        .collect()
}

/// Of `names` (node roots under `dir`), those whose activate ever ran `version`.
fn ever_ran_in(dir: &std::path::Path, names: &[&'static str], version: &str) -> Vec<&'static str> {
    let said = format!("resolver {version}");
    names
        .iter()
        .copied()
        .filter(|n| {
            std::fs::read_to_string(dir.join(n).join("runs"))
                .is_ok_and(|s| s.lines().any(|l| l == said))
        })
        .collect()
}

fn rollout(t: &TestMesh) -> Value {
    t.run_json(&["rollout"]).json()
}

fn pass(t: &TestMesh) -> i32 {
    let run = t.run_json(&["reconcile"]);
    run.code
}

#[test]
fn a_good_build_reaches_one_then_three_then_every_node_each_after_its_wait() {
    let t = mesh();
    // First contact: no node runs resolver, so every node gets it at once.
    assert_eq!(pass(&t), 0);
    assert_eq!(running(&t, "ok").len(), 10);
    assert_eq!(rollout(&t), serde_json::json!([]));

    change(&t, "v2", false);
    assert_eq!(pass(&t), 0, "a rollout in progress needs no person");
    assert_eq!(running(&t, "v2"), ["n01"]);
    let r = &rollout(&t)[0];
    assert_eq!(
        (r["wave"].as_u64(), r["waves"].as_u64()),
        (Some(1), Some(3)),
        "{r}"
    );
    let status = t.ok(&["status"]);
    assert!(status.contains("rollout of build"), "{status}");
    let page = std::fs::read_to_string(t.path("status.html")).unwrap();
    assert!(page.contains("wave 1 of 3, on 1 of 10 nodes"), "{page}");
    let head = crate::common::git(&t.path("platform"), &["rev-parse", "HEAD"]);
    let w = t.run(&["where", head.trim()]);
    assert_eq!(w.code, 3, "not everywhere yet: {w}");
    let w = w.stdout;
    assert!(w.contains("waiting for wave 2 of 3"), "{w}");
    assert!(w.contains("waiting for wave 3 of 3"), "{w}");
    assert_eq!(
        t.json(&["status"])["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["state"] == "current")
            .count(),
        10,
        "a node not yet reached is current: it runs what it is declared"
    );

    assert_eq!(pass(&t), 0);
    assert_eq!(running(&t, "v2"), ["n01"], "not before its wait");

    std::thread::sleep(WAIT + Duration::from_millis(300));
    assert_eq!(pass(&t), 0);
    assert_eq!(running(&t, "v2"), ["n01", "n02", "n03"]);
    assert_eq!(rollout(&t)[0]["wave"], 2);

    std::thread::sleep(WAIT + Duration::from_millis(300));
    assert_eq!(pass(&t), 0);
    assert_eq!(running(&t, "v2").len(), 10);

    std::thread::sleep(WAIT + Duration::from_millis(300));
    assert_eq!(pass(&t), 0);
    assert_eq!(
        rollout(&t),
        serde_json::json!([]),
        "over once every node ran it healthy"
    );
}

#[test]
fn a_build_failing_its_check_on_the_first_wave_reaches_one_node_is_put_back_and_halted() {
    let t = mesh();
    assert_eq!(pass(&t), 0);
    change(&t, "v2", true);
    assert_eq!(pass(&t), 3, "the first node went back");
    assert_eq!(ever_ran(&t, "v2"), ["n01"]);
    assert_eq!(running(&t, "ok").len(), 10, "n01 went back by itself");

    // The next pass halts it and puts it back by declaration.
    assert_eq!(pass(&t), 3);
    let r = &rollout(&t)[0];
    assert_eq!(r["halted"]["node"], "n01", "{r}");
    assert!(
        r["halted"]["reason"]
            .as_str()
            .unwrap()
            .contains("resolver: no answer on :53"),
        "{r}"
    );
    assert_eq!(t.run(&["rollout"]).code, 3);
    let halted = t.facts("rollout-halted");
    assert_eq!(halted.len(), 1, "{halted:?}");
    let n01 = t.json(&["node", "show", "n01"]);
    assert_eq!(n01["status"]["state"], "current", "{n01}");
    let status = t.json(&["status"]);
    let needs = t.run_json(&["status", "--check"]);
    assert_eq!(needs.code, 3, "{status}");
    let table = t.ok(&["status"]);
    assert!(table.contains("HALTED"), "{table}");

    // However many passes: nobody else ever runs it, and it stays halted.
    for _ in 0..2 {
        assert_eq!(pass(&t), 3);
    }
    assert_eq!(ever_ran(&t, "v2"), ["n01"]);
    assert_eq!(t.facts("rollout-halted").len(), 1, "one fact");

    // A newer fit build starts a new rollout from the first wave.
    change(&t, "v3", false);
    assert_eq!(pass(&t), 0);
    assert_eq!(running(&t, "v3"), ["n01"]);
    assert!(rollout(&t)[0]["halted"].is_null());
}

#[test]
fn promote_full_gives_every_node_the_build_at_the_next_push_and_abort_puts_it_back() {
    let t = mesh();
    assert_eq!(pass(&t), 0);
    change(&t, "v2", false);
    assert_eq!(pass(&t), 0);
    assert_eq!(running(&t, "v2"), ["n01"]);
    t.ok(&["rollout", "promote", "resolver", "--full"]);
    t.ok(&["push"]);
    assert_eq!(running(&t, "v2").len(), 10);

    change(&t, "v3", false);
    assert_eq!(pass(&t), 0);
    assert_eq!(running(&t, "v3"), ["n01"]);
    t.ok(&["rollout", "abort", "resolver"]);
    assert_eq!(t.run(&["push"]).code, 0);
    assert_eq!(running(&t, "v2").len(), 10, "put back by declaration");
    assert_eq!(t.run(&["rollout"]).code, 3);
    // Retry: from the first wave again.
    t.ok(&["rollout", "retry", "resolver"]);
    assert_eq!(pass(&t), 0);
    assert_eq!(running(&t, "v3"), ["n01"]);
}

#[test]
fn a_lost_store_neither_restarts_a_rollout_nor_skips_its_waves() {
    let t = mesh();
    assert_eq!(pass(&t), 0);
    change(&t, "v2", false);
    assert_eq!(pass(&t), 0);
    assert_eq!(running(&t, "v2"), ["n01"]);

    // The store is lost (the key is kept: the nodes trust it). What the nodes hold says where
    // the rollout is: nothing more is given the build, and it goes on from its wave.
    for f in ["state.redb", "state.redb.bak"] {
        let _ = std::fs::remove_file(t.path(&format!(".mesh/{f}")));
    }
    let run = t.run_json(&["reconcile"]);
    assert_eq!(run.code, 0, "{run}");
    assert_eq!(running(&t, "v2"), ["n01"], "no wave skipped");
    let r = &rollout(&t)[0];
    assert_eq!(r["wave"], 1, "not restarted: {r}");
    std::thread::sleep(WAIT + Duration::from_millis(300));
    assert_eq!(pass(&t), 0);
    assert_eq!(running(&t, "v2"), ["n01", "n02", "n03"]);
}

/// A controller named `name` for the four nodes under `nodes`, its `platform` the example
/// fixture with resolver's check (`from`: a clone of another controller's), trusting the
/// `[controllers]` line given.
fn controller(name: &str, nodes: &std::path::Path, from: Option<&TestMesh>) -> TestMesh {
    let t = match from {
        None => mesh(),
        Some(other) => {
            let t = TestMesh::new();
            t.clone_platform_of(other);
            t
        }
    };
    fleet_toml(&t, name, nodes, "");
    t
}

fn fleet_toml(t: &TestMesh, name: &str, nodes: &std::path::Path, controllers: &str) {
    let mut toml = format!(
        "[mesh]\nname = \"fleet\"\ncontroller = \"{name}\"\n\n[[repo]]\nname = \"platform\"\npath = \"platform\"\nref  = \"refs/heads/main\"\n\n[rollout]\nwaves = [1, 2, \"100%\"]\nwait = \"{}s\"\n",
        WAIT.as_secs()
    );
    for n in &NODES[..4] {
        toml.push_str(&format!(
            "\n[node.{n}]\ntransport = \"local\"\nroot = \"{}\"\n",
            nodes.join(n).display()
        ));
    }
    toml.push_str(&format!(
        "\n[assign]\nresolver = {}\n\n[controllers]\n{controllers}\n",
        toml_array(&NODES[..4])
    ));
    t.write("mesh.toml", &toml);
}

#[test]
fn a_second_controller_goes_on_from_the_wave_and_a_halt_holds_for_both() {
    let fleet = tempfile::tempdir().unwrap();
    let nodes = fleet.path();
    let laptop = controller("laptop", nodes, None);
    let cron = controller("cron", nodes, Some(&laptop));
    let id = |t: &TestMesh| t.ok(&["id"]).trim().to_string();
    fleet_toml(&laptop, "laptop", nodes, &id(&cron));
    fleet_toml(&cron, "cron", nodes, &id(&laptop));
    assert_eq!(laptop.run(&["reconcile"]).code, 0);
    assert_eq!(
        cron.run(&["reconcile"]).code,
        0,
        "the same commits: it keeps them"
    );

    // The laptop starts v2's rollout: one node.
    change(&laptop, "v2", false);
    assert_eq!(laptop.run(&["reconcile"]).code, 0);
    assert_eq!(running_in(nodes, &NODES[..4], "v2"), ["n01"]);
    // Cron, at the same commits, gives it to nobody else before the wait...
    cron.pull_platform_from(&laptop);
    assert_eq!(cron.run(&["reconcile"]).code, 0);
    assert_eq!(running_in(nodes, &NODES[..4], "v2"), ["n01"]);
    // ...and moves it on, one wave, once the wait is over: the laptop is away.
    std::thread::sleep(WAIT + Duration::from_millis(300));
    assert_eq!(cron.run(&["reconcile"]).code, 0);
    assert_eq!(running_in(nodes, &NODES[..4], "v2"), ["n01", "n02"]);
    assert_eq!(cron.run_json(&["rollout"]).json()[0]["wave"], 2);
    // The laptop, back, neither moves a node back nor gives it to more.
    assert_eq!(laptop.run(&["reconcile"]).code, 0);
    assert_eq!(running_in(nodes, &NODES[..4], "v2"), ["n01", "n02"]);

    // v3 fails its check on the first wave: the laptop halts it; cron, which has not seen
    // the halt in its store yet, never sends it, and holds it halted too.
    change(&laptop, "v3", true);
    assert_eq!(laptop.run(&["reconcile"]).code, 3);
    assert_eq!(laptop.run(&["reconcile"]).code, 3);
    assert_eq!(laptop.facts("rollout-halted").len(), 1);
    cron.pull_platform_from(&laptop);
    for _ in 0..2 {
        assert_eq!(cron.run(&["reconcile"]).code, 3, "halted for cron too");
    }
    assert!(running_in(nodes, &NODES[..4], "v3").is_empty());
    let ran = ever_ran_in(nodes, &NODES[..4], "v3");
    assert_eq!(ran, ["n01"], "only the first wave's node ever ran it");
}
