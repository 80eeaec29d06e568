//! Python's own drift rules: which names a module's own files answer to, so that its imports
//! of itself, and of files beside a script or a test, are no dependencies.

use mesh_imports::{Language, ScannedFile};

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
}
