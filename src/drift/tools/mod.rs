//! Dependencies a tool uses by name, where no code imports them: a package.json script runs
//! its command, a config file names it (a babel preset, a jest environment, a tsconfig's
//! `extends`), `pyproject.toml` configures it (`[tool.mypy]`), a Makefile, tox/nox file,
//! pre-commit config or CI workflow runs it, or pytest loads it as a plugin. Each rule reads
//! what the repository itself says; the one table ([`TOOL_BINS`]) is for commands whose name
//! differs from their package's.

use super::Manifests;
use super::declared::Declared;
use super::names;
use crate::source::{ModuleSource, RepoSnapshot, Snapshot, SourceError, blob_text};
use mesh_imports::Language;

mod above;
mod bundlers;
mod configs;
mod evidence;
mod python;
mod scripts;

pub(super) use above::configs_above;
pub(super) use evidence::{evidence, workspace_bins, workspace_tools};
pub(crate) use python::DEV_EXTRAS;

use bundlers::bundler_script;
pub(crate) use bundlers::{is_bundler_config, script_config};
use configs::{completions, setup_strings};
pub(crate) use configs::{
    config_host, config_strings, is_babel_config, is_js_config, is_test_runner_config,
    is_test_support, quoted_strings, tsconfig_types,
};

/// Dev tools whose command is neither their package's name nor what the rules of
/// [`command_names`] make of it, as (package, commands): read when the package is not
/// installed (with `node_modules` there, its own `bin` says). Python distributions by their
/// console scripts, as their documentation names them (searxng runs docutils as
/// `rst2html`, nautobot's compose file watchdog as `watchmedo`).
pub(crate) const TOOL_BINS: &[(&str, &[&str])] = &[
    ("@angular/cli", &["ng"]),
    ("@arethetypeswrong/cli", &["attw"]),
    ("@antfu/ni", &["ni", "nr", "nlx", "nu", "nun", "nci", "na"]),
    ("@biomejs/biome", &["biome"]),
    ("@changesets/cli", &["changeset"]),
    ("@crowdin/cli", &["crowdin"]),
    ("@cucumber/cucumber", &["cucumber-js"]),
    ("@docusaurus/core", &["docusaurus"]),
    ("@electron/rebuild", &["electron-rebuild"]),
    ("@graphql-codegen/cli", &["graphql-codegen", "gql-gen"]),
    ("@lhci/cli", &["lhci"]),
    ("@microsoft/api-extractor", &["api-extractor"]),
    ("@napi-rs/cli", &["napi"]),
    ("@nestjs/cli", &["nest"]),
    ("@nuxt/module-builder", &["nuxt-module-build"]),
    ("@playwright/test", &["playwright"]),
    ("@react-router/dev", &["react-router"]),
    ("@remix-run/dev", &["remix"]),
    ("@sentry/cli", &["sentry-cli"]),
    ("@stencil/core", &["stencil"]),
    ("@storybook/cli", &["sb", "storybook"]),
    ("@sveltejs/kit", &["svelte-kit"]),
    ("@sveltejs/package", &["svelte-package"]),
    ("@tauri-apps/cli", &["tauri"]),
    ("@typescript/native-preview", &["tsgo"]),
    ("@vue/cli-service", &["vue-cli-service"]),
    ("@web/test-runner", &["web-test-runner", "wtr"]),
    ("awscli", &["aws"]),
    ("cogapp", &["cog"]),
    ("cython", &["cython", "cythonize"]),
    ("datamodel-code-generator", &["datamodel-codegen"]),
    ("django", &["django-admin"]),
    (
        "docutils",
        &["docutils", "rst2html", "rst2html5", "rst2latex", "rst2man"],
    ),
    ("fabric", &["fab"]),
    ("griffecli", &["griffe"]),
    (
        "grpc-tools",
        &["grpc_tools_node_protoc", "grpc_tools_node_protoc_plugin"],
    ),
    ("invoke", &["invoke", "inv"]),
    ("memory-profiler", &["mprof"]),
    ("mypy", &["mypy", "dmypy", "stubgen"]),
    ("npm-run-all", &["npm-run-all", "run-p", "run-s"]),
    ("npm-run-all2", &["npm-run-all", "run-p", "run-s"]),
    ("pip-tools", &["pip-compile", "pip-sync"]),
    ("poethepoet", &["poe"]),
    ("protobufjs-cli", &["pbjs", "pbts"]),
    ("pylint", &["pylint", "pyreverse", "symilar"]),
    ("pymarkdownlnt", &["pymarkdown"]),
    ("pytest", &["pytest", "py.test"]),
    ("python-dotenv", &["dotenv"]),
    ("python-semantic-release", &["semantic-release"]),
    ("react-email", &["email"]),
    (
        "sphinx",
        &[
            "sphinx-build",
            "sphinx-apidoc",
            "sphinx-autogen",
            "sphinx-quickstart",
        ],
    ),
    ("taskipy", &["task"]),
    ("trigger.dev", &["trigger"]),
    ("typescript", &["tsc", "tsserver"]),
    ("watchdog", &["watchmedo"]),
    ("webpack-cli", &["webpack", "webpack-cli"]),
];

