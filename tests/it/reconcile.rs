//! `mesh reconcile`: one idempotent pass, facts only on change, hooks, the lock, and what
//! survives a SIGKILL.

use crate::common::{TestMesh, example, local_nodes_toml, named};
use serde_json::Value;
use std::time::Duration;

/// Two local nodes: edge-1 (tagged edge) and lab.
fn mesh_toml() -> String {
    local_nodes_toml(
        &[("edge-1", &["edge"]), ("lab", &[])],
        &[
            ("route-proxy", &["@edge"]),
            ("resolver", &["@edge"]),
            ("dashboard", &["lab"]),
            ("reporter", &["lab"]),
        ],
    )
}

fn mesh(extra: &str) -> TestMesh {
    let t = example();
    t.write("mesh.toml", &format!("{}{extra}", mesh_toml()));
    t
}

fn events(t: &TestMesh) -> Vec<Value> {
    t.ok(&["events", "--json"])
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn states(t: &TestMesh) -> Vec<String> {
    t.json(&["status"])["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| n["state"].as_str().expect("state").to_string())
        .collect()
}

#[test]
fn one_pass_converges_and_a_second_does_nothing() {
    let t = mesh("");
    let run = t.run_json(&["reconcile"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let s = run.json();
    assert_eq!(s["built"], 10);
    assert_eq!(s["sent"], 2);
    assert_eq!(s["applied"], 4);
    assert_eq!(states(&t), vec!["current", "current"]);
    let before = events(&t);
    let kinds: Vec<&str> = before
        .iter()
        .map(|e| e["kind"].as_str().expect("kind"))
        .collect();
    for k in ["built", "declared", "sent", "applied"] {
        assert!(kinds.contains(&k), "no {k} fact in {kinds:?}");
    }
    let applied = before
        .iter()
        .find(|e| e["kind"] == "applied")
        .expect("applied");
    for field in ["seq", "at", "kind", "subject", "node", "module", "build"] {
        assert!(applied.get(field).is_some(), "{field} missing: {applied}");
    }

    let run = t.run_json(&["reconcile"]);
    assert_eq!(run.code, 0);
    let s = run.json();
    assert_eq!(
        (s["built"].clone(), s["sent"].clone(), s["applied"].clone()),
        (0.into(), 0.into(), 0.into())
    );
    assert_eq!(events(&t), before, "a second pass stated facts");
    // Quiet under cron: nothing on stderr when nothing needs a person.
    let run = t.run(&["reconcile"]);
    assert!(run.stderr.is_empty(), "{}", run.stderr);

    // A change: exactly the facts of its delivery, once.
    t.resolver_v2();
    // Reading verbs read the moved source first: the fact is still stated once, by reconcile.
    t.ok(&["plan"]);
    t.ok(&["graph"]);
    assert_eq!(
        events(&t).len(),
        before.len(),
        "a reading verb stated a fact"
    );
    t.ok(&["reconcile"]);
    let new: Vec<(String, String)> = events(&t)[before.len()..]
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().expect("k").to_string(),
                e["subject"].as_str().expect("s").to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("source-moved", "resolver"),
        ("built", "resolver"),
        ("declared", "resolver"),
        ("sent", "edge-1"),
        ("applied", "edge-1"),
    ]
    .iter()
    .map(|(k, s)| (k.to_string(), s.to_string()))
    .collect();
    assert_eq!(new, want);
}

#[test]
fn a_broken_build_exits_3_and_names_it() {
    let t = mesh("");
    t.edit_and_commit(
        "platform",
        "go/lib/geo/mesh-module.toml",
        "build = '",
        "build = 'exit 4; ",
        "break geo",
    );
    let err = t.fails(&["reconcile"], 3);
    assert!(err.contains("geo is broken"), "{err}");
    // lab does not depend on geo: it still converges.
    let v = t.json(&["status"]);
    let lab = named(&v, "nodes", "lab");
    assert_eq!(lab["state"], "current");
    // Still broken next time: still exit 3, and no new facts.
    let n = events(&t).len();
    t.fails(&["reconcile"], 3);
    assert_eq!(events(&t).len(), n);
}

#[test]
fn hooks_receive_each_fact_and_a_failing_or_hanging_hook_is_not_fatal() {
    let t = mesh("\n[hooks]\non_event = \"cat >> hook.log\"\n");
    t.ok(&["reconcile"]);
    let log = std::fs::read_to_string(t.path("hook.log")).expect("hook ran");
    let got: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(got, events(&t));

    let t = mesh("\n[hooks]\non_event = \"exit 7\"\n");
    let run = t.run(&["reconcile"]);
    assert_eq!(run.code, 0);
    assert!(run.stderr.contains("the on_event hook failed"));
    assert_eq!(states(&t), vec!["current", "current"]);

    let t = mesh("\n[hooks]\non_event = \"no-such-command-here\"\ntimeout = \"1s\"\n");
    assert_eq!(t.run(&["reconcile"]).code, 0);

    let t = mesh("\n[hooks]\non_event = \"sleep 30\"\ntimeout = \"200ms\"\n");
    let start = std::time::Instant::now();
    let run = t.run(&["reconcile"]);
    assert_eq!(run.code, 0);
    assert!(run.stderr.contains("did not finish within 200ms"));
    assert!(
        start.elapsed() < Duration::from_secs(25),
        "the hook was not bounded"
    );
}

#[test]
fn an_unreachable_node_is_one_fact_however_many_passes() {
    let t = example();
    t.write(
        "mesh.toml",
        &format!(
            "{}\n[node.far]\naddress = \"nobody@127.0.0.1\"\nroot = \"/tmp/none\"\noptions = [\"-p\", \"1\"]\ntags = [\"edge\"]\n",
            mesh_toml()
        ),
    );
    for _ in 0..3 {
        let run = t.run(&["reconcile"]);
        assert_eq!(run.code, 0, "unreachable is not a failure: {}", run.stderr);
    }
    let unreachable = events(&t)
        .into_iter()
        .filter(|e| e["kind"] == "unreachable")
        .count();
    assert_eq!(unreachable, 1);
    let v = t.json(&["status"]);
    let far = named(&v, "nodes", "far");
    assert_eq!(far["state"], "never told");
    assert!(far["unreachable_since"].is_string(), "{far}");
}

#[test]
fn a_second_mesh_exits_75_naming_the_holder_and_readers_do_not_wait() {
    let t = mesh("");
    t.slow_geo();
    let mut first = t.spawn(&["reconcile", "-q"]);
    std::thread::sleep(Duration::from_millis(1500));
    let err = t.fails(&["reconcile", "-v"], 75);
    assert!(
        err.contains("mesh reconcile") && err.contains("pid"),
        "{err}"
    );
    t.fails(&["push"], 75);
    t.ok(&["status"]);
    t.ok(&["plan"]);
    t.ok(&["events"]);
    assert!(first.wait().expect("wait").success());
    assert_eq!(states(&t), vec!["current", "current"]);
}

#[test]
fn an_invalid_mesh_toml_between_passes_changes_nothing() {
    let t = mesh("");
    t.ok(&["reconcile"]);
    let before = events(&t);
    t.write(
        "mesh.toml",
        &format!("{}\nroute-proxy = [\"nowhere\"]\n", mesh_toml()),
    );
    let err = t.fails(&["reconcile"], 1);
    assert!(err.contains("mesh.toml:"), "{err}");
    t.write(
        "mesh.toml",
        &mesh_toml().replace("dashboard   = [\"lab\"]", "dashbord = [\"lab\"]"),
    );
    let err = t.fails(&["reconcile"], 1);
    assert!(err.contains("no module is named `dashbord`"), "{err}");
    t.write("mesh.toml", &mesh_toml());
    assert_eq!(events(&t), before);
}

/// Kills `mesh reconcile` with SIGKILL after `delay`, then checks what the store says.
fn kill_and_check(delay: Duration) {
    let t = mesh("");
    let mut child = t.spawn(&["reconcile", "-q"]);
    std::thread::sleep(delay);
    let _ = child.kill();
    let _ = child.wait();
    // The store opens; every recorded build's artifact exists; every recorded send is held.
    for b in t
        .json(&["builds", "-n", "1000"])
        .as_array()
        .expect("builds")
    {
        if let Some(a) = b["artifact"].as_str() {
            assert!(
                t.path(&format!(".mesh/artifacts/{a}")).exists(),
                "build {} has no artifact",
                b["id"]
            );
        }
    }
    let v = t.json(&["status"]);
    for n in v["nodes"].as_array().expect("nodes") {
        if let Some(sent) = n["sent"]["sequence"].as_u64() {
            let name = n["name"].as_str().expect("name");
            let held: Value = serde_json::from_slice(
                &std::fs::read(t.path(&format!("nodes/{name}/declaration.json")))
                    .expect("a recorded send is held"),
            )
            .expect("json");
            assert!(
                held["sequence"].as_u64().expect("seq") >= sent,
                "{name}: sent {sent}, holds {held}"
            );
        }
    }
    // The next pass finishes the work.
    let run = t.run(&["reconcile"]);
    assert_eq!(run.code, 0, "after a kill at {delay:?}: {}", run.stderr);
    assert_eq!(
        states(&t),
        vec!["current", "current"],
        "after a kill at {delay:?}"
    );
}

#[test]
fn a_sigkill_at_any_point_leaves_a_store_the_next_pass_converges() {
    for ms in [5, 40, 80, 120, 160, 220, 300, 400, 600] {
        kill_and_check(Duration::from_millis(ms));
    }
}

#[test]
fn the_events_log_keeps_the_newest_events_keep() {
    let t = example();
    t.write(
        "mesh.toml",
        &mesh_toml().replace("name = \"test\"", "name = \"test\"\nevents_keep = 5"),
    );
    t.ok(&["reconcile"]);
    let kept = events(&t);
    assert_eq!(kept.len(), 5);
    // The oldest were dropped: what is left are the last five facts, in order.
    let seqs: Vec<u64> = kept
        .iter()
        .map(|e| e["seq"].as_u64().expect("seq"))
        .collect();
    assert!(seqs[0] > 5, "{seqs:?}");
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
    let since = t.ok(&["events", "--since", &seqs[3].to_string(), "--json"]);
    assert_eq!(since.lines().count(), 1);
}

#[test]
fn a_wiped_node_is_not_current_and_the_next_pass_converges_it() {
    let t = mesh("");
    t.ok(&["reconcile"]);
    assert_eq!(states(&t), vec!["current", "current"]);
    // The machine is reinstalled: its root is gone, its journal starts again.
    std::fs::remove_dir_all(t.path("nodes/lab")).expect("wipe");
    t.ok(&["collect", "-q"]);
    let v = t.json(&["status"]);
    let lab = crate::common::named(&v, "nodes", "lab");
    assert_eq!(lab["state"], "never told", "{lab}");
    assert!(
        lab["trouble"]["reason"]
            .to_string()
            .contains("no longer holds"),
        "{lab}"
    );
    assert_eq!(
        lab["unreadable"],
        serde_json::json!([]),
        "a lost declaration is no unreadable report: {lab}"
    );
    t.ok(&["reconcile"]);
    assert_eq!(states(&t), vec!["current", "current"]);
    assert!(t.path("nodes/lab/modules/dashboard/current").exists());
}
