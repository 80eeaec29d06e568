//! `push`: send each node the declaration it would be sent, when it differs from what it was
//! last sent (or was never sent anything). Nodes in parallel, bounded by `ssh.parallel`; one
//! node failing never stops the others. A send is recorded only after the node answered that it
//! holds the declaration.

use super::elsewhere;
use super::trouble::TroubleKind;
use crate::Result;
use crate::clock::now_ms;
use crate::config::MeshConfig;
use crate::controller::Identity;
use crate::declare::{Composed, compose};
use crate::deliver::account::MAX_SEQUENCE;
use crate::source::Snapshot;
use crate::store::{NODE_IDS, NodeRecord, Paths, Sent};
use crate::transport::session::NodeSession;
use crate::transport::stream::{Part, Stream};
use crate::transport::{Answer, Connections, ErrorKind, TransportError, fan_out};
use mesh_node::artifact::{ArtifactStore, SHORT, short};
use mesh_node::{Have, Held};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

mod outgoing;
use outgoing::Outgoing;
mod record;
use record::record;
mod whose;

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
    /// Declare to these nodes even where another controller declared (ahead, diverged, or
    /// another plan: `--take-over`): recorded as taken over.
    pub take_over: Vec<String>,
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
        /// How many bytes of artifacts (as tars).
        bytes: u64,
        /// How many of those went over the wire (compressed where that is smaller).
        wire_bytes: u64,
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
    /// It runs what another controller declared from the same commits: it keeps it.
    Kept {
        /// The controller that declared it.
        controller: String,
        /// It held that declaration without applying it and was asked to: what the apply
        /// said (its report, read by `collect`, says whether it applied).
        #[serde(skip_serializing_if = "Option::is_none")]
        asked_to_apply: Option<String>,
    },
    /// It runs a newer commit from another controller: not declared (fetch).
    Ahead {
        /// The controller that declared it.
        controller: String,
        /// Why, as a sentence.
        reason: String,
    },
    /// It runs another controller's declaration from a diverged history: not declared.
    Diverged {
        /// The controller that declared it.
        controller: String,
        /// Why, as a sentence.
        reason: String,
    },
    /// It runs another controller's declaration from the same commits with another plan:
    /// not declared.
    Differs {
        /// The controller that declared it.
        controller: String,
        /// What differs, as a sentence.
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

/// Told as each node goes, from the worker threads, and as each finishes.
/// What a node's push is doing now, for a terminal's progress line; the cli words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Opening the node's session.
    Connecting,
    /// Sending the declaration and `artifacts` artifacts, `wire_bytes` as they travel.
    Sending {
        /// How many artifacts go with it.
        artifacts: usize,
        /// Their bytes on the wire.
        wire_bytes: u64,
    },
    /// The node applies what it was sent.
    Applying,
}

/// Told what each node's push is doing, as it happens (a terminal draws it).
pub trait PushProgress: Sync {
    /// What a node does now.
    fn node_step(&self, _node: &str, _step: Step) {}
    /// A node's outcome.
    fn node_done(&self, p: &NodePush);
}

/// What a worker tells the calling thread.
enum Msg {
    /// Something to record.
    Record(Event),
    /// A node is done.
    Done(NodePush),
}

/// What a worker tells the recorder.
enum Event {
    Confirmed {
        node: String,
        sent: Sent,
        builds: Vec<(String, u64)>,
        host: String,
        /// Taken over from this controller (`--take-over`).
        took_over_from: Option<String>,
    },
    /// What the node's root answered as its id.
    NodeId {
        node: String,
        id: String,
    },
    /// The age key the node said, with its root's id.
    AgeKey {
        node: String,
        key: String,
        id: Option<String>,
    },
    /// The node runs another controller's declaration, left in place.
    Elsewhere {
        node: String,
        found: crate::store::DeclaredElsewhere,
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
        kind: TroubleKind,
        reason: String,
    },
    /// An artifact about to be sent did not match its digest and was removed.
    Damaged {
        /// The module it was built for.
        module: String,
        /// Its digest.
        artifact: String,
    },
}

