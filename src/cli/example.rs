//! `mesh init --example`: a complete demo mesh in an empty directory.
//!
//! The demo is `fixtures/example/` (embedded in the binary), committed on `main` in a fresh git
//! repository `platform/` made with gix, beside a commented `mesh.toml` with three `local` nodes.
//! Every build, test and activate command in it is plain shell, so no toolchain is needed.

use gix::ObjectId;
use gix::objs::tree::{Entry, EntryKind};
use mesh::config::MESH_TOML;
use mesh::{Error, Result};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// One file of the demo repository.
pub struct ExampleFile {
    /// The path inside the repository, `/`-separated.
    pub path: &'static str,
    /// The file's content.
    pub bytes: &'static [u8],
    /// Whether it is committed (and written) executable.
    pub executable: bool,
}

/// An [`ExampleFile`] from `fixtures/example/<path>`.
macro_rules! fixture {
    ($path:literal) => {
        fixture!($path, false)
    };
    ($path:literal, $executable:literal) => {
        ExampleFile {
            path: $path,
            bytes: include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/fixtures/example/",
                $path
            )),
            executable: $executable,
        }
    };
}

/// Every file of `fixtures/example/`: the demo repository's first commit.
///
/// A test compares this list with the fixture directory, so a file added there must be added here.
pub const FILES: &[ExampleFile] = &[
    fixture!("README.md"),
    fixture!("go/go.mod"),
    fixture!("go/internal/logx/log.go"),
    fixture!("go/lib/geo/geo.go"),
    fixture!("go/lib/geo/mesh-module.toml"),
    fixture!("go/mesh-module.toml"),
    fixture!("go/services/resolver/main.go"),
    fixture!("go/services/resolver/mesh-module.toml"),
    fixture!("go/services/route-proxy/main.go"),
    fixture!("go/services/route-proxy/mesh-module.toml"),
    fixture!("python/common/mesh-module.toml"),
    fixture!("python/common/mesh_common/__init__.py"),
    fixture!("python/common/pyproject.toml"),
    fixture!("python/reporter/mesh-module.toml"),
    fixture!("python/reporter/pyproject.toml"),
    fixture!("python/reporter/reporter/__init__.py"),
    fixture!("python/reporter/reporter/app.py"),
    fixture!("python/reporter/schema.json"),
    fixture!("rust/core/Cargo.toml"),
    fixture!("rust/core/mesh-module.toml"),
    fixture!("rust/core/src/lib.rs"),
    fixture!("rust/inventory/Cargo.toml"),
    fixture!("rust/inventory/mesh-module.toml"),
    fixture!("rust/inventory/src/main.rs"),
    fixture!("ts/dashboard/mesh-module.toml"),
    fixture!("ts/dashboard/package.json"),
    fixture!("ts/dashboard/src/app.ts"),
    fixture!("ts/ui-kit/button.ts"),
    fixture!("ts/ui-kit/index.ts"),
    fixture!("ts/ui-kit/mesh-module.toml"),
    fixture!("ts/ui-kit/package.json"),
];

/// The repository's directory (and name in the mesh).
pub const REPO: &str = "platform";

/// The branch the demo repository is committed on, and the ref the mesh reads.
const BRANCH: &str = "refs/heads/main";

/// The demo's `mesh.toml`.
pub const EXAMPLE_MESH_TOML: &str = r#"# mesh.toml of the demo mesh made by `mesh init --example`.
# Every field is described in mesh's README.md ("Configuration").
#
# Deliver everything:   mesh reconcile && mesh status
# Then change a module: edit a file under platform/, commit it with git, and run
# `mesh reconcile` again: only what moved is rebuilt, only the nodes running it are sent anything.

[mesh]
name = "demo"

# The demo repository: modules in Go, Rust, Python and TypeScript (platform/README.md).
# Build edges are read from their imports (`mesh graph`); the builds are plain shell.
# mesh reads the commit at `ref`, never the work tree: commit what you change.
[[repo]]
name = "platform"
path = "platform"
ref  = "refs/heads/main"

# Three nodes that are directories on this machine: the same protocol as ssh nodes, no ssh.
# What a node runs lands in <root>/modules/<module>/current.
[node.edge-1]
transport = "local"
root      = "nodes/edge-1"
tags      = ["edge"]

[node.edge-2]
transport = "local"
root      = "nodes/edge-2"
tags      = ["edge"]

