//! Doubt: what makes a finding a guess rather than a fact.
//!
//! The comparison weighs declarations against imports. Some evidence it cannot weigh: a
//! dependency's name written in a config or a string (a loader, a plugin, a preset, a command
//! a task runner calls — loaded by name, never imported), an import that only scripts run by
//! hand make, an import whose name is also a file or directory of the repository (a local
//! module on a path mesh does not follow). A finding with such evidence is *unsure*: listed
//! apart, with the evidence, and never failing `--check` — a finding a maintainer cannot trust
//! is worse than none. (A name written in a config or a string is [`super::mentions`]'.)

use super::Use;
use super::local_names::LocalNames;
use super::{DriftKind, Finding, lockfile, names};
use crate::source::{self, ModuleSource, RepoSnapshot, SourceError};
use mesh_imports::{ImportKind, Language};

/// Directory names whose files a person runs by hand, with what they install themselves:
/// examples, scripts, docs, benchmarks, notebooks — and `.github/`, whose scripts a CI
/// workflow runs after installing what they need (`pip install semver packaging`).
const BY_HAND: &[&str] = &[
    ".github",
    "example",
    "examples",
    "script",
    "scripts",
    "doc",
    "docs",
    "demo",
    "demos",
    "benchmark",
    "benchmarks",
    "tutorial",
    "tutorials",
    "notebook",
    "notebooks",
    "cookbook",
    "cookbooks",
    "recipes",
    "playground",
    "sandbox",
    "sample",
    "samples",
];

/// Whether a file (module-relative `rel`) is run by hand: a notebook, or a file in a
/// directory of such files.
pub(super) fn by_hand(rel: &str) -> bool {
    if mesh_imports::notebook::is_notebook(rel) {
        return true;
    }
    let dirs = rel.rsplit_once('/').map_or("", |(d, _)| d);
    // `sample/` below the top may be a package's own module (statistical sampling), shipped.
    (dirs.split('/').enumerate())
        .any(|(i, d)| by_hand_dir(d) && (i == 0 || !matches!(d, "sample" | "samples")))
}

/// Whether a directory's name is one of files run by hand ([`BY_HAND`]), or such a one's
/// sources (`docs_src`, `examples-code`), or says its tests are run by hand
/// (`core_manual_tests`: tests no runner collects; not a package's `manual/` module).
pub(super) fn by_hand_dir(dir: &str) -> bool {
    let dir = dir.to_ascii_lowercase();
    let w: Vec<&str> = words(&dir).collect();
    BY_HAND.contains(&dir.as_str())
        || matches!(w[..], [first, "src" | "source" | "sources" | "code"] if BY_HAND.contains(&first))
        || (w.contains(&"manual") && w.iter().any(|w| matches!(*w, "test" | "tests")))
}

/// Whether a Python import name says that it names no module (`not_a_package`,
/// `no_such_module`, `nonexistingmodule`, `does_not_exist`), its separators aside.
fn says_missing(key: &str) -> bool {
    const SAID: &[&str] = &[
        "nonexist",
        "notexist",
        "doesnotexist",
        "doesntexist",
        "dontexist",
        "inexistent",
        "nosuchmodule",
        "nosuchpackage",
        "notamodule",
        "notapackage",
        "notarealmodule",
        "notarealpackage",
        "missingmodule",
        "missingpackage",
        "fakemodule",
        "fakepackage",
        "bogusmodule",
        "boguspackage",
    ];
    let squashed: String = (key.chars())
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    SAID.iter().any(|s| squashed.contains(s))
}

/// Whether a file (module-relative `rel`) is in a directory of vendored code (`_vendor/`,
/// `vendored/`): another project's sources copied in. Not a `vendor/` (a marketplace's
/// sellers are vendors too).
fn vendored(rel: &str) -> bool {
    let dirs = rel.rsplit_once('/').map_or("", |(d, _)| d);
    (dirs.split('/')).any(|d| matches!(d, "_vendor" | "vendored" | "_vendored"))
}

/// The words of a file or directory name, split where `_` or `-` joins them.
fn words(name: &str) -> impl Iterator<Item = &str> {
    name.split(['_', '-']).filter(|w| !w.is_empty())
}

/// Whether a Python file is test code by its path: below a `tests`, `test` or `testing`
/// directory, or named `test_*.py` or `*_test.py` — not every dev file (an example script at
/// an examples package's root is run by hand, but no runner's either way).
fn test_path(file: &str) -> bool {
    let (dirs, name) = file.rsplit_once('/').unwrap_or(("", file));
    dirs.split('/')
        .any(|d| matches!(d, "tests" | "test" | "testing"))
        || name.starts_with("test_")
        || name.ends_with("_test.py")
}