/// Pushes through `sessions`; returns one line per node considered, sorted by node.
/// `_validated` is the mesh as read by [`Snapshot::read`]: push is never run on a mesh `plan`
/// would refuse.
///
/// Credentials a consumer waits for are made first (see [`crate::secrets::provided`]); when
/// a provider could not make them because it was given its first version only by this push,
/// they are made again after it, and the nodes that waited are pushed to once more.
pub fn push(
    paths: &Paths,
    mesh: &MeshConfig,
    validated: &Snapshot,
    opts: &PushOptions,
    progress: &dyn PushProgress,
    sessions: &Connections,
) -> Result<(Vec<NodePush>, Vec<crate::events::Event>)> {
    use crate::secrets::provided::{ProvisionOutcome::Failed, Scope, ensure};
    let made = ensure(paths, mesh, sessions, &Scope::default())?;
    let (mut results, mut events, sent) =
        push_once(paths, mesh, validated, opts, progress, sessions)?;
    if sent
        && made.iter().any(|p| p.outcome == Failed)
        && ensure(paths, mesh, sessions, &Scope::default())?
            .iter()
            .any(|p| p.outcome != Failed)
    {
        let (again, more, _) = push_once(paths, mesh, validated, opts, progress, sessions)?;
        events.extend(more);
        for r in again {
            if let Some(was) = results.iter_mut().find(|w| w.node == r.node)
                && !matches!(r.outcome, Outcome::Unchanged)
            {
                *was = r;
            }
        }
    }
    Ok((results, events))
}

/// One round of [`push`]; whether it sent anything (a node sent its provider first included):
/// then a provider that could not make credentials before may now.
fn push_once(
    paths: &Paths,
    mesh: &MeshConfig,
    validated: &Snapshot,
    opts: &PushOptions,
    progress: &dyn PushProgress,
    sessions: &Connections,
) -> Result<(Vec<NodePush>, Vec<crate::events::Event>, bool)> {
    for n in opts.nodes.iter().chain(&opts.take_over) {
        mesh.node(n)?;
    }
    let (composed, records, elsewhere, ids, rolling, (keys, made)) = {
        let store = paths.open()?;
        store.read(|r| {
            let fleet = crate::rollout::Fleet::read(r)?;
            let compose::Stored {
                declared,
                composed,
                provided,
                ..
            } = compose::stored_for_push(r, mesh, &fleet)?;
            let rolling = crate::rollout::rolling(r, &declared)?;
            let ids: HashMap<String, String> = r.by_name(NODE_IDS)?;
            let secrets = (crate::secrets::keys::all(r)?, provided);
            Ok((
                composed,
                fleet.records,
                elsewhere::all(r)?,
                ids,
                rolling,
                secrets,
            ))
        })?
    };
    let (mut results, work) = sort_nodes(&composed, &records, &elsewhere, opts);
    for r in &results {
        progress.node_done(r);
    }
    if work.is_empty() {
        return Ok((results, Vec::new(), false));
    }
    let first = work.iter().any(|w| w.first.is_some());
    let me = crate::controller::open_key(&paths.dot_mesh, &mesh.controller)?;
    // Node id → the node name that holds it: a second name reaching one root is refused.
    // Only names mesh.toml still has: a forgotten name holds nothing.
    let claims = ids
        .into_iter()
        .filter(|(name, _)| mesh.nodes.contains_key(name))
        .map(|(name, id)| (id, name))
        .collect();
    let values = crate::secrets::deliver::Values::new(
        crate::controller::age_identity(&me),
        &mesh.secrets,
        &made,
    );
    let ctx = Context {
        signer: me.signer(),
        me,
        values,
        keys,
        histories: elsewhere::Histories::new(validated, &mesh.dir),
        take_over: opts.take_over.iter().cloned().collect(),
        claims: Mutex::new(claims),
        mesh: mesh.name.clone(),
        names: mesh.nodes.keys().cloned().collect(),
        roots: mesh
            .nodes
            .iter()
            .map(|(name, n)| (name.clone(), n.root.clone()))
            .collect(),
        rolling,
        trusted: mesh.controllers.iter().map(|c| c.key.clone()).collect(),
    };
    let (done, events) = send_all(paths, mesh, work, progress, sessions, &ctx)?;
    results.extend(done);
    results.sort_by(|a, b| a.node.cmp(&b.node));
    let sent = results
        .iter()
        .any(|r| matches!(r.outcome, Outcome::Sent { .. }));
    Ok((results, events, sent || first))
}

