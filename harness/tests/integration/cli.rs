//! Command-line conventions every subcommand keeps: `--color` and `-q` everywhere, `--format`
//! as what is printed, folders and `-` for `check` and `fmt`, SARIF, exit codes that tell a
//! mistyped command line from bad input, and an example in every `--help`.

use serde_json::Value;

use crate::util::{TempDir, have_tool, plans_dir, repo, stepreplay};

const SEVERAL: &str = "broken/several-field-errors.json";

/// The fixture suite the replay tests share.
fn mini() -> std::path::PathBuf {
    repo().join("harness/tests/fixtures/mini")
}

#[test]
fn a_mistyped_command_line_exits_64_and_bad_input_exits_2() {
    let dir = plans_dir();
    for args in [
        &["run", "--bogus"][..],
        &["check"],
        &["run", "--tolerance", "-1", "scenarios"],
        &["check", "--format", "yaml", "seed-mail.json"],
        &["run", "a.json", "b.json", "--recording", "rec"],
    ] {
        let r = stepreplay(&dir).args(args).run();
        r.check(r.code == 64, "a usage error exits 64");
    }
    let r = stepreplay(&dir).args(["check", "no-such-plan.json"]).run();
    r.check(r.code == 2, "a missing file is bad input: exit 2");
    for help in [&["--help"][..], &["check", "--help"], &["--version"]] {
        stepreplay(&dir).args(help).expect_code(0);
    }
}

#[test]
fn color_and_quiet_are_taken_before_or_after_the_command() {
    let dir = plans_dir();
    let painted = |r: &crate::util::Run| r.stdout.contains("\x1b[1;31merror\x1b[0m");
    // NO_COLOR is set and stdout is a pipe: `always` still paints, `auto` does not.
    let always = stepreplay(&dir)
        .args(["--color", "always", "check", SEVERAL])
        .run();
    always.check(painted(&always), "--color always paints");
    let after = stepreplay(&dir)
        .args(["check", SEVERAL, "--color=always"])
        .run();
    after.check(painted(&after), "the flag works after the command too");
    let auto = stepreplay(&dir).args(["check", SEVERAL]).run();
    auto.check(
        !auto.stdout.contains('\x1b'),
        "auto does not paint into a pipe",
    );
    let never = stepreplay(&dir)
        .args(["check", SEVERAL, "--color", "never"])
        .run();
    never.check(!never.stdout.contains('\x1b'), "never paints nothing");

    let quiet = stepreplay(&dir)
        .args(["-q", "check", "seed-mail.json"])
        .run();
    quiet.check(
        quiet.code == 0 && quiet.stdout.is_empty(),
        "a clean plan under -q prints nothing",
    );
    let loud = stepreplay(&dir).args(["check", "seed-mail.json"]).run();
    loud.check(loud.stdout.contains("clean"), "without -q it says clean");
}

#[test]
fn quiet_run_prints_failures_and_the_verdict_only() {
    let root = mini();
    let loud = stepreplay(&root)
        .args(["run", "scenarios/mini-completed.json", "--reports", "json"])
        .args(["--report-dir"])
        .arg(TempDir::new("loud").path())
        .expect_code(0);
    loud.check(
        loud.stdout.contains("ok   mini-completed"),
        "a line per scenario",
    );
    let out = TempDir::new("quiet");
    let quiet = stepreplay(&root)
        .args([
            "run",
            "-q",
            "scenarios/mini-completed.json",
            "--reports",
            "json",
        ])
        .args(["--report-dir"])
        .arg(out.path())
        .expect_code(0);
    let lines: Vec<&str> = quiet.stdout.lines().collect();
    quiet.check(
        lines.len() == 1 && lines[0].starts_with("1 scenario: 1 as expected, 0 not"),
        "-q prints the verdict line alone",
    );
}

#[test]
fn run_format_json_prints_the_report_and_reports_picks_the_files() {
    let root = mini();
    let out = TempDir::new("json");
    let r = stepreplay(&root)
        .args(["run", "scenarios/mini-completed.json", "--format", "json"])
        .args(["--reports", "json,markdown", "--report-dir"])
        .arg(out.path())
        .expect_code(0);
    let written = std::fs::read_to_string(out.path().join("report.json")).unwrap();
    r.check(
        r.stdout == written,
        "stdout is exactly the report.json written",
    );
    r.check(
        r.stderr.contains("1 scenario: 1 as expected"),
        "the verdict goes to stderr, leaving stdout to the JSON",
    );
    let files = |name: &str| out.path().join(name).exists();
    assert!(files("summary.md") && !files("junit.xml") && !files("index.html"));
}

