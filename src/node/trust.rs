//! Which controllers a node takes declarations from (`ROOT/trust.json`), as ssh pins host
//! keys: the first controller that declares to it is pinned; the controllers listed in the
//! declaration in force (`[controllers]` of its mesh.toml) are trusted too, because a trusted
//! controller delivered them. Anything else is refused whole. Only a person re-pins a node
//! (`mesh node trust --reset`).

use serde::{Deserialize, Serialize};

use super::{Layout, NodeError, disk};
use crate::controller::Signer;
use crate::declare::wire::Envelope;

/// `ROOT/trust.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trust {
    /// The controllers the declaration in force lists.
    pub delivered: Vec<Signer>,
    /// The first controller that declared to this node.
    pub pinned: Signer,
}

impl Trust {
    /// Whether `signer`'s key is trusted (names are labels; the key is the controller).
    pub fn trusts(&self, signer: &Signer) -> bool {
        self.pinned.key == signer.key || self.delivered.iter().any(|d| d.key == signer.key)
    }

    /// "laptop (ed25519:1a2b…, pinned), cron (ed25519:3c4d…)".
    pub fn describe(&self) -> String {
        let mut words = vec![format!("{}, pinned", self.pinned.describe())];
        words.extend(
            self.delivered
                .iter()
                .filter(|d| d.key != self.pinned.key)
                .map(Signer::describe),
        );
        words.join("; ")
    }
}

/// The trust file, if any.
pub(super) fn read(layout: &Layout) -> Result<Option<Trust>, NodeError> {
    disk::read_json(&layout.trust())
}

/// Whether the node takes `envelope`: signed, by a controller it trusts (or by the first
/// one, which it pins). The trust file to write when the declaration is put in force (`None`:
/// unchanged); why not, as the refusal the controller shows.
pub(super) fn admit(layout: &Layout, envelope: &Envelope) -> Result<Option<Trust>, String> {
    let signer = envelope
        .verify()
        .map_err(|why| format!("the declaration's signature is not valid: {why}"))?;
    let delivered = envelope.declaration.controllers.clone();
    let trust = read(layout).map_err(|e| {
        format!("{e}; `mesh node trust --reset` on the controller clears it, and the next controller to declare is pinned")
    })?;
    match trust {
        None => Ok(Some(Trust {
            delivered,
            pinned: signer.clone(),
        })),
        Some(t) if t.trusts(signer) => {
            let next = Trust {
                delivered,
                pinned: t.pinned.clone(),
            };
            Ok((next != t).then_some(next))
        }
        Some(t) => Err(format!(
            "signed by {}, a controller this node does not trust; it trusts {}. Add `{} = \"{}\"` to [controllers] in the mesh.toml of a trusted controller and push from it, or re-pin the node with `mesh node trust --reset NODE`",
            signer.describe(),
            t.describe(),
            signer.name,
            signer.key
        )),
    }
}

/// Writes the trust file.
pub(super) fn write(layout: &Layout, trust: &Trust) -> Result<(), NodeError> {
    let bytes = serde_json::to_vec_pretty(trust).unwrap_or_default();
    crate::durable::write_atomic(&layout.trust(), &bytes).map_err(NodeError::from)
}

/// Whom the node at `root` trusts, if anyone yet.
pub fn trusted(root: &std::path::Path) -> Result<Option<Trust>, NodeError> {
    read(&Layout::new(root))
}

/// Forgets whom the node trusts: the next controller to declare is pinned. What it trusted.
pub fn reset(root: &std::path::Path) -> Result<Option<Trust>, NodeError> {
    let layout = Layout::new(root);
    let _lock = disk::RootLock::acquire(root, &layout.lock())?;
    let before = read(&layout)?;
    match std::fs::remove_file(layout.trust()) {
        Ok(()) => {
            crate::durable::sync_dir(root).map_err(NodeError::from)?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(NodeError::io("remove", layout.trust())(e)),
    }
    Ok(before)
}
