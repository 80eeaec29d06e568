//! Child processes that run in their own process group — builds, tests, `activate`, hooks — so
//! that a timeout stops everything they started, not only the shell; and builds in a group
//! that a watcher kills when mesh ends, however it ends ([`spawn_watched`]).

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Kills the whole process group led by `pid` (a child spawned with `process_group(0)`).
/// std has no killpg; the `kill` binary takes a negative id for a group. A group that is
/// already gone is not an error.
pub fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Waits for `child` up to `timeout`: `None` if it is still running then. Polls with a pause
/// that grows from 5 ms to 100 ms, so short commands are seen at once and long ones cost little.
pub fn wait_until(child: &mut Child, timeout: Duration) -> std::io::Result<Option<ExitStatus>> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let elapsed = start.elapsed();
        if elapsed >= timeout {
            return Ok(None);
        }
        std::thread::sleep(pause.min(timeout - elapsed));
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// What the watcher of a group runs: it blocks reading a pipe only mesh writes to, and when
/// that pipe closes — mesh ended, however it ended, `kill -9` included — it kills its whole
/// group, itself with it. mesh never writes: the pipe only ever closes.
const WATCHER_SCRIPT: &str = "read _; kill -s KILL 0";

/// The name the watcher shows in `ps` (its `$0`).
pub const WATCHER_NAME: &str = "mesh-group-watcher";

/// A process group that cannot outlive mesh: its leader is a watcher (`sh`, see
/// [`WATCHER_SCRIPT`]) holding the read end of a pipe whose write end only this value holds.
/// `PR_SET_PDEATHSIG` would reach the direct child only; the watcher reaches everything the
/// command started, daemons and `cmd &` included. Dropping it kills the group and reaps the
/// watcher.
pub struct Watch {
    watcher: Child,
    /// Closed when mesh ends (the kernel closes it after a SIGKILL too); never written.
    _lifeline: std::io::PipeWriter,
}

impl Watch {
    /// The process group's id (the watcher's pid): what [`kill_group`] and [`Group`] take.
    pub fn group(&self) -> u32 {
        self.watcher.id()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        kill_group(self.watcher.id());
        let _ = self.watcher.kill();
        let _ = self.watcher.wait();
    }
}

/// Spawns `command` into a new process group led by a watcher (see [`Watch`]), so that the
/// command and everything it starts end when mesh does. The watcher is started first and
/// leads the group, so the group exists for as long as the watcher lives, whatever the
/// command does. `command`'s own process group setting is replaced.
pub fn spawn_watched(command: &mut Command) -> std::io::Result<(Child, Watch)> {
    // Both ends are close-on-exec: only the watcher's stdin holds the read end, and no other
    // child (another build, ssh) inherits the write end, which would keep the pipe open.
    let (read, write) = std::io::pipe()?;
    let watcher = {
        let mut w = Command::new("sh");
        w.args(["-c", WATCHER_SCRIPT, WATCHER_NAME])
            .stdin(Stdio::from(read))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        // `w` holds the read end until it is dropped, at the end of this block.
        w.spawn()?
    };
    let watch = Watch {
        watcher,
        _lifeline: write,
    };
    let group = watch.group() as i32;
    // Spawn returns once the watcher exec'd, so its group exists.
    let child = command.process_group(group).spawn()?;
    Ok((child, watch))
}

/// Kills `child`'s group, then reaps the child.
pub fn stop(child: &mut Child) {
    kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}

// ---------------------------------------------------------------------------------------------
// Nothing outlives mesh: SIGINT/SIGTERM stop the groups mesh started; after a SIGKILL the next
// run stops the groups it recorded.
// ---------------------------------------------------------------------------------------------

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that asked mesh to stop (0: none yet).
static STOPPED: AtomicI32 = AtomicI32::new(0);
/// The process groups running now (0: a free slot). Read by the signal handler, which may
/// only do what is async-signal-safe: load these and `kill` them.
static GROUPS: [AtomicI32; 64] = [const { AtomicI32::new(0) }; 64];

extern "C" fn on_stop_signal(sig: libc::c_int) {
    if STOPPED.swap(sig, Ordering::SeqCst) != 0 {
        // Asked twice: go now.
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + sig) };
    }
    for g in &GROUPS {
        let pid = g.load(Ordering::SeqCst);
        if pid > 0 {
            // SAFETY: kill is async-signal-safe; a negative pid names the group.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
    }
}