/// What every node's push shares: who signs, the histories compared, whom to take over from,
/// and which node name each node id belongs to.
struct Context {
    me: Identity,
    /// The values of the secrets a node may lack, decrypted once.
    values: crate::secrets::deliver::Values,
    /// Each node's age key as pinned here.
    keys: HashMap<String, crate::secrets::keys::NodeKey>,
    /// `me` as declarations name it.
    signer: crate::controller::Signer,
    histories: elsewhere::Histories,
    take_over: BTreeSet<String>,
    claims: Mutex<HashMap<String, String>>,
    /// This mesh's name, and its node names: a root whose declaration in force was made for
    /// another of them is that node's, whatever its id now says.
    mesh: String,
    names: BTreeSet<String>,
    /// Each node's root, for the words of what to do on it.
    roots: HashMap<String, String>,
    /// Module → the commit its rollout in progress moves the nodes to.
    rolling: HashMap<String, String>,
    /// The keys of the controllers mesh.toml lists: a build one of them halted is not sent.
    trusted: BTreeSet<String>,
}

/// Each node's push, decided from the store: its outcome when nothing is to be sent (not
/// worked out, unchanged), or the work of sending it. A node known to run another
/// controller's declaration is always asked: the store cannot say what it runs now.
fn sort_nodes(
    composed: &BTreeMap<String, Composed>,
    records: &HashMap<String, NodeRecord>,
    elsewhere: &HashMap<String, crate::store::DeclaredElsewhere>,
    opts: &PushOptions,
) -> (Vec<NodePush>, Vec<Work>) {
    let mut named: BTreeSet<&str> = opts.nodes.iter().map(String::as_str).collect();
    named.extend(opts.take_over.iter().map(String::as_str));
    let mut results = Vec::new();
    let mut work = Vec::new();
    for (node, c) in composed {
        if !named.is_empty() && !named.contains(node.as_str()) {
            continue;
        }
        let asked = named.contains(node.as_str()) || elsewhere.contains_key(node);
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
                repos,
                digest,
                first,
            } => {
                let digest = digest.clone();
                // Provider first: what it is sent depends on what it holds; asked, never
                // answered for from the store.
                let same = first.is_none() && rec.sent.as_ref().is_some_and(|s| s.digest == digest);
                // Sent, and never reported on: the node holds it but may not have applied it
                // (a run killed between the send and the apply). It is asked to apply again.
                let unanswered = opts.reapply_unanswered && !rec.applied_what_was_sent();
                // A node named on the command line is asked what it holds, never answered for
                // from the store: "unchanged" is then what it said.
                let verify = same && !opts.all && !unanswered && asked;
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
                        first: first.clone(),
                        repos: repos.clone(),
                        nudge: same && !opts.all && !verify,
                        verify,
                        rec,
                    });
                }
            }
        }
    }
    (results, work)
}

