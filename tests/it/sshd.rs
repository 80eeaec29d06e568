//! `mesh::transport::ssh` against real sshd nodes (the harness is [`crate::common::ssh`]).

use crate::common::ssh::SshNode;
use mesh::transport::ssh::{Ssh, SshError};
use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A private (0700) directory for a session's ControlPath socket.
fn control_dir(base: &Path, name: &str) -> PathBuf {
    let dir = base.join(format!("ctl-{name}"));
    fs::create_dir(&dir).expect("mkdir control dir");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).expect("chmod control dir");
    dir
}

fn session(node: &SshNode, base: &Path, options: &[String], ctl: &str) -> Ssh {
    Ssh::new(
        &node.address(),
        options,
        &control_dir(base, ctl),
        Duration::from_secs(5),
    )
}

/// About 1 MB holding every byte value.
fn megabyte(seed: u8) -> Vec<u8> {
    (0..1_000_003u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 ^ seed)
        .collect()
}

const TIMEOUT: Duration = Duration::from_secs(30);

#[test]
fn two_nodes_round_trip_a_megabyte() {
    let base = tempfile::tempdir().expect("temp dir");
    let nodes = [
        SshNode::start(base.path(), "alpha"),
        SshNode::start(base.path(), "beta"),
    ];
    assert_ne!(nodes[0].port, nodes[1].port);
    std::thread::scope(|scope| {
        for (i, node) in nodes.iter().enumerate() {
            let base = base.path();
            scope.spawn(move || {
                let ssh = session(node, base, &node.client_options(), &node.name);
                let data = megabyte(i as u8);
                let out = ssh
                    .run(
                        &["sh", "-c", "echo \"$0\" && cat", "hello world"],
                        Some(&mut data.as_slice()),
                        TIMEOUT,
                    )
                    .unwrap_or_else(|e| panic!("{e}\n{}", node.log()));
                assert_eq!(out.status, 0, "{}", out.stderr);
                assert_eq!(&out.stdout[..12], b"hello world\n");
                assert!(
                    out.stdout[12..] == data[..],
                    "the megabyte came back changed"
                );

                // The node's root is where the test says, and words with shell syntax arrive whole.
                let tricky = "it's $(id) `x` \"q\"\nline two";
                let root = node.root.display().to_string();
                let out = ssh
                    .run(
                        &[
                            "sh",
                            "-c",
                            "cd \"$1\" && pwd && printf %s \"$0\"",
                            tricky,
                            &root,
                        ],
                        None,
                        TIMEOUT,
                    )
                    .expect("run");
                assert_eq!(
                    String::from_utf8(out.stdout).unwrap(),
                    format!("{root}\n{tricky}")
                );

                // The remote command's own failure is the caller's to read.
                let out = ssh
                    .run(&["sh", "-c", "echo oops >&2; exit 3"], None, TIMEOUT)
                    .expect("a failing command is still Ok");
                assert_eq!((out.status, out.stderr.as_str()), (3, "oops\n"));
                let out = ssh
                    .run(&["mesh-not-installed-here", "node", "have"], None, TIMEOUT)
                    .expect("a missing command is still Ok");
                assert_eq!(out.status, 127, "{}", out.stderr);

                // A command that stops reading early is not a deadlock.
                let out = ssh
                    .run(&["head", "-c", "5"], Some(&mut data.as_slice()), TIMEOUT)
                    .expect("run");
                assert_eq!(out.stdout, data[..5]);
                ssh.close();
            });
        }
    });
}

#[test]
fn a_second_run_reuses_the_control_master() {
    let base = tempfile::tempdir().expect("temp dir");
    let node = SshNode::start(base.path(), "gamma");
    let ctl = control_dir(base.path(), "gamma");
    let ssh = Ssh::new(
        &node.address(),
        &node.client_options(),
        &ctl,
        Duration::from_secs(5),
    );
    // `ssh -O check` with the session's ControlPath: is a master running?
    let check = || {
        Command::new("ssh")
            .args(node.client_options())
            .arg("-o")
            .arg(format!("ControlPath={}/%C", ctl.display()))
            .args(["-O", "check", "--", &node.address()])
            .stdin(Stdio::null())
            .output()
            .expect("ssh -O check")
    };
    assert!(!check().status.success(), "no master before the first run");

    let mut times = Vec::new();
    for _ in 0..4 {
        let started = Instant::now();
        let out = ssh.run(&["true"], None, TIMEOUT).expect("run");
        times.push(started.elapsed());
        assert_eq!(out.status, 0);
        let checked = check();
        assert!(checked.status.success(), "master not running: {checked:?}");
    }
    eprintln!("ssh run times, first (handshake) then reusing the master: {times:?}");
    // One connection, one authentication, however many runs.
    let accepted = node.log().matches("Accepted publickey").count();
    assert_eq!(accepted, 1, "{}", node.log());

    ssh.close();
    assert!(!check().status.success(), "close() leaves no master");
}

