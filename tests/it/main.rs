//! mesh's integration tests: one binary, a module per area (DESIGN.md §12).

mod build;
mod common;
mod config_errors;
mod errors;
mod example;
mod generated;
mod graph;
mod push;
mod readme;
mod reconcile;
pub mod sshd;
mod status;
mod where_;
