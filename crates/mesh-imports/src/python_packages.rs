//! Which Python packages a module ships: the import names it provides and the directories
//! whose files are part of its artifact. Read from `pyproject.toml` when it says
//! (setuptools, hatch, poetry, flit, uv_build, maturin), else the package directories at its
//! root or under `src/`, never tests, docs or examples. A PEP 420 namespace (no
//! `__init__.py`) is provided down to its first regular package, never bare.

use std::collections::BTreeSet;

/// Directory names that are never a shipped package when inferred.
const NOT_PACKAGES: &[&str] = &[
    "tests",
    "test",
    "docs",
    "doc",
    "examples",
    "example",
    "benchmarks",
    "scripts",
    "src",
];

/// (dotted import name, module-relative directory or `.py` file) of every package shipped.
/// `files` are the module's Python files, module-relative. Names the pyproject gives that do
/// not exist are left out with a note.
pub fn shipped(
    pyproject: Option<&toml::Table>,
    files: &[&str],
    notes: &mut Vec<String>,
) -> Shipped {
    let packages: BTreeSet<&str> = files
        .iter()
        .filter_map(|f| {
            f.strip_suffix("/__init__.py")
                .or(f.strip_suffix("/__init__.pyi"))
        })
        .collect();
    let tree = Tree {
        packages: &packages,
        files,
    };
    let mut missing = Vec::new();
    let declared = pyproject
        .map(|t| declared(t, &tree, notes, &mut missing))
        .unwrap_or_default();
    let by_pyproject = declared.is_some();
    let mut out = match declared {
        Some(found) => found,
        None => {
            let roots = pyproject
                .and_then(|t| lookup(t, &["tool", "maturin", "python-source"]))
                .and_then(|v| v.as_str())
                .map_or_else(
                    || vec!["".to_string(), "src".to_string()],
                    |r| vec![r.to_string()],
                );
            roots
                .iter()
                .flat_map(|r| tree.infer(r, &[], &[], 2, Skip::Anywhere))
                .collect()
        }
    };
    out.sort();
    out.dedup();
    Shipped {
        packages: out,
        declared: by_pyproject,
        missing,
    }
}

/// What a module ships.
pub struct Shipped {
    /// (dotted import name, module-relative directory or `.py` file) of every package.
    pub packages: Vec<(String, String)>,
    /// Whether `pyproject.toml` named them (then the module's other Python files are not part
    /// of what it ships); inferred packages say nothing of a service's `main.py` beside them.
    pub declared: bool,
    /// The module-relative directories of packages the build names that are not here (a
    /// build script copies them in): what the module ships lies there, not in the files
    /// beside them.
    pub missing: Vec<String>,
}

/// Which directory names [`NOT_PACKAGES`] keeps out of what [`Tree::infer`] finds.
#[derive(Clone, Copy, PartialEq)]
enum Skip {
    /// Any part of the path (inferred packages: a `tests/` is never shipped by guess).
    Anywhere,
    /// The top part only: setuptools' `packages.find` names where to look, and ships a
    /// namespace's `opentelemetry/test/` package, but a top-level `tests/` found there is
    /// the usual accident, not a package.
    Top,
    /// None: a namespace directory the build names whole (hatch `packages = ["src/ns"]`)
    /// ships every package below it, a `test/` one too (opentelemetry-test-utils'
    /// `opentelemetry.test`).
    Nothing,
}

impl Skip {
    /// Whether the path `segments` (below the root looked in) is kept out.
    fn skips(self, segments: &[&str]) -> bool {
        let not = |s: &&str| NOT_PACKAGES.contains(s) || s.is_empty();
        match self {
            Skip::Anywhere => segments.iter().any(not),
            Skip::Top => segments.first().is_some_and(not) || segments.iter().any(|s| s.is_empty()),
            Skip::Nothing => segments.iter().any(|s| s.is_empty()),
        }
    }
}

