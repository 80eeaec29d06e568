//! The Merkle trees the Remote Execution API names inputs and outputs by: every directory a
//! `Directory` message (its files, subdirectories and symlinks, each sorted by name), named by
//! the SHA-256 of its encoding; every file by the SHA-256 of its bytes. Two trees with the same
//! content have the same root digest whoever made them, which is what lets controllers share
//! builds.

use std::collections::HashMap;
use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use bazel_remote_apis::build::bazel::remote::execution::v2::{
    Digest, Directory, DirectoryNode, FileNode, SymlinkNode, Tree as TreeMessage,
};
use prost::Message;
use sha2::{Digest as _, Sha256};

/// A tree: its root directory's digest, and every blob it names by hash (each directory's
/// encoding, each file where it lies), what a client uploads.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// The root directory's digest.
    pub root: Digest,
    /// Every blob, by its hash.
    pub blobs: HashMap<String, Blob>,
}

/// One blob of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blob {
    /// A directory's encoding.
    Bytes(Vec<u8>),
    /// A file, and its size.
    File(PathBuf, u64),
}

/// The digest of `bytes`.
pub fn digest_of(bytes: &[u8]) -> Digest {
    Digest {
        hash: mesh_proto::keys::hex(&Sha256::digest(bytes)),
        size_bytes: bytes.len() as i64,
    }
}

/// The digest of what `reader` yields.
pub fn digest_reader(mut reader: impl Read) -> io::Result<Digest> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut size = 0i64;
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        size += n as i64;
    }
    Ok(Digest {
        hash: mesh_proto::keys::hex(&hasher.finalize()),
        size_bytes: size,
    })
}

/// The tree of the directory `dir` on disk: regular files (executable when any execute bit is
/// set), directories and symbolic links (their targets as written); anything else, or a name
/// that is not UTF-8, is an error that names it.
pub fn tree(dir: &Path) -> io::Result<Tree> {
    let mut blobs = HashMap::new();
    let root = directory(dir, &mut blobs)?;
    Ok(Tree { root, blobs })
}

/// The digest of `dir`'s Directory message, its blobs and its children's added to `blobs`.
fn directory(dir: &Path, blobs: &mut HashMap<String, Blob>) -> io::Result<Digest> {
    let mut d = Directory::default();
    let mut entries: Vec<(String, PathBuf)> = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().into_string().map_err(|n| {
            io::Error::other(format!(
                "{}: a name that is not UTF-8",
                dir.join(n).display()
            ))
        })?;
        entries.push((name, e.path()));
    }
    // REAPI's order: by name, as bytes.
    entries.sort();
    for (name, path) in entries {
        let meta = std::fs::symlink_metadata(&path)?;
        let kind = meta.file_type();
        if kind.is_symlink() {
            let target = std::fs::read_link(&path)?;
            let target = target.into_os_string().into_string().map_err(|_| {
                io::Error::other(format!(
                    "{}: a link target that is not UTF-8",
                    path.display()
                ))
            })?;
            d.symlinks.push(SymlinkNode {
                name,
                target,
                node_properties: None,
            });
        } else if kind.is_dir() {
            let digest = directory(&path, blobs)?;
            d.directories.push(DirectoryNode {
                name,
                digest: Some(digest),
            });
        } else if kind.is_file() {
            let digest = digest_reader(std::fs::File::open(&path)?)?;
            blobs.insert(
                digest.hash.clone(),
                Blob::File(path, digest.size_bytes as u64),
            );
            d.files.push(FileNode {
                name,
                digest: Some(digest),
                is_executable: meta.permissions().mode() & 0o111 != 0,
                node_properties: None,
            });
        } else {
            return Err(io::Error::other(format!(
                "{}: neither a file, a directory nor a symbolic link",
                path.display()
            )));
        }
    }
    let bytes = d.encode_to_vec();
    let digest = digest_of(&bytes);
    blobs.insert(digest.hash.clone(), Blob::Bytes(bytes));
    Ok(digest)
}

