//! Following one commit: which builds carry it or have its effect, the answer about each
//! reached module's build, and each node's answer.

use super::{Answer, BuildAnswer, BuildWhere, ModuleWhere, NodeWhere, ancestry, rev};
use crate::Result;
use crate::clock::rfc3339;
use crate::config::Policy;
use crate::declare::Composed;
use crate::graph::stale::ModuleState;
use crate::graph::{Loaded, ModuleGraph};
use crate::source::RepoSnapshot;
use crate::status::nodes::FailureJson;
use crate::store::Verdict;
use crate::store::{BuildRecord, NodeRecord};
use gix::ObjectId;
use mesh_node::artifact::short;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// What the store and the configuration say, read once for every commit followed.
pub(super) struct Recorded<'a> {
    /// The module graph at the refs.
    pub(super) graph: &'a ModuleGraph,
    /// Every module's state at the refs (current, stale, waits, blocked), by index.
    pub(super) states: &'a [ModuleState],
    /// Every build, by module, oldest first.
    pub(super) by_module: &'a HashMap<&'a str, Vec<&'a BuildRecord>>,
    /// Every node's record.
    pub(super) records: &'a HashMap<String, NodeRecord>,
    /// The declared build of each module.
    pub(super) declared: &'a HashMap<String, BuildRecord>,
    /// Every node's declaration as it would be sent now.
    pub(super) composed: &'a BTreeMap<String, Composed>,
    /// Module → the nodes it is assigned to.
    pub(super) placement: &'a HashMap<&'a str, BTreeSet<&'a str>>,
    /// The record of a node mesh knows nothing about yet.
    pub(super) empty: NodeRecord,
    /// Node → the controller that declared what it runs (this one, or one found there).
    pub(super) controllers: &'a HashMap<String, String>,
    /// The nodes that hold another controller's declaration in place of this one's: what
    /// runs there is not this controller's records' to say.
    pub(super) foreign: &'a HashSet<String>,
    /// Node → what its modules' checks said.
    pub(super) health: &'a HashMap<String, crate::store::NodeHealth>,
    /// (module, node) a rollout has not reached yet → its wave and how many.
    pub(super) waiting: &'a crate::rollout::Waiting,
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
pub(super) struct Trace<'a> {
    snap: &'a RepoSnapshot,
    loaded: &'a Loaded,
    facts: &'a Recorded<'a>,
    commit: ObjectId,
    pub(super) subject: String,
    pub(super) time: i64,
    /// Changed modules, sorted by index (= by name).
    pub(super) changed: Vec<usize>,
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
    /// Directory listings read so far.
    trees: rev::Trees,
    /// The commits builds were made from that are the commit's ancestors (once asked).
    older: Option<HashSet<ObjectId>>,
    /// Per reached module: each of its builds' carry.
    carry: HashMap<u64, Carry>,
    /// Per reached module: artifact digests of its fit builds with the effect.
    effect_artifacts: HashMap<usize, HashSet<String>>,
}

/// The source ids a commit gives the modules of its repository.
struct Sources {
    /// At the commit, by module index.
    at_rev: HashMap<usize, Option<String>>,
    /// At its first parent, for the modules it changed.
    before: HashMap<usize, Option<String>>,
    /// The modules it changed, sorted by index.
    changed: Vec<usize>,
}

