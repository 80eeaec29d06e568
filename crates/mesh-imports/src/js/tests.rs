//! The JavaScript/TypeScript scanner's cases, each from a real pattern.

use super::scan_file;
use crate::lex::Import;
use crate::lex::tests::{assert_survives, kinds, names, pairs};

/// The imports `scan_file` finds in `src`, for compact assertions.
fn scan(src: &str) -> Vec<Import> {
    scan_file(src).imports.to_vec()
}

#[test]
fn static_import_forms() {
    let src = r#"import x from "a";
import {b1, b2} from 'b';
import * as n from "c";
import "d";
import type {T} from "e";
import x2, {y} from "f";
import x3, * as ns from "g";
import {default as z, "str name" as w} from "h";
import typeof Q from "i";
import j from "j" with { type: "json" };
"#;
    assert_eq!(
        names(&scan(src)),
        ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
    );
}

#[test]
fn multi_line_braces_report_the_specifier_line() {
    let src = "import {\n  a,\n  b,\n} from \"@scope/name/sub\";\n";
    assert_eq!(pairs(&scan(src)), [(4, "@scope/name/sub")]);
}

#[test]
fn re_exports() {
    let src = r#"export * from "a";
export {b} from "b";
export type {T} from "c";
export * as ns from "d";
export type * from "e";
export { default } from 'f';
"#;
    assert_eq!(names(&scan(src)), ["a", "b", "c", "d", "e", "f"]);
}

#[test]
fn plain_exports_are_not_imports() {
    let src = "export const from = \"x\";\nexport default \"y\";\nexport { a, b };\nexport function f() { return \"z\" }\nexport {};\n";
    assert!(scan(src).is_empty(), "{:?}", scan(src));
}

#[test]
fn require_and_dynamic_import() {
    let src = "const a = require(\"a\");\nconst b = require('b');\nconst c = await import('c');\nimport(\"d\").then(f);\nconst e = import(`e`);\nimport(\"f\", { with: { type: \"json\" } });\n";
    assert_eq!(names(&scan(src)), ["a", "b", "c", "d", "e", "f"]);
}

#[test]
fn require_resolve_is_a_use() {
    // jest's packages/babel-jest/src/index.ts.
    let src = "const jestPresetPath = require.resolve('babel-preset-jest');\nconst p = require.resolve(name);\nx.require.resolve(\"no\");\nrequire.cache[\"no\"];\n";
    assert_eq!(names(&scan(src)), ["babel-preset-jest"]);
}

#[test]
fn requires_guarded_by_a_missing_module_catch_are_optional() {
    use crate::lex::ImportKind::{Build, Optional};
    // jest-config's normalize.ts, an empty catch, a catch that rethrows, one that exits, a
    // native-addon loader's chain of alternatives (each catch keeps the error for later), and
    // a catch that logs after a try too long to be a lookup.
    let long = "x();".repeat(60);
    let src = format!(
        "const a = require('a');\ntry {{\n  options.testRunner = require.resolve('jest-jasmine2');\n}} catch (error: any) {{\n  if (error.code === 'MODULE_NOT_FOUND') {{\n    throw createConfigError('x');\n  }}\n  throw error;\n}}\ntry {{ require('fsevents'); }} catch {{}}\ntry {{\n  require('b');\n}} catch (e) {{\n  log(e);\n  throw e;\n}}\ntry {{ await import('c') }} catch (e) {{ if (e.code === 'ERR_MODULE_NOT_FOUND') return; }}\ntry {{ require('d') }} catch (e) {{ console.error(e); process.exit(1) }}\ntry {{\n  return require('./x.linux-x64-gnu.node')\n}} catch (e) {{\n  loadErrors.push(e)\n}}\ntry {{\n  const binding = require('@x/binding-linux-x64-gnu')\n  const v = require('@x/binding-linux-x64-gnu/package.json').version\n  if (v !== '1.0.0') {{\n    throw new Error('mismatch')\n  }}\n  return binding\n}} catch (e) {{\n  loadErrors.push(e)\n}}\ntry {{\n  const app = require('e');\n  {long}\n}} catch (e) {{\n  console.error(e);\n}}\n"
    );
    assert_eq!(
        kinds(&scan_file(&src).imports),
        [
            (1, "a".into(), Build),
            (3, "jest-jasmine2".into(), Optional),
            (10, "fsevents".into(), Optional),
            (12, "b".into(), Build),
            (17, "c".into(), Optional),
            (18, "d".into(), Build),
            (20, "./x.linux-x64-gnu.node".into(), Optional),
            (25, "@x/binding-linux-x64-gnu".into(), Optional),
            (26, "@x/binding-linux-x64-gnu/package.json".into(), Optional),
            (35, "e".into(), Build),
        ]
    );
}

