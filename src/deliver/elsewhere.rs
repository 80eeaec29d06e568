//! A node that runs what another controller declared: git history decides whether this
//! controller may replace it (ours is newer), must not (the node's is newer: **ahead**; or the
//! histories went apart: **diverged**), or leaves it be (the same commits: no flip-flop) —
//! unless, at the same commits, the other controller's plan is not ours (other modules
//! assigned, other settings): the node **differs**, and a person settles it.
//! What was found is kept per node (`declared_elsewhere`), so that status says it from the
//! store alone, and its fact is stated once.

use crate::controller::Signer;
use crate::controller::history::{self, Compared, History};
use crate::events::Fact;
use crate::store::{DECLARED_ELSEWHERE, DeclaredElsewhere, Relation, StoreError, Writer};
use mesh_node::{DeclaredBy, Have, Held};
use mesh_proto::wire::{MESH_DIRECTORY, Plan};
use std::collections::{BTreeMap, HashMap};

/// The repositories' histories a controller compares with: each `[[repo]]` as this run read
/// it, and the mesh directory's own repository where it is one. Shared by push's workers.
pub struct Histories {
    repos: HashMap<String, gix::ThreadSafeRepository>,
    /// Each repository's commit as this run read it (the mesh directory's HEAD under
    /// [`MESH_DIRECTORY`]).
    heads: BTreeMap<String, String>,
}

impl Histories {
    /// From the run's reading of the sources and the mesh directory.
    pub fn new(sources: &crate::source::Snapshot, mesh_dir: &std::path::Path) -> Histories {
        let mut repos: HashMap<String, gix::ThreadSafeRepository> = sources
            .repos
            .iter()
            .map(|r| (r.name.clone(), r.repo.clone().into_sync()))
            .collect();
        let mut heads: BTreeMap<String, String> = sources
            .repos
            .iter()
            .map(|r| (r.name.clone(), r.commit.to_string()))
            .collect();
        let mesh_repo = gix::discover(mesh_dir).ok();
        if let Some(head) = mesh_repo.as_ref().and_then(|r| r.head_id().ok()) {
            heads.insert(MESH_DIRECTORY.to_string(), head.detach().to_string());
        }
        if let Some(r) = mesh_repo {
            repos.insert(MESH_DIRECTORY.to_string(), r.into_sync());
        }
        Histories { repos, heads }
    }

    /// The commits a declaration of modules from `repos` is declared from: each one's head as
    /// this run read it, and the mesh directory's.
    pub fn commits<'r>(
        &self,
        repos: impl IntoIterator<Item = &'r String>,
    ) -> BTreeMap<String, String> {
        let mut out: BTreeMap<String, String> = repos
            .into_iter()
            .filter_map(|r| self.heads.get(r).map(|c| (r.clone(), c.clone())))
            .collect();
        if let Some(m) = self.heads.get(MESH_DIRECTORY) {
            out.insert(MESH_DIRECTORY.to_string(), m.clone());
        }
        out
    }

    /// How `ours` (name → commit) stands to `theirs`.
    pub fn compare(
        &self,
        ours: &BTreeMap<String, String>,
        theirs: &BTreeMap<String, String>,
    ) -> Compared {
        let open = |name: &str| -> Option<Box<dyn History>> {
            self.repos
                .get(name)
                .map(|r| Box::new(r.to_thread_local()) as Box<dyn History>)
        };
        history::compare(&open, ours, theirs)
    }
}

/// What a push does about a node's declaration in force.
#[derive(Debug)]
pub enum Decision {
    /// Declare: nothing there, ours, or older than ours (or taken over: from whom).
    Declare {
        /// The controller taken over from (`--take-over` on a node ahead, diverged or
        /// running another plan).
        took_over_from: Option<String>,
        /// What the node runs from another controller, when it does (relation [`Relation::Newer`]),
        /// recorded so that collect does not take it for news.
        found: Option<DeclaredElsewhere>,
    },
    /// Leave the node as it is: what was found, to record and say.
    Leave(DeclaredElsewhere),
    /// Leave the declaration in force as it is, and ask the node to apply it: it holds the
    /// other controller's declaration (kept, or ahead of ours) and never applied it — that
    /// controller's answer was lost on the way, and no run of its own may come soon.
    Finish(DeclaredElsewhere),
}

