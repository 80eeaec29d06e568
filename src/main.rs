//! The `mesh` binary: parse arguments, run the verb, exit with its code.

fn main() {
    std::process::exit(mesh::cli::main());
}
