//! Where a module's tool evidence is read from: its package.json's `scripts` and tool keys,
//! the configs and command files at its root, pyproject.toml's `[tool]` keys and Python
//! tools' own config files, the CI workflows (for a module at the repository's root; for
//! another, the steps run in its directory), what its installed packages (or npm's lockfile)
//! say of themselves, its Prisma schema, and what a JS workspace root's members run.

use super::*;

/// Reads what a module's tools use: its package.json `scripts` and tool keys, the configs and
/// command files at its root, pyproject.toml's `[tool]` keys, and for a module at the
/// repository's root, its CI workflows (for another module, the steps run in its directory).
pub(in crate::drift) fn evidence(
    snap: &RepoSnapshot,
    tree: &gix::Tree,
    m: &ModuleSource,
    package_json: Option<&serde_json::Value>,
    pyproject: Option<&toml::Table>,
) -> std::result::Result<ToolEvidence, SourceError> {
    let mut e = ToolEvidence::default();
    let files = crate::source::file_names(snap, tree)?;
    root_files(snap, tree, &files, &mut e)?;
    python_configs(snap, tree, &files, m, &mut e)?;
    if m.dir.is_empty() {
        workflows(snap, tree, &mut e)?;
    } else {
        workflow_steps_in(snap, &m.dir, &mut e)?;
    }
    compose_files(snap, m, &mut e)?;
    if let Some(v) = package_json {
        package_json_tools(v, &mut e);
        e.bundler_script = bundler_script(snap, tree, v)?;
        let project_json = blob_text(snap, tree, "project.json")?
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        e.nx_bundler = bundlers::nx_target(v, project_json.as_ref());
        e.outside_scripts = scripts::outside_script_imports(snap, &m.dir, v)?;
        (e.installed_bins, e.installed_peers) = installed(&snap.path, &m.dir, v);
        // npm's lockfile beside the package records each package's commands: what an install
        // would say, read where nothing is installed (openlibrary's `cem`, which
        // @custom-elements-manifest/analyzer installs).
        if let Some(lock) = blob_text(snap, tree, "package-lock.json")? {
            for (name, bins) in locked_bins(&lock, v) {
                e.installed_bins.entry(name).or_insert(bins);
            }
        }
        e.prisma_schema = prisma_schema(snap, tree, m, v)?;
    }
    if let Some(tool) = pyproject.and_then(|t| t.get("tool")?.as_table()) {
        e.python_tools = tool
            .keys()
            .map(|k| super::python::section_tool(k))
            .collect();
    }
    // A Python tool reads the nearest pyproject.toml configuring it up the tree (ruff, and
    // mypy and pytest run from the root): a `[tool.X]` above the package configures it for
    // the package too (chainlit's root holds `[tool.ruff]` and `[tool.mypy]` for `backend/`).
    if pyproject.is_some()
        && let Some(above) = crate::source::above(&m.dir)
    {
        let root = snap.root_tree()?;
        for at in mesh_imports::ancestors(above) {
            let path = crate::source::join(at, "pyproject.toml");
            let Some(text) = blob_text(snap, &root, &path)? else {
                continue;
            };
            let table = toml::from_str::<toml::Table>(&text).unwrap_or_default();
            if let Some(tool) = table.get("tool").and_then(|t| t.as_table()) {
                e.python_tools
                    .extend(tool.keys().map(|k| super::python::section_tool(k)));
            }
        }
    }

    // An extra named for development (`dev`, `lint`), or for a tool a `[tool.X]` configures
    // (chainlit's `mypy` extra beside `[tool.mypy]`), installs development tools.
    let extras = pyproject.map(crate::drift::declared::pyproject_extras);
    e.python_dev_extras = extras
        .into_iter()
        .flatten()
        .filter(|(extra, _)| {
            DEV_EXTRAS.contains(&extra.as_str()) || e.python_tools.contains(&names::pep503(extra))
        })
        .flat_map(|(_, names)| names)
        .map(|n| names::pep503(&n))
        .collect();
    // `oxlint --type-aware` runs its `oxlint-tsgolint` backend, as the config's switch does.
    if super::command_words(&e.commands).any(|w| w == "--type-aware")
        && super::command_words(&e.commands).any(|w| w == "oxlint")
    {
        e.config_strings.push("oxlint-tsgolint".to_string());
    }
    Ok(e)
}

