//! The Rust scanner's cases, each from a real pattern.

use super::scan_file;
use crate::lex::tests::{assert_survives, names, pairs};
use crate::lex::{Import, ImportKind};

/// The imports `scan_file` finds in `src`, for compact assertions.
fn scan(src: &str) -> Vec<Import> {
    scan_file(src).imports.to_vec()
}

/// (line, name, kind) triples.
fn kinds(src: &str) -> Vec<(u32, String, ImportKind)> {
    crate::lex::tests::kinds(&scan_file(src).imports)
}

#[test]
fn quote_interpolations_and_doctest_items_are_no_shipped_crates() {
    // serde_derive: `_serde::#private2::Ok` and `#this_value::#variant` in `quote!` are
    // variables interpolated; rayon's `#[cfg(doctest)]` item exists for rustdoc's tests only.
    let src = "fn f() { quote!(_serde::#private2::Ok; #this_value::#v) }\n#[cfg(doctest)]\nmod readme { doc_comment::doctest!(\"r.md\"); }\nfn g() { h::i(); }\n";
    let dev = ImportKind::Dev;
    let build = ImportKind::Build;
    assert_eq!(
        kinds(src),
        [(3, "doc_comment".into(), dev), (4, "h".into(), build)]
    );
}

#[test]
fn what_a_test_only_cfg_attr_applies_is_dev() {
    // naga's `#[cfg_attr(test, derive(strum::EnumIter))]`: the derive exists in test builds
    // only; the item, and an attribute applied in every build, stay shipped code.
    let src = "#[cfg_attr(test, derive(strum::EnumIter))]\n#[cfg_attr(feature = \"serde\", derive(serde::Serialize))]\npub enum E { A }\nfn f() { g::h(); }\n#[cfg_attr(all(test, unix), derive(\n    proptest_derive::Arbitrary\n))]\nstruct S;\n";
    let dev = ImportKind::Dev;
    let build = ImportKind::Build;
    assert_eq!(
        kinds(src),
        [
            (1, "strum".into(), dev),
            (2, "serde".into(), build),
            (4, "g".into(), build),
            (6, "proptest_derive".into(), dev),
        ]
    );
}

#[test]
fn cfg_test_items_and_test_functions_are_dev() {
    let src = "use a::x;\n#[cfg(test)]\nmod tests {\n    use b::y;\n    #[test]\n    fn t() { c::z(); }\n}\n#[tokio::test]\nasync fn u() { d::w(); }\n#[cfg(all(test, unix))]\nuse e::v;\n#[cfg(not(test))]\nuse f::u;\nfn g() { h::i(); }\n#[cfg(any(test, feature = \"testing\"))]\nuse j::k;\n#[cfg(any(test, all(test, unix)))]\nuse l::m;\n#[cfg(any(test, not(test)))]\nuse n::o;\n";
    let got = kinds(src);
    let dev = ImportKind::Dev;
    let build = ImportKind::Build;
    assert_eq!(
        got,
        [
            (1, "a".into(), build),
            (4, "b".into(), dev),
            (6, "c".into(), dev),
            (8, "tokio".into(), dev),
            (9, "d".into(), dev),
            (11, "e".into(), dev),
            (13, "f".into(), build),
            (14, "h".into(), build),
            (16, "j".into(), build),
            (18, "l".into(), dev),
            (20, "n".into(), build),
        ]
    );
}

#[test]
fn cfg_test_module_declarations_are_named() {
    let f = scan_file(
        "#[cfg(test)]\nmod tests;\n#[cfg(test)]\n#[path = \"x.rs\"]\npub(crate) mod more;\nmod real;\n#[cfg(test)]\nmod inline { use a::b; }\n",
    );
    assert_eq!(f.test_mods, ["tests", "x.rs"]);
    assert_eq!(f.imports[0].kind, ImportKind::Dev);
}

#[test]
fn a_test_only_field_variant_or_arm_ends_at_its_comma() {
    // meilisearch: `#[cfg(test)]` on a struct's field made the shipped code after the struct
    // test code, up to the next `;`.
    let f = scan_file(
        "struct S {\n    #[cfg(test)]\n    seen: std::collections::HashMap<u8, testonly::X>,\n    other: u8\n}\nenum E {\n    #[cfg(test)]\n    Probe(probe::P),\n    Real,\n}\nfn f(s: S) {\n    match s { #[cfg(test)] _ if tcheck::go() => {}, _ => {} }\n    let x = shipped::make();\n}\nstruct T {\n    #[cfg(test)]\n    last: lastdev::L\n}\nuse after::Thing;\n",
    );
    let kinds: Vec<(&str, ImportKind)> = f
        .imports
        .iter()
        .map(|i| (i.name.as_str(), i.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("std", ImportKind::Dev),
            ("testonly", ImportKind::Dev),
            ("probe", ImportKind::Dev),
            ("tcheck", ImportKind::Dev),
            ("shipped", ImportKind::Build),
            ("lastdev", ImportKind::Dev),
            ("after", ImportKind::Build),
        ]
    );
}

