//! Reading the mesh's git repositories with gix: refs, tree ids, module discovery, source ids,
//! blobs. Only the objects at the configured ref are read, never the work tree.

pub mod blobs;
mod discover;
pub mod export;
pub mod follow;

pub use discover::{FileEntry, join};
pub(crate) use discover::{NotHeld, code_not_held, module_files, source_id};

use crate::config::{MODULE_MANIFEST, MeshConfig, ModuleManifest, RepoConfig};
use gix::ObjectId;
use miette::Diagnostic;
use std::collections::BTreeMap;
use std::path::PathBuf;
use thiserror::Error as ThisError;

/// A git read that failed after the repository was opened.
#[derive(Debug, ThisError, Diagnostic)]
#[error("repository `{repo}`: {message}")]
#[diagnostic(code(mesh::source::git), help("{help}"))]
pub struct SourceError {
    /// The repository's name in the mesh.
    pub repo: String,
    /// What failed.
    pub message: String,
    /// What to do next.
    pub help: String,
}

impl SourceError {
    /// A failed git read in repository `repo`.
    pub fn git(repo: &str, what: &str, e: impl std::fmt::Display) -> Self {
        SourceError {
            repo: repo.to_string(),
            message: format!("{what}: {e}"),
            help: "check the repository with `git fsck`; mesh reads only committed objects".into(),
        }
    }
}

/// Why the repositories could not be read as the mesh names them: a git read that failed, or
/// a manifest (or mesh.toml entry) that they contradict, pointed at.
#[derive(Debug, ThisError, Diagnostic)]
pub enum ReadError {
    /// A git read failed.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Git(#[from] SourceError),
    /// A manifest or mesh.toml entry is wrong, as read at the commit.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Config(#[from] crate::config::ConfigError),
}

/// One repository, resolved to a commit.
pub struct RepoSnapshot {
    /// The repository's name in the mesh.
    pub name: String,
    /// Where it is.
    pub path: PathBuf,
    /// The commit the ref points at.
    pub commit: ObjectId,
    /// That commit's root tree.
    pub tree: ObjectId,
    /// The open repository.
    pub repo: gix::Repository,
    /// For a repository followed by URL whose fetch failed in this run: what failed and which
    /// commit (of the last good fetch) is read instead, as one sentence.
    pub stale: Option<String>,
}

/// One module as found at the ref.
#[derive(Debug, Clone)]
pub struct ModuleSource {
    /// The parsed manifest.
    pub manifest: ModuleManifest,
    /// Index into [`Snapshot::repos`].
    pub repo: usize,
    /// The module's directory, relative to the repository root (`""` for the root).
    pub dir: String,
    /// The tree id of that directory.
    pub tree: ObjectId,
    /// The blob id of its `mesh-module.toml`.
    pub manifest_blob: ObjectId,
    /// Directories of the modules nested inside this one (repo-relative), which it does not own.
    pub nested: Vec<String>,
    /// The source id.
    pub source_id: String,
}

impl ModuleSource {
    /// The module's name.
    pub fn name(&self) -> &str {
        &self.manifest.name
    }
}

/// Every repository and module, at their refs.
pub struct Snapshot {
    /// Repositories, in `mesh.toml` order.
    pub repos: Vec<RepoSnapshot>,
    /// Modules, sorted by name.
    pub modules: Vec<ModuleSource>,
}

impl Snapshot {
    /// The names of the modules the repositories hold now (a module deleted from them is not
    /// among them: what garbage collection needs to know).
    pub fn module_names(&self) -> std::collections::BTreeSet<String> {
        self.modules.iter().map(|m| m.name().to_string()).collect()
    }

    /// Reads every repository of the mesh: resolves refs, finds modules, parses their manifests,
    /// computes source ids. Fails on the first unreadable repository or bad manifest.
    pub fn read(mesh: &MeshConfig) -> Result<Snapshot, ReadError> {
        Self::read_since(mesh, None)
    }

