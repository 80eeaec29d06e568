//! Transports: how the controller reaches its nodes (DESIGN.md §8).

pub mod ssh;
