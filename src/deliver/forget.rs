//! Forgetting a node gone from mesh.toml: its records, its trouble, health and not-worked-out
//! reason dropped in one transaction, with one `forgotten` fact.

use crate::events::{self, Event, Fact};
use crate::store::{
    DECLARED_ELSEWHERE, HEALTH, NODE_IDS, NODES, NOT_WORKED_OUT, Store, StoreError, TROUBLE,
};

/// Drops every record of `node`; the facts appended, or `None` when the store holds no
/// records of it (nothing is written then). The node itself is not touched.
pub fn forget(
    store: &Store,
    node: &str,
    events_keep: u64,
) -> Result<Option<Vec<Event>>, StoreError> {
    store.write(|w| {
        if w.get(NODES, node.as_bytes())?.is_none() {
            return Ok(None);
        }
        w.remove(NODES, node.as_bytes())?;
        w.remove(TROUBLE, node.as_bytes())?;
        w.remove(NOT_WORKED_OUT, node.as_bytes())?;
        w.remove(NODE_IDS, node.as_bytes())?;
        w.remove(DECLARED_ELSEWHERE, node.as_bytes())?;
        w.remove(HEALTH, node.as_bytes())?;
        w.remove(crate::store::HOLDS, node.as_bytes())?;
        let fact = Fact::Forgotten {
            node: node.to_string(),
        };
        events::append(w, &[fact], crate::clock::now_ms(), events_keep).map(Some)
    })
}
