//! A lingering session (`[ssh] persist`): after a session over ssh, the node keeps answering
//! sessions on a Unix socket in its root for a while, so that the next runs reach it through
//! their kept ssh connection (a forwarded socket) without starting a login shell at all.
//!
//! One server per root (a lock on `.session.lock`); it serves each connection as
//! [`super::session()`] does, and exits once nothing connected for its idle time, or as soon as
//! its own binary was replaced (an upgrade: the next session starts the new one) or its socket
//! removed.

use std::fs;
use std::io::{BufReader, BufWriter};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{NodeError, Root};

/// Where the lingering session of `root` listens.
pub fn socket_path(root: &Path) -> PathBuf {
    root.join(".session.sock")
}

/// Makes sure a lingering session answers on the root's socket for `idle` after its last use:
/// one that greets is left alone, else this binary is started, detached, as `mesh node serve`.
/// One that takes connections and does not greet (stopped, stuck) is replaced: its socket and
/// lock are moved out of its way, so that it can never make every later run wait for it
/// (it ends itself once it runs again and finds its socket gone). Never fails the session it
/// follows: a node without one is only slower.
pub fn linger(root: &Root, idle: Duration) {
    let socket = socket_path(root);
    if owned_by_me(&socket) {
        match listening(&socket) {
            Listening::Answers => return,
            Listening::Silent => {
                let _ = fs::remove_file(&socket);
                let _ = fs::remove_file(root.join(".session.lock"));
            }
            Listening::Nothing => {}
        }
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut command = std::process::Command::new(exe);
    command
        .args(["node", "serve", "--root"])
        .arg(root.as_os_str())
        .arg("--idle")
        .arg(idle.as_secs().max(1).to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // Its own process group: the ssh session that started it ends without it (there is no
    // terminal to hang up).
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    let _ = command.spawn();
}

/// What answers on a lingering session's socket.
#[derive(Debug, PartialEq, Eq)]
enum Listening {
    /// A server that greets: left alone.
    Answers,
    /// A server that took the connection and said nothing within [`GREETS_WITHIN`].
    Silent,
    /// Nothing (no socket, no server, or one that is ending and hung up).
    Nothing,
}

/// How long a lingering server on this machine may take to greet a connection: it greets as it
/// accepts, from a thread of its own.
const GREETS_WITHIN: Duration = Duration::from_secs(1);

/// Whether a server answers on `socket`: connects, and reads its greeting.
fn listening(socket: &Path) -> Listening {
    use std::io::Read;
    let Ok(mut stream) = UnixStream::connect(socket) else {
        return Listening::Nothing;
    };
    let _ = stream.set_read_timeout(Some(GREETS_WITHIN));
    let mut greeting = vec![0u8; mesh_proto::frame::GREETING.len()];
    match stream.read_exact(&mut greeting) {
        Ok(()) if greeting == mesh_proto::frame::GREETING => Listening::Answers,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            Listening::Silent
        }
        _ => Listening::Nothing,
    }
}

/// What a lingering server is doing.
struct Serving {
    /// Sessions in progress.
    active: usize,
    /// When the last one ended (or the server started).
    last: Instant,
    /// It decided to end: no new session starts.
    closing: bool,
}

/// Whether `path` exists and belongs to this user: nothing another user made is trusted.
fn owned_by_me(path: &Path) -> bool {
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    fs::symlink_metadata(path).is_ok_and(|m| m.uid() == me)
}

/// The identity of a file: (device, inode, modified), to notice a binary replaced.
type Identity = (u64, u64, i64);

/// The identity of the file at `path`, if there is one.
fn identity(path: &Path) -> Option<Identity> {
    fs::metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino(), m.mtime()))
}

/// The program a server answers as: the one the controller runs (an upgrade replaces it),
/// else this binary, with its identity when the server started.
#[derive(Clone)]
struct Binary {
    exe: Option<PathBuf>,
    started_as: Option<Identity>,
}

impl Binary {
    /// The program of `root` as it is now.
    fn now(root: &Path) -> Binary {
        let program = root.join("bin").join(super::BINARY);
        let exe = if program.exists() {
            Some(program)
        } else {
            std::env::current_exe().ok()
        };
        let started_as = exe.as_deref().and_then(identity);
        Binary { exe, started_as }
    }

    /// Whether it was replaced since (an upgrade): the old binary must not answer for the new.
    fn replaced(&self) -> bool {
        self.exe.as_deref().and_then(identity) != self.started_as
    }
}

