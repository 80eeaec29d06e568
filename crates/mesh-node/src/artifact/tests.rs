use super::*;
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::fs::symlink;

fn write(path: &Path, data: &[u8], mode: u32) {
    if let Some(p) = path.parent() {
        fs::create_dir_all(p).unwrap();
    }
    fs::write(path, data).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// A small tree with files, an executable, a nested and an empty directory and a link.
fn sample(root: &Path, file_mode: u32, exec_mode: u32) {
    fs::create_dir_all(root.join("empty")).unwrap();
    write(&root.join("lib/data.txt"), b"hello\n", file_mode);
    write(&root.join("bin/tool"), b"#!/bin/sh\necho hi\n", exec_mode);
    write(&root.join("a.b"), b"dot", file_mode);
    write(&root.join("z"), b"", file_mode);
    symlink("../lib/data.txt", root.join("bin/data")).unwrap();
}

fn pack_vec(dir: &Path) -> (Digest, u64, Vec<u8>) {
    let mut out = Vec::new();
    let (d, n) = pack(dir, &mut out).unwrap();
    assert_eq!(n, out.len() as u64);
    assert_eq!(d.as_str(), blake3::hash(&out).to_hex().as_str());
    (d, n, out)
}

fn mode_of(p: &Path) -> u32 {
    fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

#[test]
fn same_tree_same_bytes_whatever_mtimes_and_modes() {
    let t = tempfile::tempdir().unwrap();
    let a = t.path().join("a");
    sample(&a, 0o644, 0o755);
    let (d1, _, b1) = pack_vec(&a);
    let (d2, _, b2) = pack_vec(&a);
    assert_eq!(d1, d2);
    assert_eq!(b1, b2);

    let b = t.path().join("b");
    sample(&b, 0o600, 0o700);
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    for f in ["lib/data.txt", "bin/tool", "a.b", "z"] {
        File::options()
            .write(true)
            .open(b.join(f))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    fs::set_permissions(b.join("empty"), fs::Permissions::from_mode(0o700)).unwrap();
    let (d3, _, b3) = pack_vec(&b);
    assert_eq!(d1, d3);
    assert_eq!(b1, b3);
}

#[test]
fn entries_are_sorted_and_normalised() {
    let t = tempfile::tempdir().unwrap();
    sample(t.path(), 0o600, 0o700);
    let (_, _, bytes) = pack_vec(t.path());
    let mut ar = tar::Archive::new(&bytes[..]);
    let mut names = Vec::new();
    for e in ar.entries().unwrap() {
        let e = e.unwrap();
        let h = e.header();
        assert_eq!(h.mtime().unwrap(), 0);
        assert_eq!(h.uid().unwrap(), 0);
        assert_eq!(h.gid().unwrap(), 0);
        assert_eq!(h.username_bytes().unwrap_or_default(), b"");
        assert_eq!(h.groupname_bytes().unwrap_or_default(), b"");
        names.push(String::from_utf8(e.path_bytes().to_vec()).unwrap());
    }
    assert_eq!(
        names,
        [
            "a.b",
            "bin/",
            "bin/data",
            "bin/tool",
            "empty/",
            "lib/",
            "lib/data.txt",
            "z"
        ]
    );
}

#[test]
fn one_byte_changes_the_digest() {
    let t = tempfile::tempdir().unwrap();
    sample(t.path(), 0o644, 0o755);
    let (d1, _, _) = pack_vec(t.path());
    write(&t.path().join("lib/data.txt"), b"hellO\n", 0o644);
    let (d2, _, _) = pack_vec(t.path());
    assert_ne!(d1, d2);
}

#[test]
fn exec_bit_survives_and_modes_are_normalised() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    sample(&src, 0o600, 0o700);
    let (_, _, bytes) = pack_vec(&src);
    let dest = t.path().join("dest");
    unpack(&bytes[..], &dest).unwrap();
    assert_eq!(mode_of(&dest.join("bin/tool")), 0o755);
    assert_eq!(mode_of(&dest.join("lib/data.txt")), 0o644);
    assert_eq!(mode_of(&dest.join("empty")), 0o755);
    assert_eq!(mode_of(&dest), 0o755);
    assert_eq!(
        fs::read(dest.join("bin/tool")).unwrap(),
        b"#!/bin/sh\necho hi\n"
    );
    // And the unpacked tree packs to the same digest.
    assert_eq!(pack_vec(&src).0, pack_vec(&dest).0);
}

#[test]
fn inside_symlinks_round_trip() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    sample(&src, 0o644, 0o755);
    symlink(".", src.join("self")).unwrap();
    symlink("lib", src.join("lib2")).unwrap();
    let (_, _, bytes) = pack_vec(&src);
    let dest = t.path().join("dest");
    unpack(&bytes[..], &dest).unwrap();
    assert_eq!(
        fs::read_link(dest.join("bin/data")).unwrap(),
        Path::new("../lib/data.txt")
    );
    assert_eq!(fs::read(dest.join("bin/data")).unwrap(), b"hello\n");
    assert_eq!(fs::read_link(dest.join("self")).unwrap(), Path::new("."));
    assert_eq!(fs::read(dest.join("lib2/data.txt")).unwrap(), b"hello\n");
}

#[test]
fn out_of_tree_symlinks_refused_on_pack() {
    for (at, target) in [
        ("l", "/etc/passwd"),
        ("l", "../../x"),
        ("sub/l", "../../x"),
        ("l", ".."),
        ("sub/l", "../sub/../../x"),
    ] {
        let t = tempfile::tempdir().unwrap();
        fs::create_dir(t.path().join("sub")).unwrap();
        symlink(target, t.path().join(at)).unwrap();
        let err = pack(t.path(), &mut Vec::new()).unwrap_err();
        assert!(
            matches!(err, ArtifactError::LinkOutOfTree { .. }),
            "{at} -> {target}: {err}"
        );
    }
    // Chained links: each looks inside lexically, together they name the parent.
    let t = tempfile::tempdir().unwrap();
    symlink(".", t.path().join("s")).unwrap();
    symlink("s/..", t.path().join("t")).unwrap();
    let err = pack(t.path(), &mut Vec::new()).unwrap_err();
    assert!(matches!(err, ArtifactError::LinkOutOfTree { .. }), "{err}");
}

#[test]
fn special_files_refused_on_pack() {
    let t = tempfile::tempdir().unwrap();
    let _sock = std::os::unix::net::UnixListener::bind(t.path().join("sock")).unwrap();
    let err = pack(t.path(), &mut Vec::new()).unwrap_err();
    assert!(
        matches!(&err, ArtifactError::Unsupported { kind, .. } if kind == "socket"),
        "{err}"
    );
}

#[test]
fn empty_dir_round_trips() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    fs::create_dir(&src).unwrap();
    let (_, _, bytes) = pack_vec(&src);
    let dest = t.path().join("dest");
    unpack(&bytes[..], &dest).unwrap();
    assert!(dest.is_dir());
    assert_eq!(fs::read_dir(&dest).unwrap().count(), 0);
}

