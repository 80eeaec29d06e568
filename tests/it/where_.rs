//! `mesh where`: a commit followed through the build graph of the example mesh to real nodes
//! (local directories and real sshd on loopback).

use crate::common::ssh::SshNode;
use crate::common::{MESH_HEAD, Run, TestMesh, example, git, local_nodes_toml};
use serde_json::Value;
use std::time::{Duration, Instant};

/// `mesh where ARGS --json`.
fn where_(t: &TestMesh, args: &[&str]) -> Run {
    t.run_json(&[&["where"], args].concat())
}

/// The answer of `mesh where ARGS --json`, which must exit `code`.
fn where_json(t: &TestMesh, args: &[&str], code: i32) -> Value {
    let run = where_(t, args);
    assert_eq!(run.code, code, "{run}");
    run.json()
}

/// `mesh where ARGS`, the table.
fn where_table(t: &TestMesh, args: &[&str]) -> Run {
    t.run(&[&["where"], args].concat())
}

/// The modules of an answer, in its order.
fn modules(v: &Value) -> Vec<&str> {
    v["modules"]
        .as_array()
        .expect("modules")
        .iter()
        .map(|m| m["name"].as_str().expect("name"))
        .collect()
}

/// The module `name` of an answer.
fn module<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["modules"]
        .as_array()
        .expect("modules")
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not reached: {v:#}"))
}

/// The line of `node` under module `name`.
fn line<'a>(v: &'a Value, name: &str, node: &str) -> &'a Value {
    module(v, name)["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["name"] == node)
        .unwrap_or_else(|| panic!("{node} is not under {name}: {v:#}"))
}

/// The states of every line, as (module, node, state), in output order.
fn states(v: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for m in v["modules"].as_array().expect("modules") {
        for n in m["nodes"].as_array().expect("nodes") {
            out.push((
                m["name"].as_str().expect("name").to_string(),
                n["name"].as_str().expect("name").to_string(),
                n["state"].as_str().expect("state").to_string(),
            ));
        }
    }
    out
}

fn head(t: &TestMesh) -> String {
    git(&t.path("platform"), &["rev-parse", "HEAD"])
        .trim()
        .to_string()
}

/// Makes route-proxy and resolver ship geo's artifact (as a service compiled against a library
/// does), so a change to geo changes theirs too. Committed.
fn ship_geo(t: &TestMesh) {
    for m in ["route-proxy", "resolver"] {
        t.edit(
            &format!("platform/go/services/{m}/mesh-module.toml"),
            r#"build    = 'mkdir -p "$MESH_OUT/bin" && "#,
            r#"build    = 'mkdir -p "$MESH_OUT/bin" && cp "$MESH_DEP_GEO/geo.src" "$MESH_OUT/" && "#,
        );
    }
    t.commit("platform", "services ship geo");
}

/// Commits a change to geo's code (its artifact moves): returns the commit.
fn change_geo(t: &TestMesh, words: &str) -> String {
    t.write(
        "platform/go/lib/geo/extra.go",
        &format!("package geo\n\n// {words}\n"),
    );
    t.commit("platform", words);
    head(t)
}

/// The example repository with two local nodes n1, n2 (tag edge) running route-proxy and
/// resolver; `extra` more `[assign]` lines.
fn local_mesh(extra: &[(&str, &[&str])]) -> TestMesh {
    let t = example();
    let mut assign: Vec<(&str, &[&str])> =
        vec![("route-proxy", &["@edge"]), ("resolver", &["@edge"])];
    assign.extend_from_slice(extra);
    t.write(
        "mesh.toml",
        &local_nodes_toml(&[("n1", &["edge"]), ("n2", &["edge"])], &assign),
    );
    t
}

/// Two ssh nodes, ace and bee (tag edge), with the mesh under test on them, running route-proxy
/// and resolver.
fn ssh_mesh(t: &TestMesh) -> (SshNode, SshNode) {
    let ace = SshNode::with_mesh(t.dir(), "ace");
    let bee = SshNode::with_mesh(t.dir(), "bee");
    let edge = |n: &SshNode| n.stanza(&n.client_options(), &["edge"]);
    t.write(
        "mesh.toml",
        &format!(
            "{MESH_HEAD}\n[ssh]\nconnect_timeout = \"3s\"\n\n{}\n{}\n[assign]\nroute-proxy = [\"@edge\"]\nresolver    = [\"@edge\"]\n",
            edge(&ace),
            edge(&bee)
        ),
    );
    (ace, bee)
}