#[test]
fn virtual_mocks_are_no_imports() {
    // jest-transform's ScriptTransformer.test.ts: a virtual mock spread over lines, one
    // on one line, a mock that is not virtual, and a `virtual` inside the factory.
    let src = "jest.mock(\n  'test_preprocessor',\n  () => {\n    const t = {process: () => ({code: `${x}`})};\n    return t;\n  },\n  {virtual: true},\n);\njest.mock('skipped', () => ({}), {virtual: true});\njest.doMock('late', () => ({}), {\n  virtual: true,\n});\njest.mock('real-dep', () => ({virtual: true}));\njest.mock('also-real', () => ({}), {virtual: false});\nconst a = require('test_preprocessor');\nconst b = require('skipped');\nconst c = require('late');\nconst d = require('real-dep');\nconst e = require('also-real');\nimport f from 'test_preprocessor/sub';\n";
    assert_eq!(
        pairs(&scan(src)),
        [
            (18, "real-dep"),
            (19, "also-real"),
            (20, "test_preprocessor/sub")
        ]
    );
}

#[test]
fn non_literal_arguments_do_not_count() {
    let src = "import(variable);\nimport(`./x/${name}`);\nrequire(a + \"b\");\nrequire(\"c\" + d);\nimport.meta.url;\n";
    assert!(scan(src).is_empty(), "{:?}", scan(src));
}

#[test]
fn properties_named_import_or_require_are_not_imports() {
    let src = "x.require(\"a\");\nobj.import(\"b\");\nobj?.require(\"c\");\nconst o = { import: \"d\", require: 1 };\n";
    assert!(scan(src).is_empty(), "{:?}", scan(src));
}

#[test]
fn typescript_import_equals_require() {
    assert_eq!(names(&scan("import fs = require(\"fs\");")), ["fs"]);
}

#[test]
fn specifiers_are_raw() {
    let src = "import a from './x';\nimport b from '../sibling/y';\nimport c from 'lodash/fp';\n";
    assert_eq!(names(&scan(src)), ["./x", "../sibling/y", "lodash/fp"]);
}

#[test]
fn comments_are_not_imports() {
    let src = "// import a from \"a\";\n/* require(\"b\")\nimport \"c\" */\nimport(/* webpackChunkName: \"x\" */ \"d\");\n";
    assert_eq!(pairs(&scan(src)), [(4, "d")]);
}

#[test]
fn strings_are_not_imports() {
    let src = "const s = \"import a from 'a'\";\nconst t = 'require(\"b\")';\nconst u = `import c from \"c\"`;\nconst v = \"it's\"; import real from \"real\";\n";
    assert_eq!(pairs(&scan(src)), [(4, "real")]);
}

#[test]
fn template_expressions_nest() {
    let src = "const s = `a ${ {x: `b ${\"}`\"} c`}.x } import \"no\" ${'`'}`;\nconst r = require(`${x}`);\nconst t = `${ require(\"inner\") }`;\nimport \"yes\";\n";
    assert_eq!(pairs(&scan(src)), [(3, "inner"), (4, "yes")]);
}

#[test]
fn regexes_do_not_break_strings() {
    let src = "const r = /\"/;\nconst q = x.replace(/'/g, '');\nconst k = /[/\"]/.test(s);\nif (ok) return /`/;\nimport a from \"a\";\n";
    assert_eq!(pairs(&scan(src)), [(5, "a")]);
}

#[test]
fn division_is_not_a_regex() {
    let src =
        "const x = a / b; const y = (c) / 2 / \"d\";\nconst z = arr[0] / 3; import q from \"q\";\n";
    assert_eq!(pairs(&scan(src)), [(2, "q")]);
}

#[test]
fn a_slash_with_no_regex_end_is_a_slash() {
    let src = "let x = y\n/ 2; import a from \"a\";";
    assert_eq!(names(&scan(src)), ["a"]);
}

#[test]
fn shebang_is_skipped() {
    let src = "#!/usr/bin/env node\nconst a = require('a');\n";
    assert_eq!(pairs(&scan(src)), [(2, "a")]);
}

#[test]
fn jsx_text_apostrophes_stay_on_their_line() {
    let src = "const C = () => <p>Don't do that</p>;\nimport a from \"a\";\n";
    assert_eq!(names(&scan(src)), ["a"]);
}

