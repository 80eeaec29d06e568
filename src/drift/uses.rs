//! A module's imports as drift matches them: each a [`Use`] with the key its ecosystem
//! matches declarations by, and what its file and text say of it.

use super::declared::{Declared, Scope};
use super::nested::Nested;
use super::python_reach;
use super::world::{Manifests, World};
use super::{aliases, js, names, packed, python, python_path, stdlib, tools};
use crate::source::{ModuleSource, RepoSnapshot, blob_text};
use mesh_imports::{ImportKind, Language, ScannedFile};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// One import, ready to match: the key its ecosystem matches declarations by.
#[derive(Clone)]
pub(super) struct Use<'a> {
    pub(super) language: Language,
    /// Rust crate name, JS package, Go import path, Python dotted name (lowercase); `node:`
    /// for a Node built-in (only `@types/node` matches it). Borrowed from the import's name
    /// where it can be.
    pub(super) key: Cow<'a, str>,
    pub(super) kind: ImportKind,
    /// Guarded (`try/except ImportError`, `if TYPE_CHECKING:`, a `MODULE_NOT_FOUND` catch):
    /// the code runs without it, in shipped and test files alike, so it is never undeclared.
    pub(super) optional: bool,
    /// Imported by Rust's `build.rs`.
    pub(super) build_script: bool,
    /// A TypeScript `import type` / `export type`, a `typeof import("x")`, an import of a
    /// `.d.ts`: erased from the build.
    pub(super) type_only: bool,
    /// A JS import whose statement begins on an earlier line (`} from "x";`): whether it is
    /// type-only is read from its file when it matters.
    pub(super) continued: bool,
    /// Why a JS import is answered apart from the module's declarations, as `--explain` says
    /// it: a tsconfig alias maps it to a file of the repository (`tsconfig.test.json:8 maps it
    /// to packages/x/src/index.ts`), or a package.json nested in the module declares it for
    /// the files below it. It uses a declaration of its name, but is never undeclared.
    pub(super) answered_apart: Option<String>,
    /// A JS import of a file below a `package.json` nested in the module that declares
    /// other packages, not this one (its path), or a Python one below a `requirements.txt`
    /// nested so (not a test environment's): the file is that package's or application's,
    /// so it is that manifest's to declare, which mesh does not check — the module's is
    /// unsure of it.
    pub(super) package_apart: Option<String>,
    /// A stylesheet's `@import`/`@use`: it uses a declaration of its name, but is never
    /// undeclared (a bare name may be a file on the preprocessor's load path, which is not
    /// read) nor shipped code's dev dependency (a build inlines stylesheets).
    pub(super) stylesheet: bool,
    /// A Rust path beside a glob import that may bring a module of its name (optional too).
    pub(super) glob_scoped: bool,
    /// A Rust path beside an item macro's call (see [`mesh_imports::Import::macro_scoped`]).
    pub(super) macro_scoped: bool,
    /// A crate a Rust intra-doc link names (optional too, of its file's kind).
    pub(super) doc_link: bool,
    /// A Python import inside a function's body (see `Import::in_function`).
    pub(super) in_function: bool,
    /// A Python import of a script that defines no test (see `Import::in_script`), which is
    /// not pytest's `conftest.py` and which no file of the module imports.
    pub(super) in_script: bool,
    /// The guarded import of another file that loads this use's file
    /// (`pkg/extras/__init__.py:9`): why the use is optional though its own line is not
    /// (see [`python_reach::guarded`]).
    pub(super) loaded_by: Option<String>,
    /// A Python module name known by its start (see `Import::prefix`; optional too): it
    /// uses each declaration whose import name it begins.
    pub(super) prefix: bool,
    /// A Python import in code only Pythons older than 3.N run (`Import::before_python`),
    /// when the project requires 3.N or newer: N. It never runs, so it is optional.
    pub(super) older_python: Option<u8>,
    /// A use an expansion makes here — a workspace proc-macro crate's output (see
    /// `World::rust_generated`), another crate's exported `macro_rules!` (`World::rust_macros`)
    /// — with what expands, as `--explain` says it (optional too).
    pub(super) expanded_from: Option<String>,
    pub(super) file: &'a str,
    pub(super) line: u32,
}

