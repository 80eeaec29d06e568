//! The one line a person reads at the end: how many nodes run it, what holds the others.

use super::{Answer, BuildAnswer, ModuleWhere, RevWhere};
use crate::clock::rfc3339;
use mesh_node::artifact::short;
use std::collections::HashSet;

/// `HH:MM` UTC when `ms` is today, else the date too.
pub fn clock_time(ms: u64, now: u64) -> String {
    let full = rfc3339(ms);
    let today = rfc3339(now);
    if full.get(..10) == today.get(..10) {
        full.get(11..16).unwrap_or(&full).to_string()
    } else {
        format!(
            "{} {}",
            full.get(..10).unwrap_or(&full),
            full.get(11..16).unwrap_or("")
        )
    }
}

/// The one line for people.
pub(super) fn summary(
    revs: &[RevWhere],
    modules: &[ModuleWhere],
    everywhere: bool,
    now: u64,
) -> String {
    let what = match revs {
        [r] => short(&r.commit, 8).to_string(),
        _ => "the refs".to_string(),
    };
    if modules.is_empty() {
        return format!("{what} changed no module: there is nothing to deliver");
    }
    let mut parts = Vec::new();
    for m in modules.iter().filter(|m| !m.nodes.is_empty()) {
        let live = m.nodes.iter().filter(|n| n.state.is_live()).count();
        let total = m.nodes.len();
        parts.push(if parts.is_empty() {
            format!("{} on {live}/{total} nodes", m.name)
        } else {
            format!("{} {live}/{total}", m.name)
        });
    }
    if parts.is_empty() {
        let built: Vec<String> = modules
            .iter()
            .map(|m| format!("{} {}", m.name, build_word(m.build.state)))
            .collect();
        return format!(
            "{what} reaches no assigned module ({}): no node runs anything built from it",
            built.join(", ")
        );
    }
    let mut notes: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for (_, n) in modules
        .iter()
        .flat_map(|m| m.nodes.iter().map(move |n| (m, n)))
    {
        if let Some(t) = n.unreachable_ms
            && seen.insert(("unreachable", n.name.clone()))
        {
            notes.push(format!(
                "{} unreachable since {}",
                n.name,
                clock_time(t, now)
            ));
        }
        if n.state == Answer::Failing && seen.insert(("failing", n.name.clone())) {
            notes.push(format!("{} failing", n.name));
        }
    }
    // A library's build is said here; an assigned module's is in its nodes' answers.
    for m in modules.iter().filter(|m| m.nodes.is_empty()) {
        if matches!(
            m.build.state,
            BuildAnswer::Unfit
                | BuildAnswer::Broken
                | BuildAnswer::Blocked
                | BuildAnswer::Superseded
        ) {
            notes.push(format!("{} {}", m.name, build_word(m.build.state)));
        }
    }
    let head = if everywhere {
        format!("{what} runs everywhere it matters: {}", parts.join(", "))
    } else {
        format!("{what}: {}", parts.join(", "))
    };
    if notes.is_empty() {
        head
    } else {
        format!("{head}; {}", notes.join("; "))
    }
}

/// The build answer in a word or two.
pub fn build_word(s: BuildAnswer) -> &'static str {
    match s {
        BuildAnswer::Built => "built",
        BuildAnswer::Unfit => "unfit",
        BuildAnswer::Broken => "broken",
        BuildAnswer::Blocked => "blocked",
        BuildAnswer::NotBuilt => "not built yet",
        BuildAnswer::Superseded => "superseded",
    }
}
