//! JavaScript's own drift rules: what the package.json files above a package declare for it,
//! and which imports are types only (erased from the build).

use super::declared::{self, Declared, Scope};
use crate::source::{self, RepoSnapshot, SourceError, blob_text};
use std::collections::{HashMap, HashSet};

/// JS findings `js` without the unused and dev-only ones when the package's shipped code is
/// not in the repository: its package.json names an entry (`main`, `module`, `exports`,
/// `bin`) that is not among the module's files, and no JS file of the module is shipped
/// code. The build makes it (prisma's
/// `@prisma/orm-*` packages generate `src-gen/` from internal packages and bundle them),
/// so nothing can be judged unused by its imports; the probe says why once. And without the
/// unused and dev-only runtime dependencies of a package with no JS file at all (not a
/// workspace root).
pub(super) fn without_unused_when_no_code(
    probe: Option<&super::explain::Probe>,
    rec: &crate::store::ModuleRecord,
    package_json: &serde_json::Value,
    workspace_root: bool,
    js: &mut Vec<super::Finding>,
) {
    use super::DriftKind;
    let entries: Vec<(&str, &serde_json::Value)> = ["main", "module", "exports", "bin"]
        .into_iter()
        .filter_map(|k| Some((k, package_json.get(k)?)))
        .collect();
    let entry = entries.first().map(|(k, _)| *k);
    let shipped = rec.files.iter().any(|f| {
        f.language == mesh_imports::Language::Js && f.kind == mesh_imports::ImportKind::Build
    });
    // An entry that is in the repository (a config file named as `main`) is code here.
    let mut targets = Vec::new();
    for (_, v) in &entries {
        string_leaves(v, &mut targets);
    }
    let present = targets.iter().any(|t| {
        let t = t.trim_start_matches("./");
        rec.files
            .iter()
            .any(|f| f.path == t || f.path.strip_suffix(t).is_some_and(|dir| dir.ends_with('/')))
    });
    let unused = |f: &super::Finding| matches!(f.kind, DriftKind::Unused | DriftKind::DevOnly);
    if let Some(entry) = entry.filter(|_| !shipped && !present) {
        if let Some(p) = probe.filter(|p| js.iter().any(|f| unused(f) && p.names(&f.dependency))) {
            p.say(format!(
                "its package.json names `{entry}`, but no shipped JS file of the package is in the repository: its code is made at build time, so nothing is called unused or dev-only"
            ));
        }
        js.retain(|f| !unused(f));
        return;
    }
    // No JS file at all beside a manifest that declares what code would import: the
    // manifest a framework writes for the app it generates (reflex's `reflex.lock/`), or a
    // package whose code is copied in by its build. Its dev dependencies may still be tools
    // its scripts run, and are judged; a workspace root's code is its members'.
    if workspace_root
        || rec
            .files
            .iter()
            .any(|f| f.language == mesh_imports::Language::Js)
    {
        return;
    }
    let runtime: Vec<&str> = ["dependencies", "optionalDependencies", "peerDependencies"]
        .into_iter()
        .filter_map(|k| package_json.get(k)?.as_object())
        .flat_map(|o| o.keys().map(String::as_str))
        .collect();
    let quiet = |f: &super::Finding| unused(f) && runtime.contains(&f.dependency.as_str());
    if let Some(p) = probe.filter(|p| js.iter().any(|f| quiet(f) && p.names(&f.dependency))) {
        p.say(
            "the package has no JS file: the code its dependencies serve is made or put elsewhere (an app a framework generates from this manifest), so none of them is called unused or dev-only"
                .to_string(),
        );
    }
    js.retain(|f| !quiet(f));
}

/// Every string inside `v` (an `exports` map's targets, a `bin` map's files).
fn string_leaves(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| string_leaves(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| string_leaves(x, out)),
        _ => {}
    }
}

