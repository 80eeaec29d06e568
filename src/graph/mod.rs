//! The module graph: modules and their three kinds of edges, the build order, and cycles.

mod cycle;
mod load;
pub mod stale;

pub use load::{Loaded, Stats, load};

use crate::config::Kind;
use crate::imports::resolve::Evidence;
use miette::Diagnostic;
use serde::Serialize;
use std::collections::BTreeMap;
use thiserror::Error;

/// A build-edge cycle: no build order exists.
#[derive(Debug, Error, Diagnostic)]
pub enum GraphError {
    /// Modules import each other in a ring.
    #[error("build edges form a cycle:\n{cycle}")]
    #[diagnostic(
        code(mesh::graph::cycle),
        help(
            "a module cannot be built against itself: remove one of these imports, move the shared code into a library both import, or drop a false import with `// mesh: ignore` on its line or `[imports] ignore`"
        )
    )]
    Cycle {
        /// The ring, one line per edge with the import that makes it.
        cycle: String,
    },
}

/// A module as the graph shows it.
#[derive(Debug, Clone, Serialize)]
pub struct GraphModule {
    /// Its name.
    pub name: String,
    /// Service or library.
    pub kind: Kind,
    /// The repository it lives in.
    pub repo: String,
    /// Its directory in that repository (`""` for the root).
    pub path: String,
    /// Its source id.
    pub source: String,
    /// The import names it provides.
    pub provides: Vec<String>,
}

/// Which of the three relationships an edge is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeKind {
    /// Built against (derived from imports).
    Build,
    /// Must exist on the same node (declared).
    Presence,
    /// Makes something for it (declared).
    Instantiation,
}

/// One edge between two modules.
#[derive(Debug, Clone, Serialize)]
pub struct Edge {
    /// The module that needs.
    pub from: String,
    /// The module needed.
    pub to: String,
    /// Which kind.
    pub kind: EdgeKind,
    /// For build edges: the import lines that make it.
    pub evidence: Vec<Evidence>,
}

/// Modules (sorted by name) and edges, with a build order.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleGraph {
    /// Every module.
    pub modules: Vec<GraphModule>,
    /// Every edge, build edges first, each kind sorted by (from, to).
    pub edges: Vec<Edge>,
    /// Things a person should know (ambiguous names, skipped files).
    pub warnings: Vec<String>,
    /// Indices into `modules`, dependencies before their dependents.
    #[serde(skip)]
    pub order: Vec<usize>,
    /// Per module index: the indices it has build edges to (its build inputs), sorted.
    #[serde(skip)]
    pub inputs: Vec<Vec<usize>>,
}

impl ModuleGraph {
    /// Assembles the graph and its build order; a build-edge cycle is an error.
    pub fn new(
        modules: Vec<GraphModule>,
        build: BTreeMap<(usize, usize), Vec<Evidence>>,
        declared: Vec<(usize, usize, EdgeKind)>,
        warnings: Vec<String>,
    ) -> Result<ModuleGraph, GraphError> {
        let mut inputs = vec![Vec::new(); modules.len()];
        for &(from, to) in build.keys() {
            inputs[from].push(to);
        }
        let order = cycle::order(&modules, &inputs, &build)?;
        let mut edges: Vec<Edge> = build
            .into_iter()
            .map(|((from, to), evidence)| Edge {
                from: modules[from].name.clone(),
                to: modules[to].name.clone(),
                kind: EdgeKind::Build,
                evidence,
            })
            .collect();
        let mut declared: Vec<Edge> = declared
            .into_iter()
            .map(|(from, to, kind)| Edge {
                from: modules[from].name.clone(),
                to: modules[to].name.clone(),
                kind,
                evidence: Vec::new(),
            })
            .collect();
        declared.sort_by(|a, b| (a.kind, &a.from, &a.to).cmp(&(b.kind, &b.from, &b.to)));
        declared.dedup_by(|a, b| (a.kind, &a.from, &a.to) == (b.kind, &b.from, &b.to));
        edges.extend(declared);
        Ok(ModuleGraph {
            modules,
            edges,
            warnings,
            order,
            inputs,
        })
    }

    /// The index of the module called `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.modules
            .binary_search_by(|m| m.name.as_str().cmp(name))
            .ok()
    }

    /// The build edge from `a` to `b`, if there is one.
    pub fn build_edge(&self, a: &str, b: &str) -> Option<&Edge> {
        self.edges
            .iter()
            .find(|e| e.kind == EdgeKind::Build && e.from == a && e.to == b)
    }
}