#[test]
fn mesh_ignore() {
    let src = "import x from \"y\"; // mesh: ignore\nconst z = require(\"z\"); /* mesh: ignore */\nimport w from \"w\";\n";
    assert_eq!(names(&scan(src)), ["w"]);
}

#[test]
fn duplicates_on_a_line_collapse() {
    let src = "const a = require(\"a\"), b = require(\"a\"), c = require(\"c\");";
    assert_eq!(pairs(&scan(src)), [(1, "a"), (1, "c")]);
}

#[test]
fn text_is_the_trimmed_line() {
    let imports = scan("  \timport x from \"y\";  \n");
    assert_eq!(imports[0].text, "import x from \"y\";");
}

#[test]
fn many_clause_starts_stay_linear() {
    let src = "import {".to_string() + &"import, ".repeat(50_000) + "} from \"x\"";
    let start = std::time::Instant::now();
    assert!(scan(&src).is_empty());
    assert!(start.elapsed().as_secs() < 5);
}

#[test]
fn forms_that_trip_scanners() {
    let src = "import type { A } from 'types-a';\nexport type { B } from \"types-b\";\nconst m = await import('dyn');\nconst r = require(\"req\");\nimport fs = require('ts-eq');\nconst s = `import x from 'tpl'`;\n// import y from 'comment'\nimport {\n  c, // mesh: ignore\n  d,\n} from 'ignored';\nimport '@scope/side-effect';\n";
    assert_eq!(
        pairs(&scan(src)),
        [
            (1, "types-a"),
            (2, "types-b"),
            (3, "dyn"),
            (4, "req"),
            (5, "ts-eq"),
            (12, "@scope/side-effect"),
        ]
    );
}

#[test]
fn garbage_does_not_panic() {
    assert!(scan("`${").is_empty());
    assert!(scan("`${`${`${ import('a')").len() == 1);
    assert!(scan("/* import 'a'").is_empty());
    assert!(scan("}}}} import 'a'").len() == 1);
    assert_survives(scan_file);
}

/// Lexing stops past the last place an import may start, never inside a statement that
/// still needs tokens: a clause with the word in a comment, a call at the very end.
#[test]
fn lexing_stops_only_past_the_last_import() {
    let clause = "import {\n  a, /* require */\n  b,\n} from \"y\";\nexport function f() {}\n";
    assert_eq!(names(&scan(clause)), ["y"]);
    assert_eq!(names(&scan("f();\nconst x = require(\"z\")")), ["z"]);
    assert_eq!(names(&scan("x();\nrequire . resolve ( 'r' )")), ["r"]);
    assert_eq!(
        names(&scan(
            "export function g() {}\nexport /* c */ * from './all'"
        )),
        ["./all"]
    );
    assert_eq!(
        names(&scan("export type {T} from './t';\nexport type U = 1;")),
        ["./t"]
    );
    // No word that may import: nothing is lexed, nothing found.
    assert!(scan("exports.importance = required;\nexport const x = 1;").is_empty());
}

/// Fragments of JS that meet at the edges of statements, strings, comments, templates
/// and regexes: whole import forms, and the tokens they are made of.
const FRAGMENTS: &[&str] = &[
    "import x from 'a';",
    "import {\n  b,\n  c as d,\n} from 'b'",
    "import('c')",
    "import 'd'",
    "require('e')",
    "require.resolve('f')",
    "export * from 'g'",
    "export type { T } from 'h'",
    "export function f() {}",
    "import",
    "export",
    "require",
    "from",
    "type",
    "resolve",
    "function",
    "x",
    "$",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    "*",
    ".",
    ";",
    "=",
    "/",
    "\\",
    "'a'",
    "\"b\"",
    "'",
    "\"",
    "`",
    "${",
    "//",
    "/*",
    "*/",
    " ",
    "\n",
    "\t",
    "return",
    "1",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    /// Stopping early finds exactly what lexing the whole file finds.
    #[test]
    fn stopping_early_finds_what_the_whole_file_has(
        parts in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..60)
    ) {
        let src = parts.concat();
        proptest::prop_assert_eq!(super::scan(&src, false), super::scan(&src, true));
    }
}

