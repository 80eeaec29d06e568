//! Credentials a provider made for a consumer: the instantiation edge performed. A consumer's
//! manifest names `instantiation = [{ module = "db", as = "db" }]`; when db's build declares
//! `provide`, mesh runs it on a node that runs db (through the node session), and each
//! `KEY=VALUE` line it prints becomes the consumer's secret `db_KEY`.
//!
//! The node keeps what it made encrypted to the controllers (so another controller, or this
//! one with a lost store, is handed the same credentials without running `provide` again);
//! the store keeps the same encrypted copy and each secret's keyed digest, so `status` and
//! `plan` compose declarations without a network and without decrypting anything.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::config::MeshConfig;
use crate::store::{BuildRecord, Reader, StoreError, Table, Writer};
use crate::transport::Connections;

/// `provided`: consumer `/` alias → [`Provided`] as JSON.
pub(crate) const PROVIDED: Table<String> = Table::new("provided");

/// What was made for one instantiation edge (consumer, as).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provided {
    /// The module the credentials are for.
    pub consumer: String,
    /// What it calls the provider (the secrets' prefix).
    pub alias: String,
    /// The provider.
    pub provider: String,
    /// The credentials as the node kept them: age, encrypted to the controllers (hex). None
    /// until made.
    pub sealed: Option<String>,
    /// Each secret made (`<as>_<KEY>`) → its keyed digest.
    pub digests: BTreeMap<String, String>,
    /// When they were made or last handed back (unix ms), and on which node.
    pub at: u64,
    /// The node that made them.
    pub on: Option<String>,
    /// Why the last attempt failed (the credentials made before, if any, stay in use).
    pub failed: Option<String>,
}

impl Provided {
    /// Whether credentials exist to deliver.
    pub fn made(&self) -> bool {
        self.sealed.is_some() && !self.digests.is_empty()
    }
}

fn key(consumer: &str, alias: &str) -> Vec<u8> {
    format!("{consumer}/{alias}").into_bytes()
}

/// What was made, by (consumer, alias).
pub type ByEdge = HashMap<(String, String), Provided>;

/// Every record, by (consumer, alias).
pub fn all(r: &Reader) -> Result<ByEdge, StoreError> {
    Ok(r.range(PROVIDED, b"", None)?
        .into_iter()
        .filter_map(|(_, json)| serde_json::from_str::<Provided>(&json).ok())
        .map(|p| ((p.consumer.clone(), p.alias.clone()), p))
        .collect())
}

fn put(w: &Writer, p: &Provided) -> Result<(), StoreError> {
    w.put(
        PROVIDED,
        &key(&p.consumer, &p.alias),
        &serde_json::to_string(p).unwrap_or_default(),
    )
}

/// One instantiation edge whose provider declares `provide`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The consumer module.
    pub consumer: String,
    /// The provider module.
    pub provider: String,
    /// What the consumer calls it.
    pub alias: String,
}

/// The instantiation edges performed: of each declared consumer, those whose provider's
/// declared build has a `provide`.
pub fn edges(declared: &HashMap<String, BuildRecord>) -> Vec<Edge> {
    let mut out: Vec<Edge> = declared
        .values()
        .flat_map(|b| {
            b.instantiation.iter().filter_map(|i| {
                declared
                    .get(&i.module)
                    .filter(|p| p.provide.is_some())
                    .map(|_| Edge {
                        consumer: b.module.clone(),
                        provider: i.module.clone(),
                        alias: i.alias.clone(),
                    })
            })
        })
        .collect();
    out.sort_by(|a, b| (&a.consumer, &a.alias).cmp(&(&b.consumer, &b.alias)));
    out
}

/// How one edge stands, in the words `plan`, `status` and `graph` use.
pub fn state_of(p: Option<&Provided>) -> &'static str {
    match p {
        Some(p) if p.made() => "made",
        Some(p) if p.failed.is_some() => "failed",
        _ => "waiting",
    }
}

/// Why a consumer's nodes cannot be composed for want of credentials: `waiting on db (…)`.
pub fn waiting(edge: &Edge, p: Option<&Provided>) -> String {
    match p.and_then(|p| p.failed.as_deref()) {
        Some(why) => format!("waiting on {} (provide failed: {why})", edge.provider),
        None => format!(
            "waiting on {} (its credentials for {} are not made yet: the next push makes them)",
            edge.provider, edge.consumer
        ),
    }
}

/// How one instantiation edge stands, as `plan`, `status` and `graph` say it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EdgeState {
    /// The consumer module.
    pub consumer: String,
    /// The provider module.
    pub provider: String,
    /// What the consumer calls it.
    #[serde(rename = "as")]
    pub alias: String,
    /// made, waiting or failed.
    pub state: &'static str,
    /// The secrets made (names only).
    pub secrets: Vec<String>,
    /// When they were made or last handed back, and on which node.
    pub made_at: Option<String>,
    /// The node that made them.
    pub made_on: Option<String>,
    /// Why the last attempt failed.
    pub reason: Option<String>,
}

