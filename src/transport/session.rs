//! The controller's half of `mesh node session`: one process on the node (through ssh, or a
//! child for a local node) for every request of a run (see [`crate::node::frame`]).
//!
//! Every request has a deadline; when it passes, the process is killed and the request fails
//! as a timeout. When the conversation breaks (the process or the connection died), the error
//! is what the process's exit says: ssh's exit 255 is read by the ssh side (unreachable,
//! refused key...), an exit before the greeting means the node's mesh is missing or older.

use super::{Answer, TransportError};
use crate::node::frame::{self, FrameError, Kind};
use crate::node::{Have, Hello, PROTOCOL, Report};
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long the short requests (hello, have, report) may take.
pub const SHORT: Duration = Duration::from_secs(120);
/// How long a receive (artifacts on the wire) or an apply (activate commands) may take.
pub const LONG: Duration = Duration::from_secs(30 * 60);

/// The most bytes a login shell may print before the greeting.
const MAX_BANNER: usize = 64 * 1024;

/// How a transport reads the end of its process: its exit status (`None` when it was killed
/// for a timeout) and the last of its stderr, into the error it means.
pub type Ended = Box<dyn Fn(Option<ExitStatus>, &str) -> TransportError + Send + Sync>;

/// `command` with its stdin, stdout and stderr piped, for [`Session::start`].
pub fn piped(command: &mut Command) -> &mut Command {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
}

/// One open conversation with a node.
pub struct NodeSession {
    peer: Arc<Mutex<Peer>>,
    /// `None` once closed (the node reads the end of its input).
    input: Option<BufWriter<Box<dyn Write + Send>>>,
    output: BufReader<Box<dyn Read + Send>>,
    stderr: Option<thread::JoinHandle<Vec<u8>>>,
    watchdog: Arc<Watchdog>,
    ended: Ended,
    /// Killed, broken or quit: never used again (a pool must not keep it).
    closed: bool,
}

/// How the start of a conversation went, up to the greeting line.
enum Greeting {
    /// The greeting came (after whatever the login shell printed).
    Found,
    /// The process or connection ended first.
    Ended,
    /// More than [`MAX_BANNER`] came without it.
    TooMuch,
}

/// What the conversation is with: a process (ssh, or this binary for a local node), or a
/// socket (a lingering session reached through a kept ssh connection).
enum Peer {
    Process(Child),
    Socket(UnixStream),
}

impl Peer {
    /// Ends it now: the process is killed, the socket shut.
    fn kill(&mut self) {
        match self {
            Peer::Process(c) => {
                let _ = c.kill();
            }
            Peer::Socket(s) => {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
        }
    }

    /// `None` while the process runs; its exit status once it ended (`Some(None)`: none to
    /// read, as for a socket).
    fn ended(&mut self) -> Option<Option<ExitStatus>> {
        match self {
            Peer::Process(c) => match c.try_wait() {
                Ok(None) => None,
                Ok(Some(status)) => Some(Some(status)),
                Err(_) => Some(None),
            },
            Peer::Socket(_) => Some(None),
        }
    }
}

/// Kills the process when the current request's deadline passes.
struct Watchdog {
    state: Mutex<WatchState>,
    wake: Condvar,
}

struct WatchState {
    deadline: Option<Instant>,
    fired: bool,
    done: bool,
}

impl Watchdog {
    fn set(&self, timeout: Option<Duration>) {
        if let Ok(mut s) = self.state.lock() {
            s.deadline = timeout.map(|t| Instant::now() + t);
            self.wake.notify_one();
        }
    }

    fn fired(&self) -> bool {
        self.state.lock().map(|s| s.fired).unwrap_or(false)
    }

    fn watch(&self, peer: &Mutex<Peer>) {
        let Ok(mut s) = self.state.lock() else { return };
        loop {
            if s.done {
                return;
            }
            match s.deadline {
                Some(d) if Instant::now() >= d => {
                    s.fired = true;
                    s.deadline = None;
                    if let Ok(mut p) = peer.lock() {
                        p.kill();
                    }
                }
                Some(d) => {
                    let wait = d.saturating_duration_since(Instant::now());
                    s = match self.wake.wait_timeout(s, wait) {
                        Ok((s, _)) => s,
                        Err(_) => return,
                    };
                }
                None => {
                    s = match self.wake.wait(s) {
                        Ok(s) => s,
                        Err(_) => return,
                    };
                }
            }
        }
    }
}

impl NodeSession {
    /// Takes over `child` (started with [`piped`] stdio) and reads the node's greeting and
    /// hello. An older node (a hello with a lower protocol, or a process that ends before its
    /// greeting) is [`TransportError::NotInstalled`] as `ended` says.
    pub fn start(mut child: Child, ended: Ended) -> Result<NodeSession, TransportError> {
        let (Some(input), Some(output), Some(err)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(TransportError::failed("its pipes could not be made"));
        };
        let stderr = thread::spawn(move || tail(err));
        NodeSession::begin(
            Peer::Process(child),
            Box::new(input),
            Box::new(output),
            Some(stderr),
            ended,
            SHORT,
        )
    }

