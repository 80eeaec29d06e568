//! Rendered answers: what a verb printed over the graph, kept under the graph cache's key, so
//! that asking again on trees that did not move is ref → root tree → bytes, with no head, no
//! edges and no evidence decoded (a warm `mesh graph --json` on a large mesh is megabytes of
//! evidence, and decoding and re-encoding it cost more than reading the refs).
//!
//! An answer is served only when its key is the key the graph would be loaded under now: the
//! same build of mesh, the same mesh.toml and every repository's root tree the same (see
//! [`super::cache::key`]; equal keys give equal graphs). It is read only for meshes of local
//! repositories, whose refs are read without a fetch. A damaged entry fails its checksum and is
//! no answer: the verb loads the graph as if there were none, and keeps the new answer.

use super::cache;
use crate::config::MeshConfig;
use crate::store::{Store, Table};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Verbs' rendered answers over the graph, by question: what a verb printed for a cache key, so
/// the same question on the same trees prints the same bytes without loading the graph.
pub(crate) const GRAPH_ANSWER: Table<Answer> = Table::new("graph_answer");

/// What a verb printed for one question on one cache key.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Answer {
    /// [`cache::key`] of the load it was rendered from.
    pub key: [u8; 32],
    /// Lines shown with `-v`, in order.
    pub details: Vec<String>,
    /// Warnings, in order.
    pub warnings: Vec<String>,
    /// Notes, in order.
    pub notes: Vec<String>,
    /// Exactly what went to stdout.
    pub stdout: String,
    /// The exit code it gave.
    pub code: i32,
}

/// The cache key the graph of this mesh would be loaded under now, from the refs alone; `None`
/// when a repository is followed by URL (reading it may fetch) or a ref does not resolve.
pub fn current_key(mesh: &MeshConfig) -> Option<[u8; 32]> {
    let trees = crate::source::local_trees(mesh)?;
    Some(cache::key_of(
        mesh,
        trees.iter().map(|(name, tree)| (name.as_str(), tree)),
    ))
}

/// The answer kept for `question` under `key`, if there is one that decodes and was rendered
/// from that key. The store is opened read-only: nothing is written, nothing synced.
pub fn read(store_path: &Path, question: &str, key: &[u8; 32]) -> Option<Answer> {
    Store::peek(store_path, |r| {
        r.get_cached(GRAPH_ANSWER, question.as_bytes())
    })
    .flatten()
    .filter(|a: &Answer| &a.key == key)
}

/// Keeps `answer` for `question`, replacing the one before. Best effort: an answer that
/// cannot be kept (the store busy or read-only) is only a slower next run, never an error.
pub fn keep(store_path: &Path, question: &str, answer: &Answer) {
    if let Ok(store) = Store::open(store_path) {
        let _ = store.write(|w| w.put(GRAPH_ANSWER, question.as_bytes(), answer));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(key: [u8; 32]) -> Answer {
        Answer {
            key,
            details: vec!["d".into()],
            warnings: vec!["w".into()],
            notes: Vec::new(),
            stdout: "{\"modules\":[]}\n".into(),
            code: 0,
        }
    }

    /// An answer is read back only under its own key and question; no store is no answer.
    #[test]
    fn an_answer_is_served_only_for_its_key() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("state.redb");
        assert!(read(&path, "graph", &[1; 32]).is_none());
        keep(&path, "graph", &answer([1; 32]));
        assert_eq!(read(&path, "graph", &[1; 32]), Some(answer([1; 32])));
        assert!(read(&path, "graph", &[2; 32]).is_none());
        assert!(read(&path, "plan", &[1; 32]).is_none());
        keep(&path, "graph", &answer([2; 32]));
        assert!(read(&path, "graph", &[1; 32]).is_none());
        assert_eq!(read(&path, "graph", &[2; 32]), Some(answer([2; 32])));
    }
}
