//! Where a file stands in its module, which decides the kind of its imports: code the artifact
//! is built from, dev code (tests, benches, examples, tool configs), or test data that is not
//! read at all.

use super::lex::{ImportKind, Language};
use globset::GlobSet;

/// Directories that hold test data, not code: never read.
const TEST_DATA: &[&str] = &[
    // Packages committed as installed (a resolver's test root): another package's code.
    "node_modules",
    "testdata",
    // Inputs a test reads as text wherever they stand (rust-analyzer's parser `test_data/`).
    "test_data",
    "test-data",
    "__fixtures__",
    "__testfixtures__",
    "__snapshots__",
];

/// Directory names that hold tests (a `fixtures/` below one is test data).
const TEST_DIRS: &[&str] = &["test", "tests", "__tests__", "e2e", "spec"];

/// Directory names that hold test data when inside a test directory: projects and files a
/// test reads or runs a tool on, whose imports are their own, not the module's.
const TEST_DATA_IN_TESTS: &[&str] = &[
    "fixtures",
    // A compiler's test inputs, read as text and compiled (svelte's `tests/*/samples/`).
    "samples",
    "test-projects",
    "test_projects",
];

/// Whether a module-relative path is test data, never read: Go's `testdata/`, `test_data/`,
/// `test-data/`, `__fixtures__/`, `__testfixtures__/`, `__snapshots__/`, and inside a test
/// directory `fixtures/`, `samples/`, `test-projects/`, `test_projects/`.
///
/// A Rust file in one of the test-data directories inside a test directory is read, and
/// kept only when a compiled file reaches it ([`is_test_data_in_tests`], [`rust_kept`]): a
/// cucumber suite's `tests/app_suite.rs` declares `mod fixtures;` (leptos' e2e crates).
pub fn is_test_data(rel: &str) -> bool {
    let dirs: Vec<&str> = rel.split('/').collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    dirs.iter().any(|d| TEST_DATA.contains(d))
        || (!rel.ends_with(".rs") && is_test_data_in_tests(rel))
        || is_go_vendored(rel)
}

/// Whether a module-relative path is never read as the module's code: test data
/// ([`is_test_data`]) or a bundle committed as built ([`is_committed_bundle`]).
pub fn never_read(rel: &str) -> bool {
    is_test_data(rel) || is_committed_bundle(rel)
}

/// Whether a module-relative path is a JS bundle as a build made it: minified (`x.min.js`)
/// or UMD (`x.umd.js`), the forms a library is copied into a repository in to be loaded by
/// a `<script>` tag (netbox's GraphiQL). Its imports were resolved, or left to the page's
/// globals, where it was built; a UMD's `require("react")` is the branch no browser takes.
pub fn is_committed_bundle(rel: &str) -> bool {
    let file = rel.rsplit('/').next().unwrap_or(rel);
    let Some((stem, ext)) = file.rsplit_once('.') else {
        return false;
    };
    let form = stem.rsplit_once('.').map(|(_, form)| form);
    // Not `.cjs`: Node loads that by `require`, its `require`s with it.
    ext == "js" && matches!(form, Some("min" | "umd"))
}

/// Whether a module-relative path stands in a test-data directory inside a test directory
/// (`tests/fixtures/`, `tests/*/samples/`, `test-projects/`).
pub fn is_test_data_in_tests(rel: &str) -> bool {
    let dirs: Vec<&str> = rel.split('/').collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    dirs.iter().enumerate().any(|(k, d)| {
        TEST_DATA_IN_TESTS.contains(d) && dirs[..k].iter().any(|p| TEST_DIRS.contains(p))
    })
}

/// Whether a module-relative path is a Go file in a `vendor/` directory: a copy of another
/// module's package that `go mod vendor` made (loki vendors 13,709 files), built as that
/// module, never as this one. Its imports are the other module's.
fn is_go_vendored(rel: &str) -> bool {
    rel.ends_with(".go") && rel.split('/').rev().skip(1).any(|d| d == "vendor")
}

