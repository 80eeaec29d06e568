//! What the fuzz targets share: a cursor over the input, scratch directories and the checks
//! that nothing was written outside one, and valid values built from fixed keys (a signed
//! declaration, a node root with a known age key), so that a target can reach past the
//! checks a random input never passes. Also used by `examples/seeds.rs`.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

use mesh_proto::keys::Identity;
use mesh_proto::wire::{Declaration, DeclaredModule, Envelope};

/// A cursor over a fuzz input: choices and lengths taken from its front, the rest as data.
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Input { data }
    }

    /// One byte (0 once the input is used up).
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    /// A little-endian u16 (0 once the input is used up).
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }

    /// A little-endian u32 (0 once the input is used up).
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }

    /// At most `n` bytes from the front.
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.data.split_at(n.min(self.data.len()));
        self.data = rest;
        head
    }

    /// Bytes up to (not including) the next `sep`, which is consumed; all the rest when
    /// there is none.
    pub fn until(&mut self, sep: u8) -> &'a [u8] {
        match self.data.iter().position(|&b| b == sep) {
            Some(i) => {
                let head = &self.data[..i];
                self.data = &self.data[i + 1..];
                head
            }
            None => self.rest(),
        }
    }

    /// A short string (up to the next `\0`, at most 64 bytes), lossily UTF-8.
    pub fn word(&mut self) -> String {
        let raw = self.until(0);
        String::from_utf8_lossy(&raw[..raw.len().min(64)]).into_owned()
    }

    /// Everything not taken yet.
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.data)
    }

    /// Whether everything was taken.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}

/// The separator inputs use between parts (a byte rare in text, so text seeds stay whole).
pub const SEP: u8 = 0xff;

/// A fresh scratch directory (under `TMPDIR`: `scripts/fuzz` points it at a tmpfs).
pub fn scratch() -> tempfile::TempDir {
    match tempfile::Builder::new().prefix("mesh-fuzz-").tempdir() {
        Ok(t) => t,
        Err(e) => panic!("the fuzz harness cannot make a scratch directory: {e}"),
    }
}

/// A directory made 0700 (a node root must be this user's alone).
pub fn private_dir(path: &Path) {
    if let Err(e) = fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
    {
        panic!("the fuzz harness cannot make {}: {e}", path.display());
    }
}

