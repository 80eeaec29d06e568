//! JS tool configs: which module-root files are configs, the strings they hold and the
//! packages those strings name once their tool completes a short name (`'@babel/env'` →
//! `@babel/preset-env`, `provider: 'v8'` → `@vitest/coverage-v8`), and which files a test
//! runner's config names to run around the tests.

use crate::drift::names;
use std::collections::HashSet;

/// The keys of a test runner's config whose values name files run around the tests.
const SETUP_KEYS: &[&str] = &[
    "globalSetup",
    "globalTeardown",
    "setupFiles",
    "setupFilesAfterEach",
    "setupFilesAfterEnv",
];

/// Whether a module-root file is a test runner's config.
pub(crate) fn is_test_runner_config(file: &str) -> bool {
    [
        "jest.config.",
        "vitest.config.",
        "vitest.workspace.",
        "vite.config.",
        "playwright.config.",
    ]
    .iter()
    .any(|p| file.starts_with(p))
}

/// The strings a config's setup keys name: each key's value, a string or a list of them.
pub(super) fn setup_strings(text: &str) -> Vec<String> {
    (SETUP_KEYS.iter())
        .flat_map(|key| key_values(text, key))
        .flat_map(|(_, strings)| strings)
        .collect()
}

/// Each place `text` writes `key:` (quoted or not), with the strings of its value (a string
/// or a list of them): where it stands, and what it says.
fn key_values<'t>(text: &'t str, key: &'t str) -> impl Iterator<Item = (usize, Vec<String>)> + 't {
    text.match_indices(key).filter_map(move |(at, _)| {
        let rest = text[at + key.len()..].trim_start_matches(['"', '\'', ' ']);
        let value = rest.strip_prefix(':').map(str::trim_start)?;
        Some((at, quoted_strings(&value[..value_end(value)])))
    })
}

/// The keys of a test runner's config whose values are globs of its test files (vitest's
/// `include`, jest's `testMatch`).
const TEST_FILE_KEYS: &[&str] = &["include", "testMatch"];

/// The globs of test files a test runner's config names by a suffix of its own
/// (`include: ['src/**/*.clienttest.{ts,tsx}']`, `testMatch: ['**/*.servertest.ts']`): a
/// glob whose file name is `*.word.ext`, a literal word before the extension. Globs of whole
/// trees (`src/**`, `**/*.ts`: coverage's `include`, vite's) say nothing of which files are
/// tests, and a name list (`optimizeDeps.include`) holds no glob.
pub(super) fn test_file_globs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for key in TEST_FILE_KEYS {
        for (at, globs) in key_values(text, key) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                continue;
            }
            // `include` lists sources too (coverage's, a plugin's): only a test's word.
            let any_word = *key == "testMatch";
            out.extend(globs.into_iter().filter(|g| names_test_suffix(g, any_word)));
        }
    }
    // Playwright's `testDir`: every file below it is its tests' (helpers and fixtures too) —
    // unless a `testMatch` picks the tests among other files there, or it is a sources
    // directory.
    let picked = text.contains("testMatch");
    for (_, dirs) in key_values(text, "testDir").filter(|_| !picked) {
        for dir in dirs {
            let dir = dir.trim_start_matches("./").trim_end_matches('/');
            let sources = matches!(dir, "src" | "lib" | "app" | "source" | "pages");
            if !dir.is_empty() && dir != "." && !dir.starts_with("..") && !sources {
                out.push(format!("{dir}/**"));
            }
        }
    }
    out
}

/// Whether a glob's file name is `*.word.ext` (or `*.word.{ts,tsx}`), `word` literal and,
/// unless `any_word`, a test's (`clienttest`, `spec`, `e2e`).
fn names_test_suffix(glob: &str, any_word: bool) -> bool {
    let file = glob.rsplit('/').next().unwrap_or(glob);
    let Some(rest) = file.strip_prefix("*.") else {
        return false;
    };
    let Some((word, _ext)) = rest.split_once('.') else {
        return false;
    };
    let testy = any_word || ["test", "spec", "e2e"].iter().any(|t| word.contains(t));
    testy
        && !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Where a config key's value that opens `value` ends: a list at its `]` outside quotes (a
/// glob's `[jt]` is inside them), else at the first `,`, line end or `}`.
fn value_end(value: &str) -> usize {
    if !value.starts_with('[') {
        return value.find([',', '\n', '}']).unwrap_or(value.len());
    }
    let mut quote = None;
    for (i, c) in value.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if matches!(c, '"' | '\'' | '`') => quote = Some(c),
            None if c == ']' => return i,
            None => {}
        }
    }
    value.len()
}

/// Whether the module-relative JS file `rel` is test support: named by a test runner's setup
/// keys (`setup`, as written there: `./jest.setup.js`, `<rootDir>/test/setup`, without its
/// extension or not), or named as such (`jest.setup.*`, `vitest.setup.*`, `setupTests.*`,
/// `test-setup.*`, `global-setup.*`, `*.test-utils.*`, `*.test-helpers.*`).
pub(crate) fn is_test_support(rel: &str, setup: &[String]) -> bool {
    let named = setup.iter().any(|s| {
        let s = s.trim_start_matches("<rootDir>/").trim_start_matches("./");
        !s.is_empty()
            && (rel == s
                || rel
                    .strip_prefix(s)
                    .is_some_and(|ext| ext.starts_with('.') && !ext[1..].contains('/')))
    });
    let file = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    let stem = file.split('.').next().unwrap_or(&file);
    let setup_name = matches!(
        stem,
        "setuptests"
            | "setup-tests"
            | "test-setup"
            | "testsetup"
            | "global-setup"
            | "globalsetup"
            | "global-teardown"
            | "globalteardown"
    ) || file.starts_with("jest.setup.")
        || file.starts_with("vitest.setup.");
    let helper = file.contains(".test-") || file.contains(".spec-");
    named || setup_name || helper
}

