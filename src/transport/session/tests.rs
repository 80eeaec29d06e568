//! Sessions against a node played on the other end of a socket: deadlines, caps, errors.

use super::*;
use crate::transport::ErrorKind;

const QUIET: Duration = Duration::from_millis(300);

/// A session with a node played by `node` on the other end of a socket, after its greeting
/// and hello (and reading ours).
fn with_node(node: impl FnOnce(&mut UnixStream) + Send + 'static) -> NodeSession {
    let (ours, mut theirs) = UnixStream::pair().unwrap();
    thread::spawn(move || {
        theirs.write_all(frame::GREETING).unwrap();
        let hello = serde_json::json!({"protocol": PROTOCOL, "version": "test"});
        frame::write(&mut theirs, Kind::Hello, hello.to_string().as_bytes()).unwrap();
        let (kind, _) = frame::read(&mut theirs).unwrap();
        assert_eq!(kind, Kind::Hello);
        node(&mut theirs);
    });
    NodeSession::over_socket(
        ours,
        Box::new(|_, _| TransportError::failed("ended")),
        Patience::new(Duration::ZERO, QUIET),
    )
    .unwrap()
}

/// Reads the next request's frame.
fn request(node: &mut UnixStream) -> Kind {
    frame::read(node).unwrap().0
}

fn have_json(version: &str) -> Vec<u8> {
    serde_json::json!({"protocol": PROTOCOL, "version": version, "artifacts": [],
        "declaration": null, "applied": null})
    .to_string()
    .into_bytes()
}

