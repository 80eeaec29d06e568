//! `mesh push`: send declarations to the nodes that are behind.

use super::{Ctx, Ui, progress::NodeProgress};
use mesh::Result;
use mesh::deliver::push::{NodePush, Outcome, PushOptions, PushProgress};
use mesh_node::artifact::{SHORT, short};

/// Send declarations (and the artifacts they name) to nodes.
///
/// Bare, or with `--behind`: every node whose would-send digest differs from the digest it was
/// last sent, or that was never told. Named: those nodes only, each asked what it holds (sent
/// again when it lost what it was sent). `--all`: every node, resent even
/// when current. A send is recorded only after the node confirmed it holds the declaration; an
/// unreachable node stays out of date. A node that runs what another controller declared
/// from newer commits (ahead), another line of history (diverged), or the same commits with
/// another plan (differs) is not declared to. Exits 3 when a node could not be delivered to,
/// its apply failed, or it is ahead, diverged or differs.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Nodes to push to; `@tag` names every node with that tag.
    #[arg(value_name = "NODE")]
    nodes: Vec<String>,
    /// Every node that is out of date or never told (the default).
    #[arg(long, conflicts_with_all = ["nodes", "all"])]
    behind: bool,
    /// Every node, even when current.
    #[arg(long)]
    all: bool,
    /// Declare to the named nodes even where another controller declared: from a history that
    /// diverged from this one's, from newer commits (yours are older: that controller declares
    /// again on its next run), or from the same commits with another plan (recorded as taken
    /// over).
    #[arg(long = "take-over", requires = "nodes")]
    take_over: bool,
}

struct Lines<'a>(&'a Ui, NodeProgress);

impl PushProgress for Lines<'_> {
    fn node_step(&self, node: &str, step: mesh::deliver::push::Step) {
        self.1.step(node, step);
    }

    fn node_done(&self, p: &NodePush) {
        let said = (!matches!(p.outcome, Outcome::Unchanged)).then(|| line(p));
        self.1.done(&p.node, said, |l| self.0.status(l));
    }
}

fn line(p: &NodePush) -> String {
    match &p.outcome {
        Outcome::Sent {
            sequence,
            digest,
            artifacts,
            bytes,
            wire_bytes,
            installed,
            apply_failed,
        } => {
            let mut s = format!(
                "{}: sent sequence {sequence} ({}), {}, {}",
                p.node,
                short(digest, SHORT),
                super::count(*artifacts as u64, "artifact", "artifacts"),
                super::count(*bytes, "byte", "bytes")
            );
            if wire_bytes < bytes {
                s.push_str(&format!(" ({wire_bytes} on the wire)"));
            }
            if *installed {
                s.push_str("; installed mesh first");
            }
            if let Some(f) = apply_failed {
                s.push_str(&format!("; the apply failed: {f}"));
            }
            s
        }
        Outcome::Unchanged => format!("{}: unchanged", p.node),
        Outcome::Reapplied { sequence } => {
            format!(
                "{}: held sequence {sequence} without a report; asked to apply",
                p.node
            )
        }
        Outcome::Kept {
            controller,
            asked_to_apply: None,
        } => format!(
            "{}: kept: it runs what {controller} declared from the same commits",
            p.node
        ),
        Outcome::Kept {
            controller,
            asked_to_apply: Some(said),
        } => format!(
            "{}: kept: it held what {controller} declared from the same commits without applying it; asked to apply: {said}",
            p.node
        ),
        Outcome::NotWorkedOut { .. }
        | Outcome::Unreachable { .. }
        | Outcome::Refused { .. }
        | Outcome::Failed { .. }
        | Outcome::Ahead { .. }
        | Outcome::Diverged { .. }
        | Outcome::Differs { .. } => trouble_line(p).unwrap_or_default(),
    }
}