/// Adds the Python tools configured by files of their own at the module's root and at the
/// repository's (pre-commit's config is the repository's) to `e`, and those a `setup.cfg`
/// or `tox.ini` at the module's root has a section for.
fn python_configs(
    snap: &RepoSnapshot,
    tree: &gix::Tree,
    files: &[String],
    m: &ModuleSource,
    e: &mut ToolEvidence,
) -> std::result::Result<(), SourceError> {
    let python = files.iter().any(|f| {
        matches!(f.as_str(), "pyproject.toml" | "setup.cfg" | "setup.py")
            || f.starts_with("requirements")
    });
    if !python {
        return Ok(());
    }
    let mut found = Vec::new();
    for f in files {
        if let Some(tool) = python::config_file_tool(f) {
            found.push((tool.to_string(), crate::source::join(&m.dir, f)));
        }
        if matches!(f.as_str(), "setup.cfg" | "tox.ini")
            && let Some(text) = blob_text(snap, tree, f)?
        {
            let file = crate::source::join(&m.dir, f);
            found.extend(
                python::ini_section_tools(&text)
                    .into_iter()
                    .map(|t| (t, file.clone())),
            );
        }
    }
    if !m.dir.is_empty() {
        let root = snap.root_tree()?;
        for f in crate::source::file_names(snap, &root)? {
            if let Some(tool) = python::config_file_tool(&f) {
                found.push((tool.to_string(), f));
            }
        }
    }
    e.python_configs.extend(found);
    Ok(())
}

/// The module's Prisma schema (package.json's `prisma.schema`, else `prisma/schema.prisma`
/// or `schema.prisma`, where Prisma looks) when a generator of it writes a client
/// (`provider = "prisma-client-js"` or `"prisma-client"`), repository-relative.
fn prisma_schema(
    snap: &RepoSnapshot,
    tree: &gix::Tree,
    m: &ModuleSource,
    package_json: &serde_json::Value,
) -> std::result::Result<Option<String>, SourceError> {
    let named = (package_json.get("prisma"))
        .and_then(|p| p.get("schema")?.as_str())
        .map(|p| p.trim_start_matches("./").to_string());
    let candidates = named.into_iter().chain(
        [
            "prisma/schema.prisma",
            "schema.prisma",
            "prisma/schema/schema.prisma",
        ]
        .map(String::from),
    );
    for path in candidates.filter(|p| !p.contains("..")) {
        let Some(text) = blob_text(snap, tree, &path)? else {
            continue;
        };
        if configs::prisma_writes_client(&text) {
            return Ok(Some(crate::source::join(&m.dir, &path)));
        }
    }
    Ok(None)
}

