//! What a REV names, and which modules it changed: their source id at the commit compared with
//! the source id at its first parent.

use crate::source::{ModuleSource, RepoSnapshot, SourceError};
use gix::ObjectId;
use std::collections::HashMap;

/// Resolves `spec` in `repo` to a commit: a full or abbreviated commit id, a ref (`HEAD`,
/// `main`, `refs/heads/main`, a tag), each optionally followed by `~N`, `^` or `^N`, as git
/// reads them. `Ok(None)`: it names nothing in this repository. `Err`: it is ambiguous or
/// malformed, in words for a person.
pub fn resolve(repo: &gix::Repository, spec: &str) -> Result<Option<ObjectId>, String> {
    let cut = spec.find(['~', '^']).unwrap_or(spec.len());
    let (base, mut rest) = spec.split_at(cut);
    let Some(mut id) = resolve_base(repo, base)? else {
        return Ok(None);
    };
    while !rest.is_empty() {
        let op = rest.as_bytes()[0];
        rest = &rest[1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let n: Option<usize> = if digits == 0 {
            None
        } else {
            Some(
                rest[..digits]
                    .parse()
                    .map_err(|_| format!("`{spec}`: {} is too large", &rest[..digits]))?,
            )
        };
        rest = &rest[digits..];
        let parent = |id: ObjectId, nth: usize| -> Result<Option<ObjectId>, String> {
            let c = repo.find_commit(id).map_err(|e| e.to_string())?;
            Ok(c.parent_ids().nth(nth).map(|p| p.detach()))
        };
        let next = match (op, n) {
            (b'^', Some(0)) => Some(id),
            (b'^', n) => parent(id, n.unwrap_or(1) - 1)?,
            (_, n) => {
                let mut at = Some(id);
                for _ in 0..n.unwrap_or(1) {
                    at = match at {
                        Some(a) => parent(a, 0)?,
                        None => None,
                    };
                }
                at
            }
        };
        id = next.ok_or_else(|| format!("`{spec}` goes past the first commit"))?;
    }
    Ok(Some(id))
}

/// A commit id, abbreviated id or ref name, peeled to a commit.
fn resolve_base(repo: &gix::Repository, base: &str) -> Result<Option<ObjectId>, String> {
    if base.is_empty() {
        return Err("a revision must start with a commit id or a ref name".into());
    }
    let hex = base.len() >= 4 && base.bytes().all(|b| b.is_ascii_hexdigit());
    let mut found: Option<ObjectId> = None;
    if hex && base.len() == repo.object_hash().len_in_hex() {
        if let Ok(id) = ObjectId::from_hex(base.as_bytes())
            && repo.has_object(id)
        {
            found = Some(id);
        }
    } else if hex {
        let prefix = gix::hash::Prefix::from_hex(base).map_err(|e| e.to_string())?;
        match repo.objects.lookup_prefix(prefix, None) {
            Ok(Some(Ok(id))) => found = Some(id),
            Ok(Some(Err(()))) => {
                return Err(format!(
                    "`{base}` is the start of more than one object id: give more of it"
                ));
            }
            Ok(None) => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    if found.is_none()
        && let Ok(Some(mut r)) = repo.try_find_reference(base)
    {
        found = Some(r.peel_to_id().map_err(|e| e.to_string())?.detach());
    }
    let Some(id) = found else {
        return Ok(None);
    };
    match repo.find_object(id).map(|o| o.peel_to_commit()) {
        Ok(Ok(c)) => Ok(Some(c.id)),
        _ => Err(format!("`{base}` names an object that is not a commit")),
    }
}

/// `snap`'s repository as it is at `commit`: the same modules, read at another tree.
pub fn at(snap: &RepoSnapshot, commit: ObjectId) -> Result<RepoSnapshot, SourceError> {
    let c = snap
        .repo
        .find_commit(commit)
        .map_err(|e| SourceError::git(&snap.name, "cannot read a commit", e))?;
    let tree = c
        .tree_id()
        .map_err(|e| SourceError::git(&snap.name, "cannot read a commit's tree", e))?
        .detach();
    Ok(RepoSnapshot {
        name: snap.name.clone(),
        path: snap.path.clone(),
        commit,
        tree,
        repo: snap.repo.clone(),
        stale: None,
    })
}

/// Directory listings read from git once per tree id, whatever the commit: modules of one
/// repository share most of their trees between a commit and its parent, so looking up 500
/// module directories at both costs a few tree reads, not a thousand.
#[derive(Default)]
pub struct Trees {
    /// Tree id → its entries: name → (id, whether it is a tree).
    listings: HashMap<ObjectId, HashMap<String, (ObjectId, bool)>>,
}

impl Trees {
    /// The tree id of `dir` (repo-relative, `""` for the root) in `snap`'s tree, or `None`.
    pub fn dir(&mut self, snap: &RepoSnapshot, dir: &str) -> Result<Option<ObjectId>, SourceError> {
        let mut at = snap.tree;
        if dir.is_empty() {
            return Ok(Some(at));
        }
        for part in dir.split('/') {
            let listing = match self.listings.entry(at) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let tree = snap
                        .repo
                        .find_tree(at)
                        .map_err(|e| SourceError::git(&snap.name, "cannot read a tree", e))?;
                    let mut entries = HashMap::new();
                    for entry in tree.iter() {
                        let entry = entry
                            .map_err(|e| SourceError::git(&snap.name, "cannot decode a tree", e))?;
                        entries.insert(
                            entry.filename().to_string(),
                            (entry.object_id(), entry.mode().is_tree()),
                        );
                    }
                    e.insert(entries)
                }
            };
            match listing.get(part) {
                Some((id, true)) => at = *id,
                _ => return Ok(None),
            }
        }
        Ok(Some(at))
    }

    /// The source id `m` has in `snap` (a repository at some commit), or `None` when its
    /// directory is not there. The module's nested modules and inputs are the ones it has at
    /// the ref.
    pub fn source(
        &mut self,
        snap: &RepoSnapshot,
        m: &ModuleSource,
    ) -> Result<Option<String>, SourceError> {
        let Some(tree) = self.dir(snap, &m.dir)? else {
            return Ok(None);
        };
        crate::source::source_id(snap, &m.dir, tree, &m.nested, &m.manifest.inputs).map(Some)
    }
}

/// One commit's subject line and committer time (Unix seconds).
pub fn describe(snap: &RepoSnapshot, commit: ObjectId) -> Result<(String, i64), SourceError> {
    let c = snap
        .repo
        .find_commit(commit)
        .map_err(|e| SourceError::git(&snap.name, "cannot read a commit", e))?;
    let subject = c
        .message()
        .map(|m| m.summary().to_string())
        .unwrap_or_default();
    let time = c.time().map(|t| t.seconds).unwrap_or(0);
    Ok((subject, time))
}

/// The first parent of `commit`, if it has one.
pub(crate) fn first_parent(
    snap: &RepoSnapshot,
    commit: ObjectId,
) -> Result<Option<ObjectId>, SourceError> {
    let c = snap
        .repo
        .find_commit(commit)
        .map_err(|e| SourceError::git(&snap.name, "cannot read a commit", e))?;
    Ok(c.parent_ids().next().map(|p| p.detach()))
}
