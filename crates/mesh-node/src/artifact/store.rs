//! The content-addressed artifact store under `.mesh/artifacts/`.

use super::{
    ArtifactError, CHUNK, COMPRESSED, CopyError, Digest, ZSTD_LEVEL, copy_split, is_digest, pack,
};
use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use crate::durable;

/// The content-addressed artifact store under `.mesh/artifacts/`: one file per digest, named
/// by it. Files are written to a temp file beside, fsynced, then renamed, so a digest's file
/// is always whole; identical artifacts share one file.
#[derive(Debug, Clone)]
pub struct ArtifactStore {
    root: PathBuf,
}

impl ArtifactStore {
    /// A store rooted at `root` (usually `.mesh/artifacts`); created on first write.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        ArtifactStore { root: root.into() }
    }

    /// Packs `dir` (a build's `$MESH_OUT`) into the store and returns its (digest, size).
    /// Two builds producing the same bytes share one file.
    pub fn put_dir(&self, dir: &Path) -> Result<(Digest, u64), ArtifactError> {
        let mut tmp = self.temp()?;
        let tmp_path = tmp.path().to_path_buf();
        let to_tmp = |source| ArtifactError::Io {
            path: tmp_path.clone(),
            source,
        };
        let (digest, size) = {
            let mut w = BufWriter::with_capacity(CHUNK, tmp.as_file_mut());
            let packed = pack(dir, &mut w).map_err(|e| match e {
                ArtifactError::Write { source } => to_tmp(source),
                e => e,
            })?;
            w.flush().map_err(to_tmp)?;
            packed
        };
        self.commit(tmp, &digest, size)?;
        Ok((digest, size))
    }

    /// Stores the bytes read from `r` as the artifact `expected`, after checking that their
    /// blake3 is `expected` (else [`ArtifactError::DigestMismatch`], and nothing is left
    /// behind). Returns the size. Used by a node receiving artifacts it was sent. Reads `r`
    /// to its end: hand it `stream.take(len)` when several artifacts share one stream.
    pub fn put_verified(&self, expected: &str, r: &mut impl Read) -> Result<u64, ArtifactError> {
        if !is_digest(expected) {
            return Err(ArtifactError::InvalidDigest {
                digest: expected.to_string(),
            });
        }
        let mut tmp = self.temp()?;
        let tmp_path = tmp.path().to_path_buf();
        let mut hasher = blake3::Hasher::new();
        let size = copy_split(r, tmp.as_file_mut(), |chunk| {
            hasher.update(chunk);
        })
        .map_err(|e| match e {
            CopyError::Read(source) => ArtifactError::Read { source },
            CopyError::Write(source) => ArtifactError::Io {
                path: tmp_path.clone(),
                source,
            },
        })?;
        let actual = hasher.finalize().to_hex().to_string();
        if actual != expected {
            return Err(ArtifactError::DigestMismatch {
                expected: expected.to_string(),
                actual,
            });
        }
        self.commit(tmp, expected, size)?;
        Ok(size)
    }

    /// Where the artifact `digest` is (or would be) stored. Check [`is_digest`] first on any
    /// digest from outside.
    pub fn path(&self, digest: &str) -> PathBuf {
        self.root.join(digest)
    }

    /// Whether the store holds the artifact `digest` (false for anything not a digest).
    pub fn contains(&self, digest: &str) -> bool {
        is_digest(digest) && fs::metadata(self.path(digest)).is_ok_and(|m| m.is_file())
    }

    /// Whether the file stored as `digest` holds exactly the bytes of that digest (false for
    /// an absent file). Read whole: used before an artifact is sent and when a build's output
    /// meets a file already there.
    pub fn verify(&self, digest: &str) -> Result<bool, ArtifactError> {
        if !is_digest(digest) {
            return Ok(false);
        }
        let path = self.path(digest);
        let mut f = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(source) => return Err(ArtifactError::Io { path, source }),
        };
        let mut hasher = blake3::Hasher::new();
        hasher
            .update_reader(&mut f)
            .map_err(|source| ArtifactError::Io {
                path: path.clone(),
                source,
            })?;
        Ok(hasher.finalize().to_hex().as_str() == digest)
    }

    /// The artifact `digest` compressed with zstd, as it travels to nodes: (path, length),
    /// made from the stored tar the first time it is asked for (then kept beside it, and
    /// removed with it). A copy that does not decompress to `digest` is made again.
    pub fn compressed(&self, digest: &str) -> Result<(PathBuf, u64), ArtifactError> {
        let path = self.compressed_path(digest);
        if let Ok(m) = fs::metadata(&path)
            && m.is_file()
            && self.verify_compressed(digest).unwrap_or(false)
        {
            return Ok((path, m.len()));
        }
        let tar = self.path(digest);
        let mut input = File::open(&tar).map_err(|source| ArtifactError::Io {
            path: tar.clone(),
            source,
        })?;
        let mut tmp = self.temp()?;
        let tmp_path = tmp.path().to_path_buf();
        let io = |source| ArtifactError::Io {
            path: tmp_path.clone(),
            source,
        };
        {
            let mut encoder = zstd::stream::write::Encoder::new(
                BufWriter::with_capacity(CHUNK, tmp.as_file_mut()),
                ZSTD_LEVEL,
            )
            .map_err(io)?;
            encoder.include_checksum(true).map_err(io)?;
            io::copy(&mut input, &mut encoder).map_err(io)?;
            encoder.finish().and_then(|mut w| w.flush()).map_err(io)?;
        }
        tmp.as_file().sync_all().map_err(io)?;
        let len = tmp.as_file().metadata().map_err(io)?.len();
        durable::persist(tmp, &path)?;
        Ok((path, len))
    }

    /// Where the compressed copy of `digest` is (or would be) kept.
    fn compressed_path(&self, digest: &str) -> PathBuf {
        self.root.join(format!("{digest}{COMPRESSED}"))
    }

    /// Whether the compressed copy of `digest` decompresses to exactly that digest.
    fn verify_compressed(&self, digest: &str) -> Result<bool, ArtifactError> {
        let path = self.compressed_path(digest);
        let file = File::open(&path).map_err(|source| ArtifactError::Io {
            path: path.clone(),
            source,
        })?;
        let Ok(mut decoder) = zstd::stream::read::Decoder::new(file) else {
            return Ok(false);
        };
        let mut hasher = blake3::Hasher::new();
        Ok(hasher.update_reader(&mut decoder).is_ok()
            && hasher.finalize().to_hex().as_str() == digest)
    }

    /// Removes the file stored as `digest` (a damaged one: its module is built again).
    pub fn remove(&self, digest: &str) -> Result<(), ArtifactError> {
        if !is_digest(digest) {
            return Ok(());
        }
        let _ = fs::remove_file(self.compressed_path(digest));
        let path = self.path(digest);
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(ArtifactError::Io { path, source }),
        }
    }

    /// Every digest held, sorted (file names that are digests; temp files are ignored). An
    /// absent store holds nothing.
    pub fn list(&self) -> Result<Vec<Digest>, ArtifactError> {
        let read = match fs::read_dir(&self.root) {
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(ArtifactError::Io {
                    path: self.root.clone(),
                    source,
                });
            }
        };
        let mut out = Vec::new();
        for entry in read {
            let entry = entry.map_err(|source| ArtifactError::Io {
                path: self.root.clone(),
                source,
            })?;
            let Some(digest) = entry.file_name().to_str().and_then(Digest::parse) else {
                continue;
            };
            if entry.file_type().is_ok_and(|t| t.is_file()) {
                out.push(digest);
            }
        }
        out.sort();
        Ok(out)
    }

    /// A fresh temp file in the store directory (creating it).
    fn temp(&self) -> Result<tempfile::NamedTempFile, ArtifactError> {
        fs::create_dir_all(&self.root).map_err(|source| ArtifactError::Io {
            path: self.root.clone(),
            source,
        })?;
        tempfile::NamedTempFile::new_in(&self.root).map_err(|source| ArtifactError::Io {
            path: self.root.clone(),
            source,
        })
    }

    /// Fsyncs the temp file and renames it to `digest`, unless a whole file of that digest is
    /// already there (then the temp is dropped).
    fn commit(
        &self,
        tmp: tempfile::NamedTempFile,
        digest: &str,
        size: u64,
    ) -> Result<(), ArtifactError> {
        tmp.as_file()
            .sync_all()
            .map_err(|source| ArtifactError::Io {
                path: tmp.path().to_path_buf(),
                source,
            })?;
        let dest = self.path(digest);
        // A file already there is kept only when its content is this digest: a damaged one
        // of the same size (a flipped bit) is replaced, never believed.
        if fs::symlink_metadata(&dest).is_ok_and(|m| m.is_file() && m.len() == size)
            && self.verify(digest).unwrap_or(false)
        {
            return Ok(());
        }
        Ok(durable::persist(tmp, &dest)?)
    }
}