/// Adds the JS tool configs and command files at the module's root (its `files`) to `e`.
fn root_files(
    snap: &RepoSnapshot,
    tree: &gix::Tree,
    files: &[String],
    e: &mut ToolEvidence,
) -> std::result::Result<(), SourceError> {
    for f in files {
        if let Some(host) = config_host(f) {
            e.config_hosts.push((host.to_string(), f.clone()));
        }
        if configs::is_mkdocs_config(f)
            && let Some(text) = blob_text(snap, tree, f)?
        {
            let config = configs::MkDocs::read(f, &text);
            match &mut e.mkdocs {
                Some(first) => first.merge(config),
                None => e.mkdocs = Some(config),
            }
        }
        if configs::is_graphql_codegen_config(f)
            && let Some(text) = blob_text(snap, tree, f)?
        {
            e.config_hosts
                .push(("@graphql-codegen/cli".to_string(), f.clone()));
            let words = match f.ends_with(".yml") || f.ends_with(".yaml") {
                true => configs::yaml_words(&text),
                false => config_strings(f, &text),
            };
            e.config_strings
                .extend(configs::graphql_codegen_packages(&words));
            e.config_strings.extend(words);
        }
        // node-gyp's `binding.gyp` finds a native addon's headers through the packages it
        // runs Node to `require` (`<!(node -e "require('nan')")`, tree-sitter's bindings).
        if f == "binding.gyp"
            && let Some(text) = blob_text(snap, tree, f)?
        {
            e.config_strings.extend(configs::required_in_text(&text));
        }
        let (config, command) = (is_js_config(f), is_command_file(f));
        let oxlint = f.starts_with(".oxlintrc");
        if !config && !command && !oxlint {
            continue;
        }
        let Some(text) = blob_text(snap, tree, f)? else {
            continue;
        };
        if oxlint {
            // oxlint's type-aware rules run in its `oxlint-tsgolint` backend. (Its config's
            // other strings are rule and built-in plugin names, no packages.)
            let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            if squeezed.contains("\"typeAware\":true") {
                e.config_strings.push("oxlint-tsgolint".to_string());
            }
        } else if config {
            // A JSON config may have comments (tsconfig's are JSONC): a quote or backtick in
            // one must not swallow the strings after it.
            let strings = config_strings(f, &text);
            // PostCSS names its plugins by the keys of its `plugins` object.
            if config_host(f) == Some("postcss") {
                e.config_strings.extend(configs::plugin_keys(&text));
            }
            if configs::is_eslint_config(f) {
                e.config_strings
                    .extend(configs::eslint_rule_plugins(&strings));
            }
            e.config_strings.extend(strings);
            if is_test_runner_config(f) {
                e.test_setup.extend(setup_strings(&text));
                e.test_globs.extend(configs::test_file_globs(&text));
            }
            // A vitest config's `coverage` block that names no `provider` is for v8, vitest's
            // default, which loads `@vitest/coverage-v8` when coverage runs (nitro's).
            if (f.starts_with("vitest.config") || f.starts_with("vite.config"))
                && text.contains("coverage:")
                && !text.contains("provider")
            {
                e.config_strings.push("@vitest/coverage-v8".to_string());
            }
            e.babel_config |= is_babel_config(f);
            e.tsconfig |= f.starts_with("tsconfig");
            // `importHelpers` makes the compiled output import its helpers from `tslib`;
            // `"types": ["bun"]` loads `@types/bun`.
            if f.starts_with("tsconfig") {
                e.tsconfig_lists_types |= configs::tsconfig_sets_types(&text);
                e.config_strings.extend(configs::tsconfig_types(&text));
                let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                if squeezed.contains("\"importHelpers\":true") {
                    e.config_strings.push("tslib".to_string());
                }
            }
            if is_bundler_config(f) {
                e.bundler_config = Some(f.clone());
            }
        } else {
            e.commands.push_str(&text);
            e.commands.push('\n');
            // A Makefile that runs make in a directory below runs that one's commands too.
            if f.ends_with("akefile") {
                for dir in sub_makes(&text) {
                    if let Some(sub) = blob_text(snap, tree, &format!("{dir}/Makefile"))? {
                        e.commands.push_str(&sub);
                        e.commands.push('\n');
                    }
                }
            }
        }
    }
    Ok(())
}

/// The directories below a Makefile whose own Makefile it runs: `$(MAKE) -C docs`, `make
/// -C docs`, `cd sdk/python/docs && $(MAKE)` (feast's `build-sphinx`), each once, at most
/// 8, none above the module or absolute.
fn sub_makes(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let make = |w: &str| matches!(w, "$(MAKE)" | "${MAKE}" | "make");
    for line in text.lines() {
        let words: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || c == ';')
            .filter(|w| !w.is_empty())
            .collect();
        for (i, w) in words.iter().enumerate() {
            let dir = match *w {
                "-C" if i > 0 && make(words[i - 1]) => words.get(i + 1),
                "cd" if words.get(i + 2) == Some(&"&&")
                    && words.get(i + 3).is_some_and(|m| make(m)) =>
                {
                    words.get(i + 1)
                }
                _ => None,
            };
            let Some(dir) = dir.map(|d| d.trim_end_matches('/')) else {
                continue;
            };
            let plain = !dir.is_empty()
                && !dir.starts_with('/')
                && !dir.split('/').any(|p| p == ".." || p.contains('$'));
            if plain && out.len() < 8 && !out.iter().any(|o| o == dir) {
                out.push(dir.trim_start_matches("./").to_string());
            }
        }
    }
    out
}

