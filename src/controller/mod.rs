//! This mesh directory as a **controller**: one of possibly several that declare to one fleet.
//! Each has a name and an ed25519 key pair (`.mesh/key`, 0600), signs every declaration it
//! sends, and is known to nodes by its public key, as ssh knows hosts.
//!
//! A key string (`ed25519:<64 hex>`) is what `mesh id` prints and what `[controllers]` lists.
//! Beside it, `mesh id` prints the controller's age recipient (`age1…`), derived from the same
//! key: what the mesh directory's secrets are encrypted to (see [`crate::secrets`]).

pub mod history;

pub use mesh_proto::keys::{Identity, KEY_PREFIX, Signer, parse_key, verify};
use mesh_proto::keys::{hex, unhex};
use std::path::{Path, PathBuf};

/// The first line of `.mesh/key`: says what the file is, so nobody mistakes it for data.
const KEY_FILE_HEADER: &str = "mesh controller key (ed25519 seed, hex); keep it private";

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

/// This mesh directory's identity: the key in `dot_mesh/key`. Never made here: a key lost
/// beside a whole backup (`key.bak`) is restored from it, and anything else (no key, a
/// damaged one, one others may read) is an error that says what to do, because nodes
/// pinned to this controller's key refuse any other.
pub fn open_key(dot_mesh: &Path, name: &str) -> Result<Identity, KeyError> {
    match open_key_if_made(dot_mesh, name)? {
        Some(me) => Ok(me),
        None => Err(KeyError {
            path: key_path(dot_mesh),
            reason: format!(
                "is missing (and there is no {} either), so this controller cannot sign",
                backup_path(dot_mesh).display()
            ),
            help: "if this controller has declared to nodes before, restore .mesh/key from a backup of .mesh/ (nodes refuse a new key); if it is new, `mesh id --new` makes its key".into(),
        }),
    }
}

/// [`open_key`], or `None` when this mesh directory has no key and no backup of
/// one: for what only compares keys (a controller without one has signed nothing).
pub(crate) fn open_key_if_made(dot_mesh: &Path, name: &str) -> Result<Option<Identity>, KeyError> {
    let path = key_path(dot_mesh);
    let seed = match read_key_file(&path)? {
        Some(text) => parse_key_file(&text).map_err(|reason| KeyError {
            help: format!(
                "restore it from {} or another backup of .mesh/; a new key would be refused by every node that trusts this controller",
                backup_path(dot_mesh).display()
            ),
            path: path.clone(),
            reason,
        })?,
        None => match restore(dot_mesh)? {
            Some(seed) => seed,
            None => return Ok(None),
        },
    };
    Ok(Some(Identity::from_seed(name, seed)))
}

/// Makes this controller's key (`mesh id --new`, `mesh init`): refused when there is one,
/// or a backup of one, since nodes that trust it would refuse the new one.
pub fn create_key(dot_mesh: &Path, name: &str) -> Result<Identity, KeyError> {
    let path = key_path(dot_mesh);
    for there in [path.clone(), backup_path(dot_mesh)] {
        if std::fs::symlink_metadata(&there).is_ok() {
            return Err(KeyError {
                reason: format!("{} is already there", there.display()),
                help: format!(
                    "`mesh id` shows the key there; nodes that trust it would refuse a new one, so a new key is made only once {} is moved aside by you",
                    there.display()
                ),
                path,
            });
        }
    }
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| KeyError {
        path: path.clone(),
        reason: format!("no random bytes to make it from: {e}"),
        help: "check that the system's random source (getrandom, /dev/urandom) works".into(),
    })?;
    crate::store::make_dir(dot_mesh).map_err(|e| KeyError {
        path: path.clone(),
        reason: e.to_string(),
        help: "check that the mesh directory is writable".into(),
    })?;
    write_key(&path, &seed)?;
    Ok(Identity::from_seed(name, seed))
}

