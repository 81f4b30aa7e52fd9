//! `stepreplay run [PATHS…]`: replay scenarios (or one shard of them), show progress, write
//! every report format, and gate on the baseline when one is given.

use std::io::{IsTerminal, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use stepreplay::evidence::{FromRecordings, Pictures};
use stepreplay::output::FileSet;
use stepreplay::perturb::{Perturbation, STANDARD};
use stepreplay::replay::{Event, Mode};
use stepreplay::report::{
    Baseline, Entries, Failure, RegressionReport, Report, ReportRef, ScenarioReport, Spill,
    Timings, Totals, compare, github_annotation, to_junit_timed, to_markdown, write_captures,
    write_html, write_json, write_json_to,
};
use stepreplay::result::ScenarioResult;
use stepreplay::scenario::adhoc_scenario;
use stepreplay::score::COLUMNS;
use stepreplay::shard::Shard;
use stepreplay::suite::{
    LoadedSuite, RunOptions, broken_results, discover, load_suite, run_bridge, run_until,
};
use stepreplay::text::{plural, word};
use stepreplay::{Error, InputError, Reason};

use super::{Global, OutputFormat};

/// Test hook: wait this many milliseconds after each scenario, so a test can stop a run
/// in the middle of its replay.
const SLOW_ENV: &str = "STEPREPLAY_TEST_SCENARIO_MS";

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stepreplay run                                    # the suite in scenarios/
  stepreplay run scenarios/mail-*.json --jobs 2
  stepreplay run plan.json --recording recordings/mail-send-reminder --answers answers.json
  stepreplay run --shard 1/4 --reports json --report-dir reports/shard-1
  stepreplay run --baseline reports/baseline.json --summary \"$GITHUB_STEP_SUMMARY\"")]
pub struct Args {
    /// Scenario files or folders (default: `scenarios`); with `--recording`, one plan file
    /// (or skill-export folder).
    paths: Vec<PathBuf>,
    /// Replay the one plan given against this recording folder, without a scenario file; the
    /// run is expected to complete.
    #[arg(long, value_name = "DIR")]
    recording: Option<PathBuf>,
    /// With `--recording`: a JSON file of `inputs` and `answers`, as a scenario holds them.
    #[arg(long, value_name = "FILE", requires = "recording")]
    answers: Option<PathBuf>,
    /// Scenarios replayed at once (default: every core).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Replay modes; the first decides pass or fail.
    #[arg(long, value_enum, default_value = "both")]
    mode: ModeArg,
    /// Where to write the reports.
    #[arg(long, default_value = "reports")]
    report_dir: PathBuf,
    /// Perturbations to replay every scenario under: `default` (the standard set) or names
    /// separated by commas (`move-window,dark-theme`).
    #[arg(long)]
    perturb: Option<String>,
    /// Where browser steps that read text get it: `dom`, the recorded DOM's text (exact, the
    /// same on every machine), or `tesseract`, OCR of the element's box in the screenshot
    /// (Debian's tesseract-ocr). Reports say which.
    #[arg(long, value_enum, default_value = "dom")]
    ocr: stepreplay::replay::Ocr,
    /// Run only part `k` of `n` (1-based): scenarios whose id hashes to it. Join the parts'
    /// reports with `stepreplay merge`.
    #[arg(long, value_name = "K/N", value_parser = |s: &str| s.parse::<Shard>().map_err(|e| e.message))]
    shard: Option<Shard>,
    /// Write each acting step's before, after and diff PNGs here, and an overlay of its target
    /// on the before frame (`DIR/<scenario>/<mode>/<NN>-<step>-{before,after,diff,overlay}.png`);
    /// the HTML page then shows the diff images.
    #[arg(long, value_name = "DIR")]
    captures: Option<PathBuf>,
    /// What to print: lines for people, or the whole `report.json` on standard output for a
    /// script (the report files are written either way; `--reports` chooses them).
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
    #[command(flatten)]
    out: OutputArgs,
}

