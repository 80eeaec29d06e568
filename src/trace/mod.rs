//! `mesh where`: follow a commit through the build graph to every node, and say per module and
//! node whether it runs the change, runs its effect, or what holds it.
//!
//! From the store alone, plus git: the modules a commit changed are those whose source id at the
//! commit differs from the one at its first parent (for a merge: what the merge brought in);
//! the modules rebuilt because of them are found by following [`delivery_dependents`]. A build
//! **carries** the commit when its commit is the commit or a descendant of it ([`ancestry`]) in
//! which the change was not undone (a changed module's source back to what it was before: a
//! revert). A build has the commit's **effect** when it carries it, when its artifact digest
//! equals that of a fit build that carries it (the change did not alter the artifact: early
//! cutoff), or, for a module the commit did not change, when it was built from the same source
//! against inputs that have the effect.

pub mod ancestry;
mod follow;
mod log;
pub mod rev;
mod summary;

pub use summary::{build_word, clock_time};

use crate::Result;
use crate::clock::rfc3339;
use crate::config::{Kind, MeshConfig};
use crate::declare::{Composed, compose};
use crate::graph::stale::{Known, ModuleState};
use crate::graph::{Loaded, ModuleGraph};
use crate::status::nodes::FailureJson;
use crate::store::{BUILDS, BuildRecord, NodeRecord, Paths, Store};
use follow::{Recorded, Trace};
use gix::ObjectId;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The modules whose build is redone when module `m`'s artifact moves, by module index: its
/// dependents along the edges a change is **delivered** through.
///
/// Only build edges deliver a change: `graph.inputs` (built against an input's artifact) and
/// the other members of a build cycle (built as one unit, each naming the others' source ids).
/// A dev or optional dependent is re-judged (its tests may now fail), but its artifact does not
/// carry the change to a machine. This is the one place that decides.
pub(crate) fn delivery_dependents(graph: &ModuleGraph) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); graph.modules.len()];
    for (from, inputs) in graph.inputs.iter().enumerate() {
        for &to in inputs {
            out[to].push(from);
        }
    }
    for (member, others) in graph.unit.iter().enumerate() {
        for &o in others {
            out[o].push(member);
        }
    }
    out
}

/// One node's answer about one module (the words `--json` uses; the table says them in full).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    /// Its read-back report names a build that carries the commit.
    Running,
    /// It runs a build with the commit's effect (the same artifact, or built the same way).
    Effect,
    /// The declaration carrying it was sent, and applying it failed (or is stuck).
    Failing,
    /// The declaration carrying it was sent and confirmed held; no report of applying it yet.
    Sent,
    /// A rollout of the build carrying it has not reached the node yet.
    Waiting,
    /// It would be sent a declaration carrying it, and was not (out of date).
    Declared,
    /// The node, the declared build or the ref moved on to a commit without it.
    Superseded,
    /// A fit build carries it, and is not the declared one (policy hold, or pinned).
    Held,
    /// The build that carries it is unfit.
    Unfit,
    /// The build that carries it is broken.
    Broken,
    /// It cannot be built or sent as things are: an input is unfit or broken, or the node is
    /// not worked out.
    Blocked,
    /// No build carries it yet (stale, or waits on an input).
    NotBuilt,
}

impl Answer {
    /// The word `--json` uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Running => "running",
            Answer::Effect => "effect",
            Answer::Failing => "failing",
            Answer::Sent => "sent",
            Answer::Waiting => "waiting",
            Answer::Declared => "declared",
            Answer::Superseded => "superseded",
            Answer::Held => "held",
            Answer::Unfit => "unfit",
            Answer::Broken => "broken",
            Answer::Blocked => "blocked",
            Answer::NotBuilt => "not-built",
        }
    }

    /// Whether the node runs the change or its effect.
    pub(crate) fn is_live(self) -> bool {
        matches!(self, Answer::Running | Answer::Effect)
    }

    /// Whether waiting will not change it without a person: a failure, a refusal, a verdict, a
    /// block, or the change gone from what the mesh delivers.
    pub(crate) fn is_final(self) -> bool {
        matches!(
            self,
            Answer::Failing | Answer::Superseded | Answer::Unfit | Answer::Broken | Answer::Blocked
        )
    }
}

