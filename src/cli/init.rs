//! `mesh init`: write a commented mesh.toml, or (`--example`) a complete demo mesh.

use super::{Cli, Ui, example};
use mesh::config::MESH_TOML;
use mesh::{Error, Result};
use std::path::{Path, PathBuf};

/// Write a commented mesh.toml to start a mesh, or a complete demo mesh with --example.
///
/// The file names every setting with a comment; edit the repositories and nodes, then run
/// `mesh graph` to see the modules mesh finds. This controller's key (`.mesh/key`, what it
/// signs declarations with) is made too, unless there is one: no other verb but `mesh id
/// --new` makes it.
///
/// `mesh init --example demo` makes a demo mesh in the new directory `demo`: a git repository
/// `platform` with modules in Go, Rust, Python and TypeScript (plain shell builds, no toolchain
/// needed), three local nodes, and a mesh.toml assigning the services to them. Then
/// `cd demo && mesh reconcile && mesh status` delivers it end to end.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where to write it (default: -C DIR, or the working directory; relative to -C DIR if both
    /// are given).
    // Its own id: `dir` is already the global -C's.
    #[arg(id = "init_dir", value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Overwrite an existing mesh.toml.
    #[arg(long)]
    force: bool,
    /// Make a complete demo mesh in DIR, which must not exist or be empty.
    #[arg(long, conflicts_with = "force")]
    example: bool,
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
# timeout  = "30s"         # a node silent this long (no answer, no progress) is unreachable this run
# persist  = "5m"          # keep node connections open between runs (cron: no handshake each time)

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

/// Runs `mesh init`.
pub fn run(cli: &Cli, ui: &Ui, a: &Args) -> Result<i32> {
    let dir = match (&cli.dir, &a.dir) {
        (Some(c), Some(d)) => c.join(d),
        (Some(d), None) | (None, Some(d)) => d.clone(),
        (None, None) => PathBuf::from("."),
    };
    if a.example {
        return run_example(ui, &dir);
    }
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
    make_key(ui, &dir)?;
    ui.hint("add a [[repo]], then `mesh graph` shows the modules it holds");
    Ok(0)
}

/// Makes the controller key of the new mesh in `dir` (`.mesh/key`), unless it has one: the
/// one act besides `mesh id --new` that makes a key.
fn make_key(ui: &Ui, dir: &Path) -> Result<()> {
    let dot_mesh = dir.join(".mesh");
    let key = mesh::controller::key_path(&dot_mesh);
    let bak = mesh::controller::backup_path(&dot_mesh);
    if key.exists() || bak.exists() {
        return Ok(());
    }
    mesh::controller::create_key(&dot_mesh, &mesh::controller::default_name())?;
    ui.status(format!("made this controller's key in {}", key.display()));
    Ok(())
}

/// `mesh init --example`: make the demo mesh and say what to run next.
fn run_example(ui: &Ui, dir: &Path) -> Result<i32> {
    example::create(dir)?;
    make_key(ui, dir)?;
    let shown = dir.display().to_string();
    ui.status(format!("made a demo mesh in {shown}:"));
    ui.status(format!(
        "  {}: three local nodes; route-proxy and resolver on edge-1 and edge-2, \
         dashboard and reporter on lab",
        dir.join(MESH_TOML).display()
    ));
    ui.status(format!(
        "  {}: a git repository, {} files on main; modules in Go, Rust, Python and TypeScript",
        dir.join(example::REPO).display(),
        example::FILES.len()
    ));
    let next = "mesh reconcile && mesh status";
    if dir == Path::new(".") {
        ui.hint(next);
    } else {
        let cd = shlex::try_quote(&shown).unwrap_or_else(|_| shown.as_str().into());
        ui.hint(format!("cd {cd} && {next}"));
    }
    Ok(0)
}
