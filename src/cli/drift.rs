//! `mesh drift`: each module's manifests beside its imports, in every ecosystem at once.

use super::{Ctx, Ui};
use mesh::drift::{DriftKind, Finding, Unchecked, cache};
use mesh::store::Store;
use mesh::{Error, Result};
use serde::Serialize;
use std::fmt::Write;

/// Show each module's unused, undeclared and test-only dependencies, manifest beside imports.
///
/// For every module with a Cargo.toml, package.json, go.mod or pyproject.toml, each finding
/// names the dependency as that manifest writes it, its kind — `unused` (declared, never
/// imported), `undeclared` (imported, declared nowhere a clean build would find it: a phantom
/// that builds on a laptop and breaks on a clean machine), `dev-only` (declared for shipping,
/// imported only by tests, benches and examples), `shipped-dev` (declared for development,
/// imported by shipped JS code that is not bundled) — the manifest's line, and the import that
/// shows it. Standard libraries never count. A finding the module holds evidence against that
/// mesh cannot weigh (its name written in a config or a string, an import only examples and
/// scripts make, an import named like a local file) is *unsure*: counted, listed by
/// `--unsure` with that evidence, never failing `--check`. `[drift] ignore = ["name"]` in a
/// module's mesh-module.toml silences a dependency. `--check` exits 3 when a finding is sure.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only these modules (default: every module).
    #[arg(value_name = "MODULE")]
    modules: Vec<String>,
    /// Exit 3 when a sure finding is there, for CI.
    #[arg(long)]
    check: bool,
    /// List the unsure findings too, each with the evidence that makes it unsure.
    #[arg(long)]
    unsure: bool,
    /// Every piece of evidence for and against a finding about DEP in MODULE: where it is
    /// declared, which files import it and what kind of code they are, which tool or rule
    /// counts it used.
    #[arg(long, num_args = 2, value_names = ["MODULE", "DEP"], conflicts_with_all = ["modules", "check"])]
    explain: Option<Vec<String>>,
}

#[derive(Serialize)]
struct DriftJson<'a> {
    /// The sure findings.
    drift: &'a [Finding],
    /// The unsure ones, each with its `doubt`.
    unsure: &'a [Finding],
    /// The modules whose imports were not checked, each with why: absence of a finding
    /// there is no agreement.
    unchecked: &'a [Unchecked],
}

/// Runs `mesh drift` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    if let Some([module, dep]) = a.explain.as_deref() {
        return explain(ctx, ui, module, dep);
    }
    let all = findings(ctx, ui)?;
    if let Some(name) = a.modules.iter().find(|n| !all.modules.contains(n)) {
        return Err(Error::failed(
            format!("there is no module `{name}`"),
            "`mesh graph` lists the modules",
        ));
    }
    let asked = |m: &String| a.modules.is_empty() || a.modules.contains(m);
    let unchecked: Vec<Unchecked> = (all.unchecked.into_iter())
        .filter(|u| asked(&u.module))
        .collect();
    let (unsure, found): (Vec<Finding>, Vec<Finding>) = all
        .findings
        .into_iter()
        .filter(|f| asked(&f.module))
        .partition(|f| f.doubt.is_some());
    if ui.json {
        ui.json_data(&DriftJson {
            drift: &found,
            unsure: &unsure,
            unchecked: &unchecked,
        });
    } else {
        let mut out = table(&found);
        if a.unsure && !unsure.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str("unsure\n");
            out.push_str(&table(&unsure));
        }
        if !out.is_empty() {
            ui.data(out);
        }
    }
    for u in &unchecked {
        ui.note(format!("{} not checked: {}", u.module, u.why));
    }
    if found.is_empty() && unchecked.is_empty() {
        ui.note("no drift: every manifest matches its imports, as far as mesh can be sure");
    } else if found.is_empty() {
        ui.note("no drift in what mesh checked, as far as it can be sure");
    } else {
        let count = |k: DriftKind| found.iter().filter(|f| f.kind == k).count() as u64;
        ui.note(format!(
            "{}, {}, {}",
            super::count(
                count(DriftKind::Unused),
                "unused dependency",
                "unused dependencies"
            ),
            super::count(
                count(DriftKind::Undeclared),
                "undeclared import",
                "undeclared imports"
            ),
            super::count(
                count(DriftKind::DevOnly),
                "dependency used only by tests",
                "dependencies used only by tests"
            ),
        ));
        let shipped_dev = count(DriftKind::ShippedDev);
        if shipped_dev > 0 {
            ui.note(super::count(
                shipped_dev,
                "dev dependency imported by shipped code (declare it for shipping, or bundle it)",
                "dev dependencies imported by shipped code (declare them for shipping, or bundle them)",
            ));
        }
        ui.hint("remove what is unused, declare what is imported, move test-only dependencies to the dev section; `[drift] ignore` in mesh-module.toml silences one");
    }
    if !unsure.is_empty() {
        let listed = match a.unsure || ui.json {
            true => "listed above with the evidence that makes each unsure",
            false => "`--unsure` lists them with the evidence that makes each unsure",
        };
        ui.note(format!(
            "{} more {} mesh cannot be sure of: {listed}",
            unsure.len(),
            match unsure.len() {
                1 => "finding",
                _ => "findings",
            }
        ));
    }
    Ok(if a.check && !found.is_empty() { 3 } else { 0 })
}

