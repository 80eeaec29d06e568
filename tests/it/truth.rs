//! Every verb tells the same truth, and a loop that cannot converge is never silent (issue 11):
//! one reading of mesh.toml for every verb; not worked out, stuck outstanding, refusing and
//! failing nodes exit 3 and say so once; a node's journal is never trusted past what it proves.

use crate::common::ssh::SshNode;
use crate::common::{MESH_HEAD, Run, TestMesh, example, local_nodes_toml, named};
use serde_json::Value;

/// Local nodes a and b, both running resolver (whose activate fails while the node's root
/// holds a `fail` file, and removes the node's whole root while a `nodes/NODE.wipe` file is
/// beside it).
fn mesh() -> TestMesh {
    let t = example();
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "activate = \"bin/resolver\"",
        "activate = 'if test -f \"$MESH_NODE_ROOT.wipe\"; then rm -rf \"$MESH_NODE_ROOT\"; exit 1; fi; if test -f \"$MESH_NODE_ROOT/fail\"; then echo \"resolver failed at $(date +%s%N)\"; exit 1; fi; bin/resolver'",
        "activate can fail",
    );
    t.write(
        "mesh.toml",
        &local_nodes_toml(&[("a", &[]), ("b", &[])], &[("resolver", &["a", "b"])]),
    );
    t
}

/// `mesh reconcile --json`.
fn reconcile(t: &TestMesh) -> Run {
    t.run_json(&["reconcile"])
}

/// Asserts a [`reconcile`] that converged: exit 0 and no one needed.
fn assert_converged(run: &Run) {
    assert_eq!((run.code, needs(run)), (0, "[]".to_string()), "{run}");
}

fn code(t: &TestMesh, args: &[&str]) -> i32 {
    t.run(args).code
}

fn node(t: &TestMesh, name: &str) -> Value {
    named(&t.json(&["status"]), "nodes", name).clone()
}

fn facts(t: &TestMesh, kind: &str, subject: &str) -> usize {
    t.ok(&["events", "--json"])
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .filter(|e| e["kind"] == kind && e["subject"] == subject)
        .count()
}

/// Asserts a [`reconcile`] that needs a person (exit 3) for a reason holding `words`.
fn assert_needs(run: &Run, words: &str) {
    assert_eq!(run.code, 3, "{run}");
    assert!(needs(run).contains(words), "{run}");
}

/// What a [`reconcile`] says needs a person.
fn needs(run: &Run) -> String {
    run.json()["needs_a_person"].to_string()
}

// ---- (1) one reading of the mesh ---------------------------------------------------------

#[test]
fn every_verb_refuses_a_library_in_assign() {
    let t = example();
    t.write(
        "mesh.toml",
        &local_nodes_toml(&[("a", &[])], &[("geo", &["a"])]),
    );
    for verb in [
        &["plan"][..],
        &["push", "--behind"],
        &["push", "a"],
        &["status"],
        &["collect"],
        &["reconcile"],
        &["node", "show", "a"],
    ] {
        let err = t.fails(verb, 1);
        assert!(err.contains("is a library"), "{verb:?}: {err}");
    }
    assert!(!t.path("nodes/a/declaration.json").exists());
}

#[test]
fn every_verb_refuses_a_misspelt_module() {
    let t = example();
    t.write(
        "mesh.toml",
        &local_nodes_toml(&[("lab", &[])], &[("reportr", &["lab"])]),
    );
    for verb in [&["plan"][..], &["push"], &["status"], &["reconcile"]] {
        let err = t.fails(verb, 1);
        assert!(
            err.contains("no module is named `reportr`"),
            "{verb:?}: {err}"
        );
    }
}

