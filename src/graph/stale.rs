//! The stale set, computed without building: per module, current, stale (and why), waits on an
//! input that is itself stale (early cutoff may spare it), or blocked by an input that is broken
//! or unfit. Currency is the whole input closure.

use super::{ModuleGraph, SourceInput};
use crate::store::Verdict;
use crate::store::{BuildRecord, CURRENT, CurrentEntry, LATEST, Reader, StoreError};
use serde::Serialize;
use std::collections::HashMap;

/// Why a module must be built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "why", content = "input")]
pub enum StaleReason {
    /// No build of it was ever recorded.
    NeverBuilt,
    /// Its source id differs from its newest build's.
    SourceMoved,
    /// Its build or test command changed.
    RecipeMoved,
    /// This input's artifact digest differs from the one it was built against.
    InputMoved(String),
    /// Its set of build inputs changed (an import added or removed).
    InputsChanged,
    /// Its newest build was outstanding (not a verdict): retried.
    Retry,
    /// Its current build's artifact is gone from `.mesh/artifacts`.
    ArtifactMissing,
    /// A module it imports only in dev code (tests) moved: its tests may now fail.
    DevMoved(String),
    /// A module it imports only where guarded (optional) moved.
    OptionalMoved(String),
    /// Another member of its build cycle moved: the unit is built again.
    CycleMoved(String),
    /// Its newest build was judged under older closure rules (before edge kinds and cycles),
    /// which no longer say what its closure is.
    ClosureRulesChanged,
}

impl std::fmt::Display for StaleReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StaleReason::NeverBuilt => write!(f, "never built"),
            StaleReason::SourceMoved => write!(f, "source moved"),
            StaleReason::RecipeMoved => write!(f, "recipe moved"),
            StaleReason::InputMoved(x) => write!(f, "input {x}'s artifact moved"),
            StaleReason::InputsChanged => write!(f, "its build inputs changed"),
            StaleReason::Retry => write!(f, "last build was outstanding: retry"),
            StaleReason::ArtifactMissing => {
                write!(f, "its artifact is missing from .mesh/artifacts")
            }
            StaleReason::DevMoved(x) => write!(f, "dev dependency {x} moved"),
            StaleReason::OptionalMoved(x) => write!(f, "optional dependency {x} moved"),
            StaleReason::CycleMoved(x) => write!(f, "{x}, in its build cycle, moved"),
            StaleReason::ClosureRulesChanged => write!(f, "closure rules changed"),
        }
    }
}

/// A module's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModuleState {
    /// A build with this closure has a verdict.
    Current {
        /// That build.
        build: u64,
        /// Its verdict.
        verdict: Verdict,
        /// Its artifact (fit and unfit builds).
        artifact: Option<String>,
    },
    /// Must be built.
    Stale(StaleReason),
    /// An input is stale: known only once its new artifact digest is.
    Waits(Vec<usize>),
    /// An input is broken or unfit: not built.
    Blocked(usize),
}

/// What currency needs to know of one module.
pub struct ModuleInput<'a> {
    /// Its source id.
    pub source: &'a str,
    /// Its recipe digest.
    pub recipe: String,
}

/// Every module's source id and recipe digest, indexed like the graph's modules.
pub(crate) fn module_inputs(loaded: &super::Loaded) -> Vec<ModuleInput<'_>> {
    loaded
        .snapshot
        .modules
        .iter()
        .map(|m| ModuleInput {
            source: &m.source_id,
            recipe: recipe_digest(&m.manifest.build, m.manifest.test.as_deref()),
        })
        .collect()
}

/// What the store knows: the newest build per module and the build of each closure key.
#[derive(Default)]
pub struct Known {
    /// Module name → its newest build.
    pub latest: HashMap<String, BuildRecord>,
    /// Closure key → the build with a verdict for it.
    pub current: HashMap<String, CurrentEntry>,
    /// The artifact store, when known: a current build whose artifact is gone from it must be
    /// built again (nothing could be built against it or sent).
    pub artifacts: Option<std::path::PathBuf>,
}

impl Known {
    /// Loads the newest build of each module and every current closure key.
    pub fn load(r: &Reader) -> Result<Known, StoreError> {
        let latest = r
            .range(LATEST, b"", None)?
            .into_iter()
            .map(|(_, b)| (b.module.clone(), b))
            .collect();
        let current = r
            .range(CURRENT, b"", None)?
            .into_iter()
            .map(|(k, e)| (String::from_utf8_lossy(&k).into_owned(), e))
            .collect();
        Ok(Known {
            latest,
            current,
            artifacts: None,
        })
    }

    /// Takes in a build just recorded.
    pub(crate) fn learn(&mut self, b: &BuildRecord) {
        if b.verdict.is_verdict() {
            self.current.insert(
                b.closure.clone(),
                CurrentEntry {
                    id: b.id,
                    verdict: b.verdict,
                    artifact: b.artifact.clone(),
                },
            );
        }
        self.latest.insert(b.module.clone(), b.clone());
    }
}

