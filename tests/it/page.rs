//! `mesh status --html FILE` and `[status] page`: one self-contained HTML page rendering what
//! `mesh status --json` says, written atomically; checked by parsing it back.

use crate::common::{TestMesh, example, local_nodes_toml};
use crate::status::{NODES, every_state, mesh};
use std::time::Duration;

/// The tags whose opening and closing must balance on the page.
const PAIRED: &[&str] = &[
    "html", "head", "title", "style", "body", "h1", "h2", "p", "div", "table", "tr", "th", "td",
    "ul", "li", "code", "small",
];

/// Parses the page's tags: every tag in [`PAIRED`] closes in the order it opened, and no other
/// tag than those and the void ones (`meta`, `!DOCTYPE`) appears. Returns the text between the
/// tags, entities left as written.
fn parse(html: &str) -> String {
    let mut open: Vec<String> = Vec::new();
    let mut text = String::new();
    let mut rest = html;
    // The style sheet is text to the parser: skip it whole.
    while let Some(i) = rest.find('<') {
        text.push_str(&rest[..i]);
        let end = rest[i..].find('>').expect("a tag that ends") + i;
        let tag = &rest[i + 1..end];
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '!')
            .collect::<String>()
            .to_ascii_lowercase();
        rest = &rest[end + 1..];
        if name == "style" && !tag.starts_with('/') {
            let close = rest.find("</style>").expect("style closes");
            assert!(!rest[..close].contains('<'), "markup in the style sheet");
            rest = &rest[close + "</style>".len()..];
            continue;
        }
        match name.as_str() {
            "!doctype" | "meta" => {}
            n if PAIRED.contains(&n) => {
                if tag.starts_with('/') {
                    assert_eq!(open.pop().as_deref(), Some(n), "</{n}> closes nothing open");
                } else {
                    open.push(n.to_string());
                }
            }
            other => panic!("unexpected tag <{other}> in the page"),
        }
    }
    text.push_str(rest);
    assert!(open.is_empty(), "left open: {open:?}");
    text
}

/// Asserts nothing on the page comes from elsewhere or runs.
fn assert_self_contained(html: &str) {
    let lower = html.to_ascii_lowercase();
    for bad in [
        "http://", "https://", "<script", "<link", "<img", "@import", "url(",
    ] {
        assert!(!lower.contains(bad), "the page holds {bad:?}");
    }
    assert!(lower.contains("<meta charset=\"utf-8\">"), "no charset");
}

#[test]
fn the_page_lists_every_node_state_and_module_and_puts_the_stuck_first() {
    let t = mesh();
    every_state(&t);
    let json = t.json(&["status"]);
    // A relative FILE is taken from where mesh runs, as every path argument: absolute here.
    let out = t.path("out/status.html").display().to_string();
    let run = t.run(&["status", "--html", &out, "--refresh", "60"]);
    assert_eq!(run.code, 0, "{run}");
    assert!(run.stdout.is_empty(), "the page goes to its file: {run}");
    assert!(run.stderr.contains(&format!("wrote {out}")), "{run}");
    let html = std::fs::read_to_string(t.path("out/status.html")).expect("the page is written");
    assert_self_contained(&html);
    assert!(html.contains("<meta http-equiv=\"refresh\" content=\"60\">"));
    let text = parse(&html);
    for n in json["nodes"].as_array().expect("nodes") {
        let name = n["name"].as_str().expect("name");
        let state = n["state"].as_str().expect("state");
        assert!(text.contains(name), "{name} is not on the page");
        assert!(text.contains(state), "{state} ({name}) is not on the page");
    }
    for m in json["modules"].as_array().expect("modules") {
        let name = m["name"].as_str().expect("name");
        assert!(text.contains(name), "module {name} is not on the page");
    }
    for n in NODES {
        assert!(text.contains(n));
    }
    // Needing a person first: the stuck node's row comes before the current node's.
    let row = |n: &str| {
        html.find(&format!("<tr><td>{n}</td>"))
            .unwrap_or_else(|| panic!("no row for {n}"))
    };
    assert!(row("n-stuck") < row("n-current"));
    assert!(row("n-failed") < row("n-outstanding"));
    assert!(text.contains("Needs a look"));
    // The header counts and says when.
    assert!(text.contains("7 nodes: 1 not worked out"), "{text}");
    assert!(text.contains("1 stuck"), "{text}");
    assert!(text.contains("made 20"), "{text}");
    // The grid: resolver on the stuck node, in words.
    let grid = &html[html.find("id=\"grid\"").expect("a grid")..];
    let stuck_row = &grid[grid.find("<tr><td>n-stuck</td>").expect("a grid row")..];
    let stuck_row = &stuck_row[..stuck_row.find("</tr>").expect("row ends")];
    assert!(stuck_row.contains(">failed <small>build"), "{stuck_row}");
    // The newest facts.
    assert!(text.contains("Last facts"), "{text}");
    assert!(text.contains("stuck") && text.contains("refused"), "{text}");
    // Without --refresh, no refresh.
    t.ok(&[
        "status",
        "--html",
        &t.path("plain.html").display().to_string(),
    ]);
    let plain = std::fs::read_to_string(t.path("plain.html")).expect("written");
    assert!(!plain.contains("http-equiv"));
}

