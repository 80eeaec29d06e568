//! The tools a Python project uses by name: a pytest plugin beside pytest, a tool a
//! pyproject's `[tool.X]` configures, fsspec's filesystems beside what opens paths through
//! it, Jupyter where there are notebooks, protoc's compilers where their output is, MkDocs'
//! plugins its config names, and what a command runs.

use super::ToolEvidence;
use crate::drift::declared::{Declared, Scope};
use crate::drift::names;
use mesh_imports::Language;

impl ToolEvidence {
    /// A Python dependency a tool uses: a pytest plugin declared beside pytest (in the same
    /// section, or pytest among the dev ones: a test project declares its plugins where it
    /// declares pytest), one pyproject's `[tool]` configures (dev sections only: a runtime
    /// library may share a tool's name), or one a command runs (any section: `gunicorn` in a
    /// Procfile is a runtime dependency no code imports).
    pub(super) fn python_why(&self, d: &Declared, all: &[Declared]) -> Option<String> {
        let norm = names::pep503(&d.name);
        // A tool declared in the plugin's section, or among the dev ones (a dev group, or an
        // extra of [`DEV_EXTRAS`]): a test project declares its plugins where it declares the
        // tool, and a project may keep pytest in its `test` extra and a plugin in a group.
        let beside = |tool: &str| {
            all.iter().any(|p| {
                p.language == Language::Python
                    && names::pep503(&p.name) == tool
                    && (p.scope == d.scope
                        || p.scope == Scope::Dev
                        || (p.scope == Scope::Optional
                            && self.python_dev_extras.iter().any(|e| e == tool)))
            })
        };
        // pytest loads every installed plugin through its `pytest11` entry point, tox through
        // its `tox` one (`tox-uv`).
        if (norm.starts_with("pytest-") || UNPREFIXED_PYTEST_PLUGINS.contains(&norm.as_str()))
            && beside("pytest")
        {
            return Some("a pytest plugin beside pytest: pytest loads it".into());
        }
        if norm.starts_with("tox-") && beside("tox") {
            return Some("a tox plugin beside tox: tox loads it".into());
        }
        // pre-commit's plugins patch it as it starts (`pre-commit-uv`, through a `.pth`
        // file): beside a pre-commit that runs (its config at the root).
        if norm.starts_with("pre-commit-")
            && beside("pre-commit")
            && (self.python_configs.iter()).any(|(tool, _)| tool == "pre-commit")
        {
            return Some("a pre-commit plugin beside pre-commit: pre-commit loads it".into());
        }
        // flake8 registers every installed plugin's checks through its `flake8.extension`
        // entry point (quivr's `flake8-black`): where flake8 itself runs — a config of its
        // own, `[tool.flake8]`, a command.
        let flake8_runs = || {
            (self.python_configs.iter()).any(|(tool, _)| tool == "flake8")
                || self.python_tools.iter().any(|t| t == "flake8")
                || self.runs_command("flake8")
        };
        if norm.starts_with("flake8-") && beside("flake8") && flake8_runs() {
            return Some("a flake8 plugin beside flake8: flake8 loads it".into());
        }
        if let Some(host) = fsspec_host(d, all) {
            return Some(format!(
                "an fsspec filesystem beside {host}: fsspec loads it by its URL's protocol"
            ));
        }
        let dev = d.scope == Scope::Dev
            || (d.scope == Scope::Optional && self.python_dev_extras.contains(&norm));
        if dev && self.python_tools.contains(&norm) {
            let section = (TOOL_SECTIONS.iter())
                .find(|(_, tool)| *tool == norm)
                .map_or(norm.as_str(), |(section, _)| section);
            return Some(format!("pyproject.toml configures it: [tool.{section}]"));
        }
        if dev && let Some((_, file)) = (self.python_configs.iter()).find(|(tool, _)| *tool == norm)
        {
            return Some(format!("{file} configures it"));
        }
        if let Some(notebook) = &self.notebook
            && dev
            && JUPYTER.contains(&norm.as_str())
        {
            return Some(format!(
                "the module has notebooks ({notebook}): Jupyter runs them in its kernel, with no import"
            ));
        }
        // Not a shipped declaration: what it made is in the repository, so its users need
        // none of it.
        let output = match norm.as_str() {
            "grpcio-tools" => self.protoc_output.as_ref(),
            "mypy-protobuf" => self.protoc_stubs.as_ref(),
            _ => None,
        };
        if let Some(file) = output
            && d.scope != Scope::Normal
        {
            return Some(format!(
                "the module holds protoc's output ({file}): `python -m grpc_tools.protoc` wrote it with {}",
                d.name
            ));
        }
        if let Some(config) = &self.mkdocs
            && let Some(name) = config.names(&norm)
        {
            return Some(format!(
                "{} names it: `{name}` (MkDocs loads it)",
                config.file
            ));
        }
        self.run_by(&d.name)
            .or_else(|| self.runs_wrapped(&norm))
            .map(|line| format!("a command runs it: `{line}`"))
    }

