//! Report journal lines: report files as a node's journal holds them (`ROOT/reports/`), read
//! back by `mesh_node::reports_since` (what `report --since N` answers), each line then read
//! as the controller reads it (`mesh::transport::ReportLine`) and as a `mesh_node::Report`.
//!
//! The input is up to 8 parts separated by 0xff: each is one report file's bytes (file names
//! 1, 2, … and, by the first byte, one name at the edge of the numbering); `since` is chosen
//! by the second byte.
//!
//! Properties: no panic; `reports_since` says how many lines it wrote and writes that many,
//! oldest first, each a JSON object whose `report_sequence` is its file's number (whatever
//! the file says inside) and above `since` (unless `since` is past the newest: then all);
//! a line that reads as a `Report` is encoded again to the same report.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mesh_fuzz::{Input, SEP};

fuzz_target!(|data: &[u8]| {
    let mut input = Input::new(data);
    let edge = input.byte();
    let since = u64::from(input.byte() % 12);
    let t = mesh_fuzz::scratch();
    let root = mesh_fuzz::node_root(&t.path().join("root"));
    let reports = root.join("reports");
    mesh_fuzz::private_dir(&reports);
    let mut written = Vec::new();
    for n in 1..=8u64 {
        if input.is_empty() {
            break;
        }
        let seq = match (n, edge % 4) {
            (1, 1) => mesh_proto::MAX_SEQUENCE - 1,
            (1, 2) => mesh_proto::MAX_SEQUENCE,
            (1, 3) => u64::MAX,
            _ => n,
        };
        let name = format!("{seq:020}.json");
        std::fs::write(reports.join(&name), input.until(SEP)).expect("a report file is written");
        written.push(seq);
    }

    let mut out = Vec::new();
    let count = mesh_node::reports_since(&root, since, &mut out).expect("the journal reads");
    let text = std::str::from_utf8(&out).expect("the reports are text");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len() as u64, count, "as many lines as said");
    assert!(count as usize <= written.len());
    // Names a journal never writes are no reports.
    let valid: Vec<u64> = written
        .iter()
        .copied()
        .filter(|s| (1..mesh_proto::MAX_SEQUENCE).contains(s))
        .collect();
    let newest = valid.iter().copied().max().unwrap_or(0);
    let since = if since > newest { 0 } else { since };
    let mut last = 0;
    for line in &lines {
        let v: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
        let seq = v["report_sequence"]
            .as_u64()
            .expect("each line is numbered");
        assert!(valid.contains(&seq), "{seq} names a report file");
        assert!(seq > since && seq > last, "oldest first, above since");
        last = seq;

        let read = mesh::transport::ReportLine::read(line.as_bytes());
        assert_eq!(read.sequence, seq, "the controller reads its number");
        if let Ok(report) = serde_json::from_str::<mesh_node::Report>(line) {
            let again = serde_json::to_string(&report).expect("a report encodes");
            let back: mesh_node::Report = serde_json::from_str(&again).expect("and decodes");
            assert_eq!(back, report);
        }
    }
    // Every line of the whole input, as the controller reads a page of them.
    for line in data.split(|&b| b == b'\n') {
        let _ = mesh::transport::ReportLine::read(line);
    }
});
