//! One ecosystem's declarations beside a module's imports: which declaration an import
//! satisfies, what is declared and unused (or dev-only), what is imported and undeclared.

use super::declared::{Declared, Scope};
use super::explain::Probe;
use super::tools::ToolEvidence;
use super::{Decl, DriftKind, Finding, Use, names};
use crate::source::ModuleSource;
use mesh_imports::{ImportKind, Language};
use std::collections::{BTreeMap, HashMap};

/// What a comparison reads besides the declarations and the imports.
pub(super) struct Around<'a> {
    /// What the module's tools use.
    pub tools: &'a ToolEvidence,
    /// The Go modules of the mesh.
    pub go_modules: &'a [String],
    /// The mesh's Python distributions (PEP 503 name → the import names they provide): an
    /// undeclared import one of them provides is named by it.
    pub python_dists: &'a HashMap<String, Vec<String>>,
    /// The required peers the repository's lockfile records (JS).
    pub js_peers: Option<&'a super::lockfile::Peers>,
    /// The required peers the nearest lockfile below the repository's root records (JS).
    pub js_near_peers: Option<&'a super::lockfile::Peers>,
    /// The dependency `--explain` looks at.
    pub probe: Option<&'a Probe>,
    /// The repository's file and directory names, which an undeclared import may be.
    pub local: &'a super::local_names::LocalNames,
    /// A test file of the module, by its name (`*.test.*`, `*.spec.*`, `__tests__/`, a
    /// `test/` directory): JS test runners' globals are used there.
    pub test_file: Option<&'a str>,
}

impl<'a> Around<'a> {
    /// What Go's and Rust's comparisons read: the mesh's facts, no tool evidence (`none`,
    /// an empty one) and no lockfile.
    pub(super) fn without_tools(world: &'a super::World, none: &'a ToolEvidence) -> Around<'a> {
        Around {
            tools: none,
            go_modules: &world.go_modules,
            python_dists: &world.python_dists,
            js_peers: None,
            js_near_peers: None,
            probe: world.probe,
            local: &world.no_local_names,
            test_file: None,
        }
    }
}

