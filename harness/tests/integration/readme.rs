//! The `console` examples in `README.md` and `docs/*.md` are real: each `$ stepreplay …` line
//! that only reads (`check`, `fmt --check`, `show`, `diff`) is run from the repository root,
//! piped through `head -N` or `grep WORD` when the example is, and its output (and exit code,
//! where an `echo $?` follows) must match the document byte for byte.

use std::path::{Path, PathBuf};

use crate::util::stepreplay;

/// One `$ stepreplay …` example: where it is, its arguments, its pipe, the output and exit code shown.
struct Example {
    file: PathBuf,
    args: Vec<String>,
    pipe: Option<Pipe>,
    output: String,
    code: Option<i32>,
}

enum Pipe {
    Head(usize),
    Grep(String),
}

impl Pipe {
    fn parse(text: &str) -> Pipe {
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["head", n] => Pipe::Head(
                n.trim_start_matches('-')
                    .parse()
                    .unwrap_or_else(|_| panic!("`| {text}`: head takes -N")),
            ),
            ["grep", word] => Pipe::Grep((*word).to_string()),
            _ => panic!("the docs test runs `| head -N` and `| grep WORD`, not `| {text}`"),
        }
    }

    fn apply(&self, out: &str) -> String {
        let keep: Vec<&str> = match self {
            Pipe::Head(n) => out.lines().take(*n).collect(),
            Pipe::Grep(word) => out.lines().filter(|l| l.contains(word.as_str())).collect(),
        };
        keep.iter().map(|l| format!("{l}\n")).collect()
    }
}

fn examples(file: &Path, text: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    let mut current: Option<Example> = None;
    let mut expect_code = false;
    for line in text.lines() {
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
            let (cmd, pipe) = match cmd.split_once(" | ") {
                Some((cmd, pipe)) => (cmd, Some(Pipe::parse(pipe))),
                None => (cmd, None),
            };
            current = cmd.strip_prefix("stepreplay ").map(|rest| Example {
                file: file.to_path_buf(),
                args: rest.split_whitespace().map(str::to_string).collect(),
                pipe,
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

/// Only commands that read: other examples (`run`, `fmt` in place, `baseline accept`) write files.
fn reads_only(ex: &Example) -> bool {
    match ex.args.first().map(String::as_str) {
        Some("check" | "show" | "diff") => true,
        Some("fmt") => ex.args.iter().any(|a| a == "--check"),
        _ => false,
    }
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

#[test]
fn docs_examples_are_real_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut run = 0;
    for doc in documents(&root) {
        let text = std::fs::read_to_string(&doc).unwrap();
        for ex in examples(&doc, &text).into_iter().filter(reads_only) {
            let result = stepreplay(&root).args(&ex.args).run();
            let shown = match &ex.pipe {
                Some(pipe) => pipe.apply(&result.stdout),
                None => result.stdout.clone(),
            };
            let place = ex.file.display();
            result.check(
                shown == ex.output,
                &format!("{place} shows other output:\n{}", ex.output),
            );
            if let Some(code) = ex.code {
                result.check(
                    code == result.code,
                    &format!("{place} shows another exit code"),
                );
            }
            run += 1;
        }
    }
    assert!(
        run >= 8,
        "only {run} examples ran: the README and docs show check, fmt, show and diff examples"
    );
}

#[test]
fn a_pipe_the_docs_test_cannot_run_is_refused() {
    let text = "```console\n$ stepreplay show x | sort\n```\n";
    let refused = std::panic::catch_unwind(|| examples(Path::new("x.md"), text));
    assert!(refused.is_err());
}
