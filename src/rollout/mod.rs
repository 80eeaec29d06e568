//! Rollouts: a module's new declared build reaches its nodes in waves (`[rollout] waves`), each
//! wave only once every node of the waves before it applied the build and has reported it
//! healthy for `wait`; a node that fails it halts the rollout and every node that took it is
//! declared the previous build again.
//!
//! What judges what (the gate):
//!
//! - A rollout is a module's move from build `from` (what its nodes ran) to `to` (the declared
//!   build), at wave `wave`: the first `reach(wave)` of its nodes in [`order`] are given `to`,
//!   the others keep `from` (declared so). A node that holds no version of the module is given
//!   `to` at once: it runs nothing to protect. A node that holds `to` already keeps it.
//! - Only a node's report about the declaration that carried `to` to it judges: its failure
//!   streak is about the declaration it was last sent (`failure_of_sent`), its health names
//!   the commit it runs, and a node since sent another build is no longer one of the
//!   rollout's. A report about an older send never decides anything ([`Fleet::failed`]).
//! - A node given `to` whose apply of it failed (activate, or its check while settling), or
//!   whose check fails on `to`, **halts** the rollout: `to` is marked halted for the module
//!   (never declared by `auto` again), the module's declared build becomes `from` again, so
//!   every node that took `to` is sent `from` (put back by declaration), one fact says which
//!   build, which node and why, and `reconcile` exits 3 until a newer build or `retry`.
//! - The rollout moves one wave per [`step`] (one per `reconcile` or `push`), when every node
//!   of the waves so far runs `to` healthy (its check passing, or applied when it has none)
//!   since at least `wait` ago. At the last wave every node is given `to`; once all applied it
//!   healthy for `wait`, the rollout is over.
//! - What a node holds is read from the node too ([`Fleet`]: its `have` names each module's
//!   build and commit in force, whoever declared it), and builds are matched by commit (build
//!   ids are each store's own). So a rollout with no record here — a lost store, or another
//!   controller's — starts at the wave that reaches as many nodes as hold `to` already, nodes
//!   whose `from` this store never built keep exactly what they hold, and a second controller
//!   at the same commits moves it by the same waves (`deliver::elsewhere`), never past them.
//! - Halted builds travel in every signed declaration (`halted`), so a second controller — or
//!   this one with a lost store — never sends a build another halted (`deliver::push`), and
//!   halts its own rollout of it once it reads it ([`adopt_halted`]).

mod show;
mod step;
mod verbs;

pub use show::{HaltJson, RolloutStatus, list, rollouts};
pub use step::step;
pub use verbs::{abort, promote, retry};

use crate::config::{MeshConfig, Rollout, Wave, reach};
use crate::store::{BuildRecord, ModuleHealth, NodeHealth, NodeRecord, Reader, StoreError, Table};
use mesh_proto::wire::DeclaredModule;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};

/// module name → [`RolloutRecord`]: each rollout in progress or halted.
pub(crate) const ROLLOUTS: Table<RolloutRecord> = Table::new("rollouts");

/// module name → the builds of it that were halted (never declared by `auto` again).
pub(crate) const HALTED: Table<Vec<HaltedBuild>> = Table::new("halted");

/// A module's rollout.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RolloutRecord {
    /// The build its nodes ran before.
    pub from: u64,
    /// The build rolling out.
    pub to: u64,
    /// The wave reached (0 = the first).
    pub wave: u64,
    /// When it started (Unix ms).
    pub started: u64,
    /// When it last moved a wave (Unix ms).
    pub moved: u64,
    /// Why it stopped, when it did.
    pub halted: Option<Halt>,
}

/// Why a rollout stopped.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Halt {
    /// The node that failed the build (or `-` when a person aborted it).
    pub node: String,
    /// Why, in the node's (or the person's) words.
    pub reason: String,
    /// When (Unix ms).
    pub at: u64,
}

/// A build halted for its module.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct HaltedBuild {
    /// The build id (this controller's).
    pub build: u64,
    /// The commit it was built from: how another controller's halt is matched.
    pub commit: String,
}

