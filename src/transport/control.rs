//! Where ssh's ControlMaster sockets live: private, short enough for a socket path, and kept
//! between runs with `[ssh] persist`.

use crate::config::MeshConfig;
use std::path::Path;

/// Where this run's ssh ControlMaster sockets live: a private temp dir removed at the end of the
/// run, or, with `[ssh] persist`, a private directory kept between runs so the next run finds
/// the connections still open.
pub enum ControlDir {
    /// Removed when the run ends (the connections close with it).
    Run(tempfile::TempDir),
    /// Kept: `$XDG_RUNTIME_DIR/mesh-ssh-<mesh>`, `.mesh/ssh`, or a short one mesh made.
    Kept(std::path::PathBuf),
}

impl ControlDir {
    /// The directory.
    pub fn path(&self) -> &Path {
        match self {
            ControlDir::Run(t) => t.path(),
            ControlDir::Kept(p) => p,
        }
    }
}

/// The longest control directory: a Unix socket's path has at most 107 bytes, and ssh puts
/// `/%C` (41) and, while it makes the socket, a 17-byte suffix after it.
pub(crate) const MAX_CONTROL_DIR: usize = 107 - 41 - 17;

/// The control directory for a run of `mesh`.
pub fn control_dir(mesh: &MeshConfig) -> crate::Result<ControlDir> {
    control_place(mesh, runtime_dir()).map(|(dir, _)| dir)
}

/// `$XDG_RUNTIME_DIR`, when it is set.
pub(super) fn runtime_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("XDG_RUNTIME_DIR").map(std::path::PathBuf::from)
}

/// The control directory, and what a person should know about it. With `[ssh] persist`, the
/// first that can be had of: `$XDG_RUNTIME_DIR/mesh-ssh-<mesh>` (when that is this user's and
/// private), `.mesh/ssh`, a short directory mesh made under /tmp with an unguessable name
/// (remembered in `.mesh/ssh-dir`) when `.mesh` is too deep for a socket path, all made 0700
/// and used only while they are this user's alone. None: persist is off this run, and said.
pub(super) fn control_place(
    mesh: &MeshConfig,
    runtime: Option<std::path::PathBuf>,
) -> crate::Result<(ControlDir, Vec<String>)> {
    let mut said = Vec::new();
    if mesh.ssh.persist.is_some() {
        let id = blake3::hash(mesh.dir.as_os_str().as_encoded_bytes()).to_hex();
        let runtime = runtime.filter(|d| d.is_absolute() && private_dir(d));
        let dot_mesh = mesh.dir.join(".mesh");
        let places = runtime
            .map(|r| r.join(format!("mesh-ssh-{}", &id[..12])))
            .into_iter()
            .chain([dot_mesh.join("ssh")]);
        for dir in places {
            if dir.as_os_str().len() <= MAX_CONTROL_DIR && make_private(&dir) {
                return Ok((ControlDir::Kept(dir), said));
            }
        }
        match short_dir(&dot_mesh) {
            Some(dir) => {
                said.push(format!(
                    "{} is too long a path for ssh's sockets: the kept connections live in {} instead (set XDG_RUNTIME_DIR, or keep the mesh in a shorter path)",
                    dot_mesh.display(),
                    dir.display()
                ));
                return Ok((ControlDir::Kept(dir), said));
            }
            None => said.push(format!(
                "`[ssh] persist` is off this run: no private directory for ssh's sockets could be made (XDG_RUNTIME_DIR unset or not private, {} too long a path or not writable, /tmp not writable); set XDG_RUNTIME_DIR to a private directory",
                dot_mesh.display()
            )),
        }
    }
    private_temp_dir()
        .map(|t| (ControlDir::Run(t), said))
        .map_err(|e| {
            crate::Error::io(
                "cannot make a directory for ssh's control sockets",
                e,
                "check that /tmp exists and is writable",
            )
        })
}

/// A new directory under /tmp with an unguessable name that only this user may enter.
fn private_temp_dir() -> std::io::Result<tempfile::TempDir> {
    use std::os::unix::fs::PermissionsExt;
    tempfile::Builder::new()
        .prefix("mesh-ssh-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in("/tmp")
}

/// Whether `dir` is a directory (not a link) of this user's that no one else may enter.
fn private_dir(dir: &Path) -> bool {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    std::fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir() && m.uid() == me && m.permissions().mode() & 0o077 == 0)
}

