//! Repositories followed by URL (`[[repo]] url`): mesh keeps a bare clone of each under
//! `.mesh/repos/<name>.git` and, before reading it, fetches the configured ref into a
//! remote-tracking ref of that clone — at most once per process, never under `--offline`. So
//! cron needs no checkout and no `git pull`.
//!
//! A fetch that fails never takes away what was known: the clone is only ever added to (a
//! first clone is made beside it and renamed into place), and the commit of the last good fetch
//! is read, with the failure said and counted.

use super::ReadError;
use crate::config::{MeshConfig, RepoConfig};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

/// `--offline`: read what the clones hold, fetch nothing.
static OFFLINE: AtomicBool = AtomicBool::new(false);
/// Each clone's fetch in this process, by clone path: done once, remembered (with its error).
static FETCHED: Mutex<BTreeMap<PathBuf, Fetch>> = Mutex::new(BTreeMap::new());
/// Fetch failures read past in this process and not yet said, by repository name.
static UNSAID: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
/// Never set: a fetch runs to its end (or its transport's failure), like a git read.
static NO_INTERRUPT: AtomicBool = AtomicBool::new(false);

/// The file in a clone that holds the time its last good fetch ended.
const LAST_FETCH: &str = "mesh-last-fetch";

/// The file in a clone that says why its last fetch failed, while the next has not succeeded:
/// what a verb that does not fetch (and `status --check`, and the page) reads.
const FETCH_FAILED: &str = "mesh-fetch-failed";

/// One fetch's outcome, kept for the rest of the process.
#[derive(Clone)]
enum Fetch {
    /// Fetched (or offline): the clone holds what there is.
    Done,
    /// The fetch failed; the clone holds an earlier fetch.
    Failed(String),
}

/// Makes every later read in this process use the clones as they are (`--offline`).
pub fn set_offline(offline: bool) {
    OFFLINE.store(offline, Ordering::Relaxed);
}

/// The fetch failures this process read past and nobody has said yet, one sentence each
/// (`fetch of src from … failed: …; reading 1a2b3c4 from the last fetch, 2h ago`). Taking them
/// is promising to say them.
pub fn take_unsaid() -> Vec<String> {
    let mut unsaid = UNSAID.lock().unwrap_or_else(|e| e.into_inner());
    std::mem::take(&mut *unsaid).into_values().collect()
}

/// Remembers a failure read past, to be said once.
pub(super) fn note_unsaid(repo: &str, sentence: &str) {
    let mut unsaid = UNSAID.lock().unwrap_or_else(|e| e.into_inner());
    unsaid.insert(repo.to_string(), sentence.to_string());
}

/// The ref fetched from the remote for a `ref` setting: the remote's `HEAD` when unset, a
/// short name as a branch (`main` → `refs/heads/main`), a full name as written.
pub fn remote_ref(reference: Option<&str>) -> String {
    match reference {
        None | Some("HEAD") => "HEAD".to_string(),
        Some(r) if r.starts_with("refs/") => r.to_string(),
        Some(r) => format!("refs/heads/{r}"),
    }
}

/// The remote-tracking ref of the clone that a `ref` setting is fetched into and read from:
/// `refs/remotes/origin/` and the remote ref without its `refs/heads/` (or `refs/`).
pub fn tracking_ref(reference: Option<&str>) -> String {
    let remote = remote_ref(reference);
    let tail = remote
        .strip_prefix("refs/heads/")
        .or_else(|| remote.strip_prefix("refs/"))
        .unwrap_or(&remote);
    format!("refs/remotes/origin/{tail}")
}

/// A followed repository made ready to read: the ref to read in its clone, and the fetch
/// failure read past, if any.
pub(super) struct Ready {
    /// The remote-tracking ref to read.
    pub tracking: String,
    /// Why this run's fetch failed (the clone holds an earlier one).
    pub failed: Option<String>,
}

