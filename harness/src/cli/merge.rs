//! `stepreplay merge --out FILE REPORT…`: join the shard reports of one run into the whole
//! run's report (byte-identical to an unsharded run's), and write its other formats beside it.

use std::path::{Path, PathBuf};

use stepreplay::report::{load_report, merge_with_gaps, write_outputs};
use stepreplay::text::plural;
use stepreplay::{Error, InputError, Reason};

use super::output_args::{OutputArgs, say};
use super::{Global, OutputFormat};

#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  stepreplay merge --out reports/report.json reports/shard-*/report.json")]
pub struct Args {
    /// Shard reports (`report.json` of each `run --shard k/n`), every k from 1 to n.
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// The merged `report.json`; the other formats go into its folder.
    #[arg(long, default_value = "reports/report.json")]
    out: PathBuf,
    #[command(flatten)]
    output: OutputArgs,
}

pub fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let gate = args.output.gate()?;
    // A shard report that cannot be read is named on standard error and in the merged report,
    // which is then incomplete; the shards that were read still give their verdicts.
    let mut reports = Vec::new();
    let mut read_from = Vec::new();
    let mut unread = Vec::new();
    for path in &args.reports {
        match load_report(path) {
            Ok(r) => {
                reports.push(r);
                read_from.push(path);
            }
            Err(e) if args.reports.len() > 1 => {
                eprintln!("{} {e}", g.error_prefix());
                unread.push(format!(
                    "`{}` unreadable ({})",
                    path.display(),
                    e.reason.code()
                ));
            }
            Err(e) => return Err(e.into()),
        }
    }
    if reports.is_empty() {
        return Err(InputError::new(
            &args.reports[0],
            Reason::InvalidArgument,
            "cannot merge: no shard report could be read",
        )
        .into());
    }
    let unread = (!unread.is_empty()).then(|| unread.join("; "));
    let merged = merge_with_gaps(reports, unread.as_deref()).map_err(|e| {
        // Name the report at fault; for a missing or repeated part, the first one.
        let at = read_from[e.index().unwrap_or(1) - 1];
        Error::from(
            InputError::new(at, Reason::InvalidArgument, format!("cannot merge: {e}"))
                .hint("merge the report.json of every shard k/n of one run, from one harness"),
        )
    })?;
    let dir = args
        .out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let json = args
        .out
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("report.json")
        .to_string();
    // The shards' times stay in their own junit.xml; the merged one has none.
    let say = say(g, OutputFormat::Human);
    let mut outputs = args.output.outputs(&json);
    outputs.json = Some(json);
    let code = write_outputs(
        (&merged).into(),
        &Default::default(),
        &stepreplay::evidence::FromRecordings,
        &dir,
        &outputs,
        gate.as_ref(),
        &say,
    )?;
    g.note(format!(
        "merged {}: {}, {} as expected, {} not → {}",
        plural(args.reports.len(), "shard", "shards"),
        plural(merged.summary.scenarios as usize, "scenario", "scenarios"),
        merged.summary.met,
        merged.summary.not_met,
        args.out.display()
    ));
    Ok(if unread.is_some() { code.max(2) } else { code })
}
