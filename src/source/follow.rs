//! Repositories followed by URL (`[[repo]] url`): mesh keeps a bare clone of each under
//! `.mesh/repos/<name>.git` and, before reading it, fetches the configured ref into a
//! remote-tracking ref of that clone — at most once per process, only in the verbs that act
//! (`build`, `declare`, `push`, `reconcile`), never under `--offline`. So cron needs no checkout
//! and no `git pull`, and a reading verb (`status`, `plan`, …) never waits on a remote.
//!
//! A URL is shown without its password everywhere ([`crate::config::shown_url`]), and a fetch
//! that fails carries its cause: the error's chain and what ssh said (captured, never left to
//! reach the terminal raw).
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
/// The reading verb this process runs, if it is one: it reads the clones as they are.
static READING: Mutex<Option<String>> = Mutex::new(None);
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

/// Says that this process runs `verb`, a reading verb: every read uses the clones as they are
/// (a reading verb never fetches, so it never waits on a remote).
pub fn set_reading(verb: &str) {
    *READING.lock().unwrap_or_else(|e| e.into_inner()) = Some(verb.to_string());
}

/// The reading verb this process runs, if any.
fn reading() -> Option<String> {
    READING.lock().unwrap_or_else(|e| e.into_inner()).clone()
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
pub(crate) fn remote_ref(reference: Option<&str>) -> String {
    match reference {
        None | Some("HEAD") => "HEAD".to_string(),
        Some(r) if r.starts_with("refs/") => r.to_string(),
        Some(r) => format!("refs/heads/{r}"),
    }
}

/// The remote-tracking ref of the clone that a `ref` setting is fetched into and read from:
/// `refs/remotes/origin/` and the remote ref without its `refs/heads/` (or `refs/`).
pub(crate) fn tracking_ref(reference: Option<&str>) -> String {
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
    if let Some(read) = not_fetching(mesh, cfg, url, exists) {
        return read.map(|()| Ready {
            tracking,
            failed: None,
        });
    }
    let shown = crate::config::shown_url(url);
    let clean = |e: String| crate::config::without_password(&e, url);
    match fetch_once(clone, url, &spec, exists) {
        Ok(Fetch::Done) => Ok(Ready {
            tracking,
            failed: None,
        }),
        Ok(Fetch::Failed(e)) => Ok(Ready {
            tracking,
            failed: Some(clean(e)),
        }),
        Err(FetchError::NoRef(r)) => Err(mesh
            .repo_error(
                cfg,
                true,
                format!(
                    "repository `{}` cannot be cloned from {shown}: the remote has no ref `{r}`",
                    cfg.name
                ),
                format!(
                    "set `ref` to a branch or tag the remote has (`git ls-remote {shown}` lists them), or leave it out for the remote's HEAD"
                ),
            )
            .into()),
        Err(FetchError::Other(e)) => Err(first_fetch_error(
            mesh,
            cfg,
            url,
            &clean(e),
            "check the URL, that this machine reaches it (`git ls-remote URL` tries the same) \
             and, for ssh, that its key is loaded (`ssh-add -l`)",
        )),
    }
}

/// When this run fetches nothing (`--offline`, or a verb that only reads): the clone is read
/// as it is, or the error that there is none yet. None when this run fetches.
fn not_fetching(
    mesh: &MeshConfig,
    cfg: &RepoConfig,
    url: &str,
    exists: bool,
) -> Option<Result<(), ReadError>> {
    if OFFLINE.load(Ordering::Relaxed) {
        return Some(match exists {
            true => Ok(()),
            false => Err(first_fetch_error(
                mesh,
                cfg,
                url,
                "--offline was given and there is no clone yet",
                "run once without --offline, so mesh clones it",
            )),
        });
    }
    let verb = reading()?;
    Some(match exists {
        true => Ok(()),
        false => Err(first_fetch_error(
            mesh,
            cfg,
            url,
            &format!("there is no clone yet, and `mesh {verb}` reads, it never fetches"),
            "run `mesh reconcile` or `mesh build` (the verbs that fetch) once, so mesh clones it",
        )),
    })
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
            "repository `{}` cannot be cloned from {}: {why}",
            cfg.name,
            crate::config::shown_url(url)
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
/// marks the time of a good fetch. What the transport (ssh) says on stderr is captured: a
/// failure carries it as its cause; a fetch that went well drops it.
fn fetch(path: &Path, url: &str, spec: &str) -> Result<(), FetchError> {
    let (done, said) = with_stderr_captured(|| fetch_quietly(path, url, spec));
    match done {
        Err(FetchError::Other(e)) => {
            let mut said = said_lines(&said);
            // gix waits 5 ms for ssh's words once the connection closes: on a busy machine
            // they come later and are lost. Asked again, ssh says why.
            if said.is_empty() && e.contains("handshake") {
                let configured = gix::open(path).ok().and_then(|r| {
                    let command = r.config_snapshot().string("core.sshCommand")?;
                    Some(command.to_string())
                });
                said = ssh_cause(url, configured.as_deref()).unwrap_or_default();
            }
            Err(FetchError::Other(if said.is_empty() || e.contains(&said) {
                e
            } else {
                format!("{e}: {said}")
            }))
        }
        done => done,
    }
}

/// Why ssh cannot reach the host of `url` (an `ssh://` or `user@host:path` URL), in ssh's
/// own words: it is run again alone, as git would run it (`GIT_SSH_COMMAND`, else the
/// clone's `core.sshCommand`, `configured`, else `GIT_SSH`, else `ssh`), non-interactive, to
/// run `true` there, for [`SSH_CAUSE_DEADLINE`] at most; its stderr, as one line. `None` when
/// the URL is no ssh one or ssh says nothing. A password in the URL is never passed on.
fn ssh_cause(url: &str, configured: Option<&str>) -> Option<String> {
    ssh_cause_within(url, configured, SSH_CAUSE_DEADLINE)
}

/// [`ssh_cause`], ssh given `deadline` at most.
fn ssh_cause_within(
    url: &str,
    configured: Option<&str>,
    deadline: std::time::Duration,
) -> Option<String> {
    let parsed = gix::url::parse(gix::bstr::BStr::new(url)).ok()?;
    if parsed.scheme != gix::url::Scheme::Ssh {
        return None;
    }
    let host = parsed.host()?;
    let target = match parsed.user() {
        Some(user) => format!("{user}@{host}"),
        None => host.to_string(),
    };
    // As git picks it: GIT_SSH_COMMAND, core.sshCommand, GIT_SSH (a program), ssh.
    let set = |v: Option<String>| v.filter(|c| !c.trim().is_empty());
    let ssh = set(std::env::var("GIT_SSH_COMMAND").ok())
        .or_else(|| set(configured.map(str::to_string)))
        .or_else(|| {
            set(std::env::var("GIT_SSH").ok()).map(|p| format!("'{}'", p.replace('\'', "'\\''")))
        })
        .unwrap_or_else(|| "ssh".to_string());
    let port = parsed.port.map(|p| format!(" -p {p}")).unwrap_or_default();
    // `$1` is the target, passed apart so that the shell never reads it as code.
    let script = format!("{ssh} -o BatchMode=yes -o ConnectTimeout=10{port} -- \"$1\" true");
    use std::io::{Read, Seek};
    use std::os::unix::process::CommandExt;
    let mut said = tempfile::tempfile().ok()?;
    let mut child = std::process::Command::new("sh")
        .args(["-c", &script, "sh", &target])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(said.try_clone().ok()?)
        .process_group(0)
        .spawn()
        .ok()?;
    // ConnectTimeout bounds the connection and the banner, not a server that stalls after
    // them: the whole group is stopped at the deadline, and what ssh said by then is used.
    let status = match mesh_node::process::wait_until(&mut child, deadline) {
        Ok(Some(status)) => Some(status),
        _ => {
            mesh_node::process::stop(&mut child);
            None
        }
    };
    let mut bytes = Vec::new();
    said.rewind().ok()?;
    said.read_to_end(&mut bytes).ok()?;
    let said = said_lines(&String::from_utf8_lossy(&bytes));
    (!status.is_some_and(|s| s.success()) && !said.is_empty()).then_some(said)
}

/// How long ssh is given to say why it cannot connect (see [`ssh_cause`]).
const SSH_CAUSE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(15);

/// An error and its chain of causes on one line ("Transport handshake failed" says nothing
/// without them).
fn chain(e: &(dyn std::error::Error + 'static)) -> FetchError {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    FetchError::Other(one_line(&text))
}

/// What a transport wrote on stderr, as one line: its lines trimmed, control characters
/// dropped, at most 600 characters.
fn said_lines(text: &str) -> String {
    let joined = text
        .lines()
        .map(|l| {
            l.chars()
                .filter(|c| !c.is_control())
                .collect::<String>()
                .trim()
                .to_string()
        })
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    match joined.char_indices().nth(600) {
        Some((i, _)) => format!("{}…", &joined[..i]),
        None => joined,
    }
}

/// Runs `f` with this process's stderr (fd 2) sent to a temporary file, and answers what was
/// written there. gix writes what ssh says on stderr straight to fd 2, so a fetch's cause
/// would reach the terminal raw and its error would lack it. Fetches run one at a time
/// (under [`FETCHED`]'s lock) and before any build, so nothing else is written meanwhile.
fn with_stderr_captured<T>(f: impl FnOnce() -> T) -> (T, String) {
    use std::io::{Read, Seek};
    use std::os::fd::AsRawFd;
    /// Puts fd 2 back, however `f` ends.
    struct Restore(i32);
    impl Drop for Restore {
        fn drop(&mut self) {
            // SAFETY: `self.0` is the duplicate of fd 2 made below, owned here.
            unsafe {
                libc::dup2(self.0, 2);
                libc::close(self.0);
            }
        }
    }
    let Ok(mut file) = tempfile::tempfile() else {
        return (f(), String::new());
    };
    // SAFETY: dup of fd 2, which is open for the whole process.
    let saved = unsafe { libc::dup(2) };
    if saved < 0 {
        return (f(), String::new());
    }
    let restore = Restore(saved);
    // SAFETY: both descriptors are open; fd 2 is put back by `restore`.
    if unsafe { libc::dup2(file.as_raw_fd(), 2) } < 0 {
        drop(restore);
        return (f(), String::new());
    }
    let out = f();
    drop(restore);
    let mut bytes = Vec::new();
    if file.rewind().is_ok() {
        let _ = file.read_to_end(&mut bytes);
    }
    (out, String::from_utf8_lossy(&bytes).into_owned())
}

/// [`fetch`], with whatever the transport says left on stderr.
fn fetch_quietly(path: &Path, url: &str, spec: &str) -> Result<(), FetchError> {
    use gix::remote::Direction;
    let other = |e: &dyn std::fmt::Display| FetchError::Other(one_line(&e.to_string()));
    // Unlike a read, a fetch honours the user's git configuration and environment, as `git
    // fetch` would: `GIT_SSH_COMMAND`, `core.sshCommand`, `url.<base>.insteadOf`.
    let repo = gix::open_opts(path, gix::open::Options::default())
        .map_err(|e| other(&format!("cannot open the clone {}: {e}", path.display())))?;
    let remote = repo
        .remote_at(url)
        .and_then(|r| r.with_refspecs([spec], Direction::Fetch))
        .map_err(|e| chain(&e))?
        .with_fetch_tags(gix::remote::fetch::Tags::None);
    let prepared = remote
        .connect(Direction::Fetch)
        .and_then(|c| c.prepare_fetch(gix::progress::Discard, Default::default()))
        .map_err(|e| chain(&e))?;
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
        .map_err(|e| chain(&e))?;
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
            let _ = mesh_node::durable::write_atomic(&note, one_line(e).as_bytes());
        }
    }
}

/// Why the clone at `clone` could not fetch the last time it tried, while no fetch succeeded
/// since.
pub(crate) fn last_fetch_failed(clone: &Path) -> Option<String> {
    let text = std::fs::read_to_string(clone.join(FETCH_FAILED)).ok()?;
    Some(text.trim().to_string()).filter(|t| !t.is_empty())
}

/// When the clone at `clone` last fetched (UTC, to the second), if it ever did.
pub(crate) fn last_fetch_said(clone: &Path) -> Option<String> {
    let text = std::fs::read_to_string(clone.join(LAST_FETCH)).ok()?;
    Some(text.trim().to_string()).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::{remote_ref, ssh_cause, tracking_ref};

    #[test]
    fn ssh_asked_again_says_why_it_cannot_connect() {
        // Port 1 of this machine: nobody listens. The password never reaches ssh's words.
        let said =
            ssh_cause("ssh://deploy:s3cret@127.0.0.1:1/tmp/x.git", None).expect("ssh says why");
        assert!(said.contains("Connection refused"), "{said}");
        assert!(!said.contains("s3cret"), "{said}");
        assert_eq!(ssh_cause("https://127.0.0.1:1/x.git", None), None);
        assert_eq!(ssh_cause("/tmp/x.git", None), None);
    }

    #[test]
    fn ssh_asked_again_is_stopped_when_a_server_stalls() {
        // A server that sends its banner and then nothing: ConnectTimeout does not end it.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming().flatten() {
                use std::io::Write;
                let mut stream = stream;
                let _ = stream.write_all(b"SSH-2.0-OpenSSH_9.6\r\n");
                held.push(stream);
            }
        });
        let url = format!("ssh://127.0.0.1:{port}/x.git");
        let deadline = std::time::Duration::from_secs(2);
        // It returns (stopped at the deadline), whatever ssh managed to say by then.
        let _ = super::ssh_cause_within(&url, None, deadline);
    }

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
