//! How each ecosystem matches a declared name to the names code imports: Rust's `-`/`_`, a JS
//! package's sub-paths and scopes, Go's module-path prefixes, Python's distribution names
//! against import names.

use super::python_names::{DERIVED_PYTHON_DISTRIBUTIONS, GENERATED_PYTHON_IMPORT_NAMES};

/// Python distributions whose import name is not their own name normalized, as
/// (distribution, import names), by hand: ones drift runs met, and `dnspython`, whose `dns`
/// the generated table also gives py3dns (`DNS`), so only this table can suggest it. Read
/// before [`GENERATED_PYTHON_IMPORT_NAMES`], which scripts/python-names writes from Debian's
/// packaged distributions: the few hundred among them the rules below get wrong (`wxPython` →
/// `wx`, `GitPython` → `git`, `django-cors-headers` → `corsheaders`). A distribution in
/// neither is matched by its normalized name (`Flask` → `flask`, `typing-extensions` →
/// `typing_extensions`), and `[drift] ignore` in `mesh-module.toml` covers the rest.
pub(crate) const PYTHON_IMPORT_NAMES: &[(&str, &[&str])] = &[
    ("ag-ui-protocol", &["ag_ui"]),
    ("attrs", &["attr", "attrs"]),
    ("beautifulsoup4", &["bs4"]),
    ("django-rest-framework", &["rest_framework"]),
    ("djangorestframework", &["rest_framework"]),
    ("dnspython", &["dns"]),
    ("fastmcp-slim", &["fastmcp"]),
    ("google-api-python-client", &["googleapiclient"]),
    // The Vertex AI SDK ships `vertexai` beside its namespace package.
    (
        "google-cloud-aiplatform",
        &["google.cloud.aiplatform", "vertexai"],
    ),
    // The namespace's shared modules, which every `google-cloud-*` client requires.
    (
        "google-cloud-core",
        &[
            "google.cloud._helpers",
            "google.cloud._http",
            "google.cloud.client",
            "google.cloud.environment_vars",
            "google.cloud.exceptions",
            "google.cloud.obsolete",
            "google.cloud.operation",
            "google.cloud.version",
        ],
    ),
    ("griffelib", &["griffe"]),
    ("grpcio", &["grpc"]),
    // gRPC's own add-ons, each `grpc_` and its first word.
    ("grpcio-channelz", &["grpc_channelz"]),
    ("grpcio-health-checking", &["grpc_health"]),
    ("grpcio-reflection", &["grpc_reflection"]),
    ("grpcio-status", &["grpc_status"]),
    ("grpcio-testing", &["grpc_testing"]),
    ("ipython", &["IPython"]),
    ("msgpack-python", &["msgpack"]),
    ("mysqlclient", &["MySQLdb"]),
    // The OpenAI Agents SDK.
    ("openai-agents", &["agents"]),
    ("openai-whisper", &["whisper"]),
    ("opencv-python", &["cv2"]),
    ("opencv-python-headless", &["cv2"]),
    // The API ships the namespace's own modules, not the namespace: `opentelemetry.semconv`
    // and `opentelemetry.util.http` are other distributions' (see PYTHON_NAMESPACE_OWN).
    (
        "opentelemetry-api",
        &[
            "opentelemetry._events",
            "opentelemetry._logs",
            "opentelemetry.attributes",
            "opentelemetry.baggage",
            "opentelemetry.context",
            "opentelemetry.environment_variables",
            "opentelemetry.metrics",
            "opentelemetry.propagate",
            "opentelemetry.propagators.composite",
            "opentelemetry.propagators.textmap",
            "opentelemetry.trace",
            "opentelemetry.util._decorator",
            "opentelemetry.util._importlib_metadata",
            "opentelemetry.util._once",
            "opentelemetry.util._providers",
            "opentelemetry.util.re",
            "opentelemetry.util.types",
            "opentelemetry.version",
        ],
    ),
    (
        "opentelemetry-semantic-conventions",
        &["opentelemetry.semconv"],
    ),
    ("opentelemetry-test-utils", &["opentelemetry.test"]),
    ("opentelemetry-util-http", &["opentelemetry.util.http"]),
    ("pillow", &["PIL"]),
    ("protobuf", &["google.protobuf"]),
    ("psycopg2-binary", &["psycopg2"]),
    ("pycryptodome", &["Crypto"]),
    ("pygithub", &["github"]),
    ("pyjwt", &["jwt"]),
    ("pymupdf", &["fitz", "pymupdf"]),
    ("pyopenssl", &["OpenSSL"]),
    // Windows only, so absent from Debian's archive the generated table is read from;
    // pypiwin32 is its old name.
    ("pypiwin32", PYWIN32_MODULES),
    ("pyserial", &["serial"]),
    // pytest 7.2 and later ship `py.py`, the part of the retired `py` library it still
    // needed: `import py` is pytest's.
    ("pytest", &["pytest", "_pytest", "py"]),
    ("python-dateutil", &["dateutil"]),
    ("python-dotenv", &["dotenv"]),
    ("python-multipart", &["multipart"]),
    ("pytz", &["pytz"]),
    ("pywin32", PYWIN32_MODULES),
    ("pyyaml", &["yaml"]),
    ("pyzmq", &["zmq"]),
    ("scikit-image", &["skimage"]),
    ("scikit-learn", &["sklearn"]),
    ("setuptools", &["setuptools", "pkg_resources"]),
    ("speechrecognition", &["speech_recognition"]),
    // Valkey's GLIDE clients: the async and the sync client, each with the shared modules.
    ("valkey-glide", &["glide", "glide_shared"]),
    ("valkey-glide-sync", &["glide_shared", "glide_sync"]),
];

