//! The repository stands alone: no tracked file names a path outside it. A fresh clone has
//! nothing beside it, so a test, a script or a README example that reaches out passes only on
//! the machines that happen to have that folder.

use std::path::{Component, Path, PathBuf};
use std::process::Command;

use crate::util::repo;

/// Names that are never inside the repository: the team's hand-off folder beside the checkout
/// and this workplace's absolute roots. Written in pieces so this file does not name them.
fn outside_names() -> [String; 3] {
    [
        format!("..{}shared", '/'),
        format!("{}work{}", '/', '/'),
        format!("{}root{}", '/', '/'),
    ]
}

/// Every tracked file (`git ls-files`); a copy without `.git` is walked instead, skipping what
/// the build and the suite write.
fn repository_files(root: &Path) -> Vec<PathBuf> {
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success() && !o.stdout.is_empty());
    if let Some(o) = listed {
        return o
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
            .filter(|p| root.join(p).is_file())
            .collect();
    }
    let mut out = Vec::new();
    let mut todo = vec![PathBuf::new()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(root.join(&dir)).unwrap().flatten() {
            let rel = dir.join(entry.file_name());
            let skip = [".git", "target", "reports"]
                .iter()
                .any(|s| rel == Path::new(s));
            match entry.file_type() {
                Ok(t) if t.is_dir() && !skip => todo.push(rel),
                Ok(t) if t.is_file() => out.push(rel),
                _ => {}
            }
        }
    }
    out
}

/// Lexically resolves `path` against `base` (both relative to the repository root); `None`
/// when it climbs above the root.
fn resolve(base: &Path, path: &str) -> Option<PathBuf> {
    let mut at: Vec<Component> = base.components().collect();
    for c in Path::new(path.trim_start_matches('/')).components() {
        match c {
            Component::ParentDir => {
                at.pop()?;
            }
            Component::CurDir => {}
            other => at.push(other),
        }
    }
    Some(at.iter().collect())
}

/// The crate folder (nearest `Cargo.toml`) holding `file`, for paths joined to
/// `CARGO_MANIFEST_DIR`.
fn crate_dir(root: &Path, file: &Path) -> PathBuf {
    let mut dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
    while !dir.as_os_str().is_empty() && !root.join(&dir).join("Cargo.toml").is_file() {
        dir.pop();
    }
    dir
}

/// The places in one file's text that name something outside the repository, as
/// `line: reason`.
fn findings(root: &Path, file: &Path, text: &str) -> Vec<String> {
    let names = outside_names();
    let mut out = Vec::new();
    let file_dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        for name in &names {
            if line.contains(name.as_str()) {
                out.push(format!("{}: names `{name}`", i + 1));
            }
        }
        // A relative path is read from where the code anchors it: the crate folder after
        // `CARGO_MANIFEST_DIR` (this line or the two before), the repository root after
        // `repo()`, otherwise the file's own folder (Markdown links, scripts' `dirname $0`).
        let context = lines[i.saturating_sub(2)..=i].concat();
        let base = if context.contains("CARGO_MANIFEST_DIR") {
            crate_dir(root, file)
        } else if line.contains("repo()") {
            PathBuf::new()
        } else {
            file_dir.clone()
        };
        let mut rest = *line;
        while let Some(at) = rest.find("../") {
            let start = if rest[..at].ends_with('/') {
                at - 1
            } else {
                at
            };
            let path: String = rest[start..]
                .chars()
                .take_while(|c| !c.is_whitespace() && !"\"'`()[]<>,;".contains(*c))
                .collect();
            if resolve(&base, &path).is_none() {
                out.push(format!(
                    "{}: `{path}` climbs out of the repository from `{}/`",
                    i + 1,
                    base.display()
                ));
            }
            rest = &rest[start + path.len().max(3)..];
        }
    }
    out
}

#[test]
fn no_file_in_the_repository_names_a_path_outside_it() {
    let root = repo();
    let files = repository_files(&root);
    assert!(files.len() > 100, "only {} files found", files.len());
    let mut bad = Vec::new();
    let mut read = 0;
    for file in &files {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue; // binary: PNGs
        };
        read += 1;
        for f in findings(&root, file, &text) {
            bad.push(format!("{}:{f}", file.display()));
        }
    }
    assert!(read > 100, "only {read} text files read");
    assert!(
        bad.is_empty(),
        "a fresh clone has nothing beside it: copy what these need into the repository \
         (corpora/ for test material) and point at the copy:\n{}",
        bad.join("\n")
    );
}

/// The check itself: each way out is caught, and the repository's own ways of naming its
/// files are not. `^` stands for `..` so that this file itself names no way out.
#[test]
fn the_outside_path_check_catches_each_way_out() {
    let root = repo();
    let rust = Path::new("harness/src/diff/pixel.rs");
    let readme = Path::new("README.md");
    let out_of = |file: &Path, text: &str| findings(&root, file, &text.replace('^', "..")).len();
    assert_eq!(out_of(rust, r#"let p = "^/shared/corpora/x.png";"#), 1);
    assert_eq!(
        out_of(rust, &format!(r#"let p = "{}";"#, outside_names()[1])),
        1
    );
    // The crate is `harness/`: one `..` reaches the root, two leave it.
    let manifest = r#"concat!(env!("CARGO_MANIFEST_DIR"), "/^/^/elsewhere/x.png")"#;
    assert_eq!(out_of(rust, manifest), 1);
    let inside = r#"concat!(env!("CARGO_MANIFEST_DIR"), "/^/corpora/x.png")"#;
    assert_eq!(out_of(rust, inside), 0);
    assert_eq!(out_of(rust, r#"repo().join("^/elsewhere")"#), 1);
    assert_eq!(out_of(rust, r#"repo().join("corpora/x")"#), 0);
    assert_eq!(out_of(readme, "see [the design](^/DESIGN.md)"), 1);
    assert_eq!(
        out_of(Path::new("benches/README.md"), "[up](^/README.md)"),
        0
    );
    assert_eq!(out_of(readme, "cargo run -- import corpora/real-gtk"), 0);
}
