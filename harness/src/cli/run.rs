//! `stepreplay run [PATHS…]`: replay scenarios, print progress and a table, write the report.

use std::path::PathBuf;

use stepreplay::perturb::{Perturbation, STANDARD};
use stepreplay::replay::Mode;
use stepreplay::report::{Report, to_json};
use stepreplay::suite::{RunOptions, ScenarioResult, discover, run_suite, word};
use stepreplay::{Error, InputError, Reason};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Scenario files or folders (default: `scenarios`).
    paths: Vec<PathBuf>,
    /// Scenarios replayed at once (default: every core).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// Replay modes; the first decides pass or fail.
    #[arg(long, value_enum, default_value = "both")]
    mode: ModeArg,
    /// Where to write `report.json`.
    #[arg(long, default_value = "reports")]
    report_dir: PathBuf,
    /// Perturbations to replay every scenario under: `default` (the standard set) or names
    /// separated by commas (`move-window,dark-theme`).
    #[arg(long)]
    perturb: Option<String>,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ModeArg {
    Chained,
    PerStep,
    Both,
}

fn line(r: &ScenarioResult) -> String {
    let (outcome, reason, _) = r.traces[0].outcome();
    let got = match reason {
        Some(rs) => format!("{} ({})", word(&outcome), word(&rs)),
        None => word(&outcome),
    };
    let verdict = if r.met { "ok  " } else { "FAIL" };
    let why = r
        .mismatch
        .as_deref()
        .map(|m| format!(" — {m}"))
        .unwrap_or_default();
    format!("{verdict} {:<36} {got}{why}", r.id)
}

pub fn run(args: Args) -> Result<u8, Error> {
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
    let files = discover(&paths)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let perturb = match args.perturb.as_deref() {
        None => Vec::new(),
        Some(list) => parse_perturbations(list)?,
    };
    let opts = RunOptions {
        jobs,
        modes: modes.clone(),
        perturb,
    };
    let results = run_suite(&files, &opts, &|r| println!("{}", line(r)))?;
    let report = Report::from_results(&results, &modes);
    std::fs::create_dir_all(&args.report_dir).map_err(|source| Error::Write {
        path: args.report_dir.clone(),
        source,
    })?;
    let out = args.report_dir.join("report.json");
    std::fs::write(&out, to_json(&report)).map_err(|source| Error::Write {
        path: out.clone(),
        source,
    })?;

    println!();
    println!(
        "{:<36} {:>8} {:>8} {:>8} {:>8}",
        "scenario", "element", "click", "steps", "expects"
    );
    for s in &report.scenarios {
        if let Some(run) = s.runs.get(&modes[0]) {
            let sc = &run.scores;
            println!(
                "{:<36} {:>8.3} {:>8.3} {:>8.3} {:>8.3}{}",
                s.id,
                sc.element_accuracy,
                sc.click_accuracy,
                sc.step_success,
                sc.expect_pass_rate,
                if s.met { "" } else { "  ← not as expected" }
            );
        }
    }
    for (mode, sc) in &report.summary.scores {
        println!(
            "{:<36} element {:.3}  click {:.3}  steps {:.3}  scenarios {:.3}  expects {:.3}  ambiguous {}",
            format!("all ({})", word(mode)),
            sc.element_accuracy,
            sc.click_accuracy,
            sc.step_success,
            sc.scenario_success,
            sc.expect_pass_rate,
            sc.ambiguity_count
        );
    }
    if let Some(r) = &report.summary.robustness {
        println!(
            "robustness: {:.3} ({} of {} step × perturbation pairs still right)",
            r.score, r.ok, r.total
        );
        for s in &report.scenarios {
            for p in s.robustness.iter().flat_map(|r| &r.broken) {
                println!(
                    "  {} under {}: {}",
                    s.id,
                    p.perturbation,
                    p.why.as_deref().unwrap_or("")
                );
            }
        }
    }
    println!(
        "{} scenarios: {} as expected, {} not; report: {}",
        report.summary.scenarios,
        report.summary.met,
        report.summary.not_met,
        out.display()
    );
    Ok(if report.all_met() { 0 } else { 1 })
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
                    InputError::new("--perturb", Reason::InvalidArgument, e)
                        .hint("use `default` or names such as move-window,dark-theme"),
                )
            })
        })
        .collect()
}