impl Tree {
    /// The tree as one REAPI `Tree` message (its root directory and every directory below,
    /// each once), what an `OutputDirectory` of an action result names; added to the blobs,
    /// its digest returned. Once per tree: afterwards the message is one of its blobs.
    pub fn as_message(&mut self) -> Digest {
        let decode = |b: &Blob| match b {
            Blob::Bytes(bytes) => Directory::decode(&bytes[..]).ok(),
            Blob::File(..) => None,
        };
        let root = self
            .blobs
            .get(&self.root.hash)
            .and_then(decode)
            .unwrap_or_default();
        let mut children: Vec<(&String, Directory)> = self
            .blobs
            .iter()
            .filter(|(hash, _)| **hash != self.root.hash)
            .filter_map(|(hash, b)| Some((hash, decode(b)?)))
            .collect();
        // A stable order: the message's digest is the same on every controller.
        children.sort_by(|a, b| a.0.cmp(b.0));
        let message = TreeMessage {
            root: Some(root),
            children: children.into_iter().map(|(_, d)| d).collect(),
        };
        let bytes = message.encode_to_vec();
        let digest = digest_of(&bytes);
        self.blobs.insert(digest.hash.clone(), Blob::Bytes(bytes));
        digest
    }
}

/// A tree whose root holds each of `children` as a directory of that name (sorted), and
/// nothing else: how an action's input root is assembled from the module's sources and its
/// inputs' artifacts.
pub fn join(children: Vec<(String, Tree)>) -> Tree {
    let mut children = children;
    children.sort_by(|a, b| a.0.cmp(&b.0));
    let mut blobs = HashMap::new();
    let mut d = Directory::default();
    for (name, t) in children {
        d.directories.push(DirectoryNode {
            name,
            digest: Some(t.root),
        });
        blobs.extend(t.blobs);
    }
    let bytes = d.encode_to_vec();
    let root = digest_of(&bytes);
    blobs.insert(root.hash.clone(), Blob::Bytes(bytes));
    Tree { root, blobs }
}

/// A tree put together from parts — files named by their digests wherever they lie, links,
/// and whole trees grafted under a name — how an action's input root is assembled from the
/// module's git tree (whose files need not be read when their digests are known) and its
/// inputs' artifacts.
#[derive(Debug, Default)]
pub struct Layout {
    root: Node,
    blobs: HashMap<String, Blob>,
}

/// One directory of a [`Layout`].
#[derive(Debug, Default)]
struct Node {
    dirs: std::collections::BTreeMap<String, Node>,
    files: std::collections::BTreeMap<String, FileNode>,
    links: std::collections::BTreeMap<String, String>,
    grafts: std::collections::BTreeMap<String, Digest>,
}

impl Layout {
    /// The directory at `path` (`/`-separated, made as needed) and the last name.
    fn parent<'a>(&mut self, path: &'a str) -> (&mut Node, &'a str) {
        let mut parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        let last = parts.pop().unwrap_or_default();
        let mut node = &mut self.root;
        for p in parts {
            node = node.dirs.entry(p.to_string()).or_default();
        }
        (node, last)
    }

    /// The file at `path`, its bytes found as `blob`.
    pub fn file(&mut self, path: &str, digest: Digest, executable: bool, blob: Blob) {
        self.blobs.insert(digest.hash.clone(), blob);
        let (dir, name) = self.parent(path);
        dir.files.insert(
            name.to_string(),
            FileNode {
                name: name.to_string(),
                digest: Some(digest),
                is_executable: executable,
                node_properties: None,
            },
        );
    }

    /// A symbolic link at `path` to `target`.
    pub fn link(&mut self, path: &str, target: String) {
        let (dir, name) = self.parent(path);
        dir.links.insert(name.to_string(), target);
    }

    /// The whole of `tree` as the directory `path`.
    pub fn graft(&mut self, path: &str, tree: Tree) {
        self.blobs.extend(tree.blobs);
        let (dir, name) = self.parent(path);
        dir.grafts.insert(name.to_string(), tree.root);
    }

    /// The tree laid out.
    pub fn finish(mut self) -> Tree {
        let root = Self::encode(std::mem::take(&mut self.root), &mut self.blobs);
        Tree {
            root,
            blobs: self.blobs,
        }
    }

    fn encode(node: Node, blobs: &mut HashMap<String, Blob>) -> Digest {
        let mut directories: Vec<DirectoryNode> = node
            .grafts
            .into_iter()
            .map(|(name, digest)| DirectoryNode {
                name,
                digest: Some(digest),
            })
            .collect();
        for (name, child) in node.dirs {
            let digest = Self::encode(child, blobs);
            directories.push(DirectoryNode {
                name,
                digest: Some(digest),
            });
        }
        directories.sort_by(|a, b| a.name.cmp(&b.name));
        let d = Directory {
            files: node.files.into_values().collect(),
            directories,
            symlinks: node
                .links
                .into_iter()
                .map(|(name, target)| SymlinkNode {
                    name,
                    target,
                    node_properties: None,
                })
                .collect(),
            node_properties: None,
        };
        let bytes = d.encode_to_vec();
        let digest = digest_of(&bytes);
        blobs.insert(digest.hash.clone(), Blob::Bytes(bytes));
        digest
    }
}