/// The report formats and the gate, shared by `run` and `merge`.
#[derive(Debug, clap::Args)]
pub struct OutputArgs {
    /// Report files to write into the report folder (comma-separated).
    #[arg(
        long = "reports",
        id = "report_files",
        value_enum,
        value_delimiter = ',',
        default_value = "json,junit,markdown,html"
    )]
    report_files: Vec<Format>,
    /// Also write the Markdown summary here (e.g. "$GITHUB_STEP_SUMMARY").
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
    /// Write the HTML page (and its images) here instead of the report folder.
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// Compare with this baseline: exit 1 on any regression, and write `regressions.json`.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// How far a score may fall below its baseline before it counts as a regression.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = super::non_negative)]
    tolerance: f64,
}

impl OutputArgs {
    fn wants_html(&self) -> bool {
        self.report_files.contains(&Format::Html) || self.html.is_some()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Json,
    Junit,
    Markdown,
    Html,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ModeArg {
    Chained,
    PerStep,
    Both,
}

/// Where `run`'s lines go. Standard output carries lines for people, or only the JSON
/// report under `--format json` (then failures and regressions go to standard error); `-q`
/// keeps the failures and the last line.
#[derive(Clone, Copy)]
pub struct Say {
    human: bool,
    quiet: bool,
    color: bool,
}

impl Say {
    pub fn new(g: &Global, format: OutputFormat) -> Say {
        let human = format == OutputFormat::Human;
        Say {
            human,
            quiet: g.quiet(),
            color: human && g.color(),
        }
    }

    /// A line a person reads: progress, tables, notes.
    fn info(&self, line: impl std::fmt::Display) {
        if self.human && !self.quiet {
            println!("{line}");
        }
    }

    /// A line nobody should miss: a failure, a regression, the verdict.
    fn verdict(&self, line: impl std::fmt::Display) {
        if self.human {
            println!("{line}");
        } else {
            eprintln!("{line}");
        }
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}

/// ` · 0.31 s`: shown, never written to a deterministic report.
fn took(r: &ScenarioResult) -> String {
    format!(" · {:.2} s", r.duration.as_secs_f64())
}

fn line(r: &ScenarioResult, say: &Say) -> String {
    let verdict = if r.met {
        say.paint("32", "ok  ")
    } else {
        say.paint("1;31", "FAIL")
    };
    let Some(trace) = r.traces().first() else {
        let why = r
            .mismatch
            .as_ref()
            .map(|m| format!(" — {}", m.text))
            .unwrap_or_default();
        return format!("{verdict} {:<36} bridge batch{}{why}", r.id, took(r));
    };
    let (outcome, reason, _) = trace.outcome();
    let mut got = match reason {
        Some(rs) => format!("{} ({})", word(&outcome), word(&rs)),
        None => word(&outcome),
    };
    let unjudged = trace
        .events
        .iter()
        .any(|e| matches!(e, Event::Done { judged: false, .. }));
    if unjudged {
        got.push_str(", done not judged");
    }
    got.push_str(&took(r));
    if r.met {
        return format!("{verdict} {:<36} {got}", r.id);
    }
    // Where to look: the step (or plan error) in the plan file, and why, in words.
    let at = ScenarioReport::of(r)
        .failure(trace.mode)
        .map(|f| format!("\n     at {f}"))
        .unwrap_or_default();
    format!("{verdict} {:<36} {got}{at}", r.id)
}

/// Live progress: one redrawn status line on a terminal (done, failing, ETA), with failures
/// printed above it; plain lines otherwise. Wall-clock time is shown, never written.
struct Progress {
    live: bool,
    say: Say,
    total: usize,
    start: Instant,
    state: Mutex<(usize, usize)>,
}

impl Progress {
    fn new(total: usize, say: Say) -> Progress {
        // Both streams on a terminal: `run | tee log` gets plain lines.
        let live = say.human
            && !say.quiet
            && std::io::stderr().is_terminal()
            && std::io::stdout().is_terminal();
        if live {
            eprint!("[0/{total}] replaying…");
        }
        Progress {
            live,
            say,
            total,
            start: Instant::now(),
            state: Mutex::new((0, 0)),
        }
    }

    fn done(&self, r: &ScenarioResult) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        st.0 += 1;
        st.1 += usize::from(!r.met);
        if !self.live {
            if r.met {
                self.say.info(line(r, &self.say));
            } else {
                self.say.verdict(line(r, &self.say));
            }
            return;
        }
        let mut err = std::io::stderr().lock();
        if !r.met {
            let _ = writeln!(err, "\r\x1b[K{}", line(r, &self.say));
        }
        let elapsed = self.start.elapsed().as_secs_f64();
        let eta = elapsed / st.0 as f64 * self.total.saturating_sub(st.0) as f64;
        let _ = write!(
            err,
            "\r\x1b[K[{}/{}] {} failing · {:.0}s elapsed · ETA {:.0}s · {}",
            st.0, self.total, st.1, elapsed, eta, r.id
        );
        let _ = err.flush();
    }

    fn finish(&self) {
        if self.live {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}

/// The baseline a run is gated on, read once, before the replay starts: a baseline that
/// changes during the run does not change the verdict, and the reports name the bytes judged
/// against by their hash.
pub struct Gate {
    baseline: Baseline,
    hash: String,
    path: PathBuf,
}

/// The baseline to gate on, loaded. Called before a replay starts, so a missing, unreadable or
/// empty baseline is refused at once rather than after the whole run (clap refuses a bad
/// `--tolerance`).
pub fn baseline(out: &OutputArgs) -> Result<Option<Gate>, Error> {
    let Some(path) = &out.baseline else {
        return Ok(None);
    };
    let (baseline, hash) = Baseline::load_hashed(path)?;
    if baseline.scenarios.is_empty() {
        return Err(InputError::new(
            path,
            Reason::BaselineMismatch,
            "the baseline holds no scenarios, so a run compared with it compares nothing",
        )
        .hint("accept a run of the suite: stepreplay baseline accept")
        .into());
    }
    Ok(Some(Gate {
        baseline,
        hash,
        path: path.clone(),
    }))
}

/// Every file a report folder's set may hold (`report.json` may be named otherwise by
/// `merge --out`): each is retired before a new set is written, so no file of an earlier run
/// stays beside the new ones.
const SET_FILES: [&str; 5] = [
    "report.json",
    "junit.xml",
    "summary.md",
    "index.html",
    "regressions.json",
];

/// Writes the chosen formats of `report` into `dir` as one set (see [`FileSet`]), compares
/// with the baseline, prints the regressions; returns the exit code: 1 when a scenario missed
/// its expectation or regressed, 2 when a scenario's input was broken. `json` names the
/// `report.json` to write in `dir`, if any. A baseline that shares no scenario with the run
/// is an error, after the reports are written.
#[allow(clippy::too_many_arguments)]
pub fn write_outputs(
    report: ReportRef,
    timings: &Timings,
    pictures: &dyn Pictures,
    dir: &Path,
    json: Option<&str>,
    out: &OutputArgs,
    gate: Option<&Gate>,
    say: &Say,
) -> Result<u8, Error> {
    let regressions: Option<RegressionReport> = match gate {
        Some(g) => {
            let mut r = compare(&g.baseline, report, out.tolerance)?;
            r.baseline = Some(g.hash.clone());
            Some(r)
        }
        None => None,
    };
    let has = |f: Format| out.report_files.contains(&f);
    let names: Vec<&str> = SET_FILES.iter().copied().chain(json).collect();
    let mut set = FileSet::begin(dir, &names)?;
    if let Some(name) = json {
        write_json(report, &dir.join(name))?;
        set.added(name)?;
    }
    if has(Format::Junit) {
        set.write(
            "junit.xml",
            to_junit_timed(report, regressions.as_ref(), timings)?,
        )?;
    }
    let md = to_markdown(report, regressions.as_ref())?;
    if has(Format::Markdown) {
        set.write("summary.md", &md)?;
    }
    if out.wants_html() {
        let html_dir = out.html.as_deref().unwrap_or(dir);
        let o = write_html(report, regressions.as_ref(), pictures, html_dir)?;
        if html_dir == dir {
            set.added("index.html")?;
        }
        if !say.quiet {
            for m in &o.missing {
                eprintln!("note: frame not found for the HTML report: {m}");
            }
        }
    }
    let mut code = u8::from(!report.head.all_met());
    let mut broken = 0usize;
    report.entries.each(&mut |s| {
        broken += usize::from(s.broken_input());
        Ok(())
    })?;
    if broken > 0 {
        code = 2;
    }
    let mut about = serde_json::Map::new();
    about.insert("complete".into(), report.head.incomplete.is_none().into());
    if let Some(why) = &report.head.incomplete {
        about.insert("incomplete".into(), why.clone().into());
    }
    about.insert("scenarios".into(), report.entries.count().into());
    about.insert("broken_inputs".into(), broken.into());
    if let Some(r) = &regressions {
        set.write("regressions.json", r.to_json())?;
        code = code.max(u8::from(!r.regressions.is_empty()));
        print_regressions(r, say);
        if let Some(g) = gate {
            about.insert(
                "baseline".into(),
                serde_json::json!({ "file": g.path.display().to_string(), "hash": g.hash }),
            );
        }
    }
    // Last: the manifest says the set is whole.
    set.finish(about)?;
    if let Some(path) = &out.summary {
        // Appended, so several summaries can share `$GITHUB_STEP_SUMMARY`.
        stepreplay::output::append(path, md.as_bytes())?;
    }
    if let (Some(r), Some(g)) = (&regressions, gate)
        && r.compared == 0
        && !(report.head.shard.is_some() && report.entries.count() == 0)
    {
        return Err(InputError::new(
            &g.path,
            Reason::BaselineMismatch,
            format!(
                "none of the baseline's {} scenarios is in this run, so nothing was compared",
                g.baseline.scenarios.len()
            ),
        )
        .hint("is it another suite's baseline? accept one from this suite: stepreplay baseline accept")
        .into());
    }
    Ok(code)
}

/// One line per scenario that fell below its baseline, the root cause first.
fn print_regressions(r: &RegressionReport, say: &Say) {
    if r.regressions.is_empty() {
        say.info("no regressions against the baseline");
        return;
    }
    let groups = r.by_scenario();
    say.verdict(format!(
        "{} against the baseline, in {}:",
        plural(r.regressions.len(), "regression", "regressions"),
        plural(groups.len(), "place", "places")
    ));
    for (scenario, gs) in groups {
        let (first, rest) = gs.split_first().expect("a group has one");
        say.verdict(format!(
            "  {}: {}",
            scenario.unwrap_or("(all scenarios)"),
            first.line()
        ));
        for g in rest {
            say.verdict(format!("      {}", g.line()));
        }
    }
}

pub fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let say = Say::new(g, args.format);
    let modes = match args.mode {
        ModeArg::Chained => vec![Mode::Chained],
        ModeArg::PerStep => vec![Mode::PerStep],
        ModeArg::Both => vec![Mode::Chained, Mode::PerStep],
    };
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("scenarios")]
    } else {
        args.paths
    };
    let gate = baseline(&args.out)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let perturb = match args.perturb.as_deref() {
        None => Vec::new(),
        Some(list) => parse_perturbations(list)?,
    };
    if args.ocr == stepreplay::replay::Ocr::Tesseract && !have_tesseract() {
        return Err(stepreplay::InputError::new(
            "--ocr",
            stepreplay::Reason::InvalidArgument,
            "tesseract is not installed",
        )
        .hint("install the Debian packages tesseract-ocr and tesseract-ocr-eng, or use --ocr dom")
        .into());
    }
    let opts = RunOptions {
        jobs,
        modes: modes.clone(),
        perturb,
        ocr: args.ocr,
    };
    let suite = match &args.recording {
        Some(rec) => {
            let [plan] = paths.as_slice() else {
                return Err(super::usage(
                    InputError::new(
                        "--recording",
                        Reason::InvalidArgument,
                        format!("replays one plan; {} paths given", paths.len()),
                    )
                    .hint("stepreplay run PLAN --recording DIR [--answers FILE]"),
                ));
            };
            let sc = adhoc_scenario(plan, rec, args.answers.as_deref())?;
            LoadedSuite {
                all_ids: vec![sc.file.id.clone()],
                scenarios: vec![sc],
                bridge: Vec::new(),
                broken: Vec::new(),
            }
        }
        None => load_suite(&discover(&paths)?, args.shard)?,
    };
    // A run that replays nothing proves nothing: it must not pass (an empty shard of a
    // non-empty suite is fine, its siblings run the scenarios).
    if suite.scenarios.is_empty()
        && suite.bridge.is_empty()
        && suite.broken.is_empty()
        && args.shard.is_none()
    {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(InputError::new(
            &paths[0],
            Reason::NoScenarios,
            format!("no scenarios to run under {}", shown.join(", ")),
        )
        .hint("scenario files have \"schema\": \"stepreplay-scenario/1\"; name a suite folder or scenario files")
        .into());
    }
    let total = suite.scenarios.len() + suite.bridge.len() + suite.broken.len();
    // From here a Ctrl-C or SIGTERM stops starting scenarios and writes what was judged.
    super::stop::install_stop_handler();
    let progress = Progress::new(total, say);
    let mut bridge = run_bridge(&suite.bridge, &modes);
    bridge.extend(broken_results(&suite.broken, &modes));
    for r in &bridge {
        progress.done(r);
    }
    // Each result is folded into its report entry as it finishes, added to the totals, written
    // to a spill file in the report folder and dropped with its trace: what is held at the end
    // is the totals and an index, so peak memory follows the scenarios in flight, not the suite.
    let spilling = Mutex::new((Spill::create(&args.report_dir)?, Totals::new(&modes)));
    // Broken inputs are also said as errors on standard error, as a script expects; one plan
    // replayed with `--recording` has nothing else to judge, so its broken input is the
    // command's error, as before any replay.
    let broken_inputs = Mutex::new(Vec::new());
    let fold = |r: ScenarioResult| -> Result<(String, Duration), Error> {
        if let Some(e) = r.broken_input() {
            broken_inputs
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(e.clone());
        }
        let entry = ScenarioReport::of(&r);
        let bytes = Spill::bytes(&entry)?;
        let mut st = spilling.lock().unwrap_or_else(|p| p.into_inner());
        st.1.add(&entry);
        st.0.push_bytes(&entry, &bytes)?;
        Ok((r.id, r.duration))
    };
    let slow = std::env::var(SLOW_ENV)
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis);
    let mut results = run_until(
        suite.scenarios,
        &opts,
        &super::stop::STOP,
        &|r| {
            progress.done(r);
            if let Some(d) = slow {
                std::thread::sleep(d);
            }
        },
        &fold,
    )?;
    results.extend(bridge.into_iter().map(fold));
    let mut results = results.into_iter().collect::<Result<Vec<_>, Error>>()?;
    let mut broken_inputs = broken_inputs
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    if args.recording.is_some()
        && let Some(e) = broken_inputs.pop()
    {
        progress.finish();
        return Err(e.into());
    }
    results.sort();
    progress.finish();
    broken_inputs.sort_by(|a, b| a.file.cmp(&b.file));
    for e in &broken_inputs {
        eprintln!("{} {e}", g.error_prefix());
    }
    let (mut spill, totals) = spilling.into_inner().unwrap_or_else(|p| p.into_inner());
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    let mut report = Report::head(&ids, &modes, totals.summary());
    let timings: Timings = results.iter().map(|(id, d)| (id.clone(), *d)).collect();
    if let Some(shard) = args.shard {
        report = report.into_shard(&suite.all_ids, shard);
    }
    let stopped = super::stop::stopped_by();
    if let Some((signal, _)) = stopped
        && results.len() < total
    {
        report.incomplete = Some(format!(
            "stopped by {signal}: {} of {total} scenarios judged",
            results.len()
        ));
    }
    if let Some(dir) = &args.captures {
        let o = write_captures(&mut spill, &FromRecordings, dir)?;
        say.info(format!(
            "captures: {} in {}",
            plural(o.files, "file", "files"),
            dir.display()
        ));
        for m in &o.missing {
            say.info(format!("  no pictures for {m}"));
        }
    }
    let report = ReportRef {
        head: &report,
        entries: &spill,
    };

