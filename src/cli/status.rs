//! `mesh status`: what every node runs, and every module's delivery.

use super::{Ctx, Ui, table};
use mesh::Result;
use mesh::status::nodes::NodeState;
use mesh::status::nodes::{NodeStatus, Status, ago};
use mesh_node::artifact::short;

/// Say what is current, out of date, never told, outstanding or stuck.
///
/// Two tables: nodes (state, the sequences declared, sent and applied, last seen, and why) and
/// modules (source · built from · verdict · declared on N · applied on M, K outstanding).
/// Under the nodes, the nodes the store still has records of that mesh.toml no longer names.
/// `--check` exits 3 when anything is not current, or anything `reconcile` exits 3 for needs a
/// person (a failed fetch, a broken or unfit build). On a terminal the tables fit its width.
///
/// `--html FILE` writes the same status as one self-contained HTML page instead (inline style,
/// no script, nothing fetched from elsewhere; nodes that need a look first, a module × node
/// grid, the newest facts), atomically, for a cron host to publish. `[status] page` in
/// mesh.toml makes every `mesh reconcile` write it.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only the nodes table.
    #[arg(long, conflicts_with = "modules")]
    nodes: bool,
    /// Only the modules table.
    #[arg(long)]
    modules: bool,
    /// Exit 3 when any node is not current (or current but silent), or anything needs a person.
    #[arg(long)]
    check: bool,
    /// Write the status as one self-contained HTML page to FILE (atomically) instead of tables.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, conflicts_with_all = ["nodes", "modules"])]
    html: Option<std::path::PathBuf>,
    /// With `--html`: a browser showing the page loads it again every SECS seconds.
    #[arg(long, value_name = "SECS", requires = "html", value_parser = clap::value_parser!(u64).range(1..))]
    refresh: Option<u64>,
}

/// Runs `mesh status` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let sources = mesh::graph::sources(&ctx.config, &ctx.paths().state)?;
    let status = mesh::status::nodes::status(ctx.paths(), &ctx.config, &sources)?;
    if let Some(path) = &a.html {
        let refresh = a.refresh.map(std::time::Duration::from_secs);
        mesh::status::page::publish(ctx.paths(), &ctx.config.name, &status, path, refresh)?;
        ui.status(format!("wrote {}", path.display()));
    } else if ui.json {
        ui.json_data(&status);
    } else {
        let mut out = String::new();
        if !a.modules {
            out.push_str(&nodes_table(&status, mesh::clock::now_ms()));
        }
        if !a.nodes {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&modules_table(&status));
            if !status.instantiations.is_empty() {
                out.push('\n');
                out.push_str(&super::plan::instantiations(&status.instantiations));
            }
        }
        ui.data(out);
        hints(ui, &status);
    }
    for n in status.nodes.iter().filter(|n| n.trouble.is_some()) {
        if let Some(t) = &n.trouble {
            ui.warn(format!("{}: {}", n.name, t.reason));
        }
    }
    // A failed fetch, this run's or an earlier one's: said here, once.
    mesh::source::follow::take_unsaid();
    for f in &status.fetch_failed {
        ui.warn(&f.reason);
    }
    Ok(if a.check && status.needs_a_look() {
        3
    } else {
        0
    })
}

fn seq(s: &Option<mesh::status::nodes::Stamp>) -> String {
    s.as_ref().map_or("-".into(), |s| s.sequence.to_string())
}

/// The state word (see `NodeState`), with `silent` beside a current node not seen lately.
fn node_state(n: &NodeStatus) -> String {
    if n.silent {
        "current, silent".to_string()
    } else {
        n.state.to_string()
    }
}

/// Why a node is in its state, in one cell: the reason (first line, without the node's output),
/// and since when it cannot be reached.
fn node_reason(n: &NodeStatus, now: u64) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(u) = &n.unreachable_since {
        let since = humantime::parse_rfc3339(u)
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or_else(|| u.clone(), |d| ago(d.as_millis() as u64, now));
        parts.push(format!("unreachable since {since}"));
    }
    if let Some(r) = &n.reason {
        let first = r.lines().next().unwrap_or("");
        let first = first.split("; last output").next().unwrap_or(first);
        let first = first
            .strip_prefix(&format!("{}: ", n.name))
            .unwrap_or(first);
        if !first.is_empty() {
            parts.push(first.to_string());
        }
    }
    parts.join(": ")
}

