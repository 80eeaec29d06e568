//! Taking the health a node's report carries into the store: each module's check said healthy
//! or not, since when, and why. Pure, like the account it is part of.
//!
//! - One fact when a module turns unhealthy, one when it is healthy again: never one per
//!   report.
//! - [`STUCK_AFTER`] unhealthy reports in a row make the node stuck (one fact), as failures do.
//! - A module a report carries no health for (no check, or nothing runs) is forgotten: absence
//!   is not health, and it is not unhealth either — status judges such a module as before.

use crate::events::Fact;
use crate::store::{ModuleHealth, NodeHealth, STUCK_AFTER};
use mesh_node::{Outcome, Report};

/// Takes `report`'s health into `health` (the node's), returning the facts that changed.
/// `at` is when the report was written (Unix ms), for a `since` the node's words do not give.
pub(crate) fn take(health: &mut NodeHealth, node: &str, report: &Report, at: u64) -> Vec<Fact> {
    if report.outcome == Outcome::Refused {
        // A refusal says nothing of what runs.
        return Vec::new();
    }
    let mut facts = Vec::new();
    let mut now = std::collections::BTreeMap::new();
    for r in &report.resources {
        let (Some(module), Some(h)) = (r.id.strip_prefix("module:"), &r.health) else {
            continue;
        };
        let before = health.modules.get(module);
        let since = humantime::parse_rfc3339(&h.since)
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(at, |d| d.as_millis() as u64);
        let count = match before {
            _ if h.healthy => 0,
            Some(b) if !b.healthy && b.build == h.build => b.count + 1,
            _ => 1,
        };
        let turned = before.is_none_or(|b| b.healthy != h.healthy || b.build != h.build);
        let output = h.output.clone().unwrap_or_default();
        match (h.healthy, turned) {
            (false, true) => facts.push(Fact::Unhealthy {
                node: node.to_string(),
                module: module.to_string(),
                build: h.build.clone(),
                output: output.clone(),
            }),
            (true, _) if before.is_some_and(|b| !b.healthy) => facts.push(Fact::Healthy {
                node: node.to_string(),
                module: module.to_string(),
            }),
            _ => {}
        }
        if count == STUCK_AFTER {
            facts.push(Fact::Stuck {
                node: node.to_string(),
                resources: vec![r.id.clone()],
            });
        }
        now.insert(
            module.to_string(),
            ModuleHealth {
                healthy: h.healthy,
                since,
                build: h.build.clone(),
                commit: h.commit.clone(),
                output: h.output.clone(),
                count,
            },
        );
    }
    health.modules = now;
    facts
}

#[cfg(test)]
mod tests {
    use super::*;
    use mesh_node::{Health, ResourceOutcome, ResourceReport};

    fn report(outcome: Outcome, health: &[(&str, bool, &str)]) -> Report {
        Report {
            report_sequence: 1,
            declaration: None,
            outcome,
            reason: None,
            resources: health
                .iter()
                .map(|(m, healthy, build)| ResourceReport {
                    id: format!("module:{m}"),
                    outcome: ResourceOutcome::Ok,
                    reason: None,
                    rolled_back: None,
                    health: Some(Health {
                        healthy: *healthy,
                        since: "2026-12-04T10:00:00Z".into(),
                        build: build.to_string(),
                        commit: format!("c{build}"),
                        output: (!healthy).then(|| "check exited with status 1".into()),
                    }),
                    secrets: Default::default(),
                })
                .collect(),
            host_version: "x".into(),
            at: "2026-12-04T10:00:00Z".into(),
            journal: None,
        }
    }

    #[test]
    fn one_fact_on_each_turn_and_stuck_after_three_in_a_row() {
        let mut h = NodeHealth::default();
        let ok = report(Outcome::Applied, &[("web", true, "1")]);
        let sick = report(Outcome::Checked, &[("web", false, "1")]);
        assert!(
            take(&mut h, "n", &ok, 0).is_empty(),
            "healthy from the start"
        );
        let kinds = |f: Vec<Fact>| f.iter().map(|f| f.kind()).collect::<Vec<_>>();
        assert_eq!(kinds(take(&mut h, "n", &sick, 0)), ["unhealthy"]);
        assert_eq!(kinds(take(&mut h, "n", &sick, 0)), Vec::<&str>::new());
        assert_eq!(kinds(take(&mut h, "n", &sick, 0)), ["stuck"]);
        assert_eq!(h.modules["web"].count, 3);
        assert_eq!(kinds(take(&mut h, "n", &sick, 0)), Vec::<&str>::new());
        assert_eq!(kinds(take(&mut h, "n", &ok, 0)), ["healthy"]);
        assert_eq!(h.modules["web"].count, 0);
        // Another build that is unhealthy is a new streak, and a new fact.
        take(&mut h, "n", &sick, 0);
        let other = report(Outcome::Checked, &[("web", false, "2")]);
        assert_eq!(kinds(take(&mut h, "n", &other, 0)), ["unhealthy"]);
        assert_eq!(h.modules["web"].count, 1);
        // No health said: forgotten, not called healthy.
        take(&mut h, "n", &report(Outcome::Applied, &[]), 0);
        assert!(h.modules.is_empty());
        // A refusal changes nothing.
        take(&mut h, "n", &sick, 0);
        take(&mut h, "n", &report(Outcome::Refused, &[]), 0);
        assert_eq!(h.modules.len(), 1);
    }
}
