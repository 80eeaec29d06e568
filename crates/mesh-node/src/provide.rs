//! `provide`: the instantiation edge performed. A module that makes something for others (a
//! database making a role, a bucket, a route) declares `provide`; on a `Provide` request the
//! node runs it in the module's current version with `MESH_CONSUMER` and `MESH_AS` set, reads
//! its standard output as `KEY=VALUE` lines, and keeps them encrypted to its own age key
//! (`ROOT/provided/<consumer>.<as>.age`), so that every controller that asks — one added since
//! too — is handed the same credentials, encrypted to the controllers its request names,
//! without `provide` running again. Asked `again`, it runs anew (rotation).
//!
//! What is encrypted is a fresh 32-byte digest key and then the lines: every controller
//! computes the same keyed digest of each value.

use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use super::activate::{self, Spec};
use super::disk::RootLock;
use super::{Layout, NodeError, Root};
use crate::durable::write_atomic;
use mesh_proto::names::is_valid_name;
use mesh_proto::secret::{self, is_secret_name};

/// How long `provide` may run.
pub const PROVIDE_TIMEOUT: Duration = Duration::from_secs(120);

/// The most bytes of output `provide` may print.
const MAX_OUTPUT: u64 = 64 * 1024;

/// A `Provide` request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// The module whose `provide` runs (it must run here).
    pub provider: String,
    /// The module the credentials are for.
    pub consumer: String,
    /// What the consumer calls the provider: the prefix of the secrets made.
    #[serde(rename = "as")]
    pub alias: String,
    /// Run it anew even when credentials were made before (rotation).
    pub again: bool,
    /// The controllers' age recipients the credentials are kept encrypted to.
    pub recipients: Vec<String>,
}

/// The answer: the credentials, encrypted to the request's recipients.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Made {
    /// The age file, hex.
    pub sealed: String,
    /// Whether `provide` ran for this request (false: made before, handed back).
    pub ran: bool,
}

/// Answers a `Provide` request on the node at `root` (see the module's documentation).
pub fn provide(root: &Root, request: &Request) -> Result<Made, NodeError> {
    let fail = |reason: String| NodeError::Provide { reason };
    if !is_valid_name(&request.provider) || !is_valid_name(&request.consumer) {
        return Err(fail("the request names an invalid module".into()));
    }
    if !is_secret_name(&request.alias) {
        return Err(fail(format!(
            "{:?} cannot prefix a secret's name",
            request.alias
        )));
    }
    let recipients = request
        .recipients
        .iter()
        .map(|r| secret::parse_recipient(r))
        .collect::<Result<Vec<_>, _>>()
        .map_err(fail)?;
    if recipients.is_empty() {
        return Err(fail(
            "the request names no recipient to keep the credentials for".into(),
        ));
    }
    let layout = Layout::new(root);
    let _lock = RootLock::acquire(root, &layout.lock())?;
    let me = super::secrets::identity(root, true)?
        .ok_or_else(|| fail("the node has no age key to keep the credentials with".into()))?;
    let kept = layout
        .provided()
        .join(format!("{}.{}.age", request.consumer, request.alias));
    // Made before: handed back, encrypted anew to the controllers asking now (one added since
    // reads them too). Kept unreadable (another key since): made anew.
    let before = match request.again {
        true => None,
        false => fs::read(&kept)
            .ok()
            .and_then(|sealed| secret::decrypt(&me, &sealed, MAX_KEPT).ok()),
    };
    let (plain, ran) = match before {
        Some(plain) => (plain, false),
        None => {
            let lines = run(&layout, request)?;
            let mut plain = Zeroizing::new(vec![0u8; 32]);
            getrandom::fill(&mut plain[..]).map_err(|e| fail(format!("no random bytes: {e}")))?;
            plain.extend_from_slice(&lines);
            // Kept encrypted to the node itself: what it made, it can hand back to anyone it
            // is asked for later.
            let sealed = secret::encrypt(&[me.to_public()], &plain).map_err(fail)?;
            write_atomic(&kept, &sealed)?;
            (plain, true)
        }
    };
    let sealed = secret::encrypt(&recipients, &plain).map_err(fail)?;
    Ok(Made {
        sealed: mesh_proto::keys::hex(&sealed),
        ran,
    })
}

/// The most bytes kept credentials may decrypt to: the digest key and the output.
const MAX_KEPT: usize = 32 + MAX_OUTPUT as usize;

