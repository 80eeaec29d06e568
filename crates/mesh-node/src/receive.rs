//! `mesh node receive`: takes a declaration and the missing artifacts from a stream, and puts
//! the declaration in force only once it is whole, signed by a controller the node trusts,
//! valid, not older than what the node holds, and everything it names is held. Only then does
//! it answer with the digest, and only then does the controller record the send.
//!
//! The stream, as the controller writes it (the declaration first, so that it is checked
//! before anything is kept):
//!
//! ```text
//! declaration <size>\n<size bytes: the envelope JSON>
//! secrets <size>\n<size bytes: age, to the node's key>   (when it lacks some of the secrets)
//! artifact <digest> <size>\n<size raw bytes>     (zero or more)
//! end\n
//! ```
//!
//! The answer is one JSON line: `{"received":"<digest>","sequence":N}` or
//! `{"refused":"<reason>"}`.

use std::collections::BTreeSet;
use std::io::{self, BufRead, Read, Write};

use serde::{Deserialize, Serialize};

use super::disk::RootLock;
use super::journal::{self, Outcome, Report};
use super::{Held, Layout, NodeError, Root};
use crate::artifact::{ArtifactError, ArtifactStore, Exact, is_digest};
use crate::durable::write_atomic;
use mesh_proto::names::is_valid_name;
use mesh_proto::wire::Envelope;

/// The largest declaration envelope accepted, in bytes.
pub const MAX_DECLARATION: u64 = 16 * 1024 * 1024;

/// The longest header line accepted, newline included.
const MAX_LINE: u64 = 1024;

/// What a successful receive did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Received {
    /// The digest of the declaration now in force.
    pub digest: String,
    /// Its sequence.
    pub sequence: u64,
    /// The artifacts that came with it, in stream order.
    pub artifacts: Vec<String>,
    /// Whether that very declaration was already in force (a repeated send).
    pub unchanged: bool,
}

/// Why receiving stopped.
enum Stop {
    /// The stream was cut short (a network or a sender that died): nothing is kept, nothing is
    /// reported — it is not the node refusing anything — and the controller sees no answer.
    Cut(String),
    /// The sender's fault: refused whole, reported, answered.
    Refuse {
        reason: String,
        declaration: Option<Held>,
    },
    /// The node's own trouble (disk, lock): an error, no refusal report.
    Fail(NodeError),
    /// Not signed by a controller the node trusts: refused and answered, but not reported —
    /// the journal is the trusted controllers', and an untrusted sender cannot fill it.
    Untrusted(String),
}

impl From<NodeError> for Stop {
    fn from(e: NodeError) -> Self {
        Stop::Fail(e)
    }
}

/// A refusal not (yet) about a parsed declaration.
fn refuse(reason: impl Into<String>) -> Stop {
    Stop::Refuse {
        reason: reason.into(),
        declaration: None,
    }
}

