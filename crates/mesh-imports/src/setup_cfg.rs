//! `setup.cfg`, setuptools' declarative configuration, read as the `pyproject.toml` it stands
//! for: `[metadata] name`, `[options] packages` (a list or `find:`), `package_dir`,
//! `py_modules`, `install_requires`, `[options.packages.find] where`,
//! `[options.extras_require]` and `tests_require`. One reader of packages and dependencies
//! then serves both files.

/// One `key = value` of an INI section, with the 1-based line of each of its value's lines.
struct Entry {
    section: String,
    key: String,
    /// (line, text) of the value's first line (after the `=`) and its continuation lines.
    lines: Vec<(u32, String)>,
}

/// The entries of an INI file: `[section]`, `key = value` or `key: value`, indented
/// continuation lines; `#` and `;` comment lines.
fn entries(text: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut section = String::new();
    for (n, raw) in text.lines().enumerate() {
        let line = n as u32 + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        if raw.starts_with([' ', '\t']) {
            if let Some(e) = out.last_mut() {
                e.lines.push((line, t.to_string()));
            }
            continue;
        }
        if let Some(s) = t.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = s.trim().to_string();
            continue;
        }
        let Some(cut) = t.find(['=', ':']) else {
            continue;
        };
        let value = t[cut + 1..].trim();
        out.push(Entry {
            section: section.clone(),
            key: t[..cut].trim().replace('-', "_"),
            lines: if value.is_empty() {
                Vec::new()
            } else {
                vec![(line, value.to_string())]
            },
        });
    }
    out
}

