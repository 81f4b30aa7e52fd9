//! `report.json`: the report in canonical bytes (sorted keys, fixed float rounding, no clock),
//! so two runs — at any `--jobs` — write the same file; and reading one back (for `merge`
//! and `baseline accept`) an entry at a time, so a report of any size is read in the memory
//! of one entry.

use std::path::Path;

use super::entries::ReportRef;
use super::model::{REPORT_SCHEMA, Report, ScenarioReport};
use crate::errors::{Error, FieldPath, InputError, Reason};
use crate::json::{
    Visit, read_array_of, read_object_without, to_canonical_value, typed_from_value,
    write_canonical_spliced,
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
            let v = serde_json::to_value(s).map_err(|e| super::entries::unwritable(&s.id, e))?;
            f(None, v)
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

/// The run-wide part of a `report.json`, its `scenarios` skipped (an empty list): the schema
/// checked before anything else is typed. Bounded per value, not by the file's size.
pub(crate) fn load_report_head(path: &Path) -> Result<Report, InputError> {
    let head = read_object_without(path, "scenarios", limits::REPORT_ENTRY_BYTES)?;
    let schema = head.get("schema").and_then(|s| s.as_str());
    if schema != Some(REPORT_SCHEMA) {
        return Err(InputError::new(
            path,
            Reason::UnsupportedSchema,
            format!(
                "not a {REPORT_SCHEMA} report (schema: {})",
                schema.unwrap_or("none")
            ),
        )
        .at(FieldPath::root().key("schema"))
        .hint("reports are written by `stepreplay run` into its --report-dir"));
    }
    typed_from_value(path, serde_json::Value::Object(head))
}

/// Hands each entry of the `report.json` at `path` to `f`, one at a time in file order, each
/// at most [`limits::REPORT_ENTRY_BYTES`]: a report of any length is read in the memory of
/// one entry. Read its head first ([`load_report_head`]), which checks the schema.
pub(crate) fn read_report_entries<E: From<InputError>>(
    path: &Path,
    f: &mut dyn FnMut(ScenarioReport) -> Result<(), E>,
) -> Result<(), E> {
    read_array_of(path, "scenarios", limits::REPORT_ENTRY_BYTES, f)
}

/// Reads a whole `report.json` into memory (the schema checked before anything else).
pub fn load_report(path: &Path) -> Result<Report, InputError> {
    let mut report = load_report_head(path)?;
    read_report_entries(path, &mut |s| {
        report.scenarios.push(s);
        Ok::<(), InputError>(())
    })?;
    Ok(report)
}
