//! Faults a CI gate must survive with its evidence whole: kills (SIGKILL) at seeded points
//! while `run` writes its reports and while `baseline accept` replaces the baseline, a full
//! disk (a small tmpfs), Ctrl-C and SIGTERM, broken input among good input, and a baseline
//! that compares nothing. Two `serve` processes on one folder are in `bridge.rs`.
//!
//! The invariant every fault is held to: each report file in the folder is byte for byte the
//! one a whole run of either the earlier or the new run writes (junit's wall-clock times
//! aside), all of them from the same run; a manifest means the whole set is there; and the
//! baseline is the bytes it was.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::io::BufRead as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::{Run, TempDir, copy_tree, repo, stepreplay, whole_run_accepted};

/// Every file a report folder's set may hold.
const SET: [&str; 6] = [
    "report.json",
    "junit.xml",
    "summary.md",
    "index.html",
    "regressions.json",
    "manifest.json",
];

/// The test hook that makes the binary kill itself at its n-th write point.
const KILL_AT: &str = "STEPREPLAY_FAULT_KILL_AT";

/// A copy of the `mini` fixture suite (`scenarios/`, `failing/`, `recordings/`) to break.
fn mini(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    copy_tree(&repo().join("harness/tests/fixtures/mini"), dir.path());
    dir
}

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// A seeded generator (SplitMix64): the same kill points on every machine.
struct Seeded(u64);