/// Serves sessions on the root's socket until nothing connected for `idle` (and none is in
/// progress), or until this binary is replaced. Returns at once when another server holds the
/// root's session lock.
pub fn serve(root: &Root, idle: Duration) -> Result<(), NodeError> {
    refuse_a_shared_root(root)?;
    let Some(lock) = take_session_lock(root)? else {
        return Ok(());
    };
    let socket = socket_path(root);
    let listener = listen(&socket)?;
    let ours = identity(&socket);
    let binary = Binary::now(root);

    // Sessions in progress, and whether this server decided to end: decided under the same
    // lock as a new session starts, so none starts only to be cut by the exit.
    let state = Arc::new(Mutex::new(Serving {
        active: 0,
        last: Instant::now(),
        closing: false,
    }));
    accept_sessions(listener, state.clone(), root.clone(), binary.clone(), idle);
    wait_for_the_end(&state, idle, &binary, &socket, ours);
    // The socket is removed only while it is still this server's.
    if identity(&socket) == ours {
        let _ = fs::remove_file(&socket);
    }
    drop(lock);
    Ok(())
}

/// Makes the root if need be, and refuses it unless it is this user's alone: where another
/// user could put their own socket, sessions are not offered at all.
fn refuse_a_shared_root(root: &Path) -> Result<(), NodeError> {
    super::floor::make_root(root)
}

