//! Repositories followed by URL: mesh keeps a bare clone under `.mesh/repos/`, fetches before it
//! reads (never with `--offline`), and a failed fetch is counted without losing what was known.

use crate::common::{Run, TestMesh, git};
use serde_json::Value;
use std::path::PathBuf;

/// A mesh following `upstream.git` (a bare repository in the test's directory) by `file://`
/// URL, with `ref_line` (e.g. `ref = "main"`, or nothing for the remote's HEAD) under it,
/// and a local node `n1` running the module `probe`. Its one commit says `v1`; the work
/// repository it was pushed from is `work/`. No checkout of it is read by mesh.
fn followed(ref_line: &str) -> TestMesh {
    let t = TestMesh::new();
    git(
        t.dir(),
        &["init", "-q", "--bare", "-b", "main", "upstream.git"],
    );
    t.empty_repo("work");
    push_probe(&t, "v1");
    t.write(
        "mesh.toml",
        &format!(
            "[mesh]\nname = \"test\"\n\n[[repo]]\nname = \"src\"\nurl  = \"{}\"\n{ref_line}\n\n\
             [node.n1]\ntransport = \"local\"\nroot = \"nodes/n1\"\n\n[assign]\nprobe = [\"n1\"]\n",
            url(&t)
        ),
    );
    t
}

/// `file://` and the upstream's absolute path.
fn url(t: &TestMesh) -> String {
    format!("file://{}", t.path("upstream.git").display())
}

/// Commits, in `work/`, a `probe` module whose artifact says `what`, and pushes it upstream.
fn push_probe(t: &TestMesh, what: &str) -> String {
    t.write(
        "work/probe/mesh-module.toml",
        &format!("name  = \"probe\"\nbuild = 'printf {what} > \"$MESH_OUT/id\"'\n"),
    );
    t.commit("work", what);
    let upstream = t.path("upstream.git").display().to_string();
    git(&t.path("work"), &["push", "-q", &upstream, "main"]);
    git(&t.path("work"), &["rev-parse", "HEAD"])
        .trim()
        .to_string()
}

/// The commit the clone's remote-tracking ref holds.
fn fetched(t: &TestMesh, tracking: &str) -> String {
    git(&t.path(".mesh/repos/src.git"), &["rev-parse", tracking])
        .trim()
        .to_string()
}

/// `mesh reconcile --json` (with `extra` global flags before it): its exit code, summary and
/// stderr.
fn reconcile(t: &TestMesh, extra: &[&str]) -> (i32, Value, String) {
    let mut args: Vec<&str> = extra.to_vec();
    args.push("reconcile");
    let run = t.run_json(&args);
    let v = run.json();
    (run.code, v, run.stderr)
}