/// Tools a config file beside the package says run it, by the file's name as each tool looks
/// for it (name prefix, package): PostCSS loads `postcss.config.js` (the Tailwind plugin it
/// names is PostCSS's, and so is the `postcss` host its install guide declares), prettier a
/// `.prettierrc`, eslint an `eslint.config.mjs`. The package is declared for its tool, which
/// no import shows.
const CONFIG_HOSTS: &[(&str, &str)] = &[
    (".c8rc", "c8"),
    (".commitlintrc", "@commitlint/cli"),
    (".eslintrc", "eslint"),
    (".lefthook.", "lefthook"),
    (".lintstagedrc", "lint-staged"),
    (".mocharc", "mocha"),
    (".nycrc", "nyc"),
    (".oxlintrc", "oxlint"),
    (".postcssrc", "postcss"),
    (".prettierrc", "prettier"),
    (".releaserc", "semantic-release"),
    (".size-limit.", "size-limit"),
    (".stylelintrc", "stylelint"),
    (".swcrc", "@swc/core"),
    ("angular.json", "@angular/cli"),
    ("astro.config.", "astro"),
    ("ava.config.", "ava"),
    ("biome.json", "@biomejs/biome"),
    ("commitlint.config.", "@commitlint/cli"),
    ("cypress.config.", "cypress"),
    ("docusaurus.config.", "@docusaurus/core"),
    ("eslint.config.", "eslint"),
    ("jest.config.", "jest"),
    ("karma.conf.", "karma"),
    ("lefthook.", "lefthook"),
    ("lerna.json", "lerna"),
    ("lint-staged.config.", "lint-staged"),
    ("nest-cli.json", "@nestjs/cli"),
    ("next.config.", "next"),
    ("nuxt.config.", "nuxt"),
    ("nx.json", "nx"),
    ("playwright.config.", "@playwright/test"),
    ("postcss.config.", "postcss"),
    ("prettier.config.", "prettier"),
    ("release.config.", "semantic-release"),
    ("rolldown.config.", "rolldown"),
    ("rollup.config.", "rollup"),
    ("stylelint.config.", "stylelint"),
    ("tailwind.config.", "tailwindcss"),
    ("tsdown.config.", "tsdown"),
    ("tsup.config.", "tsup"),
    ("turbo.json", "turbo"),
    ("typedoc.json", "typedoc"),
    ("vite.config.", "vite"),
    ("vitest.config.", "vitest"),
    ("vitest.workspace.", "vitest"),
    ("webpack.config.", "webpack"),
    ("wrangler.json", "wrangler"),
    ("wrangler.toml", "wrangler"),
];

/// The tool whose config the module-root file `file` is, by its name ([`CONFIG_HOSTS`]).
pub(crate) fn config_host(file: &str) -> Option<&'static str> {
    CONFIG_HOSTS
        .iter()
        .find(|(prefix, _)| file.starts_with(prefix))
        .map(|(_, package)| *package)
}

/// The type packages a tsconfig's `compilerOptions.types` loads: each name as TypeScript
/// resolves it (`"bun"` → `@types/bun`, `"@scope/x"` → `@types/scope__x`; a path, or a
/// name already under `@types/`, as written).
pub(crate) fn tsconfig_types(text: &str) -> Vec<String> {
    let text = mesh_imports::tsconfig::strip_jsonc(text);
    let Some(at) = text.find("\"types\"") else {
        return Vec::new();
    };
    let rest = text[at + "\"types\"".len()..].trim_start();
    let Some(list) = rest
        .strip_prefix(':')
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('['))
        .and_then(|r| r.split(']').next())
    else {
        return Vec::new();
    };
    quoted_strings(list)
        .into_iter()
        .filter(|t| !t.starts_with('.') && !t.starts_with('/'))
        .map(|t| match t.strip_prefix('@') {
            Some(_) if t.starts_with("@types/") => t,
            Some(scoped) => format!("@types/{}", scoped.replacen('/', "__", 1)),
            None => format!("@types/{t}"),
        })
        .collect()
}

/// Whether a module-root file is a JS tool's config whose strings name packages.
pub(crate) fn is_js_config(file: &str) -> bool {
    let config_ext = [".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".json"];
    ((file.contains(".config.") || file.contains(".conf."))
        && config_ext.iter().any(|e| file.ends_with(e)))
        || file.starts_with(".babelrc")
        || file.starts_with(".eslintrc")
        || file.starts_with(".prettierrc")
        // swc's plugins (`jsc.experimental.plugins`), mocha's `require`d loaders.
        || file == ".swcrc"
        || file.starts_with(".mocharc")
        // Nest's CLI config names its schematics collection (`@nestjs/schematics`).
        || file == "nest-cli.json"
        || file == "angular.json"
        || (file.starts_with("tsconfig") && file.ends_with(".json"))
}

/// The test environments a vitest or jest config names (`environment: "jsdom"`,
/// `testEnvironment: 'node'`), in every project, each with where its key stands.
pub(crate) fn test_environments(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("nvironment") {
        let before = rest[..at].chars().next_back();
        let key_at = text.len() - rest.len() + at;
        rest = &rest[at + "nvironment".len()..];
        if !matches!(before, Some('e' | 'E')) {
            continue;
        }
        let value = rest
            .trim_start_matches(['"', '\''])
            .trim_start()
            .strip_prefix(':')
            .map(str::trim_start);
        let Some(value) = value else { continue };
        let Some(quote) = value
            .chars()
            .next()
            .filter(|c| matches!(c, '"' | '\'' | '`'))
        else {
            continue;
        };
        if let Some((name, _)) = value[1..].split_once(quote) {
            out.push((key_at, name.to_string()));
        }
    }
    out
}

/// Whether a Prisma schema has a generator writing a JS client: `provider =
/// "prisma-client-js"` (the client in `node_modules`) or `"prisma-client"` (Prisma 7's, at
/// the generator's `output`), inside a `generator` block.
pub(crate) fn prisma_writes_client(schema: &str) -> bool {
    let mut in_generator = false;
    for line in schema.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("generator ") {
            in_generator = rest.trim_end().ends_with('{');
        } else if line.starts_with('}') {
            in_generator = false;
        } else if in_generator
            && let Some(value) = line.strip_prefix("provider")
            && let Some(value) = value.trim_start().strip_prefix('=')
        {
            let value = value
                .split("//")
                .next()
                .unwrap_or("")
                .trim()
                .trim_matches('"');
            if matches!(value, "prisma-client-js" | "prisma-client") {
                return true;
            }
        }
    }
    false
}

