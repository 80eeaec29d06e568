//! What installs a Python module's test environment besides its own manifest: the
//! requirements files a test runner installs (tox's `deps`, nox's `session.install`), with
//! the files they include and the local distributions they install editable, and the
//! default dependency groups of the uv workspace root above it.
//!
//! opentelemetry-python declares no test dependency in any pyproject: tox installs each
//! package's `test-requirements.txt`, which pins pytest and installs the sibling packages
//! with `-e opentelemetry-sdk`. A uv workspace's `uv sync` installs the root's `dev` group
//! for every member (autogen's tests import the root's pytest-asyncio). Both come back as
//! dev declarations that are never unused: a requirements file pins a whole environment, and
//! a root's group serves every member, so what one module does not import says nothing.

use super::declared::{self, Declared, Scope};
use super::names;
use crate::source::{self, RepoSnapshot, SourceError, blob_text};
use mesh_imports::Language;
use std::collections::HashMap;

/// How deep `-r` files including other `-r` files are followed.
pub(super) const MAX_INCLUDE_DEPTH: usize = 5;

/// A declaration a module's test environment makes, and what installs it, as `--explain`
/// says it.
#[derive(Debug, Clone)]
pub struct EnvDecl {
    /// The declaration (dev, never unused), at the file and line that makes it.
    pub d: Declared,
    /// What installs it: `tox.ini:144 installs it for tests`.
    pub via: String,
}

/// One meaningful line of a requirements file (or of tox's `deps`).
#[derive(Clone, Debug, PartialEq)]
enum Req {
    /// A requirement by name (`pytest==9.0.3`, `name @ url`, a VCS URL's `#egg=name`).
    Name(String),
    /// `-r FILE`: another requirements file, relative to this one.
    Include(String),
    /// `-e PATH` or a local directory: the distribution whose project is there.
    Local(String),
}

/// The requirements of a requirements file's text (or tox `deps` lines), each with its
/// 1-based line: comments, `-c` constraints (they pin, never install), options and
/// substitutions tox could not resolve left out; continuation lines joined.
fn requirement_lines(text: &str) -> Vec<(u32, Req)> {
    let mut out = Vec::new();
    let mut pending: Option<(u32, String)> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = match raw.find(" #").or(raw.starts_with('#').then_some(0)) {
            Some(cut) => &raw[..cut],
            None => raw,
        };
        let (start, mut joined) = pending.take().unwrap_or((n as u32 + 1, String::new()));
        joined.push_str(line.trim());
        if let Some(rest) = joined.strip_suffix('\\') {
            pending = Some((start, format!("{rest} ")));
            continue;
        }
        if let Some(req) = requirement(joined.trim()) {
            out.push((start, req));
        }
    }
    out
}

/// The distributions a requirements file's text names, each with its 1-based line (see
/// [`requirement_lines`]); includes, editables and local paths left out.
pub(super) fn named_requirements(text: &str) -> Vec<(u32, String)> {
    requirement_lines(text)
        .into_iter()
        .filter_map(|(line, r)| match r {
            Req::Name(name) => Some((line, name)),
            Req::Include(_) | Req::Local(_) => None,
        })
        .collect()
}

/// The files a requirements file's text includes (`-r FILE`), as written: relative to it.
pub(super) fn included_files(text: &str) -> Vec<String> {
    requirement_lines(text)
        .into_iter()
        .filter_map(|(_, r)| match r {
            Req::Include(file) => Some(file),
            Req::Name(_) | Req::Local(_) => None,
        })
        .collect()
}

/// The distributions a requirements file's text names (see [`requirement_lines`]); includes,
/// editables and local paths left out.
pub(super) fn requirement_names(text: &str) -> Vec<String> {
    requirement_lines(text)
        .into_iter()
        .filter_map(|(_, r)| match r {
            Req::Name(name) => Some(name),
            Req::Include(_) | Req::Local(_) => None,
        })
        .collect()
}

/// One requirement line, trimmed; `None` for what installs nothing mesh can name.
fn requirement(line: &str) -> Option<Req> {
    if line.is_empty() || line.contains('{') {
        return None;
    }
    let option = |short: &str, long: &str| -> Option<String> {
        let rest = line
            .strip_prefix(long)
            .or_else(|| line.strip_prefix(short))?;
        let rest = rest.strip_prefix('=').unwrap_or(rest).trim();
        (!rest.is_empty()).then(|| rest.split_whitespace().next().unwrap_or(rest).to_string())
    };
    if let Some(file) = option("-r", "--requirement") {
        return Some(Req::Include(file));
    }
    if let Some(target) = option("-e", "--editable") {
        return local_or_egg(&target);
    }
    if line.starts_with('-') {
        return None;
    }
    let first = line.split_whitespace().next().unwrap_or(line);
    if first.starts_with('.') || first.starts_with('/') || first.contains("://") {
        return local_or_egg(first);
    }
    declared::pep508_name(line).map(|n| Req::Name(n.to_string()))
}

/// An editable or direct target: a VCS or file URL's `#egg=name`, or a local path (its
/// extras and a `file:` prefix left out); `None` for a URL without a name.
fn local_or_egg(target: &str) -> Option<Req> {
    if let Some((_, egg)) = target.split_once("#egg=") {
        return declared::pep508_name(egg).map(|n| Req::Name(n.to_string()));
    }
    let path = target.strip_prefix("file:").unwrap_or(target);
    if path.contains("://") {
        return None;
    }
    let path = path.split('[').next().unwrap_or(path);
    Some(Req::Local(path.to_string()))
}

