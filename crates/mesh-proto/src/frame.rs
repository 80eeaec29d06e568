//! The frames of `mesh node session`: one conversation between the controller and a node over
//! one stdin/stdout pair, spoken by both halves.
//!
//! The node opens with the line [`GREETING`] (anything a login shell printed before it is
//! skipped by the controller), then every message is a frame: one kind byte, a big-endian u32
//! payload length, the payload. A frame of a kind the reader does not know, or longer than
//! [`MAX_FRAME`], is refused and the conversation ends: nothing after it can be trusted.
//!
//! ```text
//! controller → node                     node → controller
//! Hello {"protocol":N,"version":V}      Hello {"protocol":min,"version":V}
//! Have                                  Answer: the Have JSON
//! Receive, Data…, End                   Answer: {"received":…} or {"refused":…}
//! Apply                                 Alive… (while it works), Answer: the report JSON
//! Report "N" (since)                    Answer: the reports, JSON lines (a page: see MORE)
//! Check                                 Answer: the `checked` report JSON, or nothing
//! Provide {"provider","consumer","as",…} Answer: {"sealed":hex,"ran":bool}
//! Quit                                  (exit 0)
//!                                       Error {"error":"busy"|"failed"|"frame","message":…}
//! ```
//!
//! A receive's `Data` frames carry the receive stream of `mesh node receive` (its own lengths,
//! digests and `end` line), so a cut at any frame boundary is a truncated stream to the node.

use std::io::{self, Read, Write};

/// The line a node writes before its first frame.
pub const GREETING: &[u8] = b"mesh-session\n";

/// The longest payload a frame may carry: a declaration envelope (16 MiB at most) and a little.
pub const MAX_FRAME: u32 = 17 * 1024 * 1024;

/// The most bytes of reports one `Report` answer carries (whole lines); when more were held,
/// the answer ends with [`MORE`] and the controller asks again from the last one it got.
pub const REPORT_PAGE: usize = 4 * 1024 * 1024;

/// The last line of a `Report` answer that stopped short of the newest report.
pub const MORE: &[u8] = b"{\"more\":true}\n";

/// The most bytes of a receive stream one `Data` frame carries.
pub const DATA_CHUNK: usize = 256 * 1024;

/// What a frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Both ways, first: the protocol spoken and the binary's version.
    Hello,
    /// Asks what the node holds.
    Have,
    /// Starts a receive stream, carried by the `Data` frames up to `End`.
    Receive,
    /// Bytes of a receive stream.
    Data,
    /// The end of a receive stream.
    End,
    /// Asks the node to apply what it holds.
    Apply,
    /// Asks for the reports newer than the decimal sequence in the payload.
    Report,
    /// Asks the node to run every module's check now and report their health (a `checked`
    /// report); answers that report, or nothing when no module it runs has a check.
    Check,
    /// Asks the node to run a module's `provide` for a consumer (JSON request), or hand back
    /// the credentials it made before; answers them encrypted to the controllers named.
    Provide,
    /// Asks whom the node trusts (`show`), or makes it forget its pin (`reset`).
    Trust,
    /// Ends the conversation.
    Quit,
    /// The node's answer to a request.
    Answer,
    /// The node could not do what was asked: JSON `{"error","message"}`.
    Error,
    /// The node is still working on the request (empty): sent while an apply runs, as often
    /// as the controller's hello asked, so that a silent node can be told from a busy one.
    Alive,
}

impl Kind {
    /// The kind's byte on the wire.
    pub fn byte(self) -> u8 {
        match self {
            Kind::Hello => b'H',
            Kind::Have => b'h',
            Kind::Receive => b'R',
            Kind::Data => b'D',
            Kind::End => b'E',
            Kind::Apply => b'A',
            Kind::Report => b'P',
            Kind::Trust => b'T',
            Kind::Check => b'C',
            Kind::Provide => b'V',
            Kind::Quit => b'Q',
            Kind::Answer => b'a',
            Kind::Error => b'X',
            Kind::Alive => b'w',
        }
    }

