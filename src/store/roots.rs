//! The checksums redb keeps but checks only when it repairs a file: of the table list (the
//! tree that maps each table's name to its root page) and of each table's root page.
//!
//! A byte flipped in a table's name makes redb find no such table, which a reader would take
//! for an empty one; a byte flipped in a root page can hide entries or route a lookup past
//! them. Values carry mesh's own checksum (`codec.rs`), but neither of these is a value: so
//! every open checks them here, against the checksums redb itself wrote, before anything is
//! read or written. What does not match is damage, named; nothing is read as empty.
//!
//! This reads redb's file format (file format 3, redb 4.x), only as far as those pages: the
//! header's commit slot, the table tree's pages, and each table's root page. A file of another
//! format version is left to redb.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// The redb file format version this reads.
const FILE_FORMAT: u8 = 3;
/// Where the god byte (which commit slot is the primary) is.
const GOD_BYTE: usize = 9;
/// God byte flags: the primary slot; "open, or not closed cleanly" (redb recovers such a file
/// when it opens it); "the primary is not flushed yet" (readers then use the other slot, as
/// redb's do).
const PRIMARY_BIT: u8 = 1;
const RECOVERY_REQUIRED: u8 = 2;
const PRIMARY_UNFLUSHED: u8 = 8;
/// Header fields.
const PAGE_SIZE: usize = 12;
const REGION_HEADER_PAGES: usize = 16;
const REGION_MAX_DATA_PAGES: usize = 20;
/// The two commit slots, and in each: the version, whether the table tree is non-empty, and
/// the table tree's root (page number, checksum, length).
const SLOT_0: usize = 64;
const SLOT_SIZE: usize = 128;
const SLOT_VERSION: usize = 0;
const SLOT_ROOT_NON_NULL: usize = 1;
const SLOT_ROOT: usize = 8;
/// The bytes read for the header: both slots.
const HEADER: usize = SLOT_0 + 2 * SLOT_SIZE;
/// Page type bytes.
const LEAF: u8 = 1;
const BRANCH: u8 = 2;
/// No real table tree is deeper; a deeper one is a cycle.
const MAX_DEPTH: usize = 64;

/// Where a page is and what its checksum must be.
#[derive(Clone, Copy)]
struct Root {
    page: u64,
    checksum: u128,
}

impl Root {
    /// A btree header as redb writes it: page number, checksum, length (little-endian).
    fn parse(b: &[u8]) -> Option<Root> {
        Some(Root {
            page: u64::from_le_bytes(b.get(..8)?.try_into().ok()?),
            checksum: u128::from_le_bytes(b.get(8..24)?.try_into().ok()?),
        })
    }
}

/// The file's geometry: how a page number becomes an offset.
struct Layout {
    page_size: u64,
    region_header: u64,
    region_len: u64,
}

impl Layout {
    /// The byte range of page `number` (region, index and order packed as redb packs them).
    fn range(&self, number: u64) -> (u64, u64) {
        let order = number >> 59;
        let index = number & (0x000F_FFFF >> order);
        let region = (number >> 20) & 0x000F_FFFF;
        let len = self.page_size << order;
        let start = self.page_size + region * self.region_len + self.region_header + index * len;
        (start, len)
    }
}

/// Checks the table list and every table's root page of the store at `path` against their
/// checksums. `Ok(true)` when they match (or the file is of a format this does not read);
/// what is wrong otherwise, as a sentence.
///
/// Before redb has opened the file (`opened` false) a file that is open elsewhere or was not
/// closed cleanly is not checked (`Ok(false)`): redb recovers it first, then it is checked
/// again. A commit by another process at the same moment is told from damage by reading again.
pub(super) fn check(path: &Path, opened: bool) -> Result<bool, String> {
    let file = File::open(path).map_err(|e| format!("it could not be read: {e}"))?;
    let header = |file: &File| {
        let mut header = vec![0u8; HEADER];
        file.read_exact_at(&mut header, 0)
            .map(|()| header)
            .map_err(|e| format!("its header could not be read: {e}"))
    };
    let mut read = header(&file)?;
    if !opened && read[GOD_BYTE] & RECOVERY_REQUIRED != 0 {
        return Ok(false);
    }
    for _ in 0..100 {
        let found = check_at(&file, &read);
        if found.is_ok() || !opened {
            // Not open anywhere (the flag is clear): nothing changes it meanwhile.
            return found.map(|_| true);
        }
        // Damage, unless another process committed meanwhile: then check its commit.
        let again = header(&file)?;
        if again == read {
            return found.map(|_| true);
        }
        read = again;
    }
    check_at(&file, &read).map(|_| true)
}

