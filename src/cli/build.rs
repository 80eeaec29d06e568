//! `mesh build`: build exactly what is stale, in dependency order.

use super::{Ctx, Ui, progress::BuildProgress};
use mesh::builder::{BuildOptions, BuildSummary, Verdict};
use mesh::{Error, Result};

/// Build what is stale, in dependency order, independent modules in parallel.
///
/// With `--behind` (or no names): every stale module. With names: those modules and whatever of
/// their build inputs is stale. A module that waited on an input is re-judged once the input
/// finished: if the input's artifact did not move, it is not rebuilt (early cutoff).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Modules to build (with whatever of their inputs is stale).
    #[arg(value_name = "MODULE")]
    modules: Vec<String>,
    /// Build exactly the stale set (the default when no module is named).
    #[arg(long, conflicts_with = "modules")]
    behind: bool,
    /// How many builds run at once (default: the number of CPUs).
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
    /// Print what would be built, build nothing.
    #[arg(long)]
    dry_run: bool,
}

/// Runs `mesh build` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let _lock = if a.dry_run {
        None
    } else {
        Some(ctx.lock("build")?)
    };
    let loaded = mesh::graph::load(&ctx.config, &ctx.paths().state)?;
    for w in &loaded.graph.warnings {
        ui.warn(w);
    }
    let opts = BuildOptions {
        names: a.modules.clone(),
        jobs: jobs(a)?,
        dry_run: a.dry_run,
        logs_keep: ctx.config.settings.logs_keep,
        events_keep: ctx.config.settings.events_keep,
        remote: mesh::remote::for_run(&ctx.config, &ctx.paths().dot_mesh),
    };
    let progress = BuildProgress::new(ui);
    let summary = mesh::builder::build(ctx.paths(), &loaded, &opts, &progress)?;
    progress.clear();
    if a.dry_run {
        show_would_build(ui, &summary);
        return Ok(0);
    }
    if ui.json {
        ui.json_data(&summary);
    }
    super::run_hooks(ctx, ui, &summary.events);
    for w in &summary.warnings {
        ui.warn(w);
    }
    show_remote(ui, &summary);
    show_failures(ui, &summary);
    show_totals(ui, &summary);
    // A broken or unfit build needs a person, as for reconcile (exit 3).
    let needs_a_person = summary
        .built
        .iter()
        .any(|b| matches!(b.verdict, Verdict::Broken | Verdict::Unfit));
    Ok(if needs_a_person { 3 } else { 0 })
}

/// How many builds run at once: `-j`, else the number of CPUs. `-j 0` is a usage error.
fn jobs(a: &Args) -> Result<usize> {
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if jobs == 0 {
        return Err(Error::Usage {
            message: "-j 0 would build nothing".into(),
            hint: "pass -j 1 or more".into(),
        });
    }
    Ok(jobs)
}

/// `--dry-run`: what would be built and why, as rows (`--json`) or lines.
fn show_would_build(ui: &Ui, summary: &BuildSummary) {
    if ui.json {
        let rows: Vec<serde_json::Value> = summary
            .would_build
            .iter()
            .map(|(m, why)| serde_json::json!({"module": m, "reason": why}))
            .collect();
        ui.json_data(&rows);
    } else if summary.would_build.is_empty() {
        ui.status("nothing to build: every module is current");
    } else {
        let mut out = String::new();
        for (m, why) in &summary.would_build {
            out.push_str(&format!("would build {m} ({why})\n"));
        }
        ui.data(out);
    }
}

/// What needs a person: each broken or unfit build with the tail of its log and where the
/// whole log is, and each blocked module with what blocks it.
fn show_failures(ui: &Ui, summary: &BuildSummary) {
    for b in summary
        .built
        .iter()
        .filter(|b| matches!(b.verdict, Verdict::Broken | Verdict::Unfit))
    {
        ui.status(format!(
            "\n{} is {}: {} failed ({})\n{}",
            b.module,
            b.verdict,
            b.step.unwrap_or("build"),
            b.reason.as_deref().unwrap_or(""),
            b.tail
                .iter()
                .map(|l| format!("  | {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        ));
        ui.hint(format!("the whole log: `mesh builds --log {}`", b.id));
    }
    for (m, by) in &summary.blocked {
        ui.status(format!("{m} is blocked by {by}"));
    }
}

/// With `[remote]`: how many builds the cache gave and where the others ran; with `-v`, each
/// build's hit or miss and why.
fn show_remote(ui: &Ui, summary: &BuildSummary) {
    let used: Vec<(&str, &mesh::builder::RemoteUse)> = summary
        .built
        .iter()
        .filter_map(|b| Some((b.module.as_str(), b.remote.as_ref()?)))
        .collect();
    if used.is_empty() {
        return;
    }
    if ui.verbose > 0 {
        for (module, u) in &used {
            ui.status(format!("{module}: {}", u.describe()));
        }
    }
    let count = |ran: &str| used.iter().filter(|(_, u)| u.ran == ran).count();
    let uploaded = used.iter().filter(|(_, u)| u.uploaded).count();
    let not_run = match count("none") {
        0 => String::new(),
        n => format!(", {n} not run (the engine could not run them)"),
    };
    ui.status(format!(
        "remote: {} taken from the cache, {} built on the engine, {} built here, {uploaded} uploaded{not_run}",
        count("cache"),
        count("remote"),
        count("local")
    ));
}

/// The closing lines: the modules early cutoff spared, and how many builds ran, by verdict.
fn show_totals(ui: &Ui, summary: &BuildSummary) {
    if !summary.spared.is_empty() {
        ui.status(format!(
            "spared by early cutoff (inputs rebuilt to the same artifact): {}",
            summary.spared.join(", ")
        ));
    }
    let count = |v: Verdict| summary.built.iter().filter(|b| b.verdict == v).count();
    if summary.built.is_empty() {
        ui.status("nothing to build: every module is current");
    } else {
        ui.status(format!(
            "built {}: {} fit, {} unfit, {} broken, {} outstanding",
            summary.built.len(),
            count(Verdict::Fit),
            count(Verdict::Unfit),
            count(Verdict::Broken),
            count(Verdict::Outstanding)
        ));
    }
}

/// "there is no module `X`", naming the modules there are.
pub fn unknown_module(g: &mesh::graph::ModuleGraph, name: &str) -> mesh::Error {
    mesh::Error::failed(
        format!("there is no module `{name}`"),
        format!(
            "`mesh graph` lists the modules{}",
            mesh::config::known_list("modules", g.modules.iter().map(|m| m.name.as_str()))
        ),
    )
}