#[test]
fn long_paths_round_trip() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    let long_dir = "d".repeat(60);
    let rel = format!("{long_dir}/{long_dir}/{}.txt", "f".repeat(90));
    assert!(rel.len() > 100);
    write(&src.join(&rel), b"long", 0o644);
    let link_target = format!("{long_dir}/{long_dir}/{}.txt", "f".repeat(90));
    symlink(&link_target, src.join("link")).unwrap();
    let (_, _, bytes) = pack_vec(&src);
    let dest = t.path().join("dest");
    unpack(&bytes[..], &dest).unwrap();
    assert_eq!(fs::read(dest.join(&rel)).unwrap(), b"long");
    assert_eq!(fs::read(dest.join("link")).unwrap(), b"long");
    assert_eq!(pack_vec(&dest).0, pack_vec(&src).0);
}

/// Appends an entry with raw name and link name bytes (bypassing the tar crate's checks).
fn raw(b: &mut tar::Builder<Vec<u8>>, name: &[u8], kind: tar::EntryType, link: &[u8], data: &[u8]) {
    let mut h = tar::Header::new_gnu();
    {
        let gnu = h.as_gnu_mut().unwrap();
        gnu.name[..name.len()].copy_from_slice(name);
        gnu.linkname[..link.len()].copy_from_slice(link);
    }
    h.set_entry_type(kind);
    h.set_size(data.len() as u64);
    h.set_mode(0o644);
    h.set_mtime(0);
    h.set_uid(0);
    h.set_gid(0);
    h.set_cksum();
    b.append(&h, data).unwrap();
}

