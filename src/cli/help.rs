//! How the help reads: the global options under their own heading, shown once by `mesh --help`
//! and named in a line under every verb's; examples in every verb's long help (`--help`) and man
//! page; and the node-side plumbing kept out of `mesh node --help` but documented.
//!
//! Kept in one place, beside the verbs rather than inside them, so adding a verb is one more
//! line in [`EXAMPLES`] (a test fails when a verb has none).

use clap::Command;

/// The heading the global options are listed under in `mesh --help`.
pub const GLOBAL: &str = "Global options";

/// The line under every verb's help that stands for the global options.
pub const GLOBAL_LINE: &str = "Global options: -C DIR, --state FILE, --json, -q, -v, --offline, --color WHEN (see `mesh --help`)";

/// What every verb's `--help` ends with, as (command line, what it does). Keyed by the verb's
/// path below `mesh` (`"node show"`).
pub const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "init",
        &[
            ("mesh init", "write a commented mesh.toml here"),
            (
                "mesh init --example demo",
                "make a demo mesh in the new directory demo",
            ),
            ("mesh init infra --force", "overwrite infra/mesh.toml"),
        ],
    ),
    (
        "graph",
        &[
            ("mesh graph", "the modules and their edges"),
            (
                "mesh graph --why route-proxy geo",
                "the import lines that make that edge",
            ),
            (
                "mesh graph --kind dev",
                "only the edges from tests, benches and examples",
            ),
            (
                "mesh graph --check",
                "exit 3 on a cycle or an ambiguous name (for CI)",
            ),
            (
                "mesh graph --format dot | dot -Tsvg > graph.svg",
                "a picture",
            ),
        ],
    ),
    (
        "drift",
        &[
            (
                "mesh drift",
                "every module's unused, undeclared, dev-only and shipped-dev dependencies",
            ),
            (
                "mesh drift api web --json",
                "the same for two modules, for a script",
            ),
            (
                "mesh drift --check",
                "exit 3 when anything is found (for CI)",
            ),
            (
                "mesh drift --explain web left-pad",
                "why `left-pad` is (or is not) a finding of `web`: every declaration, import and tool",
            ),
        ],
    ),
    (
        "plan",
        &[
            (
                "mesh plan",
                "what would be built, declared and sent, and why",
            ),
            ("mesh plan --json | jq '.nodes[]'", "the same, for a script"),
        ],
    ),
    (
        "build",
        &[
            ("mesh build", "build exactly what is stale"),
            (
                "mesh build route-proxy",
                "build route-proxy and whatever of its inputs is stale",
            ),
            ("mesh build --dry-run", "say what would be built"),
        ],
    ),
    (
        "builds",
        &[
            ("mesh builds", "the newest builds"),
            ("mesh builds geo -n 5", "geo's five newest builds"),
            ("mesh builds --log 12", "the log of build 12"),
        ],
    ),
    (
        "declare",
        &[
            (
                "mesh declare route-proxy",
                "declare route-proxy's newest fit build",
            ),
            (
                "mesh declare route-proxy 12",
                "declare build 12 (a rollback)",
            ),
        ],
    ),
    (
        "push",
        &[
            (
                "mesh push",
                "send every node that is out of date or never told",
            ),
            (
                "mesh push edge-1 @lab",
                "send edge-1 and the nodes tagged lab",
            ),
            (
                "mesh push --all edge-1",
                "send edge-1 again, even if current (a retry after a fix on the node)",
            ),
        ],
    ),
    (
        "collect",
        &[
            ("mesh collect", "read every node's new reports"),
            ("mesh collect edge-1", "only edge-1's"),
        ],
    ),
    (
        "status",
        &[
            (
                "mesh status",
                "every node's state and every module's delivery",
            ),
            ("mesh status --nodes", "only the nodes"),
            (
                "mesh status --check || echo 'needs a look'",
                "exit 3 when a node is not current",
            ),
        ],
    ),
    (
        "reconcile",
        &[
            ("mesh reconcile", "one pass: build, declare, push, collect"),
            (
                "*/5 * * * * cd /srv/mesh && mesh reconcile",
                "from cron: silent unless something needs a person",
            ),
            (
                "mesh --offline reconcile",
                "a pass with the clones of `url` repositories as they are: no fetch",
            ),
        ],
    ),
    (
        "rollout",
        &[
            ("mesh rollout", "every rollout in progress or halted"),
            ("mesh rollout web --json", "web's rollout, for a script"),
            (
                "mesh rollout promote web",
                "give web's new build to its next wave now",
            ),
            (
                "mesh rollout abort web",
                "halt it and put the previous build back",
            ),
        ],
    ),
    (
        "rollout promote",
        &[
            ("mesh rollout promote web", "the next wave now"),
            ("mesh rollout promote web --full", "every node now"),
        ],
    ),
    (
        "rollout abort",
        &[(
            "mesh rollout abort web",
            "halt web's rollout; its nodes are sent the previous build",
        )],
    ),
    (
        "rollout retry",
        &[(
            "mesh rollout retry web",
            "start web's halted build again from the first wave",
        )],
    ),
    (
        "secret",
        &[
            (
                "printf %s \"$PW\" | mesh secret set api DB_PASSWORD",
                "set api's DB_PASSWORD from standard input",
            ),
            (
                "mesh secret list",
                "every secret and the nodes that hold it",
            ),
        ],
    ),
    (
        "secret set",
        &[
            (
                "printf %s \"$PW\" | mesh secret set api DB_PASSWORD",
                "the value from standard input (never the command line)",
            ),
            (
                "mesh secret set web TLS_KEY --file key.pem",
                "the value from a file",
            ),
        ],
    ),
    (
        "secret list",
        &[
            (
                "mesh secret list",
                "names, who set them, which nodes hold them",
            ),
            ("mesh secret list api --json", "api's secrets, for a script"),
        ],
    ),
    (
        "secret rm",
        &[(
            "mesh secret rm api DB_PASSWORD",
            "remove it; the next push removes it from the nodes",
        )],
    ),
    (
        "secret rekey",
        &[(
            "mesh secret rekey",
            "encrypt every secret to the controllers listed now",
        )],
    ),
    (
        "provision",
        &[
            (
                "mesh provision postgres",
                "make the credentials postgres's consumers wait for",
            ),
            (
                "mesh provision postgres --for api --again",
                "make api's anew (rotation) and deliver them",
            ),
        ],
    ),
    (
        "where",
        &[
            (
                "mesh where",
                "is the newest commit of each repository running everywhere it matters?",
            ),
            ("mesh where 3f2a9c1", "follow one commit to every machine"),
            (
                "mesh where HEAD~1 --repo platform --json",
                "the same, in a repository named platform, as JSON",
            ),
            (
                "mesh reconcile; mesh where --wait 10m",
                "in CI: block until the change is live, or say what holds it",
            ),
        ],
    ),
    (
        "id",
        &[
            (
                "mesh id",
                "this controller's line for [controllers] in another mesh.toml",
            ),
            ("mesh id --json", "its name and key, for a script"),
        ],
    ),
    (
        "gc",
        &[
            ("mesh gc --dry-run", "what would be removed, and why"),
            ("mesh gc", "remove what nothing needs"),
        ],
    ),
    (
        "doctor",
        &[
            ("mesh doctor", "check the store and the artifacts"),
            (
                "mesh doctor --repair",
                "remove damaged artifacts so the next run builds them again",
            ),
        ],
    ),
    (
        "events",
        &[
            ("mesh events", "every fact the mesh recorded"),
            ("mesh events --kind refused", "what nodes refused"),
            (
                "mesh events --since 120 --json",
                "facts after 120, one JSON object a line",
            ),
        ],
    ),
    (
        "node",
        &[
            (
                "mesh node list",
                "the nodes, where they are and their state",
            ),
            ("mesh node show edge-1", "everything known about edge-1"),
            ("mesh node install edge-1", "put mesh-node on edge-1"),
            (
                "mesh node forget edge-2",
                "drop the records of edge-2, gone from mesh.toml",
            ),
        ],
    ),
    (
        "node list",
        &[
            ("mesh node list", "every node"),
            ("mesh node list --json", "the same, for a script"),
        ],
    ),
    (
        "node show",
        &[
            ("mesh node show edge-1", "everything known about edge-1"),
            (
                "mesh node show edge-1 --json | jq .last_report",
                "its last report, as it wrote it",
            ),
        ],
    ),
    (
        "node install",
        &[(
            "mesh node install edge-1",
            "copy this mesh to edge-1's ROOT/bin/mesh",
        )],
    ),
    (
        "node trust",
        &[
            (
                "mesh node trust edge-1",
                "which controllers edge-1 takes declarations from",
            ),
            (
                "mesh node trust edge-1 --reset",
                "forget them: the next controller to declare to edge-1 is pinned",
            ),
        ],
    ),
    (
        "node accept",
        &[
            (
                "mesh node accept edge-1",
                "accept the new age key edge-1 offers after it was replaced",
            ),
            (
                "mesh node accept edge-1 --key age1…",
                "only the key read on the node",
            ),
        ],
    ),
    (
        "node forget",
        &[(
            "mesh node forget edge-2",
            "drop edge-2's records after removing it from mesh.toml",
        )],
    ),
    (
        "node have",
        &[(
            "mesh node have --root /var/lib/mesh",
            "what this node holds, as JSON",
        )],
    ),
    (
        "node receive",
        &[(
            "mesh node receive --root /var/lib/mesh < stream",
            "take artifacts and a declaration",
        )],
    ),
    (
        "node apply",
        &[(
            "mesh node apply --root /var/lib/mesh",
            "apply the declaration in force (a node's timer runs this)",
        )],
    ),
    (
        "node report",
        &[(
            "mesh node report --root /var/lib/mesh --since 4",
            "the reports after the fourth",
        )],
    ),
    (
        "node session",
        &[(
            "ssh node 'mesh node session --root /var/lib/mesh'",
            "what the controller runs: have, receive, apply and report through one process",
        )],
    ),
    (
        "node serve",
        &[(
            "mesh node serve --root /var/lib/mesh --idle 300",
            "answer sessions on /var/lib/mesh/.session.sock until none came for 5 minutes",
        )],
    ),
    (
        "completions",
        &[
            (
                "source <(COMPLETE=bash mesh)",
                "bash: completions that know the mesh (in ~/.bashrc)",
            ),
            (
                "mesh completions fish > ~/.config/fish/completions/mesh.fish",
                "fish: the static script",
            ),
        ],
    ),
    (
        "man",
        &[
            ("mesh man | man -l -", "read mesh(1)"),
            (
                "mesh man --out /usr/local/share/man/man1",
                "install every page",
            ),
        ],
    ),
];

