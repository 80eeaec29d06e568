//! `mesh node show`: everything known about one node, from the store alone (and the
//! repositories' refs for what it would be sent). One value feeds both the table and `--json`.

use serde::Serialize;

use crate::Result;
use crate::config::{MeshConfig, Transport};
use crate::declare::{Composed, Declaration, compose};
use crate::source::Snapshot;
use crate::status::nodes::{self, NodeStatus};
use crate::store::{NODES, NodeRecord, Paths};

/// One node, whole: its configuration, its status line, what it would be sent, what it was
/// sent and applied, and its last report.
#[derive(Debug, Serialize)]
pub struct NodeShow {
    /// The node.
    pub name: String,
    /// How it is reached.
    pub transport: Transport,
    /// Its ssh address, for an ssh node.
    pub address: Option<String>,
    /// Its root directory.
    pub root: String,
    /// Its tags.
    pub tags: Vec<String>,
    /// Its line of `mesh status`.
    pub status: Option<NodeStatus>,
    /// The declaration it would be sent now, when one can be composed.
    pub declaration: Option<Declaration>,
    /// The module → build pairs of what it was last sent.
    pub sent_builds: Vec<(String, u64)>,
    /// The module → build pairs of what it last applied.
    pub applied_builds: Vec<(String, u64)>,
    /// Its newest report about what it was last sent, as it wrote it.
    pub last_report: Option<serde_json::Value>,
    /// The highest report sequence collected.
    pub report_sequence: u64,
    /// Its age key as pinned here (secrets are encrypted to it), and another it offers that
    /// nobody accepted yet (then no secret goes to it: `mesh node accept`).
    pub age_key: Option<crate::secrets::keys::NodeKey>,
    /// Why no declaration can be composed for it, when none can.
    #[serde(skip)]
    pub not_worked_out: Option<String>,
    /// The store's record of it (what the table shows beyond the JSON: times, reasons).
    #[serde(skip)]
    pub record: NodeRecord,
}

/// Everything known about the node `name` (which `mesh` must name in mesh.toml). The
/// sources are read last, after the node is found and the store read, so an unknown node is
/// said before a repository's trouble.
pub fn show(
    paths: &Paths,
    mesh: &MeshConfig,
    sources: impl FnOnce() -> Result<Snapshot>,
    name: &str,
) -> Result<NodeShow> {
    let cfg = mesh.node(name)?;
    let (composed, record, age_key) = {
        let store = paths.open()?;
        store.read(|r| {
            let rec = r.get(NODES, name.as_bytes())?.unwrap_or_default();
            let key = crate::secrets::keys::all(r)?.remove(name);
            Ok((compose::stored(r, mesh)?.composed, rec, key))
        })?
    };
    let status = nodes::status(paths, mesh, &sources()?)?;
    let (declaration, not_worked_out) = match composed.get(name) {
        Some(Composed::Ready { declaration, .. }) => (Some(declaration.clone()), None),
        Some(Composed::NotWorkedOut(r)) => (None, Some(r.clone())),
        None => (None, None),
    };
    Ok(NodeShow {
        name: name.to_string(),
        transport: cfg.transport,
        address: cfg.address.clone(),
        root: cfg.root.clone(),
        tags: cfg.tags.clone(),
        status: status.nodes.into_iter().find(|n| n.name == name),
        declaration,
        sent_builds: record.sent_builds.clone(),
        applied_builds: record.applied_builds.clone(),
        last_report: record
            .last_report
            .as_deref()
            .and_then(|r| serde_json::from_str(r).ok()),
        report_sequence: record.report_sequence,
        age_key,
        not_worked_out,
        record,
    })
}