#[test]
fn comment_pragmas_load_packages_no_import_names() {
    // vitest's `test/unit/test/snapshot-react-18.test.jsx`, a jest docblock, vitest's
    // built-in and custom environments, a file path, and pragmas a string or code holds.
    let src = "/**\n * @vitest-environment happy-dom\n */\n// @jsxImportSource react-18\n/** @jest-environment jsdom */\n// @vitest-environment edge-runtime\n// @vitest-environment custom\n// @jest-environment ./env.js\n// @vitest-environment node\nconst s = '@jsxImportSource nope';\nx = a; // not at a comment's start: @jsxImportSource nope2\n";
    use crate::lex::ImportKind::{Build, Optional};
    assert_eq!(
        kinds(&scan(src)),
        [
            (2, "happy-dom".into(), Optional),
            (4, "react-18/jsx-runtime".into(), Build),
            (5, "jest-environment-jsdom".into(), Optional),
            (6, "@edge-runtime/vm".into(), Optional),
            (7, "vitest-environment-custom".into(), Optional),
        ]
    );
    // Imports after the docblock are still read.
    let src = "/** @jest-environment jsdom */\nimport a from 'a';\n";
    assert_eq!(pairs(&scan(src)), [(1, "jest-environment-jsdom"), (2, "a")]);
}

#[test]
fn jsdoc_comments_import_types() {
    // sveltekit's JavaScript, type-checked from JSDoc: an `@import` tag, a type cast, a
    // parameter's type, on comment lines and after an open `/*`; an `import(` in code, in a
    // string, after a closed comment, or in a comment naming no string is none of these.
    let src = "/** @import { Handle } from '@sveltejs/kit' */\n/**\n * @param {import('estree').Node} node\n * @import {X} from \"@types/deno\"\n */\nconst a = /** @type {import('node:http').Server} */ (b);\nconst c = import('lazy');\nconst s = \"// import('nope')\";\n/* x */ const d = 1; // import(e)\nconst r = reimport('no');\n// const m = await import('commented');\n/* c8 ignore next */ const n = import('code');\n/*! banner */ x(import('minified'));\n";
    assert_eq!(
        pairs(&scan(src)),
        [
            (1, "@sveltejs/kit"),
            (3, "estree"),
            (4, "@types/deno"),
            (6, "node:http"),
            (7, "lazy"),
            (12, "code"),
            (13, "minified")
        ]
    );
    use crate::lex::ImportKind::{Build, Optional};
    let got = kinds(&scan(src));
    assert_eq!(got[0], (1, "@sveltejs/kit".into(), Optional));
    assert_eq!(got[4], (7, "lazy".into(), Build));
}

#[test]
fn triple_slash_references_load_a_package_s_types() {
    // A `react-app-env.d.ts`, a Vite app's `vite-env.d.ts`, a test's ambient types: each a
    // type-only use, never owed; a `path` or `lib` reference, or one not opening its line,
    // names no package.
    let src = "/// <reference types=\"react-scripts\" />\n///<reference types='vite/client'/>\n/// <reference types=\"@cloudflare/workers-types/2023-07-01\" />\n/// <reference path=\"./globals.d.ts\" />\n/// <reference lib=\"dom\" />\n/// <reference types=\"node\" />\n/// <referencetypes=\"glued\" />\nconst s = '/// <reference types=\"nope\" />';\n// /// <reference types=\"commented\" />\n";
    assert_eq!(
        pairs(&scan(src)),
        [
            (1, "react-scripts"),
            (2, "vite/client"),
            (3, "@cloudflare/workers-types/2023-07-01"),
            (6, "node:")
        ]
    );
    use crate::lex::ImportKind::Optional;
    assert!(kinds(&scan(src)).iter().all(|(_, _, k)| *k == Optional));
}

#[test]
fn import_meta_resolve_finds_a_package_as_require_resolve_does() {
    // pnpm's jest transform hands babel a plugin by its resolved path.
    let src = "const p = import.meta.resolve('@babel/plugin-x')\nconst u = import.meta.url\nconst q = require.resolve(\"q\")\nobj.import.meta.resolve('no')\n";
    assert_eq!(names(&scan(src)), ["@babel/plugin-x", "q"]);
    // The file's last import form: the lexer reads on to its string.
    let last = "export default { plugins: [import.meta.resolve('@babel/plugin-y')] }\n";
    assert_eq!(names(&scan(last)), ["@babel/plugin-y"]);
}

#[test]
fn packages_run_through_a_runner_in_code_are_used() {
    // create-payload-app's `execSync('npx prettier …')`; a template literal's text before its
    // first `${`; flags and versions skipped; a path, an interpolated package or a runner
    // not first in the string names nothing.
    let src = "execSync('npx prettier --write file.ts')\nexecSync(`pnpm exec eslint --fix ${dir}`)\nrun(\"npx -y @scope/tool@1.2 init\")\nrun('yarn dlx create-thing@latest')\nrun(`npx ${pkg}`)\nrun('npx ./local.js')\nlog('run npx eslint to fix')\nrun(\"bunx --bun vitest\")\n";
    assert_eq!(
        pairs(&scan(src)),
        [
            (1, "prettier"),
            (2, "eslint"),
            (3, "@scope/tool"),
            (4, "create-thing"),
            (8, "vitest")
        ]
    );
    use crate::lex::ImportKind::Optional;
    assert!(kinds(&scan(src)).iter().all(|(_, _, k)| *k == Optional));
}

