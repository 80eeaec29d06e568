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

/// Writes `bytes` to `path` whole or not at all: a temp file beside it (`.NAME.tmp-…`), fsync,
/// rename, fsync of the directory (created if missing). The file is private (0600).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), DurableError> {
    write_atomic_mode(path, bytes, None)
}

/// [`write_atomic`] with the file's mode set before it appears: a file meant to be published
/// (a status page a web server reads) is never seen private.
pub fn write_atomic_mode(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), DurableError> {
    let dir = parent_dir(path);
    std::fs::create_dir_all(&dir).map_err(DurableError::at("create", &dir))?;
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(path.file_name().unwrap_or_default());
    prefix.push(".tmp-");
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
    persist(tmp, path)
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
