//! What a person does to a rollout: move it on now (`promote`), stop it and put the previous
//! build back (`abort`), or start a halted build again from the first wave (`retry`).

use super::{HALTED, ROLLOUTS, RolloutRecord, policy};
use crate::config::MeshConfig;
use crate::events::{self, Event};
use crate::store::{BUILDS, DECLARED, Paths, id_key};
use crate::{Error, Result};

/// The rollout of `module`, or the error that says there is none.
fn rollout_of(w: &crate::store::Writer, module: &str) -> Result<RolloutRecord> {
    w.get(ROLLOUTS, module.as_bytes())?.ok_or_else(|| {
        Error::failed(
            format!("`{module}` has no rollout in progress or halted"),
            "`mesh rollout` lists the rollouts; a rollout starts when a module's declared build changes and its `[rollout] waves` are more than one",
        )
    })
}

/// Moves `module`'s rollout to its next wave now (`full`: to every node), without waiting for
/// the nodes of the waves before. The record as it now is.
pub fn promote(
    paths: &Paths,
    mesh: &MeshConfig,
    module: &str,
    full: bool,
) -> Result<RolloutRecord> {
    paths.open()?.write(|w| {
        let mut r = match rollout_of(w, module) {
            Ok(r) => r,
            Err(e) => return Ok(Err(e)),
        };
        if let Some(h) = &r.halted {
            return Ok(Err(Error::failed(
                format!(
                    "the rollout of `{module}` build {} is halted: {}",
                    r.to, h.reason
                ),
                format!("`mesh rollout retry {module}` starts it again from the first wave"),
            )));
        }
        let Some(to) = w.get(BUILDS, &id_key(r.to))? else {
            return Ok(Err(Error::failed(
                format!("build {} of `{module}` is no longer in the store", r.to),
                "`mesh builds` lists the builds kept",
            )));
        };
        let last = policy(mesh, &to).waves.len().saturating_sub(1) as u64;
        r.wave = if full { last } else { (r.wave + 1).min(last) };
        r.moved = crate::clock::now_ms();
        w.put(ROLLOUTS, module.as_bytes(), &r)?;
        Ok(Ok(r))
    })?
}

/// Halts `module`'s rollout as a failure would: its build is marked halted and every node that
/// took it is declared the previous build again (at the next push).
pub fn abort(paths: &Paths, mesh: &MeshConfig, module: &str) -> Result<Vec<Event>> {
    let now = crate::clock::now_ms();
    paths.open()?.write(|w| {
        let r = match rollout_of(w, module) {
            Ok(r) => r,
            Err(e) => return Ok(Err(e)),
        };
        if r.halted.is_some() {
            return Ok(Ok(Vec::new()));
        }
        let declared = w.get(DECLARED, module.as_bytes())?;
        if declared.is_some_and(|d| d.id != r.to) {
            return Ok(Err(Error::failed(
                format!(
                    "`{module}`'s declared build is no longer build {}, whose rollout this was",
                    r.to
                ),
                "the next `mesh reconcile` or `mesh push` starts the new build's rollout; abort that one then",
            )));
        }
        let Some(to) = w.get(BUILDS, &id_key(r.to))? else {
            return Ok(Err(Error::failed(
                format!("build {} of `{module}` is no longer in the store", r.to),
                "`mesh builds` lists the builds kept",
            )));
        };
        let reason = format!("aborted by a person on {}", mesh.controller);
        let fact = super::step::halt(w, (module, &to), r, "-", reason, now)?;
        Ok(Ok(events::append(
            w,
            &[fact],
            now,
            mesh.settings.events_keep,
        )?))
    })?
}

/// Starts `module`'s halted build again from the first wave: no longer halted, declared again.
pub fn retry(paths: &Paths, module: &str) -> Result<RolloutRecord> {
    let now = crate::clock::now_ms();
    paths.open()?.write(|w| {
        let r = match rollout_of(w, module) {
            Ok(r) => r,
            Err(e) => return Ok(Err(e)),
        };
        if r.halted.is_none() {
            return Ok(Err(Error::failed(
                format!("the rollout of `{module}` build {} is not halted", r.to),
                format!("`mesh rollout promote {module}` moves it on now"),
            )));
        }
        let Some(to) = w.get(BUILDS, &id_key(r.to))? else {
            return Ok(Err(Error::failed(
                format!("build {} of `{module}` is no longer in the store", r.to),
                format!("`mesh build {module}` builds it again"),
            )));
        };
        let mut halted = w.get(HALTED, module.as_bytes())?.unwrap_or_default();
        halted.retain(|h| h.build != to.id && h.commit != to.commit);
        match halted.is_empty() {
            true => w.remove(HALTED, module.as_bytes())?,
            false => w.put(HALTED, module.as_bytes(), &halted)?,
        }
        w.put(DECLARED, module.as_bytes(), &to)?;
        let again = RolloutRecord {
            from: r.from,
            to: r.to,
            wave: 0,
            started: now,
            moved: now,
            halted: None,
        };
        w.put(ROLLOUTS, module.as_bytes(), &again)?;
        Ok(Ok(again))
    })?
}
