//! `collect`: read every node's reports newer than the last one recorded, over the transport,
//! in parallel; take each into the store by report sequence, so none is counted twice and none
//! is lost as long as a node's journal (its newest 100 reports) still holds it.

use super::elsewhere;
use super::trouble::{self, TroubleKind};
use crate::Result;
use crate::clock::now_ms;
use crate::config::MeshConfig;
use crate::deliver::account;
use crate::events::{self, Event, Fact};
use crate::store::{HEALTH, NODES, NodeRecord, Paths, STUCK_AFTER, Sent, StoreError, Writer};
use crate::transport::session::NodeSession;
use crate::transport::{Connections, ErrorKind, ReportLine, TransportError, fan_out};
use mesh_node::artifact::{SHORT, short};
use serde::Serialize;
use std::collections::BTreeMap;

/// What collecting from one node gave.
#[derive(Debug, Clone, Serialize)]
pub struct NodeCollect {
    /// The node.
    pub node: String,
    /// Reports taken in.
    pub reports: usize,
    /// Why it could not be read from, if it could not.
    pub unreachable: Option<String>,
    /// Another failure reading it (recorded against the node as its trouble).
    pub failed: Option<String>,
    /// It no longer holds the declaration it was sent (a wiped root): it will be sent again.
    pub lost: bool,
    /// It was found running another controller's declaration, newly: a push compares
    /// histories before anything else is done there.
    #[serde(skip)]
    pub elsewhere: bool,
    /// mesh was missing on the node and was installed so that its reports could be read.
    pub installed: bool,
}

impl NodeCollect {
    /// Whether collecting could not do its work on this node.
    pub fn trouble(&self) -> bool {
        self.unreachable.is_some() || self.failed.is_some()
    }
}

/// Collects from the named nodes (or all) through `sessions`; returns per-node results and the
/// facts recorded.
pub fn collect(
    paths: &Paths,
    mesh: &MeshConfig,
    names: &[String],
    sessions: &Connections,
) -> Result<(Vec<NodeCollect>, Vec<Event>)> {
    for n in names {
        mesh.node(n)?;
    }
    // This controller's key: a declaration signed by another is not one this one lost. A
    // controller without a key has signed nothing; collecting makes none.
    let me = crate::controller::open_key_if_made(&paths.dot_mesh, &mesh.controller)?
        .map(|me| me.public())
        .unwrap_or_default();
    let records: BTreeMap<String, NodeRecord> = {
        let store = paths.open()?;
        store.read(|r| Ok(crate::store::node_records(r)?.into_iter().collect()))?
    };
    let none = NodeRecord::default();
    let nodes: Vec<&String> = mesh
        .nodes
        .keys()
        .filter(|n| names.is_empty() || names.contains(n))
        .collect();
    let mut out = Vec::new();
    let mut events = Vec::new();
    let mut answers = Vec::new();
    fan_out(
        nodes,
        mesh.ssh.parallel,
        |node: &String, tx: &std::sync::mpsc::Sender<(String, Answer)>| {
            // What it holds, then what it reported: a node that was wiped or reinstalled no
            // longer holds what it was sent, and must not go on counting as current.
            // A node whose mesh is missing (a wiped root) gets it back first: its reports,
            // a failed apply's among them, are read, never taken as silence.
            let rec = records.get(node).unwrap_or(&none);
            let got = sessions.take(node).and_then(|mut taken| {
                let got = read(&mut taken.session, rec, taken.installed);
                sessions.keep(node, taken);
                got
            });
            let _ = tx.send((node.clone(), got));
        },
        |got| answers.extend(got),
    );
    // Reports can be read again by sequence, so one transaction for every node is enough:
    // one sync instead of one per node.
    let now = now_ms();
    paths.open()?.write(|w| {
        for (node, got) in answers {
            let (c, e) = record(w, &me, mesh, &node, got, now)?;
            out.push(c);
            events.extend(e);
        }
        Ok(())
    })?;
    out.sort_by(|a, b| a.node.cmp(&b.node));
    Ok((out, events))
}