impl Seeded {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A report folder's set as a reader compares it: junit without its wall-clock times, the
/// manifest by what it says (its byte counts follow junit's times). A file that does not
/// parse stays as it is, so it matches no reference.
type Set = BTreeMap<&'static str, String>;

fn set_of(dir: &Path) -> Set {
    let mut set = Set::new();
    for name in SET {
        let Ok(bytes) = std::fs::read(dir.join(name)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let text = match name {
            "junit.xml" => crate::util::junit_without_times(&text),
            "manifest.json" => match serde_json::from_str::<Value>(&text) {
                Ok(v) => {
                    let files: Vec<&String> = v["files"]
                        .as_object()
                        .map(|m| m.keys().collect())
                        .unwrap_or_default();
                    format!(
                        "complete {} scenarios {} files {files:?}",
                        v["complete"], v["scenarios"]
                    )
                }
                Err(_) => text,
            },
            _ => text,
        };
        set.insert(name, text);
    }
    set
}

/// Panics unless every report file in `dir` is the old run's or the new run's, all of the
/// same run, and a manifest stands only beside a whole set.
fn assert_whole(dir: &Path, old: &Set, new: &Set, what: &str) {
    let got = set_of(dir);
    let from = |reference: &Set| got.iter().all(|(n, t)| reference.get(n) == Some(t));
    let which = || {
        got.iter()
            .map(|(n, t)| {
                let w = match (old.get(n) == Some(t), new.get(n) == Some(t)) {
                    (true, _) => "old",
                    (_, true) => "new",
                    _ => "NEITHER (torn or foreign)",
                };
                format!("  {n}: {w}, {} bytes", t.len())
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        from(old) || from(new),
        "{what}: the report folder mixes runs or holds a torn file:\n{}",
        which()
    );
    if got.contains_key("manifest.json") {
        assert!(
            got == *old || got == *new,
            "{what}: a manifest beside a partial set:\n{}",
            which()
        );
    }
}

/// The references: a baseline of the whole `mini` suite, the set a run of two of its
/// scenarios writes against it (the "old" run: it has regressions, every file differs) and
/// the set the whole suite writes (the "new" run).
struct References {
    _dir: TempDir,
    baseline: Vec<u8>,
    old: Set,
    old_dir: PathBuf,
    new: Set,
    new_report: PathBuf,
}

const OLD_RUN: [&str; 2] = [
    "scenarios/mini-completed.json",
    "scenarios/mini-declined.json",
];

fn references() -> References {
    let dir = mini("fault-refs");
    let d = dir.path();
    whole_run_accepted(d, "base.json");
    let run = stepreplay(d)
        .arg("run")
        .args(OLD_RUN)
        .args(["--report-dir", "old", "--baseline", "base.json", "-q"])
        .expect_code(1);
    run.check(
        run.stdout.contains("missing"),
        "the old run misses scenarios of the baseline",
    );
    stepreplay(d)
        .args([
            "run",
            "scenarios",
            "--report-dir",
            "new",
            "--baseline",
            "base.json",
            "-q",
        ])
        .expect_code(0);
    let (old, new) = (set_of(&d.join("old")), set_of(&d.join("new")));
    assert_eq!(old.len(), SET.len(), "{:?}", old.keys());
    assert_eq!(new.len(), SET.len(), "{:?}", new.keys());
    for name in SET {
        assert_ne!(old[name], new[name], "{name}: the two runs must differ");
    }
    References {
        baseline: std::fs::read(d.join("base.json")).unwrap(),
        old,
        old_dir: d.join("old"),
        new,
        new_report: d.join("new/report.json"),
        _dir: dir,
    }
}

/// Copies the new run's set (its files, not `img/`) into `to`: a report `baseline accept`
/// reads is one its manifest vouches for.
fn copy_new_set(refs: &References, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(refs.new_report.parent().unwrap()).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// A suite whose report folder holds the old run's whole set and the baseline.
fn seeded(name: &str, refs: &References) -> TempDir {
    let dir = mini(name);
    let reports = dir.path().join("reports");
    std::fs::create_dir_all(&reports).unwrap();
    for n in SET {
        std::fs::copy(refs.old_dir.join(n), reports.join(n)).unwrap();
    }
    std::fs::write(reports.join("baseline.json"), &refs.baseline).unwrap();
    dir
}

const NEW_RUN: [&str; 6] = [
    "run",
    "scenarios",
    "--report-dir",
    "reports",
    "--baseline",
    "reports/baseline.json",
];

fn assert_baseline_kept(dir: &Path, refs: &References, what: &str) {
    let now = std::fs::read(dir.join("reports/baseline.json")).unwrap();
    assert!(now == refs.baseline, "{what}: the baseline changed");
}

/// SIGKILL at seeded moments over a whole run's time (the replay, the writing, after), and at
/// every write point of the writing itself through the test hook (each block written, each
/// rename, each file retired): the folder always holds whole files of one run, and the
/// baseline is untouched.
#[test]
fn sigkill_at_any_moment_leaves_whole_files_of_one_run_and_the_baseline() {
    let refs = references();
    let mut rng = Seeded(0x5eed_0050);

    // Kills at moments: how long a whole run takes here sets the range.
    let dir = seeded("kill-timed-0", &refs);
    let t = Instant::now();
    stepreplay(dir.path()).args(NEW_RUN).expect_code(0);
    let whole = t.elapsed();
    assert_whole(
        &dir.path().join("reports"),
        &refs.old,
        &refs.new,
        "a whole run",
    );
    assert_eq!(set_of(&dir.path().join("reports")), refs.new);
    let mut killed = 0;
    for i in 0..12 {
        let dir = seeded(&format!("kill-timed-{}", i + 1), &refs);
        let at = Duration::from_micros(rng.below(whole.as_micros() as u64 + 1));
        let mut child = stepreplay(dir.path()).args(NEW_RUN).spawn();
        std::thread::sleep(at);
        let _ = child.kill();
        let status = child.wait().unwrap();
        killed += usize::from(status.signal().is_some());
        let what = format!("SIGKILL after {at:?}");
        assert_whole(&dir.path().join("reports"), &refs.old, &refs.new, &what);
        assert_baseline_kept(dir.path(), &refs, &what);
    }
    eprintln!("timed: 12 kills over {whole:?}, {killed} landed before the run ended");

    // Kills at write points: each one, until the run ends first.
    let mut point = 1u64;
    let mut points = 0;
    loop {
        let dir = seeded(&format!("kill-at-{point}"), &refs);
        let run = stepreplay(dir.path())
            .args(NEW_RUN)
            .env(KILL_AT, point.to_string())
            .run();
        let what = format!("SIGKILL at write point {point}");
        assert_whole(&dir.path().join("reports"), &refs.old, &refs.new, &what);
        assert_baseline_kept(dir.path(), &refs, &what);
        if run.code != -1 {
            run.check(run.code == 0, "past the last write point the run ends well");
            assert_eq!(set_of(&dir.path().join("reports")), refs.new);
            break;
        }
        points += 1;
        point += 1;
    }
    eprintln!("write points: a kill at each of the run's {points}");
    assert!(points >= 20, "the run has only {points} write points");
}

/// A kill at each write point of `baseline accept` leaves the old baseline or the new one,
/// whole; never a cut-off file.
#[test]
fn sigkill_during_baseline_accept_leaves_the_old_or_the_new_baseline() {
    let refs = references();
    let dir = mini("accept-kill");
    let d = dir.path();
    std::fs::create_dir_all(d.join("reports")).unwrap();
    copy_new_set(&refs, &d.join("reports"));
    // The old baseline: the two-scenario run's.
    stepreplay(d)
        .arg("run")
        .args(OLD_RUN)
        .args(["--report-dir", "two", "-q"])
        .expect_code(0);
    stepreplay(d)
        .args([
            "baseline",
            "accept",
            "--report",
            "two/report.json",
            "--out",
            "old.json",
        ])
        .expect_code(0);
    let old = std::fs::read(d.join("old.json")).unwrap();
    let accept = ["baseline", "accept"];
    let mut point = 1;
    loop {
        std::fs::write(d.join("reports/baseline.json"), &old).unwrap();
        let run = stepreplay(d)
            .args(accept)
            .env(KILL_AT, point.to_string())
            .run();
        let now = std::fs::read(d.join("reports/baseline.json")).unwrap();
        if run.code != -1 {
            run.check(run.code == 0, "past the last write point accept ends well");
            assert_eq!(now, refs.baseline, "the new baseline is the whole suite's");
            break;
        }
        assert!(
            now == old || now == refs.baseline,
            "a kill at write point {point} left a baseline of {} bytes that is neither",
            now.len()
        );
        point += 1;
    }
    assert!(point > 2, "accept was killed at {} points", point - 1);
}

/// A tmpfs of `size` at `dir`, owned by this user, unmounted when dropped; `None` (with a note
/// saying why) where this machine cannot mount one. As root it is mounted directly, otherwise
/// through passwordless `sudo -n` (as on CI runners).
struct Tmpfs {
    dir: PathBuf,
    sudo: bool,
}

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).unwrap();
        // SAFETY: getuid and getgid cannot fail and have no preconditions.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        let opts = format!("size={size},uid={uid},gid={gid},mode=0755");
        let mut why = String::new();
        for sudo in [false, true] {
            if sudo == (uid == 0) {
                continue;
            }
            let mut cmd = std::process::Command::new(if sudo { "sudo" } else { "mount" });
            if sudo {
                cmd.args(["-n", "mount"]);
            }
            match cmd
                .args(["-t", "tmpfs", "-o", &opts, "tmpfs"])
                .arg(dir)
                .output()
            {
                Ok(o) if o.status.success() => {
                    return Some(Tmpfs {
                        dir: dir.to_path_buf(),
                        sudo,
                    });
                }
                Ok(o) => why = String::from_utf8_lossy(&o.stderr).into_owned(),
                Err(e) => why = e.to_string(),
            }
        }
        note_no_tmpfs(&why);
        None
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let mut cmd = std::process::Command::new(if self.sudo { "sudo" } else { "umount" });
        if self.sudo {
            cmd.args(["-n", "umount"]);
        }
        let _ = cmd.arg(&self.dir).status();
    }
}

fn note_no_tmpfs(why: &str) {
    assert!(
        std::env::var_os("STEPREPLAY_REQUIRE_TMPFS").is_none(),
        "STEPREPLAY_REQUIRE_TMPFS is set, but no tmpfs can be mounted: {why}"
    );
    eprintln!(
        "SKIPPED: the full-disk faults need `mount -t tmpfs` (root, or a sandbox that allows \
         it), and it failed here: {}",
        why.trim()
    );
}

/// Fills the file system of `dir` but for about `free` bytes.
fn fill(dir: &Path, free: u64) {
    use std::io::Write as _;
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).unwrap();
    let block = vec![0u8; 4096];
    while f.write_all(&block).is_ok() {}
    let _ = f.flush();
    let len = std::fs::metadata(&path).unwrap().len();
    f.set_len(len.saturating_sub(free)).unwrap();
}

/// A disk that fills up at seeded points of the writing: the run fails with a clear error
/// naming the file (exit 3), and the folder holds whole files of one run, with the baseline
/// untouched; a disk with room enough gives the whole new set.
#[test]
fn a_full_disk_at_any_point_leaves_whole_files_of_one_run_and_the_baseline() {
    let refs = references();
    let new_bytes: u64 = SET
        .iter()
        .map(|n| {
            std::fs::metadata(refs.new_report.with_file_name(n))
                .unwrap()
                .len()
        })
        .sum();
    let img_bytes: u64 = std::fs::read_dir(refs.new_report.with_file_name("img"))
        .map(|rd| rd.flatten().map(|e| e.metadata().unwrap().len()).sum())
        .unwrap_or(0);
    let needed = new_bytes + img_bytes;
    let mut rng = Seeded(0xd15c_f011);
    let mut free = 0u64;
    let mut failed = 0;
    loop {
        let dir = mini("enospc");
        let reports = dir.path().join("reports");
        let Some(_mount) = Tmpfs::mount(&reports, "8m") else {
            return;
        };
        for n in SET {
            std::fs::copy(refs.old_dir.join(n), reports.join(n)).unwrap();
        }
        std::fs::write(reports.join("baseline.json"), &refs.baseline).unwrap();
        fill(&reports, free);
        let run = stepreplay(dir.path()).args(NEW_RUN).run();
        run.assert_no_panic();
        let what = format!("a disk with {free} bytes free");
        assert_whole(&reports, &refs.old, &refs.new, &what);
        assert_baseline_kept(dir.path(), &refs, &what);
        if run.code == 3 {
            run.check(
                run.stderr.contains("cannot write `reports/") && run.stderr.contains("space"),
                "a full disk is a write error naming the file",
            );
            failed += 1;
        } else {
            run.check(run.code == 0, "with room enough the run passes");
            assert_eq!(set_of(&reports), refs.new, "{what}");
            if free > needed * 3 {
                break;
            }
        }
        free += 1 + rng.below(needed / 6 + 4096);
    }
    eprintln!("{failed} runs hit a full disk, the set needs about {needed} bytes");
    assert!(failed >= 3, "only {failed} runs hit a full disk");
}

/// `baseline accept` on a full disk fails and leaves the old baseline as it was.
#[test]
fn a_full_disk_during_baseline_accept_keeps_the_old_baseline() {
    let refs = references();
    let dir = mini("accept-enospc");
    let reports = dir.path().join("reports");
    let Some(_mount) = Tmpfs::mount(&reports, "1m") else {
        return;
    };
    copy_new_set(&refs, &reports);
    let old = b"{\"schema\": \"stepreplay-baseline/1\", \"modes\": [], \"scenarios\": {\"x\": {\"met\": true, \"outcome\": \"completed\", \"scores\": {}}}, \"scores\": {}}\n";
    std::fs::write(reports.join("baseline.json"), old).unwrap();
    fill(&reports, 0);
    let run = stepreplay(dir.path()).args(["baseline", "accept"]).run();
    run.check(run.code == 3, "a full disk fails accept");
    assert_eq!(std::fs::read(reports.join("baseline.json")).unwrap(), old);
    let temps: Vec<_> = std::fs::read_dir(&reports)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(temps.is_empty(), "temporary files left: {temps:?}");
}

/// Reads `child`'s standard output until its first scenario line, then returns it running.
fn wait_for_a_scenario(child: &mut std::process::Child) -> String {
    let out = child.stdout.take().unwrap();
    let mut lines = std::io::BufReader::new(out).lines();
    let mut seen = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if line.starts_with("ok ") || line.starts_with("FAIL ") {
            // Keep draining in the background so the child never blocks on a full pipe.
            std::thread::spawn(move || lines.for_each(drop));
            return seen;
        }
    }
    panic!("no scenario line before the end:\n{seen}");
}

fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: `kill` with a child's pid has no memory-safety preconditions.
    let r = unsafe { libc::kill(child.id() as i32, sig) };
    assert_eq!(r, 0, "kill failed");
}

/// Ctrl-C (and SIGTERM) in the middle of a run: no scenario starts after it, what was judged
/// is written as a report marked incomplete, and the exit code is 130 (143).
#[test]
fn ctrl_c_and_sigterm_write_an_incomplete_report_and_exit_130_and_143() {
    for (sig, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let dir = mini("interrupted");
        let mut child = stepreplay(dir.path())
            .args(["run", "scenarios", "--jobs", "1", "--report-dir", "reports"])
            .env("STEPREPLAY_TEST_SCENARIO_MS", "300")
            .spawn();
        let first = wait_for_a_scenario(&mut child);
        signal(&child, sig);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{first}{stderr}");
        let reports = dir.path().join("reports");
        let report = json(&reports.join("report.json"));
        let judged = report["scenarios"].as_array().unwrap().len();
        assert!((1..6).contains(&judged), "{judged} of 6 judged");
        let why = report["incomplete"].as_str().unwrap();
        assert!(why.contains(&format!("{judged} of 6")), "{why}");
        let manifest = json(&reports.join("manifest.json"));
        assert_eq!(manifest["complete"], false);
        for n in ["junit.xml", "summary.md", "index.html"] {
            assert!(reports.join(n).is_file(), "{n} not written");
        }
        assert_red_incomplete(&reports);
        // An incomplete report is never accepted as the baseline.
        let run = stepreplay(dir.path()).args(["baseline", "accept"]).run();
        run.check(
            run.code == 2 && run.stderr.contains("incomplete"),
            "accept refuses an incomplete report",
        );
        assert!(!reports.join("baseline.json").exists());
    }
}