/// The lines of tox's `deps` in `[testenv]` and every `[testenv:name]` of a `tox.ini`, each
/// with its line: a factor condition (`api: -r …`, `py3{9,10}-lint: x`) left out, `{toxinidir}`
/// read as the directory of the tox.ini.
fn tox_deps(text: &str) -> Vec<(u32, Req)> {
    let mut out = Vec::new();
    let values = mesh_imports::setup_cfg::ini_values(text, "deps", |s| {
        s == "testenv" || s.starts_with("testenv:")
    });
    tox_values(text, values, &mut Vec::new(), &mut out);
    out
}

/// Pushes the requirements of tox `deps` lines: a `{[section]key}` reference
/// (`{[testenv]test_deps}`, scrapy's `{[test-requirements]deps}`) stands for that key's lines,
/// each reference followed once (16 at most); a reference to a testenv's `deps` is left, as
/// every testenv's `deps` is read already.
fn tox_values(
    text: &str,
    values: Vec<(u32, String)>,
    followed: &mut Vec<(String, String)>,
    out: &mut Vec<(u32, Req)>,
) {
    for (line, value) in values {
        let value = without_factor(&value)
            .replace("{toxinidir}", ".")
            .replace("{tox_root}", ".");
        let reference = value
            .strip_prefix("{[")
            .and_then(|r| r.strip_suffix('}'))
            .and_then(|r| r.split_once(']'));
        if let Some((section, key)) = reference {
            let pair = (section.to_string(), key.to_string());
            // Each reference once (a reference to itself, or many to one, is read once).
            let testenv = section == "testenv" || section.starts_with("testenv:");
            if !(testenv && key == "deps") && followed.len() < 16 && !followed.contains(&pair) {
                followed.push(pair);
                let more = mesh_imports::setup_cfg::ini_values(text, key, |s| s == section);
                tox_values(text, more, followed, out);
            }
            continue;
        }
        out.extend(
            requirement_lines(&value)
                .into_iter()
                .map(|(_, r)| (line, r)),
        );
    }
}

/// A tox deps line without its factor condition: `api: -r x` is `-r x`.
fn without_factor(value: &str) -> &str {
    match value.split_once(": ") {
        Some((cond, rest))
            if !cond.is_empty()
                && !cond.starts_with('-')
                && cond
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "{}_,.!-".contains(c)) =>
        {
            rest.trim()
        }
        _ => value,
    }
}

/// The requirements a `noxfile.py` installs: the string arguments of each `.install(…)`
/// call (`session.install("-r", "requirements-test.txt")`, `session.install("pytest")`),
/// each at the call's line.
fn nox_installs(text: &str) -> Vec<(u32, Req)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices(".install(") {
        let line = text[..at].matches('\n').count() as u32 + 1;
        let args = &text[at + ".install(".len()..];
        let end = args.find(')').unwrap_or(args.len());
        let words = super::tools::quoted_strings(&args[..end]);
        let mut words = words.iter().map(String::as_str);
        while let Some(w) = words.next() {
            let req = match w {
                "-r" | "--requirement" => words.next().map(|f| Req::Include(f.to_string())),
                "-e" | "--editable" => words.next().and_then(local_or_egg),
                "-c" | "--constraint" => {
                    words.next();
                    None
                }
                w => requirement(w),
            };
            out.extend(req.map(|r| (line, r)));
        }
    }
    out
}

/// The directory `rel` names from `dir` (both repo-relative), `.` and `..` resolved; `None`
/// above the repository's root or for an absolute path.
fn resolve(dir: &str, rel: &str) -> Option<String> {
    if rel.starts_with('/') {
        return None;
    }
    mesh_imports::repo_path(&[dir, rel])
}

/// Reads the files of one repository at its configured ref, each once.
struct Reader<'s> {
    snap: &'s RepoSnapshot,
    root: gix::Tree<'s>,
    texts: HashMap<String, Option<String>>,
}

impl Reader<'_> {
    /// The text of the repo-relative file `path`, if it is one.
    fn text(&mut self, path: &str) -> Result<Option<String>, SourceError> {
        if let Some(t) = self.texts.get(path) {
            return Ok(t.clone());
        }
        let t = blob_text(self.snap, &self.root, path)?;
        self.texts.insert(path.to_string(), t.clone());
        Ok(t)
    }

    /// The project name of the distribution at the repo-relative directory `dir`: its
    /// pyproject's `[project] name`, else its setup.cfg's `[metadata] name`.
    fn project_name(&mut self, dir: &str) -> Result<Option<String>, SourceError> {
        if let Some(name) = self
            .text(&source::join(dir, "pyproject.toml"))?
            .and_then(|t| toml::from_str::<toml::Table>(&t).ok())
            .and_then(|t| Some(t.get("project")?.get("name")?.as_str()?.to_string()))
        {
            return Ok(Some(name));
        }
        Ok(self.text(&source::join(dir, "setup.cfg"))?.and_then(|t| {
            let cfg = mesh_imports::setup_cfg::read(&t);
            Some(cfg.table.get("project")?.get("name")?.as_str()?.to_string())
        }))
    }
}