    /// [`Snapshot::read`], reusing what an earlier read found (`prior`): a subtree whose id did
    /// not move is not walked, a manifest whose blob did not move is not parsed again, a source
    /// id whose inputs did not move is not hashed again. Gives exactly what `read` gives; any
    /// manifest the mesh refuses is refused by a full read, so the error points where `read`'s
    /// would.
    pub(crate) fn read_since(
        mesh: &MeshConfig,
        prior: Option<&Prior>,
    ) -> Result<Snapshot, ReadError> {
        let Some(prior) = prior else {
            return Self::read_full(mesh);
        };
        let mut repos: Vec<RepoSnapshot> = Vec::new();
        let mut modules = Vec::new();
        for cfg in &mesh.repos {
            let snap = open(mesh, cfg)?;
            let before = prior.repos.iter().find(|r| r.name == snap.name);
            if gather(&snap, repos.len(), before, None, &mut modules).is_err() {
                // Refused: a full read says why, pointing at the file.
                return Self::read_full(mesh);
            }
            repos.push(snap);
        }
        modules.sort_by(|a, b| a.manifest.name.cmp(&b.manifest.name));
        let snapshot = Snapshot { repos, modules };
        if snapshot.validate(mesh, None).is_err() {
            return Self::read_full(mesh);
        }
        Ok(snapshot)
    }

    /// Every repository read whole, each manifest's text kept for the messages of the checks.
    fn read_full(mesh: &MeshConfig) -> Result<Snapshot, ReadError> {
        let mut repos: Vec<RepoSnapshot> = Vec::new();
        let mut modules = Vec::new();
        let mut texts = BTreeMap::new();
        for cfg in &mesh.repos {
            let snap = open(mesh, cfg)?;
            gather(&snap, repos.len(), None, Some(&mut texts), &mut modules)?;
            repos.push(snap);
        }
        modules.sort_by(|a, b| a.manifest.name.cmp(&b.manifest.name));
        let snapshot = Snapshot { repos, modules };
        snapshot.validate(mesh, Some(&texts))?;
        Ok(snapshot)
    }

    /// The checks every read makes: no module defined twice, declared edges name modules that
    /// exist, assignments name services. Without `texts` (manifests reused, not read), only
    /// whether they pass: the error would have no file to point at.
    fn validate(
        &self,
        mesh: &MeshConfig,
        texts: Option<&BTreeMap<String, (String, String)>>,
    ) -> Result<(), ReadError> {
        if texts.is_none() && self.modules.windows(2).any(|w| w[0].name() == w[1].name()) {
            return Err(SourceError::git("", "a module is defined twice", "").into());
        }
        self.check_declared_edges(texts)?;
        mesh.check_assignments(
            |name| self.module(name).map(|m| m.manifest.kind),
            self.modules.iter().map(|m| m.name()),
        )?;
        Ok(())
    }

    /// For each repository followed by URL whose fetch failed in this run, what failed and
    /// which commit is read instead, one sentence each.
    pub fn stale(&self) -> impl Iterator<Item = &str> {
        self.repos.iter().filter_map(|r| r.stale.as_deref())
    }

    /// The module called `name`.
    pub fn module(&self, name: &str) -> Option<&ModuleSource> {
        self.modules
            .binary_search_by(|m| m.manifest.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.modules[i])
    }

    /// Presence and instantiation edges must name modules that exist.
    fn check_declared_edges(
        &self,
        texts: Option<&BTreeMap<String, (String, String)>>,
    ) -> Result<(), ReadError> {
        for m in &self.modules {
            let declared = m
                .manifest
                .presence
                .iter()
                .chain(m.manifest.instantiation.iter().map(|i| &i.module));
            for target in declared {
                if self.module(target).is_none() {
                    let Some((file, text)) = texts.and_then(|t| t.get(m.name())) else {
                        return Err(
                            SourceError::git("", "a declared edge names no module", "").into()
                        );
                    };
                    return Err(m
                        .manifest
                        .edge_error(
                            file,
                            text,
                            target,
                            format!(
                                "`{}` names module `{target}`, which does not exist",
                                m.name()
                            ),
                            format!(
                                "name a module some repository holds{}",
                                crate::config::known_list(
                                    "modules",
                                    self.modules.iter().map(|m| m.name())
                                )
                            ),
                        )
                        .into());
                }
            }
        }
        Ok(())
    }

    /// The repository a module lives in.
    pub(crate) fn repo_of(&self, m: &ModuleSource) -> &RepoSnapshot {
        &self.repos[m.repo]
    }
}

