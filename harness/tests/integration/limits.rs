//! Resources a gate must survive: a memory limit ends the run with its own exit code and an
//! incomplete manifest naming the limit (never an abort, never a scenario's verdict), and a
//! baseline far larger than the run is compared in memory that follows the run.

#![cfg(target_os = "linux")]

use std::io::Write as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::util::{TempDir, copy_tree, have_tool, repo, whole_run_accepted};

/// The exit code of a run a resource limit stopped (docs/ci.md).
const LIMIT_EXIT: i32 = 4;

/// Runs the binary in `cwd` (under `prlimit --as=BYTES` when given) and returns its exit
/// code, signal, stderr and peak resident set (from `wait4`, this child's alone).
fn measured(
    cwd: &Path,
    args: &[&str],
    address_space: Option<u64>,
) -> (Option<i32>, Option<i32>, String, u64) {
    let bin = env!("CARGO_BIN_EXE_stepreplay");
    let mut cmd = match address_space {
        Some(bytes) => {
            let mut c = Command::new("prlimit");
            c.arg(format!("--as={bytes}")).arg("--").arg(bin);
            c
        }
        None => Command::new(bin),
    };
    // Reaped by `wait4` below, which also gives its own peak memory.
    #[allow(clippy::zombie_processes)]
    let mut child = cmd
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: waits for our own child; wait4 writes into the status and usage we pass.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid, "wait4");
    let status = std::process::ExitStatus::from_raw(status);
    let stderr = reader.join().unwrap();
    (
        status.code(),
        status.signal(),
        stderr,
        usage.ru_maxrss as u64 * 1024,
    )
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A baseline of the `mini` suite plus a million scenarios the run does not have, written
/// an entry at a time (60 MB).
fn million_entry_baseline(d: &Path) -> std::path::PathBuf {
    whole_run_accepted(d, "small.json");
    let small = std::fs::read_to_string(d.join("small.json")).unwrap();
    let at = small.find("\"scenarios\": {").expect("canonical baseline") + "\"scenarios\": {".len();
    let path = d.join("big.json");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    out.write_all(&small.as_bytes()[..at]).unwrap();
    for i in 0..1_000_000 {
        write!(
            out,
            "\"gone-{i:07}\":{{\"met\":true,\"outcome\":\"completed\",\"scores\":{{}}}},"
        )
        .unwrap();
    }
    out.write_all(&small.as_bytes()[at..]).unwrap();
    out.flush().unwrap();
    path
}

/// The gate's peak memory does not grow with the baseline: a run of the `mini` suite compared
/// with a baseline of a million more scenarios peaks within 48 MiB of the same run compared with
/// the suite's own baseline, and its `regressions.json` names 20 of the missing and counts the
/// rest.
#[test]
fn a_million_entry_baseline_is_compared_in_bounded_memory() {
    let dir = TempDir::new("million-baseline");
    let d = dir.path();
    copy_tree(&repo().join("harness/tests/fixtures/mini"), d);
    let big = million_entry_baseline(d);
    let run = |baseline: &str, out: &str| {
        measured(
            d,
            &[
                "run",
                "scenarios",
                "-q",
                "--baseline",
                baseline,
                "--report-dir",
                out,
            ],
            None,
        )
    };
    let (code, _, err, small_peak) = run("small.json", "r-small");
    assert_eq!(code, Some(0), "{err}");
    let (code, _, err, big_peak) = run(big.to_str().unwrap(), "r-big");
    assert_eq!(code, Some(1), "the missing scenarios regress: {err}");
    eprintln!(
        "peak RSS: {} MiB with the suite's baseline, {} MiB with 1,000,000 more entries ({} MiB file)",
        small_peak >> 20,
        big_peak >> 20,
        std::fs::metadata(&big).unwrap().len() >> 20
    );
    assert!(
        big_peak <= small_peak + (48 << 20),
        "peak RSS {} MiB against {} MiB",
        big_peak >> 20,
        small_peak >> 20
    );
    let r = json(&d.join("r-big/regressions.json"));
    assert_eq!(r["missing"], 1_000_000);
    let named = r["regressions"].as_array().unwrap();
    assert_eq!(named.len(), 21, "20 named and one line for the rest");
    assert!(
        std::fs::metadata(d.join("r-big/regressions.json"))
            .unwrap()
            .len()
            < 64 << 10
    );
}

/// Under `ulimit -v` of 100, 200 and 400 MB a run of the bundled suite either finishes as it
/// would without the limit or ends with exit 4 and a manifest that says incomplete and names
/// the limit: never an abort (134), never a scenario "not as expected" (1) or broken (2).
#[test]
fn a_memory_limit_is_a_run_error_with_an_incomplete_manifest() {
    if !have_tool("prlimit", "apt-get install -y util-linux") {
        return;
    }
    let dir = TempDir::new("ulimit");
    let d = dir.path();
    copy_tree(&repo().join("scenarios"), &d.join("scenarios"));
    copy_tree(&repo().join("recordings"), &d.join("recordings"));
    let mut limited = 0;
    for mb in [100u64, 200, 400] {
        let out = format!("r-{mb}");
        let (code, signal, err, _) = measured(
            d,
            &[
                "run",
                "scenarios",
                "-q",
                "--jobs",
                "2",
                "--report-dir",
                &out,
            ],
            Some(mb << 20),
        );
        assert_eq!(signal, None, "{mb} MB: killed by a signal: {err}");
        match code {
            Some(0) => {}
            Some(LIMIT_EXIT) => {
                limited += 1;
                assert!(err.contains("out of memory"), "{mb} MB: {err}");
                let manifest = d.join(&out).join("manifest.json");
                if manifest.exists() {
                    let m = json(&manifest);
                    assert_eq!(m["complete"], false, "{mb} MB: {m}");
                    assert_eq!(m["limit"], "memory", "{mb} MB: {m}");
                    assert!(
                        m["incomplete"].as_str().unwrap().contains("ulimit -v"),
                        "{mb} MB: {m}"
                    );
                } else {
                    assert!(
                        !d.join(&out).join("report.json").exists(),
                        "{mb} MB: reports without a manifest: {err}"
                    );
                }
            }
            other => {
                panic!("{mb} MB: exit {other:?}, neither a result nor the limit's code: {err}")
            }
        }
    }
    assert!(limited > 0, "no limit was low enough to be reached");
}
