//! The language manifests mesh reads in a module (`mesh_imports::manifest`, `setup_cfg`,
//! `tsconfig`, `python_packages`): the first byte picks the file (`Cargo.toml`,
//! `pyproject.toml`, `package.json`, `go.mod`, `setup.cfg`, `tsconfig.json`, or several:
//! parts separated by 0xff in that order); a last part after 0xff 0xff lists the module's
//! Python files, one a line.
//!
//! Properties: it terminates and never panics; the output is bounded by the input; a Python
//! package said to be shipped is one of the module's files or a directory holding some; a
//! tsconfig alias never climbs above the repository and has at most one `*` each side; a
//! Go module path is a word of the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mesh_imports::{manifest, setup_cfg, tsconfig};

const FILES: [&str; 7] = [
    "Cargo.toml",
    "pyproject.toml",
    "package.json",
    "go.mod",
    "setup.cfg",
    "tsconfig.json",
    "Dockerfile",
];

fuzz_target!(|data: &[u8]| {
    let (pick, rest) = data.split_first().map_or((0, data), |(k, r)| (*k, r));
    let (files_part, python_part) = match rest.windows(2).position(|w| w == [0xff, 0xff]) {
        Some(at) => (&rest[..at], &rest[at + 2..]),
        None => (rest, &[][..]),
    };
    let text = String::from_utf8_lossy(files_part).into_owned();
    let python = String::from_utf8_lossy(python_part).into_owned();
    let python_files: Vec<&str> = python.lines().filter(|l| !l.is_empty()).take(64).collect();
    let parts: Vec<(&str, &str)> = match usize::from(pick) % 8 {
        7 => FILES.iter().copied().zip(text.split('\u{fffd}')).collect(),
        i => vec![(FILES[i], text.as_str())],
    };
    let total = text.len() + python.len() + 1;

    let manifests: Vec<(&str, &str)> = parts
        .iter()
        .copied()
        .filter(|(name, _)| manifest::MANIFEST_FILES.contains(name) || *name == manifest::DOCKERFILE)
        .collect();
    let facts = manifest::read_facts(&manifests, &python_files);
    assert!(facts.provides.len() <= total && facts.rust_renames.len() <= total);
    assert!(facts.rust_dev_paths.len() <= total && facts.rust_workspace_deps.len() <= total);
    assert!(
        facts.notes.len() <= total + 8,
        "{} notes",
        facts.notes.len()
    );
    for (_, name) in &facts.provides {
        assert!(!name.is_empty() && name.len() <= total, "{name:?}");
    }
    // A shipped directory holds the module's Python files, or is a package the build names
    // that is not there (a build script copies it in), which a note says.
    let missing_noted = facts.notes.iter().any(|n| n.contains("which is not in the module"));
    for dir in &facts.python_shipped {
        let holds = python_files
            .iter()
            .any(|f| f == dir || f.starts_with(&format!("{dir}/")) || dir.is_empty());
        assert!(
            holds || (missing_noted && dir.len() <= total),
            "{dir:?} is shipped, holds none of the module's Python files, and no note says it is missing"
        );
    }

    for (name, text) in parts {
        match name {
            "Cargo.toml" => {
                let renames = manifest::workspace_renames(text, &facts.rust_workspace_deps);
                assert!(renames.len() <= facts.rust_workspace_deps.len());
                let _ = manifest::cargo_declares_workspace(text);
                assert!(manifest::cargo_workspace_excludes(text).len() <= text.len());
            }
            "go.mod" => {
                if let Some(path) = manifest::go_module_path(text) {
                    assert!(text.contains(&path), "{path:?} is not in the file");
                }
            }
            "setup.cfg" => {
                let cfg = setup_cfg::read(text);
                assert!(cfg.requirements.len() <= text.len());
                let _ = setup_cfg::ini_words(text, "options", "packages");
                let _ = setup_cfg::merged(None, &cfg);
            }
            "tsconfig.json" => {
                let plain = tsconfig::strip_jsonc(text);
                assert!(plain.len() <= text.len(), "stripping comments adds nothing");
                let aliases = tsconfig::paths("apps/web", text);
                for (pattern, target) in &aliases {
                    assert!(pattern.matches('*').count() <= 1 && target.matches('*').count() <= 1);
                    assert!(
                        !target.split('/').any(|s| s == ".."),
                        "{target:?} climbs above the repository"
                    );
                }
                for spec in ["@/x", "@shared/a/b", "lib", "./y"] {
                    if let Some(to) = tsconfig::apply(&aliases, spec) {
                        assert!(to.len() <= text.len() + spec.len());
                    }
                }
            }
            _ => {}
        }
    }
});
