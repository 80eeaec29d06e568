//! Import scanners, one per language, and their resolution to modules.
//!
//! A build edge is a fact about code that already exists, so it is read from imports rather
//! than declared: each module *provides* names (from its language manifests), each source file
//! *imports* names (from a small scanner that understands comments and strings), and an import
//! resolves to the module providing its longest prefix.
//!
//! Layout: [`lex`] holds the types and lexing helpers every scanner shares and depends on no
//! scanner; each language module ([`go`], [`js`], [`python`], [`rust`]) builds on it and
//! exposes one `scan_file(&str) -> FileScan`; this file picks the scanner by [`Language`]
//! ([`scan_file`]). Dependencies run one way, so no file imports one that imports it back.

pub mod component;
pub mod go;
pub mod js;
pub mod lex;
pub mod manifest;
pub mod notebook;
pub mod place;
pub mod python;
pub mod python_packages;
pub mod resolve;
pub mod rust;
pub mod setup_cfg;
pub mod setup_py;
pub mod style;
pub mod tsconfig;

pub use lex::{ExportedMacro, FileScan, Import, ImportKind, Language, MacroCall, RustMacros};
pub use manifest::ManifestFacts;

use serde::{Deserialize, Serialize};

/// The imports found in one source file of a module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScannedFile {
    /// Repo-relative path.
    pub path: String,
    /// Its language.
    pub language: Language,
    /// The kind of code it is, from where it stands in its module (tests are dev code).
    pub kind: ImportKind,
    /// What it imports.
    pub imports: std::sync::Arc<[Import]>,
    /// A Rust file's macro calls and exported macros (see [`RustMacros`]).
    pub rust_macros: Option<std::sync::Arc<RustMacros>>,
}

