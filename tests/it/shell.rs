//! mesh at home in a shell: completions that know the mesh, usage errors that list the choices,
//! help that reads well (snapshots), man pages that lint clean, tables that fit a terminal, a
//! busy lock said once on a terminal and not at all under cron, and forgotten nodes.

use crate::common::{LockHolder, Run, TestMesh};
use assert_cmd::Command;
use std::path::Path;

/// The demo mesh of `mesh init --example demo`, delivered once (`mesh reconcile`).
fn demo() -> (TestMesh, std::path::PathBuf) {
    let t = TestMesh::new();
    let run = mesh(t.dir(), &["init", "--example", "demo"]);
    assert!(run.success(), "{run}");
    let demo = t.path("demo");
    let run = mesh(&demo, &["reconcile", "-q"]);
    assert!(run.success(), "{run}");
    (t, demo)
}

/// `mesh ARGS` in `cwd`, without colour, at a fixed help width.
fn mesh(cwd: &Path, args: &[&str]) -> Run {
    Run::of(
        Command::cargo_bin("mesh")
            .expect("binary")
            .current_dir(cwd)
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .env_remove("MESH_STATE")
            .env_remove("COMPLETE")
            .args(args),
    )
}

/// What mesh offers for the last word of `line` (fish's protocol: `value<TAB>help` a line),
/// the values only, without options (words starting with `-`).
fn candidates(cwd: &Path, line: &[&str]) -> Vec<String> {
    let run = Run::of(
        Command::cargo_bin("mesh")
            .expect("binary")
            .current_dir(cwd)
            .env("COMPLETE", "fish")
            .env_remove("MESH_STATE")
            .arg("--")
            .arg("mesh")
            .args(line),
    );
    assert!(run.success(), "{run}");
    run.stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap_or("").to_string())
        .filter(|v| !v.starts_with('-'))
        .collect()
}

const DEMO_MODULES: &[&str] = &[
    "dashboard",
    "geo",
    "go-platform",
    "inventory",
    "py-common",
    "reporter",
    "resolver",
    "route-proxy",
    "rust-core",
    "ui-kit",
];

#[test]
fn completions_know_the_mesh() {
    let (t, demo) = demo();
    // Node names, and @tags where a verb takes them; the mesh found from the working
    // directory, or from -C on the line being completed.
    assert_eq!(
        candidates(&demo, &["push", ""]),
        ["edge-1", "edge-2", "lab", "@edge"]
    );
    let d = demo.display().to_string();
    assert_eq!(
        candidates(t.dir(), &["-C", &d, "collect", "e"]),
        ["edge-1", "edge-2"]
    );
    assert_eq!(candidates(&demo, &["push", "@"]), ["@edge"]);
    assert_eq!(
        candidates(&demo, &["node", "show", ""]),
        ["edge-1", "edge-2", "lab"]
    );
    // Modules: every one the mesh has seen.
    assert_eq!(candidates(&demo, &["build", ""]), DEMO_MODULES);
    assert_eq!(
        candidates(&demo, &["declare", "re"]),
        ["reporter", "resolver"]
    );
    // Build ids: newest first; for `declare MODULE`, that module's fit builds only.
    let builds = candidates(&demo, &["builds", "--log", ""]);
    let want: Vec<String> = (1..=10).rev().map(|i| i.to_string()).collect();
    assert_eq!(builds, want);
    let v = mesh(&demo, &["builds", "resolver", "--json"]).json();
    let id = v[0]["id"].to_string();
    assert_eq!(candidates(&demo, &["declare", "resolver", ""]), [id]);
    // Event kinds, from the value enum (the static scripts have them too).
    assert_eq!(
        candidates(&demo, &["events", "--kind", ""]),
        [
            "source-moved",
            "built",
            "declared",
            "sent",
            "applied",
            "refused",
            "stuck",
            "recovered",
            "unreachable",
            "reachable",
            "trouble",
            "build-stuck",
            "not-worked-out",
            "artifact-damaged",
            "forgotten",
            "ahead",
            "diverged",
            "differs",
            "took-over",
            "node-replaced",
            "unhealthy",
            "healthy",
            "rollout-halted"
        ]
    );
    let fish = mesh(&demo, &["completions", "fish", "--static"]).stdout;
    assert!(fish.contains("source-moved"), "static fish lacks the kinds");
    // Nowhere near a mesh: nothing, and no error on the prompt.
    assert!(candidates(t.dir(), &["push", ""]).is_empty());
    // Fast: reading mesh.toml and the store for a moment.
    let start = std::time::Instant::now();
    for _ in 0..10 {
        candidates(&demo, &["declare", "resolver", ""]);
    }
    let each = start.elapsed() / 10;
    eprintln!("completion latency: {each:?} a call");
    assert!(
        each < std::time::Duration::from_millis(500),
        "a completion took {each:?}"
    );
}

