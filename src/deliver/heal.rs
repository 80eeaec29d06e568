//! Before a pass builds: the artifacts it is about to send are checked against their digests,
//! so that a damaged one (a flipped bit on this disk) is removed and built again by that very
//! pass — every one of them, not one per run.
//!
//! Only what the pass would send is read: the declared artifacts of each node whose
//! declaration is not yet confirmed applied (as the store says). Hashing every artifact on
//! every run would cost a big store seconds for nothing; a node that holds its declaration is
//! sent nothing, and `mesh doctor` checks the rest.

use crate::Result;
use crate::config::MeshConfig;
use crate::declare::compose::{self, Composed};
use crate::events::{Event, Fact};
use crate::store::Paths;
use mesh_node::artifact::ArtifactStore;
use std::collections::BTreeMap;

/// Checks the artifacts the coming push would send (see the module's doc); removes each damaged
/// one, so that its module is stale, and records an `artifact-damaged` fact for it, all in one
/// write. Returns the facts recorded.
pub(crate) fn damaged_outgoing(paths: &Paths, mesh: &MeshConfig) -> Result<Vec<Event>> {
    if !paths.state.exists() {
        return Ok(Vec::new());
    }
    // The store is open for the reading only, never across the hashing.
    let (composed, records) = paths.open()?.read(|r| {
        Ok((
            compose::stored(r, mesh)?.composed,
            crate::store::node_records(r)?,
        ))
    })?;
    // digest → module, each once.
    let mut outgoing: BTreeMap<String, String> = BTreeMap::new();
    for (node, c) in &composed {
        let Composed::Ready { declaration, .. } = c else {
            continue;
        };
        let settled = records.get(node).is_some_and(|rec| {
            rec.applied_what_was_sent()
                && rec
                    .sent
                    .as_ref()
                    .is_some_and(|s| s.digest == declaration.digest())
        });
        if settled {
            continue;
        }
        for m in &declaration.modules {
            outgoing
                .entry(m.artifact.clone())
                .or_insert_with(|| m.name.clone());
        }
    }
    let artifacts = ArtifactStore::new(paths.artifacts());
    let mut facts = Vec::new();
    for (digest, module) in outgoing {
        // Present and not its digest: a missing one is the build step's to notice, and one
        // that cannot be read is said when it is sent.
        if artifacts.contains(&digest) && !artifacts.verify(&digest).unwrap_or(true) {
            let _ = artifacts.remove(&digest);
            facts.push(Fact::ArtifactDamaged {
                module,
                artifact: digest,
            });
        }
    }
    if facts.is_empty() {
        return Ok(Vec::new());
    }
    Ok(paths.open()?.write(|w| {
        crate::events::append(w, &facts, crate::clock::now_ms(), mesh.settings.events_keep)
    })?)
}
