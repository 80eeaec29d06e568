//! Instantiation performed (issue 36): a provider's `provide` makes credentials on a node that
//! runs it, and its consumer's nodes get them as secrets (`<as>_<KEY>`); `mesh provision
//! --again` rotates them; a provider that fails leaves its consumer running what it ran and not
//! worked out. On real local nodes driven by real `mesh` processes.

use crate::common::{TestMesh, example, local_nodes_toml, named};

const RESOLVER: &str = "platform/go/services/resolver/mesh-module.toml";
const REPORTER: &str = "platform/python/reporter/mesh-module.toml";

/// Resolver (the provider, on `a`) and reporter (on `a` and `b`), reporter's activate counting
/// its runs; with `edge`, reporter names resolver as `db` and resolver's `provide` prints
/// `provide`'s lines.
fn mesh(provide: Option<&str>) -> TestMesh {
    let t = example();
    t.edit(
        REPORTER,
        "activate = \"bin/reporter\"",
        r#"activate = 'echo reporter >> "$MESH_NODE_ROOT/runs"; bin/reporter'"#,
    );
    if let Some(provide) = provide {
        edge(&t, provide);
    }
    t.commit("platform", "reporter counts its runs");
    t.write(
        "mesh.toml",
        &local_nodes_toml(
            &[("a", &[]), ("b", &[])],
            &[("resolver", &["a"]), ("reporter", &["a", "b"])],
        ),
    );
    t
}

/// Reporter names resolver as `db`; resolver provides with `provide`.
fn edge(t: &TestMesh, provide: &str) {
    t.edit(
        REPORTER,
        "activate = ",
        "instantiation = [{ module = \"resolver\", as = \"db\" }]\nactivate = ",
    );
    t.edit(
        RESOLVER,
        "activate = ",
        &format!("provide = '{provide}'\nactivate = "),
    );
}

/// A new password every run, the consumer's name in the URL.
const MAKES: &str = r##"echo "# made for $MESH_CONSUMER"; echo "url=postgres://$MESH_AS:pw-$(date +%s%N)@db/$MESH_CONSUMER"; echo "user=$MESH_CONSUMER""##;

fn read(t: &TestMesh, rel: &str) -> String {
    std::fs::read_to_string(t.path(rel)).unwrap_or_default()
}

fn runs(t: &TestMesh, node: &str) -> usize {
    read(t, &format!("nodes/{node}/runs")).lines().count()
}

