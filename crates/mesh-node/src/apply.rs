//! `mesh node apply`: makes the node run what `declaration.json` says, reads it back, and
//! appends a report. Run after every receive and on the node's own timer; running it again
//! converges (nothing is unpacked twice; a module that is unchanged since it activated is not
//! activated again). A new version that fails goes back to the last one that activated.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::kept::{Kept, Version, ensure_unpacked, read_marker, write_marker};
use super::{activate, health, secrets};
use serde::{Deserialize, Serialize};

use super::disk::{RootLock, list_dir};
use super::journal::{self, Outcome, Report, ResourceOutcome, ResourceReport, RolledBack};
use super::{Held, Layout, NodeError, Root};
use crate::artifact::is_digest;
use crate::durable::{sync_dir, write_atomic};
use mesh_proto::names::is_valid_name;
use mesh_proto::wire::DeclaredModule;

/// How long `activate` may run before it is killed and the module reported failed.
pub const ACTIVATE_TIMEOUT: Duration = Duration::from_secs(60);

/// How many unpacked versions of a module are kept besides the one `current` names.
pub const KEEP_VERSIONS: usize = 3;

/// The name of the link to the version in use, in `modules/<name>/`.
const CURRENT: &str = "current";
/// A version that failed and was gone back from, in `modules/<name>/` (see [`Failed`]).
const FAILED: &str = "failed.json";
/// The prefix of the temp link that is renamed over `current`.
const CURRENT_TMP: &str = ".current.tmp-";

/// How `apply` runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyOptions {
    /// How long `activate` may run ([`ACTIVATE_TIMEOUT`] by default).
    pub activate_timeout: Duration,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        ApplyOptions {
            activate_timeout: ACTIVATE_TIMEOUT,
        }
    }
}

/// [`apply_with`] the default options.
pub fn apply(root: &Root) -> Result<Report, NodeError> {
    apply_with(root, &ApplyOptions::default())
}