/// Every module's findings: the answer kept for refs that did not move (the refs read alone,
/// as a warm `mesh graph --json` reads them; never for a repository followed by URL, which a
/// load fetches first), else computed from a full load and kept.
fn findings(ctx: &Ctx, ui: &Ui) -> Result<cache::Answer> {
    let state = &ctx.paths().state;
    // None for a repository followed by URL: its ref is known only after the load's fetch.
    let key = mesh::graph::answer::current_key(&ctx.config);
    if let Some(answer) = key.and_then(|k| Store::peek(state, |r| cache::read(r, &k)).flatten()) {
        ui.detail("drift: the answer kept for these refs");
        return Ok(answer);
    }
    let loaded = mesh::graph::load_with_records(&ctx.config, state)?;
    let (findings, unchecked) = mesh::drift::drift(&loaded, &[])?;
    let answer = cache::Answer {
        key: mesh::graph::cache::key(&ctx.config, &loaded.snapshot),
        modules: loaded.snapshot.module_names().into_iter().collect(),
        findings,
        unchecked,
        installs: cache::installs(&loaded),
    };
    // Kept for the next run; a store that cannot take it costs that run only. Not when a
    // file was not read for its blob's absence: fetching it changes no ref of the key.
    let unread = (loaded.records.iter())
        .flat_map(|r| r.manifests.notes.iter())
        .find(|n| n.ends_with(mesh::graph::NOT_IN_REPOSITORY));
    if let Some(note) = unread {
        ui.detail(format!("drift answer not kept: {note}"));
    } else if let Err(e) = Store::open(state).and_then(|s| s.write(|w| cache::write(w, &answer))) {
        ui.detail(format!("drift answer not kept: {e}"));
    }
    // The process exits right after this verb (see `mesh graph`): nothing to free.
    std::mem::forget(loaded);
    Ok(answer)
}

/// `--explain MODULE DEP`: computed afresh (never the kept answer), the evidence one line
/// each, then the verdict.
fn explain(ctx: &Ctx, ui: &Ui, module: &str, dep: &str) -> Result<i32> {
    let loaded = mesh::graph::load_with_records(&ctx.config, &ctx.paths().state)?;
    if !loaded.snapshot.modules.iter().any(|m| m.name() == module) {
        return Err(super::build::unknown_module(&loaded.graph, module));
    }
    let e = mesh::drift::explain::explain(&loaded, module, dep)?;
    if ui.json {
        ui.json_data(&e);
    } else {
        let mut out = format!("{module}: {dep}\n");
        for line in &e.evidence {
            let _ = writeln!(out, "  {line}");
        }
        let _ = writeln!(out, "{}", e.verdict());
        ui.data(out);
    }
    std::mem::forget(loaded);
    Ok(0)
}

/// Findings grouped by module: a heading per module, one line per finding.
fn table(found: &[Finding]) -> String {
    let mut out = String::new();
    let mut module = None;
    for f in found {
        if module != Some(&f.module) {
            if module.is_some() {
                out.push('\n');
            }
            let _ = writeln!(out, "{}", f.module);
            module = Some(&f.module);
        }
        let at = match f.line {
            Some(l) => format!("{}:{l}", f.manifest),
            None => f.manifest.clone(),
        };
        let evidence = f
            .evidence
            .as_deref()
            .map_or(String::new(), |e| format!("  ({e})"));
        let _ = writeln!(
            out,
            "  {:<10} {:<28} {at}{evidence}",
            f.kind.as_str(),
            f.dependency
        );
        if let Some(doubt) = &f.doubt {
            let _ = writeln!(out, "    unsure: {doubt}");
        }
    }
    out
}
