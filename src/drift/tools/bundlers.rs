//! How a JS package is bundled, read from what it runs: a bundler's command in its scripts, a
//! library bundler's config beside it, or a build script of its own that calls a bundler's
//! API. A bundled package inlines what it imports, so its shipped code may import a dev
//! dependency.

use super::command_words;
use crate::source::{RepoSnapshot, SourceError, blob_text};

/// Commands that bundle a JS package: what they bundle is inlined, so shipped code may import
/// a dev dependency.
const BUNDLERS: &[&str] = &[
    "bun build",
    "esbuild",
    "microbundle",
    "ncc build",
    "parcel build",
    "pkgroll",
    "rolldown",
    "rollup",
    "rslib build",
    "rspack",
    "tsdown",
    "tsup",
    "unbuild",
    "vite build",
    "webpack",
];

/// Static-site generators, whose build bundles the whole site (pages, theme and runtime):
/// the package is bundled when its own build script runs one (sqlfluff's docs site), not
/// when a library builds its documentation so (`"docs:build": "vitepress build docs"`).
const STATIC_SITES: &[&str] = &["docusaurus build", "vitepress build", "vuepress build"];

/// The config files of library bundlers, by the name each bundler looks for beside the
/// package (`rolldown.config.ts`, `tsdown.config.mjs`): their presence says how the package
/// is built even when a script runs the bundler through another tool.
const BUNDLER_CONFIGS: &[&str] = &[
    "rolldown.config.",
    "rollup.config.",
    "rslib.config.",
    "tsdown.config.",
    "tsup.config.",
];

/// Nx executors that bundle what the package imports, as the bundler command each runs:
/// esbuild's only with `thirdParty: true`, webpack's and rspack's only for a target other
/// than `node` (or with `externalDependencies: "none"`) — else they leave the packages
/// imported outside the bundle. Nx's rollup executor leaves them out always.
const NX_BUNDLERS: &[(&str, &str)] = &[
    ("esbuild:esbuild", "esbuild"),
    ("rspack:rspack", "rspack"),
    ("vite:build", "vite build"),
    ("webpack:webpack", "webpack"),
];

/// The Nx target of the package that bundles it, as (where it is said, its executor): in
/// package.json's `"nx": {"targets": …}` or a `project.json` beside it (typebot's embed
/// library: `@nx/esbuild:esbuild` with `thirdParty: true` inlines every package it imports,
/// so all of them are dev dependencies on purpose).
pub(super) fn nx_target(
    package_json: &serde_json::Value,
    project_json: Option<&serde_json::Value>,
) -> Option<String> {
    let sources = [
        (
            "package.json's `nx` targets",
            package_json.get("nx").and_then(|n| n.get("targets")),
        ),
        (
            "project.json's targets",
            project_json.and_then(|p| p.get("targets")),
        ),
    ];
    for (said, targets) in sources {
        let Some(targets) = targets.and_then(|t| t.as_object()) else {
            continue;
        };
        for (name, target) in targets {
            let Some(executor) = target.get("executor").and_then(|e| e.as_str()) else {
                continue;
            };
            let Some((scope, run)) = executor.split_once('/') else {
                continue;
            };
            if !matches!(scope, "@nx" | "@nrwl") {
                continue;
            }
            let Some((_, command)) = NX_BUNDLERS.iter().find(|(e, _)| *e == run) else {
                continue;
            };
            let option = |k: &str| target.get("options").and_then(|o| o.get(k));
            let externals = match *command {
                "esbuild" => {
                    option("thirdParty").and_then(|v| v.as_bool()) != Some(true)
                        || option("bundle").and_then(|v| v.as_bool()) == Some(false)
                }
                "webpack" | "rspack" => {
                    option("target").and_then(|v| v.as_str()) == Some("node")
                        && option("externalDependencies").and_then(|v| v.as_str()) != Some("none")
                }
                _ => false,
            };
            if externals {
                continue;
            }
            return Some(format!("{said}: `{name}` runs {executor}"));
        }
    }
    None
}

/// Whether a module-root file is a library bundler's config.
pub(crate) fn is_bundler_config(file: &str) -> bool {
    BUNDLER_CONFIGS.iter().any(|p| file.starts_with(p))
}