/// The modules pywin32 installs (its `top_level.txt`), sorted.
const PYWIN32_MODULES: &[&str] = &[
    "_win32sysloader",
    "adodbapi",
    "afxres",
    "commctrl",
    "dde",
    "isapi",
    "mmapfile",
    "netbios",
    "ntsecuritycon",
    "odbc",
    "perfmon",
    "pythoncom",
    "pythonwin",
    "pywintypes",
    "rasutil",
    "regutil",
    "servicemanager",
    "sspi",
    "sspicon",
    "timer",
    "win2kras",
    "win32",
    "win32api",
    "win32clipboard",
    "win32com",
    "win32comext",
    "win32con",
    "win32console",
    "win32cred",
    "win32crypt",
    "win32cryptcon",
    "win32event",
    "win32evtlog",
    "win32file",
    "win32gui",
    "win32gui_struct",
    "win32help",
    "win32inet",
    "win32job",
    "win32lz",
    "win32net",
    "win32netcon",
    "win32pdh",
    "win32pdhutil",
    "win32pipe",
    "win32print",
    "win32process",
    "win32profile",
    "win32ras",
    "win32rcparser",
    "win32security",
    "win32service",
    "win32serviceutil",
    "win32timezone",
    "win32trace",
    "win32transaction",
    "win32ts",
    "win32ui",
    "win32uiole",
    "win32verstamp",
    "win32wnet",
    "winerror",
    "winioctlcon",
    "winnt",
    "winperf",
    "winxpgui",
];

/// A Python import with the version of a Google generated client's module dropped
/// (`google.cloud.modelarmor_v1.types` → `google.cloud.modelarmor.types`,
/// `aiplatform_v1beta1` → `aiplatform`): each `google-cloud-*` distribution ships its
/// versioned modules beside the plain one. Any other import is as it is.
pub(crate) fn google_unversioned(import: &str) -> std::borrow::Cow<'_, str> {
    if !import.starts_with("google.") {
        return std::borrow::Cow::Borrowed(import);
    }
    // `v1`, `v2beta3`, `v1p1beta1`: digits, an optional `p` and digits, an optional
    // `alpha` or `beta` and digits.
    let digits = |s: &str| s.trim_start_matches(|c: char| c.is_ascii_digit()).len() < s.len();
    let version = |v: &str| {
        let rest = v.trim_start_matches(|c: char| c.is_ascii_digit());
        if !digits(v) {
            return false;
        }
        let rest = match rest.strip_prefix('p') {
            Some(p) if digits(p) => p.trim_start_matches(|c: char| c.is_ascii_digit()),
            Some(_) => return false,
            None => rest,
        };
        let rest = rest
            .strip_prefix("alpha")
            .or_else(|| rest.strip_prefix("beta"))
            .unwrap_or(rest);
        rest.chars().all(|c| c.is_ascii_digit())
    };
    let versioned = |seg: &str| {
        seg.rsplit_once("_v")
            .is_some_and(|(head, v)| !head.is_empty() && version(v))
    };
    if !import.split('.').any(versioned) {
        return std::borrow::Cow::Borrowed(import);
    }
    let parts: Vec<&str> = import
        .split('.')
        .map(|seg| match versioned(seg) {
            true => seg.rsplit_once("_v").map_or(seg, |(head, _)| head),
            false => seg,
        })
        .collect();
    std::borrow::Cow::Owned(parts.join("."))
}

/// A Python distribution name normalized as PEP 503 says (`Foo_Bar.baz` → `foo-bar-baz`).
pub(crate) fn pep503(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut sep = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('-');
            }
            sep = false;
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The import names (lowercase, dotted) a Python distribution is imported by: the tables'
/// (the hand-written one, then the generated one), else every name the distribution's own
/// name can stand for under the rules packagers follow — its name lowercased with `-` as `_`
/// (a dotted name such as `zope.interface` keeps its dots); a namespace distribution's parts
/// as a dotted path whose last parts are joined with `_` or with nothing (`google-genai` →
/// `google.genai`, `a-b-c-d` → `a.b.c_d` or `a.b.cd`, and of three to six parts each place
/// between them `.` or `_`: `a_b.c_d.e`); without a wrapper word the import drops
/// (`tavily-python` → `tavily`, `python-foo`, `py-foo`, `foo-lib`, `foo-core`, `foo-py`,
/// `foo-sdk`, `foo-client`, `foo-ai`, `foo-cpu`, `foo-gpu`, `foo-slim`, `foo-bin`,
/// `foo-binary`, a
/// `-python-` in the middle: `foo-python-bar` → `foo_bar`); its parts joined with nothing
/// (`opensearch-py` → `opensearchpy`, `cel-python` → `celpy`); and a type-stub distribution
/// (`types-requests`, `pandas-stubs`, `celery-types`) is used when what it describes is.
pub(crate) fn python_keys(dist: &str) -> Vec<String> {
    let norm = pep503(dist);
    if let Some(names) = python_table(&norm) {
        return names.iter().map(|n| n.to_lowercase()).collect();
    }
    // A backport or a platform's fill is imported by the standard module's name, and by its
    // own (`from pyreadline3 import Readline`, `import tzdata`).
    let mut backported = super::stdlib::python_backported(&norm);
    if !backported.is_empty() {
        backported.extend(python_rule_keys(dist));
        return backported;
    }
    if let Some(described) = stub_of(&norm) {
        // And its own name: `types-aiobotocore-s3` is also the module
        // `types_aiobotocore_s3`, which code imports for its type definitions.
        let mut keys = python_keys(described);
        keys.push(norm.replace('-', "_"));
        return keys;
    }
    // A fork named as its original with initials before it (`ft-scikit-optimize`,
    // freqtrade's scikit-optimize, imported as `skopt`), where a table says the original's
    // import is not its name. Only two letters: a longer word before a name is a plugin's or
    // a tool's host (`mypy-protobuf`, `pydata-google-auth`, `django-libsass`), and an
    // original the rules name (`redis`) is left to them.
    if let Some((fork, original)) = norm.split_once('-')
        && fork.len() <= 2
        && let Some(names) = python_table(original)
    {
        let mut keys: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
        keys.extend(python_rule_keys(dist));
        return keys;
    }
    python_rule_keys(dist)
}

