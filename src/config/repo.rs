//! `[[repo]]` in `mesh.toml`: the repositories a mesh reads, each in place (`path`) or followed
//! by URL through a clone mesh keeps (`url`).

use super::diag::ConfigError;
use super::diag::Reporter;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// One `[[repo]]`: a git repository read at a ref, never its work tree — a local one read in
/// place (`path`), or one followed by URL through a bare clone mesh keeps (`url`).
#[derive(Debug, Clone)]
pub struct RepoConfig {
    /// The repository's name in the mesh.
    pub name: String,
    /// Absolute path of the repository read (bare or not): `path` as written, or for a
    /// repository followed by URL its clone, `.mesh/repos/<name>.git`.
    pub path: PathBuf,
    /// `url`: where the clone fetches from, when the repository is followed by URL.
    pub url: Option<String>,
    /// The ref read; `None` means `HEAD` (for a followed repository: the remote's `HEAD`).
    pub reference: Option<String>,
    /// Where `path` (or `url`) is written, for diagnostics.
    pub path_span: Range<usize>,
    /// Where `ref` is written (or the repo's name when absent), for diagnostics.
    pub ref_span: Range<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRepo {
    name: Spanned<String>,
    path: Option<Spanned<String>>,
    url: Option<Spanned<String>>,
    #[serde(rename = "ref")]
    reference: Option<Spanned<String>>,
}

/// `[[repo]]`, in file order: each named once, its path taken from `dir`.
pub(super) fn parse_repos(
    r: &Reporter,
    raw: &[RawRepo],
    dir: &Path,
) -> Result<Vec<RepoConfig>, ConfigError> {
    let mut repos = Vec::new();
    let mut repo_names = BTreeSet::new();
    for repo in raw {
        let repo_name = r.name("repository", &repo.name)?;
        if !repo_names.insert(repo_name.clone()) {
            return Err(r.error(
                "mesh::config::duplicate_repo",
                Some(repo.name.span()),
                format!("repository `{repo_name}` is named twice"),
                "second repository with this name",
                "give every [[repo]] its own name",
            ));
        }
        let (path, url, path_span) = parse_repo_place(r, repo, &repo_name, dir)?;
        if let Some(reference) = &repo.reference {
            check_ref(r, reference, &repo_name)?;
        }
        repos.push(RepoConfig {
            name: repo_name,
            path,
            url,
            reference: repo.reference.as_ref().map(|r| r.get_ref().clone()),
            path_span,
            ref_span: repo
                .reference
                .as_ref()
                .map_or_else(|| repo.name.span(), |r| r.span()),
        });
    }
    Ok(repos)
}

/// A `ref` names one ref: `HEAD`, a branch or tag (`main`), or a full name (`refs/tags/v1`) —
/// never a pattern (`*` would fetch every branch and then read none) or a name git refuses.
fn check_ref(r: &Reporter, reference: &Spanned<String>, repo: &str) -> Result<(), ConfigError> {
    use gix::bstr::ByteSlice;
    let text = reference.get_ref();
    let checked = if text.starts_with("refs/") {
        gix::validate::reference::name(text.as_bytes().as_bstr()).map(|_| ())
    } else {
        gix::validate::reference::name_partial(text.as_bytes().as_bstr()).map(|_| ())
    };
    let why = match checked {
        Ok(()) if !text.starts_with('-') => return Ok(()),
        Ok(()) => "it begins with `-`".to_string(),
        Err(gix::validate::reference::name::Error::Asterisk) => {
            "`*` makes it a pattern, which names many refs, and mesh reads one".to_string()
        }
        Err(e) => e.to_string().to_lowercase(),
    };
    Err(r.error(
        "mesh::config::invalid_ref",
        Some(reference.span()),
        format!("`ref` of repository `{repo}` is not a ref name: {why}"),
        "not a ref name",
        "write a branch (\"main\"), a full ref (\"refs/tags/v1\"), or leave `ref` out to read HEAD",
    ))
}

/// Where one `[[repo]]` is read: its `path`, or the clone of its `url` under
/// `.mesh/repos/` — exactly one of the two. A `url` that is a plain path is taken from
/// `dir` (like `path`), so the clone does not depend on where mesh is run from.
fn parse_repo_place(
    r: &Reporter,
    repo: &RawRepo,
    name: &str,
    dir: &Path,
) -> Result<(PathBuf, Option<String>, Range<usize>), ConfigError> {
    match (&repo.path, &repo.url) {
        (Some(path), None) => Ok((dir.join(path.get_ref()), None, path.span())),
        (None, Some(url)) => {
            let resolved = resolve_url(url.get_ref(), dir).map_err(|e| {
                r.error(
                    "mesh::config::invalid_url",
                    Some(url.span()),
                    format!("`url` of repository `{name}` cannot be followed: {e}"),
                    "not a URL mesh can fetch",
                    "write an ssh (\"git@host:acme/src.git\", \"ssh://…\") or file:// URL, or a path to a repository (https and git:// are not followed)",
                )
            })?;
            let clone = dir.join(".mesh").join("repos").join(format!("{name}.git"));
            Ok((clone, Some(resolved), url.span()))
        }
        (Some(_), Some(url)) => Err(r.error(
            "mesh::config::path_and_url",
            Some(url.span()),
            format!("repository `{name}` has both `path` and `url`"),
            "a second place for the same repository",
            "keep `path` to read a repository on this machine in place, or `url` to follow it through a clone mesh keeps and fetches — not both",
        )),
        (None, None) => Err(r.error(
            "mesh::config::missing_repo_place",
            Some(repo.name.span()),
            format!("repository `{name}` has neither `path` nor `url`"),
            "where is this repository?",
            "add `path = \"…\"` (a git repository on this machine, relative to mesh.toml) or `url = \"…\"` (followed: ssh or file://)",
        )),
    }
}

/// A `[[repo]] url` as mesh fetches it: an ssh, file or other URL gix understands (never https,
/// which is not built in, nor git://, which nothing authenticates) is
/// kept as written; a plain path (no scheme, not `host:path`) is made absolute from `dir`.
fn resolve_url(url: &str, dir: &Path) -> Result<String, String> {
    if url.trim().is_empty() {
        return Err("it is empty".into());
    }
    let parsed = gix::url::parse(gix::bstr::BStr::new(url)).map_err(|e| e.to_string())?;
    if matches!(
        parsed.scheme,
        gix::url::Scheme::Http | gix::url::Scheme::Https
    ) {
        // gix's HTTP transport would bring an HTTP and TLS stack (some 100 crates) into every
        // build of mesh; ssh and file:// need none.
        return Err(format!(
            "{} URLs are not followed by this mesh (no HTTP transport is built in); use the \
             repository's ssh URL (`git@host:owner/repo.git`), or keep a clone yourself and \
             name it with `path`",
            parsed.scheme.as_str()
        ));
    }
    if parsed.scheme == gix::url::Scheme::Git {
        // Neither authenticated nor encrypted: anyone on the way could hand mesh other commits,
        // which it would build and deliver.
        return Err(
            "git:// is neither authenticated nor encrypted: anyone between this machine and the \
             server could hand mesh other commits, which it would build and deliver; use the \
             repository's ssh URL (`git@host:owner/repo.git`)"
                .into(),
        );
    }
    if parsed.scheme == gix::url::Scheme::File && !url.starts_with("file://") {
        // `..` taken out by hand: the path need not exist yet, so it cannot be canonicalized.
        let mut path = PathBuf::new();
        for c in dir.join(url).components() {
            match c {
                std::path::Component::ParentDir => {
                    path.pop();
                }
                std::path::Component::CurDir => {}
                c => path.push(c),
            }
        }
        return Ok(path.display().to_string());
    }
    Ok(url.to_string())
}

/// A URL as it may be shown, in messages, tables and JSON: without its password
/// (`ssh://user:secret@host/r.git` → `ssh://user@host/r.git`). What is not a URL is shown as
/// written.
pub(crate) fn shown_url(url: &str) -> String {
    match gix::url::parse(gix::bstr::BStr::new(url)) {
        Ok(mut parsed) if parsed.password().is_some() => {
            parsed.set_password(None);
            parsed.to_bstring().to_string()
        }
        _ => url.to_string(),
    }
}

/// `text` (an error that may quote `url`) with `url`'s password taken out wherever it appears.
pub(crate) fn without_password(text: &str, url: &str) -> String {
    let Ok(parsed) = gix::url::parse(gix::bstr::BStr::new(url)) else {
        return text.to_string();
    };
    let Some(password) = parsed.password().filter(|p| !p.is_empty()) else {
        return text.to_string();
    };
    text.replace(url, &shown_url(url))
        .replace(&format!(":{password}@"), "@")
        .replace(password, "…")
}

#[cfg(test)]
mod url_tests {
    use super::{shown_url, without_password};

    #[test]
    fn a_password_is_never_shown() {
        let url = "ssh://deploy:s3cret-pw@git.example.org/acme/tools.git";
        assert_eq!(
            shown_url(url),
            "ssh://deploy@git.example.org/acme/tools.git"
        );
        assert_eq!(shown_url("git@host:a/b.git"), "git@host:a/b.git");
        assert_eq!(shown_url("/srv/git/a.git"), "/srv/git/a.git");
        let said = without_password(
            &format!("cannot reach {url}: user deploy:s3cret-pw@git.example.org; s3cret-pw"),
            url,
        );
        assert!(!said.contains("s3cret-pw"), "{said}");
        assert!(
            said.contains("ssh://deploy@git.example.org/acme/tools.git"),
            "{said}"
        );
    }
}