#[test]
fn an_unknown_event_kind_is_a_usage_error_listing_the_kinds() {
    let (_t, demo) = demo();
    let run = mesh(&demo, &["events", "--kind", "sen"]);
    assert_eq!(run.code, 2, "{run}");
    let err = &run.stderr;
    for k in [
        "source-moved",
        "sent",
        "refused",
        "unreachable",
        "forgotten",
    ] {
        assert!(err.contains(k), "{err}");
    }
    assert!(run.stdout.is_empty());
    // A known kind filters.
    let run = mesh(&demo, &["events", "--kind", "sent", "--json"]);
    assert!(run.success());
    let text = run.stdout;
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        text.lines().all(|l| l.contains("\"kind\":\"sent\"")),
        "{text}"
    );
}

#[test]
fn help_reads_well() {
    let dir = tempfile::tempdir().expect("tmp");
    for (name, args) in [
        ("help_mesh", &["--help"][..]),
        ("help_status", &["status", "--help"]),
        ("help_node", &["node", "--help"]),
    ] {
        let run = mesh(dir.path(), args);
        assert!(run.success(), "{run}");
        insta::assert_snapshot!(name, run.stdout);
    }
    // The global options are described once, in `mesh --help`; a verb names them in one line.
    let status = mesh(dir.path(), &["status", "-h"]).stdout;
    assert!(!status.contains("--state <FILE>"), "{status}");
    assert!(status.contains("Global options: -C DIR"), "{status}");
    // The plumbing is hidden from `mesh node --help` but still runs.
    let node = mesh(dir.path(), &["node", "--help"]).stdout;
    assert!(!node.contains("  receive "), "{node}");
    let root = dir.path().join("root");
    let have = mesh(
        dir.path(),
        &["node", "have", "--root", &root.display().to_string()],
    );
    assert!(have.success(), "{have}");
    // Global options still work after the verb.
    let run = mesh(dir.path(), &["status", "--color", "never", "-q"]);
    assert_eq!(run.code, 1, "{run}");
}

