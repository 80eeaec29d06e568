//! Sharing builds through a REAPI engine (issue 37), against a real BuildGrid: so far the
//! client — blobs up and back, checked against their digests, and an engine that goes away.

use crate::common::buildgrid::BuildGrid;
use crate::common::{Run, TestMesh};
use mesh::remote::client::Remote;
use mesh::remote::merkle;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

#[test]
fn blobs_go_up_once_come_back_whole_and_a_damaged_one_is_named() {
    let mut bg = BuildGrid::start();
    let remote = Remote::connect(&bg.endpoint, "", Duration::from_secs(10)).expect("connect");
    remote.check().expect("SHA-256");
    let t = tempfile::tempdir().expect("tmp");
    std::fs::write(t.path().join("small"), "hello").unwrap();
    std::fs::create_dir(t.path().join("d")).unwrap();
    // Larger than a batch: through ByteStream both ways.
    let big: Vec<u8> = (0..5_000_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(t.path().join("d/big"), &big).unwrap();
    let tree = merkle::tree(t.path()).expect("tree");
    assert_eq!(remote.upload(&tree).expect("upload"), tree.blobs.len());
    assert_eq!(remote.upload(&tree).expect("again"), 0, "nothing twice");
    let big_digest = merkle::digest_of(&big);
    assert_eq!(remote.read(&big_digest).expect("big back"), big);
    let small = merkle::digest_of(b"hello");
    assert_eq!(remote.read(&small).expect("small back"), b"hello");
    let absent = merkle::digest_of(b"never uploaded");
    assert!(remote.read(&absent).is_err());

    // A blob changed in the engine's store is refused, never taken.
    std::fs::write(bg.blob_path(&small.hash), "HELLO").unwrap();
    let e = remote.read(&small).expect_err("damaged");
    assert!(e.to_string().contains("does not match its digest"), "{e}");

    // The engine goes away: an error within the timeout, never a hang.
    bg.kill();
    let started = std::time::Instant::now();
    assert!(remote.find_missing(vec![small]).is_err());
    assert!(Remote::connect(&bg.endpoint, "", Duration::from_secs(2)).is_err());
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn an_action_result_is_a_miss_until_written_then_read_back_as_written() {
    use bazel_remote_apis::build::bazel::remote::execution::v2::{ActionResult, OutputDirectory};
    let bg = BuildGrid::start();
    let remote = Remote::connect(&bg.endpoint, "", Duration::from_secs(10)).expect("connect");
    let t = tempfile::tempdir().expect("tmp");
    std::fs::write(t.path().join("out"), "built").unwrap();
    let mut outputs = merkle::tree(t.path()).expect("tree");
    // An output directory is named by a Tree message, uploaded with its blobs.
    let tree_digest = outputs.as_message();
    remote.upload(&outputs).expect("outputs");
    let action = merkle::digest_of(b"an action");
    assert_eq!(
        remote.action_result(&action).expect("asked"),
        None,
        "a miss, not an error"
    );
    let result = ActionResult {
        output_directories: vec![OutputDirectory {
            path: "out".into(),
            tree_digest: Some(tree_digest),
            ..Default::default()
        }],
        exit_code: 0,
        ..Default::default()
    };
    remote
        .put_action_result(&action, result.clone())
        .expect("written");
    let back = remote
        .action_result(&action)
        .expect("asked")
        .expect("a hit");
    assert_eq!(back.output_directories, result.output_directories);
}

/// mesh.toml of a controller named `name` building the example fixture, sharing builds
/// through `endpoint` (`upload` for the one that writes), trusting `controllers`.
fn sharing(t: &TestMesh, name: &str, endpoint: &str, upload: bool, controllers: &str) {
    sharing_with(t, name, endpoint, upload, controllers, "");
}

/// [`sharing`], with more `[remote]` lines.
fn sharing_with(
    t: &TestMesh,
    name: &str,
    endpoint: &str,
    upload: bool,
    controllers: &str,
    more: &str,
) {
    t.write(
        "mesh.toml",
        &format!(
            r#"[mesh]
name = "fleet"
controller = "{name}"

[[repo]]
name = "platform"
path = "platform"
ref  = "refs/heads/main"

[remote]
endpoint = "{endpoint}"
upload = {upload}
timeout = "5s"
{more}

[controllers]
{controllers}
"#
        ),
    );
}

/// A laptop trusting `cron`, at its commit, with `bg` as its engine and nothing more
/// (no CA, no token): its `build --behind` finds the engine away, says so once, builds here.
fn laptop_finding_the_engine_away(cron: &TestMesh, bg: &BuildGrid) -> (TestMesh, Run) {
    let other = TestMesh::new();
    other.clone_platform_of(cron);
    sharing(&other, "laptop", &bg.endpoint, false, &id_line(cron));
    let run = other.run_json(&["build", "--behind"]);
    assert!(run.success(), "{}", run.stderr);
    assert_eq!(
        run.stderr.matches("remote cache unreachable").count(),
        1,
        "{}",
        run.stderr
    );
    (other, run)
}

/// The `[controllers]` line `mesh id` prints for `t`.
fn id_line(t: &TestMesh) -> String {
    t.ok(&["id"]).trim().to_string()
}

/// The build of `name` in a `build --json` run.
fn module<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["built"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["module"] == name))
        .unwrap_or_else(|| panic!("{name} not built: {v}"))
}

