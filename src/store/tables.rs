//! The tables of the store and the records they hold.

use super::Table;
use serde::{Deserialize, Serialize};

/// `format` and other single facts about the store.
pub const META: Table = Table::new("meta");
/// (blob id, scanner version) → the imports found in that blob: a file is never parsed twice.
pub const IMPORTS: Table = Table::new("imports");
/// (repo, module dir) → what was learned the last time the module was walked.
pub const MODULES: Table = Table::new("modules");

/// Every table, created when the store is made.
pub const ALL_TABLES: &[Table] = &[META, IMPORTS, MODULES];

/// The `imports` key: blob id bytes then the scanner version.
pub fn imports_key(blob: &[u8], scanner_version: u32) -> Vec<u8> {
    let mut k = blob.to_vec();
    k.extend_from_slice(&scanner_version.to_be_bytes());
    k
}

/// What a module's walk found, kept so a module whose source id did not move is not walked.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ModuleRecord {
    /// The source id this record was made from.
    pub source_id: String,
    /// The scanner version this record was made with.
    pub scanner_version: u32,
    /// Per source file: (repo-relative path, language, imports).
    pub files: Vec<crate::imports::ScannedFile>,
    /// What its language manifests say (provided names, Rust renames).
    pub manifests: crate::imports::ManifestFacts,
}
