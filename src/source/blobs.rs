//! Reading many blobs at once at the speed of the pack: bases before the deltas made from them.
//!
//! git stores most blobs of a pack as a delta of another blob, in chains tens deep. gix keeps
//! the objects it decoded last, but not the bases it passed through: read in tree order, every
//! blob re-inflates its whole chain (on a generated 20,000-file workspace, 40 inflates per
//! blob). Read shallowest first, each blob's base was read just before it and is still in a
//! memory-capped cache, so each costs one inflate and one delta.

use super::SourceError;
use gix::ObjectId;

/// How much decoded data the reader's pack cache keeps: a few levels of bases.
const CACHE_BYTES: usize = 16 << 20;

/// The largest buffer read into again (source files are smaller; a delta's buffer holds its
/// base too).
const KEPT_BUFFER: usize = 256 << 10;

/// One blob, as [`read_many`] hands it over.
pub enum Blob {
    /// Its bytes.
    Data(Vec<u8>),
    /// Its size, larger than the limit: not read.
    TooLarge(u64),
}

impl Blob {
    /// Its buffer, emptied, to read another blob into — or a new one when it grew past
    /// [`KEPT_BUFFER`]: a few large files would otherwise leave every buffer in circulation
    /// that large.
    pub(crate) fn into_buffer(self) -> Vec<u8> {
        match self {
            Blob::Data(mut d) if d.capacity() <= KEPT_BUFFER => {
                d.clear();
                d
            }
            Blob::Data(_) | Blob::TooLarge(_) => Vec::new(),
        }
    }
}

/// Reads each blob of `ids` once (duplicates are read once), bases first, and hands each to
/// `take` in that order until `take` says stop (returns `false`). Each is read into a buffer
/// from `buffer` (one handed back from an earlier blob costs no new memory). A blob larger
/// than `limit` bytes is not read. On a read that fails, the error names the blob's id;
/// `what` names the repository in it.
pub(crate) fn read_many(
    repo: &gix::Repository,
    what: &str,
    ids: &[ObjectId],
    limit: u64,
    mut buffer: impl FnMut() -> Vec<u8>,
    mut take: impl FnMut(ObjectId, Blob) -> bool,
) -> Result<(), SourceError> {
    use gix::prelude::FindExt;
    let mut repo = repo.clone();
    repo.objects.set_pack_cache(|| {
        Box::new(gix::odb::pack::cache::lru::MemoryCappedHashmap::new(
            CACHE_BYTES,
        ))
    });
    let mut order = headers(&repo, what, ids)?;
    order.sort_unstable();
    order.dedup_by_key(|(_, id, _)| *id);
    // Every blob is decoded here, then copied to a buffer of its size: a delta's decoding
    // needs room for its base and itself, grown step by step, and in each buffer handed on
    // that room would be faulted in anew.
    let mut scratch = Vec::new();
    for (_, id, size) in order {
        let blob = if size > limit {
            Blob::TooLarge(size)
        } else if id == ObjectId::empty_blob(id.kind()) {
            Blob::Data(Vec::new())
        } else {
            let found = repo
                .objects
                .find(&id, &mut scratch)
                .map_err(|e| SourceError::git(what, &format!("cannot read blob {id}"), e))?;
            if found.kind != gix::object::Kind::Blob {
                let (why, kind) = (format!("cannot read blob {id}"), found.kind);
                return Err(SourceError::git(what, &why, format!("it is a {kind}")));
            }
            let mut data = buffer();
            data.extend_from_slice(found.data);
            Blob::Data(data)
        };
        if !take(id, blob) {
            break;
        }
    }
    Ok(())
}

