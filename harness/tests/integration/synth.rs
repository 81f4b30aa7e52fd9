//! The synthetic desktop and the checked-in suite: `synth` is byte-reproducible, every
//! checked-in recording, plan and scenario loads, and bad recordings fail with their reason
//! code and field path instead of panicking.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::util::repo;
use stepreplay::json::{parse_typed, read_text};
use stepreplay::plan::check::check_source;
use stepreplay::plan::{load_plan, plan_from_source, read_plan_source};
use stepreplay::recording::load_recording;
use stepreplay::scenario::FailReason;
use stepreplay::scenario::ScenarioFile;
use stepreplay::synth::{load_script, synthesize};
use stepreplay::{InputError, Reason};

/// Every file under `dir`, relative to it, sorted.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable dir") {
            let p = entry.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("inside").to_path_buf();
                out.insert(rel, std::fs::read(&p).expect("readable file"));
            }
        }
    }
    out
}

fn sorted_dir(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable dir")
        .map(|e| e.expect("dir entry").path())
        .collect();
    v.sort();
    v
}

/// Runs synth into a fresh folder under the target tmp dir; returns (recording, suite) dirs.
fn synth_into(name: &str, tag: &str) -> (PathBuf, PathBuf) {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("synth-{tag}"));
    let _ = std::fs::remove_dir_all(&base);
    let script_path = repo().join(format!("recordings/scripts/{name}.json"));
    let script = load_script(&script_path).expect("script parses");
    let rec = base.join("recordings").join(name);
    let suite = base.join("scenarios");
    synthesize(&script, &script_path, &rec, Some(&suite.join(name))).expect("synth runs");
    (rec, suite)
}

#[test]
fn synth_twice_gives_identical_bytes_and_matches_the_checked_in_recording() {
    let name = "chat-assistant-reply";
    let (rec_a, suite_a) = synth_into(name, "a");
    let (rec_b, suite_b) = synth_into(name, "b");
    let (a, b) = (files(&rec_a), files(&rec_b));
    assert!(a.len() >= 7, "recording.json plus frames: {:?}", a.keys());
    assert_eq!(a, b, "two runs of the same script differ");
    assert_eq!(files(&suite_a), files(&suite_b));
    // The checked-in copy is what the script makes today: regenerate it when this fails.
    let checked_in = files(&repo().join("recordings").join(name));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        checked_in.keys().collect::<Vec<_>>()
    );
    for (k, v) in &a {
        assert!(
            checked_in[k] == *v,
            "{} differs from the checked-in file",
            k.display()
        );
    }
    let plan = std::fs::read(suite_a.join(name).join("plan.json")).expect("plan written");
    let checked_plan =
        std::fs::read(repo().join("scenarios").join(name).join("plan.json")).expect("plan");
    assert_eq!(plan, checked_plan);
}

#[test]
fn every_checked_in_recording_loads_and_its_screenshots_decode() {
    let mut count = 0;
    for dir in sorted_dir(&repo().join("recordings")) {
        if !dir.join("recording.json").is_file() {
            continue;
        }
        let rec = load_recording(&dir).unwrap_or_else(|e| panic!("{e}"));
        assert!(!rec.frames.is_empty(), "{}", dir.display());
        assert!(!rec.file.transitions.is_empty(), "{}", dir.display());
        let first = rec.frames[0].pixels().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (first.width(), first.height()),
            (rec.file.screen.width, rec.file.screen.height),
            "{}",
            dir.display()
        );
        count += 1;
    }
    assert!(count >= 5, "only {count} recordings");
}

#[test]
fn every_scenario_parses_and_names_a_plan_and_recording_that_load() {
    let root = repo();
    let mut apps = std::collections::BTreeSet::new();
    let mut count = 0;
    for path in sorted_dir(&root.join("scenarios")) {
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let src = read_text(&path, 1 << 20).expect("readable");
        let sc: ScenarioFile = parse_typed(&src).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sc.schema, "stepreplay-scenario/1");
        assert_eq!(
            path.file_stem().and_then(|s| s.to_str()),
            Some(sc.id.as_str())
        );
        let plan_path = path.parent().expect("in a folder").join(&sc.plan);
        match load_plan(&plan_path) {
            Ok(_) => {}
            // A get_guide response that needs review is refused, as its scenario declares.
            Err(e) if e.reason == Reason::PlanNeedsReview => {
                assert_eq!(sc.expect.reason, Some(FailReason::PlanNeedsReview), "{e}");
            }
            Err(e) => panic!("{e}"),
        }
        let rec = load_recording(&root.join("recordings").join(&sc.recording))
            .unwrap_or_else(|e| panic!("{e}"));
        for f in &rec.frames {
            for a in &f.ax.apps {
                apps.insert(a.name.clone());
            }
        }
        count += 1;
    }
    assert!(count >= 12, "only {count} scenarios");
    assert!(apps.len() >= 5, "apps: {apps:?}");
}

