//! `build --behind` and `build MODULE…`: the stale set in dependency order, independent modules
//! in parallel, a module that waited re-judged once its inputs finished (early cutoff), every
//! build recorded in one transaction when it ends — the store is closed while builds run.

use super::Verdict;
use super::run::{self, Dirs, Job, Live, Outcome};
use crate::artifact::{self, ArtifactStore};
use crate::clock::now_ms;
use crate::events::Fact;
use crate::graph::Loaded;
use crate::graph::stale::{self, Known, ModuleInput, ModuleState};
use crate::store::{
    self, BUILDS, BuildRecord, CURRENT, CurrentEntry, DECLARED, LATEST, META, Paths,
};
use crate::{Error, Result};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, mpsc};

/// What to build.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Named modules (and whatever of their inputs is stale); empty means every module.
    pub names: Vec<String>,
    /// How many builds run at once.
    pub jobs: usize,
    /// Say what would run, run nothing.
    pub dry_run: bool,
    /// How many logs to keep per module.
    pub logs_keep: usize,
    /// How many facts the events log keeps.
    pub events_keep: u64,
}

/// One build that ran.
#[derive(Debug, Clone, Serialize)]
pub struct Built {
    /// The module.
    pub module: String,
    /// The recorded build id.
    pub id: u64,
    /// Its verdict.
    pub verdict: Verdict,
    /// Why, for anything but fit.
    pub reason: Option<String>,
    /// The step that failed.
    pub step: Option<&'static str>,
    /// The artifact digest.
    pub artifact: Option<String>,
    /// Milliseconds.
    pub duration_ms: u64,
    /// The last lines of output (for broken and unfit builds).
    #[serde(skip)]
    pub tail: Vec<String>,
    /// The log file.
    pub log: String,
}

/// What a build run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildSummary {
    /// Builds that ran, in the order they finished.
    pub built: Vec<Built>,
    /// Modules that waited on an input whose artifact did not move: spared by early cutoff.
    pub spared: Vec<String>,
    /// (module, the input that blocks it).
    pub blocked: Vec<(String, String)>,
    /// With `--dry-run`: the modules that would be built, in order, with why.
    pub would_build: Vec<(String, String)>,
    /// The facts recorded (built, declared), for hooks.
    #[serde(skip)]
    pub events: Vec<crate::events::Event>,
}

/// Told what happens, to draw progress.
pub trait Progress: Sync {
    /// A build started.
    fn started(&self, module: &str, live: Arc<Live>);
    /// A build finished (and was recorded).
    fn finished(&self, built: &Built);
}

/// Everything that does not change during the run.
struct Plan<'a> {
    loaded: &'a Loaded,
    events_keep: u64,
    inputs: Vec<ModuleInput<'a>>,
    targets: BTreeSet<usize>,
}

