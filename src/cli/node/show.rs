//! `mesh node show NODE`.

use crate::Result;
use crate::cli::Ctx;
use crate::declare::{Composed, compose};
use crate::store::{NODES, NodeRecord};
use std::fmt::Write;

/// Everything known about one node: its declaration (modules and builds), what it was last
/// sent, what it applied, its last report, host version and failure streak.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node.
    node: String,
}

/// Runs `mesh node show` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &super::Ui, a: &Args) -> Result<i32> {
    let cfg = ctx.mesh.node(&a.node)?;
    let paths = ctx.paths();
    let (composed, rec) = {
        let store = paths.open()?;
        store.read(|r| {
            let declared = compose::declared(r)?;
            let rec = r
                .get::<NodeRecord>(NODES, a.node.as_bytes())?
                .unwrap_or_default();
            Ok((compose::compose_all(&ctx.mesh, &declared), rec))
        })?
    };
    let status = crate::status::nodes::status(paths, &ctx.mesh, &ctx.sources()?)?;
    let st = status.nodes.into_iter().find(|n| n.name == a.node);
    let composed = composed.get(&a.node).cloned();
    let last_report: Option<serde_json::Value> = rec
        .last_report
        .as_deref()
        .and_then(|r| serde_json::from_str(r).ok());
    if ui.json {
        ui.json_data(&serde_json::json!({
            "name": a.node,
            "transport": cfg.transport,
            "address": cfg.address,
            "root": cfg.root,
            "tags": cfg.tags,
            "status": st,
            "declaration": match &composed {
                Some(Composed::Ready { declaration, .. }) => serde_json::to_value(declaration).ok(),
                _ => None,
            },
            "sent_builds": rec.sent_builds,
            "applied_builds": rec.applied_builds,
            "last_report": last_report,
            "report_sequence": rec.report_sequence,
        }));
        return Ok(0);
    }
    let mut out = String::new();
    let _ = writeln!(out, "node      {}", a.node);
    let _ = writeln!(
        out,
        "where     {}{} ({:?})",
        cfg.address
            .as_deref()
            .map(|a| format!("{a}:"))
            .unwrap_or_default(),
        cfg.root,
        cfg.transport
    );
    if let Some(st) = &st {
        let _ = writeln!(
            out,
            "state     {}{}",
            st.state,
            st.reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        );
        let _ = writeln!(
            out,
            "host      {}",
            st.host_version.as_deref().unwrap_or("not reported")
        );
        let _ = writeln!(
            out,
            "last seen {}",
            st.last_seen.as_deref().unwrap_or("never")
        );
        if let Some(u) = &st.unreachable_since {
            let _ = writeln!(out, "unreachable since {u}");
        }
    }
    match &composed {
        Some(Composed::Ready { declaration, .. }) => {
            // The sequence as status says it: one account for every verb.
            let seq = st
                .as_ref()
                .and_then(|s| s.declared.as_ref())
                .map_or(String::new(), |d| format!("sequence {} ", d.sequence));
            let _ = writeln!(
                out,
                "declared  {seq}{} ({} modules)",
                declaration.digest(),
                declaration.modules.len()
            );
            for m in &declaration.modules {
                let _ = writeln!(
                    out,
                    "  {:<20} build {:<6} artifact {}",
                    m.name,
                    m.build,
                    m.artifact.get(..12).unwrap_or(&m.artifact)
                );
            }
        }
        Some(Composed::NotWorkedOut(r)) => {
            let _ = writeln!(out, "declared  not worked out: {r}");
        }
        None => {}
    }
    match &rec.sent {
        Some(s) => {
            let _ = writeln!(out, "sent      sequence {} ({})", s.sequence, s.digest);
        }
        None => {
            let _ = writeln!(out, "sent      never");
        }
    }
    match &rec.applied {
        Some(s) => {
            let builds: Vec<String> = rec
                .applied_builds
                .iter()
                .map(|(m, b)| format!("{m}@{b}"))
                .collect();
            let _ = writeln!(
                out,
                "applied   sequence {} ({}): {}",
                s.sequence,
                s.digest,
                builds.join(" ")
            );
        }
        None => {
            let _ = writeln!(out, "applied   nothing reported");
        }
    }
    // The failure streak status counts (about what the node was sent), not an older one.
    if let Some(f) = st.as_ref().and_then(|s| s.failure.as_ref()) {
        let _ = writeln!(
            out,
            "failure   {} reports in a row: {}",
            f.count,
            f.resources.join(", ")
        );
        for r in &f.reasons {
            let _ = writeln!(out, "  | {}", r.replace('\n', "\n  | "));
        }
    }
    if let Some(t) = st.as_ref().and_then(|s| s.trouble.as_ref()) {
        let _ = writeln!(
            out,
            "trouble   {} time(s) since {}: {}",
            t.count, t.since, t.reason
        );
    }
    if let Some(r) = &last_report {
        let _ = writeln!(out, "last report {}", r);
    }
    for u in &rec.unreadable {
        let _ = writeln!(out, "unreadable {u}");
    }
    ui.data(out);
    Ok(0)
}
