//! The status page: one self-contained HTML file rendering the same [`Status`] as `mesh status
//! --json`, with the newest facts, for a cron host to publish. Inline CSS, no script, nothing
//! fetched from elsewhere; states in words, so it reads without colour, in a narrow window and
//! in print. Here (not in `cli/`) because `mesh reconcile` writes it too, from the library.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use super::needs::{About, Need, needs_a_person};
use super::nodes::{Delivery, NodeState, NodeStatus, Status, ago};
use crate::Result;
use crate::clock::rfc3339;
use crate::events::EVENTS;
use crate::store::Paths;
use mesh_node::artifact::short;

/// How many of the newest facts the page lists.
pub(crate) const FACTS_SHOWN: usize = 40;

/// Up to this many nodes the page draws the module × node grid; beyond, one summary line per
/// module (the grid would be too big to read or load).
pub(crate) const GRID_NODES: usize = 300;

/// `s` with the five characters HTML gives meaning to (`& < > " '`) escaped: safe as text and
/// inside a quoted attribute.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The newest `n` facts of the store, oldest first, as `mesh events --json` prints them.
pub(crate) fn last_facts(paths: &Paths, n: usize) -> Result<Vec<serde_json::Value>> {
    let store = paths.open()?;
    let events = store.read(|r| r.last(EVENTS, n))?;
    Ok(events.into_iter().map(|(_, e)| e.to_json()).collect())
}

/// What the page is made from: the status, the newest facts, and when.
#[derive(Debug, Clone, Copy)]
pub struct Page<'a> {
    /// The mesh's name.
    pub mesh: &'a str,
    /// The status, as `mesh status --json` gives it.
    pub status: &'a Status,
    /// The newest facts, oldest first.
    pub facts: &'a [serde_json::Value],
    /// When it is made (Unix ms).
    pub now: u64,
    /// How often a browser showing it loads it again, if at all.
    pub refresh: Option<Duration>,
}

/// Whether a node needs a person's look first: its state needs a person, it cannot be
/// reached, or mesh cannot do its work there.
fn needs_a_look(n: &NodeStatus) -> bool {
    n.needs_a_person || n.unreachable_since.is_some() || n.trouble.is_some() || n.silent
}

/// The nodes in page order: those needing a look first (by state, as status orders states,
/// then name), then the rest by name.
pub(crate) fn page_order(status: &Status) -> Vec<&NodeStatus> {
    let mut nodes: Vec<&NodeStatus> = status.nodes.iter().collect();
    nodes.sort_by_key(|n| {
        (
            !needs_a_look(n),
            needs_a_look(n).then_some(state_rank(n.state)),
            n.name.clone(),
        )
    });
    nodes
}

/// Where a state comes in DESIGN §9's order (first match wins there; first listed here).
fn state_rank(s: NodeState) -> usize {
    match s {
        NodeState::NotWorkedOut => 0,
        NodeState::Diverged => 1,
        NodeState::Ahead => 2,
        NodeState::Differs => 3,
        NodeState::NeverTold => 4,
        NodeState::OutOfDate => 5,
        NodeState::Stuck => 6,
        NodeState::RolledBack => 7,
        NodeState::Failed => 8,
        NodeState::Unhealthy => 9,
        NodeState::Outstanding => 10,
        NodeState::Current => 11,
    }
}

/// A CSS class for a state's colour (the word is always there too).
fn tone(s: NodeState) -> &'static str {
    match s {
        NodeState::Current => "ok",
        NodeState::Outstanding | NodeState::OutOfDate | NodeState::NeverTold => "wait",
        _ => "bad",
    }
}

/// A CSS class for a grid cell's colour.
fn cell_tone(d: Delivery) -> &'static str {
    match d {
        Delivery::Applied => "ok",
        Delivery::Outstanding | Delivery::NotSent | Delivery::Elsewhere => "wait",
        Delivery::Failed | Delivery::RolledBack | Delivery::Down | Delivery::Unhealthy => "bad",
    }
}

const STYLE: &str = "\
body{font:15px/1.4 system-ui,sans-serif;margin:1em;color:#111;background:#fff}\
h1{font-size:1.3em;margin:0 0 .2em}h2{font-size:1.1em;margin:1.2em 0 .3em}\
p.head{margin:0 0 1em}\
.wrap{overflow-x:auto;max-width:100%}\
table{border-collapse:collapse;margin:.3em 0}\
th,td{border:1px solid #999;padding:.2em .45em;text-align:left;vertical-align:top}\
th{background:#eee}\
td.why{white-space:pre-wrap;max-width:40em;overflow-wrap:anywhere}\
.ok{background:#e3f4e1}.wait{background:#fdf4d6}.bad{background:#f9dcdc;font-weight:bold}\
code{font-size:.9em}\
@media (max-width:40em){body{margin:.4em;font-size:14px}td.why{max-width:20em}}\
@media print{.wrap{overflow:visible}body{margin:0}th{background:none}\
.ok,.wait,.bad{background:none}}";