/// The module's Python files and package directories.
struct Tree<'a> {
    packages: &'a BTreeSet<&'a str>,
    files: &'a [&'a str],
}

impl Tree<'_> {
    /// Whether `dir` holds any Python package (itself or below: a namespace).
    fn holds_packages(&self, dir: &str) -> bool {
        let below = format!("{dir}/");
        self.packages
            .iter()
            .any(|p| *p == dir || p.starts_with(&below))
            || self.files.iter().any(|f| f.starts_with(&below))
    }

    /// Whether a regular package lies below `dir`.
    fn holds_regular(&self, dir: &str) -> bool {
        let below = format!("{dir}/");
        self.packages.iter().any(|p| p.starts_with(&below))
    }

    /// Whether some directory from `prefix` down to `dir` (inclusive) is a regular package.
    fn regular_at_or_above(&self, prefix: &str, segments: &[&str]) -> bool {
        (1..=segments.len()).any(|k| {
            self.packages
                .contains(format!("{prefix}{}", segments[..k].join("/")).as_str())
        })
    }

    /// The packages found under `root`: each top-level directory that is a package, and for a
    /// namespace directory the first regular package down each path and the modules (`.py`
    /// files) directly in it, when at least `min_depth` segments deep (2 at a module's root,
    /// where a lone `setup.py` is no module it ships). `include`/`exclude` are globs over
    /// dotted names (setuptools' `packages.find`); `skip` says where [`NOT_PACKAGES`] apply.
    fn infer(
        &self,
        root: &str,
        include: &[String],
        exclude: &[String],
        min_depth: usize,
        skip: Skip,
    ) -> Vec<(String, String)> {
        let prefix = if root.is_empty() {
            String::new()
        } else {
            format!("{root}/")
        };
        let mut out = Vec::new();
        for pkg in self.packages.iter() {
            let Some(rel) = pkg.strip_prefix(prefix.as_str()) else {
                continue;
            };
            let segments: Vec<&str> = rel.split('/').collect();
            if skip.skips(&segments) {
                continue;
            }
            // The first regular package on its path: no package directory above it under root.
            if self.regular_at_or_above(&prefix, &segments[..segments.len() - 1]) {
                continue;
            }
            let name = segments.join(".");
            if selected(&name, include, exclude) {
                out.push((name, pkg.to_string()));
            }
        }
        // Modules directly in a namespace directory: `ns/sub/tool.py` is `ns.sub.tool`.
        for file in self.files {
            let Some(rel) = file.strip_prefix(prefix.as_str()) else {
                continue;
            };
            let Some(stem) = rel.strip_suffix(".py") else {
                continue;
            };
            let segments: Vec<&str> = stem.split('/').collect();
            let (dirs, last) = segments.split_at(segments.len() - 1);
            let skip = segments.len() < min_depth
                || last[0] == "__init__"
                || last[0].starts_with("test_")
                || last[0] == "conftest"
                || skip.skips(&segments)
                || self.regular_at_or_above(&prefix, dirs)
                // Inferred, a directory is a namespace only when it holds a regular package
                // somewhere (`tools/gen.py` beside no package is no namespace).
                || (min_depth >= 2 && !self.holds_regular(&format!("{prefix}{}", segments[0])));
            if skip {
                continue;
            }
            let name = segments.join(".");
            if selected(&name, include, exclude) {
                out.push((name, file.to_string()));
            }
        }
        out
    }

    /// A dotted package or module name under `base`: its directory (a package or a namespace
    /// holding packages) or its `.py` file, if the module has it.
    fn find(&self, base: &str, name: &str) -> Option<String> {
        let rel = name.replace('.', "/");
        let dir = if base.is_empty() {
            rel
        } else {
            format!("{base}/{rel}")
        };
        if self.holds_packages(&dir) {
            return Some(dir);
        }
        let file = format!("{dir}.py");
        self.files.contains(&file.as_str()).then_some(file)
    }
}

