//! The one writer every front door calls (`run`, `merge`, `agent`, `serve`): the chosen
//! formats of a [`Report`](super::Report) written into a report folder as one atomic set with
//! its manifest, the baseline gate, and the exit code.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::baseline::{Baseline, BaselineScenario, RegressionReport, compare_each, read_each};
use super::console::{Say, print_regressions};
use super::entries::ReportRef;
use super::html::write_html;
use super::json::write_json;
use super::junit::{Timings, write_junit};
use super::markdown::write_markdown;
use crate::errors::{Error, InputError, Reason};
use crate::evidence::Pictures;
use crate::json::read_members_of;
use crate::output::{AtomicFile, FileSet, FmtIo};

/// Which files to write, and where the extras go.
#[derive(Clone, Debug)]
pub struct Outputs {
    /// `report.json`'s name in the report folder (`merge --out` names it), if written.
    pub json: Option<String>,
    /// `junit.xml`.
    pub junit: bool,
    /// `summary.md`.
    pub markdown: bool,
    /// The HTML page.
    pub html: bool,
    /// Write the HTML page (and its images) here instead of the report folder.
    pub html_dir: Option<PathBuf>,
    /// Also append the Markdown summary here (e.g. "$GITHUB_STEP_SUMMARY").
    pub summary: Option<PathBuf>,
    /// How far a score may fall below its baseline before it counts as a regression.
    pub tolerance: f64,
}

impl Outputs {
    /// Every file `run` writes by default, in the report folder.
    pub fn every() -> Outputs {
        Outputs {
            json: Some("report.json".into()),
            junit: true,
            markdown: true,
            html: true,
            ..Outputs::none()
        }
    }

    /// No file at all.
    pub fn none() -> Outputs {
        Outputs {
            json: None,
            junit: false,
            markdown: false,
            html: false,
            html_dir: None,
            summary: None,
            tolerance: 0.0,
        }
    }
}

/// The baseline a run is gated on, read and checked before the replay starts and read again,
/// a scenario at a time, when the run is compared with it: what is held is its run-wide part,
/// never its scenarios. A baseline whose bytes changed in between is refused, so the reports
/// name by its hash the very bytes judged against.
pub struct Gate {
    head: Baseline,
    scenarios: usize,
    hash: u64,
    path: PathBuf,
}

impl Gate {
    /// The baseline at `path`, checked. Called before a replay starts, so a missing,
    /// unreadable or empty baseline is refused at once rather than after the whole run.
    pub fn load(path: &Path) -> Result<Gate, Error> {
        let (head, scenarios, hash) = read_each(path, &mut |_, _| Ok(()))?;
        if scenarios == 0 {
            return Err(InputError::new(
                path,
                Reason::BaselineMismatch,
                "the baseline holds no scenarios, so a run compared with it compares nothing",
            )
            .hint("accept a run of the suite: stepreplay baseline accept")
            .into());
        }
        Ok(Gate {
            head,
            scenarios,
            hash,
            path: path.to_path_buf(),
        })
    }

    /// `fnv1a64:…`, the hash of the baseline's bytes.
    fn hash(&self) -> String {
        format!("fnv1a64:{:016x}", self.hash)
    }

    /// The run compared with the baseline, read again an entry at a time.
    fn compare(&self, report: ReportRef, tolerance: f64) -> Result<RegressionReport, Error> {
        let each = &mut |f: &mut dyn FnMut(String, BaselineScenario) -> Result<(), Error>| {
            let again = read_members_of(
                &self.path,
                "scenarios",
                crate::limits::BASELINE_ENTRY_BYTES,
                &mut |id, s: BaselineScenario| f(id, s),
            )?;
            if again != self.hash {
                return Err(InputError::new(
                    &self.path,
                    Reason::InvalidArgument,
                    "the baseline changed during the run",
                )
                .hint("run again once nothing is writing it")
                .into());
            }
            Ok(())
        };
        let mut r = compare_each(&self.head.scores, each, report, tolerance)?;
        r.baseline = Some(self.hash());
        Ok(r)
    }
}

/// Every file a report folder's set may hold (`report.json` may be named otherwise by
/// `merge --out`): each is retired before a new set is written, so no file of an earlier run
/// stays beside the new ones.
const SET_FILES: [&str; 5] = [
    "report.json",
    "junit.xml",
    "summary.md",
    "index.html",
    "regressions.json",
];

