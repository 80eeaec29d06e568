//! Walking trees: where the modules are, what each one owns, and its source id.

use super::{RepoSnapshot, SourceError, is_below};
use crate::config::MODULE_MANIFEST;
use gix::ObjectId;
use gix::objs::tree::EntryKind;

/// A manifest found in a tree.
#[derive(Clone)]
pub struct Found {
    /// The module directory, repo-relative.
    pub dir: String,
    /// The manifest blob.
    pub manifest: ObjectId,
    /// The directory's tree.
    pub tree: ObjectId,
}

/// One file a module owns.
#[derive(Debug, Clone)]
pub struct FileEntry {
    /// Repo-relative path.
    pub path: String,
    /// Blob id.
    pub id: ObjectId,
}

/// The blob a symbolic link in directory `dir` points to, when its target is a file of the
/// module at `module` (`root` is the repository's tree), outside its `nested` modules: a
/// relative path that stays inside the module. An absolute target, one outside, or one that
/// is no file is none.
fn link_target(
    snap: &RepoSnapshot,
    root: &gix::Tree,
    (module, nested): (&str, &[String]),
    dir: &str,
    link: ObjectId,
) -> Option<ObjectId> {
    let blob = snap.repo.find_blob(link).ok()?;
    let target = std::str::from_utf8(&blob.data).ok()?.trim_end_matches('\n');
    if target.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    let target = parts.join("/");
    let outside = !module.is_empty() && !is_below(&target, module);
    if outside || nested.iter().any(|n| is_below(&target, n)) {
        return None;
    }
    let entry = root.lookup_entry_by_path(target).ok()??;
    entry.mode().is_blob().then(|| entry.object_id())
}

/// Code of a module mesh cannot read, as [`code_not_held`] finds it, saying where it is.
pub(crate) enum NotHeld {
    /// A submodule in the module's tree: code of the module, shipped or not.
    Submodule(String),
    /// A link from the module's tree into a submodule: the module's own code (its `src`).
    Linked(String),
}

/// The first submodule in the module at `dir` (tree `tree`, its `nested` modules left out),
/// or symbolic link in it to code in a submodule, whose files mesh never reads, with where
/// it points: docmost's server holds its private `src/ee` as a submodule, novu's enterprise
/// packages link `src` into one, so the module's code is not there to read. A link to a file
/// that is no source (a README), a submodule or link in test data, or a submodule under
/// `docs/` (a site's theme), is none.
/// `None` when the repository has no submodule (no `.gitmodules`) or none is there.
pub(crate) fn code_not_held(
    snap: &RepoSnapshot,
    dir: &str,
    tree: ObjectId,
    nested: &[String],
) -> Result<Option<NotHeld>, SourceError> {
    let root = snap.root_tree()?;
    if root
        .lookup_entry_by_path(".gitmodules")
        .ok()
        .flatten()
        .is_none()
    {
        return Ok(None);
    }
    let prefix = match dir.is_empty() {
        true => String::new(),
        false => format!("{dir}/"),
    };
    let mut found = None;
    module_entries(snap, (dir, tree), nested, &mut |d, path, kind, id| {
        let rel = path.strip_prefix(&prefix).unwrap_or(path);
        if mesh_imports::place::never_read(rel) {
            return Ok(false);
        }
        // A submodule in the module's own tree (docmost's private `src/ee`, which CI checks
        // out before the build): its code is the module's.
        // A documentation site's theme (`docs/themes/x`) is no code of the module.
        let in_docs = rel.split('/').any(|d| matches!(d, "docs" | "doc"));
        if kind == EntryKind::Commit && !in_docs {
            found = Some(NotHeld::Submodule(format!(
                "{path} is a submodule, which mesh does not read"
            )));
            return Ok(true);
        }
        if kind != EntryKind::Link {
            return Ok(false);
        }
        let Ok(blob) = snap.repo.find_blob(id) else {
            return Ok(false);
        };
        let target = String::from_utf8_lossy(&blob.data).trim_end().to_string();
        let Some(resolved) =
            mesh_imports::repo_path(&[d, &target]).filter(|_| !target.starts_with('/'))
        else {
            return Ok(false);
        };
        // A directory (no extension) or a source file: code.
        let name = resolved.rsplit('/').next().unwrap_or(&resolved);
        if name.contains('.') && mesh_imports::Language::of_path(name).is_none() {
            return Ok(false);
        }
        // The first directory on the target's way that is a submodule.
        let submodule = resolved
            .match_indices('/')
            .map(|(i, _)| &resolved[..i])
            .chain([resolved.as_str()])
            .find(|prefix| {
                root.lookup_entry_by_path(prefix)
                    .ok()
                    .flatten()
                    .is_some_and(|e| e.mode().is_commit())
            });
        found = submodule.map(|sub| {
            NotHeld::Linked(format!(
                "{path} links to {target}, in the submodule {sub}, which mesh does not read"
            ))
        });
        Ok(found.is_some())
    })?;
    Ok(found)
}

