//! The node side as an attacker or a careless hand finds it (issue 33): an alias after `ROOT/id`
//! is remade, a linked `trust.json`, a writable parent of ROOT, a root that reads as an option,
//! and the words the node and the controller say about each.

use crate::common::{TestMesh, example, local_nodes_toml};

/// The example repository, resolver on the local node `g14` (at `nodes/g14`).
fn one_node() -> TestMesh {
    let t = example();
    t.write(
        "mesh.toml",
        &local_nodes_toml(&[("g14", &[])], &[("resolver", &["g14"])]),
    );
    t
}
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;

/// The declaration in force at `root`: (node it names, sequence).
fn in_force(root: &std::path::Path) -> (String, u64) {
    let bytes = std::fs::read(root.join("declaration.json")).expect("a declaration in force");
    let v: Value = serde_json::from_slice(&bytes).expect("json");
    (
        v["declaration"]["node"].as_str().expect("node").to_string(),
        v["sequence"].as_u64().expect("sequence"),
    )
}

/// Issue 33, item 5: a second name for `edge`'s root (`nodes/./edge`) is refused on the first
/// run; after `rm ROOT/id` (README's advice for a damaged id) it is refused still, and never
/// declares into the root; `edge` carries on, with the root's new id a `node-replaced` fact.
#[test]
fn an_alias_never_takes_a_root_over_after_its_id_is_remade() {
    let t = example();
    let mut toml = local_nodes_toml(
        &[("edge", &[])],
        &[("resolver", &["edge"]), ("reporter", &["edge-alias"])],
    );
    toml = toml.replace(
        "\n[assign]",
        "\n[node.edge-alias]\ntransport = \"local\"\nroot = \"nodes/./edge\"\n\n[assign]",
    );
    t.write("mesh.toml", &toml);
    let root = t.path("nodes/edge");
    t.ok(&["build", "--behind"]);
    let first = t.run(&["push", "edge"]);
    assert_eq!(first.code, 0, "{first}");
    let owned = in_force(&root);
    assert_eq!(owned.0, "edge");
    let alias = t.run(&["push", "edge-alias"]);
    assert_ne!(alias.code, 0, "{alias}");
    assert!(
        alias.stderr.contains("reaches the same node root as edge"),
        "{alias}"
    );
    assert_eq!(in_force(&root), owned);

    // The id is remade (README: remove a damaged one): the alias is refused all the same.
    let id = std::fs::read_to_string(root.join("id")).expect("id");
    std::fs::remove_file(root.join("id")).expect("rm id");
    let again = t.run(&["push", "edge-alias"]);
    assert_ne!(again.code, 0, "{again}");
    assert!(
        again
            .stderr
            .contains("reaches the same node root as edge (node id"),
        "{again}"
    );
    assert!(again.stderr.contains("made anew"), "{again}");
    assert_eq!(
        in_force(&root),
        owned,
        "the alias declared into edge's root"
    );
    assert!(
        root.join("modules/resolver/current").exists(),
        "edge's module was removed"
    );
    assert!(t.facts("node-replaced").is_empty());

    // The name that owned the root carries on: the new id is a fact, and it is current.
    let edge = t.run(&["reconcile"]);
    assert_eq!(edge.code, 3, "the alias is still refused: {edge}");
    let replaced = t.facts("node-replaced");
    assert_eq!(replaced.len(), 1, "{replaced:?}");
    assert_eq!(replaced[0]["subject"], "edge");
    assert_eq!(replaced[0]["was"], id.trim());
    let status = t.json(&["status"]);
    let node = |name: &str| crate::common::named(&status, "nodes", name).clone();
    assert_eq!(node("edge")["state"], "current", "{status}");
    assert!(node("edge-alias")["trouble"].is_object(), "{status}");
    assert_eq!(in_force(&root).0, "edge");
}

/// Issue 33, item 15: a warning with a literal `{root}`: the node's root is named instead.
#[test]
fn the_sequence_bound_names_the_nodes_root() {
    let t = one_node();
    assert_eq!(t.run(&["reconcile"]).code, 0);
    let root = t.path("nodes/g14");
    std::fs::write(
        root.join("state.json"),
        format!(
            "{{\"digest\":\"{}\",\"sequence\":{}}}",
            "0".repeat(64),
            (1u64 << 53) - 1
        ),
    )
    .expect("state");
    let r = t.run(&["push", "--all", "g14"]);
    assert_ne!(r.code, 0, "{r}");
    assert!(!r.stderr.contains("{root}"), "{r}");
    assert!(
        r.stderr
            .contains(&format!("rm {}/declaration.json", root.display())),
        "{r}"
    );
}

