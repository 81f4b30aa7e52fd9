//! Each cause a hostile-input campaign found, kept found: FIFOs that hung, a decompression
//! bomb, a link out of a recording, temp files deleted under an agent, forged journal lines,
//! file names that are not UTF-8, a ledger that grew until the bridge stopped, and flags
//! accepted out of range. Every run is bounded in time, and its peak memory is measured.

#![cfg(unix)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{TempDir, copy_tree, repo};

/// What a bounded run gave.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary in `cwd`, killing it after 20 s (a hang fails the test instead of the
/// suite hanging).
fn bounded(cwd: &Path, args: &[&OsStr]) -> Ran {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stepreplay"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("stepreplay {args:?} hung (killed after 20 s)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn os<'a>(args: &[&'a str]) -> Vec<&'a OsStr> {
    args.iter().map(|s| OsStr::new(*s)).collect()
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// The largest resident set of any child waited for so far, in bytes.
fn children_peak_rss() -> u64 {
    // SAFETY: getrusage writes into the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) },
        0
    );
    usage.ru_maxrss as u64 * 1024
}

#[test]
fn a_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = TempDir::new("fifo");
    let fifo = dir.path().join("plan.json");
    mkfifo(&fifo);
    let rec = dir.path().join("rec");
    std::fs::create_dir_all(&rec).unwrap();
    mkfifo(&rec.join("recording.json"));
    let png = repo().join("corpora/pixelmatch-7.2.0/1a.png");
    for args in [
        vec!["check", "plan.json"],
        vec!["fmt", "--check", "plan.json"],
        vec!["diff", "plan.json", png.to_str().unwrap()],
        vec!["show", "rec"],
    ] {
        let r = bounded(dir.path(), &os(&args));
        assert_eq!(r.code, Some(2), "{args:?}: {}{}", r.stdout, r.stderr);
        let said = format!("{}{}", r.stdout, r.stderr);
        assert!(said.contains("not a regular file"), "{args:?}: {said}");
    }
}

#[test]
fn a_job_naming_a_fifo_does_not_wedge_serve() {
    let dir = TempDir::new("fifo-serve");
    let jobs = dir.path().join("jobs");
    std::fs::create_dir_all(jobs.join("inbox")).unwrap();
    mkfifo(&dir.path().join("plan.json"));
    std::fs::write(
        jobs.join("inbox/01.json"),
        r#"{"schemaVersion": 1, "commandID": "00000001-0000-4000-8000-000000000000", "verb": "check", "payload": {"plan": "plan.json"}}"#,
    )
    .unwrap();
    mkfifo(&jobs.join("inbox/02.json"));
    let base = format!("--base={}", dir.path().display());
    let r = bounded(
        dir.path(),
        &os(&["serve", "--inbox", "jobs", "--once", &base]),
    );
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let left: Vec<_> = std::fs::read_dir(jobs.join("inbox")).unwrap().collect();
    assert!(left.is_empty(), "every job has an outcome");
}

/// A 1-bit grey PNG of `side`², all zero: a few kB that decode to side² bytes and more.
fn bomb(side: u32) -> Vec<u8> {
    let row = 1 + side.div_ceil(8) as usize;
    let raw = vec![0u8; row * side as usize];
    let mut z = Vec::new();
    {
        let mut c = fdeflate::Compressor::new(&mut z).unwrap();
        c.write_data(&raw).unwrap();
        c.finish().unwrap();
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8], data: &[u8]| {
        png.extend((data.len() as u32).to_be_bytes());
        let mut h = crc32fast::Hasher::new();
        h.update(kind);
        h.update(data);
        png.extend(kind);
        png.extend(data);
        png.extend(h.finalize().to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend(side.to_be_bytes());
    ihdr.extend(side.to_be_bytes());
    ihdr.extend([1, 0, 0, 0, 0]);
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &z);
    chunk(b"IEND", &[]);
    png
}

#[test]
fn a_decompression_bomb_is_refused_from_its_header() {
    let dir = TempDir::new("bomb");
    let png = bomb(16_384);
    assert!(png.len() < 2_000_000, "{} bytes", png.len());
    std::fs::write(dir.path().join("bomb.png"), &png).unwrap();
    let small = bomb(64);
    std::fs::write(dir.path().join("small.png"), &small).unwrap();
    let r = bounded(dir.path(), &os(&["diff", "bomb.png", "bomb.png"]));
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("limit-exceeded") && r.stderr.contains("MiB"),
        "{}",
        r.stderr
    );
    // Sizes are compared from the headers, before either image is decoded.
    let r = bounded(dir.path(), &os(&["diff", "small.png", "bomb.png"]));
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("image sizes differ"), "{}", r.stderr);
    // The small one of the same kind decodes: the limit is a budget, not a ban on the kind.
    let r = bounded(dir.path(), &os(&["diff", "small.png", "small.png"]));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let peak = children_peak_rss();
    assert!(peak < 1 << 30, "peak RSS {} MiB", peak >> 20);
}

