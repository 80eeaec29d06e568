//! Rust's own rules for drift: the name a dependency is imported by (its `[lib] name`, which
//! may differ from its package name), where the build script is (`build = "…"`, and the files
//! it includes with `#[path]`), the runtime crates a derive or macro crate's output names,
//! and the crate's own module names a glob re-export brings into scope.

use super::compare::{Around, compare};
use super::ignores::{self, Ignored};
use super::rust_features::{feature_switches, native_switches};
use super::tools::ToolEvidence;
use super::{Decl, DriftKind, Finding, Use, World, declared};
use crate::source;
use crate::source::ModuleSource;
use mesh_imports::manifest::rust_ident;
use mesh_imports::{ExportedMacro, ScannedFile};
use mesh_imports::{ImportKind, Language};
use std::borrow::Cow;
use std::collections::HashMap;

/// A crate's Cargo.toml beside its imports, by Rust's rules (see this module).
pub(super) fn drift(
    world: &World,
    rec: &crate::store::ModuleRecord,
    m: &ModuleSource,
    cargo_toml: &str,
    uses: &[Use],
    doc_tests: bool,
    out: &mut Vec<Finding>,
) {
    // A dependency of the crate on itself (`gix-odb = { path = ".", features = […] }`) switches
    // features on for its own tests, which import it by its own name: never a finding.
    let table = toml::from_str::<toml::Table>(cargo_toml).unwrap_or_default();
    let own = table
        .get("package")
        .and_then(|p| p.get("name")?.as_str())
        .map(str::to_string);
    let decls: Vec<Decl> = declared::cargo(cargo_toml)
        .into_iter()
        .filter(|d| {
            let itself = own.as_deref() == Some(d.name.as_str());
            if let Some(p) = world.probe.filter(|p| itself && p.names(&d.name)) {
                p.say(format!(
                    "the crate's dependency on itself ({}/Cargo.toml:{}): it switches features on for its own tests and examples, which import it by its own name",
                    m.dir, d.line
                ));
            }
            !itself
        })
        .map(|d| {
            let ident = rust_ident(&d.name);
            let renamed = rec.manifests.rust_renames.iter().any(|(l, _)| *l == ident);
            Decl {
                keys: keys(&d.name, renamed, &world.rust_libs),
                d,
            }
        })
        .collect();
    let declared = |key: &str| decls.iter().any(|d| d.keys.iter().any(|k| k == key));
    let own_modules = own_module_names(&rec.files, &m.dir);
    // `extern crate ra_ap_rustc_abi as rustc_abi;` puts the alias in the extern prelude of
    // every file of the crate: a path through it is the declared crate's.
    let extern_aliases = extern_aliases(&rec.files);
    let renamed: Vec<Use> = uses
        .iter()
        .filter(|u| u.language == Language::Rust && !declared(&u.key))
        .filter_map(|u| {
            let (_, krate) = extern_aliases.iter().find(|(alias, _)| *alias == u.key)?;
            Some(Use {
                key: Cow::Owned(krate.clone()),
                ..u.clone()
            })
        })
        .collect();
    // A crate built with `#![feature(rustc_private)]` links the toolchain's own `rustc_*`
    // crates (`extern crate rustc_driver;`), which no manifest can declare: never owed.
    let rustc_private = rec.files.iter().any(|f| {
        f.imports
            .iter()
            .any(|i| i.text.contains("extern crate rustc_"))
    });
    let toolchain = |u: &Use| rustc_private && u.key.starts_with("rustc_") && !declared(&u.key);
    let mut rust_uses: Vec<&Use> = uses
        .iter()
        .filter(|u| u.language == Language::Rust && !toolchain(u))
        .filter(|u| !extern_aliases.iter().any(|(alias, _)| *alias == u.key))
        // A name of the crate's own modules (brought in by a glob re-export) is no crate.
        .filter(|u| declared(&u.key) || !own_modules.iter().any(|o| *o == u.key))
        .chain(renamed.iter())
        .collect();
    // A derive crate's output names its runtime crate: a use of the one uses the other.
    let implied: Vec<Use> = rust_uses
        .iter()
        .filter_map(|u| {
            let runtime = runtime_of(&u.key).filter(|r| declared(r))?;
            Some(Use {
                key: Cow::Borrowed(runtime),
                ..(*u).clone()
            })
        })
        .collect();
    rust_uses.extend(implied.iter());
    // A workspace proc-macro crate writes paths into the crates expanding its macros
    // (typst's `#[typst_macros::time]` writes `::typst_timing::…`): a use of it uses what they
    // name. Never one owed: a use may re-export the macro (`pub use wgpu_macros::gpu_test;`)
    // for other crates to expand.
    let expanded: Vec<Use> = rust_uses
        .iter()
        .flat_map(|u| {
            let names = world.rust_generated.get(u.key.as_ref());
            (names.into_iter().flatten())
                .filter(|n| declared(n))
                .map(|n| Use {
                    key: Cow::Borrowed(n.as_str()),
                    optional: true,
                    expanded_from: Some(format!(
                        "through the output of {}, a proc-macro crate of the workspace, whose expansion here needs it",
                        u.key
                    )),
                    ..(*u).clone()
                })
        })
        .collect();
    rust_uses.extend(expanded.iter());
    // Another workspace crate's exported `macro_rules!` expands here: what its body names
    // by path is this crate's to declare (yazi's `act!` writes `paste::paste!`).
    let own_name = (rec.manifests.provides.iter())
        .find(|(l, _)| *l == Language::Rust)
        .map(|(_, n)| n.as_str());
    let renames = rec.manifests.rust_renames.as_slice();
    let through_macros = macro_uses(world, &rec.files, (own_name, renames), &declared);
    rust_uses.extend(through_macros.iter());
    let tools = ToolEvidence::default();
    let around = Around::without_tools(world, &tools);
    let manifest = source::join(&m.dir, "Cargo.toml");
    let from = out.len();
    compare(
        m,
        Language::Rust,
        &decls,
        &rust_uses,
        &manifest,
        &around,
        out,
    );
    // The maintainers' word for an unused-dependency tool: used where no import shows it.
    let lists: Vec<Ignored> = tool_ignored(cargo_toml)
        .into_iter()
        .map(|(name, table, line)| Ignored {
            name,
            kinds: ignores::USED,
            at: format!("`[package.metadata.{table}]` in {manifest}:{line}"),
            language: Language::Rust,
        })
        .chain(decls.iter().filter(|d| is_workspace_hack(&d.d.name)).map(|d| Ignored {
            name: d.d.name.clone(),
            kinds: ignores::USED,
            at: format!(
                "the cargo-hakari convention (a workspace-hack crate unifies the workspace's features and is never imported), for {manifest}:{}",
                d.d.line
            ),
            language: Language::Rust,
        }))
        .collect();
    let mut found = out.split_off(from);
    ignores::apply(&lists, world.probe, &mut found);
    // A dev-dependency only the doc tests a doc attribute includes from Markdown use
    // (`#[doc = include_str!("docs.md")]`) is used.
    let dev_decl = |f: &Finding| {
        // The declaration at the finding's line: a crate declared for both may be unused
        // in its `[dependencies]` and used by the doc tests through its dev entry.
        decls.iter().find(|d| {
            f.kind == DriftKind::Unused
                && d.d.name == f.dependency
                && f.line == Some(d.d.line)
                && d.d.scope == declared::Scope::Dev
        })
    };
    if doc_tests && found.iter().any(|f| dev_decl(f).is_some()) {
        let snap = world.loaded.snapshot.repo_of(m);
        let used = super::rust_doc_md::doc_test_crates(snap, &rec.files);
        found.retain(|f| {
            let Some((path, line)) = dev_decl(f).and_then(|d| d.keys.iter().find_map(|k| used.get(k)))
            else {
                return true;
            };
            if let Some(p) = world.probe.filter(|p| p.names(&f.dependency)) {
                p.say(format!(
                    "{path}:{line} uses it in a doc test, which a doc attribute includes (`#[doc = include_str!(…)]`) and `cargo test` compiles with the dev-dependencies"
                ));
            }
            false
        });
    }
    // A crate with no library and no binary (only benches, examples, tests: tokio's
    // `benches` crate) ships nothing: its `[dependencies]` serve those targets, so none is
    // "used only by tests".
    let ships = ships_a_target(&rec.files, &m.dir, cargo_toml);
    if !ships
        && let Some(p) = world.probe
        && found
            .iter()
            .any(|f| f.kind == DriftKind::DevOnly && p.names(&f.dependency))
    {
        p.say(
            "the crate has no library and no binary (only benches, examples or tests): its [dependencies] serve them, so nothing is dev-only".to_string(),
        );
    }
    found.retain(|f| ships || f.kind != DriftKind::DevOnly);
    // A crate whose library is named otherwise (`criterion2` is `criterion`) reads as one
    // unused and one undeclared: neither is sure.
    super::doubt::name_guesses(&mut found, &|c| world.rust_libs.contains_key(c), false, &[]);
    if found.iter().any(|f| f.kind == DriftKind::Unused)
        && let Some(lock) = world.lock_above(m, super::lockfile::RUST_LOCKFILES)
    {
        // A crate's version is resolved once for the whole graph: a Rust declaration of a
        // crate another brings, with features switched on, is there to switch them (of any
        // family: `getrandom`'s `js` under `rand`).
        // A crate of the mesh that already switches them on itself needs no one to (biome's
        // members inherit `serde`'s `derive` from the workspace, each of its own entry).
        let names: Vec<String> = decls.iter().map(|d| d.d.name.clone()).collect();
        let switches = feature_switches(&table);
        // Ours in any section; theirs as a normal build of theirs resolves them.
        let features = |krate: &str| world.rust_features.get(&(m.repo, rust_ident(krate)));
        let switched_by = |q: &str, dep: &str| {
            let ours = features(own.as_deref()?)?.all.get(dep)?;
            let theirs = features(q)?;
            match theirs.normal.get(dep) {
                Some(normal) => Some(ours.is_subset(normal)),
                // Theirs only for its tests, benches or build script: its build has nothing
                // of it for this one to switch on, and its tests switch on their own.
                None => theirs.all.contains_key(dep).then_some(true),
            }
        };
        super::doubt::transitive(&mut found, &names, &lock, &|f, q| {
            switches.contains(&f.dependency)
                && !world.mesh_package(Language::Rust, &f.dependency)
                && switched_by(q, &f.dependency) != Some(true)
        });
    }
    // A native library's crate with features switched on is there to switch them, whatever
    // brings it (diesel's examples: `pq-sys` with `bundled`, `openssl-sys` with `vendored`).
    // Where a lockfile is kept, it must show another crate bringing it.
    let native = native_switches(&table);
    let lock = match native.is_empty() {
        true => None,
        false => world.lock_above(m, super::lockfile::RUST_LOCKFILES),
    };
    let own = own.as_deref().unwrap_or("");
    for f in found.iter_mut().filter(|f| {
        f.kind == DriftKind::Unused
            && f.doubt.is_none()
            && native.get(&f.dependency).is_some_and(|package| {
                lock.as_ref()
                    .is_none_or(|l| l.brought_by_other(package, own))
            })
    }) {
        f.doubt = Some(
            "declared to switch features on of a crate that builds or picks a native library (a `-sys` or `-src` crate, `getrandom`): a crate using it through others gets them, as Cargo unifies features".to_string(),
        );
    }
    // A crate whose build script writes Rust code with a code generator (tonic's examples:
    // `tonic-prost-build` builds what `include_proto!` pulls in) compiles code no file holds:
    // what that code uses, and the modules it makes, no file here shows.
    let generator = decls.iter().find(|d| {
        d.d.scope == declared::Scope::BuildScript && CODE_GENERATORS.contains(&d.d.name.as_str())
    });
    if let Some(g) = generator {
        for f in found.iter_mut().filter(|f| {
            f.doubt.is_none()
                && matches!(
                    f.kind,
                    DriftKind::Unused | DriftKind::DevOnly | DriftKind::Undeclared
                )
                && !(f.kind != DriftKind::Undeclared && f.dependency == g.d.name)
        }) {
            f.doubt = Some(format!(
                "the build script generates Rust code with {} (a build-dependency) that the crate includes: what that code uses, no file here shows",
                g.d.name
            ));
        }
    }
    // A crate whose root includes a file its build script writes (`include!(concat!(
    // env!("OUT_DIR"), "/x.rs"))`, `tonic::include_proto!`: yew's website-test compiles the
    // Rust blocks of its docs so) compiles code no file holds: what it uses, no file shows.
    let snap = world.loaded.snapshot.repo_of(m);
    if generator.is_none()
        && found
            .iter()
            .any(|f| f.doubt.is_none() && matches!(f.kind, DriftKind::Unused | DriftKind::DevOnly))
        && let Some(root_file) = includes_build_output(snap, &m.dir, cargo_toml, &rec.files)
    {
        for f in found.iter_mut().filter(|f| {
            f.doubt.is_none() && matches!(f.kind, DriftKind::Unused | DriftKind::DevOnly)
        }) {
            f.doubt = Some(format!(
                "{root_file}: what that code uses, no file here shows"
            ));
        }
    }
    // An undeclared crate only files no `mod` declaration reaches import (helix-tui's
    // `widgets/list.rs` under a `// mod list;`): cargo does not compile them.
    if let Ok(root) = snap.root_tree() {
        let text = |path: &str| crate::source::blob_text(snap, &root, path).ok().flatten();
        for f in found
            .iter_mut()
            .filter(|f| f.kind == DriftKind::Undeclared && f.doubt.is_none())
        {
            let files: Vec<&str> = rust_uses
                .iter()
                .filter(|u| u.key == f.dependency)
                .map(|u| u.file)
                .collect();
            let unreached: Vec<&str> = files
                .iter()
                .copied()
                .filter(|file| unreached(&m.dir, file, cargo_toml, &text))
                .collect();
            if !files.is_empty() && unreached.len() == files.len() {
                f.doubt = Some(format!(
                    "only {} imports it, and no `mod` declaration reaches that file: cargo does not compile it",
                    unreached[0]
                ));
            }
        }
    }
    // A manifest with no Rust file beside it (a test's fixture `Cargo.toml`, a crate whose
    // sources a build writes), or a test's fixture crate whose files name nothing at all (an
    // empty `lib.rs` under `tests/`), has no code to weigh its dependencies against: none is
    // unused.
    let rust = || rec.files.iter().filter(|f| f.language == Language::Rust);
    let in_tests = m.dir.split('/').any(|d| {
        matches!(
            d,
            "tests" | "test" | "testsuite" | "testdata" | "test_data" | "fixtures"
        )
    });
    let why = match (rust().next(), rust().all(|f| f.imports.is_empty())) {
        (None, _) => Some("the module has no Rust file"),
        (Some(_), true) if in_tests => {
            Some("the module is a test's fixture (under a test directory) whose files name nothing")
        }
        _ => None,
    };
    if let Some(why) = why {
        if let Some(p) = world.probe
            && found
                .iter()
                .any(|f| f.kind == DriftKind::Unused && p.names(&f.dependency))
        {
            p.say(format!(
                "{why}: no code is there to weigh its dependencies against (a test's fixture manifest, or sources a build writes), so nothing is unused"
            ));
        }
        found.retain(|f| f.kind != DriftKind::Unused);
    }
    out.extend(found);
}

