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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mesh_proto::secret::{self, SecretRef, is_secret_digest, is_secret_name};
use zeroize::Zeroizing;

use crate::config::Unreadable;
use crate::{Error, Result};

/// The folder of the mesh directory that holds the secrets.
pub const SECRETS_DIR: &str = "secrets";

/// The first line of a secret file says what it is.
const HEADER: &str = "# mesh secret";

/// One secret as its file says it in plain text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Entry {
    /// The module it is for.
    pub module: String,
    /// Its name (the file under the module's `$MESH_SECRETS`).
    pub name: String,
    /// The keyed digest of its value.
    pub digest: String,
    /// The controller that set it.
    pub set_by: String,
    /// When (RFC 3339 UTC).
    pub set_at: String,
    /// The file.
    #[serde(skip)]
    pub path: PathBuf,
}

/// Every secret of the mesh directory, by module and name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Index(BTreeMap<String, BTreeMap<String, Entry>>);

impl Index {
    /// Reads the header of every `secrets/<module>/<NAME>.age` under `dir` (no value is
    /// decrypted). No folder: no secrets.
    pub fn read(dir: &Path) -> std::result::Result<Index, Unreadable> {
        let top = dir.join(SECRETS_DIR);
        let mut out = BTreeMap::new();
        let modules = match std::fs::read_dir(&top) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Index(out)),
            Err(e) => return Err(unreadable(&top, e)),
        };
        for m in modules {
            let m = m.map_err(|e| unreadable(&top, e))?;
            let Some(module) = m.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if !m.file_type().is_ok_and(|t| t.is_dir()) || module.starts_with('.') {
                continue;
            }
            let files = std::fs::read_dir(m.path()).map_err(|e| unreadable(&m.path(), e))?;
            for f in files {
                let f = f.map_err(|e| unreadable(&m.path(), e))?;
                let path = f.path();
                let Some(name) = f
                    .file_name()
                    .to_str()
                    .and_then(|n| n.strip_suffix(".age"))
                    .map(str::to_string)
                else {
                    continue;
                };
                let entry = read_header(&path, &module, &name)?;
                out.entry(module.clone())
                    .or_insert_with(BTreeMap::new)
                    .insert(name, entry);
            }
        }
        Ok(Index(out))
    }

    /// The secrets of `module`, as its declaration names them (sorted by name).
    pub fn refs(&self, module: &str) -> Vec<SecretRef> {
        self.0
            .get(module)
            .into_iter()
            .flat_map(|m| m.values())
            .map(|e| SecretRef {
                digest: e.digest.clone(),
                name: e.name.clone(),
            })
            .collect()
    }

    /// Every secret, by module then name.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.0.values().flat_map(|m| m.values())
    }

    /// One secret.
    pub fn get(&self, module: &str, name: &str) -> Option<&Entry> {
        self.0.get(module)?.get(name)
    }
}

/// The error of a secret file that cannot be read.
fn unreadable(path: &Path, source: std::io::Error) -> Unreadable {
    Unreadable {
        what: format!("cannot read the secret file {}", path.display()),
        source,
        hint: "secret files are written by `mesh secret set`; restore it from git, or remove it and set the secret again".into(),
    }
}

/// The plain-text header of a secret file.
fn read_header(path: &Path, module: &str, name: &str) -> std::result::Result<Entry, Unreadable> {
    let bad = |why: String| unreadable(path, std::io::Error::other(why));
    if !crate::config::is_valid_name(module) {
        return Err(bad(format!("{module:?} is not a module name")));
    }
    if !is_secret_name(name) {
        return Err(bad(format!(
            "{name:?} is not a secret name (a letter or _, then letters, digits and _)"
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| unreadable(path, e))?;
    let mut fields = BTreeMap::new();
    let mut lines = text.lines();
    if !lines.next().is_some_and(|l| l.starts_with(HEADER)) {
        return Err(bad("it does not start with `# mesh secret`".into()));
    }
    for line in lines.take_while(|l| l.starts_with('#')) {
        if let Some((k, v)) = line.trim_start_matches('#').split_once(':') {
            fields.insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    let field = |k: &str| fields.get(k).cloned().unwrap_or_default();
    let digest = field("digest");
    if !is_secret_digest(&digest) {
        return Err(bad("its `# digest:` line is missing or not 64 hex".into()));
    }
    Ok(Entry {
        module: module.to_string(),
        name: name.to_string(),
        digest,
        set_by: field("set-by"),
        set_at: field("set-at"),
        path: path.to_path_buf(),
    })
}

/// The file of `module`'s secret `name` under the mesh directory `dir`.
pub fn path_of(dir: &Path, module: &str, name: &str) -> PathBuf {
    dir.join(SECRETS_DIR)
        .join(module)
        .join(format!("{name}.age"))
}

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
