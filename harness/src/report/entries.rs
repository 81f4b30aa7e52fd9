//! Where a report's scenario entries live while the formats are written. A report read back or
//! merged holds them ([`Report::scenarios`]); `run` spills each to a file in the report folder
//! as its scenario finishes ([`Spill`]), so what it holds at the end is the run-wide part and an
//! index, not a suite's worth of entries (about 0.1 MB each, steps and diffs included).
//!
//! The writers read entries through [`Entries`], one at a time in id order, and a report as a
//! [`ReportRef`]: its run-wide part and its entries, wherever those are.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use super::model::{Report, ScenarioReport};
use crate::errors::Error;

/// A report's entries, visited in id order. Visitors return early on the first error.
pub trait Entries {
    /// How many.
    fn count(&self) -> usize;

    /// Their ids, in id order.
    fn ids(&self) -> Vec<&str>;

    /// Calls `f` with each entry whose `met` is `met` (every entry when `None`).
    fn each_where(
        &self,
        met: Option<bool>,
        f: &mut dyn FnMut(&ScenarioReport) -> Result<(), Error>,
    ) -> Result<(), Error>;

    /// Calls `f` with each entry, which it may change.
    fn each_mut(
        &mut self,
        f: &mut dyn FnMut(&mut ScenarioReport) -> Result<(), Error>,
    ) -> Result<(), Error>;

    /// Calls `f` with each entry.
    fn each(&self, f: &mut dyn FnMut(&ScenarioReport) -> Result<(), Error>) -> Result<(), Error> {
        self.each_where(None, f)
    }

    /// Those not as expected first, then the rest; each group in id order (how the page and
    /// the summary list them).
    fn failed_first(
        &self,
        f: &mut dyn FnMut(&ScenarioReport) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.each_where(Some(false), f)?;
        self.each_where(Some(true), f)
    }
}

impl Entries for Vec<ScenarioReport> {
    fn count(&self) -> usize {
        self.len()
    }

    fn ids(&self) -> Vec<&str> {
        self.iter().map(|s| s.id.as_str()).collect()
    }

    fn each_where(
        &self,
        met: Option<bool>,
        f: &mut dyn FnMut(&ScenarioReport) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.iter()
            .filter(|s| met.is_none_or(|m| s.met == m))
            .try_for_each(f)
    }

    fn each_mut(
        &mut self,
        f: &mut dyn FnMut(&mut ScenarioReport) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.iter_mut().try_for_each(f)
    }
}

/// A report as the writers read it: the run-wide part (`head`: schema, modes, suite, summary)
/// and the entries. A held report is both (`From<&Report>`); `run` pairs a head whose own
/// `scenarios` are empty with its [`Spill`].
#[derive(Clone, Copy)]
pub struct ReportRef<'a> {
    /// Everything but the entries (its `scenarios` are not read).
    pub head: &'a Report,
    /// The entries.
    pub entries: &'a dyn Entries,
}

impl<'a> From<&'a Report> for ReportRef<'a> {
    fn from(report: &'a Report) -> ReportRef<'a> {
        ReportRef {
            head: report,
            entries: &report.scenarios,
        }
    }
}

impl<'a> From<&'a mut Report> for ReportRef<'a> {
    fn from(report: &'a mut Report) -> ReportRef<'a> {
        ReportRef::from(&*report)
    }
}

/// Where an entry sits in the spill file.
#[derive(Clone, Debug)]
struct Place {
    id: String,
    met: bool,
    at: u64,
    len: usize,
}

/// Entries written to a file as they come (JSON, one after another) and read back one at a
/// time, in id order. The file is unlinked as soon as it is made where the system allows
/// (Unix), so nothing is left behind even when the run is killed; elsewhere it is removed
/// when the spill is dropped.
#[derive(Debug)]
pub struct Spill {
    file: File,
    path: PathBuf,
    /// Still on disk under `path` (removed on drop).
    named: bool,
    end: u64,
    /// In the order the entries came.
    places: Vec<Place>,
}