/// Whether a module-root file is ESLint's config (`.eslintrc*`, `eslint.config.*`).
pub(crate) fn is_eslint_config(file: &str) -> bool {
    file.starts_with(".eslintrc") || file.starts_with("eslint.config.")
}

/// The plugins an ESLint config's rules name: a rule `react-hooks/exhaustive-deps` is
/// `eslint-plugin-react-hooks`'s (a shared config may load the plugin; the rule says whose);
/// and the shared configs its legacy `extends` names by short name and path
/// (`next/core-web-vitals` is `eslint-config-next`'s), which read alike.
pub(crate) fn eslint_rule_plugins(strings: &[String]) -> Vec<String> {
    let word = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    };
    strings
        .iter()
        .filter_map(|s| s.split_once('/'))
        .filter(|(plugin, rule)| word(plugin) && word(rule))
        .flat_map(|(plugin, _)| {
            [
                format!("eslint-plugin-{plugin}"),
                format!("eslint-config-{plugin}"),
            ]
        })
        .collect()
}

/// The packages GraphQL Code Generator loads for the words of its config: each plugin or
/// preset by its short name (`typescript-operations`, `near-operation-file` →
/// `@graphql-codegen/near-operation-file-preset`).
pub(crate) fn graphql_codegen_packages(words: &[String]) -> Vec<String> {
    let short = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    let mut out: Vec<String> = words
        .iter()
        .filter(|w| short(w))
        .flat_map(|w| {
            [
                format!("@graphql-codegen/{w}"),
                format!("@graphql-codegen/{w}-preset"),
            ]
        })
        .collect();
    // The code the typed-document-node plugin writes imports its runtime types, and that
    // code is generated, often left out of the repository.
    if words.iter().any(|w| w.ends_with("typed-document-node")) {
        out.push("@graphql-typed-document-node/core".to_string());
    }
    out
}

/// The keys of a PostCSS config's `plugins` object, unquoted (`plugins: { autoprefixer: {} }`):
/// PostCSS loads each plugin by its key. Comment lines are left out first; strings are
/// skipped; only the object's own keys count, not its plugins' options.
pub(crate) fn plugin_keys(text: &str) -> Vec<String> {
    let text = without_comment_lines(text);
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$');
    let mut out = Vec::new();
    let Some(at) = text.find("plugins") else {
        return out;
    };
    let rest = text[at + "plugins".len()..].trim_start();
    let Some(rest) = rest.strip_prefix(':').map(str::trim_start) else {
        return out;
    };
    if !rest.starts_with('{') {
        return out;
    }
    let mut i = b.len() - rest.len() + 1;
    let (mut depth, mut prev) = (1u32, b'{');
    while i < b.len() && depth > 0 {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                prev = q;
                i += 1;
            }
            b'{' | b'[' | b'(' => {
                depth += 1;
                prev = b[i];
                i += 1;
            }
            b'}' | b']' | b')' => {
                depth -= 1;
                prev = b[i];
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => {
                let start = i;
                while i < b.len() && ident(b[i]) {
                    i += 1;
                }
                let mut j = i;
                while j < b.len() && matches!(b[j], b' ' | b'\t') {
                    j += 1;
                }
                if depth == 1 && matches!(prev, b'{' | b',') && b.get(j) == Some(&b':') {
                    out.push(text[start..i].to_string());
                }
                prev = b'a';
            }
            c => {
                if !c.is_ascii_whitespace() {
                    prev = c;
                }
                i += 1;
            }
        }
    }
    out
}

/// Whether a tsconfig sets `compilerOptions.types` at all (an empty list too): TypeScript
/// then loads only the `@types` packages it lists.
pub(crate) fn tsconfig_sets_types(text: &str) -> bool {
    let text = mesh_imports::tsconfig::strip_jsonc(text);
    text.match_indices("\"types\"")
        .any(|(at, key)| text[at + key.len()..].trim_start().starts_with(':'))
}

/// Whether a module-root file is GraphQL Code Generator's config (`codegen.yml`,
/// `codegen.ts`, `gql-codegen.yml`): its `plugins` and `preset` name packages by short name
/// (`typescript-operations` → `@graphql-codegen/typescript-operations`).
pub(crate) fn is_graphql_codegen_config(file: &str) -> bool {
    // Its default name, or one a `--config` names after it (`gql-codegen.yml`).
    file.rsplit_once('.').is_some_and(|(stem, ext)| {
        matches!(
            stem,
            "codegen" | "codegen.config" | "gql-codegen" | "graphql-codegen" | "graphql.codegen"
        ) && ["yml", "yaml", "json", "ts", "js", "mjs", "cjs"].contains(&ext)
    })
}

