//! `mesh provision`: the instantiation edge performed by hand — make (or make anew) the
//! credentials a provider makes for its consumers, then deliver them.

use super::{Ctx, Ui, table};
use mesh::Result;
use mesh::secrets::provided::{Provision, ProvisionOutcome, Scope};

/// Make the credentials a provider makes for the modules that name it in their
/// `instantiation`, and deliver them.
///
/// A provider's manifest says `provide = "cmd"`: mesh runs it on a node that runs the
/// provider, with `MESH_CONSUMER` and `MESH_AS` set, and each `KEY=VALUE` line it prints
/// becomes the consumer's secret `<as>_<KEY>`. Every push makes the credentials a consumer
/// waits for; `provision` makes them now, and with `--again` makes them anew (rotation): the new
/// credentials are delivered and the consumers' modules activated again. Exits 3 when a
/// provider could not make them (its consumers keep what they run and are not worked out
/// until it can).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The provider module.
    provider: String,
    /// Only for this consumer.
    #[arg(long = "for", value_name = "CONSUMER")]
    consumer: Option<String>,
    /// Make them anew even when they were made (rotation).
    #[arg(long)]
    again: bool,
}

/// Runs `mesh provision` and returns its exit code.
pub fn run(ctx: &Ctx, ui: &Ui, a: &Args) -> Result<i32> {
    let _lock = ctx.lock("provision")?;
    ctx.signer_key()?;
    let scope = Scope {
        provider: Some(a.provider.clone()),
        consumer: a.consumer.clone(),
        again: a.again,
    };
    let sessions = mesh::transport::Connections::new(&ctx.config, 0)?;
    let done = mesh::secrets::provided::ensure(ctx.paths(), &ctx.config, &sessions, &scope)?;
    drop(sessions);
    if done.is_empty() {
        ui.status(format!(
            "nothing to make: no declared module names {} in its `instantiation` with a `provide`{}",
            a.provider,
            if a.again { "" } else { " that waits for credentials (`--again` makes them anew)" }
        ));
    }
    let failed = done.iter().any(|p| p.outcome == ProvisionOutcome::Failed);
    if !ui.json && !done.is_empty() {
        ui.data(render(&done));
    }
    // Delivered now: the consumers' nodes are sent the new credentials.
    let opts = mesh::deliver::push::PushOptions::default();
    let (pushed, results) = super::push::send(ctx, ui, opts, false)?;
    if ui.json {
        ui.json_data(&serde_json::json!({"provisions": done, "pushed": results}));
    }
    Ok(if failed { 3 } else { pushed })
}

fn render(done: &[Provision]) -> String {
    let mut t = table::new(&["consumer", "as", "provider", "outcome", "where"]);
    for p in done {
        t.add_row(vec![
            p.consumer.clone(),
            p.alias.clone(),
            p.provider.clone(),
            p.outcome.to_string(),
            p.detail.clone(),
        ]);
    }
    table::render(&t)
}