/// Sets one ecosystem's declarations beside its imports and adds the findings to `out`.
pub(super) fn compare(
    m: &ModuleSource,
    lang: Language,
    decls: &[Decl],
    uses: &[&Use],
    manifest: &str,
    around: &Around,
    out: &mut Vec<Finding>,
) {
    let tools = around.tools;
    let matcher = Matcher::new(lang, decls, around);
    if let Some(p) = around.probe {
        probe(p, &matcher, uses, manifest, tools, &m.dir);
    }
    declared_findings(m, &matcher, uses, manifest, around, out);
    let undeclared = undeclared(&matcher, uses);
    for (name, all) in undeclared {
        let u = all[0];
        let dev = matcher.dev_declaration(u);
        // A host's module (`bun`, `vscode`) whose types a section declares, whichever (elysia
        // declares `@types/bun` as a peer as well as for development): the host supplies the
        // module, so nothing is owed.
        if lang == Language::Js
            && HOST_MODULES.contains(&&*u.key)
            && dev.is_none()
            && let Some(d) = matcher.decls.iter().find(|d| matcher.matches(d, u))
        {
            if let Some(p) = around.probe.filter(|p| p.names(&name)) {
                p.say(format!(
                    "{} holds its types, and the host supplies the module: nothing is owed",
                    d.d.name
                ));
            }
            continue;
        }
        // Declared, for development: say what is true — and nothing when the package bundles
        // what its code imports.
        if let Some(d) = dev {
            // A `@types/*` package is erased by the build; what runs is the module it types.
            // When the host supplies that (`vscode` to an extension, `bun` to a Bun program),
            // a dev declaration of its types is where they belong.
            if names::js_typed_package(&d.d.name).is_some() && HOST_MODULES.contains(&&*u.key) {
                if let Some(p) = around.probe.filter(|p| p.names(&d.d.name)) {
                    p.say(format!(
                        "{} holds types only, which the build erases: a dev declaration is where it belongs, so it is never shipped-dev",
                        d.d.name
                    ));
                }
                continue;
            }
            // The runtime itself (`electron`), in an app it runs (its commands run it, or it
            // declares a packager of it): what runs is its built-in module; the package
            // downloads the runtime, which packagers take from the dev declaration. Elsewhere
            // (a CLI spawning the binary whose path `require('electron')` gives) it is owed.
            let runtime = HOST_RUNTIMES.iter().find(|(name, _)| *name == d.d.name);
            if let Some((name, packagers)) = runtime.filter(|_| lang == Language::Js)
                && (tools.runs_command(name)
                    || (matcher.decls.iter()).any(|p| {
                        packagers
                            .iter()
                            .any(|k| names::segment_prefix(k, &p.d.name, "/"))
                    }))
            {
                if let Some(p) = around.probe.filter(|p| p.names(&d.d.name)) {
                    p.say(format!(
                        "{name} installs the runtime the app runs in, whose built-in module its shipped code imports: a dev declaration is where it belongs (packagers read the runtime's version there), so it is never shipped-dev"
                    ));
                }
                continue;
            }
            let bundler = tools.bundler();
            if let Some(p) = around.probe.filter(|p| p.names(&d.d.name))
                && let Some(how) = &bundler
            {
                p.say(format!(
                    "the package is bundled ({how}): shipped code's dev dependencies are inlined, so none is shipped-dev"
                ));
            }
            if bundler.is_none() {
                let evidence = Some(u.evidence());
                let mut f = declared_finding(m, manifest, &d.d, DriftKind::ShippedDev, evidence);
                // Files of a package of their own (a template) are that package's code.
                if all.iter().all(|u| u.package_apart.is_some()) {
                    f.doubt = super::doubt::undeclared(
                        lang,
                        &all,
                        &m.dir,
                        around.local,
                        &around.tools.commands,
                    );
                }
                out.push(f);
            }
            continue;
        }
        let doubt = match lang {
            Language::Python => host_plugin(&all, uses),
            _ => None,
        };
        out.push(Finding {
            module: m.name().to_string(),
            dependency: name,
            kind: DriftKind::Undeclared,
            manifest: manifest.to_string(),
            line: None,
            evidence: Some(u.evidence()),
            doubt: doubt.or_else(|| {
                super::doubt::undeclared(lang, &all, &m.dir, around.local, &around.tools.commands)
            }),
        });
    }
}

/// Python tools that load plugins a package ships, by the module of the tool's plugin API a
/// plugin imports (and nothing else does): mypy runs `strawberry.ext.mypy_plugin` when a
/// user's config names it. Not Sphinx's `sphinx.application`, through which code also runs
/// Sphinx itself.
const PLUGIN_HOSTS: &[(&str, &str)] = &[
    ("mypy", "mypy.plugin"),
    ("pylint", "pylint.checkers"),
    ("hatchling", "hatchling.plugin"),
    ("hatchling", "hatchling.builders.hooks.plugin"),
];

/// Why an undeclared Python import (`of`, its uses) may be owed nothing: every file importing
/// it is a plugin of the tool it names (it imports the tool's plugin API, as `all` shows), and
/// the tool runs it, bringing the import.
fn host_plugin(of: &[&Use], all: &[&Use]) -> Option<String> {
    let top = of.first()?.key.split('.').next()?;
    let api = PLUGIN_HOSTS
        .iter()
        .filter(|(host, _)| *host == top)
        .map(|(_, api)| *api)
        .collect::<Vec<_>>();
    let plugin = |file: &str| {
        all.iter()
            .any(|u| u.file == file && api.iter().any(|a| names::segment_prefix(a, &u.key, ".")))
    };
    (!api.is_empty() && of.iter().all(|u| plugin(u.file))).then(|| {
        format!(
            "{} is a plugin of {top} (it imports {top}'s plugin API): {top} loads it and brings the import, so users of the package need not install it",
            of[0].file
        )
    })
}

/// JS modules a host supplies at run time, which no package installs: an import of one
/// needs only its types (`@types/vscode`, `@types/bun`), for development. VS Code gives an
/// extension `vscode`; the Bun runtime gives every program `bun`.
const HOST_MODULES: &[&str] = &["bun", "vscode"];

