//! Running commands on a node with the system `ssh` client.
//!
//! There is no ssh library here: [`Ssh`] builds an `ssh` command line and runs it. Every
//! call uses `BatchMode=yes` (never a password prompt) and a per-run `ControlMaster`, so the first
//! command to a node pays for the TCP connection and the authentication and the following ones
//! ride on it. The user's `~/.ssh/config` applies as usual: mesh never passes `-F` and never turns
//! host key checking off.
//!
//! The remote command is one string of shell-quoted words, so the node's login shell must be a
//! POSIX shell (sh, bash, dash, zsh); the node runs `mesh node …` through it.

use miette::Diagnostic;
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};
use thiserror::Error;

/// The longest pause between two looks at a running ssh: a command through a control master
/// takes a few milliseconds, so a coarser poll would be most of its cost.
const POLL_AT_MOST: Duration = Duration::from_millis(4);

/// How long a control master outlives the last command that used it, in seconds.
const CONTROL_PERSIST_SECS: u64 = 60;

/// One ssh session to a node: options, and a ControlMaster so one node costs one TCP+auth
/// handshake per run (or none, when [`with_persist`](Self::with_persist) keeps the master
/// between runs).
///
/// The session is cheap to make and holds no process itself: the first [`run`](Self::run) starts
/// a control master in the background (it exits [`CONTROL_PERSIST_SECS`] after its last use, when
/// the connection drops, or on [`close`](Self::close)). `run` may be called from several threads.
#[derive(Debug, Clone)]
pub struct Ssh {
    /// The program to run: `ssh` on the `PATH` (tests name a missing one).
    program: PathBuf,
    /// `user@host` or a `Host` alias of `~/.ssh/config`.
    address: String,
    /// Everything before the destination: the defaults, then the caller's options.
    args: Vec<OsString>,
}

/// What a remote command printed, and how it exited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Everything the command wrote to stdout.
    pub stdout: Vec<u8>,
    /// Everything the command (and ssh) wrote to stderr, decoded lossily.
    pub stderr: String,
    /// The command's exit status (never 255: ssh uses that for its own failures).
    pub status: i32,
}