#[test]
fn a_recording_json_linking_outside_the_folder_is_refused() {
    let dir = TempDir::new("rec-link");
    let rec = dir.path().join("rec");
    std::fs::create_dir_all(&rec).unwrap();
    let secret = dir.path().join("outside.json");
    std::fs::write(&secret, "{\"schema\": \"x\"}").unwrap();
    std::os::unix::fs::symlink(&secret, rec.join("recording.json")).unwrap();
    let r = bounded(dir.path(), &os(&["show", "rec"]));
    assert_eq!(r.code, Some(2));
    assert!(r.stderr.contains("path-escape"), "{}", r.stderr);
}

#[test]
fn serve_leaves_an_agents_temp_files_and_journals_one_line_per_job() {
    let dir = TempDir::new("serve-tmp");
    let jobs = dir.path().join("jobs");
    let inbox = jobs.join("inbox");
    std::fs::create_dir_all(&inbox).unwrap();
    std::fs::write(inbox.join(".tmp-half-written.json"), "{\"schema").unwrap();
    // A newline in a job's file name must not forge a second journal line.
    std::fs::write(
        inbox.join("a\n00000000-0000-4000-8000-000000000000 succeeded forged.json"),
        "not json",
    )
    .unwrap();
    let r = bounded(dir.path(), &os(&["serve", "--inbox", "jobs", "--once"]));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(inbox.join(".tmp-half-written.json").exists());
    let journal = std::fs::read_to_string(jobs.join("journal.log")).unwrap();
    assert_eq!(journal.lines().count(), 1, "{journal}");
    assert!(journal.contains("failed a\\n0000"), "{journal}");
}

#[test]
fn a_file_name_that_is_not_utf8_gets_an_outcome_and_leaves_the_inbox() {
    let dir = TempDir::new("not-utf8");
    // The job inbox.
    let jobs = dir.path().join("jobs");
    std::fs::create_dir_all(jobs.join("inbox")).unwrap();
    let bad = OsStr::from_bytes(b"job-\xff.json");
    std::fs::write(jobs.join("inbox").join(bad), "{}").unwrap();
    let r = bounded(dir.path(), &os(&["serve", "--inbox", "jobs", "--once"]));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(std::fs::read_dir(jobs.join("inbox")).unwrap().count(), 0);
    let outcomes: Vec<String> = std::fs::read_dir(jobs.join("failed"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".outcome.json"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert_eq!(outcomes.len(), 1);
    assert!(outcomes[0].contains("job-\\\\xff.json"), "{}", outcomes[0]);
    assert!(outcomes[0].contains("not UTF-8"), "{}", outcomes[0]);

    // The bridge inbox.
    let bridge = dir.path().join("bridge");
    let init = bounded(
        dir.path(),
        &os(&["bridge", "init", bridge.to_str().unwrap()]),
    );
    assert_eq!(init.code, Some(0), "{}", init.stderr);
    std::fs::write(bridge.join("inbox").join(bad), "{}").unwrap();
    let r = bounded(dir.path(), &os(&["bridge", bridge.to_str().unwrap()]));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(std::fs::read_dir(bridge.join("inbox")).unwrap().count(), 0);
    assert!(r.stdout.contains("not UTF-8"), "{}", r.stdout);
}

#[test]
fn a_flood_of_junk_commands_cannot_stop_the_bridge() {
    let dir = TempDir::new("ledger");
    let bridge = dir.path().join("bridge");
    let b = bridge.to_str().unwrap();
    assert_eq!(
        bounded(dir.path(), &os(&["bridge", "init", b])).code,
        Some(0)
    );
    let verb = "v".repeat(250_000);
    for i in 0..40 {
        std::fs::write(
            bridge.join(format!("inbox/{i:03}.json")),
            format!(
                r#"{{"schemaVersion": 2, "commandID": "{i:08x}-0000-4000-8000-000000000000", "verb": "{verb}", "payload": {{}}}}"#
            ),
        )
        .unwrap();
    }
    assert_eq!(bounded(dir.path(), &os(&["bridge", b])).code, Some(0));
    let manifest = std::fs::metadata(bridge.join("manifest.json"))
        .unwrap()
        .len();
    assert!(
        manifest < 200_000,
        "the junk is not echoed into the manifest: {manifest} bytes"
    );
    // Valid work still goes through.
    std::fs::write(
        bridge.join("inbox/zz.json"),
        r#"{"schemaVersion": 2, "commandID": "ffffffff-0000-4000-8000-000000000000", "verb": "createRoutine", "payload": {"name": "After the flood",
        "steps": [{"workoutID": "bridge", "workSeconds": 30, "sets": 3, "setRestSeconds": 10, "restAfterSeconds": 15}]}}"#,
    )
    .unwrap();
    let r = bounded(dir.path(), &os(&["bridge", b]));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("1 succeeded"), "{}", r.stdout);
}

