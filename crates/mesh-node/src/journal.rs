//! The report journal (`root/reports/`): one report per file, named by a rising report
//! sequence, bounded to the newest [`JOURNAL_LIMIT`]. The controller collects by report
//! sequence (`report --since N`), so none is lost or counted twice however rarely it asks.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::disk::list_dir;
use super::{HOST_VERSION, Held, Layout, NodeError, Root};
use crate::durable::{sync_dir, write_atomic};

/// How many reports the journal keeps (the newest).
pub const JOURNAL_LIMIT: usize = 100;

/// Digits of a report file's name (a zero-padded u64, so names sort as numbers do).
const NAME_DIGITS: usize = 20;

/// What a node says after an apply, or a refusal: one JSON object per file, and per line of
/// `report --since`. Unknown fields are ignored when reading, so a newer node may add some.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// Rises by one with every report this node writes.
    pub report_sequence: u64,
    /// The declaration this report is about (None when a refused envelope could not be read).
    pub declaration: Option<Held>,
    /// How it went, overall.
    pub outcome: Outcome,
    /// Why it was refused or failed (None when applied).
    pub reason: Option<String>,
    /// One line per resource, sorted by id (empty for a refusal).
    pub resources: Vec<ResourceReport>,
    /// The version of the node's mesh binary.
    pub host_version: String,
    /// When, RFC 3339 UTC.
    pub at: String,
    /// Which journal wrote it: made once per node root, so a controller can tell a journal that
    /// started again (a wiped or reinstalled node) from one it has read before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal: Option<String>,
}

/// The overall outcome of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every resource read back as declared.
    Applied,
    /// At least one resource failed; see `resources`.
    Failed,
    /// The declaration was refused whole; the one in force was kept.
    Refused,
    /// Not an apply: every module's check was run on what the node runs (`mesh node report`,
    /// a controller's collect). Its resources say what the last apply said, each with its
    /// health now; it says nothing new about the apply.
    Checked,
}

/// What became of one resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceReport {
    /// `module:<name>`.
    pub id: String,
    /// ok, failed or removed.
    pub outcome: ResourceOutcome,
    /// Why it failed (None otherwise).
    pub reason: Option<String>,
    /// A new version that failed and the version the node went back to: set only when it did
    /// go back (absent in reports of nodes older than going back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolled_back: Option<RolledBack>,
    /// What the module's check said of the version it runs, when it has a check and runs
    /// (absent otherwise, and in reports of nodes older than checks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<Health>,
    /// The secrets of the version it runs, name → keyed digest, as written under
    /// `ROOT/secrets/<module>/` and read back: what confirms the node holds the declared ones
    /// (absent when it has none).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub secrets: std::collections::BTreeMap<String, String>,
}

/// A module's health: its check's answer about the version it runs, and since when it has
/// been the same answer for that version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    /// Whether the check exited 0.
    pub healthy: bool,
    /// Since when (RFC 3339 UTC) the check has said so of this version.
    pub since: String,
    /// The build the module runs (its id, as declared).
    pub build: String,
    /// The commit that build was made from: what every controller at it shares (build ids
    /// are each controller's own).
    #[serde(default)]
    pub commit: String,
    /// Why not healthy: how the check ended and the last lines of its output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// A module's new version failed to come up, and the node switched it back to the last
/// version that activated there and ran that one's `activate` again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolledBack {
    /// The build that failed (its id, as declared).
    pub failed_build: String,
    /// The commit that build was made from.
    pub failed_commit: String,
    /// The build the module runs again: the last that activated on this node.
    pub to_build: String,
    /// The commit that build was made from.
    pub to_commit: String,
    /// True when going back failed too: the module is down, running neither version.
    #[serde(default)]
    pub down: bool,
}

impl RolledBack {
    /// "build 7 (commit abcdef012345)": the version that failed, for a reason.
    pub fn failed_version(&self) -> String {
        version_words(&self.failed_build, &self.failed_commit)
    }

    /// "build 3 (commit 0123456789ab)": the version gone back to.
    pub fn to_version(&self) -> String {
        version_words(&self.to_build, &self.to_commit)
    }
}

/// "build B (commit C)", the commit shortened.
pub(super) fn version_words(build: &str, commit: &str) -> String {
    format!(
        "build {build} (commit {})",
        crate::artifact::short(commit, crate::artifact::SHORT)
    )
}

/// The outcome of one resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResourceOutcome {
    /// Read back as declared.
    Ok,
    /// Not as declared; the reason says why.
    Failed,
    /// No longer declared: switched off.
    Removed,
}

