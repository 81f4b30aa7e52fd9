//! Every front door streams its results into one run session (`report/session.rs`), so each
//! writes `run`'s files where it writes a report, judges a scenario as `run` does (a failing
//! one fails everywhere, with the same reason), and an interrupted run is red in every file
//! and its exit code. The interrupt is a real signal the process sends itself once its first
//! result is folded (`STEPREPLAY_TEST_SIGNAL`): the same point in every door, no timing.
//! `serve` finishes the job in hand by design (a stop is honoured between jobs), so its job's
//! files stay whole; its report equals `run`'s in `bridge.rs`.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::faults::assert_red_incomplete;
use crate::util::{Run, TempDir, copy_tree, repo, stepreplay};

const SIGNAL: &str = "STEPREPLAY_TEST_SIGNAL";

/// The mini suite cut to two scenarios: `mini-completed` passes, `mini-typo` (the same plan
/// with a label typo) fails with `target-not-found`.
fn suite(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    let d = dir.path();
    copy_tree(&repo().join("harness/tests/fixtures/mini"), d);
    for id in [
        "declined",
        "example-to",
        "floors",
        "no-pin-declined",
        "no-pin",
    ] {
        std::fs::remove_file(d.join(format!("scenarios/mini-{id}.json"))).unwrap();
    }
    let mut plan = json(&d.join("scenarios/mini/plan.json"));
    plan["steps"][0]["target"]["label"] = "Tooo:".into();
    std::fs::create_dir_all(d.join("scenarios/typo")).unwrap();
    std::fs::write(d.join("scenarios/typo/plan.json"), plan.to_string()).unwrap();
    let mut sc = json(&d.join("scenarios/mini-completed.json"));
    sc["id"] = "mini-typo".into();
    sc["plan"] = "typo/plan.json".into();
    std::fs::write(d.join("scenarios/mini-typo.json"), sc.to_string()).unwrap();
    dir
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The files a report folder holds.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Each scenario's verdict in `report.json`: met, and why not.
fn verdicts(dir: &Path) -> BTreeMap<String, (bool, Value)> {
    let r = json(&dir.join("report.json"));
    (r["scenarios"].as_array().unwrap().iter())
        .map(|s| {
            let id = s["id"].as_str().unwrap().to_string();
            (id, (s["met"] == true, s["mismatch"].clone()))
        })
        .collect()
}

fn agent_cmd() -> String {
    format!(
        "python3 {}",
        repo().join("examples/reference-agent.py").display()
    )
}

/// `run`'s report folder of the suite in `d`, and its exit code.
fn ran(d: &Path, sig: Option<&str>) -> Run {
    door(
        d,
        &["run", "scenarios", "-j", "1", "--report-dir", "run"],
        sig,
    )
}

fn door(d: &Path, args: &[&str], sig: Option<&str>) -> Run {
    let cli = stepreplay(d).arg("-q").args(args);
    match sig {
        Some(s) => cli.env(SIGNAL, s).run(),
        None => cli.run(),
    }
}

/// `mutate --report-dir` and a merge of `run`'s shards write `run`'s files with `run`'s
/// verdicts; `agent` writes the same files and fails the typo for the same reason (its other
/// scenario is the agent's own attempt); `check --recording` fails the typo with `run`'s words.
#[test]
fn every_door_writes_runs_files_and_judges_as_run() {
    let s = suite("doors");
    let d = s.path();
    let run = ran(d, None);
    run.check(run.code == 1, "the typo fails the run");
    let want = verdicts(&d.join("run"));
    assert!(!want["mini-typo"].0 && want["mini-completed"].0, "{want:?}");
    assert!(
        want["mini-typo"]
            .1
            .as_str()
            .unwrap()
            .contains("(target-not-found)"),
        "{want:?}"
    );
    let mutate = door(d, &["mutate", "scenarios", "--report-dir", "mutate"], None);
    mutate.check(mutate.code == 1, "a failing original fails mutate");
    let shard = |k: &str| {
        let r = door(
            d,
            &["run", "scenarios", "--shard", k, "--report-dir", k],
            None,
        );
        r.check(r.code <= 1, "a shard runs");
    };
    shard("1/2");
    shard("2/2");
    let merge = door(
        d,
        &[
            "merge",
            "--out",
            "merge/report.json",
            "1/2/report.json",
            "2/2/report.json",
        ],
        None,
    );
    merge.check(merge.code == 1, "the merged run fails as run does");
    for dir in ["mutate", "merge"] {
        assert_eq!(names(&d.join(dir)), names(&d.join("run")), "{dir}'s files");
        assert_eq!(verdicts(&d.join(dir)), want, "{dir}'s verdicts");
    }
    if crate::util::have_tool("python3", "apt-get install python3") {
        let cmd = agent_cmd();
        let agent = door(
            d,
            &["agent", "--cmd", &cmd, "scenarios", "--report-dir", "agent"],
            None,
        );
        agent.check(agent.code == 1, "the typo fails the agent's run");
        assert_eq!(names(&d.join("agent")), names(&d.join("run")));
        assert_eq!(verdicts(&d.join("agent"))["mini-typo"], want["mini-typo"]);
    }
    let check = |plan: &str, scenario: &str| {
        door(
            d,
            &[
                "check",
                plan,
                "--recording",
                "recordings/mini",
                "--scenario",
                scenario,
            ],
            None,
        )
    };
    let typo = check("scenarios/typo/plan.json", "scenarios/mini-typo.json");
    typo.check(
        typo.code == 1 && typo.stderr.contains(want["mini-typo"].1.as_str().unwrap()),
        "check --recording fails the typo in run's words",
    );
    let clean = check("scenarios/mini/plan.json", "scenarios/mini-completed.json");
    clean.check(
        clean.code == 0 && clean.stderr.contains("1 scenario: 1 as expected, 0 not"),
        "and passes the plan run passes",
    );
}

/// Interrupted after its first result, every door exits 130 (SIGINT) or 143 (SIGTERM), and
/// every file it writes says incomplete; a merge of an interrupted shard is incomplete too.
#[test]
fn an_interrupted_run_is_red_in_every_door() {
    let s = suite("doors-interrupted");
    let d = s.path();
    let run = ran(d, Some("SIGINT"));
    run.check(run.code == 130, "run stopped by Ctrl-C");
    assert_red_incomplete(&d.join("run"));
    let mutate = door(
        d,
        &["mutate", "scenarios", "-j", "1", "--report-dir", "mutate"],
        Some("SIGTERM"),
    );
    mutate.check(mutate.code == 143, "mutate stopped by SIGTERM");
    assert_red_incomplete(&d.join("mutate"));
    let shard = door(
        d,
        &["run", "scenarios", "--shard", "1/2", "--report-dir", "1"],
        Some("SIGINT"),
    );
    shard.check(shard.code == 130, "a shard stopped");
    let whole = door(
        d,
        &["run", "scenarios", "--shard", "2/2", "--report-dir", "2"],
        None,
    );
    whole.check(whole.code <= 1, "the other shard runs");
    let merge = door(
        d,
        &[
            "merge",
            "--out",
            "merge/report.json",
            "1/report.json",
            "2/report.json",
        ],
        None,
    );
    merge.check(merge.code == 2, "a merge of a cut shard is incomplete");
    assert_red_incomplete(&d.join("merge"));
    if crate::util::have_tool("python3", "apt-get install python3") {
        let cmd = agent_cmd();
        let agent = door(
            d,
            &["agent", "--cmd", &cmd, "scenarios", "--report-dir", "agent"],
            Some("SIGTERM"),
        );
        agent.check(agent.code == 143, "agent stopped by SIGTERM");
        assert_red_incomplete(&d.join("agent"));
    }
    let check = door(
        d,
        &[
            "check",
            "scenarios/mini/plan.json",
            "--recording",
            "recordings/mini",
        ],
        Some("SIGINT"),
    );
    check.check(
        check.code == 130 && check.stderr.contains("incomplete: stopped by SIGINT"),
        "check --recording stopped by Ctrl-C",
    );
}

/// A `serve` job is never cut: a signal during it is honoured after it, so the job's files
/// are whole and judged as `run` judges them, and the server stops cleanly.
#[test]
fn a_signal_during_a_serve_job_leaves_the_job_whole() {
    let s = suite("doors-serve");
    let d = s.path();
    std::fs::create_dir_all(d.join("jobs/inbox")).unwrap();
    let id = "00000001-0000-4000-8000-000000000000";
    let payload = serde_json::json!({
        "scenarios": ["scenarios/mini-completed.json", "scenarios/mini-typo.json"]
    });
    let job = serde_json::json!({
        "schemaVersion": 1, "commandID": id, "verb": "run", "payload": payload
    });
    std::fs::write(d.join("jobs/inbox/01.json"), job.to_string()).unwrap();
    let served = door(
        d,
        &["serve", "--inbox", "jobs", "--base", ".", "--once"],
        Some("SIGINT"),
    );
    served.check(served.code == 0, "a clean stop after the job");
    let reports = d.join(format!("jobs/reports/{id}"));
    assert_eq!(json(&reports.join("manifest.json"))["complete"], true);
    let run = ran(d, None);
    run.check(run.code == 1, "the typo fails");
    assert_eq!(verdicts(&reports), verdicts(&d.join("run")));
}

/// `record --plan` folds its replay of what it kept into a run session: with `--report-dir`
/// it writes `run`'s files with the verdict `run` gives that recording, and stopped after
/// its result it is red in each of them. Live: Xvfb, AT-SPI and zenity.
#[cfg(target_os = "linux")]
#[test]
fn record_plan_reports_as_run_and_an_interrupt_is_red() {
    if !crate::record::have_desktop() {
        return;
    }
    let s = TempDir::new("doors-record");
    let d = s.path();
    let (plan, answers) = crate::record::guide_copy(d, |p| {
        p["steps"][2]["target"]["label"] = "Lats name".into();
    });
    let follow = |name: &str, sig: Option<&str>| {
        let mut cli = stepreplay(d)
            .args(["-q", "record", "--xvfb", "--plan"])
            .arg(&plan)
            .arg("--answers")
            .arg(&answers)
            .args(["--report-dir", &format!("{name}-reports")])
            .args(["--out", &format!("recordings/{name}"), "--"])
            .args(crate::record::zenity_contact_app());
        if let Some(s) = sig {
            cli = cli.env(SIGNAL, s);
        }
        cli.run()
    };
    let live = follow("miss", None);
    live.check(live.code == 1, "the stale guide fails");
    let run = stepreplay(d)
        .args([
            "-q",
            "run",
            "--mode",
            "chained",
            "--report-dir",
            "run",
            "--recording",
        ])
        .arg("recordings/miss")
        .arg("--answers")
        .arg(&answers)
        .arg(&plan)
        .run();
    run.check(run.code == 1, "run fails the kept recording too");
    assert_eq!(names(&d.join("miss-reports")), names(&d.join("run")));
    assert_eq!(verdicts(&d.join("miss-reports")), verdicts(&d.join("run")));
    let cut = follow("cut", Some("SIGTERM"));
    cut.check(cut.code == 143, "record --plan stopped by SIGTERM");
    assert_red_incomplete(&d.join("cut-reports"));
}

/// `agent --shard k/n` splits a suite as `run --shard` does: the parts merge into the report
/// the whole agent run writes.
#[test]
fn agent_shards_merge_into_the_whole_agent_run() {
    if !crate::util::have_tool("python3", "apt-get install python3") {
        return;
    }
    let s = suite("doors-agent-shards");
    let d = s.path();
    let cmd = agent_cmd();
    let agent = |dir: &str, shard: &[&str]| {
        let mut args = vec!["agent", "--cmd", &cmd, "scenarios", "--report-dir", dir];
        args.extend(shard);
        door(d, &args, None)
    };
    let whole = agent("whole", &[]);
    whole.check(whole.code == 1, "the typo fails");
    for k in ["1/2", "2/2"] {
        let part = agent(k, &["--shard", k]);
        part.check(part.code <= 1, "a part runs");
    }
    let merge = door(
        d,
        &[
            "merge",
            "--out",
            "merge/report.json",
            "1/2/report.json",
            "2/2/report.json",
        ],
        None,
    );
    merge.check(
        merge.code == 1,
        "the merged agent run fails as the whole one does",
    );
    assert_eq!(verdicts(&d.join("merge")), verdicts(&d.join("whole")));
}
