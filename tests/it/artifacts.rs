//! Artifacts under faults: a flipped bit found before it is sent and healed, every damaged
//! artifact found in one pass, and garbage collection that keeps what a node holds or may be
//! sent, bounds the rest, and survives a kill.

use super::faults::{node, two_nodes};
use crate::common::{TestMesh, local_nodes_toml};
use serde_json::Value;
use std::time::Duration;

#[test]
fn a_flipped_bit_in_an_artifact_is_found_before_it_is_sent_and_healed() {
    let t = two_nodes();
    t.ok(&["reconcile"]);
    let (_, file) = newest_artifact(&t, "route-proxy");
    flip(&file, |len| len / 2, 1);
    // The node must be sent it again: wipe it.
    std::fs::remove_dir_all(t.path("nodes/edge-1")).expect("wipe");
    // The first pass learns the node was wiped (its journal restarted); a pass then sends.
    let mut said = Vec::new();
    for _ in 0..3 {
        let run = t.run(&["reconcile"]);
        said.push(run.stderr);
        if said
            .last()
            .is_some_and(|e| e.contains("did not match its digest"))
        {
            assert_eq!(run.code, 3, "a person is told");
            break;
        }
    }
    assert!(
        said.last()
            .is_some_and(|e| e.contains("did not match its digest")),
        "{said:?}"
    );
    assert!(!file.exists(), "the damaged artifact is removed");
    let facts = t.ok(&["events", "--json"]);
    assert!(facts.contains("artifact-damaged"), "{facts}");
    // The next run builds it again and delivers it.
    let run = t.run(&["reconcile"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let status = t.json(&["status"]);
    assert_eq!(node(&status, "edge-1")["state"], "current", "{status}");
    let now = t.json(&["builds", "route-proxy"]);
    let digest = now[0]["artifact"].as_str().expect("artifact");
    let held = std::fs::read(t.path(&format!(".mesh/artifacts/{digest}"))).expect("artifact");
    assert_eq!(blake3::hash(&held).to_hex().as_str(), digest);
}

/// [`two_nodes`] with route-proxy on `hold` and `builds_keep = 1`, declared once and then
/// built `changes` more times (each build's artifact different), never declared again, and
/// never collected.
fn held_and_rebuilt(changes: usize) -> TestMesh {
    let t = two_nodes();
    let toml = std::fs::read_to_string(t.path("mesh.toml")).expect("mesh.toml");
    t.write(
        "mesh.toml",
        &toml.replacen("[mesh]\n", "[mesh]\nbuilds_keep = 1\n", 1),
    );
    let manifest = "platform/go/services/route-proxy/mesh-module.toml";
    t.edit(
        manifest,
        "build    = '",
        "policy   = \"hold\"\nbuild    = '",
    );
    t.commit("platform", "hold route-proxy");
    t.ok(&["build", "--behind"]);
    t.ok(&["declare", "route-proxy"]);
    t.ok(&["reconcile"]);
    for i in 0..changes {
        t.edit(
            manifest,
            "build    = '",
            &format!("build    = 'echo v{i} >> \"$MESH_OUT/version\"; "),
        );
        t.commit("platform", &format!("change {i}"));
        // Built, not reconciled: nothing collects yet.
        t.ok(&["build", "--behind"]);
    }
    t
}

fn artifacts(t: &TestMesh) -> std::collections::BTreeSet<String> {
    std::fs::read_dir(t.path(".mesh/artifacts"))
        .expect("artifacts")
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.len() == 64)
        .collect()
}

/// Every artifact a node holds, was sent or would be sent is in `.mesh/artifacts`, whole.
fn nothing_a_node_needs_is_gone(t: &TestMesh) {
    let held = artifacts(t);
    for node in ["edge-1", "lab"] {
        let decl: Value = serde_json::from_slice(
            &std::fs::read(t.path(&format!("nodes/{node}/declaration.json"))).expect("held"),
        )
        .expect("json");
        let modules = decl["declaration"]["modules"]
            .as_array()
            .or_else(|| decl["modules"].as_array())
            .unwrap_or_else(|| panic!("modules in {decl}"));
        for m in modules {
            let a = m["artifact"].as_str().expect("artifact");
            assert!(
                held.contains(a),
                "{node} holds {a}, gone from the controller"
            );
        }
    }
}

#[test]
fn gc_keeps_what_a_node_holds_or_may_be_sent_and_removes_the_rest() {
    let t = held_and_rebuilt(3);
    let before = artifacts(&t);
    let builds_before = t.json(&["builds", "route-proxy", "-n", "100"]);
    let dry = t.json(&["gc", "--dry-run"]);
    assert_eq!(artifacts(&t), before, "--dry-run removes nothing");
    assert!(
        dry["builds"].as_array().is_some_and(|b| !b.is_empty()),
        "{dry}"
    );
    let gc = t.json(&["gc"]);
    assert_eq!(gc["builds"], dry["builds"], "the dry run said what goes");
    assert!(artifacts(&t).len() < before.len(), "old artifacts go");
    nothing_a_node_needs_is_gone(&t);
    let kept = t.json(&["builds", "route-proxy", "-n", "100"]);
    let kept = kept.as_array().expect("builds");
    assert!(
        kept.len() <= 3,
        "route-proxy keeps the declared, the newest and the newest fit: {kept:?} (was {})",
        builds_before.as_array().map_or(0, Vec::len)
    );
    // The store is sound and nothing recorded lost its artifact.
    t.ok(&["doctor"]);
    // The newest build can still be declared and delivered.
    t.ok(&["declare", "route-proxy"]);
    t.ok(&["reconcile"]);
    let status = t.json(&["status"]);
    assert_eq!(node(&status, "edge-1")["state"], "current", "{status}");
    nothing_a_node_needs_is_gone(&t);
}

#[test]
fn reconcile_bounds_the_artifacts_of_the_controller_and_the_node() {
    let t = held_and_rebuilt(0);
    let mut sizes = Vec::new();
    for i in 0..6 {
        t.edit(
            "platform/go/services/route-proxy/mesh-module.toml",
            "build    = '",
            &format!("build    = 'echo v{i} >> \"$MESH_OUT/version\"; "),
        );
        t.commit("platform", &format!("change {i}"));
        t.ok(&["build", "--behind"]);
        t.ok(&["declare", "route-proxy"]);
        t.ok(&["reconcile"]);
        let node = std::fs::read_dir(t.path("nodes/edge-1/artifacts"))
            .expect("node artifacts")
            .count();
        sizes.push((artifacts(&t).len(), node));
    }
    // Each change adds an artifact; collection keeps the controller's count flat, and the
    // node's once it holds its few kept versions.
    assert!(sizes.iter().all(|s| s.0 == sizes[0].0), "{sizes:?}");
    assert!(sizes[3..].iter().all(|s| s.1 == sizes[3].1), "{sizes:?}");
    nothing_a_node_needs_is_gone(&t);
}

#[test]
fn a_kill_during_gc_leaves_a_store_that_opens_and_a_next_run_that_converges() {
    let base = held_and_rebuilt(3);
    for ms in [1u64, 10, 30, 60, 120] {
        let t = TestMesh::new();
        // `cp -a`: the node roots hold symlinks that must stay links.
        let copied = std::process::Command::new("cp")
            .arg("-a")
            .arg(format!("{}/.", base.dir().display()))
            .arg(t.dir())
            .status()
            .expect("cp");
        assert!(copied.success());
        let mut child = t.spawn(&["gc", "-q"]);
        std::thread::sleep(Duration::from_millis(ms));
        let _ = child.kill();
        let _ = child.wait();
        let doctor = t.run(&["doctor"]);
        assert_eq!(
            doctor.code, 0,
            "after a kill at {ms} ms: {}{}",
            doctor.stdout, doctor.stderr
        );
        nothing_a_node_needs_is_gone(&t);
        t.ok(&["gc"]);
        let run = t.run(&["reconcile"]);
        assert_eq!(run.code, 0, "after a kill at {ms} ms: {}", run.stderr);
        let status = t.json(&["status"]);
        for n in ["edge-1", "lab"] {
            assert_eq!(node(&status, n)["state"], "current", "{status}");
        }
    }
}

#[test]
fn doctor_names_a_damaged_artifact_and_repair_lets_the_next_run_heal_it() {
    let t = two_nodes();
    t.ok(&["reconcile"]);
    t.ok(&["doctor"]);
    let (digest, file) = newest_artifact(&t, "dashboard");
    flip(&file, |_| 0, 0x40);
    let doctor = t.run(&["doctor"]);
    assert_eq!(doctor.code, 3);
    let said = &doctor.stdout;
    assert!(
        said.contains(&digest[..12]) && said.contains("damaged"),
        "{said}"
    );
    assert!(file.exists(), "doctor alone changes nothing");
    t.ok(&["doctor", "--repair"]);
    assert!(!file.exists(), "--repair removes the damaged artifact");
    t.ok(&["reconcile"]);
    t.ok(&["doctor"]);
    assert!(file.exists(), "built again");

    // A damaged store: named, exit 3, and the backup is said whole.
    std::fs::write(t.path(".mesh/state.redb"), b"").expect("truncate");
    let doctor = t.run(&["doctor"]);
    assert_eq!(doctor.code, 3);
    assert!(
        doctor.stdout.contains("the store is damaged"),
        "{}",
        doctor.stdout
    );
}

#[test]
fn gc_removes_the_builds_and_logs_of_a_deleted_module() {
    let t = two_nodes();
    t.ok(&["reconcile"]);
    assert!(t.path(".mesh/logs/inventory").is_dir());
    let had = t.json(&["builds", "inventory"]);
    let digest = had[0]["artifact"].as_str().expect("artifact").to_string();
    std::fs::remove_dir_all(t.path("platform/rust/inventory")).expect("delete the module");
    t.commit("platform", "inventory is gone");
    t.ok(&["gc"]);
    let builds = t.json(&["builds", "-n", "1000"]);
    assert!(
        builds
            .as_array()
            .expect("builds")
            .iter()
            .all(|b| b["module"] != "inventory"),
        "{builds}"
    );
    assert!(!t.path(".mesh/logs/inventory").exists(), "its logs go");
    // Never declared (it was assigned nowhere): its artifact goes too.
    assert!(
        !t.path(&format!(".mesh/artifacts/{digest}")).exists(),
        "its artifact goes"
    );
    t.ok(&["doctor"]);
    t.ok(&["reconcile"]);
    let status = t.json(&["status"]);
    for n in ["edge-1", "lab"] {
        assert_eq!(node(&status, n)["state"], "current", "{status}");
    }
}

fn damage_artifacts(t: &TestMesh, modules: &[&str]) -> Vec<std::path::PathBuf> {
    modules
        .iter()
        .map(|m| {
            let (_, file) = newest_artifact(t, m);
            flip(&file, |len| len / 2, 0x10);
            file
        })
        .collect()
}

/// Whether each file holds the bytes its name (a digest) says.
fn whole(files: &[std::path::PathBuf]) -> bool {
    files.iter().all(|f| {
        std::fs::read(f).is_ok_and(|b| {
            Some(blake3::hash(&b).to_hex().as_str()) == f.file_name().and_then(|n| n.to_str())
        })
    })
}

const THREE: [&str; 3] = ["route-proxy", "resolver", "dashboard"];

#[test]
fn doctor_repair_finds_every_damaged_artifact_in_one_pass() {
    let t = two_nodes();
    t.ok(&["reconcile"]);
    let files = damage_artifacts(&t, &THREE);
    let doctor = t.run(&["doctor"]);
    assert_eq!(doctor.code, 3, "{doctor}");
    let repair = t.run(&["doctor", "--repair"]);
    assert_eq!(repair.code, 0, "{repair}");
    for f in &files {
        assert!(
            !f.exists(),
            "one --repair removes every damaged artifact: {repair}"
        );
    }
    // One reconcile builds the three again, and then nothing is wrong.
    let run = t.run_json(&["reconcile"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["built"], 3, "{}", run.stdout);
    assert!(whole(&files), "built again, with the same bytes");
    let after = t.run(&["doctor", "--repair"]);
    assert_eq!(after.code, 0, "{after}");
    assert!(!after.stdout.contains("damaged"), "{}", after.stdout);
    assert_eq!(t.run(&["doctor"]).code, 0);
}

#[test]
fn reconcile_heals_every_damaged_artifact_it_would_send_in_one_pass() {
    let t = two_nodes();
    t.ok(&["reconcile"]);
    let files = damage_artifacts(&t, &THREE);
    // A new node is to be sent all three.
    t.write(
        "mesh.toml",
        &local_nodes_toml(
            &[("edge-1", &[]), ("lab", &[]), ("spare", &[])],
            &[
                ("route-proxy", &["edge-1", "spare"]),
                ("resolver", &["edge-1", "spare"]),
                ("dashboard", &["lab", "spare"]),
            ],
        ),
    );
    let run = t.run_json(&["reconcile"]);
    assert_eq!(run.code, 0, "one pass heals them all: {}", run.stderr);
    let summary = run.json();
    assert_eq!(summary["built"], 3, "{summary}");
    assert!(whole(&files), "built again, with the same bytes");
    let facts = t.ok(&["events", "--json"]);
    assert_eq!(facts.matches("artifact-damaged").count(), 3, "{facts}");
    let status = t.json(&["status"]);
    for n in ["edge-1", "lab", "spare"] {
        assert_eq!(node(&status, n)["state"], "current", "{status}");
    }
    // The following pass finds nothing to do.
    let again = t.run_json(&["reconcile"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(again.json()["built"], 0, "{}", again.stdout);
    assert_eq!(again.json()["sent"], 0, "{}", again.stdout);
    assert_eq!(t.run(&["doctor"]).code, 0);
}

/// The digest and file of the artifact of `module`'s newest build.
fn newest_artifact(t: &TestMesh, module: &str) -> (String, std::path::PathBuf) {
    let builds = t.json(&["builds", module]);
    let digest = builds[0]["artifact"]
        .as_str()
        .expect("artifact")
        .to_string();
    let file = t.path(&format!(".mesh/artifacts/{digest}"));
    (digest, file)
}

/// Flips the bits `mask` of the byte at `at(length)` of `file`.
fn flip(file: &std::path::Path, at: impl Fn(usize) -> usize, mask: u8) {
    let mut bytes = std::fs::read(file).expect("artifact");
    let i = at(bytes.len());
    bytes[i] ^= mask;
    std::fs::write(file, &bytes).expect("flip");
}
