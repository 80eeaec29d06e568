//! The graph cache: what the last load found (the modules, what their walks learned that the
//! graph needs, and the edges each module's imports make), so that a verb on a mesh whose refs
//! did not move reads one small head and each module's edges, and walks nothing; and a commit
//! that changes one module re-derives about one module.
//!
//! Every piece is checked before it is used: the head names what it was computed from (the
//! repositories' trees, mesh.toml, the scanner version and this very binary) and each module's
//! edges carry a fingerprint of everything their resolution read. An entry that does not
//! decode is not an error: it is recomputed, as if it were missing.

use super::ImportEdge;
use crate::config::{MeshConfig, ModuleManifest};
use crate::source::{ModuleSource, Prior, PriorRepo, Snapshot};
use crate::store::{ModuleRecord, Reader, StoreError, Table, Writer};
use gix::ObjectId;
use mesh_imports::resolve::Evidence;
use mesh_imports::{ImportKind, Language, SCANNER_VERSION};
use serde::{Deserialize, Serialize};

/// Bumped when what is cached, or how it is derived, changes shape.
const CACHE_FORMAT: u32 = 2;

/// The graph cache's head (one key, [`HEAD_KEY`]): what the last load was computed from and
/// found.
pub(crate) const GRAPH_HEAD: Table<Head> = Table::new("graph_head");
/// The graph cache's edges, by module name: the edges its imports make, with their kinds.
pub(crate) const GRAPH_EDGES: Table<ModuleEdges> = Table::new("graph_edges");
/// The graph cache's evidence, by module name: the import lines that make each of its edges.
/// Apart from the edges, because only `mesh graph` shows them: a plan reads no line of them.
pub(crate) const GRAPH_EVIDENCE: Table<ModuleEvidence> = Table::new("graph_evidence");

/// The one key of [`GRAPH_HEAD`].
pub(crate) const HEAD_KEY: &[u8] = b"head";

/// What a module's walk learned that the graph needs: far smaller than its
/// [`ModuleRecord`] (no file list, no imports), so a load that reuses it reads little.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Facts {
    /// Names its language manifests provide.
    pub provides: Vec<(Language, String)>,
    /// Rust renames in its own `Cargo.toml`.
    pub rust_renames: Vec<(String, String)>,
    /// Rust dependencies it inherits from its workspace.
    pub rust_workspace_deps: Vec<String>,
    /// Its manifests' notes, for `-v`.
    pub notes: Vec<String>,
    /// Whether it has Go source files.
    pub has_go: bool,
    /// Whether it has JS/TS source files.
    pub has_js: bool,
}

impl Facts {
    /// The facts a module's record holds.
    pub fn of(record: &ModuleRecord) -> Facts {
        let has = |l: Language| record.files.iter().any(|f| f.language == l);
        Facts {
            provides: record.manifests.provides.clone(),
            rust_renames: record.manifests.rust_renames.clone(),
            rust_workspace_deps: record.manifests.rust_workspace_deps.clone(),
            notes: record.manifests.notes.clone(),
            has_go: has(Language::Go),
            has_js: has(Language::Js),
        }
    }
}

/// One module as the last load found it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CachedModule {
    /// Its repository's name.
    pub repo: String,
    /// Its directory.
    pub dir: String,
    /// Its directory's tree id.
    pub tree: Vec<u8>,
    /// Its manifest's blob id.
    pub manifest_blob: Vec<u8>,
    /// Its manifest, parsed.
    pub manifest: ModuleManifest,
    /// The nested modules' directories.
    pub nested: Vec<String>,
    /// Its source id.
    pub source_id: String,
    /// What its walk learned.
    pub facts: Facts,
    /// Every name it provides (its Go import path included).
    pub provides: Vec<(Language, String)>,
    /// Its `tsconfig.json` path aliases (read from its own tree).
    pub js_paths: Vec<(String, String)>,
    /// The fingerprint of everything the resolution of its imports read.
    pub fingerprint: [u8; 32],
}

