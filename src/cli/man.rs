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
pub fn run(a: &Args) -> mesh::Result<i32> {
    let pages = pages();
    match &a.out {
        None => {
            use std::io::Write;
            let main = pages.into_iter().next().map(|(_, b)| b).unwrap_or_default();
            std::io::stdout()
                .write_all(&main)
                .map_err(|e| mesh::Error::io("cannot write to stdout", e, "check the pipe"))?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| {
                mesh::Error::io(
                    format!("cannot create {}", dir.display()),
                    e,
                    "choose a writable directory",
                )
            })?;
            for (name, bytes) in pages {
                let p = dir.join(name);
                std::fs::write(&p, bytes).map_err(|e| {
                    mesh::Error::io(
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

/// The date the pages carry: when their text last changed in a way worth a reader's notice.
/// A fixed date, not the build's, so generated pages are the same on every machine.
const DATE: &str = "2026-12-01";

/// Every page: (file name, roff), `mesh.1` first, then `mesh-VERB.1` (and `mesh-node-VERB.1`,
/// the node-side commands too). clap's built-in `help` verb gets none.
pub fn pages() -> Vec<(String, Vec<u8>)> {
    let cmd = super::command();
    let mut out = Vec::new();
    collect(&cmd, &["mesh".to_string()], &mut out);
    out
}

fn collect(cmd: &clap::Command, path: &[String], out: &mut Vec<(String, Vec<u8>)>) {
    out.push((
        format!("{}.1", path.join("-")),
        page(cmd, path).into_bytes(),
    ));
    for sub in verbs(cmd) {
        let mut p = path.to_vec();
        p.push(sub.get_name().to_string());
        collect(sub, &p, out);
    }
}

/// The verbs of `cmd` in the order its help lists them, without clap's `help`.
fn verbs(cmd: &clap::Command) -> Vec<&clap::Command> {
    let mut subs: Vec<&clap::Command> = cmd
        .get_subcommands()
        .filter(|s| s.get_name() != "help")
        .collect();
    subs.sort_by_key(|s| s.get_display_order());
    subs
}

/// Text made safe for roff: backslashes and hyphens escaped, every character beyond ASCII
/// written as groff's `\[uXXXX]` (which mandoc reads too; a raw one makes groff warn, and what
/// it shows depends on the reader's locale), and no line starting with a control character.
/// (The `roff` crate, which clap_mangen uses, escapes only backslashes and hyphens.)
fn esc(text: &str) -> String {
    text.lines()
        .map(|l| {
            let mut e = String::with_capacity(l.len());
            for c in l.chars() {
                match c {
                    '\\' => e.push_str("\\e"),
                    '-' => e.push_str("\\-"),
                    c if c.is_ascii() => e.push(c),
                    c => e.push_str(&format!("\\[u{:04X}]", u32::from(c))),
                }
            }
            if e.starts_with('.') || e.starts_with('\'') {
                format!("\\&{e}")
            } else {
                e
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// How long a text line of a page may be: mandoc's lint asks for at most 80 bytes.
const WIDTH: usize = 80;

/// Breaks the page's long text lines at spaces (roff fills them back into paragraphs): never a
/// request line, the tag line after `.TP` (its break would end the tag), or before a word that
/// would start a line with a control character.
fn wrap(page: &str) -> String {
    let mut out = String::with_capacity(page.len() + page.len() / 40);
    let mut tag = false;
    for line in page.lines() {
        if line.starts_with('.') || tag || line.len() <= WIDTH {
            out.push_str(line);
            out.push('\n');
            tag = line == ".TP";
            continue;
        }
        let mut current = String::new();
        for word in line.split(' ') {
            let breaks = !current.is_empty()
                && !word.is_empty()
                && !word.starts_with('.')
                && !word.starts_with('\'')
                && current.len() + 1 + word.len() > WIDTH;
            if breaks {
                out.push_str(current.trim_end());
                out.push('\n');
                current.clear();
            } else if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(word);
        }
        out.push_str(&current);
        out.push('\n');
    }
    out
}

fn bold(s: &str) -> String {
    format!("\\fB{}\\fR", esc(s))
}

fn italic(s: &str) -> String {
    format!("\\fI{}\\fR", esc(s))
}

/// An option as the synopsis and the OPTIONS section write it: `-C DIR`, `--kind KIND`.
fn option(arg: &clap::Arg) -> String {
    let mut names = Vec::new();
    if let Some(s) = arg.get_short() {
        names.push(bold(&format!("-{s}")));
    }
    if let Some(l) = arg.get_long() {
        names.push(bold(&format!("--{l}")));
    }
    let mut s = names.join(", ");
    if arg.get_action().takes_values() {
        for v in arg.get_value_names().unwrap_or_default() {
            s.push(' ');
            s.push_str(&italic(v));
        }
    }
    s
}

/// A positional argument: `NODE`, `[NODE]...`.
fn positional(arg: &clap::Arg, synopsis: bool) -> String {
    let name = arg
        .get_value_names()
        .map(|v| v.join(" "))
        .unwrap_or_else(|| arg.get_id().to_string().to_uppercase());
    let many = matches!(arg.get_action(), clap::ArgAction::Append)
        || arg.get_num_args().is_some_and(|n| n.max_values() > 1);
    let mut s = italic(&name);
    if synopsis && !arg.is_required_set() {
        s = format!("[{s}]");
    }
    if many {
        s.push_str("...");
    }
    s
}

fn shown(arg: &clap::Arg) -> bool {
    !arg.is_hide_set() && !matches!(arg.get_id().as_str(), "help" | "version")
}

/// One man page: name, synopsis, description, options, commands, examples, the global options,
/// exit status (mesh.1) and the pages to see also.
fn page(cmd: &clap::Command, path: &[String]) -> String {
    let mut r = title(cmd, path);
    r.push_str(&synopsis(cmd, path));
    r.push_str(&description(cmd));
    r.push_str(&options(cmd, path));
    r.push_str(&commands(cmd, path));
    r.push_str(&examples(path));
    r.push_str(&global_options_or_exit_status(path));
    r.push_str(&see_also(cmd, path));
    wrap(&r)
}

/// The `.TH` header and the NAME section: the page's name and the verb's one-line about.
fn title(cmd: &clap::Command, path: &[String]) -> String {
    let name = path.join("-");
    let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
    format!(
        ".TH {} 1 {DATE} \"mesh {}\" \"mesh manual\"\n.SH NAME\n{} \\- {}\n",
        esc(&name.to_uppercase()),
        esc(env!("CARGO_PKG_VERSION")),
        esc(&name),
        esc(about.trim_end_matches('.'))
    )
}

/// The SYNOPSIS section: the words, every shown option, the positionals, and `COMMAND` when
/// the verb has verbs of its own.
fn synopsis(cmd: &clap::Command, path: &[String]) -> String {
    let mut syn = vec![bold(&path.join(" "))];
    for a in cmd
        .get_arguments()
        .filter(|a| shown(a) && !a.is_positional())
    {
        let o = synopsis_option(a);
        if matches!(a.get_action(), clap::ArgAction::Count) {
            syn.push(format!("[{o}]..."));
        } else if a.is_required_set() {
            syn.push(o);
        } else {
            syn.push(format!("[{o}]"));
        }
    }
    for a in cmd.get_positionals().filter(|a| shown(a)) {
        syn.push(positional(a, true));
    }
    if !verbs(cmd).is_empty() {
        syn.push(italic("COMMAND"));
    }
    format!(".SH SYNOPSIS\n{}\n", syn.join(" "))
}

/// An option as the synopsis writes it: its names joined by `|`, the short one first when it
/// has no long one or takes no value (`-v|--verbose`), else as [`option`] writes it.
fn synopsis_option(a: &clap::Arg) -> String {
    match (a.get_short(), a.get_long()) {
        (Some(s), _) if a.get_long().is_none() || !a.get_action().takes_values() => {
            let mut o = bold(&format!("-{s}"));
            if let Some(l) = a.get_long() {
                o = format!("{o}|{}", bold(&format!("--{l}")));
            }
            if a.get_action().takes_values() {
                for v in a.get_value_names().unwrap_or_default() {
                    o.push(' ');
                    o.push_str(&italic(v));
                }
            }
            o
        }
        _ => option(a).replace(", ", "|"),
    }
}

/// The DESCRIPTION section: the long about (else the about) as paragraphs.
fn description(cmd: &clap::Command) -> String {
    let long = cmd
        .get_long_about()
        .or_else(|| cmd.get_about())
        .map(|a| a.to_string())
        .unwrap_or_default();
    format!(".SH DESCRIPTION\n{}", paragraphs(&long))
}

/// The OPTIONS section (GLOBAL OPTIONS on mesh.1, where every verb's options are): one entry
/// per shown argument; nothing when there are none.
fn options(cmd: &clap::Command, path: &[String]) -> String {
    let args: Vec<&clap::Arg> = cmd.get_arguments().filter(|a| shown(a)).collect();
    if args.is_empty() {
        return String::new();
    }
    let own = if path.len() == 1 {
        "GLOBAL OPTIONS"
    } else {
        "OPTIONS"
    };
    let mut r = format!(".SH \"{own}\"\n");
    for a in args {
        let head = if a.is_positional() {
            positional(a, false)
        } else {
            option(a)
        };
        r.push_str(&format!(".TP\n{head}\n{}\n", esc(option_help(a).trim())));
    }
    r
}

/// An argument's help, followed by the values it takes and its default, when it takes one.
fn option_help(a: &clap::Arg) -> String {
    let mut help = a
        .get_long_help()
        .or_else(|| a.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let values: Vec<String> = a
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_string())
        .collect();
    if !values.is_empty() && a.get_action().takes_values() {
        help.push_str(&format!(" One of: {}.", values.join(", ")));
    }
    let defaults: Vec<String> = a
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && a.get_action().takes_values() {
        help.push_str(&format!(" Default: {}.", defaults.join(", ")));
    }
    help
}

/// The COMMANDS section, then NODE-SIDE COMMANDS for the hidden verbs mesh runs on a node:
/// each verb's about and the page it has. Nothing for a section without verbs.
fn commands(cmd: &clap::Command, path: &[String]) -> String {
    let name = path.join("-");
    let words = path.join(" ");
    let (plumbing, commands): (Vec<&clap::Command>, Vec<&clap::Command>) =
        verbs(cmd).into_iter().partition(|s| s.is_hide_set());
    let mut r = String::new();
    for (title, list) in [("COMMANDS", commands), ("NODE-SIDE COMMANDS", plumbing)] {
        if list.is_empty() {
            continue;
        }
        r.push_str(&format!(".SH \"{title}\"\n"));
        if title == "NODE-SIDE COMMANDS" {
            r.push_str("Run by mesh on the node, over ssh or for a local node; not for people.\n");
        }
        for s in list {
            let about = s.get_about().map(|a| a.to_string()).unwrap_or_default();
            let about = if about.ends_with('.') || about.is_empty() {
                about
            } else {
                format!("{about}.")
            };
            r.push_str(&format!(
                ".TP\n{}\n{} See \\fB{}\\-{}\\fR(1).\n",
                bold(&format!("{words} {}", s.get_name())),
                esc(&about),
                esc(&name),
                esc(s.get_name())
            ));
        }
    }
    r
}

/// The EXAMPLES section, from the examples `mesh help` shows for the verb; nothing without.
fn examples(path: &[String]) -> String {
    let key = path[1..].join(" ");
    let Some(examples) = super::help::examples(&key) else {
        return String::new();
    };
    let mut r = String::from(".SH EXAMPLES\n");
    for (line, what) in examples {
        r.push_str(&format!(".TP\n{}\n{}\n", bold(line), esc(what)));
    }
    r
}

/// A verb's page points to mesh(1) for the global options; mesh.1 itself says the exit
/// statuses instead.
fn global_options_or_exit_status(path: &[String]) -> String {
    if path.len() == 1 {
        return EXIT_STATUS.to_string();
    }
    let mut r = String::from(".SH \"GLOBAL OPTIONS\"\n");
    r.push_str(&esc(
        "-C DIR, --state FILE, --json, -q, -v and --color WHEN apply to every verb; \
         mesh(1) describes them.",
    ));
    r.push('\n');
    r
}

/// The SEE ALSO section: mesh(1) and the parent verb's page from a verb's page, and the page
/// of each of its own verbs; nothing when there are none.
fn see_also(cmd: &clap::Command, path: &[String]) -> String {
    let name = path.join("-");
    let mut see: Vec<String> = Vec::new();
    if path.len() > 1 {
        see.push("mesh".to_string());
        if path.len() > 2 {
            see.push(path[..path.len() - 1].join("-"));
        }
    }
    see.extend(
        verbs(cmd)
            .iter()
            .map(|s| format!("{name}-{}", s.get_name())),
    );
    if see.is_empty() {
        return String::new();
    }
    let mut r = String::from(".SH \"SEE ALSO\"\n");
    let n = see.len();
    for (i, s) in see.iter().enumerate() {
        let comma = if i + 1 < n { "," } else { "" };
        r.push_str(&format!(".BR {} (1){comma}\n", esc(s)));
    }
    r
}

/// Text as roff paragraphs: one `.PP` between blank-line-separated paragraphs.
fn paragraphs(text: &str) -> String {
    let mut out = String::new();
    for (i, p) in text.trim().split("\n\n").enumerate() {
        if i > 0 {
            out.push_str(".PP\n");
        }
        out.push_str(&esc(p.trim()));
        out.push('\n');
    }
    out
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