impl<'a> Use<'a> {
    /// A use of `key` by `file:line`, of `kind`, with none of the special cases an import's
    /// text or place may add (for uses no import line makes: a component's runtime, a
    /// testdata package's imports).
    pub(super) fn plain(
        language: Language,
        key: Cow<'a, str>,
        kind: ImportKind,
        file: &'a str,
        line: u32,
    ) -> Use<'a> {
        Use {
            language,
            key,
            kind,
            optional: false,
            build_script: false,
            type_only: false,
            continued: false,
            answered_apart: None,
            package_apart: None,
            stylesheet: false,
            glob_scoped: false,
            macro_scoped: false,
            doc_link: false,
            in_function: false,
            in_script: false,
            loaded_by: None,
            prefix: false,
            expanded_from: None,
            older_python: None,
            file,
            line,
        }
    }

    /// Whether a JSDoc comment makes this use (`@import … from 'x'`, `{import('x').T}`):
    /// the JS scanner's only imports that are both type-only and optional (a guarded
    /// `require` is no type; a type import is guarded only so).
    pub(super) fn jsdoc(&self) -> bool {
        self.language == Language::Js && self.type_only && self.optional
    }

    pub(super) fn evidence(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// A declaration with the keys imports match it by.
pub(super) struct Decl {
    pub(super) d: Declared,
    pub(super) keys: Vec<String>,
}

/// Every import of the module that a declaration could answer: standard libraries, its own
/// names (Python's through `sys.path` too), relative paths and `[imports] ignore` patterns
/// left out. A Rust file the build script (`rust_build`) is or includes counts for it.
pub(super) fn uses<'a>(
    world: &World,
    rec: &'a crate::store::ModuleRecord,
    m: &ModuleSource,
    man: &Manifests,
) -> Vec<Use<'a>> {
    let rust_build = man.rust_build.as_ref();
    let min_python = (man.pyproject_table.as_ref()).and_then(super::declared::min_python);
    let root_aliases = world
        .js_roots
        .get(m.repo)
        .map_or(&[][..], |r| r.aliases.as_slice());
    let ignore = mesh_imports::globs(&m.manifest.ignore, false);
    let prefix = if m.dir.is_empty() {
        String::new()
    } else {
        format!("{}/", m.dir)
    };
    let mut keys = UseKeys::new(rec, m, &prefix);
    // A package that declares itself (pnpm's `"@pnpm/x": "workspace:*"` devDependency, so its
    // tests import it by name, as its users do) uses that declaration when its tests import
    // itself; its shipped code importing its own name is left unjudged, as before (Node
    // resolves it through the package's `exports`, or the import fails whatever it declares).
    let mut self_declared = Vec::new();
    if let Some(v) = &man.package_json_value {
        keys.own_js.retain(|own| match js::declares(v, own) {
            true => {
                self_declared.push(own.clone());
                false
            }
            false => true,
        });
    }
    let snap = world.loaded.snapshot.repo_of(m);
    // Read once, when a `baseUrl` alias asks whether a file is there.
    let root_tree = std::cell::OnceCell::new();
    let mut tree = None;
    let mut on_path = python_path::SysPath::new(&rec.files, &prefix, man, |rel: &str| {
        let tree = tree.get_or_insert_with(|| snap.repo.find_tree(m.tree).ok());
        blob_text(snap, tree.as_ref()?, rel).ok().flatten()
    });
    let own_package = (man.package_json_value.as_ref()).and_then(|v| v.get("name")?.as_str());
    let mut nested = Nested::new(
        snap,
        m.tree,
        &prefix,
        &["package.json"],
        js::nested_package_names,
    );
    let mut nested_deno = Nested::new(
        snap,
        m.tree,
        &prefix,
        &["deno.json", "deno.jsonc"],
        aliases::deno_import_keys,
    );
    let mut nested_requirements = Nested::new(
        snap,
        m.tree,
        &prefix,
        python_path::REQUIREMENTS_FILES,
        python_path::requirement_keys,
    );
    let packed = man
        .package_json_value
        .as_ref()
        .and_then(packed::Packed::read);
    let guarded = python_reach::guarded(
        &rec.files,
        &python_reach::entry_points(man.pyproject_table.as_ref()),
    );
    let shipped_python = python_reach::shipped_by_import(&rec.files, &prefix);
    let test_globs = mesh_imports::globs(&man.tools.test_globs, true);
    let names_entry = (man.package_json_value.as_ref()).is_some_and(|v| {
        ["main", "module", "exports"]
            .iter()
            .any(|k| v.get(k).is_some())
    });
    let shipped_configs = js::shipped_configs(&rec.files, (names_entry, man.js_workspace_root));
    // The names a Python file of the module imports others by, each dotted part (`from
    // tests.helpers import mock` → `tests`, `helpers`, `mock`): a script one of them names is
    // a helper tests import, not one a person runs. Read only when a script is there.
    let imported_parts: std::cell::OnceCell<HashSet<&str>> = std::cell::OnceCell::new();
    let imported_parts = || {
        imported_parts.get_or_init(|| {
            (rec.files.iter())
                .filter(|f| f.language == Language::Python)
                .flat_map(|f| f.imports.iter())
                .flat_map(|i| i.name.split('.'))
                .filter(|p| !p.is_empty())
                .collect()
        })
    };
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut own_said = HashSet::new();
    // Python imports are set beside Python declarations only: a module without them (a JS
    // app keeping its Python backend's files) reads none of its Python files' paths.
    let python_checked = man.python_checked();
    for f in &rec.files {
        if f.language == Language::Python && !python_checked {
            continue;
        }
        let loaded_by = guarded.get(f.path.as_str());
        // A script of the tests no runner collects: not pytest's `conftest.py`, nor a helper
        // another file imports.
        let hand_script =
            f.language == Language::Python && f.imports.first().is_some_and(|i| i.in_script) && {
                let name = f.path.rsplit('/').next().unwrap_or(&f.path);
                let stem = name.strip_suffix(".py").unwrap_or(name);
                name != "conftest.py" && !imported_parts().contains(stem)
            };
        let rel = f.path.strip_prefix(&prefix).unwrap_or(&f.path);
        let shipped_js = f.language == Language::Js && f.kind == ImportKind::Build;
        let task_file = f.language == Language::Js
            && f.kind == ImportKind::Dev
            && mesh_imports::place::is_task_file(rel);
        // A JS test runner's setup file is test code wherever it lies.
        let test_support = shipped_js
            && (tools::is_test_support(rel, &man.tools.test_setup) || test_globs.is_match(rel));
        // An example outside the package's `files` (in a directory of files run by hand at
        // the package's top: `examples/`, `scripts/`): never installed, run from the
        // repository.
        let unpacked = shipped_js
            && rel
                .split_once('/')
                .is_some_and(|(top, _)| super::doubt::by_hand_dir(top))
            && packed.as_ref().is_some_and(|p| !p.holds(rel));
        let file_kind = match (test_support || unpacked, loaded_by) {
            (true, _) => ImportKind::Dev,
            (false, Some(_)) => ImportKind::Optional,
            (false, None)
                if shipped_configs.contains(f.path.as_str())
                    || shipped_python.contains(f.path.as_str()) =>
            {
                ImportKind::Build
            }
            (false, None) => f.kind,
        };
        for imp in f.imports.iter() {
            // Code written for the crates expanding a proc macro is theirs: see
            // `World::rust_generated`. An exported `macro_rules!` body is also this crate's
            // (`in_macro`): it may expand it itself.
            if imp.generated && !imp.in_macro {
                continue;
            }
            // An empty set still splits every name into a candidate path: skip it.
            if !ignore.is_empty() && ignore.is_match(&imp.name) {
                continue;
            }
            let Some(key) = keys.key(f.language, rel, &imp.name) else {
                if f.language == Language::Python {
                    python::own_evidence(world, &keys, f, imp, &mut own_said);
                }
                continue;
            };
            if imp.in_doc && !man.rust_doctests {
                if let Some(p) = world.probe.filter(|p| p.names(&key)) {
                    p.say(format!(
                        "{}:{} names it in a doc test, which rustdoc does not compile: `[lib] doctest = false` in Cargo.toml",
                        f.path, imp.line
                    ));
                }
                continue;
            }
            if f.language == Language::Python {
                let top = key.split('.').next().unwrap_or(&key);
                if let Some(why) = on_path.local(&keys.local_python, rel, &key) {
                    if let Some(p) = world.probe.filter(|p| p.names(top)) {
                        p.say(format!(
                            "imported by {}:{}, and it is the module's own: {why}",
                            f.path, imp.line
                        ));
                    }
                    continue;
                }
                if python::namespace_only(world, &keys, f, imp, &key) {
                    continue;
                }
                if let Some(dir) = keys.local_python.namespace_miss(rel, &key)
                    && let Some(p) = world.probe.filter(|p| python::probed(p, &key))
                {
                    p.say(format!(
                        "imported by {}:{}, and not the module's own: `{dir}/` beside it is a namespace directory (no __init__.py) that does not hold `{key}`",
                        f.path, imp.line
                    ));
                }
            }
            if unpacked && let Some(p) = world.probe.filter(|p| p.names(&key)) {
                p.say(format!(
                    "{} is outside the package's `files` list: never installed, so its imports are development code's",
                    f.path
                ));
            }
            let script = match rust_build {
                Some((s, inc, modules)) if f.language == Language::Rust => (
                    rel == s || modules.iter().any(|m| m == rel),
                    inc.iter().any(|i| i == rel),
                ),
                _ => (false, false),
            };
            let mut one = new_use(f, imp, key, file_kind, script.0);
            // Code only Pythons older than the project allows run (a backport's import in
            // the `else` of `if sys.version_info >= (3, 10):`) never runs: owed nothing.
            if imp
                .before_python
                .is_some_and(|n| min_python.is_some_and(|m| m >= n))
            {
                one.optional = true;
                one.older_python = imp.before_python;
            }
            // A task runner's build (ckan's `gulpfile.js`) copying a package's files out of
            // `node_modules` into the static assets it ships: what it copies ships, while
            // what it `require`s (its plugins) only builds.
            if task_file && imp.text.contains("node_modules/") {
                one.kind = ImportKind::Build;
            }
            one.in_script = hand_script;
            if imp.kind == ImportKind::Build {
                one.loaded_by = loaded_by.cloned();
            }
            if one.kind == ImportKind::Build && self_declared.iter().any(|o| *o == one.key) {
                continue;
            }
            if one.language == Language::Js {
                let dev = one.kind == ImportKind::Dev || one.type_only;
                let there = |path: &str| {
                    let tree = root_tree.get_or_init(|| snap.root_tree().ok());
                    tree.as_ref().is_some_and(|t| aliases::file_there(t, path))
                };
                let key = &one.key;
                let aliased = aliases::alias_for(
                    &man.js_paths,
                    root_aliases,
                    &imp.name,
                    dev,
                    &there,
                )
                .map(|a| {
                    let to = a.path_of(&imp.name);
                    format!(
                        "{} maps it to {to}: a file of the repository, no package to declare",
                        a.at
                    )
                });
                let declared_apart = || {
                    let by = nested.answering(rel, |names| names.iter().any(|n| n == key))?;
                    Some(format!(
                        "{by} declares it for the files below it, a package of its own"
                    ))
                };
                // Not in what npm ships: there the package's manifest declares.
                let mapped = || match one.kind {
                    ImportKind::Build => None,
                    _ => deno_mapped(&mut nested_deno, rel, &imp.name),
                };
                one.answered_apart = aliased.or_else(declared_apart).or_else(mapped);
                // A package of its own (a template copied into a new project with its
                // manifest, a server deployed apart) declares for its files, not the module.
                if one.answered_apart.is_none() {
                    // Declaring only the module itself (preact's `compat/package.json`,
                    // whose peer is `preact`) is a subpath of the module, not a package.
                    one.package_apart = nested.answering(rel, |names| {
                        names.iter().any(|n| Some(n.as_str()) != own_package)
                    });
                }
            }
            if one.language == Language::Python {
                let key = &one.key;
                let lists = |keys: &Vec<String>| {
                    keys.iter().any(|k| {
                        key == k
                            || key
                                .strip_prefix(k.as_str())
                                .is_some_and(|r| r.starts_with('.'))
                    })
                };
                // Not inside a package the module ships: its files run where it is installed.
                let apart = |p: &String| {
                    let dir = p.strip_prefix(prefix.as_str()).unwrap_or(p);
                    let dir = dir.rsplit_once('/').map_or("", |(d, _)| d);
                    !keys.local_python.is_package(dir)
                };
                one.answered_apart = nested_requirements
                    .answering(rel, lists)
                    .filter(apart)
                    .map(|p| format!("{p} declares it for the files below it, which run apart"));
                // One it does not list is still that file's to declare, not the module's: an
                // application of its own (camel's `apps/dilemma/requirements.txt`) — unless it
                // is a test environment, which the module's tests run in.
                if one.answered_apart.is_none() && one.package_apart.is_none() {
                    let tests = |p: &String| {
                        p.split('/')
                            .any(|d| matches!(d, "test" | "tests" | "testing"))
                    };
                    one.package_apart = nested_requirements
                        .answering(rel, |_| true)
                        .filter(|p| apart(p) && !tests(p));
                }
            }
            // In a bundled package a built-in's bare name (`import process from "process"`) is
            // also the npm polyfill of that name, which a browser bundle resolves it to: a
            // use of such a declaration, never owed. (Node itself resolves the built-in.)
            if one.language == Language::Js
                && one.key == "node:"
                && !imp.name.starts_with("node:")
                && man.tools.bundles()
            {
                let bare = imp.name.split('/').next().unwrap_or(&imp.name);
                let polyfill = Use {
                    key: Cow::Borrowed(bare),
                    optional: true,
                    ..one.clone()
                };
                push_first(&mut out, &mut seen, polyfill);
            }
            push_import(&mut out, &mut seen, one, script.1);
        }
        if let Some(runtime) = component_runtime(f) {
            push_import(&mut out, &mut seen, runtime, false);
        }
    }
    out
}

