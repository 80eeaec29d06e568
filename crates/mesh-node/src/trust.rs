//! Which controllers a node takes declarations from (`ROOT/trust.json`), as ssh pins host
//! keys: the first controller that declares to it is pinned; the controller that signed the
//! declaration in force and the controllers it lists (`[controllers]` of its mesh.toml) are
//! trusted too, because a trusted controller delivered them. Anything else is refused whole.
//!
//! The first declaration also pins what the node is: its name and its mesh. A declaration
//! made for another node or another mesh is refused whole, however it is signed (a signed
//! declaration copied from one node's root must not run on another). Only a person re-pins a
//! node (`mesh node trust --reset`).

use serde::{Deserialize, Serialize};

use super::{Layout, NodeError, disk};
use mesh_proto::keys::Signer;
use mesh_proto::wire::Envelope;

/// `ROOT/trust.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trust {
    /// The controller that signed the declaration in force and the controllers it lists.
    pub delivered: Vec<Signer>,
    /// The mesh this node was first declared to in (absent in a trust file from before it was
    /// pinned: learnt from the declaration in force).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<String>,
    /// The node name it was first declared to as (absent as `mesh` is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
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
/// one, which it pins), and made for this node of this mesh (pinned with the first one). The
/// trust file to write when the declaration is put in force (`None`: unchanged); why not, as
/// the refusal the controller shows.
pub(super) fn admit(layout: &Layout, envelope: &Envelope) -> Result<Option<Trust>, String> {
    let signer = envelope
        .verify()
        .map_err(|why| format!("the declaration's signature is not valid: {why}"))?;
    let declaration = &envelope.declaration;
    // The signer of the declaration in force is trusted as the controllers it lists are: a
    // controller need not list itself to declare again.
    let mut delivered = declaration.controllers.clone();
    if !delivered.iter().any(|d| d.key == signer.key) {
        delivered.push(signer.clone());
    }
    let trust = read(layout).map_err(|e| {
        format!("{e}; `mesh node trust --reset` on the controller clears it, and the next controller to declare is pinned")
    })?;
    match trust {
        None => Ok(Some(Trust {
            delivered,
            mesh: Some(declaration.mesh.clone()),
            node: Some(declaration.node.clone()),
            pinned: signer.clone(),
        })),
        Some(t) if t.trusts(signer) => {
            let (mesh, node) = pinned_name(layout, &t, envelope);
            if (mesh.as_str(), node.as_str())
                != (declaration.mesh.as_str(), declaration.node.as_str())
            {
                return Err(format!(
                    "the declaration is for node {} of mesh {}, and this node is {node} of mesh {mesh} (pinned by the first declaration it took): a declaration made for another node is never run here. If mesh.toml renamed this node (or the mesh), re-pin it with `mesh node trust --reset NODE` and push again",
                    declaration.node, declaration.mesh
                ));
            }
            let next = Trust {
                delivered,
                mesh: Some(mesh),
                node: Some(node),
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

/// The mesh and node name `trust` pinned; for a trust file from before they were pinned,
/// those of the declaration in force (else of `envelope`, the first one it will hold).
fn pinned_name(layout: &Layout, trust: &Trust, envelope: &Envelope) -> (String, String) {
    if let (Some(mesh), Some(node)) = (&trust.mesh, &trust.node) {
        return (mesh.clone(), node.clone());
    }
    let in_force = layout.read_declaration().ok().flatten();
    let d = in_force
        .as_ref()
        .map_or(&envelope.declaration, |e| &e.declaration);
    (d.mesh.clone(), d.node.clone())
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

#[cfg(test)]
mod tests {
    use super::super::tests::{artifact, laptop, module, send, stream};
    use super::super::{NodeError, Root, receive};
    use mesh_proto::keys::{Identity, Signer};
    use mesh_proto::wire::{Declaration, DeclaredModule, Envelope};

    fn declared(
        me: &Identity,
        node: &str,
        modules: Vec<DeclaredModule>,
        sequence: u64,
        controllers: Vec<Signer>,
    ) -> Envelope {
        Declaration {
            controllers,
            halted: Vec::new(),
            mesh: "demo".into(),
            modules,
            node: node.into(),
        }
        .seal(sequence)
        .signed(me, Default::default())
    }

    /// Sends `envelope` (no artifacts); the refusal's reason, answered as untrusted.
    fn refused(root: &Root, envelope: &Envelope) -> String {
        let mut out = Vec::new();
        let result = receive(root, &mut &stream(&[], &envelope.to_bytes())[..], &mut out);
        let Err(NodeError::Untrusted { reason }) = result else {
            panic!("expected a refusal, got {result:?}");
        };
        let answer: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(answer, serde_json::json!({ "untrusted": reason }));
        reason
    }

    #[test]
    fn the_signer_of_the_declaration_in_force_is_trusted_as_those_it_lists() {
        // Each lists the other, as README shows: cron pinned, then the laptop twice in a row.
        let t = tempfile::tempdir().unwrap();
        let root = &Root::check(t.path()).unwrap();
        let cron = Identity::from_seed("cron", [9; 32]);
        let a = artifact(&[("a", "1")]);
        let m = || vec![module("m", &a, None)];
        send(
            root,
            &[&a],
            &declared(&cron, "ace", m(), 1, vec![laptop().signer()]),
        );
        send(
            root,
            &[],
            &declared(&laptop(), "ace", m(), 2, vec![cron.signer()]),
        );
        send(
            root,
            &[],
            &declared(&laptop(), "ace", m(), 3, vec![cron.signer()]),
        );
        send(
            root,
            &[],
            &declared(&cron, "ace", m(), 4, vec![laptop().signer()]),
        );
        send(
            root,
            &[],
            &declared(&cron, "ace", m(), 5, vec![laptop().signer()]),
        );
    }

    #[test]
    fn a_declaration_for_another_node_or_mesh_is_refused_whole() {
        let t = tempfile::tempdir().unwrap();
        let root = &Root::check(t.path()).unwrap();
        let a = artifact(&[("a", "1")]);
        let m = || vec![module("m", &a, None)];
        send(root, &[&a], &declared(&laptop(), "lab", m(), 1, Vec::new()));
        let before = std::fs::read(root.join("declaration.json")).unwrap();
        let reason = refused(root, &declared(&laptop(), "edge-1", m(), 2, Vec::new()));
        assert!(
            reason.contains("for node edge-1 of mesh demo")
                && reason.contains("this node is lab of mesh demo")
                && reason.contains("mesh node trust --reset"),
            "{reason}"
        );
        let mut other_mesh = Declaration {
            controllers: Vec::new(),
            halted: Vec::new(),
            mesh: "other".into(),
            modules: m(),
            node: "lab".into(),
        };
        let reason = refused(
            root,
            &other_mesh
                .clone()
                .seal(2)
                .signed(&laptop(), Default::default()),
        );
        assert!(reason.contains("of mesh other"), "{reason}");
        assert_eq!(
            std::fs::read(root.join("declaration.json")).unwrap(),
            before
        );
        let reports = std::fs::read_dir(root.join("reports")).map_or(0, |d| d.count());
        assert_eq!(reports, 0, "a refusal of this kind is not journaled");

        // A trust file from before the name was pinned learns it from the declaration in force.
        let mut trust = super::trusted(root).unwrap().unwrap();
        assert_eq!(trust.node.as_deref(), Some("lab"));
        trust.node = None;
        trust.mesh = None;
        super::write(&super::Layout::new(root), &trust).unwrap();
        refused(root, &declared(&laptop(), "edge-1", m(), 2, Vec::new()));
        send(root, &[], &declared(&laptop(), "lab", m(), 2, Vec::new()));
        assert_eq!(
            super::trusted(root).unwrap().unwrap().node.as_deref(),
            Some("lab")
        );

        // A reset forgets the name with the pin: the next declaration pins its own.
        super::reset(root).unwrap();
        other_mesh.node = "lab-1".into();
        send(
            root,
            &[],
            &other_mesh.seal(3).signed(&laptop(), Default::default()),
        );
        let trust = super::trusted(root).unwrap().unwrap();
        assert_eq!(
            (trust.mesh.as_deref(), trust.node.as_deref()),
            (Some("other"), Some("lab-1"))
        );
    }
}
