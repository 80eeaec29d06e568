//! Secrets (issue 36): set by a person, kept encrypted in the mesh directory, delivered to the
//! nodes that run their module encrypted to each node's own key, read by `activate` through
//! `$MESH_SECRETS`, and found in plain text nowhere else. On real local nodes driven by real
//! `mesh` processes.

use crate::common::{Run, TestMesh, example, local_nodes_toml, named};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const RESOLVER: &str = "platform/go/services/resolver/mesh-module.toml";
const REPORTER: &str = "platform/python/reporter/mesh-module.toml";
const VALUE: &str = "hunter2-correct-horse-battery";

/// Node `a` runs resolver and reporter, node `b` reporter alone; each activate appends its
/// module's name to `ROOT/runs`, and resolver's writes the sha256 of its secret to `ROOT/seen`
/// (never the value) and its mode to `ROOT/modes`.
fn mesh() -> TestMesh {
    let t = example();
    t.edit(
        RESOLVER,
        "activate = \"bin/resolver\"",
        r#"activate = 'echo resolver >> "$MESH_NODE_ROOT/runs"; if [ -e "$MESH_SECRETS/DB_PASSWORD" ]; then sha256sum "$MESH_SECRETS/DB_PASSWORD" | cut -c1-64 >> "$MESH_NODE_ROOT/seen"; stat -c %a "$MESH_SECRETS/DB_PASSWORD" >> "$MESH_NODE_ROOT/modes"; fi; bin/resolver'"#,
    );
    t.edit(
        REPORTER,
        "activate = \"bin/reporter\"",
        r#"activate = 'echo reporter >> "$MESH_NODE_ROOT/runs"; bin/reporter'"#,
    );
    t.commit("platform", "activates that say what they saw");
    let toml = local_nodes_toml(
        &[("a", &[]), ("b", &[])],
        &[("resolver", &["a"]), ("reporter", &["a", "b"])],
    );
    t.write(
        "mesh.toml",
        &format!("{toml}\n[status]\npage = \"status.html\"\n"),
    );
    t
}

/// `mesh secret set MODULE NAME` with `value` on standard input.
fn set(t: &TestMesh, module: &str, name: &str, value: &str) -> Run {
    let mut c = t.mesh(&["secret", "set", module, name]);
    c.write_stdin(value.to_string());
    Run::of(&mut c)
}

fn runs(t: &TestMesh, node: &str, module: &str) -> usize {
    std::fs::read_to_string(t.path(&format!("nodes/{node}/runs")))
        .unwrap_or_default()
        .lines()
        .filter(|l| *l == module)
        .count()
}

fn sha256(value: &str) -> String {
    let out = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().expect("stdin").write_all(value.as_bytes())?;
            c.wait_with_output()
        })
        .expect("sha256sum");
    String::from_utf8_lossy(&out.stdout)[..64].to_string()
}

/// Every file under `dir` holding `needle`, but `except`.
pub(crate) fn holding(dir: &Path, needle: &[u8], except: &[&Path]) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(meta) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if meta.is_dir() {
                stack.push(p);
            } else if meta.is_file()
                && !except.contains(&p.as_path())
                && std::fs::read(&p).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle))
            {
                found.push(p.display().to_string());
            }
        }
    }
    found
}

