//! The tables of the store and the records they hold.

use super::Table;
use serde::{Deserialize, Serialize};

/// `format` and other single facts about the store.
pub(crate) const META: Table<u64> = Table::new("meta");
/// (blob id, scanner version) → the imports found in that blob: a file is never parsed twice.
pub(crate) const IMPORTS: Table<mesh_imports::FileScan> = Table::new("imports");
/// (repo, module dir) → what was learned the last time the module was walked.
pub(crate) const MODULES: Table<StoredModule> = Table::new("modules");

/// The name of every table of the store, wherever it is declared: created when the store is
/// made, so a reader never meets a missing table. A test fails when a table is missing here.
pub const ALL_TABLES: &[&str] = &[
    META.name(),
    IMPORTS.name(),
    MODULES.name(),
    BUILDS.name(),
    LATEST.name(),
    CURRENT.name(),
    DECLARED.name(),
    NODES.name(),
    TROUBLE.name(),
    OUTSTANDING.name(),
    NOT_WORKED_OUT.name(),
    DECLARED_ELSEWHERE.name(),
    NODE_IDS.name(),
    HEALTH.name(),
    HOLDS.name(),
    // Owned by the rooms that use them (declared there, so that the store depends on none).
    "graph_head",
    "graph_edges",
    "graph_evidence",
    "graph_answer",
    "drift",
    "events",
    "announced",
    "rollouts",
    "halted",
    "provided",
    "node_keys",
    "remote_blobs",
    "remote_builds",
];

/// The `imports` key: blob id bytes then the scanner version.
pub(crate) fn imports_key(blob: &[u8], scanner_version: u32) -> Vec<u8> {
    let mut k = blob.to_vec();
    k.extend_from_slice(&scanner_version.to_be_bytes());
    k
}

/// What a module's walk found, kept so a module whose source id did not move is not walked
/// ([`StoredModule`] is how the store keeps it).
#[derive(Debug, Clone, PartialEq)]
pub struct ModuleRecord {
    /// The source id this record was made from.
    pub source_id: String,
    /// The scanner version this record was made with.
    pub scanner_version: u32,
    /// Per source file: (repo-relative path, language, imports).
    pub files: Vec<mesh_imports::ScannedFile>,
    /// What its language manifests say (provided names, Rust renames).
    pub manifests: mesh_imports::ManifestFacts,
}

/// How [`MODULES`] keeps a [`ModuleRecord`]: each file names its blob, whose imports are in
/// [`IMPORTS`] once rather than copied into the record (which halves what a cold load
/// writes).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StoredModule {
    /// The source id the record was made from.
    pub source_id: String,
    /// The scanner version it was made with.
    pub scanner_version: u32,
    /// Its source files.
    pub files: Vec<StoredFile>,
    /// What its language manifests say.
    pub manifests: mesh_imports::ManifestFacts,
}

/// A source file of a [`StoredModule`]: a [`mesh_imports::ScannedFile`] whose imports are
/// its blob's.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StoredFile {
    /// Repo-relative path.
    pub path: String,
    /// Its language.
    pub language: mesh_imports::Language,
    /// The kind of code it is, from where it stands in its module.
    pub kind: mesh_imports::ImportKind,
    /// Its blob's id: with the scanner version, the key of its imports in [`IMPORTS`].
    pub blob: Vec<u8>,
}

impl StoredModule {
    /// How the store keeps `record`, whose files are the blobs `blobs` (in order).
    pub fn of(record: &ModuleRecord, blobs: &[Vec<u8>]) -> StoredModule {
        StoredModule {
            source_id: record.source_id.clone(),
            scanner_version: record.scanner_version,
            files: record
                .files
                .iter()
                .zip(blobs)
                .map(|(f, blob)| StoredFile {
                    path: f.path.clone(),
                    language: f.language,
                    kind: f.kind,
                    blob: blob.clone(),
                })
                .collect(),
            manifests: record.manifests.clone(),
        }
    }

