//! The receive stream the controller writes: artifacts (header line, raw bytes), then the
//! declaration envelope, then `end`. Files are read as the stream is consumed, never loaded.

use std::collections::VecDeque;
use std::io::{Cursor, Read};
use std::path::Path;

/// A reader over several readers in turn.
pub struct Stream {
    parts: VecDeque<Box<dyn Read + Send>>,
    /// Bytes of artifacts in the stream.
    pub artifact_bytes: u64,
}

impl Stream {
    /// The stream for `artifacts` ((digest, file, size)) and `envelope`.
    pub fn new(artifacts: &[(String, &Path, u64)], envelope: &[u8]) -> std::io::Result<Stream> {
        let mut parts: VecDeque<Box<dyn Read + Send>> = VecDeque::new();
        let mut bytes = 0;
        for (digest, path, size) in artifacts {
            parts.push_back(Box::new(Cursor::new(
                format!("artifact {digest} {size}\n").into_bytes(),
            )));
            parts.push_back(Box::new(std::fs::File::open(path)?.take(*size)));
            bytes += size;
        }
        let mut tail = format!("declaration {}\n", envelope.len()).into_bytes();
        tail.extend_from_slice(envelope);
        tail.extend_from_slice(b"end\n");
        parts.push_back(Box::new(Cursor::new(tail)));
        Ok(Stream {
            parts,
            artifact_bytes: bytes,
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
