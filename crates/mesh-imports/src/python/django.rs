//! What Django imports by name, which no `import` shows: the modules its settings list
//! (`INSTALLED_APPS`), the driver its database backend names, the settings module
//! `DJANGO_SETTINGS_MODULE` names, and Pillow behind an image field.

use crate::lex::{Collector, Kind, Token, punct_at};

/// Django's settings that list modules and classes Django imports by their dotted names.
const DJANGO_LISTS: &[&str] = &[
    "INSTALLED_APPS",
    "MIDDLEWARE",
    "MIDDLEWARE_CLASSES",
    "AUTHENTICATION_BACKENDS",
];

/// `INSTALLED_APPS = [..., "corsheaders", "django_filters"]` (or `+=`, or a tuple), and
/// `MIDDLEWARE` and `AUTHENTICATION_BACKENDS` alike: Django imports each string's module, so
/// each is an import — optional, since the settings file may be one of several and a list
/// may be trimmed at run time (netbox's `corsheaders`, wagtail's test settings).
pub(super) fn setting(toks: &[Token], i: usize, src: &str, c: &mut Collector) {
    if DJANGO_LISTS.contains(&toks[i].text(src)) {
        super::assigned_list(toks, i, src, c);
    }
}

/// A string of Django's naming a module it imports: a database backend's name (its driver),
/// `"DJANGO_SETTINGS_MODULE"` (the settings module its value names), at `toks[i]`.
pub(super) fn string(toks: &[Token], i: usize, src: &str, c: &mut Collector) {
    let value = toks[i].value(src);
    for driver in backend_drivers(value) {
        c.push_optional(toks[i].start, *driver);
    }
    if value == "DJANGO_SETTINGS_MODULE" {
        settings_module(toks, i, src, c);
    }
}

/// `models.ImageField(…)` at `toks[i]`: Django validates and measures images with Pillow,
/// which no import of the project shows (its system check refuses the field without it).
pub(super) fn image_field(toks: &[Token], i: usize, src: &str, c: &mut Collector) {
    if IMAGE_FIELDS.contains(&toks[i].text(src))
        && (punct_at(toks, i + 1, b'(') || (i > 0 && punct_at(toks, i - 1, b'.')))
        && src.contains("django")
    {
        c.push_optional(toks[i].start, "PIL");
    }
}

/// Django's database backends by their last parts (the `ENGINE` string's, Django's own or a
/// wrapper's such as `django_prometheus.db.backends.mysql`), with the driver modules each
/// imports: PostgreSQL tries psycopg 3, then psycopg2; Oracle `oracledb`, then `cx_Oracle`.
const DJANGO_BACKENDS: &[(&str, &[&str])] = &[
    ("mysql", &["MySQLdb"]),
    ("postgresql", &["psycopg", "psycopg2"]),
    ("postgresql_psycopg2", &["psycopg2"]),
    ("postgis", &["psycopg", "psycopg2"]),
    ("oracle", &["oracledb", "cx_Oracle"]),
];

/// The driver modules a Django database backend named by `value` imports
/// (`"django.db.backends.mysql"` → `MySQLdb`): the setting is the driver's only mention.
/// Reported as optional, as a URL's driver is.
fn backend_drivers(value: &str) -> &'static [&'static str] {
    let Some((path, last)) = value.rsplit_once('.') else {
        return &[];
    };
    if !path.ends_with(".db.backends") || value.contains(char::is_whitespace) {
        return &[];
    }
    (DJANGO_BACKENDS.iter())
        .find(|(name, _)| *name == last)
        .map_or(&[], |(_, drivers)| drivers)
}

/// `os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings.main")` or
/// `os.environ["DJANGO_SETTINGS_MODULE"] = "settings.main"` at `toks[i]` (the key): Django
/// imports the module the value names when it starts. Optional: the environment may name
/// another.
fn settings_module(toks: &[Token], i: usize, src: &str, c: &mut Collector) {
    let value = match (toks.get(i + 1), toks.get(i + 2), toks.get(i + 3)) {
        (Some(a), Some(v), _) if a.is_punct(b',') && v.kind == Kind::Str => v,
        (Some(a), Some(b), Some(v))
            if a.is_punct(b']') && b.is_punct(b'=') && v.kind == Kind::Str =>
        {
            v
        }
        _ => return,
    };
    let name = value.value(src);
    if super::dotted_module(name) {
        c.push_optional(value.start, name);
    }
}

/// The image fields of Django's models and forms and of Django REST framework's serializers,
/// all of which need Pillow.
const IMAGE_FIELDS: &[&str] = &["ImageField"];