/// The line for a node the push could not serve: not worked out, unreachable, refused or
/// failed, with the reason (`None` for any other outcome).
pub fn trouble_line(p: &NodePush) -> Option<String> {
    let (word, reason) = match &p.outcome {
        Outcome::NotWorkedOut { reason } => ("not worked out", reason),
        Outcome::Unreachable { reason } => ("unreachable", reason),
        Outcome::Refused { reason } => ("refused", reason),
        Outcome::Failed { reason } => ("failed", reason),
        Outcome::Ahead { reason, .. } => ("ahead", reason),
        Outcome::Diverged { reason, .. } => ("diverged", reason),
        Outcome::Differs { reason, .. } => ("differs", reason),
        _ => return None,
    };
    Some(format!(
        "{}: {word}: {}",
        p.node,
        super::about(&p.node, reason)
    ))
}

/// Runs `mesh push` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let _lock = ctx.lock("push")?;
    ctx.signer_key()?;
    let nodes = super::select_nodes(&ctx.config, &a.nodes)?;
    let opts = PushOptions {
        take_over: if a.take_over {
            nodes.clone()
        } else {
            Vec::new()
        },
        nodes,
        all: a.all,
        reapply_unanswered: false,
    };
    let (code, results) = send(ctx, ui, opts, true)?;
    if ui.json {
        ui.json_data(&results);
    }
    Ok(code)
}

/// Pushes with `opts` (the lock held) and says what happened on stderr; the exit code and each
/// node's outcome. `say_nothing_sent`: say so when nothing was to be sent.
pub(super) fn send(
    ctx: &Ctx,
    ui: &Ui,
    opts: PushOptions,
    say_nothing_sent: bool,
) -> Result<(i32, Vec<NodePush>)> {
    // Rollouts first: a push moves each at most one wave, and puts back a halted build — from
    // what the nodes hold, read first where the store knows nothing of them.
    let sessions = mesh::transport::Connections::new(&ctx.config, 0)?;
    let stepped = mesh::rollout::before_push(ctx.paths(), &ctx.config, &sessions)?;
    let (results, mut events) = mesh::deliver::push::push(
        ctx.paths(),
        &ctx.config,
        &ctx.sources()?,
        &opts,
        &Lines(ui, NodeProgress::new(ui)),
        &sessions,
    )?;
    // Said after the work: what it met (a lingering session that did not answer) too.
    for w in sessions.warnings() {
        ui.warn(w);
    }
    drop(sessions);
    events.splice(0..0, stepped);
    super::run_hooks(ctx, ui, &events);
    let count = |f: fn(&Outcome) -> bool| results.iter().filter(|r| f(&r.outcome)).count();
    let sent = count(|o| matches!(o, Outcome::Sent { .. }));
    let unchanged = count(|o| matches!(o, Outcome::Unchanged | Outcome::Kept { .. }));
    let trouble = count(|o| {
        matches!(
            o,
            Outcome::Unreachable { .. }
                | Outcome::Refused { .. }
                | Outcome::Failed { .. }
                | Outcome::Sent {
                    apply_failed: Some(_),
                    ..
                }
        )
    });
    let nwo = count(|o| matches!(o, Outcome::NotWorkedOut { .. }));
    let elsewhere = count(|o| {
        matches!(
            o,
            Outcome::Ahead { .. } | Outcome::Diverged { .. } | Outcome::Differs { .. }
        )
    });
    if sent == 0 && trouble == 0 && nwo == 0 && elsewhere == 0 {
        if !say_nothing_sent {
            return Ok((0, results));
        }
        ui.status(format!(
            "nothing to send: every node was already sent what it would be sent ({unchanged} unchanged; `mesh collect` asks them what they hold)"
        ));
    } else {
        ui.status(format!(
            "sent {sent}, unchanged {unchanged}, not worked out {nwo}, unreachable/refused/failed {trouble}{}",
            if elsewhere > 0 {
                format!(", ahead/diverged/differs {elsewhere}")
            } else {
                String::new()
            }
        ));
    }
    if elsewhere > 0 {
        ui.hint("a node is ahead when another controller declared newer commits: fetch them (or `mesh status` says more); diverged: merge; differs: make the two mesh.toml agree; or `mesh push --take-over NODE` declares yours");
    }
    if nwo > 0 {
        ui.hint("`mesh plan` says why a node is not worked out");
    }
    Ok((if trouble + elsewhere > 0 { 3 } else { 0 }, results))
}
