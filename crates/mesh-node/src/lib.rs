//! The node half of the protocol: what runs on a node as `mesh-node node
//! session|have|receive|apply|report --root DIR` (and `serve`, a lingering session), over ssh,
//! or as `mesh node …` on a local directory. Links nothing of the controller.
//!
//! Everything lives under one root directory:
//!
//! ```text
//! bin/mesh-node                   this binary, as `mesh node install` put it there
//! artifacts/<digest>              received artifacts (an ArtifactStore)
//! declaration.json                the envelope in force, written only once everything it names is held
//! modules/<name>/<digest>/        unpacked artifacts
//! modules/<name>/current          symlink to <digest>, switched atomically
//! modules/<name>/failed.json      a version that failed and was gone back from: not tried again
//! modules/<name>/health.json      its check's last answer, and since when it gives it
//! kept/<name>.json                the last version of <name> that activated: what a failure goes back to
//! kept/<digest>                   its artifact (a hard link), to unpack again when its tree was changed
//! reports/<report_sequence>.json  the journal: one report per file (20-digit name), newest 100 kept
//! state.json                      {"sequence","digest"} of the last declaration applied (the floor)
//! trust.json                      the controllers it takes declarations from (see `trust`)
//! id                              the node id, made on first contact: one root, one name
//! age-id                          the node's age identity (0600), made on first contact: secrets are encrypted to it
//! sealed.age                      secret values received, sealed to that identity, by keyed digest
//! secrets/<module>/<NAME>         the secrets of the version a module runs (0700/0600): its `MESH_SECRETS`
//! provided/<consumer>.<as>.age    credentials this node's `provide` made, encrypted to its own age key
//! .lock                           held exclusively by `receive` and `apply`
//! .session.sock, .session.lock    a lingering session's socket (0600) and its one-server lock
//! ```
//!
//! Every file is written to a temp file beside it, fsynced, renamed into place and its
//! directory fsynced, so a crash leaves the old version or the new one, never a torn one.
//! The functions take a checked [`Root`] and std::io streams and return values; the cli only
//! wires them.

mod activate;
mod apply;
pub mod artifact;
pub mod cli;
mod disk;
pub mod durable;
pub mod floor;
mod have;
mod health;
mod journal;
mod kept;
pub mod process;
mod provide;
mod receive;
mod secrets;
mod serve;
mod session;
pub mod trust;

#[cfg(test)]
mod going_back_tests;
#[cfg(test)]
mod health_tests;
#[cfg(test)]
mod secrets_tests;
#[cfg(test)]
mod session_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod trust_tests;

use std::io;
use std::path::{Path, PathBuf};

use miette::Diagnostic;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::artifact::ArtifactError;

use mesh_proto::{MAX_SEQUENCE, PROTOCOL};

pub use apply::{ACTIVATE_TIMEOUT, ApplyOptions, KEEP_VERSIONS, apply, apply_with};
pub use floor::Root;
pub use have::{DeclaredBy, DeclaredFor, Have, have};
pub use health::{CHECK_TIMEOUT, check};
pub use journal::{
    Health, JOURNAL_LIMIT, Outcome, Report, ResourceOutcome, ResourceReport, RolledBack,
    reports_since,
};
pub use provide::{Made, PROVIDE_TIMEOUT, Request as ProvideRequest, checked_lines, provide};
pub use receive::{MAX_DECLARATION, Received, receive};
pub use secrets::recipient;
pub use serve::{linger, serve, socket_path};
pub use session::{Hello, SESSION_SINCE, session};

/// The node binary's file name: under `ROOT/bin/` on a node, and beside `mesh` on a controller.
pub const BINARY: &str = "mesh-node";

/// The version of this binary, as `have` and every report say it.
pub const HOST_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A declaration as the node knows it: its digest and sequence (in force, or last applied).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    /// blake3 of the declaration's canonical encoding.
    pub digest: String,
    /// The sequence it was sent with.
    pub sequence: u64,
}

