//! One build run's use of the engine: connected at the first build that asks (a run with
//! nothing stale never calls it), turned off for the rest of the run by the first call that
//! fails (one warning: the builds go on here), results taken only when a trusted controller
//! signed them and they pack to the artifact it signed, and this controller's own fit builds
//! written back, signed, when `upload` is set.

use super::action::{ModuleAction, OUT};
use super::client::{Kind, Remote, RemoteError};
use super::merkle::{self, Blob, Tree, digest_of};
use super::sign::{self, Vouch};
use crate::config::RemoteConfig;
use crate::controller::{Identity, Signer};
use bazel_remote_apis::build::bazel::remote::execution::v2::{
    ActionResult, Digest, OutputDirectory, OutputFile, Tree as TreeMessage,
};
use mesh_node::artifact::ArtifactStore;
use prost::Message;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// The largest output Tree message read (before its signature is checked).
const MAX_TREE: i64 = 64 << 20;
/// The largest signature file read.
const MAX_SIGNATURE: i64 = 64 << 10;
/// The largest log read back with a result (a build's log is capped at this here too).
const MAX_LOG: i64 = 4 << 20;

/// How long an executed build may wait in the engine's queue beyond its own time.
const QUEUE_ALLOWANCE: Duration = Duration::from_secs(300);

/// Why the cache had nothing to take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "why", content = "detail")]
pub enum Miss {
    /// No result for the action.
    NoEntry,
    /// A result no trusted controller signed (or signed for something else).
    Untrusted(String),
    /// A blob of the result was absent, damaged, or the outputs packed to another artifact.
    DigestMismatch(String),
    /// The engine was away, slow or refusing (it is off for the rest of the run).
    Unreachable(String),
    /// Something here failed (no room for the outputs, a file to upload unreadable): the
    /// engine stays on.
    Local(String),
}

impl std::fmt::Display for Miss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Miss::NoEntry => f.write_str("no entry"),
            Miss::Untrusted(why) => write!(f, "untrusted: {why}"),
            Miss::DigestMismatch(why) => write!(f, "digest mismatch: {why}"),
            Miss::Unreachable(_) => f.write_str("unreachable"),
            Miss::Local(why) => write!(f, "failed here: {why}"),
        }
    }
}

/// Outputs taken from the engine, packed here.
#[derive(Debug, Clone)]
pub struct Taken {
    /// The artifact they packed to, and its size.
    pub artifact: (mesh_node::artifact::Digest, u64),
    /// The build's standard output and error, as the engine kept them.
    pub log: Vec<u8>,
    /// Who signed the result (for a cache hit).
    pub signer: Option<Signer>,
}

/// How a build run on the engine ended.
#[derive(Debug)]
pub enum Executed {
    /// The command ran: its exit code, its log, and its outputs packed (when it left some
    /// that could be read and packed).
    Ran {
        /// The command's exit code (see [`super::action::BUILD_FAILED`]).
        exit_code: i32,
        /// The outputs, packed (for exit 0 and a failed test).
        taken: Option<Taken>,
        /// Its standard output and error.
        log: Vec<u8>,
    },
    /// The engine could not run it (no worker, a queue timeout, an engine error): no
    /// verdict.
    NotRun(String),
    /// The engine is away: the build runs here.
    Away,
}

/// A run's engine.
pub struct Shared {
    cfg: RemoteConfig,
    /// This controller, to sign what it uploads (`None`: it has no key and uploads nothing).
    me: Option<Identity>,
    /// Whose results are taken: this controller and `[controllers]`.
    trusted: Vec<Signer>,
    remote: OnceLock<Option<Remote>>,
    /// Why the engine is off for the rest of the run, once a call failed.
    down: Mutex<Option<String>>,
    /// The results refused (untrusted or not matching their digests): one warning says them.
    refused: Mutex<Vec<String>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("endpoint", &self.cfg.endpoint)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// The engine of `[remote]`, not yet called.
    pub fn new(cfg: RemoteConfig, me: Option<Identity>, controllers: &[Signer]) -> Shared {
        let mut trusted = controllers.to_vec();
        trusted.extend(me.as_ref().map(Identity::signer));
        Shared {
            cfg,
            me,
            trusted,
            remote: OnceLock::new(),
            down: Mutex::new(None),
            refused: Mutex::new(Vec::new()),
        }
    }

