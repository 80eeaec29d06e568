//! JavaScript's own drift rules: what a workspace root declares for every package of the
//! workspace, and which imports are types only (erased from the build).

use super::declared::{self, Declared, Scope};
use crate::source::{self, RepoSnapshot, SourceError, blob_text};

/// The declarations of the workspace root above `dir` (the nearest `package.json` above it
/// with `workspaces`, or with a `pnpm-workspace.yaml` beside it).
///
/// Node resolves a package from every `node_modules` above the importing file, and a clean
/// install of a workspace puts the root's dependencies in the root's: tests, benchmarks and
/// type tests run inside the repository find them (jest keeps `tstyche` and `prettier` there
/// for all 50 packages). They come back as dev declarations that are never unused: they
/// satisfy dev and type-only imports, never a shipped one (a published package cannot reach
/// its repository's root).
pub(crate) fn workspace_root(
    snap: &RepoSnapshot,
    repo: usize,
    dir: &str,
    memo: &mut source::Nearest<Vec<Declared>>,
) -> Result<Vec<Declared>, SourceError> {
    let Some(above) = source::above(dir) else {
        return Ok(Vec::new());
    };
    let root = snap.root_tree()?;
    let found = source::nearest(repo, above, memo, |at| {
        let Some(t) = blob_text(snap, &root, &source::join(at, "package.json"))? else {
            return Ok(None);
        };
        let pnpm = || {
            blob_text(snap, &root, &source::join(at, "pnpm-workspace.yaml")).map(|y| y.is_some())
        };
        if !is_workspace_root(&t, pnpm)? {
            return Ok(None);
        }
        let (decls, _) = declared::package_json(&t);
        Ok(Some(
            decls
                .into_iter()
                .map(|mut d| {
                    d.scope = Scope::Dev;
                    d.indirect = true;
                    d.elsewhere = Some(at.to_string());
                    d
                })
                .collect(),
        ))
    })?;
    Ok(found.unwrap_or_default())
}

/// Whether a `package.json` is a workspace root: it lists `workspaces` (npm, yarn, bun), or
/// `pnpm` says so (`pnpm-workspace.yaml` beside it, asked only when needed).
fn is_workspace_root(
    text: &str,
    pnpm: impl FnOnce() -> Result<bool, SourceError>,
) -> Result<bool, SourceError> {
    let workspaces = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .is_some_and(|v| v.get("workspaces").is_some());
    Ok(workspaces || pnpm()?)
}

/// Whether an import is a type only, from its file and its line's text: every import of a
/// declaration file (`.d.ts`), `import type` / `export type`, and `typeof import("x")` (a
/// type query: `let prettier: typeof import('prettier')` in jest-snapshot).
pub(crate) fn type_only_text(path: &str, text: &str) -> bool {
    let dts = [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|e| path.ends_with(e));
    dts || text.starts_with("import type ")
        || text.starts_with("import type{")
        || text.starts_with("export type ")
        || text.starts_with("export type{")
        || text.contains("typeof import(")
}

/// Whether the statement that ends on 1-based `line` of `src` (a multi-line `import type {`
/// whose specifier stands on its last line, `} from 'x';`) is type-only: its first line is
/// the nearest one above that starts with `import` or `export`.
pub(crate) fn statement_is_type_only(src: &str, line: u32) -> bool {
    let lines: Vec<&str> = src.lines().take(line as usize).collect();
    lines
        .iter()
        .rev()
        .take(500)
        .map(|l| l.trim_start())
        .find(|l| l.starts_with("import") || l.starts_with("export"))
        .is_some_and(|l| type_only_text("", l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_only_forms() {
        assert!(type_only_text(
            "src/a.ts",
            "import type {Config} from '@jest/types';"
        ));
        assert!(type_only_text("src/a.ts", "export type {X} from 'x';"));
        assert!(type_only_text(
            "src/worker.ts",
            "let prettier: typeof import('prettier');"
        ));
        // pretty-format's react-is-modules.d.ts: `export * from 'react-is'` in a module block.
        assert!(type_only_text(
            "src/react-is-modules.d.ts",
            "export * from 'react-is';"
        ));
        assert!(!type_only_text("src/a.ts", "import {typeOf} from 'x';"));
        assert!(!type_only_text("src/a.ts", "} from 'prettier-v2';"));
    }

    #[test]
    fn multi_line_statements() {
        // jest-snapshot's InlineSnapshots.ts.
        let src = "import * as path from 'path';\nimport type {\n  CustomParser as PrettierCustomParser,\n  BuiltInParserName as PrettierParserName,\n} from 'prettier-v2';\nimport {\n  a,\n} from 'jest-util';\n";
        assert!(statement_is_type_only(src, 5));
        assert!(!statement_is_type_only(src, 8));
        assert!(!statement_is_type_only(src, 1));
    }

    #[test]
    fn workspace_roots() {
        let no_pnpm = || Ok(false);
        assert!(is_workspace_root("{\"workspaces\": [\"packages/*\"]}", no_pnpm).unwrap());
        assert!(is_workspace_root("{\"workspaces\": {\"packages\": [\"a\"]}}", no_pnpm).unwrap());
        assert!(!is_workspace_root("{\"name\": \"x\"}", no_pnpm).unwrap());
        assert!(is_workspace_root("{\"name\": \"x\"}", || Ok(true)).unwrap());
    }
}
