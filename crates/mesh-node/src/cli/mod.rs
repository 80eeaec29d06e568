//! The node half of the protocol as commands: `have`, `receive`, `apply`, `report`, `session`
//! and `serve`, each with `--root DIR`. The `mesh-node` binary is these alone; `mesh node …`
//! embeds the same arguments, so a machine with `mesh` alone serves as a node too.

pub mod apply;
pub mod have;
pub mod receive;
pub mod report;
pub mod serve;
pub mod session;

use crate::NodeError;
use std::io::Write;

/// One node verb with its arguments. (Its variants carry no doc comment: clap would show it
/// instead of the help each verb's `Args` gives, which `mesh node …` shows too.)
#[derive(Debug, clap::Subcommand)]
#[allow(missing_docs)]
pub enum Verb {
    Have(have::Args),
    Receive(receive::Args),
    Apply(apply::Args),
    Report(report::Args),
    Session(session::Args),
    Serve(serve::Args),
}

impl Verb {
    /// Runs the verb and returns its exit code.
    pub fn run(&self) -> Result<i32, NodeError> {
        match self {
            Verb::Have(a) => have::run(a),
            Verb::Receive(a) => receive::run(a),
            Verb::Apply(a) => apply::run(a),
            Verb::Report(a) => report::run(a),
            Verb::Session(a) => session::run(a),
            Verb::Serve(a) => serve::run(a),
        }
    }
}

/// A value as one line of JSON on stdout: what the controller reads back.
fn data(value: &impl serde::Serialize) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(serde_json::to_string(value).unwrap_or_default().as_bytes());
    let _ = out.write_all(b"\n");
}

/// An error as the controller reads a node's stderr (as `mesh` itself prints one): `× what`,
/// its causes, then `help: what to do`.
pub fn said(e: &NodeError) -> String {
    use miette::Diagnostic;
    let mut text = format!("  × {e}");
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(&format!("\n  ╰─▶ {c}"));
        cause = c.source();
    }
    if let Some(help) = e.help() {
        text.push_str(&format!("\n  help: {help}"));
    }
    text
}
