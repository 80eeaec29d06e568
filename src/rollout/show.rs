//! What `mesh rollout`, `mesh status` and the page say of each rollout: module, build from → to,
//! wave k of n, the nodes on the new build, since when they run it healthy, and what it waits
//! for.

use super::Fleet;
use super::{ROLLOUTS, RolloutRecord, order, policy, reached};
use crate::clock::rfc3339;
use crate::config::MeshConfig;
use crate::store::{BUILDS, Reader, StoreError, id_key};
use serde::Serialize;

/// One rollout in progress or halted.
#[derive(Debug, Clone, Serialize)]
pub struct RolloutStatus {
    /// The module.
    pub module: String,
    /// The build its nodes ran before.
    pub from: u64,
    /// The commit `from` was built from.
    pub from_commit: Option<String>,
    /// The build rolling out (or halted).
    pub to: u64,
    /// The commit `to` was built from.
    pub to_commit: Option<String>,
    /// The wave reached, from 1.
    pub wave: u64,
    /// How many waves.
    pub waves: u64,
    /// How many nodes the module is assigned to.
    pub nodes: usize,
    /// How many nodes are given `to` now.
    pub given: usize,
    /// The nodes that applied `to`, by name.
    pub on_new: Vec<String>,
    /// Since when every node given `to` runs it healthy (RFC 3339), when they all do.
    pub healthy_since: Option<String>,
    /// What it waits for, as a sentence.
    pub waiting_for: String,
    /// Why it stopped, when it did: the node and its words.
    pub halted: Option<HaltJson>,
}

/// Why a rollout stopped.
#[derive(Debug, Clone, Serialize)]
pub struct HaltJson {
    /// The node that failed the build (`-`: a person aborted it).
    pub node: String,
    /// Why.
    pub reason: String,
    /// When (RFC 3339).
    pub at: String,
}

/// Every rollout (of `modules`, or all), by module.
pub fn list(
    r: &Reader,
    mesh: &MeshConfig,
    modules: &[String],
    fleet: &Fleet,
    now: u64,
) -> Result<Vec<RolloutStatus>, StoreError> {
    let mut out = Vec::new();
    for (key, rec) in r.range(ROLLOUTS, b"", None)? {
        let module = String::from_utf8_lossy(&key).into_owned();
        if !modules.is_empty() && !modules.contains(&module) {
            continue;
        }
        let from = r.get(BUILDS, &id_key(rec.from))?;
        let Some(to) = r.get(BUILDS, &id_key(rec.to))? else {
            continue;
        };
        out.push(one(mesh, &module, &rec, (from.as_ref(), &to), fleet, now));
    }
    Ok(out)
}

fn one(
    mesh: &MeshConfig,
    module: &str,
    rec: &RolloutRecord,
    (from, to): (
        Option<&crate::store::BuildRecord>,
        &crate::store::BuildRecord,
    ),
    fleet: &Fleet,
    now: u64,
) -> RolloutStatus {
    let policy = policy(mesh, to);
    let order = order(mesh, module, &policy);
    let n = reached(mesh, &policy, &order, rec.wave);
    let on_new: Vec<String> = order
        .iter()
        .filter(|node| fleet.on(node, module, to))
        .map(|n| n.to_string())
        .collect();
    let healthy: Vec<Option<u64>> = order[..n]
        .iter()
        .map(|node| fleet.healthy_since(node, module, to))
        .collect();
    let healthy_since = healthy
        .iter()
        .copied()
        .collect::<Option<Vec<u64>>>()
        .and_then(|all| all.into_iter().max())
        .filter(|_| n > 0)
        .map(|t| t.max(rec.moved));
    let wait = policy.wait.as_millis() as u64;
    let waiting_for = match (&rec.halted, healthy_since) {
        (Some(_), _) => {
            format!("a person: `mesh rollout retry {module}`, or a newer build")
        }
        (None, None) => format!(
            "wave {}'s {} node{} to run build {} healthy",
            rec.wave + 1,
            n,
            if n == 1 { "" } else { "s" },
            to.id
        ),
        (None, Some(t)) if t + wait > now => format!(
            "{} more of healthy running (wait {})",
            humantime::format_duration(std::time::Duration::from_secs(
                (t + wait - now).div_ceil(1000)
            )),
            humantime::format_duration(policy.wait)
        ),
        (None, Some(_)) if rec.wave as usize + 1 >= policy.waves.len() => {
            "the next pass, which ends it".to_string()
        }
        (None, Some(_)) => format!("the next pass, which moves it to wave {}", rec.wave + 2),
    };
    RolloutStatus {
        module: module.to_string(),
        from: rec.from,
        from_commit: from.map(|b| b.commit.clone()),
        to: rec.to,
        to_commit: Some(to.commit.clone()),
        wave: rec.wave + 1,
        waves: policy.waves.len() as u64,
        nodes: order.len(),
        given: if rec.halted.is_some() { 0 } else { n },
        on_new,
        healthy_since: healthy_since.map(rfc3339),
        waiting_for,
        halted: rec.halted.as_ref().map(|h| HaltJson {
            node: h.node.clone(),
            reason: h.reason.clone(),
            at: rfc3339(h.at),
        }),
    }
}

/// Every rollout (of `modules`, or all), read from the store at `paths`.
pub fn rollouts(
    paths: &crate::store::Paths,
    mesh: &MeshConfig,
    modules: &[String],
) -> crate::Result<Vec<RolloutStatus>> {
    if !paths.state.exists() {
        return Ok(Vec::new());
    }
    let now = crate::clock::now_ms();
    Ok(paths.open()?.read(|r| {
        let fleet = super::Fleet::read_judged(r)?;
        list(r, mesh, modules, &fleet, now)
    })?)
}
