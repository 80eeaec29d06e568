//! Taking a node's report into the store: the apply account, the failure streak, and the facts
//! that changed. Pure, so the rules are tested without a node.
//!
//! - Reports are taken by report sequence: one already counted is ignored.
//! - A report about a declaration older than the last one sent updates last seen and the host
//!   version, never the account of the apply, so arrival order cannot undo the newer.
//! - A failure's identity is its outcome and the sorted failed resource ids, never the words:
//!   three in a row make the node stuck; a different failure restarts at one; a clean apply
//!   clears it.

use crate::events::Fact;
use crate::store::{Failure, NodeHealth, NodeRecord, STUCK_AFTER, Sent};
use crate::transport::ReportLine;
use mesh_node::artifact::{SHORT, short};
use mesh_node::{Held, Outcome, Report, ResourceOutcome};

/// How many unreadable-report notes are kept per node.
const UNREADABLE_KEPT: usize = 5;

pub use mesh_proto::MAX_SEQUENCE;

/// What to ask a node's journal for (`report --since`): one below the newest report taken, so
/// that one comes back when the journal is the one read before.
pub(crate) fn ask_from(report_sequence: u64) -> u64 {
    report_sequence.saturating_sub(1)
}

/// Whether the answer to [`ask_from`] says the journal started again, so that it must be
/// asked again from its start (after [`journal_restarted`]): a journal that is the one read
/// before answers the newest report taken, with its sequence and journal id. An answer without
/// it comes from a journal whose files went and whose numbers restarted (or whose newest were
/// pruned by a hundred newer, which reading from the start reads just the same).
pub(crate) fn answer_means_restart(rec: &NodeRecord, answer: &[ReportLine]) -> bool {
    if rec.report_sequence == 0 {
        return false;
    }
    !answer.iter().any(|l| {
        l.sequence == rec.report_sequence
            && match (
                l.report.as_ref().ok().and_then(|r| r.journal.as_ref()),
                &rec.journal,
            ) {
                (Some(theirs), Some(ours)) => theirs == ours,
                _ => true,
            }
    })
}

/// The node's journal started again: it is read from its start. (Not a note among the
/// unreadable reports: nothing was unreadable, and a wiped node says so as its trouble.)
pub(crate) fn journal_restarted(rec: &mut NodeRecord) {
    rec.report_sequence = 0;
}

/// Takes the lines a node answered to `report --since ASKED` into `rec`, oldest first; returns
/// how many reports were taken and the facts. The controller asks from one below the newest
/// report it took, so that report comes back: as a duplicate when the journal is the one read
/// before, with another journal id when it started again.
///
/// A node answers only reports above ASKED, unless its journal holds nothing that high: then
/// the journal started again (its files removed, its numbers reset, its id perhaps kept) and it
/// answers from its start. A line at or below ASKED therefore means the journal started again,
/// and it is read from its start, so a restarted journal never freezes the account. A line
/// whose sequence is not below [`MAX_SEQUENCE`] is noted and not believed.
///
/// Reports about `foreign` (the declaration in force, which another controller signed) are
/// taken in turn and say nothing of this controller's account: that declaration is theirs.
pub(crate) fn take_reports(
    (rec, health): (&mut NodeRecord, &mut NodeHealth),
    node: &str,
    lines: &[ReportLine],
    (asked, foreign): (u64, Option<&Held>),
    now: u64,
) -> (usize, Vec<Fact>) {
    let since = asked;
    let mut parsed: Vec<(u64, &ReportLine)> = Vec::new();
    for line in lines {
        let seq = line.sequence;
        if seq >= MAX_SEQUENCE {
            note(
                rec,
                format!("a report claims report sequence {seq}, beyond any journal: not believed"),
            );
            continue;
        }
        parsed.push((seq, line));
    }
    if since > 0 && parsed.iter().any(|&(s, _)| s >= 1 && s <= since) {
        note(
            rec,
            format!(
                "the node's report journal started again (it answered reports at or below {since}): read from its start"
            ),
        );
        rec.report_sequence = 0;
    }
    parsed.sort_by_key(|&(s, _)| s);
    let mut facts = Vec::new();
    let mut taken = 0;
    // A journal holds at most JOURNAL_LIMIT reports, numbered one after another: a report
    // numbered far beyond the others of the same answer is not one it wrote in turn.
    let mut previous: Option<u64> = None;
    for (seq, line) in parsed {
        if let Some(p) = previous
            && seq > p.saturating_add(mesh_node::JOURNAL_LIMIT as u64)
        {
            note(
                rec,
                format!(
                    "a report claims report sequence {seq}, far beyond the journal's {p}: not believed"
                ),
            );
            continue;
        }
        if seq > 0 {
            previous = Some(seq);
        }
        let before = rec.report_sequence;
        facts.extend(account_of((rec, health), node, line, now, foreign));
        taken += usize::from(rec.report_sequence != before);
    }
    keep_without_health(rec);
    (taken, facts)
}

