//! This mesh directory as a **controller**: one of possibly several that declare to one fleet.
//! Each has a name and an ed25519 key pair (`.mesh/key`, 0600), signs every declaration it
//! sends, and is known to nodes by its public key, as ssh knows hosts.
//!
//! A key string (`ed25519:<64 hex>`) is what `mesh id` prints and what `[controllers]` lists.

pub mod history;

use ed25519_dalek::{Signature, Signer as _, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The prefix of a public key string.
pub const KEY_PREFIX: &str = "ed25519:";

/// The first line of `.mesh/key`: says what the file is, so nobody mistakes it for data.
const KEY_FILE_HEADER: &str = "mesh controller key (ed25519 seed, hex); keep it private";

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

/// Why the controller's key could not be read or made.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("the controller key {}: {reason}", path.display())]
#[diagnostic(code(mesh::controller::key), help("{help}"))]
pub struct KeyError {
    /// The key file.
    pub path: PathBuf,
    /// What is wrong.
    pub reason: String,
    /// What to do.
    pub help: String,
}

impl Identity {
    /// This mesh directory's identity: the key in `dot_mesh/key`, made on first use (0600).
    /// A key lost beside a backup (`key.bak`) is restored from it, never silently replaced:
    /// nodes pinned to the old key would refuse a new one.
    pub fn open(dot_mesh: &Path, name: &str) -> Result<Identity, KeyError> {
        let path = key_path(dot_mesh);
        let key = match std::fs::read_to_string(&path) {
            Ok(text) => parse_key_file(&text).map_err(|reason| KeyError {
                help: format!(
                    "restore it from {} or another backup of .mesh/; a new key would be refused by every node that trusts this controller",
                    backup_path(dot_mesh).display()
                ),
                path: path.clone(),
                reason,
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => make_key(dot_mesh)?,
            Err(e) => {
                return Err(KeyError {
                    path,
                    reason: format!("cannot be read: {e}"),
                    help: "check the permissions of .mesh/key (it should be 0600 and yours)"
                        .into(),
                });
            }
        };
        Ok(Identity {
            name: name.to_string(),
            key,
        })
    }

    /// An identity from a known seed, kept nowhere: for tests and tools that sign as a
    /// controller without a mesh directory.
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
}

/// `.mesh/key`.
pub fn key_path(dot_mesh: &Path) -> PathBuf {
    dot_mesh.join("key")
}

/// `.mesh/key.bak`: the copy every store backup refreshes.
pub fn backup_path(dot_mesh: &Path) -> PathBuf {
    dot_mesh.join("key.bak")
}

/// Copies the key beside the store's backup (0600), so that a backup of `.mesh/` is a
/// backup of this controller's identity too. Nothing to copy is not an error.
pub fn back_up(dot_mesh: &Path) -> std::io::Result<()> {
    match std::fs::read(key_path(dot_mesh)) {
        Ok(bytes) => crate::durable::write_atomic(&backup_path(dot_mesh), &bytes)
            .map_err(|e| std::io::Error::new(e.source.kind(), e.source.to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Makes the key (restored from `key.bak` when that is there), 0600.
fn make_key(dot_mesh: &Path) -> Result<SigningKey, KeyError> {
    let path = key_path(dot_mesh);
    if let Ok(text) = std::fs::read_to_string(backup_path(dot_mesh))
        && let Ok(key) = parse_key_file(&text)
    {
        write_key(&path, &key)?;
        return Ok(key);
    }
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| KeyError {
        path: path.clone(),
        reason: format!("no random bytes to make it from: {e}"),
        help: "check that the system's random source (getrandom, /dev/urandom) works".into(),
    })?;
    let key = SigningKey::from_bytes(&seed);
    write_key(&path, &key)?;
    Ok(key)
}

fn write_key(path: &Path, key: &SigningKey) -> Result<(), KeyError> {
    let text = format!("{KEY_FILE_HEADER}\n{}\n", hex(key.as_bytes()));
    // A temp file is made 0600, and keeps its mode through the rename.
    crate::durable::write_atomic(path, text.as_bytes()).map_err(|e| KeyError {
        path: path.to_path_buf(),
        reason: format!("could not {} {}: {}", e.action, e.path.display(), e.source),
        help: "check that .mesh/ is writable".into(),
    })
}

fn parse_key_file(text: &str) -> Result<SigningKey, String> {
    let seed = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && *l != KEY_FILE_HEADER)
        .ok_or("is empty")?;
    let bytes: [u8; 32] = unhex(seed)
        .and_then(|b| b.try_into().ok())
        .ok_or("is not 64 hex characters")?;
    Ok(SigningKey::from_bytes(&bytes))
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

/// The controller name by default: this machine's host name, made a valid name.
pub fn default_name() -> String {
    let raw = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default();
    let mut name: String = raw
        .trim()
        .split('.')
        .next()
        .unwrap_or("")
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    name = name.trim_start_matches(['-', '_']).to_string();
    if name.is_empty() {
        "controller".into()
    } else {
        name
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_made_once_0600_and_read_back() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let a = Identity::open(t.path(), "laptop").unwrap();
        let mode = std::fs::metadata(key_path(t.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let b = Identity::open(t.path(), "laptop").unwrap();
        assert_eq!(a.public(), b.public());
        assert!(a.public().starts_with(KEY_PREFIX) && a.public().len() == 8 + 64);
    }

    #[test]
    fn a_lost_key_comes_back_from_its_backup() {
        let t = tempfile::tempdir().unwrap();
        let a = Identity::open(t.path(), "cron").unwrap();
        back_up(t.path()).unwrap();
        std::fs::remove_file(key_path(t.path())).unwrap();
        let b = Identity::open(t.path(), "cron").unwrap();
        assert_eq!(a.public(), b.public());
    }

    #[test]
    fn a_damaged_key_is_an_error_not_a_new_identity() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(key_path(t.path()), "not a key\n").unwrap();
        let e = Identity::open(t.path(), "cron").unwrap_err();
        assert!(e.reason.contains("hex"), "{e}");
        assert_eq!(
            std::fs::read_to_string(key_path(t.path())).unwrap(),
            "not a key\n"
        );
    }

    #[test]
    fn signatures_verify_and_a_flipped_byte_does_not() {
        let t = tempfile::tempdir().unwrap();
        let me = Identity::open(t.path(), "laptop").unwrap();
        let sig = me.sign(b"declaration");
        assert_eq!(verify(&me.signer(), b"declaration", &sig), Ok(()));
        assert!(verify(&me.signer(), b"declaratioN", &sig).is_err());
        let mut flipped = sig.into_bytes();
        flipped[0] = if flipped[0] == b'0' { b'1' } else { b'0' };
        let flipped = String::from_utf8(flipped).unwrap();
        assert!(verify(&me.signer(), b"declaration", &flipped).is_err());
        assert!(parse_key("ed25519:zz").is_err());
    }

    #[test]
    fn the_default_name_is_a_valid_name() {
        assert!(
            crate::config::is_valid_name(&default_name()),
            "{}",
            default_name()
        );
    }
}
