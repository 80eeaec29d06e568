//! Rollouts: a module's new declared build reaches its nodes in waves (`[rollout] waves`), each
//! wave only once every node of the waves before it applied the build and has reported it
//! healthy for `wait`; a node that fails it halts the rollout and every node that took it is
//! declared the previous build again.
//!
//! What judges what (the gate):
//!
//! - A rollout is a module's move from build `from` (what its nodes ran) to `to` (the declared
//!   build), at wave `wave`: the first `reach(wave)` of its nodes in [`order`] are given `to`,
//!   the others keep `from` (declared so). A node that was never sent the module is given `to`
//!   at once: it runs nothing to protect.
//! - Only a node's report about the declaration that carried `to` to it judges: its failure
//!   streak is about the declaration it was last sent (`failure_of_sent`), its health names
//!   the build it runs, and a node since sent another build is no longer one of the rollout's.
//!   A report about an older send never decides anything.
//! - A node given `to` whose apply of it failed (activate, or its check while settling), or
//!   whose check fails on `to`, **halts** the rollout: `to` is marked halted for the module
//!   (never declared by `auto` again), the module's declared build becomes `from` again, so
//!   every node that took `to` is sent `from` (put back by declaration), one fact says which
//!   build, which node and why, and `reconcile` exits 3 until a newer build or `retry`.
//! - The rollout moves one wave per [`step`] (one per `reconcile` or `push`), when every node
//!   of the waves so far runs `to` healthy (its check passing, or applied when it has none)
//!   since at least `wait` ago. At the last wave every node is given `to`; once all applied it
//!   healthy for `wait`, the rollout is over.
//! - Halted builds travel in every signed declaration (`halted`), so a second controller — or
//!   this one with a lost store — never declares a build another halted ([`adopt_halted`]).

mod show;
mod step;
mod verbs;

pub use show::{HaltJson, RolloutStatus, list, rollouts};
pub use step::step;
pub use verbs::{abort, promote, retry};

use crate::config::{MeshConfig, Rollout, Wave, reach};
use crate::store::{BuildRecord, NodeRecord, Reader, StoreError, Table};
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
    let placement = crate::declare::compose::placement(mesh);
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

/// What composing needs of a rollout in progress: the build the nodes outside the waves keep,
/// and the nodes given the new one.
#[derive(Debug, Clone)]
pub struct Staged {
    /// The build nodes not yet reached keep (`from`).
    pub keep: BuildRecord,
    /// The nodes given the declared build: the waves reached, and nodes never sent the module.
    pub given: BTreeSet<String>,
}

/// Every rollout in progress whose `to` is the module's declared build, as composing needs it.
pub fn staged(
    r: &Reader,
    mesh: &MeshConfig,
    declared: &HashMap<String, BuildRecord>,
    records: &HashMap<String, NodeRecord>,
) -> Result<HashMap<String, Staged>, StoreError> {
    let mut out = HashMap::new();
    for (key, rec) in r.range(ROLLOUTS, b"", None)? {
        let module = String::from_utf8_lossy(&key).into_owned();
        let Some(d) = declared.get(&module) else {
            continue;
        };
        if rec.halted.is_some() || rec.to != d.id {
            continue;
        }
        let Some(keep) = r.get(crate::store::BUILDS, &crate::store::id_key(rec.from))? else {
            continue;
        };
        let policy = policy(mesh, d);
        let order = order(mesh, &module, &policy);
        let n = reached(mesh, &policy, &order, rec.wave);
        let given = order
            .iter()
            .enumerate()
            .filter(|(i, node)| *i < n || !was_sent(records.get(**node), &module))
            .map(|(_, node)| node.to_string())
            .collect();
        out.insert(module, Staged { keep, given });
    }
    Ok(out)
}

/// For each (module, node) a rollout in progress has not reached yet: the wave that reaches it
/// (from 1) and how many waves there are — what `mesh where` says instead of "held".
pub fn waiting(
    r: &Reader,
    mesh: &MeshConfig,
    declared: &HashMap<String, BuildRecord>,
    records: &HashMap<String, NodeRecord>,
) -> Result<HashMap<(String, String), (u64, u64)>, StoreError> {
    let mut out = HashMap::new();
    for (module, s) in staged(r, mesh, declared, records)? {
        let Some(d) = declared.get(&module) else {
            continue;
        };
        let policy = policy(mesh, d);
        let order = order(mesh, &module, &policy);
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
    Ok(out)
}

/// Whether `rec` (a node's) was ever sent a build of `module` (in the declaration it holds).
fn was_sent(rec: Option<&NodeRecord>, module: &str) -> bool {
    rec.is_some_and(|r| r.sent_builds.iter().any(|(m, _)| m == module))
}

/// Whether `build` of its module is halted.
pub(crate) fn is_halted(halted: &[HaltedBuild], build: &BuildRecord) -> bool {
    halted
        .iter()
        .any(|h| h.build == build.id || h.commit == build.commit)
}

/// The halted builds the signed declarations in force carry, from controllers the nodes
/// trust: taken in as this controller's own, so that no controller declares a build another
/// halted. Returns the modules newly halted here.
pub(crate) fn adopt_halted(
    w: &crate::store::Writer,
    carried: &[mesh_proto::wire::Halted],
) -> Result<Vec<String>, StoreError> {
    let mut newly = Vec::new();
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
        newly.push(h.module.clone());
    }
    Ok(newly)
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