/// The commands a JS package's name makes, by the rules packages follow: its name; without
/// its scope (`@scope/tool` runs `tool`); without a `-cli` suffix (`del-cli` runs `del`,
/// `cpy-cli` `cpy`); and a scope's `cli` package runs the scope's name (`@swc/cli` runs
/// `swc`, `@babel/cli` `babel`). The table's commands where it names the package.
pub(crate) fn command_names(package: &str) -> Vec<String> {
    // Python's names are case-insensitive (`Sphinx`, `Django`).
    if let Some((_, bins)) = TOOL_BINS
        .iter()
        .find(|(p, _)| p.eq_ignore_ascii_case(package))
    {
        return bins.iter().map(|b| b.to_string()).collect();
    }
    let mut out = vec![package.to_string()];
    let (scope, bare) = match package.strip_prefix('@').and_then(|p| p.split_once('/')) {
        Some((scope, bare)) => (Some(scope), bare),
        None => (None, package),
    };
    let mut add = |n: &str| {
        if !n.is_empty() && !out.iter().any(|o| o == n) {
            out.push(n.to_string());
        }
    };
    add(bare);
    add(bare.strip_suffix("-cli").unwrap_or(bare));
    // A `-bin` package ships the binary of its name (`go-task-bin` runs `go-task`).
    add(bare.strip_suffix("-bin").unwrap_or(bare));
    if let Some(scope) = scope
        && bare == "cli"
    {
        add(scope);
    }
    out
}

/// What a module's own files say its tools use.
#[derive(Debug, Default)]
pub struct ToolEvidence {
    /// The text of package.json `scripts`, Makefile, tox.ini, noxfile.py, justfile,
    /// .pre-commit-config.yaml and CI workflows (for a module at the repository's root; for
    /// another, the steps run in its directory).
    pub commands: String,
    /// The commands of its package.json's build scripts (`build`, `build:*`, `prepack`, …).
    pub build_commands: String,
    /// The quoted strings of the module's JS tool configs: `*.config.{js,mjs,cjs,ts,json}`,
    /// `.babelrc*`, `.eslintrc*`, `.prettierrc*`, `tsconfig*.json`, and package.json's
    /// `jest`, `babel`, `eslintConfig` and `prettier` keys.
    pub config_strings: Vec<String>,
    /// The Prisma schema whose generator writes a client (`prisma-client-js`,
    /// `prisma-client`): the client it writes imports `@prisma/client`'s runtime wherever it
    /// is written, a directory git ignores as often as not.
    pub prisma_schema: Option<String>,
    /// A babel config is there: babel (`@babel/core`) runs, and jest transforms through
    /// `babel-jest` by default.
    pub babel_config: bool,
    /// A `tsconfig.json` is there: `typescript` compiles it, and `@types/node` types the
    /// Node globals its code uses without an import.
    pub tsconfig: bool,
    /// A tsconfig at the module's root lists `compilerOptions.types`: TypeScript then loads
    /// only those `@types` packages, not every one installed.
    pub tsconfig_lists_types: bool,
    /// The configs in the directories above the module its tools read for it (see
    /// [`above`]), shared with the other modules below them.
    pub above: Vec<std::sync::Arc<above::AboveConfig>>,
    /// The tools pyproject.toml's `[tool]` table configures (PEP 503): its keys, or the tool
    /// a key is named otherwise than (`poe`: poethepoet).
    pub python_tools: Vec<String>,
    /// Python tools configured by a file of their own at the module's root or the
    /// repository's (`.pre-commit-config.yaml`, `mypy.ini`, a `setup.cfg` section), as
    /// (tool, PEP 503; the file).
    pub python_configs: Vec<(String, String)>,
    /// The distributions (PEP 503) pyproject.toml's development extras list (`dev`, `test`,
    /// `lint`, `typing`, `docs`, …: [`DEV_EXTRAS`]): a tool there is a development tool.
    pub python_dev_extras: Vec<String>,
    /// The files a JS test runner's config names to run around the tests (`setupFiles`,
    /// `setupFilesAfterEnv`, `globalSetup`, `globalTeardown` of jest, vitest, vite and
    /// playwright configs and package.json's `jest`), as written: test code, not shipped.
    pub test_setup: Vec<String>,
    /// The globs of test files a JS test runner's config names by a suffix of its own
    /// (`include: ['src/**/*.clienttest.tsx']`; see [`configs::test_file_globs`]), module-relative:
    /// test code wherever it lies.
    pub test_globs: Vec<String>,
    /// The commands each declared JS package installed in `node_modules` (the module's, or
    /// the repository's root's, in the work tree beside the repository) says in its `bin`.
    pub installed_bins: std::collections::HashMap<String, Vec<String>>,
    /// Each package a config string names or completes to ([`completions`]), with the first
    /// such string: made on first use, as `command_words` is.
    pub config_names: std::cell::OnceCell<std::collections::HashMap<String, String>>,
    /// The words of `commands` (a command's path to `node_modules/.bin/` dropped), each with
    /// the first of [`ToolEvidence::command_lines`] saying it, made on first use: which
    /// command names a tool is asked once per declaration.
    pub command_words: std::cell::OnceCell<std::collections::HashMap<String, usize>>,
    /// The peers each declared JS package installed in `node_modules` requires beside it (its
    /// `peerDependencies` less those `peerDependenciesMeta` marks optional): what a lockfile
    /// would record, read where the repository keeps none.
    pub installed_peers: std::collections::HashMap<String, Vec<String>>,
    /// The tools whose config files are at the module's root, by the file's name (see
    /// [`config_host`]), as (package, file).
    pub config_hosts: Vec<(String, String)>,
    /// A library bundler's config at the module's root (`rolldown.config.ts`,
    /// `tsdown.config.ts`): the package is built by that bundler.
    pub bundler_config: Option<String>,
    /// A script a build command runs (`tsx build.ts`, `node scripts/build.mjs`) that imports
    /// a bundler's API, as (its path in the module, the bundler): drizzle-kit's `build.ts`
    /// calls esbuild and tsup.
    pub bundler_script: Option<(String, String)>,
    /// An Nx target that bundles the package, said where (see [`bundlers::nx_target`]).
    pub nx_bundler: Option<String>,
    /// The bundler config at the JS workspace root above a package with no build command of
    /// its own (repo-relative): that config builds it.
    pub workspace_bundler: Option<String>,
    /// The strings of that config (see [`configs::config_strings`]): a Babel transform it
    /// runs writes imports into the package's compiled code.
    pub workspace_bundler_strings: Vec<String>,
    /// The MkDocs config at the module's root (`mkdocs.yml`), read: MkDocs (and the tools
    /// reading its config) load the theme, plugins and Markdown extensions it names.
    pub mkdocs: Option<configs::MkDocs>,
    /// The extensions of the module's stylesheets a preprocessor compiles (`scss`, `sass`,
    /// `less`, `styl`), each once: a bundler hands them to that compiler by name.
    pub stylesheets: Vec<String>,
    /// The module has TypeScript sources (`.ts`, `.tsx`, not only `.d.ts`): something
    /// compiles or checks them with `typescript` (react-scripts does for an app's `.tsx`
    /// without a tsconfig of its own, which it writes on first run).
    pub typescript_sources: bool,
    /// The packages the scripts outside the package that its scripts run import, each with
    /// the script (see [`scripts`]).
    pub outside_scripts: std::collections::HashMap<String, String>,
    /// A Jupyter notebook of the module (the first, repo-relative): Jupyter's kernel and
    /// front ends (`tools/python.rs`' table), declared for development, run the module's notebooks with no
    /// import.
    pub notebook: Option<String>,
    /// A Python file protoc wrote (`service_pb2.py`, `service_pb2_grpc.py`; the first,
    /// repo-relative): `grpcio-tools`, declared for development, made it.
    pub protoc_output: Option<String>,
    /// A type stub protoc wrote (`service_pb2.pyi`): `mypy-protobuf`'s plugin made it.
    pub protoc_stubs: Option<String>,
    /// The module has a server entry of its own (`app/entry.server.tsx`): a framework builds
    /// its default one only where there is none (see [`DEFAULT_SERVER_ENTRIES`]).
    pub server_entry: bool,
}

