//! `stepreplay run [PATHS…]`: replay scenarios (or one shard of them), show progress, write
//! every report format, and gate on the baseline when one is given.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use stepreplay::evidence::FromRecordings;
use stepreplay::perturb::{Perturbation, STANDARD};
use stepreplay::replay::Mode;
use stepreplay::report::{
    MutationScore, Progress, Report, ReportRef, ScenarioReport, Slow, Spill, Timings, Totals,
    print_summary, print_verdict, write_captures, write_json_to, write_outputs,
};
use stepreplay::result::ScenarioResult;
use stepreplay::scenario::adhoc_scenario;
use stepreplay::select::Select;
use stepreplay::shard::{Shard, read_durations};
use stepreplay::suite::{
    LoadedSuite, RunOptions, broken_results, discover, load_suite_by, run_bridge, run_until,
};
use stepreplay::text::plural;
use stepreplay::{Error, InputError, Reason};

use super::output_args::OutputArgs;
use super::select_args::{SelectArgs, none_match};
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
  stepreplay run --shard 1/4 --durations last/junit.xml --report-dir reports/shard-1
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
    /// With `--shard`: balance the shards by each scenario's time in an earlier run's
    /// `junit.xml` (longest first, each to the least loaded shard) instead of by a hash of its
    /// id. Every shard of the run must be given the same file.
    #[arg(long, value_name = "JUNIT", requires = "shard")]
    durations: Option<PathBuf>,
    /// Write each acting step's before, after and diff PNGs here, and an overlay of its target
    /// on the before frame (`DIR/<scenario>/<mode>/<NN>-<step>-{before,after,diff,overlay}.png`);
    /// the HTML page then shows the diff images.
    #[arg(long, value_name = "DIR")]
    captures: Option<PathBuf>,
    /// What to print: lines for people, or the whole `report.json` on standard output for a
    /// script (the report files are written either way; `--reports` chooses them).
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
    /// Also make one-fault copies of each scenario's plan and put the gate's mutation score
    /// (`mutation`: counts and survivors) in each report entry; see `stepreplay mutate`.
    #[arg(long, conflicts_with = "recording")]
    mutants: bool,
    #[command(flatten)]
    select: SelectArgs,
    /// Name the scenarios that took longer than this many seconds, slowest first: on the
    /// terminal, in `report.json` (`slow`), `summary.md` and on the HTML cards. Wall-clock, so
    /// such a report differs from run to run.
    #[arg(long, value_name = "SECONDS", value_parser = super::non_negative)]
    slow: Option<f64>,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ModeArg {
    Chained,
    PerStep,
    Both,
}

pub fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let say = super::output_args::say(g, args.format);
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("scenarios")]
    } else {
        args.paths.clone()
    };
    // Refused with a baseline before the baseline is read: a narrowed run is never gated.
    let select = args.select.select(args.out.gated())?;
    let gate = args.out.gate()?;
    let opts = options(&args)?;
    let modes = opts.modes.clone();
    let suite = suite_of(&args, &paths, &select)?;
    let total = suite.scenarios.len() + suite.bridge.len() + suite.broken.len();
    // From here a Ctrl-C or SIGTERM stops starting scenarios and writes what was judged.
    super::stop::install_stop_handler();
    let progress = Progress::new(total, say);
    let all_ids = suite.all_ids.clone();
    let mutation = if args.mutants {
        mutation_scores(&paths, opts.jobs)?
    } else {
        BTreeMap::new()
    };
    let replayed = replay_all(suite, &opts, &args.report_dir, &progress, &mutation)?;
    let Replayed {
        mut results,
        mut broken_inputs,
        mut spill,
        totals,
    } = replayed;
    // One plan replayed with `--recording` has nothing else to judge, so its broken input is
    // the command's error, as before any replay.
    if args.recording.is_some()
        && let Some(e) = broken_inputs.pop()
    {
        progress.finish();
        return Err(e.into());
    }
    results.sort();
    progress.finish();
    // Broken inputs are also said as errors on standard error, as a script expects.
    broken_inputs.sort_by(|a, b| a.file.cmp(&b.file));
    for e in &broken_inputs {
        eprintln!("{} {e}", g.error_prefix());
    }
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    let mut report = Report::head(&ids, &modes, totals.summary());
    let timings: Timings = results.iter().map(|(id, d)| (id.clone(), *d)).collect();
    if let Some(shard) = args.shard {
        report = report.into_shard(&all_ids, shard);
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
    if !select.is_all() {
        report.narrowed = Some(format!(
            "{} of {} scenarios, by --grep or --filter",
            results.len(),
            all_ids.len()
        ));
    }
    report.slow = args.slow.map(|limit| Slow::of(&timings, limit));
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
    print_summary(report, &say)?;
    let code = write_outputs(
        report,
        &timings,
        &FromRecordings,
        &args.report_dir,
        &args.out.outputs("report.json"),
        gate.as_ref(),
        &say,
    )?;
    if args.format == OutputFormat::Json {
        write_json_to(report, &mut std::io::stdout().lock())?;
    }
    if let Some(slow) = &report.head.slow {
        print_slow(slow, &say);
    }
    print_verdict(report.head, Some(&args.report_dir), &say);
    Ok(stopped.map_or(code, |(_, exit)| exit))
}

