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

/// The node was worked on: a trouble a run cannot repair is over. A repairable one (a lost
/// declaration) is over only when `repaired` says the repair held (a clean apply).
pub fn cleared(w: &Writer, node: &str, repaired: bool) -> Result<Vec<Fact>, StoreError> {
    let Some(t) = w.get(TROUBLE, node.as_bytes())? else {
        return Ok(Vec::new());
    };
    if t.repairable && !repaired {
        return Ok(Vec::new());
    }
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
