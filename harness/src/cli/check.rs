//! `stepreplay check FILE…`: plans (Foxstep, a `get_guide` response, devthink protocolv2) and
//! scenario files (`stepreplay-scenario/1`), told apart by their content.

use std::io::IsTerminal;
use std::path::PathBuf;

use stepreplay::Error;
use stepreplay::plan::check::{CheckReport, Finding, check_source, render_human, render_json};
use stepreplay::plan::read_plan_source;
use stepreplay::replay::check_scenario;

use super::OutputFormat;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Plan or scenario files to check.
    #[arg(required = true, value_name = "FILE")]
    plans: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
    /// Also replay the plan against this recording, chained and under the standard
    /// perturbations, and report fragile steps.
    #[arg(long, value_name = "DIR")]
    recording: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<u8, Error> {
    // no-color.org: an empty NO_COLOR does not count.
    let color = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut worst = 0;
    for path in &args.plans {
        let report = match read_plan_source(path) {
            Ok(src) if is_scenario(&src) => check_scenario(&src),
            Ok(src) => {
                let report = check_source(&src);
                match &args.recording {
                    Some(dir) if report.exit_code() == 0 => {
                        let found = replayed(path, dir)?;
                        report.with(
                            found
                                .into_iter()
                                .map(|f| {
                                    let p = src.position(&f.path);
                                    f.at(p)
                                })
                                .collect(),
                        )
                    }
                    _ => report,
                }
            }
            Err(e) => CheckReport::unreadable(path, Finding::from_input_error(&e)),
        };
        match args.format {
            OutputFormat::Human => print!("{}", render_human(&report, color)),
            OutputFormat::Json => print!("{}", render_json(&report)),
        }
        worst = worst.max(report.exit_code());
    }
    Ok(worst)
}

/// A scenario file names its schema; a plan never has this one.
fn is_scenario(src: &stepreplay::json::Source) -> bool {
    stepreplay::json::parse_value(src).is_ok_and(|v| {
        v.get("schema").and_then(|s| s.as_str()) == Some(stepreplay::replay::SCENARIO_SCHEMA)
    })
}

/// Findings from replaying the plan on its recording (bad input here is exit 2).
fn replayed(plan: &std::path::Path, dir: &std::path::Path) -> Result<Vec<Finding>, Error> {
    let plan = stepreplay::plan::load_plan(plan)?;
    let rec = stepreplay::recording::load_recording(dir)?;
    Ok(stepreplay::replay::approval_findings(&plan, &rec)?)
}