#[test]
fn a_cfg_test_module_with_a_path_attribute_is_that_file() {
    // zellij-server's `src/panes/floating_panes/mod.rs`-less shape: a file one directory
    // down names its tests' file relative to its own directory.
    let f = scan_file(
        "fn f() {}\n#[cfg(test)]\n#[path = \"./unit/interceptor_tests.rs\"]\nmod interceptor_tests;\n#[cfg(test)]\n#[allow(dead_code)]\nmod plain;\n#[path = \"unit/before.rs\"]\n#[cfg(test)]\nmod before;\n#[path = \"shipped.rs\"]\nmod shipped;\n",
    );
    assert_eq!(
        f.test_mods,
        ["./unit/interceptor_tests.rs", "plain", "unit/before.rs"]
    );
    assert_eq!(
        crate::place::rust_test_files("src/panes/interceptor.rs", &f.test_mods),
        [
            "src/panes/unit/interceptor_tests.rs",
            "src/panes/interceptor/plain.rs",
            "src/panes/interceptor/plain/",
            "src/panes/unit/before.rs"
        ]
    );
    assert_eq!(
        crate::place::rust_test_files("src/a/mod.rs", &["../common/t.rs".to_string()]),
        ["src/common/t.rs"]
    );
    // A `mod.rs` named so holds its submodules beside it; a path out of the crate is none
    // of its files.
    assert_eq!(
        crate::place::rust_test_files("src/a/mod.rs", &["tests/mod.rs".to_string()]),
        ["src/a/tests/mod.rs", "src/a/tests/"]
    );
    assert!(
        crate::place::rust_test_files("src/lib.rs", &["../../shared/t.rs".to_string()]).is_empty()
    );
    // An inner attribute before the test module starts no run of its attributes.
    let f = scan_file("#![allow(dead_code)]\n#[cfg(test)]\nmod tests;\n");
    assert_eq!(f.test_mods, ["tests"]);
}

#[test]
fn a_cfg_test_module_inside_an_inline_module_is_named_by_its_path() {
    // gitoxide's gix-ref: `pub mod create_or_update { #[cfg(test)] mod tests; }` in
    // reflog.rs is reflog/create_or_update/tests.rs, whose imports are test code.
    let f = scan_file(
        "pub mod create_or_update {\n    fn f() { if x { } }\n    #[cfg(test)]\n    mod tests;\n}\nmod later {}\n#[cfg(test)]\nmod top;\n",
    );
    assert_eq!(f.test_mods, ["create_or_update/tests", "top"]);
    assert_eq!(
        crate::place::rust_test_files("src/reflog.rs", &f.test_mods)[0],
        "src/reflog/create_or_update/tests.rs"
    );
}

#[test]
fn an_inner_cfg_test_makes_the_whole_file_dev() {
    let got = kinds("//! helpers\n#![cfg(test)]\nuse a::b;\nfn f() { c::d(); }\n");
    assert!(got.iter().all(|(_, _, k)| *k == ImportKind::Dev), "{got:?}");
}

#[test]
fn an_unclosed_test_item_runs_to_the_end_without_losing_what_came_before() {
    let got = kinds("use a::x;\n#[cfg(test)]\nmod tests {\n    use b::y;\n    fn f() {\n");
    assert_eq!(
        got,
        [
            (1, "a".into(), ImportKind::Build),
            (4, "b".into(), ImportKind::Dev)
        ]
    );
}

#[test]
fn an_ignore_marker_anywhere_in_a_multi_line_use() {
    let src = "use a::{\n    b, // mesh: ignore\n    c,\n};\nuse d::e;\n";
    assert_eq!(names(&scan(src)), ["d"]);
}

#[test]
fn raw_identifiers_of_keywords_are_names() {
    // From real crates: a crate or module named by a keyword is written raw.
    assert_eq!(names(&scan("use r#type::Kind;")), ["type"]);
    assert_eq!(
        names(&scan("fn f() { r#async::spawn(); let _ = r#continue::X; }")),
        ["async", "continue"]
    );
    // Declared here, it is a local module, as any other name would be.
    assert!(scan("mod r#type;\nfn f() -> r#type::Kind { r#type::Kind::A }").is_empty());
    // The keywords themselves are still no crate.
    assert!(scan("fn f() { type::x(); async::y(); }").is_empty());
}

/// The names a file imports itself, and those it writes for the crates expanding its macros.
fn own_and_generated(src: &str) -> (Vec<String>, Vec<String>) {
    let (generated, own): (Vec<Import>, Vec<Import>) =
        scan(src).into_iter().partition(|i| i.generated);
    let names = |v: Vec<Import>| v.into_iter().map(|i| i.name).collect::<Vec<_>>();
    (names(own), names(generated))
}