impl Report {
    /// A report stamped with this host's version and the time; its sequence is given by
    /// [`append`].
    pub(super) fn new(
        declaration: Option<Held>,
        outcome: Outcome,
        reason: Option<String>,
        mut resources: Vec<ResourceReport>,
    ) -> Report {
        resources.sort_by(|a, b| a.id.cmp(&b.id));
        Report {
            report_sequence: 0,
            declaration,
            outcome,
            reason,
            resources,
            host_version: HOST_VERSION.to_string(),
            at: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
            journal: None,
        }
    }
}

/// This journal's id (`root/journal-id`), made the first time a report is written.
fn journal_id(root: &Path) -> Result<String, NodeError> {
    let path = root.join("journal-id");
    if let Ok(id) = fs::read_to_string(&path)
        && !id.trim().is_empty()
    {
        return Ok(id.trim().to_string());
    }
    let mut h = blake3::Hasher::new();
    h.update(
        format!(
            "{:?} {} {}",
            SystemTime::now(),
            std::process::id(),
            root.display()
        )
        .as_bytes(),
    );
    let id = h.finalize().to_hex()[..16].to_string();
    fs::create_dir_all(root).map_err(NodeError::io("create", root))?;
    write_atomic(&path, id.as_bytes())?;
    Ok(id)
}

/// The report sequence a file name stands for, if it is a report file. A name at or beyond
/// [`super::MAX_SEQUENCE`] is no report this journal wrote: it would freeze the numbering.
fn parse_name(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(".json")?;
    if digits.len() != NAME_DIGITS || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits
        .parse()
        .ok()
        .filter(|s| (1..super::MAX_SEQUENCE).contains(s))
}

/// The file name of a report sequence.
fn file_name(sequence: u64) -> String {
    format!("{sequence:0width$}.json", width = NAME_DIGITS)
}