/// Build-dependencies that write Rust code using other crates for the crate to include
/// (`include!(concat!(env!("OUT_DIR"), …))`, `tonic::include_proto!`,
/// `uniffi::include_scaffolding!`): gRPC and protobuf generators, schema and parser
/// generators, bindings to Windows. (A generator whose output uses only the standard library
/// — `bindgen`, `built`, `shadow-rs` — hides nothing.)
const CODE_GENERATORS: &[&str] = &[
    "capnpc",
    "lalrpop",
    "progenitor",
    "prost-build",
    "protobuf-codegen",
    "protoc-rust",
    "tonic-build",
    "tonic-prost-build",
    "typify",
    "uniffi",
    "uniffi_build",
    "windows-bindgen",
];

/// Whether the crate's source file `file` (repo-relative, in the crate at `dir`, whose
/// manifest is `cargo_toml`) is a module its parent never declares: a file under `src/` (not a crate root, not a binary of
/// `src/bin/`, not a target the manifest names by path) whose parent module's files (`text`
/// reads them) exist and hold no `mod name` outside a comment, nor a `#[path]` or an
/// `include!` that could reach it otherwise.
fn unreached(
    dir: &str,
    file: &str,
    cargo_toml: &str,
    text: &dyn Fn(&str) -> Option<String>,
) -> bool {
    let prefix = match dir.is_empty() {
        true => String::new(),
        false => format!("{dir}/"),
    };
    let Some(rel) = file
        .strip_prefix(&prefix)
        .and_then(|r| r.strip_prefix("src/"))
    else {
        return false;
    };
    let Some(path) = rel.strip_suffix(".rs") else {
        return false;
    };
    let path = path.strip_suffix("/mod").unwrap_or(path);
    if matches!(path, "lib" | "main") || path.starts_with("bin/") {
        return false;
    }
    let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
    let parents: Vec<String> = match parent {
        "" => vec!["lib.rs".into(), "main.rs".into()],
        p => vec![format!("{p}.rs"), format!("{p}/mod.rs")],
    };
    let texts: Vec<String> = parents
        .iter()
        .filter_map(|p| text(&format!("{prefix}src/{p}")))
        .collect();
    if texts.is_empty() {
        return false;
    }
    // A target the manifest names by path (`[[bin]] path = "src/tool.rs"`) is a root.
    let named = cargo_toml.contains(rel);
    !named
        && !texts.iter().any(|t| {
            t.contains("#[path")
                || t.contains("include!(")
                || t.lines().any(|line| declares_mod(line, name))
        })
}