/// The page's HTML.
pub fn render(p: &Page<'_>) -> String {
    let mut h = String::new();
    let made = rfc3339(p.now);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    );
    if let Some(r) = p.refresh {
        let _ = writeln!(
            h,
            "<meta http-equiv=\"refresh\" content=\"{}\">",
            r.as_secs().max(1)
        );
    }
    let _ = writeln!(
        h,
        "<title>mesh {} status</title>\n<style>{STYLE}</style>\n</head>\n<body>",
        escape(p.mesh)
    );
    let _ = writeln!(h, "<h1>mesh {}</h1>", escape(p.mesh));
    let _ = writeln!(
        h,
        "<p class=\"head\">{} · made {}</p>",
        escape(&counts_line(p.status)),
        escape(&made)
    );
    nodes_section(&mut h, p);
    grid_section(&mut h, p.status);
    modules_section(&mut h, p.status);
    facts_section(&mut h, p.facts);
    h.push_str("</body>\n</html>\n");
    h
}

/// "12 nodes: 1 stuck, 2 failed, 9 current", states in §9's order.
fn counts_line(s: &Status) -> String {
    let mut by: Vec<(NodeState, usize)> = Vec::new();
    for n in &s.nodes {
        match by.iter_mut().find(|(st, _)| *st == n.state) {
            Some((_, c)) => *c += 1,
            None => by.push((n.state, 1)),
        }
    }
    by.sort_by_key(|(st, _)| state_rank(*st));
    let parts: Vec<String> = by.iter().map(|(st, c)| format!("{c} {st}")).collect();
    let look = s.nodes.iter().filter(|n| needs_a_look(n)).count() + beside_nodes(s).len();
    let mut line = format!(
        "{} node{}",
        s.nodes.len(),
        if s.nodes.len() == 1 { "" } else { "s" }
    );
    if !parts.is_empty() {
        let _ = write!(line, ": {}", parts.join(", "));
    }
    let _ = write!(line, " · {look} need a look · {} modules", s.modules.len());
    line
}

/// What needs a person that is not a node: a repository whose fetch failed, a module whose
/// newest build is broken, unfit or stuck outstanding ([`needs_a_person`], the definition
/// `reconcile` exits 3 for).
fn beside_nodes(s: &Status) -> Vec<Need> {
    needs_a_person(s)
        .into_iter()
        .filter(|n| n.about != About::Node)
        .collect()
}

/// The nodes table, those needing a look first under their own heading, after what else needs
/// a person.
fn nodes_section(h: &mut String, p: &Page<'_>) {
    let nodes = page_order(p.status);
    let (look, rest): (Vec<&NodeStatus>, Vec<&NodeStatus>) =
        nodes.into_iter().partition(|n| needs_a_look(n));
    let beside = beside_nodes(p.status);
    if !look.is_empty() || !beside.is_empty() {
        let _ = writeln!(
            h,
            "<h2 id=\"attention\">Needs a look ({})</h2>",
            look.len() + beside.len()
        );
    }
    if !beside.is_empty() {
        h.push_str("<ul>\n");
        for n in &beside {
            let _ = writeln!(h, "<li>{}</li>", escape(&n.sentence));
        }
        h.push_str("</ul>\n");
    }
    if !look.is_empty() {
        nodes_table(h, &look, p.now);
    }
    let _ = writeln!(h, "<h2 id=\"nodes\">Nodes ({})</h2>", rest.len());
    if rest.is_empty() {
        h.push_str("<p>None besides those above.</p>\n");
    } else {
        nodes_table(h, &rest, p.now);
    }
    if !p.status.forgotten.is_empty() {
        h.push_str("<p>No longer in mesh.toml, still in the store: ");
        let names: Vec<String> = p.status.forgotten.iter().map(|f| escape(&f.name)).collect();
        let _ = writeln!(
            h,
            "{} (<code>mesh node forget</code>)</p>",
            names.join(", ")
        );
    }
}