/// Takes one report into `rec` and the node's `health`; returns the facts it changed.
pub fn account(
    (rec, health): (&mut NodeRecord, &mut NodeHealth),
    node: &str,
    line: &ReportLine,
    now: u64,
) -> Vec<Fact> {
    let facts = account_of((&mut *rec, health), node, line, now, None);
    keep_without_health(rec);
    facts
}

/// [`account`], with reports about `foreign` taken and not accounted.
fn account_of(
    (rec, health): (&mut NodeRecord, &mut NodeHealth),
    node: &str,
    line: &ReportLine,
    now: u64,
    foreign: Option<&Held>,
) -> Vec<Fact> {
    let report = match &line.report {
        Ok(r) => r,
        Err(e) => {
            let shown: String = line.text.chars().take(80).collect();
            note(rec, format!("unreadable report ({e}): {shown}"));
            return Vec::new();
        }
    };
    if !take_sequence(rec, report, now) {
        return Vec::new();
    }
    let at = reported_at(report, now);
    if foreign.is_some() && report.declaration.as_ref() == foreign {
        // Another controller's declaration: not this one's account, but what runs there and
        // whether it works is the node's, whoever declared it (a rollout reads it).
        return super::health::take(health, node, report, at);
    }
    let Some(held) = &report.declaration else {
        // A refusal of an envelope the node could not read: no send was recorded for it.
        return vec![refused_declaration(node, report)];
    };
    let sent = match about_what_was_sent(rec, node, report, held) {
        Ok(sent) => sent,
        Err(facts) => return facts,
    };
    rec.last_report = Some(line.text.clone());
    let mut facts = super::health::take(health, node, report, at);
    facts.extend(match report.outcome {
        // What runs was checked: it says nothing new about the apply.
        Outcome::Checked => Vec::new(),
        Outcome::Applied => applied(rec, node, &sent, at),
        Outcome::Failed | Outcome::Refused => failed(rec, node, report, held.sequence, at),
    });
    facts
}

/// The last report kept without its modules' health, once the reports of an answer are taken
/// (not once per report): the `health` table keeps that, and every `status` reads every
/// node's last report (with fifty checked modules, health is more than half of it).
fn keep_without_health(rec: &mut NodeRecord) {
    if let Some(text) = &rec.last_report
        && text.contains("\"health\"")
    {
        rec.last_report = Some(without_health(text));
    }
}

/// A report's line as the node wrote it, without its modules' health.
fn without_health(text: &str) -> String {
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(text) else {
        return text.to_string();
    };
    if let Some(resources) = v.get_mut("resources").and_then(|r| r.as_array_mut()) {
        for r in resources {
            if let Some(o) = r.as_object_mut() {
                o.remove("health");
            }
        }
    }
    v.to_string()
}

/// Moves the record to this report's journal and report sequence, and marks the node seen;
/// false when the report is not to be taken: already counted, or numbered beyond any journal.
fn take_sequence(rec: &mut NodeRecord, report: &Report, now: u64) -> bool {
    if let Some(j) = &report.journal
        && rec.journal.as_ref() != Some(j)
    {
        // A journal that started again (a wiped or reinstalled node) counts from one again.
        if rec.journal.is_some() {
            rec.report_sequence = 0;
        }
        rec.journal = Some(j.clone());
    }
    if report.report_sequence <= rec.report_sequence {
        return false;
    }
    if report.report_sequence >= MAX_SEQUENCE {
        note(
            rec,
            format!(
                "a report claims report sequence {}, beyond any journal: not believed",
                report.report_sequence
            ),
        );
        return false;
    }
    rec.report_sequence = report.report_sequence;
    rec.host_version = Some(report.host_version.clone());
    rec.last_seen = Some(now);
    true
}

