//! The command line: subcommands, each in its own file, that parse their arguments and call
//! the library; none holds logic another command or a test would need.

mod agent;
mod baseline;
mod bridge;
mod check;
mod completions;
mod depth_arg;
mod diff;
mod fmt;
mod import;
mod init;
mod merge;
mod mutate;
mod output_args;
#[cfg(target_os = "linux")]
mod record;
#[cfg(target_os = "linux")]
mod record_browser;
mod run;
mod select_args;
mod serve;
mod show;
mod show_report;
mod stop;
mod synth;

use std::io::IsTerminal;
use std::process::ExitCode;

use crate::Error;
use clap::{Parser, Subcommand};

/// Deterministic plan-replay test harness.
#[derive(Debug, Parser)]
#[command(name = "stepreplay", version, about, max_term_width = 100)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    global: Global,
}

/// Options every command takes, before or after its name.
#[derive(Debug, clap::Args)]
pub(crate) struct Global {
    /// When to colour what is printed: `auto` on a terminal unless NO_COLOR is set or TERM=dumb.
    #[arg(
        long,
        value_enum,
        default_value = "auto",
        global = true,
        value_name = "WHEN"
    )]
    color: ColorChoice,
    /// Print only what a script needs: findings, failures, results and errors; no progress,
    /// notes or "wrote" lines.
    #[arg(long, short = 'q', global = true)]
    quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl Global {
    /// Whether to colour standard output.
    pub(crate) fn color(&self) -> bool {
        self.colors(std::io::stdout().is_terminal())
    }

    /// Whether to colour standard error.
    pub(crate) fn color_stderr(&self) -> bool {
        self.colors(std::io::stderr().is_terminal())
    }

    fn colors(&self, terminal: bool) -> bool {
        match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => auto_colour(
                terminal,
                std::env::var_os("NO_COLOR").as_deref(),
                std::env::var_os("TERM").as_deref(),
            ),
        }
    }

    /// Whether `-q` was given.
    pub(crate) fn quiet(&self) -> bool {
        self.quiet
    }

    /// Prints a line a person reads and a script does not need ("wrote …"), unless `-q`.
    pub(crate) fn note(&self, line: impl std::fmt::Display) {
        if !self.quiet {
            println!("{line}");
        }
    }

    /// A progress line on standard error (so standard output stays the result), unless `-q`.
    pub(crate) fn progress(&self, line: impl std::fmt::Display) {
        if !self.quiet {
            eprintln!("  {line}");
        }
    }

    /// The `error:` prefix, red when standard error is coloured.
    pub(crate) fn error_prefix(&self) -> &'static str {
        if self.color_stderr() {
            "\x1b[1;31merror\x1b[0m:"
        } else {
            "error:"
        }
    }
}

/// A flag's value that is a share, 0 to 1 (clap turns a refusal into a usage error, 64).
pub(crate) fn unit_interval(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{s} is outside 0..1"))
    }
}

/// A flag's value that is a finite number ≥ 0.
pub(crate) fn non_negative(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("{s} must be a number ≥ 0"))
    }
}