/// Every performed edge's state, from the declared builds and what was made.
pub fn states(declared: &HashMap<String, BuildRecord>, known: &ByEdge) -> Vec<EdgeState> {
    edges(declared)
        .into_iter()
        .map(|e| {
            let p = known.get(&(e.consumer.clone(), e.alias.clone()));
            EdgeState {
                state: state_of(p),
                secrets: p
                    .map(|p| p.digests.keys().cloned().collect())
                    .unwrap_or_default(),
                made_at: p.filter(|p| p.made()).map(|p| crate::clock::rfc3339(p.at)),
                made_on: p.and_then(|p| p.on.clone()),
                reason: p.and_then(|p| p.failed.clone()),
                consumer: e.consumer,
                provider: e.provider,
                alias: e.alias,
            }
        })
        .collect()
}

/// [`states`], read from the store at `paths` (none when there is no store yet).
pub fn read_states(paths: &crate::store::Paths) -> crate::Result<Vec<EdgeState>> {
    if !paths.state.exists() {
        return Ok(Vec::new());
    }
    Ok(paths
        .open()?
        .read(|r| Ok(states(&crate::store::declared_builds(r)?, &all(r)?)))?)
}

/// What [`ensure`] did for one edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provision {
    /// The edge's consumer.
    pub consumer: String,
    /// The provider.
    pub provider: String,
    /// What the consumer calls it.
    pub alias: String,
    /// What came of it.
    pub outcome: ProvisionOutcome,
    /// The node asked, or why none could do it.
    pub detail: String,
}

/// What came of asking for one edge's credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ProvisionOutcome {
    /// `provide` ran and made them.
    #[serde(rename = "made")]
    Made,
    /// The provider's node kept them from before and handed them back.
    #[serde(rename = "handed back")]
    HandedBack,
    /// No node running the provider could make them.
    #[serde(rename = "failed")]
    Failed,
}

impl std::fmt::Display for ProvisionOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ProvisionOutcome::Made => "made",
            ProvisionOutcome::HandedBack => "handed back",
            ProvisionOutcome::Failed => "failed",
        })
    }
}

/// Which edges [`ensure`] works on.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Only this provider's edges (else every edge).
    pub provider: Option<String>,
    /// Only this consumer's edges.
    pub consumer: Option<String>,
    /// Make them anew even when made (rotation).
    pub again: bool,
}

impl Scope {
    fn covers(&self, e: &Edge) -> bool {
        self.provider.as_ref().is_none_or(|p| p == &e.provider)
            && self.consumer.as_ref().is_none_or(|c| c == &e.consumer)
    }
}

/// Makes the credentials of every edge of `scope` that has none yet (or anew, with `again`:
/// rotation), asking a node that runs the provider; records what came back. The edges done.
pub fn ensure(
    paths: &crate::store::Paths,
    mesh: &MeshConfig,
    sessions: &Connections,
    scope: &Scope,
) -> crate::Result<Vec<Provision>> {
    let store = paths.open()?;
    // Most pushes have no edge to perform: they read the declared builds and nothing more.
    let (edges, known, holds, pinned) = store.read(|r| {
        let edges: Vec<Edge> = edges(&crate::store::declared_builds(r)?)
            .into_iter()
            .filter(|e| scope.covers(e))
            .collect();
        if edges.is_empty() {
            return Ok(Default::default());
        }
        Ok((
            edges,
            all(r)?,
            crate::store::node_holds(r)?,
            super::keys::all(r)?,
        ))
    })?;
    let work: Vec<(Edge, bool)> = edges
        .into_iter()
        .filter_map(|e| {
            let anew = scope.again;
            let was = known.get(&(e.consumer.clone(), e.alias.clone()));
            let made = was.is_some_and(Provided::made);
            // Made anew by another controller since (its nodes hold other digests of them):
            // asked again, and handed back what the provider's node keeps now.
            let stale = was.is_some_and(|p| rotated_elsewhere(p, &holds));
            (anew || !made || stale).then_some((e, anew))
        })
        .collect();
    if work.is_empty() {
        return Ok(Vec::new());
    }
    let me = crate::controller::open_key(&paths.dot_mesh, &mesh.controller)?;
    let recipients: Vec<String> = super::recipients(mesh, &me)?
        .iter()
        .map(ToString::to_string)
        .collect();
    let identity = crate::controller::age_identity(&me);
    let placement = mesh.placement();
    let mut done = Vec::new();
    for (edge, anew) in work {
        let nodes: Vec<&str> = placement
            .get(edge.provider.as_str())
            .map(|n| n.iter().copied().collect())
            .unwrap_or_default();
        let was = known.get(&(edge.consumer.clone(), edge.alias.clone()));
        let (record, provision) = ask(
            (sessions, &pinned),
            &edge,
            &nodes,
            (&recipients, &identity),
            anew,
            was,
        );
        store.write(|w| put(w, &record))?;
        done.push(provision);
    }
    Ok(done)
}