/// A component file's compiled code imports its framework's runtime (`.astro` pages compile to
/// imports of `astro/compiler-runtime`, `.svelte` to `svelte/internal`, `.vue` to `vue`), which
/// its text never names: a use of that package by the file's code, never one owed (the
/// framework's own tooling supplies it in a repository that declares nothing).
pub(super) fn component_runtime(f: &ScannedFile) -> Option<Use<'_>> {
    if f.language != Language::Js {
        return None;
    }
    let runtime = js::component_runtime(&f.path)?;
    let plain = Use::plain(Language::Js, Cow::Borrowed(runtime), f.kind, &f.path, 1);
    Some(Use {
        optional: true,
        ..plain
    })
}

/// What a module calls its own, by which an import's name becomes the key a declaration
/// matches, or none (a standard library, the module's own names).
pub(super) struct UseKeys {
    pub(super) own_rust: Vec<String>,
    pub(super) own_js: Vec<String>,
    pub(super) own_python: Vec<String>,
    pub(super) local_python: python_path::LocalPython,
}

impl UseKeys {
    /// The names module `m` (`rec`, its files below `prefix`) provides and resolves itself.
    pub(super) fn new(rec: &crate::store::ModuleRecord, m: &ModuleSource, prefix: &str) -> UseKeys {
        let own = |lang: Language| -> Vec<String> {
            rec.manifests
                .provides
                .iter()
                .filter(|(l, _)| *l == lang)
                .map(|(_, n)| n.to_lowercase())
                .collect()
        };
        let (own_rust, own_js) = (own(Language::Rust), own(Language::Js));
        let own_python = python_path::own_python_names(own(Language::Python), &rec.files, prefix);
        let local_python = python_path::local_python_names(&rec.files, &m.dir, &own_python);
        UseKeys {
            own_rust,
            own_js,
            own_python,
            local_python,
        }
    }