/// Whether a module-root file holds commands a person or CI runs.
pub(crate) fn is_command_file(file: &str) -> bool {
    matches!(
        file,
        "Makefile"
            | "makefile"
            | "GNUmakefile"
            | "justfile"
            | "Justfile"
            | ".justfile"
            | "tox.ini"
            | "noxfile.py"
            | "Taskfile.yml"
            | "Taskfile.yaml"
            | "taskfile.yml"
            | "taskfile.yaml"
    ) || file == ".pre-commit-config.yaml"
        || file.ends_with(".sh")
}

impl ToolEvidence {
    /// Whether the module is bundled (`vite build`, `webpack`, `tsup`, `rollup`… in its
    /// commands, or a bundler's config beside it): a dev dependency its shipped code imports
    /// is then inlined, not missing.
    pub fn bundles(&self) -> bool {
        self.bundler().is_some()
    }

    /// What says the module is bundled: the bundler command its commands run, the bundler
    /// config beside it, or the one at its workspace root.
    pub fn bundler(&self) -> Option<String> {
        self.own_bundler().or_else(|| {
            self.workspace_bundler.as_ref().map(|f| {
                format!(
                    "{f} at its workspace root builds it, and it has no build command of its own"
                )
            })
        })
    }

    /// What says the module bundles itself: the bundler command its commands run, or the
    /// bundler config beside it.
    pub fn own_bundler(&self) -> Option<String> {
        match bundlers::command(&self.commands, &self.build_commands) {
            Some(c) => Some(format!("its commands run `{c}`")),
            None => self
                .bundler_config
                .as_ref()
                .map(|f| format!("{f} is beside it"))
                .or_else(|| {
                    (self.bundler_script.as_ref())
                        .map(|(f, b)| format!("its build script {f} calls {b}"))
                })
                .or_else(|| self.nx_bundler.clone()),
        }
    }

    /// Whether the module's tests run under the runner whose globals the `@types` package
    /// `types` describes (`@types/jest`, `@types/mocha`, `@types/jasmine`): by a command
    /// naming the runner (jest also under Create React App's `react-scripts test`, jasmine
    /// under karma) or the runner's config beside the package.
    pub fn runs_tests_with(&self, types: &str) -> bool {
        // (runner, wrappers: each with whether it runs tests only under `test`).
        let (runner, wrappers): (&str, &[(&str, bool)]) = match types {
            "@types/jest" => (
                "jest",
                &[
                    ("react-scripts", true),
                    ("craco", true),
                    ("react-app-rewired", true),
                    ("vue-cli-service", false),
                ],
            ),
            "@types/mocha" => ("mocha", &[("ts-mocha", false), ("karma", false)]),
            "@types/jasmine" => ("jasmine", &[("karma", false)]),
            _ => return false,
        };
        let hosts = |p: &str| p == runner || wrappers.iter().any(|(w, _)| *w == p);
        self.config_hosts.iter().any(|(p, _)| hosts(p))
            || self.commands.lines().any(|line| {
                let words: Vec<&str> = command_words(line).collect();
                words.contains(&runner)
                    || wrappers
                        .iter()
                        .any(|(w, test)| words.contains(w) && (!test || words.contains(&"test")))
            })
    }

