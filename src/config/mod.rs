//! `mesh.toml` and `mesh-module.toml`: parsed with spans kept, so every mistake is a miette
//! diagnostic that points at the file, line and column, and says what to do next.

mod diag;
mod mesh;
mod module;
mod remote;
mod repo;
mod rollout;
pub mod secrets;

pub use diag::{ConfigError, LoadError, UnknownNode, Unreadable};
pub use mesh::{
    Assignment, Hooks, MeshConfig, NodeConfig, Settings, SshDefaults, StatusPage, Target,
    Transport, find_mesh_toml, known_list,
};
/// The name rules, as the node checks them too.
pub use mesh_proto::names::{NAME_PATTERN, is_valid_name};
pub use module::{Instantiation, Kind, ModuleManifest, Policy};
pub use remote::RemoteConfig;
pub use repo::RepoConfig;
pub(crate) use repo::{shown_url, without_password};
pub use rollout::{Rollout, RolloutOverride, Wave, reach};

/// The file name every module directory holds.
pub(crate) const MODULE_MANIFEST: &str = "mesh-module.toml";
/// The mesh's own file name.
pub const MESH_TOML: &str = "mesh.toml";
