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
        self.watchdog.moved.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<T: Write> Write for Counted<T> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.watchdog.moved.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Kills the peer when the current request makes no progress for its quiet time, or runs past
/// its total.
pub(super) struct Watchdog {
    state: Mutex<WatchState>,
    wake: Condvar,
    /// Bytes moved either way, counted by the pipe ends.
    pub(super) moved: AtomicU64,
    /// Whole frames read.
    frames: AtomicU64,
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
    /// Armed: the current window of silence allowed, when it ends, and the counts at its start.
    window: Option<Window>,
    fired: Option<Fired>,
    done: bool,
}

#[derive(Clone, Copy)]
struct Window {
    /// The silence allowed after this window.
    quiet: Duration,
    /// How long this window lasts (the first may be longer: connecting).
    length: Duration,
    ends: Instant,
    /// When the whole request must be over, and how long that was.
    until: Instant,
    total: Duration,
    moved: u64,
    frames: u64,
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
            moved: AtomicU64::new(0),
            frames: AtomicU64::new(0),
        }
    }

    /// Arms it for a request: progress within `first`, then within every `quiet`, and done
    /// within `total`.
    pub(super) fn arm(&self, first: Duration, quiet: Duration, total: Duration) {
        if let Ok(mut s) = self.state.lock() {
            let now = Instant::now();
            s.window = Some(Window {
                quiet,
                length: first,
                ends: now + first,
                until: now + total.max(first),
                total: total.max(first),
                moved: self.moved.load(Ordering::Relaxed),
                frames: self.frames.load(Ordering::Relaxed),
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
        self.frames.fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn fired(&self) -> Option<Fired> {
        self.state.lock().ok().and_then(|s| s.fired)
    }

    pub(super) fn watch(&self, peer: &Mutex<Peer>) {
        let Ok(mut s) = self.state.lock() else { return };
        loop {
            if s.done {
                return;
            }
            let now = Instant::now();
            let next = match s.window.as_mut() {
                None => None,
                Some(w) if now >= w.until => {
                    let why = Fired::Overall(w.total);
                    s.window = None;
                    s.fired = Some(why);
                    if let Ok(mut p) = peer.lock() {
                        p.kill();
                    }
                    continue;
                }
                Some(w) if now >= w.ends => {
                    let (moved, frames) = (
                        self.moved.load(Ordering::Relaxed),
                        self.frames.load(Ordering::Relaxed),
                    );
                    if frames > w.frames || moved.saturating_sub(w.moved) >= PROGRESS_STEP {
                        // Progress in this window: another one.
                        (w.moved, w.frames) = (moved, frames);
                        w.length = w.quiet;
                        w.ends = now + w.quiet;
                        Some(w.ends.min(w.until))
                    } else {
                        let why = Fired::Silent(w.length);
                        s.window = None;
                        s.fired = Some(why);
                        if let Ok(mut p) = peer.lock() {
                            p.kill();
                        }
                        continue;
                    }
                }
                Some(w) => Some(w.ends.min(w.until)),
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