/// The head of the cache: what the last load was computed from, and what it found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Head {
    /// [`key`] of the load.
    pub key: [u8; 32],
    /// [`made_by`] of the binary that wrote it: another build's head is not read at all.
    pub made_by: [u8; 32],
    /// Each repository's name and root tree.
    pub repos: Vec<(String, Vec<u8>)>,
    /// Every module, in name order.
    pub modules: Vec<CachedModule>,
    /// The resolution's warnings.
    pub warnings: Vec<String>,
}

/// The edges one module's imports make: (module imported, the strongest kind among the
/// imports), with the fingerprint of what they were resolved from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModuleEdges {
    /// [`CachedModule::fingerprint`] of the resolution that made them.
    pub fingerprint: [u8; 32],
    /// (imported module's name, the edge's kind).
    pub edges: Vec<(String, ImportKind)>,
}

/// The import lines of one module's edges, in [`ModuleEdges::edges`] order, with the same
/// fingerprint (evidence of another resolution is never paired with these edges).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModuleEvidence {
    /// [`CachedModule::fingerprint`] of the resolution that made them.
    pub fingerprint: [u8; 32],
    /// Per edge, the import lines that make it.
    pub evidence: Vec<Vec<Evidence>>,
}

/// What a load resolved for one module: its edges and their evidence, as cached.
pub struct Resolved {
    /// The edges.
    pub edges: ModuleEdges,
    /// Their evidence.
    pub evidence: ModuleEvidence,
}

impl Resolved {
    /// A module's resolution under `fingerprint`: (module imported, import lines) per edge.
    pub fn new(fingerprint: [u8; 32], edges: Vec<(String, Vec<Evidence>)>) -> Resolved {
        let (edges, evidence): (Vec<(String, ImportKind)>, Vec<Vec<Evidence>>) = edges
            .into_iter()
            .map(|(to, ev)| {
                let kind = ev.iter().map(|e| e.kind).max().unwrap_or_default();
                ((to, kind), ev)
            })
            .unzip();
        Resolved {
            edges: ModuleEdges { fingerprint, edges },
            evidence: ModuleEvidence {
                fingerprint,
                evidence,
            },
        }
    }
}

/// Which build of mesh made a cache: the cache's format, mesh's version, the scanner version
/// and this binary's size and modification time (a rebuilt mesh, whose discovery or
/// resolution may differ without a new version number, never trusts another build's cache).
pub(crate) fn made_by() -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(b"mesh graph cache\n");
    h.update(&CACHE_FORMAT.to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    h.update(&SCANNER_VERSION.to_le_bytes());
    h.update(binary_identity().as_bytes());
    *h.finalize().as_bytes()
}

/// What a load is computed from: the build of mesh ([`made_by`]), mesh.toml, and each
/// repository's root tree. Equal keys give equal answers.
pub fn key(mesh: &MeshConfig, snapshot: &Snapshot) -> [u8; 32] {
    key_of(
        mesh,
        snapshot.repos.iter().map(|r| (r.name.as_str(), &r.tree)),
    )
}

/// [`key`] from each repository's name and root tree alone: what a verb computes before
/// reading anything else (see [`super::answer`]).
pub(crate) fn key_of<'a>(
    mesh: &MeshConfig,
    repos: impl IntoIterator<Item = (&'a str, &'a ObjectId)>,
) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(&made_by());
    h.update(&(mesh.text.len() as u64).to_le_bytes());
    h.update(mesh.text.as_bytes());
    h.update(mesh.dir.to_string_lossy().as_bytes());
    for (name, tree) in repos {
        h.update(&(name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update(tree.as_bytes());
    }
    *h.finalize().as_bytes()
}

/// This binary's size and modification time.
fn binary_identity() -> String {
    let meta = std::env::current_exe().and_then(std::fs::metadata);
    match meta {
        Ok(m) => {
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{} {t}", m.len())
        }
        Err(_) => String::from("unknown"),
    }
}

/// The fingerprint of a module's resolution: the whole mesh's names and directories (`world`),
/// and its own source, renames, ignore patterns and path aliases.
pub(crate) fn fingerprint(
    world: &[u8; 32],
    m: &ModuleSource,
    renames: &[(String, String)],
    js_paths: &[(String, String)],
) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(world);
    h.update(&SCANNER_VERSION.to_le_bytes());
    let mut field = |b: &[u8]| {
        h.update(&(b.len() as u64).to_le_bytes());
        h.update(b);
    };
    field(m.name().as_bytes());
    field(m.source_id.as_bytes());
    for (a, b) in renames.iter().chain(js_paths) {
        field(a.as_bytes());
        field(b.as_bytes());
    }
    field(b"ignore");
    for i in &m.manifest.ignore {
        field(i.as_bytes());
    }
    *h.finalize().as_bytes()
}

