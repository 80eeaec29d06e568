//! Facts: every change of what the mesh knows, appended to the `events` table only when
//! something changed (two identical reports make one fact, not two), read by `mesh events` and
//! handed to the `on_event` hook after they are committed.

mod hook;

pub use hook::run_hooks;

use crate::store::{META, StoreError, Table, Writer, id_key};
use serde::{Deserialize, Serialize};

/// One fact. Serialized with `kind` as the tag; `subject` says what it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Fact {
    /// A module's source id moved.
    SourceMoved {
        /// The module.
        module: String,
        /// Its new source id.
        source: String,
    },
    /// A build ended with a verdict (or outstanding).
    Built {
        /// The module.
        module: String,
        /// The build id.
        build: u64,
        /// fit, unfit, broken, outstanding.
        verdict: String,
    },
    /// A build became the declared one.
    Declared {
        /// The module.
        module: String,
        /// The build id.
        build: u64,
    },
    /// A node now holds a new declaration.
    Sent {
        /// The node.
        node: String,
        /// The declaration's sequence.
        sequence: u64,
        /// Its digest.
        digest: String,
    },
    /// A node now runs this build of this module (read back, from its report).
    Applied {
        /// The node.
        node: String,
        /// The module.
        module: String,
        /// The build.
        build: u64,
    },
    /// A node refused or failed a resource, in its own words.
    Refused {
        /// The node.
        node: String,
        /// The resource (`module:NAME`), or `declaration` for a whole refusal.
        resource: String,
        /// The node's reason.
        reason: String,
    },
    /// The same failure three reports in a row.
    Stuck {
        /// The node.
        node: String,
        /// The failing resources.
        resources: Vec<String>,
    },
    /// A node that needed a person no longer does: a stuck node applied cleanly, or a
    /// trouble that needed a person ended.
    Recovered {
        /// The node.
        node: String,
    },
    /// A node could not be reached.
    Unreachable {
        /// The node.
        node: String,
        /// Why.
        reason: String,
    },
    /// A node that could not be reached was reached.
    Reachable {
        /// The node.
        node: String,
    },
    /// An artifact in `.mesh/artifacts` did not match its digest: it was removed and its
    /// module is built again.
    ArtifactDamaged {
        /// The module it was built for.
        module: String,
        /// The artifact's digest.
        artifact: String,
    },
    /// A node gone from mesh.toml had its records dropped (`mesh node forget`).
    Forgotten {
        /// The node.
        node: String,
    },
    /// mesh could not do its work on a node (its ssh refused us, its mesh failed, it lost what
    /// it was sent); stated once, when the trouble begins or changes.
    Trouble {
        /// The node.
        node: String,
        /// Why, as a sentence.
        reason: String,
    },
    /// The mesh cannot say what a node should run; stated once, when it begins or its reason
    /// changes.
    NotWorkedOut {
        /// The node.
        node: String,
        /// Why.
        reason: String,
    },
    /// A node runs a newer commit declared by another controller: this one did not declare
    /// (it is behind: fetch). Stated once per declaration found.
    Ahead {
        /// The node.
        node: String,
        /// The other controller.
        controller: String,
        /// Why, as a sentence.
        reason: String,
    },
    /// A node runs what another controller declared from another line of history: neither
    /// declares until a person merges or takes over. Stated once per declaration found.
    Diverged {
        /// The node.
        node: String,
        /// The other controller.
        controller: String,
        /// Why, as a sentence.
        reason: String,
    },
    /// `mesh push --take-over` replaced what another controller declared on a node (ahead,
    /// diverged, or running another plan).
    TookOver {
        /// The node.
        node: String,
        /// The controller taken over from.
        from: String,
    },
    /// A node's root answered with another node id than before: it was replaced (wiped,
    /// reinstalled, or the name now reaches another machine).
    NodeReplaced {
        /// The node.
        node: String,
        /// The id it had.
        was: String,
        /// The id it has now.
        now: String,
    },
    /// A build stayed outstanding for the same reason three builds in a row of the same
    /// closure: no run will fix it, a person must.
    BuildStuck {
        /// The module.
        module: String,
        /// The reason the builds gave.
        reason: String,
    },
    /// A node runs what another controller declared from the same commits with another plan
    /// (other modules assigned, other settings): neither declares until a person makes the
    /// two mesh.toml agree or takes over. Stated once per declaration found.
    Differs {
        /// The node.
        node: String,
        /// The other controller.
        controller: String,
        /// What differs, as a sentence.
        reason: String,
    },
    /// A module's check fails on a node that runs it: one fact when it turns unhealthy, not
    /// one per report.
    Unhealthy {
        /// The node.
        node: String,
        /// The module.
        module: String,
        /// The build it runs there.
        build: String,
        /// How the check ended, and its output's tail.
        output: String,
    },
    /// A module's check passes again on a node where it had failed.
    Healthy {
        /// The node.
        node: String,
        /// The module.
        module: String,
    },
    /// A module's rollout of a build stopped: a node that took it failed it, and every node
    /// that took it is declared the previous build again.
    RolloutHalted {
        /// The module.
        module: String,
        /// The build halted.
        build: u64,
        /// The node that failed it.
        node: String,
        /// Why, in the node's words.
        reason: String,
    },
}

