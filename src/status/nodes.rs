//! `mesh status`: every node's state and every module's delivery line, from the store alone
//! (and the repositories' refs, for "source"). One value feeds both the tables and `--json`.

use crate::Result;
use crate::clock::{now_ms, rfc3339};
use crate::config::MeshConfig;
use crate::declare::{Composed, compose};
use crate::source::Snapshot;
use crate::store::{
    BuildRecord, DeclaredElsewhere, Failure, LATEST, NodeHealth, NodeRecord, OUTSTANDING,
    OutstandingStreak, Paths, Relation, Trouble,
};
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

/// What stopped mesh doing its work on a node.
#[derive(Debug, Clone, Serialize)]
pub struct TroubleJson {
    /// When it began.
    pub since: String,
    /// How many times in a row it was found.
    pub count: u64,
    /// Why, as a sentence.
    pub reason: String,
}

/// What a node's state is, from the store alone: each a word in tables and JSON. An enum so
/// that a new state is a compile error wherever states are handled, never a string that
/// silently matches nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum NodeState {
    /// No declaration can be composed for it (its inventory has no declared fit build).
    #[serde(rename = "not worked out")]
    NotWorkedOut,
    /// It runs what another controller declared from a history that diverged from ours:
    /// neither declares until a person merges or takes over.
    #[serde(rename = "diverged")]
    Diverged,
    /// It runs newer commits from another controller: this one is behind (fetch).
    #[serde(rename = "ahead")]
    Ahead,
    /// It runs what another controller declared from the same commits with another plan
    /// (other modules assigned, other settings): neither declares until a person settles it.
    #[serde(rename = "differs")]
    Differs,
    /// Never sent anything (or it lost what it was sent).
    #[serde(rename = "never told")]
    NeverTold,
    /// Sent something other than what it would be sent now.
    #[serde(rename = "out of date")]
    OutOfDate,
    /// The same failure (or trouble) three times in a row: a person must act.
    #[serde(rename = "stuck")]
    Stuck,
    /// A module's new version failed on it and the node went back to the version that ran
    /// before: it runs, but not what it was sent.
    #[serde(rename = "rolled back")]
    RolledBack,
    /// Its apply failed, or mesh cannot do its work there.
    #[serde(rename = "failed")]
    Failed,
    /// It applied what it was sent, and a module's check fails there now: it runs, and does
    /// not work.
    #[serde(rename = "unhealthy")]
    Unhealthy,
    /// Sent what it should run; not yet reported applied.
    #[serde(rename = "outstanding")]
    Outstanding,
    /// Reported applying what it should run.
    #[serde(rename = "current")]
    Current,
}

impl NodeState {
    /// The word used in tables and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeState::NotWorkedOut => "not worked out",
            NodeState::Diverged => "diverged",
            NodeState::Ahead => "ahead",
            NodeState::Differs => "differs",
            NodeState::NeverTold => "never told",
            NodeState::OutOfDate => "out of date",
            NodeState::Stuck => "stuck",
            NodeState::RolledBack => "rolled back",
            NodeState::Failed => "failed",
            NodeState::Unhealthy => "unhealthy",
            NodeState::Outstanding => "outstanding",
            NodeState::Current => "current",
        }
    }

    /// Whether a person must act on a node in this state (trouble aside).
    pub fn needs_a_person(self) -> bool {
        matches!(
            self,
            NodeState::NotWorkedOut
                | NodeState::Diverged
                | NodeState::Ahead
                | NodeState::Differs
                | NodeState::Stuck
                | NodeState::RolledBack
                | NodeState::Failed
                | NodeState::Unhealthy
        )
    }
}

impl std::fmt::Display for NodeState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One node.
#[derive(Debug, Clone, Serialize)]
pub struct NodeStatus {
    /// The node.
    pub name: String,
    /// Its state.
    pub state: NodeState,
    /// Why, where there is a why.
    pub reason: Option<String>,
    /// The controller that declared what it runs, as far as mesh knows: this one when it
    /// holds what this one sent, another when it was found running another's.
    pub controller: Option<String>,
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
    /// Reports that could not be read, or were not believed.
    pub unreadable: Vec<String>,
    /// What stopped mesh doing its work on the node (its ssh refused us, its mesh failed, it
    /// lost what it was sent), while it lasts.
    pub trouble: Option<TroubleJson>,
    /// Whether a person must act: the node is not worked out, stuck, rolled back or failed, or its trouble
    /// is one no run repairs. What `reconcile` exits 3 for.
    pub needs_a_person: bool,
    /// Each module it is declared on, by name, and what became of it there: the page's grid.
    pub modules: Vec<ModuleOnNode>,
    /// Unix ms of last seen, for ages in tables.
    #[serde(skip)]
    pub last_seen_ms: Option<u64>,
}