/// The fingerprint of what every module's resolution reads of the others: each module's name,
/// repository, directory and provided names.
pub fn world(snapshot: &Snapshot, provides: &[Vec<(Language, String)>]) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    let mut field = |b: &[u8]| {
        h.update(&(b.len() as u64).to_le_bytes());
        h.update(b);
    };
    for (m, p) in snapshot.modules.iter().zip(provides) {
        field(m.name().as_bytes());
        field(snapshot.repo_of(m).name.as_bytes());
        field(m.dir.as_bytes());
        for (lang, name) in p {
            field(format!("{lang:?}").as_bytes());
            field(name.as_bytes());
        }
        field(b"");
    }
    *h.finalize().as_bytes()
}

/// The head, if there is one that decodes (a damaged one is as good as none) and this build
/// of mesh made it.
pub(crate) fn read_head(r: &Reader) -> Option<Head> {
    let made_by = made_by();
    r.get_cached(GRAPH_HEAD, HEAD_KEY)
        .filter(|h: &Head| h.made_by == made_by)
}

/// The head's modules for a load: each module's place, manifest and source id, its facts,
/// and the names, aliases and fingerprint its resolution used.
pub fn modules(
    snapshot: &Snapshot,
    facts: &[Facts],
    provides: &[Vec<(Language, String)>],
    js_paths: &[Vec<(String, String)>],
    fingerprints: &[[u8; 32]],
) -> Vec<CachedModule> {
    snapshot
        .modules
        .iter()
        .enumerate()
        .map(|(i, m)| CachedModule {
            repo: snapshot.repo_of(m).name.clone(),
            dir: m.dir.clone(),
            tree: m.tree.as_bytes().to_vec(),
            manifest_blob: m.manifest_blob.as_bytes().to_vec(),
            manifest: m.manifest.clone(),
            nested: m.nested.clone(),
            source_id: m.source_id.clone(),
            facts: facts[i].clone(),
            provides: provides[i].clone(),
            js_paths: js_paths[i].clone(),
            fingerprint: fingerprints[i],
        })
        .collect()
}

/// The head and, in its module order, each module's edges whose fingerprint is the head's
/// (`None` where there are none, or they do not match or decode), with their evidence when
/// `evidence` is asked for (then `None` too where the evidence is not theirs): all a load over
/// unchanged refs reads of the store, in one read.
pub fn read(r: &Reader, evidence: bool) -> Option<(Head, Vec<Option<CachedEdges>>)> {
    let head = read_head(r)?;
    let names = || head.modules.iter().map(|m| m.manifest.name.as_bytes());
    let edges = r.get_many_cached(GRAPH_EDGES, names());
    let lines: Vec<Option<ModuleEvidence>> = if evidence {
        r.get_many_cached(GRAPH_EVIDENCE, names())
    } else {
        Vec::new()
    };
    let mut lines = lines.into_iter();
    let cached = head
        .modules
        .iter()
        .zip(edges)
        .map(|(m, e)| {
            let e = e.filter(|e| e.fingerprint == m.fingerprint);
            if !evidence {
                return e.map(|edges| CachedEdges {
                    edges,
                    evidence: None,
                });
            }
            let l = lines.next().flatten().filter(|l| {
                l.fingerprint == m.fingerprint
                    && e.as_ref()
                        .is_some_and(|e| e.edges.len() == l.evidence.len())
            });
            Some(CachedEdges {
                edges: e?,
                evidence: Some(l?.evidence),
            })
        })
        .collect();
    Some((head, cached))
}

