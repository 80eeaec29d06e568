//! `mesh.toml`: the mesh's repositories, nodes, assignments and settings.

use super::MESH_TOML;
use super::diag::{ConfigError, LoadError, Reporter, UnknownNode, Unreadable};
use super::repo::RepoConfig;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// The whole of `mesh.toml`, validated.
#[derive(Debug, Clone)]
pub struct MeshConfig {
    /// The directory holding `mesh.toml`; relative paths are taken from here.
    pub dir: PathBuf,
    /// The file itself, as shown in messages.
    pub file: String,
    /// Its text, kept so later checks (against the modules found) can point into it.
    pub text: String,
    /// `[mesh] name`.
    pub name: String,
    /// `[[repo]]`, in file order.
    pub repos: Vec<RepoConfig>,
    /// `[ssh]`: defaults for every ssh node.
    pub ssh: SshDefaults,
    /// `[node.NAME]`, by name.
    pub nodes: BTreeMap<String, NodeConfig>,
    /// `[assign]`, in file order.
    pub assign: Vec<Assignment>,
    /// `[hooks]`.
    pub hooks: Hooks,
    /// `[mesh]` settings beyond the name.
    pub settings: Settings,
    /// `[status]`: the page every `mesh reconcile` writes.
    pub status: StatusPage,
    /// `[mesh] controller`: this controller's name (default: the host name).
    pub controller: String,
    /// `[controllers]`: the other controllers the nodes may trust, sorted by name; delivered
    /// inside every declaration.
    pub controllers: Vec<crate::controller::Signer>,
    /// The age recipient (`age1…`) of each controller of `[controllers]` that gave one, by
    /// name: the mesh directory's secrets are encrypted to them (and to this controller).
    pub recipients: BTreeMap<String, String>,
    /// The secrets of `secrets/` in the mesh directory, each by module and name (values stay
    /// encrypted; only what their files say in plain text is read). Empty from [`Self::parse`].
    pub secrets: super::secrets::Index,
    /// `[rollout]`: how a module's new build reaches its nodes (one wave to every node when
    /// unset); a module's manifest may say otherwise.
    pub rollout: super::Rollout,
    /// `[remote]`: the REAPI engine builds are shared through (none: every build here).
    pub remote: Option<super::RemoteConfig>,
}

/// How long a node may stay silent when `[ssh] timeout` is not set.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// `[ssh]` defaults.
#[derive(Debug, Clone)]
pub struct SshDefaults {
    /// How many nodes are worked on at once.
    pub parallel: usize,
    /// Extra ssh arguments for every ssh node.
    pub options: Vec<String>,
    /// ssh's `ConnectTimeout`.
    pub connect_timeout: Duration,
    /// How long a node may stay silent: every read from a node (its answers, its stderr)
    /// fails once this passes without progress, so a stalled node never holds the run.
    pub timeout: Duration,
    /// Keep each node's ssh connection open this long after a run, so the next run (cron)
    /// reuses it instead of a new handshake. `None`: one connection per node per run.
    pub persist: Option<Duration>,
}

/// How a node is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// The system `ssh` binary.
    Ssh,
    /// A directory on this machine.
    Local,
}

impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Transport::Ssh => "ssh",
            Transport::Local => "local",
        })
    }
}

/// One `[node.NAME]`.
#[derive(Debug, Clone)]
pub struct NodeConfig {
    /// The node's name.
    pub name: String,
    /// How it is reached.
    pub transport: Transport,
    /// `user@host` handed to ssh (ssh nodes only).
    pub address: Option<String>,
    /// The node's root directory; for local nodes made absolute from the mesh directory.
    pub root: String,
    /// Tags, used by `@tag` in `[assign]`.
    pub tags: Vec<String>,
    /// Extra ssh arguments for this node, after `[ssh] options`.
    pub options: Vec<String>,
}