#[test]
fn a_library_change_is_followed_to_its_two_services_on_two_ssh_nodes() {
    let t = example();
    let (_ace, mut bee) = ssh_mesh(&t);
    ship_geo(&t);
    t.ok(&["reconcile", "-q"]);

    // A change to the library geo, not built yet: both services wait on it.
    let rev = change_geo(&t, "faster distance");
    let v = where_json(&t, &[], 3);
    assert_eq!(v["revs"][0]["commit"], rev.as_str());
    assert_eq!(v["revs"][0]["changed"], serde_json::json!(["geo"]));
    assert_eq!(
        modules(&v),
        ["geo", "resolver", "route-proxy"],
        "graph order"
    );
    assert_eq!(module(&v, "geo")["changed"], true);
    assert_eq!(module(&v, "geo")["nodes"], serde_json::json!([]));
    assert_eq!(module(&v, "route-proxy")["changed"], false);
    assert_eq!(module(&v, "route-proxy")["via"], serde_json::json!(["geo"]));
    for (m, n) in [("route-proxy", "ace"), ("resolver", "bee")] {
        let l = line(&v, m, n);
        assert_eq!(l["state"], "not-built", "{l}");
        assert_eq!(l["waits_on"], serde_json::json!(["geo"]), "{l}");
    }

    // Delivered: running on both nodes, since the apply was read back.
    t.ok(&["reconcile", "-q"]);
    let v = where_json(&t, &[], 0);
    assert_eq!(v["everywhere"], true);
    assert_eq!(states(&v).len(), 4);
    for (m, n, s) in states(&v) {
        assert_eq!(s, "running", "{m} on {n}: {v:#}");
        let l = line(&v, &m, &n);
        assert!(l["since"].is_string(), "{l}");
        assert_eq!(l["build"], l["runs"], "{l}");
    }
    let run = where_table(&t, &[&rev[..10]]);
    assert_eq!(run.code, 0, "{run}");
    let table = run.stdout;
    assert!(table.contains("running since"), "{table}");
    assert!(
        table
            .trim_end()
            .lines()
            .last()
            .expect("summary")
            .contains("runs everywhere it matters: resolver on 2/2 nodes, route-proxy 2/2"),
        "{table}"
    );

    // bee stops; a second change reaches ace only: bee is declared, not sent, unreachable.
    bee.stop();
    let rev2 = change_geo(&t, "even faster");
    t.ok(&["reconcile", "-q"]);
    let v = where_json(&t, &[&rev2], 3);
    assert_eq!(v["everywhere"], false);
    for m in ["route-proxy", "resolver"] {
        assert_eq!(line(&v, m, "ace")["state"], "running");
        let b = line(&v, m, "bee");
        assert_eq!(b["state"], "declared", "{b}");
        assert!(b["unreachable_since"].is_string(), "{b}");
        assert!(b["build"].as_u64() > b["runs"].as_u64(), "{b}");
    }
    let summary = v["summary"].as_str().expect("summary");
    assert!(
        summary.contains("resolver on 1/2 nodes, route-proxy 1/2; bee unreachable since"),
        "{summary}"
    );
    let table = where_table(&t, &[]).stdout;
    assert!(
        table.contains("declared, not sent") && table.contains("unreachable since"),
        "{table}"
    );
    insta::with_settings!({filters => vec![
        (r"\b[0-9a-f]{8}\b", "[commit]"),
        (r"\b\d\d:\d\d\b", "[time]"),
        (r"build \d+", "build [id]"),
    ]}, {
        insta::assert_snapshot!("one_node_unreachable", table);
    });
    // The first change is in what ace runs now (a descendant), and still in what bee runs.
    let v = where_json(&t, &[&rev], 0);
    assert!(states(&v).iter().all(|(_, _, s)| s == "running"), "{v:#}");
}