    /// A session over `stream`, a connected socket whose other end serves sessions (a
    /// lingering one, `mesh node serve`); greeted as [`start`](Self::start) is, within
    /// `greet_within` (a server that does not answer soon is given up for a new session).
    pub fn over_socket(
        stream: UnixStream,
        ended: Ended,
        greet_within: Duration,
    ) -> Result<NodeSession, TransportError> {
        let clones = (stream.try_clone(), stream.try_clone());
        let (Ok(input), Ok(output)) = clones else {
            return Err(TransportError::failed("the socket could not be used"));
        };
        NodeSession::begin(
            Peer::Socket(stream),
            Box::new(input),
            Box::new(output),
            None,
            ended,
            greet_within,
        )
    }

    fn begin(
        peer: Peer,
        input: Box<dyn Write + Send>,
        output: Box<dyn Read + Send>,
        stderr: Option<thread::JoinHandle<Vec<u8>>>,
        ended: Ended,
        greet_within: Duration,
    ) -> Result<NodeSession, TransportError> {
        let peer = Arc::new(Mutex::new(peer));
        let watchdog = Arc::new(Watchdog {
            state: Mutex::new(WatchState {
                deadline: None,
                fired: false,
                done: false,
            }),
            wake: Condvar::new(),
        });
        {
            let (watchdog, peer) = (watchdog.clone(), peer.clone());
            thread::spawn(move || watchdog.watch(&peer));
        }
        let session = NodeSession {
            peer,
            input: Some(BufWriter::with_capacity(frame::DATA_CHUNK + 64, input)),
            output: BufReader::new(output),
            stderr,
            watchdog,
            ended,
            closed: false,
        };
        session.handshake(greet_within)
    }

    /// The greeting and the hellos: skips what a login shell printed, says which protocol
    /// this mesh speaks, and checks the node's; a node without mesh, or with an older one,
    /// is [`TransportError::not_installed`]. Bounded by `greet_within`.
    fn handshake(mut self, greet_within: Duration) -> Result<NodeSession, TransportError> {
        self.watchdog.set(Some(greet_within));
        match self.greeting() {
            Greeting::Found => {}
            // A node without mesh, or with one from before sessions: its exit says so.
            Greeting::Ended => return Err(self.broken()),
            Greeting::TooMuch => {
                self.kill();
                self.wait();
                return Err(TransportError::failed(format!(
                    "the node printed more than {} KiB before mesh answered; make the login shell of the node's ssh user quiet for commands (no output from ~/.bashrc when it is not interactive)",
                    MAX_BANNER / 1024
                )));
            }
        }
        // Written only now: a login script that reads its input cannot eat it.
        let mine = Hello {
            node: None,
            protocol: PROTOCOL,
            version: crate::node::HOST_VERSION.to_string(),
        };
        let hello = serde_json::to_vec(&mine).unwrap_or_default();
        if self
            .write(Kind::Hello, &hello)
            .and_then(|()| self.flush())
            .is_err()
        {
            return Err(self.broken());
        }
        let theirs = match frame::read(&mut self.output) {
            Ok((Kind::Hello, payload)) => serde_json::from_slice::<Hello>(&payload).ok(),
            Err(FrameError::Closed | FrameError::Io(_)) => return Err(self.broken()),
            _ => None,
        };
        self.watchdog.set(None);
        match theirs {
            Some(h) if h.protocol >= PROTOCOL => Ok(self),
            Some(h) => {
                let err = TransportError::not_installed(format!(
                    "its mesh {} speaks protocol {}, older than {PROTOCOL}",
                    h.version, h.protocol
                ));
                self.quit();
                Err(err)
            }
            None => {
                self.kill();
                self.wait();
                Err(TransportError::failed(
                    "the node's mesh did not answer as a mesh session; reinstall it (`mesh node install NODE`) and push again",
                ))
            }
        }
    }

