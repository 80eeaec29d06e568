//! The declaration as it travels and as the node keeps it (`root/declaration.json`): JSON an
//! operator can read, in a canonical form, inside an envelope that adds the sequence and digest.
//! The node parses it strictly: a field it does not know refuses the whole declaration.

use crate::keys::{Identity, Signer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    /// Run in the module's current version to ask whether it works: exit 0 = healthy. Absent:
    /// the module is judged by its activate alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// How long one run of `check` may take, in milliseconds (absent: the node's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_timeout_ms: Option<u64>,
    /// The commit it was built from.
    pub commit: String,
    /// The module's name.
    pub name: String,
    /// Run (on request) to make credentials for a module that names this one in its
    /// `instantiation`: its standard output is `KEY=VALUE` lines. Absent: it makes none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provide: Option<String>,
    /// Its secrets, each by name and keyed digest (never a value), sorted by name; the node
    /// writes them under `ROOT/secrets/<name>/`. Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secrets: Vec<crate::secret::SecretRef>,
    /// How long after `activate` the check must keep passing before the version counts as
    /// applied, in milliseconds (absent: one check right after activate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle_ms: Option<u64>,
    /// The artifact's size in bytes.
    pub size: u64,
}

/// A module's build a rollout halted: a node that took it failed it. Named by the commit it
/// was built from, which every controller at that commit shares (build ids are each
/// controller's own).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Halted {
    /// The commit the halted build was made from.
    pub commit: String,
    /// The module.
    pub module: String,
}

/// What one node should run. Fields are in alphabetical order so the serde encoding is canonical.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declaration {
    /// The controllers (besides the one it pinned) a node may trust, as `[controllers]` of
    /// mesh.toml lists them, sorted by name: trusted once a trusted controller delivered them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controllers: Vec<Signer>,
    /// Builds a rollout halted, of the modules the node runs: carried so that every trusted
    /// controller (and one whose store was lost) knows them and never declares them again.
    /// Sorted; absent when none, so older declarations keep their digest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub halted: Vec<Halted>,
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
    /// Per repository its modules come from, the commit the controller read when it declared
    /// (the mesh directory's own under [`MESH_DIRECTORY`]): what git history compares when two
    /// controllers declare to one node. Not part of the digest: a commit that changes no
    /// declaration sends nothing.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub commits: BTreeMap<String, String>,
    /// The controller that signed it (absent only in envelopes from before signing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<Signer>,
    /// The declaration.
    pub declaration: Declaration,
    /// blake3 of the declaration's canonical encoding (without the sequence).
    pub digest: String,
    /// Rises by one each time a different digest is sent to the node.
    pub sequence: u64,
    /// The controller's ed25519 signature (hex) over the envelope's canonical bytes without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
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
            commits: BTreeMap::new(),
            controller: None,
            declaration: self,
            digest,
            sequence,
            signature: None,
        }
    }
}

impl Envelope {
    /// The envelope's canonical bytes (what is sent and written on the node).
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// An envelope as a node takes one: strict JSON (a field it does not know refuses it
    /// whole) in its canonical encoding, the bytes [`Envelope::to_bytes`] gives. Another
    /// spelling of the same value (a `\u` escape in the other case, added spaces) is refused,
    /// since [`Envelope::verify`] checks the value: the bytes kept must be the bytes signed.
    /// Why not, as a sentence.
    pub fn decode(bytes: &[u8]) -> Result<Envelope, String> {
        let envelope: Envelope = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        if envelope.to_bytes() != bytes {
            return Err(
                "it is not in its canonical encoding (the bytes a controller signs)".into(),
            );
        }
        Ok(envelope)
    }

    /// Whether the digest matches the content.
    pub fn digest_matches(&self) -> bool {
        self.declaration.digest() == self.digest
    }

    /// Signs it as `me`, declared from `commits` (see [`Envelope::commits`]).
    pub fn signed(mut self, me: &Identity, commits: BTreeMap<String, String>) -> Envelope {
        self.controller = Some(me.signer());
        self.commits = commits;
        self.signature = None;
        let signature = me.sign(&self.to_bytes());
        self.signature = Some(signature);
        self
    }

    /// The controller that signed it, when the signature is that controller's over these
    /// very bytes; why not, as a sentence.
    pub fn verify(&self) -> Result<&Signer, String> {
        let (Some(signer), Some(signature)) = (&self.controller, &self.signature) else {
            return Err("the declaration is not signed by a controller".into());
        };
        let unsigned = Envelope {
            signature: None,
            ..self.clone()
        };
        crate::keys::verify(signer, &unsigned.to_bytes(), signature)?;
        Ok(signer)
    }
}

