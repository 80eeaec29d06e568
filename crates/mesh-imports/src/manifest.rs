//! What a module's language manifests say it provides: the names other modules import it by.

use super::lex::Language;
use serde::{Deserialize, Serialize};

/// Facts read from the manifests inside one module's directory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFacts {
    /// Names provided, per language (Go's come from the nearest `go.mod`, found separately).
    pub provides: Vec<(Language, String)>,
    /// Rust dependency renames in its `Cargo.toml`: (name used in code, crate name).
    pub rust_renames: Vec<(String, String)>,
    /// Notes for `-v`, e.g. "no language manifest".
    pub notes: Vec<String>,
    /// Module-relative directories (or `.py` files) of the Python packages its `pyproject.toml`
    /// says it ships: its other Python files are dev code. Empty when the packages were only
    /// inferred (a service's `main.py` beside its packages is part of it).
    pub python_shipped: Vec<String>,
    /// Module-relative paths of its Cargo `[[bench]]`, `[[example]]` and `[[test]]` targets:
    /// dev code wherever they stand.
    pub rust_dev_paths: Vec<String>,
    /// Dependencies it inherits from its workspace (`name = { workspace = true }`), whose
    /// renames the workspace's `Cargo.toml` holds.
    pub rust_workspace_deps: Vec<String>,
}

/// The language manifests a module directory may hold, relative to it.
pub const MANIFEST_FILES: &[&str] = &[
    "Cargo.toml",
    "pyproject.toml",
    "setup.cfg",
    "package.json",
    "go.mod",
];

/// The container build beside a module's manifests: what its `COPY` puts in the image ships,
/// whatever the package build names.
pub const DOCKERFILE: &str = "Dockerfile";

/// Whether a module-relative file is a `.pth` file at the module's root: one the package
/// ships into site-packages (maturin's `include`) puts the directories it names on
/// `sys.path`, so the packages in them import by their own names (rerun's `rerun_sdk.pth`
/// makes `rerun_sdk/rerun` `rerun`).
pub fn is_path_file(rel: &str) -> bool {
    rel.ends_with(".pth") && !rel.contains('/')
}

/// The directories a `.pth` file's lines put on `sys.path`, relative to it: not a comment,
/// an `import` line (which site runs), an absolute path nor one above it.
fn path_file_dirs(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| {
            !(l.is_empty()
                || l.starts_with('#')
                || l.starts_with("import ")
                || l.starts_with("import\t")
                || l.starts_with('/')
                || l.contains(".."))
        })
        .map(|l| l.trim_start_matches("./").trim_end_matches('/').to_string())
        .filter(|l| !l.is_empty() && l != ".")
        .collect()
}

/// `-` → `_`: how a Rust package name is written in code.
pub fn rust_ident(name: &str) -> String {
    name.replace('-', "_")
}