#[test]
fn a_change_that_does_not_alter_an_artifact_is_running_its_effect() {
    let t = local_mesh(&[]);
    t.ok(&["reconcile", "-q"]);
    let before = line(&where_(&t, &[]).json(), "route-proxy", "n1")["runs"].clone();

    // route-proxy's code moves; its build writes the same bytes.
    t.edit_and_commit(
        "platform",
        "go/services/route-proxy/main.go",
        "package main",
        "// Package main proxies routes.\npackage main",
        "route-proxy: a comment",
    );
    t.ok(&["build", "--behind", "-q"]);
    let v = where_json(&t, &[], 0);
    for n in ["n1", "n2"] {
        let l = line(&v, "route-proxy", n);
        assert_eq!(l["state"], "effect", "{l}");
        assert_eq!(l["runs"], before, "{l}");
        assert!(l["reason"].as_str().expect("reason").contains("artifact"));
    }
    assert_eq!(module(&v, "route-proxy")["build"]["state"], "built");
    assert_ne!(module(&v, "route-proxy")["build"]["build"], before);

    // A file geo's build does not read: geo's artifact stays, its dependents are not rebuilt,
    // and what the nodes run is what building this commit would make.
    t.write("platform/go/lib/geo/NOTES.md", "notes\n");
    t.commit("platform", "geo: notes");
    let built = t.json(&["build", "--behind", "-q"]);
    let names: Vec<&str> = built["built"]
        .as_array()
        .expect("built")
        .iter()
        .map(|b| b["module"].as_str().expect("module"))
        .collect();
    assert_eq!(names, ["geo"], "{built}");
    let v = where_json(&t, &[], 0);
    let l = line(&v, "resolver", "n2");
    assert_eq!(l["state"], "effect", "{l}");
    assert!(
        l["reason"]
            .as_str()
            .expect("reason")
            .contains("same source"),
        "{l}"
    );
    let table = where_table(&t, &[]).stdout;
    assert!(table.contains("running its effect"), "{table}");
}

#[test]
fn a_held_module_is_built_held_until_declared() {
    let t = local_mesh(&[("inventory", &["n1"])]);
    t.ok(&["build", "--behind", "-q"]);
    t.ok(&["declare", "inventory", "-q"]);
    t.ok(&["reconcile", "-q"]);

    t.edit_and_commit(
        "platform",
        "rust/inventory/mesh-module.toml",
        "echo inventory ok",
        "echo inventory v2",
        "inventory v2",
    );
    t.ok(&["reconcile", "-q"]);
    let v = where_json(&t, &[], 3);
    let l = line(&v, "inventory", "n1");
    assert_eq!(l["state"], "held", "{l}");
    assert_eq!(l["build"], module(&v, "inventory")["build"]["build"]);
    assert_ne!(l["build"], l["runs"]);
    assert!(
        l["reason"]
            .as_str()
            .expect("reason")
            .contains("`mesh declare inventory`"),
        "{l}"
    );

    t.ok(&["declare", "inventory", "-q"]);
    t.ok(&["reconcile", "-q"]);
    let v = where_json(&t, &[], 0);
    assert_eq!(line(&v, "inventory", "n1")["state"], "running");
}

#[test]
fn an_unfit_library_blocks_its_dependents_with_its_build() {
    let t = local_mesh(&[]);
    t.ok(&["reconcile", "-q"]);
    // geo's test looks for func Distance.
    t.edit_and_commit(
        "platform",
        "go/lib/geo/geo.go",
        "func Distance(",
        "func Dist(",
        "geo: rename",
    );
    t.fails(&["reconcile", "-q"], 3);
    let v = where_json(&t, &[], 3);
    let geo = &module(&v, "geo")["build"];
    assert_eq!(geo["state"], "unfit", "{geo}");
    let unfit = geo["build"].as_u64().expect("a build id");
    for m in ["route-proxy", "resolver"] {
        for n in ["n1", "n2"] {
            let l = line(&v, m, n);
            assert_eq!(l["state"], "blocked", "{l}");
            assert_eq!(l["build"], unfit, "{l}");
            assert_eq!(
                l["reason"],
                format!("blocked by geo (unfit, build {unfit})"),
                "{l}"
            );
        }
    }
    assert!(
        v["summary"]
            .as_str()
            .expect("summary")
            .ends_with("; geo unfit"),
        "{}",
        v["summary"]
    );
}

#[test]
fn a_reverted_change_is_superseded() {
    let t = local_mesh(&[]);
    ship_geo(&t);
    t.ok(&["reconcile", "-q"]);
    let rev = change_geo(&t, "faster distance");
    t.ok(&["reconcile", "-q"]);
    assert_eq!(where_(&t, &[&rev]).code, 0);

    git(
        &t.path("platform"),
        &["config", "user.email", "t@example.org"],
    );
    git(&t.path("platform"), &["config", "user.name", "t"]);
    git(&t.path("platform"), &["revert", "--no-edit", "HEAD"]);
    let revert = head(&t);
    t.ok(&["reconcile", "-q"]);
    let v = where_json(&t, &[&rev], 3);
    for (m, n, s) in states(&v) {
        assert_eq!(s, "superseded", "{m} on {n}: {v:#}");
        let reason = line(&v, &m, &n)["reason"]
            .as_str()
            .expect("reason")
            .to_string();
        assert!(
            reason.contains(&format!("{}, where geo's change was undone", &revert[..8])),
            "{reason}"
        );
    }
    assert_eq!(module(&v, "geo")["build"]["state"], "superseded");
    // The revert itself is what the nodes run: the builds from before the change.
    let v = where_json(&t, &[], 0);
    assert!(states(&v).iter().all(|(_, _, s)| s == "effect"), "{v:#}");
}

