//! Why a transport call did not do what was asked, by kind: what delivery decides on.

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

/// Why a transport call did not do what was asked: its kind, what happened in words for
/// people (ssh's failure made into a sentence with its help, the node's last line), and the
/// system's error beneath it when there was one (its [`std::error::Error::source`]).
#[derive(Debug, Clone)]
pub struct TransportError {
    /// What kind of failure it is.
    pub kind: ErrorKind,
    /// What happened, one sentence.
    pub message: String,
    /// The error beneath it (a pipe that broke, a program that could not be run).
    cause: Option<std::sync::Arc<std::io::Error>>,
}

impl TransportError {
    /// The node could not be reached.
    pub fn unreachable(message: impl Into<String>) -> TransportError {
        TransportError::new(ErrorKind::Unreachable, message)
    }

    /// The node's mesh is missing or older.
    pub(crate) fn not_installed(message: impl Into<String>) -> TransportError {
        TransportError::new(ErrorKind::NotInstalled, message)
    }

    /// The node's ssh refused this controller.
    pub fn refused(message: impl Into<String>) -> TransportError {
        TransportError::new(ErrorKind::Refused, message)
    }

    /// The call failed on the node.
    pub fn failed(message: impl Into<String>) -> TransportError {
        TransportError::new(ErrorKind::Failed, message)
    }

    /// The same error, with the system's error that caused it.
    pub(crate) fn caused_by(mut self, e: std::io::Error) -> TransportError {
        self.cause = Some(std::sync::Arc::new(e));
        self
    }

    fn new(kind: ErrorKind, message: impl Into<String>) -> TransportError {
        TransportError {
            kind,
            message: message.into(),
            cause: None,
        }
    }
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            ErrorKind::NotInstalled => {
                write!(f, "mesh is not installed on the node: {}", self.message)
            }
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
