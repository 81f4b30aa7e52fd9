//! `stepreplay run [PATHS…]`: replay scenarios (or one shard of them), show progress, write
//! every report format, and gate on the baseline when one is given.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::errors::{Error, InputError, Reason};
use crate::perturb::{Perturbation, STANDARD};
use crate::replay::Mode;
use crate::replay::ledger::Kind;
use crate::report::{End, Session};
use crate::scenario::adhoc_scenario;
use crate::select::Select;
use crate::shard::{Shard, read_durations};
use crate::suite::{LoadedSuite, RunOptions, discover, load_suite_by};

use super::depth_arg::DepthArg;
use super::output_args::OutputArgs;
use super::select_args::{SelectArgs, none_match};
use super::{Global, OutputFormat};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stepreplay run                                    # the suite in scenarios/
  stepreplay run scenarios/mail-*.json --jobs 2
  stepreplay run plan.json --recording recordings/mail-send-reminder --answers answers.json
  stepreplay run --shard 1/4 --reports json --report-dir reports/shard-1
  stepreplay run --shard 1/4 --durations last/junit.xml --report-dir reports/shard-1
  stepreplay run --baseline reports/baseline.json --summary \"$GITHUB_STEP_SUMMARY\"")]
pub(crate) struct Args {
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
    ocr: crate::replay::Ocr,
    /// Run only part `k` of `n` (1-based): scenarios whose id hashes to it. Join the parts'
    /// reports with `stepreplay merge`.
    #[arg(long, value_name = "K/N", value_parser = super::select_args::shard)]
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
    /// Rerun only the scenarios that missed their expectation in the last run whose reports
    /// are in `--report-dir`.
    #[arg(long, conflicts_with = "recording")]
    last_failed: bool,
    /// Print the ids of the scenarios that would run (after `--grep`, `--filter`,
    /// `--last-failed` and `--shard`), one a line, and run none.
    #[arg(long)]
    list: bool,
    /// Let every scenario leave these kinds of judgement unjudged (`typed-text,done`), as its
    /// `expect.allow_unjudged` would; anything else the harness cannot judge fails it.
    #[arg(long, value_name = "KINDS", value_delimiter = ',', value_parser = |s: &str| s.parse::<Kind>())]
    allow_unjudged: Vec<Kind>,
    /// Name the scenarios that took longer than this many seconds, slowest first: on the
    /// terminal, in `report.json` (`slow`), `summary.md` and on the HTML cards. Wall-clock, so
    /// such a report differs from run to run.
    #[arg(long, value_name = "SECONDS", value_parser = super::non_negative)]
    slow: Option<f64>,
    #[command(flatten)]
    depth: DepthArg,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ModeArg {
    Chained,
    PerStep,
    Both,
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let say = super::output_args::say(g, args.format);
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("scenarios")]
    } else {
        args.paths.clone()
    };
    // Refused with a baseline before the baseline is read: a narrowed run is never gated.
    let mut select = args.select.select(args.out.gated())?;
    if args.last_failed || select.reads_last_run() {
        select = select.last_run(last_run(&args.report_dir)?, args.last_failed);
    }
    args.out.apply_wait();
    let gate = args.out.gate()?;
    let opts = options(&args)?;
    let mut suite = suite_of(&args, &paths, &select)?.plan_depth(args.depth.levels());
    if args.list {
        let mut ids: Vec<&str> = (suite.scenarios.iter().map(|s| s.file.id.as_str()))
            .chain(suite.bridge.iter().map(|(id, _)| id.as_str()))
            .chain(suite.broken.iter().map(|(s, _)| s.file.id.as_str()))
            .collect();
        ids.sort_unstable();
        ids.iter().for_each(|id| println!("{id}"));
        return Ok(0);
    }
    suite.allow_unjudged(&args.allow_unjudged);
    let asked = suite.scenarios.len() + suite.bridge.len() + suite.broken.len();
    // From here a Ctrl-C or SIGTERM stops starting scenarios and writes what was judged.
    super::stop::install_stop_handler();
    let mutation = if args.mutants {
        let all = crate::select::Select::default();
        let depth = args.depth.levels();
        crate::mutate::mutate_sites(&paths, opts.jobs, crate::mutate::PER_CLASS, &all, depth)?
            .scores()
    } else {
        BTreeMap::new()
    };
    let all_ids = suite.all_ids.clone();
    let session = Session::open(Some(&args.report_dir), &opts.modes)?
        .with_progress(asked, say)
        .with_mutation(mutation);
    // Stopped by Ctrl-C, the scenarios not started are left out.
    crate::suite::run(suite, &opts, &super::stop::STOP, &|r| session.add(&r))?;
    // One plan replayed with `--recording` has nothing else to judge, so its broken input is
    // the command's error, as before any replay.
    if args.recording.is_some()
        && let Some(e) = session.broken_input()
    {
        return Err(e.into());
    }
    let end = End {
        dir: Some(&args.report_dir),
        outputs: args.out.outputs("report.json"),
        gate: gate.as_ref(),
        json_stdout: args.format == OutputFormat::Json,
        captures: args.captures.as_deref(),
        slow: args.slow,
        stopped: super::stop::stopped_by(),
        narrowed: (!select.is_all()).then(|| {
            format!(
                "{asked} of {} scenarios, by {}",
                all_ids.len(),
                select.flags()
            )
        }),
        shard: args.shard.map(|s| (s, all_ids)),
        ..End::new(say, g.error_prefix(), asked)
    };
    session.finish(end)
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
    if args.ocr == crate::replay::Ocr::Tesseract && !have_tesseract() {
        return Err(crate::InputError::new(
            "--ocr",
            crate::Reason::InvalidArgument,
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
            LoadedSuite::one(adhoc_scenario(plan, rec, args.answers.as_deref())?)
        }
        None => {
            let durations = (args.durations.as_deref())
                .map(|p| crate::output::check_set(p).and_then(|()| read_durations(p)))
                .transpose()?;
            let suite = load_suite_by(&discover(paths)?, args.shard, durations.as_ref())?;
            if !select.is_all()
                && suite.scenarios.len() + suite.bridge.len() + suite.broken.len() > 0
            {
                // A shard knows only its own part's tags.
                if args.shard.is_none() {
                    select.unknown_tag(&suite.tags()).map_err(super::usage)?;
                }
                let suite = suite.select(select);
                if suite.scenarios.is_empty() && suite.bridge.is_empty() && suite.broken.is_empty()
                {
                    return Err(none_match(select));
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

/// Whether each scenario of the report in `dir` met its expectation, by id (`--last-failed`,
/// `status:`).
fn last_run(dir: &Path) -> Result<BTreeMap<String, bool>, Error> {
    let path = dir.join("report.json");
    if !path.is_file() {
        return Err(super::usage(
            InputError::new(&path, Reason::MissingFile, "no last run to read").hint(
                "run once without --last-failed or status:, or name its folder with --report-dir",
            ),
        ));
    }
    crate::output::check_set(&path)?;
    crate::report::load_report_head(&path)?;
    let mut met = BTreeMap::new();
    crate::report::read_report_entries(&path, &mut |e| {
        met.insert(e.id, e.met);
        Ok::<(), InputError>(())
    })?;
    Ok(met)
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
