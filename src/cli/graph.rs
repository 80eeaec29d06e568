//! `mesh graph`: modules and their three kinds of edges.

use super::{Ctx, Ui};
use crate::graph::{EdgeKind, ModuleGraph, Stats};
use crate::{Error, Result};
use serde::Serialize;
use std::fmt::Write;

/// Show every module and its build, presence and instantiation edges.
///
/// Build edges are derived from the modules' imports; `--why A B` prints the import lines
/// (file:line and the import) that make A's build edge to B.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format (`--json` is the same as `--format json`).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Print the imports that make the build edge from A to B.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    why: Option<Vec<String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Dot,
    Json,
}

#[derive(Serialize)]
struct GraphJson<'a> {
    modules: &'a [crate::graph::GraphModule],
    edges: &'a [crate::graph::Edge],
    warnings: &'a [String],
    stats: &'a Stats,
}

/// Runs `mesh graph` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let loaded = crate::graph::load(&ctx.mesh, &ctx.paths().state)?;
    let g = &loaded.graph;
    let s = &loaded.stats;
    ui.detail(format!(
        "{}; {} parsed, {} from the cache; {} walked",
        super::count(g.modules.len() as u64, "module", "modules"),
        super::count(s.files_parsed, "file", "files"),
        s.files_cached,
        super::count(s.modules_walked, "module", "modules")
    ));
    for n in &loaded.notes {
        ui.detail(n);
    }
    for w in &g.warnings {
        ui.warn(w);
    }
    let code = if let Some(why) = &a.why {
        why_edge(g, ui, &why[0], &why[1])?
    } else {
        let format = if ui.json { Format::Json } else { a.format };
        match format {
            Format::Json => ui.json_data(&GraphJson {
                modules: &g.modules,
                edges: &g.edges,
                warnings: &g.warnings,
                stats: s,
            }),
            Format::Dot => ui.data(dot(g)),
            Format::Text => ui.data(text(g)),
        }
        0
    };
    // The process exits right after this verb: freeing the graph and the records behind it
    // (hundreds of thousands of small strings on a large mesh) would be work for nothing, the
    // operating system takes the memory back at once. Nothing in `Loaded` needs its `Drop`
    // (no file to flush, no lock to release: the store was closed inside `load`).
    std::mem::forget(loaded);
    Ok(code)
}

fn why_edge(g: &ModuleGraph, ui: &Ui, a: &str, b: &str) -> Result<i32> {
    for m in [a, b] {
        if g.index(m).is_none() {
            return Err(Error::failed(
                format!("there is no module `{m}`"),
                "`mesh graph` lists the modules",
            ));
        }
    }
    let Some(edge) = g.build_edge(a, b) else {
        let hint = if g.build_edge(b, a).is_some() {
            format!("the edge goes the other way: `mesh graph --why {b} {a}`")
        } else {
            format!("no file of `{a}` imports a name `{b}` provides")
        };
        return Err(Error::failed(
            format!("`{a}` has no build edge to `{b}`"),
            hint,
        ));
    };
    if ui.json {
        ui.json_data(&edge.evidence);
    } else {
        let mut out = String::new();
        for e in &edge.evidence {
            let _ = writeln!(out, "{}:{}: {}", e.file, e.line, e.import);
        }
        ui.data(out);
    }
    Ok(0)
}

fn text(g: &ModuleGraph) -> String {
    let mut out = String::new();
    for m in &g.modules {
        let at = if m.path.is_empty() {
            m.repo.clone()
        } else {
            format!("{}:{}", m.repo, m.path)
        };
        let kind = match m.kind {
            crate::config::Kind::Service => "service",
            crate::config::Kind::Library => "library",
        };
        let _ = writeln!(
            out,
            "{} ({kind}, {at}, source {})",
            m.name,
            short(&m.source)
        );
        for e in g.edges.iter().filter(|e| e.from == m.name) {
            let (word, extra) = match e.kind {
                EdgeKind::Build => (
                    "build",
                    format!(
                        "  ({})",
                        super::count(e.evidence.len() as u64, "import", "imports")
                    ),
                ),
                EdgeKind::Presence => ("presence", String::new()),
                EdgeKind::Instantiation => ("instantiation", String::new()),
            };
            let _ = writeln!(out, "  {word:<13} → {}{extra}", e.to);
        }
    }
    out
}

fn dot(g: &ModuleGraph) -> String {
    let mut out = String::from("digraph mesh {\n  rankdir=LR;\n");
    for m in &g.modules {
        let shape = match m.kind {
            crate::config::Kind::Library => "box",
            crate::config::Kind::Service => "ellipse",
        };
        let _ = writeln!(out, "  \"{}\" [shape={shape}];", m.name);
    }
    for e in &g.edges {
        let style = match e.kind {
            EdgeKind::Build => "solid",
            EdgeKind::Presence => "dashed",
            EdgeKind::Instantiation => "dotted",
        };
        let _ = writeln!(
            out,
            "  \"{}\" -> \"{}\" [style={style}, label=\"{}\"];",
            e.from,
            e.to,
            format!("{:?}", e.kind).to_lowercase()
        );
    }
    out.push_str("}\n");
    out
}

/// The first 12 characters of a digest or id, for tables.
pub fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}