    /// What says the module is a Next app, not a library for one: a `next.config.*` beside
    /// it, or a package.json script running `next build`, `next dev` or `next start`.
    fn next_app(&self) -> Option<String> {
        if let Some((_, file)) = self.config_hosts.iter().find(|(host, _)| host == "next") {
            return Some(format!("{file} is beside it"));
        }
        // A package.json script's line (`"build": "next build"`), not a workflow's comment or
        // a step's name.
        let mut scripts = self
            .commands
            .lines()
            .filter(|l| l.trim_start().starts_with('"'));
        scripts.find_map(|line| {
            let words: Vec<&str> = command_words(line).collect();
            words
                .windows(2)
                .find(|w| w[0] == "next" && matches!(w[1], "build" | "dev" | "start"))
                .map(|w| format!("its commands run `next {}`", w[1]))
        })
    }

    /// Whether a tool uses the declared dependency `d`, whose module also declares `all`.
    pub fn uses(&self, d: &Declared, all: &[Declared]) -> bool {
        self.why(d, all).is_some()
    }

    /// Which tool uses the declared dependency `d` (whose module also declares `all`), and
    /// how, as a sentence: the evidence `mesh drift --explain` shows.
    pub fn why(&self, d: &Declared, all: &[Declared]) -> Option<String> {
        match d.language {
            Language::Js => (self.js_why(&d.name))
                .or_else(|| icon_set(&d.name, all))
                .or_else(|| self.default_server_entry(&d.name, all)),
            Language::Python => self.python_why(d, all),
            _ => None,
        }
    }

    fn js_why(&self, name: &str) -> Option<String> {
        if self.babel_config && matches!(name, "@babel/core" | "babel-jest") {
            return Some(
                "a babel config is there: babel runs through @babel/core, jest transforms through babel-jest"
                    .into(),
            );
        }
        // `@types/node` types globals no import names (`Buffer`, `process`).
        if self.tsconfig && matches!(name, "typescript" | "@types/node") {
            return Some(
                "a tsconfig.json is there: typescript compiles it, @types/node types Node's globals"
                    .into(),
            );
        }
        if self.tsconfig
            && matches!(name, "@types/react" | "@types/react-dom")
            && let Some(how) = self.next_app()
        {
            return Some(format!(
                "a Next app ({how}) with a tsconfig.json: the next-env.d.ts `next` writes references Next's types, which reference React's and React DOM's"
            ));
        }
        if let Some(line) = self.run_by(name) {
            return Some(format!("a command runs it: `{line}`"));
        }
        if name == "@prisma/client"
            && let Some(schema) = &self.prisma_schema
        {
            return Some(format!(
                "{schema} generates a Prisma client, which imports @prisma/client's runtime where it is written"
            ));
        }
        if self.typescript_sources && name == "typescript" {
            return Some(
                "the module has TypeScript sources: typescript compiles or checks them".into(),
            );
        }
        if let Some(script) = self.outside_scripts.get(name) {
            return Some(format!(
                "a script of the package runs {script}, outside it, which imports it (or a file it imports does)"
            ));
        }
        // Jest reads a TypeScript config through ts-node.
        if name == "ts-node"
            && let Some((_, file)) = self.config_hosts.iter().find(|(host, f)| {
                host == "jest" && [".ts", ".mts", ".cts"].iter().any(|e| f.ends_with(e))
            })
        {
            return Some(format!(
                "{file} is jest's config in TypeScript: jest reads it through ts-node"
            ));
        }
        if let Some(ext) = self
            .stylesheets
            .iter()
            .find(|ext| stylesheet_compilers(ext).contains(&name))
        {
            return Some(format!(
                "the module has .{ext} stylesheets: a bundler compiles them with {name}, which it loads by name"
            ));
        }
        // `vitest --coverage` loads its default coverage provider (a config naming another
        // names it: `provider: 'istanbul'`).
        if name == "@vitest/coverage-v8"
            && let Some(line) = self
                .commands
                .lines()
                .map(str::trim)
                .find(|l| l.contains("--coverage") && command_words(l).any(|w| w == "vitest"))
        {
            return Some(format!(
                "a command runs vitest with --coverage, which loads its coverage provider: `{line}`"
            ));
        }
        if let Some((_, file)) = self.config_hosts.iter().find(|(p, _)| p == name) {
            return Some(format!("{file} is its config: {name} runs with it"));
        }
        let named = self.config_names.get_or_init(|| {
            let mut named = std::collections::HashMap::new();
            for s in &self.config_strings {
                for c in completions(s) {
                    named.entry(c).or_insert_with(|| s.clone());
                }
            }
            named
        });
        if let Some(s) = named.get(name) {
            return Some(format!("a tool config names it: \"{s}\""));
        }
        // Babel's runtime transform makes the compiled code import its helpers from the
        // runtime package rather than inline them.
        let transform = match name {
            "@babel/runtime" | "@babel/runtime-corejs2" | "@babel/runtime-corejs3" => {
                Some("@babel/plugin-transform-runtime")
            }
            "babel-runtime" => Some("babel-plugin-transform-runtime"),
            _ => None,
        };
        if let Some(s) = transform.and_then(|t| named.get(t)) {
            return Some(format!(
                "a babel config names its runtime transform (\"{s}\"): the compiled code imports {name}'s helpers"
            ));
        }
        if let Some((t, f)) = transform.zip(self.workspace_bundler.as_ref())
            && let Some(s) = (self.workspace_bundler_strings.iter())
                .find(|s| completions(s).iter().any(|c| c == t))
        {
            return Some(format!(
                "{f} at its workspace root builds it and names Babel's runtime transform (\"{s}\"): the compiled code imports {name}'s helpers"
            ));
        }
        self.above.iter().find_map(|c| {
            c.names(name)
                .map(|s| format!("{}, above the package, names it: \"{s}\"", c.file))
        })
    }

