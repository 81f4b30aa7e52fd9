//! The report formats and the baseline gate as flags, shared by `run`, `merge` and `agent`;
//! validated into the [`Outputs`] the report writer takes.

use std::path::PathBuf;

use crate::Error;
use crate::report::{Gate, Outputs, Say};

use super::{Global, OutputFormat};

#[derive(Debug, clap::Args)]
pub(crate) struct OutputArgs {
    /// Report files to write into the report folder (comma-separated).
    #[arg(
        long = "reports",
        id = "report_files",
        value_enum,
        value_delimiter = ',',
        default_value = "json,junit,markdown,html"
    )]
    report_files: Vec<Format>,
    /// Also write the Markdown summary here (e.g. "$GITHUB_STEP_SUMMARY").
    #[arg(long, value_name = "FILE")]
    summary: Option<PathBuf>,
    /// Write the HTML page (and its images) here instead of the report folder.
    #[arg(long, value_name = "DIR")]
    html: Option<PathBuf>,
    /// Compare with this baseline: exit 1 on any regression, and write `regressions.json`.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// How far a score may fall below its baseline before it counts as a regression (scores
    /// are compared as reports show them, to three decimals).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = super::non_negative)]
    tolerance: f64,
    /// When another stepreplay process is writing the report folder, wait for it to end
    /// (saying so on standard error) instead of refusing.
    #[arg(long)]
    wait: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Json,
    Junit,
    Markdown,
    Html,
}

impl OutputArgs {
    /// The files to write; `json` names `report.json` when JSON is chosen.
    pub(crate) fn outputs(&self, json: &str) -> Outputs {
        let has = |f: Format| self.report_files.contains(&f);
        Outputs {
            json: has(Format::Json).then(|| json.to_string()),
            junit: has(Format::Junit),
            markdown: has(Format::Markdown),
            html: has(Format::Html),
            html_dir: self.html.clone(),
            summary: self.summary.clone(),
            tolerance: self.tolerance,
        }
    }

    /// Makes this process wait for a report folder another one is writing (`--wait`).
    pub fn apply_wait(&self) {
        crate::output::wait_for_locks(self.wait);
    }

    /// Whether a baseline is given.
    pub(crate) fn gated(&self) -> bool {
        self.baseline.is_some()
    }

    /// The baseline to gate on, loaded before anything runs.
    pub(crate) fn gate(&self) -> Result<Option<Gate>, Error> {
        self.baseline.as_deref().map(Gate::load).transpose()
    }
}

/// Where the console's lines go, from the global flags and `--format`.
pub(crate) fn say(g: &Global, format: OutputFormat) -> Say {
    Say::new(format == OutputFormat::Human, g.quiet(), g.color())
}