/// Whether mesh knows what the distribution `dist` is imported as — a table names it, or
/// Debian's packages of it show the rules derive it — rather than guessing from its name. A
/// type stub is known when what it describes is.
pub(crate) fn python_known(dist: &str) -> bool {
    let norm = pep503(dist);
    python_table(&norm).is_some()
        || DERIVED_PYTHON_DISTRIBUTIONS
            .binary_search(&norm.as_str())
            .is_ok()
        || stub_of(&norm).is_some_and(python_known)
}

/// What the type-stub distribution `norm` (PEP 503) describes (`types-requests`,
/// `pandas-stubs`, `celery-types`); `None` for any other. A stub is read by type checkers
/// only: it never provides a module code imports.
pub(crate) fn stub_of(norm: &str) -> Option<&str> {
    norm.strip_prefix("types-")
        .or_else(|| norm.strip_suffix("-stubs"))
        // `-types` ends real packages' names too (`pydantic-extra-types`): a stub only of a
        // distribution mesh knows.
        .or_else(|| norm.strip_suffix("-types").filter(|d| python_known(d)))
        .filter(|d| !d.is_empty())
}

/// The import names the tables give the distribution `norm` (PEP 503-normalized): the
/// hand-written table's, else the generated one's.
fn python_table(norm: &str) -> Option<&'static [&'static str]> {
    PYTHON_IMPORT_NAMES
        .iter()
        .find(|(d, _)| *d == norm)
        .or_else(|| {
            GENERATED_PYTHON_IMPORT_NAMES
                .binary_search_by(|(d, _)| (*d).cmp(norm))
                .ok()
                .map(|i| &GENERATED_PYTHON_IMPORT_NAMES[i])
        })
        .map(|(_, names)| *names)
}

/// Last words of a distribution's name that its import drops: `tavily-python`, `foo-lib`,
/// `foo-core`, `foo-py`, and a client's or build's word (`linkup-sdk` → `linkup`,
/// `weaviate-client` → `weaviate`, `faiss-cpu` → `faiss`, `haystack-ai` → `haystack`,
/// `pydantic-ai-slim` → `pydantic_ai`), and a prebuilt build's (`python-magic-bin` →
/// `magic`, the Windows wheel of what `python-magic` installs elsewhere).
const WRAPPER_SUFFIXES: &[&str] = &[
    "python", "py", "lib", "core", "sdk", "client", "ai", "cpu", "gpu", "slim", "bin", "binary",
];

/// Whether a distribution's last word names one build of it, whose import is the name
/// before it: a CUDA or ROCm build (`cupy-cuda11x`, `cupy-cuda102`, `torch-cu121`), a
/// wheel chooser (`cupy-wheel`). scripts/python-names mirrors it.
fn build_variant(word: &str) -> bool {
    ["cuda", "cu", "rocm"].iter().any(|prefix| {
        word.strip_prefix(prefix)
            .map(|rest| rest.trim_end_matches('x'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    }) || word == "wheel"
}

/// The names [`python_keys`]' rules derive from a distribution's name, without the tables.
/// scripts/python-names re-implements them to keep the generated table to their exceptions.
fn python_rule_keys(dist: &str) -> Vec<String> {
    let norm = pep503(dist);
    let mut keys = vec![dist.to_lowercase().replace('-', "_")];
    let mut add = |k: String| {
        if !k.is_empty() && !keys.contains(&k) {
            keys.push(k);
        }
    };
    let parts: Vec<&str> = norm.split('-').collect();
    for split in (1..parts.len()).rev() {
        let head = parts[..split].join(".");
        let tail = &parts[split..];
        add(format!("{head}.{}", tail.join("_")));
        if tail.len() > 1 {
            add(format!("{head}.{}", tail.concat()));
        }
        // A namespace of two words (`llama_index` of `llama-index-llms-google-genai` →
        // `llama_index.llms.google_genai`).
        if split >= 3 {
            let head = format!("{}_{}", parts[0], parts[1..split].join("."));
            add(format!("{head}.{}", tail.join("_")));
        }
    }
    // A namespace's multi-word parts keep their `_` where the dotted path is split
    // (`llama-index-vector-stores-qdrant` → `llama_index.vector_stores.qdrant`,
    // `llama-index-storage-index-store-postgres` → `llama_index.storage.index_store.postgres`):
    // each place between parts is `.` or `_`.
    if (3..=6).contains(&parts.len()) {
        for places in 0..1u32 << (parts.len() - 1) {
            let mut k = parts[0].to_string();
            for (i, p) in parts[1..].iter().enumerate() {
                k.push(if places >> i & 1 == 1 { '.' } else { '_' });
                k.push_str(p);
            }
            add(k);
        }
    }
    let unwrapped: Vec<&str> = parts
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            let first = *i == 0;
            let last = *i + 1 == parts.len();
            !((first && matches!(**p, "python" | "py"))
                || (last && WRAPPER_SUFFIXES.contains(*p))
                || (last && !first && build_variant(p))
                || (!first && !last && **p == "python"))
        })
        .map(|(_, p)| *p)
        .collect();
    if unwrapped.len() < parts.len() && !unwrapped.is_empty() {
        add(unwrapped.join("_"));
        if unwrapped.len() > 1 {
            add(unwrapped.join("."));
        }
    }
    for k in joined_keys(&parts) {
        add(k);
    }
    keys
}

