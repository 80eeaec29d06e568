//! Migrations: an older store is brought to [`super::FORMAT`] in the same write transaction
//! that records the new format, so a killed migration leaves the old file as it was.
//!
//! Each step is one function, run when the file's format is below the one that introduced it;
//! steps run in order, so steps from different changes stack.

use super::{StoreError, Writer, codec};

/// Runs every step the file at `found` still needs.
pub(super) fn run(w: &Writer, found: u32) -> Result<(), StoreError> {
    if found < 2 {
        add_checksums(w)?;
    }
    Ok(())
}

/// Format 2: every value gets its checksum. Values are re-sealed byte for byte, never decoded,
/// so this step needs no knowledge of any table's records.
fn add_checksums(w: &Writer) -> Result<(), StoreError> {
    use redb::{ReadableTable, TableHandle};
    let names: Vec<String> =
        w.tx.list_tables()
            .map_err(|e| w.store.err(e))?
            .map(|h| h.name().to_string())
            .collect();
    for name in names {
        let def = redb::TableDefinition::<&[u8], &[u8]>::new(&name);
        let mut table = w.tx.open_table(def).map_err(|e| w.store.err(e))?;
        let mut sealed = Vec::new();
        for item in table.iter().map_err(|e| w.store.err(e))? {
            let (k, v) = item.map_err(|e| w.store.err(e))?;
            if let Some(new) = codec::upgrade(&name, k.value(), v.value()) {
                sealed.push((k.value().to_vec(), new));
            }
        }
        for (k, v) in sealed {
            table
                .insert(k.as_slice(), v.as_slice())
                .map_err(|e| w.store.err(e))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::store::{META, NODES, NodeRecord, Store};

    /// A store as format 1 wrote it: values without checksums.
    fn format_1(path: &std::path::Path) {
        let db = redb::Database::create(path).expect("create");
        let tx = db.begin_write().expect("write");
        {
            let mut meta = tx.open_table(META).expect("meta");
            let mut v = vec![1u8];
            v.extend(
                bincode::serde::encode_to_vec(1u32, bincode::config::standard()).expect("enc"),
            );
            meta.insert(&b"format"[..], v.as_slice()).expect("insert");
            let mut nodes = tx.open_table(NODES).expect("nodes");
            let rec = NodeRecord {
                report_sequence: 42,
                ..NodeRecord::default()
            };
            let mut v = vec![1u8];
            v.extend(
                bincode::serde::encode_to_vec(&rec, bincode::config::standard()).expect("enc"),
            );
            nodes.insert(&b"ace"[..], v.as_slice()).expect("insert");
        }
        tx.commit().expect("commit");
    }

    #[test]
    fn a_format_1_store_is_migrated_in_place_and_keeps_its_values() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("state.redb");
        format_1(&path);
        let store = Store::open(&path).expect("opens and migrates");
        let rec: Option<NodeRecord> = store.read(|r| r.get(NODES, b"ace")).expect("read");
        assert_eq!(rec.map(|r| r.report_sequence), Some(42));
        let format: Option<u32> = store.read(|r| r.get(META, b"format")).expect("read");
        assert_eq!(format, Some(crate::store::FORMAT));
        assert!(store.read(|r| r.verify_all()).is_ok(), "every value sealed");
    }
}