/// Whether a dotted name passes setuptools-style `include` (none: all) and `exclude` globs.
fn selected(name: &str, include: &[String], exclude: &[String]) -> bool {
    let matches = |globs: &[String]| {
        globs.iter().any(|g| {
            globset::Glob::new(g)
                .map(|g| g.compile_matcher().is_match(name))
                .unwrap_or(false)
        })
    };
    (include.is_empty() || matches(include)) && !matches(exclude)
}

/// The packages `pyproject.toml` names, or `None` when it names none (then they are inferred).
fn declared(
    t: &toml::Table,
    tree: &Tree,
    notes: &mut Vec<String>,
    missing: &mut Vec<String>,
) -> Option<Vec<(String, String)>> {
    let mut named = Named::default();
    if let Some(found) = setuptools(t, tree, &mut named) {
        return Some(found);
    }
    hatch(t, &mut named);
    poetry(t, tree, &mut named);
    flit(t, &mut named);
    uv_build(t, &mut named);
    if !named.any {
        return None;
    }
    let found = located(&named.pairs, tree, notes, missing);
    Some(namespaces_expanded(found, tree))
}

/// The packages the build backends in `pyproject.toml` name, before they are looked up.
#[derive(Default)]
struct Named {
    /// (dotted name, base directory) pairs, in the order the backends name them.
    pairs: Vec<(String, String)>,
    /// Whether any backend names packages at all (an empty setuptools `packages = []` does):
    /// if none does, the packages are inferred instead.
    any: bool,
}

