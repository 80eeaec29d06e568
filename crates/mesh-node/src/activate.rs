//! Running a module's `activate` or `check` command, bounded in time, keeping the tail of its
//! output for the reason a report gives.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

/// How many lines of output a failure reason keeps (the last ones).
const TAIL_LINES: usize = 20;
/// How many bytes from the end of the output are looked at for those lines.
const TAIL_BYTES: u64 = 16 * 1024;

/// Runs `command` with `sh -c` in `cwd` (the unpacked artifact), with `MESH_MODULE`,
/// `MESH_NODE_ROOT` and `MESH_SECRETS` (the module's secrets directory) set, stdin empty and
/// stdout+stderr captured to an anonymous temp file under `root` (a file, not a pipe: a
/// background child left holding it can never hang us). It runs in its own process group;
/// past `timeout` the whole group is killed. `what` names the command in the reason
/// ("activate", "check").
///
/// `Ok` when it exited 0; otherwise the reason, with the last lines of its output (any secret
/// of the module it printed replaced by its name).
pub(super) fn run(
    what: &str,
    command: &str,
    cwd: &Path,
    module: &str,
    root: &Path,
    timeout: Duration,
) -> Result<(), String> {
    let spec = Spec {
        what,
        command,
        cwd,
        module,
        root,
        timeout,
        env: &[],
    };
    run_with(&spec, None).map(|_| ())
}

/// How to run one command of a module.
pub(super) struct Spec<'a> {
    /// What it is, for the reason ("activate", "check", "provide").
    pub what: &'a str,
    /// The `sh -c` command.
    pub command: &'a str,
    /// Where it runs (the unpacked version).
    pub cwd: &'a Path,
    /// Its module.
    pub module: &'a str,
    /// The node root, absolute.
    pub root: &'a Path,
    /// How long it may take.
    pub timeout: Duration,
    /// More environment.
    pub env: &'a [(&'a str, &'a str)],
}

/// [`run`], with `spec`'s environment; with `stdout`, its standard output goes to that file
/// alone (and the reason's tail is of its standard error).
pub(super) fn run_with(spec: &Spec, stdout: Option<&File>) -> Result<(), String> {
    let what = spec.what;
    let mut out = tempfile::tempfile_in(spec.root)
        .map_err(|e| format!("{what} could not be started: no file for its output: {e}"))?;
    let (out_stdout, stderr) = match (
        stdout.map_or_else(|| out.try_clone(), File::try_clone),
        out.try_clone(),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            return Err(format!(
                "{what} could not be started: no file for its output: {e}"
            ));
        }
    };
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(spec.command)
        .current_dir(spec.cwd)
        .env("MESH_MODULE", spec.module)
        .env("MESH_NODE_ROOT", spec.root)
        .env(
            "MESH_SECRETS",
            super::secrets::dir_of(spec.root, spec.module),
        );
    for (k, v) in spec.env {
        command.env(k, v);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(out_stdout)
        .stderr(stderr)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("{what} could not be started: {e}"))?;

    let result = match crate::process::wait_until(&mut child, spec.timeout) {
        Ok(Some(status)) if status.success() => return Ok(()),
        Ok(Some(status)) => format!("{what} {}", describe(status)),
        Ok(None) => {
            crate::process::stop(&mut child);
            format!(
                "{what} timed out after {}",
                humantime::format_duration(spec.timeout)
            )
        }
        Err(e) => {
            crate::process::stop(&mut child);
            format!("{what} could not be waited for: {e}")
        }
    };
    // A secret the command printed never goes into a report.
    Err(match tail(&mut out) {
        Some(tail) => format!(
            "{result}; last output:\n{}",
            super::secrets::redact(spec.root, spec.module, tail)
        ),
        None => result,
    })
}

/// How a process ended, for a reason.
fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => format!("ended with {status}"),
    }
}

/// The last [`TAIL_LINES`] non-empty lines of the captured output, if any.
fn tail(out: &mut File) -> Option<String> {
    let len = out.seek(SeekFrom::End(0)).ok()?;
    let from = len.saturating_sub(TAIL_BYTES);
    out.seek(SeekFrom::Start(from)).ok()?;
    let mut bytes = Vec::new();
    out.read_to_end(&mut bytes).ok()?;
    // Whole lines only: a cut first line could hold part of a secret, which redaction would
    // no longer recognise.
    if from > 0 {
        let start = bytes
            .iter()
            .position(|b| *b == b'\n')
            .map_or(bytes.len(), |i| i + 1);
        bytes.drain(..start);
    }
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .collect();
    let start = lines.len().saturating_sub(TAIL_LINES);
    let tail = lines[start..].join("\n");
    (!tail.is_empty()).then_some(tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_failure_and_output() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path();
        let long = Duration::from_secs(30);
        assert_eq!(
            run(
                "activate",
                "test \"$MESH_MODULE\" = m && test -n \"$MESH_NODE_ROOT\"",
                p,
                "m",
                p,
                long
            ),
            Ok(())
        );
        let err = run(
            "activate",
            "for i in $(seq 1 30); do echo line$i; done; echo oops >&2; exit 3",
            p,
            "m",
            p,
            long,
        )
        .unwrap_err();
        assert!(err.starts_with("activate exited with status 3"), "{err}");
        assert!(err.ends_with("line29\nline30\noops"), "{err}");
        assert!(!err.contains("line10\n"), "only the tail: {err}");
        assert_eq!(err.lines().count(), 1 + TAIL_LINES);
    }

    #[test]
    fn timeout_kills_the_group() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path();
        let start = std::time::Instant::now();
        let err = run(
            "check",
            "(sleep 1; touch late) & echo started; sleep 30",
            p,
            "m",
            p,
            Duration::from_millis(300),
        )
        .unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(10));
        assert_eq!(err, "check timed out after 300ms; last output:\nstarted");
        // The background child went with the group.
        std::thread::sleep(Duration::from_millis(1500));
        assert!(!p.join("late").exists());
    }
}
