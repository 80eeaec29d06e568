//! `reconcile`: the whole loop in one idempotent pass — heal what would be sent damaged, read
//! sources, build what is behind, declare what `auto` allows (in the same write as the build),
//! push what is behind, collect reports, then run hooks, collect garbage, back up the store and
//! key, and write the page. A missed run costs latency, never correctness; a second run in a
//! row does nothing. The pass returns what it did and what went wrong on the way as values;
//! the CLI renders them.

use crate::builder::{BuildOptions, BuildSummary, Progress};
use crate::config::MeshConfig;
use crate::deliver::collect::NodeCollect;
use crate::deliver::push::{NodePush, Outcome, PushOptions, PushProgress};
use crate::events::{Event, Fact};
use crate::source::Snapshot;
use crate::status::nodes::NodeState;
use crate::status::nodes::Status;
use crate::store::Paths;
use crate::transport::Connections;
use crate::{Lock, Mesh, Result};
use serde::Serialize;
use std::collections::BTreeSet;

/// What one pass did, and what it left.
#[derive(Debug, Serialize)]
pub struct PassReport {
    /// Builds that ran.
    pub built: usize,
    /// Builds declared.
    pub declared: usize,
    /// Nodes sent a new declaration.
    pub sent: usize,
    /// Modules a node newly reported applied.
    pub applied: usize,
    /// Nodes sent something not yet applied.
    pub outstanding: usize,
    /// Nodes stuck.
    pub stuck: usize,
    /// Repositories followed by URL whose last fetch failed (each read as last fetched, and
    /// listed in `needs_a_person`).
    pub fetch_failed: usize,
    /// Things that need a person, one sentence each ([`crate::status::needs::needs_a_person`]
    /// of the status at the end of the pass).
    pub needs_a_person: Vec<String>,
    /// The status at the end.
    #[serde(skip)]
    pub status: Status,
    /// Every fact recorded in the pass (what its hooks were given).
    #[serde(skip)]
    pub events: Vec<Event>,
    /// What went wrong beside the pass's own work, in the order it happened: a refused
    /// `[ssh] persist`, a hook that failed, garbage collection, a backup or the page not done.
    /// None of it changes what the nodes run, so none of it fails the pass.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// How a pass runs.
#[derive(Debug, Clone)]
pub struct PassOptions {
    /// How many builds run at once.
    pub jobs: usize,
}

/// How many nodes' sessions a pass keeps open from its push to its collect; a node beyond
/// opens a second one (each open session holds a process, pipes and two threads).
const KEEP_SESSIONS: usize = 128;

/// Runs one whole pass on `mesh`, under its lock (`_lock` is the proof it is held).
pub fn reconcile(
    m: &Mesh,
    _lock: &Lock,
    opts: &PassOptions,
    build_progress: &dyn Progress,
    push_progress: &dyn PushProgress,
) -> Result<PassReport> {
    // The key that signs what the pass declares, checked before any slow work.
    m.signer_key()?;
    let paths = m.paths();
    let mesh = &m.config;
    let (mut report, modules) =
        deliver(paths, mesh, opts.jobs.max(1), build_progress, push_progress)?;
    // A failed fetch is among what needs a person; nothing says it again on the way out.
    crate::source::follow::take_unsaid();
    report.warnings.extend(crate::events::run_hooks(
        &mesh.hooks,
        &mesh.dir,
        &report.events,
    ));
    report.warnings.extend(after(paths, mesh, &report, modules));
    Ok(report)
}

/// What a pass does once it has delivered: garbage collection, backups, the page. Each may
/// fail without failing the pass; what failed is returned.
fn after(
    paths: &Paths,
    mesh: &MeshConfig,
    report: &PassReport,
    modules: BTreeSet<String>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    // What nothing needs any more goes, for a bounded time (the rest next pass).
    let gc = crate::gc::GcOptions {
        dry_run: false,
        builds_keep: mesh.settings.builds_keep,
        time_limit: Some(std::time::Duration::from_secs(5)),
        modules: Some(modules),
    };
    if let Err(e) = crate::gc::gc(paths, &gc) {
        warnings.push(format!("garbage collection did not finish: {e}"));
    }
    // A pass that changed something is worth a verified copy of the store (at most hourly),
    // and of this controller's key beside it: a restored store without its key would be
    // refused by every node that trusts this controller.
    if !report.events.is_empty() {
        match crate::store::backup(&paths.state, crate::store::BACKUP_EVERY) {
            Err(e) => warnings.push(format!("no backup of the store was made: {e}")),
            Ok(true) => {
                if let Err(e) = crate::controller::back_up(&paths.dot_mesh) {
                    warnings.push(format!("no backup of the controller key was made: {e}"));
                }
            }
            Ok(false) => {}
        }
    }
    // `[status] page`: the page a cron host publishes, written every pass.
    if let Some(path) = &mesh.status.page
        && let Err(e) = crate::status::page::publish(
            paths,
            &mesh.name,
            &report.status,
            path,
            mesh.status.refresh,
        )
    {
        warnings.push(format!("the status page was not written: {e}"));
    }
    warnings
}

/// Heals, builds, pushes and collects: the part of the pass that changes what nodes run.
/// Returns the report and the modules the repositories hold now (for garbage collection).
fn deliver(
    paths: &Paths,
    mesh: &MeshConfig,
    jobs: usize,
    build_progress: &dyn Progress,
    push_progress: &dyn PushProgress,
) -> Result<(PassReport, BTreeSet<String>)> {
    // A damaged artifact this pass would send is removed now, so that this pass builds it again.
    let healed = crate::deliver::heal::damaged_outgoing(paths, mesh)?;
    let loaded = crate::graph::load(mesh, &paths.state)?;
    let opts = BuildOptions {
        names: Vec::new(),
        jobs,
        dry_run: false,
        logs_keep: mesh.settings.logs_keep,
        events_keep: mesh.settings.events_keep,
        remote: crate::remote::for_run(mesh, &paths.dot_mesh),
    };
    // A failed fetch does not stop the pass: it goes on with the last fetched commit (and the
    // status at the end names it among what needs a person).
    let build = crate::builder::build(paths, &loaded, &opts, build_progress)?;
    // Asked to stop during the builds: nothing is sent on their account.
    crate::check_stopped()?;
    let mut events = Vec::new();
    // The modules the repositories hold now, for garbage collection.
    let modules = loaded.snapshot.module_names();
    // The one reading of the mesh is kept for push and status; the graph is freed.
    let sources = loaded.snapshot;
    let reapply = PushOptions {
        reapply_unanswered: true,
        ..PushOptions::default()
    };
    // One session per node for the whole pass: what push opened, collect goes on with.
    let sessions = Connections::new(mesh, KEEP_SESSIONS)?;
    // Rollouts first: each moves at most one wave a pass, and a halted build is put back —
    // from what the nodes hold, read first where this store knows nothing of them.
    events.extend(crate::rollout::before_push(paths, mesh, &sessions)?);
    let (mut push, push_events) =
        crate::deliver::push::push(paths, mesh, &sources, &reapply, push_progress, &sessions)?;
    crate::check_stopped()?;
    events.extend(push_events);
    let (mut collect, collect_events) =
        crate::deliver::collect::collect(paths, mesh, &[], &sessions)?;
    events.extend(collect_events);
    let pass = Pass {
        paths,
        mesh,
        sources: &sources,
        push_progress,
        sessions: &sessions,
    };
    events.extend(pass.send_lost_again(reapply, &mut push, &mut collect)?);
    let mut warnings = build.warnings.clone();
    warnings.extend(sessions.warnings());
    drop(sessions);
    let status = crate::status::nodes::status(paths, mesh, &sources)?;
    events.extend(state_not_worked_out(paths, mesh, &status)?);
    let mut all_events = healed;
    all_events.extend(build.events.iter().cloned());
    all_events.extend(events);
    let mut report = report(&build, &push, status, all_events);
    report.warnings = warnings;
    Ok((report, modules))
}

/// What a pass delivers through: its mesh, its one reading of the sources, its sessions.
struct Pass<'p> {
    paths: &'p Paths,
    mesh: &'p MeshConfig,
    sources: &'p Snapshot,
    push_progress: &'p dyn PushProgress,
    sessions: &'p Connections<'p>,
}

