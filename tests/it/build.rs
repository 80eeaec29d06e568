//! `mesh build` and `mesh plan`: exactly the stale set, in order; early cutoff; verdicts.

use crate::common::{TestMesh, example, named};
use serde_json::Value;

/// Runs `mesh build ARGS --json`; returns (module, verdict) in the order they finished.
fn build(t: &TestMesh, args: &[&str]) -> Vec<(String, String)> {
    let v = build_json(t, args);
    v["built"]
        .as_array()
        .expect("built")
        .iter()
        .map(|b| {
            (
                b["module"].as_str().expect("module").to_string(),
                b["verdict"].as_str().expect("verdict").to_string(),
            )
        })
        .collect()
}

/// `mesh build ARGS --json`, which exits 0, or 3 when a build is broken or unfit.
fn build_json(t: &TestMesh, args: &[&str]) -> Value {
    let run = t.run_json(&[&["build"], args].concat());
    assert!(matches!(run.code, 0 | 3), "{}", run.stderr);
    run.json()
}

fn modules(built: &[(String, String)]) -> Vec<&str> {
    built.iter().map(|(m, _)| m.as_str()).collect()
}

fn plan_state(t: &TestMesh, module: &str) -> (String, String) {
    let v = t.json(&["plan"]);
    let m = named(&v, "modules", module);
    (
        m["state"].as_str().expect("state").to_string(),
        m["reason"].as_str().unwrap_or("").to_string(),
    )
}

#[test]
fn first_build_builds_everything_in_order_and_a_second_builds_nothing() {
    let t = example();
    let built = build(&t, &["--behind", "-j", "1"]);
    assert_eq!(built.len(), 10);
    assert!(built.iter().all(|(_, v)| v == "fit"), "{built:?}");
    let pos = |m: &str| modules(&built).iter().position(|x| *x == m).expect(m);
    assert!(pos("go-platform") < pos("geo"));
    assert!(pos("geo") < pos("route-proxy"));
    assert!(pos("py-common") < pos("reporter") && pos("reporter") < pos("dashboard"));
    assert!(build(&t, &["--behind"]).is_empty());
    let err = t.run(&["build", "--behind"]).stderr;
    assert!(err.contains("nothing to build"), "{err}");
    assert_eq!(plan_state(&t, "geo").0, "current");
}

#[test]
fn a_library_change_rebuilds_exactly_its_dependents() {
    let t = example();
    build(&t, &["--behind"]);
    t.write("platform/go/lib/geo/geo.go", "package geo\n\nimport \"example.com/platform/internal/logx\"\n\n// Distance v2\nfunc Distance(a, b float64) float64 { _ = logx.Line(\"\"); return a - b }\n");
    t.commit("platform", "geo v2");
    assert_eq!(
        plan_state(&t, "geo"),
        ("stale".into(), "source moved".into())
    );
    assert_eq!(
        plan_state(&t, "route-proxy"),
        ("waits".into(), "waits on geo".into())
    );
    assert_eq!(plan_state(&t, "inventory").0, "current");
    let built = build(&t, &["--behind", "-j", "2"]);
    let mut names = modules(&built);
    assert_eq!(names[0], "geo");
    names.sort();
    assert_eq!(names, vec!["geo", "resolver", "route-proxy"]);
    let v = t.json(&["builds", "route-proxy"]);
    assert_eq!(v[0]["inputs"][0]["module"], "geo");
}

#[test]
fn an_identical_artifact_spares_the_dependents() {
    let t = example();
    build(&t, &["--behind"]);
    // go-platform's artifact is its go.mod: a comment in its Go code does not change it.
    t.write("platform/go/internal/logx/log.go", "package logx\n\nimport \"fmt\"\n\n// Line formats one log line (reworded).\nfunc Line(msg string) string { return fmt.Sprintf(\"[mesh] %s\", msg) }\n");
    t.commit("platform", "comment");
    assert_eq!(
        plan_state(&t, "go-platform"),
        ("stale".into(), "source moved".into())
    );
    assert_eq!(plan_state(&t, "geo").0, "waits");
    let v = t.json(&["build", "--behind"]);
    let built: Vec<&str> = v["built"]
        .as_array()
        .expect("built")
        .iter()
        .map(|b| b["module"].as_str().expect("m"))
        .collect();
    assert_eq!(built, vec!["go-platform"]);
    assert_eq!(
        v["spared"],
        serde_json::json!(["geo", "resolver", "route-proxy"])
    );
    assert_eq!(plan_state(&t, "geo").0, "current");
}