    /// Whether what uses the declared dependency `d` (beside `all`) loads it where the
    /// module runs, not only where it is developed: then it is no dev-only dependency
    /// whatever imports it in tests (fsspec's filesystems).
    pub fn loads_at_run_time(&self, d: &Declared, all: &[Declared]) -> bool {
        fsspec_host(d, all).is_some()
    }
}

/// What runs a Python project's tools by their command, each as the words before it: the
/// command is the first word after them and their options (`uv run --no-sync dprint`).
const PYTHON_RUNNERS: &[&[&str]] = &[
    &["uv", "run"],
    &["uvx"],
    &["poetry", "run"],
    &["pdm", "run"],
    &["hatch", "run"],
    &["rye", "run"],
    &["pipx", "run"],
    &["entry:"],
];

impl ToolEvidence {
    /// The first command line that runs the tool a Python wrapper distribution (`norm`,
    /// PEP 503) wraps under the tool's own command — its name without a `-py`/`-python`
    /// suffix or a `python-`/`py-` prefix (`dprint-py` runs `dprint`,
    /// `python-semantic-release` `semantic-release`) — in a Python runner's command position
    /// ([`PYTHON_RUNNERS`]: `uv run --no-sync dprint check`, a pre-commit hook's `entry:`),
    /// never as any word of a line (`apt-get install ffmpeg` runs no `ffmpeg-python`).
    fn runs_wrapped(&self, norm: &str) -> Option<&str> {
        let tool = [
            norm.strip_suffix("-py"),
            norm.strip_suffix("-python"),
            norm.strip_prefix("python-"),
            norm.strip_prefix("py-"),
        ]
        .into_iter()
        .flatten()
        .find(|t| !t.is_empty())?;
        self.command_lines().find(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            PYTHON_RUNNERS.iter().any(|runner| {
                (0..words.len()).any(|i| {
                    words[i..].starts_with(runner)
                        && words[i + runner.len()..]
                            .iter()
                            .find(|w| !w.starts_with('-'))
                            .is_some_and(|w| *w == tool)
                })
            })
        })
    }
}

/// The distributions that run notebooks: the kernel, and the front ends a person opens them
/// in.
const JUPYTER: &[&str] = &[
    "ipykernel",
    "jupyter",
    "jupyterlab",
    "notebook",
    "nbclassic",
    "voila",
];

/// Python development tools by the config files of their own they read (file name, tool):
/// a developer runs each where its config is (pre-commit's hooks, mypy), as a `[tool.X]`
/// section says.
const PYTHON_CONFIG_FILES: &[(&str, &str)] = &[
    (".bandit", "bandit"),
    (".codespellrc", "codespell"),
    (".coveragerc", "coverage"),
    (".flake8", "flake8"),
    (".isort.cfg", "isort"),
    (".mypy.ini", "mypy"),
    (".pre-commit-config.yaml", "pre-commit"),
    (".pre-commit-config.yml", "pre-commit"),
    (".pylintrc", "pylint"),
    (".ruff.toml", "ruff"),
    (".sqlfluff", "sqlfluff"),
    (".yamllint", "yamllint"),
    (".yamllint.yaml", "yamllint"),
    (".yamllint.yml", "yamllint"),
    ("REUSE.toml", "reuse"),
    ("Taskfile.yaml", "go-task-bin"),
    ("Taskfile.yml", "go-task-bin"),
    ("mypy.ini", "mypy"),
    ("pylintrc", "pylint"),
    ("pyrightconfig.json", "pyright"),
    ("pytest.ini", "pytest"),
    ("ruff.toml", "ruff"),
    ("tox.ini", "tox"),
];