/// What [`module_entries`] hands each entry to: (its directory, its path, its kind, its
/// object) → whether to stop.
type Visit<'v> = dyn FnMut(&str, &str, EntryKind, ObjectId) -> Result<bool, SourceError> + 'v;

/// Walks the tree `tree` of the module at `dir`, its `nested` modules' subtrees left out,
/// handing `visit` each entry that is no tree: the directory holding it, its path, its kind
/// and its object. `visit` returns whether to stop.
fn module_entries(
    snap: &RepoSnapshot,
    (dir, tree): (&str, ObjectId),
    nested: &[String],
    visit: &mut Visit<'_>,
) -> Result<(), SourceError> {
    let mut stack = vec![(dir.to_string(), tree)];
    while let Some((d, id)) = stack.pop() {
        let t = snap
            .repo
            .find_tree(id)
            .map_err(|e| git_err(snap, &format!("cannot read tree `{d}`"), e))?;
        for entry in t.iter() {
            let entry =
                entry.map_err(|e| git_err(snap, &format!("cannot decode tree `{d}`"), e))?;
            let path = join(&d, &entry.filename().to_string());
            match entry.mode().kind() {
                EntryKind::Tree if !nested.contains(&path) => {
                    stack.push((path, entry.object_id()));
                }
                EntryKind::Tree => {}
                kind => {
                    if visit(&d, &path, kind, entry.object_id())? {
                        return Ok(());
                    }
                }
            }
        }
    }
    Ok(())
}

fn git_err(snap: &RepoSnapshot, what: &str, e: impl std::fmt::Display) -> SourceError {
    SourceError::git(&snap.name, what, e)
}

/// Every directory holding a `mesh-module.toml`, found by reading tree objects only.
pub fn manifests(snap: &RepoSnapshot) -> Result<Vec<Found>, SourceError> {
    walk_manifests(snap, None, Vec::new())
}

/// [`manifests`], reading only what moved since `old_root`: a subtree whose id is the one at
/// the same path in `old_root` is not read, what `old` (found in `old_root`) says of it is
/// kept. A one-file commit reads the trees on the path to that file, twice (new and old).
pub(crate) fn manifests_since(
    snap: &RepoSnapshot,
    old_root: ObjectId,
    old: Vec<Found>,
) -> Result<Vec<Found>, SourceError> {
    walk_manifests(snap, Some(old_root), old)
}

/// The walk of [`manifests`] and [`manifests_since`]: with no `old_root`, every tree is read.
fn walk_manifests(
    snap: &RepoSnapshot,
    old_root: Option<ObjectId>,
    old: Vec<Found>,
) -> Result<Vec<Found>, SourceError> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), snap.tree, old_root)];
    while let Some((dir, id, before)) = stack.pop() {
        if before == Some(id) {
            out.extend(
                old.iter()
                    .filter(|f| f.dir == dir || is_below(&f.dir, &dir))
                    .cloned(),
            );
            continue;
        }
        // The old tree's subtrees by name (an old tree no longer in the repository: none).
        let mut was: Vec<(Vec<u8>, ObjectId)> = Vec::new();
        if let Some(old_tree) = before.and_then(|b| snap.repo.find_tree(b).ok()) {
            for entry in old_tree.iter().flatten() {
                if entry.mode().kind() == EntryKind::Tree {
                    was.push((entry.filename().to_vec(), entry.object_id()));
                }
            }
        }
        let tree = snap
            .repo
            .find_tree(id)
            .map_err(|e| git_err(snap, &format!("cannot read tree `{dir}`"), e))?;
        for entry in tree.iter() {
            let entry =
                entry.map_err(|e| git_err(snap, &format!("cannot decode tree `{dir}`"), e))?;
            let name = entry.filename();
            match entry.mode().kind() {
                EntryKind::Tree => {
                    let then = was
                        .iter()
                        .find(|(n, _)| n.as_slice() == name.as_ref() as &[u8])
                        .map(|(_, id)| *id);
                    stack.push((join(&dir, &name.to_string()), entry.object_id(), then));
                }
                EntryKind::Blob | EntryKind::BlobExecutable if name == MODULE_MANIFEST => {
                    out.push(Found {
                        dir: dir.clone(),
                        manifest: entry.object_id(),
                        tree: id,
                    });
                }
                _ => {}
            }
        }
    }
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(out)
}