#[test]
fn broken_blocks_dependents_and_unfit_is_judged() {
    let t = example();
    t.edit(
        "platform/go/lib/geo/mesh-module.toml",
        "build = '",
        "build = 'echo compiling; echo oops >&2; exit 3; ",
    );
    t.edit(
        "platform/rust/core/mesh-module.toml",
        "test  = 'grep",
        "test  = 'echo failing test; false && grep",
    );
    t.commit("platform", "break");
    let run = t.run_json(&["build", "--behind"]);
    assert_eq!(run.code, 3, "a broken build needs a person");
    let v = run.json();
    let verdict = |m: &str| {
        v["built"]
            .as_array()
            .expect("built")
            .iter()
            .find(|b| b["module"] == m)
            .map(|b| b["verdict"].as_str().expect("v").to_string())
    };
    assert_eq!(verdict("geo").as_deref(), Some("broken"));
    assert_eq!(verdict("rust-core").as_deref(), Some("unfit"));
    assert_eq!(verdict("route-proxy"), None);
    assert_eq!(verdict("inventory"), None);
    assert!(
        v["blocked"]
            .to_string()
            .contains(r#"["route-proxy","geo"]"#),
        "{}",
        v["blocked"]
    );
    let err = &run.stderr;
    assert!(
        err.contains("geo is broken: build failed (build exited 3)"),
        "{err}"
    );
    assert!(err.contains("  | oops"), "{err}");
    assert_eq!(
        plan_state(&t, "route-proxy"),
        ("blocked".into(), "blocked by geo (broken)".into())
    );
    assert_eq!(
        plan_state(&t, "inventory"),
        ("blocked".into(), "blocked by rust-core (unfit)".into())
    );
    // A verdict is a verdict: the next run does not retry it.
    assert!(build(&t, &["--behind"]).is_empty());
    let id = t.json(&["builds", "geo"])[0]["id"].as_u64().expect("id");
    let log = t.ok(&["builds", "--log", &id.to_string()]);
    assert!(log.contains("compiling") && log.contains("oops"), "{log}");
}

#[test]
fn exit_75_and_a_timeout_are_outstanding_and_retried() {
    let t = example();
    t.edit(
        "platform/go/lib/geo/mesh-module.toml",
        "build = '",
        "build = 'exit 75; ",
    );
    t.edit(
        "platform/rust/core/mesh-module.toml",
        "build = '",
        "timeout = \"1s\"\nbuild = 'sleep 30; ",
    );
    t.commit("platform", "flaky");
    let built = build(&t, &["--behind"]);
    let get = |m: &str| built.iter().find(|(x, _)| x == m).map(|(_, v)| v.clone());
    assert_eq!(get("geo").as_deref(), Some("outstanding"));
    assert_eq!(get("rust-core").as_deref(), Some("outstanding"));
    assert_eq!(
        plan_state(&t, "geo"),
        ("stale".into(), "last build was outstanding: retry".into())
    );
    let again = build(&t, &["--behind"]);
    let mut names = modules(&again);
    names.sort();
    assert_eq!(names, vec!["geo", "rust-core"]);
    let v = t.json(&["builds", "rust-core"]);
    assert!(
        v[0]["reason"]
            .as_str()
            .expect("reason")
            .contains("timed out after 1s"),
        "{v}"
    );
}

#[test]
fn named_builds_take_their_stale_inputs_only() {
    let t = example();
    let built = build(&t, &["route-proxy"]);
    let mut names = modules(&built);
    names.sort();
    assert_eq!(names, vec!["geo", "go-platform", "route-proxy"]);
    let dry = t.ok(&["build", "--dry-run"]);
    assert!(dry.contains("would build dashboard (never built)"), "{dry}");
    assert!(!dry.contains("would build geo"), "{dry}");
    t.fails(&["build", "nope"], 1);
}

#[test]
fn the_build_environment() {
    let t = example();
    t.edit_and_commit(
        "platform",
        "go/services/route-proxy/mesh-module.toml",
        "build    = '",
        "build    = 'env | grep ^MESH_ | sort > /tmp/mesh-env-$$; cp /tmp/mesh-env-$$ \"$MESH_OUT/env\"; rm /tmp/mesh-env-$$; test -f \"$MESH_DEP_GEO/geo.src\" && test \"$(basename $PWD)\" = route-proxy && ",
        "env",
    );
    let built = build(&t, &["route-proxy"]);
    assert!(built.iter().all(|(_, v)| v == "fit"), "{built:?}");
}

#[test]
fn bad_builds_keep_the_artifact_to_mesh_out() {
    let t = example();
    // A link out of $MESH_OUT is refused with a clear verdict.
    t.edit(
        "platform/go/lib/geo/mesh-module.toml",
        "build = '",
        "build = 'ln -s /etc/passwd \"$MESH_OUT/passwd\"; ",
    );
    // Writing outside $MESH_OUT does not reach the artifact; into the export (read-only, but
    // root may write anyway) it makes the build broken, and is undone.
    t.edit(
        "platform/rust/core/mesh-module.toml",
        "build = '",
        "build = 'touch ../stray 2>/dev/null; ",
    );
    // 100 MB of output: the log is capped.
    t.edit(
        "platform/python/common/mesh-module.toml",
        "build = '",
        "build = 'head -c 100000000 /dev/zero | tr \"\\\\0\" x; ",
    );
    // No output at all is an empty artifact, still fit.
    t.edit(
        "platform/ts/ui-kit/mesh-module.toml",
        "build = 'mkdir -p \"$MESH_OUT\" && cp index.ts button.ts \"$MESH_OUT/\"'",
        "build = 'true'",
    );
    t.commit("platform", "bad builds");
    // One at a time: a write into the export beside other builds would leave each of them
    // outstanding (which one wrote is not known).
    let v = build_json(&t, &["--behind", "-j", "1"]);
    let find = |m: &str| {
        v["built"]
            .as_array()
            .expect("built")
            .iter()
            .find(|b| b["module"] == m)
            .cloned()
            .expect(m)
    };
    let geo = find("geo");
    assert_eq!(geo["verdict"], "broken");
    assert!(
        geo["reason"].as_str().expect("r").contains("refused"),
        "{geo}"
    );
    let core = find("rust-core");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        assert_eq!(core["verdict"], "broken", "{core}");
        let reason = core["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("added rust/stray"), "{reason}");
        let head = crate::common::git(&t.path("platform"), &["rev-parse", "HEAD"]);
        let export = t.path(&format!(".mesh/exports/platform-{}", head.trim()));
        assert!(
            !export.join("rust/stray").exists(),
            "the write was not undone"
        );
        assert!(export.join("rust/core").is_dir());
    } else {
        assert_eq!(core["verdict"], "fit");
        let tar = t.path(&format!(
            ".mesh/artifacts/{}",
            core["artifact"].as_str().expect("artifact")
        ));
        let listing = std::process::Command::new("tar")
            .arg("tf")
            .arg(tar)
            .output()
            .expect("tar");
        assert_eq!(String::from_utf8_lossy(&listing.stdout).trim(), "lib.rs");
    }
    assert_eq!(find("py-common")["verdict"], "fit");
    assert_eq!(find("ui-kit")["verdict"], "fit");
    let log = std::fs::metadata(t.path(&format!(
        ".mesh/{}",
        find("py-common")["log"].as_str().expect("log")
    )))
    .expect("log")
    .len();
    assert!(log < 5 << 20, "log not capped: {log}");
}

#[test]
fn the_store_is_not_held_during_a_build() {
    let t = example();
    t.slow_geo();
    let mut child = t.spawn(&["build", "geo", "-q"]);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert_eq!(plan_state(&t, "geo").0, "stale");
    let busy = t.fails(&["build", "--behind", "-v"], 75);
    assert!(busy.contains("mesh build"), "{busy}");
    assert!(child.wait().expect("wait").success());
    assert_eq!(plan_state(&t, "geo").0, "current");
}

#[test]
fn logs_are_kept_for_the_newest_builds_only() {
    let t = example();
    t.edit(
        "mesh.toml",
        "name = \"test\"",
        "name = \"test\"\nlogs_keep = 2",
    );
    for i in 0..3 {
        t.write("platform/go/lib/geo/version.txt", &format!("{i}\n"));
        t.commit("platform", "bump");
        build(&t, &["geo"]);
    }
    let logs = std::fs::read_dir(t.path(".mesh/logs/geo"))
        .expect("logs")
        .count();
    assert_eq!(logs, 2);
    let newest = t.json(&["builds", "geo"])[0]["id"].as_u64().expect("id");
    t.ok(&["builds", "--log", &newest.to_string()]);
    let err = t.fails(&["builds", "--log", &(newest - 2).to_string()], 1);
    assert!(
        err.contains("cannot be read") || err.contains("kept no log"),
        "{err}"
    );
}

#[test]
fn a_lost_artifact_is_built_again() {
    let t = example();
    build(&t, &["--behind"]);
    let artifact = t.json(&["builds", "rust-core"])[0]["artifact"]
        .as_str()
        .expect("artifact")
        .to_string();
    std::fs::remove_file(t.path(&format!(".mesh/artifacts/{artifact}"))).expect("rm");
    let v = t.json(&["plan"]);
    let core = crate::common::named(&v, "modules", "rust-core");
    assert_eq!(core["state"], "stale", "{core}");
    assert!(
        core["reason"]
            .as_str()
            .expect("reason")
            .contains("artifact is missing"),
        "{core}"
    );
    let built = build(&t, &["--behind"]);
    assert_eq!(modules(&built), vec!["rust-core"]);
    assert!(
        t.path(&format!(".mesh/artifacts/{artifact}")).exists(),
        "a reproducible build gives the same bytes back"
    );
}

#[test]
fn a_build_ends_with_its_shell_and_what_it_left_in_the_background_is_stopped() {
    let t = example();
    // The shell exits at once; the child it left would hold the output pipes for 30 s.
    let pids = t.path("background");
    t.edit_and_commit(
        "platform",
        "go/lib/geo/mesh-module.toml",
        "build = '",
        &format!(
            "build = 'sleep 30 & echo $! > {}; echo left a child; ",
            pids.display()
        ),
        "geo leaves a child",
    );
    let run = crate::common::Run::of(
        t.mesh(&["build", "geo", "--json"])
            .timeout(std::time::Duration::from_secs(20)),
    );
    assert_eq!(run.code, 0, "the build does not wait for its child: {run}");
    let json = run.json();
    let geo = json["built"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["module"] == "geo"))
        .unwrap_or_else(|| panic!("geo was not built: {json}"));
    assert_eq!(geo["verdict"], "fit", "{json}");
    let pid = std::fs::read_to_string(&pids).expect("the child's pid");
    let stat = format!("/proc/{}/stat", pid.trim());
    let start = std::time::Instant::now();
    // The group is killed before the build is recorded; reaping may take a moment.
    while std::fs::read_to_string(&stat).is_ok_and(|s| !s.contains(") Z ")) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(2),
            "the background child still runs"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let id = t.json(&["builds", "geo"])[0]["id"].as_u64().expect("id");
    let log = t.ok(&["builds", "--log", &id.to_string()]);
    assert!(log.contains("left a child"), "{log}");
}