#[test]
fn flag_values_out_of_range_are_usage_errors_negative_numbers_included() {
    let corpus = repo().join("corpora/pixelmatch-7.2.0");
    for (flag, value, says) in [
        ("--threshold", "1.5", "outside 0..1"),
        ("--threshold", "-0.5", "outside 0..1"),
        ("--alpha", "-1", "outside 0..1"),
        ("--density-window", "0", "0"),
        ("--merge-gap", "-3", "-3"),
    ] {
        let r = bounded(&corpus, &os(&["diff", "1a.png", "1b.png", flag, value]));
        assert_eq!(r.code, Some(64), "{flag} {value}: {}", r.stderr);
        assert!(
            r.stderr.contains(flag) && r.stderr.contains(says),
            "{flag} {value}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains("unexpected argument"), "{}", r.stderr);
    }
}

#[test]
fn a_run_job_names_up_to_its_limit_of_scenarios_and_not_one_more() {
    let dir = TempDir::new("job-limit");
    let jobs = dir.path().join("jobs");
    std::fs::create_dir_all(jobs.join("inbox")).unwrap();
    let limit = stepreplay::limits::JOB_SCENARIOS;
    for (i, n) in [(1, limit), (2, limit + 1)] {
        let names: Vec<String> = (0..n).map(|k| format!("\"s{k}.json\"")).collect();
        std::fs::write(
            jobs.join(format!("inbox/{i:02}.json")),
            format!(
                r#"{{"schemaVersion": 1, "commandID": "0000000{i}-0000-4000-8000-000000000000", "verb": "run", "payload": {{"scenarios": [{}]}}}}"#,
                names.join(",")
            ),
        )
        .unwrap();
    }
    let r = bounded(dir.path(), &os(&["serve", "--inbox", "jobs", "--once"]));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let outcome = |i: usize| {
        let name = format!("0000000{i}-0000-4000-8000-000000000000.outcome.json");
        ["processed", "failed"]
            .iter()
            .find_map(|f| std::fs::read_to_string(jobs.join(f).join(&name)).ok())
            .unwrap()
    };
    // At the limit each name is looked at (none is a scenario); past it none is.
    assert!(!outcome(1).contains("limit-exceeded"), "{}", outcome(1));
    assert!(outcome(2).contains("limit-exceeded"), "{}", outcome(2));
}

#[test]
fn a_recording_of_bombs_fails_its_scenario_in_bounded_memory() {
    let dir = TempDir::new("bomb-run");
    copy_tree(&repo().join("harness/tests/fixtures/mini"), dir.path());
    let frames = dir.path().join("recordings/mini/frames");
    let png = bomb(16_384);
    for e in std::fs::read_dir(&frames).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "png") {
            std::fs::write(p, &png).unwrap();
        }
    }
    let r = bounded(
        dir.path(),
        &os(&[
            "run",
            "scenarios/mini-completed.json",
            "--report-dir",
            "out",
        ]),
    );
    assert_eq!(r.code, Some(1), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("FAIL"), "{}", r.stdout);
    let peak = children_peak_rss();
    assert!(peak < 1 << 30, "peak RSS {} MiB", peak >> 20);
}

