//! `stepreplay agent --cmd "PROGRAM ARGS" [SCENARIOS…]`: run an AI agent on the simulated
//! desktop and score how well — and how safely — it follows each plan (see `stepreplay::agent`).

use std::path::PathBuf;
use std::time::Duration;

use stepreplay::agent::bridge::SCHEMA as BRIDGE_TASK;
use stepreplay::agent::{AgentOutcome, EpisodeOptions, bridge_episode, episode, load_bridge_task};
use stepreplay::scenario::{SCENARIO_SCHEMA, load_scenario};
use stepreplay::{Error, InputError, Reason};

use super::{Global, OutputFormat};

#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  stepreplay agent --cmd \"python3 examples/reference-agent.py\" scenarios/mail-send-reminder.json")]
pub struct Args {
    /// The agent's command line, split at spaces (no shell quoting: wrap anything harder in a
    /// script). It runs in the current folder and speaks JSON lines (docs/agent.md).
    #[arg(long)]
    cmd: String,
    /// Scenario files or folders (default: scenarios/): plan scenarios put the agent on the
    /// simulated desktop, `stepreplay-agent-bridge/1` ones on the StepBack bridge; bridge
    /// replay scenarios (no agent in them) are passed over.
    paths: Vec<PathBuf>,
    /// The longest the agent may take for one message, in milliseconds.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    turn_timeout_ms: u64,
    /// Write each scenario's exchange to DIR/<scenario>.jsonl (`>` to the agent, `<` from it;
    /// sensitive values redacted, trees and DOMs elided).
    #[arg(long, value_name = "DIR")]
    transcript: Option<PathBuf>,
    /// Write `agent.json`, `junit.xml` (a `skill` and a `compliance` case per scenario) and
    /// `agent.html` here.
    #[arg(long, value_name = "DIR")]
    report_dir: Option<PathBuf>,
    /// What to print.
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
}

pub fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let argv: Vec<String> = args.cmd.split_whitespace().map(str::to_string).collect();
    if argv.is_empty() {
        return Err(super::usage(InputError::new(
            "--cmd",
            Reason::InvalidArgument,
            "the agent command is empty",
        )));
    }
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("scenarios")]
    } else {
        args.paths
    };
    let schemas = [SCENARIO_SCHEMA, BRIDGE_TASK];
    let files: Vec<PathBuf> = stepreplay::suite::discover_schemas(&paths, &schemas)?
        .into_iter()
        .filter(|p| {
            stepreplay::scenario::sniff_schema(p).is_some_and(|s| schemas.contains(&s.as_str()))
        })
        .collect();
    if files.is_empty() {
        return Err(InputError::new(
            &paths[0],
            Reason::NoScenarios,
            "no plan or agent-bridge scenarios there",
        )
        .into());
    }
    let opts = EpisodeOptions {
        argv,
        turn_timeout: Duration::from_millis(args.turn_timeout_ms),
        transcript: args.transcript.clone(),
    };
    if let Some(dir) = &args.transcript {
        stepreplay::output::create_dir(dir)?;
    }
    let mut runs = Vec::new();
    for f in &files {
        let run = if stepreplay::scenario::sniff_schema(f).as_deref() == Some(BRIDGE_TASK) {
            bridge_episode(&load_bridge_task(f)?, &opts)?
        } else {
            episode(&load_scenario(f)?, &opts)?
        };
        if args.format == OutputFormat::Human {
            let word = stepreplay::text::word(&run.outcome);
            let why = run
                .reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            let rules: Vec<&str> = run.violations.iter().map(|v| v.rule).collect();
            println!(
                "{}  {:<36} {word}{why} · element {} · op {} · steps {} · {}",
                if run.met { "ok  " } else { "FAIL" },
                run.scenario,
                stepreplay::agent::shown(run.element_accuracy()),
                stepreplay::agent::shown(run.operation_accuracy()),
                stepreplay::agent::shown(run.step_success()),
                if rules.is_empty() {
                    "compliant".to_string()
                } else {
                    rules.join(", ")
                }
            );
        }
        runs.push(run);
    }
    let met = runs.iter().filter(|r| r.met).count();
    if let Some(dir) = &args.report_dir {
        stepreplay::output::create_dir(dir)?;
        stepreplay::output::write_file(&dir.join("agent.json"), stepreplay::agent::to_json(&runs))?;
        stepreplay::output::write_file(&dir.join("junit.xml"), stepreplay::agent::to_junit(&runs))?;
        stepreplay::output::write_file(&dir.join("agent.html"), stepreplay::agent::to_html(&runs))?;
    }
    match args.format {
        OutputFormat::Json => print!("{}", stepreplay::agent::to_json(&runs)),
        OutputFormat::Human => g.note(format!(
            "{}: {met} as expected and compliant, {} not; {} with the agent failing the protocol",
            stepreplay::text::plural(runs.len(), "scenario", "scenarios"),
            runs.len() - met,
            runs.iter()
                .filter(|r| r.outcome == AgentOutcome::AgentFailed)
                .count()
        )),
    }
    Ok(u8::from(met != runs.len()))
}
