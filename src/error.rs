//! The top-level error: every layer's error, and the exit code each one means.

use miette::Diagnostic;
use thiserror::Error;

/// Everything that can stop a verb. The cli maps it to an exit code in one place.
#[derive(Debug, Error, Diagnostic)]
pub enum Error {
    /// A mistake in a configuration file.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Config(#[from] crate::config::ConfigError),

    /// mesh.toml could not be loaded.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Load(#[from] crate::config::LoadError),

    /// A node that mesh.toml does not have was named.
    #[error(transparent)]
    #[diagnostic(transparent)]
    UnknownNode(#[from] crate::config::UnknownNode),

    /// The repositories could not be read as the mesh names them.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Read(#[from] crate::source::ReadError),

    /// Reading the git repositories failed.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Source(#[from] crate::source::SourceError),

    /// The store could not be opened, read or written.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Store(#[from] crate::store::StoreError),

    /// This controller's key could not be read or made.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Key(#[from] crate::controller::KeyError),

    /// The node side refused or failed.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Node(#[from] mesh_node::NodeError),

    /// A file or directory could not be read or written.
    #[error("{what}: {source}")]
    #[diagnostic(code(mesh::io), help("{hint}"))]
    Io {
        /// What was being done.
        what: String,
        /// The OS error.
        source: std::io::Error,
        /// What to do next.
        hint: String,
    },

    /// Something the mesh cannot do as things are (exit 1), with what to do next.
    #[error("{message}")]
    #[diagnostic(code(mesh::failed), help("{hint}"))]
    Failed {
        /// What is wrong.
        message: String,
        /// What to do next.
        hint: String,
    },

    /// SIGINT or SIGTERM asked mesh to stop: the builds it started were stopped (what escaped
    /// their process groups is named) and what finished before is recorded (exit 130/143).
    #[error("stopped: mesh received {}; {}", mesh_node::process::signal_name(*signal), stopped_builds())]
    #[diagnostic(
        code(mesh::stopped),
        help("what finished before is recorded; the next run does the rest")
    )]
    Stopped {
        /// The signal.
        signal: i32,
    },

    /// The user asked for something that cannot be done as asked.
    #[error("{message}")]
    #[diagnostic(code(mesh::usage), help("{hint}"))]
    Usage {
        /// What is wrong.
        message: String,
        /// What to do next.
        hint: String,
    },
}

/// What became of the builds a stopped run started: stopped, except the processes that
/// escaped their groups (named: mesh did not stop them).
fn stopped_builds() -> String {
    let escaped = mesh_node::process::escaped();
    if escaped.is_empty() {
        "the builds it started were stopped".into()
    } else {
        format!(
            "the builds it started were stopped, except what they started outside their process groups, which mesh did not stop: {}",
            escaped.join(", ")
        )
    }
}

impl Error {
    /// The process exit code this error means (README: Exit codes).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Store(e) if e.is_locked() => 75,
            // The node side tells its controller "busy, try again" (EX_TEMPFAIL).
            Error::Node(mesh_node::NodeError::Busy { .. }) => 75,
            Error::Usage { .. } => 2,
            Error::Stopped { signal } => 128 + signal,
            _ => 1,
        }
    }

    /// A failure with what to do next.
    pub fn failed(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::Failed {
            message: message.into(),
            hint: hint.into(),
        }
    }

    /// An IO error with what was being done and what to do next.
    pub fn io(what: impl Into<String>, source: std::io::Error, help: impl Into<String>) -> Self {
        Error::Io {
            what: what.into(),
            source,
            hint: help.into(),
        }
    }
}

/// Fails with [`Error::Stopped`] once SIGINT or SIGTERM asked mesh to stop: called between
/// the steps of a run, so nothing new starts after the signal.
pub(crate) fn check_stopped() -> Result<()> {
    match mesh_node::process::stopped() {
        Some(signal) => Err(Error::Stopped { signal }),
        None => Ok(()),
    }
}

/// The result of anything in mesh.
pub type Result<T, E = Error> = std::result::Result<T, E>;