#[test]
fn a_build_killed_mid_export_leaves_an_export_the_next_build_repairs() {
    let t = example();
    build(&t, &["--behind"]);
    t.write("platform/go/services/route-proxy/marker.txt", "v2\n");
    t.edit_and_commit(
        "platform",
        "go/services/route-proxy/mesh-module.toml",
        "build    = '",
        "build    = 'test \"$(cat marker.txt)\" = v2 && test ! -e stray && ",
        "the build reads a new file",
    );
    let head = crate::common::git(&t.path("platform"), &["rev-parse", "HEAD"]);
    // What a run killed while exporting the new commit leaves: its directory half made,
    // without the marker written last.
    let half = t.path(&format!(".mesh/exports/platform-{}", head.trim()));
    std::fs::create_dir_all(half.join("go/services/route-proxy")).expect("mkdir");
    std::fs::write(half.join("go/services/route-proxy/marker.txt"), "half").expect("write");
    std::fs::write(half.join("go/services/route-proxy/stray"), "").expect("write");
    let built = build(&t, &["route-proxy"]);
    assert_eq!(built, vec![("route-proxy".into(), "fit".into())]);
    // One export stays: the new commit's (the old one was updated into it).
    let dirs: Vec<_> = std::fs::read_dir(t.path(".mesh/exports"))
        .expect("exports")
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name())
        .collect();
    assert_eq!(dirs, vec![half.file_name().expect("name").to_owned()]);
}