/// The config file a package.json build script hands a bundler (`rollup --config
/// ./config/rollup/rollup.config.js`, `-c path`, `--config=path`), relative to the package,
/// as written less a leading `./`: slate's root builds every package with a config kept
/// in a directory of its own.
pub(crate) fn script_config(package_json: &serde_json::Value) -> Option<String> {
    let scripts = package_json.get("scripts")?.as_object()?;
    // A build script's only: a docs site's or a playground's (`docs:build`, `vite --config
    // playground/…`) builds none of the packages.
    (scripts.iter())
        .filter(|(name, _)| crate::drift::js::is_build_script(name))
        .filter_map(|(_, v)| v.as_str())
        .find_map(|line| {
            let words: Vec<&str> = command_words(line).collect();
            let at = (words.iter())
                .position(|w| BUNDLERS.iter().any(|b| b.split(' ').next() == Some(*w)))?;
            let mut rest = words[at + 1..].iter();
            while let Some(w) = rest.next() {
                let path = match w.strip_prefix("--config=") {
                    Some(p) => Some(p),
                    None if matches!(*w, "--config" | "-c") => rest.next().copied(),
                    None => None,
                };
                if let Some(p) = path.filter(|p| p.contains('.') && !p.starts_with('-')) {
                    return Some(p.trim_start_matches("./").to_string());
                }
            }
            None
        })
}

/// The bundler command `commands` run, matched as whole words (`vite build`, but not
/// `node scripts/rollup-notes.js`), or the static-site generator its package.json's build
/// scripts (`build_commands`) run.
pub(super) fn command(commands: &str, build_commands: &str) -> Option<&'static str> {
    bundler_in(BUNDLERS, commands).or_else(|| bundler_in(STATIC_SITES, build_commands))
}

/// The first of `bundlers` that `commands` run, as whole words.
fn bundler_in(bundlers: &[&'static str], commands: &str) -> Option<&'static str> {
    bundlers.iter().copied().find(|b| {
        commands.match_indices(*b).any(|(i, _)| {
            let before = commands[..i].chars().next_back();
            let after = commands[i + b.len()..].chars().next();
            let edge = |c: Option<char>| {
                c.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            };
            edge(before) && edge(after)
        })
    })
}

/// The bundlers whose API a build script may call, by the package it imports.
const BUNDLER_APIS: &[&str] = &[
    "esbuild",
    "tsup",
    "rollup",
    "rolldown",
    "tsdown",
    "vite",
    "webpack",
    "@rspack/core",
    "@vercel/ncc",
];

/// The script of the module's own that a build command of its package.json (parsed; see
/// [`crate::drift::js::is_build_script`]) runs with a JS runtime
/// (`tsx build.ts`, `node scripts/build.mjs`, `bun build.ts`), when it imports a bundler's
/// API: (its path, the bundler). A script is read only when a build command names it.
pub(super) fn bundler_script(
    snap: &RepoSnapshot,
    tree: &gix::Tree,
    package_json: &serde_json::Value,
) -> std::result::Result<Option<(String, String)>, SourceError> {
    let Some(scripts) = package_json.get("scripts").and_then(|s| s.as_object()) else {
        return Ok(None);
    };
    let builds: Vec<&str> = scripts
        .iter()
        .filter(|(k, _)| crate::drift::js::is_build_script(k))
        .filter_map(|(_, c)| c.as_str())
        .collect();
    // And the scripts a build runs by name (pnpm's `"build": "… && pn bundle"`).
    let named: Vec<&str> = scripts
        .iter()
        .filter(|(k, _)| {
            !crate::drift::js::is_build_script(k)
                && builds
                    .iter()
                    .any(|b| command_words(b).any(|w| w == k.as_str()))
        })
        .filter_map(|(_, c)| c.as_str())
        .collect();
    let script_ext = [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"];
    for command in builds.into_iter().chain(named) {
        let words: Vec<&str> = command_words(command).filter(|w| !w.is_empty()).collect();
        for pair in words.windows(2) {
            let runs = super::scripts::is_runtime(pair[0]);
            let file = pair[1].trim_start_matches("./");
            if !runs || !script_ext.iter().any(|x| file.ends_with(x)) || file.contains("..") {
                continue;
            }
            let Some(text) = blob_text(snap, tree, file)? else {
                continue;
            };
            let imports = mesh_imports::js::scan_file(&text);
            if let Some(b) = imports
                .imports
                .iter()
                .find_map(|i| BUNDLER_APIS.iter().find(|b| i.name == **b))
            {
                return Ok(Some((file.to_string(), b.to_string())));
            }
        }
    }
    Ok(None)
}