    fn from_byte(b: u8) -> Option<Kind> {
        Some(match b {
            b'H' => Kind::Hello,
            b'h' => Kind::Have,
            b'R' => Kind::Receive,
            b'D' => Kind::Data,
            b'E' => Kind::End,
            b'A' => Kind::Apply,
            b'P' => Kind::Report,
            b'T' => Kind::Trust,
            b'C' => Kind::Check,
            b'V' => Kind::Provide,
            b'Q' => Kind::Quit,
            b'a' => Kind::Answer,
            b'X' => Kind::Error,
            b'w' => Kind::Alive,
            _ => return None,
        })
    }
}

/// Why a frame could not be read.
#[derive(Debug)]
pub enum FrameError {
    /// The other side ended the conversation exactly at a frame boundary.
    Closed,
    /// The input ended inside a frame, or reading it failed.
    Io(io::Error),
    /// Not a frame this side reads: an unknown kind or a length past [`MAX_FRAME`].
    Garbage(String),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Closed => f.write_str("the conversation ended"),
            FrameError::Io(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                f.write_str("the conversation ended inside a frame")
            }
            FrameError::Io(e) => write!(f, "reading a frame failed: {e}"),
            FrameError::Garbage(why) => write!(f, "not a mesh session frame: {why}"),
        }
    }
}

/// Writes one frame (not flushed: the caller flushes when it waits for an answer).
pub fn write(out: &mut impl Write, kind: Kind, payload: &[u8]) -> io::Result<()> {
    let len = u32::try_from(payload.len())
        .ok()
        .filter(|&n| n <= MAX_FRAME)
        .ok_or_else(|| io::Error::other("a frame payload is too long"))?;
    let mut head = [0u8; 5];
    head[0] = kind.byte();
    head[1..].copy_from_slice(&len.to_be_bytes());
    out.write_all(&head)?;
    out.write_all(payload)
}

/// Reads one frame's kind and length; the payload is read by the caller ([`payload`] or
/// [`Data`]).
pub fn head(input: &mut impl Read) -> Result<(Kind, u32), FrameError> {
    let mut head = [0u8; 5];
    let mut got = 0;
    while got < head.len() {
        match input.read(&mut head[got..]) {
            Ok(0) if got == 0 => return Err(FrameError::Closed),
            Ok(0) => {
                return Err(FrameError::Io(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "inside a frame header",
                )));
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(FrameError::Io(e)),
        }
    }
    let kind = Kind::from_byte(head[0])
        .ok_or_else(|| FrameError::Garbage(format!("unknown frame kind 0x{:02x}", head[0])))?;
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]);
    if len > MAX_FRAME {
        return Err(FrameError::Garbage(format!(
            "a {kind:?} frame of {len} bytes, more than the {MAX_FRAME} accepted"
        )));
    }
    Ok((kind, len))
}

/// Reads a payload of `len` bytes.
pub fn payload(input: &mut impl Read, len: u32) -> Result<Vec<u8>, FrameError> {
    let mut buf = vec![0u8; len as usize];
    input.read_exact(&mut buf).map_err(FrameError::Io)?;
    Ok(buf)
}

/// Reads one whole frame.
pub fn read(input: &mut impl Read) -> Result<(Kind, Vec<u8>), FrameError> {
    let (kind, len) = head(input)?;
    Ok((kind, payload(input, len)?))
}

/// The bytes of a receive stream as a reader: the payloads of the `Data` frames up to the
/// `End` frame, which reads as the end of the stream. The input ending, or any other frame,
/// reads as an error (a truncated stream to the receive reading it).
pub struct Data<'a, R> {
    input: &'a mut R,
    /// Bytes left in the current `Data` frame.
    left: u32,
    /// The `End` frame was read.
    ended: bool,
    /// A frame that was not `Data`/`End`, or the input ended: the conversation cannot go on.
    broken: Option<String>,
}

impl<'a, R: Read> Data<'a, R> {
    /// The stream that starts after a `Receive` frame.
    pub fn new(input: &'a mut R) -> Self {
        Data {
            input,
            left: 0,
            ended: false,
            broken: None,
        }
    }

