//! The mesh's own domain: a node. `use inventory::x` in a comment is not an import.
pub struct Node {
    pub name: String,
}
