//! The node's floor: what every node verb checks before it touches ROOT, and how it opens its
//! lock files. Whoever can write into ROOT decides what the node runs (they can put their own
//! declaration, artifacts or `bin/mesh-node` there), so ROOT must be this user's alone.
//!
//! - ROOT is looked at with `lstat`: a ROOT that is a symbolic link is refused, not followed.
//!   The check would otherwise be about one directory and the work done in whatever the link
//!   points to later; naming the real directory costs the user one edit.
//! - ROOT must be a directory owned by the user mesh runs as, not writable by group or others.
//! - No directory above ROOT may be writable by everyone without its sticky bit (as `/tmp`
//!   has): whoever can write there can move ROOT aside and put their own in its place. (A
//!   parent writable by its group passes: with a user's private group that is no one else.)
//! - A ROOT that does not exist yet passes the check (there is nothing in it to trust); the verbs
//!   that write make it with mode 0700 (its missing parents too), so a verb that only reads
//!   creates nothing.
//! - Lock files (`.lock`, `.session.lock`) are opened with `O_NOFOLLOW`: a link planted in their
//!   place is never followed into a file elsewhere.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::NodeError;

/// The same check as [`check_root`], as a POSIX shell preamble for where no mesh runs yet on
/// the node (`mesh node install` over ssh): ROOT is `$1`. It fails with the reason on stderr.
pub const SHELL_CHECK: &str = r#"case "$1" in ""|-*) echo "the node root '$1' is refused: it is empty or starts with -, which commands read as an option: set the node's root to an absolute path" >&2; exit 1;; esac; if [ -L "$1" ]; then echo "$1 is a symbolic link; mesh does not follow it: set the node's root to the real directory" >&2; exit 1; fi; if [ ! -e "$1" ]; then (umask 077; mkdir -p "$1"); fi; if [ ! -d "$1" ] || [ ! -O "$1" ]; then echo "$1 is not a directory owned by $(id -un): chown $(id -un) $1" >&2; exit 1; fi; if [ -n "$(find "$1" -prune \( -perm -020 -o -perm -002 \))" ]; then echo "$1 is writable by group or others: chmod go-w $1" >&2; exit 1; fi; d=$(cd "$1/.." && pwd -P) || exit 1; while :; do if [ -n "$(find "$d/." -prune -perm -002 ! -perm -1000)" ]; then echo "$1 is refused: $d above it is writable by everyone without the sticky bit, so anyone can move it aside and put their own in its place: chmod o-w $d (or chmod +t $d), or move the root" >&2; exit 1; fi; [ "$d" = / ] && break; d=$(dirname "$d"); done; "#;

/// A node's root directory that passed [`check_root`]: only [`Root::check`] makes one, so every
/// node verb takes a root the floor let through, and none can forget to ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root(PathBuf);

impl Root {
    /// `path`, once [`check_root`] lets it through.
    pub fn check(path: &Path) -> Result<Root, NodeError> {
        check_root(path)?;
        Ok(Root(path.to_path_buf()))
    }
}

impl std::ops::Deref for Root {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Root {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

/// Checks that `root` is a directory of this user's alone (see the module's doc). A root that
/// does not exist passes: there is nothing in it to trust, and whatever makes it makes it
/// with [`make_root`]. Called first by every node verb.
pub fn check_root(root: &Path) -> Result<(), NodeError> {
    // "dir/" would make lstat follow a link named dir.
    let root: PathBuf = root.components().collect();
    match fs::symlink_metadata(&root) {
        Ok(meta) => judge(&root, &meta),
        // Absent (a file in a parent's place too): the verb that writes says why it cannot.
        Err(e)
            if e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR) =>
        {
            Ok(())
        }
        Err(e) => Err(NodeError::io("read", &root)(e)),
    }
}

/// Makes `root` (mode 0700, and its missing parents) when it does not exist yet, then checks it
/// as [`check_root`] does: what the node verbs that write call before they write.
pub fn make_root(root: &Path) -> Result<(), NodeError> {
    let root: PathBuf = root.components().collect();
    match fs::symlink_metadata(&root) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&root)
            .map_err(NodeError::io("create", &root))?,
        Err(e) => return Err(NodeError::io("read", &root)(e)),
        Ok(_) => {}
    }
    let meta = fs::symlink_metadata(&root).map_err(NodeError::io("read", &root))?;
    judge(&root, &meta)
}

