//! mesh's integration tests: one binary, a module per area, and `common` for what they share.

mod build;
mod common;
mod config_errors;
mod controllers;
mod damage;
mod drift;
mod drift_patterns;
mod edges;
mod errors;
mod example;
mod faults;
mod generated;
mod graph;
mod page;
mod push;
mod readme;
mod reconcile;
mod repos;
mod rollback;
mod session;
mod shell;
mod sshd;
mod status;
mod truth;
mod where_;
