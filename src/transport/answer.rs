//! What a node answers to a receive, as the controller reads it.

use serde::Deserialize;

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