/// The crate root (`src/lib.rs`, `src/main.rs`, repo-relative) that includes a file its build
/// script writes, when the crate has a build script ([`build_script`], and its file there),
/// with what says so: an `include!` from `OUT_DIR`, or a `mod name;` whose file the
/// repository does not hold (sqlfluff's dialects crate: its build writes `src/dialect/`,
/// which `.gitignore` keeps out).
fn includes_build_output(
    snap: &crate::source::RepoSnapshot,
    dir: &str,
    cargo_toml: &str,
    files: &[ScannedFile],
) -> Option<String> {
    let script = crate::source::join(dir, &build_script(cargo_toml)?);
    if !files.iter().any(|f| f.path == script) {
        return None;
    }
    let root = snap.root_tree().ok()?;
    ["src/lib.rs", "src/main.rs"].into_iter().find_map(|f| {
        let path = crate::source::join(dir, f);
        let text = crate::source::blob_text(snap, &root, &path).ok()??;
        let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        if squeezed.contains("include!(concat!(env!(\"OUT_DIR\")")
            || squeezed.contains("include_proto!(")
        {
            return Some(format!("{path} includes code the build script writes (from OUT_DIR)"));
        }
        // `mod name;` with neither `src/name.rs` nor `src/name/mod.rs` here (no `#[path]`).
        let held = |name: &str| {
            [format!("src/{name}.rs"), format!("src/{name}/mod.rs")]
                .iter()
                .any(|p| files.iter().any(|f| f.path == crate::source::join(dir, p)))
        };
        // Only the file's own level (not inside an inline `mod x { … }`), outside block
        // comments; a declaration with a path (`#[path]`, `#[cfg_attr(…, path = …)]`) or
        // `#[cfg(test)]`, on its line or the lines before it, is left alone.
        let mut attrs = String::new();
        let (mut depth, mut in_comment) = (0i32, false);
        let missing = text.lines().find_map(|l| {
            let mut code = l.split("//").next().unwrap_or(l);
            if in_comment {
                code = match code.split_once("*/") {
                    Some((_, after)) => {
                        in_comment = false;
                        after
                    }
                    None => return None,
                };
            }
            if let Some((before, after)) = code.split_once("/*") {
                in_comment = !after.contains("*/");
                code = before;
            }
            let at = depth;
            depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
            let t = code.trim_start();
            if t.starts_with("#[") && !t.contains("mod ") {
                attrs.push_str(t);
                return None;
            }
            let said = format!("{attrs}{t}");
            attrs.clear();
            let attributed = said.contains("path") || said.contains("#[cfg(test)]");
            out_of_line_mod(code)
                .filter(|name| at == 0 && !attributed && !held(name))
                .map(str::to_string)
        })?;
        Some(format!(
            "{path} declares `mod {missing};`, whose file is not in the repository: the build script writes it"
        ))
    })
}