/// Every checked-in plan has exactly the error-level `check` findings its scenarios declare
/// (none, for nearly all), so `run` fails a plan the gate would tell its author to fix. The
/// `missing-picture` rule sees that every crop and screen a plan names is beside it.
#[test]
fn every_plan_has_exactly_the_check_errors_its_scenario_declares() {
    let mut checked = 0;
    for path in sorted_dir(&repo().join("scenarios")) {
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let sc: ScenarioFile =
            parse_typed(&read_text(&path, 1 << 20).expect("readable")).expect("parses");
        let plan = path.parent().expect("in a folder").join(&sc.plan);
        let report = check_source(&read_plan_source(&plan).expect("readable"));
        let mut errors: Vec<&str> = report
            .findings
            .iter()
            .filter(|f| f.severity == stepreplay::plan::check::Severity::Error)
            .map(|f| f.reason)
            .filter(|r| *r != "plan-needs-review")
            .collect();
        errors.dedup();
        assert_eq!(
            errors,
            sc.expect.plan_errors,
            "{}: {:?}",
            plan.display(),
            report.findings
        );
        checked += 1;
    }
    assert!(checked >= 25, "only {checked} scenarios");
}

#[test]
fn sensitive_answers_never_reach_a_recording_and_secure_fields_hold_bullets() {
    let root = repo();
    for path in sorted_dir(&root.join("scenarios")) {
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let sc: ScenarioFile =
            parse_typed(&read_text(&path, 1 << 20).expect("readable")).expect("parses");
        for secret in sc.answers.sensitive.values() {
            for (name, bytes) in files(&root.join("recordings").join(&sc.recording)) {
                let text = String::from_utf8_lossy(&bytes);
                assert!(!text.contains(secret.as_str()), "{}", name.display());
            }
        }
    }
    let rec = load_recording(&root.join("recordings/settings-wifi-join")).expect("loads");
    let last = rec
        .frames
        .iter()
        .rev()
        .find_map(|f| f.ax.find("pw-field").map(|(_, _, e)| e.clone()));
    let value = last
        .and_then(|e| e.value)
        .expect("the password field has a value");
    assert!(
        value.chars().all(|c| c == '•') && !value.is_empty(),
        "{value}"
    );
}

/// Loads a recording and decodes every screenshot, as a replay would.
fn load_fully(dir: &Path) -> Result<usize, InputError> {
    let rec = load_recording(dir)?;
    for f in &rec.frames {
        f.pixels()?;
    }
    Ok(rec.frames.len())
}

#[test]
fn bad_recordings_fail_with_their_reason_and_path() {
    let expected: BTreeMap<&str, Reason> = [
        ("bad-duplicate-element-id", Reason::DuplicateId),
        ("bad-missing-frame", Reason::MissingFile),
        ("bad-not-png", Reason::UnsupportedFileType),
        ("bad-path-absolute", Reason::PathEscape),
        ("bad-path-dotdot", Reason::PathEscape),
        ("bad-png-huge-header", Reason::LimitExceeded),
        ("bad-png-truncated", Reason::InvalidImage),
        ("bad-symlink-out", Reason::PathEscape),
        ("bad-transition-unknown-frame", Reason::UnknownId),
        ("bad-wrong-schema", Reason::UnsupportedSchema),
    ]
    .into_iter()
    .collect();
    // Relative paths keep the messages the same on every machine.
    let base = Path::new("tests/fixtures/recordings");
    let mut text = String::new();
    let mut seen = 0;
    for dir in sorted_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join(base)) {
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8 name");
        let rel = base.join(name);
        let err = load_fully(&rel).expect_err(name);
        assert_eq!(Some(&err.reason), expected.get(name), "{name}: {err}");
        text.push_str(&format!("{name}:\n  {err}\n"));
        seen += 1;
    }
    assert_eq!(seen, expected.len());
    insta::assert_snapshot!(text);
}

#[test]
fn show_prints_frames_transitions_and_the_tree() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_stepreplay"))
        .args(["show", "recordings/chat-assistant-reply", "--frame", "002"])
        .current_dir(repo())
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout));
}

#[test]
fn synth_refuses_a_bad_script_with_its_path_and_writes_nothing() {
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("synth-bad");
    let _ = std::fs::remove_dir_all(&out_dir);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_stepreplay"))
        .args(["synth", "tests/fixtures/scripts/bad-change.json", "--out"])
        .arg(&out_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stderr));
    assert!(!out_dir.exists(), "nothing is written for a bad script");
}