/// Whether a node holds the consumer declared with other credentials than `p`'s (another
/// controller made them anew).
fn rotated_elsewhere(
    p: &Provided,
    holds: &HashMap<String, Vec<mesh_proto::wire::DeclaredModule>>,
) -> bool {
    let prefix = format!("{}_", p.alias);
    holds
        .values()
        .flatten()
        .filter(|m| m.name == p.consumer)
        .any(|m| {
            m.secrets.iter().any(|s| {
                s.name.starts_with(&prefix)
                    && p.digests.get(&s.name).is_some_and(|d| d != &s.digest)
            })
        })
}

/// Asks the provider's nodes in turn until one makes (or hands back) the credentials; a node
/// whose age key changed and was not accepted is not asked (what it hands back could be
/// anyone's).
fn ask(
    (sessions, pinned): (&Connections, &HashMap<String, super::keys::NodeKey>),
    edge: &Edge,
    nodes: &[&str],
    (recipients, identity): (&[String], &age::x25519::Identity),
    again: bool,
    was: Option<&Provided>,
) -> (Provided, Provision) {
    let request = mesh_node::ProvideRequest {
        provider: edge.provider.clone(),
        consumer: edge.consumer.clone(),
        alias: edge.alias.clone(),
        again,
        recipients: recipients.to_vec(),
    };
    let mut why = Vec::new();
    for node in nodes {
        let answer = sessions
            .take(node)
            .map_err(|e| e.to_string())
            .and_then(|mut taken| {
                let a = taken
                    .session
                    .have()
                    .map_err(|e| e.to_string())
                    .and_then(|have| {
                        super::keys::may_send(node, pinned.get(*node), have.age.as_deref())?;
                        taken.session.provide(&request).map_err(|e| e.to_string())
                    });
                sessions.keep(node, taken);
                a
            });
        let made = answer.and_then(|made| read(edge, &made, identity).map(|d| (made, d)));
        match made {
            Ok((made, digests)) => {
                let record = Provided {
                    consumer: edge.consumer.clone(),
                    alias: edge.alias.clone(),
                    provider: edge.provider.clone(),
                    sealed: Some(made.sealed),
                    digests,
                    at: crate::clock::now_ms(),
                    on: Some(node.to_string()),
                    failed: None,
                };
                let outcome = match made.ran {
                    true => ProvisionOutcome::Made,
                    false => ProvisionOutcome::HandedBack,
                };
                let provision = provision(edge, outcome, format!("on {node}"));
                return (record, provision);
            }
            Err(e) => why.push(format!("{node}: {e}")),
        }
    }
    if why.is_empty() {
        why.push(format!("{} is assigned to no node", edge.provider));
    }
    let reason = why.join("; ");
    let mut record = was.cloned().unwrap_or(Provided {
        consumer: edge.consumer.clone(),
        alias: edge.alias.clone(),
        provider: edge.provider.clone(),
        sealed: None,
        digests: BTreeMap::new(),
        at: 0,
        on: None,
        failed: None,
    });
    record.failed = Some(reason.clone());
    (record, provision(edge, ProvisionOutcome::Failed, reason))
}

fn provision(edge: &Edge, outcome: ProvisionOutcome, detail: String) -> Provision {
    Provision {
        consumer: edge.consumer.clone(),
        provider: edge.provider.clone(),
        alias: edge.alias.clone(),
        outcome,
        detail,
    }
}

/// The digests of what a node handed back, decrypted with this controller's identity.
fn read(
    edge: &Edge,
    made: &mesh_node::Made,
    identity: &age::x25519::Identity,
) -> Result<BTreeMap<String, String>, String> {
    Ok(values(edge, &made.sealed, identity)?
        .into_iter()
        .map(|(name, (digest, _))| (name, digest))
        .collect())
}

/// Each secret of made credentials: name → (keyed digest, value).
pub(crate) type Values = BTreeMap<String, (String, Zeroizing<Vec<u8>>)>;

/// The secrets of sealed credentials.
pub(crate) fn values(
    edge: &Edge,
    sealed_hex: &str,
    identity: &age::x25519::Identity,
) -> Result<Values, String> {
    let sealed =
        mesh_proto::keys::unhex(sealed_hex).ok_or("the credentials handed back are not hex")?;
    let plain = mesh_proto::secret::decrypt(identity, &sealed, 1024 * 1024)
        .map_err(|why| format!("the credentials handed back: {why}"))?;
    if plain.len() < 32 {
        return Err("the credentials handed back are damaged (too short)".into());
    }
    let mut key = Zeroizing::new([0u8; 32]);
    key.copy_from_slice(&plain[..32]);
    let lines = mesh_node::checked_lines(&plain[32..], &edge.alias)?;
    let text = String::from_utf8_lossy(&lines);
    Ok(text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| {
            let value = Zeroizing::new(v.as_bytes().to_vec());
            let name = format!("{}_{k}", edge.alias);
            (name, (mesh_proto::secret::digest(&key, &value), value))
        })
        .collect())
}
