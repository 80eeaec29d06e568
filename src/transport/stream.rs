//! The receive stream the controller writes: the declaration envelope first (the node checks
//! its signature and sequence before it keeps anything), the secret values it lacks (encrypted
//! to its age key alone), then the artifacts (header line,
//! bytes: raw, or zstd when that is smaller), then `end`. Files are read as the stream is
//! consumed, never loaded.

use std::collections::VecDeque;
use std::io::{Cursor, Read};
use std::path::PathBuf;

/// One artifact, ready to go: its tar, and its compressed copy when that travels smaller.
#[derive(Debug, Clone)]
pub struct Part {
    /// The tar's digest (what the node verifies after decompressing).
    pub digest: String,
    /// The tar in the artifact store.
    pub tar: PathBuf,
    /// The tar's length.
    pub size: u64,
    /// The zstd copy and its length, sent instead of the tar.
    pub compressed: Option<(PathBuf, u64)>,
}

/// A reader over several readers in turn.
pub struct Stream {
    parts: VecDeque<Box<dyn Read + Send>>,
    /// Bytes of artifacts in the stream, as tars.
    pub artifact_bytes: u64,
    /// Bytes of artifacts in the stream, as they travel (compressed where they are).
    pub wire_bytes: u64,
}

impl Stream {
    /// The stream for `artifacts`, `envelope` and the `secrets` entry (age, to the node).
    pub fn new(
        artifacts: &[&Part],
        envelope: &[u8],
        secrets: Option<&[u8]>,
    ) -> std::io::Result<Stream> {
        let mut parts: VecDeque<Box<dyn Read + Send>> = VecDeque::new();
        let mut head = format!("declaration {}\n", envelope.len()).into_bytes();
        head.extend_from_slice(envelope);
        if let Some(sealed) = secrets {
            head.extend_from_slice(format!("secrets {}\n", sealed.len()).as_bytes());
            head.extend_from_slice(sealed);
        }
        parts.push_back(Box::new(Cursor::new(head)));
        let (mut bytes, mut wire) = (0, 0);
        for p in artifacts {
            let (header, path, length) = match &p.compressed {
                Some((path, length)) => (
                    format!("artifact {} {} zstd {length}\n", p.digest, p.size),
                    path,
                    *length,
                ),
                None => (
                    format!("artifact {} {}\n", p.digest, p.size),
                    &p.tar,
                    p.size,
                ),
            };
            parts.push_back(Box::new(Cursor::new(header.into_bytes())));
            parts.push_back(Box::new(std::fs::File::open(path)?.take(length)));
            bytes += p.size;
            wire += length;
        }
        parts.push_back(Box::new(Cursor::new(b"end\n".to_vec())));
        Ok(Stream {
            parts,
            artifact_bytes: bytes,
            wire_bytes: wire,
        })
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(front) = self.parts.front_mut() {
            let n = front.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            self.parts.pop_front();
        }
        Ok(0)
    }
}