/// Adds the repository's CI workflows (`.github/workflows/*.{yml,yaml}`) and the composite
/// actions its workflows call (`.github/actions/*/action.yml`: hono's perf action runs
/// `tsgo`) to `e`'s commands: read only for a module at the repository's root, whose `tree`
/// this is.
fn workflows(
    snap: &RepoSnapshot,
    tree: &gix::Tree,
    e: &mut ToolEvidence,
) -> std::result::Result<(), SourceError> {
    for path in crate::source::yaml_files(snap, ".github/workflows", 0)? {
        if let Some(text) = blob_text(snap, tree, &path)? {
            e.commands.push_str(&text);
            e.commands.push('\n');
        }
    }
    // An action's `description`s are prose: only its steps' `run:` text runs.
    let actions = crate::source::yaml_files(snap, ".github/actions", 1)?
        .into_iter()
        .filter(|p| p.ends_with("/action.yml") || p.ends_with("/action.yaml"));
    for path in actions {
        if let Some(text) = blob_text(snap, tree, &path)? {
            e.commands.push_str(&run_text(&text));
        }
    }
    Ok(())
}

/// The commands the steps of a YAML file run: each `run:` value, a block scalar's
/// (`run: |`) lines too, one per line.
fn run_text(text: &str) -> String {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out = String::new();
    let mut block: Option<usize> = None;
    for line in text.lines() {
        if let Some(at) = block {
            if line.trim().is_empty() || indent(line) > at {
                out.push_str(line.trim());
                out.push('\n');
                continue;
            }
            block = None;
        }
        let key = line.trim_start().trim_start_matches("- ");
        let Some(value) = key.strip_prefix("run:") else {
            continue;
        };
        let value = value.trim();
        if value.starts_with(['|', '>']) {
            block = Some(indent(line) + (line.trim_start().len() - key.len()));
        } else {
            out.push_str(value.trim_matches(['"', '\'']));
            out.push('\n');
        }
    }
    out
}

/// Adds to `e`'s commands what the Compose files at the module's root or one directory down
/// (`development/docker-compose.yml`; not in a module nested there) run in the containers of
/// the module's own image: each such service's `command` and `entrypoint` (nautobot's worker
/// under `watchmedo auto-restart`). Not the rest of the file (an `image: redis` names no
/// command), nor a service running another's image.
fn compose_files(
    snap: &RepoSnapshot,
    m: &ModuleSource,
    e: &mut ToolEvidence,
) -> std::result::Result<(), SourceError> {
    let files = crate::source::yaml_files(snap, &m.dir, 1)?;
    let compose = |path: &str| {
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let nested = (m.nested.iter()).any(|n| n == dir);
        (name.starts_with("docker-compose") || name.starts_with("compose.")) && !nested
    };
    let files: Vec<String> = files.into_iter().filter(|f| compose(f)).collect();
    if files.is_empty() {
        return Ok(());
    }
    let root = snap.root_tree()?;
    for path in files {
        if let Some(text) = blob_text(snap, &root, &path)? {
            for command in compose_commands(&text) {
                e.commands.push_str(&command);
                e.commands.push('\n');
            }
        }
    }
    Ok(())
}