/// The declarations of every `package.json` above `dir` up to the repository's root, nearest
/// first, each said where it is (`elsewhere`). `memo` keeps each directory's own.
///
/// Node resolves a bare import through every `node_modules` above the importing file, and a
/// clean install puts an enclosing package's dependencies in its own: the workspace root's
/// (jest keeps `tstyche` and `prettier` there for all 50 packages), and any package a module
/// is nested below (vite's `playground/package.json` holds the `kill-port` its playgrounds'
/// test helpers import), whether or not it is a module. They come back as dev declarations
/// that are never unused: they satisfy dev and type-only imports, never a shipped one (a
/// published package cannot reach the directories above it) — except where the package
/// ships with the enclosing one (`ships_with` says of each enclosing directory): an
/// internal package (see [`is_internal`]) with the repository's production install, which
/// puts the root's `dependencies` beside it (documenso keeps its UI's `@radix-ui/*` in the
/// root's), or one the enclosing package's bundler builds (see [`built_by_enclosing`]),
/// whose shipping declarations and peers are then its own. What such an enclosing
/// package.json declares for shipping (or as a peer) stays so.
pub(crate) fn enclosing(
    snap: &RepoSnapshot,
    repo: usize,
    dir: &str,
    ships_with: &dyn Fn(&str) -> bool,
    memo: &mut HashMap<(usize, String), Vec<Declared>>,
) -> Result<Vec<Declared>, SourceError> {
    let Some(above) = source::above(dir) else {
        return Ok(Vec::new());
    };
    let root = snap.root_tree()?;
    let mut out = Vec::new();
    for at in mesh_imports::ancestors(above) {
        let key = (repo, at.to_string());
        if !memo.contains_key(&key) {
            let text = blob_text(snap, &root, &source::join(at, "package.json"))?;
            let (decls, _) = text
                .as_deref()
                .map(declared::package_json)
                .unwrap_or_default();
            let decls = decls
                .into_iter()
                .map(|mut d| {
                    d.indirect = true;
                    d.elsewhere = Some(at.to_string());
                    d
                })
                .collect();
            memo.insert(key.clone(), decls);
        }
        let ships = ships_with(at);
        out.extend(memo.get(&key).into_iter().flatten().map(|d| {
            let mut d = d.clone();
            if !(ships && matches!(d.scope, Scope::Normal | Scope::Optional)) {
                d.scope = Scope::Dev;
            }
            d
        }));
    }
    Ok(out)
}

/// The directory of the package enclosing module `i` (a JS package, a module of the mesh)
/// whose bundler config at its root names a file inside module `i`'s directory (mem0's
/// `tsup.config.ts` builds `src/oss/src/index.ts`, the sources of the package.json in
/// `src/oss`): its bundle ships that code, under its own declarations.
pub(super) fn built_by_enclosing(
    snapshot: &crate::source::Snapshot,
    manifests: &[super::world::Manifests],
    i: usize,
    memo: &mut HashMap<(usize, String), Option<String>>,
) -> Result<Option<String>, SourceError> {
    let m = &snapshot.modules[i];
    let mut found: Option<&crate::source::ModuleSource> = None;
    for (e, man) in snapshot.modules.iter().zip(manifests) {
        let Some(config) = &man.tools.bundler_config else {
            continue;
        };
        let inside = e.repo == m.repo && source::is_below(&m.dir, &e.dir);
        if !inside || found.is_some_and(|f| f.dir.len() > e.dir.len()) {
            continue;
        }
        let rel = m.dir[e.dir.len()..].trim_start_matches('/');
        let path = source::join(&e.dir, config);
        let text = match memo.entry((e.repo, path)) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let snap = snapshot.repo_of(e);
                let text = blob_text(snap, &snap.root_tree()?, v.key().1.as_str())?;
                v.insert(text)
            }
        };
        if text.as_deref().is_some_and(|t| names_path_below(t, rel)) {
            found = Some(e);
        }
    }
    Ok(found.map(|e| e.dir.clone()))
}

/// Whether `text` names a path below `rel` from its start (`"src/oss/x.ts"`,
/// `'./src/oss/x.ts'`), not one that merely ends so (`src/client/x.ts` for `client`).
fn names_path_below(text: &str, rel: &str) -> bool {
    let needle = format!("{rel}/");
    text.match_indices(&needle).any(|(at, _)| {
        let before = text[..at].strip_suffix("./").unwrap_or(&text[..at]);
        before.is_empty() || before.ends_with(['"', '\'', '`', ' ', '(', '[', ','])
    })
}

/// Whether a package runs where it is, from its sources, never built or installed: no script
/// builds it (see [`has_build_script`]), it names no `files` or `publishConfig`, and no entry
/// it names (`main`, `module`, `exports`, `bin`) is a file of the module (`files`,
/// module-relative paths), and a script runs a source of its own (`tsx ./src/main.ts`): a
/// workspace's local CLI or migration scripts, whose `main` may still be npm init's
/// `index.js`.
pub(crate) fn runs_in_place(v: &serde_json::Value, files: &[&str]) -> bool {
    if has_build_script(v) || v.get("files").is_some() || v.get("publishConfig").is_some() {
        return false;
    }
    let mut targets = Vec::new();
    for key in ["main", "module", "exports", "bin"] {
        if let Some(e) = v.get(key) {
            string_leaves(e, &mut targets);
        }
    }
    let has = |t: &str| {
        let t = t.trim_start_matches("./");
        files.contains(&t)
    };
    // Node's default entry, when none is named.
    if targets.is_empty() {
        targets.push("index.js".to_string());
    }
    // What says it runs in place: a script runs a source of its own (`tsx ./src/main.ts`);
    // a test's, a linter's or an example's script says nothing of how it is installed.
    let runs_own = (v.get("scripts").and_then(|s| s.as_object()))
        .into_iter()
        .flat_map(|s| s.iter())
        .filter(|(name, _)| {
            !["test", "lint", "format", "check", "example", "bench"]
                .iter()
                .any(|w| name.starts_with(w))
        })
        .filter_map(|(_, c)| c.as_str())
        .any(|c| {
            let words: Vec<&str> = c.split_whitespace().collect();
            words.windows(2).any(|w| {
                matches!(
                    w[0],
                    "tsx" | "ts-node" | "node" | "bun" | "esno" | "vite-node"
                ) && has(w[1])
            })
        });
    runs_own && !targets.iter().any(|t| has(t))
}

