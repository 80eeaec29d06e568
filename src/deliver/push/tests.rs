//! The sequence a push sends with.

use super::*;

fn held(digest: &str, sequence: u64) -> Option<Held> {
    Some(Held {
        digest: digest.into(),
        sequence,
    })
}

fn have(declaration: Option<Held>, applied: Option<Held>) -> Have {
    Have {
        protocol: mesh_proto::PROTOCOL,
        version: "test".into(),
        artifacts: Vec::new(),
        declaration,
        applied,
        node_id: None,
        age: None,
        secrets: Vec::new(),
        declared_by: None,
        declared_for: None,
        modules: Vec::new(),
    }
}

fn sent(digest: &str, sequence: u64) -> Sent {
    Sent {
        digest: digest.into(),
        sequence,
        at: 0,
    }
}

#[test]
fn a_first_send_is_one_and_the_same_digest_keeps_its_number() {
    assert_eq!(next_sequence("a", None, &have(None, None)), 1);
    let s = sent("a", 4);
    assert_eq!(next_sequence("a", Some(&s), &have(held("a", 4), None)), 4);
}

#[test]
fn a_different_digest_rises_by_one() {
    let s = sent("a", 4);
    assert_eq!(next_sequence("b", Some(&s), &have(held("a", 4), None)), 5);
}

#[test]
fn never_below_what_the_node_holds_or_applied() {
    // A store restored from a backup: the node is ahead of what this store sent.
    let s = sent("a", 2);
    assert_eq!(next_sequence("b", Some(&s), &have(held("c", 9), None)), 10);
    assert_eq!(next_sequence("b", Some(&s), &have(None, held("c", 12))), 13);
    // The node already holds this very digest under a higher number: it keeps it.
    assert_eq!(next_sequence("b", Some(&s), &have(held("b", 7), None)), 7);
    assert_eq!(
        next_sequence("b", None, &have(held("c", 3), held("b", 8))),
        8
    );
}

#[test]
fn the_bound_is_reached_not_wrapped() {
    let s = sent("a", u64::MAX);
    assert_eq!(next_sequence("b", Some(&s), &have(None, None)), u64::MAX);
}