/// Makes the clone of a followed repository hold its ref: clones it on first use, fetches once
/// per process unless offline. A repository with no clone that cannot be cloned is an error;
/// one with a clone whose fetch fails is read as last fetched.
pub(super) fn ready(mesh: &MeshConfig, cfg: &RepoConfig, url: &str) -> Result<Ready, ReadError> {
    let tracking = tracking_ref(cfg.reference.as_deref());
    let spec = format!("+{}:{tracking}", remote_ref(cfg.reference.as_deref()));
    if gix::refspec::parse(spec.as_str().into(), gix::refspec::parse::Operation::Fetch).is_err() {
        return Err(mesh
            .repo_error(
                cfg,
                true,
                format!(
                    "ref `{}` of repository `{}` is not a ref name",
                    cfg.reference.as_deref().unwrap_or("HEAD"),
                    cfg.name
                ),
                "write a branch (\"main\"), a full ref (\"refs/tags/v1\"), or leave `ref` out for the remote's HEAD".into(),
            )
            .into());
    }
    let clone = &cfg.path;
    let exists = clone.join("HEAD").is_file();
    if OFFLINE.load(Ordering::Relaxed) {
        if !exists {
            return Err(first_fetch_error(
                mesh,
                cfg,
                url,
                "--offline was given and there is no clone yet",
                "run once without --offline, so mesh clones it",
            ));
        }
        return Ok(Ready {
            tracking,
            failed: None,
        });
    }
    match fetch_once(clone, url, &spec, exists) {
        Ok(Fetch::Done) => Ok(Ready {
            tracking,
            failed: None,
        }),
        Ok(Fetch::Failed(e)) => Ok(Ready {
            tracking,
            failed: Some(e),
        }),
        Err(FetchError::NoRef(r)) => Err(mesh
            .repo_error(
                cfg,
                true,
                format!(
                    "repository `{}` cannot be cloned from {url}: the remote has no ref `{r}`",
                    cfg.name
                ),
                format!(
                    "set `ref` to a branch or tag the remote has (`git ls-remote {url}` lists them), or leave it out for the remote's HEAD"
                ),
            )
            .into()),
        Err(FetchError::Other(e)) => Err(first_fetch_error(
            mesh,
            cfg,
            url,
            &e,
            "check the URL, that this machine reaches it (`git ls-remote URL` tries the same) \
             and, for ssh, that its key is loaded (`ssh-add -l`)",
        )),
    }
}

/// Fetches into the clone (or makes it) the first time this process asks, and answers what
/// that fetch did every time. A clone that exists is never an error: its failed fetch is
/// remembered as [`Fetch::Failed`]. A first clone that fails is not remembered, and is an error.
fn fetch_once(clone: &Path, url: &str, spec: &str, exists: bool) -> Result<Fetch, FetchError> {
    let mut fetched = FETCHED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(done) = fetched.get(clone) {
        return Ok(done.clone());
    }
    let done = if exists {
        let done = match fetch(clone, url, spec) {
            Ok(()) => Fetch::Done,
            Err(e) => Fetch::Failed(e.to_string()),
        };
        remember_failure(clone, &done);
        done
    } else {
        first_clone(clone, url, spec)?;
        Fetch::Done
    };
    fetched.insert(clone.to_path_buf(), done.clone());
    Ok(done)
}

/// The error for a repository that has no clone and could not get one.
fn first_fetch_error(
    mesh: &MeshConfig,
    cfg: &RepoConfig,
    url: &str,
    why: &str,
    what_to_check: &str,
) -> ReadError {
    mesh.repo_error(
        cfg,
        false,
        format!(
            "repository `{}` cannot be cloned from {url}: {why}",
            cfg.name
        ),
        format!("{what_to_check}; the clone goes to {}", cfg.path.display()),
    )
    .into()
}

/// Clones into a directory beside `clone` and renames it into place, so a failed or
/// interrupted first clone leaves no half-made repository where mesh reads.
fn first_clone(clone: &Path, url: &str, spec: &str) -> Result<(), FetchError> {
    let parent = clone
        .parent()
        .ok_or_else(|| FetchError::Other(format!("{} has no parent directory", clone.display())))?;
    std::fs::create_dir_all(parent)
        .map_err(|e| FetchError::Other(format!("cannot create {}: {e}", parent.display())))?;
    let name = clone
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let partial = parent.join(format!(".{name}.partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&partial);
    let made = gix::init_bare(&partial)
        .map_err(|e| FetchError::Other(format!("cannot make a bare repository: {e}")))
        .and_then(|_| fetch(&partial, url, spec));
    if let Err(e) = made {
        let _ = std::fs::remove_dir_all(&partial);
        return Err(e);
    }
    if let Err(e) = std::fs::rename(&partial, clone) {
        let _ = std::fs::remove_dir_all(&partial);
        // Another mesh made it first: that clone is as good as ours.
        if !clone.join("HEAD").is_file() {
            return Err(FetchError::Other(format!(
                "cannot move the clone to {}: {e}",
                clone.display()
            )));
        }
    }
    Ok(())
}

/// Why a fetch did not happen.
enum FetchError {
    /// The remote does not have the ref asked for.
    NoRef(String),
    /// Anything else: the URL, the network, authentication, the clone.
    Other(String),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::NoRef(r) => write!(f, "the remote has no ref `{r}`"),
            FetchError::Other(e) => f.write_str(e),
        }
    }
}