/// What is read of one repository: its Python modules' directories, and what each is
/// found to declare.
struct Found<'m> {
    /// (module index, directory) of the repository's Python modules.
    modules: Vec<(usize, &'m str)>,
    /// Per module index, its environment's declarations.
    out: HashMap<usize, Vec<EnvDecl>>,
    /// The (module, requirements file) pairs already read: a file listing `-r` of itself,
    /// or another many times, is read once.
    included: std::collections::HashSet<(usize, String)>,
}

impl Found<'_> {
    /// The Python module whose directory holds the repo-relative `path`, the deepest one.
    fn owner(&self, path: &str) -> Option<usize> {
        self.modules
            .iter()
            .filter(|(_, d)| d.is_empty() || names::segment_prefix(d, path, "/"))
            .max_by_key(|(_, d)| d.len())
            .map(|(i, _)| *i)
    }
}

/// The test environment's declarations of every Python module of the snapshot (`python`
/// says which modules have a pyproject.toml or setup.cfg), by module index.
pub(super) fn declarations(
    snapshot: &crate::source::Snapshot,
    python: &[bool],
) -> Result<Vec<Vec<EnvDecl>>, SourceError> {
    let mut all: Vec<Vec<EnvDecl>> = vec![Vec::new(); snapshot.modules.len()];
    for (ri, snap) in snapshot.repos.iter().enumerate() {
        let modules: Vec<(usize, &str)> = snapshot
            .modules
            .iter()
            .enumerate()
            .filter(|(i, m)| m.repo == ri && python[*i])
            .map(|(i, m)| (i, m.dir.as_str()))
            .collect();
        if modules.is_empty() {
            continue;
        }
        let mut reader = Reader {
            snap,
            root: snap.root_tree()?,
            texts: HashMap::new(),
        };
        let mut found = Found {
            modules,
            out: HashMap::new(),
            included: Default::default(),
        };
        runners(&mut reader, &mut found)?;
        let mut memo = source::Nearest::default();
        for (i, dir) in found.modules.clone() {
            let groups = uv_workspace_groups(&mut reader, ri, dir, &mut memo)?;
            found.out.entry(i).or_default().extend(groups);
        }
        for (i, decls) in found.out {
            all[i] = decls;
        }
    }
    Ok(all)
}

/// Gives each Python module (`python` says which) the test environment of every Python
/// module enclosing it, as the JS workspace root's dev dependencies serve its members' tests:
/// a repository's developers run a nested package's tests in the environment made at its
/// root (flytekit's CI runs `make setup-global-uv`, installing the root's
/// `dev-requirements.in`, before each plugin's tests). Dev declarations: they answer test
/// imports, never a shipped one, and are never unused.
pub(super) fn enclosing(
    snapshot: &crate::source::Snapshot,
    python: &[bool],
    manifests: &mut [super::world::Manifests],
) {
    let modules = &snapshot.modules;
    let inherited: Vec<Vec<EnvDecl>> = (modules.iter().zip(python))
        .map(|(m, &python_i)| {
            (modules.iter().zip(python).zip(manifests.iter()))
                .filter(|((e, python_e), _)| {
                    python_i && **python_e && e.repo == m.repo && source::is_below(&m.dir, &e.dir)
                })
                .flat_map(|(_, man)| man.python_env.iter())
                .map(|e| EnvDecl {
                    d: e.d.clone(),
                    via: format!("{}, around the packages below it too", e.via),
                })
                .collect()
        })
        .collect();
    for (man, more) in manifests.iter_mut().zip(inherited) {
        man.python_env.extend(more);
    }
}

/// Reads the test runners' files of a repository — `tox.ini` and `noxfile.py` at its root
/// and in each Python module's directory — and what they install, into `found`.
fn runners(reader: &mut Reader, found: &mut Found) -> Result<(), SourceError> {
    let mut dirs: Vec<String> = vec![String::new()];
    for (_, d) in &found.modules {
        if !dirs.iter().any(|x| x == d) {
            dirs.push(d.to_string());
        }
    }
    ci_installs(reader, found)?;
    docs_host_installs(reader, found)?;
    for dir in &dirs {
        make_installs(reader, found, dir)?;
    }
    for (_, dir) in found.modules.clone() {
        dev_requirement_files(reader, found, dir)?;
    }
    for dir in dirs {
        for (file, tox) in [("tox.ini", true), ("noxfile.py", false)] {
            let path = source::join(&dir, file);
            let Some(text) = reader.text(&path)? else {
                continue;
            };
            let reqs = match tox {
                true => tox_deps(&text),
                false => nox_installs(&text),
            };
            for (line, req) in reqs {
                let via = format!("{path}:{line} installs it for tests");
                let here = (dir.as_str(), file, line);
                take(reader, found, None, here, req, &via, 0)?;
            }
        }
    }
    tox_above(reader, found)
}

