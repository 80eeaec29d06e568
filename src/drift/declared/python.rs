//! What Python's manifests declare: `pyproject.toml` (PEP 621 and its extras, PEP 735
//! groups, poetry's, uv's, rye's and pdm's lists, what a build hook or `setup.py` fills from
//! requirements files), `setup.cfg`, requirements files, and the lines each name stands on.

use super::{Declared, Scope, bracket_depth, declared, line_key};
use crate::drift::{compiled, names, python_env};
use mesh_imports::Language;
use std::collections::HashMap;

/// The name of a PEP 508 requirement (`requests[socks]>=2; python_version<'3.9'` → `requests`).
pub(crate) fn pep508_name(req: &str) -> Option<&str> {
    let req = req.trim();
    let end = req
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(req.len());
    let name = &req[..end];
    (!name.is_empty()).then_some(name)
}

/// The extras a PEP 508 requirement asks for (`livekit-agents[openai,groq]>=1` → `openai`,
/// `groq`), PEP 503-normalized.
pub(crate) fn pep508_extras(req: &str) -> Vec<String> {
    let Some(name) = pep508_name(req) else {
        return Vec::new();
    };
    let rest = req.trim()[name.len()..].trim_start();
    let Some(inner) = rest.strip_prefix('[').and_then(|r| r.split_once(']')) else {
        return Vec::new();
    };
    inner
        .0
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(names::pep503)
        .collect()
}

/// Each requirement of `[project] dependencies` and extras in a pyproject.toml that asks for
/// extras: its name and the extras.
pub(crate) fn pyproject_requirement_extras(t: &toml::Table) -> Vec<(String, Vec<String>)> {
    let extras = toml_at(t, &["project", "optional-dependencies"])
        .and_then(|v| v.as_table())
        .into_iter()
        .flat_map(|t| t.values());
    toml_at(t, &["project", "dependencies"])
        .into_iter()
        .chain(extras)
        .filter_map(|v| v.as_array())
        .flatten()
        .filter_map(|s| s.as_str())
        .filter_map(|r| {
            let extras = pep508_extras(r);
            let name = pep508_name(r)?;
            (!extras.is_empty()).then(|| (name.to_string(), extras))
        })
        .collect()
}

/// A pyproject.toml's extras (`[project.optional-dependencies]`), by PEP 503 name, each with
/// the names of the distributions it installs.
pub(crate) fn pyproject_extras(t: &toml::Table) -> HashMap<String, Vec<String>> {
    toml_at(t, &["project", "optional-dependencies"])
        .and_then(|v| v.as_table())
        .into_iter()
        .flatten()
        .map(|(extra, list)| {
            let names = requirement_names(Some(list), &|_| true);
            (names::pep503(extra), names)
        })
        .collect()
}

/// A pyproject.toml's lists of requirements, in the order [`pyproject_of`] reads them, each
/// with what it is for and its section's name (PEP 503; empty for a shipping list, `dev` for
/// uv's and poetry's one dev list), the names as written: PEP 621 dependencies and extras,
/// PEP 735 groups, pdm's dev groups, what a hatch metadata hook fills
/// (`dynamic = ["dependencies"]`: uv-dynamic-versioning's, as in pydantic-ai;
/// hatch-requirements-txt's lists files, not requirements — see
/// [`setuptools_dynamic_files`]), uv's dev list, then poetry's dependencies, dev list and
/// groups. One walk, so a rule can tell what only one kind of section holds, or what one
/// extra holds together.
pub(crate) fn pyproject_sections(t: &toml::Table) -> Vec<(Scope, String, Vec<String>)> {
    sections(t, true, &|_| true)
}

