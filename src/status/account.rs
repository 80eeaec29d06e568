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
use crate::node::{Outcome, Report, ResourceOutcome};
use crate::store::{Failure, NodeRecord, Sent};

/// Reports a node was stuck after this many in a row.
pub const STUCK_AFTER: u64 = 3;
/// How many unreadable-report notes are kept per node.
const UNREADABLE_KEPT: usize = 5;

pub use crate::node::MAX_SEQUENCE;

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
pub fn take_reports(
    rec: &mut NodeRecord,
    node: &str,
    lines: &[&str],
    asked: u64,
    now: u64,
) -> (usize, Vec<Fact>) {
    let since = asked;
    let mut parsed: Vec<(u64, &str)> = Vec::new();
    for line in lines.iter().filter(|l| !l.trim().is_empty()) {
        let seq = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v["report_sequence"].as_u64())
            .unwrap_or(0);
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
    for (_, line) in parsed {
        let before = rec.report_sequence;
        facts.extend(account(rec, node, line, now));
        taken += usize::from(rec.report_sequence != before);
    }
    (taken, facts)
}

/// Takes one raw report line into `rec`; returns the facts it changed.
pub fn account(rec: &mut NodeRecord, node: &str, raw: &str, now: u64) -> Vec<Fact> {
    let report: Report = match serde_json::from_str(raw) {
        Ok(r) => r,
        Err(e) => {
            let shown: String = raw.chars().take(80).collect();
            note(rec, format!("unreadable report ({e}): {shown}"));
            return Vec::new();
        }
    };
    if let Some(j) = &report.journal
        && rec.journal.as_ref() != Some(j)
    {
        // A journal that started again (a wiped or reinstalled node) counts from one again.
        if rec.journal.is_some() {
            note(
                rec,
                format!("the node's report journal started again (journal {j})"),
            );
            rec.report_sequence = 0;
        }
        rec.journal = Some(j.clone());
    }
    if report.report_sequence <= rec.report_sequence {
        return Vec::new();
    }
    if report.report_sequence >= MAX_SEQUENCE {
        note(
            rec,
            format!(
                "a report claims report sequence {}, beyond any journal: not believed",
                report.report_sequence
            ),
        );
        return Vec::new();
    }
    rec.report_sequence = report.report_sequence;
    rec.host_version = Some(report.host_version.clone());
    rec.last_seen = Some(now);
    let at = humantime::parse_rfc3339(&report.at)
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(now, |d| d.as_millis() as u64);

    let Some(held) = &report.declaration else {
        // A refusal of an envelope the node could not read: no send was recorded for it.
        return vec![Fact::Refused {
            node: node.to_string(),
            resource: "declaration".into(),
            reason: report.reason.clone().unwrap_or_default(),
        }];
    };
    let Some(sent) = rec.sent.clone() else {
        note(
            rec,
            format!(
                "report {} is about declaration sequence {}, and nothing was ever sent",
                report.report_sequence, held.sequence
            ),
        );
        return Vec::new();
    };
    if held.sequence > sent.sequence
        || (held.sequence == sent.sequence && held.digest != sent.digest)
    {
        if report.outcome == Outcome::Refused {
            // A refused send is not recorded, so its refusal names a sequence beyond ours.
            return vec![Fact::Refused {
                node: node.to_string(),
                resource: "declaration".into(),
                reason: report.reason.clone().unwrap_or_default(),
            }];
        }
        note(
            rec,
            format!(
                "report {} claims declaration {} ({}), which was never sent",
                report.report_sequence,
                held.sequence,
                short(&held.digest)
            ),
        );
        return Vec::new();
    }
    if held.sequence < sent.sequence {
        return Vec::new();
    }
    rec.last_report = Some(raw.to_string());
    let mut facts = Vec::new();
    match report.outcome {
        Outcome::Applied => {
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
        }
        Outcome::Failed | Outcome::Refused => {
            let failed: Vec<&crate::node::ResourceReport> = report
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
            match &mut rec.failure {
                Some(f) if f.outcome == outcome && f.resources == resources => {
                    f.count += 1;
                    f.sequence = held.sequence;
                    f.reasons = reasons;
                    if f.count == STUCK_AFTER {
                        facts.push(Fact::Stuck {
                            node: node.to_string(),
                            resources: resources.clone(),
                        });
                    }
                }
                _ => {
                    for r in &failed {
                        facts.push(Fact::Refused {
                            node: node.to_string(),
                            resource: r.id.clone(),
                            reason: r.reason.clone().unwrap_or_default(),
                        });
                    }
                    if failed.is_empty() {
                        facts.push(Fact::Refused {
                            node: node.to_string(),
                            resource: "declaration".into(),
                            reason: report.reason.clone().unwrap_or_default(),
                        });
                    }
                    rec.failure = Some(Failure {
                        since: at,
                        count: 1,
                        outcome,
                        resources,
                        sequence: held.sequence,
                        reasons,
                    });
                }
            }
        }
    }
    facts
}

/// Keeps a note about a node's reports (the newest few).
pub fn note(rec: &mut NodeRecord, text: String) {
    rec.unreadable.push(text);
    let excess = rec.unreadable.len().saturating_sub(UNREADABLE_KEPT);
    rec.unreadable.drain(..excess);
}

fn short(d: &str) -> &str {
    d.get(..12).unwrap_or(d)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(rec.unreadable.iter().any(|u| u.contains("started again")));
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
