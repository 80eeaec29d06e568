//! The standard libraries: imports of them never need a declaration, in any ecosystem.

/// Python's standard library: `sys.stdlib_module_names` of CPython 3.11 (the private `_x`
/// modules left out), with the modules 3.8–3.10 still had and those 3.14 added
/// (`annotationlib`, `compression`). A module removed in a later version
/// (`asyncore`, `distutils`, `imp`) stays here: code that runs on the older versions it
/// supports may still import it.
const PYTHON: &[&str] = &[
    "__future__",
    // The running program's own module (`import __main__`), always there.
    "__main__",
    "_thread",
    // typeshed's own module, which only type checkers know (imported in stubs and under
    // `TYPE_CHECKING`).
    "_typeshed",
    "abc",
    "aifc",
    "annotationlib",
    "antigravity",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "binhex",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "compression",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "formatter",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "parser",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symbol",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
];

/// Node's built-in modules (`require('module').builtinModules`, the `_x` internals left out),
/// imported with or without `node:`; sub-paths such as `fs/promises` are matched by their first
/// segment.
const NODE: &[&str] = &[
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "sea",
    "sqlite",
    "stream",
    "string_decoder",
    "sys",
    "test",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "wasi",
    "worker_threads",
    "zlib",
];

/// The crates every Rust toolchain ships.
const RUST: &[&str] = &["std", "core", "alloc", "proc_macro", "test"];

/// Modules removed from the standard library (PEP 594: Python 3.12 and 3.13), each with the
/// distributions that bring it back on a newer Python (`audioop-lts` installs `audioop`).
const PYTHON_REMOVED: &[(&str, &[&str])] = &[
    ("aifc", &["standard-aifc"]),
    ("asynchat", &["standard-asynchat", "pyasynchat"]),
    ("asyncore", &["standard-asyncore", "pyasyncore"]),
    ("audioop", &["audioop-lts"]),
    ("cgi", &["legacy-cgi", "standard-cgi"]),
    ("cgitb", &["legacy-cgi", "standard-cgitb"]),
    ("chunk", &["standard-chunk"]),
    ("imghdr", &["standard-imghdr"]),
    ("mailcap", &["standard-mailcap"]),
    ("nntplib", &["standard-nntplib"]),
    ("pipes", &["standard-pipes"]),
    ("smtpd", &["standard-smtpd"]),
    ("sndhdr", &["standard-sndhdr"]),
    ("sunau", &["standard-sunau"]),
    ("telnetlib", &["standard-telnetlib"]),
    ("uu", &["standard-uu"]),
    ("xdrlib", &["standard-xdrlib"]),
];

/// Whether the standard library's `name` was removed from newer Pythons: an import of it
/// then needs its backport, so it is matched to one declared (never owed: older Pythons
/// have it).
pub fn python_removed(name: &str) -> bool {
    PYTHON_REMOVED.iter().any(|(m, _)| *m == name)
}

/// The removed modules ([`PYTHON_REMOVED`]) the backport distribution `norm` (PEP 503)
/// brings back.
pub fn python_backported(norm: &str) -> Vec<String> {
    (PYTHON_REMOVED.iter())
        .filter(|(_, dists)| dists.contains(&norm))
        .map(|(m, _)| m.to_string())
        .collect()
}

/// Whether the Python top-level module `name` is in the standard library.
pub fn python(name: &str) -> bool {
    PYTHON.binary_search(&name).is_ok()
}

/// Whether a JS import specifier names a Node built-in: `node:` anything, or a built-in's name
/// (`fs`, `fs/promises`).
pub fn node(spec: &str) -> bool {
    spec.starts_with("node:") || NODE.contains(&spec.split('/').next().unwrap_or(spec))
}

/// Whether a Go import path is in the standard library: as the go command decides, its first
/// element has no dot (`net/http`, `crypto/x509`; never `example.com/x`).
pub fn go(path: &str) -> bool {
    !path.split('/').next().unwrap_or(path).contains('.')
}

/// Whether a Rust crate name is one the toolchain ships.
pub fn rust(name: &str) -> bool {
    RUST.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_table_is_sorted_for_binary_search() {
        assert!(PYTHON.windows(2).all(|w| w[0] < w[1]));
        assert!(python("os") && python("tomllib") && python("asyncore") && python("cProfile"));
        assert!(!python("yaml") && !python("typing_extensions"));
    }

    #[test]
    fn node_go_rust() {
        assert!(node("fs") && node("node:fs") && node("fs/promises") && node("node:test"));
        assert!(!node("lodash") && !node("fsevents"));
        assert!(
            go("net/http") && go("fmt") && !go("example.com/mono/x") && !go("golang.org/x/sync")
        );
        assert!(rust("std") && rust("proc_macro") && !rust("serde"));
    }
}
