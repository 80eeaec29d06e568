//! The `mesh` binary: parse arguments, run the verb, exit with its code.

/// mimalloc rather than the system allocator: a load makes and frees hundreds of thousands of
/// small values (import names, evidence), on several threads when it scans, and glibc's
/// malloc spent a third of a cold scan in allocation and its arena locks.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;

fn main() {
    keep_freed_memory();
    std::process::exit(cli::main());
}

/// mimalloc's `mi_option_purge_delay` (its index in `mi_option_t`, mimalloc.h of v2 and v3
/// alike; libmimalloc-sys names no constant for it).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps the memory mesh frees for the rest of the run rather than handing it back to the
/// kernel. A run lives for seconds and asks again at once for what it freed (blob buffers,
/// pack caches); given back after mimalloc's delay — reached whenever a busy machine slows
/// the run — each page was faulted and zeroed anew: on a loaded machine, a fifth of a cold
/// `mesh drift`'s CPU on a 4,700-file repository. `MIMALLOC_PURGE_DELAY` still overrides.
fn keep_freed_memory() {
    // Set by hand (its old name too), or a node's verbs (`mesh node serve` may live long).
    let set = ["MIMALLOC_PURGE_DELAY", "MIMALLOC_RESET_DELAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    if set
        || std::env::args_os()
            .nth(1)
            .is_some_and(|verb| verb == "node")
    {
        return;
    }
    // SAFETY: sets one option's value before any other thread runs (mi_option_set is not
    // thread safe); no memory is touched.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
}
