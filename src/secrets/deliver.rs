//! What a push sends of secrets: for one node, the values its declaration names that it does
//! not hold, decrypted once per push (from the mesh directory's files, or the credentials a
//! provider made) and encrypted to that node's age key alone.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use mesh_proto::secret::{Delivery, Value};
use zeroize::Zeroizing;

use super::provided::{self, Edge, Provided};
use super::{Entry, Index};

/// Where a secret's value is read from.
#[derive(Clone)]
enum Source {
    /// A file of the mesh directory.
    File(Entry),
    /// Credentials a provider made.
    Made(Edge, String),
}

/// A value decrypted, or why it could not be.
type Opened = Result<Arc<Zeroizing<Vec<u8>>>, String>;

/// The values of one push, each decrypted at most once, by digest.
pub struct Values {
    identity: age::x25519::Identity,
    sources: HashMap<String, Source>,
    cache: Mutex<HashMap<String, Opened>>,
}

impl Values {
    /// The values the mesh directory's `index` and the `made` credentials hold, read with
    /// `identity` (this controller's) when a node needs them.
    pub fn new(
        identity: age::x25519::Identity,
        index: &Index,
        made: &HashMap<(String, String), Provided>,
    ) -> Values {
        let mut sources: HashMap<String, Source> = index
            .entries()
            .map(|e| (e.digest.clone(), Source::File(e.clone())))
            .collect();
        for p in made.values() {
            let Some(sealed) = &p.sealed else { continue };
            let edge = Edge {
                consumer: p.consumer.clone(),
                provider: p.provider.clone(),
                alias: p.alias.clone(),
            };
            for digest in p.digests.values() {
                sources.insert(digest.clone(), Source::Made(edge.clone(), sealed.clone()));
            }
        }
        Values {
            identity,
            sources,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The `secrets` entry to send with `declaration` (whose digest is `digest`) to `node`,
    /// known here as `pinned`, whose age key is `recipient` and that holds the values `held`;
    /// `None` when it lacks none. Why it cannot go, as a sentence: a value that cannot be read,
    /// or a key that changed and was not accepted (checked before any value is read).
    pub fn for_node(
        &self,
        declaration: &mesh_proto::wire::Declaration,
        digest: &str,
        (node, pinned, recipient): (&str, Option<&super::keys::NodeKey>, Option<&str>),
        held: &[String],
    ) -> Result<Option<Vec<u8>>, String> {
        let held: BTreeSet<&str> = held.iter().map(String::as_str).collect();
        let mut lacking: Vec<(&str, &str)> = declaration
            .modules
            .iter()
            .flat_map(|m| {
                m.secrets
                    .iter()
                    .map(move |s| (s.digest.as_str(), m.name.as_str()))
            })
            .filter(|(d, _)| !held.contains(d))
            .collect();
        lacking.sort();
        lacking.dedup_by(|a, b| a.0 == b.0);
        if lacking.is_empty() {
            return Ok(None);
        }
        super::keys::may_send(node, pinned, recipient)?;
        let recipient = recipient.ok_or(
            "the node has no age key to encrypt its secrets to (its mesh-node is older than secrets?)",
        )?;
        let recipient = mesh_proto::secret::parse_recipient(recipient)?;
        let mut delivery = Delivery {
            declaration: digest.to_string(),
            values: Vec::new(),
        };
        for (d, module) in lacking {
            let value = self.value(d, module)?;
            delivery.values.push(Value {
                digest: d.to_string(),
                hex: mesh_proto::keys::hex(&value),
            });
        }
        mesh_proto::secret::encrypt(&[recipient], &delivery.to_bytes()).map(Some)
    }

    /// The value whose keyed digest is `digest` (a secret of `module`).
    fn value(&self, digest: &str, module: &str) -> Opened {
        if let Ok(cache) = self.cache.lock()
            && let Some(v) = cache.get(digest)
        {
            return v.clone();
        }
        let read = match self.sources.get(digest) {
            None => Err(format!(
                "a secret of {module} is not in the mesh directory or the store any more (removed since the plan was made?): run again"
            )),
            Some(Source::File(entry)) => super::open(entry, &self.identity)
                .map(|o| Arc::new(o.value))
                .map_err(|e| e.to_string()),
            Some(Source::Made(edge, sealed)) => self.made(edge, sealed, digest),
        };
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(digest.to_string(), read.clone());
        }
        read
    }

    /// A value of credentials a provider made; every other value of them cached on the way.
    fn made(&self, edge: &Edge, sealed: &str, digest: &str) -> Opened {
        let all = provided::values(edge, sealed, &self.identity)?;
        let mut found = None;
        if let Ok(mut cache) = self.cache.lock() {
            for (_, (d, v)) in all {
                let v = Arc::new(v);
                if d == digest {
                    found = Some(v.clone());
                }
                cache.insert(d, Ok(v));
            }
        }
        found.ok_or_else(|| {
            format!(
                "the credentials {} made for {} no longer hold a value the declaration names: run `mesh provision {} --again`",
                edge.provider, edge.consumer, edge.provider
            )
        })
    }
}
