//! `mesh where`: did my change go out — on which machines, and if not, why not.

use super::{Ctx, Ui, table};
use mesh::Result;
use mesh::status::nodes::ago;
use mesh::trace::{Answer, BuildAnswer, ModuleWhere, NodeWhere, Where, build_word, clock_time};
use mesh_node::artifact::short;
use std::time::{Duration, Instant};

/// Follow a commit to every machine: where it runs, and where it does not, what holds it.
///
/// Finds the modules whose source REV changed (source id at REV against its first parent), follows
/// build edges to every module rebuilt because of them, and says for each of those and each node
/// it is assigned to: running since T; running its effect (the node runs an older build with the
/// same artifact: the change did not alter it); sent, not applied; declared, not sent; built,
/// held; not built yet; blocked, unfit or broken; failing on the node; or superseded (the node,
/// the declared build or the ref moved on to a commit without it). From the store and git alone.
///
/// Exits 0 when every such node runs REV or its effect, 3 otherwise.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The commit to follow: an id or the start of one, a branch, a tag, `HEAD~1`, `main^2`
    /// (default: each repository's configured ref).
    #[arg(value_name = "REV")]
    rev: Option<String>,
    /// The repository REV is in, when it names a commit in more than one.
    #[arg(long, value_name = "NAME")]
    repo: Option<String>,
    /// Collect every 2 seconds (nothing else: no build, no push) until every node runs it
    /// (exit 0), something waiting cannot fix is reported — a failure or refusal on a node, an
    /// unfit, broken or blocked build, a superseded change — (exit 3), or DURATION (`10m`, `90s`)
    /// is up (exit 3). Takes the mesh's lock only for each collect.
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    wait: Option<Duration>,
}

/// How often `--wait` collects.
const WAIT_EVERY: Duration = Duration::from_secs(2);

/// Runs `mesh where` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let compute = || -> Result<Where> {
        let loaded = mesh::graph::load(&ctx.config, &ctx.paths().state)?;
        let w = mesh::trace::trace(
            ctx.paths(),
            &ctx.config,
            &loaded,
            a.rev.as_deref(),
            a.repo.as_deref(),
        );
        // About to answer: the graph's many small allocations need not be freed one by one.
        std::mem::forget(loaded);
        w
    };
    let mut w = compute()?;
    if let Some(limit) = a.wait {
        let start = Instant::now();
        let mut said = String::new();
        loop {
            let pending = w.pending_nodes();
            if !pending.is_empty() {
                collect(ctx, ui, &pending)?;
                w = compute()?;
            }
            if w.everywhere || w.any_final() {
                break;
            }
            if w.summary != said {
                ui.status(format!("waiting: {}", w.summary));
                said = w.summary.clone();
            }
            let spent = start.elapsed();
            if spent >= limit {
                ui.status(format!(
                    "time is up after {}: still outstanding on {}",
                    humantime::format_duration(Duration::from_secs(spent.as_secs())),
                    w.pending_nodes().into_iter().collect::<Vec<_>>().join(", ")
                ));
                break;
            }
            std::thread::sleep(WAIT_EVERY.min(limit - spent));
        }
    }
    render(ui, &w);
    Ok(if w.everywhere { 0 } else { 3 })
}