/// The Python tool whose config the file named `file` is, by its name.
pub(super) fn config_file_tool(file: &str) -> Option<&'static str> {
    (PYTHON_CONFIG_FILES.iter())
        .find(|(name, _)| *name == file)
        .map(|(_, tool)| *tool)
}

/// The tools the sections of an INI file shared by tools (`setup.cfg`, `tox.ini`) configure,
/// PEP 503: `[coverage:run]` is coverage's, `[tool:pytest]` pytest's, `[mypy-pkg.*]` mypy's,
/// `[flake8]` flake8's. Setuptools' own sections name no tool a project declares.
pub(super) fn ini_section_tools(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix('[')?.split_once(']'))
        .map(|(section, _)| section.trim())
        .map(|section| match section.split_once(':') {
            Some(("tool", tool)) => tool,
            Some((tool, _)) => tool,
            // mypy's and pylint's per-module sections (`[mypy-pkg.*]`); another name is the
            // tool's whole (`[check-manifest]`).
            None => ["mypy-", "pylint."]
                .iter()
                .find(|p| section.starts_with(*p))
                .map_or(section, |p| &p[..p.len() - 1]),
        })
        .filter(|tool| {
            !tool.is_empty()
                && !matches!(
                    *tool,
                    "metadata" | "options" | "bdist_wheel" | "sdist" | "egg_info" | "aliases"
                )
        })
        .map(names::pep503)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The names of the extras a Python project keeps its development tools in, PEP 503: what
/// `pip install -e .[dev]` installs for working on it, never for its users.
pub(crate) const DEV_EXTRAS: &[&str] = &[
    "dev",
    "develop",
    "development",
    "docs",
    "jupyter",
    "lint",
    "linting",
    "notebook",
    "notebooks",
    "test",
    "testing",
    "tests",
    "typing",
];

/// What loads `d` when it is one of fsspec's filesystems declared beside a library that
/// opens paths through fsspec (`s3://` → `s3fs`), in the same section or for shipping.
fn fsspec_host(d: &Declared, all: &[Declared]) -> Option<&'static str> {
    if d.language != Language::Python
        || !FSSPEC_FILESYSTEMS.contains(&names::pep503(&d.name).as_str())
    {
        return None;
    }
    FSSPEC_HOSTS.iter().copied().find(|host| {
        // Declared where it ships at least as far: a runtime host for a runtime filesystem.
        all.iter().any(|p| {
            p.language == Language::Python
                && names::pep503(&p.name) == *host
                && (p.scope == d.scope || p.scope == Scope::Normal)
        })
    })
}

/// fsspec's filesystems for a URL protocol, by distribution (its `known_implementations`):
/// no code imports them, fsspec does when a path names their protocol.
const FSSPEC_FILESYSTEMS: &[&str] = &[
    "adlfs",
    "boxfs",
    "dropboxdrivefs",
    "gcsfs",
    "gdrivefs",
    "ocifs",
    "ossfs",
    "s3fs",
    "sshfs",
    "webdav4",
];

/// What opens paths through fsspec, so loads its filesystems: fsspec, and the data
/// libraries that hand it their URLs.
const FSSPEC_HOSTS: &[&str] = &["fsspec", "pandas", "dask", "xarray"];