/// Makes SIGINT and SIGTERM stop the build process groups at once and let the run end with
/// what it recorded (exit 130/143) instead of killing mesh and leaving its builds running.
pub fn stop_on_signals() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only touches atomics and calls async-signal-safe functions.
        unsafe {
            libc::signal(
                sig,
                on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

/// The signal that asked mesh to stop, if one did.
pub fn stopped() -> Option<i32> {
    match STOPPED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The signal's name, for messages.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

/// A running process group mesh started: known to the signal handler, and recorded on disk
/// (`.mesh/groups/<pid>`, with its start time) so that a run after a SIGKILL can stop it.
/// Dropping it forgets the group (call once the group is stopped or over).
pub struct Group {
    pid: i32,
    record: Option<PathBuf>,
}

impl Group {
    /// Registers the group led by `pid`, recording it in `dir`.
    pub fn register(pid: u32, dir: &Path) -> Group {
        let pid = pid as i32;
        for g in &GROUPS {
            if g.compare_exchange(0, pid, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                break;
            }
        }
        let record = start_time(pid).and_then(|t| {
            let path = dir.join(pid.to_string());
            std::fs::create_dir_all(dir).ok()?;
            std::fs::write(&path, t.to_string()).ok()?;
            Some(path)
        });
        // Asked to stop between the spawn and now: the handler did not see this group.
        if stopped().is_some() {
            kill_group(pid as u32);
        }
        Group { pid, record }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        for g in &GROUPS {
            if g.compare_exchange(self.pid, 0, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                break;
            }
        }
        if let Some(r) = &self.record {
            let _ = std::fs::remove_file(r);
        }
    }
}

/// A process's start time (clock ticks after boot, `/proc/PID/stat` field 22): with the pid,
/// it names one process, never a later one that reused the pid.
fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Stops the process groups a killed mesh recorded in `dir` and left running; returns one
/// line per group stopped. The caller holds the mesh lock, so no recorded group is a live
/// run's. A group whose leader's pid now names another process is long gone (a pid is not
/// reused while its group lives) and is only forgotten.
pub fn stop_orphans(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut stopped = Vec::new();
    for e in entries.flatten() {
        let path = e.path();
        let pid = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok());
        let recorded = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok());
        if let (Some(pid), Some(recorded)) = (pid, recorded)
            && pid > 1
        {
            let ours = match start_time(pid) {
                Some(now) => now == recorded,
                // The leader is gone; members of its group may live on, and the pgid cannot
                // have been given to anyone else while they do.
                None => true,
            };
            // SAFETY: kill with a negative pid signals that process group; no memory involved.
            if ours && unsafe { libc::kill(-pid, libc::SIGKILL) } == 0 {
                stopped.push(format!(
                    "stopped the build process group {pid} left running by a mesh that was killed"
                ));
            }
        }
        let _ = std::fs::remove_file(&path);
    }
    stopped
}

// ---------------------------------------------------------------------------------------------
// What escaped: a process a build started that left its process group (`setsid`, a daemon) is
// beyond `kill_group` and the signal handler. It is named, never waited for.
// ---------------------------------------------------------------------------------------------

/// The processes escaped from build groups in this run, as named ("pid 12 (sleep)").
static ESCAPED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// The other processes (pid, command name) that hold an end of one of the pipes whose inodes
/// are `inodes`: found in `/proc/*/fd`, so only those this user may see.
pub fn pipe_holders(inodes: &[u64]) -> Vec<(u32, String)> {
    let me = std::process::id();
    let links: Vec<String> = inodes.iter().map(|i| format!("pipe:[{i}]")).collect();
    let mut found = Vec::new();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return found;
    };
    for p in procs.flatten() {
        let Some(pid) = p.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(p.path().join("fd")) else {
            continue;
        };
        let holds = fds.flatten().any(|fd| {
            std::fs::read_link(fd.path())
                .is_ok_and(|t| links.iter().any(|l| t.as_os_str() == l.as_str()))
        });
        if holds {
            let comm = std::fs::read_to_string(p.path().join("comm"))
                .map(|c| c.trim().to_string())
                .unwrap_or_default();
            found.push((pid, comm));
        }
    }
    found.sort();
    found
}

/// The process group of `pid` (`/proc/PID/stat` field 5), if it runs.
pub fn group_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(2)?.parse().ok()
}

/// Remembers processes that escaped a build's group, for the run's last word.
pub fn note_escaped(who: &str) {
    ESCAPED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(who.to_string());
}

/// The processes that escaped build groups in this run and were not stopped.
pub fn escaped() -> Vec<String> {
    ESCAPED.lock().unwrap_or_else(|p| p.into_inner()).clone()
}
