//! `collect`: read every node's reports newer than the last one recorded, over the transport,
//! in parallel; take each into the store by report sequence, so none is counted twice and none
//! is lost as long as a node's journal (its newest 100 reports) still holds it.

use super::{TransportError, for_node};
use crate::Result;
use crate::clock::now_ms;
use crate::config::MeshConfig;
use crate::events::{self, Event, Fact};
use crate::status::account;
use crate::store::{NODES, NodeRecord, Paths, StoreError, Writer};
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
    /// Another failure reading it.
    pub failed: Option<String>,
}

/// Collects from the named nodes (or all); returns per-node results and the facts recorded.
pub fn collect(
    paths: &Paths,
    mesh: &MeshConfig,
    names: &[String],
) -> Result<(Vec<NodeCollect>, Vec<Event>)> {
    for n in names {
        mesh.node(n)?;
    }
    let since: BTreeMap<String, u64> = {
        let store = paths.open()?;
        store.read(|r| {
            Ok(crate::store::node_records(r)?
                .into_iter()
                .map(|(k, v)| (k, v.report_sequence))
                .collect())
        })?
    };
    let nodes: Vec<&String> = mesh
        .nodes
        .keys()
        .filter(|n| names.is_empty() || names.contains(n))
        .collect();
    let control = super::control_dir(mesh)?;
    let mut out = Vec::new();
    let mut events = Vec::new();
    let mut answers = Vec::new();
    super::fan_out(
        nodes,
        mesh.ssh.parallel,
        |node: &String, tx: &std::sync::mpsc::Sender<(String, Answer)>| {
            let t = for_node(mesh, &mesh.nodes[node], control.path());
            // What it holds, then what it reported: a node that was wiped or reinstalled no
            // longer holds what it was sent, and must not go on counting as current.
            let got = t.have().and_then(|have| {
                let held = have.declaration.map(|h| h.digest);
                t.reports(since.get(node).copied().unwrap_or(0))
                    .map(|reports| (held, reports))
            });
            let _ = tx.send((node.clone(), got));
        },
        |got| answers.push(got),
    );
    // Reports can be read again by sequence, so one transaction for every node is enough:
    // one sync instead of one per node.
    let now = now_ms();
    paths.open()?.write(|w| {
        for (node, got) in answers {
            let (c, e) = record(w, mesh, &node, got, now)?;
            out.push(c);
            events.extend(e);
        }
        Ok(())
    })?;
    out.sort_by(|a, b| a.node.cmp(&b.node));
    Ok((out, events))
}

/// Takes one node's reports (or its unreachability) into the store, in the transaction `w`.
/// What a node answered: the digest of the declaration it holds, and its new reports.
type Answer = Result<(Option<String>, Vec<u8>), TransportError>;

fn record(
    w: &Writer,
    mesh: &MeshConfig,
    node: &str,
    got: Answer,
    now: u64,
) -> Result<(NodeCollect, Vec<Event>), StoreError> {
    let mut rec = w
        .get::<NodeRecord>(NODES, node.as_bytes())?
        .unwrap_or_default();
    let mut facts = Vec::new();
    let mut c = NodeCollect {
        node: node.to_string(),
        reports: 0,
        unreachable: None,
        failed: None,
    };
    match got {
        Ok((held, bytes)) => {
            if let Some(sent) = rec.sent.clone()
                && held.as_ref() != Some(&sent.digest)
            {
                let holds = held
                    .as_deref()
                    .map_or("nothing", |h| h.get(..12).unwrap_or(h));
                account::note(
                    &mut rec,
                    format!(
                        "the node no longer holds the declaration it was sent ({}): it holds {holds}; it will be sent again",
                        sent.digest.get(..12).unwrap_or(&sent.digest)
                    ),
                );
                rec.sent = None;
                rec.sent_builds.clear();
                rec.applied = None;
                rec.applied_builds.clear();
                rec.failure = None;
                if held.is_none() {
                    // Wiped: its report journal starts again too.
                    rec.report_sequence = 0;
                    rec.journal = None;
                }
            }
            if rec.unreachable_since.take().is_some() {
                facts.push(Fact::Reachable {
                    node: node.to_string(),
                });
            }
            rec.unreachable_reason = None;
            rec.last_seen = Some(now);
            let text = String::from_utf8_lossy(&bytes);
            let mut lines: Vec<(u64, &str)> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    let seq = serde_json::from_str::<serde_json::Value>(l)
                        .ok()
                        .and_then(|v| v["report_sequence"].as_u64())
                        .unwrap_or(0);
                    (seq, l)
                })
                .collect();
            lines.sort_by_key(|(s, _)| *s);
            for (_, line) in lines {
                let before = rec.report_sequence;
                facts.extend(account::account(&mut rec, node, line, now));
                c.reports += usize::from(rec.report_sequence > before);
            }
        }
        Err(TransportError::Unreachable(reason)) => {
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
            c.failed = Some(e.to_string());
        }
    }
    w.put(NODES, node.as_bytes(), &rec)?;
    let events = events::append(w, &facts, now, mesh.settings.events_keep)?;
    Ok((c, events))
}