#[test]
fn revs_name_commits_and_bad_ones_are_usage_errors() {
    let t = local_mesh(&[]);
    t.ok(&["reconcile", "-q"]);
    let first = head(&t);
    let rev = change_geo(&t, "one");
    for spec in [rev.as_str(), &rev[..7], "main", "HEAD", "refs/heads/main"] {
        let v = where_(&t, &[spec]).json();
        assert_eq!(v["revs"][0]["commit"], rev.as_str(), "{spec}");
    }
    for spec in ["HEAD~1", "main^", "HEAD^1", "HEAD~"] {
        let v = where_(&t, &[spec]).json();
        assert_eq!(v["revs"][0]["commit"], first.as_str(), "{spec}");
    }
    let err = t.fails(&["where", "nope"], 2);
    assert!(err.contains("`nope` names no commit"), "{err}");
    let err = t.fails(&["where", "HEAD~99"], 2);
    assert!(err.contains("goes past the first commit"), "{err}");
    let err = t.fails(&["where", "--repo", "infra"], 2);
    assert!(err.contains("no repository `infra`"), "{err}");
    // A commit that changed no module: nothing to deliver, nothing outstanding.
    t.write("platform/TODO", "later\n");
    t.commit("platform", "todo");
    let v = where_json(&t, &[], 0);
    assert_eq!(v["modules"], serde_json::json!([]));
    assert!(
        v["summary"]
            .as_str()
            .expect("summary")
            .contains("changed no module"),
        "{v:#}"
    );
}

/// Pushes, trying again while `mesh where --wait` holds the lock for one of its collects;
/// the push must end with `expect` (3 when an apply is meant to fail).
fn push_past_the_wait(t: &TestMesh, expect: i32) {
    let started = Instant::now();
    loop {
        let run = t.run(&["push", "-q"]);
        match run.code {
            c if c == expect => return,
            75 if started.elapsed() < Duration::from_secs(20) => {
                std::thread::sleep(Duration::from_millis(100));
            }
            _ => panic!("push: {run}"),
        }
    }
}

#[test]
fn wait_returns_0_when_the_nodes_apply_and_3_when_one_fails() {
    let t = local_mesh(&[]);
    ship_geo(&t);
    t.ok(&["reconcile", "-q"]);
    change_geo(&t, "faster distance");
    t.ok(&["build", "--behind", "-q"]);

    // Nothing sends it: the time runs out, saying what is outstanding.
    let started = Instant::now();
    let err = t.fails(&["where", "--wait", "1s"], 3);
    assert!(started.elapsed() >= Duration::from_secs(1));
    assert!(
        err.contains("time is up") && err.contains("still outstanding on n1, n2"),
        "{err}"
    );

    // Waiting while it is pushed: the wait's own collect reads the apply back.
    let waiting = std::process::Command::new(assert_cmd::cargo::cargo_bin("mesh"))
        .args(["-C", t.dir().to_str().expect("path")])
        .args(["where", "--wait", "60s", "--json"])
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(500));
    push_past_the_wait(&t, 0);
    let started = Instant::now();
    let waited = Run::from(waiting.wait_with_output().expect("wait"));
    assert_eq!(waited.code, 0, "{waited}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let v = waited.json();
    assert!(states(&v).iter().all(|(_, _, s)| s == "running"), "{v:#}");

    // route-proxy's self-check fails on the node: the wait ends at once, exit 3.
    t.edit_and_commit(
        "platform",
        "go/services/route-proxy/mesh-module.toml",
        "echo route-proxy ok",
        "echo route-proxy broke; exit 1",
        "route-proxy: a bad self-check",
    );
    t.ok(&["build", "--behind", "-q"]);
    push_past_the_wait(&t, 3);
    let started = Instant::now();
    let v = where_json(&t, &["--wait", "60s"], 3);
    assert!(started.elapsed() < Duration::from_secs(20));
    let l = line(&v, "route-proxy", "n1");
    assert_eq!(l["state"], "failing", "{l}");
    assert_eq!(
        l["failure"]["resources"],
        serde_json::json!(["module:route-proxy"]),
        "{l}"
    );
    assert!(l["runs"].as_u64() < l["build"].as_u64(), "{l}");
}

