//! `build --behind` and `build MODULE…`: the stale set in dependency order, independent modules
//! in parallel, a module that waited re-judged once its inputs finished (early cutoff), every
//! build recorded in one transaction when it ends — the store is closed while builds run.
//!
//! This file is the schedule; its steps stand beside it: what a run considers (`plan.rs`),
//! setting a build up (`prepare.rs`), running it (`run.rs`) and recording it (`record.rs`).

use super::Verdict;
use super::plan::Plan;
use super::prepare::{keep_current_exports, prepare};
use super::record::{declare_current, prune_logs, record};
use super::run::{self, Dirs, Live};
use super::summary::{BuildOptions, BuildSummary, Built, Ended, Progress};
use super::written::Watch;
use crate::clock::now_ms;
use crate::events::Event;
use crate::graph::Loaded;
use crate::graph::stale::{self, Known, ModuleState};
use crate::remote::action::{BlobDigests, Input, ModuleAction, module_action};
use crate::remote::merkle;
use crate::remote::share::Shared;
use crate::source::export::Export;
use crate::store::{BuildRecord, Paths};
use crate::{Error, Result};
use mesh_node::artifact::ArtifactStore;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Sender};
use std::thread::Scope;
use std::time::SystemTime;

/// Builds what is stale among the targets; returns what ran.
pub fn build(
    paths: &Paths,
    loaded: &Loaded,
    opts: &BuildOptions,
    progress: &dyn Progress,
) -> Result<BuildSummary> {
    let plan = Plan::new(loaded, opts)?;
    let mut known = paths.open()?.read(Known::load)?;
    known.artifacts = Some(paths.artifacts());
    if opts.dry_run {
        return Ok(plan.would_build(&known));
    }
    let announced = announce_moved_sources(paths, loaded, opts.events_keep)?;
    let dirs = build_dirs(paths, opts.jobs.max(1))?;
    let mut run = Run::new(paths, &plan, known, announced);
    run.remote = opts.remote.clone();
    run.run_all(&dirs, opts.jobs.max(1), opts.logs_keep, progress)?;
    run.conclude()
}

/// States the sources that moved since they were last stated, in one write. They are stated
/// here, by the verb that acts on them, once.
fn announce_moved_sources(paths: &Paths, loaded: &Loaded, events_keep: u64) -> Result<Vec<Event>> {
    Ok(paths.open()?.write(|w| {
        crate::events::announce_sources(
            w,
            loaded
                .snapshot
                .modules
                .iter()
                .map(|m| (m.name(), m.source_id.as_str())),
            now_ms(),
            events_keep,
        )
    })?)
}

/// Where builds put things, with the directories made: scratch space, the artifact store and
/// the logs; and room for `jobs` builds on this machine.
fn build_dirs(paths: &Paths, jobs: usize) -> Result<Dirs> {
    let dirs = Dirs {
        tmp: paths.tmp(),
        groups: paths.groups(),
        artifacts: ArtifactStore::new(paths.artifacts()),
        deps: paths.deps(),
        here: run::Slots::new(jobs),
    };
    for d in [paths.tmp(), paths.artifacts(), paths.logs()] {
        std::fs::create_dir_all(&d).map_err(|e| {
            Error::io(
                format!("cannot create {}", d.display()),
                e,
                "check that the mesh directory is writable",
            )
        })?;
    }
    Ok(dirs)
}

/// A run in progress: what is known, each module's state, what runs and what has ended.
struct Run<'a> {
    paths: &'a Paths,
    plan: &'a Plan<'a>,
    known: Known,
    /// Each module's state as last judged (`None`: not judged yet).
    states: Vec<Option<ModuleState>>,
    running: BTreeSet<usize>,
    done: BTreeSet<usize>,
    /// The modules that waited on an input at some point: spared if they end current unbuilt.
    waited: BTreeSet<usize>,
    /// Each repository's export this run uses, by repository index, held until it ends.
    exports: HashMap<usize, Export>,
    /// The first store error: nothing new starts after it.
    record_err: Option<Error>,
    /// Each build's span in its export, and the writes into exports found.
    watch: Watch,
    summary: BuildSummary,
    /// The engine builds are shared through, if any.
    remote: Option<Arc<Shared>>,
    /// Git blobs' SHA-256 digests, read from the store at the first action made.
    digests: Option<BlobDigests>,
    /// Each input artifact's tree, by artifact digest, for this run's actions.
    trees: HashMap<String, merkle::Tree>,
}

impl<'a> Run<'a> {
    /// A run that has built nothing yet; its facts start with the sources `announced`.
    fn new(paths: &'a Paths, plan: &'a Plan<'a>, known: Known, announced: Vec<Event>) -> Self {
        Run {
            paths,
            plan,
            known,
            states: vec![None; plan.loaded.graph.modules.len()],
            running: BTreeSet::new(),
            done: BTreeSet::new(),
            waited: BTreeSet::new(),
            exports: HashMap::new(),
            record_err: None,
            watch: Watch::default(),
            summary: BuildSummary {
                events: announced,
                ..BuildSummary::default()
            },
            remote: None,
            digests: None,
            trees: HashMap::new(),
        }
    }

