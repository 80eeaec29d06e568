//! A damaged store is damage, never an empty store (issue 33, item 13): every byte of the
//! store's table list (redb's table tree, which maps each table's name to its root page) and
//! of each table's root page, flipped one at a time, is named as damage (exit 1, the backup
//! named) or harmless (everything reads as before); none is believed.

use crate::common::{Run, TestMesh};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The example with two local nodes, reconciled: every table has something in it, and the
/// backup `.mesh/state.redb.bak` is there.
fn reconciled() -> TestMesh {
    let t = crate::faults::two_nodes();
    t.ok(&["reconcile"]);
    assert!(t.path(".mesh/state.redb.bak").is_file());
    t
}

/// Every entry of every table, as redb itself reads it, each key looked up as well as
/// iterated, and each table's count: two stores with the same dump answer every read alike.
type Dump = Vec<(String, u64, Vec<(Vec<u8>, Vec<u8>)>)>;

fn dump(path: &Path) -> Result<Dump, String> {
    use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata};
    let read = || -> Result<Dump, String> {
        let e = |e: &dyn std::fmt::Display| e.to_string();
        let mut b = redb::Builder::new();
        b.set_concurrency_mode(redb::ConcurrencyMode::MultiWriter);
        let db = b.open_read_only(path).map_err(|x| e(&x))?;
        let tx = db.begin_read().map_err(|x| e(&x))?;
        let mut out = Vec::new();
        for name in mesh::store::ALL_TABLES {
            let def = redb::TableDefinition::<&[u8], &[u8]>::new(name);
            let t = tx.open_table(def).map_err(|x| e(&x))?;
            let mut entries = Vec::new();
            for item in t.iter().map_err(|x| e(&x))? {
                let (k, v) = item.map_err(|x| e(&x))?;
                entries.push((k.value().to_vec(), v.value().to_vec()));
            }
            for (k, v) in &entries {
                let got = t.get(k.as_slice()).map_err(|x| e(&x))?;
                if got.as_ref().map(|g| g.value()) != Some(v.as_slice()) {
                    return Err(format!("`{name}`: a key iterated is not found by a lookup"));
                }
            }
            out.push((name.to_string(), t.len().map_err(|x| e(&x))?, entries));
        }
        Ok(out)
    };
    std::panic::catch_unwind(read).map_err(|_| "redb panicked".to_string())?
}

/// What mesh makes of the store at `path`: `Ok` with the dump when it opens it, the damage
/// error otherwise (which must name the backup).
fn opened(path: &Path) -> Result<Dump, String> {
    match mesh::store::Store::open(path) {
        Ok(store) => {
            drop(store);
            dump(path).map_err(|e| format!("mesh opened it, but it does not read as before: {e}"))
        }
        Err(e) if e.is_damaged() => {
            let said = format!("{e} {}", miette_help(&e));
            assert!(
                said.contains("state.redb.bak"),
                "the backup is not named: {said}"
            );
            Err(said)
        }
        Err(e) => panic!("not named as damage: {e}"),
    }
}

fn miette_help(e: &dyn miette::Diagnostic) -> String {
    e.help().map(|h| h.to_string()).unwrap_or_default()
}

/// A reading verb run on the store at `state`, with `--json`.
fn read(t: &TestMesh, state: &Path, verb: &str) -> Run {
    Run::of(
        t.mesh(&[verb, "--json"])
            .arg("--state")
            .arg(state)
            .timeout(Duration::from_secs(60)),
    )
}

/// A scratch directory on a RAM disk when there is one: the sweep writes the store once per
/// flip.
fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(d) = tempfile::tempdir_in(shm)
    {
        return d;
    }
    tempfile::tempdir().expect("tmp")
}