/// What this controller would declare to a node: who signs it, its digest and plan, and the
/// commits it is declared from.
pub struct Ours<'a> {
    /// This controller.
    pub me: &'a Signer,
    /// The declaration's digest.
    pub digest: &'a str,
    /// Its plan (see [`Plan`]).
    pub plan: &'a Plan,
    /// Per repository, the commit it is declared from.
    pub commits: &'a BTreeMap<String, String>,
    /// Its modules, each with the build it gives.
    pub modules: &'a [mesh_proto::wire::DeclaredModule],
    /// Module → the commit this controller's rollout of it moves the nodes to.
    pub rolling: &'a HashMap<String, String>,
    /// The keys of the controllers mesh.toml lists.
    pub trusted: &'a std::collections::BTreeSet<String>,
}

impl Ours<'_> {
    /// Whether it moves a rollout on at the node that answered `have`: it gives a module the
    /// rollout's build where the node holds another commit, and moves no module anywhere else
    /// (another controller's rollout of that one may be ahead there: the two would take
    /// turns). At the same commits and plan, that is ours to declare.
    fn moves_rollout(&self, have: &Have) -> bool {
        let differs = |m: &mesh_proto::wire::DeclaredModule| {
            have.modules
                .iter()
                .any(|h| h.name == m.name && h.commit != m.commit)
        };
        let forward =
            |m: &mesh_proto::wire::DeclaredModule| self.rolling.get(&m.name) == Some(&m.commit);
        self.modules.iter().any(|m| forward(m) && differs(m))
            && self.modules.iter().all(|m| !differs(m) || forward(m))
    }

    /// A module it gives a build that the node's declaration in force, from a trusted
    /// controller, says a rollout halted (and the node does not hold): not declared there,
    /// even before this controller's own store has taken the halt in.
    fn gives_halted(&self, by: &DeclaredBy, have: &Have) -> Option<&str> {
        if !self.trusted.contains(&by.controller.key) {
            return None;
        }
        let holds = |m: &mesh_proto::wire::DeclaredModule| {
            have.modules
                .iter()
                .any(|h| h.name == m.name && h.commit == m.commit)
        };
        self.modules
            .iter()
            .find(|m| {
                by.halted
                    .iter()
                    .any(|h| h.module == m.name && h.commit == m.commit)
                    && !holds(m)
            })
            .map(|m| m.name.as_str())
    }
}

/// Decides for `node`, which answered `have`, whether our declaration may replace what it
/// runs. `take_over` (a person's `mesh push --take-over`) declares over whatever another
/// controller declared: a node ahead (ours is older: the other controller, still newer,
/// declares again on its next run), diverged, or running another plan.
pub(crate) fn decide(histories: &Histories, ours: &Ours, have: &Have, take_over: bool) -> Decision {
    let declare = Decision::Declare {
        took_over_from: None,
        found: None,
    };
    let (Some(by), Some(held)) = (&have.declared_by, &have.declaration) else {
        return declare;
    };
    if by.controller.key == ours.me.key {
        return declare;
    }
    let digest = ours.digest;
    let compared = compare(histories, ours, by, held);
    let found = |relation: Relation, reason: String| DeclaredElsewhere {
        controller: by.controller.name.clone(),
        key: by.controller.key.clone(),
        digest: held.digest.clone(),
        sequence: held.sequence,
        applied: false,
        relation,
        against: digest.to_string(),
        reason,
        since: 0,
    };
    let name = &by.controller.name;
    if let Some(module) = ours.gives_halted(by, have) {
        return Decision::Leave(found(
            Relation::Same,
            format!(
                "runs what {name} declared, which says the build of {module} this controller would send was halted by a rollout; not sent (`mesh rollout` once it is collected)"
            ),
        ));
    }
    let newer = |took_over_from: Option<String>| Decision::Declare {
        found: Some(found(
            Relation::Newer,
            match took_over_from {
                Some(_) => format!("runs what {name} declared; taken over"),
                None => format!("runs what {name} declared, older than ours"),
            },
        )),
        took_over_from,
    };
    if take_over && compared.relation != history::Relation::Newer && held.digest != digest {
        return newer(Some(name.clone()));
    }
    if compared.relation == history::Relation::Newer {
        return newer(None);
    }
    let same_plan = || {
        by.plan
            .as_ref()
            .is_none_or(|p| Plan::differences(ours.plan, p, ours.me, &by.controller).is_empty())
    };
    if compared.relation == history::Relation::Same && ours.moves_rollout(have) && same_plan() {
        // The same commits, and a rollout both would move: whoever sees it due moves it, by
        // the same waves, so neither gives the build to more nodes than they allow.
        return Decision::Declare {
            took_over_from: None,
            found: Some(found(
                Relation::Newer,
                format!(
                    "runs what {name} declared from the same commits; its rollout moves on here"
                ),
            )),
        };
    }
    let (relation, reason) = kept(&compared, ours, by, held);
    let unapplied = have
        .applied
        .as_ref()
        .is_none_or(|a| a.digest != held.digest || a.sequence != held.sequence);
    match relation {
        Relation::Same | Relation::Ahead if unapplied => {
            let reason = reason.replacen("runs ", "holds ", 1);
            Decision::Finish(found(
                relation,
                format!("{reason}; it held it without applying it: asked to apply"),
            ))
        }
        _ => Decision::Leave(found(relation, reason)),
    }
}