/// Makes the node at `root` run the declaration in force, reads it back, appends the report to
/// the journal and returns it.
///
/// For each declared module, by name: unpack `artifacts/<digest>` into
/// `modules/<name>/<digest>/` unless already there (an artifact the unpacker refuses fails
/// that module, and nothing is written outside it); switch `modules/<name>/current` to it
/// atomically (a temp link renamed over it); run `activate` if set (see below); then read back:
/// the link names the declared digest and `activate` exited 0 → `ok`, else `failed` with the
/// reason. A module whose declared version is the one that last activated is not touched
/// (its `activate` does not run again). A new version that fails after the switch goes back
/// to the last version that activated (`rolled_back` in its report): only that module moves;
/// with nothing to go back to the report says so; when going back fails too, it says DOWN.
/// Modules with a `current` link that are no longer declared are switched off (the link
/// removed) and reported `removed`. Besides the version in use, the [`KEEP_VERSIONS`] most
/// recently used versions of each module are kept.
///
/// `activate` runs with `sh -c` in the unpacked directory, with `MESH_MODULE` (the name) and
/// `MESH_NODE_ROOT` (the absolute root) set, for at most `options.activate_timeout`; the last
/// lines of its output go into a failure's reason.
///
/// `state.json` records the declaration's sequence and digest **whether or not every module
/// came up**: once a declaration has been attempted the sequence floor must rise, or an older
/// declaration could be sent back over it; whether it worked is the report's to say.
///
/// Errors (no report): [`NodeError::NothingDeclared`] when no declaration was ever received,
/// and the node's own trouble (an unwritable root, a damaged `declaration.json`).
pub fn apply_with(root: &Root, options: &ApplyOptions) -> Result<Report, NodeError> {
    let layout = Layout::new(root);
    let nothing = || NodeError::NothingDeclared {
        path: layout.declaration(),
    };
    // Checked before the lock too, so that applying a root never set up creates nothing.
    if !layout.declaration().exists() {
        return Err(nothing());
    }
    let _lock = RootLock::acquire(root, &layout.lock())?;
    let envelope = layout.read_declaration()?.ok_or_else(nothing)?;
    if !envelope.digest_matches() {
        return Err(NodeError::Corrupt {
            path: layout.declaration(),
            reason: "its digest does not match its content".into(),
        });
    }
    let root_abs = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    let modules_dir = layout.modules();
    fs::create_dir_all(&modules_dir).map_err(NodeError::io("create", &modules_dir))?;

    let mut declared: Vec<&DeclaredModule> = envelope.declaration.modules.iter().collect();
    declared.sort_by(|a, b| a.name.cmp(&b.name));
    let kept = Kept::new(&layout);
    // Read once, with the secrets' values: a root whose sealed values cannot be read fails
    // only the modules that have secrets.
    let held = secrets::Sealed::read(&layout);
    let mut goods = Vec::new();
    let resources: Vec<ResourceReport> = declared
        .iter()
        .map(|m| {
            let (report, good) = apply_module(&layout, (&kept, &held), &root_abs, m, options);
            goods.extend(good.map(|g| (m.name.clone(), g)));
            report
        })
        .collect();
    // What going back needs, written again once every activate has run: an activate that
    // removed a record (its own module's, or another's) changes nothing for the next failure.
    for (name, good) in &goods {
        let _ = kept.keep(&layout, name, good);
    }
    // What runs now, checked: every report says whether it works, not only that it activated.
    let build_of = |name: &str, artifact: &str| build_of(&layout, &declared, name, artifact);
    let health = health::health_of(&layout, &root_abs, &declared, &build_of);
    let mut resources = health::with_health(resources, &health);
    let names: BTreeSet<&str> = declared.iter().map(|m| m.name.as_str()).collect();
    // An `activate` may have damaged the root (removed it, even): the apply still ends with its
    // report, which says so, never with nothing the controller could read.
    match switch_off_undeclared(&modules_dir, &names) {
        Ok(off) => resources.extend(off),
        Err(e) => resources.push(ResourceReport {
            id: "root".into(),
            outcome: ResourceOutcome::Failed,
            reason: Some(format!(
                "the node's root was damaged during the apply (by an activate?): {e}"
            )),
            rolled_back: None,
            health: None,
            secrets: Default::default(),
        }),
    }
    prune_all(&modules_dir, &kept);
    prune_artifacts(&layout, &kept, &envelope.declaration.modules);
    kept.prune();
    settle_secrets(
        &layout,
        held.unwrap_or_default(),
        &declared,
        (&goods, &mut resources),
    );

    let held = Held {
        digest: envelope.digest.clone(),
        sequence: envelope.sequence,
    };
    let state = serde_json::to_vec(&held).map_err(|e| NodeError::Corrupt {
        path: layout.state(),
        reason: format!("the state could not be encoded: {e}"),
    })?;
    write_atomic(&layout.state(), &state)?;

    let (outcome, reason) = outcome_of(&resources);
    journal::append(root, Report::new(Some(held), outcome, reason, resources))
}

/// The secrets' values as the apply read them (or why they could not be read).
type Values = Result<secrets::Sealed, NodeError>;

/// Writes the secrets `named` of the version of `module` that is to run.
fn write_secrets(
    layout: &Layout,
    held: &Values,
    module: &str,
    named: &secrets::Named,
) -> Result<(), String> {
    match held {
        Ok(held) => secrets::write_module(layout, held, module, named),
        Err(e) if !named.is_empty() => Err(format!("its secrets cannot be read: {e}")),
        Err(_) => secrets::write_module(layout, &secrets::Sealed::default(), module, named),
    }
}

/// Secrets after an apply: each module's report names the secrets of the version it ends on
/// (the read-back), modules no longer declared have none, and sealed values that neither the
/// declaration nor a version to go back to names are removed.
fn settle_secrets(
    layout: &Layout,
    held: secrets::Sealed,
    declared: &[&DeclaredModule],
    (goods, resources): (&[(String, Version)], &mut [ResourceReport]),
) {
    for r in resources.iter_mut() {
        let name = r.id.trim_start_matches("module:");
        if let Some((_, g)) = goods.iter().find(|(n, _)| n == name) {
            r.secrets = g.secrets.clone();
        }
    }
    let names: BTreeSet<&str> = declared.iter().map(|m| m.name.as_str()).collect();
    secrets::remove_undeclared(&layout.root, &names);
    let kept = Kept::new(layout);
    let goods_kept: Vec<Version> = names
        .iter()
        .filter_map(|n| kept.good(&layout.modules().join(n), n))
        .collect();
    let keep: BTreeSet<&str> = declared
        .iter()
        .flat_map(|m| m.secrets.iter().map(|s| s.digest.as_str()))
        .chain(
            goods
                .iter()
                .flat_map(|(_, g)| g.secrets.values().map(String::as_str)),
        )
        .chain(
            goods_kept
                .iter()
                .flat_map(|g| g.secrets.values().map(String::as_str)),
        )
        .collect();
    secrets::prune(layout, held, &keep);
}

