//! Work spread over the machine's cores: how many there are to use, and waiting for the
//! scoped threads that did the work.

/// The cores worth using at once (at most 8: past that, reading the pack is the limit).
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8)
}

/// Each thread's result, in order; a thread that panicked panics here with its payload.
pub(crate) fn join_all<T>(handles: Vec<std::thread::ScopedJoinHandle<'_, T>>) -> Vec<T> {
    handles
        .into_iter()
        .map(|h| match h.join() {
            Ok(r) => r,
            Err(p) => std::panic::resume_unwind(p),
        })
        .collect()
}