#[test]
fn quote_bodies_are_the_generated_codes_imports_not_the_macros() {
    // The shape of every derive crate (serde_derive, thiserror-impl, nushell's macros), and
    // typst's `#[time]`, whose `parse_quote!` writes `::typst_timing::…` into the function.
    let src = "use proc_macro2::TokenStream;\nuse quote::quote;\n\npub fn derive(input: syn::DeriveInput) -> TokenStream {\n    let name = &input.ident;\n    let body = quote_spanned! { name.span() => nu_protocol::Value::test() };\n    let extra: syn::Expr = syn::parse_quote!(serde_json::Value::Null);\n    item.block.stmts.insert(0, parse_quote! { let __scope = ::typst_timing::TimingScope::#construct; });\n    quote! {\n        impl nu_protocol::FromValue for #name {\n            fn from(v: ::nu_engine::Value) -> Self { #body; std::process::exit(0) }\n        }\n    }\n}\n";
    let (own, generated) = own_and_generated(src);
    assert_eq!(own, ["proc_macro2", "quote", "syn", "syn"]);
    assert_eq!(
        generated,
        [
            "nu_protocol",
            "serde_json",
            "typst_timing",
            "nu_protocol",
            "nu_engine",
            "std"
        ]
    );
    // What a body declares is the generated code's: it hides nothing around it (a derive
    // crate's own `convert_case::…`, and `heck::…` beside a body's glob import).
    let src = "fn f() {\n    let x = convert_case::Case::Snake;\n    let t = quote! { mod convert_case {} use serde::de::*; };\n    heck::AsSnakeCase(x);\n}\n";
    let (own, _) = own_and_generated(src);
    assert_eq!(own, ["convert_case", "heck"]);
    assert!(scan(src).iter().all(|i| !i.glob_scoped));
    // An unclosed body runs to the end without a panic.
    assert_eq!(own_and_generated("use a::b;\nquote! { c::d(").0, ["a"]);
    // tauri-utils: a local macro hands a path on to its `quote!`; in a file that writes
    // code, a leading-`::` path in a macro call's arguments is the generated code's. A
    // plain path there, and a leading one outside a macro call, are the file's own.
    let src = "use quote::quote;\nmacro_rules! lit { ($t:ident, $s:path) => { $t.extend(quote! { $s {} }) } }\nfn f() { lit!(tokens, ::tauri::utils::Config); lit!(tokens, serde_json::Value); let _ = ::anyhow::anyhow!(\"x\"); }\n";
    assert_eq!(
        own_and_generated(src),
        (
            vec!["quote".into(), "serde_json".into(), "anyhow".into()],
            vec!["tauri".into()]
        )
    );
    assert_eq!(
        names(&scan("fn f() { lit!(tokens, ::tauri::utils::Config); }")),
        ["tauri"]
    );
    assert!(!scan("fn f() { lit!(tokens, ::tauri::utils::Config); }")[0].generated);
    // A leading `::` path after an attribute is the crate's (tauri-utils' thiserror enum).
    assert_eq!(
        names(&scan(
            "enum E {\n    Metadata(#[from] ::cargo_metadata::Error),\n}\n"
        )),
        ["cargo_metadata"]
    );
    // `quote` that is no macro call is an ordinary path.
    assert_eq!(
        names(&scan("fn f() { quote::format_ident!(\"x\"); }")),
        ["quote"]
    );
}

#[test]
fn a_file_names_what_it_compiles_in_from_elsewhere() {
    // zellij's generated protobuf code, included from the crate's root and from beside it,
    // and a `#[path]` module; `include_str!` and a computed path are no code.
    let src = "pub mod api {\n    include!(concat!(\n        env!(\"CARGO_MANIFEST_DIR\"),\n        \"/assets/prost/generated_plugin_api.rs\"\n    ));\n}\nmod action { include!(\"api.action.rs\"); }\n#[path = \"../shared/util.rs\"]\nmod util;\nconst T: &str = include_str!(\"../template/main.rs\");\ninclude!(concat!(env!(\"OUT_DIR\"), \"/gen.rs\"));\n";
    assert_eq!(
        scan_file(src).includes,
        [
            "../shared/util.rs",
            "/assets/prost/generated_plugin_api.rs",
            "api.action.rs"
        ]
    );
    assert_eq!(
        crate::place::rust_included("src/plugin_api/mod.rs", &scan_file(src).includes),
        ["src/shared/", "assets/prost/", "src/plugin_api/"]
    );
}

#[test]
fn diagnostic_codes_and_tool_lints_are_no_paths() {
    // nushell's errors: miette codes named like paths of the `nu` crate.
    let src = "use miette::Diagnostic;\n#[derive(Diagnostic)]\npub enum E {\n    #[diagnostic(code(nu::compile::garbage), help(\"x\"))]\n    A,\n    #[error(\"b\")]\n    #[diagnostic(\n        code(nu::shell::io),\n        url(docsrs)\n    )]\n    B(#[source] thiserror_ext::Box),\n}\n#[cfg_attr(not(windows), allow(rustdoc::broken_intra_doc_links))]\nfn f() { code(x::y); }\n";
    assert_eq!(names(&scan(src)), ["miette", "thiserror_ext", "x"]);
}

#[test]
fn leading_colons_and_raw_identifiers_in_paths() {
    assert_eq!(names(&scan("fn f() { ::serde::to_string(); }")), ["serde"]);
    assert_eq!(names(&scan("use r#async_x::y;")), ["async_x"]);
}

#[test]
fn use_reports_the_first_segment() {
    assert_eq!(pairs(&scan("use a::b::c;")), [(1, "a")]);
    assert_eq!(names(&scan("use a::{b, c::d};")), ["a"]);
    assert_eq!(names(&scan("use ::a::b;")), ["a"]);
    assert_eq!(names(&scan("use serde;")), ["serde"]);
    assert_eq!(names(&scan("use a::*;")), ["a"]);
    assert_eq!(names(&scan("use a as b;")), ["a"]);
}

#[test]
fn top_level_use_groups_report_each_root() {
    assert_eq!(pairs(&scan("use {a::x,\n b::y};")), [(1, "a"), (2, "b")]);
    assert_eq!(names(&scan("use ::{a, b::{c, d}};")), ["a", "b"]);
}

#[test]
fn visibility_does_not_matter() {
    let src = "pub use a::x;\npub(crate) use b::y;\npub(in crate::m) use c::z;";
    assert_eq!(names(&scan(src)), ["a", "b", "c"]);
}

#[test]
fn local_paths_are_not_crates() {
    let src = "use crate::a;\nuse self::b;\nuse super::c;\nuse super::super::d;\nuse Self::e;";
    assert!(scan(src).is_empty());
}