/// What decides the kind of a module's files beyond their own path.
#[derive(Default)]
pub struct Places {
    /// `[imports] dev` globs over module-relative paths.
    dev: Option<GlobSet>,
    /// Module-relative directories (or `.py` files) of the Python packages the module ships;
    /// when there are any, other Python files are dev code.
    python_shipped: Vec<String>,
    /// Module-relative path prefixes of Rust files declared only for tests
    /// (`#[cfg(test)] mod tests;` → `src/tests.rs`, `src/tests/`).
    rust_test_files: Vec<String>,
    /// Globs over the paths the Python build puts in its source distribution only
    /// ([`crate::python_packages::sdist_only`]): never in the wheel, so dev code.
    python_sdist_only: Option<GlobSet>,
    /// Module-relative paths of the Python files the build runs as hooks
    /// ([`crate::python_packages::build_hooks`]): build code, like `setup.py`.
    python_build_hooks: Vec<String>,
}

impl Places {
    /// The places of one module: its `[imports] dev` globs (validated when the manifest was
    /// read), the Python packages it ships, and its Rust test-only files.
    pub fn new(
        dev: &[String],
        python_shipped: Vec<String>,
        rust_test_files: Vec<String>,
    ) -> Places {
        let dev = (!dev.is_empty()).then(|| crate::globs(dev, true));
        Places {
            dev,
            python_shipped,
            rust_test_files,
            python_sdist_only: None,
            python_build_hooks: Vec::new(),
        }
    }

    /// These places, with the Python files matching `globs` (what the build puts in the
    /// source distribution only) dev code unless a package the build names holds them.
    pub fn with_python_sdist_only(mut self, globs: &[String]) -> Places {
        self.python_sdist_only = (!globs.is_empty()).then(|| crate::globs(globs, true));
        self
    }

    /// These places, with the Python files at `hooks` (the build's hooks) dev code wherever
    /// they stand: the build runs them, no user of the package does.
    pub fn with_python_build_hooks(mut self, hooks: Vec<String>) -> Places {
        self.python_build_hooks = hooks;
        self
    }

    /// The kind of the imports of the file at `rel` (module-relative), before what the file
    /// itself says (a `#[cfg(test)]` item, a guarded `try`).
    pub fn kind(&self, lang: Language, rel: &str) -> ImportKind {
        let is_dev = self.dev.as_ref().is_some_and(|g| g.is_match(rel))
            || match lang {
                Language::Go => rel.ends_with("_test.go"),
                Language::Rust => self.rust_dev(rel),
                Language::Python => self.python_dev(rel),
                Language::Js => js_dev(rel),
            };
        if is_dev {
            ImportKind::Dev
        } else if lang == Language::Python && rel.ends_with(".pyi") {
            // A stub file is read by type checkers only, never run (logfire-api's `.pyi`
            // shims): what it imports is no more owed than a guarded import.
            ImportKind::Optional
        } else {
            ImportKind::Build
        }
    }

    /// Rust: `tests/`, `benches/`, `examples/` at the crate root, and `#[cfg(test)]` modules.
    fn rust_dev(&self, rel: &str) -> bool {
        let first = rel.split('/').next().unwrap_or("");
        matches!(first, "tests" | "benches" | "examples")
            || self
                .rust_test_files
                .iter()
                .any(|p| rel == p || (p.ends_with('/') && rel.starts_with(p.as_str())))
    }

