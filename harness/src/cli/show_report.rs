//! `stepreplay show-report [DIR] [--open]`: print where a run's HTML page is, as Playwright's
//! `show-report` does, and open it in the desktop's browser only when asked.

use std::path::PathBuf;

use crate::errors::{Error, InputError, Reason};

use super::Global;

#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  stepreplay show-report                  # the page of reports/
  stepreplay show-report reports/shard-1 --open")]
pub(crate) struct Args {
    /// The report folder (`run --report-dir`), or the HTML page itself.
    #[arg(default_value = "reports")]
    dir: PathBuf,
    /// Also open it with `xdg-open`.
    #[arg(long)]
    open: bool,
}

pub(crate) fn run(args: Args, _g: &Global) -> Result<u8, Error> {
    let page = if args.dir.is_dir() {
        args.dir.join("index.html")
    } else {
        args.dir.clone()
    };
    if !page.is_file() {
        return Err(
            InputError::new(&page, Reason::MissingFile, "no HTML report there")
                .hint("write one with `stepreplay run` (its --reports include html by default)")
                .into(),
        );
    }
    crate::output::check_set(&page)?;
    // Absolute, so it can be pasted into a browser from anywhere.
    let page = std::path::absolute(&page).unwrap_or(page);
    println!("{}", page.display());
    if args.open {
        // xdg-open's own complaints (a missing browser, a gio warning) are noise here: one
        // line says it did not open, and the path above is still there to paste.
        let quiet = std::process::Stdio::null;
        let opened = std::process::Command::new("xdg-open")
            .arg(&page)
            .stdout(quiet())
            .stderr(quiet())
            .status();
        let why = match opened {
            Ok(status) if status.success() => return Ok(0),
            Ok(status) => format!("xdg-open ended with {status}"),
            Err(e) => format!("xdg-open cannot start: {e}"),
        };
        return Err(Error::Desktop(format!(
            "no browser opened the page ({why}); open the path above in one"
        )));
    }
    Ok(0)
}
