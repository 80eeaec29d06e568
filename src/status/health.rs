//! What `mesh status` says of health: each module's check as the nodes report it, and the
//! node that runs a module whose check fails.

use super::nodes::NodeState;
use crate::clock::rfc3339;
use crate::store::NodeHealth;
use serde::Serialize;

/// A module's health on a node, as its newest report said it.
#[derive(Debug, Clone, Serialize)]
pub struct HealthJson {
    /// Whether its check passed.
    pub healthy: bool,
    /// Since when it has said so (RFC 3339 UTC).
    pub since: String,
    /// The build it runs there, when that is not the one it is declared (absent: that one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// Why not: how the check ended and its output's tail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Unhealthy reports in a row (absent while healthy).
    #[serde(skip_serializing_if = "is_zero")]
    pub count: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl HealthJson {
    /// `h` of a module declared build `declared` there. A node's status carries one per module
    /// (50,000 on a fleet of 1,000 nodes x 50 modules): what it says of a healthy module that
    /// runs what it is declared is kept to its two words.
    pub(super) fn of(h: &crate::store::ModuleHealth, declared: u64) -> HealthJson {
        HealthJson {
            healthy: h.healthy,
            since: rfc3339(h.since),
            build: (h.build != declared.to_string()).then(|| h.build.clone()),
            output: h.output.clone(),
            count: h.count,
        }
    }
}

/// A node that applied what it was sent and runs a module whose check fails: unhealthy, naming
/// each module and what its check said; stuck once one said so [`crate::store::STUCK_AFTER`]
/// reports in a row. None when every check passes.
pub(super) fn unhealthy(health: &NodeHealth) -> Option<(NodeState, Option<String>)> {
    let sick: Vec<(&String, &crate::store::ModuleHealth)> = health.unhealthy().collect();
    if sick.is_empty() {
        return None;
    }
    let said = sick
        .iter()
        .map(|(m, h)| {
            let output = h.output.as_deref().unwrap_or("its check failed");
            format!("{m} (build {}) is unhealthy: {output}", h.build)
        })
        .collect::<Vec<_>>()
        .join("; ");
    let most = sick.iter().map(|(_, h)| h.count).max().unwrap_or(0);
    Some(if most >= crate::store::STUCK_AFTER {
        (
            NodeState::Stuck,
            Some(format!("{most} unhealthy reports in a row: {said}")),
        )
    } else {
        (NodeState::Unhealthy, Some(said))
    })
}