    /// Python: notebooks, tests, docs and examples wherever they stand, the tools beside a
    /// package (`conftest.py`, `noxfile.py`, `setup.py`), and any file outside the packages the
    /// module ships, when it ships some. A package the build names (and ships) whose own
    /// path says test (`src/opentelemetry/test/`, a test-helper library's package) is shipped
    /// code, all of it: its `test_base.py` is what its users import. Only the directories
    /// below a shipped package's own say test or docs.
    fn python_dev(&self, rel: &str) -> bool {
        // A notebook is run by hand, cell by cell; no build ships it as code.
        if crate::notebook::is_notebook(rel) {
            return true;
        }
        let shipped = self.python_shipped.iter().find(|p| {
            rel == p.as_str()
                || rel
                    .strip_prefix(p.as_str())
                    .is_some_and(|r| r.starts_with('/'))
        });
        let test_named = |d: &str| matches!(d, "tests" | "test" | "testing" | "testsuite");
        if shipped.is_some_and(|p| p.split('/').any(test_named)) {
            return false;
        }
        let (dirs, file) = rel.rsplit_once('/').unwrap_or(("", rel));
        let below = match shipped {
            Some(p) => dirs.strip_prefix(p.as_str()).unwrap_or(dirs),
            None => dirs,
        };
        let stem = file.trim_end_matches(".pyi").trim_end_matches(".py");
        let dev_dir = below.split('/').any(|d| {
            matches!(
                d,
                "tests"
                    | "test"
                    // borg's in-package suite, run by `pytest --pyargs borg.testsuite`.
                    | "testsuite"
                    | "examples"
                    | "example"
                    | "docs"
                    | "doc"
                    | "benchmarks"
            )
        });
        // Invoke's `tasks.py` and Fabric's `fabfile.py` are run from the project's root, where
        // the tools look for them; below it a `tasks.py` is a module of the code (Celery's and
        // Django's task modules, shipped).
        let runner_file = dirs.is_empty() && matches!(file, "fabfile.py" | "tasks.py");
        let dev_file = matches!(file, "conftest.py" | "noxfile.py" | "setup.py")
            || runner_file
            || self.python_build_hooks.iter().any(|h| h == rel)
            || stem.starts_with("test_")
            || stem.ends_with("_test")
            || stem == "tests";
        let outside = !self.python_shipped.is_empty() && shipped.is_none();
        let sdist_only = shipped.is_none()
            && self
                .python_sdist_only
                .as_ref()
                .is_some_and(|g| g.is_match(rel));
        dev_dir || dev_file || outside || sdist_only
    }
}

/// JS/TS: tests (with type tests, as tstyche and tsd keep them in `typetest/`, `*.tst.ts`
/// and `*.test-d.ts`, and end-to-end and accessibility tests in `__e2e__`/`__a11y__`,
/// `*.e2e.ts`, `*.e2e-spec.ts` and Cypress's `*.cy.ts`), specs,
/// stories, mocks, benchmarks (`benchmark/` beside the sources, vitest's `*.bench.ts`),
/// tool configs, a task runner's build definition (`gulpfile.js`), and
/// documentation demos (`demo.vue` beside a composable, naive-ui's
/// `button/demos/*.tsx`): a docs site builds them, never the package.
fn js_dev(rel: &str) -> bool {
    let (dirs, file) = rel.rsplit_once('/').unwrap_or(("", rel));
    let dev_dir = dirs.split('/').any(|d| {
        matches!(
            d,
            "__tests__"
                | "__mocks__"
                | "__typetests__"
                | "__benchmarks__"
                | "__e2e__"
                | "__a11y__"
                | "test"
                | "tests"
                | "e2e"
                | ".storybook"
                | "demos"
        )
    });
    // A benchmark or type-test suite: `benchmarks/` wherever it stands (zod's
    // `src/v3/benchmarks/`), a singular `benchmark/` or `typetest/` only beside the package's
    // sources, since a feature may be named so inside them (vitest's `src/runtime/benchmark/`).
    let suite = dirs.split('/').any(|d| d == "benchmarks")
        || matches!(
            dirs.split('/').next(),
            Some("benchmark" | "typetest" | "typetests")
        );
    let parts: Vec<&str> = file.split('.').collect();
    let middle = parts.get(1..parts.len().saturating_sub(1)).unwrap_or(&[]);
    // A task runner's build definition at the package's root (`gulpfile.js`,
    // `Gruntfile.js`, or gulp's `gulpfile.js/` directory of tasks): what it runs builds the
    // package, and is never part of it.
    let task_file = is_task_file(rel);
    let dev_file = file.starts_with('.')
        || task_file
        // `useX/demo.vue` beside what it shows; a package's own `src/demo.ts` may be its
        // entry.
        || (parts.first() == Some(&"demo")
            && !matches!(dirs.rsplit('/').next(), Some("" | "src" | "lib")))
        || middle.iter().any(|p| {
            matches!(
                *p,
                "test"
                    | "spec"
                    | "stories"
                    | "story"
                    | "config"
                    | "demo"
                    | "bench"
                    | "tst"
                    // End-to-end suites (`x.e2e.ts`, Nest's `app.e2e-spec.ts`), Cypress's
                    // `x.cy.ts`, tsd's type tests (`index.test-d.ts`).
                    | "e2e"
                    | "e2e-spec"
                    | "cy"
                    | "test-d"
            )
        });
    dev_dir || dev_file || suite
}

