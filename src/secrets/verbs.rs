//! What `mesh secret` does: set, remove and re-encrypt the mesh directory's secret files, and
//! say which there are and which nodes hold each one's current value — never a value.

use std::collections::BTreeMap;

use serde::Serialize;
use zeroize::Zeroizing;

use super::Entry;
use crate::config::MeshConfig;
use crate::store::{NODES, Paths};
use crate::{Error, Result};

/// Sets `module`'s secret `name` to `value` (a new digest key: the nodes re-activate the module
/// at the next push, even for the same value).
pub fn set(
    mesh: &MeshConfig,
    paths: &Paths,
    (module, name): (&str, &str),
    value: &[u8],
) -> Result<Entry> {
    check_names(mesh, module, name)?;
    if value.is_empty() {
        return Err(Error::failed(
            format!("the value of {module}/{name} is empty"),
            "give the value on standard input (`printf %s \"$VALUE\" | mesh secret set …`) or with `--file F`",
        ));
    }
    if value.len() > mesh_proto::secret::MAX_VALUE {
        return Err(Error::failed(
            format!(
                "the value of {module}/{name} is {} bytes, more than the {} a secret may hold",
                value.len(),
                mesh_proto::secret::MAX_VALUE
            ),
            "a secret is a credential or a key; ship larger files in the module's artifact",
        ));
    }
    let me = crate::controller::open_key(&paths.dot_mesh, &mesh.controller)?;
    let recipients = super::recipients(mesh, &me)?;
    let at = crate::clock::rfc3339(crate::clock::now_ms());
    super::write(
        &mesh.dir,
        (module, name),
        value,
        (&mesh.controller, &at, None),
        &recipients,
    )
}

/// Removes `module`'s secret `name`: the nodes remove its file at the next push.
pub fn remove(mesh: &MeshConfig, module: &str, name: &str) -> Result<Entry> {
    let Some(entry) = mesh.secrets.get(module, name) else {
        return Err(Error::failed(
            format!("{module} has no secret {name}"),
            "`mesh secret list` lists the secrets",
        ));
    };
    std::fs::remove_file(&entry.path).map_err(|e| {
        Error::io(
            format!("could not remove {}", entry.path.display()),
            e,
            "check that the mesh directory is writable",
        )
    })?;
    let dir = entry.path.parent().map(std::path::Path::to_path_buf);
    if let Some(dir) = dir {
        // The module's folder goes with its last secret.
        let _ = std::fs::remove_dir(dir);
    }
    Ok(entry.clone())
}

/// Re-encrypts every secret to this controller and the controllers `[controllers]` lists now
/// (after one was added or removed), keeping each value and digest. The entries rewritten.
pub fn rekey(mesh: &MeshConfig, paths: &Paths) -> Result<Vec<Entry>> {
    let me = crate::controller::open_key(&paths.dot_mesh, &mesh.controller)?;
    let identity = crate::controller::age_identity(&me);
    let recipients = super::recipients(mesh, &me)?;
    // Every value read before any file is written: one this controller cannot read stops the
    // whole rekey with nothing changed.
    let mut opened = Vec::new();
    for e in mesh.secrets.entries() {
        opened.push((e, super::open(e, &identity)?));
    }
    let mut done = Vec::new();
    for (e, o) in opened {
        done.push(super::write(
            &mesh.dir,
            (&e.module, &e.name),
            &o.value,
            (&e.set_by, &e.set_at, Some(*o.key)),
            &recipients,
        )?);
    }
    Ok(done)
}

/// One secret as `mesh secret list` says it.
#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    /// The module.
    pub module: String,
    /// Its name.
    pub name: String,
    /// Set in the mesh directory, or made by a provider (`made by db`).
    pub source: String,
    /// Who set it (a controller) or made it (a node).
    pub by: String,
    /// When.
    pub at: String,
    /// The nodes whose last report to this controller says they hold its current value.
    pub held_by: Vec<String>,
    /// The nodes its module is assigned to that do not (yet).
    pub not_held_by: Vec<String>,
}