/// The `command` and `entrypoint` of each service of a Compose file's `text` that runs an
/// image the file builds (a service with `build`, or one naming the `image` such a service
/// builds), each as one line of words: a string, a flow list (`["watchmedo",
/// "auto-restart"]`) or a block below the key (a list, or a folded string).
fn compose_commands(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let words = |v: &str| {
        v.replace(['[', ']', '"', '\'', ','], " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    /// One service: whether it builds, its image, its commands.
    #[derive(Default)]
    struct Service {
        builds: bool,
        image: Option<String>,
        commands: Vec<String>,
    }
    let Some(at) = lines.iter().position(|l| l.trim_end() == "services:") else {
        return Vec::new();
    };
    let mut services: Vec<Service> = Vec::new();
    let (mut service_indent, mut key_indent) = (None, None);
    let mut i = at + 1;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        i += 1;
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let n = indent(line);
        if n == 0 {
            break;
        }
        if service_indent.is_none_or(|s| n <= s) {
            service_indent = Some(n);
            key_indent = None;
            services.push(Service::default());
            continue;
        }
        let Some(service) = services.last_mut() else {
            continue;
        };
        if key_indent.is_none_or(|k| n < k) {
            key_indent = Some(n);
        }
        if Some(n) != key_indent {
            continue;
        }
        let (key, value) = t.split_once(':').unwrap_or((t, ""));
        let value = value.trim();
        match key {
            "build" => service.builds = true,
            "image" => service.image = Some(value.trim_matches(['"', '\'']).to_string()),
            "command" | "entrypoint" => {
                let mut command = match value {
                    "" | ">" | "|" | ">-" | "|-" => String::new(),
                    v => words(v),
                };
                if command.is_empty() {
                    // The block below the key: deeper lines, or a list at the key's own indent.
                    while let Some(l) = lines.get(i).filter(|l| {
                        l.trim().is_empty()
                            || indent(l) > n
                            || (indent(l) == n && l.trim_start().starts_with("- "))
                    }) {
                        let item = l.trim().strip_prefix("- ").unwrap_or(l.trim());
                        command.push(' ');
                        command.push_str(&words(item));
                        i += 1;
                    }
                }
                service.commands.push(command.trim().to_string());
            }
            _ => {}
        }
    }
    let built: Vec<&String> = (services.iter())
        .filter(|s| s.builds)
        .filter_map(|s| s.image.as_ref())
        .collect();
    (services.iter())
        .filter(|s| s.builds || s.image.as_ref().is_some_and(|i| built.contains(&i)))
        .flat_map(|s| s.commands.iter().cloned())
        .collect()
}

/// Adds to `e` the CI workflow steps that run in the module's directory `dir` (a step's
/// `working-directory: dir`): evidently's `pnpm wait-on …` in its visual-testing package.
fn workflow_steps_in(
    snap: &RepoSnapshot,
    dir: &str,
    e: &mut ToolEvidence,
) -> std::result::Result<(), SourceError> {
    let files = crate::source::yaml_files(snap, ".github/workflows", 0)?;
    if files.is_empty() {
        return Ok(());
    }
    let root = snap.root_tree()?;
    for path in files {
        if let Some(text) = blob_text(snap, &root, &path)? {
            for step in steps_in(&text, dir) {
                e.commands.push_str(&step);
                e.commands.push('\n');
            }
        }
    }
    Ok(())
}

/// The text of each step of workflow `text` whose `working-directory` is `dir` (as written,
/// `./` and a trailing `/` aside): the list item holding that key, to the next line indented
/// no deeper than its dash.
fn steps_in(text: &str, dir: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(value) = line.trim_start().strip_prefix("working-directory:") else {
            continue;
        };
        let value = value.trim().trim_matches(['"', '\'']);
        let value = value
            .strip_prefix("./")
            .unwrap_or(value)
            .trim_end_matches('/');
        if value != dir {
            continue;
        }
        let at = indent(line);
        // The list item (`- name: …`) the key belongs to: the nearest line above, less
        // indented, that starts one.
        let Some(start) = (0..i)
            .rev()
            .find(|&j| indent(lines[j]) < at && lines[j].trim_start().starts_with("- "))
        else {
            continue;
        };
        let dash = indent(lines[start]);
        let end = (i + 1..lines.len())
            .find(|&j| !lines[j].trim().is_empty() && indent(lines[j]) <= dash)
            .unwrap_or(lines.len());
        out.push(lines[start..end].join("\n"));
    }
    out
}

