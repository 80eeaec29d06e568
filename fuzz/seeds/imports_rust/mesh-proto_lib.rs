//! What crosses the wire between a mesh controller and its nodes, decoded once into types that
//! both ends share: the session's frames, the declaration in its signed envelope, controller
//! keys, the rules every name follows, and the protocol version.

#![warn(missing_docs)]

pub mod frame;
pub mod keys;
pub mod names;
pub mod secret;
pub mod wire;

/// The node protocol's version: `have` and a session's hello say it, so a controller can tell
/// an old node binary. 2: `mesh node session`, and artifacts that travel compressed. 3: signed
/// declarations sent before their artifacts, node ids, trust resets, and signs of life
/// (`Alive` frames) while an apply runs, so the controller's deadline counts silence. 4: module
/// checks (`check`, `settle` in the declaration, `Check` requests, health in every report).
/// 5: secrets (named by digest in the declaration, their values in the receive stream
/// encrypted to the node's age key), and `provide` (`Provide` requests).
pub const PROTOCOL: u32 = 5;

/// Sequences (of declarations and of reports) are bounded below this: 2^53, the largest
/// integer every JSON reader holds exactly. A node refuses a declaration at or above it and the
/// controller never computes one; a report claiming one is not believed.
pub const MAX_SEQUENCE: u64 = 1 << 53;