    /// Starts what is ready, up to `jobs` at once, and records each build as it ends, until
    /// nothing runs and nothing more can start. The first store error is the answer, once
    /// every build still running has ended.
    fn run_all(
        &mut self,
        dirs: &Dirs,
        jobs: usize,
        logs_keep: usize,
        progress: &dyn Progress,
    ) -> Result<()> {
        let (tx, rx) = mpsc::channel::<Ended>();
        std::thread::scope(|scope| {
            loop {
                self.judge();
                // With an engine, builds wait on it (the cache, its workers) more than they
                // run here: `[remote] jobs` of them at once, of which `-j` build here.
                let at_once = match &self.remote {
                    Some(r) => r.jobs().max(jobs),
                    None => jobs,
                };
                for m in self.ready() {
                    if self.running.len() >= at_once {
                        break;
                    }
                    self.start(scope, dirs, &tx, progress, m);
                }
                if self.running.is_empty() {
                    break;
                }
                let Ok(ended) = rx.recv() else {
                    break;
                };
                self.finish(ended, logs_keep, progress);
            }
        });
        match self.record_err.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Judges every module neither running nor done again with what is known now, in graph
    /// order.
    fn judge(&mut self) {
        let g = &self.plan.loaded.graph;
        for &m in &g.order {
            if !self.running.contains(&m) && !self.done.contains(&m) {
                let s = stale::assess_one(g, &self.plan.inputs, &self.known, &self.states, m);
                if matches!(s, ModuleState::Waits(_)) {
                    self.waited.insert(m);
                }
                self.states[m] = Some(s);
            }
        }
    }

    /// The targets that may start now, in graph order: stale, neither running nor done, every
    /// input's artifact known. None after a store error, nor after mesh was asked to stop
    /// (SIGINT/SIGTERM): what runs is waited for.
    fn ready(&self) -> Vec<usize> {
        if self.record_err.is_some() || mesh_node::process::stopped().is_some() {
            return Vec::new();
        }
        let g = &self.plan.loaded.graph;
        g.order
            .iter()
            .copied()
            .filter(|m| {
                self.plan.targets.contains(m)
                    && !self.running.contains(m)
                    && !self.done.contains(m)
                    && matches!(self.states[*m], Some(ModuleState::Stale(_)))
                    && stale::input_artifacts(g, &self.states, *m).is_ok()
            })
            .collect()
    }

    /// Starts module `m`'s build on a thread of `scope`; it sends its end on `tx`. A module
    /// that cannot be set up (its export, an input's artifact) ends at once, outstanding — not
    /// a verdict — and the others go on.
    fn start<'scope>(
        &mut self,
        scope: &'scope Scope<'scope, '_>,
        dirs: &'scope Dirs,
        tx: &Sender<Ended>,
        progress: &dyn Progress,
        m: usize,
    ) {
        let started = now_ms();
        let job = match prepare(self.paths, self.plan, &self.states, &mut self.exports, m) {
            Ok(job) => job,
            Err(e) => {
                let outcome = run::outstanding(
                    None,
                    format!("could not prepare the build: {e}"),
                    Vec::new(),
                );
                let _ = tx.send(Ended {
                    m,
                    outcome,
                    started,
                    began: SystemTime::now(),
                    log: PathBuf::new(),
                    remote: None,
                    upload: None,
                });
                self.running.insert(m);
                return;
            }
        };
        let action = self.remote.is_some().then(|| self.action_of(m));
        let shared = self.remote.clone();
        let name = &self.plan.loaded.graph.modules[m].name;
        let log = self.paths.logs().join(name).join(format!("{started}.log"));
        let live = Arc::new(Live::default());
        progress.started(name, Arc::clone(&live));
        self.running.insert(m);
        let began = SystemTime::now();
        let repo = self.plan.loaded.snapshot.modules[m].repo;
        self.watch.began(repo, name, began);
        let tx = tx.clone();
        scope.spawn(move || {
            let (outcome, remote, upload) = match (shared, action) {
                (Some(shared), Some(action)) => {
                    let (o, used, up) =
                        super::remote::build(&job, action, &shared, dirs, &log, &live);
                    (o, Some(used), up)
                }
                _ => (run::run(&job, dirs, &log, &live), None, None),
            };
            let _ = tx.send(Ended {
                m,
                outcome,
                started,
                began,
                log,
                remote,
                upload,
            });
        });
    }

