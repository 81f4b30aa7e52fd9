//! devthink browser plans end to end: headless Chromium records a local page, and the
//! recording replays; the checked-in devthink scenarios replay beside the others.

use std::path::Path;

use serde_json::Value;

use crate::util::{TempDir, have_tool, record_browser, repo, run_in};

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Every file under `dir`, as text where it is text.
fn contains_anywhere(dir: &Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            hits.extend(contains_anywhere(&p, needle));
        } else if std::fs::read(&p)
            .unwrap()
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
        {
            hits.push(p.display().to_string());
        }
    }
    hits
}

/// The whole path CI takes: a local page recorded in headless Chromium over the DevTools
/// pipe, then replayed by `run` with its report read back.
#[cfg(target_os = "linux")]
#[test]
fn chromium_records_a_local_page_and_the_recording_replays() {
    if !have_tool("chromium", "scripts/install-test-deps installs chromium") {
        return;
    }
    let tmp = TempDir::new("devthink-live");
    let suite = tmp.path();
    let browser = repo().join("recordings/scripts/browser");
    std::fs::create_dir_all(suite.join("scenarios/live-login")).unwrap();
    std::fs::copy(
        browser.join("login.json"),
        suite.join("scenarios/live-login/plan.json"),
    )
    .unwrap();
    let rec = suite.join("recordings/live-login");
    let pages = browser.join("pages");
    let login = browser.join("login.json");
    record_browser(suite, &login, &pages, &rec, &[]).expect_code(0);
    // Three files a frame: the screenshot, the DOM with boxes, the accessibility tree.
    let recording = read_json(&rec.join("recording.json"));
    let frames = recording["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 6, "the first page and one frame per step");
    for f in frames {
        for key in ["screenshot", "ax", "dom"] {
            assert!(rec.join(f[key].as_str().unwrap()).is_file(), "{f}");
        }
    }
    // Recording again over it is refused before any browser starts, without --force.
    let before = std::fs::read(rec.join("recording.json")).unwrap();
    let again = record_browser(suite, &login, &pages, &rec, &[]);
    again.expect_code(2);
    assert!(
        again.stderr.contains("already recorded here") && again.stderr.contains("--force"),
        "{}",
        again.stderr
    );
    assert_eq!(std::fs::read(rec.join("recording.json")).unwrap(), before);
    let typed = &recording["transitions"][1];
    assert_eq!(typed["element"], "/html/body/form/input");
    assert_eq!(typed["operation"]["text"], "robin");
    assert!(
        recording["transitions"][2]["operation"]
            .get("text")
            .is_none(),
        "a sensitive step's text is not recorded"
    );
    let dom = read_json(&rec.join("frames/frame_001.dom.json"));
    let field = dom["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["attrs"]["id"] == "user")
        .expect("the user name field");
    assert!(field["rect"]["width"].as_i64().unwrap() > 50, "{field}");
    assert!(
        !rec.join(".stepreplay-tmp-browser").exists(),
        "the browser's profile is removed"
    );
    let scenario = serde_json::json!({
        "schema": "stepreplay-scenario/1", "id": "live-login", "plan": "live-login/plan.json",
        "recording": "live-login", "clock": 1767226000000u64,
        "answers": {"confirm": {"pass": "approve", "signin": "approve"}},
        "expect": {"outcome": "completed"}
    });
    let report = run_written(suite, "live-login", &scenario);
    let run = &report["scenarios"][0]["runs"]["chained"];
    assert_eq!(run["outcome"], "completed");
    let steps = run["steps"].as_array().unwrap();
    assert_eq!(steps[1]["resolution"]["strategy"], "selector");
    assert_eq!(steps[1]["resolution"]["element"], "/html/body/form/input");
    assert_eq!(steps[4]["web"]["read"][0], "Welcome back");
    assert_eq!(steps[4]["web"]["read"][1], "dom-text");
    assert!(run["review"][0].as_str().unwrap().starts_with("execute"));
    let secret = "hunter2-correct";
    assert_eq!(contains_anywhere(&rec, secret), Vec::<String>::new());
    assert_eq!(
        contains_anywhere(&suite.join("out"), secret),
        Vec::<String>::new()
    );
}

/// Runs bundled scenario files (they must all be as expected) into `out`; `report.json`.
fn run_bundled(files: &[String], out: &Path) -> Value {
    let mut args = vec!["run", "--report-dir", out.to_str().unwrap()];
    args.extend(files.iter().map(String::as_str));
    run_in(repo(), &args).expect_code(0);
    read_json(&out.join("report.json"))
}

/// Scenario `id`'s chained run in a report.
fn chained_of(report: &Value, id: &str) -> Value {
    report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no {id}"))["runs"]["chained"]
        .clone()
}

/// The checked-in devthink scenarios, run on their own, each as expected, and what each one
/// is about shows in the report.
#[test]
fn the_devthink_scenarios_replay_as_expected() {
    let tmp = TempDir::new("devthink-suite");
    let scenarios: Vec<String> = std::fs::read_dir(repo().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("devthink-") && n.ends_with(".json"))
        .map(|n| format!("scenarios/{n}"))
        .collect();
    assert!(scenarios.len() >= 8, "{scenarios:?}");
    let out = tmp.path().join("out");
    let report = run_bundled(&scenarios, &out);
    let by_id = |id: &str| chained_of(&report, id);
    // The retried add-to-cart is deduplicated, not clicked twice; the payment is captured
    // before and after under its naming pattern, and the diffshot saw the page change.
    let pay = by_id("devthink-pay");
    let steps = pay["steps"].as_array().unwrap();
    assert_eq!(steps[2]["status"], "deduplicated");
    // `pair`: the frames before and after the step, each under its name; no other step has
    // captures.
    let frames = &steps[4]["frames"];
    assert_eq!(
        steps[4]["web"]["captures"],
        serde_json::json!([
            ["pay-pay-before.png", frames[0]],
            ["pay-pay-after.png", frames[1]]
        ])
    );
    assert_ne!(frames[0], frames[1]);
    assert!(
        (steps.iter().enumerate()).all(|(i, s)| i == 4 || s["web"]["captures"].is_null()),
        "{pay}"
    );
    let diffshot = steps[4]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "diffshot");
    assert_eq!(diffshot.unwrap()["passed"], true);
    assert_eq!(
        pay["scores"]["step_success"], 1.0,
        "a rightly skipped retry counts as done"
    );
    let pending = by_id("devthink-login-pending-approved");
    let review: Vec<&str> = pending["review"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().split(':').next().unwrap())
        .collect();
    assert_eq!(review, ["preview", "approve", "execute"]);
    let ambiguous = by_id("devthink-cart-ambiguous");
    assert_eq!(ambiguous["steps"][1]["resolution"]["candidate_count"], 2);
    let unrecorded = by_id("devthink-vision-not-recorded");
    assert_eq!(unrecorded["reason"], "not-recorded");
    assert_eq!(unrecorded["steps"][4]["status"], "failed");
    // JUnit and Markdown carry the devthink runs like any other.
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    assert!(junit.contains("devthink-pay"), "{junit}");
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("review reject"), "{md}");
}

