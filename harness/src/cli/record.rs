//! `stepreplay record --script S --out SUITE/recordings/NAME [-- CMD ARGS]`: record a real app
//! on a live desktop (see `crate::recorder`); with `--plan`, follow a guide live instead.

use std::path::PathBuf;
use std::time::Duration;

use std::io::{BufRead as _, IsTerminal as _, Write as _};

use crate::errors::{Error, InputError, Reason};
use crate::recorder::script::read_script;
use crate::recorder::{Confirm, FollowOptions, RecordOptions, follow, record};
use crate::report::{End, Outputs, ScenarioReport, Session, print_steps};
use crate::suite::{LoadedSuite, RunOptions};

use super::Global;
use super::stop::{STOP, install_stop_handler, stopped_by};

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stepreplay record --xvfb --script recordings/scripts/record/gtk3-zenity-contact.json --out /tmp/s/recordings/zenity
  stepreplay record --xvfb --scenario scenarios/gtk3-zenity-contact.json --out /tmp/s/recordings/zenity-now -- zenity --forms …")]
pub(crate) struct Args {
    /// The action script (`stepreplay-record-script/1`: the app, inputs, steps).
    #[arg(long, required_unless_present_any = ["plan", "scenario"], conflicts_with_all = ["plan", "scenario"])]
    script: Option<PathBuf>,
    /// Follow this Foxstep guide live instead of a script: each step found on the live app,
    /// acted and kept; then the verdict per step, as `run` gives it on what was recorded.
    #[arg(long, value_name = "PLAN")]
    plan: Option<PathBuf>,
    /// Follow the plan of this scenario, with its input values and answers (a step that asks
    /// first is acted only when approved here or on the terminal).
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// With `--plan`: input values and answers, as `run --answers` reads them.
    #[arg(
        long,
        value_name = "FILE",
        requires = "plan",
        conflicts_with = "scenario"
    )]
    answers: Option<PathBuf>,
    /// The recording folder, `SUITE/recordings/NAME`; the plan and scenario go to
    /// `SUITE/scenarios/NAME/plan.json` and `SUITE/scenarios/NAME.json`.
    #[arg(long)]
    out: PathBuf,
    /// Start a private Xvfb even when $DISPLAY is set (what CI and reproducible recordings
    /// want; without $DISPLAY one is always started).
    #[arg(long)]
    xvfb: bool,
    /// Replace a recording, plan and scenario of that NAME that are already there.
    #[arg(long)]
    force: bool,
    /// Longest wait, in milliseconds, for the screen and tree to settle after a step.
    #[arg(long, default_value_t = 10_000)]
    settle_ms: u64,
    /// With `--plan` or `--scenario`: also write `run`'s reports of the replay here.
    #[arg(long, value_name = "DIR", conflicts_with = "script")]
    report_dir: Option<PathBuf>,
    /// Also keep the raw capture (screens, AT-SPI trees, steps) in this folder.
    #[arg(long, value_name = "DIR")]
    keep_capture: Option<PathBuf>,
    /// The app to start, instead of the script's "app".
    #[arg(last = true, value_name = "CMD")]
    app: Vec<String>,
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    install_stop_handler();
    let Some(script_path) = args.script.clone() else {
        return follow_live(args, g);
    };
    let mut script = read_script(&script_path)?;
    if !args.app.is_empty() {
        script.app = args.app;
    }
    let opts = RecordOptions {
        script,
        script_path,
        out: args.out.clone(),
        own_display: args.xvfb,
        force: args.force,
        settle_timeout: Duration::from_millis(args.settle_ms.max(100)),
        keep_capture: args.keep_capture,
    };
    let o = record(&opts, &STOP, &|line| g.progress(line))?;
    g.note(format!(
        "recorded {} steps in {} frames on {} into {}",
        o.steps,
        o.frames,
        o.display,
        args.out.display()
    ));
    g.note(format!("  plan:     {}", o.plan.display()));
    g.note(format!("  scenario: {}", o.scenario.display()));
    for u in &o.notes {
        println!("  {u}");
    }
    Ok(0)
}

/// `record --plan` / `--scenario`: follows the guide live, then replays it on what was kept.
fn follow_live(args: Args, g: &Global) -> Result<u8, Error> {
    let plan = match (&args.plan, &args.scenario) {
        (Some(p), _) => p.clone(),
        (None, Some(s)) => crate::scenario::load_scenario(s)?.plan_path,
        (None, None) => unreachable!("clap requires --script, --plan or --scenario"),
    };
    if args.app.is_empty() {
        return Err(InputError::new(
            "--plan",
            Reason::InvalidArgument,
            "a guide does not say how to start its app",
        )
        .hint("give the command after `--`: stepreplay record --plan PLAN --out DIR -- CMD ARGS")
        .into());
    }
    let opts = FollowOptions {
        plan,
        scenario: args.scenario.clone(),
        answers: args.answers.clone(),
        app: args.app.clone(),
        out: args.out.clone(),
        own_display: args.xvfb,
        force: args.force,
        settle_timeout: Duration::from_millis(args.settle_ms.max(100)),
        keep_capture: args.keep_capture.clone(),
    };
    let o = follow(&opts, &mut ask_on_terminal, &STOP, &|line| g.progress(line))?;
    g.note(format!(
        "followed {} live: {} steps acted, {} frames on {} into {}",
        opts.plan.display(),
        o.acted,
        o.frames,
        o.display,
        args.out.display()
    ));
    for u in &o.notes {
        println!("  {u}");
    }
    if let Some(why) = &o.halted {
        println!("stopped live at {why}");
    }
    // What was kept is replayed and judged as `run` judges it, in a run session.
    let say = super::output_args::say(g, super::OutputFormat::Human);
    let run = RunOptions {
        jobs: 1,
        modes: vec![crate::replay::Mode::Chained],
        perturb: Vec::new(),
        ocr: crate::replay::Ocr::Dom,
    };
    let dir = args.report_dir.as_deref();
    let session = Session::open(dir, &run.modes)?.with_progress(1, say);
    crate::suite::run(LoadedSuite::one(o.scenario), &run, &STOP, &|r| {
        session.add(&r)?;
        print_steps(&ScenarioReport::of(&r), &say);
        Ok(())
    })?;
    session.finish(End {
        dir,
        outputs: Outputs::every(),
        stopped: stopped_by(),
        ..End::new(say, g.error_prefix(), 1)
    })
}

/// Puts a step that asks first to the person at the terminal; anything but yes declines, and
/// with no terminal nobody can approve it.
fn ask_on_terminal(c: &Confirm<'_>) -> bool {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return false;
    }
    print!(
        "step {} “{}” asks first: {}\nGo on? [y/N] ",
        c.number, c.text, c.reason
    );
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    if stdin.lock().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_lowercase().as_str(), "y" | "yes")
}