/// Python distributions whose main use is the pytest plugin they register without a
/// `pytest-` name: their fixtures (`snapshot`, `time_machine`) and options
/// (`--snapshot-update`, `--typeguard-packages`) come with no import.
const UNPREFIXED_PYTEST_PLUGINS: &[&str] = &[
    // Its `@flaky` marker and `--force-flaky` option (tox's suite).
    "flaky",
    "inline-snapshot",
    "nbval",
    "syrupy",
    "time-machine",
    "typeguard",
    "xdoctest",
];

/// pyproject.toml sections named otherwise than the tool reading them (its distribution):
/// `[tool.poe]` is poethepoet's tasks, `[tool.bumpversion]` bump-my-version's,
/// `[tool.semantic_release]` python-semantic-release's.
const TOOL_SECTIONS: &[(&str, &str)] = &[
    ("poe", "poethepoet"),
    ("bumpversion", "bump-my-version"),
    ("semantic-release", "python-semantic-release"),
];

/// The distribution (PEP 503) that reads pyproject.toml's `[tool.KEY]`.
pub(super) fn section_tool(key: &str) -> String {
    let norm = names::pep503(key);
    (TOOL_SECTIONS.iter())
        .find(|(section, _)| *section == norm)
        .map_or(norm, |(_, tool)| tool.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::tests::dev;
    use super::*;

    #[test]
    fn an_ini_file_s_sections_name_the_tools_they_configure() {
        let cfg = "[metadata]\nname = x\n\n[coverage:run]\nsource = x\n[tool:pytest]\naddopts = -q\n[mypy-foo.*]\nignore_missing_imports = True\n[flake8]\nmax-line-length = 99\n[bdist_wheel]\nuniversal = 1\n[check-manifest]\nignore = x\n";
        assert_eq!(
            ini_section_tools(cfg),
            ["check-manifest", "coverage", "flake8", "mypy", "pytest"]
        );
        assert_eq!(
            config_file_tool(".pre-commit-config.yaml"),
            Some("pre-commit")
        );
        assert_eq!(config_file_tool("config.yaml"), None);
    }

    #[test]
    fn an_fsspec_filesystem_is_loaded_by_a_host_declared_as_far() {
        let at = |name: &str, scope: Scope| Declared {
            scope,
            ..dev(Language::Python, name)
        };
        let s3 = at("s3fs", Scope::Normal);
        assert_eq!(
            fsspec_host(&s3, &[at("fsspec", Scope::Normal)]),
            Some("fsspec")
        );
        // A dev-only pandas loads nothing where the package runs.
        assert_eq!(fsspec_host(&s3, &[at("pandas", Scope::Dev)]), None);
        // An extra's filesystem beside a runtime fsspec.
        let extra = at("gcsfs", Scope::Optional);
        assert_eq!(
            fsspec_host(&extra, &[at("fsspec", Scope::Normal)]),
            Some("fsspec")
        );
        assert_eq!(
            fsspec_host(&at("boto3", Scope::Normal), &[at("fsspec", Scope::Normal)]),
            None
        );
    }

    #[test]
    fn python_tools_by_section_command_and_plugin() {
        // pydantic-ai's root: `[tool.mypy]`, `uv run ruff check` in its Makefile, diff-cover
        // in CI, pytest plugins beside pytest.
        let e = ToolEvidence {
            commands: "lint:\n\tuv run ruff check\n\n      - run: uv run diff-cover coverage.xml\n"
                .into(),
            python_tools: ["mypy", "pyright", "inline_snapshot", "poe"]
                .map(section_tool)
                .into(),
            ..ToolEvidence::default()
        };
        let all = [
            dev(Language::Python, "pytest"),
            dev(Language::Python, "pytest-xdist"),
        ];
        for used in [
            "mypy",
            "ruff",
            "diff-cover",
            "pytest-xdist",
            "inline_snapshot",
            "poethepoet",
        ] {
            assert!(e.uses(&dev(Language::Python, used), &all), "{used}");
        }
        assert!(!e.uses(&dev(Language::Python, "pytest-xdist"), &[]));
        assert!(!e.uses(&dev(Language::Python, "markdownify"), &all));
        // flake8's plugins beside a flake8 that runs; not without it, nor beside one that
        // never does.
        let flake8 = [dev(Language::Python, "flake8")];
        let linted = ToolEvidence {
            python_configs: vec![("flake8".into(), ".flake8".into())],
            ..ToolEvidence::default()
        };
        assert!(linted.uses(&dev(Language::Python, "flake8-black"), &flake8));
        assert!(!linted.uses(&dev(Language::Python, "flake8-black"), &[]));
        assert!(!e.uses(&dev(Language::Python, "flake8-black"), &flake8));
        // A plugin without pytest's prefix, beside pytest: its fixtures need no import.
        assert!(e.uses(&dev(Language::Python, "syrupy"), &all));
        assert!(!e.uses(&dev(Language::Python, "syrupy"), &[]));
        // pytest in the `test` extra, its plugin in a dev group: beside it. pytest in an
        // extra for users (`[project.optional-dependencies] testing-plugin`) is not.
        let mut in_extra = dev(Language::Python, "pytest");
        in_extra.scope = Scope::Optional;
        let with_dev_extra = ToolEvidence {
            python_dev_extras: vec!["pytest".into()],
            ..ToolEvidence::default()
        };
        let timeout = dev(Language::Python, "pytest-timeout");
        assert!(with_dev_extra.uses(&timeout, std::slice::from_ref(&in_extra)));
        assert!(!ToolEvidence::default().uses(&timeout, &[in_extra]));
        // A Next app's generated next-env.d.ts brings React DOM's types; a library for Next
        // apps (no config, no `next build`) has none.
        let app = ToolEvidence {
            tsconfig: true,
            commands: "\"build\": \"next build\"\n".into(),
            ..ToolEvidence::default()
        };
        assert!(app.uses(&dev(Language::Js, "@types/react-dom"), &[]));
        let library = ToolEvidence {
            tsconfig: true,
            commands: "\"build\": \"tsc\"\n".into(),
            ..ToolEvidence::default()
        };
        assert!(!library.uses(&dev(Language::Js, "@types/react-dom"), &[]));
        // A shell comment in a workflow runs nothing.
        let commented = ToolEvidence {
            commands: "- run: |\n    # hf-libero vs metaworld can never collide\n    uv sync\n"
                .into(),
            ..ToolEvidence::default()
        };
        assert!(!commented.uses(&dev(Language::Python, "hf-libero"), &[]));
        assert!(commented.uses(&dev(Language::Python, "uv"), &[]));
        // protoc's output in the module: its compiler made it; without, nothing says so.
        let generated = ToolEvidence {
            protoc_output: Some("src/transport/services_pb2.py".into()),
            ..ToolEvidence::default()
        };
        assert!(generated.uses(&dev(Language::Python, "grpcio-tools"), &[]));
        let mut shipped = dev(Language::Python, "grpcio-tools");
        shipped.scope = Scope::Normal;
        assert!(!generated.uses(&shipped, &[]));
        assert!(!e.uses(&dev(Language::Python, "grpcio-tools"), &[]));
        // mypy-protobuf writes the stubs, not the modules.
        assert!(!generated.uses(&dev(Language::Python, "mypy-protobuf"), &[]));
        // A Python wrapper runs the tool's command in a runner's command position only.
        let wrapped = ToolEvidence {
            commands: "lint:\n\tuv run --no-sync dprint check\n\tsudo apt-get install -y ffmpeg\n\tdocker compose up kafka\n      entry: semantic-release version\n\t# uv run kafka consume\n".into(),
            ..ToolEvidence::default()
        };
        for used in ["dprint-py", "python-semantic-release"] {
            assert!(wrapped.uses(&dev(Language::Python, used), &[]), "{used}");
        }
        for unused in ["ffmpeg-python", "kafka-python", "py-spy"] {
            assert!(
                !wrapped.uses(&dev(Language::Python, unused), &[]),
                "{unused}"
            );
        }
        // A shipped dependency is never a tool's only.
        let mut normal = dev(Language::Python, "mypy");
        normal.scope = Scope::Normal;
        assert!(!e.uses(&normal, &all));
    }
}
