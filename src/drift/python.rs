//! Python's own drift rules: which names a module's own files answer to, so that its imports
//! of itself, and of files beside a script or a test, are no dependencies.

use mesh_imports::{Language, ScannedFile};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The Python names a module provides that its own files hold: a package directory or a
/// `.py` file of that name somewhere in it. A meta-package's project name gives it an import
/// name whose code lives in another module (pydantic-ai's root, `pydantic_ai`, ships nothing
/// of its own and pulls in pydantic-ai-slim, which holds `pydantic_ai/`): its tests' `import
/// pydantic_ai` then uses that dependency, not itself.
pub(super) fn own_python_names(
    provided: Vec<String>,
    files: &[ScannedFile],
    prefix: &str,
) -> Vec<String> {
    provided
        .into_iter()
        .filter(|name| {
            let top = name.split('.').next().unwrap_or(name);
            files
                .iter()
                .filter(|f| f.language == Language::Python)
                .any(|f| {
                    let rel = f.path.strip_prefix(prefix).unwrap_or(&f.path);
                    let mut parts = rel.split('/').peekable();
                    let mut hit = false;
                    while let Some(p) = parts.next() {
                        let stem = if parts.peek().is_none() {
                            p.trim_end_matches(".pyi").trim_end_matches(".py")
                        } else {
                            p
                        };
                        hit |= stem.eq_ignore_ascii_case(top);
                    }
                    hit
                })
        })
        .collect()
}

/// The names a module's own Python files answer to from beside them: a script's `import
/// helpers` next to `helpers.py`, a test's `import conftest_utils`. A directory that is no
/// package (no `__init__.py`) is put on `sys.path` by running a script in it or by pytest's
/// rootdir insertion, so its entries are importable from below it; a package's are not
/// (`pydantic_ai/models/openai.py` never makes `import openai` local).
pub(super) struct LocalPython {
    /// (module-relative directory, lowercase entry name) of each Python file and directory,
    /// for the directories that are no package.
    entries: Vec<(String, String)>,
}

impl LocalPython {
    /// Whether `top` names an entry of a non-package directory at or above the file `rel`.
    pub(super) fn is_local(&self, rel: &str, top: &str) -> bool {
        crate::source::ancestors(rel)
            .skip(1)
            .any(|dir| self.entries.iter().any(|(d, n)| d == dir && n == top))
    }
}

pub(super) fn local_python_names(files: &[ScannedFile], dir: &str) -> LocalPython {
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let rels: Vec<&str> = files
        .iter()
        .filter(|f| f.language == Language::Python)
        .map(|f| f.path.strip_prefix(&prefix).unwrap_or(&f.path))
        .collect();
    let package = |d: &str| {
        rels.iter().any(|r| {
            r.rsplit_once('/')
                .is_some_and(|(p, f)| p == d && f.starts_with("__init__."))
        })
    };
    let mut entries: Vec<(String, String)> = Vec::new();
    for rel in &rels {
        let mut parts: Vec<&str> = rel.split('/').collect();
        while let Some(last) = parts.pop() {
            let parent = parts.join("/");
            let stem = last
                .trim_end_matches(".pyi")
                .trim_end_matches(".py")
                .to_lowercase();
            let entry = (parent, stem);
            if !entries.contains(&entry) {
                entries.push(entry);
            }
        }
    }
    entries.retain(|(d, _)| d.is_empty() || !package(d));
    LocalPython { entries }
}

/// The environments a module's distributions may be installed in: a `.venv` (or `venv`)
/// beside its manifest in the work tree at `repo`, and `VIRTUAL_ENV`.
pub(super) fn environments(repo: &Path, dir: &str) -> Vec<PathBuf> {
    let here = repo.join(dir);
    let mut out: Vec<PathBuf> = [".venv", "venv"]
        .iter()
        .map(|v| here.join(v))
        .filter(|p| p.is_dir())
        .collect();
    out.extend(std::env::var_os("VIRTUAL_ENV").map(PathBuf::from));
    out
}

/// What each distribution installed in `envs` is imported by, by PEP 503 name: its
/// `top_level.txt`, else the top-level names of the files its `RECORD` installed (packages
/// and `.py` modules). What a distribution says of itself beats any table; a distribution
/// not installed is matched by the rules of [`super::names::python_keys`].
pub(super) fn installed(envs: &[PathBuf]) -> HashMap<String, Vec<String>> {
    let mut out = HashMap::new();
    for env in envs {
        let Ok(libs) = std::fs::read_dir(env.join("lib")) else {
            continue;
        };
        for lib in libs.flatten() {
            let Ok(entries) = std::fs::read_dir(lib.path().join("site-packages")) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                let Some(stem) = name.strip_suffix(".dist-info") else {
                    continue;
                };
                let dist = stem.split('-').next().unwrap_or(stem);
                let names = top_level(&e.path());
                if !names.is_empty() {
                    out.entry(super::names::pep503(dist)).or_insert(names);
                }
            }
        }
    }
    out
}

