//! The artifact unpacker (`mesh_node::artifact::unpack`): the input as an artifact tar,
//! unpacked into a fresh directory beside a sentinel directory it must never reach.
//!
//! Properties: no panic; nothing is written outside the destination (whatever the paths and
//! links of the tar); on an error nothing is left behind (not even the temp directory); on
//! success the tree holds only directories, files and links, and every link, followed as far
//! as the file system goes, stays inside it.
#![no_main]

use std::os::unix::fs::PermissionsExt;

use libfuzzer_sys::fuzz_target;
use mesh_fuzz::Fence;

fuzz_target!(|data: &[u8]| {
    let fence = Fence::new();
    let dest = fence.inside.clone();
    let result = mesh_node::artifact::unpack(data, &dest);
    fence.check();
    let work = dest.parent().expect("the destination has a parent");
    let left: Vec<_> = std::fs::read_dir(work)
        .expect("the work directory reads")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    match result {
        Err(_) => assert!(left.is_empty(), "a failed unpack leaves nothing: {left:?}"),
        Ok(()) => {
            assert_eq!(
                left,
                [std::ffi::OsString::from("inside")],
                "only the destination"
            );
            let real = std::fs::canonicalize(&dest).expect("the destination exists");
            for (rel, kind) in mesh_fuzz::listing(&dest) {
                let path = dest.join(&rel);
                match kind {
                    "link" => {
                        let to = mesh_fuzz::resolve(&path);
                        assert!(
                            to.as_ref().is_none_or(|to| to.starts_with(&real)),
                            "link {} leads out of the artifact to {to:?}",
                            rel.display()
                        );
                    }
                    "dir" | "file" => {
                        let mode = std::fs::symlink_metadata(&path)
                            .expect("an entry reads")
                            .permissions()
                            .mode()
                            & 0o7777;
                        assert!(
                            matches!(mode, 0o755 | 0o644),
                            "{} has mode {mode:o}",
                            rel.display()
                        );
                    }
                    other => panic!("{} is a {other}", rel.display()),
                }
            }
        }
    }
});