fn nodes_table(h: &mut String, nodes: &[&NodeStatus], now: u64) {
    h.push_str(
        "<div class=\"wrap\"><table>\n<tr><th>node</th><th>state</th><th>reason</th>\
         <th>declared</th><th>sent</th><th>applied</th><th>last seen</th></tr>\n",
    );
    let seq = |s: &Option<super::nodes::Stamp>| {
        s.as_ref()
            .map_or("–".to_string(), |s| s.sequence.to_string())
    };
    for n in nodes {
        let mut state = n.state.to_string();
        if n.silent {
            state.push_str(", silent");
        }
        let mut why: Vec<String> = Vec::new();
        if let Some(u) = &n.unreachable_since {
            why.push(format!("unreachable since {u}"));
        }
        if let Some(r) = &n.reason {
            why.push(r.clone());
        }
        if let Some(t) = &n.trouble
            && n.reason.as_deref() != Some(t.reason.as_str())
        {
            why.push(t.reason.clone());
        }
        let seen = match n.last_seen_ms {
            Some(ms) => format!(
                "{} ({})",
                ago(ms, now),
                n.last_seen.as_deref().unwrap_or("")
            ),
            None => "never".into(),
        };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td class=\"{}\">{}</td><td class=\"why\">{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&n.name),
            if n.silent { "wait" } else { tone(n.state) },
            escape(&state),
            escape(&why.join("\n")),
            seq(&n.declared),
            seq(&n.sent),
            seq(&n.applied),
            escape(&seen)
        );
    }
    h.push_str("</table></div>\n");
}

/// The module × node grid (a row per node, in page order; a column per module declared
/// anywhere), or beyond [`GRID_NODES`] nodes a line per module counting each word.
fn grid_section(h: &mut String, s: &Status) {
    let mut modules: Vec<&str> = s
        .nodes
        .iter()
        .flat_map(|n| n.modules.iter().map(|m| m.name.as_str()))
        .collect();
    modules.sort();
    modules.dedup();
    if modules.is_empty() {
        return;
    }
    let _ = writeln!(h, "<h2 id=\"grid\">Modules on nodes</h2>");
    if s.nodes.len() > GRID_NODES {
        let _ = writeln!(
            h,
            "<p>{} nodes: too many for a grid; per module, what became of it:</p>\n<ul>",
            s.nodes.len()
        );
        for m in &modules {
            let mut by: Vec<(Delivery, usize)> = Vec::new();
            for cell in s.nodes.iter().flat_map(|n| n.modules.iter()) {
                if cell.name != *m {
                    continue;
                }
                match by.iter_mut().find(|(d, _)| *d == cell.state) {
                    Some((_, c)) => *c += 1,
                    None => by.push((cell.state, 1)),
                }
            }
            let words: Vec<String> = by
                .iter()
                .map(|(d, c)| format!("{c} {}", d.as_str()))
                .collect();
            let _ = writeln!(h, "<li>{}: {}</li>", escape(m), escape(&words.join(", ")));
        }
        h.push_str("</ul>\n");
        return;
    }
    h.push_str("<div class=\"wrap\"><table>\n<tr><th>node</th>");
    for m in &modules {
        let _ = write!(h, "<th>{}</th>", escape(m));
    }
    h.push_str("</tr>\n");
    for n in page_order(s) {
        let _ = write!(h, "<tr><td>{}</td>", escape(&n.name));
        for m in &modules {
            match n.modules.iter().find(|c| c.name == *m) {
                Some(c) => {
                    let _ = write!(
                        h,
                        "<td class=\"{}\">{} <small>build {}</small></td>",
                        cell_tone(c.state),
                        c.state.as_str(),
                        c.build
                    );
                }
                None => h.push_str("<td>–</td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></div>\n<p><small>– : not declared there.</small></p>\n");
}

/// The module lines of `mesh status`.
fn modules_section(h: &mut String, s: &Status) {
    if s.modules.is_empty() {
        return;
    }
    let _ = writeln!(h, "<h2 id=\"modules\">Modules ({})</h2>", s.modules.len());
    h.push_str(
        "<div class=\"wrap\"><table>\n<tr><th>module</th><th>source</th><th>built from</th>\
         <th>verdict</th><th>declared on</th><th>applied on</th><th>outstanding</th>\
         <th>failed</th><th>unhealthy</th><th>rollout</th></tr>\n",
    );
    let c = |s: &Option<String>| s.as_deref().map_or("–", |c| short(c, 8)).to_string();
    for m in &s.modules {
        let verdict = m
            .verdict
            .map_or("–".to_string(), |v| v.as_str().to_string());
        let verdict = match &m.stuck {
            Some(why) => format!("{verdict}; stuck {why}"),
            None => verdict,
        };
        let rollout = match &m.rollout {
            None => "–".to_string(),
            Some(r) => match &r.halted {
                Some(h) => format!(
                    "build {} HALTED: {} failed it; put back to build {}",
                    r.to, h.node, r.from
                ),
                None => format!(
                    "build {} → wave {} of {}, on {} of {} nodes; waits for {}",
                    r.to,
                    r.wave,
                    r.waves,
                    r.on_new.len(),
                    r.nodes,
                    r.waiting_for
                ),
            },
        };
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&m.name),
            escape(&c(&m.source)),
            escape(&c(&m.built_from)),
            escape(&verdict),
            m.declared_on,
            m.applied_on,
            m.outstanding_on,
            m.failed_on,
            m.unhealthy_on,
            escape(&rollout)
        );
    }
    h.push_str("</table></div>\n");
}

/// The newest facts, newest first.
fn facts_section(h: &mut String, facts: &[serde_json::Value]) {
    let _ = writeln!(h, "<h2 id=\"facts\">Last facts ({})</h2>", facts.len());
    if facts.is_empty() {
        h.push_str("<p>None yet.</p>\n");
        return;
    }
    h.push_str(
        "<div class=\"wrap\"><table>\n<tr><th>#</th><th>when</th><th>fact</th><th>about</th>\
         <th>details</th></tr>\n",
    );
    for f in facts.iter().rev() {
        let mut details: Vec<String> = Vec::new();
        if let Some(o) = f.as_object() {
            for (k, v) in o {
                if !matches!(k.as_str(), "seq" | "at" | "kind" | "subject") {
                    let shown = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    details.push(format!("{k}={shown}"));
                }
            }
        }
        let text = |k: &str| f[k].as_str().unwrap_or("").to_string();
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"why\">{}</td></tr>",
            f["seq"].as_u64().unwrap_or(0),
            escape(&text("at")),
            escape(&text("kind")),
            escape(&text("subject")),
            escape(&details.join(" "))
        );
    }
    h.push_str("</table></div>\n");
}

