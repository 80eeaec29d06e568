//! Build progress: a line per running build (indicatif) on a terminal, plain lines otherwise.

use super::Ui;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use mesh::builder::run::Live;
use mesh::builder::{Built, Progress};
use mesh::deliver::push::Step;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Draws builds as they run.
pub struct BuildProgress {
    multi: Option<MultiProgress>,
    bars: Mutex<HashMap<String, (ProgressBar, Arc<Live>)>>,
    quiet: bool,
}

impl BuildProgress {
    /// Bars when stderr is a terminal, lines otherwise.
    pub fn new(ui: &Ui) -> BuildProgress {
        let multi = (ui.interactive && !ui.quiet)
            .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        BuildProgress {
            multi,
            bars: Mutex::new(HashMap::new()),
            quiet: ui.quiet,
        }
    }

    /// Removes any bars left.
    pub fn clear(&self) {
        if let Some(m) = &self.multi {
            let _ = m.clear();
        }
    }
}

impl Progress for BuildProgress {
    fn started(&self, module: &str, live: Arc<Live>) {
        match &self.multi {
            Some(multi) => {
                let bar = multi.add(ProgressBar::new_spinner());
                bar.set_style(
                    ProgressStyle::with_template(
                        "{spinner} {prefix:.bold} {elapsed:>4} {wide_msg}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                bar.set_prefix(module.to_string());
                bar.enable_steady_tick(Duration::from_millis(120));
                let b = bar.clone();
                let l = Arc::clone(&live);
                std::thread::spawn(move || {
                    while !b.is_finished() {
                        if let Ok(line) = l.last_line.lock() {
                            b.set_message(line.clone());
                        }
                        std::thread::sleep(Duration::from_millis(200));
                    }
                });
                if let Ok(mut bars) = self.bars.lock() {
                    bars.insert(module.to_string(), (bar, live));
                }
            }
            None if !self.quiet => eprintln!("building {module}"),
            None => {}
        }
    }

    fn finished(&self, b: &Built) {
        let place = match b.remote.as_ref().map(|r| r.ran) {
            Some("cache") => ", from the cache",
            Some("remote") => ", on the engine",
            _ => "",
        };
        let line = format!(
            "{} {} ({:.1}s{place}){}",
            b.module,
            b.verdict,
            b.duration_ms as f64 / 1000.0,
            b.reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        );
        match &self.multi {
            Some(multi) => {
                if let Ok(mut bars) = self.bars.lock()
                    && let Some((bar, _)) = bars.remove(&b.module)
                {
                    bar.finish_and_clear();
                    multi.remove(&bar);
                }
                let _ = multi.println(line);
            }
            None if !self.quiet => eprintln!("{line}"),
            None => {}
        }
    }
}

/// Push progress: on a terminal, a spinner per node in flight saying what it does now
/// (connecting, sending, applying), each replaced by its line when the node is done; plain
/// lines otherwise. A slow node shows as the one spinner left.
pub struct NodeProgress {
    multi: Option<MultiProgress>,
    bars: Mutex<HashMap<String, ProgressBar>>,
}

impl NodeProgress {
    /// Spinners when stderr is a terminal (and not `-q`).
    pub fn new(ui: &Ui) -> NodeProgress {
        NodeProgress {
            multi: (ui.interactive && !ui.quiet)
                .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr())),
            bars: Mutex::new(HashMap::new()),
        }
    }

    /// What `node` does now.
    pub fn step(&self, node: &str, step: Step) {
        let Some(multi) = &self.multi else { return };
        let Ok(mut bars) = self.bars.lock() else {
            return;
        };
        let bar = bars.entry(node.to_string()).or_insert_with(|| {
            let bar = multi.add(ProgressBar::new_spinner());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {prefix:.bold} {elapsed:>4} {wide_msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.set_prefix(node.to_string());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        bar.set_message(words(step));
    }

    /// `node` is done: its spinner goes; `line`, if any, is said (above the spinners left, or
    /// by `say` when there are none).
    pub fn done(&self, node: &str, line: Option<String>, say: impl FnOnce(String)) {
        let bar = self.bars.lock().ok().and_then(|mut b| b.remove(node));
        match (&self.multi, bar) {
            (Some(multi), Some(bar)) => {
                bar.finish_and_clear();
                multi.remove(&bar);
                if let Some(line) = line {
                    let _ = multi.println(line);
                }
            }
            _ => {
                if let Some(line) = line {
                    say(line);
                }
            }
        }
    }
}

/// A node's step in words, as its progress line shows it.
fn words(step: Step) -> String {
    match step {
        Step::Connecting => "connecting".to_string(),
        Step::Sending {
            artifacts: 0,
            wire_bytes: _,
        } => "sending the declaration".to_string(),
        Step::Sending {
            artifacts: 1,
            wire_bytes,
        } => format!("sending 1 artifact, {wire_bytes} bytes"),
        Step::Sending {
            artifacts,
            wire_bytes,
        } => format!("sending {artifacts} artifacts, {wire_bytes} bytes"),
        Step::Applying => "applying".to_string(),
    }
}