/// The closure rules every new build is judged under: 2 added the source ids of dev and
/// optional dependencies and of the other members of a build cycle. A build recorded under
/// older rules that no longer matches is stale for that reason, said once.
pub(crate) const CLOSURE_RULE: u32 = 2;

/// The (module, source id) pairs module `m`'s closure names: its dev and optional
/// dependencies and the other members of its cycle, sorted by module.
pub(crate) fn source_inputs(
    graph: &ModuleGraph,
    modules: &[ModuleInput],
    m: usize,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = graph.sources[m]
        .iter()
        .map(|&(d, _)| (graph.modules[d].name.clone(), modules[d].source.to_string()))
        .collect();
    out.sort();
    out
}

/// The closure key: blake3 over module, source id, recipe digest, each (input, artifact),
/// and — when there are any — each (dependency, source id) of `sources`. A module with no
/// dev, optional or cycle dependency keeps the key older rules gave it.
pub(crate) fn closure_key(
    module: &str,
    source: &str,
    recipe: &str,
    inputs: &[(String, String)],
    sources: &[(String, String)],
) -> String {
    let mut h = blake3::Hasher::new();
    for part in [module, source, recipe] {
        h.update(part.as_bytes());
        h.update(b"\0");
    }
    for (m, a) in inputs {
        h.update(m.as_bytes());
        h.update(b"=");
        h.update(a.as_bytes());
        h.update(b"\0");
    }
    if !sources.is_empty() {
        h.update(b"\x01sources\0");
        for (m, s) in sources {
            h.update(m.as_bytes());
            h.update(b"@");
            h.update(s.as_bytes());
            h.update(b"\0");
        }
    }
    h.finalize().to_hex().to_string()
}

/// The recipe digest: what the module's manifest says to run.
pub(crate) fn recipe_digest(build: &str, test: Option<&str>) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"build\0");
    h.update(build.as_bytes());
    h.update(b"\0test\0");
    h.update(test.unwrap_or("").as_bytes());
    h.finalize().to_hex().to_string()
}

/// Judges every module in graph order. `states` of modules before it in the order are used.
pub(crate) fn assess(
    graph: &ModuleGraph,
    modules: &[ModuleInput],
    known: &Known,
) -> Vec<ModuleState> {
    let mut states: Vec<Option<ModuleState>> = vec![None; graph.modules.len()];
    for &m in &graph.order {
        states[m] = Some(assess_one(graph, modules, known, &states, m));
    }
    states
        .into_iter()
        .map(|s| s.unwrap_or(ModuleState::Stale(StaleReason::NeverBuilt)))
        .collect()
}

/// The inputs' (name, artifact) when every input is current and fit.
pub(crate) fn input_artifacts(
    graph: &ModuleGraph,
    states: &[Option<ModuleState>],
    m: usize,
) -> Result<Vec<(String, String)>, ModuleState> {
    let mut waits = Vec::new();
    let mut out = Vec::new();
    for &d in &graph.inputs[m] {
        match &states[d] {
            Some(ModuleState::Current {
                verdict: Verdict::Fit,
                artifact: Some(a),
                ..
            }) => out.push((graph.modules[d].name.clone(), a.clone())),
            Some(ModuleState::Current { .. }) | Some(ModuleState::Blocked(_)) => {
                return Err(ModuleState::Blocked(d));
            }
            _ => waits.push(d),
        }
    }
    if waits.is_empty() {
        out.sort();
        Ok(out)
    } else {
        Err(ModuleState::Waits(waits))
    }
}

/// One module, given the states of its inputs.
pub(crate) fn assess_one(
    graph: &ModuleGraph,
    modules: &[ModuleInput],
    known: &Known,
    states: &[Option<ModuleState>],
    m: usize,
) -> ModuleState {
    let name = &graph.modules[m].name;
    let me = &modules[m];
    let latest = known.latest.get(name);
    let own = own_reason(latest, me);
    match input_artifacts(graph, states, m) {
        Err(ModuleState::Blocked(d)) => ModuleState::Blocked(d),
        Err(waits) => match own {
            Some(r) => ModuleState::Stale(r),
            None => waits,
        },
        Ok(inputs) => {
            let sources = source_inputs(graph, modules, m);
            let key = closure_key(name, me.source, &me.recipe, &inputs, &sources);
            if let Some(b) = known.current.get(&key) {
                let gone = |a: &String| {
                    known
                        .artifacts
                        .as_ref()
                        .is_some_and(|d| !d.join(a).exists())
                };
                if b.artifact.as_ref().is_some_and(gone) {
                    return ModuleState::Stale(StaleReason::ArtifactMissing);
                }
                return ModuleState::Current {
                    build: b.id,
                    verdict: b.verdict,
                    artifact: b.artifact.clone(),
                };
            }
            ModuleState::Stale(
                own.unwrap_or_else(|| input_reason(graph, m, latest, &inputs, &sources)),
            )
        }
    }
}

/// Why, from the module's own source and recipe, compared with its newest build.
fn own_reason(latest: Option<&BuildRecord>, me: &ModuleInput) -> Option<StaleReason> {
    match latest {
        None => Some(StaleReason::NeverBuilt),
        Some(l) if l.source != me.source => Some(StaleReason::SourceMoved),
        Some(l) if l.recipe != me.recipe => Some(StaleReason::RecipeMoved),
        Some(_) => None,
    }
}