/// What each package `package_json` declares says of itself where it is installed in the
/// work tree at `repo` (in `node_modules` of the module's directory `dir`, else of the
/// root): its `bin` commands, what a script runs it by, and its required peers. Nothing for
/// a bare repository or a package not installed.
pub(super) fn installed(
    repo: &std::path::Path,
    dir: &str,
    v: &serde_json::Value,
) -> (Installed, Installed) {
    let (mut out, mut peers) = (Installed::new(), Installed::new());
    let declared = installable(v);
    // An npm alias (`"@typescript/native": "npm:typescript@^7"`) installs the package it
    // names under another: that package's commands (`tsc`).
    for (alias, spec) in declared.clone().flat_map(|o| o.iter()) {
        if let Some(target) = spec.as_str().and_then(|s| s.strip_prefix("npm:")) {
            // `typescript@^7`, `@scope/name@1`: the name ends at the `@` after its first
            // character.
            let package = match target.get(1..).and_then(|r| r.find('@')) {
                Some(at) => &target[..at + 1],
                None => target,
            };
            out.insert(alias.clone(), command_names(package));
        }
    }
    let names = declared.flat_map(|o| o.keys().cloned()).collect::<Vec<_>>();
    for name in names {
        let found = [repo.join(dir), repo.to_path_buf()]
            .into_iter()
            .find_map(|base| {
                let text = std::fs::read_to_string(
                    base.join("node_modules").join(&name).join("package.json"),
                )
                .ok()?;
                serde_json::from_str::<serde_json::Value>(&text).ok()
            });
        let Some(found) = found else {
            continue;
        };
        let required = crate::drift::lockfile::required_peers(&found);
        if !required.is_empty() {
            peers.insert(name.clone(), required);
        }
        if let Some(bins) = bins_of(&name, &found) {
            out.insert(name, bins);
        }
    }
    (out, peers)
}

/// The sections of a package.json whose packages an install puts in `node_modules`.
fn installable(
    v: &serde_json::Value,
) -> impl Iterator<Item = &serde_json::Map<String, serde_json::Value>> + Clone {
    ["dependencies", "devDependencies", "optionalDependencies"]
        .into_iter()
        .filter_map(|k| v.get(k)?.as_object())
}

/// The commands npm's lockfile (`package-lock.json`, version 2 or 3: `packages`) records for
/// the packages the package.json `v` declares, by its entries `node_modules/<name>`.
fn locked_bins(lock: &str, v: &serde_json::Value) -> Installed {
    let mut out = Installed::new();
    if !lock.contains("\"bin\"") {
        return out;
    }
    let Some(packages) = serde_json::from_str::<serde_json::Value>(lock)
        .ok()
        .and_then(|l| l.get("packages").cloned())
    else {
        return out;
    };
    for name in installable(v).flat_map(|o| o.keys()) {
        if let Some(bins) =
            (packages.get(format!("node_modules/{name}"))).and_then(|entry| bins_of(name, entry))
        {
            out.insert(name.clone(), bins);
        }
    }
    out
}

/// The commands a package's manifest (`package`, named `name`) says in its `bin`: a string
/// is the command of the package's name less its scope, an object names each.
fn bins_of(name: &str, package: &serde_json::Value) -> Option<Vec<String>> {
    match package.get("bin")? {
        serde_json::Value::String(_) => {
            Some(vec![name.rsplit('/').next().unwrap_or(name).to_string()])
        }
        serde_json::Value::Object(o) => Some(o.keys().cloned().collect()),
        _ => None,
    }
}

/// Gives each JS module the commands the mesh's own packages say in their `bin`, for those
/// not installed: a workspace package declared for its command (radix's `@repo/builder`,
/// whose `radix-build` every package's build script runs) is used by the script, as an
/// installed one is.
pub(in crate::drift) fn workspace_bins(manifests: &mut [Manifests]) {
    let mut bins = std::collections::HashMap::new();
    for man in manifests.iter() {
        let Some(v) = &man.package_json_value else {
            continue;
        };
        if let Some(name) = v.get("name").and_then(|n| n.as_str())
            && let Some(b) = bins_of(name, v)
        {
            bins.insert(name.to_string(), b);
        }
    }
    for man in manifests.iter_mut().filter(|m| m.package_json.is_some()) {
        for (name, b) in &bins {
            man.tools
                .installed_bins
                .entry(name.clone())
                .or_insert_with(|| b.clone());
        }
    }
}