    /// Whether a command line of the module runs `command` (a word in a command's position:
    /// `electron .`, `yarn electron .`, `npx electron`).
    pub fn runs_command(&self, command: &str) -> bool {
        self.command_lines()
            .any(|line| command_words(line).any(|w| w == command))
    }

    /// Whether a command names the tool: its package name or its command.
    #[cfg(test)]
    fn runs(&self, name: &str) -> bool {
        self.run_by(name).is_some()
    }

    /// The first command line that names the tool by its package name or a command of it.
    fn run_by(&self, name: &str) -> Option<&str> {
        let mut bins = command_names(name);
        if let Some(installed) = self.installed_bins.get(name) {
            bins.extend(installed.iter().cloned());
        }
        let first = self.command_words.get_or_init(|| {
            let mut first = std::collections::HashMap::new();
            for (i, line) in self.command_lines().enumerate() {
                for w in command_words(line) {
                    first.entry(w.to_string()).or_insert(i);
                }
            }
            first
        });
        let at = (std::iter::once(name).chain(bins.iter().map(String::as_str)))
            .filter_map(|w| first.get(w))
            .min()?;
        self.command_lines().nth(*at)
    }

    /// The module's command lines, trimmed, but a shell comment's, which runs nothing
    /// (`# hf-libero vs metaworld can never collide`).
    fn command_lines(&self) -> impl Iterator<Item = &str> {
        self.commands
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with('#'))
    }
}

/// The packages that compile stylesheets with the extension `ext` (vite, webpack's loaders,
/// Parcel and the frameworks look each up by name).
fn stylesheet_compilers(ext: &str) -> &'static [&'static str] {
    match ext {
        "scss" | "sass" => &["sass", "sass-embedded", "node-sass"],
        "less" => &["less"],
        "styl" => &["stylus"],
        _ => &[],
    }
}

/// The icon loaders that find an Iconify set by its name (`i-mdi-home` loads
/// `@iconify-json/mdi`): UnoCSS's icon preset, unplugin-icons, Iconify's Tailwind plugins.
const ICON_LOADERS: &[&str] = &[
    "unocss",
    "@unocss/preset-icons",
    "unplugin-icons",
    "@iconify/tailwind",
    "@iconify/tailwind4",
    "@egoist/tailwindcss-icons",
];

/// Frameworks that build an app's server entry from their own default when the app keeps
/// none (`app/entry.server.tsx`), as (the framework's build package, what that default
/// imports from the app's dependencies): React Router's and Remix's render with `react-dom`'s
/// server renderer, `isbot` and their Node adapter.
const DEFAULT_SERVER_ENTRIES: &[(&str, &[&str])] = &[
    (
        "@react-router/dev",
        &["isbot", "@react-router/node", "react-dom"],
    ),
    ("@remix-run/dev", &["isbot", "@remix-run/node", "react-dom"]),
];

impl ToolEvidence {
    /// Why `name` is used by the default server entry a declared framework builds into the
    /// app (see [`DEFAULT_SERVER_ENTRIES`]) when the module has no `entry.server.*` of its own.
    fn default_server_entry(&self, name: &str, all: &[Declared]) -> Option<String> {
        if self.server_entry {
            return None;
        }
        let (framework, _) = DEFAULT_SERVER_ENTRIES.iter().find(|(framework, imports)| {
            imports.contains(&name)
                && all
                    .iter()
                    .any(|d| d.language == Language::Js && d.name == *framework)
        })?;
        Some(format!(
            "the module has no entry.server file: {framework} builds its default one, which imports {name}"
        ))
    }
}

/// Why an `@iconify-json/*` icon set is used: the module declares a loader that finds it by
/// its name, not by an import.
fn icon_set(name: &str, all: &[Declared]) -> Option<String> {
    name.strip_prefix("@iconify-json/")?;
    let loader = all
        .iter()
        .find(|d| d.language == Language::Js && ICON_LOADERS.contains(&d.name.as_str()))?;
    Some(format!(
        "an icon set {} loads by its name (`i-<set>-<icon>`), not by an import",
        loader.name
    ))
}

/// Node's flags that load a module before the program (`--import=tsx/esm` in
/// `NODE_OPTIONS`, `-r ts-node/register`, mocha's `--require`), by the package they name.
const LOADER_FLAGS: &[&str] = &[
    "--import",
    "--loader",
    "--experimental-loader",
    "--require",
    "-r",
];

