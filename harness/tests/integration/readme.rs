//! Every command example in `README.md` and `docs/*.md` is real. A ```console block's
//! `$ …` lines are run and their output and exit code must match the document (the code an
//! `echo $?` after it shows, else 0); a ```sh (or `bash`, `shell`) block's commands cannot run in a test
//! and each is listed in [`NOT_RUN`] with the reason, so a command block that is neither run
//! nor listed fails, and so does a block without a language.
//!
//! Commands that only read (`check`, `fmt --check`, `show`, `diff`) run from the repository
//! root; the others (`run`, `merge`, `baseline`, `mutate`, `agent`, `import`, `record`, …) run
//! in order, in a temporary copy of the folders the document names with
//! `<!-- examples run in: FOLDER -->`, so nothing in the repository changes. Each line runs in
//! `sh` with the built binary first on the `PATH` (globs and pipes are the shell's; a
//! `cargo run --release --` prefix runs the built binary), its standard error after its
//! standard output. In the shown output a `…` line stands for any lines, a `…` inside a line
//! for any text, and a scenario's wall-clock time (` · 0.31 s`) for any time. A `$` line inside
//! an HTML comment runs without being shown: the setup a reader is told about in words.
//! `record` needs a live desktop (Xvfb, AT-SPI, openbox, zenity) and `record-browser`
//! Chromium: without them the rest of that block is skipped with a note, and under
//! `STEPREPLAY_REQUIRE_TOOLS=1` (as CI sets) the test fails instead.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{TempDir, copy_tree, have_tool};

/// Commands shown in a ```sh block that no test can run: (document, the command's start, why).
const NOT_RUN: &[(&str, &str, &str)] = &[(
    "README.md",
    "bash scripts/test",
    "it runs every test, this one among them",
)];

/// The fence languages that hold commands.
const COMMAND_LANGS: &[&str] = &["console", "sh", "bash", "shell", "zsh"];

/// One `$ …` line of a ```console block: where it is, its command line, the output and exit
/// code shown.
struct Example {
    file: PathBuf,
    line: usize,
    /// The fenced block it is in (the document's n-th), so a skip covers the rest of it.
    block: usize,
    command: String,
    /// Shown to the reader; a hidden one (in an HTML comment) is setup, its output unchecked.
    shown: bool,
    output: String,
    code: Option<i32>,
}

impl Example {
    /// The line `sh` runs: `cargo run --release -- ARGS` is the built binary with ARGS.
    fn runs(&self) -> String {
        match self.command.strip_prefix("cargo run --release -- ") {
            Some(args) => format!("stepreplay {args}"),
            None => self.command.clone(),
        }
    }

    /// The subcommand: the word after `stepreplay`, if it runs stepreplay.
    fn subcommand(&self) -> Option<String> {
        let runs = self.runs();
        let mut words = runs.split_whitespace();
        (words.next() == Some("stepreplay")).then(|| words.next().unwrap_or_default().to_string())
    }

    /// Whether it only reads: those run in the repository itself.
    fn reads_only(&self) -> bool {
        match self.subcommand().as_deref() {
            Some("check" | "show" | "diff") => true,
            Some("fmt") => self.command.split_whitespace().any(|a| a == "--check"),
            _ => false,
        }
    }

    /// Whether what it needs from outside Rust is here (see the module's doc).
    fn tools_here(&self) -> bool {
        match self.subcommand().as_deref() {
            Some("record") => crate::record::have_desktop(),
            Some("record-browser") => {
                have_tool("chromium", "scripts/install-test-deps installs chromium")
            }
            _ => true,
        }
    }
}

/// What a document's fenced blocks hold.
#[derive(Default)]
struct Blocks {
    examples: Vec<Example>,
    /// Commands of ```sh blocks: (line, command, continuation lines joined).
    unrun: Vec<(usize, String)>,
    /// Lines of fences that name no language.
    bare: Vec<usize>,
    /// ```json blocks shown as a repository file (the line before says "`PATH`:"): (line,
    /// path, the block).
    files: Vec<(usize, String, String)>,
}

