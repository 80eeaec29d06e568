//! What a build run considers: the targets (the named modules and their inputs, or every
//! module), and with `--dry-run` what would be built among them and why.

use super::summary::{BuildOptions, BuildSummary};
use crate::graph::stale::{self, Known, ModuleInput, ModuleState};
use crate::graph::{Loaded, ModuleGraph};
use crate::{Error, Result};
use std::collections::BTreeSet;

/// Everything that does not change during the run.
pub(super) struct Plan<'a> {
    /// The sources and their graph.
    pub loaded: &'a Loaded,
    /// How many facts the events log keeps.
    pub events_keep: u64,
    /// What each module's build is judged by, in graph order.
    pub inputs: Vec<ModuleInput<'a>>,
    /// The modules this run may build.
    pub targets: BTreeSet<usize>,
}

impl<'a> Plan<'a> {
    /// The plan for `opts` over `loaded`; an unknown module name is refused here, before
    /// anything is read or written.
    pub fn new(loaded: &'a Loaded, opts: &BuildOptions) -> Result<Plan<'a>> {
        let inputs = stale::module_inputs(loaded);
        let targets = targets(loaded, &opts.names)?;
        Ok(Plan {
            loaded,
            events_keep: opts.events_keep,
            inputs,
            targets,
        })
    }

    /// `--dry-run`: the targets that would be built, in graph order, with why — a module that
    /// waits is built only if an input's artifact moves.
    pub fn would_build(&self, known: &Known) -> BuildSummary {
        let g = &self.loaded.graph;
        let states = stale::assess(g, &self.inputs, known);
        let mut summary = BuildSummary::default();
        for &m in &g.order {
            if !self.targets.contains(&m) {
                continue;
            }
            let why = match &states[m] {
                ModuleState::Stale(r) => r.to_string(),
                ModuleState::Waits(on) => format!("if {} moves", names(g, on)),
                _ => continue,
            };
            summary.would_build.push((g.modules[m].name.clone(), why));
        }
        summary
    }
}

/// The modules `idx` names, joined with commas.
fn names(g: &ModuleGraph, idx: &[usize]) -> String {
    idx.iter()
        .map(|&i| g.modules[i].name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The modules to consider: the named ones and all their build inputs, or every module.
fn targets(loaded: &Loaded, names: &[String]) -> Result<BTreeSet<usize>> {
    let g = &loaded.graph;
    if names.is_empty() {
        return Ok((0..g.modules.len()).collect());
    }
    let mut out = BTreeSet::new();
    let mut stack = Vec::new();
    for n in names {
        let i = g.index(n).ok_or_else(|| {
            Error::failed(
                format!("there is no module `{n}`"),
                format!(
                    "`mesh graph` lists the modules{}",
                    crate::config::known_list("modules", g.modules.iter().map(|m| m.name.as_str()))
                ),
            )
        })?;
        stack.push(i);
    }
    while let Some(i) = stack.pop() {
        if out.insert(i) {
            stack.extend(g.inputs[i].iter().copied());
            // A cycle is built as one unit.
            stack.extend(g.unit[i].iter().copied());
        }
    }
    Ok(out)
}