/// Whether a package's `package.json` (`v`) says it is never installed on its own, only
/// from this repository: `"private": true`, or an entry (`main`, `types`, `exports`) that is
/// TypeScript source (`./index.ts`: Turborepo's internal packages, which no registry could
/// serve uncompiled).
pub(crate) fn is_internal(v: &serde_json::Value) -> bool {
    if v.get("private").and_then(|p| p.as_bool()) == Some(true) {
        return true;
    }
    // `publishConfig` rewrites the entries when it is packed: published.
    if v.get("publishConfig").is_some() {
        return false;
    }
    // What Node loads: `main`, and every entry of `exports` but a `source`, `types` or
    // `development` condition's (a published package points those at its sources).
    let mut entries = Vec::new();
    if let Some(main) = v.get("main").and_then(|m| m.as_str()) {
        entries.push(main.to_string());
    }
    if let Some(e) = v.get("exports") {
        runtime_leaves(e, &mut entries);
    }
    !entries.is_empty() && entries.iter().all(|e| is_typescript_source(e))
}

/// Whether a package is consumed as its source by what imports it in the repository: it is
/// internal ([`is_internal`]), or — not published (no `publishConfig`) — its `main` is
/// TypeScript source (dokploy's server, whose `exports` add built `require` entries beside
/// the source `import` ones): a bundler compiling an importer inlines it.
pub(crate) fn consumed_as_source(v: &serde_json::Value) -> bool {
    is_internal(v)
        || (v.get("publishConfig").is_none()
            && (v.get("main").and_then(|m| m.as_str())).is_some_and(is_typescript_source))
}

/// The strings of an `exports` map Node may load, conditions that name sources or types
/// (`source`, `types`, `development`) left out.
fn runtime_leaves(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| runtime_leaves(x, out)),
        serde_json::Value::Object(o) => o
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "source" | "types" | "development"))
            .for_each(|(_, x)| runtime_leaves(x, out)),
        _ => {}
    }
}

/// The bundler config at the JS workspace root above `dir` (the nearest ancestor whose
/// package.json names `workspaces`, or with a `pnpm-workspace.yaml`), repo-relative: one
/// config there builds the member packages that have no build command of their own (vue's
/// root `rollup.config.js` bundles every `packages/*`; slate's root scripts hand rollup
/// `config/rollup/rollup.config.js`). Looked up once per directory.
pub(crate) fn workspace_bundler(
    snap: &RepoSnapshot,
    repo: usize,
    dir: &str,
    memo: &mut HashMap<(usize, String), Option<String>>,
) -> Result<Option<String>, SourceError> {
    let Some(above) = source::above(dir) else {
        return Ok(None);
    };
    let root = snap.root_tree()?;
    for at in mesh_imports::ancestors(above) {
        let key = (repo, at.to_string());
        if let Some(found) = memo.get(&key) {
            return Ok(found.clone());
        }
        let package = blob_text(snap, &root, &source::join(at, "package.json"))?
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        let workspace = match &package {
            Some(v) => {
                names_workspaces(v)
                    || blob_text(snap, &root, &source::join(at, "pnpm-workspace.yaml"))?.is_some()
            }
            None => false,
        };
        if !workspace {
            continue;
        }
        let mut config = match snap.dir_tree(at)? {
            Some(tree) => source::file_names(snap, &tree)?
                .into_iter()
                .find(|f| super::tools::is_bundler_config(f))
                .map(|f| source::join(at, &f)),
            None => None,
        };
        // Else the config its scripts hand a bundler, where it is.
        if config.is_none()
            && let Some(path) = (package.as_ref())
                .and_then(super::tools::script_config)
                .map(|p| source::join(at, &p))
            && blob_text(snap, &root, &path)?.is_some()
        {
            config = Some(path);
        }
        memo.insert(key, config.clone());
        return Ok(config);
    }
    Ok(None)
}

