//! Configs a tool reads for the packages below them, for a package whose commands run that
//! tool: ESLint's legacy `.eslintrc*` files upwards until one says `root: true`, else the
//! nearest flat `eslint.config.*`, and the nearest Prettier config (each looks upwards from
//! the file it checks); a vitest or jest config above that names the package's directory as
//! a project (that project's environment), and the nearest one's setup files for a package
//! without a runner config of its own (what they import that the config's own package does
//! not declare); and the `netlify.toml` whose `base` is the package (its `[[plugins]]`). Each
//! directory's configs are read once and shared by every package below them.

use super::configs::{self, completions, config_strings};
use super::{Manifests, command_words};
use crate::source::{self, RepoSnapshot, Snapshot, SourceError, blob_text};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The tools whose configs count for the packages below them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Eslint,
    Prettier,
    Vitest,
    Jest,
    Netlify,
}

impl Family {
    /// The family of a config file, by its name: `.eslintrc` itself or with an extension
    /// (`.eslintrc-auto-import.json`, a generated globals file, is none).
    fn of(file: &str) -> Option<Family> {
        const NAMES: &[(&str, Family)] = &[
            (".eslintrc", Family::Eslint),
            ("eslint.config", Family::Eslint),
            (".prettierrc", Family::Prettier),
            ("prettier.config", Family::Prettier),
            ("vitest.config", Family::Vitest),
            ("vitest.workspace", Family::Vitest),
            ("jest.config", Family::Jest),
            ("netlify.toml", Family::Netlify),
        ];
        NAMES
            .iter()
            .find(|(name, _)| {
                file.strip_prefix(name)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
            })
            .map(|(_, f)| *f)
    }

    /// The commands that make a package read the nearest config of this family upwards
    /// (none: the family is found another way).
    fn commands(self) -> &'static [&'static str] {
        match self {
            Family::Eslint => &["eslint"],
            Family::Prettier => &["prettier", "pretty-quick"],
            Family::Vitest | Family::Jest | Family::Netlify => &[],
        }
    }
}

/// One config in a directory above packages, with the packages it names.
#[derive(Debug)]
pub struct AboveConfig {
    /// Its path in the repository.
    pub file: String,
    family: Family,
    /// Each package its strings name or complete to, with the string.
    names: HashMap<String, String>,
    /// A test runner config's code (comment lines out), where a project's directory is
    /// named, and the environments it names, each where its key stands.
    code: String,
    environments: Vec<(usize, String)>,
    /// Netlify's `[build] base`, relative to the config's directory.
    base: Option<String>,
    /// An ESLint config that ends the upward search: a flat config, or a legacy one saying
    /// `root: true`.
    last: bool,
    /// A test runner config's setup files' package imports: each package with the file.
    setup: HashMap<String, String>,
}

impl AboveConfig {
    /// The string of this config that names the package `name`.
    pub fn names(&self, name: &str) -> Option<&str> {
        self.names.get(name).map(String::as_str)
    }

    /// The environment a test runner's config gives `member` (a directory below its own)
    /// when it names it as a project (effect's `project("@effect/atom-react",
    /// "packages/atom/react", { test: { environment: "jsdom" } })`): the one whose key stands
    /// nearest the directory's mention, within a project's few hundred bytes.
    fn project_environment(&self, member: &str) -> Option<&str> {
        self.mentions(member)
            .flat_map(|at| {
                (self.environments.iter()).map(move |(key, name)| (key.abs_diff(at), name))
            })
            .filter(|(distance, _)| *distance <= 400)
            .min_by_key(|(distance, _)| *distance)
            .map(|(_, name)| name.as_str())
    }

    /// Whether a test runner's config selects `member`'s tests: a mention of its directory
    /// whose key is one that chooses test files or projects (`testMatch`, `roots`,
    /// `projects`, `include`, …) — not one that leaves it out or maps it
    /// (`testPathIgnorePatterns`, `moduleNameMapper`, `coverage…`).
    fn selects_tests_of(&self, member: &str) -> bool {
        const SELECTING: &[&str] = &[
            "testMatch",
            "testRegex",
            "roots",
            "projects",
            "include",
            "dir",
            "root",
        ];
        self.mentions(member).any(|at| {
            let before = &self.code[..at];
            // The nearest `key:` before the mention (a URL's `://` is none).
            let key = (before.match_indices(':').rev())
                .filter(|(i, _)| !before[i + 1..].starts_with("//"))
                .find_map(|(i, _)| {
                    let head = before[..i].trim_end().trim_end_matches(['"', '\'']);
                    let word: String = (head.chars().rev())
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    (!word.is_empty()).then(|| word.chars().rev().collect::<String>())
                });
            key.is_some_and(|k| SELECTING.contains(&k.as_str()))
        })
    }