/// The build (id, commit) `artifact` of module `name` came from: the declared one, or the last
/// version that activated (what a failure went back to).
pub(super) fn build_of(
    layout: &Layout,
    declared: &[&DeclaredModule],
    name: &str,
    artifact: &str,
) -> Option<(String, String)> {
    declared
        .iter()
        .find(|m| m.name == name && m.artifact == artifact)
        .map(|m| (m.build.clone(), m.commit.clone()))
        .or_else(|| {
            Kept::new(layout)
                .good(&layout.modules().join(name), name)
                .filter(|g| g.artifact == artifact)
                .map(|g| (g.build, g.commit))
        })
}

/// The apply's outcome from its resources' and, when any failed, the sentence that names
/// them and says which rolled back and which are down.
fn outcome_of(resources: &[ResourceReport]) -> (Outcome, Option<String>) {
    let failed: Vec<&str> = resources
        .iter()
        .filter(|r| r.outcome == ResourceOutcome::Failed)
        .map(|r| r.id.as_str())
        .collect();
    if failed.is_empty() {
        return (Outcome::Applied, None);
    }
    let mut reason = format!(
        "{} of {} resources failed: {}",
        failed.len(),
        resources.len(),
        failed.join(", ")
    );
    for r in resources {
        if let Some(back) = &r.rolled_back {
            reason.push_str(&match back.down {
                true => format!("; {} is DOWN (going back failed too)", r.id),
                false => format!("; {} rolled back to {}", r.id, back.to_version()),
            });
        }
    }
    (Outcome::Failed, Some(reason))
}

/// `modules/<name>/failed.json`: a version that failed and was gone back from, with what was
/// reported, so that later applies of the same declaration report it again rather than run
/// the failing `activate` (and restart the version gone back to) on every pass.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Failed {
    version: Version,
    report: ResourceReport,
}

/// Brings one module to its declared version, or back to the last one that activated; with
/// the report, the version it ends on that activated (what the next failure goes back to).
///
/// - Unchanged (the version declared is the one that last activated, and `current` names it):
///   nothing runs; the link is read back.
/// - Declared again after it failed and the node went back: reported as before, not tried.
/// - Otherwise: unpacked, switched to, activated and read back ([`bring_up`]); a version that
///   comes up becomes the module's good one; one that fails after the switch goes back
///   ([`go_back`]).
fn apply_module(
    layout: &Layout,
    (kept, held): (&Kept, &Values),
    root_abs: &Path,
    module: &DeclaredModule,
    options: &ApplyOptions,
) -> (ResourceReport, Option<Version>) {
    let id = format!("module:{}", module.name);
    let failed = |reason: String| ResourceReport {
        id: id.clone(),
        outcome: ResourceOutcome::Failed,
        reason: Some(reason),
        rolled_back: None,
        health: None,
        secrets: Default::default(),
    };
    let (name, digest) = (module.name.as_str(), module.artifact.as_str());
    // Checked on receive; checked again before either becomes a path.
    if !is_valid_name(name) {
        return (failed(format!("invalid module name {name:?}")), None);
    }
    if !is_digest(digest) {
        return (failed(format!("invalid artifact digest {digest:?}")), None);
    }
    let module_dir = layout.modules().join(name);
    let want = Version::of(module);
    // Read before any activate of this apply runs: what an activate removes is not forgotten.
    let good = kept.good(&module_dir, name);
    let runs_good = good.as_ref().filter(|g| {
        module_dir.join(&g.artifact).is_dir()
            && fs::read_link(module_dir.join(CURRENT)).is_ok_and(|t| t == Path::new(&g.artifact))
    });
    if let Some(g) = runs_good
        && let Some((report, unchanged)) = as_before(&module_dir, digest, g, &want, &id)
    {
        if unchanged && let Err(why) = write_secrets(layout, held, name, &g.secrets) {
            return (failed(why), good);
        }
        return (report, if unchanged { Some(g.clone()) } else { good });
    }
    let before = fs::read_link(module_dir.join(CURRENT)).ok();
    match bring_up(layout, (kept, held), root_abs, module, options) {
        Ok(()) => {
            // Housekeeping as much as a record: failing to write it costs one more activate.
            let _ = kept.keep(layout, name, &want);
            let _ = fs::remove_file(module_dir.join(FAILED));
            let ok = ResourceReport {
                id,
                outcome: ResourceOutcome::Ok,
                reason: None,
                rolled_back: None,
                health: None,
                secrets: Default::default(),
            };
            (ok, Some(want))
        }
        Err(Down { reason, switched }) => {
            let back = good.clone().filter(|g| switched && !g.runs_as(&want));
            match back {
                Some(g) => {
                    let report = go_back(
                        (layout, (kept, held), root_abs),
                        (&module_dir, id),
                        (&want, &g),
                        reason,
                        options,
                    );
                    (report, good)
                }
                None if switched => {
                    let nothing = nothing_to_go_back_to(kept, module, good.is_some(), &before);
                    if good.is_none() {
                        // No version of it ever worked here: `current` names nothing, rather
                        // than a version that failed.
                        let _ = switch_off(&module_dir);
                    }
                    (
                        failed(format!("{reason}\nnothing to go back to: {nothing}")),
                        good,
                    )
                }
                None => {
                    // Not switched: what runs is the good version, with its own secrets (the
                    // new ones may have been written before the failure).
                    let restored = good
                        .as_ref()
                        .map(|g| write_secrets(layout, held, name, &g.secrets));
                    match restored {
                        Some(Err(again)) => (
                            failed(format!(
                                "{reason}\nand its secrets could not be put back: {again}"
                            )),
                            good,
                        ),
                        _ => (failed(reason), good),
                    }
                }
            }
        }
    }
}

