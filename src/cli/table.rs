//! Tables for people (comfy-table): plain ASCII, no borders, so they read well in a terminal,
//! in mail from cron, and in snapshots.
//!
//! On a terminal a table is never wider than it: every column but the last keeps its content's
//! width, and the last (the reasons, the delivery line) is wrapped to what is left. Elsewhere
//! (a pipe, a file, cron's mail) lines are not wrapped, so tools that read lines see whole ones.

use comfy_table::{ColumnConstraint, ContentArrangement, Table, presets};
use std::io::IsTerminal;

/// A table with these column headers (none: a table of label and value lines).
pub fn new(headers: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled);
    if !headers.is_empty() {
        t.set_header(headers.iter().map(|h| h.to_uppercase()));
    }
    if let Some(width) = width() {
        t.set_content_arrangement(ContentArrangement::Dynamic)
            // The first column's left padding is trimmed by `render`: one more to use.
            .set_width(width.saturating_add(1));
    }
    t
}

/// The width tables are fitted to: `COLUMNS` when set, else the terminal's; none when stdout
/// is not a terminal.
pub fn width() -> Option<u16> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .filter(|w| *w > 0)
        .or_else(|| {
            let (w, _) = crossterm_size()?;
            Some(w)
        })
}

/// The terminal's size as comfy-table sees it.
fn crossterm_size() -> Option<(u16, u16)> {
    let t = Table::new();
    t.width().map(|w| (w, 0))
}

/// Renders a table with its lines' trailing spaces trimmed.
pub fn render(t: &Table) -> String {
    let mut t = t.clone();
    let n = t.column_count();
    if n > 1 && t.width().is_some() {
        let mut constraints = vec![ColumnConstraint::ContentWidth; n - 1];
        constraints.push(ColumnConstraint::LowerBoundary(comfy_table::Width::Fixed(
            12,
        )));
        t.set_constraints(constraints);
    }
    let mut out = String::new();
    for line in t.to_string().lines() {
        let line = line.strip_prefix(' ').unwrap_or(line);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