#[test]
fn errors_have_no_code_line_unless_verbose_and_honour_colour() {
    let dir = tempfile::tempdir().expect("tmp");
    let run = mesh(dir.path(), &["status"]);
    let err = &run.stderr;
    assert_eq!(run.code, 1);
    assert!(!err.contains("mesh::"), "{err}");
    assert!(err.contains("help:"), "{err}");
    let err = mesh(dir.path(), &["status", "-v"]).stderr;
    assert!(err.contains("mesh::failed"), "{err}");
    // Usage errors: no colour when asked for none, colour when asked for it.
    let run = mesh(dir.path(), &["--color", "never", "status", "--bogus"]);
    assert_eq!(run.code, 2);
    assert!(!run.stderr.contains('\x1b'), "{run}");
    let run = mesh(dir.path(), &["status", "--bogus", "--color=always"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains('\x1b'), "{run}");
    // `mesh init --example demo` where demo is taken suggests a name that is free.
    std::fs::create_dir_all(dir.path().join("demo/x")).expect("mkdir");
    let err = mesh(dir.path(), &["init", "--example", "demo"]).stderr;
    assert!(err.contains("`mesh init --example demo-2`"), "{err}");
}

/// Every page lints without a complaint under both readers where they are installed
/// (scripts/test installs mandoc; groff comes with man-db): `mandoc -T lint` at every level,
/// style included, and `groff -ww -man -Tutf8`; else `man --warnings -l`. And no byte beyond
/// ASCII: such characters are written as roff escapes.
#[test]
fn man_pages_lint_clean() {
    let dir = tempfile::tempdir().expect("tmp");
    let pages = crate::generated::pages();
    assert!(!pages.iter().any(|(n, _)| n == "mesh-help.1"));
    let have = |bin: &str, arg: &str| {
        std::process::Command::new(bin)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let (mandoc, groff) = (have("mandoc", "-V"), have("groff", "-v"));
    if !mandoc || !groff {
        eprintln!("mandoc: {mandoc}, groff: {groff}: linting with what is installed");
    }
    for (name, roff) in pages {
        let p = dir.path().join(&name);
        std::fs::write(&p, &roff).expect("write page");
        assert!(roff.is_ascii(), "{name} holds a byte beyond ASCII");
        let mut complaints = String::new();
        let mut said = |out: std::process::Output, stdout_too: bool| {
            if stdout_too {
                complaints.push_str(&String::from_utf8_lossy(&out.stdout));
            }
            complaints.push_str(&String::from_utf8_lossy(&out.stderr));
        };
        if mandoc {
            let out = std::process::Command::new("mandoc")
                .args(["-T", "lint"])
                .arg(&p)
                .output()
                .expect("mandoc");
            said(out, true);
        }
        if groff {
            let out = std::process::Command::new("groff")
                .args(["-ww", "-man", "-Tutf8"])
                .arg(&p)
                .output()
                .expect("groff");
            said(out, false);
        }
        if !mandoc && !groff {
            let out = std::process::Command::new("man")
                .args(["--warnings", "-l"])
                .arg(&p)
                .env("MANWIDTH", "80")
                .env("MAN_KEEP_FORMATTING", "0")
                .output()
                .expect("mandoc, groff or man is needed to lint the man pages");
            said(out, false);
        }
        assert!(complaints.trim().is_empty(), "{name}:\n{complaints}");
        let text = String::from_utf8_lossy(&roff);
        // The synopsis names the verb as typed and the value of every option.
        let synopsis = text
            .split(".SH SYNOPSIS\n")
            .nth(1)
            .and_then(|s| s.lines().next())
            .unwrap_or("");
        let words = name.trim_end_matches(".1").replace('-', " ");
        assert!(
            synopsis.starts_with(&format!("\\fB{words}\\fR")),
            "{name}: {synopsis}"
        );
        assert!(!synopsis.contains("\\fB\\-C \\fR]"), "{name}: {synopsis}");
    }
}

/// Runs `sh -c CMD` on a pseudo-terminal (script(1)), in `cwd`; what the terminal showed is
/// its stdout (without carriage returns).
fn on_a_terminal(cwd: &Path, cmd: &str) -> Run {
    let out = std::process::Command::new("script")
        .args(["-qec", cmd, "/dev/null"])
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("MESH_STATE")
        .output()
        .expect("script(1) is needed for the terminal tests (util-linux)");
    let mut screen = Run::from(out);
    screen.stdout = screen.stdout.replace('\r', "");
    screen
}

fn bin() -> String {
    assert_cmd::cargo::cargo_bin("mesh").display().to_string()
}

#[test]
fn tables_fit_the_terminal() {
    let (_t, demo) = demo();
    // lab is not worked out: inventory (held, never declared) is assigned to it, under a long
    // module-less reason; its REASON column wraps at 80 columns.
    let toml = std::fs::read_to_string(demo.join("mesh.toml")).expect("mesh.toml");
    std::fs::write(
        demo.join("mesh.toml"),
        toml.replace("# inventory = [\"lab\"]", "inventory = [\"lab\"]"),
    )
    .expect("write");
    let terminal = on_a_terminal(&demo, &format!("COLUMNS=80 {} status", bin()));
    assert_eq!(terminal.code, 0, "{terminal}");
    let screen = terminal.stdout;
    assert!(screen.contains("not worked out"), "{screen}");
    assert!(screen.contains("REASON"), "{screen}");
    for line in screen.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} columns: {line:?}\n{screen}",
            line.chars().count()
        );
    }
    // The state word stands alone in its column.
    let lab = screen
        .lines()
        .find(|l| l.starts_with("lab "))
        .expect("lab's row");
    assert!(lab.contains("not worked out  "), "{lab}");
    // On a pipe nothing is wrapped: one line a node.
    let text = mesh(&demo, &["status", "--nodes"]).stdout;
    assert_eq!(text.lines().count(), 4, "{text}");
    // `node show`: no type names, the sequence declared, the last report as lines.
    let show = mesh(&demo, &["node", "show", "edge-1"])
        .stdout
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!show.contains("(Local)"), "{show}");
    assert!(show.contains("(local)"), "{show}");
    assert!(show.contains("declared sequence 1 ("), "{show}");
    assert!(show.contains("2 modules"), "{show}");
    assert!(show.contains("module:route-proxy ok"), "{show}");
    assert!(!show.contains("{\""), "{show}");
}

