//! Module checks: whether what a node runs works, not only whether it activated. A module's
//! `check` runs in the version `current` names, with the environment `activate` gets; exit 0 is
//! healthy. Three uses:
//!
//! - **Settling** ([`settle`]): after `activate`, the check must pass for the module's `settle`
//!   time (polled a few times) before the version counts as applied; a version that fails it is
//!   a failed version, and the node goes back as for a failed `activate`.
//! - **Health in every report** ([`health_of`]): after each apply, and on a `check` request,
//!   every module that runs and has a check is checked (in parallel, each under its timeout),
//!   and its report line carries healthy or not, since when, and the output's tail.
//! - **`check`** ([`check`]): a report of health alone (`checked`), made when the controller
//!   collects or `mesh node report` runs, so that a service that died after a clean activate
//!   is seen on the next pass, not never.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use super::activate;
use super::disk::{RootLock, read_json};
use super::journal::{self, Health, Outcome, Report};
use super::{Layout, NodeError, Root};
use crate::durable::write_atomic;
use mesh_proto::wire::DeclaredModule;

/// How long one run of a check may take when the declaration does not say.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// How many times a check is run while a version settles, besides the first right after
/// `activate`.
const SETTLE_POLLS: u32 = 3;

/// `modules/<name>/health.json`: the last answer of the module's check and since when it has
/// been that answer for that artifact, so "since" survives from report to report.
const HEALTH: &str = "health.json";

/// What `health.json` holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Said {
    artifact: String,
    healthy: bool,
    since: String,
}

/// How long one run of `module`'s check may take.
fn timeout_of(module: &DeclaredModule) -> Duration {
    module
        .check_timeout_ms
        .map_or(CHECK_TIMEOUT, Duration::from_millis)
}

/// Runs `module`'s check once in `version` (an unpacked tree); `Ok` when it has none.
fn check_once(module: &DeclaredModule, version: &Path, root_abs: &Path) -> Result<(), String> {
    match &module.check {
        Some(command) => activate::run(
            "check",
            command,
            version,
            &module.name,
            root_abs,
            timeout_of(module),
        ),
        None => Ok(()),
    }
}

/// After `activate`: the check passes right away and, with a `settle` time, at
/// [`SETTLE_POLLS`] more times spread over it. The first failure is the reason the version
/// did not come up.
pub(super) fn settle(
    module: &DeclaredModule,
    version: &Path,
    root_abs: &Path,
) -> Result<(), String> {
    let failed = |why: String, at: Duration| {
        if at.is_zero() {
            format!("the check failed right after activate: {why}")
        } else {
            format!(
                "the check failed {} after activate, while settling: {why}",
                humantime::format_duration(Duration::from_secs(at.as_secs()))
            )
        }
    };
    let start = Instant::now();
    check_once(module, version, root_abs).map_err(|why| failed(why, Duration::ZERO))?;
    let Some(settle) = module.settle_ms.map(Duration::from_millis) else {
        return Ok(());
    };
    let every = settle / SETTLE_POLLS;
    for k in 1..=SETTLE_POLLS {
        let due = every * k;
        if let Some(wait) = due.checked_sub(start.elapsed()) {
            std::thread::sleep(wait);
        }
        check_once(module, version, root_abs).map_err(|why| failed(why, start.elapsed()))?;
    }
    Ok(())
}

/// Names the build (id, commit) a module's artifact came from.
pub(super) type BuildOf<'a> = dyn Fn(&str, &str) -> Option<(String, String)> + Sync + 'a;

