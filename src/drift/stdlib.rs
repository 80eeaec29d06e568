//! The standard libraries: imports of them never need a declaration, in any ecosystem.

/// Python's standard library: `sys.stdlib_module_names` of CPython 3.11 (the private `_x`
/// modules too), with the modules 3.8–3.10 still had and those 3.14 added
/// (`annotationlib`, `compression`). A module removed in a later version
/// (`asyncore`, `distutils`, `imp`) stays here: code that runs on the older versions it
/// supports may still import it.
const PYTHON: &[&str] = &[
    "__future__",
    // The running program's own module (`import __main__`), always there.
    "__main__",
    // The private modules behind the public ones (`_datetime`, `_thread`): imported by
    // code that wants the C accelerator itself.
    "_abc",
    "_aix_support",
    "_ast",
    "_asyncio",
    "_bisect",
    "_blake2",
    "_bootsubprocess",
    "_bz2",
    "_codecs",
    "_codecs_cn",
    "_codecs_hk",
    "_codecs_iso2022",
    "_codecs_jp",
    "_codecs_kr",
    "_codecs_tw",
    "_collections",
    "_collections_abc",
    "_compat_pickle",
    "_compression",
    "_contextvars",
    "_crypt",
    "_csv",
    "_ctypes",
    "_curses",
    "_curses_panel",
    "_datetime",
    "_dbm",
    "_decimal",
    "_elementtree",
    "_frozen_importlib",
    "_frozen_importlib_external",
    "_functools",
    "_gdbm",
    "_hashlib",
    "_heapq",
    "_imp",
    "_io",
    "_json",
    "_locale",
    "_lsprof",
    "_lzma",
    "_markupbase",
    "_md5",
    "_msi",
    "_multibytecodec",
    "_multiprocessing",
    "_opcode",
    "_operator",
    "_osx_support",
    "_overlapped",
    "_pickle",
    "_posixshmem",
    "_posixsubprocess",
    "_py_abc",
    "_pydecimal",
    "_pyio",
    "_queue",
    "_random",
    "_scproxy",
    "_sha1",
    "_sha256",
    "_sha3",
    "_sha512",
    "_signal",
    "_sitebuiltins",
    "_socket",
    "_sqlite3",
    "_sre",
    "_ssl",
    "_stat",
    "_statistics",
    "_string",
    "_strptime",
    "_struct",
    "_symtable",
    "_thread",
    "_threading_local",
    "_tkinter",
    "_tokenize",
    "_tracemalloc",
    // typeshed's own module, which only type checkers know (imported in stubs and under
    // `TYPE_CHECKING`).
    "_typeshed",
    "_typing",
    "_uuid",
    "_warnings",
    "_weakref",
    "_weakrefset",
    "_winapi",
    "_zoneinfo",
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

/// Standard modules some platform's Python lacks, each with the distribution that brings it
/// there: `windows-curses` installs `curses` on Windows, `pyreadline3` `readline`, and
/// `zoneinfo` reads `tzdata` where the system has no time zone database.
const PYTHON_PLATFORM: &[(&str, &[&str])] = &[
    ("curses", &["windows-curses"]),
    ("readline", &["pyreadline3"]),
    ("zoneinfo", &["tzdata"]),
];

/// Whether the standard library's `name` was removed from newer Pythons: an import of it
/// then needs its backport, so it is matched to one declared (never owed: older Pythons
/// have it).
pub fn python_removed(name: &str) -> bool {
    PYTHON_REMOVED.iter().any(|(m, _)| *m == name)
}

/// Whether the standard library's `name` is one some platform's Python lacks
/// ([`PYTHON_PLATFORM`]): matched to a declared distribution that brings it, never owed.
pub fn python_platform(name: &str) -> bool {
    PYTHON_PLATFORM.iter().any(|(m, _)| *m == name)
}

/// Whether an import of the standard library's `name` may need a distribution: removed
/// from newer Pythons, or missing on some platform.
pub fn python_filled(name: &str) -> bool {
    python_removed(name) || python_platform(name)
}

/// The standard modules the distribution `norm` (PEP 503) brings back ([`PYTHON_REMOVED`])
/// or to a platform lacking them ([`PYTHON_PLATFORM`]).
pub fn python_backported(norm: &str) -> Vec<String> {
    (PYTHON_REMOVED.iter().chain(PYTHON_PLATFORM))
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
        // The private modules behind the public ones, never a distribution's (`_pytest`).
        assert!(python("_datetime") && python("_collections_abc") && !python("_pytest"));
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