/// The module a line declares out of line (`mod name;`, `pub(crate) mod name;`), outside a
/// line comment.
fn out_of_line_mod(line: &str) -> Option<&str> {
    let code = line.split("//").next().unwrap_or(line).trim();
    let decl = code.strip_suffix(';')?;
    let rest = decl.rsplit_once("mod ")?;
    let mut before = rest.0.trim();
    while let Some(attr) = before.strip_prefix("#[") {
        before = attr
            .split_once(']')
            .map_or("", |(_, after)| after.trim_start());
    }
    let visibility = before.is_empty() || before.starts_with("pub");
    let name = rest.1.trim();
    (visibility && !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then_some(name)
}

/// Whether a line of Rust declares the module `name` (`mod name;`, `pub(crate) mod name {`),
/// not in a line comment.
fn declares_mod(line: &str, name: &str) -> bool {
    let mut rest = line.trim_start();
    if rest.starts_with("//") {
        return false;
    }
    // `#[cfg(unix)] mod unix;`: the attributes before it on the line.
    while let Some(attr) = rest.strip_prefix("#[") {
        let Some((_, after)) = attr.split_once(']') else {
            return false;
        };
        rest = after.trim_start();
    }
    if let Some(r) = rest.strip_prefix("pub") {
        rest = r.trim_start();
        if rest.starts_with('(') {
            rest = rest.split_once(')').map_or("", |(_, r)| r).trim_start();
        }
    }
    rest.strip_prefix("mod")
        .filter(|r| r.starts_with(char::is_whitespace))
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix(name))
        .is_some_and(|r| r.trim_start().starts_with([';', '{']))
}

/// Whether the crate builds a library or a binary: `src/lib.rs`, `src/main.rs`,
/// `src/bin/`, or a `[lib]`/`[[bin]]` table naming one elsewhere.
fn ships_a_target(files: &[ScannedFile], dir: &str, cargo_toml: &str) -> bool {
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let by_layout = files.iter().any(|f| {
        let rel = f.path.strip_prefix(&prefix).unwrap_or(&f.path);
        matches!(rel, "src/lib.rs" | "src/main.rs") || rel.starts_with("src/bin/")
    });
    by_layout
        || cargo_toml
            .lines()
            .any(|l| matches!(l.trim(), "[lib]" | "[[bin]]"))
}

