//! A node's secrets. The node has its own age identity (`ROOT/age-id`, 0600, made at first
//! contact like `ROOT/id`); it says the recipient in its hello and `have`, and controllers
//! encrypt the values it lacks to it alone. Received values are kept sealed to that key, by
//! digest (`ROOT/sealed.age`), until a version of a module needs them; the version a
//! module runs has its secrets written as files, `ROOT/secrets/<module>/<NAME>` (directories
//! 0700, files 0600, each written atomically), which its `activate` and `check` find through
//! `MESH_SECRETS`. Nothing else on the node holds a value in plain text: not `current/`, not
//! an artifact, a report or a log (output tails are searched for each value, see [`redact`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

use super::{Layout, NodeError};
use crate::durable::write_atomic;
use mesh_proto::names::is_digest;
use mesh_proto::secret::{self, Delivery, MAX_VALUE, is_secret_name};

/// The node's age identity, made when `make` and there is none; `None` when there is none.
/// A link, a file others may read, or one that is not an identity is refused: remove it and a
/// new one is made, which the controllers see as a new key (no secret goes to it until a
/// person accepts it there).
pub(crate) fn identity(
    root: &Path,
    make: bool,
) -> Result<Option<age::x25519::Identity>, NodeError> {
    let path = Layout::new(root).age_id();
    let corrupt = |reason: &str| NodeError::Corrupt {
        path: path.clone(),
        reason: format!(
            "{reason}; remove it and a new one is made (controllers then send no secret until a person accepts the new key: `mesh node accept NODE`)"
        ),
    };
    let opened = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path);
    match opened {
        Ok(mut file) => {
            let mode = file
                .metadata()
                .map_err(NodeError::io("read", &path))?
                .permissions()
                .mode();
            if mode & 0o077 != 0 {
                return Err(corrupt("others than its owner may read it"));
            }
            let mut text = Zeroizing::new(String::new());
            file.read_to_string(&mut text)
                .map_err(NodeError::io("read", &path))?;
            secret::parse_identity(&text)
                .map(Some)
                .map_err(|why| corrupt(&why))
        }
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            Err(corrupt("it is a symbolic link, which mesh does not follow"))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound && make => make_identity(root, &path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(NodeError::io("read", path)(e)),
    }
}

/// Makes the node's age identity at `path`, never over one another session made meanwhile
/// (linked into place, which fails when the name is taken: then that one is read).
fn make_identity(root: &Path, path: &Path) -> Result<Option<age::x25519::Identity>, NodeError> {
    use age::secrecy::ExposeSecret;
    let made = age::x25519::Identity::generate();
    let text = Zeroizing::new(format!("{}\n", made.to_string().expose_secret()));
    let tmp = crate::durable::written_temp(path, text.as_bytes(), None)?;
    match fs::hard_link(tmp.path(), path) {
        Ok(()) => {
            crate::durable::sync_dir(root)?;
            Ok(Some(made))
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => identity(root, false),
        Err(e) => Err(NodeError::io("write", path)(e)),
    }
}

/// The node's age recipient (`age1…`), made with the identity when `make`.
pub fn recipient(root: &Path, make: bool) -> Result<Option<String>, NodeError> {
    Ok(identity(root, make)?.map(|i| i.to_public().to_string()))
}

/// The values the node holds, by keyed digest: `ROOT/sealed.age`, one file encrypted to the
/// node's own key (one write per receive that brings values, not one per value). Zeroed when
/// dropped.
#[derive(Default)]
pub(crate) struct Sealed(BTreeMap<String, Zeroizing<Vec<u8>>>);

impl Sealed {
    /// The values held. None when there is no file — nor when it cannot be read (damaged, or
    /// sealed to a key the node no longer has): then the node holds no value, says so in
    /// `have`, and is sent them again; the next values taken replace the file.
    pub(crate) fn read(layout: &Layout) -> Result<Sealed, NodeError> {
        let path = layout.sealed();
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Sealed::default()),
            Err(e) => return Err(NodeError::io("read", path)(e)),
        };
        let Ok(Some(me)) = identity(&layout.root, false) else {
            return Ok(Sealed::default());
        };
        let Ok(plain) = secret::decrypt(&me, &bytes, secret::MAX_DELIVERY as usize) else {
            return Ok(Sealed::default());
        };
        let Ok(map) = serde_json::from_slice::<BTreeMap<String, String>>(&plain) else {
            return Ok(Sealed::default());
        };
        let mut out = BTreeMap::new();
        for (digest, mut hex) in map {
            let value = mesh_proto::keys::unhex(&hex).map(Zeroizing::new);
            zeroize::Zeroize::zeroize(&mut hex);
            if let Some(v) = value.filter(|_| is_digest(&digest)) {
                out.insert(digest, v);
            }
        }
        Ok(Sealed(out))
    }

    /// The digests held, sorted.
    pub(crate) fn digests(&self) -> Vec<String> {
        self.0.keys().cloned().collect()
    }

    fn get(&self, digest: &str) -> Option<&Zeroizing<Vec<u8>>> {
        self.0.get(digest)
    }

    /// Writes the values back, encrypted to the node's own key (the file removed when none).
    fn write(&self, layout: &Layout, me: &age::x25519::Identity) -> Result<(), String> {
        let path = layout.sealed();
        if self.0.is_empty() {
            return match fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    Err(format!("could not remove {}: {e}", path.display()))
                }
                _ => Ok(()),
            };
        }
        let mut map: BTreeMap<&str, String> = self
            .0
            .iter()
            .map(|(d, v)| (d.as_str(), mesh_proto::keys::hex(v)))
            .collect();
        let plain = Zeroizing::new(serde_json::to_vec(&map).unwrap_or_default());
        map.values_mut().for_each(zeroize::Zeroize::zeroize);
        let sealed = secret::encrypt(&[me.to_public()], &plain)?;
        write_atomic(&path, &sealed)
            .map_err(|e| format!("could not keep the secrets: {}", NodeError::from(e)))
    }
}

