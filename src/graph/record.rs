//! The load's one store write, on a thread of its own: the store opened (made, the first
//! time) while the load scans, the scans put while it resolves, so that neither waits for
//! the other; committed once the graph cache is handed over, or abandoned, and then nothing
//! at all is written.

use super::cache::{self, Head, Resolved};
use crate::store::{IMPORTS, MODULES, Sealed, Store, StoreError, StoredModule};
use mesh_imports::FileScan;
use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;

/// What the load hands the writer.
enum Msg {
    /// Scans of blobs and records of modules to put.
    Scans(Vec<Sealed<FileScan>>, Vec<Sealed<StoredModule>>),
    /// The last of it: the graph cache's head (when the names were read), the edges resolved
    /// now by module name, and the modules that are gone. Then the write commits.
    Finish(Option<Head>, Vec<(String, Resolved)>, Vec<String>),
}

/// A write in progress. Dropped without [`Recorder::finish`], it is abandoned: its
/// transaction is never committed.
pub(super) struct Recorder {
    send: Option<mpsc::Sender<Msg>>,
    thread: Option<JoinHandle<Result<(), StoreError>>>,
}

impl Recorder {
    /// Begins the write to the store at `path`: opens it now, begins its transaction with
    /// the first [`Recorder::put`].
    pub fn start(path: &Path) -> Recorder {
        let (send, receive) = mpsc::channel();
        let path = path.to_path_buf();
        let thread = std::thread::spawn(move || write(&path, &receive));
        Recorder {
            send: Some(send),
            thread: Some(thread),
        }
    }

    /// Puts these scans and records (in the order given; keys in order go in fastest).
    pub fn put(&self, imports: Vec<Sealed<FileScan>>, modules: Vec<Sealed<StoredModule>>) {
        if let Some(send) = &self.send {
            // A writer that stopped has an error to give at `Committing::wait`.
            let _ = send.send(Msg::Scans(imports, modules));
        }
    }

    /// Hands over the graph cache and lets the write commit while the caller goes on (to
    /// render what it loaded): [`Committing::wait`] says whether the store holds it.
    pub fn commit(
        mut self,
        head: Option<Head>,
        fresh: Vec<(String, Resolved)>,
        gone: Vec<String>,
    ) -> Committing {
        if let Some(send) = self.send.take() {
            let _ = send.send(Msg::Finish(head, fresh, gone));
        }
        Committing {
            thread: self.thread.take(),
        }
    }
}

/// A write handed all it puts, committing on its thread. Dropped without
/// [`Committing::wait`], it still waits for the commit (and its error is not said).
pub struct Committing {
    thread: Option<JoinHandle<Result<(), StoreError>>>,
}

impl Committing {
    /// Waits until the store holds the write, or says why it does not.
    pub fn wait(mut self) -> Result<(), StoreError> {
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => Ok(()),
        }
    }
}

impl Drop for Committing {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Recorder {
    /// Abandons an unfinished write, and waits until its transaction is gone (so the store
    /// is free for whatever the caller does next).
    fn drop(&mut self) {
        drop(self.send.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The writer: the store opened at once (made, the first time), while the load still scans;
/// then one transaction, begun with the first message (other processes' writes wait for the
/// write, not for the scan), each message put as it comes, committed on `Finish`. Ended
/// without one (the load failed), nothing is written.
fn write(path: &Path, receive: &mpsc::Receiver<Msg>) -> Result<(), StoreError> {
    let store = Store::open(path)?;
    let abandoned = || StoreError::Db {
        path: path.to_path_buf(),
        message: "the load that began this write failed: nothing written".into(),
    };
    let mut next = receive.recv().map_err(|_| abandoned())?;
    store.write(|w| {
        loop {
            match next {
                Msg::Scans(imports, modules) => {
                    w.put_sealed(IMPORTS, &imports)?;
                    w.put_sealed(MODULES, &modules)?;
                }
                Msg::Finish(head, fresh, gone) => {
                    if let Some(head) = head {
                        let changed: Vec<(&str, &Resolved)> =
                            fresh.iter().map(|(n, r)| (n.as_str(), r)).collect();
                        cache::write(w, &head, &changed, &gone)?;
                    }
                    return Ok(());
                }
            }
            next = receive.recv().map_err(|_| abandoned())?;
        }
    })
}