/// JS packages that install the runtime a program runs in, whose own module of that name
/// the runtime supplies, each with the packagers that build an app for it: Electron's main
/// process `require('electron')`s its built-in, and the `electron` package only downloads
/// the binary — declared for development, where electron-builder and Electron Forge read its
/// version (electron-builder refuses it among `dependencies`).
const HOST_RUNTIMES: &[(&str, &[&str])] = &[(
    "electron",
    &[
        "electron-builder",
        "@electron-forge",
        "electron-vite",
        "electron-packager",
        "@electron/packager",
        "@todesktop",
    ],
)];

/// Whether the Python declaration `d` installs the module `key` it matches: a type stub
/// (`types-requests`, `celery-types`) describes a module and does not install it — it is
/// used when what it describes is, and answers no import of that — while its own modules
/// (`types_aiobotocore_s3`, boto3-stubs' `mypy_boto3_s3`, which code imports for their type
/// definitions) it does.
fn installs(d: &Decl, key: &str) -> bool {
    let name = d.d.name.as_bytes();
    let maybe_stub = name
        .windows(5)
        .any(|w| w.eq_ignore_ascii_case(b"types") || w.eq_ignore_ascii_case(b"stubs"));
    if !maybe_stub {
        return true;
    }
    let norm = names::pep503(&d.d.name);
    match names::stub_of(&norm) {
        None => true,
        Some(described) => {
            !(names::python_keys(described).iter()).any(|k| names::segment_prefix(k, key, "."))
        }
    }
}

/// One ecosystem's declarations and the rules its imports match them by.
struct Matcher<'a> {
    lang: Language,
    decls: &'a [Decl],
    /// The Go modules of the mesh, which own the packages below their paths.
    go_modules: &'a [String],
    /// What a key's segments are split by (Go `/`, Python `.`); empty where keys match whole.
    sep: &'static str,
    /// The mesh's Python distributions, by what they provide.
    python_dists: &'a HashMap<String, Vec<String>>,
}