/// The nodes `module` is assigned to, in the order waves take them: those with the first
/// wave's tag first, then the rest, each by name. The same on every controller reading the
/// same mesh.toml.
pub fn order<'a>(mesh: &'a MeshConfig, module: &str, rollout: &Rollout) -> Vec<&'a str> {
    let placement = mesh.placement();
    let Some(nodes) = placement.get(module) else {
        return Vec::new();
    };
    let tag = match rollout.waves.first() {
        Some(Wave::Tag(t)) => Some(t.as_str()),
        _ => None,
    };
    let tagged = |n: &str| {
        tag.is_some_and(|t| {
            mesh.nodes
                .get(n)
                .is_some_and(|c| c.tags.iter().any(|x| x == t))
        })
    };
    let mut out: Vec<&str> = nodes.iter().copied().collect();
    out.sort_by_key(|n| (!tagged(n), *n));
    out.into_iter()
        .filter_map(|n| mesh.nodes.get_key_value(n).map(|(k, _)| k.as_str()))
        .collect()
}

/// How many of `order` (a module's nodes) the waves up to `wave` reach.
pub fn reached(mesh: &MeshConfig, rollout: &Rollout, order: &[&str], wave: u64) -> usize {
    let tagged = match rollout.waves.first() {
        Some(Wave::Tag(t)) => order
            .iter()
            .filter(|n| {
                mesh.nodes
                    .get(**n)
                    .is_some_and(|c| c.tags.iter().any(|x| x == t))
            })
            .count(),
        _ => 0,
    };
    reach(&rollout.waves, wave as usize, order.len(), tagged)
}

/// A module's rollout policy: its build's manifest over mesh.toml's `[rollout]`.
pub fn policy(mesh: &MeshConfig, build: &BuildRecord) -> Rollout {
    Rollout::over(&mesh.rollout, &build.rollout)
}

/// What rollouts read of the nodes: this store's records of them, their modules' health, and
/// which build of each module each holds in force as its `have` said it (whoever declared it:
/// how a second controller, or a lost store, knows where a rollout is).
#[derive(Debug, Default)]
pub struct Fleet {
    /// This store's record of each node.
    pub records: HashMap<String, NodeRecord>,
    /// What each node's checks said (read by [`Fleet::read_judged`] and [`Fleet::read_all`]).
    pub health: HashMap<String, NodeHealth>,
    /// The modules of the declaration in force on each node.
    pub holds: HashMap<String, Vec<DeclaredModule>>,
}

impl Fleet {
    /// What composing reads: the records, and what the nodes hold only while a rollout is
    /// recorded (only a rollout reads it; push in the steady state pays nothing for it). No
    /// health: [`Fleet::read_judged`].
    pub fn read(r: &Reader) -> Result<Fleet, StoreError> {
        let holds = match r.len(ROLLOUTS)? {
            0 => HashMap::new(),
            _ => crate::store::node_holds(r)?,
        };
        Ok(Fleet {
            records: crate::store::node_records(r)?,
            health: HashMap::new(),
            holds,
        })
    }

    /// [`Fleet::read`] with the modules' health: what judging a rollout and saying how things
    /// stand read.
    pub fn read_judged(r: &Reader) -> Result<Fleet, StoreError> {
        Ok(Fleet {
            health: crate::store::node_health(r)?,
            ..Fleet::read(r)?
        })
    }

    /// Everything, what the nodes hold whether or not a rollout is recorded: what starting
    /// one reads.
    pub fn read_all(r: &Reader) -> Result<Fleet, StoreError> {
        Ok(Fleet {
            records: crate::store::node_records(r)?,
            health: crate::store::node_health(r)?,
            holds: crate::store::node_holds(r)?,
        })
    }

    /// The entry of `module` in the declaration in force on `node`, as its `have` said.
    fn held(&self, node: &str, module: &str) -> Option<&DeclaredModule> {
        self.holds.get(node)?.iter().find(|m| m.name == module)
    }