/// A distribution's name parts (PEP 503) joined with nothing (`opensearch-py` →
/// `opensearchpy`, Debian's `gevent-websocket` → `geventwebsocket`), and with a last `python`
/// shortened to `py` (`cel-python` → `celpy`, `meson-python` → `mesonpy`); none for one part
/// or a namespace's parts.
fn joined_keys(parts: &[&str]) -> Vec<String> {
    if parts.len() < 2 || is_python_namespace(parts[0]) {
        return Vec::new();
    }
    let mut out = vec![parts.concat()];
    if parts.last() == Some(&"python") {
        out.push(format!("{}py", parts[..parts.len() - 1].concat()));
    }
    out
}

/// Top-level names shared by many distributions (namespace packages): an import below one
/// names its distribution by more than its first part.
const PYTHON_NAMESPACES: &[&str] = &[
    "azure",
    "backports",
    "google",
    "jaraco",
    "opentelemetry",
    "sphinxcontrib",
    "zope",
];

/// Namespaces inside namespace packages: below these, a distribution is named by three parts
/// (`google.cloud.storage` → `google-cloud-storage`), below the others by two.
const PYTHON_SUB_NAMESPACES: &[(&str, &str)] = &[
    ("azure", "ai"),
    ("azure", "mgmt"),
    ("azure", "storage"),
    ("google", "cloud"),
    ("opentelemetry", "exporter"),
    ("opentelemetry", "instrumentation"),
    ("opentelemetry", "propagators"),
];

/// Whether the dotted Python name `key` (lowercase) is a namespace package many
/// distributions share (`google`, `google.cloud`, `opentelemetry.exporter`): no distribution
/// provides it whole.
pub(crate) fn is_python_namespace(key: &str) -> bool {
    match key.split_once('.') {
        None => PYTHON_NAMESPACES.contains(&key),
        Some((ns, sub)) => PYTHON_SUB_NAMESPACES.contains(&(ns, sub)),
    }
}

/// Public modules of a namespace package that its own distribution (the one the table gives
/// the bare namespace) provides, not a distribution of their own: `opentelemetry.trace` is
/// `opentelemetry-api`'s (its `opentelemetry/` holds these), where `opentelemetry.sdk` is
/// `opentelemetry-sdk`.
const PYTHON_NAMESPACE_OWN: &[(&str, &[&str])] = &[(
    "opentelemetry",
    &[
        "attributes",
        "baggage",
        "context",
        "environment_variables",
        "metrics",
        "propagate",
        "trace",
        "util",
        "version",
    ],
)];

/// The distribution to declare for an undeclared Python import `key` (dotted): the one the
/// tables give its longest dotted prefix — the hand-written table's (`yaml` → `PyYAML`), else
/// the generated one's when exactly one distribution there gives it (`wx` → `wxpython`,
/// `paste.deploy` → `pastedeploy`); below a namespace package its parts joined with `-`, two
/// of them (`azure.identity` → `azure-identity`) or three below a namespace inside it
/// (`google.cloud.storage` → `google-cloud-storage`) — never the imported names after them,
/// so one missing distribution is one finding, however many of its modules and names are
/// imported — and the namespace's own distribution for a private module of it
/// (`opentelemetry._logs` → `opentelemetry-api`) or a module of it ([`PYTHON_NAMESPACE_OWN`]:
/// `opentelemetry.trace` → `opentelemetry-api`); else the top-level name.
pub(crate) fn python_dist_for(key: &str) -> String {
    let lower = key.to_lowercase();
    let table = |name: &str| {
        PYTHON_IMPORT_NAMES
            .iter()
            .find(|(_, names)| names.iter().any(|n| n.to_lowercase() == name))
            .map(|(d, _)| *d)
            .or_else(|| python_generated_dist(name))
            .map(str::to_string)
    };
    let parts: Vec<&str> = lower.split('.').collect();
    let namespace = PYTHON_NAMESPACES.contains(&parts[0]) && parts.len() > 1;
    // `google.protobuf` is in the table under its own dotted name.
    let shortest = if namespace { 2 } else { 1 };
    for n in (shortest..=parts.len()).rev() {
        if let Some(d) = table(&parts[..n].join(".")) {
            return d;
        }
    }
    if !namespace && let Some(d) = joined_dist(parts[0]) {
        return d.to_string();
    }
    if namespace {
        let own = PYTHON_NAMESPACE_OWN
            .iter()
            .any(|(ns, modules)| *ns == parts[0] && modules.contains(&parts[1]));
        if parts[1].starts_with('_') || own {
            return table(parts[0]).unwrap_or_else(|| parts[0].to_string());
        }
        let depth = match PYTHON_SUB_NAMESPACES.contains(&(parts[0], parts[1])) {
            true => 3,
            false => 2,
        };
        return parts[..parts.len().min(depth)].join("-").replace('_', "-");
    }
    key.split('.').next().unwrap_or(key).to_string()
}