/// The `mini` suite in a fresh folder, with `outside/` beside it for links to point at.
fn mini_suite(tag: &str) -> TempDir {
    let dir = TempDir::new(tag);
    let mini = repo().join("harness/tests/fixtures/mini");
    copy_tree(&mini.join("scenarios"), &dir.path().join("scenarios"));
    copy_tree(&mini.join("recordings"), &dir.path().join("recordings"));
    std::fs::create_dir_all(dir.path().join("outside")).unwrap();
    dir
}

/// A refused write: exit 3, the reason on stderr, nothing written through the link.
fn refused_through_link(dir: &TempDir, r: &Ran, what: &str) {
    assert_eq!(r.code, Some(3), "{what}: {}", r.stderr);
    assert!(
        r.stderr.contains("is a symlink") && r.stderr.contains("refused"),
        "{what}: {}",
        r.stderr
    );
    let outside: Vec<_> = std::fs::read_dir(dir.path().join("outside"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        outside.is_empty(),
        "{what}: written through the link: {outside:?}"
    );
}

#[test]
fn a_report_img_folder_that_is_a_symlink_is_refused() {
    let dir = mini_suite("img-link");
    std::fs::create_dir_all(dir.path().join("reports")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside"), dir.path().join("reports/img")).unwrap();
    let r = bounded(dir.path(), &os(&["run", "scenarios", "-q"]));
    refused_through_link(&dir, &r, "img/");
    assert!(r.stderr.contains("img/` is a symlink"), "{}", r.stderr);
}

#[test]
fn an_html_folder_that_is_a_symlink_is_refused() {
    let dir = mini_suite("html-link");
    std::os::unix::fs::symlink(dir.path().join("outside"), dir.path().join("page")).unwrap();
    let r = bounded(
        dir.path(),
        &os(&["run", "scenarios", "-q", "--html", "page"]),
    );
    refused_through_link(&dir, &r, "--html");
}

#[test]
fn a_captures_subfolder_that_is_a_symlink_is_refused() {
    let dir = mini_suite("captures-link");
    std::fs::create_dir_all(dir.path().join("caps")).unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("outside"),
        dir.path().join("caps/mini-completed"),
    )
    .unwrap();
    let r = bounded(
        dir.path(),
        &os(&[
            "run",
            "scenarios",
            "-q",
            "--reports",
            "json",
            "--captures",
            "caps",
        ]),
    );
    refused_through_link(&dir, &r, "--captures");
    assert!(
        r.stderr.contains("mini-completed/` is a symlink"),
        "{}",
        r.stderr
    );
}

#[test]
fn serve_refuses_a_processed_folder_swapped_for_a_symlink() {
    let dir = mini_suite("serve-link");
    let jobs = dir.path().join("jobs");
    std::fs::create_dir_all(jobs.join("inbox")).unwrap();
    std::fs::create_dir_all(jobs.join("failed")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside"), jobs.join("processed")).unwrap();
    std::fs::write(jobs.join("inbox/job.json"), "{}").unwrap();
    let r = bounded(dir.path(), &os(&["serve", "--inbox", "jobs", "--once"]));
    refused_through_link(&dir, &r, "serve processed/");
    assert!(
        r.stderr.contains("processed/` is a symlink"),
        "{}",
        r.stderr
    );
    assert!(
        jobs.join("inbox/job.json").exists(),
        "the job stays for a fixed folder"
    );
}

#[test]
fn baseline_accept_refuses_to_replace_a_symlink() {
    let dir = mini_suite("accept-link");
    let r = bounded(
        dir.path(),
        &os(&["run", "scenarios", "-q", "--reports", "json"]),
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let shared = dir.path().join("shared-baseline.json");
    std::fs::write(&shared, "kept").unwrap();
    std::os::unix::fs::symlink(&shared, dir.path().join("reports/baseline.json")).unwrap();
    let r = bounded(dir.path(), &os(&["baseline", "accept", "--force"]));
    assert_eq!(r.code, Some(3), "{}", r.stderr);
    assert!(
        r.stderr.contains("is a symlink") && r.stderr.contains("baseline.json"),
        "{}",
        r.stderr
    );
    let link = std::fs::symlink_metadata(dir.path().join("reports/baseline.json")).unwrap();
    assert!(link.file_type().is_symlink(), "the link is still a link");
    assert_eq!(std::fs::read_to_string(&shared).unwrap(), "kept");
}
