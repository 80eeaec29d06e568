//! Builds shared through a remote-execution engine speaking Bazel's Remote Execution API
//! (REAPI v2: CAS, ActionCache, Execution, ByteStream), the protocol Buildbarn, BuildBuddy,
//! NativeLink, EngFlow and BuildGrid all serve. This room grows with issue 37; so far it names
//! inputs and outputs as the API does ([`merkle`]), moves blobs to and from an engine's CAS and
//! reads and writes its action cache ([`client`]).

pub mod client;
pub mod merkle;