#[test]
fn credentials_a_provider_makes_reach_its_consumer_and_rotate_on_request() {
    let t = mesh(Some(MAKES));
    let first = t.run_json(&["reconcile"]);
    assert_eq!(first.code, 0, "{first}");
    let url = read(&t, "nodes/a/secrets/reporter/db_url");
    assert!(
        url.starts_with("postgres://db:pw-") && url.ends_with("@db/reporter"),
        "{url:?}"
    );
    assert_eq!(
        read(&t, "nodes/b/secrets/reporter/db_url"),
        url,
        "one set for the consumer"
    );
    assert_eq!(read(&t, "nodes/a/secrets/reporter/db_user"), "reporter");
    assert!(
        !t.path("nodes/a/secrets/resolver").exists(),
        "the provider gets none"
    );
    // Kept by the provider's node encrypted, and nowhere in plain text but the consumer's files.
    assert!(t.path("nodes/a/provided/reporter.db.age").is_file());
    let consumer_files = [
        t.path("nodes/a/secrets/reporter/db_url"),
        t.path("nodes/b/secrets/reporter/db_url"),
    ];
    let except: Vec<&std::path::Path> = consumer_files.iter().map(|p| p.as_path()).collect();
    let found = crate::secrets::holding(t.dir(), url.as_bytes(), &except);
    assert!(found.is_empty(), "the credentials in plain text: {found:?}");
    for args in [
        &["status", "--json"][..],
        &["events", "--json"],
        &["plan", "--json"],
    ] {
        let run = t.run(args);
        assert!(
            !run.stdout.contains(&url) && !run.stderr.contains(&url),
            "{args:?}"
        );
    }
    let graph = t.ok(&["graph"]);
    assert!(graph.contains("(as db: credentials made)"), "{graph}");
    let plan = t.ok(&["plan"]);
    assert!(plan.contains("made"), "plan shows the edge made: {plan}");
    let status = t.json(&["status"]);
    assert_eq!(status["instantiations"][0]["state"], "made", "{status}");

    // Rotation: new credentials, delivered, the consumer activated again on both nodes.
    let (a, b) = (runs(&t, "a"), runs(&t, "b"));
    let again = t.run_json(&["provision", "resolver", "--again"]);
    assert_eq!(again.code, 0, "{again}");
    let rotated = read(&t, "nodes/a/secrets/reporter/db_url");
    assert!(
        rotated.starts_with("postgres://db:pw-") && rotated != url,
        "{rotated:?}"
    );
    assert_eq!(read(&t, "nodes/b/secrets/reporter/db_url"), rotated);
    assert_eq!(
        (runs(&t, "a"), runs(&t, "b")),
        (a + 1, b + 1),
        "re-activated"
    );
    // A pass with nothing new runs nothing again.
    assert_eq!(t.run_json(&["reconcile"]).code, 0);
    assert_eq!((runs(&t, "a"), runs(&t, "b")), (a + 1, b + 1));

    // A rotation that fails keeps what the consumer has, and says so.
    t.edit(RESOLVER, MAKES, "echo cannot reach postgres >&2; exit 2");
    t.commit("platform", "provide breaks");
    assert_eq!(
        t.run_json(&["reconcile"]).code,
        0,
        "made before: nothing to make"
    );
    let failed = t.run_json(&["provision", "resolver", "--again"]);
    assert_eq!(failed.code, 3, "{failed}");
    assert!(failed.stdout.contains("cannot reach postgres"), "{failed}");
    assert_eq!(read(&t, "nodes/a/secrets/reporter/db_url"), rotated);
}

