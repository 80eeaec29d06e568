//! What `mesh node install` sends: the `mesh-node` binary found beside this `mesh`, zstd
//! compressed once per run, with the sha256 of what it must unpack to. A node checks that
//! digest (with `sha256sum`, which every node has) before it moves the binary in, so a cut or
//! damaged upload never becomes the program a node runs.

use super::TransportError;
use sha2::{Digest as _, Sha256};
use std::path::PathBuf;
use std::sync::OnceLock;

/// zstd's level for the upload, by the binary's size: made once per run and sent to every
/// node, a release binary (a few MB) is worth zstd's tightest level (seconds); a debug build
/// (tens of MB, where level 19 takes a minute) is sent at zstd's default.
fn level(size: usize) -> i32 {
    if size <= 16 << 20 { 19 } else { 3 }
}

/// The node binary, ready to send.
pub struct NodeBinary {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its size, uncompressed.
    pub size: u64,
    /// sha256 of the uncompressed bytes, hex: what the node checks.
    pub sha256: String,
    /// The bytes as sent to a node that has `zstd`.
    pub compressed: Vec<u8>,
    /// The bytes as they are, for a node without `zstd`.
    pub plain: Vec<u8>,
}

/// `mesh-node` beside this binary, read, digested and compressed on first use.
pub fn node_binary() -> Result<&'static NodeBinary, TransportError> {
    static BINARY: OnceLock<Result<NodeBinary, String>> = OnceLock::new();
    BINARY
        .get_or_init(load)
        .as_ref()
        .map_err(|e| TransportError::failed(e.clone()))
}

fn load() -> Result<NodeBinary, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this mesh binary: {e}"))?;
    let path = exe.with_file_name(mesh_node::BINARY);
    let plain = std::fs::read(&path).map_err(|e| {
        format!(
            "cannot read {} ({e}): mesh-node is installed beside mesh (`cargo install --path .` installs both; `cargo build --bin mesh-node` builds it)",
            path.display()
        )
    })?;
    let sha256 = mesh_proto::keys::hex(&Sha256::digest(&plain));
    let mut encoder = zstd::Encoder::new(Vec::with_capacity(plain.len() / 3), level(plain.len()))
        .map_err(|e| format!("cannot compress {}: {e}", path.display()))?;
    // zstd's own checksum too: `zstd -d` on the node refuses a damaged frame before sha256 does.
    let compressed = encoder
        .include_checksum(true)
        .and_then(|()| std::io::Write::write_all(&mut encoder, &plain))
        .and_then(|()| encoder.finish())
        .map_err(|e| format!("cannot compress {}: {e}", path.display()))?;
    Ok(NodeBinary {
        size: plain.len() as u64,
        path,
        sha256,
        compressed,
        plain,
    })
}

/// The script that puts the upload in place on a node, after the floor check: `$1` the root,
/// `$2` `zstd` or `plain` (how it travels), `$3` the sha256 it must have. Only a whole binary
/// with that digest is moved in; anything else is removed and said.
pub(crate) const PUT_IN_PLACE: &str = r#"set -e; mkdir -p "$1/bin"; t="$1/bin/mesh-node.tmp"; rm -f "$t"; if [ "$2" = zstd ]; then zstd -dqc > "$t" || { rm -f "$t"; echo "the upload was cut short or damaged (zstd could not unpack it)" >&2; exit 1; }; else cat > "$t"; fi; got=$(sha256sum < "$t" | cut -d' ' -f1); if [ "$got" != "$3" ]; then rm -f "$t"; echo "the upload arrived damaged or cut short: sha256 $got, expected $3" >&2; exit 1; fi; chmod 755 "$t"; mv "$t" "$1/bin/mesh-node""#;

/// Asks whether a node can unpack zstd and check sha256 (`zstd`, or `plain` when it lacks
/// zstd); a node without `sha256sum` cannot check an upload, and is told so.
pub(crate) const PROBE: &str = r#"command -v sha256sum >/dev/null 2>&1 || { echo "the node has no sha256sum (coreutils) to check an upload with: install coreutils there" >&2; exit 1; }; if command -v zstd >/dev/null 2>&1; then echo zstd; else echo plain; fi"#;

#[cfg(test)]
mod tests {
    use super::PUT_IN_PLACE;
    use sha2::{Digest as _, Sha256};
    use std::io::Write;
    use std::process::{Command, Stdio};

    /// Runs the node's side of an install in `sh` here, as ssh would run it there.
    fn put(root: &std::path::Path, how: &str, sha: &str, bytes: &[u8]) -> (bool, String) {
        let mut child = Command::new("sh")
            .args(["-c", PUT_IN_PLACE, "sh"])
            .arg(root)
            .args([how, sha])
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("sh");
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(bytes);
        drop(stdin);
        let out = child.wait_with_output().expect("wait");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    #[test]
    fn only_an_upload_with_its_digest_is_moved_in() {
        if Command::new("zstd").arg("--version").output().is_err() {
            eprintln!("no zstd here: the compressed case is not tried");
            return;
        }
        let t = tempfile::tempdir().expect("tempdir");
        let plain = b"#!/bin/sh\necho a node binary\n".repeat(100);
        let sha = mesh_proto::keys::hex(&Sha256::digest(&plain));
        let packed = zstd::encode_all(&plain[..], 3).expect("zstd");
        let installed = t.path().join("bin/mesh-node");

        // Cut short: zstd refuses it, nothing is moved in, no temp file stays.
        let (ok, said) = put(t.path(), "zstd", &sha, &packed[..packed.len() / 2]);
        assert!(!ok && said.contains("cut short or damaged"), "{said}");
        assert!(!installed.exists());
        assert!(!t.path().join("bin/mesh-node.tmp").exists());
        // Whole but not what was meant (another digest): refused, and said with both digests.
        let (ok, said) = put(t.path(), "plain", &"0".repeat(64), &plain);
        assert!(!ok && said.contains(&sha), "{said}");
        assert!(!installed.exists());
        // Compressed and plain, with the digest: in place, executable, byte for byte.
        for (how, bytes) in [("zstd", &packed), ("plain", &plain)] {
            let (ok, said) = put(t.path(), how, &sha, bytes);
            assert!(ok, "{how}: {said}");
            assert_eq!(std::fs::read(&installed).expect("installed"), plain);
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&installed)
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o755);
            std::fs::remove_file(&installed).expect("rm");
        }
    }
}
