//! `[hooks] on_event`: each new fact, as JSON on stdin, after it is committed. A failing or
//! hanging hook is reported, never fatal.

use super::{Ctx, Ui};
use crate::events::Event;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the hook once per event, in order.
pub fn run_hooks(ctx: &Ctx, ui: &Ui, events: &[Event]) {
    let Some(cmd) = &ctx.mesh.hooks.on_event else {
        return;
    };
    for e in events {
        if let Err(why) = run_one(cmd, &e.to_json(), ctx.mesh.hooks.timeout, &ctx.mesh.dir) {
            ui.warn(format!(
                "the on_event hook failed for fact {}: {why}",
                e.seq
            ));
        }
    }
}

fn run_one(
    cmd: &str,
    fact: &serde_json::Value,
    timeout: Duration,
    dir: &std::path::Path,
) -> Result<(), String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("`{cmd}` could not be started: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = writeln!(stdin, "{fact}");
    }
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(s)) if s.success() => return Ok(()),
            Ok(Some(s)) => return Err(format!("`{cmd}` exited with {s}")),
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "`{cmd}` did not finish within {} and was stopped",
                    humantime::format_duration(timeout)
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("`{cmd}` could not be waited for: {e}")),
        }
    }
}
