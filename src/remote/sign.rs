//! The signature mesh adds to every result it writes: a controller's ed25519 signature over
//! the action digest, the output tree's digest, the artifact digest the outputs pack to and
//! the log's digest, carried as one more output file of the result ([`FILE`]). The key signs,
//! not the name: a controller renamed in `[controllers]` is still the same signer. A shared cache is writable by
//! whoever can reach it; a result is taken only when a controller this mesh trusts vouches
//! for it, and only when what is read matches what it signed.

use crate::controller::{Identity, Signer};
use bazel_remote_apis::build::bazel::remote::execution::v2::Digest;

/// The output file a signed result carries.
pub const FILE: &str = ".mesh-signature";

/// What a signature vouches for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vouch {
    /// The action's digest.
    pub action: Digest,
    /// The output directory's Tree message digest.
    pub tree: Digest,
    /// The artifact the outputs pack to, and its size.
    pub artifact: (String, u64),
    /// The log's digest (the result's standard output), if it has one.
    pub log: Option<Digest>,
}

impl Vouch {
    /// The bytes signed.
    fn payload(&self, key: &str) -> String {
        let log = match &self.log {
            Some(d) => format!("{}/{}", d.hash, d.size_bytes),
            None => "none".into(),
        };
        format!(
            "mesh remote result 2\naction {}/{}\ntree {}/{}\nartifact {} {}\nlog {log}\nkey {key}\n",
            self.action.hash,
            self.action.size_bytes,
            self.tree.hash,
            self.tree.size_bytes,
            self.artifact.0,
            self.artifact.1,
        )
    }

    /// The signature file's bytes: the payload, the signer's name (for people; not signed),
    /// then `signature <hex>`.
    pub fn sign(&self, me: &Identity) -> Vec<u8> {
        let payload = self.payload(&me.public());
        let sig = me.sign(payload.as_bytes());
        format!("{payload}name {}\nsignature {sig}\n", me.name).into_bytes()
    }
}

