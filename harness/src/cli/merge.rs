//! `stepreplay merge --out FILE REPORT…`: join the shard reports of one run into the whole
//! run's report (byte-identical to an unsharded run's), and write its other formats beside it.
//! The parts are read an entry at a time, so a suite of any size merges in bounded memory.
//! Each scenario's time comes from its shard's `junit.xml`, when the shard wrote one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::errors::{Error, InputError, Reason};
use crate::output::check_set;
use crate::report::{
    End, MergeError, Say, Session, check_parts, load_report_head, merged_head, read_report_entries,
};
use crate::shard::{Durations, read_durations};
use crate::text::plural;

use super::Global;
use super::output_args::OutputArgs;

#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  stepreplay merge --out reports/report.json reports/shard-*/report.json")]
pub(crate) struct Args {
    /// Shard reports (`report.json` of each `run --shard k/n`), every k from 1 to n.
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// The merged `report.json`; the other formats go into its folder.
    #[arg(long, default_value = "reports/report.json")]
    out: PathBuf,
    #[command(flatten)]
    output: OutputArgs,
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    args.output.apply_wait();
    let gate = args.output.gate()?;
    // The parts' run-wide parts first: a part of another run is refused before any entry
    // is read. Then the entries, a part at a time, into a spill: what is held is an index.
    // A part that cannot be read is named on standard error and in the merged report, which
    // is then incomplete; the parts that were read still give their verdicts (exit 2).
    let mut heads = Vec::new();
    let mut read_from = Vec::new();
    let mut unread = Vec::new();
    for path in &args.reports {
        match check_set(path).and_then(|()| load_report_head(path)) {
            Ok(h) => {
                heads.push(h);
                read_from.push(path.clone());
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
    if heads.is_empty() {
        return Err(InputError::new(
            &args.reports[0],
            Reason::InvalidArgument,
            "cannot merge: no shard report could be read",
        )
        .into());
    }
    let unread = (!unread.is_empty()).then(|| unread.join("; "));
    check_parts(&heads, unread.is_some()).map_err(|e| refused(&read_from, &e))?;
    let dir = args
        .out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let session = Session::open(Some(&dir), &heads[0].modes)?;
    let times = shard_times(&read_from, g);
    for p in &read_from {
        read_report_entries(p, &mut |s| {
            let time = times.get(&s.id).copied().map(Duration::from_micros);
            session.add_entry(&s, time)
        })?;
    }
    let json = args
        .out
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("report.json")
        .to_string();
    let mut outputs = args.output.outputs(&json);
    outputs.json = Some(json);
    let end = End {
        dir: Some(&dir),
        outputs,
        gate: gate.as_ref(),
        // The shards printed their tables; the merge says its failures and its verdict.
        ..End::new(
            Say::new(true, true, g.color()),
            g.error_prefix(),
            heads.len(),
        )
    };
    let code = session.finish_with(end, |spill, totals| {
        merged_head(&heads, spill, totals, unread.as_deref()).map_err(|e| refused(&read_from, &e))
    })?;
    let read = if read_from.len() == args.reports.len() {
        plural(read_from.len(), "shard", "shards")
    } else {
        format!(
            "{} of {} shards given (incomplete)",
            read_from.len(),
            args.reports.len()
        )
    };
    g.note(format!("merged {read} → {}", args.out.display()));
    Ok(code)
}

/// Each scenario's time, from the `junit.xml` beside each shard's `report.json` when that
/// shard's manifest vouches for it (`report.json` has no times, so that it is byte-stable).
/// A shard that wrote none gives no times; one that is there but refused is said.
fn shard_times(reports: &[PathBuf], g: &Global) -> Durations {
    let mut out = Durations::new();
    for p in reports {
        let junit = p.with_file_name("junit.xml");
        match check_set(&junit).and_then(|()| read_durations(&junit)) {
            Ok(d) => out.extend(d),
            Err(e) if junit.is_file() => {
                g.progress(format!("note: {e} (its times are left out)"));
            }
            Err(_) => {}
        }
    }
    out
}

/// Why the parts cannot be merged, naming the report at fault (for a missing or repeated
/// part, the first one).
fn refused(reports: &[PathBuf], e: &MergeError) -> Error {
    let at = &reports[e.index().unwrap_or(1) - 1];
    Error::from(
        InputError::new(at, Reason::InvalidArgument, format!("cannot merge: {e}"))
            .hint("merge the report.json of every shard k/n of one run, from one harness"),
    )
}
