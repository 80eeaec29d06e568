//! Go's own drift rules: the go.mod that governs a module (its own, or the nearest above),
//! the modules a go.work puts in workspace mode, and the testdata packages a module's code
//! imports by path.

use super::compare::{Around, compare};
use super::declared::{self, Declared, Scope};
use super::tools::ToolEvidence;
use super::{Decl, DriftKind, Finding, Use, World, names, stdlib};
use crate::Result;
use crate::source::{self, ModuleSource, RepoSnapshot, blob_text};
use mesh_imports::{ImportKind, Language};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// The go.mod above each module with Go files and none of its own (a JS package holding a
/// web UI's embed.go), as (path, text), and per such go.mod (repository, path) the imports of
/// those guest files: so their imports use its requirements.
pub(super) type Guests<'a> = (
    Vec<Option<(String, String)>>,
    HashMap<(usize, String), Vec<Use<'a>>>,
);

/// Finds each module's Go guests: see [`Guests`].
pub(super) fn guests<'a>(
    loaded: &'a crate::graph::Loaded,
    manifests: &[super::Manifests],
) -> Result<Guests<'a>> {
    let snapshot = &loaded.snapshot;
    let mut memo = HashMap::new();
    let mut above_each = Vec::with_capacity(snapshot.modules.len());
    let mut guests: HashMap<(usize, String), Vec<Use>> = HashMap::new();
    for (i, m) in snapshot.modules.iter().enumerate() {
        let above = match &manifests[i].go_mod {
            Some(_) => None,
            None if super::has(&loaded.records[i].files, Language::Go) => {
                nearest_go_mod(snapshot.repo_of(m), m.repo, &m.dir, &mut memo)?
            }
            None => None,
        };
        if let Some((path, _)) = &above {
            guests
                .entry((m.repo, path.clone()))
                .or_default()
                .extend(guest_uses(&loaded.records[i]));
        }
        above_each.push(above);
    }
    Ok((above_each, guests))
}

/// The nearest `go.mod` above `dir` (its repo-relative path and text).
fn nearest_go_mod(
    snap: &RepoSnapshot,
    repo: usize,
    dir: &str,
    memo: &mut source::Nearest<(String, String)>,
) -> Result<Option<(String, String)>> {
    let Some(above) = source::above(dir) else {
        return Ok(None);
    };
    let root = snap.root_tree()?;
    source::nearest(repo, above, memo, |at| -> Result<_> {
        let path = source::join(at, "go.mod");
        Ok(blob_text(snap, &root, &path)?.map(|t| (path, t)))
    })
}

/// The module paths of the Go modules the nearest `go.work` at or above `dir` uses: in
/// workspace mode they are found without a `require`.
pub(super) fn workspace(
    snap: &RepoSnapshot,
    repo: usize,
    dir: &str,
    memo: &mut source::Nearest<Vec<String>>,
) -> Result<Vec<String>> {
    let root = snap.root_tree()?;
    let found = source::nearest(repo, dir, memo, |d| -> Result<_> {
        let Some(text) = blob_text(snap, &root, &source::join(d, "go.work"))? else {
            return Ok(None);
        };
        let mut paths = Vec::new();
        for used in declared::go_work_uses(&text) {
            let go_mod = source::join(&source::join(d, &used), "go.mod");
            if let Some(p) = blob_text(snap, &root, &go_mod)?
                .as_deref()
                .and_then(mesh_imports::manifest::go_module_path)
            {
                paths.push(p);
            }
        }
        Ok(Some(paths))
    })?;
    Ok(found.unwrap_or_default())
}

/// A Go module's imports beside the go.mod that governs it (`path`, its `text`; `own` when
/// it is the module's own, not one above it) and the go.work's modules.
pub(super) fn drift(
    world: &World,
    m: &ModuleSource,
    (path, text, own): (String, &str, bool),
    go_workspace: &[String],
    (rec, uses): (&crate::store::ModuleRecord, &[Use]),
    out: &mut Vec<Finding>,
) {
    let g = declared::go_mod(text);
    let module_path = g.module.unwrap_or_default();
    // The modules of a go.work are found without a require: declared, never unused.
    let workspace = go_workspace.iter().map(|p| Declared {
        language: Language::Go,
        name: p.clone(),
        scope: Scope::Normal,
        manifest: "go.work".into(),
        elsewhere: None,
        line: 1,
        indirect: true,
    });
    let decls: Vec<Decl> = g
        .requires
        .into_iter()
        .chain(workspace)
        .map(|mut d| {
            // A go.mod above this module is another module's to keep tidy: only what this
            // one imports is checked against it.
            d.indirect |= !own;
            Decl {
                keys: vec![d.name.clone()],
                d,
            }
        })
        .collect();
    // A package is the module's own when no longer module path (a module nested below
    // it: opentelemetry-go's root requires go.opentelemetry.io/otel/metric) holds it.
    let nested = |key: &str| {
        world
            .go_modules
            .iter()
            .chain(decls.iter().map(|d| &d.d.name))
            .any(|p| p.len() > module_path.len() && names::segment_prefix(p, key, "/"))
    };
    // A `testdata/` package the module's code imports by path is compiled with it.
    let testdata = go_testdata_imports(world, m, &module_path, uses);
    let testdata_uses: Vec<Use> = testdata
        .iter()
        .flat_map(|(file, scan, kind)| {
            let third_party = scan.imports.iter().filter(|imp| !stdlib::go(&imp.name));
            third_party.map(move |imp| {
                let key = Cow::Borrowed(imp.name.as_str());
                Use::plain(Language::Go, key, (*kind).min(imp.kind), file, imp.line)
            })
        })
        .collect();
    let go_uses: Vec<&Use> = uses
        .iter()
        .chain(testdata_uses.iter())
        .filter(|u| {
            u.language == Language::Go
                && (!names::segment_prefix(&module_path, &u.key, "/") || nested(&u.key))
        })
        .collect();
    let tools = ToolEvidence::default();
    let around = Around::without_tools(world, &tools);
    let mut found = Vec::new();
    compare(
        m,
        Language::Go,
        &decls,
        &go_uses,
        &path,
        &around,
        &mut found,
    );
    if own && let Some(why) = absent_own_package(world, m, &module_path, rec, &nested) {
        for f in found
            .iter_mut()
            .filter(|f| f.kind == DriftKind::Unused && f.doubt.is_none())
        {
            f.doubt = Some(why.clone());
        }
    }
    out.extend(found);
}