/// What a module whose good version runs reports without being tried: unchanged (never
/// activated again, marked as used for pruning), or declared again after it failed and the
/// node went back (the failure as before); whether it is unchanged. None: it is to be
/// brought up.
fn as_before(
    module_dir: &Path,
    digest: &str,
    good: &Version,
    want: &Version,
    id: &str,
) -> Option<(ResourceReport, bool)> {
    if good.runs_as(want) {
        touch(&module_dir.join(digest));
        let _ = fs::remove_file(module_dir.join(FAILED));
        let ok = ResourceReport {
            id: id.to_string(),
            outcome: ResourceOutcome::Ok,
            reason: None,
            rolled_back: None,
            health: None,
            secrets: Default::default(),
        };
        return Some((ok, true));
    }
    let f = read_marker::<Failed>(&module_dir.join(FAILED)).filter(|f| f.version.runs_as(want))?;
    let mut again = f.report;
    again.id = id.to_string();
    again.reason = again.reason.map(|r| format!("not tried again: {r}"));
    Some((again, false))
}

/// Why a module that failed after the switch has nothing to go back to.
fn nothing_to_go_back_to(
    kept: &Kept,
    module: &DeclaredModule,
    had_good: bool,
    before: &Option<std::path::PathBuf>,
) -> String {
    let (name, digest) = (module.name.as_str(), module.artifact.as_str());
    match (had_good, before) {
        (true, _) => format!("the last version of {name} that activated is this one"),
        (false, Some(before)) if before != Path::new(digest) => format!(
            "{name} was switched to {} before, but no record says it ever activated ({} is missing)",
            before.display(),
            kept.record(name).display()
        ),
        _ => format!("no earlier version of {name} activated on this node"),
    }
}

