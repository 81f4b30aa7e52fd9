//! `stepreplay record-browser --plan P --pages DIR --out SUITE/recordings/NAME`: record a
//! devthink plan in headless Chromium (see `crate::recorder::browser`).

use std::path::PathBuf;

use crate::Error;
use crate::recorder::browser::{BrowserOptions, record_browser};

use super::Global;

#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  stepreplay record-browser --plan recordings/scripts/browser/login.json \\
      --pages recordings/scripts/browser/pages --out recordings/devthink-login")]
pub(crate) struct Args {
    /// The devthink protocolv2 plan to follow (every target must match one element).
    #[arg(long)]
    plan: PathBuf,
    /// The folder served at the plan's origin (`/` is its index.html); nothing else is fetched.
    #[arg(long)]
    pages: PathBuf,
    /// The recording folder to write.
    #[arg(long)]
    out: PathBuf,
    /// The viewport in CSS pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "800x600", value_parser = viewport)]
    viewport: (u32, u32),
    /// Device pixels per CSS pixel.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=3))]
    scale: u32,
    /// Replace a recording already in `--out`.
    #[arg(long)]
    force: bool,
}

fn viewport(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once('x')
        .ok_or_else(|| format!("`{s}` is not WIDTHxHEIGHT"))?;
    let n = |v: &str| {
        v.parse::<u32>()
            .ok()
            .filter(|n| (100..=4096).contains(n))
            .ok_or_else(|| format!("`{v}` is not a size from 100 to 4096"))
    };
    Ok((n(w)?, n(h)?))
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    let o = record_browser(&BrowserOptions {
        plan: args.plan,
        pages: args.pages,
        out: args.out.clone(),
        viewport: args.viewport,
        scale: args.scale,
        force: args.force,
    })?;
    g.note(format!(
        "recorded {} in {} with {} into {}",
        crate::text::plural(o.steps, "step", "steps"),
        crate::text::plural(o.frames, "frame", "frames"),
        o.browser,
        args.out.display()
    ));
    for id in &o.deduplicated {
        g.note(format!(
            "  step `{id}` not acted again: its idempotency key already ran"
        ));
    }
    Ok(0)
}
