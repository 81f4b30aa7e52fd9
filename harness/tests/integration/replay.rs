//! The replay engine end to end on the hand-made `mini` fixture suite.

use std::path::{Path, PathBuf};

use crate::util::{TempDir, copy_tree, repo, run_collected, run_in, stepreplay};

use stepreplay::replay::Mode;
use stepreplay::report::{Report, to_json};
use stepreplay::suite::{RunOptions, discover, load_suite};

fn mini() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini/scenarios")
}

fn report_bytes(jobs: usize) -> String {
    let files = discover(&[mini()]).unwrap();
    let modes = vec![Mode::Chained, Mode::PerStep];
    let results = run_collected(
        load_suite(&files, None).unwrap(),
        &RunOptions {
            jobs,
            modes: modes.clone(),
            perturb: vec![],
            ocr: Default::default(),
        },
    )
    .unwrap();
    to_json(&Report::from_results(&results, &modes))
}

#[test]
fn reports_are_byte_identical_at_any_jobs_and_across_runs() {
    let one = report_bytes(1);
    assert_eq!(one, report_bytes(8));
    assert_eq!(one, report_bytes(1));
}

#[test]
fn every_mini_scenario_meets_its_expectation() {
    let files = discover(&[mini()]).unwrap();
    assert!(files.len() >= 3, "{files:?}");
    let results = run_collected(
        load_suite(&files, None).unwrap(),
        &RunOptions {
            jobs: 2,
            modes: vec![Mode::Chained],
            perturb: vec![],
            ocr: Default::default(),
        },
    )
    .unwrap();
    for r in &results {
        assert!(r.met, "{}: {:?}", r.id, r.mismatch);
    }
}

#[test]
fn the_report_of_a_completed_and_a_declined_run() {
    let files: Vec<PathBuf> = ["mini-completed.json", "mini-declined.json"]
        .iter()
        .map(|f| mini().join(f))
        .collect();
    let modes = vec![Mode::Chained, Mode::PerStep];
    let results = run_collected(
        load_suite(&files, None).unwrap(),
        &RunOptions {
            jobs: 2,
            modes: modes.clone(),
            perturb: vec![],
            ocr: Default::default(),
        },
    )
    .unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).display().to_string();
    let json = to_json(&Report::from_results(&results, &modes)).replace(&root, "[harness]");
    insta::assert_snapshot!(json);
}

