//! What the controller decodes from a remote-execution engine (`src/remote`): an
//! `ActionResult` (from the action cache or an `ExecuteResponse`) read for the digests it is
//! taken by (`mesh::fuzzing::remote_result`); the signature file a result carries
//! (`mesh::remote::sign::verify`); and a `Tree` message of outputs written out by
//! `mesh::remote::merkle::materialize`, then packed as the controller packs it.
//!
//! The input is parts separated by 0xff: flags, the `ExecuteResponse` or `ActionResult`
//! bytes, the signature file, the `Tree` message, the files' bytes. One flag bit makes the
//! tree's directory digests right (each directory named by the digest of a later one), so
//! that the writer goes past the first level; another signs the vouch with the fixed key and
//! changes one byte of it.
//!
//! Properties: no panic; logs read from the cache are within bounds; a signature verifies
//! only for what was signed, by a trusted key, and a changed one never does; materialize
//! writes nothing outside its directory, and what it wrote packs and unpacks to the same
//! tree.
#![no_main]

use std::collections::HashMap;

use bazel_remote_apis::build::bazel::remote::execution::v2::{
    Digest, Directory, ExecuteResponse, Tree,
};
use libfuzzer_sys::fuzz_target;
use mesh::remote::{merkle, sign};
use mesh_fuzz::{Fence, Input, SEP};
use prost::Message;

/// How many entries writing `d` would make, at most `cap` (a tree that names a directory
/// under many names, level after level, is bounded by `MAX_ENTRIES` in the writer; the
/// target does not spend its time writing a million of them).
fn entries(
    d: &Directory,
    children: &HashMap<String, &Directory>,
    depth: usize,
    cap: usize,
) -> usize {
    let mut n = d.files.len() + d.symlinks.len() + d.directories.len();
    if depth > 256 {
        return n;
    }
    for sub in &d.directories {
        if n > cap {
            break;
        }
        let hash = sub
            .digest
            .as_ref()
            .map(|d| d.hash.as_str())
            .unwrap_or_default();
        if let Some(child) = children.get(hash) {
            n += entries(child, children, depth + 1, cap - n.min(cap));
        }
    }
    n
}

/// Each directory node named by the digest of a later child (the last ones name none), the
/// root's by any child: a tree whose digests hold, chosen by the names.
fn make_digests_right(tree: &mut Tree) {
    let n = tree.children.len();
    let pick = |name: &str, from: usize| -> Option<usize> {
        (from < n).then(|| from + blake3::hash(name.as_bytes()).as_bytes()[0] as usize % (n - from))
    };
    for k in (0..n).rev() {
        let later: Vec<Digest> = tree
            .children
            .iter()
            .map(|c| merkle::digest_of(&c.encode_to_vec()))
            .collect();
        for node in &mut tree.children[k].directories {
            if let Some(j) = pick(&node.name, k + 1) {
                node.digest = Some(later[j].clone());
            }
        }
    }
    let digests: Vec<Digest> = tree
        .children
        .iter()
        .map(|c| merkle::digest_of(&c.encode_to_vec()))
        .collect();
    if let Some(root) = tree.root.as_mut() {
        for node in &mut root.directories {
            if let Some(j) = pick(&node.name, 0) {
                node.digest = Some(digests[j].clone());
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let flags = input.byte();
    let result_bytes = input.until(SEP);
    let signature = input.until(SEP);
    let tree_bytes = input.until(SEP);
    let file_bytes = input.rest();

    // The result, as the cache answers it or inside an execution's response.
    let result = match flags & 1 {
        0 => mesh::fuzzing::remote_result(result_bytes),
        _ => match ExecuteResponse::decode(result_bytes) {
            Ok(r) => mesh::fuzzing::remote_result(&r.result.unwrap_or_default().encode_to_vec()),
            Err(e) => Err(e.to_string()),
        },
    };
    let tree_digest = merkle::digest_of(tree_bytes);
    let action = merkle::digest_of(b"action");
    let me = mesh_fuzz::controller();
    let trusted = [me.signer()];
    if let Ok(r) = &result {
        for log in &r.logs {
            assert!(log.size_bytes > 0 && log.size_bytes <= 4 << 20, "{log:?}");
        }
        let log = r.logs.first();
        if let Ok((signer, _)) = sign::verify(signature, &action, &tree_digest, log, &trusted) {
            assert_eq!(signer.key, me.public(), "only a trusted key vouches");
        }
    }

    // A vouch signed with the fixed key, one byte changed.
    if flags & 2 != 0 {
        let vouch = sign::Vouch {
            action: action.clone(),
            tree: tree_digest.clone(),
            artifact: (
                blake3::hash(file_bytes).to_hex().to_string(),
                file_bytes.len() as u64,
            ),
            log: None,
        };
        let mut file = vouch.sign(&me);
        assert!(sign::verify(&file, &action, &tree_digest, None, &trusted).is_ok());
        // The name is for people and not signed: only its bytes may change and still verify.
        let text = String::from_utf8_lossy(&file).into_owned();
        let name_at = text.find("\nname ").map_or(0, |i| i + "\nname ".len());
        let name_end = name_at + text[name_at..].find('\n').unwrap_or(0);
        let at = signature
            .first()
            .map_or(0, |b| usize::from(*b) * 7 + signature.len())
            % file.len();
        let to = signature.get(1).copied().unwrap_or(b'0');
        file[at] = if file[at] == to { to ^ 0x20 } else { to };
        if let Ok((_, artifact)) = sign::verify(&file, &action, &tree_digest, None, &trusted) {
            assert_eq!(artifact, vouch.artifact);
            assert!(
                (name_at..name_end).contains(&at),
                "byte {at} changed to {to:?} and the signature file still verifies: {}",
                String::from_utf8_lossy(&file)
            );
        }
    }

    // The outputs' tree, written out.
    let Ok(mut tree) = Tree::decode(tree_bytes) else {
        return;
    };
    if flags & 4 != 0 {
        make_digests_right(&mut tree);
    }
    let children: HashMap<String, &Directory> = tree
        .children
        .iter()
        .map(|d| (merkle::digest_of(&d.encode_to_vec()).hash, d))
        .collect();
    if let Some(root) = &tree.root
        && entries(root, &children, 0, 20_000) > 20_000
    {
        return;
    }
    let blobs: HashMap<String, Vec<u8>> = merkle::files_of(&tree)
        .into_iter()
        .map(|d| (d.hash, file_bytes.to_vec()))
        .collect();
    let fence = Fence::new();
    let written = merkle::materialize(&tree, &blobs, &fence.inside);
    fence.check();
    if written.is_err() {
        return;
    }
    // Packed as the controller packs it, and unpacked again: the same tree.
    let store = mesh_node::artifact::ArtifactStore::new(fence.base.path().join("artifacts"));
    let Ok((digest, _)) = store.put_dir(&fence.inside) else {
        return;
    };
    let back = fence.base.path().join("back");
    let tar = std::fs::File::open(store.path(&digest)).expect("a stored artifact opens");
    mesh_node::artifact::unpack(tar, &back).expect("a packed tree unpacks");
    let (a, b) = (mesh_fuzz::listing(&fence.inside), mesh_fuzz::listing(&back));
    assert_eq!(a, b, "a packed tree unpacks to the same tree");
    for (rel, kind) in a {
        if kind == "file" {
            assert_eq!(
                std::fs::read(fence.inside.join(&rel)).ok(),
                std::fs::read(back.join(&rel)).ok()
            );
        }
    }
});