impl<'a> Matcher<'a> {
    /// The matcher for `lang`'s declarations `decls`, with the mesh's facts `around`.
    fn new(lang: Language, decls: &'a [Decl], around: &Around<'a>) -> Matcher<'a> {
        let sep = match lang {
            Language::Go => "/",
            Language::Python => ".",
            _ => "",
        };
        Matcher {
            lang,
            decls,
            go_modules: around.go_modules,
            sep,
            python_dists: around.python_dists,
        }
    }

    /// The module a Go package belongs to: the one with the longest path above it (declared
    /// or in the mesh), since `go.opentelemetry.io/otel/sdk/metric` is not
    /// `go.opentelemetry.io/otel`'s.
    fn go_owner(&self, key: &str) -> Option<&'a str> {
        self.decls
            .iter()
            .flat_map(|d| d.keys.iter())
            .chain(self.go_modules)
            .filter(|p| names::segment_prefix(p, key, "/"))
            .max_by_key(|p| p.len())
            .map(String::as_str)
    }

    /// Whether `u` imports what `d` declares, whatever the kinds of either.
    fn matches(&self, d: &Decl, u: &Use) -> bool {
        d.keys.iter().any(|k| {
            if u.prefix {
                k.len() > u.key.len() && k.starts_with(u.key.as_ref())
            } else if self.sep.is_empty() {
                *k == u.key
            } else if self.lang == Language::Go {
                self.go_owner(&u.key) == Some(k.as_str())
            } else {
                names::segment_prefix(k, &u.key, self.sep)
            }
        })
    }

    /// Whether a declaration answers `u` for the code that imports it: a build script's from
    /// build-dependencies, shipped code's from a shipping section (or a dev one for a type).
    fn satisfied(&self, u: &Use) -> bool {
        // A bare namespace (`import google`) comes with any declaration below it
        // (`google-cloud-bigquery`); it names none of them, so it uses none.
        if self.lang == Language::Python && names::is_python_namespace(&u.key) {
            let below = format!("{}.", u.key);
            if (self.decls.iter()).any(|d| d.keys.iter().any(|k| k.starts_with(&below))) {
                return true;
            }
        }
        self.decls.iter().any(|d| {
            self.matches(d, u)
                && (self.lang != Language::Python || installs(d, &u.key))
                && match (u.build_script, u.kind, d.d.scope) {
                    (true, _, scope) => scope == Scope::BuildScript,
                    (false, _, Scope::BuildScript) => false,
                    // A type erased from the build may come from a dev dependency
                    // (`import type`, `@types/x`), and so may a stylesheet the build
                    // inlines; a runtime import may not.
                    (false, ImportKind::Build, Scope::Dev) => u.type_only || u.stylesheet,
                    // `@types/x` in the shipping section gives types, not `x` itself.
                    (false, ImportKind::Build, _) => {
                        names::js_typed_package(&d.d.name).is_none() || u.type_only
                    }
                    (false, _, _) => true,
                }
        })
    }

    /// For a JS runtime import by shipped code that nothing answers: the dev declaration it
    /// matches, if any.
    fn dev_declaration(&self, u: &Use) -> Option<&'a Decl> {
        if self.lang != Language::Js || u.kind != ImportKind::Build || u.build_script {
            return None;
        }
        // The package itself before its types (`lodash` beside `@types/lodash`).
        let dev = |d: &&Decl| d.d.scope == Scope::Dev && self.matches(d, u);
        (self.decls.iter().filter(dev)).min_by_key(|d| names::js_typed_package(&d.d.name).is_some())
    }

    /// The dependency an undeclared import would be declared as.
    fn dependency_name(&self, key: &str) -> String {
        match self.lang {
            Language::Go => names::go_module_guess(key, self.go_modules),
            // A distribution of the mesh that provides it is its name
            // (`opentelemetry.semconv` is opentelemetry-semantic-conventions').
            Language::Python => self
                .python_dists
                .iter()
                .filter_map(|(dist, provided)| {
                    let longest = provided
                        .iter()
                        .filter(|p| names::segment_prefix(p, key, "."))
                        .map(String::len)
                        .max()?;
                    Some((longest, dist))
                })
                .max()
                .map(|(_, dist)| dist.clone())
                .unwrap_or_else(|| names::python_dist_for(key)),
            _ => key.to_string(),
        }
    }
}

