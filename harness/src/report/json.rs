//! `report.json`: the report in canonical bytes (sorted keys, fixed float rounding, no clock),
//! so two runs — at any `--jobs` — write the same file; and reading one back (for `merge`
//! and `baseline accept`).

use std::path::Path;

use super::model::{REPORT_SCHEMA, Report};
use crate::errors::{FieldPath, InputError, Reason};
use crate::json::{parse_typed, parse_value, read_text, to_canonical_value};
use crate::limits;

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
