//! Whose node this is: which node name a root belongs to (its id), the key it says, and
//! whether another controller's declaration there stands or ours may replace it.

use super::{Context, Event, Msg, Outcome};
use crate::deliver::elsewhere;
use crate::deliver::trouble::TroubleKind;
use crate::store::Relation;
use mesh_node::Have;
use mesh_node::artifact::{SHORT, short};
use std::collections::BTreeMap;
use std::sync::mpsc;

/// A node that keeps another controller's declaration: what to say, and whether to ask it to
/// apply that declaration (held, never applied).
pub(super) struct Left {
    pub(super) outcome: Outcome,
    pub(super) apply: bool,
}

/// Whether our declaration may replace what the node runs ([`elsewhere::decide`]): whom it
/// is taken over from, if anyone; what is left when the node keeps another controller's.
pub(super) fn may_declare(
    ctx: &Context,
    node: &str,
    have: &Have,
    declaration: &crate::declare::Declaration,
    digest: &str,
    commits: &BTreeMap<String, String>,
    tx: &mpsc::Sender<Msg>,
) -> std::result::Result<Option<String>, Left> {
    let plan = mesh_proto::wire::Plan::of(declaration);
    let ours = elsewhere::Ours {
        me: &ctx.signer,
        digest,
        plan: &plan,
        commits,
        modules: &declaration.modules,
        rolling: &ctx.rolling,
        trusted: &ctx.trusted,
    };
    match elsewhere::decide(&ctx.histories, &ours, have, ctx.take_over.contains(node)) {
        elsewhere::Decision::Declare {
            took_over_from,
            found,
        } => {
            if let Some(found) = found {
                let _ = tx.send(Msg::Record(Event::Elsewhere {
                    node: node.to_string(),
                    found,
                }));
            }
            Ok(took_over_from)
        }
        elsewhere::Decision::Leave(found) => Err(Left {
            outcome: leave(node, found, tx),
            apply: false,
        }),
        elsewhere::Decision::Finish(found) => Err(Left {
            outcome: leave(node, found, tx),
            apply: true,
        }),
    }
}

/// Records the age key `node`'s root said, and claims the node id it answered with for `node`; the refusal when another name
/// of this mesh already reaches that root (two names for one root would overwrite each
/// other's declaration on every run). An id no name holds yet (a new root, or `ROOT/id` made
/// anew) is claimed only when the declaration in force there was not made for another node
/// name of this mesh: an alias never takes a root over because its id was remade.
pub(super) fn claim(
    ctx: &Context,
    node: &str,
    have: &Have,
    tx: &mpsc::Sender<Msg>,
) -> Option<Outcome> {
    if let Some(key) = &have.age {
        // Pinned at first sight; another is offered, and gets no secret until accepted.
        let _ = tx.send(Msg::Record(Event::AgeKey {
            node: node.to_string(),
            key: key.clone(),
            id: have.node_id.clone(),
        }));
    }
    let id = have.node_id.as_ref()?;
    let other = {
        let mut claims = ctx.claims.lock().ok()?;
        match claims.get(id) {
            Some(other) if other != node => Some((other.clone(), false)),
            Some(_) => None,
            None => match &have.declared_for {
                // Made for another name of this mesh: that name's root, whatever its id.
                Some(f) if f.mesh == ctx.mesh && f.node != node && ctx.names.contains(&f.node) => {
                    Some((f.node.clone(), true))
                }
                _ => {
                    claims.insert(id.clone(), node.to_string());
                    None
                }
            },
        }
    };
    let Some((other, by_declaration)) = other else {
        let _ = tx.send(Msg::Record(Event::NodeId {
            node: node.to_string(),
            id: id.clone(),
        }));
        return None;
    };
    let reason = if by_declaration {
        let root = ctx.roots.get(node).map_or("ROOT", String::as_str);
        format!(
            "{node} reaches the same node root as {other} (node id {}, made anew; the declaration in force there is {other}'s): two names for one root overwrite each other's declaration; remove one of them from mesh.toml, or give it its own root (if this root is now {node}'s alone, remove `{root}/declaration.json` on the node and push again)",
            short(id, SHORT)
        )
    } else {
        format!(
            "{node} reaches the same node root as {other} (node id {}): two names for one root overwrite each other's declaration; remove one of them from mesh.toml, or give it its own root",
            short(id, SHORT)
        )
    };
    let _ = tx.send(Msg::Record(Event::Trouble {
        node: node.to_string(),
        kind: TroubleKind::SameRoot,
        reason: reason.clone(),
    }));
    Some(Outcome::Failed { reason })
}

/// The node runs another controller's declaration and keeps it: recorded, and said.
fn leave(node: &str, found: crate::store::DeclaredElsewhere, tx: &mpsc::Sender<Msg>) -> Outcome {
    let controller = found.controller.clone();
    let outcome = match found.relation {
        Relation::Ahead => Outcome::Ahead {
            controller,
            reason: found.reason.clone(),
        },
        Relation::Diverged => Outcome::Diverged {
            controller,
            reason: found.reason.clone(),
        },
        Relation::Differs => Outcome::Differs {
            controller,
            reason: found.reason.clone(),
        },
        _ => Outcome::Kept {
            controller,
            asked_to_apply: None,
        },
    };
    let _ = tx.send(Msg::Record(Event::Elsewhere {
        node: node.to_string(),
        found,
    }));
    outcome
}
