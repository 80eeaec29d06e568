//! `mesh node apply`: makes the node run what `declaration.json` says, reads it back, and
//! appends a report. Run after every receive and on the node's own timer; running it again
//! converges (nothing is unpacked twice, `activate` runs again as the read-back's check).

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{self, BufReader};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::activate;
use super::disk::{RootLock, list_dir};
use super::journal::{self, Outcome, Report, ResourceOutcome, ResourceReport};
use super::{Held, Layout, NodeError};
use crate::artifact::{ArtifactError, is_digest, unpack};
use crate::config::is_valid_name;
use crate::declare::wire::DeclaredModule;
use crate::durable::{sync_dir, write_atomic};

/// How long `activate` may run before it is killed and the module reported failed.
pub const ACTIVATE_TIMEOUT: Duration = Duration::from_secs(60);

/// How many unpacked versions of a module are kept besides the one `current` names.
pub const KEEP_VERSIONS: usize = 3;

/// The name of the link to the version in use, in `modules/<name>/`.
const CURRENT: &str = "current";
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
pub fn apply(root: &Path) -> Result<Report, NodeError> {
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
/// reason. A failed module is not switched back: the report says what the node runs.
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
pub fn apply_with(root: &Path, options: &ApplyOptions) -> Result<Report, NodeError> {
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
    let mut resources: Vec<ResourceReport> = declared
        .iter()
        .map(|m| apply_module(&layout, &root_abs, m, options))
        .collect();
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
        }),
    }
    prune_all(&modules_dir);
    prune_artifacts(&layout, &envelope.declaration.modules);

    let held = Held {
        digest: envelope.digest.clone(),
        sequence: envelope.sequence,
    };
    let state = serde_json::to_vec(&held).map_err(|e| NodeError::Corrupt {
        path: layout.state(),
        reason: format!("the state could not be encoded: {e}"),
    })?;
    write_atomic(&layout.state(), &state)?;

    let failed: Vec<&str> = resources
        .iter()
        .filter(|r| r.outcome == ResourceOutcome::Failed)
        .map(|r| r.id.as_str())
        .collect();
    let (outcome, reason) = if failed.is_empty() {
        (Outcome::Applied, None)
    } else {
        let reason = format!(
            "{} of {} resources failed: {}",
            failed.len(),
            resources.len(),
            failed.join(", ")
        );
        (Outcome::Failed, Some(reason))
    };
    journal::append(root, Report::new(Some(held), outcome, reason, resources))
}

/// Unpacks, switches, activates and reads back one module.
fn apply_module(
    layout: &Layout,
    root_abs: &Path,
    module: &DeclaredModule,
    options: &ApplyOptions,
) -> ResourceReport {
    let id = format!("module:{}", module.name);
    match bring_up(layout, root_abs, module, options) {
        Ok(()) => ResourceReport {
            id,
            outcome: ResourceOutcome::Ok,
            reason: None,
        },
        Err(reason) => ResourceReport {
            id,
            outcome: ResourceOutcome::Failed,
            reason: Some(reason),
        },
    }
}

/// The steps of [`apply_module`]; the error is the failure's reason.
fn bring_up(
    layout: &Layout,
    root_abs: &Path,
    module: &DeclaredModule,
    options: &ApplyOptions,
) -> Result<(), String> {
    let (name, digest) = (module.name.as_str(), module.artifact.as_str());
    // Checked on receive; checked again before either becomes a path.
    if !is_valid_name(name) {
        return Err(format!("invalid module name {name:?}"));
    }
    if !is_digest(digest) {
        return Err(format!("invalid artifact digest {digest:?}"));
    }
    let module_dir = layout.modules().join(name);
    let version = module_dir.join(digest);
    ensure_unpacked(layout, digest, &version)?;
    switch_current(&module_dir, digest)
        .map_err(|e| format!("could not switch {CURRENT} to {digest}: {e}"))?;
    let activated = module
        .activate
        .as_deref()
        .map(|command| activate::run(command, &version, name, root_abs, options.activate_timeout));

    // Read back.
    match fs::read_link(module_dir.join(CURRENT)) {
        Ok(target) if target == Path::new(digest) => {}
        Ok(target) => {
            return Err(format!(
                "{CURRENT} names {}, not the declared {digest}",
                target.display()
            ));
        }
        Err(e) => return Err(format!("{CURRENT} could not be read back: {e}")),
    }
    activated.unwrap_or(Ok(()))
}

/// Unpacks the artifact into `version` unless it is already there (unpacking is atomic, so an
/// existing directory is whole).
fn ensure_unpacked(layout: &Layout, digest: &str, version: &Path) -> Result<(), String> {
    match fs::symlink_metadata(version) {
        Ok(m) if m.is_dir() => return Ok(()),
        Ok(_) => return Err(format!("{} is not a directory", version.display())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("could not look at {}: {e}", version.display())),
    }
    let path = layout.store().path(digest);
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(format!("artifact {digest} is not held"));
        }
        Err(e) => return Err(format!("could not read artifact {digest}: {e}")),
    };
    match unpack(BufReader::new(file), version) {
        // Unpacked meanwhile by someone else: whole all the same.
        Ok(()) | Err(ArtifactError::DestExists { .. }) => Ok(()),
        Err(e) => Err(format!("artifact {digest} could not be unpacked: {e}")),
    }
}

/// Points `module_dir/current` at `digest` atomically: a temp link renamed over it. Marks the
/// version as just used (its mtime), which is what pruning goes by.
fn switch_current(module_dir: &Path, digest: &str) -> Result<(), NodeError> {
    let current = module_dir.join(CURRENT);
    // Housekeeping only: an old mtime just makes the version an earlier candidate for pruning.
    let _ = File::open(module_dir.join(digest)).and_then(|d| d.set_modified(SystemTime::now()));
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
        out.push(
            match fs::remove_file(&current).map_err(NodeError::io("remove", &current)) {
                Ok(()) => {
                    sync_dir(&dir)?;
                    ResourceReport {
                        id,
                        outcome: ResourceOutcome::Removed,
                        reason: None,
                    }
                }
                Err(e) => ResourceReport {
                    id,
                    outcome: ResourceOutcome::Failed,
                    reason: Some(format!("no longer declared, but not switched off: {e}")),
                },
            },
        );
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
fn prune_all(modules_dir: &Path) {
    for (_, dir) in module_dirs(modules_dir).unwrap_or_default() {
        let _ = prune(&dir, KEEP_VERSIONS);
    }
}

/// Removes from `root/artifacts` every artifact that neither the declaration in force names
/// nor a version kept under `root/modules` was unpacked from: without this the directory
/// grows by one file per change for ever. Housekeeping, as [`prune_all`]: the controller
/// sends again whatever a later declaration names and the node no longer holds.
fn prune_artifacts(layout: &Layout, declared: &[DeclaredModule]) {
    let mut keep: BTreeSet<String> = declared.iter().map(|m| m.artifact.clone()).collect();
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

/// Keeps the version `current` names and the `keep` most recently used others (by mtime, then
/// name); removes the rest, and what crashed applies left behind (temp links, half unpacks).
fn prune(module_dir: &Path, keep: usize) -> io::Result<()> {
    let current = fs::read_link(module_dir.join(CURRENT)).ok();
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
        if !is_digest(name) || current.as_deref() == Some(Path::new(name)) {
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