#[test]
fn what_a_node_says_is_escaped() {
    let t = example();
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "activate = \"bin/resolver\"",
        "activate = 'echo \"<script>alert(1)</script> & <b>\" >&2; exit 1'",
        "activate says markup",
    );
    t.write(
        "mesh.toml",
        &local_nodes_toml(&[("a", &[])], &[("resolver", &["a"])]),
    );
    assert_eq!(t.run(&["reconcile"]).code, 3);
    t.ok(&[
        "status",
        "--html",
        &t.path("page.html").display().to_string(),
    ]);
    let html = std::fs::read_to_string(t.path("page.html")).expect("written");
    assert_self_contained(&html);
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;"),
        "the node's words as text: {html}"
    );
    parse(&html);
}

/// `[status] page` makes every reconcile write the page; a reconcile that changes nothing
/// writes it again (when it was made moves on).
#[test]
fn every_reconcile_writes_the_configured_page() {
    let t: TestMesh = example();
    let toml = local_nodes_toml(
        &[("g14", &["edge"])],
        &[("route-proxy", &["@edge"]), ("resolver", &["@edge"])],
    );
    // Relative to mesh.toml's directory.
    t.write(
        "mesh.toml",
        &format!("{toml}\n[status]\npage    = \"public/index.html\"\nrefresh = \"5m\"\n"),
    );
    let run = t.run(&["reconcile"]);
    assert_eq!(run.code, 0, "{run}");
    let html = std::fs::read_to_string(t.path("public/index.html")).expect("reconcile wrote it");
    assert_self_contained(&html);
    assert!(html.contains("content=\"300\""), "refresh every 5 minutes");
    let text = parse(&html);
    assert!(text.contains("g14") && text.contains("current"), "{text}");
    assert!(text.contains("route-proxy"));
    // No temp file is left beside it.
    let names: Vec<String> = std::fs::read_dir(t.path("public"))
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["index.html"]);
    // Readable by the web server that publishes it, which runs as another user.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(t.path("public/index.html"))
        .expect("page")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);
}

/// `mesh status --html PATH` over what is not a regular file: refused (exit 1), saying what it
/// is and what to do, and what is there is left as it was.
#[test]
fn the_page_is_written_only_over_a_regular_file_or_a_new_path() {
    use std::os::unix::fs::FileTypeExt;
    let t: TestMesh = example();
    let html = |p: &std::path::Path| {
        let p = p.display().to_string();
        t.run(&["status", "--html", &p])
    };
    // A symbolic link, to a file that is not the page: neither is touched.
    t.write("keep.txt", "keep");
    let link = t.path("link.html");
    std::os::unix::fs::symlink(t.path("keep.txt"), &link).expect("symlink");
    let run = html(&link);
    assert_eq!(run.code, 1, "{run}");
    assert!(run.stderr.contains("is a symbolic link"), "{run}");
    assert!(run.stderr.contains("help:"), "{run}");
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("the link")
            .file_type()
            .is_symlink(),
        "the link was replaced"
    );
    assert_eq!(
        std::fs::read_to_string(t.path("keep.txt")).expect("kept"),
        "keep"
    );
    // A named pipe, and a device where one can be made (as root): left as they are.
    let fifo = t.path("pipe.html");
    let c = std::ffi::CString::new(fifo.display().to_string()).expect("path");
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
    let run = html(&fifo);
    assert_eq!(run.code, 1, "{run}");
    assert!(run.stderr.contains("is a named pipe"), "{run}");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .expect("the pipe")
            .file_type()
            .is_fifo()
    );
    let null = t.path("null");
    let c = std::ffi::CString::new(null.display().to_string()).expect("path");
    // SAFETY: a NUL-terminated path; /dev/null's numbers (1, 3).
    if unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) } == 0 {
        let run = html(&null);
        assert_eq!(run.code, 1, "{run}");
        assert!(run.stderr.contains("is a device"), "{run}");
        assert!(
            std::fs::symlink_metadata(&null)
                .expect("the device")
                .file_type()
                .is_char_device()
        );
    }
    // A directory: said once.
    std::fs::create_dir_all(t.path("www")).expect("mkdir");
    let run = html(&t.path("www"));
    assert_eq!(run.code, 1, "{run}");
    assert_eq!(run.stderr.matches("is a directory").count(), 1, "{run}");
    assert!(run.stderr.contains("www/index.html"), "{run}");
    // A regular file is replaced, and a new path made.
    t.write("old.html", "old");
    assert_eq!(html(&t.path("old.html")).code, 0);
    assert!(
        std::fs::read_to_string(t.path("old.html"))
            .expect("page")
            .contains("<html")
    );
    assert_eq!(html(&t.path("new/page.html")).code, 0);
}

