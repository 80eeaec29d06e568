//! One step of every rollout, at the start of each `reconcile` and `push`: start the rollouts
//! of newly declared builds, judge the nodes that took a build (halting on a failure), and move
//! each rollout whose nodes run it healthy one wave further.

use super::{
    Fleet, HALTED, Halt, HaltedBuild, ROLLOUTS, RolloutRecord, UNKNOWN, order, policy, reached,
};
use crate::Result;
use crate::config::MeshConfig;
use crate::events::{self, Event, Fact};
use crate::store::{BUILDS, BuildRecord, DECLARED, Paths, StoreError, Verdict, Writer, id_key};
use std::collections::HashMap;

/// Steps every module's rollout once, in one write; returns the facts recorded (a halt).
pub fn step(paths: &Paths, mesh: &MeshConfig) -> Result<Vec<Event>> {
    let now = crate::clock::now_ms();
    let store = paths.open()?;
    // Read first; the mesh lock held by the caller keeps it true until the write.
    let (declared, fleet) =
        store.read(|r| Ok((crate::store::declared_builds(r)?, Fleet::read_all(r)?)))?;
    Ok(store.write(|w| {
        let facts = step_in(w, mesh, &declared, &fleet, now)?;
        events::append(w, &facts, now, mesh.settings.events_keep)
    })?)
}

fn step_in(
    w: &Writer,
    mesh: &MeshConfig,
    declared: &HashMap<String, BuildRecord>,
    fleet: &Fleet,
    now: u64,
) -> Result<Vec<Fact>, StoreError> {
    let mut facts = Vec::new();
    let mut modules: Vec<&String> = declared.keys().collect();
    modules.sort();
    for module in modules {
        let d = &declared[module];
        let policy = policy(mesh, d);
        let rec = w.get(ROLLOUTS, module.as_bytes())?;
        if policy.is_all_at_once() {
            // No waves now: a rollout in progress is over, and a halted one stays said only
            // while its build (or the one put back) is the declared one.
            if rec
                .as_ref()
                .is_some_and(|r| r.halted.is_none() || (r.to != d.id && r.from != d.id))
            {
                w.remove(ROLLOUTS, module.as_bytes())?;
            }
            continue;
        }
        let halted_here = w
            .get(HALTED, module.as_bytes())?
            .is_some_and(|h| super::is_halted(&h, d));
        if halted_here && rec.as_ref().is_none_or(|r| r.halted.is_none()) {
            // Halted by another controller (taken in from a node's declaration): this one's
            // rollout of that commit stops too, and what the nodes ran is declared again.
            let r = match rec {
                Some(r) if r.to == d.id => r,
                _ => RolloutRecord {
                    from: held_elsewhere(w, module, d, &order(mesh, module, &policy), fleet)?
                        .unwrap_or(UNKNOWN),
                    to: d.id,
                    wave: 0,
                    started: now,
                    moved: now,
                    halted: None,
                },
            };
            let why = "halted by another controller's rollout".to_string();
            facts.push(halt(w, (module, d), r, "-", why, now)?);
            continue;
        }
        match rec {
            Some(r) if r.halted.is_none() && r.to == d.id => {
                facts.extend(judge(w, mesh, (module, d), r, fleet, now)?);
            }
            // Halted: it stays so (and its module declared `from`) until a newer build or
            // `retry`.
            Some(r) if r.halted.is_some() && (d.id == r.from || d.id == r.to) => {}
            other => start(w, mesh, (module, d), other, fleet, now)?,
        }
    }
    Ok(facts)
}

/// A newly declared build: its rollout starts from what the module's nodes run now — at the
/// first wave, or, when the nodes already hold it (another controller's rollout, or this
/// one's before its store was lost), at the wave that reaches as many nodes as hold it, so a
/// rollout is neither restarted nor skipped. Nothing to stage when no node runs another
/// version of the module.
fn start(
    w: &Writer,
    mesh: &MeshConfig,
    (module, d): (&str, &BuildRecord),
    replaced: Option<RolloutRecord>,
    fleet: &Fleet,
    now: u64,
) -> Result<(), StoreError> {
    let policy = policy(mesh, d);
    let order = order(mesh, module, &policy);
    let on = order.iter().filter(|n| fleet.on(n, module, d)).count();
    // What the nodes not on it keep: what the rollout replaced left them running (its `from`
    // while it had not reached every node, or was halted; its `to` once it had); else the
    // version most of them hold, as this store's build of that commit when it has one.
    let from = match replaced {
        Some(r) if r.halted.is_none() && r.wave as usize + 1 >= policy.waves.len() => Some(r.to),
        Some(r) => Some(r.from),
        None => held_elsewhere(w, module, d, &order, fleet)?,
    };
    let from = match from {
        Some(f) if f == UNKNOWN => f,
        Some(f) if f != d.id && w.get(BUILDS, &id_key(f))?.is_some() => f,
        _ => {
            w.remove(ROLLOUTS, module.as_bytes())?;
            return Ok(());
        }
    };
    // The last wave whose nodes all hold it already (rounding up could give the next wave the
    // build before those ran it for `wait`); the nodes beyond that hold it keep it.
    let wave = (0..policy.waves.len() as u64)
        .take_while(|k| *k == 0 || reached(mesh, &policy, &order, *k) <= on)
        .last()
        .unwrap_or(0);
    let rec = RolloutRecord {
        from,
        to: d.id,
        wave,
        started: now,
        moved: now,
        halted: None,
    };
    w.put(ROLLOUTS, module.as_bytes(), &rec)
}

