//! A module's build as an REAPI Action, the key every controller computes alike: its input
//! root is the module's source as mesh defines it (its directory without nested modules, and
//! its manifest's `inputs`) laid out from the git tree, plus each input's artifact under
//! `.mesh-deps/<NAME>`; its command runs `build` then `test` where `MESH_OUT` is the output
//! directory `.mesh-out`, with the input closure (each input's artifact digest) in its
//! environment. Nothing of the controller (its paths, its `PATH`, the commit) is in it: two
//! controllers with the same inputs ask for the same action.

use super::merkle::{self, Blob, Layout, Tree, digest_of};
use crate::source::{ModuleSource, RepoSnapshot};
use bazel_remote_apis::build::bazel::remote::execution::v2::{
    Action, Command, Digest, Platform, command::EnvironmentVariable, platform::Property,
};
use gix::ObjectId;
use gix::object::tree::EntryKind;
use prost::Message;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where the command leaves what it built, relative to the input root.
pub const OUT: &str = ".mesh-out";
/// Where each input's artifact lies in the input root.
pub const DEPS: &str = ".mesh-deps";
/// Changes whenever the action's shape does: an older mesh's actions are never taken.
const SALT: &[u8] = b"mesh action 1";
/// The `PATH` every action runs with: a controller's own is not part of the key.
const PATH: &str = "/usr/local/bin:/usr/bin:/bin";
/// What the command exits when `build` failed (a broken build) or `test` did (unfit); 75
/// (EX_TEMPFAIL) stays 75 (no verdict).
pub const BUILD_FAILED: i32 = 101;
/// See [`BUILD_FAILED`].
pub const TEST_FAILED: i32 = 102;

/// The script the command runs with `sh -c`: `MESH_OUT` and `MESH_DEP_<NAME>` made absolute
/// where the worker put the input root, then build and test in the module's directory.
const SCRIPT: &str = r#"r=$PWD
export MESH_OUT="$r/.mesh-out"
mkdir -p "$MESH_OUT" || exit 75
for d in $MESH_DEP_NAMES; do
  n=$(printf %s "$d" | tr 'a-z.-' 'A-Z__')
  export "MESH_DEP_$n=$r/.mesh-deps/$d"
done
cd "$r/$MESH_DIR" || exit 75
sh -c "$MESH_BUILD" || { s=$?; echo "mesh: build exited $s" >&2; [ $s -eq 75 ] && exit 75; exit 101; }
if [ -n "$MESH_TEST" ]; then
  sh -c "$MESH_TEST" || { s=$?; echo "mesh: test exited $s" >&2; [ $s -eq 75 ] && exit 75; exit 102; }
fi
exit 0"#;

/// One module's action: its digest, the messages it names, and its input root.
#[derive(Debug, Clone)]
pub struct ModuleAction {
    /// The Action's digest: the cache key.
    pub digest: Digest,
    /// The Action, encoded.
    pub action: Vec<u8>,
    /// The Command, encoded.
    pub command: Vec<u8>,
    /// The input root, every blob of it.
    pub input_root: Tree,
    /// The build's own time limit (both steps).
    pub timeout: Duration,
}

impl ModuleAction {
    /// The action's blobs: its Action and Command messages, and with `inputs` the input root.
    pub fn blobs(&self, inputs: bool) -> Tree {
        let mut t = Tree::default();
        if inputs {
            t = self.input_root.clone();
        }
        for bytes in [&self.action, &self.command] {
            t.blobs
                .insert(digest_of(bytes).hash, Blob::Bytes(bytes.clone()));
        }
        t
    }
}

/// Each git blob's SHA-256 digest, by blob id: kept across builds, so an unchanged file is
/// never read again to name it.
#[derive(Debug, Default)]
pub struct BlobDigests {
    /// Known digests.
    pub known: HashMap<ObjectId, Digest>,
    /// Those learnt in this run, to keep.
    pub learnt: Vec<(ObjectId, Digest)>,
}

