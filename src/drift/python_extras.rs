//! Distributions a Python framework loads by name for a feature, which its extras install:
//! starlette parses a form with `python-multipart`, pydantic validates an `EmailStr` with
//! `email-validator`, uvicorn serves WebSockets with `websockets`, SQLAlchemy connects
//! through the driver its URL names. A project declares such a companion beside the framework
//! and never imports it; the framework does, when the feature is used.

use super::declared::Scope;
use super::explain::Probe;
use super::lockfile::Depends;
use super::{DriftKind, Finding, doubt, names};

/// Frameworks' extras whose distributions the framework imports itself, lazily, when a
/// feature asks for one — read from each framework's published `Provides-Extra` metadata, by
/// framework (PEP 503), with what those extras install; for Django, which leaves its
/// database drivers and image library out of its extras, what its documentation names for
/// its backends (`ENGINE: django.db.backends.mysql` imports `MySQLdb`, an `ImageField`
/// imports `PIL`), its caches, and `tblib`, which its parallel test runner loads. Only
/// companions the framework loads are listed: an extra that installs a library its users
/// import themselves (`openai[datalib]`'s
/// `pandas`), one code imports for itself far more often than a framework loads it
/// (`pyyaml`, `sqlalchemy`, `lxml`; `boto3` but as django-storages' S3 backend, which no
/// import of the project shows), or one a feature's own import shows (starlette's
/// `jinja2` behind `starlette.templating`, `httpx` behind its test client, fastapi's server
/// `uvicorn`, which a command runs), is left out.
const EXTRAS: &[(&str, &[&str])] = &[
    ("aiohttp", &["aiodns", "brotli", "brotlicffi"]),
    // A broker's or serializer's library.
    ("celery", &["redis", "librabbitmq", "msgpack"]),
    (
        "django",
        &[
            "argon2-cffi",
            "bcrypt",
            "mysqlclient",
            "psycopg",
            "psycopg-binary",
            "psycopg2",
            "psycopg2-binary",
            "oracledb",
            "cx-oracle",
            "pillow",
            "pylibmc",
            "pymemcache",
            "geoip2",
            "tblib",
        ],
    ),
    (
        "django-storages",
        &[
            "boto3",
            "google-cloud-storage",
            "azure-storage-blob",
            "paramiko",
            "dropbox",
            "apache-libcloud",
        ],
    ),
    (
        "dramatiq",
        &["redis", "pika", "watchdog", "watchdog-gevent"],
    ),
    ("elasticsearch", &["aiohttp"]),
    (
        "fastapi",
        &["python-multipart", "email-validator", "ujson", "orjson"],
    ),
    ("flask", &["asgiref", "python-dotenv"]),
    (
        "gunicorn",
        &["gevent", "eventlet", "tornado", "setproctitle"],
    ),
    ("httpcore", &["h2", "socksio"]),
    (
        "httpx",
        &["h2", "socksio", "brotli", "brotlicffi", "zstandard"],
    ),
    ("hypercorn", &["aioquic", "uvloop"]),
    ("jinja2", &["babel"]),
    ("kombu", &["redis", "librabbitmq", "msgpack"]),
    (
        "motor",
        &["dnspython", "pymongocrypt", "python-snappy", "zstandard"],
    ),
    (
        "pandas",
        &[
            "openpyxl",
            "xlrd",
            "xlsxwriter",
            "odfpy",
            "pyxlsb",
            "python-calamine",
            "pyarrow",
            "fastparquet",
            "tables",
            "html5lib",
            "numexpr",
            "bottleneck",
            "tabulate",
        ],
    ),
    ("passlib", &["bcrypt", "argon2-cffi"]),
    ("pydantic", &["email-validator", "tzdata"]),
    ("pydantic-settings", &["python-dotenv"]),
    ("pyjwt", &["cryptography"]),
    (
        "pymongo",
        &["dnspython", "pymongocrypt", "python-snappy", "zstandard"],
    ),
    ("python-jose", &["cryptography", "pycryptodome"]),
    ("redis", &["hiredis"]),
    ("requests", &["pysocks", "chardet"]),
    ("sanic", &["sanic-testing", "sanic-ext", "aioquic"]),
    (
        "sqlalchemy",
        &[
            "greenlet",
            "psycopg2",
            "psycopg2-binary",
            "psycopg",
            "psycopg-binary",
            "asyncpg",
            "pg8000",
            "mysqlclient",
            "pymysql",
            "aiomysql",
            "asyncmy",
            "aiosqlite",
            "pyodbc",
            "aioodbc",
            "oracledb",
            "cx-oracle",
        ],
    ),
    ("starlette", &["python-multipart"]),
    (
        "uvicorn",
        &[
            "websockets",
            "wsproto",
            "httptools",
            "uvloop",
            "watchfiles",
            "python-dotenv",
            "colorama",
        ],
    ),
];