/// Drops the unused JS findings of the package `i` (a workspace root, or any package other
/// packages are nested below) whose package one below it imports without declaring it
/// itself, where that one's own check counts `i`'s declaration as the answer (a dev or
/// type-only import, or any of an internal package): it resolves it through `i`'s
/// `node_modules` (gradio's root declares `@gradio/tabs`, which `js/core` imports; a test
/// suite's umbrella package declares the database drivers its adapters' test packages
/// import). Their readings now agree: a published package's shipped import stays its own
/// finding, and `i`'s declaration unused.
pub(super) fn serving_members(
    loaded: &crate::graph::Loaded,
    manifests: &[super::Manifests],
    i: usize,
    probe: Option<&super::explain::Probe>,
    found: &mut Vec<super::Finding>,
) {
    let unused = |f: &super::Finding| {
        f.kind == super::DriftKind::Unused && f.manifest.ends_with("package.json")
    };
    if !found.iter().any(unused) {
        return;
    }
    let modules = &loaded.snapshot.modules;
    let root = &modules[i];
    let mut imported: HashMap<&str, &str> = HashMap::new();
    for (j, m) in modules.iter().enumerate() {
        let Some(v) = manifests[j].package_json_value.as_ref() else {
            continue;
        };
        if j == i || m.repo != root.repo || !source::is_below(&m.dir, &root.dir) {
            continue;
        }
        let declares = |name: &str| {
            [
                "dependencies",
                "devDependencies",
                "peerDependencies",
                "optionalDependencies",
            ]
            .iter()
            .any(|s| v.get(s).and_then(|d| d.get(name)).is_some())
        };
        // What its own check answers with an enclosing declaration (see [`enclosing`]): a
        // dev or type-only import, or any of an internal package, which ships with it; a
        // published one's shipped import it owes itself, and says so.
        let internal = is_internal(v);
        let files = loaded.records[j].files.iter();
        for f in files.filter(|f| f.language == mesh_imports::Language::Js) {
            for imp in f.imports.iter() {
                let answered = internal
                    || imp.kind.min(f.kind) != mesh_imports::ImportKind::Build
                    || type_only_text(&f.path, imp.text.trim_start());
                if answered
                    && let Some(p) = super::names::js_package(&imp.name)
                    && !declares(p)
                {
                    imported.entry(p).or_insert(f.path.as_str());
                }
            }
        }
    }
    found.retain(|f| {
        // `@types/x` answers the type imports of `x`.
        let typed = super::names::js_typed_package(&f.dependency);
        let name = typed.as_deref().unwrap_or(&f.dependency);
        let Some(file) = imported.get(name).filter(|_| unused(f)) else {
            return true;
        };
        if let Some(p) = probe.filter(|p| p.names(&f.dependency)) {
            p.say(format!(
                "{file}, in a package below this one, imports it and declares it nowhere: this declaration is what it resolves"
            ));
        }
        false
    });
}

/// Whether a package.json (parsed) names `workspaces`: with a `pnpm-workspace.yaml` beside
/// it, what makes its directory a JS workspace root.
pub(crate) fn names_workspaces(package_json: &serde_json::Value) -> bool {
    package_json.get("workspaces").is_some()
}

/// Whether a package.json's (parsed) `scripts` build the package themselves (see
/// [`is_build_script`]).
pub(crate) fn has_build_script(package_json: &serde_json::Value) -> bool {
    let scripts = package_json.get("scripts").and_then(|s| s.as_object());
    scripts
        .into_iter()
        .flat_map(|s| s.keys())
        .any(|k| is_build_script(k))
}

/// Whether a JS file's name says it is a tool's config (`vite.config.ts`,
/// `i18n.config.ts`): a `config` part between its stem and its extension.
fn config_named(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    let parts: Vec<&str> = file.split('.').collect();
    parts.len() > 2 && parts[1..parts.len() - 1].contains(&"config")
}

