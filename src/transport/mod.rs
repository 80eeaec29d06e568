//! Transports: how the controller reaches its nodes. One conversation per node per run (`mesh
//! node session`: have, receive, apply, report) behind one trait, with an ssh side and a local
//! side; the controller never knows which. This room opens sessions and moves frames; what to
//! send and what an answer means is decided above it, in the delivery room.

pub mod install;
pub mod local;
pub mod session;
pub mod ssh;
pub mod ssh_node;
pub mod stream;

use crate::config::{MeshConfig, NodeConfig, Transport as Kind};
use serde::Deserialize;
use session::NodeSession;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

/// The node's answer to a receive.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Answer {
    /// It holds this declaration now.
    Received {
        /// The digest in force.
        received: String,
        /// Its sequence.
        sequence: u64,
    },
    /// It refused the whole declaration.
    Refused {
        /// The node's reason.
        refused: String,
    },
    /// It refused the declaration before keeping anything: not signed by a controller it
    /// trusts. Not in its journal.
    Untrusted {
        /// The node's reason, naming the controllers it trusts.
        untrusted: String,
    },
}

/// What kind of failure a transport call met: what delivery decides on (record the node
/// unreachable, install mesh, call a person), never the words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The node could not be reached: a fact about reachability, not a failure of the node.
    Unreachable,
    /// The node has no (or an older) mesh binary.
    NotInstalled,
    /// The node's ssh refused this controller (a changed host key, a refused key): no run can
    /// repair it, a person must act.
    Refused,
    /// The node answered, and the call failed there.
    Failed,
}

/// Why a transport call did not do what was asked: its kind, and its cause in words for
/// people (ssh's failure made into a sentence with its help, the node's last line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportError {
    /// What kind of failure it is.
    pub kind: ErrorKind,
    /// The cause, one sentence.
    pub source: String,
}

impl TransportError {
    /// The node could not be reached.
    pub fn unreachable(source: impl Into<String>) -> TransportError {
        TransportError::new(ErrorKind::Unreachable, source)
    }

    /// The node's mesh is missing or older.
    pub fn not_installed(source: impl Into<String>) -> TransportError {
        TransportError::new(ErrorKind::NotInstalled, source)
    }

    /// The node's ssh refused this controller.
    pub fn refused(source: impl Into<String>) -> TransportError {
        TransportError::new(ErrorKind::Refused, source)
    }

    /// The call failed on the node.
    pub fn failed(source: impl Into<String>) -> TransportError {
        TransportError::new(ErrorKind::Failed, source)
    }

    fn new(kind: ErrorKind, source: impl Into<String>) -> TransportError {
        TransportError {
            kind,
            source: source.into(),
        }
    }
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            ErrorKind::NotInstalled => {
                write!(f, "mesh is not installed on the node: {}", self.source)
            }
            _ => f.write_str(&self.source),
        }
    }
}

/// One node, reached somehow.
pub trait Transport: Send + Sync {
    /// Opens the node's session, one for every request of the run: its `mesh node session`, or
    /// (ssh with `[ssh] persist`) the one lingering there from an earlier run.
    /// [`TransportError::NotInstalled`] when the node's mesh is missing or older.
    fn open(&self) -> Result<NodeSession, TransportError>;
    /// Puts `mesh-node` on the node; the bytes it sent.
    fn install(&self) -> Result<u64, TransportError>;
    /// What a person should know about this node's sessions so far this run (none by default).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Opens the node's session, installing this mesh first when the node's is missing or older;
/// whether it installed.
fn connect(t: &dyn Transport) -> Result<(NodeSession, bool), TransportError> {
    match t.open() {
        Ok(s) => Ok((s, false)),
        Err(e) if e.kind == ErrorKind::NotInstalled => {
            t.install().map_err(|e| match e.kind {
                ErrorKind::Failed => {
                    TransportError::failed(format!("could not install mesh: {}", e.source))
                }
                _ => e,
            })?;
            Ok((t.open()?, true))
        }
        Err(e) => Err(e),
    }
}

/// Text from a node made safe to print and store: escape sequences (CSI, OSC and the like),
/// bidirectional controls (U+202E and its kin, which make a line read in another order than
/// it is written) and every other control character removed but line breaks and tabs, and cut
/// at `cap` bytes (with `…`). A node's words reach terminals, the page and the store; they must
/// not move the cursor, recolour the screen, reorder what is read or fill the disk.
pub fn from_node(text: &str, cap: usize) -> String {
    let mut out = String::with_capacity(text.len().min(cap));
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            // ESC: a CSI (`ESC [` … final byte), a string (OSC, DCS, PM, APC, SOS: up to BEL
            // or ST), or a two-character sequence.
            '\u{1b}' => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | '^' | '_' | 'X') => skip_string(&mut chars),
                _ => {}
            },
            // C1: CSI and the string introducers have one-character forms too.
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{9d}' | '\u{9e}' | '\u{9f}' | '\u{98}' => skip_string(&mut chars),
            c if c.is_control() || is_bidi_control(c) => {}
            c => out.push(c),
        }
        if out.len() > cap {
            let mut end = cap.saturating_sub('…'.len_utf8());
            while !out.is_char_boundary(end) {
                end -= 1;
            }
            out.truncate(end);
            out.push('…');
            break;
        }
    }
    out
}