/// One module's cached edges, with their evidence when it was read.
pub struct CachedEdges {
    /// The edges.
    pub edges: ModuleEdges,
    /// Per edge, its import lines: read only when asked for.
    pub evidence: Option<Vec<Vec<Evidence>>>,
}

/// What an earlier read found, for [`Snapshot::read_since`].
pub(crate) fn prior(head: &Head) -> Option<Prior> {
    let mut repos: Vec<PriorRepo> = Vec::new();
    for (name, tree) in &head.repos {
        repos.push(PriorRepo {
            name: name.clone(),
            tree: object_id(tree)?,
            modules: Vec::new(),
        });
    }
    for m in &head.modules {
        let repo = repos.iter_mut().find(|r| r.name == m.repo)?;
        repo.modules.push(ModuleSource {
            manifest: m.manifest.clone(),
            manifest_blob: object_id(&m.manifest_blob)?,
            repo: 0,
            dir: m.dir.clone(),
            tree: object_id(&m.tree)?,
            nested: m.nested.clone(),
            source_id: m.source_id.clone(),
        });
    }
    Some(Prior { repos })
}

/// An object id from its bytes, if they are one.
fn object_id(bytes: &[u8]) -> Option<ObjectId> {
    ObjectId::try_from(bytes).ok()
}

/// Writes the head and the edges (and evidence) of the modules whose fingerprint moved;
/// removes those of modules that are gone.
pub fn write(
    w: &Writer,
    head: &Head,
    changed: &[(&str, &Resolved)],
    gone: &[String],
) -> Result<(), StoreError> {
    for (name, r) in changed {
        w.put(GRAPH_EDGES, name.as_bytes(), &r.edges)?;
        w.put(GRAPH_EVIDENCE, name.as_bytes(), &r.evidence)?;
    }
    for name in gone {
        w.remove(GRAPH_EDGES, name.as_bytes())?;
        w.remove(GRAPH_EVIDENCE, name.as_bytes())?;
    }
    w.put(GRAPH_HEAD, HEAD_KEY, head)?;
    Ok(())
}

/// One edge from imports as the graph assembles it: (from, to) by index.
pub type IndexedEdge = ((usize, usize), ImportEdge);

/// The edges `from` makes, as the graph assembles them: by (from, to) index, with their
/// evidence when it was read.
pub(crate) fn edge_list(
    from: usize,
    cached: CachedEdges,
    index: impl Fn(&str) -> Option<usize>,
) -> Option<Vec<IndexedEdge>> {
    let mut lines = cached.evidence.map(Vec::into_iter);
    cached
        .edges
        .edges
        .into_iter()
        .map(|(to, kind)| {
            let evidence = lines.as_mut().and_then(Iterator::next).unwrap_or_default();
            Some(((from, index(&to)?), ImportEdge { kind, evidence }))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn head(made_by: [u8; 32]) -> Head {
        Head {
            key: [1; 32],
            made_by,
            repos: vec![("r".into(), vec![0; 20])],
            modules: Vec::new(),
            warnings: vec!["w".into()],
        }
    }

    /// A head another build of mesh wrote (another scanner version, another binary) is not
    /// read at all; this build's is.
    #[test]
    fn another_builds_head_is_never_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("state.redb");
        let write = |h: &Head| {
            let store = Store::open(&path).expect("open");
            store
                .write(|w| w.put(GRAPH_HEAD, HEAD_KEY, h))
                .expect("write");
        };
        write(&head([0; 32]));
        assert!(Store::peek(&path, read_head).expect("peek").is_none());
        write(&head(made_by()));
        let read = Store::peek(&path, read_head).expect("peek").expect("head");
        assert_eq!(read.warnings, vec!["w".to_string()]);
    }

    /// No store is no head (and no store is made for asking).
    #[test]
    fn no_store_is_no_head() {
        assert_eq!(made_by(), made_by());
        assert!(Store::peek(std::path::Path::new("/nonexistent/state.redb"), read_head).is_none());
    }
}