/// Adds to `out` each declaration no import (or tool) uses, and each shipping one that only
/// tests, benches and examples import, in declaration order.
fn declared_findings(
    m: &ModuleSource,
    matcher: &Matcher,
    uses: &[&Use],
    manifest: &str,
    around: &Around,
    out: &mut Vec<Finding>,
) {
    let tools = around.tools;
    let all: Vec<Declared> = matcher.decls.iter().map(|d| d.d.clone()).collect();
    // A declared package the module uses (by shipped code when `shipped`), by an import or a
    // tool, that requires `d` installed beside it, as the lockfile records.
    let peer_of_used = |d: &Decl, shipped: bool| -> Option<&Decl> {
        matcher.decls.iter().find(|q| {
            q.d.name != d.d.name
                && peer_recorded(around, &q.d.name, &d.d.name).is_some()
                && (uses
                    .iter()
                    .any(|u| matcher.matches(q, u) && (!shipped || u.kind != ImportKind::Dev))
                    || (!shipped && tools.uses(&q.d, &all)))
        })
    };
    let say_peer = |d: &Decl, q: &Decl, kind: &str| {
        if let Some(p) = around.probe
            && p.names(&d.d.name)
        {
            let by = peer_recorded(around, &q.d.name, &d.d.name).unwrap_or_default();
            p.say(format!(
                "{} requires it installed beside it ({by}), and the module uses {}: not {kind}",
                q.d.name, q.d.name
            ));
        }
    };
    for d in matcher.decls {
        let used: Vec<&&Use> = uses
            .iter()
            .filter(|u| {
                matcher.matches(d, u) && u.build_script == (d.d.scope == Scope::BuildScript)
            })
            .collect();
        // A crate only intra-doc links name is compiled for a link: no code uses it. Beside
        // a use by tests, the links are why it is declared for shipping (rustdoc resolves them
        // against the normal dependencies), so it is not dev-only.
        if used.iter().all(|u| u.doc_link) {
            let tool = tools.uses(&d.d, &all) || ambient_test_types(d, around);
            let peer = match tool || d.d.indirect {
                true => None,
                false => peer_of_used(d, false),
            };
            if let Some(q) = peer {
                say_peer(d, q, "unused");
            }
            if !d.d.indirect && !tool && peer.is_none() {
                push_once(
                    out,
                    declared_finding(m, manifest, &d.d, DriftKind::Unused, None),
                );
            }
            continue;
        }
        // A package only JSDoc comments name (`@type {import('x').T}`) is used, for types:
        // where those comments stand says nothing of where it runs (a config's type names
        // the package its tool loads), so no dev-only.
        if used.iter().all(|u| u.jsdoc()) {
            continue;
        }
        let shipped_use = used.iter().any(|u| u.kind != ImportKind::Dev);
        // Go has one list of requirements: nowhere to move a test-only one.
        let peer = match d.d.scope == Scope::Normal && !shipped_use {
            true => peer_of_used(d, true),
            false => None,
        };
        if let Some(q) = peer {
            say_peer(d, q, "dev-only");
        }
        // Another package's declaration (an enclosing package.json's) is not this one's to
        // move.
        if d.d.scope == Scope::Normal
            && !shipped_use
            && peer.is_none()
            && matcher.lang != Language::Go
            && d.d.elsewhere.is_none()
            && !tools.loads_at_run_time(&d.d, &all)
        {
            let evidence = Some(used[0].evidence());
            push_once(
                out,
                declared_finding(m, manifest, &d.d, DriftKind::DevOnly, evidence),
            );
        }
    }
}

/// Whether the file at `path` is a JS test by its name: `*.test.*`, `*.spec.*`, in
/// `__tests__/` or a `test/` or `tests/` directory.
pub(super) fn is_js_test_file(path: &str) -> bool {
    [".test.", ".spec.", "__tests__/"]
        .iter()
        .any(|p| path.contains(p))
        || ["test/", "tests/"]
            .iter()
            .any(|p| path.starts_with(p) || path.contains(&format!("/{p}")))
}

/// The `@types` packages of test runners' globals (`describe`, `it`, `expect`), which tests
/// use without an import.
const TEST_GLOBAL_TYPES: &[&str] = &["@types/jest", "@types/jasmine", "@types/mocha"];

/// Whether `d` types a test runner's globals and the module has tests run by that runner to
/// use them: with a tsconfig that sets no `types`, TypeScript loads every `@types` package
/// installed, and a test calls `describe` with no import naming its runner (a Create React
/// App's `App.test.tsx` runs under `react-scripts test`). A leftover `@types/jest` in a
/// package whose tests moved to vitest stays unused.
fn ambient_test_types(d: &Decl, around: &Around) -> bool {
    let tools = around.tools;
    if !TEST_GLOBAL_TYPES.contains(&d.d.name.as_str())
        || !tools.tsconfig
        || tools.tsconfig_lists_types
        || !tools.runs_tests_with(&d.d.name)
    {
        return false;
    }
    let Some(test) = around.test_file else {
        return false;
    };
    if let Some(p) = around.probe.filter(|p| p.names(&d.d.name)) {
        p.say(format!(
            "it types a test runner's globals, which tests use with no import, and TypeScript loads it (no tsconfig lists `types`): the module has tests ({})",
            test
        ));
    }
    true
}

/// Where it is recorded that the JS package `package` requires `peer` installed beside it:
/// the repository's lockfile, a workspace package's own manifest, or the package as installed
/// in `node_modules`.
fn peer_recorded(around: &Around, package: &str, peer: &str) -> Option<String> {
    around
        .js_near_peers
        .and_then(|p| p.recorded_by(package, peer))
        .or_else(|| around.js_peers.and_then(|p| p.recorded_by(package, peer)))
        .or_else(|| {
            around
                .tools
                .installed_peers
                .get(package)
                .is_some_and(|p| p.iter().any(|x| x == peer))
                .then(|| "its installed package.json in node_modules declares the peer".to_string())
        })
}

