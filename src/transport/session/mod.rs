//! The controller's half of `mesh node session`: one process on the node (through ssh, or a
//! child for a local node) for every request of a run (see [`mesh_proto::frame`]).
//!
//! Nothing waits forever. Every request has two deadlines: the node must show progress (a
//! whole frame, or [`PROGRESS_STEP`] bytes of one, either way) within `[ssh] timeout` of the
//! last progress (so a silence is given up after exactly the time its reason names), and the
//! whole request must end within its total (4 times that for the short ones, [`LONG`] for a
//! receive or an apply, where a node that works says it is alive). When one passes, the process
//! is killed and its sockets shut, so no reader stays blocked, and the node is unreachable for
//! this run with the reason. Every answer has a size cap past which it is refused unread.
//!
//! When the conversation breaks (the process or the connection died), the error is what the
//! process's exit says: ssh's exit 255 is read by the ssh side (unreachable, refused key...), an
//! exit before the greeting means the node's mesh is missing or older.

use super::{Answer, ReportLine, TransportError};
use mesh_node::{Have, Hello};
use mesh_proto::PROTOCOL;
use mesh_proto::frame::{self, FrameError, Kind};
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use watchdog::{Counted, Fired, Watchdog};

mod watchdog;
use std::time::{Duration, Instant};

/// How long a receive (artifacts on the wire) or an apply (activate commands) may take in all.
pub(crate) const LONG: Duration = Duration::from_secs(30 * 60);

/// How many bytes count as progress when no whole frame moved: a node trickling its answer a
/// byte at a time is as stuck as a silent one.
pub(crate) const PROGRESS_STEP: u64 = 64 * 1024;

/// The most bytes a login shell may print before the greeting.
const MAX_BANNER: usize = 64 * 1024;

/// The longest hello a node may send (a protocol number and a version).
pub(crate) const MAX_HELLO: u32 = 64 * 1024;
/// The longest error frame (a kind and a message).
pub(crate) const MAX_ERROR: u32 = 64 * 1024;
/// The longest answer to a receive (a digest and a sequence, or a refusal's reason).
pub(crate) const MAX_RECEIVED: u32 = 64 * 1024;
/// The longest answer to an apply (one report).
pub(crate) const MAX_APPLIED: u32 = frame::REPORT_PAGE as u32;
/// The most bytes of reports one collect reads, over all pages: a node's journal holds at most
/// 100 reports, far less than this; a node that keeps sending pages is refused past it.
pub(crate) const MAX_REPORTS: usize = 64 * 1024 * 1024;

/// The longest reason from a node that is kept (a refusal, a failed apply, an error message).
pub(crate) const MAX_REASON: usize = 4 * 1024;
/// The longest version string from a node that is kept.
pub(crate) const MAX_VERSION: usize = 64;

/// How a transport reads the end of its process: its exit status (`None` when there is none
/// to read) and the last of its stderr, into the error it means.
pub type Ended = Box<dyn Fn(Option<ExitStatus>, &str) -> TransportError + Send + Sync>;

/// How long a node may take: to greet after its process started or its socket connected
/// (`connect`, then `quiet` more), and between two signs of progress after that (`quiet`,
/// `[ssh] timeout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patience {
    /// What connecting may take before the node has to answer (`[ssh] connect_timeout`).
    pub connect: Duration,
    /// How long the node may stay silent (`[ssh] timeout`).
    pub quiet: Duration,
}

impl Patience {
    /// The patience of a run with these settings.
    pub fn new(connect: Duration, quiet: Duration) -> Patience {
        Patience { connect, quiet }
    }

    /// How long a short request (hello, have, a page of reports) may take in all, however
    /// steadily the node answers.
    pub fn short(&self) -> Duration {
        self.quiet * 4
    }
}