/// Runs the provider's `provide` in its current version: its standard output, checked as
/// `KEY=VALUE` lines (blank lines and `#` comments dropped).
fn run(layout: &Layout, request: &Request) -> Result<Zeroizing<Vec<u8>>, NodeError> {
    let fail = |reason: String| NodeError::Provide { reason };
    let provider = &request.provider;
    let envelope = layout
        .read_declaration()?
        .ok_or_else(|| fail("nothing is declared on this node yet".into()))?;
    let module = envelope
        .declaration
        .modules
        .iter()
        .find(|m| &m.name == provider)
        .ok_or_else(|| fail(format!("{provider} is not declared on this node")))?;
    let command = module
        .provide
        .as_deref()
        .ok_or_else(|| fail(format!("{provider} declares no `provide`")))?;
    let current: PathBuf = layout.modules().join(provider).join("current");
    let version = fs::canonicalize(&current).map_err(|_| {
        fail(format!(
            "{provider} does not run here yet (no version applied)"
        ))
    })?;
    let root_abs = std::path::absolute(&layout.root).unwrap_or_else(|_| layout.root.clone());
    let mut out = memory_file().map_err(NodeError::io("write in", &layout.root))?;
    let spec = Spec {
        what: "provide",
        command,
        cwd: &version,
        module: provider,
        root: &root_abs,
        timeout: PROVIDE_TIMEOUT,
        env: &[
            ("MESH_CONSUMER", request.consumer.as_str()),
            ("MESH_AS", request.alias.as_str()),
        ],
    };
    let ran = activate::run_with(&spec, Some(&out));
    let mut printed = Zeroizing::new(Vec::new());
    let _ = out.seek(SeekFrom::Start(0));
    let _ = (&mut out).take(MAX_OUTPUT + 1).read_to_end(&mut printed);
    if let Err(reason) = ran {
        // Whatever it printed on standard output is a credential, never a reason.
        return Err(fail(redact_all(reason, &printed)));
    }
    if printed.len() as u64 > MAX_OUTPUT {
        return Err(fail(format!("it printed more than {MAX_OUTPUT} bytes")));
    }
    checked_lines(&printed, &request.alias).map_err(fail)
}

/// A file in memory only (memfd): what `provide` prints is credentials, never written to a
/// disk, not even to a file removed at once.
fn memory_file() -> std::io::Result<fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: memfd_create takes a NUL-terminated name and flags; the descriptor it returns is
    // new and owned by nothing else, so the File takes it over.
    let fd = unsafe { libc::memfd_create(c"mesh-provide".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: see above.
    Ok(unsafe { fs::File::from_raw_fd(fd) })
}

/// `printed` as `KEY=VALUE` lines, each key a secret name that `<alias>_` prefixes; blank lines
/// and comments dropped. Why not, never quoting a value.
pub fn checked_lines(printed: &[u8], alias: &str) -> Result<Zeroizing<Vec<u8>>, String> {
    let text = std::str::from_utf8(printed)
        .map_err(|_| "its output is not text (KEY=VALUE lines)".to_string())?;
    let mut out = Zeroizing::new(Vec::new());
    let mut keys = std::collections::BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, _)) = line.split_once('=') else {
            return Err(format!("line {} of its output is not KEY=VALUE", n + 1));
        };
        if !is_secret_name(&format!("{alias}_{key}")) || key.is_empty() {
            return Err(format!(
                "line {} of its output has a key that cannot name a secret (letters, digits and _ before the first =)",
                n + 1
            ));
        }
        if !keys.insert(key.to_string()) {
            return Err(format!("its output says {key} twice"));
        }
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    if keys.is_empty() {
        return Err("it printed no KEY=VALUE line".into());
    }
    Ok(out)
}

/// `reason` with every value of `printed`'s lines hidden.
fn redact_all(reason: String, printed: &[u8]) -> String {
    let text = Zeroizing::new(String::from_utf8_lossy(printed).into_owned());
    let values: Vec<(&[u8], &str)> = text
        .lines()
        .map(|line| match line.split_once('=') {
            Some((key, value)) if is_secret_name(key) => (value.as_bytes(), key),
            _ => (line.as_bytes(), "output"),
        })
        .collect();
    super::secrets::redact_values(reason, &values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_lines_are_checked_without_quoting_a_value() {
        let ok = checked_lines(b"# made\nurl=postgres://u:p@h/db\n\nuser=u\n", "db").unwrap();
        assert_eq!(&ok[..], b"url=postgres://u:p@h/db\nuser=u\n");
        let e = checked_lines(b"just-a-password\n", "db").unwrap_err();
        assert!(!e.contains("just-a-password"), "{e}");
        assert!(checked_lines(b"bad-key=x\n", "db").is_err());
        let e = checked_lines(b"postgres://u:pw@h/db?sslmode=require\n", "db").unwrap_err();
        assert!(!e.contains("pw@h"), "never quotes what it printed: {e}");
        assert!(checked_lines(b"a=1\na=2\n", "db").is_err());
        assert!(checked_lines(b"", "db").is_err());
        let r = redact_all("stderr: pw is s3cret!".into(), b"password=s3cret!\n");
        assert_eq!(r, "stderr: pw is [secret password]");
    }
}