/// Whether `root`, as `lstat` saw it (`meta`), is a directory of this user's alone, under
/// directories no one else can swap it in.
fn judge(root: &Path, meta: &fs::Metadata) -> Result<(), NodeError> {
    judge_itself(root, meta)?;
    judge_parents(root)
}

/// Every directory above `root` (as written, and as its links resolve): none may be writable
/// by everyone unless sticky, or anyone can rename ROOT away and put a directory of their own
/// in its place.
fn judge_parents(root: &Path) -> Result<(), NodeError> {
    let absolute = std::path::absolute(root).map_err(NodeError::io("read", root))?;
    let mut above: Vec<PathBuf> = absolute
        .ancestors()
        .skip(1)
        .map(Path::to_path_buf)
        .collect();
    if let Some(parent) = absolute.parent()
        && let Ok(real) = fs::canonicalize(parent)
    {
        above.extend(real.ancestors().map(Path::to_path_buf));
    }
    for dir in above {
        let Ok(meta) = fs::symlink_metadata(&dir) else {
            continue;
        };
        // A link's own mode means nothing; the directory holding it is checked as well, and
        // where it leads is in the resolved list.
        if !meta.is_dir() {
            continue;
        }
        let mode = meta.mode() & 0o7777;
        if mode & 0o002 != 0 && mode & 0o1000 == 0 {
            return Err(NodeError::UnsafeRoot {
                path: root.to_path_buf(),
                reason: format!(
                    "{} above it is writable by everyone without the sticky bit (mode {mode:o}), so anyone can move the root aside and put their own in its place",
                    dir.display()
                ),
                fix: format!(
                    "`chmod o-w {}` (or `chmod +t {0}`, as /tmp has), or set the node's root to a directory under ones not everyone can write",
                    dir.display()
                ),
            });
        }
    }
    Ok(())
}

