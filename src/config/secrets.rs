//! The secret files of the mesh directory (`secrets/<module>/<NAME>.age`) as mesh reads them
//! with `mesh.toml`: what each file says in plain text — the secret's module and name, who set
//! it and when, its keyed digest — never a value (see `crate::secrets` for the values).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mesh_proto::names::is_digest;
use mesh_proto::secret::{SecretRef, is_secret_name};

use super::Unreadable;

/// The folder of the mesh directory that holds the secrets.
pub const SECRETS_DIR: &str = "secrets";

/// The first line of a secret file says what it is.
pub const HEADER: &str = "# mesh secret";

/// One secret as its file says it in plain text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Entry {
    /// The module it is for.
    pub module: String,
    /// Its name (the file under the module's `$MESH_SECRETS`).
    pub name: String,
    /// The keyed digest of its value.
    pub digest: String,
    /// The controller that set it.
    pub set_by: String,
    /// When (RFC 3339 UTC).
    pub set_at: String,
    /// The file.
    #[serde(skip)]
    pub path: PathBuf,
}

/// Every secret of the mesh directory, by module and name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Index(BTreeMap<String, BTreeMap<String, Entry>>);

impl Index {
    /// Reads the header of every `secrets/<module>/<NAME>.age` under `dir` (no value is
    /// decrypted). No folder: no secrets.
    pub fn read(dir: &Path) -> std::result::Result<Index, Unreadable> {
        let top = dir.join(SECRETS_DIR);
        let mut out = BTreeMap::new();
        let modules = match std::fs::read_dir(&top) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Index(out)),
            Err(e) => return Err(unreadable(&top, e)),
        };
        for m in modules {
            let m = m.map_err(|e| unreadable(&top, e))?;
            let Some(module) = m.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if !m.file_type().is_ok_and(|t| t.is_dir()) || module.starts_with('.') {
                continue;
            }
            let files = std::fs::read_dir(m.path()).map_err(|e| unreadable(&m.path(), e))?;
            for f in files {
                let f = f.map_err(|e| unreadable(&m.path(), e))?;
                let path = f.path();
                let Some(name) = f
                    .file_name()
                    .to_str()
                    .and_then(|n| n.strip_suffix(".age"))
                    .map(str::to_string)
                else {
                    continue;
                };
                let entry = read_header(&path, &module, &name)?;
                out.entry(module.clone())
                    .or_insert_with(BTreeMap::new)
                    .insert(name, entry);
            }
        }
        Ok(Index(out))
    }

    /// The secrets of `module`, as its declaration names them (sorted by name).
    pub fn refs(&self, module: &str) -> Vec<SecretRef> {
        self.0
            .get(module)
            .into_iter()
            .flat_map(|m| m.values())
            .map(|e| SecretRef {
                digest: e.digest.clone(),
                name: e.name.clone(),
            })
            .collect()
    }

    /// Every secret, by module then name.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.0.values().flat_map(|m| m.values())
    }

    /// One secret.
    pub fn get(&self, module: &str, name: &str) -> Option<&Entry> {
        self.0.get(module)?.get(name)
    }
}

/// The error of a secret file that cannot be read.
fn unreadable(path: &Path, source: std::io::Error) -> Unreadable {
    Unreadable {
        what: format!("cannot read the secret file {}", path.display()),
        source,
        hint: "secret files are written by `mesh secret set`; restore it from git, or remove it and set the secret again".into(),
    }
}

/// The plain-text header of a secret file.
fn read_header(path: &Path, module: &str, name: &str) -> std::result::Result<Entry, Unreadable> {
    let bad = |why: String| unreadable(path, std::io::Error::other(why));
    if !super::is_valid_name(module) {
        return Err(bad(format!("{module:?} is not a module name")));
    }
    if !is_secret_name(name) {
        return Err(bad(format!(
            "{name:?} is not a secret name (a letter or _, then letters, digits and _)"
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| unreadable(path, e))?;
    let mut fields = BTreeMap::new();
    let mut lines = text.lines();
    if !lines.next().is_some_and(|l| l.starts_with(HEADER)) {
        return Err(bad("it does not start with `# mesh secret`".into()));
    }
    for line in lines.take_while(|l| l.starts_with('#')) {
        if let Some((k, v)) = line.trim_start_matches('#').split_once(':') {
            fields.insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    let field = |k: &str| fields.get(k).cloned().unwrap_or_default();
    let digest = field("digest");
    if !is_digest(&digest) {
        return Err(bad("its `# digest:` line is missing or not 64 hex".into()));
    }
    Ok(Entry {
        module: module.to_string(),
        name: name.to_string(),
        digest,
        set_by: field("set-by"),
        set_at: field("set-at"),
        path: path.to_path_buf(),
    })
}

/// The file of `module`'s secret `name` under the mesh directory `dir`.
pub fn path_of(dir: &Path, module: &str, name: &str) -> PathBuf {
    dir.join(SECRETS_DIR)
        .join(module)
        .join(format!("{name}.age"))
}
