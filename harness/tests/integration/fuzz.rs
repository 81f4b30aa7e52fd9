//! Property tests over every parser: a valid seed of each input kind, mutated (bytes flipped,
//! cut, repeated, JSON tokens dropped in), must give a result or a clear error — never a panic.
//!
//! `FUZZ_CASES` sets the cases per parser (CI runs the default, 64; `just fuzz` runs 5,000).
//! proptest shrinks a failing input and records it in `fuzz.proptest-regressions` beside this
//! file; that file is checked in, so every crasher found stays a regression case.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};
use stepreplay::json::Source;

use crate::util::{TempDir, plans_dir, repo};

pub(crate) fn config() -> Config {
    let cases = std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::SourceParallel(
            "proptest-regressions",
        ))),
        ..Config::default()
    }
}

/// One edit of a seed's bytes; positions wrap around its length.
#[derive(Clone, Debug)]
enum Edit {
    Flip(u32, u8),
    Delete(u32, u8),
    Insert(u32, Vec<u8>),
    Token(u32, &'static str),
    Repeat(u32, u16),
    Truncate(u32),
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "null",
    "true",
    "-1",
    "1e999",
    "0.5",
    "\"\"",
    "\"\\u0000\"",
    "{\"a\":",
    "[[[[[[[[",
    "\u{feff}",
    "\"steps\"",
    "\"schema\"",
    "9007199254740993",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<u32>(), any::<u8>()).prop_map(|(p, b)| Edit::Flip(p, b)),
        (any::<u32>(), any::<u8>()).prop_map(|(p, n)| Edit::Delete(p, n)),
        (any::<u32>(), prop::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(p, b)| Edit::Insert(p, b)),
        (any::<u32>(), prop::sample::select(TOKENS)).prop_map(|(p, t)| Edit::Token(p, t)),
        (any::<u32>(), any::<u16>()).prop_map(|(p, n)| Edit::Repeat(p, n)),
        any::<u32>().prop_map(Edit::Truncate),
    ]
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(edit(), 1..6)
}