/// Whether a module-relative JS file is a task runner's build definition: `gulpfile.*` or
/// `Gruntfile.*` at the package's root, or a file of gulp's `gulpfile.js/` directory.
pub fn is_task_file(rel: &str) -> bool {
    let first = rel.split('/').next().unwrap_or(rel).to_ascii_lowercase();
    let at_root = !rel.contains('/');
    first.starts_with("gulpfile.") || (at_root && first.starts_with("gruntfile."))
}

/// The module-relative prefixes of the files of the modules `mods` a Rust file at `rel`
/// declares out of line (`mod name;`): `dir/name.rs` and `dir/name/`, where `dir` is the
/// file's own directory for a crate root (`lib.rs`, `main.rs`, `mod.rs`, a file directly in
/// `tests/`, `benches/`, `examples/` or `src/bin/`, `build.rs`), else the directory named
/// after it.
pub fn rust_mod_files(rel: &str, mods: &[String]) -> Vec<String> {
    let join = module_join(rel);
    mods.iter()
        .flat_map(|m| [join(&format!("{m}.rs")), join(&format!("{m}/"))])
        .collect()
}

/// How the modules a Rust file at `rel` declares are found: joined to the file's own
/// directory for a crate root or a `mod.rs`, else to the directory named after the file.
fn module_join(rel: &str) -> impl Fn(&str) -> String {
    module_join_as(rel, false)
}

/// [`module_join`], for a file known to be a crate root whatever its name (`crate_root`: a
/// build script `build = "…"` names).
fn module_join_as(rel: &str, crate_root: bool) -> impl Fn(&str) -> String {
    let (dir, file) = rel.rsplit_once('/').map_or(("", rel), |(d, f)| (d, f));
    let root = crate_root
        || matches!(file, "lib.rs" | "main.rs" | "mod.rs" | "build.rs")
        || matches!(dir, "tests" | "benches" | "examples" | "src/bin");
    let base = match root {
        true => dir.to_string(),
        false => format!("{dir}/{}", file.trim_end_matches(".rs"))
            .trim_start_matches('/')
            .to_string(),
    };
    move |x: &str| match base.is_empty() {
        true => x.to_string(),
        false => format!("{base}/{x}"),
    }
}

/// The files `mod name;` in a Rust file at `rel` may stand in, in the order rustc tries them
/// (`name.rs`, then `name/mod.rs`), where [`module_join`] puts them; `crate_root` for a file
/// that is one whatever its name (a build script).
pub fn rust_mod_candidates(rel: &str, crate_root: bool, name: &str) -> [String; 2] {
    let join = module_join_as(rel, crate_root);
    [join(&format!("{name}.rs")), join(&format!("{name}/mod.rs"))]
}