#[test]
fn a_sensitive_value_appears_in_no_output() {
    let out = std::env::temp_dir().join(format!("stepreplay-leak-{}", std::process::id()));
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_stepreplay"))
        .arg("run")
        .arg(mini())
        .arg("--report-dir")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let secret = "4321"; // the PIN the scripted person gives in mini-completed.json
    assert!(!String::from_utf8_lossy(&run.stdout).contains(secret));
    assert!(!String::from_utf8_lossy(&run.stderr).contains(secret));
    // Every format, images included (the folder holds `img/`).
    let mut files = 0;
    let mut dirs = vec![out.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(secret),
                "{path:?}"
            );
            files += 1;
        }
    }
    assert!(files >= 4, "{files}");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_missing_scenario_folder_is_bad_input() {
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_stepreplay"))
        .args(["run", "no/such/folder", "--report-dir"])
        .arg(std::env::temp_dir().join("stepreplay-none"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("missing-file"));
}

/// The checked-in suite (`scenarios/` at the repo root), run as the README's main job runs it.
fn run_suite_cli(jobs: &str, out: &Path) -> (i32, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_stepreplay"))
        .current_dir(root)
        .args(["run", "--reports", "json", "--jobs", jobs, "--report-dir"])
        .arg(out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(!String::from_utf8_lossy(&run.stderr).contains("panicked"));
    (run.status.code().unwrap_or(-1), stdout)
}

#[test]
fn the_checked_in_suite_meets_every_expectation_at_any_jobs() {
    let base = std::env::temp_dir().join(format!("stepreplay-suite-{}", std::process::id()));
    let (code, stdout) = run_suite_cli("1", &base.join("one"));
    assert_eq!(code, 0, "{stdout}");
    // At least the 12 plan scenarios and 8 bridge scenarios the suite promises.
    let ok = stdout.lines().filter(|l| l.starts_with("ok ")).count();
    assert!(ok >= 20, "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
    let (code8, _) = run_suite_cli("8", &base.join("eight"));
    assert_eq!(code8, 0);
    let a = std::fs::read(base.join("one/report.json")).unwrap();
    let b = std::fs::read(base.join("eight/report.json")).unwrap();
    assert!(a == b, "report.json differs between --jobs 1 and --jobs 8");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn check_with_a_recording_names_the_fragile_point_only_step() {
    let fx = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_stepreplay"))
        .current_dir(&fx)
        .args([
            "check",
            "scenarios/mini/plan.json",
            "--recording",
            "recordings/mini",
            // Its each-time input's value: without it the replay stops before step 2.
            "--scenario",
            "scenarios/mini-completed.json",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let fragile: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["reason"] == "fragile-step")
        .collect();
    let point = fragile
        .iter()
        .find(|f| f["path"] == "steps[2].target")
        .expect("step 3 is fragile");
    assert!(
        point["message"].as_str().unwrap().contains("point only"),
        "{point}"
    );
    assert!(point["hint"].as_str().unwrap().contains("label"), "{point}");
    assert!(point["line"].as_u64().is_some());
}

/// `run --captures`: every step that acted has its before, after and diff PNGs; the before
/// and after are the recorded screens, and the diff image and summary are exactly what
/// `stepreplay diff` gives for the same two files, so a report and a hand-run diff agree.
#[test]
fn captures_hold_each_steps_pictures_and_agree_with_stepreplay_diff() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let tmp = TempDir::new("captures");
    let out = tmp.path().join("out");
    let cap = tmp.path().join("cap");
    stepreplay(root)
        .args(["run", "--quiet", "--mode", "chained", "--report-dir"])
        .args([&out, Path::new("--captures"), &cap])
        .args(["scenarios/browser-signup.json"])
        .expect_code(0);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let sc = &report["scenarios"][0];
    let rec = root.join(sc["recording"].as_str().unwrap());
    let frames: serde_json::Value =
        serde_json::from_slice(&std::fs::read(rec.join("recording.json")).unwrap()).unwrap();
    let shot = |id: &str| {
        let f = frames["frames"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == id)
            .unwrap();
        std::fs::read(rec.join(f["screenshot"].as_str().unwrap())).unwrap()
    };
    let steps = sc["runs"]["chained"]["steps"].as_array().unwrap();
    let with_diff: Vec<&serde_json::Value> =
        steps.iter().filter(|s| !s["diff"].is_null()).collect();
    assert!(with_diff.len() >= 3, "steps that acted carry a diff");
    let mut changed = None;
    for st in &with_diff {
        let c = &st["captures"];
        for what in ["before", "after", "diff"] {
            let path = c[what].as_str().unwrap_or_else(|| panic!("{what} in {st}"));
            assert!(
                Path::new(path).starts_with(&cap),
                "{path} is under --captures"
            );
            assert!(Path::new(path).is_file(), "{path} written");
        }
        let (before, after) = (
            st["frames"][0].as_str().unwrap(),
            st["frames"][1].as_str().unwrap(),
        );
        assert_eq!(
            std::fs::read(c["before"].as_str().unwrap()).unwrap(),
            shot(before)
        );
        assert_eq!(
            std::fs::read(c["after"].as_str().unwrap()).unwrap(),
            shot(after)
        );
        if changed.is_none() && st["diff"]["pixel"]["mismatched"].as_u64() > Some(0) {
            changed = Some(*st);
        }
    }
    let st = changed.expect("some step changes the screen");
    let c = &st["captures"];
    let hand = tmp.path().join("hand.png");
    let run = stepreplay(root)
        .args(["diff", "--format", "json", "--out"])
        .args([&hand])
        .args([c["before"].as_str().unwrap(), c["after"].as_str().unwrap()])
        .expect_code(1);
    let by_hand: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        by_hand, st["diff"]["pixel"],
        "report and `stepreplay diff` agree"
    );
    assert_eq!(
        std::fs::read(&hand).unwrap(),
        std::fs::read(c["diff"].as_str().unwrap()).unwrap(),
        "the same diff image"
    );
    // The page shows the diff images, copied beside it.
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    let href = "img/diff-browser-signup-chained-";
    assert!(page.contains(href), "diff image on the page");
    let copied = std::fs::read_dir(out.join("img"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("diff-")
        })
        .count();
    assert_eq!(copied, with_diff.len());
}

/// A suite of one scenario on the mail recording, its plan written as `plan_text`, its
/// `expect` as given.
fn own_suite(plan_text: &str, expect: serde_json::Value) -> TempDir {
    let dir = TempDir::new("own-suite");
    let root = dir.path();
    copy_tree(
        &repo().join("recordings/mail-send-reminder"),
        &root.join("recordings/mail-send-reminder"),
    );
    copy_tree(
        &repo().join("scenarios/mail-send-reminder/crops"),
        &root.join("scenarios/own/crops"),
    );
    std::fs::write(root.join("scenarios/own/plan.json"), plan_text).unwrap();
    let scenario = serde_json::json!({"schema": "stepreplay-scenario/1", "id": "own",
        "plan": "own/plan.json", "recording": "mail-send-reminder",
        "inputs": {"client-email": "accounts@example.com"},
        "answers": {"confirm": {"send": "approve"}}, "expect": expect});
    std::fs::write(root.join("scenarios/own.json"), scenario.to_string()).unwrap();
    dir
}

/// [`own_suite`], run: the exit code and report.json.
fn run_own_suite(plan_text: &str, expect: serde_json::Value) -> (i32, serde_json::Value) {
    let dir = own_suite(plan_text, expect);
    let run = run_in(dir.path(), &["run", "-q", "--reports", "json"]);
    let report = std::fs::read_to_string(dir.path().join("reports/report.json")).unwrap();
    (run.code, serde_json::from_str(&report).unwrap())
}

fn mail_plan() -> String {
    std::fs::read_to_string(repo().join("scenarios/mail-send-reminder/plan.json")).unwrap()
}

#[test]
fn a_typod_label_is_reported_with_step_reason_and_plan_line_everywhere() {
    let text = mail_plan().replace("\"label\": \"To:\"", "\"label\": \"Too:\"");
    // The location points at the field to fix, the label, not at the step's `{`.
    let label_line = 1 + text
        .lines()
        .position(|l| l.contains("\"label\": \"Too:\""))
        .unwrap();
    let dir = own_suite(&text, serde_json::json!({"outcome": "completed"}));
    let run = stepreplay(dir.path())
        .args(["run", "-q"])
        .env("GITHUB_ACTIONS", "true")
        .run();
    run.check(run.code == 1, "exit 1");
    let at = "scenarios/own/plan.json:";
    let line = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("at {at}")))
        .unwrap_or_else(|| panic!("no location line:\n{}", run.stdout));
    let n: usize = line.trim_start()[3 + at.len()..]
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(n, label_line, "{line}");
    // The step by its number and words, and the name on that screen it was likely meant to be.
    assert!(line.contains("step 2 “"), "{line}");
    assert!(!line.contains("type-to"), "no bare step id: {line}");
    assert!(line.contains("no control labelled “Too:”"), "{line}");
    assert!(line.contains("did you mean “To:”?"), "{line}");
    assert!(
        run.stdout.contains("1 scenario not as expected:"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&format!(
            "::error file=scenarios/own/plan.json,line={n},col="
        )),
        "{}",
        run.stdout
    );
    let junit = std::fs::read_to_string(dir.path().join("reports/junit.xml")).unwrap();
    // The case carries the scenario's time before its place.
    let case = junit
        .lines()
        .find(|l| l.contains("<testcase name=\"expectation\" classname=\"own\""))
        .unwrap_or_else(|| panic!("{junit}"));
    assert!(
        case.contains(" time=\"")
            && case.ends_with(&format!(" file=\"scenarios/own/plan.json\" line=\"{n}\">")),
        "{junit}"
    );
    // Without GITHUB_ACTIONS, no workflow commands.
    let plain = run_in(dir.path(), &["run", "-q"]);
    assert!(!plain.stdout.contains("::error"), "{}", plain.stdout);
}

#[test]
fn a_plan_check_would_reject_fails_its_scenario_unless_declared() {
    // The mail plan with `done` pointing back at step 2: check says error (`done-not-last`).
    let text = mail_plan().replacen("\"step_id\": \"send\"", "\"step_id\": \"type-to\"", 1);
    let (code, report) = run_own_suite(&text, serde_json::json!({"outcome": "not-done"}));
    assert_eq!(code, 1);
    let sc = &report["scenarios"][0];
    assert_eq!(sc["plan_errors"][0]["reason"], "done-not-last");
    assert!(sc["mismatch"].as_str().unwrap().contains("done-not-last"));
    // Declared, it is what the scenario is about.
    let (code, _) = run_own_suite(
        &text,
        serde_json::json!({"outcome": "not-done", "plan_errors": ["done-not-last"]}),
    );
    assert_eq!(code, 0);
    // With a declared error and an undeclared one, the failure points at the undeclared one.
    let both = text.replacen("\"label\": \"3\"", "\"label\": \"2\"", 1);
    let dir = own_suite(
        &both,
        serde_json::json!({"outcome": "not-done", "plan_errors": ["done-not-last"]}),
    );
    let run = run_in(dir.path(), &["run", "-q"]);
    run.check(run.code == 1, "exit 1");
    let at = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("at scenarios/own/plan.json:"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        at.contains("(duplicate-label)") && at.contains("at `steps[2].label`"),
        "{at}"
    );
    assert!(!at.contains("done-not-last"), "{at}");
    // A declared error the plan does not have is a miss too.
    let clean =
        std::fs::read_to_string(repo().join("scenarios/mail-send-reminder/plan.json")).unwrap();
    let (code, report) = run_own_suite(
        &clean,
        serde_json::json!({"outcome": "completed", "plan_errors": ["done-not-last"]}),
    );
    assert_eq!(code, 1);
    assert!(
        report["scenarios"][0]["mismatch"]
            .as_str()
            .unwrap()
            .contains("expected the check error `done-not-last`")
    );
}

/// Layout is not correctness: a plan that is only not in canonical bytes replays and passes;
/// its report shows the finding, which stays `check`'s and `fmt`'s.
#[test]
fn a_plan_only_laid_out_otherwise_passes_its_run_and_the_report_says_so() {
    let text = mail_plan().replace("\n  ", "\n    ");
    let (code, report) = run_own_suite(&text, serde_json::json!({"outcome": "completed"}));
    assert_eq!(code, 0, "{report}");
    let sc = &report["scenarios"][0];
    assert!(sc.get("plan_errors").is_none(), "{sc}");
    assert_eq!(sc["plan_warnings"][0]["reason"], "non-canonical", "{sc}");
    assert_eq!(sc["met"], true, "{sc}");
}

#[test]
fn a_screenshot_that_cannot_be_decoded_fails_its_scenario() {
    let dir = own_suite(&mail_plan(), serde_json::json!({"outcome": "completed"}));
    let frame = dir
        .path()
        .join("recordings/mail-send-reminder/frames/002.png");
    let bytes = std::fs::read(&frame).unwrap();
    std::fs::write(&frame, &bytes[..bytes.len() / 2]).unwrap();
    let run = run_in(dir.path(), &["run", "-q"]);
    run.check(run.code == 1, "exit 1");
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("reports/report.json")).unwrap(),
    )
    .unwrap();
    let mismatch = report["scenarios"][0]["mismatch"].as_str().unwrap();
    assert!(
        mismatch.starts_with("frame `002` cannot be read"),
        "{mismatch}"
    );
}

