//! A documentation build's toolchain: Sphinx, its themes and extensions, MkDocs and its
//! plugins, declared in a `docs` extra or group. No code imports them; the docs' config names
//! them (`html_theme = "furo"`, `extensions = ["myst_parser"]`, a `plugins:` list), and the
//! mentions reader finds them there. Where the module holds no such config, the docs are
//! built from elsewhere (a docs repository, a site generator's checkout) with what the extra
//! installs: whether they are used only that build tells.

use super::declared::Scope;
use super::world::Manifests;
use super::{DriftKind, Finding};
use crate::source::{self, ModuleSource, RepoSnapshot, SourceError};

/// The sections (extras, groups; PEP 503) a project keeps its documentation toolchain in.
const DOCS_SECTIONS: &[&str] = &["docs", "doc", "documentation"];

/// The files a Python documentation build reads its config from: Sphinx's `conf.py` in a
/// docs directory (`docs/source/conf.py`; an app's `conf.py` of settings is none), MkDocs'
/// `mkdocs.yml`.
fn is_docs_config(path: &str) -> bool {
    let (dirs, file) = path.rsplit_once('/').unwrap_or(("", path));
    let in_docs = dirs
        .split('/')
        .any(|d| d.to_ascii_lowercase().contains("doc") || d.eq_ignore_ascii_case("sphinx"));
    matches!(file, "mkdocs.yml" | "mkdocs.yaml") || (file == "conf.py" && in_docs)
}

/// Marks each sure unused Python finding of `found` whose distribution only the module's
/// docs sections declare unsure, when no file of the module (`m`) is a docs config.
pub(super) fn built_elsewhere(
    snap: &RepoSnapshot,
    m: &ModuleSource,
    man: &Manifests,
    found: &mut [Finding],
) -> Result<(), SourceError> {
    let Some(table) = &man.pyproject_table else {
        return Ok(());
    };
    let pyproject = source::join(&m.dir, "pyproject.toml");
    let sections = super::declared::pyproject_sections_pep503(table);
    let docs_only = |dist: &str| {
        let dist = super::names::pep503(dist);
        let mut holders = (sections.iter())
            .filter(|(_, _, names)| names.contains(&dist))
            .peekable();
        holders.peek().is_some()
            && holders
                .all(|(scope, s, _)| *scope != Scope::Normal && DOCS_SECTIONS.contains(&s.as_str()))
    };
    let open = |f: &Finding| {
        f.kind == DriftKind::Unused
            && f.doubt.is_none()
            && f.manifest == pyproject
            && docs_only(&f.dependency)
    };
    if !found.iter().any(open) {
        return Ok(());
    }
    let files = source::module_files(snap, &m.dir, m.tree, &m.nested)?;
    if files.iter().any(|f| is_docs_config(&f.path)) {
        return Ok(());
    }
    for f in found.iter_mut().filter(|f| open(f)) {
        f.doubt = Some(
            "declared only for the docs (a `docs` extra or group), and no docs config (a `conf.py` in a docs directory, `mkdocs.yml`) is in the module: the docs are built from elsewhere, whose config may name it"
                .to_string(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_configs_are_known_by_their_file_names() {
        assert!(is_docs_config("docs/source/conf.py"));
        assert!(is_docs_config("documentation/conf.py"));
        assert!(!is_docs_config("conf.py"));
        assert!(!is_docs_config("app/conf.py"));
        assert!(is_docs_config("mkdocs.yml"));
        assert!(!is_docs_config("src/app/config.py"));
        assert!(!is_docs_config("docs/myconf.py"));
    }
}
