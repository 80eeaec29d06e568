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

impl ColorChoice {
    /// Whether this choice colours a stream that is (or is not) a terminal; `auto` honours
    /// `NO_COLOR`.
    pub fn colours(self, terminal: bool) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }

    /// The choice written on the command line, read before clap parses it, so that clap's own
    /// messages (usage errors, `--help`) honour it too. The last `--color` wins, as in clap.
    pub fn from_args(args: &[std::ffi::OsString]) -> ColorChoice {
        let mut choice = ColorChoice::Auto;
        let mut it = args.iter().skip(1).map(|a| a.to_string_lossy());
        while let Some(a) = it.next() {
            if a == "--" {
                break;
            }
            let value = match a.strip_prefix("--color") {
                Some("") => it.next().map(|v| v.into_owned()),
                Some(v) if v.starts_with('=') => Some(v[1..].to_string()),
                _ => None,
            };
            match value.as_deref() {
                Some("always") => choice = ColorChoice::Always,
                Some("never") => choice = ColorChoice::Never,
                Some("auto") => choice = ColorChoice::Auto,
                _ => {}
            }
        }
        choice
    }

    /// clap's equivalent, for its own messages.
    pub fn for_clap(self) -> clap::ColorChoice {
        match self.colours(std::io::stderr().is_terminal() || std::io::stdout().is_terminal()) {
            true if self == ColorChoice::Auto => clap::ColorChoice::Auto,
            true => clap::ColorChoice::Always,
            false => clap::ColorChoice::Never,
        }
    }
}

/// A diagnostic as shown to a person: everything but its code unless `-v` asked for it.
#[derive(Debug)]
struct Shown {
    code: bool,
    inner: mesh::Error,
}

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

impl std::error::Error for Shown {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner.source()
    }
}

impl miette::Diagnostic for Shown {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        if self.code { self.inner.code() } else { None }
    }
    fn severity(&self) -> Option<miette::Severity> {
        self.inner.severity()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.inner.help()
    }
    fn url<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.inner.url()
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.inner.source_code()
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        self.inner.labels()
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        self.inner.related()
    }
    fn diagnostic_source(&self) -> Option<&dyn miette::Diagnostic> {
        self.inner.diagnostic_source()
    }
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
        let color = cli.color.colours(interactive);
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
            let prefix = self.paint("33", "warning");
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
            let prefix = self.paint("36", "hint");
            let _ = writeln!(std::io::stderr(), "{prefix}: {}", msg.as_ref());
        }
    }

    /// An error, rendered by miette (always shown). The diagnostic's code line
    /// (`mesh::config::…`) is for people reporting a bug, so it is shown only with `-v`.
    ///
    /// "Another mesh holds the lock" (exit 75) is not a fault: on a terminal it is one line, and
    /// elsewhere (cron) nothing at all, since the exit code already says "try again later".
    pub fn error(&self, e: mesh::Error) {
        if e.exit_code() == 75 && self.verbose == 0 {
            if self.interactive {
                let _ = writeln!(std::io::stderr(), "{e}; try again when it is done");
            }
            return;
        }
        let report = miette::Report::new(Shown {
            code: self.verbose > 0,
            inner: e,
        });
        let _ = writeln!(std::io::stderr(), "{report:?}");
    }

    /// `word` in the SGR colour `sgr` when colour is on, else as it is.
    pub fn paint(&self, sgr: &str, word: &str) -> String {
        if self.color {
            format!("\x1b[{sgr}m{word}\x1b[0m")
        } else {
            word.to_string()
        }
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