/// ` and N more` of a list of `n` shown by its first.
fn and_more(n: usize) -> String {
    match n {
        0 | 1 => String::new(),
        n => format!(" and {} more", n - 1),
    }
}

/// The doubt about an undeclared import of `lang` whose unanswered uses are `uses` (the first
/// is the finding's evidence) in the module at `dir`: imported only by files run by hand, or
/// named like a file or directory of the repository (`local`) that no package of the mesh is.
/// `commands` are what the module's scripts and CI run: a test script they run is no
/// person's.
pub(super) fn undeclared(
    lang: Language,
    uses: &[&Use],
    dir: &str,
    local: &LocalNames,
    commands: &str,
) -> Option<String> {
    let first = uses.first()?;
    // wasmtime's `bindgen!({ … })` makes the modules (`exports`, `types`) the paths beside it
    // start with: a crate or the macro's output, which only expanding it tells.
    if lang == Language::Rust && uses.iter().all(|u| u.macro_scoped) {
        return Some(format!(
            "{} stands beside an item macro's call in its module (`bindgen!`, `from_witx!`), whose output may be a module of this name",
            first.evidence()
        ));
    }
    // Rust's and Go's examples are compiled by the build tool's own test command: an
    // undeclared import there breaks `cargo test`, so it is a fact.
    if !matches!(lang, Language::Js | Language::Python) {
        return None;
    }
    let prefix = format!("{dir}/");
    let rel = |u: &Use| match dir.is_empty() {
        true => u.file.to_string(),
        false => u.file.strip_prefix(&prefix).unwrap_or(u.file).to_string(),
    };
    if let Some(p) = &first.package_apart
        && uses.iter().all(|u| u.package_apart.is_some())
    {
        return Some(format!(
            "imported by {}, a file of the package of {p}, which declares others but not it: that manifest's to declare (mesh checks it not: no module stands for it), not this module's",
            first.evidence()
        ));
    }
    if uses.iter().all(|u| by_hand(&rel(u))) {
        let more = and_more(uses.len());
        return Some(format!(
            "imported only by {}{more}, in a directory of files run by hand (examples, scripts, docs) or by CI (`.github/`), or notebooks: they run with what their reader or workflow installs",
            first.evidence()
        ));
    }
    // `import not_a_package` in a test of what a failed import does (nautobot's
    // `no_such_module`, django-cms's `nonexistingmodule`): the name says no package has it.
    if lang == Language::Python && says_missing(&first.key) {
        return Some(format!(
            "`{}` is named as no module (imported by {}): code testing what a failed import does imports one that does not exist",
            first.key,
            first.evidence()
        ));
    }
    // `metaflow/_vendor/typeguard/_pytest_plugin.py`: a library copied in whole, whose
    // optional parts (a pytest plugin, a Python 2 path) its host may never load.
    if lang == Language::Python && uses.iter().all(|u| vendored(&rel(u))) {
        let more = and_more(uses.len());
        return Some(format!(
            "imported only by {}{more}, in a vendored copy of another project: its optional parts may be code the module never loads",
            first.evidence()
        ));
    }
    // `tests/memory/test_stress_api.py` with a `__main__` block and no test: no runner
    // collects it; a person runs it against a live server, with what they installed.
    // Unless CI runs it (browser-use's `python tests/ci/evaluate_tasks.py`), in the project's
    // environment.
    let test_script = |u: &&Use| {
        let rel = rel(u);
        // Named by path, or run as a module (`python -m tests.bench.run`).
        let dotted = rel.strip_suffix(".py").unwrap_or(&rel).replace('/', ".");
        u.kind == ImportKind::Dev
            && u.in_script
            && test_path(&rel)
            && !commands.contains(rel.as_str())
            && !commands.contains(u.file)
            && !commands.contains(&dotted)
    };
    if lang == Language::Python && uses.iter().all(test_script) {
        let more = and_more(uses.len());
        return Some(format!(
            "imported only by {}{more}, test code that defines no test but a `__main__` block: a script no test runner collects, run by a person with what they installed",
            first.evidence()
        ));
    }
    // Every shipped import of it inside a function: it runs when the function is called,
    // the idiom for an optional integration (marimo's formatters import `altair` so, behind
    // a check that it is installed) — or a declaration forgotten, which only reading tells.
    let shipped: Vec<&&Use> = uses
        .iter()
        .filter(|u| u.kind == ImportKind::Build && !u.optional)
        .collect();
    // A `__main__.py` runs whole whenever the program does.
    let lazy = |u: &&&Use| u.in_function && !u.file.ends_with("__main__.py");
    if lang == Language::Python && !shipped.is_empty() && shipped.iter().all(lazy) {
        let more = and_more(shipped.len());
        return Some(format!(
            "shipped code imports it only inside functions or a `__main__` block ({}{more}): a lazy import runs when its function is called, as a library imports an optional integration its caller installs, and a `__main__` block only when a person runs the file",
            shipped[0].evidence()
        ));
    }
    // `import 'uno.css'`: a stylesheet's name, which a bundler plugin serves as a virtual
    // module — or a package so named (`normalize.css`), which only the bundler config tells.
    let style = [".css", ".scss", ".sass", ".less", ".styl"];
    if lang == Language::Js
        && !first.key.contains('/')
        && style.iter().any(|s| first.key.ends_with(s))
    {
        return Some(format!(
            "`{}` is a stylesheet's name: a bundler plugin may serve it as a virtual module (`uno.css`)",
            first.key
        ));
    }
    if lang == Language::Js && first.key.starts_with('@') {
        return None;
    }
    // `import run_prompt` beside `run_prompt.py`: a script (or a test pytest imports) has its
    // own directory first on `sys.path`, so the file is what it imports.
    if lang == Language::Python
        && let Some(beside) = uses
            .iter()
            .map(|u| local.beside(&first.key, u.file))
            .collect::<Option<Vec<String>>>()
    {
        return Some(format!(
            "`{}` stands beside {}: a file run as a script, or a test pytest runs, has its own directory first on `sys.path`, so it may import that file",
            beside[0],
            first.evidence()
        ));
    }
    let at = local.at(&first.key, lang, dir)?;
    Some(format!(
        "`{at}` in the repository bears its name: it may be a local module on a path mesh does not follow (a `sys.path` entry, a bundler alias, a runner's roots)"
    ))
}

