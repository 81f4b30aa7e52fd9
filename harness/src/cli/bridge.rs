//! `stepreplay bridge init DIR [--state FILE]` and `stepreplay bridge [run] DIR`.
//!
//! `bridge DIR` is short for `bridge run DIR`; a folder literally named `init` or `run` is
//! reached as `bridge run ./init`.

use std::path::PathBuf;

use crate::Error;
use crate::bridge::{State, Status, SweepReport, init, read_state, sweep};
use crate::json::to_canonical_value;
use crate::text::plural;

use super::Global;
use super::OutputFormat;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stepreplay bridge init bridge/
  stepreplay bridge run bridge/ --format json")]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct Args {
    #[command(subcommand)]
    action: Option<Action>,
    /// The bridge folder whose inbox to process once (as `bridge run DIR`).
    #[arg(required = true)]
    dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Lay out a bridge folder: manifest.json (state + built-in catalog), inbox/, processed/, failed/.
    Init {
        /// The folder to create.
        dir: PathBuf,
        /// The app's starting state (the manifest's `state` object); empty when omitted.
        #[arg(long)]
        state: Option<PathBuf>,
    },
    /// Process the inbox once, exactly as the app would, and print a summary.
    Run {
        /// The bridge folder.
        dir: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: OutputFormat,
    },
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    match args.action {
        Some(Action::Init { dir, state }) => {
            let state = match state {
                Some(p) => read_state(&p)?,
                None => State::default(),
            };
            let m = init(&dir, state)?;
            g.note(format!(
                "bridge folder ready: {} ({} built-in workouts, {} routines, {} plans)",
                dir.display(),
                m.catalog.len(),
                m.state.routines.len(),
                m.state.plans.len()
            ));
            Ok(0)
        }
        Some(Action::Run { dir, format }) => process(dir, format),
        None => match args.dir {
            Some(dir) => process(dir, args.format),
            None => Err(Error::Internal("clap requires DIR".into())),
        },
    }
}

fn process(dir: PathBuf, format: OutputFormat) -> Result<u8, Error> {
    let report = sweep(&dir)?;
    match format {
        OutputFormat::Json => print!("{}", to_canonical_value(&report)),
        OutputFormat::Human => print!("{}", render(&dir, &report)),
    }
    Ok(0)
}

fn render(dir: &std::path::Path, r: &SweepReport) -> String {
    let (ok, failed, dup) = r.counts();
    let mut out = format!(
        "bridge {}: {}: {ok} succeeded, {failed} failed, {}\n",
        dir.display(),
        plural(r.files.len(), "file", "files"),
        plural(dup, "duplicate", "duplicates")
    );
    for p in &r.files {
        let o = &p.outcome;
        let tag = match (o.is_duplicate(), o.status) {
            (true, _) => "dup",
            (false, Status::Succeeded) => "ok",
            (false, Status::Failed) => "failed",
        };
        let what = match (o.status, o.reason) {
            (Status::Failed, Some(reason)) => {
                let at = o
                    .field_path
                    .as_deref()
                    .map(|p| format!(" at `{p}`"))
                    .unwrap_or_default();
                format!("{reason}{at}: {}", o.message.as_deref().unwrap_or(""))
            }
            _ => format!(
                "{} → {}",
                o.verb.as_deref().unwrap_or("?"),
                o.resulting_ids.as_deref().unwrap_or_default().join(", ")
            ),
        };
        out.push_str(&format!(
            "  {tag:<6} {}  {}/{}.outcome.json  {what}\n",
            p.inbox_file,
            p.folder.name(),
            o.command_id
        ));
    }
    out
}
