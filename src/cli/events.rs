//! `mesh events`: the facts log.

use super::{Ctx, Ui};
use mesh::Result;
use mesh::events::EVENTS;
use mesh::events::Event;
use std::fmt::Write;

/// List the facts the mesh recorded: source-moved, built, declared, sent, applied, refused,
/// stuck, recovered, unreachable, reachable, trouble, build-stuck, not-worked-out,
/// artifact-damaged, forgotten, ahead, diverged, took-over, node-replaced, unhealthy, healthy,
/// rollout-halted.
///
/// A fact is recorded only when something changed. With `--json`, one JSON object a line:
/// `{"seq", "at", "kind", "subject", ...}`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only facts after this sequence.
    #[arg(long, value_name = "SEQ", default_value_t = 0)]
    since: u64,
    /// Only facts of this kind.
    #[arg(long, value_name = "KIND", value_enum)]
    kind: Option<Kind>,
}

/// The kinds of fact, as `--kind` takes them (a word not among them is a usage error that
/// lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// A module's source moved.
    SourceMoved,
    /// A build ended, with its verdict.
    Built,
    /// A build became the declared one.
    Declared,
    /// A node now holds a new declaration.
    Sent,
    /// A node runs a build of a module (read back).
    Applied,
    /// A node refused or failed a resource.
    Refused,
    /// The same failure three reports in a row.
    Stuck,
    /// A stuck node applied cleanly.
    Recovered,
    /// A node could not be reached.
    Unreachable,
    /// A node that could not be reached was reached.
    Reachable,
    /// mesh could not do its work on a node (refused, its mesh failed, it lost what it held).
    Trouble,
    /// A build stayed outstanding for the same reason three times in a row.
    BuildStuck,
    /// The mesh cannot say what a node should run.
    NotWorkedOut,
    /// An artifact did not match its digest: removed, and its module built again.
    ArtifactDamaged,
    /// A node gone from mesh.toml had its records dropped.
    Forgotten,
    /// A node runs newer commits another controller declared: this one did not declare.
    Ahead,
    /// A node runs another controller's declaration from a diverged history.
    Diverged,
    /// A node runs another controller's declaration from the same commits with another plan.
    Differs,
    /// `mesh push --take-over` replaced another controller's declaration.
    TookOver,
    /// A node's root answered with a new node id: it was replaced.
    NodeReplaced,
    /// A module's check fails on a node that runs it.
    Unhealthy,
    /// A module's check passes again on a node where it had failed.
    Healthy,
    /// A node failed a rollout's build: it was halted and put back.
    RolloutHalted,
}

impl Kind {
    /// The word the fact carries in its `kind` field.
    pub fn word(self) -> String {
        use clap::ValueEnum;
        self.to_possible_value()
            .map(|v| v.get_name().to_string())
            .unwrap_or_default()
    }
}

/// Runs `mesh events` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let events: Vec<Event> = {
        let store = ctx.paths().open()?;
        let from = mesh::store::id_key(a.since.saturating_add(1));
        store
            .read(|r| r.range(EVENTS, &from, None))?
            .into_iter()
            .map(|(_, e)| e)
            .collect()
    };
    let mut out = String::new();
    for e in &events {
        let v = e.to_json();
        if a.kind.is_some_and(|k| v["kind"] != k.word().as_str()) {
            continue;
        }
        if ui.json {
            let _ = writeln!(out, "{v}");
        } else {
            let mut details: Vec<String> = Vec::new();
            if let Some(o) = v.as_object() {
                for (k, val) in o {
                    if !matches!(
                        k.as_str(),
                        "seq" | "at" | "kind" | "subject" | "node" | "module"
                    ) {
                        let shown = val.as_str().map_or_else(|| val.to_string(), str::to_string);
                        details.push(format!("{k}={shown}"));
                    }
                }
            }
            let line = format!(
                "{:>5}  {}  {:<12} {:<16} {}",
                e.seq,
                v["at"].as_str().unwrap_or(""),
                v["kind"].as_str().unwrap_or(""),
                v["subject"].as_str().unwrap_or(""),
                details.join(" ")
            );
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    if !out.is_empty() {
        ui.data(out);
    }
    Ok(0)
}