/// Module → (artifact digest, where it ran) of a `build --json` run.
fn built(v: &Value) -> BTreeMap<String, (String, String)> {
    v["built"]
        .as_array()
        .expect("built")
        .iter()
        .map(|b| {
            (
                b["module"].as_str().unwrap().to_string(),
                (
                    b["artifact"].as_str().unwrap_or("").to_string(),
                    b["remote"]["ran"].as_str().unwrap_or("").to_string(),
                ),
            )
        })
        .collect()
}

#[test]
fn a_second_controller_takes_every_build_from_the_cache_byte_for_byte() {
    let bg = BuildGrid::start();
    let cron = TestMesh::new();
    cron.repo_from_fixture("platform", "example");
    sharing(&cron, "cron", &bg.endpoint, true, "");
    let first = built(&cron.json(&["build", "--behind"]));
    assert!(first.len() >= 8, "{first:?}");
    assert!(first.values().all(|(_, ran)| ran == "local"), "{first:?}");

    let laptop = TestMesh::new();
    laptop.clone_platform_of(&cron);
    sharing(&laptop, "laptop", &bg.endpoint, false, &id_line(&cron));
    let run = laptop.run_json(&["build", "--behind", "-v"]);
    assert!(run.success(), "{}", run.stderr);
    let second = built(&run.json());
    assert_eq!(second.len(), first.len());
    for (module, (artifact, ran)) in &second {
        assert_eq!(
            ran, "cache",
            "{module} was built, not taken: {}",
            run.stderr
        );
        assert_eq!(artifact, &first[module].0, "{module}: another artifact");
    }
    assert!(run.stderr.contains("hit, signed by cron"), "{}", run.stderr);
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
    // Its log says where it came from; the artifact is in the laptop's own store.
    let b = &laptop.json(&["builds", "resolver"])[0];
    let log = laptop.ok(&["builds", "--log", &b["id"].to_string()]);
    assert!(log.contains("taken from the remote cache"), "{log}");

    // A no-op run asks the engine nothing: it would fail if it did (the engine is gone).
    drop(bg);
    let noop = laptop.run(&["build", "--behind"]);
    assert!(noop.success(), "{}", noop.stderr);
    assert!(!noop.stderr.contains("unreachable"), "{}", noop.stderr);
}