/// Sends every node its work, `ssh.parallel` at a time; each node's outcome as it ends, and
/// the facts recorded on the way.
fn send_all(
    paths: &Paths,
    mesh: &MeshConfig,
    work: Vec<Work>,
    progress: &dyn PushProgress,
    sessions: &Connections,
    ctx: &Context,
) -> Result<(Vec<NodePush>, Vec<crate::events::Event>)> {
    let outgoing = Outgoing::new(ArtifactStore::new(paths.artifacts()));
    let mut record_err = None;
    let mut events = Vec::new();
    let mut done = Vec::new();
    fan_out(
        work,
        mesh.ssh.parallel,
        |work: Work, tx: &mpsc::Sender<Msg>| {
            let node = work.node.clone();
            let waiting = work.first.as_ref().map(|f| f.waiting.clone());
            progress.node_step(&node, Step::Connecting);
            let outcome = match sessions.take(&node) {
                Ok(mut taken) => {
                    let outcome = send_one(
                        &mut taken.session,
                        taken.installed,
                        work,
                        &outgoing,
                        tx,
                        progress,
                        ctx,
                    );
                    sessions.keep(&node, taken);
                    outcome
                }
                Err(e) => trouble(&node, e, tx),
            };
            let outcome = still_waiting(outcome, waiting);
            let _ = tx.send(Msg::Done(NodePush { node, outcome }));
        },
        // What the workers learn is recorded as it arrives, all that waits in one write: a
        // confirmed send is on disk before the node is told done, and a thousand nodes cost a
        // few commits, not a thousand.
        |msgs| {
            let mut finished = Vec::new();
            let mut learnt = Vec::new();
            for msg in msgs {
                match msg {
                    Msg::Record(ev) => learnt.push(ev),
                    Msg::Done(p) => finished.push(p),
                }
            }
            if !learnt.is_empty() {
                match record(paths, mesh, learnt) {
                    Ok(e) => events.extend(e),
                    Err(e) => {
                        record_err.get_or_insert(e);
                    }
                }
            }
            for p in finished {
                progress.node_done(&p);
                done.push(p);
            }
        },
    );
    match record_err {
        Some(e) => Err(e),
        None => Ok((done, events)),
    }
}

/// A node sent its provider first still waits: said as status says it (with what was sent).
fn still_waiting(outcome: Outcome, waiting: Option<String>) -> Outcome {
    let Some(reason) = waiting else {
        return outcome;
    };
    let sent = match &outcome {
        Outcome::Sent { .. } => "; its other modules were sent first",
        Outcome::Unchanged => "",
        _ => return outcome,
    };
    Outcome::NotWorkedOut {
        reason: format!("{reason}{sent}"),
    }
}

/// One node to send to.
struct Work {
    node: String,
    declaration: crate::declare::Declaration,
    builds: Vec<(String, u64)>,
    /// Composed provider first: the modules it keeps as it holds them, and what it waits for.
    first: Option<Box<crate::declare::ProviderFirst>>,
    /// The repositories its modules come from.
    repos: BTreeSet<String>,
    rec: NodeRecord,
    /// It holds this declaration already and never reported on it: only asked to apply.
    nudge: bool,
    /// Named, and sent this declaration before: asked what it holds, sent again only when it
    /// no longer holds it.
    verify: bool,
}

/// A node that could not be reached, or where mesh could not do its work: recorded against
/// it (an unreachable node stays out of date), and its outcome.
fn trouble(node: &str, e: TransportError, tx: &mpsc::Sender<Msg>) -> Outcome {
    if e.kind == ErrorKind::Unreachable {
        let reason = e.message;
        let _ = tx.send(Msg::Record(Event::Unreachable {
            node: node.to_string(),
            reason: reason.clone(),
        }));
        return Outcome::Unreachable { reason };
    }
    let reason = e.to_string();
    if let Some(kind) = TroubleKind::of_error(&e) {
        let _ = tx.send(Msg::Record(Event::Trouble {
            node: node.to_string(),
            kind,
            reason: reason.clone(),
        }));
    }
    Outcome::Failed { reason }
}

/// Provider first: each module of `kept` as the node holds it in force (left out where it
/// holds none: nothing runs that the push would switch off).
fn keep_held(
    declaration: &mut crate::declare::Declaration,
    builds: &mut Vec<(String, u64)>,
    kept: &[String],
    have: &Have,
) {
    for m in kept {
        if let Some(h) = have.modules.iter().find(|h| &h.name == m) {
            declaration.modules.push(h.clone());
            // Its build id is the declaring store's: never taken for one of this store's.
            builds.push((m.clone(), crate::rollout::UNKNOWN));
        }
    }
    declaration.modules.sort_by(|a, b| a.name.cmp(&b.name));
    builds.sort();
}

