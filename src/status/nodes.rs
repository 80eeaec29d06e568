//! `mesh status`: every node's state and every module's delivery line, from the store alone
//! (and the repositories' refs, for "source"). One value feeds both the tables and `--json`.

use crate::Result;
use crate::clock::{now_ms, rfc3339};
use crate::config::MeshConfig;
use crate::declare::{Composed, compose};
use crate::store::{BuildRecord, LATEST, NodeRecord, Paths};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// A digest and sequence, with when.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Stamp {
    /// The declaration's digest.
    pub digest: String,
    /// Its sequence.
    pub sequence: u64,
    /// RFC 3339 UTC, when it happened (absent for a would-send).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// The current failure streak.
#[derive(Debug, Clone, Serialize)]
pub struct FailureJson {
    /// When it began.
    pub since: String,
    /// Reports in a row.
    pub count: u64,
    /// The failing resources.
    pub resources: Vec<String>,
    /// The node's words, newest report.
    pub reasons: Vec<String>,
}

/// One node (DESIGN.md §14).
#[derive(Debug, Clone, Serialize)]
pub struct NodeStatus {
    /// The node.
    pub name: String,
    /// not worked out · never told · out of date · stuck · failed · outstanding · current.
    pub state: &'static str,
    /// Why, where there is a why.
    pub reason: Option<String>,
    /// The last time mesh reached it.
    pub last_seen: Option<String>,
    /// Since when it cannot be reached.
    pub unreachable_since: Option<String>,
    /// Current, but not seen for longer than `silent_after`.
    pub silent: bool,
    /// What it would be sent now.
    pub declared: Option<Stamp>,
    /// What it was last sent (and confirmed holding).
    pub sent: Option<Stamp>,
    /// What it last reported applied.
    pub applied: Option<Stamp>,
    /// The failure streak about the declaration it was sent.
    pub failure: Option<FailureJson>,
    /// Its mesh version, as it last said.
    pub host_version: Option<String>,
    /// Reports that could not be read.
    pub unreadable: Vec<String>,
    /// Unix ms of last seen, for ages in tables.
    #[serde(skip)]
    pub last_seen_ms: Option<u64>,
}

/// One module's delivery line.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleStatus {
    /// The module.
    pub name: String,
    /// The commit its repository's ref points at now.
    pub source: Option<String>,
    /// The commit its newest build was made from.
    pub built_from: Option<String>,
    /// Its newest build's verdict.
    pub verdict: Option<crate::build::Verdict>,
    /// Nodes it is declared on.
    pub declared_on: usize,
    /// Nodes that reported applying its declared build.
    pub applied_on: usize,
    /// Nodes where it has not been applied yet: not failure.
    pub outstanding_on: usize,
    /// Nodes where applying it failed.
    pub failed_on: usize,
}

/// A node the store has records of that mesh.toml no longer names: it may still run what it
/// was last sent, so it is listed until `mesh node forget` drops its records.
#[derive(Debug, Clone, Serialize)]
pub struct ForgottenNode {
    /// The node.
    pub name: String,
    /// The sequence of the declaration it last reported applying.
    pub applied: Option<u64>,
    /// The modules of that declaration.
    pub modules: Vec<String>,
    /// The last time mesh reached it.
    pub last_seen: Option<String>,
}

/// The whole status.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    /// Nodes, sorted by name.
    pub nodes: Vec<NodeStatus>,
    /// Modules, sorted by name.
    pub modules: Vec<ModuleStatus>,
    /// Nodes gone from mesh.toml whose records the store keeps, sorted by name.
    pub forgotten: Vec<ForgottenNode>,
}