/// The distribution of Debian's that the rules derive the import name `name` (lowercase)
/// for by joining its parts (`geventwebsocket` → `gevent-websocket`, `mesonpy` →
/// `meson-python`), if exactly one: the generated table leaves those to the rules, so the
/// way back from an import is made here, once.
fn joined_dist(name: &str) -> Option<&'static str> {
    use std::collections::HashMap;
    static JOINED: std::sync::LazyLock<HashMap<String, Option<&'static str>>> =
        std::sync::LazyLock::new(|| {
            let mut by: HashMap<String, Option<&'static str>> = HashMap::new();
            let mut add = |k: String, d: &'static str| {
                by.entry(k)
                    .and_modify(|v| {
                        if *v != Some(d) {
                            *v = None
                        }
                    })
                    .or_insert(Some(d));
            };
            for d in DERIVED_PYTHON_DISTRIBUTIONS.iter().copied() {
                let parts: Vec<&str> = d.split('-').collect();
                for k in joined_keys(&parts) {
                    add(k, d);
                }
            }
            by
        });
    // A distribution of that very name is the one its import names.
    if DERIVED_PYTHON_DISTRIBUTIONS.binary_search(&name).is_ok() {
        return None;
    }
    JOINED.get(name).copied().flatten()
}

/// The one distribution the generated table gives the import name `name` (lowercase), if
/// exactly one does: a name two give (`memoize`) names neither.
fn python_generated_dist(name: &str) -> Option<&'static str> {
    let mut givers = GENERATED_PYTHON_IMPORT_NAMES
        .iter()
        .filter(|(_, names)| names.iter().any(|n| n.to_lowercase() == name));
    let (first, _) = givers.next()?;
    givers.next().is_none().then_some(*first)
}

/// The package a JS import specifier names: its first segment, or its first two when scoped
/// (`lodash/debounce` → `lodash`, `@scope/ui/button` → `@scope/ui`). `None` for what is not a
/// package: relative and absolute paths, URLs and other schemes (`virtual:`, `bun:`; not
/// Deno's `jsr:` and `npm:`, which name one),
/// subpath imports (`#x`), the usual aliases (`@/x`, `~/x`) and scoped names with capitals.
pub(crate) fn js_package(spec: &str) -> Option<&str> {
    // Deno's registry specifiers (`jsr:@std/testing@^1/mock`, `npm:chalk@5`): the
    // package they name, its version range dropped.
    if let Some(rest) = spec
        .strip_prefix("jsr:")
        .or_else(|| spec.strip_prefix("npm:"))
    {
        let pkg = js_package(rest.strip_prefix('/').unwrap_or(rest))?;
        let at = pkg.char_indices().skip(1).find(|(_, c)| *c == '@');
        return Some(at.map_or(pkg, |(i, _)| &pkg[..i]));
    }
    if spec.is_empty()
        || spec.starts_with('.')
        || spec.starts_with('/')
        || spec.starts_with('#')
        || spec.starts_with('~')
        || spec.starts_with("@/")
        // Docusaurus' aliases of the site's directory and its build's generated files.
        || spec.starts_with("@site/")
        || spec.starts_with("@generated/")
        || spec.contains(':')
    {
        return None;
    }
    let mut cut = spec.match_indices('/').map(|(i, _)| i);
    let end = if spec.starts_with('@') {
        cut.nth(1)
    } else {
        cut.next()
    };
    let pkg = &spec[..end.unwrap_or(spec.len())];
    // A scoped name with capitals (Docusaurus' `@theme/Layout` alias, or pulumi's published
    // `@pulumi/camelNames`) is kept: it matches a declaration of that name, and is never
    // undeclared otherwise (see [`npm_new_name`]).
    (!pkg.ends_with('@') && pkg != "@").then_some(pkg)
}

/// Whether npm would accept `pkg` as a new package name (validate-npm-package-name's rules
/// for new names): at most 214 characters, lowercase letters, digits, `-`, `.` and `_` only
/// (no capitals, no `~'!()*`, nothing a URL must escape), and no leading `.` or `_`, in the
/// name and in its scope. An undeclared import of any other name is no package anyone could
/// declare: a haste module name in jest's test roots (`require('RegularModule')`), a loader
/// prefix (`image!x`). A legacy package with capitals (`JSONStream`) is still matched when a
/// manifest declares it: this only decides what counts as undeclared.
pub(crate) fn npm_new_name(pkg: &str) -> bool {
    // Docusaurus' client API aliases with no capital (`@docusaurus/router`), which
    // `@docusaurus/core`'s bundler config resolves to its own files, as it does
    // `@docusaurus/Link`: no package of those names is published.
    if matches!(pkg, "@docusaurus/router" | "@docusaurus/constants") {
        return false;
    }
    let part_ok = |p: &str| {
        !p.is_empty()
            && !p.starts_with(['.', '_'])
            && p.bytes().all(|b| {
                b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'.' | b'_')
            })
    };
    let ok = match pkg.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .is_some_and(|(scope, name)| part_ok(scope) && part_ok(name)),
        None => part_ok(pkg),
    };
    ok && pkg.len() <= 214
}

