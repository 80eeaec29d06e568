//! Recording builds: each finished build in one write transaction — its record, its closure's
//! verdict, the outstanding streak, and its declaration when it is an auto module's fit build —
//! and, at the end of a run, the declarations that the current source's builds call for.

use super::Verdict;
use super::plan::Plan;
use super::summary::Ended;
use crate::Result;
use crate::clock::now_ms;
use crate::config::{Kind, ModuleManifest, Policy};
use crate::events::{Event, Fact};
use crate::graph::stale::{self, ModuleState};
use crate::store::{
    self, BUILDS, BuildRecord, CURRENT, CurrentEntry, DECLARED, LATEST, META, Paths, StoreError,
    Writer,
};
use std::path::{Path, PathBuf};

/// Records a finished build in one write transaction.
pub(super) fn record(
    paths: &Paths,
    plan: &Plan,
    states: &[Option<ModuleState>],
    ended: &Ended,
) -> Result<(BuildRecord, Vec<Event>)> {
    let rec = build_record(paths, plan, states, ended);
    let declare = declared_when_fit(&plan.loaded.snapshot.modules[ended.m].manifest);
    let store = paths.open()?;
    Ok(store.write(|w| {
        let (rec, events) = write_build(w, rec, declare, plan.events_keep)?;
        if let Some(used) = &ended.remote {
            let kept = crate::remote::RemoteBuild {
                action: used.action.clone().unwrap_or_default(),
                ran: used.ran.to_string(),
                signer: used.signer.clone(),
                uploaded: used.uploaded,
            };
            w.put(crate::remote::BUILT, &store::id_key(rec.id), &kept)?;
        }
        Ok((rec, events))
    })?)
}

/// Whether a fit build of a module with this manifest is declared without `mesh declare`: an
/// auto module's is; a library is built against, never declared.
fn declared_when_fit(manifest: &ModuleManifest) -> bool {
    manifest.policy == Policy::Auto && manifest.kind != Kind::Library
}

/// The record of a finished build: what it was built from (source, recipe, inputs'
/// artifacts, closure key), how it ended, and what a node needs to run it. Its id is given
/// when it is written.
fn build_record(
    paths: &Paths,
    plan: &Plan,
    states: &[Option<ModuleState>],
    ended: &Ended,
) -> BuildRecord {
    let (m, outcome) = (ended.m, &ended.outcome);
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
    BuildRecord {
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
        started: ended.started,
        finished: now_ms(),
        log: ended
            .log
            .strip_prefix(&paths.dot_mesh)
            .ok()
            .map(|p| p.display().to_string()),
        activate: src.manifest.activate.clone(),
        presence: src.manifest.presence.clone(),
        instantiation: src.manifest.instantiation.clone(),
        policy: src.manifest.policy,
        check: src.manifest.check.as_ref().map(|command| store::Check {
            command: command.clone(),
            timeout_ms: src.manifest.check_timeout.map(|d| d.as_millis() as u64),
            settle_ms: src.manifest.settle.map(|d| d.as_millis() as u64),
        }),
        rollout: src.manifest.rollout.clone(),
        provide: src.manifest.provide.clone(),
    }
}

/// Writes `rec` under the next build id, as its module's latest build and (when it has a
/// verdict) as its closure's; declares it when `declare_fit` and it is fit. Returns the
/// record with its id and the facts appended.
fn write_build(
    w: &Writer,
    mut rec: BuildRecord,
    declare_fit: bool,
    events_keep: u64,
) -> std::result::Result<(BuildRecord, Vec<Event>), StoreError> {
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
    // Deploy is one write: an auto module's fit build is declared in the same transaction —
    // unless a rollout halted its commit (`mesh rollout retry` declares it again).
    let halted = w
        .get(crate::rollout::HALTED, rec.module.as_bytes())?
        .is_some_and(|h| crate::rollout::is_halted(&h, &rec));
    if rec.verdict == Verdict::Fit && declare_fit && !halted {
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
    let events = crate::events::append(w, &facts, rec.finished, events_keep)?;
    Ok((rec, events))
}

/// Keeps the streak of builds of one closure that ended outstanding for the same reason, in
/// the build's own transaction; returns `build-stuck` when it reaches three. A build with a
/// verdict ends the streak.
fn outstanding_streak(w: &Writer, rec: &BuildRecord) -> std::result::Result<Vec<Fact>, StoreError> {
    use crate::store::STUCK_AFTER;
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

/// Declares, for every `auto` module that is current by a fit build other than its declared one,
/// that build: the declared build is the current source's. A revert (or a ref moved back) makes
/// a module current by an older build without building anything; without this, the reverted
/// build stayed declared and the revert never reached a node. One write, only when needed.
/// A build a rollout halted is not declared again (`mesh rollout retry` does that).
pub(super) fn declare_current(
    paths: &Paths,
    plan: &Plan,
    states: &[Option<ModuleState>],
) -> Result<Vec<Event>> {
    let current = current_fit_builds(plan, states);
    if current.is_empty() {
        return Ok(Vec::new());
    }
    let store = paths.open()?;
    let stale: Vec<(&str, u64)> = store.read(|r| {
        let declared = crate::store::declared_builds(r)?;
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
            let halted = w
                .get(crate::rollout::HALTED, module.as_bytes())?
                .is_some_and(|h| crate::rollout::is_halted(&h, &rec));
            if halted {
                continue;
            }
            w.put(DECLARED, module.as_bytes(), &rec)?;
            facts.push(Fact::Declared {
                module: module.to_string(),
                build: *id,
            });
        }
        crate::events::append(w, &facts, now_ms(), plan.events_keep)
    })?)
}

/// (module, build) of every target, in graph order, that is current by a fit build and whose
/// fit builds are declared without `mesh declare`.
fn current_fit_builds<'p>(plan: &'p Plan, states: &[Option<ModuleState>]) -> Vec<(&'p str, u64)> {
    let g = &plan.loaded.graph;
    g.order
        .iter()
        .filter_map(|&m| match &states[m] {
            Some(ModuleState::Current {
                build,
                verdict: Verdict::Fit,
                ..
            }) if plan.targets.contains(&m)
                && declared_when_fit(&plan.loaded.snapshot.modules[m].manifest) =>
            {
                Some((g.modules[m].name.as_str(), *build))
            }
            _ => None,
        })
        .collect()
}

/// Keeps the newest `keep` logs of a module.
pub(super) fn prune_logs(dir: &Path, keep: usize) {
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
