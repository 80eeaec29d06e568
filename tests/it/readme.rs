//! README.md's Quickstart and walkthrough, run for real: every ```sh block marked
//! `<!-- walkthrough -->` is run in order with `sh -e`, in the directory the previous block left
//! (so `cd demo` carries over, as in the reader's shell), with the built binary first on the
//! `PATH` as `mesh`. `cargo install --path .` is left out (the binary under test is already
//! built). Each block must exit 0, or the code its marker names (`<!-- walkthrough exit=3 -->`),
//! and every line of the `<!-- output -->` block after it must appear in what it printed (stdout
//! and stderr; `…` matches anything, hex ids and runs of whitespace are not compared). At the end
//! `mesh status --json` must say every node is current. The README and this test cannot drift.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const README: &str = include_str!("../../README.md");

/// The line a newcomer copies; the README must keep it, literally, as one line.
const QUICKSTART: &str = "cargo install --path . && mesh init --example demo && cd demo && mesh reconcile && mesh status";

/// One marked block: the script, the exit code it must end with, the output lines it must print.
#[derive(Debug)]
struct Block {
    /// 1-based line of the marker in README.md, for messages.
    line: usize,
    script: String,
    exit: i32,
    output: Vec<String>,
}

/// The fenced block starting at `lines[*i]` (which must open with "```" + `lang`), advancing `i`
/// past its closing fence.
fn fenced(lines: &[&str], i: &mut usize, lang: &str, marker_line: usize) -> Vec<String> {
    while *i < lines.len() && lines[*i].trim().is_empty() {
        *i += 1;
    }
    assert!(
        *i < lines.len() && lines[*i].trim() == format!("```{lang}"),
        "README.md:{marker_line}: the marker must be followed by a ```{lang} block"
    );
    *i += 1;
    let mut body = Vec::new();
    while *i < lines.len() && lines[*i].trim() != "```" {
        body.push(lines[*i].to_string());
        *i += 1;
    }
    assert!(
        *i < lines.len(),
        "README.md:{marker_line}: unclosed ```{lang} block"
    );
    *i += 1;
    body
}

fn blocks(readme: &str) -> Vec<Block> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim();
        let Some(rest) = l
            .strip_prefix("<!-- walkthrough")
            .and_then(|r| r.strip_suffix("-->"))
        else {
            i += 1;
            continue;
        };
        let line = i + 1;
        let exit = match rest.trim() {
            "" => 0,
            r => r
                .strip_prefix("exit=")
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("README.md:{line}: bad marker {l:?}")),
        };
        i += 1;
        let script = fenced(&lines, &mut i, "sh", line).join("\n");
        let mut j = i;
        while j < lines.len() && lines[j].trim().is_empty() {
            j += 1;
        }
        let output = if j < lines.len() && lines[j].trim() == "<!-- output -->" {
            i = j + 1;
            fenced(&lines, &mut i, "text", line)
        } else {
            Vec::new()
        };
        out.push(Block {
            line,
            script,
            exit,
            output,
        });
    }
    out
}

