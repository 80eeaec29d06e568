//! The declaration envelope (`mesh_proto::wire::Envelope`), decoded and verified as a node
//! does before it keeps anything.
//!
//! Two halves, both on every input:
//! - the input decoded as an envelope: never a panic; an envelope that verifies was signed
//!   over exactly what it says (encoded again, it decodes to the same and still verifies);
//! - an envelope signed with a fixed key over a declaration whose words come from the input,
//!   with one byte changed (where and to what chosen by the input): it never verifies.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mesh_fuzz::Input;
use mesh_proto::wire::{Envelope, Plan};

/// The envelope as the node decodes it (`receive`): strict JSON, unknown fields refused,
/// only its canonical encoding.
fn decode(bytes: &[u8]) -> Result<Envelope, String> {
    Envelope::decode(bytes)
}

fuzz_target!(|data: &[u8]| {
    // The input as an envelope.
    if let Ok(envelope) = decode(data) {
        let _ = envelope.digest_matches();
        let _ = Plan::of(&envelope.declaration);
        if let Ok(signer) = envelope.verify() {
            assert!(mesh_proto::keys::parse_key(&signer.key).is_ok());
            let again = decode(&envelope.to_bytes()).expect("encoded again, it decodes");
            assert_eq!(again, envelope);
            assert!(again.verify().is_ok());
        }
    }

    // A signed envelope with one byte changed.
    let mut input = Input::new(data);
    let at = input.u32() as usize;
    let to = input.byte();
    let sequence = u64::from(input.u32());
    let mut modules = Vec::new();
    for _ in 0..(input.byte() % 3) {
        let mut m = mesh_fuzz::module(&input.word(), &input.word(), u64::from(input.u16()));
        m.activate = Some(input.word()).filter(|a| !a.is_empty());
        m.build = input.word();
        modules.push(m);
    }
    let envelope = mesh_fuzz::envelope(&mesh_fuzz::controller(), modules, sequence);
    let bytes = envelope.to_bytes();
    let decoded = decode(&bytes).expect("a signed envelope decodes");
    assert!(decoded.verify().is_ok(), "a signed envelope verifies");
    let mut changed = bytes.clone();
    let at = at % changed.len();
    changed[at] = if to == changed[at] { to ^ 0x20 } else { to };
    if let Ok(forged) = decode(&changed) {
        assert!(
            forged.verify().is_err(),
            "byte {at} changed to {:?} and the envelope still verifies: {}",
            changed[at] as char,
            String::from_utf8_lossy(&changed)
        );
    }
});