/// The words of a YAML config: each key and value, unquoted (a list item's too), comments
/// left out. YAML names packages without quotes (`plugins:\n  - typescript-operations`).
pub(crate) fn yaml_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = match line.find(" #") {
            Some(at) => &line[..at],
            None => line,
        };
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let item = line.strip_prefix("- ").unwrap_or(line);
        let (key, value) = match item.split_once(": ") {
            Some((k, v)) => (k, v),
            None => (item.strip_suffix(':').unwrap_or(item), ""),
        };
        for w in [key, value] {
            let w = w.trim().trim_matches(|c| c == '"' || c == '\'');
            if !w.is_empty() {
                out.push(w.to_string());
            }
        }
    }
    out
}

/// Whether a babel config file (babel reads these by name).
pub(crate) fn is_babel_config(file: &str) -> bool {
    file.starts_with(".babelrc") || file.starts_with("babel.config.")
}

/// The strings of the config file `file`: a JSON one (`*.json`, `.babelrc`, `.eslintrc`) may
/// have comments — tsconfig's are JSONC — so they are left out first, lest a quote or
/// backtick in one swallow the strings after it.
pub(crate) fn config_strings(file: &str, text: &str) -> Vec<String> {
    let json = file.ends_with(".json") || (file.starts_with('.') && file.matches('.').count() == 1);
    match json {
        true => quoted_strings(&mesh_imports::tsconfig::strip_jsonc(text)),
        false => quoted_strings(&without_comment_lines(text)),
    }
}

/// `text` without its JS comment lines (`// import terser from '…'`, and a `/* … */` begun
/// at a line's start, up to its end): a plugin commented out is not loaded (zod's rollup
/// config). Code after a block's end stays, and so does a comment after code, as a string
/// may hold `//`.
pub(super) fn without_comment_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_block = false;
    for line in text.lines() {
        let mut t = line.trim_start();
        if in_block {
            match t.split_once("*/") {
                Some((_, after)) => (t, in_block) = (after, false),
                None => continue,
            }
        }
        while let Some(rest) = t.strip_prefix("/*") {
            match rest.split_once("*/") {
                Some((_, after)) => t = after.trim_start(),
                None => {
                    in_block = true;
                    t = "";
                }
            }
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(t);
        out.push('\n');
    }
    out
}

/// The contents of every quoted string in `text` ('…', "…" and `…`; escapes skipped).
pub(crate) fn quoted_strings(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if !matches!(c, '\'' | '"' | '`') {
            continue;
        }
        let mut s = String::new();
        let mut escaped = false;
        for d in chars.by_ref() {
            match (escaped, d) {
                (true, _) => {
                    escaped = false;
                    s.push(d);
                }
                (false, '\\') => escaped = true,
                (false, d) if d == c => break,
                (false, '\n') if c != '`' => break,
                (false, d) => s.push(d),
            }
        }
        if !s.is_empty() && s.len() <= 214 {
            out.push(s);
        }
    }
    out
}

/// The packages a config string may name: the package of the specifier itself, and the
/// names its tool completes a short name to: babel's presets and plugins (`@babel/env` →
/// `@babel/preset-env`, `minify` → `babel-preset-minify`), jest's environments and runners
/// (`testEnvironment: "jsdom"` → `jest-environment-jsdom`), eslint's plugins and configs
/// (a legacy `plugin:@scope/name/recommended` → `@scope/eslint-plugin-name`), and the
/// plugins of [`SHORT_NAMES`]'s tools (vitest's `provider: 'v8'` → `@vitest/coverage-v8`,
/// wdio's `framework: 'mocha'` → `@wdio/mocha-framework`).
pub(super) fn completions(s: &str) -> Vec<String> {
    // ESLint's legacy `extends: "plugin:@scope/name/config"` and `"plugin:name/config"`.
    if let Some(plugin) = s.strip_prefix("plugin:") {
        let (scope, rest) = match plugin.strip_prefix('@').and_then(|r| r.split_once('/')) {
            Some((scope, rest)) => (Some(scope), rest),
            None => (None, plugin),
        };
        let name = rest.split('/').next().unwrap_or(rest);
        // `plugin:@tanstack/eslint-plugin-query/recommended` names the package in full.
        if name.starts_with("eslint-plugin") {
            return vec![match scope {
                Some(scope) => format!("@{scope}/{name}"),
                None => name.to_string(),
            }];
        }
        // eslint-plugin-prettier's `recommended` config extends eslint-config-prettier.
        if scope.is_none() && name == "prettier" && rest.ends_with("/recommended") {
            return vec![
                "eslint-plugin-prettier".to_string(),
                "eslint-config-prettier".to_string(),
            ];
        }
        return match (scope, name) {
            (Some(scope), "") => vec![format!("@{scope}/eslint-plugin")],
            (Some(scope), name) => vec![
                format!("@{scope}/eslint-plugin-{name}"),
                format!("@{scope}/eslint-plugin"),
            ],
            (None, name) => vec![format!("eslint-plugin-{name}")],
        };
    }
    // A path into an installed package (`"extends":
    // "./node_modules/@vercel/ai-tsconfig/ts-library.json"`) names that package.
    if let Some((_, inside)) = s.rsplit_once("node_modules/") {
        return names::js_package(inside)
            .map(str::to_string)
            .into_iter()
            .collect();
    }
    let mut out: Vec<String> = names::js_package(s)
        .map(str::to_string)
        .into_iter()
        .collect();
    // vitest's `environment: 'edge-runtime'` runs in `@edge-runtime/vm`.
    if s == "edge-runtime" {
        out.push("@edge-runtime/vm".to_string());
    }
    if s.contains('/') && !s.starts_with('@') {
        return out;
    }
    const PREFIXES: &[&str] = &[
        "babel-preset-",
        "babel-plugin-",
        "jest-environment-",
        "jest-runner-",
        "eslint-plugin-",
        "eslint-config-",
    ];
    match s.strip_prefix('@').and_then(|r| r.split_once('/')) {
        Some((scope, name)) if !name.contains('/') => {
            for p in PREFIXES {
                out.push(format!("@{scope}/{p}{name}"));
            }
            if scope == "babel" {
                out.push(format!("@babel/preset-{name}"));
                out.push(format!("@babel/plugin-{name}"));
            }
        }
        Some(_) => {}
        // A scope alone: ESLint's `@scope` plugin, Babel's `@emotion` → `@emotion/babel-plugin`.
        None if s.starts_with('@') => {
            out.push(format!("{s}/eslint-plugin"));
            out.push(format!("{s}/babel-plugin"));
            out.push(format!("{s}/babel-preset"));
        }
        None => {
            for p in PREFIXES {
                out.push(format!("{p}{s}"));
            }
            // Short names are words: `v8`, `mocha`, `Chrome` (karma's launchers).
            if s.len() <= 40 && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                let lower = s.to_ascii_lowercase();
                out.extend(SHORT_NAMES.iter().map(|p| p.replace("{}", &lower)));
            }
        }
    }
    out
}

