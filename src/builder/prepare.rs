//! Setting a build up: the export of its repository's commit (made once per run, held until
//! the run ends, reused or updated by the next run), and its inputs' artifacts unpacked where
//! `MESH_DEP_<NAME>` points.

use super::plan::Plan;
use super::run::Job;
use crate::graph::Loaded;
use crate::graph::stale::{self, ModuleState};
use crate::source::export::Export;
use crate::store::Paths;
use crate::{Error, Result};
use mesh_node::artifact::{self, ArtifactStore};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The job for module `m`: its export, and its inputs' artifacts unpacked. `exports` holds
/// each repository's export this run uses, by repository index: held until the run ends, so
/// no other run changes it under a build.
pub(super) fn prepare(
    paths: &Paths,
    plan: &Plan,
    states: &[Option<ModuleState>],
    exports: &mut HashMap<usize, Export>,
    m: usize,
) -> Result<Job> {
    let loaded = plan.loaded;
    let src = &loaded.snapshot.modules[m];
    let repo = loaded.snapshot.repo_of(src);
    let root = match exports.get(&src.repo) {
        Some(e) => e.path().to_path_buf(),
        None => {
            let e = crate::source::export::export(repo, &paths.exports())?;
            let p = e.path().to_path_buf();
            exports.insert(src.repo, e);
            p
        }
    };
    let inputs = stale::input_artifacts(&loaded.graph, states, m).unwrap_or_default();
    let store = ArtifactStore::new(paths.artifacts());
    let mut deps = Vec::new();
    for (name, digest) in inputs {
        let dir = unpacked_input(&paths.deps(), &store, &name, &digest)?;
        deps.push((name, dir));
    }
    Ok(Job {
        module: src.name().to_string(),
        cwd: if src.dir.is_empty() {
            root
        } else {
            root.join(&src.dir)
        },
        commit: repo.commit.to_string(),
        build: src.manifest.build.clone(),
        test: src.manifest.test.clone(),
        timeout: src.manifest.timeout,
        deps,
    })
}

/// The directory of input `name`'s artifact `digest`, unpacked unless an earlier build (or a
/// concurrent unpack) already did.
pub(super) fn unpacked_input(
    deps: &Path,
    store: &ArtifactStore,
    name: &str,
    digest: &str,
) -> Result<PathBuf> {
    let dir = deps.join(digest);
    if dir.is_dir() {
        return Ok(dir);
    }
    let file = std::fs::File::open(store.path(digest)).map_err(|e| {
        Error::io(
            format!("the artifact {digest} of `{name}` is missing from the artifact store"),
            e,
            format!("run `mesh build {name}` to build it again"),
        )
    })?;
    if let Err(e) = artifact::unpack(file, &dir)
        && !dir.is_dir()
    {
        return Err(Error::failed(
            format!("cannot unpack the artifact of `{name}`: {e}"),
            "check the disk; the artifact store may be damaged",
        ));
    }
    Ok(dir)
}

/// Removes every export but those of each repository's current commit (the next build of
/// that commit reuses it, the next commit's updates it) and those other runs hold.
pub(super) fn keep_current_exports(paths: &Paths, loaded: &Loaded) {
    let keep: Vec<PathBuf> = loaded
        .snapshot
        .repos
        .iter()
        .map(|r| crate::source::export::export_dir(&paths.exports(), &r.name, &r.commit))
        .collect();
    crate::source::export::prune(&paths.exports(), &keep);
}
