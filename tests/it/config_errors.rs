//! Mistakes in mesh.toml and mesh-module.toml: a diagnostic with file, line, column, the span
//! underlined and a help line; exit 1; nothing written to the store.

use crate::common::{EXAMPLE_MESH, example};

/// Runs `mesh graph` expecting a config diagnostic; checks location, help and the store.
fn diagnostic(t: &crate::common::TestMesh, location: &str, words: &str) -> String {
    let err = t.fails(&["graph"], 1);
    assert!(err.contains(location), "expected {location} in:\n{err}");
    assert!(err.contains(words), "expected {words:?} in:\n{err}");
    assert!(err.contains("help:"), "no help line:\n{err}");
    assert!(
        err.contains("`--") || err.contains("╰─"),
        "no underlined span:\n{err}"
    );
    assert!(
        !t.path(".mesh/state.redb").exists(),
        "a bad config wrote the store"
    );
    err
}

fn mesh_with(extra: &str) -> crate::common::TestMesh {
    let t = example();
    t.write("mesh.toml", &format!("{EXAMPLE_MESH}{extra}"));
    t
}

#[test]
fn bad_toml() {
    let t = example();
    t.write("mesh.toml", "[mesh]\nname = \"x\n");
    diagnostic(&t, "mesh.toml:2:", "invalid");
}

#[test]
fn unknown_field() {
    let t = example();
    t.write(
        "mesh.toml",
        &EXAMPLE_MESH.replace("tags = [\"edge\"]", "tagz = [\"edge\"]"),
    );
    diagnostic(&t, "mesh.toml:13:1", "unknown field `tagz`");
}

#[test]
fn unknown_module_in_assign() {
    let t = mesh_with("route-proxie = [\"g14\"]\n");
    diagnostic(&t, "mesh.toml:17:1", "no module is named `route-proxie`");
}

#[test]
fn unknown_tag_in_assign() {
    let t = mesh_with("resolver = [\"@core\"]\n");
    diagnostic(&t, "mesh.toml:17:13", "no node carries the tag `core`");
}

#[test]
fn unknown_node_in_assign() {
    let t = mesh_with("resolver = [\"g15\"]\n");
    let err = diagnostic(&t, "mesh.toml:17:13", "no node is named `g15`");
    assert!(err.contains("known nodes: g14"), "{err}");
}

#[test]
fn invalid_name() {
    let t = example();
    t.write(
        "mesh.toml",
        &EXAMPLE_MESH
            .replace("[node.g14]", "[node.G14]")
            .replace("\"@edge\"", "\"G14\""),
    );
    diagnostic(&t, "mesh.toml:10:7", "invalid node name `G14`");
}

#[test]
fn a_name_too_long_says_its_length() {
    // Each character is allowed; only the length is not, and the message says so.
    let long = "g".repeat(129);
    let t = example();
    t.write(
        "mesh.toml",
        &EXAMPLE_MESH
            .replace("[node.g14]", &format!("[node.{long}]"))
            .replace("\"@edge\"", &format!("\"{long}\"")),
    );
    let err = diagnostic(&t, "mesh.toml:10:7", "at most 128 bytes");
    assert!(err.contains("this one has 129"), "{err}");
}

#[test]
fn assigning_a_library() {
    let t = mesh_with("geo = [\"g14\"]\n");
    diagnostic(&t, "mesh.toml:17:1", "`geo` is a library");
}

#[test]
fn duplicate_module_name() {
    let t = example();
    t.write(
        "platform/ts/other/mesh-module.toml",
        "name = \"geo\"\nbuild = \"true\"\n",
    );
    t.commit("platform", "dup");
    let err = diagnostic(
        &t,
        "platform:ts/other/mesh-module.toml:1:8",
        "module `geo` is defined twice",
    );
    assert!(
        err.contains("platform:go/lib/geo/mesh-module.toml"),
        "{err}"
    );
}

#[test]
fn presence_edge_to_a_missing_module() {
    let t = example();
    t.edit_and_commit(
        "platform",
        "go/services/route-proxy/mesh-module.toml",
        "presence = [\"resolver\"]",
        "presence = [\"resolvr\"]",
        "typo",
    );
    diagnostic(
        &t,
        "platform:go/services/route-proxy/mesh-module.toml:5:",
        "names module `resolvr`, which does not exist",
    );
}

#[test]
fn module_manifest_typo() {
    let t = example();
    t.commit_a_manifest_typo();
    diagnostic(
        &t,
        "platform:go/lib/geo/mesh-module.toml:4:1",
        "unknown field `tset`",
    );
}

#[test]
fn no_mesh_toml() {
    let t = crate::common::TestMesh::new();
    let err = t.fails(&["graph"], 1);
    assert!(err.contains("there is no mesh.toml"), "{err}");
    assert!(err.contains("mesh init"), "{err}");
}

#[test]
fn an_ssh_node_without_an_address() {
    let t = mesh_with("");
    t.write(
        "mesh.toml",
        &EXAMPLE_MESH.replace(
            "transport = \"local\"\nroot = \"nodes/g14\"",
            "root = \"/srv/mesh\"",
        ),
    );
    diagnostic(&t, "mesh.toml:10:7", "node `g14` has no address");
}

#[test]
fn a_bad_ssh_timeout() {
    // The line `timeout = …` of the `[ssh]` table written after EXAMPLE_MESH.
    let line = EXAMPLE_MESH.lines().count() + 3;
    let t = mesh_with("\n[ssh]\ntimeout = \"soon\"\n");
    diagnostic(
        &t,
        &format!("mesh.toml:{line}:11"),
        "`timeout` is not a duration",
    );
    let t = mesh_with("\n[ssh]\ntimeout = \"0s\"\n");
    diagnostic(
        &t,
        &format!("mesh.toml:{line}:11"),
        "`timeout` must be longer than zero",
    );
}

#[test]
fn a_status_page_that_names_no_file() {
    let t = mesh_with("\n[status]\npage = \"out/\"\n");
    let err = diagnostic(&t, "mesh.toml:19:8", "`page` must name a file");
    assert!(err.contains("not a file name"), "{err}");
}

/// A `ref` that is a pattern (`*` would fetch every branch and then read none) or not a ref
/// name at all is refused where it is written.
#[test]
fn a_ref_pattern_or_a_bad_ref_name_is_refused_at_its_span() {
    for (bad, words) in [
        ("*", "`*` makes it a pattern"),
        ("refs/heads/*", "`*` makes it a pattern"),
        ("main..dev", "not a ref name"),
        ("feature branch", "not a ref name"),
        ("-delete", "begins with `-`"),
    ] {
        let t = example();
        t.write(
            "mesh.toml",
            &EXAMPLE_MESH.replace("ref  = \"refs/heads/main\"", &format!("ref  = \"{bad}\"")),
        );
        let err = diagnostic(&t, "mesh.toml:8:8", words);
        assert!(err.contains("`ref` of repository `platform`"), "{err}");
    }
    // A branch, a tag, a full name and HEAD are ref names.
    for good in ["main", "refs/heads/main", "HEAD", "release/2"] {
        let t = example();
        t.write(
            "mesh.toml",
            &EXAMPLE_MESH.replace("ref  = \"refs/heads/main\"", &format!("ref  = \"{good}\"")),
        );
        let run = t.run(&["graph"]);
        assert!(!run.stderr.contains("not a ref name"), "{good}: {run}");
    }
}