/// Reads each `tox.ini` in a directory above Python modules that no module but the
/// repository's root one holds (openinference's `python/tox.ini`, whose environments
/// `changedir` into each package):
/// what its environments install serves the tests of every module below it.
fn tox_above(reader: &mut Reader, found: &mut Found) -> Result<(), SourceError> {
    let mut above: Vec<String> = Vec::new();
    for (_, d) in &found.modules {
        let mut dir = *d;
        while let Some((up, _)) = dir.rsplit_once('/') {
            dir = up;
            if !above.iter().any(|a| a == up) {
                above.push(up.to_string());
            }
        }
    }
    above.sort();
    for dir in above {
        let path = source::join(&dir, "tox.ini");
        // Inside a module (but the repository's root one): that module's own tool.
        let held = found
            .owner(&path)
            .is_some_and(|o| found.modules.iter().any(|(i, d)| *i == o && !d.is_empty()));
        if held {
            continue;
        }
        let Some(text) = reader.text(&path)? else {
            continue;
        };
        let below: Vec<usize> = found
            .modules
            .iter()
            .filter(|(_, d)| source::is_below(d, &dir))
            .map(|(i, _)| *i)
            .collect();
        for (line, req) in tox_deps(&text) {
            let via = format!("{path}:{line} installs it for the tests of the packages below it");
            for &m in &below {
                let here = (dir.as_str(), "tox.ini", line);
                take(reader, found, Some(m), here, req.clone(), &via, 0)?;
            }
        }
    }
    Ok(())
}

/// The requirements files CI installs with pip (`pip install -r test/requirements.txt` in a
/// workflow or a composite action under `.github/actions/`), run from the repository's
/// root: gradio's tests run with what `.github/actions/install-all-deps` installs.
fn ci_installs(reader: &mut Reader, found: &mut Found) -> Result<(), SourceError> {
    let mut files = source::yaml_files(reader.snap, ".github/workflows", 3)?;
    files.extend(source::yaml_files(reader.snap, ".github/actions", 3)?);
    files.sort();
    for file in files {
        let Some(text) = reader.text(&file)? else {
            continue;
        };
        pip_requirement_files(reader, found, ("", &file), &text, "in CI")?;
    }
    Ok(())
}

/// Where Read the Docs looks for its config: the repository's root, or where a project
/// points it (ArchiveBox keeps it in `.github/`).
const READTHEDOCS_CONFIGS: &[&str] = &[
    ".readthedocs.yaml",
    ".readthedocs.yml",
    ".github/.readthedocs.yaml",
    ".github/.readthedocs.yml",
];

/// The requirements files Read the Docs installs before it builds the docs (`python:
/// install: - requirements: requirements.d/docs.txt`, relative to the repository's root):
/// the docs' environment, as CI's is the tests' (borg's `guzzle_sphinx_theme`).
fn docs_host_installs(reader: &mut Reader, found: &mut Found) -> Result<(), SourceError> {
    for file in READTHEDOCS_CONFIGS {
        let Some(text) = reader.text(file)? else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            let item = line.trim_start().trim_start_matches("- ").trim_start();
            let Some(path) = item.strip_prefix("requirements:") else {
                continue;
            };
            let path = path.split(" #").next().unwrap_or(path).trim();
            let path = path.trim_matches(['"', '\'']).trim_start_matches("./");
            if path.is_empty() {
                continue;
            }
            let at = n as u32 + 1;
            let via = format!("{file}:{at} installs it for the docs build (Read the Docs)");
            let req = Req::Include(path.to_string());
            take(reader, found, None, ("", file, at), req, &via, 0)?;
        }
    }
    Ok(())
}

/// The names a requirements file for a package's development and tests goes by, beside its
/// manifest: pip-tools' `dev-requirements.in` and the `requirements-dev.txt` family.
const DEV_REQUIREMENTS: &[&str] = &[
    "dev-requirements.in",
    "dev-requirements.txt",
    "requirements-dev.in",
    "requirements-dev.txt",
    "requirements_dev.txt",
    "test-requirements.in",
    "test-requirements.txt",
    "requirements-test.in",
    "requirements-test.txt",
    "requirements_test.txt",
    "requirements-tests.txt",
];

/// The development requirements file of the module in `dir`, by its name (see
/// [`DEV_REQUIREMENTS`]; the `.in` before the `.txt` pip-tools compiles from it): what its
/// developers install to run its tests (each of flytekit's plugins keeps one beside its
/// setup.py).
fn dev_requirement_files(
    reader: &mut Reader,
    found: &mut Found,
    dir: &str,
) -> Result<(), SourceError> {
    for name in DEV_REQUIREMENTS {
        let path = source::join(dir, name);
        if name.ends_with(".txt")
            && DEV_REQUIREMENTS.contains(&name.replace(".txt", ".in").as_str())
            && reader
                .text(&source::join(dir, &name.replace(".txt", ".in")))?
                .is_some()
        {
            continue;
        }
        if reader.text(&path)?.is_some() {
            let via = format!("{path} is its development requirements file");
            let req = Req::Include(name.to_string());
            take(reader, found, None, (dir, name, 1), req, &via, 0)?;
        }
    }
    Ok(())
}

/// The requirements files a Makefile in `dir` (the repository's root, or a Python module's
/// directory) installs with pip (flytekit's `make setup-global-uv`: `uv pip install -r
/// dev-requirements.in`, which its CI runs before the tests), from that directory, where
/// make runs its recipes.
fn make_installs(reader: &mut Reader, found: &mut Found, dir: &str) -> Result<(), SourceError> {
    for name in ["Makefile", "makefile", "GNUmakefile"] {
        let file = source::join(dir, name);
        if let Some(text) = reader.text(&file)? {
            pip_requirement_files(reader, found, (dir, name), &text, "with make")?;
        }
    }
    Ok(())
}