#[test]
fn a_provider_that_fails_leaves_its_consumer_running_and_not_worked_out() {
    let t = mesh(None);
    assert_eq!(t.run_json(&["reconcile"]).code, 0);
    let before = runs(&t, "a");
    edge(&t, "echo no database today >&2; exit 1");
    t.commit("platform", "reporter needs a database");
    let run = t.run_json(&["reconcile"]);
    assert_eq!(run.code, 3, "{run}");
    let status = t.json(&["status"]);
    for node in ["a", "b"] {
        let n = named(&status, "nodes", node);
        let reason = n["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("waiting on resolver (provide failed:")
                && reason.contains("no database today"),
            "{n}"
        );
    }
    assert_eq!(status["instantiations"][0]["state"], "failed", "{status}");
    assert_eq!(
        runs(&t, "a"),
        before,
        "what it ran keeps running, untouched"
    );
    assert!(t.path("nodes/b/modules/reporter/current").exists());
}

#[test]
fn an_edge_added_later_is_made_on_the_providers_node_without_stopping_the_consumer() {
    // Push alone, never a collect: what the node holds is read from it as it is sent.
    let t = mesh(None);
    t.ok(&["build", "--behind"]);
    assert_eq!(t.run_json(&["push"]).code, 0);
    let before = runs(&t, "a");
    edge(&t, MAKES);
    t.commit("platform", "reporter needs a database");
    t.ok(&["build", "--behind"]);
    let run = t.run_json(&["push"]);
    assert_eq!(run.code, 0, "{run}");
    assert!(read(&t, "nodes/a/secrets/reporter/db_url").starts_with("postgres://db:pw-"));
    assert_eq!(
        runs(&t, "a"),
        before + 1,
        "reporter activated once more, with its credentials"
    );
    // Never switched off on the way: no report of a says reporter was removed.
    let reports = std::fs::read_dir(t.path("nodes/a/reports")).expect("reports");
    for r in reports.flatten() {
        let text = std::fs::read_to_string(r.path()).unwrap_or_default();
        assert!(!text.contains("\"removed\""), "{text}");
    }
    t.ok(&["collect"]);
    let node = named(&t.json(&["status"]), "nodes", "a").clone();
    assert_eq!(node["state"], "current", "{node}");
}

/// `t`'s mesh.toml as controller `name`, its node roots under `roots` (absolute), listing
/// `other` (name, identity) under [controllers].
fn as_controller(
    t: &TestMesh,
    text: &str,
    name: &str,
    roots: &std::path::Path,
    other: (&str, &TestMesh),
) {
    let key = mesh::controller::open_key(&other.1.path(".mesh"), other.0).expect("key");
    let line = format!(
        "{} = \"{} {}\"",
        other.0,
        key.public(),
        mesh::controller::age_recipient(&key)
    );
    let text = text
        .replace(
            "name = \"test\"\n",
            &format!("name = \"test\"\ncontroller = \"{name}\"\n"),
        )
        .replace(
            "root = \"nodes/",
            &format!("root = \"{}/nodes/", roots.display()),
        );
    t.write("mesh.toml", &format!("{text}\n[controllers]\n{line}\n"));
}

#[test]
fn a_second_controller_is_handed_the_same_credentials_and_follows_a_rotation() {
    let laptop = mesh(Some(MAKES));
    let cron = TestMesh::new();
    cron.clone_platform_of(&laptop);
    let text = std::fs::read_to_string(laptop.path("mesh.toml")).expect("toml");
    let roots = laptop.dir().to_path_buf();
    as_controller(&laptop, &text, "laptop", &roots, ("cron", &cron));
    as_controller(&cron, &text, "cron", &roots, ("laptop", &laptop));
    assert_eq!(laptop.run_json(&["reconcile"]).code, 0);
    let made = read(&laptop, "nodes/a/secrets/reporter/db_url");
    assert!(made.starts_with("postgres://db:pw-"), "{made:?}");

    // The cron host, with an empty store: handed the same credentials, not made anew.
    let run = cron.run_json(&["reconcile"]);
    assert_eq!(run.code, 0, "{run}");
    assert_eq!(read(&laptop, "nodes/a/secrets/reporter/db_url"), made);
    assert_eq!(read(&laptop, "nodes/b/secrets/reporter/db_url"), made);
    let status = cron.json(&["status"]);
    assert_eq!(status["instantiations"][0]["state"], "made", "{status}");

    // The laptop rotates them; the cron host follows, never declaring the old ones again.
    assert_eq!(
        laptop.run_json(&["provision", "resolver", "--again"]).code,
        0
    );
    let rotated = read(&laptop, "nodes/a/secrets/reporter/db_url");
    assert_ne!(rotated, made);
    for _ in 0..2 {
        assert_eq!(cron.run_json(&["reconcile"]).code, 0);
        assert_eq!(read(&laptop, "nodes/a/secrets/reporter/db_url"), rotated);
    }
    // What the cron host would declare names the rotated ones, as the node's declaration does.
    let digest_of = |declaration: &serde_json::Value| {
        declaration["modules"]
            .as_array()
            .and_then(|ms| ms.iter().find(|m| m["name"] == "reporter"))
            .map(|m| m["secrets"].clone())
            .expect("reporter declared")
    };
    let would = cron.json(&["node", "show", "a"]);
    let in_force: serde_json::Value =
        serde_json::from_slice(&std::fs::read(laptop.path("nodes/a/declaration.json")).unwrap())
            .unwrap();
    assert_eq!(
        digest_of(&would["declaration"]),
        digest_of(&in_force["declaration"])
    );
}

#[test]
fn a_provider_on_another_node_makes_them_in_the_same_push() {
    let t = mesh(Some(MAKES));
    t.write(
        "mesh.toml",
        &local_nodes_toml(
            &[("a", &[]), ("b", &[])],
            &[("resolver", &["a"]), ("reporter", &["b"])],
        ),
    );
    let run = t.run_json(&["reconcile"]);
    assert_eq!(run.code, 0, "{run}");
    assert!(read(&t, "nodes/b/secrets/reporter/db_url").starts_with("postgres://db:pw-"));
    assert!(!t.path("nodes/a/secrets/reporter").exists());
}
