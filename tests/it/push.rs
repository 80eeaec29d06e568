//! `mesh declare` and `mesh push`: only behind nodes are sent; a send is recorded only after the
//! node holds it; unreachable nodes stay out of date; local and real ssh nodes.

use crate::common::ssh::{SshNode, one_node_mesh};
use crate::common::{MESH_HEAD, Run, TestMesh, example, local_nodes_toml, named};
use serde_json::Value;

/// Two local nodes: a (tagged edge) and b.
fn local_mesh_toml() -> String {
    local_nodes_toml(
        &[("a", &["edge"]), ("b", &[])],
        &[
            ("route-proxy", &["@edge"]),
            ("resolver", &["a"]),
            ("dashboard", &["b"]),
        ],
    )
}

fn local_mesh() -> TestMesh {
    let t = example();
    t.write("mesh.toml", &local_mesh_toml());
    t
}

/// `mesh push ARGS --json`: its stdout is one outcome object a node.
pub(crate) fn push(t: &TestMesh, args: &[&str]) -> Run {
    let run = t.run_json(&[&["push"], args].concat());
    assert!(run.json().is_array(), "{run}");
    run
}

/// The outcome of `node` in a [`push`].
fn outcome(run: &Run, node: &str) -> Value {
    run.json()
        .as_array()
        .expect("array")
        .iter()
        .find(|r| r["node"] == node)
        .cloned()
        .unwrap_or_else(|| panic!("{node} not in {run}"))
}

fn plan_node(t: &TestMesh, node: &str) -> Value {
    named(&t.json(&["plan"]), "nodes", node).clone()
}

#[test]
fn push_sends_behind_nodes_once_and_only_what_changed() {
    let t = local_mesh();
    assert_eq!(plan_node(&t, "a")["state"], "not worked out");
    t.ok(&["build", "--behind", "-q"]);
    assert_eq!(plan_node(&t, "a")["state"], "never told");
    let run = push(&t, &["--behind"]);
    assert_eq!(run.code, 0);
    let a = outcome(&run, "a");
    assert_eq!(a["outcome"], "sent");
    assert_eq!(a["sequence"], 1);
    assert_eq!(a["artifacts"], 2);
    assert_eq!(outcome(&run, "b")["outcome"], "sent");
    assert_eq!(plan_node(&t, "a")["state"], "outstanding"); // sent; applied once collected
    assert!(t.path("nodes/a/modules/route-proxy/current").exists());
    assert!(t.path("nodes/a/modules/resolver/current").exists());

    // Nothing moved: nothing sent, and no node is even asked.
    let run = push(&t, &[]);
    assert_eq!(run.code, 0);
    let unchanged = |n: &Value| n["outcome"] == "unchanged";
    assert!(
        run.json().as_array().expect("array").iter().all(unchanged),
        "{run}"
    );

    // One module changes: only its artifact travels, and only to its node.
    t.resolver_v2();
    t.ok(&["build", "--behind", "-q"]);
    assert_eq!(plan_node(&t, "a")["state"], "out of date");
    assert_eq!(plan_node(&t, "b")["state"], "outstanding");
    let run = push(&t, &["--behind"]);
    let a = outcome(&run, "a");
    assert_eq!(a["outcome"], "sent");
    assert_eq!(a["sequence"], 2);
    assert_eq!(a["artifacts"], 1);
    assert!(a["bytes"].as_u64().expect("bytes") > 0);
    assert_eq!(outcome(&run, "b")["outcome"], "unchanged");

    // --all resends the same declaration under the same sequence.
    let run = push(&t, &["--all"]);
    assert_eq!(outcome(&run, "a")["sequence"], 2);
    assert_eq!(outcome(&run, "a")["artifacts"], 0);
}

#[test]
fn hold_modules_wait_for_declare_and_unmet_presence_is_not_worked_out() {
    let t = local_mesh();
    t.write(
        "mesh.toml",
        &format!("{}inventory = [\"b\"]\n", local_mesh_toml()),
    );
    t.ok(&["build", "--behind", "-q"]);
    let b = plan_node(&t, "b");
    assert_eq!(b["state"], "not worked out");
    assert!(
        b["reason"].as_str().expect("reason").contains("inventory"),
        "{b}"
    );
    let run = push(&t, &[]);
    assert_eq!(outcome(&run, "b")["outcome"], "not worked out");
    assert!(!t.path("nodes/b/declaration.json").exists());
    t.ok(&["declare", "inventory"]);
    assert_eq!(plan_node(&t, "b")["state"], "never told");
    let err = t.fails(&["declare", "inventory", "999"], 1);
    assert!(err.contains("there is no build 999"), "{err}");

    // route-proxy needs resolver on the same node.
    t.write(
        "mesh.toml",
        &local_mesh_toml().replace("resolver    = [\"a\"]", "resolver    = [\"b\"]"),
    );
    let a = plan_node(&t, "a");
    assert_eq!(a["state"], "not worked out");
    assert!(
        a["reason"]
            .as_str()
            .expect("r")
            .contains("needs resolver present"),
        "{a}"
    );
}