    /// The keys in [`IMPORTS`] of its files' imports, in order.
    pub(crate) fn imports_keys(&self, scanner_version: u32) -> impl Iterator<Item = Vec<u8>> + '_ {
        self.files
            .iter()
            .map(move |f| imports_key(&f.blob, scanner_version))
    }

    /// The record, given each file's scan (in order, as read under [`Self::imports_keys`]):
    /// `None` when one is missing (then the module is walked again).
    pub fn join(
        self,
        scans: impl IntoIterator<Item = Option<mesh_imports::FileScan>>,
    ) -> Option<ModuleRecord> {
        let mut scans = scans.into_iter();
        let mut files = Vec::with_capacity(self.files.len());
        for f in self.files {
            let scan = scans.next().flatten()?;
            files.push(mesh_imports::ScannedFile {
                path: f.path,
                language: f.language,
                kind: f.kind,
                imports: scan.imports,
                rust_macros: scan.rust_macros,
            });
        }
        Some(ModuleRecord {
            source_id: self.source_id,
            scanner_version: self.scanner_version,
            files,
            manifests: self.manifests,
        })
    }
}

/// The judgement of a build. `Outstanding` is not a verdict: the build failed for reasons that
/// say nothing about the artifact (a timeout, a signal, a spawn failure, exit 75), and the next
/// run retries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Built, and the tests passed.
    Fit,
    /// Built, and the tests failed.
    Unfit,
    /// The build failed.
    Broken,
    /// An environmental failure: no verdict.
    Outstanding,
}

impl Verdict {
    /// The word used in tables and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Fit => "fit",
            Verdict::Unfit => "unfit",
            Verdict::Broken => "broken",
            Verdict::Outstanding => "outstanding",
        }
    }

    /// Whether it is a verdict at all (outstanding is not).
    pub(crate) fn is_verdict(self) -> bool {
        self != Verdict::Outstanding
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// build id (u64, big-endian) → [`BuildRecord`].
pub const BUILDS: Table<BuildRecord> = Table::new("builds");
/// module name → its newest [`BuildRecord`].
pub const LATEST: Table<BuildRecord> = Table::new("latest");
/// closure key → [`CurrentEntry`]: the build with a verdict for it, what makes a module current.
pub(crate) const CURRENT: Table<CurrentEntry> = Table::new("current");

/// A build id as a key: big-endian, so keys sort by id.
pub fn id_key(id: u64) -> [u8; 8] {
    id.to_be_bytes()
}

/// One build of one module: its input closure, verdict and artifact.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BuildRecord {
    /// The build id.
    pub id: u64,
    /// The module built.
    pub module: String,
    /// The repository's name.
    pub repo: String,
    /// The commit built from.
    pub commit: String,
    /// The module's source id.
    pub source: String,
    /// The recipe digest (build and test commands).
    pub recipe: String,
    /// Each build input: (module, artifact digest), sorted by module.
    pub inputs: Vec<(String, String)>,
    /// Each dev, optional and cycle dependency: (module, source id), sorted by module.
    pub sources: Vec<(String, String)>,
    /// The closure rules this build was judged under (the stale set's `CLOSURE_RULE`).
    pub rule: u32,
    /// The closure key: what makes this build current.
    pub closure: String,
    /// The verdict (or outstanding, which is none).
    pub verdict: Verdict,
    /// Why, for anything but fit.
    pub reason: Option<String>,
    /// The artifact digest (fit and unfit builds have one).
    pub artifact: Option<String>,
    /// The artifact's size in bytes.
    pub size: u64,
    /// Unix milliseconds.
    pub started: u64,
    /// Unix milliseconds.
    pub finished: u64,
    /// The log file, relative to `.mesh/`.
    pub log: Option<String>,
    /// What the manifest at this commit said to run on the node after a switch.
    pub activate: Option<String>,
    /// The manifest's presence edges at this commit.
    pub presence: Vec<String>,
    /// The manifest's instantiation edges at this commit: each provider, and what this module
    /// calls it (the prefix of the credentials it makes).
    pub instantiation: Vec<crate::config::Instantiation>,
    /// The module's policy at this commit.
    pub policy: crate::config::Policy,
    /// What the manifest at this commit said asks the node whether it works.
    pub check: Option<Check>,
    /// How the manifest at this commit said its builds reach their nodes, where it differs
    /// from mesh.toml.
    pub rollout: crate::config::RolloutOverride,
    /// What the manifest at this commit said makes credentials for the modules that name it in
    /// their `instantiation`.
    pub provide: Option<String>,
}

