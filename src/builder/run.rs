//! Running one build: `build` then `test` with `sh -c`, in the module's directory of the export,
//! with `$MESH_OUT` and the inputs' artifacts; logs capped; a timeout; the verdict.

use super::Verdict;
use mesh_node::artifact::{ArtifactError, ArtifactStore, Digest};
use std::cell::Cell;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Logs are capped at this many bytes per build; the rest is counted, not kept.
pub(crate) const LOG_CAP: u64 = 4 << 20;
/// Lines kept for the end-of-run summary of a failed build.
pub(crate) const TAIL_LINES: usize = 20;

/// Everything one build needs.
#[derive(Debug, Clone)]
pub struct Job {
    /// The module.
    pub module: String,
    /// Its directory inside the export: the working directory.
    pub cwd: PathBuf,
    /// The commit.
    pub commit: String,
    /// `build`.
    pub build: String,
    /// `test`.
    pub test: Option<String>,
    /// For each of the two steps.
    pub timeout: Duration,
    /// `MESH_DEP_<NAME>` → unpacked artifact directory.
    pub deps: Vec<(String, PathBuf)>,
}

/// How a build ended.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The verdict.
    pub verdict: Verdict,
    /// Why, for anything but fit.
    pub reason: Option<String>,
    /// The step that decided a non-fit verdict: "build" or "test".
    pub step: Option<&'static str>,
    /// (digest, size) of the artifact, for fit and unfit builds.
    pub artifact: Option<(Digest, u64)>,
    /// The last lines of output.
    pub tail: Vec<String>,
    /// A step left a process running outside its process group (named in the reason): it may
    /// still write into the export.
    pub escaped: bool,
}

/// Where builds put things.
pub struct Dirs {
    /// Scratch space for `$MESH_OUT`.
    pub tmp: PathBuf,
    /// Where running process groups are recorded (see [`mesh_node::process::Group`]).
    pub groups: PathBuf,
    /// The artifact store.
    pub artifacts: ArtifactStore,
    /// Where artifacts are unpacked (inputs of later builds, outputs sent to the cache).
    pub deps: PathBuf,
    /// How many builds may run on this machine at once (`-j`), when more are in flight (with
    /// an engine, most wait on it).
    pub here: Slots,
}

/// A count of free places, waited for: a semaphore.
pub struct Slots {
    free: Mutex<usize>,
    freed: std::sync::Condvar,
}

/// A place taken, given back when dropped.
pub struct Slot<'a>(&'a Slots);

impl Slots {
    /// `n` places.
    pub fn new(n: usize) -> Slots {
        Slots {
            free: Mutex::new(n.max(1)),
            freed: std::sync::Condvar::new(),
        }
    }

    /// Waits for a place and takes it.
    pub fn take(&self) -> Slot<'_> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|p| p.into_inner());
        }
        *free -= 1;
        Slot(self)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut free = self.0.free.lock().unwrap_or_else(|p| p.into_inner());
        *free += 1;
        self.0.freed.notify_one();
    }
}

/// What the progress display sees of a running build.
#[derive(Default)]
pub struct Live {
    /// The newest output line.
    pub last_line: Mutex<String>,
}

/// Runs build and test, packs `$MESH_OUT`, and judges. `log` receives both steps' output.
pub fn run(job: &Job, dirs: &Dirs, log: &Path, live: &Arc<Live>) -> Outcome {
    let escaped = Cell::new(false);
    let mut outcome = run_steps(job, dirs, log, live, &escaped);
    outcome.escaped = escaped.get();
    outcome
}