/// A command line that asks for something impossible (exit 64, as sysexits' EX_USAGE, so a
/// script tells a mistyped command from a bad plan, which exits 2).
pub(crate) fn usage(e: crate::InputError) -> Error {
    Error::Usage(Box::new(e))
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
    /// Run an AI agent on the simulated desktop and score its skill and its safety.
    Agent(agent::Args),
    /// Simulate the StepBack app's side of the agent bridge: `bridge init DIR`, `bridge [run] DIR`.
    Bridge(bridge::Args),
    /// Serve the harness's own job inbox (check plans, run scenarios) from a folder.
    Serve(serve::Args),
    /// Write a synthetic recording (and its plan, crops and scenarios) from a desktop script.
    Synth(synth::Args),
    /// Record a real app on a live Linux desktop (Xvfb, AT-SPI): recording, plan, scenario.
    #[cfg(target_os = "linux")]
    Record(record::Args),
    /// Record a devthink browser plan in headless Chromium: screenshots, DOM, AX tree.
    #[cfg(target_os = "linux")]
    RecordBrowser(record_browser::Args),
    /// Import a real recording (`realrec`: screenshots, AX trees, steps) for replay.
    Import(import::Args),
    /// Print a recording's frames, transitions and AX trees as text.
    Show(show::Args),
    /// Print where a run's HTML report is (and open it with --open).
    ShowReport(show_report::Args),
    /// The gate's mutation score: one-fault copies of each passing plan, and which it catches.
    Mutate(mutate::Args),
    /// Join the reports of `run --shard k/n` into the whole run's report.
    Merge(merge::Args),
    /// Manage the accepted results `run --baseline` gates on.
    Baseline(baseline::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionArgs),
    /// Print the man page (or write one per subcommand with --out).
    Man(completions::ManArgs),
}

/// The whole program: parses the command line, runs it and turns the outcome into an exit code.
pub fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let args = match Cli::try_parse() {
        Ok(args) => args,
        // Help and version are not errors; a mistyped command line is a usage error.
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(crate::USAGE_EXIT);
        }
    };
    let prefix = args.global.error_prefix();
    match run(args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{prefix} {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// `stepreplay show REC | head` must end quietly when `head` stops reading, as other Unix
/// tools do, not panic in `println!`: Rust ignores SIGPIPE, so restore its default.
fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Runs a parsed command line; the `u8` is the exit code.
fn run(cli: Cli) -> Result<u8, Error> {
    let g = &cli.global;
    match cli.command {
        Command::Check(a) => check::run(a, g),
        Command::Diff(a) => diff::run(a, g),
        Command::Fmt(a) => fmt::run(a, g),
        Command::Run(a) => run::run(a, g),
        Command::Init(a) => init::run(a, g),
        Command::Bridge(a) => bridge::run(a, g),
        Command::Agent(a) => agent::run(a, g),
        Command::Serve(a) => serve::run(a, g),
        Command::Synth(a) => synth::run(a, g),
        Command::Show(a) => show::run(a, g),
        Command::ShowReport(a) => show_report::run(a, g),
        Command::Import(a) => import::run(a, g),
        #[cfg(target_os = "linux")]
        Command::Record(a) => record::run(a, g),
        #[cfg(target_os = "linux")]
        Command::RecordBrowser(a) => record_browser::run(a, g),
        Command::Merge(a) => merge::run(a, g),
        Command::Mutate(a) => mutate::run(a, g),
        Command::Baseline(a) => baseline::run(a, g),
        Command::Completions(a) => completions::completions(a),
        Command::Man(a) => completions::man(a, g),
    }
}

/// How to print: for people or for scripts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    /// Text for a person (coloured on a terminal).
    Human,
    /// One JSON object.
    Json,
}

/// `--color auto`: a terminal that is not `TERM=dumb`, unless `NO_COLOR` says otherwise
/// (no-color.org: an empty `NO_COLOR` does not count).
fn auto_colour(
    terminal: bool,
    no_color: Option<&std::ffi::OsStr>,
    term: Option<&std::ffi::OsStr>,
) -> bool {
    terminal && no_color.is_none_or(|v| v.is_empty()) && term.is_none_or(|t| t != "dumb")
}

#[cfg(test)]
mod colour_tests {
    use std::ffi::OsStr;

    use super::auto_colour;

    #[test]
    fn auto_colour_needs_a_terminal_that_can_show_it() {
        let s = |v: &'static str| Some(OsStr::new(v));
        assert!(auto_colour(true, None, s("xterm-256color")));
        assert!(auto_colour(true, s(""), None));
        assert!(!auto_colour(false, None, s("xterm")));
        assert!(!auto_colour(true, s("1"), s("xterm")));
        assert!(!auto_colour(true, None, s("dumb")));
    }
}