/// A module's `check`, `check_timeout` and `settle`, as declared to each node with its build.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Check {
    /// The command; exit 0 = healthy.
    pub command: String,
    /// How long one run may take, in ms (unset: the node's default).
    pub timeout_ms: Option<u64>,
    /// How long it must keep passing after activate, in ms (unset: one check).
    pub settle_ms: Option<u64>,
}

#[cfg(test)]
impl BuildRecord {
    /// A fit build `id` of `module`, built from commit `c` of repository `r`, every other
    /// field empty: what tests start from and change.
    pub(crate) fn fit(id: u64, module: &str) -> BuildRecord {
        BuildRecord {
            id,
            module: module.into(),
            repo: "r".into(),
            commit: "c".into(),
            source: String::new(),
            recipe: String::new(),
            inputs: vec![],
            sources: vec![],
            rule: 1,
            closure: String::new(),
            verdict: Verdict::Fit,
            reason: None,
            artifact: Some(format!("art-{module}")),
            size: 0,
            started: 0,
            finished: 0,
            log: None,
            activate: None,
            presence: vec![],
            instantiation: vec![],
            policy: crate::config::Policy::Auto,
            check: None,
            rollout: Default::default(),
            provide: None,
        }
    }
}

/// The build that makes a closure key current, kept small so every key can be loaded at once.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CurrentEntry {
    /// The build id.
    pub id: u64,
    /// Its verdict (never outstanding).
    pub verdict: Verdict,
    /// Its artifact digest.
    pub artifact: Option<String>,
}

/// module name → [`BuildRecord`] of the build declared for it (always fit).
pub(crate) const DECLARED: Table<BuildRecord> = Table::new("declared");
/// node name → [`NodeRecord`]: what was sent, what it reported, when it was last seen.
pub const NODES: Table<NodeRecord> = Table::new("nodes");

/// A declaration as sent to a node (or reported applied by it).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Sent {
    /// The declaration's digest.
    pub digest: String,
    /// Its sequence.
    pub sequence: u64,
    /// Unix milliseconds.
    pub at: u64,
}

/// The current failure streak of a node: the same failed resources, report after report.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Failure {
    /// When the first report of this streak arrived (Unix ms).
    pub since: u64,
    /// How many reports in a row carried it.
    pub count: u64,
    /// The outcome and the sorted failed resource ids: the streak's identity.
    pub outcome: String,
    /// The failed resources, sorted.
    pub resources: Vec<String>,
    /// The sequence of the declaration the newest report of the streak was about.
    pub sequence: u64,
    /// The node's words, from the newest report.
    pub reasons: Vec<String>,
}

