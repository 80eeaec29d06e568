//! The ssh transport: `ROOT/bin/mesh node …` on the node, through one ssh session per node per
//! run (a ControlMaster, so a node costs one handshake per run).

use super::ssh::{SshError, SshSession};
use super::{Answer, Transport, TransportError};
use crate::config::{MeshConfig, NodeConfig};
use crate::node::Have;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

/// How long the short calls (have, report) may take.
const SHORT: Duration = Duration::from_secs(120);
/// How long a receive (artifacts on the wire), an apply (activate commands) or an install may
/// take.
const LONG: Duration = Duration::from_secs(30 * 60);

/// A node reached over ssh.
pub struct SshNode {
    session: SshSession,
    /// Leave the connection open for the next run (`[ssh] persist`).
    persist: bool,
    root: String,
    program: String,
}

impl SshNode {
    /// The node's session for this run; `control_dir` holds the ControlMaster socket.
    pub fn new(mesh: &MeshConfig, node: &NodeConfig, control_dir: &Path) -> SshNode {
        let mut options = mesh.ssh.options.clone();
        options.extend(node.options.iter().cloned());
        let address = node.address.clone().unwrap_or_default();
        let mut session =
            SshSession::new(&address, &options, control_dir, mesh.ssh.connect_timeout);
        if let Some(persist) = mesh.ssh.persist {
            session = session.with_persist(persist);
        }
        SshNode {
            persist: mesh.ssh.persist.is_some(),
            session,
            program: format!("{}/bin/mesh", node.root.trim_end_matches('/')),
            root: node.root.clone(),
        }
    }

    fn node(
        &self,
        verb: &str,
        extra: &[&str],
        stdin: Option<&mut (dyn Read + Send)>,
        timeout: Duration,
    ) -> Result<super::ssh::Output, TransportError> {
        let mut argv = vec![
            self.program.as_str(),
            "node",
            verb,
            "--root",
            self.root.as_str(),
        ];
        argv.extend_from_slice(extra);
        let out = self.session.run(&argv, stdin, timeout).map_err(ssh_error)?;
        if out.status == 127 || out.status == 126 {
            return Err(TransportError::NotInstalled(format!(
                "{} cannot be run there (exit {})",
                self.program, out.status
            )));
        }
        Ok(out)
    }
}

/// ssh's failure as one sentence, with its help (what to do next) after a semicolon.
fn ssh_error(e: SshError) -> TransportError {
    use miette::Diagnostic;
    let text = match e.help() {
        Some(help) => format!("{e}; {help}"),
        None => e.to_string(),
    };
    if e.is_unreachable() {
        TransportError::Unreachable(text)
    } else if matches!(e, SshError::HostKey { .. } | SshError::KeyRefused { .. }) {
        TransportError::Refused(text)
    } else {
        TransportError::Failed(text)
    }
}

/// Exit 75 from the node side: its lock was held for longer than it waits. The node was not
/// reached this run (nothing changed there), which the next run retries.
fn busy(out: &super::ssh::Output) -> Result<(), TransportError> {
    if out.status == 75 {
        return Err(TransportError::Unreachable(format!(
            "the node is busy ({})",
            words(out)
        )));
    }
    Ok(())
}

fn words(out: &super::ssh::Output) -> String {
    let s = out.stderr.trim();
    let last = s.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("");
    format!("exit {}: {last}", out.status)
}

impl Transport for SshNode {
    fn have(&self) -> Result<Have, TransportError> {
        let out = self.node("have", &[], None, SHORT)?;
        if out.status != 0 {
            return Err(TransportError::Failed(format!(
                "`mesh node have` failed: {}",
                words(&out)
            )));
        }
        let line = out
            .stdout
            .split(|&b| b == b'\n')
            .find(|l| l.starts_with(b"{"))
            .unwrap_or(&[]);
        serde_json::from_slice(line).map_err(|e| {
            TransportError::NotInstalled(format!(
                "its `mesh node have` answer is not one this mesh reads ({e})"
            ))
        })
    }

    fn receive(&self, stream: &mut (dyn Read + Send)) -> Result<Answer, TransportError> {
        let out = self.node("receive", &[], Some(stream), LONG)?;
        busy(&out)?;
        let answer = out
            .stdout
            .split(|&b| b == b'\n')
            .filter(|l| l.starts_with(b"{"))
            .find_map(|l| serde_json::from_slice::<Answer>(l).ok());
        answer.ok_or_else(|| {
            TransportError::Failed(format!(
                "`mesh node receive` gave no answer: {}",
                words(&out)
            ))
        })
    }

    fn apply(&self) -> Result<Option<String>, TransportError> {
        let out = self.node("apply", &[], None, LONG)?;
        busy(&out)?;
        match out.status {
            0 => Ok(None),
            3 => {
                // The node's report, one JSON line: its reason.
                let reason = out
                    .stdout
                    .split(|&b| b == b'\n')
                    .filter(|l| l.starts_with(b"{"))
                    .find_map(|l| serde_json::from_slice::<crate::node::Report>(l).ok())
                    .and_then(|r| r.reason);
                Ok(Some(reason.unwrap_or_else(|| "the apply failed".into())))
            }
            _ => Err(TransportError::Failed(format!(
                "`mesh node apply` failed: {}",
                words(&out)
            ))),
        }
    }

    fn reports(&self, since: u64) -> Result<Vec<u8>, TransportError> {
        let since = since.to_string();
        let out = self.node("report", &["--since", &since], None, SHORT)?;
        busy(&out)?;
        if out.status != 0 {
            return Err(TransportError::Failed(format!(
                "`mesh node report` failed: {}",
                words(&out)
            )));
        }
        Ok(out.stdout)
    }

    fn install(&self) -> Result<(), TransportError> {
        let exe = std::env::current_exe()
            .map_err(|e| TransportError::Failed(format!("cannot find this mesh binary: {e}")))?;
        let mut file = std::fs::File::open(&exe)
            .map_err(|e| TransportError::Failed(format!("cannot read {}: {e}", exe.display())))?;
        let size = file
            .metadata()
            .map_err(|e| TransportError::Failed(format!("cannot read {}: {e}", exe.display())))?
            .len()
            .to_string();
        // A cut upload looks like a short input to `cat`: only a whole binary is moved in.
        let script = r#"set -e; mkdir -p "$1/bin"; cat > "$1/bin/mesh.tmp"; test "$(wc -c < "$1/bin/mesh.tmp")" -eq "$2" || { rm -f "$1/bin/mesh.tmp"; echo "the upload was cut short" >&2; exit 1; }; chmod 755 "$1/bin/mesh.tmp"; mv "$1/bin/mesh.tmp" "$1/bin/mesh""#;
        let out = self
            .session
            .run(
                &["sh", "-c", script, "sh", &self.root, &size],
                Some(&mut file),
                LONG,
            )
            .map_err(ssh_error)?;
        if out.status != 0 {
            return Err(TransportError::Failed(format!(
                "installing mesh under {}/bin failed: {}",
                self.root,
                words(&out)
            )));
        }
        Ok(())
    }
}

impl Drop for SshNode {
    fn drop(&mut self) {
        if !self.persist {
            self.session.close();
        }
    }
}