/// Reads the stream from `input`, stores its artifacts (each verified against its blake3
/// before it is renamed into `artifacts/`), checks the declaration, writes it to
/// `declaration.json` (temp + fsync + rename + fsync of the root), and answers on `output`.
///
/// Refused whole, with a "refused" report appended and `{"refused":…}` answered: a malformed
/// or truncated stream (no `end` line), an artifact whose bytes do not match its digest, an
/// envelope that does not parse strictly (unknown fields included), whose digest does not
/// match its content, that names an invalid module name or an artifact not held, or whose
/// sequence is lower than the one in force or last applied (or equal with another digest).
/// The declaration in force is never replaced by a refused or partial one. Artifacts verified
/// before a refusal are kept: they are content-addressed and whole, and spare a resend.
///
/// Refused and answered but *not* reported: a declaration not signed, or signed by a
/// controller the node does not trust (see [`super::trust`]) — nothing of it is kept.
///
/// Holds the root lock throughout, so the node's own `apply` never runs halfway through.
pub fn receive(
    root: &Root,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> Result<Received, NodeError> {
    let layout = Layout::new(root);
    let _lock = RootLock::acquire(root, &layout.lock())?;
    match receive_locked(&layout, input) {
        Ok(received) => {
            answer(
                output,
                &serde_json::json!({"received": received.digest, "sequence": received.sequence}),
            )?;
            Ok(received)
        }
        Err(Stop::Fail(e)) => Err(e),
        Err(Stop::Untrusted(reason)) => {
            answer(output, &serde_json::json!({"untrusted": reason}))?;
            Err(NodeError::Untrusted { reason })
        }
        Err(Stop::Cut(reason)) => Err(NodeError::Cut { reason }),
        Err(Stop::Refuse {
            mut reason,
            declaration,
        }) => {
            let report = Report::new(declaration, Outcome::Refused, Some(reason.clone()), vec![]);
            if let Err(e) = journal::append(root, report) {
                reason = format!("{reason} (and the refusal could not be reported: {e})");
            }
            answer(output, &serde_json::json!({"refused": reason}))?;
            Err(NodeError::Refused { reason })
        }
    }
}

/// Writes one JSON line to the controller.
fn answer(output: &mut impl Write, value: &serde_json::Value) -> Result<(), NodeError> {
    serde_json::to_writer(&mut *output, value)
        .map_err(io::Error::from)
        .and_then(|()| output.write_all(b"\n"))
        .and_then(|()| output.flush())
        .map_err(|source| NodeError::Answer { source })
}

/// Everything between taking the lock and answering: the declaration read and checked first
/// (its signature, whether its controller is trusted, its digest and sequence), so that
/// nothing from an untrusted or stale sender is kept; then its artifacts, stored as they come;
/// then the declaration put in force unless it already is.
fn receive_locked(layout: &Layout, input: &mut impl BufRead) -> Result<Received, Stop> {
    let bytes = read_declaration_line(input)?;
    let (envelope, held) = check_declaration(&bytes)?;
    let trust = super::trust::admit(layout, &envelope).map_err(Stop::Untrusted)?;
    let in_force = check_sequence(layout, &held)?;
    let artifacts = read_artifacts(layout, input, &held)?;
    check_modules(layout, &envelope, &held)?;
    let unchanged = in_force.as_ref() == Some(&held);
    if !unchanged {
        // Trust first: a declaration in force always came from a controller the node trusts.
        if let Some(trust) = trust {
            super::trust::write(layout, &trust)?;
        }
        write_atomic(&layout.declaration(), &bytes).map_err(NodeError::from)?;
    }
    Ok(Received {
        digest: held.digest,
        sequence: held.sequence,
        artifacts,
        unchanged,
    })
}

/// The stream's first line and the envelope it announces: the declaration comes first, so
/// that it is checked before anything else is read or kept.
fn read_declaration_line(input: &mut impl BufRead) -> Result<Vec<u8>, Stop> {
    let line = read_line(input)?.ok_or_else(|| {
        Stop::Cut("the stream ended before the declaration (truncated)".to_string())
    })?;
    match line.split(' ').collect::<Vec<_>>().as_slice() {
        ["declaration", size] => read_declaration(input, parse_size(size, &line)?),
        _ => Err(refuse(format!(
            "the stream must start with the declaration, got {line:?} (a controller older than this node?)"
        ))),
    }
}

/// The secrets and artifacts after the declaration `held`, each kept as it comes, up to the
/// `end` line (and the stream ending right after it). The artifacts' digests in stream order.
fn read_artifacts(
    layout: &Layout,
    input: &mut impl BufRead,
    held: &Held,
) -> Result<Vec<String>, Stop> {
    let store = layout.store();
    let mut artifacts = Vec::new();
    loop {
        let line = read_line(input)?.ok_or_else(|| {
            Stop::Cut("the stream ended without its `end` line (truncated)".to_string())
        })?;
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            ["secrets", size] => {
                let size = parse_size(size, &line)?;
                if size > mesh_proto::secret::MAX_DELIVERY {
                    return Err(refuse_held(
                        held,
                        format!(
                            "the secrets are {size} bytes, more than the {} accepted",
                            mesh_proto::secret::MAX_DELIVERY
                        ),
                    ));
                }
                let mut bytes = Vec::new();
                Exact::new(&mut *input, size, "the stream ended early")
                    .read_to_end(&mut bytes)
                    .map_err(|e| Stop::Cut(stream_failed("the secrets", &e)))?;
                super::secrets::take(layout, &bytes, &held.digest)
                    .map_err(|why| refuse_held(held, why))?;
            }
            ["artifact", digest, size, rest @ ..] => {
                store_artifact(&store, input, &line, digest, size, rest)?;
                artifacts.push((*digest).to_string());
            }
            ["end"] => {
                expect_nothing_after_end(input)?;
                return Ok(artifacts);
            }
            _ => return Err(refuse(format!("unexpected line in the stream: {line:?}"))),
        }
    }
}