#[test]
fn extern_crate() {
    assert_eq!(pairs(&scan("extern crate foo;")), [(1, "foo")]);
    assert_eq!(names(&scan("extern crate foo as bar;\nbar::x();")), ["foo"]);
    assert!(scan("extern crate self as me;").is_empty());
    assert!(scan("extern \"C\" { fn f(); }").is_empty());
}

#[test]
fn paths_in_expressions_and_types() {
    assert_eq!(names(&scan("fn f() { a::b(); }")), ["a"]);
    assert_eq!(names(&scan("const X: a::B = a::B;")), ["a"]);
    assert_eq!(names(&scan("type T = <a::T as x::Y>::Z;")), ["a", "x"]);
    assert_eq!(
        pairs(&scan("#[tokio::main]\nasync fn main() {}")),
        [(1, "tokio")]
    );
    assert_eq!(
        names(&scan("#[derive(serde::Serialize)] struct S;")),
        ["serde"]
    );
    assert_eq!(names(&scan("fn f() { foo::bar!(); }")), ["foo"]);
}

#[test]
fn only_the_first_segment_of_a_path() {
    assert_eq!(
        names(&scan("fn f() { a::b::c::d(); x.y::<u8>(); $m::z; }")),
        ["a"]
    );
}

#[test]
fn tool_attributes_and_turbofish_calls_are_not_crates() {
    let src = "#[allow(clippy::all)]\n#[rustfmt::skip]\n#[diagnostic::on_unimplemented(message = \"x\")]\nfn f() { size_of::<u8>(); iter::<T>::x(); }";
    assert!(scan(src).is_empty(), "{:?}", scan(src));
}

#[test]
fn keywords_primitives_and_types_are_not_crates() {
    let src = "fn f() { crate::a(); self::b(); super::c(); Self::d(); u8::MAX; str::from_utf8(x); Vec::<u8>::new(); String::new(); $crate::e(); }";
    assert!(scan(src).is_empty(), "{:?}", scan(src));
}

#[test]
fn local_modules_hide_paths_and_uses() {
    let src =
        "mod util;\npub mod net { }\nuse util::x;\nfn f() { util::y(); net::z(); other::w(); }";
    assert_eq!(pairs(&scan(src)), [(4, "other")]);
}

#[test]
fn use_bindings_hide_later_paths() {
    let src = "use std::fmt;\nuse std::{io::{self, Write}, sync::Arc};\nuse serde_json as json;\nfn f() { fmt::Display; io::stdout(); json::to_string(); serde_json::x(); }";
    assert_eq!(
        pairs(&scan(src)),
        [(1, "std"), (2, "std"), (3, "serde_json"), (4, "serde_json")]
    );
}

#[test]
fn a_use_of_a_crate_itself_does_not_hide_it() {
    let src = "use serde;\nfn f() { serde::x(); }";
    assert_eq!(pairs(&scan(src)), [(1, "serde"), (2, "serde")]);
}

#[test]
fn bindings_hide_uses_through_them() {
    let src = "use std::fmt;\nuse fmt::Write;";
    assert_eq!(pairs(&scan(src)), [(1, "std")]);
}

#[test]
fn std_core_alloc_are_reported() {
    let src = "use std::io;\nuse core::mem;\nextern crate alloc;";
    assert_eq!(names(&scan(src)), ["std", "core", "alloc"]);
}

#[test]
fn comments_are_not_imports() {
    let src = "// use a::b;\n/// use c::d;\n//! e::f()\n/* use g::h; /* nested i::j */ still k::l */\n/** m::n */ use real::x;";
    assert_eq!(pairs(&scan(src)), [(5, "real")]);
}

#[test]
fn strings_are_not_imports() {
    let src = r##"fn f() { let s = "use a::b; \" c::d"; let r = r#"use e::f; " g::h"#; let b = b"i::j"; let br = br"k::l"; let c = c"m::n"; }
use real::x;"##;
    assert_eq!(pairs(&scan(src)), [(2, "real")]);
}

#[test]
fn raw_strings_with_many_hashes() {
    let src = "let s = r###\"a \"## b::c\"###; d::e();";
    assert_eq!(names(&scan(src)), ["d"]);
    assert_eq!(names(&scan("let s = r\"\\\"; a::b();")), ["a"]);
}

#[test]
fn chars_and_lifetimes() {
    let src = "fn f<'a>(x: &'a str) -> char { let q = '\"'; let e = '\\''; let u = '\\u{1F600}'; let b = b'\"'; 'outer: loop {} a::b(); 'x' }";
    assert_eq!(names(&scan(src)), ["a"]);
    assert_eq!(
        names(&scan("impl<'a> T<'a> for X { fn f(&'a self) { c::d() } }")),
        ["c"]
    );
    assert_eq!(names(&scan("let c = 'é'; let s = \"x\"; a::b();")), ["a"]);
}

#[test]
fn raw_identifiers() {
    assert_eq!(
        names(&scan("fn f() { r#foo::bar(); let r#use = 1; }")),
        ["foo"]
    );
    assert_eq!(names(&scan("use r#async_x::y;")), ["async_x"]);
}

#[test]
fn mesh_ignore() {
    let src = "use foo::bar; // mesh: ignore\nuse baz::q;\nfn f() { x::y(); /* mesh: ignore */ }";
    assert_eq!(pairs(&scan(src)), [(2, "baz")]);
}