/// How tools complete a plugin's short name in their configs to its package (`{}` is the
/// name): vitest's coverage and browser providers and environments, WebdriverIO's runner,
/// framework, reporters and services, karma's frameworks and launchers, docusaurus's presets,
/// plugins and themes, prettier's, remark's and rehype's plugins, stylelint's configs.
const SHORT_NAMES: &[&str] = &[
    "@vitest/coverage-{}",
    "@vitest/browser-{}",
    "vitest-environment-{}",
    "@wdio/{}-runner",
    "@wdio/{}-framework",
    "@wdio/{}-reporter",
    "@wdio/{}-service",
    "wdio-{}-reporter",
    "wdio-{}-service",
    "karma-{}",
    "karma-{}-launcher",
    "@docusaurus/preset-{}",
    "@docusaurus/plugin-{}",
    "@docusaurus/theme-{}",
    "prettier-plugin-{}",
    "remark-{}",
    "rehype-{}",
    "stylelint-config-{}",
];

/// Whether a module-root file is MkDocs' config: `mkdocs.yml`, or one of a set split by
/// purpose that `INHERIT:` joins (textual's `mkdocs-common.yml`, `mkdocs-online.yml`).
pub(super) fn is_mkdocs_config(file: &str) -> bool {
    let Some(stem) = file
        .strip_suffix(".yml")
        .or_else(|| file.strip_suffix(".yaml"))
    else {
        return false;
    };
    stem == "mkdocs" || stem.starts_with("mkdocs-") || stem.starts_with("mkdocs.")
}

/// An MkDocs config at a module's root, read once for every declaration asked about.
#[derive(Debug)]
pub struct MkDocs {
    /// The config's file name.
    pub file: String,
    /// A list item's or a theme's name: `- x`, `- x:`, `name: x`.
    items: HashSet<String>,
    /// Every key (`python:` under `handlers:`).
    keys: HashSet<String>,
}

impl MkDocs {
    /// The config `file` holding `text`, comments left out.
    pub(super) fn read(file: &str, text: &str) -> MkDocs {
        let lines: Vec<&str> = text
            .lines()
            .map(|l| l.split(" #").next().unwrap_or(l).trim())
            .filter(|l| !l.starts_with('#'))
            .collect();
        let items = lines
            .iter()
            .filter_map(|l| l.strip_prefix("- ").or_else(|| l.strip_prefix("name:")))
            .map(|l| l.trim().trim_end_matches(':').trim_matches(['"', '\'']))
            .map(str::to_string)
            .collect();
        let keys = lines
            .iter()
            .filter_map(|l| l.strip_suffix(':'))
            .map(str::to_string)
            .collect();
        MkDocs {
            file: file.to_string(),
            items,
            keys,
        }
    }

    /// This config with `other`'s names too: the files of one split config.
    pub(super) fn merge(&mut self, other: MkDocs) {
        self.file = format!("{}, {}", self.file, other.file);
        self.items.extend(other.items);
        self.keys.extend(other.keys);
    }

