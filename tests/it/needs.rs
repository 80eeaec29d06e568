//! One definition of "needs a person" (issue 33): each cause `mesh reconcile` exits 3 for makes
//! `mesh status --check` exit 3 and the page count it as needing a look, and the same number.

use crate::common::{TestMesh, example, git, local_nodes_toml};

/// Local node `a` running reporter (whose activate fails while `nodes/a/fail` exists);
/// dashboard is built and judged, and assigned nowhere.
fn mesh() -> TestMesh {
    let t = example();
    t.edit_and_commit(
        "platform",
        "python/reporter/mesh-module.toml",
        "activate = \"bin/reporter\"",
        "activate = 'if test -f \"$MESH_NODE_ROOT/fail\"; then echo \"reporter failed\"; exit 1; fi; bin/reporter'",
        "activate can fail",
    );
    t.write(
        "mesh.toml",
        &local_nodes_toml(&[("a", &[])], &[("reporter", &["a"])]),
    );
    t
}

/// Replaces dashboard's `line` (which begins with `key`) in its manifest, and commits.
fn dashboard(t: &TestMesh, key: &str, line: &str) {
    let rel = "ts/dashboard/mesh-module.toml";
    let text = std::fs::read_to_string(t.path(&format!("platform/{rel}"))).expect("manifest");
    let old = text
        .lines()
        .find(|l| l.starts_with(key))
        .expect("the line")
        .to_string();
    t.edit_and_commit("platform", rel, &old, line, "dashboard changes");
}

/// Asserts what a pass leaves needing a person, as all three say it: `reconcile` exits 3
/// listing `count` things, one holding `words`; `status --check` exits 3; the page says
/// "`count` need a look" and holds `on_page`.
fn all_three_say(t: &TestMesh, count: usize, words: &str, on_page: &str) {
    let run = t.run_json(&["reconcile"]);
    assert_eq!(run.code, 3, "{run}");
    let needs = run.json()["needs_a_person"].clone();
    let needs = needs.as_array().expect("a list");
    assert_eq!(needs.len(), count, "{needs:?}");
    assert!(
        needs
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.contains(words))),
        "{needs:?}"
    );
    let check = t.run(&["status", "--check"]);
    assert_eq!(check.code, 3, "status --check: {check}");
    let page = t.path("page.html");
    t.ok(&["status", "--html", &page.display().to_string()]);
    let html = std::fs::read_to_string(&page).expect("the page");
    assert!(
        html.contains(&format!(" {count} need a look ")),
        "the page's count: {html}"
    );
    assert!(html.contains("Needs a look"), "{html}");
    assert!(
        html.contains(on_page),
        "{on_page:?} is not on the page: {html}"
    );
}

/// Asserts all three say nothing needs a person.
fn none_say(t: &TestMesh) {
    let run = t.run_json(&["reconcile"]);
    assert_eq!(run.code, 0, "{run}");
    assert_eq!(t.run(&["status", "--check"]).code, 0);
    let page = t.path("page.html");
    t.ok(&["status", "--html", &page.display().to_string()]);
    let html = std::fs::read_to_string(&page).expect("the page");
    assert!(html.contains(" 0 need a look "), "{html}");
}

#[test]
fn a_broken_build_is_counted_by_all_three() {
    let t = mesh();
    none_say(&t);
    dashboard(&t, "build", "build = 'echo no compiler >&2; exit 1'");
    all_three_say(&t, 1, "dashboard is broken", "dashboard is broken: ");
    // Said again by every pass while it lasts, never forgotten.
    all_three_say(&t, 1, "dashboard is broken", "dashboard is broken: ");
}

#[test]
fn an_unfit_build_is_counted_by_all_three() {
    let t = mesh();
    dashboard(&t, "test", "test = 'echo a test failed >&2; exit 1'");
    all_three_say(&t, 1, "dashboard is unfit", "dashboard is unfit: ");
}

