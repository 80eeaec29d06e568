//! Composing every node's declaration from `mesh.toml` and the store alone: the modules assigned
//! to it (by name or tag), each with its declared build. A node that cannot be composed is
//! **not worked out**, with the reason — never "waiting".

use super::{Declaration, DeclaredModule};
use crate::config::MeshConfig;
use crate::rollout::{Kept, Staged};
use crate::store::{BuildRecord, Reader, StoreError};
use mesh_proto::wire::Halted;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One node's composition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Composed {
    /// What the node should run, and the build of each module.
    Ready {
        /// The declaration.
        declaration: Declaration,
        /// (module, build id), sorted by module.
        builds: Vec<(String, u64)>,
        /// The repositories its modules come from.
        repos: BTreeSet<String>,
        /// The declaration's digest, computed once (status compares it for every node).
        digest: String,
        /// Composed provider first (composing for a push only): see [`ProviderFirst`].
        first: Option<Box<ProviderFirst>>,
    },
    /// The mesh cannot say what the node should be.
    NotWorkedOut(String),
}

/// A node composed provider first: it waits for credentials its provider, also on it, has yet
/// to make. Status composes it as not worked out, for the reason `waiting`; a push gives it
/// every other module, with the ones of `kept` as the node holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderFirst {
    /// Why it is not worked out, as status says it.
    pub waiting: String,
    /// The waiting modules, kept as the node holds them in force (left out where it holds
    /// none), read from the node as it is sent.
    pub kept: Vec<String>,
}

impl Composed {
    /// The digest it would be sent with, if it is ready.
    pub fn digest(&self) -> Option<String> {
        match self {
            Composed::Ready { digest, .. } => Some(digest.clone()),
            Composed::NotWorkedOut(_) => None,
        }
    }
}

/// Every declared build, by module.
pub use crate::store::declared_builds as declared;

/// Each module's declared build, by module.
pub(crate) type Declared = HashMap<String, BuildRecord>;

/// The declared builds, and every node composed with the rollouts in progress and the halted
/// builds: what push sends and status compares with, read in the caller's transaction.
pub(crate) fn stored(r: &Reader, mesh: &MeshConfig) -> Result<Stored, StoreError> {
    stored_in(r, mesh, &crate::rollout::Fleet::read(r)?)
}

/// What [`stored`] reads and makes.
pub(crate) struct Stored {
    /// Each module's declared build.
    pub declared: Declared,
    /// Every node's composition.
    pub composed: BTreeMap<String, Composed>,
    /// The rollouts it was composed with, by module.
    pub staged: HashMap<String, Staged>,
    /// The credentials providers made, composed with (see [`crate::secrets::provided`]).
    pub provided: crate::secrets::provided::ByEdge,
}

/// [`stored`], with what the nodes hold and say already read.
pub(crate) fn stored_in(
    r: &Reader,
    mesh: &MeshConfig,
    fleet: &crate::rollout::Fleet,
) -> Result<Stored, StoreError> {
    stored_as(r, mesh, fleet, false)
}

/// [`stored_in`] for a push: a node that waits for credentials its provider on that node has
/// yet to make is composed **provider first** — every module but the waiting consumer, which
/// the push keeps as the node holds it (read from the node as it is sent: [`ProviderFirst`]), or leaves
/// out where it holds none — so that the provider can be given its version and asked to make
/// them. Status and plan compose strictly
/// (that node is not worked out until they are made).
pub(crate) fn stored_for_push(
    r: &Reader,
    mesh: &MeshConfig,
    fleet: &crate::rollout::Fleet,
) -> Result<Stored, StoreError> {
    stored_as(r, mesh, fleet, true)
}

fn stored_as(
    r: &Reader,
    mesh: &MeshConfig,
    fleet: &crate::rollout::Fleet,
    provider_first: bool,
) -> Result<Stored, StoreError> {
    let declared = declared(r)?;
    let staged = crate::rollout::staged(r, mesh, &declared, fleet)?;
    let halted = crate::rollout::halted_list(r)?;
    let provided = crate::secrets::provided::all(r)?;
    let made = Made {
        provided: &provided,
        provider_first,
    };
    let composed = compose_all(mesh, &declared, (&staged, &halted), &made);
    Ok(Stored {
        declared,
        composed,
        staged,
        provided,
    })
}