/// One input of the build: its name, its artifact's digest and where it is unpacked.
pub struct Input<'a> {
    /// The input module.
    pub name: &'a str,
    /// Its artifact's digest.
    pub artifact: &'a str,
    /// Its artifact unpacked.
    pub dir: &'a Path,
}

/// The action of `src`'s build at `snap`'s commit, whose export is at `export`, against
/// `inputs`, with `sources` (the other modules whose source its closure names). `digests`
/// names the git blobs; `trees` each input artifact's tree (by artifact digest), both filled
/// as they are learnt.
pub fn module_action(
    snap: &RepoSnapshot,
    src: &ModuleSource,
    export: &Path,
    inputs: &[Input],
    sources: &[&ModuleSource],
    digests: &mut BlobDigests,
    trees: &mut HashMap<String, Tree>,
) -> Result<ModuleAction, String> {
    let mut layout = Layout::default();
    let walk = Walk {
        snap,
        export,
        nested: &src.nested,
    };
    walk.tree(&src.dir, src.tree, &mut layout, digests)?;
    for path in &src.manifest.inputs {
        walk.path(path, &mut layout, digests)?;
    }
    // The sources the closure names besides the module's own (dev and optional dependencies,
    // the other members of its cycle): laid out where they are, as its tests see them here.
    for other in sources.iter().filter(|o| o.repo == src.repo) {
        let walk = Walk {
            snap,
            export,
            nested: &other.nested,
        };
        walk.tree(&other.dir, other.tree, &mut layout, digests)?;
    }
    let mut names = Vec::new();
    for i in inputs {
        let tree = match trees.get(i.artifact) {
            Some(t) => t.clone(),
            None => {
                let t = merkle::tree(i.dir)
                    .map_err(|e| format!("cannot read the artifact of `{}`: {e}", i.name))?;
                trees.insert(i.artifact.to_string(), t.clone());
                t
            }
        };
        layout.graft(&format!("{DEPS}/{}", i.name), tree);
        names.push(i.name);
    }
    let input_root = layout.finish();
    let m = &src.manifest;
    let platform = Platform {
        properties: m
            .platform
            .iter()
            .map(|(name, value)| Property {
                name: name.clone(),
                value: value.clone(),
            })
            .collect(),
    };
    let command = command(src, &names, inputs, sources, &platform);
    // Both steps may take the module's timeout.
    let timeout = m.timeout * 2;
    let action = Action {
        command_digest: Some(digest_of(&command)),
        input_root_digest: Some(input_root.root.clone()),
        timeout: Some(prost_types_duration(timeout)),
        do_not_cache: false,
        salt: SALT.to_vec(),
        platform: Some(platform),
    }
    .encode_to_vec();
    Ok(ModuleAction {
        digest: digest_of(&action),
        action,
        command,
        input_root,
        timeout,
    })
}