/// The digests of the values the node holds, sorted.
pub(crate) fn sealed(layout: &Layout) -> Result<Vec<String>, NodeError> {
    Ok(Sealed::read(layout)?.digests())
}

/// Takes the `secrets` entry of a receive stream: decrypted with the node's key, bound to the
/// declaration `digest` it came with, each value kept sealed to the node's own key. The
/// digests taken; why not, as a refusal's sentence.
pub(crate) fn take(layout: &Layout, bytes: &[u8], digest: &str) -> Result<Vec<String>, String> {
    let me = identity(&layout.root, false)
        .map_err(|e| format!("the node's age key could not be read: {e}"))?
        .ok_or("secrets came, and the node has no age key to read them (ROOT/age-id is made at the first session)")?;
    let plain = secret::decrypt(&me, bytes, secret::MAX_DELIVERY as usize)
        .map_err(|why| format!("the secrets that came with the declaration: {why}"))?;
    let delivery = Delivery::from_bytes(&plain)?;
    if delivery.declaration != digest {
        return Err(format!(
            "the secrets that came were sent with declaration {}, not this one",
            delivery.declaration
        ));
    }
    let mut held = Sealed::read(layout).map_err(|e| e.to_string())?;
    let mut taken = Vec::new();
    for v in &delivery.values {
        if !is_digest(&v.digest) {
            return Err(format!("not a secret digest: {:?}", v.digest));
        }
        let value = mesh_proto::keys::unhex(&v.hex)
            .map(Zeroizing::new)
            .filter(|b| b.len() <= MAX_VALUE)
            .ok_or_else(|| format!("the value of secret {} is not readable", v.digest))?;
        held.0.insert(v.digest.clone(), value);
        taken.push(v.digest.clone());
    }
    held.write(layout, &me)?;
    Ok(taken)
}

/// The secrets of one version of a module: name → digest.
pub(crate) type Named = BTreeMap<String, String>;

/// `ROOT/secrets/<module>`: what `MESH_SECRETS` names.
pub(crate) fn dir_of(root: &Path, module: &str) -> PathBuf {
    root.join("secrets").join(module)
}

/// Writes the secrets of the version of `module` about to run (or running) as its files, from
/// the values `held`, and removes any file of it that version does not name; a module with none
/// has no directory. The files that change are written together (one directory sync) and read
/// back. Why not, as a module's failure reason.
pub(crate) fn write_module(
    layout: &Layout,
    held: &Sealed,
    module: &str,
    named: &Named,
) -> Result<(), String> {
    let dir = dir_of(&layout.root, module);
    if named.is_empty() {
        return match fs::remove_dir_all(&dir) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(format!(
                "could not remove {} (no secret is declared for it now): {e}",
                dir.display()
            )),
            _ => Ok(()),
        };
    }
    private_dir(&layout.root.join("secrets"))?;
    private_dir(&dir)?;
    let mut changed: Vec<(&str, &[u8])> = Vec::new();
    for (name, digest) in named {
        if !is_secret_name(name) || !is_digest(digest) {
            return Err(format!("invalid secret {name:?} ({digest:?})"));
        }
        let value = held
            .get(digest)
            .ok_or_else(|| {
                format!(
                    "secret {name} ({}) is not held here (its sealed values were lost?): `mesh push --all` on the controller sends them again",
                    crate::artifact::short(digest, crate::artifact::SHORT)
                )
            })?;
        if !fs::read(dir.join(name)).is_ok_and(|h| Zeroizing::new(h)[..] == value[..]) {
            changed.push((name, &value[..]));
        }
    }
    if !changed.is_empty() {
        crate::durable::write_atomic_all(&dir, &changed)
            .map_err(|e| format!("its secrets: {}", NodeError::from(e)))?;
        for (name, value) in &changed {
            let back = fs::read(dir.join(name)).map(Zeroizing::new);
            if !back.is_ok_and(|b| b[..] == value[..]) {
                return Err(format!(
                    "secret {name} could not be read back from {}",
                    dir.display()
                ));
            }
        }
    }
    for e in fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let Ok(e) = e else { continue };
        let name = e.file_name();
        if !name.to_str().is_some_and(|n| named.contains_key(n)) {
            let _ = fs::remove_file(e.path());
        }
    }
    Ok(())
}

