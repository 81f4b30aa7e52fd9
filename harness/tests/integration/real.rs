//! The real recordings in the suite (made with `stepreplay record` or imported), replayed as a
//! user would: each class of real-desktop trouble on the real tree where it shows.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::util::{TempDir, repo, stepreplay};

fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// Scenarios whose recording came from a real desktop, by file name.
fn real_scenarios() -> Vec<String> {
    let root = repo();
    let mut out = Vec::new();
    for e in fs::read_dir(root.join("scenarios")).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let s = json(&p);
        let Some(rec) = s["recording"].as_str() else {
            continue;
        };
        let r = json(&root.join("recordings").join(rec).join("recording.json"));
        if r["source"]["kind"] == "import" {
            out.push(format!("scenarios/{}", e.file_name().to_string_lossy()));
        }
    }
    out.sort();
    out
}

/// Replays scenarios from the repository root; the report.
fn replay(scenarios: &[&str]) -> Value {
    let dir = TempDir::new("real");
    let run = stepreplay(repo())
        .args(["run", "-q", "--report-dir"])
        .arg(dir.path())
        .args(scenarios)
        .run();
    run.check(
        run.code == 0,
        "the real scenarios should replay as declared",
    );
    json(&dir.path().join("report.json"))
}

fn scenario<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no scenario {id} in the report"))
}

fn per_step<'a>(report: &'a Value, id: &str, number: u64) -> &'a Value {
    scenario(report, id)["runs"]["per-step"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["number"] == number)
        .unwrap_or_else(|| panic!("{id}: no step {number}"))
}

#[test]
fn every_real_recording_completes_chained_and_is_right_per_step() {
    let all = real_scenarios();
    assert!(all.len() >= 6, "real scenarios: {all:?}");
    let names: Vec<&str> = all.iter().map(String::as_str).collect();
    let report = replay(&names);
    for s in report["scenarios"].as_array().unwrap() {
        let id = &s["id"];
        assert_eq!(s["runs"]["chained"]["outcome"], "completed", "{id}");
        let acc = s["runs"]["per-step"]["scores"]["element_accuracy"]
            .as_f64()
            .unwrap_or_else(|| panic!("{id}: per-step element accuracy is not judged"));
        assert!(acc >= 0.95, "{id}: per-step element accuracy {acc}");
        // Every step was judged against the element the recording says was acted on.
        for step in s["runs"]["per-step"]["steps"].as_array().unwrap() {
            if let Some(r) = step.get("resolution").filter(|r| !r.is_null()) {
                assert_eq!(r["correct"], true, "{id} step {}: {r}", step["number"]);
            }
        }
    }
}

#[test]
fn two_fields_with_one_name_are_told_apart_on_a_real_form() {
    let report = replay(&["scenarios/gtk3-yad-addresses.json"]);
    let billing = &per_step(&report, "gtk3-yad-addresses", 1)["resolution"];
    let shipping = &per_step(&report, "gtk3-yad-addresses", 5)["resolution"];
    for r in [billing, shipping] {
        assert_eq!(r["correct"], true, "{r}");
        assert_eq!(r["ambiguous"], false, "{r}");
        assert!(r["candidate_count"].as_u64().unwrap() >= 2, "{r}");
        assert!(
            r["tie_break"].is_string(),
            "what told them apart is reported: {r}"
        );
    }
    assert_ne!(billing["element"], shipping["element"]);
}

#[test]
fn select_all_then_type_replaces_pre_filled_text_without_asking() {
    // The billing City is pre-filled with "London"; the plan selects all, then types.
    let scenario_file = json(&repo().join("scenarios/gtk3-yad-addresses.json"));
    assert!(
        scenario_file["answers"]["replace"]
            .as_object()
            .is_none_or(|m| m.is_empty()),
        "the scenario must not answer a replace question"
    );
    let report = replay(&["scenarios/gtk3-yad-addresses.json"]);
    let s = scenario(&report, "gtk3-yad-addresses");
    assert_eq!(s["runs"]["chained"]["outcome"], "completed");
    assert_eq!(
        per_step(&report, "gtk3-yad-addresses", 3)["status"],
        "passed"
    );
}

#[test]
fn a_gtk4_popover_and_a_nested_menu_button_resolve_on_real_trees() {
    let report = replay(&["scenarios/gtk4-text-editor-about.json"]);
    let menu = &per_step(&report, "gtk4-text-editor-about", 2)["resolution"];
    assert_eq!(menu["ambiguous"], false, "{menu}");
    assert_eq!(menu["correct"], true, "{menu}");
    let about = &per_step(&report, "gtk4-text-editor-about", 3)["resolution"];
    assert_eq!(about["correct"], true, "{about}");
    assert_eq!(about["click_in_box"], true, "{about}");
    // The item lies on the popover's own surface, right of and below the menu button.
    let (b, m) = (&about["element_frame"], &menu["element_frame"]);
    assert!(b["y"].as_i64() > m["y"].as_i64(), "{b} {m}");
}