/// Builds what is stale among the targets; returns what ran.
pub fn build(
    paths: &Paths,
    loaded: &Loaded,
    opts: &BuildOptions,
    progress: &dyn Progress,
) -> Result<BuildSummary> {
    let g = &loaded.graph;
    let inputs = stale::module_inputs(loaded);
    let targets = targets(loaded, &opts.names)?;
    let plan = Plan {
        loaded,
        events_keep: opts.events_keep,
        inputs,
        targets,
    };
    let mut known = paths.open()?.read(Known::load)?;
    known.artifacts = Some(paths.artifacts());

    if opts.dry_run {
        let states = stale::assess(g, &plan.inputs, &known);
        let mut summary = BuildSummary::default();
        for &m in &g.order {
            if !plan.targets.contains(&m) {
                continue;
            }
            let why = match &states[m] {
                ModuleState::Stale(r) => r.to_string(),
                ModuleState::Waits(on) => format!("if {} moves", names(g, on)),
                _ => continue,
            };
            summary.would_build.push((g.modules[m].name.clone(), why));
        }
        return Ok(summary);
    }

    // Moved sources are stated here, by the verb that acts on them, once.
    let announced = paths.open()?.write(|w| {
        crate::events::announce_sources(
            w,
            loaded
                .snapshot
                .modules
                .iter()
                .map(|m| (m.name(), m.source_id.as_str())),
            now_ms(),
            opts.events_keep,
        )
    })?;
    let dirs = Dirs {
        tmp: paths.tmp(),
        groups: paths.groups(),
        artifacts: ArtifactStore::new(paths.artifacts()),
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
    let jobs = opts.jobs.max(1);
    let mut summary = BuildSummary {
        events: announced,
        ..BuildSummary::default()
    };
    let mut states: Vec<Option<ModuleState>> = vec![None; g.modules.len()];
    let mut running: BTreeSet<usize> = BTreeSet::new();
    let mut done: BTreeSet<usize> = BTreeSet::new();
    let mut waited: BTreeSet<usize> = BTreeSet::new();
    let mut exports: HashMap<usize, PathBuf> = HashMap::new();
    let (tx, rx) = mpsc::channel::<(usize, Outcome, u64, PathBuf)>();
    let mut record_err: Option<crate::Error> = None;

    std::thread::scope(|scope| -> Result<()> {
        loop {
            // Judge every module again with what is known now, in graph order.
            for &m in &g.order {
                if !running.contains(&m) && !done.contains(&m) {
                    let s = stale::assess_one(g, &plan.inputs, &known, &states, m);
                    if matches!(s, ModuleState::Waits(_)) {
                        waited.insert(m);
                    }
                    states[m] = Some(s);
                }
            }
            let ready: Vec<usize> = g
                .order
                .iter()
                .copied()
                .filter(|m| {
                    plan.targets.contains(m)
                        && !running.contains(m)
                        && !done.contains(m)
                        && matches!(states[*m], Some(ModuleState::Stale(_)))
                        && stale::input_artifacts(g, &states, *m).is_ok()
                })
                .collect();
            // After a store error nothing new starts; what runs is waited for.
            // Nor after mesh was asked to stop (SIGINT/SIGTERM).
            let ready = if record_err.is_some() || crate::process::stopped().is_some() {
                Vec::new()
            } else {
                ready
            };
            for m in ready {
                if running.len() >= jobs {
                    break;
                }
                let started = now_ms();
                let job = match prepare(paths, &plan, &states, &mut exports, m) {
                    Ok(job) => job,
                    Err(e) => {
                        // This module could not be set up (its export, an input's artifact):
                        // outstanding, not a verdict; the others go on.
                        let outcome = Outcome {
                            verdict: Verdict::Outstanding,
                            reason: Some(format!("could not prepare the build: {e}")),
                            step: None,
                            artifact: None,
                            tail: Vec::new(),
                        };
                        let _ = tx.send((m, outcome, started, PathBuf::new()));
                        running.insert(m);
                        continue;
                    }
                };
                let log = paths
                    .logs()
                    .join(&g.modules[m].name)
                    .join(format!("{started}.log"));
                let live = Arc::new(Live::default());
                progress.started(&g.modules[m].name, Arc::clone(&live));
                running.insert(m);
                let tx = tx.clone();
                let dirs = &dirs;
                scope.spawn(move || {
                    let outcome = run::run(&job, dirs, &log, &live);
                    let _ = tx.send((m, outcome, started, log));
                });
            }
            if running.is_empty() {
                break;
            }
            let Ok((m, outcome, started, log)) = rx.recv() else {
                break;
            };
            running.remove(&m);
            done.insert(m);
            let (record, events) = match record(paths, &plan, &states, m, &outcome, started, &log) {
                Ok(r) => r,
                Err(e) => {
                    // Builds still running are waited for; the first error is the answer.
                    record_err.get_or_insert(e);
                    states[m] = Some(ModuleState::Stale(stale::StaleReason::Retry));
                    continue;
                }
            };
            summary.events.extend(events);
            known.learn(&record);
            prune_logs(&paths.logs().join(&record.module), opts.logs_keep);
            let built = Built {
                module: record.module.clone(),
                id: record.id,
                verdict: record.verdict,
                reason: record.reason.clone(),
                step: outcome.step,
                artifact: record.artifact.clone(),
                duration_ms: record.finished.saturating_sub(record.started),
                tail: outcome.tail,
                log: record.log.clone().unwrap_or_default(),
            };
            progress.finished(&built);
            states[m] = Some(match record.verdict {
                Verdict::Outstanding => ModuleState::Stale(stale::StaleReason::Retry),
                v => ModuleState::Current {
                    build: record.id,
                    verdict: v,
                    artifact: record.artifact.clone(),
                },
            });
            summary.built.push(built);
        }
        Ok(())
    })?;
    if let Some(e) = record_err {
        return Err(e);
    }

    for m in waited {
        if let Some(ModuleState::Current { .. }) = states[m]
            && !done.contains(&m)
            && plan.targets.contains(&m)
        {
            summary.spared.push(g.modules[m].name.clone());
        }
    }
    for &m in &g.order {
        if let Some(ModuleState::Blocked(by)) = states[m]
            && plan.targets.contains(&m)
        {
            summary
                .blocked
                .push((g.modules[m].name.clone(), g.modules[by].name.clone()));
        }
    }
    summary
        .events
        .extend(declare_current(paths, &plan, &states)?);
    // Keep the export of every repository's current commit: the next build of it reuses it.
    let keep: Vec<PathBuf> = loaded
        .snapshot
        .repos
        .iter()
        .map(|r| crate::source::export::export_dir(&paths.exports(), &r.name, &r.commit))
        .collect();
    if !exports.is_empty() {
        crate::source::export::prune(&paths.exports(), &keep);
    }
    Ok(summary)
}

/// Declares, for every `auto` module that is current by a fit build other than its declared one,
/// that build: the declared build is the current source's. A revert (or a ref moved back) makes
/// a module current by an older build without building anything; without this, the reverted
/// build stayed declared and the revert never reached a node. One write, only when needed.
fn declare_current(
    paths: &Paths,
    plan: &Plan,
    states: &[Option<ModuleState>],
) -> Result<Vec<crate::events::Event>> {
    let g = &plan.loaded.graph;
    let current: Vec<(&str, u64)> = g
        .order
        .iter()
        .filter_map(|&m| match &states[m] {
            Some(ModuleState::Current {
                build,
                verdict: Verdict::Fit,
                ..
            }) if plan.targets.contains(&m)
                && plan.loaded.snapshot.modules[m].manifest.policy
                    == crate::config::Policy::Auto
                // Libraries are built and judged, never declared.
                && plan.loaded.snapshot.modules[m].manifest.kind
                    != crate::config::Kind::Library =>
            {
                Some((g.modules[m].name.as_str(), *build))
            }
            _ => None,
        })
        .collect();
    if current.is_empty() {
        return Ok(Vec::new());
    }
    let store = paths.open()?;
    let stale: Vec<(&str, u64)> = store.read(|r| {
        let declared = crate::declare::compose::declared(r)?;
        Ok(current
            .into_iter()
            .filter(|(m, id)| declared.get(*m).is_none_or(|d| d.id != *id))
            .collect())
    })?;
    if stale.is_empty() {
        return Ok(Vec::new());
    }
    Ok(store.write(|w| {
        let mut facts = Vec::new();
        for (module, id) in &stale {
            let Some(rec) = w.get(BUILDS, &store::id_key(*id))? else {
                continue;
            };
            w.put(DECLARED, module.as_bytes(), &rec)?;
            facts.push(Fact::Declared {
                module: module.to_string(),
                build: *id,
            });
        }
        crate::events::append(w, &facts, now_ms(), plan.events_keep)
    })?)
}

fn names(g: &crate::graph::ModuleGraph, idx: &[usize]) -> String {
    idx.iter()
        .map(|&i| g.modules[i].name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The modules to consider: the named ones and all their build inputs, or every module.
fn targets(loaded: &Loaded, names: &[String]) -> Result<BTreeSet<usize>> {
    let g = &loaded.graph;
    if names.is_empty() {
        return Ok((0..g.modules.len()).collect());
    }
    let mut out = BTreeSet::new();
    let mut stack = Vec::new();
    for n in names {
        let i = g.index(n).ok_or_else(|| {
            Error::failed(
                format!("there is no module `{n}`"),
                format!(
                    "`mesh graph` lists the modules{}",
                    crate::config::known_list("modules", g.modules.iter().map(|m| m.name.as_str()))
                ),
            )
        })?;
        stack.push(i);
    }
    while let Some(i) = stack.pop() {
        if out.insert(i) {
            stack.extend(g.inputs[i].iter().copied());
            // A cycle is built as one unit.
            stack.extend(g.unit[i].iter().copied());
        }
    }
    Ok(out)
}

/// The job for module `m`: its export, and its inputs' artifacts unpacked.
fn prepare(
    paths: &Paths,
    plan: &Plan,
    states: &[Option<ModuleState>],
    exports: &mut HashMap<usize, PathBuf>,
    m: usize,
) -> Result<Job> {
    let loaded = plan.loaded;
    let src = &loaded.snapshot.modules[m];
    let repo = loaded.snapshot.repo_of(src);
    let root = match exports.get(&src.repo) {
        Some(p) => p.clone(),
        None => {
            let p = crate::source::export::export(repo, &paths.exports())?;
            exports.insert(src.repo, p.clone());
            p
        }
    };
    let inputs = stale::input_artifacts(&loaded.graph, states, m).unwrap_or_default();
    let store = ArtifactStore::new(paths.artifacts());
    let mut deps = Vec::new();
    for (name, digest) in inputs {
        let dir = paths.deps().join(&digest);
        if !dir.is_dir() {
            let file = std::fs::File::open(store.path(&digest)).map_err(|e| {
                Error::io(
                    format!("the artifact {digest} of `{name}` is missing from the artifact store"),
                    e,
                    format!("run `mesh build {name}` to build it again"),
                )
            })?;
            if let Err(e) = artifact::unpack(file, &dir)
                && !dir.is_dir()
            {
                return Err(Error::failed(
                    format!("cannot unpack the artifact of `{name}`: {e}"),
                    "check the disk; the artifact store may be damaged",
                ));
            }
        }
        deps.push((name, dir));
    }
    Ok(Job {
        module: src.name().to_string(),
        cwd: if src.dir.is_empty() {
            root
        } else {
            root.join(&src.dir)
        },
        commit: repo.commit.to_string(),
        build: src.manifest.build.clone(),
        test: src.manifest.test.clone(),
        timeout: src.manifest.timeout,
        deps,
    })
}

/// Records a finished build in one write transaction.
fn record(
    paths: &Paths,
    plan: &Plan,
    states: &[Option<ModuleState>],
    m: usize,
    outcome: &Outcome,
    started: u64,
    log: &std::path::Path,
) -> Result<(BuildRecord, Vec<crate::events::Event>)> {
    let loaded = plan.loaded;
    let src = &loaded.snapshot.modules[m];
    let inputs = stale::input_artifacts(&loaded.graph, states, m).unwrap_or_default();
    let sources = stale::source_inputs(&loaded.graph, &plan.inputs, m);
    let closure = stale::closure_key(
        src.name(),
        &src.source_id,
        &plan.inputs[m].recipe,
        &inputs,
        &sources,
    );
    let mut rec = BuildRecord {
        id: 0,
        module: src.name().to_string(),
        repo: loaded.snapshot.repo_of(src).name.clone(),
        commit: loaded.snapshot.repo_of(src).commit.to_string(),
        source: src.source_id.clone(),
        recipe: plan.inputs[m].recipe.clone(),
        inputs,
        sources,
        rule: stale::CLOSURE_RULE,
        closure,
        verdict: outcome.verdict,
        reason: outcome.reason.clone(),
        artifact: outcome.artifact.as_ref().map(|(d, _)| d.to_string()),
        size: outcome.artifact.as_ref().map_or(0, |(_, s)| *s),
        started,
        finished: now_ms(),
        log: log
            .strip_prefix(&paths.dot_mesh)
            .ok()
            .map(|p| p.display().to_string()),
        activate: src.manifest.activate.clone(),
        presence: src.manifest.presence.clone(),
        instantiation: src
            .manifest
            .instantiation
            .iter()
            .map(|i| i.module.clone())
            .collect(),
        policy: src.manifest.policy,
    };
    let store = paths.open()?;
    let rec = store.write(|w| {
        let id = w.get(META, b"next_build")?.unwrap_or(1);
        w.put(META, b"next_build", &(id + 1))?;
        rec.id = id;
        w.put(BUILDS, &store::id_key(id), &rec)?;
        w.put(LATEST, rec.module.as_bytes(), &rec)?;
        let mut facts = vec![Fact::Built {
            module: rec.module.clone(),
            build: id,
            verdict: rec.verdict.to_string(),
        }];
        // Deploy is one write: an auto module's fit build is declared in the same transaction.
        // A library is built against, never declared.
        if rec.verdict == Verdict::Fit
            && rec.policy == crate::config::Policy::Auto
            && src.manifest.kind != crate::config::Kind::Library
        {
            w.put(DECLARED, rec.module.as_bytes(), &rec)?;
            facts.push(Fact::Declared {
                module: rec.module.clone(),
                build: id,
            });
        }
        facts.extend(outstanding_streak(w, &rec)?);
        if rec.verdict.is_verdict() {
            w.put(
                CURRENT,
                rec.closure.as_bytes(),
                &CurrentEntry {
                    id,
                    verdict: rec.verdict,
                    artifact: rec.artifact.clone(),
                },
            )?;
        }
        let events = crate::events::append(w, &facts, rec.finished, plan.events_keep)?;
        Ok((rec, events))
    })?;
    Ok(rec)
}

/// Keeps the streak of builds of one closure that ended outstanding for the same reason, in
/// the build's own transaction; returns `build-stuck` when it reaches three. A build with a
/// verdict ends the streak.
fn outstanding_streak(
    w: &crate::store::Writer,
    rec: &BuildRecord,
) -> std::result::Result<Vec<Fact>, crate::store::StoreError> {
    use crate::deliver::account::STUCK_AFTER;
    use crate::store::{OUTSTANDING, OutstandingStreak, identity_of};
    let key = rec.module.as_bytes();
    if rec.verdict != Verdict::Outstanding {
        w.remove(OUTSTANDING, key)?;
        return Ok(Vec::new());
    }
    let reason = rec.reason.clone().unwrap_or_default();
    let identity = identity_of(&reason);
    let streak = match w.get(OUTSTANDING, key)? {
        Some(mut s) if s.closure == rec.closure && s.identity == identity => {
            s.count += 1;
            s.reason = reason.clone();
            s
        }
        _ => OutstandingStreak {
            closure: rec.closure.clone(),
            identity,
            reason: reason.clone(),
            count: 1,
            since: rec.finished,
        },
    };
    w.put(OUTSTANDING, key, &streak)?;
    Ok(if streak.count == STUCK_AFTER {
        vec![Fact::BuildStuck {
            module: rec.module.clone(),
            reason,
        }]
    } else {
        Vec::new()
    })
}

/// Keeps the newest `keep` logs of a module.
fn prune_logs(dir: &std::path::Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut logs: Vec<(u64, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            let stem = p.file_stem()?.to_str()?.parse::<u64>().ok()?;
            Some((stem, p))
        })
        .collect();
    logs.sort();
    let excess = logs.len().saturating_sub(keep.max(1));
    for (_, p) in logs.into_iter().take(excess) {
        let _ = std::fs::remove_file(p);
    }
}
