//! `stepreplay baseline accept`: make a report the new baseline — explicitly, never as a side
//! effect of `run` — and show, scenario by scenario, what changes against the old one. A
//! report with scenarios not as expected is refused unless `--allow-failing` says so: a
//! baseline that accepts a failure turns the gate green on it.

use std::path::PathBuf;

use stepreplay::Error;
use stepreplay::output::write_file;
use stepreplay::report::{Baseline, baseline_changes, load_report_head, read_report_entries};

use super::Global;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stepreplay baseline accept                       # reports/report.json → reports/baseline.json
  stepreplay baseline accept --allow-failing
  stepreplay baseline accept --force               # replace an unreadable baseline")]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Write a baseline from a report and print, scenario by scenario, what changes against the
    /// old one.
    Accept {
        /// The report to accept.
        #[arg(long, default_value = "reports/report.json")]
        report: PathBuf,
        /// The baseline to write.
        #[arg(long, default_value = "reports/baseline.json")]
        out: PathBuf,
        /// Accept even though some scenarios are not as expected (they then pass the gate
        /// while they stay as they are).
        #[arg(long)]
        allow_failing: bool,
        /// Replace a baseline that cannot be read (cut off, not JSON, another schema); without
        /// it such a baseline is left as it is and nothing is written.
        #[arg(long)]
        force: bool,
    },
}

pub fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let Sub::Accept {
        report,
        out,
        allow_failing,
        force,
    } = args.command;
    let report_path = report;
    // The run-wide part first (its checks need no entry), then the entries one at a time:
    // a baseline keeps a few scores of each, so a report of any size is accepted.
    let report = load_report_head(&report_path)?;
    if let Some(why) = &report.incomplete {
        return Err(stepreplay::InputError::new(
            &report_path,
            stepreplay::Reason::InvalidArgument,
            format!("this report is incomplete ({why}); a baseline must hold the whole suite"),
        )
        .hint("run the suite to the end, then accept its report")
        .into());
    }
    if report.shard.is_some() {
        return Err(stepreplay::InputError::new(
            "",
            stepreplay::Reason::InvalidArgument,
            "this is one shard's report; a baseline must hold the whole suite",
        )
        .hint("merge the shards first: stepreplay merge --out reports/report.json …")
        .into());
    }
    let mut new = Baseline::accepting(&report);
    let mut failing: Vec<String> = Vec::new();
    read_report_entries(&report_path, &mut |s| {
        if !s.met {
            failing.push(s.id.clone());
        }
        new.accept(&s);
        Ok::<(), stepreplay::InputError>(())
    })?;
    if !failing.is_empty() && !allow_failing {
        return Err(stepreplay::InputError::new(
            "",
            stepreplay::Reason::InvalidArgument,
            format!(
                "{} scenario{} not as expected ({}); a baseline would accept {}",
                failing.len(),
                if failing.len() == 1 { " is" } else { "s are" },
                failing.join(", "),
                if failing.len() == 1 { "it" } else { "them" }
            ),
        )
        .hint("fix the plan or the scenario's expect, or accept with --allow-failing")
        .into());
    }
    let text = new.to_json();
    // Read (and check) the old one: a review against garbage would say nothing, and a
    // baseline that cannot be read is replaced only when asked to.
    let old = if out.exists() {
        match Baseline::load(&out) {
            Ok(old) => Some(old),
            Err(e) if force => {
                println!("replacing a baseline that cannot be read (--force): {e}");
                None
            }
            Err(e) => {
                return Err(stepreplay::InputError::new(
                    &out,
                    e.reason,
                    format!("the current baseline cannot be read, so it is left as it is: {e}"),
                )
                .hint("look at it, or replace it with `stepreplay baseline accept --force`")
                .into());
            }
        }
    } else {
        None
    };
    match &old {
        Some(old) if old.to_json() == text => {
            println!("{} is unchanged", out.display());
            return Ok(0);
        }
        Some(old) => {
            let changes = baseline_changes(old, &new);
            let n = changes.len();
            let s = if n == 1 { "" } else { "s" };
            println!("{n} change{s} in {}:", out.display());
            for line in &changes {
                println!("  {line}");
            }
        }
        None => println!("new baseline: {} scenarios", new.scenarios.len()),
    }
    if !failing.is_empty() {
        println!(
            "accepting {} not as expected (--allow-failing): {}",
            failing.len(),
            failing.join(", ")
        );
    }
    // Atomic: the old baseline stays whole until the new one is on disk under its name.
    write_file(&out, text)?;
    g.note(format!("wrote {}", out.display()));
    Ok(0)
}