/// What the node holds, asked and recorded (seen, its id and key); the outcome when it could
/// not be asked, or its root is another name's.
fn asked(
    session: &mut NodeSession,
    node: &str,
    ctx: &Context,
    tx: &mpsc::Sender<Msg>,
) -> std::result::Result<Have, Outcome> {
    let have = session.have().map_err(|e| trouble(node, e, tx))?;
    let _ = tx.send(Msg::Record(Event::Seen {
        node: node.to_string(),
        host: Some(have.version.clone()),
    }));
    match whose::claim(ctx, node, &have, tx) {
        Some(refused) => Err(refused),
        None => Ok(have),
    }
}

fn send_one(
    session: &mut NodeSession,
    installed: bool,
    work: Work,
    outgoing: &Outgoing,
    tx: &mpsc::Sender<Msg>,
    progress: &dyn PushProgress,
    ctx: &Context,
) -> Outcome {
    let Work {
        node,
        mut declaration,
        mut builds,
        first,
        repos,
        rec,
        nudge,
        verify,
    } = work;
    let (node, rec) = (node.as_str(), &rec);
    let have = match asked(session, node, ctx, tx) {
        Ok(have) => have,
        Err(outcome) => return outcome,
    };
    let kept = first.as_ref().map_or(&[][..], |f| &f.kept[..]);
    keep_held(&mut declaration, &mut builds, kept, &have);
    let digest = declaration.digest();
    let commits = ctx.histories.commits(&repos);
    let took_over_from =
        match whose::may_declare(ctx, node, &have, &declaration, &digest, &commits, tx) {
            Ok(from) => from,
            Err(left) => return finish_theirs(session, node, left, progress),
        };
    if verify
        && have
            .declaration
            .as_ref()
            .is_some_and(|h| h.digest == digest)
    {
        return Outcome::Unchanged;
    }
    let going = what_goes(
        ctx,
        node,
        (rec, &have),
        (&declaration, &digest),
        outgoing,
        tx,
    );
    let (sequence, parts, secrets) = match going {
        Ok(going) => going,
        Err(not_sent) => return not_sent,
    };
    let sent_artifacts = parts.len();
    let envelope = declaration
        .seal(sequence)
        .signed(&ctx.me, commits)
        .to_bytes();
    let sent = send_parts(
        session,
        node,
        (&parts, secrets.as_deref()),
        &envelope,
        progress,
    );
    let (answer, bytes, wire_bytes) = match sent {
        Ok(sent) => sent,
        Err(reason) => return not_sent(node, reason, tx),
    };
    let sending = Sending {
        node,
        digest,
        sequence,
        took_over_from,
        builds,
        host: have.version,
        nudge,
        artifacts: sent_artifacts,
        bytes,
        wire_bytes,
        installed,
    };
    answered(session, answer, sending, tx, progress)
}

/// Streams the signed envelope and the artifacts the node lacks: its answer, the artifacts'
/// bytes and the bytes on the wire; why it could not go (an artifact gone from the store).
fn send_parts(
    session: &mut NodeSession,
    node: &str,
    (parts, secrets): (&[Arc<Part>], Option<&[u8]>),
    envelope: &[u8],
    progress: &dyn PushProgress,
) -> std::result::Result<(std::result::Result<Answer, TransportError>, u64, u64), String> {
    let refs: Vec<&Part> = parts.iter().map(|p| p.as_ref()).collect();
    let mut stream = Stream::new(&refs, envelope, secrets).map_err(|e| {
        format!("an artifact is missing from .mesh/artifacts ({e}): rebuild with `mesh build`")
    })?;
    let (bytes, wire_bytes) = (stream.artifact_bytes, stream.wire_bytes);
    progress.node_step(
        node,
        Step::Sending {
            artifacts: parts.len(),
            wire_bytes,
        },
    );
    Ok((session.receive(&mut stream), bytes, wire_bytes))
}

/// What goes to a node: the sequence, the artifacts it lacks, the values it lacks (sealed).
type Going = (u64, Vec<Arc<Part>>, Option<Vec<u8>>);