/// `React.ReactNode` with no import of `react`: React's global namespace, which
/// `@types/react` declares — an optional use of `react`, once, at its first line. Not when
/// the file imports `react` (its import says it), nor a comment's or a property's `React.`.
#[test]
fn react_s_global_namespace_is_an_optional_use() {
    let found = scan("type A = { a: React.ReactNode };\nconst b: React.FC = () => null;\n");
    assert_eq!(
        kinds(&found),
        [(1, "react".to_string(), crate::ImportKind::Optional)]
    );
    for none in [
        "// a React.FC would do\n/* React.ReactNode */\nconst x = y.React.z;\nconst MyReact = 1;\n",
        "const a = 1; // unlike React.memo\n",
        "/*\n  see React.memo\n*/\n",
        "const s = \"Built with React.js\";\n",
        "const t = `see React.${x}`;\n",
        "const React = { version: 1 };\nReact.version;\n",
        "import * as React from 'preact/compat';\ntype A = React.ReactNode;\n",
    ] {
        assert!(scan(none).iter().all(|i| i.name != "react"), "{none}");
    }
    // On one line with the import, the import is the use.
    let one_line = scan("export type P = React.FC; import React from \"react\"\n");
    assert_eq!(
        kinds(&one_line),
        [(1, "react".to_string(), crate::ImportKind::Build)]
    );
    let imported = scan("import { useState } from 'react';\ntype A = React.ReactNode;\n");
    assert_eq!(
        kinds(&imported),
        [(1, "react".to_string(), crate::ImportKind::Build)]
    );
}

#[test]
fn a_path_into_node_modules_names_its_package() {
    // ckan's gulpfile copies vendored files out of `node_modules` by path.
    let src = "const { src, dest } = require(\"gulp\");\nconst copy = () => src(\"node_modules/htmx.org/dist/htmx.js\").pipe(dest(\"vendor\"));\nconst fonts = () => src(\"./node_modules/@fortawesome/fontawesome-free/webfonts/*\");\nconst mine = \"./my_node_modules/x.js\";\nconst glob = \"node_modules/*/package.json\";\nconst alias = path.resolve(__dirname, \"./node_modules/lodash\");\nif (id.includes(\"node_modules/monaco-editor/esm/vs/base\")) {}\n";
    assert_eq!(
        names(&scan(src)),
        ["gulp", "htmx.org", "@fortawesome/fontawesome-free"]
    );
}

#[test]
fn a_umd_wrapper_requires_only_in_its_commonjs_branch() {
    // A vendored DataTables plugin: the page loads it by `<script>` with globals.
    let src = "(function (factory) {\n  if (typeof define === 'function' && define.amd) {\n    define(['jquery', 'datatables.net'], factory);\n  } else if (typeof exports === 'object') {\n    module.exports = factory(require('jquery'), require('datatables.net'));\n  } else {\n    factory(jQuery);\n  }\n}(function ($) {}));\n";
    assert!(
        scan(src)
            .iter()
            .all(|i| i.kind == crate::lex::ImportKind::Optional),
        "{:?}",
        scan(src)
    );
    assert_eq!(names(&scan(src)), ["jquery", "datatables.net"]);
    // A file that only mentions the test keeps its imports and requires.
    let mention = "// UMD builds test define.amd; this file does not.\nimport MagicString from \"magic-string\";\nconst chalk = require(\"chalk\");\nconst umd = \"if (define.amd) {}\";\n";
    assert!(
        scan(mention)
            .iter()
            .all(|i| i.kind == crate::lex::ImportKind::Build),
        "{:?}",
        scan(mention)
    );
    // A wrapper's ES import (a bundler's interop) keeps its kind.
    let mixed = "import x from \"x\";\nif (typeof define === \"function\" && define.amd) { define([\"y\"], f) } else { f(require(\"y\")) }\n";
    let kinds: Vec<_> = scan(mixed)
        .iter()
        .map(|i| (i.name.to_string(), i.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("x".to_string(), crate::lex::ImportKind::Build),
            ("y".to_string(), crate::lex::ImportKind::Optional)
        ]
    );
}