/// Makes `dir` (0700) unless it is there; whether it is private now.
fn make_private(dir: &Path) -> bool {
    use std::os::unix::fs::DirBuilderExt;
    let _ = std::fs::DirBuilder::new().mode(0o700).create(dir);
    private_dir(dir)
}

/// A short private directory under /tmp with an unguessable name, the same from run to run:
/// its path is kept in `.mesh/ssh-dir`, and a new one made when that one is gone or not
/// private any more.
fn short_dir(dot_mesh: &Path) -> Option<std::path::PathBuf> {
    let record = dot_mesh.join("ssh-dir");
    if let Ok(kept) = std::fs::read_to_string(&record) {
        let kept = std::path::PathBuf::from(kept.trim());
        if kept.starts_with("/tmp") && private_dir(&kept) {
            return Some(kept);
        }
    }
    let made = private_temp_dir().ok()?.keep();
    if mesh_node::durable::write_atomic(&record, made.as_os_str().as_encoded_bytes()).is_err() {
        let _ = std::fs::remove_dir(&made);
        return None;
    }
    private_dir(&made).then_some(made)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MeshConfig;
    use crate::transport::Connections;

    #[test]
    fn the_control_dir_is_private_and_made_where_the_user_says() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("sockets");
        assert!(make_private(&dir));
        assert_eq!(
            std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
        // Another user's, or one others may enter, is never used.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(!make_private(&dir));
        let link = t.path().join("link");
        std::os::unix::fs::symlink(t.path(), &link).unwrap();
        assert!(!private_dir(&link));
    }

    fn persisting_mesh(dir: &Path) -> MeshConfig {
        std::fs::create_dir_all(dir.join(".mesh")).unwrap();
        let text = "[mesh]\nname = \"m\"\n\n[ssh]\npersist = \"1m\"\n\n[node.a]\naddress = \"a\"\nroot = \"r\"\n";
        MeshConfig::parse(text, "mesh.toml", dir).unwrap()
    }

    #[test]
    fn kept_sockets_live_in_the_runtime_dir_else_under_dot_mesh_else_somewhere_short() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let runtime = t.path().join("run");
        std::fs::create_dir(&runtime).unwrap();
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
        let mesh = persisting_mesh(&t.path().join("m"));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // $XDG_RUNTIME_DIR, when it is private: a 0700 directory inside it.
        let (dir, said) = control_place(&mesh, Some(runtime.clone())).unwrap();
        let ControlDir::Kept(dir) = dir else {
            panic!("not kept")
        };
        assert_eq!(dir.parent(), Some(runtime.as_path()));
        assert!(!dir.starts_with("/tmp/mesh-ssh-"), "{}", dir.display());
        assert_eq!(mode(&dir), 0o700);
        // The node's relative root is said, not silently left without a lingering session.
        assert!(said.is_empty(), "{said:?}");
        let c = Connections::new(&mesh, 0).unwrap();
        assert!(
            c.warnings().iter().any(|w| w.contains("is relative")),
            "{:?}",
            c.warnings()
        );
        drop(c);
        // One others may enter is not used: .mesh/ssh then.
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (dir, said) = control_place(&mesh, Some(runtime)).unwrap();
        assert_eq!(dir.path(), mesh.dir.join(".mesh/ssh"));
        assert_eq!(mode(dir.path()), 0o700);
        assert!(said.is_empty(), "{said:?}");
        // A mesh too deep for a socket path: a short directory, the same next time, and said.
        let deep = persisting_mesh(&t.path().join("d".repeat(60)));
        let (first, said) = control_place(&deep, None).unwrap();
        assert!(first.path().as_os_str().len() <= MAX_CONTROL_DIR);
        assert_eq!(mode(first.path()), 0o700);
        assert!(
            said.iter().any(|s| s.contains("too long a path")),
            "{said:?}"
        );
        let (again, _) = control_place(&deep, None).unwrap();
        assert_eq!(first.path(), again.path());
        let _ = std::fs::remove_dir(first.path());
    }
}
