//! `stepreplay record --script S --out SUITE/recordings/NAME [-- CMD ARGS]`: record a real app
//! on a live desktop (see `stepreplay::recorder`).

use std::path::PathBuf;
use std::time::Duration;

use stepreplay::Error;
use stepreplay::recorder::script::read_script;
use stepreplay::recorder::{RecordOptions, record};

use super::Global;
use super::stop::{STOP, install_stop_handler};

#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  stepreplay record --xvfb --script recordings/scripts/record/gtk3-zenity-contact.json --out /tmp/zenity")]
pub struct Args {
    /// The action script (`stepreplay-record-script/1`: the app, inputs, steps).
    #[arg(long)]
    script: PathBuf,
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
    /// Also keep the raw capture (screens, AT-SPI trees, steps) in this folder.
    #[arg(long, value_name = "DIR")]
    keep_capture: Option<PathBuf>,
    /// The app to start, instead of the script's "app".
    #[arg(last = true, value_name = "CMD")]
    app: Vec<String>,
}

pub fn run(args: Args, g: &Global) -> Result<u8, Error> {
    install_stop_handler();
    let mut script = read_script(&args.script)?;
    if !args.app.is_empty() {
        script.app = args.app;
    }
    let opts = RecordOptions {
        script,
        script_path: args.script,
        out: args.out.clone(),
        own_display: args.xvfb,
        force: args.force,
        settle_timeout: Duration::from_millis(args.settle_ms.max(100)),
        keep_capture: args.keep_capture,
    };
    let o = record(&opts, &STOP)?;
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