#[test]
fn a_run_over_nothing_or_with_a_bad_tolerance_is_refused_before_replay() {
    let dir = TempDir::new("empty-suite");
    std::fs::create_dir_all(dir.path().join("scenarios")).unwrap();
    let run = run_in(dir.path(), &["run", "-q"]);
    run.check(run.code == 2, "exit 2");
    assert!(run.stderr.contains("no-scenarios"), "{}", run.stderr);
    let suite = own_suite(&mail_plan(), serde_json::json!({"outcome": "completed"}));
    let run = run_in(suite.path(), &["run", "-q", "--tolerance", "-1"]);
    run.check(run.code == 64, "a bad flag value is a usage error: exit 64");
    assert!(run.stderr.contains("--tolerance"), "{}", run.stderr);
    assert!(
        !suite.path().join("reports").exists(),
        "nothing was replayed"
    );
}

#[test]
fn one_plan_runs_on_a_recording_without_a_scenario_file() {
    let dir = TempDir::new("adhoc");
    let answers = dir.path().join("answers.json");
    let plan = repo().join("scenarios/mail-send-reminder/plan.json");
    let rec = repo().join("recordings/mail-send-reminder");
    let out = dir.path().join("reports");
    let run_with = |given: serde_json::Value| {
        std::fs::write(&answers, given.to_string()).unwrap();
        stepreplay(dir.path())
            .arg("run")
            .arg(&plan)
            .arg("--recording")
            .arg(&rec)
            .arg("--answers")
            .arg(&answers)
            .arg("--report-dir")
            .arg(&out)
            .run()
    };
    let inputs = serde_json::json!({"client-email": "accounts@example.com"});
    let ok = run_with(
        serde_json::json!({"inputs": inputs, "answers": {"confirm": {"send": "approve"}}}),
    );
    ok.check(ok.code == 0, "exit 0");
    assert!(
        ok.stdout.contains("ok   mail-send-reminder"),
        "{}",
        ok.stdout
    );
    // Without the person's answer to the confirm step, it stops there and says what to add.
    let stopped = run_with(serde_json::json!({"inputs": inputs}));
    stopped.check(stopped.code == 1, "exit 1");
    assert!(
        stopped
            .stdout
            .contains(r#"(to go on, add "answers": {"confirm": {"send": "approve"}})"#),
        "{}",
        stopped.stdout
    );
    // Two plans with one recording is refused before anything runs.
    let two = stepreplay(dir.path())
        .arg("run")
        .arg(&plan)
        .arg(&plan)
        .arg("--recording")
        .arg(&rec)
        .run();
    two.check(
        two.code == 64,
        "two plans for one recording is a usage error: exit 64",
    );
}

/// A plan whose replay stops at an each-time input with no value is never called clean: the
/// steps it did not reach are named, and a typo after the stop is still caught by replaying
/// that step alone. Given the values (`--answers` or `--scenario`), it is clean again.
#[test]
fn check_with_a_recording_names_the_steps_it_could_not_reach() {
    let root = repo();
    let tmp = TempDir::new("check-unchecked");
    let plan_path = root.join("scenarios/zenity-add-contact/plan.json");
    let rec = root.join("recordings/zenity-add-contact");
    let findings = |o: &crate::util::Run| -> Vec<serde_json::Value> {
        let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
        v["findings"].as_array().unwrap().clone()
    };
    let o = stepreplay(&root)
        .args(["check", "--format", "json"])
        .arg(&plan_path)
        .arg("--recording")
        .arg(&rec)
        .run();
    o.check(o.code == 1, "a plan with unreached steps is not clean");
    let unchecked: Vec<_> = findings(&o)
        .into_iter()
        .filter(|f| f["reason"] == "steps-unchecked")
        .collect();
    assert_eq!(unchecked.len(), 1, "{o}");
    let msg = unchecked[0]["message"].as_str().unwrap();
    assert!(msg.contains("steps 2, 3, 4, 5, 6, 7, 8"), "{msg}");
    assert!(msg.contains("needs-input"), "{msg}");
    assert_eq!(unchecked[0]["path"], "steps[1]");

    // One letter changed in a label after the stop is caught all the same.
    let mut plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan_path).unwrap()).unwrap();
    plan["steps"][6]["target"]["label"] = "Wrk".into();
    let typo = tmp.path().join("typo.json");
    std::fs::write(&typo, stepreplay::json::to_canonical(&plan)).unwrap();
    let o = stepreplay(&root)
        .args(["check", "--format", "json"])
        .arg(&typo)
        .arg("--recording")
        .arg(&rec)
        .run();
    o.check(o.code == 1, "the typo fails the check");
    assert!(
        findings(&o)
            .iter()
            .any(|f| f["path"] == "steps[6].target.label" && f["severity"] == "error"),
        "{o}"
    );

    // With the values, every step is reached and the plan is clean.
    let o = stepreplay(&root)
        .args(["check", "--format", "json"])
        .arg(&plan_path)
        .args(["--scenario", "scenarios/zenity-add-contact.json"])
        .run();
    o.check(o.code == 0, "clean with the scenario's values");
    let answers = tmp.path().join("values.json");
    std::fs::write(
        &answers,
        r#"{"inputs": {"first-name": "Ada", "last-name": "Lovelace"}, "answers": {"sensitive": {"pin": "1815"}}}"#,
    )
    .unwrap();
    let o = stepreplay(&root)
        .args(["check", "--format", "json"])
        .arg(&plan_path)
        .arg("--recording")
        .arg(&rec)
        .arg("--inputs")
        .arg(&answers)
        .run();
    o.check(o.code == 0, "clean with --inputs");
    o.check(
        !findings(&o)
            .iter()
            .any(|f| f["reason"] == "steps-unchecked"),
        "no step unchecked",
    );
}