/// Everything the mesh knows about one node.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct NodeRecord {
    /// The last declaration the node confirmed it holds. Recorded only after it did.
    pub sent: Option<Sent>,
    /// The module → build id pairs of that declaration.
    pub sent_builds: Vec<(String, u64)>,
    /// The last declaration the node reported applied cleanly.
    pub applied: Option<Sent>,
    /// The module → build id pairs of that declaration.
    pub applied_builds: Vec<(String, u64)>,
    /// The last time mesh reached the node (Unix ms).
    pub last_seen: Option<u64>,
    /// Since when the node could not be reached, while it cannot.
    pub unreachable_since: Option<u64>,
    /// Why, in ssh's words made into a sentence.
    pub unreachable_reason: Option<String>,
    /// The node's mesh version, from its last report or `have`.
    pub host_version: Option<String>,
    /// The highest report sequence collected.
    pub report_sequence: u64,
    /// The id of the node's report journal those sequences count in.
    pub journal: Option<String>,
    /// The newest report about the declaration last sent, as the node wrote it (JSON), but for
    /// its modules' health, which [`HEALTH`] keeps.
    pub last_report: Option<String>,
    /// The current failure streak.
    pub failure: Option<Failure>,
    /// Reports that could not be read, with why (newest last, a few kept).
    pub unreadable: Vec<String>,
}

/// node name → [`Trouble`]: why mesh could not do its work on the node, while it cannot. Its
/// own table (not a field of [`NodeRecord`]) so that older stores read on unchanged.
pub(crate) const TROUBLE: Table<Trouble> = Table::new("trouble");

/// What stopped mesh doing its work on a node: its ssh refused us (a changed host key, a
/// refused key), its mesh failed, or it lost what it was sent (a wiped root). Recorded against
/// the node so that no verb calls it current meanwhile; cleared when the node is worked on
/// again (a clean apply, for a lost declaration).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Trouble {
    /// When this trouble began (Unix ms).
    pub since: u64,
    /// How many times in a row it was found.
    pub count: u64,
    /// The trouble's identity: its kind and the node's words without numbers.
    pub identity: String,
    /// The words, newest.
    pub reason: String,
    /// Whether a run can repair it by itself (install mesh, send again). When it cannot, or
    /// when the repair was followed by the same trouble [`TROUBLE_AFTER`] times, a person must act.
    pub repairable: bool,
}

/// Three in a row make a streak a person's business: a node's failure reports make it stuck,
/// a build's outstanding endings make it stuck outstanding (the seeds' rule for stuck).
pub(crate) const STUCK_AFTER: u64 = 3;

/// A repairable trouble found this many times in a row needs a person.
pub(crate) const TROUBLE_AFTER: u64 = 3;

impl Trouble {
    /// Whether a person must act: a run cannot repair it, or repairing did not help.
    pub fn needs_a_person(&self) -> bool {
        !self.repairable || self.count >= TROUBLE_AFTER
    }
}

/// node name → [`DeclaredElsewhere`]: the node runs a declaration another controller signed,
/// and this one did not replace it. Its own table, so that older stores read on unchanged.
pub(crate) const DECLARED_ELSEWHERE: Table<DeclaredElsewhere> = Table::new("declared_elsewhere");

/// node name → [`NodeHealth`]: what the checks of the modules it runs said, report after
/// report. Its own table, so that older stores read on unchanged.
pub(crate) const HEALTH: Table<NodeHealth> = Table::new("health");

/// What a node's reports said of the health of the modules it runs that have a check.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct NodeHealth {
    /// By module.
    pub modules: std::collections::BTreeMap<String, ModuleHealth>,
}

/// One module's health on one node, as its newest report said it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ModuleHealth {
    /// Whether its check passed.
    pub healthy: bool,
    /// Since when it has said so of this build, as the node says (Unix ms).
    pub since: u64,
    /// The build it runs (the id as declared: the declaring controller's).
    pub build: String,
    /// The commit that build was made from (what every controller shares).
    pub commit: String,
    /// Why not healthy: how the check ended and its output's tail.
    pub output: Option<String>,
    /// Reports in a row that said it is unhealthy (0 while healthy).
    pub count: u64,
}

impl NodeHealth {
    /// The modules whose check fails, by name.
    pub fn unhealthy(&self) -> impl Iterator<Item = (&String, &ModuleHealth)> {
        self.modules.iter().filter(|(_, h)| !h.healthy)
    }
}