/// Stores the artifact an `artifact <digest> <size> [zstd <length>]` line announces, verified
/// against its digest. Bytes that do not match it are refused; a stream that fails is cut.
fn store_artifact(
    store: &ArtifactStore,
    input: &mut impl BufRead,
    line: &str,
    digest: &str,
    size: &str,
    rest: &[&str],
) -> Result<(), Stop> {
    let size = parse_size(size, line)?;
    if !is_digest(digest) {
        return Err(refuse(format!(
            "not an artifact digest: {digest:?} (expected 64 lowercase hex characters)"
        )));
    }
    let stored = match rest {
        [] => {
            let mut exact = Exact::new(&mut *input, size, "the stream ended early");
            store.put_verified(digest, &mut exact)
        }
        ["zstd", length] => {
            let length = parse_size(length, line)?;
            put_compressed(store, digest, size, length, &mut *input)?
        }
        _ => return Err(refuse(format!("unexpected line in the stream: {line:?}"))),
    };
    match stored {
        Ok(_) => Ok(()),
        Err(ArtifactError::DigestMismatch { actual, .. }) => Err(refuse(format!(
            "artifact {digest} does not match its digest (its bytes hash to {actual})"
        ))),
        Err(ArtifactError::Read { source }) => Err(Stop::Cut(stream_failed(
            &format!("artifact {digest}"),
            &source,
        ))),
        Err(e) => Err(Stop::Fail(e.into())),
    }
}

/// The declaration's `size` bytes, refused above [`MAX_DECLARATION`].
fn read_declaration(input: &mut impl BufRead, size: u64) -> Result<Vec<u8>, Stop> {
    if size > MAX_DECLARATION {
        return Err(refuse(format!(
            "the declaration is {size} bytes, more than the {MAX_DECLARATION} accepted"
        )));
    }
    let mut bytes = Vec::new();
    Exact::new(&mut *input, size, "the stream ended early")
        .read_to_end(&mut bytes)
        .map_err(|e| Stop::Cut(stream_failed("the declaration", &e)))?;
    Ok(bytes)
}

/// The stream ending right after its `end` line.
fn expect_nothing_after_end(input: &mut impl BufRead) -> Result<(), Stop> {
    // Taken only once the stream has ended there too: a session's `End` frame, or the end of
    // stdin. A cut just after `end` is still a cut, unanswered and not in force.
    let mut more = [0u8; 1];
    match input.read(&mut more) {
        Ok(0) => Ok(()),
        Ok(_) => Err(refuse("bytes after the `end` line")),
        Err(e) => Err(Stop::Cut(stream_failed("the end of the stream", &e))),
    }
}

/// A refusal of the declaration `held`, reported as about it.
fn refuse_held(held: &Held, reason: String) -> Stop {
    Stop::Refuse {
        reason,
        declaration: Some(held.clone()),
    }
}

