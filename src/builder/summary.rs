//! What a build run is asked (`BuildOptions`), tells as it goes (`Progress`) and did
//! (`BuildSummary`): the types every step of the run shares, so the steps never import each
//! other for them.

use super::Verdict;
use super::run::{Live, Outcome};
use crate::store::BuildRecord;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;

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
    /// The engine builds are shared through (`[remote]`), if any.
    pub remote: Option<Arc<crate::remote::share::Shared>>,
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
    /// What the engine had to do with it (with `[remote]` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote: Option<RemoteUse>,
}

/// What the engine had to do with one build: a cache hit, or a miss and why, and where it
/// was built.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct RemoteUse {
    /// `hit` or `miss`.
    pub cache: &'static str,
    /// Why it missed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub miss: Option<crate::remote::share::Miss>,
    /// Where it was built: `cache` (not built: taken), `remote` (on the engine), `local`, or
    /// `none` (the engine could not run it: outstanding).
    pub ran: &'static str,
    /// Who signed the result taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signer: Option<String>,
    /// Whether this build was written to the cache.
    pub uploaded: bool,
    /// The action's digest (`hash/size`), when one could be made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

impl RemoteUse {
    /// A hit: taken from the cache.
    pub fn hit() -> RemoteUse {
        RemoteUse {
            cache: "hit",
            miss: None,
            ran: "cache",
            signer: None,
            uploaded: false,
            action: None,
        }
    }

    /// A miss, built where `ran` says.
    pub fn new(miss: crate::remote::share::Miss, ran: &'static str) -> RemoteUse {
        RemoteUse {
            cache: "miss",
            miss: Some(miss),
            ran,
            signer: None,
            uploaded: false,
            action: None,
        }
    }

    /// `hit`, `miss (no entry), built here`…: one cell of `build -v`.
    pub fn describe(&self) -> String {
        let ran = match self.ran {
            "cache" => "taken",
            "remote" => "built on the engine",
            "none" => "not built: the engine could not run it",
            _ => "built here",
        };
        let up = if self.uploaded { ", uploaded" } else { "" };
        match &self.miss {
            None => format!(
                "hit, signed by {}{up}",
                self.signer.as_deref().unwrap_or("a trusted controller")
            ),
            Some(m) => format!("miss ({m}), {ran}{up}"),
        }
    }
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
    /// Warnings of the run (the engine went away).
    pub warnings: Vec<String>,
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

/// A build that ended, sent back by the thread that ran it.
pub(super) struct Ended {
    /// The module.
    pub m: usize,
    /// How it ended.
    pub outcome: Outcome,
    /// When it started (ms).
    pub started: u64,
    /// When its steps began (its export made, its inputs unpacked).
    pub began: std::time::SystemTime,
    /// Its log file (empty when it never ran).
    pub log: PathBuf,
    /// What the engine had to do with it.
    pub remote: Option<RemoteUse>,
    /// A fit build made here, to write to the cache once the run has judged it.
    pub upload: Option<crate::remote::action::ModuleAction>,
}

impl Built {
    /// What progress and the summary show of a recorded build.
    pub(super) fn of(record: &BuildRecord, outcome: Outcome, remote: Option<RemoteUse>) -> Built {
        Built {
            module: record.module.clone(),
            id: record.id,
            verdict: record.verdict,
            reason: record.reason.clone(),
            step: outcome.step,
            artifact: record.artifact.clone(),
            duration_ms: record.finished.saturating_sub(record.started),
            tail: outcome.tail,
            log: record.log.clone().unwrap_or_default(),
            remote,
        }
    }
}
