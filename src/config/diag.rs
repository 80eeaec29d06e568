//! The one diagnostic type for configuration files: file, span, label and help.

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode};
use std::fmt;
use std::ops::Range;

/// A mistake in `mesh.toml` or a `mesh-module.toml`, pointing at where it is.
#[derive(Debug)]
pub struct ConfigError(Box<Inner>);

#[derive(Debug)]
struct Inner {
    code: &'static str,
    message: String,
    label: String,
    span: Option<Range<usize>>,
    help: String,
    src: NamedSource<String>,
}

impl ConfigError {
    /// A diagnostic about `file` (its name as shown, and its text) at `span`.
    pub fn new(
        code: &'static str,
        file: &str,
        text: &str,
        span: Option<Range<usize>>,
        message: impl Into<String>,
        label: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        ConfigError(Box::new(Inner {
            code,
            message: message.into(),
            label: label.into(),
            span,
            help: help.into(),
            src: NamedSource::new(file, text.to_string()),
        }))
    }

    /// The file the mistake is in, as shown.
    pub fn file_name(&self) -> &str {
        self.0.src.name()
    }

    /// The 1-based (line, column) of the span's start, if there is one.
    pub fn line_col(&self) -> Option<(usize, usize)> {
        let start = self.0.span.as_ref()?.start;
        let text = self.0.src.inner();
        let before = text.get(..start)?;
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Some((line, col))
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line_col() {
            Some((line, col)) => {
                write!(f, "{}:{line}:{col}: {}", self.0.src.name(), self.0.message)
            }
            None => write!(f, "{}: {}", self.0.src.name(), self.0.message),
        }
    }
}

impl std::error::Error for ConfigError {}

impl Diagnostic for ConfigError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.0.code))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.0.help))
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.0.src)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.0.span.clone()?;
        let len = span.end.saturating_sub(span.start).max(1);
        Some(Box::new(std::iter::once(LabeledSpan::new(
            Some(self.0.label.clone()),
            span.start,
            len,
        ))))
    }
}

/// `mesh.toml` could not be read at all (missing, unreadable): there is nothing to point at.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{what}: {source}")]
#[diagnostic(code(mesh::io), help("{hint}"))]
pub struct Unreadable {
    /// What was being done.
    pub what: String,
    /// The OS error.
    pub source: std::io::Error,
    /// What to do next.
    pub hint: String,
}

/// Why `mesh.toml` could not be loaded: unreadable, or a mistake in it.
#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum LoadError {
    /// The file could not be read.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Unreadable(#[from] Unreadable),
    /// A mistake in the file.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Invalid(#[from] ConfigError),
}

/// A node named that mesh.toml does not have; the help names the nodes it has.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("there is no node `{name}`")]
#[diagnostic(code(mesh::failed), help("name a node of mesh.toml{known}"))]
pub struct UnknownNode {
    /// The name asked for.
    pub name: String,
    /// The nodes there are, as `known_list` says them.
    pub known: String,
}