/// When the node says it wrote the report (Unix ms), or `now` when that cannot be read.
fn reported_at(report: &Report, now: u64) -> u64 {
    humantime::parse_rfc3339(&report.at)
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(now, |d| d.as_millis() as u64)
}

/// The node refused a whole declaration.
fn refused_declaration(node: &str, report: &Report) -> Fact {
    Fact::Refused {
        node: node.to_string(),
        resource: "declaration".into(),
        reason: report.reason.clone().unwrap_or_default(),
    }
}

/// The declaration last sent, when the report is about it. Otherwise the facts it states: a
/// report about an older declaration says nothing of the apply, and one about a declaration
/// never sent is noted and not believed (a refused send, never recorded, is a refusal).
fn about_what_was_sent(
    rec: &mut NodeRecord,
    node: &str,
    report: &Report,
    held: &Held,
) -> Result<Sent, Vec<Fact>> {
    let Some(sent) = rec.sent.clone() else {
        note(
            rec,
            format!(
                "report {} is about declaration sequence {}, and nothing was ever sent",
                report.report_sequence, held.sequence
            ),
        );
        return Err(Vec::new());
    };
    if held.sequence > sent.sequence
        || (held.sequence == sent.sequence && held.digest != sent.digest)
    {
        if report.outcome == Outcome::Refused {
            // A refused send is not recorded, so its refusal names a sequence beyond ours.
            return Err(vec![refused_declaration(node, report)]);
        }
        note(
            rec,
            format!(
                "report {} claims declaration {} ({}), which was never sent",
                report.report_sequence,
                held.sequence,
                short(&held.digest, SHORT)
            ),
        );
        return Err(Vec::new());
    }
    if held.sequence < sent.sequence {
        return Err(Vec::new());
    }
    Ok(sent)
}

/// A clean apply of what was sent: the failure streak ends (recovered, when it was stuck),
/// and each module now running a build it did not run before is a fact.
fn applied(rec: &mut NodeRecord, node: &str, sent: &Sent, at: u64) -> Vec<Fact> {
    let mut facts = Vec::new();
    if let Some(f) = rec.failure.take()
        && f.count >= STUCK_AFTER
    {
        facts.push(Fact::Recovered {
            node: node.to_string(),
        });
    }
    let before = std::mem::take(&mut rec.applied_builds);
    for (module, build) in &rec.sent_builds {
        if !before.contains(&(module.clone(), *build)) {
            facts.push(Fact::Applied {
                node: node.to_string(),
                module: module.clone(),
                build: *build,
            });
        }
    }
    rec.applied_builds = rec.sent_builds.clone();
    rec.applied = Some(Sent {
        digest: sent.digest.clone(),
        sequence: sent.sequence,
        at,
    });
    facts
}

/// A failed (or refused) apply of what was sent: the same failure again lengthens the streak
/// (stuck at [`STUCK_AFTER`]); a different one starts a new streak, each refusal a fact.
fn failed(rec: &mut NodeRecord, node: &str, report: &Report, sequence: u64, at: u64) -> Vec<Fact> {
    let failed: Vec<&mesh_node::ResourceReport> = report
        .resources
        .iter()
        .filter(|r| r.outcome == ResourceOutcome::Failed)
        .collect();
    let mut resources: Vec<String> = failed.iter().map(|r| r.id.clone()).collect();
    resources.sort();
    let outcome = format!("{:?}", report.outcome).to_lowercase();
    let reasons: Vec<String> = if failed.is_empty() {
        report.reason.iter().cloned().collect()
    } else {
        failed.iter().filter_map(|r| r.reason.clone()).collect()
    };
    if let Some(f) = &mut rec.failure
        && f.outcome == outcome
        && f.resources == resources
    {
        f.count += 1;
        f.sequence = sequence;
        f.reasons = reasons;
        return match f.count == STUCK_AFTER {
            true => vec![Fact::Stuck {
                node: node.to_string(),
                resources,
            }],
            false => Vec::new(),
        };
    }
    let mut facts: Vec<Fact> = failed
        .iter()
        .map(|r| Fact::Refused {
            node: node.to_string(),
            resource: r.id.clone(),
            reason: r.reason.clone().unwrap_or_default(),
        })
        .collect();
    if failed.is_empty() {
        facts.push(refused_declaration(node, report));
    }
    rec.failure = Some(Failure {
        since: at,
        count: 1,
        outcome,
        resources,
        sequence,
        reasons,
    });
    facts
}

