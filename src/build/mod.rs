//! Building modules, judging them, and the artifact store.
pub mod artifact;