/// A devthink scenario must say when it happens: the wall clock never decides expiry.
#[test]
fn a_devthink_scenario_without_a_clock_is_refused_at_clock() {
    let tmp = TempDir::new("devthink-clock");
    let suite = tmp.path();
    crate::util::copy_tree(
        &repo().join("recordings/devthink-login"),
        &suite.join("recordings/devthink-login"),
    );
    crate::util::copy_tree(
        &repo().join("scenarios/devthink-login"),
        &suite.join("scenarios/devthink-login"),
    );
    let mut sc = read_json(&repo().join("scenarios/devthink-login.json"));
    sc.as_object_mut().unwrap().remove("clock");
    std::fs::write(suite.join("scenarios/devthink-login.json"), sc.to_string()).unwrap();
    let run = run_in(
        suite,
        &[
            "run",
            "scenarios/devthink-login.json",
            "--report-dir",
            "out",
        ],
    );
    run.expect_code(2);
    assert!(run.stderr.contains("clock"), "{}", run.stderr);
    let check = run_in(
        suite,
        &["check", "--format", "json", "scenarios/devthink-login.json"],
    );
    let findings = read_json_str(&check.stdout);
    assert!(check.stdout.contains("\"clock\""), "{findings}");
}

fn read_json_str(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or(Value::Null)
}

/// `--ocr tesseract` reads the element's box off the screenshot, and the report says so;
/// without Tesseract on the PATH the run is refused before it starts.
#[test]
fn tesseract_reads_what_the_dom_says_and_the_report_names_it() {
    if !have_tool(
        "tesseract",
        "scripts/install-test-deps installs tesseract-ocr",
    ) {
        return;
    }
    let tmp = TempDir::new("devthink-ocr");
    let out = tmp.path().join("out");
    run_in(
        repo(),
        &[
            "run",
            "scenarios/devthink-search-extract.json",
            "--ocr",
            "tesseract",
            "--report-dir",
            out.to_str().unwrap(),
        ],
    )
    .expect_code(0);
    let report = read_json(&out.join("report.json"));
    let first = &report["scenarios"][0]["runs"]["chained"]["steps"][3];
    assert_eq!(first["web"]["read"][1], "tesseract");
    assert_eq!(first["web"]["read"][0], "Blue mug $12");
    let run = crate::util::stepreplay(repo())
        .args([
            "run",
            "scenarios/devthink-search-extract.json",
            "--ocr",
            "tesseract",
        ])
        .args(["--report-dir", out.to_str().unwrap()])
        .env("PATH", "/nonexistent")
        .run();
    run.expect_code(2);
    assert!(run.stderr.contains("tesseract-ocr"), "{}", run.stderr);
}