#[test]
fn two_nodes_with_one_root_are_refused() {
    let t = example();
    let toml = local_nodes_toml(&[("a", &[]), ("b", &[])], &[("resolver", &["a", "b"])])
        .replace("root = \"nodes/b\"", "root = \"nodes/a/\"");
    t.write("mesh.toml", &toml);
    for verb in [&["status"][..], &["push"], &["reconcile"]] {
        let err = t.fails(verb, 1);
        assert!(err.contains("same root"), "{verb:?}: {err}");
    }
    // Two ssh nodes on one host and port with one root: the same.
    t.write(
        "mesh.toml",
        &format!(
            "{MESH_HEAD}\n[node.x]\naddress = \"a@h\"\nroot = \"/srv/m\"\n\n[node.y]\naddress = \"b@h\"\nroot = \"/srv/m\"\n"
        ),
    );
    assert!(t.fails(&["status"], 1).contains("same root"));
    // Another port is another machine, as far as mesh can tell.
    t.write(
        "mesh.toml",
        &format!(
            "{MESH_HEAD}\n[node.x]\naddress = \"a@h\"\nroot = \"/srv/m\"\n\n[node.y]\naddress = \"b@h\"\nroot = \"/srv/m\"\noptions = [\"-p\", \"2222\"]\n"
        ),
    );
    t.ok(&["status"]);
}

#[test]
fn an_unreadable_repository_is_an_error_not_a_current_mesh() {
    let t = mesh();
    t.ok(&["reconcile"]);
    t.edit("mesh.toml", "path = \"platform\"", "path = \"gone\"");
    let err = t.fails(&["status", "--check"], 1);
    assert!(err.contains("cannot be opened"), "{err}");
}

#[test]
fn a_deleted_module_is_not_listed_and_a_library_is_never_declared() {
    let t = mesh();
    t.ok(&["reconcile"]);
    let v = t.json(&["status"]);
    assert!(v["modules"].to_string().contains("\"reporter\""));
    assert_eq!(
        facts(&t, "declared", "geo"),
        0,
        "a library is never declared"
    );
    crate::common::git(&t.path("platform"), &["rm", "-rq", "python/reporter"]);
    t.commit("platform", "drop reporter");
    let v = t.json(&["status"]);
    assert!(
        !v["modules"].to_string().contains("\"reporter\""),
        "{}",
        v["modules"]
    );
}

#[test]
fn plan_and_status_say_the_same_of_every_node() {
    let t = mesh();
    t.write("nodes/b/fail", "");
    t.ok(&["build", "--behind", "-q"]);
    let _ = code(&t, &["push"]);
    t.ok(&["collect", "-q"]);
    let plan = t.json(&["plan"]);
    let status = t.json(&["status"]);
    for n in ["a", "b"] {
        assert_eq!(
            named(&plan, "nodes", n)["state"],
            named(&status, "nodes", n)["state"],
            "{n}"
        );
    }
    assert_eq!(named(&status, "nodes", "b")["state"], "failed");
}

// ---- (2) convergence is judged ------------------------------------------------------------

#[test]
fn a_node_not_worked_out_needs_a_person_every_pass() {
    let t = mesh();
    t.write(
        "mesh.toml",
        &local_nodes_toml(
            &[("a", &[]), ("b", &[])],
            &[("resolver", &["a", "b"]), ("inventory", &["b"])],
        ),
    );
    for _ in 0..2 {
        assert_needs(&reconcile(&t), "b is not worked out");
    }
    assert_eq!(code(&t, &["status", "--check"]), 3);
    assert_eq!(facts(&t, "not-worked-out", "b"), 1, "said once");
    // Declaring the held module converges it.
    t.ok(&["declare", "inventory"]);
    assert_converged(&reconcile(&t));
    assert_eq!(node(&t, "b")["state"], "current");
}