/// Fetches `spec` from `url` into the bare repository at `path` (tags are not fetched), and
/// marks the time of a good fetch.
fn fetch(path: &Path, url: &str, spec: &str) -> Result<(), FetchError> {
    use gix::remote::Direction;
    let other = |e: &dyn std::fmt::Display| FetchError::Other(one_line(&e.to_string()));
    // Unlike a read, a fetch honours the user's git configuration and environment, as `git
    // fetch` would: `GIT_SSH_COMMAND`, `core.sshCommand`, `url.<base>.insteadOf`.
    let repo = gix::open_opts(path, gix::open::Options::default())
        .map_err(|e| other(&format!("cannot open the clone {}: {e}", path.display())))?;
    let remote = repo
        .remote_at(url)
        .and_then(|r| r.with_refspecs([spec], Direction::Fetch))
        .map_err(|e| other(&e))?
        .with_fetch_tags(gix::remote::fetch::Tags::None);
    let prepared = remote
        .connect(Direction::Fetch)
        .and_then(|c| c.prepare_fetch(gix::progress::Discard, Default::default()))
        .map_err(|e| other(&e))?;
    if prepared.ref_map().mappings.is_empty() {
        let wanted = spec
            .trim_start_matches('+')
            .split(':')
            .next()
            .unwrap_or(spec);
        return Err(FetchError::NoRef(wanted.to_string()));
    }
    prepared
        .receive(gix::progress::Discard, &NO_INTERRUPT)
        .map_err(|e| other(&e))?;
    let now = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    std::fs::write(path.join(LAST_FETCH), now)
        .map_err(|e| other(&format!("cannot mark the fetch in {}: {e}", path.display())))?;
    Ok(())
}

/// An error message on one line (gix chains causes over several).
fn one_line(s: &str) -> String {
    s.split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(": ")
}

/// Keeps (or ends) the clone's note that its last fetch failed. Best effort: a note that cannot
/// be written leaves the failure said by this run only.
fn remember_failure(clone: &Path, done: &Fetch) {
    let note = clone.join(FETCH_FAILED);
    match done {
        Fetch::Done => {
            let _ = std::fs::remove_file(note);
        }
        Fetch::Failed(e) => {
            let _ = crate::durable::write_atomic(&note, one_line(e).as_bytes());
        }
    }
}

/// Why the clone at `clone` could not fetch the last time it tried, while no fetch succeeded
/// since.
pub fn last_fetch_failed(clone: &Path) -> Option<String> {
    let text = std::fs::read_to_string(clone.join(FETCH_FAILED)).ok()?;
    Some(text.trim().to_string()).filter(|t| !t.is_empty())
}

/// When the clone at `clone` last fetched (UTC, to the second), if it ever did.
pub fn last_fetch_said(clone: &Path) -> Option<String> {
    let text = std::fs::read_to_string(clone.join(LAST_FETCH)).ok()?;
    Some(text.trim().to_string()).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::{remote_ref, tracking_ref};

    #[test]
    fn a_ref_setting_names_what_is_fetched_and_where_it_is_kept() {
        let cases = [
            (None, "HEAD", "refs/remotes/origin/HEAD"),
            (Some("HEAD"), "HEAD", "refs/remotes/origin/HEAD"),
            (Some("main"), "refs/heads/main", "refs/remotes/origin/main"),
            (
                Some("refs/heads/release/2"),
                "refs/heads/release/2",
                "refs/remotes/origin/release/2",
            ),
            (
                Some("refs/tags/v1"),
                "refs/tags/v1",
                "refs/remotes/origin/tags/v1",
            ),
        ];
        for (setting, fetched, kept) in cases {
            assert_eq!(remote_ref(setting), fetched, "{setting:?}");
            assert_eq!(tracking_ref(setting), kept, "{setting:?}");
        }
    }
}