/// Kills a process the test left running (a build's escaped child), if it still runs.
fn kill_pid(pid: u32) {
    let _ = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status();
}

#[test]
fn a_child_that_escaped_its_group_is_named_and_not_waited_for() {
    let t = example();
    // `setsid` takes the child out of the build's process group (the shell waits until it
    // has): the group's kill misses it, and it holds the output pipes for 45 s.
    let pids = t.path("escaped");
    t.edit_and_commit(
        "platform",
        "go/lib/geo/mesh-module.toml",
        "build = '",
        &format!(
            "timeout = \"5s\"\nbuild = 'setsid sleep 45 & echo $! > {}; until [ \"$(cut -d\" \" -f5 /proc/$!/stat)\" = $! ]; do sleep 0.05; done; echo escaping; exit 0; ",
            pids.display()
        ),
        "geo leaves a child outside its group",
    );
    let start = std::time::Instant::now();
    let run = crate::common::Run::of(
        t.mesh(&["build", "geo", "--json"])
            .timeout(std::time::Duration::from_secs(40)),
    );
    let took = start.elapsed();
    let pid: u32 = std::fs::read_to_string(&pids)
        .expect("the child's pid")
        .trim()
        .parse()
        .expect("a pid");
    kill_pid(pid);
    assert!(
        took < std::time::Duration::from_secs(10),
        "the build waited {took:?} for a child that left its group: {run}"
    );
    assert_eq!(run.code, 3, "{run}");
    let json = run.json();
    let geo = json["built"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["module"] == "geo"))
        .unwrap_or_else(|| panic!("geo was not built: {json}"));
    assert_eq!(geo["verdict"], "broken", "{json}");
    let reason = geo["reason"].as_str().unwrap_or_default().to_string();
    assert!(
        reason.contains(&format!("pid {pid} (sleep)")) && reason.contains("did not wait"),
        "{reason}"
    );
    let id = t.json(&["builds", "geo"])[0]["id"].as_u64().expect("id");
    let log = t.ok(&["builds", "--log", &id.to_string()]);
    assert!(
        log.contains("escaping") && log.contains(&format!("pid {pid} (sleep)")),
        "{log}"
    );
}

