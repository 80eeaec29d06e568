//! Git ancestry for `mesh where`: which of a set of commits contain a given commit (have it as
//! an ancestor, or are it), answered in one walk for all of them.
//!
//! The walk goes from each commit asked about towards its parents and stops at commits whose
//! generation number (from the repository's commit-graph, which git keeps up to date in `gc`)
//! is not above the given commit's: those cannot contain it. What one commit's walk learned is
//! kept for the next, so no commit is read twice whatever the number of nodes and builds; a
//! repository without a commit-graph is walked at most once to its roots.

use crate::source::SourceError;
use gix::ObjectId;
use gix::revwalk::graph::Commit;
use std::collections::{HashMap, HashSet};

/// What the walk learned about one commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// Whether the commit asked about is it or one of its ancestors.
    pub contains: bool,
    /// Its committer time, Unix seconds.
    pub time: i64,
}

/// A commit's mark during the walk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Mark {
    /// Not looked at yet.
    #[default]
    New,
    /// Its parents are being looked at.
    Open,
    /// It contains the commit.
    Yes,
    /// It does not.
    No,
}

/// For each of `commits` that `repo` holds: whether `rev` is it or one of its ancestors, and its
/// commit time. Commits the repository does not hold (a build from a branch deleted and
/// collected since, a shallow clone) are left out of the answer.
pub(crate) fn containing(
    repo: &gix::Repository,
    repo_name: &str,
    rev: ObjectId,
    commits: impl IntoIterator<Item = ObjectId>,
) -> Result<HashMap<ObjectId, Found>, SourceError> {
    let err = |what: &str, e: &dyn std::fmt::Display| SourceError::git(repo_name, what, e);
    // A commit-graph that cannot be read only makes the walk slower.
    let cache = repo.commit_graph_if_enabled().ok().flatten();
    let mut graph = repo.revision_graph::<Commit<Mark>>(cache.as_ref());
    let floor = match graph
        .get_or_insert_commit(rev, |_| {})
        .map_err(|e| err("cannot read a commit", &e))?
    {
        Some(c) => {
            c.data = Mark::Yes;
            c.generation
        }
        None => None,
    };
    let mut out = HashMap::new();
    for start in commits {
        let mut stack = vec![start];
        while let Some(id) = stack.last().copied() {
            let Some(c) = graph
                .get_or_insert_commit(id, |_| {})
                .map_err(|e| err("cannot read a commit", &e))?
            else {
                // Not held here: it contains nothing we can see.
                stack.pop();
                continue;
            };
            match c.data {
                Mark::Yes | Mark::No => {
                    stack.pop();
                }
                Mark::New => {
                    if let (Some(g), Some(floor)) = (c.generation, floor)
                        && g <= floor
                    {
                        c.data = Mark::No;
                        stack.pop();
                        continue;
                    }
                    c.data = Mark::Open;
                    let parents = c.parents.clone();
                    stack.extend(parents);
                }
                Mark::Open => {
                    // Every parent is decided (or not held) now.
                    let parents = c.parents.clone();
                    let yes = parents.iter().any(|p| {
                        graph
                            .get(p)
                            .is_some_and(|p: &Commit<Mark>| p.data == Mark::Yes)
                    });
                    if let Some(c) = graph.get_mut(&id) {
                        c.data = if yes { Mark::Yes } else { Mark::No };
                    }
                    stack.pop();
                }
            }
        }
        if let Some(c) = graph.get(&start) {
            out.insert(
                start,
                Found {
                    contains: c.data == Mark::Yes,
                    time: c.commit_time,
                },
            );
        }
    }
    Ok(out)
}