/// Per installed package, names it says (its commands, its required peers).
type Installed = std::collections::HashMap<String, Vec<String>>;

/// Adds a package.json's `scripts` to `e`'s commands and the strings of its tool keys
/// (`jest`, `babel`, `eslintConfig`, `prettier`) to its config strings; nothing when it does
/// not parse.
fn package_json_tools(v: &serde_json::Value, e: &mut ToolEvidence) {
    if let Some(scripts) = v.get("scripts").and_then(|s| s.as_object()) {
        // A package with no entry (no `main`, `exports`, `bin`…) gives an installer nothing
        // to import: each of its scripts builds what it is (sqlfluff's docs site,
        // `"docs:build": "… && vitepress build"`).
        let entry = ["main", "module", "exports", "bin", "types", "browser"];
        let site = !entry.iter().any(|k| v.get(k).is_some());
        for (k, c) in scripts.iter().filter_map(|(k, c)| Some((k, c.as_str()?))) {
            e.commands.push_str(c);
            e.commands.push('\n');
            if site || crate::drift::js::is_build_script(k) {
                e.build_commands.push_str(c);
                e.build_commands.push('\n');
            }
        }
    }
    for key in ["jest", "babel", "eslintConfig", "prettier"] {
        if let Some(k) = v.get(key) {
            let strings = quoted_strings(&k.to_string());
            if key == "eslintConfig" {
                e.config_strings
                    .extend(configs::eslint_rule_plugins(&strings));
            }
            e.config_strings.extend(strings);
            e.babel_config |= key == "babel";
        }
    }
    if let Some(jest) = v.get("jest") {
        e.test_setup.extend(setup_strings(&jest.to_string()));
    }
    // Git hook tools read their config from a key of package.json, whose strings are the
    // commands each hook runs (husky 4's `"husky": {"hooks": {"pre-commit": "pretty-quick
    // --staged"}}`, lint-staged's globs): the tool is configured, and what it runs is used.
    for key in GIT_HOOK_KEYS {
        if let Some(k) = v.get(key) {
            e.config_hosts
                .push((key.to_string(), "package.json".to_string()));
            for c in quoted_strings(&k.to_string()) {
                e.commands.push_str(&c);
                e.commands.push('\n');
            }
        }
    }
}

/// The package.json keys git hook tools read their config from, each the tool's package name.
const GIT_HOOK_KEYS: &[&str] = &["husky", "lint-staged", "nano-staged", "simple-git-hooks"];