/// The module's JS files named like configs (see [`config_named`], dev code by their name)
/// that are its code: one shipped code imports by a relative path (an app's
/// `observability.config.ts` its server's start-up hook loads, `i18n.config.ts` its
/// components import), and every one of a package made of nothing else (a shared
/// `tailwind-config` package, whose consumers import its `tailwind.config.ts`, when its
/// package.json `names_entry` — not another language's project keeping a package.json for
/// its lint or CSS tools —; not a `workspace_root`'s, whose configs are its members' tools).
pub(super) fn shipped_configs(
    files: &[mesh_imports::ScannedFile],
    (names_entry, workspace_root): (bool, bool),
) -> HashSet<&str> {
    use mesh_imports::{ImportKind, Language};
    let js = |f: &&mesh_imports::ScannedFile| f.language == Language::Js;
    let configs: HashMap<&str, &mesh_imports::ScannedFile> = (files.iter().filter(js))
        .filter(|f| f.kind == ImportKind::Dev && config_named(&f.path))
        .map(|f| (f.path.as_str(), f))
        .collect();
    let mut shipped: HashSet<&str> = HashSet::new();
    if configs.is_empty() {
        return shipped;
    }
    // Stylesheets (a theme's CSS beside the config) are no code of the package's own.
    let script = |f: &&mesh_imports::ScannedFile| mesh_imports::style::syntax_of(&f.path).is_none();
    let mut todo: Vec<&mesh_imports::ScannedFile> = (files.iter().filter(js).filter(script))
        .filter(|f| f.kind == ImportKind::Build)
        .collect();
    if todo.is_empty() {
        let only_configs = files.iter().filter(js).filter(script).count() == configs.len();
        return match only_configs && names_entry && !workspace_root {
            true => configs.keys().copied().collect(),
            false => shipped,
        };
    }
    while let Some(f) = todo.pop() {
        let dir = f.path.rsplit_once('/').map_or("", |(d, _)| d);
        for imp in f.imports.iter() {
            if !imp.name.starts_with("./") && !imp.name.starts_with("../") {
                continue;
            }
            let Some(path) = mesh_imports::repo_path(&[dir, &imp.name]) else {
                continue;
            };
            let found = (RESOLVE_TRIES.iter())
                .find_map(|ext| configs.get_key_value(format!("{path}{ext}").as_str()));
            if let Some((&at, &g)) = found
                && shipped.insert(at)
            {
                todo.push(g);
            }
        }
    }
    shipped
}

/// How a relative or aliased JS path names a file, in the order resolvers try: as written,
/// with a script's extension, or a directory's index.
pub(crate) const RESOLVE_TRIES: &[&str] = &[
    "",
    ".ts",
    ".tsx",
    ".d.ts",
    ".js",
    ".jsx",
    ".mjs",
    ".cjs",
    ".mts",
    ".cts",
    ".json",
    ".svelte",
    ".vue",
    "/index.ts",
    "/index.tsx",
    "/index.js",
    "/index.jsx",
    "/index.mjs",
];

/// The first file a relative JS path (repository-relative `path`) names, tried in
/// [`RESOLVE_TRIES`]' order, with its text.
pub(crate) fn resolve_file(
    snap: &RepoSnapshot,
    tree: &gix::Tree,
    path: &str,
) -> Result<Option<(String, String)>, SourceError> {
    for ext in RESOLVE_TRIES {
        let file = format!("{path}{ext}");
        if let Some(text) = blob_text(snap, tree, &file)? {
            return Ok(Some((file, text)));
        }
    }
    Ok(None)
}

/// Whether a package.json declares `package` in any of its dependency sections.
pub(crate) fn declares(package_json: &serde_json::Value, package: &str) -> bool {
    [
        "dependencies",
        "devDependencies",
        "peerDependencies",
        "optionalDependencies",
    ]
    .iter()
    .any(|k| package_json.get(k).and_then(|d| d.get(package)).is_some())
}

/// Whether a package.json script of this name builds the package: `build` or `build:*`,
/// `compile`, `prepack`, `prepare` or `prepublishOnly`.
pub(crate) fn is_build_script(name: &str) -> bool {
    name == "build"
        || name.starts_with("build:")
        || matches!(name, "compile" | "prepack" | "prepare" | "prepublishOnly")
}

/// The names a `package.json` nested in a module declares, in any section (Node walks up
/// through every `node_modules`): a package of its own that no module stands for
/// (kubeflow's nameless `frontend/server/package.json`, built and deployed apart), whose
/// declarations answer its files' imports.
pub(crate) fn nested_package_names(text: &str) -> Vec<String> {
    declared::package_json(text)
        .0
        .into_iter()
        .map(|d| d.name)
        .collect()
}

/// The package a component file's compiled code imports (`.astro` → `astro`, `.svelte` →
/// `svelte`, `.vue` → `vue`), which its text never names; and JSX's automatic runtime
/// (`.jsx`/`.tsx` compile to imports of `react/jsx-runtime`; a project with another
/// `jsxImportSource` declares no `react`, so the use is of nothing there).
pub(crate) fn component_runtime(path: &str) -> Option<&'static str> {
    [
        (".astro", "astro"),
        (".svelte", "svelte"),
        (".vue", "vue"),
        (".jsx", "react"),
        (".tsx", "react"),
    ]
    .into_iter()
    .find(|(ext, _)| path.ends_with(ext))
    .map(|(_, runtime)| runtime)
}

