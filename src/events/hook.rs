//! `[hooks] on_event`: each new fact, as JSON on stdin, after it is committed. A failing or
//! hanging hook is reported, never fatal.

use super::Event;
use crate::config::Hooks;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Runs the hook once per event, in order; returns what went wrong, one sentence each. A hook
/// that hangs once would hang for every fact, so after one timeout the rest of this run's facts
/// are left to `mesh events`.
pub fn run_hooks(hooks: &Hooks, dir: &Path, events: &[Event]) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(cmd) = &hooks.on_event else {
        return problems;
    };
    for (i, e) in events.iter().enumerate() {
        match run_one(cmd, &e.to_json(), hooks.timeout, dir) {
            Ok(()) => {}
            Err(Failure::Failed(why)) => {
                problems.push(format!(
                    "the on_event hook failed for fact {}: {why}",
                    e.seq
                ));
            }
            Err(Failure::Hung(why)) => {
                problems.push(format!(
                    "the on_event hook failed for fact {}: {why}",
                    e.seq
                ));
                let rest = events.len() - i - 1;
                if rest > 0 {
                    problems.push(format!(
                        "the {rest} facts after it were not handed to the hook: `mesh events --since {}` lists them",
                        e.seq
                    ));
                }
                break;
            }
        }
    }
    problems
}

/// Why one hook run did not succeed.
enum Failure {
    /// It ran and failed, or could not start.
    Failed(String),
    /// It did not finish in time and was stopped.
    Hung(String),
}

fn run_one(
    cmd: &str,
    fact: &serde_json::Value,
    timeout: Duration,
    dir: &Path,
) -> Result<(), Failure> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .process_group(0)
        .spawn()
        .map_err(|e| Failure::Failed(format!("`{cmd}` could not be started: {e}")))?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = writeln!(stdin, "{fact}");
    }
    match mesh_node::process::wait_until(&mut child, timeout) {
        Ok(Some(s)) if s.success() => Ok(()),
        Ok(Some(s)) => Err(Failure::Failed(format!("`{cmd}` exited with {s}"))),
        Ok(None) => {
            // The whole group: what the shell started must not hold our stderr open.
            mesh_node::process::stop(&mut child);
            Err(Failure::Hung(format!(
                "`{cmd}` did not finish within {} and was stopped",
                humantime::format_duration(timeout)
            )))
        }
        Err(e) => {
            mesh_node::process::stop(&mut child);
            Err(Failure::Failed(format!(
                "`{cmd}` could not be waited for: {e}"
            )))
        }
    }
}
