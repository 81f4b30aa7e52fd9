//! The `console` examples in `README.md` and `docs/*.md` are real: each `$ stepreplay …` line
//! is run and its output (and exit code, where an `echo $?` follows) must match the document.
//! Commands that only read (`check`, `fmt --check`, `show`, `diff`) run from the repository
//! root; the others (`run`, `merge`, `baseline`, `mutate`, `agent`) run in order, in a temporary
//! copy of the suite the document names with `<!-- examples run in: FOLDER -->`, so nothing in
//! the repository changes. Each line runs in `sh` with the built binary first on the `PATH`
//! (globs and pipes are the shell's), its standard error after its standard output. In the
//! shown output a `…` line stands for any lines, and a scenario's wall-clock time
//! (` · 0.31 s`) for any time. A `$` line inside an HTML comment runs without being shown: the
//! setup a reader is told about in words.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{TempDir, copy_tree};

/// One `$ stepreplay …` example: where it is, its command line, the output and exit code shown.
struct Example {
    file: PathBuf,
    command: String,
    /// Shown to the reader; a hidden one (in an HTML comment) is setup, its output unchecked.
    shown: bool,
    output: String,
    code: Option<i32>,
}

impl Example {
    /// The subcommand: the word after `stepreplay`.
    fn subcommand(&self) -> &str {
        self.command.split_whitespace().nth(1).unwrap_or_default()
    }

    /// Whether it only reads: those run in the repository itself.
    fn reads_only(&self) -> bool {
        match self.subcommand() {
            "check" | "show" | "diff" => true,
            "fmt" => self.command.split_whitespace().any(|a| a == "--check"),
            _ => false,
        }
    }
}

fn examples(file: &Path, text: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    let mut in_comment = false;
    let mut current: Option<Example> = None;
    let mut expect_code = false;
    for line in text.lines() {
        if line.starts_with("<!--") && !line.contains("-->") {
            in_comment = true;
        } else if in_comment && line.contains("-->") {
            in_comment = false;
        }
        if line.starts_with("```") {
            in_console = line == "```console";
            out.extend(current.take());
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            if cmd == "echo $?" {
                expect_code = true;
                continue;
            }
            out.extend(current.take());
            // Hidden setup may be any command (an edit a reader is told about in words).
            current = (cmd.starts_with("stepreplay ") || in_comment).then(|| Example {
                file: file.to_path_buf(),
                command: cmd.to_string(),
                shown: !in_comment,
                output: String::new(),
                code: None,
            });
        } else if let Some(ex) = current.as_mut() {
            if expect_code {
                ex.code = line.parse().ok();
                expect_code = false;
            } else {
                ex.output.push_str(line);
                ex.output.push('\n');
            }
        }
    }
    out.extend(current);
    out
}

/// What a document's writing examples run in a copy of, from its
/// `<!-- examples run in: FOLDER[ as DEST], … -->` line: repository folders, each copied to
/// DEST (by default its own path) in a fresh folder.
fn suite_of(text: &str) -> Option<Vec<(&str, &str)>> {
    let list = text.lines().find_map(|l| {
        l.strip_prefix("<!-- examples run in: ")
            .and_then(|rest| rest.strip_suffix(" -->"))
    })?;
    Some(
        list.split(", ")
            .map(|e| e.split_once(" as ").unwrap_or((e, e)))
            .collect(),
    )
}