/// One module on one node: the build it is declared and what became of it there.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleOnNode {
    /// The module.
    pub name: String,
    /// The build the node is declared (would be sent).
    pub build: u64,
    /// What became of it.
    pub state: Delivery,
    /// What its check said of the build that runs there, when it has a check and runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health: Option<super::health::HealthJson>,
}

/// What became of a module's declared build on a node, as a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Delivery {
    /// The node reported running it.
    #[serde(rename = "applied")]
    Applied,
    /// The node reported running it, and its check fails there.
    #[serde(rename = "unhealthy")]
    Unhealthy,
    /// Sent; no report of applying it yet.
    #[serde(rename = "outstanding")]
    Outstanding,
    /// Applying it failed.
    #[serde(rename = "failed")]
    Failed,
    /// It failed and the node went back to the version that ran before.
    #[serde(rename = "rolled back")]
    RolledBack,
    /// It failed, and going back failed too: neither version runs.
    #[serde(rename = "down")]
    Down,
    /// Not sent yet (the node is out of date or never told).
    #[serde(rename = "not sent")]
    NotSent,
    /// The node holds another controller's declaration in place of this one's (the node's line
    /// says whose): whatever this controller's records say of it, its build is not said to
    /// run there.
    #[serde(rename = "elsewhere")]
    Elsewhere,
}

impl Delivery {
    /// The word used in JSON and on the page.
    pub fn as_str(self) -> &'static str {
        match self {
            Delivery::Applied => "applied",
            Delivery::Unhealthy => "unhealthy",
            Delivery::Outstanding => "outstanding",
            Delivery::Failed => "failed",
            Delivery::RolledBack => "rolled back",
            Delivery::Down => "down",
            Delivery::NotSent => "not sent",
            Delivery::Elsewhere => "elsewhere",
        }
    }
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
    pub verdict: Option<crate::store::Verdict>,
    /// Why its newest build is not fit (the build's own words), when it is not.
    pub reason: Option<String>,
    /// Nodes it is declared on.
    pub declared_on: usize,
    /// Nodes that reported applying its declared build.
    pub applied_on: usize,
    /// Nodes where it has not been applied yet: not failure.
    pub outstanding_on: usize,
    /// Nodes where applying it failed.
    pub failed_on: usize,
    /// Nodes that applied it where its check fails (counted in `applied_on` too).
    pub unhealthy_on: usize,
    /// Nodes it is declared on that were not sent it yet (out of date, never told).
    pub not_sent_on: usize,
    /// Nodes that hold another controller's declaration in place of this one's.
    pub elsewhere_on: usize,
    /// The commit its declared build (what the nodes are sent) was made from: not the newest
    /// build's when that one is unfit, broken, outstanding or held.
    pub declared_from: Option<String>,
    /// Its builds stayed outstanding for the same reason three times in a row for its current
    /// closure (*stuck outstanding*): the reason. No run will fix it; a person must.
    pub stuck: Option<String>,
    /// Its rollout in progress or halted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rollout: Option<crate::rollout::RolloutStatus>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    declared: usize,
    applied: usize,
    unhealthy: usize,
    failed: usize,
    not_sent: usize,
    elsewhere: usize,
}

/// The reason a module's newest build is *stuck outstanding*: outstanding for the same reason
/// [`crate::store::STUCK_AFTER`] builds in a row of the same closure.
pub(crate) fn stuck_outstanding(
    latest: &BuildRecord,
    streak: Option<&OutstandingStreak>,
) -> Option<String> {
    let s = streak?;
    (latest.verdict == crate::store::Verdict::Outstanding
        && s.closure == latest.closure
        && s.count >= crate::store::STUCK_AFTER)
        .then(|| format!("outstanding {} builds in a row: {}", s.count, s.reason))
}