/// Why a command could not be run on a node.
#[derive(Debug, Error, Diagnostic)]
pub enum SshError {
    /// Nothing listens on the node's ssh port.
    #[error("{address}: connection refused")]
    #[diagnostic(
        code(mesh::ssh::refused),
        help(
            "check that the node is up and sshd runs on it, and that the port in the node's ssh options is right"
        )
    )]
    ConnectionRefused {
        /// The node's ssh address.
        address: String,
    },

    /// The host name does not resolve.
    #[error("{address}: could not resolve host")]
    #[diagnostic(
        code(mesh::ssh::unknown_host),
        help(
            "check the node's address in mesh.toml (or its Host entry in ~/.ssh/config) and this machine's DNS"
        )
    )]
    UnknownHost {
        /// The node's ssh address.
        address: String,
    },

    /// The TCP connection (or ssh's greeting) did not complete within the connect timeout.
    #[error("{address}: connection timed out")]
    #[diagnostic(
        code(mesh::ssh::connect_timeout),
        help("check that the node is up and reachable from here (network, VPN, firewall)")
    )]
    ConnectTimeout {
        /// The node's ssh address.
        address: String,
    },

    /// The node cannot be reached or the connection broke (no route, reset, closed, silent).
    #[error("{address}: unreachable: {detail}")]
    #[diagnostic(
        code(mesh::ssh::unreachable),
        help(
            "check that the node is up and reachable from here (network, VPN, firewall), then try again"
        )
    )]
    Unreachable {
        /// The node's ssh address.
        address: String,
        /// ssh's own words.
        detail: String,
    },

    /// The node refused every key ssh offered.
    #[error("{address}: ssh refused the key ({detail})")]
    #[diagnostic(
        code(mesh::ssh::key_refused),
        help(
            "load the key into the agent (`ssh-add`) or name it with `-i` in the node's ssh options, and check that its public key is in ~/.ssh/authorized_keys of the node's user"
        )
    )]
    KeyRefused {
        /// The node's ssh address.
        address: String,
        /// ssh's own words.
        detail: String,
    },

    /// The node's host key does not match known_hosts, or is not in it.
    #[error("{address}: the node's host key changed or is unknown: ssh refused to connect")]
    #[diagnostic(
        code(mesh::ssh::host_key),
        help(
            "unknown: accept it once by running ssh to the node with the options mesh passes (with `-F FILE` in `[ssh] options`: `ssh -F FILE ADDRESS true`). Changed: ask whoever runs the node whether on purpose; if so, remove the old key from the known_hosts file that ssh uses (`ssh-keygen -R HOST -f FILE`, FILE being `UserKnownHostsFile` of your ssh config, default ~/.ssh/known_hosts; a node on another port is `'[HOST]:PORT'`, e.g. `'[127.0.0.1]:24001'`) and accept the new one the same way. mesh never bypasses host key checking"
        )
    )]
    HostKey {
        /// The node's ssh address.
        address: String,
    },

    /// There is no `ssh` binary on the `PATH`.
    #[error("the ssh client is not installed")]
    #[diagnostic(
        code(mesh::ssh::not_installed),
        help(
            "install it: `apt-get install openssh-client` (or your system's OpenSSH client package)"
        )
    )]
    NotInstalled,

    /// The command did not finish within the run's timeout; ssh was killed.
    #[error("{address}: no answer within {}s", .timeout.as_secs_f64())]
    #[diagnostic(
        code(mesh::ssh::timeout),
        help(
            "the node or the network is slow or stuck; try again, and check the node if it keeps happening"
        )
    )]
    Timeout {
        /// The node's ssh address.
        address: String,
        /// The timeout that passed.
        timeout: Duration,
    },

    /// ssh failed (exit 255) for a reason not recognised above.
    #[error("{address}: ssh failed: {detail}")]
    #[diagnostic(
        code(mesh::ssh::failed),
        help("run `ssh` to the node by hand, with the node's ssh options, to see what is wrong")
    )]
    Failed {
        /// The node's ssh address.
        address: String,
        /// ssh's own words (the last line of its stderr), or how it died.
        detail: String,
    },

    /// An argument cannot be passed through a shell.
    #[error("cannot send {arg:?} to a node: it contains a NUL byte")]
    #[diagnostic(
        code(mesh::ssh::bad_argument),
        help("this is a bug in mesh: names are validated before they reach the transport")
    )]
    BadArgument {
        /// The argument, as far as it can be shown.
        arg: String,
    },

    /// Reading the data to send failed; ssh was killed so the node does not see a clean end.
    #[error("{address}: could not read the data to send: {source}")]
    #[diagnostic(
        code(mesh::ssh::input),
        help(
            "check the local file being sent (disk errors, a file removed while sending), then try again"
        )
    )]
    Input {
        /// The node's ssh address.
        address: String,
        /// The read error.
        source: io::Error,
    },

    /// Starting ssh, or talking to it through its pipes, failed.
    #[error("{address}: could not run ssh: {source}")]
    #[diagnostic(
        code(mesh::ssh::io),
        help(
            "check that this machine is not out of processes or file descriptors, then try again"
        )
    )]
    Io {
        /// The node's ssh address.
        address: String,
        /// The OS error.
        source: io::Error,
    },
}

impl SshError {
    /// True for connection-level failures: the node could not be reached at all, or the connection
    /// broke. Such a node stays out of date, `unreachable since T`.
    ///
    /// False for everything that needs someone to act (a refused key, a changed host key, no ssh
    /// client) and for [`SshError::Timeout`], where the node may have answered and then hung.
    pub fn is_unreachable(&self) -> bool {
        matches!(
            self,
            SshError::ConnectionRefused { .. }
                | SshError::UnknownHost { .. }
                | SshError::ConnectTimeout { .. }
                | SshError::Unreachable { .. }
        )
    }
}

