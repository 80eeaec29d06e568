//! The names a module provides and reads beyond its own files: its Go import path (from the
//! nearest `go.mod`), the Rust renames its workspace gives it, its `tsconfig.json` aliases.

use super::cache::Facts;
use crate::Result;
use crate::source::{self, RepoSnapshot, Snapshot, blob_text};
use mesh_imports::manifest;
use mesh_imports::tsconfig;
use std::collections::HashMap;

/// Go import names: the nearest `go.mod` at or above each module that has Go code or a go.mod,
/// its `module` path joined with the module's directory below it.
pub(super) fn go_names(snapshot: &Snapshot, facts: &[Facts]) -> Result<Vec<Option<String>>> {
    let mut memo = source::Nearest::new();
    let mut out = Vec::new();
    for (m, f) in snapshot.modules.iter().zip(facts) {
        if !f.has_go {
            out.push(None);
            continue;
        }
        let snap = snapshot.repo_of(m);
        let found = nearest_go_mod(snap, m.repo, &m.dir, &mut memo)?;
        out.push(found.map(|(dir, path)| {
            let below = if dir.is_empty() {
                m.dir.as_str()
            } else {
                m.dir
                    .strip_prefix(&dir)
                    .unwrap_or("")
                    .trim_start_matches('/')
            };
            if below.is_empty() {
                path
            } else {
                format!("{path}/{below}")
            }
        }));
    }
    Ok(out)
}

/// Each module's Rust renames: its own `Cargo.toml`'s, and those its workspace's `Cargo.toml`
/// gives the dependencies it inherits. Read whenever the graph cache cannot answer (the
/// workspace manifest may lie outside the module, so no record can hold them), but only for
/// modules that inherit.
pub(super) fn rust_renames(
    snapshot: &Snapshot,
    facts: &[Facts],
) -> Result<Vec<Vec<(String, String)>>> {
    let mut out = Vec::with_capacity(facts.len());
    // Members share their workspace's manifest: each Cargo.toml is read once.
    let mut memo = HashMap::new();
    for (m, facts) in snapshot.modules.iter().zip(facts) {
        let mut renames = facts.rust_renames.clone();
        if !facts.rust_workspace_deps.is_empty()
            && let Some(text) =
                source::cargo_workspace(snapshot.repo_of(m), m.repo, &m.dir, &mut memo)?
        {
            for pair in manifest::workspace_renames(&text, &facts.rust_workspace_deps) {
                if !renames.contains(&pair) {
                    renames.push(pair);
                }
            }
        }
        out.push(renames);
    }
    Ok(out)
}

/// Each module's `tsconfig.json` (else `jsconfig.json`) `paths` aliases, for the modules with
/// JS/TS code: `known(i)` gives a module's cached aliases when its tree did not move (they are
/// read from that tree alone); the others are read.
pub(super) fn js_paths(
    snapshot: &Snapshot,
    facts: &[Facts],
    known: impl Fn(usize) -> Option<Vec<(String, String)>>,
) -> Result<Vec<Vec<(String, String)>>> {
    let mut out = Vec::with_capacity(facts.len());
    for (i, (m, f)) in snapshot.modules.iter().zip(facts).enumerate() {
        if !f.has_js {
            out.push(Vec::new());
            continue;
        }
        // Read from the module's own tree: the same tree gives the same aliases.
        if let Some(same) = known(i) {
            out.push(same);
            continue;
        }
        let snap = snapshot.repo_of(m);
        let tree = snap.module_tree(m)?;
        let mut aliases = Vec::new();
        for name in ["tsconfig.json", "jsconfig.json"] {
            if let Some(text) = blob_text(snap, &tree, name)? {
                aliases = tsconfig::paths(&m.dir, &text);
                break;
            }
        }
        out.push(aliases);
    }
    Ok(out)
}

/// (directory of the nearest go.mod at or above `dir`, its module path).
fn nearest_go_mod(
    snap: &RepoSnapshot,
    repo: usize,
    dir: &str,
    memo: &mut source::Nearest<Option<(String, String)>>,
) -> Result<Option<(String, String)>> {
    let root = snap.root_tree()?;
    // The nearest go.mod ends the walk, even one without a `module` line.
    let found = source::nearest(repo, dir, memo, |d| -> Result<_> {
        Ok(blob_text(snap, &root, &source::join(d, "go.mod"))?
            .map(|text| manifest::go_module_path(&text).map(|p| (d.to_string(), p))))
    })?;
    Ok(found.flatten())
}
