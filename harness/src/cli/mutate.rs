//! `stepreplay mutate [SCENARIOS…]`: the gate's mutation score — how many one-fault copies of
//! each passing plan the gate fails, per fault class, and every copy it passed. The originals
//! are replayed, judged and reported as `run --mutants` does it, in one run session.

use std::path::PathBuf;

use crate::Error;
use crate::mutate::{PER_CLASS, mutate_sites, to_json, to_markdown};
use crate::replay::Mode;
use crate::report::{End, Session};
use crate::scenario::SCENARIO_SCHEMA;
use crate::suite::{RunOptions, discover_schemas, load_suite, select_files};

use super::depth_arg::DepthArg;
use super::output_args::OutputArgs;
use super::select_args::{SelectArgs, none_match};
use super::stop::{STOP, install_stop_handler, stopped_by};
use super::{Global, OutputFormat};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stepreplay mutate                            # the suite in scenarios/
  stepreplay mutate scenarios/mail-send-reminder.json --format json
  stepreplay mutate --every-site                # every site, not three per class
  stepreplay mutate --filter tag:gtk3           # the scenarios tagged gtk3")]
pub(crate) struct Args {
    /// Scenario files or folders (default: `scenarios`).
    paths: Vec<PathBuf>,
    /// What to print: the per-class table and the survivors, or the whole run as JSON.
    #[arg(long, value_enum, default_value = "markdown")]
    format: MutateFormat,
    /// Every site of every class, not up to three per class and plan: many more mutants,
    /// slower.
    #[arg(long)]
    every_site: bool,
    /// Scenarios mutated at once (default: every core).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Also write `run`'s reports of the original scenarios here, each entry with its
    /// mutation score (as `run --mutants` writes them).
    #[arg(long, value_name = "DIR")]
    report_dir: Option<PathBuf>,
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    depth: DepthArg,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum MutateFormat {
    /// A Markdown table per class, then the survivors and the equivalent mutants.
    Markdown,
    /// Every mutant, its change and its verdict.
    Json,
}

/// The table (or JSON) on standard output; the run's lines on standard error; the exit code
/// is the run session's: 1 when an original missed its expectation or a mutant survived.
pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("scenarios")]
    } else {
        args.paths
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let per_class = if args.every_site {
        usize::MAX
    } else {
        PER_CLASS
    };
    let select = args
        .select
        .select_without_last_run(args.out.gated(), "mutate")?;
    args.out.apply_wait();
    let gate = args.out.gate()?;
    // From here a Ctrl-C or SIGTERM stops starting scenarios and writes what was judged.
    install_stop_handler();
    let report = mutate_sites(&paths, jobs, per_class, &select, args.depth.levels())?;
    if report.scenarios.is_empty() && !select.is_all() {
        return Err(none_match(&select));
    }
    match args.format {
        MutateFormat::Markdown => print!("{}", to_markdown(&report)),
        MutateFormat::Json => print!("{}", to_json(&report)),
    }
    let files = select_files(discover_schemas(&paths, &[SCENARIO_SCHEMA])?, &select);
    let suite = load_suite(&files, None)?.plan_depth(args.depth.levels());
    let asked = suite.scenarios.len() + suite.broken.len();
    let opts = RunOptions {
        jobs,
        modes: vec![Mode::Chained, Mode::PerStep],
        perturb: Vec::new(),
        ocr: crate::replay::Ocr::Dom,
    };
    let say = super::output_args::say(g, OutputFormat::Json);
    let session = Session::open(args.report_dir.as_deref(), &opts.modes)?
        .with_progress(asked, say)
        .with_mutation(report.scores());
    crate::suite::run(suite, &opts, &STOP, &|r| session.add(&r))?;
    session.finish(End {
        dir: args.report_dir.as_deref(),
        outputs: args.out.outputs("report.json"),
        gate: gate.as_ref(),
        stopped: stopped_by(),
        narrowed: (!select.is_all()).then(|| format!("{asked} scenarios, by {}", select.flags())),
        ..End::new(say, g.error_prefix(), asked)
    })
}
