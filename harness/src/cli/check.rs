//! `stepreplay check PATH…`: plans (Foxstep, a `get_guide` response, devthink protocolv2) and
//! scenario files (`stepreplay-scenario/1`), told apart by their content; folders are searched
//! for both, and `-` reads a plan from standard input.

use std::path::{Path, PathBuf};

use crate::errors::{Error, InputError};
use crate::json::Source;
use crate::limits::{PLAN_BYTES, PlanCaps};
use crate::plan::check::{
    CheckReport, Finding, across_plans, check_source_capped, render_human, render_json,
    render_sarif, render_summary,
};
use crate::plan::{
    is_plan, no_plans_under, plan_files_under, read_plan_source, read_plan_source_capped,
};
use crate::replay::Mode;
use crate::report::{End, ScenarioReport, Session};
use crate::scenario::{ScenarioFile, adhoc_scenario, check_scenario, load_scenario};
use crate::suite::{LoadedSuite, RunOptions};

use super::depth_arg::DepthArg;
use super::select_args::SelectArgs;
use super::stop::{STOP, install_stop_handler, stopped_by};
use super::{Global, OutputFormat};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stepreplay check plan.json
  stepreplay check scenarios/                 # every plan and scenario file under it
  curl -s $GUIDE_URL | stepreplay check -     # a plan on standard input
  stepreplay check --format sarif plans/ > check.sarif
  stepreplay check plan.json --recording rec/ --answers values.json")]
pub(crate) struct Args {
    /// Plan or scenario files, folders to search for them, or `-` for standard input.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// What to print: findings for people, one JSON object per file, or SARIF 2.1.0 for
    /// code-scanning viewers.
    #[arg(long, value_enum, default_value = "human")]
    format: CheckFormat,
    /// Also replay the plan against this recording, chained and under the standard
    /// perturbations, and report fragile steps.
    #[arg(long, value_name = "DIR")]
    recording: Option<PathBuf>,
    /// With `--recording`: input values and the person's answers, as a scenario file holds
    /// them (`inputs`, `answers`, `clock`), so the replay reaches steps that need them.
    #[arg(
        long,
        visible_alias = "inputs",
        value_name = "FILE",
        conflicts_with = "scenario"
    )]
    answers: Option<PathBuf>,
    /// With `--recording`: take the input values and answers from this scenario file (and
    /// its recording, when `--recording` is not given).
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// In a folder, check only the scenario files these keep (as `run` narrows a suite);
    /// files named on the command line are always checked.
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    depth: DepthArg,
    /// Largest plan file, in bytes: a cap the reviewer chooses.
    #[arg(long, value_name = "BYTES", default_value_t = PLAN_BYTES,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_plan_bytes: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum CheckFormat {
    /// Compiler-style findings (coloured on a terminal).
    Human,
    /// One JSON object per file.
    Json,
    /// One SARIF 2.1.0 document for every file.
    Sarif,
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let given = match &args.scenario {
        Some(p) => Some(load_scenario(p)?),
        None => None,
    };
    let recording =
        (args.recording.clone()).or_else(|| given.as_ref().map(|s| s.recording_dir.clone()));
    // The replays are judged in one run session, as `run` judges them.
    let session = match &recording {
        Some(_) => {
            install_stop_handler();
            Some(Session::open(None, &[Mode::Chained, Mode::PerStep])?)
        }
        None => None,
    };
    let replay = Replay {
        recording,
        session,
        asked: std::cell::Cell::new(0),
        answers: args.answers.clone(),
        scenario: given.map(|s| s.file),
        caps: PlanCaps {
            depth: args.depth.levels(),
            bytes: args.max_plan_bytes,
        },
    };
    let mut reports = Vec::new();
    // A plan whose replay could not start (its recording unreadable, a step that binds to no
    // recorded action) gets that error as a finding; the other files are still checked.
    let mut broken = false;
    let select = args.select.select_without_last_run(false, "check")?;
    // Each file read from disk, by its report: some rules read all plans at once.
    let mut read = Vec::new();
    for path in &args.paths {
        let files = if path.is_dir() {
            let mut files = plan_files_under(path, |v| is_plan(v) || is_scenario_value(v));
            if !select.is_all() {
                // A plan file has no id or tags to narrow by: only scenario files are kept.
                let scenarios = files.into_iter().filter(|f| {
                    crate::scenario::sniff_schema(f).as_deref()
                        == Some(crate::scenario::SCENARIO_SCHEMA)
                });
                files = crate::suite::select_files(scenarios.collect(), &select);
            }
            if files.is_empty() {
                let e = no_plans_under(path, "plans or scenario files");
                reports.push(CheckReport::unreadable(path, Finding::from_input_error(&e)));
            }
            files
        } else {
            vec![path.clone()]
        };
        for file in files {
            let (report, replay_broken) = check_one(&file, &replay)?;
            broken |= replay_broken;
            if file != Path::new("-") {
                read.push((reports.len(), file));
            }
            reports.push(report);
        }
    }
    let sources: Vec<(usize, PathBuf, Source)> = read
        .into_iter()
        .filter_map(|(k, f)| read_plan_source(&f).ok().map(|s| (k, f, s)))
        .collect();
    let given: Vec<(&Path, &Source)> = sources.iter().map(|(_, f, s)| (f.as_path(), s)).collect();
    for (j, finding) in across_plans(&given) {
        let k = sources[j].0;
        reports[k] = reports[k].clone().with(vec![finding]);
    }
    match args.format {
        CheckFormat::Human => {
            for r in &reports {
                print!("{}", render_human(r, g.color()));
                if !g.quiet() {
                    print!("{}", render_summary(r));
                }
            }
        }
        CheckFormat::Json => reports.iter().for_each(|r| print!("{}", render_json(r))),
        CheckFormat::Sarif => print!("{}", render_sarif(&reports)),
    }
    let worst = reports.iter().map(CheckReport::exit_code).max();
    let worst = worst.unwrap_or(0).max(if broken { 2 } else { 0 });
    let Some(session) = replay.session else {
        return Ok(worst);
    };
    let say = super::output_args::say(g, OutputFormat::Json);
    let end = End::new(say, g.error_prefix(), replay.asked.get());
    let judged = session.finish(End {
        stopped: stopped_by(),
        ..end
    })?;
    // A signal's exit code stands; else the worse of the findings and the replays' verdict.
    Ok(stopped_by().map_or(worst.max(judged), |_| judged))
}