#[test]
fn duplicates_on_a_line_collapse() {
    assert_eq!(
        pairs(&scan("fn f() { a::x(); a::y(); b::z(); }")),
        [(1, "a"), (1, "b")]
    );
}

#[test]
fn text_is_the_trimmed_line() {
    let imports = scan("mod m {\n    use serde::Deserialize;   \n}");
    assert_eq!(imports[0].text, "use serde::Deserialize;");
    assert_eq!(imports[0].line, 2);
}

#[test]
fn garbage_does_not_panic() {
    let deep = format!("use {};", "{a::".repeat(10_000));
    assert_eq!(names(&scan(&deep)), ["a"]);
    assert!(scan("r#\"use a::b;").is_empty());
    assert!(scan("/* /* */ use a::b;").is_empty());
    assert_survives(scan_file);
}

#[test]
fn rstest_named_cases_are_no_paths() {
    // nushell's tests (`tests/eval/mod.rs`): a case's name is written like a path.
    let src = "use rstest::rstest;\n#[rstest]\n#[case::empty_list(\"[]\")]\n#[case::nested(\"[[1]]\", 2)]\nfn t(#[case] input: &str) { serde_json::from_str(input); }\n";
    assert_eq!(names(&scan(src)), ["rstest", "serde_json"]);
    // Under `cfg_attr` (tests/shell/pipeline/commands/external.rs); the arguments are code.
    let src = "#[rstest]\n#[cfg_attr(\n    not(windows),\n    case::double_quote(r#\"q\"#, nu_protocol::Value::test_nothing())\n)]\nfn t() {}\n";
    assert_eq!(pairs(&scan(src)), [(4, "nu_protocol")]);
}

#[test]
fn a_local_module_hides_a_crate_only_in_its_own_block() {
    // nu_plugin_inc's `inc.rs`: the semver crate at the top, a `mod semver` among the tests.
    let src = "use semver::Version;\nfn f() { semver::Version::parse(\"1\"); }\n#[cfg(test)]\nmod tests {\n    mod semver {\n        fn g() { semver::x(); }\n    }\n}\n";
    // Inside `mod semver`'s own body, `semver::x` is the crate again (the module is an item
    // of `tests`, not of itself).
    assert_eq!(
        kinds(src),
        [
            (1, "semver".into(), ImportKind::Build),
            (2, "semver".into(), ImportKind::Build),
            (6, "semver".into(), ImportKind::Dev)
        ]
    );
    // A `use` binding in a function body hides the name there only.
    let src = "fn f() { use a::b as json; json::x(); }\nfn g() { json::y(); }\n";
    assert_eq!(pairs(&scan(src)), [(1, "a"), (2, "json")]);
    // A binding at the top still hides everywhere below it.
    let src = "use std::fmt;\nmod m { fn f() { fmt::x(); } }\n";
    assert_eq!(names(&scan(src)), ["std"]);
}

#[test]
fn macro_rules_names_are_local() {
    // nu-plugin-core's `serializers/tests.rs`: a test macro re-exported by `use`. The paths
    // in its body are still read (`log::debug!`, `pastey::paste!` in nushell's macros are
    // real crates), though they resolve where the macro is called.
    let src = "macro_rules! generate_tests {\n    ($e:expr) => {\n        use nu_protocol::Value;\n        fn t() { log::debug!(); }\n    };\n}\npub(crate) use generate_tests;\n";
    assert_eq!(pairs(&scan(src)), [(3, "nu_protocol"), (4, "log")]);
    // surrealdb's keywords: a macro defined by another macro's rules is defined where that
    // one is called, and the file re-exports it.
    let nested = "macro_rules! keywords {\n    ($($name:ident => $value:tt,)*) => {\n        macro_rules! keyword_t {\n            $(($value) => { $crate::Keyword::$name };)*\n        }\n    };\n}\nkeywords! { Get => \"GET\", }\npub(crate) use keyword_t;\nuse serde;\n";
    assert_eq!(pairs(&scan(nested)), [(10, "serde")]);
    // Named like a crate, it hides no path of that crate.
    let like = "macro_rules! make {\n    () => { macro_rules! log { () => {} } };\n}\nmake!();\nfn f() { log::info!(\"hi\"); }\n";
    assert_eq!(pairs(&scan(like)), [(5, "log")]);
}

#[test]
fn a_macro_body_says_so_and_keeps_its_kind() {
    // A macro's paths resolve where it expands: `::tracing::info!` in an exported macro is
    // for its callers to declare, `shell_error::…` in nushell's test macro is bound by each
    // call site's `use nu_protocol::shell_error`. Their kind (the graph's edges) stays.
    // An exported macro is written for other crates too (`generated`: no build edge):
    // leptos_dom's `tracing_props!` names `::leptos`, which depends on leptos_dom.
    let src = "#[macro_export]\n#[doc(hidden)]\nmacro_rules! log_it {\n    ($e:expr) => { ::tracing::info!(\"{}\", $e) };\n}\nmacro_rules! here (\n    () => { shell_error::io::x() }\n);\nfn f() { serde_json::json!({}); }\n#[macro_export]\n/// Use for tracing property\nmacro_rules! tracing_props { () => { ::leptos::tracing::span!() }; }\n";
    let scanned = scan_file(src);
    let found: Vec<(u32, &str, ImportKind, bool, bool)> = scanned
        .imports
        .iter()
        .map(|i| (i.line, i.name.as_str(), i.kind, i.in_macro, i.generated))
        .collect();
    assert_eq!(
        found,
        [
            (4, "tracing", ImportKind::Build, true, true),
            (7, "shell_error", ImportKind::Build, true, false),
            (9, "serde_json", ImportKind::Build, false, false),
            (12, "leptos", ImportKind::Build, true, true),
        ]
    );
}