/// The root's one-server lock, held for as long as the file is open; `None` when another
/// server keeps it.
fn take_session_lock(root: &Path) -> Result<Option<fs::File>, NodeError> {
    let lock_path = root.join(".session.lock");
    let lock = super::floor::open_lock(&lock_path, true)
        .map_err(NodeError::io("open the lock file", &lock_path))?;
    // One that is ending (its binary replaced) lets go within its next look: waited for.
    let asked = Instant::now();
    while lock.try_lock().is_err() {
        if asked.elapsed() > Duration::from_secs(2) {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(Some(lock))
}

/// Listens on `socket`, made anew, with no permissions for anyone but this user.
fn listen(socket: &Path) -> Result<UnixListener, NodeError> {
    let _ = fs::remove_file(socket);
    // Only this user may connect: the socket is made with no permissions for others. The mask
    // is the whole process's, set and restored while it has one thread.
    // SAFETY: umask has no preconditions and only changes this process's file creation mask.
    let old = unsafe { libc::umask(0o077) };
    let listener = UnixListener::bind(socket);
    // SAFETY: as above.
    unsafe { libc::umask(old) };
    listener.map_err(NodeError::io("listen on", socket))
}

/// Accepts connections on a thread of its own and serves each on another, until the server
/// decided to end or its binary was replaced. A failed accept (out of file descriptors, say)
/// waits before the next, longer each time in a row, instead of spinning. Each connection may
/// stay silent for `idle` (the server's own idle time) between its requests: then it is closed,
/// and the server goes on.
fn accept_sessions(
    listener: UnixListener,
    state: Arc<Mutex<Serving>>,
    root: Root,
    binary: Binary,
    idle: Duration,
) {
    std::thread::spawn(move || {
        let mut backoff = Backoff::default();
        loop {
            let stream = match listener.accept() {
                Ok((stream, _)) => {
                    backoff = Backoff::default();
                    stream
                }
                Err(_) => {
                    std::thread::sleep(backoff.failed());
                    continue;
                }
            };
            {
                let Ok(mut st) = state.lock() else { return };
                // Ending, or replaced (an upgrade): the old binary must not answer for the
                // new one. Dropped unanswered, the controller starts a session itself.
                if st.closing || binary.replaced() {
                    return;
                }
                st.active += 1;
            }
            // A controller that stops reading or writing holds a thread and keeps the server
            // from ending: not longer than the server waits for anyone.
            let _ = stream.set_read_timeout(Some(idle));
            let _ = stream.set_write_timeout(Some(idle));
            let (state, root) = (state.clone(), root.clone());
            std::thread::spawn(move || serve_one(&root, stream, &state));
        }
    });
}

/// How long to wait after failed accepts in a row: 100 ms, doubling up to 5 s.
#[derive(Debug, Default)]
struct Backoff {
    failures: u32,
}

impl Backoff {
    /// One more failure: how long to wait before the next accept.
    fn failed(&mut self) -> Duration {
        let wait = Duration::from_millis(100)
            .saturating_mul(1 << self.failures.min(6))
            .min(Duration::from_secs(5));
        self.failures += 1;
        wait
    }
}

/// One session on one connection, as [`super::session()`] serves it; then it counts as ended.
fn serve_one(root: &Root, stream: UnixStream, state: &Mutex<Serving>) {
    if let Ok(reader) = stream.try_clone() {
        let mut input = BufReader::new(reader);
        let mut output = BufWriter::new(stream);
        let _ = super::session(root, &mut input, &mut output);
    }
    if let Ok(mut st) = state.lock() {
        st.active -= 1;
        st.last = Instant::now();
    }
}

/// Returns once the server should end: asked to stop, or with no session in progress, unused
/// for `idle`, replaced, or its socket (`ours` when it started) gone. Then no new session
/// starts.
fn wait_for_the_end(
    state: &Mutex<Serving>,
    idle: Duration,
    binary: &Binary,
    socket: &Path,
    ours: Option<Identity>,
) {
    loop {
        // Often enough that an upgrade's new server takes over at once.
        std::thread::sleep(Duration::from_millis(50).min(idle));
        // Replaced (an upgrade), or its socket removed (the root wiped): no one can reach it.
        let replaced = binary.replaced() || identity(socket) != ours;
        // Asked to stop (SIGTERM, a shutdown): now, whatever is in progress (a session cut
        // short is a cut stream to the node: nothing half-done stays in force).
        if crate::process::stopped().is_some() {
            return;
        }
        if let Ok(mut st) = state.lock()
            && st.active == 0
            && (replaced || st.last.elapsed() >= idle)
        {
            st.closing = true;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::fs::PermissionsExt;

    fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(start.elapsed() < Duration::from_secs(10), "{what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Connects to `socket` once the server listens on it (the file appears at bind, a moment
    /// before connections are taken).
    fn connect(socket: &Path) -> UnixStream {
        let mut connected = None;
        wait_for("a connection", || {
            connected = UnixStream::connect(socket).ok();
            connected.is_some()
        });
        connected.unwrap()
    }

    #[test]
    fn a_lingering_session_answers_only_its_user_and_ends_when_unused() {
        let t = tempfile::tempdir().unwrap();
        let root = Root::check(&t.path().join("root")).unwrap();
        fs::create_dir(&root).unwrap();
        fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
        let r = root.clone();
        let server = std::thread::spawn(move || serve(&r, Duration::from_millis(600)));
        let socket = socket_path(&root);
        wait_for("the socket", || socket.exists());
        let mode = fs::metadata(&socket).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "only its user may connect: {mode:o}");
        let mut s = connect(&socket);
        let mut greeting = [0u8; 13];
        s.read_exact(&mut greeting).unwrap();
        assert_eq!(&greeting, mesh_proto::frame::GREETING);
        drop(s);
        // A second server for the same root does not start while this one serves.
        let r = root.clone();
        let second = std::thread::spawn(move || serve(&r, Duration::from_secs(60)));
        // Unused for its idle time: it ends, and takes its socket with it.
        wait_for("the idle end", || server.is_finished());
        server.join().unwrap().unwrap();
        // The second one took over once the first let go; removing its socket ends it.
        wait_for("the second's socket", || socket.exists());
        fs::remove_file(&socket).unwrap();
        wait_for("the end on a removed socket", || second.is_finished());
        second.join().unwrap().unwrap();
    }

    #[test]
    fn failed_accepts_wait_longer_each_time_up_to_five_seconds() {
        let mut b = Backoff::default();
        let waits: Vec<u64> = (0..9).map(|_| b.failed().as_millis() as u64).collect();
        assert_eq!(
            waits,
            [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000],
            "a failing accept must never spin"
        );
    }

    #[test]
    fn an_idle_connection_is_closed_and_the_server_goes_on() {
        let t = tempfile::tempdir().unwrap();
        let root = Root::check(&t.path().join("root")).unwrap();
        fs::create_dir(&root).unwrap();
        fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
        let r = root.clone();
        let server = std::thread::spawn(move || serve(&r, Duration::from_millis(800)));
        let socket = socket_path(&root);
        wait_for("the socket", || socket.exists());
        let greet = |s: &mut UnixStream| {
            let mut greeting = [0u8; 13];
            s.read_exact(&mut greeting).unwrap();
            assert_eq!(&greeting, mesh_proto::frame::GREETING);
        };
        let mut idle = connect(&socket);
        greet(&mut idle);
        // Its hello, then nothing: the server closes it after its idle time.
        let mut rest = Vec::new();
        idle.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let start = Instant::now();
        let mut hello = [0u8; 5];
        idle.read_exact(&mut hello).unwrap();
        let len = u32::from_be_bytes([hello[1], hello[2], hello[3], hello[4]]) as usize;
        let mut payload = vec![0u8; len];
        idle.read_exact(&mut payload).unwrap();
        let n = idle.read_to_end(&mut rest).unwrap();
        assert_eq!(n, 0, "nothing more, then the end");
        let waited = start.elapsed();
        assert!(
            waited < Duration::from_secs(5),
            "closed after its deadline, not held: {waited:?}"
        );
        // The server still answers a new connection.
        let mut next = connect(&socket);
        greet(&mut next);
        drop(next);
        wait_for("the idle end", || server.is_finished());
        server.join().unwrap().unwrap();
    }

    #[test]
    fn a_root_others_could_write_to_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let root = Root::check(&t.path().join("root")).unwrap();
        fs::create_dir(&root).unwrap();
        fs::set_permissions(&root, fs::Permissions::from_mode(0o777)).unwrap();
        let err = serve(&root, Duration::from_secs(1)).unwrap_err();
        assert!(
            err.to_string().contains("writable by group or others"),
            "{err}"
        );
        assert!(!socket_path(&root).exists());
    }
}