/// Runs `unpack` on a malicious tar and checks that it was refused with nothing left.
fn refused(bytes: &[u8], check: impl Fn(&ArtifactError) -> bool) {
    let t = tempfile::tempdir().unwrap();
    let work = t.path().join("work");
    fs::create_dir(&work).unwrap();
    let dest = work.join("dest");
    let err = unpack(bytes, &dest).unwrap_err();
    assert!(check(&err), "unexpected error: {err}");
    assert!(!dest.exists(), "dest left behind");
    assert_eq!(fs::read_dir(&work).unwrap().count(), 0, "temp left behind");
    assert_eq!(
        fs::read_dir(t.path()).unwrap().count(),
        1,
        "written outside"
    );
}

/// A tar with an honest file first, then `f` adds the malicious part.
fn evil(f: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    raw(&mut b, b"ok.txt", tar::EntryType::Regular, b"", b"fine");
    f(&mut b);
    b.into_inner().unwrap()
}

#[test]
fn unpack_refuses_malicious_paths() {
    let unsafe_path = |e: &ArtifactError| matches!(e, ArtifactError::UnsafePath { .. });
    for name in [&b"../evil"[..], b"a/../../evil", b"./../evil", b"a/.."] {
        let bytes = evil(|b| raw(b, name, tar::EntryType::Regular, b"", b"x"));
        refused(&bytes, unsafe_path);
    }

    let outside = tempfile::tempdir().unwrap();
    let sentinel = outside.path().join("abs-sentinel");
    let bytes = evil(|b| {
        raw(
            b,
            sentinel.as_os_str().as_bytes(),
            tar::EntryType::Regular,
            b"",
            b"x",
        )
    });
    refused(&bytes, unsafe_path);
    assert!(!sentinel.exists());

    // A `..` hidden in a GNU long name.
    let bytes = evil(|b| {
        let long = format!("{}/../../../evil", "x".repeat(120));
        raw(
            b,
            b"././@LongLink",
            tar::EntryType::GNULongName,
            b"",
            long.as_bytes(),
        );
        raw(b, b"placeholder", tar::EntryType::Regular, b"", b"x");
    });
    refused(&bytes, unsafe_path);
}

#[test]
fn unpack_refuses_writing_through_links() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().as_os_str().as_bytes().to_vec();
    let bytes = evil(|b| {
        raw(b, b"l", tar::EntryType::Symlink, &target, b"");
        raw(b, b"l/x", tar::EntryType::Regular, b"", b"pwned");
    });
    refused(&bytes, |e| matches!(e, ArtifactError::LinkOutOfTree { .. }));
    assert!(!outside.path().join("x").exists());
    let bytes = evil(|b| raw(b, b"l", tar::EntryType::Symlink, b"/tmp", b""));
    refused(&bytes, |e| matches!(e, ArtifactError::LinkOutOfTree { .. }));
    let bytes = evil(|b| raw(b, b"l", tar::EntryType::Symlink, b"../../outside", b""));
    refused(&bytes, |e| matches!(e, ArtifactError::LinkOutOfTree { .. }));

    // An inside link is still no way in for later entries.
    let bytes = evil(|b| {
        raw(b, b"sub/", tar::EntryType::Directory, b"", b"");
        raw(b, b"l", tar::EntryType::Symlink, b"sub", b"");
        raw(b, b"l/x", tar::EntryType::Regular, b"", b"x");
    });
    refused(&bytes, |e| matches!(e, ArtifactError::ThroughLink { .. }));

    // Chained links leaving the tree.
    let bytes = evil(|b| {
        raw(b, b"s", tar::EntryType::Symlink, b".", b"");
        raw(b, b"t", tar::EntryType::Symlink, b"s/..", b"");
    });
    refused(&bytes, |e| matches!(e, ArtifactError::LinkOutOfTree { .. }));

    // A link replacing a directory already written.
    let bytes = evil(|b| {
        raw(b, b"d/x", tar::EntryType::Regular, b"", b"x");
        raw(b, b"d", tar::EntryType::Symlink, b".", b"");
    });
    refused(&bytes, |e| matches!(e, ArtifactError::Malformed { .. }));
}