/// The Unicode bidirectional controls: embeddings, overrides, isolates and marks.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// [`from_node`] on one line: line breaks and tabs become spaces (a version, a sentence that
/// ends up inside another).
pub fn from_node_line(text: &str, cap: usize) -> String {
    from_node(text, cap).replace(['\n', '\t'], " ")
}

/// Skips a CSI sequence's parameters and its final byte.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            return;
        }
        if !('\u{20}'..='\u{3f}').contains(&c) {
            return;
        }
    }
}

/// Skips a control string up to its end: BEL, ST (`ESC \\` or U+009C).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

/// One JSON line of a node's reports with every string in it made printable ([`from_node`],
/// [`session::MAX_REASON`] each): the account stores and prints what it reads. A line that is
/// not JSON is passed on as it is, for the account to refuse.
pub fn report_from_node(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    /// Cleans every string under `v`; whether any changed. The host's version is one short
    /// line ([`session::MAX_VERSION`]).
    fn clean(v: &mut serde_json::Value, key: &str) -> bool {
        match v {
            serde_json::Value::String(s) => {
                let c = match key {
                    "host_version" => from_node_line(s, session::MAX_VERSION),
                    _ => from_node(s, session::MAX_REASON),
                };
                let changed = c != *s;
                *s = c;
                changed
            }
            serde_json::Value::Array(a) => a.iter_mut().fold(false, |ch, v| clean(v, key) | ch),
            serde_json::Value::Object(o) => o.iter_mut().fold(false, |ch, (k, v)| clean(v, k) | ch),
            _ => false,
        }
    }
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(line) else {
        return line.into();
    };
    if !clean(&mut value, "") {
        return line.into();
    }
    serde_json::to_vec(&value).map_or(line.into(), Into::into)
}

/// What the node's mesh said when it ended: its error's own sentence and, after a semicolon,
/// its help (what to do), as the node printed them (a miette report: `x message` or
/// `× message`, then `help: …`). Anything else: the last line that says something.
pub fn node_said(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().map(str::trim).collect();
    fn header(l: &str) -> Option<&str> {
        l.strip_prefix("x ")
            .or_else(|| l.strip_prefix("× "))
            .map(str::trim)
    }
    let Some(start) = lines.iter().rposition(|l| header(l).is_some()) else {
        return last_line(stderr).to_string();
    };
    let mut said = header(lines[start]).unwrap_or_default().to_string();
    let mut help = None;
    for l in &lines[start + 1..] {
        if let Some(h) = l.strip_prefix("help:") {
            help = Some(h.trim());
            break;
        }
        // The lines of a cause (`|-> …`, `├─▶ …`) and of a message on several lines.
        let l = l
            .trim_start_matches(['|', '-', '>', '├', '╰', '─', '▶', '│'])
            .trim();
        if !l.is_empty() {
            said.push_str(": ");
            said.push_str(l);
        }
    }
    match help {
        Some(help) => format!("{said}; {help}"),
        None => said,
    }
}

/// The last line of a process's stderr that says something.
pub fn last_line(stderr: &str) -> &str {
    stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("no message")
}

/// The nodes' sessions for one run: each opened once, on first use, and kept for every step of
/// the run (a reconcile pass pushes and collects through the same one); all ended when dropped.
pub struct Connections<'m> {
    mesh: &'m MeshConfig,
    /// How many sessions may wait open for a later step (each holds a process, three sockets
    /// and two threads): a node beyond that opens another in the later step.
    max_kept: usize,
    control: ControlDir,
    /// What a person should know about this run's connections (a refused `[ssh] persist`).
    warnings: Vec<String>,
    transports: Mutex<HashMap<String, std::sync::Arc<dyn Transport>>>,
    open: Mutex<HashMap<String, NodeSession>>,
}

/// A node's session, taken for one step.
pub struct Taken {
    /// The conversation.
    pub session: NodeSession,
    /// This mesh was installed on the node to open it.
    pub installed: bool,
}