fn blocks(file: &Path, text: &str) -> Blocks {
    let mut out = Blocks::default();
    let mut lang: Option<String> = None;
    let mut block = 0;
    let mut in_comment = false;
    let mut current: Option<Example> = None;
    let mut expect_code = false;
    let mut pending: Option<(usize, String)> = None;
    let mut before = "";
    let mut collecting = false;
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if line.starts_with("<!--") && !line.contains("-->") {
            in_comment = true;
        } else if in_comment && line.contains("-->") {
            in_comment = false;
        }
        if let Some(info) = line.strip_prefix("```") {
            out.examples.extend(current.take());
            if lang.take().is_none() {
                block += 1;
                if info.trim().is_empty() {
                    out.bare.push(n);
                }
                let named = before.strip_prefix('`').and_then(|b| b.strip_suffix("`:"));
                let named = named.filter(|_| info.trim() == "json");
                if let Some(path) = named {
                    out.files.push((n, path.to_string(), String::new()));
                }
                lang = Some(info.trim().to_string());
                collecting = named.is_some();
            } else {
                collecting = false;
            }
            continue;
        }
        if lang.is_none() && !line.trim().is_empty() {
            before = line;
        }
        match lang.as_deref() {
            Some("console") => {}
            Some("json") => {
                if let Some(file) = out.files.last_mut().filter(|_| collecting) {
                    file.2.push_str(line);
                    file.2.push('\n');
                }
                continue;
            }
            Some(l) if COMMAND_LANGS.contains(&l) => {
                let body = line.trim();
                if body.is_empty() || body.starts_with('#') {
                    continue;
                }
                let (at, mut cmd) = pending.take().unwrap_or((n, String::new()));
                match body.strip_suffix('\\') {
                    Some(head) => {
                        cmd.push_str(head.trim_end());
                        cmd.push(' ');
                        pending = Some((at, cmd));
                    }
                    None => {
                        cmd.push_str(body);
                        out.unrun.push((at, cmd));
                    }
                }
                continue;
            }
            _ => continue,
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            if cmd == "echo $?" {
                expect_code = true;
                continue;
            }
            out.examples.extend(current.take());
            current = Some(Example {
                file: file.to_path_buf(),
                line: n,
                block,
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
    out.examples.extend(current);
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

/// Whether the line `got` is the shown line `want`, a `…` in it standing for any text.
fn line_shows(want: &str, got: &str) -> bool {
    let mut parts = want.split('…');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = got.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
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
                j < got.len() && line_shows(want[i], got[j]) && fits[i + 1][j + 1]
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

/// Runs `ex` in `cwd`; the drift, if its output or exit code is not the one shown.
fn check_example(ex: &Example, cwd: &Path) -> Result<(), String> {
    let (output, code) = run_example(cwd, &ex.runs());
    if !ex.shown {
        return Ok(());
    }
    let place = format!("{}:{}", ex.file.display(), ex.line);
    let said = format!("$ {}\n{output}(exit {code})", ex.command);
    if !shows(&ex.output, &output) {
        return Err(format!(
            "{place} shows other output for `{}`:\n{}\n--- the command printed ---\n{said}",
            ex.command, ex.output
        ));
    }
    // Without an `echo $?` after it, a shown command is one that succeeds.
    let want = ex.code.unwrap_or(0);
    if want != code {
        let shown = match ex.code {
            Some(c) => format!("exit {c} is shown"),
            None => "no `echo $?` follows, so it must exit 0".into(),
        };
        return Err(format!(
            "{place}: {shown}; the command exited {code}\n{said}"
        ));
    }
    Ok(())
}

/// What one document's examples did: the subcommands run (or skipped for a missing tool),
/// how many only read, and every drift.
#[derive(Default)]
struct Outcome {
    read: usize,
    wrote: Vec<String>,
    drift: Vec<String>,
}

/// Runs every example of the document `doc` (see the module's doc).
fn run_document(root: &Path, doc: &Path) -> Outcome {
    let text = std::fs::read_to_string(doc).unwrap();
    let name = doc.strip_prefix(root).unwrap_or(doc).display().to_string();
    let found = blocks(Path::new(&name), &text);
    let mut out = Outcome::default();
    for line in &found.bare {
        out.drift.push(format!(
            "{name}:{line}: a code block without a language: say what it holds \
             (```console for commands the test runs, ```text, ```json, …)"
        ));
    }
    for (line, cmd) in &found.unrun {
        if !NOT_RUN
            .iter()
            .any(|(d, start, _)| *d == name && cmd.starts_with(start))
        {
            out.drift.push(format!(
                "{name}:{line}: `{cmd}` is neither run nor listed: make it a ```console block \
                 with its output (`…` where it varies), or list it in readme.rs's NOT_RUN with why"
            ));
        }
    }
    for (line, path, shown) in &found.files {
        let parsed = |t: &str| serde_json::from_str::<serde_json::Value>(t).ok();
        let file = std::fs::read_to_string(root.join(path)).unwrap_or_default();
        if parsed(shown).is_none() || parsed(shown) != parsed(&file) {
            out.drift.push(format!(
                "{name}:{line}: the block shown as `{path}` is not that file: copy the file in"
            ));
        }
    }
    let (reading, writing): (Vec<&Example>, Vec<&Example>) =
        found.examples.iter().partition(|ex| ex.reads_only());
    for ex in reading {
        out.drift.extend(check_example(ex, root).err());
        out.read += 1;
    }
    if writing.is_empty() {
        return out;
    }
    let Some(suite) = suite_of(&text) else {
        out.drift.push(format!(
            "{name} has examples that write ({}): name the suite they run in a copy of, \
             `<!-- examples run in: FOLDER -->`",
            writing[0].command
        ));
        return out;
    };
    let copy = TempDir::new("docs-examples");
    for (from, to) in suite {
        copy_tree(&root.join(from), &copy.path().join(to));
    }
    let mut skipped_block = None;
    for ex in writing {
        if skipped_block == Some(ex.block) {
            continue;
        }
        out.wrote.extend(ex.subcommand());
        if !ex.tools_here() {
            skipped_block = Some(ex.block);
            continue;
        }
        out.drift.extend(check_example(ex, copy.path()).err());
    }
    out
}

#[test]
fn docs_examples_are_real_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = root.as_path();
    let docs = documents(root);
    // Documents are independent (each has its own copy), so they run side by side.
    let outcomes: Vec<Outcome> = std::thread::scope(|s| {
        let handles: Vec<_> = docs
            .iter()
            .map(|doc| s.spawn(move || run_document(root, doc)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let drift: Vec<&String> = outcomes.iter().flat_map(|o| &o.drift).collect();
    assert!(
        drift.is_empty(),
        "{} example(s) drifted from the documents:\n\n{}",
        drift.len(),
        drift
            .iter()
            .map(|d| d.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    let read: usize = outcomes.iter().map(|o| o.read).sum();
    assert!(
        read >= 8,
        "only {read} reading examples ran: the README and docs show check, fmt, show and diff"
    );
    let wrote: Vec<&String> = outcomes.iter().flat_map(|o| &o.wrote).collect();
    for sub in [
        "run",
        "merge",
        "baseline",
        "mutate",
        "agent",
        "import",
        "record",
        "record-browser",
    ] {
        assert!(
            wrote.iter().any(|w| *w == sub),
            "no `{sub}` example ran: {wrote:?}"
        );
    }
    for (doc, start, _) in NOT_RUN {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        assert!(
            blocks(Path::new(doc), &text)
                .unrun
                .iter()
                .any(|(_, cmd)| cmd.starts_with(start)),
            "NOT_RUN lists `{start}` in {doc}, which no longer shows it"
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
fn an_ellipsis_inside_a_line_stands_for_any_text_there() {
    let got = "recorded 5 steps on :0 (Xvfb started here) into suite\n";
    assert!(shows("recorded 5 steps on … into suite\n", got));
    assert!(shows("recorded … steps on … into …\n", got));
    assert!(shows("…suite\n", got));
    assert!(!shows("recorded 6 steps on … into suite\n", got));
    assert!(
        !shows("recorded 5 steps on … into", got),
        "the rest is shown"
    );
    assert!(line_shows("a…a", "aa") && !line_shows("a…a", "a"));
}

#[test]
fn hidden_setup_runs_and_the_suite_is_named() {
    let text = "<!-- examples run in: harness/tests/fixtures/mini as ., examples -->\n\
                <!--\n```console\n$ stepreplay run scenarios -q\n```\n-->\n\
                ```console\n$ stepreplay baseline accept\nx\n$ echo $?\n0\n```\n";
    let ex = blocks(Path::new("x.md"), text).examples;
    assert_eq!(ex.len(), 2);
    assert!(!ex[0].shown && ex[1].shown);
    assert_eq!((ex[1].output.as_str(), ex[1].code), ("x\n", Some(0)));
    assert_ne!(ex[0].block, ex[1].block);
    assert_eq!(
        suite_of(text),
        Some(vec![
            ("harness/tests/fixtures/mini", "."),
            ("examples", "examples")
        ])
    );
}

#[test]
fn sh_commands_and_bare_fences_are_found_for_the_check() {
    let text = "```sh\n# a comment\ncargo run --release -- record --xvfb \\\n  --out x\n\
                bash scripts/test\n```\n\n```\nplain\n```\n```json\n{}\n```\n\
                ```console\n$ cargo run --release -- run -q\n…\n```\n";
    let b = blocks(Path::new("x.md"), text);
    assert_eq!(
        b.unrun,
        vec![
            (
                3,
                "cargo run --release -- record --xvfb --out x".to_string()
            ),
            (5, "bash scripts/test".to_string())
        ]
    );
    assert_eq!(b.bare, vec![8]);
    assert!(b.files.is_empty(), "a json block not named as a file");
    let named = blocks(
        Path::new("x.md"),
        "`a/b.json`:\n\n```json\n{\"x\": 1}\n```\n",
    );
    assert_eq!(
        named.files,
        vec![(3, "a/b.json".into(), "{\"x\": 1}\n".into())]
    );
    assert_eq!(b.examples.len(), 1);
    assert_eq!(b.examples[0].runs(), "stepreplay run -q");
    assert_eq!(b.examples[0].subcommand().as_deref(), Some("run"));
}