/// node name → the modules of the declaration in force there, as its `have` said them last
/// (whoever declared it): what a rollout reads to know which build each node holds when this
/// store did not send it (another controller's, or a lost store's). Kept as the wire's JSON
/// (its optional fields are left out when absent, which bincode cannot read back).
pub(crate) const HOLDS: Table<String> = Table::new("holds");

/// Every node's [`HOLDS`], by name (a value that does not read is none).
pub(crate) fn node_holds(
    r: &super::Reader,
) -> Result<
    std::collections::HashMap<String, Vec<mesh_proto::wire::DeclaredModule>>,
    super::StoreError,
> {
    Ok(r.by_name(HOLDS)?
        .into_iter()
        .filter_map(|(node, v)| Some((node, serde_json::from_str(&v).ok()?)))
        .collect())
}

/// node name → the node id its root answered with (`ROOT/id`): one root, one name.
pub(crate) const NODE_IDS: Table<String> = Table::new("node_ids");

/// What a node runs that another controller declared, as mesh last saw it, and how its git
/// history stands to this controller's (what status says instead of "current").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct DeclaredElsewhere {
    /// The other controller's name.
    pub controller: String,
    /// Its public key string.
    pub key: String,
    /// The digest of the declaration it signed, in force on the node.
    pub digest: String,
    /// Its sequence.
    pub sequence: u64,
    /// Whether the node applied it (what it last applied is that declaration).
    pub applied: bool,
    /// How our history stands to it.
    pub relation: Relation,
    /// The digest this controller would have sent when it compared (empty: not compared).
    pub against: String,
    /// Why, as a sentence ("runs src@1a2b3c from laptop, newer than yours: fetch").
    pub reason: String,
    /// When this was first seen (Unix ms).
    pub since: u64,
}

impl DeclaredElsewhere {
    /// Whether what this controller recorded of the node still says what runs there: only when
    /// the node applied the other's declaration of the same commits (kept). Otherwise the
    /// node holds another's declaration in place of ours, and no build of ours may be said to
    /// run there from our own records.
    pub fn keeps_ours(&self) -> bool {
        self.relation == Relation::Same && self.applied
    }
}

/// How this controller's git history stands to another controller's declaration on a node.
/// Stored as its word (`newer`, `ahead`, …), so the table's bytes read the same as when it
/// was a string, and a word a later version adds reads as [`Relation::Unknown`].
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(into = "String", from = "String")]
pub enum Relation {
    /// Ours is newer and this controller declares: until the node holds ours, it still runs
    /// the other's.
    Newer,
    /// The node's commits are newer than ours (or ones we do not have): it is **ahead**.
    Ahead,
    /// The histories went apart: the node is **diverged**.
    Diverged,
    /// The same commits: the node keeps what it runs.
    Same,
    /// The same commits with another plan (other modules assigned, other settings): the node
    /// **differs**, neither declares until a person settles it.
    Differs,
    /// Seen by collect, not compared yet (the next push compares).
    Unknown,
}

impl Relation {
    /// The word stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Newer => "newer",
            Relation::Ahead => "ahead",
            Relation::Diverged => "diverged",
            Relation::Same => "same",
            Relation::Differs => "differs",
            Relation::Unknown => "unknown",
        }
    }
}

impl From<Relation> for String {
    fn from(r: Relation) -> String {
        r.as_str().to_string()
    }
}

impl From<String> for Relation {
    fn from(s: String) -> Relation {
        match s.as_str() {
            "newer" => Relation::Newer,
            "ahead" => Relation::Ahead,
            "diverged" => Relation::Diverged,
            "same" => Relation::Same,
            "differs" => Relation::Differs,
            _ => Relation::Unknown,
        }
    }
}

/// node name → the reason it was last stated *not worked out* (a `not-worked-out` fact), so
/// that the fact is stated once, when it begins or its reason changes.
pub(crate) const NOT_WORKED_OUT: Table<String> = Table::new("not_worked_out");

