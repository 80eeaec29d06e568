//! Exporting a tree at a commit into a plain directory for builds.
