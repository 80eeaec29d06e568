//! `mesh secret`: the secrets a person sets, kept encrypted in the mesh directory.

use std::path::PathBuf;

use super::{Ctx, Ui, table};
use mesh::Result;

/// Set, list, remove or re-encrypt the secrets the nodes' modules are given.
///
/// A secret is a value a module's `activate` and `check` read from `$MESH_SECRETS/NAME` on its
/// nodes (a file, 0600). It lives in the mesh directory as `secrets/MODULE/NAME.age`, encrypted
/// with age to this controller and to every controller `[controllers]` lists with a recipient,
/// so the file can be committed and every controller delivers the same value. Each push sends a
/// node the values it lacks, encrypted to that node's own key; a changed secret is a new version
/// of its module (its `activate` runs again). A value is never printed, logged or stored in
/// plain text by mesh.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Set a module's secret; the value comes from standard input (or `--file`), never from
    /// the command line.
    Set {
        /// The module whose nodes are given it.
        module: String,
        /// Its name: the file under `$MESH_SECRETS`.
        name: String,
        /// Read the value from this file instead of standard input.
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
    },
    /// List the secrets (names, who set them and when, which nodes hold the current value).
    List {
        /// Only these modules.
        modules: Vec<String>,
    },
    /// Remove a module's secret: its nodes remove the file at the next push.
    Rm {
        /// The module.
        module: String,
        /// The secret.
        name: String,
    },
    /// Encrypt every secret again to the controllers `[controllers]` lists now.
    Rekey,
}

/// Runs `mesh secret` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    match &a.command {
        Command::Set { module, name, file } => {
            let value = mesh::secrets::verbs::read_value(file.as_deref())?;
            let _lock = ctx.lock("secret")?;
            let e = mesh::secrets::verbs::set(&ctx.config, ctx.paths(), (module, name), &value)?;
            ui.status(format!(
                "set {module}/{name} in {}: commit it; the next push gives it to {module}'s nodes",
                e.path.display()
            ));
        }
        Command::Rm { module, name } => {
            let _lock = ctx.lock("secret")?;
            let e = mesh::secrets::verbs::remove(&ctx.config, module, name)?;
            ui.status(format!(
                "removed {module}/{name} ({}): the next push removes it from {module}'s nodes",
                e.path.display()
            ));
        }
        Command::Rekey => {
            let _lock = ctx.lock("secret")?;
            let done = mesh::secrets::verbs::rekey(&ctx.config, ctx.paths())?;
            ui.status(format!(
                "encrypted {} again to this controller and {} of [controllers]: commit them",
                super::count(done.len() as u64, "secret", "secrets"),
                super::count(ctx.config.recipients.len() as u64, "other", "others"),
            ));
        }
        Command::List { modules } => return list(ctx, ui, modules),
    }
    Ok(0)
}

fn list(ctx: &Ctx, ui: &Ui, modules: &[String]) -> Result<i32> {
    let listed = mesh::secrets::verbs::list(&ctx.config, ctx.paths(), modules)?;
    if ui.json {
        ui.json_data(&listed);
        return Ok(0);
    }
    if listed.is_empty() {
        ui.status("no secrets: `mesh secret set MODULE NAME < value` sets one");
        return Ok(0);
    }
    let mut t = table::new(&["module", "name", "source", "by", "at", "held by"]);
    for l in &listed {
        let held = match (l.held_by.len(), l.not_held_by.len()) {
            (_, 0) => format!("all {}", l.held_by.len()),
            (0, _) => format!("none (not yet: {})", l.not_held_by.join(", ")),
            _ => format!(
                "{} (not yet: {})",
                l.held_by.join(", "),
                l.not_held_by.join(", ")
            ),
        };
        t.add_row(vec![
            l.module.clone(),
            l.name.clone(),
            l.source.clone(),
            l.by.clone(),
            l.at.clone(),
            held,
        ]);
    }
    ui.data(table::render(&t));
    Ok(0)
}