/// The node-side commands: run by mesh on a node, not by people. Hidden from `mesh node --help`,
/// documented in their own man pages and named under `mesh node --help`.
pub const PLUMBING: &[&str] = &["have", "receive", "apply", "report", "session", "serve"];

/// The examples of the verb at `path` (`"node show"`).
pub fn examples(path: &str) -> Option<&'static [(&'static str, &'static str)]> {
    EXAMPLES.iter().find(|(p, _)| *p == path).map(|(_, e)| *e)
}

/// Examples as help text: a heading, then each command line with what it does under it.
fn examples_text(examples: &[(&str, &str)]) -> String {
    let mut out = String::from("Examples:\n");
    for (cmd, what) in examples {
        out.push_str(&format!("  {cmd}\n      {what}\n"));
    }
    out
}

/// The command as people read it: examples and the global options line under every verb, and
/// the node-side plumbing hidden from `mesh node --help` (still parsed, still in the man pages).
pub fn decorate(cmd: Command) -> Command {
    decorate_sub(cmd, "")
}

/// What `mesh --help` ends with: where the rest is.
const MORE: &str = "`mesh VERB --help` shows a verb's options and examples; `mesh man | man -l -` \
                    reads mesh(1). Completions that know the mesh's nodes and modules: \
                    `source <(COMPLETE=bash mesh)` (zsh and fish too: see the README).";

