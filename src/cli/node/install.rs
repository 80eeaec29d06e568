//! `mesh node install NODE`.

use crate::cli::Ctx;
use mesh::{Error, Result};

/// Put mesh-node on a node, under ROOT/bin/mesh-node, so it can apply.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The node.
    node: String,
}

/// Runs `mesh node install` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &super::Ui, a: &Args) -> Result<i32> {
    let node = ctx.config.node(&a.node)?;
    let control = mesh::transport::control_dir(&ctx.config)?;
    let t = mesh::transport::for_node(&ctx.config, node, control.path());
    let sent = t.install().map_err(|e| {
        let reason = e.to_string();
        let reason = reason
            .strip_prefix(&format!("{}: ", a.node))
            .unwrap_or(&reason)
            .to_string();
        let hint = match (&node.transport, &node.address) {
            (mesh::config::Transport::Ssh, Some(address)) => {
                // The command mesh's ssh runs, with the same options, so it tries the same.
                let mut words: Vec<&str> = vec!["ssh"];
                words.extend(ctx.config.ssh.options.iter().map(String::as_str));
                words.extend(node.options.iter().map(String::as_str));
                words.push(address);
                words.push("true");
                let cmd = shlex::try_join(words).unwrap_or_default();
                format!("check that the node is reachable (`{cmd}`) and its root is writable")
            }
            _ => format!("check that {} is a directory you can write to", node.root),
        };
        Error::failed(
            format!("could not install mesh on `{}`: {reason}", a.node),
            hint,
        )
    })?;
    ui.status(match sent {
        0 => format!("{} is a local node: this mesh serves it", a.node),
        _ => format!(
            "installed mesh-node on {} under {}/bin/mesh-node ({sent} bytes sent)",
            a.node, node.root
        ),
    });
    Ok(0)
}