impl Fact {
    /// The kind word (`source-moved`, `built`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Fact::SourceMoved { .. } => "source-moved",
            Fact::Built { .. } => "built",
            Fact::Declared { .. } => "declared",
            Fact::Sent { .. } => "sent",
            Fact::Applied { .. } => "applied",
            Fact::Refused { .. } => "refused",
            Fact::Stuck { .. } => "stuck",
            Fact::Recovered { .. } => "recovered",
            Fact::Unreachable { .. } => "unreachable",
            Fact::Reachable { .. } => "reachable",
            Fact::ArtifactDamaged { .. } => "artifact-damaged",
            Fact::Forgotten { .. } => "forgotten",
            Fact::Trouble { .. } => "trouble",
            Fact::BuildStuck { .. } => "build-stuck",
            Fact::Ahead { .. } => "ahead",
            Fact::Diverged { .. } => "diverged",
            Fact::Differs { .. } => "differs",
            Fact::TookOver { .. } => "took-over",
            Fact::NodeReplaced { .. } => "node-replaced",
            Fact::NotWorkedOut { .. } => "not-worked-out",
            Fact::Unhealthy { .. } => "unhealthy",
            Fact::Healthy { .. } => "healthy",
            Fact::RolloutHalted { .. } => "rollout-halted",
        }
    }

    /// What the fact is about: a node or a module.
    pub fn subject(&self) -> &str {
        match self {
            Fact::SourceMoved { module, .. }
            | Fact::Built { module, .. }
            | Fact::Declared { module, .. }
            | Fact::ArtifactDamaged { module, .. }
            | Fact::BuildStuck { module, .. }
            | Fact::RolloutHalted { module, .. } => module,
            Fact::Sent { node, .. }
            | Fact::Applied { node, .. }
            | Fact::Refused { node, .. }
            | Fact::Stuck { node, .. }
            | Fact::Recovered { node }
            | Fact::Unreachable { node, .. }
            | Fact::Reachable { node }
            | Fact::Forgotten { node }
            | Fact::Trouble { node, .. }
            | Fact::NotWorkedOut { node, .. }
            | Fact::Ahead { node, .. }
            | Fact::Diverged { node, .. }
            | Fact::Differs { node, .. }
            | Fact::TookOver { node, .. }
            | Fact::NodeReplaced { node, .. }
            | Fact::Unhealthy { node, .. }
            | Fact::Healthy { node, .. } => node,
        }
    }
}

/// A fact as stored: its sequence, time, and the fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Rises by one per fact.
    pub seq: u64,
    /// Unix milliseconds.
    pub at: u64,
    /// The fact, as JSON (so the store keeps what any version wrote).
    pub fact: String,
}

impl Event {
    /// The JSON object `mesh events --json` prints: `{"seq", "at", "kind", "subject", ...}`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v: serde_json::Value =
            serde_json::from_str(&self.fact).unwrap_or_else(|_| serde_json::json!({}));
        let at = crate::clock::rfc3339(self.at);
        if let Some(o) = v.as_object_mut() {
            let subject = serde_json::from_str::<Fact>(&self.fact)
                .map(|f| f.subject().to_string())
                .unwrap_or_default();
            o.insert("seq".into(), self.seq.into());
            o.insert("at".into(), at.into());
            o.insert("subject".into(), subject.into());
        }
        v
    }
}

/// event sequence (u64, big-endian) → [`Event`]: the facts log.
pub const EVENTS: Table<Event> = Table::new("events");

/// module name → the source id last stated in a `source-moved` fact (or first seen), so a move
/// is stated once, by a verb that changes the mesh, whatever read the sources in between.
pub const ANNOUNCED: Table<String> = Table::new("announced");

/// Appends facts in this transaction, drops the oldest beyond `keep`; returns what was appended.
pub(crate) fn append(
    w: &Writer,
    facts: &[Fact],
    now: u64,
    keep: u64,
) -> Result<Vec<Event>, StoreError> {
    if facts.is_empty() {
        return Ok(Vec::new());
    }
    let mut seq = w.get(META, b"next_event")?.unwrap_or(1);
    let mut out = Vec::new();
    for f in facts {
        let e = Event {
            seq,
            at: now,
            fact: serde_json::to_string(f).unwrap_or_default(),
        };
        w.put(EVENTS, &id_key(seq), &e)?;
        out.push(e);
        seq += 1;
    }
    w.put(META, b"next_event", &seq)?;
    let len = w.len(EVENTS)?;
    if len > keep {
        w.drop_first(EVENTS, len - keep)?;
    }
    Ok(out)
}

/// States `source-moved` for every module whose source id differs from the one last stated
/// (a module seen for the first time is recorded, not stated), in this transaction.
pub(crate) fn announce_sources<'a>(
    w: &Writer,
    modules: impl IntoIterator<Item = (&'a str, &'a str)>,
    now: u64,
    keep: u64,
) -> Result<Vec<Event>, StoreError> {
    let mut facts = Vec::new();
    for (module, source) in modules {
        let old = w.get(ANNOUNCED, module.as_bytes())?;
        if old.as_deref() != Some(source) {
            w.put(ANNOUNCED, module.as_bytes(), source)?;
            if old.is_some() {
                facts.push(Fact::SourceMoved {
                    module: module.to_string(),
                    source: source.to_string(),
                });
            }
        }
    }
    append(w, &facts, now, keep)
}
