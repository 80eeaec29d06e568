//! `[remote]` in mesh.toml: the REAPI engine builds are shared through (its endpoint and
//! instance, whether this controller writes results and whether builds run there), and how
//! to reach it (a CA, headers, a bearer token read from a file, a bounded wait).

use super::diag::{ConfigError, Reporter};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// How long one call to the engine may take when `timeout` is unset.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// How many builds run on the engine at once when `jobs` is unset.
const DEFAULT_JOBS: usize = 8;

/// `[remote]`, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteConfig {
    /// `grpc://host:port` or `grpcs://host:port` as written (`http://`/`https://` too).
    pub endpoint: String,
    /// The engine's instance name (`""` unless the engine serves several).
    pub instance: String,
    /// This controller writes what it builds to the cache: true for cron and CI, false for
    /// laptops.
    pub upload: bool,
    /// Builds the cache lacks run on the engine's workers rather than here.
    pub execute: bool,
    /// How many builds run on the engine at once (`-j` bounds the local ones).
    pub jobs: usize,
    /// Extra request headers, by name (lowercase).
    pub headers: BTreeMap<String, String>,
    /// A file holding a bearer token, sent as `authorization: Bearer …`.
    pub token_file: Option<PathBuf>,
    /// A PEM file of the certificate authority a `grpcs://` engine is checked against (unset:
    /// the system's roots).
    pub ca: Option<PathBuf>,
    /// How long one call may take; the first call that fails or runs out of it turns the
    /// engine off for the rest of the run.
    pub timeout: Duration,
}

impl RemoteConfig {
    /// Whether the engine is reached over TLS.
    pub fn tls(&self) -> bool {
        self.endpoint.starts_with("grpcs://") || self.endpoint.starts_with("https://")
    }
}

/// `[remote]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRemote {
    endpoint: Spanned<String>,
    #[serde(default)]
    instance: String,
    #[serde(default)]
    upload: bool,
    #[serde(default)]
    execute: bool,
    jobs: Option<Spanned<usize>>,
    #[serde(default)]
    headers: BTreeMap<Spanned<String>, String>,
    token_file: Option<Spanned<String>>,
    ca: Option<Spanned<String>>,
    timeout: Option<Spanned<String>>,
}

impl RawRemote {
    /// `[remote]` checked: an endpoint mesh can reach, header names that are headers, files
    /// taken from mesh.toml's directory `dir`, a timeout and a job count above zero.
    pub(super) fn parse(&self, r: &Reporter, dir: &Path) -> Result<RemoteConfig, ConfigError> {
        let endpoint = self.endpoint.get_ref().trim().to_string();
        let scheme_ok = ["grpc://", "grpcs://", "http://", "https://"]
            .iter()
            .any(|s| {
                endpoint
                    .strip_prefix(s)
                    .is_some_and(|rest| !rest.is_empty())
            });
        if !scheme_ok {
            return Err(r.error(
                "mesh::config::invalid_remote_endpoint",
                Some(self.endpoint.span()),
                format!("`endpoint` {endpoint:?} is not an engine address"),
                "not grpc://HOST:PORT",
                "write the engine's address, e.g. \"grpc://build.example.net:8980\" (or grpcs:// for TLS)",
            ));
        }
        let mut headers = BTreeMap::new();
        for (name, value) in &self.headers {
            let lower = name.get_ref().to_ascii_lowercase();
            let valid = !lower.is_empty()
                && lower
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !valid || value.bytes().any(|b| b.is_ascii_control()) {
                return Err(r.error(
                    "mesh::config::invalid_remote_header",
                    Some(name.span()),
                    format!("header {:?} cannot be sent", name.get_ref()),
                    "not a header",
                    "header names are letters, digits, `-` and `_`; values are one line of text",
                ));
            }
            headers.insert(lower, value.clone());
        }
        let timeout = match &self.timeout {
            Some(d) => r.positive_duration(
                "timeout",
                d,
                "set `timeout` to how long one call to the engine may take, e.g. \"10s\"",
            )?,
            None => DEFAULT_TIMEOUT,
        };
        let jobs = match &self.jobs {
            Some(j) => r.at_least_one(
                "mesh::config::invalid_jobs",
                "jobs",
                j,
                "set `jobs` to how many builds may wait on the engine at once, e.g. 8",
            )?,
            None => DEFAULT_JOBS,
        };
        let file = |f: &Option<Spanned<String>>| f.as_ref().map(|p| dir.join(p.get_ref()));
        Ok(RemoteConfig {
            endpoint,
            instance: self.instance.clone(),
            upload: self.upload,
            execute: self.execute,
            jobs,
            headers,
            token_file: file(&self.token_file),
            ca: file(&self.ca),
            timeout,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::config::MeshConfig;
    use std::path::Path;

    fn parse(remote: &str) -> Result<MeshConfig, crate::config::ConfigError> {
        let text = format!("[mesh]\nname = \"m\"\n\n[remote]\n{remote}\n");
        MeshConfig::parse(&text, "mesh.toml", Path::new("/srv/mesh"))
    }

    #[test]
    fn a_remote_is_read_with_its_defaults() {
        let m = parse("endpoint = \"grpc://cache:8980\"\ntoken_file = \"token\"").unwrap();
        let r = m.remote.expect("a remote");
        assert_eq!(r.endpoint, "grpc://cache:8980");
        assert_eq!(
            (r.instance.as_str(), r.upload, r.execute),
            ("", false, false)
        );
        assert_eq!(r.timeout, super::DEFAULT_TIMEOUT);
        assert_eq!(r.token_file.as_deref(), Some(Path::new("/srv/mesh/token")));
        assert!(!r.tls());
        assert!(parse("").unwrap_err().to_string().contains("endpoint"));
        assert!(
            MeshConfig::parse("[mesh]\nname = \"m\"\n", "f", Path::new("/"))
                .unwrap()
                .remote
                .is_none()
        );
    }

    #[test]
    fn a_bad_remote_points_at_what_is_wrong() {
        for (bad, says) in [
            ("endpoint = \"cache:8980\"", "not an engine address"),
            (
                "endpoint = \"grpc://c:1\"\ntimeout = \"0s\"",
                "longer than zero",
            ),
            ("endpoint = \"grpc://c:1\"\njobs = 0", "at least 1"),
            (
                "endpoint = \"grpc://c:1\"\nheaders = { \"a b\" = \"x\" }",
                "cannot be sent",
            ),
            ("endpoint = \"grpc://c:1\"\nexecut = true", "unknown field"),
        ] {
            let e = parse(bad).expect_err(bad);
            assert!(e.to_string().contains(says), "{bad}: {e}");
        }
    }
}