/// [`check`] at one reading of the header; the pages checked.
fn check_at(file: &File, header: &[u8]) -> Result<Vec<(String, u64, u64)>, String> {
    let u32_at = |at: usize| u64::from(u32::from_le_bytes([0, 1, 2, 3].map(|i| header[at + i])));
    let god = header[GOD_BYTE];
    let mut slot = usize::from(god & PRIMARY_BIT != 0);
    if god & PRIMARY_UNFLUSHED != 0 {
        slot = 1 - slot;
    }
    let slot = &header[SLOT_0 + slot * SLOT_SIZE..][..SLOT_SIZE];
    if slot[SLOT_VERSION] != FILE_FORMAT || slot[SLOT_ROOT_NON_NULL] == 0 {
        return Ok(Vec::new());
    }
    let page_size = u32_at(PAGE_SIZE);
    if !(512..=(1 << 20)).contains(&page_size) || !page_size.is_power_of_two() {
        return Err(format!("its header names a page size of {page_size} bytes"));
    }
    let layout = Layout {
        page_size,
        region_header: u32_at(REGION_HEADER_PAGES) * page_size,
        region_len: (u32_at(REGION_HEADER_PAGES) + u32_at(REGION_MAX_DATA_PAGES)) * page_size,
    };
    let root = Root::parse(&slot[SLOT_ROOT..]).ok_or("its header is cut short")?;
    let reader = Pages {
        file,
        layout,
        seen: Default::default(),
    };
    reader.table_tree(root, 0)?;
    Ok(reader.seen.into_inner())
}

/// Where the pages [`check`] checks are in the store file at `path`, once they are checked:
/// (what, offset, length), "tables" for a page of the table list, a table's name for its root
/// page. For tests that damage exactly those bytes.
pub fn checked_pages(path: &Path) -> Result<Vec<(String, u64, u64)>, String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let mut header = vec![0u8; HEADER];
    file.read_exact_at(&mut header, 0)
        .map_err(|e| e.to_string())?;
    check_at(&file, &header)
}

/// Reads and checks pages.
struct Pages<'f> {
    file: &'f File,
    layout: Layout,
    /// The pages checked so far: (what, offset, length).
    seen: std::cell::RefCell<Vec<(String, u64, u64)>>,
}

/// A page's entries: a leaf's (key, value) pairs, or a branch's children.
enum Node {
    Leaf(Vec<(Vec<u8>, Vec<u8>)>),
    Branch(Vec<Root>),
}