/// Switches the module back to `good` (the last version that activated) after `want` failed
/// with `reason`, and runs good's `activate` again. The report says both; when going back
/// fails too, the module is down and the report says so first.
/// Before it switches, good's unpacked tree is checked against its digest, and unpacked
/// again from the kept artifact when it is not what was unpacked (or is gone).
fn go_back(
    (layout, (kept, held), root_abs): (&Layout, (&Kept, &Values), &Path),
    (module_dir, id): (&Path, String),
    (want, good): (&Version, &Version),
    reason: String,
    options: &ApplyOptions,
) -> ResourceReport {
    let name = id.trim_start_matches("module:").to_string();
    let back = ensure_unpacked(
        layout,
        kept,
        &good.artifact,
        &module_dir.join(&good.artifact),
    )
    .and_then(|()| write_secrets(layout, held, &name, &good.secrets))
    .and_then(|()| {
        switch_current(module_dir, &good.artifact)
            .map_err(|e| format!("could not switch {CURRENT} back to {}: {e}", good.artifact))
    })
    .and_then(|()| match &good.activate {
        Some(command) => activate::run(
            "activate",
            command,
            &module_dir.join(&good.artifact),
            &name,
            root_abs,
            options.activate_timeout,
        ),
        None => Ok(()),
    });
    let rolled_back = RolledBack {
        failed_build: want.build.clone(),
        failed_commit: want.commit.clone(),
        to_build: good.build.clone(),
        to_commit: good.commit.clone(),
        down: back.is_err(),
    };
    let report = ResourceReport {
        id,
        outcome: ResourceOutcome::Failed,
        reason: Some(match &back {
            Ok(()) => format!(
                "{} failed; rolled back to {}, which runs again: {reason}",
                want.words(),
                good.words()
            ),
            Err(again) => format!(
                "DOWN: {} failed, and going back to {} failed too: {again}\n{} failed: {reason}",
                want.words(),
                good.words(),
                want.words()
            ),
        }),
        rolled_back: Some(rolled_back),
        health: None,
        secrets: Default::default(),
    };
    if back.is_ok() {
        let _ = write_marker(
            &module_dir.join(FAILED),
            &Failed {
                version: want.clone(),
                report: report.clone(),
            },
        );
    }
    report
}

/// Why a module did not come up, and whether `current` had been switched to the new version
/// by then (only then is there anything to go back from).
struct Down {
    reason: String,
    switched: bool,
}

/// Unpacks, switches, activates and reads back the declared version of one module.
fn bring_up(
    layout: &Layout,
    (kept, held): (&Kept, &Values),
    root_abs: &Path,
    module: &DeclaredModule,
    options: &ApplyOptions,
) -> Result<(), Down> {
    let (name, digest) = (module.name.as_str(), module.artifact.as_str());
    let before = |reason: String| Down {
        reason,
        switched: false,
    };
    let module_dir = layout.modules().join(name);
    let version = module_dir.join(digest);
    ensure_unpacked(layout, kept, digest, &version).map_err(before)?;
    write_secrets(layout, held, name, &Version::of(module).secrets).map_err(before)?;
    switch_current(&module_dir, digest)
        .map_err(|e| before(format!("could not switch {CURRENT} to {digest}: {e}")))?;
    let after = |reason: String| Down {
        reason,
        switched: true,
    };
    let activated = module.activate.as_deref().map(|command| {
        activate::run(
            "activate",
            command,
            &version,
            name,
            root_abs,
            options.activate_timeout,
        )
    });

    // Read back.
    match fs::read_link(module_dir.join(CURRENT)) {
        Ok(target) if target == Path::new(digest) => {}
        Ok(target) => {
            return Err(after(format!(
                "{CURRENT} names {}, not the declared {digest}",
                target.display()
            )));
        }
        Err(e) => return Err(after(format!("{CURRENT} could not be read back: {e}"))),
    }
    activated.unwrap_or(Ok(())).map_err(after)?;
    // Activated is not yet working: with a check, it must pass (for `settle`) first.
    health::settle(module, &version, root_abs).map_err(after)
}

/// Marks a version as just used (its mtime), which is what pruning goes by. Housekeeping only:
/// an old mtime just makes the version an earlier candidate for pruning.
fn touch(version: &Path) {
    let _ = File::open(version).and_then(|d| d.set_modified(SystemTime::now()));
}

/// Points `module_dir/current` at `digest` atomically: a temp link renamed over it. Marks the
/// version as just used (its mtime), which is what pruning goes by.
fn switch_current(module_dir: &Path, digest: &str) -> Result<(), NodeError> {
    let current = module_dir.join(CURRENT);
    touch(&module_dir.join(digest));
    if fs::read_link(&current).is_ok_and(|t| t == Path::new(digest)) {
        return Ok(());
    }
    let tmp = module_dir.join(format!("{CURRENT_TMP}{}", std::process::id()));
    // A leftover of a crashed apply with the same pid; we hold the lock.
    let _ = fs::remove_file(&tmp);
    symlink(digest, &tmp).map_err(NodeError::io("create the link", &tmp))?;
    if let Err(source) = fs::rename(&tmp, &current) {
        let _ = fs::remove_file(&tmp);
        return Err(NodeError::Io {
            what: "switch",
            path: current,
            source,
        });
    }
    Ok(sync_dir(module_dir)?)
}

