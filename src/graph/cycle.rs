//! Cycles of build edges and the build order. A cycle is legal (Go modules may import each
//! other's packages): its members — one strongly connected component — are one unit, built
//! together, in name order.

use super::{Cycle, CycleEdge, Edge, EdgeKind, GraphModule};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeSet, HashSet};

/// The units of the build graph: its strongly connected components (petgraph's Tarjan), each
/// sorted by index (modules are sorted by name), most of them single modules.
pub(crate) fn units(n: usize, build: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut g: DiGraph<usize, ()> = DiGraph::with_capacity(n, 0);
    let nodes: Vec<NodeIndex> = (0..n).map(|i| g.add_node(i)).collect();
    for (from, tos) in build.iter().enumerate() {
        for &to in tos {
            g.add_edge(nodes[from], nodes[to], ());
        }
    }
    petgraph::algo::tarjan_scc(&g)
        .into_iter()
        .map(|c| {
            let mut m: Vec<usize> = c.into_iter().map(|x| g[x]).collect();
            m.sort_unstable();
            m
        })
        .collect()
}

/// Dependencies before their dependents, a unit's members together; among units that are
/// ready at once, the one whose first member's name sorts first, so the order is stable.
pub fn order(units: &[Vec<usize>], build: &[Vec<usize>]) -> Vec<usize> {
    let n = build.len();
    let mut unit_of = vec![0; n];
    for (u, members) in units.iter().enumerate() {
        for &m in members {
            unit_of[m] = u;
        }
    }
    // How many units each unit still waits for, and who waits on each.
    let mut waiting = vec![0usize; units.len()];
    let mut dependents: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); units.len()];
    for (from, tos) in build.iter().enumerate() {
        for &to in tos {
            let (uf, ut) = (unit_of[from], unit_of[to]);
            if uf != ut && dependents[ut].insert(uf) {
                waiting[uf] += 1;
            }
        }
    }
    let mut ready: BTreeSet<(usize, usize)> = (0..units.len())
        .filter(|&u| waiting[u] == 0)
        .map(|u| (units[u][0], u))
        .collect();
    let mut out = Vec::with_capacity(n);
    while let Some((_, u)) = ready.pop_first() {
        out.extend(units[u].iter().copied());
        for &d in &dependents[u] {
            waiting[d] -= 1;
            if waiting[d] == 0 {
                ready.insert((units[d][0], d));
            }
        }
    }
    out
}

/// Every unit of more than one module as a [`Cycle`]: its members and each build edge
/// between them with its first import.
pub fn describe(modules: &[GraphModule], units: &[Vec<usize>], edges: &[Edge]) -> Vec<Cycle> {
    let mut cycles: Vec<Cycle> = units
        .iter()
        .filter(|u| u.len() > 1)
        .map(|u| {
            let names: Vec<String> = u.iter().map(|&m| modules[m].name.clone()).collect();
            let member: HashSet<&str> = names.iter().map(String::as_str).collect();
            let mut inner: Vec<CycleEdge> = edges
                .iter()
                .filter(|e| {
                    e.kind == EdgeKind::Build
                        && member.contains(e.from.as_str())
                        && member.contains(e.to.as_str())
                })
                .filter_map(|e| {
                    let ev = e
                        .evidence
                        .iter()
                        .find(|ev| ev.kind == mesh_imports::ImportKind::Build)?;
                    Some(CycleEdge {
                        from: e.from.clone(),
                        to: e.to.clone(),
                        file: ev.file.clone(),
                        line: ev.line,
                        import: ev.import.clone(),
                    })
                })
                .collect();
            inner.sort_by(|a, b| (&a.from, &a.to).cmp(&(&b.from, &b.to)));
            Cycle {
                modules: names,
                edges: inner,
            }
        })
        .collect();
    cycles.sort_by(|a, b| a.modules.cmp(&b.modules));
    cycles
}

/// The cycles made by Rust imports alone: every build import on every edge between their
/// members is in a `.rs` file. Cargo forbids a cycle of normal dependencies, so such a cycle
/// can only be an import the scanner misread, never a unit to build.
pub(crate) fn rust_only<'a>(cycles: &'a [Cycle], edges: &[Edge]) -> Vec<&'a Cycle> {
    cycles
        .iter()
        .filter(|c| {
            !c.edges.is_empty()
                && c.edges.iter().all(|ce| {
                    edges
                        .iter()
                        .filter(|e| e.kind == EdgeKind::Build && e.from == ce.from && e.to == ce.to)
                        .flat_map(|e| &e.evidence)
                        .filter(|ev| ev.kind == mesh_imports::ImportKind::Build)
                        .all(|ev| ev.file.ends_with(".rs"))
                })
        })
        .collect()
}

/// A Rust-only cycle as the scanner error it is: the crates, and each build import between
/// them (file:line), so the misread one can be found.
pub(crate) fn rust_cycle_message(c: &Cycle, edges: &[Edge]) -> String {
    let mut out = format!(
        "Rust crates {} import each other, which Cargo forbids: mesh misread one of these imports",
        c.modules.join(", ")
    );
    for ce in &c.edges {
        let evidence = edges
            .iter()
            .filter(|e| e.kind == EdgeKind::Build && e.from == ce.from && e.to == ce.to)
            .flat_map(|e| &e.evidence)
            .filter(|ev| ev.kind == mesh_imports::ImportKind::Build);
        for ev in evidence {
            out.push_str(&format!(
                "\n  {} → {}   {}:{}: {}",
                ce.from, ce.to, ev.file, ev.line, ev.import
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dag_orders_dependencies_first_and_ties_by_name() {
        // 0 ← 2, 1 ← 2: 2 needs 0 and 1; 3 stands alone.
        let build = vec![vec![], vec![], vec![0, 1], vec![]];
        let u = units(4, &build);
        assert!(u.iter().all(|x| x.len() == 1));
        assert_eq!(order(&u, &build), [0, 1, 2, 3]);
    }

    #[test]
    fn a_cycle_is_one_unit_built_together_after_its_inputs() {
        // 1 ⇄ 2 (a cycle) needs 3; 0 needs the cycle.
        let build = vec![vec![1], vec![2, 3], vec![1], vec![]];
        let u = units(4, &build);
        assert!(u.contains(&vec![1, 2]));
        assert_eq!(order(&u, &build), [3, 1, 2, 0]);
    }

    #[test]
    fn every_member_of_a_unit_is_built_against_the_units_inputs() {
        use crate::graph::{GraphModule, ModuleGraph};
        use mesh_imports::ImportKind;
        use mesh_imports::resolve::Evidence;
        // a ⇄ b, and b alone imports c: a waits for c too, and names c's artifact.
        let modules = ["a", "b", "c"]
            .iter()
            .map(|n| GraphModule {
                name: n.to_string(),
                kind: crate::config::Kind::Library,
                repo: "r".into(),
                path: n.to_string(),
                source: format!("s-{n}"),
                provides: vec![],
            })
            .collect();
        let ev = || {
            crate::graph::ImportEdge::of(vec![Evidence {
                file: "f".into(),
                line: 1,
                import: "i".into(),
                kind: ImportKind::Build,
            }])
        };
        let imports = [((0, 1), ev()), ((1, 0), ev()), ((1, 2), ev())]
            .into_iter()
            .collect();
        let g = ModuleGraph::new(modules, imports, vec![], vec![]);
        assert_eq!(g.inputs[0], [2]);
        assert_eq!(g.inputs[1], [2]);
        assert_eq!(g.order, [2, 0, 1]);
    }
}