#[test]
fn check_reads_a_plan_from_stdin() {
    let dir = plans_dir();
    let seed = std::fs::read_to_string(dir.join("seed-mail.json")).unwrap();
    let r = stepreplay(&dir).args(["check", "-"]).run_with_stdin(&seed);
    r.check(
        r.code == 0 && r.stdout == "<stdin>: clean\n",
        "the seed plan on stdin is clean",
    );
    let broken = std::fs::read_to_string(dir.join(SEVERAL)).unwrap();
    let r = stepreplay(&dir)
        .args(["check", "-"])
        .run_with_stdin(&broken);
    r.check(
        r.code == 2
            && r.stdout
                .contains("--> <stdin>:40:17 at `steps[0].target.labl`"),
        "findings on stdin are placed at <stdin>:LINE:COL",
    );
}

#[test]
fn check_searches_folders_and_refuses_an_empty_one() {
    let dir = plans_dir();
    let r = stepreplay(&dir).args(["check", "-q", "."]).run();
    // Every broken fixture is found and fails, but the two that are JSON without any plan's
    // shape: a walk cannot tell them from other JSON (named, they are checked).
    let shapeless = ["broken/missing-schema.json", "broken/not-an-object.json"];
    let mut want: Vec<String> = std::fs::read_dir(dir.join("broken"))
        .unwrap()
        .map(|e| format!("broken/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|f| !shapeless.contains(&f.as_str()))
        .collect();
    want.sort();
    let reported: std::collections::BTreeSet<&str> = r
        .stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("--> ./"))
        .filter_map(|l| l.split([':', ' ']).next())
        .collect();
    // Valid plans (`valid-heldout/`) may carry warnings; no error is among them.
    let valid_with_errors = r
        .stdout
        .lines()
        .zip(r.stdout.lines().skip(1))
        .any(|(a, b)| a.starts_with("error[") && b.contains("--> ./valid-heldout/"));
    r.check(!valid_with_errors, "a held-out valid plan has an error");
    let reported: Vec<&str> = reported
        .into_iter()
        .filter(|f| f.starts_with("broken/"))
        .collect();
    r.check(
        reported == want && r.code == 2,
        "every broken fixture reports from a folder walk",
    );
    for f in shapeless {
        stepreplay(&dir).args(["check", f]).expect_code(2);
    }
    let empty = TempDir::new("empty");
    std::fs::write(empty.path().join("notes.json"), "{\"not\": \"a plan\"}").unwrap();
    let r = stepreplay(empty.path()).args(["check", "."]).run();
    r.check(
        r.code == 2 && r.stdout.contains("no-plans"),
        "a folder with no plans is not clean",
    );
    let r = stepreplay(empty.path()).args(["fmt", "."]).run();
    r.check(
        r.code == 2 && r.stderr.contains("no-plans"),
        "fmt says so too",
    );
}

#[test]
fn fmt_reads_stdin_and_writes_the_canonical_text_to_stdout() {
    let dir = plans_dir();
    let seed = std::fs::read_to_string(dir.join("seed-mail.json")).unwrap();
    let messy = std::fs::read_to_string(dir.join("broken/non-canonical.json")).unwrap();
    assert_ne!(messy, seed);
    let r = stepreplay(&dir).args(["fmt", "-"]).run_with_stdin(&messy);
    // non-canonical.json is the seed plan laid out differently.
    r.check(
        r.code == 0 && r.stdout == seed,
        "stdout is the canonical plan",
    );
    let r = stepreplay(&dir)
        .args(["fmt", "--check", "-"])
        .run_with_stdin(&messy);
    r.check(
        r.code == 1 && r.stdout.contains("--- <stdin>"),
        "--check on stdin shows the diff and exits 1",
    );
    // A folder: every plan under it, formatted in place.
    let tmp = TempDir::new("fmt-folder");
    std::fs::create_dir_all(tmp.path().join("a/b")).unwrap();
    std::fs::write(tmp.path().join("a/b/plan.json"), &messy).unwrap();
    std::fs::write(tmp.path().join("a/other.json"), "{\"keep\":  1}").unwrap();
    let r = stepreplay(tmp.path()).args(["fmt", "a"]).run();
    r.check(r.code == 0, "fmt on a folder formats its plans");
    let formatted = std::fs::read_to_string(tmp.path().join("a/b/plan.json")).unwrap();
    assert_eq!(formatted, seed);
    let other = std::fs::read_to_string(tmp.path().join("a/other.json")).unwrap();
    assert_eq!(
        other, "{\"keep\":  1}",
        "JSON that is not a plan is left alone"
    );
    // The checked-in suite: every plan file canonical; get_guide responses (transport, not
    // saved plans), recordings and scenario files passed over.
    let r = stepreplay(repo())
        .args(["fmt", "--check", "scenarios"])
        .run();
    r.check(
        r.code == 0 && r.stdout.is_empty(),
        "the suite's plans are canonical",
    );
}

#[test]
fn check_collects_every_field_error_with_did_you_mean() {
    let dir = plans_dir();
    let r = stepreplay(&dir)
        .args(["check", "--format", "json", SEVERAL])
        .run();
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let found: Vec<(&str, &str)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["hint"].as_str().unwrap()))
        .collect();
    assert_eq!(
        found,
        [
            ("guide.titel", "did you mean `title`?"),
            (
                "steps[0].click.count",
                "write a whole number from 0 to 255 here"
            ),
            ("steps[0].target.labl", "did you mean `label`?"),
            ("steps[1].action", "did you mean `type`?"),
        ],
        "{r}"
    );
    // `labl` is the root cause: `label` is never reported missing beside it.
    assert!(!r.stdout.contains("missing field"), "{}", r.stdout);
}

