//! The session's watchdog: a request that makes no progress for its quiet time, or runs past
//! its total, has its peer killed, so that nothing waits forever.

use super::{PROGRESS_STEP, Peer};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A pipe end that counts the bytes through it as the watchdog's progress.
pub(super) struct Counted<T> {
    pub(super) inner: T,
    pub(super) watchdog: Arc<Watchdog>,
}

impl<T: Read> Read for Counted<T> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.watchdog.moved(n);
        Ok(n)
    }
}

impl<T: Write> Write for Counted<T> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.watchdog.moved(n);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Kills the peer when the current request makes no progress for its quiet time, or runs past
/// its total.
///
/// Progress is marked when it happens (a whole frame read, or [`PROGRESS_STEP`] more bytes
/// moved), and the silence is measured from that mark: a node may be silent for exactly its
/// quiet time, never for up to twice it, as a check at the end of fixed windows would allow.
pub(super) struct Watchdog {
    state: Mutex<WatchState>,
    wake: Condvar,
    /// When the watchdog was made: the origin of [`Self::progress_at`].
    epoch: Instant,
    /// Bytes moved either way, counted by the pipe ends.
    moved: AtomicU64,
    /// [`Self::moved`] at the last mark of progress.
    marked: AtomicU64,
    /// When progress was last marked, in nanoseconds since [`Self::epoch`].
    progress_at: AtomicU64,
}

/// Why the watchdog ended a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fired {
    /// No progress for this long.
    Silent(Duration),
    /// Still not done after this long in all.
    Overall(Duration),
}

struct WatchState {
    /// Armed: the silences allowed and the end of the current request.
    window: Option<Window>,
    fired: Option<Fired>,
    done: bool,
}

#[derive(Clone, Copy)]
struct Window {
    /// When the request was armed, in nanoseconds since the epoch.
    armed_at: u64,
    /// The silence allowed before the first progress (may be longer than `quiet`: connecting).
    first: Duration,
    /// The silence allowed after any progress.
    quiet: Duration,
    /// When the whole request must be over, and how long that was.
    until: Instant,
    total: Duration,
}

impl Watchdog {
    pub(super) fn new() -> Watchdog {
        Watchdog {
            state: Mutex::new(WatchState {
                window: None,
                fired: None,
                done: false,
            }),
            wake: Condvar::new(),
            epoch: Instant::now(),
            moved: AtomicU64::new(0),
            marked: AtomicU64::new(0),
            progress_at: AtomicU64::new(0),
        }
    }

    /// Nanoseconds since the epoch, now.
    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// `n` more bytes moved: progress once [`PROGRESS_STEP`] of them came since the last mark.
    fn moved(&self, n: usize) {
        let moved = self.moved.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
        if moved.saturating_sub(self.marked.load(Ordering::Relaxed)) >= PROGRESS_STEP {
            self.mark();
        }
    }

    /// Progress now.
    fn mark(&self) {
        self.marked
            .store(self.moved.load(Ordering::Relaxed), Ordering::Relaxed);
        self.progress_at.store(self.now(), Ordering::Relaxed);
    }

    /// Arms it for a request: progress within `first`, then within `quiet` of each progress,
    /// and done within `total`.
    pub(super) fn arm(&self, first: Duration, quiet: Duration, total: Duration) {
        if let Ok(mut s) = self.state.lock() {
            // Bytes moved before this request are not its progress.
            self.marked
                .store(self.moved.load(Ordering::Relaxed), Ordering::Relaxed);
            let total = total.max(first);
            s.window = Some(Window {
                armed_at: self.now(),
                first,
                quiet,
                until: Instant::now() + total,
                total,
            });
            self.wake.notify_one();
        }
    }

    /// Disarms it: the request is over.
    pub(super) fn disarm(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.window = None;
            self.wake.notify_one();
        }
    }

    /// The session is over: the watching thread returns.
    pub(super) fn stop(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.done = true;
            self.wake.notify_one();
        }
    }

    /// A whole frame was read: progress.
    pub(super) fn frame(&self) {
        self.mark();
    }

    pub(super) fn fired(&self) -> Option<Fired> {
        self.state.lock().ok().and_then(|s| s.fired)
    }

    /// When the silence allowed in `w` ends (nanoseconds since the epoch), and how long a
    /// silence that is.
    fn silence_ends(&self, w: &Window) -> (u64, Duration) {
        let progress = self.progress_at.load(Ordering::Relaxed);
        if progress > w.armed_at {
            (progress + w.quiet.as_nanos() as u64, w.quiet)
        } else {
            (w.armed_at + w.first.as_nanos() as u64, w.first)
        }
    }

    pub(super) fn watch(&self, peer: &Mutex<Peer>) {
        let Ok(mut s) = self.state.lock() else { return };
        loop {
            if s.done {
                return;
            }
            let next = match s.window {
                None => None,
                Some(w) => {
                    let (silence_ends, silence) = self.silence_ends(&w);
                    let fired = if Instant::now() >= w.until {
                        Some(Fired::Overall(w.total))
                    } else if self.now() >= silence_ends {
                        Some(Fired::Silent(silence))
                    } else {
                        None
                    };
                    if let Some(why) = fired {
                        s.window = None;
                        s.fired = Some(why);
                        if let Ok(mut p) = peer.lock() {
                            p.kill();
                        }
                        continue;
                    }
                    let wait = Duration::from_nanos(silence_ends.saturating_sub(self.now()));
                    Some(w.until.min(Instant::now() + wait))
                }
            };
            s = match next {
                Some(at) => match self
                    .wake
                    .wait_timeout(s, at.saturating_duration_since(Instant::now()))
                {
                    Ok((s, _)) => s,
                    Err(_) => return,
                },
                None => match self.wake.wait(s) {
                    Ok(s) => s,
                    Err(_) => return,
                },
            };
        }
    }
}