/// The credentials providers made, by (consumer, alias), and whether a node waiting for some is
/// composed provider first (see [`stored_for_push`]).
pub(crate) struct Made<'a> {
    /// What was made.
    pub provided: &'a crate::secrets::provided::ByEdge,
    /// Composing for a push: a node that waits for credentials its provider on that node has
    /// yet to make is given every other module, the waiting one kept as the node holds it.
    pub provider_first: bool,
}

/// Composes every node of the mesh: each module with its declared build, or, for a node a
/// rollout has not reached yet, the build it keeps (`staged`); with the halted builds of the
/// modules it runs.
pub(crate) fn compose_all(
    mesh: &MeshConfig,
    declared: &HashMap<String, BuildRecord>,
    (staged, halted): (&HashMap<String, Staged>, &[Halted]),
    made: &Made,
) -> BTreeMap<String, Composed> {
    // module → the nodes it is assigned to; node → its modules.
    let where_ = mesh.placement();
    let mut assigned: HashMap<&str, BTreeSet<&str>> = HashMap::new();
    for (m, nodes) in &where_ {
        for n in nodes {
            assigned.entry(n).or_default().insert(m);
        }
    }
    let none = BTreeSet::new();
    mesh.nodes
        .keys()
        .map(|node| {
            let modules = assigned.get(node.as_str()).unwrap_or(&none);
            let unknown = modules
                .iter()
                .find(|m| matches!(staged.get(**m).and_then(|s| s.keeps(node)), Some(Kept::Unknown)));
            if let Some(m) = unknown {
                let why = format!(
                    "{m} is rolling out and what {node} runs of it is not known here yet (never read): the next pass reads it"
                );
                return (node.clone(), Composed::NotWorkedOut(why));
            }
            let builds = |m: &str| {
                let d = declared.get(m)?;
                Some(match staged.get(m).and_then(|s| s.keeps(node)) {
                    Some(Kept::Build(b)) => (b, None),
                    Some(Kept::Held(h)) => (d, Some(h)),
                    Some(Kept::Unknown) | None => (d, None),
                })
            };
            let mut composed = compose_node(mesh, node, modules, &builds, (&where_, made));
            if let Composed::Ready {
                declaration,
                digest,
                ..
            } = &mut composed
            {
                declaration.halted = halted
                    .iter()
                    .filter(|h| modules.contains(h.module.as_str()))
                    .cloned()
                    .collect();
                *digest = declaration.digest();
            }
            (node.clone(), composed)
        })
        .collect()
}

/// What one node is declared of one module: the build (for its edges and repository), and the
/// entry the node holds in force when it keeps that as it is (a rollout whose `from` this
/// store never built).
type Pick<'a> = (&'a BuildRecord, Option<&'a DeclaredModule>);

fn compose_node<'a>(
    mesh: &MeshConfig,
    node: &str,
    modules: &BTreeSet<&str>,
    declared: &dyn Fn(&str) -> Option<Pick<'a>>,
    (where_, made): (&HashMap<&str, BTreeSet<&str>>, &Made),
) -> Composed {
    let mut out = Vec::new();
    let mut builds = Vec::new();
    let mut missing = Vec::new();
    let mut repos = BTreeSet::new();
    let mut first: Option<Box<ProviderFirst>> = None;
    for &m in modules {
        let Some((b, held)) = declared(m) else {
            missing.push(m);
            continue;
        };
        for p in &b.presence {
            if !where_.get(p.as_str()).is_some_and(|ns| ns.contains(node)) {
                return Composed::NotWorkedOut(format!(
                    "{m} needs {p} present on the same node, and {p} is not assigned to {node}"
                ));
            }
        }
        let creds = match credentials(m, b, declared, (where_, made.provided)) {
            Ok(creds) => creds,
            Err((why, provider)) => {
                // Provider first: the consumer keeps what the node holds of it (read from the
                // node when it is sent).
                let hosts = where_
                    .get(provider.as_str())
                    .is_some_and(|ns| ns.contains(node));
                if !(made.provider_first && hosts) {
                    return Composed::NotWorkedOut(why);
                }
                first
                    .get_or_insert_with(|| {
                        Box::new(ProviderFirst {
                            waiting: why,
                            kept: Vec::new(),
                        })
                    })
                    .kept
                    .push(m.to_string());
                repos.insert(b.repo.clone());
                continue;
            }
        };
        if let Some(h) = held {
            // Its build id is another store's: never taken for one of this store's.
            out.push(h.clone());
            builds.push((m.to_string(), crate::rollout::UNKNOWN));
            repos.insert(b.repo.clone());
            continue;
        }
        let Some(entry) = entry(mesh, m, b, creds) else {
            missing.push(m);
            continue;
        };
        out.push(entry);
        builds.push((m.to_string(), b.id));
        repos.insert(b.repo.clone());
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
            controllers: mesh.controllers.clone(),
            halted: Vec::new(),
            mesh: mesh.name.clone(),
            modules: out,
            node: node.to_string(),
        },
        builds,
        repos,
        digest: String::new(),
        first,
    }
}