/// `agent` streams into the same run session as `run`: Ctrl-C between scenarios starts no
/// other agent, writes what was judged marked incomplete, red in every output, exit 130.
#[test]
fn ctrl_c_during_an_agent_run_is_red_and_incomplete_in_every_output() {
    if !crate::util::have_tool("python3", "apt-get install python3") {
        return;
    }
    let dir = mini("agent-interrupted");
    std::fs::write(
        dir.path().join("slow-agent.py"),
        "import json, sys, time\nfor line in sys.stdin:\n    time.sleep(0.3)\n    \
         print(json.dumps({\"type\": \"done\", \"text\": \"Done.\"}), flush=True)\n",
    )
    .unwrap();
    let mut child = stepreplay(dir.path())
        .args(["agent", "--cmd", "python3 slow-agent.py", "scenarios"])
        .args(["--report-dir", "reports"])
        .spawn();
    let first = wait_for_a_scenario(&mut child);
    signal(&child, libc::SIGINT);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{first}{stderr}");
    let reports = dir.path().join("reports");
    let report = json(&reports.join("report.json"));
    let judged = report["scenarios"].as_array().unwrap().len();
    assert!((1..6).contains(&judged), "{judged} of 6 judged");
    assert_eq!(json(&reports.join("manifest.json"))["complete"], false);
    assert_red_incomplete(&reports);
}

/// Every output of an incomplete set says so first, and none reads green: `summary.md`'s
/// first line, the HTML page's title, an error case in `junit.xml`.
pub(crate) fn assert_red_incomplete(reports: &Path) {
    let text = |n: &str| std::fs::read_to_string(reports.join(n)).unwrap();
    let summary = text("summary.md");
    assert!(
        summary.starts_with("## stepreplay: ❌ incomplete ("),
        "summary.md: {summary}"
    );
    let html = text("index.html");
    assert!(
        html.contains("<title>stepreplay report: ❌ incomplete ("),
        "index.html's title"
    );
    let junit = text("junit.xml");
    let root = junit
        .lines()
        .find(|l| l.starts_with("<testsuites"))
        .unwrap_or("");
    assert!(
        junit.contains("type=\"incomplete\"") && !root.contains("errors=\"0\""),
        "junit.xml carries no error for the cut: {junit}"
    );
}

/// A second Ctrl-C ends the run at once, and leaves no torn file.
#[test]
fn a_second_ctrl_c_exits_at_once_without_a_torn_file() {
    let refs = references();
    let dir = seeded("second-ctrl-c", &refs);
    let mut child = stepreplay(dir.path())
        .args(NEW_RUN)
        .args(["--jobs", "1"])
        .env("STEPREPLAY_TEST_SCENARIO_MS", "2000")
        .spawn();
    wait_for_a_scenario(&mut child);
    signal(&child, libc::SIGINT);
    // Signals of one kind do not queue: let the first be handled before the second.
    std::thread::sleep(Duration::from_millis(200));
    signal(&child, libc::SIGINT);
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    assert_whole(
        &dir.path().join("reports"),
        &refs.old,
        &refs.new,
        "two Ctrl-Cs",
    );
    assert_baseline_kept(dir.path(), &refs, "two Ctrl-Cs");
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn scenario(id: &str, plan: &str, recording: &str) -> String {
    format!(
        r#"{{"schema": "stepreplay-scenario/1", "id": "{id}", "plan": "{plan}", "recording": "{recording}", "inputs": {{"to": "a@example.com"}}, "answers": {{"confirm": {{"s4": "approve"}}, "sensitive": {{"pin": "4321"}}}}, "expect": {{"outcome": "completed"}}}}"#
    )
}

/// The report's entries by id: (met, mismatch).
fn verdicts(reports: &Path) -> BTreeMap<String, (bool, String)> {
    json(&reports.join("report.json"))["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap().to_string(),
                (
                    s["met"].as_bool().unwrap(),
                    s["mismatch"].as_str().unwrap_or("").to_string(),
                ),
            )
        })
        .collect()
}

fn assert_every_report_written(reports: &Path, run: &Run) {
    for n in [
        "report.json",
        "junit.xml",
        "summary.md",
        "index.html",
        "manifest.json",
    ] {
        run.check(reports.join(n).is_file(), &format!("{n} not written"));
    }
}

