//! `[rollout]` in mesh.toml and `rollout = { … }` in mesh-module.toml: how a module's new build
//! reaches its nodes — in waves, each waiting for the ones before to run it healthy.

use super::ConfigError;
use super::diag::Reporter;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use toml::Spanned;

/// How many of a module's nodes a wave reaches, counted with the waves before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Wave {
    /// This many nodes in all.
    Nodes(u64),
    /// This percentage of the module's nodes in all (rounded up, at least one).
    Percent(u8),
    /// The nodes with this tag (first wave only).
    Tag(String),
}

/// A module's rollout: its waves, and how long each must have run healthy before the next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rollout {
    /// The waves, cumulative; the last reaches every node.
    pub waves: Vec<Wave>,
    /// How long every node of the waves so far must have run the build healthy.
    pub wait: Duration,
}

impl Default for Rollout {
    /// One wave, every node at once: how mesh delivered before rollouts.
    fn default() -> Self {
        Rollout {
            waves: vec![Wave::Percent(100)],
            wait: Duration::ZERO,
        }
    }
}

impl Rollout {
    /// `module` over `mesh`: the module's waves and wait where it sets them, mesh.toml's where
    /// it does not.
    pub fn over(mesh: &Rollout, module: &RolloutOverride) -> Rollout {
        Rollout {
            waves: module.waves.clone().unwrap_or_else(|| mesh.waves.clone()),
            wait: module.wait.unwrap_or(mesh.wait),
        }
    }

    /// Whether the rollout is one wave to every node (nothing to stage).
    pub fn is_all_at_once(&self) -> bool {
        self.waves.len() == 1 && self.waves[0] == Wave::Percent(100)
    }
}

/// What a module's manifest says of its rollout (each part unset: mesh.toml's).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolloutOverride {
    /// Its waves.
    pub waves: Option<Vec<Wave>>,
    /// Its wait.
    pub wait: Option<Duration>,
}

/// `waves` and `wait` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRollout {
    waves: Option<Spanned<Vec<Spanned<RawWave>>>>,
    wait: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawWave {
    Count(i64),
    Text(String),
}

const WAVES_HELP: &str = "waves are cumulative node counts (1, 3) or percentages (\"10%\") of the nodes a module is assigned to, rising, the first perhaps a tag (\"tag:canary\"), such as [1, \"10%\", \"100%\"]; the last wave reaches every node";

impl RawRollout {
    /// The rollout as written, checked: waves that rise, a tag only first.
    pub(super) fn parse(&self, r: &Reporter) -> Result<RolloutOverride, ConfigError> {
        let wait = match &self.wait {
            Some(w) => Some(r.duration("wait", w)?),
            None => None,
        };
        let Some(raw) = &self.waves else {
            return Ok(RolloutOverride { waves: None, wait });
        };
        let bad = |span, message: String| {
            r.error(
                "mesh::config::invalid_waves",
                Some(span),
                message,
                "not a wave",
                WAVES_HELP,
            )
        };
        if raw.get_ref().is_empty() {
            return Err(bad(raw.span(), "`waves` is empty".into()));
        }
        let mut waves = Vec::new();
        for (i, w) in raw.get_ref().iter().enumerate() {
            let wave = match w.get_ref() {
                RawWave::Count(n) if *n >= 1 => Wave::Nodes(*n as u64),
                RawWave::Count(n) => {
                    return Err(bad(w.span(), format!("a wave of {n} nodes reaches none")));
                }
                RawWave::Text(t) => match (t.strip_suffix('%'), t.strip_prefix("tag:")) {
                    (Some(p), _) => match p.trim().parse::<u8>() {
                        Ok(p) if (1..=100).contains(&p) => Wave::Percent(p),
                        _ => {
                            return Err(bad(
                                w.span(),
                                format!("`{t}` is not a percentage from 1% to 100%"),
                            ));
                        }
                    },
                    (None, Some(tag)) if i == 0 && !tag.is_empty() => Wave::Tag(tag.into()),
                    (None, Some(_)) => {
                        return Err(bad(
                            w.span(),
                            format!("`{t}`: only the first wave may be a tag"),
                        ));
                    }
                    (None, None) => {
                        return Err(bad(w.span(), format!("`{t}` is not a wave")));
                    }
                },
            };
            // Cumulative: a count after a count, or a percentage after a percentage, rises.
            let falls = match (waves.last(), &wave) {
                (Some(Wave::Nodes(a)), Wave::Nodes(b)) => b <= a,
                (Some(Wave::Percent(a)), Wave::Percent(b)) => b <= a,
                _ => false,
            };
            if falls {
                return Err(bad(
                    w.span(),
                    "waves are cumulative: each reaches more nodes than the one before".into(),
                ));
            }
            waves.push(wave);
        }
        Ok(RolloutOverride {
            waves: Some(waves),
            wait,
        })
    }
}

/// How many of `total` nodes the waves up to and including `wave` (0-based) reach, besides
/// those a tag names (`tagged`: how many of the module's nodes carry the first wave's tag).
/// The last wave always reaches every node.
pub fn reach(waves: &[Wave], wave: usize, total: usize, tagged: usize) -> usize {
    if wave + 1 >= waves.len() {
        return total;
    }
    let n = match &waves[wave] {
        Wave::Nodes(n) => *n as usize,
        Wave::Percent(p) => (total * *p as usize).div_ceil(100).max(1),
        Wave::Tag(_) => tagged.max(1),
    };
    n.min(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waves_reach_counts_percentages_and_every_node_last() {
        let w = [Wave::Nodes(1), Wave::Nodes(3), Wave::Percent(100)];
        let reached: Vec<usize> = (0..3).map(|k| reach(&w, k, 10, 0)).collect();
        assert_eq!(reached, [1, 3, 10]);
        let p = [Wave::Percent(10), Wave::Percent(50)];
        assert_eq!(reach(&p, 0, 7, 0), 1, "rounded up, at least one");
        assert_eq!(reach(&p, 1, 7, 0), 7, "the last wave is every node");
        assert_eq!(reach(&[Wave::Nodes(20), Wave::Percent(100)], 0, 4, 0), 4);
        let t = [Wave::Tag("canary".into()), Wave::Percent(100)];
        assert_eq!(reach(&t, 0, 10, 2), 2);
    }
}