#[test]
fn results_an_unknown_controller_wrote_or_whose_blobs_changed_are_refused_and_built_here() {
    let bg = BuildGrid::start();
    // `eve` writes to the shared cache but is in no one's [controllers].
    let eve = TestMesh::new();
    eve.repo_from_fixture("platform", "example");
    sharing(&eve, "eve", &bg.endpoint, true, "");
    let eves = built(&eve.json(&["build", "--behind"]));

    let laptop = TestMesh::new();
    laptop.clone_platform_of(&eve);
    sharing(&laptop, "laptop", &bg.endpoint, false, "");
    let run = laptop.run_json(&["build", "--behind", "-v"]);
    assert!(run.success(), "{}", run.stderr);
    let v = run.json();
    for b in v["built"].as_array().unwrap() {
        assert_eq!(b["remote"]["ran"], "local", "{b}");
        assert_eq!(b["remote"]["miss"]["why"], "untrusted", "{b}");
        let detail = b["remote"]["miss"]["detail"].as_str().unwrap();
        assert!(
            detail.contains("`eve`, a key not in [controllers]"),
            "{detail}"
        );
    }
    // One warning for them all, not one per module.
    assert_eq!(
        run.stderr.matches("refused and built here").count(),
        1,
        "{}",
        run.stderr
    );
    // Built here, to the same bytes.
    for (module, (artifact, _)) in built(&v) {
        assert_eq!(artifact, eves[&module].0, "{module}");
    }

    // A trusted controller's result, one of whose blobs was changed in the engine's store.
    let cron = TestMesh::new();
    cron.clone_platform_of(&eve);
    sharing(&cron, "cron", &bg.endpoint, true, "");
    // eve's results stand where cron's action is the same: cron overwrites them with its own.
    cron.ok(&["build", "--behind"]);
    let resolver = "#!/bin/sh\necho resolver ok\n";
    let blob = mesh::remote::merkle::digest_of(resolver.as_bytes());
    std::fs::write(bg.blob_path(&blob.hash), "#!/bin/sh\necho pwned\n").unwrap();
    let other = TestMesh::new();
    other.clone_platform_of(&eve);
    sharing(&other, "other", &bg.endpoint, false, &id_line(&cron));
    let run = other.run_json(&["build", "--behind"]);
    assert!(run.success(), "{}", run.stderr);
    let v = run.json();
    let r = module(&v, "resolver");
    assert_eq!(r["remote"]["miss"]["why"], "digest-mismatch", "{r}");
    assert_eq!(r["remote"]["ran"], "local");
    assert_eq!(
        r["artifact"].as_str().unwrap(),
        eves["resolver"].0,
        "built here, whole"
    );
    let geo = module(&v, "geo");
    assert_eq!(
        geo["remote"]["ran"], "cache",
        "the others are still taken: {geo}"
    );
}

#[test]
fn an_engine_killed_mid_run_leaves_the_run_to_build_here_with_one_warning_and_exit_0() {
    let mut bg = BuildGrid::start();
    let t = TestMesh::new();
    t.empty_repo("platform");
    // `a` kills the engine as it builds: mid-run, the others asked the cache or are asking it.
    for m in ["a", "b", "c"] {
        let kill = if m == "a" {
            "kill -9 $KILL_ENGINE; "
        } else {
            ""
        };
        t.write(
            &format!("platform/{m}/mesh-module.toml"),
            &format!("name = \"{m}\"\nbuild = '{kill}echo {m} > \"$MESH_OUT/{m}\"'\n"),
        );
    }
    t.commit("platform", "three modules");
    sharing(&t, "cron", &bg.endpoint, true, "");
    let out = t
        .mesh(&["build", "--behind", "-j", "1", "-v", "--json"])
        .env("KILL_ENGINE", bg.pid().to_string())
        .output()
        .expect("mesh");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr
            .matches("remote cache unreachable: built here")
            .count(),
        1,
        "{stderr}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    // `a` asked the cache before it killed the engine: the engine was reached, then went.
    assert_eq!(module(&v, "a")["remote"]["miss"]["why"], "no-entry", "{v}");
    let built = built(&v);
    assert_eq!(built.len(), 3);
    assert!(
        built
            .values()
            .all(|(a, ran)| ran == "local" && !a.is_empty()),
        "{built:?}"
    );
    bg.kill();
}

