//! The one diagnostic type for configuration files: file, span, label and help.

use super::{NAME_PATTERN, is_valid_name};
use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode};
use std::fmt;
use std::ops::Range;
use std::time::Duration;
use toml::Spanned;

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
        // A URL's password never reaches the terminal, even quoted from the file, or by an
        // error (a URL parser's) that a message quotes.
        ConfigError(Box::new(Inner {
            code,
            message: mask_passwords(&message.into()),
            label: mask_passwords(&label.into()),
            span,
            help: mask_passwords(&help.into()),
            src: NamedSource::new(file, mask_passwords(text)),
        }))
    }

    /// The file the mistake is in, as shown.
    pub fn file_name(&self) -> &str {
        self.0.src.name()
    }

    /// The 1-based (line, column) of the span's start, if there is one.
    pub(crate) fn line_col(&self) -> Option<(usize, usize)> {
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

/// Builds diagnostics for one file.
pub(crate) struct Reporter<'a> {
    pub file: &'a str,
    pub text: &'a str,
}

impl Reporter<'_> {
    /// A diagnostic `code` pointing at `span`.
    pub fn error(
        &self,
        code: &'static str,
        span: Option<Range<usize>>,
        message: impl Into<String>,
        label: impl Into<String>,
        help: impl Into<String>,
    ) -> ConfigError {
        ConfigError::new(code, self.file, self.text, span, message, label, help)
    }

    /// A TOML syntax or shape error (bad TOML, unknown field, wrong type, missing field).
    pub fn toml(&self, e: toml::de::Error, help: &str) -> ConfigError {
        let msg = e.message().trim().to_string();
        let code = if msg.starts_with("unknown field") {
            "mesh::config::unknown_field"
        } else if msg.starts_with("missing field") {
            "mesh::config::missing_field"
        } else {
            "mesh::config::invalid_toml"
        };
        let first = msg.lines().next().unwrap_or("invalid TOML").to_string();
        self.error(code, e.span(), first.clone(), first, help)
    }

    /// Checks a name against the pattern.
    pub fn name(&self, what: &str, name: &Spanned<String>) -> Result<String, ConfigError> {
        if is_valid_name(name.get_ref()) {
            Ok(name.get_ref().clone())
        } else {
            Err(self.error(
                "mesh::config::invalid_name",
                Some(name.span()),
                format!("invalid {what} name `{}`", name.get_ref()),
                format!("must match {NAME_PATTERN}"),
                format!(
                    "{what} names are lowercase letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most {} bytes (this one has {})",
                    mesh_proto::names::NAME_MAX,
                    name.get_ref().len()
                ),
            ))
        }
    }

    /// A count that must be at least 1; `help` says what to set it to.
    pub fn at_least_one(
        &self,
        code: &'static str,
        field: &str,
        n: &Spanned<usize>,
        help: &str,
    ) -> Result<usize, ConfigError> {
        match *n.get_ref() {
            0 => Err(self.error(
                code,
                Some(n.span()),
                format!("`{field}` must be at least 1"),
                "zero",
                help,
            )),
            n => Ok(n),
        }
    }

    /// A duration that must be longer than zero; `help` says what to set it to.
    pub fn positive_duration(
        &self,
        field: &str,
        d: &Spanned<String>,
        help: &str,
    ) -> Result<Duration, ConfigError> {
        match self.duration(field, d)? {
            t if t.is_zero() => Err(self.error(
                "mesh::config::invalid_timeout",
                Some(d.span()),
                format!("`{field}` must be longer than zero"),
                "zero",
                help,
            )),
            t => Ok(t),
        }
    }

    /// Parses a duration such as `10m`, `24h`, `30s`.
    pub fn duration(&self, field: &str, d: &Spanned<String>) -> Result<Duration, ConfigError> {
        humantime::parse_duration(d.get_ref()).map_err(|e| {
            self.error(
                "mesh::config::invalid_duration",
                Some(d.span()),
                format!("`{field}` is not a duration: {e}"),
                "not a duration",
                "write a duration such as \"30s\", \"10m\" or \"24h\"",
            )
        })
    }
}

