//! What going back needs: a module's version as the node remembers it, kept where neither pruning nor an `activate` reaches it
//! (`ROOT/kept/`), and a version's tree made exactly its artifact unpacked again, from
//! `artifacts/` or that copy, each checked against its digest first.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::{self, BufReader};
use std::path::{Path, PathBuf};

use super::disk::{list_dir, read_json};
use super::journal;
use super::secrets;
use super::{Layout, NodeError};
use crate::artifact::{ArtifactError, is_digest, unpack};
use crate::durable::write_atomic;
use mesh_proto::wire::DeclaredModule;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where the last version of a module that activated was recorded before `kept/` (in
/// `modules/<name>/`): still read, once, from a node an older mesh applied on.
pub(super) const GOOD: &str = "good.json";

/// A module's version as the node remembers it: enough to run it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Version {
    /// The artifact's digest (the directory under `modules/<name>/`).
    pub(super) artifact: String,
    /// Its `activate`, as declared with it.
    pub(super) activate: Option<String>,
    /// The build id it came from.
    pub(super) build: String,
    /// The commit that build was made from.
    pub(super) commit: String,
    /// Its secrets, name → keyed digest (absent in records older than secrets: none).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) secrets: secrets::Named,
}

impl Version {
    pub(super) fn of(m: &DeclaredModule) -> Version {
        Version {
            artifact: m.artifact.clone(),
            activate: m.activate.clone(),
            build: m.build.clone(),
            commit: m.commit.clone(),
            secrets: m
                .secrets
                .iter()
                .map(|s| (s.name.clone(), s.digest.clone()))
                .collect(),
        }
    }

    /// Whether `other` runs the same way: the same artifact, the same `activate` and the same
    /// secrets (a build id alone does not change what runs; a changed secret does).
    pub(super) fn runs_as(&self, other: &Version) -> bool {
        self.artifact == other.artifact
            && self.activate == other.activate
            && self.secrets == other.secrets
    }

    pub(super) fn words(&self) -> String {
        journal::version_words(&self.build, &self.commit)
    }
}

/// Reads a marker mesh wrote under a module's directory; a missing or damaged one is none (a
/// damaged marker costs one more activate, or a failure with nothing to go back to).
pub(super) fn read_marker<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    read_json(path).ok().flatten()
}

/// Writes a marker under a module's directory, atomically.
pub(super) fn write_marker<T: Serialize>(path: &Path, value: &T) -> Result<(), NodeError> {
    let bytes = serde_json::to_vec(value).map_err(|e| NodeError::Corrupt {
        path: path.to_path_buf(),
        reason: format!("could not be encoded: {e}"),
    })?;
    Ok(write_atomic(path, &bytes)?)
}

/// Makes `version` (`modules/<name>/<digest>`) exactly the artifact `digest` unpacked: a tree
/// already there is kept only when it packs to that digest again (an activate, or a hand,
/// may have changed it since); otherwise it is moved aside and the artifact unpacked anew,
/// from `artifacts/` or the copy in `kept/`, each checked against its digest first. When that
/// cannot be done, the reason says exactly what is missing.
pub(super) fn ensure_unpacked(
    layout: &Layout,
    kept: &Kept,
    digest: &str,
    version: &Path,
) -> Result<(), String> {
    let tree = version.display();
    let differs = match fs::symlink_metadata(version) {
        Ok(m) if m.is_dir() => match crate::artifact::pack(version, &mut io::sink()) {
            Ok((d, _)) if d.as_str() == digest => return Ok(()),
            Ok(_) => format!("{tree} is not as it was unpacked (files in it were changed)"),
            Err(e) => format!("{tree} is not as it was unpacked ({e})"),
        },
        Ok(_) => format!("{tree} is not a directory"),
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("could not look at {tree}: {e}")),
    };
    let source = artifact_source(layout, kept, digest).map_err(|missing| {
        if differs.is_empty() {
            format!("{tree} is not unpacked, and {missing}")
        } else {
            format!("{differs}, and {missing}")
        }
    })?;
    if !differs.is_empty() {
        // Aside under a name pruning removes (a half unpack's), then gone.
        let aside =
            version.with_file_name(format!(".{digest}.unpack-aside-{}", std::process::id()));
        let _ = fs::remove_dir_all(&aside);
        fs::rename(version, &aside)
            .map_err(|e| format!("{differs}, and it could not be moved aside: {e}"))?;
        let _ = fs::remove_dir_all(&aside);
    }
    let file = File::open(&source)
        .map_err(|e| format!("could not read artifact {}: {e}", source.display()))?;
    match unpack(BufReader::new(file), version) {
        // Unpacked meanwhile by someone else: whole all the same.
        Ok(()) | Err(ArtifactError::DestExists { .. }) => Ok(()),
        Err(e) => Err(format!("artifact {digest} could not be unpacked: {e}")),
    }
}