/// Which of `candidates` are `rev` or one of its ancestors: one walk from `rev` towards its
/// parents, which stops when every candidate is found, and (with a commit-graph) does not go
/// below the lowest candidate's generation.
pub(crate) fn ancestors_among(
    repo: &gix::Repository,
    repo_name: &str,
    rev: ObjectId,
    candidates: &HashSet<ObjectId>,
) -> Result<HashSet<ObjectId>, SourceError> {
    let err = |what: &str, e: &dyn std::fmt::Display| SourceError::git(repo_name, what, e);
    let mut found = HashSet::new();
    if candidates.is_empty() {
        return Ok(found);
    }
    let cache = repo.commit_graph_if_enabled().ok().flatten();
    let mut graph = repo.revision_graph::<Commit<Mark>>(cache.as_ref());
    let mut floor: Option<u32> = Some(u32::MAX);
    for c in candidates {
        let g = graph
            .get_or_insert_commit(*c, |_| {})
            .map_err(|e| err("cannot read a commit", &e))?
            .and_then(|c| c.generation);
        floor = match (floor, g) {
            (Some(f), Some(g)) => Some(f.min(g)),
            _ => None,
        };
    }
    let mut todo = vec![rev];
    let mut seen = HashSet::new();
    while let Some(id) = todo.pop() {
        if !seen.insert(id) {
            continue;
        }
        if candidates.contains(&id) {
            found.insert(id);
            if found.len() == candidates.len() {
                break;
            }
        }
        let Some(c) = graph
            .get_or_insert_commit(id, |_| {})
            .map_err(|e| err("cannot read a commit", &e))?
        else {
            continue;
        };
        if let (Some(g), Some(floor)) = (c.generation, floor)
            && g <= floor
        {
            continue;
        }
        todo.extend(c.parents.iter().copied());
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.org")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.org")
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    fn id(s: &str) -> ObjectId {
        ObjectId::from_hex(s.as_bytes()).expect("hex")
    }

    /// main: a - b - c - m(merge of side) - d ; side: b - s1 - s2 ; other: a - o
    fn history(dir: &Path) -> HashMap<&'static str, ObjectId> {
        git(dir, &["init", "-q", "-b", "main"]);
        let mut ids = HashMap::new();
        let head = || id(&git(dir, &["rev-parse", "HEAD"]));
        let commit = |name: &str| git(dir, &["commit", "-q", "--allow-empty", "-m", name]);
        for name in ["a", "b"] {
            commit(name);
            ids.insert(name, head());
        }
        git(dir, &["checkout", "-q", "-b", "side"]);
        for name in ["s1", "s2"] {
            commit(name);
            ids.insert(name, head());
        }
        git(dir, &["checkout", "-q", "main"]);
        commit("c");
        ids.insert("c", head());
        git(dir, &["merge", "-q", "--no-ff", "-m", "m", "side"]);
        ids.insert("m", head());
        commit("d");
        ids.insert("d", head());
        let a = ids["a"].to_string();
        git(dir, &["checkout", "-q", "-b", "other", &a]);
        commit("o");
        ids.insert("o", head());
        ids
    }

    fn check(dir: &Path, ids: &HashMap<&'static str, ObjectId>) {
        let repo = gix::open(dir).expect("open");
        let all: Vec<ObjectId> = ["a", "b", "c", "s1", "s2", "m", "d", "o"]
            .iter()
            .map(|n| ids[n])
            .collect();
        let expect = |rev: &str, yes: &[&str]| {
            let found = containing(&repo, "t", ids[rev], all.clone()).expect("walk");
            for n in ["a", "b", "c", "s1", "s2", "m", "d", "o"] {
                assert_eq!(
                    found[&ids[n]].contains,
                    yes.contains(&n),
                    "does {n} contain {rev}?"
                );
            }
        };
        expect("s1", &["s1", "s2", "m", "d"]);
        expect("c", &["c", "m", "d"]);
        expect("b", &["b", "c", "s1", "s2", "m", "d"]);
        expect("d", &["d"]);
        expect("o", &["o"]);
        expect("a", &["a", "b", "c", "s1", "s2", "m", "d", "o"]);
        let older = |rev: &str, yes: &[&str]| {
            let set: HashSet<ObjectId> = all.iter().copied().collect();
            let found = ancestors_among(&repo, "t", ids[rev], &set).expect("walk");
            let mut names: Vec<&str> = ["a", "b", "c", "s1", "s2", "m", "d", "o"]
                .into_iter()
                .filter(|n| found.contains(&ids[n]))
                .collect();
            names.sort();
            let mut yes = yes.to_vec();
            yes.sort();
            assert_eq!(names, yes, "ancestors of {rev}");
        };
        older("m", &["a", "b", "c", "s1", "s2", "m"]);
        older("s2", &["a", "b", "s1", "s2"]);
        older("o", &["a", "o"]);
        older("a", &["a"]);
    }

    #[test]
    fn merges_branches_and_roots_with_and_without_a_commit_graph() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ids = history(tmp.path());
        check(tmp.path(), &ids);
        git(tmp.path(), &["commit-graph", "write", "--reachable"]);
        assert!(tmp.path().join(".git/objects/info/commit-graph").exists());
        check(tmp.path(), &ids);
    }
}
