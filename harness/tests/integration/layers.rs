//! The layering in `docs/architecture.md` holds: no `crate::` path in the library points from a
//! module to one on a higher layer. The table in the doc is the one source; this test reads it.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::repo;

/// Module path (`recording`, `plan`) → layer, from the doc's table rows `| N | `a`, `b` | … |`.
fn layers(doc: &str) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(n), Some(mods)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Ok(n) = n.parse::<u32>() else { continue };
        for m in mods.split(',') {
            out.insert(m.trim().trim_matches('`').to_string(), n);
        }
    }
    out
}

/// The module a file belongs to: its longest path in the table (`recording`, or a nested
/// `a::b` row when there is one).
fn module_of(rel: &Path, table: &BTreeMap<String, u32>) -> Option<String> {
    let parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    (1..=parts.len())
        .rev()
        .map(|k| parts[..k].join("::"))
        .find(|m| table.contains_key(m))
}

/// Every `crate::…` path in `code` that names a module on a higher layer than `from`'s, or a
/// module the table does not place. Code from the first `#[cfg(test)]` on is test code.
fn upward(code: &str, from: &str, table: &BTreeMap<String, u32>) -> Vec<String> {
    let code = code.split("#[cfg(test)]").next().unwrap_or_default();
    let here = table[from];
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        // `stepreplay::crate::` does not occur; skip `$crate::` in macros.
        if code[..i].ends_with('$') {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        let path: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        let target = (1..=segs.len())
            .rev()
            .map(|k| segs[..k].join("::"))
            .find(|m| table.contains_key(m));
        match target {
            Some(t) if table[&t] > here => out.push(format!(
                "{from} (layer {here}) -> {t} (layer {})",
                table[&t]
            )),
            Some(_) => {}
            // `crate::Error` and other re-exports at the root are errors' own.
            None if segs
                .first()
                .is_some_and(|s| s.starts_with(char::is_uppercase)) => {}
            None => out.push(format!(
                "{from} -> crate::{path}: not in docs/architecture.md"
            )),
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The files of modules declared under `#[cfg(test)]` (`#[cfg(test)] mod screens;`): test
/// fixtures, which may import anything, as test code may.
fn test_only_files(files: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for f in files {
        let code = std::fs::read_to_string(f).unwrap();
        let dir = match f.file_name().and_then(|n| n.to_str()) {
            Some("mod.rs" | "lib.rs" | "main.rs") => f.parent().unwrap().to_path_buf(),
            _ => f.with_extension(""),
        };
        for (i, _) in code.match_indices("#[cfg(test)]") {
            let rest = code[i + "#[cfg(test)]".len()..].trim_start();
            let Some(decl) = rest.strip_prefix("mod ") else {
                continue;
            };
            let name: String = decl
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if decl[name.len()..].starts_with(';') {
                out.push(dir.join(format!("{name}.rs")));
                out.push(dir.join(name).join("mod.rs"));
            }
        }
    }
    out
}

#[test]
fn no_import_runs_up_the_layers() {
    let root = repo();
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let table = layers(&doc);
    assert!(table.len() >= 15, "the layer table: {table:?}");
    let src = root.join("harness/src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let test_only = test_only_files(&files);
    let mut problems = Vec::new();
    for f in files {
        if test_only.contains(&f) {
            continue;
        }
        let rel = f.strip_prefix(&src).unwrap();
        let name = f.file_name().unwrap().to_string_lossy();
        // The binary's doors import the library by name; test-only files import anything.
        if rel.starts_with("cli") || name == "main.rs" || name == "lib.rs" {
            continue;
        }
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let Some(from) = module_of(rel, &table) else {
            problems.push(format!("{}: its module is not in the table", rel.display()));
            continue;
        };
        let code = std::fs::read_to_string(&f).unwrap();
        for p in upward(&code, &from, &table) {
            problems.push(format!("{}: {p}", rel.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "imports up the layers:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_check_sees_an_import_that_runs_up() {
    let table = layers("| 0 | `text` | |\n| 1 | `plan`, `a::b` | |\n| 2 | `replay` | |\n");
    assert_eq!(table["a::b"], 1);
    let code =
        "use crate::text::word;\nuse crate::replay::REDACTED;\n#[cfg(test)]\nuse crate::replay::x;";
    assert_eq!(
        upward(code, "plan", &table),
        ["plan (layer 1) -> replay (layer 2)"]
    );
    assert!(upward(code, "replay", &table).is_empty());
    assert_eq!(
        upward("let x = crate::nowhere::f();", "plan", &table),
        ["plan -> crate::nowhere::f: not in docs/architecture.md"]
    );
    assert_eq!(
        module_of(Path::new("a/b/c.rs"), &table).as_deref(),
        Some("a::b")
    );
}