/// A `wait` step waits for what a page adds later, and replays on the frame it ended on; a
/// target below the fold is refused with what to do, not clicked where no click lands.
#[cfg(target_os = "linux")]
#[test]
fn the_recorder_waits_for_late_elements_and_refuses_unreachable_ones() {
    if !have_tool("chromium", "scripts/install-test-deps installs chromium") {
        return;
    }
    let tmp = TempDir::new("devthink-late");
    let dir = tmp.path();
    std::fs::write(
        dir.join("index.html"),
        "<!DOCTYPE html><html><head><title>Late</title></head><body>\
         <button id=\"far\" style=\"margin-top:2000px\">Far</button><script>\
         setTimeout(() => { const p = document.createElement('p'); p.id = 'late';\
         p.textContent = 'Here now'; document.body.prepend(p); }, 600);</script></body></html>",
    )
    .unwrap();
    let plan = |steps: Value| {
        serde_json::json!({"id": "p", "objective": "o", "origin": "http://127.0.0.1:8000",
            "createdat": 1, "expiresat": 2, "state": "approved", "steps": steps})
        .to_string()
    };
    let open = serde_json::json!({"id": "open", "kind": "navigate", "risk": "interaction",
                                  "summary": "open", "value": "/"});
    std::fs::write(
        dir.join("wait.json"),
        plan(
            serde_json::json!([open, {"id": "late", "kind": "wait", "risk": "read",
            "summary": "wait", "target": "#late"}]),
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("far.json"),
        plan(
            serde_json::json!([open, {"id": "far", "kind": "click", "risk": "interaction",
            "summary": "click", "target": "#far"}]),
        ),
    )
    .unwrap();
    let record = |plan: &str, out: &str| record_browser(dir, plan, ".", out, &[]);
    record("wait.json", "recordings/late").expect_code(0);
    let dom = read_json(&dir.join("recordings/late/frames/frame_002.dom.json"));
    assert!(
        dom.to_string().contains("Here now"),
        "the frame after the wait shows it"
    );
    // Replayed, the wait finds its control on the frame it ended on, where it shows.
    std::fs::create_dir_all(dir.join("scenarios/late")).unwrap();
    std::fs::copy(dir.join("wait.json"), dir.join("scenarios/late/plan.json")).unwrap();
    std::fs::write(
        dir.join("scenarios/late.json"),
        serde_json::json!({"schema": "stepreplay-scenario/1", "id": "late",
            "plan": "late/plan.json", "recording": "late", "clock": 1,
            "expect": {"outcome": "completed"}})
        .to_string(),
    )
    .unwrap();
    let replayed = run_in(dir, &["run", "scenarios/late.json", "--report-dir", "out"]);
    replayed.expect_code(0);
    let far = record("far.json", "far");
    far.expect_code(3);
    assert!(
        far.stderr.contains("outside the viewport"),
        "{}",
        far.stderr
    );
}

/// The login scenario and its recording in a folder of their own, with `edit` applied to the
/// recording folder; the chained run's report.
fn login_with_recording(name: &str, edit: impl FnOnce(&Path)) -> Value {
    let tmp = TempDir::new(name);
    let suite = tmp.path();
    let rec = suite.join("recordings/devthink-login");
    crate::util::copy_tree(&repo().join("recordings/devthink-login"), &rec);
    crate::util::copy_tree(
        &repo().join("scenarios/devthink-login"),
        &suite.join("scenarios/devthink-login"),
    );
    std::fs::copy(
        repo().join("scenarios/devthink-login.json"),
        suite.join("scenarios/devthink-login.json"),
    )
    .unwrap();
    edit(&rec);
    run_login(suite, 1)
}

/// Runs the login scenario in `suite` with a JSON report, the run's exit code checked
/// against `code`; its chained run's report.
fn run_login(suite: &Path, code: i32) -> Value {
    run_in(
        suite,
        &[
            "run",
            "scenarios/devthink-login.json",
            "--reports",
            "json",
            "--report-dir",
            "out",
        ],
    )
    .expect_code(code);
    read_json(&suite.join("out/report.json"))["scenarios"][0]["runs"]["chained"].clone()
}

fn edit_json(p: &Path, edit: impl FnOnce(&mut Value)) {
    let mut v = read_json(p);
    edit(&mut v);
    std::fs::write(p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

/// A step whose selector and `targetref` name different fields runs what the selector names,
/// and the report says the two disagree; when they agree, nothing is said.
#[test]
fn a_selector_and_a_targetref_naming_different_fields_are_reported() {
    let note = |name: &str| -> Value {
        let tmp = TempDir::new(&format!("devthink-targetref-{}", name.replace(' ', "-")));
        let suite = tmp.path();
        crate::util::copy_scenario(suite, "devthink-login", "devthink-login");
        edit_json(&suite.join("scenarios/devthink-login/plan.json"), |p| {
            let user = p["steps"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|s| s["id"] == "user")
                .unwrap();
            user["options"] = serde_json::json!({"targetref": {"role": "textbox", "name": name}})
                .to_string()
                .into();
        });
        run_login(suite, 0)["steps"][1]["resolution"]["note"].clone()
    };
    let differ = note("Password");
    assert!(
        differ
            .as_str()
            .is_some_and(|n| n.contains("the selector and the targetref name different elements")),
        "{differ}"
    );
    assert!(note("User name").is_null(), "they agree: nothing to say");
}

/// The login scenario in a folder of its own, its plan's step `id` edited; the chained run's
/// report, the run's exit code checked against `code`.
fn login_with_step(name: &str, id: &str, code: i32, edit: impl FnOnce(&mut Value)) -> Value {
    let tmp = TempDir::new(name);
    let suite = tmp.path();
    crate::util::copy_scenario(suite, "devthink-login", "devthink-login");
    edit_json(&suite.join("scenarios/devthink-login/plan.json"), |p| {
        let steps = p["steps"].as_array_mut().unwrap();
        edit(steps.iter_mut().find(|s| s["id"] == id).unwrap());
    });
    run_login(suite, code)
}

/// A step's `value` is the text it types or the text it reads: the login plan with another
/// user name, or another greeting, fails at that step and says what differs.
#[test]
fn a_value_other_than_the_recorded_one_fails_its_step() {
    for (id, value, at, said) in [
        (
            "user",
            "robyn",
            1,
            r#""part":"text","passed":false,"planned":"robyn","recorded":"robin""#,
        ),
        ("welcome", "Goodbye", 4, "the plan expects “Goodbye”"),
    ] {
        let run = login_with_step(&format!("devthink-value-{id}"), id, 1, |s| {
            s["value"] = value.into();
        });
        assert_eq!(run["step_id"], id, "{run}");
        let step = &run["steps"][at];
        assert_eq!(step["status"], "failed", "{step}");
        assert!(step.to_string().contains(said), "{step}");
    }
}

/// With no selector, the `targetref` alone finds the element: the user-name field by its role
/// and name replays, a name on no element fails where the plan first looks for it.
#[test]
fn a_targetref_without_a_selector_finds_the_element_by_role_and_name() {
    let by_ref = |name: &str, code: i32| {
        login_with_step(
            &format!("devthink-targetref-only-{}", name.replace(' ', "-")),
            "user",
            code,
            |s| {
                s.as_object_mut().unwrap().remove("target");
                s["options"] = serde_json::json!({"targetref": {"role": "textbox", "name": name}})
                    .to_string()
                    .into();
            },
        )
    };
    let run = by_ref("User name", 0);
    assert_eq!(run["steps"][1]["resolution"]["correct"], true, "{run}");
    let run = by_ref("Nope", 1);
    assert_eq!(run["reason"], "expect-failed", "{run}");
    assert!(
        run.to_string().contains("no control labelled “Nope”"),
        "{run}"
    );
}

/// `run` takes the depth cap `check` takes: options nesting 200 levels are refused by default,
/// with the setting named, and replay once `--max-depth 200` allows them.
#[test]
fn run_takes_the_depth_cap_check_takes() {
    let tmp = TempDir::new("devthink-run-depth");
    let suite = tmp.path();
    crate::util::copy_scenario(suite, "devthink-login", "devthink-login");
    let deep = format!("{}1{}", "[".repeat(198), "]".repeat(198));
    edit_json(&suite.join("scenarios/devthink-login/plan.json"), |p| {
        p["steps"][1]["options"] = format!(
            "{{\"targetref\": {{\"role\": \"textbox\", \"name\": \"User name\", \"path\": {deep}}}}}"
        )
        .into();
    });
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "scenarios/devthink-login.json",
            "--report-dir",
            "out",
        ];
        args.extend(extra);
        run_in(suite, &args)
    };
    let refused = run(&[]);
    refused.expect_code(2);
    assert!(
        refused.stdout.contains("nests deeper than 127 levels")
            && refused
                .stderr
                .contains("`--max-depth` (check, fmt, run, agent, mutate) raises"),
        "{refused}"
    );
    run(&["--max-depth", "200"]).expect_code(0);
    run(&["--max-depth", "199"]).expect_code(2);
}

/// A click that leaves the origin is judged by where the recorded page went: the frame after
/// the sign-in click shows another server, so that step fails `outside-origin` (no URL in
/// the plan leaves the origin, and the step before it is on the origin's own page).
#[test]
fn a_step_whose_page_went_outside_the_origin_fails_there() {
    let run = login_with_recording("devthink-left", |rec| {
        edit_json(&rec.join("frames/frame_004.dom.json"), |d| {
            d["url"] = "http://evil.test\\@127.0.0.1:8000/account.html".into();
        });
    });
    assert_eq!(run["outcome"], "failed", "{run}");
    assert_eq!(run["reason"], "outside-origin", "{run}");
    assert_eq!(run["step_id"], "signin", "{run}");
    let signin = &run["steps"][3];
    let origin = signin["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "origin")
        .unwrap_or_else(|| panic!("{signin}"));
    assert_eq!(origin["passed"], false);
    assert!(
        origin["detail"].as_str().unwrap().contains("evil.test"),
        "{origin}"
    );
}

/// When the frame after a click on a link out of the origin keeps no URL, the recording
/// cannot tell where the page went: the step is not judged (`origin-unjudged`), never passed.
#[test]
fn a_link_out_with_no_address_after_it_is_not_judged() {
    let run = login_with_recording("devthink-unjudged", |rec| {
        edit_json(&rec.join("frames/frame_003.dom.json"), |d| {
            let nodes = d["nodes"].as_array_mut().unwrap();
            let button = nodes
                .iter_mut()
                .find(|n| n["id"] == "/html/body/form/div/button")
                .unwrap();
            button["tag"] = "a".into();
            button["attrs"]["href"] = "https://evil.test/account".into();
        });
        edit_json(&rec.join("recording.json"), |r| {
            r["frames"][4].as_object_mut().unwrap().remove("dom");
        });
    });
    assert_eq!(run["outcome"], "failed", "{run}");
    let signin = &run["steps"][3];
    assert_eq!(signin["status"], "failed", "{signin}");
    assert_eq!(signin["reason"], "origin-unjudged", "{signin}");
}

/// A `regionocr` step reads the text inside its `ocrregion`, not its target's whole box: the
/// search scenario's last step expects the first result only, which the region around it
/// reads and the whole list does not. A region the harness cannot place is said, not guessed.
#[test]
fn an_ocrregion_is_the_region_read_and_it_decides_the_verdict() {
    let run = |name: &str, options: Value| -> (i32, Value) {
        let tmp = TempDir::new(&format!("devthink-ocrregion-{name}"));
        let suite = tmp.path();
        crate::util::copy_scenario(suite, "devthink-search-extract", "devthink-search");
        edit_json(
            &suite.join("scenarios/devthink-search-extract/plan.json"),
            |p| {
                let shot = &mut p["steps"][4];
                assert_eq!(shot["kind"], "regionocr");
                shot["value"] = "Blue mug $12".into();
                shot["options"] = options.to_string().into();
            },
        );
        let run = run_in(
            suite,
            &[
                "run",
                "scenarios/devthink-search-extract.json",
                "--reports",
                "json",
                "--report-dir",
                "out",
            ],
        );
        let report = read_json(&suite.join("out/report.json"));
        let step = report["scenarios"][0]["runs"]["chained"]["steps"][4].clone();
        (run.code, step)
    };
    let checks = |step: &Value| step["checks"].to_string();
    // The list as a whole holds both results.
    let (code, step) = run(
        "list",
        serde_json::json!({"ocrregion": {"selector": "#results"}}),
    );
    assert_eq!(code, 1, "{step}");
    assert_eq!(
        step["web"]["read"][0], "Blue mug $12 Mug rack $18",
        "{step}"
    );
    assert!(checks(&step).contains("reads-text"), "{step}");
    // The first line of the list, as a box in page pixels and as a selector.
    for (name, region) in [
        (
            "box",
            serde_json::json!({"x": 24, "y": 180, "width": 752, "height": 19}),
        ),
        (
            "selector",
            serde_json::json!({"selector": "#results li:first-child"}),
        ),
    ] {
        let (code, step) = run(name, serde_json::json!({ "ocrregion": region }));
        assert_eq!(code, 0, "{name}: {step}");
        assert_eq!(step["web"]["read"][0], "Blue mug $12", "{name}: {step}");
    }
    // A shape with no place on the page reads nothing and fails the read, saying why.
    let (code, step) = run(
        "unknown",
        serde_json::json!({"ocrregion": {"left": 24, "top": 180}}),
    );
    assert_eq!(code, 1, "{step}");
    assert!(checks(&step).contains("places no region"), "{step}");
}

/// The recorder keeps every element the plan's selectors name, even one the browser's
/// accessibility tree leaves out: an `extract` of a `<span>` inside an `<li>` reads the span,
/// not the list item around it.
#[cfg(target_os = "linux")]
#[test]
fn the_recorder_keeps_a_span_the_plan_targets_and_replay_reads_it() {
    if !have_tool("chromium", "scripts/install-test-deps installs chromium") {
        return;
    }
    let tmp = TempDir::new("devthink-span");
    let suite = tmp.path();
    let pages = suite.join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    std::fs::write(
        pages.join("total.html"),
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Cart</title>\
         </head><body><ul><li>Total: <span id=\"sum\">$12</span> with tax</li>\
         <li>Items: 3</li></ul></body></html>",
    )
    .unwrap();
    let plan = serde_json::json!({
        "$schema": "devthink/protocolv2/plan.schema.json",
        "id": "plan-total", "objective": "Read the cart's total",
        "origin": "http://127.0.0.1:8000", "state": "approved",
        "createdat": 1767225600000u64, "approvedat": 1767225900000u64,
        "expiresat": 1767312000000u64,
        "steps": [
            {"id": "open", "kind": "navigate", "risk": "interaction",
             "summary": "Open the cart", "value": "/total.html"},
            {"id": "sum", "kind": "extract", "risk": "read", "summary": "Read the total",
             "target": "#sum", "value": "$12"}
        ]
    });
    std::fs::create_dir_all(suite.join("scenarios/total")).unwrap();
    let plan_path = suite.join("scenarios/total/plan.json");
    std::fs::write(&plan_path, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let rec = suite.join("recordings/total");
    record_browser(suite, &plan_path, &pages, &rec, &[]).expect_code(0);
    let recording = read_json(&rec.join("recording.json"));
    let span = "/html/body/ul/li/span";
    assert_eq!(recording["transitions"][1]["element"], span);
    let ax = std::fs::read_to_string(rec.join("frames/frame_001.ax.json")).unwrap();
    assert!(ax.contains(span), "the span is in the frame's AX file");
    let scenario = serde_json::json!({
        "schema": "stepreplay-scenario/1", "id": "total", "plan": "total/plan.json",
        "recording": "total", "clock": 1767226000000u64,
        "expect": {"outcome": "completed"}
    });
    let report = run_written(suite, "total", &scenario);
    let step = &report["scenarios"][0]["runs"]["chained"]["steps"][1];
    assert_eq!(step["resolution"]["element"], span, "{step}");
    assert_eq!(step["resolution"]["correct"], true, "{step}");
    assert_eq!(step["web"]["read"][0], "$12", "{step}");
}

/// Writes `scenario` as `scenarios/ID.json` in `suite`, runs it (it must pass) and returns its
/// `report.json`.
fn run_written(suite: &Path, id: &str, scenario: &Value) -> Value {
    let file = format!("scenarios/{id}.json");
    std::fs::write(
        suite.join(&file),
        serde_json::to_string_pretty(scenario).unwrap(),
    )
    .unwrap();
    run_in(suite, &["run", &file, "--report-dir", "out"]).expect_code(0);
    read_json(&suite.join("out/report.json"))
}

/// Any JSON number is a time, as the schema says: the login plan with its times spelled as
/// floats and exponents checks clean and replays to the end; the one instant is read the
/// same whatever its spelling. A fraction past the clock is not yet reached.
#[test]
fn times_spelled_as_floats_check_clean_and_replay() {
    for (name, created, expires) in [
        ("float", "1767225600000.0", "1767312000000.0"),
        ("exponent", "1.7672256E12", "17673120e5"),
    ] {
        let tmp = TempDir::new(&format!("devthink-times-{name}"));
        let suite = tmp.path();
        crate::util::copy_scenario(suite, "devthink-login", "devthink-login");
        let plan = suite.join("scenarios/devthink-login/plan.json");
        let text = std::fs::read_to_string(&plan).unwrap();
        let text = text
            .replacen(
                "\"createdat\": 1767225600000",
                &format!("\"createdat\": {created}"),
                1,
            )
            .replacen(
                "\"expiresat\": 1767312000000",
                &format!("\"expiresat\": {expires}"),
                1,
            );
        assert!(text.contains(created) && text.contains(expires), "{text}");
        std::fs::write(&plan, text).unwrap();
        let check = run_in(
            suite,
            &[
                "check",
                "--format",
                "json",
                "scenarios/devthink-login/plan.json",
            ],
        );
        let findings = read_json_str(&check.stdout);
        let reasons: Vec<&str> = findings["findings"]
            .as_array()
            .map(|f| f.iter().filter_map(|f| f["reason"].as_str()).collect())
            .unwrap_or_default();
        // An exponent is respelled by `fmt` (the same number): only the layout is flagged.
        // Layout is a warning: the plan still checks clean.
        check.expect_code(0);
        if name != "float" {
            assert_eq!(reasons, ["non-canonical"], "{findings}");
        }
        let chained = run_login(suite, 0);
        assert_eq!(chained["outcome"], "completed", "{name}: {chained}");
    }
    // Half a millisecond before the clock is expired; half after is not.
    for (expires, code) in [("1767225999999.5", 1), ("1767226000000.5", 0)] {
        let tmp = TempDir::new(&format!("devthink-times-frac-{code}"));
        let suite = tmp.path();
        crate::util::copy_scenario(suite, "devthink-login", "devthink-login");
        let plan = suite.join("scenarios/devthink-login/plan.json");
        let text = std::fs::read_to_string(&plan).unwrap().replacen(
            "\"expiresat\": 1767312000000",
            &format!("\"expiresat\": {expires}"),
            1,
        );
        std::fs::write(&plan, text).unwrap();
        let chained = run_login(suite, code);
        let want = if code == 0 { "completed" } else { "refused" };
        assert_eq!(chained["outcome"], want, "{expires}: {chained}");
    }
}

/// A path the recorded pages lack is a failed load, not a page outside the origin: the
/// recorder answers it with a visible 404 page at the origin's own address, and replay fails
/// the step on the load, naming its status and URL, never `outside-origin`.
#[cfg(target_os = "linux")]
#[test]
fn a_missing_page_is_a_failed_load_inside_the_origin() {
    if !have_tool("chromium", "scripts/install-test-deps installs chromium") {
        return;
    }
    let tmp = TempDir::new("devthink-404");
    let suite = tmp.path();
    let plan = serde_json::json!({
        "$schema": "devthink/protocolv2/plan.schema.json",
        "approvedat": 1767225900000u64, "createdat": 1767225600000u64,
        "expiresat": 1767312000000u64, "id": "plan-missing",
        "objective": "Open a page the shop lacks", "origin": "http://127.0.0.1:8000",
        "state": "approved",
        "steps": [
            {"id": "open", "kind": "navigate", "risk": "interaction",
             "summary": "Open the sign-in page", "value": "/login.html"},
            {"id": "lost", "kind": "navigate", "risk": "interaction",
             "summary": "Open the order history", "value": "/order-history.html"}
        ]
    });
    std::fs::create_dir_all(suite.join("scenarios/missing")).unwrap();
    let plan_file = suite.join("scenarios/missing/plan.json");
    std::fs::write(&plan_file, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let rec = suite.join("recordings/missing");
    let pages = repo().join("recordings/scripts/browser/pages");
    record_browser(suite, &plan_file, &pages, &rec, &[]).expect_code(0);
    let recording = read_json(&rec.join("recording.json"));
    let last = recording["frames"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let dom = read_json(&rec.join(last["dom"].as_str().unwrap()));
    assert_eq!(
        dom["url"], "http://127.0.0.1:8000/order-history.html",
        "{dom}"
    );
    assert!(
        dom.to_string().contains("404 Not Found"),
        "a visible page: {dom}"
    );
    let scenario = serde_json::json!({
        "schema": "stepreplay-scenario/1", "id": "missing", "plan": "missing/plan.json",
        "recording": "missing", "clock": 1767226000000u64,
        "expect": {"outcome": "failed"}
    });
    std::fs::write(
        suite.join("scenarios/missing.json"),
        serde_json::to_string_pretty(&scenario).unwrap(),
    )
    .unwrap();
    run_in(
        suite,
        &[
            "run",
            "scenarios/missing.json",
            "--reports",
            "json",
            "--report-dir",
            "out",
        ],
    );
    let chained = &read_json(&suite.join("out/report.json"))["scenarios"][0]["runs"]["chained"];
    assert_ne!(chained["reason"], "outside-origin", "{chained}");
    let lost = &chained["steps"][1];
    assert_eq!(lost["status"], "failed", "{lost}");
    let load = lost["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "load")
        .unwrap_or_else(|| panic!("a load check: {lost}"));
    let detail = load["detail"].as_str().unwrap();
    assert!(
        detail.contains("404") && detail.contains("http://127.0.0.1:8000/order-history.html"),
        "{detail}"
    );
}

/// The `received` and `correlation` checks of a chained run's step, as `(kind, passed, detail)`.
fn answer_checks(step: &Value) -> Vec<(String, bool, String)> {
    step["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["kind"] == "received" || c["kind"] == "correlation")
        .map(|c| {
            (
                c["kind"].as_str().unwrap().to_string(),
                c["passed"].as_bool().unwrap(),
                c["detail"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Each family a step asks outside the page is served back from the Chromium recording of
/// `devthink-orders` and judged by what it received; a plan asking what the recording lacks
/// fails at that step, naming the option's field path: `not-recorded`, or for a correlation
/// naming something never received, `correlation-unresolved`.
#[test]
fn each_family_is_served_from_the_recording_and_an_answer_it_lacks_fails_there() {
    let tmp = TempDir::new("devthink-orders");
    let out = tmp.path().join("out");
    let ids = [
        "devthink-orders",
        "devthink-orders-poll-not-recorded",
        "devthink-orders-graphql-not-recorded",
        "devthink-orders-pipeline-not-recorded",
        "devthink-orders-snapshot-not-recorded",
        "devthink-orders-correlation-unresolved",
        "devthink-vision-not-recorded",
    ];
    let files: Vec<String> = ids
        .iter()
        .map(|id| format!("scenarios/{id}.json"))
        .collect();
    let report = run_bundled(&files, &out);
    let chained = |id: &str| chained_of(&report, id);
    let done = chained("devthink-orders");
    assert_eq!(done["outcome"], "completed", "{done}");
    let step = |run: &Value, id: &str| -> Value {
        run["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["step_id"] == id)
            .unwrap_or_else(|| panic!("no step {id}"))
            .clone()
    };
    // Every family passed on what it received; the second poll's URL was filled by the
    // request id the first poll answered.
    for (id, detail) in [
        (
            "poll",
            "steps[1].options.pollrequest: the recorded answer “{\"requestId\": \"r-41\", \"state\": \"pending\"}” holds “pending”",
        ),
        (
            "result",
            "steps[2].options.pollrequest: the recorded answer “{\"requestId\": \"r-41\", \"state\": \"shipped\"}” holds “shipped”",
        ),
        (
            "state",
            "steps[4].options.pipeline: the recorded answer “shipped” is “shipped”",
        ),
        (
            "look",
            "steps[5].options.vision: the recorded answer “yes” is “yes”",
        ),
        (
            "session",
            "steps[6].options.snapshot: the recorded session snapshot holds “sid=demo-session-7”",
        ),
    ] {
        let s = step(&done, id);
        assert_eq!(s["status"], "passed", "{s}");
        assert_eq!(
            answer_checks(&s),
            [("received".into(), true, detail.into())],
            "{id}"
        );
    }
    let watch = answer_checks(&step(&done, "watch"));
    assert!(
        watch[0].1 && watch[0].2.contains("\"state\":\"shipped\"}}}”"),
        "{watch:?}"
    );
    // Each plan asking what the recording lacks fails at that step, with the option's path.
    for (id, at, reason, path) in [
        (
            "devthink-orders-poll-not-recorded",
            "poll",
            "not-recorded",
            "steps[1].options.pollrequest",
        ),
        (
            "devthink-orders-graphql-not-recorded",
            "watch",
            "not-recorded",
            "steps[3].options.graphql",
        ),
        (
            "devthink-orders-pipeline-not-recorded",
            "state",
            "not-recorded",
            "steps[4].options.pipeline",
        ),
        (
            "devthink-orders-snapshot-not-recorded",
            "session",
            "not-recorded",
            "steps[6].options.snapshot",
        ),
        (
            "devthink-vision-not-recorded",
            "shot",
            "not-recorded",
            "steps[4].options.vision",
        ),
        (
            "devthink-orders-correlation-unresolved",
            "result",
            "correlation-unresolved",
            "steps[2].options.correlation.rid",
        ),
    ] {
        let run = chained(id);
        assert_eq!(
            (run["outcome"].as_str(), run["reason"].as_str()),
            (Some("failed"), Some(reason)),
            "{id}"
        );
        let s = step(&run, at);
        assert_eq!(s["status"], "failed", "{id}");
        let checks = answer_checks(&s);
        let last = checks.last().unwrap();
        assert!(
            !last.1 && last.2.starts_with(&format!("{path}: ")),
            "{id}: {checks:?}"
        );
    }
}

/// Answers are a version-2 field: a version-1 recording carrying them is refused at
/// `exchanges`, naming the version that has them.
#[test]
fn a_version_1_recording_with_answers_is_refused() {
    let tmp = TempDir::new("devthink-orders-v1");
    let suite = tmp.path().to_path_buf();
    crate::util::copy_scenario(&suite, "devthink-orders", "devthink-orders");
    let rec = suite.join("recordings/devthink-orders/recording.json");
    edit_json(&rec, |r| r["schema"] = "stepreplay-recording/1".into());
    let refused = run_in(
        &suite,
        &[
            "run",
            "scenarios/devthink-orders.json",
            "--report-dir",
            "out",
        ],
    );
    refused.expect_code(2);
    assert!(
        refused.stderr.contains("`exchanges`") && refused.stderr.contains("stepreplay-recording/2"),
        "{}",
        refused.stderr
    );
}

/// `record-browser` asks each family live in Chromium and keeps what it received, keyed by
/// the request (the correlation filled in); the checked-in `devthink-orders` holds the same.
#[cfg(target_os = "linux")]
#[test]
fn chromium_records_what_each_family_received() {
    if !have_tool("chromium", "scripts/install-test-deps installs chromium") {
        return;
    }
    let tmp = TempDir::new("devthink-orders-live");
    let suite = tmp.path();
    let browser = repo().join("recordings/scripts/browser");
    let rec = suite.join("recordings/devthink-orders");
    record_browser(
        suite,
        browser.join("orders.json"),
        browser.join("pages"),
        &rec,
        &["--viewport", "480x320"],
    )
    .expect_code(0);
    let live = read_json(&rec.join("recording.json"));
    let bundled = read_json(&repo().join("recordings/devthink-orders/recording.json"));
    assert_eq!(live["schema"], "stepreplay-recording/2");
    assert_eq!(live["exchanges"], bundled["exchanges"]);
    let families: Vec<&str> = live["exchanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["family"].as_str().unwrap())
        .collect();
    assert_eq!(
        families,
        [
            "pollrequest",
            "pollrequest",
            "graphql",
            "pipeline",
            "vision",
            "snapshot"
        ]
    );
    assert_eq!(
        live["exchanges"][1]["request"]["url"],
        "/api/result/r-41.json"
    );
    // The live recording replays the bundled scenario.
    crate::util::copy_tree(
        &repo().join("scenarios/devthink-orders"),
        &suite.join("scenarios/devthink-orders"),
    );
    std::fs::copy(
        repo().join("scenarios/devthink-orders.json"),
        suite.join("scenarios/devthink-orders.json"),
    )
    .unwrap();
    run_in(
        suite,
        &[
            "run",
            "scenarios/devthink-orders.json",
            "--report-dir",
            "out",
        ],
    )
    .expect_code(0);
}

/// A key two plans of one suite share is applied in each plan's run: each replays its own
/// recording of a system from its start, so the second run's step is no retry of the first's.
#[test]
fn a_key_two_plans_of_a_suite_share_is_applied_in_each_run() {
    let tmp = TempDir::new("devthink-shared-key");
    let suite = tmp.path();
    crate::util::copy_scenario(suite, "devthink-login", "devthink-login");
    let first = suite.join("scenarios/devthink-login.json");
    let mut again = read_json(&first);
    again["id"] = "devthink-login-again".into();
    std::fs::write(
        suite.join("scenarios/devthink-login-again.json"),
        serde_json::to_string_pretty(&again).unwrap(),
    )
    .unwrap();
    let plan = read_json(&suite.join("scenarios/devthink-login/plan.json"));
    let keyed: Vec<usize> = plan["steps"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, s)| s.get("idempotencykey").is_some())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(keyed.len(), 1, "the login plan keys its sign-in step");
    run_in(
        suite,
        &[
            "run",
            "scenarios",
            "--jobs",
            "1",
            "--reports",
            "json",
            "--report-dir",
            "out",
        ],
    )
    .expect_code(0);
    let report = read_json(&suite.join("out/report.json"));
    let statuses: Vec<String> = report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["runs"]["chained"]["steps"][keyed[0]]["status"].to_string())
        .collect();
    assert_eq!(statuses, ["\"passed\"", "\"passed\""], "{report:#}");
}
