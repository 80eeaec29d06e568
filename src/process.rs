//! Child processes that run in their own process group — builds, tests, `activate`, hooks — so
//! that a timeout stops everything they started, not only the shell.

use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Kills the whole process group led by `pid` (a child spawned with `process_group(0)`).
/// std has no killpg; the `kill` binary takes a negative id for a group. A group that is
/// already gone is not an error.
pub fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Waits for `child` up to `timeout`: `None` if it is still running then. Polls with a pause
/// that grows from 5 ms to 100 ms, so short commands are seen at once and long ones cost little.
pub fn wait_until(child: &mut Child, timeout: Duration) -> std::io::Result<Option<ExitStatus>> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let elapsed = start.elapsed();
        if elapsed >= timeout {
            return Ok(None);
        }
        std::thread::sleep(pause.min(timeout - elapsed));
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// Kills `child`'s group, then reaps the child.
pub fn stop(child: &mut Child) {
    kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}
