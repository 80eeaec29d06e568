//! The Rust import scanner: the crate names a file uses, from `use` trees, `extern crate`, and
//! paths written in place (`serde_json::to_string(..)`, `#[tokio::main]`).
//!
//! A path's first segment is only a crate when nothing in the file shadows it, so names the
//! file declares (`mod x`) or binds by a `use` (`use std::fmt;` then `fmt::Display`) are left
//! out; other lowercase false positives are left for resolution to drop.

mod attrs;
mod lexer;
mod parser;
#[cfg(test)]
mod tests;

use super::lex::{Collector, FileScan};
use attrs::test_items;
use lexer::lex;
use parser::Parser;

/// How deeply `use` groups (`use a::{b::{c}}`) are followed; deeper ones are not real code.
const MAX_USE_DEPTH: usize = 32;

/// Scans a Rust file: its imports, the first segment (crate name) of every `use`,
/// `extern crate` and in-place path that is not a local name (those inside test-only items are
/// `dev`), and the modules it declares only for tests (`#[cfg(test)] mod tests;`), whose files
/// are dev code.
pub fn scan_file(src: &str) -> FileScan {
    let mut c = Collector::new(src);
    let toks = lex(src.as_bytes(), &mut c);
    let mut parser = Parser::new(src, &toks);
    parser.run();
    parser.report(&mut c);
    let mut notes = Vec::new();
    let test_mods = test_items(&toks, src, &mut c, &mut notes);
    FileScan {
        imports: c.finish().into(),
        test_mods,
        notes,
    }
}