/// The words of `key`'s value in `[section]` of an INI file (`pytest.ini`, `tox.ini`,
/// `setup.cfg`), across its continuation lines: pytest's `pythonpath = src tests/helpers`.
/// Empty when the file does not say it.
pub fn ini_words(text: &str, section: &str, key: &str) -> Vec<String> {
    entries(text)
        .iter()
        .filter(|e| e.section == section && e.key == key)
        .flat_map(|e| e.lines.iter())
        .flat_map(|(_, v)| {
            v.split(" #")
                .next()
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Each line of `key`'s value, with its 1-based line, in every section `section` accepts:
/// tox's `deps` of `[testenv]` and each `[testenv:name]`.
pub fn ini_values(text: &str, key: &str, section: impl Fn(&str) -> bool) -> Vec<(u32, String)> {
    entries(text)
        .into_iter()
        .filter(|e| e.key == key && section(&e.section))
        .flat_map(|e| e.lines)
        .collect()
}

/// The items of a multi-line (or comma-separated) value, each with its line.
fn items(e: &Entry) -> Vec<(u32, String)> {
    e.lines
        .iter()
        .flat_map(|(l, v)| {
            v.split(',')
                .map(|s| s.split(" #").next().unwrap_or("").trim().to_string())
                .filter(|s| !s.is_empty())
                .map(move |s| (*l, s))
        })
        .collect()
}

/// A requirement list's items: one per line (a comma belongs to a version specifier).
fn requirements(e: &Entry) -> Vec<(u32, String)> {
    e.lines
        .iter()
        .map(|(l, v)| (*l, v.split(" #").next().unwrap_or("").trim().to_string()))
        .filter(|(_, v)| !v.is_empty())
        .collect()
}

/// What a `setup.cfg` declares, as a `pyproject.toml` table would (`[project]` name and
/// dependencies, `[tool.setuptools]` packages), and the line of each requirement.
pub struct SetupCfg {
    /// The equivalent `pyproject.toml` table.
    pub table: toml::Table,
    /// Whether a `setup.py`'s `extras_require` computes an extra (reads a file, calls a
    /// function): the rest of the call is read, that extra is not.
    pub computed_extras: bool,
    /// (requirement as written, what it is for, 1-based line): `install_requires` is
    /// `"normal"`, `extras_require` `"extra"`, `tests_require` `"dev"`.
    pub requirements: Vec<(String, &'static str, u32)>,
}

/// Reads a `setup.cfg`.
pub fn read(text: &str) -> SetupCfg {
    let mut project = toml::Table::new();
    let mut setuptools = toml::Table::new();
    let mut find = toml::Table::new();
    let mut reqs = Vec::new();
    let strings = |v: Vec<(u32, String)>| -> toml::Value {
        toml::Value::Array(v.into_iter().map(|(_, s)| toml::Value::String(s)).collect())
    };
    let mut find_packages = false;
    for e in entries(text) {
        match (e.section.as_str(), e.key.as_str()) {
            ("metadata", "name") => {
                if let Some((_, v)) = e.lines.first() {
                    project.insert("name".into(), toml::Value::String(v.clone()));
                }
            }
            ("options", "packages") => {
                let list = items(&e);
                if list.iter().any(|(_, s)| s.starts_with("find")) {
                    find_packages = true;
                } else {
                    setuptools.insert("packages".into(), strings(list));
                }
            }
            ("options", "py_modules") => {
                setuptools.insert("py-modules".into(), strings(items(&e)));
            }
            ("options", "package_dir") => {
                // `=src`, or `\n    = src`: the root package directory.
                let root = e
                    .lines
                    .iter()
                    .find_map(|(_, v)| v.strip_prefix('=').map(|r| r.trim().to_string()));
                if let Some(root) = root {
                    let mut dirs = toml::Table::new();
                    dirs.insert(String::new(), toml::Value::String(root));
                    setuptools.insert("package-dir".into(), toml::Value::Table(dirs));
                }
            }
            ("options.packages.find", key @ ("where" | "include" | "exclude")) => {
                find.insert(key.into(), strings(items(&e)));
            }
            ("options", "install_requires") => {
                reqs.extend(requirements(&e).into_iter().map(|(l, r)| (r, "normal", l)));
            }
            ("options", "tests_require") => {
                reqs.extend(requirements(&e).into_iter().map(|(l, r)| (r, "dev", l)));
            }
            ("options.extras_require", _) => {
                reqs.extend(requirements(&e).into_iter().map(|(l, r)| (r, "extra", l)));
            }
            _ => {}
        }
    }
    if find_packages {
        let mut packages = toml::Table::new();
        packages.insert("find".into(), toml::Value::Table(find));
        setuptools.insert("packages".into(), toml::Value::Table(packages));
    }
    SetupCfg::new(project, setuptools, reqs)
}

impl SetupCfg {
    /// What a setuptools configuration says, as pyproject.toml would: `project` (its name)
    /// with `[project] dependencies` from what `requirements` installs to run, and
    /// `[tool.setuptools]` (`setuptools`, its packages), each left out when empty.
    pub fn new(
        mut project: toml::Table,
        setuptools: toml::Table,
        requirements: Vec<(String, &'static str, u32)>,
    ) -> SetupCfg {
        let deps: Vec<toml::Value> = (requirements.iter())
            .filter(|(_, what, _)| *what == "normal")
            .map(|(r, _, _)| toml::Value::String(r.clone()))
            .collect();
        if !deps.is_empty() {
            project.insert("dependencies".into(), toml::Value::Array(deps));
        }
        let mut table = toml::Table::new();
        if !project.is_empty() {
            table.insert("project".into(), toml::Value::Table(project));
        }
        if !setuptools.is_empty() {
            let mut tool = toml::Table::new();
            tool.insert("setuptools".into(), toml::Value::Table(setuptools));
            table.insert("tool".into(), toml::Value::Table(tool));
        }
        SetupCfg {
            table,
            computed_extras: false,
            requirements,
        }
    }
}

/// A `pyproject.toml` table with what a `setup.cfg` says filled in where it says nothing
/// itself (`[project] name` and dependencies, `[tool.setuptools]`), as setuptools reads them.
pub fn merged(pyproject: Option<toml::Table>, cfg: &SetupCfg) -> toml::Table {
    let mut t = pyproject.unwrap_or_default();
    for (outer, inner) in [("project", None), ("tool", Some("setuptools"))] {
        let Some(from) = cfg.table.get(outer).and_then(|v| v.as_table()) else {
            continue;
        };
        let into = t
            .entry(outer)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let Some(into) = into.as_table_mut() else {
            continue;
        };
        match inner {
            None => {
                for (k, v) in from {
                    into.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            Some(key) => {
                if let Some(v) = from.get(key) {
                    into.entry(key).or_insert_with(|| v.clone());
                }
            }
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of a real setup.cfg (the pre-PEP 621 layout many monorepos keep).
    const REAL: &str = "[metadata]\nname = acme-billing\nversion = attr: acme.billing.__version__\n\n[options]\npackage_dir =\n    = src\npackages = find:\ninstall_requires =\n    requests>=2.28,<3\n    PyYAML  # config files\n    acme-core\ntests_require = pytest\n\n[options.packages.find]\nwhere = src\nexclude =\n    tests*\n\n[options.extras_require]\nfast =\n    orjson\n";

    #[test]
    fn a_real_setup_cfg_reads_as_its_pyproject() {
        let cfg = read(REAL);
        let want: toml::Table = toml::from_str(
            "[project]\nname = \"acme-billing\"\ndependencies = [\"requests>=2.28,<3\", \"PyYAML\", \"acme-core\"]\n[tool.setuptools]\npackage-dir = { \"\" = \"src\" }\npackages = { find = { where = [\"src\"], exclude = [\"tests*\"] } }\n",
        )
        .expect("toml");
        assert_eq!(cfg.table, want);
        assert_eq!(
            cfg.requirements,
            [
                ("requests>=2.28,<3".to_string(), "normal", 10),
                ("PyYAML".to_string(), "normal", 11),
                ("acme-core".to_string(), "normal", 12),
                ("pytest".to_string(), "dev", 13),
                ("orjson".to_string(), "extra", 22),
            ]
        );
    }

    #[test]
    fn explicit_packages_and_merging_under_a_pyproject() {
        let cfg = read(
            "[metadata]\nname = tool\n[options]\npackages = tool, tool.sub\npy_modules = single\n",
        );
        let pyproject: toml::Table = toml::from_str(
            "[project]\nname = \"kept\"\n[build-system]\nrequires = [\"setuptools\"]\n",
        )
        .expect("toml");
        let t = merged(Some(pyproject), &cfg);
        assert_eq!(t["project"]["name"].as_str(), Some("kept"));
        let packages: Vec<&str> = t["tool"]["setuptools"]["packages"]
            .as_array()
            .expect("packages")
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(packages, ["tool", "tool.sub"]);
        assert!(t.contains_key("build-system"));
    }
}