/// External packages whose library is named otherwise than the package (and than the
/// `rust-`/`-rs` rule of [`keys`] finds), from crates.io. What no table knows,
/// `[drift] ignore` silences.
const LIB_NAMES: &[(&str, &str)] = &[
    ("md-5", "md5"),
    ("sha-1", "sha1"),
    ("rustls-webpki", "webpki"),
];

/// The names a dependency declared as `name` may be imported by: its name with `-` as `_`;
/// when no `package = "…"` rename decides the name in code (`renamed`), also its library's
/// name: a workspace crate's `[lib] name` (`workspace_libs`, by package name), a name from
/// [`LIB_NAMES`], the name without a `rust-` prefix or `-rs` suffix (`rust-ini` is `ini`,
/// `xml-rs` is `xml`), which is how such packages name their library, or in lowercase.
pub fn keys(name: &str, renamed: bool, workspace_libs: &HashMap<String, String>) -> Vec<String> {
    let ident = rust_ident(name);
    let mut out = vec![ident.clone()];
    if renamed {
        return out;
    }
    let mut add = |k: String| {
        if !k.is_empty() && !out.contains(&k) {
            out.push(k);
        }
    };
    if let Some(lib) = workspace_libs.get(&ident) {
        add(lib.clone());
    }
    if let Some((_, lib)) = LIB_NAMES.iter().find(|(p, _)| *p == name) {
        add(lib.to_string());
    }
    let bare = name
        .strip_prefix("rust-")
        .or_else(|| name.strip_suffix("-rs"))
        .unwrap_or(name);
    add(rust_ident(bare));
    // A package named with capitals often names its library in lowercase (`Inflector`'s
    // `[lib] name = "inflector"`; Cargo keeps the case by default).
    add(ident.to_lowercase());
    out
}

/// The workspace crates whose library is named otherwise than their package: package name
/// (`-` as `_`) → `[lib] name`, from the Cargo.toml texts of the mesh's modules.
pub(crate) fn workspace_libs<'a>(
    cargo_tomls: impl Iterator<Item = &'a str>,
) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for text in cargo_tomls.filter(|t| t.contains("[lib]")) {
        let Ok(table) = toml::from_str::<toml::Table>(text) else {
            continue;
        };
        let name = |key: &str| {
            table
                .get(key)
                .and_then(|t| t.get("name"))
                .and_then(|n| n.as_str())
                .map(rust_ident)
        };
        if let (Some(package), Some(lib)) = (name("package"), name("lib"))
            && package != lib
        {
            out.insert(package, lib);
        }
    }
    out
}

/// Per workspace proc-macro crate (by the Rust name it provides), the crates its shipped
/// code writes paths to for the crates expanding its macros
/// ([`mesh_imports::Import::generated`]), less the standard library's and its own. A
/// proc-macro crate is only ever used by expanding it; a library's other macros, expanded
/// or not by a crate using it, are no such evidence (sea-orm's exported `debug_print!`
/// names `tracing`, which few of its users call).
pub(super) fn generated_names(
    records: &[crate::store::ModuleRecord],
    manifests: &[super::Manifests],
) -> HashMap<String, Vec<String>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for (rec, man) in records.iter().zip(manifests) {
        let Some((_, own)) = (rec.manifests.provides.iter()).find(|(l, _)| *l == Language::Rust)
        else {
            continue;
        };
        if !man.cargo.as_deref().is_some_and(is_proc_macro) {
            continue;
        }
        let mut names: Vec<String> = (rec.files.iter())
            .filter(|f| f.language == Language::Rust && f.kind == ImportKind::Build)
            .flat_map(|f| f.imports.iter())
            .filter(|i| i.generated && !i.in_macro && i.kind == ImportKind::Build)
            .map(|i| i.name.clone())
            .filter(|n| {
                n != own
                    && !matches!(
                        n.as_str(),
                        "std" | "core" | "alloc" | "crate" | "self" | "super"
                    )
            })
            .collect();
        names.sort();
        names.dedup();
        if !names.is_empty() {
            out.insert(own.clone(), names);
        }
    }
    out
}

/// A `#[macro_export]` macro of a workspace crate's shipped code, and its file.
pub(super) struct MacroDef<'a> {
    file: &'a str,
    def: &'a ExportedMacro,
}

/// Per workspace crate (by the Rust name it provides), the exported macros of its shipped
/// code: they expand in the crates calling them (see [`macro_uses`]).
pub(super) fn exported_macros(
    records: &[crate::store::ModuleRecord],
) -> HashMap<&str, Vec<MacroDef<'_>>> {
    let mut out: HashMap<&str, Vec<MacroDef>> = HashMap::new();
    for rec in records {
        let Some((_, own)) = (rec.manifests.provides.iter()).find(|(l, _)| *l == Language::Rust)
        else {
            continue;
        };
        for f in (rec.files.iter()).filter(|f| f.language == Language::Rust) {
            let Some(m) = f
                .rust_macros
                .as_deref()
                .filter(|_| f.kind == ImportKind::Build)
            else {
                continue;
            };
            for def in &m.exported {
                out.entry(own.as_str())
                    .or_default()
                    .push(MacroDef { file: &f.path, def });
            }
        }
    }
    out
}

/// The most macros one call is followed through (an exported macro calling others).
const MAX_EXPANSIONS: usize = 64;