/// Marks each unused JS finding of module `i` that another module's code imports, when module
/// `i`'s code imports that module's files by relative path, or — when it bundles — its
/// shipped code imports them through an alias of its own (`aliases`: a tsconfig `paths` entry
/// `@acme/server/*` → `../../packages/server/src/*`) and that module's shipped code imports
/// it, when what imports that module consumes its source (private, or its `main` TypeScript
/// source, unpublished): a package whose bundler inlines a sibling's source
/// ships what that source imports, declared here. (A compiler that does not bundle, `tsc` or
/// `swc`, leaves the import of the sibling's name for `node_modules` to resolve, and a
/// published sibling is resolved so as its built entry: the alias is for types.)
pub(super) fn sibling_sources(
    world: &super::World,
    i: usize,
    aliases: Option<&[super::aliases::Alias]>,
    found: &mut [Finding],
) {
    let snapshot = &world.loaded.snapshot;
    let m = &snapshot.modules[i];
    let rec = &world.loaded.records[i];
    // Each sibling, where the import of its files is, and whether only its shipped code's
    // imports count (reached through an alias: only what the shipped code imports).
    let mut siblings: Vec<(usize, String, bool)> = Vec::new();
    for f in rec.files.iter().filter(|f| f.language == Language::Js) {
        let from = f.path.rsplit_once('/').map_or("", |(d, _)| d);
        for imp in f.imports.iter() {
            let aliased = |aliases| {
                let shipped = f.kind == ImportKind::Build && imp.kind == ImportKind::Build;
                (super::aliases::alias_for(aliases, &[], &imp.name, false, &|_| false))
                    .filter(|_| shipped)
                    .map(|a| a.path_of(&imp.name))
            };
            let (target, by_alias) = match (imp.name.starts_with("../"), aliases) {
                (true, _) => (mesh_imports::repo_path(&[from, &imp.name]), false),
                (false, Some(aliases)) => (aliased(aliases), true),
                (false, None) => (None, false),
            };
            let Some(target) = target else {
                continue;
            };
            if target == m.dir || source::is_below(&target, &m.dir) {
                continue;
            }
            let owner = snapshot
                .modules
                .iter()
                .enumerate()
                .filter(|(j, o)| *j != i && o.repo == m.repo && source::is_below(&target, &o.dir))
                .max_by_key(|(_, o)| o.dir.len());
            if let Some((j, _)) = owner
                && !siblings.iter().any(|(k, _, _)| *k == j)
                && (!by_alias || world.js_source.get(j) == Some(&true))
            {
                siblings.push((j, format!("{}:{}", f.path, imp.line), by_alias));
            }
        }
    }
    if siblings.is_empty() {
        return;
    }
    for f in found
        .iter_mut()
        .filter(|f| f.kind == DriftKind::Unused && f.doubt.is_none())
    {
        let importer = siblings.iter().find(|(j, _, shipped_only)| {
            (world.loaded.records[*j].files.iter())
                .filter(|sf| !shipped_only || sf.kind == ImportKind::Build)
                .any(|sf| {
                    sf.imports.iter().any(|imp| {
                        names::js_package(&imp.name) == Some(f.dependency.as_str())
                            && (!shipped_only || imp.kind == ImportKind::Build)
                    })
                })
        });
        if let Some((j, at, _)) = importer {
            f.doubt = Some(format!(
                "its code imports {}'s files by path or an alias to them ({at}), and {} imports it: a bundle of both ships it",
                snapshot.modules[*j].name(),
                snapshot.modules[*j].name()
            ));
        }
    }
}