    /// Skips what a login shell printed up to the greeting (which may follow output without a
    /// line break, such as a terminal title).
    fn greeting(&mut self) -> Greeting {
        let mut seen = 0;
        let mut line = Vec::new();
        loop {
            line.clear();
            match (&mut self.output)
                .take((MAX_BANNER - seen.min(MAX_BANNER)) as u64 + 1)
                .read_until(b'\n', &mut line)
            {
                Ok(0) | Err(_) => return Greeting::Ended,
                Ok(n) => seen += n,
            }
            if line.ends_with(frame::GREETING) {
                return Greeting::Found;
            }
            if seen > MAX_BANNER {
                return Greeting::TooMuch;
            }
        }
    }

    /// What the node holds.
    pub fn have(&mut self) -> Result<Have, TransportError> {
        let answer = self.request(Kind::Have, &[], SHORT)?;
        serde_json::from_slice(&answer).map_err(|e| {
            TransportError::failed(format!(
                "its answer to `have` is not one this mesh reads ({e})"
            ))
        })
    }

    /// Streams artifacts and an envelope (the receive stream); the node's answer.
    pub fn receive(&mut self, stream: &mut (dyn Read + Send)) -> Result<Answer, TransportError> {
        self.watchdog.set(Some(LONG));
        let Some(input) = self.input.as_mut() else {
            return Err(self.broken());
        };
        let written = frame::write(input, Kind::Receive, &[])
            .map_err(frame::StreamError::Write)
            .and_then(|()| frame::write_stream(input, stream));
        match written {
            Ok(_) => {}
            Err(frame::StreamError::Read(e)) => {
                // The local file failed: the node must never see a clean end. Killed first.
                self.kill();
                self.wait();
                return Err(TransportError::failed(format!(
                    "could not read the data to send: {e}; check the local file being sent, then push again"
                )));
            }
            Err(frame::StreamError::Write(_)) => return Err(self.broken()),
        }
        let answer = self.answer();
        self.watchdog.set(None);
        let answer = answer?;
        serde_json::from_slice::<Answer>(answer.trim_ascii()).map_err(|e| {
            TransportError::failed(format!(
                "its answer to `receive` is not one this mesh reads ({e})"
            ))
        })
    }

    /// Makes the node apply what it holds: `Ok(None)` when it applied cleanly, `Ok(Some(why))`
    /// when the apply ran and failed (its report says more).
    pub fn apply(&mut self) -> Result<Option<String>, TransportError> {
        let answer = self.request(Kind::Apply, &[], LONG)?;
        let report: Report = serde_json::from_slice(&answer).map_err(|e| {
            TransportError::failed(format!(
                "its answer to `apply` is not one this mesh reads ({e})"
            ))
        })?;
        Ok((report.outcome != crate::node::Outcome::Applied)
            .then(|| report.reason.unwrap_or_else(|| "the apply failed".into())))
    }

    /// Whom the node trusts; with `reset`, makes it forget (the next controller to declare
    /// is pinned) and says whom it trusted.
    pub fn trust(
        &mut self,
        reset: bool,
    ) -> Result<Option<crate::node::trust::Trust>, TransportError> {
        let what: &[u8] = if reset { b"reset" } else { b"show" };
        let answer = self.request(Kind::Trust, what, SHORT)?;
        serde_json::from_slice(&answer).map_err(|e| {
            TransportError::failed(format!(
                "its answer to `trust` is not one this mesh reads ({e})"
            ))
        })
    }

    /// The node's reports newer than `since`, as JSON lines: page after page, each asked from
    /// the last report of the one before.
    pub fn reports(&mut self, since: u64) -> Result<Vec<u8>, TransportError> {
        let mut all = Vec::new();
        let mut from = since;
        loop {
            let mut page = self.request(Kind::Report, from.to_string().as_bytes(), SHORT)?;
            let more = page.ends_with(frame::MORE);
            if more {
                page.truncate(page.len() - frame::MORE.len());
            }
            let last = page
                .split(|&b| b == b'\n')
                .rev()
                .find(|l| !l.is_empty())
                .and_then(|l| serde_json::from_slice::<serde_json::Value>(l).ok())
                .and_then(|v| v["report_sequence"].as_u64());
            all.extend_from_slice(&page);
            match last {
                Some(last) if more && last > from => from = last,
                _ => return Ok(all),
            }
        }
    }

    /// Whether the conversation can go on: never killed, broken or quit, and its process runs.
    pub fn is_open(&self) -> bool {
        !self.closed
            && self.input.is_some()
            && self.peer.lock().is_ok_and(|mut p| match &mut *p {
                Peer::Process(c) => matches!(c.try_wait(), Ok(None)),
                Peer::Socket(_) => true,
            })
    }

