//! `mesh init`: write a commented mesh.toml.

use super::{Cli, Ui};
use crate::config::MESH_TOML;
use crate::{Error, Result};
use std::path::PathBuf;

/// Write a commented mesh.toml to start a mesh.
///
/// The file names every setting with a comment; edit the repositories and nodes, then run
/// `mesh graph` to see the modules mesh finds.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where to write it (default: -C DIR, or the working directory).
    #[arg(value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Overwrite an existing mesh.toml.
    #[arg(long)]
    force: bool,
}

/// The commented `mesh.toml` that `mesh init` writes.
pub const TEMPLATE: &str = r#"# mesh.toml: the mesh's repositories, nodes and assignments.
# Every field is described in README.md ("Configuration").

[mesh]
name = "my-mesh"
# silent_after = "24h"   # a current node not seen for this long needs a look
# events_keep  = 100000  # facts kept in the events log
# logs_keep    = 10      # build logs kept per module

# A git repository holding modules (directories with a mesh-module.toml).
# mesh reads the commit at `ref`, never the work tree.
# [[repo]]
# name = "platform"
# path = "platform"          # relative to this file; bare or not
# ref  = "refs/heads/main"   # default: HEAD

# Defaults for every ssh node.
# [ssh]
# parallel = 16
# options  = ["-o", "ServerAliveInterval=15"]
# connect_timeout = "10s"

# A machine reached over ssh: ~/.ssh/config, the agent and ProxyJump all apply.
# [node.ace]
# address = "root@ace.example.org"
# root    = "/var/lib/mesh"
# tags    = ["edge"]
# options = ["-p", "2222"]

# A directory on this machine, spoken to with the same protocol.
# [node.lab]
# transport = "local"
# root      = "nodes/lab"

# Which modules run where: node names, or @tag for every node with that tag.
[assign]
# route-proxy = ["ace", "@edge"]

# [hooks]
# on_event = "logger -t mesh"   # receives each new fact as JSON on stdin
"#;

pub fn run(cli: &Cli, ui: &Ui, a: &Args) -> Result<i32> {
    let dir = match (&a.dir, &cli.dir) {
        (Some(d), _) | (None, Some(d)) => d.clone(),
        (None, None) => PathBuf::from("."),
    };
    let file = dir.join(MESH_TOML);
    if file.exists() && !a.force {
        return Err(Error::failed(
            format!("{} already exists", file.display()),
            "edit it, or pass --force to overwrite it",
        ));
    }
    std::fs::create_dir_all(&dir).map_err(|e| {
        Error::io(
            format!("cannot create {}", dir.display()),
            e,
            "choose a directory you can write to",
        )
    })?;
    std::fs::write(&file, TEMPLATE).map_err(|e| {
        Error::io(
            format!("cannot write {}", file.display()),
            e,
            "choose a directory you can write to",
        )
    })?;
    ui.status(format!("wrote {}", file.display()));
    ui.hint("add a [[repo]], then `mesh graph` shows the modules it holds");
    Ok(0)
}