impl Ssh {
    /// A session to `address`: "user@host" (or a ~/.ssh/config Host alias).
    ///
    /// `options` are extra ssh args (e.g. `["-p", "2222", "-i", "key"]`) appended after the
    /// defaults. ssh keeps the first value it sees for each `-o` option, so the defaults hold (a
    /// `-o BatchMode=no` in `options` has no effect) and both win over `~/.ssh/config`, which
    /// still applies to everything else. `control_dir` is a private
    /// directory (0700) for the ControlPath socket, owned by the caller for the run; keep its path
    /// under ~60 bytes, since a Unix socket path is limited to 108 and `%C` adds 41.
    /// `connect_timeout` bounds the TCP connection and ssh's greeting (whole seconds, at least 1).
    pub fn new(
        address: &str,
        options: &[String],
        control_dir: &Path,
        connect_timeout: Duration,
    ) -> Ssh {
        let secs = connect_timeout.as_secs().max(1);
        let mut control_path = OsString::from("ControlPath=");
        control_path.push(control_dir.join("%C"));
        let mut args: Vec<OsString> = Vec::new();
        for option in [
            "BatchMode=yes".to_string(),
            format!("ConnectTimeout={secs}"),
            "ControlMaster=auto".to_string(),
        ] {
            args.push("-o".into());
            args.push(option.into());
        }
        args.push("-o".into());
        args.push(control_path);
        for option in [
            format!("ControlPersist={CONTROL_PERSIST_SECS}"),
            "ServerAliveInterval=15".to_string(),
        ] {
            args.push("-o".into());
            args.push(option.into());
        }
        args.push("-T".into());
        args.extend(options.iter().map(OsString::from));
        Ssh {
            program: PathBuf::from("ssh"),
            address: address.to_string(),
            args,
        }
    }

    /// Keeps the control master for `persist` after its last use instead of the default
    /// (`[ssh] persist`: later runs within that time reuse the connection, no handshake).
    pub(crate) fn with_persist(mut self, persist: Duration) -> Ssh {
        let wanted = format!("ControlPersist={}", persist.as_secs().max(1));
        for a in &mut self.args {
            if a.to_string_lossy().starts_with("ControlPersist=") {
                *a = OsString::from(&wanted);
            }
        }
        self
    }

    /// The node's ssh address, as given to [`new`](Self::new).
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Runs `argv` on the node and returns what it printed and its exit status.
    ///
    /// Every element of `argv` is shell-quoted; the quoted words are joined into ONE remote
    /// command string, given to ssh after `--`. `stdin`, if any, is streamed into ssh from a
    /// thread while stdout and stderr are read, so big uploads do not deadlock; without it the
    /// command reads an empty stdin. When `timeout` passes, ssh is killed and the result is
    /// [`SshError::Timeout`] (a `stdin` reader blocked in `read` is waited for, so give a reader
    /// that does not block forever). Killing ssh ends the session, not the remote command: it
    /// sees the end of its input and runs on until it exits by itself.
    ///
    /// A remote command that exits non-zero is `Ok` with that status (127: the command is not
    /// installed on the node). ssh's own failures (exit 255) become an [`SshError`] read from its
    /// stderr, so a remote command that itself exits 255 is reported as an ssh failure.
    pub fn run(
        &self,
        argv: &[&str],
        stdin: Option<&mut (dyn Read + Send)>,
        timeout: Duration,
    ) -> Result<Output, SshError> {
        let remote = remote_command(argv)?;
        let mut command = self.command();
        command
            .arg("--")
            .arg(&self.address)
            .arg(remote)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let deadline = Instant::now() + timeout;
        let mut child = command.spawn().map_err(|e| self.spawn_error(e))?;
        let pipe_in = child.stdin.take();
        let pipe_out = child.stdout.take().expect("stdout is piped");
        let pipe_err = child.stderr.take().expect("stderr is piped");
        // Not scoped: through a control master, the master holds copies of these pipes (ssh
        // passes its stdio to it) until the remote command ends, so after a kill they may stay
        // open long after ssh is gone. Such readers are left to finish on their own.
        let out = thread::spawn(move || read_all(pipe_out));
        let err = thread::spawn(move || read_all(pipe_err));

        let status = thread::scope(|scope| {
            let writer = stdin
                .zip(pipe_in)
                .map(|(input, pipe)| scope.spawn(move || feed(input, pipe)));
            self.wait(&mut child, deadline, timeout, writer)
        })?;
        let io = |source| SshError::Io {
            address: self.address.clone(),
            source,
        };
        let stdout = self.join_by(out, deadline, timeout)?.map_err(io)?;
        let stderr = self.join_by(err, deadline, timeout)?.map_err(io)?;
        let stderr = String::from_utf8_lossy(&stderr).into_owned();
        self.output(status, stdout, stderr)
    }

