//! A build when `[remote]` is set: the engine's cache asked first (a hit is the build, fit,
//! its artifact packed here byte for byte), then the build run on the engine (`execute`) or
//! here; a fit build made here or there written back to the cache when `upload` is set. The
//! engine away is never the build's failure: the build runs here.

use super::Verdict;
use super::prepare::unpacked_input;
use super::run::{self, Dirs, Job, Live, Outcome};
use super::summary::RemoteUse;
use crate::remote::action::{BUILD_FAILED, ModuleAction, TEST_FAILED};
use crate::remote::share::{Executed, Miss, Shared, Taken};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// Builds `job` through the engine `shared` as its `action` (or why there is none) allows;
/// how it ended, what the engine had to do with it, and — for a fit build made here — the
/// action to write to the cache once its verdict stands (after the check of its export,
/// [`upload`]).
pub(super) fn build(
    job: &Job,
    action: Result<ModuleAction, String>,
    shared: &Shared,
    dirs: &Dirs,
    log: &Path,
    live: &Arc<Live>,
) -> (Outcome, RemoteUse, Option<ModuleAction>) {
    let (outcome, mut used) = through(job, action.as_ref(), shared, dirs, log, live);
    used.action = action
        .as_ref()
        .ok()
        .map(|a| format!("{}/{}", a.digest.hash, a.digest.size_bytes));
    let later = (used.ran == "local" && outcome.verdict == Verdict::Fit)
        .then(|| action.ok())
        .flatten();
    (outcome, used, later)
}

/// [`build`], but for naming the action and handing it on.
fn through(
    job: &Job,
    action: Result<&ModuleAction, &String>,
    shared: &Shared,
    dirs: &Dirs,
    log: &Path,
    live: &Arc<Live>,
) -> (Outcome, RemoteUse) {
    let action = match action {
        Ok(a) => a,
        Err(why) => {
            let miss = Miss::Untrusted(format!("no action could be made: {why}"));
            return here(job, miss, dirs, log, live);
        }
    };
    let miss = match shared.lookup(&job.module, action, &dirs.artifacts, &dirs.tmp) {
        Ok(taken) => return from_cache(action, taken, log),
        Err(miss) => miss,
    };
    if shared.executes() {
        match shared.execute(action, &dirs.artifacts, &dirs.tmp) {
            Executed::Ran {
                exit_code,
                taken,
                log: text,
            } => {
                return executed(
                    job, action, exit_code, taken, &text, miss, shared, dirs, log,
                );
            }
            Executed::NotRun(why) => {
                let outcome = run::outstanding(
                    None,
                    format!("the engine could not run the build: {why}"),
                    Vec::new(),
                );
                // Not built anywhere: said so, never counted as built on the engine.
                return (outcome, RemoteUse::new(miss, "none"));
            }
            Executed::Away => {}
        }
    }
    here(job, miss, dirs, log, live)
}

/// A cache hit: fit, its artifact packed here, its log the original build's.
fn from_cache(action: &ModuleAction, taken: Taken, log: &Path) -> (Outcome, RemoteUse) {
    let signer = taken.signer.as_ref().map(|s| s.describe());
    let head = format!(
        "mesh: taken from the remote cache: action {}, signed by {}\n",
        action.digest.hash,
        signer.as_deref().unwrap_or("?")
    );
    write_log(log, &head, &taken.log);
    let outcome = Outcome {
        verdict: Verdict::Fit,
        reason: None,
        step: None,
        artifact: Some(taken.artifact),
        tail: Vec::new(),
        escaped: false,
    };
    let mut used = RemoteUse::hit();
    used.signer = signer;
    (outcome, used)
}

/// A build the engine ran: judged by how its command exited, as a local build would be.
#[allow(clippy::too_many_arguments)]
fn executed(
    job: &Job,
    action: &ModuleAction,
    exit_code: i32,
    taken: Option<Taken>,
    text: &[u8],
    miss: Miss,
    shared: &Shared,
    dirs: &Dirs,
    log: &Path,
) -> (Outcome, RemoteUse) {
    write_log(
        log,
        &format!("mesh: run on the engine: action {}\n", action.digest.hash),
        text,
    );
    let tail = tail_of(text);
    let artifact = taken.map(|t| t.artifact);
    let judged = |verdict, step, why: String, artifact| Outcome {
        verdict,
        reason: Some(why),
        step: Some(step),
        artifact,
        tail: tail.clone(),
        escaped: false,
    };
    let outcome = match (exit_code, artifact) {
        (0, Some(a)) => Outcome {
            verdict: Verdict::Fit,
            reason: None,
            step: None,
            artifact: Some(a),
            tail: tail.clone(),
            escaped: false,
        },
        (0, None) => run::outstanding(
            None,
            "the engine's build ended but its outputs could not be taken".into(),
            tail.clone(),
        ),
        (BUILD_FAILED, _) => judged(
            Verdict::Broken,
            "build",
            "build failed on the engine".into(),
            None,
        ),
        (TEST_FAILED, a @ Some(_)) => judged(
            Verdict::Unfit,
            "test",
            "test failed on the engine".into(),
            a,
        ),
        (75, _) => run::outstanding(
            None,
            "the build exited 75 (EX_TEMPFAIL) on the engine: try again later".into(),
            tail.clone(),
        ),
        (code, _) => run::outstanding(
            None,
            format!("the engine's build ended with {code}, not a verdict"),
            tail.clone(),
        ),
    };
    let mut used = RemoteUse::new(miss, "remote");
    used.uploaded = outcome.verdict == Verdict::Fit
        && upload(
            &job.module,
            action,
            &outcome,
            shared,
            &dirs.deps,
            &dirs.artifacts,
            log,
        );
    (outcome, used)
}

/// The build run here, as without `[remote]`, once `-j` allows.
fn here(job: &Job, miss: Miss, dirs: &Dirs, log: &Path, live: &Arc<Live>) -> (Outcome, RemoteUse) {
    let outcome = {
        let _slot = dirs.here.take();
        run::run(job, dirs, log, live)
    };
    // Written to the cache by the run once the check of its export has judged it too.
    (outcome, RemoteUse::new(miss, "local"))
}

/// Writes a fit build of `module` (its artifact, unpacked under `deps`) to the cache, signed;
/// whether it was written.
pub(super) fn upload(
    module: &str,
    action: &ModuleAction,
    outcome: &Outcome,
    shared: &Shared,
    deps: &Path,
    artifacts: &mesh_node::artifact::ArtifactStore,
    log: &Path,
) -> bool {
    let Some(artifact) = &outcome.artifact else {
        return false;
    };
    let digest = artifact.0.to_string();
    match unpacked_input(deps, artifacts, module, &digest) {
        Ok(dir) => shared.upload(action, artifact, &dir, log),
        Err(_) => false,
    }
}

/// The log of a build the engine made: a first line saying so, then its output.
fn write_log(log: &Path, head: &str, text: &[u8]) {
    if let Some(d) = log.parent() {
        let _ = std::fs::create_dir_all(d);
    }
    if let Ok(mut f) = std::fs::File::create(log) {
        let keep = &text[..text.len().min(run::LOG_CAP as usize)];
        let _ = f.write_all(head.as_bytes());
        let _ = f.write_all(keep);
    }
}

/// The last lines of a log, for the summary of a failed build.
fn tail_of(text: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(text);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(run::TAIL_LINES)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}