/// The declaration's envelope parsed strictly, its digest matching its content: the envelope
/// and which declaration it is.
fn check_declaration(bytes: &[u8]) -> Result<(Envelope, Held), Stop> {
    let envelope = Envelope::decode(bytes)
        .map_err(|e| refuse(format!("the declaration is not a valid envelope: {e}")))?;
    let held = Held {
        digest: envelope.digest.clone(),
        sequence: envelope.sequence,
    };
    if !envelope.digest_matches() {
        return Err(refuse_held(
            &held,
            format!(
                "declaration digest {} does not match content (it hashes to {})",
                envelope.digest,
                envelope.declaration.digest()
            ),
        ));
    }
    Ok((envelope, held))
}

/// Every module the declaration names: a valid name, declared once, its artifact held, its
/// secrets valid names each held (sealed).
fn check_modules(layout: &Layout, envelope: &Envelope, held: &Held) -> Result<(), Stop> {
    let store = layout.store();
    // Decrypted only when some module names a secret.
    let sealed: BTreeSet<String> = match envelope
        .declaration
        .modules
        .iter()
        .any(|m| !m.secrets.is_empty())
    {
        true => super::secrets::sealed(layout)?.into_iter().collect(),
        false => BTreeSet::new(),
    };
    let mut names = BTreeSet::new();
    for module in &envelope.declaration.modules {
        if !is_valid_name(&module.name) {
            return Err(refuse_held(
                held,
                format!(
                    "invalid module name {:?} (must match {})",
                    module.name,
                    mesh_proto::names::NAME_PATTERN
                ),
            ));
        }
        if !names.insert(module.name.as_str()) {
            return Err(refuse_held(
                held,
                format!("module {} is declared twice", module.name),
            ));
        }
        if !store.contains(&module.artifact) {
            return Err(refuse_held(
                held,
                format!(
                    "module {} names artifact {} which the node does not hold",
                    module.name, module.artifact
                ),
            ));
        }
        check_secrets(module, &sealed).map_err(|why| refuse_held(held, why))?;
    }
    Ok(())
}

/// A module's secrets: valid names, each once, each value held (sealed).
fn check_secrets(
    module: &mesh_proto::wire::DeclaredModule,
    sealed: &BTreeSet<String>,
) -> Result<(), String> {
    use mesh_proto::{names::is_digest, secret::is_secret_name};
    let mut seen = BTreeSet::new();
    for s in &module.secrets {
        if !is_secret_name(&s.name) || !is_digest(&s.digest) {
            return Err(format!(
                "module {} names an invalid secret {:?} ({:?})",
                module.name, s.name, s.digest
            ));
        }
        if !seen.insert(s.name.as_str()) {
            return Err(format!(
                "module {} names secret {} twice",
                module.name, s.name
            ));
        }
        if !sealed.contains(&s.digest) {
            return Err(format!(
                "module {} names secret {} whose value the node does not hold (it did not come with the declaration)",
                module.name, s.name
            ));
        }
    }
    Ok(())
}

/// The declaration's sequence: below 2^53, and not below the one last applied or the one in
/// force (nor equal to one with another digest). Returns the declaration in force.
fn check_sequence(layout: &Layout, held: &Held) -> Result<Option<Held>, Stop> {
    if held.sequence >= super::MAX_SEQUENCE {
        return Err(refuse_held(
            held,
            format!(
                "sequence {} is not below 2^53, the bound of declaration sequences",
                held.sequence
            ),
        ));
    }
    let in_force = layout.declaration_held()?;
    let applied = layout.applied()?;
    for (floor, what) in [(&applied, "applied"), (&in_force, "held")] {
        if let Some(floor) = floor {
            if held.sequence < floor.sequence {
                return Err(refuse_held(
                    held,
                    format!(
                        "sequence {} is lower than {} already {what}",
                        held.sequence, floor.sequence
                    ),
                ));
            }
            if held.sequence == floor.sequence && held.digest != floor.digest {
                return Err(refuse_held(
                    held,
                    format!(
                        "sequence {} is already {what} with another digest ({})",
                        held.sequence, floor.digest
                    ),
                ));
            }
        }
    }
    Ok(in_force)
}