#[test]
fn sarif_output_is_one_document_with_every_finding_placed() {
    let dir = plans_dir();
    let r = stepreplay(&dir)
        .args(["check", "--format", "sarif", SEVERAL, "seed-mail.json"])
        .run();
    r.check(r.code == 2, "the exit code is the worst file's");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 4, "{}", r.stdout);
    for res in results {
        let loc = &res["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], SEVERAL);
        assert!(loc["region"]["startLine"].as_u64().unwrap() > 1);
        assert_eq!(res["level"], "error");
        assert_eq!(res["ruleId"], "invalid-field");
    }
}

#[test]
fn every_command_has_an_example_in_its_help() {
    let top = stepreplay(repo()).args(["--help"]).expect_code(0);
    let commands: Vec<&str> = top
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 14, "{commands:?}");
    for c in commands {
        let help = stepreplay(repo()).args([c, "--help"]).expect_code(0);
        help.check(
            help.stdout.contains("Example") && help.stdout.contains(&format!("stepreplay {c}")),
            "the help shows an example of the command",
        );
        help.check(
            help.stdout.contains("--color") && help.stdout.contains("--quiet"),
            "the global flags are listed",
        );
    }
}

/// On a terminal, `run` redraws one status line; it counts plan and bridge scenarios alike and
/// its ETA stays finite (it once showed `[28/14]` and 3·10¹⁸ s).
#[test]
fn live_progress_counts_every_scenario_kind() {
    if !have_tool("script", "apt install bsdutils") {
        return;
    }
    let out = TempDir::new("progress");
    let command = format!(
        "{} run harness/tests/fixtures/mini/scenarios/mini-completed.json \
         scenarios/bridge/bridge-disabled.json --reports json --report-dir {}",
        env!("CARGO_BIN_EXE_stepreplay"),
        out.path().display()
    );
    // `script` runs the command on a pseudo-terminal, both streams a terminal as at a desk.
    let o = std::process::Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .current_dir(repo())
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let counters: Vec<(u64, u64)> = text
        .split('[')
        .filter_map(|s| s.split_once(']'))
        .filter_map(|(inside, _)| inside.split_once('/'))
        .filter_map(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .collect();
    assert!(counters.contains(&(2, 2)), "{text:?}");
    assert!(
        counters
            .iter()
            .all(|&(done, total)| total == 2 && done <= 2),
        "{text:?}"
    );
    for eta in text.split("ETA ").skip(1) {
        let secs: f64 = eta.split('s').next().unwrap().parse().unwrap();
        assert!(secs < 3600.0, "{text:?}");
    }
}

/// The filter language over the bundled suite's tags: `or`, `not` and parentheses select what
/// the scenario files' tags say; a mistyped tag is refused with the nearest one; `--list` runs
/// nothing.
#[test]
fn filters_join_with_or_and_not_and_a_mistyped_tag_is_named() {
    let root = repo();
    let list = |filter: &str| {
        stepreplay(&root)
            .args(["run", "scenarios", "--list", "--filter", filter])
            .run()
    };
    let mut want: Vec<String> = std::fs::read_dir(root.join("scenarios"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).ok()?).ok()?;
            let tags: Vec<&str> = v["tags"]
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let keep = (tags.contains(&"qt5") || tags.contains(&"gtk4")) && !tags.contains(&"gtk3");
            keep.then(|| v["id"].as_str().unwrap().to_string())
        })
        .collect();
    want.sort();
    assert!(want.len() >= 2, "{want:?}");
    let got = list("(tag:qt5 or tag:gtk4) and not tag:gtk3");
    got.check(got.code == 0, "--list exits 0");
    assert_eq!(got.stdout.lines().collect::<Vec<_>>(), want);
    let bang = list("tag:qt5|tag:gtk4 & !tag:gtk3");
    assert_eq!(bang.stdout, got.stdout, "the operators spelt as symbols");

    let typo = list("tag:gtk33");
    typo.check(
        typo.code == 64,
        "a tag no scenario has is a command-line error",
    );
    typo.check(
        typo.stderr.contains("no scenario has the tag `gtk33`")
            && typo.stderr.contains("did you mean `tag:gtk3`?"),
        "the mistyped tag and the nearest one",
    );
    let none = list("tag:gtk3 and not tag:gtk3");
    none.check(
        none.code == 64 && none.stderr.contains("no scenario matches --filter"),
        "an empty selection names the flag that narrowed it",
    );
}