/// Writes the tree `message` names into `dest` (which must not exist), its files' bytes from
/// `blobs` (by hash, already checked against their digests). A name that is not one plain
/// path component, a directory the message lacks or a blob not given is an error: the tree
/// came from elsewhere.
pub fn materialize(
    message: &TreeMessage,
    blobs: &HashMap<String, Vec<u8>>,
    dest: &Path,
) -> io::Result<()> {
    let children: HashMap<String, &Directory> = message
        .children
        .iter()
        .map(|d| (digest_of(&d.encode_to_vec()).hash, d))
        .collect();
    let root = message
        .root
        .as_ref()
        .ok_or_else(|| io::Error::other("the tree has no root"))?;
    let mut budget = MAX_ENTRIES;
    write_dir(root, &children, blobs, dest, 0, &mut budget)
}

/// The most entries a tree from elsewhere may write (a directory listed under many names, level
/// after level, would otherwise write without end).
const MAX_ENTRIES: usize = 1_000_000;

/// The file digests a tree message names, each once: what must be read to materialize it.
pub fn files_of(message: &TreeMessage) -> Vec<Digest> {
    let mut out: Vec<Digest> = message
        .root
        .iter()
        .chain(message.children.iter())
        .flat_map(|d| d.files.iter().filter_map(|f| f.digest.clone()))
        .collect();
    out.sort_by(|a, b| a.hash.cmp(&b.hash));
    out.dedup_by(|a, b| a.hash == b.hash);
    out
}

