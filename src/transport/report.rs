//! A node's report as the controller reads it: parsed once, where it arrives (an apply's
//! answer, a page of the journal), its strings made printable, and passed on as a value.

use mesh_node::Report;

/// One report from a node: the line as kept, and what it says.
#[derive(Debug, Clone)]
pub struct ReportLine {
    /// The line with every string in it made printable ([`super::report_from_node`]): what
    /// the store keeps as the node's last report.
    pub text: String,
    /// Its report sequence (0 when it has none).
    pub sequence: u64,
    /// The report, or why it could not be read (the account notes it and goes on).
    pub report: Result<Report, String>,
}

impl ReportLine {
    /// Reads one JSON line a node sent.
    pub fn read(line: &[u8]) -> ReportLine {
        let text = String::from_utf8_lossy(&super::report_from_node(line)).into_owned();
        let report = serde_json::from_str::<Report>(&text).map_err(|e| e.to_string());
        let sequence = match &report {
            Ok(r) => r.report_sequence,
            // One that is no report may still be numbered: the account says which it was.
            Err(_) => serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v["report_sequence"].as_u64())
                .unwrap_or(0),
        };
        ReportLine {
            text,
            sequence,
            report,
        }
    }

    /// Every non-empty line of `text`, read.
    pub(crate) fn read_all(text: &[u8]) -> Vec<ReportLine> {
        text.split(|&b| b == b'\n')
            .filter(|l| !l.trim_ascii().is_empty())
            .map(ReportLine::read)
            .collect()
    }
}
