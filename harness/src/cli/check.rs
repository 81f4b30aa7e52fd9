//! `stepreplay check PLAN…`

use std::io::IsTerminal;
use std::path::PathBuf;

use stepreplay::Error;
use stepreplay::plan::check::{CheckReport, Finding, check_source, render_human, render_json};
use stepreplay::plan::read_plan_source;

use super::OutputFormat;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Plan files to check.
    #[arg(required = true)]
    plans: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
}

pub fn run(args: Args) -> Result<u8, Error> {
    // no-color.org: an empty NO_COLOR does not count.
    let color = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut worst = 0;
    for path in &args.plans {
        let report = match read_plan_source(path) {
            Ok(src) => check_source(&src),
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
