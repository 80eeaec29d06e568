//! The build order (petgraph's topological sort) and, when there is none, the cycle with its
//! evidence.

use super::{GraphError, GraphModule};
use crate::imports::resolve::Evidence;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::BTreeMap;

/// Dependencies first. Ties are broken by name so the order is stable.
pub fn order(
    modules: &[GraphModule],
    inputs: &[Vec<usize>],
    evidence: &BTreeMap<(usize, usize), Vec<Evidence>>,
) -> Result<Vec<usize>, GraphError> {
    // Edges point from a dependency to its dependent, so a topological order builds inputs first.
    let mut g: DiGraph<usize, ()> = DiGraph::with_capacity(modules.len(), evidence.len());
    let nodes: Vec<NodeIndex> = (0..modules.len()).map(|i| g.add_node(i)).collect();
    for (from, tos) in inputs.iter().enumerate() {
        for &to in tos {
            g.add_edge(nodes[to], nodes[from], ());
        }
    }
    match petgraph::algo::toposort(&g, None) {
        Ok(sorted) => Ok(sorted.into_iter().map(|n| g[n]).collect()),
        Err(_) => Err(GraphError::Cycle {
            cycle: describe_cycle(modules, inputs, evidence),
        }),
    }
}

/// Finds one ring in the strongly connected components and writes it one edge per line.
fn describe_cycle(
    modules: &[GraphModule],
    inputs: &[Vec<usize>],
    evidence: &BTreeMap<(usize, usize), Vec<Evidence>>,
) -> String {
    let mut g: DiGraph<usize, ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..modules.len()).map(|i| g.add_node(i)).collect();
    for (from, tos) in inputs.iter().enumerate() {
        for &to in tos {
            g.add_edge(nodes[from], nodes[to], ());
        }
    }
    let Some(scc) = petgraph::algo::tarjan_scc(&g)
        .into_iter()
        .filter(|c| c.len() > 1)
        .min_by_key(|c| c.iter().map(|n| modules[g[*n]].name.clone()).min())
    else {
        return "(a cycle exists but could not be traced)".into();
    };
    let members: Vec<usize> = scc.iter().map(|n| g[*n]).collect();
    let start = members
        .iter()
        .copied()
        .min_by_key(|&i| &modules[i].name)
        .unwrap_or(members[0]);
    // Walk inside the component back to the start: a breadth-first search gives the shortest ring.
    let mut prev: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    let mut ring = Vec::new();
    'search: while let Some(at) = queue.pop_front() {
        for &next in &inputs[at] {
            if !members.contains(&next) {
                continue;
            }
            if next == start {
                let mut path = vec![at];
                let mut cur = at;
                while cur != start {
                    cur = prev[&cur];
                    path.push(cur);
                }
                path.reverse();
                ring = path;
                break 'search;
            }
            if let std::collections::btree_map::Entry::Vacant(e) = prev.entry(next) {
                e.insert(at);
                queue.push_back(next);
            }
        }
    }
    let mut out = String::new();
    for (k, &from) in ring.iter().enumerate() {
        let to = ring[(k + 1) % ring.len()];
        let ev = evidence.get(&(from, to)).and_then(|v| v.first());
        let why = ev.map_or_else(String::new, |e| {
            format!("   {}:{}: {}", e.file, e.line, e.import)
        });
        out.push_str(&format!(
            "  {} → {}{}\n",
            modules[from].name, modules[to].name, why
        ));
    }
    out.trim_end().to_string()
}