    /// Records a build that ended and learns its verdict. When the store refuses the record,
    /// the module stays stale and the error is kept for the end.
    fn finish(&mut self, mut ended: Ended, logs_keep: usize, progress: &dyn Progress) {
        let m = ended.m;
        let src = &self.plan.loaded.snapshot.modules[m];
        let elsewhere = ended
            .remote
            .as_ref()
            .is_some_and(|r| matches!(r.ran, "cache" | "remote" | "none"));
        if elsewhere {
            self.watch.ran_elsewhere(src.repo, src.name(), ended.began);
        } else if !ended.log.as_os_str().is_empty()
            && let Some(export) = self.exports.get(&src.repo)
        {
            let snap = self.plan.loaded.snapshot.repo_of(src);
            self.watch
                .ended(snap, export, src.repo, src.name(), &mut ended);
        }
        // A fit build made here goes to the cache only now that the check of its export has
        // judged it too.
        if let (Some(action), Some(shared), Some(used)) =
            (ended.upload.take(), &self.remote, ended.remote.as_mut())
            && ended.outcome.verdict == Verdict::Fit
        {
            used.uploaded = super::remote::upload(
                src.name(),
                &action,
                &ended.outcome,
                shared,
                &self.paths.deps(),
                &ArtifactStore::new(self.paths.artifacts()),
                &ended.log,
            );
        }
        self.running.remove(&m);
        self.done.insert(m);
        let (record, events) = match record(self.paths, self.plan, &self.states, &ended) {
            Ok(r) => r,
            Err(e) => {
                // Builds still running are waited for; the first error is the answer.
                self.record_err.get_or_insert(e);
                self.states[m] = Some(ModuleState::Stale(stale::StaleReason::Retry));
                return;
            }
        };
        self.summary.events.extend(events);
        self.known.learn(&record);
        prune_logs(&self.paths.logs().join(&record.module), logs_keep);
        let built = Built::of(&record, ended.outcome, ended.remote);
        progress.finished(&built);
        self.states[m] = Some(state_after(&record));
        self.summary.built.push(built);
    }

    /// The summary once every build ended: who was spared and who is blocked, the
    /// declarations the current builds call for; then exports no commit needs go.
    fn conclude(self) -> Result<BuildSummary> {
        let spared = self.spared();
        let blocked = self.blocked();
        let declared = declare_current(self.paths, self.plan, &self.states)?;
        if let Some(d) = &self.digests {
            crate::remote::keep_blob_digests(self.paths, &d.learnt)?;
        }
        if !self.exports.is_empty() {
            keep_current_exports(self.paths, self.plan.loaded);
        }
        let mut summary = self.summary;
        summary.spared = spared;
        summary
            .warnings
            .extend(self.remote.iter().flat_map(|r| r.warnings()));
        summary.blocked = blocked;
        summary.events.extend(declared);
        Ok(summary)
    }

    /// Module `m`'s build as the engine names it (its export made, its inputs unpacked);
    /// why not, when it cannot be named.
    fn action_of(&mut self, m: usize) -> std::result::Result<ModuleAction, String> {
        let plan = self.plan;
        let src = &plan.loaded.snapshot.modules[m];
        let snap = plan.loaded.snapshot.repo_of(src);
        let export = self
            .exports
            .get(&src.repo)
            .map(|e| e.path().to_path_buf())
            .ok_or("the module has no export")?;
        let artifacts =
            stale::input_artifacts(&plan.loaded.graph, &self.states, m).unwrap_or_default();
        let dirs: Vec<PathBuf> = artifacts
            .iter()
            .map(|(_, d)| self.paths.deps().join(d))
            .collect();
        let inputs: Vec<Input> = artifacts
            .iter()
            .zip(&dirs)
            .map(|((name, artifact), dir)| Input {
                name,
                artifact,
                dir,
            })
            .collect();
        let paths = self.paths;
        let digests = self
            .digests
            .get_or_insert_with(|| crate::remote::known_blob_digests(paths));
        let named = stale::source_inputs(&plan.loaded.graph, &plan.inputs, m);
        let sources: Vec<&crate::source::ModuleSource> = named
            .iter()
            .filter_map(|(n, _)| plan.loaded.snapshot.modules.iter().find(|o| o.name() == n))
            .collect();
        module_action(
            snap,
            src,
            &export,
            &inputs,
            &sources,
            digests,
            &mut self.trees,
        )
    }

    /// The targets that waited on an input and ended current without being built: the
    /// input's artifact did not move (early cutoff).
    fn spared(&self) -> Vec<String> {
        let g = &self.plan.loaded.graph;
        self.waited
            .iter()
            .filter(|&&m| {
                matches!(self.states[m], Some(ModuleState::Current { .. }))
                    && !self.done.contains(&m)
                    && self.plan.targets.contains(&m)
            })
            .map(|&m| g.modules[m].name.clone())
            .collect()
    }

    /// (target, the input that blocks it), in graph order.
    fn blocked(&self) -> Vec<(String, String)> {
        let g = &self.plan.loaded.graph;
        g.order
            .iter()
            .filter_map(|&m| match self.states[m] {
                Some(ModuleState::Blocked(by)) if self.plan.targets.contains(&m) => {
                    Some((g.modules[m].name.clone(), g.modules[by].name.clone()))
                }
                _ => None,
            })
            .collect()
    }
}

/// A module's state once its build is recorded: current by it, or stale again (retried next
/// run) when it ended outstanding.
fn state_after(record: &BuildRecord) -> ModuleState {
    match record.verdict {
        Verdict::Outstanding => ModuleState::Stale(stale::StaleReason::Retry),
        v => ModuleState::Current {
            build: record.id,
            verdict: v,
            artifact: record.artifact.clone(),
        },
    }
}