impl Spill {
    /// A new spill in `dir` (made when absent).
    pub fn create(dir: &Path) -> Result<Spill, Error> {
        let path = dir.join(format!(".stepreplay-entries-{}.json", std::process::id()));
        let file = crate::output::create_scratch(&path)?;
        let named = std::fs::remove_file(&path).is_err();
        Ok(Spill {
            file,
            path,
            named,
            end: 0,
            places: Vec::new(),
        })
    }

    /// Serializes an entry (outside any lock: the bytes are what [`push_bytes`] takes).
    ///
    /// [`push_bytes`]: Spill::push_bytes
    pub fn bytes(entry: &ScenarioReport) -> Result<Vec<u8>, Error> {
        serde_json::to_vec(entry).map_err(|e| unwritable(&entry.id, e))
    }

    /// Appends an entry serialized by [`Spill::bytes`].
    pub(crate) fn push_bytes(&mut self, entry: &ScenarioReport, bytes: &[u8]) -> Result<(), Error> {
        let at = self.write(bytes)?;
        self.places.push(Place {
            id: entry.id.clone(),
            met: entry.met,
            at,
            len: bytes.len(),
        });
        Ok(())
    }

    /// Appends an entry.
    pub fn push(&mut self, entry: &ScenarioReport) -> Result<(), Error> {
        self.push_bytes(entry, &Spill::bytes(entry)?)
    }

    /// The places in id order (ids are unique: a suite with two of one id is refused).
    fn in_order(&self) -> Vec<&Place> {
        let mut v: Vec<&Place> = self.places.iter().collect();
        v.sort_by(|a, b| a.id.cmp(&b.id));
        v
    }

    fn write(&mut self, bytes: &[u8]) -> Result<u64, Error> {
        let at = self.end;
        let err = crate::output::write_error(&self.path);
        (&self.file).seek(SeekFrom::Start(at)).map_err(&err)?;
        (&self.file).write_all(bytes).map_err(&err)?;
        self.end += bytes.len() as u64;
        Ok(at)
    }

    fn read(&self, p: &Place, buf: &mut Vec<u8>) -> Result<ScenarioReport, Error> {
        let err = crate::output::write_error(&self.path);
        buf.resize(p.len, 0);
        (&self.file).seek(SeekFrom::Start(p.at)).map_err(&err)?;
        (&self.file).read_exact(buf).map_err(&err)?;
        serde_json::from_slice(buf)
            .map_err(|e| Error::Internal(format!("a spilled report entry reads back wrong: {e}")))
    }
}

impl Entries for Spill {
    fn count(&self) -> usize {
        self.places.len()
    }

    fn ids(&self) -> Vec<&str> {
        self.in_order().into_iter().map(|p| p.id.as_str()).collect()
    }

    fn each_where(
        &self,
        met: Option<bool>,
        f: &mut dyn FnMut(&ScenarioReport) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut buf = Vec::new();
        for p in self
            .in_order()
            .into_iter()
            .filter(|p| met.is_none_or(|m| p.met == m))
        {
            f(&self.read(p, &mut buf)?)?;
        }
        Ok(())
    }

    fn each_mut(
        &mut self,
        f: &mut dyn FnMut(&mut ScenarioReport) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.places.sort_by(|a, b| a.id.cmp(&b.id));
        let mut buf = Vec::new();
        for i in 0..self.places.len() {
            let mut entry = self.read(&self.places[i], &mut buf)?;
            f(&mut entry)?;
            // The changed entry goes at the end; its place points there.
            let bytes = Spill::bytes(&entry)?;
            let at = self.write(&bytes)?;
            let p = &mut self.places[i];
            (p.at, p.len, p.met) = (at, bytes.len(), entry.met);
        }
        Ok(())
    }
}

/// An entry that cannot be written as JSON: an error, never a `null` or an empty entry in
/// its place.
pub(crate) fn unwritable(id: &str, e: serde_json::Error) -> Error {
    Error::Internal(format!(
        "the report entry of `{id}` cannot be written as JSON: {e}"
    ))
}

impl Drop for Spill {
    fn drop(&mut self) {
        if self.named {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