/// The first package of the module's own that its code imports and the repository lacks (no
/// `.go` file where its path points: code `go generate` or a tool such as `dagger develop`
/// writes, kept out of git), said as a doubt: what that code imports is unknown, so a
/// requirement nothing here imports may be its. A package of a module nested below
/// (`nested`) is that module's, not this one's.
fn absent_own_package(
    world: &World,
    m: &ModuleSource,
    module_path: &str,
    rec: &crate::store::ModuleRecord,
    nested: &dyn Fn(&str) -> bool,
) -> Option<String> {
    if module_path.is_empty() {
        return None;
    }
    let snap = world.loaded.snapshot.repo_of(m);
    let tree = snap.repo.find_tree(m.tree).ok()?;
    let mut seen = HashSet::new();
    // Every import, not only the uses: a module path without a dot (`dagger/mod`) reads as
    // the standard library's.
    let imports = rec
        .files
        .iter()
        .filter(|f| f.language == Language::Go)
        .flat_map(|f| f.imports.iter().map(move |imp| (f, imp)));
    for (f, imp) in imports {
        let Some(rel) = imp
            .name
            .strip_prefix(module_path)
            .and_then(|r| r.strip_prefix('/'))
        else {
            continue;
        };
        // A package of a module nested below (its own go.mod) is that module's.
        if !seen.insert(rel) || nested(&imp.name) {
            continue;
        }
        let has_go = match tree.lookup_entry_by_path(rel) {
            Ok(Some(e)) if e.mode().is_tree() => snap
                .repo
                .find_tree(e.object_id())
                .ok()
                .and_then(|t| source::file_names(snap, &t).ok())
                .is_some_and(|names| names.iter().any(|n| n.ends_with(".go"))),
            _ => false,
        };
        if !has_go {
            return Some(format!(
                "its code imports `{}` ({}:{}), a package of its own the repository lacks (generated, kept out of git): what that code imports is unknown",
                imp.name, f.path, imp.line
            ));
        }
    }
    None
}

/// The imports of the Go files of a module with no go.mod of its own, as uses of the go.mod
/// above it (a web UI's `embed.go` in a JS package): they use its requirements, but are never
/// undeclared there, as their own module checks them against it already.
pub(super) fn guest_uses(rec: &crate::store::ModuleRecord) -> Vec<Use<'_>> {
    rec.files
        .iter()
        .filter(|f| f.language == Language::Go)
        .flat_map(|f| {
            f.imports
                .iter()
                .filter(|imp| !stdlib::go(&imp.name))
                .map(move |imp| Use {
                    optional: true,
                    ..Use::plain(
                        Language::Go,
                        Cow::Borrowed(imp.name.as_str()),
                        f.kind.min(imp.kind),
                        &f.path,
                        imp.line,
                    )
                })
        })
        .collect()
}

/// The Go files of the module's `testdata/` packages that its code imports by path (a test
/// importing `…/internal/testdata` gets protobufs generated there): test data is not read
/// when the module is scanned, but the go command compiles a package imported by path, and
/// `go mod tidy` keeps what it imports. Each comes with its scan and the kind of the code
/// that imports it, followed through testdata packages importing others (8 at most). A file
/// that cannot be read is left out.
fn go_testdata_imports(
    world: &World,
    m: &ModuleSource,
    module_path: &str,
    uses: &[Use],
) -> Vec<(String, mesh_imports::FileScan, ImportKind)> {
    let mut out = Vec::new();
    if module_path.is_empty() {
        return out;
    }
    let mut todo: Vec<(String, ImportKind)> = uses
        .iter()
        .filter(|u| u.language == Language::Go && u.key.split('/').any(|p| p == "testdata"))
        .map(|u| (u.key.to_string(), u.kind))
        .collect();
    let mut seen = HashSet::new();
    let snap = world.loaded.snapshot.repo_of(m);
    let Ok(root) = snap.root_tree() else {
        return out;
    };
    while let Some((key, kind)) = todo.pop() {
        let Some(rel) = key
            .strip_prefix(module_path)
            .and_then(|r| r.strip_prefix('/'))
        else {
            continue;
        };
        if seen.len() >= 8 || !seen.insert(key.clone()) {
            continue;
        }
        let dir = source::join(&m.dir, rel);
        let Ok(Some(entry)) = root.lookup_entry_by_path(&dir) else {
            continue;
        };
        let Ok(tree) = snap.repo.find_tree(entry.object_id()) else {
            continue;
        };
        let names = source::file_names(snap, &tree).unwrap_or_default();
        for name in names {
            if !name.ends_with(".go") || name.ends_with("_test.go") {
                continue;
            }
            let Ok(Some(text)) = blob_text(snap, &tree, &name) else {
                continue;
            };
            let scan = mesh_imports::scan_file(Language::Go, &text);
            for imp in scan.imports.iter() {
                if imp.name.split('/').any(|p| p == "testdata") {
                    todo.push((imp.name.clone(), kind));
                }
            }
            out.push((source::join(&dir, &name), scan, kind));
        }
    }
    out
}