    // The table, the broken perturbations and the failures, gathered in one pass.
    let per_scenario = || COLUMNS.iter().filter(|c| c.per_scenario);
    let mut rows = Vec::new();
    let mut broken = Vec::new();
    let mut failures: Vec<(String, Failure)> = Vec::new();
    spill.each(&mut |s| {
        if let Some(run) = s.runs.get(&modes[0]) {
            let mut row = format!("{:<36}", s.id);
            for c in per_scenario() {
                row.push_str(&format!(" {:>8}", c.of(&run.scores)));
            }
            let flag = if s.met { "" } else { "  ← not as expected" };
            rows.push(format!("{row}{flag}"));
        }
        for p in s.robustness.iter().flat_map(|r| &r.broken) {
            broken.push(format!(
                "  {} under {}: {}",
                s.id,
                p.perturbation,
                p.why.as_deref().unwrap_or("")
            ));
        }
        if let Some(f) = s.failure(modes[0]) {
            failures.push((s.id.clone(), f));
        }
        Ok(())
    })?;
    say.info("");
    let mut head = format!("{:<36}", "scenario");
    for c in per_scenario() {
        head.push_str(&format!(" {:>8}", c.short));
    }
    say.info(head);
    rows.into_iter().for_each(|r| say.info(r));
    for (mode, sc) in &report.head.summary.scores {
        let cells: Vec<String> = COLUMNS
            .iter()
            .map(|c| format!("{} {}", c.short, c.of(sc)))
            .collect();
        say.info(format!(
            "{:<36} {}",
            format!("all ({})", word(mode)),
            cells.join("  ")
        ));
    }
    if let Some(r) = &report.head.summary.robustness {
        say.info(format!(
            "robustness: {:.3} ({} of {} step × perturbation pairs still right)",
            r.score, r.ok, r.total
        ));
        broken.into_iter().for_each(|b| say.info(b));
    }
    // The failures again, together, where a reader of a long log looks: at the end.
    if !failures.is_empty() {
        say.verdict("");
        say.verdict(format!(
            "{} not as expected:",
            plural(failures.len(), "scenario", "scenarios")
        ));
        for (id, f) in &failures {
            say.verdict(format!(
                "  {} {id}\n       at {f}",
                say.paint("1;31", "FAIL")
            ));
        }
    }
    if std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true") {
        for (id, f) in &failures {
            // The runner reads workflow commands from either stream: under `--format json`
            // they go to standard error with the other lines, leaving the JSON whole.
            say.verdict(github_annotation(id, f));
        }
    }
    let json = args.out.report_files.contains(&Format::Json);
    let code = write_outputs(
        report,
        &timings,
        &FromRecordings,
        &args.report_dir,
        json.then_some("report.json"),
        &args.out,
        gate.as_ref(),
        &say,
    )?;
    if args.format == OutputFormat::Json {
        write_json_to(report, &mut std::io::stdout().lock())?;
    }
    let shard = args
        .shard
        .map(|s| {
            format!(
                " (shard {s} of a {}-scenario suite)",
                report.head.suite.scenarios
            )
        })
        .unwrap_or_default();
    say.verdict(format!(
        "{}{shard}: {} as expected, {} not; reports in {}",
        plural(
            report.head.summary.scenarios as usize,
            "scenario",
            "scenarios"
        ),
        report.head.summary.met,
        report.head.summary.not_met,
        args.report_dir.display()
    ));
    if let Some(why) = &report.head.incomplete {
        say.verdict(format!(
            "incomplete: {why}; the reports hold what was judged"
        ));
    }
    Ok(stopped.map_or(code, |(_, exit)| exit))
}

/// `default` or a comma-separated list of perturbation names.
fn parse_perturbations(list: &str) -> Result<Vec<Perturbation>, Error> {
    let names: Vec<&str> = if list == "default" {
        STANDARD.to_vec()
    } else {
        list.split(',').map(str::trim).collect()
    };
    names
        .into_iter()
        .map(|n| {
            n.parse::<Perturbation>().map_err(|e| {
                Error::from(
                    e.in_file("--perturb")
                        .hint("use `default` or names such as move-window,dark-theme"),
                )
            })
        })
        .collect()
}

/// Whether `tesseract` runs (asked before a run that needs it, not at its first read).
fn have_tesseract() -> bool {
    std::process::Command::new("tesseract")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
