//! A guide author's loop: `check PLAN --recording REC` says a failing step as `run` says it
//! (the same words, reason and place), names the values a replay stopped for with the JSON to
//! add, and is clean once they are given.

use std::path::Path;

use serde_json::Value;

use crate::util::{Run, TempDir, repo, stepreplay};

const PLAN: &str = "scenarios/zenity-add-contact/plan.json";
const RECORDING: &str = "recordings/zenity-add-contact";
const SCENARIO: &str = "scenarios/zenity-add-contact.json";

/// The zenity plan with `change` made to it, written canonical as `dir/name`.
fn changed_plan(dir: &Path, name: &str, change: impl Fn(&mut Value)) {
    let mut plan: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join(PLAN)).unwrap()).unwrap();
    change(&mut plan);
    std::fs::write(dir.join(name), stepreplay::json::to_canonical(&plan)).unwrap();
}

/// `check` and `run` on `dir/name` against the zenity recording, with the scenario file's
/// values and answers (`--answers` takes a whole scenario file).
fn check_and_run(dir: &Path, name: &str) -> (Run, Run) {
    let check = stepreplay(dir)
        .args(["check", name, "--recording"])
        .arg(repo().join(RECORDING))
        .arg("--answers")
        .arg(repo().join(SCENARIO))
        .run();
    let run = stepreplay(dir)
        .args(["run", "-q", name, "--recording"])
        .arg(repo().join(RECORDING))
        .arg("--answers")
        .arg(repo().join(SCENARIO))
        .arg("--report-dir")
        .arg(dir.join(format!("reports-{name}")))
        .run();
    (check, run)
}

/// `run`'s failure line, split into its place and what it says of the step.
fn run_says(run: &Run) -> (String, String) {
    let line = run
        .stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("at "))
        .unwrap_or_else(|| panic!("no failure line\n{run}"));
    let (place, rest) = line.split_once(": ").unwrap();
    let said = rest.split_once("): ").unwrap().1;
    (place.to_string(), said.to_string())
}

#[test]
fn check_says_a_failing_step_as_run_says_it() {
    let tmp = TempDir::new("check-as-run");
    // A label typo (a did-you-mean) and a label that finds another control (found/expected).
    changed_plan(tmp.path(), "typo.json", |p| {
        p["steps"][0]["target"]["label"] = "First nme".into();
    });
    changed_plan(tmp.path(), "other.json", |p| {
        p["steps"][1]["target"]["label"] = "Last name".into();
    });
    for (name, words) in [
        ("typo.json", "did you mean “First name”?"),
        (
            "other.json",
            "found the text field “Last name”; the recording acted on the text field “First name”",
        ),
    ] {
        let (check, run) = check_and_run(tmp.path(), name);
        run.check(run.code == 1, "the run fails");
        check.check(check.code == 1, "the check fails");
        let (place, said) = run_says(&run);
        run.check(said.contains(words), "run says what went wrong");
        check.check(
            check
                .stdout
                .contains(&format!("replayed on its own recording: {said}\n")),
            "check says it in run's words",
        );
        check.check(
            check.stdout.contains(&format!("--> {place} at `steps[")),
            "check places it where run does",
        );
        // The replay stopped on a step already reported: no hint to add answers.
        check.check(
            !check.stdout.contains("--answers FILE"),
            "no hint that does not help",
        );
        if name == "typo.json" {
            insta::assert_snapshot!("check_as_run_label_typo", check.stdout);
        }
    }
}

#[test]
fn check_names_the_values_a_replay_stopped_for_and_is_clean_with_them() {
    let tmp = TempDir::new("check-values");
    let check = |extra: &[&str]| {
        stepreplay(repo())
            .args(["check", PLAN, "--recording", RECORDING])
            .args(extra)
            .run()
    };
    let bare = check(&[]);
    bare.check(bare.code == 1, "unreached steps are an error");
    let add = r#"{"inputs":{"first-name":"Ada","last-name":"Lovelace"}}"#;
    bare.check(
        bare.stdout.contains(&format!(
            "each-time inputs `first-name`, `last-name` have no value: add {add}"
        )),
        "the hint names the inputs and the JSON to add",
    );
    insta::assert_snapshot!("check_needs_values", bare.stdout);
    // The JSON the hint shows, as the answers file, closes the loop.
    let answers = tmp.path().join("answers.json");
    std::fs::write(&answers, add).unwrap();
    let given = check(&["--answers", answers.to_str().unwrap()]);
    given.check(given.code == 0, "clean with the values the hint names");
    // So does the scenario file itself.
    let whole = check(&["--answers", SCENARIO]);
    whole.check(whole.code == 0, "clean with the scenario file as --answers");
}

/// `line:col` of the `nth` (from 0) value written `"{value}"` in `text`.
fn value_place(text: &str, value: &str, nth: usize) -> String {
    let quoted = format!("\"{value}\"");
    let (line, col) = text
        .lines()
        .enumerate()
        .filter_map(|(n, l)| l.find(&quoted).map(|c| (n + 1, c + 1)))
        .nth(nth)
        .unwrap_or_else(|| panic!("no {quoted} #{nth}"));
    format!("{line}:{col}")
}

/// A stale window title, in `target` or in `expect`, gets the windows on screen and the
/// nearest title, at the `window` field, from `run` and `check` alike.
#[test]
fn a_stale_window_is_named_like_a_control() {
    let tmp = TempDir::new("stale-window");
    changed_plan(tmp.path(), "target.json", |p| {
        p["steps"][0]["target"]["window"] = "Add Contct".into();
    });
    changed_plan(tmp.path(), "expect.json", |p| {
        p["steps"][0]["expect"]["window"] = "Add Contct".into();
    });
    for (name, reason) in [
        ("target.json", "window-not-found"),
        ("expect.json", "expect-failed"),
    ] {
        let text = std::fs::read_to_string(tmp.path().join(name)).unwrap();
        let place = format!("{name}:{}", value_place(&text, "Add Contct", 0));
        let (check, run) = check_and_run(tmp.path(), name);
        run.check(run.code == 1, "the run fails");
        let (run_place, said) = run_says(&run);
        assert_eq!(run_place, place, "{run}");
        run.check(said.contains(reason), "the reason");
        run.check(
            said.contains("windows on screen: “Add Contact” (zenity); did you mean “Add Contact”?"),
            "the windows on screen and the nearest",
        );
        check.check(check.code == 1, "the check fails");
        check.check(
            check
                .stdout
                .contains(&format!("replayed on its own recording: {said}\n")),
            "check says it in run's words",
        );
        check.check(
            check.stdout.contains(&format!("--> {place} at `steps[0].")),
            "check places it at the window field",
        );
    }
}