/// Marks each unused finding whose package another declaration of the same manifest
/// (`declared`) depends on itself, as the lockfile `lock` records, where `kin` says the pair
/// is one a maintainer declares on purpose: it comes with that one anyway, and a declaration
/// of it is then most often a pin of the version that one gets or a switch of its features
/// (`@vue/runtime-core` beside `vue`, `aws-sdk-signers` beside `aws-sdk-bedrock-runtime`,
/// `getrandom` with features beside `rand`), which no import shows. Not every such pair:
/// a package as common as `chalk` is a dependency of something in every manifest, and
/// declaring it unused is most often a leftover.
pub(super) fn transitive(
    found: &mut [Finding],
    declared: &[String],
    lock: &lockfile::Depends,
    kin: &dyn Fn(&Finding, &str) -> bool,
) {
    unused_beside(
        found,
        declared,
        &|f, q| kin(f, q) && lock.on(q, &f.dependency),
        &|q| {
            format!(
                "{q}, also declared, depends on it ({} records it): it may be declared to pin the version {q} gets or to switch on its features",
                lock.file
            )
        },
    );
}

/// Marks each unused finding whose package another declaration of the same manifest
/// (`declared`, itself not unused) has as an optional dependency, as the lockfile `lock`
/// records: that one loads it whenever it could be installed (`astro`'s image service looks
/// for `sharp`; a tool for its platform binary), so declaring it is how its users make sure
/// it is — which no import of theirs shows. Of any family: an optional dependency may fail
/// to install quietly, and a declaration is the way to have it fail loudly. An optional
/// *peer* is not taken: the host loads it only when configured to (vitest's `jsdom`, vite's
/// `sass`), which a config already shows when it is so.
pub(super) fn optionally_loaded(
    found: &mut [Finding],
    declared: &[String],
    lock: &lockfile::Depends,
) {
    unused_beside(
        found,
        declared,
        &|f, q| lock.loads(q, &f.dependency),
        &|q| {
            format!(
                "{q}, also declared, loads it when it is installed: it is an optional dependency of {q} ({} records it), which a declaration makes sure is installed",
                lock.file
            )
        },
    );
}

/// Marks each sure unused finding with `why` of the first other declaration `q` of the same
/// manifest (`declared`), itself not unused, for which `by(finding, q)` holds.
pub(super) fn unused_beside(
    found: &mut [Finding],
    declared: &[String],
    by: &dyn Fn(&Finding, &str) -> bool,
    why: &dyn Fn(&str) -> String,
) {
    let unused: Vec<String> = found
        .iter()
        .filter(|f| f.kind == DriftKind::Unused)
        .map(|f| f.dependency.clone())
        .collect();
    for f in found
        .iter_mut()
        .filter(|f| f.kind == DriftKind::Unused && f.doubt.is_none())
    {
        let q = declared
            .iter()
            .find(|q| **q != f.dependency && !unused.contains(q) && by(f, q));
        if let Some(q) = q {
            f.doubt = Some(why(q));
        }
    }
}

/// A package's family: the first word of its scope, or of its name when it has none
/// (`@vue/runtime-core` and `vue` are `vue`'s, `aws-sdk-signers` is `aws`'s), lowercase.
pub(super) fn family(package: &str) -> String {
    let name = package.strip_prefix('@').unwrap_or(package);
    name.split(['/', '-', '_', '.'])
        .next()
        .unwrap_or(name)
        .to_ascii_lowercase()
}

/// Marks the undeclared findings of a JS package the bundler config at its workspace root
/// builds (`how` says so) whose package is one of the mesh's (`mesh`): one config building
/// them all inlines the packages' sources through an alias (vue's `@vue/compat` is one
/// bundle of its siblings), leaving nothing to install — or the package lacks one, which
/// only that config tells. A package with a bundler of its own resolves a sibling as any
/// package: undeclared, it is missing.
pub(super) fn bundled_siblings(found: &mut [Finding], how: &str, mesh: &dyn Fn(&str) -> bool) {
    for f in found
        .iter_mut()
        .filter(|f| f.kind == DriftKind::Undeclared && f.doubt.is_none() && mesh(&f.dependency))
    {
        f.doubt = Some(format!(
            "the package is bundled ({how}) and {} is a package of the workspace: the bundler may inline its sources",
            f.dependency
        ));
    }
}

