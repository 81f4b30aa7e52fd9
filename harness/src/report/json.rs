//! `report.json`: the report in canonical bytes (sorted keys, fixed float rounding, no clock),
//! so two runs — at any `--jobs` — write the same file.

use super::model::Report;
use crate::json::to_canonical_value;

/// The report's canonical JSON text.
pub fn to_json(report: &Report) -> String {
    to_canonical_value(report)
}