impl<'m> Connections<'m> {
    /// No session open yet; ssh's control sockets in this run's directory. Up to `max_kept`
    /// sessions are kept open between steps (0 for a run of one step).
    pub fn new(mesh: &'m MeshConfig, max_kept: usize) -> crate::Result<Connections<'m>> {
        let (control, mut warnings) = control_place(mesh, runtime_dir())?;
        if mesh.ssh.persist.is_some() {
            warnings.extend(
                mesh.nodes
                    .values()
                    .filter(|n| n.transport == Kind::Ssh && !n.root.starts_with('/'))
                    .map(|n| {
                        format!(
                            "node {}: its root `{}` is relative, so its session does not linger between runs (`[ssh] persist` keeps only the connection); give it an absolute root",
                            n.name, n.root
                        )
                    }),
            );
        }
        Ok(Connections {
            mesh,
            max_kept,
            control,
            warnings,
            transports: Mutex::new(HashMap::new()),
            open: Mutex::new(HashMap::new()),
        })
    }

    /// What a person should know about this run's connections so far: `[ssh] persist`
    /// refused in part or whole, and why; a lingering session that did not answer.
    pub fn warnings(&self) -> Vec<String> {
        let mut all = self.warnings.clone();
        if let Ok(transports) = self.transports.lock() {
            let mut names: Vec<&String> = transports.keys().collect();
            names.sort();
            for name in names {
                all.extend(transports[name].notes());
            }
        }
        all
    }

    /// The node's session: the one kept from an earlier step, or a new one.
    pub fn take(&self, node: &str) -> Result<Taken, TransportError> {
        // A kept one whose process ended meanwhile is replaced by a new one.
        if let Some(session) = self.open.lock().ok().and_then(|mut o| o.remove(node))
            && session.is_open()
        {
            return Ok(Taken {
                session,
                installed: false,
            });
        }
        let transport = {
            let mut all = self
                .transports
                .lock()
                .map_err(|_| TransportError::failed("a worker panicked"))?;
            all.entry(node.to_string())
                .or_insert_with(|| {
                    std::sync::Arc::from(for_node(
                        self.mesh,
                        &self.mesh.nodes[node],
                        self.control.path(),
                    ))
                })
                .clone()
        };
        let (session, installed) = connect(transport.as_ref())?;
        Ok(Taken { session, installed })
    }

    /// Keeps a session for the next step, when it is still good for one and there is room;
    /// else ends it.
    pub fn keep(&self, node: &str, taken: Taken) {
        let session = taken.session;
        if !session.is_open() {
            return;
        }
        let Ok(mut open) = self.open.lock() else {
            return session.quit();
        };
        if open.len() < self.max_kept {
            open.insert(node.to_string(), session);
        } else {
            drop(open);
            session.quit();
        }
    }
}

impl Drop for Connections<'_> {
    fn drop(&mut self) {
        let open: Vec<NodeSession> = self
            .open
            .get_mut()
            .map(|o| o.drain().map(|(_, s)| s).collect())
            .unwrap_or_default();
        let transports: Vec<_> = self
            .transports
            .get_mut()
            .map(|t| t.drain().map(|(_, t)| t).collect())
            .unwrap_or_default();
        // Ended side by side: each waits for its process (and an ssh control master to close).
        fan_out(
            open,
            self.mesh.ssh.parallel,
            |s, _: &std::sync::mpsc::Sender<()>| s.quit(),
            |_| {},
        );
        fan_out(
            transports,
            self.mesh.ssh.parallel,
            |t, _: &std::sync::mpsc::Sender<()>| drop(t),
            |_| {},
        );
    }
}

/// The transport for a node: ssh with this run's control directory, or local.
pub fn for_node(mesh: &MeshConfig, node: &NodeConfig, control_dir: &Path) -> Box<dyn Transport> {
    match node.transport {
        Kind::Local => Box::new(local::Local::new(
            Path::new(&node.root),
            session::Patience::new(mesh.ssh.connect_timeout, mesh.ssh.timeout),
        )),
        Kind::Ssh => Box::new(ssh_node::SshNode::new(mesh, node, control_dir)),
    }
}

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
pub const MAX_CONTROL_DIR: usize = 107 - 41 - 17;

/// The control directory for a run of `mesh`.
pub fn control_dir(mesh: &MeshConfig) -> crate::Result<ControlDir> {
    control_place(mesh, runtime_dir()).map(|(dir, _)| dir)
}

/// `$XDG_RUNTIME_DIR`, when it is set.
fn runtime_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("XDG_RUNTIME_DIR").map(std::path::PathBuf::from)
}