fn decorate_sub(mut cmd: Command, path: &str) -> Command {
    if path.is_empty() {
        cmd = cmd.after_help(MORE);
    } else {
        let mut long = String::new();
        if let Some(e) = examples(path) {
            long.push_str(&examples_text(e));
            long.push('\n');
        }
        if path == "node" {
            long.push_str(&format!(
                "Node-side commands, run by mesh on the node over ssh (or for a local node), \
                 each with its man page (mesh-node-have(1) …): {}.\n\n",
                PLUMBING.join(", ")
            ));
        }
        long.push_str(GLOBAL_LINE);
        cmd = cmd.after_help(GLOBAL_LINE).after_long_help(long);
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        let sub_path = if path.is_empty() {
            name.clone()
        } else {
            format!("{path} {name}")
        };
        let hide = path == "node" && PLUMBING.contains(&name.as_str());
        cmd = cmd.mut_subcommand(&name, |s| decorate_sub(s.hide(hide), &sub_path));
    }
    cmd
}

/// The command as it parses: every verb gets its own hidden copy of each global option, so a
/// verb's `--help` shows its own options and the one line standing for the global ones, while
/// `mesh status --json` parses as before (clap copies a global option only into a verb that
/// has none of that name, and hands its value up by name).
pub fn for_parsing(cmd: Command) -> Command {
    let globals: Vec<clap::Arg> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(|a| a.clone().hide(true))
        .collect();
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    let mut cmd = cmd;
    for name in names {
        cmd = cmd.mut_subcommand(&name, |s| s.args(globals.iter().cloned()));
    }
    cmd
}

#[cfg(test)]
mod tests {
    /// Every verb's long help has examples: each verb and each verb under it has an entry.
    #[test]
    fn every_verb_has_examples() {
        let cmd = super::super::command();
        for sub in cmd.get_subcommands() {
            let mut paths = vec![sub.get_name().to_string()];
            paths.extend(
                sub.get_subcommands()
                    .map(|s| format!("{} {}", sub.get_name(), s.get_name())),
            );
            for p in paths {
                assert!(
                    super::examples(&p).is_some(),
                    "`mesh {p}` has no examples in cli::help::EXAMPLES"
                );
            }
        }
    }
}