    /// The name under which the config loads the Python distribution `dist` (PEP 503), if it
    /// does: MkDocs itself; a theme (`name: material` for `mkdocs-material`), plugin or
    /// Markdown extension (a list item: `- awesome-pages`) named as the distribution is, or
    /// as its name less `mkdocs-` and `-plugin` (and a fork's number after it); an
    /// mkdocstrings handler
    /// (`mkdocstrings-python` is `handlers: python:`); PyMdown's `pymdownx.*` extensions.
    pub(super) fn names(&self, dist: &str) -> Option<String> {
        let named = |w: &str| self.items.contains(w) || self.items.contains(&w.replace('-', "_"));
        if dist == "mkdocs" {
            return Some("mkdocs".into());
        }
        if dist == "pymdown-extensions" {
            return self
                .items
                .iter()
                .filter(|w| w.starts_with("pymdownx."))
                .min()
                .cloned();
        }
        if let Some(handler) = dist.strip_prefix("mkdocstrings-") {
            return (named("mkdocstrings") && self.keys.contains(handler))
                .then(|| format!("mkdocstrings: {handler}"));
        }
        // A fork's number after `-plugin` goes too (`mkdocs-git-committers-plugin-2` is
        // `git-committers`).
        let short = dist.strip_prefix("mkdocs-").map(|s| {
            let s = match s.rsplit_once('-') {
                Some((head, n)) if n.bytes().all(|b| b.is_ascii_digit()) => head,
                _ => s,
            };
            s.strip_suffix("-plugin").unwrap_or(s)
        });
        if let Some(w) = [Some(dist), short].into_iter().flatten().find(|w| named(w)) {
            return Some(w.to_string());
        }
        // A Markdown extension by its module (`mdx_include` of `mdx-include`,
        // `markdown_include.include`) — a list item, or a key of `markdown_extensions`
        // written as a mapping (sqlmodel's `mdx_include:`), where a module's `_` or `.`
        // tells it from the config's own keys — or, for a `markdown-`/`mdx-` distribution,
        // by an entry point's name ending in the rest of its name (markdown-callouts'
        // `callouts` and `github-callouts`, as niri's config loads it).
        let keys = crate::drift::names::python_keys(dist);
        let module_keys = (self.keys.iter()).filter(|k| k.contains(['_', '.']));
        let by_module = (self.items.iter()).chain(module_keys).filter(|item| {
            keys.iter()
                .any(|k| crate::drift::names::segment_prefix(k, item, "."))
        });
        if let Some(item) = by_module.min() {
            return Some(item.clone());
        }
        let rest = dist
            .strip_prefix("markdown-")
            .or_else(|| dist.strip_prefix("mdx-"))?;
        (self.items.iter())
            .filter(|item| {
                item.strip_suffix(rest)
                    .is_some_and(|head| head.is_empty() || head.ends_with('-'))
            })
            .min()
            .cloned()
    }
}