#[test]
fn a_busy_lock_is_one_line_on_a_terminal_and_silent_under_cron() {
    let (_t, demo) = demo();
    let holder = LockHolder::hold(&demo);
    // A pipe (cron): exit 75 and nothing at all.
    let run = mesh(&demo, &["reconcile"]);
    assert_eq!(run.code, 75, "{run}");
    assert!(run.stderr.is_empty() && run.stdout.is_empty(), "{run}");
    // A terminal: one line naming the holder.
    let terminal = on_a_terminal(&demo, &format!("{} push", bin()));
    assert_eq!(terminal.code, 75, "{terminal}");
    let screen = terminal.stdout;
    assert_eq!(screen.trim().lines().count(), 1, "{screen}");
    assert!(
        screen.contains("(mesh reconcile)") && screen.contains("try again"),
        "{screen}"
    );
    // -v: the whole diagnostic, code and help.
    let err = mesh(&demo, &["reconcile", "-v"]).stderr;
    assert!(
        err.contains("mesh::store::busy") && err.contains("help:"),
        "{err}"
    );
    holder.release();
    // Free again: reconcile says its one summary line on a terminal, and nothing on a pipe.
    let terminal = on_a_terminal(&demo, &format!("{} reconcile", bin()));
    assert_eq!(terminal.code, 0, "{terminal}");
    let screen = terminal.stdout;
    assert_eq!(
        screen.trim(),
        "built 0, declared 0, sent 0, applied 0, outstanding 0, stuck 0"
    );
    let run = mesh(&demo, &["reconcile"]);
    assert!(
        run.success() && run.stderr.is_empty() && run.stdout.is_empty(),
        "{run}"
    );
}

#[test]
fn a_node_gone_from_mesh_toml_is_listed_until_forgotten() {
    let (_t, demo) = demo();
    let toml = std::fs::read_to_string(demo.join("mesh.toml")).expect("mesh.toml");
    let without = toml.replace(
        "[node.edge-2]\ntransport = \"local\"\nroot      = \"nodes/edge-2\"\ntags      = [\"edge\"]\n",
        "",
    );
    assert_ne!(toml, without, "the demo's edge-2 section moved");
    std::fs::write(demo.join("mesh.toml"), without).expect("write");
    let run = mesh(&demo, &["status", "--nodes"]);
    assert!(run.success(), "{run}");
    let text = &run.stdout;
    assert!(
        text.contains(
            "edge-2: no longer in mesh.toml; it last applied sequence 1 (resolver, route-proxy)"
        ),
        "{text}"
    );
    assert!(run.stderr.contains("mesh node forget edge-2"), "{run}");
    let v = mesh(&demo, &["status", "--json"]).json();
    assert_eq!(v["forgotten"][0]["name"], "edge-2", "{v}");
    assert_eq!(candidates(&demo, &["node", "forget", ""]), ["edge-2"]);
    // A node still in mesh.toml is not forgotten.
    let run = mesh(&demo, &["node", "forget", "edge-1"]);
    assert_eq!(run.code, 1, "{run}");
    let run = mesh(&demo, &["node", "forget", "edge-2"]);
    assert!(run.success(), "{run}");
    let text = mesh(&demo, &["status", "--nodes"]).stdout;
    assert!(!text.contains("edge-2"), "{text}");
    let facts = mesh(&demo, &["events", "--kind", "forgotten", "--json"]);
    assert_eq!(facts.stdout.lines().count(), 1);
    // A second forget has nothing to drop.
    let run = mesh(&demo, &["node", "forget", "edge-2"]);
    assert_eq!(run.code, 1, "{run}");
}