/// One plan with a schema error among good ones: the run carries on, the broken scenario
/// fails with its error, every good one is judged, every report is written, and the exit
/// code (2) says that input was broken.
#[test]
fn a_broken_plan_among_good_ones_fails_alone_and_every_report_is_written() {
    let dir = mini("broken-plan");
    let d = dir.path();
    write(
        d,
        "scenarios/broken/plan.json",
        r#"{"schema": "foxstep-step-plan/1", "steps": 3}"#,
    );
    write(
        d,
        "scenarios/mini-broken-plan.json",
        &scenario("mini-broken-plan", "broken/plan.json", "mini"),
    );
    let run = stepreplay(d)
        .args(["run", "scenarios", "--report-dir", "reports"])
        .run();
    run.check(run.code == 2, "broken input exits 2");
    run.check(
        run.stdout.contains("FAIL mini-broken-plan"),
        "the broken scenario is named",
    );
    let reports = d.join("reports");
    assert_every_report_written(&reports, &run);
    let v = verdicts(&reports);
    assert_eq!(v.len(), 7, "{v:?}");
    let (met, why) = &v["mini-broken-plan"];
    assert!(!met);
    assert!(why.contains("broken/plan.json"), "{why}");
    for (id, (met, why)) in &v {
        if id != "mini-broken-plan" {
            assert!(met, "{id} was not judged as expected: {why}");
        }
    }
    assert_eq!(json(&reports.join("manifest.json"))["broken_inputs"], 1);
    let junit = std::fs::read_to_string(reports.join("junit.xml")).unwrap();
    assert!(junit.contains("mini-broken-plan"), "{junit}");
}

/// A recording that cannot be read and a scenario file with a schema error each fail their
/// own scenario; the others are judged.
#[test]
fn an_unreadable_recording_or_scenario_file_fails_only_its_scenario() {
    let dir = mini("broken-recording");
    let d = dir.path();
    copy_tree(&d.join("recordings/mini"), &d.join("recordings/garbled"));
    write(d, "recordings/garbled/recording.json", "{\"schema\": ");
    write(
        d,
        "scenarios/mini-garbled.json",
        &scenario("mini-garbled", "mini/plan.json", "garbled"),
    );
    write(
        d,
        "scenarios/mini-gone.json",
        &scenario("mini-gone", "mini/plan.json", "gone"),
    );
    write(
        d,
        "scenarios/mini-typo.json",
        r#"{"schema": "stepreplay-scenario/1", "id": "mini-typo", "plann": "mini/plan.json", "recording": "mini", "expect": {"outcome": "completed"}}"#,
    );
    let run = stepreplay(d)
        .args(["run", "scenarios", "--report-dir", "reports"])
        .run();
    run.check(run.code == 2, "broken input exits 2");
    let reports = d.join("reports");
    assert_every_report_written(&reports, &run);
    let v = verdicts(&reports);
    assert_eq!(v.len(), 9, "{v:?}");
    for (id, why_has) in [
        ("mini-garbled", "recording.json"),
        ("mini-gone", "gone"),
        ("mini-typo", "plann"),
    ] {
        let (met, why) = &v[id];
        assert!(!met, "{id}");
        assert!(why.contains(why_has), "{id}: {why}");
    }
    let good = v.iter().filter(|(_, (met, _))| *met).count();
    assert_eq!(good, 6, "{v:?}");
    assert_eq!(json(&reports.join("manifest.json"))["broken_inputs"], 3);
}

/// A missing recording is said once, at its scenario file's `recording` field as
/// `path:line:col` (no quotes a terminal would take into the path), with a did-you-mean over
/// the recordings there.
#[test]
fn a_missing_recording_is_named_once_at_its_field_with_a_did_you_mean() {
    let dir = mini("missing-recording");
    let d = dir.path();
    write(
        d,
        "scenarios/mini-misnamed.json",
        &scenario("mini-misnamed", "mini/plan.json", "mnii"),
    );
    let run = stepreplay(d)
        .args([
            "run",
            "-q",
            "scenarios/mini-misnamed.json",
            "--report-dir",
            "reports",
        ])
        .run();
    run.check(run.code == 2, "broken input exits 2");
    let said = format!("{}{}", run.stdout, run.stderr);
    let line = said
        .lines()
        .find(|l| l.contains("at scenarios/"))
        .unwrap_or_default();
    assert_eq!(
        line.matches("scenarios/mini-misnamed.json").count(),
        1,
        "{said}"
    );
    assert!(!line.contains("`scenarios/"), "{said}");
    insta::assert_snapshot!(crate::util::without_times(&said));
}

/// A baseline that compares nothing fails the gate: one of another suite (no id in common),
/// and one with no scenarios (refused before the replay).
#[test]
fn a_baseline_that_compares_nothing_fails_the_gate() {
    let dir = mini("other-suite");
    let d = dir.path();
    stepreplay(d)
        .args(["run", "failing", "--report-dir", "other", "-q"])
        .expect_code(1);
    stepreplay(d)
        .args([
            "baseline",
            "accept",
            "--allow-failing",
            "--report",
            "other/report.json",
            "--out",
            "other.json",
        ])
        .expect_code(0);
    let run = stepreplay(d)
        .args([
            "run",
            "scenarios",
            "--report-dir",
            "reports",
            "--baseline",
            "other.json",
        ])
        .run();
    run.check(run.code == 2, "another suite's baseline exits 2");
    run.check(
        run.stderr.contains("baseline-mismatch")
            && run
                .stderr
                .contains("none of the baseline's 1 scenarios is in this run"),
        "the error says nothing was compared",
    );
    run.check(
        !run.stdout.contains("missing") && !run.stderr.contains("missing"),
        "no `missing` line buries the error",
    );
    // The run's own reports are still written, and say what was new.
    let r = json(&d.join("reports/regressions.json"));
    assert_eq!(r["compared"], 0);
    assert_eq!(r["new"].as_array().unwrap().len(), 6);

    write(
        d,
        "empty.json",
        r#"{"schema": "stepreplay-baseline/1", "modes": ["chained", "per-step"], "scenarios": {}, "scores": {}}"#,
    );
    let run = stepreplay(d)
        .args([
            "run",
            "scenarios",
            "--report-dir",
            "empty-run",
            "--baseline",
            "empty.json",
        ])
        .run();
    run.check(
        run.code == 2 && run.stderr.contains("holds no scenarios"),
        "an empty baseline exits 2",
    );
    assert!(!d.join("empty-run").exists(), "refused before the replay");
}

