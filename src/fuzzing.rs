//! Entry points for the fuzz targets (`fuzz/`, run by `scripts/fuzz`): the parsers of outside
//! input that are private to this crate, reached without widening their own modules. Not an
//! API: hidden from the docs, and changed with the targets.

use bazel_remote_apis::build::bazel::remote::execution::v2::{ActionResult, Digest};
use prost::Message;
use serde::{Serialize, de::DeserializeOwned};

use crate::store::{self, Table};

/// The key every value is read and sealed under here (the checksum covers it).
const KEY: &[u8] = b"fuzz";

/// Decodes a stored value of one table and encodes it again.
type Again = fn(&'static str, &[u8]) -> Result<Vec<u8>, String>;

/// `bytes` read as a value of `table` (checksum first), encoded again under the same key.
fn again<V: Serialize + DeserializeOwned>(
    table: &'static str,
    bytes: &[u8],
) -> Result<Vec<u8>, String> {
    let value: V = store::decode(table, KEY, bytes).map_err(|e| e.to_string())?;
    Ok(store::encode(table, KEY, &value))
}

/// A table with the decoder of its values' type.
fn entry<V: Serialize + DeserializeOwned>(table: Table<V>) -> (&'static str, Again) {
    (table.name(), again::<V>)
}

/// Every table of the store, each with the type its values are read as (the `meta` table
/// under each of its shapes).
fn tables() -> Vec<(&'static str, Again)> {
    use crate::{drift, events, graph, remote, rollout, secrets};
    vec![
        entry(store::META),
        entry(store::META_FORMAT),
        entry(store::META.as_shape::<Vec<String>>()),
        entry(store::IMPORTS),
        entry(store::MODULES),
        entry(store::BUILDS),
        entry(store::LATEST),
        entry(store::CURRENT),
        entry(store::DECLARED),
        entry(store::NODES),
        entry(store::TROUBLE),
        entry(store::OUTSTANDING),
        entry(store::NOT_WORKED_OUT),
        entry(store::DECLARED_ELSEWHERE),
        entry(store::NODE_IDS),
        entry(store::HEALTH),
        entry(store::HOLDS),
        entry(graph::cache::GRAPH_HEAD),
        entry(graph::cache::GRAPH_EDGES),
        entry(graph::cache::GRAPH_EVIDENCE),
        entry(graph::answer::GRAPH_ANSWER),
        entry(drift::cache::DRIFT),
        entry(events::EVENTS),
        entry(events::ANNOUNCED),
        entry(rollout::ROLLOUTS),
        entry(rollout::HALTED),
        entry(secrets::provided::PROVIDED),
        entry(secrets::keys::NODE_KEYS),
        entry(remote::BLOB_DIGESTS),
        entry(remote::BUILT),
    ]
}

/// `bytes` (a value as the store file holds it: format byte, checksum, payload) read as a
/// value of the `table`-th table (modulo their number) and encoded again: the table's name,
/// and the encoding or why it does not decode.
pub fn store_value(table: usize, bytes: &[u8]) -> (&'static str, Result<Vec<u8>, String>) {
    let all = tables();
    let (name, again) = all[table % all.len()];
    (name, again(name, bytes))
}

/// `payload` as the `table`-th table (modulo their number) holds a value, with a checksum
/// that matches: what another writer's value, or one damaged where the checksum cannot tell,
/// looks like to the decoder.
pub fn store_sealed(table: usize, payload: &[u8]) -> Vec<u8> {
    let all = tables();
    store::seal(all[table % all.len()].0, KEY, payload)
}

/// What the controller reads of an action cache entry before it trusts it: the digests of
/// its output tree message, of its signature file and of the logs it names.
#[derive(Debug)]
pub struct RemoteResult {
    /// The entry's command's exit code.
    pub exit_code: i32,
    /// The output tree message's digest, when it has the output directory.
    pub tree: Option<Digest>,
    /// The signature file's digest, when it has one.
    pub signature: Option<Digest>,
    /// The logs read from the cache (not inlined, within bounds).
    pub logs: Vec<Digest>,
}

/// `bytes` decoded as an `ActionResult` (what the action cache or an execution answers),
/// and what the controller reads of it; why not, as the decoder says.
pub fn remote_result(bytes: &[u8]) -> Result<RemoteResult, String> {
    let result = ActionResult::decode(bytes).map_err(|e| e.to_string())?;
    Ok(RemoteResult {
        exit_code: result.exit_code,
        tree: crate::remote::share::out_tree(&result),
        signature: crate::remote::share::sig_digest_of(&result),
        logs: crate::remote::share::logs_of(&result).collect(),
    })
}

#[cfg(test)]
mod tests {
    /// Every table of the store is fuzzed with the type its values are read as.
    #[test]
    fn every_table_is_listed() {
        let listed: std::collections::BTreeSet<&str> =
            super::tables().iter().map(|(name, _)| *name).collect();
        let all: std::collections::BTreeSet<&str> =
            crate::store::ALL_TABLES.iter().copied().collect();
        assert_eq!(listed, all);
    }
}
