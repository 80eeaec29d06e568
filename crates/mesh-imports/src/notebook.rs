//! Jupyter notebooks (`.ipynb`): JSON whose code cells are Python a person runs by hand, one
//! cell at a time. Each code cell is scanned as Python on its own (a cell left unfinished
//! hides no other's imports), its lines said at the lines of the file where Jupyter wrote
//! them (one JSON string per line, keys sorted: a cell's `cell_type` before its `source`);
//! a notebook written otherwise (minified) says every import at the file's first line.
//! IPython's own syntax is no Python: a `%magic` or `!shell` line is left out, and so is a
//! cell another language's cell magic opens (`%%bash`, `%%writefile x.js`).

use crate::lex::{FileScan, Import, ImportKind};

/// Whether `path` names a Jupyter notebook: code run by hand, read through [`scan`], which
/// no `import` loads.
pub fn is_notebook(path: &str) -> bool {
    path.ends_with(".ipynb")
}

/// The cell magics whose cell is still Python, run some way (timed, its output captured).
const PYTHON_CELL_MAGICS: &[&str] = &["%%time", "%%timeit", "%%capture", "%%prun"];

/// A notebook's code, as the scanner reads it.
#[derive(Debug, Default)]
pub struct Code {
    /// Each code cell's lines, in order: `None` for a line left out (IPython's syntax).
    pub cells: Vec<Vec<Option<String>>>,
    /// The 1-based line of the file each cell's first source line stands on, when every
    /// cell was found where Jupyter writes it.
    pub at: Option<Vec<usize>>,
    /// The distributions its `%pip install` (or `!pip install`, conda, mamba) lines install,
    /// PEP 503-normalized: whoever runs it installs them, as for a script that declares its
    /// own (PEP 723).
    pub installs: Vec<String>,
}

/// The code of the notebook `src`; `None` when it is no notebook (not JSON, no cells).
pub fn code(src: &str) -> Option<Code> {
    let v: serde_json::Value = serde_json::from_str(src).ok()?;
    let cells = v.get("cells")?.as_array()?;
    let mut code = Code::default();
    for cell in cells {
        if cell.get("cell_type").and_then(|t| t.as_str()) != Some("code") {
            continue;
        }
        let lines: Vec<String> = match cell.get("source") {
            Some(serde_json::Value::String(s)) => {
                s.split_inclusive('\n').map(String::from).collect()
            }
            Some(serde_json::Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.as_str())
                .map(String::from)
                .collect(),
            _ => Vec::new(),
        };
        // IPython drops a cell's leading blank lines before it looks for a cell magic.
        let first = lines.iter().map(|l| l.trim()).find(|l| !l.is_empty());
        let other_language = first.is_some_and(|f| f.starts_with("%%") && !python_cell(f));
        let mut kept = Vec::with_capacity(lines.len());
        // An IPython line continued with `\` (`!pip install a \` then `    b`), as one.
        let mut magic: Option<String> = None;
        for line in lines {
            let t = line.trim_start();
            if other_language {
                kept.push(None);
            } else if magic.is_some() || t.starts_with('%') || t.starts_with('!') {
                let t = t.trim_end();
                let whole = match magic.take() {
                    Some(m) => format!("{m} {t}"),
                    None => t.to_string(),
                };
                match whole.ends_with('\\') {
                    true => magic = Some(whole.trim_end_matches('\\').to_string()),
                    false => code.installs.extend(installed(&whole)),
                }
                kept.push(None);
            } else {
                kept.push(Some(line));
            }
        }
        if let Some(m) = magic {
            code.installs.extend(installed(&m));
        }
        code.cells.push(kept);
    }
    code.at = at_their_lines(src, &code.cells);
    Some(code)
}