/// The answer about a module's build, the same for every node (libraries have only this).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BuildAnswer {
    /// A fit build has the commit's effect.
    Built,
    /// The build that carries it is unfit.
    Unfit,
    /// The build that carries it is broken.
    Broken,
    /// An input is unfit or broken.
    Blocked,
    /// Not built yet: stale, waits on an input, or not on the ref yet.
    NotBuilt,
    /// The ref moved on to a commit without it.
    Superseded,
}

/// One node's line.
#[derive(Debug, Clone, Serialize)]
pub struct NodeWhere {
    /// The node.
    pub name: String,
    /// The answer.
    pub state: Answer,
    /// Running: when the node reported applying the build; failing because the node refused
    /// the declaration: when it did (RFC 3339).
    pub since: Option<String>,
    /// The build the answer is about (running, sent, declared, held, unfit…).
    pub build: Option<u64>,
    /// The build of this module the node runs now, as it last reported.
    pub runs: Option<u64>,
    /// Why, in words: what it waits on, what blocks it, what superseded it.
    pub reason: Option<String>,
    /// The inputs it waits on (not built yet).
    pub waits_on: Vec<String>,
    /// The controller that declared what the node runs, as far as this one knows.
    pub controller: Option<String>,
    /// The last time mesh reached the node.
    pub last_seen: Option<String>,
    /// Since when it cannot be reached, while it cannot.
    pub unreachable_since: Option<String>,
    /// The failure streak about the declaration it was sent (failing).
    pub failure: Option<FailureJson>,
    /// Unix ms of `since`, for tables.
    #[serde(skip)]
    pub since_ms: Option<u64>,
    /// Unix ms of `last_seen`, for tables.
    #[serde(skip)]
    pub last_seen_ms: Option<u64>,
    /// Unix ms of `unreachable_since`, for tables.
    #[serde(skip)]
    pub unreachable_ms: Option<u64>,
}

/// A module's build answer.
#[derive(Debug, Clone, Serialize)]
pub struct BuildWhere {
    /// The answer.
    pub state: BuildAnswer,
    /// The build it is about.
    pub build: Option<u64>,
    /// Why, in words.
    pub reason: Option<String>,
    /// The inputs it waits on.
    pub waits_on: Vec<String>,
}

/// One module the commit reaches: changed by it, or rebuilt because of it.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleWhere {
    /// The module.
    pub name: String,
    /// Service or library.
    pub kind: Kind,
    /// Its repository.
    pub repo: String,
    /// The commit followed.
    pub commit: String,
    /// Whether the commit changed its source (else it is rebuilt because of an input).
    pub changed: bool,
    /// The changed modules it is reached from (itself, when changed), sorted.
    pub via: Vec<String>,
    /// Its build's answer.
    pub build: BuildWhere,
    /// One line per node it is assigned to, sorted by node.
    pub nodes: Vec<NodeWhere>,
}

/// One commit followed.
#[derive(Debug, Clone, Serialize)]
pub struct RevWhere {
    /// The repository.
    pub repo: String,
    /// The commit.
    pub commit: String,
    /// Its subject line.
    pub subject: String,
    /// Its committer time (RFC 3339).
    pub at: String,
    /// The modules whose source it changed, sorted.
    pub changed: Vec<String>,
}

/// The whole answer: what `mesh where` prints as a table or `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct Where {
    /// The commits followed: REV, or each repository's ref.
    pub revs: Vec<RevWhere>,
    /// The modules they reach, in graph order (dependencies first).
    pub modules: Vec<ModuleWhere>,
    /// Whether every node a reached module is assigned to runs the commit or its effect.
    pub everywhere: bool,
    /// One line for people: `route-proxy on 2/3 nodes; edge-3 unreachable since 10:02`.
    pub summary: String,
}

impl Where {
    /// Every node line, with its module.
    pub fn lines(&self) -> impl Iterator<Item = (&ModuleWhere, &NodeWhere)> {
        self.modules
            .iter()
            .flat_map(|m| m.nodes.iter().map(move |n| (m, n)))
    }

    /// Whether some line is final: waiting will not make it live.
    pub fn any_final(&self) -> bool {
        self.lines().any(|(_, n)| n.state.is_final())
    }

    /// The nodes not live yet, for `--wait`.
    pub fn pending_nodes(&self) -> BTreeSet<String> {
        self.lines()
            .filter(|(_, n)| !n.state.is_live())
            .map(|(_, n)| n.name.clone())
            .collect()
    }
}