#[test]
fn a_build_outstanding_for_the_same_reason_three_times_is_stuck() {
    let t = mesh();
    t.ok(&["reconcile"]);
    // exit 75 (EX_TEMPFAIL) is outstanding, not a verdict: retried by every run.
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "name     = \"resolver\"",
        "name     = \"resolver\"\ntest     = \"echo no scratch space; exit 75\"",
        "a test that cannot run here",
    );
    for pass in 1..=3 {
        let run = reconcile(&t);
        if pass < 3 {
            assert_eq!(run.code, 0, "pass {pass}: outstanding is retried: {run}");
        } else {
            assert_eq!(run.code, 3, "pass {pass}: {run}");
            assert!(
                needs(&run).contains("resolver is stuck outstanding"),
                "{run}"
            );
        }
    }
    let run = reconcile(&t);
    assert_eq!(run.code, 3, "still stuck: {run}");
    assert_eq!(facts(&t, "build-stuck", "resolver"), 1, "said once");
    assert_eq!(code(&t, &["status", "--check"]), 3);
    let m = named(&t.json(&["status"]), "modules", "resolver").clone();
    assert!(
        m["stuck"].as_str().expect("stuck").contains("EX_TEMPFAIL"),
        "{m}"
    );

    // A clean change converges.
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "test     = \"echo no scratch space; exit 75\"",
        "test     = \"true\"",
        "the test runs",
    );
    assert_converged(&reconcile(&t));
    assert_eq!(code(&t, &["status", "--check"]), 0);
}

#[test]
fn a_failed_apply_is_applied_again_every_pass_until_stuck() {
    let t = mesh();
    t.write("nodes/b/fail", "");
    for pass in 1..=3 {
        let run = reconcile(&t);
        assert_eq!(
            run.code, 3,
            "pass {pass}: a failed node needs a person: {run}"
        );
        let b = node(&t, "b");
        assert_eq!(b["failure"]["count"], pass, "{b}");
        let want = if pass < 3 { "failed" } else { "stuck" };
        assert_eq!(b["state"], want, "pass {pass}: {b}");
    }
    assert_eq!(facts(&t, "stuck", "b"), 1);
    assert_eq!(facts(&t, "refused", "b"), 1, "one fact for one failure");
    assert_eq!(code(&t, &["status", "--check"]), 3);
    std::fs::remove_file(t.path("nodes/b/fail")).expect("rm");
    assert_converged(&reconcile(&t));
    assert_eq!(node(&t, "b")["state"], "current");
    assert_eq!(facts(&t, "recovered", "b"), 1);
}

#[test]
fn push_says_the_apply_failed() {
    let t = mesh();
    t.write("nodes/b/fail", "");
    t.ok(&["build", "--behind", "-q"]);
    let run = t.run(&["push", "--json"]);
    assert_eq!(run.code, 3);
    let b = run
        .json()
        .as_array()
        .expect("array")
        .iter()
        .find(|r| r["node"] == "b")
        .expect("b")
        .clone();
    assert!(
        b["apply_failed"]
            .as_str()
            .is_some_and(|r| r.contains("resolver")),
        "{b}"
    );
}

#[test]
fn an_activate_that_removes_the_root_is_reported_and_becomes_stuck() {
    let t = mesh();
    t.ok(&["reconcile"]);
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "exit 1; fi; if",
        "exit 1; fi; true; if",
        "a new build",
    );
    t.write("nodes/b.wipe", "");
    let mut last = Value::Null;
    for pass in 1..=3 {
        let run = reconcile(&t);
        assert_eq!(run.code, 3, "pass {pass}: {run}");
        // The node's own failed report was read, every time, and counted once a pass: stuck
        // on the third, as README says, never sooner.
        let b = node(&t, "b");
        assert!(
            b["failure"]["resources"]
                .to_string()
                .contains("module:resolver"),
            "pass {pass}: {b}"
        );
        assert_eq!(b["failure"]["count"], pass, "pass {pass}: {b}");
        assert_eq!(b["state"] == "stuck", pass == 3, "pass {pass}: {b}");
        last = b;
    }
    assert_eq!(last["state"], "stuck", "{last}");
    assert_eq!(facts(&t, "stuck", "b"), 1);
    std::fs::remove_file(t.path("nodes/b.wipe")).expect("rm");
    let run = reconcile(&t);
    assert_eq!(run.code, 0, "{run}");
    assert_eq!(node(&t, "b")["state"], "current");
}

// ---- (3) a node is never trusted past what it proves ---------------------------------------

/// The newest report file of a local node.
fn newest_report(t: &TestMesh, n: &str) -> std::path::PathBuf {
    let mut files: Vec<_> = std::fs::read_dir(t.path(&format!("nodes/{n}/reports")))
        .expect("reports")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    files.pop().expect("a report")
}

