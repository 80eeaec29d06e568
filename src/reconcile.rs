//! `reconcile`: the whole loop in one idempotent pass — read sources, build what is behind,
//! declare what `auto` allows (in the same write as the build), push what is behind, collect
//! reports. A missed run costs latency, never correctness; a second run in a row does nothing.

use crate::Result;
use crate::build::Verdict;
use crate::build::schedule::{BuildOptions, BuildSummary, Progress};
use crate::config::MeshConfig;
use crate::events::{Event, Fact};
use crate::status::nodes::Status;
use crate::store::Paths;
use crate::transport::collect::NodeCollect;
use crate::transport::push::{NodePush, Outcome, PushOptions, PushProgress};
use serde::Serialize;

/// What one pass did, and what it left.
#[derive(Debug, Serialize)]
pub struct Summary {
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
    /// Things that need a person, one sentence each.
    pub needs_a_person: Vec<String>,
    /// The build step's summary.
    #[serde(skip)]
    pub build: BuildSummary,
    /// The push step's results.
    #[serde(skip)]
    pub push: Vec<NodePush>,
    /// The collect step's results.
    #[serde(skip)]
    pub collect: Vec<NodeCollect>,
    /// The status at the end.
    #[serde(skip)]
    pub status: Option<Status>,
    /// Every fact recorded in the pass, for hooks.
    #[serde(skip)]
    pub events: Vec<Event>,
    /// The modules the repositories hold now (for garbage collection).
    #[serde(skip)]
    pub modules: std::collections::BTreeSet<String>,
}

/// Runs one pass. The caller holds the mesh lock.
pub fn reconcile(
    paths: &Paths,
    mesh: &MeshConfig,
    jobs: usize,
    build_progress: &dyn Progress,
    push_progress: &dyn PushProgress,
) -> Result<Summary> {
    let loaded = crate::graph::load(mesh, &paths.state)?;
    let opts = BuildOptions {
        names: Vec::new(),
        jobs,
        dry_run: false,
        logs_keep: mesh.settings.logs_keep,
        events_keep: mesh.settings.events_keep,
    };
    let build = crate::build::build(paths, &loaded, &opts, build_progress)?;
    // Asked to stop during the builds: nothing is sent on their account.
    crate::check_stopped()?;
    let mut events = Vec::new();
    let modules = loaded
        .graph
        .modules
        .iter()
        .map(|m| m.name.clone())
        .collect();
    drop(loaded);
    let (push, push_events) = crate::transport::push::push(
        paths,
        mesh,
        &PushOptions {
            reapply_unanswered: true,
            ..PushOptions::default()
        },
        push_progress,
    )?;
    crate::check_stopped()?;
    let (collect, collect_events) = crate::transport::collect::collect(paths, mesh, &[])?;
    let status = crate::status::nodes::status(paths, mesh)?;

    events.extend(build.events.iter().cloned());
    events.extend(push_events);
    events.extend(collect_events);
    let kinds = |k: &str| {
        events
            .iter()
            .filter(|e| serde_json::from_str::<Fact>(&e.fact).is_ok_and(|f| f.kind() == k))
            .count()
    };
    let mut needs = Vec::new();
    for b in &build.built {
        if matches!(b.verdict, Verdict::Broken | Verdict::Unfit) {
            needs.push(format!(
                "{} is {}: {}",
                b.module,
                b.verdict,
                b.reason.as_deref().unwrap_or("")
            ));
        }
    }
    for m in &status.modules {
        if matches!(m.verdict, Some(Verdict::Broken | Verdict::Unfit))
            && !build.built.iter().any(|b| b.module == m.name)
        {
            needs.push(format!(
                "{} is {} (since an earlier run): `mesh builds {}`",
                m.name,
                m.verdict.map_or("", Verdict::as_str),
                m.name
            ));
        }
    }
    for p in &push {
        match &p.outcome {
            Outcome::Refused { reason } => {
                needs.push(format!("{} refused its declaration: {reason}", p.node))
            }
            Outcome::Failed { reason } => needs.push(format!("{}: {reason}", p.node)),
            _ => {}
        }
    }
    for n in &status.nodes {
        if n.state == "stuck" {
            needs.push(format!(
                "{} is stuck: {}",
                n.name,
                n.reason
                    .as_deref()
                    .unwrap_or("the same failure three reports in a row")
            ));
        }
    }
    Ok(Summary {
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
            .filter(|n| n.state == "outstanding")
            .count(),
        stuck: status.nodes.iter().filter(|n| n.state == "stuck").count(),
        needs_a_person: needs,
        build,
        push,
        collect,
        status: Some(status),
        events,
        modules,
    })
}