impl<'a> Trace<'a> {
    /// Follows `commit` of repository `ri`: which modules it changes, which it reaches through
    /// `dependents`, and how each of their builds stands to it.
    pub(super) fn new(
        ri: usize,
        commit: ObjectId,
        loaded: &'a Loaded,
        facts: &'a Recorded<'a>,
        dependents: &[Vec<usize>],
    ) -> Result<Trace<'a>> {
        let snap = &loaded.snapshot.repos[ri];
        let (subject, time) = rev::describe(snap, commit)?;
        let mut trees = rev::Trees::default();
        let Sources {
            at_rev,
            before,
            changed,
        } = sources(loaded, ri, commit, &mut trees)?;
        let reached = reached_from(facts.graph, &changed, dependents);
        let commits = built_from(snap, facts, &reached);
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
            trees,
            older: None,
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
                    let s = self.trees.source(&at, &self.loaded.snapshot.modules[x])?;
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
    /// Modules are judged in graph order: a module's inputs are judged before it.
    fn judge_builds(&mut self) -> Result<()> {
        let reached = self.reached.clone();
        let reached_set: HashSet<usize> = reached.iter().map(|(m, _)| *m).collect();
        for (m, roots) in &reached {
            let builds = self.builds_of(*m);
            // First what carries it or is built the same way, then what shares an artifact
            // with one of those (fit: only fit builds are ever declared).
            let mut carry: Vec<(u64, Carry)> = Vec::new();
            for b in builds {
                carry.push((b.id, self.judge_build(*m, roots, &reached_set, b)?));
            }
            let eff = same_artifact(builds, &mut carry);
            self.carry.extend(carry);
            self.effect_artifacts.insert(*m, eff);
        }
        Ok(())
    }

