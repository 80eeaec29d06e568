//! Work for every node on a bounded number of threads, its messages handled on the caller's.

/// Runs `work` for every item on up to `parallel` threads (one node failing never stops the
/// others). The messages workers send reach `on_messages` on the calling thread as they
/// arrive, all those waiting at once: that is where the store is written, one handle per
/// process and one write for what arrived together.
pub(crate) fn fan_out<T: Send, M: Send>(
    items: Vec<T>,
    parallel: usize,
    work: impl Fn(T, &std::sync::mpsc::Sender<M>) + Sync,
    mut on_messages: impl FnMut(Vec<M>),
) {
    let queue = std::sync::Mutex::new(items.into_iter());
    let (tx, rx) = std::sync::mpsc::channel::<M>();
    std::thread::scope(|s| {
        for _ in 0..parallel.max(1) {
            let (tx, queue, work) = (tx.clone(), &queue, &work);
            s.spawn(move || {
                while let Some(item) = queue.lock().map(|mut q| q.next()).unwrap_or(None) {
                    work(item, &tx);
                }
            });
        }
        drop(tx);
        while let Ok(first) = rx.recv() {
            let mut waiting = vec![first];
            waiting.extend(rx.try_iter());
            on_messages(waiting);
        }
    });
}
