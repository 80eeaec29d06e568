//! What the facts log adds to the node records: since when a node runs a build, and whether
//! it refused a declaration.

use super::{Answer, ModuleWhere};
use crate::Result;
use crate::clock::rfc3339;
use crate::events::{EVENTS, Event, Fact};
use crate::store::{BuildRecord, META, NodeRecord, Reader, Store, StoreError, id_key};
use std::collections::HashMap;

/// Reads back the facts log for what the node records do not keep: when each running node
/// began running its build (its `applied` fact; else the last clean apply it reported), and
/// whether a node that was not sent the declaration carrying the change refused it (its
/// `refused` fact about the declaration: then it is failing, not waiting). Facts are appended in
/// time order, so the log is read newest first, in chunks, only back to the oldest build
/// concerned: nothing about a build happened before it was built.
pub(super) fn read_facts(
    store: &Store,
    records: &HashMap<String, NodeRecord>,
    modules: &mut [ModuleWhere],
    by_module: &HashMap<&str, Vec<&BuildRecord>>,
) -> Result<()> {
    let mut sought = Sought::for_lines(modules, by_module);
    if sought.applied.is_empty() && sought.refused.is_empty() {
        return Ok(());
    }
    store.read(|r| sought.read_back(r))?;
    sought.fill_in(modules, records);
    Ok(())
}

/// What the log is read back for, and what it said.
struct Sought {
    /// (node, module, build) of each running line → when the node reported applying it.
    applied: HashMap<(String, String, u64), Option<u64>>,
    /// The node of each declared line → when it refused the declaration, and why.
    refused: HashMap<String, Option<(u64, String)>>,
    /// When the oldest build concerned finished: the log is read back no further.
    oldest: u64,
}

impl Sought {
    /// What to look for about the lines of `modules`: the running ones' `applied` facts and
    /// the declared ones' refusals.
    fn for_lines(modules: &[ModuleWhere], by_module: &HashMap<&str, Vec<&BuildRecord>>) -> Sought {
        let mut sought = Sought {
            applied: HashMap::new(),
            refused: HashMap::new(),
            oldest: u64::MAX,
        };
        for m in modules {
            for n in &m.nodes {
                let Some(b) = n.build else { continue };
                match n.state {
                    Answer::Running => {
                        sought
                            .applied
                            .insert((n.name.clone(), m.name.clone(), b), None);
                    }
                    Answer::Declared => {
                        sought.refused.insert(n.name.clone(), None);
                    }
                    _ => continue,
                }
                let finished = by_module
                    .get(m.name.as_str())
                    .and_then(|bs| bs.iter().find(|x| x.id == b))
                    .map_or(0, |x| x.finished);
                sought.oldest = sought.oldest.min(finished);
            }
        }
        sought
    }

    /// Reads the log newest first, in growing chunks, until everything sought is found or the
    /// oldest build concerned is passed.
    fn read_back(&mut self, r: &Reader) -> std::result::Result<(), StoreError> {
        // Small chunks first: what is running was usually applied moments ago.
        let mut chunk_len: u64 = 256;
        let mut hi = r.get(META, b"next_event")?.unwrap_or(1);
        let mut left = self.applied.len() + self.refused.len();
        'back: while hi > 1 && left > 0 {
            let lo = hi.saturating_sub(chunk_len).max(1);
            chunk_len = (chunk_len * 2).min(8192);
            let chunk = r.range(EVENTS, &id_key(lo), Some(&id_key(hi)))?;
            if chunk.is_empty() {
                break;
            }
            for (_, e) in chunk.iter().rev() {
                if e.at < self.oldest {
                    break 'back;
                }
                if self.note(e) {
                    left -= 1;
                }
            }
            hi = lo;
        }
        Ok(())
    }

    /// Takes what event `e` says, when it is the newest `applied` or `refused` fact sought;
    /// whether it was.
    fn note(&mut self, e: &Event) -> bool {
        if !(e.fact.contains("\"applied\"") || e.fact.contains("\"refused\"")) {
            return false;
        }
        match serde_json::from_str::<Fact>(&e.fact) {
            Ok(Fact::Applied {
                node,
                module,
                build,
            }) => {
                if let Some(slot) = self.applied.get_mut(&(node, module, build))
                    && slot.is_none()
                {
                    *slot = Some(e.at);
                    return true;
                }
            }
            Ok(Fact::Refused {
                node,
                resource,
                reason,
            }) if resource == "declaration" => {
                if let Some(slot) = self.refused.get_mut(&node)
                    && slot.is_none()
                {
                    *slot = Some((e.at, reason));
                    return true;
                }
            }
            _ => {}
        }
        false
    }

    /// Puts what was found on the lines: since when each running node runs its build (else
    /// its last clean apply), and each declared node that refused the declaration as failing.
    fn fill_in(&self, modules: &mut [ModuleWhere], records: &HashMap<String, NodeRecord>) {
        for m in modules.iter_mut() {
            for n in &mut m.nodes {
                match n.state {
                    Answer::Running => {
                        let Some(b) = n.build else { continue };
                        let at = self
                            .applied
                            .get(&(n.name.clone(), m.name.clone(), b))
                            .copied()
                            .flatten()
                            .or_else(|| {
                                records
                                    .get(&n.name)
                                    .and_then(|r| r.applied.as_ref())
                                    .map(|a| a.at)
                            });
                        n.since_ms = at;
                        n.since = at.map(rfc3339);
                    }
                    Answer::Declared => {
                        if let Some(Some((at, reason))) = self.refused.get(&n.name) {
                            n.state = Answer::Failing;
                            n.reason = Some(format!("the node refused the declaration: {reason}"));
                            n.since_ms = Some(*at);
                            n.since = Some(rfc3339(*at));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}