/// One open conversation with a node.
pub struct NodeSession {
    peer: Arc<Mutex<Peer>>,
    /// `None` once closed (the node reads the end of its input).
    input: Option<BufWriter<Counted<Box<dyn Write + Send>>>>,
    output: BufReader<Counted<Box<dyn Read + Send>>>,
    stderr: Option<thread::JoinHandle<Vec<u8>>>,
    watchdog: Arc<Watchdog>,
    ended: Ended,
    patience: Patience,
    /// What the node was asked last, for the reason a timeout gives ("after connecting").
    doing: &'static str,
    /// A lingering session reached through a kept connection, not a process started now.
    lingering: bool,
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

/// What the conversation is with: a process (ssh, or this binary for a local node) and our
/// ends of the sockets that are its stdio, or a socket (a lingering session reached through a
/// kept ssh connection).
enum Peer {
    Process(Child, Vec<UnixStream>),
    Socket(UnixStream),
}

impl Peer {
    /// Ends it now: the process is killed and our ends of its sockets shut, the socket shut,
    /// so that a thread blocked reading or writing returns at once (an ssh control master may
    /// hold the other ends open long after its client died).
    fn kill(&mut self) {
        match self {
            Peer::Process(c, ends) => {
                let _ = c.kill();
                for end in ends {
                    let _ = end.shutdown(std::net::Shutdown::Both);
                }
            }
            Peer::Socket(s) => {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
        }
    }

    /// Ends what we send: the node reads the end of its input (our kept ends would otherwise
    /// hold it open after the writer is dropped).
    fn end_input(&mut self) {
        let input = match self {
            Peer::Process(_, ends) => ends.first(),
            Peer::Socket(s) => Some(&*s),
        };
        if let Some(input) = input {
            let _ = input.shutdown(std::net::Shutdown::Write);
        }
    }

    /// `None` while the process runs; its exit status once it ended (`Some(None)`: none to
    /// read, as for a socket).
    fn ended(&mut self) -> Option<Option<ExitStatus>> {
        match self {
            Peer::Process(c, _) => match c.try_wait() {
                Ok(None) => None,
                Ok(Some(status)) => Some(Some(status)),
                Err(_) => Some(None),
            },
            Peer::Socket(_) => Some(None),
        }
    }
}

/// Our ends of a child's stdio: sockets rather than pipes, so that a deadline can shut them
/// and wake whatever reads or writes them.
struct Ends {
    input: UnixStream,
    output: UnixStream,
    stderr: UnixStream,
}

/// Gives `command` sockets for stdin, stdout and stderr; our ends.
fn attach(command: &mut Command) -> std::io::Result<Ends> {
    let (input, theirs_in) = UnixStream::pair()?;
    let (output, theirs_out) = UnixStream::pair()?;
    let (stderr, theirs_err) = UnixStream::pair()?;
    command
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs_in)))
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(theirs_out)))
        .stderr(Stdio::from(std::os::fd::OwnedFd::from(theirs_err)));
    Ok(Ends {
        input,
        output,
        stderr,
    })
}