impl Pass<'_> {
    /// A node found without what it was sent (a wiped root) is sent it again in this pass, and
    /// read again, so that the pass ends with what it did rather than a stale "outstanding".
    /// So is a node newly found running another controller's declaration: the push compares
    /// histories there, so the pass ends saying ahead, diverged or kept, not "lost".
    ///
    /// Not a node this pass's push already delivered to or asked to apply: it lost what it was
    /// sent in this pass's own apply (an `activate` that removes the root), and a second apply
    /// would count that failure twice in one pass — stuck after two passes, not three. The
    /// next pass sends it again.
    fn send_lost_again(
        &self,
        reapply: PushOptions,
        push: &mut Vec<NodePush>,
        collect: &mut Vec<NodeCollect>,
    ) -> Result<Vec<Event>> {
        let applied_this_pass = |node: &str| {
            push.iter().any(|p| {
                p.node == node
                    && matches!(
                        p.outcome,
                        Outcome::Sent { .. } | Outcome::Reapplied { .. } | Outcome::Failed { .. }
                    )
            })
        };
        let lost: Vec<String> = collect
            .iter()
            .filter(|c| c.elsewhere || (c.lost && !applied_this_pass(&c.node)))
            .map(|c| c.node.clone())
            .collect();
        if lost.is_empty() {
            return Ok(Vec::new());
        }
        let again = PushOptions {
            nodes: lost.clone(),
            ..reapply
        };
        let (p, mut events) = crate::deliver::push::push(
            self.paths,
            self.mesh,
            self.sources,
            &again,
            self.push_progress,
            self.sessions,
        )?;
        push.retain(|r| !lost.contains(&r.node));
        push.extend(p);
        push.sort_by(|a, b| a.node.cmp(&b.node));
        let (c, e) = crate::deliver::collect::collect(self.paths, self.mesh, &lost, self.sessions)?;
        events.extend(e);
        collect.retain(|r| !lost.contains(&r.node));
        collect.extend(c);
        collect.sort_by(|a, b| a.node.cmp(&b.node));
        Ok(events)
    }
}

