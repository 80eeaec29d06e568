//! Git history decides between two controllers: per repository, is the commit a node runs
//! older than ours, newer, the same, or on another branch of history?

use std::collections::BTreeMap;

/// How our commits stand to the ones a node runs (from another controller).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// Every shared repository is at the same commit: the node keeps what it runs.
    Same,
    /// Ours descend from the node's (at least one strictly): we may declare.
    Newer,
    /// The node's descend from ours (or are commits we do not have): we are behind.
    Behind,
    /// Neither descends from the other (or nothing can be compared): a person decides.
    Diverged,
}

/// The comparison, with the repository and commits that decided it (for the sentence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compared {
    /// The relation.
    pub relation: Relation,
    /// The repository that decided it (`mesh` for the mesh directory's own), if any.
    pub repo: Option<String>,
    /// The node's commit there.
    pub theirs: Option<String>,
    /// Whether the node's commit is one this repository does not have.
    pub unknown: bool,
}

/// One repository's history, as a controller can read it.
pub trait History {
    /// Whether `commit` is in the repository.
    fn has(&self, commit: &str) -> bool;
    /// Whether `ancestor` is `descendant` or one of its ancestors.
    fn descends(&self, descendant: &str, ancestor: &str) -> bool;
}

impl History for gix::Repository {
    fn has(&self, commit: &str) -> bool {
        gix::ObjectId::from_hex(commit.as_bytes())
            .ok()
            .and_then(|id| self.find_commit(id).ok())
            .is_some()
    }

    fn descends(&self, descendant: &str, ancestor: &str) -> bool {
        let (Ok(d), Ok(a)) = (
            gix::ObjectId::from_hex(descendant.as_bytes()),
            gix::ObjectId::from_hex(ancestor.as_bytes()),
        ) else {
            return false;
        };
        if d == a {
            return true;
        }
        let Ok(walk) = self.rev_walk([d]).all() else {
            return false;
        };
        walk.filter_map(Result::ok).any(|info| info.id == a)
    }
}

/// Compares per repository `ours` with `theirs` (name → commit), each side's mesh directory
/// commit under the name `mesh`. Repositories only one side names are not compared; when
/// none is shared the declarations have nothing in common: diverged.
pub fn compare(
    histories: &dyn Fn(&str) -> Option<Box<dyn History>>,
    ours: &BTreeMap<String, String>,
    theirs: &BTreeMap<String, String>,
) -> Compared {
    let mut newer = None;
    let mut behind = None;
    let mut shared = false;
    for (repo, their) in theirs {
        let Some(our) = ours.get(repo) else { continue };
        shared = true;
        if our == their {
            continue;
        }
        let at = |unknown| (repo.clone(), their.clone(), unknown);
        let Some(h) = histories(repo) else {
            return diverged(Some(at(false)));
        };
        if !h.has(their) {
            behind.get_or_insert(at(true));
        } else if h.descends(our, their) {
            newer.get_or_insert(at(false));
        } else if h.descends(their, our) {
            behind.get_or_insert(at(false));
        } else {
            return diverged(Some(at(false)));
        }
    }
    let decided = |relation, (repo, theirs, unknown): (String, String, bool)| Compared {
        relation,
        repo: Some(repo),
        theirs: Some(theirs),
        unknown,
    };
    match (shared, newer, behind) {
        (false, _, _) => diverged(None),
        (_, Some(n), Some(_)) => Compared {
            relation: Relation::Diverged,
            ..decided(Relation::Diverged, n)
        },
        (_, None, Some(b)) => decided(Relation::Behind, b),
        (_, Some(n), None) => decided(Relation::Newer, n),
        (_, None, None) => Compared {
            relation: Relation::Same,
            repo: None,
            theirs: None,
            unknown: false,
        },
    }
}

fn diverged(at: Option<(String, String, bool)>) -> Compared {
    let (repo, theirs, unknown) = match at {
        Some((r, t, u)) => (Some(r), Some(t), u),
        None => (None, None, false),
    };
    Compared {
        relation: Relation::Diverged,
        repo,
        theirs,
        unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A history given as child → parent edges: a → b means b is a's parent.
    struct Edges(Vec<(&'static str, &'static str)>);

    impl History for Edges {
        fn has(&self, c: &str) -> bool {
            self.0.iter().any(|(a, b)| *a == c || *b == c)
        }
        fn descends(&self, d: &str, a: &str) -> bool {
            d == a || self.0.iter().any(|(c, p)| *c == d && self.descends(p, a))
        }
    }

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    fn relation(ours: &[(&str, &str)], theirs: &[(&str, &str)]) -> Compared {
        // c1 ← c2 ← c3, and c2 ← x3 (a branch).
        let h = |_: &str| -> Option<Box<dyn History>> {
            Some(Box::new(Edges(vec![
                ("c2", "c1"),
                ("c3", "c2"),
                ("x3", "c2"),
            ])))
        };
        compare(&h, &map(ours), &map(theirs))
    }

    #[test]
    fn each_relation() {
        assert_eq!(
            relation(&[("src", "c2")], &[("src", "c2")]).relation,
            Relation::Same
        );
        assert_eq!(
            relation(&[("src", "c3")], &[("src", "c2")]).relation,
            Relation::Newer
        );
        let b = relation(&[("src", "c2")], &[("src", "c3")]);
        assert_eq!(
            (b.relation, b.theirs.as_deref()),
            (Relation::Behind, Some("c3"))
        );
        assert_eq!(
            relation(&[("src", "c3")], &[("src", "x3")]).relation,
            Relation::Diverged
        );
        let unknown = relation(&[("src", "c3")], &[("src", "zz")]);
        assert_eq!(
            (unknown.relation, unknown.unknown),
            (Relation::Behind, true)
        );
    }

    #[test]
    fn repositories_combine() {
        // Newer in one, behind in another: neither history contains the other.
        let r = relation(&[("a", "c3"), ("b", "c1")], &[("a", "c2"), ("b", "c2")]);
        assert_eq!(r.relation, Relation::Diverged);
        // Only a repository one side names: not compared.
        let r = relation(&[("a", "c3"), ("b", "c1")], &[("a", "c2")]);
        assert_eq!(r.relation, Relation::Newer);
        // Nothing shared at all.
        assert_eq!(
            relation(&[("a", "c3")], &[("b", "c3")]).relation,
            Relation::Diverged
        );
    }
}
