//! Trouble on a node: what stopped `push` or `collect` doing its work there, recorded against
//! the node in the transaction that learned it, so that no verb calls the node current
//! meanwhile and the facts say so once, when it begins or changes.

use crate::events::Fact;
use crate::store::{StoreError, TROUBLE, TROUBLE_AFTER, Trouble, Writer, identity_of};
use crate::transport::{ErrorKind, TransportError};

/// What kind of trouble a node is in. Stored as the first words of a trouble's identity
/// (`"lost: …"`), the words [`TroubleKind::as_str`] gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TroubleKind {
    /// The node's ssh refused this controller (a changed host key, a refused key).
    Refused,
    /// The node's mesh-node is missing or older, and installing it failed.
    NotInstalled,
    /// The node was reached and the call failed there.
    Failed,
    /// The node no longer holds the declaration it was sent.
    Lost,
    /// The node refused our signature: it does not trust this controller.
    Untrusted,
    /// The node was reached and the send failed there: it refused the declaration (its words
    /// say why), answered another, broke off while receiving it, or it could not go (a
    /// damaged artifact, the sequence bound). Only a send it takes ends it: reaching it to
    /// collect does not.
    NotSent,
    /// Another node name of this mesh reaches the same node root.
    SameRoot,
}

impl TroubleKind {
    /// Every kind.
    const ALL: [TroubleKind; 7] = [
        TroubleKind::Refused,
        TroubleKind::NotInstalled,
        TroubleKind::Failed,
        TroubleKind::Lost,
        TroubleKind::Untrusted,
        TroubleKind::NotSent,
        TroubleKind::SameRoot,
    ];

    /// The words stored and shown for it.
    pub fn as_str(self) -> &'static str {
        match self {
            TroubleKind::Refused => "refused",
            TroubleKind::NotInstalled => "not installed",
            TroubleKind::Failed => "failed",
            TroubleKind::Lost => "lost",
            TroubleKind::Untrusted => "untrusted",
            TroubleKind::NotSent => "not sent",
            TroubleKind::SameRoot => "same root",
        }
    }

    /// Whether a run can repair it (install again, send again): such trouble that comes back
    /// [`TROUBLE_AFTER`] times is stuck; the rest needs a person at once.
    pub(crate) fn repairable(self) -> bool {
        matches!(self, TroubleKind::NotInstalled | TroubleKind::Lost)
    }

    /// Whether only the push that found it can say it is over (a send it trusts, a node id no
    /// other name holds): reaching the node does not end it.
    pub(crate) fn push_decides(self) -> bool {
        matches!(
            self,
            TroubleKind::Untrusted | TroubleKind::SameRoot | TroubleKind::NotSent
        )
    }

    /// The kind of a stored trouble, from its identity's first words.
    fn of(t: &Trouble) -> Option<TroubleKind> {
        let (kind, _) = t.identity.split_once(": ")?;
        TroubleKind::ALL.into_iter().find(|k| k.as_str() == kind)
    }

    /// What a transport error means for the node; none for an unreachable one (a fact about
    /// reachability, not trouble on the node).
    pub(crate) fn of_error(e: &TransportError) -> Option<TroubleKind> {
        match e.kind {
            ErrorKind::Unreachable => None,
            ErrorKind::Refused => Some(TroubleKind::Refused),
            ErrorKind::NotInstalled => Some(TroubleKind::NotInstalled),
            ErrorKind::Failed => Some(TroubleKind::Failed),
        }
    }
}

/// Records that `kind` of trouble was found on `node`: the streak goes on when it is the same
/// trouble, starts at one when it is new. Returns the facts it changed: `trouble` when it
/// begins or changes, `stuck` when a repairable trouble came back [`TROUBLE_AFTER`] times.
pub fn found(
    w: &Writer,
    node: &str,
    kind: TroubleKind,
    reason: &str,
    now: u64,
) -> Result<Vec<Fact>, StoreError> {
    let repairable = kind.repairable();
    let identity = format!("{}: {}", kind.as_str(), identity_of(reason));
    let old = w.get(TROUBLE, node.as_bytes())?;
    let mut facts = Vec::new();
    let t = match old {
        Some(mut t) if t.identity == identity => {
            t.count += 1;
            t.reason = reason.to_string();
            if repairable && t.count == TROUBLE_AFTER {
                facts.push(Fact::Stuck {
                    node: node.to_string(),
                    resources: vec![kind.as_str().to_string()],
                });
            }
            t
        }
        _ => {
            facts.push(Fact::Trouble {
                node: node.to_string(),
                reason: reason.to_string(),
            });
            Trouble {
                since: now,
                count: 1,
                identity,
                reason: reason.to_string(),
                repairable,
            }
        }
    };
    w.put(TROUBLE, node.as_bytes(), &t)?;
    Ok(facts)
}

/// The node was worked on: a trouble a run cannot repair is over. A repairable one (a lost
/// declaration) is over only when `repaired` says the repair held (a clean apply). One only a
/// push decides ([`TroubleKind::push_decides`]) stays.
pub(crate) fn cleared(w: &Writer, node: &str, repaired: bool) -> Result<Vec<Fact>, StoreError> {
    let Some(t) = w.get(TROUBLE, node.as_bytes())? else {
        return Ok(Vec::new());
    };
    if t.repairable && !repaired {
        return Ok(Vec::new());
    }
    if TroubleKind::of(&t).is_some_and(TroubleKind::push_decides) {
        return Ok(Vec::new());
    }
    end(w, node, &t)
}

/// The push found that trouble of `kind` is over (the node took what we signed; no other
/// name holds its root).
pub fn settled(w: &Writer, node: &str, kind: TroubleKind) -> Result<Vec<Fact>, StoreError> {
    match w.get(TROUBLE, node.as_bytes())? {
        Some(t) if TroubleKind::of(&t) == Some(kind) => end(w, node, &t),
        _ => Ok(Vec::new()),
    }
}

fn end(w: &Writer, node: &str, t: &Trouble) -> Result<Vec<Fact>, StoreError> {
    w.remove(TROUBLE, node.as_bytes())?;
    Ok(if t.needs_a_person() {
        vec![Fact::Recovered {
            node: node.to_string(),
        }]
    } else {
        Vec::new()
    })
}

/// Every node's trouble, by node name.
pub fn all(
    r: &crate::store::Reader,
) -> Result<std::collections::HashMap<String, Trouble>, StoreError> {
    r.by_name(TROUBLE)
}