    /// Whether `node` was sent build `d` of `module` by this store, or holds a build of it
    /// from `d`'s commit (another controller's, or one this store sent before it was lost).
    ///
    /// What this store sent is matched exactly (its artifact): a rebuild at the same commit
    /// against other inputs is another build. Only what another store sent is matched by
    /// commit, the one thing two controllers' builds share.
    pub(crate) fn on(&self, node: &str, module: &str, d: &BuildRecord) -> bool {
        let sent = |b: u64| {
            self.records
                .get(node)
                .is_some_and(|r| r.sent_builds.iter().any(|(m, x)| m == module && *x == b))
        };
        if sent(d.id) {
            return true;
        }
        self.held(node, module).is_some_and(|h| {
            let ours = h.build.parse().is_ok_and(sent);
            h.artifact.as_str() == d.artifact.as_deref().unwrap_or_default()
                || (!ours && h.commit == d.commit)
        })
    }

    /// Whether `node` holds no version of `module` at all, as it said: nothing to protect
    /// there. A node never read is not taken to hold nothing.
    pub(crate) fn fresh(&self, node: &str, module: &str) -> bool {
        !self
            .records
            .get(node)
            .is_some_and(|r| r.sent_builds.iter().any(|(m, _)| m == module))
            && self
                .holds
                .get(node)
                .is_some_and(|ms| !ms.iter().any(|m| m.name == module))
    }

    /// What `node`'s check said of `module` when it runs build `d` (by commit: the same
    /// for every controller).
    fn health_of(&self, node: &str, module: &str, d: &BuildRecord) -> Option<&ModuleHealth> {
        let h = self.health.get(node)?.modules.get(module)?;
        let same = if h.commit.is_empty() {
            h.build == d.id.to_string()
        } else {
            h.commit == d.commit
        };
        same.then_some(h)
    }

    /// Why `node` failed build `d` of `module`: its apply of the declaration that carried `d`
    /// failed there (activate, or the check while settling), or its check fails on `d`.
    /// Nothing when it was not sent `d`, was since sent another build, or runs it well: a
    /// report about an older send never decides.
    pub(crate) fn failed(&self, node: &str, module: &str, d: &BuildRecord) -> Option<String> {
        let id = format!("module:{module}");
        let rec = self.records.get(node);
        if let Some(rec) = rec
            && rec
                .sent_builds
                .iter()
                .any(|(m, b)| m == module && *b == d.id)
            && let Some(f) = rec.failure_of_sent()
            && f.resources.contains(&id)
        {
            return Some(f.reasons.join("; "));
        }
        let h = self.health_of(node, module, d)?;
        (!h.healthy).then(|| {
            format!(
                "its check fails: {}",
                h.output.as_deref().unwrap_or("no output")
            )
        })
    }

    /// Since when `node` runs build `d` of `module` healthy: its check passing on `d` since
    /// then, or, for a module without a check, this store's send of it applied then. None
    /// when it does not, or nobody can tell yet.
    pub(crate) fn healthy_since(&self, node: &str, module: &str, d: &BuildRecord) -> Option<u64> {
        if let Some(h) = self.health_of(node, module, d) {
            return h.healthy.then_some(h.since);
        }
        if d.check.is_some() {
            return None;
        }
        let rec = self.records.get(node)?;
        let pair = (module.to_string(), d.id);
        (rec.applied_what_was_sent() && rec.applied_builds.contains(&pair))
            .then(|| rec.applied.as_ref().map(|a| a.at))
            .flatten()
    }
}

/// What composing needs of a rollout: which nodes are given the declared build, and what the
/// others keep.
#[derive(Debug, Clone)]
pub struct Staged {
    /// The build nodes not yet reached keep (`from`), when this store has it.
    pub keep: Option<BuildRecord>,
    /// What each node not yet reached holds in force, kept as it is when `keep` is unknown
    /// (a rollout read from the nodes whose `from` this store never built).
    pub held: HashMap<String, DeclaredModule>,
    /// The nodes given the declared build: the waves reached, nodes on it already, and nodes
    /// that hold no version of the module.
    pub given: BTreeSet<String>,
}

