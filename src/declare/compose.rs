//! Composing every node's declaration from `mesh.toml` and the store alone: the modules assigned
//! to it (by name or tag), each with its declared build. A node that cannot be composed is
//! **not worked out**, with the reason — never "waiting".

use super::{Declaration, DeclaredModule};
use crate::config::MeshConfig;
use crate::store::{BuildRecord, DECLARED, Reader, StoreError};
use std::collections::{BTreeMap, HashMap};

/// One node's composition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Composed {
    /// What the node should run, and the build of each module.
    Ready {
        /// The declaration.
        declaration: Declaration,
        /// (module, build id), sorted by module.
        builds: Vec<(String, u64)>,
    },
    /// The mesh cannot say what the node should be.
    NotWorkedOut(String),
}

impl Composed {
    /// The digest it would be sent with, if it is ready.
    pub fn digest(&self) -> Option<String> {
        match self {
            Composed::Ready { declaration, .. } => Some(declaration.digest()),
            Composed::NotWorkedOut(_) => None,
        }
    }
}

/// Every declared build, by module.
pub fn declared(r: &Reader) -> Result<HashMap<String, BuildRecord>, StoreError> {
    Ok(r.range::<BuildRecord>(DECLARED, b"", None)?
        .into_iter()
        .map(|(_, b)| (b.module.clone(), b))
        .collect())
}

/// Composes every node of the mesh.
pub fn compose_all(
    mesh: &MeshConfig,
    declared: &HashMap<String, BuildRecord>,
) -> BTreeMap<String, Composed> {
    let mut assigned: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut where_: HashMap<&str, Vec<String>> = HashMap::new();
    for a in &mesh.assign {
        let nodes = mesh.nodes_of(&a.module);
        for n in &nodes {
            if let Some(node) = mesh.nodes.get(n) {
                let list = assigned.entry(node.name.as_str()).or_default();
                if !list.contains(&a.module.as_str()) {
                    list.push(a.module.as_str());
                }
            }
        }
        where_.insert(a.module.as_str(), nodes);
    }
    mesh.nodes
        .keys()
        .map(|node| {
            let modules = assigned.get(node.as_str()).cloned().unwrap_or_default();
            (
                node.clone(),
                compose_node(mesh, node, &modules, declared, &where_),
            )
        })
        .collect()
}

fn compose_node(
    mesh: &MeshConfig,
    node: &str,
    modules: &[&str],
    declared: &HashMap<String, BuildRecord>,
    where_: &HashMap<&str, Vec<String>>,
) -> Composed {
    let mut out = Vec::new();
    let mut builds = Vec::new();
    let mut missing = Vec::new();
    for &m in modules {
        let Some(b) = declared.get(m) else {
            missing.push(m);
            continue;
        };
        for p in &b.presence {
            if !where_
                .get(p.as_str())
                .is_some_and(|ns| ns.iter().any(|n| n == node))
            {
                return Composed::NotWorkedOut(format!(
                    "{m} needs {p} present on the same node, and {p} is not assigned to {node}"
                ));
            }
        }
        for i in &b.instantiation {
            if where_.get(i.as_str()).is_none_or(|ns| ns.is_empty()) {
                return Composed::NotWorkedOut(format!(
                    "{m} needs {i} to make something for it, and {i} is assigned nowhere"
                ));
            }
        }
        let (Some(artifact), commit) = (b.artifact.clone(), b.commit.clone()) else {
            missing.push(m);
            continue;
        };
        out.push(DeclaredModule {
            activate: b.activate.clone(),
            artifact,
            build: b.id.to_string(),
            commit,
            name: m.to_string(),
            size: b.size,
        });
        builds.push((m.to_string(), b.id));
    }
    if !missing.is_empty() {
        let verb = if missing.len() == 1 { "has" } else { "have" };
        return Composed::NotWorkedOut(format!(
            "{} {verb} no declared fit build (never built fit, or held: `mesh declare`)",
            missing.join(", ")
        ));
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    builds.sort();
    Composed::Ready {
        declaration: Declaration {
            mesh: mesh.name.clone(),
            modules: out,
            node: node.to_string(),
        },
        builds,
    }
}