/// Bumped whenever any scanner's output could change, so cached results are re-read.
/// 2: import kinds (dev, optional), `#[cfg(test)]` modules, component script blocks.
/// 3: Rust raw identifiers of keywords, `quote!` bodies left out, nested crates outside the
/// module's build (their own `[workspace]`, or `[workspace] exclude`) not read; `setup.cfg`
/// packages and name.
/// 4: Rust diagnostic codes in attributes (`#[diagnostic(code(nu::x))]`) and `rustdoc::`
/// lints are no paths.
/// 5: JS `require.resolve("s")`; files under `node_modules/` not read; Python imports under
/// `if TYPE_CHECKING:` optional.
/// 6: Python imports inside `with suppress(ImportError):` optional; JS `require` and
/// `require.resolve` inside a `try` whose `catch` names `MODULE_NOT_FOUND` optional.
/// 7: JS imports of a module the same file mocks as virtual (`jest.mock('x', f,
/// {virtual: true})`) left out.
/// 8: Rust names are hidden only in the block that declares them; `macro_rules!` names and
/// the module of an item-level `m!(name);` are local; rstest's `#[case::name]` is no path.
/// 9: Rust doc tests (Rust code blocks of `///` and `//!` comments) are read, as dev imports.
/// 10: `test-projects/`, `test_projects/`, `test-data/`, `test_data/` inside a test directory
/// are test data, not read.
/// 11: imports in a Rust `macro_rules!` body say so (`in_macro`: they resolve where it
/// expands).
/// 12: Rust: a leading `::name` is always the crate; inside `mod name { … }` the name is the
/// crate again; a doc block ends only at a fence Markdown would close it with.
/// 13: a Rust doc test's imports say so (`in_doc`: `[lib] doctest = false` turns them off).
/// 14: JS: HTML pages' inline `<script type="module">` bodies and stylesheets' `@import`,
/// `@use`, `@forward` and `@plugin` (`.css`, `.scss`, `.sass`, `.less`) are read.
/// 15: Python: a namespace directory the build names whole ships its `test/` package, and
/// a shipped package whose own path says test is shipped code (14 is JavaScript's).
/// 16: Rust: a path beside a glob import says so (`glob_scoped`), and the crates intra-doc
/// links name are read (`in_doc_link`, for drift only).
/// 17: Rust: a bare `use` of a function of the file, and `#[rust_analyzer::…]`/`#[miri::…]`,
/// name no crate; `test_data/`, `test-data/` anywhere and `samples/` in tests are test data.
/// 18: Python: `pytest.importorskip("x")` is a guarded import of `x`.
/// 19: Rust: what a macro call's body declares (`cfg_x! { #[path = …] mod imp; }`) is local
/// around the call, as its items expand there.
/// 20: Rust: `#[cfg(test)] mod tests;` inside an inline `mod a { … }` names `a/tests.rs`.
/// 21: JS: a `require` or `import()` in a short `try` whose `catch` neither throws nor exits
/// is optional (a native-addon loader's alternatives); comment pragmas that load a package
/// (`@jsxImportSource x`, `@jest-environment x`, `@vitest-environment x`) are imports.
/// 22: JS: an environment pragma's package is optional (the runner resolves it).
/// 23: Go: a `//go:build ignore` file's imports are optional, not dev (`go mod tidy` keeps no
/// requirement for them).
/// 24: Rust: a `compile_fail` doc block is not read (its code is meant not to build).
/// 25: Rust: in a file that writes code with `quote!`, a leading-`::` path in a macro call's
/// arguments is code handed on to a `quote!`, not the file's import; a leading-`::` path
/// after an attribute's `]` is the crate's.
/// 26: JS: `__e2e__/` and `__a11y__/` directories are test code; Rust: a `#![doc = …]`
/// between doc comments keeps an open code block open; Python: a `.pyi` stub file's
/// imports are optional (type checkers read it; nothing runs it).
/// 27: Python: every import of a script declaring its own dependencies (PEP 723) is optional.
/// 28: JS: a JSDoc comment's `@import … from 'x'` and `import('x')` are imports (type-only);
/// Rust: what a `#[cfg_attr(test, …)]` applies is dev code.
/// 29: Rust: `#name::` (a `quote!` interpolation) starts no crate path; `#[cfg(doctest)]`
/// items are dev code.
/// 30: JS: only a JSDoc block's imports are read (not a `//` or `/* */` comment's), each
/// recorded optional by itself.
/// 31: Python: what the build puts in the source distribution only (pdm `source-includes`,
/// flit `[tool.flit.sdist] include`) is dev code.
/// 32: Python: an import inside a function's body says so (`Import::in_function`); Rust: a
/// `#[cfg(test)] #[path = "…"] mod x;` is that file; JS: documentation demos are dev code.
/// 33: a review's narrowings: a Python entry point's imports are no lazy ones (`main`, a
/// CLI command, a function the module calls at import); an inner attribute starts no run of
/// a test module's attributes, a `#[path]` `mod.rs`'s directory is test code too; flit's root
/// globs are not sdist-only; `demo/` and a root or `src/` `demo.*` are no demos.
/// 34: Rust: a test-only field, variant, arm or argument ends at its `,` or at what closes
/// its holder (it ran on to the next `;`, making shipped code after it test code).
/// 35: Rust: a `quote!` body's paths are marked `generated` (read, not skipped); a file
/// names what it `include!`s or `#[path]`s (`FileScan::includes`); code no target of the
/// crate compiles, and Go's `vendor/`, are not read; Python: `import_module(f"x_{y}")` is
/// a `prefix` import; JS: `typetest/`, `*.tst.*`, `benchmark(s)/`, `*.bench.*` are dev code.
/// 36: Rust: a `#[macro_export]` macro's body is `generated` too (no build edge); a dev
/// target's directory (`[[test]] path = "headless_tests/x.rs"`) is dev code; a file names
/// its out-of-line modules (`FileScan::mods`), and a test's `fixtures/` file is code where
/// one reaches it.
/// 37: a review's narrowings: a name a `quote!` body declares hides nothing around it; a
/// singular `benchmark/` or `typetest/` is dev code only at the package's root; what a
/// compiled Rust file declares or includes is compiled, what an uncompiled one does is not.
/// 38: Rust: a type the file defines (`enum wasm_kind_t`) is a local path root, and an item
/// macro's output (`bindgen!({ … })` in a module) may bring modules: paths beside it say
/// so (`macro_scoped`).
/// 44: Python: `lazy_module("a.b")` imports `a.b`, optionally.
/// 45: Python relative imports reported with their leading dots (`..a.b`).
/// 46: Jupyter notebooks' code cells are read as Python (dev code, run by hand).
/// 47: JS `*.e2e.*`, `*.e2e-spec.*`, `*.cy.*` and `*.test-d.*` files are test code.
/// 48: JS `React.X` of React's global namespace, with no import of `react`, uses `react`
/// (optional).
/// 49: Python: a script that defines no test (a `__main__` block, no `def test…` nor
/// `class Test…`) says so on its imports (`Import::in_script`).
/// 50: Python: the directories a `Dockerfile` beside the manifests copies into the image ship,
/// beside the packages the build names.
/// 51: Python: `tasks.py` and `fabfile.py` are dev code at the module's root only (below it a
/// `tasks.py` is Celery's or Django's task module); a project's own optional importer
/// (`attempt_import_or_raise("a")`, `lazy_import("a")`) imports its argument, optionally.
/// 52: a stylesheet's path into `node_modules` (`@import "node_modules/bootstrap/x.css"`)
/// imports the package after it; Python imports under `if "x" in sys.modules:` are optional.
/// 53: Python: `if "x" in sys.modules:` makes only `x`'s imports optional; fewer names are
/// a project's optional importer (`import` after a qualifier word, `import_optional_…`,
/// `…import_or_raise`).
/// 54: Python: the strings of Django's `INSTALLED_APPS`, `MIDDLEWARE` and
/// `AUTHENTICATION_BACKENDS` lists are imports, optionally.
/// 55: committed JS bundles (`x.min.js`, `x.umd.js`) are never read; hatch's custom build
/// hooks are build code; a file asking `find_spec("x")` imports `x` optionally.
/// 56: Python: a Sphinx configuration's extensions and theme are imports, optionally.
/// 57: Python: poetry building without `packages` ships the project's own package only.
/// 58: Rust: a `macro_rules!` defined in another's rules is defined where that one expands.
/// 59: JS: a string's path into `node_modules` names the package, optionally; a UMD
/// wrapper's `require`s are optional.
/// 60: the review's narrowing: `find_spec` guards only an `if` body, a UMD wrapper only its
/// `require`s, Sphinx needs a Sphinx-only setting and not its own themes, a nested macro
/// hides no crate, `.cjs` bundles are read, poetry's default package only where it is.
/// 61: Python: a bare `except:` or one catching `Exception` guards a body of imports; code
/// only Python 2 runs imports optionally.
/// 62: Python: a Django backend's name imports its driver, an `ImageField` Pillow; Python 2's
/// fallback for a relative import names the sibling.
/// 63: Python: `DJANGO_SETTINGS_MODULE` names a module Django imports.
/// 64: a Dockerfile's copy of a test tree (`test_app/`) ships nothing.
/// 65: Python 2's sibling fallback only in a handler of what a relative import raises.
/// 66: JS: a `gulpfile`/`Gruntfile` at the package's root is build code.
/// 67: Python: a module a file that changes `sys.path` makes (a string used as its path) is
/// imported optionally.
/// 68: Python: an import only Pythons older than 3.N run says N (`Import::before_python`).
/// 69: Rust: a file's macro calls and its exported macros' names and calls
/// (`FileScan::rust_macros`).
/// 70: Python: a `.pth` file at a module's root puts the packages of the directories it names
/// on `sys.path`, by their own names too.
/// 71: Python: a `testsuite/` directory is tests (borg's in-package suite).
pub const SCANNER_VERSION: u32 = 71;