/// Follows `rev` (default: each repository's configured ref; `repo` picks the repository) to
/// every node, from the store and git alone. Changes nothing.
pub fn trace(
    paths: &Paths,
    mesh: &MeshConfig,
    loaded: &Loaded,
    rev: Option<&str>,
    repo: Option<&str>,
) -> Result<Where> {
    let graph = &loaded.graph;
    let revs = pick_revs(loaded, rev, repo)?;

    // One open of the store for everything: the facts log is read once the lines are known.
    let store = paths.open()?;
    let stored = Stored::read(&store, mesh)?;
    let states = module_states(paths, loaded, stored.known);
    let mut by_module: HashMap<&str, Vec<&BuildRecord>> = HashMap::new();
    for b in &stored.builds {
        by_module.entry(b.module.as_str()).or_default().push(b);
    }
    let placement = mesh.placement();
    let dependents = delivery_dependents(graph);
    let facts = Recorded {
        graph,
        states: &states,
        by_module: &by_module,
        records: &stored.records,
        declared: &stored.declared,
        composed: &stored.composed,
        placement: &placement,
        empty: NodeRecord::default(),
        controllers: &stored.controllers,
        foreign: &stored.foreign,
        health: &stored.health,
        waiting: &stored.waiting,
    };

    let (out_revs, mut modules) = follow_each(&revs, loaded, &facts, &dependents)?;
    log::read_facts(&store, &stored.records, &mut modules, &by_module)?;
    let everywhere = modules
        .iter()
        .all(|m| m.nodes.iter().all(|n| n.state.is_live()));
    let summary = summary::summary(&out_revs, &modules, everywhere, crate::clock::now_ms());
    Ok(Where {
        revs: out_revs,
        modules,
        everywhere,
        summary,
    })
}

/// What the store says that a trace needs, read in one transaction.
struct Stored {
    /// What the staleness judgement reads.
    known: Known,
    /// Every build, oldest first.
    builds: Vec<BuildRecord>,
    /// Every node's record.
    records: HashMap<String, NodeRecord>,
    /// The declared build of each module.
    declared: HashMap<String, BuildRecord>,
    /// Every node's declaration as it would be sent now.
    composed: BTreeMap<String, Composed>,
    /// Node → the controller that declared what it runs.
    controllers: HashMap<String, String>,
    /// The nodes that hold another controller's declaration in place of this one's.
    foreign: HashSet<String>,
    /// Node → what its modules' checks said.
    health: HashMap<String, crate::store::NodeHealth>,
    /// (module, node) a rollout has not reached yet → its wave and how many.
    waiting: crate::rollout::Waiting,
}

impl Stored {
    /// Reads it all from `store`.
    fn read(store: &Store, mesh: &MeshConfig) -> Result<Stored> {
        Ok(store.read(|r| {
            let known = Known::load(r)?;
            let builds: Vec<BuildRecord> = r
                .range(BUILDS, b"", None)?
                .into_iter()
                .map(|(_, b)| b)
                .collect();
            let fleet = crate::rollout::Fleet::read_judged(r)?;
            let compose::Stored {
                declared,
                composed,
                staged,
                ..
            } = compose::stored_in(r, mesh, &fleet)?;
            let waiting = crate::rollout::waiting(mesh, &declared, &staged);
            let crate::rollout::Fleet {
                records, health, ..
            } = fleet;
            let mut controllers: HashMap<String, String> = records
                .iter()
                .filter(|(_, rec)| rec.sent.is_some())
                .map(|(n, _)| (n.clone(), mesh.controller.clone()))
                .collect();
            let mut foreign = HashSet::new();
            for (node, e) in crate::deliver::elsewhere::all(r)? {
                if !e.keeps_ours() {
                    foreign.insert(node.clone());
                }
                controllers.insert(node, e.controller);
            }
            Ok(Stored {
                known,
                builds,
                records,
                declared,
                composed,
                controllers,
                foreign,
                health,
                waiting,
            })
        })?)
    }
}

/// Every module's state at the refs, as `mesh plan` judges it.
fn module_states(paths: &Paths, loaded: &Loaded, known: Known) -> Vec<ModuleState> {
    let known = Known {
        artifacts: Some(paths.artifacts()),
        ..known
    };
    crate::graph::stale::assess(
        &loaded.graph,
        &crate::graph::stale::module_inputs(loaded),
        &known,
    )
}