/// The sequence this send takes, the artifacts the node lacks and the `secrets` entry of the
/// values it lacks (encrypted to it); the outcome when it cannot go (the sequence bound, a
/// damaged artifact, a secret that cannot be read, a node key nobody accepted).
fn what_goes(
    ctx: &Context,
    node: &str,
    (rec, have): (&NodeRecord, &Have),
    (declaration, digest): (&crate::declare::Declaration, &str),
    outgoing: &Outgoing,
    tx: &mpsc::Sender<Msg>,
) -> std::result::Result<Going, Outcome> {
    let sequence = next_sequence(digest, rec.sent.as_ref(), have);
    // Bounded: never a sequence a JSON reader cannot hold exactly, never a wrap to 0.
    if sequence >= MAX_SEQUENCE {
        let root = ctx.roots.get(node).map_or("ROOT", String::as_str);
        return Err(not_sent(
            node,
            beyond_the_bound(sequence, root).to_string(),
            tx,
        ));
    }
    // Nothing is decrypted for a node whose key changed and was not accepted.
    let key = (node, ctx.keys.get(node), have.age.as_deref());
    let secrets = ctx
        .values
        .for_node(declaration, digest, key, &have.secrets)
        .map_err(|reason| not_sent(node, reason, tx))?;
    match outgoing.missing(declaration, have, tx) {
        Ok(parts) => Ok((sequence, parts, secrets)),
        Err(reason) => Err(not_sent(node, reason, tx)),
    }
}

/// What was sent to one node, for the account of its answer.
struct Sending<'n> {
    node: &'n str,
    digest: String,
    /// The sequence it was sealed with: the node must answer with that very one.
    sequence: u64,
    took_over_from: Option<String>,
    builds: Vec<(String, u64)>,
    host: String,
    nudge: bool,
    artifacts: usize,
    bytes: u64,
    wire_bytes: u64,
    installed: bool,
}

/// The node's answer to a send: it holds the declaration (recorded, then applied), it holds
/// another, it refused it, or the conversation failed.
fn answered(
    session: &mut NodeSession,
    answer: std::result::Result<Answer, TransportError>,
    s: Sending,
    tx: &mpsc::Sender<Msg>,
    progress: &dyn PushProgress,
) -> Outcome {
    match answer {
        Ok(Answer::Received { received, sequence })
            if received == s.digest && sequence == s.sequence =>
        {
            let confirmed = Event::Confirmed {
                node: s.node.to_string(),
                sent: Sent {
                    digest: s.digest.clone(),
                    sequence,
                    at: now_ms(),
                },
                builds: s.builds,
                host: s.host,
                took_over_from: s.took_over_from,
            };
            match (
                s.nudge,
                record_and_apply(session, s.node, confirmed, tx, progress),
            ) {
                (true, None) => Outcome::Reapplied { sequence },
                (true, Some(reason)) => Outcome::Failed { reason },
                (false, apply_failed) => Outcome::Sent {
                    sequence,
                    digest: s.digest,
                    artifacts: s.artifacts,
                    bytes: s.bytes,
                    wire_bytes: s.wire_bytes,
                    installed: s.installed,
                    apply_failed,
                },
            }
        }
        Ok(Answer::Received { received, sequence }) => not_sent(
            s.node,
            format!(
                "the node answered declaration {sequence} ({}), not the {} ({}) it was sent",
                short(&received, SHORT),
                s.sequence,
                short(&s.digest, SHORT)
            ),
            tx,
        ),
        Ok(Answer::Refused { refused }) => {
            let said = format!("it refused the declaration it was sent: {refused}");
            not_sent(s.node, said, tx);
            Outcome::Refused { reason: refused }
        }
        Ok(Answer::Untrusted { untrusted }) => {
            // Refused before anything was kept, and not in the node's journal: recorded here,
            // as trouble no run repairs (a person adds this controller, or re-pins the node).
            let _ = tx.send(Msg::Record(Event::Trouble {
                node: s.node.to_string(),
                kind: TroubleKind::Untrusted,
                reason: untrusted.clone(),
            }));
            Outcome::Refused { reason: untrusted }
        }
        // Reached, and the send broke off: not a trouble a collect that reaches it ends.
        Err(e) if e.kind == ErrorKind::Failed => not_sent(s.node, e.to_string(), tx),
        Err(e) => trouble(s.node, e, tx),
    }
}