    /// The key an import `name` of a `lang` file (module-relative `rel`) is matched by; `None`
    /// when no declaration could answer it.
    pub(super) fn key<'n>(&self, lang: Language, rel: &str, name: &'n str) -> Option<Cow<'n, str>> {
        match lang {
            Language::Rust => {
                let top = name.split("::").next().unwrap_or(name);
                // A crate name is lowercase: `Kind::` or `TokenTree::` in a `use` is an
                // item of this crate (an enum's variants brought in), never a dependency.
                if stdlib::rust(top)
                    || self.own_rust.iter().any(|o| o == top)
                    || !top.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                {
                    return None;
                }
                Some(Cow::Borrowed(top))
            }
            Language::Js => {
                if stdlib::node(name) {
                    Some(Cow::Borrowed("node:"))
                } else {
                    match names::js_package(name) {
                        Some(p) if !self.own_js.iter().any(|o| o == p) => Some(Cow::Borrowed(p)),
                        _ => None,
                    }
                }
            }
            Language::Go => {
                if stdlib::go(name) {
                    return None;
                }
                Some(Cow::Borrowed(name))
            }
            Language::Python => {
                let lower = name.to_lowercase();
                let top = name.split('.').next().unwrap_or("");
                if lower.starts_with('.')
                    || (stdlib::python(top) && !stdlib::python_filled(top))
                    || self
                        .own_python
                        .iter()
                        .any(|o| names::segment_prefix(o, &lower, "."))
                    || self.local_python.is_local(rel, &lower)
                {
                    return None;
                }
                // Matched to a declaration with a Google client's module version dropped:
                // the mesh's own and local names are matched as written, first.
                Some(Cow::Owned(names::google_unversioned(&lower).into_owned()))
            }
        }
    }
}