/// Whether `path` is a TypeScript declaration file (`.d.ts`, `.d.mts`, `.d.cts`): types only.
pub(crate) fn is_declaration_file(path: &str) -> bool {
    [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|e| path.ends_with(e))
}

/// Whether `path` is TypeScript source a compiler turns into JS (`.ts`, `.tsx`, `.mts`,
/// `.cts`), not a declaration file.
pub(crate) fn is_typescript_source(path: &str) -> bool {
    [".ts", ".tsx", ".mts", ".cts"]
        .iter()
        .any(|e| path.ends_with(e))
        && !is_declaration_file(path)
}

/// Whether an import is a type only, from its file and its line's text: every import of a
/// declaration file (`.d.ts`), `import type` / `export type`, and `typeof import("x")` (a
/// type query: `let prettier: typeof import('prettier')` in jest-snapshot), and a JSDoc
/// comment's `@import` or `{import('x').T}`, and a triple-slash `<reference types>`.
pub(crate) fn type_only_text(path: &str, text: &str) -> bool {
    is_declaration_file(path)
        || text.starts_with("import type ")
        || text.starts_with("import type{")
        || text.starts_with("export type ")
        || text.starts_with("export type{")
        || text.contains("typeof import(")
        || type_position_import(text)
        || jsdoc_import(text)
        || reference_types(text)
}

/// Whether `text` is a triple-slash directive loading a package's types
/// (`/// <reference types="@types/google.accounts" />`): the compiler reads them, nothing runs.
fn reference_types(text: &str) -> bool {
    text.strip_prefix("///")
        .is_some_and(|rest| rest.trim_start().starts_with("<reference"))
}

/// Whether `text`'s import stands inside a JSDoc block (a JSDoc `@import … from 'x'` or
/// `{import('x')}`, after a `/**` not closed before it, or on a line going on with `*`), as
/// the scanner reads it: TypeScript reads its types, nothing runs it.
fn jsdoc_import(text: &str) -> bool {
    let Some(at) = text.find("@import").or_else(|| text.find("import(")) else {
        return false;
    };
    let lead = &text[..at];
    match lead.rfind("*/") {
        Some(closed) => lead[closed..].contains("/**"),
        None => (text.starts_with('*') && !text.starts_with("*/")) || lead.contains("/**"),
    }
}

/// Whether `text` holds an `import("x").Name` that is a type (`scriptAst?:
/// import('@babel/types').Statement[]`): a member read straight off `import(…)` is only
/// meaningful to TypeScript, as a runtime `import()` gives a promise — but for the promise's
/// own `then`, `catch` and `finally`.
fn type_position_import(text: &str) -> bool {
    text.match_indices("import(").any(|(at, m)| {
        let rest = text[at + m.len()..].trim_start();
        let Some(q) = rest
            .chars()
            .next()
            .filter(|c| matches!(c, '"' | '\'' | '`'))
        else {
            return false;
        };
        let Some((_, after)) = rest[1..].split_once(q) else {
            return false;
        };
        let Some(member) = after
            .trim_start()
            .strip_prefix(')')
            .and_then(|a| a.strip_prefix('.'))
        else {
            return false;
        };
        let name: String = member
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        !name.is_empty() && !matches!(name.as_str(), "then" | "catch" | "finally")
    })
}

/// Whether the statement that ends on 1-based `line` of `src` (a multi-line `import type {`
/// whose specifier stands on its last line, `} from 'x';`) is type-only: its first line is
/// the nearest one above that starts with `import` or `export`.
pub(crate) fn statement_is_type_only(src: &str, line: u32) -> bool {
    let lines: Vec<&str> = src.lines().take(line as usize).collect();
    lines
        .iter()
        .rev()
        .take(500)
        .map(|l| l.trim_start())
        .find(|l| l.starts_with("import") || l.starts_with("export"))
        .is_some_and(|l| type_only_text("", l))
}

/// A package.json's (parsed) `name`, and the peers it declares (required or optional) that
/// the package's shipped files (of `files`) import: what it needs installed beside it to run.
pub(crate) fn imported_peers(
    v: &serde_json::Value,
    files: &[mesh_imports::ScannedFile],
) -> (Option<String>, Vec<String>) {
    let name = v.get("name").and_then(|n| n.as_str()).map(str::to_string);
    let Some(peers) = v.get("peerDependencies").and_then(|p| p.as_object()) else {
        return (name, Vec::new());
    };
    let imported: std::collections::HashSet<&str> = files
        .iter()
        .filter(|f| {
            f.language == mesh_imports::Language::Js && f.kind != mesh_imports::ImportKind::Dev
        })
        .flat_map(|f| f.imports.iter())
        .filter_map(|i| super::names::js_package(&i.name))
        .collect();
    let peers = peers
        .keys()
        .filter(|p| imported.contains(p.as_str()))
        .cloned()
        .collect();
    (name, peers)
}

