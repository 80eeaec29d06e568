//! The status channel: what a person reads on stderr, honouring `--quiet`, `-v` and colour.

use std::io::{IsTerminal, Write};

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal unless NO_COLOR is set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// How to talk to the person running mesh.
#[derive(Clone)]
pub struct Ui {
    /// `-q`.
    pub quiet: bool,
    /// `-v` count.
    pub verbose: u8,
    /// Whether stderr gets colour.
    pub color: bool,
    /// Whether stderr is a terminal (progress bars) .
    pub interactive: bool,
    /// `--json`.
    pub json: bool,
}

impl Ui {
    /// From the global flags.
    pub fn new(cli: &super::Cli) -> Ui {
        let interactive = std::io::stderr().is_terminal();
        let color = match cli.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                interactive && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        let _ = miette::set_hook(Box::new(move |_| {
            Box::new(
                miette::MietteHandlerOpts::new()
                    .color(color)
                    .unicode(color)
                    .terminal_links(false)
                    .wrap_lines(interactive)
                    .build(),
            )
        }));
        Ui {
            quiet: cli.quiet,
            verbose: cli.verbose,
            color,
            interactive,
            json: cli.json,
        }
    }

    /// A line of status (not shown with `-q`).
    pub fn status(&self, msg: impl AsRef<str>) {
        if !self.quiet {
            let _ = writeln!(std::io::stderr(), "{}", msg.as_ref());
        }
    }

    /// A line shown only with `-v`.
    pub fn detail(&self, msg: impl AsRef<str>) {
        if self.verbose > 0 {
            let _ = writeln!(std::io::stderr(), "{}", msg.as_ref());
        }
    }

    /// A warning: shown unless `-q`.
    pub fn warn(&self, msg: impl AsRef<str>) {
        if !self.quiet {
            let prefix = if self.color {
                "\x1b[33mwarning\x1b[0m"
            } else {
                "warning"
            };
            let _ = writeln!(std::io::stderr(), "{prefix}: {}", msg.as_ref());
        }
    }

    /// A note: something true a person should know that is not a problem (a cycle built
    /// as one unit). Shown unless `-q`.
    pub fn note(&self, msg: impl AsRef<str>) {
        if !self.quiet {
            let prefix = if self.color {
                "\x1b[36mnote\x1b[0m"
            } else {
                "note"
            };
            let _ = writeln!(std::io::stderr(), "{prefix}: {}", msg.as_ref());
        }
    }

    /// A hint naming the next command.
    pub fn hint(&self, msg: impl AsRef<str>) {
        if !self.quiet {
            let prefix = if self.color {
                "\x1b[36mhint\x1b[0m"
            } else {
                "hint"
            };
            let _ = writeln!(std::io::stderr(), "{prefix}: {}", msg.as_ref());
        }
    }

    /// An error, rendered by miette (always shown).
    pub fn error(&self, e: crate::Error) {
        let report = miette::Report::new(e);
        let _ = writeln!(std::io::stderr(), "{report:?}");
    }

    /// Data for scripts and people: stdout.
    pub fn data(&self, s: impl AsRef<str>) {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(s.as_ref().as_bytes());
        if !s.as_ref().ends_with('\n') {
            let _ = out.write_all(b"\n");
        }
    }

    /// A value as JSON on stdout, and a newline: indented when stdout is a terminal (a person
    /// reads it), compact otherwise (a program does). Streamed through a buffer rather than
    /// built as one string: `mesh graph --json` on a large mesh is megabytes of evidence.
    pub fn json_data<T: serde::Serialize>(&self, v: &T) {
        let stdout = std::io::stdout();
        let pretty = stdout.is_terminal();
        let mut out = std::io::BufWriter::with_capacity(64 << 10, stdout.lock());
        let encoded = if pretty {
            serde_json::to_writer_pretty(&mut out, v)
        } else {
            serde_json::to_writer(&mut out, v)
        };
        match encoded {
            // Like `data`: a closed pipe (`mesh graph --json | head`) is not worth a word.
            Ok(()) => {
                let _ = out.write_all(b"\n").and_then(|()| out.flush());
            }
            Err(e) if e.is_io() => {}
            Err(e) => self.warn(format!("could not encode JSON: {e}")),
        }
    }
}