/// [`run`], noting in `escaped` whether a step left a process outside its group.
fn run_steps(
    job: &Job,
    dirs: &Dirs,
    log: &Path,
    live: &Arc<Live>,
    escaped: &Cell<bool>,
) -> Outcome {
    let mut sink = match LogSink::create(log) {
        Ok(s) => s,
        Err(e) => {
            return outstanding(
                None,
                format!("cannot write the log {}: {e}", log.display()),
                vec![],
            );
        }
    };
    let out = match tempfile::Builder::new()
        .prefix("out-")
        .tempdir_in(&dirs.tmp)
    {
        Ok(d) => d,
        Err(e) => {
            return outstanding(
                None,
                format!("cannot make $MESH_OUT in {}: {e}", dirs.tmp.display()),
                vec![],
            );
        }
    };
    let env = Env {
        job,
        out: out.path(),
        groups: &dirs.groups,
        escaped,
    };
    match step(&env, "build", &job.build, &mut sink, live) {
        Step::Ok => {}
        Step::Failed(why) => {
            return judged(Verdict::Broken, "build", why, None, sink.tail());
        }
        Step::Environmental(why) => return outstanding(Some("build"), why, sink.tail()),
    }
    let artifact = match dirs.artifacts.put_dir(out.path()) {
        Ok(a) => a,
        Err(e @ (ArtifactError::LinkOutOfTree { .. } | ArtifactError::Unsupported { .. })) => {
            sink.line(&format!("mesh: the artifact was refused: {e}"));
            return judged(
                Verdict::Broken,
                "build",
                format!("the artifact was refused: {e}"),
                None,
                sink.tail(),
            );
        }
        Err(e) => {
            return outstanding(
                Some("build"),
                format!("cannot store the artifact: {e}"),
                sink.tail(),
            );
        }
    };
    if let Some(test) = &job.test {
        match step(&env, "test", test, &mut sink, live) {
            Step::Ok => {}
            Step::Failed(why) => {
                return judged(Verdict::Unfit, "test", why, Some(artifact), sink.tail());
            }
            Step::Environmental(why) => return outstanding(Some("test"), why, sink.tail()),
        }
    }
    Outcome {
        verdict: Verdict::Fit,
        reason: None,
        step: None,
        artifact: Some(artifact),
        tail: sink.tail(),
        escaped: false,
    }
}

/// An outstanding end (no verdict): the build failed for reasons that say nothing about the
/// artifact.
pub(super) fn outstanding(step: Option<&'static str>, why: String, tail: Vec<String>) -> Outcome {
    Outcome {
        verdict: Verdict::Outstanding,
        reason: Some(why),
        step,
        artifact: None,
        tail,
        escaped: false,
    }
}

/// A judged end: the step that decided the verdict, and why.
fn judged(
    verdict: Verdict,
    step: &'static str,
    why: String,
    artifact: Option<(Digest, u64)>,
    tail: Vec<String>,
) -> Outcome {
    Outcome {
        verdict,
        reason: Some(why),
        step: Some(step),
        artifact,
        tail,
        escaped: false,
    }
}

/// What every step of one build runs with.
struct Env<'a> {
    job: &'a Job,
    out: &'a Path,
    groups: &'a Path,
    /// Set when a step left a process outside its group.
    escaped: &'a Cell<bool>,
}

/// How one step ended: done, failed (a verdict), or environmental (no verdict).
enum Step {
    Ok,
    Failed(String),
    Environmental(String),
}

/// How long the output of a step that ended is still read: what its group wrote before it
/// was killed, and the end of the pipes once the kill closed them. A process that escaped the
/// group (`setsid`, a daemon) and still holds a pipe is named at the end of it, not waited for.
const OUTPUT_GRACE: Duration = Duration::from_millis(500);

/// Runs one step (`build` or `test`) to its end, its output into `sink`, and says how it
/// ended. Reading its output ends with it: see [`OUTPUT_GRACE`].
fn step(env: &Env, name: &str, cmd: &str, sink: &mut LogSink, live: &Arc<Live>) -> Step {
    sink.line(&format!("mesh: {name}: {cmd}"));
    let mut c = command(env, cmd);
    if let Some(sig) = mesh_node::process::stopped() {
        return Step::Environmental(stopped_why(name, sig));
    }
    // In a group whose watcher kills it when mesh ends, even by SIGKILL.
    let (mut child, watch) = match mesh_node::process::spawn_watched(&mut c) {
        Ok(c) => c,
        Err(e) => return Step::Environmental(format!("{name} could not be started: {e}")),
    };
    let pgid = watch.group();
    // Known to the SIGINT/SIGTERM handler and recorded for a run after a SIGKILL (should the
    // watcher itself have been killed).
    let group = mesh_node::process::Group::register(pgid, env.groups);
    let shared = Arc::new(Mutex::new(std::mem::take(sink)));
    let until = Arc::new(Until::default());
    let readers = pump_output(&mut child, &shared, live, &until);
    let (status, timed_out) = wait_within(&mut child, pgid, env.job.timeout);
    // What the step left running in its group (a daemon, `cmd &`) would hold the pipes open:
    // the step is over, so is its group (the watcher with it).
    drop(watch);
    drop(group);
    until.set(Instant::now() + OUTPUT_GRACE);
    let held: Vec<u64> = readers
        .into_iter()
        .filter_map(|r| r.join().ok().flatten())
        .collect();
    *sink = match Arc::try_unwrap(shared) {
        Ok(m) => m.into_inner().unwrap_or_default(),
        Err(a) => std::mem::take(&mut *a.lock().unwrap_or_else(|p| p.into_inner())),
    };
    let escaped = escaped(name, &held, pgid, sink);
    if escaped.is_some() {
        env.escaped.set(true);
    }
    let status = match status {
        Ok(s) => s,
        Err(e) => return Step::Environmental(format!("{name} could not be waited for: {e}")),
    };
    match (ended(env, name, status, timed_out, sink), escaped) {
        (step, None) => step,
        // The step's own end says nothing of what it left running: a step that exited 0 but
        // left a process mesh can neither stop nor wait for did not end within its bounds
        // (that process may still write its output, `$MESH_OUT` or its export).
        (Step::Ok, Some(why)) => Step::Failed(why),
        (Step::Failed(w), Some(why)) => Step::Failed(format!("{w}; {why}")),
        (Step::Environmental(w), Some(why)) => Step::Environmental(format!("{w}; {why}")),
    }
}