#[test]
fn every_1x_script_regenerates_its_checked_in_files_exactly() {
    // 2x scripts take longer to render in a debug build; the chat test above and CI's
    // regeneration check cover the code paths they share.
    let root = repo();
    let mut checked = 0;
    for script_path in sorted_dir(&root.join("recordings/scripts")) {
        if script_path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let script = load_script(&script_path).unwrap_or_else(|e| panic!("{e}"));
        if script.scale != 1 {
            continue;
        }
        let name = script_path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("name");
        let (rec, suite) = synth_into(name, &format!("all-{name}"));
        for (rel, bytes) in files(&rec) {
            let theirs = std::fs::read(root.join("recordings").join(name).join(&rel))
                .unwrap_or_else(|e| panic!("{name}/{}: {e}", rel.display()));
            assert!(
                theirs == bytes,
                "recordings/{name}/{} differs",
                rel.display()
            );
        }
        for (rel, bytes) in files(&suite) {
            let theirs = std::fs::read(root.join("scenarios").join(&rel))
                .unwrap_or_else(|e| panic!("scenarios/{}: {e}", rel.display()));
            assert!(theirs == bytes, "scenarios/{} differs", rel.display());
        }
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} 1x scripts");
}

/// The real zenity recording in `corpora/`, bound to the guide author's plan (UUID step ids),
/// imports to exactly the checked-in `recordings/zenity-add-contact` (regenerate it with the
/// README's `stepreplay import … --plan` command when this fails).
#[test]
fn importing_the_real_zenity_recording_reproduces_the_checked_in_one() {
    let src = repo().join("corpora/real-gtk-zenity-forms");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("import-zenity");
    let _ = std::fs::remove_dir_all(&out);
    let plan_path = repo().join("scenarios/zenity-add-contact/plan.json");
    let plan_src = read_plan_source(&plan_path).unwrap();
    let plan = plan_from_source(&plan_src).unwrap();
    let o = stepreplay::import::import_realrec(
        &src,
        &out,
        "zenity-add-contact",
        Some((&plan, &plan_src)),
        false,
    )
    .expect("imports");
    assert_eq!((o.frames, o.transitions), (9, 8));
    assert!(o.unmatched.is_empty(), "{:?}", o.unmatched);
    assert_eq!(
        files(&out),
        files(&repo().join("recordings/zenity-add-contact"))
    );
    let rec = load_recording(&out).unwrap();
    // Every transition carries its plan step's id, in order.
    let bound: Vec<_> = rec
        .file
        .transitions
        .iter()
        .map(|t| t.step_id.clone())
        .collect();
    let ids: Vec<_> = plan.steps.iter().map(|s| Some(s.id.clone())).collect();
    assert_eq!(bound, ids);
    // The menu item the source addressed under the combo has its look-alike in the menu's own
    // window as an equivalent.
    let pick = &rec.file.transitions[6];
    assert_eq!(pick.element.as_deref(), Some("e0-0-0-0-0-2-0-2"));
    assert_eq!(pick.equivalent, ["e0-1-0-2"]);
}