    /// Ends the conversation: the node exits once it reads `Quit` (or the end of its input).
    pub fn quit(mut self) {
        self.closed = true;
        self.watchdog.set(Some(Duration::from_secs(10)));
        let _ = self.write(Kind::Quit, &[]).and_then(|()| self.flush());
        self.input = None;
        self.wait();
    }

    fn request(
        &mut self,
        kind: Kind,
        payload: &[u8],
        timeout: Duration,
    ) -> Result<Vec<u8>, TransportError> {
        self.watchdog.set(Some(timeout));
        if self
            .write(kind, payload)
            .and_then(|()| self.flush())
            .is_err()
        {
            return Err(self.broken());
        }
        let answer = self.answer();
        self.watchdog.set(None);
        answer
    }

    /// The node's answer frame; an error frame as the error it names.
    fn answer(&mut self) -> Result<Vec<u8>, TransportError> {
        if self.flush().is_err() {
            return Err(self.broken());
        }
        match frame::read(&mut self.output) {
            Ok((Kind::Answer, payload)) => Ok(payload),
            Ok((Kind::Error, payload)) => {
                #[derive(serde::Deserialize)]
                struct Said {
                    error: String,
                    message: String,
                }
                match serde_json::from_slice::<Said>(&payload) {
                    // Its lock was held for longer than it waits: not reached this run (nothing
                    // changed there), which the next run retries.
                    Ok(s) if s.error == "busy" => Err(TransportError::unreachable(s.message)),
                    // It refused our frame and ended the conversation.
                    Ok(s) if s.error == "frame" => {
                        self.closed = true;
                        Err(TransportError::failed(format!(
                            "the node's mesh refused what this mesh sent ({}); reinstall it (`mesh node install NODE`) and push again",
                            s.message
                        )))
                    }
                    Ok(s) => Err(TransportError::failed(format!(
                        "the node's mesh: {}",
                        s.message
                    ))),
                    Err(_) => Err(TransportError::failed(
                        "the node answered an error that is not JSON",
                    )),
                }
            }
            Ok((kind, _)) => {
                self.kill();
                Err(TransportError::failed(format!(
                    "the node answered a {kind:?} frame: not a mesh session"
                )))
            }
            Err(FrameError::Garbage(why)) => {
                self.kill();
                Err(TransportError::failed(format!(
                    "the node's answer is not a mesh session frame: {why}"
                )))
            }
            Err(_) => Err(self.broken()),
        }
    }

    fn write(&mut self, kind: Kind, payload: &[u8]) -> std::io::Result<()> {
        match self.input.as_mut() {
            Some(input) => frame::write(input, kind, payload),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.input.as_mut() {
            Some(input) => input.flush(),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn kill(&mut self) {
        self.closed = true;
        if let Ok(mut p) = self.peer.lock() {
            p.kill();
        }
    }

    /// The conversation broke: wait for the process, and say what its end means.
    fn broken(&mut self) -> TransportError {
        self.closed = true;
        self.watchdog.set(Some(Duration::from_secs(10)));
        let status = self.wait();
        let fired = self.watchdog.fired();
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        let stderr = String::from_utf8_lossy(&stderr);
        if fired {
            return (self.ended)(None, &stderr);
        }
        (self.ended)(status, &stderr)
    }

    /// Waits for the process to exit (the watchdog kills it at the deadline set).
    fn wait(&mut self) -> Option<ExitStatus> {
        let status = loop {
            let ended = match self.peer.lock() {
                Ok(mut p) => p.ended(),
                Err(_) => break None,
            };
            match ended {
                Some(status) => break status,
                None => thread::sleep(Duration::from_millis(2)),
            }
        };
        if let Ok(mut s) = self.watchdog.state.lock() {
            s.done = true;
            self.watchdog.wake.notify_one();
        }
        status
    }
}

impl Drop for NodeSession {
    fn drop(&mut self) {
        // A session dropped without `quit` (a panic, an early return): never leave the process.
        let running = self
            .peer
            .lock()
            .map(|mut p| p.ended().is_none())
            .unwrap_or(false);
        if running {
            self.kill();
            self.wait();
        }
        if let Ok(mut s) = self.watchdog.state.lock() {
            s.done = true;
            self.watchdog.wake.notify_one();
        }
    }
}

/// The last 64 KiB of a pipe, read until it ends.
fn tail(mut pipe: impl Read) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) | Err(_) => return out,
            Ok(n) => {
                out.extend_from_slice(&buf[..n]);
                if out.len() > 64 * 1024 {
                    out.drain(..out.len() - 64 * 1024);
                }
            }
        }
    }
}