/// [`pyproject_sections`], with or without what a hatch metadata hook fills, of the
/// requirements whose text `keep` takes (a PEP 508 string, or a poetry entry's version).
fn sections(
    t: &toml::Table,
    with_hooks: bool,
    keep: &dyn Fn(&str) -> bool,
) -> Vec<(Scope, String, Vec<String>)> {
    let requirement_names = |v: Option<&toml::Value>| requirement_names(v, keep);
    let poetry_keys = |v: Option<&toml::Value>| poetry_keys(v, keep);
    type Section = (Scope, String, Vec<String>);
    let named_as = |out: &mut Vec<Section>,
                    v: Option<&toml::Value>,
                    scope: &dyn Fn(&str) -> Scope,
                    list: &dyn Fn(&toml::Value) -> Vec<String>| {
        let tables = v.and_then(|v| v.as_table()).into_iter().flatten();
        out.extend(tables.map(|(k, v)| (scope(k), names::pep503(k), list(v))));
    };
    let named =
        |out: &mut Vec<Section>,
         v: Option<&toml::Value>,
         scope: Scope,
         list: &dyn Fn(&toml::Value) -> Vec<String>| { named_as(out, v, &|_| scope, list) };
    let app = application(t);
    let group = |name: &str| group_scope(app, name);
    let list = |v: &toml::Value| requirement_names(Some(v));
    let shipping = |names: Vec<String>| (Scope::Normal, String::new(), names);
    let dev = |names: Vec<String>| (Scope::Dev, "dev".to_string(), names);
    let mut out = vec![shipping(requirement_names(toml_at(
        t,
        &["project", "dependencies"],
    )))];
    named(
        &mut out,
        toml_at(t, &["project", "optional-dependencies"]),
        Scope::Optional,
        &list,
    );
    named_as(&mut out, toml_at(t, &["dependency-groups"]), &group, &list);
    named(
        &mut out,
        toml_at(t, &["tool", "pdm", "dev-dependencies"]),
        Scope::Dev,
        &list,
    );
    for hook in toml_at(t, &["tool", "hatch", "metadata", "hooks"])
        .and_then(|h| h.as_table())
        .into_iter()
        .flat_map(|h| h.iter())
        .filter(|(name, _)| with_hooks && *name != "requirements_txt")
        .map(|(_, hook)| hook)
    {
        out.push(shipping(requirement_names(hook.get("dependencies"))));
        named(
            &mut out,
            hook.get("optional-dependencies"),
            Scope::Optional,
            &list,
        );
    }
    out.push(dev(requirement_names(toml_at(
        t,
        &["tool", "uv", "dev-dependencies"],
    ))));
    // Rye's dev list, the one uv's took its name and shape from.
    out.push(dev(requirement_names(toml_at(
        t,
        &["tool", "rye", "dev-dependencies"],
    ))));
    out.push(shipping(poetry_keys(toml_at(
        t,
        &["tool", "poetry", "dependencies"],
    ))));
    out.push(dev(poetry_keys(toml_at(
        t,
        &["tool", "poetry", "dev-dependencies"],
    ))));
    named_as(
        &mut out,
        toml_at(t, &["tool", "poetry", "group"]),
        &group,
        &|g| poetry_keys(g.get("dependencies")),
    );
    out
}

/// Whether a pyproject is an application's, from which no package is built: uv's
/// `[tool.uv] package = false`, poetry's `package-mode = false`. What installs its
/// dependencies is a sync of its groups (redash's image: `uv sync --group all_ds`), not a
/// wheel's metadata.
fn application(t: &toml::Table) -> bool {
    let off = |path: &[&str]| toml_at(t, path).and_then(|v| v.as_bool()) == Some(false);
    off(&["tool", "uv", "package"]) || off(&["tool", "poetry", "package-mode"])
}

/// What a dependency group (PEP 735's or poetry's) declares for. In a package, development:
/// no wheel carries a group. In an application, a group whose name has no development
/// word (`dev`, `test`, `lint`, `docs`, …) holds optional runtime dependencies a deployment
/// picks, as an extra does (redash's `all_ds`, the data sources its image installs).
fn group_scope(application: bool, name: &str) -> Scope {
    match application && !dev_named(name) {
        true => Scope::Optional,
        false => Scope::Dev,
    }
}

/// Words that name a set of dependencies for developing or building a project, not for
/// running it: in a dependency group's name, a requirements file's.
const DEV_WORDS: &[&str] = &[
    "bench",
    "benchmark",
    "benchmarks",
    "build",
    "check",
    "ci",
    "codegen",
    "coverage",
    "debug",
    "deploy",
    "dev",
    "develop",
    "development",
    "devtools",
    "doc",
    "docs",
    "documentation",
    "e2e",
    "examples",
    "fmt",
    "format",
    "formatting",
    "jupyter",
    "lint",
    "linting",
    "mypy",
    "notebook",
    "notebooks",
    "perf",
    "pre",
    "precommit",
    "qa",
    "release",
    "ruff",
    "stubs",
    "style",
    "test",
    "testing",
    "tests",
    "tools",
    "tox",
    "typecheck",
    "types",
    "typing",
];

/// Whether a name (a group's, a requirements file's path) has a development word among its
/// `-`, `_`, `.` or `/`-separated parts: `test-docs`, `requirements/lint.txt`.
pub(crate) fn dev_named(name: &str) -> bool {
    name.to_ascii_lowercase()
        .split(['-', '_', '.', '/'])
        .any(|w| DEV_WORDS.contains(&w))
}

/// The sections of the project's own tables (not what a hatch hook fills), with every name
/// made PEP 503, as rules compare them.
pub(crate) fn pyproject_sections_pep503(t: &toml::Table) -> Vec<(Scope, String, Vec<String>)> {
    pep503_sections(sections(t, false, &|_| true))
}