#[test]
fn a_build_stuck_outstanding_is_counted_by_all_three() {
    let t = mesh();
    dashboard(&t, "build", "build = 'echo the cache is down >&2; exit 75'");
    // Outstanding is not a verdict: the next run retries it, twice.
    for _ in 0..2 {
        let run = t.run(&["reconcile"]);
        assert_eq!(run.code, 0, "{run}");
    }
    all_three_say(
        &t,
        1,
        "dashboard is stuck outstanding",
        "dashboard is stuck outstanding",
    );
}

#[test]
fn a_node_not_worked_out_failed_or_stuck_is_counted_by_all_three() {
    let t = mesh();
    t.write("nodes/a/fail", "");
    all_three_say(&t, 1, "a is failed", "reporter failed");
    all_three_say(&t, 1, "a is failed", "reporter failed");
    all_three_say(&t, 1, "a is stuck", "3 reports in a row");
    std::fs::remove_file(t.path("nodes/a/fail")).expect("rm");
    none_say(&t);
    // inventory is a hold module nobody declared.
    t.edit("mesh.toml", "reporter = [\"a\"]", "inventory = [\"a\"]");
    all_three_say(&t, 1, "a is not worked out", "not worked out");
}

#[test]
fn a_node_whose_mesh_refuses_its_root_is_counted_by_all_three() {
    use std::os::unix::fs::PermissionsExt;
    let t = mesh();
    none_say(&t);
    let root = t.path("nodes/a");
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    all_three_say(&t, 1, "chmod go-w", "chmod go-w");
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    none_say(&t);
}

/// A repository followed by `file://` URL from `upstream.git`, with a module `probe` run by
/// local node `n1`.
fn followed() -> TestMesh {
    let t = TestMesh::new();
    git(
        t.dir(),
        &["init", "-q", "--bare", "-b", "main", "upstream.git"],
    );
    t.empty_repo("work");
    t.write(
        "work/probe/mesh-module.toml",
        "name  = \"probe\"\nbuild = 'printf v1 > \"$MESH_OUT/id\"'\n",
    );
    t.commit("work", "v1");
    let upstream = t.path("upstream.git").display().to_string();
    git(&t.path("work"), &["push", "-q", &upstream, "main"]);
    t.write(
        "mesh.toml",
        &format!(
            "[mesh]\nname = \"test\"\n\n[[repo]]\nname = \"src\"\nurl  = \"file://{upstream}\"\n\
             ref  = \"main\"\n\n[node.n1]\ntransport = \"local\"\nroot = \"nodes/n1\"\n\n\
             [assign]\nprobe = [\"n1\"]\n"
        ),
    );
    t
}

#[test]
fn a_failed_fetch_is_counted_by_all_three() {
    let t = followed();
    none_say(&t);
    std::fs::rename(t.path("upstream.git"), t.path("moved.git")).expect("mv");
    all_three_say(&t, 1, "fetch of `src`", "fetch of `src`");
    // Said by a verb that reads the clone without a fetch of its own, too.
    let v = t.run_json(&["--offline", "status", "--check"]);
    assert_eq!(v.code, 3, "{v}");
    assert_eq!(v.json()["fetch_failed"][0]["repo"], "src", "{v}");
    // A fetch that works again ends it.
    std::fs::rename(t.path("moved.git"), t.path("upstream.git")).expect("mv back");
    none_say(&t);
}

#[test]
fn a_node_that_went_back_is_counted_by_all_three() {
    let t = mesh();
    none_say(&t);
    // A new version of reporter that fails: the node goes back to the one that ran.
    t.edit_and_commit(
        "platform",
        "python/reporter/mesh-module.toml",
        "if test -f",
        "echo the new reporter fails; exit 1; if test -f",
        "a new reporter that fails",
    );
    all_three_say(&t, 1, "a is rolled back", "rolled back to");
}
