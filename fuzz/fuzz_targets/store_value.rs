//! The store's value decoding (`src/store/codec.rs`), for the type of every table: the first
//! byte picks the table; the second says whether the rest is a value as the file holds it
//! (format byte, checksum, payload: almost never a matching checksum) or a payload given a
//! matching checksum first (what another writer, or damage the checksum cannot tell, gives
//! the decoder: bincode of that type).
//!
//! Properties: no panic and no allocation beyond the decoder's limit; a value that decodes,
//! encoded again, decodes to the same value (its encoding again the same bytes).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mesh_fuzz::Input;

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let table = usize::from(input.byte());
    let sealed = input.byte() & 1 == 1;
    let rest = input.rest();
    let bytes = match sealed {
        true => mesh::fuzzing::store_sealed(table, rest),
        false => rest.to_vec(),
    };
    let (name, first) = mesh::fuzzing::store_value(table, &bytes);
    if let Ok(encoded) = first {
        let (_, second) = mesh::fuzzing::store_value(table, &encoded);
        let again =
            second.unwrap_or_else(|e| panic!("{name}: a value encoded again does not decode: {e}"));
        assert_eq!(again, encoded, "{name}: decode(encode(x)) is not x");
    }
});
