//! `mesh builds`: the build history.

use super::{Ctx, Ui, table};
use mesh::store::{BUILDS, BuildRecord, Paths, id_key};
use mesh::{Error, Result};
use mesh_node::artifact::{SHORT, short};
use serde::Serialize;

/// List build records: id, module, commit, verdict, artifact, duration, inputs.
///
/// `--log ID` prints one build's log (build and test output, capped).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only this module's builds.
    #[arg(value_name = "MODULE")]
    module: Option<String>,
    /// Print the log of build ID.
    #[arg(long, value_name = "ID")]
    log: Option<u64>,
    /// How many of the newest builds to list.
    #[arg(short = 'n', long, default_value_t = 50)]
    limit: usize,
}

/// A build as `mesh builds --json` shows it.
#[derive(Serialize)]
struct BuildJson<'a> {
    id: u64,
    module: &'a str,
    commit: &'a str,
    source: &'a str,
    verdict: mesh::store::Verdict,
    reason: Option<&'a str>,
    artifact: Option<&'a str>,
    inputs: Vec<InputJson<'a>>,
    started: String,
    finished: String,
    duration_ms: u64,
    log: Option<&'a str>,
}

/// One input of a build in `--json`: the module and the artifact it was built against.
#[derive(Serialize)]
struct InputJson<'a> {
    module: &'a str,
    artifact: &'a str,
}

use mesh::clock::rfc3339;

/// Runs `mesh builds` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    if let Some(id) = a.log {
        show_log(ctx.paths(), ui, id)?;
        return Ok(0);
    }
    let builds = newest_builds(ctx, a)?;
    if ui.json {
        show_json(ui, &builds);
    } else {
        show_table(ui, &builds);
    }
    Ok(0)
}

/// `--log ID`: prints build ID's log, or says why there is none (no such build, no log kept,
/// or the log gone since).
fn show_log(paths: &Paths, ui: &Ui, id: u64) -> Result<()> {
    let store = paths.open()?;
    let rec = store.read(|r| r.get(BUILDS, &id_key(id)))?.ok_or_else(|| {
        Error::failed(
            format!("there is no build {id}"),
            "`mesh builds` lists them",
        )
    })?;
    drop(store);
    let Some(log) = &rec.log else {
        return Err(Error::failed(
            format!("build {id} kept no log"),
            "logs are kept for the newest builds of each module",
        ));
    };
    let path = paths.dot_mesh.join(log);
    let text = std::fs::read(&path).map_err(|e| {
        Error::io(
            format!("the log of build {id} ({}) cannot be read", path.display()),
            e,
            "only the newest logs of each module are kept (`logs_keep` in mesh.toml)",
        )
    })?;
    ui.data(String::from_utf8_lossy(&text));
    Ok(())
}

/// The builds to list: the module's (every module's without one), newest first, at most
/// `--limit`. A module with no build at all must be one the mesh has.
fn newest_builds(ctx: &Ctx, a: &Args) -> Result<Vec<BuildRecord>> {
    let store = ctx.paths().open()?;
    let mut builds: Vec<BuildRecord> = store
        .read(|r| r.range(BUILDS, b"", None))?
        .into_iter()
        .map(|(_, b)| b)
        .filter(|b| a.module.as_ref().is_none_or(|m| &b.module == m))
        .collect();
    drop(store);
    if let Some(m) = &a.module
        && builds.is_empty()
    {
        let loaded = mesh::graph::load(&ctx.config, &ctx.paths().state)?;
        if loaded.graph.index(m).is_none() {
            return Err(super::build::unknown_module(&loaded.graph, m));
        }
    }
    builds.reverse();
    builds.truncate(a.limit);
    Ok(builds)
}

/// `--json`: every build as [`BuildJson`].
fn show_json(ui: &Ui, builds: &[BuildRecord]) {
    let out: Vec<BuildJson> = builds
        .iter()
        .map(|b| BuildJson {
            id: b.id,
            module: &b.module,
            commit: &b.commit,
            source: &b.source,
            verdict: b.verdict,
            reason: b.reason.as_deref(),
            artifact: b.artifact.as_deref(),
            inputs: b
                .inputs
                .iter()
                .map(|(m, a)| InputJson {
                    module: m,
                    artifact: a,
                })
                .collect(),
            started: rfc3339(b.started),
            finished: rfc3339(b.finished),
            duration_ms: b.finished.saturating_sub(b.started),
            log: b.log.as_deref(),
        })
        .collect();
    ui.json_data(&out);
}

/// The table: one row per build, digests and commits cut short, a verdict with its reason
/// unless fit.
fn show_table(ui: &Ui, builds: &[BuildRecord]) {
    let mut t = table::new(&[
        "id", "module", "commit", "verdict", "artifact", "duration", "inputs",
    ]);
    for b in builds {
        let verdict = match &b.reason {
            Some(r) if b.verdict != mesh::store::Verdict::Fit => format!("{} ({r})", b.verdict),
            _ => b.verdict.to_string(),
        };
        t.add_row(vec![
            b.id.to_string(),
            b.module.clone(),
            short(&b.commit, 8).to_string(),
            verdict,
            b.artifact
                .as_deref()
                .map(|a| short(a, SHORT))
                .unwrap_or("-")
                .to_string(),
            format!(
                "{:.1}s",
                b.finished.saturating_sub(b.started) as f64 / 1000.0
            ),
            b.inputs
                .iter()
                .map(|(m, a)| format!("{m}@{}", short(a, 8)))
                .collect::<Vec<_>>()
                .join(" "),
        ]);
    }
    ui.data(table::render(&t));
}
