//! Declarations: what one node should run. Composed from the store alone, encoded canonically,
//! digested without the sequence, so "would send" compares byte for byte with "did send".

pub mod wire;

pub use wire::{Declaration, DeclaredModule, Envelope};