/// Writes the chosen formats of `report` into `dir` as one set (see [`FileSet`]), compares
/// with the baseline, prints the regressions; returns the exit code: 1 when a scenario missed
/// its expectation or regressed, 2 when a scenario's input was broken. A baseline that shares
/// no scenario with the run is an error, after the reports are written.
pub fn write_outputs(
    report: ReportRef,
    timings: &Timings,
    pictures: &dyn Pictures,
    dir: &Path,
    out: &Outputs,
    gate: Option<&Gate>,
    say: &Say,
) -> Result<u8, Error> {
    let regressions: Option<RegressionReport> = match gate {
        Some(g) => Some(g.compare(report, out.tolerance)?),
        None => None,
    };
    let html_dir = out.html_dir.as_deref().unwrap_or(dir);
    // An earlier run's pages past this run's last would be read as this run's.
    let pages = html_pages(dir);
    let names: Vec<&str> = SET_FILES
        .iter()
        .copied()
        .chain(out.json.as_deref())
        .chain(pages.iter().map(String::as_str))
        .collect();
    let mut set = FileSet::begin(dir, &names)?;
    if let Some(name) = &out.json {
        write_json(report, &dir.join(name))?;
        set.added(name)?;
    }
    if out.junit {
        let path = dir.join("junit.xml");
        let mut f = AtomicFile::create(&path)?;
        write_junit(report, regressions.as_ref(), timings, &mut f, &path)?;
        f.commit()?;
        set.added("junit.xml")?;
    }
    let markdown = |out: &mut dyn Write, path: &Path| {
        let mut md = FmtIo::new(out);
        write_markdown(report, regressions.as_ref(), &mut md)?;
        md.finish(path)
    };
    if out.markdown {
        let path = dir.join("summary.md");
        let mut f = AtomicFile::create(&path)?;
        markdown(&mut f, &path)?;
        f.commit()?;
        set.added("summary.md")?;
    }
    if out.html || out.html_dir.is_some() {
        if html_dir != dir {
            for name in html_pages(html_dir) {
                crate::output::remove_file(&html_dir.join(name))?;
            }
        }
        let o = write_html(report, regressions.as_ref(), pictures, html_dir)?;
        if html_dir == dir {
            for name in &o.pages {
                set.added(name)?;
            }
        }
        if !say.quiet() {
            for m in &o.missing {
                eprintln!("note: frame not found for the HTML report: {m}");
            }
        }
    }
    // A baseline that shares no scenario with the run compared nothing: its `missing` lines
    // would only bury the one error that says so.
    let nothing = regressions.as_ref().is_some_and(|r| {
        r.compared == 0 && !(report.head.shard.is_some() && report.entries.count() == 0)
    });
    let mut broken = 0usize;
    report.entries.each(&mut |s| {
        broken += usize::from(s.broken_input());
        Ok(())
    })?;
    let mut about = serde_json::Map::new();
    about.insert("complete".into(), report.head.incomplete.is_none().into());
    if let Some(why) = &report.head.incomplete {
        about.insert("incomplete".into(), why.clone().into());
    }
    about.insert("scenarios".into(), report.entries.count().into());
    about.insert("broken_inputs".into(), broken.into());
    if let Some(r) = &regressions {
        set.write("regressions.json", r.to_json())?;
        if !nothing {
            print_regressions(r, say);
        }
        if let Some(g) = gate {
            about.insert(
                "baseline".into(),
                serde_json::json!({ "file": g.path.display().to_string(), "hash": g.hash() }),
            );
        }
    }
    if let Some(n) = &report.head.narrowed {
        about.insert("narrowed".into(), n.clone().into());
    }
    let code = super::Verdict::of(report.head, regressions.as_ref(), broken).exit_code();
    // Last: the manifest says the set is whole.
    set.finish(about)?;
    if let Some(path) = &out.summary {
        // Appended, so several summaries can share `$GITHUB_STEP_SUMMARY`.
        crate::output::append_with(path, |out| markdown(out, path))?;
    }
    match gate {
        Some(g) if nothing => Err(nothing_compared(g)),
        _ => Ok(code),
    }
}

/// The HTML report's pages after the first (`index-2.html`…) in `dir`: how many an earlier
/// run wrote is not known ahead.
fn html_pages(dir: &Path) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<String> = rd
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| {
            n.strip_prefix("index-")
                .and_then(|r| r.strip_suffix(".html"))
                .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect();
    v.sort();
    v
}

fn nothing_compared(g: &Gate) -> Error {
    InputError::new(
        &g.path,
        Reason::BaselineMismatch,
        format!(
            "none of the baseline's {} scenarios is in this run, so nothing was compared",
            g.scenarios
        ),
    )
    .hint("is it another suite's baseline? accept one from this suite: stepreplay baseline accept")
    .into()
}