    /// The `ssh` command that runs `argv` on the node, its stdio left to the caller: for a
    /// conversation with a long-running remote process (`mesh node session`).
    pub(crate) fn command_for(&self, argv: &[&str]) -> Result<Command, SshError> {
        let remote = remote_command(argv)?;
        let mut command = self.command();
        command.arg("--").arg(&self.address).arg(remote);
        Ok(command)
    }

    /// Asks the control master to forward the local socket `local` to the node's socket
    /// `remote` for as long as it lives (`ssh -O forward -L local:remote`); whether it did.
    pub(crate) fn forward(&self, local: &Path, remote: &str) -> bool {
        // Already forwarded (the master connects to the node's socket anew for each
        // connection, so a restarted server there is reached as it is).
        if std::os::unix::net::UnixStream::connect(local).is_ok() {
            return true;
        }
        // A stale file from a master that is gone.
        let _ = std::fs::remove_file(local);
        let mut spec = local.as_os_str().to_owned();
        spec.push(":");
        spec.push(remote);
        self.command()
            .args(["-O", "forward", "-L"])
            .arg(spec)
            .arg("--")
            .arg(&self.address)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// What ssh's exit 255 with this stderr means.
    pub fn failure(&self, stderr: &str) -> SshError {
        classify(&self.address, stderr)
    }

    /// Closes the ControlMaster (`ssh -O exit`), ignoring errors (there may be none running).
    pub fn close(&self) {
        let _ = self
            .command()
            .args(["-O", "exit", "--"])
            .arg(&self.address)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }

    /// `ssh` with the session's options, ready for a destination.
    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        command
    }

    /// Waits for ssh to exit, killing it when `deadline` passes or the data to send fails.
    fn wait(
        &self,
        child: &mut Child,
        deadline: Instant,
        timeout: Duration,
        mut writer: Option<thread::ScopedJoinHandle<'_, Result<(), InputError>>>,
    ) -> Result<ExitStatus, SshError> {
        let mut pause = Duration::from_millis(1);
        loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    // ssh is gone, so the writer ends too; a failed read still fails the run.
                    if let Some(writer) = writer {
                        let fed = writer.join().expect("stdin writer panicked");
                        if let Err(InputError(source, _)) = fed {
                            return Err(SshError::Input {
                                address: self.address.clone(),
                                source,
                            });
                        }
                    }
                    return Ok(status);
                }
                Ok(None) => {}
                Err(source) => {
                    kill(child);
                    return Err(SshError::Io {
                        address: self.address.clone(),
                        source,
                    });
                }
            }
            if writer.as_ref().is_some_and(|w| w.is_finished()) {
                let finished = writer.take().expect("checked").join();
                if let Err(InputError(source, pipe)) = finished.expect("stdin writer panicked") {
                    // Kill before closing the pipe, so ssh itself never passes on a clean end of
                    // input. Through a control master the command may still see one: what the
                    // node reads must carry its own lengths and digests.
                    kill(child);
                    drop(pipe);
                    return Err(SshError::Input {
                        address: self.address.clone(),
                        source,
                    });
                }
            }
            let now = Instant::now();
            if now >= deadline {
                kill(child);
                return Err(SshError::Timeout {
                    address: self.address.clone(),
                    timeout,
                });
            }
            thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(POLL_AT_MOST);
        }
    }

    /// The result of a pipe reader, once its pipe ended: normally as soon as ssh exits, later if
    /// something on the node still holds the command's output open (a background process).
    fn join_by<T>(
        &self,
        reader: thread::JoinHandle<T>,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<T, SshError> {
        let mut pause = Duration::from_millis(1);
        while !reader.is_finished() {
            let now = Instant::now();
            if now >= deadline {
                return Err(SshError::Timeout {
                    address: self.address.clone(),
                    timeout,
                });
            }
            thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(POLL_AT_MOST);
        }
        Ok(reader.join().expect("pipe reader panicked"))
    }

    /// The remote command's output, or the error an exit of 255 (or a signal) means.
    fn output(
        &self,
        status: ExitStatus,
        stdout: Vec<u8>,
        stderr: String,
    ) -> Result<Output, SshError> {
        match status.code() {
            Some(255) => Err(classify(&self.address, &stderr)),
            Some(status) => Ok(Output {
                stdout,
                stderr,
                status,
            }),
            None => Err(SshError::Failed {
                address: self.address.clone(),
                detail: format!(
                    "ssh was killed by signal {}",
                    status.signal().unwrap_or_default()
                ),
            }),
        }
    }

    /// What a failure to start ssh means (no ssh client, or no processes left).
    pub(crate) fn spawn_error(&self, source: io::Error) -> SshError {
        if source.kind() == io::ErrorKind::NotFound {
            SshError::NotInstalled
        } else {
            SshError::Io {
                address: self.address.clone(),
                source,
            }
        }
    }
}