/// [`pyproject_sections_pep503`] of the requirements pinned to one version (`==1.4.1`,
/// poetry's bare `1.4.1`; not `==1.*`): a version chosen, which says nothing of a use.
pub(crate) fn pyproject_exact_pins(t: &toml::Table) -> Vec<(Scope, String, Vec<String>)> {
    pep503_sections(sections(t, false, &exact_pin))
}

/// Whether a requirement's text (PEP 508: `name==1.2.3`, `===` too) pins one version, with
/// no wildcard nor second clause.
fn exact_pin(text: &str) -> bool {
    let spec = text.split(';').next().unwrap_or(text).trim();
    let Some(name) = pep508_name(spec) else {
        return false;
    };
    let rest = spec[name.len()..].trim_start();
    // Past the extras (`psycopg[binary]==3.2`).
    let rest = match rest.strip_prefix('[') {
        Some(r) => r.split_once(']').map_or("", |(_, v)| v).trim_start(),
        None => rest,
    };
    let Some(version) = rest.strip_prefix("===").or_else(|| rest.strip_prefix("==")) else {
        return false;
    };
    let version = version.trim();
    !version.contains([',', '*', '|', '<', '>', '~', '^', '!', '='])
        && version.starts_with(|c: char| c.is_ascii_digit())
}

/// PEP 503 names in each section.
fn pep503_sections(
    mut out: Vec<(Scope, String, Vec<String>)>,
) -> Vec<(Scope, String, Vec<String>)> {
    for (_, _, names) in &mut out {
        names.iter_mut().for_each(|n| *n = names::pep503(n));
    }
    out
}

/// The oldest Python 3 minor version a `pyproject.toml` allows: the lower bound of
/// `[project] requires-python` (`>=3.10`, `~=3.10`, `==3.11.*`), else of poetry's `python`
/// dependency (`^3.10`). `None` when neither bounds Python 3 from below (`>=2.7`, absent).
/// Code only older Pythons run never runs (see `Import::before_python`).
pub(crate) fn min_python(t: &toml::Table) -> Option<u8> {
    let spec = toml_at(t, &["project", "requires-python"])
        .or_else(|| toml_at(t, &["tool", "poetry", "dependencies", "python"]))?
        .as_str()?;
    (spec.split([',', '|']).map(str::trim))
        .filter_map(|clause| {
            let version = [">=", "~=", "==", "^", "~", ">"]
                .into_iter()
                .find_map(|op| clause.strip_prefix(op))?
                .trim();
            let mut parts = version.split('.');
            (parts.next()? == "3").then_some(())?;
            parts.next().unwrap_or("0").parse::<u8>().ok()
        })
        .max()
        // An or of ranges (poetry's `^3.8 || ^3.10`, or `|`) allows the oldest.
        .filter(|_| !spec.contains('|'))
}

/// The dependencies a `pyproject.toml` declares: PEP 621 `[project]` dependencies and extras,
/// PEP 735 `[dependency-groups]`, poetry's dependencies and groups, uv's, rye's and pdm's dev
/// lists.
pub fn pyproject(text: &str) -> Vec<Declared> {
    match toml::from_str::<toml::Table>(text) {
        Ok(t) => pyproject_of(&t, text),
        Err(_) => Vec::new(),
    }
}

/// [`pyproject`] of a pyproject.toml parsed already (`t`), its `text` giving the lines.
pub fn pyproject_of(t: &toml::Table, text: &str) -> Vec<Declared> {
    let reqs = (pyproject_sections(t).into_iter())
        .flat_map(|(scope, _, names)| names.into_iter().map(move |n| (n, scope)));
    // A name declared in two sections (shipping and a dev group) is at two lines: the n-th
    // declaration of a name is taken to be its n-th line.
    let mut seen: HashMap<String, usize> = HashMap::new();
    let may_declare = requirement_lines(text);
    let index = python_line_index(text);
    reqs.into_iter()
        .map(|(name, scope)| {
            let nth = seen.entry(name.clone()).or_default();
            let all = index.get(&name).cloned().unwrap_or_default();
            let lines: Vec<u32> = (all.iter().copied())
                .filter(|l| may_declare.get(*l as usize - 1).copied().unwrap_or(true))
                .collect();
            let lines = if lines.is_empty() { all } else { lines };
            let line = lines.get(*nth).or(lines.last()).copied().unwrap_or(1);
            *nth += 1;
            declared(Language::Python, name, scope, "pyproject.toml", line)
        })
        .collect()
}