/// Reads the facts from the module's own manifests. `files` are (path relative to the module
/// directory, contents) of the files named in [`MANIFEST_FILES`] found there; `python_files`
/// are the module-relative paths of its Python files (`__init__.py` marks a package).
pub fn read_facts(files: &[(&str, &str)], python_files: &[&str]) -> ManifestFacts {
    let mut f = ManifestFacts::default();
    let mut pyproject_table = None;
    let mut setup_cfg = None;
    let mut copied = Vec::new();
    let mut path_dirs = Vec::new();
    for (name, text) in files {
        if is_path_file(name) {
            path_dirs.extend(path_file_dirs(text));
        }
        match *name {
            DOCKERFILE => copied = docker_copied(text),
            "Cargo.toml" => cargo(text, &mut f),
            "pyproject.toml" => pyproject_table = pyproject(text, &mut f),
            "setup.cfg" => setup_cfg = Some(super::setup_cfg::read(text)),
            "package.json" => package_json(text, &mut f),
            _ => {}
        }
    }
    // setuptools reads setup.cfg for what pyproject.toml does not say.
    if let Some(cfg) = &setup_cfg {
        let named = |t: &toml::Table| {
            t.get("project")
                .and_then(|p| p.get("name"))
                .and_then(|n| n.as_str())
                .map(str::to_string)
        };
        let had_name = pyproject_table.as_ref().and_then(named).is_some();
        let merged = super::setup_cfg::merged(pyproject_table.take(), cfg);
        if !had_name && let Some(name) = named(&merged) {
            push(
                &mut f,
                Language::Python,
                name.to_lowercase().replace(['-', '.'], "_"),
            );
        }
        pyproject_table = Some(merged);
    }
    if !python_files.is_empty() {
        let shipped =
            super::python_packages::shipped(pyproject_table.as_ref(), python_files, &mut f.notes);
        // A package the build names but a build script copies in is still where the module's
        // shipped code lies: the files beside it (CI smoke scripts) are not shipped.
        let missing = shipped.missing.into_iter().map(|dir| (None, dir));
        for (name, dir) in shipped
            .packages
            .into_iter()
            .map(|(n, d)| (Some(n), d))
            .chain(missing)
        {
            if let Some(name) = name {
                // Below a directory a `.pth` file puts on `sys.path`, it is also imported by
                // the name it has there.
                let on_path = (path_dirs.iter())
                    .find_map(|d| name.strip_prefix(&format!("{}.", d.replace('/', "."))))
                    .map(str::to_string);
                push(&mut f, Language::Python, name);
                if let Some(short) = on_path {
                    push(&mut f, Language::Python, short);
                }
            }
            if shipped.declared && !f.python_shipped.contains(&dir) {
                f.python_shipped.push(dir);
            }
        }
        // An application's image copies directories the package build does not name
        // (ragflow's `COPY common common` beside `packages = ["api", "rag", …]`), and its
        // entrypoint runs them: they ship too.
        if shipped.declared {
            for dir in copied {
                let holds_python = (python_files.iter()).any(|p| {
                    p.strip_prefix(dir.as_str())
                        .is_some_and(|r| r.starts_with('/'))
                });
                if holds_python && !f.python_shipped.contains(&dir) {
                    f.python_shipped.push(dir);
                }
            }
        }
    }
    if f.provides.is_empty() && !files.iter().any(|(n, _)| *n == "go.mod") {
        f.notes
            .push("no language manifest (Cargo.toml, pyproject.toml, package.json, go.mod, or a Python package): it provides no import names".into());
    }
    f
}

/// The directories of the build context a Dockerfile's `COPY` and `ADD` instructions put in
/// the image, normalised (`./common/` and `/common` → `common`): not what they copy from
/// another stage (`--from=`) or a heredoc, nor the whole context (`.`), a glob, a variable or
/// a URL, nor a directory of tests, docs or examples (a test stage's `COPY tests tests`
/// ships nothing; nor does `COPY test_app test_app`). Shell form and JSON form; comment
/// lines and heredoc bodies are skipped, and a line ending in `\` (trailing blanks allowed)
/// continues.
fn docker_copied(text: &str) -> Vec<String> {
    const DEV_DIRS: &[&str] = &[
        "test",
        "tests",
        "testing",
        "doc",
        "docs",
        "example",
        "examples",
        "benchmark",
        "benchmarks",
        "notebook",
        "notebooks",
    ];
    let mut out: Vec<String> = Vec::new();
    for instruction in docker_instructions(text) {
        let instruction = instruction.trim_start();
        let mut words = instruction.split_whitespace();
        let Some(op) = words.next() else { continue };
        if !op.eq_ignore_ascii_case("copy") && !op.eq_ignore_ascii_case("add") {
            continue;
        }
        let rest = instruction[op.len()..].trim_start();
        if rest.contains("--from") || rest.contains("<<") {
            continue;
        }
        let tail: Vec<&str> = (rest.split_whitespace())
            .skip_while(|w| w.starts_with("--"))
            .collect();
        let joined = tail.join(" ");
        let args: Vec<String> = match joined.starts_with('[') {
            true => match serde_json::from_str(&joined) {
                Ok(list) => list,
                Err(_) => continue,
            },
            false => tail.iter().map(|w| w.to_string()).collect(),
        };
        let Some((_, sources)) = args.split_last() else {
            continue;
        };
        for src in sources {
            let parts: Vec<&str> = src
                .split('/')
                .filter(|c| !c.is_empty() && *c != ".")
                .collect();
            let plain = !parts.is_empty()
                && !src.contains(['*', '?', '$', ':'])
                && !parts
                    .iter()
                    .any(|c| *c == ".." || DEV_DIRS.contains(c) || test_named(c));
            let dir = parts.join("/");
            if plain && !out.contains(&dir) {
                out.push(dir);
            }
        }
    }
    out
}