/// The node id of the root: 32 hex characters, made on first contact (`make`), so that the
/// controller can tell when two node names reach one root, or a root was replaced. `None` when
/// there is none and `make` is false.
pub fn node_id(root: &Path, make: bool) -> Result<Option<String>, NodeError> {
    let path = Layout::new(root).id();
    // Not followed when it is a link: another root's id would make two roots one.
    let read = || -> io::Result<String> {
        use std::os::unix::fs::OpenOptionsExt;
        let mut text = String::new();
        io::Read::read_to_string(
            &mut std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&path)?,
            &mut text,
        )?;
        Ok(text)
    };
    match read() {
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => Err(NodeError::Corrupt {
            path,
            reason: "it is a symbolic link, which mesh does not follow; remove it and a new one is made, which the controller records as the root replaced".into(),
        }),
        Ok(text) => {
            let id = text.trim();
            if id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Ok(Some(id.to_ascii_lowercase()));
            }
            Err(NodeError::Corrupt {
                path,
                reason: "not a node id (32 hex characters); remove it and a new one is made, which the controller records as the root replaced".into(),
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound && make => {
            let mut bytes = [0u8; 16];
            getrandom::fill(&mut bytes).map_err(|e| NodeError::Io {
                what: "make a node id for",
                path: path.clone(),
                source: io::Error::other(e.to_string()),
            })?;
            let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            crate::durable::write_atomic(&path, format!("{id}\n").as_bytes())?;
            Ok(Some(id))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(NodeError::io("read", path)(e)),
    }
}

/// Why a node verb could not do its work.
#[derive(Debug, Error, Diagnostic)]
pub enum NodeError {
    /// A file or directory under the node root could not be read or written.
    #[error("could not {what} {}: {source}", path.display())]
    #[diagnostic(
        code(mesh::node::io),
        help(
            "check that the node root exists and is writable by the user mesh runs as, and that the disk is not full"
        )
    )]
    Io {
        /// What was being done ("write", "read", "lock", ...).
        what: &'static str,
        /// The file or directory concerned.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },

    /// The node refused what it was sent, whole; the declaration in force was kept.
    #[error("refused: {reason}")]
    #[diagnostic(
        code(mesh::node::refused),
        help(
            "the declaration in force is unchanged and the refusal is in the node's reports; fix what the reason names and push again"
        )
    )]
    Refused {
        /// Why, as the refusal report says it.
        reason: String,
    },

    /// The node refused a declaration that was not signed, or signed by a controller it does
    /// not trust: nothing of it was kept, and by design it is not in the node's reports (a
    /// sender the node does not trust cannot write into its journal).
    #[error("refused: {reason}")]
    #[diagnostic(
        code(mesh::node::untrusted),
        help(
            "the declaration in force is unchanged and nothing of this one was kept; the refusal is not in the node's reports (a sender the node does not trust cannot write there): sign with a controller the node trusts (`mesh node trust NODE` on a controller shows which), or re-pin the node (`mesh node trust --reset NODE` there)"
        )
    )]
    Untrusted {
        /// Why, as the node answered it.
        reason: String,
    },

    /// Another process held the node's lock (`root/.lock`) for longer than mesh waits: the
    /// node's own apply timer, or another controller. Nothing was changed.
    #[error("the node is busy: {} was held by another process for {}", path.display(), humantime::format_duration(*waited))]
    #[diagnostic(
        code(mesh::node::busy),
        help(
            "something on the node (its own apply, or another mesh) holds the lock; nothing was changed and the next run tries again"
        )
    )]
    Busy {
        /// The lock file.
        path: PathBuf,
        /// How long mesh waited.
        waited: std::time::Duration,
    },

    /// The receive stream was cut short: nothing was kept and nothing reported.
    #[error("the stream was cut short: {reason}")]
    #[diagnostic(
        code(mesh::node::cut),
        help("the declaration in force is unchanged; push again when the connection holds")
    )]
    Cut {
        /// What was missing.
        reason: String,
    },

    /// A session frame could not be read: the conversation was ended.
    #[error("the session was ended: {reason}")]
    #[diagnostic(
        code(mesh::node::session),
        help(
            "the controller and this node speak different mesh versions, or something else wrote into the conversation; push again (the controller installs its own mesh when the node's is older)"
        )
    )]
    Session {
        /// What was wrong.
        reason: String,
    },

    /// A module's `provide` could not make credentials.
    #[error("provide failed: {reason}")]
    #[diagnostic(
        code(mesh::node::provide),
        help(
            "the consumer keeps what it runs and waits for its credentials; fix what the reason names and run `mesh provision PROVIDER --again`"
        )
    )]
    Provide {
        /// Why, never quoting what it printed on standard output.
        reason: String,
    },

    /// `apply` found no declaration to apply.
    #[error("nothing is declared on this node: {} does not exist", path.display())]
    #[diagnostic(
        code(mesh::node::nothing_declared),
        help("send the node a declaration first (`mesh push`)")
    )]
    NothingDeclared {
        /// Where the declaration would be.
        path: PathBuf,
    },

    /// ROOT is not this user's alone (a symbolic link, not a directory, another owner, writable
    /// by group or others): nothing is done there. See [`floor`].
    #[error("the node root {} is refused: {reason}", path.display())]
    #[diagnostic(code(mesh::node::unsafe_root), help("{fix}"))]
    UnsafeRoot {
        /// The root.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
        /// What to do.
        fix: String,
    },

    /// A file mesh itself wrote on the node cannot be understood.
    #[error("{} is damaged: {reason}", path.display())]
    #[diagnostic(
        code(mesh::node::corrupt),
        help(
            "mesh writes this file atomically, so something else changed it; look at it, and remove it if it cannot be repaired (the controller sends it again)"
        )
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// The answer could not be written back to the controller.
    #[error("could not write the answer: {source}")]
    #[diagnostic(
        code(mesh::node::answer),
        help("the controller went away (closed connection?); it will ask again")
    )]
    Answer {
        /// The OS error.
        source: io::Error,
    },

    /// The artifact store failed (not a refusal: the disk, not the sender, is at fault).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Artifact(#[from] ArtifactError),
}