/// The file holding the artifact `digest` whole: `artifacts/<digest>`, else the copy kept for
/// going back. What is missing, in words, when neither is.
fn artifact_source(layout: &Layout, kept: &Kept, digest: &str) -> Result<PathBuf, String> {
    let mut wrong = Vec::new();
    let candidates = [layout.store().path(digest), kept.artifact(digest)];
    for path in &candidates {
        match matches_digest(path, digest) {
            Ok(true) => return Ok(path.clone()),
            Ok(false) => wrong.push(format!("{} does not match its digest", path.display())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => wrong.push(format!("{} could not be read: {e}", path.display())),
        }
    }
    Err(if wrong.is_empty() {
        format!(
            "artifact {digest} is not held on the node ({} and {} are missing)",
            candidates[0].display(),
            candidates[1].display()
        )
    } else {
        format!(
            "artifact {digest} is not held whole on the node: {}",
            wrong.join("; ")
        )
    })
}

/// Whether the file at `path` holds exactly the bytes of `digest`.
fn matches_digest(path: &Path, digest: &str) -> io::Result<bool> {
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(File::open(path)?)?;
    Ok(hasher.finalize().to_hex().as_str() == digest)
}

/// `ROOT/kept/`: what going back needs, outside every module's own directory: per module, the
/// last version that activated (`<name>.json`), and a hard link to its artifact (`<digest>`),
/// so that neither pruning nor a removed `artifacts/` file stops the node from unpacking it
/// again. Read before any activate of an apply runs and written again after the last, so an
/// activate that removes a record changes nothing; everything read from it is checked
/// against its digest before it is used.
pub(super) struct Kept {
    dir: PathBuf,
}

impl Kept {
    pub(super) fn new(layout: &Layout) -> Kept {
        Kept { dir: layout.kept() }
    }

    pub(super) fn record(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.json"))
    }

    pub(super) fn artifact(&self, digest: &str) -> PathBuf {
        self.dir.join(digest)
    }

    /// The last version of `name` that activated: its record in `kept/`, else (a node an
    /// older mesh applied on) `modules/<name>/good.json`.
    pub(super) fn good(&self, module_dir: &Path, name: &str) -> Option<Version> {
        read_marker::<Version>(&self.record(name))
            .or_else(|| read_marker::<Version>(&module_dir.join(GOOD)))
            .filter(|g| is_digest(&g.artifact))
    }

    /// Records `good` as `name`'s last version that activated, with its artifact kept beside
    /// it (linked from `artifacts/` when the copy is missing). Nothing is hashed here: every
    /// apply calls this, and what is kept is checked against its digest when it is used.
    pub(super) fn keep(
        &self,
        layout: &Layout,
        name: &str,
        good: &Version,
    ) -> Result<(), NodeError> {
        fs::create_dir_all(&self.dir).map_err(NodeError::io("create", &self.dir))?;
        let held = self.artifact(&good.artifact);
        let from = layout.store().path(&good.artifact);
        if fs::symlink_metadata(&held).is_err() && from.is_file() {
            fs::hard_link(&from, &held)
                .or_else(|_| fs::copy(&from, &held).map(|_| ()))
                .map_err(NodeError::io("keep", &held))?;
        }
        if read_marker::<Version>(&self.record(name)).as_ref() != Some(good) {
            write_marker(&self.record(name), good)?;
        }
        let _ = fs::remove_file(layout.modules().join(name).join(GOOD));
        Ok(())
    }

    /// The artifacts kept for going back, by digest: what every record names.
    pub(super) fn digests(&self) -> BTreeSet<String> {
        list_dir(&self.dir)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(name, _)| {
                let module = name.strip_suffix(".json")?;
                read_marker::<Version>(&self.record(module)).map(|v| v.artifact)
            })
            .collect()
    }

    /// Removes the kept artifacts no record names. Housekeeping, as [`prune_all`].
    pub(super) fn prune(&self) {
        let keep = self.digests();
        for (name, entry) in list_dir(&self.dir).unwrap_or_default() {
            if is_digest(&name) && !keep.contains(&name) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}