/// The nodes in `records` that mesh.toml does not name, sorted by name.
pub fn forgotten(mesh: &MeshConfig, records: &HashMap<String, NodeRecord>) -> Vec<ForgottenNode> {
    let mut out: Vec<ForgottenNode> = records
        .iter()
        .filter(|(name, _)| !mesh.nodes.contains_key(*name))
        .map(|(name, rec)| ForgottenNode {
            name: name.clone(),
            applied: rec.applied.as_ref().map(|a| a.sequence),
            modules: rec.applied_builds.iter().map(|(m, _)| m.clone()).collect(),
            last_seen: rec.last_seen.map(rfc3339),
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

impl Status {
    /// Whether anything is not current (or is silent): what `--check` exits 3 for.
    pub fn needs_a_look(&self) -> bool {
        self.nodes.iter().any(|n| n.state != "current" || n.silent)
    }
}

/// "4 days ago", "20 minutes ago", "just now".
pub fn ago(ms: u64, now: u64) -> String {
    let s = now.saturating_sub(ms) / 1000;
    let (n, unit) = match s {
        0..=59 => return "just now".into(),
        60..=3599 => (s / 60, "minute"),
        3600..=86_399 => (s / 3600, "hour"),
        _ => (s / 86_400, "day"),
    };
    format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" })
}

/// Computes the status.
pub fn status(paths: &Paths, mesh: &MeshConfig) -> Result<Status> {
    let now = now_ms();
    let (composed, records, latest) = {
        let store = paths.open()?;
        store.read(|r| {
            let declared = compose::declared(r)?;
            let records = crate::store::node_records(r)?;
            let latest: BTreeMap<String, BuildRecord> = r
                .range::<BuildRecord>(LATEST, b"", None)?
                .into_iter()
                .map(|(_, b)| (b.module.clone(), b))
                .collect();
            Ok((compose::compose_all(mesh, &declared), records, latest))
        })?
    };
    let heads = crate::source::head_commits(mesh);
    let empty = NodeRecord::default();
    let mut nodes = Vec::new();
    for (name, c) in &composed {
        let rec = records.get(name).unwrap_or(&empty);
        nodes.push(node_status(mesh, name, c, rec, now));
    }
    let mut names: Vec<String> = latest.keys().cloned().collect();
    for a in &mesh.assign {
        if !names.contains(&a.module) {
            names.push(a.module.clone());
        }
    }
    names.sort();
    // One pass over the nodes: per module, (declared on, applied on, failed on).
    let mut counts: HashMap<&str, (usize, usize, usize)> = HashMap::new();
    for (node, c) in &composed {
        let Composed::Ready { builds, .. } = c else {
            continue;
        };
        let rec = records.get(node).unwrap_or(&empty);
        let current = rec.applied_what_was_sent();
        let failure = rec.failure_of_sent();
        for (m, build) in builds {
            let e = counts.entry(m.as_str()).or_default();
            e.0 += 1;
            if current
                && rec
                    .applied_builds
                    .iter()
                    .any(|(am, ab)| am == m && ab == build)
            {
                e.1 += 1;
            } else if failure.is_some_and(|f| {
                f.resources
                    .iter()
                    .any(|r| r.strip_prefix("module:") == Some(m.as_str()))
            }) {
                e.2 += 1;
            }
        }
    }
    let modules = names
        .into_iter()
        .map(|m| {
            let l = latest.get(&m);
            let (on, applied, failed) = counts.get(m.as_str()).copied().unwrap_or_default();
            ModuleStatus {
                source: l.and_then(|l| heads.get(&l.repo).cloned()),
                built_from: l.map(|l| l.commit.clone()),
                verdict: l.map(|l| l.verdict),
                declared_on: on,
                applied_on: applied,
                outstanding_on: on - applied - failed,
                failed_on: failed,
                name: m,
            }
        })
        .collect();
    let forgotten = forgotten(mesh, &records);
    Ok(Status {
        nodes,
        modules,
        forgotten,
    })
}

fn node_status(
    mesh: &MeshConfig,
    name: &str,
    c: &Composed,
    rec: &NodeRecord,
    now: u64,
) -> NodeStatus {
    let stamp = |s: &crate::store::Sent| Stamp {
        digest: s.digest.clone(),
        sequence: s.sequence,
        at: Some(rfc3339(s.at)),
    };
    let sent = rec.sent.as_ref().map(stamp);
    let applied = rec.applied.as_ref().map(stamp);
    let would = c.digest();
    let declared = would.as_ref().map(|d| Stamp {
        digest: d.clone(),
        sequence: match &rec.sent {
            Some(s) if &s.digest == d => s.sequence,
            Some(s) => s.sequence + 1,
            None => 1,
        },
        at: None,
    });
    let failure = rec.failure_of_sent();
    let silent_after = mesh.settings.silent_after.as_millis() as u64;
    let (state, reason): (&'static str, Option<String>) = match c {
        Composed::NotWorkedOut(r) => ("not worked out", Some(r.clone())),
        _ if rec.sent.is_none() => ("never told", None),
        _ if would.as_ref() != rec.sent.as_ref().map(|s| &s.digest) => ("out of date", None),
        _ => match failure {
            Some(f) if f.count >= crate::status::account::STUCK_AFTER => (
                "stuck",
                Some(format!(
                    "{} reports in a row: {}",
                    f.count,
                    f.resources.join(", ")
                )),
            ),
            Some(f) => ("failed", Some(f.reasons.join("; "))),
            None if !rec.applied_what_was_sent() => ("outstanding", None),
            None => ("current", None),
        },
    };
    let silent = state == "current"
        && rec
            .last_seen
            .is_none_or(|t| now.saturating_sub(t) > silent_after);
    NodeStatus {
        name: name.to_string(),
        state,
        reason: reason.or_else(|| rec.unreachable_reason.clone()),
        last_seen: rec.last_seen.map(rfc3339),
        unreachable_since: rec.unreachable_since.map(rfc3339),
        silent,
        declared,
        sent,
        applied,
        failure: failure.map(|f| FailureJson {
            since: rfc3339(f.since),
            count: f.count,
            resources: f.resources.clone(),
            reasons: f.reasons.clone(),
        }),
        host_version: rec.host_version.clone(),
        unreadable: rec.unreadable.clone(),
        last_seen_ms: rec.last_seen,
    }
}