/// JS ORMs and query builders that load a database driver by the name their config's dialect
/// or client gives (`new Sequelize({ dialect: "postgres" })` requires `pg`; knex's `client:
/// "mysql2"`; TypeORM's `type: "sqlite"`), with the drivers each loads so — each package's own
/// optional peers or documented drivers. Which one the config names is not read: unsure. No import shows the driver; a string of config does.
const DRIVER_LOADERS: &[(&str, &[&str])] = &[
    (
        "sequelize",
        &[
            "pg",
            "pg-hstore",
            "mysql2",
            "mariadb",
            "sqlite3",
            "tedious",
            "oracledb",
            "ibm_db",
            "snowflake-sdk",
        ],
    ),
    (
        "knex",
        &[
            "pg",
            "pg-native",
            "pg-query-stream",
            "mysql",
            "mysql2",
            "sqlite3",
            "better-sqlite3",
            "tedious",
            "oracledb",
        ],
    ),
    (
        "typeorm",
        &[
            "pg",
            "pg-native",
            "pg-query-stream",
            "mysql",
            "mysql2",
            "sqlite3",
            "better-sqlite3",
            "sql.js",
            "mssql",
            "oracledb",
            "mongodb",
            "redis",
            "ioredis",
            "@sap/hana-client",
            "@google-cloud/spanner",
            "hdb-pool",
            "typeorm-aurora-data-api-driver",
        ],
    ),
];

/// Marks each unused finding of a driver another declaration of the manifest (`declared`)
/// loads by a dialect's name ([`DRIVER_LOADERS`]): unsure, since only the config's string
/// tells which driver it loads (outline's `pg` beside `sequelize`).
pub(super) fn drivers_loaded_by_name(declared: &[String], found: &mut [super::Finding]) {
    super::doubt::unused_beside(
        found,
        declared,
        &|f, q| {
            DRIVER_LOADERS
                .iter()
                .any(|(l, drivers)| *l == q && drivers.contains(&f.dependency.as_str()))
        },
        &|q| {
            format!(
                "{q}, also declared, loads a database driver by the name its config gives (a dialect or client string), which no import shows"
            )
        },
    );
}

/// Marks each unused `karma-*` finding beside a declared karma (itself not unused): karma
/// loads every installed `karma-*` package unless its config lists its `plugins`, which only
/// that config tells — so unsure, not used.
pub(super) fn karma_plugins(declared: &[String], found: &mut [super::Finding]) {
    super::doubt::unused_beside(
        found,
        declared,
        &|f, q| q == "karma" && f.dependency.starts_with("karma-"),
        &|_| {
            "karma, also declared, loads every installed karma-* package unless its config lists its `plugins`".to_string()
        },
    );
}