    /// Whether builds the cache lacks run on the engine (while it is there).
    pub fn executes(&self) -> bool {
        self.cfg.execute && self.is_up()
    }

    /// How many builds may run on the engine at once.
    pub fn jobs(&self) -> usize {
        self.cfg.jobs
    }

    /// Whether the engine is still on for this run.
    fn is_up(&self) -> bool {
        self.down.lock().map(|d| d.is_none()).unwrap_or(false)
    }

    /// The warnings of this run, each once: the engine went off (why; builds went on here),
    /// and the results refused.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(why) = self.down.lock().ok().and_then(|d| d.clone()) {
            out.push(format!(
                "remote cache unreachable: built here ({why}; {} is not asked again this run)",
                self.cfg.endpoint
            ));
        }
        let refused = self.refused.lock().map(|r| r.clone()).unwrap_or_default();
        if let Some(first) = refused.first() {
            out.push(format!(
                "{} cached result{} refused and built here: {first}{}",
                refused.len(),
                if refused.len() == 1 { " was" } else { "s were" },
                if refused.len() > 1 {
                    " (and others: `mesh build -v` says each)"
                } else {
                    ""
                }
            ));
        }
        out
    }

    /// Notes a result refused, for the run's warning.
    fn refuse(&self, module: &str, miss: Miss) -> Miss {
        if let Ok(mut r) = self.refused.lock() {
            r.push(format!("{module}: {miss}"));
        }
        miss
    }

    /// The connected engine, connecting at the first call; `None` once it is off.
    fn remote(&self) -> Option<&Remote> {
        if !self.is_up() {
            return None;
        }
        let r = self
            .remote
            .get_or_init(|| match Remote::configured(&self.cfg) {
                Ok(r) => match r.check() {
                    Ok(()) => Some(r),
                    Err(e) => {
                        self.off(&e);
                        None
                    }
                },
                Err(e) => {
                    self.off(&e);
                    None
                }
            });
        r.as_ref().filter(|_| self.is_up())
    }

    /// Turns the engine off for the rest of the run (the first reason is kept).
    fn off(&self, e: &RemoteError) {
        if let Ok(mut d) = self.down.lock() {
            d.get_or_insert_with(|| e.why.clone());
        }
    }

    /// A failed call: a blob problem is the result's fault (`DigestMismatch`); anything else
    /// turns the engine off.
    fn failed(&self, e: RemoteError) -> Miss {
        match e.kind {
            Kind::Content => Miss::DigestMismatch(e.why),
            Kind::Local => Miss::Local(e.why),
            Kind::Away | Kind::Busy | Kind::NotRun => {
                self.off(&e);
                Miss::Unreachable(e.why)
            }
        }
    }

    /// The cache's result for `action`, taken when a trusted controller signed it and its
    /// outputs pack to the artifact it signed (packed into `artifacts`, unpacked under `tmp`
    /// first).
    pub fn lookup(
        &self,
        module: &str,
        action: &ModuleAction,
        artifacts: &ArtifactStore,
        tmp: &Path,
    ) -> Result<Taken, Miss> {
        match self.lookup_of(action, artifacts, tmp) {
            Err(m @ (Miss::Untrusted(_) | Miss::DigestMismatch(_))) => Err(self.refuse(module, m)),
            r => r,
        }
    }

    fn lookup_of(
        &self,
        action: &ModuleAction,
        artifacts: &ArtifactStore,
        tmp: &Path,
    ) -> Result<Taken, Miss> {
        let Some(remote) = self.remote() else {
            return Err(Miss::Unreachable(String::new()));
        };
        let result = match remote.action_result(&action.digest) {
            Ok(Some(r)) => r,
            Ok(None) => return Err(Miss::NoEntry),
            Err(e) => return Err(self.failed(e)),
        };
        if result.exit_code != 0 {
            return Err(Miss::Untrusted(format!(
                "its command exited {}",
                result.exit_code
            )));
        }
        let tree = out_tree(&result)
            .ok_or_else(|| Miss::Untrusted(format!("it has no output directory {OUT}")))?;
        // Read before the signature is checked: bounded, so an entry no one trusts costs little.
        if tree.size_bytes > MAX_TREE
            || sig_digest_of(&result).is_some_and(|d| d.size_bytes > MAX_SIGNATURE)
        {
            return Err(Miss::Untrusted(
                "its output tree or signature is too large".into(),
            ));
        }
        let sig_digest = sig_digest_of(&result);
        // The signature, the tree message and the log in one call.
        let wanted: Vec<Digest> = std::iter::once(tree.clone())
            .chain(sig_digest.clone())
            .chain(logs_of(&result))
            .collect();
        let mut read = remote.read_many(&wanted).map_err(|e| self.failed(e))?;
        let sig = sig_digest
            .and_then(|d| read.remove(&d.hash))
            .unwrap_or_default();
        let log = result.stdout_digest.as_ref().filter(|d| d.size_bytes > 0);
        let (signer, vouched) = sign::verify(&sig, &action.digest, &tree, log, &self.trusted)
            .map_err(Miss::Untrusted)?;
        let message = read.remove(&tree.hash).unwrap_or_default();
        let mut taken = self.take(remote, &result, &message, &mut read, artifacts, tmp)?;
        if taken.artifact.0.to_string() != vouched.0 || taken.artifact.1 != vouched.1 {
            return Err(Miss::DigestMismatch(format!(
                "the outputs pack to {}, {} signed for {}",
                taken.artifact.0,
                signer.describe(),
                vouched.0
            )));
        }
        taken.signer = Some(signer);
        Ok(taken)
    }

    /// The outputs of `result` (whose output tree message is `message`, read and checked)
    /// read, checked, written under `tmp` and packed into `artifacts`; with the log the result
    /// names.
    fn take(
        &self,
        remote: &Remote,
        result: &ActionResult,
        message: &[u8],
        have: &mut HashMap<String, Vec<u8>>,
        artifacts: &ArtifactStore,
        tmp: &Path,
    ) -> Result<Taken, Miss> {
        let message = TreeMessage::decode(message)
            .map_err(|e| Miss::DigestMismatch(format!("its output tree cannot be read: {e}")))?;
        let blobs = remote
            .read_many(&merkle::files_of(&message))
            .map_err(|e| self.failed(e))?;
        let dir = tempfile::Builder::new()
            .prefix("remote-")
            .tempdir_in(tmp)
            .map_err(|e| Miss::Local(format!("no room under {}: {e}", tmp.display())))?;
        let out = dir.path().join("out");
        merkle::materialize(&message, &blobs, &out)
            .map_err(|e| Miss::DigestMismatch(format!("its outputs cannot be written: {e}")))?;
        let artifact = artifacts
            .put_dir(&out)
            .map_err(|e| Miss::DigestMismatch(format!("its outputs cannot be packed: {e}")))?;
        Ok(Taken {
            artifact,
            log: log_of(remote, result, have),
            signer: None,
        })
    }

    /// Writes this controller's fit build of `action` to the cache, signed: its outputs (the
    /// artifact `artifact` unpacked at `unpacked`) and its log. Nothing without `upload` or a
    /// key. A failed call turns the engine off; the build stands either way.
    pub fn upload(
        &self,
        action: &ModuleAction,
        artifact: &(mesh_node::artifact::Digest, u64),
        unpacked: &Path,
        log: &Path,
    ) -> bool {
        let (true, Some(me)) = (self.cfg.upload, self.me.as_ref()) else {
            return false;
        };
        let Some(remote) = self.remote() else {
            return false;
        };
        let Ok(mut outputs) = merkle::tree(unpacked) else {
            return false;
        };
        let tree = outputs.as_message();
        let log = std::fs::read(log).unwrap_or_default();
        let log_digest = digest_of(&log);
        let vouch = Vouch {
            action: action.digest.clone(),
            tree: tree.clone(),
            artifact: (artifact.0.to_string(), artifact.1),
            log: (log_digest.size_bytes > 0).then(|| log_digest.clone()),
        };
        let signature = vouch.sign(me);
        let mut blobs: Tree = action.blobs(false);
        blobs.blobs.extend(outputs.blobs);
        let sig_digest = digest_of(&signature);
        blobs
            .blobs
            .insert(sig_digest.hash.clone(), Blob::Bytes(signature));
        blobs
            .blobs
            .insert(log_digest.hash.clone(), Blob::Bytes(log));
        let result = ActionResult {
            output_directories: vec![OutputDirectory {
                path: OUT.into(),
                tree_digest: Some(tree),
                ..Default::default()
            }],
            output_files: vec![OutputFile {
                path: sign::FILE.into(),
                digest: Some(sig_digest),
                ..Default::default()
            }],
            exit_code: 0,
            stdout_digest: Some(log_digest),
            ..Default::default()
        };
        let written = remote
            .upload(&blobs)
            .and_then(|_| remote.put_action_result(&action.digest, result));
        match written {
            Ok(()) => true,
            Err(e) => {
                self.failed(e);
                false
            }
        }
    }

    /// Runs `action` on the engine's workers (its inputs uploaded first) and takes what it
    /// left; a fit build is then written back signed, as [`Shared::upload`] does.
    pub fn execute(
        &self,
        action: &ModuleAction,
        artifacts: &ArtifactStore,
        tmp: &Path,
    ) -> Executed {
        let Some(remote) = self.remote() else {
            return Executed::Away;
        };
        if let Err(e) = remote.upload(&action.blobs(true)) {
            self.failed(e);
            return Executed::Away;
        }
        let result = match remote.execute(&action.digest, action.timeout + QUEUE_ALLOWANCE) {
            Ok(r) => r,
            // The engine answered that it cannot run it (no worker, a queue timeout).
            Err(e) if matches!(e.kind, Kind::NotRun | Kind::Content) => {
                return Executed::NotRun(e.why);
            }
            // The engine went away (or never answered in time): the build runs here.
            Err(e) => {
                self.failed(e);
                return Executed::Away;
            }
        };
        let log = log_of(remote, &result, &mut HashMap::new());
        let packs = matches!(result.exit_code, 0 | super::action::TEST_FAILED);
        let taken = match (packs, out_tree(&result)) {
            (true, Some(tree)) => remote.read(&tree).ok().and_then(|m| {
                self.take(remote, &result, &m, &mut HashMap::new(), artifacts, tmp)
                    .ok()
            }),
            _ => None,
        };
        Executed::Ran {
            exit_code: result.exit_code,
            taken,
            log,
        }
    }
}