/// Keeps a note about a node's reports (the newest few).
pub fn note(rec: &mut NodeRecord, text: String) {
    rec.unreadable.push(text);
    let excess = rec.unreadable.len().saturating_sub(UNREADABLE_KEPT);
    rec.unreadable.drain(..excess);
}

/// The account's entry points on lines as a node's journal holds them, read as the session
/// reads them: what its tests feed it.
#[cfg(test)]
mod lines {
    use super::*;

    pub(super) fn account(rec: &mut NodeRecord, node: &str, raw: &str, now: u64) -> Vec<Fact> {
        let mut health = NodeHealth::default();
        super::account(
            (rec, &mut health),
            node,
            &ReportLine::read(raw.as_bytes()),
            now,
        )
    }

    pub(super) fn take_reports(
        rec: &mut NodeRecord,
        node: &str,
        lines: &[&str],
        asked: (u64, Option<&Held>),
        now: u64,
    ) -> (usize, Vec<Fact>) {
        let lines: Vec<ReportLine> = lines
            .iter()
            .map(|l| ReportLine::read(l.as_bytes()))
            .collect();
        super::take_reports((rec, &mut NodeHealth::default()), node, &lines, asked, now)
    }

    pub(super) fn answer_means_restart(rec: &NodeRecord, answer: &[u8]) -> bool {
        super::answer_means_restart(rec, &ReportLine::read_all(answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lines::{account, answer_means_restart, take_reports};

    fn sent(rec: &mut NodeRecord, seq: u64) {
        rec.sent = Some(Sent {
            digest: format!("d{seq}"),
            sequence: seq,
            at: 0,
        });
        rec.sent_builds = vec![("web".into(), seq)];
    }

    fn report(n: u64, seq: u64, outcome: &str, failed: &[(&str, &str)]) -> String {
        let resources: Vec<serde_json::Value> = failed
            .iter()
            .map(|(id, why)| serde_json::json!({"id": id, "outcome": "failed", "reason": why}))
            .collect();
        serde_json::json!({
            "report_sequence": n,
            "declaration": {"digest": format!("d{seq}"), "sequence": seq},
            "outcome": outcome,
            "reason": null,
            "resources": resources,
            "host_version": "0.1.0",
            "at": format!("2026-11-29T10:00:{:02}Z", n),
        })
        .to_string()
    }

    #[test]
    fn three_identical_failures_are_stuck_since_the_first() {
        let mut rec = NodeRecord::default();
        sent(&mut rec, 5);
        let f1 = account(
            &mut rec,
            "n",
            &report(1, 5, "failed", &[("module:web", "exit 1 after 3s")]),
            0,
        );
        assert_eq!(f1.len(), 1);
        assert!(matches!(f1[0], Fact::Refused { .. }));
        let f2 = account(
            &mut rec,
            "n",
            &report(2, 5, "failed", &[("module:web", "exit 1 after 4s")]),
            0,
        );
        assert!(
            f2.is_empty(),
            "the same failure in other words is no new fact"
        );
        let f3 = account(
            &mut rec,
            "n",
            &report(3, 5, "failed", &[("module:web", "exit 1 after 5s")]),
            0,
        );
        assert_eq!(
            f3,
            vec![Fact::Stuck {
                node: "n".into(),
                resources: vec!["module:web".into()]
            }]
        );
        let f = rec.failure.clone().expect("failure");
        assert_eq!(f.count, 3);
        let first = humantime::parse_rfc3339("2026-11-29T10:00:01Z").expect("t");
        assert_eq!(
            f.since,
            first
                .duration_since(std::time::UNIX_EPOCH)
                .expect("d")
                .as_millis() as u64
        );
        assert_eq!(f.reasons, vec!["exit 1 after 5s".to_string()]);
    }

    #[test]
    fn a_different_failure_restarts_and_a_clean_apply_clears() {
        let mut rec = NodeRecord::default();
        sent(&mut rec, 5);
        account(
            &mut rec,
            "n",
            &report(1, 5, "failed", &[("module:web", "x")]),
            0,
        );
        account(
            &mut rec,
            "n",
            &report(2, 5, "failed", &[("module:web", "x")]),
            0,
        );
        account(
            &mut rec,
            "n",
            &report(3, 5, "failed", &[("module:db", "y")]),
            0,
        );
        assert_eq!(rec.failure.as_ref().map(|f| f.count), Some(1));
        account(
            &mut rec,
            "n",
            &report(4, 5, "failed", &[("module:db", "y")]),
            0,
        );
        let stuck = account(
            &mut rec,
            "n",
            &report(5, 5, "failed", &[("module:db", "y")]),
            0,
        );
        assert!(matches!(stuck[0], Fact::Stuck { .. }));
        let clean = account(&mut rec, "n", &report(6, 5, "applied", &[]), 0);
        assert!(rec.failure.is_none());
        assert!(clean.contains(&Fact::Recovered { node: "n".into() }));
        assert!(clean.contains(&Fact::Applied {
            node: "n".into(),
            module: "web".into(),
            build: 5
        }));
        assert_eq!(rec.applied.as_ref().map(|a| a.sequence), Some(5));
    }

    #[test]
    fn two_identical_clean_reports_make_one_fact() {
        let mut rec = NodeRecord::default();
        sent(&mut rec, 2);
        assert_eq!(
            account(&mut rec, "n", &report(1, 2, "applied", &[]), 0).len(),
            1
        );
        assert!(account(&mut rec, "n", &report(2, 2, "applied", &[]), 0).is_empty());
        // Counted once however often it is collected.
        assert!(account(&mut rec, "n", &report(2, 2, "applied", &[]), 0).is_empty());
        assert_eq!(rec.report_sequence, 2);
    }

    #[test]
    fn an_older_declaration_does_not_change_the_account() {
        let mut rec = NodeRecord::default();
        sent(&mut rec, 4);
        account(&mut rec, "n", &report(1, 4, "applied", &[]), 0);
        sent(&mut rec, 5);
        let before = rec.clone();
        let facts = account(
            &mut rec,
            "n",
            &report(2, 4, "failed", &[("module:web", "late")]),
            99,
        );
        assert!(facts.is_empty());
        assert_eq!(rec.applied, before.applied);
        assert_eq!(rec.failure, None);
        assert_eq!(rec.last_seen, Some(99));
        assert_eq!(rec.report_sequence, 2);
    }

    #[test]
    fn a_journal_that_starts_again_is_read_again() {
        let mut rec = NodeRecord::default();
        sent(&mut rec, 3);
        let with = |r: String, j: &str| {
            let mut v: serde_json::Value = serde_json::from_str(&r).expect("json");
            v["journal"] = serde_json::json!(j);
            v.to_string()
        };
        account(
            &mut rec,
            "n",
            &with(report(7, 3, "failed", &[("module:web", "x")]), "aaa"),
            0,
        );
        assert_eq!(rec.report_sequence, 7);
        // The node was wiped: its new journal counts from 1, and is not ignored.
        let facts = account(&mut rec, "n", &with(report(1, 3, "applied", &[]), "bbb"), 0);
        assert_eq!(rec.report_sequence, 1);
        assert!(facts.contains(&Fact::Applied {
            node: "n".into(),
            module: "web".into(),
            build: 3
        }));
        assert!(rec.unreadable.is_empty(), "nothing was unreadable");
    }

    #[test]
    fn a_report_numbered_far_beyond_the_journal_is_not_believed() {
        let mut rec = NodeRecord::default();
        sent(&mut rec, 5);
        let lie = {
            let mut v: serde_json::Value =
                serde_json::from_str(&report(3, 5, "applied", &[])).expect("json");
            v["report_sequence"] = serde_json::json!(1_000_000);
            v.to_string()
        };
        let answer = [
            report(1, 5, "failed", &[("module:web", "x")]),
            report(2, 5, "failed", &[("module:web", "x")]),
            lie,
        ];
        // Collected twice: the node answers the files (numbered 1, 2, 3) above what is asked.
        for _ in 0..2 {
            let asked = ask_from(rec.report_sequence);
            let lines: Vec<&str> = answer
                .iter()
                .zip(1u64..)
                .filter(|(_, file)| *file > asked)
                .map(|(l, _)| l.as_str())
                .collect();
            assert!(!answer_means_restart(&rec, lines.join("\n").as_bytes()));
            take_reports(&mut rec, "n", &lines, (asked, None), 0);
        }
        assert_eq!(rec.report_sequence, 2);
        assert!(rec.applied.is_none(), "the lie claimed an apply");
        assert_eq!(
            rec.failure.as_ref().map(|f| f.count),
            Some(2),
            "counted once"
        );
        assert!(rec.unreadable.iter().any(|u| u.contains("far beyond")));
    }

    #[test]
    fn bad_reports_are_recorded_as_what_they_are() {
        let mut rec = NodeRecord::default();
        sent(&mut rec, 1);
        assert!(account(&mut rec, "n", "{\"report_sequence\": 1, \"trunc", 0).is_empty());
        assert!(account(&mut rec, "n", "not json", 0).is_empty());
        assert!(account(&mut rec, "n", &report(1, 9, "applied", &[]), 0).is_empty());
        assert_eq!(rec.unreadable.len(), 3);
        assert!(
            rec.unreadable[2].contains("never sent"),
            "{:?}",
            rec.unreadable
        );
        assert!(rec.applied.is_none());
        // Unknown fields from a newer node are fine.
        let mut v: serde_json::Value =
            serde_json::from_str(&report(2, 1, "applied", &[])).expect("json");
        v["surprise"] = serde_json::json!({"x": 1});
        account(&mut rec, "n", &v.to_string(), 0);
        assert_eq!(rec.applied.as_ref().map(|a| a.sequence), Some(1));
    }
}

/// The property: over any sequence of reports a node's journal may answer (duplicates, gaps,
/// restarts, garbage, out of order, about declarations never sent or older), the account
/// never claims an apply the journal did not report, and never stops reading newer reports.
#[cfg(test)]
mod journal_property {
    use super::*;
    use lines::{answer_means_restart, take_reports};
    use proptest::prelude::*;

    /// The declaration the controller sent: sequence 5.
    const SENT: u64 = 5;
    /// A small journal bound, so pruning happens.
    const LIMIT: usize = 6;

    #[derive(Debug, Clone)]
    enum Op {
        /// The node applies and reports: applied or failed, about declaration `about`.
        Report { applied: bool, about: u64 },
        /// A file that is not a report the node wrote: not JSON, or with a lying sequence.
        Garbage { lie: Option<u64> },
        /// The journal's files are removed (a wiped or reinstalled node): a new journal id.
        Restart,
        /// The controller collects; the node answers out of order, some lines twice.
        Collect { shuffle: u64, dup: bool },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (any::<bool>(), prop_oneof![3 => Just(SENT), 1 => 1..SENT, 1 => SENT + 1..SENT + 3])
                .prop_map(|(applied, about)| Op::Report { applied, about }),
            1 => prop::option::of(prop_oneof![
                Just(u64::MAX),
                Just(MAX_SEQUENCE),
                Just(MAX_SEQUENCE - 1),
                0..1_000_000u64
            ])
            .prop_map(|lie| Op::Garbage { lie }),
            1 => Just(Op::Restart),
            3 => (any::<u64>(), any::<bool>()).prop_map(|(shuffle, dup)| Op::Collect { shuffle, dup }),
        ]
    }

    /// A node's journal as `report --since` serves it: files named by sequence, the name
    /// being the sequence, the newest [`LIMIT`] kept.
    struct Journal {
        id: u32,
        next: u64,
        files: Vec<(u64, String)>,
    }

    impl Journal {
        fn push(&mut self, line: String) {
            self.files.push((self.next, line));
            self.next += 1;
            let excess = self.files.len().saturating_sub(LIMIT);
            self.files.drain(..excess);
        }

        /// What the node answers to `report --since asked` (an old node: lines as written).
        fn since(&self, asked: u64) -> Vec<String> {
            let highest = self.files.last().map_or(0, |f| f.0);
            let asked = if asked > highest { 0 } else { asked };
            self.files
                .iter()
                .filter(|f| f.0 > asked)
                .map(|f| f.1.clone())
                .collect()
        }
    }

    fn line(seq: u64, journal: u32, applied: bool, about: u64) -> String {
        let resources = if applied {
            serde_json::json!([{"id": "module:web", "outcome": "ok", "reason": null}])
        } else {
            serde_json::json!([{"id": "module:web", "outcome": "failed", "reason": "exit 1"}])
        };
        serde_json::json!({
            "report_sequence": seq,
            "declaration": {"digest": format!("d{about}"), "sequence": about},
            "outcome": if applied { "applied" } else { "failed" },
            "reason": null,
            "resources": resources,
            "host_version": "0.1.0",
            "at": "2026-11-29T10:00:00Z",
            "journal": format!("j{journal}"),
        })
        .to_string()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn the_account_follows_the_journal(ops in prop::collection::vec(op(), 1..60)) {
            let mut rec = NodeRecord {
                sent: Some(Sent { digest: format!("d{SENT}"), sequence: SENT, at: 0 }),
                sent_builds: vec![("web".into(), 9)],
                ..NodeRecord::default()
            };
            let mut j = Journal { id: 0, next: 1, files: Vec::new() };
            // Whether the node ever reported applying the declaration sent.
            let mut reported_applied = false;
            // The newest report about the declaration sent, not yet collected and still in the
            // journal: (its sequence, its outcome).
            let mut newest: Option<(u64, bool)> = None;
            for op in ops {
                match op {
                    Op::Report { applied, about } => {
                        if about == SENT {
                            reported_applied |= applied;
                            newest = Some((j.next, applied));
                        }
                        j.push(line(j.next, j.id, applied, about));
                    }
                    Op::Garbage { lie: None } => j.push("{\"report_sequence\": 3, \"trunc".into()),
                    Op::Garbage { lie: Some(seq) } => {
                        // A report that lies about its sequence; it is about nothing sent.
                        let l = line(seq, j.id, true, SENT + 7);
                        j.push(l);
                    }
                    Op::Restart => {
                        j = Journal { id: j.id + 1, next: 1, files: Vec::new() };
                        // What was never collected is gone with it.
                        newest = None;
                    }
                    Op::Collect { shuffle, dup } => {
                        let mut asked = ask_from(rec.report_sequence);
                        let mut lines = j.since(asked);
                        if answer_means_restart(&rec, lines.join("\n").as_bytes()) {
                            journal_restarted(&mut rec);
                            asked = 0;
                            lines = j.since(0);
                        }
                        if dup && !lines.is_empty() {
                            let again = lines[(shuffle as usize) % lines.len()].clone();
                            lines.push(again);
                        }
                        // Out of order: rotate by a random amount.
                        if !lines.is_empty() {
                            let k = (shuffle as usize) % lines.len();
                            lines.rotate_left(k);
                        }
                        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
                        take_reports(&mut rec, "n", &refs, (asked, None), 0);
                        // Never an apply the journal did not report.
                        prop_assert!(
                            !rec.applied_what_was_sent() || reported_applied,
                            "claims an apply never reported: {rec:?}"
                        );
                        // Never stops reading newer reports: the newest one about the
                        // declaration sent is what the account says now.
                        let held = |s: u64| j.files.iter().any(|f| f.0 == s);
                        if let Some((_, applied)) = newest.take().filter(|&(s, _)| held(s)) {
                            if applied {
                                prop_assert!(rec.applied_what_was_sent() && rec.failure.is_none(),
                                    "a newer clean apply was not read: {rec:?}");
                            } else {
                                prop_assert!(rec.failure_of_sent().is_some(),
                                    "a newer failure was not read: {rec:?}");
                            }
                        }
                    }
                }
            }
        }
    }
}
