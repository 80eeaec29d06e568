//! The last drift answer, kept with the key of what it was computed from (the graph cache's
//! key: this build of mesh, mesh.toml, each repository's tree), so that `mesh drift` on refs
//! that did not move reads one value instead of every module's files and imports. An entry
//! that does not decode, or was computed from anything else, is recomputed, never an error.

use super::Finding;
use crate::store::{Reader, StoreError, Table, Writer};
use serde::{Deserialize, Serialize};

/// The last answer (one key, [`LAST`]).
pub(crate) const DRIFT: Table<Answer> = Table::new("drift");

const LAST: &[u8] = b"last";

/// Every module's findings, the modules asked about, and the key they were computed from.
#[derive(Debug, Serialize, Deserialize)]
pub struct Answer {
    /// [`crate::graph::cache::key`] of the load they were computed from.
    pub key: [u8; 32],
    /// Every module's name (a module without findings is still a module to ask about).
    pub modules: Vec<String>,
    /// The findings of every module, in [`super::drift`]'s order.
    pub findings: Vec<Finding>,
}

/// The answer kept for `key`, if it is the one kept.
pub fn read(r: &Reader, key: &[u8; 32]) -> Option<Answer> {
    r.get_cached(DRIFT, LAST).filter(|a| &a.key == key)
}

/// Keeps `answer` as the last one.
pub fn write(w: &Writer, answer: &Answer) -> Result<(), StoreError> {
    w.put(DRIFT, LAST, answer)
}
