//! The last drift answer, kept with the key of what it was computed from (the graph cache's
//! key: this build of mesh, mesh.toml, each repository's tree) and with the installed
//! packages it read beside the trees (`node_modules`, a `.venv`), so that `mesh drift` on refs
//! that did not move and installs that did not change reads one value instead of every
//! module's files and imports. An entry that does not decode, or was computed from anything
//! else, is recomputed, never an error.

use super::Finding;
use crate::graph::Loaded;
use crate::store::{Reader, StoreError, Table, Writer};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
    /// The modules whose imports were not checked, with why.
    pub unchecked: Vec<super::Unchecked>,
    /// The install directories drift read (or would have read) beside the trees, as they
    /// stood: an install since (`npm install` adds a package's `bin` and peers) moves one.
    pub installs: Vec<Install>,
}

/// One directory of installed packages drift reads, and its stamp then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Install {
    /// The directory (`web/node_modules`, `.venv`), or `$VIRTUAL_ENV` by its value.
    pub path: String,
    /// The modification times of the directory and the files a package manager rewrites on
    /// every install, hashed; 0 when absent.
    pub stamp: u64,
}

/// The answer kept for `key`, if it is the one kept and no install it read has changed.
pub fn read(r: &Reader, key: &[u8; 32]) -> Option<Answer> {
    r.get_cached(DRIFT, LAST)
        .filter(|a| &a.key == key && a.installs.iter().all(|i| stamp(&i.path) == i.stamp))
}

/// Keeps `answer` as the last one.
pub fn write(w: &Writer, answer: &Answer) -> Result<(), StoreError> {
    w.put(DRIFT, LAST, answer)
}

/// The install directories drift reads for `loaded`'s modules, stamped now: each module's
/// and each repository root's `node_modules`, each module's `.venv` and `venv`, and the
/// environment `VIRTUAL_ENV` names.
pub fn installs(loaded: &Loaded) -> Vec<Install> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for m in &loaded.snapshot.modules {
        let repo = &loaded.snapshot.repo_of(m).path;
        let dir = repo.join(&m.dir);
        paths.push(repo.join("node_modules"));
        for d in ["node_modules", ".venv", "venv"] {
            paths.push(dir.join(d));
        }
    }
    paths.extend(std::env::var_os("VIRTUAL_ENV").map(PathBuf::from));
    paths.sort();
    paths.dedup();
    paths
        .into_iter()
        .map(|p| {
            let path = p.to_string_lossy().into_owned();
            Install {
                stamp: stamp(&path),
                path,
            }
        })
        .collect()
}

/// The files package managers rewrite on every install (npm, pnpm, yarn 1 and berry), and a
/// virtual environment's packages directory.
const MARKERS: &[&str] = &[
    ".package-lock.json",
    ".modules.yaml",
    ".yarn-integrity",
    ".yarn-state.yml",
    "pyvenv.cfg",
    "lib",
];

/// `path`'s stamp: its modification time and its markers', hashed (0 when it is absent).
fn stamp(path: &str) -> u64 {
    let dir = Path::new(path);
    let Ok(meta) = dir.metadata() else {
        return 0;
    };
    let mut h = blake3::Hasher::new();
    let mut add = |m: Option<std::fs::Metadata>| {
        let t = m
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        h.update(&t.to_le_bytes());
    };
    add(Some(meta));
    for marker in MARKERS {
        add(dir.join(marker).metadata().ok());
    }
    // A venv's `lib/pythonX.Y/site-packages` changes when a distribution is added.
    if let Ok(libs) = std::fs::read_dir(dir.join("lib")) {
        for lib in libs.flatten() {
            add(lib.path().join("site-packages").metadata().ok());
        }
    }
    let bytes = h.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&bytes.as_bytes()[..8]);
    u64::from_le_bytes(first).max(1)
}