#[test]
fn an_unknown_node_is_a_clear_error() {
    let t = local_mesh();
    let err = t.fails(&["push", "nope"], 1);
    assert!(
        err.contains("there is no node `nope`") && err.contains("known nodes: a, b"),
        "{err}"
    );
}

#[test]
fn a_replayed_older_declaration_is_refused_whole() {
    let t = local_mesh();
    t.ok(&["build", "--behind", "-q"]);
    push(&t, &[]);
    let old = std::fs::read(t.path("nodes/a/declaration.json")).expect("read");
    t.resolver_v2();
    t.ok(&["build", "--behind", "-q"]);
    push(&t, &[]);
    let current = std::fs::read(t.path("nodes/a/declaration.json")).expect("read");
    let mut stream = format!("declaration {}\n", old.len()).into_bytes();
    stream.extend_from_slice(&old);
    stream.extend_from_slice(b"end\n");
    let root = t.path("nodes/a");
    let receive = ["node", "receive", "--root", root.to_str().expect("path")];
    let answer = Run::of(t.mesh(&receive).write_stdin(stream));
    assert!(!answer.success());
    assert!(
        answer.stdout.contains("refused") && answer.stdout.contains("lower"),
        "{answer}"
    );
    assert_eq!(
        std::fs::read(t.path("nodes/a/declaration.json")).expect("read"),
        current
    );
    let reports = t.ok(&[
        "node",
        "report",
        "--root",
        t.path("nodes/a").to_str().expect("path"),
    ]);
    assert!(
        reports
            .lines()
            .last()
            .expect("a report")
            .contains("\"refused\""),
        "{reports}"
    );
}

/// A mesh with two ssh nodes (real sshd on loopback) and one local node.
fn ssh_mesh(t: &TestMesh, a: &SshNode, b: &SshNode) {
    let edge = |n: &SshNode| n.stanza(&n.client_options(), &["edge"]);
    t.write(
        "mesh.toml",
        &format!(
            r#"{MESH_HEAD}
[ssh]
parallel = 4
connect_timeout = "3s"

{}
{}
[node.lab]
transport = "local"
root = "nodes/lab"

[assign]
route-proxy = ["@edge"]
resolver    = ["@edge"]
dashboard   = ["lab"]
"#,
            edge(a),
            edge(b),
        ),
    );
}

#[test]
fn ssh_nodes_and_an_unreachable_one() {
    let t = example();
    let a = SshNode::with_mesh(t.dir(), "ace");
    let mut b = SshNode::start(t.dir(), "bee");
    ssh_mesh(&t, &a, &b);
    t.ok(&["build", "--behind", "-q"]);
    // bee has no mesh yet: the push installs it first, and says so.
    let run = push(&t, &[]);
    assert_eq!(run.code, 0, "{run}");
    assert_eq!(outcome(&run, "ace")["outcome"], "sent");
    assert_eq!(outcome(&run, "ace")["installed"], false);
    assert_eq!(outcome(&run, "bee")["outcome"], "sent");
    assert_eq!(outcome(&run, "bee")["installed"], true);
    assert_eq!(outcome(&run, "lab")["outcome"], "sent");
    assert!(a.root.join("modules/route-proxy/current").exists());
    assert!(b.root.join("bin/mesh-node").exists());

    // A change while bee is down: ace is sent, bee is unreachable and stays out of date.
    t.resolver_v2();
    t.ok(&["build", "--behind", "-q"]);
    b.stop();
    let run = push(&t, &[]);
    assert_eq!(run.code, 3);
    assert_eq!(outcome(&run, "ace")["outcome"], "sent");
    assert_eq!(outcome(&run, "ace")["sequence"], 2);
    let bee = outcome(&run, "bee");
    assert_eq!(bee["outcome"], "unreachable");
    assert!(
        bee["reason"]
            .as_str()
            .expect("reason")
            .contains("connection refused"),
        "{bee}"
    );
    assert_eq!(outcome(&run, "lab")["outcome"], "unchanged");
    assert_eq!(plan_node(&t, "bee")["state"], "out of date");
    assert_eq!(plan_node(&t, "ace")["state"], "outstanding");
    // The table: the state word in its column, and since when in the reason, said once.
    let table = t.ok(&["status", "--nodes"]);
    let row = table
        .lines()
        .find(|l| l.starts_with("bee "))
        .unwrap_or_else(|| panic!("no bee in:\n{table}"));
    assert!(row.contains(" out of date "), "{row}");
    assert!(
        row.contains("unreachable since just now: ") && row.contains("connection refused"),
        "{row}"
    );
    assert!(!row.contains("bee: "), "{row}");

    // It comes back: the next push converges it.
    b.restart();
    let run = push(&t, &["--behind"]);
    assert_eq!(run.code, 0, "{run}");
    assert_eq!(outcome(&run, "bee")["outcome"], "sent");
    assert_eq!(outcome(&run, "bee")["sequence"], 2);
    assert_eq!(outcome(&run, "ace")["outcome"], "unchanged");
    assert_eq!(plan_node(&t, "bee")["state"], "outstanding");
}