#[test]
fn a_branch_that_moved_sideways_supersedes_the_change() {
    let t = local_mesh(&[]);
    ship_geo(&t);
    t.ok(&["reconcile", "-q"]);
    let rev = change_geo(&t, "faster distance");
    t.ok(&["reconcile", "-q"]);
    // main is reset to before the change and moves on without it (a force-push).
    git(&t.path("platform"), &["reset", "-q", "--hard", "HEAD~1"]);
    let other = change_geo(&t, "another idea");
    t.ok(&["reconcile", "-q"]);
    let v = where_json(&t, &[&rev], 3);
    for (m, n, s) in states(&v) {
        let l = line(&v, &m, &n);
        assert_eq!(s, "superseded", "{m} on {n}: {v:#}");
        assert_eq!(
            l["reason"],
            format!(
                "it runs build {} from {}, which does not contain it",
                l["runs"],
                &other[..8]
            ),
            "{l}"
        );
    }
    assert_eq!(where_(&t, &[]).code, 0);
}

#[test]
fn each_repository_is_followed_and_an_ambiguous_rev_needs_repo() {
    let t = local_mesh(&[("probe", &["n1"])]);
    t.empty_repo("infra");
    t.write(
        "infra/probe/mesh-module.toml",
        "name  = \"probe\"\nbuild = 'printf probe > \"$MESH_OUT/id\"'\n",
    );
    t.commit("infra", "probe");
    let toml = std::fs::read_to_string(t.path("mesh.toml")).expect("read");
    t.write(
        "mesh.toml",
        &toml.replacen(
            "\n[node.",
            "\n[[repo]]\nname = \"infra\"\npath = \"infra\"\nref  = \"refs/heads/main\"\n\n[node.",
            1,
        ),
    );
    t.ok(&["reconcile", "-q"]);
    let v = where_json(&t, &[], 0);
    let repos: Vec<&str> = v["revs"]
        .as_array()
        .expect("revs")
        .iter()
        .map(|r| r["repo"].as_str().expect("repo"))
        .collect();
    assert_eq!(repos, ["platform", "infra"]);
    assert_eq!(line(&v, "probe", "n1")["state"], "running");

    let err = t.fails(&["where", "main"], 2);
    assert!(
        err.contains("`main` names a commit in more than one repository: platform, infra")
            && err.contains("--repo"),
        "{err}"
    );
    let v = where_json(&t, &["main", "--repo", "infra"], 0);
    assert_eq!(v["revs"][0]["repo"], "infra");
    assert_eq!(v["revs"][0]["changed"], serde_json::json!(["probe"]));
    assert_eq!(v["revs"].as_array().map(Vec::len), Some(1));
}

#[test]
fn sent_not_applied_unfit_and_broken() {
    let t = local_mesh(&[]);
    t.ok(&["reconcile", "-q"]);

    // Pushed, and the node applied it, but mesh has not read its report yet.
    t.resolver_v2();
    t.ok(&["build", "--behind", "-q"]);
    t.ok(&["push", "-q"]);
    let v = where_json(&t, &[], 3);
    for n in ["n1", "n2"] {
        let l = line(&v, "resolver", n);
        assert_eq!(l["state"], "sent", "{l}");
        assert!(l["last_seen"].is_string(), "{l}");
    }
    let table = where_table(&t, &[]).stdout;
    assert!(table.contains("sent, not applied (last seen"), "{table}");
    t.ok(&["collect", "-q"]);
    assert_eq!(where_(&t, &[]).code, 0);

    // resolver's tests fail: unfit, with its build.
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "activate = \"bin/resolver\"",
        "activate = \"bin/resolver\"\ntest     = 'false'",
        "resolver: a failing test",
    );
    t.fails(&["reconcile", "-q"], 3);
    let v = where_json(&t, &[], 3);
    let l = line(&v, "resolver", "n1");
    assert_eq!(l["state"], "unfit", "{l}");
    assert_eq!(l["build"], module(&v, "resolver")["build"]["build"]);
    assert!(l["reason"].is_string(), "{l}");

    // resolver's build fails: broken.
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "build    = '",
        "build    = 'exit 1; ",
        "resolver: a broken build",
    );
    t.fails(&["reconcile", "-q"], 3);
    let v = where_json(&t, &[], 3);
    assert_eq!(line(&v, "resolver", "n2")["state"], "broken");
    let table = where_table(&t, &[]).stdout;
    assert!(table.contains("broken (build "), "{table}");
}
