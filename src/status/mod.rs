//! What the mesh knows, as values the cli renders as tables or JSON: the plan (what would be
//! built, declared and sent) and the status of every node and module.

pub mod nodes;
pub mod plan;
pub mod show;