/// The control directory, and what a person should know about it. With `[ssh] persist`, the
/// first that can be had of: `$XDG_RUNTIME_DIR/mesh-ssh-<mesh>` (when that is this user's and
/// private), `.mesh/ssh`, a short directory mesh made under /tmp with an unguessable name
/// (remembered in `.mesh/ssh-dir`) when `.mesh` is too deep for a socket path, all made 0700
/// and used only while they are this user's alone. None: persist is off this run, and said.
fn control_place(
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

/// Runs `work` for every item on up to `parallel` threads (one node failing never stops the
/// others). The messages workers send reach `on_messages` on the calling thread as they
/// arrive, all those waiting at once: that is where the store is written, one handle per
/// process and one write for what arrived together.
pub fn fan_out<T: Send, M: Send>(
    items: Vec<T>,
    parallel: usize,
    work: impl Fn(T, &std::sync::mpsc::Sender<M>) + Sync,
    mut on_messages: impl FnMut(Vec<M>),
) {
    let queue = std::sync::Mutex::new(items.into_iter());
    let (tx, rx) = std::sync::mpsc::channel::<M>();
    std::thread::scope(|s| {
        for _ in 0..parallel.max(1) {
            let (tx, queue, work) = (tx.clone(), &queue, &work);
            s.spawn(move || {
                while let Some(item) = queue.lock().map(|mut q| q.next()).unwrap_or(None) {
                    work(item, &tx);
                }
            });
        }
        drop(tx);
        while let Ok(first) = rx.recv() {
            let mut waiting = vec![first];
            waiting.extend(rx.try_iter());
            on_messages(waiting);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 33, item 15: the node's own sentence, not only its help line.
    #[test]
    fn what_the_node_said_is_its_sentence_and_its_help() {
        let ascii = "Error: mesh_node::unsafe_root\n\n  x the node root /n is refused: it is writable by group or others (mode 1777)\n  help: `chmod go-w /n`\n";
        assert_eq!(
            node_said(ascii),
            "the node root /n is refused: it is writable by group or others (mode 1777); `chmod go-w /n`"
        );
        let unicode = "motd\nError: mesh_node::io\n\n  × could not read /n/x\n  ├─▶ denied\n  help: check it\n";
        assert_eq!(node_said(unicode), "could not read /n/x: denied; check it");
        assert_eq!(node_said("plain failure\n\n"), "plain failure");
    }

    #[test]
    fn text_from_a_node_keeps_words_lines_and_tabs_only() {
        let said = "ok\tdone\r\n\u{1b}[1;31mred\u{1b}[0m \u{1b}]0;title\u{7}\u{1b}]8;;http://x\u{1b}\\link \u{9b}2J\u{8}\u{7f}end\u{0}";
        assert_eq!(from_node(said, 1000), "ok\tdone\nred link end");
        assert_eq!(from_node_line("a\nb\tc", 1000), "a b c");
        // Cut at a character's boundary, with a mark.
        let cut = from_node(&"é".repeat(100), 11);
        assert!(cut.len() <= 11 && cut.ends_with('…'), "{cut}");
        assert_eq!(from_node("short", 5), "short");
    }

    #[test]
    fn text_from_a_node_reads_in_the_order_it_is_written() {
        // "ok: exe.txt" that a terminal would show as "ok: txt.exe", and every other control.
        let said = "ok: \u{202e}txt.exe\u{202c} \u{2066}a\u{2069}\u{200f}\u{200e}\u{061c}\u{202a}\u{202b}\u{202d}\u{2067}\u{2068}b";
        assert_eq!(from_node(said, 1000), "ok: txt.exe ab");
        assert_eq!(from_node_line(said, 1000), "ok: txt.exe ab");
        // Words in right-to-left scripts are kept.
        assert_eq!(from_node("שלום عربي", 1000), "שלום عربي");
    }

    #[test]
    fn report_lines_from_a_node_are_made_printable() {
        let version = "9".repeat(100);
        let line = format!(
            r#"{{"report_sequence":4,"reason":"activate failed\u001b[2J\u001b[Hok","host_version":"{version}","resources":[{{"id":"a","reason":"x\u0007y"}}]}}"#
        );
        let clean: serde_json::Value =
            serde_json::from_slice(&report_from_node(line.as_bytes())).unwrap();
        assert_eq!(clean["reason"], "activate failedok");
        assert_eq!(clean["resources"][0]["reason"], "xy");
        let host = clean["host_version"].as_str().unwrap();
        assert!(host.len() <= 64 && host.ends_with('…'), "{host}");
        assert_eq!(clean["report_sequence"], 4);
        // A clean line is passed on as it is.
        let plain = br#"{"report_sequence":5,"reason":"fine"}"#;
        assert_eq!(&*report_from_node(plain), &plain[..]);
    }

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
