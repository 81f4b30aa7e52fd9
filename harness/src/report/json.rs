//! `report.json`: the report in canonical bytes (sorted keys, fixed float rounding, no clock),
//! so two runs — at any `--jobs` — write the same file; and reading one back (for `merge`
//! and `baseline accept`).

use std::path::Path;

use super::model::{REPORT_SCHEMA, Report};
use crate::errors::{FieldPath, InputError, Reason};
use crate::json::{
    parse_typed, parse_value, read_text, to_canonical_value, write_canonical_spliced,
};
use crate::limits;

/// Writes `report.json` to `path` in the bytes of [`to_json`], streamed one scenario at a
/// time: the report of a big suite never exists as one JSON tree or one string in memory.
pub fn write_json(report: &Report, path: &Path) -> Result<(), crate::errors::Error> {
    use std::io::Write;
    let err = crate::output::write_error(path);
    let head = Report {
        schema: report.schema.clone(),
        harness: report.harness.clone(),
        modes: report.modes.clone(),
        suite: report.suite.clone(),
        shard: report.shard,
        summary: report.summary.clone(),
        scenarios: Vec::new(),
    };
    let mut out = std::io::BufWriter::new(crate::output::create_file(path)?);
    write_canonical_spliced(&head, "scenarios", &report.scenarios, &mut out).map_err(&err)?;
    out.flush().map_err(err)
}

/// The report's canonical JSON text.
pub fn to_json(report: &Report) -> String {
    to_canonical_value(report)
}

/// Reads a `report.json` (bounded; the schema checked before anything else).
pub fn load_report(path: &Path) -> Result<Report, InputError> {
    let src = read_text(path, limits::REPORT_BYTES)?;
    let v = parse_value(&src)?;
    let schema = v.get("schema").and_then(|s| s.as_str());
    if schema != Some(REPORT_SCHEMA) {
        return Err(src
            .error(
                FieldPath::root().key("schema"),
                Reason::UnsupportedSchema,
                format!(
                    "not a {REPORT_SCHEMA} report (schema: {})",
                    schema.unwrap_or("none")
                ),
            )
            .hint("reports are written by `stepreplay run` into its --report-dir"));
    }
    parse_typed(&src)
}