    /// Where the config's code names `member` (a directory below its own) as a path of its
    /// own: quoted or after a `/`, and ending there or at a `/` (`packages/slate` is not
    /// named by `packages/slate-react`).
    fn mentions<'s>(&'s self, member: &'s str) -> impl Iterator<Item = usize> + 's {
        let bytes = self.code.as_bytes();
        (self.code.match_indices(member))
            .map(|(at, _)| at)
            .filter(move |&at| {
                let before = at.checked_sub(1).map(|b| bytes[b]);
                let after = bytes.get(at + member.len()).copied();
                !member.is_empty()
                    && matches!(before, Some(b'"' | b'\'' | b'`' | b'/'))
                    && matches!(after, Some(b'"' | b'\'' | b'`' | b'/'))
            })
    }
}

/// The configs of each directory read, by (repository, directory).
type Memo = HashMap<(usize, String), Arc<Vec<Arc<AboveConfig>>>>;

/// Gives each JS module the configs above it that its tools read (see the module's doc), by
/// its own commands and configs: run before a workspace root takes its members'.
pub(in crate::drift) fn configs_above(
    snapshot: &Snapshot,
    manifests: &mut [Manifests],
) -> Result<(), SourceError> {
    let mut memo = Memo::new();
    for (m, man) in snapshot.modules.iter().zip(manifests.iter_mut()) {
        let Some(v) = &man.package_json_value else {
            continue;
        };
        let snap = snapshot.repo_of(m);
        let words: HashSet<&str> = man.tools.commands.lines().flat_map(command_words).collect();
        // The package's own configs come first (package.json's keys count): Prettier's
        // nearest wins, ESLint's too unless a legacy one leaves `root: true` unsaid.
        let mut nearest: Vec<Family> = Vec::new();
        if let Some(c) = v.get("eslintConfig")
            && c.get("root").and_then(|r| r.as_bool()) == Some(true)
        {
            nearest.push(Family::Eslint);
        }
        if v.get("prettier").is_some() {
            nearest.push(Family::Prettier);
        }
        let own_runner =
            (man.tools.config_hosts.iter()).any(|(host, _)| host == "vitest" || host == "jest");
        let mut found = Vec::new();
        let mut hosts = Vec::new();
        for at in source::ancestors(&m.dir) {
            let own = at == m.dir;
            let member = source::relative(&m.dir, at);
            let member = if own { "" } else { member };
            for c in dir_configs(snap, m.repo, at, &mut memo)?.iter() {
                let applies = match c.family {
                    Family::Eslint | Family::Prettier => {
                        if nearest.contains(&c.family) {
                            continue;
                        }
                        if c.family == Family::Prettier || c.last {
                            nearest.push(c.family);
                        }
                        // The package's own config is read as its own (`root_files`).
                        !own && c.family.commands().iter().any(|w| words.contains(w))
                    }
                    Family::Vitest | Family::Jest => {
                        // The member's own project's environment, apart from the others'.
                        if let Some(env) = c.project_environment(member).filter(|_| !own) {
                            found.push(Arc::new(environment_of(c, env)));
                        }
                        // A config naming the member's directory runs its tests (slate's
                        // root `testMatch: ['<rootDir>/packages/slate-react/test/**']`).
                        if !own && c.selects_tests_of(member) {
                            let runner = match c.family {
                                Family::Jest => "jest",
                                _ => "vitest",
                            };
                            hosts.push((runner.to_string(), c.file.clone()));
                        }
                        // The nearest one's setup files, unless the package runs its own.
                        if !own && !own_runner && !nearest.contains(&c.family) {
                            nearest.push(c.family);
                            if !c.setup.is_empty() {
                                found.push(Arc::new(setup_of(c)));
                            }
                        }
                        continue;
                    }
                    Family::Netlify => {
                        if nearest.contains(&c.family) {
                            continue;
                        }
                        nearest.push(c.family);
                        let base = c.base.as_deref().unwrap_or("");
                        base.trim_start_matches("./").trim_end_matches('/') == member
                            || (base == "." && member.is_empty())
                    }
                };
                if applies {
                    found.push(Arc::clone(c));
                }
            }
        }
        man.tools.above = found;
        man.tools.config_hosts.extend(hosts);
    }
    Ok(())
}

/// The configs [`Family::of`] knows in the directory `at` of repository `repo`, read once.
fn dir_configs(
    snap: &RepoSnapshot,
    repo: usize,
    at: &str,
    memo: &mut Memo,
) -> Result<Arc<Vec<Arc<AboveConfig>>>, SourceError> {
    let key = (repo, at.to_string());
    if let Some(found) = memo.get(&key) {
        return Ok(Arc::clone(found));
    }
    let mut found = Vec::new();
    if let Some(tree) = snap.dir_tree(at)? {
        for f in source::file_names(snap, &tree)? {
            let Some(family) = Family::of(&f) else {
                continue;
            };
            let Some(text) = blob_text(snap, &tree, &f)? else {
                continue;
            };
            let mut config = read(source::join(at, &f), &f, family, &text);
            if matches!(family, Family::Vitest | Family::Jest) {
                config.setup = setup_imports(snap, at, &text)?;
                // What the config's own package declares answers its setup files' imports.
                let own = blob_text(snap, &tree, "package.json")?
                    .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
                if let Some(own) = own {
                    config
                        .setup
                        .retain(|package, _| !crate::drift::js::declares(&own, package));
                }
            }
            found.push(Arc::new(config));
        }
        // A flat ESLint config beside a legacy one wins (ESLint 9 reads it first).
        if found.iter().any(|c| c.family == Family::Eslint && c.last) {
            found.retain(|c| c.family != Family::Eslint || c.last);
        }
    }
    let found = Arc::new(found);
    memo.insert(key, Arc::clone(&found));
    Ok(found)
}

