//! `stepreplay mutate [SCENARIOS…]`: the gate's mutation score — how many one-fault copies of
//! each passing plan the gate fails, per fault class, and every copy it passed.

use std::path::PathBuf;

use crate::Error;
use crate::mutate::{PER_CLASS, mutate_sites, to_json, to_markdown};

use super::Global;
use super::select_args::{SelectArgs, none_match};

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
    #[command(flatten)]
    select: SelectArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum MutateFormat {
    /// A Markdown table per class, then the survivors and the equivalent mutants.
    Markdown,
    /// Every mutant, its change and its verdict.
    Json,
}

/// Exit 0 when the gate caught every mutant that changes what its plan does, 1 when one
/// survived.
pub(crate) fn run(args: Args, _g: &Global) -> Result<u8, Error> {
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
    let select = args.select.select(false)?;
    let report = mutate_sites(&paths, jobs, per_class, &select)?;
    if report.scenarios.is_empty() && !select.is_all() {
        return Err(none_match(&select));
    }
    match args.format {
        MutateFormat::Markdown => print!("{}", to_markdown(&report)),
        MutateFormat::Json => print!("{}", to_json(&report)),
    }
    Ok(u8::from(report.total.survived > 0))
}
