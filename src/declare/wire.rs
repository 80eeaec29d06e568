//! The declaration as it travels and as the node keeps it (`root/declaration.json`): JSON an
//! operator can read, in a canonical form, inside an envelope that adds the sequence and digest.
//! The node parses it strictly: a field it does not know refuses the whole declaration.

use serde::{Deserialize, Serialize};

/// One module a node should run. Fields are in alphabetical order: the encoding is canonical.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeclaredModule {
    /// Run in the unpacked artifact after the switch; exit 0 is part of the read-back.
    pub activate: Option<String>,
    /// The artifact's blake3 digest.
    pub artifact: String,
    /// The build id this artifact came from.
    pub build: String,
    /// The commit it was built from.
    pub commit: String,
    /// The module's name.
    pub name: String,
    /// The artifact's size in bytes.
    pub size: u64,
}

/// What one node should run. Fields are in alphabetical order so the serde encoding is canonical.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declaration {
    /// The mesh's name.
    pub mesh: String,
    /// The modules, sorted by name.
    pub modules: Vec<DeclaredModule>,
    /// The node's name.
    pub node: String,
}

/// The declaration with its sequence and digest, as sent and as kept on the node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    /// The declaration.
    pub declaration: Declaration,
    /// blake3 of the declaration's canonical encoding (without the sequence).
    pub digest: String,
    /// Rises by one each time a different digest is sent to the node.
    pub sequence: u64,
}

impl Declaration {
    /// The canonical encoding: struct fields in alphabetical order, no insignificant whitespace.
    pub fn canonical(&self) -> Vec<u8> {
        // Plain structs of strings and numbers always serialize.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// blake3 over the canonical encoding, lowercase hex.
    pub fn digest(&self) -> String {
        blake3::hash(&self.canonical()).to_hex().to_string()
    }

    /// Wraps it with its sequence and digest.
    pub fn seal(self, sequence: u64) -> Envelope {
        let digest = self.digest();
        Envelope {
            declaration: self,
            digest,
            sequence,
        }
    }
}

impl Envelope {
    /// The envelope's canonical bytes (what is sent and written on the node).
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// Whether the digest matches the content.
    pub fn digest_matches(&self) -> bool {
        self.declaration.digest() == self.digest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl() -> Declaration {
        Declaration {
            mesh: "demo".into(),
            node: "ace".into(),
            modules: vec![DeclaredModule {
                name: "route-proxy".into(),
                build: "b1".into(),
                artifact: "ab".repeat(32),
                size: 10,
                commit: "c0ffee".into(),
                activate: Some("bin/route-proxy --selfcheck".into()),
            }],
        }
    }

    #[test]
    fn canonical_keys_are_sorted_and_compact() {
        let s = String::from_utf8(decl().canonical()).expect("utf8");
        assert!(
            s.starts_with(r#"{"mesh":"demo","modules":[{"activate":"#),
            "{s}"
        );
        assert!(!s.contains(' ') || s.contains("--selfcheck"));
        let env = decl().seal(3);
        let e = String::from_utf8(env.to_bytes()).expect("utf8");
        assert!(
            e.starts_with(r#"{"declaration":{"#) && e.contains(r#""sequence":3}"#),
            "{e}"
        );
    }

    #[test]
    fn digest_ignores_the_sequence() {
        assert_eq!(decl().seal(1).digest, decl().seal(2).digest);
        let mut other = decl();
        other.modules[0].size = 11;
        assert_ne!(decl().digest(), other.digest());
    }

    #[test]
    fn unknown_fields_are_refused() {
        let mut v: serde_json::Value =
            serde_json::from_slice(&decl().seal(1).to_bytes()).expect("json");
        v["declaration"]["surprise"] = serde_json::json!(1);
        assert!(serde_json::from_value::<Envelope>(v).is_err());
    }
}