/// The pass in counts, with what it did.
fn report(
    build: &BuildSummary,
    push: &[NodePush],
    status: Status,
    events: Vec<Event>,
) -> PassReport {
    let kinds = |k: &str| {
        events
            .iter()
            .filter(|e| serde_json::from_str::<Fact>(&e.fact).is_ok_and(|f| f.kind() == k))
            .count()
    };
    // What needs a person is what the status at the end says does: the one definition
    // `status --check` and the page use too.
    let needs: Vec<String> = crate::status::needs::needs_a_person(&status)
        .into_iter()
        .map(|n| n.sentence)
        .collect();
    PassReport {
        built: build.built.len(),
        declared: kinds("declared"),
        sent: push
            .iter()
            .filter(|p| matches!(p.outcome, Outcome::Sent { .. }))
            .count(),
        applied: kinds("applied"),
        outstanding: status
            .nodes
            .iter()
            .filter(|n| n.state == NodeState::Outstanding)
            .count(),
        stuck: status
            .nodes
            .iter()
            .filter(|n| n.state == NodeState::Stuck)
            .count(),
        fetch_failed: status.fetch_failed.len(),
        needs_a_person: needs,
        status,
        events,
        warnings: Vec::new(),
    }
}

/// States `not-worked-out` once per node, when it begins or its reason changes, in one write
/// (only when something changed).
fn state_not_worked_out(paths: &Paths, mesh: &MeshConfig, status: &Status) -> Result<Vec<Event>> {
    use crate::store::NOT_WORKED_OUT;
    let store = paths.open()?;
    let stated: std::collections::HashMap<String, String> =
        store.read(|r| r.by_name(NOT_WORKED_OUT))?;
    let now: Vec<(&str, &str)> = status
        .nodes
        .iter()
        .filter(|n| n.state == NodeState::NotWorkedOut)
        .map(|n| (n.name.as_str(), n.reason.as_deref().unwrap_or("")))
        .collect();
    let changed = now
        .iter()
        .any(|(n, r)| stated.get(*n).map(String::as_str) != Some(*r))
        || stated.keys().any(|k| !now.iter().any(|(n, _)| n == k));
    if !changed {
        return Ok(Vec::new());
    }
    Ok(store.write(|w| {
        let mut facts = Vec::new();
        for k in stated.keys().filter(|k| !now.iter().any(|(n, _)| n == *k)) {
            w.remove(NOT_WORKED_OUT, k.as_bytes())?;
        }
        for (n, r) in &now {
            if stated.get(*n).map(String::as_str) != Some(*r) {
                w.put(NOT_WORKED_OUT, n.as_bytes(), &r.to_string())?;
                facts.push(Fact::NotWorkedOut {
                    node: n.to_string(),
                    reason: r.to_string(),
                });
            }
        }
        crate::events::append(w, &facts, crate::clock::now_ms(), mesh.settings.events_keep)
    })?)
}
