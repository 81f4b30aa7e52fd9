//! The CI gate: sharding and merge, the baseline and its regressions, JUnit, Markdown and
//! HTML — on the `mini` fixture suite (`scenarios/`, all as expected) and `failing/` (one
//! scenario that misses its expectation).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use stepreplay::evidence::{Evidence, FromRecordings};
use stepreplay::replay::Mode;
use stepreplay::report::{
    Baseline, Entries, MergeError, RegressionKind, Report, ReportRef, Spill, Totals,
    captures_wanted, compare, html_escape, html_wanted, merge, page_name, to_html, to_json,
    to_junit, to_junit_timed, to_markdown, write_captures, write_html, write_html_paged,
    write_json, write_json_to,
};
use stepreplay::score::Score;
use stepreplay::shard::Shard;
use stepreplay::suite::{RunOptions, discover, load_suite};

use crate::util::{have_tool, repo, run_collected};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini")
}

fn passing() -> PathBuf {
    fixtures().join("scenarios")
}

fn failing() -> PathBuf {
    fixtures().join("failing")
}

const MODES: [Mode; 2] = [Mode::Chained, Mode::PerStep];

/// The report of `paths` (or of one shard of them), built as `run` builds it.
fn report_of(paths: &[PathBuf], shard: Option<Shard>) -> Report {
    let files = discover(paths).unwrap();
    let suite = load_suite(&files, shard).unwrap();
    let opts = RunOptions {
        jobs: 2,
        modes: MODES.to_vec(),
        perturb: vec![],
        ocr: Default::default(),
    };
    let all_ids = suite.all_ids.clone();
    let results = run_collected(suite, &opts).unwrap();
    let report = Report::from_results(&results, &MODES);
    match shard {
        Some(s) => report.into_shard(&all_ids, s),
        None => report,
    }
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("stepreplay-gate-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn stepreplay(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stepreplay"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

// ---------------------------------------------------------------- sharding and merge

#[test]
fn shards_hash_ids_with_fnv1a_and_parse_k_of_n() {
    use stepreplay::fnv::fnv1a64;
    // The published FNV-1a 64 test vectors: shard membership must never change under us.
    assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
    for bad in ["0/4", "5/4", "1/0", "1", "a/b", ""] {
        assert!(bad.parse::<Shard>().is_err(), "{bad}");
    }
    let s = Shard { index: 2, count: 4 };
    assert_eq!(s.to_string(), "2/4");
    // fnv1a64("a") % 4 == 0: part 1 of 4.
    assert!(!s.contains("a"));
    assert!(Shard { index: 1, count: 4 }.contains("a"));
}

#[test]
fn shards_partition_the_suite_and_merge_to_the_unsharded_bytes_for_n_1_to_5() {
    let whole = to_json(&report_of(&[passing(), failing()], None));
    let all = report_of(&[passing(), failing()], None).scenarios.len();
    assert!(all >= 7, "{all}");
    for n in 1..=5u32 {
        let parts: Vec<Report> = (1..=n)
            .map(|k| report_of(&[passing(), failing()], Some(Shard { index: k, count: n })))
            .collect();
        let sizes: Vec<usize> = parts.iter().map(|p| p.scenarios.len()).collect();
        assert_eq!(sizes.iter().sum::<usize>(), all, "n={n}: {sizes:?}");
        if n >= 2 {
            assert!(
                sizes.iter().filter(|&&s| s > 0).count() >= 2,
                "n={n}: trivial shards {sizes:?}"
            );
        }
        // Any order of the parts on the command line.
        let mut reversed = parts.clone();
        reversed.reverse();
        assert_eq!(to_json(&merge(reversed).unwrap()), whole, "n={n}");
    }
}

#[test]
fn merge_refuses_parts_that_do_not_make_one_run() {
    let s = |k, n| Shard { index: k, count: n };
    let both = [passing(), failing()];
    let (p1, p2) = (
        report_of(&both, Some(s(1, 2))),
        report_of(&both, Some(s(2, 2))),
    );

    assert!(matches!(
        merge(vec![p1.clone()]),
        Err(MergeError::MissingShards { .. })
    ));
    assert!(matches!(
        merge(vec![p1.clone(), p1.clone()]),
        Err(MergeError::DuplicateShard { .. })
    ));
    // A shard of another suite (failing/ left out).
    let other = report_of(&[passing()], Some(s(2, 2)));
    assert!(
        matches!(
            merge(vec![p1.clone(), other]),
            Err(MergeError::Mismatch { what: "suite", .. })
        ),
        "different suites"
    );
    let mut newer = p2.clone();
    newer.harness = "stepreplay 9.9.9".into();
    assert!(matches!(
        merge(vec![p1.clone(), newer]),
        Err(MergeError::Mismatch {
            what: "harness version",
            ..
        })
    ));
    let mut chained_only = p2.clone();
    chained_only.modes = vec![Mode::Chained];
    assert!(matches!(
        merge(vec![p1.clone(), chained_only]),
        Err(MergeError::Mismatch {
            what: "set of modes",
            ..
        })
    ));
    assert!(matches!(
        merge(vec![p1.clone(), report_of(&both, Some(s(2, 3)))]),
        Err(MergeError::Mismatch {
            what: "shard count",
            ..
        })
    ));
    // The same scenario in two shards (a hand-edited or foreign part).
    let mut dup = p2.clone();
    dup.scenarios.push(p1.scenarios[0].clone());
    assert_eq!(
        merge(vec![p1.clone(), dup]),
        Err(MergeError::DuplicateScenario {
            id: p1.scenarios[0].id.clone()
        })
    );
    let whole = report_of(&both, None);
    assert_eq!(merge(vec![whole]), Err(MergeError::NotShard { index: 1 }));
}

/// Runs `suite` in `n` shards (balanced by `durations` when given) writing `reports` into
/// `dir/part<k>`, then merges them into `dir/<name>/report.json`; returns the merged folder.
fn shard_and_merge(
    suite: &Path,
    dir: &Path,
    name: &str,
    n: u32,
    durations: Option<&Path>,
    reports: &str,
) -> PathBuf {
    let mut parts = Vec::new();
    for k in 1..=n {
        let d = dir.join(format!("{name}-part{k}"));
        let shard = format!("{k}/{n}");
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "run".as_ref(),
            suite.as_os_str(),
            "--shard".as_ref(),
            shard.as_ref(),
            "--reports".as_ref(),
            reports.as_ref(),
            "--report-dir".as_ref(),
            d.as_os_str(),
        ];
        if let Some(p) = durations {
            args.extend(["--durations".as_ref(), p.as_os_str()]);
        }
        let o = stepreplay(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert_eq!(
            d.join("junit.xml").exists(),
            reports.contains("junit"),
            "--reports {reports}"
        );
        parts.push(d.join("report.json"));
    }
    let merged = dir.join(name).join("report.json");
    let mut args: Vec<&std::ffi::OsStr> =
        vec!["merge".as_ref(), "--out".as_ref(), merged.as_os_str()];
    args.extend(parts.iter().rev().map(|p| p.as_os_str()));
    let o = stepreplay(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    dir.join(name)
}

#[test]
fn four_shards_merged_are_byte_identical_to_one_run_by_hash_and_by_duration() {
    let dir = temp("cli-shard");
    let suite = passing();
    let whole = dir.join("whole");
    let o = stepreplay(&[
        "run".as_ref(),
        suite.as_os_str(),
        "--quiet".as_ref(),
        "--report-dir".as_ref(),
        whole.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let read = |d: &Path, f: &str| std::fs::read(d.join(f)).unwrap();
    let by_hash = shard_and_merge(&suite, &dir, "hash", 4, None, "json");
    // The whole run's junit.xml holds each scenario's time: the shards are balanced by it.
    let whole_junit = whole.join("junit.xml");
    let by_time = shard_and_merge(&suite, &dir, "time", 4, Some(&whole_junit), "json,junit");
    for merged in [&by_hash, &by_time] {
        for f in ["report.json", "summary.md", "index.html"] {
            assert!(
                read(merged, f) == read(&whole, f),
                "{f} of {} differs from the unsharded run's",
                merged.display()
            );
        }
    }
    // The shards that wrote junit.xml lend the merged one their times: the unsharded run's
    // file but for the times, and it balances a later run's shards as that one does.
    let junit = |d: &Path| std::fs::read_to_string(d.join("junit.xml")).unwrap();
    let merged_junit = junit(&by_time);
    assert_eq!(
        crate::util::junit_without_times(&merged_junit),
        crate::util::junit_without_times(&junit(&whole)),
    );
    assert!(merged_junit.matches("<testsuite name=").count() > 1);
    for line in merged_junit
        .lines()
        .filter(|l| l.contains("<testsuite name="))
    {
        assert!(
            line.contains(" time=\""),
            "a suite without its time: {line}"
        );
    }
    shard_and_merge(
        &suite,
        &dir,
        "again",
        2,
        Some(&by_time.join("junit.xml")),
        "json",
    );
    // Balanced by time, every part holds a scenario (by hash, a part of a small suite may not).
    for k in 1..=4 {
        let part = dir.join(format!("time-part{k}/report.json"));
        let r = stepreplay::report::load_report(&part).unwrap();
        assert!(!r.scenarios.is_empty(), "part {k} of 4 by time is empty");
    }
    // One part missing: refused, with a reason and a hint.
    let o = stepreplay(&[
        "merge".as_ref(),
        "--out".as_ref(),
        dir.join("bad/report.json").as_os_str(),
        dir.join("hash-part1/report.json").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("shards missing: 2, 3, 4"), "{}", text(&o));
    let o = stepreplay(&[
        "run".as_ref(),
        suite.as_os_str(),
        "--shard".as_ref(),
        "4/3".as_ref(),
    ]);
    assert_eq!(o.status.code(), Some(64), "a usage error: {}", text(&o));
    // A merged junit.xml of shards that wrote none has no times: refused, naming the file.
    let o = stepreplay(&[
        "run".as_ref(),
        suite.as_os_str(),
        "--shard".as_ref(),
        "1/2".as_ref(),
        "--durations".as_ref(),
        by_hash.join("junit.xml").as_os_str(),
        "--report-dir".as_ref(),
        dir.join("untimed").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("no scenario times"), "{}", text(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------- baseline and regressions

#[test]
fn the_accepted_report_has_no_regressions() {
    let report = report_of(&[passing(), failing()], None);
    let base = Baseline::from_report(&report);
    let r = compare(&base, &report, 0.0).unwrap();
    assert_eq!(r.regressions, vec![]);
    assert!(r.not_compared.is_empty());
}

#[test]
fn a_scenario_that_now_misses_its_expectation_is_a_regression() {
    let report = report_of(&[passing()], None);
    let base = Baseline::from_report(&report);
    let mut now = report.clone();
    let s = now
        .scenarios
        .iter_mut()
        .find(|s| s.id == "mini-declined")
        .unwrap();
    s.met = false;
    s.mismatch = Some("expected stopped, got completed".into());
    let r = compare(&base, &now, 0.0).unwrap();
    assert_eq!(r.regressions.len(), 1, "{:?}", r.regressions);
    let g = &r.regressions[0];
    assert_eq!(g.kind, RegressionKind::NowFailing);
    assert_eq!(g.scenario.as_deref(), Some("mini-declined"));
    assert!(
        g.to_string().contains("expected stopped, got completed"),
        "{g}"
    );
}

#[test]
fn a_score_below_its_baseline_beyond_the_tolerance_is_a_regression() {
    let report = report_of(&[passing()], None);
    let base = Baseline::from_report(&report);
    let mut now = report.clone();
    let run = now.scenarios[0].runs.get_mut(&Mode::PerStep).unwrap();
    run.scores.element_accuracy = Score(Some(0.75));
    let r = compare(&base, &now, 0.0).unwrap();
    assert_eq!(r.regressions.len(), 1, "{:?}", r.regressions);
    let g = &r.regressions[0];
    assert_eq!(g.kind, RegressionKind::ScoreDropped);
    assert_eq!(g.scenario.as_deref(), Some(now.scenarios[0].id.as_str()));
    assert_eq!(g.mode, Some(Mode::PerStep));
    assert_eq!(g.score.as_deref(), Some("element_accuracy"));
    assert_eq!((g.baseline, g.current), (Some(1.0), Some(0.75)));
    // A score-only regression is a JUnit failure too: the viewer agrees with the exit code.
    let xml = to_junit(&now, Some(&r));
    let id = &now.scenarios[0].id;
    let case = format!("<testcase name=\"baseline\" classname=\"{id}\">");
    let at = xml.find(&case).unwrap_or_else(|| panic!("{xml}"));
    assert!(
        xml[at..]
            .split("</testcase>")
            .next()
            .unwrap()
            .contains("type=\"regression\""),
        "{xml}"
    );
    let clean = to_junit(&report, Some(&compare(&base, &report, 0.0).unwrap()));
    assert!(!clean.contains("type=\"regression\""), "{clean}");
    assert!(clean.contains("<testcase name=\"baseline\""), "{clean}");
    // Within the tolerance: no regression; a rise is never one.
    assert_eq!(compare(&base, &now, 0.25).unwrap().regressions, vec![]);
    let r = compare(&Baseline::from_report(&now), &report, 0.0).unwrap();
    assert_eq!(r.regressions, vec![]);
    // The run's totals are compared too (same suite).
    let mut totals = report.clone();
    let chained = totals.summary.scores.get_mut(&Mode::Chained).unwrap();
    chained.step_success = Score(chained.step_success.0.map(|v| v - 0.1));
    let r = compare(&base, &totals, 0.05).unwrap();
    assert_eq!(r.regressions.len(), 1, "{:?}", r.regressions);
    assert_eq!(r.regressions[0].scenario, None);
    assert_eq!(r.regressions[0].score.as_deref(), Some("step_success"));
}

/// A score the baseline had that the run can no longer give (nothing judged) is a drop, not
/// a pass.
#[test]
fn a_score_that_is_no_longer_judged_is_a_regression() {
    let report = report_of(&[passing()], None);
    let base = Baseline::from_report(&report);
    let mut now = report.clone();
    let run = now.scenarios[0].runs.get_mut(&Mode::PerStep).unwrap();
    run.scores.element_accuracy = Score(None);
    let r = compare(&base, &now, 1.0).unwrap();
    assert_eq!(r.regressions.len(), 1, "{:?}", r.regressions);
    let g = &r.regressions[0];
    assert_eq!(g.kind, RegressionKind::ScoreDropped);
    assert_eq!((g.baseline, g.current), (Some(1.0), None));
    assert!(g.detail.contains("nothing is judged"), "{}", g.detail);
}

#[test]
fn a_new_ambiguity_is_a_regression() {
    let report = report_of(&[passing()], None);
    let base = Baseline::from_report(&report);
    let mut now = report.clone();
    let id = now.scenarios[1].id.clone();
    now.scenarios[1]
        .runs
        .get_mut(&Mode::Chained)
        .unwrap()
        .scores
        .ambiguity_count += 1;
    // Even with a generous tolerance: a tie is a new doubt, not a small drop.
    let r = compare(&base, &now, 0.5).unwrap();
    assert_eq!(r.regressions.len(), 1, "{:?}", r.regressions);
    assert_eq!(r.regressions[0].kind, RegressionKind::AmbiguityAppeared);
    assert_eq!(r.regressions[0].scenario.as_deref(), Some(id.as_str()));
}

#[test]
fn a_shard_is_compared_only_on_its_own_scenarios() {
    let whole = report_of(&[passing()], None);
    let base = Baseline::from_report(&whole);
    let part = report_of(&[passing()], Some(Shard { index: 1, count: 2 }));
    let r = compare(&base, &part, 0.0).unwrap();
    assert_eq!(r.regressions, vec![], "a shard's totals are not the run's");
    assert_eq!(
        r.not_compared.len() + part.scenarios.len(),
        whole.scenarios.len()
    );
}

#[test]
fn baseline_accept_round_trips_and_run_gates_on_it() {
    let dir = temp("baseline");
    let (suite, fail) = (passing(), failing());
    let reports = dir.join("reports");
    let run = |extra: &[&std::ffi::OsStr]| {
        let mut a: Vec<&std::ffi::OsStr> = vec![
            "run".as_ref(),
            suite.as_os_str(),
            fail.as_os_str(),
            "--report-dir".as_ref(),
            reports.as_os_str(),
        ];
        a.extend_from_slice(extra);
        stepreplay(&a)
    };
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(1), "failing/ misses: {}", text(&o));
    let baseline = dir.join("reports/baseline.json");
    assert!(!baseline.exists(), "run never writes a baseline");
    let report_json = reports.join("report.json");
    let accept_with = |extra: &[&str]| {
        let mut a: Vec<&std::ffi::OsStr> = vec![
            "baseline".as_ref(),
            "accept".as_ref(),
            "--report".as_ref(),
            report_json.as_os_str(),
            "--out".as_ref(),
            baseline.as_os_str(),
        ];
        a.extend(extra.iter().map(std::ffi::OsStr::new));
        stepreplay(&a)
    };
    // The run has a scenario not as expected: accepting it needs saying so.
    let o = accept_with(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("mini-expects-send") && text(&o).contains("--allow-failing"),
        "{}",
        text(&o)
    );
    assert!(!baseline.exists(), "nothing written when refused");
    let accept = || accept_with(&["--allow-failing"]);
    let o = accept();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("accepting 1 not as expected (--allow-failing): mini-expects-send"),
        "{}",
        text(&o)
    );
    let report = stepreplay::report::load_report(&reports.join("report.json")).unwrap();
    let written = Baseline::load(&baseline).unwrap();
    assert_eq!(written, Baseline::from_report(&report));
    assert_eq!(
        std::fs::read_to_string(&baseline).unwrap(),
        written.to_json()
    );
    let o = accept();
    assert!(text(&o).contains("is unchanged"), "{}", text(&o));

    // Gate: the accepted run still misses one expectation (exit 1) but has no regressions.
    let o = run(&["--baseline".as_ref(), baseline.as_os_str()]);
    assert!(text(&o).contains("no regressions"), "{}", text(&o));
    let regs = std::fs::read_to_string(reports.join("regressions.json")).unwrap();
    assert!(regs.contains("\"regressions\": []"), "{regs}");

    // Pretend mini-expects-send had passed when accepted, with every step a success: now it
    // is one regression line, the root cause first and the dropped score under it.
    let mut edited: serde_json::Value = serde_json::from_str(&written.to_json()).unwrap();
    let sc = &mut edited["scenarios"]["mini-expects-send"];
    sc["met"] = true.into();
    sc["scores"]["chained"]["step_success"] = 1.0.into();
    std::fs::write(&baseline, edited.to_string()).unwrap();
    let o = run(&["--baseline".as_ref(), baseline.as_os_str()]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    let line = out
        .lines()
        .find(|l| l.ends_with(" (mini-expects-send now-failing; 2 regressions)"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains("mini/plan.json:46:5: step 2 “Type your PIN” stopped-by-person"),
        "the place and the root cause, then the scenarios and their count: {out}"
    );
    assert_eq!(
        out.matches("mini-expects-send now-failing").count(),
        1,
        "one line per place: {out}"
    );
    let summary = std::fs::read_to_string(reports.join("summary.md")).unwrap();
    let (regs_at, table_at) = (
        summary.find("### Regressions").unwrap(),
        summary.find("### Scenarios").unwrap(),
    );
    assert!(regs_at < table_at, "regressions come first");
    assert!(summary[regs_at..table_at].contains("mini-expects-send"));

    // Accepting shows what changes, scenario by scenario.
    let o = accept();
    let out = text(&o);
    assert!(
        out.contains("  ~ mini-expects-send: met true → false; chained step_success 1.000 → "),
        "{out}"
    );
    assert_eq!(Baseline::load(&baseline).unwrap(), written);

    // A shard's report cannot become the baseline.
    let part = dir.join("part");
    let o = stepreplay(&[
        "run".as_ref(),
        suite.as_os_str(),
        "--shard".as_ref(),
        "1/2".as_ref(),
        "--reports".as_ref(),
        "json".as_ref(),
        "--report-dir".as_ref(),
        part.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = stepreplay(&[
        "baseline".as_ref(),
        "accept".as_ref(),
        "--report".as_ref(),
        part.join("report.json").as_os_str(),
        "--out".as_ref(),
        dir.join("x.json").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------- JUnit

/// The JUnit XML shape CI viewers load (the common `junit-10.xsd` / Jenkins / GitLab
/// structure), checked element by element: root `testsuites`; each `testsuite` has `name`,
/// `tests`, `failures`, `errors` (and `skipped`) matching its `testcase` children; each
/// `testcase` has `name` and `classname` and at most one of `failure`/`error`/`skipped`;
/// each `failure` has `message` and `type`. Returns (suites, cases, failures).
fn validate_junit(xml: &str) -> (usize, usize, usize) {
    use quick_xml::events::Event;
    let mut r = quick_xml::Reader::from_str(xml);
    let attrs = |e: &quick_xml::events::BytesStart| -> std::collections::BTreeMap<String, String> {
        e.attributes()
            .map(|a| {
                let a = a.unwrap();
                (
                    String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                    a.normalized_value(quick_xml::XmlVersion::Explicit1_0)
                        .unwrap()
                        .into_owned(),
                )
            })
            .collect()
    };
    #[derive(Default)]
    struct SuiteCount {
        decl: [usize; 4],
        found: [usize; 4],
    }
    let mut stack: Vec<String> = Vec::new();
    let (mut suites, mut cases, mut failures) = (0, 0, 0);
    let mut root_decl: Option<[usize; 3]> = None;
    let mut cur: Option<SuiteCount> = None;
    let mut case_outcomes = 0;
    let num = |m: &std::collections::BTreeMap<String, String>, k: &str| -> usize {
        m.get(k)
            .unwrap_or_else(|| panic!("missing attribute {k}: {m:?}"))
            .parse()
            .unwrap()
    };
    loop {
        let ev = r.read_event().unwrap();
        let (e, empty) = match &ev {
            Event::Start(e) => (e.clone(), false),
            Event::Empty(e) => (e.clone(), true),
            Event::End(_) => {
                let name = stack.pop().unwrap();
                if name == "testsuite" {
                    let c = cur.take().unwrap();
                    assert_eq!(
                        c.decl, c.found,
                        "testsuite counts (tests, failures, errors, skipped)"
                    );
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
        let a = attrs(&e);
        let parent = stack.last().map(String::as_str);
        match name.as_str() {
            "testsuites" => {
                assert_eq!(parent, None);
                root_decl = Some([num(&a, "tests"), num(&a, "failures"), num(&a, "errors")]);
            }
            "testsuite" => {
                assert_eq!(parent, Some("testsuites"));
                assert!(!a["name"].is_empty());
                suites += 1;
                cur = Some(SuiteCount {
                    decl: [
                        num(&a, "tests"),
                        num(&a, "failures"),
                        num(&a, "errors"),
                        num(&a, "skipped"),
                    ],
                    found: [0; 4],
                });
            }
            "testcase" => {
                assert_eq!(parent, Some("testsuite"));
                assert!(!a["name"].is_empty() && !a["classname"].is_empty(), "{a:?}");
                cases += 1;
                case_outcomes = 0;
                cur.as_mut().unwrap().found[0] += 1;
            }
            "failure" | "error" | "skipped" => {
                assert_eq!(parent, Some("testcase"), "{name}");
                case_outcomes += 1;
                assert_eq!(case_outcomes, 1, "one outcome per testcase");
                let slot = match name.as_str() {
                    "failure" => {
                        assert!(a.contains_key("message") && a.contains_key("type"), "{a:?}");
                        failures += 1;
                        1
                    }
                    "error" => 2,
                    _ => 3,
                };
                cur.as_mut().unwrap().found[slot] += 1;
            }
            "properties" => assert_eq!(parent, Some("testsuite")),
            "property" => {
                assert_eq!(parent, Some("properties"));
                assert!(a.contains_key("name") && a.contains_key("value"));
            }
            "system-out" | "system-err" => {}
            other => panic!("unexpected element <{other}>"),
        }
        if !empty {
            stack.push(name);
        }
    }
    let root = root_decl.expect("root testsuites");
    assert_eq!(root[0], cases, "root tests");
    assert_eq!(root[1], failures, "root failures");
    (suites, cases, failures)
}

#[test]
fn junit_is_valid_and_names_what_failed() {
    let report = report_of(&[passing(), failing()], None);
    let xml = to_junit(&report, None);
    let (suites, cases, failures) = validate_junit(&xml);
    assert_eq!(suites, report.scenarios.len());
    let steps: usize = report
        .scenarios
        .iter()
        .map(|s| s.runs[&Mode::Chained].steps.len() + 1)
        .sum();
    assert_eq!(cases, steps, "a case per step plus the expectation");
    // mini-expects-send: the expectation and the step where it stopped.
    assert_eq!(failures, 2, "{xml}");
    assert!(xml.contains(
        "<failure message=\"step 2 “Type your PIN”: stopped-by-person\" type=\"stopped-by-person\">"
    ));
    assert!(xml.contains("type=\"expectation-not-met\""));
    assert!(
        !xml.contains("timestamp=") && !xml.contains("time="),
        "no clock"
    );
    assert_eq!(
        xml,
        to_junit(&report_of(&[passing(), failing()], None), None)
    );
}

/// The JUnit document written a suite at a time is the one quick-junit writes whole for the
/// same suites: read back and written again by quick-junit, the bytes do not change — with
/// timings, with a baseline's cases, with text to escape, and for a report with no scenario.
#[test]
fn junit_streamed_a_suite_at_a_time_is_quick_junits_whole_document() {
    let mut report = report_of(&[passing(), failing()], None);
    report.scenarios[0].description = "a <b> & \"c\" \u{1} ‘d’\r\nnext line".into();
    let mut base = Baseline::from_report(&report);
    base.scenarios.values_mut().for_each(|s| s.met = true);
    let regs = compare(&base, &report, 0.0).unwrap();
    assert!(!regs.regressions.is_empty());
    let timings: stepreplay::report::Timings = report
        .scenarios
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                s.id.clone(),
                std::time::Duration::from_millis(1500 + i as u64),
            )
        })
        .collect();
    let mut empty = report.clone();
    empty.scenarios.clear();
    for (r, g, t) in [
        (&report, None, Default::default()),
        (&report, Some(&regs), timings.clone()),
        (&empty, None, Default::default()),
        (&empty, None, timings),
    ] {
        let xml = to_junit_timed(r, g, &t).unwrap();
        let whole = quick_junit::Report::deserialize_from_str(&xml).unwrap();
        assert_eq!(
            whole.test_suites.len(),
            r.scenarios.len() + usize::from(g.is_some())
        );
        assert_eq!(whole.to_string().unwrap(), xml);
    }
}

#[test]
fn junit_reports_a_failed_expect_with_its_check() {
    let mut report = report_of(&[failing()], None);
    let run = report.scenarios[0].runs.get_mut(&Mode::Chained).unwrap();
    let step = &mut run.steps[0];
    step.status = "failed".into();
    step.reason = Some(stepreplay::scenario::FailReason::ExpectFailed);
    step.checks[0].passed = false;
    step.checks[0].detail = "the field holds “b@x” <not a@example.com>".into();
    let xml = to_junit(&report, None);
    validate_junit(&xml);
    assert!(
        xml.contains("<testcase name=\"step 1 “Type the recipient in “To:””\""),
        "a step case is named by its number and words, as every report names it: {xml}"
    );
    assert!(
        xml.contains("message=\"step 1 “Type the recipient in “To:””: expect-failed — expect failed: field-contains: the field holds “b@x” &lt;not a@example.com&gt;\""),
        "{xml}"
    );
}

// ---------------------------------------------------------------- Markdown

#[test]
fn the_markdown_summary_puts_regressions_first() {
    let report = report_of(&[passing(), failing()], None);
    let mut base = Baseline::from_report(&report);
    base.scenarios.get_mut("mini-expects-send").unwrap().met = true;
    let regs = compare(&base, &report, 0.0).unwrap();
    // The fixtures are named by absolute paths: the snapshot holds them from the repository.
    let md = to_markdown(&report, Some(&regs)).unwrap();
    let root = format!("{}/", repo().display());
    insta::assert_snapshot!(md.replace(&root, ""));
}

#[test]
fn markdown_and_html_escape_guide_text() {
    let mut report = report_of(&[failing()], None);
    let evil = "<script>alert(1)</script> | **x** <img src=x onerror=alert(2)>";
    report.scenarios[0].description = evil.into();
    report.scenarios[0].mismatch = Some(evil.into());
    for run in report.scenarios[0].runs.values_mut() {
        for st in &mut run.steps {
            st.text = evil.into();
        }
    }
    let md = to_markdown(&report, None).unwrap();
    assert!(!md.contains("<script>") && !md.contains("<img"), "{md}");
    assert!(md.contains("&lt;script&gt;"));
    let html = to_html(&report, None, &Default::default());
    assert!(
        !html.contains("<script>alert") && !html.contains("<img src=x"),
        "escaped"
    );
    assert!(html.contains(&html_escape(evil)));
    assert_eq!(
        html.matches("<script>").count(),
        1,
        "only the page's own script"
    );
}

// ---------------------------------------------------------------- spilled entries

/// `run` spills each entry as its scenario finishes, in whatever order they finish, and writes
/// every format from the spill: the bytes must be those of the report held whole.
#[test]
fn a_report_spilled_entry_by_entry_writes_the_held_reports_bytes() {
    let suite = load_suite(&discover(&[passing(), failing()]).unwrap(), None).unwrap();
    let opts = RunOptions {
        jobs: 2,
        modes: MODES.to_vec(),
        perturb: vec!["move-window".parse().unwrap()],
        ocr: Default::default(),
    };
    let results = run_collected(suite, &opts).unwrap();
    let mut held = Report::from_results(&results, &MODES);
    assert!(held.summary.robustness.is_some() && held.summary.not_met > 0);

    let dir = temp("spill");
    let mut spill = Spill::create(&dir).unwrap();
    let mut totals = Totals::new(&MODES);
    // Finishing order is not id order.
    for s in held.scenarios.iter().rev() {
        totals.add(s);
        spill.push(s).unwrap();
    }
    assert_eq!(spill.count(), held.scenarios.len());
    let ids: Vec<&str> = held.scenarios.iter().rev().map(|s| s.id.as_str()).collect();
    let head = Report::head(&ids, &MODES, totals.summary());
    assert_eq!((&head.summary, &head.suite), (&held.summary, &held.suite));
    let json_of = |r: ReportRef| {
        let mut out = Vec::new();
        write_json_to(r, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    };
    let spilled = |spill: &Spill| -> String {
        json_of(ReportRef {
            head: &head,
            entries: spill,
        })
    };
    assert_eq!(spilled(&spill), to_json(&held));
    let path = dir.join("report.json");
    write_json(
        ReportRef {
            head: &head,
            entries: &spill,
        },
        &path,
    )
    .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), to_json(&held));

    let mut base = Baseline::from_report(&held);
    base.scenarios.get_mut("mini-expects-send").unwrap().met = true;
    let regs = compare(&base, &held, 0.0).unwrap();
    assert!(!regs.regressions.is_empty());
    assert_eq!(
        compare(
            &base,
            ReportRef {
                head: &head,
                entries: &spill
            },
            0.0
        )
        .unwrap(),
        regs
    );
    assert_eq!(
        to_junit_timed(
            ReportRef {
                head: &head,
                entries: &spill
            },
            Some(&regs),
            &Default::default()
        )
        .unwrap(),
        to_junit(&held, Some(&regs))
    );
    assert_eq!(
        to_markdown(
            ReportRef {
                head: &head,
                entries: &spill
            },
            Some(&regs)
        )
        .unwrap(),
        to_markdown(&held, Some(&regs)).unwrap()
    );

    // Captures change the entries (each step's picture paths); the page then shows the diffs.
    let mut wanted = captures_wanted(&spill).unwrap();
    wanted.extend(html_wanted(&spill).unwrap());
    let mut want_held = captures_wanted(&held.scenarios).unwrap();
    want_held.extend(html_wanted(&held.scenarios).unwrap());
    assert_eq!(wanted, want_held);
    let evidence = Evidence::gather(&wanted);
    let cap = dir.join("captures");
    let on_held = write_captures(&mut held.scenarios, &evidence, &cap).unwrap();
    let on_spill = write_captures(&mut spill, &evidence, &cap).unwrap();
    assert!(on_spill.files > 0 && on_spill.files == on_held.files);
    assert_eq!(spilled(&spill), to_json(&held));
    let (a, b) = (dir.join("page-held"), dir.join("page-spilled"));
    write_html(&held, Some(&regs), &evidence, &a).unwrap();
    write_html(
        ReportRef {
            head: &head,
            entries: &spill,
        },
        Some(&regs),
        &evidence,
        &b,
    )
    .unwrap();
    let page = |d: &Path| std::fs::read_to_string(d.join("index.html")).unwrap();
    assert!(
        page(&a).contains("img/diff-"),
        "the page shows the captured diffs"
    );
    assert_eq!(page(&a), page(&b));

    // The spill file is gone from the report folder (unlinked at once on Unix, else on drop).
    drop(spill);
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert_eq!(left, Vec::<String>::new());
}

/// `run` hands the reporters their pictures a recording at a time and drops each recording's
/// before the next (`FromRecordings`): the captures and the page must be what the pictures
/// gathered all at once draw.
#[test]
fn pictures_a_recording_at_a_time_draw_what_all_at_once_draws() {
    let scenarios = repo().join("scenarios");
    let paths = ["calendar-reschedule.json", "mail-copy-not-send.json"].map(|f| scenarios.join(f));
    let mut report = report_of(&paths, None);
    let recordings: std::collections::BTreeSet<&str> = report
        .scenarios
        .iter()
        .map(|s| s.recording.as_str())
        .collect();
    assert_eq!(recordings.len(), 2, "{recordings:?}");
    let mut wanted = captures_wanted(&report.scenarios).unwrap();
    wanted.extend(html_wanted(&report.scenarios).unwrap());
    let mut batches = 0;
    Evidence::gather_each(&wanted, &mut |_| {
        batches += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(batches, 2);

    let dir = temp("pictures");
    let whole = Evidence::gather(&wanted);
    let mut at_once = report.clone();
    let a = write_captures(&mut at_once.scenarios, &whole, &dir.join("cap")).unwrap();
    let b = write_captures(&mut report.scenarios, &FromRecordings, &dir.join("cap")).unwrap();
    assert!(a.files > 0 && a.files == b.files && a.missing == b.missing);
    assert_eq!(to_json(&at_once), to_json(&report));
    write_html(&at_once, None, &whole, &dir.join("page-a")).unwrap();
    write_html(&report, None, &FromRecordings, &dir.join("page-b")).unwrap();
    let page = |d: &str| std::fs::read_to_string(dir.join(d).join("index.html")).unwrap();
    assert!(page("page-a").contains("img/diff-"));
    assert_eq!(page("page-a"), page("page-b"));
}

#[test]
fn a_spill_that_cannot_be_made_names_the_folder() {
    let dir = temp("spill-blocked");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let err = Spill::create(&file).unwrap_err().to_string();
    assert!(err.contains("a-file"), "{err}");
}

// ---------------------------------------------------------------- HTML

#[test]
fn a_large_report_is_written_as_pages_failures_first_each_scenario_once() {
    let report = report_of(&[passing(), failing()], None);
    let n = report.scenarios.len();
    assert!(n >= 7, "{n}");
    let dir = temp("html-pages");
    // Pages left by an earlier, longer report are not this report's.
    std::fs::write(dir.join("index-9.html"), "old").unwrap();
    let o = write_html_paged(&report, None, &Evidence::default(), &dir, 3).unwrap();
    let want: Vec<String> = (1..=n.div_ceil(3)).map(page_name).collect();
    assert_eq!(o.pages, want);
    assert_eq!(want[..2], ["index.html", "index-2.html"]);
    let pages: Vec<String> = want
        .iter()
        .map(|p| std::fs::read_to_string(dir.join(p)).unwrap())
        .collect();
    // Each scenario on exactly one page; failures (`failing/`) on the first.
    let on = |id: &str| -> Vec<usize> {
        // The suite's ids are their own anchors (`s-<id>`: letters, digits and dashes).
        let anchor = format!("id=\"s-{id}\"");
        (0..pages.len())
            .filter(|&k| pages[k].contains(&anchor))
            .collect()
    };
    let mut first = 0;
    for s in &report.scenarios {
        let where_ = on(&s.id);
        assert_eq!(where_.len(), 1, "{} is on pages {where_:?}", s.id);
        if !s.met {
            assert_eq!(where_, [0], "{} is not as expected: first page", s.id);
        }
        first += usize::from(where_ == [0]);
    }
    assert_eq!(first, 3, "three scenarios a page");
    for (k, page) in pages.iter().enumerate() {
        assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"));
        assert!(
            page.contains(&format!("Page {} of {}", k + 1, pages.len())),
            "page {k}"
        );
        for (j, other) in want.iter().enumerate() {
            let link = format!("<a href=\"{other}\">");
            assert_eq!(page.contains(&link), j != k, "page {k} links to {other}");
        }
    }
    // The first page sends a link to a scenario on another page there; the others send
    // such a link to the first page.
    let later = report.scenarios.iter().find(|s| on(&s.id) == [1]).unwrap();
    let slug = &later.id;
    assert!(
        pages[0].contains(&format!("\"s-{slug}\":\"index-2.html\"")),
        "the first page knows where {slug} is"
    );
    assert!(pages[1].contains("var m=null") && pages[1].contains("location.replace('index.html'"));
    // One page: no pager and no redirect, the page as it always was.
    let one = temp("html-one");
    let o = write_html_paged(&report, None, &Evidence::default(), &one, n).unwrap();
    assert_eq!(o.pages, ["index.html"]);
    let page = std::fs::read_to_string(one.join("index.html")).unwrap();
    assert!(!page.contains("class=\"pager\"") && !page.contains("location.replace"));
    assert_eq!(page, to_html(&report, None, &Default::default()));
    // Through the one writer, pages of an earlier run past this run's are retired.
    let outputs = stepreplay::report::Outputs {
        json: None,
        junit: false,
        markdown: false,
        html: true,
        html_dir: None,
        summary: None,
        tolerance: 0.0,
    };
    stepreplay::report::write_outputs(
        (&report).into(),
        &Default::default(),
        &Evidence::default(),
        &dir,
        &outputs,
        None,
        &stepreplay::report::Say::new(false, true, false),
    )
    .unwrap();
    assert!(dir.join("index.html").is_file());
    assert!(!dir.join("index-2.html").exists() && !dir.join("index-9.html").exists());
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&one).unwrap();
}

#[test]
fn the_html_page_copies_only_referenced_frames_and_is_deterministic() {
    let report = report_of(&[passing(), failing()], None);
    let (a, b) = (temp("html-a"), temp("html-b"));
    let evidence = Evidence::gather(&html_wanted(&report.scenarios).unwrap());
    let oa = write_html(&report, None, &evidence, &a).unwrap();
    write_html(&report, None, &evidence, &b).unwrap();
    assert!(oa.missing.is_empty(), "{:?}", oa.missing);
    let mut names: Vec<String> = std::fs::read_dir(a.join("img"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "mini-f0.png",
            "mini-f1.png",
            "mini-f2.png",
            "mini-f3.png",
            "mini-f4.png"
        ]
    );
    let page = std::fs::read_to_string(a.join("index.html")).unwrap();
    assert_eq!(page, std::fs::read_to_string(b.join("index.html")).unwrap());
    // Written to the file a scenario at a time, the page is the text `to_html` builds.
    let c = temp("html-c");
    write_html(&report, None, &Evidence::default(), &c).unwrap();
    assert_eq!(
        std::fs::read_to_string(c.join("index.html")).unwrap(),
        to_html(&report, None, &Default::default())
    );
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "no network"
    );
    assert!(page.contains("src=\"img/mini-f0.png\""));
    assert!(
        page.contains("class=\"box\" style=\"left:"),
        "the target's box is drawn"
    );
    // Without `--captures` the diff slot says what changed in words and how to get the picture.
    assert!(
        page.contains("screen unchanged · AX: 1 value changed, 1 focus change"),
        "the first step's diff in words"
    );
    assert!(page.contains("run with --captures DIR for the picture"));
    // A wrong target: the recorded element's box is drawn too, and the card says so.
    let mut wrong = report.clone();
    let res = wrong.scenarios[0]
        .runs
        .get_mut(&Mode::Chained)
        .unwrap()
        .steps[0]
        .resolution
        .as_mut()
        .unwrap();
    res.correct = Some(false);
    res.expected_frame = Some(stepreplay::recording::ax::Rect {
        x: 16,
        y: 10,
        width: 32,
        height: 20,
    });
    let images = stepreplay::report::PageImages {
        frames: [(
            (wrong.scenarios[0].recording.clone(), "f0".to_string()),
            stepreplay::report::PageImage {
                href: "img/mini-f0.png".into(),
                width: 160,
                height: 100,
                windows: Vec::new(),
            },
        )]
        .into_iter()
        .collect(),
        diffs: Default::default(),
    };
    let page = to_html(&wrong, None, &images);
    assert!(
        page.contains(
            "class=\"box want\" style=\"left:10.000%;top:10.000%;width:20.000%;height:20.000%\""
        ),
        "boxes in percent of the image"
    );
    assert!(page.contains("wrong: the recording acted on e1"));
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
}

/// The captures: an overlay beside the before frame exactly for the steps that point at
/// something, the same bytes on every write, and the page then shows the diff images, all
/// drawn from one gathered evidence.
#[test]
fn captures_draw_overlays_for_targeted_steps_from_the_evidence_alone() {
    let mut report = report_of(&[passing()], None);
    // Every acting step of the suite has a target: make one a step without (keys only).
    let keys_only = report.scenarios[0]
        .runs
        .get_mut(&Mode::Chained)
        .unwrap()
        .steps
        .iter_mut()
        .find(|st| st.diff.is_some())
        .unwrap();
    keys_only.resolution = None;
    let mut wanted = captures_wanted(&report.scenarios).unwrap();
    wanted.extend(html_wanted(&report.scenarios).unwrap());
    let evidence = Evidence::gather(&wanted);
    let (a, b) = (temp("captures-a"), temp("captures-b"));
    let oa = write_captures(&mut report.clone().scenarios, &evidence, &a).unwrap();
    assert!(oa.missing.is_empty(), "{:?}", oa.missing);
    let ob = write_captures(&mut report.scenarios, &evidence, &b).unwrap();
    assert_eq!(oa.files, ob.files);
    let (mut with, mut without) = (0, 0);
    for st in report.scenarios.iter().flat_map(|sc| sc.steps()) {
        let Some(c) = &st.captures else { continue };
        let overlay = c.before.replace("-before.png", "-overlay.png");
        let pointed = st.resolution.as_ref().is_some_and(|r| {
            r.element_frame.is_some() || r.expected_frame.is_some() || r.found.click.is_some()
        });
        assert_eq!(Path::new(&overlay).is_file(), pointed, "{overlay}");
        if pointed {
            with += 1;
            let again = overlay.replace(&a.display().to_string(), &b.display().to_string());
            let bytes = std::fs::read(&overlay).unwrap();
            assert_ne!(bytes, std::fs::read(&c.before).unwrap(), "drawn on");
            assert_eq!(bytes, std::fs::read(again).unwrap(), "same bytes");
        } else {
            without += 1;
        }
    }
    assert!(
        with > 0 && without > 0,
        "{with} with an overlay, {without} without"
    );
    let html = temp("captures-html");
    let o = write_html(&report, None, &evidence, &html).unwrap();
    assert!(o.missing.is_empty(), "{:?}", o.missing);
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(page.contains("src=\"img/diff-"), "diff images on the page");
    for d in [a, b, html] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// What the page's own script does, driven in headless Chromium: the test appends a script
/// that clicks the filters, types in the search box, opens a screenshot full size and flips to
/// the next picture, closes it with Escape, follows a "first failing step" link into a
/// closed scenario and opens that step zoomed through its `#zoom-` link; it writes what it saw into `<pre id="test-result">`, which `--dump-dom`
/// prints.
const DRIVE_PAGE: &str = r#"<script>
window.addEventListener('load',function(){
 var d=document,out={},imgs=[].slice.call(d.querySelectorAll('main img'));
 imgs.forEach(function(i){i.loading='eager';});
 var ready=function(cb,n){
  if(n>200||imgs.every(function(i){return i.complete;}))cb();else setTimeout(function(){ready(cb,n+1);},50);
 };
 ready(function(){
  try{
  out.images=imgs.length;
  out.decoded=imgs.filter(function(i){return i.naturalWidth>0;}).length;
  var vis=function(){return [].filter.call(d.querySelectorAll('details.scenario'),function(s){return !s.hidden;}).length;};
  out.all=vis();
  d.querySelector('[data-filter=fail]').click();out.fail=vis();out.shown=d.getElementById('shown').textContent;
  d.querySelector('[data-filter=pass]').click();out.pass=vis();
  d.querySelector('[data-filter=all]').click();
  var q=d.getElementById('q');
  q.value=d.querySelector('details.scenario[data-status=fail] .sid').textContent.toUpperCase();
  q.dispatchEvent(new Event('input'));out.search=vis();
  q.value='no such scenario anywhere';q.dispatchEvent(new Event('input'));out.none=vis();
  q.value='';q.dispatchEvent(new Event('input'));
  var z=d.getElementById('zoom');out.zoomHidden=z.hidden;
  d.querySelector('.frames .shot').click();
  out.zoomOpen=!z.hidden;
  out.tabs=[].map.call(z.querySelectorAll('.ztabs button'),function(b){return b.textContent;});
  out.first=z.getAttribute('data-shown');out.src1=z.querySelector('.zimg img').getAttribute('src');
  z.querySelectorAll('.ztabs button')[1].click();
  out.second=z.getAttribute('data-shown');out.src2=z.querySelector('.zimg img').getAttribute('src');
  d.dispatchEvent(new KeyboardEvent('keydown',{key:'Escape'}));out.closed=z.hidden;
  var a=d.querySelector('.jump a');out.jump=a.getAttribute('href');
  var card=d.getElementById(out.jump.slice(1)),sc=card.closest('details.scenario');
  sc.open=false;a.click();
  }catch(e){out.error=String(e)+' '+e.stack;}
  setTimeout(function(){
   out.opened=sc.open;out.hash=location.hash;
   location.hash='#zoom-'+out.jump.slice(1);
   setTimeout(function(){
    out.deepZoom=!z.hidden&&z.getAttribute('data-shown');
    var pre=d.createElement('pre');pre.id='test-result';pre.textContent=JSON.stringify(out);
    d.body.appendChild(pre);
   },200);
  },200);
 },0);
});
</script>"#;

/// The HTML report as a triage page, in a real browser: the filter, the search box, the
/// zoom view and the step links work, and every image decodes.
#[test]
fn the_html_report_filters_searches_and_zooms_in_headless_chromium() {
    if !have_tool("chromium", "apt-get install chromium") {
        return;
    }
    let dir = temp("chromium");
    let (suite, fail) = (passing(), failing());
    let o = stepreplay(&[
        "run".as_ref(),
        suite.as_os_str(),
        fail.as_os_str(),
        "-q".as_ref(),
        "--reports".as_ref(),
        "html".as_ref(),
        "--captures".as_ref(),
        dir.join("captures").as_os_str(),
        "--report-dir".as_ref(),
        dir.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let page = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(
        page.contains("<title>stepreplay report: ") && !page.contains("document.title"),
        "the title is the page's, not a test hook"
    );
    let count = |status: &str| page.matches(&format!("data-status=\"{status}\"")).count() as u64;
    let (met, not_met) = (count("pass"), count("fail"));
    assert!(met > 0 && not_met > 0, "the run mixes both");
    // Failures first: the last failing scenario's section comes before the first passing one.
    let last_fail = page.rfind("data-status=\"fail\"").unwrap();
    let first_pass = page.find("data-status=\"pass\"").unwrap();
    assert!(
        last_fail < first_pass,
        "scenarios not as expected come first"
    );
    let driven = dir.join("index-driven.html");
    std::fs::write(
        &driven,
        page.replace("</body>", &format!("{DRIVE_PAGE}</body>")),
    )
    .unwrap();
    let profile = temp("chromium-profile");
    let o = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--virtual-time-budget=10000",
            "--window-size=1400,1000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", driven.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&o.stdout);
    let json = dom
        .split("<pre id=\"test-result\">")
        .nth(1)
        .and_then(|t| t.split("</pre>").next())
        .unwrap_or_else(|| panic!("the page script did not finish: {}", text(&o)));
    let got: serde_json::Value = serde_json::from_str(&json.replace("&quot;", "\"")).unwrap();
    let n = |k: &str| got[k].as_u64().unwrap_or_else(|| panic!("{k} in {got}"));
    assert!(n("images") >= 10 && n("decoded") == n("images"), "{got}");
    assert_eq!(n("all"), met + not_met, "{got}");
    assert_eq!(n("fail"), not_met, "the filter shows only failures: {got}");
    assert_eq!(got["shown"], not_met.to_string(), "{got}");
    assert_eq!(n("pass"), met, "{got}");
    assert!(n("search") >= 1 && n("search") < n("all"), "{got}");
    assert_eq!(n("none"), 0, "{got}");
    assert_eq!(got["zoomHidden"], true, "{got}");
    assert_eq!(
        got["zoomOpen"], true,
        "a click on a screenshot opens it: {got}"
    );
    assert_eq!(got["first"], "before", "{got}");
    assert_eq!(got["second"], "after", "{got}");
    assert_ne!(
        got["src1"], got["src2"],
        "the second tab shows another picture: {got}"
    );
    assert!(
        got["tabs"].as_array().is_some_and(|t| t.len() >= 2),
        "{got}"
    );
    assert_eq!(got["closed"], true, "Escape closes the zoom: {got}");
    assert_eq!(got["opened"], true, "a step link opens its scenario: {got}");
    assert_eq!(got["hash"], got["jump"], "{got}");
    assert_eq!(
        got["deepZoom"], "before",
        "a #zoom- link opens the step's pictures zoomed: {got}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let _ = std::fs::remove_dir_all(&profile);
}

/// A run that replays nothing must not pass: an empty folder is refused with a reason.
#[test]
fn a_run_with_no_scenarios_is_refused_not_green() {
    let dir = crate::util::TempDir::new("empty-suite");
    std::fs::create_dir_all(dir.path().join("scenarios")).unwrap();
    let o = crate::util::stepreplay(dir.path())
        .args(["run", "-q", "scenarios"])
        .run();
    o.check(o.code == 2, "refused with exit 2");
    o.check(
        o.stderr.contains("no-scenarios") && o.stderr.contains("no scenarios to run"),
        "says why",
    );
    assert!(!dir.path().join("reports").exists(), "no report of nothing");
}

/// A bad gate flag or a missing baseline is refused before any replay, and nothing is written.
#[test]
fn bad_gate_flags_are_refused_before_the_replay() {
    let dir = crate::util::TempDir::new("bad-gate");
    let reports = dir.path().join("reports");
    // A flag's value out of range is a usage error (64); a missing baseline is bad input (2).
    for (args, says, code) in [
        (vec!["--tolerance=-1"], "must be a number", 64),
        (vec!["--tolerance", "NaN"], "must be a number", 64),
        (
            vec!["--baseline", "nowhere/baseline.json"],
            "missing-file",
            2,
        ),
    ] {
        let o = crate::util::stepreplay(repo())
            .args(["run", "-q", "--report-dir"])
            .args([&reports])
            .args(&args)
            .args([passing()])
            .run();
        o.check(o.code == code, "refused");
        o.check(o.stderr.contains(says), says);
        o.check(o.stdout.is_empty(), "no scenario ran");
        assert!(!reports.exists(), "nothing written for {args:?}");
    }
}

/// Durations are shown (terminal) and in `junit.xml` (`time`), and nowhere else: two runs give
/// the same `report.json`, `summary.md` and `index.html` bytes, and JUnit files that differ at
/// most in their `time` attributes.
#[test]
fn durations_reach_the_terminal_and_junit_only() {
    let dir = temp("durations");
    let suite = passing();
    let run = |name: &str| {
        let out = dir.join(name);
        let o = stepreplay(&[
            "run".as_ref(),
            suite.as_os_str(),
            "--report-dir".as_ref(),
            out.as_os_str(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        (out, text(&o))
    };
    let (a, shown) = run("a");
    let (b, _) = run("b");
    let ok_lines: Vec<&str> = shown.lines().filter(|l| l.starts_with("ok ")).collect();
    assert!(!ok_lines.is_empty(), "{shown}");
    for l in &ok_lines {
        assert!(
            l.ends_with(" s") && l.contains(" · "),
            "a time on every line: {l}"
        );
    }
    for f in ["report.json", "summary.md", "index.html"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f} carries no timing"
        );
    }
    let strip = |xml: &str| {
        let mut out = String::new();
        let mut rest = xml;
        while let Some(i) = rest.find(" time=\"") {
            out.push_str(&rest[..i]);
            let after = &rest[i + " time=\"".len()..];
            rest = &after[after.find('"').unwrap() + 1..];
        }
        out.push_str(rest);
        out
    };
    let (ja, jb) = (
        std::fs::read_to_string(a.join("junit.xml")).unwrap(),
        std::fs::read_to_string(b.join("junit.xml")).unwrap(),
    );
    let suites = ja.matches("<testsuite ").count();
    assert!(suites >= 6, "{ja}");
    let timed = ja
        .lines()
        .filter(|l| l.contains("<testsuite ") && l.contains(" time=\""))
        .count();
    assert_eq!(timed, suites, "every scenario's suite has a time: {ja}");
    assert_eq!(strip(&ja), strip(&jb), "only the times differ");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One label typo in a plan three scenarios share (a bundled one, copied to a suite of its
/// own and accepted as the baseline): one regression line per affected scenario, the root
/// cause first — the file and line of the step, its number and reason — then how many
/// follow-on changes came with it, in the console and in `summary.md`.
#[test]
fn one_label_typo_gives_one_regression_line_per_affected_scenario() {
    let tmp = crate::util::TempDir::new("label-typo");
    let d = tmp.path();
    let ids = [
        "mail-each-time-unanswered",
        "mail-send-declined",
        "mail-send-reminder",
    ];
    for id in ids {
        let name = format!("{id}.json");
        std::fs::create_dir_all(d.join("scenarios")).unwrap();
        std::fs::copy(
            repo().join("scenarios").join(&name),
            d.join("scenarios").join(&name),
        )
        .unwrap();
    }
    crate::util::copy_tree(
        &repo().join("scenarios/mail-send-reminder"),
        &d.join("scenarios/mail-send-reminder"),
    );
    crate::util::copy_tree(
        &repo().join("recordings/mail-send-reminder"),
        &d.join("recordings/mail-send-reminder"),
    );
    let cli = |args: &[&str]| crate::util::stepreplay(d).args(args).run();
    cli(&["run", "scenarios", "--report-dir", "reports"]).expect_code(0);
    cli(&["baseline", "accept"]).expect_code(0);

    let plan = d.join("scenarios/mail-send-reminder/plan.json");
    let text = std::fs::read_to_string(&plan).unwrap();
    assert_eq!(text.matches("\"label\": \"Subject:\"").count(), 1);
    std::fs::write(
        &plan,
        text.replace("\"label\": \"Subject:\"", "\"label\": \"Subjcet:\""),
    )
    .unwrap();
    // One job: the live lines come in the order scenarios finish.
    let run = cli(&[
        "run",
        "scenarios",
        "--jobs",
        "1",
        "--report-dir",
        "reports",
        "--baseline",
        "reports/baseline.json",
    ]);
    run.expect_code(1);
    let regressions: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("reports/regressions.json")).unwrap())
            .unwrap();
    let groups = regressions["groups"].as_array().unwrap();
    let scenarios: Vec<&str> = groups
        .iter()
        .filter_map(|g| g["scenario"].as_str())
        .collect();
    // The two that now fail first; the one that stops before the typo only lost a score.
    assert_eq!(
        scenarios,
        [ids[1], ids[2], ids[0]],
        "one group per affected scenario, failures first"
    );
    assert!(
        regressions["regressions"].as_array().unwrap().len() > groups.len(),
        "the follow-on changes are kept"
    );
    let console = crate::util::without_times(&run.stdout);
    let lines: Vec<&str> = console
        .lines()
        .skip_while(|l| !l.contains("against the baseline, in"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    // One typo is one place: the scenarios that went wrong at it fold into one line, and the
    // suite's scores, which fell with them, are no place of their own.
    assert_eq!(lines.len(), 1, "{console}");
    // The suite's scores are counted in the headline and said to be.
    let n = regressions["regressions"].as_array().unwrap();
    let suite = n.iter().filter(|r| r["scenario"].is_null()).count();
    let head = format!("{} regressions against the baseline, in 1 place", n.len());
    let why = format!("({suite} are the suite's scores, which fell with it):");
    assert!(
        suite > 0 && console.contains(&format!("{head} {why}")),
        "{console}"
    );
    for g in groups.iter().filter(|g| g["scenario"].is_string()) {
        assert_eq!(g["file"], "scenarios/mail-send-reminder/plan.json", "{g}");
        assert_eq!(
            (g["line"].as_u64(), g["column"].as_u64()),
            (Some(79), Some(18)),
            "{g}"
        );
        assert_eq!(g["reason"], "target-not-found", "{g}");
        assert!(g["step_id"].is_string(), "{g}");
    }
    // Figures to three decimals, as every table shows them.
    for r in regressions["regressions"].as_array().unwrap() {
        let detail = r["detail"].as_str().unwrap();
        let long = detail
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .any(|n| n.split_once('.').is_some_and(|(_, d)| d.len() > 3));
        assert!(!long, "{detail}");
    }
    insta::assert_snapshot!("label_typo_console", console);
    // The review shows where each scenario went wrong before what changed, and no value that
    // did not change as shown.
    let review = cli(&["baseline", "review"]);
    review.expect_code(0);
    let shown = review.stdout.replace(&d.display().to_string(), "[DIR]");
    assert!(
        shown.contains("  mail-send-reminder went wrong at scenarios/mail-send-reminder/plan.json:79:18: step 3"),
        "{shown}"
    );
    let same = shown.split(['~', ';']).any(|part| {
        part.split_once(" → ")
            .is_some_and(|(a, b)| a.rsplit(' ').next() == b.split([' ', '\n']).next())
    });
    assert!(!same, "an unchanged value is listed: {shown}");
    insta::assert_snapshot!("label_typo_review", shown);
    let summary = std::fs::read_to_string(d.join("reports/summary.md")).unwrap();
    insta::assert_snapshot!("label_typo_summary", summary);
    // The HTML banner folds by cause as the terminal and summary.md do: the typo is one line.
    let html = std::fs::read_to_string(d.join("reports/index.html")).unwrap();
    let banner = html
        .split("<details class=\"regressions\">")
        .nth(1)
        .and_then(|b| b.split("</details>").next())
        .unwrap();
    assert_eq!(banner.matches("<li>").count(), 1, "{banner}");
    insta::assert_snapshot!("label_typo_banner", banner.replace("<li>", "\n<li>"));
}

/// What a page's links do, driven in headless Chromium: for each `#s-…` link, its scenario is
/// closed, the page scrolled to the top, the link clicked; then the element it names must exist,
/// be open and on screen, and a scenario link must show the scenario it is named for. It also
/// reads whether the regressions banner is folded, the order of the scenarios and how far the
/// page is wider than the window.
const FOLLOW_LINKS: &str = r##"<script>
window.addEventListener('load',function(){
 var d=document,out={bad:[]},links=[];
 try{
  var banner=d.querySelector('details.regressions');
  out.banner=!!banner;out.bannerOpen=!!(banner&&banner.open);
  out.named=[].map.call(d.querySelectorAll('details.regressions a'),function(a){return a.textContent;});
  out.order=[].map.call(d.querySelectorAll('details.scenario'),function(s){return s.getAttribute('data-status');});
  links=[].slice.call(d.querySelectorAll('a[href^="#s-"]'));
  out.links=links.length;
  out.overflow=d.documentElement.scrollWidth-innerWidth;
 }catch(e){out.error=String(e);}
 var i=0;
 function finish(){var pre=d.createElement('pre');pre.id='test-result';pre.textContent=JSON.stringify(out);d.body.appendChild(pre);}
 function next(){
  if(i>=links.length){finish();return;}
  var a=links[i++],id=a.getAttribute('href').slice(1),t=d.getElementById(id);
  if(!t){out.bad.push(id+': no such element');next();return;}
  var sc=t.closest('details.scenario');if(sc)sc.open=false;
  location.hash='';scrollTo(0,0);
  setTimeout(function(){
   a.click();
   setTimeout(function(){
    var r=t.getBoundingClientRect();
    if(!(r.top>=-1&&r.top<innerHeight))out.bad.push(id+': not on screen (top '+r.top+')');
    if(sc&&!sc.open)out.bad.push(id+': its scenario stays closed');
    if(t.matches('details.scenario')&&a.closest('details.regressions')){
     var shows=t.querySelector('.sid').textContent;
     if(shows!==a.textContent)out.bad.push(id+' shows '+shows+', not '+a.textContent);
    }
    next();
   },50);
  },50);
 }
 setTimeout(next,0);
});
</script>"##;

/// `page` with `script` added, opened in headless Chromium at `size`; what the script wrote.
/// With `shot`, a screenshot of the first screen too, at `size` (the script runs at load, laid
/// out at 500 px or wider: headless Chromium's narrowest window until it takes the picture).
fn drive_in_chromium(
    page: &str,
    script: &str,
    size: &str,
    dir: &Path,
    shot: Option<&Path>,
) -> serde_json::Value {
    let driven = dir.join("driven.html");
    std::fs::write(
        &driven,
        page.replace("</body>", &format!("{script}</body>")),
    )
    .unwrap();
    let profile = dir.join("profile");
    let o = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--hide-scrollbars",
            "--virtual-time-budget=20000",
        ])
        .arg(format!("--window-size={size}"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .args(shot.map(|p| format!("--screenshot={}", p.display())))
        .arg(format!("file://{}", driven.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&o.stdout);
    let json = dom
        .split("<pre id=\"test-result\">")
        .nth(1)
        .and_then(|t| t.split("</pre>").next())
        .unwrap_or_else(|| panic!("the page script did not finish: {}", text(&o)));
    serde_json::from_str(&json.replace("&quot;", "\"").replace("&amp;", "&")).unwrap()
}

/// What a real recording's page shows where it failed, read in the browser: the failing
/// card's place and header, its pictures and how they are cropped, the score table's cells
/// and the zoom toolbar's colour.
const MEASURE_FAILURE: &str = r#"<script>
window.addEventListener('load',function(){
 var d=document,out={};
 try{
  var card=d.querySelector('.card.first-fail'),before=card.querySelector('figure[data-label=before] .shot');
  out.top=card.getBoundingClientRect().top+scrollY;
  out.header=card.querySelector('h4').textContent;
  out.figures=[].map.call(card.querySelectorAll('figure'),function(f){return f.getAttribute('data-label');});
  out.crop=before.className+' '+before.getAttribute('style');
  var probe=d.createElement('span');probe.textContent='000';d.querySelector('table.totals td').appendChild(probe);
  out.threeChars=probe.getBoundingClientRect().width;probe.remove();
  var cells=[].filter.call(d.querySelectorAll('table.totals td'),function(c){return c.offsetParent;});
  out.cells=cells.length;
  out.narrowest=Math.min.apply(null,cells.map(function(c){return c.getBoundingClientRect().width;}));
  out.tallest=Math.max.apply(null,cells.map(function(c){return c.getBoundingClientRect().height;}));
  out.zbar=getComputedStyle(d.querySelector('.zbar')).backgroundColor;
  out.overflow=d.documentElement.scrollWidth-innerWidth;
 }catch(e){out.error=String(e);}
 var pre=d.createElement('pre');pre.id='test-result';pre.textContent=JSON.stringify(out);d.body.appendChild(pre);
});
</script>"#;

/// A real app's recording (zenity's GTK 3 form) with one label typo, its page in headless
/// Chromium at 1400 and 390 px: the failing step's card is on the first screen at both widths,
/// headed by the step's words (its id only in the tooltip), with before, after and diff
/// pictures cropped to the app's window (the box of the window in the frame's AX snapshot);
/// the score table stacks on a phone (no cell narrower than three digits, none wrapped); the
/// zoom toolbar is opaque. The captures of the failing step are named by its words and hold
/// all four pictures. The screenshots at both widths show the failing card's red edge on the
/// first screen.
#[test]
fn a_real_recordings_page_shows_the_failing_step_at_1400_and_390_px_in_headless_chromium() {
    if !have_tool("chromium", "apt-get install chromium") {
        return;
    }
    let tmp = crate::util::TempDir::new("real-html");
    let d = tmp.path();
    let id = "gtk3-zenity-contact";
    crate::util::copy_scenario(d, id, id);
    let plan = d.join(format!("scenarios/{id}/plan.json"));
    let json = std::fs::read_to_string(&plan).unwrap();
    // Step 3's label only: the per-step run fails at step 3 alone, as the chained run does.
    std::fs::write(
        &plan,
        json.replacen("\"label\": \"Last name\"", "\"label\": \"Lastname\"", 1),
    )
    .unwrap();
    crate::util::stepreplay(d)
        .args(["run", "-q", "scenarios", "--reports", "html"])
        .args(["--captures", "reports/captures"])
        .run()
        .expect_code(1);
    let reports = d.join("reports");
    let folder = reports.join(format!("captures/{id}/chained"));
    for what in ["before", "after", "diff", "overlay"] {
        let f = folder.join(format!("03-click-the-last-name-text-field-{what}.png"));
        assert!(f.is_file(), "{}", f.display());
    }
    let read = |what: &str| {
        std::fs::read(folder.join(format!("03-click-the-last-name-text-field-{what}.png"))).unwrap()
    };
    assert_ne!(read("overlay"), read("before"), "the overlay draws the box");
    // The window the step's pictures are cut to: zenity's, in the frame the step failed on.
    let ax: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(d.join(format!("recordings/{id}/frames/002.ax.json"))).unwrap(),
    )
    .unwrap();
    let win = &ax["apps"][0]["windows"][0]["frame"];
    let aspect = format!("aspect-ratio:{}/{}", win["width"], win["height"]);
    let page = std::fs::read_to_string(reports.join("index.html")).unwrap();
    for (size, height) in [("1400,1000", 1000.0), ("390,844", 844.0)] {
        let png = d.join(format!("{size}.png"));
        let got = drive_in_chromium(&page, MEASURE_FAILURE, size, &reports, Some(&png));
        assert!(got["error"].is_null(), "{got}");
        let num = |k: &str| got[k].as_f64().unwrap_or_else(|| panic!("{k}: {got}"));
        assert!(
            num("top") < height - 60.0,
            "the failing step is on the first screen at {size}: {got}"
        );
        assert_eq!(
            got["header"],
            "Step 3 · Click the Last name text field · click · failed (target-not-found)",
            "{got}"
        );
        assert_eq!(
            got["figures"],
            serde_json::json!(["before", "after", "diff"])
        );
        let crop = got["crop"].as_str().unwrap();
        assert!(
            crop.starts_with("shot crop ") && crop.contains(&aspect),
            "{aspect}: {got}"
        );
        assert!(num("cells") >= 16.0, "{got}");
        assert!(num("narrowest") >= num("threeChars"), "{got}");
        assert!(num("tallest") < 30.0, "no cell wraps: {got}");
        assert_eq!(got["zbar"], "rgb(31, 35, 40)", "opaque: {got}");
        assert!(num("overflow") <= 0.0, "{got}");
        // The first screen as drawn at `size`: the failing card's red edge (a column of the
        // page's --bad) is on it.
        let img = image::open(&png).unwrap().to_rgb8();
        let (w, h) = size.split_once(',').unwrap();
        assert_eq!(
            (img.width().to_string(), img.height().to_string()),
            (w.into(), h.into())
        );
        let red = image::Rgb([0xcf, 0x22, 0x2e]);
        let edge = (0..img.width()).any(|x| {
            let mut run = 0;
            (0..img.height()).any(|y| {
                run = if *img.get_pixel(x, y) == red {
                    run + 1
                } else {
                    0
                };
                run >= 24
            })
        });
        assert!(edge, "the failing card is on the {size} screenshot");
    }
}

/// The regression page in a real browser, on a desktop and at a phone's width: the banner is
/// folded, failures come first, every scenario name in it is a link, and every `#s-` link on
/// the page opens and shows what it names; at 390 px nothing is wider than the screen, and
/// `scripts/html-screenshot.sh` draws the page (not a blank one) and a section by its anchor.
#[test]
fn every_link_of_the_html_report_shows_what_it_names_in_headless_chromium() {
    if !have_tool("chromium", "apt-get install chromium") {
        return;
    }
    let report = report_of(&[passing(), failing()], None);
    let mut base = Baseline::from_report(&report);
    base.scenarios.get_mut("mini-expects-send").unwrap().met = true;
    let declined = base.scenarios.get_mut("mini-declined").unwrap();
    let mut scores = serde_json::to_value(&declined).unwrap();
    scores["scores"]["chained"]["step_success"] = 1.0.into();
    *declined = serde_json::from_value(scores).unwrap();
    let regs = compare(&base, &report, 0.0).unwrap();
    let page = to_html(&report, Some(&regs), &Default::default());
    let tmp = crate::util::TempDir::new("html-links");
    for (size, phone) in [("1400,1000", false), ("390,844", true)] {
        let got = drive_in_chromium(&page, FOLLOW_LINKS, size, tmp.path(), None);
        assert!(got["error"].is_null(), "{got}");
        assert_eq!(got["banner"], true, "{got}");
        assert_eq!(got["bannerOpen"], false, "the banner is folded: {got}");
        assert_eq!(
            got["named"],
            serde_json::json!(["mini-expects-send", "mini-declined"]),
            "a failure before a score-only change, each a link: {got}"
        );
        let order: Vec<&str> = got["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        let first_pass = order.iter().position(|s| *s == "pass").unwrap();
        assert!(
            order[first_pass..].iter().all(|s| *s == "pass") && first_pass > 0,
            "failures first: {order:?}"
        );
        assert!(got["links"].as_u64().unwrap() >= 3, "{got}");
        assert_eq!(got["bad"], serde_json::json!([]), "at {size}: {got}");
        if phone {
            assert!(
                got["overflow"].as_i64().unwrap() <= 0,
                "nothing is wider than a phone's screen: {got}"
            );
        }
    }
    // The screenshot script at a phone's width, whole and opened at a section: each is a
    // drawn page, many times the bytes of a blank one.
    std::fs::write(tmp.path().join("index.html"), &page).unwrap();
    std::fs::write(
        tmp.path().join("blank.html"),
        "<!DOCTYPE html><html><body></body></html>",
    )
    .unwrap();
    let shot = |page: &str, anchor: Option<&str>| -> u64 {
        let png = tmp.path().join(format!("{page}-{}.png", anchor.is_some()));
        let mut cmd = Command::new("bash");
        cmd.arg(repo().join("scripts/html-screenshot.sh"))
            .arg(tmp.path().join(page))
            .arg(&png)
            .arg("390x844");
        cmd.args(anchor);
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
        std::fs::metadata(&png).unwrap().len()
    };
    let blank = shot("blank.html", None);
    let whole = shot("index.html", None);
    let section = shot("index.html", Some("#s-mini-declined"));
    assert!(
        whole > 4 * blank,
        "the page is drawn: {whole} vs blank {blank}"
    );
    assert!(
        section > 4 * blank,
        "the section is drawn: {section} vs blank {blank}"
    );
}

/// `baseline review` decides each change on its own: `--accept` takes one scenario's change and
/// leaves the other pending in `baseline.json.new`; answers on standard input decide the rest
/// (a reject keeps the old result), and then nothing is pending.
#[test]
fn baseline_review_accepts_rejects_or_leaves_each_change_pending() {
    let tmp = crate::util::TempDir::new("baseline-review");
    let d = tmp.path();
    crate::util::copy_tree(&passing(), &d.join("scenarios"));
    crate::util::copy_tree(&fixtures().join("recordings"), &d.join("recordings"));
    let cli = |args: &[&str]| crate::util::stepreplay(d).args(args).run();
    cli(&["run", "scenarios", "-q"]).expect_code(0);
    cli(&["baseline", "accept"]).expect_code(0);
    let path = d.join("reports/baseline.json");
    let mut old: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for id in ["mini-completed", "mini-declined"] {
        old["scenarios"][id]["scores"]["chained"]["step_success"] = 0.125.into();
    }
    std::fs::write(&path, old.to_string()).unwrap();
    let score = |id: &str| {
        let b: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        b["scenarios"][id]["scores"]["chained"]["step_success"].as_f64()
    };
    let pending = d.join("reports/baseline.json.new");

    let r = cli(&["baseline", "review", "--accept", "mini-declined"]);
    r.expect_code(0);
    r.check(
        r.stdout.contains("2 changes to review"),
        "both changes are shown",
    );
    r.check(
        r.stdout.contains("1 accepted, 0 rejected, 1 pending"),
        "the tally",
    );
    assert_ne!(score("mini-declined"), Some(0.125), "accepted");
    assert_eq!(score("mini-completed"), Some(0.125), "left as it was");
    assert!(
        pending.is_file(),
        "the pending change is kept beside the baseline"
    );

    let typo = cli(&["baseline", "review", "--accept", "mini-complete"]);
    typo.check(typo.code == 64, "an id with no change is a usage error");
    typo.check(
        typo.stderr.contains("mini-completed"),
        "it lists the ids under review",
    );

    let r = crate::util::stepreplay(d)
        .args(["baseline", "review"])
        .run_with_stdin("r\n");
    r.expect_code(0);
    r.check(
        r.stdout.contains("1 change to review"),
        "only the pending one is left",
    );
    r.check(
        r.stdout.contains("0 accepted, 1 rejected, 0 pending"),
        "the tally",
    );
    assert_eq!(
        score("mini-completed"),
        Some(0.125),
        "a reject keeps the old result"
    );
    assert!(!pending.exists(), "nothing is pending");
}

/// `--grep` and `--filter` narrow a run to the scenarios they name (a word of the id, a glob,
/// the kind); a filter that is malformed or matches nothing is refused; `--slow 0` names every
/// scenario (each takes some time), and `show-report` prints where the page is.
#[test]
fn grep_filter_slow_and_show_report() {
    let tmp = crate::util::TempDir::new("grep-filter");
    let d = tmp.path();
    crate::util::copy_tree(&passing(), &d.join("scenarios"));
    crate::util::copy_tree(&fixtures().join("recordings"), &d.join("recordings"));
    let ids = || {
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("reports/report.json")).unwrap())
                .unwrap();
        r["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let cli = |args: &[&str]| crate::util::stepreplay(d).args(args).run();

    let r = cli(&["run", "scenarios", "--grep", "DECLINED", "--slow", "0"]);
    r.expect_code(0);
    assert_eq!(ids(), ["mini-declined", "mini-no-pin-declined"]);
    r.check(
        r.stdout.contains("2 scenarios slower than 0 s:")
            && r.stdout.matches("  SLOW mini-").count() == 2,
        "--slow 0 names every scenario run",
    );

    cli(&[
        "run",
        "scenarios",
        "--filter",
        "id:mini-no-*",
        "--filter",
        "kind:plan",
    ])
    .expect_code(0);
    assert_eq!(ids(), ["mini-no-pin", "mini-no-pin-declined"]);
    cli(&["run", "scenarios", "--filter", "kind:bridge"]).expect_code(64);
    let r = cli(&["run", "scenarios", "--filter", "size:big"]);
    r.check(
        r.code == 64 && r.stderr.contains("cannot filter on `size`"),
        "refused",
    );
    let r = cli(&["run", "scenarios", "--filter", "tag:smoke"]);
    r.check(
        r.code == 64 && r.stderr.contains("no scenario has the tag `smoke`"),
        "no scenario is tagged smoke",
    );
    let r = cli(&["run", "scenarios", "--grep", "x", "--baseline", "b.json"]);
    r.check(r.code == 64, "a narrowed run is not gated on a baseline");

    // A tag in the scenario file: filtered on, and shown in report.json and on the card.
    let tagged = d.join("scenarios/mini-declined.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tagged).unwrap()).unwrap();
    v["tags"] = serde_json::json!(["smoke", "person-declines"]);
    std::fs::write(&tagged, v.to_string()).unwrap();
    cli(&["run", "scenarios", "--filter", "tag:smoke"]).expect_code(0);
    assert_eq!(ids(), ["mini-declined"]);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("reports/report.json")).unwrap())
            .unwrap();
    assert_eq!(
        report["scenarios"][0]["tags"],
        serde_json::json!(["smoke", "person-declines"])
    );
    let html = std::fs::read_to_string(d.join("reports/index.html")).unwrap();
    assert!(
        html.contains(r#"<span class="tag">smoke</span><span class="tag">person-declines</span>"#),
        "the card shows the tags"
    );

    let r = cli(&["show-report"]);
    r.expect_code(0);
    let shown = std::path::PathBuf::from(r.stdout.trim());
    assert!(shown.is_absolute(), "{shown:?}");
    assert_eq!(
        std::fs::canonicalize(&shown).unwrap(),
        std::fs::canonicalize(d.join("reports/index.html")).unwrap()
    );
    cli(&["show-report", "nowhere"]).expect_code(2);
    // With no browser, `--open` says so in one line; xdg-open's own noise is not passed on.
    let bin = d.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("xdg-open");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'gio: no browser' >&2\necho noise\nexit 3\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let open = crate::util::stepreplay(d)
        .env("PATH", path)
        .args(["show-report", "--open"])
        .run();
    open.check(open.code == 3, "the page did not open: exit 3");
    open.check(
        open.stdout.lines().count() == 1 && !open.stdout.contains("noise"),
        "the path only on standard output",
    );
    open.check(
        open.stderr.lines().count() == 1
            && open
                .stderr
                .contains("no browser opened the page (xdg-open ended with exit status: 3)"),
        "one line says why",
    );
}

/// `--slow 0` puts every scenario run in the reports, not only on the terminal: a `slow` list
/// in report.json (slowest first), a "Slower than" list in summary.md and a mark on each HTML
/// card. Without `--slow` no report has it, so reports stay the same bytes run to run.
#[test]
fn slow_scenarios_are_in_every_report() {
    let tmp = crate::util::TempDir::new("slow-reports");
    let d = tmp.path();
    crate::util::copy_tree(&passing(), &d.join("scenarios"));
    crate::util::copy_tree(&fixtures().join("recordings"), &d.join("recordings"));
    let cli = |args: &[&str]| crate::util::stepreplay(d).args(args).run();
    cli(&["run", "scenarios", "--grep", "declined", "--slow", "0"]).expect_code(0);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("reports/report.json")).unwrap())
            .unwrap();
    let slow = &report["slow"];
    assert_eq!(slow["threshold"], 0.0, "{slow}");
    let listed: Vec<(&str, f64)> = slow["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_str().unwrap(), s["seconds"].as_f64().unwrap()))
        .collect();
    let mut ids: Vec<&str> = listed.iter().map(|l| l.0).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["mini-declined", "mini-no-pin-declined"]);
    assert!(
        listed.windows(2).all(|w| w[0].1 >= w[1].1),
        "slowest first: {listed:?}"
    );
    let md = std::fs::read_to_string(d.join("reports/summary.md")).unwrap();
    assert!(md.contains("### Slower than 0 s"), "{md}");
    for (id, secs) in &listed {
        assert!(md.contains(&format!("- **{id}**: {secs:.2} s")), "{md}");
    }
    let html = std::fs::read_to_string(d.join("reports/index.html")).unwrap();
    assert_eq!(
        html.matches("<span class=\"tag slow\">slow · ").count(),
        2,
        "a mark on each card"
    );

    cli(&["run", "scenarios", "--grep", "declined"]).expect_code(0);
    let plain = std::fs::read_to_string(d.join("reports/report.json")).unwrap();
    assert!(
        !plain.contains("\"slow\""),
        "no --slow, no times in the report"
    );
    assert!(
        !std::fs::read_to_string(d.join("reports/summary.md"))
            .unwrap()
            .contains("Slower than")
    );
}

/// A step that found another control than the recorded one names both as a person would, by
/// role and name, in the report and on the page — not by element id.
#[test]
fn a_wrong_control_is_named_by_its_role_and_name() {
    let tmp = crate::util::TempDir::new("said");
    let out = tmp.path().join("reports");
    crate::util::stepreplay(repo())
        .args([
            "run",
            "scenarios/mail-wrong-label.json",
            "-q",
            "--report-dir",
        ])
        .arg(&out)
        .run()
        .expect_code(0);
    let report = std::fs::read_to_string(out.join("report.json")).unwrap();
    assert!(
        report.contains("\"expected_said\": \"the text field “To:”\""),
        "{report}"
    );
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("wrong: the recording acted on the text field “To:”"));
}