/// `--last-failed` reruns what missed its expectation in the last run in `--report-dir`, and
/// says the run was narrowed by it; `status:` filters read the same run.
#[test]
fn last_failed_reruns_the_last_runs_failures_only() {
    let root = mini();
    let out = TempDir::new("last-failed");
    let dir = out.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        stepreplay(&root)
            .args([
                "run",
                "scenarios",
                "failing",
                "--reports",
                "json",
                "--report-dir",
                dir,
            ])
            .args(extra)
            .run()
    };
    for flag in ["--last-failed", "--filter=status:failed"] {
        let missing = run(&[flag]);
        missing.check(
            missing.code == 64 && missing.stderr.contains("no last run to read"),
            "no last run: nothing to read",
        );
    }
    let first = run(&[]);
    first.check(first.code == 1, "one scenario misses its expectation");
    let listed = run(&["--last-failed", "--list"]);
    assert_eq!(listed.stdout, "mini-expects-send\n");
    let status = run(&["--filter", "status:failed", "--list"]);
    assert_eq!(
        status.stdout, listed.stdout,
        "status:failed is --last-failed"
    );
    let all = run(&["--list"]);
    let passed = run(&["--filter", "status:passed or status:new", "--list"]);
    let others: Vec<&str> = all
        .stdout
        .lines()
        .filter(|l| *l != "mini-expects-send")
        .collect();
    assert!(!others.is_empty());
    assert_eq!(passed.stdout.lines().collect::<Vec<_>>(), others);
    let again = run(&["--last-failed"]);
    again.check(
        again.code == 1
            && again.stdout.contains("narrowed: 1 of ")
            && again.stdout.contains("by --last-failed"),
        "the rerun judges the one failure and says it was narrowed",
    );
    // Only `run` has a last run: elsewhere `status:` is refused, not read as "every one new".
    for cmd in [
        &["mutate"][..],
        &["check", "scenarios"],
        &["agent", "--cmd", "true"],
    ] {
        let r = stepreplay(&root)
            .args(cmd)
            .args(["--filter", "status:failed"])
            .run();
        r.check(
            r.code == 64 && r.stderr.contains("has no last run for `status:` to read"),
            "status: outside run is refused",
        );
    }
}
