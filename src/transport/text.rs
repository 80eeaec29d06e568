//! Text from nodes: made safe to print and store, and read for what the node said.

use super::session;

/// Text from a node made safe to print and store: escape sequences (CSI, OSC and the like),
/// bidirectional controls (U+202E and its kin, which make a line read in another order than
/// it is written) and every other control character removed but line breaks and tabs, and cut
/// at `cap` bytes (with `…`). A node's words reach terminals, the page and the store; they must
/// not move the cursor, recolour the screen, reorder what is read or fill the disk.
pub(crate) fn from_node(text: &str, cap: usize) -> String {
    let mut out = String::with_capacity(text.len().min(cap));
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            // ESC: a CSI (`ESC [` … final byte), a string (OSC, DCS, PM, APC, SOS: up to BEL
            // or ST), or a two-character sequence.
            '\u{1b}' => match chars.next() {
                Some('[') => skip_csi(&mut chars),
                Some(']' | 'P' | '^' | '_' | 'X') => skip_string(&mut chars),
                _ => {}
            },
            // C1: CSI and the string introducers have one-character forms too.
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{9d}' | '\u{9e}' | '\u{9f}' | '\u{98}' => skip_string(&mut chars),
            c if c.is_control() || is_bidi_control(c) => {}
            c => out.push(c),
        }
        if out.len() > cap {
            let mut end = cap.saturating_sub('…'.len_utf8());
            while !out.is_char_boundary(end) {
                end -= 1;
            }
            out.truncate(end);
            out.push('…');
            break;
        }
    }
    out
}

/// The Unicode bidirectional controls: embeddings, overrides, isolates and marks.
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// [`from_node`] on one line: line breaks and tabs become spaces (a version, a sentence that
/// ends up inside another).
pub(crate) fn from_node_line(text: &str, cap: usize) -> String {
    from_node(text, cap).replace(['\n', '\t'], " ")
}

/// Skips a CSI sequence's parameters and its final byte.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) {
            return;
        }
        if !('\u{20}'..='\u{3f}').contains(&c) {
            return;
        }
    }
}

/// Skips a control string up to its end: BEL, ST (`ESC \\` or U+009C).
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                return;
            }
            _ => {}
        }
    }
}

/// One JSON line of a node's reports with every string in it made printable ([`from_node`],
/// [`session::MAX_REASON`] each): the account stores and prints what it reads. A line that is
/// not JSON is passed on as it is, for the account to refuse.
pub(crate) fn report_from_node(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    /// Cleans every string under `v`; whether any changed. The host's version is one short
    /// line ([`session::MAX_VERSION`]).
    fn clean(v: &mut serde_json::Value, key: &str) -> bool {
        match v {
            serde_json::Value::String(s) => {
                let c = match key {
                    "host_version" => from_node_line(s, session::MAX_VERSION),
                    _ => from_node(s, session::MAX_REASON),
                };
                let changed = c != *s;
                *s = c;
                changed
            }
            serde_json::Value::Array(a) => a.iter_mut().fold(false, |ch, v| clean(v, key) | ch),
            serde_json::Value::Object(o) => o.iter_mut().fold(false, |ch, (k, v)| clean(v, k) | ch),
            _ => false,
        }
    }
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(line) else {
        return line.into();
    };
    if !clean(&mut value, "") {
        return line.into();
    }
    serde_json::to_vec(&value).map_or(line.into(), Into::into)
}

