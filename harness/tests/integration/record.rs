//! `stepreplay record` end to end on a real desktop: Xvfb, a session D-Bus, the AT-SPI bus,
//! openbox and zenity (GTK 3), all from Debian packages that `scripts/install-test-deps`
//! installs. The recording must replay, two recordings of one script must be equal, and no
//! process the recorder started may outlive it — after success, an error, or Ctrl-C.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::util::{TempDir, have_tool, repo, stepreplay};

const TAG: &str = "STEPREPLAY_RECORD_TAG";

pub(crate) fn have_desktop() -> bool {
    // The AT-SPI bus launcher lives outside the PATH; its package also brings the registry.
    let launcher = Path::new("/usr/libexec/at-spi-bus-launcher").is_file();
    if !launcher {
        assert!(
            std::env::var_os("STEPREPLAY_REQUIRE_TOOLS").is_none(),
            "at-spi2-core is required (STEPREPLAY_REQUIRE_TOOLS is set): scripts/install-test-deps"
        );
        eprintln!("note: at-spi2-core is not installed; skipping");
        return false;
    }
    let install = "apt-get install xvfb dbus openbox zenity (or run scripts/install-test-deps)";
    ["Xvfb", "dbus-daemon", "openbox", "zenity"]
        .iter()
        .all(|t| have_tool(t, install))
}

fn script() -> std::path::PathBuf {
    repo().join("harness/tests/fixtures/record/zenity-form.json")
}

/// Processes whose environment carries `TAG=tag`: everything the recorder started.
fn tagged(tag: &str) -> Vec<String> {
    let want = format!("{TAG}={tag}");
    let mut out = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(env) = fs::read(entry.path().join("environ")) else {
            continue;
        };
        if env.split(|&b| b == 0).any(|kv| kv == want.as_bytes()) {
            let comm = fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
            out.push(format!("{name} {}", comm.trim()));
        }
    }
    out
}

/// Waits a little for processes that are being reaped.
fn none_left(tag: &str) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = tagged(tag);
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn record(suite: &Path, tag: &str) -> crate::util::Run {
    let out = suite.join("recordings/signin");
    stepreplay(suite)
        .env(TAG, tag)
        .args(["record", "--xvfb", "--script"])
        .args([script()])
        .arg("--out")
        .args([out])
        .run()
}

fn tree_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_recording_replays_and_a_second_one_is_equal() {
    if !have_desktop() {
        return;
    }
    let a = TempDir::new("record-a");
    let tag = format!("ok-{}", std::process::id());
    let run = record(a.path(), &tag);
    run.check(run.code == 0, "record failed");
    run.check(
        run.stdout.contains("recorded 5 steps in 6 frames"),
        "wrong counts",
    );
    let left = none_left(&tag);
    assert!(
        left.is_empty(),
        "processes left after a normal run: {left:?}"
    );

    // The plan names real controls, with UUID step ids and a crop per step.
    let plan = fs::read_to_string(a.path().join("scenarios/signin/plan.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&plan).unwrap();
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 5);
    assert_eq!(steps[0]["target"]["label"], "Name");
    assert_eq!(steps[0]["target"]["ax_role"], "AXTextField");
    assert_eq!(steps[4]["target"]["ax_role"], "AXButton");
    assert_eq!(steps[2]["keys"], "Tab");
    for s in steps {
        let id = s["step_id"].as_str().unwrap();
        assert_eq!(id.len(), 36, "{id}");
        if let Some(crop) = s["target"]["crop"].as_str() {
            assert!(
                a.path().join("scenarios/signin").join(crop).is_file(),
                "{crop}"
            );
        }
    }
    // The secret is typed but written nowhere except the scenario's answers.
    for (file, bytes) in tree_bytes(a.path()) {
        let has = String::from_utf8_lossy(&bytes).contains("s3cret-Plum");
        assert_eq!(has, file == "scenarios/signin.json", "{file}");
    }
    // The recording's tree is the whole AT-SPI tree: the password field is a secure field.
    let show = stepreplay(a.path())
        .args(["show", "recordings/signin"])
        .expect_code(0);
    show.check(
        show.stdout.contains("AXSecureTextField"),
        "no secure field in the tree",
    );

    // It replays in both modes.
    let run = stepreplay(a.path())
        .args(["run", "scenarios/signin.json", "--report-dir", "reports"])
        .expect_code(0);
    run.check(
        run.stdout.contains("ok   signin") && run.stdout.contains("completed"),
        "replay did not complete",
    );
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(a.path().join("reports/report.json")).unwrap())
            .unwrap();
    let runs = report["scenarios"][0]["runs"].as_object().unwrap();
    assert_eq!(runs.len(), 2, "both modes run");
    for (mode, r) in runs {
        assert_eq!(r["outcome"], "completed", "{mode}");
        assert_eq!(
            r["scores"]["element_accuracy"], 1.0,
            "{mode}: {}",
            r["scores"]
        );
    }

    // The same script again: the same bytes, frames included (caret blink and animations are
    // off in the recorder's private GTK settings).
    let b = TempDir::new("record-b");
    let run = record(b.path(), &tag);
    run.check(run.code == 0, "second record failed");
    for part in ["recordings", "scenarios"] {
        let (x, y) = (
            tree_bytes(&a.path().join(part)),
            tree_bytes(&b.path().join(part)),
        );
        let names = |t: &[(String, Vec<u8>)]| t.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&x), names(&y), "{part}: different files");
        for ((n, bx), (_, by)) in x.iter().zip(&y) {
            assert!(
                bx == by,
                "{part}/{n} differs between two recordings of one script"
            );
        }
    }
}

