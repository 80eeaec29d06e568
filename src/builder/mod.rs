//! Building modules: running build and test in a scratch export of the commit, judging the
//! result, packing the artifact, and recording it — with the store closed while anything runs.

mod plan;
mod prepare;
mod record;
mod remote;
pub mod run;
pub mod schedule;
mod summary;
mod written;

pub use schedule::build;
pub use summary::{BuildOptions, BuildSummary, Built, Progress, RemoteUse};

pub use crate::store::Verdict;

/// `MESH_DEP_<NAME>`: the module name upper-cased with `-` and `.` as `_`.
pub(crate) fn dep_env_name(module: &str) -> String {
    format!(
        "MESH_DEP_{}",
        module.to_ascii_uppercase().replace(['-', '.'], "_")
    )
}