/// The modules of repository `snap` (index `ri`), added to `modules`. `before` is what an
/// earlier read found in it: unchanged subtrees, manifests and source ids are taken from it.
/// With `texts`, each manifest's text (by module name: where it is shown, its text) is kept
/// there for the checks' messages, and a module defined twice is refused at once, pointed at.
fn gather(
    snap: &RepoSnapshot,
    ri: usize,
    before: Option<&PriorRepo>,
    mut texts: Option<&mut BTreeMap<String, (String, String)>>,
    modules: &mut Vec<ModuleSource>,
) -> Result<(), ReadError> {
    let found = match before {
        Some(b) => {
            let old: Vec<discover::Found> = b
                .modules
                .iter()
                .map(|m| discover::Found {
                    dir: m.dir.clone(),
                    manifest: m.manifest_blob,
                    tree: m.tree,
                })
                .collect();
            discover::manifests_since(snap, b.tree, old)?
        }
        None => discover::manifests(snap)?,
    };
    let dirs: Vec<String> = found.iter().map(|m| m.dir.clone()).collect();
    for m in found {
        let nested: Vec<String> = dirs
            .iter()
            .filter(|d| is_below(d, &m.dir))
            .cloned()
            .collect();
        let known = before.and_then(|b| b.modules.iter().find(|k| k.dir == m.dir));
        let manifest = match known.filter(|k| k.manifest_blob == m.manifest) {
            Some(k) => k.manifest.clone(),
            None => {
                let text = manifest_text(snap, m.manifest)?;
                let shown = manifest_name(&snap.name, &m.dir);
                let manifest = ModuleManifest::parse(&text, &shown)?;
                if let Some(texts) = texts.as_deref_mut() {
                    if let Some((first, _)) = texts.get(&manifest.name) {
                        return Err(crate::config::ConfigError::new(
                            "mesh::config::duplicate_module",
                            &shown,
                            &text,
                            Some(manifest.name_span.clone()),
                            format!("module `{}` is defined twice", manifest.name),
                            "second module with this name",
                            format!("it is also defined in {first}; rename one of them"),
                        )
                        .into());
                    }
                    texts.insert(manifest.name.clone(), (shown, text));
                }
                manifest
            }
        };
        // A source id depends on the module's tree, the nested modules left out of it, and
        // its inputs (paths from the repository's root).
        let same_id = known.filter(|k| {
            k.tree == m.tree
                && k.nested == nested
                && k.manifest.inputs == manifest.inputs
                && (manifest.inputs.is_empty() || before.is_some_and(|b| b.tree == snap.tree))
        });
        let source_id = match same_id {
            Some(k) => k.source_id.clone(),
            None => discover::source_id(snap, &m.dir, m.tree, &nested, &manifest.inputs)?,
        };
        modules.push(ModuleSource {
            manifest,
            manifest_blob: m.manifest,
            repo: ri,
            dir: m.dir,
            tree: m.tree,
            nested,
            source_id,
        });
    }
    Ok(())
}

/// What an earlier read found, handed to [`Snapshot::read_since`].
pub struct Prior {
    /// Per repository read then.
    pub repos: Vec<PriorRepo>,
}

/// One repository as an earlier read found it.
pub struct PriorRepo {
    /// Its name in the mesh.
    pub name: String,
    /// The root tree read.
    pub tree: ObjectId,
    /// The modules found in it (their `repo` index is not used).
    pub modules: Vec<ModuleSource>,
}

/// The text of a manifest blob.
fn manifest_text(snap: &RepoSnapshot, id: ObjectId) -> Result<String, SourceError> {
    let blob = snap
        .repo
        .find_blob(id)
        .map_err(|e| SourceError::git(&snap.name, "cannot read a manifest", e))?;
    Ok(String::from_utf8_lossy(&blob.data).into_owned())
}

impl RepoSnapshot {
    /// Its root tree, at the commit it was read at.
    pub(crate) fn root_tree(&self) -> Result<gix::Tree<'_>, SourceError> {
        self.repo
            .find_tree(self.tree)
            .map_err(|e| SourceError::git(&self.name, "cannot read the root tree", e))
    }

    /// The tree of the directory `dir` (repository-relative, `""` the root) at the commit it
    /// was read at, or `None` where no directory stands there.
    pub(crate) fn dir_tree(&self, dir: &str) -> Result<Option<gix::Tree<'_>>, SourceError> {
        let root = self.root_tree()?;
        if dir.is_empty() {
            return Ok(Some(root));
        }
        let entry = root
            .lookup_entry_by_path(dir)
            .map_err(|e| SourceError::git(&self.name, &format!("cannot look up {dir}"), e))?;
        match entry.filter(|e| e.mode().is_tree()) {
            Some(e) => self
                .repo
                .find_tree(e.object_id())
                .map(Some)
                .map_err(|e| SourceError::git(&self.name, &format!("cannot read {dir}"), e)),
            None => Ok(None),
        }
    }

    /// The tree of module `m` (one of this repository's), at the commit it was read at.
    pub(crate) fn module_tree(&self, m: &ModuleSource) -> Result<gix::Tree<'_>, SourceError> {
        self.repo
            .find_tree(m.tree)
            .map_err(|e| SourceError::git(&self.name, "cannot read a module's tree", e))
    }
}

