//! Secrets as they cross the wire: a declaration names each of a module's secrets with a keyed
//! digest, never its value ([`SecretRef`]), and the values a node lacks travel beside it in the
//! receive stream, encrypted with age to that node's key alone ([`Delivery`]).
//!
//! The digest is keyed with a key only controllers hold, so a declaration (on a node, in a
//! store, in an export) says *that* a secret changed and never lets anyone test a guess of it.

use std::io::{Read, Write};
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use zeroize::{Zeroize, Zeroizing};

/// The largest secret value accepted, in bytes: credentials and keys, not files.
pub const MAX_VALUE: usize = 64 * 1024;

/// The longest secret name.
pub const MAX_NAME: usize = 64;

/// The largest `secrets` entry of a receive stream, in bytes (encrypted).
pub const MAX_DELIVERY: u64 = 8 * 1024 * 1024;

/// One secret of a module, as a declaration names it. Fields in alphabetical order: the
/// encoding is canonical.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretRef {
    /// The keyed digest of its value (64 hex): changes when the value does.
    pub digest: String,
    /// Its name: the file under `$MESH_SECRETS` the module reads.
    pub name: String,
}

/// What a `secrets` entry of a receive stream decrypts to: the values the node lacks, each by
/// its digest, bound to the declaration they came with. Zeroed when dropped; its `Debug` shows
/// digests only.
#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delivery {
    /// The digest of the declaration these values were sent with.
    pub declaration: String,
    /// The values.
    pub values: Vec<Value>,
}

/// One secret value in a [`Delivery`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Value {
    /// Its keyed digest, as the declaration names it.
    pub digest: String,
    /// The value, hex (a secret may be any bytes).
    pub hex: String,
}

impl std::fmt::Debug for Delivery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digests: Vec<&str> = self.values.iter().map(|v| v.digest.as_str()).collect();
        f.debug_struct("Delivery")
            .field("declaration", &self.declaration)
            .field("values", &digests)
            .finish()
    }
}

impl Drop for Delivery {
    fn drop(&mut self) {
        for v in &mut self.values {
            v.hex.zeroize();
        }
    }
}

impl Delivery {
    /// The delivery's encoding, to be encrypted (zeroed when dropped).
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        // Strings and vectors of strings always serialize.
        Zeroizing::new(serde_json::to_vec(self).unwrap_or_default())
    }

    /// A delivery decoded from decrypted bytes; why not, as a sentence.
    pub fn from_bytes(bytes: &[u8]) -> Result<Delivery, String> {
        serde_json::from_slice(bytes).map_err(|e| format!("the secrets are not readable: {e}"))
    }
}

/// Whether `name` may name a secret: a letter or `_`, then letters, digits and `_`, at most
/// [`MAX_NAME`] long — a file name and an environment variable's name alike.
pub fn is_secret_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    name.len() <= MAX_NAME
        && bytes
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The keyed digest of a secret `value` under `key` (blake3 keyed, hex).
pub fn digest(key: &[u8; 32], value: &[u8]) -> String {
    blake3::keyed_hash(key, value).to_hex().to_string()
}

/// An age x25519 recipient (`age1…`) parsed; why not, as a sentence.
pub fn parse_recipient(s: &str) -> Result<age::x25519::Recipient, String> {
    age::x25519::Recipient::from_str(s)
        .map_err(|e| format!("{s:?} is not an age recipient (`age1…`): {e}"))
}

/// An age x25519 identity (`AGE-SECRET-KEY-1…`) parsed; why not (never echoing it).
pub fn parse_identity(s: &str) -> Result<age::x25519::Identity, String> {
    age::x25519::Identity::from_str(s.trim())
        .map_err(|_| "not an age identity (`AGE-SECRET-KEY-1…`)".to_string())
}

/// `plain` encrypted with age to every one of `recipients` (binary age format).
pub fn encrypt(recipients: &[age::x25519::Recipient], plain: &[u8]) -> Result<Vec<u8>, String> {
    let list: Vec<&dyn age::Recipient> = recipients
        .iter()
        .map(|r| r as &dyn age::Recipient)
        .collect();
    let encryptor = age::Encryptor::with_recipients(list.into_iter())
        .map_err(|e| format!("could not encrypt: {e}"))?;
    let mut out = Vec::with_capacity(plain.len() + 256);
    let mut writer = encryptor
        .wrap_output(&mut out)
        .map_err(|e| format!("could not encrypt: {e}"))?;
    writer
        .write_all(plain)
        .and_then(|()| writer.finish().map(|_| ()))
        .map_err(|e| format!("could not encrypt: {e}"))?;
    Ok(out)
}

/// `bytes` (age, binary or armored) decrypted with `identity`, at most `limit` bytes of plain
/// text; why not, as a sentence. The plain text is zeroed when dropped.
pub fn decrypt(
    identity: &age::x25519::Identity,
    bytes: &[u8],
    limit: usize,
) -> Result<Zeroizing<Vec<u8>>, String> {
    let reader = age::armor::ArmoredReader::new(bytes);
    let decryptor =
        age::Decryptor::new(reader).map_err(|e| format!("not an age file mesh can read: {e}"))?;
    let mut stream = decryptor
        .decrypt(std::iter::once(identity as &dyn age::Identity))
        .map_err(|e| match e {
            age::DecryptError::NoMatchingKeys => "it is not encrypted to this key".to_string(),
            e => format!("it could not be decrypted: {e}"),
        })?;
    let mut plain = Zeroizing::new(Vec::new());
    (&mut stream)
        .take(limit as u64 + 1)
        .read_to_end(&mut plain)
        .map_err(|e| format!("it could not be decrypted (damaged?): {e}"))?;
    if plain.len() > limit {
        return Err(format!("it holds more than the {limit} bytes accepted"));
    }
    Ok(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_digests_and_a_round_trip() {
        assert!(is_secret_name("DB_PASSWORD") && is_secret_name("_x1"));
        for bad in ["", "1a", "a-b", "a/b", "..", &"a".repeat(65)] {
            assert!(!is_secret_name(bad), "{bad}");
        }
        let key = [7u8; 32];
        let d = digest(&key, b"hunter2");
        assert!(crate::names::is_digest(&d));
        assert_ne!(d, digest(&[8u8; 32], b"hunter2"), "keyed");
        let me = age::x25519::Identity::generate();
        let other = age::x25519::Identity::generate();
        let sealed = encrypt(&[me.to_public()], b"hunter2").unwrap();
        assert!(!sealed.windows(7).any(|w| w == b"hunter2"));
        assert_eq!(&decrypt(&me, &sealed, 100).unwrap()[..], b"hunter2");
        assert!(
            decrypt(&other, &sealed, 100)
                .unwrap_err()
                .contains("not encrypted to")
        );
        assert!(decrypt(&me, &sealed, 3).unwrap_err().contains("more than"));
        assert!(decrypt(&me, b"garbage", 100).is_err());
    }
}