/// The imports of the notebook `src`: each code cell's, those of what the notebook
/// installs itself optional. A file that is no notebook says so (for `-v`).
pub fn scan(src: &str) -> FileScan {
    let Some(code) = code(src) else {
        let mut scan = FileScan::default();
        scan.notes
            .push("not a notebook (no JSON with cells): no imports".into());
        return scan;
    };
    let mut imports: Vec<Import> = Vec::new();
    let mut notes = Vec::new();
    for (k, cell) in code.cells.iter().enumerate() {
        let text: Vec<&str> = cell
            .iter()
            .map(|l| {
                l.as_deref()
                    .map_or("", |l| l.strip_suffix('\n').unwrap_or(l))
            })
            .collect();
        let scan = crate::python::scan_file(&text.join("\n"));
        let first = code.at.as_ref().map(|at| at[k]);
        for mut i in scan.imports.iter().cloned() {
            i.line = first.map_or(1, |f| (f + i.line as usize - 1) as u32);
            let top = i.name.split('.').next().unwrap_or(&i.name);
            if code
                .installs
                .iter()
                .any(|d| *d == top.to_ascii_lowercase().replace('_', "-"))
            {
                i.kind = i.kind.min(ImportKind::Optional);
            }
            imports.push(i);
        }
        notes.extend(scan.notes.iter().cloned());
    }
    FileScan {
        imports: imports.into(),
        notes,
        ..FileScan::default()
    }
}

/// Whether a cell magic (the cell's first line) keeps its cell Python: it times it,
/// captures its output, or writes it to a `.py` file.
fn python_cell(first: &str) -> bool {
    let mut words = first.split_whitespace();
    let magic = words.next().unwrap_or("");
    PYTHON_CELL_MAGICS.contains(&magic)
        || (magic == "%%writefile" && words.last().is_some_and(|f| f.ends_with(".py")))
}

