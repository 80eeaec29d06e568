//! `mesh declare`: make a build the declared one.

use super::{Ctx, Ui};
use mesh::Result;
use mesh_node::artifact::{SHORT, short};

/// Make a build the declared one for a module (for `hold` modules). One write.
///
/// Without BUILD: the module's newest fit build. `auto` modules are declared as soon as a fit
/// build of their current source exists; `mesh push` then sends it.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The module.
    module: String,
    /// The build id (`mesh builds MODULE` lists them).
    build: Option<u64>,
}

/// Runs `mesh declare` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let _lock = ctx.lock("declare")?;
    let loaded = mesh::graph::load(&ctx.config, &ctx.paths().state)?;
    let m = loaded
        .graph
        .index(&a.module)
        .map(|i| &loaded.graph.modules[i])
        .ok_or_else(|| super::build::unknown_module(&loaded.graph, &a.module))?;
    if m.kind == mesh::config::Kind::Library {
        return Err(mesh::Error::failed(
            format!(
                "`{}` is a library: libraries are built against, never declared",
                a.module
            ),
            "declare the services that import it; `mesh graph` shows which",
        ));
    }
    let (rec, events) = mesh::declare::declare(
        ctx.paths(),
        &a.module,
        a.build,
        ctx.config.settings.events_keep,
    )?;
    super::run_hooks(ctx, ui, &events);
    if ui.json {
        ui.json_data(
            &serde_json::json!({"module": rec.module, "build": rec.id, "artifact": rec.artifact}),
        );
    }
    ui.status(format!(
        "{} is declared at build {} ({})",
        rec.module,
        rec.id,
        rec.artifact
            .as_deref()
            .map(|a| short(a, SHORT))
            .unwrap_or("-")
    ));
    ui.hint("`mesh push --behind` sends it to the nodes it is assigned to");
    Ok(0)
}