/// Whether a directory's name says test by one of its words (`test_unstructured`,
/// `api-tests`): a test tree, whatever the package it tests is called.
pub fn test_named(dir: &str) -> bool {
    (dir.split(['_', '-'])).any(|w| matches!(w, "test" | "tests" | "testing"))
}

/// A Dockerfile's instructions, each on one line: continuation lines joined (a `\` at the
/// end, blanks after it allowed), comment lines and heredoc bodies (`RUN <<EOF` … `EOF`)
/// left out.
fn docker_instructions(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut heredoc: Option<String> = None;
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(end) = &heredoc {
            if line.trim() == end {
                heredoc = None;
            }
            continue;
        }
        if line.trim_start().starts_with('#') {
            continue;
        }
        let trimmed = line.trim_end();
        if let Some(body) = trimmed.strip_suffix('\\') {
            current.push_str(body);
            current.push(' ');
            continue;
        }
        current.push_str(trimmed);
        let instruction = std::mem::take(&mut current);
        if let Some(at) = instruction.find("<<") {
            let word = instruction[at + 2..]
                .trim_start_matches('-')
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_matches(['"', '\'']);
            // A heredoc's delimiter is a word (`EOF`), not an operand (`$((1<<2))`).
            let delimiter = word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if delimiter {
                heredoc = Some(word.to_string());
            }
        }
        out.push(instruction);
    }
    out
}

fn push(f: &mut ManifestFacts, lang: Language, name: String) {
    if !name.is_empty() && !f.provides.contains(&(lang, name.clone())) {
        f.provides.push((lang, name));
    }
}

fn cargo(text: &str, f: &mut ManifestFacts) {
    let table: toml::Table = match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => {
            f.notes.push(format!(
                "Cargo.toml is not valid TOML ({}): ignored",
                e.message().trim()
            ));
            return;
        }
    };
    if let Some(name) = table
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
    {
        let lib_name = table
            .get("lib")
            .and_then(|l| l.get("name"))
            .and_then(|n| n.as_str())
            .unwrap_or(name);
        push(f, Language::Rust, rust_ident(lib_name));
    }
    let mut dep_tables: Vec<&toml::Table> = Vec::new();
    for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
        if let Some(t) = table.get(key).and_then(|t| t.as_table()) {
            dep_tables.push(t);
        }
    }
    if let Some(targets) = table.get("target").and_then(|t| t.as_table()) {
        for spec in targets.values().filter_map(|t| t.as_table()) {
            for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
                if let Some(t) = spec.get(key).and_then(|t| t.as_table()) {
                    dep_tables.push(t);
                }
            }
        }
    }
    for deps in dep_tables {
        for (local, spec) in deps {
            if let Some(pkg) = spec.get("package").and_then(|p| p.as_str()) {
                let pair = (rust_ident(local), rust_ident(pkg));
                if !f.rust_renames.contains(&pair) {
                    f.rust_renames.push(pair);
                }
            } else if spec.get("workspace").and_then(|w| w.as_bool()) == Some(true)
                && !f.rust_workspace_deps.contains(local)
            {
                f.rust_workspace_deps.push(local.clone());
            }
        }
    }
    for key in ["bench", "example", "test"] {
        let targets = table.get(key).and_then(|t| t.as_array());
        for path in targets.into_iter().flatten().filter_map(|t| t.get("path")) {
            if let Some(p) = path.as_str() {
                f.rust_dev_paths
                    .push(p.trim_start_matches("./").to_string());
            }
        }
    }
}