#[test]
fn a_secret_reaches_only_its_module_on_its_nodes_and_is_in_plain_text_nowhere_else() {
    let t = mesh();
    let done = set(&t, "resolver", "DB_PASSWORD", &format!("{VALUE}\n"));
    assert_eq!(done.code, 0, "{done}");
    let file = t.path("secrets/resolver/DB_PASSWORD.age");
    let text = std::fs::read_to_string(&file).expect("the secret file");
    assert!(text.contains("-----BEGIN AGE ENCRYPTED FILE-----") && text.contains("# set-by: "));

    let first = t.run_json(&["reconcile"]);
    assert_eq!(first.code, 0, "{first}");
    let held = t.path("nodes/a/secrets/resolver/DB_PASSWORD");
    assert_eq!(std::fs::read_to_string(&held).expect("delivered"), VALUE);
    let mode = |p: &Path| std::fs::metadata(p).expect("mode").permissions().mode() & 0o777;
    assert_eq!(mode(&held), 0o600);
    assert_eq!(mode(&t.path("nodes/a/secrets/resolver")), 0o700);
    assert_eq!(
        std::fs::read_to_string(t.path("nodes/a/seen"))
            .unwrap_or_default()
            .trim(),
        sha256(VALUE),
        "activate read it"
    );
    assert_eq!(
        std::fs::read_to_string(t.path("nodes/a/modes"))
            .unwrap_or_default()
            .trim(),
        "600"
    );
    assert!(
        !t.path("nodes/b/secrets/resolver").exists(),
        "b does not run resolver"
    );

    // Searched for as bytes: the mesh directory (store, logs, repositories, the page), every
    // node root but its one file, and what every reading verb prints.
    let found = holding(t.dir(), VALUE.as_bytes(), &[&held]);
    assert!(found.is_empty(), "the value in plain text: {found:?}");
    assert_eq!(
        holding(t.dir(), VALUE.as_bytes(), &[]),
        vec![held.display().to_string()],
        "the search finds the one file"
    );
    for args in [
        &["status", "--json"][..],
        &["events", "--json"],
        &["node", "show", "a", "--json"],
        &["plan"],
        &["secret", "list", "--json"],
        &["status"],
    ] {
        let out = t.run(args);
        assert!(
            !out.stdout.contains(VALUE) && !out.stderr.contains(VALUE),
            "{args:?}: {out}"
        );
    }
    let listed = t.json(&["secret", "list"]);
    assert_eq!(listed[0]["name"], "DB_PASSWORD", "{listed}");
    assert_eq!(listed[0]["held_by"], serde_json::json!(["a"]), "{listed}");

    // Changed: resolver activates again, reporter does not.
    let (resolver, reporter) = (runs(&t, "a", "resolver"), runs(&t, "a", "reporter"));
    assert_eq!(set(&t, "resolver", "DB_PASSWORD", "another-value").code, 0);
    assert_eq!(t.run_json(&["reconcile"]).code, 0);
    assert_eq!(
        std::fs::read_to_string(&held).unwrap_or_default(),
        "another-value"
    );
    assert_eq!(
        runs(&t, "a", "resolver"),
        resolver + 1,
        "the changed secret's module"
    );
    assert_eq!(
        runs(&t, "a", "reporter"),
        reporter,
        "no other module is touched"
    );
    let node = named(&t.json(&["status"]), "nodes", "a").clone();
    assert_eq!(node["state"], "current", "{node}");

    // Removed: gone from the node at the next pass.
    t.ok(&["secret", "rm", "resolver", "DB_PASSWORD"]);
    assert_eq!(t.run_json(&["reconcile"]).code, 0);
    assert!(!held.exists() && !t.path("nodes/a/secrets/resolver").exists());
    assert!(holding(&t.path("nodes/a"), b"another-value", &[]).is_empty());
}

#[test]
fn bad_input_is_refused_and_loses_nothing() {
    let t = mesh();
    let e = t.fails(&["secret", "set", "resolver", "DB-PASSWORD"], 1);
    assert!(e.contains("cannot name a secret"), "{e}");
    let e = t.fails(&["secret", "set", "nobody", "X"], 1);
    assert!(e.contains("assigned to no node"), "{e}");
    let empty = set(&t, "resolver", "X", "");
    assert_eq!(empty.code, 1, "{empty}");
    assert!(!t.path("secrets").exists(), "nothing was written");
    let e = t.fails(&["secret", "rm", "resolver", "X"], 1);
    assert!(e.contains("no secret X"), "{e}");
    // A file edited by hand is named when its value is read, and nothing is sent.
    assert_eq!(set(&t, "resolver", "K", "v1-value").code, 0);
    let f = t.path("secrets/resolver/K.age");
    let text = std::fs::read_to_string(&f).unwrap();
    let line = text.lines().find(|l| l.starts_with("# digest:")).unwrap();
    std::fs::write(
        &f,
        text.replace(line, &format!("# digest: {}", "0".repeat(64))),
    )
    .unwrap();
    let run = t.run(&["reconcile"]);
    assert_ne!(run.code, 0, "{run}");
    assert!(
        run.stderr.contains("does not match its value")
            || run.stdout.contains("does not match its value"),
        "{run}"
    );
    assert!(!t.path("nodes/a/secrets/resolver/K").exists());
}