/// The uses the crate's calls of other workspace crates' exported macros make: each crate
/// an expanded body names by path that the crate declares (optional: an arm the crate never
/// matches may name it, so never one owed). A bare call (`use m::act;` then `act!`) is of a
/// crate the crate declares; the bodies' own calls expand here too, followed.
fn macro_uses<'a>(
    world: &World<'a>,
    files: &'a [ScannedFile],
    (own, renames): (Option<&str>, &'a [(String, String)]),
    declared: &dyn Fn(&str) -> bool,
) -> Vec<Use<'a>> {
    let mut out = Vec::new();
    if world.rust_macros.is_empty() {
        return out;
    }
    // The workspace crate a name in the code stands for: through a Cargo.toml rename
    // (`m = { package = "macros" }`), else itself.
    let crate_of = |name: &'a str| -> &'a str {
        (renames.iter())
            .find(|(local, _)| local == name)
            .map_or(name, |(_, real)| real.as_str())
    };
    // A crate-wide `#[macro_use] extern crate x;` brings x's macros into every file.
    let extern_crates: Vec<&str> = (files.iter())
        .flat_map(|f| f.imports.iter())
        .filter(|i| i.text.starts_with("extern crate"))
        .map(|i| crate_of(&i.name))
        .collect();
    for f in files.iter().filter(|f| f.language == Language::Rust) {
        let Some(m) = f.rust_macros.as_deref() else {
            continue;
        };
        for call in &m.calls {
            let owners: Vec<&str> = match call.path.as_deref() {
                Some("crate" | "self" | "super" | "$crate") => continue,
                Some(p) => vec![crate_of(p)],
                // A bare call is of the crate whose `use` in the file names it (`use
                // macros::act;`, `use macros::*;`), or of one brought crate-wide: not
                // another crate's same name (`use log::error;` beside a workspace
                // `error!`).
                None => (f.imports.iter())
                    // The crate first: most imports are of no crate exporting macros.
                    .filter(|i| world.rust_macros.contains_key(crate_of(&i.name)))
                    .filter(|i| {
                        let t = i.text.trim_start();
                        let a_use =
                            t.starts_with("use ") || (t.starts_with("pub") && t.contains(" use "));
                        let named = |w: &str| w == call.name || w == "*";
                        a_use
                            && (t.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '*')))
                                .any(named)
                    })
                    .map(|i| crate_of(&i.name))
                    .chain(extern_crates.iter().copied())
                    .filter(|k| world.rust_macros.contains_key(k))
                    .collect(),
            };
            let kind = f.kind.min(call.kind);
            let mut todo: Vec<(&str, &str)> = (owners.into_iter())
                .filter(|o| Some(*o) != own)
                .map(|o| (o, call.name.as_str()))
                .collect();
            let mut seen: Vec<(&str, &str)> = Vec::new();
            while let Some((krate, name)) = todo.pop() {
                if seen.contains(&(krate, name)) || seen.len() >= MAX_EXPANSIONS {
                    continue;
                }
                seen.push((krate, name));
                let defs = world.rust_macros.get(krate).map_or(&[][..], Vec::as_slice);
                for d in defs.iter().filter(|d| d.def.name == name) {
                    for n in (d.def.names.iter()).filter(|n| declared(n) && Some(n.as_str()) != own)
                    {
                        out.push(Use {
                            optional: true,
                            expanded_from: Some(format!(
                                "through `{name}!` of {krate} ({}:{}), an exported macro whose expansion here names it",
                                d.file, d.def.line
                            )),
                            ..Use::plain(Language::Rust, Cow::Borrowed(n), kind, &f.path, call.line)
                        });
                    }
                    for c in &d.def.calls {
                        match c.path.as_deref() {
                            Some("crate" | "self" | "super") => {}
                            Some("$crate") | None => todo.push((krate, &c.name)),
                            Some(p) => todo.push((p, &c.name)),
                        }
                    }
                }
            }
        }
    }
    out
}

/// Whether a `Cargo.toml` makes a proc-macro crate (`[lib] proc-macro = true`).
fn is_proc_macro(cargo_toml: &str) -> bool {
    // Most crates name neither key: no parse for them (as `workspace_libs`).
    if !(cargo_toml.contains("proc-macro") || cargo_toml.contains("proc_macro")) {
        return false;
    }
    let Ok(table) = toml::from_str::<toml::Table>(cargo_toml) else {
        return false;
    };
    let lib = table.get("lib");
    ["proc-macro", "proc_macro"]
        .iter()
        .any(|k| lib.and_then(|l| l.get(*k)).and_then(|v| v.as_bool()) == Some(true))
}

/// The module-relative path of the package's build script: `[package] build = "…"`, none
/// for `build = false`, else `build.rs`.
pub(crate) fn build_script(cargo_toml: &str) -> Option<String> {
    // Only a manifest that names `build` needs parsing; most do not.
    if !cargo_toml.contains("build") {
        return Some("build.rs".to_string());
    }
    let table = toml::from_str::<toml::Table>(cargo_toml).ok();
    match table.as_ref().and_then(|t| t.get("package")?.get("build")) {
        Some(toml::Value::String(path)) => Some(path.trim_start_matches("./").to_string()),
        Some(toml::Value::Boolean(false)) => None,
        _ => Some("build.rs".to_string()),
    }
}

/// Whether the package's doc tests are compiled: not when `[lib] doctest = false`.
pub(crate) fn doc_tests_run(cargo_toml: &str) -> bool {
    // Only a manifest that says `doctest` needs parsing; most do not.
    if !cargo_toml.contains("doctest") {
        return true;
    }
    let table = toml::from_str::<toml::Table>(cargo_toml).ok();
    !matches!(
        table.as_ref().and_then(|t| t.get("lib")?.get("doctest")),
        Some(toml::Value::Boolean(false))
    )
}

/// Whether `name` is a workspace-hack crate by cargo-hakari's naming (`workspace-hack`,
/// `<project>-workspace-hack`): every crate of the workspace depends on it so that one
/// feature set of each shared dependency is built, and none imports it — unused by design,
/// as cargo-machete's docs have its users list it.
fn is_workspace_hack(name: &str) -> bool {
    let name = name.replace('_', "-");
    name == "workspace-hack" || name.ends_with("-workspace-hack")
}