/// Scans one file's text with its language's scanner: its imports and file-level facts.
/// Never panics on any input (arbitrary bytes decoded lossily are passed in).
pub fn scan_file(lang: Language, src: &str) -> FileScan {
    match lang {
        Language::Go => go::scan_file(src),
        Language::Rust => rust::scan_file(src),
        Language::Python => python::scan_file(src),
        Language::Js => js::scan_file(src),
    }
}

/// Patterns from a module's manifest as one set: `[imports] ignore` (matched against import
/// names) and `[imports] dev` (against paths, where `*` stops at `/`: `literal_separator`).
/// Each was validated when its manifest was read; one that is not valid here matches nothing.
pub fn globs(patterns: &[String], literal_separator: bool) -> globset::GlobSet {
    let mut b = globset::GlobSetBuilder::new();
    for p in patterns {
        let glob = globset::GlobBuilder::new(p)
            .literal_separator(literal_separator)
            .build();
        if let Ok(g) = glob {
            b.add(g);
        }
    }
    b.build().unwrap_or_else(|_| globset::GlobSet::empty())
}

/// `dir` and every directory above it up to the repository's root (`""`), nearest first:
/// where a walk for the nearest file of a kind (a workspace's `Cargo.toml`, a `go.mod`, a
/// workspace `package.json`) looks. `.skip(1)` starts above `dir`.
pub fn ancestors(dir: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(dir), |d| {
        (!d.is_empty()).then(|| d.rsplit_once('/').map_or("", |(p, _)| p))
    })
}

