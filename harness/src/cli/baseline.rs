//! `stepreplay baseline accept`: make a report the new baseline — explicitly, never as a side
//! effect of `run` — and show what changed against the old one.

use std::path::PathBuf;

use stepreplay::Error;
use stepreplay::output::write_file;
use stepreplay::report::{Baseline, load_report};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Write a baseline from a report and print a unified diff against the old one.
    Accept {
        /// The report to accept.
        #[arg(long, default_value = "reports/report.json")]
        report: PathBuf,
        /// The baseline to write.
        #[arg(long, default_value = "reports/baseline.json")]
        out: PathBuf,
    },
}

pub fn run(args: Args) -> Result<u8, Error> {
    let Sub::Accept { report, out } = args.command;
    let report = load_report(&report)?;
    if report.shard.is_some() {
        return Err(stepreplay::InputError::new(
            "",
            stepreplay::Reason::InvalidArgument,
            "this is one shard's report; a baseline must hold the whole suite",
        )
        .hint("merge the shards first: stepreplay merge --out reports/report.json …")
        .into());
    }
    let new = Baseline::from_report(&report).to_json();
    let old = if out.exists() {
        // Read (and check) the old one: a diff against garbage would say nothing.
        Some(Baseline::load(&out)?.to_json())
    } else {
        None
    };
    match &old {
        Some(old) if *old == new => {
            println!("{} is unchanged", out.display());
            return Ok(0);
        }
        Some(old) => {
            let diff = similar::TextDiff::from_lines(old.as_str(), new.as_str());
            print!(
                "{}",
                diff.unified_diff().header(
                    &format!("{} (old)", out.display()),
                    &format!("{} (new)", out.display())
                )
            );
        }
        None => println!("new baseline: {} scenarios", report.scenarios.len()),
    }
    write_file(&out, new)?;
    println!("wrote {}", out.display());
    Ok(0)
}
