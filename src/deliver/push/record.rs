//! What a push's workers learnt about nodes, written to the store in one write with the
//! facts it changed.

use super::Event;
use crate::Result;
use crate::clock::now_ms;
use crate::config::MeshConfig;
use crate::deliver::elsewhere;
use crate::deliver::trouble::{self, TroubleKind};
use crate::events::{self, Fact};
use crate::store::{NODE_IDS, NODES, Paths, Relation};
/// Records what the workers learnt about nodes, and the facts it changed, in one write.
pub(super) fn record(
    paths: &Paths,
    mesh: &MeshConfig,
    learnt: Vec<Event>,
) -> Result<Vec<crate::events::Event>> {
    let store = paths.open()?;
    store
        .write(|w| {
            let now = now_ms();
            let mut facts = Vec::new();
            for ev in learnt {
                facts.extend(record_one(w, ev, now)?);
            }
            events::append(w, &facts, now, mesh.settings.events_keep)
        })
        .map_err(Into::into)
}

/// One thing learnt, in the write `w`; the facts it changed.
fn record_one(
    w: &crate::store::Writer,
    ev: Event,
    now: u64,
) -> std::result::Result<Vec<Fact>, crate::store::StoreError> {
    let node = match &ev {
        Event::Confirmed { node, .. }
        | Event::Unreachable { node, .. }
        | Event::Seen { node, .. }
        | Event::Trouble { node, .. } => node.clone(),
        Event::NodeId { node, id } => {
            let mut facts = trouble::settled(w, node, TroubleKind::SameRoot)?;
            facts.extend(node_id(w, node, id)?);
            return Ok(facts);
        }
        Event::AgeKey { node, key, id } => {
            return crate::secrets::keys::said(w, node, key, id.as_deref());
        }
        Event::Elsewhere { node, found } => {
            let mut facts = elsewhere::record(w, node, found.clone(), now)?;
            if found.relation != Relation::Newer {
                // Not declaring: whether it would trust us is no longer the question.
                facts.extend(trouble::settled(w, node, TroubleKind::Untrusted)?);
            }
            return Ok(facts);
        }
        Event::Damaged { module, artifact } => {
            return Ok(vec![Fact::ArtifactDamaged {
                module: module.clone(),
                artifact: artifact.clone(),
            }]);
        }
    };
    let mut rec = w.get(NODES, node.as_bytes())?.unwrap_or_default();
    let mut facts = Vec::new();
    if !matches!(ev, Event::Unreachable { .. }) && rec.unreachable_since.is_some() {
        facts.push(Fact::Reachable { node: node.clone() });
    }
    match ev {
        Event::Confirmed {
            sent,
            builds,
            host,
            took_over_from,
            ..
        } => {
            facts.extend(confirmed(
                w,
                &mut rec,
                &node,
                (sent, builds, host),
                took_over_from,
                now,
            )?);
        }
        Event::Seen { host, .. } => {
            rec.last_seen = Some(now);
            rec.unreachable_since = None;
            rec.unreachable_reason = None;
            if host.is_some() {
                rec.host_version = host;
            }
            // Reached and answering: a trouble no run could repair is over.
            facts.extend(trouble::cleared(w, &node, false)?);
        }
        Event::Trouble { kind, reason, .. } => {
            // Not "seen": a node that refused us, or whose mesh failed, told nothing.
            rec.unreachable_since = None;
            rec.unreachable_reason = None;
            facts.extend(trouble::found(w, &node, kind, &reason, now)?);
        }
        Event::Unreachable { reason, .. } => {
            if rec.unreachable_since.is_none() {
                rec.unreachable_since = Some(now);
                facts.push(Fact::Unreachable {
                    node: node.clone(),
                    reason: reason.clone(),
                });
            }
            rec.unreachable_reason = Some(reason);
        }
        Event::Damaged { .. }
        | Event::NodeId { .. }
        | Event::AgeKey { .. }
        | Event::Elsewhere { .. } => {}
    }
    w.put(NODES, node.as_bytes(), &rec)?;
    Ok(facts)
}

/// The node holds what it was sent: the send is recorded (a fact when it is new), and the
/// troubles only a taken send ends are over.
fn confirmed(
    w: &crate::store::Writer,
    rec: &mut crate::store::NodeRecord,
    node: &str,
    (sent, builds, host): (crate::store::Sent, Vec<(String, u64)>, String),
    took_over_from: Option<String>,
    now: u64,
) -> std::result::Result<Vec<Fact>, crate::store::StoreError> {
    elsewhere::cleared(w, node)?;
    let mut facts = trouble::settled(w, node, TroubleKind::Untrusted)?;
    facts.extend(trouble::settled(w, node, TroubleKind::NotSent)?);
    if let Some(from) = took_over_from {
        facts.push(Fact::TookOver {
            node: node.to_string(),
            from,
        });
    }
    if rec.sent.as_ref().map(|s| &s.digest) != Some(&sent.digest) {
        facts.push(Fact::Sent {
            node: node.to_string(),
            sequence: sent.sequence,
            digest: sent.digest.clone(),
        });
    }
    rec.sent = Some(sent);
    rec.sent_builds = builds;
    rec.host_version = Some(host);
    rec.last_seen = Some(now);
    rec.unreachable_since = None;
    rec.unreachable_reason = None;
    Ok(facts)
}

/// Records the id `node`'s root answered with; a changed one is a fact (the root replaced).
fn node_id(
    w: &crate::store::Writer,
    node: &str,
    id: &str,
) -> std::result::Result<Vec<Fact>, crate::store::StoreError> {
    let was = w.get(NODE_IDS, node.as_bytes())?;
    if was.as_deref() == Some(id) {
        return Ok(Vec::new());
    }
    w.put(NODE_IDS, node.as_bytes(), &id.to_string())?;
    Ok(was
        .map(|was| Fact::NodeReplaced {
            node: node.to_string(),
            was,
            now: id.to_string(),
        })
        .into_iter()
        .collect())
}