/// Why a JS import of the module's file `rel` named `name` is answered by a `deno.json`
/// nested above the file (`nested`, read by [`aliases::deno_import_keys`]), if one maps it.
fn deno_mapped(nested: &mut Nested<Vec<(String, bool)>>, rel: &str, name: &str) -> Option<String> {
    let by = nested.answering(rel, |keys| keys.iter().any(|k| aliases::deno_maps(k, name)))?;
    Some(format!(
        "{by} maps it in its `imports`: Deno resolves it for the files below it"
    ))
}

/// The use the import `imp` of file `f` (whose code is of `file_kind`) makes of `key`;
/// `build_script` when the file is the build script.
fn new_use<'a>(
    f: &'a ScannedFile,
    imp: &'a mesh_imports::Import,
    key: Cow<'a, str>,
    file_kind: ImportKind,
    build_script: bool,
) -> Use<'a> {
    let text = imp.text.trim_start();
    let js = f.language == Language::Js;
    // `import nox` in the noxfile nox runs: the command brings it. `import audioop`, which
    // newer Pythons dropped, is owed nothing: older ones have it (as `curses` is owed
    // nothing where only Windows lacks it).
    let never_owed = f.language == Language::Python
        && (super::python::runner_of(&f.path, &key).is_some()
            || stdlib::python_filled(key.split('.').next().unwrap_or("")));
    // `jsr:@std/assert` or `npm:chalk@5`: Deno fetches the package the specifier names, so
    // it answers a declaration of it but owes none.
    let self_declaring = js && (imp.name.starts_with("jsr:") || imp.name.starts_with("npm:"));
    // rustdoc resolves an intra-doc link against the normal dependencies: shipped code's use.
    let kind = match imp.in_doc_link {
        true => file_kind,
        false => imp.kind.min(file_kind),
    };
    Use {
        language: f.language,
        key,
        kind,
        // A `.pyi` stub's imports are optional where the file stands, whatever each says.
        optional: imp.kind == ImportKind::Optional
            || file_kind == ImportKind::Optional
            || imp.in_macro
            || imp.prefix
            || imp.glob_scoped
            || imp.in_doc_link
            || never_owed
            || self_declaring,
        build_script,
        type_only: js && js::type_only_text(&f.path, text),
        continued: js && text.starts_with('}'),
        answered_apart: None,
        package_apart: None,
        stylesheet: js && mesh_imports::style::syntax_of(&f.path).is_some(),
        glob_scoped: imp.glob_scoped,
        macro_scoped: imp.macro_scoped,
        doc_link: imp.in_doc_link,
        in_function: imp.in_function,
        in_script: false,
        loaded_by: None,
        prefix: imp.prefix,
        expanded_from: None,
        older_python: None,
        file: &f.path,
        line: imp.line,
    }
}