#[test]
fn a_changed_host_key_is_refused_and_nothing_is_recorded() {
    let t = example();
    let mut n = SshNode::with_mesh(t.dir(), "ace");
    let known = t.path("known_hosts");
    std::fs::write(&known, n.known_hosts_line()).expect("known_hosts");
    one_node_mesh(&t, &n, &n.strict_client_options(&known));
    t.ok(&["build", "--behind", "-q"]);
    let run = push(&t, &[]);
    assert_eq!(
        (run.code, outcome(&run, "ace")["outcome"].as_str()),
        (0, Some("sent")),
        "{run}"
    );

    t.resolver_v2();
    t.ok(&["build", "--behind", "-q"]);
    n.rotate_host_key();
    n.restart();
    let known_before = std::fs::read_to_string(&known).expect("known_hosts");
    let run = push(&t, &[]);
    assert_eq!(run.code, 3);
    let ace = outcome(&run, "ace");
    assert_eq!(ace["outcome"], "failed", "{ace}");
    assert!(
        ace["reason"]
            .as_str()
            .expect("reason")
            .contains("host key changed"),
        "{ace}"
    );
    assert_eq!(plan_node(&t, "ace")["state"], "out of date");
    // known_hosts is untouched: the check is never bypassed.
    assert_eq!(
        std::fs::read_to_string(&known).expect("known_hosts"),
        known_before
    );
}

#[test]
fn a_node_root_that_cannot_be_written_is_a_clear_failure() {
    let t = local_mesh();
    t.write("blocker", "a file where a directory should be");
    t.write(
        "mesh.toml",
        &local_mesh_toml().replace("root = \"nodes/a\"", "root = \"blocker/a\""),
    );
    t.ok(&["build", "--behind", "-q"]);
    let run = push(&t, &[]);
    assert_eq!(run.code, 3);
    let a = outcome(&run, "a");
    assert_eq!(a["outcome"], "failed", "{a}");
    assert!(
        a["reason"].as_str().expect("reason").contains("blocker/a"),
        "{a}"
    );
    assert_eq!(outcome(&run, "b")["outcome"], "sent");
    assert_eq!(plan_node(&t, "a")["state"], "never told");
}

#[test]
fn a_push_killed_mid_transfer_leaves_a_whole_declaration_and_the_next_push_converges() {
    let t = example();
    let n = SshNode::with_mesh(t.dir(), "ace");
    one_node_mesh(&t, &n, &n.client_options());
    t.ok(&["build", "--behind", "-q"]);
    push(&t, &[]);
    let old = std::fs::read(n.root.join("declaration.json")).expect("held");
    // A big artifact, so that a kill lands while it is on the wire.
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "build    = '",
        "build    = 'head -c 30000000 /dev/urandom > \"$MESH_OUT/blob\"; ",
        "big",
    );
    t.ok(&["build", "--behind", "-q"]);
    for ms in [50, 150, 300] {
        let mut child = t.spawn(&["push", "-q"]);
        std::thread::sleep(std::time::Duration::from_millis(ms));
        let _ = child.kill();
        let _ = child.wait();
        std::thread::sleep(std::time::Duration::from_millis(300));
        let held = std::fs::read(n.root.join("declaration.json")).expect("held");
        let v: Value = serde_json::from_slice(&held).expect("the declaration in force is whole");
        if held != old {
            assert_eq!(v["sequence"], 2, "{v}");
        }
    }
    let run = push(&t, &["--behind"]);
    assert_eq!(run.code, 0, "{run}");
    t.ok(&["collect", "-q"]);
    let v = t.json(&["status"]);
    assert_eq!(v["nodes"][0]["state"], "current", "{v}");
}

/// The example with one ssh node `ace` and `[ssh] persist = "1m"`, with `more` `[ssh]` lines.
fn persisting_ssh_mesh(more: &str) -> (TestMesh, SshNode) {
    let t = example();
    let n = SshNode::start(t.dir(), "ace");
    one_node_mesh(&t, &n, &n.client_options());
    t.edit(
        "mesh.toml",
        "[node.ace]",
        &format!("[ssh]\npersist = \"1m\"\n{more}\n[node.ace]"),
    );
    (t, n)
}