/// A directory of a tree message written at `at`.
fn write_dir(
    d: &Directory,
    children: &HashMap<String, &Directory>,
    blobs: &HashMap<String, Vec<u8>>,
    at: &Path,
    depth: usize,
    budget: &mut usize,
) -> io::Result<()> {
    if depth > 256 {
        return Err(io::Error::other("the tree is deeper than 256 directories"));
    }
    let entries = d.files.len() + d.symlinks.len() + d.directories.len();
    *budget = budget
        .checked_sub(entries)
        .ok_or_else(|| io::Error::other(format!("the tree has more than {MAX_ENTRIES} entries")))?;
    std::fs::create_dir(at)?;
    let plain = |name: &str| -> io::Result<PathBuf> {
        match name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
            true => Err(io::Error::other(format!("{name:?} is not a file name"))),
            false => Ok(at.join(name)),
        }
    };
    for f in &d.files {
        let hash = f
            .digest
            .as_ref()
            .map(|d| d.hash.as_str())
            .unwrap_or_default();
        let bytes = blobs
            .get(hash)
            .ok_or_else(|| io::Error::other(format!("blob {hash} was not read")))?;
        let path = plain(&f.name)?;
        std::fs::write(&path, bytes)?;
        let mode = if f.is_executable { 0o755 } else { 0o644 };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
    }
    for l in &d.symlinks {
        std::os::unix::fs::symlink(&l.target, plain(&l.name)?)?;
    }
    for sub in &d.directories {
        let hash = sub
            .digest
            .as_ref()
            .map(|d| d.hash.as_str())
            .unwrap_or_default();
        let child = children
            .get(hash)
            .ok_or_else(|| io::Error::other(format!("directory {hash} is not in the tree")))?;
        write_dir(
            child,
            children,
            blobs,
            &plain(&sub.name)?,
            depth + 1,
            budget,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SHA-256 of nothing: the digest of an empty directory (its message encodes to no bytes).
    const EMPTY: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    fn write(root: &Path, rel: &str, text: &str, mode: u32) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn an_empty_directory_and_a_file_have_the_digests_every_client_computes() {
        let t = tempfile::tempdir().unwrap();
        let empty = tree(t.path()).unwrap();
        assert_eq!(
            (empty.root.hash.as_str(), empty.root.size_bytes),
            (EMPTY, 0)
        );
        write(t.path(), "a", "hello", 0o644);
        let one = tree(t.path()).unwrap();
        let file = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
        assert_eq!(
            one.blobs.get(file),
            Some(&Blob::File(t.path().join("a"), 5))
        );
        let d = match one.blobs.get(&one.root.hash) {
            Some(Blob::Bytes(b)) => Directory::decode(&b[..]).unwrap(),
            other => panic!("{other:?}"),
        };
        assert_eq!(d.files[0].name, "a");
        assert_eq!(d.files[0].digest.as_ref().unwrap().hash, file);
    }

    #[test]
    fn the_same_content_is_the_same_root_and_any_change_is_another() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        // Made in another order: the same tree.
        for (rel, text) in [("z/y", "1"), ("b", "2"), ("a/c", "3")] {
            write(a.path(), rel, text, 0o644);
        }
        for (rel, text) in [("a/c", "3"), ("b", "2"), ("z/y", "1")] {
            write(b.path(), rel, text, 0o644);
        }
        let root = tree(a.path()).unwrap().root;
        assert_eq!(root, tree(b.path()).unwrap().root);
        // Executable is part of it; so is a link's target.
        write(b.path(), "b", "2", 0o755);
        let exec = tree(b.path()).unwrap().root;
        assert_ne!(root, exec);
        std::os::unix::fs::symlink("b", b.path().join("l")).unwrap();
        assert_ne!(exec, tree(b.path()).unwrap().root);
        // Every directory's encoding and every file is a blob: 3 dirs, 3 files (+ none twice).
        assert_eq!(tree(a.path()).unwrap().blobs.len(), 6);
    }

    #[test]
    fn a_joined_root_holds_its_children_under_their_names() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        write(a.path(), "x", "1", 0o644);
        write(b.path(), "y", "2", 0o644);
        let joined = join(vec![
            ("src".into(), tree(a.path()).unwrap()),
            ("deps".into(), tree(b.path()).unwrap()),
        ]);
        let d = match joined.blobs.get(&joined.root.hash) {
            Some(Blob::Bytes(b)) => Directory::decode(&b[..]).unwrap(),
            other => panic!("{other:?}"),
        };
        let names: Vec<&str> = d.directories.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["deps", "src"], "sorted");
        assert_eq!(joined.blobs.len(), 5);
    }

    #[test]
    fn a_layout_is_the_tree_of_the_same_files_on_disk_and_comes_back_whole() {
        let t = tempfile::tempdir().unwrap();
        write(t.path(), "src/a.rs", "fn a() {}", 0o644);
        write(t.path(), "run", "#!/bin/sh", 0o755);
        write(t.path(), "dep/lib.so", "lib", 0o644);
        std::os::unix::fs::symlink("run", t.path().join("start")).unwrap();
        let on_disk = tree(t.path()).unwrap();
        let mut l = Layout::default();
        for (rel, text, exec) in [("src/a.rs", "fn a() {}", false), ("run", "#!/bin/sh", true)] {
            let d = digest_of(text.as_bytes());
            l.file(rel, d, exec, Blob::Bytes(text.as_bytes().to_vec()));
        }
        l.link("start", "run".into());
        l.graft("dep", tree(&t.path().join("dep")).unwrap());
        let mut laid = l.finish();
        assert_eq!(laid.root, on_disk.root);

        let message_digest = laid.as_message();
        let message = match laid.blobs.get(&message_digest.hash) {
            Some(Blob::Bytes(b)) => TreeMessage::decode(&b[..]).unwrap(),
            other => panic!("{other:?}"),
        };
        let blobs: HashMap<String, Vec<u8>> = files_of(&message)
            .iter()
            .map(|d| match laid.blobs.get(&d.hash) {
                Some(Blob::Bytes(b)) => (d.hash.clone(), b.clone()),
                Some(Blob::File(p, _)) => (d.hash.clone(), std::fs::read(p).unwrap()),
                None => panic!("{d:?}"),
            })
            .collect();
        let back = tempfile::tempdir().unwrap();
        let dest = back.path().join("out");
        materialize(&message, &blobs, &dest).unwrap();
        assert_eq!(tree(&dest).unwrap().root, on_disk.root, "the same tree");

        // A name that climbs out is refused.
        let mut evil = message.clone();
        evil.root.as_mut().unwrap().files[0].name = "../x".into();
        let e = materialize(&evil, &blobs, &back.path().join("evil")).unwrap_err();
        assert!(e.to_string().contains("not a file name"), "{e}");
    }
}