/// The Tree message digest of a result's output directory.
pub(crate) fn out_tree(result: &ActionResult) -> Option<Digest> {
    result
        .output_directories
        .iter()
        .find(|d| d.path == OUT)
        .and_then(|d| d.tree_digest.clone())
}

/// The digest of a result's signature file, if it has one.
pub(crate) fn sig_digest_of(result: &ActionResult) -> Option<Digest> {
    result
        .output_files
        .iter()
        .find(|f| f.path == sign::FILE)
        .and_then(|f| f.digest.clone())
}

/// The digests of the standard output and error a result names and does not inline (each at
/// most [`MAX_LOG`]: a larger one is left out of the log).
pub(crate) fn logs_of(result: &ActionResult) -> impl Iterator<Item = Digest> + '_ {
    [
        (&result.stdout_raw, &result.stdout_digest),
        (&result.stderr_raw, &result.stderr_digest),
    ]
    .into_iter()
    .filter(|(raw, _)| raw.is_empty())
    .filter_map(|(_, d)| d.clone())
    .filter(|d| d.size_bytes > 0 && d.size_bytes <= MAX_LOG)
}

/// The standard output then error a result names, from `have` (blobs read already) or the
/// engine; what cannot be read is left out: a log is not a verdict.
fn log_of(remote: &Remote, result: &ActionResult, have: &mut HashMap<String, Vec<u8>>) -> Vec<u8> {
    let mut log = result.stdout_raw.clone();
    log.extend_from_slice(&result.stderr_raw);
    for d in logs_of(result) {
        if let Some(b) = have.remove(&d.hash).or_else(|| remote.read(&d).ok()) {
            log.extend_from_slice(&b);
        }
    }
    log
}