/// Whether the package of this `Cargo.toml` has a library other crates can depend on: a
/// `[lib]` table, or `src/lib.rs` (`lib_file`, whether the package has it) unless
/// `autolib = false`. A package of binaries only (an example app) provides no crate name:
/// Cargo ignores a dependency on it, so an import of its name is another crate's (yew's
/// `examples/futures` beside the `futures` crate its packages use).
pub fn cargo_has_lib(table: &toml::Table, lib_file: bool) -> bool {
    let autolib = table
        .get("package")
        .and_then(|p| p.get("autolib"))
        .and_then(|a| a.as_bool())
        != Some(false);
    table.contains_key("lib") || (lib_file && autolib)
}

/// Where Cargo compiles a crate's code from, by its `Cargo.toml`: module-relative prefixes,
/// the directories it finds targets in by itself (`src/`, `tests/`, `benches/`, `examples/`)
/// and the directory of each target the manifest places (a `path` of `[lib]`, `[[bin]]`,
/// `[[test]]`, `[[bench]]`, `[[example]]`; `package.build`), and the crates it builds beside
/// itself (workspace members, path dependencies inside it). What a compiled file declares as
/// a module or includes is compiled too (see [`crate::place::rust_kept`]); other directories
/// hold data to Cargo (a project template's sources, a disabled bench suite). `None` when
/// that cannot be said: no `[package]` (a virtual workspace), a target at the crate's root
/// other than `build.rs` (whose modules may stand in any directory), or a workspace member
/// glob at the root. The caller parses the manifest (one that does not parse says nothing).
pub fn cargo_compiled(table: &toml::Table) -> Option<Vec<String>> {
    let package = table.get("package")?.as_table()?;
    let mut dirs: Vec<String> = ["src/", "tests/", "benches/", "examples/"]
        .map(String::from)
        .to_vec();
    let lib = table.get("lib").and_then(|l| l.get("path"));
    let listed = ["bin", "test", "bench", "example"]
        .iter()
        .filter_map(|k| table.get(*k)?.as_array())
        .flatten()
        .filter_map(|t| t.get("path"));
    let build = (package.get("build"))
        .filter(|b| b.as_str().map(|p| p.trim_start_matches("./")) != Some("build.rs"));
    for path in lib.into_iter().chain(listed).chain(build) {
        let Some(p) = path.as_str() else { continue };
        let p = p.trim_start_matches("./");
        match p.rsplit_once('/') {
            Some((dir, _)) if !dir.is_empty() && !dir.split('/').any(|d| d == "..") => {
                dirs.push(format!("{dir}/"));
            }
            _ => return None,
        }
    }
    // The crates it builds beside itself: its workspace's members (`crates/*`) and the path
    // dependencies inside it.
    let members = (table.get("workspace"))
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array());
    for m in members.into_iter().flatten().filter_map(|m| m.as_str()) {
        let m = m.trim_start_matches("./");
        let fixed = m.split(['*', '?', '[']).next().unwrap_or("");
        let glob = fixed.len() != m.len();
        let dir = match glob {
            false => m.trim_end_matches('/'),
            true => fixed.rsplit_once('/').map_or("", |(d, _)| d),
        };
        if dir.split('/').any(|d| d == "..") {
            continue;
        }
        match (dir.is_empty(), glob) {
            (true, true) => return None,
            (true, false) => {}
            (false, _) => dirs.push(format!("{dir}/")),
        }
    }
    let sections = ["dependencies", "dev-dependencies", "build-dependencies"];
    let mut dep_tables: Vec<&toml::Table> = (sections.iter())
        .filter_map(|k| table.get(*k)?.as_table())
        .collect();
    let targets = table.get("target").and_then(|t| t.as_table());
    for spec in targets.into_iter().flat_map(|t| t.values()) {
        dep_tables.extend(sections.iter().filter_map(|k| spec.get(*k)?.as_table()));
    }
    for dep in dep_tables.into_iter().flat_map(|t| t.values()) {
        let Some(p) = dep.get("path").and_then(|p| p.as_str()) else {
            continue;
        };
        let p = p.trim_start_matches("./").trim_end_matches('/');
        if !p.is_empty() && p != "." && !p.split('/').any(|d| d == "..") {
            dirs.push(format!("{p}/"));
        }
    }
    dirs.sort();
    dirs.dedup();
    Some(dirs)
}