/// Drops each undeclared JS finding whose package a `node_modules` directory committed to
/// the repository holds above every file of the module that imports it (nitro's test
/// fixture app imports `@fixture/nitro-lib`, kept in `test/fixture/node_modules/`): Node
/// resolves the import there, from the repository itself, with nothing to install. One
/// importing file with none above it still needs the declaration.
pub(super) fn committed_packages(
    snap: &RepoSnapshot,
    files: &[mesh_imports::ScannedFile],
    probe: Option<&super::explain::Probe>,
    found: &mut Vec<super::Finding>,
) -> Result<(), SourceError> {
    let undeclared = |f: &super::Finding| {
        f.kind == super::DriftKind::Undeclared && f.manifest.ends_with("package.json")
    };
    if !found.iter().any(undeclared) {
        return Ok(());
    }
    let root = snap.root_tree()?;
    // The committed package.json of `package` nearest above `dir`, by (dir, package).
    let mut memo: HashMap<(String, String), Option<String>> = HashMap::new();
    let mut holder = |dir: &str, package: &str| -> Result<Option<String>, SourceError> {
        let key = (dir.to_string(), package.to_string());
        if let Some(found) = memo.get(&key) {
            return Ok(found.clone());
        }
        let mut at_hand = None;
        for at in mesh_imports::ancestors(dir) {
            let manifest = source::join(at, &format!("node_modules/{package}/package.json"));
            if blob_text(snap, &root, &manifest)?.is_some() {
                at_hand = Some(manifest);
                break;
            }
        }
        memo.insert(key, at_hand.clone());
        Ok(at_hand)
    };
    let mut kept = Vec::with_capacity(found.len());
    for f in found.drain(..) {
        if !undeclared(&f) {
            kept.push(f);
            continue;
        }
        let dep = f.dependency.as_str();
        let importing = (files.iter())
            .filter(|file| file.language == mesh_imports::Language::Js)
            .filter(|file| {
                (file.imports.iter()).any(|i| super::names::js_package(&i.name) == Some(dep))
            });
        let mut first = None;
        let mut every = true;
        for file in importing {
            let dir = file.path.rsplit_once('/').map_or("", |(d, _)| d);
            match holder(dir, dep)? {
                Some(at) => {
                    first.get_or_insert(at);
                }
                None => {
                    every = false;
                    break;
                }
            }
        }
        match first.filter(|_| every) {
            Some(at) => {
                if let Some(p) = probe.filter(|p| p.names(dep)) {
                    p.say(format!(
                        "{at} is committed to the repository, above every file importing it: Node resolves the import there, with nothing to install"
                    ));
                }
            }
            None => kept.push(f),
        }
    }
    *found = kept;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_packages_and_the_paths_a_bundler_config_names() {
        let v = |t: &str| serde_json::from_str::<serde_json::Value>(t).expect("json");
        for internal in [
            r#"{"private": true, "main": "dist/x.js"}"#,
            r#"{"main": "./index.ts"}"#,
            r#"{"exports": {".": "./src/index.ts", "./ui": {"import": "./src/ui.tsx"}}}"#,
        ] {
            assert!(is_internal(&v(internal)), "{internal}");
        }
        for published in [
            r#"{"main": "./src/index.ts", "publishConfig": {"main": "./dist/index.js"}}"#,
            r#"{"exports": {".": {"source": "./src/index.ts", "types": "./dist/index.d.ts", "default": "./dist/index.js"}}}"#,
            r#"{"main": "./dist/index.js", "types": "./src/index.ts"}"#,
            r#"{"types": "./index.d.ts"}"#,
            r#"{}"#,
        ] {
            assert!(!is_internal(&v(published)), "{published}");
        }
        let config =
            "export default [{ entry: ['src/oss/src/index.ts'] }, { entry: [\"./lib/x.ts\"] }]";
        assert!(names_path_below(config, "src/oss"));
        assert!(names_path_below(config, "lib"));
        assert!(!names_path_below(config, "oss"));
        assert!(!names_path_below(config, "src/client"));
    }

    #[test]
    fn type_only_forms() {
        assert!(type_only_text(
            "src/a.ts",
            "import type {Config} from '@jest/types';"
        ));
        assert!(type_only_text("src/a.ts", "export type {X} from 'x';"));
        // A triple-slash directive loads types only.
        assert!(type_only_text(
            "src/one-tap.ts",
            "/// <reference types=\"@types/google.accounts\" />"
        ));
        assert!(!type_only_text("src/a.ts", "// <reference types=\"x\" />"));
        assert!(type_only_text(
            "src/worker.ts",
            "let prettier: typeof import('prettier');"
        ));
        // vue's compiler-sfc: a type read off `import()`; a runtime one's promise is not.
        assert!(type_only_text(
            "src/parse.ts",
            "  scriptAst?: import('@babel/types').Statement[]"
        ));
        assert!(!type_only_text(
            "src/a.ts",
            "const m = import(\"x\").then(m => m.default);"
        ));
        assert!(!type_only_text("src/a.ts", "const m = await import('x');"));
        // A JSDoc block's import is a type; code after a closed comment is not.
        assert!(type_only_text("src/a.js", "/** @import { X } from 'x' */"));
        assert!(type_only_text("src/a.js", "* @param {import('x').T} t"));
        assert!(type_only_text(
            "src/a.js",
            "const a = /** @type {import('x').T} */ (b);"
        ));
        assert!(!type_only_text(
            "src/a.js",
            "/* c8 ignore next */ export const m = await import('x');"
        ));
        assert!(!type_only_text(
            "src/a.js",
            "// const m = await import('x');"
        ));
        // pretty-format's react-is-modules.d.ts: `export * from 'react-is'` in a module block.
        assert!(type_only_text(
            "src/react-is-modules.d.ts",
            "export * from 'react-is';"
        ));
        assert!(!type_only_text("src/a.ts", "import {typeOf} from 'x';"));
        assert!(!type_only_text("src/a.ts", "} from 'prettier-v2';"));
    }

    #[test]
    fn multi_line_statements() {
        // jest-snapshot's InlineSnapshots.ts.
        let src = "import * as path from 'path';\nimport type {\n  CustomParser as PrettierCustomParser,\n  BuiltInParserName as PrettierParserName,\n} from 'prettier-v2';\nimport {\n  a,\n} from 'jest-util';\n";
        assert!(statement_is_type_only(src, 5));
        assert!(!statement_is_type_only(src, 8));
        assert!(!statement_is_type_only(src, 1));
    }
}
