//! Delivery: what each node is sent and what its answers mean. `push` sends each node its
//! declaration, `collect` takes its reports into the store, `account` keeps the apply account
//! and failure streaks, `health` what the modules' checks said, `trouble` records what stopped mesh doing its work on a node, `forget`
//! drops a node gone from mesh.toml, `heal` removes a damaged artifact a pass is about to send
//! before it builds. It moves its bytes through [`crate::transport`], which
//! never calls back up here.

pub mod account;
pub mod collect;
pub mod elsewhere;
pub mod forget;
pub mod heal;
pub mod health;
pub mod push;
pub mod trouble;