/// Every path under `dir` (not following links), relative to it, with what it is; sorted.
pub fn listing(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, &'static str)>) {
        let Ok(read) = fs::read_dir(dir) else { return };
        for entry in read.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            let kind = if meta.file_type().is_symlink() {
                "link"
            } else if meta.is_dir() {
                "dir"
            } else if meta.is_file() {
                "file"
            } else {
                "other"
            };
            out.push((rel, kind));
            if kind == "dir" {
                walk(root, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A scratch directory laid out so that a write outside the place a parser may write is
/// seen: `base/outside/` (a file and a directory a climbing path or link would reach) beside
/// `base/work/`, under which the parser writes at [`Fence::inside`] only.
pub struct Fence {
    /// The scratch directory (removed when the fence is dropped).
    pub base: tempfile::TempDir,
    /// Where the parser may write: `base/work/inside`, not made yet.
    pub inside: PathBuf,
    before: Vec<(PathBuf, &'static str)>,
}

impl Fence {
    /// A fresh fence.
    pub fn new() -> Fence {
        let base = scratch();
        let outside = base.path().join("outside");
        private_dir(&outside.join("dir"));
        if let Err(e) = fs::write(outside.join("file"), b"outside") {
            panic!("the fuzz harness cannot write its sentinel: {e}");
        }
        private_dir(&base.path().join("work"));
        let inside = base.path().join("work").join("inside");
        let before = listing(base.path());
        Fence {
            base,
            inside,
            before,
        }
    }

    /// Asserts that nothing under the scratch directory changed but `inside` (and what is
    /// below it), and that the sentinel file still says what it said.
    pub fn check(&self) {
        let inside_rel = self
            .inside
            .strip_prefix(self.base.path())
            .unwrap_or(&self.inside)
            .to_path_buf();
        let now: Vec<_> = listing(self.base.path())
            .into_iter()
            .filter(|(p, _)| !p.starts_with(&inside_rel))
            .collect();
        assert_eq!(
            now,
            self.before,
            "something was written outside {}",
            self.inside.display()
        );
        let sentinel = fs::read(self.base.path().join("outside/file")).unwrap_or_default();
        assert_eq!(sentinel, b"outside", "the file outside was changed");
    }
}

impl Default for Fence {
    fn default() -> Self {
        Fence::new()
    }
}

/// Where `path` leads when every symbolic link on the way is followed, as far as the file
/// system says (a missing component is taken as written); `None` after 40 links (a loop).
/// `root_real` and the result are absolute and free of `.`/`..`.
pub fn resolve(path: &Path) -> Option<PathBuf> {
    let mut todo: Vec<PathBuf> = Vec::new();
    let mut out = PathBuf::from("/");
    let mut hops = 0;
    let push_components = |todo: &mut Vec<PathBuf>, p: &Path| {
        let parts: Vec<PathBuf> = p
            .components()
            .map(|c| PathBuf::from(c.as_os_str()))
            .collect();
        todo.extend(parts.into_iter().rev());
    };
    push_components(&mut todo, path);
    while let Some(part) = todo.pop() {
        match part.components().next() {
            Some(Component::RootDir) => out = PathBuf::from("/"),
            Some(Component::CurDir) | None => {}
            Some(Component::ParentDir) => {
                out.pop();
            }
            Some(Component::Normal(name)) => {
                let next = out.join(name);
                match fs::read_link(&next) {
                    Ok(target) => {
                        hops += 1;
                        if hops > 40 {
                            return None;
                        }
                        if target.is_absolute() {
                            out = PathBuf::from("/");
                        }
                        push_components(&mut todo, &target);
                    }
                    Err(_) => out = next,
                }
            }
            Some(Component::Prefix(_)) => return None,
        }
    }
    Some(out)
}

/// The controller whose declarations the targets sign: a fixed key.
pub fn controller() -> Identity {
    Identity::from_seed("fuzz", [7; 32])
}

/// A second controller, that no node in a target trusts.
pub fn stranger() -> Identity {
    Identity::from_seed("stranger", [9; 32])
}

/// The fixed age identity of the node roots the targets make (secrets are encrypted to it):
/// derived from a fixed seed as a controller derives its own.
pub fn node_age_identity() -> age::x25519::Identity {
    mesh::controller::age_identity(&Identity::from_seed("node", [5; 32]))
}

/// A node root at `root` (made 0700) holding [`node_age_identity`] as its `age-id`.
pub fn node_root(root: &Path) -> mesh_node::Root {
    private_dir(root);
    let file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(root.join("age-id"));
    let text = {
        use age::secrecy::ExposeSecret;
        node_age_identity().to_string().expose_secret().to_string()
    };
    if let Err(e) = file.and_then(|mut f| writeln!(f, "{text}")) {
        panic!("the fuzz harness cannot write the node's age-id: {e}");
    }
    match mesh_node::Root::check(root) {
        Ok(r) => r,
        Err(e) => panic!("the fuzz harness's node root is refused: {e}"),
    }
}

/// A module as a declaration names it.
pub fn module(name: &str, artifact: &str, size: u64) -> DeclaredModule {
    DeclaredModule {
        activate: None,
        artifact: artifact.to_string(),
        build: "1".into(),
        check: None,
        check_timeout_ms: None,
        commit: "c0ffee".into(),
        name: name.to_string(),
        provide: None,
        secrets: Vec::new(),
        settle_ms: None,
        size,
    }
}

/// A declaration for node `ace` of mesh `fuzz`, sealed at `sequence` and signed by `me`.
pub fn envelope(me: &Identity, modules: Vec<DeclaredModule>, sequence: u64) -> Envelope {
    Declaration {
        controllers: Vec::new(),
        halted: Vec::new(),
        mesh: "fuzz".into(),
        modules,
        node: "ace".into(),
    }
    .seal(sequence)
    .signed(
        me,
        BTreeMap::from([("src".to_string(), "c0ffee".to_string())]),
    )
}

/// The receive stream's declaration line and envelope.
pub fn declaration_part(envelope: &[u8]) -> Vec<u8> {
    let mut s = format!("declaration {}\n", envelope.len()).into_bytes();
    s.extend_from_slice(envelope);
    s
}

/// `plain` encrypted with age to the node key of [`node_root`].
pub fn to_node(plain: &[u8]) -> Vec<u8> {
    let me = node_age_identity().to_public();
    match mesh_proto::secret::encrypt(&[me], plain) {
        Ok(sealed) => sealed,
        Err(e) => panic!("the fuzz harness cannot encrypt: {e}"),
    }
}

/// The number of lines of `text` as an editor counts them (a last line without a newline
/// counts; an empty text has one).
pub fn line_count(text: &str) -> usize {
    text.split('\n').count()
}

/// Checks shared by the configuration targets.
pub mod config {
    use miette::Diagnostic;

    /// The `://user:password@` of the URLs in `text`, as a reader of the file would pick them
    /// out: what a diagnostic must never show (the same words elsewhere in the file, not in a
    /// URL, are no password).
    pub fn passwords(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        for (at, _) in text.match_indices("://") {
            let rest = &text[at + 3..];
            let end = rest
                .find(|c: char| c == '/' || c == '"' || c == '\'' || c.is_whitespace())
                .unwrap_or(rest.len());
            let authority = &rest[..end];
            if let Some((userinfo, _)) = authority.rsplit_once('@')
                && let Some((_, password)) = userinfo.split_once(':')
                && password.len() >= 4
                && !password.contains('*')
            {
                out.push(&text[at..at + 3 + userinfo.len() + 1]);
            }
        }
        out
    }

    /// A configuration mistake as a person sees it: its labels inside `text`, its sentence
    /// and graphical report rendered without a panic, no password of a URL in either.
    pub fn check_diagnostic(e: &mesh::config::ConfigError, text: &str) {
        for label in e.labels().into_iter().flatten() {
            assert!(
                label.offset() <= text.len(),
                "a label at {} of a {}-byte file",
                label.offset(),
                text.len()
            );
        }
        let sentence = e.to_string();
        let mut report = String::new();
        let handler =
            miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor());
        // A span miette cannot show is its error to report, not a panic.
        let _ = handler.render_report(&mut report, e);
        for url in passwords(text) {
            assert!(
                !sentence.contains(url) && !report.contains(url),
                "a diagnostic shows the password of {url:?}: {sentence}\n{report}"
            );
        }
    }
}

/// Checks shared by the import scanner targets.
pub mod imports {
    use mesh_imports::{FileScan, Language};

    /// The longest `text` of an import, in characters (`lex::TEXT_CAP`).
    pub const TEXT_CAP: usize = 200;

    /// The bytes of a source file as mesh reads them (`graph/scan.rs`): UTF-8, or decoded
    /// lossily when it is not.
    pub fn text(data: &[u8]) -> String {
        String::from_utf8_lossy(data).into_owned()
    }

    /// `src` scanned as `lang`, the scan checked: every import on a line of the file, its
    /// text within the cap; the output bounded by the input (no more imports than bytes, no
    /// name longer than the file, no more notes than lines).
    pub fn scan(lang: Language, src: &str) -> FileScan {
        let scan = mesh_imports::scan_file(lang, src);
        check(src, &scan);
        scan
    }

    /// The checks of [`scan`] on a scan of `src`.
    pub fn check(src: &str, scan: &FileScan) {
        let lines = crate::line_count(src);
        assert!(
            scan.imports.len() <= src.len(),
            "{} imports from {} bytes",
            scan.imports.len(),
            src.len()
        );
        for import in scan.imports.iter() {
            assert!(
                import.line >= 1 && import.line as usize <= lines,
                "an import on line {} of a {lines}-line file: {import:?}",
                import.line
            );
            assert!(
                !import.name.is_empty(),
                "an import without a name: {import:?}"
            );
            assert!(
                import.name.len() <= src.len(),
                "a name longer than the file: {import:?}"
            );
            assert!(
                import.text.chars().count() <= TEXT_CAP,
                "an import's text past the cap: {import:?}"
            );
        }
        assert!(scan.notes.len() <= lines + 8, "{} notes", scan.notes.len());
        assert!(
            scan.test_mods.len() <= src.len(),
            "{} test modules",
            scan.test_mods.len()
        );
        for m in &scan.test_mods {
            assert!(m.len() <= src.len());
        }
    }
}