[node.lab]
transport = "local"
root      = "nodes/lab"

# Which modules run where: node names, or @tag for every node with that tag.
# Libraries (go-platform, geo, rust-core, py-common, ui-kit) are built and judged, never assigned.
[assign]
route-proxy = ["@edge"]   # needs resolver on the same node (a presence edge)
resolver    = ["@edge"]
dashboard   = ["lab"]     # needs route-proxy on some node (an instantiation edge)
reporter    = ["lab"]
# inventory has policy = "hold": assign it, then `mesh declare inventory` picks the build it runs;
# until then its node is not worked out.
# inventory = ["lab"]
"#;

/// Makes the demo mesh in `dir`, which must not exist or be empty.
///
/// Writes `dir/mesh.toml` and `dir/platform/` (a git repository whose `main` holds [`FILES`],
/// checked out). If anything fails, what was written is removed again.
pub fn create(dir: &Path) -> Result<()> {
    let existed = check_empty(dir)?;
    let made = write_all(dir);
    if made.is_err() {
        undo(dir, existed);
    }
    made
}

/// Whether `dir` exists (empty); an error if it is not an empty directory.
fn check_empty(dir: &Path) -> Result<bool> {
    let free = free_name(dir);
    let free = free.display().to_string();
    let help = format!(
        "`mesh init --example` writes only into a new or empty directory: \
         name one that does not exist yet, e.g. `mesh init --example {}`",
        shlex::try_quote(&free).unwrap_or_else(|_| free.as_str().into())
    );
    match fs::read_dir(dir) {
        Ok(mut entries) => match entries.next() {
            None => Ok(true),
            Some(_) => Err(Error::failed(
                format!("{} is not empty", dir.display()),
                help.clone(),
            )),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(_) if !dir.is_dir() => Err(Error::failed(
            format!("{} exists and is not a directory", dir.display()),
            help,
        )),
        Err(e) => Err(Error::io(
            format!("cannot read {}", dir.display()),
            e,
            "choose a directory you can write to",
        )),
    }
}

/// A directory beside `dir` that does not exist yet, to suggest instead: `demo` (or `dir`'s own
/// name) with the first free `-2`, `-3`… after it.
fn free_name(dir: &Path) -> std::path::PathBuf {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new(""));
    let base = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "demo".to_string());
    (1..1000)
        .map(|i| match i {
            1 => base.clone(),
            i => format!("{base}-{i}"),
        })
        .map(|name| parent.join(name))
        .find(|p| !p.exists())
        .unwrap_or_else(|| parent.join("mesh-demo"))
}

/// Removes what [`write_all`] wrote (best effort: it runs after an error already reported).
fn undo(dir: &Path, existed: bool) {
    if !existed {
        let _ = fs::remove_dir_all(dir);
        return;
    }
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            let _ = if p.is_dir() && !p.is_symlink() {
                fs::remove_dir_all(&p)
            } else {
                fs::remove_file(&p)
            };
        }
    }
}

fn write_all(dir: &Path) -> Result<()> {
    let repo_dir = dir.join(REPO);
    let repo = gix::init(&repo_dir).map_err(git_error(&repo_dir))?;
    commit(&repo).map_err(git_error(&repo_dir))?;
    for f in FILES {
        write_file(&repo_dir.join(f.path), f.bytes, f.executable)?;
    }
    write_index(&repo, &repo_dir)?;
    write_file(&dir.join(MESH_TOML), EXAMPLE_MESH_TOML.as_bytes(), false)
}

fn git_error<E: std::fmt::Display>(repo_dir: &Path) -> impl Fn(E) -> Error + '_ {
    move |e| {
        Error::failed(
            format!("cannot make the git repository {}: {e}", repo_dir.display()),
            "check that the directory is writable and its file system supports git",
        )
    }
}

/// A directory of the commit being written: name → file (blob id, executable) or directory.
#[derive(Default)]
struct Dir<'a> {
    files: BTreeMap<&'a str, (ObjectId, bool)>,
    dirs: BTreeMap<&'a str, Dir<'a>>,
}