/// The nodes table: the state word in its column, the sequences declared, sent and applied,
/// when the node was last seen, and why (wrapped to the terminal) in the last column, which is
/// left out when no node has a why.
pub fn nodes_table(status: &Status, now: u64) -> String {
    let reasons: Vec<String> = status.nodes.iter().map(|n| node_reason(n, now)).collect();
    let any_reason = reasons.iter().any(|r| !r.is_empty());
    let mut headers = vec!["node", "state", "declared", "sent", "applied", "last seen"];
    if any_reason {
        headers.push("reason");
    }
    let mut t = table::new(&headers);
    for (n, reason) in status.nodes.iter().zip(reasons) {
        let mut row = vec![
            n.name.clone(),
            node_state(n),
            seq(&n.declared),
            seq(&n.sent),
            seq(&n.applied),
            n.last_seen_ms.map_or("never".into(), |t| ago(t, now)),
        ];
        if any_reason {
            row.push(reason);
        }
        t.add_row(row);
    }
    let mut out = table::render(&t);
    for f in &status.forgotten {
        out.push_str(&forgotten_line(f));
        out.push('\n');
    }
    out
}

/// `edge-2: no longer in mesh.toml; it last applied sequence 2 (route-proxy, resolver)`.
fn forgotten_line(f: &mesh::status::nodes::ForgottenNode) -> String {
    let last = match &f.applied {
        Some(seq) if f.modules.is_empty() => format!("it last applied sequence {seq}"),
        Some(seq) => format!("it last applied sequence {seq} ({})", f.modules.join(", ")),
        None => "it never reported applying anything".to_string(),
    };
    format!("{}: no longer in mesh.toml; {last}", f.name)
}

/// The modules table: the seed's one line per module.
pub fn modules_table(status: &Status) -> String {
    let mut t = table::new(&["module", "delivery"]);
    for m in &status.modules {
        let c = |s: &Option<String>| {
            s.as_deref()
                .map_or("-".to_string(), |c| short(c, 8).to_string())
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
        if m.unhealthy_on > 0 {
            line.push_str(&format!(", {} unhealthy", m.unhealthy_on));
        }
        if m.failed_on > 0 {
            line.push_str(&format!(", {} failed", m.failed_on));
        }
        if m.not_sent_on > 0 {
            line.push_str(&format!(", {} not sent", m.not_sent_on));
        }
        if m.elsewhere_on > 0 {
            line.push_str(&format!(
                ", {} hold another controller's declaration",
                m.elsewhere_on
            ));
        }
        // The nodes run the declared build: say so when it is not the newest one.
        if let Some(d) = &m.declared_from
            && (m.verdict != Some(mesh::store::Verdict::Fit) || Some(d) != m.built_from.as_ref())
        {
            line.push_str(&format!(
                " · nodes are sent the build from {}",
                c(&Some(d.clone()))
            ));
        }
        if let Some(why) = &m.stuck {
            line.push_str(&format!(" · stuck: {why}"));
        }
        if let Some(r) = &m.rollout {
            line.push_str(&match &r.halted {
                Some(h) => format!(
                    " · rollout of build {} HALTED: {} failed it; put back to build {}",
                    r.to, h.node, r.from
                ),
                None => format!(
                    " · rollout of build {}: wave {} of {}, on {} of {} nodes",
                    r.to,
                    r.wave,
                    r.waves,
                    r.on_new.len(),
                    r.nodes
                ),
            });
        }
        t.add_row(vec![m.name.clone(), line]);
    }
    table::render(&t)
}

fn hints(ui: &Ui, status: &Status) {
    // Only the nodes a push can reach: not one that is unreachable or refusing us.
    super::hint_behind(ui, status.pushable_states());
    if status
        .nodes
        .iter()
        .any(|n| n.state == NodeState::Outstanding)
    {
        ui.hint("outstanding is not failure: `mesh collect` reads what the nodes applied");
    }
    if status
        .nodes
        .iter()
        .any(|n| n.state == NodeState::NotWorkedOut)
    {
        ui.hint("`mesh plan` says why a node is not worked out");
    }
    if let Some(f) = status.forgotten.first() {
        ui.hint(format!(
            "`mesh node forget {}` drops the records of a node removed from mesh.toml \
             (after you stopped what it runs)",
            f.name
        ));
    }
}