/// The run's options from its flags (the modes, jobs, perturbations and OCR).
fn options(args: &Args) -> Result<RunOptions, Error> {
    let modes = match args.mode {
        ModeArg::Chained => vec![Mode::Chained],
        ModeArg::PerStep => vec![Mode::PerStep],
        ModeArg::Both => vec![Mode::Chained, Mode::PerStep],
    };
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
    Ok(RunOptions {
        jobs,
        modes,
        perturb,
        ocr: args.ocr,
    })
}

/// The scenarios to run: one plan with `--recording`, else the suite under `paths` (this
/// shard's part). A run that replays nothing proves nothing: it must not pass (an empty
/// shard of a non-empty suite is fine, its siblings run the scenarios).
fn suite_of(args: &Args, paths: &[PathBuf], select: &Select) -> Result<LoadedSuite, Error> {
    let suite = match &args.recording {
        Some(rec) => {
            let [plan] = paths else {
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
        None => {
            let durations = args.durations.as_deref().map(read_durations).transpose()?;
            let suite = load_suite_by(&discover(paths)?, args.shard, durations.as_ref())?;
            if !select.is_all()
                && suite.scenarios.len() + suite.bridge.len() + suite.broken.len() > 0
            {
                let suite = suite.select(select);
                if suite.scenarios.is_empty() && suite.bridge.is_empty() && suite.broken.is_empty()
                {
                    return Err(none_match());
                }
                suite
            } else {
                suite
            }
        }
    };
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
    Ok(suite)
}

/// What replaying the suite leaves: each scenario's id and time, the broken inputs, the
/// spilled report entries and their totals.
struct Replayed {
    results: Vec<(String, Duration)>,
    broken_inputs: Vec<InputError>,
    spill: Spill,
    totals: Totals,
}

/// Replays every scenario. Each result is folded into its report entry as it finishes, added
/// to the totals, written to a spill file in the report folder and dropped with its trace:
/// what is held at the end is the totals and an index, so peak memory follows the scenarios
/// in flight, not the suite.
fn replay_all(
    suite: LoadedSuite,
    opts: &RunOptions,
    report_dir: &std::path::Path,
    progress: &Progress,
    mutation: &BTreeMap<String, MutationScore>,
) -> Result<Replayed, Error> {
    let mut bridge = run_bridge(&suite.bridge, &opts.modes);
    bridge.extend(broken_results(&suite.broken, &opts.modes));
    for r in &bridge {
        progress.done(r);
    }
    let spilling = Mutex::new((Spill::create(report_dir)?, Totals::new(&opts.modes)));
    let broken_inputs = Mutex::new(Vec::new());
    let fold = |r: ScenarioResult| -> Result<(String, Duration), Error> {
        if let Some(e) = r.broken_input() {
            broken_inputs
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(e.clone());
        }
        let mut entry = ScenarioReport::of(&r);
        entry.mutation = mutation.get(&entry.id).cloned();
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
        opts,
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
    let results = results.into_iter().collect::<Result<Vec<_>, Error>>()?;
    let (spill, totals) = spilling.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok(Replayed {
        results,
        broken_inputs: broken_inputs
            .into_inner()
            .unwrap_or_else(|p| p.into_inner()),
        spill,
        totals,
    })
}

/// Each scenario's mutation score, by id: `mutate` makes and judges the copies, the reports
/// show them.
fn mutation_scores(
    paths: &[PathBuf],
    jobs: usize,
) -> Result<BTreeMap<String, MutationScore>, Error> {
    let r = stepreplay::mutate::mutate(paths, jobs)?;
    Ok(r.scenarios
        .iter()
        .map(|s| (s.id.clone(), s.score()))
        .collect())
}

/// The scenarios slower than the threshold, slowest first (ties by id).
fn print_slow(slow: &Slow, say: &stepreplay::report::Say) {
    let limit = slow.threshold;
    if slow.scenarios.is_empty() {
        say.info(format!("no scenario took longer than {limit} s"));
        return;
    }
    say.verdict(format!(
        "{} slower than {limit} s:",
        plural(slow.scenarios.len(), "scenario", "scenarios")
    ));
    for s in &slow.scenarios {
        say.verdict(format!("  SLOW {:<36} {:.2} s", s.id, s.seconds));
    }
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