/// How our declaration's commits stand to those of the one `held` (declared `by` another).
fn compare(histories: &Histories, ours: &Ours, by: &DeclaredBy, held: &Held) -> Compared {
    if held.digest == ours.digest {
        // The very declaration we would send: nothing to replace.
        return Compared {
            relation: history::Relation::Same,
            repo: None,
            theirs: None,
            unknown: false,
        };
    }
    histories.compare(ours.commits, &by.commits)
}

/// Why a node keeps what another controller declared (ours is not newer): how the two
/// declarations compare, and the sentence that says so and what a person may do.
fn kept(
    compared: &Compared,
    ours: &Ours,
    by: &mesh_node::DeclaredBy,
    held: &mesh_node::Held,
) -> (Relation, String) {
    let name = &by.controller.name;
    let at = |c: &Compared| {
        let repo = c.repo.as_deref().unwrap_or("?");
        let theirs = c.theirs.as_deref().map_or("?", |t| short(t));
        let ours = ours.commits.get(repo).map_or("?", |o| short(o));
        (
            shown(repo).to_string(),
            theirs.to_string(),
            ours.to_string(),
        )
    };
    match compared.relation {
        history::Relation::Same => {
            let differs = match &by.plan {
                Some(plan) if held.digest != ours.digest => {
                    Plan::differences(ours.plan, plan, ours.me, &by.controller)
                }
                _ => Vec::new(),
            };
            if differs.is_empty() {
                (
                    Relation::Same,
                    format!("runs what {name} declared from the same commits; it keeps it"),
                )
            } else {
                (
                    Relation::Differs,
                    format!(
                        "runs what {name} declared from the same commits with another plan: {}. Make the two mesh.toml agree, or `mesh push --take-over NODE` to declare yours",
                        differs.join("; ")
                    ),
                )
            }
        }
        history::Relation::Behind => {
            let (repo, theirs, _) = at(compared);
            let newer = if compared.unknown {
                "a commit this repository does not have"
            } else {
                "newer than yours"
            };
            (
                Relation::Ahead,
                format!(
                    "runs {repo}@{theirs} from {name}, {newer}: fetch, or `mesh push --take-over NODE` to declare yours anyway"
                ),
            )
        }
        // Newer is declared over, never kept: `decide` returns before.
        history::Relation::Diverged | history::Relation::Newer => {
            let why = match &compared.repo {
                Some(_) => {
                    let (repo, theirs, ours) = at(compared);
                    format!(
                        "runs {repo}@{theirs} from {name}, and yours is {repo}@{ours} on another line of history"
                    )
                }
                None => format!("runs what {name} declared from repositories this mesh does not"),
            };
            (
                Relation::Diverged,
                format!(
                    "{why}: merge the histories, or `mesh push --take-over NODE` to declare yours"
                ),
            )
        }
    }
}

/// A repository's name in a sentence.
fn shown(repo: &str) -> &str {
    if repo == MESH_DIRECTORY {
        "mesh-directory"
    } else {
        repo
    }
}