/// A scenario of the baseline that the run lacks is a regression (`missing`); one the
/// baseline lacks is listed as new, not a regression. The report names the baseline's hash.
#[test]
fn a_scenario_gone_from_the_run_regresses_and_a_new_one_is_listed() {
    let refs = references();
    let dir = mini("missing-new");
    let d = dir.path();
    std::fs::write(d.join("whole.json"), &refs.baseline).unwrap();
    let run = stepreplay(d)
        .arg("run")
        .args(OLD_RUN)
        .args(["--report-dir", "part", "--baseline", "whole.json"])
        .run();
    run.check(run.code == 1, "missing scenarios regress");
    let r = json(&d.join("part/regressions.json"));
    let missing: Vec<&str> = r["regressions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["kind"] == "missing")
        .map(|g| g["scenario"].as_str().unwrap())
        .collect();
    assert_eq!(missing.len(), 4, "{r}");
    assert!(missing.contains(&"mini-floors"), "{missing:?}");
    let hash = r["baseline"].as_str().unwrap();
    assert!(hash.starts_with("fnv1a64:"), "{hash}");
    assert_eq!(
        json(&d.join("part/manifest.json"))["baseline"]["hash"],
        hash
    );

    stepreplay(d)
        .args([
            "baseline",
            "accept",
            "--report",
            "part/report.json",
            "--out",
            "part.json",
        ])
        .expect_code(0);
    stepreplay(d)
        .args([
            "run",
            "scenarios",
            "--report-dir",
            "all",
            "--baseline",
            "part.json",
        ])
        .expect_code(0);
    let r = json(&d.join("all/regressions.json"));
    assert_eq!(r["new"].as_array().unwrap().len(), 4, "{r}");
    assert_eq!(r["compared"], 2);
}

/// `baseline accept` never replaces a baseline it cannot read unless told to (`--force`),
/// and then replaces it whole.
#[test]
fn accept_leaves_an_unreadable_baseline_alone_unless_forced() {
    let refs = references();
    let dir = mini("accept-unreadable");
    let d = dir.path();
    std::fs::create_dir_all(d.join("reports")).unwrap();
    copy_new_set(&refs, &d.join("reports"));
    let cut = &refs.baseline[..refs.baseline.len() / 2];
    std::fs::write(d.join("reports/baseline.json"), cut).unwrap();
    let run = stepreplay(d).args(["baseline", "accept"]).run();
    run.check(
        run.code == 2 && run.stderr.contains("cannot be read") && run.stderr.contains("--force"),
        "an unreadable baseline is left alone",
    );
    assert_eq!(std::fs::read(d.join("reports/baseline.json")).unwrap(), cut);
    let run = stepreplay(d)
        .args(["baseline", "accept", "--force"])
        .expect_code(0);
    run.check(run.stdout.contains("--force"), "the replacement is said");
    assert_eq!(
        std::fs::read(d.join("reports/baseline.json")).unwrap(),
        refs.baseline
    );
}

/// A second run into a folder retires the first run's set before writing its own: no
/// `regressions.json` of an earlier run with a baseline stays beside a run without one.
#[test]
fn a_new_run_retires_the_old_set_and_publishes_a_manifest_last() {
    let refs = references();
    let dir = seeded("retire", &refs);
    let d = dir.path();
    stepreplay(d)
        .args(["run", "scenarios", "--report-dir", "reports", "-q"])
        .expect_code(0);
    let reports = d.join("reports");
    assert!(!reports.join("regressions.json").exists());
    let m = json(&reports.join("manifest.json"));
    assert_eq!(m["complete"], true);
    let files: Vec<&String> = m["files"].as_object().unwrap().keys().collect();
    assert_eq!(
        files,
        ["index.html", "junit.xml", "report.json", "summary.md"]
    );
    for (name, f) in m["files"].as_object().unwrap() {
        let len = std::fs::metadata(reports.join(name)).unwrap().len();
        assert_eq!(f["bytes"], len, "{name}");
    }
    let hidden: Vec<String> = std::fs::read_dir(&reports)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "{hidden:?}");
}

/// A bridge scenario that cannot be used fails alone too; the plan scenarios are judged.
#[test]
fn a_broken_bridge_scenario_fails_alone() {
    let dir = mini("broken-bridge");
    let d = dir.path();
    write(
        d,
        "scenarios/bridge-broken.json",
        r#"{"schema": "stepreplay-bridge-scenario/1", "id": "bridge-broken", "commands": 7}"#,
    );
    let run = stepreplay(d)
        .args(["run", "scenarios", "--report-dir", "reports"])
        .run();
    run.check(run.code == 2, "broken input exits 2");
    run.check(
        run.stderr.contains("bridge-broken.json"),
        "the error names the file",
    );
    let reports = d.join("reports");
    assert_every_report_written(&reports, &run);
    let v = verdicts(&reports);
    assert_eq!(v.len(), 7, "{v:?}");
    assert!(!v["bridge-broken"].0);
    assert_eq!(v.values().filter(|(met, _)| *met).count(), 6, "{v:?}");
}

