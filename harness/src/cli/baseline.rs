//! `stepreplay baseline accept`: make a report the new baseline — explicitly, never as a side
//! effect of `run` — and show, scenario by scenario, what changes against the old one. A
//! report with scenarios not as expected is refused unless `--allow-failing` says so: a
//! baseline that accepts a failure turns the gate green on it. `baseline review` decides the
//! changes one scenario at a time, as `cargo insta review` does snapshots: accepted, rejected
//! or left pending in `<baseline>.new` beside it.

use std::path::PathBuf;

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::Path;

use crate::errors::{Error, InputError, Reason};
use crate::report::{
    Baseline, RegressionCause, Report, accept_some, baseline_changes, load_report,
    load_report_head, read_report_entries, review_items,
};
use crate::text::plural;

use super::Global;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stepreplay baseline accept                       # reports/report.json → reports/baseline.json
  stepreplay baseline accept --allow-failing
  stepreplay baseline accept --force               # replace an unreadable baseline
  stepreplay baseline review                       # each change: accept, reject or skip
  stepreplay baseline review --accept mail-send --reject settings-wifi-join")]
pub(crate) struct Args {
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
        /// When another stepreplay process is writing the baseline's folder, wait for it to
        /// end (saying so on standard error) instead of refusing.
        #[arg(long)]
        wait: bool,
    },
    /// Decide each scenario's change one at a time: accept it, reject it (the baseline keeps
    /// the old result) or leave it pending (kept in `<baseline>.new` for the next review).
    /// On a terminal it asks; otherwise `--accept`/`--reject` decide, or one answer a line on
    /// standard input (`a`ccept, `r`eject, `s`kip), in the order the changes are shown.
    Review {
        /// The report whose results are reviewed.
        #[arg(long, default_value = "reports/report.json")]
        report: PathBuf,
        /// The baseline to change.
        #[arg(long, default_value = "reports/baseline.json")]
        out: PathBuf,
        /// Accept this scenario's change (repeatable; `(all scenarios)` for the totals).
        #[arg(long, value_name = "ID")]
        accept: Vec<String>,
        /// Reject this scenario's change (repeatable).
        #[arg(long, value_name = "ID")]
        reject: Vec<String>,
        /// Let a scenario not as expected be accepted.
        #[arg(long)]
        allow_failing: bool,
        /// When another stepreplay process is writing the baseline's folder, wait for it to
        /// end (saying so on standard error) instead of refusing.
        #[arg(long)]
        wait: bool,
    },
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let (report, out, allow_failing, force) = match args.command {
        Sub::Accept {
            report,
            out,
            allow_failing,
            force,
            wait,
        } => {
            crate::output::wait_for_locks(wait);
            (report, out, allow_failing, force)
        }
        Sub::Review {
            report,
            out,
            accept,
            reject,
            allow_failing,
            wait,
        } => {
            crate::output::wait_for_locks(wait);
            let _lock = lock_baseline_folder(&out)?;
            let decided = Decided { accept, reject };
            return review(&report, &out, &decided, allow_failing, g);
        }
    };
    let _lock = lock_baseline_folder(&out)?;
    let report_path = report;
    // The run-wide part first (its checks need no entry), then the entries one at a time:
    // a baseline keeps a few scores of each, so a report of any size is accepted.
    crate::output::check_set(&report_path)?;
    let report = load_report_head(&report_path)?;
    refuse_partial(&report, &report_path)?;
    let mut new = Baseline::accepting(&report);
    let mut failing: Vec<String> = Vec::new();
    read_report_entries(&report_path, &mut |s| {
        if !s.met {
            failing.push(s.id.clone());
        }
        new.accept(&s);
        Ok::<(), crate::InputError>(())
    })?;
    // A narrowed run (`--grep`, `--filter`) updates only its own scenarios' entries.
    if let Some(narrowed) = &report.narrowed {
        let Ok(old) = Baseline::load(&out) else {
            return Err(crate::InputError::new(
                &report_path,
                crate::Reason::InvalidArgument,
                format!(
                    "this run was narrowed ({narrowed}) and there is no readable baseline at `{}` to update",
                    out.display()
                ),
            )
            .hint("accept a run of the whole suite first")
            .into());
        };
        println!("narrowed run ({narrowed}): updating only its scenarios' entries");
        new = old.updated_by(new);
    }
    if !failing.is_empty() && !allow_failing {
        return Err(crate::InputError::new(
            "",
            crate::Reason::InvalidArgument,
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
    // Read (and check) the old one: a review against garbage would say nothing, and a
    // baseline that cannot be read is replaced only when asked to.
    let old = if out.exists() {
        match Baseline::load(&out) {
            Ok(old) => Some(old),
            Err(e) if force => {
                println!("replacing a baseline that cannot be read (--force): {e}");
                None
            }
            Err(e) => return Err(unreadable(&out, &e)),
        }
    } else {
        None
    };
    match &old {
        Some(old) if *old == new => {
            println!("{} is unchanged", out.display());
            return Ok(0);
        }
        Some(old) => {
            let changes = baseline_changes(old, &new);
            let n = plural(changes.len(), "change", "changes");
            println!("{n} in {}:", out.display());
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
    new.write(&out)?;
    // Everything is accepted: nothing is left pending.
    let _ = std::fs::remove_file(pending_path(&out));
    g.note(format!("wrote {}", out.display()));
    Ok(0)
}

/// Locks the folder the baseline `out` is written in, for as long as the lock is held: one
/// writer of a baseline (and of the report beside it) at a time.
fn lock_baseline_folder(out: &Path) -> Result<Option<crate::output::FolderLock>, Error> {
    let dir = out.parent().filter(|p| !p.as_os_str().is_empty());
    crate::output::lock_folder(dir.unwrap_or(Path::new(".")))
}

/// The report at `path`, refused when it is incomplete or one shard's: a baseline holds the
/// whole suite.
fn whole_report(path: &Path) -> Result<Report, Error> {
    crate::output::check_set(path)?;
    let report = load_report(path)?;
    refuse_partial(&report, path)?;
    if let Some(n) = &report.narrowed {
        return Err(InputError::new(
            path,
            Reason::InvalidArgument,
            format!("this run was narrowed ({n}); a review compares the whole suite"),
        )
        .hint("run the whole suite to review it, or accept the narrowed run's scenarios: stepreplay baseline accept")
        .into());
    }
    Ok(report)
}

/// A baseline holds the whole suite: an incomplete report or one shard's is refused.
fn refuse_partial(report: &Report, path: &Path) -> Result<(), Error> {
    if let Some(why) = &report.incomplete {
        return Err(crate::InputError::new(
            path,
            crate::Reason::InvalidArgument,
            format!("this report is incomplete ({why}); a baseline must hold the whole suite"),
        )
        .hint("run the suite to the end, then accept its report")
        .into());
    }
    if report.shard.is_some() {
        return Err(crate::InputError::new(
            "",
            crate::Reason::InvalidArgument,
            "this is one shard's report; a baseline must hold the whole suite",
        )
        .hint("merge the shards first: stepreplay merge --out reports/report.json …")
        .into());
    }
    Ok(())
}

fn unreadable(out: &Path, e: &InputError) -> Error {
    InputError::new(
        out,
        e.reason,
        format!("the current baseline cannot be read, so it is left as it is: {e}"),
    )
    .hint("look at it, or replace it with `stepreplay baseline accept --force`")
    .into()
}

/// Where a review keeps the changes it left pending: the new baseline beside the old one, as
/// insta keeps `.snap.new` beside a snapshot.
fn pending_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".new");
    PathBuf::from(name)
}

/// The ids `--accept` and `--reject` name.
struct Decided {
    accept: Vec<String>,
    reject: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Answer {
    Accept,
    Reject,
    Pending,
}

/// `baseline review`: each change decided on its own; the baseline takes the accepted ones,
/// `<baseline>.new` keeps the whole new baseline while any is pending.
fn review(
    report_path: &Path,
    out: &Path,
    decided: &Decided,
    allow_failing: bool,
    g: &Global,
) -> Result<u8, Error> {
    let report = whole_report(report_path)?;
    let new = Baseline::from_report(&report);
    let old = match Baseline::load(out) {
        Ok(old) => old,
        Err(e) if !out.exists() => {
            return Err(
                InputError::new(out, e.reason, "there is no baseline to review against")
                    .hint("accept a first one with `stepreplay baseline accept`")
                    .into(),
            );
        }
        Err(e) => return Err(unreadable(out, &e)),
    };
    let items = review_items(&old, &new);
    for id in decided.accept.iter().chain(&decided.reject) {
        if !items.iter().any(|(i, _)| i == id) {
            let ids: Vec<&str> = items.iter().map(|(i, _)| i.as_str()).collect();
            return Err(super::usage(
                InputError::new(
                    "--accept",
                    Reason::UnknownId,
                    format!("`{id}` has no change to review"),
                )
                .hint(format!("the changes are to: {}", ids.join(", "))),
            ));
        }
    }
    if items.is_empty() {
        println!("{} is unchanged: nothing to review", out.display());
        let _ = std::fs::remove_file(pending_path(out));
        return Ok(0);
    }
    let flags = !decided.accept.is_empty() || !decided.reject.is_empty();
    let ask = !flags && std::io::stdin().is_terminal();
    let mut answers = (!flags && !ask).then(|| std::io::stdin().lock().lines());
    let n = plural(items.len(), "change", "changes");
    println!("{n} to review in {}:", out.display());
    let (mut accepted, mut rejected, mut pending) = (Vec::new(), 0, 0);
    for (id, line) in &items {
        // The cause and its place first, then what changed, as `cargo insta review` shows the
        // snapshot's diff before asking.
        let entry = report.scenarios.iter().find(|s| &s.id == id);
        if let Some(c) = entry.and_then(|s| RegressionCause::of(s, report.modes.first().copied())) {
            println!("  {id} went wrong at {}: {}", c.place(), c.step);
        }
        println!("  {line}");
        let mut answer = if decided.accept.contains(id) {
            Answer::Accept
        } else if decided.reject.contains(id) {
            Answer::Reject
        } else if ask {
            print!("    accept, reject or skip? [a/r/s] ");
            let _ = std::io::stdout().flush();
            let mut l = String::new();
            std::io::stdin()
                .read_line(&mut l)
                .map_err(|e| Error::Internal(e.to_string()))?;
            parse_answer(&l)
        } else {
            match answers.as_mut().and_then(Iterator::next) {
                Some(Ok(l)) => parse_answer(&l),
                _ => Answer::Pending,
            }
        };
        let failing = new.scenarios.get(id).is_some_and(|s| !s.met);
        if answer == Answer::Accept && failing && !allow_failing {
            println!("    left pending: it is not as expected (accept it with --allow-failing)");
            answer = Answer::Pending;
        }
        match answer {
            Answer::Accept => {
                println!("    accepted");
                accepted.push(id.clone());
            }
            Answer::Reject => {
                println!("    rejected");
                rejected += 1;
            }
            Answer::Pending => {
                println!("    pending");
                pending += 1;
            }
        }
    }
    if !accepted.is_empty() {
        // Atomic: the old baseline stays whole until the new one is on disk under its name.
        accept_some(&old, &new, &accepted).write(out)?;
    }
    let new_path = pending_path(out);
    if pending > 0 {
        new.write(&new_path)?;
    } else {
        let _ = std::fs::remove_file(&new_path);
    }
    let left = if pending > 0 {
        format!(" (kept in {})", new_path.display())
    } else {
        String::new()
    };
    g.note(format!(
        "{} accepted, {rejected} rejected, {pending} pending{left}",
        accepted.len()
    ));
    Ok(0)
}

fn parse_answer(line: &str) -> Answer {
    match line.trim().to_lowercase().as_str() {
        "a" | "accept" | "y" | "yes" => Answer::Accept,
        "r" | "reject" | "n" | "no" => Answer::Reject,
        _ => Answer::Pending,
    }
}