#[test]
fn an_exported_macro_says_what_it_names_and_calls_and_a_file_its_calls() {
    // yazi-macro's `act!` writes `paste::paste!` and calls another crate's `spark!` and its
    // own rules through `$crate`; a caller's `act!`, `m::act!` and a test's call are calls,
    // a matcher's `$m!` and the standard library's `format!` are not.
    let src = "#[macro_export]\nmacro_rules! act {\n    (@pre $l:ident) => { yazi_parser::spark!($l) };\n    ($l:ident) => {\n        paste::paste! { $crate::act!(@pre $l); ::inventory::submit! {} }\n    };\n    ($m:ident !) => { $m!() };\n}\nmacro_rules! local { () => { log::debug!(\"x\") }; }\nfn f() { act!(x); m::act!(y); format!(\"{}\", 1); local!(); }\n#[cfg(test)]\nmod tests { fn t() { act!(z); } }\n";
    let scanned = scan_file(src);
    let facts = scanned.rust_macros.expect("macro facts");
    let call = |c: &crate::lex::MacroCall| (c.path.clone(), c.name.clone(), c.line, c.kind);
    let (build, dev) = (ImportKind::Build, ImportKind::Dev);
    assert_eq!(
        facts.calls.iter().map(call).collect::<Vec<_>>(),
        [
            (Some("log".into()), "debug".into(), 9, build),
            (None, "act".into(), 10, build),
            (Some("m".into()), "act".into(), 10, build),
            (None, "local".into(), 10, build),
            (None, "act".into(), 12, dev),
        ]
    );
    let [act] = &facts.exported[..] else {
        panic!("one exported macro: {:?}", facts.exported)
    };
    assert_eq!((act.name.as_str(), act.line), ("act", 2));
    assert_eq!(act.names, ["inventory", "paste", "yazi_parser"]);
    assert_eq!(
        act.calls.iter().map(call).collect::<Vec<_>>(),
        [
            (Some("yazi_parser".into()), "spark".into(), 3, build),
            (Some("paste".into()), "paste".into(), 5, build),
            (Some("$crate".into()), "act".into(), 5, build),
            (Some("inventory".into()), "submit".into(), 5, build),
        ]
    );
    // A file with neither has none.
    assert_eq!(scan_file("fn f() { println!(\"x\"); }\n").rust_macros, None);
}

#[test]
fn a_global_path_and_a_use_inside_a_module_of_the_same_name_name_the_crate() {
    // ruff_options_metadata's lib.rs: `derive(::serde::Serialize)` under `cfg_attr`, and an
    // inline `mod serde { use serde::Serializer; }` — inside its own body the module's name is
    // the crate again; outside it, `serde::x` is the module.
    let src = "#[cfg_attr(feature = \"serde\", derive(::serde::Serialize))]\npub struct X;\nfn f() { serde::helper(); }\nmod serde {\n    use serde::Serializer;\n}\n";
    assert_eq!(pairs(&scan(src)), [(1, "serde"), (5, "serde")]);
}

#[test]
fn a_fence_inside_another_language_block_does_not_end_it() {
    // ruff_workspace's options.rs: a Python example holding an indented Markdown example; its
    // inner fences are text, so `.. code-block:: python` after them is no Rust.
    let src = "/// ```python\n/// x = '''\n///     ```py\n///     y = 1\n///     ```\n/// .. code-block:: python\n/// '''\n/// ```\n///\n/// ~~~~\n/// use tilde_fenced::X;\n/// ```\n/// use still_inside::Y;\n/// ~~~~\npub fn f() {}\n";
    assert_eq!(names(&scan(src)), ["tilde_fenced", "still_inside"]);
}

#[test]
fn a_module_made_by_an_item_level_macro_is_local() {
    // nu-cmd-lang's `version.rs`: shadow-rs makes `mod build` from `shadow!(build);`.
    let src = "use shadow_rs::shadow;\nshadow!(build);\nfn f() -> &'static str { build::BRANCH }\n";
    assert_eq!(names(&scan(src)), ["shadow_rs"]);
}

#[test]
fn doc_tests_are_read_as_dev_code_and_other_blocks_are_not() {
    let src = "//! Crate docs.\n//!\n//! ```\n//! use tempfile::tempdir;\n//! # use anyhow::Result;\n//! ```\n\n/// Adds.\n///\n/// ```no_run\n/// let v = serde_json::json!({});\n/// ```\n///\n/// ```text\n/// use notacrate::x;\n/// ```\n///\n/// ```python\n/// import requests\n/// ```\n///\n/// ```compile_fail\n/// use thiserror::Error;\n/// ```\npub fn add() { regex::Regex::new(\"x\"); }\n";
    let imports = scan(src);
    let found: Vec<(&str, u32, ImportKind)> = imports
        .iter()
        .map(|i| (i.name.as_str(), i.line, i.kind))
        .collect();
    assert!(
        found.contains(&("tempfile", 4, ImportKind::Dev)),
        "{found:?}"
    );
    assert!(
        found.contains(&("anyhow", 5, ImportKind::Dev)),
        "hidden lines count: {found:?}"
    );
    assert!(
        found.contains(&("serde_json", 11, ImportKind::Dev)),
        "{found:?}"
    );
    // Each says whether it is a doc test's (`[lib] doctest = false` turns those off).
    for i in imports.iter() {
        assert_eq!(i.in_doc, i.name != "regex", "{i:?}");
    }
    assert!(
        found.contains(&("regex", 25, ImportKind::Build)),
        "{found:?}"
    );
    // Neither a block of another language nor one meant not to build (tracing's
    // `compile_fail` example names a crate it does not depend on).
    assert!(
        !found
            .iter()
            .any(|(n, _, _)| ["notacrate", "requests", "thiserror"].contains(n)),
        "{found:?}"
    );
}

