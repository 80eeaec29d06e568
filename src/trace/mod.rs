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
pub mod rev;

use crate::Result;
use crate::build::Verdict;
use crate::clock::rfc3339;
use crate::config::{Kind, MeshConfig, Policy};
use crate::declare::{Composed, compose};
use crate::events::{Event, Fact};
use crate::graph::stale::ModuleState;
use crate::graph::{Loaded, ModuleGraph};
use crate::source::RepoSnapshot;
use crate::status::nodes::FailureJson;
use crate::store::{BUILDS, BuildRecord, EVENTS, META, NodeRecord, Paths, id_key};
use gix::ObjectId;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The modules whose build is redone when module `m`'s artifact moves, by module index: its
/// dependents along the edges a change is **delivered** through.
///
/// Today's graph holds build edges only (`graph.inputs`). When edges gain kinds, only build edges
/// belong here: a dev or optional dependent is re-judged (its tests may now fail) but its
/// artifact does not carry the change to a machine. This is the one place that decides.
pub fn delivery_dependents(graph: &ModuleGraph) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); graph.modules.len()];
    for (from, inputs) in graph.inputs.iter().enumerate() {
        for &to in inputs {
            out[to].push(from);
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
    pub fn is_live(self) -> bool {
        matches!(self, Answer::Running | Answer::Effect)
    }

    /// Whether waiting will not change it without a person: a failure, a refusal, a verdict, a
    /// block, or the change gone from what the mesh delivers.
    pub fn is_final(self) -> bool {
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
    let snapshot = &loaded.snapshot;
    let graph = &loaded.graph;
    let revs = pick_revs(loaded, rev, repo)?;

    let (states, _) = crate::status::plan::module_states(paths, loaded)?;
    let (builds, records, declared, composed) = {
        let store = paths.open()?;
        store.read(|r| {
            let builds: Vec<BuildRecord> = r
                .range::<BuildRecord>(BUILDS, b"", None)?
                .into_iter()
                .map(|(_, b)| b)
                .collect();
            let declared = compose::declared(r)?;
            let composed = compose::compose_all(mesh, &declared);
            Ok((builds, crate::store::node_records(r)?, declared, composed))
        })?
    };
    let mut by_module: HashMap<&str, Vec<&BuildRecord>> = HashMap::new();
    for b in &builds {
        by_module.entry(b.module.as_str()).or_default().push(b);
    }
    let placement = compose::placement(mesh);
    let dependents = delivery_dependents(graph);
    let facts = Facts {
        graph,
        states: &states,
        by_module: &by_module,
        records: &records,
        declared: &declared,
        composed: &composed,
        placement: &placement,
        empty: NodeRecord::default(),
    };

    let mut out_revs = Vec::new();
    let mut modules = Vec::new();
    for (ri, commit) in revs {
        let snap = &snapshot.repos[ri];
        let mut t = Trace::new(ri, commit, loaded, &facts, &dependents)?;
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
    read_facts(paths, &mut modules, &by_module)?;
    let everywhere = modules
        .iter()
        .all(|m| m.nodes.iter().all(|n| n.state.is_live()));
    let summary = summary(&out_revs, &modules, everywhere, crate::clock::now_ms());
    Ok(Where {
        revs: out_revs,
        modules,
        everywhere,
        summary,
    })
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

/// What the store and the configuration say, read once for every commit followed.
struct Facts<'a> {
    graph: &'a ModuleGraph,
    states: &'a [ModuleState],
    by_module: &'a HashMap<&'a str, Vec<&'a BuildRecord>>,
    records: &'a HashMap<String, NodeRecord>,
    declared: &'a HashMap<String, BuildRecord>,
    composed: &'a BTreeMap<String, Composed>,
    placement: &'a HashMap<&'a str, BTreeSet<&'a str>>,
    empty: NodeRecord,
}

/// Whether a build has the commit's effect, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Carry {
    /// Built from the commit or a descendant that kept the change.
    Carries,
    /// Not built from it, but its artifact is that of a fit build that is.
    SameArtifact,
    /// Not built from it, but from the source the module has at it, against inputs with the
    /// effect.
    SameSource,
    /// Neither.
    No,
}

/// Following one commit.
struct Trace<'a> {
    snap: &'a RepoSnapshot,
    loaded: &'a Loaded,
    facts: &'a Facts<'a>,
    commit: ObjectId,
    subject: String,
    time: i64,
    /// Changed modules, sorted by index (= by name).
    changed: Vec<usize>,
    /// Reached modules in graph order, with the changed modules each is reached from.
    reached: Vec<(usize, BTreeSet<usize>)>,
    /// Source ids at the commit, by module index (modules of this repository).
    at_rev: HashMap<usize, Option<String>>,
    /// Source ids at the first parent, for changed modules.
    before: HashMap<usize, Option<String>>,
    /// What the walk found about every commit a reached module was built from, and the ref.
    found: HashMap<ObjectId, ancestry::Found>,
    /// Source ids of changed modules at commits that contain the commit.
    sources: HashMap<(ObjectId, usize), Option<String>>,
    /// Per reached module: each of its builds' carry.
    carry: HashMap<u64, Carry>,
    /// Per reached module: artifact digests of its fit builds with the effect.
    effect_artifacts: HashMap<usize, HashSet<String>>,
}

impl<'a> Trace<'a> {
    fn new(
        ri: usize,
        commit: ObjectId,
        loaded: &'a Loaded,
        facts: &'a Facts<'a>,
        dependents: &[Vec<usize>],
    ) -> Result<Trace<'a>> {
        let snap = &loaded.snapshot.repos[ri];
        let (subject, time) = rev::describe(snap, commit)?;
        let graph = facts.graph;
        let at = rev::at(snap, commit)?;
        let parent = rev::first_parent(snap, commit)?
            .map(|p| rev::at(snap, p))
            .transpose()?;
        let mut at_rev = HashMap::new();
        let mut before = HashMap::new();
        let mut changed = Vec::new();
        for (i, m) in loaded.snapshot.modules.iter().enumerate() {
            if m.repo != ri {
                continue;
            }
            let now = rev::source_at(&at, m)?;
            if now.is_none() {
                at_rev.insert(i, None);
                continue;
            }
            let was = match &parent {
                Some(p) if p.tree == at.tree => now.clone(),
                Some(p) => rev::source_at(p, m)?,
                None => None,
            };
            if was != now {
                changed.push(i);
                before.insert(i, was);
            }
            at_rev.insert(i, now);
        }
        // Everything the changed modules reach, with which changed modules reach it.
        let mut roots: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for &c in &changed {
            let mut todo = vec![c];
            while let Some(m) = todo.pop() {
                if roots.entry(m).or_default().insert(c) {
                    todo.extend(dependents[m].iter().copied());
                }
            }
        }
        let reached: Vec<(usize, BTreeSet<usize>)> = graph
            .order
            .iter()
            .filter_map(|m| roots.remove(m).map(|r| (*m, r)))
            .collect();

        let mut commits: HashSet<ObjectId> = HashSet::new();
        commits.insert(snap.commit);
        for (m, _) in &reached {
            for b in facts
                .by_module
                .get(graph.modules[*m].name.as_str())
                .into_iter()
                .flatten()
            {
                if b.repo == snap.name
                    && let Ok(id) = ObjectId::from_hex(b.commit.as_bytes())
                {
                    commits.insert(id);
                }
            }
        }
        let found = ancestry::containing(&snap.repo, &snap.name, commit, commits)?;
        let mut t = Trace {
            snap,
            loaded,
            facts,
            commit,
            subject,
            time,
            changed,
            reached,
            at_rev,
            before,
            found,
            sources: HashMap::new(),
            carry: HashMap::new(),
            effect_artifacts: HashMap::new(),
        };
        t.judge_builds()?;
        Ok(t)
    }

    /// The changed module among `roots` whose change was undone at `c`, if one was.
    fn reverted(&mut self, c: ObjectId, roots: &BTreeSet<usize>) -> Result<Option<usize>> {
        for &x in roots {
            if !self.before.contains_key(&x) {
                continue;
            }
            let src = match self.sources.get(&(c, x)) {
                Some(s) => s.clone(),
                None => {
                    let at = rev::at(self.snap, c)?;
                    let s = rev::source_at(&at, &self.loaded.snapshot.modules[x])?;
                    self.sources.insert((c, x), s.clone());
                    s
                }
            };
            if Some(&src) == self.before.get(&x) {
                return Ok(Some(x));
            }
        }
        Ok(None)
    }

    /// Whether commit `c` (of this repository) carries the commit for a module reached from
    /// `roots`; `Err(x)` when it contains it but `x`'s change was undone.
    fn commit_carries(
        &mut self,
        c: ObjectId,
        roots: &BTreeSet<usize>,
    ) -> Result<std::result::Result<bool, usize>> {
        if !self.found.get(&c).is_some_and(|f| f.contains) {
            return Ok(Ok(false));
        }
        Ok(match self.reverted(c, roots)? {
            Some(x) => Err(x),
            None => Ok(true),
        })
    }

    /// Every build of every reached module: does it carry the commit, have its effect, or not.
    fn judge_builds(&mut self) -> Result<()> {
        let facts = self.facts;
        let graph = facts.graph;
        let reached = self.reached.clone();
        let reached_set: HashSet<usize> = reached.iter().map(|(m, _)| *m).collect();
        for (m, roots) in &reached {
            let name = graph.modules[*m].name.as_str();
            let builds: &[&BuildRecord] = facts.by_module.get(name).map_or(&[], |v| v.as_slice());
            let same_repo = graph.modules[*m].repo == self.snap.name;
            // Affected inputs: the reached modules it is built against.
            let inputs: Vec<&str> = graph.inputs[*m]
                .iter()
                .filter(|d| reached_set.contains(d))
                .map(|&d| graph.modules[d].name.as_str())
                .collect();
            let inputs_have_effect = |b: &BuildRecord, eff: &HashMap<usize, HashSet<String>>| {
                graph.inputs[*m]
                    .iter()
                    .filter(|d| reached_set.contains(d))
                    .all(|&d| {
                        let dn = graph.modules[d].name.as_str();
                        b.inputs.iter().any(|(im, ia)| {
                            im == dn && eff.get(&d).is_some_and(|set| set.contains(ia))
                        })
                    })
            };
            // First what carries it or is built the same way, then what shares an artifact
            // with one of those (fit: only fit builds are ever declared).
            let at_rev = self.at_rev.get(m).cloned().flatten();
            let mut carry: Vec<(u64, Carry)> = Vec::new();
            for b in builds {
                let carries = if same_repo {
                    match ObjectId::from_hex(b.commit.as_bytes()) {
                        Ok(id) => matches!(self.commit_carries(id, roots)?, Ok(true)),
                        Err(_) => false,
                    }
                } else {
                    // Another repository's module: it carries the change through its inputs.
                    !inputs.is_empty() && inputs_have_effect(b, &self.effect_artifacts)
                };
                // Built from the very source the module has at the commit, against inputs with
                // the effect: what building the commit itself would have made (a revert's
                // effect is the build from before the reverted change).
                let same_source = same_repo
                    && at_rev.as_deref() == Some(b.source.as_str())
                    && inputs_have_effect(b, &self.effect_artifacts);
                carry.push((
                    b.id,
                    if carries {
                        Carry::Carries
                    } else if same_source {
                        Carry::SameSource
                    } else {
                        Carry::No
                    },
                ));
            }
            let fit_artifact = |b: &BuildRecord| {
                b.artifact
                    .as_ref()
                    .filter(|_| b.verdict == Verdict::Fit)
                    .cloned()
            };
            let mut eff: HashSet<String> = builds
                .iter()
                .zip(&carry)
                .filter(|(_, (_, c))| *c != Carry::No)
                .filter_map(|(b, _)| fit_artifact(b))
                .collect();
            for (b, (_, c)) in builds.iter().zip(carry.iter_mut()) {
                if *c == Carry::No && b.artifact.as_ref().is_some_and(|a| eff.contains(a)) {
                    *c = Carry::SameArtifact;
                }
            }
            eff.extend(
                builds
                    .iter()
                    .zip(&carry)
                    .filter(|(_, (_, c))| *c == Carry::SameArtifact)
                    .filter_map(|(b, _)| fit_artifact(b)),
            );
            self.carry.extend(carry);
            self.effect_artifacts.insert(*m, eff);
        }
        Ok(())
    }

    fn carry_of(&self, b: Option<&BuildRecord>) -> Carry {
        b.and_then(|b| self.carry.get(&b.id).copied())
            .unwrap_or(Carry::No)
    }

    /// Whether commit `c` is later than the one followed and does not carry it (a branch that
    /// moved sideways, a revert): `Some(why)`.
    fn supersedes(&mut self, b: &BuildRecord, roots: &BTreeSet<usize>) -> Result<Option<String>> {
        if b.repo != self.snap.name {
            return Ok(None);
        }
        let Ok(c) = ObjectId::from_hex(b.commit.as_bytes()) else {
            return Ok(None);
        };
        self.commit_supersedes(c, roots)
    }

    fn commit_supersedes(
        &mut self,
        c: ObjectId,
        roots: &BTreeSet<usize>,
    ) -> Result<Option<String>> {
        let Some(f) = self.found.get(&c).copied() else {
            return Ok(None);
        };
        Ok(match self.commit_carries(c, roots)? {
            Ok(true) => None,
            Err(x) => Some(format!(
                "{}'s change was undone at {}",
                self.facts.graph.modules[x].name,
                short(&c.to_string())
            )),
            Ok(false) if f.time > self.time => Some(format!(
                "{} is later and does not contain it",
                short(&c.to_string())
            )),
            Ok(false) => None,
        })
    }

    /// The module-level answer, and the fit build with the effect, if there is one.
    fn build_answer(
        &mut self,
        m: usize,
        roots: &BTreeSet<usize>,
    ) -> Result<(BuildWhere, Option<&'a BuildRecord>)> {
        let facts = self.facts;
        let graph = facts.graph;
        let name = graph.modules[m].name.as_str();
        let builds: &'a [&'a BuildRecord] = facts.by_module.get(name).map_or(&[], |v| v.as_slice());
        let answer = |state, build, reason: Option<String>| BuildWhere {
            state,
            build,
            reason,
            waits_on: Vec::new(),
        };
        if let Some(why) = self.commit_supersedes(self.snap.commit, roots)? {
            return Ok((
                answer(
                    BuildAnswer::Superseded,
                    None,
                    Some(format!("the ref moved on: {why}")),
                ),
                None,
            ));
        }
        let with_effect =
            |b: &&&BuildRecord| self.carry.get(&b.id).is_some_and(|c| *c != Carry::No);
        if let Some(fit) = builds
            .iter()
            .filter(with_effect)
            .filter(|b| b.verdict == Verdict::Fit)
            .max_by_key(|b| b.id)
        {
            return Ok((answer(BuildAnswer::Built, Some(fit.id), None), Some(*fit)));
        }
        if let Some(b) = builds.iter().filter(with_effect).max_by_key(|b| b.id) {
            let why = b.reason.clone();
            return Ok((
                match b.verdict {
                    Verdict::Unfit => answer(BuildAnswer::Unfit, Some(b.id), why),
                    Verdict::Broken => answer(BuildAnswer::Broken, Some(b.id), why),
                    _ => answer(
                        BuildAnswer::NotBuilt,
                        Some(b.id),
                        Some(format!(
                            "build {} was outstanding{}: the next run retries it",
                            b.id,
                            why.map(|w| format!(" ({w})")).unwrap_or_default()
                        )),
                    ),
                },
                None,
            ));
        }
        if !self
            .found
            .get(&self.snap.commit)
            .is_some_and(|f| f.contains)
        {
            return Ok((
                answer(
                    BuildAnswer::NotBuilt,
                    None,
                    Some(format!(
                        "the ref mesh builds ({}) does not contain it yet",
                        short(&self.snap.commit.to_string())
                    )),
                ),
                None,
            ));
        }
        Ok((
            match &facts.states[m] {
                ModuleState::Blocked(by) => {
                    let byname = &graph.modules[*by].name;
                    let (why, build) = match &facts.states[*by] {
                        ModuleState::Current { verdict, build, .. } => (
                            format!("blocked by {byname} ({verdict}, build {build})"),
                            Some(*build),
                        ),
                        _ => (format!("blocked by {byname}"), None),
                    };
                    answer(BuildAnswer::Blocked, build, Some(why))
                }
                ModuleState::Stale(r) => answer(BuildAnswer::NotBuilt, None, Some(r.to_string())),
                ModuleState::Waits(on) => {
                    let on: Vec<String> =
                        on.iter().map(|&i| graph.modules[i].name.clone()).collect();
                    BuildWhere {
                        state: BuildAnswer::NotBuilt,
                        build: None,
                        reason: Some(format!("waits on {}", on.join(", "))),
                        waits_on: on,
                    }
                }
                ModuleState::Current { build, verdict, .. } => answer(
                    BuildAnswer::NotBuilt,
                    Some(*build),
                    Some(format!(
                        "its current build {build} ({verdict}) was not built from a commit that contains it"
                    )),
                ),
            },
            None,
        ))
    }

    /// Every reached module's lines.
    fn modules(&mut self) -> Result<Vec<ModuleWhere>> {
        let facts = self.facts;
        let graph = facts.graph;
        let reached = self.reached.clone();
        let mut out = Vec::new();
        for (m, roots) in &reached {
            let gm = &graph.modules[*m];
            let (build, fit) = self.build_answer(*m, roots)?;
            let nodes: Vec<&str> = facts
                .placement
                .get(gm.name.as_str())
                .map(|s| s.iter().copied().collect())
                .unwrap_or_default();
            let mut lines = Vec::new();
            for node in nodes {
                lines.push(self.node_line(*m, roots, node, &build, fit)?);
            }
            out.push(ModuleWhere {
                name: gm.name.clone(),
                kind: gm.kind,
                repo: gm.repo.clone(),
                commit: self.commit.to_string(),
                changed: self.before.contains_key(m),
                via: roots
                    .iter()
                    .map(|&r| graph.modules[r].name.clone())
                    .collect(),
                build,
                nodes: lines,
            });
        }
        Ok(out)
    }

    /// One node's answer about module `m`: first what the node runs, then what it was sent,
    /// then what it would be sent, then what holds the build.
    fn node_line(
        &mut self,
        m: usize,
        roots: &BTreeSet<usize>,
        node: &str,
        build: &BuildWhere,
        fit: Option<&BuildRecord>,
    ) -> Result<NodeWhere> {
        let facts = self.facts;
        let name = facts.graph.modules[m].name.as_str();
        let rec = facts.records.get(node).unwrap_or(&facts.empty);
        let find = |id: u64| -> Option<&'a BuildRecord> {
            facts
                .by_module
                .get(name)
                .and_then(|bs| bs.iter().find(|b| b.id == id).copied())
        };
        let pick = |list: &[(String, u64)]| list.iter().find(|(mm, _)| mm == name).map(|(_, b)| *b);
        let runs = rec.applied.as_ref().and(pick(&rec.applied_builds));
        let sent = rec.sent.as_ref().and(pick(&rec.sent_builds));
        let would = match facts.composed.get(node) {
            Some(Composed::Ready { builds, .. }) => pick(builds),
            _ => None,
        };
        let mut line = NodeWhere {
            name: node.to_string(),
            state: Answer::NotBuilt,
            since: None,
            build: None,
            runs,
            reason: None,
            waits_on: Vec::new(),
            last_seen: rec.last_seen.map(rfc3339),
            unreachable_since: rec.unreachable_since.map(rfc3339),
            failure: None,
            since_ms: None,
            last_seen_ms: rec.last_seen,
            unreachable_ms: rec.unreachable_since,
        };
        let ab = runs.and_then(find);
        match self.carry_of(ab) {
            Carry::Carries => {
                line.state = Answer::Running;
                line.build = runs;
                return Ok(line);
            }
            how @ (Carry::SameArtifact | Carry::SameSource) => {
                line.state = Answer::Effect;
                line.build = runs;
                line.reason = Some(if how == Carry::SameArtifact {
                    "its artifact is the one built with the change".into()
                } else {
                    "built from the same source against the same inputs".into()
                });
                return Ok(line);
            }
            Carry::No => {}
        }
        if sent != runs && self.carry_of(sent.and_then(find)) != Carry::No {
            line.build = sent;
            if let Some(f) = rec.failure_of_sent() {
                line.state = Answer::Failing;
                let stuck = f.count >= crate::status::account::STUCK_AFTER;
                line.reason = Some(format!(
                    "{} {}: {}",
                    if stuck { "stuck" } else { f.outcome.as_str() },
                    f.resources.join(", "),
                    f.reasons.join("; ")
                ));
                line.failure = Some(FailureJson {
                    since: rfc3339(f.since),
                    count: f.count,
                    resources: f.resources.clone(),
                    reasons: f.reasons.clone(),
                });
            } else {
                line.state = Answer::Sent;
                line.reason = Some("outstanding: sent, no report of applying it yet".into());
            }
            return Ok(line);
        }
        if would != sent && self.carry_of(would.and_then(find)) != Carry::No {
            line.state = Answer::Declared;
            line.build = would;
            line.reason = Some(match &rec.unreachable_reason {
                Some(r) if rec.unreachable_since.is_some() => {
                    format!("out of date; unreachable: {r}")
                }
                _ => "out of date: `mesh push` sends it".into(),
            });
            return Ok(line);
        }
        if let Some(b) = ab
            && let Some(why) = self.supersedes(b, roots)?
        {
            line.state = Answer::Superseded;
            line.reason = Some(format!("it runs build {} from {}", b.id, why));
            return Ok(line);
        }
        if let Some(d) = facts.declared.get(name)
            && self.carry_of(Some(d)) == Carry::No
            && let Some(why) = self.supersedes(d, roots)?
        {
            line.state = Answer::Superseded;
            line.build = Some(d.id);
            line.reason = Some(format!("the declared build {} is from {}", d.id, why));
            return Ok(line);
        }
        line.build = build.build;
        line.reason = build.reason.clone();
        line.waits_on = build.waits_on.clone();
        line.state = match build.state {
            BuildAnswer::Superseded => Answer::Superseded,
            BuildAnswer::Unfit => Answer::Unfit,
            BuildAnswer::Broken => Answer::Broken,
            BuildAnswer::Blocked => Answer::Blocked,
            BuildAnswer::NotBuilt => Answer::NotBuilt,
            BuildAnswer::Built => match facts.composed.get(node) {
                Some(Composed::NotWorkedOut(why)) => {
                    line.reason = Some(format!("the node is not worked out: {why}"));
                    Answer::Blocked
                }
                _ => {
                    let policy = fit.map(|f| f.policy);
                    line.reason = Some(if policy == Some(Policy::Hold) {
                        format!("policy hold: `mesh declare {name}` declares it")
                    } else {
                        match facts.declared.get(name) {
                            Some(d) => format!(
                                "build {} is the declared one: `mesh declare {name}` declares this one",
                                d.id
                            ),
                            None => format!("not declared: `mesh declare {name}` declares it"),
                        }
                    });
                    Answer::Held
                }
            },
        };
        Ok(line)
    }
}