/// The strings of a TOML array (none if it is absent or not an array).
fn strings(v: Option<&toml::Value>) -> Vec<String> {
    v.and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// setuptools: `packages = [...]` and `py-modules` under `package-dir`'s root go to `named`.
/// A `packages.find` decides the whole answer: its packages are returned, found in the tree,
/// and no other backend is read.
fn setuptools(t: &toml::Table, tree: &Tree, named: &mut Named) -> Option<Vec<(String, String)>> {
    let st = lookup(t, &["tool", "setuptools"])?;
    let base = st
        .get("package-dir")
        .and_then(|d| d.get(""))
        .and_then(|d| d.as_str())
        .unwrap_or("")
        .trim_end_matches('/')
        .to_string();
    match st.get("packages") {
        Some(toml::Value::Array(_)) => {
            named.any = true;
            named.pairs.extend(
                strings(st.get("packages"))
                    .into_iter()
                    .map(|n| (n, base.clone())),
            );
        }
        Some(toml::Value::Table(p)) => {
            if let Some(find) = p.get("find") {
                return Some(setuptools_find(find, tree));
            }
        }
        _ => {}
    }
    let modules = strings(st.get("py-modules"));
    named.any |= !modules.is_empty();
    named
        .pairs
        .extend(modules.into_iter().map(|n| (n, base.clone())));
    None
}

/// hatch: `packages = ["src/foo"]` (the last segment is the name, the rest its base).
fn hatch(t: &toml::Table, named: &mut Named) {
    for path in [
        &["tool", "hatch", "build", "targets", "wheel", "packages"][..],
        &["tool", "hatch", "build", "packages"][..],
    ] {
        for p in strings(lookup(t, path)) {
            named.any = true;
            let p = p.trim_end_matches('/');
            let (base, name) = p.rsplit_once('/').unwrap_or(("", p));
            named.pairs.push((name.to_string(), base.to_string()));
        }
    }
}

/// poetry: `packages = [{ include = "foo", from = "src" }]` (a `.py` include is a module);
/// without `packages`, when poetry builds, the package named as the project is (`my-app` →
/// `my_app`, at the root or under `src`), as poetry's own default: what else the module holds
/// (mealie's `dev/` scripts) is not in the wheel.
fn poetry(t: &toml::Table, tree: &Tree, named: &mut Named) {
    let Some(pkgs) = lookup(t, &["tool", "poetry", "packages"]).and_then(|v| v.as_array()) else {
        let backend = lookup(t, &["build-system", "build-backend"]).and_then(|b| b.as_str());
        let name = lookup(t, &["tool", "poetry", "name"])
            .or_else(|| lookup(t, &["project", "name"]))
            .and_then(|n| n.as_str());
        // An application (`package-mode = false`) builds nothing; and a project whose
        // package is not where poetry looks is left to inference.
        let application =
            lookup(t, &["tool", "poetry", "package-mode"]).and_then(|m| m.as_bool()) == Some(false);
        if let (Some(name), Some(backend)) = (name, backend)
            && backend.starts_with("poetry")
            && !application
        {
            let name = name.to_ascii_lowercase().replace(['-', '.'], "_");
            for base in ["", "src"] {
                if tree.find(base, &name).is_some() {
                    named.any = true;
                    named.pairs.push((name.clone(), base.to_string()));
                }
            }
        }
        return;
    };
    for p in pkgs {
        if let Some(include) = p.get("include").and_then(|i| i.as_str()) {
            named.any = true;
            let from = p.get("from").and_then(|f| f.as_str()).unwrap_or("");
            let name = include.trim_end_matches(".py").replace('/', ".");
            named
                .pairs
                .push((name, from.trim_end_matches('/').to_string()));
        }
    }
}

/// flit: `[tool.flit.module] name`, at the module's root or under `src`.
fn flit(t: &toml::Table, named: &mut Named) {
    if let Some(name) = lookup(t, &["tool", "flit", "module", "name"]).and_then(|n| n.as_str()) {
        named.any = true;
        named.pairs.push((name.to_string(), String::new()));
        named.pairs.push((name.to_string(), "src".to_string()));
    }
}

/// uv_build: `module-name` (one or several) under `module-root` (default `src`).
fn uv_build(t: &toml::Table, named: &mut Named) {
    let Some(uv) = lookup(t, &["tool", "uv", "build-backend"]) else {
        return;
    };
    let root = uv
        .get("module-root")
        .and_then(|r| r.as_str())
        .unwrap_or("src")
        .trim_end_matches('/')
        .to_string();
    let names = match uv.get("module-name") {
        Some(toml::Value::String(s)) => vec![s.clone()],
        v => strings(v),
    };
    for n in names {
        named.any = true;
        named.pairs.push((n, root.clone()));
    }
}

/// The named packages the module has, as (name, directory or `.py` file); a name found under
/// none of its bases is left out with a note, so a typo in `pyproject.toml` is seen.
fn located(
    named: &[(String, String)],
    tree: &Tree,
    notes: &mut Vec<String>,
    missing_dirs: &mut Vec<String>,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut missing = BTreeSet::new();
    for (name, base) in named {
        match tree.find(base, name) {
            Some(dir) => out.push((name.clone(), dir)),
            None => {
                missing.insert(name.clone());
            }
        }
    }
    for name in &missing {
        if !out.iter().any(|(n, _)| n == name) {
            for (_, base) in named.iter().filter(|(n, _)| n == name) {
                let dir = name.replace('.', "/");
                missing_dirs.push(match base.as_str() {
                    "" => dir,
                    base => format!("{base}/{dir}"),
                });
            }
        }
    }
    for name in missing {
        if !out.iter().any(|(n, _)| *n == name) {
            notes.push(format!(
                "pyproject.toml names the package `{name}`, which is not in the module: left out"
            ));
        }
    }
    out
}

/// A namespace named whole provides its first regular packages, never the bare namespace:
/// packages and `.py` files stay as they are, a namespace directory becomes what it holds.
fn namespaces_expanded(found: Vec<(String, String)>, tree: &Tree) -> Vec<(String, String)> {
    let mut resolved = Vec::new();
    for (name, dir) in found {
        if dir.ends_with(".py") || tree.packages.contains(dir.as_str()) {
            resolved.push((name, dir));
        } else {
            let below = tree.infer(&dir, &[], &[], 1, Skip::Nothing);
            resolved.extend(below.into_iter().map(|(n, d)| (format!("{name}.{n}"), d)));
        }
    }
    resolved
}

/// setuptools' `[tool.setuptools.packages.find]`: `where`, `include`, `exclude`.
fn setuptools_find(find: &toml::Value, tree: &Tree) -> Vec<(String, String)> {
    let mut roots = strings(find.get("where"));
    if roots.is_empty() {
        roots.push(String::new());
    }
    let include = strings(find.get("include"));
    let exclude = strings(find.get("exclude"));
    roots
        .iter()
        .map(|r| {
            let r = r.trim_end_matches('/').trim_start_matches("./");
            if r == "." {
                String::new()
            } else {
                r.to_string()
            }
        })
        .flat_map(|r| tree.infer(&r, &include, &exclude, 2, Skip::Top))
        .collect()
}

/// Globs (module-relative) over the paths the build puts in the source distribution only:
/// pdm's `[tool.pdm.build] source-includes` and flit's `[tool.flit.sdist] include`. They
/// never reach the wheel, so a file there (fastapi's tested `docs_src/` examples, its
/// `scripts/`) is no more shipped code than a test is, whatever its directory is called.
pub fn sdist_only(pyproject_text: &str) -> Vec<String> {
    let Ok(t) = toml::from_str::<toml::Table>(pyproject_text) else {
        return Vec::new();
    };
    // flit's wheel holds its module whatever the sdist list says, and mesh may know that
    // module only by inference: a glob at the root (`*.py`) would take it too.
    let flit = strings(lookup(&t, &["tool", "flit", "sdist", "include"]))
        .into_iter()
        .filter(|e| e.contains('/') || !e.contains(['*', '?', '[']));
    strings(lookup(&t, &["tool", "pdm", "build", "source-includes"]))
        .into_iter()
        .chain(flit)
        .flat_map(|entry| {
            let entry = entry.trim_start_matches("./").trim_matches('/').to_string();
            // An entry is a file, a directory (everything below it) or a glob of either.
            let below = format!("{entry}/**");
            [entry, below]
        })
        .filter(|g| !g.is_empty() && g != "/**" && !g.starts_with("**"))
        .collect()
}

/// The files of a pyproject's custom hatch hooks (module-relative): each `custom` hook of
/// `[tool.hatch.build.hooks]`, `[tool.hatch.build.targets.<target>.hooks]` and
/// `[tool.hatch.metadata.hooks]`, at its `path` or hatch's default `hatch_build.py`. Hatchling
/// runs them while it builds, in the environment `[build-system] requires` makes; what they
/// import is the build's, not the package's, even when a broad `include` copies the file
/// into the wheel (onyx's CLI).
pub fn build_hooks(pyproject_text: &str) -> Vec<String> {
    let Ok(t) = toml::from_str::<toml::Table>(pyproject_text) else {
        return Vec::new();
    };
    let targets = lookup(&t, &["tool", "hatch", "build", "targets"])
        .and_then(|v| v.as_table())
        .into_iter()
        .flat_map(|targets| targets.values())
        .filter_map(|target| target.get("hooks"));
    let hooks = [
        lookup(&t, &["tool", "hatch", "build", "hooks"]),
        lookup(&t, &["tool", "hatch", "metadata", "hooks"]),
    ];
    let mut out: Vec<String> = (hooks.into_iter().flatten().chain(targets))
        .filter_map(|hooks| hooks.get("custom"))
        .filter_map(hatch_custom_hook_file)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The module-relative file of a hatch `custom` hook table: its `path`, else hatch's
/// default `hatch_build.py`; none for an empty path or one leaving the module.
pub fn hatch_custom_hook_file(custom: &toml::Value) -> Option<String> {
    let path = custom.get("path").and_then(|p| p.as_str());
    let path = path.unwrap_or("hatch_build.py").trim_start_matches("./");
    (!path.is_empty() && !path.contains("..")).then(|| path.to_string())
}

/// The value at a path of keys.
fn lookup<'a>(t: &'a toml::Table, path: &[&str]) -> Option<&'a toml::Value> {
    let (first, rest) = path.split_first()?;
    let mut v = t.get(*first)?;
    for k in rest {
        v = v.get(*k)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_hooks_are_hatch_custom_hooks_at_their_paths() {
        let targets = "[tool.hatch.build.targets.wheel.hooks.custom]\npath = \"hatch_build.py\"\n";
        assert_eq!(build_hooks(targets), ["hatch_build.py"]);
        let default = "[tool.hatch.build.hooks.custom]\n[tool.hatch.metadata.hooks.custom]\npath = \"./scripts/meta.py\"\n";
        assert_eq!(build_hooks(default), ["hatch_build.py", "scripts/meta.py"]);
        // A plugin's hook (not `custom`) runs the plugin's code, not a file of the project's.
        let plugin = "[tool.hatch.build.hooks.vcs]\nversion-file = \"v.py\"\n";
        assert!(build_hooks(plugin).is_empty());
        assert!(build_hooks("[tool.hatch.build.hooks.custom]\npath = \"../x.py\"\n").is_empty());
    }

    fn run(pyproject: &str, files: &[&str]) -> (Vec<(String, String)>, Vec<String>) {
        let t: Option<toml::Table> = (!pyproject.is_empty())
            .then(|| toml::from_str(pyproject).expect("test pyproject parses"));
        let mut notes = Vec::new();
        (shipped(t.as_ref(), files, &mut notes).packages, notes)
    }

    fn pairs(v: &[(String, String)]) -> Vec<(&str, &str)> {
        v.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
    }

    #[test]
    fn inferred_flat_and_src_layouts_skip_tests_and_docs() {
        let (got, _) = run(
            "",
            &[
                "pkg/__init__.py",
                "pkg/sub/__init__.py",
                "src/other/__init__.py",
                "tests/__init__.py",
                "tests/cli/__init__.py",
                "docs/conf.py",
                "setup.py",
            ],
        );
        assert_eq!(pairs(&got), [("other", "src/other"), ("pkg", "pkg")]);
    }

    #[test]
    fn namespace_packages_down_to_the_first_regular_one() {
        let (got, _) = run(
            "",
            &[
                "azure/storage/blob/__init__.py",
                "azure/storage/blob/_inner/__init__.py",
                "azure/storage/blob/aio/client.py",
            ],
        );
        assert_eq!(pairs(&got), [("azure.storage.blob", "azure/storage/blob")]);
    }

    #[test]
    fn setuptools_hatch_poetry_flit_uv() {
        let files = [
            "src/a/__init__.py",
            "b/__init__.py",
            "c.py",
            "src/d/__init__.py",
        ];
        let (got, _) = run(
            "[tool.setuptools]\npackages = [\"a\"]\npackage-dir = {\"\" = \"src\"}\n",
            &files,
        );
        assert_eq!(pairs(&got), [("a", "src/a")]);
        let (got, _) = run(
            "[tool.setuptools.packages.find]\nwhere = [\"src\"]\nexclude = [\"d*\"]\n",
            &files,
        );
        assert_eq!(pairs(&got), [("a", "src/a")]);
        let (got, _) = run(
            "[tool.hatch.build.targets.wheel]\npackages = [\"src/d\", \"b\"]\n",
            &files,
        );
        assert_eq!(pairs(&got), [("b", "b"), ("d", "src/d")]);
        let (got, _) = run(
            "[tool.poetry]\npackages = [{ include = \"a\", from = \"src\" }, { include = \"c.py\" }]\n",
            &files,
        );
        assert_eq!(pairs(&got), [("a", "src/a"), ("c", "c.py")]);
        // Poetry building without `packages`: the project's own package, as poetry finds it.
        let poetry_default = "[build-system]\nbuild-backend = \"poetry.core.masonry.api\"\n\n[tool.poetry]\nname = \"B\"\n";
        let (got, _) = run(poetry_default, &files);
        assert_eq!(pairs(&got), [("b", "b")]);
        // Nor when its package is not there (code in `app/`), or it builds nothing.
        let (got, _) = run(&poetry_default.replace("\"B\"", "\"backend\""), &files);
        assert_eq!(pairs(&got), [("a", "src/a"), ("b", "b"), ("d", "src/d")]);
        let app = format!("{poetry_default}package-mode = false\n");
        let (got, _) = run(&app, &files);
        assert_eq!(pairs(&got), [("a", "src/a"), ("b", "b"), ("d", "src/d")]);
        // Without poetry's backend the table is a dependency list only: inferred.
        let (got, _) = run("[tool.poetry]\nname = \"b\"\n", &files);
        assert_eq!(pairs(&got), [("a", "src/a"), ("b", "b"), ("d", "src/d")]);
        let (got, _) = run("[tool.flit.module]\nname = \"d\"\n", &files);
        assert_eq!(pairs(&got), [("d", "src/d")]);
        let (got, _) = run("[tool.uv.build-backend]\nmodule-name = \"a\"\n", &files);
        assert_eq!(pairs(&got), [("a", "src/a")]);
    }

    #[test]
    fn modules_in_a_namespace_directory_are_provided() {
        let (got, _) = run(
            "",
            &[
                "src/otel/instrumentation/instrumentor.py",
                "src/otel/instrumentation/_labeler/__init__.py",
                "src/otel/instrumentation/test_x.py",
                "setup.py",
                "src/single.py",
            ],
        );
        assert_eq!(
            pairs(&got),
            [
                (
                    "otel.instrumentation._labeler",
                    "src/otel/instrumentation/_labeler"
                ),
                (
                    "otel.instrumentation.instrumentor",
                    "src/otel/instrumentation/instrumentor.py"
                ),
            ]
        );
        let (got, _) = run(
            "[tool.hatch.build.targets.wheel]\npackages = [\"src/otel\"]\n",
            &["src/otel/instrumentation/instrumentor.py"],
        );
        assert_eq!(
            pairs(&got),
            [(
                "otel.instrumentation.instrumentor",
                "src/otel/instrumentation/instrumentor.py"
            )]
        );
    }

    #[test]
    fn a_named_package_that_does_not_exist_is_a_note() {
        let (got, notes) = run(
            "[tool.setuptools]\npackages = [\"ghost\", \"b\"]\n",
            &["b/__init__.py"],
        );
        assert_eq!(pairs(&got), [("b", "b")]);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("`ghost`"), "{notes:?}");
    }

    #[test]
    fn a_namespace_named_whole_ships_its_test_package_and_find_below_the_top() {
        // opentelemetry-test-utils: `packages = ["src/opentelemetry"]` ships the namespace's
        // `test/` package; inferred, and at the top of a `packages.find`, a `tests/` is none.
        let files = [
            "src/opentelemetry/test/__init__.py",
            "src/opentelemetry/test/test_base.py",
            "tests/__init__.py",
            "tests/test_utils.py",
        ];
        let (got, _) = run(
            "[tool.hatch.build.targets.wheel]\npackages = [\"src/opentelemetry\"]\n",
            &files,
        );
        assert_eq!(
            pairs(&got),
            [("opentelemetry.test", "src/opentelemetry/test")]
        );
        let (got, _) = run(
            "[tool.setuptools.packages.find]\nwhere = [\"src\", \".\"]\n",
            &files,
        );
        assert_eq!(
            pairs(&got),
            [("opentelemetry.test", "src/opentelemetry/test")]
        );
        let (got, _) = run("", &files);
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn a_namespace_named_whole_provides_its_packages() {
        let (got, _) = run(
            "[tool.uv.build-backend]\nmodule-name = \"acme\"\nmodule-root = \"\"\n",
            &["acme/one/__init__.py", "acme/two/__init__.py"],
        );
        assert_eq!(
            pairs(&got),
            [("acme.one", "acme/one"), ("acme.two", "acme/two")]
        );
    }
}
