//! The `mesh` binary: parse arguments, run the verb, exit with its code.

/// mimalloc rather than the system allocator: a load makes and frees hundreds of thousands of
/// small values (import names, evidence), on several threads when it scans, and glibc's
/// malloc spent a third of a cold scan in allocation and its arena locks.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cli;

fn main() {
    std::process::exit(cli::main());
}
