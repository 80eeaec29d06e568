//! A lingering session (`[ssh] persist`): after a session over ssh, the node keeps answering
//! sessions on a Unix socket in its root for a while, so that the next runs reach it through
//! their kept ssh connection (a forwarded socket) without starting a login shell at all.
//!
//! One server per root (a lock on `.session.lock`); it serves each connection as
//! [`super::session()`] does, and exits once nothing connected for its idle time, or as soon as
//! its own binary was replaced (an upgrade: the next session starts the new one) or its socket
//! removed.

use std::fs::{self, OpenOptions};
use std::io::{BufReader, BufWriter};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::NodeError;

/// Where the lingering session of `root` listens.
pub fn socket_path(root: &Path) -> PathBuf {
    root.join(".session.sock")
}

/// Makes sure a lingering session answers on the root's socket for `idle` after its last use:
/// one already listening is left alone, else this binary is started, detached, as
/// `mesh node serve`. Never fails the session it follows: a node without one is only slower.
pub fn linger(root: &Path, idle: Duration) {
    let socket = socket_path(root);
    if owned_by_me(&socket) && UnixStream::connect(&socket).is_ok() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut command = std::process::Command::new(exe);
    command
        .args(["node", "serve", "--root"])
        .arg(root)
        .arg("--idle")
        .arg(idle.as_secs().max(1).to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // Its own process group: the ssh session that started it ends without it (there is no
    // terminal to hang up).
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    let _ = command.spawn();
}

/// Whether `path` exists and belongs to this user: nothing another user made is trusted.
fn owned_by_me(path: &Path) -> bool {
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    fs::symlink_metadata(path).is_ok_and(|m| m.uid() == me)
}

/// The identity of a file: (device, inode, modified), to notice a binary replaced.
fn identity(path: &Path) -> Option<(u64, u64, i64)> {
    fs::metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino(), m.mtime()))
}

/// Serves sessions on the root's socket until nothing connected for `idle` (and none is in
/// progress), or until this binary is replaced. Returns at once when another server holds the
/// root's session lock.
pub fn serve(root: &Path, idle: Duration) -> Result<(), NodeError> {
    fs::create_dir_all(root).map_err(NodeError::io("create", root))?;
    // Where another user could put their own socket, sessions are not offered at all.
    let shared = fs::metadata(root)
        .map(|m| m.mode() & 0o022 != 0)
        .unwrap_or(true);
    if !owned_by_me(root) || shared {
        return Err(NodeError::Refused {
            reason: format!(
                "{} is not this user's alone (owned by another user, or writable by group or others): no lingering session is offered there",
                root.display()
            ),
        });
    }
    let lock_path = root.join(".session.lock");
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(NodeError::io("open the lock file", &lock_path))?;
    // One that is ending (its binary replaced) lets go within its next look: waited for.
    let asked = Instant::now();
    while lock.try_lock().is_err() {
        if asked.elapsed() > Duration::from_secs(2) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let socket = socket_path(root);
    let _ = fs::remove_file(&socket);
    // Only this user may connect: the socket is made with no permissions for others. The mask
    // is the whole process's, set and restored while it has one thread.
    // SAFETY: umask has no preconditions and only changes this process's file creation mask.
    let old = unsafe { libc::umask(0o077) };
    let listener = UnixListener::bind(&socket);
    // SAFETY: as above.
    unsafe { libc::umask(old) };
    let listener = listener.map_err(NodeError::io("listen on", &socket))?;
    let ours = identity(&socket);
    // The program the controller runs (an upgrade replaces it), else this binary.
    let program = root.join("bin").join("mesh");
    let exe = if program.exists() {
        Some(program)
    } else {
        std::env::current_exe().ok()
    };
    let started_as = exe.as_deref().and_then(identity);

    let start = Instant::now();
    let last = Arc::new(AtomicU64::new(0));
    let active = Arc::new(AtomicUsize::new(0));
    {
        let (last, active, root) = (last.clone(), active.clone(), root.to_path_buf());
        let (exe, started_as) = (exe.clone(), started_as);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                // Replaced (an upgrade): this old binary must not answer for the new one.
                if exe.as_deref().and_then(identity) != started_as {
                    drop(stream);
                    return;
                }
                active.fetch_add(1, Ordering::SeqCst);
                let (last, active, root) = (last.clone(), active.clone(), root.clone());
                std::thread::spawn(move || {
                    if let Ok(reader) = stream.try_clone() {
                        let mut input = BufReader::new(reader);
                        let mut output = BufWriter::new(stream);
                        let _ = super::session(&root, &mut input, &mut output);
                    }
                    last.store(start.elapsed().as_millis() as u64, Ordering::SeqCst);
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
    }
    loop {
        std::thread::sleep(Duration::from_millis(200).min(idle));
        // Replaced (an upgrade), or its socket removed (the root wiped): no one can reach it.
        let replaced = exe.as_deref().and_then(identity) != started_as || identity(&socket) != ours;
        let quiet = Duration::from_millis(start.elapsed().as_millis() as u64)
            .saturating_sub(Duration::from_millis(last.load(Ordering::SeqCst)));
        // Asked to stop (SIGTERM, a shutdown): now, whatever is in progress (a session cut
        // short is a cut stream to the node: nothing half-done stays in force).
        if crate::process::stopped().is_some() {
            break;
        }
        if active.load(Ordering::SeqCst) == 0 && (replaced || quiet >= idle) {
            break;
        }
    }
    // The socket is removed only while it is still this server's.
    if identity(&socket) == ours {
        let _ = fs::remove_file(&socket);
    }
    drop(lock);
    Ok(())
}