/// The first 8 characters of a commit id or digest.
fn short(s: &str) -> &str {
    s.get(..8).unwrap_or(s)
}

/// Reads back the facts log for what the node records do not keep: when each running node
/// began running its build (its `applied` fact; else the last clean apply it reported), and
/// whether a node that was not sent the declaration carrying the change refused it (its
/// `refused` fact about the declaration: then it is failing, not waiting). Facts are appended in
/// time order, so the log is read newest first, in chunks, only back to the oldest build
/// concerned: nothing about a build happened before it was built.
fn read_facts(
    paths: &Paths,
    modules: &mut [ModuleWhere],
    by_module: &HashMap<&str, Vec<&BuildRecord>>,
) -> Result<()> {
    let mut applied: HashMap<(String, String, u64), Option<u64>> = HashMap::new();
    let mut refused: HashMap<String, Option<(u64, String)>> = HashMap::new();
    let mut oldest = u64::MAX;
    for m in modules.iter() {
        for n in &m.nodes {
            let Some(b) = n.build else { continue };
            match n.state {
                Answer::Running => {
                    applied.insert((n.name.clone(), m.name.clone(), b), None);
                }
                Answer::Declared => {
                    refused.insert(n.name.clone(), None);
                }
                _ => continue,
            }
            let finished = by_module
                .get(m.name.as_str())
                .and_then(|bs| bs.iter().find(|x| x.id == b))
                .map_or(0, |x| x.finished);
            oldest = oldest.min(finished);
        }
    }
    if applied.is_empty() && refused.is_empty() {
        return Ok(());
    }
    let store = paths.open()?;
    let records = store.read(|r| {
        const CHUNK: u64 = 4096;
        let mut hi = r.get::<u64>(META, b"next_event")?.unwrap_or(1);
        let mut left = applied.len() + refused.len();
        'back: while hi > 1 && left > 0 {
            let lo = hi.saturating_sub(CHUNK).max(1);
            let chunk = r.range::<Event>(EVENTS, &id_key(lo), Some(&id_key(hi)))?;
            if chunk.is_empty() {
                break;
            }
            for (_, e) in chunk.iter().rev() {
                if e.at < oldest {
                    break 'back;
                }
                if !(e.fact.contains("\"applied\"") || e.fact.contains("\"refused\"")) {
                    continue;
                }
                match serde_json::from_str::<Fact>(&e.fact) {
                    Ok(Fact::Applied {
                        node,
                        module,
                        build,
                    }) => {
                        if let Some(slot) = applied.get_mut(&(node, module, build))
                            && slot.is_none()
                        {
                            *slot = Some(e.at);
                            left -= 1;
                        }
                    }
                    Ok(Fact::Refused {
                        node,
                        resource,
                        reason,
                    }) if resource == "declaration" => {
                        if let Some(slot) = refused.get_mut(&node)
                            && slot.is_none()
                        {
                            *slot = Some((e.at, reason));
                            left -= 1;
                        }
                    }
                    _ => {}
                }
            }
            hi = lo;
        }
        crate::store::node_records(r)
    })?;
    for m in modules.iter_mut() {
        for n in &mut m.nodes {
            match n.state {
                Answer::Running => {
                    let Some(b) = n.build else { continue };
                    let at = applied
                        .get(&(n.name.clone(), m.name.clone(), b))
                        .copied()
                        .flatten()
                        .or_else(|| {
                            records
                                .get(&n.name)
                                .and_then(|r| r.applied.as_ref())
                                .map(|a| a.at)
                        });
                    n.since_ms = at;
                    n.since = at.map(rfc3339);
                }
                Answer::Declared => {
                    if let Some(Some((at, reason))) = refused.get(&n.name) {
                        n.state = Answer::Failing;
                        n.reason = Some(format!("the node refused the declaration: {reason}"));
                        n.since_ms = Some(*at);
                        n.since = Some(rfc3339(*at));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// `HH:MM` UTC when `ms` is today, else the date too.
pub fn clock_time(ms: u64, now: u64) -> String {
    let full = rfc3339(ms);
    let today = rfc3339(now);
    if full.get(..10) == today.get(..10) {
        full.get(11..16).unwrap_or(&full).to_string()
    } else {
        format!(
            "{} {}",
            full.get(..10).unwrap_or(&full),
            full.get(11..16).unwrap_or("")
        )
    }
}

/// The one line for people.
fn summary(revs: &[RevWhere], modules: &[ModuleWhere], everywhere: bool, now: u64) -> String {
    let what = match revs {
        [r] => short(&r.commit).to_string(),
        _ => "the refs".to_string(),
    };
    if modules.is_empty() {
        return format!("{what} changed no module: there is nothing to deliver");
    }
    let mut parts = Vec::new();
    for m in modules.iter().filter(|m| !m.nodes.is_empty()) {
        let live = m.nodes.iter().filter(|n| n.state.is_live()).count();
        let total = m.nodes.len();
        parts.push(if parts.is_empty() {
            format!("{} on {live}/{total} nodes", m.name)
        } else {
            format!("{} {live}/{total}", m.name)
        });
    }
    if parts.is_empty() {
        let built: Vec<String> = modules
            .iter()
            .map(|m| format!("{} {}", m.name, build_word(m.build.state)))
            .collect();
        return format!(
            "{what} reaches no assigned module ({}): no node runs anything built from it",
            built.join(", ")
        );
    }
    let mut notes: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for (_, n) in modules
        .iter()
        .flat_map(|m| m.nodes.iter().map(move |n| (m, n)))
    {
        if let Some(t) = n.unreachable_ms
            && seen.insert(("unreachable", n.name.clone()))
        {
            notes.push(format!(
                "{} unreachable since {}",
                n.name,
                clock_time(t, now)
            ));
        }
        if n.state == Answer::Failing && seen.insert(("failing", n.name.clone())) {
            notes.push(format!("{} failing", n.name));
        }
    }
    // A library's build is said here; an assigned module's is in its nodes' answers.
    for m in modules.iter().filter(|m| m.nodes.is_empty()) {
        if matches!(
            m.build.state,
            BuildAnswer::Unfit
                | BuildAnswer::Broken
                | BuildAnswer::Blocked
                | BuildAnswer::Superseded
        ) {
            notes.push(format!("{} {}", m.name, build_word(m.build.state)));
        }
    }
    let head = if everywhere {
        format!("{what} runs everywhere it matters: {}", parts.join(", "))
    } else {
        format!("{what}: {}", parts.join(", "))
    };
    if notes.is_empty() {
        head
    } else {
        format!("{head}; {}", notes.join("; "))
    }
}

/// The build answer in a word or two.
pub fn build_word(s: BuildAnswer) -> &'static str {
    match s {
        BuildAnswer::Built => "built",
        BuildAnswer::Unfit => "unfit",
        BuildAnswer::Broken => "broken",
        BuildAnswer::Blocked => "blocked",
        BuildAnswer::NotBuilt => "not built yet",
        BuildAnswer::Superseded => "superseded",
    }
}