/// A guide author's round trip: `record` writes the plan and, beside it, the values it was
/// recorded with (`answers.json`); `check --recording` is clean with them; a label typo then
/// gets a did-you-mean at the `label` field's line and column from `check` and `run` alike.
#[test]
fn a_recorded_plan_checks_clean_and_a_label_typo_is_named_by_check_and_run() {
    if !have_desktop() {
        return;
    }
    let dir = TempDir::new("record-loop");
    let tag = format!("loop-{}", std::process::id());
    let rec = record(dir.path(), &tag);
    rec.check(rec.code == 0, "record failed");
    let plan = "scenarios/signin/plan.json";
    let answers = "scenarios/signin/answers.json";
    let written = fs::read_to_string(dir.path().join(answers)).unwrap();
    assert!(!written.contains("s3cret-Plum"), "{written}");
    let check = |plan: &str| {
        stepreplay(dir.path())
            .args([
                "check",
                plan,
                "--recording",
                "recordings/signin",
                "--answers",
                answers,
            ])
            .run()
    };
    let clean = check(plan);
    clean.check(
        clean.code == 0 && clean.stdout.contains(": 0 errors"),
        "a recorded plan checks clean with the answers record wrote",
    );
    // One letter off in the first step's label, as the author edits the plan.
    let text = fs::read_to_string(dir.path().join(plan)).unwrap();
    let typo = text.replacen("\"label\": \"Name\"", "\"label\": \"Nmae\"", 1);
    assert_ne!(typo, text);
    fs::write(dir.path().join(plan), &typo).unwrap();
    let (line, col) = typo
        .lines()
        .enumerate()
        .find_map(|(n, l)| l.find("\"Nmae\"").map(|c| (n + 1, c + 1)))
        .unwrap();
    let at = format!("{plan}:{line}:{col}");
    let said = "did you mean “Name”?";
    let checked = check(plan);
    checked.check(
        checked.code == 1
            && checked.stdout.contains(said)
            && checked
                .stdout
                .contains(&format!("--> {at} at `steps[0].target.label`")),
        "check: the did-you-mean at the label",
    );
    let run = stepreplay(dir.path())
        .args([
            "run",
            "-q",
            plan,
            "--recording",
            "recordings/signin",
            "--answers",
            answers,
        ])
        .args(["--report-dir", "reports"])
        .run();
    run.check(
        run.code == 1 && run.stdout.contains(&format!("at {at}: ")) && run.stdout.contains(said),
        "run: the did-you-mean at the label",
    );
}

#[test]
fn a_target_that_is_not_there_is_refused_and_nothing_is_left() {
    if !have_desktop() {
        return;
    }
    let dir = TempDir::new("record-miss");
    let script = dir.path().join("miss.json");
    let text = fs::read_to_string(self::script())
        .unwrap()
        .replace(r#""name": "OK""#, r#""name": "Submit""#);
    fs::write(&script, text).unwrap();
    let tag = format!("miss-{}", std::process::id());
    let run = stepreplay(dir.path())
        .env(TAG, &tag)
        .args([
            "record",
            "--xvfb",
            "--script",
            "miss.json",
            "--out",
            "recordings/miss",
            "--keep-capture",
            "capture",
        ])
        .run();
    run.check(run.code == 2, "want exit 2 for a target that is not there");
    run.check(
        run.stderr.contains("steps[4].target")
            && run.stderr.contains("target-not-found")
            && run.stderr.contains("nothing on screen has that name")
            && run
                .stderr
                .contains("nearest names on screen: \"Cancel\" (AXButton), \"OK\" (AXButton)"),
        "the error should say which step and why, and what is on screen instead",
    );
    let left = none_left(&tag);
    assert!(left.is_empty(), "processes left after an error: {left:?}");
    assert!(!dir.path().join("recordings/miss/recording.json").exists());
    // The capture up to the miss is kept: the four steps done and the frame the target was
    // missing from.
    let capture = dir.path().join("capture");
    let steps: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(capture.join("steps.json")).unwrap()).unwrap();
    assert_eq!(steps.as_array().map(Vec::len), Some(4));
    for f in ["frame_004.png", "frame_004.ax.json", "meta.json"] {
        assert!(capture.join(f).is_file(), "{f} kept");
    }
    run.check(
        run.stderr
            .contains("the frame it looked at is kept as capture/frame_004.png"),
        "the error says where the kept frame is",
    );
}