/// This controller's age identity: derived from its signing key (one secret to keep and back
/// up, not two), so every copy of `.mesh/key` reads the same secrets.
pub fn age_identity(me: &Identity) -> age::x25519::Identity {
    use bech32::ToBase32;
    let seed = zeroize::Zeroizing::new(me.seed());
    let secret = zeroize::Zeroizing::new(blake3::derive_key(
        "mesh 2026-12 controller age identity",
        &seed[..],
    ));
    // Encoding 32 bytes with a fixed valid prefix cannot fail.
    let text = zeroize::Zeroizing::new(
        bech32::encode(
            "age-secret-key-",
            secret.to_base32(),
            bech32::Variant::Bech32,
        )
        .unwrap_or_default()
        .to_uppercase(),
    );
    match mesh_proto::secret::parse_identity(&text) {
        Ok(id) => id,
        // Unreachable: a 32-byte bech32 string with age's prefix is an identity.
        Err(_) => age::x25519::Identity::generate(),
    }
}

/// This controller's age recipient (`age1…`), as `mesh id` prints it.
pub fn age_recipient(me: &Identity) -> String {
    age_identity(me).to_public().to_string()
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
pub(crate) fn back_up(dot_mesh: &Path) -> std::io::Result<()> {
    match std::fs::read(key_path(dot_mesh)) {
        Ok(bytes) => mesh_node::durable::write_atomic(&backup_path(dot_mesh), &bytes)
            .map_err(|e| std::io::Error::new(e.source.kind(), e.source.to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// The key from `key.bak`, written back to `.mesh/key` (0600); `None` when there is no
/// backup. A damaged or exposed backup is an error: it is never replaced by a new key.
fn restore(dot_mesh: &Path) -> Result<Option<[u8; 32]>, KeyError> {
    let bak = backup_path(dot_mesh);
    let Some(text) = read_key_file(&bak)? else {
        return Ok(None);
    };
    let key = parse_key_file(&text).map_err(|reason| KeyError {
        path: bak.clone(),
        reason: format!("{reason}, and {} is missing", key_path(dot_mesh).display()),
        help: "restore .mesh/key from another backup of .mesh/; nodes that trust this controller refuse a new key (if you mean to start a new identity anyway, move key.bak aside and run `mesh id --new`)".into(),
    })?;
    write_key(&key_path(dot_mesh), &key)?;
    Ok(Some(key))
}

/// The text of a key file, or `None` when there is none. Refused, as ssh refuses a private
/// key, when others than its owner may read or write it.
fn read_key_file(path: &Path) -> Result<Option<String>, KeyError> {
    use std::os::unix::fs::PermissionsExt;
    let unreadable = |e: std::io::Error| KeyError {
        path: path.to_path_buf(),
        reason: format!("cannot be read: {e}"),
        help: format!(
            "check the permissions of {} (it should be 0600 and yours)",
            path.display()
        ),
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(unreadable(e)),
    };
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(KeyError {
            path: path.to_path_buf(),
            reason: format!(
                "may be read by group or others (mode {mode:04o}), so it is not used (ssh refuses such a key too)"
            ),
            help: format!(
                "`chmod 600 {}`; if others could read it, consider the key exposed",
                path.display()
            ),
        });
    }
    std::fs::read_to_string(path).map(Some).map_err(unreadable)
}

fn write_key(path: &Path, seed: &[u8; 32]) -> Result<(), KeyError> {
    let text = format!("{KEY_FILE_HEADER}\n{}\n", hex(seed));
    // A temp file is made 0600, and keeps its mode through the rename.
    mesh_node::durable::write_atomic(path, text.as_bytes()).map_err(|e| KeyError {
        path: path.to_path_buf(),
        reason: format!("could not {} {}: {}", e.action, e.path.display(), e.source),
        help: "check that .mesh/ is writable".into(),
    })
}

fn parse_key_file(text: &str) -> Result<[u8; 32], String> {
    let seed = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && *l != KEY_FILE_HEADER)
        .ok_or("is empty")?;
    let bytes: [u8; 32] = unhex(seed)
        .and_then(|b| b.try_into().ok())
        .ok_or("is not 64 hex characters")?;
    Ok(bytes)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_made_once_0600_and_read_back() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let a = create_key(t.path(), "laptop").unwrap();
        let mode = std::fs::metadata(key_path(t.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let b = open_key(t.path(), "laptop").unwrap();
        assert_eq!(a.public(), b.public());
        assert!(a.public().starts_with(KEY_PREFIX) && a.public().len() == 8 + 64);
    }

    #[test]
    fn a_lost_key_comes_back_from_its_backup() {
        let t = tempfile::tempdir().unwrap();
        let a = create_key(t.path(), "cron").unwrap();
        back_up(t.path()).unwrap();
        std::fs::remove_file(key_path(t.path())).unwrap();
        let b = open_key(t.path(), "cron").unwrap();
        assert_eq!(a.public(), b.public());
    }

    #[test]
    fn a_damaged_key_is_an_error_not_a_new_identity() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(key_path(t.path()), "not a key\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(key_path(t.path()), std::fs::Permissions::from_mode(0o600))
            .unwrap();
        let e = open_key(t.path(), "cron").unwrap_err();
        assert!(e.reason.contains("hex"), "{e}");
        assert_eq!(
            std::fs::read_to_string(key_path(t.path())).unwrap(),
            "not a key\n"
        );
    }

    #[test]
    fn a_key_is_never_made_by_reading_and_never_over_one_that_is_there() {
        let t = tempfile::tempdir().unwrap();
        let e = open_key(t.path(), "cron").unwrap_err();
        assert!(e.help.contains("mesh id --new"), "{e:?}");
        assert!(!key_path(t.path()).exists(), "reading made no key");
        assert!(open_key_if_made(t.path(), "cron").unwrap().is_none());
        let a = create_key(t.path(), "cron").unwrap();
        let e = create_key(t.path(), "cron").unwrap_err();
        assert!(e.reason.contains("already there"), "{e:?}");
        back_up(t.path()).unwrap();
        std::fs::remove_file(key_path(t.path())).unwrap();
        let e = create_key(t.path(), "cron").unwrap_err();
        assert!(e.reason.contains("key.bak"), "a backup is there: {e:?}");
        assert_eq!(open_key(t.path(), "cron").unwrap().public(), a.public());
    }

    #[test]
    fn a_damaged_backup_of_a_lost_key_is_named_and_no_key_is_made() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(backup_path(t.path()), "garbage\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            backup_path(t.path()),
            std::fs::Permissions::from_mode(0o600),
        )
        .unwrap();
        let e = open_key(t.path(), "cron").unwrap_err();
        assert!(
            e.path.ends_with("key.bak") && e.reason.contains("missing"),
            "{e:?}"
        );
        assert!(!key_path(t.path()).exists());
    }

    #[test]
    fn a_key_others_may_read_is_refused_as_ssh_refuses_it() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        create_key(t.path(), "cron").unwrap();
        for mode in [0o644, 0o640, 0o604, 0o620] {
            std::fs::set_permissions(key_path(t.path()), std::fs::Permissions::from_mode(mode))
                .unwrap();
            let e = open_key(t.path(), "cron").unwrap_err();
            assert!(e.help.contains("chmod 600"), "{mode:o}: {e:?}");
        }
        std::fs::set_permissions(key_path(t.path()), std::fs::Permissions::from_mode(0o400))
            .unwrap();
        assert!(open_key(t.path(), "cron").is_ok());
    }

    #[test]
    fn signatures_verify_and_a_flipped_byte_does_not() {
        let t = tempfile::tempdir().unwrap();
        let me = create_key(t.path(), "laptop").unwrap();
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
    fn the_age_identity_follows_the_key_and_only_it() {
        let a = Identity::from_seed("a", [1; 32]);
        let again = Identity::from_seed("other name", [1; 32]);
        let b = Identity::from_seed("b", [2; 32]);
        assert!(age_recipient(&a).starts_with("age1"));
        assert_eq!(age_recipient(&a), age_recipient(&again));
        assert_ne!(age_recipient(&a), age_recipient(&b));
        let sealed = mesh_proto::secret::encrypt(
            &[mesh_proto::secret::parse_recipient(&age_recipient(&a)).unwrap()],
            b"v",
        )
        .unwrap();
        assert_eq!(
            &mesh_proto::secret::decrypt(&age_identity(&again), &sealed, 10).unwrap()[..],
            b"v"
        );
    }

    #[test]
    fn the_default_name_is_a_valid_name() {
        assert!(
            mesh_proto::names::is_valid_name(&default_name()),
            "{}",
            default_name()
        );
    }
}
