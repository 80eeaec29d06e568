//! Declaring files nested in a module, below its root, that answer the imports of the files
//! below them: a `package.json` no module stands for (Node resolves through its
//! `node_modules` first), a `requirements.txt` beside a CI script (it runs in the environment
//! that file describes). Each directory is read once, on demand.

use crate::source::{self, RepoSnapshot, blob_text};
use std::collections::HashMap;

/// The nested declaring files of one module: the first of `names` in a directory, read by
/// `parse` into what it declares (`T`).
pub(super) struct Nested<'s, T> {
    snap: &'s RepoSnapshot,
    tree: Option<gix::Tree<'s>>,
    /// The module's directory with a trailing `/` (empty at the root).
    prefix: String,
    /// The file names looked for in each directory, in order.
    names: &'static [&'static str],
    /// What a file's text declares.
    parse: fn(&str) -> T,
    /// Per module-relative directory, (its declaring file, what it declares), `None`
    /// without one.
    memo: HashMap<String, Option<(String, T)>>,
}

impl<'s, T> Nested<'s, T> {
    /// The files named `names` nested in the module whose tree is `tree`, at `prefix` in the
    /// repository, read by `parse`.
    pub(super) fn new(
        snap: &'s RepoSnapshot,
        tree: gix::ObjectId,
        prefix: &str,
        names: &'static [&'static str],
        parse: fn(&str) -> T,
    ) -> Self {
        Nested {
            snap,
            tree: snap.repo.find_tree(tree).ok(),
            prefix: prefix.to_string(),
            names,
            parse,
            memo: HashMap::new(),
        }
    }

    /// The repository path of the nearest such file below the module's root and above its
    /// file `rel` whose declarations `answers` accepts.
    pub(super) fn answering(&mut self, rel: &str, answers: impl Fn(&T) -> bool) -> Option<String> {
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        for at in mesh_imports::ancestors(dir).filter(|d| !d.is_empty()) {
            if !self.memo.contains_key(at) {
                let found = self.names.iter().find_map(|name| {
                    let path = source::join(at, name);
                    let text = blob_text(self.snap, self.tree.as_ref()?, &path).ok()??;
                    Some((path, (self.parse)(&text)))
                });
                self.memo.insert(at.to_string(), found);
            }
            if let Some(Some((path, declared))) = self.memo.get(at)
                && answers(declared)
            {
                return Some(format!("{}{path}", self.prefix));
            }
        }
        None
    }
}
