//! `mesh node have`: what the node holds, so the controller sends only the artifacts missing.

use crate::artifact::Digest;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use mesh_proto::keys::Signer;

use super::{HOST_VERSION, Held, Layout, NodeError, PROTOCOL, Root};

/// What a node holds: the answer to `have`, one JSON object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Have {
    /// The node protocol version this binary speaks ([`PROTOCOL`]).
    pub protocol: u32,
    /// The version of the node's mesh binary.
    pub version: String,
    /// Every artifact digest held in `artifacts/`, sorted.
    pub artifacts: Vec<String>,
    /// The declaration in force (`declaration.json`), if any.
    pub declaration: Option<Held>,
    /// The declaration last applied (`state.json`), if any. An apply that failed counts: see
    /// [`super::apply()`].
    pub applied: Option<Held>,
    /// The node id (`ROOT/id`), once made.
    #[serde(default)]
    pub node_id: Option<String>,
    /// Who declared what is in force, and from which commits: what another controller's git
    /// history is compared with.
    #[serde(default)]
    pub declared_by: Option<DeclaredBy>,
    /// The mesh and node name the declaration in force was made for: how a controller tells
    /// the root one of its node names already holds, even after `ROOT/id` was made anew.
    #[serde(default)]
    pub declared_for: Option<DeclaredFor>,
    /// The node's age recipient (`age1…`), once made: what its secrets are encrypted to.
    #[serde(default)]
    pub age: Option<String>,
    /// The keyed digests of the secret values it holds (sealed), sorted: a controller sends
    /// only those it lacks.
    #[serde(default)]
    pub secrets: Vec<String>,
    /// The modules of the declaration in force, as declared: which build (and commit) of each
    /// it runs or will, whoever declared it (empty from a node older than rollouts).
    #[serde(default)]
    pub modules: Vec<mesh_proto::wire::DeclaredModule>,
}

/// The mesh and node a declaration was made for, as it names them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclaredFor {
    /// The mesh's name (`[mesh] name`).
    pub mesh: String,
    /// The node's name in that mesh.
    pub node: String,
}

/// The controller and commits of the declaration in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclaredBy {
    /// The controller that signed it.
    pub controller: Signer,
    /// Per repository, the commit it was declared from (see `Envelope::commits`).
    pub commits: BTreeMap<String, String>,
    /// What it asks of the node besides which builds: what another controller declaring from
    /// the same commits compares its own plan with (absent from a node older than this field).
    #[serde(default)]
    pub plan: Option<mesh_proto::wire::Plan>,
    /// The builds it says a rollout halted (absent from a node older than rollouts).
    #[serde(default)]
    pub halted: Vec<mesh_proto::wire::Halted>,
}

/// Reads what the node at `root` holds. Takes no lock (every file it reads is replaced
/// atomically) and writes nothing: a root that does not exist yet holds nothing.
pub fn have(root: &Root) -> Result<Have, NodeError> {
    let layout = Layout::new(root);
    let envelope = layout.read_declaration()?;
    let declared_by = envelope.as_ref().and_then(|e| {
        e.controller.as_ref().map(|c| DeclaredBy {
            controller: c.clone(),
            commits: e.commits.clone(),
            plan: Some(mesh_proto::wire::Plan::of(&e.declaration)),
            halted: e.declaration.halted.clone(),
        })
    });
    let modules = envelope
        .as_ref()
        .map(|e| e.declaration.modules.clone())
        .unwrap_or_default();
    let declared_for = envelope.as_ref().map(|e| DeclaredFor {
        mesh: e.declaration.mesh.clone(),
        node: e.declaration.node.clone(),
    });
    Ok(Have {
        protocol: PROTOCOL,
        version: HOST_VERSION.to_string(),
        artifacts: layout
            .store()
            .list()?
            .into_iter()
            .map(Digest::into_string)
            .collect(),
        declaration: envelope.map(|e| Held {
            digest: e.digest,
            sequence: e.sequence,
        }),
        applied: layout.applied()?,
        node_id: super::node_id(root, false)?,
        age: super::secrets::recipient(root, false)?,
        secrets: super::secrets::sealed(&layout)?,
        declared_by,
        declared_for,
        modules,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_root_holds_nothing() {
        let t = tempfile::tempdir().unwrap();
        let h = have(&Root::check(&t.path().join("missing")).unwrap()).unwrap();
        assert_eq!(h.protocol, PROTOCOL);
        assert!(h.artifacts.is_empty() && h.declaration.is_none() && h.applied.is_none());
        assert!(!t.path().join("missing").exists());
    }
}