/// A send that failed on a node that was reached: recorded against it (trouble only a send
/// it takes ends, [`TroubleKind::NotSent`]), so that every verb says it needs a person meanwhile,
/// as `reconcile` does.
fn not_sent(node: &str, reason: String, tx: &mpsc::Sender<Msg>) -> Outcome {
    let _ = tx.send(Msg::Record(Event::Trouble {
        node: node.to_string(),
        kind: TroubleKind::NotSent,
        reason: reason.clone(),
    }));
    Outcome::Failed { reason }
}

/// The next sequence would not stay below 2^53: trouble a person clears on the node.
fn beyond_the_bound(sequence: u64, root: &str) -> TransportError {
    TransportError::failed(format!(
        "the node holds declaration sequence {}, and the next is not below 2^53: mesh will not send past it; clear the node's declaration (`rm {root}/declaration.json {root}/state.json` on the node) and push again",
        sequence.saturating_sub(1),
        root = root.trim_end_matches('/'),
    ))
}

/// The node confirmed it holds what it was sent: the send is recorded (before anything
/// else happens), then the node applies it. Why the apply failed, if it did.
fn record_and_apply(
    session: &mut NodeSession,
    node: &str,
    confirmed: Event,
    tx: &mpsc::Sender<Msg>,
    progress: &dyn PushProgress,
) -> Option<String> {
    let _ = tx.send(Msg::Record(confirmed));
    progress.node_step(node, Step::Applying);
    // The account takes this report from the node's journal at the next collect, in order
    // with any the node wrote before it: a push says what it sent, a collect what applied.
    match session.apply() {
        Ok(r) if r.outcome != mesh_node::Outcome::Applied => {
            Some(r.reason.unwrap_or_else(|| "the apply failed".to_string()))
        }
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    }
}

/// A node left with another controller's declaration: when it holds that declaration and never
/// applied it (that controller's answer was lost, the apply never asked), asked to apply it, as
/// its controller would have — otherwise it would stay outstanding until that controller's
/// next run, which from a laptop may never come. The node trusts that controller, and only
/// what is in force is applied; whether it applied is its report's to say.
fn finish_theirs(
    session: &mut NodeSession,
    node: &str,
    left: whose::Left,
    progress: &dyn PushProgress,
) -> Outcome {
    if !left.apply {
        return left.outcome;
    }
    progress.node_step(node, Step::Applying);
    let said = match session.apply() {
        Ok(r) if r.outcome == mesh_node::Outcome::Applied => "it applied".to_string(),
        Ok(r) => format!(
            "the apply failed: {}",
            r.reason.unwrap_or_else(|| "no reason given".to_string())
        ),
        Err(e) => format!("the apply could not be run: {e}"),
    };
    match left.outcome {
        Outcome::Kept { controller, .. } => Outcome::Kept {
            controller,
            asked_to_apply: Some(said),
        },
        Outcome::Ahead { controller, reason } => Outcome::Ahead {
            controller,
            reason: format!("{reason} ({said})"),
        },
        other => other,
    }
}

/// The sequence to send `digest` with: it rises only when a different digest is sent, and is
/// never below what the node holds in force or last applied (a store restored from a backup
/// is behind the node). The same declaration keeps its number (a node whose activate removed
/// its root still has its state.json rewritten). May reach [`MAX_SEQUENCE`]: the caller
/// refuses to send it.
pub(crate) fn next_sequence(digest: &str, sent: Option<&Sent>, have: &Have) -> u64 {
    let sequence = match sent {
        Some(s) if s.digest == digest => s.sequence,
        Some(s) => s.sequence.saturating_add(1),
        None => 1,
    };
    let at_least = |sequence: u64, held: &Option<Held>| match held {
        Some(h) if h.digest == digest => h.sequence.max(sequence),
        Some(h) if h.sequence >= sequence => h.sequence.saturating_add(1),
        _ => sequence,
    };
    let sequence = at_least(sequence, &have.declaration);
    at_least(sequence, &have.applied)
}

#[cfg(test)]
mod tests;