/// The build the module's nodes not on `d` run, when no rollout says: this store's newest build
/// sent to them, else its fit build of the commit most of them hold ([`UNKNOWN`] when it has
/// none). None when no node runs another version.
fn held_elsewhere(
    w: &Writer,
    module: &str,
    d: &BuildRecord,
    order: &[&str],
    fleet: &Fleet,
) -> Result<Option<u64>, StoreError> {
    let sent = order
        .iter()
        .filter_map(|n| fleet.records.get(*n))
        .flat_map(|rec| rec.sent_builds.iter())
        .filter(|(m, b)| m == module && *b != d.id)
        .map(|(_, b)| *b)
        .max();
    if sent.is_some() {
        return Ok(sent);
    }
    let mut commits: HashMap<&str, usize> = HashMap::new();
    for n in order {
        if let Some(h) = fleet
            .holds
            .get(*n)
            .and_then(|ms| ms.iter().find(|m| m.name == module))
            && h.commit != d.commit
        {
            *commits.entry(h.commit.as_str()).or_default() += 1;
        }
    }
    let Some((commit, _)) = commits.into_iter().max_by_key(|(c, n)| (*n, *c)) else {
        return Ok(None);
    };
    let ours = w
        .range(BUILDS, b"", None)?
        .into_iter()
        .rev()
        .map(|(_, b)| b)
        .find(|b| b.module == module && b.commit == commit && b.verdict == Verdict::Fit);
    Ok(Some(ours.map_or(UNKNOWN, |b| b.id)))
}

/// Judges the nodes that took `to`: the first failure halts; otherwise, when every node of the
/// waves so far runs it healthy for `wait`, the rollout moves a wave (or is over).
fn judge(
    w: &Writer,
    mesh: &MeshConfig,
    (module, d): (&str, &BuildRecord),
    mut r: RolloutRecord,
    fleet: &Fleet,
    now: u64,
) -> Result<Vec<Fact>, StoreError> {
    let policy = policy(mesh, d);
    let order = order(mesh, module, &policy);
    let n = reached(mesh, &policy, &order, r.wave);
    for node in &order {
        if let Some(reason) = fleet.failed(node, module, d) {
            return halt(w, (module, d), r, node, reason, now).map(|f| vec![f]);
        }
    }
    let wait = policy.wait.as_millis() as u64;
    let ready = order[..n].iter().all(|node| {
        fleet
            .healthy_since(node, module, d)
            .is_some_and(|t| t + wait <= now)
    });
    if !ready || r.moved + wait > now {
        return Ok(Vec::new());
    }
    if r.wave as usize + 1 >= policy.waves.len() {
        // Every node runs it healthy: the rollout is over.
        w.remove(ROLLOUTS, module.as_bytes())?;
    } else {
        r.wave += 1;
        r.moved = now;
        w.put(ROLLOUTS, module.as_bytes(), &r)?;
    }
    Ok(Vec::new())
}

/// Halts `r`: `to` is marked halted, the module is declared `from` again (every node that took
/// `to` is sent `from`), and the fact says which build, which node and why.
pub(super) fn halt(
    w: &Writer,
    (module, d): (&str, &BuildRecord),
    mut r: RolloutRecord,
    node: &str,
    reason: String,
    now: u64,
) -> Result<Fact, StoreError> {
    let mut halted = w.get(HALTED, module.as_bytes())?.unwrap_or_default();
    if !halted.iter().any(|h| h.build == d.id) {
        halted.push(HaltedBuild {
            build: d.id,
            commit: d.commit.clone(),
        });
        w.put(HALTED, module.as_bytes(), &halted)?;
    }
    // Put back by declaration (a `from` read from the nodes that this store never built
    // cannot be: they keep what they hold, and `to` is given to nobody).
    if let Some(from) = w.get(BUILDS, &id_key(r.from))? {
        w.put(DECLARED, module.as_bytes(), &from)?;
    }
    r.halted = Some(Halt {
        node: node.to_string(),
        reason: reason.clone(),
        at: now,
    });
    w.put(ROLLOUTS, module.as_bytes(), &r)?;
    Ok(Fact::RolloutHalted {
        module: module.to_string(),
        build: d.id,
        node: node.to_string(),
        reason,
    })
}