impl Pages<'_> {
    /// Checks a page of the table tree and everything under it, and each table's root page.
    fn table_tree(&self, at: Root, depth: usize) -> Result<(), String> {
        let list = "the store's list of tables (redb's table tree)";
        if depth > MAX_DEPTH {
            return Err(format!("{list} loops"));
        }
        let node = self
            .page(at, "tables")
            .map_err(|why| format!("a page of {list} {why}"))?;
        match node {
            Node::Branch(children) => children
                .into_iter()
                .try_for_each(|c| self.table_tree(c, depth + 1)),
            Node::Leaf(tables) => tables.iter().try_for_each(|(name, definition)| {
                let name = String::from_utf8_lossy(name);
                match table_root(definition) {
                    Err(()) => Err(format!("{list} holds a table `{name}` it cannot describe")),
                    Ok(None) => Ok(()),
                    Ok(Some(root)) => self
                        .page(root, &name)
                        .map(drop)
                        .map_err(|why| format!("the root page of table `{name}` {why}")),
                }
            }),
        }
    }

    /// Reads the page at `at`, checks it against its checksum and returns its entries; why
    /// not, as the end of a sentence.
    fn page(&self, at: Root, what: &str) -> Result<Node, String> {
        let (start, len) = self.layout.range(at.page);
        self.seen.borrow_mut().push((what.to_string(), start, len));
        let len = usize::try_from(len).map_err(|_| "is out of reach".to_string())?;
        if len > 1 << 28 {
            return Err("is out of reach".into());
        }
        let mut b = vec![0u8; len];
        self.file
            .read_exact_at(&mut b, start)
            .map_err(|_| "is beyond the end of the file".to_string())?;
        let u16_at = |at: usize| b.get(at..at + 2).map(|s| u16::from_le_bytes([s[0], s[1]]));
        let u32_at = |at: usize| {
            b.get(at..at + 4)
                .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize)
        };
        let bad = || "is not a page redb could have written".to_string();
        let n = usize::from(u16_at(2).ok_or_else(bad)?);
        if n == 0 {
            return Err(bad());
        }
        let (end, node) = match b[0] {
            LEAF => {
                // Offsets: each key's end, then each value's end; then the keys, then values.
                let key_end = |i: usize| u32_at(4 + 4 * i);
                let value_end = |i: usize| u32_at(4 + 4 * n + 4 * i);
                let end = value_end(n - 1).ok_or_else(bad)?;
                if end > b.len() {
                    return Err(bad());
                }
                let mut pairs = Vec::with_capacity(n);
                let mut k0 = 4 + 8 * n;
                let mut v0 = key_end(n - 1).ok_or_else(bad)?;
                for i in 0..n {
                    let (k1, v1) = (key_end(i).ok_or_else(bad)?, value_end(i).ok_or_else(bad)?);
                    let key = b.get(k0..k1).ok_or_else(bad)?;
                    let value = b.get(v0..v1).ok_or_else(bad)?;
                    pairs.push((key.to_vec(), value.to_vec()));
                    (k0, v0) = (k1, v1);
                }
                (end, Node::Leaf(pairs))
            }
            BRANCH => {
                // n keys, n + 1 children: their checksums, their page numbers, the keys' ends.
                let children = n + 1;
                let end = u32_at(8 + 24 * children + 4 * (n - 1)).ok_or_else(bad)?;
                if end > b.len() {
                    return Err(bad());
                }
                let kids = (0..children)
                    .map(|i| {
                        let sum = b.get(8 + 16 * i..8 + 16 * (i + 1))?;
                        let page =
                            b.get(8 + 16 * children + 8 * i..8 + 16 * children + 8 * (i + 1))?;
                        Some(Root {
                            page: u64::from_le_bytes(page.try_into().ok()?),
                            checksum: u128::from_le_bytes(sum.try_into().ok()?),
                        })
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(bad)?;
                (end, Node::Branch(kids))
            }
            _ => return Err(bad()),
        };
        if xxhash_rust::xxh3::xxh3_128(&b[..end]) != at.checksum {
            return Err("does not match its checksum (a byte of it changed on disk)".into());
        }
        Ok(node)
    }
}

/// The root of a table as its definition in the table tree says (`None`: the table is empty);
/// `Err` for a definition that is not one.
fn table_root(definition: &[u8]) -> Result<Option<Root>, ()> {
    // Table type (3 normal, 4 multimap), length (u64), root present (u8), root.
    match definition.first() {
        Some(3 | 4) => {}
        _ => return Err(()),
    }
    match definition.get(9) {
        Some(0) => Ok(None),
        Some(_) => Root::parse(definition.get(10..).ok_or(())?)
            .map(Some)
            .ok_or(()),
        None => Err(()),
    }
}
