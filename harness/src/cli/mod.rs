//! Subcommands. Each file parses its own arguments and calls the library; none holds logic
//! another command or a test would need.

mod baseline;
mod check;
mod fmt;
mod merge;
mod run;

use clap::{Parser, Subcommand};
use stepreplay::Error;

/// Deterministic plan-replay test harness.
#[derive(Debug, Parser)]
#[command(name = "stepreplay", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Lint a plan before approval: schema, references, safety, canonical bytes.
    Check(check::Args),
    /// Rewrite plans in canonical form (or, with --check, report those that are not).
    Fmt(fmt::Args),
    /// Replay scenarios and write the reports (no paths: the checked-in suite).
    Run(run::Args),
    /// Join the reports of `run --shard k/n` into the whole run's report.
    Merge(merge::Args),
    /// Manage the accepted results `run --baseline` gates on.
    Baseline(baseline::Args),
}

/// Runs a parsed command line; the `u8` is the exit code.
pub fn run(cli: Cli) -> Result<u8, Error> {
    match cli.command {
        Command::Check(a) => check::run(a),
        Command::Fmt(a) => fmt::run(a),
        Command::Run(a) => run::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Baseline(a) => baseline::run(a),
    }
}

/// How to print: for people or for scripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Text for a person (coloured on a terminal).
    Human,
    /// One JSON object.
    Json,
}
