//! Node session frames (`mesh_proto::frame`): the conversation read frame by frame as the
//! node reads it, a `Receive` followed by its stream of `Data` frames read through
//! `frame::Data`.
//!
//! Properties: reading never panics; a frame read is exactly the bytes it was read from (the
//! same kind and payload written back by `frame::write` gives them); a receive stream read
//! through `Data` is the concatenation of its `Data` payloads up to an empty `End`, as a
//! plain model of the format computes it, and it is an error, never an early end, when the
//! stream is cut or another frame breaks it.
#![no_main]

use std::io::Read;

use libfuzzer_sys::fuzz_target;
use mesh_proto::frame::{self, FrameError, Kind};

/// What the stream after a `Receive` frame holds, by the format alone: the payloads of its
/// `Data` frames up to an empty `End`, and whether it ended so (`false`: cut or broken).
fn model(mut wire: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    loop {
        if wire.len() < 5 {
            return (out, false);
        }
        let len = u32::from_be_bytes([wire[1], wire[2], wire[3], wire[4]]);
        if len > frame::MAX_FRAME {
            return (out, false);
        }
        match wire[0] {
            b'D' => {
                let Some(payload) = wire.get(5..5 + len as usize) else {
                    // What there is of a cut frame is read before the cut is seen.
                    out.extend_from_slice(&wire[5..]);
                    return (out, false);
                };
                out.extend_from_slice(payload);
                wire = &wire[5 + len as usize..];
            }
            b'E' if len == 0 => return (out, true),
            _ => return (out, false),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut wire = data;
    let mut frames = 0;
    loop {
        let before = wire;
        match frame::head(&mut wire) {
            Ok((kind, len)) => {
                assert!(len <= frame::MAX_FRAME);
                if kind == Kind::Receive {
                    let Ok(payload) = frame::payload(&mut wire, len) else {
                        return;
                    };
                    assert_eq!(payload.len(), len as usize);
                    let (expected, whole) = model(wire);
                    let mut got = Vec::new();
                    let mut stream = frame::Data::new(&mut wire);
                    let read = stream.read_to_end(&mut got);
                    assert_eq!(
                        read.is_ok(),
                        whole,
                        "a stream read whole iff it ended with End"
                    );
                    if whole {
                        assert_eq!(got, expected, "the stream is its Data payloads");
                        assert!(stream.finish().is_ok());
                    } else {
                        assert!(expected.starts_with(&got) || got.is_empty());
                        assert!(stream.finish().is_err(), "a broken stream says so");
                        return;
                    }
                } else {
                    let Ok(payload) = frame::payload(&mut wire, len) else {
                        return;
                    };
                    let used = before.len() - wire.len();
                    let mut again = Vec::new();
                    frame::write(&mut again, kind, &payload).expect("a frame read can be written");
                    assert_eq!(
                        again,
                        before[..used],
                        "a frame is the bytes it was read from"
                    );
                }
                frames += 1;
                if frames > 10_000 {
                    return;
                }
            }
            Err(FrameError::Closed) => {
                assert!(before.is_empty(), "closed only at the end of the input");
                return;
            }
            Err(FrameError::Io(_)) => {
                assert!(before.len() < 5, "a header is cut only at the end");
                return;
            }
            Err(FrameError::Garbage(why)) => {
                assert!(!why.is_empty());
                return;
            }
        }
    }
});