/// Runs `command` in `sh` in `cwd`, the built binary first on the PATH, standard error after
/// standard output; returns (output, exit code).
fn run_example(cwd: &Path, command: &str) -> (String, i32) {
    let bin = Path::new(env!("CARGO_BIN_EXE_stepreplay"))
        .parent()
        .expect("the binary is in a folder");
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1; {command}"))
        .current_dir(cwd)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap_or_else(|e| panic!("cannot run sh: {e}"));
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// Whether `actual` is what `shown` shows: line by line, a `…` line standing for any lines.
fn shows(shown: &str, actual: &str) -> bool {
    let (shown, actual) = (
        crate::util::without_times(shown),
        crate::util::without_times(actual),
    );
    let want: Vec<&str> = shown.lines().collect();
    let got: Vec<&str> = actual.lines().collect();
    // fits[i][j]: want[i..] matches got[j..].
    let mut fits = vec![vec![false; got.len() + 1]; want.len() + 1];
    fits[want.len()][got.len()] = true;
    for i in (0..want.len()).rev() {
        for j in (0..=got.len()).rev() {
            fits[i][j] = if want[i] == "…" {
                fits[i + 1][j] || (j < got.len() && fits[i][j + 1])
            } else {
                j < got.len() && want[i] == got[j] && fits[i + 1][j + 1]
            };
        }
    }
    fits[0][0]
}

fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs = vec![root.join("README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

fn check_example(ex: &Example, cwd: &Path) {
    let (output, code) = run_example(cwd, &ex.command);
    let place = ex.file.display();
    let said = format!("$ {}\n{output}(exit {code})", ex.command);
    if !ex.shown {
        return;
    }
    assert!(
        shows(&ex.output, &output),
        "{place} shows other output for `{}`:\n{}\n--- the command printed ---\n{said}",
        ex.command,
        ex.output
    );
    if let Some(want) = ex.code {
        assert_eq!(want, code, "{place}: another exit code\n{said}");
    }
}

#[test]
fn docs_examples_are_real_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (mut read, mut wrote) = (0, Vec::new());
    for doc in documents(&root) {
        let text = std::fs::read_to_string(&doc).unwrap();
        let all = examples(&doc, &text);
        let (reading, writing): (Vec<&Example>, Vec<&Example>) =
            all.iter().partition(|ex| ex.reads_only());
        for ex in reading {
            check_example(ex, &root);
            read += 1;
        }
        if writing.is_empty() {
            continue;
        }
        let suite = suite_of(&text).unwrap_or_else(|| {
            panic!(
                "{} has examples that write ({}): name the suite they run in a copy of, \
                 `<!-- examples run in: FOLDER -->`",
                doc.display(),
                writing[0].command
            )
        });
        let copy = TempDir::new("docs-examples");
        for (from, to) in suite {
            copy_tree(&root.join(from), &copy.path().join(to));
        }
        for ex in writing {
            check_example(ex, copy.path());
            wrote.push(ex.subcommand().to_string());
        }
    }
    assert!(
        read >= 8,
        "only {read} reading examples ran: the README and docs show check, fmt, show and diff"
    );
    for sub in ["run", "merge", "baseline", "mutate", "agent"] {
        assert!(
            wrote.iter().any(|w| w == sub),
            "no `{sub}` example ran: {wrote:?}"
        );
    }
}

#[test]
fn a_shown_output_elides_with_an_ellipsis_line_and_ignores_times() {
    let got = "a\nb\nc\nok   x · 0.31 s\n";
    assert!(shows("a\n…\nok   x · 0.02 s\n", got));
    assert!(shows("…\n", got));
    assert!(shows("a\nb\nc\n…\n", got));
    assert!(!shows("a\nc\n…\n", got), "an elision is only where shown");
    assert!(!shows("a\n…\nd\n", got));
    assert!(
        !shows("a\nb\n", got),
        "a line left out without `…` is drift"
    );
}

#[test]
fn hidden_setup_runs_and_the_suite_is_named() {
    let text = "<!-- examples run in: harness/tests/fixtures/mini as ., examples -->\n\
                <!--\n```console\n$ stepreplay run scenarios -q\n```\n-->\n\
                ```console\n$ stepreplay baseline accept\nx\n$ echo $?\n0\n```\n";
    let ex = examples(Path::new("x.md"), text);
    assert_eq!(ex.len(), 2);
    assert!(!ex[0].shown && ex[1].shown);
    assert_eq!((ex[1].output.as_str(), ex[1].code), ("x\n", Some(0)));
    assert_eq!(
        suite_of(text),
        Some(vec![
            ("harness/tests/fixtures/mini", "."),
            ("examples", "examples")
        ])
    );
}