fn node_apply(t: &TestMesh, n: &str) {
    let root = t.path(&format!("nodes/{n}")).display().to_string();
    t.run(&["node", "apply", "--root", &root]);
}

#[test]
fn a_report_claiming_a_huge_sequence_does_not_freeze_the_account() {
    let t = mesh();
    // Failing from its first version (an unchanged module that came up is not activated
    // again, so only a version that never came up fails anew on the node's own timer).
    t.write("nodes/a/fail", "");
    assert_eq!(t.run(&["reconcile"]).code, 3);
    let f = newest_report(&t, "a");
    let mut r: Value = serde_json::from_slice(&std::fs::read(&f).expect("read")).expect("json");
    r["report_sequence"] = serde_json::json!(u64::MAX);
    std::fs::write(&f, r.to_string()).expect("write");
    // A file named with the largest sequence, too.
    std::fs::write(
        t.path("nodes/a/reports/18446744073709551615.json"),
        r.to_string(),
    )
    .expect("write");
    t.ok(&["collect", "-q"]);
    node_apply(&t, "a");
    t.ok(&["collect", "-q"]);
    let a = node(&t, "a");
    assert_eq!(a["state"], "failed", "{a}");
    assert_eq!(a["failure"]["count"], 2, "a newer report was read: {a}");
    std::fs::remove_file(t.path("nodes/a/fail")).expect("rm");
    node_apply(&t, "a");
    t.ok(&["collect", "-q"]);
    assert_eq!(node(&t, "a")["state"], "current");
}

#[test]
fn a_journal_whose_reports_were_removed_is_read_from_its_start() {
    let t = mesh();
    // Failing from its first version: the node's own timer tries it again.
    t.write("nodes/a/fail", "");
    assert_eq!(t.run(&["reconcile"]).code, 3);
    for _ in 0..2 {
        node_apply(&t, "a");
    }
    t.ok(&["collect", "-q"]);
    assert_eq!(node(&t, "a")["state"], "stuck");
    // The journal's files go, its id stays: the node numbers from 1 again.
    std::fs::remove_dir_all(t.path("nodes/a/reports")).expect("rm");
    std::fs::remove_file(t.path("nodes/a/fail")).expect("rm");
    node_apply(&t, "a");
    t.ok(&["collect", "-q"]);
    let a = node(&t, "a");
    assert_eq!(a["state"], "current", "{a}");
}

#[test]
fn a_node_at_the_sequence_bound_is_not_wrapped() {
    let t = mesh();
    t.ok(&["reconcile"]);
    // The node holds (and applied) a declaration numbered 2^64-1, as an older mesh allowed.
    for file in ["declaration.json", "state.json"] {
        let p = t.path(&format!("nodes/a/{file}"));
        let text = std::fs::read_to_string(&p).expect("read");
        let mut v: Value = serde_json::from_str(&text).expect("json");
        v["sequence"] = serde_json::json!(u64::MAX);
        std::fs::write(&p, v.to_string()).expect("write");
    }
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "exit 1; fi; if",
        "exit 1; fi; true; if",
        "a new build",
    );
    assert_needs(&reconcile(&t), "2^53");
    let a = node(&t, "a");
    assert_ne!(a["state"], "current", "{a}");
    assert_ne!(a["sent"]["sequence"], 0, "{a}");
    // What only the push saw is recorded, so every verb says it, whatever a collect found.
    assert_eq!(a["needs_a_person"], true, "{a}");
    assert!(a["trouble"]["reason"].to_string().contains("2^53"), "{a}");
    assert_eq!(code(&t, &["status", "--check"]), 3);
    assert_needs(&reconcile(&t), "2^53");
}

// ---- (5) every refusal and every unreachable node is recorded and counts -------------------

/// ace (ssh) and a (local), both running resolver.
fn ssh_mesh(t: &TestMesh, n: &SshNode, options: &[String]) {
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "activate = \"bin/resolver\"",
        "activate = 'if test -f \"$MESH_NODE_ROOT/fail\"; then echo \"resolver failed\"; exit 1; fi; bin/resolver'",
        "activate can fail",
    );
    ssh_mesh_again(t, n, options);
}

