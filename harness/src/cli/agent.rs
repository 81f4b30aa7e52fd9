//! `stepreplay agent --cmd "PROGRAM ARGS" [SCENARIOS…]`: run an AI agent on the simulated
//! desktop and score how well — and how safely — it follows each plan (see `crate::agent`).
//! Its results are reported as `run`'s are, by the same writer.

use std::path::PathBuf;
use std::time::Duration;

use crate::agent::bridge::SCHEMA as BRIDGE_TASK;
use crate::agent::{EpisodeOptions, run_bridge_task};
use crate::errors::{Error, InputError, Reason};
use crate::replay::Mode;
use crate::report::{End, Session};
use crate::scenario::SCENARIO_SCHEMA;
use crate::shard::Shard;
use crate::suite::{broken_results, load_suite};

use super::depth_arg::DepthArg;
use super::output_args::{OutputArgs, say};
use super::select_args::{SelectArgs, none_match};
use super::{Global, OutputFormat};

#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  stepreplay agent --cmd \"python3 examples/reference-agent.py\" scenarios/mail-send-reminder.json")]
pub(crate) struct Args {
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
    /// Write the reports here, as `run` does (`report.json`, `junit.xml` with a `compliance`
    /// case per scenario, `summary.md`, `index.html`).
    #[arg(long, value_name = "DIR")]
    report_dir: Option<PathBuf>,
    /// What to print: lines for people, or the report JSON (as `run --format json` prints it).
    #[arg(long, value_enum, default_value = "human")]
    format: OutputFormat,
    /// Run only part `k` of `n` (1-based), split as `run --shard` splits a suite; join the
    /// parts' reports with `stepreplay merge`.
    #[arg(long, value_name = "K/N", value_parser = super::select_args::shard)]
    shard: Option<Shard>,
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    depth: DepthArg,
    #[command(flatten)]
    out: OutputArgs,
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let say = say(g, args.format);
    let argv: Vec<String> = args.cmd.split_whitespace().map(str::to_string).collect();
    if argv.is_empty() {
        return Err(super::usage(InputError::new(
            "--cmd",
            Reason::InvalidArgument,
            "the agent command is empty",
        )));
    }
    let select = args
        .select
        .select_without_last_run(args.out.gated(), "agent")?;
    args.out.apply_wait();
    let gate = args.out.gate()?;
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("scenarios")]
    } else {
        args.paths.clone()
    };
    let schemas = [SCENARIO_SCHEMA, BRIDGE_TASK];
    let files: Vec<PathBuf> = crate::suite::discover_schemas(&paths, &schemas)?
        .into_iter()
        .filter(|p| crate::scenario::sniff_schema(p).is_some_and(|s| schemas.contains(&s.as_str())))
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
    let follower = |sc: &_, plan: &_, rec: &_, reference: &_, trace| {
        crate::agent::converse(sc, plan, rec, reference, trace, &opts)
    };
    if let Some(dir) = &args.transcript {
        crate::output::create_dir(dir)?;
    }
    let (tasks, plans): (Vec<PathBuf>, Vec<PathBuf>) = files
        .into_iter()
        .partition(|f| crate::scenario::sniff_schema(f).as_deref() == Some(BRIDGE_TASK));
    let modes = [Mode::Agent];
    let suite = (load_suite(&plans, args.shard)?.select(&select)).plan_depth(args.depth.levels());
    let mut all_ids = suite.all_ids.clone();
    // Agent-bridge tasks are narrowed and sharded by id as bridge batches are.
    let mut kept = Vec::new();
    for t in tasks {
        let id = crate::suite::bridge_id(&t)?;
        if select.keeps(&id, true, None, &[]) && args.shard.is_none_or(|s| s.contains(&id)) {
            kept.push(t);
        }
        all_ids.push(id);
    }
    all_ids.sort();
    let tasks = kept;
    if !select.is_all() && suite.scenarios.is_empty() && suite.broken.is_empty() && tasks.is_empty()
    {
        return Err(none_match(&select));
    }
    let asked = suite.scenarios.len() + suite.broken.len() + tasks.len();
    let session = Session::open(args.report_dir.as_deref(), &modes)?.with_progress(asked, say);
    // From here a Ctrl-C or SIGTERM stops starting scenarios and writes what was judged.
    super::stop::install_stop_handler();
    let running = || !super::stop::STOP.load(std::sync::atomic::Ordering::SeqCst);
    // One at a time: each scenario starts its own agent process.
    for sc in suite.scenarios.iter().take_while(|_| running()) {
        session.add(&crate::suite::agent_episode(sc, &follower))?;
    }
    for t in tasks.iter().take_while(|_| running()) {
        session.add(&run_bridge_task(t, &opts))?;
    }
    for r in broken_results(&suite.broken, &modes) {
        session.add(&r)?;
    }
    let end = End {
        dir: args.report_dir.as_deref(),
        outputs: args.out.outputs("report.json"),
        gate: gate.as_ref(),
        json_stdout: args.format == OutputFormat::Json,
        stopped: super::stop::stopped_by(),
        narrowed: (!select.is_all()).then(|| format!("{asked} scenarios, by {}", select.flags())),
        shard: args.shard.map(|s| (s, all_ids)),
        ..End::new(say, g.error_prefix(), asked)
    };
    session.finish(end)
}
