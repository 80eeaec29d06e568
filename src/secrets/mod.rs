//! Secrets a person sets (`mesh secret`), kept in the mesh directory as
//! `secrets/<module>/<NAME>.age`: encrypted with age to this controller and to every
//! controller of `[controllers]` that gave a recipient, so the files can be committed and the
//! laptop and the cron host deliver the same values. A file is a few plain-text header lines
//! (who set it, when, its keyed digest) and then the age file, armored:
//!
//! ```text
//! # mesh secret db/PASSWORD (the value is encrypted below; this file may be committed)
//! # set-by: laptop
//! # set-at: 2026-12-04T08:00:00Z
//! # digest: <64 hex>
//! -----BEGIN AGE ENCRYPTED FILE-----
//! …
//! -----END AGE ENCRYPTED FILE-----
//! ```
//!
//! What is encrypted is a 32-byte digest key followed by the value, so every controller
//! computes the same digest for a declaration, and nobody without a controller's key can test
//! a guess of the value against a digest they saw (on a node, in a store, in a log).

pub mod deliver;
pub mod keys;
pub mod provided;
pub mod verbs;

use std::path::Path;

use mesh_proto::secret;
use zeroize::Zeroizing;

pub use crate::config::secrets::{Entry, HEADER, Index, SECRETS_DIR, path_of};
use crate::{Error, Result};

/// Who the mesh directory's secrets are encrypted to: this controller and every controller of
/// `[controllers]` that gave a recipient.
pub fn recipients(
    mesh: &crate::config::MeshConfig,
    me: &crate::controller::Identity,
) -> Result<Vec<age::x25519::Recipient>> {
    let mine = crate::controller::age_recipient(me);
    let mut all: Vec<&String> = std::iter::once(&mine)
        .chain(mesh.recipients.values())
        .collect();
    all.sort();
    all.dedup();
    all.into_iter()
        .map(|r| {
            secret::parse_recipient(r).map_err(|why| {
                Error::failed(why, "paste the line `mesh id` prints under [controllers]")
            })
        })
        .collect()
}

/// Writes a secret file: `value` with a new digest key (or `key`, to keep the digest when
/// re-encrypting), encrypted to `recipients`. The entry written.
pub(crate) fn write(
    dir: &Path,
    (module, name): (&str, &str),
    value: &[u8],
    (set_by, set_at, key): (&str, &str, Option<[u8; 32]>),
    recipients: &[age::x25519::Recipient],
) -> Result<Entry> {
    let key = match key {
        Some(k) => Zeroizing::new(k),
        None => {
            let mut k = Zeroizing::new([0u8; 32]);
            getrandom::fill(&mut k[..]).map_err(|e| {
                Error::failed(
                    format!("no random bytes for a secret's digest key: {e}"),
                    "check that the system's random source works",
                )
            })?;
            k
        }
    };
    let digest = secret::digest(&key, value);
    let mut plain = Zeroizing::new(Vec::with_capacity(32 + value.len()));
    plain.extend_from_slice(&key[..]);
    plain.extend_from_slice(value);
    let sealed = secret::encrypt(recipients, &plain)
        .map_err(|why| Error::failed(why, "check the recipients of [controllers]"))?;
    let mut text = format!(
        "{HEADER} {module}/{name} (the value is encrypted below; this file may be committed)\n# set-by: {set_by}\n# set-at: {set_at}\n# digest: {digest}\n"
    )
    .into_bytes();
    armor(&sealed, &mut text)?;
    let path = path_of(dir, module, name);
    mesh_node::durable::write_atomic(&path, &text).map_err(|e| {
        Error::io(
            format!("could not write {}", path.display()),
            e.source,
            "check that the mesh directory is writable",
        )
    })?;
    Ok(Entry {
        module: module.to_string(),
        name: name.to_string(),
        digest,
        set_by: set_by.to_string(),
        set_at: set_at.to_string(),
        path,
    })
}

/// Appends binary age `sealed` to `out` as ASCII armor.
fn armor(sealed: &[u8], out: &mut Vec<u8>) -> Result<()> {
    use std::io::Write;
    let failed = |e: std::io::Error| Error::failed(format!("could not armor a secret: {e}"), "");
    let mut w = age::armor::ArmoredWriter::wrap_output(out, age::armor::Format::AsciiArmor)
        .map_err(failed)?;
    w.write_all(sealed).map_err(failed)?;
    w.finish().map_err(failed)?;
    Ok(())
}

/// A secret read: its value and digest key, zeroed when dropped.
pub struct Opened {
    /// The value.
    pub value: Zeroizing<Vec<u8>>,
    /// The key its digest is keyed with.
    pub key: Zeroizing<[u8; 32]>,
}

/// A secret's value and digest key, decrypted with this controller's identity; checked against
/// the digest its header says.
pub fn open(entry: &Entry, me: &age::x25519::Identity) -> Result<Opened> {
    let text = std::fs::read(&entry.path).map_err(|e| {
        Error::io(
            format!("could not read {}", entry.path.display()),
            e,
            "restore it from git, or set the secret again (`mesh secret set`)",
        )
    })?;
    let at = text
        .windows(5)
        .position(|w| w == b"-----")
        .unwrap_or(text.len());
    let plain = secret::decrypt(me, &text[at..], secret::MAX_VALUE + 32).map_err(|why| {
        Error::failed(
            format!("secret {}/{} cannot be read here: {why}", entry.module, entry.name),
            "a controller reads the secrets encrypted to it: on a controller that can, list this one's `mesh id` line under [controllers] and run `mesh secret rekey`",
        )
    })?;
    if plain.len() < 32 {
        return Err(Error::failed(
            format!(
                "secret {}/{} is damaged (too short)",
                entry.module, entry.name
            ),
            "set it again with `mesh secret set`",
        ));
    }
    let mut key = Zeroizing::new([0u8; 32]);
    key.copy_from_slice(&plain[..32]);
    let value = Zeroizing::new(plain[32..].to_vec());
    if secret::digest(&key, &value) != entry.digest {
        return Err(Error::failed(
            format!(
                "secret {}/{}: its `# digest:` line does not match its value (the file was edited by hand?)",
                entry.module, entry.name
            ),
            "restore it from git, or set the secret again with `mesh secret set`",
        ));
    }
    Ok(Opened { value, key })
}