#[test]
fn a_path_beside_a_glob_import_says_so_within_the_glob_s_block() {
    // bevy's `use crate::*;` brings lib.rs's private `use std::mem;` (`mem::take`), ruff's
    // `pub use criterion::*;` brings `measurement`. A glob of the standard library's brings
    // no such module; a leading `::` is always a crate; a glob inside `mod tests { … }` holds
    // only there.
    let src = "use std::io::prelude::*;\nfn a() { first::x(); }\nmod tests {\n    use super::*;\n    fn t() { mem::take(v); ::serde::x(); }\n}\nfn b() { second::y(); }\n";
    let found: Vec<(u32, String, bool)> = scan(src)
        .into_iter()
        .map(|i| (i.line, i.name, i.glob_scoped))
        .collect();
    let want = [
        (1, "std", false),
        (2, "first", false),
        (5, "mem", true),
        (5, "serde", false),
        (7, "second", false),
    ];
    assert_eq!(found, want.map(|(l, n, g)| (l, n.to_string(), g)));
    let file_wide = scan("pub use criterion::*;\nfn f() { measurement::WallTime::new(); }\n");
    assert_eq!(pairs(&file_wide), [(1, "criterion"), (2, "measurement")]);
    assert!(!file_wide[0].glob_scoped && file_wide[1].glob_scoped);
}

#[test]
fn intra_doc_links_name_crates_for_drift_and_not_in_code_blocks() {
    // bevy's `[disqualified::ShortName::from]` and its benches' `[..](criterion::BenchmarkId)`:
    // rustdoc resolves them against `[dependencies]`.
    let src = "//! See [`disqualified::ShortName`] and [the id](criterion::BenchmarkId).\n//!\n//! [macro]: struct@serde::Serialize\n//! A [`crate::Local`], [`self::x`], [`std::mem::take`], [a site](https://x.io/a::b).\n//! ```text\n//! [`not_a_link::X`]\n//! ```\n/// Calls [`tokio::spawn()`] and [`log::info!`].\npub fn f() {}\n";
    let got: Vec<(u32, String, ImportKind, bool)> = scan(src)
        .into_iter()
        .map(|i| (i.line, i.name, i.kind, i.in_doc_link))
        .collect();
    let link = |l: u32, n: &str| (l, n.to_string(), ImportKind::Dev, true);
    assert_eq!(
        got,
        [
            link(1, "disqualified"),
            link(1, "criterion"),
            link(3, "serde"),
            link(8, "tokio"),
            link(8, "log"),
        ]
    );
    assert_eq!(
        super::link_targets("[a](b::c) [`d::e`] [f]: g::h [no link] [x](./y.md)"),
        ["b::c", "d::e", "g::h"]
    );
}

#[test]
fn a_bare_use_of_a_function_of_the_file_is_no_crate() {
    // helix's graphics.rs: `use byte_from_hex as pair;` inside a function names the file's
    // own `fn byte_from_hex`. A path through a crate of the same name is still the crate
    // (a function is in the value namespace), and so is a bare use with no such function.
    let src = "fn byte_from_hex(b: u8) -> u8 { b }\nfn parse() {\n    use byte_from_hex as pair;\n    use serde as s;\n}\nfn log() {}\nfn f() { log::info!(\"x\"); }\n";
    assert_eq!(pairs(&scan(src)), [(4, "serde"), (7, "log")]);
}

#[test]
fn a_module_declared_in_a_macro_call_is_local_around_it() {
    // tokio's `cfg_x! { #[path = "imp/unix.rs"] mod imp; }` then `imp::x()`: a macro call's
    // items expand into the module around it. A function body stays a scope of its own.
    let src = "cfg_x! {\n    #[path = \"imp/unix.rs\"]\n    mod imp;\n}\nfn f() { imp::x(); }\nfn g() { mod inner {} }\nfn h() { inner::y(); }\n";
    assert_eq!(pairs(&scan(src)), [(7, "inner")]);
}

#[test]
fn a_doc_attribute_inside_a_fence_keeps_it_open() {
    // clap's tutorials: the example file is included inside a fence written around it, so
    // the prose after the closing fence is prose, not code.
    let src = "//! ```rust\n#![doc = include_str!(\"../examples/quick.rs\")]\n//! ```\n//! Alternatively, you can use a struct for your arguments:\n//! ```rust\n//! use serde_json::Value;\n//! ```\n";
    assert_eq!(names(&scan(src)), ["serde_json"]);
}