/// Takes each requirements file that a line of `text` (the file `file` in `dir`) installs
/// with pip (`pip install -r x.txt`, `uv pip install --system -r x.in`), relative to `dir`,
/// saying `how` (`in CI`).
fn pip_requirement_files(
    reader: &mut Reader,
    found: &mut Found,
    (dir, file): (&str, &str),
    text: &str,
    how: &str,
) -> Result<(), SourceError> {
    let path = source::join(dir, file);
    // Whose a distribution named inline is: the module holding the file, else the
    // repository's only Python module.
    let owner = (found.owner(&path)).or(match found.modules[..] {
        [(only, _)] => Some(only),
        _ => None,
    });
    for (n, line) in text.lines().enumerate() {
        // A comment line (YAML's, make's) runs nothing: glances' commented-out CI step.
        if line.trim_start().starts_with('#')
            || (!line.contains("pip install") && !line.contains("pip3 install"))
        {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = n as u32 + 1;
        let via = format!("{path}:{at} installs it {how}");
        for pair in words.windows(2) {
            if matches!(pair[0], "-r" | "--requirement") {
                let rel = pair[1].trim_matches(['"', '\'']);
                let req = Req::Include(rel.to_string());
                take(reader, found, None, (dir, file, at), req, &via, 0)?;
            }
        }
        // A workflow step's `name:` says what it does; its `run:` does it.
        let said = line
            .trim_start()
            .trim_start_matches("- ")
            .starts_with("name:");
        for name in inline_requirements(&words).into_iter().filter(|_| !said) {
            take(
                reader,
                found,
                owner,
                (dir, file, at),
                Req::Name(name),
                &via,
                0,
            )?;
        }
    }
    Ok(())
}

/// The distributions a command line's `pip install` names itself (`pip install
/// 'playwright>=1.45,<2' pytest`: `playwright`, `pytest`), up to the end of that command:
/// not a file or directory, a wheel, a URL, a shell variable, nor an option's value.
fn inline_requirements(words: &[&str]) -> Vec<String> {
    /// Options whose value is the next word.
    const TAKES_VALUE: &[&str] = &[
        "-r",
        "--requirement",
        "-c",
        "--constraint",
        "-e",
        "--editable",
        "-i",
        "--index-url",
        "--extra-index-url",
        "-f",
        "--find-links",
        "-t",
        "--target",
        "--prefix",
        "--root",
        "--python",
        "-p",
        "--platform",
        "--python-version",
        "--implementation",
        "--abi",
        "--only-binary",
        "--no-binary",
        "--trusted-host",
        "--cache-dir",
        "--src",
        "--upgrade-strategy",
        "--index",
        "--default-index",
        "--group",
        "--progress-bar",
        "--timeout",
        "--retries",
        "--proxy",
        "--log",
        "--report",
        "-C",
        "--config-settings",
        "--global-option",
        "--exclude-newer",
        "--resolution",
        "--prerelease",
        "--extra",
        "--index-strategy",
        "--keyring-provider",
        "--link-mode",
        "--python-platform",
        "--torch-backend",
        "--cert",
        "--client-cert",
        "--exists-action",
    ];
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < words.len() {
        let pip = matches!(words[i], "pip" | "pip3") || words[i].ends_with("/pip");
        if !(pip && words[i + 1] == "install") {
            i += 1;
            continue;
        }
        i += 2;
        while let Some(&w) = words.get(i) {
            if matches!(w, "&&" | "||" | ";" | "|" | ")" | "\\") || w.starts_with('#') {
                break;
            }
            i += 1;
            if w.starts_with('-') {
                i += usize::from(TAKES_VALUE.contains(&w));
                continue;
            }
            // A quoted spec is one word to the shell (`"tomli>=2; python_version<'3.11'"`):
            // its marker's `;` ends no command.
            let quote = w.chars().next().filter(|c| matches!(c, '"' | '\''));
            let mut spec = w.to_string();
            if let Some(q) = quote
                && (spec.len() == 1 || !spec.ends_with(q))
            {
                while let Some(&more) = words.get(i) {
                    i += 1;
                    spec.push(' ');
                    spec.push_str(more);
                    if more.ends_with(q) {
                        break;
                    }
                }
            }
            let end = quote.is_none() && spec.ends_with(';');
            let req = spec.trim_end_matches(';').trim_matches(['"', '\'']);
            let path_like = req.contains(['/', '$', '{', '*', '\\', ':'])
                || req.starts_with('.')
                || req.ends_with(".whl")
                || req.ends_with(".tar.gz")
                || req.ends_with(".zip");
            if !path_like
                && let Some(name) = super::declared::pep508_name(req)
                && name.starts_with(|c: char| c.is_ascii_alphabetic())
            {
                out.push(name.to_string());
            }
            if end {
                break;
            }
        }
    }
    out
}

/// Takes one requirement of the file `file` in `dir` (at `line`) as a declaration of
/// `owner` (none yet: the module holding the file named, else the runner's), following an
/// include `depth` files deep.
fn take(
    reader: &mut Reader,
    found: &mut Found,
    owner: Option<usize>,
    (dir, file, line): (&str, &str, u32),
    req: Req,
    via: &str,
    depth: usize,
) -> Result<(), SourceError> {
    let here = source::join(dir, file);
    let name = match req {
        Req::Name(n) => Some(n),
        Req::Local(path) => {
            // pip resolves a path against the working directory: the runner's (the
            // repository's root for a root tox.ini); the file's own directory first.
            let mut name = None;
            for base in [dir, ""] {
                if let Some(at) = resolve(base, &path)
                    && let Some(n) = reader.project_name(&at)?
                {
                    name = Some(n);
                    break;
                }
            }
            name
        }
        Req::Include(rel) => {
            let Some(path) = resolve(dir, &rel) else {
                return Ok(());
            };
            if depth >= MAX_INCLUDE_DEPTH {
                return Ok(());
            }
            let Some(text) = reader.text(&path)? else {
                return Ok(());
            };
            let owner = owner
                .or_else(|| found.owner(&path))
                .or_else(|| found.owner(&here));
            let Some(owner) = owner else {
                return Ok(());
            };
            if !found.included.insert((owner, path.clone())) {
                return Ok(());
            }
            let (inc_dir, inc_file) = path.rsplit_once('/').unwrap_or(("", path.as_str()));
            let (inc_dir, inc_file) = (inc_dir.to_string(), inc_file.to_string());
            let via = match depth {
                0 => via.to_string(),
                _ => format!("{here}:{line} includes it ({via})"),
            };
            for (l, r) in requirement_lines(&text) {
                take(
                    reader,
                    found,
                    Some(owner),
                    (&inc_dir, &inc_file, l),
                    r,
                    &via,
                    depth + 1,
                )?;
            }
            return Ok(());
        }
    };
    let (Some(name), Some(owner)) = (name, owner.or_else(|| found.owner(&here))) else {
        return Ok(());
    };
    found.out.entry(owner).or_default().push(EnvDecl {
        d: Declared {
            language: Language::Python,
            name,
            scope: Scope::Dev,
            manifest: file.to_string().into(),
            elsewhere: Some(dir.to_string()),
            line,
            indirect: true,
        },
        via: via.to_string(),
    });
    Ok(())
}

/// A uv workspace root: its directory, its `members` and `exclude` globs (relative to it),
/// and what its default groups declare.
#[derive(Clone)]
struct UvRoot {
    dir: String,
    members: Vec<String>,
    exclude: Vec<String>,
    decls: Vec<EnvDecl>,
}

/// The default dependency groups of the uv workspace root above the module at `dir` (the
/// nearest pyproject.toml above with `[tool.uv.workspace]` whose `members` take it in):
/// `uv sync` installs them for every member. Its `default-groups` (else `dev`) and
/// `[tool.uv] dev-dependencies`.
fn uv_workspace_groups(
    reader: &mut Reader,
    repo: usize,
    dir: &str,
    memo: &mut source::Nearest<UvRoot>,
) -> Result<Vec<EnvDecl>, SourceError> {
    let Some(above) = source::above(dir) else {
        return Ok(Vec::new());
    };
    let found = source::nearest(repo, above, memo, |at| {
        let path = source::join(at, "pyproject.toml");
        let Some(t) = reader
            .text(&path)?
            .and_then(|text| Some((toml::from_str::<toml::Table>(&text).ok()?, text)))
        else {
            return Ok(None);
        };
        let (t, text) = t;
        let Some(ws) = t
            .get("tool")
            .and_then(|t| t.get("uv"))
            .and_then(|u| u.get("workspace"))
        else {
            return Ok(None);
        };
        let globs = |key: &str| -> Vec<String> {
            ws.get(key)
                .and_then(|m| m.as_array())
                .into_iter()
                .flatten()
                .filter_map(|g| g.as_str())
                .map(|g| g.trim_start_matches("./").trim_end_matches('/').to_string())
                .collect()
        };
        let via = format!("the uv workspace root {path} installs it for every member (`uv sync`)");
        let decls = uv_groups(&t, &text)
            .into_iter()
            .map(|d| EnvDecl {
                via: via.clone(),
                d: Declared {
                    elsewhere: Some(at.to_string()),
                    ..d
                },
            })
            .collect();
        Ok(Some(UvRoot {
            dir: at.to_string(),
            members: globs("members"),
            exclude: globs("exclude"),
            decls,
        }))
    })?;
    let Some(root) = found else {
        return Ok(Vec::new());
    };
    let rel = crate::source::relative(dir, &root.dir);
    let matches = |globs: &[String]| mesh_imports::globs(globs, false).is_match(rel);
    match matches(&root.members) && !matches(&root.exclude) {
        true => Ok(root.decls),
        false => Ok(Vec::new()),
    }
}

/// The requirements of a workspace root's default dependency groups (`[tool.uv]
/// default-groups`, else `dev`; `"all"` for all), `{include-group = …}` followed, and of
/// `[tool.uv] dev-dependencies`, at their lines.
fn uv_groups(t: &toml::Table, text: &str) -> Vec<Declared> {
    let uv = t.get("tool").and_then(|t| t.get("uv"));
    let groups = t.get("dependency-groups").and_then(|g| g.as_table());
    let defaults: Vec<String> = match uv.and_then(|u| u.get("default-groups")) {
        Some(toml::Value::String(s)) if s == "all" => groups
            .map(|g| g.keys().cloned().collect())
            .unwrap_or_default(),
        Some(toml::Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => vec!["dev".to_string()],
    };
    let mut names = Vec::new();
    let mut todo = defaults;
    let mut seen = Vec::new();
    while let Some(g) = todo.pop() {
        if seen.contains(&g) {
            continue;
        }
        seen.push(g.clone());
        for item in groups
            .and_then(|gs| gs.get(&g))
            .and_then(|l| l.as_array())
            .into_iter()
            .flatten()
        {
            match item {
                toml::Value::String(s) => {
                    names.extend(declared::pep508_name(s).map(str::to_string))
                }
                toml::Value::Table(inc) => todo.extend(
                    inc.get("include-group")
                        .and_then(|i| i.as_str())
                        .map(str::to_string),
                ),
                _ => {}
            }
        }
    }
    names.extend(
        uv.and_then(|u| u.get("dev-dependencies"))
            .and_then(|d| d.as_array())
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str())
            .filter_map(declared::pep508_name)
            .map(str::to_string),
    );
    names
        .into_iter()
        .map(|name| Declared {
            language: Language::Python,
            line: declared::python_line(text, &name),
            name,
            scope: Scope::Dev,
            manifest: "pyproject.toml".into(),
            elsewhere: None,
            indirect: true,
        })
        .collect()
}

/// What hatch's internal `hatch-test` environment installs by default.
const HATCH_TEST: &[&str] = &[
    "coverage",
    "pytest",
    "pytest-mock",
    "pytest-randomly",
    "pytest-rerunfailures",
    "pytest-xdist",
];

/// The dependencies of each hatch environment of `envs` — a module's `pyproject.toml`'s
/// `[tool.hatch.envs]`, or its `hatch.toml`'s `[envs]`, the file `manifest` whose `text`
/// gives the lines — (`dependencies`, `extra-dependencies`), and what the internal
/// `hatch-test` environment installs by default when the module configures it without
/// replacing its `dependencies`: hatch installs them to run its tests and scripts.
pub(super) fn hatch_envs(
    envs: Option<&toml::Table>,
    text: &str,
    manifest: &'static str,
) -> Vec<EnvDecl> {
    let mut out = Vec::new();
    for (env, table) in envs.into_iter().flatten() {
        // `hatch test` runs in the internal `hatch-test` environment, which installs pytest
        // and its own plugins whatever the table adds (markitdown's tests import pytest,
        // declared nowhere).
        if env == "hatch-test" && table.get("dependencies").is_none() {
            for name in HATCH_TEST {
                out.push(EnvDecl {
                    d: Declared {
                        language: Language::Python,
                        line: declared::python_line(text, "hatch-test"),
                        name: name.to_string(),
                        scope: Scope::Dev,
                        manifest: manifest.into(),
                        elsewhere: None,
                        indirect: true,
                    },
                    via: "hatch's internal `hatch-test` environment installs it".to_string(),
                });
            }
        }
        for key in ["dependencies", "extra-dependencies"] {
            for req in table
                .get(key)
                .and_then(|l| l.as_array())
                .into_iter()
                .flatten()
                .filter_map(|r| r.as_str())
            {
                let Some(name) = declared::pep508_name(req) else {
                    continue;
                };
                out.push(EnvDecl {
                    d: Declared {
                        language: Language::Python,
                        line: declared::python_line(text, name),
                        name: name.to_string(),
                        scope: Scope::Dev,
                        manifest: manifest.into(),
                        elsewhere: None,
                        indirect: true,
                    },
                    via: format!("hatch's `{env}` environment installs it"),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inline_pip_install_names_what_it_installs_to_the_end_of_its_command() {
        let words = |l: &'static str| l.split_whitespace().collect::<Vec<_>>();
        assert_eq!(
            inline_requirements(&words(
                "run: python -m pip install --upgrade 'playwright>=1.45,<2' pytest-xdist -r req.txt && pytest -x"
            )),
            ["playwright", "pytest-xdist"]
        );
        // Paths, wheels, variables, an editable's and an index's value, other commands.
        assert_eq!(
            inline_requirements(&words(
                "pip3 install -e .[dev] ./pkg dist/*.whl \"$WHEEL\" --index-url https://x/simple torch==2.3; npm install left-pad"
            )),
            ["torch"]
        );
        assert!(inline_requirements(&words("uv pip compile requirements.in")).is_empty());
        // Options that take a value (pip's and uv's), a marker's `;` inside quotes.
        assert_eq!(
            inline_requirements(&words(
                "uv pip install --progress-bar off --resolution lowest --extra dev \"tomli>=2; python_version<'3.11'\" pytest"
            )),
            ["tomli", "pytest"]
        );
    }

    #[test]
    fn requirements_files_name_includes_editables_and_leave_constraints_out() {
        // opentelemetry-python's test-requirements.txt, and pip's other line shapes.
        let text = "asgiref==3.7.2\n# a comment\n-c ../dev-requirements.txt\npytest==9.0.3  # the runner\ntyping_extensions==4.12.0 ; python_version < \"3.11\"\n-e opentelemetry-api\n-e tests/opentelemetry-test-utils[extra]\n--requirement=more.txt\n-r\tother.txt\n--index-url https://x\nrequests \\\n  >=2\n-e git+https://github.com/a/b#egg=vcs-dist\n./local/pkg\n";
        assert_eq!(
            requirement_lines(text),
            [
                (1, Req::Name("asgiref".into())),
                (4, Req::Name("pytest".into())),
                (5, Req::Name("typing_extensions".into())),
                (6, Req::Local("opentelemetry-api".into())),
                (7, Req::Local("tests/opentelemetry-test-utils".into())),
                (8, Req::Include("more.txt".into())),
                (9, Req::Include("other.txt".into())),
                (11, Req::Name("requests".into())),
                (13, Req::Name("vcs-dist".into())),
                (14, Req::Local("./local/pkg".into())),
            ]
        );
    }

    #[test]
    fn tox_deps_of_every_testenv_with_factors_and_toxinidir() {
        let tox = "[tox]\nenvlist = py3{10,11}-{api,sdk}\n\n[testenv]\ndeps =\n  api: -r {toxinidir}/opentelemetry-api/test-requirements.txt\n  py3{10,11}-sdk: -r {toxinidir}/opentelemetry-sdk/test-requirements.txt\n  -c {toxinidir}/dev-requirements.txt\n  {[testenv:lint]deps}\n  distro: {[testenv]test_deps}\ncommands = pytest\ntest_deps =\n  opentelemetry-test-utils\n  {[test-requirements]deps}\n\n[testenv:lint]\ndeps = pylint\n\n[test-requirements]\ndeps = pyftpdlib\n\n[pytest]\ndeps = not-tox\n";
        assert_eq!(
            tox_deps(tox),
            [
                (
                    6,
                    Req::Include("./opentelemetry-api/test-requirements.txt".into())
                ),
                (
                    7,
                    Req::Include("./opentelemetry-sdk/test-requirements.txt".into())
                ),
                (13, Req::Name("opentelemetry-test-utils".into())),
                // A section of shared lines that is no testenv (scrapy's).
                (20, Req::Name("pyftpdlib".into())),
                (17, Req::Name("pylint".into())),
            ]
        );
    }

    #[test]
    fn nox_installs_and_paths() {
        let nox = "@nox.session\ndef tests(session):\n    session.install(\"-r\", \"requirements-test.txt\", \"-c\", \"c.txt\")\n    session.install(\"pytest-cov\", \".\")\n";
        assert_eq!(
            nox_installs(nox),
            [
                (3, Req::Include("requirements-test.txt".into())),
                (4, Req::Name("pytest-cov".into())),
                (4, Req::Local(".".into())),
            ]
        );
        assert_eq!(resolve("a/b", "../c/./d.txt").as_deref(), Some("a/c/d.txt"));
        assert_eq!(resolve("", "x/y").as_deref(), Some("x/y"));
        assert_eq!(resolve("a", "../../x"), None);
    }

    /// [`hatch_envs`] of a pyproject's text.
    fn envs(text: &str) -> Vec<EnvDecl> {
        let t: toml::Table = toml::from_str(text).expect("parses");
        let envs = t.get("tool").and_then(|t| t.get("hatch"));
        hatch_envs(
            envs.and_then(|h| h.get("envs")).and_then(|e| e.as_table()),
            text,
            "pyproject.toml",
        )
    }

    #[test]
    fn hatch_environments_install_their_dependencies() {
        let text = "[project]\nname = \"x\"\n\n[tool.hatch.envs.test]\ndependencies = [\"pytest>=8\"]\nextra-dependencies = [\"coverage[toml]\"]\n";
        let got: Vec<(String, u32)> = envs(text)
            .into_iter()
            .map(|e| (e.d.name, e.d.line))
            .collect();
        assert_eq!(
            got,
            [("pytest".to_string(), 5), ("coverage".to_string(), 6)]
        );
    }

    #[test]
    fn hatch_s_own_test_environment_installs_pytest() {
        let text = "[project]\nname = \"x\"\n\n[tool.hatch.envs.hatch-test]\nextra-dependencies = [\"openai\"]\n";
        let got: Vec<String> = envs(text).into_iter().map(|e| e.d.name).collect();
        assert!(got.contains(&"pytest".to_string()), "{got:?}");
        assert!(got.contains(&"openai".to_string()), "{got:?}");
        assert!(envs("[tool.hatch.envs.test]\n").is_empty());
        let own = "[tool.hatch.envs.hatch-test]\ndependencies = [\"ward\"]\n";
        let got: Vec<String> = envs(own).into_iter().map(|e| e.d.name).collect();
        assert_eq!(got, ["ward"]);
    }

    #[test]
    fn a_uv_root_s_default_groups_with_their_includes() {
        let text = "[tool.uv]\ndev-dependencies = [\"ruff\"]\n\n[dependency-groups]\ndev = [\"pytest>=8\", {include-group = \"async\"}]\nasync = [\"pytest-asyncio\"]\ndocs = [\"sphinx\"]\n";
        let t: toml::Table = toml::from_str(text).expect("parses");
        let got: Vec<(String, u32)> = uv_groups(&t, text)
            .into_iter()
            .map(|d| (d.name, d.line))
            .collect();
        assert_eq!(
            got,
            [
                ("pytest".to_string(), 5),
                ("pytest-asyncio".to_string(), 6),
                ("ruff".to_string(), 2),
            ]
        );
        let all =
            "[tool.uv]\ndefault-groups = \"all\"\n\n[dependency-groups]\ndocs = [\"sphinx\"]\n";
        let t: toml::Table = toml::from_str(all).expect("parses");
        assert_eq!(uv_groups(&t, all)[0].name, "sphinx");
    }
}