/// Stores an artifact sent compressed: `length` bytes of one zstd frame that decompress to
/// `size` bytes hashing to `digest`. Bytes that are not that are refused; a stream that ends or
/// fails while they are read is cut.
fn put_compressed(
    store: &ArtifactStore,
    digest: &str,
    size: u64,
    length: u64,
    input: &mut impl BufRead,
) -> Result<Result<u64, ArtifactError>, Stop> {
    let what = format!("artifact {digest}");
    let bad = |why: String| refuse(format!("{what}: {why}"));
    // Whether the wire itself failed, as opposed to what came over it.
    let wire_failed = std::cell::Cell::new(None::<io::Error>);
    let cut = |e: io::Error| Stop::Cut(stream_failed(&what, &e));
    let mut wire = Watched {
        inner: Exact::new(input, length, "the stream ended early"),
        failed: &wire_failed,
    };
    let mut decoder = match zstd::stream::read::Decoder::new(&mut wire) {
        Ok(d) => d.single_frame(),
        Err(source) => {
            return Err(Stop::Fail(NodeError::Io {
                what: "decompress into",
                path: store.path(digest),
                source,
            }));
        }
    };
    let stored = {
        let mut exact = Exact::new(&mut decoder, size, "it decompresses to fewer bytes");
        store.put_verified(digest, &mut exact)
    };
    if let Err(ArtifactError::Read { source }) = &stored {
        return Err(match wire_failed.take() {
            Some(e) => cut(e),
            None => bad(format!(
                "its compressed bytes are not what was sent ({source})"
            )),
        });
    }
    if stored.is_err() {
        return Ok(stored);
    }
    // The frame must end where the sender said: nothing more decompresses, nothing is left.
    let mut more = [0u8; 1];
    let after = decoder.read(&mut more);
    if let Some(e) = wire_failed.take() {
        return Err(cut(e));
    }
    match after {
        Ok(0) => {}
        Ok(_) => {
            return Err(bad(format!(
                "it decompresses to more than its {size} bytes"
            )));
        }
        Err(e) => {
            return Err(bad(format!(
                "its compressed bytes are not what was sent ({e})"
            )));
        }
    }
    if !decoder.finish().buffer().is_empty() {
        return Err(bad("bytes after its compressed frame".into()));
    }
    let mut rest = Vec::new();
    match wire.read_to_end(&mut rest) {
        Ok(0) => Ok(stored),
        Ok(_) => Err(bad("bytes after its compressed frame".into())),
        Err(e) => Err(cut(e)),
    }
}

/// A reader that remembers the error its source gave (the wire failing, not the data).
struct Watched<'a, R> {
    inner: R,
    failed: &'a std::cell::Cell<Option<io::Error>>,
}

impl<R: Read> Read for Watched<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).inspect_err(|e| {
            self.failed
                .set(Some(io::Error::new(e.kind(), e.to_string())));
        })
    }
}

/// Reads one header line (without its newline); `None` at the end of the stream.
fn read_line(input: &mut impl BufRead) -> Result<Option<String>, Stop> {
    let mut buf = Vec::new();
    input
        .by_ref()
        .take(MAX_LINE)
        .read_until(b'\n', &mut buf)
        .map_err(|e| refuse(stream_failed("a header line", &e)))?;
    if buf.is_empty() {
        return Ok(None);
    }
    if buf.pop() != Some(b'\n') {
        return Err(if buf.len() as u64 + 1 >= MAX_LINE {
            refuse("a header line is too long")
        } else {
            Stop::Cut("the stream ended in the middle of a header line (truncated)".to_string())
        });
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| refuse("a header line is not UTF-8"))
}

/// A size field of a header line.
fn parse_size(size: &str, line: &str) -> Result<u64, Stop> {
    if size.is_empty() || !size.bytes().all(|b| b.is_ascii_digit()) {
        return Err(refuse(format!("bad size in header line {line:?}")));
    }
    size.parse()
        .map_err(|_| refuse(format!("bad size in header line {line:?}")))
}

/// The refusal reason for a failed read of `what`.
fn stream_failed(what: &str, e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        format!("the stream was truncated: {what} {e}")
    } else {
        format!("the stream failed while reading {what}: {e}")
    }
}