/// Follows each of `revs`: the commit as followed, and the modules it reaches, in turn.
fn follow_each(
    revs: &[(usize, ObjectId)],
    loaded: &Loaded,
    facts: &Recorded<'_>,
    dependents: &[Vec<usize>],
) -> Result<(Vec<RevWhere>, Vec<ModuleWhere>)> {
    let graph = &loaded.graph;
    let mut out_revs = Vec::new();
    let mut modules = Vec::new();
    for &(ri, commit) in revs {
        let snap = &loaded.snapshot.repos[ri];
        let mut t = Trace::new(ri, commit, loaded, facts, dependents)?;
        out_revs.push(RevWhere {
            repo: snap.name.clone(),
            commit: commit.to_string(),
            subject: t.subject.clone(),
            at: rfc3339(t.time.max(0) as u64 * 1000),
            changed: t
                .changed
                .iter()
                .map(|&i| graph.modules[i].name.clone())
                .collect(),
        });
        modules.extend(t.modules()?);
    }
    Ok((out_revs, modules))
}

/// Which (repository, commit) pairs to follow.
fn pick_revs(
    loaded: &Loaded,
    rev: Option<&str>,
    repo: Option<&str>,
) -> Result<Vec<(usize, ObjectId)>> {
    let repos = &loaded.snapshot.repos;
    let names = || {
        repos
            .iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let candidates: Vec<usize> = match repo {
        Some(name) => match repos.iter().position(|r| r.name == name) {
            Some(i) => vec![i],
            None => {
                return Err(crate::Error::Usage {
                    message: format!("the mesh has no repository `{name}`"),
                    hint: format!("--repo takes one of: {}", names()),
                });
            }
        },
        None => (0..repos.len()).collect(),
    };
    let Some(spec) = rev else {
        return Ok(candidates
            .into_iter()
            .map(|i| (i, repos[i].commit))
            .collect());
    };
    let mut found = Vec::new();
    let mut problem = None;
    for i in candidates {
        match rev::resolve(&repos[i].repo, spec) {
            Ok(Some(id)) => found.push((i, id)),
            Ok(None) => {}
            Err(e) => problem = Some(format!("repository `{}`: {e}", repos[i].name)),
        }
    }
    match found.len() {
        1 => Ok(found),
        0 => Err(crate::Error::Usage {
            message: problem.unwrap_or_else(|| {
                format!("`{spec}` names no commit in the mesh's repositories ({})", names())
            }),
            hint: "give a commit id (or the start of one), a branch or tag, or HEAD~1; --repo NAME picks the repository".into(),
        }),
        _ => Err(crate::Error::Usage {
            message: format!(
                "`{spec}` names a commit in more than one repository: {}",
                found
                    .iter()
                    .map(|(i, _)| repos[*i].name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            hint: "pass --repo NAME to say which".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphModule;
    use mesh_imports::ImportKind;
    use mesh_imports::resolve::Evidence;
    use std::collections::BTreeMap;

    #[test]
    fn a_change_is_delivered_through_build_edges_and_cycles_never_dev_edges() {
        // api ⇄ root (a cycle of build edges), svc built against root, kit used by svc's tests.
        let names = ["api", "kit", "root", "svc"];
        let modules = names
            .iter()
            .map(|n| GraphModule {
                name: n.to_string(),
                kind: Kind::Library,
                repo: "r".into(),
                path: n.to_string(),
                source: format!("src-{n}"),
                provides: vec![],
            })
            .collect();
        let edge = |kind| {
            crate::graph::ImportEdge::of(vec![Evidence {
                file: "f".into(),
                line: 1,
                import: "i".into(),
                kind,
            }])
        };
        let mut imports = BTreeMap::new();
        imports.insert((0, 2), edge(ImportKind::Build));
        imports.insert((2, 0), edge(ImportKind::Build));
        imports.insert((3, 2), edge(ImportKind::Build));
        imports.insert((3, 1), edge(ImportKind::Dev));
        let g = ModuleGraph::new(modules, imports, vec![], vec![]);
        let d = delivery_dependents(&g);
        assert_eq!(d[0], [2], "a change to api reaches root, in its cycle");
        let mut root = d[2].clone();
        root.sort_unstable();
        assert_eq!(root, [0, 3], "a change to root reaches api and svc");
        assert!(
            d[1].is_empty(),
            "kit reaches nobody: only svc's tests use it"
        );
    }
}
