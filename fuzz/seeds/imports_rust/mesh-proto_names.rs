//! Names of modules, nodes, repositories and tags: safe in paths, shell arguments and tables.

/// The longest name, in bytes: a name becomes a path component and a table cell.
pub const NAME_MAX: usize = 128;

/// The pattern every name must match, with its length limit, for messages.
pub const NAME_PATTERN: &str = "[a-z0-9][a-z0-9._-]*, at most 128 bytes";

/// Whether `s` matches `[a-z0-9][a-z0-9._-]*` (and is at most 128 bytes).
pub fn is_valid_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= NAME_MAX
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'_' | b'-')
        })
}

/// Whether `s` is a digest as mesh writes them (blake3 of an artifact or a declaration, the
/// keyed digest of a secret): exactly 64 lowercase hex characters. Checked before a digest
/// from outside becomes a path, so it can never name anything but a file of its store.
pub fn is_digest(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::is_valid_name;

    #[test]
    fn names() {
        for ok in ["a", "route-proxy", "lib.core", "x_1", "0day"] {
            assert!(is_valid_name(ok), "{ok}");
        }
        for bad in ["", "-a", ".a", "A", "a b", "a/b", "ä", "a;rm", "_x"] {
            assert!(!is_valid_name(bad), "{bad}");
        }
    }
}