/// What a pyproject's `[build-system] requires` installs to build the package (setuptools,
/// hatchling, Cython): the environment its `setup.py` runs in, so that file's
/// `import setuptools` is declared there. For development, and never unused (a build backend
/// is run, not imported).
pub(crate) fn build_requires(t: &toml::Table, text: &str) -> Vec<Declared> {
    let Some(requires) = toml_at(t, &["build-system", "requires"]).and_then(|r| r.as_array())
    else {
        return Vec::new();
    };
    requires
        .iter()
        .filter_map(|r| pep508_name(r.as_str()?))
        .map(|name| {
            let line = python_lines(text, name).first().copied().unwrap_or(1);
            Declared {
                indirect: true,
                ..declared(
                    Language::Python,
                    name.to_string(),
                    Scope::Dev,
                    "pyproject.toml",
                    line,
                )
            }
        })
        .collect()
}

/// Whether a pyproject.toml's `[project]` leaves its dependencies unsaid: no `dependencies`,
/// none `dynamic` (filled by a build backend, or by a `setup.py`); true without a
/// `[project]` (a file of tools' settings; the caller asks whether any other table, such as
/// Poetry's, declares).
pub(crate) fn declares_no_dependencies(t: &toml::Table) -> bool {
    let Some(project) = t.get("project") else {
        return true;
    };
    project.get("dependencies").is_none() && !dynamic_dependencies(t)
}

/// Whether a pyproject.toml's `[project]` says its dependencies are `dynamic`: filled by a
/// build backend, a hook or a `setup.py`.
fn dynamic_dependencies(t: &toml::Table) -> bool {
    toml_at(t, &["project", "dynamic"])
        .and_then(|d| d.as_array())
        .is_some_and(|d| d.iter().any(|v| v.as_str() == Some("dependencies")))
}

/// The requirements files setuptools reads a pyproject's dependencies from
/// (`[tool.setuptools.dynamic] dependencies = {file = ["requirements.txt"]}`, and each
/// `optional-dependencies.<extra>` alike) or hatch's requirements hook reads them from,
/// module-relative, with what they declare for: jupyterhub and gradio keep their runtime
/// dependencies in `requirements.txt` so. (A custom hatch hook's: [`custom_hook`].)
pub(crate) fn setuptools_dynamic_files(t: &toml::Table) -> Vec<(String, Scope)> {
    let files = |v: Option<&toml::Value>| -> Vec<String> {
        match v.and_then(|d| d.get("file")) {
            Some(toml::Value::String(f)) => vec![f.clone()],
            Some(toml::Value::Array(a)) => a
                .iter()
                .filter_map(|f| f.as_str())
                .map(String::from)
                .collect(),
            _ => Vec::new(),
        }
    };
    let dynamic = toml_at(t, &["tool", "setuptools", "dynamic"]);
    let mut out: Vec<(String, Scope)> = files(dynamic.and_then(|d| d.get("dependencies")))
        .into_iter()
        .map(|f| (f, Scope::Normal))
        .collect();
    let extras = dynamic
        .and_then(|d| d.get("optional-dependencies"))
        .and_then(|o| o.as_table());
    for extra in extras.into_iter().flat_map(|o| o.values()) {
        out.extend(files(Some(extra)).into_iter().map(|f| (f, Scope::Optional)));
    }
    // hatch-requirements-txt: `[tool.hatch.metadata.hooks.requirements_txt]` with `files`
    // (or the older `filename`; `requirements.txt` when neither is set), and per extra under
    // its `optional-dependencies` (gradio's).
    if let Some(hook) = toml_at(
        t,
        &["tool", "hatch", "metadata", "hooks", "requirements_txt"],
    ) {
        let named: Vec<String> = match (hook.get("files"), hook.get("filename")) {
            (Some(toml::Value::Array(a)), _) => a
                .iter()
                .filter_map(|f| f.as_str())
                .map(String::from)
                .collect(),
            (_, Some(toml::Value::String(f))) => vec![f.clone()],
            _ => vec!["requirements.txt".to_string()],
        };
        out.extend(named.into_iter().map(|f| (f, Scope::Normal)));
        let extras = hook.get("optional-dependencies").and_then(|o| o.as_table());
        for list in extras.into_iter().flat_map(|o| o.values()) {
            let names = (list.as_array().into_iter().flatten()).filter_map(|f| f.as_str());
            out.extend(names.map(|f| (f.to_string(), Scope::Optional)));
        }
    }
    out.iter_mut()
        .for_each(|(f, _)| *f = f.trim_start_matches("./").to_string());
    out.retain(|(f, _)| !f.contains(".."));
    out
}