    /// The builds of module `m`, oldest first.
    fn builds_of(&self, m: usize) -> &'a [&'a BuildRecord] {
        let facts = self.facts;
        let name = facts.graph.modules[m].name.as_str();
        facts.by_module.get(name).map_or(&[], |v| v.as_slice())
    }

    /// Build `id` of module `m`, if it is recorded.
    fn find_build(&self, m: usize, id: u64) -> Option<&'a BuildRecord> {
        self.builds_of(m).iter().find(|b| b.id == id).copied()
    }

    /// Whether build `b` of reached module `m` carries the commit, or was built from the source
    /// `m` has at it against inputs with the effect; else `No` (until [`same_artifact`]).
    fn judge_build(
        &mut self,
        m: usize,
        roots: &BTreeSet<usize>,
        reached: &HashSet<usize>,
        b: &BuildRecord,
    ) -> Result<Carry> {
        let graph = self.facts.graph;
        let same_repo = graph.modules[m].repo == self.snap.name;
        let carries = if same_repo {
            match ObjectId::from_hex(b.commit.as_bytes()) {
                Ok(id) => matches!(self.commit_carries(id, roots)?, Ok(true)),
                Err(_) => false,
            }
        } else {
            // Another repository's module: it carries the change through its inputs.
            graph.inputs[m].iter().any(|d| reached.contains(d))
                && self.inputs_have_effect(m, reached, b)
        };
        // Built from the very source the module has at the commit, against inputs with
        // the effect: what building the commit itself would have made (a revert's
        // effect is the build from before the reverted change).
        let at_rev = self.at_rev.get(&m).cloned().flatten();
        let same_source = same_repo
            && at_rev.as_deref() == Some(b.source.as_str())
            && self.inputs_have_effect(m, reached, b);
        Ok(if carries {
            Carry::Carries
        } else if same_source {
            Carry::SameSource
        } else {
            Carry::No
        })
    }

    /// Whether build `b` of module `m` was built against an artifact with the effect of each
    /// of its reached inputs.
    fn inputs_have_effect(&self, m: usize, reached: &HashSet<usize>, b: &BuildRecord) -> bool {
        let graph = self.facts.graph;
        graph.inputs[m]
            .iter()
            .filter(|d| reached.contains(d))
            .all(|&d| {
                let dn = graph.modules[d].name.as_str();
                b.inputs.iter().any(|(im, ia)| {
                    im == dn
                        && self
                            .effect_artifacts
                            .get(&d)
                            .is_some_and(|set| set.contains(ia))
                })
            })
    }

    fn carry_of(&self, b: Option<&BuildRecord>) -> Carry {
        b.and_then(|b| self.carry.get(&b.id).copied())
            .unwrap_or(Carry::No)
    }

    /// Whether build `b` is from a commit that moved on without the one followed: neither
    /// carries it nor is one of its ancestors (a branch that moved sideways), or contains it
    /// and undid it (a revert). `Some(why)`.
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
        if !self.found.contains_key(&c) {
            return Ok(None);
        }
        Ok(match self.commit_carries(c, roots)? {
            Ok(true) => None,
            Err(x) => Some(format!(
                "{}, where {}'s change was undone",
                short(&c.to_string(), 8),
                self.facts.graph.modules[x].name,
            )),
            Ok(false) if !self.is_older(c)? => Some(format!(
                "{}, which does not contain it",
                short(&c.to_string(), 8)
            )),
            Ok(false) => None,
        })
    }

    /// Whether `c` is the commit followed or one of its ancestors: a build from it is older,
    /// not later. Every commit the walk found that does not contain the commit is looked for in
    /// one walk back from it, the first time this is asked.
    fn is_older(&mut self, c: ObjectId) -> Result<bool> {
        if self.older.is_none() {
            let candidates = self
                .found
                .iter()
                .filter(|(_, f)| !f.contains)
                .map(|(id, _)| *id)
                .collect();
            self.older = Some(ancestry::ancestors_among(
                &self.snap.repo,
                &self.snap.name,
                self.commit,
                &candidates,
            )?);
        }
        Ok(self.older.as_ref().is_some_and(|o| o.contains(&c)))
    }

    /// The module-level answer, and the fit build with the effect, if there is one: the ref
    /// moved on without it, else what its builds with the effect say, else that the ref does
    /// not contain it yet, else what the module's state says.
    fn build_answer(
        &mut self,
        m: usize,
        roots: &BTreeSet<usize>,
    ) -> Result<(BuildWhere, Option<&'a BuildRecord>)> {
        if let Some(why) = self.commit_supersedes(self.snap.commit, roots)? {
            return Ok((
                build_where(
                    BuildAnswer::Superseded,
                    None,
                    Some(format!("the ref moved on to {why}")),
                ),
                None,
            ));
        }
        if let Some(answer) = self.answer_from_builds(m) {
            return Ok(answer);
        }
        if !self
            .found
            .get(&self.snap.commit)
            .is_some_and(|f| f.contains)
        {
            return Ok((
                build_where(
                    BuildAnswer::NotBuilt,
                    None,
                    Some(format!(
                        "the ref mesh builds ({}) does not contain it yet",
                        short(&self.snap.commit.to_string(), 8)
                    )),
                ),
                None,
            ));
        }
        Ok((answer_from_state(self.facts, m), None))
    }

    /// What module `m`'s newest build with the effect says: the newest fit one (built), else
    /// the newest one's verdict. `None` when no build has the effect.
    fn answer_from_builds(&self, m: usize) -> Option<(BuildWhere, Option<&'a BuildRecord>)> {
        let builds = self.builds_of(m);
        let with_effect =
            |b: &&&BuildRecord| self.carry.get(&b.id).is_some_and(|c| *c != Carry::No);
        if let Some(fit) = builds
            .iter()
            .filter(with_effect)
            .filter(|b| b.verdict == Verdict::Fit)
            .max_by_key(|b| b.id)
        {
            return Some((
                build_where(BuildAnswer::Built, Some(fit.id), None),
                Some(*fit),
            ));
        }
        let b = builds.iter().filter(with_effect).max_by_key(|b| b.id)?;
        let why = b.reason.clone();
        Some((
            match b.verdict {
                Verdict::Unfit => build_where(BuildAnswer::Unfit, Some(b.id), why),
                Verdict::Broken => build_where(BuildAnswer::Broken, Some(b.id), why),
                _ => build_where(
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
        ))
    }

    /// Every reached module's lines.
    pub(super) fn modules(&mut self) -> Result<Vec<ModuleWhere>> {
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
    /// then what it would be sent, then what superseded it, then what holds the build.
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
        let pick = |list: &[(String, u64)]| list.iter().find(|(mm, _)| mm == name).map(|(_, b)| *b);
        let runs = match facts.foreign.contains(node) {
            true => None,
            false => rec.applied.as_ref().and(pick(&rec.applied_builds)),
        };
        let sent = rec.sent.as_ref().and(pick(&rec.sent_builds));
        let would = match facts.composed.get(node) {
            Some(Composed::Ready { builds, .. }) => pick(builds),
            _ => None,
        };
        let mut line = blank_line(node, rec, runs);
        line.controller = facts.controllers.get(node).cloned();
        let ab = runs.and_then(|id| self.find_build(m, id));
        if self.runs_the_effect(&mut line, ab) {
            // It runs: whether it works there is its check's to say.
            let said = facts.health.get(node).and_then(|h| h.modules.get(name));
            if let Some(h) = said.filter(|h| !h.healthy) {
                let output = h.output.as_deref().unwrap_or("its check failed");
                line.reason = Some(format!("unhealthy: {output}"));
            }
            return Ok(line);
        }
        if sent != runs && self.has_effect(m, sent) {
            sent_answer(&mut line, rec, sent);
            return Ok(line);
        }
        if would != sent && self.has_effect(m, would) {
            declared_answer(&mut line, rec, would);
            return Ok(line);
        }
        if self.superseded_answer(&mut line, m, roots, ab)? {
            return Ok(line);
        }
        self.answer_from_build(&mut line, node, name, build, fit);
        Ok(line)
    }

    /// Whether build `id` of module `m` has the commit's effect.
    fn has_effect(&self, m: usize, id: Option<u64>) -> bool {
        self.carry_of(id.and_then(|id| self.find_build(m, id))) != Carry::No
    }

    /// Running or effect, when the build the node runs (`runs`) has the effect.
    fn runs_the_effect(&self, line: &mut NodeWhere, runs: Option<&BuildRecord>) -> bool {
        match self.carry_of(runs) {
            Carry::Carries => {
                line.state = Answer::Running;
                line.build = line.runs;
                true
            }
            how @ (Carry::SameArtifact | Carry::SameSource) => {
                line.state = Answer::Effect;
                line.build = line.runs;
                line.reason = Some(if how == Carry::SameArtifact {
                    "its artifact is the one built with the change".into()
                } else {
                    "built from the same source against the same inputs".into()
                });
                true
            }
            Carry::No => false,
        }
    }

    /// Superseded, when the build the node runs (`runs`), or the declared build if it lacks
    /// the effect, is from a commit that moved on without the one followed.
    fn superseded_answer(
        &mut self,
        line: &mut NodeWhere,
        m: usize,
        roots: &BTreeSet<usize>,
        runs: Option<&BuildRecord>,
    ) -> Result<bool> {
        let facts = self.facts;
        if let Some(b) = runs
            && let Some(why) = self.supersedes(b, roots)?
        {
            line.state = Answer::Superseded;
            line.reason = Some(format!("it runs build {} from {}", b.id, why));
            return Ok(true);
        }
        if let Some(d) = facts.declared.get(facts.graph.modules[m].name.as_str())
            && self.carry_of(Some(d)) == Carry::No
            && let Some(why) = self.supersedes(d, roots)?
        {
            line.state = Answer::Superseded;
            line.build = Some(d.id);
            line.reason = Some(format!("the declared build {} is from {}", d.id, why));
            return Ok(true);
        }
        Ok(false)
    }

    /// The module-level answer `build` as the node's, a fit build with the effect being held
    /// (not declared, or the node not worked out) since it is neither run nor sent.
    fn answer_from_build(
        &self,
        line: &mut NodeWhere,
        node: &str,
        name: &str,
        build: &BuildWhere,
        fit: Option<&BuildRecord>,
    ) {
        line.build = build.build;
        line.reason = build.reason.clone();
        line.waits_on = build.waits_on.clone();
        line.state = match build.state {
            BuildAnswer::Superseded => Answer::Superseded,
            BuildAnswer::Unfit => Answer::Unfit,
            BuildAnswer::Broken => Answer::Broken,
            BuildAnswer::Blocked => Answer::Blocked,
            BuildAnswer::NotBuilt => Answer::NotBuilt,
            BuildAnswer::Built => match self.facts.composed.get(node) {
                Some(Composed::NotWorkedOut(why)) => {
                    line.reason = Some(format!("the node is not worked out: {why}"));
                    Answer::Blocked
                }
                _ => match self
                    .facts
                    .waiting
                    .get(&(name.to_string(), node.to_string()))
                {
                    Some((wave, waves)) => {
                        line.reason =
                            Some(format!("waiting for wave {wave} of {waves} of its rollout"));
                        Answer::Waiting
                    }
                    None => {
                        line.reason = Some(self.why_held(name, fit));
                        Answer::Held
                    }
                },
            },
        };
    }

    /// Why a fit build with the effect is held: its policy holds it, or another build (or
    /// none) is the declared one.
    fn why_held(&self, name: &str, fit: Option<&BuildRecord>) -> String {
        let policy = fit.map(|f| f.policy);
        if policy == Some(Policy::Hold) {
            format!("policy hold: `mesh declare {name}` declares it")
        } else {
            match self.facts.declared.get(name) {
                Some(d) => format!(
                    "build {} is the declared one: `mesh declare {name}` declares this one",
                    d.id
                ),
                None => format!("not declared: `mesh declare {name}` declares it"),
            }
        }
    }
}

/// The source id of every module of repository `ri` at `commit`, and, for those whose source
/// differs there from the first parent's (the modules it changed), the one before.
fn sources(
    loaded: &Loaded,
    ri: usize,
    commit: ObjectId,
    trees: &mut rev::Trees,
) -> Result<Sources> {
    let snap = &loaded.snapshot.repos[ri];
    let at = rev::at(snap, commit)?;
    let parent = rev::first_parent(snap, commit)?
        .map(|p| rev::at(snap, p))
        .transpose()?;
    let mut out = Sources {
        at_rev: HashMap::new(),
        before: HashMap::new(),
        changed: Vec::new(),
    };
    for (i, m) in loaded.snapshot.modules.iter().enumerate() {
        if m.repo != ri {
            continue;
        }
        let now = trees.source(&at, m)?;
        if now.is_none() {
            out.at_rev.insert(i, None);
            continue;
        }
        let was = match &parent {
            Some(p) if p.tree == at.tree => now.clone(),
            Some(p) => trees.source(p, m)?,
            None => None,
        };
        if was != now {
            out.changed.push(i);
            out.before.insert(i, was);
        }
        out.at_rev.insert(i, now);
    }
    Ok(out)
}

/// Everything the changed modules reach through `dependents`, in graph order, each with the
/// changed modules it is reached from.
fn reached_from(
    graph: &ModuleGraph,
    changed: &[usize],
    dependents: &[Vec<usize>],
) -> Vec<(usize, BTreeSet<usize>)> {
    let mut roots: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for &c in changed {
        let mut todo = vec![c];
        while let Some(m) = todo.pop() {
            if roots.entry(m).or_default().insert(c) {
                todo.extend(dependents[m].iter().copied());
            }
        }
    }
    graph
        .order
        .iter()
        .filter_map(|m| roots.remove(m).map(|r| (*m, r)))
        .collect()
}

/// The commits of this repository that reached modules were built from, and the ref's: the
/// ones the walk must say contain the commit or not.
fn built_from(
    snap: &RepoSnapshot,
    facts: &Recorded<'_>,
    reached: &[(usize, BTreeSet<usize>)],
) -> HashSet<ObjectId> {
    let mut commits: HashSet<ObjectId> = HashSet::new();
    commits.insert(snap.commit);
    for (m, _) in reached {
        for b in facts
            .by_module
            .get(facts.graph.modules[*m].name.as_str())
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
    commits
}

/// Marks `SameArtifact` each build judged `No` whose artifact is that of a fit build with the
/// effect; returns the artifacts of the fit builds with the effect, those included.
fn same_artifact(builds: &[&BuildRecord], carry: &mut [(u64, Carry)]) -> HashSet<String> {
    let fit_artifact = |b: &BuildRecord| {
        b.artifact
            .as_ref()
            .filter(|_| b.verdict == Verdict::Fit)
            .cloned()
    };
    let mut eff: HashSet<String> = builds
        .iter()
        .zip(carry.iter())
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
            .zip(carry.iter())
            .filter(|(_, (_, c))| *c == Carry::SameArtifact)
            .filter_map(|(b, _)| fit_artifact(b)),
    );
    eff
}

/// A module-level answer that waits on nothing.
fn build_where(state: BuildAnswer, build: Option<u64>, reason: Option<String>) -> BuildWhere {
    BuildWhere {
        state,
        build,
        reason,
        waits_on: Vec::new(),
    }
}

/// What module `m`'s state at the refs says, when no build has the commit's effect though the
/// ref contains it: blocked, stale, waiting on inputs, or current from a commit without it.
fn answer_from_state(facts: &Recorded<'_>, m: usize) -> BuildWhere {
    let graph = facts.graph;
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
            build_where(BuildAnswer::Blocked, build, Some(why))
        }
        ModuleState::Stale(r) => build_where(BuildAnswer::NotBuilt, None, Some(r.to_string())),
        ModuleState::Waits(on) => {
            let on: Vec<String> = on.iter().map(|&i| graph.modules[i].name.clone()).collect();
            BuildWhere {
                state: BuildAnswer::NotBuilt,
                build: None,
                reason: Some(format!("waits on {}", on.join(", "))),
                waits_on: on,
            }
        }
        ModuleState::Current { build, verdict, .. } => build_where(
            BuildAnswer::NotBuilt,
            Some(*build),
            Some(format!(
                "its current build {build} ({verdict}) was not built from a commit that contains it"
            )),
        ),
    }
}

