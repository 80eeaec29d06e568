//! What the mesh knows, as values the cli renders as tables or JSON: the plan (what would be
//! built, declared and sent), the status of every node and module, and the page rendering it.

pub mod health;
pub mod needs;
pub mod nodes;
pub mod page;
pub mod plan;
pub mod show;
