//! Declarations: what one node should run. Composed from the store alone, encoded canonically,
//! digested without the sequence, so "would send" compares byte for byte with "did send".

pub mod compose;

pub use compose::{Composed, ProviderFirst};
/// The declaration as it travels: the wire types both ends share.
pub use mesh_proto::wire::{Declaration, DeclaredModule, Envelope};

use crate::store::Verdict;
use crate::store::{BUILDS, BuildRecord, DECLARED, LATEST, Paths, id_key};
use crate::{Error, Result};

/// Makes `build` (default: the module's newest fit build) the declared one. One write; returns
/// the build and the fact recorded.
pub fn declare(
    paths: &Paths,
    module: &str,
    build: Option<u64>,
    events_keep: u64,
) -> Result<(BuildRecord, Vec<crate::events::Event>)> {
    let store = paths.open()?;
    store
        .write(|w| {
            let rec = match build {
                Some(id) => w.get(BUILDS, &id_key(id))?,
                None => newest_fit(w, module)?,
            };
            let Some(rec) = rec else {
                return Ok(Err(match build {
                    Some(id) => Error::failed(
                        format!("there is no build {id}"),
                        format!("`mesh builds {module}` lists the builds of {module}"),
                    ),
                    None => Error::failed(
                        format!("`{module}` has no fit build"),
                        format!(
                            "`mesh build {module}` builds it; if it was built and is broken or unfit, `mesh builds {module}` lists the builds and `mesh builds --log ID` says why"
                        ),
                    ),
                }));
            };
            if rec.module != module {
                return Ok(Err(Error::failed(
                    format!("build {} is of `{}`, not `{module}`", rec.id, rec.module),
                    format!("`mesh builds {module}` lists the builds of {module}"),
                )));
            }
            if rec.verdict != Verdict::Fit {
                return Ok(Err(Error::failed(
                    format!("build {} of `{module}` is {}: only fit builds are declared", rec.id, rec.verdict),
                    format!("`mesh builds {module}` lists its fit builds"),
                )));
            }
            w.put(DECLARED, module.as_bytes(), &rec)?;
            let fact = crate::events::Fact::Declared {
                module: module.to_string(),
                build: rec.id,
            };
            let events = crate::events::append(w, &[fact], crate::clock::now_ms(), events_keep)?;
            Ok(Ok((rec, events)))
        })?
}

fn newest_fit(
    w: &crate::store::Writer,
    module: &str,
) -> Result<Option<BuildRecord>, crate::store::StoreError> {
    if let Some(l) = w.get(LATEST, module.as_bytes())?
        && l.verdict == Verdict::Fit
    {
        return Ok(Some(l));
    }
    let all = w.range(BUILDS, b"", None)?;
    Ok(all
        .into_iter()
        .rev()
        .map(|(_, b)| b)
        .find(|b| b.module == module && b.verdict == Verdict::Fit))
}
