//! `mesh node show NODE`.

use crate::Result;
use crate::artifact::{SHORT, short};
use crate::cli::Ctx;
use crate::declare::{Composed, compose};
use crate::status::nodes::ago;
use crate::store::NODES;
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
            let rec = r.get(NODES, a.node.as_bytes())?.unwrap_or_default();
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
    let now = crate::clock::now_ms();
    // Label and value, the values wrapped to the terminal's width (a table without a header).
    let mut head = crate::cli::table::new(&[]);
    let mut line = |label: &str, text: String| {
        head.add_row(vec![label.to_string(), text]);
    };
    line("node", a.node.clone());
    line(
        "where",
        format!(
            "{}{} ({})",
            cfg.address
                .as_deref()
                .map(|a| format!("{a}:"))
                .unwrap_or_default(),
            cfg.root,
            cfg.transport
        ),
    );
    if let Some(st) = &st {
        let reason = st
            .reason
            .as_deref()
            .map(|r| r.strip_prefix(&format!("{}: ", a.node)).unwrap_or(r))
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        line("state", format!("{}{reason}", st.state));
        line(
            "host",
            st.host_version
                .as_deref()
                .map_or("not reported".to_string(), |v| format!("mesh {v}")),
        );
        line(
            "last seen",
            match (&st.last_seen, st.last_seen_ms) {
                (Some(at), Some(ms)) => format!("{at} ({})", ago(ms, now)),
                _ => "never".to_string(),
            },
        );
        if let Some(u) = &st.unreachable_since {
            line("unreachable", format!("since {u}"));
        }
    }
    let sequence = st
        .as_ref()
        .and_then(|s| s.declared.as_ref())
        .map(|d| d.sequence);
    let mut modules: Vec<String> = Vec::new();
    match &composed {
        Some(Composed::Ready { declaration, .. }) => {
            line(
                "declared",
                format!(
                    "sequence {} ({}), {}",
                    sequence.map_or("-".to_string(), |s| s.to_string()),
                    short(&declaration.digest(), SHORT),
                    crate::cli::count(declaration.modules.len() as u64, "module", "modules")
                ),
            );
            let width = declaration
                .modules
                .iter()
                .map(|m| m.name.len())
                .max()
                .unwrap_or(0);
            for m in &declaration.modules {
                modules.push(format!(
                    "  {:<width$}  build {:<5} artifact {}",
                    m.name,
                    m.build,
                    short(&m.artifact, SHORT)
                ));
            }
        }
        Some(Composed::NotWorkedOut(r)) => line("declared", format!("not worked out: {r}")),
        None => {}
    }
    line(
        "sent",
        match &rec.sent {
            Some(s) => format!(
                "sequence {} ({}), {}",
                s.sequence,
                short(&s.digest, SHORT),
                ago(s.at, now)
            ),
            None => "never".to_string(),
        },
    );
    line(
        "applied",
        match &rec.applied {
            Some(s) => {
                let builds: Vec<String> = rec
                    .applied_builds
                    .iter()
                    .map(|(m, b)| format!("{m}@{b}"))
                    .collect();
                format!(
                    "sequence {} ({}), {}: {}",
                    s.sequence,
                    short(&s.digest, SHORT),
                    ago(s.at, now),
                    builds.join(" ")
                )
            }
            None => "nothing reported".to_string(),
        },
    );
    // The failure streak status counts (about what the node was sent), not an older one.
    let failure = st.as_ref().and_then(|s| s.failure.as_ref());
    if let Some(f) = failure {
        line(
            "failure",
            format!(
                "{} in a row: {}",
                crate::cli::count(f.count, "report", "reports"),
                f.resources.join(", ")
            ),
        );
    }
    if let Some(r) = &last_report {
        line("last report", report_summary(r));
    }
    for u in &rec.unreadable {
        line("unreadable", u.clone());
    }
    if let Some(t) = st.as_ref().and_then(|s| s.trouble.as_ref()) {
        line(
            "trouble",
            format!(
                "{} since {}: {}",
                crate::cli::count(t.count, "time", "times"),
                t.since,
                t.reason
            ),
        );
    }
    let mut out = crate::cli::table::render(&head);
    for m in modules {
        let _ = writeln!(out, "{m}");
    }
    if let Some(f) = rec.failure.as_ref().filter(|_| failure.is_some()) {
        for r in &f.reasons {
            let _ = writeln!(out, "  | {}", r.replace('\n', "\n  | "));
        }
    }
    if let Some(r) = &last_report {
        out.push_str(&report_resources(r));
    }
    ui.data(out);
    Ok(0)
}

/// The report's head: `#3, 2026-12-01T02:05:48Z: applied sequence 2`.
fn report_summary(r: &serde_json::Value) -> String {
    let word = |v: &serde_json::Value| {
        v.as_str()
            .map(str::to_string)
            .unwrap_or_else(|| v.to_string())
    };
    let mut s = format!(
        "#{}, {}: {} sequence {}",
        r["report_sequence"],
        word(&r["at"]),
        word(&r["outcome"]),
        r["declaration"]["sequence"]
    );
    if let Some(reason) = r["reason"].as_str() {
        s.push_str(&format!(": {reason}"));
    }
    s
}

/// The report's resources, one a line: resource, outcome, and the reason where there is one.
fn report_resources(r: &serde_json::Value) -> String {
    let Some(resources) = r["resources"].as_array() else {
        return String::new();
    };
    let mut t = crate::cli::table::new(&["resource", "outcome", "reason"]);
    for res in resources {
        t.add_row(vec![
            res["id"].as_str().unwrap_or("?").to_string(),
            res["outcome"].as_str().unwrap_or("?").to_string(),
            res["reason"].as_str().unwrap_or("").to_string(),
        ]);
    }
    crate::cli::table::render(&t)
}