#[test]
fn unpack_refuses_special_entries_and_junk() {
    let unsupported = |e: &ArtifactError| matches!(e, ArtifactError::Unsupported { .. });
    let bytes = evil(|b| raw(b, b"h", tar::EntryType::Link, b"ok.txt", b""));
    refused(&bytes, unsupported);
    let bytes = evil(|b| raw(b, b"h", tar::EntryType::Link, b"/etc/passwd", b""));
    refused(&bytes, unsupported);
    let bytes = evil(|b| raw(b, b"dev", tar::EntryType::Char, b"", b""));
    refused(&bytes, unsupported);
    let bytes = evil(|b| raw(b, b"blk", tar::EntryType::Block, b"", b""));
    refused(&bytes, unsupported);
    let bytes = evil(|b| raw(b, b"fifo", tar::EntryType::Fifo, b"", b""));
    refused(&bytes, unsupported);
    let bytes = evil(|b| raw(b, b"ok.txt", tar::EntryType::Regular, b"", b"again"));
    refused(&bytes, |e| matches!(e, ArtifactError::Malformed { .. }));

    // Truncated and garbage input.
    let good = evil(|_| {});
    refused(&good[..700], |e| matches!(e, ArtifactError::Corrupt { .. }));
    refused(&[0xffu8; 1024], |e| {
        matches!(e, ArtifactError::Corrupt { .. })
    });
}

#[test]
fn unpack_refuses_existing_dest() {
    let t = tempfile::tempdir().unwrap();
    let bytes = evil(|_| {});
    let err = unpack(&bytes[..], t.path()).unwrap_err();
    assert!(matches!(err, ArtifactError::DestExists { .. }), "{err}");
}

#[test]
fn put_verified_checks_the_digest() {
    let t = tempfile::tempdir().unwrap();
    let store = ArtifactStore::new(t.path().join("artifacts"));
    let data = b"some artifact bytes";
    let wrong = blake3::hash(b"other").to_hex().to_string();
    let err = store.put_verified(&wrong, &mut &data[..]).unwrap_err();
    assert!(matches!(err, ArtifactError::DigestMismatch { .. }), "{err}");
    assert_eq!(fs::read_dir(t.path().join("artifacts")).unwrap().count(), 0);
    assert!(!store.contains(&wrong));

    let err = store.put_verified("../x", &mut &data[..]).unwrap_err();
    assert!(matches!(err, ArtifactError::InvalidDigest { .. }), "{err}");

    let right = blake3::hash(data).to_hex().to_string();
    assert_eq!(
        store.put_verified(&right, &mut &data[..]).unwrap(),
        data.len() as u64
    );
    assert!(store.contains(&right));
    assert_eq!(fs::read(store.path(&right)).unwrap(), data);
    assert_eq!(store.list().unwrap(), [Digest::parse(&right).unwrap()]);
}

#[test]
fn identical_trees_share_one_file() {
    let t = tempfile::tempdir().unwrap();
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    sample(&a, 0o644, 0o755);
    sample(&b, 0o600, 0o700);
    let store = ArtifactStore::new(t.path().join("artifacts"));
    let (d1, n1) = store.put_dir(&a).unwrap();
    let (d2, n2) = store.put_dir(&b).unwrap();
    assert_eq!((&d1, n1), (&d2, n2));
    assert_eq!(fs::read_dir(t.path().join("artifacts")).unwrap().count(), 1);
    assert_eq!(fs::metadata(store.path(&d1)).unwrap().len(), n1);

    // What the store holds unpacks to the tree.
    let dest = t.path().join("dest");
    unpack(File::open(store.path(&d1)).unwrap(), &dest).unwrap();
    assert_eq!(fs::read(dest.join("lib/data.txt")).unwrap(), b"hello\n");
}

#[test]
fn list_ignores_temp_and_other_files() {
    let t = tempfile::tempdir().unwrap();
    let store = ArtifactStore::new(t.path());
    assert!(store.list().unwrap().is_empty());
    let (d, _) = {
        let src = tempfile::tempdir().unwrap();
        sample(src.path(), 0o644, 0o755);
        store.put_dir(src.path()).unwrap()
    };
    let _tmp = tempfile::NamedTempFile::new_in(t.path()).unwrap();
    fs::write(t.path().join("notadigest"), b"").unwrap();
    fs::write(t.path().join(d.to_uppercase()), b"").unwrap();
    fs::create_dir(t.path().join("a".repeat(64))).unwrap();
    assert_eq!(store.list().unwrap(), [d]);
    assert!(
        ArtifactStore::new(t.path().join("missing"))
            .list()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn digest_validation() {
    assert!(is_digest(&"0a".repeat(32)));
    assert!(!is_digest(&"0A".repeat(32)));
    assert!(!is_digest(&"0a".repeat(31)));
    assert!(!is_digest(&"g".repeat(64)));
    assert!(!is_digest(""));
    assert!(!is_digest(&format!("../{}", "a".repeat(61))));
}
