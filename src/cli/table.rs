//! Tables for people (comfy-table): plain ASCII, no borders, so they read well in a terminal,
//! in mail from cron, and in snapshots.

use comfy_table::{ContentArrangement, Table, presets};

/// A table with these column headers.
pub fn new(headers: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(headers.iter().map(|h| h.to_uppercase()));
    t
}

/// Renders a table with its lines' trailing spaces trimmed.
pub fn render(t: &Table) -> String {
    let mut out = String::new();
    for line in t.to_string().lines() {
        let line = line.strip_prefix(' ').unwrap_or(line);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