#[test]
fn builds_run_on_the_engine_s_worker_judged_as_here_and_an_engine_without_workers_is_outstanding() {
    let secret = "only-the-worker-has-this";
    let mut bg = BuildGrid::executing(&[("WORKER_SECRET", secret)]);
    let t = TestMesh::new();
    t.repo_from_fixture("platform", "example");
    t.write(
        "platform/probe/mesh-module.toml",
        "name = \"probe\"\nbuild = 'printf %s \"$WORKER_SECRET\" > \"$MESH_OUT/secret\"'\ntest = 'test -n \"$WORKER_SECRET\"'\n",
    );
    t.write(
        "platform/bad/mesh-module.toml",
        "name = \"bad\"\nbuild = 'echo no good >&2; exit 3'\n",
    );
    t.commit(
        "platform",
        "a probe of where builds run, and a broken module",
    );
    sharing_with(&t, "cron", &bg.endpoint, true, "", "execute = true");
    assert!(std::env::var_os("WORKER_SECRET").is_none());
    let run = t.run_json(&["build", "--behind", "-v"]);
    assert_eq!(run.code, 3, "bad is broken: {}", run.stderr);
    let v = run.json();

    // The worker's environment, not the controller's: the artifact holds what only it has.
    let probe = module(&v, "probe");
    assert_eq!(probe["verdict"], "fit", "{probe}");
    assert_eq!(probe["remote"]["ran"], "remote", "{probe}");
    let expected = tempfile::tempdir().unwrap();
    std::fs::write(expected.path().join("secret"), secret).unwrap();
    let (digest, _) = mesh_node::artifact::pack(expected.path(), &mut std::io::sink()).unwrap();
    assert_eq!(probe["artifact"].as_str().unwrap(), digest.to_string());
    let log = t.ok(&["builds", "--log", &probe["id"].to_string()]);
    assert!(log.contains("run on the engine"), "{log}");

    // A build that fails there is a verdict, with its output.
    let bad = module(&v, "bad");
    assert_eq!(
        (bad["verdict"].as_str(), bad["step"].as_str()),
        (Some("broken"), Some("build"))
    );
    assert_eq!(bad["remote"]["ran"], "remote");
    assert!(run.stderr.contains("no good"), "{}", run.stderr);

    // The example's modules, inputs and all, ran there to the artifacts a local build makes.
    let here = TestMesh::new();
    here.clone_platform_of(&t);
    here.write("mesh.toml", "[mesh]\nname = \"fleet\"\n\n[[repo]]\nname = \"platform\"\npath = \"platform\"\nref = \"refs/heads/main\"\n");
    let local = here.run_json(&["build", "--behind"]).json();
    for b in local["built"].as_array().unwrap() {
        let name = b["module"].as_str().unwrap();
        if name == "probe" || name == "bad" {
            continue;
        }
        let there = module(&v, name);
        assert_eq!(there["remote"]["ran"], "remote", "{there}");
        assert_eq!(there["artifact"], b["artifact"], "{name}");
    }

    // No worker: the engine cannot run it, which is no verdict.
    bg.stop_worker();
    t.edit_and_commit(
        "platform",
        "probe/mesh-module.toml",
        "test -n",
        "test -n \"$MESH_MODULE\" && test -n",
        "change probe",
    );
    let run = t.run_json(&["build", "probe"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = run.json();
    let probe = module(&v, "probe");
    assert_eq!(probe["verdict"], "outstanding", "{probe}");
    let reason = probe["reason"].as_str().unwrap();
    assert!(
        reason.contains("the engine could not run the build"),
        "{reason}"
    );
    assert_eq!(
        probe["remote"]["ran"], "none",
        "not built anywhere: {probe}"
    );
    assert!(run.stderr.contains("1 not run"), "{}", run.stderr);
}

#[test]
fn an_engine_over_tls_is_reached_with_its_ca_and_refused_without_it() {
    let bg = BuildGrid::start_tls();
    let ca = bg.ca.clone().expect("a CA");
    let t = TestMesh::new();
    t.repo_from_fixture("platform", "example");
    let with_ca = format!("ca = \"{}\"", ca.display());
    sharing_with(&t, "cron", &bg.endpoint, true, "", &with_ca);
    let run = t.run_json(&["build", "--behind", "-v"]);
    assert!(run.success(), "{}", run.stderr);
    let v = run.json();
    for b in v["built"].as_array().unwrap() {
        assert_eq!(b["remote"]["uploaded"], true, "over TLS: {b}");
    }

    // The system's roots do not know the test CA: the engine is away, the build goes on here.
    let (_, run) = laptop_finding_the_engine_away(&t, &bg);
    let v = run.json();
    assert!(
        v["built"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["remote"]["ran"] == "local")
    );
}

#[test]
fn an_engine_that_wants_a_token_takes_the_one_token_file_names_and_refuses_calls_without() {
    let (bg, token) = BuildGrid::start_with_token();
    let t = TestMesh::new();
    t.repo_from_fixture("platform", "example");
    t.write("engine-token", &format!("{token}\n"));
    sharing_with(
        &t,
        "cron",
        &bg.endpoint,
        true,
        "",
        "token_file = \"engine-token\"",
    );
    let run = t.run_json(&["build", "--behind"]);
    assert!(run.success(), "{}", run.stderr);
    assert!(!run.stderr.contains("unreachable"), "{}", run.stderr);
    let v = run.json();
    assert!(
        v["built"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["remote"]["uploaded"] == true),
        "{v}"
    );

    // No token: refused, said once, built here.
    let (other, _) = laptop_finding_the_engine_away(&t, &bg);
    // A token file that is not there is said the same way, never a hang or a crash.
    sharing_with(
        &other,
        "laptop",
        &bg.endpoint,
        false,
        &id_line(&t),
        "token_file = \"nope\"",
    );
    other.edit_and_commit(
        "platform",
        "go/lib/geo/geo.go",
        "func Distance",
        "// moved\nfunc Distance",
        "touch geo",
    );
    let run = other.run(&["build", "--behind"]);
    assert!(run.success(), "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot read the token file"),
        "{}",
        run.stderr
    );
}

/// A module whose tests use another (a dev edge) is current only with that module's source:
/// a result cached before the other moved is not the action's any more — a miss, built here
/// (its tests run against the new source), never a stale hit.
#[test]
fn a_moved_dev_dependency_is_another_action_not_a_stale_hit() {
    let bg = BuildGrid::start();
    let cron = TestMesh::new();
    cron.empty_repo("platform");
    for (m, extra) in [
        ("a", "\n[dev-dependencies]\nb = { path = \"../b\" }\n"),
        ("b", ""),
    ] {
        cron.write(
            &format!("platform/{m}/mesh-module.toml"),
            &format!("name = \"{m}\"\nbuild = 'echo {m} > \"$MESH_OUT/{m}\"'\n"),
        );
        cron.write(
            &format!("platform/{m}/Cargo.toml"),
            &format!("[package]\nname = \"{m}\"\n{extra}"),
        );
        cron.write(&format!("platform/{m}/src/lib.rs"), "pub fn f() {}\n");
    }
    cron.write("platform/a/tests/t.rs", "#[test]\nfn t() { b::f(); }\n");
    cron.commit("platform", "a, tested against b");
    sharing(&cron, "cron", &bg.endpoint, true, "");
    let v = cron.json(&["build", "--behind"]);
    assert_eq!(built(&v).len(), 2, "{v}");
    let graph = cron.json(&["graph"]);
    assert!(
        crate::common::edges(&graph, "dev").contains(&("a".into(), "b".into())),
        "a's tests use b: {graph}"
    );

    // b moves; cron has not built it yet. A laptop at the new commit asks the cache.
    cron.edit_and_commit(
        "platform",
        "b/src/lib.rs",
        "pub fn f() {}",
        "pub fn f() { let _ = 1; }",
        "b moves",
    );
    let laptop = TestMesh::new();
    laptop.clone_platform_of(&cron);
    sharing(&laptop, "laptop", &bg.endpoint, false, &id_line(&cron));
    let run = laptop.run_json(&["build", "--behind", "-v"]);
    assert!(run.success(), "{}", run.stderr);
    let v = run.json();
    let a = module(&v, "a");
    assert_eq!(
        a["remote"]["ran"], "local",
        "a's tests must run against the new b: {a}"
    );
    assert_eq!(a["remote"]["miss"]["why"], "no-entry", "{a}");
}