/// What a declaration asks of a node apart from which build of each module it runs: the
/// modules and how each is activated, and the controllers it lists for the node to trust.
/// Two controllers that built the same commits declare other artifacts with the same plan
/// (the node keeps what it runs); another plan is a disagreement a person settles.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Each module assigned, with its `activate` command.
    pub modules: BTreeMap<String, Option<String>>,
    /// Key → name of each controller it lists (`[controllers]`).
    pub controllers: BTreeMap<String, String>,
}

impl Plan {
    /// The plan of `declaration`.
    pub fn of(declaration: &Declaration) -> Plan {
        Plan {
            modules: declaration
                .modules
                .iter()
                .map(|m| (m.name.clone(), m.activate.clone()))
                .collect(),
            controllers: declaration
                .controllers
                .iter()
                .map(|c| (c.key.clone(), c.name.clone()))
                .collect(),
        }
    }

    /// How `ours` (declared by `me`) differs from `theirs` (by `them`), as clauses naming what
    /// differs ("laptop assigns reporter and cron does not"); empty when the plans are the
    /// same. Each controller listing the other (or itself) is no difference: a node trusts the
    /// signer of what it runs as well as those listed.
    pub fn differences(ours: &Plan, theirs: &Plan, me: &Signer, them: &Signer) -> Vec<String> {
        let (m, t) = (&me.name, &them.name);
        let mut out = Vec::new();
        let only = |a: &Plan, b: &Plan| -> Vec<String> {
            a.modules
                .keys()
                .filter(|k| !b.modules.contains_key(*k))
                .cloned()
                .collect()
        };
        for (who, other, names) in [(m, t, only(ours, theirs)), (t, m, only(theirs, ours))] {
            if !names.is_empty() {
                out.push(format!(
                    "{who} assigns {} and {other} does not",
                    names.join(", ")
                ));
            }
        }
        let shown = |a: &Option<String>| {
            a.as_deref()
                .map_or("nothing".to_string(), |a| format!("`{a}`"))
        };
        for (module, activate) in &ours.modules {
            if let Some(other) = theirs.modules.get(module)
                && other != activate
            {
                out.push(format!(
                    "{module} is activated by {} from {m} and by {} from {t}",
                    shown(activate),
                    shown(other)
                ));
            }
        }
        let parties = [me.key.as_str(), them.key.as_str()];
        let listed = |a: &Plan, b: &Plan| -> Vec<String> {
            a.controllers
                .iter()
                .filter(|(k, _)| !parties.contains(&k.as_str()) && !b.controllers.contains_key(*k))
                .map(|(_, n)| n.clone())
                .collect()
        };
        for (who, other, names) in [(m, t, listed(ours, theirs)), (t, m, listed(theirs, ours))] {
            if !names.is_empty() {
                out.push(format!(
                    "{who} lists controller {} and {other} does not",
                    names.join(", ")
                ));
            }
        }
        out
    }
}

/// The name the mesh directory's own commit is compared under: not a valid repository name,
/// so it never meets one.
pub const MESH_DIRECTORY: &str = "(mesh directory)";

#[cfg(test)]
mod tests {
    use super::*;