/// What the test runs instead of the block: without `cargo install --path .`.
fn runnable(script: &str) -> String {
    script
        .lines()
        .filter(|l| l.trim() != "cargo install --path .")
        .map(|l| l.replace("cargo install --path . && ", ""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whitespace runs collapsed, every run of 7 or more hex digits (commits, digests, build log
/// stamps) and every duration in parentheses (`(0.0s)`) turned into `…`, which matches anything.
fn normalise(line: &str) -> String {
    let words = line
        .split_whitespace()
        .map(
            |w| match w.strip_prefix('(').and_then(|w| w.strip_suffix("s)")) {
                Some(n) if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.') => {
                    "(…)"
                }
                _ => w,
            },
        )
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = String::new();
    let mut run = String::new();
    for c in words.chars().chain(std::iter::once('\n')) {
        if c.is_ascii_hexdigit() && !c.is_ascii_uppercase() {
            run.push(c);
            continue;
        }
        if run.chars().count() >= 7 {
            out.push('…');
        } else {
            out.push_str(&run);
        }
        run.clear();
        if c != '\n' {
            out.push(c);
        }
    }
    out
}

/// Whether `actual` (normalised) matches `wanted` (normalised), where `…` in `wanted` matches
/// any text, and the rest is anchored at both ends.
fn matches(wanted: &str, actual: &str) -> bool {
    let parts: Vec<&str> = wanted.split('…').collect();
    if parts.len() == 1 {
        return wanted == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || !actual[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    true
}

/// The environment of a reader's shell: the binary under test as `mesh`, no colour, a git
/// identity, no store override, and a private HOME.
fn shell(script: &str, cwd: &Path, bin: &Path, home: &Path) -> Command {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    let mut c = Command::new("sh");
    c.arg("-ec")
        .arg(script)
        .current_dir(cwd)
        .env("PATH", std::env::join_paths(paths).expect("PATH"))
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "readme")
        .env("GIT_AUTHOR_EMAIL", "readme@example.org")
        .env("GIT_COMMITTER_NAME", "readme")
        .env("GIT_COMMITTER_EMAIL", "readme@example.org")
        .env_remove("MESH_STATE");
    c
}

#[test]
fn the_readme_parser_finds_the_walkthrough() {
    let b = blocks(README);
    assert!(
        README.lines().any(|l| l.trim() == QUICKSTART),
        "README.md lost the one-line quickstart:\n{QUICKSTART}"
    );
    assert!(
        README.lines().any(|l| l.trim() == "scripts/test"),
        "README.md lost the test command"
    );
    assert_eq!(
        b[0].script.trim(),
        QUICKSTART,
        "the first walkthrough block"
    );
    let all: String = b.iter().map(|b| b.script.as_str()).collect();
    for step in [
        "git -C platform commit",
        "mesh plan",
        "mesh build --behind",
        "mesh push --behind",
        "mesh collect",
        "mesh status",
    ] {
        assert!(all.contains(step), "the walkthrough lost `{step}`");
    }
    assert_eq!(
        runnable(QUICKSTART).trim(),
        QUICKSTART
            .strip_prefix("cargo install --path . && ")
            .expect("starts with the install")
    );
    assert!(matches(
        &normalise("geo fit (0.0s)"),
        &normalise("geo fit (12.5s)")
    ));
    assert!(matches(
        &normalise("route-proxy  source f60f18c5 · built from …"),
        &normalise("route-proxy source 815e2bcb · built from f60f18c5 · fit")
    ));
    assert!(!matches(
        &normalise("geo  stale  source moved"),
        &normalise("geo current fit")
    ));
}

#[test]
fn the_readme_walkthrough_runs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let bin = tmp.path().join("bin");
    let home = tmp.path().join("home");
    let work = tmp.path().join("work");
    for d in [&bin, &home, &work] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("mesh"), bin.join("mesh"))
        .expect("symlink mesh");
    let cwd_file = tmp.path().join("cwd");

    let mut cwd: PathBuf = work.clone();
    for block in blocks(README) {
        let script = format!(
            "{}\npwd > '{}'",
            runnable(&block.script),
            cwd_file.display()
        );
        let out = shell(&script, &cwd, &bin, &home).output().expect("run sh");
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            out.status.code(),
            Some(block.exit),
            "README.md:{}: this block should exit {}:\n{}\nit printed:\n{printed}",
            block.line,
            block.exit,
            block.script
        );
        if let Ok(dir) = std::fs::read_to_string(&cwd_file) {
            cwd = PathBuf::from(dir.trim());
        }
        let actual: Vec<String> = printed.lines().map(normalise).collect();
        for wanted in &block.output {
            let w = normalise(wanted);
            if w.is_empty() {
                continue;
            }
            assert!(
                actual.iter().any(|a| matches(&w, a)),
                "README.md:{}: after\n{}\nthe README shows the line\n{wanted}\nbut mesh printed:\n{printed}",
                block.line,
                block.script
            );
        }
    }

    assert!(
        cwd.ends_with("demo"),
        "the walkthrough should end in demo/, not {}",
        cwd.display()
    );
    let out = shell("mesh status --json", &cwd, &bin, &home)
        .output()
        .expect("run mesh status");
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).expect("status JSON");
    let nodes = v["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 3, "{v}");
    for n in nodes {
        assert_eq!(n["state"], "current", "after the walkthrough: {n}");
    }
}