/// The import names of one installed distribution (its `.dist-info` directory), lowercase.
fn top_level(dist_info: &Path) -> Vec<String> {
    let mut names: Vec<String> = match std::fs::read_to_string(dist_info.join("top_level.txt")) {
        Ok(t) => t
            .lines()
            .map(|l| l.trim().to_lowercase())
            .filter(|l| !l.is_empty())
            .collect(),
        Err(_) => std::fs::read_to_string(dist_info.join("RECORD"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| {
                let path = l.split(',').next()?;
                let (top, rest) = path.split_once('/').unwrap_or((path, ""));
                let module = top.strip_suffix(".py").filter(|_| rest.is_empty());
                let package = (!rest.is_empty()
                    && !top.ends_with(".dist-info")
                    && !top.ends_with(".data")
                    && top != ".."
                    && top != "__pycache__")
                    .then_some(top);
                module.or(package).map(str::to_lowercase)
            })
            .collect(),
    };
    names.sort();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use mesh_imports::ImportKind;

    #[test]
    fn local_python_names_stop_at_packages() {
        // pydantic-ai: pydantic_ai_slim/pydantic_ai/models/openai.py is no top-level
        // `openai`; a test beside its helper, and the module root's entries, are local.
        let file = |p: &str| ScannedFile {
            path: format!("pydantic_ai_slim/{p}"),
            language: Language::Python,
            kind: ImportKind::Build,
            imports: Default::default(),
        };
        let files: Vec<ScannedFile> = [
            "pydantic_ai/__init__.py",
            "pydantic_ai/models/__init__.py",
            "pydantic_ai/models/openai.py",
            "tests/helpers.py",
            "tests/test_x.py",
            "scripts/gen.py",
        ]
        .iter()
        .map(|p| file(p))
        .collect();
        let local = local_python_names(&files, "pydantic_ai_slim");
        assert!(!local.is_local("pydantic_ai/models/openai.py", "openai"));
        assert!(!local.is_local("pydantic_ai/agent.py", "models"));
        assert!(local.is_local("tests/test_x.py", "helpers"));
        assert!(!local.is_local("scripts/gen.py", "helpers"));
        assert!(local.is_local("tests/test_x.py", "pydantic_ai"));
        assert!(local.is_local("scripts/gen.py", "tests"));
    }

    #[test]
    fn a_meta_package_does_not_own_its_project_name() {
        // pydantic-ai's root: project `pydantic-ai` (so `pydantic_ai` is provided), tests only;
        // pydantic_ai_slim holds `pydantic_ai/`.
        let file = |p: &str| ScannedFile {
            path: p.to_string(),
            language: Language::Python,
            kind: ImportKind::Dev,
            imports: Default::default(),
        };
        let root = [file("tests/test_agent.py"), file("tests/conftest.py")];
        assert!(own_python_names(vec!["pydantic_ai".into()], &root, "").is_empty());
        let slim = [
            file("pydantic_ai_slim/pydantic_ai/__init__.py"),
            file("pydantic_ai_slim/tests/x.py"),
        ];
        assert_eq!(
            own_python_names(
                vec!["pydantic_ai".into(), "pydantic_ai_slim".into()],
                &slim,
                "pydantic_ai_slim/"
            ),
            ["pydantic_ai"]
        );
        let single = [file("svc/src/svc.py")];
        assert_eq!(
            own_python_names(vec!["svc".into()], &single, "svc/"),
            ["svc"]
        );
    }

    #[test]
    fn an_installed_distribution_says_what_it_is_imported_by() {
        let env = tempfile::tempdir().unwrap();
        let site = env.path().join("lib/python3.12/site-packages");
        let top = site.join("Foo_Core-1.0.dist-info");
        std::fs::create_dir_all(&top).unwrap();
        std::fs::write(top.join("top_level.txt"), "foo\n_foo_speedups\n").unwrap();
        let rec = site.join("weird_dist-2.0.dist-info");
        std::fs::create_dir_all(&rec).unwrap();
        std::fs::write(
            rec.join("RECORD"),
            "wd/__init__.py,sha256=x,1\nwd/sub.py,,\nsingle.py,,\nweird_dist-2.0.dist-info/METADATA,,\n../../bin/wd,,\n",
        )
        .unwrap();
        let found = installed(&[env.path().to_path_buf()]);
        assert_eq!(
            found.get("foo-core"),
            Some(&vec!["_foo_speedups".to_string(), "foo".to_string()])
        );
        assert_eq!(
            found.get("weird-dist"),
            Some(&vec!["single".to_string(), "wd".to_string()])
        );
    }
}