/// A node's line before it is answered: not built, with what its record says.
fn blank_line(node: &str, rec: &NodeRecord, runs: Option<u64>) -> NodeWhere {
    NodeWhere {
        name: node.to_string(),
        state: Answer::NotBuilt,
        since: None,
        build: None,
        runs,
        reason: None,
        waits_on: Vec::new(),
        controller: None,
        last_seen: rec.last_seen.map(rfc3339),
        unreachable_since: rec.unreachable_since.map(rfc3339),
        failure: None,
        since_ms: None,
        last_seen_ms: rec.last_seen,
        unreachable_ms: rec.unreachable_since,
    }
}

/// Sent build `sent` has the effect: failing (or stuck) when applying what was sent failed,
/// else sent and not reported applied yet.
fn sent_answer(line: &mut NodeWhere, rec: &NodeRecord, sent: Option<u64>) {
    line.build = sent;
    if let Some(f) = rec.failure_of_sent() {
        line.state = Answer::Failing;
        let stuck = f.count >= crate::store::STUCK_AFTER;
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
}

/// Build `would`, which the node would be sent, has the effect: declared, out of date (and
/// why it was not sent, when the node cannot be reached).
fn declared_answer(line: &mut NodeWhere, rec: &NodeRecord, would: Option<u64>) {
    line.state = Answer::Declared;
    line.build = would;
    line.reason = Some(match &rec.unreachable_reason {
        Some(r) if rec.unreachable_since.is_some() => {
            format!("out of date; unreachable: {r}")
        }
        _ => "out of date: `mesh push` sends it".into(),
    });
}