/// The requirements files a `setup.py` that computes its requirements reads, by the string
/// literals of its code that name one (`"requirements.txt"`, `"requirements/base.txt"`,
/// `"dev-requirements.txt"`; module-relative), each with what it declares for: development
/// when its name says so (`dev`, `test`, `docs`, `lint`, …), else shipping. ckan reads
/// `requirements.txt` into an extra, mindsdb `requirements/requirements.txt` into
/// `install_requires`: those files are what it declares.
pub(crate) fn setup_py_requirement_files(code: &str) -> Vec<(String, Scope)> {
    let mut out: Vec<(String, Scope)> = Vec::new();
    for piece in line_strings(code) {
        let path = piece.trim_start_matches("./");
        let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
        let plain = path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/'));
        if !plain || path.contains("..") || !name.ends_with(".txt") || !name.contains("require") {
            continue;
        }
        let scope = match dev_named(path.trim_end_matches(".txt")) {
            true => Scope::Dev,
            false => Scope::Normal,
        };
        if !out.iter().any(|(p, _)| p == path) {
            out.push((path.to_string(), scope));
        }
    }
    out
}

/// The one-line string literals of Python code, outside its `#` comments: a quote in a
/// comment (`# the package's requirements`) starts no string.
fn line_strings(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in code.lines() {
        let mut open: Option<(char, usize)> = None;
        for (i, ch) in line.char_indices() {
            match (open, ch) {
                (None, '#') => break,
                (None, '"' | '\'') => open = Some((ch, i + 1)),
                (Some((q, start)), c) if c == q => {
                    out.push(&line[start..i]);
                    open = None;
                }
                _ => {}
            }
        }
    }
    out
}

/// The file of the custom hatch hook (`[tool.hatch.metadata.hooks.custom]`: its `path`, else
/// `hatch_build.py`) that fills a pyproject's `dynamic` dependencies when no table lists
/// them (module-relative): code of the project's own, which may read them from a
/// requirements file (netbox's reads `requirements.txt`).
pub(crate) fn custom_hook(t: &toml::Table) -> Option<String> {
    let hooks = toml_at(t, &["tool", "hatch", "metadata", "hooks"])?.as_table()?;
    let custom = hooks.get("custom")?;
    let listed = hooks.values().any(|h| h.get("dependencies").is_some());
    let dynamic = dynamic_dependencies(t);
    (dynamic && !listed)
        .then(|| mesh_imports::python_packages::hatch_custom_hook_file(custom))
        .flatten()
}

/// The declarations a requirements file setuptools reads (see [`setuptools_dynamic_files`])
/// makes: `file` its module-relative name, `text` its content.
/// A compiled file's transitive pins ([`super::compiled`]) are never called unused.
pub(crate) fn requirements_file(file: &str, text: &str, scope: Scope) -> Vec<Declared> {
    let transitive = compiled::transitive_pins(text);
    python_env::named_requirements(text)
        .into_iter()
        .map(|(line, name)| Declared {
            manifest: std::borrow::Cow::Owned(file.to_string()),
            indirect: transitive.contains(&line),
            ..declared(Language::Python, name, scope, "pyproject.toml", line)
        })
        .collect()
}

/// The value at `path` (not empty) in a TOML table, if every step is there.
fn toml_at<'t>(t: &'t toml::Table, path: &[&str]) -> Option<&'t toml::Value> {
    let mut v = t.get(path[0])?;
    for p in &path[1..] {
        v = v.get(p)?;
    }
    Some(v)
}

/// The names of a list of PEP 508 requirements; none when `v` is no list.
fn requirement_names(v: Option<&toml::Value>, keep: &dyn Fn(&str) -> bool) -> Vec<String> {
    v.and_then(|v| v.as_array())
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str())
        .filter(|s| keep(s))
        .filter_map(pep508_name)
        .map(str::to_string)
        .collect()
}

/// A poetry dependency table's keys but `python`, which names the interpreter it needs, of
/// the entries `keep` takes as PEP 508 (`x = "1.2"` as `x==1.2`, `{ version = "^1" }` as
/// `x^1`).
fn poetry_keys(v: Option<&toml::Value>, keep: &dyn Fn(&str) -> bool) -> Vec<String> {
    let version = |v: &toml::Value| match v {
        toml::Value::String(s) => s.clone(),
        other => (other.get("version").and_then(|v| v.as_str()))
            .unwrap_or("")
            .to_string(),
    };
    // As PEP 508 says it: a bare version is poetry's exact one.
    let requirement = |k: &str, v: &toml::Value| match version(v) {
        bare if bare.starts_with(|c: char| c.is_ascii_digit()) => format!("{k}=={bare}"),
        spec => format!("{k}{spec}"),
    };
    v.and_then(|v| v.as_table())
        .into_iter()
        .flat_map(|t| t.iter())
        .filter(|(k, v)| k.as_str() != "python" && keep(&requirement(k, v)))
        .map(|(k, _)| k.clone())
        .collect()
}

