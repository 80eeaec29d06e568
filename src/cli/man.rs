//! `mesh man`: man pages from the clap definitions.

use std::path::PathBuf;

/// Write man pages: mesh.1 and one page per verb.
///
/// Without `--out`, prints mesh.1 to stdout. The generated pages are also committed under `man/`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write every page into this directory instead.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Runs `mesh man` and returns its exit code.
pub fn run(a: &Args) -> crate::Result<i32> {
    let pages = pages();
    match &a.out {
        None => {
            use std::io::Write;
            let main = pages.into_iter().next().map(|(_, b)| b).unwrap_or_default();
            std::io::stdout()
                .write_all(&main)
                .map_err(|e| crate::Error::io("cannot write to stdout", e, "check the pipe"))?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                crate::Error::io(
                    format!("cannot create {}", dir.display()),
                    e,
                    "choose a writable directory",
                )
            })?;
            for (name, bytes) in pages {
                let p = dir.join(name);
                std::fs::write(&p, bytes).map_err(|e| {
                    crate::Error::io(
                        format!("cannot write {}", p.display()),
                        e,
                        "choose a writable directory",
                    )
                })?;
            }
        }
    }
    Ok(0)
}

/// Every page: (file name, roff), `mesh.1` first, then `mesh-VERB.1` (and `mesh-node-VERB.1`).
pub fn pages() -> Vec<(String, Vec<u8>)> {
    let cmd = super::command();
    let mut out = Vec::new();
    collect(&cmd, "mesh", &mut out);
    out
}

fn collect(cmd: &clap::Command, name: &str, out: &mut Vec<(String, Vec<u8>)>) {
    let mut buf = Vec::new();
    let page = cmd.clone().name(name.to_string());
    let man = clap_mangen::Man::new(page);
    if man.render(&mut buf).is_ok() {
        if name == "mesh" {
            buf.extend_from_slice(EXIT_STATUS.as_bytes());
        }
        out.push((format!("{name}.1"), buf));
    }
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        collect(sub, &format!("{name}-{}", sub.get_name()), out);
    }
}

const EXIT_STATUS: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
success
.TP
\fB1\fR
an error: configuration, store, git or I/O
.TP
\fB2\fR
usage: the command line was not understood
.TP
\fB3\fR
something needs a person: \fB\-\-check\fR found something not current, a push was refused or a node unreachable, or \fBreconcile\fR left a node stuck or a build broken or unfit
.TP
\fB75\fR
another mesh process holds the mesh's lock; try again
.TP
\fB130\fR, \fB143\fR
stopped by SIGINT or SIGTERM: the builds mesh started were stopped too, and what finished before is recorded
"#;