/// Pushes the use `one`, after the build script's use of the same import when the build
/// script includes its file (`included`).
fn push_import<'a>(
    out: &mut Vec<Use<'a>>,
    seen: &mut HashSet<(Cow<'a, str>, u16)>,
    one: Use<'a>,
    included: bool,
) {
    if included {
        let also = Use {
            build_script: true,
            ..one.clone()
        };
        push_first(out, seen, also);
    }
    push_first(out, seen, one);
}

/// Pushes `u` unless a use alike in all that matching reads (key, language, kind, guard,
/// build script, type-only, statement begun earlier) came before: the first is the evidence,
/// and a module imports the same names from many files.
fn push_first<'a>(out: &mut Vec<Use<'a>>, seen: &mut HashSet<(Cow<'a, str>, u16)>, u: Use<'a>) {
    let lang: u16 = match u.language {
        Language::Rust => 0,
        Language::Js => 1,
        Language::Go => 2,
        Language::Python => 3,
    };
    let kind: u16 = match u.kind {
        ImportKind::Dev => 0,
        ImportKind::Optional => 1,
        ImportKind::Build => 2,
    };
    let flags = [
        u.optional,
        u.build_script,
        u.type_only,
        u.continued,
        u.answered_apart.is_some(),
        u.stylesheet,
        u.glob_scoped,
        u.macro_scoped,
        u.doc_link,
        u.in_function,
        u.prefix,
    ]
    .iter()
    .fold(0u16, |acc, &b| (acc << 1) | u16::from(b));
    let alike = (lang * 3 + kind) << 11 | flags;
    if seen.insert((u.key.clone(), alike)) {
        out.push(u);
    }
}

/// Reads whether the multi-line statements of shipped JS imports that only a dev declaration
/// (or none) answers are `import type { … } from "x"`: the scan keeps the specifier's line
/// (`} from "x";`), so the statement's first line is read from the file, once per file and
/// only for these.
pub(super) fn js_statements(snap: &RepoSnapshot, decls: &[Declared], uses: &mut [Use]) {
    let shipped: Vec<&str> = decls
        .iter()
        .filter(|d| d.scope != Scope::Dev && names::js_typed_package(&d.name).is_none())
        .map(|d| d.name.as_str())
        .collect();
    let Ok(root) = snap.repo.find_tree(snap.tree) else {
        return;
    };
    let mut files: HashMap<&str, Option<String>> = HashMap::new();
    for u in uses.iter_mut() {
        if !u.continued
            || u.type_only
            || u.kind != ImportKind::Build
            || shipped.contains(&u.key.as_ref())
        {
            continue;
        }
        let src = files
            .entry(u.file)
            .or_insert_with(|| blob_text(snap, &root, u.file).ok().flatten());
        u.type_only = src
            .as_deref()
            .is_some_and(|s| js::statement_is_type_only(s, u.line));
    }
}
