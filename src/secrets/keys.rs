//! Each node's age key, pinned at first sight as ssh pins a host key: a node that later says
//! another (a wiped root, a new machine behind the name, or someone who took its place) is a
//! `node-replaced` fact, and no secret goes to it until a person accepts the new key
//! (`mesh node accept NODE`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::events::Fact;
use crate::store::{Reader, StoreError, Table, Writer};

/// `node_keys`: node name → [`NodeKey`] as JSON.
pub(crate) const NODE_KEYS: Table<String> = Table::new("node_keys");

/// A node's age key as this controller knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeKey {
    /// The recipient secrets are encrypted to.
    pub pinned: String,
    /// Another the node said since, not accepted yet: no secret goes to the node.
    pub offered: Option<String>,
    /// The node id its root said with the pinned key: a key that changes with the id is the
    /// id's `node-replaced` fact, not a second one.
    #[serde(default)]
    pub id: Option<String>,
}

/// Every node's key, by node name.
pub fn all(r: &Reader) -> Result<HashMap<String, NodeKey>, StoreError> {
    Ok(r.by_name(NODE_KEYS)?
        .into_iter()
        .filter_map(|(n, json)| Some((n, serde_json::from_str(&json).ok()?)))
        .collect())
}

fn put(w: &Writer, node: &str, key: &NodeKey) -> Result<(), StoreError> {
    w.put(
        NODE_KEYS,
        node.as_bytes(),
        &serde_json::to_string(key).unwrap_or_default(),
    )
}

/// Whether secrets may go to (or credentials be taken from) a node that says `said`, known as
/// `known`: `Err` with the sentence when its key changed and nobody accepted the new one.
pub fn may_send(node: &str, known: Option<&NodeKey>, said: Option<&str>) -> Result<(), String> {
    match (known, said) {
        (Some(k), Some(said)) if k.pinned != said => Err(format!(
            "its age key changed (was {}, now {}): no secret goes to it until a person who checked the node accepts the new key with `mesh node accept {node}`",
            short(&k.pinned),
            short(said)
        )),
        _ => Ok(()),
    }
}

/// Records the key `node` said (with its root's `id`): pinned at first sight; another than the
/// pinned one is offered (one `node-replaced` fact when it first appears, unless the node id
/// changed too, which is that fact already).
pub(crate) fn said(
    w: &Writer,
    node: &str,
    key: &str,
    id: Option<&str>,
) -> Result<Vec<Fact>, StoreError> {
    let known = w
        .get(NODE_KEYS, node.as_bytes())?
        .and_then(|json| serde_json::from_str::<NodeKey>(&json).ok());
    let Some(mut known) = known else {
        put(
            w,
            node,
            &NodeKey {
                pinned: key.to_string(),
                offered: None,
                id: id.map(str::to_string),
            },
        )?;
        return Ok(Vec::new());
    };
    let replaced = known.id.is_some() && known.id.as_deref() != id;
    if known.pinned == key {
        if known.offered.take().is_some() {
            put(w, node, &known)?;
        }
        return Ok(Vec::new());
    }
    if known.offered.as_deref() == Some(key) {
        return Ok(Vec::new());
    }
    let was = known.offered.replace(key.to_string());
    put(w, node, &known)?;
    Ok((!replaced)
        .then(|| Fact::NodeReplaced {
            node: node.to_string(),
            was: format!("age key {}", short(was.as_deref().unwrap_or(&known.pinned))),
            now: format!("age key {} (not accepted yet)", short(key)),
        })
        .into_iter()
        .collect())
}

/// Accepts the key `node` offered: secrets go to it from the next push. The key accepted; an
/// error when it offered none (or not `expected`, when given).
pub fn accept(
    paths: &crate::store::Paths,
    node: &str,
    expected: Option<&str>,
) -> crate::Result<String> {
    let store = paths.open()?;
    store.write(|w| {
        let known = w
            .get(NODE_KEYS, node.as_bytes())?
            .and_then(|json| serde_json::from_str::<NodeKey>(&json).ok());
        let Some(offered) = known.as_ref().and_then(|k| k.offered.clone()) else {
            return Ok(Err(crate::Error::failed(
                format!("{node} offers no new age key to accept"),
                match &known {
                    Some(k) => format!("its pinned key is {}; `mesh node show {node}` shows it", k.pinned),
                    None => format!("mesh pins {node}'s key the first time it reaches it (`mesh push {node}`)"),
                },
            )));
        };
        if let Some(e) = expected
            && e != offered
        {
            return Ok(Err(crate::Error::failed(
                format!("{node} offers {offered}, not {e}"),
                "compare with the `age` that `ROOT/bin/mesh-node node have --root ROOT` prints on the node, and accept only the key the node really has",
            )));
        }
        put(
            w,
            node,
            &NodeKey {
                pinned: offered.clone(),
                offered: None,
                id: None,
            },
        )?;
        Ok(Ok(offered))
    })?
}

/// The first characters of a recipient, for a sentence.
fn short(key: &str) -> String {
    format!("{}…", mesh_node::artifact::short(key, 16))
}