/// Module `m`'s entry in a declaration, from its build `b` and the credentials made for it;
/// none when the build has no artifact.
fn entry(
    mesh: &MeshConfig,
    m: &str,
    b: &BuildRecord,
    creds: Vec<mesh_proto::secret::SecretRef>,
) -> Option<DeclaredModule> {
    Some(DeclaredModule {
        activate: b.activate.clone(),
        artifact: b.artifact.clone()?,
        build: b.id.to_string(),
        check: b.check.as_ref().map(|c| c.command.clone()),
        check_timeout_ms: b.check.as_ref().and_then(|c| c.timeout_ms),
        commit: b.commit.clone(),
        name: m.to_string(),
        provide: b.provide.clone(),
        secrets: secrets_of(mesh, m, creds),
        settle_ms: b.check.as_ref().and_then(|c| c.settle_ms),
        size: b.size,
    })
}

/// The credentials providers made for module `m` (built as `b`), as its secrets; why it cannot
/// be composed (and the provider it waits on): a provider assigned nowhere, or credentials not
/// made (yet).
fn credentials<'a>(
    m: &str,
    b: &BuildRecord,
    declared: &dyn Fn(&str) -> Option<Pick<'a>>,
    (where_, provided): (
        &HashMap<&str, BTreeSet<&str>>,
        &crate::secrets::provided::ByEdge,
    ),
) -> std::result::Result<Vec<mesh_proto::secret::SecretRef>, (String, String)> {
    let mut made = Vec::new();
    for i in &b.instantiation {
        let p = i.module.as_str();
        if where_.get(p).is_none_or(|ns| ns.is_empty()) {
            let why =
                format!("{m} needs {p} to make something for it, and {p} is assigned nowhere");
            return Err((why, p.to_string()));
        }
        if declared(p).is_none_or(|(pb, _)| pb.provide.is_none()) {
            continue;
        }
        let edge = crate::secrets::provided::Edge {
            consumer: m.to_string(),
            provider: p.to_string(),
            alias: i.alias.clone(),
        };
        match provided.get(&(edge.consumer.clone(), edge.alias.clone())) {
            Some(c) if c.made() => {
                for (name, digest) in &c.digests {
                    if made
                        .iter()
                        .any(|s: &mesh_proto::secret::SecretRef| &s.name == name)
                    {
                        let why = format!(
                            "{m}'s credentials from two providers are both named {name}: give them `as` names that cannot meet"
                        );
                        return Err((why, String::new()));
                    }
                    made.push(mesh_proto::secret::SecretRef {
                        digest: digest.clone(),
                        name: name.clone(),
                    });
                }
            }
            c => return Err((crate::secrets::provided::waiting(&edge, c), edge.provider)),
        }
    }
    Ok(made)
}

/// A module's secrets: those set in the mesh directory, and those providers made for it, by
/// name (a name set by a person wins over one made).
fn secrets_of(
    mesh: &MeshConfig,
    module: &str,
    made: Vec<mesh_proto::secret::SecretRef>,
) -> Vec<mesh_proto::secret::SecretRef> {
    let mut all: BTreeMap<String, mesh_proto::secret::SecretRef> =
        made.into_iter().map(|s| (s.name.clone(), s)).collect();
    for s in mesh.secrets.refs(module) {
        all.insert(s.name.clone(), s);
    }
    all.into_values().collect()
}