/// The step's `operation` checks in the chained run's report, by step id.
fn operation_of(report: &serde_json::Value, step_id: &str) -> Vec<serde_json::Value> {
    let steps = report["scenarios"][0]["runs"]["chained"]["steps"]
        .as_array()
        .unwrap();
    let step = steps
        .iter()
        .find(|s| s["step_id"] == step_id)
        .unwrap_or_else(|| panic!("no step {step_id} in {report}"));
    step["operation"].as_array().cloned().unwrap_or_default()
}

/// The mail recording keeps no typed text for the To: step: the text is judged by what the
/// field shows on the frame the step led to, with the scenario's value filled in.
#[test]
fn typed_text_the_recording_did_not_keep_is_judged_by_the_field_on_screen() {
    let completed = serde_json::json!({"outcome": "completed"});
    let (code, report) = run_own_suite(&mail_plan(), completed.clone());
    assert_eq!(code, 0, "{report}");
    let text = operation_of(&report, "type-to")
        .into_iter()
        .find(|c| c["part"] == "text")
        .unwrap_or_else(|| panic!("no text check in {report}"));
    assert_eq!(text["passed"], true, "{text}");
    assert_eq!(text["recorded"], "accounts@example.com", "{text}");
    // Text typed around the input is not what the field shows.
    let around = mail_plan().replace("\"{client-email}\"", "\"{client-email}x\"");
    assert_ne!(around, mail_plan());
    let (code, report) = run_own_suite(&around, completed);
    assert_eq!(code, 1, "{report}");
    let text = operation_of(&report, "type-to")
        .into_iter()
        .find(|c| c["part"] == "text")
        .unwrap_or_else(|| panic!("no text check in {report}"));
    assert_eq!(text["passed"], false, "{text}");
    assert_eq!(text["planned"], "accounts@example.comx", "{text}");
}

