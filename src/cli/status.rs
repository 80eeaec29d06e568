//! `mesh status`: what every node runs, and every module's delivery.

use super::{Ctx, Ui, graph::short, table};
use crate::Result;
use crate::status::nodes::{NodeStatus, Status, ago};

/// Say what is current, out of date, never told, outstanding or stuck.
///
/// Two tables: nodes (state, declared, sent and applied sequences, last seen, failure streak)
/// and modules (source · built from · verdict · declared on N · applied on M, K outstanding).
/// `--check` exits 3 when anything is not current.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only the nodes table.
    #[arg(long, conflicts_with = "modules")]
    nodes: bool,
    /// Only the modules table.
    #[arg(long)]
    modules: bool,
    /// Exit 3 when any node is not current (or current but silent).
    #[arg(long)]
    check: bool,
}

/// Runs `mesh status` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let status = crate::status::nodes::status(ctx.paths(), &ctx.mesh, &ctx.sources()?)?;
    if ui.json {
        ui.json_data(&status);
    } else {
        let mut out = String::new();
        if !a.modules {
            out.push_str(&nodes_table(&status, crate::clock::now_ms()));
        }
        if !a.nodes {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&modules_table(&status));
        }
        ui.data(out);
        hints(ui, &status);
    }
    for n in status.nodes.iter().filter(|n| n.trouble.is_some()) {
        if let Some(t) = &n.trouble {
            ui.warn(format!("{}: {}", n.name, t.reason));
        }
    }
    Ok(if a.check && status.needs_a_look() {
        3
    } else {
        0
    })
}

fn seq(s: &Option<crate::status::nodes::Stamp>) -> String {
    s.as_ref().map_or("-".into(), |s| s.sequence.to_string())
}

fn node_state(n: &NodeStatus, now: u64) -> String {
    let mut s = n.state.to_string();
    if n.silent {
        let age = n.last_seen_ms.map_or("never seen".into(), |t| ago(t, now));
        s = format!("current, silent ({age})");
    }
    if n.unreachable_since.is_some() {
        s.push_str(", unreachable");
    }
    s
}

/// The nodes table.
pub fn nodes_table(status: &Status, now: u64) -> String {
    let mut t = table::new(&[
        "node",
        "state",
        "declared",
        "sent",
        "applied",
        "last seen",
        "failure",
    ]);
    for n in &status.nodes {
        let when = |s: &Option<crate::status::nodes::Stamp>| {
            s.as_ref().map_or("-".to_string(), |s| {
                let at =
                    s.at.as_deref()
                        .and_then(|a| humantime::parse_rfc3339(a).ok())
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                        .map(|d| ago(d.as_millis() as u64, now));
                format!("{} ({})", s.sequence, at.unwrap_or_default())
            })
        };
        let failure = n.failure.as_ref().map_or(String::new(), |f| {
            format!("{}× {}", f.count, f.resources.join(" "))
        });
        let state = match &n.reason {
            Some(r)
                if matches!(n.state, "not worked out" | "failed" | "stuck")
                    || n.trouble.is_some() =>
            {
                let first = r.lines().next().unwrap_or("");
                let first = first.split("; last output").next().unwrap_or(first);
                format!("{}: {first}", node_state(n, now))
            }
            _ => node_state(n, now),
        };
        t.add_row(vec![
            n.name.clone(),
            state,
            seq(&n.declared),
            when(&n.sent),
            when(&n.applied),
            n.last_seen_ms.map_or("never".into(), |t| ago(t, now)),
            failure,
        ]);
    }
    table::render(&t)
}

/// The modules table: the seed's one line per module.
pub fn modules_table(status: &Status) -> String {
    let mut t = table::new(&["module", "delivery"]);
    for m in &status.modules {
        let c = |s: &Option<String>| {
            s.as_deref().map_or("-".to_string(), |c| {
                short(c).get(..8).unwrap_or(c).to_string()
            })
        };
        let mut line = format!(
            "source {} · built from {} · {} · declared on {} · applied on {}",
            c(&m.source),
            c(&m.built_from),
            m.verdict
                .map_or("never built".to_string(), |v| v.to_string()),
            m.declared_on,
            m.applied_on
        );
        if m.outstanding_on > 0 {
            line.push_str(&format!(", {} outstanding", m.outstanding_on));
        }
        if m.failed_on > 0 {
            line.push_str(&format!(", {} failed", m.failed_on));
        }
        if m.not_sent_on > 0 {
            line.push_str(&format!(", {} not sent", m.not_sent_on));
        }
        // The nodes run the declared build: say so when it is not the newest one.
        if let Some(d) = &m.declared_from
            && (m.verdict != Some(crate::build::Verdict::Fit) || Some(d) != m.built_from.as_ref())
        {
            line.push_str(&format!(
                " · nodes are sent the build from {}",
                c(&Some(d.clone()))
            ));
        }
        if let Some(why) = &m.stuck {
            line.push_str(&format!(" · stuck: {why}"));
        }
        t.add_row(vec![m.name.clone(), line]);
    }
    table::render(&t)
}

fn hints(ui: &Ui, status: &Status) {
    // Only the nodes a push can reach: not one that is unreachable or refusing us.
    super::hint_behind(ui, status.pushable_states());
    if status.nodes.iter().any(|n| n.state == "outstanding") {
        ui.hint("outstanding is not failure: `mesh collect` reads what the nodes applied");
    }
    if status.nodes.iter().any(|n| n.state == "not worked out") {
        ui.hint("`mesh plan` says why a node is not worked out");
    }
}