#[test]
fn every_flipped_byte_of_the_table_list_and_root_pages_is_named_or_harmless() {
    let t = reconciled();
    let store = t.path(".mesh/state.redb");
    let bytes = std::fs::read(&store).expect("store");
    let pages = mesh::store::checked_pages(&store).expect("a whole store checks");

    // The table list holds every table's name; the root pages are pages of the file.
    let list: Vec<(u64, u64)> = pages
        .iter()
        .filter(|(what, ..)| what == "tables")
        .map(|&(_, at, len)| (at, len))
        .collect();
    assert!(!list.is_empty());
    for name in mesh::store::ALL_TABLES {
        let found = bytes
            .windows(name.len())
            .enumerate()
            .filter(|(_, w)| *w == name.as_bytes())
            .any(|(i, _)| {
                list.iter()
                    .any(|&(at, len)| (at..at + len).contains(&(i as u64)))
            });
        assert!(found, "`{name}` is not in the table list's pages");
    }
    let roots: Vec<&str> = pages
        .iter()
        .filter(|(what, ..)| what != "tables")
        .map(|(what, ..)| what.as_str())
        .collect();
    for table in ["declared", "nodes", "latest", "meta", "events", "builds"] {
        assert!(
            roots.contains(&table),
            "no root page for `{table}`: {roots:?}"
        );
    }

    let base = {
        let dir = scratch();
        let copy = dir.path().join("state.redb");
        std::fs::write(&copy, &bytes).expect("write");
        opened(&copy).expect("the undamaged store opens")
    };

    // Every byte of those pages with its lowest bit flipped; the table list's bytes also with
    // the highest (a name no longer UTF-8, which made doctor panic). Two workers, each with
    // its own copy and backup beside it.
    let mut flips: Vec<(usize, u8)> = Vec::new();
    for (what, at, len) in &pages {
        for i in *at..at + len {
            flips.push((i as usize, 0x01));
            if what == "tables" {
                flips.push((i as usize, 0x80));
            }
        }
    }
    let start = Instant::now();
    let workers = 2;
    let counts: Vec<(usize, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = flips
            .chunks(flips.len().div_ceil(workers))
            .map(|chunk| {
                let (bytes, base, bak) = (&bytes, &base, t.path(".mesh/state.redb.bak"));
                s.spawn(move || {
                    let dir = scratch();
                    let copy = dir.path().join("state.redb");
                    std::fs::copy(bak, dir.path().join("state.redb.bak")).expect("backup");
                    let (mut named, mut harmless) = (0, 0);
                    let mut b = bytes.clone();
                    for &(at, mask) in chunk {
                        b[at] ^= mask;
                        std::fs::write(&copy, &b).expect("write");
                        b[at] ^= mask;
                        match opened(&copy) {
                            Err(_) => named += 1,
                            Ok(d) => {
                                assert!(
                                    d == *base,
                                    "byte {at} ^ {mask:#x}: believed, read as another store"
                                );
                                harmless += 1;
                            }
                        }
                    }
                    (named, harmless)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("worker"))
            .collect()
    });
    let named: usize = counts.iter().map(|c| c.0).sum();
    let harmless: usize = counts.iter().map(|c| c.1).sum();
    eprintln!(
        "{} pages: {named} flips named, {harmless} harmless, in {:.1?}",
        pages.len(),
        start.elapsed()
    );
    assert!(
        named > 1000 && harmless > 0,
        "named {named}, harmless {harmless}"
    );

    // The flips the issue found believed, through the binary: a byte of the names `declared`,
    // `nodes` and `latest` in the table list (keys are sorted: `declared` is met before
    // `declared_elsewhere`). Each verb exits 1, names the damage and the
    // backup; doctor names it without a panic.
    let status = read(&t, &store, "status");
    assert_eq!(status.code, 0, "{status}");
    let cases: Vec<usize> = ["declared", "nodes", "latest"]
        .iter()
        .map(|name| {
            let (at, len) = list[0];
            let page = &bytes[at as usize..(at + len) as usize];
            let i = page
                .windows(name.len())
                .position(|w| w == name.as_bytes())
                .unwrap_or_else(|| panic!("`{name}` in the table list"));
            at as usize + i
        })
        .collect();
    let flipped: PathBuf = t.path("flipped/state.redb");
    std::fs::create_dir_all(t.path("flipped")).expect("mkdir");
    std::fs::copy(
        t.path(".mesh/state.redb.bak"),
        t.path("flipped/state.redb.bak"),
    )
    .expect("backup");
    for at in cases {
        for mask in [0x01, 0x80] {
            let mut b = bytes.clone();
            b[at] ^= mask;
            for verb in ["status", "plan", "doctor"] {
                std::fs::write(&flipped, &b).expect("write");
                let run = read(&t, &flipped, verb);
                let err = &run.stderr;
                assert!(
                    !err.contains("panicked") && !err.contains("Utf8Error"),
                    "{verb}: {err}"
                );
                let said = format!("{}{err}", run.stdout);
                assert!(said.contains("damaged"), "{verb} at {at}: {run}");
                assert!(!said.contains("inside the database code"), "{verb}: {run}");
                if verb == "doctor" {
                    assert_eq!(run.code, 3, "{run}");
                } else {
                    assert_eq!(run.code, 1, "{verb} at {at}: {run}");
                    assert!(err.contains("state.redb.bak"), "{verb}: {err}");
                }
                assert_eq!(
                    std::fs::read(&flipped).expect("read"),
                    b,
                    "{verb} changed the file"
                );
            }
        }
    }
    // And a status of the undamaged store still says what it said.
    let again = read(&t, &store, "status");
    assert_eq!(again.code, 0);
    let v: Value = again.json();
    assert!(v["nodes"].is_array());
}
