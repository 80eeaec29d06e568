//! `mesh plan`: every module's answer (current, stale and why, waits on, blocked by) in graph
//! order, computed from the store alone. Changes nothing.

use crate::Result;
use crate::graph::Loaded;
use crate::graph::stale::{self, Known, ModuleState};
use crate::store::Paths;
use crate::store::Verdict;
use serde::Serialize;

/// One module's line of the plan.
#[derive(Debug, Clone, Serialize)]
pub struct PlanModule {
    /// The module.
    pub name: String,
    /// `current`, `stale`, `waits` or `blocked`.
    pub state: &'static str,
    /// Why (for stale and blocked), or what it waits on.
    pub reason: Option<String>,
    /// The inputs it waits on.
    pub waits_on: Vec<String>,
    /// The verdict of its current build, if it is current.
    pub verdict: Option<Verdict>,
}

/// One node's line of the plan.
#[derive(Debug, Clone, Serialize)]
pub struct PlanNode {
    /// The node.
    pub name: String,
    /// The node's state, as `status` says it.
    pub state: crate::status::nodes::NodeState,
    /// Why it is not worked out.
    pub reason: Option<String>,
    /// The digest it would be sent, when it can be composed.
    pub would_send: Option<String>,
}

/// Every node's line, as `status` says it (one account for every verb), with its would-send.
pub fn nodes(status: &crate::status::nodes::Status) -> Vec<PlanNode> {
    status
        .nodes
        .iter()
        .map(|n| PlanNode {
            name: n.name.clone(),
            state: n.state,
            reason: n.reason.clone(),
            would_send: n.declared.as_ref().map(|d| d.digest.clone()),
        })
        .collect()
}

/// The plan.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// Modules in graph order.
    pub modules: Vec<PlanModule>,
    /// Nodes and what would be sent to them.
    pub nodes: Vec<PlanNode>,
    /// Each instantiation edge performed: made, waiting or failed.
    pub instantiations: Vec<crate::secrets::provided::EdgeState>,
    /// Warnings from the graph (ambiguous names).
    pub warnings: Vec<String>,
}

/// Every module's state, from the store alone.
pub(crate) fn module_states(paths: &Paths, loaded: &Loaded) -> Result<(Vec<ModuleState>, Known)> {
    let inputs = stale::module_inputs(loaded);
    // Read-only (no write transaction, no sync): a plan writes nothing. A store that is
    // missing, damaged or of another format is opened as every verb opens it, which says why.
    let mut known = match crate::store::Store::peek(&paths.state, Known::load) {
        Some(Ok(known)) => known,
        _ => paths.open()?.read(Known::load)?,
    };
    known.artifacts = Some(paths.artifacts());
    Ok((stale::assess(&loaded.graph, &inputs, &known), known))
}

/// Computes the plan.
pub fn plan(paths: &Paths, loaded: &Loaded) -> Result<Plan> {
    let g = &loaded.graph;
    let (states, _) = module_states(paths, loaded)?;
    let modules = g
        .order
        .iter()
        .map(|&m| {
            let name = g.modules[m].name.clone();
            match &states[m] {
                ModuleState::Current { verdict, .. } => PlanModule {
                    name,
                    state: "current",
                    reason: None,
                    waits_on: vec![],
                    verdict: Some(*verdict),
                },
                ModuleState::Stale(r) => PlanModule {
                    name,
                    state: "stale",
                    reason: Some(r.to_string()),
                    waits_on: vec![],
                    verdict: None,
                },
                ModuleState::Waits(on) => {
                    let on: Vec<String> = on.iter().map(|&i| g.modules[i].name.clone()).collect();
                    PlanModule {
                        name,
                        state: "waits",
                        reason: Some(format!("waits on {}", on.join(", "))),
                        waits_on: on,
                        verdict: None,
                    }
                }
                ModuleState::Blocked(by) => {
                    let why = match &states[*by] {
                        ModuleState::Current { verdict, .. } => {
                            format!("blocked by {} ({verdict})", g.modules[*by].name)
                        }
                        _ => format!("blocked by {}", g.modules[*by].name),
                    };
                    PlanModule {
                        name,
                        state: "blocked",
                        reason: Some(why),
                        waits_on: vec![],
                        verdict: None,
                    }
                }
            }
        })
        .collect();
    Ok(Plan {
        modules,
        nodes: Vec::new(),
        instantiations: Vec::new(),
        warnings: g.warnings.clone(),
    })
}