/// The README's node setup over ssh, as an operator with an ssh config file of their own does
/// it: a `Host` alias in a config passed with `-F` in `[ssh] options`, the host key accepted
/// with the same `-F` (into the `UserKnownHostsFile` that config names, in the
/// `[127.0.0.1]:PORT` form), a reconcile; then a changed host key, removed with
/// `ssh-keygen -R '[127.0.0.1]:PORT' -f FILE`, accepted again, and the node retried with
/// `mesh push --all NODE && mesh collect NODE`.
#[test]
fn node_setup_over_ssh_with_an_ssh_config_file() {
    use crate::common::ssh::{SshNode, client_key};
    let t = crate::common::example();
    let mut n = SshNode::with_mesh(t.dir(), "edge-a");
    let user = n.address().split('@').next().expect("user").to_string();
    let known = t.path("known_hosts_mesh");
    let config = t.path("mesh_ssh_config");
    t.write(
        "mesh_ssh_config",
        &format!(
            "Host edge-a\n  HostName 127.0.0.1\n  Port {}\n  User {user}\n  IdentityFile {}\n  \
             IdentitiesOnly yes\n  UserKnownHostsFile {}\n  StrictHostKeyChecking yes\n  \
             LogLevel ERROR\n",
            n.port,
            client_key().display(),
            known.display()
        ),
    );
    t.write(
        "mesh.toml",
        &format!(
            "{}\n[ssh]\noptions = [\"-F\", \"{}\"]\n\n[node.edge-a]\naddress = \"edge-a\"\n\
             root = \"{}\"\n\n[assign]\nroute-proxy = [\"edge-a\"]\nresolver = [\"edge-a\"]\n",
            crate::common::MESH_HEAD,
            config.display(),
            n.root.display()
        ),
    );
    // Step 3: accept the host key once, with the same -F (a person answers "yes"; here
    // accept-new says it for them).
    let accept = || {
        let out = std::process::Command::new("ssh")
            .arg("-F")
            .arg(&config)
            .args(["-o", "StrictHostKeyChecking=accept-new", "edge-a", "true"])
            .output()
            .expect("ssh");
        assert!(out.status.success(), "{out:?}");
    };
    accept();
    let line = std::fs::read_to_string(&known).expect("the key lands in the config's file");
    assert!(
        line.starts_with(&format!("[127.0.0.1]:{} ", n.port)),
        "{line}"
    );
    // Step 5: reconcile builds, sends and collects.
    t.ok(&["reconcile", "-q"]);
    let v = t.json(&["status"]);
    assert_eq!(v["nodes"][0]["state"], "current", "{v}");

    // The node's host key changes (on purpose): refused, with the help naming what to do.
    n.rotate_host_key();
    n.restart();
    t.resolver_v2();
    t.ok(&["build", "-q"]);
    let run = t.run(&["push"]);
    assert_eq!(run.code, 3, "{run}");
    assert!(run.stderr.contains("host key changed"), "{run}");
    let out = std::process::Command::new("ssh-keygen")
        .arg("-R")
        .arg(format!("[127.0.0.1]:{}", n.port))
        .arg("-f")
        .arg(&known)
        .output()
        .expect("ssh-keygen");
    assert!(out.status.success(), "{out:?}");
    accept();
    // The retry the README gives.
    t.ok(&["push", "--all", "edge-a", "-q"]);
    t.ok(&["collect", "edge-a", "-q"]);
    let v = t.json(&["status"]);
    assert_eq!(v["nodes"][0]["state"], "current", "{v}");
}

/// The README's bash line, `source <(COMPLETE=bash mesh)`, as bash runs it: the function it
/// registers asks mesh and fills COMPREPLY with the nodes.
#[test]
fn bash_completion_registers_and_asks_mesh() {
    let (_t, demo) = demo();
    let bin_dir = assert_cmd::cargo::cargo_bin("mesh")
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = r#"source <(COMPLETE=bash mesh)
COMP_WORDS=(mesh push e); COMP_CWORD=2; COMP_LINE="mesh push e"; COMP_POINT=${#COMP_LINE}; COMP_TYPE=9
_clap_complete_mesh mesh e push
printf '%s\n' "${COMPREPLY[@]}""#;
    let out = std::process::Command::new("bash")
        .args(["-c", script])
        .current_dir(&demo)
        .env("PATH", path)
        .env_remove("MESH_STATE")
        .output()
        .expect("bash");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .collect::<Vec<_>>(),
        ["edge-1", "edge-2"],
        "{out:?}"
    );
}