/// The module-relative prefixes of the files a Rust file at `rel` declares with
/// `#[cfg(test)] mod name;`: `dir/name.rs` and `dir/name/`, `dir` as for
/// [`rust_mod_files`].
pub fn rust_test_files(rel: &str, mods: &[String]) -> Vec<String> {
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let join = module_join(rel);
    mods.iter()
        .flat_map(|m| match m.strip_suffix(".rs") {
            // A `#[path]` file: relative to the declaring file's own directory; a `mod.rs`
            // one's directory holds its submodules too. One outside the module is not its.
            Some(_) => match relative_to(dir, m) {
                Some(file) => match file.strip_suffix("mod.rs") {
                    Some(below) if below.is_empty() || below.ends_with('/') => {
                        vec![file.clone(), below.to_string()]
                    }
                    _ => vec![file],
                },
                None => Vec::new(),
            },
            None => vec![join(&format!("{m}.rs")), join(&format!("{m}/"))],
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// Which of a crate's Rust files Cargo compiles: `files` are (module-relative path, the
/// prefixes of what it declares as modules or includes: [`rust_mod_files`],
/// [`rust_included`]), `base` the directories Cargo takes targets from
/// ([`crate::manifest::cargo_compiled`]; `None`: any). A file is compiled when it stands at the
/// crate's root or in `base`, and not in a test's `fixtures/` ([`is_test_data_in_tests`]), or
/// when a compiled file reaches it: a build script's `mod codegen;`, a suite's
/// `mod fixtures;`, zellij's `include!` of `assets/`. What an uncompiled file declares
/// reaches nothing (a project template's `mod util;`).
pub fn rust_kept(files: &[(&str, &[String])], base: Option<&[String]>) -> Vec<bool> {
    let matches =
        |p: &String, rel: &str| rel == p || (p.ends_with('/') && rel.starts_with(p.as_str()));
    let mut kept: Vec<bool> = files
        .iter()
        .map(|(rel, _)| {
            let in_base =
                !rel.contains('/') || base.is_none_or(|b| b.iter().any(|p| matches(p, rel)));
            in_base && !is_test_data_in_tests(rel)
        })
        .collect();
    loop {
        let reach: Vec<&String> = (files.iter().zip(&kept))
            .filter(|(_, k)| **k)
            .flat_map(|((_, r), _)| r.iter())
            .collect();
        let mut grew = false;
        for (k, (rel, _)) in kept.iter_mut().zip(files) {
            if !*k && reach.iter().any(|p| matches(p, rel)) {
                *k = true;
                grew = true;
            }
        }
        if !grew {
            return kept;
        }
    }
}

/// The module-relative directories (each ending `/`) of what a Rust file at `rel` compiles in
/// from elsewhere, by its [`crate::FileScan::includes`]: an included file's neighbours may be
/// included by it in turn (prost's generated `include!("api.action.rs")`), a `#[path]`
/// module's submodules stand beside it. The root's directory is left out (its files always
/// count), as is anything above the module.
pub fn rust_included(rel: &str, includes: &[String]) -> Vec<String> {
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    includes
        .iter()
        .filter_map(|p| match p.strip_prefix('/') {
            Some(below_root) => relative_to("", below_root),
            None => relative_to(dir, p),
        })
        .filter_map(|file| file.rsplit_once('/').map(|(d, _)| format!("{d}/")))
        .collect()
}

/// `path` (`./unit/x.rs`, `../common/y.rs`) from the directory `dir`, normalized; `None`
/// when it climbs above the root `dir` is relative to.
pub fn relative_to(dir: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_data_is_not_read() {
        assert!(is_test_data("pkg/testdata/x.go"));
        assert!(is_test_data("src/__testfixtures__/a.input.js"));
        assert!(is_test_data("__fixtures__/b.ts"));
        assert!(is_test_data("tests/fixtures/c.py"));
        assert!(is_test_data("src/__tests__/fixtures/d.ts"));
        // A fixture project a test runs a tool on (pytest plugins' `tests/**/test-projects`).
        assert!(is_test_data("tests/unit/test-projects/app/main.py"));
        assert!(is_test_data("tests/test_data/sample/setup.py"));
        // svelte's compiler inputs; a `samples/` outside tests is code.
        assert!(is_test_data("tests/validator/samples/a11y/input.svelte"));
        assert!(!is_test_data("src/samples/demo.ts"));
        // rust-analyzer's parser inputs stand beside `src/`, not in a test directory.
        assert!(is_test_data("crates/parser/test_data/parser/ok/0001.rs"));
        assert!(!is_test_data("src/test_data.py"));
        assert!(
            !is_test_data("test_projects/app/main.py"),
            "not inside a test directory"
        );
        assert!(
            !is_test_data("src/fixtures/e.ts"),
            "fixtures outside a test dir is code"
        );
        assert!(is_test_data(
            "src/__tests__/test_root/node_modules/npm3-main-dep/index.js"
        ));
        assert!(!is_test_data("testdata.go"));
        // What Cargo compiles: a build script's module directory, a suite's fixtures a `mod`
        // reaches; not a template, nor what a fixture project declares for itself.
        let files: Vec<(&str, Vec<String>)> = vec![
            ("build.rs", rust_mod_files("build.rs", &["codegen".into()])),
            (
                "codegen/mod.rs",
                rust_mod_files("codegen/mod.rs", &["tables".into()]),
            ),
            ("codegen/tables.rs", vec![]),
            ("src/lib.rs", vec![]),
            (
                "tests/app.rs",
                rust_mod_files("tests/app.rs", &["fixtures".into()]),
            ),
            ("tests/fixtures/mod.rs", vec![]),
            (
                "tests/data/fixtures/proj/src/main.rs",
                rust_mod_files("tests/data/fixtures/proj/src/main.rs", &["util".into()]),
            ),
            ("tests/data/fixtures/proj/src/util.rs", vec![]),
            ("template/src/main.rs", vec![]),
        ];
        let files: Vec<(&str, &[String])> = files.iter().map(|(f, r)| (*f, &r[..])).collect();
        let base: Vec<String> = ["src/", "tests/"].map(String::from).to_vec();
        assert_eq!(
            rust_kept(&files, Some(&base)),
            [true, true, true, true, true, true, false, false, false]
        );
        assert_eq!(
            rust_kept(&files, None),
            [true, true, true, true, true, true, false, false, true]
        );
        // A Rust fixture directory is read, to be kept where a `mod` reaches it.
        assert!(!is_test_data("e2e/tests/fixtures/steps.rs"));
        assert!(is_test_data_in_tests("e2e/tests/fixtures/steps.rs"));
        assert!(is_test_data("e2e/tests/fixtures/steps.py"));
        assert!(is_test_data("crates/parser/test_data/ok/0001.rs"));
        assert_eq!(
            rust_mod_files("e2e/tests/app_suite.rs", &["fixtures".into()]),
            [
                "e2e/tests/app_suite/fixtures.rs",
                "e2e/tests/app_suite/fixtures/"
            ]
        );
        assert_eq!(
            rust_mod_files("tests/app_suite.rs", &["fixtures".into()]),
            ["tests/fixtures.rs", "tests/fixtures/"]
        );
        assert_eq!(
            rust_mod_files("src/panes.rs", &["grid".into()]),
            ["src/panes/grid.rs", "src/panes/grid/"]
        );
        // Go's vendored packages are other modules' code; JS or Python code a package vendors
        // by hand is its own.
        assert!(is_test_data("vendor/github.com/x/y/y.go"));
        assert!(is_test_data("tools/vendor/golang.org/x/z.go"));
        assert!(!is_test_data("vendor.go"));
        assert!(!is_test_data("src/vendor/lib.js"));
        assert!(!is_test_data("pip/_vendor/rich/console.py"));
        assert!(!is_test_data("src/lib.rs"));
    }

    #[test]
    fn committed_bundles_are_never_read() {
        for bundle in [
            "dist/graphiql/graphiql.min.js",
            "dist/graphiql/index.umd.js",
            "static/vendor/x.umd.min.js",
        ] {
            assert!(never_read(bundle), "{bundle}");
        }
        for source in [
            "src/min.js",
            "src/umd.js",
            "src/admin.js",
            "src/x.min.ts",
            "dist/index.js",
            "lib/y.umd.cjs",
        ] {
            assert!(!never_read(source), "{source}");
        }
        assert!(never_read("tests/fixtures/a.ts"));
    }

    #[test]
    fn go_tests_are_dev() {
        let p = Places::default();
        assert_eq!(p.kind(Language::Go, "x_test.go"), ImportKind::Dev);
        assert_eq!(p.kind(Language::Go, "pkg/x.go"), ImportKind::Build);
        assert_eq!(p.kind(Language::Go, "examples/main.go"), ImportKind::Build);
    }

    #[test]
    fn rust_places() {
        let p = Places::new(
            &[],
            vec![],
            rust_test_files("src/lib.rs", &["tests".into()]),
        );
        for dev in [
            "tests/it.rs",
            "benches/b.rs",
            "examples/e.rs",
            "src/tests.rs",
            "src/tests/mod.rs",
        ] {
            assert_eq!(p.kind(Language::Rust, dev), ImportKind::Dev, "{dev}");
        }
        for build in [
            "src/lib.rs",
            "build.rs",
            "src/testsuite.rs",
            "src/a/tests.rs",
        ] {
            assert_eq!(p.kind(Language::Rust, build), ImportKind::Build, "{build}");
        }
        assert_eq!(
            rust_test_files("src/net/tcp.rs", &["t".into()]),
            ["src/net/tcp/t.rs", "src/net/tcp/t/"]
        );
        assert_eq!(rust_test_files("main.rs", &["t".into()]), ["t.rs", "t/"]);
    }

    #[test]
    fn python_places() {
        let none = Places::default();
        assert_eq!(none.kind(Language::Python, "app.py"), ImportKind::Build);
        assert_eq!(
            none.kind(Language::Python, "tests/test_a.py"),
            ImportKind::Dev
        );
        assert_eq!(none.kind(Language::Python, "conftest.py"), ImportKind::Dev);
        assert_eq!(
            none.kind(Language::Python, "pkg/a_test.py"),
            ImportKind::Dev
        );
        let shipped = Places::new(&[], vec!["src/pkg".into()], vec![]);
        assert_eq!(
            shipped.kind(Language::Python, "src/pkg/a.py"),
            ImportKind::Build
        );
        assert_eq!(
            shipped.kind(Language::Python, "src/pkg/tests/t.py"),
            ImportKind::Dev
        );
        // borg's in-package suite (`pytest --pyargs borg.testsuite`).
        assert_eq!(
            shipped.kind(Language::Python, "src/pkg/testsuite/archiver/__init__.py"),
            ImportKind::Dev
        );
        assert_eq!(
            shipped.kind(Language::Python, "scripts/gen.py"),
            ImportKind::Dev
        );
        assert_eq!(
            shipped.kind(Language::Python, "src/pkgx/a.py"),
            ImportKind::Dev
        );
        assert_eq!(
            shipped.kind(Language::Python, "noxfile.py"),
            ImportKind::Dev
        );
        // Invoke's tasks at the root; a Celery or Django `tasks.py` in the package ships.
        assert_eq!(none.kind(Language::Python, "tasks.py"), ImportKind::Dev);
        assert_eq!(none.kind(Language::Python, "fabfile.py"), ImportKind::Dev);
        assert_eq!(
            none.kind(Language::Python, "shop/plugins/mail/tasks.py"),
            ImportKind::Build
        );
        assert_eq!(
            shipped.kind(Language::Python, "src/pkg/tasks.py"),
            ImportKind::Build
        );
        // opentelemetry-test-utils: hatch ships `src/opentelemetry` whole, and its package
        // `opentelemetry.test` is a test-helper library: shipped, `test_base.py` included.
        // Its own `tests/` stay tests, and so does a `tests/` inside an ordinary package.
        let helpers = Places::new(&[], vec!["src/opentelemetry/test".into()], vec![]);
        for shipped_code in [
            "src/opentelemetry/test/asgitestutil.py",
            "src/opentelemetry/test/test_base.py",
            "src/opentelemetry/test/version/__init__.py",
        ] {
            assert_eq!(
                helpers.kind(Language::Python, shipped_code),
                ImportKind::Build,
                "{shipped_code}"
            );
        }
        assert_eq!(
            helpers.kind(Language::Python, "tests/test_utils.py"),
            ImportKind::Dev
        );
    }

    #[test]
    fn a_build_hook_is_build_code_even_where_the_wheel_holds_it() {
        // onyx's CLI: `include = ["**/*.py"]` puts `hatch_build.py` in the wheel, and
        // hatchling runs it as the wheel's build hook; what it imports is the build's.
        let hooks = crate::python_packages::build_hooks(
            "[tool.hatch.build.targets.wheel.hooks.custom]\npath = \"hatch_build.py\"\n",
        );
        let places = Places::new(
            &[],
            vec!["hatch_build.py".into(), "internal".into()],
            vec![],
        )
        .with_python_build_hooks(hooks);
        assert_eq!(
            places.kind(Language::Python, "hatch_build.py"),
            ImportKind::Dev
        );
        assert_eq!(
            places.kind(Language::Python, "internal/hatch_build.py"),
            ImportKind::Build
        );
        // Without a hook table the file is only a file.
        let plain = Places::new(&[], vec!["hatch_build.py".into()], vec![]);
        assert_eq!(
            plain.kind(Language::Python, "hatch_build.py"),
            ImportKind::Build
        );
    }

    #[test]
    fn what_only_the_source_distribution_holds_is_dev_code() {
        // pdm's `source-includes`: tested documentation examples and maintainer scripts
        // travel in the sdist, never in the wheel, whatever their directory is called.
        let globs = crate::python_packages::sdist_only(
            "[tool.pdm.build]\nsource-includes = [\"tests/\", \"docs_src/\", \"tools/gen.py\", \"requirements*.txt\"]\n",
        );
        let inferred = Places::default().with_python_sdist_only(&globs);
        for dev in ["docs_src/wsgi/tutorial001.py", "tools/gen.py"] {
            assert_eq!(
                inferred.kind(Language::Python, dev),
                ImportKind::Dev,
                "{dev}"
            );
        }
        for shipped in ["app/main.py", "docs_srcx/a.py", "tools/other.py"] {
            assert_eq!(
                inferred.kind(Language::Python, shipped),
                ImportKind::Build,
                "{shipped}"
            );
        }
        // flit's `[tool.flit.sdist] include`; a package the build names stays shipped even
        // when the list names a path inside it.
        let globs = crate::python_packages::sdist_only(
            "[tool.flit.sdist]\ninclude = [\"./examples_app/\", \"/pkg/data\"]\n",
        );
        let named = Places::new(&[], vec!["pkg".into()], vec![]).with_python_sdist_only(&globs);
        assert_eq!(
            named.kind(Language::Python, "pkg/data/load.py"),
            ImportKind::Build
        );
        assert_eq!(
            Places::default()
                .with_python_sdist_only(&globs)
                .kind(Language::Python, "examples_app/run.py"),
            ImportKind::Dev
        );
        // A root glob in flit's list would take the module its wheel holds: not read.
        let globs = crate::python_packages::sdist_only(
            "[tool.flit.sdist]\ninclude = [\"*.py\", \"doc/\"]\n",
        );
        assert_eq!(globs, ["doc", "doc/**"]);
        assert!(crate::python_packages::sdist_only("not toml [").is_empty());
    }

    #[test]
    fn js_places() {
        let p = Places::default();
        for dev in [
            "src/a.test.ts",
            "src/a.spec.tsx",
            "src/__tests__/a.ts",
            "src/__mocks__/fs.js",
            "test/a.js",
            "e2e/login.ts",
            "src/Button.stories.tsx",
            "vite.config.ts",
            "jest.config.cjs",
            ".eslintrc.js",
            // jest's packages: tstyche type tests and benchmarks.
            "__typetests__/expect.test.ts",
            "__benchmarks__/test.js",
            // starlight's end-to-end and accessibility test helpers.
            "packages/starlight/__e2e__/test-utils.ts",
            "__a11y__/test-utils.ts",
            // Documentation demos: vueuse's `useX/demo.vue`, ant-design's `button/demo/`.
            "core/useBluetooth/demo.vue",
            "src/button/demos/basic.tsx",
            "src/select.demo.tsx",
            // Type tests as tstyche names them, benchmark suites and vitest bench files.
            "typetest/index.tst.ts",
            "src/Schema.tst.ts",
            "benchmark/PgCodec.ts",
            "benchmarks/parse.mjs",
            "src/v3/benchmarks/datetime.ts",
            "src/pool.bench.ts",
            // End-to-end suites by name (novu's mocha `*.e2e.ts`, Nest's `*.e2e-spec.ts`),
            // Cypress specs and tsd type tests.
            "src/app/workflows/generate-preview.e2e.ts",
            "src/app.e2e-spec.ts",
            "cypress/login.cy.ts",
            "index.test-d.ts",
            // A task runner's build definition at the package's root.
            "gulpfile.js",
            "Gruntfile.cjs",
            "gulpfile.js/subtasks/copy.js",
        ] {
            assert_eq!(p.kind(Language::Js, dev), ImportKind::Dev, "{dev}");
        }
        assert_eq!(
            Places::default().kind(Language::Python, "logfire_api/__init__.pyi"),
            ImportKind::Optional
        );
        for build in [
            "src/index.ts",
            "src/gulpfile.js",
            "src/config.ts",
            "src/testing.ts",
            "lib/spec-parser.js",
            "src/demographics.ts",
            // A package named demo, or one exporting its demo module.
            "src/demo.ts",
            "demo.js",
            "src/demo/index.ts",
            "src/benchmark-report.ts",
            "src/bench.ts",
            "src/runtime/benchmark/run.ts",
            "src/typetest.ts",
        ] {
            assert_eq!(p.kind(Language::Js, build), ImportKind::Build, "{build}");
        }
    }

    #[test]
    fn dev_globs() {
        let p = Places::new(&["tools/**".into(), "*.gen.go".into()], vec![], vec![]);
        assert_eq!(p.kind(Language::Go, "tools/x/y.go"), ImportKind::Dev);
        assert_eq!(p.kind(Language::Go, "a.gen.go"), ImportKind::Dev);
        assert_eq!(p.kind(Language::Go, "sub/a.gen.go"), ImportKind::Build);
    }
}