#[test]
fn ctrl_c_stops_everything_it_started() {
    if !have_desktop() {
        return;
    }
    let dir = TempDir::new("record-int");
    let script = dir.path().join("slow.json");
    let text = fs::read_to_string(self::script()).unwrap().replace(
        r#""steps": ["#,
        r#""steps": [ { "action": "wait", "ms": 60000 },"#,
    );
    fs::write(&script, text).unwrap();
    let tag = format!("int-{}", std::process::id());
    let mut child = stepreplay(dir.path())
        .env(TAG, &tag)
        .args([
            "record",
            "--xvfb",
            "--script",
            "slow.json",
            "--out",
            "recordings/slow",
        ])
        .spawn();
    // Wait until the desktop and the app are up (Xvfb, the buses, openbox, zenity).
    let deadline = Instant::now() + Duration::from_secs(60);
    while !tagged(&tag).iter().any(|p| p.ends_with("zenity")) {
        assert!(
            Instant::now() < deadline,
            "zenity never started: {:?}",
            tagged(&tag)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let started = tagged(&tag);
    assert!(started.len() >= 4, "{started:?}");
    // SAFETY: a plain kill on the child we spawned.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "exit code after Ctrl-C");
    let left = none_left(&tag);
    assert!(
        left.is_empty(),
        "processes left after Ctrl-C: {left:?} (started: {started:?})"
    );
}

/// A name already in the suite is refused before any desktop starts: recording again would
/// replace the recording and the plan, which may hold a person's edits. `--force` replaces.
#[test]
fn recording_over_an_existing_name_is_refused_without_force() {
    let dir = TempDir::new("record-taken");
    let suite = dir.path();
    fs::create_dir_all(suite.join("scenarios")).unwrap();
    fs::write(suite.join("scenarios/signin.json"), "{\"edited\": true}").unwrap();
    let run = stepreplay(suite)
        .args(["record", "--xvfb", "--script"])
        .args([script()])
        .args(["--out", "recordings/signin"])
        .run();
    run.check(run.code == 2, "a taken name is bad input");
    run.check(
        run.stderr.contains("scenarios/signin.json")
            && run.stderr.contains("already recorded here")
            && run.stderr.contains("--force"),
        "the error names the file and the way out",
    );
    assert_eq!(
        fs::read_to_string(suite.join("scenarios/signin.json")).unwrap(),
        "{\"edited\": true}",
        "the scenario is untouched"
    );
    assert!(!suite.join("recordings/signin").exists());
}

/// The zenity form the bundled `gtk3-zenity-contact` guide was written from, started as its
/// record script starts it.
pub(crate) fn zenity_contact_app() -> Vec<String> {
    let script = repo().join("recordings/scripts/record/gtk3-zenity-contact.json");
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(script).unwrap()).unwrap();
    v["app"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect()
}

/// A copy of the bundled guide (with its crops) after `edit`, and the bundled scenario's
/// values and answers as an answers file, in `dir`.
pub(crate) fn guide_copy(dir: &Path, edit: impl Fn(&mut serde_json::Value)) -> (PathBuf, PathBuf) {
    let src = repo().join("scenarios/gtk3-zenity-contact");
    let guide = dir.join("guide");
    fs::create_dir_all(guide.join("crops")).unwrap();
    for e in fs::read_dir(src.join("crops")).unwrap().flatten() {
        fs::copy(e.path(), guide.join("crops").join(e.file_name())).unwrap();
    }
    let mut plan: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(src.join("plan.json")).unwrap()).unwrap();
    edit(&mut plan);
    let plan_path = guide.join("plan.json");
    fs::write(&plan_path, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let scenario: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(repo().join("scenarios/gtk3-zenity-contact.json")).unwrap(),
    )
    .unwrap();
    let answers = dir.join("answers.json");
    let given = serde_json::json!({"inputs": scenario["inputs"], "answers": scenario["answers"]});
    fs::write(&answers, given.to_string()).unwrap();
    (plan_path, answers)
}

/// `record --plan` of a guide copy, with its answers, into `recordings/NAME`.
fn follow_copy(dir: &Path, plan: &Path, answers: &Path, name: &str) -> crate::util::Run {
    stepreplay(dir)
        .args(["record", "--xvfb", "--plan"])
        .args([plan])
        .arg("--answers")
        .args([answers])
        .args(["--out", &format!("recordings/{name}"), "--"])
        .args(zenity_contact_app())
        .run()
}

/// Every file under `dir`, as bytes, holds no `needle`.
fn nowhere_in(dir: &Path, needle: &str) -> Vec<String> {
    tree_bytes(dir)
        .into_iter()
        .filter(|(_, b)| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
        .map(|(f, _)| f)
        .collect()
}

/// The guide author's pre-approval check against the app as installed now: the bundled guide
/// followed live on zenity under Xvfb, every step found by the resolver on the live screen
/// and acted; the recording it leaves replays with `run` as well, and holds no secret.
#[test]
fn record_plan_follows_a_bundled_guide_live_end_to_end() {
    if !have_desktop() {
        return;
    }
    let dir = TempDir::new("record-follow");
    let tag = format!("follow-{}", std::process::id());
    let run = stepreplay(dir.path())
        .env(TAG, &tag)
        .args(["record", "--xvfb", "--scenario"])
        .args([repo().join("scenarios/gtk3-zenity-contact.json")])
        .args(["--out", "recordings/live", "--"])
        .args(zenity_contact_app())
        .run();
    run.check(run.code == 0, "the guide works on the app as installed");
    run.check(
        run.stdout.contains("9 steps acted")
            && run.stdout.contains("gtk3-zenity-contact")
            && run.stdout.contains("completed")
            && run.stdout.matches(" passed").count() == 9,
        "a verdict per step, all passed",
    );
    run.check(
        run.stderr
            .contains("step 9/9: “Click the OK button” → frame_009"),
        "a progress line per step, in the guide's words",
    );
    assert!(
        none_left(&tag).is_empty(),
        "processes left: {:?}",
        tagged(&tag)
    );
    let rec = dir.path().join("recordings/live");
    let leaked = nowhere_in(&rec, "1815");
    assert!(leaked.is_empty(), "the PIN is written in {leaked:?}");
    // The recording is bound to the guide's own step ids, so `run` replays the guide on it.
    let recording = fs::read_to_string(rec.join("recording.json")).unwrap();
    assert!(recording.contains("E33FD979-8BF7-8DA0-9616-2870624D0856"));
    let (_, answers) = guide_copy(dir.path(), |_| {});
    let again = stepreplay(dir.path())
        .args([
            "run",
            "-q",
            "--report-dir",
            "reports",
            "--recording",
            "recordings/live",
        ])
        .args(["--answers"])
        .args([answers])
        .args([repo().join("scenarios/gtk3-zenity-contact/plan.json")])
        .run();
    again.check(again.code == 0, "the live recording replays the guide");
}

/// A guide that names a control the app no longer shows stops live at that step, says what
/// the screen has instead, and fails; the steps after it are not run.
#[test]
fn record_plan_stops_live_at_a_control_the_app_does_not_show() {
    if !have_desktop() {
        return;
    }
    let dir = TempDir::new("record-follow-miss");
    let (plan, answers) = guide_copy(dir.path(), |p| {
        p["steps"][2]["target"]["label"] = "Lats name".into();
    });
    let run = follow_copy(dir.path(), &plan, &answers, "miss");
    run.check(run.code == 1, "a stale guide fails");
    run.check(
        run.stdout.contains("stopped live at step 3")
            && run.stdout.contains("did you mean \"Last name\"")
            && run.stdout.contains("target-not-found")
            && run.stdout.matches("not-run").count() == 6,
        "where it stopped, what the screen shows, and the steps never reached",
    );
}

/// A step that asks first is never acted without approval: the live run stops before it.
#[test]
fn record_plan_never_acts_a_step_that_asks_first_unapproved() {
    if !have_desktop() {
        return;
    }
    let dir = TempDir::new("record-follow-confirm");
    let (plan, answers) = guide_copy(dir.path(), |p| {
        p["steps"][8]["confirm"] = true.into();
        p["steps"][8]["confirm_reason"] = "OK adds the contact.".into();
    });
    let run = follow_copy(dir.path(), &plan, &answers, "ask");
    run.check(
        run.code == 1,
        "a guide stopped before its end does not pass",
    );
    run.check(
        run.stdout.contains("8 steps acted")
            && run
                .stdout
                .contains("step 9 “Click the OK button” asks first")
            && run.stdout.contains("was not approved: it was not done"),
        "it says which step was held back and why",
    );
    // The last frame kept is the form before OK: the dialog is still open.
    let rec = dir.path().join("recordings/ask/recording.json");
    let frames = fs::read_to_string(rec)
        .unwrap()
        .matches("\"screenshot\"")
        .count();
    assert_eq!(frames, 9, "frame 0 and one after each of the 8 steps acted");
}
