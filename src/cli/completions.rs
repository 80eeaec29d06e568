//! `mesh completions SHELL`.

use clap_complete::Shell;

/// Print shell completions for mesh.
///
/// These static scripts complete verbs, options and fixed choices (event kinds, formats); they
/// are also committed under `completions/`. For completions that also know the mesh (its
/// nodes, `@tags`, modules and build ids), let mesh answer the shell itself:
/// `source <(COMPLETE=bash mesh)` in ~/.bashrc, `source <(COMPLETE=zsh mesh)` in ~/.zshrc, or
/// `COMPLETE=fish mesh | source` in fish.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

/// Runs `mesh completions` and returns its exit code.
pub fn run(a: &Args) -> crate::Result<i32> {
    let mut out = std::io::stdout().lock();
    clap_complete::generate(a.shell, &mut super::command(), "mesh", &mut out);
    Ok(0)
}

/// The completion script for `shell`, as committed under `completions/`.
pub fn generate(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut super::command(), "mesh", &mut out);
    out
}