/// Marks the shipped-dev and dev-only findings of a private package (`"private": true` in
/// its `package_json`, parsed), or of one that `in_place` runs from its sources (see
/// [`super::js::runs_in_place`]): it is never installed from a registry, so it runs where its
/// dev dependencies were installed too, unless a deploy leaves them out — which the
/// repository does not say; which section holds a dependency changes no install of it. So
/// are the dev-only findings of an app that keeps everything in one section
/// ([`app_in_one_section`]).
pub(super) fn private_package(
    package_json: &serde_json::Value,
    (in_place, default_entry): (bool, bool),
    found: &mut [Finding],
) {
    // (An app with no dev section has no shipped-dev finding to doubt.)
    let (shipped_dev, dev_only) = if package_json.get("private")
        == Some(&serde_json::Value::Bool(true))
    {
        (
            Some(
                "the package is private: it runs where it was built, dev dependencies installed, unless a deploy leaves them out (`npm ci --omit=dev`)",
            ),
            "the package is private: it is installed where it runs with its dev dependencies, so the section changes no install unless a deploy leaves them out",
        )
    } else if in_place {
        (
            Some(
                "the package runs in place: no script builds it and no entry it names is in the repository, so it runs from its sources where it is, dev dependencies installed",
            ),
            "the package runs in place: no script builds it and no entry it names is in the repository, so it is never installed apart from its dev dependencies",
        )
    } else if app_in_one_section(package_json, default_entry) {
        (
            None,
            "the package declares no devDependencies and publishes no entry (`main`, `exports`, `bin`, `files`): an app keeping all it needs in one section, where which section holds a dependency changes no install",
        )
    } else {
        return;
    };
    for f in found.iter_mut().filter(|f| f.doubt.is_none()) {
        f.doubt = match f.kind {
            DriftKind::ShippedDev => shipped_dev,
            DriftKind::DevOnly => Some(dev_only),
            _ => None,
        }
        .map(str::to_string);
    }
}

/// Whether a package.json is an app's that keeps every dependency in one section: no
/// `devDependencies`, and nothing a published library has — no entry a registry's users
/// would load (`main`, `module`, `exports`, `bin`, `types`, `typings`, `files`, nor Node's
/// default `index.js`: `default_entry`), no `license`, `repository` or `publishConfig` —
/// jj's Astro site, whose config loads the remark plugins it declares beside astro.
fn app_in_one_section(package_json: &serde_json::Value, default_entry: bool) -> bool {
    const LIBRARY_KEYS: &[&str] = &[
        "main",
        "module",
        "exports",
        "bin",
        "types",
        "typings",
        "files",
        "license",
        "repository",
        "publishConfig",
    ];
    package_json.get("devDependencies").is_none()
        && !default_entry
        && !LIBRARY_KEYS.iter().any(|k| package_json.get(*k).is_some())
}