/// What an IPython line (`%…`, `!…`) installs with pip (uv's too), conda or mamba: the
/// distributions it names, PEP 503-normalized, without options, extras or versions; not
/// requirements files, paths or URLs.
fn installed(line: &str) -> Vec<String> {
    let words: Vec<&str> = line
        .trim_start_matches(['%', '!'])
        .split_whitespace()
        .collect();
    let installer = words.iter().position(|w| {
        matches!(
            w.rsplit('/').next().unwrap_or(w),
            "pip" | "pip3" | "conda" | "mamba" | "micromamba"
        )
    });
    let Some(at) = installer.filter(|i| words.get(i + 1) == Some(&"install")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut skip_next = false;
    for w in &words[at + 2..] {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if matches!(
            *w,
            "-r" | "-e"
                | "-c"
                | "--requirement"
                | "--editable"
                | "--constraint"
                | "-i"
                | "--index-url"
                | "--extra-index-url"
                | "-f"
                | "--find-links"
        ) {
            skip_next = true;
            continue;
        }
        if w.starts_with('-') || w.contains(['/', ':', '$', '{']) || w.starts_with('.') {
            continue;
        }
        let name = w
            .trim_matches(['"', '\''])
            .split(['[', '=', '<', '>', '!', '~', ';', ' '])
            .next()
            .unwrap_or("");
        if !name.is_empty() {
            out.push(name.to_ascii_lowercase().replace(['_', '.'], "-"));
        }
    }
    out
}

/// Where each code cell's first source line stands in `src` (1-based), when the notebook is
/// written as Jupyter writes it: each code cell's `"cell_type": "code"`, then its
/// `"source": [` line, then one JSON string per line holding exactly its lines. `None` when
/// any cell is not found so (a notebook minified or escaped otherwise than JSON's shortest
/// form).
fn at_their_lines(src: &str, cells: &[Vec<Option<String>>]) -> Option<Vec<usize>> {
    let file: Vec<&str> = src.lines().map(str::trim).collect();
    let mut at = Vec::with_capacity(cells.len());
    let mut i = 0;
    let next = |i: &mut usize, wanted: &dyn Fn(&str) -> bool| -> Option<usize> {
        let found = *i + file.get(*i..)?.iter().position(|l| wanted(l))?;
        *i = found + 1;
        Some(found)
    };
    for _ in cells {
        next(&mut i, &|l| l.starts_with("\"cell_type\": \"code\""))?;
        next(&mut i, &|l| l.starts_with("\"source\": ["))?;
        at.push(i + 1);
    }
    // Each cell's lines, checked in place: a cell is found by its keys, never by its text
    // (an output or a Markdown cell may hold the same line).
    for (cell, &first) in cells.iter().zip(&at) {
        for (k, line) in cell.iter().enumerate() {
            let l = file.get(first - 1 + k)?;
            let l = l.strip_suffix(',').unwrap_or(l);
            let want = serde_json::from_str::<String>(l).ok()?;
            if line.as_deref().is_some_and(|line| *line != want) {
                return None;
            }
        }
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A notebook as Jupyter writes it: one source string per line, outputs before source.
    const NB: &str = r#"{
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "import not_code\n"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "import not_an_import\n"
     ]
    }
   ],
   "source": [
    "import pandas as pd\n",
    "%matplotlib inline\n",
    "import graphiti_core"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": [
    "%%bash\n",
    "import nothing\n"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
"#;

    #[test]
    fn code_cells_are_read_at_their_lines() {
        let scan = scan(NB);
        let got: Vec<(u32, &str)> = scan
            .imports
            .iter()
            .map(|i| (i.line, i.name.as_str()))
            .collect();
        assert_eq!(got, [(24, "pandas"), (26, "graphiti_core")]);
        assert!(scan.imports.iter().all(|i| i.kind == ImportKind::Build));
    }

    #[test]
    fn what_a_notebook_installs_itself_it_owes_nothing() {
        let nb = NB.replace(
            "%matplotlib inline",
            "!pip install -q pandas==2.2 'rich[jupyter]'",
        );
        let first = scan(&nb);
        let kinds: Vec<(&str, ImportKind)> = first
            .imports
            .iter()
            .map(|i| (i.name.as_str(), i.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("pandas", ImportKind::Optional),
                ("graphiti_core", ImportKind::Build)
            ]
        );
        assert_eq!(installed("%pip install x-y Z_z>=1"), ["x-y", "z-z"]);
        assert_eq!(
            installed("!python -m pip install -r req.txt -e . ./pkg a"),
            ["a"]
        );
        assert_eq!(installed("!uv pip install --upgrade pip"), ["pip"]);
        // `!pip install -q \` continued by `    polars`, as JSON writes the two lines.
        let continued = NB.replace(
            r#""import pandas as pd\n","#,
            r#""!pip install -q \\\n",
    "    polars\n",
    "import polars\n","#,
        );
        let got = scan(&continued);
        assert!(
            got.imports
                .iter()
                .any(|i| i.name == "polars" && i.kind == ImportKind::Optional),
            "{:?}",
            got.imports
        );
        assert!(installed("!pip list").is_empty());
        assert!(installed("%matplotlib inline").is_empty());
    }

    /// A line of an output or a Markdown cell the same as a code line is not taken for it;
    /// an unfinished cell hides no other cell's imports.
    #[test]
    fn each_cell_is_read_alone_at_its_own_lines() {
        let nb = NB
            .replace("\"import not_code\\n\"", "\"import pandas as pd\\n\"")
            .replace("\"import not_an_import\\n\"", "\"import graphiti_core\"");
        let got: Vec<(u32, String)> = scan(&nb)
            .imports
            .iter()
            .map(|i| (i.line, i.name.clone()))
            .collect();
        let want = [(24, "pandas"), (26, "graphiti_core")].map(|(l, n)| (l, n.to_string()));
        assert_eq!(got, want);
        let unfinished = r#"{
 "cells": [
  {
   "cell_type": "code",
   "source": [
    "total = (10\n",
    "     % 3\n",
    "q = \"\"\"SELECT\n"
   ]
  },
  {
   "cell_type": "code",
   "source": [
    "import rich"
   ]
  }
 ]
}"#;
        let got: Vec<(u32, String)> = scan(unfinished)
            .imports
            .iter()
            .map(|i| (i.line, i.name.clone()))
            .collect();
        assert_eq!(got, [(14, "rich".to_string())]);
        assert!(python_cell("%%writefile app.py"));
        assert!(!python_cell("%%writefile server.js"));
        assert!(python_cell("%%time"));
        assert!(!python_cell("%%bash"));
    }

    #[test]
    fn a_minified_notebook_is_read_cell_after_cell() {
        let nb = r#"{"cells":[{"cell_type":"code","source":"import a\nimport b.c\n"},{"cell_type":"code","source":["x = 1\n","import d"]}]}"#;
        let got: Vec<(u32, String)> = scan(nb)
            .imports
            .iter()
            .map(|i| (i.line, i.name.clone()))
            .collect();
        let want = [(1, "a"), (1, "b.c"), (1, "d")].map(|(l, n)| (l, n.to_string()));
        assert_eq!(got, want);
    }

    #[test]
    fn what_is_no_notebook_has_no_imports() {
        for src in [
            "",
            "import os",
            "{",
            "[]",
            r#"{"cells": 3}"#,
            "{\"cells\":[{}]}",
        ] {
            assert!(scan(src).imports.is_empty(), "{src}");
        }
        for src in crate::lex::tests::ADVERSARIAL {
            let _ = scan(src);
        }
    }
}