#[test]
fn a_nameless_popup_counts_as_the_dialog_it_belongs_to() {
    let report = replay(&["scenarios/gtk3-zenity-contact.json"]);
    // Step 7 opens the Group combo; the list is its own nameless window while step 8 picks
    // "Work" from it, and the plan expects the person to be in "Add Contact" throughout.
    for n in [7, 8] {
        let step = per_step(&report, "gtk3-zenity-contact", n);
        let window = step["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["kind"] == "window")
            .unwrap_or_else(|| panic!("step {n} has no window check: {step}"));
        assert_eq!(window["passed"], true, "step {n}: {window}");
        assert!(
            window["detail"].as_str().unwrap().contains("Add Contact"),
            "{window}"
        );
    }
}

#[test]
fn the_lint_is_quiet_on_every_plan_written_from_a_real_recording() {
    for file in real_scenarios() {
        let s = json(&repo().join(&file));
        let plan = format!("scenarios/{}", s["plan"].as_str().unwrap());
        let run = stepreplay(repo()).args(["check", &plan]).run();
        run.check(
            run.code == 0 && run.stdout.contains("clean"),
            "a plan written from a real recording should pass the lint without findings",
        );
    }
}

#[test]
fn a_field_inside_an_editable_combo_box_beats_the_combo_on_a_real_form() {
    // Mousepad's Find and Replace: each field is a text inside an editable combo box that
    // its label names, so both carry the label's name; the plan says AXTextField.
    let report = replay(&["scenarios/gtk3-mousepad-replace.json"]);
    for n in [3, 5] {
        let r = &per_step(&report, "gtk3-mousepad-replace", n)["resolution"];
        assert_eq!(r["correct"], true, "step {n}: {r}");
        assert_eq!(r["ambiguous"], false, "step {n}: {r}");
    }
}

#[test]
fn qt_and_gtk4_recordings_replay_completely() {
    let report = replay(&[
        "scenarios/qt5-featherpad-replace.json",
        "scenarios/gtk4-calculator-add.json",
    ]);
    for id in ["qt5-featherpad-replace", "gtk4-calculator-add"] {
        let s = scenario(&report, id);
        for mode in ["chained", "per-step"] {
            assert_eq!(s["runs"][mode]["outcome"], "completed", "{id} {mode}");
            assert_eq!(
                s["runs"][mode]["scores"]["element_accuracy"].as_f64(),
                Some(1.0),
                "{id} {mode}"
            );
        }
    }
}

/// The element accuracy the report gives is the one a person scoring each click against the
/// recording would give: on real trees every tie is broken (and says by what), so a step
/// counts right exactly when its click lands on the control the recording acted on.
#[test]
fn self_reported_element_accuracy_equals_the_truth_scored_one_on_real_recordings() {
    let all = real_scenarios();
    let names: Vec<&str> = all.iter().map(String::as_str).collect();
    let report = replay(&names);
    let mut judged_steps = 0;
    for s in report["scenarios"].as_array().unwrap() {
        let id = &s["id"];
        let run = &s["runs"]["per-step"];
        let (mut right, mut judged) = (0u32, 0u32);
        for step in run["steps"].as_array().unwrap() {
            let Some(r) = step.get("resolution").filter(|r| !r.is_null()) else {
                continue;
            };
            let Some(expected) = r["expected"].as_str() else {
                continue;
            };
            // Truth: the control chosen is the one the recording acted on, or the click lands
            // inside that control's box (a control GTK lists twice).
            let truth = r["element"].as_str() == Some(expected) || r["click_in_box"] == true;
            assert_eq!(
                r["ambiguous"], false,
                "{id} step {}: an unbroken tie",
                step["number"]
            );
            assert_eq!(
                r["correct"], truth,
                "{id} step {}: the report and the truth disagree: {r}",
                step["number"]
            );
            judged += 1;
            right += u32::from(truth);
        }
        judged_steps += judged;
        let reported = run["scores"]["element_accuracy"].as_f64().unwrap();
        let truth = f64::from(right) / f64::from(judged);
        assert!(
            (reported - truth).abs() < 1e-9,
            "{id}: reported {reported}, truth {truth} ({right}/{judged})"
        );
    }
    assert!(judged_steps >= 50, "only {judged_steps} steps judged");
}