/// What the node `n1` runs of `probe`: the artifact's `id` file, wherever the node keeps it.
fn running(t: &TestMesh) -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p: PathBuf = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.file_name().is_some_and(|n| n == "id") {
                out.push(std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    let mut out = Vec::new();
    // The module's own `id` files, under modules/ (ROOT/id is the node's id).
    walk(&t.path("nodes/n1/modules"), &mut out);
    out.sort();
    out.dedup();
    out
}

#[test]
fn a_pushed_commit_is_built_and_declared_by_the_next_reconcile_with_no_checkout() {
    let t = followed("ref  = \"main\"");
    let v1 = git(&t.path("work"), &["rev-parse", "HEAD"])
        .trim()
        .to_string();
    let (code, s, err) = reconcile(&t, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        (s["built"].clone(), s["sent"].clone()),
        (1.into(), 1.into())
    );
    assert_eq!(fetched(&t, "refs/remotes/origin/main"), v1);
    let clone = t.path(".mesh/repos/src.git");
    assert_eq!(
        git(&clone, &["rev-parse", "--is-bare-repository"]).trim(),
        "true"
    );
    assert!(!clone.join("probe").exists(), "the clone has a work tree");
    assert_eq!(running(&t), ["v1"]);
    let checked = t.json(&["doctor"])["checked"].to_string();
    assert!(
        checked.contains("repository `src`: clone ")
            && checked.contains(&format!("refs/remotes/origin/main at {}", &v1[..7])),
        "{checked}"
    );

    let v2 = push_probe(&t, "v2");
    let (code, s, err) = reconcile(&t, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        (s["built"].clone(), s["declared"].clone(), s["sent"].clone()),
        (1.into(), 1.into(), 1.into()),
        "{s}"
    );
    assert_eq!(fetched(&t, "refs/remotes/origin/main"), v2);
    assert!(running(&t).contains(&"v2".to_string()), "{:?}", running(&t));

    // Nothing pushed: nothing fetched changes, nothing is built or sent.
    let (code, s, _) = reconcile(&t, &[]);
    assert_eq!(code, 0);
    assert_eq!(
        (s["built"].clone(), s["sent"].clone()),
        (0.into(), 0.into())
    );
}

#[test]
fn an_unreachable_url_is_a_counted_error_and_the_last_fetch_is_read() {
    let t = followed("ref  = \"refs/heads/main\"");
    let v1 = git(&t.path("work"), &["rev-parse", "HEAD"])
        .trim()
        .to_string();
    let (code, _, err) = reconcile(&t, &[]);
    assert_eq!(code, 0, "{err}");
    let status_before = t.json(&["status"]);
    let known = |status: &Value| -> Vec<Value> {
        status["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .map(|n| serde_json::json!([n["state"], n["declared"], n["applied"]]))
            .collect()
    };

    std::fs::rename(t.path("upstream.git"), t.path("moved.git")).expect("move upstream");
    let (code, s, err) = reconcile(&t, &[]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(s["fetch_failed"], 1, "{s}");
    assert_eq!(s["built"], 0);
    let said = format!("fetch of `src` from {} failed: ", url(&t));
    let reading = format!("reading {} from the last fetch", &v1[..7]);
    let needs = s["needs_a_person"].to_string();
    assert!(needs.contains(&said) && needs.contains(&reading), "{needs}");
    assert!(err.contains(&said) && err.contains(&reading), "{err}");
    assert_eq!(err.matches(&said).count(), 1, "said more than once:\n{err}");
    assert!(err.contains("fetch failed 1"), "{err}");
    // The clone and the store are as they were: status still says what it knew.
    assert_eq!(fetched(&t, "refs/remotes/origin/main"), v1);
    let run = t.run_json(&["status"]);
    assert_eq!(run.code, 0, "{run}");
    assert_eq!(known(&run.json()), known(&status_before));
    // status reads the clone as it is: it does not fetch, so it has no failure to say.
    assert!(!run.stderr.contains(&said), "{}", run.stderr);

    // Back again: the next run fetches what was pushed meanwhile.
    std::fs::rename(t.path("moved.git"), t.path("upstream.git")).expect("move back");
    let v2 = push_probe(&t, "v2");
    let (code, s, err) = reconcile(&t, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        (s["built"].clone(), s["fetch_failed"].clone()),
        (1.into(), 0.into())
    );
    assert_eq!(fetched(&t, "refs/remotes/origin/main"), v2);
}

#[test]
fn offline_reads_the_clone_as_it_is() {
    // No `ref`: the remote's HEAD is followed.
    let t = followed("");
    let first = t.run(&["--offline", "status"]);
    assert_eq!(first.code, 1, "{first}");
    assert!(
        first.stderr.contains("--offline") && first.stderr.contains("without --offline"),
        "{first}"
    );
    assert!(!t.path(".mesh/repos/src.git").exists());

    let (code, _, err) = reconcile(&t, &[]);
    assert_eq!(code, 0, "{err}");
    let v1 = fetched(&t, "refs/remotes/origin/HEAD");
    let v2 = push_probe(&t, "v2");
    assert_ne!(v1, v2);
    let (code, s, err) = reconcile(&t, &["--offline"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(s["built"], 0, "--offline fetched: {s}");
    assert_eq!(fetched(&t, "refs/remotes/origin/HEAD"), v1);
    assert_eq!(running(&t), ["v1"]);

    let (code, s, err) = reconcile(&t, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(s["built"], 1);
    assert_eq!(fetched(&t, "refs/remotes/origin/HEAD"), v2);
}

#[test]
fn a_first_fetch_that_fails_says_what_to_check_and_leaves_nothing() {
    let t = followed("ref  = \"main\"");
    std::fs::remove_dir_all(t.path("upstream.git")).expect("remove upstream");
    let run = t.run(&["build"]);
    assert_eq!(run.code, 1, "{run}");
    assert!(
        run.stderr
            .contains("repository `src` cannot be cloned from file://")
            && run.stderr.contains("git ls-remote"),
        "{run}"
    );
    let repos = t.path(".mesh/repos");
    let left: Vec<_> = std::fs::read_dir(&repos)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "a failed clone left {left:?}");
}

#[test]
fn a_ref_the_remote_does_not_have_is_said() {
    let t = followed("ref  = \"trunk\"");
    let run = t.run(&["build"]);
    assert_eq!(run.code, 1, "{run}");
    assert!(
        run.stderr.contains("mesh.toml:7:8")
            && run
                .stderr
                .contains("the remote has no ref `refs/heads/trunk`")
            && run.stderr.contains("git ls-remote"),
        "{run}"
    );

    // Known once, gone later: the last fetch is read and the run says why.
    let t = followed("ref  = \"main\"");
    t.ok(&["build"]);
    git(&t.path("upstream.git"), &["branch", "-m", "main", "trunk"]);
    let run = t.run(&["build"]);
    assert_eq!(run.code, 0, "{run}");
    assert!(
        run.stderr
            .contains("the remote has no ref `refs/heads/main`; reading "),
        "{run}"
    );
}

#[test]
fn a_repo_with_both_path_and_url_or_neither_is_refused_with_a_span() {
    let t = followed("ref  = \"main\"\npath = \"work\"");
    let err = t.fails(&["graph"], 1);
    assert!(
        err.contains("mesh.toml:6:8") && err.contains("has both `path` and `url`"),
        "{err}"
    );
    assert!(err.contains("help:"), "{err}");

    let t = followed("");
    let toml = std::fs::read_to_string(t.path("mesh.toml")).expect("read");
    let url_line = format!("url  = \"{}\"\n", url(&t));
    t.write("mesh.toml", &toml.replace(&url_line, ""));
    let err = t.fails(&["graph"], 1);
    assert!(
        err.contains("mesh.toml:5:8") && err.contains("has neither `path` nor `url`"),
        "{err}"
    );
    assert!(
        !t.path(".mesh/state.redb").exists(),
        "a bad config wrote the store"
    );
}

#[test]
fn an_ssh_url_is_fetched_with_the_users_ssh_command() {
    let t = followed("ref  = \"main\"");
    let git_host = crate::common::ssh::SshNode::start(t.dir(), "git-host");
    let v1 = git(&t.path("work"), &["rev-parse", "HEAD"])
        .trim()
        .to_string();
    let ssh_url = format!(
        "ssh://{}:{}{}",
        git_host.address(),
        git_host.port,
        t.path("upstream.git").display()
    );
    let toml = std::fs::read_to_string(t.path("mesh.toml")).expect("read");
    t.write("mesh.toml", &toml.replace(&url(&t), &ssh_url));
    // What reaches this sshd (key, no host key check): given as git users give it.
    let options: Vec<String> = git_host
        .client_options()
        .into_iter()
        .filter(|o| o != "-p" && *o != git_host.port.to_string())
        .collect();
    let ssh_command = format!("ssh {}", options.join(" "));
    let run = Run::of(
        t.mesh(&["reconcile", "--json"])
            .env("GIT_SSH_COMMAND", &ssh_command),
    );
    assert_eq!(run.code, 0, "{run}");
    assert_eq!(run.json()["built"], 1, "{run}");
    assert_eq!(fetched(&t, "refs/remotes/origin/main"), v1);

    // The key refused (another key, no agent, no prompt): the fetch fails, and what was
    // fetched is read.
    let key = crate::common::ssh::client_key().display().to_string();
    let refused = ssh_command.replace(&key, "/dev/null") + " -o BatchMode=yes";
    assert_ne!(refused, ssh_command + " -o BatchMode=yes");
    let run = Run::of(
        t.mesh(&["reconcile", "--json"])
            .env("GIT_SSH_COMMAND", &refused)
            .env_remove("SSH_AUTH_SOCK"),
    );
    assert_eq!(run.code, 3, "{run}");
    assert_eq!(run.json()["fetch_failed"], 1, "{run}");
    assert!(
        run.stderr
            .contains(&format!("reading {} from the last fetch", &v1[..7])),
        "{run}"
    );
}

/// Replaces the mesh's `url` with `new`.
fn set_url(t: &TestMesh, new: &str) {
    set_url_from(t, &url(t), new);
}

/// Replaces the mesh's `url` `old` with `new`.
fn set_url_from(t: &TestMesh, old: &str, new: &str) {
    let toml = std::fs::read_to_string(t.path("mesh.toml")).expect("read");
    t.write("mesh.toml", &toml.replace(old, new));
}

/// An ssh command that never answers: a remote that stalls.
fn stalling_ssh(t: &TestMesh) -> String {
    let path = t.path("stall-ssh");
    std::fs::write(&path, "#!/bin/sh\nexec sleep 60\n").expect("write");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    path.display().to_string()
}

#[test]
fn reading_verbs_never_fetch_and_never_wait_on_a_remote() {
    let t = followed("ref  = \"main\"");
    // A reading verb with no clone yet says which verbs make it.
    let run = t.run(&["status"]);
    assert_eq!(run.code, 1, "{run}");
    assert!(
        run.stderr.contains("never fetches") && run.stderr.contains("mesh reconcile"),
        "{run}"
    );
    assert!(!t.path(".mesh/repos/src.git").exists());
    let (code, _, err) = reconcile(&t, &[]);
    assert_eq!(code, 0, "{err}");
    let v1 = fetched(&t, "refs/remotes/origin/main");
    // Upstream moves: the reading verbs read the clone as it is.
    push_probe(&t, "v2");
    let page = t.path("page.html").display().to_string();
    for verb in [
        &["status"][..],
        &["plan"],
        &["graph"],
        &["where"],
        &["doctor"],
        &["status", "--html", &page],
    ] {
        let run = t.run(verb);
        assert!(matches!(run.code, 0 | 3), "{verb:?}: {run}");
        assert_eq!(
            fetched(&t, "refs/remotes/origin/main"),
            v1,
            "{verb:?} fetched"
        );
    }
    // A remote that stalls holds none of them.
    let ssh_url = format!("ssh://git.example.org{}", t.path("upstream.git").display());
    set_url(&t, &ssh_url);
    let stall = stalling_ssh(&t);
    for verb in [&["status"][..], &["status", "--html", &page], &["plan"]] {
        let start = std::time::Instant::now();
        let run = Run::of(
            t.mesh(verb)
                .env("GIT_SSH_COMMAND", &stall)
                .timeout(std::time::Duration::from_secs(20)),
        );
        assert!(
            start.elapsed() < std::time::Duration::from_secs(15),
            "{verb:?} waited on the remote: {run}"
        );
        assert!(matches!(run.code, 0 | 3), "{verb:?}: {run}");
    }
}

#[test]
fn a_password_in_a_url_is_never_shown_and_a_failed_fetch_carries_its_cause() {
    let t = followed("ref  = \"main\"");
    let (code, _, err) = reconcile(&t, &[]);
    assert_eq!(code, 0, "{err}");
    // Port 1 of this machine: nobody listens, ssh says so.
    let secret = "s3cret-pw";
    let with_password = format!(
        "ssh://deploy:{secret}@127.0.0.1:1{}",
        t.path("upstream.git").display()
    );
    set_url(&t, &with_password);
    let ssh = "ssh -o BatchMode=yes -o ConnectTimeout=5";
    let run = Run::of(t.mesh(&["reconcile", "--json"]).env("GIT_SSH_COMMAND", ssh));
    assert_eq!(run.code, 3, "{run}");
    assert!(
        !run.stdout.contains(secret) && !run.stderr.contains(secret),
        "{run}"
    );
    assert!(run.stderr.contains("ssh://deploy@127.0.0.1:1/"), "{run}");
    for verb in [&["status"][..], &["doctor", "-v", "--json"]] {
        let run = Run::of(t.mesh(verb).env("GIT_SSH_COMMAND", ssh));
        assert!(
            !run.stdout.contains(secret) && !run.stderr.contains(secret),
            "{verb:?}: {run}"
        );
    }
    // Without a password: the failure carries ssh's own words, and nothing raw reaches stderr.
    set_url_from(
        &t,
        &with_password,
        &format!("ssh://127.0.0.1:1{}", t.path("upstream.git").display()),
    );
    let run = Run::of(t.mesh(&["reconcile", "--json"]).env("GIT_SSH_COMMAND", ssh));
    assert_eq!(run.code, 3, "{run}");
    let sentence = run
        .stderr
        .lines()
        .find(|l| l.contains("fetch of `src`"))
        .unwrap_or_else(|| panic!("no fetch failure said: {run}"))
        .to_string();
    assert!(sentence.contains("Connection refused"), "{sentence}");
    for line in run.stderr.lines() {
        assert!(
            !line.contains("Connection refused") || line.contains("fetch of `src`"),
            "ssh's words reached stderr raw: {line}\n{run}"
        );
    }
    // Nor in a first clone's failure, which quotes mesh.toml.
    set_url_from(
        &t,
        &format!("ssh://127.0.0.1:1{}", t.path("upstream.git").display()),
        &with_password,
    );
    std::fs::remove_dir_all(t.path(".mesh/repos/src.git")).expect("remove the clone");
    let run = Run::of(t.mesh(&["build"]).env("GIT_SSH_COMMAND", ssh));
    assert_eq!(run.code, 1, "{run}");
    assert!(
        run.stderr.contains("mesh.toml:6:8") && !run.stderr.contains(secret),
        "{run}"
    );
}

#[test]
fn a_git_protocol_url_is_refused_at_its_span() {
    let t = followed("ref  = \"main\"");
    set_url(&t, "git://git.example.org/acme/tools.git");
    let err = t.fails(&["graph"], 1);
    assert!(
        err.contains("mesh.toml:6:8")
            && err.contains("git://")
            && err.contains("neither authenticated nor encrypted"),
        "{err}"
    );
}
