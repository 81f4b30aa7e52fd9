//! `report.json`: the report in canonical bytes (sorted keys, fixed float rounding, no clock),
//! so two runs — at any `--jobs` — write the same file; and reading one back (for `merge`
//! and `baseline accept`).

use std::path::Path;

use super::entries::ReportRef;
use super::model::{REPORT_SCHEMA, Report};
use crate::errors::{Error, FieldPath, InputError, Reason};
use crate::json::{
    Visit, parse_typed, parse_value, read_text, to_canonical_value, write_canonical_spliced,
};
use crate::limits;

/// Writes `report.json` to `path` in the bytes of [`to_json`], streamed one scenario at a
/// time: the report of a big suite never exists as one JSON tree or one string in memory.
pub fn write_json<'a>(report: impl Into<ReportRef<'a>>, path: &Path) -> Result<(), Error> {
    // Atomic: a kill or a full disk mid-write leaves the old file whole, or none.
    let mut out = crate::output::AtomicFile::create(path)?;
    write_json_named(report.into(), &mut out, path)?;
    out.commit()
}

/// [`write_json`] to any writer (standard output for `run --format json`); a failed write is
/// an [`Error::Write`] naming `-`.
pub fn write_json_to<'a>(
    report: impl Into<ReportRef<'a>>,
    out: &mut impl std::io::Write,
) -> Result<(), Error> {
    write_json_named(report.into(), out, Path::new("-"))
}

/// Writes the report to `out`; a failed write names `name`. Errors reading the entries
/// (a spill file) keep their own file's name.
fn write_json_named(
    ReportRef { head, entries }: ReportRef,
    out: &mut impl std::io::Write,
    name: &Path,
) -> Result<(), Error> {
    let io = crate::output::write_error(name);
    let each = &mut |f: &mut Visit<Error>| {
        entries.each(&mut |s| {
            f(serde_json::to_value(s).map_err(|e| super::entries::unwritable(&s.id, e))?)
        })
    };
    write_canonical_spliced(
        &head.without_entries(),
        "scenarios",
        entries.count(),
        each,
        out,
        &io,
    )?;
    out.flush().map_err(io)
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