/// Gives each JS workspace root (a package.json with `workspaces`, or a
/// `pnpm-workspace.yaml` beside it) the commands, config strings and configs' tools of the
/// JS modules below it: its dev tools are installed for them all, and a member runs `tsc`,
/// names a jest preset or keeps an `eslint.config.js` its root declares (prometheus'
/// `web/ui`).
pub(in crate::drift) fn workspace_tools(snapshot: &Snapshot, manifests: &mut [Manifests]) {
    for r in 0..manifests.len() {
        if !manifests[r].js_workspace_root {
            continue;
        }
        let root = &snapshot.modules[r];
        let mut commands = String::new();
        let mut strings = Vec::new();
        let mut hosts = Vec::new();
        for (j, m) in snapshot.modules.iter().enumerate() {
            let member = j != r
                && m.repo == root.repo
                && crate::source::is_below(&m.dir, &root.dir)
                && manifests[j].package_json.is_some();
            if member {
                commands.push_str(&manifests[j].tools.commands);
                strings.extend(manifests[j].tools.config_strings.iter().cloned());
                let dir = &m.dir;
                hosts.extend(
                    (manifests[j].tools.config_hosts.iter())
                        .map(|(p, f)| (p.clone(), crate::source::join(dir, f))),
                );
            }
        }
        manifests[r].tools.config_hosts.extend(hosts);
        manifests[r].tools.commands.push_str(&commands);
        manifests[r].tools.config_strings.extend(strings);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_runs_its_steps_run_text_not_its_descriptions() {
        let action = "name: perf\ndescription: Check with eslint\ninputs:\n  fmt:\n    description: Also check formatting with prettier\nruns:\n  using: composite\n  steps:\n    - run: bunx tsgo --noEmit\n      shell: bash\n    - name: size\n      run: |\n        bun run build\n        npx size-limit\n      shell: bash\n    - run: \"echo done\"\n";
        assert_eq!(
            run_text(action),
            "bunx tsgo --noEmit\nbun run build\nnpx size-limit\necho done\n"
        );
    }

    #[test]
    fn a_compose_file_s_commands_and_entrypoints() {
        // The services of the image it builds; not one running another's image.
        let text = "services:\n  app:\n    build:\n      context: ..\n    image: local/app\n    command: gunicorn app:wsgi\n  worker:\n    image: local/app\n    command: watchmedo auto-restart -- celery\n  beat:\n    image: \"local/app\"\n    entrypoint: [\"granian\", \"--reload\"]\n  web:\n    image: local/app\n    command:\n    - uvicorn\n    - app:asgi\n  legacy:\n    image: example/legacy:1\n    command: [\"flower\"]\n";
        assert_eq!(
            compose_commands(text),
            [
                "gunicorn app:wsgi",
                "watchmedo auto-restart -- celery",
                "granian --reload",
                "uvicorn app:asgi"
            ]
        );
        assert!(compose_commands("command: x\n").is_empty());
    }

    #[test]
    fn a_makefile_runs_the_makefiles_it_makes_in() {
        let mk = "docs:\n\tcd sdk/python/docs && $(MAKE) html\nsub:\n\t$(MAKE) -C ./tools/gen/ all; make -C web\nno:\n\tcd .. && make\n\tcd $(DIR) && make\n\tcd /abs && make\n\trm -C x\n";
        assert_eq!(sub_makes(mk), ["sdk/python/docs", "tools/gen", "web"]);
    }

    /// A step is its whole list item, `run: |` block and all; only the steps run in the
    /// directory, written with or without `./`, quotes or a trailing `/`.
    #[test]
    fn a_workflow_step_runs_in_its_working_directory() {
        let wf = "jobs:\n  test:\n    steps:\n      - uses: actions/checkout@v4\n      - name: serve\n        working-directory: ./ui/service/\n        run: |\n          pnpm build\n          pnpm wait-on tcp:8000\n      - name: other\n        working-directory: ui/other\n        run: pnpm eslint .\n      - run: pnpm vitest\n        working-directory: \"ui/service\"\n";
        let steps = steps_in(wf, "ui/service");
        assert_eq!(steps.len(), 2, "{steps:?}");
        assert!(steps[0].contains("pnpm wait-on tcp:8000"), "{steps:?}");
        assert!(!steps[0].contains("eslint"), "{steps:?}");
        assert!(steps[1].contains("pnpm vitest"), "{steps:?}");
        assert!(steps_in(wf, "ui").is_empty());
    }

    #[test]
    fn npm_s_lockfile_says_the_commands_of_declared_packages() {
        let v: serde_json::Value = serde_json::from_str(
            r#"{"devDependencies": {"@custom-elements-manifest/analyzer": "1", "bundlesize2": "1", "left-pad": "1"}}"#,
        )
        .expect("json");
        let lock = r#"{"lockfileVersion": 3, "packages": {"": {}, "node_modules/@custom-elements-manifest/analyzer": {"bin": {"cem": "cem.js", "custom-elements-manifest": "cem.js"}}, "node_modules/bundlesize2": {"bin": "index.js"}, "node_modules/left-pad": {}, "node_modules/undeclared": {"bin": {"u": "u.js"}}}}"#;
        let bins = locked_bins(lock, &v);
        assert_eq!(
            bins.get("@custom-elements-manifest/analyzer")
                .map(Vec::as_slice),
            Some(&["cem".to_string(), "custom-elements-manifest".to_string()][..])
        );
        assert_eq!(
            bins.get("bundlesize2").map(Vec::as_slice),
            Some(&["bundlesize2".to_string()][..])
        );
        assert_eq!(bins.len(), 2);
    }
}