/// What it holds, and its reports newer than the newest taken. Asked from one below the
/// newest taken: that very report must come back (a duplicate). When it does not, the journal
/// started again, and is read from its start (`account::answer_means_restart`).
fn read(
    session: &mut NodeSession,
    rec: &NodeRecord,
    installed: bool,
) -> Result<Collected, TransportError> {
    let have = session.have()?;
    let modules = have.modules;
    let held = have.declaration;
    let by = have.declared_by;
    // What runs is checked first, so the reports end with whether it works now.
    if held.is_some() {
        session.check()?;
    }
    let asked = account::ask_from(rec.report_sequence);
    let reports = session.reports(asked)?;
    let restarted = account::answer_means_restart(rec, &reports);
    let (reports, asked) = if restarted {
        (session.reports(0)?, 0)
    } else {
        (reports, asked)
    };
    Ok(Collected {
        held,
        modules,
        by,
        reports,
        installed,
        asked,
        restarted,
    })
}

/// What a node answered: the declaration it holds, who signed it, and its new reports.
pub struct Collected {
    /// The declaration it holds.
    pub held: Option<mesh_node::Held>,
    /// The modules of that declaration (what [`crate::store::HOLDS`] keeps).
    pub modules: Vec<mesh_proto::wire::DeclaredModule>,
    /// Who declared it, and from which commits.
    pub by: Option<mesh_node::DeclaredBy>,
    /// Its reports newer than asked.
    pub reports: Vec<ReportLine>,
    /// Whether mesh had to be installed first.
    pub installed: bool,
    /// The report sequence asked from (`report --since`).
    pub asked: u64,
    /// The journal no longer held the newest report taken: it was asked again from its start.
    pub restarted: bool,
}

type Answer = Result<Collected, TransportError>;

/// A node that answered: reachable and seen again, its reports taken, and what it holds
/// checked against what it was sent.
fn answered(
    w: &Writer,
    me: &str,
    rec: &mut NodeRecord,
    c: &mut NodeCollect,
    collected: Collected,
    now: u64,
) -> Result<Vec<Fact>, StoreError> {
    let Collected {
        held,
        modules,
        by,
        reports,
        installed,
        asked,
        restarted,
    } = collected;
    let node = c.node.as_str();
    let mut facts = Vec::new();
    let holds = serde_json::to_string(&modules).unwrap_or_else(|_| "[]".into());
    w.put(crate::store::HOLDS, node.as_bytes(), &holds)?;
    if restarted {
        account::journal_restarted(rec);
    }
    c.installed = installed;
    if rec.unreachable_since.take().is_some() {
        facts.push(Fact::Reachable {
            node: node.to_string(),
        });
    }
    rec.unreachable_reason = None;
    rec.last_seen = Some(now);
    // Its reports first: a failed apply that damaged the root is still that apply's account
    // (the failure streak goes on across the resends).
    // Another controller's declaration in force is not a lost one: history decides at the
    // next push (`deliver::elsewhere`), and its reports say whether it applied.
    let foreign = match (&held, &by) {
        (Some(h), Some(by))
            if by.controller.key != me
                && rec.sent.as_ref().is_none_or(|s| s.digest != h.digest) =>
        {
            Some(h)
        }
        _ => None,
    };
    let mut health = w.get(HEALTH, node.as_bytes())?.unwrap_or_default();
    let (taken, f) =
        account::take_reports((rec, &mut health), node, &reports, (asked, foreign), now);
    match health.modules.is_empty() {
        true => w.remove(HEALTH, node.as_bytes())?,
        false => w.put(HEALTH, node.as_bytes(), &health)?,
    }
    c.reports = taken;
    facts.extend(f);
    if let (Some(f), Some(by)) = (foreign, &by) {
        c.elsewhere = elsewhere::seen(w, node, by, f, now)?;
        // Whether it applied is the newest report about it to say: one, not one per line.
        let newest = reports
            .iter()
            .filter_map(|l| l.report.as_ref().ok())
            .filter(|r| r.declaration.as_ref() == Some(f))
            .max_by_key(|r| r.report_sequence);
        if let Some(report) = newest {
            elsewhere::reported(w, node, report)?;
        }
        // Reached: a trouble a reached node ends is over (a lost declaration of ours too:
        // the node holds a trusted one, and history decides at the next push).
        facts.extend(trouble::cleared(w, node, true)?);
        return Ok(facts);
    }
    elsewhere::cleared(w, node)?;
    // A newer declaration of ours that the node took and whose answer never came back (the
    // connection broke after `receive`): not a lost one, and not trouble; but whether it runs
    // what it applied before or the newer one is not known, so nothing is said applied (the
    // builds it last applied are kept: the facts of the next apply are about what changed).
    // The next push sends it again, and the node's answer then records it.
    let ours_newer = match (&held, &rec.sent, &by) {
        (Some(h), Some(s), Some(by)) => by.controller.key == me && h.sequence > s.sequence,
        _ => false,
    };
    let held = held.map(|h| h.digest);
    match rec.sent.clone() {
        Some(_) if ours_newer => {
            rec.applied = None;
            // Its words about the older one say nothing of what runs now.
            rec.last_report = None;
            facts.extend(trouble::cleared(w, node, false)?);
        }
        Some(sent) if held.as_ref() != Some(&sent.digest) => {
            c.lost = true;
            facts.extend(lost(w, rec, node, held.as_deref(), &sent, now)?);
        }
        _ => facts.extend(trouble::cleared(w, node, rec.applied_what_was_sent())?),
    }
    Ok(facts)
}