impl NodeError {
    /// The exit code this error means: 75 (EX_TEMPFAIL) for "busy, try again", else 1.
    pub fn exit_code(&self) -> i32 {
        match self {
            NodeError::Busy { .. } => 75,
            _ => 1,
        }
    }

    /// An [`NodeError::Io`] for `path`.
    fn io(what: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> NodeError {
        let path = path.into();
        move |source| NodeError::Io { what, path, source }
    }
}

impl From<crate::durable::DurableError> for NodeError {
    fn from(e: crate::durable::DurableError) -> NodeError {
        NodeError::Io {
            what: e.action,
            path: e.path,
            source: e.source,
        }
    }
}

/// The paths under a node root, in one place.
#[derive(Debug, Clone)]
struct Layout {
    root: PathBuf,
}

impl Layout {
    fn new(root: &Path) -> Self {
        Layout {
            root: root.to_path_buf(),
        }
    }

    fn artifacts(&self) -> PathBuf {
        self.root.join("artifacts")
    }

    fn declaration(&self) -> PathBuf {
        self.root.join("declaration.json")
    }

    fn state(&self) -> PathBuf {
        self.root.join("state.json")
    }

    fn modules(&self) -> PathBuf {
        self.root.join("modules")
    }

    fn reports(&self) -> PathBuf {
        self.root.join("reports")
    }

    fn lock(&self) -> PathBuf {
        self.root.join(".lock")
    }

    fn trust(&self) -> PathBuf {
        self.root.join("trust.json")
    }

    fn id(&self) -> PathBuf {
        self.root.join("id")
    }

    fn age_id(&self) -> PathBuf {
        self.root.join("age-id")
    }

    fn provided(&self) -> PathBuf {
        self.root.join("provided")
    }

    fn sealed(&self) -> PathBuf {
        self.root.join("sealed.age")
    }

    fn kept(&self) -> PathBuf {
        self.root.join("kept")
    }

    fn store(&self) -> crate::artifact::ArtifactStore {
        crate::artifact::ArtifactStore::new(self.artifacts())
    }

    /// The envelope in force, if any.
    fn read_declaration(&self) -> Result<Option<mesh_proto::wire::Envelope>, NodeError> {
        disk::read_json(&self.declaration())
    }

    /// The envelope in force, as digest + sequence.
    fn declaration_held(&self) -> Result<Option<Held>, NodeError> {
        Ok(self.read_declaration()?.map(|e| Held {
            digest: e.digest,
            sequence: e.sequence,
        }))
    }

    /// What was last applied (state.json), if anything.
    fn applied(&self) -> Result<Option<Held>, NodeError> {
        disk::read_json(&self.state())
    }
}
