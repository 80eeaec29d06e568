//! `mesh node session`: the whole node protocol over one conversation (see [`mesh_proto::frame`]),
//! so the controller pays for one remote process per node per run: one ssh command, one login
//! shell, however many requests.
//!
//! Each request does what the single-command verb does (`have`, `receive`, `apply`, `report`;
//! `check` runs the modules' checks, as `report` does first),
//! with the same locks, files and reports; a cut conversation is a cut stream to `receive`, so
//! the declaration in force is never replaced by a partial one.

use std::io::{BufRead, BufReader, Write};

use serde::{Deserialize, Serialize};

use super::{HOST_VERSION, NodeError, PROTOCOL, Root};
use mesh_proto::frame::{self, FrameError, Kind};

/// What each side says first: the protocol it speaks and its binary's version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The node protocol version ([`PROTOCOL`]).
    pub protocol: u32,
    /// The mesh version of the binary.
    pub version: String,
    /// The node's id (a node's hello only): one root, one id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The node's age recipient (a node's hello only): what its secrets are encrypted to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age: Option<String>,
    /// The controller's: how often, in milliseconds, it wants an `Alive` frame while a request
    /// works (an apply), so that its deadline counts silence and not work. Absent: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alive_every_ms: Option<u64>,
}

/// The oldest controller protocol a session serves: the first with sessions.
pub const SESSION_SINCE: u32 = 2;

/// Serves one conversation on `input`/`output` until the controller quits or goes away.
///
/// `Err` only when the conversation itself broke (a garbage frame, which is answered with an
/// `Error` frame first, or a failed write): every failure of a request is answered and the
/// conversation goes on.
pub fn session(
    root: &Root,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> Result<(), NodeError> {
    let hello = Hello {
        protocol: PROTOCOL,
        version: HOST_VERSION.to_string(),
        // First contact makes the id (and the root); a root that cannot hold one still
        // serves, and `have` says it has none.
        node: super::node_id(root, true).ok().flatten(),
        // Made with the id: the key its secrets are encrypted to.
        age: super::secrets::recipient(root, true).ok().flatten(),
        alive_every_ms: None,
    };
    // How often the controller wants signs of life while a request works.
    let mut alive_every = None;
    let answer_failed = |source| NodeError::Answer { source };
    output.write_all(frame::GREETING).map_err(answer_failed)?;
    send(output, Kind::Hello, &json(&hello))?;
    loop {
        let (kind, len) = match frame::head(input) {
            Ok(h) => h,
            // The controller went away between requests: nothing was half done.
            Err(FrameError::Closed) => return Ok(()),
            Err(FrameError::Io(e)) => return Err(cut(e.to_string())),
            Err(e @ FrameError::Garbage(_)) => return refuse_frame(output, e.to_string()),
        };
        match kind {
            Kind::Hello => {
                let theirs = frame::payload(input, len).map_err(|e| cut(e.to_string()))?;
                match alive_asked(&theirs) {
                    Ok(every) => alive_every = every,
                    Err(refusal) => return refuse_frame(output, refusal),
                }
            }
            Kind::Have => {
                skip(input, len)?;
                let answer = super::have(root).map(|h| json(&h));
                reply(output, answer)?;
            }
            Kind::Receive => {
                skip(input, len)?;
                receive(root, input, output)?;
            }
            Kind::Apply => {
                skip(input, len)?;
                let answer =
                    alive_while(output, alive_every, || super::apply(root).map(|r| json(&r)))?;
                reply(output, answer)?;
            }
            Kind::Check => {
                skip(input, len)?;
                let answer =
                    alive_while(output, alive_every, || super::check(root).map(|r| json(&r)))?;
                reply(output, answer)?;
            }
            Kind::Provide => {
                let request = frame::payload(input, len).map_err(|e| cut(e.to_string()))?;
                let Ok(request) = serde_json::from_slice::<super::ProvideRequest>(&request) else {
                    return refuse_frame(output, "a provide request that is not one".into());
                };
                let answer = alive_while(output, alive_every, || {
                    super::provide(root, &request).map(|m| json(&m))
                })?;
                reply(output, answer)?;
            }
            Kind::Report => report(root, input, len, output)?,
            Kind::Trust => trust(root, input, len, output)?,
            Kind::Quit => return Ok(()),
            Kind::Data | Kind::End | Kind::Answer | Kind::Error | Kind::Alive => {
                return refuse_frame(output, format!("a {kind:?} frame out of place"));
            }
        }
    }
}

/// A report request: the page of report lines after the sequence its payload names; a payload
/// that names none ends the conversation, as a frame it cannot read.
fn report(
    root: &Root,
    input: &mut impl BufRead,
    len: u32,
    output: &mut impl Write,
) -> Result<(), NodeError> {
    let since = frame::payload(input, len).map_err(|e| cut(e.to_string()))?;
    let Some(since) = std::str::from_utf8(&since)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    else {
        return refuse_frame(output, "a report request without a sequence".into());
    };
    let mut lines = Vec::new();
    let answer = super::reports_since(root, since, &mut lines).map(|_| page(lines));
    reply(output, answer)
}

/// A trust request: `show` whom the node trusts, or `reset` it; anything else ends the
/// conversation, as a frame it cannot read.
fn trust(
    root: &Root,
    input: &mut impl BufRead,
    len: u32,
    output: &mut impl Write,
) -> Result<(), NodeError> {
    let what = frame::payload(input, len).map_err(|e| cut(e.to_string()))?;
    let answer = match &what[..] {
        b"show" => super::trust::trusted(root),
        b"reset" => super::trust::reset(root),
        _ => {
            return refuse_frame(output, "a trust request other than show or reset".into());
        }
    };
    reply(output, answer.map(|t| json(&t)))
}

/// How often the controller's hello asks for signs of life while a request works; why the
/// hello is refused (a protocol older than sessions, not JSON).
fn alive_asked(theirs: &[u8]) -> Result<Option<std::time::Duration>, String> {
    match serde_json::from_slice::<Hello>(theirs) {
        Ok(h) if h.protocol >= SESSION_SINCE => Ok(h
            .alive_every_ms
            .map(|ms| std::time::Duration::from_millis(ms.max(10)))),
        Ok(h) => Err(format!(
            "the controller speaks protocol {}, older than sessions ({SESSION_SINCE})",
            h.protocol
        )),
        Err(e) => Err(format!("a hello that is not JSON: {e}")),
    }
}

/// Runs `work` while an `Alive` frame goes out every `every` (when the controller asked for
/// them): its deadline counts silence, and an apply whose `activate` runs long is not silent.
fn alive_while<T: Send>(
    output: &mut impl Write,
    every: Option<std::time::Duration>,
    work: impl FnOnce() -> T + Send,
) -> Result<T, NodeError> {
    let Some(every) = every else {
        return Ok(work());
    };
    std::thread::scope(|s| {
        let (done, finished) = std::sync::mpsc::channel();
        s.spawn(move || {
            let _ = done.send(work());
        });
        let mut gone = None;
        loop {
            match finished.recv_timeout(every) {
                Ok(result) => return gone.map_or(Ok(result), Err),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) if gone.is_none() => {
                    // The controller went away: the work still finishes, unwatched.
                    gone = send(output, Kind::Alive, &[]).err();
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(gone.unwrap_or(NodeError::Session {
                        reason: "the work of a request ended without an answer".into(),
                    }));
                }
            }
        }
    })
}