/// A framework's modules that import a companion themselves, as (the module, the companion):
/// code importing the module uses the companion — starlette's session middleware signs with
/// `itsdangerous`, its templates render with `jinja2`, its test client sends with `httpx`.
const FEATURE_IMPORTS: &[(&str, &str)] = &[
    ("starlette.middleware.sessions", "itsdangerous"),
    ("starlette.templating", "jinja2"),
    ("fastapi.templating", "jinja2"),
    ("starlette.testclient", "httpx"),
    ("fastapi.testclient", "httpx"),
];

/// Drops each unused or dev-only Python finding of a companion that a feature module the
/// module imports imports itself (see [`FEATURE_IMPORTS`]), where that answers it: a feature
/// imported by shipped code uses a companion declared for shipping (unused, or dev-only for
/// what only tests import of it), one imported by tests alone a companion declared for
/// development. `imported` holds the module's Python import keys (lowercase), each with
/// whether shipped code makes it (guarded or not); `declared` the module's declarations with
/// what each is for. What it drops it says to `probe`.
pub(super) fn used_by_feature(
    found: &mut Vec<Finding>,
    imported: &[(&str, bool)],
    declared: &[(String, Scope)],
    probe: Option<&Probe>,
) {
    let declared = normalized(declared);
    found.retain(|f| {
        if !matches!(f.kind, DriftKind::Unused | DriftKind::DevOnly) {
            return true;
        }
        let dep = names::pep503(&f.dependency);
        // The feature's module a use of which (shipped or not) imports it.
        let feature = |shipped: Option<bool>| {
            FEATURE_IMPORTS.iter().find_map(|(module, companion)| {
                let imports = imported.iter().any(|(k, s)| {
                    shipped.is_none_or(|want| *s == want) && names::segment_prefix(module, k, ".")
                });
                (*companion == dep && imports).then_some(*module)
            })
        };
        let Some(module) = feature(None) else {
            return true;
        };
        let of_dep = scopes(&declared, &dep);
        let ships = (of_dep.iter()).any(|s| matches!(s, Scope::Normal | Scope::Optional));
        let dev = of_dep.contains(&Scope::Dev);
        let answered = match f.kind {
            DriftKind::Unused => {
                (feature(Some(true)).is_some() && ships) || (feature(Some(false)).is_some() && dev)
            }
            _ => feature(Some(true)).is_some(),
        };
        if !answered {
            return true;
        }
        if let Some(p) = probe.filter(|p| p.names(&f.dependency)) {
            p.say(format!(
                "the module imports {module}, which imports {} itself",
                f.dependency
            ));
        }
        false
    });
}

/// The declarations with their names made PEP 503 once, for [`scopes`]: a module may declare
/// hundreds, each paired with each unused one.
fn normalized(declared: &[(String, Scope)]) -> Vec<(String, Scope)> {
    (declared.iter())
        .map(|(n, s)| (names::pep503(n), *s))
        .collect()
}

/// What the distribution `name` is declared for, by each of its declarations in `normalized`
/// (see [`normalized`]; names compared as PEP 503 does).
fn scopes(normalized: &[(String, Scope)], name: &str) -> Vec<Scope> {
    let name = names::pep503(name);
    (normalized.iter())
        .filter(|(n, _)| *n == name)
        .map(|(_, s)| *s)
        .collect()
}

/// Whether the framework `framework` loads `companion` by name for a feature (see
/// [`EXTRAS`]).
fn loads(framework: &str, companion: &str) -> bool {
    let (framework, companion) = (names::pep503(framework), names::pep503(companion));
    EXTRAS
        .iter()
        .any(|(f, cs)| *f == framework && cs.contains(&companion.as_str()))
}