/// The words of a command line, split at blanks, quotes and the shell's operators.
fn split_words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| {
        c.is_whitespace() || matches!(c, '&' | '|' | ';' | '(' | ')' | '"' | '\'' | '`')
    })
    .filter(|w| !w.is_empty())
}

/// The programs that read Node's loader flags (`NODE_OPTIONS` too): elsewhere `-r` is
/// `rm -r`'s, `--loader` esbuild's.
const NODE_PROGRAMS: &[&str] = &[
    "node",
    "ts-node",
    "tsx",
    "mocha",
    "nyc",
    "c8",
    "ava",
    "jest",
    "vitest",
    "graphql-codegen",
];

/// The words of one command line; `./node_modules/.bin/wait-port` runs `wait-port`, and on a
/// line that runs Node, a loader flag's module is its package (`--import=tsx/esm` in
/// `NODE_OPTIONS`, quoted or not, and `-r ts-node/register` use `tsx` and `ts-node`).
fn command_words(line: &str) -> impl Iterator<Item = &str> {
    let node =
        split_words(line).any(|w| w.starts_with("NODE_OPTIONS=") || NODE_PROGRAMS.contains(&w));
    let mut after_flag = false;
    split_words(line).map(move |w| {
        let w = w.strip_prefix("NODE_OPTIONS=").unwrap_or(w);
        let flag = node && LOADER_FLAGS.contains(&w);
        let flagged = std::mem::replace(&mut after_flag, flag);
        let loaded = match w.split_once('=') {
            Some((flag, module)) if node && LOADER_FLAGS.contains(&flag) => Some(module),
            _ => flagged.then_some(w),
        };
        if let Some(package) = loaded.and_then(names::js_package) {
            return package;
        }
        match w.len() > 18 && w.contains("node_modules/.bin/") {
            true => w
                .rsplit_once("node_modules/.bin/")
                .map_or(w, |(_, bin)| bin),
            false => venv_command(line, w).unwrap_or(w),
        }
    })
}

/// The command a word of `line` runs from a virtualenv's `bin` directory:
/// `$(VENV)/bin/twine`, `.venv/bin/ruff`, `${VIRTUAL_ENV}/bin/pytest` run `twine`, `ruff`
/// and `pytest` (kinto's Makefile runs every tool so); another directory's `bin`
/// (`$(GOPATH)/bin/x`, `/bin/sh`) runs nothing here. The words of a line are split at
/// parentheses, so a `$(VENV)` is a word of its own and `/bin/twine` follows it.
fn venv_command<'a>(line: &str, w: &'a str) -> Option<&'a str> {
    let (dir, command) = w.rsplit_once("/bin/")?;
    let env = match dir.is_empty() {
        // The `$(…)` just before the word in the line.
        true => {
            let at = (w.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
            let before = line.get(..at)?.strip_suffix(')')?;
            before.rsplit_once("$(")?.1
        }
        false => dir.rsplit('/').next()?,
    };
    let env = env.trim_matches(|c: char| matches!(c, '$' | '{' | '}' | '.'));
    let env = env.to_ascii_lowercase();
    let is_venv = env.contains("venv") || env == "env" || env == "virtual_env";
    (is_venv && !command.is_empty() && !command.contains('/')).then_some(command)
}

#[cfg(test)]
mod tests {
    use super::evidence::installed;
    use super::*;
    use crate::drift::declared::Scope;

    pub(super) fn dev(language: Language, name: &str) -> Declared {
        Declared {
            language,
            name: name.into(),
            scope: Scope::Dev,
            manifest: "x".into(),
            elsewhere: None,
            line: 1,
            indirect: false,
        }
    }

