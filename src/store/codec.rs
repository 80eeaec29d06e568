//! The one place values are turned into bytes: a value-format byte, then bincode 2.
//! Swapping the serializer means changing these two functions.

use super::StoreError;
use serde::{Serialize, de::DeserializeOwned};

/// The per-value format byte written before every value.
const VALUE_FORMAT: u8 = 1;

/// No value may claim more than this: a damaged or foreign value fails to decode with an
/// error instead of asking for terabytes.
const DECODE_LIMIT: usize = 256 << 20;

/// Encodes a value for a table.
pub fn encode<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    let mut out = vec![VALUE_FORMAT];
    // Serializing plain data structs into a Vec cannot fail.
    if let Err(e) = bincode::serde::encode_into_std_write(v, &mut out, bincode::config::standard())
    {
        unreachable!("encoding into memory failed: {e}");
    }
    out
}

/// Decodes a value read from `table`.
pub fn decode<T: DeserializeOwned>(table: &str, bytes: &[u8]) -> Result<T, StoreError> {
    let err = |message: String| StoreError::Decode {
        table: table.to_string(),
        message,
    };
    match bytes.split_first() {
        Some((&VALUE_FORMAT, rest)) => bincode::serde::decode_from_slice(
            rest,
            bincode::config::standard().with_limit::<DECODE_LIMIT>(),
        )
        .map(|(v, _)| v)
        .map_err(|e| err(e.to_string())),
        Some((v, _)) => Err(err(format!("value format {v} is not one this mesh reads"))),
        None => Err(err("empty value".into())),
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
        assert_eq!(decode::<Old>("t", &encode(&v)).expect("decodes"), v);
        // A value of another shape, whose bytes read as a huge length, fails cleanly.
        let bytes = encode(&(1u64, u64::MAX, 3u8));
        assert!(decode::<New>("t", &bytes).is_err());
        assert!(decode::<Old>("t", &[]).is_err());
        assert!(decode::<Old>("t", &[9, 1]).is_err());
    }
}