/// The node no longer holds the declaration it was sent (a wiped root): the send and the
/// apply are forgotten, so the next push sends it again, and it is trouble until then.
fn lost(
    w: &Writer,
    rec: &mut NodeRecord,
    node: &str,
    held: Option<&str>,
    sent: &Sent,
    now: u64,
) -> Result<Vec<Fact>, StoreError> {
    let holds = held.map_or("nothing", |h| short(h, SHORT));
    let reason = format!(
        "the node no longer holds the declaration it was sent ({}): it holds {holds}; it is sent again",
        short(&sent.digest, SHORT)
    );
    rec.sent = None;
    rec.sent_builds.clear();
    rec.applied = None;
    rec.applied_builds.clear();
    // The failed apply that lost it says "stuck" itself, once.
    let stuck = rec.failure.as_ref().is_some_and(|f| f.count >= STUCK_AFTER);
    Ok(trouble::found(w, node, TroubleKind::Lost, &reason, now)?
        .into_iter()
        .filter(|f| !(stuck && matches!(f, Fact::Stuck { .. })))
        .collect())
}

/// Takes one node's reports (or its unreachability, or its trouble) into the store, in the
/// transaction `w`.
fn record(
    w: &Writer,
    me: &str,
    mesh: &MeshConfig,
    node: &str,
    got: Answer,
    now: u64,
) -> Result<(NodeCollect, Vec<Event>), StoreError> {
    let mut rec = w.get(NODES, node.as_bytes())?.unwrap_or_default();
    let mut facts = Vec::new();
    let mut c = NodeCollect {
        node: node.to_string(),
        reports: 0,
        unreachable: None,
        failed: None,
        lost: false,
        elsewhere: false,
        installed: false,
    };
    match got {
        Ok(collected) => {
            // The builds another trusted controller halted: never declared here either. (This
            // controller's own are in its store; taking them back from declarations sent
            // before a `retry` would undo it.)
            if let Some(by) = &collected.by
                && by.controller.key != me
                && mesh.controllers.iter().any(|s| s.key == by.controller.key)
            {
                facts.extend(crate::rollout::adopt_halted(w, &by.halted, now)?);
            }
            facts.extend(answered(w, me, &mut rec, &mut c, collected, now)?)
        }
        Err(TransportError {
            kind: ErrorKind::Unreachable,
            message: reason,
            ..
        }) => {
            if rec.unreachable_since.is_none() {
                rec.unreachable_since = Some(now);
                facts.push(Fact::Unreachable {
                    node: node.to_string(),
                    reason: reason.clone(),
                });
            }
            rec.unreachable_reason = Some(reason.clone());
            c.unreachable = Some(reason);
        }
        Err(e) => {
            // Not "seen": a node whose host key changed, or whose mesh fails, did not answer.
            // Recorded against it, so that it is not called current meanwhile.
            let reason = e.to_string();
            if let Some(kind) = TroubleKind::of_error(&e) {
                facts.extend(trouble::found(w, node, kind, &reason, now)?);
            }
            c.failed = Some(reason);
        }
    }
    w.put(NODES, node.as_bytes(), &rec)?;
    let events = events::append(w, &facts, now, mesh.settings.events_keep)?;
    Ok((c, events))
}