/// The health of each module of `modules` that runs (its `current` names an unpacked version)
/// and has a check, by name: the checks run in parallel, each under its own timeout, so the
/// whole is bounded by the longest. `build_of(name, artifact)` names the build an artifact
/// came from, with its commit (the declared one, or the version gone back to).
pub(super) fn health_of(
    layout: &Layout,
    root_abs: &Path,
    modules: &[&DeclaredModule],
    build_of: &BuildOf,
) -> BTreeMap<String, Health> {
    let running: Vec<(&DeclaredModule, String)> = modules
        .iter()
        .filter(|m| m.check.is_some())
        .filter_map(|m| {
            let dir = layout.modules().join(&m.name);
            let target = fs::read_link(dir.join("current")).ok()?;
            let artifact = target.to_str()?.to_string();
            dir.join(&artifact).is_dir().then_some((*m, artifact))
        })
        .collect();
    let answers: Vec<(String, String, Result<(), String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = running
            .iter()
            .map(|(m, artifact)| {
                let version = layout.modules().join(&m.name).join(artifact);
                s.spawn(move || check_once(m, &version, root_abs))
            })
            .collect();
        running
            .iter()
            .zip(handles)
            .map(|((m, artifact), h)| {
                let answer = h
                    .join()
                    .unwrap_or_else(|_| Err("the check could not be run".into()));
                (m.name.clone(), artifact.clone(), answer)
            })
            .collect()
    });
    answers
        .into_iter()
        .map(|(name, artifact, answer)| {
            let healthy = answer.is_ok();
            let since = since(layout, &name, &artifact, healthy);
            let (build, commit) =
                build_of(&name, &artifact).unwrap_or_else(|| ("unknown".into(), "unknown".into()));
            let health = Health {
                healthy,
                since,
                build,
                commit,
                output: answer.err(),
            };
            (name, health)
        })
        .collect()
}

/// Since when `name`'s check has given this answer for `artifact`: as `health.json` says when
/// it says the same, else now (and recorded). A record that cannot be written costs only a
/// "since" that restarts.
fn since(layout: &Layout, name: &str, artifact: &str, healthy: bool) -> String {
    let path = layout.modules().join(name).join(HEALTH);
    if let Ok(Some(said)) = read_json::<Said>(&path)
        && said.artifact == artifact
        && said.healthy == healthy
    {
        return said.since;
    }
    let now = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let said = Said {
        artifact: artifact.to_string(),
        healthy,
        since: now.clone(),
    };
    if let Ok(bytes) = serde_json::to_vec(&said) {
        let _ = write_atomic(&path, &bytes);
    }
    now
}

/// `check`: runs every module's check on what the node runs and appends a `checked` report:
/// the last apply's resources (about the declaration last applied), each with its health now.
/// `None` when no module declared has a check, or nothing was applied yet: there is nothing to
/// say that the last report did not.
pub fn check(root: &Root) -> Result<Option<Report>, NodeError> {
    let layout = Layout::new(root);
    if !layout.declaration().exists() {
        return Ok(None);
    }
    let _lock = RootLock::acquire(root, &layout.lock())?;
    let Some(envelope) = layout.read_declaration()? else {
        return Ok(None);
    };
    let declared: Vec<&DeclaredModule> = envelope.declaration.modules.iter().collect();
    if declared.iter().all(|m| m.check.is_none()) {
        return Ok(None);
    }
    let Some(applied) = layout.applied()? else {
        return Ok(None);
    };
    if applied.digest != envelope.digest {
        // Received and not applied yet: the apply to come reports, with health.
        return Ok(None);
    }
    let Some(last) = journal::newest(root, |r| {
        r.declaration.as_ref() == Some(&applied)
            && matches!(
                r.outcome,
                Outcome::Applied | Outcome::Failed | Outcome::Checked
            )
    })?
    else {
        return Ok(None);
    };
    let root_abs = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let build_of =
        |name: &str, artifact: &str| super::apply::build_of(&layout, &declared, name, artifact);
    let health = health_of(&layout, &root_abs, &declared, &build_of);
    let resources = with_health(last.resources, &health);
    let report = Report::new(Some(applied), Outcome::Checked, last.reason, resources);
    journal::append(root, report).map(Some)
}

/// `resources` with each module's health set from `health` (and cleared where it has none).
pub(super) fn with_health(
    mut resources: Vec<journal::ResourceReport>,
    health: &BTreeMap<String, Health>,
) -> Vec<journal::ResourceReport> {
    for r in &mut resources {
        r.health =
            r.id.strip_prefix("module:")
                .and_then(|name| health.get(name))
                .cloned();
    }
    resources
}
