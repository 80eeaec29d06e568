//! `mesh graph`: modules, their edges of every kind, and the cycles built as one unit.

use super::{Ctx, Ui};
use mesh::graph::answer::{self, Answer};
use mesh::graph::{EdgeKind, ModuleGraph, Stats, cache};
use mesh::{Error, Result};
use mesh_node::artifact::{SHORT, short};
use serde::Serialize;
use std::fmt::Write;
use std::io::IsTerminal;

/// Show every module, its edges, and the cycles of build edges.
///
/// Edges from imports are `build` (code the artifact is built from), `dev` (tests, benches,
/// examples) or `optional` (a guarded import); `presence` and `instantiation` edges are
/// declared. `--why A B` prints the import lines (file:line, kind, the import) that make
/// A's edge to B. `--check` exits 3 when there is a cycle or an ambiguous name, so CI can
/// forbid them.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format (`--json` is the same as `--format json`).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Print the imports that make the edge from A to B.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    why: Option<Vec<String>>,
    /// Show only edges of this kind.
    #[arg(long, value_enum)]
    kind: Option<KindFilter>,
    /// Exit 3 when the build edges form a cycle or an import name is ambiguous.
    #[arg(long)]
    check: bool,
}

/// The edge kinds `--kind` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum KindFilter {
    Build,
    Dev,
    Optional,
    Presence,
    Instantiation,
}

impl KindFilter {
    fn kind(self) -> EdgeKind {
        match self {
            KindFilter::Build => EdgeKind::Build,
            KindFilter::Dev => EdgeKind::Dev,
            KindFilter::Optional => EdgeKind::Optional,
            KindFilter::Presence => EdgeKind::Presence,
            KindFilter::Instantiation => EdgeKind::Instantiation,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Dot,
    Json,
}

#[derive(Serialize)]
struct GraphJson<'a> {
    modules: &'a [mesh::graph::GraphModule],
    edges: &'a [mesh::graph::Edge],
    cycles: &'a [mesh::graph::Cycle],
    warnings: &'a [String],
    stats: &'a Stats,
}

impl<'a> GraphJson<'a> {
    /// What `--json` prints of a load.
    fn of(loaded: &'a mesh::graph::Loaded) -> Self {
        let g = &loaded.graph;
        GraphJson {
            modules: &g.modules,
            edges: &g.edges,
            cycles: &g.cycles,
            warnings: &g.warnings,
            stats: &loaded.stats,
        }
    }
}

/// Runs `mesh graph` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let state = &ctx.paths().state;
    let format = if ui.json { Format::Json } else { a.format };
    // The whole graph as JSON for a program (not a terminal, which gets it indented) is an
    // answer worth keeping: on trees that did not move it is printed again as it was.
    let keepable = a.why.is_none()
        && a.kind.is_none()
        && format == Format::Json
        && !std::io::stdout().is_terminal();
    let question = if a.check {
        "graph --json --check"
    } else {
        "graph --json"
    };
    let key = if keepable {
        answer::current_key(&ctx.config)
    } else {
        None
    };
    if let Some(kept) = key.and_then(|k| answer::read(state, question, &k)) {
        replay(ui, &kept);
        return Ok(kept.code);
    }
    let mut loaded = mesh::graph::load_with_evidence(&ctx.config, state)?;
    if let Some(k) = a.kind {
        loaded.graph.edges.retain(|e| e.kind == k.kind());
    }
    // A program's whole graph is rendered while the load's store write commits; nothing is
    // said or printed before the store holds it.
    let rendered = keepable
        .then(|| serde_json::to_string(&GraphJson::of(&loaded)).ok())
        .flatten();
    loaded.settle()?;
    let g = &loaded.graph;
    let mut said = said_of(&loaded);
    say(ui, &said);
    let code = if let Some(why) = &a.why {
        why_edge(g, ui, &why[0], &why[1])?
    } else {
        let json = GraphJson::of(&loaded);
        match format {
            Format::Json if keepable => match rendered {
                Some(mut out) => {
                    out.push('\n');
                    ui.data(&out);
                    said.stdout = out;
                }
                None => ui.json_data(&json),
            },
            Format::Json => ui.json_data(&json),
            Format::Dot => ui.data(dot(g)),
            Format::Text => {
                let made = mesh::secrets::provided::read_states(ctx.paths())?;
                ui.data(text(g, &made))
            }
        }
        0
    };
    let code = if a.check && code == 0 && (!g.cycles.is_empty() || !g.warnings.is_empty()) {
        3
    } else {
        code
    };
    if key.is_some() && loaded.from_cache && !said.stdout.is_empty() {
        // Keyed by the trees this load read (a ref that moved since `key` was read is the
        // next run's question).
        said.key = cache::key(&ctx.config, &loaded.snapshot);
        said.code = code;
        answer::keep(state, question, &said);
    }
    // The process exits right after this verb: freeing the graph and the records behind it
    // (hundreds of thousands of small strings on a large mesh) would be work for nothing, the
    // operating system takes the memory back at once. Nothing in `Loaded` needs its `Drop`
    // (no file to flush, no lock to release: the store was closed inside `load`).
    std::mem::forget(loaded);
    Ok(code)
}