/// PATH with the mesh under test first: the committed shims call `mesh` from PATH.
fn path_with_mesh() -> String {
    let bin_dir = assert_cmd::cargo::cargo_bin("mesh")
        .parent()
        .expect("bin dir")
        .to_path_buf();
    format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A committed completion file.
fn committed(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("completions")
        .join(file)
        .display()
        .to_string()
}

/// Whether `shell` is installed; says so on stderr when it is not (scripts/test installs it).
fn have_shell(shell: &str) -> bool {
    let ok = std::process::Command::new(shell)
        .args(["-c", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!(
            "{shell} is not installed: its completion test is skipped (scripts/test installs it)"
        );
    }
    ok
}

/// The committed completions/mesh.bash, as bash-completion loads it, asks mesh and completes
/// a node for `mesh push`.
#[test]
fn the_committed_bash_completion_completes_a_node() {
    let (_t, demo) = demo();
    let script = format!(
        r#"source {}
COMP_WORDS=(mesh push e); COMP_CWORD=2; COMP_LINE="mesh push e"; COMP_POINT=${{#COMP_LINE}}; COMP_TYPE=9
_clap_complete_mesh mesh e push
printf '%s\n' "${{COMPREPLY[@]}}""#,
        committed("mesh.bash")
    );
    let out = std::process::Command::new("bash")
        .args(["--norc", "-c", &script])
        .current_dir(&demo)
        .env("PATH", path_with_mesh())
        .env_remove("MESH_STATE")
        .output()
        .expect("bash");
    assert!(out.status.success(), "{out:?}");
    let got = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        got.lines().collect::<Vec<_>>(),
        ["edge-1", "edge-2"],
        "{out:?}"
    );
}

/// The committed completions/_mesh, autoloaded from fpath by compinit in a real interactive
/// zsh (on a pseudo-terminal, zsh's zpty): `mesh push la<TAB>` becomes `mesh push lab`.
#[test]
fn the_committed_zsh_completion_completes_a_node() {
    if !have_shell("zsh") {
        return;
    }
    let (_t, demo) = demo();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let script = format!(
        r#"zmodload zsh/zpty || exit 2
zpty z 'zsh -f -i'
zpty -w z 'PROMPT="%% "; fpath=({} $fpath); autoload -U compinit; compinit -u -D'
zpty -w -n z $'mesh push la	'
out=""
for i in {{1..100}}; do
  sleep 0.1
  chunk=""
  zpty -r -t z chunk && out+=$chunk
  [[ $out == *"mesh push lab"* ]] && break
done
zpty -d z
print -r -- "$out""#,
        dir.display()
    );
    let out = std::process::Command::new("timeout")
        .args(["60", "zsh", "-f", "-c", &script])
        .current_dir(&demo)
        .env("PATH", path_with_mesh())
        .env_remove("MESH_STATE")
        .output()
        .expect("zsh");
    let got = String::from_utf8_lossy(&out.stdout);
    assert!(got.contains("mesh push lab"), "{out:?}");
}

/// The committed completions/mesh.fish, sourced in a real fish: `mesh push e` completes the
/// nodes.
#[test]
fn the_committed_fish_completion_completes_a_node() {
    if !have_shell("fish") {
        return;
    }
    let (_t, demo) = demo();
    let script = format!(
        "source {}; complete --do-complete 'mesh push e'",
        committed("mesh.fish")
    );
    let out = std::process::Command::new("fish")
        .args(["--no-config", "-c", &script])
        .current_dir(&demo)
        .env("PATH", path_with_mesh())
        .env_remove("MESH_STATE")
        .output()
        .expect("fish");
    assert!(out.status.success(), "{out:?}");
    let got: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split('\t').next().unwrap_or("").to_string())
        .collect();
    assert_eq!(got, ["edge-1", "edge-2"], "{out:?}");
}