/// The one remote command string: each word shell-quoted, joined by spaces.
fn remote_command(argv: &[&str]) -> Result<String, SshError> {
    let mut words = Vec::with_capacity(argv.len());
    for arg in argv {
        let quoted = shlex::try_quote(arg).map_err(|_| SshError::BadArgument {
            arg: arg.replace('\0', "\\0"),
        })?;
        words.push(quoted.into_owned());
    }
    Ok(words.join(" "))
}

/// Everything until the pipe ends.
fn read_all(mut pipe: impl Read) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    pipe.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A failed read of the data to send, with ssh's stdin kept open until ssh is killed.
struct InputError(io::Error, ChildStdin);

/// Copies `input` into ssh's stdin, then closes it. The remote command may stop reading early
/// (a broken pipe): that is not an error here, its exit status tells.
fn feed(input: &mut (dyn Read + Send), mut pipe: ChildStdin) -> Result<(), InputError> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(InputError(e, pipe)),
        };
        if pipe.write_all(&buf[..n]).is_err() {
            // ssh exited or closed its stdin: its exit status says why.
            return Ok(());
        }
    }
}

/// Kills ssh and reaps it; errors mean it had already exited.
fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Turns ssh's stderr after an exit of 255 into the error it means.
fn classify(address: &str, stderr: &str) -> SshError {
    let lower = stderr.to_lowercase();
    let has = |needle: &str| lower.contains(needle);
    let address = address.to_string();
    let last = stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('@'));
    let Some(detail) = last.map(str::to_string) else {
        // Not a word: what a control master's client does when the master's connection was
        // cut under it (found by scripts/soak-net) — a broken network, not a node to see to.
        return SshError::Unreachable {
            address,
            detail: "the connection ended without a word from ssh (exit 255): it dropped"
                .to_string(),
        };
    };
    if has("remote host identification has changed") || has("host key verification failed") {
        SshError::HostKey { address }
    } else if has("permission denied") {
        SshError::KeyRefused { address, detail }
    } else if has("could not resolve hostname") || has("name or service not known") {
        SshError::UnknownHost { address }
    } else if has("connection refused") {
        SshError::ConnectionRefused { address }
    } else if has("connection timed out") || has("operation timed out") {
        SshError::ConnectTimeout { address }
    } else if [
        "no route to host",
        "network is unreachable",
        "connection closed by",
        "connection reset",
        "closed by remote host",
        "not responding",
        "broken pipe",
        "kex_exchange_identification",
    ]
    .iter()
    .any(|n| has(n))
    {
        SshError::Unreachable { address, detail }
    } else {
        SshError::Failed { address, detail }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the remote command string through `sh -c`, as the node's login shell would, with a
    /// `printf` that prints each word NUL-terminated.
    fn round_trip(args: &[&str]) -> Vec<String> {
        let mut argv = vec!["printf", "%s\\0"];
        argv.extend_from_slice(args);
        let line = remote_command(&argv).unwrap();
        let out = Command::new("sh").arg("-c").arg(&line).output().unwrap();
        assert!(out.status.success(), "{line}: {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let mut words: Vec<String> = text.split('\0').map(String::from).collect();
        assert_eq!(words.pop().as_deref(), Some(""), "NUL-terminated");
        words
    }

    #[test]
    fn arguments_survive_the_remote_shell() {
        let args = [
            "plain",
            "with space",
            "",
            "it's",
            "\"double\"",
            "$(touch /tmp/mesh-quoting-pwned)",
            "`id`",
            "$HOME ${PATH}",
            "line\nbreak\n",
            "tab\there",
            "back\\slash",
            "a;b|c&d>e<f",
            "*?[x]~",
            "!bang",
            "-n",
            "--",
            "ünïcödé ✓",
        ];
        assert_eq!(round_trip(&args), args);
        assert!(!Path::new("/tmp/mesh-quoting-pwned").exists());
    }

    #[test]
    fn an_argument_with_nul_is_refused() {
        let err = remote_command(&["echo", "a\0b"]).unwrap_err();
        assert!(matches!(err, SshError::BadArgument { .. }), "{err:?}");
    }

    #[test]
    fn arguments_come_in_order() {
        let session = Ssh::new(
            "root@node",
            &["-p".to_string(), "2222".to_string()],
            Path::new("/run/ctl"),
            Duration::from_millis(5500),
        );
        let args: Vec<&str> = session.args.iter().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(
            args,
            [
                "-o",
                "BatchMode=yes",
                "-o",
                "ConnectTimeout=5",
                "-o",
                "ControlMaster=auto",
                "-o",
                "ControlPath=/run/ctl/%C",
                "-o",
                "ControlPersist=60",
                "-o",
                "ServerAliveInterval=15",
                "-T",
                "-p",
                "2222",
            ]
        );
    }

    /// ssh's stderr, which error it must give, and whether that error means unreachable.
    type Case = (&'static str, fn(&SshError) -> bool, bool);

    #[test]
    fn ssh_failures_are_named() {
        let cases: &[Case] = &[
            (
                "ssh: connect to host 127.0.0.1 port 1: Connection refused\r\n",
                |e| matches!(e, SshError::ConnectionRefused { .. }),
                true,
            ),
            (
                "ssh: Could not resolve hostname nowhere: Name or service not known\r\n",
                |e| matches!(e, SshError::UnknownHost { .. }),
                true,
            ),
            (
                "ssh: connect to host 10.255.255.1 port 22: Connection timed out\r\n",
                |e| matches!(e, SshError::ConnectTimeout { .. }),
                true,
            ),
            (
                "ssh: connect to host 10.0.0.9 port 22: No route to host\r\n",
                |e| matches!(e, SshError::Unreachable { .. }),
                true,
            ),
            (
                "root@127.0.0.1: Permission denied (publickey).\r\n",
                |e| matches!(e, SshError::KeyRefused { .. }),
                false,
            ),
            (
                "@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n\
                 @@@@@@@@\nHost key verification failed.\n",
                |e| matches!(e, SshError::HostKey { .. }),
                false,
            ),
            (
                "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\r\n\
                 Host key verification failed.\r\n",
                |e| matches!(e, SshError::HostKey { .. }),
                false,
            ),
            (
                "something new\n",
                |e| matches!(e, SshError::Failed { detail, .. } if detail == "something new"),
                false,
            ),
            // A control master's client whose master's connection was cut: not a word.
            ("", |e| matches!(e, SshError::Unreachable { .. }), true),
            (
                "\r\n  \n",
                |e| matches!(e, SshError::Unreachable { .. }),
                true,
            ),
        ];
        for (stderr, is, unreachable) in cases {
            let err = classify("root@node", stderr);
            assert!(is(&err), "{stderr:?} gave {err:?}");
            assert_eq!(err.is_unreachable(), *unreachable, "{err:?}");
        }
        let err = classify("root@node", "Host key verification failed.\n");
        assert_eq!(
            err.to_string(),
            "root@node: the node's host key changed or is unknown: ssh refused to connect"
        );
    }

    #[test]
    fn a_missing_ssh_is_named() {
        let mut session = Ssh::new("root@node", &[], Path::new("/tmp"), Duration::ZERO);
        session.program = PathBuf::from("/nonexistent/ssh");
        let err = session
            .run(&["true"], None, Duration::from_secs(1))
            .unwrap_err();
        assert!(matches!(err, SshError::NotInstalled), "{err:?}");
        assert_eq!(err.to_string(), "the ssh client is not installed");
    }
}