/// The root directory itself: not a link, a directory, owned by this user, not writable by
/// group or others.
fn judge_itself(root: &Path, meta: &fs::Metadata) -> Result<(), NodeError> {
    let unsafe_root = |reason: String, fix: String| NodeError::UnsafeRoot {
        path: root.to_path_buf(),
        reason,
        fix,
    };
    if meta.file_type().is_symlink() {
        let real = fs::canonicalize(root)
            .map(|p| format!("`{}`", p.display()))
            .unwrap_or_else(|_| "the directory it points to".into());
        return Err(unsafe_root(
            "it is a symbolic link, which mesh does not follow".into(),
            format!("set the node's root (`root` in mesh.toml, `--root`) to {real}"),
        ));
    }
    if !meta.is_dir() {
        return Err(unsafe_root(
            "it is not a directory".into(),
            "move the file aside, or set the node's root to a directory".into(),
        ));
    }
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Err(unsafe_root(
            format!(
                "it is owned by uid {}, and mesh runs as uid {me}",
                meta.uid()
            ),
            format!(
                "`chown {me} {}` (or run mesh on the node as its owner)",
                root.display()
            ),
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(unsafe_root(
            format!(
                "it is writable by group or others (mode {:o})",
                meta.mode() & 0o7777
            ),
            format!("`chmod go-w {}`", root.display()),
        ));
    }
    Ok(())
}

/// Opens the lock file `path` for writing without following a symbolic link (`O_NOFOLLOW`),
/// creating it (mode 0600) when `create`. A link in its place is an error that says so.
pub(super) fn open_lock(path: &Path, create: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(0o600);
    if create {
        options.create(true).truncate(false);
    }
    options.open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc::ELOOP) {
            io::Error::other(format!(
                "it is a symbolic link, which mesh does not follow; remove it (`rm {}`)",
                path.display()
            ))
        } else {
            e
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};

    fn refused(root: &Path) -> String {
        let made = make_root(root);
        assert_eq!(
            made.is_err(),
            check_root(root).is_err(),
            "make_root and check_root agree on an existing root"
        );
        match made {
            Err(e @ NodeError::UnsafeRoot { .. }) => {
                let help = miette::Diagnostic::help(&e).map(|h| h.to_string());
                format!("{e} | {}", help.unwrap_or_default())
            }
            other => panic!("{} was not refused: {other:?}", root.display()),
        }
    }

    #[test]
    fn a_missing_root_passes_and_is_made_0700_by_a_writer() {
        let t = tempfile::tempdir().expect("tempdir");
        let root = t.path().join("a/b/root");
        check_root(&root).expect("nothing there to refuse");
        assert!(!t.path().join("a").exists(), "a reader creates nothing");
        make_root(&root).expect("made");
        let mode = fs::metadata(&root).expect("root").mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "made {mode:o}");
        check_root(&root).expect("it passes once made");
        make_root(&root).expect("and again");
    }

    #[test]
    fn a_root_writable_by_group_or_others_is_refused_with_chmod() {
        let t = tempfile::tempdir().expect("tempdir");
        for mode in [0o770, 0o702, 0o777] {
            fs::set_permissions(t.path(), fs::Permissions::from_mode(mode)).expect("chmod");
            let said = refused(t.path());
            assert!(
                said.contains("writable by group or others") && said.contains("chmod go-w"),
                "{said}"
            );
        }
        fs::set_permissions(t.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
        check_root(t.path()).expect("0755 is this user's alone");
    }

    #[test]
    fn a_root_that_is_a_symlink_is_refused_and_the_real_directory_named() {
        let t = tempfile::tempdir().expect("tempdir");
        let real = t.path().join("real");
        fs::create_dir(&real).expect("mkdir");
        let link = t.path().join("link");
        std::os::unix::fs::symlink(&real, &link).expect("symlink");
        let said = refused(&link);
        assert!(said.contains("symbolic link"), "{said}");
        assert!(said.contains(&real.display().to_string()), "{said}");
        // With a trailing slash too (lstat would follow it).
        let slashed = PathBuf::from(format!("{}/", link.display()));
        assert!(refused(&slashed).contains("symbolic link"));
        check_root(&real).expect("the real one passes");
    }

    #[test]
    fn a_file_in_place_of_the_root_is_refused() {
        let t = tempfile::tempdir().expect("tempdir");
        let file = t.path().join("file");
        fs::write(&file, b"").expect("write");
        assert!(refused(&file).contains("not a directory"));
    }

    #[test]
    fn a_root_owned_by_another_user_is_refused_with_chown() {
        let t = tempfile::tempdir().expect("tempdir");
        // SAFETY: geteuid has no preconditions.
        let root = if unsafe { libc::geteuid() } == 0 {
            let theirs = t.path().join("theirs");
            fs::create_dir(&theirs).expect("mkdir");
            std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).expect("chown");
            theirs
        } else {
            // Owned by root, and never written: the check refuses first.
            PathBuf::from("/")
        };
        let said = refused(&root);
        assert!(
            said.contains("owned by uid") && said.contains("chown"),
            "{said}"
        );
    }

    #[test]
    fn a_lock_file_that_is_a_symlink_is_not_followed() {
        let t = tempfile::tempdir().expect("tempdir");
        let target = t.path().join("elsewhere");
        fs::write(&target, b"keep").expect("write");
        let lock = t.path().join(".lock");
        std::os::unix::fs::symlink(&target, &lock).expect("symlink");
        for create in [true, false] {
            let e = open_lock(&lock, create).expect_err("a link is not opened");
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
        assert_eq!(fs::read(&target).expect("target"), b"keep");
        let real = t.path().join(".session.lock");
        open_lock(&real, true).expect("a plain lock file opens");
        let mode = fs::metadata(&real).expect("lock").mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "made {mode:o}");
        open_lock(&real, false).expect("and opens again");
    }

    /// Issue 33, item 12: a parent anyone may write lets them move ROOT aside and put their
    /// own in its place: refused, naming the parent and what to do; sticky (as /tmp) passes,
    /// and so does one its group may write (a user's private group, often).
    #[test]
    fn a_root_under_a_parent_others_may_write_is_refused_unless_sticky() {
        let t = tempfile::tempdir().expect("tempdir");
        let open = t.path().join("open");
        let root = open.join("deep/root");
        fs::create_dir_all(&root).expect("mkdir");
        for mode in [0o777, 0o703] {
            fs::set_permissions(&open, fs::Permissions::from_mode(mode)).expect("chmod");
            let said = refused(&root);
            assert!(
                said.contains(&format!("{} above it is writable", open.display()))
                    && said.contains("sticky")
                    && said.contains(&format!("chmod o-w {}", open.display())),
                "{said}"
            );
            let (code, said) = shell_check(&root);
            assert_eq!(code, Some(1), "{said}");
            assert!(said.contains("sticky"), "{said}");
        }
        fs::set_permissions(&open, fs::Permissions::from_mode(0o1777)).expect("chmod");
        check_root(&root).expect("sticky, as /tmp is");
        assert_eq!(shell_check(&root), (Some(0), "passed\n".into()));
        fs::set_permissions(&open, fs::Permissions::from_mode(0o775)).expect("chmod");
        check_root(&root).expect("its group may write there");
        assert_eq!(shell_check(&root), (Some(0), "passed\n".into()));
    }

    /// Issue 33, item 12: the shell check never hands a root that reads as an option to the
    /// commands it runs (`find -delete …` would delete the login directory).
    #[test]
    fn the_shell_check_refuses_a_root_that_reads_as_an_option() {
        let t = tempfile::tempdir().expect("tempdir");
        let keep = t.path().join("keep");
        fs::write(&keep, b"keep").expect("write");
        // A directory of that name, this user's alone: the checks before `find` all pass.
        fs::DirBuilder::new()
            .mode(0o700)
            .create(t.path().join("-delete"))
            .expect("mkdir");
        let out = std::process::Command::new("sh")
            .args(["-c", &format!("{SHELL_CHECK}echo passed")])
            .arg("sh")
            .arg("-delete")
            .current_dir(t.path())
            .output()
            .expect("sh");
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{said}");
        assert!(said.contains("starts with -"), "{said}");
        assert!(keep.exists(), "find deleted what was beside the root");
    }

    /// Runs [`SHELL_CHECK`] on `root` with `sh`: (exit code, stderr).
    fn shell_check(root: &Path) -> (Option<i32>, String) {
        let out = std::process::Command::new("sh")
            .args(["-c", &format!("{SHELL_CHECK}echo passed")])
            .arg("sh")
            .arg(root)
            .output()
            .expect("sh");
        let said = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), said)
    }

    #[test]
    fn the_shell_check_refuses_what_check_root_refuses() {
        let t = tempfile::tempdir().expect("tempdir");
        let missing = t.path().join("new/root");
        assert_eq!(shell_check(&missing), (Some(0), "passed\n".into()));
        let mode = fs::metadata(&missing).expect("made").mode() & 0o777;
        assert_eq!(mode & 0o077, 0, "made {mode:o}");

        fs::set_permissions(&missing, fs::Permissions::from_mode(0o775)).expect("chmod");
        let (code, said) = shell_check(&missing);
        assert_eq!(code, Some(1), "{said}");
        assert!(said.contains("chmod go-w"), "{said}");

        let link = t.path().join("link");
        std::os::unix::fs::symlink(&missing, &link).expect("symlink");
        let (code, said) = shell_check(&link);
        assert_eq!(code, Some(1), "{said}");
        assert!(said.contains("symbolic link"), "{said}");

        let file = t.path().join("file");
        fs::write(&file, b"").expect("write");
        let (code, said) = shell_check(&file);
        assert_eq!(code, Some(1), "{said}");
        assert!(said.contains("chown"), "{said}");
    }
}