/// Adds `f` unless the same manifest's same dependency is already found so: a package
/// declared in several extras or groups (`all` and `audio`) is one thing to fix, said once at
/// its first declaration (`mesh drift --explain` lists every one).
fn push_once(out: &mut Vec<Finding>, f: Finding) {
    let seen = out.iter().any(|o| {
        o.module == f.module
            && o.manifest == f.manifest
            && o.dependency == f.dependency
            && o.kind == f.kind
    });
    if !seen {
        out.push(f);
    }
}

/// A finding about the declaration `d`, at its line in the file that holds it.
fn declared_finding(
    m: &ModuleSource,
    manifest: &str,
    d: &Declared,
    kind: DriftKind,
    evidence: Option<String>,
) -> Finding {
    Finding {
        module: m.name().to_string(),
        dependency: d.name.clone(),
        kind,
        // The file that holds this declaration (a module may have pyproject.toml and
        // setup.cfg both); `manifest` is it when the names agree (a go.mod above the module).
        manifest: if d.elsewhere.is_none() && manifest.ends_with(&*d.manifest) {
            manifest.to_string()
        } else {
            d.path(&m.dir)
        },
        line: Some(d.line),
        evidence,
        doubt: None,
    }
}

/// The imports no declaration answers, by the dependency each would be declared as (in name
/// order), each with its imports (the first is the evidence).
fn undeclared<'u, 'a>(
    matcher: &Matcher,
    uses: &'u [&'u Use<'a>],
) -> BTreeMap<String, Vec<&'u Use<'a>>> {
    let mut undeclared: BTreeMap<String, Vec<&Use>> = BTreeMap::new();
    let mut named: HashMap<&str, String> = HashMap::new();
    for u in uses {
        // An import a tsconfig alias maps to a file, one a nested package declares, or a
        // stylesheet's, is no package owed.
        if u.optional || u.key == "node:" || u.answered_apart.is_some() || u.stylesheet {
            continue;
        }
        // A JS name npm would refuse for a new package (`RegularModule`, a haste name in
        // jest's test roots) is no package, unless a manifest declares it (a legacy package
        // such as `JSONStream`, which is then held to the usual rules).
        if matcher.lang == Language::Js
            && !names::npm_new_name(&u.key)
            && !matcher.decls.iter().any(|d| matcher.matches(d, u))
        {
            continue;
        }
        if !matcher.satisfied(u) {
            // Named once per import key: a module imports the same names from many files.
            let name = named
                .entry(u.key.as_ref())
                .or_insert_with(|| matcher.dependency_name(&u.key));
            undeclared.entry(name.clone()).or_default().push(u);
        }
    }
    undeclared
}