/// A control the recording gives no role (`AXUnknown`) cannot confirm a role the plan names:
/// the step is unjudged for its role and the run does not pass.
#[test]
fn a_named_role_on_an_unknown_recorded_role_is_unjudged() {
    let plan = repo().join("scenarios/gtk4-text-editor-about/plan.json");
    let rec = repo().join("recordings/gtk4-text-editor-about");
    let as_is = stepreplay(repo())
        .args(["run", "-q", "--reports", "json", "--report-dir"])
        .arg(TempDir::new("role-as-is").path())
        .arg(&plan)
        .arg("--recording")
        .arg(&rec)
        .run();
    as_is.check(as_is.code == 0, "the plan says AXUnknown itself: it passes");
    let dir = TempDir::new("role-named");
    copy_tree(
        &repo().join("scenarios/gtk4-text-editor-about/crops"),
        &dir.path().join("crops"),
    );
    let text = std::fs::read_to_string(&plan).unwrap().replacen(
        "\"ax_role\": \"AXUnknown\"",
        "\"ax_role\": \"AXStaticText\"",
        1,
    );
    let changed = dir.path().join("plan.json");
    std::fs::write(&changed, text).unwrap();
    let out = dir.path().join("reports");
    let run = stepreplay(repo())
        .args(["run", "-q", "--reports", "json", "--report-dir"])
        .arg(&out)
        .arg(&changed)
        .arg("--recording")
        .arg(&rec)
        .run();
    run.check(run.code == 1, "a role nothing confirms does not pass");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let steps = report["scenarios"][0]["runs"]["chained"]["steps"]
        .as_array()
        .unwrap();
    let role = steps[0]["operation"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["part"] == "role")
        .unwrap_or_else(|| panic!("no role check in {}", steps[0]));
    assert_eq!(role["unjudged"], true, "{role}");
    assert_eq!(role["passed"], false, "{role}");
    assert_eq!(role["planned"], "AXStaticText", "{role}");
}