/// The module-relative directories of the targets a `Cargo.toml` ships from where it places
/// them itself (`[lib]`, `[[bin]]` and `build` paths): a dev target beside one (`[[test]]
/// path = "rust/it.rs"` beside `[lib] path = "rust/lib.rs"`) does not make its directory
/// test code.
pub fn cargo_shipped_dirs(table: &toml::Table) -> Vec<String> {
    let lib = table.get("lib").and_then(|l| l.get("path"));
    let bins = (table
        .get("bin")
        .and_then(|b| b.as_array())
        .into_iter()
        .flatten())
    .filter_map(|t| t.get("path"));
    let build = table.get("package").and_then(|p| p.get("build"));
    lib.into_iter()
        .chain(bins)
        .chain(build)
        .filter_map(|p| p.as_str())
        .filter_map(|p| p.trim_start_matches("./").rsplit_once('/'))
        .map(|(dir, _)| format!("{dir}/"))
        .collect()
}

/// The renames a workspace's `Cargo.toml` gives the dependencies its members inherit:
/// `[workspace.dependencies] bee = { package = "b-crate", … }` → (`bee`, `b_crate`) for each of
/// `inherited` it renames.
pub fn workspace_renames(text: &str, inherited: &[String]) -> Vec<(String, String)> {
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return Vec::new();
    };
    let Some(deps) = table
        .get("workspace")
        .and_then(|w| w.get("dependencies"))
        .and_then(|d| d.as_table())
    else {
        return Vec::new();
    };
    inherited
        .iter()
        .filter_map(|local| {
            let pkg = deps.get(local)?.get("package")?.as_str()?;
            Some((rust_ident(local), rust_ident(pkg)))
        })
        .collect()
}

/// The `[project] name`, and the table for reading which packages it ships.
fn pyproject(text: &str, f: &mut ManifestFacts) -> Option<toml::Table> {
    let table: toml::Table = match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => {
            f.notes.push(format!(
                "pyproject.toml is not valid TOML ({}): ignored",
                e.message().trim()
            ));
            return None;
        }
    };
    if let Some(name) = table
        .get("project")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
    {
        push(
            f,
            Language::Python,
            name.to_lowercase().replace(['-', '.'], "_"),
        );
    }
    Some(table)
}

fn package_json(text: &str, f: &mut ManifestFacts) {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => {
            if let Some(name) = v.get("name").and_then(|n| n.as_str()) {
                push(f, Language::Js, name.to_string());
            }
        }
        Err(e) => f
            .notes
            .push(format!("package.json is not valid JSON ({e}): ignored")),
    }
}

/// Whether a `Cargo.toml` declares a `[workspace]` of its own (a root, or a crate such as
/// cargo-fuzz's `fuzz/` that keeps itself out of any workspace above it).
pub fn cargo_declares_workspace(text: &str) -> bool {
    text.lines()
        .any(|l| l.trim() == "[workspace]" || l.trim().starts_with("[workspace."))
}