/// module name → [`OutstandingStreak`]: a build that stays outstanding for the same reason.
pub(crate) const OUTSTANDING: Table<OutstandingStreak> = Table::new("outstanding");

/// Builds of one closure that ended outstanding for the same reason, run after run. Three make
/// the build *stuck outstanding*: a person must act (the seeds' rule for stuck, for builds).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct OutstandingStreak {
    /// The closure key the builds were of.
    pub closure: String,
    /// The reason, without numbers (durations, pids), its identity.
    pub identity: String,
    /// The newest reason, as it was.
    pub reason: String,
    /// Builds in a row.
    pub count: u64,
    /// When the first ended (Unix ms).
    pub since: u64,
}

/// Text without its digits: the identity of a reason whose durations, pids and sizes vary.
pub(crate) fn identity_of(text: &str) -> String {
    text.chars().filter(|c| !c.is_ascii_digit()).collect()
}

impl NodeRecord {
    /// Whether the node reported applying the very declaration it was last sent.
    pub(crate) fn applied_what_was_sent(&self) -> bool {
        self.sent.is_some()
            && self.applied.as_ref().map(|a| a.sequence) == self.sent.as_ref().map(|s| s.sequence)
    }

    /// The failure streak, if it is about the declaration last sent (an older one's failures
    /// say nothing about what the node was told since).
    pub(crate) fn failure_of_sent(&self) -> Option<&Failure> {
        let sent = self.sent.as_ref()?;
        self.failure
            .as_ref()
            .filter(|f| f.sequence == sent.sequence)
    }
}

/// Every node's record, by node name.
pub(crate) fn node_records(
    r: &super::Reader,
) -> Result<std::collections::HashMap<String, NodeRecord>, super::StoreError> {
    r.by_name(NODES)
}

/// Every node's [`NodeHealth`], by name.
pub(crate) fn node_health(
    r: &super::Reader,
) -> Result<std::collections::HashMap<String, NodeHealth>, super::StoreError> {
    r.by_name(HEALTH)
}

#[cfg(test)]
mod tests {
    /// Every `Table::new("…")` declared anywhere in `src/` is in [`super::ALL_TABLES`]: a table
    /// left out would be missing from a new store until first written.
    #[test]
    fn every_declared_table_is_in_all_tables() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut declared = Vec::new();
        let mut dirs = vec![src];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let mut at = 0;
                    while let Some(i) = text[at..].find("= Table::new(\"") {
                        let start = at + i + "= Table::new(\"".len();
                        let end = start + text[start..].find('"').unwrap();
                        declared.push((text[start..end].to_string(), path.clone()));
                        at = end;
                    }
                }
            }
        }
        assert!(declared.len() >= 13, "found only {declared:?}");
        for (name, path) in declared {
            assert!(
                super::ALL_TABLES.contains(&name.as_str()),
                "table `{name}` ({}) is not in ALL_TABLES",
                path.display()
            );
        }
    }

    /// A relation is stored as the word it was when the field was a string: stores written
    /// before read the same, and a word this version does not know reads as unknown.
    #[test]
    fn a_relation_is_stored_as_its_word() {
        use super::Relation;
        let cfg = bincode::config::standard();
        for r in [
            Relation::Newer,
            Relation::Ahead,
            Relation::Diverged,
            Relation::Same,
            Relation::Differs,
            Relation::Unknown,
        ] {
            let as_word = bincode::serde::encode_to_vec(r.as_str(), cfg).unwrap();
            assert_eq!(bincode::serde::encode_to_vec(r, cfg).unwrap(), as_word);
            let (back, _): (Relation, usize) =
                bincode::serde::decode_from_slice(&as_word, cfg).unwrap();
            assert_eq!(back, r);
        }
        let later = bincode::serde::encode_to_vec("overtaken", cfg).unwrap();
        let (back, _): (Relation, usize) = bincode::serde::decode_from_slice(&later, cfg).unwrap();
        assert_eq!(back, Relation::Unknown);
    }
}