/// [`read_many`] on this thread while `threads` workers take what it read, in batches: the
/// reader inflates, the workers do the rest — or, with no workers (`threads` 0), all on this
/// thread as it reads. Each worker starts from `start()` and hands each blob to `work` with
/// its place in the reading order (bases first: the same order for the same ids); the
/// reader reads the blob at place `n` only while `more(n)` says so. Each worker's result is
/// returned, in no given order.
pub(crate) fn read_beside<T: Send>(
    repo: &gix::Repository,
    what: &str,
    (ids, limit): (&[ObjectId], u64),
    threads: usize,
    start: impl Fn() -> T + Sync,
    work: impl Fn(&mut T, usize, ObjectId, &Blob) + Sync,
    more: impl Fn(usize) -> bool,
) -> Result<Vec<T>, SourceError> {
    /// Blobs handed to a worker at once: few enough to keep every worker busy, enough that
    /// handing over costs nothing.
    const BATCH: usize = 16;
    type Batch = Vec<(usize, ObjectId, Blob)>;
    if threads == 0 {
        let mut got = start();
        let mut n = 0;
        // Each blob's buffer is the next one's.
        let spare = std::cell::Cell::new(Vec::new());
        read_many(
            repo,
            what,
            ids,
            limit,
            || spare.take(),
            |id, blob| {
                work(&mut got, n, id, &blob);
                n += 1;
                spare.set(blob.into_buffer());
                more(n)
            },
        )?;
        return Ok(vec![got]);
    }
    // One queue: whichever worker is free takes the next batch. Only the workers hold its
    // end, so were they all gone the reader's next hand-over fails rather than waits.
    let (send, receive) = std::sync::mpsc::sync_channel::<Batch>(threads * 2);
    let receive = std::sync::Arc::new(std::sync::Mutex::new(receive));
    // The blobs' buffers go back to the reader to be read into again: memory the reader
    // allocated and a worker freed would reach the reader again only late, so it would keep
    // asking for more.
    let (give_back, returned) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let receive = std::sync::Arc::clone(&receive);
                let (give_back, start, work) = (give_back.clone(), &start, &work);
                s.spawn(move || {
                    let mut got = start();
                    loop {
                        let next = match receive.lock() {
                            Ok(r) => r.recv(),
                            Err(_) => break,
                        };
                        let Ok(batch) = next else { break };
                        for (n, id, blob) in batch {
                            work(&mut got, n, id, &blob);
                            // The reader may be done: then the buffer is simply freed.
                            let _ = give_back.send(blob.into_buffer());
                        }
                    }
                    got
                })
            })
            .collect();
        drop(receive);
        drop(give_back);
        let mut batch: Batch = Vec::with_capacity(BATCH);
        let hand_over = |batch: Batch| send.send(batch).is_ok();
        let mut n = 0;
        let mut read = read_many(
            repo,
            what,
            ids,
            limit,
            || returned.try_recv().unwrap_or_default(),
            |id, blob| {
                batch.push((n, id, blob));
                n += 1;
                let handed = batch.len() < BATCH
                    || hand_over(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)));
                handed && more(n)
            },
        );
        if read.is_ok() && !batch.is_empty() && !hand_over(batch) {
            read = Err(SourceError::git(what, "reading blobs", "a worker stopped"));
        }
        drop(send);
        let got = crate::cores::join_all(workers);
        read.map(|()| got)
    })
}

/// Each blob's (delta depth, id, size), read on every core when there are many: a header
/// walks the blob's whole delta chain.
fn headers(
    repo: &gix::Repository,
    what: &str,
    ids: &[ObjectId],
) -> Result<Vec<(u32, ObjectId, u64)>, SourceError> {
    let cores = crate::cores::cores();
    if ids.len() < 2000 || cores == 1 {
        return headers_of(repo, what, ids);
    }
    let parts: Vec<Result<_, SourceError>> = std::thread::scope(|s| {
        let handles: Vec<_> = ids
            .chunks(ids.len().div_ceil(cores))
            .map(|chunk| {
                let repo = repo.clone();
                s.spawn(move || headers_of(&repo, what, chunk))
            })
            .collect();
        crate::cores::join_all(handles)
    });
    let mut out = Vec::with_capacity(ids.len());
    for part in parts {
        out.extend(part?);
    }
    Ok(out)
}

/// [`headers`], on this thread.
fn headers_of(
    repo: &gix::Repository,
    what: &str,
    ids: &[ObjectId],
) -> Result<Vec<(u32, ObjectId, u64)>, SourceError> {
    ids.iter()
        .map(|&id| {
            let header = repo
                .find_header(id)
                .map_err(|e| SourceError::git(what, &format!("cannot read blob {id}"), e))?;
            let depth = match header {
                gix::odb::find::Header::Packed(p) => p.num_deltas,
                gix::odb::find::Header::Loose { .. } => 0,
            };
            Ok((depth, id, header.size()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every blob is handed over once, with its bytes; one over the limit by its size alone.
    #[test]
    fn every_blob_once_and_a_large_one_by_its_size() {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = gix::init(dir.path()).expect("init");
        let small = repo
            .write_blob(b"import a from 'a'\n")
            .expect("blob")
            .detach();
        let big = repo.write_blob(vec![b'x'; 100]).expect("blob").detach();
        let mut seen = Vec::new();
        read_many(&repo, "r", &[small, big, small], 50, Vec::new, |id, b| {
            seen.push(match b {
                Blob::Data(d) => (id, d.len() as u64, true),
                Blob::TooLarge(n) => (id, n, false),
            });
            true
        })
        .expect("read");
        seen.sort();
        let mut want = vec![(small, 18, true), (big, 100, false)];
        want.sort();
        assert_eq!(seen, want);
    }

    /// A blob the repository does not hold is an error naming it.
    #[test]
    fn a_missing_blob_is_an_error_naming_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = gix::init(dir.path()).expect("init");
        let id = ObjectId::from_hex(b"0123456789012345678901234567890123456789").expect("id");
        let err = read_many(&repo, "r", &[id], 50, Vec::new, |_, _| true).expect_err("missing");
        assert!(err.to_string().contains("0123456789"), "{err}");
    }
}