/// The package an `@types/…` package gives types for (`@types/node` → `node`,
/// `@types/babel__core` → `@babel/core`), and `bun-types` Bun's `bun` (the package
/// `@types/bun` wraps, which Bun's docs long told projects to declare), or `None` for any
/// other package.
pub(crate) fn js_typed_package(name: &str) -> Option<String> {
    if name == "bun-types" {
        return Some("bun".to_string());
    }
    let rest = name.strip_prefix("@types/")?;
    Some(match rest.split_once("__") {
        Some((scope, pkg)) => format!("@{scope}/{pkg}"),
        None => rest.to_string(),
    })
}

/// Whether `prefix` is `name` or a prefix of it by whole segments of `sep`.
pub(crate) fn segment_prefix(prefix: &str, name: &str, sep: &str) -> bool {
    name == prefix
        || name
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with(sep))
}

/// The module path an undeclared Go import most likely belongs to, for a person to `require`:
/// the longest known module path above it, else the usual depth for well-known hosts
/// (`github.com/a/b`, `golang.org/x/sync`), else the import path itself.
pub(crate) fn go_module_guess(path: &str, known: &[String]) -> String {
    if let Some(k) = known
        .iter()
        .filter(|k| segment_prefix(k, path, "/"))
        .max_by_key(|k| k.len())
    {
        return k.clone();
    }
    let parts: Vec<&str> = path.split('/').collect();
    let depth = match parts[0] {
        "github.com" | "gitlab.com" | "bitbucket.org" | "golang.org" => 3,
        "gopkg.in" | "go.uber.org" | "google.golang.org" | "k8s.io" | "sigs.k8s.io" => 2,
        _ => parts.len(),
    };
    parts[..depth.min(parts.len())].join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_google_client_s_versioned_module_is_its_package_s() {
        assert_eq!(
            google_unversioned("google.cloud.modelarmor_v1.types"),
            "google.cloud.modelarmor.types"
        );
        assert_eq!(
            google_unversioned("google.cloud.aiplatform_v1beta1"),
            "google.cloud.aiplatform"
        );
        assert_eq!(
            google_unversioned("google.cloud.storage"),
            "google.cloud.storage"
        );
        assert_eq!(
            google_unversioned("google.cloud.speech_v1p1beta1"),
            "google.cloud.speech"
        );
        assert_eq!(
            google_unversioned("google.cloud.x_vp1"),
            "google.cloud.x_vp1"
        );
        assert_eq!(google_unversioned("acme.client_v1"), "acme.client_v1");
        assert_eq!(
            google_unversioned("google.cloud.dev_vm"),
            "google.cloud.dev_vm"
        );
    }

    #[test]
    fn known_distributions_are_the_tables_and_debian_s_not_guesses() {
        for d in [
            "requests",
            "PyYAML",
            "types-requests",
            "python-dateutil",
            "Pillow",
        ] {
            assert!(python_known(d), "{d}");
        }
        assert!(!python_known("surely-no-such-distribution"));
        assert!(DERIVED_PYTHON_DISTRIBUTIONS.is_sorted());
    }

    #[test]
    fn python_names() {
        assert_eq!(pep503("Foo_Bar.baz"), "foo-bar-baz");
        assert_eq!(python_keys("PyYAML"), ["yaml"]);
        assert_eq!(python_keys("Pillow"), ["pil"]);
        assert_eq!(python_keys("python_dateutil"), ["dateutil"]);
        assert_eq!(
            python_keys("typing-extensions"),
            ["typing_extensions", "typing.extensions", "typingextensions"]
        );
        // Type stubs are used when what they describe is.
        assert_eq!(python_keys("types-PyYAML"), ["yaml", "types_pyyaml"]);
        assert_eq!(python_keys("pandas-stubs"), ["pandas", "pandas_stubs"]);
        assert_eq!(python_keys("celery-types"), ["celery", "celery_types"]);
        // A namespace's parts of more than one word keep their `_`.
        for (dist, import) in [
            (
                "llama-index-vector-stores-qdrant",
                "llama_index.vector_stores.qdrant",
            ),
            ("acme-storage-index-store-pg", "acme.storage.index_store.pg"),
        ] {
            assert!(python_keys(dist).contains(&import.into()), "{dist}");
        }
        // A real package whose name ends in `types` is no stub.
        assert_eq!(stub_of("pydantic-extra-types"), None);
        assert!(python_keys("pydantic-extra-types").contains(&"pydantic_extra_types".into()));
        // A stub package of generated clients is a module too.
        assert!(
            python_keys("types-aiobotocore-bedrock-runtime")
                .contains(&"types_aiobotocore_bedrock_runtime".to_string())
        );
        assert!(python_keys("pydantic-ai-slim").contains(&"pydantic_ai".to_string()));
        assert!(
            python_keys("llama-index-llms-google-genai")
                .contains(&"llama_index.llms.google_genai".to_string())
        );
        // Wrapper words the import drops.
        assert!(python_keys("foo-lib").contains(&"foo".to_string()));
        assert!(python_keys("py-foo").contains(&"foo".to_string()));
        assert!(python_keys("bar-core").contains(&"bar".to_string()));
        // A client's, an SDK's or a build's last word (haystack-core-integrations' shapes).
        for (dist, import) in [
            ("haystack-ai", "haystack"),
            ("weaviate-client", "weaviate"),
            ("linkup-sdk", "linkup"),
            ("faiss-cpu", "faiss"),
            ("python-magic-bin", "magic"),
            ("foo-binary", "foo"),
            // spaCy's GPU extras: one build of cupy each (round 40).
            ("cupy-cuda102", "cupy"),
            // freqtrade's fork of scikit-optimize (round 40).
            ("ft-scikit-optimize", "skopt"),
            // A platform's fill is imported by its own name too.
            ("pyreadline3", "readline"),
            ("pyreadline3", "pyreadline3"),
            ("tzdata", "tzdata"),
            ("cupy-cuda11x", "cupy"),
            ("cupy-wheel", "cupy"),
        ] {
            assert!(python_keys(dist).contains(&import.to_string()), "{dist}");
        }
        // A longer word before a name is a host's plugin or tool, not a fork.
        for (dist, not) in [
            ("mypy-protobuf", "google.protobuf"),
            ("pydata-google-auth", "google.auth"),
            ("django-libsass", "sass"),
        ] {
            assert!(!python_keys(dist).contains(&not.to_string()), "{dist}");
        }
        assert!(python_keys("foo-python-bar").contains(&"foo_bar".to_string()));
        // The parts joined with nothing, a last `python` as `py`.
        assert!(python_keys("searchengine-py").contains(&"searchenginepy".to_string()));
        assert!(python_keys("expr-python").contains(&"exprpy".to_string()));
        // A namespace distribution's last parts joined either way.
        let keys = python_keys("a-b-c-d");
        for k in ["a.b.c_d", "a.b.cd", "a.b.c.d"] {
            assert!(keys.contains(&k.to_string()), "{k} in {keys:?}");
        }
        // pydantic-ai's extras.
        assert_eq!(
            python_keys("google-genai"),
            ["google_genai", "google.genai"]
        );
        assert_eq!(
            python_keys("tavily-python"),
            [
                "tavily_python",
                "tavily.python",
                "tavily",
                "tavilypython",
                "tavilypy"
            ]
        );
        // The suggestion for a namespace import names the distribution, not the namespace.
        assert_eq!(
            python_dist_for("google.cloud.storage"),
            "google-cloud-storage"
        );
        assert_eq!(python_dist_for("azure.identity"), "azure-identity");
        // The names imported from a namespace distribution's module are not part of its name
        // (`from opentelemetry.trace import StatusCode`, `from google.genai import errors`),
        // and a private module is the namespace's own distribution's.
        assert_eq!(
            python_dist_for("google.cloud.storage.blob"),
            "google-cloud-storage"
        );
        assert_eq!(python_dist_for("google.genai.errors"), "google-genai");
        assert_eq!(
            python_dist_for("opentelemetry.trace.statuscode"),
            "opentelemetry-api"
        );
        assert_eq!(
            python_dist_for("opentelemetry.baggage"),
            "opentelemetry-api"
        );
        assert_eq!(
            python_dist_for("opentelemetry.sdk.trace"),
            "opentelemetry-sdk"
        );
        assert_eq!(
            python_dist_for("opentelemetry._logs.severitynumber"),
            "opentelemetry-api"
        );
        assert_eq!(
            python_dist_for("opentelemetry.instrumentation.httpx.x"),
            "opentelemetry-instrumentation-httpx"
        );
        assert_eq!(python_dist_for("google.protobuf.message"), "protobuf");
        assert_eq!(python_dist_for("yaml.loader"), "pyyaml");
        // The API answers for its own modules only: semconv and util.http are others'.
        let api = python_keys("opentelemetry-api");
        assert!(api.contains(&"opentelemetry.trace".to_string()), "{api:?}");
        assert!(
            !api.iter()
                .any(|k| k == "opentelemetry" || k.contains("semconv"))
        );
        assert_eq!(
            python_keys("opentelemetry-semantic-conventions"),
            ["opentelemetry.semconv"]
        );
        assert_eq!(
            python_dist_for("opentelemetry.semconv.trace"),
            "opentelemetry-semantic-conventions"
        );
        assert_eq!(
            python_dist_for("opentelemetry.util.http"),
            "opentelemetry-util-http"
        );
        assert_eq!(
            python_dist_for("opentelemetry.util.types"),
            "opentelemetry-api"
        );
        // pydantic-ai-slim's `griffelib` and `fastmcp-slim`; its tests' `from _pytest…`.
        assert_eq!(python_keys("griffelib"), ["griffe"]);
        assert_eq!(python_keys("fastmcp-slim"), ["fastmcp"]);
        assert_eq!(python_keys("pytest"), ["pytest", "_pytest", "py"]);
        assert_eq!(python_keys("zope.interface"), ["zope.interface"]);
        assert_eq!(python_dist_for("yaml"), "pyyaml");
        assert_eq!(python_dist_for("requests"), "requests");
        // Back from a joined name the generated table leaves to the rules.
        assert_eq!(python_dist_for("geventwebsocket"), "gevent-websocket");
        assert_eq!(python_dist_for("mesonpy.x"), "meson-python");
        assert_eq!(python_dist_for("pythonjsonlogger"), "python-json-logger");
        assert!(PYTHON_IMPORT_NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(PYTHON_IMPORT_NAMES.iter().all(|(d, _)| pep503(d) == *d));
    }

    #[test]
    fn generated_python_names() {
        let table = GENERATED_PYTHON_IMPORT_NAMES;
        assert!(table.len() > 100, "{}", table.len());
        // Sorted and normalized, as the binary search needs; names sorted, none twice.
        assert!(table.windows(2).all(|w| w[0].0 < w[1].0));
        for (d, names) in table {
            assert_eq!(pep503(d), *d);
            assert!(!names.is_empty(), "{d}");
            assert!(names.windows(2).all(|w| w[0] < w[1]), "{d}: {names:?}");
            // Only exceptions: an import name the rules would not match, …
            let rules = python_rule_keys(d);
            assert!(
                names.iter().any(|n| {
                    let n = n.to_lowercase();
                    !rules.iter().any(|k| segment_prefix(k, &n, "."))
                }),
                "{d}: {names:?} is derived by the rules ({rules:?})"
            );
            // … and none the hand-written table, read first, already holds.
            assert!(!PYTHON_IMPORT_NAMES.iter().any(|(h, _)| h == d), "{d}");
        }
        // Only the generated table has these.
        assert_eq!(python_keys("pycairo"), ["cairo"]);
        assert_eq!(python_keys("wxPython"), ["wx"]);
        assert_eq!(python_keys("GitPython"), ["git"]);
        assert_eq!(python_keys("openai-agents"), ["agents"]);
        assert_eq!(python_keys("django-cors-headers"), ["corsheaders"]);
        assert_eq!(python_keys("PasteDeploy"), ["paste.deploy"]);
        assert_eq!(python_keys("google-auth"), ["google.auth", "google.oauth2"]);
        assert_eq!(python_dist_for("cairo"), "pycairo");
        assert_eq!(python_dist_for("wx.lib.agw"), "wxpython");
        assert_eq!(python_dist_for("git.repo"), "gitpython");
        assert_eq!(python_dist_for("paste.deploy.loadwsgi"), "pastedeploy");
        assert_eq!(python_dist_for("paste"), "paste");
        assert_eq!(python_dist_for("PyQt5.Qsci"), "qscintilla");
        assert_eq!(python_dist_for("google.oauth2.credentials"), "google-auth");
        // The hand-written table first: `dns` is py3dns's `DNS` too, so the generated table
        // alone would suggest neither.
        assert_eq!(python_dist_for("dns.resolver"), "dnspython");
        assert_eq!(python_keys("py3dns"), ["dns"]);
        assert_eq!(python_dist_for("memoize"), "memoize");
        assert_eq!(python_keys("PyYAML"), ["yaml"]);
        // A distribution the rules get right is in neither table.
        assert_eq!(
            python_keys("python-xlib"),
            ["python_xlib", "python.xlib", "xlib", "pythonxlib"]
        );
        assert_eq!(python_dist_for("Xlib.display"), "Xlib");
    }

    #[test]
    fn js_names() {
        assert_eq!(js_package("lodash/debounce"), Some("lodash"));
        assert_eq!(js_package("@scope/ui/button"), Some("@scope/ui"));
        assert_eq!(js_package("@scope/ui"), Some("@scope/ui"));
        // Deno's registry specifiers name the package, with a version or without.
        assert_eq!(js_package("jsr:@std/testing/mock"), Some("@std/testing"));
        assert_eq!(js_package("jsr:@std/assert@^1.0.0"), Some("@std/assert"));
        assert_eq!(js_package("npm:chalk@5.3.0"), Some("chalk"));
        assert_eq!(js_package("npm:/lodash@4/fp"), Some("lodash"));
        assert_eq!(js_package("virtual:uno.css"), None);
        for not in [
            "./x",
            "../y",
            "/abs",
            "#sub",
            "~/a",
            "@/comp",
            // Docusaurus: the site's `static/`, its build's generated config.
            "@site/static/img/logo.png",
            "@generated/docusaurus.config",
            "virtual:x",
            "https://x",
            "",
        ] {
            assert_eq!(js_package(not), None, "{not}");
        }
        // A bundler's alias with capitals is kept to match a declaration, never owed.
        for alias in [
            "@docusaurus/Link",
            "@docusaurus/router",
            "@theme/Layout",
            "@pulumi/camelNames",
        ] {
            assert_eq!(js_package(alias), Some(alias));
            assert!(!npm_new_name(alias), "{alias}");
        }
        // jest-runtime's test root: `require('RegularModule')` and friends are haste names.
        for not in [
            "RegularModule",
            "ModuleWithSideEffects",
            "Foo.react",
            "testMapped",
            "image!not_really_a_module",
            "JSONStream",
            "_private",
            ".hidden",
            "@Scope/x",
            "@scope/",
            "a b",
        ] {
            assert!(!npm_new_name(not), "{not}");
        }
        for ok in [
            "lodash",
            "dog.png",
            "cjs-ext-pkg",
            "@scope/ui",
            "left_pad",
            "zone.js",
        ] {
            assert!(npm_new_name(ok), "{ok}");
        }
        assert!(!npm_new_name(&"a".repeat(215)));
        // A legacy name is still a package when declared: js_package keeps it.
        assert_eq!(js_package("JSONStream"), Some("JSONStream"));
        assert_eq!(js_typed_package("@types/node").as_deref(), Some("node"));
        assert_eq!(
            js_typed_package("@types/babel__core").as_deref(),
            Some("@babel/core")
        );
        assert_eq!(js_typed_package("lodash"), None);
        assert_eq!(js_typed_package("bun-types").as_deref(), Some("bun"));
    }

    #[test]
    fn go_names() {
        assert!(segment_prefix("github.com/a/b", "github.com/a/b/c", "/"));
        assert!(!segment_prefix("github.com/a/b", "github.com/a/bc", "/"));
        assert_eq!(go_module_guess("github.com/a/b/c/d", &[]), "github.com/a/b");
        assert_eq!(
            go_module_guess(
                "example.com/mono/nested/helper",
                &["example.com/mono/nested".into()]
            ),
            "example.com/mono/nested"
        );
        assert_eq!(go_module_guess("example.org/x/y", &[]), "example.org/x/y");
    }
}