impl Staged {
    /// What `node` is declared for this module: the declared build (None), or what it keeps.
    pub fn keeps<'a>(&'a self, node: &str) -> Option<Kept<'a>> {
        if self.given.contains(node) {
            return None;
        }
        Some(match (&self.keep, self.held.get(node)) {
            (Some(b), _) => Kept::Build(b),
            (None, Some(h)) => Kept::Held(h),
            (None, None) => Kept::Unknown,
        })
    }
}

/// What a node not yet reached keeps.
#[derive(Debug, Clone, Copy)]
pub enum Kept<'a> {
    /// This store's build of `from`.
    Build(&'a BuildRecord),
    /// The entry it holds in force.
    Held(&'a DeclaredModule),
    /// Nothing this store knows of: it is not declared anything until a read says what it
    /// holds (never the rollout's build past its wave).
    Unknown,
}

/// Every rollout whose `to` is the module's declared build, as composing needs it (a halted
/// one too when its `from` is unknown: then every node keeps what it holds).
pub fn staged(
    r: &Reader,
    mesh: &MeshConfig,
    declared: &HashMap<String, BuildRecord>,
    fleet: &Fleet,
) -> Result<HashMap<String, Staged>, StoreError> {
    let mut out = HashMap::new();
    for (key, rec) in r.range(ROLLOUTS, b"", None)? {
        let module = String::from_utf8_lossy(&key).into_owned();
        let Some(d) = declared.get(&module) else {
            continue;
        };
        let unknown_from = rec.from == UNKNOWN;
        if rec.to != d.id || (rec.halted.is_some() && !unknown_from) {
            continue;
        }
        let keep = match unknown_from {
            true => None,
            false => r.get(crate::store::BUILDS, &crate::store::id_key(rec.from))?,
        };
        let policy = policy(mesh, d);
        let order = order(mesh, &module, &policy);
        let n = match rec.halted {
            Some(_) => 0,
            None => reached(mesh, &policy, &order, rec.wave),
        };
        let given = order
            .iter()
            .enumerate()
            .filter(|(i, node)| {
                rec.halted.is_none()
                    && (*i < n || fleet.fresh(node, &module) || fleet.on(node, &module, d))
            })
            .map(|(_, node)| node.to_string())
            .collect();
        let held = order
            .iter()
            .filter_map(|node| Some((node.to_string(), fleet.held(node, &module)?.clone())))
            .collect();
        out.insert(module, Staged { keep, held, given });
    }
    Ok(out)
}

/// A rollout's `from` when this store has no build of what the nodes ran (read from the nodes
/// after a lost store, or another controller's): they keep what they hold.
pub const UNKNOWN: u64 = 0;

/// Module → the commit of its rollout's `to`, for each rollout in progress: a node holding
/// another commit of it that this controller gives `to` is one the rollout moves on, even
/// where another controller declared from the same commits.
pub fn rolling(
    r: &Reader,
    declared: &HashMap<String, BuildRecord>,
) -> Result<HashMap<String, String>, StoreError> {
    Ok(r.range(ROLLOUTS, b"", None)?
        .into_iter()
        .filter_map(|(k, rec)| {
            let module = String::from_utf8_lossy(&k).into_owned();
            let d = declared.get(&module)?;
            (rec.halted.is_none() && rec.to == d.id).then(|| (module, d.commit.clone()))
        })
        .collect())
}

/// (module, node) → the wave that reaches it (from 1) and how many waves there are.
pub type Waiting = HashMap<(String, String), (u64, u64)>;

/// For each (module, node) a rollout in progress has not reached yet: the wave that reaches it
/// (from 1) and how many waves there are — what `mesh where` says instead of "held".
pub fn waiting(
    mesh: &MeshConfig,
    declared: &HashMap<String, BuildRecord>,
    staged: &HashMap<String, Staged>,
) -> Waiting {
    let mut out = HashMap::new();
    for (module, s) in staged {
        let Some(d) = declared.get(module) else {
            continue;
        };
        let policy = policy(mesh, d);
        let order = order(mesh, module, &policy);
        for (i, node) in order.iter().enumerate() {
            if s.given.contains(*node) {
                continue;
            }
            let wave = (0..policy.waves.len() as u64)
                .find(|k| reached(mesh, &policy, &order, *k) > i)
                .unwrap_or(0);
            out.insert(
                (module.clone(), node.to_string()),
                (wave + 1, policy.waves.len() as u64),
            );
        }
    }
    out
}

/// Whether `build` of its module is halted.
pub(crate) fn is_halted(halted: &[HaltedBuild], build: &BuildRecord) -> bool {
    // This store's halts name the build; one taken in from another controller names only the
    // commit (build 0), the one thing their builds share.
    halted
        .iter()
        .any(|h| h.build == build.id || (h.build == 0 && h.commit == build.commit))
}

/// The halted builds the signed declarations in force carry, from controllers the nodes
/// trust: taken in as this controller's own, so that no controller declares a build another
/// halted; this controller's rollout of such a build halts at once. Returns the facts.
pub(crate) fn adopt_halted(
    w: &crate::store::Writer,
    carried: &[mesh_proto::wire::Halted],
    now: u64,
) -> Result<Vec<crate::events::Fact>, StoreError> {
    let mut facts = Vec::new();
    for h in carried {
        let mut list = w.get(HALTED, h.module.as_bytes())?.unwrap_or_default();
        if list.iter().any(|x| x.commit == h.commit) {
            continue;
        }
        list.push(HaltedBuild {
            build: 0,
            commit: h.commit.clone(),
        });
        w.put(HALTED, h.module.as_bytes(), &list)?;
        let Some(r) = w.get(ROLLOUTS, h.module.as_bytes())? else {
            continue;
        };
        let to = w.get(crate::store::BUILDS, &crate::store::id_key(r.to))?;
        if let Some(to) = to.filter(|to| r.halted.is_none() && to.commit == h.commit) {
            let why = "halted by another controller's rollout".to_string();
            facts.push(step::halt(w, (&h.module, &to), r, "-", why, now)?);
        }
    }
    Ok(facts)
}

/// How many of a module's halted builds the declarations carry (the newest).
const HALTED_CARRIED: usize = 5;

/// Every halted build, as the declarations carry them (each module's newest
/// [`HALTED_CARRIED`]): sorted by module, then commit.
pub(crate) fn halted_list(r: &Reader) -> Result<Vec<mesh_proto::wire::Halted>, StoreError> {
    let mut out = Vec::new();
    for (key, list) in r.range(HALTED, b"", None)? {
        let module = String::from_utf8_lossy(&key).into_owned();
        let skip = list.len().saturating_sub(HALTED_CARRIED);
        for h in list.into_iter().skip(skip) {
            out.push(mesh_proto::wire::Halted {
                commit: h.commit,
                module: module.clone(),
            });
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// What a pass does about rollouts before it pushes: reads the nodes it knows nothing of
/// ([`unknown`]) through `sessions`, then steps every rollout once ([`step`]). The facts.
/// A mesh where no declared build rolls out in waves and no rollout is recorded reads nothing
/// more here: every pass goes through this.
pub fn before_push(
    paths: &crate::store::Paths,
    mesh: &MeshConfig,
    sessions: &crate::transport::Connections,
) -> crate::Result<Vec<crate::events::Event>> {
    if !paths.state.exists() {
        return Ok(Vec::new());
    }
    let rolls = paths.open()?.read(|r| {
        let staged = crate::store::declared_builds(r)?
            .values()
            .any(|d| !policy(mesh, d).is_all_at_once());
        Ok(staged || r.len(ROLLOUTS)? > 0)
    })?;
    if !rolls {
        return Ok(Vec::new());
    }
    let unknown = unknown(paths, mesh)?;
    let mut events = Vec::new();
    if !unknown.is_empty() {
        events = crate::deliver::collect::collect(paths, mesh, &unknown, sessions)?.1;
    }
    events.extend(step(paths, mesh)?);
    Ok(events)
}

/// The nodes of modules with rollouts in waves that this store knows nothing of — never sent
/// anything, never read: a new store (a lost one's), or new nodes. A pass reads what they hold
/// first (`collect`), so that a rollout another store left at a wave goes on from it, and a
/// node that runs a version is never taken for one that runs none.
fn unknown(paths: &crate::store::Paths, mesh: &MeshConfig) -> crate::Result<Vec<String>> {
    if !paths.state.exists() {
        return Ok(Vec::new());
    }
    let (declared, records, known) = paths.open()?.read(|r| {
        let known: BTreeSet<String> = r
            .range(crate::store::HOLDS, b"", None)?
            .into_iter()
            .map(|(k, _)| String::from_utf8_lossy(&k).into_owned())
            .collect();
        let declared = crate::store::declared_builds(r)?;
        Ok((declared, crate::store::node_records(r)?, known))
    })?;
    let mut out = std::collections::BTreeSet::new();
    for (module, d) in &declared {
        let policy = policy(mesh, d);
        if policy.is_all_at_once() {
            continue;
        }
        for node in order(mesh, module, &policy) {
            // One that could not be reached last time is not waited on twice a pass: it is
            // given nothing new until it is read.
            let rec = records.get(node);
            let sent = rec.is_some_and(|r| r.sent.is_some());
            let unreachable = rec.is_some_and(|r| r.unreachable_since.is_some());
            if !sent && !unreachable && !known.contains(node) {
                out.insert(node.to_string());
            }
        }
    }
    Ok(out.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Failure, Sent};

    fn build(id: u64, commit: &str) -> BuildRecord {
        BuildRecord {
            commit: commit.into(),
            ..BuildRecord::fit(id, "web")
        }
    }

    fn sent(sequence: u64, build: u64) -> NodeRecord {
        NodeRecord {
            sent: Some(Sent {
                digest: format!("d{sequence}"),
                sequence,
                at: 0,
            }),
            sent_builds: vec![("web".into(), build)],
            ..NodeRecord::default()
        }
    }

    fn failure(sequence: u64) -> Failure {
        Failure {
            since: 0,
            count: 1,
            outcome: "failed".into(),
            resources: vec!["module:web".into()],
            sequence,
            reasons: vec!["activate exited with status 1".into()],
        }
    }

    #[test]
    fn only_a_report_about_the_send_that_carried_the_build_judges_it() {
        let new = build(8, "c8");
        let mut fleet = Fleet::default();
        // Sent build 8 in declaration 6; the failure on record is about declaration 5.
        let mut rec = sent(6, 8);
        rec.failure = Some(failure(5));
        fleet.records.insert("n".into(), rec.clone());
        assert_eq!(fleet.failed("n", "web", &new), None, "an older send");
        // About declaration 6: it judges.
        rec.failure = Some(failure(6));
        fleet.records.insert("n".into(), rec.clone());
        assert!(fleet.failed("n", "web", &new).is_some());
        // A node since sent another build is not one of this rollout's.
        let mut other = sent(7, 9);
        other.failure = Some(failure(7));
        fleet.records.insert("n".into(), other);
        assert_eq!(fleet.failed("n", "web", &new), None);
        // Health judges by commit, whoever declared: another commit's says nothing.
        fleet.records.clear();
        let sick = |commit: &str| crate::store::ModuleHealth {
            healthy: false,
            since: 0,
            build: "3".into(),
            commit: commit.into(),
            output: Some("no answer".into()),
            count: 1,
        };
        let mut h = NodeHealth::default();
        h.modules.insert("web".into(), sick("c7"));
        fleet.health.insert("n".into(), h.clone());
        assert_eq!(fleet.failed("n", "web", &new), None);
        h.modules.insert("web".into(), sick("c8"));
        fleet.health.insert("n".into(), h);
        assert_eq!(
            fleet.failed("n", "web", &new).as_deref(),
            Some("its check fails: no answer")
        );
    }
}
