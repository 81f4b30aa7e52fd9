//! Subcommands. Each file parses its own arguments and calls the library; none holds logic
//! another command or a test would need.

mod baseline;
mod bridge;
mod check;
mod completions;
mod diff;
mod fmt;
mod import;
mod init;
mod merge;
#[cfg(target_os = "linux")]
mod record;
mod run;
mod serve;
mod show;
mod stop;
mod synth;

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
    /// Diff two screenshots (pixelmatch-exact) or two AX snapshots (by element id).
    Diff(diff::Args),
    /// Rewrite plans in canonical form (or, with --check, report those that are not).
    Fmt(fmt::Args),
    /// Replay scenarios and write the reports (no paths: the checked-in suite).
    Run(run::Args),
    /// Write a first scenario file for a plan and a recording, filled from the plan.
    Init(init::Args),
    /// Simulate the StepBack app's side of the agent bridge: `bridge init DIR`, `bridge [run] DIR`.
    Bridge(bridge::Args),
    /// Serve the harness's own job inbox (check plans, run scenarios) from a folder.
    Serve(serve::Args),
    /// Write a synthetic recording (and its plan, crops and scenarios) from a desktop script.
    Synth(synth::Args),
    /// Record a real app on a live Linux desktop (Xvfb, AT-SPI): recording, plan, scenario.
    #[cfg(target_os = "linux")]
    Record(record::Args),
    /// Import a real recording (`realrec`: screenshots, AX trees, steps) for replay.
    Import(import::Args),
    /// Print a recording's frames, transitions and AX trees as text.
    Show(show::Args),
    /// Join the reports of `run --shard k/n` into the whole run's report.
    Merge(merge::Args),
    /// Manage the accepted results `run --baseline` gates on.
    Baseline(baseline::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionArgs),
    /// Print the man page (or write one per subcommand with --out).
    Man(completions::ManArgs),
}

/// Runs a parsed command line; the `u8` is the exit code.
pub fn run(cli: Cli) -> Result<u8, Error> {
    match cli.command {
        Command::Check(a) => check::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Fmt(a) => fmt::run(a),
        Command::Run(a) => run::run(a),
        Command::Init(a) => init::run(a),
        Command::Bridge(a) => bridge::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Synth(a) => synth::run(a),
        Command::Show(a) => show::run(a),
        Command::Import(a) => import::run(a),
        #[cfg(target_os = "linux")]
        Command::Record(a) => record::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Baseline(a) => baseline::run(a),
        Command::Completions(a) => completions::completions(a),
        Command::Man(a) => completions::man(a),
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