/// Every secret of `only` (every module when empty), with which nodes hold its value.
pub fn list(mesh: &MeshConfig, paths: &Paths, only: &[String]) -> Result<Vec<Listed>> {
    let store = paths.open()?;
    let (held, made) = store.read(|r| {
        let mut held: BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>> =
            BTreeMap::new();
        for (node, rec) in r.by_name(NODES)? {
            if let Some(text) = &rec.last_report {
                held.insert(node, secrets_reported(text));
            }
        }
        Ok((held, super::provided::all(r)?))
    })?;
    let placement = mesh.placement();
    let mut out: Vec<Listed> = mesh
        .secrets
        .entries()
        .map(|e| {
            let source = (e.module.clone(), e.name.clone(), e.digest.clone());
            (
                source,
                ("set".to_string(), e.set_by.clone(), e.set_at.clone()),
            )
        })
        .chain(made.values().flat_map(|p| {
            let at = crate::clock::rfc3339(p.at);
            p.digests.iter().map(move |(name, digest)| {
                let source = (p.consumer.clone(), name.clone(), digest.clone());
                let on = p.on.clone().unwrap_or_default();
                (source, (format!("made by {}", p.provider), on, at.clone()))
            })
        }))
        .filter(|((m, _, _), _)| only.is_empty() || only.contains(m))
        .map(|((module, name, digest), (source, by, at))| {
            let nodes = placement.get(module.as_str()).cloned().unwrap_or_default();
            let (held_by, not_held_by) = nodes.iter().map(|n| n.to_string()).partition(|n| {
                held.get(n)
                    .and_then(|m| m.get(&module))
                    .and_then(|s| s.get(&name))
                    == Some(&digest)
            });
            Listed {
                module,
                name,
                source,
                by,
                at,
                held_by,
                not_held_by,
            }
        })
        .collect();
    out.sort_by(|a, b| (&a.module, &a.name).cmp(&(&b.module, &b.name)));
    Ok(out)
}

/// Module → its secrets' names → digests, as a report line says the node holds them.
fn secrets_reported(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let Ok(report) = serde_json::from_str::<mesh_node::Report>(text) else {
        return BTreeMap::new();
    };
    report
        .resources
        .into_iter()
        .filter_map(|r| Some((r.id.strip_prefix("module:")?.to_string(), r.secrets)))
        .collect()
}

/// A module of mesh.toml's `[assign]`, and a secret name.
fn check_names(mesh: &MeshConfig, module: &str, name: &str) -> Result<()> {
    if !crate::config::is_valid_name(module) {
        return Err(Error::failed(
            format!("{module:?} is not a module name"),
            "name a module of the mesh",
        ));
    }
    if !mesh.assign.iter().any(|a| a.module == module) && mesh.secrets.refs(module).is_empty() {
        return Err(Error::failed(
            format!("{module} is assigned to no node in mesh.toml"),
            "a secret goes to the nodes its module runs on: assign the module first (or check the name)",
        ));
    }
    if !mesh_proto::secret::is_secret_name(name) {
        return Err(Error::failed(
            format!("{name:?} cannot name a secret"),
            "a secret's name is a letter or _, then letters, digits and _ (at most 64): it is a file name under $MESH_SECRETS",
        ));
    }
    Ok(())
}

/// Reads a secret's value from `file`, or from standard input, never from the command line
/// (where `ps` and the shell's history would see it). One trailing newline is dropped.
pub fn read_value(file: Option<&std::path::Path>) -> Result<Zeroizing<Vec<u8>>> {
    use std::io::Read;
    let mut value = Zeroizing::new(Vec::new());
    let read = match file {
        Some(f) => std::fs::File::open(f).and_then(|mut h| h.read_to_end(&mut value)),
        None => std::io::stdin().lock().read_to_end(&mut value),
    };
    read.map_err(|e| {
        Error::io(
            match file {
                Some(f) => format!("could not read {}", f.display()),
                None => "could not read the value from standard input".to_string(),
            },
            e,
            "give the value on standard input or with `--file F`",
        )
    })?;
    if value.ends_with(b"\n") {
        value.pop();
        if value.ends_with(b"\r") {
            value.pop();
        }
    }
    Ok(value)
}