/// Makes `dir` a directory only its owner may enter (0700).
fn private_dir(dir: &Path) -> Result<(), String> {
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
                .map_err(|e| format!("could not make {} private: {e}", dir.display()))
        }
        Err(e) => Err(format!("could not create {}: {e}", dir.display())),
    }
}

/// Removes the secrets of every module not in `declared`.
pub(crate) fn remove_undeclared(root: &Path, declared: &BTreeSet<&str>) {
    let Ok(entries) = fs::read_dir(root.join("secrets")) else {
        return;
    };
    for e in entries.flatten() {
        if !e.file_name().to_str().is_some_and(|n| declared.contains(n)) {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// Removes the sealed values no version in `keep` names (the file rewritten only then).
pub(crate) fn prune(layout: &Layout, mut held: Sealed, keep: &BTreeSet<&str>) {
    let before = held.0.len();
    held.0.retain(|d, _| keep.contains(d.as_str()));
    if held.0.len() != before
        && let Ok(Some(me)) = identity(&layout.root, false)
    {
        let _ = held.write(layout, &me);
    }
}

/// `text` with every value of `module`'s secret files replaced by `[secret NAME]`: what a
/// command printed goes into reports, and a secret it printed must not.
pub(crate) fn redact(root: &Path, module: &str, text: String) -> String {
    let Ok(entries) = fs::read_dir(dir_of(root, module)) else {
        return text;
    };
    let read: Vec<(Zeroizing<Vec<u8>>, String)> = entries
        .flatten()
        .filter_map(|e| {
            let value = fs::read(e.path()).map(Zeroizing::new).ok()?;
            Some((value, e.file_name().to_string_lossy().into_owned()))
        })
        .collect();
    let values: Vec<(&[u8], &str)> = read.iter().map(|(v, n)| (&v[..], n.as_str())).collect();
    redact_values(text, &values)
}

/// `text` with each value (and each line of a value of several) replaced by `[secret NAME]`,
/// the longest first: a value inside another (a user name in a URL) never leaves a part of
/// the longer one behind.
pub(crate) fn redact_values(text: String, values: &[(&[u8], &str)]) -> String {
    let mut parts: Vec<(Zeroizing<String>, &str)> = Vec::new();
    for (value, name) in values {
        let value = Zeroizing::new(String::from_utf8_lossy(value).into_owned());
        for part in std::iter::once(value.as_str()).chain(value.lines()) {
            // Short values would blank ordinary words: a 1- or 2-byte secret is no secret.
            let part = part.trim();
            if part.len() >= 3 {
                parts.push((Zeroizing::new(part.to_string()), name));
            }
        }
    }
    parts.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
    let mut text = text;
    for (part, name) in &parts {
        if text.contains(part.as_str()) {
            text = text.replace(part.as_str(), &format!("[secret {name}]"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_hides_a_value_and_its_lines() {
        let out = redact_values("pw=hunter22\nok".into(), &[(b"hunter22\n", "PW")]);
        assert_eq!(out, "pw=[secret PW]\nok");
        let out = redact_values("a\nline two\nx".into(), &[(b"line one\nline two", "K")]);
        assert_eq!(out, "a\n[secret K]\nx");
        assert_eq!(redact_values("a b".into(), &[(b"a", "X")]), "a b");
        // The longer first, whatever the order given: no part of it is left.
        let url = "postgres://app:S3cret@h/db";
        let out = redact_values(
            format!("failed: {url}"),
            &[(b"app", "USER"), (url.as_bytes(), "URL")],
        );
        assert_eq!(out, "failed: [secret URL]");
    }
}
