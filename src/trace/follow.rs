//! Following one commit: which builds carry it or have its effect, the answer about each
//! reached module's build, and each node's answer.

use super::{Answer, BuildAnswer, BuildWhere, ModuleWhere, NodeWhere, ancestry, rev};
use crate::Result;
use crate::artifact::short;
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

impl<'a> Trace<'a> {
    pub(super) fn new(
        ri: usize,
        commit: ObjectId,
        loaded: &'a Loaded,
        facts: &'a Recorded<'a>,
        dependents: &[Vec<usize>],
    ) -> Result<Trace<'a>> {
        let snap = &loaded.snapshot.repos[ri];
        let (subject, time) = rev::describe(snap, commit)?;
        let graph = facts.graph;
        let at = rev::at(snap, commit)?;
        let parent = rev::first_parent(snap, commit)?
            .map(|p| rev::at(snap, p))
            .transpose()?;
        let mut trees = rev::Trees::default();
        let mut at_rev = HashMap::new();
        let mut before = HashMap::new();
        let mut changed = Vec::new();
        for (i, m) in loaded.snapshot.modules.iter().enumerate() {
            if m.repo != ri {
                continue;
            }
            let now = trees.source(&at, m)?;
            if now.is_none() {
                at_rev.insert(i, None);
                continue;
            }
            let was = match &parent {
                Some(p) if p.tree == at.tree => now.clone(),
                Some(p) => trees.source(p, m)?,
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
                    Some(format!("the ref moved on to {why}")),
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
                        short(&self.snap.commit.to_string(), 8)
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
