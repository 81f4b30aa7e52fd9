//! The layering in `docs/architecture.md` holds: no `crate::` path in the library points from a
//! module to one on a higher layer. The table in the doc is the one source; this test reads it.
//! And the front doors (`synth`, `recorder`, `agent`) and `diff` take nothing from the runner or
//! the reporters but the shared result types (see `SHARED_FROM_REPLAY`).

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
        // The binary and the crate root declare modules; test-only files import anything.
        if name == "main.rs" || name == "lib.rs" {
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

/// The rooms that sit beside the runner or below it and must not reach into it: the front
/// doors that write recordings and scenarios or drive an agent, and the diff. They may take
/// the shared result types from `replay` — [`SHARED_FROM_REPLAY`] — and nothing from the
/// runner (`replay`'s follower, `Prepared`, `robustness`, the approval replay, OCR) or from
/// `report/`.
const APART: &[&str] = &["synth", "recorder", "diff", "agent"];

/// What a room in [`APART`] may import from `replay`: the trace every follower emits and its
/// parts (what a run yields, scored by `score.rs` and shown by the reporters). The browser
/// plan's origin rules an agent is judged by are `expect::origin`, below the runner.
const SHARED_FROM_REPLAY: &[&str] = &[
    "Trace",
    "Event",
    "Mode",
    "StepStatus",
    "Truth",
    "AskKind",
    "ReviewMessage",
    "ReadSource",
];

/// Files that still break the rule while their rework is under way. The test fails when one
/// is gone, so an entry cannot outlive its file.
const PENDING: &[&str] = &[];

/// The first name of each path `code` imports from `crate::{module}`: `crate::replay::Trace`
/// → `Trace`, `crate::replay::{Mode, web::landing}` → `Mode`, `web`; `crate::replay` alone →
/// the module's own name. Code from the first `#[cfg(test)]` on is test code.
fn imported_from(code: &str, module: &str) -> Vec<String> {
    let code = code.split("#[cfg(test)]").next().unwrap_or_default();
    let head = format!("crate::{module}");
    let mut out = Vec::new();
    for (i, _) in code.match_indices(&head) {
        let rest = &code[i + head.len()..];
        if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue; // `crate::replays`, not this module
        }
        let Some(rest) = rest.strip_prefix("::") else {
            out.push(module.to_string());
            continue;
        };
        let items = match rest.strip_prefix('{') {
            Some(group) => group[..group.find('}').unwrap_or(group.len())].to_string(),
            None => rest.to_string(),
        };
        let items: Vec<&str> = if rest.starts_with('{') {
            items.split(',').collect()
        } else {
            vec![&items]
        };
        for item in items {
            let name: String = item
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

/// Each import in `code` that a room in [`APART`] may not make.
fn reaches_in(code: &str) -> Vec<String> {
    let mut out: Vec<String> = imported_from(code, "replay")
        .into_iter()
        .filter(|n| !SHARED_FROM_REPLAY.contains(&n.as_str()))
        .map(|n| format!("replay::{n} (the runner)"))
        .collect();
    out.extend(
        imported_from(code, "report")
            .into_iter()
            .map(|n| format!("report::{n} (a reporter)")),
    );
    out
}

#[test]
fn front_doors_and_diff_import_neither_the_runner_nor_the_reporters() {
    let src = repo().join("harness/src");
    let mut problems = Vec::new();
    for p in PENDING {
        assert!(
            src.join(p).is_file(),
            "{p} is gone: remove it from PENDING in layers.rs"
        );
    }
    for room in APART {
        let mut files = Vec::new();
        walk(&src.join(room), &mut files);
        assert!(!files.is_empty(), "no files in harness/src/{room}");
        let test_only = test_only_files(&files);
        for f in files {
            let rel = f.strip_prefix(&src).unwrap();
            let name = f.file_name().unwrap().to_string_lossy();
            if test_only.contains(&f)
                || name == "tests.rs"
                || name.ends_with("_tests.rs")
                || PENDING.iter().any(|p| rel == Path::new(p))
            {
                continue;
            }
            let code = std::fs::read_to_string(&f).unwrap();
            for p in reaches_in(&code) {
                problems.push(format!("{}: {p}", rel.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "imports of the runner or the reporters:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_check_sees_a_front_door_reach_into_the_runner() {
    let code = "use crate::replay::{Event, Mode, Prepared, replay};\n\
                use crate::replay::web::landing;\n\
                let t: crate::replay::Trace = x;\n\
                let r = crate::report::Report::default();\n\
                #[cfg(test)]\nuse crate::replay::robustness;";
    assert_eq!(
        reaches_in(code),
        [
            "replay::Prepared (the runner)",
            "replay::replay (the runner)",
            "replay::web (the runner)",
            "report::Report (a reporter)"
        ]
    );
    assert_eq!(
        imported_from("use crate::replay;\nuse crate::replays::x;", "replay"),
        ["replay"]
    );
}
