//! Exports updated commit by commit against each commit's exact tree, half-made exports,
//! and exports in use.

use super::*;
use std::collections::BTreeMap;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "core.symlinks=true",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    out.stdout
}

/// A repository with a work tree, to commit into.
struct Repo {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    exports: PathBuf,
}

impl Repo {
    fn new() -> Repo {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("r");
        fs::create_dir(&dir).expect("mkdir");
        git(&dir, &["init", "-q", "-b", "main"]);
        let exports = tmp.path().join("exports");
        Repo {
            _tmp: tmp,
            dir,
            exports,
        }
    }
    fn write(&self, rel: &str, text: &str) {
        let p = self.dir.join(rel);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(p, text).expect("write");
    }
    fn commit(&self, msg: &str) {
        git(&self.dir, &["add", "-A"]);
        git(&self.dir, &["commit", "-q", "--allow-empty", "-m", msg]);
    }
    fn snapshot(&self) -> RepoSnapshot {
        let repo = gix::open(&self.dir).expect("open");
        let (commit, tree) = {
            let c = repo.head_commit().expect("head");
            (c.id, c.tree_id().expect("tree").detach())
        };
        RepoSnapshot {
            name: "r".into(),
            path: self.dir.clone(),
            commit,
            tree,
            repo,
            stale: None,
        }
    }
    fn export(&self) -> (Export, Made) {
        let snap = self.snapshot();
        let (e, made) = export_made(&snap, &self.exports).expect("export");
        assert_eq!(read_export(e.path()), tree_of(&self.dir, "HEAD"));
        (e, made)
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Entry {
    Dir,
    File { exec: bool, bytes: Vec<u8> },
    Link(Vec<u8>),
}

/// The tree of `rev` as git says it (a submodule is an empty directory in an export).
fn tree_of(dir: &Path, rev: &str) -> BTreeMap<Vec<u8>, Entry> {
    let out = git(dir, &["ls-tree", "-r", "-t", "-z", "--full-tree", rev]);
    let mut map = BTreeMap::new();
    for rec in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let tab = rec.iter().position(|b| *b == b'\t').expect("tab");
        let meta = String::from_utf8_lossy(&rec[..tab]).into_owned();
        let mut f = meta.split(' ');
        let (mode, _, oid) = (f.next().expect("mode"), f.next(), f.next().expect("oid"));
        let path = rec[tab + 1..].to_vec();
        let blob = || git(dir, &["cat-file", "blob", oid]);
        let e = match mode {
            "040000" | "160000" => Entry::Dir,
            "120000" => Entry::Link(blob()),
            "100755" => Entry::File {
                exec: true,
                bytes: blob(),
            },
            _ => Entry::File {
                exec: false,
                bytes: blob(),
            },
        };
        map.insert(path, e);
    }
    map
}

/// What an export holds; every file and directory must be read-only.
fn read_export(root: &Path) -> BTreeMap<Vec<u8>, Entry> {
    fn walk(root: &Path, dir: &Path, map: &mut BTreeMap<Vec<u8>, Entry>) {
        let m = fs::metadata(dir).expect("stat");
        assert_eq!(m.mode() & 0o222, 0, "{} is writable", dir.display());
        for e in fs::read_dir(dir).expect("read_dir") {
            let p = e.expect("entry").path();
            let rel = p
                .strip_prefix(root)
                .expect("under")
                .as_os_str()
                .as_bytes()
                .to_vec();
            let m = fs::symlink_metadata(&p).expect("lstat");
            if m.file_type().is_symlink() {
                let t = fs::read_link(&p).expect("readlink");
                map.insert(rel, Entry::Link(t.as_os_str().as_bytes().to_vec()));
            } else if m.is_dir() {
                map.insert(rel, Entry::Dir);
                walk(root, &p, map);
            } else {
                assert_eq!(m.mode() & 0o222, 0, "{} is writable", p.display());
                let exec = m.mode() & 0o111 != 0;
                map.insert(
                    rel,
                    Entry::File {
                        exec,
                        bytes: fs::read(&p).expect("read"),
                    },
                );
            }
        }
    }
    let mut map = BTreeMap::new();
    walk(root, root, &mut map);
    map
}

/// Waits until no one holds a lock under `exports`: a `git` that another test thread
/// forks holds our lock files between its fork and its exec (flock is inherited), and
/// a lock held even that long makes an export look in use.
fn settle(exports: &Path) {
    for e in fs::read_dir(exports).expect("exports").flatten() {
        if e.path().extension().is_some_and(|x| x == "lock") {
            for _ in 0..500 {
                if try_lock(&e.path()).expect("lock").is_some() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }
}

fn ino(p: &Path) -> u64 {
    fs::symlink_metadata(p).expect("stat").ino()
}

#[test]
fn an_export_updated_commit_by_commit_is_exactly_each_commits_tree() {
    let r = Repo::new();
    r.write("a/one.txt", "one\n");
    r.write("a/two.txt", "two\n");
    r.write("mods/x/mesh-module.toml", "name = \"x\"\n");
    r.write("mods/x/sub/deep.txt", "deep\n");
    r.write("mods/y/keep.txt", "untouched\n");
    r.write("run.sh", "#!/bin/sh\n");
    r.write("f", "a file\n");
    std::os::unix::fs::symlink("a/one.txt", r.dir.join("link")).expect("symlink");
    r.commit("first");
    let (first, made) = r.export();
    assert_eq!(made, Made::Written);
    let kept = ino(&first.path().join("mods/y/keep.txt"));
    drop(first);

    type Step = (&'static str, Box<dyn Fn(&Repo)>);
    let steps: Vec<Step> = vec![
        (
            "a rename",
            Box::new(|r| {
                git(&r.dir, &["mv", "a/one.txt", "a/uno.txt"]);
            }),
        ),
        (
            "a deleted module",
            Box::new(|r| {
                git(&r.dir, &["rm", "-rq", "mods/x"]);
            }),
        ),
        (
            "a mode change",
            Box::new(|r| {
                fs::set_permissions(r.dir.join("run.sh"), fs::Permissions::from_mode(0o755))
                    .expect("chmod");
            }),
        ),
        (
            "symlinks: a new one, a retargeted one, a file turned link",
            Box::new(|r| {
                fs::remove_file(r.dir.join("link")).expect("rm");
                std::os::unix::fs::symlink("a/uno.txt", r.dir.join("link")).expect("ln");
                std::os::unix::fs::symlink("mods", r.dir.join("link2")).expect("ln");
                fs::remove_file(r.dir.join("a/two.txt")).expect("rm");
                std::os::unix::fs::symlink("uno.txt", r.dir.join("a/two.txt")).expect("ln");
            }),
        ),
        (
            "a submodule entry",
            Box::new(|r| {
                let head = String::from_utf8(git(&r.dir, &["rev-parse", "HEAD"])).expect("utf8");
                let info = format!("160000,{},vendor/sub", head.trim());
                // An empty directory: a submodule not checked out, which `git add -A` keeps.
                fs::create_dir_all(r.dir.join("vendor/sub")).expect("mkdir");
                git(&r.dir, &["update-index", "--add", "--cacheinfo", &info]);
            }),
        ),
        (
            "a file turned directory",
            Box::new(|r| {
                fs::remove_file(r.dir.join("f")).expect("rm");
                r.write("f/inner.txt", "inner\n");
                r.write("f/deeper/x.txt", "x\n");
            }),
        ),
        (
            "the directory turned file again",
            Box::new(|r| {
                fs::remove_dir_all(r.dir.join("f")).expect("rm");
                r.write("f", "a file again\n");
            }),
        ),
        (
            "the submodule turned file, a link turned directory",
            Box::new(|r| {
                git(&r.dir, &["rm", "-q", "--cached", "vendor/sub"]);
                fs::remove_dir(r.dir.join("vendor/sub")).expect("rmdir");
                r.write("vendor/sub", "not a submodule\n");
                fs::remove_file(r.dir.join("link2")).expect("rm");
                r.write("link2/file.txt", "a directory now\n");
            }),
        ),
    ];
    for (what, step) in steps {
        step(&r);
        git(&r.dir, &["add", "-A"]);
        git(&r.dir, &["commit", "-q", "-m", what]);
        settle(&r.exports);
        let (e, made) = r.export();
        assert_eq!(made, Made::Updated, "{what}");
        assert_eq!(
            ino(&e.path().join("mods/y/keep.txt")),
            kept,
            "{what}: an unchanged file was written again"
        );
        // One export per repository stays: the earlier one was taken over.
        let dirs = fs::read_dir(&r.exports)
            .expect("exports")
            .flatten()
            .filter(|d| d.path().is_dir())
            .count();
        assert_eq!(dirs, 1, "{what}");
    }
}

#[test]
fn a_half_made_export_is_not_trusted_but_made_again() {
    let r = Repo::new();
    r.write("m/a.txt", "a\n");
    r.commit("first");
    drop(r.export());
    r.write("m/a.txt", "a, changed\n");
    r.commit("second");
    settle(&r.exports);
    let snap = r.snapshot();
    // What a run killed mid-export leaves: the directory, a stale file, no marker.
    let half = export_dir(&r.exports, "r", &snap.commit);
    fs::create_dir_all(half.join("m")).expect("mkdir");
    fs::write(half.join("m/a.txt"), "half").expect("write");
    fs::write(half.join("stray"), "not in the tree").expect("write");
    let (e, made) = r.export();
    assert_eq!(made, Made::Updated);
    assert_eq!(
        fs::read(e.path().join("m/a.txt")).expect("read"),
        b"a, changed\n"
    );
    drop(e);
    // A marker that names another tree is not trusted either.
    let names = Names::of(&half);
    fs::write(&names.marker, marker_text(&snap.commit, &snap.commit)).expect("write");
    make_writable(&half).expect("chmod");
    fs::write(half.join("stray"), "again").expect("write");
    let (_, made) = r.export();
    assert_eq!(made, Made::Written);
}

#[test]
fn an_export_in_use_is_neither_taken_over_nor_pruned() {
    let r = Repo::new();
    r.write("m/a.txt", "a\n");
    r.commit("first");
    let (held, _) = r.export();
    let before = read_export(held.path());
    r.write("m/a.txt", "b\n");
    r.commit("second");
    let (second, made) = r.export();
    assert_eq!(made, Made::Written, "the held export was taken over");
    assert_eq!(read_export(held.path()), before);
    prune(&r.exports, &[second.path().to_path_buf()]);
    assert_eq!(read_export(held.path()), before, "pruned while in use");
    let first = held.path().to_path_buf();
    drop(held);
    settle(&r.exports);
    prune(&r.exports, &[second.path().to_path_buf()]);
    assert!(!first.exists(), "an export no run holds stays after prune");
    // The export, its marker, its lock, and the flag of the run building in it (this one).
    let left: Vec<_> = fs::read_dir(&r.exports)
        .expect("exports")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 4, "{left:?}");
    drop(second);
    assert!(
        fs::read_dir(&r.exports)
            .expect("exports")
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().contains(".building-")),
        "the flag outlived the export's use"
    );
}

#[test]
fn what_was_written_into_an_export_is_found_and_put_back() {
    let r = Repo::new();
    r.write("a/keep.txt", "keep\n");
    r.write("a/clean.txt", "clean\n");
    r.write("b/gone.txt", "gone\n");
    r.write("c/deep/x.txt", "x\n");
    r.commit("one");
    let (e, _) = r.export();
    let snap = r.snapshot();
    let root = e.path().to_path_buf();
    // Nothing written: nothing found. (File times come from a clock that lags by a tick: a
    // second before now takes in the export's own making, which is its commit's tree.)
    let before = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
    assert_eq!(
        restore_written(&snap, &root, before).expect("check"),
        vec![]
    );
    // What a build running as root (or one that chmods first) can do.
    let open = |p: &Path| fs::set_permissions(p, fs::Permissions::from_mode(0o755)).expect("chmod");
    open(&root.join("a"));
    fs::set_permissions(root.join("a/clean.txt"), fs::Permissions::from_mode(0o644))
        .expect("chmod");
    fs::write(root.join("a/clean.txt"), "clean\ntampered\n").expect("append");
    fs::write(root.join("a/new.txt"), "new\n").expect("add");
    open(&root.join("b"));
    fs::remove_file(root.join("b/gone.txt")).expect("remove");
    make_writable(&root.join("c")).expect("chmod");
    fs::remove_dir_all(root.join("c/deep")).expect("remove a directory");
    let found = restore_written(&snap, &root, before).expect("check");
    let said: Vec<String> = found.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        said,
        [
            "changed a",
            "changed a/clean.txt",
            "added a/new.txt",
            "changed b",
            "removed b/gone.txt",
            "changed c",
            "removed c/deep",
        ]
    );
    assert_eq!(read_export(&root), tree_of(&r.dir, "HEAD"));
    // Put back: nothing is found any more.
    assert_eq!(
        restore_written(&snap, &root, before).expect("check"),
        vec![]
    );
}