impl NodeSession {
    /// Starts `command` (its stdio left unset) as the node's session and reads the node's
    /// greeting and hello. An older node (a hello with a lower protocol, or a process that ends
    /// before its greeting) is [`TransportError::NotInstalled`] as `ended` says; a process that
    /// cannot start is what `spawn_failed` makes of it.
    pub fn spawn(
        mut command: Command,
        ended: Ended,
        patience: Patience,
        spawn_failed: impl FnOnce(std::io::Error) -> TransportError,
    ) -> Result<NodeSession, TransportError> {
        let ends = match attach(&mut command) {
            Ok(ends) => ends,
            Err(e) => {
                return Err(
                    TransportError::failed(format!("its sockets could not be made: {e}"))
                        .caused_by(e),
                );
            }
        };
        let child = command.spawn();
        // The child's ends live in `command` until it is dropped: only the child may hold them,
        // or its end would never read as the end.
        drop(command);
        let mut child = child.map_err(spawn_failed)?;
        // In this order: [`Peer::end_input`] shuts the first.
        let kept = match [&ends.input, &ends.output, &ends.stderr]
            .iter()
            .map(|e| e.try_clone())
            .collect::<std::io::Result<Vec<_>>>()
        {
            Ok(kept) => kept,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(
                    TransportError::failed(format!("its sockets could not be used: {e}"))
                        .caused_by(e),
                );
            }
        };
        let Ends {
            input,
            output,
            stderr,
        } = ends;
        let stderr = thread::spawn(move || tail(stderr));
        NodeSession::begin(
            Peer::Process(child, kept),
            Box::new(input),
            Box::new(output),
            Some(stderr),
            ended,
            patience,
        )
    }

    /// A session over `stream`, a connected socket whose other end serves sessions (a
    /// lingering one, `mesh node serve`); greeted as [`spawn`](Self::spawn) is, within
    /// `[ssh] timeout` alone since its connection is already made (a server that does not
    /// answer by then is given up for a new session).
    pub(crate) fn over_socket(
        stream: UnixStream,
        ended: Ended,
        patience: Patience,
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
            patience,
        )
    }

    fn begin(
        peer: Peer,
        input: Box<dyn Write + Send>,
        output: Box<dyn Read + Send>,
        stderr: Option<thread::JoinHandle<Vec<u8>>>,
        ended: Ended,
        patience: Patience,
    ) -> Result<NodeSession, TransportError> {
        let lingering = matches!(peer, Peer::Socket(_));
        let peer = Arc::new(Mutex::new(peer));
        let watchdog = Arc::new(Watchdog::new());
        {
            let (watchdog, peer) = (watchdog.clone(), peer.clone());
            thread::spawn(move || watchdog.watch(&peer));
        }
        let counted = |inner| Counted {
            inner,
            watchdog: watchdog.clone(),
        };
        let session = NodeSession {
            input: Some(BufWriter::with_capacity(
                frame::DATA_CHUNK + 64,
                Counted {
                    inner: input,
                    watchdog: watchdog.clone(),
                },
            )),
            output: BufReader::new(counted(output)),
            peer,
            stderr,
            watchdog,
            ended,
            patience,
            doing: if lingering {
                "after connecting to its lingering session"
            } else {
                "since it was started (connecting included)"
            },
            lingering,
            closed: false,
        };
        session.handshake()
    }

    /// The greeting and the hellos: skips what a login shell printed, says which protocol
    /// this mesh speaks, and checks the node's; a node without mesh, or with an older one,
    /// is [`TransportError::not_installed`]. The node has what connecting takes, then
    /// `[ssh] timeout`, to greet.
    fn handshake(mut self) -> Result<NodeSession, TransportError> {
        let Patience { connect, quiet } = self.patience;
        // A lingering session is reached through a connection already made: it greets at
        // once, or it is stopped or stuck, and is given `quiet`, not connecting time too.
        let first = if self.lingering {
            quiet
        } else {
            connect + quiet
        };
        self.watchdog
            .arm(first, quiet, first + self.patience.short());
        match self.greeting() {
            Greeting::Found => self.doing = "after connecting",
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
            age: None,
            protocol: PROTOCOL,
            version: mesh_node::HOST_VERSION.to_string(),
            // Signs of life while it works, several within the quiet time.
            alive_every_ms: Some((quiet.as_millis() / 4).clamp(50, 10_000) as u64),
        };
        let hello = serde_json::to_vec(&mine).unwrap_or_default();
        if self
            .write(Kind::Hello, &hello)
            .and_then(|()| self.flush())
            .is_err()
        {
            return Err(self.broken());
        }
        let theirs = match self.frame(MAX_HELLO) {
            Ok((Kind::Hello, payload)) => serde_json::from_slice::<Hello>(&payload).ok(),
            Err(FrameError::Closed | FrameError::Io(_)) => return Err(self.broken()),
            _ => None,
        };
        self.watchdog.disarm();
        match theirs {
            Some(h) if h.protocol >= PROTOCOL => Ok(self),
            Some(h) => {
                let err = TransportError::not_installed(format!(
                    "its mesh {} speaks protocol {}, older than {PROTOCOL}",
                    super::from_node_line(&h.version, MAX_VERSION),
                    h.protocol
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
                self.watchdog.frame();
                return Greeting::Found;
            }
            if seen > MAX_BANNER {
                return Greeting::TooMuch;
            }
        }
    }

    /// What the node holds (its version made printable).
    pub fn have(&mut self) -> Result<Have, TransportError> {
        let answer = self.request(Kind::Have, &[], frame::MAX_FRAME, "to `have`")?;
        let mut have: Have = serde_json::from_slice(&answer).map_err(|e| {
            TransportError::failed(format!(
                "its answer to `have` is not one this mesh reads ({e})"
            ))
        })?;
        have.version = super::from_node_line(&have.version, MAX_VERSION);
        Ok(have)
    }

    /// Streams artifacts and an envelope (the receive stream); the node's answer (a refusal's
    /// reason made printable).
    pub fn receive(&mut self, stream: &mut (dyn Read + Send)) -> Result<Answer, TransportError> {
        self.doing = "while receiving";
        let quiet = self.patience.quiet;
        self.watchdog.arm(quiet, quiet, LONG);
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
        let answer = self.answer(MAX_RECEIVED);
        self.watchdog.disarm();
        let answer = answer?;
        match serde_json::from_slice::<Answer>(answer.trim_ascii()) {
            Ok(Answer::Refused { refused }) => Ok(Answer::Refused {
                refused: super::from_node(&refused, MAX_REASON),
            }),
            Ok(Answer::Untrusted { untrusted }) => Ok(Answer::Untrusted {
                untrusted: super::from_node(&untrusted, MAX_REASON),
            }),
            Ok(received) => Ok(received),
            Err(e) => Err(TransportError::failed(format!(
                "its answer to `receive` is not one this mesh reads ({e})"
            ))),
        }
    }

    /// Makes the node apply what it holds; its report of the apply (applied or failed), read
    /// as every report is ([`ReportLine`]).
    pub fn apply(&mut self) -> Result<mesh_node::Report, TransportError> {
        let answer = self.request(Kind::Apply, &[], MAX_APPLIED, "to `apply`")?;
        ReportLine::read(answer.trim_ascii()).report.map_err(|e| {
            TransportError::failed(format!(
                "its answer to `apply` is not one this mesh reads ({e})"
            ))
        })
    }

    /// Makes the node run its modules' checks now, so that its reports end with whether what
    /// it runs works; the `checked` report it appended (none when no module it runs has a
    /// check), which the journal carries too.
    pub fn check(&mut self) -> Result<Option<mesh_node::Report>, TransportError> {
        let answer = self.request(Kind::Check, &[], MAX_APPLIED, "to `check`")?;
        let answer = answer.trim_ascii();
        if answer == b"null" {
            return Ok(None);
        }
        ReportLine::read(answer).report.map(Some).map_err(|e| {
            TransportError::failed(format!(
                "its answer to `check` is not one this mesh reads ({e})"
            ))
        })
    }

    /// Asks the node to run a module's `provide` for a consumer, or hand back the credentials
    /// it made before: encrypted to the request's recipients.
    pub fn provide(
        &mut self,
        request: &mesh_node::ProvideRequest,
    ) -> Result<mesh_node::Made, TransportError> {
        let payload = serde_json::to_vec(request).unwrap_or_default();
        let answer = self.request(Kind::Provide, &payload, frame::MAX_FRAME, "to `provide`")?;
        serde_json::from_slice(&answer).map_err(|e| {
            TransportError::failed(format!(
                "its answer to `provide` is not one this mesh reads ({e})"
            ))
        })
    }

    /// Whom the node trusts; with `reset`, makes it forget (the next controller to declare
    /// is pinned) and says whom it trusted.
    pub fn trust(
        &mut self,
        reset: bool,
    ) -> Result<Option<mesh_node::trust::Trust>, TransportError> {
        let what: &[u8] = if reset { b"reset" } else { b"show" };
        let answer = self.request(Kind::Trust, what, frame::MAX_FRAME, "to `trust`")?;
        serde_json::from_slice(&answer).map_err(|e| {
            TransportError::failed(format!(
                "its answer to `trust` is not one this mesh reads ({e})"
            ))
        })
    }

    /// The node's reports newer than `since`, each read once ([`ReportLine`]): page after
    /// page, each asked from the last report of the one before, at most [`MAX_REPORTS`] bytes
    /// in all.
    pub fn reports(&mut self, since: u64) -> Result<Vec<ReportLine>, TransportError> {
        self.reports_within(since, MAX_REPORTS)
    }

    /// [`reports`](Self::reports), at most `cap` bytes in all.
    fn reports_within(
        &mut self,
        since: u64,
        cap: usize,
    ) -> Result<Vec<ReportLine>, TransportError> {
        let mut all = Vec::new();
        let mut bytes = 0;
        let mut from = since;
        loop {
            let mut page = self.request(
                Kind::Report,
                from.to_string().as_bytes(),
                frame::MAX_FRAME,
                "to `report`",
            )?;
            let more = page.ends_with(frame::MORE);
            if more {
                page.truncate(page.len() - frame::MORE.len());
            }
            if bytes + page.len() > cap {
                self.kill();
                self.wait();
                return Err(TransportError::failed(format!(
                    "its reports came to more than {} KiB, more than a node's journal holds: refused; check the node's mesh (`mesh node install NODE` puts this one there)",
                    cap / 1024
                )));
            }
            bytes += page.len();
            let lines = ReportLine::read_all(&page);
            let last = lines.last().map(|l| l.sequence).filter(|&s| s > 0);
            all.extend(lines);
            match last {
                Some(last) if more && last > from => from = last,
                _ => return Ok(all),
            }
        }
    }

    /// Whether the conversation can go on: never killed, broken or quit, its process runs, and
    /// its socket was not closed by the other end (a lingering session closes a connection
    /// that stayed silent for as long as it waits).
    pub(crate) fn is_open(&self) -> bool {
        !self.closed
            && self.input.is_some()
            && self.peer.lock().is_ok_and(|mut p| match &mut *p {
                Peer::Process(c, _) => matches!(c.try_wait(), Ok(None)),
                Peer::Socket(s) => !closed_by_peer(s),
            })
    }

    /// Ends the conversation: the node exits once it reads `Quit` (or the end of its input).
    pub fn quit(mut self) {
        self.closed = true;
        let quiet = self.patience.quiet;
        self.watchdog.arm(quiet, quiet, quiet);
        let _ = self.write(Kind::Quit, &[]).and_then(|()| self.flush());
        self.input = None;
        if let Ok(mut p) = self.peer.lock() {
            p.end_input();
        }
        self.wait();
    }

    fn request(
        &mut self,
        kind: Kind,
        payload: &[u8],
        cap: u32,
        doing: &'static str,
    ) -> Result<Vec<u8>, TransportError> {
        self.doing = doing;
        let quiet = self.patience.quiet;
        let total = match kind {
            Kind::Apply | Kind::Check | Kind::Provide => LONG,
            _ => self.patience.short(),
        };
        self.watchdog.arm(quiet, quiet, total);
        if self
            .write(kind, payload)
            .and_then(|()| self.flush())
            .is_err()
        {
            return Err(self.broken());
        }
        let answer = self.answer(cap);
        self.watchdog.disarm();
        answer
    }

    /// One frame from the node, refused unread when longer than `cap` (an error frame: longer
    /// than [`MAX_ERROR`]).
    fn frame(&mut self, cap: u32) -> Result<(Kind, Vec<u8>), FrameError> {
        let (kind, len) = frame::head(&mut self.output)?;
        let cap = match kind {
            Kind::Error => MAX_ERROR,
            Kind::Alive => 0,
            _ => cap,
        };
        if len > cap {
            return Err(FrameError::Garbage(format!(
                "a {kind:?} frame of {len} bytes, more than the {cap} this answer may have"
            )));
        }
        let payload = frame::payload(&mut self.output, len)?;
        self.watchdog.frame();
        Ok((kind, payload))
    }

    /// The node's answer frame (no longer than `cap`), after the signs of life it sent while
    /// working; an error frame as the error it names.
    fn answer(&mut self, cap: u32) -> Result<Vec<u8>, TransportError> {
        if self.flush().is_err() {
            return Err(self.broken());
        }
        let read = loop {
            match self.frame(cap) {
                Ok((Kind::Alive, _)) => continue,
                read => break read,
            }
        };
        match read {
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
                    Ok(s) if s.error == "busy" => Err(TransportError::unreachable(
                        super::from_node_line(&s.message, MAX_REASON),
                    )),
                    // It refused our frame and ended the conversation.
                    Ok(s) if s.error == "frame" => {
                        self.closed = true;
                        Err(TransportError::failed(format!(
                            "the node's mesh refused what this mesh sent ({}); reinstall it (`mesh node install NODE`) and push again",
                            super::from_node_line(&s.message, MAX_REASON)
                        )))
                    }
                    Ok(s) => Err(TransportError::failed(format!(
                        "the node's mesh: {}",
                        super::from_node(&s.message, MAX_REASON)
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
                self.wait();
                Err(TransportError::failed(format!(
                    "the node's answer is refused: {why}; check the node's mesh (`mesh node install NODE` puts this one there)"
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

    /// The conversation broke: wait for the process, and say what its end means (a deadline
    /// that passed: the node is unreachable this run, with how long it was silent).
    fn broken(&mut self) -> TransportError {
        self.closed = true;
        let quiet = self.patience.quiet;
        self.watchdog.arm(quiet, quiet, quiet);
        let status = self.wait();
        let fired = self.watchdog.fired();
        let stderr = self.stderr_tail();
        match fired {
            Some(Fired::Silent(after)) => TransportError::unreachable(format!(
                "no answer for {} {}; the node, its disk or the network is stuck: check the node (the next run tries again)",
                humantime::format_duration(after),
                self.doing
            )),
            Some(Fired::Overall(total)) => TransportError::unreachable(format!(
                "no whole answer within {} {}; the node is stuck or far too slow: check the node (the next run tries again)",
                humantime::format_duration(total),
                self.doing
            )),
            None => (self.ended)(status, &stderr),
        }
    }

    /// What the process wrote to stderr, made printable; given up after a moment when
    /// something still holds it open (its ends are shut once the process is killed).
    fn stderr_tail(&mut self) -> String {
        let Some(reader) = self.stderr.take() else {
            return String::new();
        };
        let until = Instant::now() + Duration::from_secs(2);
        while !reader.is_finished() && Instant::now() < until {
            thread::sleep(Duration::from_millis(2));
        }
        if !reader.is_finished() {
            if let Ok(mut p) = self.peer.lock() {
                p.kill();
            }
            return String::new();
        }
        let bytes = reader.join().unwrap_or_default();
        super::from_node(&String::from_utf8_lossy(&bytes), 64 * 1024)
    }

    /// Waits for the process to exit (the watchdog kills it at the deadline armed).
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
        self.watchdog.stop();
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
        self.watchdog.stop();
    }
}

/// Whether the other end closed `socket` (or sent something no one asked for): a look that
/// neither waits nor takes anything.
fn closed_by_peer(socket: &UnixStream) -> bool {
    use std::os::fd::AsRawFd;
    let mut byte = 0u8;
    // SAFETY: recv into one valid byte of ours, on a descriptor this stream owns.
    let n = unsafe {
        libc::recv(
            socket.as_raw_fd(),
            (&raw mut byte).cast(),
            1,
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        )
    };
    match n {
        0 => true,
        n if n > 0 => true,
        _ => {
            let e = std::io::Error::last_os_error();
            !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
            )
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

#[cfg(test)]
mod tests;
