//! Import scanners, one per language, and their resolution to modules (DESIGN.md §5).
//!
//! A build edge is a fact about code that already exists, so it is read from imports rather
//! than declared: each module *provides* names (from its language manifests), each source file
//! *imports* names (from a small scanner that understands comments and strings), and an import
//! resolves to the module providing its longest prefix.

pub mod component;
pub mod go;
pub mod js;
pub mod manifest;
pub mod place;
pub mod python;
pub mod python_packages;
pub mod resolve;
pub mod rust;
pub mod scan;

pub use manifest::ManifestFacts;
pub use scan::{FileScan, Import, ImportKind, Language, SCANNER_VERSION, scan, scan_file};

use serde::{Deserialize, Serialize};

/// The imports found in one source file of a module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScannedFile {
    /// Repo-relative path.
    pub path: String,
    /// Its language.
    pub language: Language,
    /// The kind of code it is, from where it stands in its module (tests are dev code).
    pub kind: ImportKind,
    /// What it imports.
    pub imports: Vec<Import>,
}