    fn decl() -> Declaration {
        Declaration {
            controllers: Vec::new(),
            halted: Vec::new(),
            mesh: "demo".into(),
            node: "ace".into(),
            modules: vec![DeclaredModule {
                name: "route-proxy".into(),
                build: "b1".into(),
                artifact: "ab".repeat(32),
                size: 10,
                commit: "c0ffee".into(),
                activate: Some("bin/route-proxy --selfcheck".into()),
                check: None,
                check_timeout_ms: None,
                settle_ms: None,
                provide: None,
                secrets: Vec::new(),
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
    fn a_signature_covers_everything_but_itself() {
        let me = Identity::from_seed("laptop", [1; 32]);
        let commits = BTreeMap::from([("src".to_string(), "abc".to_string())]);
        let env = decl().seal(3).signed(&me, commits);
        assert_eq!(env.verify().map(|s| s.name.as_str()), Ok("laptop"));
        let mut other = env.clone();
        other.sequence = 4;
        assert!(other.verify().is_err());
        let mut other = env.clone();
        other.commits.clear();
        assert!(other.verify().is_err());
        let mut other = env.clone();
        other.declaration.modules[0].size = 11;
        assert!(other.verify().is_err());
        assert!(decl().seal(3).verify().is_err());
        // It travels and comes back the same.
        let back: Envelope = serde_json::from_slice(&env.to_bytes()).unwrap();
        assert_eq!(back.verify().map(|s| s.name.as_str()), Ok("laptop"));
    }

    /// Found by fuzzing (`fuzz/fuzz_targets/envelope.rs`): a signed envelope with one
    /// character of its signature made uppercase (`…087C0de…`) verified as the original.
    #[test]
    fn an_envelope_whose_signature_changed_case_does_not_verify() {
        const CHANGED: &str = r##"{"commits":{"src":"c0ffee"},"controller":{"key":"ed25519:ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c","name":"fuzz"},"declaration":{"mesh":"fuzz","modules":[{"activate":null,"artifact":"","build":"","commit":"c0ffee","name":"ion\":{\"mesh\":\"f\"},\"digest\":\"0c27d5af4bfc2c4996004a777e�\u000e7af79b74","size":0},{"activate":null,"artifact":"","build":"","commit":"c0ffee","name":"","size":0}],"node":"ace"},"digest":"ee1aea044802fc9a3aa2634c0d3fd375ccd7506ec433dc0e9ee729c2893d062a","sequence":1634885996,"signature":"6c4c9672d131c10bf990bdbc5175b0087C0de204d58acd78988eff000b1ea24f6506a6a8c92c107b20a072dc64f38198dca85ea763268291f6aeeb7e7c128702"}"##;
        let envelope = Envelope::decode(CHANGED.as_bytes()).expect("it decodes");
        assert!(envelope.verify().is_err());
        let original = CHANGED.replace("087C0de", "087c0de");
        let envelope = Envelope::decode(original.as_bytes()).expect("it decodes");
        assert_eq!(envelope.verify().map(|s| s.name.as_str()), Ok("fuzz"));
    }

    /// Found with the fuzzing of envelopes: `verify` checks the value, so another spelling of
    /// the same envelope (a `\u` escape in uppercase, a space) verified too; a node decodes
    /// only the canonical bytes.
    #[test]
    fn another_spelling_of_a_signed_envelope_is_refused() {
        let mut d = decl();
        d.modules[0].activate = Some("run \u{1a}".into());
        let env = d
            .seal(1)
            .signed(&Identity::from_seed("laptop", [1; 32]), BTreeMap::new());
        let bytes = String::from_utf8(env.to_bytes()).expect("utf8");
        assert!(bytes.contains("\\u001a"), "{bytes}");
        assert!(
            Envelope::decode(bytes.as_bytes())
                .expect("decodes")
                .verify()
                .is_ok()
        );
        for other in [
            bytes.replace("\\u001a", "\\u001A"),
            bytes.replacen(',', ", ", 1),
        ] {
            let same: Envelope = serde_json::from_str(&other).expect("JSON");
            assert!(same.verify().is_ok(), "the same value: {other}");
            let refused = Envelope::decode(other.as_bytes()).unwrap_err();
            assert!(refused.contains("canonical"), "{refused}");
        }
    }

    #[test]
    fn a_declaration_from_before_signing_keeps_its_digest() {
        // No controllers listed is not encoded: an old declaration hashes as it did.
        let s = String::from_utf8(decl().canonical()).expect("utf8");
        assert!(!s.contains("controllers"), "{s}");
        // Nor are checks or halted builds when there are none (protocol 4 added them).
        for field in [
            "\"check\"",
            "\"check_timeout_ms\"",
            "\"settle_ms\"",
            "\"halted\"",
        ] {
            assert!(!s.contains(field), "{field}: {s}");
        }
    }

    #[test]
    fn a_plan_differs_by_modules_activate_and_third_controllers_never_by_builds() {
        let laptop = Identity::from_seed("laptop", [1; 32]).signer();
        let cron = Identity::from_seed("cron", [2; 32]).signer();
        let ci = Identity::from_seed("ci", [3; 32]).signer();
        let mut ours = decl();
        ours.controllers = vec![cron.clone()];
        let mut theirs = decl();
        theirs.controllers = vec![laptop.clone()];
        // Another build of the same module, each listing the other: the same plan.
        theirs.modules[0].artifact = "cd".repeat(32);
        theirs.modules[0].build = "b2".into();
        let none = Plan::differences(&Plan::of(&ours), &Plan::of(&theirs), &laptop, &cron);
        assert!(none.is_empty(), "{none:?}");
        let mut reporter = ours.modules[0].clone();
        reporter.name = "reporter".into();
        ours.modules.push(reporter);
        theirs.modules[0].activate = None;
        theirs.controllers.push(ci);
        let said = Plan::differences(&Plan::of(&ours), &Plan::of(&theirs), &laptop, &cron);
        assert_eq!(
            said,
            [
                "laptop assigns reporter and cron does not",
                "route-proxy is activated by `bin/route-proxy --selfcheck` from laptop and by nothing from cron",
                "cron lists controller ci and laptop does not",
            ]
        );
    }

    #[test]
    fn unknown_fields_are_refused() {
        let mut v: serde_json::Value =
            serde_json::from_slice(&decl().seal(1).to_bytes()).expect("json");
        v["declaration"]["surprise"] = serde_json::json!(1);
        assert!(serde_json::from_value::<Envelope>(v).is_err());
    }
}