/// Writes the page to `path` atomically (a reader sees the old page or the new, never half),
/// readable by all (0644): it is made to be published, by a web server running as another user.
///
/// Only a new path or a regular file is written: a symbolic link, a directory, a device or a
/// pipe at `path` is refused (a rename would replace it, and a root cron's `--html /dev/null`
/// would replace the system's). Temp pages a killed write left beside it are swept first.
pub fn write(path: &Path, html: &str) -> Result<()> {
    refuse_what_is_not_a_page(path)?;
    mesh_node::durable::sweep_temps(path);
    mesh_node::durable::write_atomic_mode(path, html.as_bytes(), Some(0o644)).map_err(|e| {
        // Said once: the OS error in the sentence, not again as its cause.
        crate::Error::failed(
            format!(
                "could not {} {} for the status page: {}",
                e.action,
                e.path.display(),
                e.source
            ),
            "make its directory writable, or point `[status] page` in mesh.toml (or \
             `mesh status --html FILE`) elsewhere",
        )
    })
}

/// Refuses a `path` that exists and is not a regular file, saying what it is and what to do.
fn refuse_what_is_not_a_page(path: &Path) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        // Not there (or its directory is not): the write says what is wrong, if anything.
        Err(_) => return Ok(()),
    };
    let t = meta.file_type();
    let what = if t.is_file() {
        return Ok(());
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_fifo() {
        "a named pipe"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    Err(crate::Error::failed(
        format!(
            "{} is {what}: mesh writes the status page only over a \
             regular file or a new path, and never replaces anything else",
            path.display()
        ),
        if t.is_dir() {
            format!(
                "name a file in it instead: `{}` (in `[status] page`, or after `--html`)",
                path.join("index.html").display()
            )
        } else {
            "point `[status] page` in mesh.toml (or `mesh status --html FILE`) at the file \
             itself, or at a new path (remove what is there first if it is yours to remove)"
                .to_string()
        },
    ))
}

/// Renders and writes the page of `status` to `path`, with the newest facts of the store.
pub fn publish(
    paths: &Paths,
    mesh: &str,
    status: &Status,
    path: &Path,
    refresh: Option<Duration>,
) -> Result<()> {
    let facts = last_facts(paths, FACTS_SHOWN)?;
    let html = render(&Page {
        mesh,
        status,
        facts: &facts,
        now: crate::clock::now_ms(),
        refresh,
    });
    write(path, &html)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_makes_markup_text() {
        assert_eq!(
            escape(r#"<script>alert("x & 'y'")</script>"#),
            "&lt;script&gt;alert(&quot;x &amp; &#39;y&#39;&quot;)&lt;/script&gt;"
        );
        assert_eq!(escape("plain – words"), "plain – words");
    }
}