/// `parts` joined as one repo-relative path, `.` and `..` folded (`["a/b", "../c"]` →
/// `a/c`); `None` when it climbs above the repository's root. How a path a config names
/// (a tsconfig target, a requirements file's `-r`) becomes a path of the repository.
pub fn repo_path(parts: &[&str]) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for seg in parts.iter().flat_map(|p| p.split('/')) {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(out.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lex::tests::{ADVERSARIAL, garbage, names};

    #[test]
    fn repo_paths_fold_dots_and_stop_at_the_root() {
        assert_eq!(repo_path(&["a/b", "../c/./d"]).as_deref(), Some("a/c/d"));
        assert_eq!(repo_path(&["", "x"]).as_deref(), Some("x"));
        assert_eq!(repo_path(&["a", "../.."]), None);
    }

    /// Nearest first, the root (`""`) last, once; the root's only ancestor is itself.
    #[test]
    fn ancestors_walk_up_to_the_root() {
        let up: Vec<&str> = ancestors("a/b/c").collect();
        assert_eq!(up, ["a/b/c", "a/b", "a", ""]);
        assert_eq!(ancestors("").collect::<Vec<_>>(), [""]);
        assert_eq!(ancestors("a/b").skip(1).collect::<Vec<_>>(), ["a", ""]);
        assert_eq!(ancestors("").skip(1).count(), 0);
    }

    #[test]
    fn dispatch_reaches_each_scanner() {
        assert_eq!(
            names(&scan_file(Language::Go, "package a\nimport \"x/y\"").imports),
            ["x/y"]
        );
        assert_eq!(
            names(&scan_file(Language::Rust, "use serde::Serialize;").imports),
            ["serde"]
        );
        assert_eq!(
            names(&scan_file(Language::Python, "import os.path").imports),
            ["os.path"]
        );
        assert_eq!(
            names(&scan_file(Language::Js, "import x from 'y'").imports),
            ["y"]
        );
    }

    #[test]
    fn every_scanner_survives_garbage() {
        for lang in [Language::Go, Language::Rust, Language::Python, Language::Js] {
            let garbage = (0..200u64).map(|seed| garbage(seed ^ 0xabcdef, 1 + seed as usize * 3));
            for src in ADVERSARIAL.iter().map(|s| s.to_string()).chain(garbage) {
                let _ = scan_file(lang, &src);
            }
        }
    }
}