/// One shard report that cannot be read: `merge` names it, merges the shards it could read
/// into a report marked incomplete, writes every report, and exits 2.
#[test]
fn merge_with_one_unreadable_shard_merges_the_rest_and_exits_2() {
    let dir = mini("merge-unreadable");
    let d = dir.path();
    for k in 1..=2 {
        let out = format!("shard-{k}");
        let shard = format!("{k}/2");
        let run = stepreplay(d)
            .args(["run", "scenarios", "--shard", &shard, "--report-dir", &out])
            .run();
        run.check(run.code == 0, "the shard runs clean");
    }
    let whole = verdicts(&d.join("shard-1"));
    write(d, "shard-2/report.json", "{\"schema\": ");
    let run = stepreplay(d)
        .args([
            "merge",
            "--out",
            "merged/report.json",
            "shard-1/report.json",
            "shard-2/report.json",
        ])
        .run();
    run.check(run.code == 2, "an unreadable shard exits 2");
    run.check(
        run.stderr.contains("shard-2/report.json"),
        "the unreadable shard is named",
    );
    run.check(
        run.stdout
            .contains("merged 1 of 2 shards given (incomplete)"),
        "merge says how many shards it read of how many given",
    );
    let merged = d.join("merged");
    assert_every_report_written(&merged, &run);
    assert_red_incomplete(&merged);
    assert_eq!(verdicts(&merged), whole, "the readable shard's verdicts");
    let why = json(&merged.join("report.json"))["incomplete"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(why.contains("shard-2/report.json"), "{why}");
    assert_eq!(json(&merged.join("manifest.json"))["complete"], false);
}

/// `check --recording` over several files: a plan whose replay cannot start (here: the
/// recording is garbled) gets that error as its finding, and every other file is still checked.
#[test]
fn check_carries_on_past_a_plan_whose_replay_cannot_start() {
    let dir = mini("check-broken-replay");
    let d = dir.path();
    copy_tree(&d.join("recordings/mini"), &d.join("recordings/garbled"));
    write(d, "recordings/garbled/recording.json", "{\"schema\": ");
    write(
        d,
        "typo.json",
        r#"{"schema": "foxstep-step-plan/1", "steps": 3}"#,
    );
    let run = stepreplay(d)
        .args([
            "check",
            "--format",
            "json",
            "--recording",
            "recordings/garbled",
            "scenarios/mini/plan.json",
            "typo.json",
        ])
        .run();
    run.check(run.code == 2, "broken input exits 2");
    let files: Vec<Value> = serde_json::Deserializer::from_str(&run.stdout)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(files.len(), 2, "{}", run.stdout);
    let text = |v: &Value| v.to_string();
    run.check(
        text(&files[0]).contains("recording.json"),
        "the plan's finding names the garbled recording",
    );
    run.check(
        text(&files[1]).contains("typo.json"),
        "the other file is checked",
    );
}

/// Waits (up to 20 s) until `child` has claimed `reports`: the earlier set's manifest is gone.
fn until_claimed(reports: &Path, child: &mut std::process::Child) {
    let t = Instant::now();
    while reports.join("manifest.json").exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before its claim"
        );
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "the run never claimed its folder"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A slow run of the whole `mini` suite (a pause after each scenario) into `reports/`.
fn slow_run(d: &Path) -> std::process::Child {
    stepreplay(d)
        .args(["run", "scenarios", "--report-dir", "reports", "-q"])
        .env("STEPREPLAY_TEST_SCENARIO_MS", "150")
        .spawn()
}

/// A second run on a folder a first run is writing refuses at once (exit 3, saying why) and
/// touches nothing: the folder ends with the first run's whole set, its manifest naming that
/// run (id, process, times, command).
#[test]
fn two_overlapping_runs_on_one_folder_never_leave_a_mixed_set() {
    let dir = mini("overlap");
    let d = dir.path();
    let reports = d.join("reports");
    stepreplay(d)
        .args(["run", "failing", "--report-dir", "reports", "-q"])
        .expect_code(1);
    for round in 0..3 {
        let mut first = slow_run(d);
        until_claimed(&reports, &mut first);
        let second = stepreplay(d)
            .args(["run", "failing", "--report-dir", "reports", "-q"])
            .run();
        second.check(second.code == 3, "the second writer is refused");
        second.check(
            second
                .stderr
                .contains("another stepreplay process is writing this folder"),
            "it says why",
        );
        let pid = first.id();
        let out = first.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "round {round}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let manifest = json(&reports.join("manifest.json"));
        let report = json(&reports.join("report.json"));
        assert_eq!(manifest["complete"], true);
        assert_eq!(manifest["scenarios"], 6, "round {round}: {manifest}");
        assert_eq!(
            report["scenarios"].as_array().unwrap().len(),
            6,
            "round {round}"
        );
        assert_eq!(manifest["run"]["pid"], pid, "round {round}: {manifest}");
        let run = &manifest["run"];
        assert!(run["id"].as_str().is_some_and(|s| s.len() == 16), "{run}");
        assert!(
            run["started"].as_str().unwrap() <= run["ended"].as_str().unwrap(),
            "{run}"
        );
        assert!(
            run["command"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a == "scenarios"),
            "{run}"
        );
    }
}

/// `merge` into a folder a run is writing, and `baseline accept` into one, refuse at once
/// (exit 3, saying why and naming `--wait`); with `--wait` each says it waits, blocks until the
/// run ends, then writes: the merge's set is its own, the baseline is written.
#[test]
fn merge_and_baseline_accept_refuse_a_locked_folder_and_wait_with_wait() {
    let dir = mini("lock-writers");
    let d = dir.path();
    let reports = d.join("reports");
    whole_run_accepted(d, "whole/baseline.json");
    for k in ["1", "2"] {
        stepreplay(d)
            .args(["run", "scenarios", "--shard", &format!("{k}/2"), "-q"])
            .args(["--reports", "json", "--report-dir", &format!("part-{k}")])
            .expect_code(0);
    }
    // A set in `reports/` for `until_claimed` to see go.
    stepreplay(d)
        .args(["run", "failing", "--report-dir", "reports", "-q"])
        .expect_code(1);
    let merge = [
        "merge",
        "--out",
        "reports/report.json",
        "part-1/report.json",
        "part-2/report.json",
    ];
    let accept = [
        "baseline",
        "accept",
        "--report",
        "whole/report.json",
        "--out",
        "reports/baseline.json",
    ];
    for writer in [&merge[..], &accept[..]] {
        let mut first = slow_run(d);
        until_claimed(&reports, &mut first);
        let refused = stepreplay(d).args(writer).run();
        refused.check(refused.code == 3, "the second writer is refused");
        refused.check(
            refused
                .stderr
                .contains("another stepreplay process is writing this folder")
                && refused.stderr.contains("--wait"),
            "it says why, and how to wait",
        );
        let mut waiting = stepreplay(d).args(writer).arg("--wait").spawn();
        // Its first line comes before it blocks: the lock was held when it asked.
        let mut err = std::io::BufReader::new(waiting.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        assert!(
            line.starts_with("waiting for another stepreplay process writing `reports`"),
            "{writer:?}: {line}"
        );
        let out = first.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "the run that held the folder");
        let pid = waiting.id();
        let out = waiting.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{writer:?} after waiting");
        if writer[0] == "merge" {
            let manifest = json(&reports.join("manifest.json"));
            assert_eq!(manifest["run"]["pid"], pid, "the set is the merge's");
        } else {
            assert!(reports.join("baseline.json").is_file());
        }
    }
}

/// A way to break the report set in a folder.
type Break<'a> = &'a dyn Fn(&Path);

/// Every reader of a report folder (`merge`, `show-report`, `baseline accept`, `run
/// --last-failed` and `--durations`) reads a set its manifest vouches for, and refuses one
/// whose file changed since, whose manifest says incomplete, or that has none: exit 2, naming
/// the folder and saying to rerun.
#[test]
fn readers_refuse_a_report_set_its_manifest_does_not_vouch_for() {
    let dir = mini("readers");
    let d = dir.path();
    stepreplay(d)
        .args(["run", "scenarios", "--report-dir", "reports", "-q"])
        .expect_code(0);
    stepreplay(d)
        .args(["run", "scenarios", "--shard", "1/1", "--reports", "json"])
        .args(["--report-dir", "part", "-q"])
        .expect_code(0);
    let readers: [&[&str]; 5] = [
        &["merge", "--out", "merged/report.json", "part/report.json"],
        &["show-report", "reports"],
        &["baseline", "accept", "--report", "reports/report.json"],
        &[
            "run",
            "scenarios",
            "--last-failed",
            "--report-dir",
            "reports",
        ],
        &[
            "run",
            "scenarios",
            "--shard",
            "1/2",
            "--durations",
            "reports/junit.xml",
            "--report-dir",
            "timed",
        ],
    ];
    // The set as its run left it is read (and nothing of it written over).
    for (i, reader) in readers.iter().enumerate() {
        let r = stepreplay(d).args(*reader).arg("-q").run();
        r.check(
            !r.stderr.contains("unvouched-report"),
            "a whole set is read",
        );
        r.check(i > 2 || r.code == 0, "merged, shown and accepted");
    }
    let folders = [d.join("reports"), d.join("part")];
    let saved: Vec<(PathBuf, Vec<u8>)> = folders
        .iter()
        .flat_map(|f| ["report.json", "manifest.json"].map(|n| f.join(n)))
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    let restore = || {
        for (p, bytes) in &saved {
            std::fs::write(p, bytes).unwrap();
        }
    };
    let breaks: [(&str, Break); 3] = [
        ("a changed file", &|f| {
            let mut text = std::fs::read_to_string(f.join("report.json")).unwrap();
            text.push('\n');
            std::fs::write(f.join("report.json"), text).unwrap();
        }),
        ("an incomplete manifest", &|f| {
            let mut m = json(&f.join("manifest.json"));
            m["complete"] = false.into();
            m["incomplete"] = "stopped by SIGINT".into();
            std::fs::write(f.join("manifest.json"), m.to_string()).unwrap();
        }),
        ("no manifest", &|f| {
            std::fs::remove_file(f.join("manifest.json")).unwrap();
        }),
    ];
    for (what, broken) in breaks {
        restore();
        folders.iter().for_each(|f| broken(f));
        for reader in readers {
            let r = stepreplay(d).args(reader).arg("-q").run();
            r.check(r.code == 2, &format!("{what}: refused as bad input"));
            r.check(
                r.stderr.contains("unvouched-report")
                    && (r.stderr.contains("set in `reports`")
                        || r.stderr.contains("set in `part`"))
                    && r.stderr.contains("rerun"),
                &format!("{what}: names the folder and what to do"),
            );
        }
    }
}

/// A run killed during its replay, before its report phase, leaves no manifest: the earlier
/// run's files are no longer vouched for as a whole set, so no artifact step publishes them
/// as this run's.
#[test]
fn a_kill_before_the_report_phase_leaves_no_complete_set_of_another_run() {
    let dir = mini("kill-before-report");
    let d = dir.path();
    let reports = d.join("reports");
    stepreplay(d)
        .args(["run", "failing", "--report-dir", "reports", "-q"])
        .expect_code(1);
    assert!(reports.join("manifest.json").exists());
    let mut run = slow_run(d);
    until_claimed(&reports, &mut run);
    std::thread::sleep(Duration::from_millis(100));
    run.kill().unwrap();
    let status = run.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "killed during the replay");
    assert!(
        !reports.join("manifest.json").exists(),
        "no manifest vouches for the old set"
    );
    // The next run owns the folder again: the lock went with the killed process.
    stepreplay(d)
        .args(["run", "failing", "--report-dir", "reports", "-q"])
        .expect_code(1);
    assert_eq!(json(&reports.join("manifest.json"))["complete"], true);
}
