//! The store's own tests: damage named, tables listed, transactions.

use super::*;

/// Renames table `from` to `to` in the store at `path` through redb itself: the file stays
/// whole (every checksum matches), only the table list says otherwise.
fn rename(path: &Path, from: &str, to: &str) {
    let db = builder().create(path).expect("open");
    let tx = db.begin_write().expect("write");
    let def = |n| TableDefinition::<&[u8], &[u8]>::new(n);
    tx.rename_table(def(from), def(to)).expect("rename");
    tx.commit().expect("commit");
}

#[test]
fn a_table_the_store_made_and_cannot_find_is_damage_never_empty() {
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("state.redb");
    {
        let store = Store::open(&path).unwrap();
        store
            .write(|w| w.put(NODES, b"edge-1", &NodeRecord::default()))
            .unwrap();
    }
    rename(&path, "nodes", "nodez");
    let e = Store::open(&path).err().expect("damage");
    assert!(e.is_damaged() && e.to_string().contains("`nodes`"), "{e}");
}

#[test]
fn a_store_from_before_the_table_list_gets_its_new_tables_but_not_a_renamed_one() {
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("state.redb");
    let forget_the_list = || {
        let db = builder().create(&path).expect("open");
        let tx = db.begin_write().expect("write");
        tx.open_table(META.def())
            .expect("meta")
            .remove(TABLES_KEY)
            .expect("remove");
        tx.delete_table(TableDefinition::<&[u8], &[u8]>::new("announced"))
            .expect("delete");
        tx.commit().expect("commit");
    };
    drop(Store::open(&path).unwrap());
    // A table a newer mesh added, never made in this store: made, and read as empty.
    forget_the_list();
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store
            .read(|r| r.len(Table::<()>::new("announced")))
            .unwrap(),
        0
    );
    drop(store);
    // A name mesh does not know beside one it misses: a damaged name.
    forget_the_list();
    rename(&path, "declared", "declarec");
    let e = Store::open(&path).err().expect("damage");
    assert!(e.is_damaged() && e.to_string().contains("declarec"), "{e}");
}