fn short(commit: &str) -> &str {
    mesh_node::artifact::short(commit, 8)
}

/// Records what was found about `node` in the write `w`; the fact, once, when it is new (the
/// same controller, declaration and relation as before state nothing).
pub fn record(
    w: &Writer,
    node: &str,
    mut found: DeclaredElsewhere,
    now: u64,
) -> Result<Vec<Fact>, StoreError> {
    let old = w.get(DECLARED_ELSEWHERE, node.as_bytes())?;
    let same = |o: &DeclaredElsewhere| {
        o.key == found.key && o.digest == found.digest && o.relation == found.relation
    };
    let mut facts = Vec::new();
    match &old {
        Some(o) if same(o) => {
            found.since = o.since;
            found.applied |= o.applied;
        }
        _ => {
            found.since = now;
            if let Some(o) = old.as_ref().filter(|o| o.digest == found.digest) {
                found.applied |= o.applied;
            }
            let fact = match found.relation {
                Relation::Ahead => Some(Fact::Ahead {
                    node: node.to_string(),
                    controller: found.controller.clone(),
                    reason: found.reason.clone(),
                }),
                Relation::Diverged => Some(Fact::Diverged {
                    node: node.to_string(),
                    controller: found.controller.clone(),
                    reason: found.reason.clone(),
                }),
                Relation::Differs => Some(Fact::Differs {
                    node: node.to_string(),
                    controller: found.controller.clone(),
                    reason: found.reason.clone(),
                }),
                _ => None,
            };
            facts.extend(fact);
        }
    }
    w.put(DECLARED_ELSEWHERE, node.as_bytes(), &found)?;
    Ok(facts)
}

/// What collect saw: the node runs `by`'s declaration `held`, which this controller did not
/// send. Recorded as not yet compared, unless it is already known; whether it is news (the
/// next push must compare).
pub fn seen(
    w: &Writer,
    node: &str,
    by: &DeclaredBy,
    held: &Held,
    now: u64,
) -> Result<bool, StoreError> {
    if let Some(o) = w.get(DECLARED_ELSEWHERE, node.as_bytes())?
        && o.digest == held.digest
    {
        return Ok(false);
    }
    w.put(
        DECLARED_ELSEWHERE,
        node.as_bytes(),
        &DeclaredElsewhere {
            controller: by.controller.name.clone(),
            key: by.controller.key.clone(),
            digest: held.digest.clone(),
            sequence: held.sequence,
            applied: false,
            relation: Relation::Unknown,
            against: String::new(),
            reason: format!(
                "runs a declaration from {}; the next push compares histories",
                by.controller.name
            ),
            since: now,
        },
    )?;
    Ok(true)
}

/// A report the node wrote about the declaration another controller put there: whether that
/// one applied cleanly is its to say, and status says it ("current, declared by laptop").
pub fn reported(w: &Writer, node: &str, report: &mesh_node::Report) -> Result<(), StoreError> {
    let Some(mut e) = w.get(DECLARED_ELSEWHERE, node.as_bytes())? else {
        return Ok(());
    };
    let Some(held) = &report.declaration else {
        return Ok(());
    };
    if held.digest != e.digest || held.sequence != e.sequence {
        return Ok(());
    }
    // A checked report repeats what the apply said of each module: clean when none failed.
    let clean = match report.outcome {
        mesh_node::Outcome::Applied => true,
        mesh_node::Outcome::Checked => report
            .resources
            .iter()
            .all(|r| r.outcome != mesh_node::ResourceOutcome::Failed),
        mesh_node::Outcome::Failed | mesh_node::Outcome::Refused => false,
    };
    if e.applied != clean {
        e.applied = clean;
        w.put(DECLARED_ELSEWHERE, node.as_bytes(), &e)?;
    }
    Ok(())
}

/// The node runs this controller's declaration again (or nothing): nothing to say.
pub(crate) fn cleared(w: &Writer, node: &str) -> Result<(), StoreError> {
    w.remove(DECLARED_ELSEWHERE, node.as_bytes())?;
    Ok(())
}

/// Every node's record, by node name.
pub fn all(r: &crate::store::Reader) -> Result<HashMap<String, DeclaredElsewhere>, StoreError> {
    r.by_name(DECLARED_ELSEWHERE)
}
