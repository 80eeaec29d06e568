//! The module graph: modules and their edges (build, dev, optional, presence,
//! instantiation), the build order, and the cycles of build edges, each built as one unit.

pub mod answer;
pub mod cache;
mod cycle;
mod load;
mod names;
mod record;
mod scan;
pub mod stale;

pub use load::{Loaded, Stats, load, load_with_evidence, load_with_records, sources};
pub use scan::NOT_IN_REPOSITORY;

use crate::config::Kind;
use mesh_imports::ImportKind;
use mesh_imports::resolve::Evidence;
use serde::Serialize;
use std::collections::BTreeMap;

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

/// Which relationship an edge is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeKind {
    /// Built against (derived from imports in code the artifact is built from).
    Build,
    /// Imported only by code that is not part of the artifact: tests, benches, examples.
    Dev,
    /// Imported only where the code runs without it (a guarded Python import).
    Optional,
    /// Must exist on the same node (declared).
    Presence,
    /// Makes something for it (declared).
    Instantiation,
}

impl EdgeKind {
    /// The word used in output, JSON and `--kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Build => "build",
            EdgeKind::Dev => "dev",
            EdgeKind::Optional => "optional",
            EdgeKind::Presence => "presence",
            EdgeKind::Instantiation => "instantiation",
        }
    }

    /// The kind of an edge made by imports of this kind.
    pub(crate) fn of_import(kind: ImportKind) -> EdgeKind {
        match kind {
            ImportKind::Build => EdgeKind::Build,
            ImportKind::Dev => EdgeKind::Dev,
            ImportKind::Optional => EdgeKind::Optional,
        }
    }
}

impl std::fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a module's closure names another module's source id (rather than its artifact).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SourceInput {
    /// A dev edge: its tests may use the other module.
    Dev,
    /// An optional edge: it may use the other module when present.
    Optional,
    /// Both are members of one cycle of build edges, built as one unit.
    Cycle,
}

/// A cycle of build edges: its members are built as one unit.
#[derive(Debug, Clone, Serialize)]
pub struct Cycle {
    /// The members, by name.
    pub modules: Vec<String>,
    /// Every build edge between members, with one import line that makes it.
    pub edges: Vec<CycleEdge>,
}

/// One build edge inside a cycle, with the import that makes it.
#[derive(Debug, Clone, Serialize)]
pub struct CycleEdge {
    /// The importing member.
    pub from: String,
    /// The imported member.
    pub to: String,
    /// Repo-relative file of the import.
    pub file: String,
    /// Its line.
    pub line: u32,
    /// The import as written.
    pub import: String,
}

/// One edge between two modules.
#[derive(Debug, Clone, Serialize)]
pub struct Edge {
    /// The module that needs.
    pub from: String,
    /// The module needed.
    pub to: String,
    /// Which kind: for edges from imports, the strongest kind among them.
    pub kind: EdgeKind,
    /// For edges from imports: the import lines that make it, each with its kind.
    pub evidence: Vec<Evidence>,
}

/// An edge derived from imports, as the graph is assembled from it: the strongest kind among
/// its imports, and the import lines themselves when the load read them (only `mesh graph`
/// shows them: every other verb needs the kind alone, and reading every line of evidence
/// would be most of its cost).
#[derive(Debug, Clone, Default)]
pub struct ImportEdge {
    /// The strongest kind among its imports.
    pub kind: ImportKind,
    /// The import lines that make it; empty when the load did not read them.
    pub evidence: Vec<Evidence>,
}

impl ImportEdge {
    /// The edge these import lines make.
    pub fn of(evidence: Vec<Evidence>) -> ImportEdge {
        ImportEdge {
            kind: evidence.iter().map(|e| e.kind).max().unwrap_or_default(),
            evidence,
        }
    }
}

