//! The committed completions and man pages are what the binary generates.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `mesh ARGS`, its stdout; it must succeed.
fn mesh(args: &[&str]) -> Vec<u8> {
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("mesh"))
        .args(args)
        .env_remove("COMPLETE")
        .output()
        .expect("mesh runs");
    assert!(out.status.success(), "mesh {args:?}: {out:?}");
    out.stdout
}

#[test]
fn completions_are_current() {
    for (shell, file) in [
        ("bash", "completions/mesh.bash"),
        ("zsh", "completions/_mesh"),
        ("fish", "completions/mesh.fish"),
    ] {
        let want = mesh(&["completions", shell]);
        let have = std::fs::read(root().join(file)).unwrap_or_default();
        assert!(
            want == have,
            "{file} is stale: run `scripts/generate` and commit the result"
        );
    }
}

/// What `mesh man --out DIR` writes: (file name, roff), sorted by name.
pub fn pages() -> Vec<(String, Vec<u8>)> {
    let dir = tempfile::tempdir().expect("tmp");
    let out = dir.path().display().to_string();
    mesh(&["man", "--out", &out]);
    let mut pages: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path())
        .expect("pages written")
        .map(|e| {
            let e = e.expect("entry");
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).expect("page"))
        })
        .collect();
    pages.sort();
    pages
}

#[test]
fn man_pages_are_current() {
    let pages = pages();
    assert!(pages.len() > 3);
    let mut committed: Vec<String> = std::fs::read_dir(root().join("man"))
        .expect("man/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    committed.sort();
    let made: Vec<&String> = pages.iter().map(|(n, _)| n).collect();
    assert!(
        committed.iter().collect::<Vec<_>>() == made,
        "man/ holds other pages than mesh makes: run `scripts/generate` and commit the result"
    );
    for (name, want) in pages {
        let have = std::fs::read(root().join("man").join(&name)).unwrap_or_default();
        assert!(
            want == have,
            "man/{name} is stale: run `scripts/generate` and commit the result"
        );
    }
}