/// One collect from `nodes`, holding the mesh's lock only for it. Another mesh holding the lock
/// (a reconcile) is no failure: the next round collects.
fn collect(ctx: &Ctx, ui: &Ui, nodes: &std::collections::BTreeSet<String>) -> Result<()> {
    let lock = match ctx.lock("where --wait") {
        Ok(l) => l,
        Err(e) if e.exit_code() == 75 => {
            ui.detail(format!("not collecting this round: {e}"));
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let names: Vec<String> = nodes.iter().cloned().collect();
    let sessions = mesh::transport::Connections::new(&ctx.config, 0)?;
    let (results, events) =
        mesh::deliver::collect::collect(ctx.paths(), &ctx.config, &names, &sessions)?;
    // Said after the work: what it met (a lingering session that did not answer) too.
    for w in sessions.warnings() {
        ui.detail(w);
    }
    drop(sessions);
    drop(lock);
    for r in &results {
        if let Some(u) = &r.unreachable {
            ui.detail(format!("{}: unreachable: {u}", r.node));
        } else if let Some(f) = &r.failed {
            ui.detail(format!("{}: failed: {f}", r.node));
        }
    }
    super::run_hooks(ctx, ui, &events);
    Ok(())
}

fn render(ui: &Ui, w: &Where) {
    if ui.json {
        ui.json_data(w);
        return;
    }
    let now = mesh::clock::now_ms();
    let mut out = String::new();
    for r in &w.revs {
        let changed = if r.changed.is_empty() {
            "no module".to_string()
        } else {
            r.changed.join(", ")
        };
        out.push_str(&format!(
            "{} ({}) {:?} changed {changed}\n",
            short(&r.commit, 8),
            r.repo,
            r.subject
        ));
    }
    if !w.modules.is_empty() {
        let mut t = table::new(&["module", "node", "answer"]);
        for m in &w.modules {
            let name = if m.changed {
                m.name.clone()
            } else {
                format!("{} (via {})", m.name, m.via.join(", "))
            };
            if m.nodes.is_empty() {
                t.add_row(vec![name, "-".into(), module_says(m)]);
                continue;
            }
            for (i, n) in m.nodes.iter().enumerate() {
                let first = if i == 0 { name.clone() } else { String::new() };
                t.add_row(vec![first, n.name.clone(), says(n, now)]);
            }
        }
        out.push('\n');
        out.push_str(&table::render(&t));
    }
    out.push('\n');
    out.push_str(&w.summary);
    ui.data(out);
    if w.lines().any(|(_, n)| n.state == Answer::Declared) {
        ui.hint("declared, not sent: `mesh push --behind` sends them");
    }
    if w.lines().any(|(_, n)| n.state == Answer::Sent) {
        ui.hint("sent, not applied: `mesh collect` reads what the nodes applied");
    }
    if w.lines().any(|(_, n)| n.state == Answer::NotBuilt) {
        ui.hint("not built yet: `mesh build --behind` builds them");
    }
    if w.lines().any(|(_, n)| n.state == Answer::Waiting) {
        ui.hint(
            "`mesh rollout` says what each rollout waits for; `mesh rollout promote` moves one on",
        );
    }
}

/// The first line of a reason, without a log's tail.
fn first_line(s: &str) -> &str {
    let l = s.lines().next().unwrap_or("");
    l.split("; last output").next().unwrap_or(l)
}

fn with_build(word: &str, build: Option<u64>, reason: Option<&str>) -> String {
    let mut s = word.to_string();
    if let Some(b) = build {
        s.push_str(&format!(" (build {b})"));
    }
    if let Some(r) = reason {
        s.push_str(": ");
        s.push_str(first_line(r));
    }
    s
}

/// A library's (or unassigned module's) line: its build's answer.
fn module_says(m: &ModuleWhere) -> String {
    let word = match m.build.state {
        BuildAnswer::Built => "built, fit",
        s => build_word(s),
    };
    let mut s = with_build(word, m.build.build, m.build.reason.as_deref());
    s.push_str(if m.kind == mesh::config::Kind::Library {
        " — a library, on no node"
    } else {
        " — assigned to no node"
    });
    s
}

/// A node's line in full words.
fn says(n: &NodeWhere, now: u64) -> String {
    let reason = n.reason.as_deref();
    match n.state {
        Answer::Running => {
            let since = n
                .since_ms
                .map(|t| format!(" since {}", clock_time(t, now)))
                .unwrap_or_default();
            with_build(&format!("running{since}"), n.build, n.reason.as_deref())
        }
        Answer::Effect => with_build("running its effect", n.build, reason),
        Answer::Failing => with_build("failing on the node", n.build, reason),
        Answer::Sent => {
            let seen = n.last_seen_ms.map_or("never seen".to_string(), |t| {
                format!("last seen {}", ago(t, now))
            });
            with_build(&format!("sent, not applied ({seen})"), n.build, None)
        }
        Answer::Declared => {
            let mut s = with_build("declared, not sent", n.build, None);
            match n.unreachable_ms {
                Some(t) => s.push_str(&format!(
                    ": out of date; unreachable since {}",
                    clock_time(t, now)
                )),
                None => s.push_str(": out of date"),
            }
            s
        }
        Answer::Waiting => with_build(reason.unwrap_or("waiting for its rollout"), n.build, None),
        Answer::Superseded => with_build("superseded", None, reason),
        Answer::Held => with_build("built, held", n.build, reason),
        Answer::Unfit => with_build("unfit", n.build, reason),
        Answer::Broken => with_build("broken", n.build, reason),
        Answer::Blocked => with_build("blocked", None, reason),
        Answer::NotBuilt => with_build("not built yet", None, reason),
    }
}