/// The requirements a `setup.cfg` declares: `install_requires` for shipping,
/// `[options.extras_require]` optional, `tests_require` dev.
pub(crate) fn setup_cfg(text: &str) -> Vec<Declared> {
    setup_requirements(&mesh_imports::setup_cfg::read(text), "setup.cfg")
}

/// The requirements of a `setup.cfg` or a `setup.py` read as one (`file`), by what each is
/// for.
pub(crate) fn setup_requirements(
    cfg: &mesh_imports::setup_cfg::SetupCfg,
    file: &'static str,
) -> Vec<Declared> {
    cfg.requirements
        .iter()
        .filter_map(|(req, what, line)| {
            let scope = match *what {
                "normal" => Scope::Normal,
                "extra" => Scope::Optional,
                _ => Scope::Dev,
            };
            let name = pep508_name(req)?.to_string();
            Some(declared(Language::Python, name, scope, file, *line))
        })
        .collect()
}

/// The first line that declares `name`: a quoted requirement starting with it, or a key.
pub(crate) fn python_line(text: &str, name: &str) -> u32 {
    python_lines(text, name).first().copied().unwrap_or(1)
}

/// Per line of a pyproject.toml, whether it may hold a requirement of the project: not in
/// `[build-system]`, not under another `[project]` key than `dependencies` (`keywords =
/// ["openai"]`, `classifiers`), not in a `[tool.X]` table other than those that declare
/// dependencies (poetry, pdm, uv, hatch). A name is sought at such lines first.
fn requirement_lines(text: &str) -> Vec<bool> {
    const DECLARING_TOOLS: [&str; 4] = ["tool.poetry", "tool.pdm", "tool.uv", "tool.hatch"];
    let mut header = String::new();
    let mut key: Option<String> = None;
    let mut depth = 0;
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if depth == 0 && t.starts_with('[') {
            header = t.trim_matches(['[', ']']).trim().to_string();
            key = None;
            out.push(false);
            continue;
        }
        if depth == 0
            && let Some(k) = line_key(t)
        {
            key = Some(k);
        }
        depth = bracket_depth(line, depth).max(0);
        let ok = match header.as_str() {
            "build-system" => false,
            "project" => key.as_deref() == Some("dependencies"),
            h if h.starts_with("tool.") => DECLARING_TOOLS
                .iter()
                .any(|d| h == *d || h.starts_with(&format!("{d}."))),
            _ => true,
        };
        out.push(ok);
    }
    out
}

/// Every 1-based line that declares `name`, in order.
fn python_lines(text: &str, name: &str) -> Vec<u32> {
    python_line_index(text).remove(name).unwrap_or_default()
}

