//! The one place values are turned into bytes: a value-format byte, a checksum, then bincode 2.
//! Swapping the serializer means changing these functions.
//!
//! redb checks its pages only when it repairs a file, so a byte flipped on disk would otherwise
//! be read back as a different, believable value. Every value therefore carries the first eight
//! bytes of a blake3 over its table, its key and its payload: a flipped byte in the value, or a
//! value found under another key or in another table, is named as damage, never believed.

use super::StoreError;
use serde::{Serialize, de::DeserializeOwned};

/// The per-value format byte of a checksummed value (store format 2 and later).
const VALUE_FORMAT: u8 = 2;
/// The per-value format byte of store format 1: no checksum. Read only by the migration.
const LEGACY_FORMAT: u8 = 1;
/// The checksum's length.
const SUM: usize = 8;

/// No value may claim more than this: a damaged or foreign value fails to decode with an
/// error instead of asking for terabytes.
const DECODE_LIMIT: usize = 256 << 20;

/// The checksum of a payload stored under `key` in `table`.
fn checksum(table: &str, key: &[u8], payload: &[u8]) -> [u8; SUM] {
    let mut h = blake3::Hasher::new();
    h.update(table.as_bytes());
    h.update(&[0]);
    h.update(&(key.len() as u64).to_le_bytes());
    h.update(key);
    h.update(payload);
    let mut out = [0u8; SUM];
    out.copy_from_slice(&h.finalize().as_bytes()[..SUM]);
    out
}

/// Encodes a value to be stored under `key` in `table`.
pub fn encode<T: Serialize + ?Sized>(table: &str, key: &[u8], v: &T) -> Vec<u8> {
    let mut payload = Vec::new();
    // Serializing plain data structs into a Vec cannot fail.
    if let Err(e) =
        bincode::serde::encode_into_std_write(v, &mut payload, bincode::config::standard())
    {
        unreachable!("encoding into memory failed: {e}");
    }
    seal(table, key, &payload)
}

/// A payload with its format byte and checksum in front.
pub(crate) fn seal(table: &str, key: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + SUM + payload.len());
    out.push(VALUE_FORMAT);
    out.extend_from_slice(&checksum(table, key, payload));
    out.extend_from_slice(payload);
    out
}

/// The payload of a value read from `table` under `key`, once its checksum matches.
pub fn verify<'b>(table: &str, key: &[u8], bytes: &'b [u8]) -> Result<&'b [u8], StoreError> {
    let err = |message: String| StoreError::Decode {
        table: table.to_string(),
        message,
    };
    match bytes.split_first() {
        Some((&VALUE_FORMAT, rest)) if rest.len() >= SUM => {
            let (sum, payload) = rest.split_at(SUM);
            if sum != checksum(table, key, payload) {
                return Err(err(format!(
                    "the value under key {} does not match its checksum",
                    show_key(key)
                )));
            }
            Ok(payload)
        }
        Some((&VALUE_FORMAT, _)) => Err(err("a value is shorter than its checksum".into())),
        Some((v, _)) => Err(err(format!("value format {v} is not one this mesh reads"))),
        None => Err(err("empty value".into())),
    }
}

/// Decodes a value read from `table` under `key`, checking its checksum first.
pub fn decode<T: DeserializeOwned>(table: &str, key: &[u8], bytes: &[u8]) -> Result<T, StoreError> {
    decode_payload(table, verify(table, key, bytes)?)
}

fn decode_payload<T: DeserializeOwned>(table: &str, payload: &[u8]) -> Result<T, StoreError> {
    bincode::serde::decode_from_slice(
        payload,
        bincode::config::standard().with_limit::<DECODE_LIMIT>(),
    )
    .map(|(v, _)| v)
    .map_err(|e| StoreError::Decode {
        table: table.to_string(),
        message: e.to_string(),
    })
}

/// Decodes a value that may predate checksums (store format 1): only the store's own format
/// number is read this way, to learn whether the file must be migrated.
pub(super) fn decode_any<T: DeserializeOwned>(
    table: &str,
    key: &[u8],
    bytes: &[u8],
) -> Result<T, StoreError> {
    match bytes.first() {
        Some(&LEGACY_FORMAT) => decode_payload(table, &bytes[1..]),
        _ => decode(table, key, bytes),
    }
}

/// A format-1 value re-encoded with its checksum; `None` when it already has one.
pub(super) fn upgrade(table: &str, key: &[u8], bytes: &[u8]) -> Option<Vec<u8>> {
    match bytes.split_first() {
        Some((&LEGACY_FORMAT, payload)) => Some(seal(table, key, payload)),
        _ => None,
    }
}

/// A key as a person can read it: text when it is text, hex otherwise.
fn show_key(key: &[u8]) -> String {
    match std::str::from_utf8(key) {
        Ok(s) if s.chars().all(|c| !c.is_control()) => format!("`{s}`"),
        _ => key.iter().map(|b| format!("{b:02x}")).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Old {
        a: u64,
    }

    #[derive(serde::Serialize, serde::Deserialize, Debug)]
    struct New {
        a: u64,
        names: Vec<(String, String)>,
    }

    #[test]
    fn round_trip_and_garbage_is_an_error_not_an_abort() {
        let v = Old { a: 7 };
        assert_eq!(
            decode::<Old>("t", b"k", &encode("t", b"k", &v)).expect("decodes"),
            v
        );
        // A value of another shape, whose bytes read as a huge length, fails cleanly.
        let bytes = encode("t", b"k", &(1u64, u64::MAX, 3u8));
        assert!(decode::<New>("t", b"k", &bytes).is_err());
        assert!(decode::<Old>("t", b"k", &[]).is_err());
        assert!(decode::<Old>("t", b"k", &[9, 1]).is_err());
    }

    #[test]
    fn a_flipped_byte_or_a_moved_value_is_found() {
        let bytes = encode("t", b"k", &Old { a: 7 });
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                assert!(decode::<Old>("t", b"k", &b).is_err(), "byte {i} bit {bit}");
            }
        }
        assert!(decode::<Old>("t", b"j", &bytes).is_err(), "another key");
        assert!(decode::<Old>("u", b"k", &bytes).is_err(), "another table");
    }

    #[test]
    fn a_legacy_value_is_upgraded_once() {
        let mut legacy = vec![LEGACY_FORMAT];
        legacy.extend_from_slice(&encode("t", b"k", &Old { a: 3 })[1 + SUM..]);
        assert!(decode::<Old>("t", b"k", &legacy).is_err(), "never believed");
        assert_eq!(
            decode_any::<Old>("t", b"k", &legacy).ok(),
            Some(Old { a: 3 })
        );
        let up = upgrade("t", b"k", &legacy).expect("upgraded");
        assert_eq!(decode::<Old>("t", b"k", &up).ok(), Some(Old { a: 3 }));
        assert!(upgrade("t", b"k", &up).is_none());
    }
}