/// The Command of `src`'s build: [`SCRIPT`] with build and test, the module's directory, the
/// inputs' names and artifact digests (`names`, `inputs`) and the other sources its closure
/// names in its environment, sorted.
fn command(
    src: &ModuleSource,
    names: &[&str],
    inputs: &[Input],
    sources: &[&ModuleSource],
    platform: &Platform,
) -> Vec<u8> {
    let m = &src.manifest;
    let mut env = vec![
        ("MESH_BUILD", m.build.clone()),
        ("MESH_DEP_NAMES", names.join(" ")),
        ("MESH_DIR", src.dir.clone()),
        (
            "MESH_INPUTS",
            inputs
                .iter()
                .map(|i| format!("{}={}", i.name, i.artifact))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        ("MESH_MODULE", m.name.clone()),
        // Each source the closure names (dev, optional, cycle), by source id: a move of one
        // is another action, as it makes the module stale here.
        (
            "MESH_SOURCES",
            sources
                .iter()
                .map(|o| format!("{}={}", o.name(), o.source_id))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        ("MESH_TEST", m.test.clone().unwrap_or_default()),
        ("PATH", PATH.to_string()),
    ];
    env.sort();
    #[allow(deprecated)]
    Command {
        arguments: vec!["sh".into(), "-c".into(), SCRIPT.into()],
        environment_variables: env
            .into_iter()
            .map(|(name, value)| EnvironmentVariable {
                name: name.into(),
                value,
            })
            .collect(),
        output_directories: vec![OUT.into()],
        output_paths: vec![OUT.into()],
        platform: Some(platform.clone()),
        ..Default::default()
    }
    .encode_to_vec()
}

/// `d` as the protobuf Duration the Action carries.
fn prost_types_duration(d: Duration) -> bazel_remote_apis::google::protobuf::Duration {
    bazel_remote_apis::google::protobuf::Duration {
        seconds: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        nanos: 0,
    }
}

/// Lays a commit's files out, naming each blob once.
struct Walk<'a> {
    snap: &'a RepoSnapshot,
    export: &'a Path,
    nested: &'a [String],
}

impl Walk<'_> {
    /// The repository path `path` (a file or a directory; absent: nothing).
    fn path(
        &self,
        path: &str,
        layout: &mut Layout,
        digests: &mut BlobDigests,
    ) -> Result<(), String> {
        let root = self
            .snap
            .repo
            .find_tree(self.snap.tree)
            .map_err(|e| format!("cannot read the commit's tree: {e}"))?;
        let Some(entry) = root
            .lookup_entry_by_path(path)
            .map_err(|e| format!("cannot look up `{path}`: {e}"))?
        else {
            return Ok(());
        };
        match entry.mode().kind() {
            EntryKind::Tree => self.tree(path, entry.object_id(), layout, digests),
            kind => self.entry(path, kind, entry.object_id(), layout, digests),
        }
    }

    /// The tree `id` at `dir`, without the nested modules' directories.
    fn tree(
        &self,
        dir: &str,
        id: ObjectId,
        layout: &mut Layout,
        digests: &mut BlobDigests,
    ) -> Result<(), String> {
        let tree = self
            .snap
            .repo
            .find_tree(id)
            .map_err(|e| format!("cannot read tree `{dir}`: {e}"))?;
        for entry in tree.iter() {
            let entry = entry.map_err(|e| format!("cannot decode tree `{dir}`: {e}"))?;
            let name = entry.filename().to_string();
            let path = match dir.is_empty() {
                true => name,
                false => format!("{dir}/{name}"),
            };
            match entry.mode().kind() {
                EntryKind::Tree if self.nested.contains(&path) => {}
                EntryKind::Tree => self.tree(&path, entry.oid().to_owned(), layout, digests)?,
                kind => self.entry(&path, kind, entry.oid().to_owned(), layout, digests)?,
            }
        }
        Ok(())
    }

    /// One file or link; a submodule is not part of the source.
    fn entry(
        &self,
        path: &str,
        kind: EntryKind,
        id: ObjectId,
        layout: &mut Layout,
        digests: &mut BlobDigests,
    ) -> Result<(), String> {
        match kind {
            EntryKind::Blob | EntryKind::BlobExecutable => {
                let digest = match digests.known.get(&id) {
                    Some(d) => d.clone(),
                    None => {
                        let d = digest_of(&self.blob(path, id)?);
                        digests.known.insert(id, d.clone());
                        digests.learnt.push((id, d.clone()));
                        d
                    }
                };
                let on_disk: PathBuf = self.export.join(path);
                let size = digest.size_bytes as u64;
                layout.file(
                    path,
                    digest,
                    kind == EntryKind::BlobExecutable,
                    Blob::File(on_disk, size),
                );
            }
            EntryKind::Link => {
                let target = String::from_utf8(self.blob(path, id)?)
                    .map_err(|_| format!("`{path}`: a link target that is not UTF-8"))?;
                layout.link(path, target);
            }
            EntryKind::Commit | EntryKind::Tree => {}
        }
        Ok(())
    }

    fn blob(&self, path: &str, id: ObjectId) -> Result<Vec<u8>, String> {
        self.snap
            .repo
            .find_object(id)
            .map(|o| o.detach().data)
            .map_err(|e| format!("cannot read `{path}`: {e}"))
    }
}