/// Each name the text's lines declare, with every 1-based line that declares it, in order:
/// a quoted PEP 508 requirement, or a table's key (poetry's `rich = "*"`). Read once for a
/// manifest, not once per declaration (a pyproject of hundreds).
fn python_line_index(text: &str) -> HashMap<String, Vec<u32>> {
    let mut out: HashMap<String, Vec<u32>> = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        // A commented-out declaration (`# "torch==2.1",` above the live one) declares nothing.
        if t.starts_with('#') {
            continue;
        }
        let line_no = n as u32 + 1;
        let mut add = |name: &str| {
            let lines = out.entry(name.to_string()).or_default();
            if lines.last() != Some(&line_no) {
                lines.push(line_no);
            }
        };
        for q in ['"', '\''] {
            for part in line.split(q).skip(1).step_by(2) {
                if let Some(name) = pep508_name(part) {
                    add(name);
                }
            }
        }
        if let Some(key) = line_key(t) {
            add(&key);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::names;
    use super::*;

    #[test]
    fn exact_pins_are_one_version_without_a_wildcard_or_a_second_clause() {
        let t: toml::Table = toml::from_str(
            "[dependency-groups]\ndocs = [\"sphinx==7.4.7\", \"alabaster===0.7.16\", \"psycopg[binary] == 3.2.1 ; python_version >= '3.9'\", \"pygments>=2.21\", \"babel==2.*\", \"imagesize==1.4.1,!=1.4.0\", \"docutils\"]\n[tool.poetry.group.dev.dependencies]\nblack = \"24.1.0\"\nruff = \"^0.4\"\nmypy = { version = \"==1.10.0\" }\n",
        )
        .unwrap();
        let pins: Vec<(String, Vec<String>)> = (pyproject_exact_pins(&t).into_iter())
            .filter(|(_, _, n)| !n.is_empty())
            .map(|(_, name, n)| (name, n))
            .collect();
        assert_eq!(
            pins,
            [
                (
                    "docs".to_string(),
                    vec!["sphinx".to_string(), "alabaster".into(), "psycopg".into()]
                ),
                ("dev".to_string(), vec!["black".to_string(), "mypy".into()]),
            ]
        );
    }

    #[test]
    fn the_oldest_python_a_pyproject_allows() {
        let min = |text: &str| min_python(&toml::from_str(text).unwrap());
        assert_eq!(min("[project]\nrequires-python = \">=3.10\"\n"), Some(10));
        assert_eq!(
            min("[project]\nrequires-python = \">= 3.9, <4\"\n"),
            Some(9)
        );
        assert_eq!(min("[project]\nrequires-python = \"~=3.11\"\n"), Some(11));
        assert_eq!(min("[project]\nrequires-python = \">=2.7\"\n"), None);
        assert_eq!(min("[project]\nname = \"x\"\n"), None);
        assert_eq!(
            min("[tool.poetry.dependencies]\npython = \"^3.12\"\n"),
            Some(12)
        );
        assert_eq!(
            min("[tool.poetry.dependencies]\npython = \"^3.8 || ^3.10\"\n"),
            None
        );
        assert_eq!(
            min("[tool.poetry.dependencies]\npython = \"~2.7 | ^3.6\"\n"),
            None
        );
    }

    #[test]
    fn every_section_of_a_pyproject_with_its_name() {
        let text = "[project]\ndependencies = [\"httpx\"]\n[project.optional-dependencies]\nDocs = [\"Furo\"]\n[dependency-groups]\ntest = [\"pytest\"]\n[tool.uv]\ndev-dependencies = [\"furo\"]\n[tool.rye]\ndev-dependencies = [\"pytest-cov\"]\n[tool.pdm.dev-dependencies]\nlint = [\"ruff\"]\n[tool.poetry.dev-dependencies]\nmypy = \"*\"\n";
        let t: toml::Table = toml::from_str(text).unwrap();
        let got: Vec<(Scope, String, Vec<String>)> = pyproject_sections_pep503(&t)
            .into_iter()
            .filter(|(_, _, n)| !n.is_empty())
            .collect();
        let want = |scope, name: &str, names: &[&str]| {
            (
                scope,
                name.to_string(),
                names.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            got,
            [
                want(Scope::Normal, "", &["httpx"]),
                want(Scope::Optional, "docs", &["furo"]),
                want(Scope::Dev, "test", &["pytest"]),
                want(Scope::Dev, "lint", &["ruff"]),
                want(Scope::Dev, "dev", &["furo"]),
                want(Scope::Dev, "dev", &["pytest-cov"]),
                want(Scope::Dev, "dev", &["mypy"]),
            ]
        );
    }

    #[test]
    fn a_pyproject_requirement_is_at_its_declaration_not_a_keyword_or_the_build_system() {
        // chainlit's `keywords = ["openai", …]`, flytekit's `[build-system]` setuptools.
        let text = "[build-system]\nrequires = [\"setuptools<82\"]\n\n[project]\nname = \"x\"\nkeywords = [\"openai\", \"llm\"]\ndependencies = [\n  \"setuptools<82\",\n]\n\n[project.optional-dependencies]\ntests = [\n  # \"openai==1.0\",\n  \"openai\",\n]\n\n[tool.codespell]\nignore = [\"openai\"]\n";
        assert_eq!(
            names(&pyproject(text)),
            [
                ("setuptools".into(), Scope::Normal, 8),
                ("openai".into(), Scope::Optional, 14),
            ]
        );
    }

    #[test]
    fn a_custom_hatch_hook_filling_dependencies_is_found() {
        let table = |text: &str| toml::from_str::<toml::Table>(text).unwrap_or_default();
        // netbox: `dynamic = ["dependencies"]`, filled by its own hook.
        let custom = "[project]\nname = \"netbox\"\ndynamic = [\"version\", \"dependencies\"]\n\n[tool.hatch.metadata.hooks.custom]\npath = \"scripts/hatch_metadata.py\"\n";
        assert_eq!(
            custom_hook(&table(custom)).as_deref(),
            Some("scripts/hatch_metadata.py")
        );
        // Not when the dependencies are static, nor when a table lists them.
        let stated = custom.replace("\"version\", \"dependencies\"", "\"version\"");
        assert_eq!(custom_hook(&table(&stated)), None);
        let listed = format!("{custom}[tool.hatch.metadata.hooks.other]\ndependencies = [\"a\"]\n");
        assert_eq!(custom_hook(&table(&listed)), None);
    }

    #[test]
    fn pyproject_hatch_metadata_hook() {
        // pydantic-ai's pydantic_ai_slim/pyproject.toml: dependencies filled by a hook.
        let text = "[project]\nname = \"pydantic-ai-slim\"\ndynamic = [\"version\", \"dependencies\", \"optional-dependencies\"]\n\n[tool.hatch.metadata.hooks.uv-dynamic-versioning]\ndependencies = [\n    \"anyio>=4.7.0\",\n    \"pydantic-graph=={{ version }}\",\n]\n\n[tool.hatch.metadata.hooks.uv-dynamic-versioning.optional-dependencies]\nopenai = [\"openai>=3.0.0\", \"tiktoken>=0.12.0\"]\n";
        assert_eq!(
            names(&pyproject(text)),
            [
                ("anyio".into(), Scope::Normal, 7),
                ("pydantic-graph".into(), Scope::Normal, 8),
                ("openai".into(), Scope::Optional, 12),
                ("tiktoken".into(), Scope::Optional, 12),
            ]
        );
    }

    #[test]
    fn a_setup_py_names_the_requirements_files_it_reads() {
        let ckan = "_extras_groups = [\n    (\"requirements\", \"requirements.txt\"),\n    (\"dev\", \"dev-requirements.txt\"),\n]\nwith open(os.path.join(HERE, filepath)) as f: pass\n";
        assert_eq!(
            setup_py_requirement_files(ckan),
            [
                ("requirements.txt".to_string(), Scope::Normal),
                ("dev-requirements.txt".to_string(), Scope::Dev)
            ]
        );
        let nested = "# Read the package's requirements\nopen(os.path.normpath('requirements/requirements.txt'))\nopen('./requirements/test/requirements.txt')\nREADME = 'README.md'\nopen('../requirements.txt')\nsetup_requires = reqs(\"requirements-build.txt\")\n";
        assert_eq!(
            setup_py_requirement_files(nested),
            [
                ("requirements/requirements.txt".to_string(), Scope::Normal),
                ("requirements/test/requirements.txt".to_string(), Scope::Dev),
                ("requirements-build.txt".to_string(), Scope::Dev)
            ]
        );
    }

    #[test]
    fn pyproject_every_table() {
        let text = "[project]\nname = \"svc\"\ndependencies = [\n  \"requests[socks]>=2\",\n  'PyYAML; python_version>\"3\"',\n]\n[project.optional-dependencies]\nfast = [\"orjson\"]\n[dependency-groups]\ntest = [\"pytest>=8\", {include-group = \"x\"}]\n[tool.poetry.dependencies]\npython = \"^3.11\"\nrich = \"*\"\n[tool.poetry.group.dev.dependencies]\nmypy = \"*\"\n";
        assert_eq!(
            names(&pyproject(text)),
            [
                ("requests".into(), Scope::Normal, 4),
                ("PyYAML".into(), Scope::Normal, 5),
                ("orjson".into(), Scope::Optional, 8),
                ("pytest".into(), Scope::Dev, 10),
                ("rich".into(), Scope::Normal, 13),
                ("mypy".into(), Scope::Dev, 15),
            ]
        );
        // A name in two sections is at its own line in each (prefect-azure's `aiohttp`).
        let twice = "[project]\nname = \"x\"\ndependencies = [\"aiohttp>=3\"]\n\n[dependency-groups]\ndev = [\n  \"aiohttp[speedups]\",\n]\n";
        assert_eq!(
            names(&pyproject(twice)),
            [
                ("aiohttp".into(), Scope::Normal, 3),
                ("aiohttp".into(), Scope::Dev, 7),
            ]
        );
        // An application's groups (uv's `package = false`) are what its deployment syncs:
        // one named for development is dev, any other holds optional runtime dependencies.
        let app = "[tool.uv]\npackage = false\n\n[dependency-groups]\nall_ds = [\"openpyxl\"]\ntest-docs = [\"mkdocs\"]\ndev = [\"ptpython\"]\n";
        assert_eq!(
            names(&pyproject(app)),
            [
                ("openpyxl".into(), Scope::Optional, 5),
                ("ptpython".into(), Scope::Dev, 7),
                ("mkdocs".into(), Scope::Dev, 6),
            ]
        );
        let poetry_app = "[tool.poetry]\npackage-mode = false\n\n[tool.poetry.group.worker.dependencies]\ncelery = \"*\"\n";
        assert_eq!(
            names(&pyproject(poetry_app)),
            [("celery".into(), Scope::Optional, 5)]
        );
        // A package's groups are never in its wheel, whatever they are called.
        let package = "[project]\nname = \"x\"\n\n[dependency-groups]\nserver = [\"uvicorn\"]\n";
        assert_eq!(
            names(&pyproject(package)),
            [("uvicorn".into(), Scope::Dev, 5)]
        );
        assert_eq!(pep508_name(" zope.interface >= 5"), Some("zope.interface"));
        assert_eq!(pep508_name(">=1"), None);
    }
}