/// A dependency the maintainers told an unused-dependency tool to leave alone: its name and
/// where they say so (`[package.metadata.cargo-shear] ignored`, `cargo-machete`'s, and
/// `cargo-udeps.ignore`'s lists), with the line. Such a list is the maintainers' word that the
/// dependency is used where no import shows it (a derive's or macro's expansion names it,
/// `ruff_cache` behind `#[derive(CacheKey)]`), so drift calls it neither unused nor dev-only.
pub(crate) fn tool_ignored(cargo_toml: &str) -> Vec<(String, &'static str, usize)> {
    // Only a manifest with package metadata needs parsing; most have none.
    if !cargo_toml.contains("metadata") {
        return Vec::new();
    }
    let Ok(table) = toml::from_str::<toml::Table>(cargo_toml) else {
        return Vec::new();
    };
    let Some(meta) = table.get("package").and_then(|p| p.get("metadata")) else {
        return Vec::new();
    };
    let names = |v: Option<&toml::Value>| -> Vec<String> {
        v.and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect()
    };
    let mut out = Vec::new();
    let mut add = |list: Vec<String>, key: &'static str| {
        for name in list {
            let line = ignore_line(cargo_toml, key, &name);
            out.push((name, key, line));
        }
    };
    for tool in ["cargo-shear", "cargo-machete"] {
        add(names(meta.get(tool).and_then(|t| t.get("ignored"))), tool);
    }
    if let Some(udeps) = meta.get("cargo-udeps").and_then(|t| t.get("ignore")) {
        for section in ["normal", "development", "build"] {
            add(names(udeps.get(section)), "cargo-udeps.ignore");
        }
    }
    out
}

/// The 1-based line where `name` is listed quoted after the table `key`'s header, else the
/// header's own line.
fn ignore_line(text: &str, key: &str, name: &str) -> usize {
    let header = text.find(&format!("metadata.{key}")).unwrap_or(0);
    let quoted = [format!("\"{name}\""), format!("'{name}'")];
    let at = quoted
        .iter()
        .filter_map(|q| text.get(header..)?.find(q.as_str()))
        .min()
        .map_or(header, |p| header + p);
    text[..at].matches('\n').count() + 1
}

/// The module-relative files a build script at `script` compiles into itself with
/// `#[path = "…"] mod x;` (nu-cmd-lang's build.rs includes a theme file of `src/`): their
/// imports are the build script's too.
pub(crate) fn build_includes(script: &str, text: &str) -> Vec<String> {
    let dir = script.rsplit_once('/').map_or("", |(d, _)| d);
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[path") {
        rest = &rest[at + "#[path".len()..];
        let Some(value) = rest
            .trim_start()
            .strip_prefix('=')
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix('"'))
            .and_then(|r| r.split_once('"'))
            .map(|(v, _)| v)
        else {
            continue;
        };
        out.push(normalize(&source::join(dir, value)));
    }
    out
}

/// The most files a build script's modules are followed to.
pub(crate) const MAX_BUILD_FILES: usize = 64;

/// `a/./b/../c` as `a/c`.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// The runtime crate a derive or macro crate's output names: `strum_macros` expands to
/// `::strum::…`, `quickcheck_macros` to `::quickcheck::…`, `serde_derive` to `serde`. A use
/// of the one is a use of the other (of the same kind), when that one is declared.
pub(crate) fn runtime_of(key: &str) -> Option<&str> {
    ["_macros", "_derive", "_macro"]
        .iter()
        .find_map(|suffix| key.strip_suffix(suffix))
        .filter(|stem| !stem.is_empty())
}

/// The `extern crate NAME as ALIAS;` renames of the crate's files, as (alias, crate) pairs:
/// read from the import's line, which the scanner keeps.
pub(crate) fn extern_aliases(files: &[ScannedFile]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for f in files
        .iter()
        .filter(|f| f.language == mesh_imports::Language::Rust)
    {
        for imp in f.imports.iter() {
            let Some(rest) = imp.text.split("extern crate ").nth(1) else {
                continue;
            };
            let mut words = rest.split(|c: char| c.is_whitespace() || c == ';');
            let words: Vec<&str> = words.by_ref().filter(|w| !w.is_empty()).take(3).collect();
            if let [krate, "as", alias] = words[..]
                && *krate == imp.name
                && alias != "_"
                && !out.iter().any(|(a, _)| a == alias)
            {
                out.push((alias.to_string(), krate.to_string()));
            }
        }
    }
    out
}