#[test]
fn a_stopped_node_is_unreachable() {
    let base = tempfile::tempdir().expect("temp dir");
    let mut node = SshNode::start(base.path(), "delta");
    let ssh = session(&node, base.path(), &node.client_options(), "delta");
    assert_eq!(ssh.run(&["true"], None, TIMEOUT).expect("run").status, 0);

    node.stop();
    // Through the session whose master just lost its connection, and through a fresh one.
    let fresh = session(&node, base.path(), &node.client_options(), "delta-2");
    for ssh in [&ssh, &fresh] {
        let err = ssh.run(&["true"], None, TIMEOUT).unwrap_err();
        assert!(err.is_unreachable(), "{err:?}");
    }
    let err = fresh.run(&["true"], None, TIMEOUT).unwrap_err();
    assert!(matches!(err, SshError::ConnectionRefused { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("{}: connection refused", node.address())
    );

    node.restart();
    assert_eq!(ssh.run(&["true"], None, TIMEOUT).expect("run").status, 0);
    ssh.close();
}

#[test]
fn a_changed_host_key_is_refused() {
    let base = tempfile::tempdir().expect("temp dir");
    let mut node = SshNode::start(base.path(), "epsilon");
    let known_hosts = base.path().join("known_hosts");
    fs::write(&known_hosts, node.known_hosts_line()).expect("known_hosts");
    let strict = node.strict_client_options(&known_hosts);
    let ssh = session(&node, base.path(), &strict, "epsilon");
    assert_eq!(ssh.run(&["true"], None, TIMEOUT).expect("run").status, 0);

    let old_key = node.known_hosts_line();
    node.rotate_host_key();
    assert_ne!(node.known_hosts_line(), old_key);
    node.restart();
    for ssh in [&ssh, &session(&node, base.path(), &strict, "epsilon-2")] {
        let err = ssh.run(&["true"], None, TIMEOUT).unwrap_err();
        assert!(matches!(err, SshError::HostKey { .. }), "{err:?}");
        assert!(!err.is_unreachable());
        assert_eq!(
            err.to_string(),
            format!(
                "{}: the node's host key changed or is unknown: ssh refused to connect",
                node.address()
            )
        );
    }
    // known_hosts is left as it was: mesh never accepts a key by itself.
    assert_eq!(fs::read_to_string(&known_hosts).unwrap(), old_key);

    // An unknown host (empty known_hosts) is refused the same way.
    fs::write(&known_hosts, "").expect("known_hosts");
    let err = session(&node, base.path(), &strict, "epsilon-3")
        .run(&["true"], None, TIMEOUT)
        .unwrap_err();
    assert!(matches!(err, SshError::HostKey { .. }), "{err:?}");
}

#[test]
fn a_refused_key_and_a_timeout_are_named() {
    let base = tempfile::tempdir().expect("temp dir");
    let node = SshNode::start(base.path(), "zeta");
    // Another key, which the node does not authorize.
    let options = node.unauthorized_options(&base.path().join("other_key"));
    let err = session(&node, base.path(), &options, "zeta-key")
        .run(&["true"], None, TIMEOUT)
        .unwrap_err();
    assert!(matches!(err, SshError::KeyRefused { .. }), "{err:?}");
    assert!(!err.is_unreachable());

    let ssh = session(&node, base.path(), &node.client_options(), "zeta");
    let started = Instant::now();
    let mut endless = std::io::repeat(b'x').take(u64::MAX);
    let err = ssh
        .run(
            &["sleep", "30"],
            Some(&mut endless),
            Duration::from_millis(1500),
        )
        .unwrap_err();
    assert!(matches!(err, SshError::Timeout { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("{}: no answer within 1.5s", node.address())
    );
    assert!(started.elapsed() < Duration::from_secs(5), "{started:?}");
    ssh.close();
}