    /// Reads (and drops) what is left of the stream up to its `End` frame, so that the
    /// conversation can go on after a receive that stopped early. `Err` when the stream was
    /// broken (the conversation cannot go on).
    pub fn finish(&mut self) -> Result<(), String> {
        let mut sink = [0u8; 8192];
        loop {
            match self.read(&mut sink) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        match &self.broken {
            Some(why) => Err(why.clone()),
            None => Ok(()),
        }
    }
}

impl<R: Read> Read for Data<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(why) = &self.broken {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, why.clone()));
        }
        while self.left == 0 {
            if self.ended {
                return Ok(0);
            }
            match head(self.input) {
                Ok((Kind::Data, len)) => self.left = len,
                Ok((Kind::End, 0)) => self.ended = true,
                Ok((kind, _)) => {
                    let why = format!("a {kind:?} frame inside a receive stream");
                    self.broken = Some(why.clone());
                    return Err(io::Error::new(io::ErrorKind::InvalidData, why));
                }
                Err(e) => {
                    let why = e.to_string();
                    self.broken = Some(why.clone());
                    return Err(io::Error::new(io::ErrorKind::UnexpectedEof, why));
                }
            }
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let max = buf.len().min(self.left as usize);
        let n = match self.input.read(&mut buf[..max]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Err(e),
            Err(e) => {
                // Inside a frame: the conversation cannot be read on from here.
                self.broken = Some(e.to_string());
                return Err(e);
            }
        };
        if n == 0 {
            let why = "the conversation ended inside a frame".to_string();
            self.broken = Some(why.clone());
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, why));
        }
        self.left -= n as u32;
        Ok(n)
    }
}

/// Why a stream could not be written as frames: reading what to send, or writing it.
#[derive(Debug)]
pub enum StreamError {
    /// Reading the stream failed (a local file).
    Read(io::Error),
    /// Writing to the other side failed (it went away).
    Write(io::Error),
}

/// Writes everything `stream` reads as `Data` frames, then `End`; the bytes of the stream.
pub fn write_stream(out: &mut impl Write, stream: &mut dyn Read) -> Result<u64, StreamError> {
    let mut buf = vec![0u8; DATA_CHUNK];
    let mut total = 0u64;
    loop {
        let n = match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(StreamError::Read(e)),
        };
        write(out, Kind::Data, &buf[..n]).map_err(StreamError::Write)?;
        total += n as u64;
    }
    write(out, Kind::End, &[]).map_err(StreamError::Write)?;
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_data_reads_as_one_stream() {
        let mut wire = Vec::new();
        write(&mut wire, Kind::Hello, b"{}").unwrap();
        write(&mut wire, Kind::Receive, &[]).unwrap();
        let body: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        write_stream(&mut wire, &mut &body[..]).unwrap();
        write(&mut wire, Kind::Quit, &[]).unwrap();
        let mut r = &wire[..];
        assert_eq!(read(&mut r).unwrap(), (Kind::Hello, b"{}".to_vec()));
        assert_eq!(read(&mut r).unwrap().0, Kind::Receive);
        let mut got = Vec::new();
        Data::new(&mut r).read_to_end(&mut got).unwrap();
        assert_eq!(got, body);
        assert_eq!(read(&mut r).unwrap().0, Kind::Quit);
        assert!(matches!(read(&mut r), Err(FrameError::Closed)));
    }

    #[test]
    fn garbage_and_cuts_are_named() {
        assert!(matches!(
            read(&mut &b"Zxxxx"[..]),
            Err(FrameError::Garbage(w)) if w.contains("0x5a")
        ));
        let mut huge = vec![b'D'];
        huge.extend_from_slice(&u32::MAX.to_be_bytes());
        assert!(matches!(read(&mut &huge[..]), Err(FrameError::Garbage(_))));
        assert!(matches!(read(&mut &b"H\0\0"[..]), Err(FrameError::Io(_))));
        assert!(matches!(
            read(&mut &b"H\0\0\0\x05ab"[..]),
            Err(FrameError::Io(_))
        ));
        // A stream cut between its frames, or broken by another frame, is an error, never an
        // early end.
        let mut wire = Vec::new();
        write(&mut wire, Kind::Data, b"abc").unwrap();
        let mut got = Vec::new();
        assert!(Data::new(&mut &wire[..]).read_to_end(&mut got).is_err());
        write(&mut wire, Kind::Apply, &[]).unwrap();
        let mut r = &wire[..];
        let mut data = Data::new(&mut r);
        assert!(data.read_to_end(&mut got).is_err());
        assert!(data.finish().is_err());
    }
}