/// The packages a text names in `require('x')` calls, wherever they stand (inside a
/// node-gyp command string: `"<!(node -e \"require('node-addon-api').include\")"`).
pub(crate) fn required_in_text(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (at, _) in text.match_indices("require(") {
        let rest = text[at + "require(".len()..].trim_start_matches(['\\', ' ']);
        let Some(quote) = rest.chars().next().filter(|c| matches!(c, '\'' | '"')) else {
            continue;
        };
        let Some((spec, _)) = rest[1..].split_once(quote) else {
            continue;
        };
        if let Some(name) = super::super::names::js_package(spec.trim_end_matches('\\'))
            && !out.iter().any(|o| o == name)
        {
            out.push(name.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drift::tools::is_command_file;

    #[test]
    fn packages_a_node_gyp_command_requires() {
        // tree-sitter's bindings: one `require` in single quotes, one escaped double.
        let gyp = "{'targets': [{'include_dirs': [\"<!(node -e \\\"require('nan')\\\")\", \"<!@(node -p \\\"require(\\\\\\\"node-addon-api\\\\\\\").include\\\")\"]}]}";
        assert_eq!(required_in_text(gyp), ["nan", "node-addon-api"]);
        assert!(required_in_text("no calls here").is_empty());
    }

    #[test]
    fn a_prisma_generator_writes_a_client() {
        let seven = "datasource db {\n  provider = \"postgresql\"\n}\n\ngenerator client {\n  provider     = \"prisma-client\"\n  output       = \"../generated/prisma\"\n}\n";
        assert!(prisma_writes_client(seven));
        assert!(prisma_writes_client(
            "generator client {\n  provider = \"prisma-client-js\" // the JS client\n}\n"
        ));
        // A datasource's provider, or another generator (docs, types), writes no client.
        assert!(!prisma_writes_client(
            "datasource db {\n  provider = \"prisma-client-js\"\n}\ngenerator docs {\n  provider = \"prisma-docs-generator\"\n}\n"
        ));
    }

    #[test]
    fn a_test_runner_config_names_its_projects_environments_and_yaml_its_plugins() {
        let vitest = "export default defineConfig({ test: { projects: [\n  { test: { environment: \"jsdom\" } },\n  { test: { environment: 'happy-dom', alias: { '@x/y': 'z' } } },\n] } })\n";
        let names =
            |t: &str| -> Vec<String> { test_environments(t).into_iter().map(|(_, n)| n).collect() };
        assert_eq!(names(vitest), ["jsdom", "happy-dom"]);
        assert_eq!(
            names("{\"testEnvironment\": \"node\", \"environmentOptions\": {}}"),
            ["node"]
        );
        // A project commented out has no environment.
        assert!(
            test_environments(&without_comment_lines("// environment: 'happy-dom'\n")).is_empty()
        );
        let rules = [
            "react-hooks/exhaustive-deps".to_string(),
            "src/index.ts".to_string(),
        ];
        assert_eq!(
            eslint_rule_plugins(&rules),
            ["eslint-plugin-react-hooks", "eslint-config-react-hooks"]
        );
        assert!(tsconfig_sets_types(
            "{\"compilerOptions\": {\"types\": []}}"
        ));
        assert!(!tsconfig_sets_types(
            "{\"compilerOptions\": {\"typeRoots\": [\"x\"]}} // \"types\": [\"a\"]"
        ));
        let words = ["near-operation-file".to_string(), "src/".to_string()];
        assert_eq!(
            graphql_codegen_packages(&words),
            [
                "@graphql-codegen/near-operation-file",
                "@graphql-codegen/near-operation-file-preset"
            ]
        );
        let yaml = "# codegen\ngenerates:\n  src/:\n    preset: near-operation-file # x\n    plugins:\n      - 'typescript-operations'\n      - add:\n          content: '// hi'\n";
        let words = yaml_words(yaml);
        for w in ["near-operation-file", "typescript-operations", "add"] {
            assert!(words.contains(&w.to_string()), "{w}: {words:?}");
        }
        assert!(!words.iter().any(|w| w.contains("codegen")));
        assert!(is_graphql_codegen_config("codegen.yml"));
        assert!(!is_graphql_codegen_config("codegen.rs"));
        // A name `--config` gives it; the runtime the typed-document-node plugin's code imports.
        assert!(is_graphql_codegen_config("gql-codegen.yml"));
        assert!(!is_graphql_codegen_config("mycodegen.yml"));
        assert!(!is_graphql_codegen_config("openapi-codegen.json"));
        let words = vec!["typed-document-node".to_string()];
        assert!(
            graphql_codegen_packages(&words).contains(&"@graphql-typed-document-node/core".into())
        );
    }

    #[test]
    fn a_postcss_config_names_its_plugins_by_key() {
        let cjs = "const config = {\n  plugins: {\n    // Tailwind first\n    tailwindcss: { config: './tw.js', url: 'a, b: c' },\n    autoprefixer: {}, // x\n    'postcss-nested': {},\n  },\n};\nconst t = { path: a ? b : c };\n";
        assert_eq!(plugin_keys(cjs), ["tailwindcss", "autoprefixer"]);
        assert!(plugin_keys("module.exports = { plugins: [require('x')] }").is_empty());
        assert!(plugin_keys("{ plugins: { a: 1 ").len() == 1);
    }

    #[test]
    fn test_files_a_runner_names_by_a_suffix_of_its_own() {
        let vitest = "export default defineConfig({ optimizeDeps: { include: ['lodash'] },\n  test: { include: ['src/**/*.clienttest.{ts,tsx}', '**/*.ts'], coverage: { include: ['src/**'] } } })\n";
        assert_eq!(test_file_globs(vitest), ["src/**/*.clienttest.{ts,tsx}"]);
        let jest = r#"{"testMatch": ["**/*.servertest.[jt]s"], "roots": ["<rootDir>/src"]}"#;
        assert_eq!(test_file_globs(jest), ["**/*.servertest.[jt]s"]);
        assert!(test_file_globs("const excludeInclude = ['x/*.a.ts']").is_empty());
        let playwright = "export default defineConfig({\n  testDir: './playwright',\n})\n";
        assert_eq!(test_file_globs(playwright), ["playwright/**"]);
        let beside = "export default { testDir: './e2e', testMatch: '**/*.e2e.ts' }\n";
        assert_eq!(test_file_globs(beside), ["**/*.e2e.ts"]);
        assert!(test_file_globs("export default { testDir: './src' }").is_empty());
        let coverage =
            "export default { test: { coverage: { include: ['src/**/*.service.ts'] } } }";
        assert!(test_file_globs(coverage).is_empty());
    }

    #[test]
    fn test_setup_files_are_named_by_runner_configs_and_by_their_names() {
        let vitest = "export default defineConfig({\n  test: {\n    setupFiles: ['./test/setup.ts', 'vitest.polyfills'],\n    globalSetup: './test/global.ts',\n    include: ['src/**/*.test.ts'],\n  },\n});\n";
        let setup = setup_strings(vitest);
        assert_eq!(
            setup,
            ["./test/global.ts", "./test/setup.ts", "vitest.polyfills"]
        );
        assert!(is_test_support("test/setup.ts", &setup));
        assert!(is_test_support("test/global.ts", &setup));
        assert!(
            !is_test_support("src/index.ts", &setup),
            "`include` names no setup"
        );
        let jest = r#"{"setupFilesAfterEnv":["<rootDir>/jest/after-env"]}"#;
        let setup = setup_strings(jest);
        assert!(is_test_support("jest/after-env.js", &setup));
        assert!(!is_test_support("jest/after-env/x.js", &setup));
        for by_name in [
            "jest.setup.js",
            "src/setupTests.ts",
            "tools/test-setup.mjs",
            "a.test-utils.ts",
        ] {
            assert!(is_test_support(by_name, &[]), "{by_name}");
        }
        for shipped in ["src/setup.ts", "src/app-setup.js", "lib/testing.js"] {
            assert!(!is_test_support(shipped, &[]), "{shipped}");
        }
    }

    #[test]
    fn a_json_config_s_comments_do_not_hide_its_strings() {
        // A generated tsconfig: its comments hold a stray backtick and apostrophes.
        let text = "{\n  \"compilerOptions\": {\n    // \"jsxImportSource\": \"\", /* when using `jsx: react-jsx*`.` */\n    \"types\": [\n      \"@cloudflare/workers-types\"\n    ] /* don't forget */,\n  }\n}\n";
        assert!(!quoted_strings(text).contains(&"@cloudflare/workers-types".to_string()));
        assert!(
            config_strings("tsconfig.json", text)
                .contains(&"@cloudflare/workers-types".to_string())
        );
        assert!(
            config_strings(".babelrc", "// it's\n{\"presets\": [\"@babel/env\"]}")
                .contains(&"@babel/env".to_string())
        );
    }

    #[test]
    fn a_js_config_s_commented_out_lines_name_nothing() {
        // zod's rollup config; a URL's `//` inside a string stays.
        let text = "import resolve from \"@rollup/plugin-node-resolve\";\n// import terser from \"@rollup/plugin-terser\";\n  /* import a from \"old-a\";\n  import b from \"old-b\"; */ import c from \"after-block\";\n/* prettier */ module.exports = { plugins: [\"prettier-plugin-tailwindcss\"] }\nexport default { url: \"https://x.dev\", p: [\"kept\"] } // \"trailing\"\n";
        let found = config_strings("rollup.config.js", text);
        for kept in [
            "@rollup/plugin-node-resolve",
            "after-block",
            "prettier-plugin-tailwindcss",
            "https://x.dev",
            "kept",
        ] {
            assert!(found.contains(&kept.to_string()), "{kept}: {found:?}");
        }
        for gone in ["@rollup/plugin-terser", "old-a", "old-b"] {
            assert!(!found.contains(&gone.to_string()), "{gone}: {found:?}");
        }
    }

    #[test]
    fn quoted_strings_skip_escapes() {
        assert_eq!(
            quoted_strings(r#"a 'b' "c\"d" `e` 'unclosed"#),
            ["b", "c\"d", "e", "unclosed"]
        );
        assert!(is_js_config("docusaurus.config.mjs"));
        assert!(is_js_config(".babelrc"));
        assert!(is_js_config("tsconfig.build.json"));
        assert!(!is_js_config("index.js"));
        assert!(is_babel_config("babel.config.js"));
        assert!(is_command_file("Makefile"));
        assert!(is_command_file("Taskfile.yml"));
    }

    #[test]
    fn a_config_file_s_name_says_its_tool() {
        assert_eq!(config_host("postcss.config.mjs"), Some("postcss"));
        assert_eq!(config_host(".prettierrc.json"), Some("prettier"));
        assert_eq!(config_host("eslint.config.js"), Some("eslint"));
        assert_eq!(config_host("wrangler.toml"), Some("wrangler"));
        assert_eq!(config_host("tsconfig.json"), None);
        assert_eq!(config_host("postcss-plugin.js"), None);
        assert_eq!(config_host("my.postcss.config.js"), None);
    }

    #[test]
    fn a_tsconfig_s_types_are_type_packages() {
        let text = "{\n  // \"types\": [\"old\"]\n  \"compilerOptions\": {\n    \"types\": [\"bun\", \"@cloudflare/workers-types\", \"@types/jest\", \"./local.d.ts\"]\n  }\n}\n";
        assert_eq!(
            tsconfig_types(text),
            [
                "@types/bun",
                "@types/cloudflare__workers-types",
                "@types/jest"
            ]
        );
        assert!(tsconfig_types("{\"compilerOptions\": {}}").is_empty());
    }

    #[test]
    fn an_mkdocs_config_names_its_theme_plugins_handlers_and_extensions() {
        let yml = "site_name: x\ntheme:\n  name: material\nplugins:\n  - search\n  - awesome-pages\n  - git-committers:\n      repository: a/b\n  - mkdocstrings:\n      handlers:\n        python:\n          paths: [src]\nmarkdown_extensions:\n  - pymdownx.superfences\n  - mdx_truly_sane_lists\n# - redirects\n";
        let config = MkDocs::read("mkdocs.yml", yml);
        let named = |d: &str| config.names(d);
        assert_eq!(named("mkdocs").as_deref(), Some("mkdocs"));
        assert_eq!(named("mkdocs-material").as_deref(), Some("material"));
        assert_eq!(
            named("mkdocs-awesome-pages-plugin").as_deref(),
            Some("awesome-pages")
        );
        assert_eq!(
            named("mkdocs-git-committers-plugin-2").as_deref(),
            Some("git-committers")
        );
        assert_eq!(named("mkdocstrings").as_deref(), Some("mkdocstrings"));
        assert_eq!(
            named("mkdocstrings-python").as_deref(),
            Some("mkdocstrings: python")
        );
        assert_eq!(
            named("pymdown-extensions").as_deref(),
            Some("pymdownx.superfences")
        );
        assert_eq!(
            named("mdx-truly-sane-lists").as_deref(),
            Some("mdx-truly-sane-lists")
        );
        // Extensions by their modules, as a mapping's keys too, and by an entry point's name.
        let yml = "markdown_extensions:\n  - github-callouts\n  - markdown_include.include:\n      base_path: docs\n  mdx_include:\n  toc:\n";
        let config = MkDocs::read("mkdocs.yml", yml);
        let named = |d: &str| config.names(d);
        assert_eq!(
            named("markdown-callouts").as_deref(),
            Some("github-callouts")
        );
        assert_eq!(
            named("markdown-include").as_deref(),
            Some("markdown_include.include")
        );
        assert_eq!(named("mdx-include").as_deref(), Some("mdx_include"));
        assert_eq!(named("toc"), None);
        assert_eq!(named("markdown-include-variants"), None);
        // A commented-out plugin, a handler not configured, a name only inside a word: none.
        for none in [
            "mkdocs-redirects",
            "mkdocstrings-crystal",
            "mkdocs-search-x",
            "paths",
            "src",
        ] {
            assert_eq!(named(none), None, "{none}");
        }
    }

    #[test]
    fn a_split_mkdocs_config_is_read_whole() {
        // textual's: the plugins in one file, the theme in another that `INHERIT`s it.
        for f in ["mkdocs.yml", "mkdocs-common.yml", "mkdocs.insiders.yaml"] {
            assert!(is_mkdocs_config(f), "{f}");
        }
        for f in ["mkdocs.py", "mkdocs_hooks.yml", "docs.yml"] {
            assert!(!is_mkdocs_config(f), "{f}");
        }
        let mut config = MkDocs::read("mkdocs-common.yml", "plugins:\n  - rss\n");
        config.merge(MkDocs::read(
            "mkdocs-online.yml",
            "INHERIT: mkdocs-common.yml\ntheme:\n  name: material\n",
        ));
        assert_eq!(config.file, "mkdocs-common.yml, mkdocs-online.yml");
        assert!(config.names("mkdocs-rss-plugin").is_some());
        assert!(config.names("mkdocs-material").is_some());
    }
}