#[test]
fn quit_ends_the_node_process_input_and_a_stall_kills_it() {
    let hello = br#"{"protocol":999,"version":"t"}"#;
    let mut frames = b"mesh-session\nH".to_vec();
    frames.extend_from_slice(&(hello.len() as u32).to_be_bytes());
    frames.extend_from_slice(hello);
    let octal: String = frames.iter().map(|b| format!("\\{b:03o}")).collect();
    let node = |then: &str| {
        let mut command = Command::new("sh");
        command.arg("-c").arg(format!("printf '{octal}'; {then}"));
        NodeSession::spawn(
            command,
            Box::new(|_, _| TransportError::failed("ended")),
            Patience::new(Duration::from_secs(1), Duration::from_secs(20)),
            |e| TransportError::failed(e.to_string()),
        )
        .unwrap()
    };
    // A node that reads its input to the end exits once the session quits, not at the
    // deadline.
    let session = node("cat >/dev/null");
    let start = Instant::now();
    session.quit();
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    // A node process that stalls, its stderr held open by a child of its own, is killed and
    // left at the deadline: no reader stays blocked.
    let mut session = node("sleep 30 & sleep 30");
    session.patience.quiet = QUIET;
    let start = Instant::now();
    let err = session.have().unwrap_err();
    assert!(
        err.message.starts_with("no answer for 300ms to `have`"),
        "{err}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(8),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_node_silent_after_connecting_is_unreachable_with_its_reason() {
    let (ours, mut theirs) = UnixStream::pair().unwrap();
    thread::spawn(move || {
        theirs.write_all(frame::GREETING).unwrap();
        thread::sleep(Duration::from_secs(30));
    });
    let start = Instant::now();
    let err = NodeSession::over_socket(
        ours,
        Box::new(|_, _| TransportError::failed("ended")),
        Patience::new(Duration::from_millis(200), QUIET),
    )
    .err()
    .expect("a silent node");
    assert_eq!(err.kind, ErrorKind::Unreachable, "{err}");
    assert!(
        err.message
            .starts_with("no answer for 300ms after connecting"),
        "{err}"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
}

/// Every deadline is one deadline: a node silent after its greeting is given up `[ssh] timeout`
/// after the greeting, not after another window of it (issue 33: connect + 2x timeout).
#[test]
fn a_greeting_without_a_hello_costs_one_quiet_time() {
    let (ours, mut theirs) = UnixStream::pair().unwrap();
    thread::spawn(move || {
        theirs.write_all(frame::GREETING).unwrap();
        thread::sleep(Duration::from_secs(30));
    });
    let quiet = Duration::from_secs(2);
    let start = Instant::now();
    let err = NodeSession::over_socket(
        ours,
        Box::new(|_, _| TransportError::failed("ended")),
        Patience::new(Duration::from_secs(1), quiet),
    )
    .err()
    .expect("a silent node");
    let took = start.elapsed();
    assert!(
        err.message.starts_with("no answer for 2s after connecting"),
        "{err}"
    );
    // The greeting came at once: the node had 2 s of silence after it, not the 5 s of the
    // connect time plus two quiet windows.
    assert!(took >= quiet, "{took:?}");
    eprintln!("TOOK {took:?}");
    assert!(took < quiet + Duration::from_millis(1500), "{took:?}");
}

/// A node that stops reading in the middle of a receive is given up `[ssh] timeout` after the
/// last bytes it took, as its reason says, not up to twice that (issue 33).
#[test]
fn a_node_that_stops_reading_a_receive_is_given_up_after_one_quiet_time() {
    let stalled = Arc::new(Mutex::new(None::<Instant>));
    let seen = stalled.clone();
    let mut session = with_node(move |node| {
        // It takes what comes for a second, then reads nothing more: what is sent fills the
        // socket, and the sender blocks.
        let start = Instant::now();
        let mut buf = vec![0u8; 64 * 1024];
        while start.elapsed() < Duration::from_secs(1) {
            if node.read(&mut buf).unwrap_or(0) == 0 {
                return;
            }
        }
        *seen.lock().unwrap() = Some(Instant::now());
        thread::sleep(Duration::from_secs(30));
    });
    let quiet = Duration::from_secs(2);
    session.patience.quiet = quiet;
    let mut endless = std::io::repeat(7).take(1 << 40);
    let err = session.receive(&mut endless).unwrap_err();
    let silent = stalled
        .lock()
        .unwrap()
        .expect("the node stopped reading")
        .elapsed();
    assert_eq!(err.kind, ErrorKind::Unreachable, "{err}");
    assert!(
        err.message.starts_with("no answer for 2s while receiving"),
        "{err}"
    );
    // The last whole frame it took came at most a moment before it stopped reading.
    assert!(silent < quiet + Duration::from_millis(700), "{silent:?}");
    assert!(silent + Duration::from_millis(300) >= quiet, "{silent:?}");
}

/// Before its greeting, a node has what connecting takes and its quiet time, and the reason
/// says so.
#[test]
fn a_node_that_never_greets_is_given_up_with_connecting_counted() {
    let mut command = Command::new("sleep");
    command.arg("30");
    let start = Instant::now();
    let err = NodeSession::spawn(
        command,
        Box::new(|_, _| TransportError::failed("ended")),
        Patience::new(Duration::from_millis(500), Duration::from_millis(500)),
        |e| TransportError::failed(e.to_string()),
    )
    .err()
    .expect("a silent node");
    assert!(
        err.message
            .starts_with("no answer for 1s since it was started (connecting included)"),
        "{err}"
    );
    assert!(start.elapsed() < Duration::from_millis(2500));
}

#[test]
fn a_node_that_trickles_its_answer_is_as_stuck_as_a_silent_one() {
    let mut session = with_node(|node| {
        assert_eq!(request(node), Kind::Have);
        node.write_all(b"a\0\0\x10\0").unwrap();
        for _ in 0..600 {
            if node.write_all(b"x").is_err() {
                return;
            }
            thread::sleep(Duration::from_millis(50));
        }
    });
    let start = Instant::now();
    let err = session.have().unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unreachable, "{err}");
    assert!(
        err.message.starts_with("no answer for 300ms to `have`"),
        "{err}"
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(!session.is_open());
}

#[test]
fn a_node_that_works_says_so_and_is_waited_for() {
    let mut session = with_node(|node| {
        assert_eq!(request(node), Kind::Have);
        // Three times the quiet time, alive all along.
        for _ in 0..9 {
            thread::sleep(Duration::from_millis(100));
            frame::write(node, Kind::Alive, &[]).unwrap();
        }
        let answer = have_json("1.2\u{1b}[2J\u{1b}]0;owned\u{7}.3\r\nand more to come on and on");
        frame::write(node, Kind::Answer, &answer).unwrap();
        let _ = frame::read(node);
    });
    let have = session.have().expect("a node that works is waited for");
    // Its version made printable, and short.
    assert_eq!(have.version, "1.2.3 and more to come on and on");
    session.quit();
}

#[test]
fn text_from_a_node_is_made_printable_and_short() {
    let mut session = with_node(|node| {
        assert_eq!(request(node), Kind::Receive);
        let mut data = frame::Data::new(node);
        data.finish().unwrap();
        let reason = format!("no\u{1b}[31m red\u{9b}1m \u{7}bell\n{}", "y".repeat(9000));
        let refused = serde_json::json!({ "refused": reason });
        frame::write(node, Kind::Answer, refused.to_string().as_bytes()).unwrap();
        assert_eq!(request(node), Kind::Apply);
        let error = serde_json::json!({"error": "failed", "message": "disk\u{1b}[1A gone"});
        frame::write(node, Kind::Error, error.to_string().as_bytes()).unwrap();
        let _ = frame::read(node);
    });
    let answer = session.receive(&mut &b"stream"[..]).unwrap();
    let Answer::Refused { refused } = answer else {
        panic!("{answer:?}")
    };
    assert!(refused.starts_with("no red bell\nyyy"), "{refused:?}");
    assert!(
        refused.len() <= MAX_REASON && refused.ends_with('…'),
        "{}",
        refused.len()
    );
    let err = session.apply().unwrap_err();
    assert_eq!(err.message, "the node's mesh: disk gone");
    session.quit();
}

#[test]
fn an_answer_past_its_cap_is_refused_unread() {
    let mut session = with_node(|node| {
        assert_eq!(request(node), Kind::Have);
        // An error frame of 1 MiB, announced: never read.
        node.write_all(b"X\0\x10\0\0").unwrap();
        let _ = node.write_all(&vec![b'x'; 1 << 20]);
    });
    let err = session.have().unwrap_err();
    assert_eq!(err.kind, ErrorKind::Failed, "{err}");
    assert!(err.message.contains("more than the 65536"), "{err}");
    assert!(!session.is_open());
}

#[test]
fn a_node_that_never_stops_sending_reports_is_refused() {
    let mut session = with_node(|node| {
        let padding = "p".repeat(1 << 12);
        for sequence in 1u64.. {
            if !matches!(frame::read(node), Ok((Kind::Report, _))) {
                return;
            }
            let mut page = serde_json::json!({"report_sequence": sequence, "pad": padding})
                .to_string()
                .into_bytes();
            page.push(b'\n');
            page.extend_from_slice(frame::MORE);
            if frame::write(node, Kind::Answer, &page).is_err() {
                return;
            }
        }
    });
    let err = session.reports_within(0, 1 << 16).unwrap_err();
    assert!(err.message.contains("more than 64 KiB"), "{err}");
}
