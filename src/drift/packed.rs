//! What an npm package's `files` list packs: the files a consumer installs. An example or
//! script of the package outside it (openinference's and phoenix's `examples/*.ts` beside
//! `"files": ["dist", "src"]`) is never installed, so what it imports is no shipped code's: a
//! maintainer runs it from the repository, with the dev dependencies there. (Sources outside
//! the list are compiled into what it names — `src/` into `dist/` —, so only directories of
//! files run by hand are read so.)

/// The directories and files a package.json's `files` names. `None` when there is no such
/// list, or one mesh does not read whole (a glob, a negation).
pub(super) struct Packed {
    entries: Vec<String>,
}

impl Packed {
    /// Reads `package_json`'s `files`; npm also packs what `main`, `module`, `browser`,
    /// `types` and `bin` name.
    pub(super) fn read(package_json: &serde_json::Value) -> Option<Packed> {
        let files = package_json.get("files")?.as_array()?;
        let mut entries = Vec::new();
        for f in files {
            let f = f.as_str()?;
            let f = f.trim_start_matches("./");
            let f = f
                .strip_suffix("/**/*")
                .or_else(|| f.strip_suffix("/**"))
                .or_else(|| f.strip_suffix("/*"))
                .unwrap_or(f)
                .trim_end_matches('/');
            if f.is_empty() || f.starts_with('!') || f.contains(['*', '?', '{', '[']) {
                return None;
            }
            entries.push(f.to_string());
        }
        let mut packed = Packed { entries };
        for key in ["main", "module", "browser", "types", "typings"] {
            if let Some(p) = package_json.get(key).and_then(|v| v.as_str()) {
                packed.entries.push(p.trim_start_matches("./").to_string());
            }
        }
        match package_json.get("bin") {
            Some(serde_json::Value::String(p)) => {
                packed.entries.push(p.trim_start_matches("./").to_string())
            }
            Some(serde_json::Value::Object(m)) => packed.entries.extend(
                m.values()
                    .filter_map(|v| v.as_str())
                    .map(|p| p.trim_start_matches("./").to_string()),
            ),
            _ => {}
        }
        Some(packed)
    }

    /// Whether the package-relative file `rel` is packed.
    pub(super) fn holds(&self, rel: &str) -> bool {
        self.entries.iter().any(|e| {
            rel == e
                || rel
                    .strip_prefix(e.as_str())
                    .is_some_and(|r| r.starts_with('/'))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Option<Packed> {
        let v: serde_json::Value = serde_json::from_str(json).expect("json");
        Packed::read(&v)
    }

    #[test]
    fn a_files_list_leaves_examples_out() {
        let p = read(
            r#"{"files": ["dist", "./src/"], "bin": {"x": "./bin/x.js"}, "main": "lib/index.js"}"#,
        )
        .expect("read");
        assert!(p.holds("src/index.ts"));
        assert!(p.holds("bin/x.js"));
        assert!(p.holds("lib/index.js"));
        assert!(!p.holds("examples/run.ts"));
        assert!(!p.holds("srcx/a.ts"));
    }

    #[test]
    fn globs_negations_and_no_list_say_nothing() {
        assert!(read(r#"{"files": ["src", "!src/**/*.test.ts"]}"#).is_none());
        assert!(read(r#"{"files": ["src/*.ts"]}"#).is_none());
        assert!(read(r#"{"name": "x"}"#).is_none());
        assert!(
            read(r#"{"files": ["src/**"]}"#)
                .expect("read")
                .holds("src/a/b.ts")
        );
    }
}
