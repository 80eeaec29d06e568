//! The committed completions and man pages are what the binary generates.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn completions_are_current() {
    use clap_complete::Shell;
    for (shell, file) in [
        (Shell::Bash, "completions/mesh.bash"),
        (Shell::Zsh, "completions/_mesh"),
        (Shell::Fish, "completions/mesh.fish"),
    ] {
        let want = mesh::cli::completions::generate(shell);
        let have = std::fs::read(root().join(file)).unwrap_or_default();
        assert!(
            want == have,
            "{file} is stale: run `scripts/generate` and commit the result"
        );
    }
}

#[test]
fn man_pages_are_current() {
    let pages = mesh::cli::man::pages();
    assert!(pages.len() > 3);
    for (name, want) in pages {
        let have = std::fs::read(root().join("man").join(&name)).unwrap_or_default();
        assert!(
            want == have,
            "man/{name} is stale: run `scripts/generate` and commit the result"
        );
    }
}