#[test]
fn a_replaced_node_gets_no_secret_until_a_person_accepts_its_key() {
    let t = mesh();
    assert_eq!(set(&t, "resolver", "DB_PASSWORD", VALUE).code, 0);
    assert_eq!(t.run_json(&["reconcile"]).code, 0);
    // The machine behind `a` is wiped: a new root, a new id and a new key.
    std::fs::remove_dir_all(t.path("nodes/a")).unwrap();
    let run = t.run_json(&["push", "a"]);
    assert_eq!(run.code, 3, "{run}");
    assert!(run.stderr.contains("mesh node accept a"), "{run}");
    assert!(!t.path("nodes/a/secrets").exists(), "nothing went to it");
    assert!(!t.path("nodes/a/sealed.age").exists());
    assert!(!t.facts("node-replaced").is_empty());
    let shown = t.ok(&["node", "show", "a"]);
    assert!(
        shown.contains("not accepted: no secret goes to it"),
        "{shown}"
    );
    let e = t.fails(&["node", "accept", "a", "--key", "age1wrong"], 1);
    assert!(e.contains("offers"), "{e}");
    t.ok(&["node", "accept", "a"]);
    assert_eq!(t.run_json(&["reconcile"]).code, 0);
    assert_eq!(
        std::fs::read_to_string(t.path("nodes/a/secrets/resolver/DB_PASSWORD")).unwrap_or_default(),
        VALUE
    );
}

#[test]
fn a_second_controller_delivers_the_same_secrets_from_the_committed_files() {
    let laptop = mesh();
    let cron = TestMesh::new();
    cron.clone_platform_of(&laptop);
    let toml = std::fs::read_to_string(laptop.path("mesh.toml")).unwrap();
    cron.write("mesh.toml", &toml);
    // The laptop lists cron with its recipient and encrypts to it.
    let printed = cron.ok(&["id"]);
    let line = format!(
        "cron = {}",
        printed.trim().split_once(" = ").expect("a line").1
    );
    assert!(line.contains(" age1"), "{line}");
    laptop.write("mesh.toml", &format!("{toml}\n[controllers]\n{line}\n"));
    assert_eq!(set(&laptop, "resolver", "DB_PASSWORD", VALUE).code, 0);
    // Set encrypts to every controller listed; a rekey (after [controllers] changed) encrypts
    // anew and keeps the digest.
    let before = std::fs::read_to_string(laptop.path("secrets/resolver/DB_PASSWORD.age")).unwrap();
    laptop.ok(&["secret", "rekey"]);
    let after = std::fs::read_to_string(laptop.path("secrets/resolver/DB_PASSWORD.age")).unwrap();
    let digest = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("# digest"))
            .map(str::to_string)
    };
    assert_eq!(digest(&before), digest(&after));
    assert_ne!(before, after, "encrypted anew");
    // The cron host has the same mesh directory (as a pull would give it) and its own nodes.
    crate::common::copy_dir(&laptop.path("secrets"), &cron.path("secrets"));
    cron.write(
        "mesh.toml",
        &std::fs::read_to_string(laptop.path("mesh.toml")).unwrap(),
    );
    let run = cron.run_json(&["reconcile"]);
    assert_eq!(run.code, 0, "{run}");
    assert_eq!(
        std::fs::read_to_string(cron.path("nodes/a/secrets/resolver/DB_PASSWORD"))
            .unwrap_or_default(),
        VALUE
    );
    // A controller the files are not encrypted to says so, and sends nothing.
    let stranger = TestMesh::new();
    stranger.clone_platform_of(&laptop);
    crate::common::copy_dir(&laptop.path("secrets"), &stranger.path("secrets"));
    stranger.write("mesh.toml", &toml);
    let run = stranger.run_json(&["reconcile"]);
    assert_ne!(run.code, 0, "{run}");
    assert!(
        format!("{run}").contains("not encrypted to this key"),
        "{run}"
    );
    assert!(!stranger.path("nodes/a/secrets").exists());
}

#[test]
fn a_command_that_prints_a_secret_has_it_hidden_in_every_report() {
    let t = mesh();
    t.edit(
        RESOLVER,
        "activate = ",
        "check = 'echo \"password is $(cat \"$MESH_SECRETS/DB_PASSWORD\")\"; exit 1'\nactivate = ",
    );
    t.commit("platform", "a check that leaks");
    assert_eq!(set(&t, "resolver", "DB_PASSWORD", VALUE).code, 0);
    let run = t.run_json(&["reconcile"]);
    assert_ne!(run.code, 0, "the check fails: {run}");
    assert!(
        !run.stdout.contains(VALUE) && !run.stderr.contains(VALUE),
        "{run}"
    );
    let shown = t.run(&["node", "show", "a", "--json"]);
    assert!(shown.stdout.contains("[secret DB_PASSWORD]"), "{shown}");
    let found = holding(
        t.dir(),
        VALUE.as_bytes(),
        &[&t.path("nodes/a/secrets/resolver/DB_PASSWORD")],
    );
    assert!(found.is_empty(), "the value in plain text: {found:?}");
}
