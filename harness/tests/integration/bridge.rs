//! The StepBack bridge simulator through its CLI and scenarios, and the `serve` job inbox,
//! including a crash in the middle of a flood of jobs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::util::{junit_without_times, repo};
use serde_json::Value;
use stepreplay::bridge::run_bridge_scenario;

/// A fresh folder under the temp dir, removed on drop.
struct Tmp(PathBuf);

impl Tmp {
    fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let d = std::env::temp_dir().join(format!(
            "stepreplay-it-bridge-{}-{}-{tag}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn stepreplay(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_stepreplay"));
    c.args(args).current_dir(repo());
    c
}

fn run(args: &[&str]) -> Output {
    let out = stepreplay(args).output().unwrap();
    eprintln!(
        "$ stepreplay {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const A: &str = "a1111111-1111-4111-8111-111111111111";

fn routine_cmd(id: &str, name: &str) -> String {
    format!(
        r#"{{"schemaVersion": 2, "commandID": "{id}", "verb": "createRoutine", "payload": {{"name": "{name}",
        "steps": [{{"workoutID": "bridge", "workSeconds": 30, "sets": 3, "setRestSeconds": 10, "restAfterSeconds": 15}}]}}}}"#
    )
}

// ---- scenarios ----

#[test]
fn every_checked_in_bridge_scenario_passes() {
    let dir = repo().join("scenarios/bridge");
    let mut paths: Vec<PathBuf> = names(&dir).into_iter().map(|n| dir.join(n)).collect();
    paths.retain(|p| p.extension().is_some_and(|e| e == "json"));
    assert!(paths.len() >= 8, "only {} bridge scenarios", paths.len());
    for p in paths {
        let r = run_bridge_scenario(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(
            r.passed,
            "{} failed:\n{}",
            p.display(),
            serde_json::to_string_pretty(&r).unwrap()
        );
        assert!(r.safety.ok && r.outcomes_match && r.state_match);
        assert!(!r.commands.is_empty());
    }
}

#[test]
fn a_scenario_gives_the_same_result_every_time() {
    let p = repo().join("scenarios/bridge/racing-human-edit-stale-object.json");
    let a = serde_json::to_string(&run_bridge_scenario(&p).unwrap()).unwrap();
    let b = serde_json::to_string(&run_bridge_scenario(&p).unwrap()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn a_wrong_expectation_fails_the_scenario_and_says_where() {
    let t = Tmp::new("wrong");
    let mut sc = json(&repo().join("scenarios/bridge/racing-human-edit-stale-object.json"));
    sc["expect"]["outcomes"][0]["reason"] = "unknown-id".into();
    sc["expect"]["state"]["routines"][0]["name"] = "Morning Core Plus".into();
    let p = t.0.join("s.json");
    std::fs::write(&p, sc.to_string()).unwrap();
    let r = run_bridge_scenario(&p).unwrap();
    assert!(!r.passed && !r.outcomes_match && !r.state_match);
    assert!(r.safety.ok);
    let bad: Vec<_> = r.commands.iter().filter(|c| !c.matches).collect();
    assert_eq!(bad.len(), 1);
    assert_eq!(
        bad[0].actual.as_ref().unwrap().reason,
        Some(stepreplay::bridge::Code::StaleObject)
    );
    let diff = r.state_diff.unwrap();
    assert!(
        diff.contains("-      \"name\": \"Morning Core Plus\""),
        "{diff}"
    );
    assert!(
        diff.contains("+      \"name\": \"Morning Core (mine)\""),
        "{diff}"
    );
}

#[test]
fn an_agent_file_name_outside_the_inbox_is_refused_before_anything_runs() {
    let t = Tmp::new("escape");
    let p = t.0.join("s.json");
    std::fs::write(
        &p,
        r#"{"schema": "stepreplay-bridge-scenario/1", "id": "x",
            "steps": [{"command": {"file": "../manifest.json", "text": "{}"}}],
            "expect": {"outcomes": [], "state": {}}}"#,
    )
    .unwrap();
    let e = run_bridge_scenario(&p).unwrap_err();
    assert_eq!(e.reason, stepreplay::Reason::PathEscape);
    assert_eq!(e.path.to_string(), "steps[0].command.file");
    std::fs::write(&p, r#"{"schema": "stepreplay-scenario/1"}"#).unwrap();
    assert_eq!(
        run_bridge_scenario(&p).unwrap_err().reason,
        stepreplay::Reason::UnsupportedSchema
    );
}

// ---- the bridge CLI ----

#[test]
fn init_lays_out_the_folder_with_the_catalog_and_run_processes_the_inbox() {
    let t = Tmp::new("cli");
    let dir = t.0.join("AgentBridge");
    let d = dir.to_str().unwrap();
    assert!(run(&["bridge", "init", d]).status.success());
    assert_eq!(
        names(&dir),
        ["failed", "inbox", "manifest.json", "processed"]
    );
    let m = json(&dir.join("manifest.json"));
    assert_eq!(m["schemaVersion"], 3);
    assert!(Path::new(m["inboxPath"].as_str().unwrap()).is_absolute());
    assert!(
        m["catalog"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["id"] == "bridge")
    );
    assert_eq!(m["state"]["routines"], serde_json::json!([]));
    // Init never overwrites a bridge.
    assert_eq!(run(&["bridge", "init", d]).status.code(), Some(2));

    std::fs::write(
        dir.join("inbox/20260711T170000Z-01.json"),
        routine_cmd(A, "Core"),
    )
    .unwrap();
    let out = run(&["bridge", d]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("1 succeeded, 0 failed"), "{stdout}");
    assert_eq!(names(&dir.join("inbox")), Vec::<String>::new());
    let processed = names(&dir.join("processed"));
    assert_eq!(processed.len(), 2);
    assert!(processed[0].starts_with(&format!("{A}.command-")));
    assert_eq!(processed[1], format!("{A}.outcome.json"));
    let o = json(&dir.join("processed").join(&processed[1]));
    assert_eq!(o["status"], "succeeded");
    assert_eq!(o["updatedAt"], "2026-01-01T00:00:01Z");
    assert_eq!(o["resultingIDs"].as_array().unwrap().len(), 1);

    // The JSON summary form, through `bridge run`.
    std::fs::write(
        dir.join("inbox/02.json"),
        routine_cmd(&A.to_uppercase(), "X"),
    )
    .unwrap();
    let out = run(&["bridge", "run", d, "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"][0]["outcome"]["duplicateCommand"], true);
}

#[test]
fn init_takes_a_starting_state() {
    let t = Tmp::new("state");
    let state = t.0.join("state.json");
    std::fs::write(
        &state,
        r#"{"logicalClock": 4, "customWorkouts": [{"id": "cw", "name": "Hip Circles", "updatedAt": "2026-01-01T00:00:04Z"}]}"#,
    )
    .unwrap();
    let dir = t.0.join("b");
    let out = run(&[
        "bridge",
        "init",
        dir.to_str().unwrap(),
        "--state",
        state.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    assert_eq!(
        json(&dir.join("manifest.json"))["state"]["customWorkouts"][0]["id"],
        "cw"
    );
    std::fs::write(&state, r#"{"routines": [{"id": 1}]}"#).unwrap();
    let out = run(&[
        "bridge",
        "init",
        t.0.join("c").to_str().unwrap(),
        "--state",
        state.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("routines[0].id"));
}

#[test]
fn a_missing_or_unreadable_manifest_is_an_error_and_the_inbox_is_untouched() {
    let t = Tmp::new("nomanifest");
    std::fs::create_dir_all(t.0.join("inbox")).unwrap();
    std::fs::write(t.0.join("inbox/01.json"), routine_cmd(A, "Core")).unwrap();
    let d = t.0.to_str().unwrap();
    let out = run(&["bridge", d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing-file"));
    for (text, reason) in [
        ("{\"schemaVersion\": 3,", "invalid-json"),
        ("{\"schemaVersion\": 9}", "unsupported-schema"),
    ] {
        std::fs::write(t.0.join("manifest.json"), text).unwrap();
        let out = run(&["bridge", d]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains(reason));
    }
    assert_eq!(names(&t.0), ["inbox", "manifest.json"]);
    assert_eq!(names(&t.0.join("inbox")), ["01.json"]);
}

#[test]
fn a_manifest_pointing_outside_its_folder_is_refused() {
    let t = Tmp::new("outside");
    let bridge = t.0.join("b");
    let elsewhere = t.0.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("precious.json"), "{}").unwrap();
    let d = bridge.to_str().unwrap();
    assert!(run(&["bridge", "init", d]).status.success());
    let mut m = json(&bridge.join("manifest.json"));
    m["inboxPath"] = elsewhere.to_str().unwrap().into();
    std::fs::write(bridge.join("manifest.json"), m.to_string()).unwrap();
    let out = run(&["bridge", d]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("path-escape") && stderr.contains("inboxPath"),
        "{stderr}"
    );
    assert_eq!(names(&elsewhere), ["precious.json"]);
}

#[test]
fn a_replay_gives_identical_bytes() {
    let sweep_once = |t: &Tmp| {
        let d = t.0.to_str().unwrap();
        assert!(run(&["bridge", "init", d]).status.success());
        std::fs::write(t.0.join("inbox/01.json"), routine_cmd(A, "Core")).unwrap();
        std::fs::write(t.0.join("inbox/02.json"), "{broken").unwrap();
        assert!(run(&["bridge", d]).status.success());
        let mut files = Vec::new();
        for sub in ["processed", "failed"] {
            for n in names(&t.0.join(sub)) {
                files.push((
                    format!("{sub}/{n}"),
                    std::fs::read(t.0.join(sub).join(&n)).unwrap(),
                ));
            }
        }
        let m = json(&t.0.join("manifest.json"));
        (files, m["state"].clone(), m["ledger"].clone())
    };
    let (a, b) = (Tmp::new("replay-a"), Tmp::new("replay-b"));
    assert_eq!(sweep_once(&a), sweep_once(&b));
}

#[test]
fn a_bridge_crash_after_saving_state_only_finishes_the_move() {
    let t = Tmp::new("resume");
    let d = t.0.to_str().unwrap();
    assert!(run(&["bridge", "init", d]).status.success());
    std::fs::write(t.0.join("inbox/01.json"), routine_cmd(A, "Core")).unwrap();
    assert!(run(&["bridge", d]).status.success());
    // Put the command back and record it as in flight: what a crash between the manifest
    // save and the move leaves behind.
    let cmd_file = names(&t.0.join("processed"))[0].clone();
    std::fs::rename(
        t.0.join("processed").join(&cmd_file),
        t.0.join("inbox/01.json"),
    )
    .unwrap();
    let mut m = json(&t.0.join("manifest.json"));
    m["lastIngestion"] =
        serde_json::json!({"inboxFile": "01.json", "folder": "processed", "commandFile": cmd_file});
    std::fs::write(t.0.join("manifest.json"), m.to_string()).unwrap();
    let before = std::fs::read(t.0.join(format!("processed/{A}.outcome.json"))).unwrap();
    let out = run(&["bridge", d]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 files"));
    assert_eq!(
        names(&t.0.join("processed")),
        [cmd_file, format!("{A}.outcome.json")]
    );
    let after = std::fs::read(t.0.join(format!("processed/{A}.outcome.json"))).unwrap();
    assert_eq!(
        before, after,
        "the outcome was not rewritten as a duplicate"
    );
    let m = json(&t.0.join("manifest.json"));
    assert_eq!(m["state"]["routines"].as_array().unwrap().len(), 1);
    assert!(m.get("lastIngestion").is_none());
}

// ---- serve ----

fn job(id: &str, verb: &str, payload: &str) -> String {
    format!(
        r#"{{"schemaVersion": 1, "commandID": "{id}", "verb": "{verb}", "payload": {payload}}}"#
    )
}

fn job_id(i: usize) -> String {
    format!("{i:08x}-0000-4000-8000-000000000000")
}

#[test]
fn serve_checks_plans_runs_bridge_scenarios_and_refuses_bad_jobs() {
    let t = Tmp::new("serve");
    let jobs = t.0.join("jobs");
    std::fs::create_dir_all(jobs.join("inbox")).unwrap();
    let w = |name: &str, text: &str| std::fs::write(jobs.join("inbox").join(name), text).unwrap();
    w(
        "01.json",
        &job(
            &job_id(1),
            "check",
            r#"{"plan": "harness/tests/fixtures/plans/seed-mail.json"}"#,
        ),
    );
    w(
        "02.json",
        &job(
            &job_id(2),
            "run",
            r#"{"scenarios": ["scenarios/bridge/bridge-disabled.json"]}"#,
        ),
    );
    w(
        "03.json",
        &job(&job_id(3), "check", r#"{"plan": "../../etc/passwd"}"#),
    );
    w("04.json", &job(&job_id(4), "deploy", "{}"));
    w(
        "05.json",
        &job(&job_id(1).to_uppercase(), "check", r#"{"plan": "x.json"}"#),
    );
    w("06.txt", "hello");
    let out = run(&["serve", "--inbox", jobs.to_str().unwrap(), "--once"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("5 jobs run (2 succeeded), 1 duplicate,"),
        "{stdout}"
    );
    assert_eq!(names(&jobs.join("inbox")), Vec::<String>::new());

    let o = json(&jobs.join(format!("processed/{}.outcome.json", job_id(1))));
    assert_eq!(
        o["result"]["file"],
        "harness/tests/fixtures/plans/seed-mail.json"
    );
    assert_eq!(o["result"]["parsed"], true);
    let o = json(&jobs.join(format!("processed/{}.outcome.json", job_id(2))));
    assert_eq!(o["result"]["passed"], 1);
    assert_eq!(
        o["result"]["scenarios"][0]["result"]["id"],
        "bridge-disabled"
    );
    let o = json(&jobs.join(format!("failed/{}.outcome.json", job_id(3))));
    assert_eq!(
        (o["reason"].as_str(), o["fieldPath"].as_str()),
        (Some("path-escape"), Some("payload.plan"))
    );
    let o = json(&jobs.join(format!("failed/{}.outcome.json", job_id(4))));
    assert_eq!(o["reason"], "unknown-verb");
    // The duplicate sits beside the first outcome, which stays as it was.
    let dups: Vec<_> = names(&jobs.join("processed"))
        .into_iter()
        .filter(|n| n.starts_with(&job_id(1)) && n.contains(".command-"))
        .collect();
    assert_eq!(dups.len(), 2);
    let failed = names(&jobs.join("failed"));
    assert!(failed.iter().any(|n| n.ends_with(".outcome.json") && {
        json(&jobs.join("failed").join(n))["reason"] == "unsupported-file-type"
    }));
}

/// A `run` job goes through the report session `run` uses: its folder holds the files `run`
/// writes for the same scenarios, byte for byte, and the outcome carries `run`'s exit code.
#[test]
fn a_serve_run_job_writes_what_run_writes_judged_the_same_way() {
    let t = Tmp::new("serve-session");
    let jobs = t.0.join("jobs");
    std::fs::create_dir_all(jobs.join("inbox")).unwrap();
    let scenarios = [
        "scenarios/bridge/bridge-disabled.json",
        "harness/tests/fixtures/mini/scenarios/mini-completed.json",
        "harness/tests/fixtures/mini/failing/mini-expects-send.json",
    ];
    let payload = serde_json::json!({ "scenarios": scenarios }).to_string();
    std::fs::write(jobs.join("inbox/01.json"), job(&job_id(1), "run", &payload)).unwrap();
    let out = run(&["serve", "--inbox", jobs.to_str().unwrap(), "--once"]);
    assert!(out.status.success());
    let o = json(&jobs.join(format!("processed/{}.outcome.json", job_id(1))));
    let served = jobs.join(format!("reports/{}", job_id(1)));
    assert_eq!(o["result"]["reports"], format!("reports/{}", job_id(1)));

    let ran = t.0.join("ran");
    let mut args = vec!["run", "-q", "--report-dir", ran.to_str().unwrap()];
    args.extend(scenarios);
    let out = run(&args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "one scenario misses its expectation"
    );
    assert_eq!(o["result"]["exit_code"], 1, "{o}");
    assert_eq!(o["result"]["passed"], 2, "{o}");
    assert_eq!(names(&served), names(&ran));
    for f in ["report.json", "junit.xml", "summary.md", "index.html"] {
        let read = |d: &Path| junit_without_times(&std::fs::read_to_string(d.join(f)).unwrap());
        assert_eq!(
            read(&served),
            read(&ran),
            "{f} differs between serve and run"
        );
    }
    let summary = std::fs::read_to_string(served.join("summary.md")).unwrap();
    assert!(summary.starts_with("## stepreplay: ❌"), "{summary}");
}

/// Asserts the end state after any crash: the inbox is empty, every job has exactly one
/// outcome, every job file is beside it exactly once, and the journal saw each job once.
fn assert_exactly_once(jobs: &Path, n: usize) {
    assert_exactly_once_journal(jobs, n, 0);
}

/// As [`assert_exactly_once`], allowing `unjournaled` jobs without a journal line: a kill -9
/// can land between an outcome's creation and its journal line (the journal is an audit log;
/// the outcome file is the marker). No job may ever be journaled twice.
fn assert_exactly_once_journal(jobs: &Path, n: usize, unjournaled: usize) {
    assert_eq!(names(&jobs.join("inbox")), Vec::<String>::new());
    let mut outcomes = Vec::new();
    let mut commands = Vec::new();
    for sub in ["processed", "failed"] {
        for name in names(&jobs.join(sub)) {
            assert!(!name.starts_with('.'), "temp file left: {name}");
            if name.ends_with(".outcome.json") {
                outcomes.push(
                    json(&jobs.join(sub).join(&name))["commandID"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                );
            } else {
                commands.push(std::fs::read_to_string(jobs.join(sub).join(&name)).unwrap());
            }
        }
    }
    outcomes.sort();
    let want: Vec<String> = (0..n).map(job_id).collect();
    assert_eq!(outcomes, want, "one outcome per job");
    commands.sort();
    let mut sent: Vec<String> = (0..n).map(crash_job).collect();
    sent.sort();
    assert_eq!(
        commands, sent,
        "every job file moved exactly once, unchanged"
    );
    let journal = std::fs::read_to_string(jobs.join("journal.log")).unwrap();
    let mut missing = 0;
    for id in &want {
        let seen = journal.matches(id.as_str()).count();
        assert!(seen <= 1, "job {id} ran twice\n{journal}");
        missing += usize::from(seen == 0);
    }
    assert!(
        missing <= unjournaled,
        "{missing} job(s) never journaled\n{journal}"
    );
}

fn crash_job(i: usize) -> String {
    job(
        &job_id(i),
        "check",
        r#"{"plan": "harness/tests/fixtures/plans/seed-mail.json"}"#,
    )
}

fn flood(jobs: &Path, n: usize) {
    std::fs::create_dir_all(jobs.join("inbox")).unwrap();
    for i in 0..n {
        std::fs::write(jobs.join(format!("inbox/{i:04}.json")), crash_job(i)).unwrap();
    }
}

#[test]
fn serve_survives_an_abort_between_outcome_and_move() {
    let t = Tmp::new("crash");
    let jobs = t.0.join("jobs");
    flood(&jobs, 12);
    let d = jobs.to_str().unwrap();
    let out = stepreplay(&["serve", "--inbox", d, "--once"])
        .env("STEPREPLAY_SERVE_CRASH_AFTER", "5")
        .output()
        .unwrap();
    assert!(!out.status.success(), "the crash hook aborts the process");
    // Five outcomes exist, the fifth job file is still in the inbox.
    assert_eq!(names(&jobs.join("inbox")).len(), 12 - 4);
    let out = run(&["serve", "--inbox", d, "--once"]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("7 jobs run") && stdout.contains("1 resumed"),
        "{stdout}"
    );
    assert_exactly_once(&jobs, 12);
}

#[test]
fn serve_survives_kill_9_mid_flood_and_stops_cleanly_on_sigint() {
    let t = Tmp::new("kill");
    let jobs = t.0.join("jobs");
    let n = 60;
    flood(&jobs, n);
    let d = jobs.to_str().unwrap();
    let mut child = stepreplay(&["serve", "--inbox", d, "--poll-ms", "10"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the first outcome (any moment is a fair moment to kill), then kill -9.
    for _ in 0..6000 {
        let outcomes = names(&jobs.join("processed"))
            .into_iter()
            .filter(|n| !n.starts_with('.') && n.ends_with(".outcome.json"))
            .count();
        if outcomes > 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    eprintln!(
        "killed with {} of {n} job files still in the inbox",
        names(&jobs.join("inbox")).len()
    );
    // Restart as a long-running server and stop it with Ctrl-C once it has drained.
    let child = stepreplay(&["serve", "--inbox", d, "--poll-ms", "10"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..6000 {
        if names(&jobs.join("inbox")).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "Ctrl-C is a clean stop");
    assert!(String::from_utf8_lossy(&out.stdout).contains("stopped"));
    assert_exactly_once_journal(&jobs, n, 1);
}

#[test]
fn the_summary_and_an_outcome_file_read_as_expected() {
    let t = Tmp::new("snap");
    let d = t.0.to_str().unwrap();
    assert!(run(&["bridge", "init", d]).status.success());
    std::fs::write(t.0.join("inbox/01.json"), routine_cmd(A, "Morning Core")).unwrap();
    let plan = r#"{"schemaVersion": 2, "commandID": "5D39F61B-3C2E-4BE7-A264-B4B75D20C7EF", "verb": "createPlan",
        "payload": {"name": "Normal Week", "days": [{"weekday": 1, "slots": []},
        {"weekday": 2, "slots": [{"routineRef": {"fromCommand": "A1111111-1111-4111-8111-111111111111"}}]},
        {"weekday": 3, "slots": []}, {"weekday": 4, "slots": [{"routineRef": {}}]},
        {"weekday": 5, "slots": []}, {"weekday": 6, "slots": []}, {"weekday": 7, "slots": []}]}}"#;
    std::fs::write(t.0.join("inbox/02.json"), plan).unwrap();
    std::fs::write(
        t.0.join("inbox/03.json"),
        routine_cmd(&A.to_uppercase(), "Again"),
    )
    .unwrap();
    std::fs::write(t.0.join("inbox/04.md"), "# notes").unwrap();
    let out = run(&["bridge", d]);
    let summary = String::from_utf8_lossy(&out.stdout).replace(d, "[DIR]");
    insta::assert_snapshot!("bridge_summary", summary);
    let failed = std::fs::read_to_string(
        t.0.join("failed/5d39f61b-3c2e-4be7-a264-b4b75d20c7ef.outcome.json"),
    )
    .unwrap();
    insta::assert_snapshot!("bridge_failed_outcome", failed);
}

/// Every supported verb succeeds through the CLI, and each success's outcome says what it
/// changed: its `resultingIDs` name the object the manifest's state now holds, and its
/// `updatedAt` is that object's. Updates replace in full; activatePlan sets My Week.
#[test]
fn each_verb_succeeds_and_its_outcome_names_what_changed() {
    let t = Tmp::new("verbs");
    let d = t.0.to_str().unwrap();
    assert!(run(&["bridge", "init", d]).status.success());
    let n = std::cell::Cell::new(0);
    // The outcome of one command, and the object of `list` it names in the state after it.
    let send = |verb: &str, list: &str, payload: Value| -> (String, String, Value) {
        n.set(n.get() + 1);
        let id = format!("{:08}-1111-4111-8111-111111111111", n.get());
        let cmd = serde_json::json!({"schemaVersion": 2, "commandID": id, "verb": verb,
            "payload": payload});
        std::fs::write(
            t.0.join(format!("inbox/{:02}.json", n.get())),
            cmd.to_string(),
        )
        .unwrap();
        assert!(run(&["bridge", d]).status.success());
        let o = json(&t.0.join(format!("processed/{id}.outcome.json")));
        assert_eq!(
            (o["status"].as_str(), &o["verb"]),
            (Some("succeeded"), &Value::from(verb))
        );
        let [object_id] = o["resultingIDs"].as_array().unwrap().as_slice() else {
            panic!("one resulting id: {o}")
        };
        let state = json(&t.0.join("manifest.json"))["state"].clone();
        let object = match list {
            "myWeek" => state["myWeek"].clone(),
            _ => (state[list].as_array().unwrap().iter())
                .find(|x| x["id"] == *object_id)
                .unwrap_or_else(|| panic!("{object_id} not in {list}: {state}"))
                .clone(),
        };
        assert_eq!(object["updatedAt"], o["updatedAt"], "{o} {object}");
        let object_id = object_id.as_str().unwrap().to_string();
        (
            object_id,
            o["updatedAt"].as_str().unwrap().to_string(),
            object,
        )
    };
    let step = |w: &str| {
        serde_json::json!({"workoutID": w, "workSeconds": 30, "sets": 3, "setRestSeconds": 10,
            "restAfterSeconds": 15})
    };
    let week = |slots: Value| {
        (1..=7)
            .map(|d| serde_json::json!({"weekday": d, "slots": if d == 2 { slots.clone() } else { serde_json::json!([]) }}))
            .collect::<Vec<_>>()
    };
    let (w, at, _) = send(
        "createCustomWorkout",
        "customWorkouts",
        serde_json::json!({"name": "Hip Circles", "notes": "slow"}),
    );
    let (same, later, workout) = send(
        "updateCustomWorkout",
        "customWorkouts",
        serde_json::json!({"id": w, "expectedUpdatedAt": at, "name": "Hip Circles"}),
    );
    assert_eq!(same, w);
    assert!(later > at && workout.get("notes").is_none(), "{workout}");
    let (r, at, _) = send(
        "createRoutine",
        "routines",
        serde_json::json!({"name": "Core", "steps": [step(&w)]}),
    );
    let (same, _, routine) = send(
        "updateRoutine",
        "routines",
        serde_json::json!({"id": r, "expectedUpdatedAt": at, "name": "Core", "steps": [step("plank")]}),
    );
    assert_eq!(
        (same, &routine["steps"]),
        (r.clone(), &serde_json::json!([step("plank")]))
    );
    let (p, at, _) = send(
        "createPlan",
        "plans",
        serde_json::json!({"name": "Week", "days": week(serde_json::json!([{"routineRef": {"id": r}}]))}),
    );
    let (same, at, plan) = send(
        "updatePlan",
        "plans",
        serde_json::json!({"id": p, "expectedUpdatedAt": at, "name": "Week 2", "days": week(serde_json::json!([]))}),
    );
    assert_eq!((same, &plan["name"]), (p.clone(), &Value::from("Week 2")));
    let (same, _, my_week) = send(
        "activatePlan",
        "myWeek",
        serde_json::json!({"id": p, "expectedUpdatedAt": at}),
    );
    assert_eq!((same, &my_week["planID"]), (p.clone(), &Value::from(p)));
}

#[test]
fn serve_works_through_a_flood_in_small_lexical_batches() {
    use stepreplay::serve::{ServeOptions, serve};
    let t = Tmp::new("batches");
    let jobs = t.0.join("jobs");
    let n = 23;
    flood(&jobs, n);
    let mut opts = ServeOptions::new(repo());
    opts.once = true;
    opts.batch = 4;
    let stop = std::sync::atomic::AtomicBool::new(false);
    let s = serve(&jobs, &opts, &stop).unwrap();
    assert_eq!((s.ran, s.succeeded, s.duplicates, s.resumed), (n, n, 0, 0));
    assert!(!s.stopped);
    assert_exactly_once(&jobs, n);
    // The journal shows lexical order across batches.
    let journal = std::fs::read_to_string(jobs.join("journal.log")).unwrap();
    let order: Vec<&str> = journal
        .lines()
        .map(|l| l.split(' ').nth(2).unwrap())
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
    // A stop request is honoured before the next file.
    flood(&jobs.join("again"), 2);
    stop.store(true, Ordering::SeqCst);
    let s = serve(&jobs.join("again"), &opts, &stop).unwrap();
    assert!(s.stopped);
    assert_eq!(s.ran, 0);
    assert_eq!(names(&jobs.join("again/inbox")).len(), 2);
}

/// Pseudo-random pauses for the kill loops: the same sequence every run (the moments they
/// land on still vary with the machine, which is the point).
fn pauses(n: usize) -> Vec<std::time::Duration> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            std::time::Duration::from_micros(x % 40_000)
        })
        .collect()
}

/// kill -9 at 100 points under a flood, then a clean run: every job has exactly one outcome
/// and its file is moved exactly once (a kill may skip a journal line, never double one).
#[test]
fn serve_killed_at_a_hundred_points_loses_and_repeats_nothing() {
    let t = Tmp::new("kill-loop");
    let jobs = t.0.join("jobs");
    let n = 100;
    flood(&jobs, n);
    let d = jobs.to_str().unwrap();
    let kills = pauses(100);
    for pause in &kills {
        let mut child = stepreplay(&["serve", "--inbox", d, "--poll-ms", "5"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(*pause);
        child.kill().unwrap();
        child.wait().unwrap();
    }
    let out = run(&["serve", "--inbox", d, "--once"]);
    assert!(out.status.success());
    assert_exactly_once_journal(&jobs, n, kills.len());
}

/// The bridge, killed at 100 points while it sweeps a flood of commands, then run once more:
/// each command has exactly one outcome, its file sits beside it once, and the inbox is empty.
#[test]
fn the_bridge_killed_at_a_hundred_points_answers_every_command_once() {
    let t = Tmp::new("bridge-kill-loop");
    let d = t.0.to_str().unwrap();
    assert!(run(&["bridge", "init", d]).status.success());
    let n = 100;
    for i in 0..n {
        let id = format!("{i:08x}-1111-4111-8111-111111111111");
        std::fs::write(
            t.0.join(format!("inbox/{i:04}.json")),
            routine_cmd(&id, &format!("Routine {i}")),
        )
        .unwrap();
    }
    for pause in pauses(100) {
        let mut child = stepreplay(&["bridge", d])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(pause);
        let _ = child.kill();
        child.wait().unwrap();
    }
    assert!(run(&["bridge", d]).status.success());
    assert_eq!(names(&t.0.join("inbox")), Vec::<String>::new());
    let mut ids = Vec::new();
    let mut commands = 0;
    for sub in ["processed", "failed"] {
        for name in names(&t.0.join(sub)) {
            assert!(!name.starts_with('.'), "temp file left: {name}");
            if name.ends_with(".outcome.json") {
                ids.push(
                    json(&t.0.join(sub).join(&name))["commandID"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                );
            } else {
                commands += 1;
            }
        }
    }
    ids.sort();
    let want: Vec<String> = (0..n)
        .map(|i| format!("{i:08x}-1111-4111-8111-111111111111"))
        .collect();
    assert_eq!(ids, want, "one outcome per command");
    assert_eq!(commands, n, "every command file moved exactly once");
    let m = json(&t.0.join("manifest.json"));
    let routines = m["state"]["routines"].as_array().map_or(0, Vec::len);
    assert_eq!(routines, n, "each routine created once: {m}");
}

fn set_enabled(dir: &Path, on: bool) {
    let mut m = json(&dir.join("manifest.json"));
    m["bridgeEnabled"] = Value::Bool(on);
    std::fs::write(dir.join("manifest.json"), m.to_string()).unwrap();
}

#[test]
fn a_command_refused_while_disabled_is_replayed_not_applied_once_access_is_on() {
    let t = Tmp::new("disabled");
    let dir = t.0.join("b");
    let d = dir.to_str().unwrap();
    assert!(run(&["bridge", "init", d]).status.success());
    set_enabled(&dir, false);
    std::fs::write(dir.join("inbox/01.json"), routine_cmd(A, "Core")).unwrap();
    assert!(run(&["bridge", d]).status.success());
    let refused = json(&dir.join(format!("failed/{A}.outcome.json")));
    assert_eq!(refused["reason"], "bridge-disabled");
    assert_eq!(refused["duplicateCommand"], false);

    // Access on, the same id resent (in another letter case): the seed's "reusing the UUID
    // in any case replays the original outcome", so the refusal is replayed, nothing applied.
    set_enabled(&dir, true);
    std::fs::write(
        dir.join("inbox/02.json"),
        routine_cmd(&A.to_uppercase(), "Other"),
    )
    .unwrap();
    assert!(run(&["bridge", d]).status.success());
    let dup = json(&dir.join(format!("failed/{A}.outcome.json")));
    assert_eq!(dup["duplicateCommand"], true);
    assert_eq!(dup["status"], "failed");
    assert_eq!(dup["reason"], "bridge-disabled");
    assert_eq!(
        dup["processedAt"], refused["processedAt"],
        "the original outcome"
    );
    assert_eq!(dup["inboxFile"], "02.json");
    assert_ne!(dup["commandFile"], refused["commandFile"]);
    assert!(!dir.join(format!("processed/{A}.outcome.json")).exists());
    let m = json(&dir.join("manifest.json"));
    assert_eq!(
        m["state"]["routines"].as_array().map_or(0, Vec::len),
        0,
        "{m}"
    );
    // Both command files stay in failed/, beside the id's one outcome, and none is orphaned
    // elsewhere; the duplicate's file is the one its outcome names.
    let mut failed: Vec<String> = std::fs::read_dir(dir.join("failed"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    failed.sort();
    assert_eq!(failed.len(), 3, "{failed:?}");
    assert!(failed.iter().all(|f| f.starts_with(A)), "{failed:?}");
    let beside = dir
        .join("failed")
        .join(dup["commandFile"].as_str().unwrap());
    assert!(std::fs::read_to_string(beside).unwrap().contains("Other"));
    let processed = std::fs::read_dir(dir.join("processed")).unwrap().count();
    assert_eq!(processed, 0);

    // A new id applies, and resending it while access is off replays its success.
    const B: &str = "b2222222-2222-4222-8222-222222222222";
    std::fs::write(dir.join("inbox/03.json"), routine_cmd(B, "Core")).unwrap();
    assert!(run(&["bridge", d]).status.success());
    let applied = json(&dir.join(format!("processed/{B}.outcome.json")));
    assert_eq!(applied["status"], "succeeded");
    set_enabled(&dir, false);
    std::fs::write(dir.join("inbox/04.json"), routine_cmd(B, "Other")).unwrap();
    assert!(run(&["bridge", d]).status.success());
    let dup = json(&dir.join(format!("processed/{B}.outcome.json")));
    assert_eq!(dup["duplicateCommand"], true);
    assert_eq!(dup["status"], "succeeded");
    assert_eq!(dup["inboxFile"], "04.json");
    assert_ne!(dup["commandFile"], applied["commandFile"]);
    let m = json(&dir.join("manifest.json"));
    assert_eq!(
        m["state"]["routines"].as_array().map_or(0, Vec::len),
        1,
        "{m}"
    );
}

/// Two servers on one jobs folder: each job is answered exactly once, by one of them, and
/// neither fails (each writes its temporary files under its own name, a second server's
/// clean-up spares a live one's, and a job file the other server moved first is no error).
#[test]
fn two_serve_processes_on_one_folder_answer_every_job_exactly_once() {
    for round in 0..3 {
        let t = Tmp::new(&format!("two-servers-{round}"));
        let jobs = t.0.join("jobs");
        let n = 80;
        flood(&jobs, n);
        let d = jobs.to_str().unwrap();
        let start = || {
            stepreplay(&["serve", "--inbox", d, "--once", "--poll-ms", "1"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (a, b) = (start(), start());
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        for o in [&a, &b] {
            assert!(
                o.status.success(),
                "a server failed: {}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
        }
        eprintln!(
            "round {round}: {} | {}",
            String::from_utf8_lossy(&a.stdout).trim(),
            String::from_utf8_lossy(&b.stdout).trim()
        );
        assert_exactly_once(&jobs, n);
    }
}
