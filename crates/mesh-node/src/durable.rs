//! Durable writes, written once: a file appears whole or not at all, and a rename or removal
//! survives a crash. Every writer of the controller and the node (the store's copies, the
//! artifact store, the node's declarations and journal) goes through here, so a fix to how mesh
//! writes lands everywhere at once.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A durable write that failed: what was being done, to which path, and the OS error. Each
/// room turns it into its own error, with its own help.
#[derive(Debug)]
pub struct DurableError {
    /// What was being done: "create", "create a temp file in", "write" or "sync".
    pub action: &'static str,
    /// The file or directory concerned.
    pub path: PathBuf,
    /// The OS error.
    pub source: io::Error,
}

impl DurableError {
    fn at(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> DurableError {
        let path = path.to_path_buf();
        move |source| DurableError {
            action,
            path,
            source,
        }
    }
}

/// Writes `bytes` to `path` whole or not at all: a temp file beside it (`.NAME.tmp-PID-…`),
/// fsync, rename, fsync of the directory (created if missing). The file is private (0600).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), DurableError> {
    write_atomic_mode(path, bytes, None)
}

/// [`write_atomic`] with the file's mode set before it appears: a file meant to be published
/// (a status page a web server reads) is never seen private.
pub fn write_atomic_mode(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), DurableError> {
    let dir = parent_dir(path);
    std::fs::create_dir_all(&dir).map_err(DurableError::at("create", &dir))?;
    persist(written_temp(path, bytes, mode)?, path)
}

/// [`write_atomic`] of several files of one directory: each written to a temp file and
/// fsynced, then all renamed into place and the directory fsynced once. A crash leaves each
/// file old or new, never torn (some may be new and others old).
pub fn write_atomic_all(dir: &Path, files: &[(&str, &[u8])]) -> Result<(), DurableError> {
    std::fs::create_dir_all(dir).map_err(DurableError::at("create", dir))?;
    let mut written = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        let path = dir.join(name);
        written.push((written_temp(&path, bytes, None)?, path));
    }
    for (tmp, path) in written {
        tmp.persist(&path)
            .map_err(|e| DurableError::at("write", &path)(e.error))?;
    }
    sync_dir(dir)
}

/// `bytes` in a temp file beside `path` (`.NAME.tmp-PID-…`, private unless `mode` says
/// otherwise, set before a byte is written), fsynced: what a write puts in place of `path`.
/// Removed when dropped unless persisted.
pub fn written_temp(
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
) -> Result<tempfile::NamedTempFile, DurableError> {
    let dir = parent_dir(path);
    let mut prefix = temp_prefix(path);
    prefix.push(format!("{}-", std::process::id()));
    let mut tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .tempfile_in(&dir)
        .map_err(DurableError::at("create a temp file in", &dir))?;
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(DurableError::at("set the mode of", tmp.path()))?;
    }
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(DurableError::at("write", tmp.path()))?;
    Ok(tmp)
}

/// The name every temp file of a write to `path` begins with: `.NAME.tmp-` (then the writer's
/// pid, a dash and random letters).
fn temp_prefix(path: &Path) -> std::ffi::OsString {
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(path.file_name().unwrap_or_default());
    prefix.push(".tmp-");
    prefix
}

/// A temp file whose writer is no longer running is left by a killed write once it is this old
/// (the pid may be another machine's, on a shared directory).
pub const STALE_WHEN_GONE: std::time::Duration = std::time::Duration::from_secs(60);

/// A temp file this old is left by a killed write, whoever wrote it (a write takes moments).
pub const STALE_ANYWAY: std::time::Duration = std::time::Duration::from_secs(3600);

/// Removes the temp files a killed write to `path` left beside it: only regular files named as
/// [`write_atomic`] names them for `path` (`.NAME.tmp-PID-…`), and only those whose writer is no
/// longer running and older than [`STALE_WHEN_GONE`], or older than [`STALE_ANYWAY`]. Returns
/// the paths removed. A file that cannot be removed is left for the next sweep.
pub fn sweep_temps(path: &Path) -> Vec<PathBuf> {
    let dir = parent_dir(path);
    let prefix = temp_prefix(path);
    let prefix = prefix.as_encoded_bytes();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let now = std::time::SystemTime::now();
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.as_encoded_bytes().strip_prefix(prefix) else {
            continue;
        };
        // Only a regular file, never followed through a link.
        let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        if !meta.file_type().is_file() {
            continue;
        }
        let age = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .unwrap_or_default();
        let gone = writer_of(rest).is_some_and(|pid| !running(pid));
        if (gone && age >= STALE_WHEN_GONE) || age >= STALE_ANYWAY {
            let p = e.path();
            if std::fs::remove_file(&p).is_ok() {
                removed.push(p);
            }
        }
    }
    if !removed.is_empty() {
        let _ = sync_dir(&dir);
    }
    removed
}

/// The writer's pid in what follows a temp file's `.NAME.tmp-`, when it names one.
fn writer_of(rest: &[u8]) -> Option<i32> {
    let digits = rest.split(|&b| b == b'-').next()?;
    std::str::from_utf8(digits)
        .ok()?
        .parse::<i32>()
        .ok()
        .filter(|p| *p > 0)
}

/// Whether a process `pid` runs on this machine (one we may not signal runs too).
fn running(pid: i32) -> bool {
    if pid as u32 == std::process::id() {
        return true;
    }
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Renames a written temp file to `dest` and fsyncs `dest`'s directory. The caller has
/// written and fsynced the file; `dest` is then whole or absent, even across a crash.
pub fn persist(tmp: tempfile::NamedTempFile, dest: &Path) -> Result<(), DurableError> {
    tmp.persist(dest)
        .map_err(|e| DurableError::at("write", dest)(e.error))?;
    sync_dir(&parent_dir(dest))
}

/// Fsyncs a directory so that renames, links and removals in it survive a crash.
pub fn sync_dir(dir: &Path) -> Result<(), DurableError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(DurableError::at("sync", dir))
}

/// The directory holding `path` (`.` for a bare name).
pub fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_file_is_whole_and_no_temp_is_left() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("a/b/decl.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(t.path().join("a/b"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("decl.json")]);
    }

    #[test]
    fn a_write_into_a_file_that_is_not_a_directory_names_the_path() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("f"), b"").unwrap();
        let e = write_atomic(&t.path().join("f/x"), b"").unwrap_err();
        assert_eq!(e.action, "create");
        assert_eq!(e.path, t.path().join("f"));
    }

    #[test]
    fn a_bare_name_lives_in_the_current_directory() {
        assert_eq!(parent_dir(Path::new("x")), PathBuf::from("."));
        assert_eq!(parent_dir(Path::new("d/x")), PathBuf::from("d"));
    }
}
