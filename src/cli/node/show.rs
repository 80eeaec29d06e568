//! `mesh node show NODE`.

use crate::cli::Ctx;
use crate::cli::count;
use comfy_table::Table;
use mesh::Result;
use mesh::status::nodes::ago;
use mesh::status::show::NodeShow;
use mesh_node::artifact::{SHORT, short};
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
    let show = mesh::status::show::show(ctx.paths(), &ctx.config, || ctx.sources(), &a.node)?;
    if ui.json {
        // Through a JSON value, whose keys are sorted at every level, as they always were.
        match serde_json::to_value(&show) {
            Ok(v) => ui.json_data(&v),
            Err(_) => ui.json_data(&show),
        }
        return Ok(0);
    }
    let now = mesh::clock::now_ms();
    // Label and value, the values wrapped to the terminal's width (a table without a header).
    let mut head = crate::cli::table::new(&[]);
    where_and_state(&mut head, &show, now);
    let modules = declared(&mut head, &show);
    delivered(&mut head, &show, now);
    trouble(&mut head, &show);
    let mut out = crate::cli::table::render(&head);
    for m in modules {
        let _ = writeln!(out, "{m}");
    }
    let failing = show.status.as_ref().is_some_and(|s| s.failure.is_some());
    if let Some(f) = show.record.failure.as_ref().filter(|_| failing) {
        for r in &f.reasons {
            let _ = writeln!(out, "  | {}", r.replace('\n', "\n  | "));
        }
    }
    if let Some(r) = &show.last_report {
        out.push_str(&report_resources(r));
    }
    ui.data(out);
    Ok(0)
}

/// One label and its value.
fn line(head: &mut Table, label: &str, text: String) {
    head.add_row(vec![label.to_string(), text]);
}

/// Where the node is, its state and why, its host and when it was last seen.
fn where_and_state(head: &mut Table, show: &NodeShow, now: u64) {
    line(head, "node", show.name.clone());
    line(
        head,
        "where",
        format!(
            "{}{} ({})",
            show.address
                .as_deref()
                .map(|a| format!("{a}:"))
                .unwrap_or_default(),
            show.root,
            show.transport
        ),
    );
    let Some(st) = &show.status else { return };
    let reason = st
        .reason
        .as_deref()
        .map(|r| r.strip_prefix(&format!("{}: ", show.name)).unwrap_or(r))
        .map(|r| format!(": {r}"))
        .unwrap_or_default();
    line(head, "state", format!("{}{reason}", st.state));
    if let Some(c) = &st.controller {
        line(head, "controller", c.clone());
    }
    line(
        head,
        "host",
        st.host_version
            .as_deref()
            .map_or("not reported".to_string(), |v| format!("mesh {v}")),
    );
    line(
        head,
        "last seen",
        match (&st.last_seen, st.last_seen_ms) {
            (Some(at), Some(ms)) => format!("{at} ({})", ago(ms, now)),
            _ => "never".to_string(),
        },
    );
    if let Some(u) = &st.unreachable_since {
        line(head, "unreachable", format!("since {u}"));
    }
    if let Some(k) = &show.age_key {
        let key = match &k.offered {
            Some(new) => format!(
                "{} pinned; it offers {new}, not accepted: no secret goes to it (`mesh node accept {}`)",
                k.pinned, show.name
            ),
            None => format!("{} (secrets are encrypted to it)", k.pinned),
        };
        line(head, "age key", key);
    }
}

/// What the node would be sent: the declaration's line, and one line per module (returned,
/// printed below the table).
fn declared(head: &mut Table, show: &NodeShow) -> Vec<String> {
    if let Some(r) = &show.not_worked_out {
        line(head, "declared", format!("not worked out: {r}"));
        return Vec::new();
    }
    let Some(declaration) = &show.declaration else {
        return Vec::new();
    };
    let sequence = show
        .status
        .as_ref()
        .and_then(|s| s.declared.as_ref())
        .map(|d| d.sequence);
    line(
        head,
        "declared",
        format!(
            "sequence {} ({}), {}",
            sequence.map_or("-".to_string(), |s| s.to_string()),
            short(&declaration.digest(), SHORT),
            count(declaration.modules.len() as u64, "module", "modules")
        ),
    );
    let width = declaration
        .modules
        .iter()
        .map(|m| m.name.len())
        .max()
        .unwrap_or(0);
    declaration
        .modules
        .iter()
        .map(|m| {
            let health = show
                .status
                .as_ref()
                .and_then(|s| s.modules.iter().find(|o| o.name == m.name))
                .and_then(|o| o.health.as_ref())
                .map(|h| match (h.healthy, &h.output) {
                    (true, _) => format!("  healthy since {}", h.since),
                    (false, Some(output)) => {
                        let first = output.lines().next().unwrap_or_default();
                        format!("  UNHEALTHY since {}: {first}", h.since)
                    }
                    (false, None) => format!("  UNHEALTHY since {}", h.since),
                })
                .unwrap_or_default();
            format!(
                "  {:<width$}  build {:<5} artifact {}{health}",
                m.name,
                m.build,
                short(&m.artifact, SHORT)
            )
        })
        .collect()
}

/// What it was sent and what it applied.
fn delivered(head: &mut Table, show: &NodeShow, now: u64) {
    let rec = &show.record;
    line(
        head,
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
        head,
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
}

/// Its failure streak (the one status counts: about what it was sent), its last report,
/// reports that could not be read, and what stopped mesh doing its work there.
fn trouble(head: &mut Table, show: &NodeShow) {
    let status = show.status.as_ref();
    if let Some(f) = status.and_then(|s| s.failure.as_ref()) {
        line(
            head,
            "failure",
            format!(
                "{} in a row: {}",
                count(f.count, "report", "reports"),
                f.resources.join(", ")
            ),
        );
    }
    if let Some(r) = &show.last_report {
        line(head, "last report", report_summary(r));
    }
    for u in &show.record.unreadable {
        line(head, "unreadable", u.clone());
    }
    if let Some(t) = status.and_then(|s| s.trouble.as_ref()) {
        line(
            head,
            "trouble",
            format!(
                "{} since {}: {}",
                count(t.count, "time", "times"),
                t.since,
                t.reason
            ),
        );
    }
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