/// `dir/name`, or `name` at the root.
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// The source id of a module at `dir` with tree `tree`: the tree id itself when it owns the whole
/// directory and names no inputs; otherwise a blake3 over its tree with nested modules left out
/// and the ids of its inputs, so a change in a nested module never moves it.
pub(crate) fn source_id(
    snap: &RepoSnapshot,
    dir: &str,
    tree: ObjectId,
    nested: &[String],
    inputs: &[String],
) -> Result<String, SourceError> {
    if nested.is_empty() && inputs.is_empty() {
        return Ok(tree.to_string());
    }
    let mut h = blake3::Hasher::new();
    h.update(b"mesh source v1\n");
    hash_tree(snap, dir, tree, nested, &mut h)?;
    let root = snap.root_tree()?;
    for input in inputs {
        let entry = root
            .lookup_entry_by_path(input)
            .map_err(|e| git_err(snap, &format!("cannot look up input `{input}`"), e))?;
        match entry {
            Some(e) => h.update(format!("input {input} {}\n", e.object_id()).as_bytes()),
            None => h.update(format!("input {input} missing\n").as_bytes()),
        };
    }
    Ok(h.finalize().to_hex().to_string())
}

/// Feeds a tree's listing to `h`, descending only into subtrees that hold nested modules.
fn hash_tree(
    snap: &RepoSnapshot,
    dir: &str,
    id: ObjectId,
    nested: &[String],
    h: &mut blake3::Hasher,
) -> Result<(), SourceError> {
    let tree = snap
        .repo
        .find_tree(id)
        .map_err(|e| git_err(snap, &format!("cannot read tree `{dir}`"), e))?;
    for entry in tree.iter() {
        let entry = entry.map_err(|e| git_err(snap, &format!("cannot decode tree `{dir}`"), e))?;
        let path = join(dir, &entry.filename().to_string());
        if nested.contains(&path) {
            continue;
        }
        let kind = entry.mode().kind();
        if kind == EntryKind::Tree && nested.iter().any(|n| is_below(n, &path)) {
            h.update(format!("tree {path}\n").as_bytes());
            hash_tree(snap, &path, entry.object_id(), nested, h)?;
        } else {
            h.update(
                format!("{:o} {path} {}\n", entry.mode().value(), entry.object_id()).as_bytes(),
            );
        }
    }
    Ok(())
}

/// Every regular file a module owns: its tree without nested modules' subtrees, and each
/// source file that is a symlink to a file of the module's own tree, as that file. A link
/// out of the module is no file of it: the module's source id (its tree) would not move when
/// the target changes, and its kept scan would go stale. Submodules are not files either.
pub(crate) fn module_files(
    snap: &RepoSnapshot,
    dir: &str,
    tree: ObjectId,
    nested: &[String],
) -> Result<Vec<FileEntry>, SourceError> {
    let mut out = Vec::new();
    let mut root: Option<gix::Tree<'_>> = None;
    module_entries(snap, (dir, tree), nested, &mut |d, path, kind, id| {
        match kind {
            EntryKind::Blob | EntryKind::BlobExecutable => out.push(FileEntry {
                path: path.to_string(),
                id,
            }),
            // A source file linked to another in the repository (etcd's
            // `client/v3/example_metrics_test.go`) is compiled as that file's text.
            EntryKind::Link if mesh_imports::Language::of_path(path).is_some() => {
                let root = match &root {
                    Some(root) => root,
                    None => root.insert(snap.root_tree()?),
                };
                if let Some(id) = link_target(snap, root, (dir, nested), d, id) {
                    out.push(FileEntry {
                        path: path.to_string(),
                        id,
                    });
                }
            }
            _ => {}
        }
        Ok(false)
    })?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}