/// What a load says before its answer: its details (`-v`), warnings and cycle notes.
fn said_of(loaded: &mesh::graph::Loaded) -> Answer {
    let (g, s) = (&loaded.graph, &loaded.stats);
    let mut said = Answer {
        key: [0; 32],
        details: Vec::new(),
        warnings: g.warnings.clone(),
        notes: g.cycles.iter().map(cycle_note).collect(),
        stdout: String::new(),
        code: 0,
    };
    said.details.push(format!(
        "{}; {} parsed, {} from the cache; {} walked",
        super::count(g.modules.len() as u64, "module", "modules"),
        super::count(s.files_parsed, "file", "files"),
        s.files_cached,
        super::count(s.modules_walked, "module", "modules")
    ));
    said.details.extend(loaded.notes.iter().cloned());
    said
}

/// What a run says on stderr before its answer: details (`-v`), warnings, notes.
fn say(ui: &Ui, a: &Answer) {
    for d in &a.details {
        ui.detail(d);
    }
    for w in &a.warnings {
        ui.warn(w);
    }
    for n in &a.notes {
        ui.note(n);
    }
}

/// A kept answer, said and printed again as it was.
fn replay(ui: &Ui, a: &Answer) {
    say(ui, a);
    ui.data(&a.stdout);
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
    let Some(edge) = g.import_edge(a, b) else {
        let hint = if g.import_edge(b, a).is_some() {
            format!("the edge goes the other way: `mesh graph --why {b} {a}`")
        } else {
            format!("no file of `{a}` imports a name `{b}` provides")
        };
        return Err(Error::failed(format!("`{a}` has no edge to `{b}`"), hint));
    };
    if ui.json {
        ui.json_data(&edge.evidence);
    } else {
        let mut out = format!("{} edge {a} → {b}\n", edge.kind);
        for e in &edge.evidence {
            let _ = writeln!(out, "{}:{}: [{}] {}", e.file, e.line, e.kind, e.import);
        }
        ui.data(out);
    }
    Ok(0)
}

/// A cycle as a note: its members, built as one unit, and one import per edge.
fn cycle_note(c: &mesh::graph::Cycle) -> String {
    let mut out = format!(
        "{} import each other: built as one unit ({})",
        c.modules.join(", "),
        "`mesh graph --check` fails on it, for CI that forbids cycles"
    );
    for e in &c.edges {
        let _ = write!(
            out,
            "\n  {} → {}   {}:{}: {}",
            e.from, e.to, e.file, e.line, e.import
        );
    }
    out
}

/// The graph as text: each module, then its edges; an instantiation edge whose provider makes
/// credentials says whether they are made, waiting or failed.
fn text(g: &ModuleGraph, made: &[mesh::secrets::provided::EdgeState]) -> String {
    let mut out = String::new();
    for m in &g.modules {
        let at = if m.path.is_empty() {
            m.repo.clone()
        } else {
            format!("{}:{}", m.repo, m.path)
        };
        let kind = match m.kind {
            mesh::config::Kind::Service => "service",
            mesh::config::Kind::Library => "library",
        };
        let _ = writeln!(
            out,
            "{} ({kind}, {at}, source {})",
            m.name,
            short(&m.source, SHORT)
        );
        for e in g.edges.iter().filter(|e| e.from == m.name) {
            let performed = made.iter().find(|s| {
                s.consumer == e.from && s.provider == e.to && e.kind == EdgeKind::Instantiation
            });
            let extra = match (e.evidence.len(), performed) {
                (_, Some(s)) => format!("  (as {}: credentials {})", s.alias, s.state),
                (0, None) => String::new(),
                (n, None) => format!("  ({})", super::count(n as u64, "import", "imports")),
            };
            let _ = writeln!(out, "  {:<13} → {}{extra}", e.kind.as_str(), e.to);
        }
    }
    out
}

fn dot(g: &ModuleGraph) -> String {
    let mut out = String::from("digraph mesh {\n  rankdir=LR;\n");
    for m in &g.modules {
        let shape = match m.kind {
            mesh::config::Kind::Library => "box",
            mesh::config::Kind::Service => "ellipse",
        };
        let _ = writeln!(out, "  \"{}\" [shape={shape}];", m.name);
    }
    for e in &g.edges {
        let style = match e.kind {
            EdgeKind::Build => "style=solid",
            EdgeKind::Dev => "style=dashed, color=gray50",
            EdgeKind::Optional => "style=dashed, color=steelblue",
            EdgeKind::Presence => "style=dotted",
            EdgeKind::Instantiation => "style=dotted, color=darkgreen",
        };
        let _ = writeln!(
            out,
            "  \"{}\" -> \"{}\" [{style}, label=\"{}\"];",
            e.from,
            e.to,
            e.kind.as_str()
        );
    }
    out.push_str("}\n");
    out
}
