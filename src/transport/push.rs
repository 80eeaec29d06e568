//! `push`: send each node the declaration it would be sent, when it differs from what it was
//! last sent (or was never sent anything). Nodes in parallel, bounded by `ssh.parallel`; one
//! node failing never stops the others. A send is recorded only after the node answered that it
//! holds the declaration.

use super::stream::Stream;
use super::{Answer, TransportError, for_node};
use crate::Result;
use crate::build::artifact::ArtifactStore;
use crate::clock::now_ms;
use crate::config::MeshConfig;
use crate::declare::{Composed, compose};
use crate::events::{self, Fact};
use crate::source::Snapshot;
use crate::status::account::MAX_SEQUENCE;
use crate::store::{NODES, NodeRecord, Paths, Sent};
use serde::Serialize;
use std::collections::BTreeSet;
use std::sync::mpsc;

/// Which nodes.
#[derive(Debug, Clone, Default)]
pub struct PushOptions {
    /// Named nodes only (else every node).
    pub nodes: Vec<String>,
    /// Resend even when the node is current.
    pub all: bool,
    /// Ask a node that holds its declaration but never reported applying it cleanly to apply
    /// again (what `reconcile` does: a run killed between a send and its apply converges next
    /// time, and a failed apply is tried on every pass, so that the same failure three times in
    /// a row makes the node stuck and a person is told).
    pub reapply_unanswered: bool,
}

/// What happened to one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The node holds the new declaration.
    Sent {
        /// Its sequence.
        sequence: u64,
        /// Its digest.
        digest: String,
        /// How many artifacts went over the wire.
        artifacts: usize,
        /// How many bytes of artifacts.
        bytes: u64,
        /// Whether mesh was installed on the node first.
        installed: bool,
        /// Why the apply failed or could not be run, if it did not apply cleanly (its report,
        /// read by `collect`, says more).
        apply_failed: Option<String>,
    },
    /// It already holds what it would be sent.
    Unchanged,
    /// It already held it, had not reported applying it, and was asked to apply.
    Reapplied {
        /// The sequence it holds.
        sequence: u64,
    },
    /// The mesh cannot say what it should run (spelt as `status` and `plan` spell it).
    #[serde(rename = "not worked out")]
    NotWorkedOut {
        /// Why.
        reason: String,
    },
    /// It could not be reached; it stays out of date.
    Unreachable {
        /// ssh's reason, as a sentence.
        reason: String,
    },
    /// It refused the declaration, whole.
    Refused {
        /// The node's reason.
        reason: String,
    },
    /// It was reached, and something failed there.
    Failed {
        /// What.
        reason: String,
    },
}