/// `dir` and every directory above it, nearest first: the scanners' walk, shared.
pub use mesh_imports::ancestors;

/// Answers of [`nearest`] already found: per (repository, directory), what the walk from
/// that directory found.
pub type Nearest<T> = std::collections::HashMap<(usize, String), Option<T>>;

/// What the nearest directory at or above `from` in repository `repo` holds: the first
/// directory (walking up) where `look` finds something (a `go.mod`, a workspace's
/// `Cargo.toml`, a `go.work`). The one upward walk the graph and drift share. `memo` keeps the
/// answer for every directory walked through, so a later walk from any of them stops there.
pub fn nearest<T: Clone, E>(
    repo: usize,
    from: &str,
    memo: &mut Nearest<T>,
    mut look: impl FnMut(&str) -> Result<Option<T>, E>,
) -> Result<Option<T>, E> {
    let mut walked = Vec::new();
    let mut found = None;
    for d in ancestors(from) {
        if let Some(known) = memo.get(&(repo, d.to_string())) {
            found = known.clone();
            break;
        }
        walked.push(d);
        if let Some(t) = look(d)? {
            found = Some(t);
            break;
        }
    }
    for d in walked {
        memo.insert((repo, d.to_string()), found.clone());
    }
    Ok(found)
}

/// The text of the nearest `Cargo.toml` at or above `dir` that declares a `[workspace]`:
/// what a member's `workspace = true` entries inherit (renames, features).
pub(crate) fn cargo_workspace(
    snap: &RepoSnapshot,
    repo: usize,
    dir: &str,
    memo: &mut Nearest<String>,
) -> Result<Option<String>, SourceError> {
    let root = snap.root_tree()?;
    nearest(repo, dir, memo, |d| {
        Ok(
            blob_text(snap, &root, &join(d, "Cargo.toml"))?.filter(|text| {
                text.lines()
                    .any(|l| l.trim() == "[workspace]" || l.trim().starts_with("[workspace."))
            }),
        )
    })
}

/// The directory above `dir` (none above the repository's root, `""`): where a walk for
/// what is *above* a module starts.
pub fn above(dir: &str) -> Option<&str> {
    ancestors(dir).nth(1)
}

/// The names of the files (not the directories) directly in `tree`: where drift looks for
/// configs by name at a module's or a repository's root.
pub(crate) fn file_names(
    snap: &RepoSnapshot,
    tree: &gix::Tree,
) -> Result<Vec<String>, SourceError> {
    let mut files = Vec::new();
    for entry in tree.iter() {
        let entry =
            entry.map_err(|err| SourceError::git(&snap.name, "cannot decode a tree", err))?;
        if entry.mode().is_blob() {
            files.push(entry.filename().to_string());
        }
    }
    Ok(files)
}

