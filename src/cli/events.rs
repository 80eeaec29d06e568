//! `mesh events`: the facts log.

use super::{Ctx, Ui};
use crate::Result;
use crate::events::Event;
use crate::store::EVENTS;
use std::fmt::Write;

/// List the facts the mesh recorded: source-moved, built, declared, sent, applied, refused,
/// stuck, recovered, unreachable, reachable, trouble, build-stuck, not-worked-out.
///
/// A fact is recorded only when something changed. With `--json`, one JSON object a line:
/// `{"seq", "at", "kind", "subject", ...}`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only facts after this sequence.
    #[arg(long, value_name = "SEQ", default_value_t = 0)]
    since: u64,
    /// Only facts of this kind.
    #[arg(long, value_name = "KIND")]
    kind: Option<String>,
}

/// Runs `mesh events` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let events: Vec<Event> = {
        let store = ctx.paths().open()?;
        let from = crate::store::id_key(a.since.saturating_add(1));
        store
            .read(|r| r.range::<Event>(EVENTS, &from, None))?
            .into_iter()
            .map(|(_, e)| e)
            .collect()
    };
    let mut out = String::new();
    for e in &events {
        let v = e.to_json();
        if a.kind.as_deref().is_some_and(|k| v["kind"] != k) {
            continue;
        }
        if ui.json {
            let _ = writeln!(out, "{v}");
        } else {
            let mut details: Vec<String> = Vec::new();
            if let Some(o) = v.as_object() {
                for (k, val) in o {
                    if !matches!(
                        k.as_str(),
                        "seq" | "at" | "kind" | "subject" | "node" | "module"
                    ) {
                        let shown = val.as_str().map_or_else(|| val.to_string(), str::to_string);
                        details.push(format!("{k}={shown}"));
                    }
                }
            }
            let _ = writeln!(
                out,
                "{:>5}  {}  {:<12} {:<16} {}",
                e.seq,
                v["at"].as_str().unwrap_or(""),
                v["kind"].as_str().unwrap_or(""),
                v["subject"].as_str().unwrap_or(""),
                details.join(" ")
            );
        }
    }
    if !out.is_empty() {
        ui.data(out);
    }
    Ok(0)
}