/// `[status] page` naming a symbolic link: reconcile does its work, warns, and leaves the
/// link alone.
#[test]
fn reconcile_leaves_a_linked_page_alone_and_says_so() {
    let t: TestMesh = example();
    let toml = std::fs::read_to_string(t.path("mesh.toml")).expect("toml");
    t.write(
        "mesh.toml",
        &format!("{toml}\n[status]\npage = \"public/index.html\"\n"),
    );
    t.write("secret", "root's own file");
    std::fs::create_dir_all(t.path("public")).expect("mkdir");
    std::os::unix::fs::symlink(t.path("secret"), t.path("public/index.html")).expect("link");
    let run = t.run(&["reconcile"]);
    assert!(
        run.stderr.contains("the status page was not written"),
        "{run}"
    );
    assert!(run.stderr.contains("is a symbolic link"), "{run}");
    assert_eq!(
        std::fs::read_to_string(t.path("secret")).expect("kept"),
        "root's own file"
    );
}

/// Temp pages a killed write left beside the page are swept by the next write: only ours
/// (`.NAME.tmp-…`, regular files), only when their writer is gone or they are old.
#[test]
fn temp_pages_a_killed_write_left_are_swept() {
    let t: TestMesh = example();
    let dir = t.path("www");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let hours_ago = |h: u64| std::time::SystemTime::now() - Duration::from_secs(h * 3600 + 120);
    let made = |name: &str, when: std::time::SystemTime| {
        let p = dir.join(name);
        std::fs::write(&p, "half a page").expect("write");
        std::fs::File::options()
            .write(true)
            .open(&p)
            .and_then(|f| f.set_modified(when))
            .expect("mtime");
    };
    // A writer that is gone (no such pid), two minutes ago; one of an older mesh, hours ago.
    made(".index.html.tmp-2147483600-a1B2c3", hours_ago(0));
    made(".index.html.tmp-Zx9kQw", hours_ago(2));
    // Kept: a writer that still runs (this test), a fresh one, another file's temp, and what
    // only looks like one.
    let me = std::process::id();
    made(&format!(".index.html.tmp-{me}-q1w2e3"), hours_ago(0));
    made(
        ".index.html.tmp-2147483600-fresh1",
        std::time::SystemTime::now(),
    );
    made(".other.html.tmp-2147483600-a1B2c3", hours_ago(2));
    std::fs::create_dir_all(dir.join(".index.html.tmp-2147483600-dir")).expect("mkdir");
    t.ok(&[
        "status",
        "--html",
        &dir.join("index.html").display().to_string(),
    ]);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut kept = vec![
        ".index.html.tmp-2147483600-dir".to_string(),
        ".index.html.tmp-2147483600-fresh1".into(),
        format!(".index.html.tmp-{me}-q1w2e3"),
        ".other.html.tmp-2147483600-a1B2c3".into(),
        "index.html".into(),
    ];
    kept.sort();
    assert_eq!(names, kept);
}

/// A node's words holding bidirectional controls (U+202E makes `txt.exe` read `exe.txt`) and
/// other controls reach neither the terminal, nor the JSON, nor the page: the words are kept,
/// in the order they are written.
#[test]
fn a_nodes_bidi_controls_reach_neither_terminal_nor_page() {
    let t = example();
    t.edit_and_commit(
        "platform",
        "go/services/resolver/mesh-module.toml",
        "activate = \"bin/resolver\"",
        "activate = 'printf \"evil \\342\\200\\256txt.exe\\342\\200\\254 \\342\\201\\246done\\033]0;title\\007\\n\" >&2; exit 1'",
        "activate says bidi",
    );
    t.write(
        "mesh.toml",
        &local_nodes_toml(&[("a", &[])], &[("resolver", &["a"])]),
    );
    let bidi = |s: &str| {
        s.chars().any(|c| {
            matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
                || (c.is_control() && c != '\n' && c != '\t')
        })
    };
    let run = t.run(&["reconcile"]);
    assert_eq!(run.code, 3, "{run}");
    assert!(run.stderr.contains("evil txt.exe done"), "{run}");
    assert!(!bidi(&run.stderr) && !bidi(&run.stdout), "{run:?}");
    for args in [
        &["status"][..],
        &["status", "--json"],
        &["node", "show", "a"],
    ] {
        let run = t.run(args);
        assert!(
            !bidi(&run.stderr) && !bidi(&run.stdout),
            "{args:?}: {run:?}"
        );
    }
    let json = t.run(&["status", "--json"]).stdout;
    assert!(json.contains("evil txt.exe done"), "{json}");
    let page = t.path("page.html");
    t.ok(&["status", "--html", &page.display().to_string()]);
    let html = std::fs::read_to_string(&page).expect("written");
    assert!(html.contains("evil txt.exe done"), "{html}");
    assert!(!bidi(&html.replace('\n', "")), "{html}");
}