/// What a plan is replayed on, and with which values and answers.
struct Replay {
    recording: Option<PathBuf>,
    /// The session the replays are judged in (with a recording), and how many were started.
    session: Option<Session>,
    asked: std::cell::Cell<usize>,
    answers: Option<PathBuf>,
    scenario: Option<ScenarioFile>,
    /// The caps the plan is held to.
    caps: PlanCaps,
}

/// One file's findings; replaying it on `recording` too when it is a clean plan. The flag
/// says the replay's input was broken: its error is one of the findings.
fn check_one(path: &Path, replay: &Replay) -> Result<(CheckReport, bool), Error> {
    let src = match read_plan_source_capped(path, replay.caps.bytes) {
        Ok(src) => src,
        Err(e) => {
            let report = CheckReport::unreadable(path, Finding::from_input_error(&e));
            return Ok((report, false));
        }
    };
    if is_scenario(&src) {
        return Ok((check_scenario(&src), false));
    }
    let report = check_source_capped(&src, &replay.caps);
    let Some(dir) = replay
        .recording
        .as_deref()
        .filter(|_| report.exit_code() == 0)
    else {
        return Ok((report, false));
    };
    let found = match &replay.scenario {
        Some(s) => Ok(s.clone()),
        None => adhoc_scenario(path, dir, replay.answers.as_deref())
            .map(|s| s.file)
            .map_err(Error::from),
    }
    .and_then(|given| replayed(path, &src, dir, &given, replay));
    match found {
        Ok(found) => {
            let placed = found.into_iter().map(|f| {
                let p = src.position(&f.path);
                f.at(p)
            });
            Ok((report.with(placed.collect()), false))
        }
        Err(Error::Input(e)) => {
            // The error is often in another file (the recording, the answers): the finding
            // names it, and places nothing in the plan.
            let e = InputError::new(path, e.reason, format!("the replay cannot start: {e}"));
            Ok((report.with(vec![Finding::from_input_error(&e)]), true))
        }
        Err(e) => Err(e),
    }
}

/// A scenario file names its schema; a plan never has this one.
fn is_scenario(src: &Source) -> bool {
    crate::json::parse_value(src).is_ok_and(|v| is_scenario_value(&v))
}

fn is_scenario_value(v: &serde_json::Value) -> bool {
    v.get("schema").and_then(|s| s.as_str()) == Some(crate::scenario::SCENARIO_SCHEMA)
}

/// Findings from replaying the plan on its recording (bad input here is exit 2).
fn replayed(
    path: &Path,
    src: &Source,
    dir: &Path,
    given: &ScenarioFile,
    replay: &Replay,
) -> Result<Vec<Finding>, Error> {
    let plan = crate::plan::plan_from_source(src)?;
    let rec = crate::recording::load_recording(dir)?;
    crate::replay::check_bound(&plan, &rec, src, dir)?;
    let lenient = crate::replay::lenient(&plan, given);
    let as_run = as_run(path, dir, &lenient, replay);
    let said = |mode: Mode, step_id: &str| as_run.as_ref()?.step_said(mode, step_id);
    Ok(crate::replay::approval_findings(
        &plan, &rec, &lenient, &said,
    )?)
}

/// The plan replayed with `lenient`'s values and answers as `run` replays it, judged in the
/// check's run session and folded into its report entry, so a failing step is said in
/// `run`'s words (`report/failure.rs`). `None` for a plan read from standard input, or once
/// a stop was asked for.
fn as_run(
    plan: &Path,
    dir: &Path,
    lenient: &ScenarioFile,
    replay: &Replay,
) -> Option<ScenarioReport> {
    let session = replay.session.as_ref().filter(|_| plan != Path::new("-"))?;
    let mut s = adhoc_scenario(plan, dir, None).ok()?;
    s.file.inputs = lenient.inputs.clone();
    s.file.answers = lenient.answers.clone();
    s.file.clock = lenient.clock;
    let opts = RunOptions {
        jobs: 1,
        modes: vec![Mode::Chained, Mode::PerStep],
        perturb: Vec::new(),
        ocr: crate::replay::Ocr::default(),
    };
    replay.asked.set(replay.asked.get() + 1);
    let entry = std::sync::Mutex::new(None);
    crate::suite::run(LoadedSuite::one(s), &opts, &STOP, &|r| {
        session.add(&r)?;
        *crate::par::lock(&entry) = Some(ScenarioReport::of(&r));
        Ok(())
    })
    .ok()?;
    entry.into_inner().ok()?
}
