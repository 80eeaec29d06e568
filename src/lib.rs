//! mesh: a local-first delivery controller.
//!
//! The library computes and returns values; the `mesh` binary's `cli` renders them. Each folder is one concern,
//! named with the vocabulary of the README (Concepts).

#![warn(missing_docs)]

pub mod builder;
pub mod clock;
pub mod config;
pub mod controller;
mod cores;
pub mod declare;
pub mod deliver;
pub mod doctor;
pub mod drift;
mod error;
pub mod events;
#[doc(hidden)]
pub mod fuzzing;
pub mod gc;
pub mod graph;
mod mesh;
pub mod reconcile;
pub mod remote;
pub mod rollout;
pub mod secrets;
pub mod source;
pub mod status;
pub mod store;
pub mod trace;
pub mod transport;

pub(crate) use error::check_stopped;
pub use error::{Error, Result};
pub use mesh::{Lock, Mesh};
