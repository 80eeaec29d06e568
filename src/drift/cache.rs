//! The last drift answer, kept with the key of what it was computed from (the graph cache's
//! key: this build of mesh, mesh.toml, each repository's tree), so that `mesh drift` on refs
//! that did not move reads one value instead of every module's files and imports. An entry
//! that does not decode, or was computed from anything else, is recomputed, never an error.

use super::Finding;
use crate::store::{Reader, StoreError, Table, Writer};
use serde::{Deserialize, Serialize};

/// The last answer (one key, [`LAST`]).
pub const DRIFT: Table<Answer> = Table::new("drift");

const LAST: &[u8] = b"last";

/// Every module's findings, and the key they were computed from.
#[derive(Debug, Serialize, Deserialize)]
pub struct Answer {
    /// [`crate::graph::cache::key`] of the load they were computed from.
    pub key: [u8; 32],
    /// The findings of every module, in [`super::drift`]'s order.
    pub findings: Vec<Finding>,
}

/// The findings kept for `key`, if those are the ones kept.
pub fn read(r: &Reader, key: &[u8; 32]) -> Option<Vec<Finding>> {
    r.get_cached(DRIFT, LAST)
        .filter(|a| &a.key == key)
        .map(|a| a.findings)
}

/// Keeps `findings` (every module's) as the answer for `key`.
pub fn write(w: &Writer, key: [u8; 32], findings: Vec<Finding>) -> Result<(), StoreError> {
    w.put(DRIFT, LAST, &Answer { key, findings })
}
