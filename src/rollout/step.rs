//! One step of every rollout, at the start of each `reconcile` and `push`: start the rollouts
//! of newly declared builds, judge the nodes that took a build (halting on a failure), and move
//! each rollout whose nodes run it healthy one wave further.

use super::{HALTED, Halt, HaltedBuild, ROLLOUTS, RolloutRecord, order, policy, reached};
use crate::Result;
use crate::config::MeshConfig;
use crate::events::{self, Event, Fact};
use crate::store::{
    BUILDS, BuildRecord, DECLARED, ModuleHealth, NodeHealth, NodeRecord, Paths, StoreError, Writer,
    id_key,
};
use std::collections::HashMap;

/// Steps every module's rollout once, in one write; returns the facts recorded (a halt).
pub fn step(paths: &Paths, mesh: &MeshConfig) -> Result<Vec<Event>> {
    let now = crate::clock::now_ms();
    let store = paths.open()?;
    // Read first; the mesh lock held by the caller keeps it true until the write.
    let (declared, nodes) = store.read(|r| {
        let nodes = Nodes {
            records: crate::store::node_records(r)?,
            health: crate::store::node_health(r)?,
        };
        Ok((crate::declare::compose::declared(r)?, nodes))
    })?;
    Ok(store.write(|w| {
        let facts = step_in(w, mesh, &declared, &nodes, now)?;
        events::append(w, &facts, now, mesh.settings.events_keep)
    })?)
}

/// What a step reads of the nodes.
struct Nodes {
    records: HashMap<String, NodeRecord>,
    health: HashMap<String, NodeHealth>,
}

fn step_in(
    w: &Writer,
    mesh: &MeshConfig,
    declared: &HashMap<String, BuildRecord>,
    nodes: &Nodes,
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
            if rec.as_ref().is_some_and(|r| r.halted.is_none()) {
                w.remove(ROLLOUTS, module.as_bytes())?;
            }
            continue;
        }
        match rec {
            Some(r) if r.halted.is_none() && r.to == d.id => {
                facts.extend(judge(w, mesh, (module, d), r, nodes, now)?);
            }
            // Halted: it stays so (and its module declared `from`) until a newer build or
            // `retry`.
            Some(r) if r.halted.is_some() && (d.id == r.from || d.id == r.to) => {}
            other => start(w, mesh, (module, d), other, nodes, now)?,
        }
    }
    Ok(facts)
}

/// A newly declared build: its rollout starts at the first wave, from what the module's nodes
/// run now. Nothing to stage when no node ran any other build of it.
fn start(
    w: &Writer,
    mesh: &MeshConfig,
    (module, d): (&str, &BuildRecord),
    replaced: Option<RolloutRecord>,
    nodes: &Nodes,
    now: u64,
) -> Result<(), StoreError> {
    let policy = policy(mesh, d);
    let order = order(mesh, module, &policy);
    // What the nodes outside the first wave keep: what the rollout replaced left them running
    // (its `from` while it had not reached every node, or was halted; its `to` once it had),
    // else the newest build of the module any of them was sent.
    let from = match replaced {
        Some(r) if r.halted.is_none() && r.wave as usize + 1 >= policy.waves.len() => Some(r.to),
        Some(r) => Some(r.from),
        None => order
            .iter()
            .filter_map(|n| nodes.records.get(*n))
            .flat_map(|rec| rec.sent_builds.iter())
            .filter(|(m, b)| m == module && *b != d.id)
            .map(|(_, b)| *b)
            .max(),
    };
    let from = match from {
        Some(f) if f != d.id && w.get(BUILDS, &id_key(f))?.is_some() => f,
        _ => {
            w.remove(ROLLOUTS, module.as_bytes())?;
            return Ok(());
        }
    };
    let rec = RolloutRecord {
        from,
        to: d.id,
        wave: 0,
        started: now,
        moved: now,
        halted: None,
    };
    w.put(ROLLOUTS, module.as_bytes(), &rec)
}

/// Judges the nodes that took `to`: the first failure halts; otherwise, when every node of the
/// waves so far runs it healthy for `wait`, the rollout moves a wave (or is over).
fn judge(
    w: &Writer,
    mesh: &MeshConfig,
    (module, d): (&str, &BuildRecord),
    mut r: RolloutRecord,
    nodes: &Nodes,
    now: u64,
) -> Result<Vec<Fact>, StoreError> {
    let policy = policy(mesh, d);
    let order = order(mesh, module, &policy);
    let n = reached(mesh, &policy, &order, r.wave);
    for node in &order {
        if let Some(reason) = failed_it(nodes, node, module, d) {
            return halt(w, (module, d), r, node, reason, now).map(|f| vec![f]);
        }
    }
    let wait = policy.wait.as_millis() as u64;
    let ready = order[..n]
        .iter()
        .all(|node| runs_healthy_since(nodes, node, module, d).is_some_and(|t| t + wait <= now));
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

/// Why `node` failed build `d` of `module`, when its reports about the declaration that carried
/// `d` say so: its apply failed there (activate, or the check while settling, gone back or
/// not), or its check fails on `d`. Nothing when it was not sent `d`, or since sent another.
fn failed_it(nodes: &Nodes, node: &str, module: &str, d: &BuildRecord) -> Option<String> {
    let rec = nodes.records.get(node)?;
    if !rec
        .sent_builds
        .iter()
        .any(|(m, b)| m == module && *b == d.id)
    {
        return None;
    }
    let id = format!("module:{module}");
    if let Some(f) = rec.failure_of_sent()
        && f.resources.contains(&id)
    {
        return Some(f.reasons.join("; "));
    }
    let h = nodes.health.get(node)?.modules.get(module)?;
    (!h.healthy && h.build == d.id.to_string()).then(|| {
        format!(
            "its check fails: {}",
            h.output.as_deref().unwrap_or("no output")
        )
    })
}

/// Since when `node` runs build `d` of `module` healthy: its check passing on `d` since then,
/// or, for a module without a check, applied then. None when it does not (yet).
fn runs_healthy_since(nodes: &Nodes, node: &str, module: &str, d: &BuildRecord) -> Option<u64> {
    let rec = nodes.records.get(node)?;
    let pair = (module.to_string(), d.id);
    if !(rec.applied_what_was_sent() && rec.applied_builds.contains(&pair)) {
        return None;
    }
    let said: Option<&ModuleHealth> = nodes.health.get(node).and_then(|h| h.modules.get(module));
    match (said, &d.check) {
        (Some(h), _) if h.build == d.id.to_string() => h.healthy.then_some(h.since),
        (_, Some(_)) => None,
        (_, None) => rec.applied.as_ref().map(|a| a.at),
    }
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
