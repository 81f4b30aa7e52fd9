//! `stepreplay serve --inbox DIR`: the harness's job inbox (see `crate::serve`).
//!
//! Ctrl-C (SIGINT) or SIGTERM asks the server to stop after the file in hand; a second
//! Ctrl-C ends it at once, which is safe too, since every step is crash-safe.

use std::path::PathBuf;
use std::time::Duration;

use crate::Error;
use crate::serve::{ServeOptions, serve};
use crate::text::plural;

use super::Global;
use super::stop::{STOP, install_stop_handler};

/// Test hook: abort right after this many outcomes, before moving the job file.
const CRASH_ENV: &str = "STEPREPLAY_SERVE_CRASH_AFTER";

#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  stepreplay serve --inbox jobs/     # then drop job files into jobs/inbox/")]
pub(crate) struct Args {
    /// The jobs folder: job files go in DIR/inbox/, outcomes come back in DIR/processed/
    /// and DIR/failed/ (created if missing).
    #[arg(long, value_name = "DIR")]
    inbox: PathBuf,
    /// The folder job paths are relative to (and may not leave). Default: current folder.
    #[arg(long, value_name = "DIR", default_value = ".")]
    base: PathBuf,
    /// Process the inbox until it is empty, then exit.
    #[arg(long)]
    once: bool,
    /// Milliseconds between looks at an empty inbox.
    #[arg(long, default_value_t = 200)]
    poll_ms: u64,
}

pub(crate) fn run(args: Args, g: &Global) -> Result<u8, Error> {
    install_stop_handler();
    let mut opts = ServeOptions::new(args.base);
    opts.once = args.once;
    opts.poll = Duration::from_millis(args.poll_ms.max(1));
    opts.crash_after = std::env::var(CRASH_ENV).ok().and_then(|v| v.parse().ok());
    if !args.once && !g.quiet() {
        eprintln!(
            "serving {} (Ctrl-C to stop)",
            args.inbox.join("inbox").display()
        );
    }
    let s = serve(&args.inbox, &opts, &STOP)?;
    g.note(format!(
        "serve: {} run ({} succeeded), {}, {} resumed{}",
        plural(s.ran, "job", "jobs"),
        s.succeeded,
        plural(s.duplicates, "duplicate", "duplicates"),
        s.resumed,
        if s.stopped { ", stopped" } else { "" }
    ));
    Ok(0)
}