/// Whether the import (or the distribution it would be) `name` may be the distribution
/// `d`'s, by their names: it is a word of `d`'s or begins one (`faiss` of `faiss-gpu-cu12`,
/// `mem0` of `mem0ai`), or it is the first two words of a longer one, a namespace's top
/// module (`llama_index`, of `llama_index.core`, beside `llama-index-readers-file`, which
/// brings it), a Django app's name without its first word (`phonenumber_field` of
/// `django-phonenumber-field`), a word behind `py` (`xdg` of `pyxdg`), or the last word
/// behind two letters of the words before it, the first theirs (`ftlangdetect` of
/// `fasttext-langdetect`).
fn word_of(d: &str, name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace(['-', '.'], "_");
    let d = d.to_ascii_lowercase();
    let words = |s: &str| -> Vec<String> {
        s.split(['-', '_', '.'])
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (dw, nw) = (words(&d), words(&name));
    dw.iter()
        .any(|w| *w == name || (name.len() >= 3 && w.starts_with(&name)))
        // A word that is the name behind `py` (`pyxdg` is imported as `xdg`).
        || (name.len() >= 3 && dw.iter().any(|w| w.strip_prefix("py") == Some(name.as_str())))
        || (dw.len() > 2 && nw.len() == 2 && dw[..2] == nw[..])
        // A Django app's, its framework's word dropped (`phonenumber_field` of
        // `django-phonenumber-field`): no other word, which an integration package puts
        // before the library it wraps (`langchain-google-genai`).
        || (nw.len() >= 2 && dw.len() == nw.len() + 1 && dw[0] == "django" && dw[1..] == nw[..])
        // The last word behind two letters of those before it, the first theirs
        // (`ftlangdetect` of `fasttext-langdetect`); not a third (`aioredis` is no
        // `asyncio-redis`).
        || (nw.len() == 1 && dw.len() >= 2 && dw.last().is_some_and(|last| {
            let head = dw[..dw.len() - 1].concat();
            last.len() >= 4
                && name.strip_suffix(last.as_str()).is_some_and(|initials| {
                    initials.len() <= 2
                        && head.chars().next().is_some_and(|c| initials.starts_with(c))
                        && subsequence(initials, &head)
                })
        }))
}

/// Whether the letters of `short` are in `long`, in order.
fn subsequence(short: &str, long: &str) -> bool {
    let mut rest = long.chars();
    short.chars().all(|c| rest.any(|l| l == c))
}

/// Marks the findings of one manifest (`found`) that may be one dependency seen twice: a
/// package declared and unused whose import name mesh only guesses (`known` says which it
/// knows: for Python the tables, Debian's packages, an installed environment, the mesh's own;
/// for Rust the workspace's crates), beside an import declared nowhere whose name is a word of
/// the package's or begins one (`faiss-gpu-cu12` is imported as `faiss`, the crate
/// `criterion2` as `criterion`, `rolldown-notify` as `notify`) — or, when `alone` pairs are
/// taken (Python), the one such import beside the one such package. The import may be the
/// package's, so neither is sure; either alone is. A guarded import no declaration answers
/// (`guarded`: `try: import mem0`, which is never owed) pairs the same way, and makes the
/// package unsure.
pub(super) fn name_guesses(
    found: &mut [Finding],
    known: &dyn Fn(&str) -> bool,
    alone: bool,
    guarded: &[String],
) {
    let guessed: Vec<String> = found
        .iter()
        .filter(|f| f.kind == DriftKind::Unused && f.doubt.is_none() && !known(&f.dependency))
        // A type stub provides no module code imports: never a guess at one.
        .filter(|f| names::stub_of(&names::pep503(&f.dependency)).is_none())
        .map(|f| f.dependency.clone())
        .collect();
    if guessed.is_empty() {
        return;
    }
    // The distributions an undeclared import may be: those one of whose words it is or begins
    // (`faiss` of `faiss-gpu-cu12`, `mem0` of `mem0ai`) — or, when the manifest has one guess
    // and one import no known distribution provides, that one. A guess never casts doubt on
    // every import of a module.
    let unknown_imports = found
        .iter()
        .filter(|f| f.kind == DriftKind::Undeclared && !known(&f.dependency))
        .count();
    let may_be = |f: &Finding| -> Vec<&String> {
        let alone = alone && guessed.len() == 1 && unknown_imports == 1 && !known(&f.dependency);
        let name = f.dependency.to_ascii_lowercase().replace(['-', '.'], "_");
        guessed
            .iter()
            .filter(|d| alone || word_of(d, &name))
            .collect()
    };
    // An undeclared import already unsure for another reason still makes its pair unsure.
    let pairs: Vec<(usize, Vec<&String>)> = (0..found.len())
        .filter(|&i| found[i].kind == DriftKind::Undeclared)
        .map(|i| (i, may_be(&found[i])))
        .filter(|(_, d)| !d.is_empty())
        .collect();
    let list = |names: &mut dyn Iterator<Item = &String>| {
        names
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut doubts: Vec<(usize, String)> = Vec::new();
    for (i, dists) in pairs.iter().filter(|(i, _)| found[*i].doubt.is_none()) {
        doubts.push((
            *i,
            format!(
                "{} is declared and imported by no name mesh knows: it may provide this",
                list(&mut dists.iter().copied())
            ),
        ));
    }
    for (i, f) in found.iter().enumerate() {
        if f.kind != DriftKind::Unused || !guessed.contains(&f.dependency) {
            continue;
        }
        let guarded_pair = guarded.iter().filter(|g| word_of(&f.dependency, g));
        let mut imports = pairs
            .iter()
            .filter(|(_, d)| d.contains(&&f.dependency))
            .map(|(j, _)| &found[*j].dependency)
            .chain(guarded_pair)
            .peekable();
        if imports.peek().is_some() {
            doubts.push((
                i,
                format!(
                    "no table says what it is imported as, and the module imports {}, which no declaration answers: it may be this one's",
                    list(&mut imports)
                ),
            ));
        }
    }
    for (i, doubt) in doubts {
        found[i].doubt = Some(doubt);
    }
}

/// Marks each sure unused or dev-only finding of module `m` when some of its code was not
/// read: a file whose blob the repository lacks (its record notes it, see
/// [`crate::graph::NOT_IN_REPOSITORY`]), or a link into a submodule (see
/// [`source::code_not_held`]). What uses the dependency, or uses it in shipped code, may be
/// there. A submodule in the module's tree makes only unused findings unsure.
pub(super) fn code_not_read(
    snap: &RepoSnapshot,
    (m, rec): (&ModuleSource, &crate::store::ModuleRecord),
    found: &mut [Finding],
) -> Result<(), SourceError> {
    let open =
        |f: &Finding| matches!(f.kind, DriftKind::Unused | DriftKind::DevOnly) && f.doubt.is_none();
    if !found.iter().any(open) {
        return Ok(());
    }
    let unread = (rec.manifests.notes.iter())
        .find(|n| n.ends_with(crate::graph::NOT_IN_REPOSITORY))
        .cloned();
    // A submodule in the module's tree may use a dependency, but what it is (a benchmark
    // suite, a private edition) is not known: it says nothing of shipped code. A crate's
    // too: the C library a build script compiles from one links what the crate declares
    // (wezterm's harfbuzz, whose `freetype` its build.rs reads `DEP_FREETYPE_*` of).
    let (what, dev_too) = match unread {
        Some(note) => (Some(note), true),
        None => match source::code_not_held(snap, &m.dir, m.tree, &m.nested)? {
            Some(source::NotHeld::Linked(what)) => (Some(what), true),
            Some(source::NotHeld::Submodule(what)) => (Some(what), false),
            None => (None, false),
        },
    };
    if let Some(what) = what {
        let doubted = |f: &Finding| open(f) && (dev_too || f.kind == DriftKind::Unused);
        for f in found.iter_mut().filter(|f| doubted(f)) {
            f.doubt = Some(format!("{what}: what is there may use it"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_may_be_a_distribution_s_by_its_words() {
        assert!(word_of("faiss-gpu-cu12", "faiss"));
        assert!(word_of("mem0ai", "mem0"));
        // A namespace's top module, the first two words of a longer name; never two names
        // of three words sharing their first two.
        assert!(word_of("llama-index-readers-file", "llama_index"));
        assert!(!word_of("django-rest-knox", "django_rest_passwordreset"));
        assert!(word_of("django-phonenumber-field", "phonenumber_field"));
        assert!(word_of("fasttext-langdetect", "ftlangdetect"));
        assert!(word_of("pyxdg", "xdg"));
        assert!(!word_of("pyxdg", "x"));
        // Not a package beside the one that replaced it: its words and one more, three
        // letters before its last word.
        assert!(!word_of("flask-jwt", "flask_jwt_extended"));
        assert!(!word_of("asyncio-redis", "aioredis"));
        assert!(!word_of("fasttext-langdetect", "langdetectx"));
        assert!(!word_of("fasttext-langdetect", "xlangdetect"));
        assert!(!word_of("langchain-google-genai", "google_genai"));
        assert!(!word_of("acme-cloud-storage", "cloud_storage"));
        assert!(!word_of("llama-index", "llama_index_core"));
        assert!(!word_of("requests-oauthlib", "oauthlib_extra"));
    }

    #[test]
    fn files_run_by_hand_lie_in_their_directories() {
        assert!(by_hand("examples/basic/main.py"));
        assert!(by_hand("Scripts/gen.ts"));
        assert!(by_hand("samples/concepts/audio/player.py"));
        assert!(!by_hand("app/sample/__init__.py"));
        assert!(!by_hand("src/sample/pick.js"));
        assert!(!by_hand("src/examples.py"));
        assert!(!by_hand("src/lib/a.py"));
        // A directory whose first word is one of them, or tests said to be run by hand.
        assert!(by_hand("docs_src/subcommands/tutorial001/main.py"));
        assert!(by_hand("tests/core_manual_tests/providers/canary.py"));
        assert!(!by_hand("src/scriptable/a.py"));
        assert!(!by_hand("src/manuals.py"));
        assert!(!by_hand("src/app/manual/drive.py"));
        assert!(!by_hand("tests/manual/test_smoke.py"));
        // Not a file named for a demo, nor a directory named for examples that are not
        // their sources (tests' helpers).
        assert!(!by_hand("components/Demo.vue"));
        assert!(!by_hand("gdrive_append_example.py"));
        assert!(!by_hand("tests/example_modules/bank.py"));
    }

    #[test]
    fn a_name_may_say_it_is_no_module() {
        for missing in [
            "not_a_package",
            "no_such_module",
            "nonexistingmodule",
            "pkg.does_not_exist",
            "fake_module",
        ] {
            assert!(says_missing(missing), "{missing}");
        }
        for real in ["nose", "notebook", "fakeredis", "existing", "such"] {
            assert!(!says_missing(real), "{real}");
        }
    }

    #[test]
    fn vendored_code_lies_in_its_directories() {
        assert!(vendored("metaflow/_vendor/typeguard/_pytest_plugin.py"));
        assert!(vendored("src/vendored/six.py"));
        assert!(!vendored("src/vendors/stripe.py"));
        assert!(!vendored("shop/vendor/payouts.py"));
        assert!(!vendored("vendor.py"));
    }

    fn finding(kind: DriftKind, dep: &str) -> Finding {
        Finding {
            module: "m".into(),
            dependency: dep.into(),
            kind,
            manifest: "m/pyproject.toml".into(),
            line: None,
            evidence: None,
            doubt: None,
        }
    }

    #[test]
    fn a_crate_whose_library_is_named_otherwise_pairs_only_by_its_words() {
        // rolldown's `criterion2` (imported as `criterion`) and `rolldown-notify` (`notify`);
        // no pair alone for Rust: an unused `left-over` beside an undeclared `regex` stays.
        let known = |c: &str| c == "workspace-crate";
        let mut found = vec![
            finding(DriftKind::Unused, "criterion2"),
            finding(DriftKind::Undeclared, "criterion"),
            finding(DriftKind::Unused, "rolldown-notify"),
            finding(DriftKind::Undeclared, "notify"),
        ];
        name_guesses(&mut found, &known, false, &[]);
        assert!(found.iter().all(|f| f.doubt.is_some()), "{found:?}");
        let mut found = vec![
            finding(DriftKind::Unused, "left-over"),
            finding(DriftKind::Undeclared, "regex"),
        ];
        name_guesses(&mut found, &known, false, &[]);
        assert!(found.iter().all(|f| f.doubt.is_none()), "{found:?}");
    }

    #[test]
    fn a_guessed_distribution_beside_an_unknown_import_is_unsure_either_alone_is_sure() {
        let known = |d: &str| crate::drift::names::python_known(d);
        // `faiss-cpu` is imported as `faiss`: no table says so, and the import is undeclared.
        // `faiss-gpu-cu12` is imported as `faiss` (a known distribution's name too), and
        // `odd-toolkit` as `oddtk`, which no table knows.
        let mut found = vec![
            finding(DriftKind::Unused, "faiss-gpu-cu12"),
            finding(DriftKind::Undeclared, "faiss"),
            finding(DriftKind::Undeclared, "requests"),
            finding(DriftKind::Unused, "requests-toolbelt-x"),
            finding(DriftKind::Unused, "numpy"),
        ];
        name_guesses(&mut found, &known, true, &[]);
        let doubt = |i: usize| found[i].doubt.clone().unwrap_or_default();
        assert!(doubt(0).contains("`faiss`"), "{}", doubt(0));
        assert!(doubt(1).contains("`faiss-gpu-cu12`"), "{}", doubt(1));
        // A known import is only a guessed distribution's when it is one of its words.
        assert!(doubt(2).contains("`requests-toolbelt-x`"), "{}", doubt(2));
        assert!(!doubt(2).contains("faiss"), "{}", doubt(2));
        // Debian's packages show what `numpy` is imported as: no guess.
        assert_eq!(found[4].doubt, None);
        let mut found = vec![
            finding(DriftKind::Unused, "odd-toolkit"),
            finding(DriftKind::Undeclared, "oddtk"),
        ];
        name_guesses(&mut found, &known, true, &[]);
        assert!(found.iter().all(|f| f.doubt.is_some()), "{found:?}");
        // Two guesses and an unrelated unknown import: no pairing (pydantic-ai's dev names
        // once put every import of its root in doubt).
        let mut found = vec![
            finding(DriftKind::Unused, "odd-toolkit"),
            finding(DriftKind::Unused, "another-odd"),
            finding(DriftKind::Undeclared, "oddtk"),
        ];
        name_guesses(&mut found, &known, true, &[]);
        assert!(found.iter().all(|f| f.doubt.is_none()), "{found:?}");
        let mut found = vec![
            finding(DriftKind::Unused, "mem0ai"),
            finding(DriftKind::Unused, "another-odd"),
            finding(DriftKind::Undeclared, "mem0"),
        ];
        name_guesses(&mut found, &known, true, &[]);
        assert!(
            found[0].doubt.is_some() && found[2].doubt.is_some(),
            "{found:?}"
        );
        assert!(found[1].doubt.is_none(), "{found:?}");
        let mut alone = vec![finding(DriftKind::Unused, "odd-toolkit")];
        name_guesses(&mut alone, &known, true, &[]);
        assert_eq!(alone[0].doubt, None);
        let mut alone = vec![finding(DriftKind::Undeclared, "oddtk")];
        name_guesses(&mut alone, &known, true, &[]);
        assert_eq!(alone[0].doubt, None);
        // An import already unsure for another reason still makes its pair unsure, and keeps
        // its own doubt.
        let mut found = vec![
            finding(DriftKind::Unused, "odd-toolkit"),
            Finding {
                doubt: Some("a local name".into()),
                ..finding(DriftKind::Undeclared, "oddtk")
            },
        ];
        name_guesses(&mut found, &known, true, &[]);
        assert!(
            found[0]
                .doubt
                .as_deref()
                .is_some_and(|d| d.contains("`oddtk`"))
        );
        assert_eq!(found[1].doubt.as_deref(), Some("a local name"));
    }
}