fn apply(seed: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for e in edits {
        let at = |p: u32, len: usize| if len == 0 { 0 } else { p as usize % len };
        match e {
            Edit::Flip(p, x) if !b.is_empty() => {
                let i = at(*p, b.len());
                b[i] ^= x | 1;
            }
            Edit::Delete(p, n) if !b.is_empty() => {
                let i = at(*p, b.len());
                let end = (i + *n as usize).min(b.len());
                b.drain(i..end);
            }
            Edit::Insert(p, bytes) => {
                let i = at(*p, b.len() + 1);
                b.splice(i..i, bytes.iter().copied());
            }
            Edit::Token(p, t) => {
                let i = at(*p, b.len() + 1);
                b.splice(i..i, t.bytes());
            }
            Edit::Repeat(p, n) if !b.is_empty() => {
                let i = at(*p, b.len());
                let end = (i + 64).min(b.len());
                let piece = b[i..end].to_vec();
                for _ in 0..(*n % 64) {
                    b.splice(end..end, piece.iter().copied());
                }
            }
            Edit::Truncate(p) => {
                let i = at(*p, b.len() + 1);
                b.truncate(i);
            }
            _ => {}
        }
    }
    b
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn source(path: impl Into<PathBuf>, bytes: &[u8]) -> Source {
    Source::from_text(path, text(bytes))
}

fn seed(path: impl AsRef<Path>) -> Vec<u8> {
    std::fs::read(path.as_ref()).unwrap()
}

/// A fresh folder per case (cases run one after another in a property).
fn case_dir(tag: &str) -> TempDir {
    static N: AtomicUsize = AtomicUsize::new(0);
    TempDir::new(&format!("fuzz-{tag}-{}", N.fetch_add(1, Ordering::Relaxed)))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn foxstep_plans_never_panic(e in edits()) {
        let bytes = apply(&seed(plans_dir().join("seed-mail.json")), &e);
        let report = stepreplay::plan::check::check_source(&source(plans_dir().join("x.json"), &bytes));
        clear(&report)?;
        let _ = stepreplay::plan::plan_from_source(&source(plans_dir().join("x.json"), &bytes));
    }

    #[test]
    fn devthink_plans_never_panic(e in edits()) {
        let bytes = apply(&seed(plans_dir().join("devthink-login.json")), &e);
        let report = stepreplay::plan::check::check_source(&source(plans_dir().join("x.json"), &bytes));
        clear(&report)?;
        let _ = stepreplay::plan::plan_from_source(&source(plans_dir().join("x.json"), &bytes));
    }

    /// A URL built to smuggle a generated host past the origin (a backslash ending the host,
    /// userinfo, a tab the browser strips, a scheme-relative form) is always `outside-origin`
    /// in `check`, whatever the host's letters and case.
    #[test]
    fn smuggled_hosts_never_pass_the_origin_check(
        host in "[a-zA-Z][a-zA-Z0-9-]{0,12}\\.(test|example|com)",
        form in 0usize..8,
    ) {
        let url = match form {
            0 => format!("http://{host}\\@127.0.0.1:8000/login.html"),
            1 => format!("/\\{host}/"),
            2 => format!("\\\\{host}/"),
            3 => format!("ht\ttp://{host}/"),
            4 => format!("http://127.0.0.1:8000@{host}/"),
            5 => format!("//{host}:8000/"),
            6 => format!("http://{host}#@127.0.0.1:8000/"),
            _ => format!("\nhttp:\\\\{host}\\"),
        };
        let mut plan: serde_json::Value =
            serde_json::from_slice(&seed(plans_dir().join("devthink-login.json"))).unwrap();
        plan["steps"][0]["value"] = url.clone().into();
        let text = serde_json::to_string_pretty(&plan).unwrap();
        let report = stepreplay::plan::check::check_source(&source(plans_dir().join("x.json"), text.as_bytes()));
        let refused = report
            .findings
            .iter()
            .any(|f| f.reason == "outside-origin" && f.path.to_string() == "steps[0].value");
        prop_assert!(refused, "{url:?}: {:?}", report.findings);
    }

    /// A browser recording whose DOM file is mutated: it loads or is refused, and when it
    /// loads, its plan's selectors are matched against it.
    #[test]
    fn browser_dom_files_never_panic(e in edits(), selector in "[a-z#.\\[\\]=:>+~ ()*\"'-]{0,24}") {
        let from = repo().join("recordings/devthink-search");
        let dir = case_dir("dom");
        let rec = dir.path();
        crate::util::copy_tree(&from, rec);
        let dom = rec.join("frames/frame_004.dom.json");
        std::fs::write(&dom, apply(&seed(&dom), &e)).unwrap();
        let _ = stepreplay::recording::dom::load_dom(&dom);
        // A DOM the edits broke is refused; the selectors are then tried on the real one.
        let loaded = stepreplay::recording::load_recording(rec)
            .or_else(|_| stepreplay::recording::load_recording(&from));
        if let Ok(r) = loaded {
            let mut plan = stepreplay::plan::load_plan(&repo().join("scenarios/devthink-search-extract/plan.json")).unwrap();
            for step in &mut plan.steps {
                if let Some(t) = step.target.as_mut() {
                    t.selector = Some(selector.clone());
                }
            }
            let sc: stepreplay::scenario::ScenarioFile = serde_json::from_str(
                &std::fs::read_to_string(repo().join("scenarios/devthink-search-extract.json")).unwrap(),
            ).unwrap();
            let prep = stepreplay::replay::Prepared::new(&r);
            for mode in [stepreplay::replay::Mode::Chained, stepreplay::replay::Mode::PerStep] {
                let trace = stepreplay::replay::replay(&plan, &prep, &sc, mode);
                prop_assert!(!trace.events.is_empty());
            }
        }
    }

    #[test]
    fn scenario_files_never_panic(e in edits()) {
        let dir = repo().join("harness/tests/fixtures/mini/scenarios");
        let bytes = apply(&seed(dir.join("mini-completed.json")), &e);
        let report = stepreplay::scenario::check_scenario(&source(dir.join("fuzzed.json"), &bytes));
        clear(&report)?;
    }

    #[test]
    fn recordings_and_ax_snapshots_never_panic(e in edits(), ax in edits()) {
        let from = repo().join("harness/tests/fixtures/mini/recordings/mini");
        let dir = case_dir("rec");
        let rec = dir.path();
        std::fs::create_dir_all(rec.join("frames")).unwrap();
        for f in std::fs::read_dir(from.join("frames")).unwrap() {
            let f = f.unwrap();
            std::fs::copy(f.path(), rec.join("frames").join(f.file_name())).unwrap();
        }
        std::fs::write(rec.join("recording.json"), apply(&seed(from.join("recording.json")), &e)).unwrap();
        std::fs::write(rec.join("frames/f0.ax.json"), apply(&seed(from.join("frames/f0.ax.json")), &ax)).unwrap();
        if let Ok(r) = stepreplay::recording::load_recording(rec) {
            for f in &r.frames {
                let _ = f.pixels();
            }
        }
        let _ = stepreplay::recording::load_ax(&rec.join("frames/f0.ax.json"));
    }

    #[test]
    fn png_files_never_panic(e in edits(), header in prop::collection::vec(any::<u8>(), 13)) {
        let dir = case_dir("png");
        let good = repo().join("harness/tests/fixtures/mini/recordings/mini/frames/f0.png");
        let mut bytes = apply(&seed(&good), &e);
        // Half the cases keep a valid frame and CRC with a random header, to reach the decoder.
        if header[0] % 2 == 0 {
            bytes = with_header(&seed(&good), &header);
        }
        let bad = dir.path().join("x.png");
        std::fs::write(&bad, &bytes).unwrap();
        let masks = stepreplay::diff::Masks::new();
        let opts = stepreplay::diff::Options::default();
        for image in [None, Some(&masks)] {
            let _ = stepreplay::diff::files::diff_files(&good, &bad, &opts, image);
            let _ = stepreplay::diff::files::diff_files(&bad, &bad, &opts, image);
        }
    }

    #[test]
    fn bridge_commands_never_panic(e in edits()) {
        let dir = case_dir("bridge");
        stepreplay::bridge::init(dir.path(), stepreplay::bridge::State::default()).unwrap();
        let command = br#"{"schemaVersion": 2, "commandID": "a1111111-1111-4111-8111-111111111111", "verb": "createRoutine", "payload": {"name": "Core", "steps": [{"workoutID": "bridge", "workSeconds": 30, "sets": 3, "setRestSeconds": 10, "restAfterSeconds": 15}]}}"#;
        std::fs::write(dir.path().join("inbox/01.json"), apply(command, &e)).unwrap();
        let report = stepreplay::bridge::sweep(dir.path()).unwrap();
        prop_assert_eq!(report.files.len(), 1, "every command gets one outcome");
        prop_assert_eq!(std::fs::read_dir(dir.path().join("inbox")).unwrap().count(), 0);
    }

    #[test]
    fn inbox_jobs_never_panic(e in edits()) {
        let dir = case_dir("jobs");
        let inbox = dir.path().join("inbox");
        std::fs::create_dir_all(&inbox).unwrap();
        let job = br#"{"schemaVersion": 1, "commandID": "00000001-0000-4000-8000-000000000000", "verb": "check", "payload": {"plan": "seed-mail.json"}}"#;
        std::fs::write(inbox.join("01.json"), apply(job, &e)).unwrap();
        let mut opts = stepreplay::serve::ServeOptions::new(plans_dir());
        opts.once = true;
        let stop = std::sync::atomic::AtomicBool::new(false);
        let summary = stepreplay::serve::serve(dir.path(), &opts, &stop).unwrap();
        prop_assert_eq!(summary.ran + summary.duplicates, 1, "every job gets one outcome");
        prop_assert_eq!(std::fs::read_dir(&inbox).unwrap().count(), 0);
    }
}

/// A report a person can act on: a failing one names at least one finding, and every finding
/// has its reason code and a message.
fn clear(report: &stepreplay::plan::check::CheckReport) -> Result<(), TestCaseError> {
    if report.exit_code() != 0 {
        prop_assert!(
            !report.findings.is_empty(),
            "a failing check names no finding"
        );
    }
    for f in &report.findings {
        prop_assert!(!f.reason.is_empty() && !f.message.is_empty(), "{f:?}");
    }
    Ok(())
}

/// `png` with its IHDR data replaced by `header` (CRC recomputed): a well-formed file whose
/// size, depth and colour type are anything.
fn with_header(png: &[u8], header: &[u8]) -> Vec<u8> {
    let mut out = png.to_vec();
    // IHDR is the first chunk: length at 8, type at 12, data at 16..29, CRC at 29..33.
    out[16..29].copy_from_slice(&header[..13]);
    let mut h = crc32fast::Hasher::new();
    h.update(&out[12..29]);
    out[29..33].copy_from_slice(&h.finalize().to_be_bytes());
    out
}
