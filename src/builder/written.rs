//! After each build: what was written into its export. An export is the commit's tree,
//! read-only, shared by every build of the commit and taken over by the next commit's export,
//! so a write into it would outlive the build that made it. Each build's end checks the export
//! ([`crate::source::export::restore_written`]) and puts back what differs.
//!
//! A build that wrote into its export is `broken`: the same write fails for a build not running
//! as root (the export is read-only), so root must not make it fit, and its artifact was made
//! from a tree that is not its commit's. When other builds of the same export ran beside it,
//! which one wrote is not known: each of them ends `outstanding` (no verdict) and is built again
//! by the next run.

use super::Verdict;
use super::summary::Ended;
use crate::source::RepoSnapshot;
use crate::source::export::{self, Export};
use std::io::Write;
use std::time::{Duration, SystemTime};

/// How far before a build's start a change still counts as the build's: file times come from a
/// clock that may lag the one read at the start by a tick. A change just before is compared
/// with the commit's tree like any other, and passes when it is the commit's.
const CLOCK_SLACK: Duration = Duration::from_millis(20);

/// The builds of one run, as far as their exports go.
#[derive(Default)]
pub(super) struct Watch {
    /// (repository, module, began, ended) of each build: ended is `None` while it runs.
    spans: Vec<(usize, String, SystemTime, Option<SystemTime>)>,
    /// (repository, when, the module whose end found it) of each write found.
    found: Vec<(usize, SystemTime, String)>,
}

impl Watch {
    /// A build of `module` in repository `repo`'s export began now.
    pub(super) fn began(&mut self, repo: usize, module: &str, at: SystemTime) {
        self.spans.push((repo, module.to_string(), at, None));
    }

    /// Forgets the span of a build that ran nothing in its export (taken from the cache, or
    /// run on an engine): it wrote nothing there, and is not beside another build that did.
    pub(super) fn ran_elsewhere(&mut self, repo: usize, module: &str, began: SystemTime) {
        self.spans
            .retain(|s| !(s.0 == repo && s.1 == module && s.2 == began && s.3.is_none()));
    }

    /// Checks the export after `ended`'s build (module `module` of repository `repo`), restores
    /// it, and changes the build's outcome when its export was written into while it ran.
    pub(super) fn ended(
        &mut self,
        snap: &RepoSnapshot,
        export: &Export,
        repo: usize,
        module: &str,
        ended: &mut Ended,
    ) {
        let now = SystemTime::now();
        let began = ended.began;
        if let Some(s) = self
            .spans
            .iter_mut()
            .find(|s| s.0 == repo && s.1 == module && s.2 == began && s.3.is_none())
        {
            s.3 = Some(now);
        }
        let beside: Vec<String> = self
            .spans
            .iter()
            .filter(|s| s.0 == repo && s.1 != module && s.3.is_none_or(|e| e >= began))
            .map(|s| s.1.clone())
            .collect();
        let since = began.checked_sub(CLOCK_SLACK).unwrap_or(began);
        let change = match export::restore_written(snap, export.path(), since) {
            Ok(w) if w.is_empty() => self
                .found
                .iter()
                .find(|f| f.0 == repo && f.1 >= began)
                .map(|f| {
                    (
                        Verdict::Outstanding,
                        format!(
                            "its export was written into while it ran (found when {} ended, and restored from the commit): built again next run",
                            f.2
                        ),
                    )
                }),
            Ok(written) => {
                self.found.push((repo, now, module.to_string()));
                let mut list: Vec<String> = written.iter().take(5).map(|w| w.to_string()).collect();
                if written.len() > 5 {
                    list.push(format!("{} more", written.len() - 5));
                }
                let list = list.join(", ");
                Some(if beside.is_empty() {
                    (
                        Verdict::Broken,
                        format!(
                            "it wrote into its export, the commit's tree, read-only to builds ({list}); mesh restored the export from the commit"
                        ),
                    )
                } else {
                    (
                        Verdict::Outstanding,
                        format!(
                            "its export was written into while it ran beside {} ({list}); mesh restored it from the commit, and which build wrote is not known: built again next run",
                            beside.join(", ")
                        ),
                    )
                })
            }
            Err(e) => {
                let _ = export::distrust(export.path());
                Some((
                    Verdict::Outstanding,
                    format!(
                        "its export could not be checked after it ran ({e}); the export is made again by the next run"
                    ),
                ))
            }
        };
        // A process that escaped the build may write into the export at any time: the next
        // run makes it again rather than trust it.
        if ended.outcome.escaped {
            let _ = export::distrust(export.path());
        }
        if let Some((verdict, why)) = change {
            tell(ended, verdict, why);
        }
    }
}

/// Gives the build its new verdict and says why, in its log and its reason (before any other).
fn tell(ended: &mut Ended, verdict: Verdict, why: String) {
    let line = format!("mesh: {why}");
    if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(&ended.log) {
        let _ = writeln!(f, "{line}");
    }
    let o = &mut ended.outcome;
    o.reason = Some(match o.reason.take() {
        Some(before) => format!("{why}; {before}"),
        None => why,
    });
    o.step = o.step.or(Some("build"));
    if verdict != Verdict::Unfit {
        o.artifact = None;
    }
    o.verdict = verdict;
    o.tail.push(line);
}
