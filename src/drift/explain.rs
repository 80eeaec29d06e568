//! `mesh drift --explain MODULE DEP`: every piece of evidence for and against a finding — where
//! the dependency is declared, which files import it and of what kind, which tool or rule
//! counts it used — gathered by the same comparison that makes the findings, so what it says
//! is what decided.

use super::{DriftKind, Finding};
use crate::Result;
use crate::graph::Loaded;
use serde::Serialize;
use std::cell::RefCell;

/// The dependency a run looks at closely, and what it saw of it.
pub(super) struct Probe {
    /// The dependency, normalized (see [`normalized`]).
    dependency: String,
    seen: RefCell<Vec<String>>,
}

impl Probe {
    /// Whether `name` (as a manifest writes it, or an import's key) is the dependency looked at.
    pub(super) fn names(&self, name: &str) -> bool {
        normalized(name) == self.dependency
    }

    /// Notes one piece of evidence.
    pub(super) fn say(&self, line: String) {
        let mut seen = self.seen.borrow_mut();
        if !seen.contains(&line) {
            seen.push(line);
        }
    }
}

/// A name as ecosystems compare them: lowercase, `-`, `_` and `.` alike.
fn normalized(name: &str) -> String {
    name.to_lowercase().replace(['_', '.'], "-")
}

/// What `mesh drift --explain` says of one dependency of one module.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    /// The module.
    pub module: String,
    /// The dependency asked about.
    pub dependency: String,
    /// The findings about it (none: the manifest and the imports agree, or a rule says why not).
    pub findings: Vec<Finding>,
    /// Every piece of evidence, in the order the comparison met it.
    pub evidence: Vec<String>,
    /// Why the module's imports were not checked (a `setup.py` that computes its
    /// requirements), when nothing of it was found about the dependency: its verdict is then
    /// that, not agreement.
    pub unchecked: Option<String>,
}

impl Explanation {
    /// The verdict in a line: the findings' kinds, or that there is none.
    pub fn verdict(&self) -> String {
        if let (true, Some(why)) = (self.findings.is_empty(), &self.unchecked) {
            return format!("not checked: {why}");
        }
        if self.findings.is_empty() {
            return format!("no finding: `{}` agrees with the imports", self.dependency);
        }
        self.findings
            .iter()
            .map(|f| {
                let what = match f.kind {
                    DriftKind::Unused => "declared and never used",
                    DriftKind::Undeclared => "imported and declared nowhere a clean build looks",
                    DriftKind::DevOnly => "declared for shipping and used only by dev code (tests, examples, notebooks)",
                    DriftKind::ShippedDev => {
                        "declared for development and imported by shipped code"
                    }
                };
                match &f.doubt {
                    Some(doubt) => format!("{} (unsure: {doubt}): {what}", f.kind.as_str()),
                    None => format!("{}: {what}", f.kind.as_str()),
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The evidence for and against any finding about `dependency` in `module`.
pub fn explain(loaded: &Loaded, module: &str, dependency: &str) -> Result<Explanation> {
    let probe = Probe {
        dependency: normalized(dependency),
        seen: RefCell::new(Vec::new()),
    };
    let (found, unchecked) = super::run(loaded, &[module.to_string()], Some(&probe))?;
    let findings: Vec<Finding> = (found.into_iter())
        .filter(|f| probe.names(&f.dependency))
        .collect();
    let mut evidence = probe.seen.into_inner();
    // A dependency of another language, checked, has evidence of its own.
    let unchecked = (unchecked.into_iter())
        .find(|u| u.module == module && evidence.is_empty() && findings.is_empty())
        .map(|u| u.why);
    if evidence.is_empty() && unchecked.is_none() {
        evidence.push(format!(
            "no manifest of `{module}` declares `{dependency}` and no file of it imports it"
        ));
    }
    Ok(Explanation {
        module: module.to_string(),
        dependency: dependency.to_string(),
        findings,
        evidence,
        unchecked,
    })
}