/// Removes `module_dir/current`, durably: the module runs no version.
fn switch_off(module_dir: &Path) -> Result<(), NodeError> {
    let current = module_dir.join(CURRENT);
    fs::remove_file(&current).map_err(NodeError::io("remove", &current))?;
    Ok(sync_dir(module_dir)?)
}

/// Removes the `current` link of every module under `modules_dir` not in `declared`, and
/// reports each one switched off as `removed` (a module already off is not mentioned again).
fn switch_off_undeclared(
    modules_dir: &Path,
    declared: &BTreeSet<&str>,
) -> Result<Vec<ResourceReport>, NodeError> {
    let mut out = Vec::new();
    for (name, dir) in module_dirs(modules_dir)? {
        if declared.contains(name.as_str()) {
            continue;
        }
        let current = dir.join(CURRENT);
        if fs::symlink_metadata(&current).is_err() {
            continue;
        }
        let id = format!("module:{name}");
        out.push(match switch_off(&dir) {
            Ok(()) => ResourceReport {
                id,
                outcome: ResourceOutcome::Removed,
                reason: None,
                rolled_back: None,
                health: None,
                secrets: Default::default(),
            },
            Err(e) => ResourceReport {
                id,
                outcome: ResourceOutcome::Failed,
                reason: Some(format!("no longer declared, but not switched off: {e}")),
                rolled_back: None,
                health: None,
                secrets: Default::default(),
            },
        });
    }
    Ok(out)
}

/// The module directories under `modules_dir` (valid names only), sorted.
fn module_dirs(modules_dir: &Path) -> Result<Vec<(String, PathBuf)>, NodeError> {
    let mut out = Vec::new();
    for (name, entry) in list_dir(modules_dir)? {
        if is_valid_name(&name) && entry.file_type().is_ok_and(|t| t.is_dir()) {
            out.push((name, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// Prunes every module's old versions. Housekeeping: a failure here changes nothing a report
/// says and is retried by the next apply, so it is not an error.
fn prune_all(modules_dir: &Path, kept: &Kept) {
    for (name, dir) in module_dirs(modules_dir).unwrap_or_default() {
        let good = kept.good(&dir, &name).map(|g| g.artifact);
        let _ = prune(&dir, KEEP_VERSIONS, good.as_deref());
    }
}

/// Removes from `root/artifacts` every artifact that neither the declaration in force names
/// nor a version kept under `root/modules` was unpacked from: without this the directory
/// grows by one file per change for ever. Housekeeping, as [`prune_all`]: the controller
/// sends again whatever a later declaration names and the node no longer holds.
fn prune_artifacts(layout: &Layout, kept: &Kept, declared: &[DeclaredModule]) {
    let mut keep: BTreeSet<String> = declared.iter().map(|m| m.artifact.clone()).collect();
    keep.extend(kept.digests());
    for (_, dir) in module_dirs(&layout.modules()).unwrap_or_default() {
        for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
            if let Some(name) = entry.file_name().to_str()
                && is_digest(name)
            {
                keep.insert(name.to_string());
            }
        }
    }
    let dir = layout.artifacts();
    for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
        if let Some(name) = entry.file_name().to_str()
            && is_digest(name)
            && !keep.contains(name)
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Keeps the version `current` names, the last that activated (`good`: what a failure goes
/// back to) and the `keep` most recently used others (by mtime, then name); removes the rest,
/// and what crashed applies left behind (temp links, half unpacks).
pub(super) fn prune(module_dir: &Path, keep: usize, good: Option<&str>) -> io::Result<()> {
    let current = fs::read_link(module_dir.join(CURRENT)).ok();
    let good = good.map(PathBuf::from);
    let mut versions = Vec::new();
    for entry in fs::read_dir(module_dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with(CURRENT_TMP) {
            let _ = fs::remove_file(entry.path());
            continue;
        }
        if name.starts_with('.') && name.contains(".unpack-") {
            // An unpack a crash interrupted (unpacking is done under the lock we hold).
            let _ = fs::remove_dir_all(entry.path());
            continue;
        }
        if !is_digest(name)
            || current.as_deref() == Some(Path::new(name))
            || good.as_deref() == Some(Path::new(name))
        {
            continue;
        }
        let meta = fs::symlink_metadata(entry.path())?;
        if meta.is_dir() {
            versions.push((meta.modified()?, name.to_string(), entry.path()));
        }
    }
    versions.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (_, _, path) in versions.into_iter().skip(keep) {
        fs::remove_dir_all(path)?;
    }
    Ok(())
}