/// One node's line of the summary.
#[derive(Debug, Clone, Serialize)]
pub struct NodePush {
    /// The node.
    pub node: String,
    /// What happened.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// Told as each node finishes.
pub trait PushProgress: Sync {
    /// A node's outcome.
    fn node_done(&self, p: &NodePush);
}

/// What a worker tells the calling thread.
enum Msg {
    /// Something to record.
    Record(Event),
    /// A node is done.
    Done(NodePush),
    /// An artifact about to be sent did not match its digest and was removed.
    Damaged {
        /// The module it was built for.
        module: String,
        /// Its digest.
        artifact: String,
    },
}

/// What a worker tells the recorder.
enum Event {
    Confirmed {
        node: String,
        sent: Sent,
        builds: Vec<(String, u64)>,
        host: String,
    },
    Unreachable {
        node: String,
        reason: String,
    },
    Seen {
        node: String,
        host: Option<String>,
    },
    /// The node was reached and mesh could not do its work there.
    Trouble {
        node: String,
        kind: &'static str,
        reason: String,
        repairable: bool,
    },
}

/// Pushes; returns one line per node considered, sorted by node. `_validated` is the mesh as
/// read by [`Snapshot::read`]: push is never run on a mesh `plan` would refuse.
pub fn push(
    paths: &Paths,
    mesh: &MeshConfig,
    _validated: &Snapshot,
    opts: &PushOptions,
    progress: &dyn PushProgress,
) -> Result<(Vec<NodePush>, Vec<crate::events::Event>)> {
    for n in &opts.nodes {
        mesh.node(n)?;
    }
    let (composed, records) = {
        let store = paths.open()?;
        store.read(|r| {
            let declared = compose::declared(r)?;
            Ok((
                compose::compose_all(mesh, &declared),
                crate::store::node_records(r)?,
            ))
        })?
    };
    let named: BTreeSet<&str> = opts.nodes.iter().map(String::as_str).collect();
    let mut results = Vec::new();
    let mut work = Vec::new();
    for (node, c) in &composed {
        if !named.is_empty() && !named.contains(node.as_str()) {
            continue;
        }
        let rec = records.get(node).cloned().unwrap_or_default();
        match c {
            Composed::NotWorkedOut(reason) => results.push(NodePush {
                node: node.clone(),
                outcome: Outcome::NotWorkedOut {
                    reason: reason.clone(),
                },
            }),
            Composed::Ready {
                declaration,
                builds,
            } => {
                let digest = declaration.digest();
                let same = rec.sent.as_ref().is_some_and(|s| s.digest == digest);
                // Sent, and never reported on: the node holds it but may not have applied it
                // (a run killed between the send and the apply). It is asked to apply again.
                let unanswered = opts.reapply_unanswered && !rec.applied_what_was_sent();
                // A node named on the command line is asked what it holds, never answered for
                // from the store: "unchanged" is then what it said.
                let verify = same && !opts.all && !unanswered && named.contains(node.as_str());
                if same && !opts.all && !unanswered && !verify {
                    results.push(NodePush {
                        node: node.clone(),
                        outcome: Outcome::Unchanged,
                    });
                } else {
                    work.push(Work {
                        node: node.clone(),
                        declaration: declaration.clone(),
                        builds: builds.clone(),
                        nudge: same && !opts.all && !verify,
                        verify,
                        rec,
                    });
                }
            }
        }
    }
    for r in &results {
        progress.node_done(r);
    }
    if work.is_empty() {
        return Ok((results, Vec::new()));
    }

    let control = super::control_dir(mesh)?;
    let store_artifacts = ArtifactStore::new(paths.artifacts());
    let mut record_err = None;
    let mut events = Vec::new();
    let mut done = Vec::new();
    super::fan_out(
        work,
        mesh.ssh.parallel,
        |work: Work, tx: &mpsc::Sender<Msg>| {
            let t = for_node(mesh, &mesh.nodes[&work.node], control.path());
            let node = work.node.clone();
            let outcome = send_one(t.as_ref(), work, &store_artifacts, tx);
            let _ = tx.send(Msg::Done(NodePush { node, outcome }));
        },
        // Each fact is recorded as it arrives: a confirmed send is on disk before the run ends.
        |msg| match msg {
            Msg::Record(ev) => match record(paths, mesh, ev) {
                Ok(e) => events.extend(e),
                Err(e) => {
                    record_err.get_or_insert(e);
                }
            },
            Msg::Damaged { module, artifact } => {
                let fact = crate::events::Fact::ArtifactDamaged { module, artifact };
                let written = paths.open().and_then(|store| {
                    store.write(|w| events::append(w, &[fact], now_ms(), mesh.settings.events_keep))
                });
                match written {
                    Ok(e) => events.extend(e),
                    Err(e) => {
                        record_err.get_or_insert(e.into());
                    }
                }
            }
            Msg::Done(p) => {
                progress.node_done(&p);
                done.push(p);
            }
        },
    );
    if let Some(e) = record_err {
        return Err(e);
    }
    results.extend(done);
    results.sort_by(|a, b| a.node.cmp(&b.node));
    Ok((results, events))
}

/// One node to send to.
struct Work {
    node: String,
    declaration: crate::declare::Declaration,
    builds: Vec<(String, u64)>,
    rec: NodeRecord,
    /// It holds this declaration already and never reported on it: only asked to apply.
    nudge: bool,
    /// Named, and sent this declaration before: asked what it holds, sent again only when it
    /// no longer holds it.
    verify: bool,
}

fn send_one(
    t: &dyn super::Transport,
    work: Work,
    artifacts: &ArtifactStore,
    tx: &mpsc::Sender<Msg>,
) -> Outcome {
    let Work {
        node,
        declaration,
        builds,
        rec,
        nudge,
        verify,
    } = work;
    let (node, rec) = (node.as_str(), &rec);
    let unreachable = |reason: String| {
        let _ = tx.send(Msg::Record(Event::Unreachable {
            node: node.to_string(),
            reason: reason.clone(),
        }));
        Outcome::Unreachable { reason }
    };
    // Reached, and mesh could not do its work there: recorded against the node.
    let trouble = |e: TransportError, what: &str| -> Outcome {
        if let TransportError::Unreachable(r) = e {
            return unreachable(r);
        }
        let reason = format!("{what}{e}");
        if let Some((kind, repairable)) = super::trouble::kind_of(&e) {
            let _ = tx.send(Msg::Record(Event::Trouble {
                node: node.to_string(),
                kind,
                reason: reason.clone(),
                repairable,
            }));
        }
        Outcome::Failed { reason }
    };
    let mut installed = false;
    let have = match t.have() {
        Ok(h) if h.protocol >= crate::node::PROTOCOL => h,
        Ok(_) | Err(TransportError::NotInstalled(_)) => {
            if let Err(e) = t.install() {
                return trouble(e, "could not install mesh: ");
            }
            installed = true;
            match t.have() {
                Ok(h) => h,
                Err(e) => return trouble(e, ""),
            }
        }
        Err(e) => return trouble(e, ""),
    };
    let _ = tx.send(Msg::Record(Event::Seen {
        node: node.to_string(),
        host: Some(have.version.clone()),
    }));
    let digest = declaration.digest();
    if verify
        && have
            .declaration
            .as_ref()
            .is_some_and(|h| h.digest == digest)
    {
        return Outcome::Unchanged;
    }
    // The sequence rises only when a different digest is sent; never below what the node holds.
    let sequence = match &rec.sent {
        Some(s) if s.digest == digest => s.sequence,
        Some(s) => s.sequence.saturating_add(1),
        None => 1,
    };
    let sequence = match &have.declaration {
        Some(h) if h.digest == digest => h.sequence.max(sequence),
        Some(h) if h.sequence >= sequence => h.sequence.saturating_add(1),
        _ => sequence,
    };
    // Nor below what it last applied (a store restored from a backup is behind the node).
    // The same declaration it applied keeps that number (a node whose activate removed its
    // root still has its state.json rewritten).
    let sequence = match &have.applied {
        Some(a) if a.digest == digest => a.sequence.max(sequence),
        Some(a) if a.sequence >= sequence => a.sequence.saturating_add(1),
        _ => sequence,
    };
    // Bounded: never a sequence a JSON reader cannot hold exactly, never a wrap to 0.
    if sequence >= MAX_SEQUENCE {
        return trouble(
            TransportError::Failed(format!(
                "the node holds declaration sequence {}, and the next is not below 2^53: mesh will not send past it; clear the node's declaration (`rm {{root}}/declaration.json {{root}}/state.json` on the node) and push again",
                sequence.saturating_sub(1)
            )),
            "",
        );
    }
    let held: BTreeSet<&str> = have.artifacts.iter().map(String::as_str).collect();
    let mut missing: Vec<(String, std::path::PathBuf, u64)> = Vec::new();
    for m in &declaration.modules {
        if !held.contains(m.artifact.as_str()) && !missing.iter().any(|(d, _, _)| *d == m.artifact)
        {
            missing.push((m.artifact.clone(), artifacts.path(&m.artifact), m.size));
        }
    }
    // Every artifact is checked against its digest before it goes: a damaged one (a flipped
    // bit on this disk) is removed, which makes its module stale, and the next build makes
    // it again; the node is not sent a declaration it would refuse.
    for (digest, _, _) in &missing {
        if artifacts.verify(digest).unwrap_or(true) {
            continue;
        }
        let module = declaration
            .modules
            .iter()
            .find(|m| &m.artifact == digest)
            .map_or_else(String::new, |m| m.name.clone());
        let _ = artifacts.remove(digest);
        let _ = tx.send(Msg::Damaged {
            module: module.clone(),
            artifact: digest.clone(),
        });
        return Outcome::Failed {
            reason: format!(
                "the artifact of {module} ({}) in .mesh/artifacts did not match its digest and was removed; the next run builds it again",
                &digest[..digest.len().min(12)]
            ),
        };
    }
    let envelope = declaration.seal(sequence).to_bytes();
    let parts: Vec<(String, &std::path::Path, u64)> = missing
        .iter()
        .map(|(d, p, s)| (d.clone(), p.as_path(), *s))
        .collect();
    let mut stream = match Stream::new(&parts, &envelope) {
        Ok(s) => s,
        Err(e) => {
            return Outcome::Failed {
                reason: format!(
                    "an artifact is missing from .mesh/artifacts ({e}): rebuild with `mesh build`"
                ),
            };
        }
    };
    let bytes = stream.artifact_bytes;
    match t.receive(&mut stream) {
        Ok(Answer::Received {
            received,
            sequence: s,
        }) if received == digest => {
            let _ = tx.send(Msg::Record(Event::Confirmed {
                node: node.to_string(),
                sent: Sent {
                    digest: digest.clone(),
                    sequence: s,
                    at: now_ms(),
                },
                builds,
                host: have.version.clone(),
            }));
            let apply_failed = match t.apply() {
                Ok(failed) => failed,
                Err(e) => Some(e.to_string()),
            };
            if nudge {
                return match apply_failed {
                    None => Outcome::Reapplied { sequence: s },
                    Some(reason) => Outcome::Failed { reason },
                };
            }
            Outcome::Sent {
                sequence: s,
                digest,
                artifacts: missing.len(),
                bytes,
                installed,
                apply_failed,
            }
        }
        Ok(Answer::Received { received, .. }) => Outcome::Failed {
            reason: format!("the node answered digest {received}, not {digest}"),
        },
        Ok(Answer::Refused { refused }) => Outcome::Refused { reason: refused },
        Err(e) => trouble(e, ""),
    }
}

/// Records one thing learned about a node, and the facts it changed, in one write.
fn record(paths: &Paths, mesh: &MeshConfig, ev: Event) -> Result<Vec<crate::events::Event>> {
    let store = paths.open()?;
    let node = match &ev {
        Event::Confirmed { node, .. }
        | Event::Unreachable { node, .. }
        | Event::Seen { node, .. }
        | Event::Trouble { node, .. } => node.clone(),
    };
    store
        .write(|w| {
            let mut rec = w
                .get::<NodeRecord>(NODES, node.as_bytes())?
                .unwrap_or_default();
            let now = now_ms();
            let mut facts = Vec::new();
            if !matches!(ev, Event::Unreachable { .. }) && rec.unreachable_since.is_some() {
                facts.push(Fact::Reachable { node: node.clone() });
            }
            match ev {
                Event::Confirmed {
                    sent, builds, host, ..
                } => {
                    if rec.sent.as_ref().map(|s| &s.digest) != Some(&sent.digest) {
                        facts.push(Fact::Sent {
                            node: node.clone(),
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
                }
                Event::Seen { host, .. } => {
                    rec.last_seen = Some(now);
                    rec.unreachable_since = None;
                    rec.unreachable_reason = None;
                    if host.is_some() {
                        rec.host_version = host;
                    }
                    // Reached and answering: a trouble no run could repair is over.
                    facts.extend(super::trouble::cleared(w, &node, false)?);
                }
                Event::Trouble {
                    kind,
                    reason,
                    repairable,
                    ..
                } => {
                    // Not "seen": a node that refused us, or whose mesh failed, told nothing.
                    rec.unreachable_since = None;
                    rec.unreachable_reason = None;
                    facts.extend(super::trouble::found(
                        w, &node, kind, &reason, repairable, now,
                    )?);
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
            }
            w.put(NODES, node.as_bytes(), &rec)?;
            events::append(w, &facts, now, mesh.settings.events_keep)
        })
        .map_err(Into::into)
}
