//! What the facts log adds to the node records: since when a node runs a build, and whether
//! it refused a declaration.

use super::{Answer, ModuleWhere};
use crate::Result;
use crate::clock::rfc3339;
use crate::events::{EVENTS, Fact};
use crate::store::{BuildRecord, META, NodeRecord, Store, id_key};
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
    let mut applied: HashMap<(String, String, u64), Option<u64>> = HashMap::new();
    let mut refused: HashMap<String, Option<(u64, String)>> = HashMap::new();
    let mut oldest = u64::MAX;
    for m in modules.iter() {
        for n in &m.nodes {
            let Some(b) = n.build else { continue };
            match n.state {
                Answer::Running => {
                    applied.insert((n.name.clone(), m.name.clone(), b), None);
                }
                Answer::Declared => {
                    refused.insert(n.name.clone(), None);
                }
                _ => continue,
            }
            let finished = by_module
                .get(m.name.as_str())
                .and_then(|bs| bs.iter().find(|x| x.id == b))
                .map_or(0, |x| x.finished);
            oldest = oldest.min(finished);
        }
    }
    if applied.is_empty() && refused.is_empty() {
        return Ok(());
    }
    store.read(|r| {
        // Small chunks first: what is running was usually applied moments ago.
        let mut chunk_len: u64 = 256;
        let mut hi = r.get(META, b"next_event")?.unwrap_or(1);
        let mut left = applied.len() + refused.len();
        'back: while hi > 1 && left > 0 {
            let lo = hi.saturating_sub(chunk_len).max(1);
            chunk_len = (chunk_len * 2).min(8192);
            let chunk = r.range(EVENTS, &id_key(lo), Some(&id_key(hi)))?;
            if chunk.is_empty() {
                break;
            }
            for (_, e) in chunk.iter().rev() {
                if e.at < oldest {
                    break 'back;
                }
                if !(e.fact.contains("\"applied\"") || e.fact.contains("\"refused\"")) {
                    continue;
                }
                match serde_json::from_str::<Fact>(&e.fact) {
                    Ok(Fact::Applied {
                        node,
                        module,
                        build,
                    }) => {
                        if let Some(slot) = applied.get_mut(&(node, module, build))
                            && slot.is_none()
                        {
                            *slot = Some(e.at);
                            left -= 1;
                        }
                    }
                    Ok(Fact::Refused {
                        node,
                        resource,
                        reason,
                    }) if resource == "declaration" => {
                        if let Some(slot) = refused.get_mut(&node)
                            && slot.is_none()
                        {
                            *slot = Some((e.at, reason));
                            left -= 1;
                        }
                    }
                    _ => {}
                }
            }
            hi = lo;
        }
        Ok(())
    })?;
    for m in modules.iter_mut() {
        for n in &mut m.nodes {
            match n.state {
                Answer::Running => {
                    let Some(b) = n.build else { continue };
                    let at = applied
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
                    if let Some(Some((at, reason))) = refused.get(&n.name) {
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
    Ok(())
}
