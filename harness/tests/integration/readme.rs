//! The README's `stepreplay check` and `stepreplay fmt --check` examples are real: each is run from
//! the repository root and its output (and exit code, where the README shows `echo $?`) must
//! match the README byte for byte.

use std::path::Path;

use crate::util::stepreplay;

/// One `$ stepreplay …` example: its arguments, the output shown, the exit code shown.
struct Example {
    args: Vec<String>,
    output: String,
    code: Option<i32>,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    let mut current: Option<Example> = None;
    let mut expect_code = false;
    for line in readme.lines() {
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
            current = cmd.strip_prefix("stepreplay ").map(|rest| Example {
                args: rest.split_whitespace().map(str::to_string).collect(),
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

#[test]
fn readme_examples_are_real_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(
        examples.len() >= 4,
        "the README shows check and fmt examples"
    );
    // Only commands that read: other sections' examples (`run`, `fmt` in place) write files.
    let readonly = |ex: &Example| match ex.args.first().map(String::as_str) {
        Some("check") => true,
        Some("fmt") => ex.args.iter().any(|a| a == "--check"),
        _ => false,
    };
    let examples: Vec<Example> = examples.into_iter().filter(readonly).collect();
    assert!(
        examples.len() >= 4,
        "the README shows check and fmt examples"
    );
    for ex in examples {
        let run = stepreplay(&root).args(&ex.args).run();
        run.check(run.stdout == ex.output, "the README shows other output");
        if let Some(code) = ex.code {
            run.check(run.code == code, "the README shows another exit code");
        }
    }
}