/// A receive: the stream in the `Data` frames, read to its `End` whatever happened, then one
/// answer.
fn receive(
    root: &Root,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> Result<(), NodeError> {
    let mut data = frame::Data::new(input);
    let mut answer = Vec::new();
    let received = {
        let mut stream = BufReader::new(&mut data);
        super::receive(root, &mut stream, &mut answer)
    };
    if let Err(why) = data.finish() {
        // The conversation broke inside the stream: no answer can reach anyone.
        return Err(cut(why));
    }
    match received {
        // A refusal was answered by `receive` itself, as it answers on stdout.
        Ok(_) | Err(NodeError::Refused { .. } | NodeError::Untrusted { .. }) => {
            send(output, Kind::Answer, &answer)
        }
        Err(e) => reply(output, Err(e)),
    }
}

/// The first [`frame::REPORT_PAGE`] bytes of report lines (whole lines, at least one), and
/// [`frame::MORE`] after them when some were left out.
pub(super) fn page(mut lines: Vec<u8>) -> Vec<u8> {
    if lines.len() <= frame::REPORT_PAGE {
        return lines;
    }
    let mut end = 0;
    for (i, b) in lines.iter().enumerate() {
        if *b == b'\n' {
            if i + 1 > frame::REPORT_PAGE && end > 0 {
                break;
            }
            end = i + 1;
        }
    }
    lines.truncate(end);
    lines.extend_from_slice(frame::MORE);
    lines
}

/// The answer to a request, or the error frame for its failure.
fn reply(output: &mut impl Write, answer: Result<Vec<u8>, NodeError>) -> Result<(), NodeError> {
    match answer {
        Ok(bytes) => send(output, Kind::Answer, &bytes),
        Err(e) => {
            let kind = match e {
                NodeError::Busy { .. } => "busy",
                _ => "failed",
            };
            // The node's sentence and what to do, as `mesh node …` says them on a terminal.
            let message = match miette::Diagnostic::help(&e) {
                Some(help) => format!("{e}; {help}"),
                None => e.to_string(),
            };
            let error = serde_json::json!({"error": kind, "message": message});
            send(output, Kind::Error, error.to_string().as_bytes())
        }
    }
}

/// Answers a frame it cannot read, then ends the conversation.
fn refuse_frame(output: &mut impl Write, why: String) -> Result<(), NodeError> {
    let error = serde_json::json!({"error": "frame", "message": why});
    let _ = send(output, Kind::Error, error.to_string().as_bytes());
    Err(NodeError::Session { reason: why })
}

fn send(output: &mut impl Write, kind: Kind, payload: &[u8]) -> Result<(), NodeError> {
    frame::write(output, kind, payload)
        .and_then(|()| output.flush())
        .map_err(|source| NodeError::Answer { source })
}

/// Reads and drops a payload the request does not use.
fn skip(input: &mut impl BufRead, len: u32) -> Result<(), NodeError> {
    frame::payload(input, len)
        .map(drop)
        .map_err(|e| cut(e.to_string()))
}

fn cut(reason: String) -> NodeError {
    NodeError::Cut { reason }
}

fn json(value: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}