/// Marks each unused Python finding whose distribution another declaration of the module
/// (`declared`, by name with what it is declared for; itself used, and declared for shipping
/// or where the finding's is) loads by name for a feature: by [`EXTRAS`], or as an extra of
/// it the lockfile `lock` records (`uvicorn[standard]` → `websockets`), or by [`EXTRAS`] a
/// framework no declaration names that the code imports (`imported`: each import key with
/// whether shipped code makes it). Declaring it is how a project makes sure the feature
/// works, which no import of its own shows; whether the feature is used only reading tells —
/// so it is unsure, not used. A dev-only finding of such a companion that only optional
/// imports of dev code name (`weak_dev` says which) is unsure too.
pub(super) fn loaded_by_framework(
    found: &mut [Finding],
    declared: &[(String, Scope)],
    imported: &[(&str, bool)],
    lock: Option<&Depends>,
    weak_dev: &dyn Fn(&str) -> bool,
) {
    // A framework declared for development vouches for no shipped companion.
    let normalized = normalized(declared);
    let scopes_of = |name: &str| scopes(&normalized, name);
    let reaches = |framework: &str, companion: &str| {
        let of_companion = scopes_of(companion);
        scopes_of(framework)
            .into_iter()
            .any(|s| s == Scope::Normal || of_companion.contains(&s))
    };
    let names: Vec<String> = declared.iter().map(|(n, _)| n.clone()).collect();
    doubt::unused_beside(
        found,
        &names,
        &|f, q| {
            (loads(q, &f.dependency) || lock.is_some_and(|l| l.loads(q, &f.dependency)))
                && reaches(q, &f.dependency)
        },
        &|q| {
            format!(
                "{q}, also declared, loads it by name for a feature (an extra of {q} installs it, or its documentation names it): no import shows that, and only reading tells whether the feature is used"
            )
        },
    );
    // Declared for shipping and named only by optional imports of dev code — a settings
    // file for development naming a database backend (wger's `local_dev.py`), a guarded
    // import — beside a framework declared for shipping that loads it by name: the dev
    // code's names do not show what the shipped configuration loads. (A test's plain import
    // of it keeps it sure.)
    let unused: Vec<String> = (found.iter())
        .filter(|f| f.kind == DriftKind::Unused)
        .map(|f| names::pep503(&f.dependency))
        .collect();
    for f in (found.iter_mut())
        .filter(|f| f.kind == DriftKind::DevOnly && f.doubt.is_none())
        .filter(|f| weak_dev(&f.dependency))
    {
        let framework = (normalized.iter())
            .find(|(q, s)| *s == Scope::Normal && !unused.contains(q) && loads(q, &f.dependency));
        if let Some((q, _)) = framework {
            f.doubt = Some(format!(
                "{q}, declared for shipping, loads it by name for a feature, and only dev code's optional imports name it (a settings file for development, a guarded import): what the shipped configuration loads no import shows"
            ));
        }
    }
    // A framework the code imports but no declaration of the module names (another
    // dependency brings it: ragflow's `pandas`, commented out of its list, loads the declared
    // `python-calamine` for `engine="calamine"`): the same, where the code that imports it
    // is of the companion's kind (shipped code for a shipping companion).
    for f in found
        .iter_mut()
        .filter(|f| f.kind == DriftKind::Unused && f.doubt.is_none())
    {
        let shipping = scopes_of(&f.dependency).iter().any(|s| *s != Scope::Dev);
        let framework = EXTRAS.iter().map(|(fw, _)| *fw).find(|fw| {
            loads(fw, &f.dependency)
                && scopes_of(fw).is_empty()
                && names::python_keys(fw).iter().any(|k| {
                    (imported.iter()).any(|(key, shipped)| {
                        (*shipped || !shipping) && names::segment_prefix(k, key, ".")
                    })
                })
        });
        if let Some(fw) = framework {
            f.doubt = Some(format!(
                "{fw}, which the code imports (declared here nowhere: another dependency brings it), loads it by name for a feature: no import shows that, and only reading tells whether the feature is used"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unused(dep: &str) -> Finding {
        Finding {
            module: "m".into(),
            dependency: dep.into(),
            kind: DriftKind::Unused,
            manifest: "pyproject.toml".into(),
            line: Some(1),
            evidence: None,
            doubt: None,
        }
    }

    #[test]
    fn a_framework_s_companion_is_unsure_beside_it() {
        let normal = |n: &str| (n.to_string(), Scope::Normal);
        let declared = [normal("Starlette"), normal("python_multipart")];
        let mut found = [unused("python_multipart"), unused("rich")];
        loaded_by_framework(&mut found, &declared, &[], None, &|_| false);
        assert!(
            found[0]
                .doubt
                .as_deref()
                .unwrap_or("")
                .starts_with("Starlette")
        );
        // Not a companion of anything declared.
        assert_eq!(found[1].doubt, None);
        // Without the framework declared, or with it unused itself, it stays sure.
        let mut alone = [unused("python-multipart")];
        loaded_by_framework(
            &mut alone,
            &[normal("python-multipart")],
            &[],
            None,
            &|_| false,
        );
        assert_eq!(alone[0].doubt, None);
        let mut both = [unused("Starlette"), unused("python_multipart")];
        loaded_by_framework(&mut both, &declared, &[], None, &|_| false);
        assert_eq!(both[1].doubt, None);
        // A framework declared for development vouches for no shipped companion.
        let dev_framework = [
            ("starlette".to_string(), Scope::Dev),
            normal("python-multipart"),
        ];
        let mut shipped = [unused("python-multipart")];
        loaded_by_framework(&mut shipped, &dev_framework, &[], None, &|_| false);
        assert_eq!(shipped[0].doubt, None);
    }

    #[test]
    fn django_s_drivers_and_storages_backends_are_companions() {
        let normal = |n: &str| (n.to_string(), Scope::Normal);
        let declared = [
            normal("Django"),
            normal("mysqlclient"),
            normal("django-storages"),
            normal("boto3"),
        ];
        let mut found = [unused("mysqlclient"), unused("boto3")];
        loaded_by_framework(&mut found, &declared, &[], None, &|_| false);
        assert!(
            found[0]
                .doubt
                .as_deref()
                .is_some_and(|d| d.starts_with("Django"))
        );
        assert!((found[1].doubt.as_deref()).is_some_and(|d| d.starts_with("django-storages")));
        // Django for development only vouches for no shipped driver.
        let dev = [("django".to_string(), Scope::Dev), normal("mysqlclient")];
        let mut found = [unused("mysqlclient")];
        loaded_by_framework(&mut found, &dev, &[], None, &|_| false);
        assert_eq!(found[0].doubt, None);
    }

    #[test]
    fn a_feature_s_module_uses_its_companion() {
        let shipped = |n: &str| (n.to_string(), Scope::Normal);
        let declared = [shipped("itsdangerous"), shipped("jinja2"), shipped("httpx")];
        let mut found = vec![unused("itsdangerous"), unused("jinja2"), unused("httpx")];
        let imported = [
            ("starlette.middleware.sessions.sessionmiddleware", true),
            ("starlette", true),
            ("starlette.testclient", false),
        ];
        used_by_feature(&mut found, &imported, &declared, None);
        // The test client, in tests only, answers no companion declared for shipping.
        let left: Vec<&str> = found.iter().map(|f| f.dependency.as_str()).collect();
        assert_eq!(left, ["jinja2", "httpx"]);
        // A companion declared for development only is no answer for shipped code.
        let mut dev_only = vec![unused("itsdangerous")];
        let dev = [("itsdangerous".to_string(), Scope::Dev)];
        used_by_feature(&mut dev_only, &imported, &dev, None);
        assert_eq!(dev_only.len(), 1);
        // Declared for shipping and imported by tests, used by shipped code's feature.
        let mut tests_only = vec![Finding {
            kind: DriftKind::DevOnly,
            ..unused("itsdangerous")
        }];
        used_by_feature(&mut tests_only, &imported, &declared, None);
        assert!(tests_only.is_empty());
    }

    #[test]
    fn a_framework_the_code_imports_undeclared_loads_companions_too() {
        let declared = [
            ("python-calamine".to_string(), Scope::Normal),
            ("aiosqlite".to_string(), Scope::Normal),
            ("psycopg2-binary".to_string(), Scope::Dev),
        ];
        let mut found = [
            unused("python-calamine"),
            unused("aiosqlite"),
            unused("psycopg2-binary"),
        ];
        // pandas by shipped code, sqlalchemy by tests only: a shipping companion needs the
        // framework in shipped code, a dev one in any.
        let imported = [("pandas", true), ("sqlalchemy.orm", false)];
        loaded_by_framework(&mut found, &declared, &imported, None, &|_| false);
        assert!(
            found[0]
                .doubt
                .as_deref()
                .is_some_and(|d| d.starts_with("pandas, which the code imports"))
        );
        assert_eq!(found[1].doubt, None);
        assert!(
            found[2]
                .doubt
                .as_deref()
                .is_some_and(|d| d.starts_with("sqlalchemy"))
        );
        // A name that only begins like it (`pandasql`) is no import of it.
        let mut found = [unused("python-calamine")];
        loaded_by_framework(&mut found, &declared, &[("pandasql", true)], None, &|_| {
            false
        });
        assert_eq!(found[0].doubt, None);
    }

    #[test]
    fn a_lockfile_s_extras_name_companions_too() {
        let lock = super::super::lockfile::toml(
            "uv.lock",
            "[[package]]\nname = \"granian\"\n[package.optional-dependencies]\nuvloop = [{ name = \"uvloop\" }]\n",
        );
        let declared = [
            ("granian".to_string(), Scope::Normal),
            ("uvloop".to_string(), Scope::Normal),
        ];
        let mut found = [unused("uvloop")];
        loaded_by_framework(&mut found, &declared, &[], None, &|_| false);
        assert_eq!(found[0].doubt, None);
        loaded_by_framework(&mut found, &declared, &[], Some(&lock), &|_| false);
        assert!(found[0].doubt.is_some());
    }
}
