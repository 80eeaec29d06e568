//! Completions that know the mesh: node names, `@tags`, module names and build ids, offered by
//! `mesh` itself when the shell asks (`COMPLETE=bash mesh`, clap_complete's dynamic completion,
//! as jj does). Event kinds and other fixed choices come from clap's value enums, so the static
//! scripts in `completions/` offer them too.
//!
//! A candidate list must come back at once: it reads `mesh.toml` and, for modules and builds,
//! the store for a moment, and never the repositories or the network. Anything it cannot read
//! (no mesh here, a bad file, a busy store) means no candidates, never an error on the prompt.

use clap::Command;
use clap_complete::engine::{ArgValueCandidates, CompletionCandidate};
use mesh::config::{MESH_TOML, MeshConfig, find_mesh_toml};
use mesh::events::ANNOUNCED;
use mesh::store::{BUILDS, BuildRecord, LATEST, NODES};
use std::ffi::OsString;
use std::path::PathBuf;

/// Attaches the completers to the arguments that name things of the mesh.
pub fn attach(cmd: Command) -> Command {
    let nodes = || ArgValueCandidates::new(node_targets);
    cmd.mut_subcommand("push", |s| s.mut_arg("nodes", |a| a.add(nodes())))
        .mut_subcommand("collect", |s| s.mut_arg("nodes", |a| a.add(nodes())))
        .mut_subcommand("build", |s| {
            s.mut_arg("modules", |a| a.add(ArgValueCandidates::new(modules)))
        })
        .mut_subcommand("builds", |s| {
            s.mut_arg("module", |a| a.add(ArgValueCandidates::new(modules)))
                .mut_arg("log", |a| a.add(ArgValueCandidates::new(builds)))
        })
        .mut_subcommand("declare", |s| {
            s.mut_arg("module", |a| a.add(ArgValueCandidates::new(modules)))
                .mut_arg("build", |a| a.add(ArgValueCandidates::new(builds)))
        })
        .mut_subcommand("graph", |s| {
            s.mut_arg("why", |a| a.add(ArgValueCandidates::new(modules)))
        })
        .mut_subcommand("node", |s| {
            s.mut_subcommand("show", |s| {
                s.mut_arg("node", |a| a.add(ArgValueCandidates::new(node_names)))
            })
            .mut_subcommand("install", |s| {
                s.mut_arg("node", |a| a.add(ArgValueCandidates::new(node_names)))
            })
            .mut_subcommand("forget", |s| {
                s.mut_arg("node", |a| a.add(ArgValueCandidates::new(forgotten)))
            })
        })
}

/// The words on the command line being completed (`COMPLETE=… mesh -- mesh -C x push e`):
/// what follows the `--`.
fn words() -> Vec<String> {
    let args: Vec<OsString> = std::env::args_os().collect();
    let start = args.iter().position(|a| a == "--").map_or(0, |i| i + 1);
    args[start..]
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// The value of an option on the line being completed: `-C DIR` or `-CDIR` for a short one,
/// `--state FILE` or `--state=FILE` for a long one.
fn flag(words: &[String], name: &str) -> Option<PathBuf> {
    let glued = if name.starts_with("--") {
        format!("{name}=")
    } else {
        name.to_string()
    };
    let mut it = words.iter();
    while let Some(w) = it.next() {
        if w == name {
            return it.next().map(PathBuf::from);
        }
        if let Some(v) = w.strip_prefix(&glued)
            && !v.is_empty()
        {
            return Some(PathBuf::from(v));
        }
    }
    None
}

/// The mesh the line being completed is about, as `mesh` would find it.
fn mesh() -> Option<(MeshConfig, PathBuf)> {
    let words = words();
    let file = match flag(&words, "-C") {
        Some(dir) => dir.join(MESH_TOML),
        None => find_mesh_toml(&std::env::current_dir().ok()?)?,
    };
    let mesh = MeshConfig::load(&file).ok()?;
    let state = flag(&words, "--state")
        .or_else(|| std::env::var_os("MESH_STATE").map(PathBuf::from))
        .unwrap_or_else(|| mesh.dir.join(".mesh").join("state.redb"));
    Some((mesh, state))
}

/// One table of the store, read-only, if there is a store: completion never makes one, never
/// waits for one, never writes to one.
fn peek<T: serde::de::DeserializeOwned>(
    state: &std::path::Path,
    table: mesh::store::Table<T>,
) -> Vec<(String, T)> {
    if !state.is_file() {
        return Vec::new();
    }
    mesh::store::peek(state, table)
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v))
        .collect()
}