/// One config of `family`, named `name` and at `path`, from its text.
fn read(path: String, name: &str, family: Family, text: &str) -> AboveConfig {
    // Only a legacy ESLint config's text is read for `root: true`.
    let last = family == Family::Eslint
        && (name.starts_with("eslint.config") || {
            let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            squeezed.contains("root:true") || squeezed.contains("\"root\":true")
        });
    let mut code = String::new();
    let mut environments = Vec::new();
    let (said, base) = match family {
        Family::Eslint => {
            let mut said = config_strings(name, text);
            said.extend(configs::eslint_rule_plugins(&said));
            (said, None)
        }
        Family::Prettier => (config_strings(name, text), None),
        // Only a project's environment, per member ([`environment_of`]): a root test config
        // also aliases every package.
        Family::Vitest | Family::Jest => {
            code = configs::without_comment_lines(text);
            environments = configs::test_environments(&code);
            (Vec::new(), None)
        }
        Family::Netlify => {
            let t = toml::from_str::<toml::Table>(text).unwrap_or_default();
            let base = (t.get("build").and_then(|b| b.get("base")))
                .and_then(|b| b.as_str())
                .map(str::to_string);
            let plugins = (t.get("plugins").and_then(|p| p.as_array()).into_iter())
                .flatten()
                .filter_map(|p| p.get("package")?.as_str())
                .map(str::to_string)
                .collect();
            (plugins, Some(base.unwrap_or_default()))
        }
    };
    let mut names = HashMap::new();
    for s in &said {
        for c in completions(s) {
            names.entry(c).or_insert_with(|| s.clone());
        }
    }
    AboveConfig {
        file: path,
        family,
        names,
        code,
        environments,
        base,
        last,
        setup: HashMap::new(),
    }
}

/// What the test runner config `c` gives one member: the environment `env` of its project,
/// by the packages it completes to (`jsdom` → `jest-environment-jsdom` too).
fn environment_of(c: &AboveConfig, env: &str) -> AboveConfig {
    AboveConfig {
        file: c.file.clone(),
        family: c.family,
        names: completions(env)
            .into_iter()
            .map(|p| (p, env.to_string()))
            .collect(),
        code: String::new(),
        environments: Vec::new(),
        base: None,
        last: false,
        setup: HashMap::new(),
    }
}

/// What the test runner config `c` above a package without its own runs the package's tests
/// with: its setup files, whose package imports are the package's tests' (excalidraw's root
/// `vitest.config.mts` names `setupTests.ts`, which imports `@testing-library/jest-dom` for
/// every package's tests).
fn setup_of(c: &AboveConfig) -> AboveConfig {
    AboveConfig {
        file: c.file.clone(),
        family: c.family,
        names: c.setup.clone(),
        code: String::new(),
        environments: Vec::new(),
        base: None,
        last: false,
        setup: HashMap::new(),
    }
}

/// The packages the setup files a test runner config at `dir` names (`text`) import, each
/// with the file (a name as written there, without its extension or with), and the packages
/// it names as setup files themselves.
fn setup_imports(
    snap: &RepoSnapshot,
    dir: &str,
    text: &str,
) -> Result<HashMap<String, String>, SourceError> {
    let root = snap.root_tree()?;
    let mut out = HashMap::new();
    for s in configs::setup_strings(text) {
        let rel = s.trim_start_matches("<rootDir>");
        // A package named as a setup file itself (`setupFilesAfterEnv:
        // ["@testing-library/jest-dom"]`).
        if !(rel.starts_with('.') || rel.starts_with('/')) {
            if let Some(package) = crate::drift::names::js_package(rel) {
                out.entry(package.to_string()).or_insert_with(|| s.clone());
            }
            continue;
        }
        let Some(path) = mesh_imports::repo_path(&[dir, rel]) else {
            continue;
        };
        let Some((file, code)) = crate::drift::js::resolve_file(snap, &root, &path)? else {
            continue;
        };
        for imp in mesh_imports::js::scan_file(&code).imports.iter() {
            if let Some(package) = crate::drift::names::js_package(&imp.name) {
                out.entry(package.to_string())
                    .or_insert_with(|| file.clone());
            }
        }
    }
    Ok(out)
}