    #[test]
    fn a_package_runs_under_the_commands_its_name_makes_or_its_installed_bin_says() {
        assert_eq!(command_names("eslint"), ["eslint"]);
        assert_eq!(command_names("del-cli"), ["del-cli", "del"]);
        assert_eq!(command_names("watchdog"), ["watchmedo"]);
        assert_eq!(command_names("cogapp"), ["cog"]);
        assert_eq!(command_names("go-task-bin"), ["go-task-bin", "go-task"]);
        assert_eq!(config_host("lefthook.yml"), Some("lefthook"));
        assert!(command_names("Sphinx").contains(&"sphinx-build".to_string()));
        assert_eq!(command_names("@swc/cli"), ["@swc/cli", "cli", "swc"]);
        assert_eq!(
            command_names("@scope/tool-cli"),
            ["@scope/tool-cli", "tool-cli", "tool"]
        );
        assert_eq!(command_names("typescript"), ["tsc", "tsserver"]);
        assert_eq!(command_names("trigger.dev"), ["trigger"]);
        assert_eq!(command_names("react-email"), ["email"]);
        assert!(command_names("@antfu/ni").contains(&"nr".to_string()));
        assert_eq!(command_names("@napi-rs/cli"), ["napi"]);
        let mut e = ToolEvidence {
            commands: "run-p lint test\nswc src -d dist\nfork-cmd --check\n".into(),
            ..ToolEvidence::default()
        };
        assert!(e.runs("npm-run-all"));
        assert!(e.runs("@swc/cli"));
        assert!(!e.runs("forked-tool"));
        // A shell script runs an installed command by its path.
        let sh = ToolEvidence {
            commands: "./node_modules/.bin/wait-port 127.0.0.1:3000\nnode dist/wait-for.js\n"
                .into(),
            ..ToolEvidence::default()
        };
        assert!(sh.runs("wait-port"));
        assert!(!sh.runs("wait-for"));
        // A virtualenv's command, by its path; another directory's `bin` runs its own.
        let venv = ToolEvidence {
            commands: "$(VENV)/bin/twine check dist/*.whl\n.venv/bin/ruff check .\n${VIRTUAL_ENV}/bin/pytest\nbuild/bin/protoc-gen-x\n$(GOPATH)/bin/black\n/bin/sh -c true\n".into(),
            ..ToolEvidence::default()
        };
        for used in ["twine", "ruff", "pytest"] {
            assert!(venv.runs(used), "{used}");
        }
        for unused in ["protoc-gen-x", "black", "sh"] {
            assert!(!venv.runs(unused), "{unused}");
        }
        assert!(is_command_file("run_test.sh"));
        // A module Node loads before the program, by its package.
        let loaders = ToolEvidence {
            commands: "NODE_OPTIONS=\"--import=tsx/esm\" playwright test\nmocha -r ts-node/register --require=@swc-node/register/esm\nnode --loader  @esbuild-kit/esm-loader x.js\nNODE_OPTIONS=--import=@x/loader node y.js\nrm -r lib/generated\nesbuild --loader=ts-x src/a.ts\n".into(),
            ..ToolEvidence::default()
        };
        for used in [
            "tsx",
            "ts-node",
            "@swc-node/register",
            "@esbuild-kit/esm-loader",
            "@playwright/test",
            "@x/loader",
        ] {
            assert!(loaders.runs(used), "{used}");
        }
        // `rm -r` and esbuild's `--loader` load no module.
        for unused in ["esm", "lib", "ts-x"] {
            assert!(!loaders.runs(unused), "{unused}");
        }
        // A fork that kept the old command: its installed `bin` says so.
        e.installed_bins
            .insert("forked-tool".into(), vec!["fork-cmd".into()]);
        assert!(e.runs("forked-tool"));

        let repo = tempfile::tempdir().unwrap();
        let pkg = repo.path().join("web/node_modules/@acme/forked-tool");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(pkg.join("package.json"), r#"{"bin": {"fork-cmd": "x.js"}, "peerDependencies": {"react": "19", "sass": "*"}, "peerDependenciesMeta": {"sass": {"optional": true}}}"#).unwrap();
        let (bins, peers) = installed(
            repo.path(),
            "web",
            &serde_json::json!({"devDependencies": {"@acme/forked-tool": "1", "absent": "1"}}),
        );
        assert_eq!(
            peers.get("@acme/forked-tool"),
            Some(&vec!["react".to_string()])
        );
        assert_eq!(
            bins.get("@acme/forked-tool"),
            Some(&vec!["fork-cmd".to_string()])
        );
        assert!(!bins.contains_key("absent"));
    }

    #[test]
    fn vitest_with_coverage_uses_its_provider() {
        let e = ToolEvidence {
            commands: "\"test\": \"vitest run --coverage\"\n".into(),
            ..ToolEvidence::default()
        };
        let all = [
            dev(Language::Js, "@vitest/coverage-v8"),
            dev(Language::Js, "@vitest/coverage-istanbul"),
        ];
        assert!(e.uses(&all[0], &all));
        assert!(!e.uses(&all[1], &all), "only the default provider");
        let plain = ToolEvidence {
            commands: "\"test\": \"vitest run\"\n".into(),
            ..ToolEvidence::default()
        };
        assert!(!plain.uses(&all[0], &all));
    }

    #[test]
    fn a_bundler_in_the_commands_is_seen_and_a_name_that_only_contains_one_is_not() {
        let e = |commands: &str| ToolEvidence {
            commands: commands.into(),
            ..ToolEvidence::default()
        };
        assert!(e("\"build\": \"vite build\"").bundles());
        assert!(e("tsup src/index.ts --format esm").bundles());
        assert!(e("webpack --mode production").bundles());
        // A static site's generator bundles its pages, theme and runtime — when the
        // package's own build runs it, not a library's docs script.
        let site = |commands: &str, build: &str| ToolEvidence {
            commands: commands.into(),
            build_commands: build.into(),
            ..ToolEvidence::default()
        };
        assert!(site("vitepress build\n", "vitepress build\n").bundles());
        assert!(!site("vitepress build docs\n", "tsc\n").bundles());
        // vite's own `build-bundle`, and Rolldown's library bundler.
        assert!(e("\"build-bundle\": \"rolldown --config rolldown.config.ts\"").bundles());
        assert!(e("\"build\": \"tsdown\"").bundles());
        assert!(!e("tsc -p . && node scripts/rollup-notes.js").bundles());
        assert!(!e("\"build\": \"tsc\"").bundles());
        // A bundler's config beside the package, its script running it through another tool.
        assert!(is_bundler_config("rolldown.config.ts"));
        assert!(is_bundler_config("tsdown.config.mjs"));
        assert!(!is_bundler_config("vitest.config.ts"));
        let configured = ToolEvidence {
            commands: "node scripts/build.mjs\n".into(),
            bundler_config: Some("tsdown.config.ts".into()),
            ..ToolEvidence::default()
        };
        assert_eq!(
            configured.bundler().as_deref(),
            Some("tsdown.config.ts is beside it")
        );
    }

    #[test]
    fn config_files_name_js_tools() {
        // jest's examples/react: `.babelrc.js` presets and package.json's `"jest"` key.
        let babelrc = "module.exports = {\n  presets: [\n    '@babel/preset-env',\n    ['@babel/preset-react', {runtime: 'automatic'}],\n  ],\n};\n";
        let mut e = ToolEvidence {
            babel_config: true,
            ..ToolEvidence::default()
        };
        e.config_strings = quoted_strings(babelrc);
        e.config_strings.extend(quoted_strings(
            r#"{"testEnvironment":"jsdom","setupFiles":["<rootDir>/s.js"]}"#,
        ));
        for used in [
            "@babel/preset-env",
            "@babel/preset-react",
            "@babel/core",
            "babel-jest",
            "jest-environment-jsdom",
        ] {
            assert!(e.uses(&dev(Language::Js, used), &[]), "{used}");
        }
        assert!(!e.uses(&dev(Language::Js, "react-dom"), &[]));
        assert!(!e.uses(&dev(Language::Js, "typescript"), &[]));
        // Babel's runtime transform uses the runtime.
        assert!(!e.uses(&dev(Language::Js, "@babel/runtime"), &[]));
        let runtime = ToolEvidence {
            config_strings: quoted_strings("{\"plugins\": [\"@babel/transform-runtime\"]}"),
            ..ToolEvidence::default()
        };
        assert!(runtime.uses(&dev(Language::Js, "@babel/runtime"), &[]));
        // Short names, a scope's eslint plugin, a tsconfig's `extends`, a sub-path.
        assert!(completions("@babel/env").contains(&"@babel/preset-env".to_string()));
        assert!(completions("minify").contains(&"babel-preset-minify".to_string()));
        // Babel's scope alone, and eslint-plugin-prettier's config that needs
        // eslint-config-prettier.
        assert!(completions("@emotion").contains(&"@emotion/babel-plugin".to_string()));
        assert_eq!(
            completions("plugin:prettier/recommended"),
            ["eslint-plugin-prettier", "eslint-config-prettier"]
        );
        assert!(
            completions("@typescript-eslint")
                .contains(&"@typescript-eslint/eslint-plugin".to_string())
        );
        assert_eq!(
            completions("jest-preset-angular/presets"),
            ["jest-preset-angular"]
        );
        // A rule-shaped string names no ESLint plugin outside an ESLint config.
        assert!(!completions("react/jsx-runtime").contains(&"eslint-plugin-react".to_string()));
        // ESLint's legacy `extends` of a plugin's config (TanStack's examples).
        assert!(
            completions("plugin:@tanstack/query/recommended")
                .contains(&"@tanstack/eslint-plugin-query".to_string())
        );
        assert!(
            completions("plugin:@typescript-eslint/recommended")
                .contains(&"@typescript-eslint/eslint-plugin".to_string())
        );
        assert_eq!(
            completions("plugin:react/recommended"),
            ["eslint-plugin-react"]
        );
        // The plugin's package written in full (TanStack's solid examples).
        assert_eq!(
            completions("plugin:@tanstack/eslint-plugin-query/recommended"),
            ["@tanstack/eslint-plugin-query"]
        );
        assert_eq!(
            completions("plugin:eslint-plugin-react/recommended"),
            ["eslint-plugin-react"]
        );
        assert_eq!(
            completions("@docusaurus/tsconfig")[0],
            "@docusaurus/tsconfig"
        );
        // A plugin's short name in its tool's config: vitest's coverage provider, wdio's
        // runner and framework (`wdio.conf.js` is a config), karma's launcher.
        let wdio = "export const config = {\n  runner: 'local',\n  framework: 'mocha',\n  reporters: ['spec'],\n  coverage: { provider: 'v8' },\n  browsers: ['Chrome'],\n};\n";
        let short = ToolEvidence {
            config_strings: config_strings("wdio.conf.js", wdio),
            ..ToolEvidence::default()
        };
        for used in [
            "@wdio/local-runner",
            "@wdio/mocha-framework",
            "@wdio/spec-reporter",
            "@vitest/coverage-v8",
            "karma-chrome-launcher",
            "mocha",
        ] {
            assert!(short.uses(&dev(Language::Js, used), &[]), "{used}");
        }
        assert!(!short.uses(&dev(Language::Js, "@wdio/jasmine-framework"), &[]));
        assert!(!short.uses(&dev(Language::Js, "@vitest/coverage-istanbul"), &[]));
        assert!(is_js_config("wdio.conf.js"));
        // A path into an installed package names it (vercel/ai's tsconfigs extend their
        // shared config so); vitest's edge runtime environment.
        assert_eq!(
            completions("./node_modules/@vercel/ai-tsconfig/ts-library.json"),
            ["@vercel/ai-tsconfig"]
        );
        assert!(completions("edge-runtime").contains(&"@edge-runtime/vm".to_string()));
        assert!(is_js_config("karma.conf.cjs"));
        let ts = ToolEvidence {
            tsconfig: true,
            commands: "crowdin upload".into(),
            ..ToolEvidence::default()
        };
        assert!(ts.uses(&dev(Language::Js, "typescript"), &[]));
        // jest-matcher-utils uses `Buffer` with no import.
        assert!(ts.uses(&dev(Language::Js, "@types/node"), &[]));
        assert!(ts.uses(&dev(Language::Js, "@crowdin/cli"), &[]));
    }
}