#[test]
fn with_ssh_persist_the_next_run_reuses_the_connection() {
    let (t, n) = persisting_ssh_mesh("");
    // The node's mesh counts the remote commands that start it.
    let runs = t.path("runs");
    n.program(&format!(
        "#!/bin/sh\necho run >> {}\nexec REAL \"$@\"\n",
        runs.display()
    ));
    let bin = n.root.join("bin");
    let started = || {
        std::fs::read_to_string(&runs)
            .unwrap_or_default()
            .lines()
            .count()
    };
    t.ok(&["build", "--behind", "-q"]);
    t.ok(&["push", "-q"]);
    assert_eq!(started(), 1, "one session for the push");
    // The session starts its lingering server detached, as it ends; on a loaded machine that
    // server may not listen yet when the next command starts (a cron's next run is minutes
    // away): wait until it does, at most 10 s.
    let socket = n.root.join(".session.sock");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !socket.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let accepted = |n: &SshNode| n.log().matches("Accepted publickey").count();
    let after_push = accepted(&n);
    t.ok(&["collect", "-q"]);
    t.ok(&["collect", "-q"]);
    assert_eq!(
        accepted(&n),
        after_push,
        "a later run made a new connection:\n{}",
        n.log()
    );
    // The session lingered on the node, reached through the kept connection's forwarded
    // socket: no remote command, no login shell.
    assert_eq!(started(), 1, "a later run started mesh on the node again");
    assert_eq!(t.json(&["status"])["nodes"][0]["state"], "current");
    // A node whose mesh is replaced (an upgrade) stops answering from the old binary: the next
    // run starts the new one.
    let fresh = bin.join("mesh-node.new");
    std::fs::copy(bin.join("mesh-node"), &fresh).expect("copy");
    std::fs::rename(&fresh, bin.join("mesh-node")).expect("rename");
    t.ok(&["collect", "-q"]);
    assert_eq!(started(), 2, "the new binary was started once");
    // And its session lingers in turn, once the old one let go: then runs start nothing.
    let settled = (0..4).any(|_| {
        let before = started();
        t.ok(&["collect", "-q"]);
        started() == before
    });
    assert!(
        settled,
        "every run after the upgrade started mesh on the node"
    );
    assert_eq!(t.json(&["status"])["nodes"][0]["state"], "current");
    // Cleaned up: the lingering session exits once its root's socket is gone with the test.
    let _ = std::fs::remove_file(n.root.join(".session.sock"));
}

/// The pid of the lingering session serving `root`, once it listens (at most 10 s).
fn lingering_server(root: &std::path::Path, not: Option<u32>) -> u32 {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let out = std::process::Command::new("pgrep")
            .args(["-f", &format!("node serve --root {}", root.display())])
            .output()
            .expect("pgrep");
        let found = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.trim().parse::<u32>().ok())
            .find(|pid| Some(*pid) != not);
        if let Some(pid) = found
            && root.join(".session.sock").exists()
        {
            return pid;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no lingering session for {}",
            root.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Issue 33: a stopped lingering `mesh node serve` made every collect wait for it, silently.
/// Now the wait is one `[ssh] timeout`, paid once and said: the session started instead
/// replaces the server that does not answer, and the next run is served at once.
#[test]
fn a_stopped_lingering_session_is_waited_for_once_and_said() {
    let (t, n) = persisting_ssh_mesh("timeout = \"2s\"\n");
    t.ok(&["build", "--behind", "-q"]);
    t.ok(&["push", "-q"]);
    let stopped = lingering_server(&n.root, None);
    let signal = |sig: &str, pid: u32| {
        let _ = std::process::Command::new("kill")
            .args([sig, &pid.to_string()])
            .status();
    };
    signal("-STOP", stopped);

    let run = t.run(&["collect"]);
    assert_eq!(run.code, 0, "{run}");
    assert!(
        run.stderr.contains(
            "node ace: its lingering session did not answer (no answer for 2s after connecting to its lingering session"
        ),
        "{run}"
    );
    // The session that served this run left a new server in the stopped one's place.
    let replacement = lingering_server(&n.root, Some(stopped));
    assert_ne!(replacement, stopped);
    let run = t.run(&["collect"]);
    assert_eq!(run.code, 0, "{run}");
    assert!(
        !run.stderr.contains("did not answer"),
        "the next run waited again:\n{run}"
    );
    assert_eq!(t.json(&["status"])["nodes"][0]["state"], "current");
    // Woken, the old server finds its socket gone and ends; the new one ends with the test.
    signal("-CONT", stopped);
    let _ = std::fs::remove_file(n.root.join(".session.sock"));
}
