//! Scripts outside a JS package that its package.json runs (excalidraw's
//! `"build:esm": "node ../../scripts/buildPackage.js"`): what they import, and what the local
//! files they import import, is the package's tooling, declared by the package that runs it.

use super::command_words;
use crate::source::{RepoSnapshot, SourceError};
use std::collections::HashMap;

/// How many local files a script's imports are followed through.
const MAX_FILES: usize = 24;

/// The runtimes a script file is run with.
const RUNTIMES: &[&str] = &[
    "node",
    "tsx",
    "bun",
    "ts-node",
    "esno",
    "jiti",
    "vite-node",
    "deno",
    "zx",
];

/// Whether a command's word is a JS runtime that runs the script named after it
/// (`node`, `tsx`, …; `node@runtime:24` is pnpm's pinned node).
pub(super) fn is_runtime(word: &str) -> bool {
    RUNTIMES.contains(&word) || word.starts_with("node@")
}

/// The packages the scripts outside the package at `dir` (its `package_json`) that its
/// `scripts` run import, each with the script that runs it: followed through the local files
/// they import, up to [`MAX_FILES`] files.
pub(super) fn outside_script_imports(
    snap: &RepoSnapshot,
    dir: &str,
    package_json: &serde_json::Value,
) -> Result<HashMap<String, String>, SourceError> {
    let mut out = HashMap::new();
    let Some(scripts) = package_json.get("scripts").and_then(|s| s.as_object()) else {
        return Ok(out);
    };
    let mut todo: Vec<(String, String)> = Vec::new();
    for command in scripts.values().filter_map(|c| c.as_str()) {
        let words: Vec<&str> = command_words(command).filter(|w| !w.is_empty()).collect();
        for pair in words.windows(2) {
            if is_runtime(pair[0])
                && pair[1].starts_with("..")
                && let Some(path) = mesh_imports::repo_path(&[dir, pair[1]])
            {
                todo.push((path.clone(), path));
            }
        }
    }
    if todo.is_empty() {
        return Ok(out);
    }
    let root = snap.root_tree()?;
    let mut seen = std::collections::HashSet::new();
    while let Some((path, script)) = todo.pop() {
        if seen.len() >= MAX_FILES || !seen.insert(path.clone()) {
            continue;
        }
        let Some((file, text)) = crate::drift::js::resolve_file(snap, &root, &path)? else {
            continue;
        };
        // Relative imports resolve from the file found (`dir/index.js`'s own directory).
        let file_dir = file.rsplit_once('/').map_or("", |(d, _)| d);
        for imp in mesh_imports::js::scan_file(&text).imports.iter() {
            if imp.name.starts_with('.') {
                if let Some(next) = mesh_imports::repo_path(&[file_dir, &imp.name]) {
                    todo.push((next, script.clone()));
                }
            } else if let Some(package) = crate::drift::names::js_package(&imp.name) {
                out.entry(package.to_string())
                    .or_insert_with(|| script.clone());
            }
        }
    }
    Ok(out)
}