/// Issue 33, items 12 and 15: a node root whose parent anyone may write (no sticky bit) is
/// refused, and the controller shows the node's own sentence, not only its help.
#[test]
fn a_root_under_a_world_writable_parent_is_refused_in_the_nodes_words() {
    let t = one_node();
    let open = t.path("nodes");
    std::fs::create_dir_all(&open).expect("mkdir");
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let r = t.run(&["reconcile"]);
    assert_ne!(r.code, 0, "{r}");
    assert!(
        r.stderr
            .contains("writable by everyone without the sticky bit")
            && r.stderr.contains(&open.display().to_string()),
        "the node's own sentence: {r}"
    );
    assert!(r.stderr.contains("chmod"), "what to do: {r}");
    assert!(
        !t.path("nodes/g14/declaration.json").exists(),
        "nothing was declared"
    );
    // Sticky, as /tmp is: anyone may write, no one may move another's ROOT.
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
    let r = t.run(&["reconcile"]);
    assert_eq!(r.code, 0, "{r}");
}

/// Issue 33, item 15: a root that is itself writable by others is refused by the node, and
/// the controller says the node's sentence (with its mode) as well as its help.
#[test]
fn a_root_writable_by_others_is_said_in_the_nodes_words() {
    let t = one_node();
    let root = t.path("nodes/g14");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
    let r = t.run(&["reconcile"]);
    assert_ne!(r.code, 0, "{r}");
    assert!(
        r.stderr
            .contains("refused: it is writable by group or others (mode 1777)"),
        "{r}"
    );
    assert!(r.stderr.contains("chmod go-w"), "{r}");
}

/// Issue 33, item 12: `ROOT/trust.json` as a link is refused, not followed, as the root's
/// other files are.
#[test]
fn a_linked_trust_file_is_refused_not_followed() {
    let t = one_node();
    assert_eq!(t.run(&["reconcile"]).code, 0);
    let root = t.path("nodes/g14");
    let elsewhere = t.path("elsewhere.json");
    std::fs::rename(root.join("trust.json"), &elsewhere).expect("move");
    std::os::unix::fs::symlink(&elsewhere, root.join("trust.json")).expect("link");
    let out = t.run(&["node", "trust", "g14"]);
    let said = format!("{}{}", out.stdout, out.stderr);
    assert_ne!(out.code, 0, "{said}");
    assert!(said.contains("symbolic link"), "{said}");
    // A push is refused too, and the file linked to is untouched.
    let before = std::fs::read(&elsewhere).expect("elsewhere");
    t.edit(
        "platform/go/services/resolver/mesh-module.toml",
        "echo resolver ok",
        "echo resolver changed",
    );
    t.commit("platform", "a change to send");
    let r = t.run(&["reconcile"]);
    assert_ne!(r.code, 0, "{r}");
    assert!(r.stderr.contains("symbolic link"), "{r}");
    assert_eq!(std::fs::read(&elsewhere).expect("elsewhere"), before);
    assert!(
        std::fs::symlink_metadata(root.join("trust.json"))
            .expect("trust")
            .file_type()
            .is_symlink()
    );
}

/// Issue 33, item 12: `root = "-delete"` is refused where it is written, before any command
/// could read it as an option.
#[test]
fn a_root_that_reads_as_an_option_is_refused_at_its_span() {
    let t = one_node();
    t.write(
        "mesh.toml",
        &format!(
            "{}\n[node.edge]\naddress = \"mesh@127.0.0.1\"\nroot = \"-delete\"\n\n[assign]\nroute-proxy = [\"edge\"]\n",
            crate::common::MESH_HEAD
        ),
    );
    let err = t.fails(&["status"], 1);
    assert!(err.contains("-delete"), "{err}");
    assert!(err.contains("mesh.toml"), "at its span: {err}");
    assert!(err.contains("may not start with `-`"), "{err}");
}