/// One line of `[assign]`: a module and where it runs.
#[derive(Debug, Clone)]
pub struct Assignment {
    /// The module assigned.
    pub module: String,
    /// Where the module's name is written.
    pub module_span: Range<usize>,
    /// The nodes and tags it is assigned to.
    pub targets: Vec<(Target, Range<usize>)>,
}

/// A node by name, or every node carrying a tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `"ace"`.
    Node(String),
    /// `"@edge"`.
    Tag(String),
}

/// `[hooks]`.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    /// A command that receives each new fact as JSON on stdin.
    pub on_event: Option<String>,
    /// How long a hook may run before it is stopped.
    pub timeout: Duration,
}

/// `[status]`: where every `mesh reconcile` writes the status page, and how often a browser
/// showing it loads it again.
#[derive(Debug, Clone, Default)]
pub struct StatusPage {
    /// The page's path (relative paths are taken from the directory of mesh.toml); none unless
    /// `page` is set.
    pub page: Option<PathBuf>,
    /// How often a browser showing the page loads it again (`refresh`).
    pub refresh: Option<Duration>,
}

/// `[mesh]` settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// A current node not seen for longer than this needs a look.
    pub silent_after: Duration,
    /// How many facts the events log keeps.
    pub events_keep: u64,
    /// How many build logs are kept per module.
    pub logs_keep: usize,
    /// How many of each module's newest builds garbage collection keeps (besides every build a
    /// node was sent or applied, and the declared one).
    pub builds_keep: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMesh {
    mesh: RawMeshSection,
    #[serde(default)]
    repo: Vec<super::repo::RawRepo>,
    ssh: Option<RawSsh>,
    #[serde(default)]
    node: BTreeMap<Spanned<String>, RawNode>,
    #[serde(default)]
    assign: BTreeMap<Spanned<String>, Spanned<Vec<Spanned<String>>>>,
    hooks: Option<RawHooks>,
    #[serde(default)]
    controllers: BTreeMap<Spanned<String>, Spanned<String>>,
    status: Option<RawStatus>,
    rollout: Option<super::rollout::RawRollout>,
    remote: Option<super::remote::RawRemote>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStatus {
    page: Option<Spanned<String>>,
    refresh: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMeshSection {
    name: Spanned<String>,
    controller: Option<Spanned<String>>,
    silent_after: Option<Spanned<String>>,
    events_keep: Option<u64>,
    logs_keep: Option<usize>,
    builds_keep: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSsh {
    parallel: Option<Spanned<usize>>,
    #[serde(default)]
    options: Vec<String>,
    connect_timeout: Option<Spanned<String>>,
    timeout: Option<Spanned<String>>,
    persist: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNode {
    transport: Option<Spanned<String>>,
    address: Option<Spanned<String>>,
    root: Option<Spanned<String>>,
    #[serde(default)]
    tags: Vec<Spanned<String>>,
    #[serde(default)]
    options: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHooks {
    on_event: Option<String>,
    timeout: Option<Spanned<String>>,
}

/// Finds `mesh.toml` in `start` or the nearest directory above it.
pub fn find_mesh_toml(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|d| d.join(MESH_TOML))
        .find(|p| p.is_file())
}

const MESH_HELP: &str =
    "see the configuration reference in README.md (`mesh init` writes a commented example)";

impl MeshConfig {
    /// Module → the nodes it is assigned to (by name, or by tag), from `[assign]`.
    pub fn placement(&self) -> std::collections::HashMap<&str, std::collections::BTreeSet<&str>> {
        use std::collections::{BTreeSet, HashMap};
        let mut tagged: HashMap<&str, Vec<&str>> = HashMap::new();
        for n in self.nodes.values() {
            for t in &n.tags {
                tagged.entry(t.as_str()).or_default().push(n.name.as_str());
            }
        }
        let mut where_: HashMap<&str, BTreeSet<&str>> = HashMap::new();
        for a in &self.assign {
            let nodes = where_.entry(a.module.as_str()).or_default();
            for (t, _) in &a.targets {
                match t {
                    Target::Node(n) => {
                        nodes.insert(n.as_str());
                    }
                    Target::Tag(tag) => {
                        nodes.extend(tagged.get(tag.as_str()).into_iter().flatten())
                    }
                }
            }
        }
        where_
    }

    /// Reads and validates `mesh.toml` at `path`.
    pub fn load(path: &Path) -> Result<MeshConfig, LoadError> {
        let text = std::fs::read_to_string(path).map_err(|e| Unreadable {
            what: format!("cannot read {}", path.display()),
            source: e,
            hint: "run `mesh init` to write a mesh.toml, or pass `-C DIR` to point at the mesh"
                .into(),
        })?;
        let dir = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let dir = std::path::absolute(&dir).unwrap_or(dir);
        let mut mesh = MeshConfig::parse(&text, &path.display().to_string(), &dir)?;
        mesh.secrets = super::secrets::Index::read(&dir)?;
        Ok(mesh)
    }

    /// Parses `text` as `mesh.toml` shown as `file`, with relative paths taken from `dir`.
    pub fn parse(text: &str, file: &str, dir: &Path) -> Result<MeshConfig, ConfigError> {
        let r = Reporter { file, text };
        let raw: RawMesh = toml::from_str(text).map_err(|e| r.toml(e, MESH_HELP))?;
        let name = r.name("mesh", &raw.mesh.name)?;
        let repos = super::repo::parse_repos(&r, &raw.repo, dir)?;
        let ssh = Self::parse_ssh(&r, raw.ssh.as_ref())?;
        let nodes = Self::parse_nodes(&r, &raw.node, dir)?;
        Self::check_distinct_roots(&r, &raw, &nodes)?;
        let assign = Self::parse_assign(&r, &raw.assign, &nodes)?;
        let hooks = Self::parse_hooks(&r, raw.hooks.as_ref())?;
        let settings = Self::parse_settings(&r, &raw.mesh)?;
        let status = Self::parse_status(&r, raw.status.as_ref(), dir)?;
        let controller = match &raw.mesh.controller {
            Some(c) => r.name("controller", c)?,
            None => crate::controller::default_name(),
        };
        let (controllers, recipients) = Self::parse_controllers(&r, &raw.controllers)?;
        let rollout = match &raw.rollout {
            Some(raw) => super::Rollout::over(&super::Rollout::default(), &raw.parse(&r)?),
            None => super::Rollout::default(),
        };
        let remote = match &raw.remote {
            Some(raw) => Some(raw.parse(&r, dir)?),
            None => None,
        };
        Ok(MeshConfig {
            dir: dir.to_path_buf(),
            file: file.to_string(),
            text: text.to_string(),
            name,
            repos,
            ssh,
            nodes,
            assign,
            hooks,
            settings,
            status,
            controller,
            controllers,
            recipients,
            secrets: Default::default(),
            rollout,
            remote,
        })
    }

    /// `[status]`: no page unless `page` is set; a path to a file (not empty, not a directory
    /// name ending in `/`), taken from mesh.toml's directory when relative.
    fn parse_status(
        r: &Reporter,
        raw: Option<&RawStatus>,
        dir: &Path,
    ) -> Result<StatusPage, ConfigError> {
        let Some(raw) = raw else {
            return Ok(StatusPage::default());
        };
        let page = match &raw.page {
            Some(p) if p.get_ref().trim().is_empty() || p.get_ref().ends_with('/') => {
                return Err(r.error(
                    "mesh::config::status_page",
                    Some(p.span()),
                    "`page` must name a file",
                    "not a file name",
                    "write the HTML file every `mesh reconcile` writes, such as \"status.html\" or \"/var/www/mesh/index.html\"",
                ));
            }
            Some(p) => Some(dir.join(p.get_ref())),
            None => None,
        };
        let refresh = match &raw.refresh {
            Some(d) => {
                let d = r.duration("refresh", d)?;
                (!d.is_zero()).then_some(d)
            }
            None => None,
        };
        Ok(StatusPage { page, refresh })
    }

    /// `[controllers]`: `name = "ed25519:… age1…"` as `mesh id` prints it (the age recipient
    /// may be left out: that controller reads no secret); each key once.
    fn parse_controllers(
        r: &Reporter,
        raw: &BTreeMap<Spanned<String>, Spanned<String>>,
    ) -> Result<(Vec<crate::controller::Signer>, BTreeMap<String, String>), ConfigError> {
        let mut out: Vec<crate::controller::Signer> = Vec::new();
        let mut recipients = BTreeMap::new();
        for (name, value) in raw {
            let name = r.name("controller", name)?;
            let mut words = value.get_ref().split_whitespace();
            let key = words.next().unwrap_or_default().to_string();
            let recipient = words.next().map(str::to_string);
            let invalid = |why: String| {
                r.error(
                    "mesh::config::invalid_controller_key",
                    Some(value.span()),
                    format!("[controllers] {name}: {why}"),
                    "not a controller key",
                    "paste the line `mesh id` prints on that controller (`ed25519:` and 64 hex characters, then its `age1…` recipient)",
                )
            };
            crate::controller::parse_key(&key).map_err(&invalid)?;
            if let Some(rcpt) = &recipient {
                mesh_proto::secret::parse_recipient(rcpt).map_err(&invalid)?;
            }
            if let Some(extra) = words.next() {
                return Err(invalid(format!(
                    "{extra:?} is more than a key and a recipient"
                )));
            }
            if let Some(other) = out.iter().find(|s| s.key == key) {
                return Err(r.error(
                    "mesh::config::duplicate_controller_key",
                    Some(value.span()),
                    format!("[controllers] {name} has the key of {}", other.name),
                    "the same key twice",
                    "one controller, one key: remove one of the two entries",
                ));
            }
            if let Some(rcpt) = recipient {
                recipients.insert(name.clone(), rcpt);
            }
            out.push(crate::controller::Signer { key, name });
        }
        Ok((out, recipients))
    }

    /// `[ssh]`, its defaults where a field (or the whole table) is absent: 16 nodes at once,
    /// a 10 s connect timeout, 30 s without progress, no persistent connection.
    fn parse_ssh(r: &Reporter, raw: Option<&RawSsh>) -> Result<SshDefaults, ConfigError> {
        let Some(s) = raw else {
            return Ok(SshDefaults {
                parallel: 16,
                options: Vec::new(),
                connect_timeout: Duration::from_secs(10),
                timeout: DEFAULT_TIMEOUT,
                persist: None,
            });
        };
        Ok(SshDefaults {
            parallel: match &s.parallel {
                Some(p) => r.at_least_one(
                    "mesh::config::invalid_parallel",
                    "parallel",
                    p,
                    "set `parallel` to how many nodes may be worked on at once, e.g. 16",
                )?,
                None => 16,
            },
            options: s.options.clone(),
            connect_timeout: match &s.connect_timeout {
                Some(d) => r.duration("connect_timeout", d)?,
                None => Duration::from_secs(10),
            },
            timeout: match &s.timeout {
                Some(d) => r.positive_duration(
                    "timeout",
                    d,
                    "set `timeout` to how long a node may stay silent, e.g. \"30s\"",
                )?,
                None => DEFAULT_TIMEOUT,
            },
            persist: match &s.persist {
                Some(d) => Some(r.duration("persist", d)?),
                None => None,
            },
        })
    }

    /// `[node.NAME]`, by name.
    fn parse_nodes(
        r: &Reporter,
        raw: &BTreeMap<Spanned<String>, RawNode>,
        dir: &Path,
    ) -> Result<BTreeMap<String, NodeConfig>, ConfigError> {
        let mut nodes = BTreeMap::new();
        for (node_name, node) in raw {
            let n = r.name("node", node_name)?;
            nodes.insert(n.clone(), Self::parse_node(r, dir, n, node_name, node)?);
        }
        Ok(nodes)
    }

    /// `[assign]`, in file order: every target a node that exists or a tag some node carries.
    fn parse_assign(
        r: &Reporter,
        raw: &BTreeMap<Spanned<String>, Spanned<Vec<Spanned<String>>>>,
        nodes: &BTreeMap<String, NodeConfig>,
    ) -> Result<Vec<Assignment>, ConfigError> {
        let tags: BTreeSet<&str> = nodes
            .values()
            .flat_map(|n| n.tags.iter().map(String::as_str))
            .collect();
        let mut assign = Vec::new();
        for (module, targets) in raw {
            let m = r.name("module", module)?;
            let mut ts = Vec::new();
            for t in targets.get_ref() {
                ts.push((Self::parse_target(r, t, &tags, nodes)?, t.span()));
            }
            assign.push(Assignment {
                module: m,
                module_span: module.span(),
                targets: ts,
            });
        }
        assign.sort_by_key(|a| a.module_span.start);
        Ok(assign)
    }

    /// One target of `[assign]`: `"@tag"` for every node carrying the tag, else a node's name.
    fn parse_target(
        r: &Reporter,
        t: &Spanned<String>,
        tags: &BTreeSet<&str>,
        nodes: &BTreeMap<String, NodeConfig>,
    ) -> Result<Target, ConfigError> {
        if let Some(tag) = t.get_ref().strip_prefix('@') {
            if !tags.contains(tag) {
                return Err(r.error(
                    "mesh::config::unknown_tag",
                    Some(t.span()),
                    format!("no node carries the tag `{tag}`"),
                    "unknown tag",
                    format!(
                        "add \"{tag}\" to some node's `tags`, or assign by node name{}",
                        known_list("tags", tags.iter().copied())
                    ),
                ));
            }
            return Ok(Target::Tag(tag.to_string()));
        }
        if !nodes.contains_key(t.get_ref()) {
            return Err(r.error(
                "mesh::config::unknown_node",
                Some(t.span()),
                format!("no node is named `{}`", t.get_ref()),
                "unknown node",
                format!(
                    "define [node.{}], or assign to a node that exists{}",
                    t.get_ref(),
                    known_list("nodes", nodes.keys().map(String::as_str))
                ),
            ));
        }
        Ok(Target::Node(t.get_ref().clone()))
    }

    /// `[hooks]`: no hook unless `on_event` is set; a hook may run 10 s unless told otherwise.
    fn parse_hooks(r: &Reporter, raw: Option<&RawHooks>) -> Result<Hooks, ConfigError> {
        let Some(h) = raw else {
            return Ok(Hooks {
                on_event: None,
                timeout: Duration::from_secs(10),
            });
        };
        Ok(Hooks {
            on_event: h.on_event.clone(),
            timeout: match &h.timeout {
                Some(d) => r.duration("timeout", d)?,
                None => Duration::from_secs(10),
            },
        })
    }

    /// The settings of `[mesh]`, with their defaults: a node silent for 24 h needs a look,
    /// 100 000 facts, 10 logs and 10 builds (at least 1) per module are kept.
    fn parse_settings(r: &Reporter, raw: &RawMeshSection) -> Result<Settings, ConfigError> {
        Ok(Settings {
            silent_after: match &raw.silent_after {
                Some(d) => r.duration("silent_after", d)?,
                None => Duration::from_secs(24 * 3600),
            },
            events_keep: raw.events_keep.unwrap_or(100_000),
            logs_keep: raw.logs_keep.unwrap_or(10),
            builds_keep: raw.builds_keep.unwrap_or(10).max(1),
        })
    }

    /// Two nodes on the same machine with the same root would overwrite each other's
    /// declaration, and every run would send and apply again: refused. The machine is the
    /// address's host part (ssh) or this machine (local); an ssh `Host` alias that names the
    /// same machine under another name cannot be seen from here.
    fn check_distinct_roots(
        r: &Reporter,
        raw: &RawMesh,
        nodes: &BTreeMap<String, NodeConfig>,
    ) -> Result<(), ConfigError> {
        let mut seen: BTreeMap<(String, String), &str> = BTreeMap::new();
        for key in raw.node.keys() {
            let Some(n) = nodes.get(key.get_ref()) else {
                continue;
            };
            let machine = match n.transport {
                Transport::Local => String::from("(this machine)"),
                Transport::Ssh => {
                    let a = n.address.as_deref().unwrap_or("");
                    let host = a.rsplit_once('@').map_or(a, |(_, h)| h);
                    let port = n
                        .options
                        .windows(2)
                        .find(|w| w[0] == "-p")
                        .map_or("", |w| w[1].as_str());
                    format!("{host}:{port}")
                }
            };
            let root = n.root.trim_end_matches('/').to_string();
            let root = if root.is_empty() { "/".into() } else { root };
            if let Some(first) = seen.insert((machine, root), n.name.as_str()) {
                return Err(r.error(
                    "mesh::config::shared_root",
                    Some(key.span()),
                    format!(
                        "nodes `{first}` and `{}` have the same root on the same machine",
                        n.name
                    ),
                    "same machine and root as another node",
                    format!(
                        "give [node.{}] a `root` of its own: two nodes in one directory overwrite each other's declaration and every run sends again",
                        n.name
                    ),
                ));
            }
        }
        Ok(())
    }

    /// One `[node.NAME]`: its transport, an address for ssh, a root (a local one taken from
    /// `dir`), its tags.
    fn parse_node(
        r: &Reporter,
        dir: &Path,
        name: String,
        key: &Spanned<String>,
        node: &RawNode,
    ) -> Result<NodeConfig, ConfigError> {
        let transport = match node.transport.as_ref().map(|t| (t.get_ref().as_str(), t)) {
            None | Some(("ssh", _)) => Transport::Ssh,
            Some(("local", _)) => Transport::Local,
            Some((other, t)) => {
                return Err(r.error(
                    "mesh::config::unknown_transport",
                    Some(t.span()),
                    format!("unknown transport `{other}`"),
                    "not a transport",
                    "`transport` is \"ssh\" (the default) or \"local\"",
                ));
            }
        };
        let address = node.address.as_ref().map(|a| a.get_ref().clone());
        if transport == Transport::Ssh && address.as_deref().is_none_or(str::is_empty) {
            return Err(r.error(
                "mesh::config::missing_address",
                Some(node.address.as_ref().map_or_else(|| key.span(), |a| a.span())),
                format!("node `{name}` has no address"),
                "an ssh node needs an address",
                format!(
                    "add `address = \"user@host\"` under [node.{name}], or `transport = \"local\"` for a directory on this machine"
                ),
            ));
        }
        if let Some(a) = &node.address
            && a.get_ref().starts_with('-')
        {
            return Err(r.error(
                "mesh::config::invalid_address",
                Some(a.span()),
                "an address may not start with `-`",
                "would be read by ssh as an option",
                "put ssh options in `options`, and the host in `address`",
            ));
        }
        let root = match &node.root {
            Some(root) => root.get_ref().clone(),
            None if transport == Transport::Ssh => "/var/lib/mesh".to_string(),
            None => {
                return Err(r.error(
                    "mesh::config::missing_root",
                    Some(key.span()),
                    format!("local node `{name}` has no root"),
                    "a local node needs a root",
                    format!("add `root = \"nodes/{name}\"` under [node.{name}]"),
                ));
            }
        };
        if let Some(raw) = &node.root {
            Self::check_root(r, &name, raw)?;
        }
        let root = if transport == Transport::Local {
            dir.join(root).display().to_string()
        } else {
            root
        };
        let mut tags = Vec::new();
        for t in &node.tags {
            tags.push(r.name("tag", t)?);
        }
        Ok(NodeConfig {
            name,
            transport,
            address,
            root,
            tags,
            options: node.options.clone(),
        })
    }

    /// A node's `root` that a command on the node could read as something else is refused
    /// where it is written: empty, starting with `-` (an option to the shell, `find` or
    /// `mkdir` that handle it: `root = "-delete"`), or holding a control character (a newline
    /// ends a command).
    fn check_root(r: &Reporter, name: &str, root: &Spanned<String>) -> Result<(), ConfigError> {
        let text = root.get_ref();
        let directory = "an absolute path such as `root = \"/var/lib/mesh\"`";
        let (message, label, help) = if text.trim().is_empty() {
            (
                "may not be empty",
                "no directory",
                format!("give it {directory}"),
            )
        } else if text.starts_with('-') {
            (
                "may not start with `-`",
                "would be read as an option by the commands that run on the node",
                format!(
                    "give it {directory}, or write a directory under the login directory with `./` first (`./{text}`)"
                ),
            )
        } else if text.chars().any(char::is_control) {
            (
                "may not hold a control character",
                "a newline or another control character",
                format!("give it {directory}"),
            )
        } else {
            return Ok(());
        };
        Err(r.error(
            "mesh::config::invalid_root",
            Some(root.span()),
            format!("the root of node `{name}` {message}: {text:?}"),
            label,
            format!("{help} under [node.{name}]"),
        ))
    }

    /// Checks `[assign]` against the modules the repositories hold: every assigned module must
    /// exist and must not be a library.
    pub(crate) fn check_assignments<'a>(
        &self,
        mut kind_of: impl FnMut(&str) -> Option<super::Kind>,
        all: impl Iterator<Item = &'a str> + Clone,
    ) -> Result<(), ConfigError> {
        let r = Reporter {
            file: &self.file,
            text: &self.text,
        };
        for a in &self.assign {
            match kind_of(&a.module) {
                None => {
                    return Err(r.error(
                        "mesh::config::unknown_module",
                        Some(a.module_span.clone()),
                        format!("no module is named `{}`", a.module),
                        "unknown module",
                        format!(
                            "assign a module some repository holds (a directory with a mesh-module.toml){}",
                            known_list("modules", all.clone())
                        ),
                    ));
                }
                Some(super::Kind::Library) => {
                    return Err(r.error(
                        "mesh::config::library_assigned",
                        Some(a.module_span.clone()),
                        format!("`{}` is a library and cannot be assigned", a.module),
                        "a library",
                        "libraries are built and judged but never run on a node: remove this line",
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// The node called `name`, or an error naming the nodes there are.
    pub fn node(&self, name: &str) -> Result<&NodeConfig, UnknownNode> {
        self.nodes.get(name).ok_or_else(|| UnknownNode {
            name: name.to_string(),
            known: known_list("nodes", self.nodes.keys().map(String::as_str)),
        })
    }

    /// A diagnostic pointing at a repository's `path` or `ref`.
    pub(crate) fn repo_error(
        &self,
        repo: &RepoConfig,
        at_ref: bool,
        message: String,
        help: String,
    ) -> ConfigError {
        let span = if at_ref {
            repo.ref_span.clone()
        } else {
            repo.path_span.clone()
        };
        ConfigError::new(
            if at_ref {
                "mesh::source::unknown_ref"
            } else {
                "mesh::source::unreadable_repo"
            },
            &self.file,
            &self.text,
            Some(span),
            message,
            if at_ref {
                "this ref"
            } else {
                "this repository"
            },
            help,
        )
    }
}

/// ", known X: a, b, c" or nothing when there are none.
pub fn known_list<'a>(what: &str, names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.take(12).collect();
    if names.is_empty() {
        String::new()
    } else {
        format!(" (known {what}: {})", names.join(", "))
    }
}