/// What the node's mesh said when it ended: its error's own sentence and, after a semicolon,
/// its help (what to do), as the node printed them (a miette report: `x message` or
/// `× message`, then `help: …`). Anything else: the last line that says something.
pub fn node_said(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().map(str::trim).collect();
    fn header(l: &str) -> Option<&str> {
        l.strip_prefix("x ")
            .or_else(|| l.strip_prefix("× "))
            .map(str::trim)
    }
    let Some(start) = lines.iter().rposition(|l| header(l).is_some()) else {
        return last_line(stderr).to_string();
    };
    let mut said = header(lines[start]).unwrap_or_default().to_string();
    let mut help = None;
    for l in &lines[start + 1..] {
        if let Some(h) = l.strip_prefix("help:") {
            help = Some(h.trim());
            break;
        }
        // The lines of a cause (`|-> …`, `├─▶ …`) and of a message on several lines.
        let l = l
            .trim_start_matches(['|', '-', '>', '├', '╰', '─', '▶', '│'])
            .trim();
        if !l.is_empty() {
            said.push_str(": ");
            said.push_str(l);
        }
    }
    match help {
        Some(help) => format!("{said}; {help}"),
        None => said,
    }
}

/// The last line of a process's stderr that says something.
pub fn last_line(stderr: &str) -> &str {
    stderr
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or("no message")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 33, item 15: the node's own sentence, not only its help line.
    #[test]
    fn what_the_node_said_is_its_sentence_and_its_help() {
        let ascii = "Error: mesh_node::unsafe_root\n\n  x the node root /n is refused: it is writable by group or others (mode 1777)\n  help: `chmod go-w /n`\n";
        assert_eq!(
            node_said(ascii),
            "the node root /n is refused: it is writable by group or others (mode 1777); `chmod go-w /n`"
        );
        let unicode = "motd\nError: mesh_node::io\n\n  × could not read /n/x\n  ├─▶ denied\n  help: check it\n";
        assert_eq!(node_said(unicode), "could not read /n/x: denied; check it");
        assert_eq!(node_said("plain failure\n\n"), "plain failure");
    }

    #[test]
    fn text_from_a_node_keeps_words_lines_and_tabs_only() {
        let said = "ok\tdone\r\n\u{1b}[1;31mred\u{1b}[0m \u{1b}]0;title\u{7}\u{1b}]8;;http://x\u{1b}\\link \u{9b}2J\u{8}\u{7f}end\u{0}";
        assert_eq!(from_node(said, 1000), "ok\tdone\nred link end");
        assert_eq!(from_node_line("a\nb\tc", 1000), "a b c");
        // Cut at a character's boundary, with a mark.
        let cut = from_node(&"é".repeat(100), 11);
        assert!(cut.len() <= 11 && cut.ends_with('…'), "{cut}");
        assert_eq!(from_node("short", 5), "short");
    }

    #[test]
    fn text_from_a_node_reads_in_the_order_it_is_written() {
        // "ok: exe.txt" that a terminal would show as "ok: txt.exe", and every other control.
        let said = "ok: \u{202e}txt.exe\u{202c} \u{2066}a\u{2069}\u{200f}\u{200e}\u{061c}\u{202a}\u{202b}\u{202d}\u{2067}\u{2068}b";
        assert_eq!(from_node(said, 1000), "ok: txt.exe ab");
        assert_eq!(from_node_line(said, 1000), "ok: txt.exe ab");
        // Words in right-to-left scripts are kept.
        assert_eq!(from_node("שלום عربي", 1000), "שלום عربي");
    }

    #[test]
    fn report_lines_from_a_node_are_made_printable() {
        let version = "9".repeat(100);
        let line = format!(
            r#"{{"report_sequence":4,"reason":"activate failed\u001b[2J\u001b[Hok","host_version":"{version}","resources":[{{"id":"a","reason":"x\u0007y"}}]}}"#
        );
        let clean: serde_json::Value =
            serde_json::from_slice(&report_from_node(line.as_bytes())).unwrap();
        assert_eq!(clean["reason"], "activate failedok");
        assert_eq!(clean["resources"][0]["reason"], "xy");
        let host = clean["host_version"].as_str().unwrap();
        assert!(host.len() <= 64 && host.ends_with('…'), "{host}");
        assert_eq!(clean["report_sequence"], 4);
        // A clean line is passed on as it is.
        let plain = br#"{"report_sequence":5,"reason":"fine"}"#;
        assert_eq!(&*report_from_node(plain), &plain[..]);
    }
}