fn candidate(value: &str, help: String) -> CompletionCandidate {
    CompletionCandidate::new(value).help((!help.is_empty()).then(|| help.into()))
}

/// Every node of mesh.toml, with where it is.
pub fn node_names() -> Vec<CompletionCandidate> {
    let Some((mesh, _)) = mesh() else {
        return Vec::new();
    };
    mesh.nodes
        .values()
        .map(|n| {
            let at = match &n.address {
                Some(a) => format!("{a}:{}", n.root),
                None => n.root.clone(),
            };
            candidate(&n.name, at)
        })
        .collect()
}

/// Every node of mesh.toml, then every tag as `@tag` (push and collect take both).
pub fn node_targets() -> Vec<CompletionCandidate> {
    let mut out = node_names();
    let Some((mesh, _)) = mesh() else {
        return out;
    };
    let mut tags: Vec<&str> = mesh
        .nodes
        .values()
        .flat_map(|n| n.tags.iter().map(String::as_str))
        .collect();
    tags.sort_unstable();
    tags.dedup();
    for t in tags {
        let n = mesh
            .nodes
            .values()
            .filter(|n| n.tags.iter().any(|x| x == t))
            .count();
        out.push(candidate(
            &format!("@{t}"),
            super::count(n as u64, "node", "nodes"),
        ));
    }
    out
}

/// Nodes the store has records of that mesh.toml no longer names: what `node forget` takes.
pub fn forgotten() -> Vec<CompletionCandidate> {
    let Some((mesh, state)) = mesh() else {
        return Vec::new();
    };
    peek(&state, NODES)
        .into_iter()
        .map(|(k, _)| k)
        .filter(|n| !mesh.nodes.contains_key(n))
        .map(|n| candidate(&n, "no longer in mesh.toml".into()))
        .collect()
}

/// The modules the mesh knows by name: those assigned in mesh.toml and those the store has
/// seen (built, or stated as found), sorted.
pub fn modules() -> Vec<CompletionCandidate> {
    let Some((mesh, state)) = mesh() else {
        return Vec::new();
    };
    let mut names: Vec<String> = peek(&state, LATEST)
        .into_iter()
        .map(|(k, _)| k)
        .chain(peek(&state, ANNOUNCED).into_iter().map(|(k, _)| k))
        .collect();
    names.extend(mesh.assign.iter().map(|a| a.module.clone()));
    names.sort();
    names.dedup();
    names.iter().map(|m| candidate(m, String::new())).collect()
}

/// Build ids, newest first, with module and verdict; for `declare MODULE`, only that module's
/// fit builds (the only ones it can declare).
pub fn builds() -> Vec<CompletionCandidate> {
    let Some((_, state)) = mesh() else {
        return Vec::new();
    };
    let words = words();
    let declare_module = words
        .iter()
        .position(|w| w == "declare")
        .and_then(|i| words[i + 1..].iter().find(|w| !w.starts_with('-')))
        .filter(|m| !m.is_empty())
        .cloned();
    let mut builds: Vec<BuildRecord> = peek(&state, BUILDS)
        .into_iter()
        .map(|(_, b)| b)
        .filter(|b| {
            declare_module
                .as_deref()
                .is_none_or(|m| b.module == m && b.verdict == mesh::store::Verdict::Fit)
        })
        .collect();
    builds.reverse();
    builds
        .iter()
        .enumerate()
        .map(|(i, b)| {
            candidate(
                &b.id.to_string(),
                format!(
                    "{} {} {}",
                    b.module,
                    b.verdict,
                    mesh_node::artifact::short(&b.commit, 8)
                ),
            )
            .display_order(Some(i))
        })
        .collect()
}