#[test]
fn a_changed_host_key_is_recorded_and_needs_a_person() {
    let t = example();
    let mut n = SshNode::with_mesh(t.dir(), "ace");
    let known = t.path("known_hosts");
    std::fs::write(&known, n.known_hosts_line()).expect("known_hosts");
    ssh_mesh(&t, &n, &n.strict_client_options(&known));
    assert_converged(&reconcile(&t));
    assert_eq!(node(&t, "ace")["state"], "current");

    n.rotate_host_key();
    n.restart();
    for _ in 0..2 {
        assert_needs(&reconcile(&t), "host key");
    }
    let ace = node(&t, "ace");
    assert_eq!(ace["state"], "failed", "{ace}");
    assert!(
        ace["reason"].as_str().expect("reason").contains("host key"),
        "{ace}"
    );
    assert_eq!(facts(&t, "trouble", "ace"), 1, "said once");
    assert_eq!(code(&t, &["status", "--check"]), 3);
    assert_eq!(code(&t, &["collect"]), 3);
    let err = t.run(&["status"]).stderr;
    assert!(
        !err.contains("behind"),
        "no push hint for a refusing node: {err}"
    );

    // The operator accepts the new key: the next pass converges.
    std::fs::write(&known, n.known_hosts_line()).expect("known_hosts");
    assert_converged(&reconcile(&t));
    assert_eq!(node(&t, "ace")["state"], "current");
    assert!(node(&t, "ace")["trouble"].is_null());
}

#[test]
fn a_wiped_ssh_node_is_reinstalled_and_resent_in_one_pass() {
    let t = example();
    let n = SshNode::start(t.dir(), "ace");
    ssh_mesh(&t, &n, &n.client_options());
    let run = reconcile(&t);
    assert_eq!(run.code, 0, "{run}");
    assert_eq!(node(&t, "ace")["state"], "current");
    // The machine is wiped: its root and its mesh with it.
    std::fs::remove_dir_all(&n.root).expect("wipe");
    std::fs::create_dir_all(&n.root).expect("mkdir");
    assert_converged(&reconcile(&t));
    assert_eq!(node(&t, "ace")["state"], "current");
    assert!(n.root.join("bin/mesh-node").exists());
    assert!(n.root.join("modules/resolver/current").exists());
    // A second pass does nothing.
    let run = reconcile(&t);
    assert_eq!(
        (run.code, run.json()["sent"].clone()),
        (0, serde_json::json!(0)),
        "{run}"
    );
}

#[test]
fn an_ssh_activate_failing_three_passes_is_stuck() {
    let t = example();
    let n = SshNode::with_mesh(t.dir(), "ace");
    ssh_mesh(&t, &n, &n.client_options());
    std::fs::write(n.root.join("fail"), "").expect("fail");
    for pass in 1..=3 {
        let run = reconcile(&t);
        assert_eq!(run.code, 3, "pass {pass}: {run}");
        assert_eq!(node(&t, "ace")["failure"]["count"], pass);
    }
    assert_eq!(node(&t, "ace")["state"], "stuck");
    assert_eq!(facts(&t, "stuck", "ace"), 1);
    std::fs::remove_file(n.root.join("fail")).expect("rm");
    assert_converged(&reconcile(&t));
    assert_eq!(node(&t, "ace")["state"], "current");
}

// ---- (4) exports are bytes ---------------------------------------------------------------

#[test]
fn file_names_that_are_not_utf8_are_exported_as_git_holds_them() {
    use std::os::unix::ffi::OsStrExt;
    let t = mesh();
    let dir = t.path("platform/go/services/resolver");
    for name in [&b"data-\xff"[..], b"data-\xfe"] {
        std::fs::write(dir.join(std::ffi::OsStr::from_bytes(name)), name).expect("write");
    }
    t.commit("platform", "two names that are not UTF-8");
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "build    = '",
        "build    = 'test \"$(ls data-* | wc -l)\" -eq 2 && ",
        "the build needs both",
    );
    assert_converged(&reconcile(&t));
    let b = t.json(&["builds", "resolver"]);
    assert_eq!(
        b[b.as_array().expect("builds").len() - 1]["verdict"],
        "fit",
        "{b}"
    );
}