/// The YAML files (`.yml`, `.yaml`) in the directory `dir` of the repository and in its
/// directories up to `depth` levels below, repository-relative and sorted: CI's workflows
/// and composite actions, which drift reads for the commands and installs they run.
pub(crate) fn yaml_files(
    snap: &RepoSnapshot,
    dir: &str,
    depth: usize,
) -> Result<Vec<String>, SourceError> {
    let mut files = Vec::new();
    let Some(tree) = snap.dir_tree(dir)? else {
        return Ok(files);
    };
    let mut todo = vec![(dir.to_string(), tree, 0)];
    while let Some((at, tree, level)) = todo.pop() {
        for entry in tree.iter() {
            let entry =
                entry.map_err(|err| SourceError::git(&snap.name, "cannot decode a tree", err))?;
            let name = join(&at, &entry.filename().to_string());
            if entry.mode().is_tree() && level < depth {
                if let Some(t) = snap.dir_tree(&name)? {
                    todo.push((name, t, level + 1));
                }
            } else if entry.mode().is_blob() && (name.ends_with(".yml") || name.ends_with(".yaml"))
            {
                files.push(name);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The text of the file at `path` (repository-relative) in `tree`, when it is a file: read
/// lossily as UTF-8. How the graph and drift read manifests and configs at a ref.
pub(crate) fn blob_text(
    snap: &RepoSnapshot,
    tree: &gix::Tree,
    path: &str,
) -> Result<Option<String>, SourceError> {
    let entry = tree
        .lookup_entry_by_path(path)
        .map_err(|e| SourceError::git(&snap.name, &format!("cannot look up {path}"), e))?;
    let Some(entry) = entry.filter(|e| e.mode().is_blob()) else {
        return Ok(None);
    };
    let blob = snap
        .repo
        .find_blob(entry.object_id())
        .map_err(|e| SourceError::git(&snap.name, &format!("cannot read {path}"), e))?;
    Ok(Some(String::from_utf8_lossy(&blob.data).into_owned()))
}

/// How a manifest is named in messages: `repo:dir/mesh-module.toml`.
pub(crate) fn manifest_name(repo: &str, dir: &str) -> String {
    if dir.is_empty() {
        format!("{repo}:{MODULE_MANIFEST}")
    } else {
        format!("{repo}:{dir}/{MODULE_MANIFEST}")
    }
}

/// The path `d` (repo-relative) as seen from the directory `parent` above it: `d` itself when
/// `parent` is the root or not above it.
pub(crate) fn relative<'d>(d: &'d str, parent: &str) -> &'d str {
    match parent.is_empty() {
        true => d,
        false => d
            .strip_prefix(parent)
            .and_then(|r| r.strip_prefix('/'))
            .unwrap_or(d),
    }
}

/// Whether directory `d` is strictly inside directory `parent` (both repo-relative).
pub(crate) fn is_below(d: &str, parent: &str) -> bool {
    if parent.is_empty() {
        !d.is_empty()
    } else {
        d.len() > parent.len() && d.starts_with(parent) && d.as_bytes()[parent.len()] == b'/'
    }
}

/// Opens one repository and resolves its ref. A repository followed by URL is first made
/// ready (cloned, fetched) and read at its remote-tracking ref in the clone.
fn open(mesh: &MeshConfig, cfg: &RepoConfig) -> Result<RepoSnapshot, ReadError> {
    let ready = match &cfg.url {
        Some(url) => Some(follow::ready(mesh, cfg, url)?),
        None => None,
    };
    let repo = gix::open_opts(&cfg.path, gix::open::Options::isolated()).map_err(|e| {
        let help = if cfg.url.is_some() {
            format!(
                "mesh's clone is damaged: remove {} and the next run clones it again",
                cfg.path.display()
            )
        } else {
            "`path` must name a git repository (bare or not), relative to mesh.toml".into()
        };
        mesh.repo_error(
            cfg,
            false,
            format!(
                "repository `{}` at {} cannot be opened: {e}",
                cfg.name,
                cfg.path.display()
            ),
            help,
        )
    })?;
    let mut repo = repo;
    repo.object_cache_size_if_unset(16 << 20);
    let (commit, tree) = match &ready {
        Some(r) => resolve_tracking(mesh, cfg, &repo, &r.tracking)?,
        None => resolve_ref(mesh, cfg, &repo)?,
    };
    let stale = ready.and_then(|r| r.failed).map(|e| {
        let when =
            follow::last_fetch_said(&cfg.path).map_or_else(String::new, |t| format!(" (made {t})"));
        let sentence = format!(
            "fetch of `{}` from {} failed: {e}; reading {} from the last fetch{when}",
            cfg.name,
            crate::config::shown_url(cfg.url.as_deref().unwrap_or("")),
            commit.to_hex_with_len(7)
        );
        follow::note_unsaid(&cfg.name, &sentence);
        sentence
    });
    Ok(RepoSnapshot {
        name: cfg.name.clone(),
        path: cfg.path.clone(),
        commit,
        tree,
        repo,
        stale,
    })
}

/// The commit and root tree of a followed repository's remote-tracking ref in its clone.
fn resolve_tracking(
    mesh: &MeshConfig,
    cfg: &RepoConfig,
    repo: &gix::Repository,
    tracking: &str,
) -> Result<(ObjectId, ObjectId), ReadError> {
    let commit = repo
        .find_reference(tracking)
        .map_err(|e| e.to_string())
        .and_then(|mut r| r.peel_to_commit().map_err(|e| e.to_string()))
        .map_err(|e| {
            let shown = cfg.reference.as_deref().unwrap_or("HEAD");
            mesh.repo_error(
                cfg,
                true,
                format!(
                    "ref `{shown}` of repository `{}` was never fetched into its clone ({tracking}: {e})",
                    cfg.name
                ),
                "run `mesh reconcile` or `mesh build` without --offline (reading verbs never fetch) so mesh fetches it, and check that the remote has it (`git ls-remote URL`)".into(),
            )
        })?;
    commit_and_tree(cfg, &commit)
}

/// Each repository's name and the root tree its ref points at, when every repository is
/// local (none followed by URL, so reading a ref never fetches): what a cached answer is keyed
/// by, read without walking a tree. `None` when a repository is followed or a ref does not
/// resolve (a full read says why).
pub(crate) fn local_trees(mesh: &MeshConfig) -> Option<Vec<(String, ObjectId)>> {
    mesh.repos
        .iter()
        .map(|cfg| {
            if cfg.url.is_some() {
                return None;
            }
            let repo = gix::open_opts(&cfg.path, gix::open::Options::isolated()).ok()?;
            let (_, tree) = resolve_ref(mesh, cfg, &repo).ok()?;
            Some((cfg.name.clone(), tree))
        })
        .collect()
}

/// `commit`'s id and its root tree's.
fn commit_and_tree(
    cfg: &RepoConfig,
    commit: &gix::Commit<'_>,
) -> Result<(ObjectId, ObjectId), ReadError> {
    let tree = commit
        .tree_id()
        .map_err(|e| SourceError::git(&cfg.name, "cannot read the commit's tree", e))?
        .detach();
    Ok((commit.id, tree))
}

/// The commit and root tree the repository's ref points at.
fn resolve_ref(
    mesh: &MeshConfig,
    cfg: &RepoConfig,
    repo: &gix::Repository,
) -> Result<(ObjectId, ObjectId), ReadError> {
    let commit = match &cfg.reference {
        None => repo.head_commit().map_err(|e| e.to_string()),
        Some(r) => repo
            .find_reference(r.as_str())
            .map_err(|e| e.to_string())
            .and_then(|mut r| r.peel_to_commit().map_err(|e| e.to_string())),
    };
    let commit = commit.map_err(|e| {
        let shown = cfg.reference.as_deref().unwrap_or("HEAD");
        mesh.repo_error(
            cfg,
            true,
            format!("ref `{shown}` of repository `{}` does not resolve to a commit: {e}", cfg.name),
            "set `ref` to a branch or tag that exists, e.g. \"refs/heads/main\" (`git -C PATH branch -a` lists them)".into(),
        )
    })?;
    commit_and_tree(cfg, &commit)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every directory walked through learns the answer; a walk from a sibling finds what is
    /// above it, not a miss remembered halfway (drift's go.mod walk remembered "nothing in
    /// `cmd`" and so never found the root's `go.mod` for the second module under `cmd/`).
    #[test]
    fn the_nearest_walk_remembers_answers_not_misses() {
        let mut memo = Nearest::new();
        let mut looked = Vec::new();
        let mut look = |d: &str| -> Result<Option<String>, ()> {
            looked.push(d.to_string());
            Ok((d.is_empty()).then(|| "root go.mod".to_string()))
        };
        assert_eq!(
            nearest(0, "cmd/a", &mut memo, &mut look),
            Ok(Some("root go.mod".into()))
        );
        assert_eq!(
            nearest(0, "cmd/b", &mut memo, &mut look),
            Ok(Some("root go.mod".into()))
        );
        // `cmd` was looked at once; its answer was remembered.
        assert_eq!(looked, ["cmd/a", "cmd", "", "cmd/b"]);
        // Another repository's directories are its own.
        assert_eq!(
            nearest(1, "cmd", &mut memo, |_| Ok::<_, ()>(None::<String>)),
            Ok(None)
        );
        assert_eq!(above("a/b"), Some("a"));
        assert_eq!(above("a"), Some(""));
        assert_eq!(above(""), None);
    }
}