/// Names the processes that still hold the step's output pipes (inodes `held`) once its group
/// (`group`) is gone: they escaped the group, so mesh neither stopped nor waited for them. Said in the
/// log and kept for the run's last word ([`mesh_node::process::escaped`]).
fn escaped(name: &str, held: &[u64], group: u32, sink: &mut LogSink) -> Option<String> {
    if held.is_empty() {
        return None;
    }
    // A member of the step's own group still dying of its kill did not escape; one gone since
    // holds nothing any more.
    let pids: Vec<(u32, String)> = mesh_node::process::pipe_holders(held)
        .into_iter()
        .filter(|(pid, _)| mesh_node::process::group_of(*pid) != Some(group))
        .collect();
    if pids.is_empty() {
        sink.line(&format!(
            "mesh: stopped reading the output of {name} {} after it ended",
            humantime::format_duration(OUTPUT_GRACE)
        ));
        return None;
    }
    let who = pids
        .iter()
        .map(|(pid, comm)| format!("pid {pid} ({comm})"))
        .collect::<Vec<_>>()
        .join(", ");
    let why = format!(
        "{name} started a process that left its process group and outlived it, still holding its output: {who}; mesh did not wait for it and did not stop it"
    );
    sink.line(&format!("mesh: {why}"));
    mesh_node::process::note_escaped(&who);
    Some(why)
}

/// `sh -c CMD` in the module's directory, with `$MESH_OUT`, `$MESH_MODULE`, `$MESH_COMMIT`
/// and each input's `MESH_DEP_<NAME>`; output piped (its process group is set when it is
/// spawned, see [`mesh_node::process::spawn_watched`]).
fn command(env: &Env, cmd: &str) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(cmd)
        .current_dir(&env.job.cwd)
        .env("MESH_OUT", env.out)
        .env("MESH_MODULE", &env.job.module)
        .env("MESH_COMMIT", &env.job.commit)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, dir) in &env.job.deps {
        c.env(super::dep_env_name(name), dir);
    }
    c
}

/// When the readers of a step's output stop waiting for more (unset while the step runs).
#[derive(Default)]
struct Until(Mutex<Option<Instant>>);

impl Until {
    fn set(&self, at: Instant) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(at);
    }
    fn get(&self) -> Option<Instant> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One thread per output stream of `child`, copying it into the shared log until the stream
/// ends or `until` passes. Each answers the pipe's inode when it stopped before the end (a
/// process still holds the pipe), `None` at the end.
fn pump_output(
    child: &mut Child,
    shared: &Arc<Mutex<LogSink>>,
    live: &Arc<Live>,
    until: &Arc<Until>,
) -> Vec<JoinHandle<Option<u64>>> {
    [
        child.stdout.take().map(std::os::fd::OwnedFd::from),
        child.stderr.take().map(std::os::fd::OwnedFd::from),
    ]
    .into_iter()
    .flatten()
    .map(|fd| {
        let shared = Arc::clone(shared);
        let live = Arc::clone(live);
        let until = Arc::clone(until);
        std::thread::spawn(move || pump(std::fs::File::from(fd), &shared, &live, &until))
    })
    .collect()
}