/// Who signed `file` for `action`, `tree` and `log`, and the artifact they vouched for, when
/// one of `trusted` did (by key; the name shown is this mesh's); why not, as the words a
/// warning ends with.
pub fn verify(
    file: &[u8],
    action: &Digest,
    tree: &Digest,
    log: Option<&Digest>,
    trusted: &[Signer],
) -> Result<(Signer, (String, u64)), String> {
    let text = std::str::from_utf8(file).map_err(|_| "its signature is not text".to_string())?;
    let field = |name: &str| -> Option<&str> {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
    };
    let key = field("key").unwrap_or_default();
    let name = field("name").unwrap_or_default();
    let Some(signer) = trusted.iter().find(|s| s.key == key) else {
        return Err(match name.is_empty() {
            true => "it is not signed".into(),
            false => format!("it is signed by `{name}`, a key not in [controllers]"),
        });
    };
    let mut artifact = field("artifact").unwrap_or_default().split(' ');
    let vouch = Vouch {
        action: action.clone(),
        tree: tree.clone(),
        artifact: (
            artifact.next().unwrap_or_default().to_string(),
            artifact.next().and_then(|s| s.parse().ok()).unwrap_or(0),
        ),
        log: log.cloned(),
    };
    let sig = field("signature").unwrap_or_default();
    let payload = vouch.payload(&signer.key);
    let signed = text
        .strip_suffix(&format!("name {name}\nsignature {sig}\n"))
        .unwrap_or_default();
    if signed != payload {
        return Err(format!(
            "its signature by {} is for another action, output or log",
            signer.describe()
        ));
    }
    mesh_proto::keys::verify(signer, payload.as_bytes(), sig)
        .map_err(|why| format!("its signature does not hold: {why}"))?;
    Ok((signer.clone(), vouch.artifact))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::remote::merkle::digest_of;

    #[test]
    fn a_signature_holds_for_what_it_signed_only_and_only_from_a_trusted_key() {
        let me = Identity::from_seed("cron", [7; 32]);
        let stranger = Identity::from_seed("eve", [9; 32]);
        let (action, tree) = (digest_of(b"action"), digest_of(b"tree"));
        let log = digest_of(b"the log");
        let v = Vouch {
            action: action.clone(),
            tree: tree.clone(),
            artifact: ("ab".repeat(32), 10),
            log: Some(log.clone()),
        };
        let file = v.sign(&me);
        let trusted = [me.signer()];
        let (by, artifact) = verify(&file, &action, &tree, Some(&log), &trusted).expect("holds");
        assert_eq!((by.name.as_str(), artifact), ("cron", v.artifact.clone()));

        let other = digest_of(b"another action");
        let e = verify(&file, &other, &tree, Some(&log), &trusted).unwrap_err();
        assert!(e.contains("another action"), "{e}");
        // Another log put beside a signed result is refused too.
        let e = verify(&file, &action, &tree, Some(&tree), &trusted).unwrap_err();
        assert!(e.contains("log"), "{e}");
        // Renamed in [controllers], the same key: still trusted, shown by this mesh's name.
        let renamed = [crate::controller::Signer {
            name: "cron-host".into(),
            key: me.public(),
        }];
        let (by, _) = verify(&file, &action, &tree, Some(&log), &renamed).expect("by key");
        assert_eq!(by.name, "cron-host");
        let e = verify(&v.sign(&stranger), &action, &tree, Some(&log), &trusted).unwrap_err();
        assert!(e.contains("`eve`, a key not in [controllers]"), "{e}");
        let e = verify(b"", &action, &tree, Some(&log), &trusted).unwrap_err();
        assert_eq!(e, "it is not signed");
        // The artifact changed after signing: the payload no longer matches the signature.
        let forged = String::from_utf8(file)
            .unwrap()
            .replace(&"ab".repeat(32), &"cd".repeat(32));
        let e = verify(forged.as_bytes(), &action, &tree, Some(&log), &trusted).unwrap_err();
        assert!(e.contains("does not hold"), "{e}");
    }

    /// Found by fuzzing (`fuzz/fuzz_targets/reapi.rs`): this signature file, signed by the
    /// fuzz targets' key, with one hex digit of its signature made uppercase (`…383E2d…`),
    /// verified as the one signed.
    #[test]
    fn a_signature_file_whose_signature_changed_case_is_refused() {
        const CHANGED: &str = "mesh remote result 2
action bd938c688f49b77c7fc537c6b9222e2c97ebddd63076b87f2feaec66fb9c05d0/6
tree 1fccdd8deaa928299f66c3ed52324ef465ce3846a2124577a59affe6bfb2d0df/225
artifact 7bccc112d1ec721dcff8ab4fdb2329fba0dbb3b480b515eff536d8254c4e9c01 132
log none
key ed25519:ea4a6c63e29c520abef5507b132ec5f9954776aebebe7b92421eea691446d22c
name fuzz
signature bdc31b8d06cbb422519a68ae552e318ffa0a77dd6110d083c7439b040bc53458bd225c2b64688b383E2dca86dc513e3ee580c1a673e7f5a048bfb0d5b71eb806
";
        let digest = |hash: &str, size_bytes| Digest {
            hash: hash.into(),
            size_bytes,
        };
        let action = digest(
            "bd938c688f49b77c7fc537c6b9222e2c97ebddd63076b87f2feaec66fb9c05d0",
            6,
        );
        let tree = digest(
            "1fccdd8deaa928299f66c3ed52324ef465ce3846a2124577a59affe6bfb2d0df",
            225,
        );
        let trusted = [Identity::from_seed("fuzz", [7; 32]).signer()];
        let e = verify(CHANGED.as_bytes(), &action, &tree, None, &trusted).unwrap_err();
        assert!(e.contains("lowercase hex"), "{e}");
        let original = CHANGED.replace("383E2d", "383e2d");
        assert!(verify(original.as_bytes(), &action, &tree, None, &trusted).is_ok());
    }
}
