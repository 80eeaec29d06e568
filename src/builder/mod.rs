//! Building modules: running build and test in a scratch export of the commit, judging the
//! result, packing the artifact, and recording it — with the store closed while anything runs.

mod plan;
mod prepare;
mod record;
pub mod run;
pub mod schedule;

pub use schedule::{BuildOptions, BuildSummary, Built, build};

use serde::{Deserialize, Serialize};

/// The judgement of a build. `Outstanding` is not a verdict: the build failed for reasons that
/// say nothing about the artifact (a timeout, a signal, a spawn failure, exit 75), and the next
/// run retries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Built, and the tests passed.
    Fit,
    /// Built, and the tests failed.
    Unfit,
    /// The build failed.
    Broken,
    /// An environmental failure: no verdict.
    Outstanding,
}

impl Verdict {
    /// The word used in tables and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Fit => "fit",
            Verdict::Unfit => "unfit",
            Verdict::Broken => "broken",
            Verdict::Outstanding => "outstanding",
        }
    }

    /// Whether it is a verdict at all (outstanding is not).
    pub fn is_verdict(self) -> bool {
        self != Verdict::Outstanding
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `MESH_DEP_<NAME>`: the module name upper-cased with `-` and `.` as `_`.
pub fn dep_env_name(module: &str) -> String {
    format!(
        "MESH_DEP_{}",
        module.to_ascii_uppercase().replace(['-', '.'], "_")
    )
}