/// Writes [`FILES`] as blobs and trees, commits them on [`BRANCH`] and points `HEAD` at it.
fn commit(repo: &gix::Repository) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let mut root = Dir::default();
    for f in FILES {
        let id = repo.write_blob(f.bytes)?.detach();
        let mut parts: Vec<&str> = f.path.split('/').collect();
        let name = parts.pop().ok_or("an empty path")?;
        let mut d = &mut root;
        for p in parts {
            d = d.dirs.entry(p).or_default();
        }
        d.files.insert(name, (id, f.executable));
    }
    let tree = write_tree(repo, &root)?;

    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let time = format!("{seconds} +0000");
    let mesh = gix::actor::SignatureRef {
        name: "mesh".into(),
        email: "mesh@example.org".into(),
        time: &time,
    };
    repo.commit_as(
        mesh,
        mesh,
        BRANCH,
        "The example platform, made by `mesh init --example`",
        tree,
        None::<ObjectId>,
    )?;

    // HEAD names main whatever the user's init.defaultBranch says.
    use gix::refs::transaction::{PreviousValue, RefEdit};
    let branch: gix::refs::FullName = BRANCH.try_into()?;
    repo.edit_references_as(
        Some(RefEdit::update(
            "HEAD".try_into()?,
            branch,
            PreviousValue::Any,
            "mesh init --example",
        )),
        Some(mesh),
    )?;
    Ok(())
}

fn write_tree(
    repo: &gix::Repository,
    dir: &Dir<'_>,
) -> std::result::Result<ObjectId, Box<dyn std::error::Error>> {
    let mut entries = Vec::new();
    for (name, (id, executable)) in &dir.files {
        let kind = if *executable {
            EntryKind::BlobExecutable
        } else {
            EntryKind::Blob
        };
        entries.push(Entry {
            mode: kind.into(),
            filename: (*name).into(),
            oid: *id,
        });
    }
    for (name, sub) in &dir.dirs {
        entries.push(Entry {
            mode: EntryKind::Tree.into(),
            filename: (*name).into(),
            oid: write_tree(repo, sub)?,
        });
    }
    entries.sort();
    Ok(repo.write_object(&gix::objs::Tree { entries })?.detach())
}

fn write_file(path: &Path, bytes: &[u8], executable: bool) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let fail = |e| {
        Error::io(
            format!("cannot write {}", path.display()),
            e,
            "choose a directory you can write to",
        )
    };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(fail)?;
    }
    fs::write(path, bytes).map_err(fail)?;
    let mode = if executable { 0o755 } else { 0o644 };
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).map_err(fail)
}

/// Writes `.git/index` (version 2) for the checked-out [`FILES`], so that `git status` in the
/// work tree is clean and `git commit -a` commits an edit rather than an empty tree.
fn write_index(repo: &gix::Repository, repo_dir: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let mut files: Vec<&ExampleFile> = FILES.iter().collect();
    files.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));

    let mut out = Vec::new();
    out.extend_from_slice(b"DIRC");
    out.extend_from_slice(&2u32.to_be_bytes());
    out.extend_from_slice(&(files.len() as u32).to_be_bytes());
    for f in files {
        let path = repo_dir.join(f.path);
        let meta = fs::metadata(&path).map_err(|e| {
            Error::io(
                format!("cannot read {}", path.display()),
                e,
                "choose a directory you can write to",
            )
        })?;
        let id = gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Blob, f.bytes)
            .map_err(git_error(repo_dir))?;
        let mode: u32 = if f.executable { 0o100755 } else { 0o100644 };
        let start = out.len();
        // Stat data, truncated to 32 bits as git does; git re-reads a file whose stat moved.
        for v in [
            meta.ctime() as u32,
            meta.ctime_nsec() as u32,
            meta.mtime() as u32,
            meta.mtime_nsec() as u32,
            meta.dev() as u32,
            meta.ino() as u32,
            mode,
            meta.uid(),
            meta.gid(),
            meta.size() as u32,
        ] {
            out.extend_from_slice(&v.to_be_bytes());
        }
        out.extend_from_slice(id.as_bytes());
        let name_len = f.path.len().min(0xfff) as u16;
        out.extend_from_slice(&name_len.to_be_bytes());
        out.extend_from_slice(f.path.as_bytes());
        // One to eight NULs, so that each entry's length is a multiple of eight.
        let pad = 8 - (out.len() - start) % 8;
        out.resize(out.len() + pad, 0);
    }
    let mut hasher = gix::hash::hasher(repo.object_hash());
    hasher.update(&out);
    let checksum = hasher.try_finalize().map_err(git_error(repo_dir))?;
    out.extend_from_slice(checksum.as_bytes());
    write_file(&repo.git_dir().join("index"), &out, false)
}