/// The directories a workspace's `Cargo.toml` keeps out of it (`[workspace] exclude`),
/// relative to it, without `./` or a trailing `/`.
pub fn cargo_workspace_excludes(text: &str) -> Vec<String> {
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return Vec::new();
    };
    table
        .get("workspace")
        .and_then(|w| w.get("exclude"))
        .and_then(|e| e.as_array())
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str())
        .map(|p| p.trim_start_matches("./").trim_end_matches('/').to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The `module` path a `go.mod` declares.
pub fn go_module_path(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let l = l.split("//").next().unwrap_or("").trim();
        let rest = l.strip_prefix("module")?;
        if !rest.starts_with(char::is_whitespace) {
            return None;
        }
        let p = rest.trim().trim_matches('"');
        (!p.is_empty()).then(|| p.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_package_with_a_library_can_be_depended_on() {
        let t = |s: &str| toml::from_str::<toml::Table>(s).unwrap();
        let bin = t("[package]\nname = \"futures\"\n");
        assert!(!cargo_has_lib(&bin, false));
        assert!(cargo_has_lib(&bin, true));
        assert!(cargo_has_lib(
            &t("[package]\nname = \"x\"\n[lib]\npath = \"lib.rs\"\n"),
            false
        ));
        assert!(!cargo_has_lib(
            &t("[package]\nname = \"x\"\nautolib = false\n"),
            true
        ));
    }

    #[test]
    fn a_path_file_at_the_root_puts_its_directories_packages_on_sys_path() {
        // rerun's `rerun_sdk.pth` names `rerun_sdk`, a namespace holding `rerun`; comments,
        // `import` lines, absolute paths and a parent's are no such directory.
        let f = read_facts(
            &[
                ("pyproject.toml", "[project]\nname = \"rerun-sdk\"\n"),
                (
                    "rerun_sdk.pth",
                    "# the sdk\nrerun_sdk\nimport site\n/opt/x\n../up\n",
                ),
            ],
            &[
                "rerun_sdk/rerun/__init__.py",
                "rerun_sdk/rerun_cli/__init__.py",
            ],
        );
        let names: Vec<&str> = (f.provides.iter()).map(|(_, n)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "rerun_sdk",
                "rerun_sdk.rerun",
                "rerun",
                "rerun_sdk.rerun_cli",
                "rerun_cli"
            ]
        );
        assert!(is_path_file("rerun_sdk.pth"));
        assert!(!is_path_file("sub/x.pth"));
    }

    #[test]
    fn cargo_name_and_renames() {
        let f = read_facts(
            &[(
                "Cargo.toml",
                r#"
[package]
name = "route-proxy"
[dependencies]
core = { package = "mesh-core", path = "../core" }
serde = "1"
[target.'cfg(unix)'.dependencies]
nix2 = { package = "nix", version = "1" }
"#,
            )],
            &[],
        );
        assert_eq!(
            f.provides,
            vec![(Language::Rust, "route_proxy".to_string())]
        );
        assert_eq!(
            f.rust_renames,
            vec![
                ("core".to_string(), "mesh_core".to_string()),
                ("nix2".to_string(), "nix".to_string())
            ]
        );
    }

    #[test]
    fn cargo_targets_and_workspace_inheritance() {
        let f = read_facts(
            &[(
                "Cargo.toml",
                "[package]\nname = \"benches\"\n[dependencies]\nbee = { workspace = true }\n[[bench]]\nname = \"fs\"\npath = \"fs.rs\"\n[[example]]\nname = \"e\"\npath = \"./demo/e.rs\"\n",
            )],
            &[],
        );
        assert_eq!(f.rust_dev_paths, ["fs.rs", "demo/e.rs"]);
        assert_eq!(f.rust_workspace_deps, ["bee"]);
        let root = "[workspace]\nmembers = [\"a\"]\n[workspace.dependencies]\nbee = { path = \"b\", package = \"b-crate\" }\nplain = \"1\"\n";
        assert_eq!(
            workspace_renames(root, &["bee".into(), "plain".into()]),
            [("bee".to_string(), "b_crate".to_string())]
        );
        assert!(workspace_renames("[package", &["bee".into()]).is_empty());
    }

    #[test]
    fn cargo_compiles_from_its_target_directories_only() {
        let dirs = |t: &str| toml::from_str(t).ok().and_then(|t| cargo_compiled(&t));
        let plain = "[package]\nname = \"cli\"\n";
        assert_eq!(
            dirs(plain).unwrap(),
            ["benches/", "examples/", "src/", "tests/"]
        );
        // ripgrep's binary at `crates/core/main.rs`; a fuzz target; a build script in `build/`.
        let placed = "[package]\nname = \"rg\"\nbuild = \"build/main.rs\"\n[[bin]]\nname = \"rg\"\npath = \"crates/core/main.rs\"\n[[bin]]\nname = \"f\"\npath = \"./fuzz_targets/f.rs\"\n";
        let d = dirs(placed).unwrap();
        for dir in ["build/", "crates/core/", "fuzz_targets/", "src/"] {
            assert!(d.contains(&dir.to_string()), "{dir}: {d:?}");
        }
        // The default build script at the root is no reason to read every directory.
        assert!(dirs("[package]\nname = \"a\"\nbuild = \"build.rs\"\n").is_some());
        // A root package that is a workspace too builds its members and path dependencies.
        let ws = "[package]\nname = \"app\"\n\n[dependencies]\nhelper = { path = \"crates/helper\" }\nup = { path = \"../up\" }\n\n[workspace]\nmembers = [\"crates/*\", \"tools/gen\"]\n";
        let d = dirs(ws).unwrap();
        for dir in ["crates/", "crates/helper/", "tools/gen/"] {
            assert!(d.contains(&dir.to_string()), "{dir}: {d:?}");
        }
        assert!(!d.iter().any(|x| x.contains("..")), "{d:?}");
        assert_eq!(
            cargo_shipped_dirs(
                &toml::from_str(
                    "[package]\nname = \"a\"\n[lib]\npath = \"rust/lib.rs\"\n[[test]]\nname = \"it\"\npath = \"rust/it.rs\"\n"
                )
                .expect("valid TOML")
            ),
            ["rust/"]
        );
        // A library at the root may have modules anywhere; a virtual workspace compiles
        // nothing itself; a manifest that does not parse says nothing.
        assert!(dirs("[package]\nname = \"a\"\n[lib]\npath = \"lib.rs\"\n").is_none());
        assert!(dirs("[package]\nname = \"a\"\n[[bin]]\npath = \"../x/main.rs\"\n").is_none());
        assert!(dirs("[workspace]\nmembers = [\"a\"]\n").is_none());
        assert!(dirs("[package").is_none());
    }

    #[test]
    fn python_and_js() {
        let f = read_facts(
            &[
                ("pyproject.toml", "[project]\nname = \"Inventory-Client\"\n"),
                ("package.json", r#"{"name": "@mesh/ui"}"#),
            ],
            &["inventory/__init__.py"],
        );
        assert_eq!(
            f.provides,
            vec![
                (Language::Python, "inventory_client".to_string()),
                (Language::Js, "@mesh/ui".to_string()),
                (Language::Python, "inventory".to_string()),
            ]
        );
    }

    #[test]
    fn what_an_image_copies_ships() {
        let docker = "FROM python AS base\nCOPY pyproject.toml uv.lock ./\nCOPY --from=builder /venv /venv\nCOPY api api\nCOPY ./common/ common\nADD tools/scripts \\\n    tools/scripts\nCOPY . /src\nCOPY [\"admin\", \"/app/admin\"]\nCOPY docs docs\nCOPY tests tests\nCOPY test_app test_app\nCOPY contest contest\n";
        assert_eq!(
            docker_copied(docker),
            [
                "pyproject.toml",
                "uv.lock",
                "api",
                "common",
                "tools/scripts",
                "admin",
                "contest"
            ]
        );
        // A comment ending in `\` continues nothing; blanks after a `\` still continue;
        // a heredoc's body is no instruction; a leading `/` is the context's root.
        let odd = "# copy the connectors \\\r\nCOPY common common\r\nCOPY api \\  \n  /memory/./ /app/\nRUN <<EOF\nadd secret secret\nEOF\nCOPY <<EOF /app/x\nhi\nEOF\nonbuild COPY later later\n";
        assert_eq!(docker_copied(odd), ["common", "api", "memory"]);
        // Indented instructions; a shift is no heredoc.
        let shifted = "RUN echo $((1<<2))\n  COPY common common\n";
        assert_eq!(docker_copied(shifted), ["common"]);
        let py = "[project]\nname = \"app\"\n[tool.setuptools]\npackages = [\"api\"]\n";
        let files = [
            "api/__init__.py",
            "common/conn.py",
            "tools/scripts/migrate.py",
            "tests/test_api.py",
        ];
        let f = read_facts(&[("pyproject.toml", py), (DOCKERFILE, docker)], &files);
        assert_eq!(f.python_shipped, ["api", "common", "tools/scripts"]);
        assert!(!f.python_shipped.iter().any(|d| d == "tests"));
        // Where the build names no packages, nothing is dev for standing outside them.
        let f = read_facts(
            &[
                ("pyproject.toml", "[project]\nname = \"app\"\n"),
                (DOCKERFILE, docker),
            ],
            &files,
        );
        assert!(f.python_shipped.is_empty(), "{:?}", f.python_shipped);
    }

    #[test]
    fn setup_cfg_packages_and_name() {
        let cfg = "[metadata]\nname = acme-billing\n[options]\npackage_dir =\n    = src\npackages = find:\n[options.packages.find]\nwhere = src\n";
        let f = read_facts(
            &[("setup.cfg", cfg)],
            &[
                "src/acme_billing/__init__.py",
                "src/acme_billing/api.py",
                "tests/test_api.py",
            ],
        );
        assert_eq!(
            f.provides,
            vec![(Language::Python, "acme_billing".to_string()),]
        );
        assert_eq!(f.python_shipped, ["src/acme_billing"]);
        // Beside a pyproject.toml that names the project, setup.cfg adds its packages.
        let f = read_facts(
            &[
                ("pyproject.toml", "[project]\nname = \"billing\"\n"),
                (
                    "setup.cfg",
                    "[options]\npackages = acme_billing\npackage_dir =\n    = src\n",
                ),
            ],
            &["src/acme_billing/__init__.py", "scripts/tool.py"],
        );
        assert_eq!(
            f.provides,
            vec![
                (Language::Python, "billing".to_string()),
                (Language::Python, "acme_billing".to_string()),
            ]
        );
        assert_eq!(f.python_shipped, ["src/acme_billing"]);
    }

    #[test]
    fn bad_manifests_are_notes_not_errors() {
        let f = read_facts(&[("Cargo.toml", "[package"), ("package.json", "{")], &[]);
        assert!(f.provides.is_empty());
        assert_eq!(f.notes.len(), 3);
    }

    #[test]
    fn nested_workspaces_and_excludes() {
        // cargo-fuzz writes this into fuzz/Cargo.toml.
        let fuzz = "[package]\nname = \"x-fuzz\"\n\n# Prevent this from interfering with workspaces\n[workspace]\nmembers = [\".\"]\n";
        assert!(cargo_declares_workspace(fuzz));
        assert!(!cargo_declares_workspace("[package]\nname = \"a\"\n"));
        let root =
            "[workspace]\nmembers = [\"crates/*\"]\nexclude = [\"./fuzz/\", \"tools/gen\", \"\"]\n";
        assert_eq!(cargo_workspace_excludes(root), ["fuzz", "tools/gen"]);
        assert!(cargo_workspace_excludes("[package").is_empty());
    }

    #[test]
    fn go_mod() {
        assert_eq!(
            go_module_path("// x\nmodule example.com/platform // c\n\ngo 1.22\n").as_deref(),
            Some("example.com/platform")
        );
        assert_eq!(go_module_path("modules x\n"), None);
    }
}