/// Every report file in `dir` as (sequence, path), oldest first; a missing dir holds none.
fn list(dir: &Path) -> Result<Vec<(u64, PathBuf)>, NodeError> {
    let mut out = Vec::new();
    for (name, entry) in list_dir(dir)? {
        if let Some(seq) = parse_name(&name) {
            out.push((seq, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// Appends `report` to the journal with the next report sequence (one above the highest held)
/// and drops the oldest beyond [`JOURNAL_LIMIT`]. The caller holds the root lock.
pub(super) fn append(root: &Path, mut report: Report) -> Result<Report, NodeError> {
    let dir = Layout::new(root).reports();
    let held = list(&dir)?;
    report.report_sequence = held.last().map_or(1, |(seq, _)| seq + 1);
    // A journal holding no report starts at one: it is a new journal (its reports were
    // removed, or it never had any), with an id of its own, so that a controller that read the
    // old one reads this one from its start.
    if held.is_empty() {
        let _ = fs::remove_file(root.join("journal-id"));
    }
    report.journal = Some(journal_id(root)?);
    let mut line = serde_json::to_vec(&report).map_err(|e| NodeError::Corrupt {
        path: dir.clone(),
        reason: format!("the report could not be encoded: {e}"),
    })?;
    line.push(b'\n');
    write_atomic(&dir.join(file_name(report.report_sequence)), &line)?;

    // Bounded: the newest JOURNAL_LIMIT, the one just written included.
    let excess = (held.len() + 1).saturating_sub(JOURNAL_LIMIT);
    if excess > 0 {
        for (_, path) in held.iter().take(excess) {
            match fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(NodeError::Io {
                        what: "remove",
                        path: path.clone(),
                        source,
                    });
                }
            }
        }
        sync_dir(&dir)?;
    }
    Ok(report)
}

/// The newest report in the journal for which `wanted` holds, if any (a file that cannot be
/// read or is not a report is passed over). The caller holds the root lock.
pub(super) fn newest(
    root: &Path,
    wanted: impl Fn(&Report) -> bool,
) -> Result<Option<Report>, NodeError> {
    let held = list(&Layout::new(root).reports())?;
    Ok(held.into_iter().rev().find_map(|(_, path)| {
        let report: Report = serde_json::from_slice(&fs::read(path).ok()?).ok()?;
        wanted(&report).then_some(report)
    }))
}

/// `report --since N`: writes every report with a report sequence above `since` to `output`,
/// oldest first, one JSON object per line, and returns how many. A file that cannot be read or
/// is not JSON is skipped (the rest are still worth collecting); a missing journal holds none.
/// Fields are passed on as the node wrote them, unknown ones included.
pub fn reports_since(root: &Root, since: u64, output: &mut impl Write) -> Result<u64, NodeError> {
    let layout = Layout::new(root);
    let _lock = super::disk::RootLock::probe(&layout.lock())?;
    let dir = layout.reports();
    let mut count = 0;
    let held = list(&dir)?;
    // Asked for more than this journal ever wrote: it started again (a wiped node). Everything
    // it holds is new to the asker, who tells by the journal id in each report.
    let since = match held.last() {
        Some((highest, _)) if since > *highest => 0,
        _ => since,
    };
    for (seq, path) in held.into_iter().filter(|(seq, _)| *seq > since) {
        // Read without a lock: a file may vanish to pruning meanwhile.
        let Ok(bytes) = fs::read(&path) else { continue };
        let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            continue;
        };
        let Some(object) = value.as_object_mut() else {
            continue;
        };
        // The file's name is its sequence: what it says inside cannot move the numbering.
        object.insert("report_sequence".into(), seq.into());
        serde_json::to_writer(&mut *output, &value)
            .map_err(io::Error::from)
            .and_then(|()| output.write_all(b"\n"))
            .map_err(|source| NodeError::Answer { source })?;
        count += 1;
    }
    output
        .flush()
        .map_err(|source| NodeError::Answer { source })?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(reason: &str) -> Report {
        Report::new(None, Outcome::Refused, Some(reason.into()), Vec::new())
    }

    fn lines(root: &Root, since: u64) -> Vec<Report> {
        let mut out = Vec::new();
        let n = reports_since(root, since, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let reports: Vec<Report> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(reports.len() as u64, n);
        reports
    }

    #[test]
    fn sequence_rises_and_journal_is_bounded() {
        let t = tempfile::tempdir().unwrap();
        let root = &Root::check(t.path()).unwrap();
        assert!(lines(root, 0).is_empty(), "a missing journal holds none");
        for i in 1..=(JOURNAL_LIMIT as u64 + 5) {
            let r = append(root, refused(&format!("r{i}"))).unwrap();
            assert_eq!(r.report_sequence, i);
        }
        let names: Vec<_> = list(&root.join("reports")).unwrap();
        assert_eq!(names.len(), JOURNAL_LIMIT);
        assert_eq!(names[0].0, 6);
        assert_eq!(
            fs::read_dir(root.join("reports")).unwrap().count(),
            JOURNAL_LIMIT,
            "no temp files left"
        );
        let all = lines(root, 0);
        assert_eq!(all.len(), JOURNAL_LIMIT);
        assert_eq!(
            all.last().unwrap().report_sequence,
            JOURNAL_LIMIT as u64 + 5
        );

        // Rising on after pruning, and past a missing directory.
        fs::remove_dir_all(root.join("reports")).unwrap();
        assert_eq!(append(root, refused("x")).unwrap().report_sequence, 1);
    }

    #[test]
    fn since_returns_only_newer_and_skips_junk() {
        let t = tempfile::tempdir().unwrap();
        let root = &Root::check(t.path()).unwrap();
        for i in 0..5 {
            append(root, refused(&format!("r{i}"))).unwrap();
        }
        let newer = lines(root, 3);
        assert_eq!(
            newer.iter().map(|r| r.report_sequence).collect::<Vec<_>>(),
            [4, 5]
        );
        assert!(lines(root, 5).is_empty());

        // Not JSON: skipped. Not a report name: ignored. Extra fields: passed on.
        fs::write(root.join("reports").join(file_name(6)), b"{torn").unwrap();
        fs::write(root.join("reports/notes.json"), b"{}").unwrap();
        let mut extra = serde_json::to_value(refused("new")).unwrap();
        extra["report_sequence"] = 7.into();
        extra["from_the_future"] = true.into();
        fs::write(
            root.join("reports").join(file_name(7)),
            serde_json::to_vec_pretty(&extra).unwrap(),
        )
        .unwrap();
        let mut out = Vec::new();
        assert_eq!(reports_since(root, 5, &mut out).unwrap(), 1);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 1, "one line per report: {text}");
        assert!(text.contains("from_the_future"));
        let r: Report = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(r.report_sequence, 7);
        // The next report rises above the junk too.
        assert_eq!(append(root, refused("y")).unwrap().report_sequence, 8);
    }

    #[test]
    fn encoding() {
        let r = Report::new(
            None,
            Outcome::Failed,
            None,
            vec![
                ResourceReport {
                    id: "module:b".into(),
                    outcome: ResourceOutcome::Removed,
                    reason: None,
                    rolled_back: None,
                    health: None,
                    secrets: Default::default(),
                },
                ResourceReport {
                    id: "module:a".into(),
                    outcome: ResourceOutcome::Ok,
                    reason: None,
                    rolled_back: None,
                    health: None,
                    secrets: Default::default(),
                },
            ],
        );
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["outcome"], "failed");
        assert_eq!(v["resources"][0]["id"], "module:a");
        assert_eq!(v["resources"][1]["outcome"], "removed");
        assert!(r.at.ends_with('Z'), "{}", r.at);
        assert_eq!(file_name(42), "00000000000000000042.json");
        assert_eq!(parse_name("00000000000000000042.json"), Some(42));
        assert_eq!(parse_name("42.json"), None);
    }
}
