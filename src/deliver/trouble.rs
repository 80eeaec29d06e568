//! Trouble on a node: what stopped `push` or `collect` doing its work there, recorded against
//! the node in the transaction that learned it, so that no verb calls the node current
//! meanwhile and the facts say so once, when it begins or changes.

use crate::events::Fact;
use crate::store::{StoreError, TROUBLE, TROUBLE_AFTER, Trouble, Writer, identity_of};
use crate::transport::{ErrorKind, TransportError};

/// What a transport error means for the node: (kind, whether a run can repair it).
pub fn kind_of(e: &TransportError) -> Option<(&'static str, bool)> {
    match e.kind {
        ErrorKind::Unreachable => None,
        ErrorKind::Refused => Some(("refused", false)),
        ErrorKind::NotInstalled => Some(("not installed", true)),
        ErrorKind::Failed => Some(("failed", false)),
    }
}

/// Records that `kind` of trouble was found on `node`: the streak goes on when it is the same
/// trouble, starts at one when it is new. Returns the facts it changed: `trouble` when it
/// begins or changes, `stuck` when a repairable trouble came back [`TROUBLE_AFTER`] times.
pub fn found(
    w: &Writer,
    node: &str,
    kind: &str,
    reason: &str,
    repairable: bool,
    now: u64,
) -> Result<Vec<Fact>, StoreError> {
    let identity = format!("{kind}: {}", identity_of(reason));
    let old = w.get(TROUBLE, node.as_bytes())?;
    let mut facts = Vec::new();
    let t = match old {
        Some(mut t) if t.identity == identity => {
            t.count += 1;
            t.reason = reason.to_string();
            if repairable && t.count == TROUBLE_AFTER {
                facts.push(Fact::Stuck {
                    node: node.to_string(),
                    resources: vec![kind.to_string()],
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

/// Troubles that reaching the node does not end: only the push that found them can say they
/// are over (a send it trusts, a node id no other name holds). See [`settled`].
pub const PUSH_DECIDES: &[&str] = &[UNTRUSTED, SAME_ROOT, NOT_SENT];

/// The node refused our signature: it does not trust this controller.
pub const UNTRUSTED: &str = "untrusted";

/// The node was reached and the send failed there: it refused the declaration (its words
/// say why), answered another, broke off while receiving it, or it could not go (a damaged
/// artifact, the sequence bound). Only a send it takes ends it: reaching it to collect does not.
pub const NOT_SENT: &str = "not sent";

/// Another node name of this mesh reaches the same node root.
pub const SAME_ROOT: &str = "same root";

/// The node was worked on: a trouble a run cannot repair is over. A repairable one (a lost
/// declaration) is over only when `repaired` says the repair held (a clean apply). One only a
/// push decides ([`PUSH_DECIDES`]) stays.
pub fn cleared(w: &Writer, node: &str, repaired: bool) -> Result<Vec<Fact>, StoreError> {
    let Some(t) = w.get(TROUBLE, node.as_bytes())? else {
        return Ok(Vec::new());
    };
    if t.repairable && !repaired {
        return Ok(Vec::new());
    }
    if PUSH_DECIDES
        .iter()
        .any(|k| t.identity.starts_with(&format!("{k}: ")))
    {
        return Ok(Vec::new());
    }
    end(w, node, &t)
}

/// The push found that trouble of `kind` is over (the node took what we signed; no other
/// name holds its root).
pub fn settled(w: &Writer, node: &str, kind: &str) -> Result<Vec<Fact>, StoreError> {
    match w.get(TROUBLE, node.as_bytes())? {
        Some(t) if t.identity.starts_with(&format!("{kind}: ")) => end(w, node, &t),
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
    Ok(r.range(TROUBLE, b"", None)?
        .into_iter()
        .map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v))
        .collect())
}