#[test]
fn a_build_that_writes_into_its_export_is_broken_and_the_write_goes_with_it() {
    let t = example();
    let flag = t.path("tamper");
    let seen = t.path("seen");
    std::fs::write(&flag, "").expect("flag");
    t.write("platform/go/lib/geo/clean.txt", "clean\n");
    // The build appends to a tracked file of its export (root needs no chmod; anyone else
    // gives themselves the permission first) while the flag is there.
    t.edit_and_commit(
        "platform",
        "go/lib/geo/mesh-module.toml",
        "build = '",
        &format!(
            "build = 'cp clean.txt {seen}; if [ -e {flag} ]; then chmod u+w clean.txt; echo tampered >> clean.txt; fi; ",
            seen = seen.display(),
            flag = flag.display()
        ),
        "geo reads clean.txt",
    );
    let v = build_json(&t, &["geo"]);
    let geo = v["built"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["module"] == "geo"))
        .unwrap_or_else(|| panic!("geo was not built: {v}"));
    assert_eq!(geo["verdict"], "broken", "{v}");
    let reason = geo["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("wrote into its export") && reason.contains("go/lib/geo/clean.txt"),
        "{reason}"
    );
    let id = t.json(&["builds", "geo"])[0]["id"].as_u64().expect("id");
    let log = t.ok(&["builds", "--log", &id.to_string()]);
    assert!(log.contains("wrote into its export"), "{log}");
    // The next commit's export is the last one updated by the tree diff: it must hold the
    // commit's clean.txt, not the write.
    std::fs::remove_file(&flag).expect("rm flag");
    t.write("platform/go/lib/geo/other.txt", "moved\n");
    t.commit("platform", "geo moves");
    let built = build(&t, &["geo"]);
    assert_eq!(built, vec![("geo".into(), "fit".into())]);
    assert_eq!(
        std::fs::read_to_string(&seen).expect("seen"),
        "clean\n",
        "the build read the write of an earlier build"
    );
}
