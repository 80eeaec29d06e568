//! What a push sends: each artifact checked against its digest and compressed once, by the
//! first node that needs it, and shared with the rest.

use super::{Event, Msg};
use crate::transport::stream::Part;
use mesh_node::Have;
use mesh_node::artifact::ArtifactStore;
use std::collections::BTreeSet;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};

/// An artifact ready to go, or why it cannot go; made once per push.
type Ready = Arc<OnceLock<std::result::Result<Arc<Part>, String>>>;

/// The artifacts of a push, each checked and compressed once, by the first node to need it.
pub(super) struct Outgoing {
    store: ArtifactStore,
    ready: Mutex<std::collections::HashMap<String, Ready>>,
}

impl Outgoing {
    pub(super) fn new(store: ArtifactStore) -> Outgoing {
        Outgoing {
            store,
            ready: Mutex::new(Default::default()),
        }
    }

    /// The artifact `digest` of `module`, ready to go; or why it cannot go.
    ///
    /// Every artifact is checked against its digest before it goes: a damaged one (a flipped
    /// bit on this disk) is removed, which makes its module stale, and the next build makes
    /// it again; the node is not sent a declaration it would refuse.
    fn part(
        &self,
        digest: &str,
        module: &str,
        tx: &mpsc::Sender<Msg>,
    ) -> std::result::Result<Arc<Part>, String> {
        let cell = match self.ready.lock() {
            Ok(mut ready) => ready.entry(digest.to_string()).or_default().clone(),
            Err(_) => return Err("a worker panicked".into()),
        };
        cell.get_or_init(|| {
            let tar = self.store.path(digest);
            let size = std::fs::metadata(&tar).map(|m| m.len()).map_err(|e| {
                format!("an artifact is missing from .mesh/artifacts ({e}): rebuild with `mesh build`")
            })?;
            if !self.store.verify(digest).unwrap_or(true) {
                let _ = self.store.remove(digest);
                let _ = tx.send(Msg::Record(Event::Damaged {
                    module: module.to_string(),
                    artifact: digest.to_string(),
                }));
                return Err(format!(
                    "the artifact of {module} ({}) in .mesh/artifacts did not match its digest and was removed; the next run builds it again",
                    &digest[..digest.len().min(12)]
                ));
            }
            // Compressed when that is smaller; a failure to compress sends the tar.
            let compressed = self
                .store
                .compressed(digest)
                .ok()
                .filter(|(_, length)| *length < size);
            Ok(Arc::new(Part {
                digest: digest.to_string(),
                tar,
                size,
                compressed,
            }))
        })
        .clone()
    }

    /// The artifacts of `declaration` the node does not hold (each once), ready to go; why one
    /// cannot go (a damaged artifact, removed and to be built again).
    pub(super) fn missing(
        &self,
        declaration: &crate::declare::Declaration,
        have: &Have,
        tx: &mpsc::Sender<Msg>,
    ) -> std::result::Result<Vec<Arc<Part>>, String> {
        let held: BTreeSet<&str> = have.artifacts.iter().map(String::as_str).collect();
        let mut missing: Vec<&mesh_proto::wire::DeclaredModule> = Vec::new();
        for m in &declaration.modules {
            if !held.contains(m.artifact.as_str())
                && !missing.iter().any(|d| d.artifact == m.artifact)
            {
                missing.push(m);
            }
        }
        // Every one checked before the first failure is said: a node with several damaged
        // artifacts has them all removed (and rebuilt) in one pass, not one per run.
        let parts: Vec<_> = missing
            .iter()
            .map(|m| self.part(&m.artifact, &m.name, tx))
            .collect();
        parts.into_iter().collect()
    }
}