/// Why, from the inputs, when the module's own source and recipe did not move.
fn input_reason(
    graph: &ModuleGraph,
    me: usize,
    latest: Option<&BuildRecord>,
    inputs: &[(String, String)],
    sources: &[(String, String)],
) -> StaleReason {
    let Some(l) = latest else {
        return StaleReason::NeverBuilt;
    };
    if l.rule < CLOSURE_RULE {
        return StaleReason::ClosureRulesChanged;
    }
    for (m, s) in sources {
        if l.sources.iter().any(|(lm, ls)| lm == m && ls != s) {
            let why = graph.sources[me]
                .iter()
                .find(|(d, _)| graph.modules[*d].name == *m)
                .map_or(SourceInput::Dev, |(_, k)| *k);
            return match why {
                SourceInput::Dev => StaleReason::DevMoved(m.clone()),
                SourceInput::Optional => StaleReason::OptionalMoved(m.clone()),
                SourceInput::Cycle => StaleReason::CycleMoved(m.clone()),
            };
        }
    }
    for (m, a) in inputs {
        match l.inputs.iter().find(|(lm, _)| lm == m) {
            Some((_, la)) if la != a => return StaleReason::InputMoved(m.clone()),
            None => return StaleReason::InputsChanged,
            _ => {}
        }
    }
    if l.inputs.len() != inputs.len() || l.sources.len() != sources.len() {
        return StaleReason::InputsChanged;
    }
    if l.sources
        .iter()
        .map(|(m, _)| m)
        .ne(sources.iter().map(|(m, _)| m))
    {
        return StaleReason::InputsChanged;
    }
    StaleReason::Retry
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{GraphModule, ImportEdge};
    use mesh_imports::ImportKind;
    use mesh_imports::resolve::Evidence;
    use std::collections::BTreeMap;

    /// Two modules: `app`, whose tests import `kit` (a dev edge), and `kit`.
    fn graph() -> ModuleGraph {
        let module = |name: &str| GraphModule {
            name: name.into(),
            kind: crate::config::Kind::Library,
            repo: "r".into(),
            path: name.into(),
            source: format!("src-{name}"),
            provides: vec![],
        };
        let mut imports = BTreeMap::new();
        imports.insert(
            (0, 1),
            ImportEdge::of(vec![Evidence {
                file: "app/tests/t.py".into(),
                line: 1,
                import: "import kit".into(),
                kind: ImportKind::Dev,
            }]),
        );
        ModuleGraph::new(vec![module("app"), module("kit")], imports, vec![], vec![])
    }

    fn record(g: &ModuleGraph, inputs: &[ModuleInput], m: usize, rule: u32) -> BuildRecord {
        let sources = source_inputs(g, inputs, m);
        let name = &g.modules[m].name;
        BuildRecord {
            source: inputs[m].source.to_string(),
            recipe: inputs[m].recipe.clone(),
            closure: if rule < CLOSURE_RULE {
                closure_key(name, inputs[m].source, &inputs[m].recipe, &[], &[])
            } else {
                closure_key(name, inputs[m].source, &inputs[m].recipe, &[], &sources)
            },
            sources: if rule < CLOSURE_RULE { vec![] } else { sources },
            rule,
            ..BuildRecord::fit(m as u64 + 1, name)
        }
    }

    #[test]
    fn builds_from_older_rules_say_so_once_and_a_dev_move_rejudges() {
        let g = graph();
        assert!(g.inputs[0].is_empty(), "a dev edge is no build input");
        let inputs = vec![
            ModuleInput {
                source: "src-app",
                recipe: "r".into(),
            },
            ModuleInput {
                source: "src-kit",
                recipe: "r".into(),
            },
        ];
        // Both built under the old rules: kit (no dev dependency) keeps its key and stays
        // current; app's closure now names kit's source id, so it is stale, and says why.
        let mut known = Known::default();
        known.learn(&record(&g, &inputs, 0, 1));
        known.learn(&record(&g, &inputs, 1, 1));
        let states = assess(&g, &inputs, &known);
        assert!(
            matches!(states[1], ModuleState::Current { .. }),
            "{states:?}"
        );
        assert_eq!(
            states[0],
            ModuleState::Stale(StaleReason::ClosureRulesChanged)
        );
        // Built again under the current rules: current; then kit moves.
        known.learn(&record(&g, &inputs, 0, CLOSURE_RULE));
        assert!(matches!(
            assess(&g, &inputs, &known)[0],
            ModuleState::Current { .. }
        ));
        let moved = vec![
            ModuleInput {
                source: "src-app",
                recipe: "r".into(),
            },
            ModuleInput {
                source: "src-kit-2",
                recipe: "r".into(),
            },
        ];
        assert_eq!(
            assess(&g, &moved, &known)[0],
            ModuleState::Stale(StaleReason::DevMoved("kit".into()))
        );
    }
}