#[test]
fn raw_mod_names_local_types_and_item_macro_output() {
    // wasmtime's c-api: `mod r#async;` declares `async.rs`.
    assert_eq!(
        scan_file("mod r#async;\nmod plain;\n").mods,
        ["async", "plain"]
    );
    // A C-style type the file defines, used by path, is no crate.
    assert!(
        scan("pub enum wasm_kind_t { A }\nstruct my_t;\ntype other_t = u8;\nfn f() { wasm_kind_t::A; my_t::new(); }\n")
            .is_empty()
    );
    // wasmtime's `bindgen!`, wiggle's `from_witx!`: an item macro's output may bring a module
    // (`exports`, `types`) the paths beside it start with; the macro's own crate stays firm.
    let src = "wasmtime::component::bindgen!({ world: \"x\" });\nuse exports::y::Z;\nfn f() { types::T::new(); serde_json::to_string(&1); }\n";
    let flags: Vec<(String, bool)> = scan(src)
        .into_iter()
        .map(|i| (i.name, i.macro_scoped && !i.glob_scoped))
        .collect();
    assert_eq!(
        flags,
        [
            ("wasmtime".to_string(), false),
            ("exports".to_string(), true),
            ("types".to_string(), true),
            ("serde_json".to_string(), true)
        ]
    );
    // Inside a function, a macro call is a statement: nothing beside it changes.
    let src = "fn f() { println!(\"x\"); tokio::spawn(g()); }\n";
    assert!(scan(src).iter().all(|i| !i.macro_scoped));
    // Macros known to define no module leave the paths beside them alone.
    let src = "thread_local! { static X: u8 = 1; }\nbitflags::bitflags! { struct F: u8 {} }\nfn f() { tokio::spawn(g()); }\n";
    assert!(scan(src).iter().all(|i| !i.macro_scoped), "{:?}", scan(src));
}

#[test]
fn macros_that_write_no_module_leave_paths_sure() {
    let firm = |src: &str| scan(src).iter().all(|i| !i.macro_scoped);
    // The file's own macro whose body declares no module; criterion's and proptest's.
    assert!(firm(
        "macro_rules! impl_zero { ($($t:ty),*) => { $(impl Z for $t {})* } }\nimpl_zero!(u8, u16);\nfn f() { regex::Regex::new(\"x\"); }\n"
    ));
    assert!(firm(
        "criterion_group!(benches, b);\ncriterion_main!(benches);\nfn b() { rand::random::<u8>(); }\n"
    ));
    // A macro in an array type's length is an expression.
    assert!(firm(
        "pub struct B([u8; size!(u8, u16)]);\nfn f() { five::x(); }\n"
    ));
    // An associated type is no path root by its name; a crate of that name stays one.
    let src =
        "impl Codec for S {\n    type bytes = Vec<u8>;\n    fn enc() { bytes::Bytes::new(); }\n}\n";
    assert_eq!(names(&scan(src)), ["bytes"]);
    // A local macro that declares a module may write one.
    assert!(!firm(
        "macro_rules! gen { () => { mod made {} } }\ngen!();\nfn f() { made::x(); }\n"
    ));
    // The crate a macro called by its bare name comes from stays firm.
    let src = "use wiggle::from_witx;\nfrom_witx!({ witx: [\"a.witx\"] });\nfn f() { types::T::new(); wiggle::run(); }\n";
    let flags: Vec<(String, bool)> = scan(src)
        .into_iter()
        .map(|i| (i.name, i.macro_scoped))
        .collect();
    assert!(flags.iter().all(|(n, m)| (n == "types") == *m), "{flags:?}");
}

#[test]
fn paths_serde_attributes_write_as_strings() {
    // egui's `#[serde(with = "serde_bytes")]`: the derive expands the string into a path, the
    // crate's only mention. A bare function (`default = "port"`), a type of the file, a
    // module of the file or a name a `use` binds is no crate.
    let src = "use chrono::serde::ts_seconds;\nmod local_fmt {}\n#[derive(serde::Deserialize)]\n#[serde(crate = \"self::serde\")]\nstruct S {\n    #[serde(with = \"serde_bytes\")]\n    a: Vec<u8>,\n    #[serde(default = \"port\", deserialize_with = \"humantime_serde::deserialize\")]\n    b: u16,\n    #[serde(with = \"ts_seconds\", serialize_with = \"local_fmt::write\")]\n    c: i64,\n    #[serde(rename = \"x::y\", with = \"not a path\")]\n    d: u8,\n}\nfn f() { let with = \"nope\"; }\n";
    assert_eq!(
        pairs(&scan(src)),
        [
            (1, "chrono"),
            (3, "serde"),
            (6, "serde_bytes"),
            (8, "humantime_serde")
        ]
    );
    // Named only in a string: a use of what is declared, never owed (a compile-fail
    // fixture's `with = "w"` names nothing).
    let optional = kinds(src)
        .into_iter()
        .filter(|(_, _, k)| *k == ImportKind::Optional)
        .map(|(_, n, _)| n)
        .collect::<Vec<_>>();
    assert_eq!(optional, ["serde_bytes", "humantime_serde"]);
}

#[test]
fn a_keyword_before_leading_colons_starts_a_crate_path() {
    // iced's gallery: `match ::image::load_from_memory(…)`, where `image` is also a widget
    // module in scope; `impl ::serde::Serialize`, `x as ::core::primitive::u8`.
    let src = "use iced::widget::image;\nfn f() { match ::image::load(b) { _ => {} } }\nimpl ::serde::Serialize for S {}\nfn g() { let _ = x as ::num_traits::Zero; }\nfn h() { a::b::c(); }\n";
    assert_eq!(
        pairs(&scan(src)),
        [
            (1, "iced"),
            (2, "image"),
            (3, "serde"),
            (4, "num_traits"),
            (5, "a")
        ]
    );
}