/// Waits for `child` at most `timeout` (or until mesh is asked to stop), then kills its whole
/// process group `pgid` (a shell's children go too) and the child itself (which may have left
/// the group), and reaps it. Returns how it ended and whether it timed out.
fn wait_within(
    child: &mut Child,
    pgid: u32,
    timeout: Duration,
) -> (std::io::Result<ExitStatus>, bool) {
    let start = Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return (Ok(status), false),
            Ok(None) => {}
            Err(e) => return (Err(e), false),
        }
        let elapsed = start.elapsed();
        let timed_out = elapsed >= timeout;
        if timed_out || mesh_node::process::stopped().is_some() {
            mesh_node::process::kill_group(pgid);
            let _ = child.kill();
            return (child.wait(), timed_out);
        }
        std::thread::sleep(pause.min(timeout - elapsed));
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// What a step that ended with `status` means. Being asked to stop and a timeout come first:
/// the status then only says how the kill went.
fn ended(env: &Env, name: &str, status: ExitStatus, timed_out: bool, sink: &mut LogSink) -> Step {
    if let Some(sig) = mesh_node::process::stopped() {
        let why = stopped_why(name, sig);
        sink.line(&format!("mesh: {why}"));
        return Step::Environmental(why);
    }
    if timed_out {
        let why = format!(
            "{name} timed out after {}",
            humantime::format_duration(env.job.timeout)
        );
        sink.line(&format!("mesh: {why}"));
        return Step::Environmental(why);
    }
    match (status.code(), status.signal()) {
        (Some(0), _) => Step::Ok,
        (Some(75), _) => {
            Step::Environmental(format!("{name} exited 75 (EX_TEMPFAIL): try again later"))
        }
        (Some(code), _) => Step::Failed(format!("{name} exited {code}")),
        (None, Some(sig)) => Step::Environmental(format!("{name} was killed by signal {sig}")),
        (None, None) => Step::Environmental(format!("{name} ended without a status")),
    }
}

/// Why a step did not run to its end: mesh was asked to stop.
fn stopped_why(name: &str, sig: i32) -> String {
    format!(
        "{name} was stopped: mesh received {}",
        mesh_node::process::signal_name(sig)
    )
}

/// Copies a stream into the log, line by line for the tail and the progress line, until it
/// ends or `until` passes (what is in the pipe by then is still read). Answers the pipe's
/// inode when it stopped before the end.
fn pump(mut r: std::fs::File, sink: &Mutex<LogSink>, live: &Live, until: &Until) -> Option<u64> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;
    let mut buf = [0u8; 16 * 1024];
    let mut partial = Vec::new();
    let mut cut = None;
    loop {
        let wait_ms = match until.get() {
            None => 100,
            // Past the grace: a process that escaped the step may write for ever.
            Some(at) if Instant::now() >= at => {
                cut = r.metadata().ok().map(|m| m.ino());
                break;
            }
            Some(at) => {
                let left = at.saturating_duration_since(Instant::now());
                i32::try_from(left.as_millis()).unwrap_or(i32::MAX).max(1)
            }
        };
        let mut pfd = libc::pollfd {
            fd: r.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd, valid for the call; the fd is open while `r` lives.
        let ready = unsafe { libc::poll(&mut pfd, 1, wait_ms) };
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        if ready == 0 {
            continue;
        }
        let n = match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
        s.write(&buf[..n]);
        partial.extend_from_slice(&buf[..n]);
        while let Some(pos) = partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = partial.drain(..=pos).collect();
            let text = String::from_utf8_lossy(&line).trim_end().to_string();
            if let Ok(mut l) = live.last_line.lock() {
                l.clone_from(&text);
            }
            s.remember(text);
        }
        if partial.len() > 4096 {
            let text = String::from_utf8_lossy(&partial).to_string();
            s.remember(text);
            partial.clear();
        }
    }
    if !partial.is_empty() {
        let mut s = sink.lock().unwrap_or_else(|p| p.into_inner());
        s.remember(String::from_utf8_lossy(&partial).trim_end().to_string());
    }
    cut
}

/// The build's log file, capped, and its last lines.
#[derive(Default)]
struct LogSink {
    file: Option<std::fs::File>,
    written: u64,
    dropped: u64,
    tail: VecDeque<String>,
}

impl LogSink {
    fn create(path: &Path) -> std::io::Result<LogSink> {
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d)?;
        }
        Ok(LogSink {
            file: Some(std::fs::File::create(path)?),
            ..LogSink::default()
        })
    }

    fn write(&mut self, bytes: &[u8]) {
        let room = LOG_CAP.saturating_sub(self.written);
        let keep = (bytes.len() as u64).min(room) as usize;
        if let Some(f) = &mut self.file
            && keep > 0
            && f.write_all(&bytes[..keep]).is_ok()
        {
            self.written += keep as u64;
        }
        self.dropped += (bytes.len() - keep) as u64;
    }

    fn line(&mut self, text: &str) {
        self.write(format!("{text}\n").as_bytes());
        self.remember(text.to_string());
    }

    fn remember(&mut self, line: String) {
        if self.tail.len() == TAIL_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(line);
    }

    fn tail(&mut self) -> Vec<String> {
        if self.dropped > 0 {
            let note = format!(
                "mesh: the log was capped at {LOG_CAP} bytes; {} more bytes were not kept",
                self.dropped
            );
            if let Some(f) = &mut self.file {
                let _ = writeln!(f, "{note}");
            }
            self.dropped = 0;
        }
        self.tail.iter().cloned().collect()
    }
}
