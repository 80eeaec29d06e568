//! `mesh completions SHELL`.

use clap_complete::Shell;

/// Print shell completions for mesh.
///
/// The script is a small shim that asks `mesh` (found on PATH) for the candidates each time, so
/// it completes verbs and options and also the mesh's own names: nodes, `@tags`, modules and
/// build ids. It is what `COMPLETE=SHELL mesh` prints, and what is committed under
/// `completions/` for packagers: `mesh.bash` (bash-completion's `completions/mesh`), `_mesh`
/// (zsh's site-functions, also fine to source) and `mesh.fish` (fish's
/// `vendor_completions.d`). `--static` prints a script that knows only verbs, options and
/// fixed choices, and never runs mesh.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
    /// A static script instead: verbs, options and fixed choices only; it never runs mesh.
    #[arg(long = "static")]
    fixed: bool,
}

/// Runs `mesh completions` and returns its exit code.
pub fn run(a: &Args) -> mesh::Result<i32> {
    use std::io::Write;
    let script = if a.fixed {
        generate_static(a.shell)
    } else {
        generate(a.shell)
    };
    let mut out = std::io::stdout().lock();
    // A closed pipe (`mesh completions bash | head`) is no error worth a message.
    let _ = out.write_all(&script);
    Ok(0)
}

/// The completion script for `shell`, as committed under `completions/`: clap_complete's
/// dynamic registration calling `mesh` from PATH (what `COMPLETE=SHELL mesh` prints when
/// `mesh` is run from PATH). zsh's gets one more line, so that the file also works autoloaded
/// from `fpath` (where zsh runs the file as the completion function itself).
pub fn generate(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    let shells = clap_complete::env::Shells::builtins();
    let name = shell.to_string();
    if let Some(completer) = shells.completer(&name) {
        // Writing to a Vec cannot fail.
        let _ = completer.write_registration("COMPLETE", "mesh", "mesh", "mesh", &mut out);
    }
    if shell == Shell::Zsh {
        out.extend_from_slice(ZSH_AUTOLOAD.as_bytes());
    }
    out
}

/// Appended to zsh's shim: run as `_mesh` by compinit's autoload, complete at once.
const ZSH_AUTOLOAD: &str =
    "if [[ \"${funcstack[1]-}\" == _mesh ]]; then\n    _clap_dynamic_completer_mesh \"$@\"\nfi\n";

/// A static completion script for `shell`: verbs, options and fixed choices, never running mesh.
pub fn generate_static(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut super::command(), "mesh", &mut out);
    out
}