/// `text` (a file shown in a diagnostic) with the password of every URL in it (`://user:…@`)
/// replaced by as many `*`: every offset stays where it was, so spans still point right.
pub(crate) fn mask_passwords(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let mut at = 0;
    while let Some(found) = text[at..].find("://") {
        let start = at + found + 3;
        let end = text[start..]
            .find(|c: char| c == '/' || c == '"' || c == '\'' || c.is_whitespace())
            .map_or(text.len(), |e| start + e);
        let authority = &text[start..end];
        if let Some(userinfo) = authority.rfind('@').map(|a| &authority[..a])
            && let Some(colon) = userinfo.find(':')
        {
            for b in &mut bytes[start + colon + 1..start + userinfo.len()] {
                *b = b'*';
            }
        }
        // On from just after this `://`, not from the end of its authority: that end may be
        // the first `/` of the next URL's `://`.
        at = start;
    }
    // Only ASCII bytes were written over whole characters' bytes: still UTF-8, but say so
    // without a panic.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::mask_passwords;

    #[test]
    fn a_diagnostic_shows_no_password_and_keeps_its_offsets() {
        let text = "[[repo]]\nurl = \"ssh://deploy:s3cret@host:22/r.git\"\nref = \"main\"\n";
        let masked = mask_passwords(text);
        assert_eq!(masked.len(), text.len());
        assert!(!masked.contains("s3cret"), "{masked}");
        assert!(
            masked.contains("ssh://deploy:******@host:22/r.git"),
            "{masked}"
        );
        assert_eq!(
            mask_passwords("url = \"git@host:a/b.git\""),
            "url = \"git@host:a/b.git\""
        );
    }
    /// Found by fuzzing (`fuzz/fuzz_targets/module_toml.rs`, this input): a URL whose `://`
    /// began where the authority of the one before it ended (`…@…8://…`) was never masked,
    /// and the diagnostic showed its password.
    #[test]
    fn a_url_right_after_another_is_masked_too() {
        const CRASH: &[u8] = &[
            0x6e, 0x61, 0x6d, 0x65, 0x20, 0x20, 0x20, 0x20, 0x20, 0x3d, 0x22, 0x22, 0x22, 0x20,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x22, 0x6e, 0x61, 0x6d, 0x09, 0xff,
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a,
            0x6c, 0x6d, 0x6f, 0x64, 0x20, 0x61, 0x6e, 0x64, 0x20, 0x69, 0xff, 0xff, 0xff, 0xff,
            0xff, 0x6e, 0x61, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a,
            0x3a, 0x3a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a,
            0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a,
            0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x5c, 0x5c, 0x5c, 0x5c, 0x3a, 0x3a, 0x3a, 0x3a,
            0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x38, 0x3a, 0x2f, 0x2f, 0x1a, 0x3a, 0x3a, 0x3a, 0x3a,
            0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x55, 0x01, 0x40, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0x5c, 0x5c, 0x5c, 0x5c, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a,
            0x38, 0x3a, 0x2f, 0x2f, 0x1a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a,
            0x3a, 0x3a, 0x3a, 0x3a, 0x55, 0x01, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x3a,
            0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a, 0x3a,
            0x3a, 0x5c, 0x5c, 0x5c, 0xff, 0xff, 0xff, 0xff, 0x3a, 0x6f, 0x75, 0x09, 0x3a, 0x66,
            0x61, 0xf9, 0x86, 0x94, 0x26, 0x00, 0x00, 0x3a, 0x3a, 0x3a, 0x69, 0x69, 0x69, 0x69,
            0x09, 0x69, 0x69, 0x69, 0x69, 0x69, 0x69, 0x69, 0x69, 0x69, 0x69, 0x69, 0x69, 0x69,
            0x69, 0x69, 0x69, 0x69,
        ];
        let text = String::from_utf8_lossy(CRASH);
        let e = crate::config::ModuleManifest::parse(&text, "svc/mesh-module.toml").unwrap_err();
        let password = ":::::::::::::U\u{1}@";
        assert_eq!(text.matches(password).count(), 2);
        assert!(!e.0.src.inner().contains(password), "{}", e.0.src.inner());
        let masked = mask_passwords("url = \"ssh://a:pw1@h://b:pw2@c\"");
        assert_eq!(masked, "url = \"ssh://a:***@h://b:***@c\"");
    }

    /// Found by fuzzing (`fuzz/fuzz_targets/mesh_toml.rs`; this is its `[[repo]]`, in the
    /// smallest file that fails the same way): a `url` gix cannot parse is refused with gix's
    /// error, which quotes the URL, password and all.
    #[test]
    fn a_message_quoting_a_url_shows_no_password() {
        let text = "[mesh]\nname = \"demo\"\n\n[[repo]]\nname = \"tools\"\nurl = \"ssh://deEploy:s3cret-pw@git.example.org/acme%tools.git\"\n";
        let e = crate::config::MeshConfig::parse(text, "mesh.toml", std::path::Path::new("/m"))
            .unwrap_err();
        let shown = e.to_string();
        assert!(shown.contains("cannot be followed"), "{shown}");
        assert!(!shown.contains("s3cret-pw"), "{shown}");
        assert!(shown.contains("deEploy:*********@"), "{shown}");
    }
}
