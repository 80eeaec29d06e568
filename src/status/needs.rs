//! What needs a person: the one definition that `mesh reconcile` exits 3 for, that `mesh
//! status --check` exits 3 for, and that the page counts as "need a look", so that the three
//! cannot disagree. Made from the [`Status`] alone (which reads the store and the clones), never
//! from what one pass happened to see.

use super::nodes::{NodeState, Status};
use crate::store::Verdict;
use serde::Serialize;

/// One thing no run will fix by itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Need {
    /// What it is about: a repository, a module or a node.
    pub about: About,
    /// Its name.
    pub name: String,
    /// What is wrong, as one sentence (naming it).
    pub sentence: String,
}

/// What a [`Need`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum About {
    /// A repository followed by URL whose last fetch failed.
    Repository,
    /// A module whose newest build is broken or unfit, or stuck outstanding.
    Module,
    /// A node that is not worked out, diverged, ahead, stuck, rolled back or failed, or that
    /// mesh cannot do its work on (see [`super::nodes::NodeStatus::needs_a_person`]).
    Node,
}

/// Everything in `status` that needs a person, one sentence each: repositories whose fetch
/// failed first, then modules, then nodes (each in name order). Never an unreachable node
/// (a fact about the network; it converges when it comes back), an out-of-date or outstanding
/// one (the next run moves it) or a silent one (`--check` counts that apart).
pub fn needs_a_person(status: &Status) -> Vec<Need> {
    let mut needs: Vec<Need> = status
        .fetch_failed
        .iter()
        .map(|f| Need {
            about: About::Repository,
            name: f.repo.clone(),
            sentence: f.reason.clone(),
        })
        .collect();
    for m in &status.modules {
        if let Some(v @ (Verdict::Broken | Verdict::Unfit)) = m.verdict {
            let why = m.reason.as_deref().filter(|r| !r.is_empty()).map_or_else(
                || format!("`mesh builds {}` says why", m.name),
                str::to_string,
            );
            needs.push(Need {
                about: About::Module,
                name: m.name.clone(),
                sentence: format!("{} is {v}: {why}", m.name),
            });
        }
        if let Some(r) = &m.rollout
            && let Some(h) = &r.halted
        {
            let by = match h.node.as_str() {
                "-" => "a person aborted it".to_string(),
                node => format!("{node} failed it: {}", h.reason),
            };
            needs.push(Need {
                about: About::Module,
                name: m.name.clone(),
                sentence: format!(
                    "the rollout of {} build {} is halted ({by}); its nodes are put back to build {} (`mesh rollout retry {}` starts it again)",
                    m.name, r.to, r.from, m.name
                ),
            });
        }
        if let Some(why) = &m.stuck {
            needs.push(Need {
                about: About::Module,
                name: m.name.clone(),
                sentence: format!(
                    "{} is stuck {why}: `mesh builds {}` and its log say more",
                    m.name, m.name
                ),
            });
        }
    }
    for n in status.nodes.iter().filter(|n| n.needs_a_person) {
        let why = n
            .reason
            .as_deref()
            .or(n.trouble.as_ref().map(|t| t.reason.as_str()))
            .unwrap_or("");
        let sentence = match n.state {
            NodeState::NotWorkedOut => format!(
                "{} is not worked out: {why} (`mesh plan` says more)",
                n.name
            ),
            NodeState::Stuck => format!("{} is stuck: {why}", n.name),
            NodeState::Differs => format!("{} differs: {why}", n.name),
            state => format!("{} is {state}: {why}", n.name),
        };
        needs.push(Need {
            about: About::Node,
            name: n.name.clone(),
            sentence,
        });
    }
    needs
}

impl Status {
    /// Whether any node is not current (or is silent), or anything needs a person
    /// ([`needs_a_person`]: what `reconcile` exits 3 for): what `--check` exits 3 for.
    pub fn needs_a_look(&self) -> bool {
        self.nodes
            .iter()
            .any(|n| n.state != NodeState::Current || n.silent)
            || !needs_a_person(self).is_empty()
    }
}