/// A step past the recording's end says in words what happened, not only its reason code:
/// the calendar recording cut after step 6 (its action leads to the last frame), so step 7
/// has no recorded screen to act on in a chained run.
#[test]
fn a_step_past_the_recordings_end_says_the_recording_ends_there() {
    let tmp = TempDir::new("past-the-end");
    let rec = tmp.path().join("recordings/cal");
    copy_tree(&repo().join("recordings/calendar-reschedule"), &rec);
    copy_tree(
        &repo().join("scenarios/calendar-reschedule"),
        &tmp.path().join("plan"),
    );
    let text = std::fs::read_to_string(rec.join("recording.json")).unwrap();
    let mut r: serde_json::Value = serde_json::from_str(&text).unwrap();
    for t in r["transitions"].as_array_mut().unwrap() {
        if t["step_id"] == "type-location" {
            t["to"] = "007".into();
        }
    }
    std::fs::write(rec.join("recording.json"), r.to_string()).unwrap();
    let run = stepreplay(tmp.path())
        .args([
            "run",
            "-q",
            "--mode",
            "chained",
            "plan/plan.json",
            "--recording",
        ])
        .arg(&rec)
        .arg("--answers")
        .arg(repo().join("scenarios/calendar-reschedule.json"))
        .args(["--report-dir", "reports"])
        .run();
    run.expect_code(1);
    let out = crate::util::without_times(&run.stdout);
    assert!(
        out.contains("the recording ends here, on frame `007`"),
        "{out}"
    );
    insta::assert_snapshot!(out.replace(&tmp.path().display().to_string(), "[TMP]"));
}
