//! The store boundary's guard: redb reads a damaged file with assertions, and an assertion is
//! a panic. Every store operation runs inside [`guarded`], so such a panic becomes an error
//! that names the damage (exit 1) instead of a backtrace (exit 101); while it runs, the panic
//! hook stays quiet.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

thread_local! {
    /// How many guarded calls this thread is inside.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Installs (once) a panic hook that is silent inside a guarded call and the usual one outside.
fn quiet_inside() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let usual = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if DEPTH.with(Cell::get) == 0 {
                usual(info);
            }
        }));
    });
}

/// Runs `f`; a panic inside it is returned as its message.
pub(super) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    quiet_inside();
    DEPTH.with(|d| d.set(d.get() + 1));
    let out = catch_unwind(AssertUnwindSafe(f));
    DEPTH.with(|d| d.set(d.get() - 1));
    out.map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        format!("reading it failed inside the database code ({what})")
    })
}