/// The names the crate's own modules can have, from the paths of its Rust files (every
/// directory and file stem below the module directory): a glob re-export (`pub use
/// dataframe::*;` in nu_plugin_polars) brings `command::` and `values::` into scope, and an
/// import of such a name is the crate's own, never an undeclared crate.
pub(crate) fn own_module_names(files: &[ScannedFile], dir: &str) -> Vec<String> {
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let mut out: Vec<String> = Vec::new();
    for f in files
        .iter()
        .filter(|f| f.language == mesh_imports::Language::Rust)
    {
        let rel = f.path.strip_prefix(&prefix).unwrap_or(&f.path);
        for part in rel.split('/') {
            let stem = part.trim_end_matches(".rs").to_string();
            if !out.contains(&stem) {
                out.push(stem);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_line_modules_are_read_from_their_lines() {
        let got: Vec<Option<&str>> = [
            "pub mod dialect; // written by build.rs",
            "mod util;",
            "#[cfg(unix)] pub(crate) mod unix;",
            "mod inline { }",
            "// mod gone;",
            "let x = mod_value;",
            "use crate::mod x;",
        ]
        .into_iter()
        .map(out_of_line_mod)
        .collect();
        assert_eq!(
            got,
            [
                Some("dialect"),
                Some("util"),
                Some("unix"),
                None,
                None,
                None,
                None
            ]
        );
    }

    #[test]
    fn a_file_no_mod_declares_is_unreached() {
        let cargo = "[package]\nname = \"tui\"\n";
        let files = |path: &str| -> Option<String> {
            match path {
                "tui/src/lib.rs" => Some("pub mod widgets;\n".into()),
                "tui/src/widgets/mod.rs" => {
                    Some("mod block;\n// mod list;\npub(crate) mod table {\n}\n".into())
                }
                _ => None,
            }
        };
        assert!(unreached("tui", "tui/src/widgets/list.rs", cargo, &files));
        assert!(!unreached("tui", "tui/src/widgets/block.rs", cargo, &files));
        assert!(!unreached(
            "tui",
            "tui/src/widgets/table/mod.rs",
            cargo,
            &files
        ));
        assert!(!unreached("tui", "tui/src/widgets/mod.rs", cargo, &files));
        // Roots, binaries, tests, and a file whose parent is not there are never said to be.
        assert!(!unreached("tui", "tui/src/lib.rs", cargo, &files));
        assert!(!unreached("tui", "tui/src/bin/x.rs", cargo, &files));
        assert!(!unreached("tui", "tui/tests/it.rs", cargo, &files));
        assert!(!unreached("tui", "tui/src/gone/x.rs", cargo, &files));
        assert!(declares_mod("    pub mod list;", "list"));
        assert!(declares_mod("#[cfg(unix)] pub(crate) mod list;", "list"));
        assert!(!declares_mod("mod listing;", "list"));
    }

    #[test]
    fn a_library_is_found_by_its_lib_name() {
        let none = HashMap::new();
        // nu_plugin_formats declares `rust-ini` and writes `ini::Ini`.
        assert_eq!(keys("rust-ini", false, &none), ["rust_ini", "ini"]);
        assert_eq!(keys("xml-rs", false, &none), ["xml_rs", "xml"]);
        assert_eq!(keys("md-5", false, &none), ["md_5", "md5"]);
        assert_eq!(keys("serde", false, &none), ["serde"]);
        assert_eq!(keys("Inflector", false, &none), ["Inflector", "inflector"]);
        // A rename decides the name in code alone.
        assert_eq!(keys("rust-ini", true, &none), ["rust_ini"]);
        let ws = workspace_libs(
            [
                "[package]\nname = \"nu-test-support\"\n\n[lib]\nname = \"nutest\"\n",
                "[package]\nname = \"x\"\n[lib]\nbench = false\n",
            ]
            .into_iter(),
        );
        assert_eq!(ws.len(), 1);
        assert_eq!(
            keys("nu-test-support", false, &ws),
            ["nu_test_support", "nutest"]
        );
    }

    #[test]
    fn doc_tests_run_unless_the_library_turns_them_off() {
        assert!(doc_tests_run("[package]\nname = \"x\"\n"));
        assert!(doc_tests_run(
            "[package]\nname = \"x\"\n[lib]\ndoctest = true\n"
        ));
        assert!(!doc_tests_run(
            "[package]\nname = \"x\"\n\n[lib]\nbench = false\ndoctest = false\n"
        ));
        // A binary's `doctest` is not the library's.
        assert!(doc_tests_run(
            "[package]\nname = \"x\"\n[[bin]]\nname = \"x\"\ndoctest = false\n"
        ));
    }

    #[test]
    fn the_maintainers_ignore_lists_for_unused_dependency_tools() {
        // A crate whose derive expands to a dependency no import names says so for
        // cargo-shear (ruff's shape), or for cargo-machete, or cargo-udeps.
        let toml = "[package]\nname = \"x\"\n\n[dependencies]\ncache = { path = \"../cache\" }\n\n[package.metadata.cargo-shear]\n# Used via macro expansion.\nignored = [\"cache\", \"jiff\"]\n\n[package.metadata.cargo-machete]\nignored = ['serde']\n\n[package.metadata.cargo-udeps.ignore]\ndevelopment = [\"criterion\"]\n";
        let got = tool_ignored(toml);
        let names: Vec<&str> = got.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names, ["cache", "jiff", "serde", "criterion"]);
        assert_eq!((got[0].1, got[0].2), ("cargo-shear", 9));
        assert_eq!((got[2].1, got[2].2), ("cargo-machete", 12));
        assert_eq!((got[3].1, got[3].2), ("cargo-udeps.ignore", 15));
        // Other metadata, or none, says nothing; a broken manifest neither.
        assert!(
            tool_ignored(
                "[package]\nname = \"x\"\n[package.metadata.docs.rs]\nall-features = true\n"
            )
            .is_empty()
        );
        assert!(tool_ignored("[package.metadata.cargo-shear\nignored = [").is_empty());
    }

    #[test]
    fn the_build_script_and_what_it_includes() {
        // nushell's root: `build = "scripts/build.rs"`.
        let toml = "[package]\nname = \"nu\"\nbuild = \"scripts/build.rs\"\n";
        assert_eq!(build_script(toml).as_deref(), Some("scripts/build.rs"));
        assert_eq!(
            build_script("[package]\nname = \"x\"\nbuild = false\n"),
            None
        );
        assert_eq!(
            build_script("[package]\nname = \"x\"\n").as_deref(),
            Some("build.rs")
        );
        // nu-cmd-extra's build.rs compiles a theme file of its `src/`.
        let script =
            "fn f() {\n    #[path = \"src/extra/formats/to/html/theme.rs\"]\n    mod theme;\n}\n";
        assert_eq!(
            build_includes("build.rs", script),
            ["src/extra/formats/to/html/theme.rs"]
        );
        assert_eq!(
            build_includes("scripts/build.rs", "#[path=\"../src/a.rs\"] mod a;"),
            ["src/a.rs"]
        );
    }

    #[test]
    fn macro_crates_name_their_runtime() {
        assert_eq!(runtime_of("strum_macros"), Some("strum"));
        assert_eq!(runtime_of("serde_derive"), Some("serde"));
        assert_eq!(runtime_of("serde"), None);
        assert_eq!(runtime_of("_macros"), None);
    }
}
