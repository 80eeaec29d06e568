//! Controller keys as both ends know them: a controller's name and ed25519 public key
//! ([`Signer`]), the signing half it keeps ([`Identity`]), and the check a node makes of a
//! signature. Where a controller keeps its key on disk is the controller's business.

use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};

/// The prefix of a public key string.
pub const KEY_PREFIX: &str = "ed25519:";

/// A controller as a node and a declaration know it: its name and public key string.
/// Fields in alphabetical order: the encoding is canonical.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signer {
    /// `ed25519:<64 hex>`.
    pub key: String,
    /// The controller's name (`[mesh] controller`, default the host name).
    pub name: String,
}

impl Signer {
    /// `laptop (ed25519:1a2b3c4d…)`: enough to tell two apart, short enough for a line.
    pub fn describe(&self) -> String {
        let short = self.key.get(..KEY_PREFIX.len() + 12).unwrap_or(&self.key);
        format!("{} ({short}…)", self.name)
    }
}

/// This controller: its name and signing key.
pub struct Identity {
    /// The name declarations carry.
    pub name: String,
    key: SigningKey,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("name", &self.name)
            .field("key", &self.public())
            .finish()
    }
}

impl Identity {
    /// An identity from its 32-byte seed: the one a controller's key file holds, or a known
    /// one for tests and tools that sign as a controller without a mesh directory.
    pub fn from_seed(name: &str, seed: [u8; 32]) -> Identity {
        Identity {
            name: name.to_string(),
            key: SigningKey::from_bytes(&seed),
        }
    }

    /// The name and public key string, as declarations carry them.
    pub fn signer(&self) -> Signer {
        Signer {
            key: self.public(),
            name: self.name.clone(),
        }
    }

    /// `ed25519:<64 hex>`.
    pub fn public(&self) -> String {
        key_string(&self.key.verifying_key())
    }

    /// The signature over `bytes`, as 128 hex characters.
    pub fn sign(&self, bytes: &[u8]) -> String {
        hex(&self.key.sign(bytes).to_bytes())
    }

    /// The 32-byte seed, for the controller's key file.
    pub fn seed(&self) -> [u8; 32] {
        self.key.to_bytes()
    }
}

/// `ed25519:<64 hex>` of a public key.
fn key_string(key: &VerifyingKey) -> String {
    format!("{KEY_PREFIX}{}", hex(key.as_bytes()))
}

/// Parses a public key string; why not, as a sentence.
pub fn parse_key(s: &str) -> Result<VerifyingKey, String> {
    let bytes: [u8; 32] = s
        .strip_prefix(KEY_PREFIX)
        .and_then(unhex)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| {
            format!("{s:?} is not a controller key (expected `ed25519:` and 64 hex characters, as `mesh id` prints)")
        })?;
    VerifyingKey::from_bytes(&bytes).map_err(|e| format!("{s:?} is not a valid ed25519 key: {e}"))
}

/// Whether `signature` (128 hex) is `signer`'s over `bytes`; why not, as a sentence.
pub fn verify(signer: &Signer, bytes: &[u8], signature: &str) -> Result<(), String> {
    let key = parse_key(&signer.key)?;
    let sig: [u8; 64] = unhex(signature)
        .and_then(|b| b.try_into().ok())
        .ok_or("the signature is not 128 hex characters")?;
    key.verify_strict(bytes, &Signature::from_bytes(&sig))
        .map_err(|_| format!("the signature does not match {}", signer.describe()))
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The bytes of lowercase or uppercase hex, if `s` is hex.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}