/// Modules (sorted by name) and edges, with a build order.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleGraph {
    /// Every module.
    pub modules: Vec<GraphModule>,
    /// Every edge, in kind order (build, dev, optional, presence, instantiation), each kind
    /// sorted by (from, to).
    pub edges: Vec<Edge>,
    /// The cycles of build edges, each built as one unit.
    pub cycles: Vec<Cycle>,
    /// Things a person should know (ambiguous names, skipped files).
    pub warnings: Vec<String>,
    /// Indices into `modules`, dependencies before their dependents; the members of a cycle
    /// together, by name.
    #[serde(skip)]
    pub order: Vec<usize>,
    /// Per module index: its build inputs, whose artifacts its closure names: the modules
    /// outside its cycle that it (or, in a cycle, any member of it) has build edges to, sorted.
    #[serde(skip)]
    pub inputs: Vec<Vec<usize>>,
    /// Per module index: the modules whose source ids its closure names (dev and optional
    /// edges, the other members of its cycle), sorted.
    #[serde(skip)]
    pub sources: Vec<Vec<(usize, SourceInput)>>,
    /// Per module index: the other members of its cycle (empty for most).
    #[serde(skip)]
    pub unit: Vec<Vec<usize>>,
}

impl ModuleGraph {
    /// Assembles the graph, its cycles and its build order. `imports` are the edges derived
    /// from imports; each takes the strongest kind among its imports.
    pub fn new(
        modules: Vec<GraphModule>,
        imports: BTreeMap<(usize, usize), ImportEdge>,
        declared: Vec<(usize, usize, EdgeKind)>,
        warnings: Vec<String>,
    ) -> ModuleGraph {
        let n = modules.len();
        let mut build: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut weak: Vec<Vec<(usize, SourceInput)>> = vec![Vec::new(); n];
        let mut edges: Vec<Edge> = Vec::with_capacity(imports.len() + declared.len());
        for ((from, to), ImportEdge { kind, evidence }) in imports {
            let kind = EdgeKind::of_import(kind);
            match kind {
                EdgeKind::Build => build[from].push(to),
                EdgeKind::Optional => weak[from].push((to, SourceInput::Optional)),
                _ => weak[from].push((to, SourceInput::Dev)),
            }
            edges.push(Edge {
                from: modules[from].name.clone(),
                to: modules[to].name.clone(),
                kind,
                evidence,
            });
        }
        let units = cycle::units(n, &build);
        let order = cycle::order(&units, &build);
        let mut unit = vec![Vec::new(); n];
        for members in units.iter().filter(|u| u.len() > 1) {
            for &m in members {
                unit[m] = members.iter().copied().filter(|&o| o != m).collect();
            }
        }
        // A unit is built against what any of its members imports from outside it: every
        // member waits for those inputs, names their artifacts, and is blocked by them.
        let inputs: Vec<Vec<usize>> = (0..n)
            .map(|m| {
                let mut v: Vec<usize> = std::iter::once(m)
                    .chain(unit[m].iter().copied())
                    .flat_map(|x| build[x].iter().copied())
                    .filter(|d| *d != m && !unit[m].contains(d))
                    .collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        let sources: Vec<Vec<(usize, SourceInput)>> = (0..n)
            .map(|m| {
                let mut v = weak[m].clone();
                v.extend(unit[m].iter().map(|&o| (o, SourceInput::Cycle)));
                v.sort_unstable();
                v.dedup_by_key(|(d, _)| *d);
                v
            })
            .collect();
        let cycles = cycle::describe(&modules, &units, &edges);
        edges.sort_by(|a, b| (a.kind, &a.from, &a.to).cmp(&(b.kind, &b.from, &b.to)));
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
        ModuleGraph {
            modules,
            edges,
            cycles,
            warnings,
            order,
            inputs,
            sources,
            unit,
        }
    }

    /// The index of the module called `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.modules
            .binary_search_by(|m| m.name.as_str().cmp(name))
            .ok()
    }

    /// The edge derived from imports from `a` to `b` (build, dev or optional), if any.
    pub fn import_edge(&self, a: &str, b: &str) -> Option<&Edge> {
        self.edges.iter().find(|e| {
            matches!(e.kind, EdgeKind::Build | EdgeKind::Dev | EdgeKind::Optional)
                && e.from == a
                && e.to == b
        })
    }
}