/// Tells `p` what this comparison sees of the dependency it looks at: each declaration of it
/// (file, line, section), each import of it (file, line, what kind of code, whether a
/// declaration answers it), and the tool or rule that counts it used.
fn probe(
    p: &Probe,
    matcher: &Matcher,
    uses: &[&Use],
    manifest: &str,
    tools: &ToolEvidence,
    dir: &str,
) {
    let all: Vec<Declared> = matcher.decls.iter().map(|d| d.d.clone()).collect();
    for d in matcher.decls.iter().filter(|d| p.names(&d.d.name)) {
        let file = match d.d.elsewhere.is_none() && manifest.ends_with(&*d.d.manifest) {
            true => manifest.to_string(),
            false => d.d.path(dir),
        };
        let section = match d.d.scope {
            Scope::Normal => "for shipping",
            Scope::Dev => "for development",
            Scope::BuildScript => "for the build script",
            Scope::Optional => "as optional (an extra or a peer)",
        };
        let indirect = match (d.d.indirect, &d.d.elsewhere) {
            (true, Some(_)) if matcher.lang == Language::Js && d.d.scope == Scope::Normal => {
                " by an enclosing package.json (Node resolves a bare import through every node_modules above the file, and the package ships with that one — installed only from this repository (private, or its entry TypeScript source), or built by that package's bundler: it answers shipped imports too, and is never called unused here)"
            }
            (true, Some(_)) if matcher.lang == Language::Js => {
                " by an enclosing package.json (Node resolves a bare import through every node_modules above the file: it answers test and type-only imports, and is never called unused here)"
            }
            (true, _) => " (indirect: never called unused)",
            (false, _) => "",
        };
        p.say(format!(
            "declared in {file}:{} {section}{indirect}",
            d.d.line
        ));
        let mut any = false;
        for u in uses.iter().filter(|u| matcher.matches(d, u)) {
            any = true;
            p.say(format!("imported by {} ({})", u.evidence(), describe(u)));
        }
        if !any {
            p.say("no file of the module imports it".to_string());
        }
        if let Some(why) = tools.why(&d.d, &all) {
            p.say(format!("used by a tool: {why}"));
        }
    }
    for u in uses.iter().filter(|u| !matcher.satisfied(u)) {
        // A proc macro's output uses a declaration, and is never owed one.
        if u.expanded_from.is_some() {
            continue;
        }
        if !(p.names(&matcher.dependency_name(&u.key)) || p.names(&u.key)) {
            continue;
        }
        let why = match (&u.answered_apart, u.stylesheet) {
            (Some(why), _) => format!("and {why}"),
            (None, true) => "and no declaration answers it: a stylesheet's bare name may be a file on the preprocessor's load path, so it is never called undeclared".to_string(),
            (None, false) => "and no declaration a clean build reads answers it".to_string(),
        };
        p.say(format!(
            "imported by {} ({}), {why}",
            u.evidence(),
            describe(u)
        ));
    }
}

/// What kind of code an import is in, as `--explain` says it.
fn describe(u: &Use) -> String {
    let mut words = vec![match u.kind {
        ImportKind::Build => "shipped code",
        ImportKind::Dev => "test, bench or example code",
        ImportKind::Optional => "guarded: the code runs without it",
    }];
    let older;
    if let Some(through) = &u.expanded_from {
        words.push(through);
    } else if let Some(n) = u.older_python {
        older = format!(
            "in code only Pythons older than 3.{n} run, which the project's minimum Python leaves out"
        );
        words.push(&older);
    } else if u.optional && u.kind != ImportKind::Optional {
        // Rust's only such imports stand in a macro's body or beside a glob import.
        words.push(match u.language {
            Language::Rust if u.doc_link => {
                "an intra-doc link: rustdoc resolves it against the normal dependencies, though a link alone is no use by code"
            }
            Language::Rust if u.glob_scoped => {
                "beside a glob import (`use x::*`), which may bring a module of this name"
            }
            Language::Python if super::python::runner_of(u.file, &u.key).is_some() => {
                "in a file its own command runs (nox runs noxfile.py), which brings it"
            }
            Language::Python
                if super::stdlib::python_removed(u.key.split('.').next().unwrap_or("")) =>
            {
                "a module newer Pythons removed from the standard library: its backport serves them, older ones have it"
            }
            Language::Python
                if super::stdlib::python_platform(u.key.split('.').next().unwrap_or("")) =>
            {
                "a standard module some platform's Python lacks (Windows' `curses`): its distribution brings it there"
            }
            Language::Rust => "in a macro's body: it resolves where the macro expands",
            Language::Js if super::js::component_runtime(u.file) == Some(&*u.key) => {
                "a component or JSX, whose compiled code imports its runtime"
            }
            _ => "guarded",
        });
    }
    if u.in_function {
        words.push("inside a function");
    }
    let loaded;
    if let Some(by) = &u.loaded_by {
        loaded = format!("in a file loaded only under a guard ({by})");
        words.push(&loaded);
    }
    if u.type_only {
        words.push("type-only");
    }
    if u.stylesheet {
        words.push("a stylesheet's @import/@use");
    }
    if u.file.ends_with(".html") || u.file.ends_with(".htm") {
        words.push("an HTML page's inline module script");
    }
    if u.build_script {
        words.push("the build script");
    }
    words.join(", ")
}
