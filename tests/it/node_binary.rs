//! The `mesh-node` binary (issue 34): the node half alone, answering what `mesh node …` answers,
//! in both spellings of its command line, with errors in the shape the controller reads.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

fn node(args: &[&str]) -> std::process::Output {
    Command::new(assert_cmd::cargo::cargo_bin("mesh-node"))
        .args(args)
        .output()
        .expect("mesh-node runs")
}

fn mesh(args: &[&str]) -> std::process::Output {
    Command::new(assert_cmd::cargo::cargo_bin("mesh"))
        .args(args)
        .output()
        .expect("mesh runs")
}

#[test]
fn mesh_node_answers_as_mesh_node_does() {
    let t = tempfile::tempdir().expect("tempdir");
    let root = t.path().join("root");
    let root = root.to_str().expect("utf8");
    // A root with an id (the first session makes one) and nothing else.
    let first = node(&["have", "--root", root]);
    assert!(first.status.success(), "{first:?}");
    for args in [
        &["have", "--root", root][..],
        &["node", "have", "--root", root][..],
    ] {
        let said = node(args);
        let by_mesh = mesh(&["node", "have", "--root", root]);
        assert!(said.status.success(), "{said:?}");
        assert_eq!(
            String::from_utf8_lossy(&said.stdout),
            String::from_utf8_lossy(&by_mesh.stdout),
            "mesh-node {args:?} and mesh node have say the same"
        );
    }
    // The verbs of the node half, and none of the controller's.
    let help = String::from_utf8_lossy(&node(&["--help"]).stdout).into_owned();
    for verb in ["have", "receive", "apply", "report", "session", "serve"] {
        assert!(help.contains(&format!("  {verb} ")), "{verb} in:\n{help}");
    }
    let refused = node(&["reconcile"]);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
}

#[test]
fn a_refused_root_is_said_as_the_controller_reads_it_and_exits_1() {
    let t = tempfile::tempdir().expect("tempdir");
    let root = t.path().join("root");
    std::fs::create_dir(&root).expect("mkdir");
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let root = root.to_str().expect("utf8");
    let said = node(&["apply", "--root", root]);
    let by_mesh = mesh(&["node", "apply", "--root", root]);
    assert_eq!(said.status.code(), Some(1));
    assert_eq!(by_mesh.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&said.stderr);
    // `× what` then `help: what to do`, as miette prints mesh's: what transport::node_said reads.
    assert!(
        stderr.contains("× the node root") && stderr.contains("writable by group or others"),
        "{stderr}"
    );
    assert!(stderr.contains("help: `chmod go-w"), "{stderr}");
    assert!(
        String::from_utf8_lossy(&by_mesh.stderr).contains("writable by group or others"),
        "{by_mesh:?}"
    );
    // Nothing was made in the refused root.
    assert_eq!(std::fs::read_dir(root).expect("read").count(), 0);
}

/// What makes the controller big stays out of what nodes are sent: `mesh-node` links none of
/// the repository, store, graph, config or terminal crates. Procedural macros run at compile
/// time and are never linked (age's message macros read a toml at build time): left out.
#[test]
fn mesh_node_links_none_of_the_controllers_crates() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "mesh-node",
            "-e",
            "normal,no-proc-macro",
            "--prefix",
            "none",
        ])
        .args(["--locked", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree");
    assert!(out.status.success(), "{out:?}");
    let tree = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(names.contains(&"mesh-proto"), "{tree}");
    for heavy in [
        "gix",
        "redb",
        "petgraph",
        "toml",
        "comfy-table",
        "indicatif",
        "mesh-imports",
    ] {
        assert!(!names.contains(&heavy), "mesh-node links {heavy}:\n{tree}");
    }
}