/// What the node's newest report about the declaration it was sent says, read once: the
/// modules it read back `ok` (a module can be running while another failed beside it), and
/// one line per module that failed and was switched back (or is down). Only the fields these
/// need are read: the report's health is the store's `health` table's to say.
fn said_of_sent(
    rec: &NodeRecord,
) -> (
    std::collections::BTreeSet<String>,
    Vec<(String, mesh_node::RolledBack)>,
) {
    #[derive(serde::Deserialize)]
    struct Said {
        declaration: Option<mesh_node::Held>,
        resources: Vec<Line>,
    }
    #[derive(serde::Deserialize)]
    struct Line {
        id: String,
        outcome: mesh_node::ResourceOutcome,
        #[serde(default)]
        rolled_back: Option<mesh_node::RolledBack>,
    }
    let (Some(sent), Some(raw)) = (&rec.sent, &rec.last_report) else {
        return Default::default();
    };
    let Ok(said) = serde_json::from_str::<Said>(raw) else {
        return Default::default();
    };
    if said.declaration.as_ref().map(|h| (&h.digest, h.sequence))
        != Some((&sent.digest, sent.sequence))
    {
        return Default::default();
    }
    let mut ok = std::collections::BTreeSet::new();
    let mut back = Vec::new();
    for r in said.resources {
        let module = r.id.trim_start_matches("module:").to_string();
        if r.outcome == mesh_node::ResourceOutcome::Ok && r.id.starts_with("module:") {
            ok.insert(module.clone());
        }
        if let Some(b) = r.rolled_back {
            back.push((module, b));
        }
    }
    (ok, back)
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

/// A repository followed by URL whose last fetch failed: mesh reads what it fetched before.
#[derive(Debug, Clone, Serialize)]
pub struct FetchFailed {
    /// The repository.
    pub repo: String,
    /// What failed and what is read instead, as one sentence.
    pub reason: String,
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
    /// Repositories followed by URL whose last fetch failed, in mesh.toml's order.
    pub fetch_failed: Vec<FetchFailed>,
    /// Each instantiation edge performed (its provider has a `provide`): made, waiting or
    /// failed.
    pub instantiations: Vec<crate::secrets::provided::EdgeState>,
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
    /// The states of the nodes a push can reach (not unreachable, not refusing us): what the
    /// "N nodes are behind: `mesh push --behind`" hint counts.
    pub fn pushable_states(&self) -> impl Iterator<Item = NodeState> + '_ {
        self.nodes
            .iter()
            .filter(|n| n.unreachable_since.is_none() && n.trouble.is_none())
            .map(|n| n.state)
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

/// One pass over the nodes: per module, how many nodes it is declared on, applied on, failed
/// on, not yet sent to, and holding another controller's declaration instead (the rest are
/// outstanding: sent, no report yet); and per node, what became of each module declared on it.
fn module_counts<'a>(
    composed: &'a BTreeMap<String, Composed>,
    records: &HashMap<String, NodeRecord>,
    health: &HashMap<String, NodeHealth>,
    elsewhere: &HashMap<String, DeclaredElsewhere>,
) -> (HashMap<&'a str, Counts>, HashMap<String, Vec<ModuleOnNode>>) {
    let empty = NodeRecord::default();
    let no_health = NodeHealth::default();
    let mut counts: HashMap<&str, Counts> = HashMap::new();
    let mut cells: HashMap<String, Vec<ModuleOnNode>> = HashMap::new();
    for (node, c) in composed {
        let Composed::Ready { builds, .. } = c else {
            continue;
        };
        let rec = records.get(node).unwrap_or(&empty);
        let (ok, back) = said_of_sent(rec);
        let failure = rec.failure_of_sent();
        let said = health.get(node).unwrap_or(&no_health);
        let foreign = elsewhere.get(node).is_some_and(|e| !e.keeps_ours());
        let row = cells.entry(node.clone()).or_default();
        for (m, build) in builds {
            let e = counts.entry(m.as_str()).or_default();
            e.declared += 1;
            let pair = (m.clone(), *build);
            let state = if foreign {
                e.elsewhere += 1;
                Delivery::Elsewhere
            } else if !rec.sent_builds.contains(&pair) {
                e.not_sent += 1;
                Delivery::NotSent
            } else if (rec.applied_what_was_sent() && rec.applied_builds.contains(&pair))
                || ok.contains(m.as_str())
            {
                e.applied += 1;
                match said.modules.get(m) {
                    Some(h) if !h.healthy && h.build == build.to_string() => {
                        e.unhealthy += 1;
                        Delivery::Unhealthy
                    }
                    _ => Delivery::Applied,
                }
            } else if failure.is_some_and(|f| {
                f.resources
                    .iter()
                    .any(|r| r.strip_prefix("module:") == Some(m.as_str()))
            }) {
                e.failed += 1;
                match back.iter().find(|(b, _)| b == m) {
                    Some((_, b)) if b.down => Delivery::Down,
                    Some(_) => Delivery::RolledBack,
                    None => Delivery::Failed,
                }
            } else {
                Delivery::Outstanding
            };
            row.push(ModuleOnNode {
                name: m.clone(),
                build: *build,
                state,
                health: said
                    .modules
                    .get(m)
                    .map(|h| super::health::HealthJson::of(h, *build)),
            });
        }
        row.sort_by(|a, b| a.name.cmp(&b.name));
    }
    (counts, cells)
}

/// Computes the status of the mesh as `sources` read it (the one validated reading: modules
/// gone from the repositories are not listed, a repository that cannot be read is an error,
/// never a table of current nodes).
pub fn status(paths: &Paths, mesh: &MeshConfig, sources: &Snapshot) -> Result<Status> {
    let now = now_ms();
    let Stored {
        composed,
        records,
        latest,
        troubles,
        streaks,
        declared_from,
        elsewhere,
        health,
        rollouts,
        instantiations,
    } = Stored::read(paths, mesh, now)?;
    let heads: BTreeMap<&str, String> = sources
        .repos
        .iter()
        .map(|r| (r.name.as_str(), r.commit.to_string()))
        .collect();
    let empty = NodeRecord::default();
    let mut nodes = Vec::new();
    for (name, c) in &composed {
        let rec = records.get(name).unwrap_or(&empty);
        nodes.push(node_status(
            mesh,
            name,
            c,
            rec,
            (troubles.get(name), elsewhere.get(name)),
            health.get(name),
            now,
        ));
    }
    // The modules the repositories hold now (sorted by name): a deleted module is not listed.
    let names: Vec<String> = sources
        .modules
        .iter()
        .map(|m| m.name().to_string())
        .collect();
    let (counts, mut cells) = module_counts(&composed, &records, &health, &elsewhere);
    for n in &mut nodes {
        n.modules = cells.remove(&n.name).unwrap_or_default();
    }
    let modules = names
        .into_iter()
        .map(|m| {
            let l = latest.get(&m);
            let n = counts.get(m.as_str()).copied().unwrap_or_default();
            ModuleStatus {
                source: sources
                    .module(&m)
                    .and_then(|s| heads.get(sources.repo_of(s).name.as_str()).cloned()),
                built_from: l.map(|l| l.commit.clone()),
                verdict: l.map(|l| l.verdict),
                reason: l
                    .filter(|l| l.verdict != crate::store::Verdict::Fit)
                    .and_then(|l| l.reason.clone()),
                declared_on: n.declared,
                applied_on: n.applied,
                outstanding_on: n.declared - n.applied - n.failed - n.not_sent - n.elsewhere,
                failed_on: n.failed,
                unhealthy_on: n.unhealthy,
                not_sent_on: n.not_sent,
                elsewhere_on: n.elsewhere,
                stuck: l.and_then(|l| stuck_outstanding(l, streaks.get(&m))),
                declared_from: declared_from.get(&m).cloned(),
                rollout: rollouts.iter().find(|r| r.module == m).cloned(),
                name: m,
            }
        })
        .collect();
    let forgotten = forgotten(mesh, &records);
    Ok(Status {
        nodes,
        modules,
        forgotten,
        fetch_failed: fetch_failed(mesh, sources),
        instantiations,
    })
}

/// What the status is made from, read from the store in one transaction.
struct Stored {
    /// Every node's declaration as it would be composed now.
    composed: BTreeMap<String, compose::Composed>,
    records: HashMap<String, NodeRecord>,
    /// Each module's newest build.
    latest: BTreeMap<String, BuildRecord>,
    troubles: HashMap<String, crate::store::Trouble>,
    streaks: HashMap<String, OutstandingStreak>,
    /// Each declared module's commit.
    declared_from: HashMap<String, String>,
    elsewhere: HashMap<String, crate::store::DeclaredElsewhere>,
    /// What each node's module checks said.
    health: HashMap<String, NodeHealth>,
    /// Every rollout in progress or halted.
    rollouts: Vec<crate::rollout::RolloutStatus>,
    /// Every instantiation edge performed.
    instantiations: Vec<crate::secrets::provided::EdgeState>,
}

impl Stored {
    fn read(paths: &Paths, mesh: &MeshConfig, now: u64) -> Result<Stored> {
        let store = paths.open()?;
        Ok(store.read(|r| {
            let fleet = crate::rollout::Fleet::read_judged(r)?;
            let compose::Stored {
                declared,
                composed,
                provided,
                ..
            } = compose::stored_in(r, mesh, &fleet)?;
            let rollouts = crate::rollout::list(r, mesh, &[], &fleet, now)?;
            let crate::rollout::Fleet {
                records, health, ..
            } = fleet;
            Ok(Stored {
                composed,
                records,
                rollouts,
                latest: r
                    .range(LATEST, b"", None)?
                    .into_iter()
                    .map(|(_, b)| (b.module.clone(), b))
                    .collect(),
                troubles: crate::deliver::trouble::all(r)?,
                streaks: r.by_name(OUTSTANDING)?,
                declared_from: declared
                    .iter()
                    .map(|(m, b)| (m.clone(), b.commit.clone()))
                    .collect(),
                elsewhere: crate::deliver::elsewhere::all(r)?,
                health,
                instantiations: crate::secrets::provided::states(&declared, &provided),
            })
        })?)
    }
}

/// The repositories followed by URL whose last fetch failed: in this run (as `sources` read
/// them), or in an earlier one with no good fetch since (the clone's note).
fn fetch_failed(mesh: &MeshConfig, sources: &Snapshot) -> Vec<FetchFailed> {
    mesh.repos
        .iter()
        .filter(|cfg| cfg.url.is_some())
        .filter_map(|cfg| {
            let read = sources.repos.iter().find(|r| r.name == cfg.name);
            let reason = match read.and_then(|r| r.stale.clone()) {
                Some(now) => now,
                None => {
                    let why = crate::source::follow::last_fetch_failed(&cfg.path)?;
                    let reading = read.map_or_else(String::new, |r| {
                        format!(
                            "; reading {} from the last fetch",
                            r.commit.to_hex_with_len(7)
                        )
                    });
                    let when = crate::source::follow::last_fetch_said(&cfg.path)
                        .map_or_else(String::new, |t| format!(" (made {t})"));
                    format!(
                        "the last fetch of `{}` failed: {why}{reading}{when}",
                        cfg.name
                    )
                }
            };
            Some(FetchFailed {
                repo: cfg.name.clone(),
                reason,
            })
        })
        .collect()
}

/// A node's state and why, decided in this order: not worked out; stuck on the same
/// repairable trouble; a lost declaration that failed; never told; out of date; trouble no
/// run repairs; then its failure streak, outstanding, or current.
fn state_of(
    c: &Composed,
    rec: &NodeRecord,
    (trouble, elsewhere): (Option<&Trouble>, Option<&DeclaredElsewhere>),
    failure: Option<&Failure>,
    lost: bool,
) -> (NodeState, Option<String>) {
    let trouble_reason = trouble.map(|t| t.reason.clone());
    match c {
        Composed::NotWorkedOut(r) => (NodeState::NotWorkedOut, Some(r.clone())),
        _ if let Some(e) = elsewhere.filter(|e| e.relation != Relation::Newer) => {
            declared_elsewhere(c, e)
        }
        // The same repairable trouble (a lost declaration) after every repair.
        _ if trouble.is_some_and(|t| t.repairable && t.needs_a_person()) => (
            NodeState::Stuck,
            trouble.map(|t| format!("{} times in a row: {}", t.count, t.reason)),
        ),
        _ if lost && failure.is_some() => {
            failure.map_or((NodeState::Failed, None), |f| failing(f, &[]))
        }
        _ if rec.sent.is_none() => (NodeState::NeverTold, trouble_reason),
        _ if c.digest().as_ref() != rec.sent.as_ref().map(|s| &s.digest) => {
            (NodeState::OutOfDate, trouble_reason)
        }
        // What it was sent, mesh could not check since: not current.
        _ if trouble.is_some_and(|t| !t.repairable) => (NodeState::Failed, trouble_reason),
        _ => match failure {
            Some(f) => failing(f, &said_of_sent(rec).1),
            None if !rec.applied_what_was_sent() => (NodeState::Outstanding, None),
            None => (NodeState::Current, None),
        },
    }
}

/// A node that runs another controller's declaration: ahead, diverged or differing as the last
/// push compared it with what this one would send; kept (current once it applied it) when the
/// commits are the same; out of date when this one has something else to send since.
fn declared_elsewhere(c: &Composed, e: &DeclaredElsewhere) -> (NodeState, Option<String>) {
    let reason = Some(e.reason.clone());
    if c.digest().as_deref() != Some(e.against.as_str()) {
        let why = format!(
            "runs a declaration from {}; the next push compares histories",
            e.controller
        );
        return (NodeState::OutOfDate, Some(why));
    }
    match e.relation {
        Relation::Ahead => (NodeState::Ahead, reason),
        Relation::Diverged => (NodeState::Diverged, reason),
        Relation::Differs => (NodeState::Differs, reason),
        _ if e.applied => (
            NodeState::Current,
            Some(format!("declared by {}", e.controller)),
        ),
        _ => (
            NodeState::Outstanding,
            Some(format!("declared by {}", e.controller)),
        ),
    }
}

/// A node with a failure streak: stuck once it reached [`crate::store::STUCK_AFTER`] reports
/// in a row; before, rolled back when every failing module went back to a version that runs
/// (naming the version that failed), else failed in the node's words (a module down first).
fn failing(f: &Failure, back: &[(String, mesh_node::RolledBack)]) -> (NodeState, Option<String>) {
    let down: Vec<String> = back
        .iter()
        .filter(|(_, b)| b.down)
        .map(|(m, b)| {
            format!(
                "{m} is DOWN: {} failed and going back to {} failed too",
                b.failed_version(),
                b.to_version()
            )
        })
        .collect();
    let all_went_back = !back.is_empty()
        && f.resources.iter().all(|r| {
            back.iter()
                .any(|(m, b)| !b.down && r.strip_prefix("module:") == Some(m.as_str()))
        });
    if f.count >= crate::store::STUCK_AFTER {
        let why = format!("{} reports in a row: {}", f.count, f.resources.join(", "));
        (NodeState::Stuck, Some(why))
    } else if !down.is_empty() {
        let why = format!("{}; {}", down.join("; "), f.reasons.join("; "));
        (NodeState::Failed, Some(why))
    } else if all_went_back {
        let why = back
            .iter()
            .map(|(m, b)| {
                format!(
                    "{m}: {} failed; rolled back to {}",
                    b.failed_version(),
                    b.to_version()
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        (NodeState::RolledBack, Some(why))
    } else {
        (NodeState::Failed, Some(f.reasons.join("; ")))
    }
}

/// One node's line of the status, from its composed declaration, record and trouble.
fn node_status(
    mesh: &MeshConfig,
    name: &str,
    c: &Composed,
    rec: &NodeRecord,
    (trouble, elsewhere): (Option<&Trouble>, Option<&DeclaredElsewhere>),
    health: Option<&NodeHealth>,
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
            Some(s) => s.sequence.saturating_add(1),
            None => 1,
        },
        at: None,
    });
    // A node that lost what it was sent (a wiped root) keeps the failure of the apply that
    // lost it: an activate that removes the root is a failing node, not a "never told" one.
    let lost = rec.sent.is_none() && trouble.is_some_and(|t| t.repairable);
    let failure = rec
        .failure_of_sent()
        .or_else(|| rec.failure.as_ref().filter(|_| lost));
    let silent_after = mesh.settings.silent_after.as_millis() as u64;
    let (state, reason) = match state_of(c, rec, (trouble, elsewhere), failure, lost) {
        (NodeState::Current, why) => health
            .and_then(super::health::unhealthy)
            .unwrap_or((NodeState::Current, why)),
        other => other,
    };
    let controller = match elsewhere {
        Some(e) => Some(e.controller.clone()),
        None => rec.sent.as_ref().map(|_| mesh.controller.clone()),
    };
    let silent = state == NodeState::Current
        && rec
            .last_seen
            .is_none_or(|t| now.saturating_sub(t) > silent_after);
    let needs_a_person = state.needs_a_person() || trouble.is_some_and(Trouble::needs_a_person);
    NodeStatus {
        name: name.to_string(),
        state,
        reason: reason.or_else(|| rec.unreachable_reason.clone()),
        controller,
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
        trouble: trouble.map(|t| TroubleJson {
            since: rfc3339(t.since),
            count: t.count,
            reason: t.reason.clone(),
        }),
        needs_a_person,
        modules: Vec::new(),
        last_seen_ms: rec.last_seen,
    }
}