/// Without `--plan` the actions are `s1..sN`, which a guide's plan does not name: the replay
/// must then judge nothing and say so, never score 1.000 (issue 15's first finding).
#[test]
fn a_recording_not_bound_to_its_plan_is_bad_input() {
    let tmp = crate::util::TempDir::new("unbound");
    let rec = tmp.path().join("recordings/zenity");
    let o = crate::util::stepreplay(repo())
        .args(["import", "corpora/real-gtk-zenity-forms", "--out"])
        .args([&rec])
        .run();
    o.check(o.code == 0, "imports");
    // A suite of its own: scenarios/ beside recordings/, the plan copied beside its scenario.
    let scenarios = tmp.path().join("scenarios");
    std::fs::create_dir_all(scenarios.join("zenity")).unwrap();
    std::fs::copy(
        repo().join("scenarios/zenity-add-contact/plan.json"),
        scenarios.join("zenity/plan.json"),
    )
    .unwrap();
    let text = std::fs::read_to_string(repo().join("scenarios/zenity-add-contact.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["plan"] = "zenity/plan.json".into();
    v["recording"] = "zenity".into();
    let scen = scenarios.join("zenity.json");
    std::fs::write(&scen, v.to_string()).unwrap();
    let report = tmp.path().join("report");
    let o = crate::util::stepreplay(repo())
        .args(["run", "-q", "--reports", "json", "--report-dir"])
        .args([&report, &scen])
        .run();
    // Nothing to compare: the pair is bad input, never a run that completed or scored.
    o.check(
        o.code == 2 && o.stdout.contains("plan-recording-mismatch"),
        "a plan bound to nothing in its recording is bad input",
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("report.json")).unwrap())
            .unwrap();
    assert_eq!(r["scenarios"][0]["met"], false);
    assert_eq!(
        r["scenarios"][0]["runs"]["chained"]["reason"],
        "broken-input"
    );
}

/// A plan whose steps do not follow the recording is refused at its first disagreement, with
/// the plan's line and column, and nothing is written.
#[test]
fn import_refuses_a_plan_that_does_not_follow_the_recording() {
    let tmp = crate::util::TempDir::new("mismatch");
    let plan = tmp.path().join("plan.json");
    let text =
        std::fs::read_to_string(repo().join("scenarios/zenity-add-contact/plan.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    // Step 4 presses Tab in the recording; make it a click.
    let steps = v["steps"].as_array_mut().unwrap();
    steps.swap(3, 4);
    for (i, s) in steps.iter_mut().enumerate() {
        s["number"] = (i + 1).into();
        s["label"] = (i + 1).to_string().into();
    }
    std::fs::write(&plan, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let out = tmp.path().join("out");
    let o = crate::util::stepreplay(repo())
        .args(["import", "corpora/real-gtk-zenity-forms", "--out"])
        .args([&out])
        .args(["--plan".as_ref(), plan.as_os_str()])
        .run();
    o.check(o.code == 2, "refused");
    o.check(
        o.stderr.contains("plan-recording-mismatch") && o.stderr.contains("at `steps[3].action`"),
        "reason and field path",
    );
    o.check(
        o.stderr
            .split("plan.json:")
            .nth(1)
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit())),
        "line and column of the step",
    );
    assert!(!out.exists(), "nothing written");
}

#[test]
fn import_refuses_a_frame_name_that_leaves_the_folder() {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("import-bad");
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    std::fs::write(
        base.join("steps.json"),
        r#"[{"index": 0, "before": "../x", "after": "f1", "action": {"op": "click"}}]"#,
    )
    .unwrap();
    let err =
        stepreplay::import::import_realrec(&base, &base.join("out"), "x", None, false).unwrap_err();
    let stepreplay::Error::Input(e) = err else {
        panic!("{err:?}")
    };
    assert_eq!(e.reason, Reason::PathEscape);
    assert_eq!(e.path.to_string(), "[0]");
    assert!(!base.join("out").exists(), "nothing written");
}

/// `stepreplay show REC | head`: when the reader goes away, the command ends quietly (killed
/// by SIGPIPE like other Unix tools), never with a panic about a broken pipe.
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_show_quietly() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_stepreplay"))
        .current_dir(repo())
        .args(["show", "recordings/calendar-reschedule"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_variant_edit_that_cannot_apply_names_its_field() {
    let src = std::fs::read_to_string(repo().join("recordings/scripts/mail-send-reminder.json"))
        .expect("script");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("synth-bad-variant");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    for (edit, path, why) in [
        (
            serde_json::json!({ "step": 99, "set": { "text": "x" } }),
            "variants[0].edits[0].step",
            "the plan has no step 99",
        ),
        (
            serde_json::json!({ "step": 1, "set": { "text.inner": "x" } }),
            "variants[0].edits[0].set.text.inner",
            "runs through a value that is not an object",
        ),
    ] {
        let mut script: serde_json::Value = serde_json::from_str(&src).expect("json");
        script["variants"] = serde_json::json!([{ "name": "broken", "edits": [edit] }]);
        let file = dir.join("script.json");
        std::fs::write(&file, script.to_string()).expect("write");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_stepreplay"))
            .arg("synth")
            .arg(&file)
            .arg("--out")
            .arg(dir.join("recording"))
            .arg("--plan-out")
            .arg(dir.join("suite/plan"))
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(path) && err.contains(why), "{err}");
    }
}

/// `synth` writes the plan and scenarios by default (into `scenarios/`, where `run` looks),
/// says what it wrote, and `run` in that folder replays them as declared.
#[test]
fn synth_writes_its_plan_by_default_and_run_replays_it() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("synth-default-plan");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let script = repo().join("recordings/scripts/settings-wifi-join.json");
    let bin = env!("CARGO_BIN_EXE_stepreplay");
    let out = std::process::Command::new(bin)
        .arg("synth")
        .arg(&script)
        .args(["--out", "recordings/wifi"])
        .current_dir(&dir)
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(dir.join("scenarios/wifi/plan.json").is_file(), "{err}");
    assert!(
        err.contains("wrote recording recordings/wifi: ")
            && err.contains("wrote scenarios/wifi: plan.json, "),
        "{err}"
    );
    let run = std::process::Command::new(bin)
        .args(["run", "-q", "--reports", "json"])
        .current_dir(&dir)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{text}");
    assert!(text.contains(" as expected, 0 not"), "{text}");
    // --no-plan writes the recording only.
    let bare = dir.join("bare");
    std::fs::create_dir_all(&bare).expect("dir");
    let out = std::process::Command::new(bin)
        .arg("synth")
        .arg(&script)
        .args(["--out", "rec", "--no-plan"])
        .current_dir(&bare)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(!bare.join("scenarios").exists());
}