// ---- (6) the smaller untruths ---------------------------------------------------------------

#[test]
fn node_show_and_status_say_the_same_sequence_after_a_declare() {
    let t = mesh();
    t.write(
        "mesh.toml",
        &local_nodes_toml(
            &[("a", &[]), ("b", &[])],
            &[("resolver", &["a", "b"]), ("inventory", &["b"])],
        ),
    );
    assert_eq!(reconcile(&t).code, 3);
    t.ok(&["declare", "inventory"]);
    let run = reconcile(&t);
    assert_eq!(run.code, 0, "{run}");
    let b = node(&t, "b");
    let seq = b["declared"]["sequence"].as_u64().expect("sequence");
    assert_eq!(b["sent"]["sequence"].as_u64(), Some(seq), "{b}");
    let show = t.ok(&["node", "show", "b"]);
    let declared = show
        .lines()
        .find(|l| l.starts_with("declared"))
        .unwrap_or_else(|| panic!("no declared line in:\n{show}"));
    assert!(
        declared.contains(&format!(" sequence {seq} (")),
        "{show}\n{b}"
    );
    let json = t.json(&["node", "show", "b"]);
    assert_eq!(json["status"]["declared"], b["declared"]);
}

#[test]
fn an_unfit_newest_build_does_not_hide_what_the_nodes_run() {
    let t = mesh();
    t.ok(&["reconcile"]);
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "name     = \"resolver\"",
        "name     = \"resolver\"\ntest     = \"false\"",
        "a failing test",
    );
    assert_needs(&reconcile(&t), "resolver is unfit");
    let table = t.ok(&["status", "--modules"]);
    let row = table
        .lines()
        .find(|l| l.starts_with("resolver"))
        .expect("resolver row");
    assert!(row.contains("unfit"), "{row}");
    assert!(row.contains("nodes are sent the build from"), "{row}");
    // The nodes still run the fit build: current.
    assert_eq!(node(&t, "a")["state"], "current");
}

#[test]
fn a_named_push_asks_the_node_what_it_holds() {
    let t = mesh();
    t.ok(&["reconcile"]);
    let push = |t: &TestMesh| -> Value { t.run(&["push", "a", "--json"]).json()[0].clone() };
    assert_eq!(push(&t)["outcome"], "unchanged");
    // Wiped: push does not answer for it from the store.
    std::fs::remove_dir_all(t.path("nodes/a")).expect("wipe");
    let a = push(&t);
    assert_eq!(a["outcome"], "sent", "{a}");
    assert!(t.path("nodes/a/modules/resolver/current").exists());
}

#[test]
fn a_refused_key_is_recorded_against_the_node() {
    let t = example();
    let n = SshNode::with_mesh(t.dir(), "ace");
    ssh_mesh(&t, &n, &n.unauthorized_options(&t.path("other_key")));
    for _ in 0..2 {
        assert_needs(&reconcile(&t), "refused the key");
    }
    let ace = node(&t, "ace");
    assert_ne!(ace["state"], "current", "{ace}");
    assert!(
        ace["trouble"]["reason"]
            .to_string()
            .contains("refused the key"),
        "{ace}"
    );
    assert_eq!(facts(&t, "trouble", "ace"), 1, "said once");
    assert_eq!(code(&t, &["collect"]), 3);
    // The right key: the next pass converges.
    ssh_mesh_again(&t, &n, &n.client_options());
    assert_converged(&reconcile(&t));
    assert_eq!(node(&t, "ace")["state"], "current");
}

/// [`ssh_mesh`]'s mesh.toml again, with other options (the module change is made once).
fn ssh_mesh_again(t: &TestMesh, n: &SshNode, options: &[String]) {
    t.write(
        "mesh.toml",
        &format!(
            "{MESH_HEAD}\n{}\n[node.a]\ntransport = \"local\"\nroot = \"nodes/a\"\n\n[assign]\nresolver = [\"{}\", \"a\"]\n",
            n.stanza(options, &[]),
            n.name
        ),
    );
}
