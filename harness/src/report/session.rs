//! One run, from its first result to its exit code. Every front door (`run`, `agent`, `merge`,
//! `serve`, `mutate`, `check --recording`, `record --plan`) opens a [`Session`], streams
//! results into it from any thread, and ends it with an [`End`]
//! that says what was asked and where the outputs go; the session folds each result into its
//! report entry and the totals as it comes (spilled, so memory follows the scenarios in
//! flight), then prints, writes every output and decides the verdict and the exit code once.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use super::console::{Progress, Say, print_slow, print_summary, print_verdict};
use super::entries::{Entries, ReportRef, Spill};
use super::model::{MutationScore, Report, ScenarioReport, Slow, Totals};
use super::outputs::{Gate, Outputs, write_outputs};
use super::{Timings, Verdict, write_captures, write_json_to};
use crate::errors::{Error, InputError};
use crate::evidence::FromRecordings;
use crate::replay::Mode;
use crate::result::ScenarioResult;
use crate::shard::Shard;
use crate::text::plural;

/// Test hook: wait this many milliseconds after each scenario, so a test can stop a run in
/// the middle of its replay.
const SLOW_ENV: &str = "STEPREPLAY_TEST_SCENARIO_MS";

/// Test hook: once the first result is folded, the process sends itself this signal
/// (`SIGINT`, `SIGTERM`), so every front door can be interrupted mid-run at the same point.
const SIGNAL_ENV: &str = "STEPREPLAY_TEST_SIGNAL";

/// The test hooks, after a result is folded (outside the lock: another thread may fold).
fn test_hooks() {
    static RAISED: std::sync::Once = std::sync::Once::new();
    #[cfg(unix)]
    if let Ok(name) = std::env::var(SIGNAL_ENV) {
        let sig = if name == "SIGTERM" {
            libc::SIGTERM
        } else {
            libc::SIGINT
        };
        // SAFETY: `raise` has no memory-safety preconditions.
        RAISED.call_once(|| unsafe {
            libc::raise(sig);
        });
    }
    if let Some(ms) = std::env::var(SLOW_ENV).ok().and_then(|v| v.parse().ok()) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// A run in progress.
pub(crate) struct Session {
    modes: Vec<Mode>,
    progress: Option<Progress>,
    mutation: BTreeMap<String, MutationScore>,
    state: Mutex<State>,
}

struct State {
    spill: Spill,
    totals: Totals,
    timings: Timings,
    broken: Vec<InputError>,
}

/// How a run ends: what it was asked to judge and where its outputs go.
pub struct End<'a> {
    /// The console.
    pub say: Say,
    /// What starts an error line on standard error (`error:`, coloured or not).
    pub error_prefix: String,
    /// The report folder; `None` writes no file (an `agent` run without `--report-dir`).
    pub dir: Option<&'a Path>,
    /// Which files.
    pub outputs: Outputs,
    /// The baseline to gate on.
    pub gate: Option<&'a Gate>,
    /// Also print `report.json` on standard output.
    pub json_stdout: bool,
    /// Write each step's pictures here (`--captures`).
    pub captures: Option<&'a Path>,
    /// Name the scenarios slower than this many seconds.
    pub slow: Option<f64>,
    /// How many scenarios the run was to judge: fewer judged, with a stop, is incomplete.
    pub asked: usize,
    /// The signal that stopped the run, with its exit code.
    pub stopped: Option<(&'static str, u8)>,
    /// How the run was narrowed (`--grep`, `--filter`), when it was.
    pub narrowed: Option<String>,
    /// This run's shard of the suite whose ids these are.
    pub shard: Option<(Shard, Vec<String>)>,
}

impl End<'_> {
    /// An end that writes nothing and gates on nothing: fill in what the front door has.
    pub fn new(say: Say, error_prefix: impl Into<String>, asked: usize) -> End<'static> {
        End {
            say,
            error_prefix: error_prefix.into(),
            dir: None,
            outputs: Outputs::none(),
            gate: None,
            json_stdout: false,
            captures: None,
            slow: None,
            asked,
            stopped: None,
            narrowed: None,
            shard: None,
        }
    }
}

impl Session {
    /// A session judging in `modes`, spilling its entries into `dir` (made when absent), the
    /// report folder it claims ([`claim_folder`](crate::output::claim_folder)); with no
    /// folder, into a scratch file in the temporary folder, unlinked at once.
    pub fn open(dir: Option<&Path>, modes: &[Mode]) -> Result<Session, Error> {
        if let Some(dir) = dir {
            crate::output::claim_folder(dir)?;
        }
        let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
        Ok(Session {
            modes: modes.to_vec(),
            progress: None,
            mutation: BTreeMap::new(),
            state: Mutex::new(State {
                spill: Spill::create(&dir)?,
                totals: Totals::new(modes),
                timings: Timings::new(),
                broken: Vec::new(),
            }),
        })
    }

    /// Says each result on the console as it comes, out of `total`.
    pub(crate) fn with_progress(mut self, total: usize, say: Say) -> Session {
        self.progress = Some(Progress::new(total, say));
        self
    }

    /// Puts each scenario's mutation score into its entry (`run --mutants`).
    pub(crate) fn with_mutation(mut self, scores: BTreeMap<String, MutationScore>) -> Session {
        self.mutation = scores;
        self
    }

    /// Folds one result: said, made into its (redacted) entry, counted and spilled.
    pub fn add(&self, r: &ScenarioResult) -> Result<(), Error> {
        if let Some(p) = &self.progress {
            p.done(r);
        }
        let mut entry = ScenarioReport::of(r);
        entry.mutation = self.mutation.get(&entry.id).cloned();
        let bytes = Spill::bytes(&entry)?;
        let mut st = crate::par::lock(&self.state);
        if let Some(e) = r.broken_input() {
            st.broken.push(e.clone());
        }
        st.timings.insert(r.id.clone(), r.duration);
        st.totals.add(&entry);
        st.spill.push_bytes(&entry, &bytes)?;
        drop(st);
        test_hooks();
        Ok(())
    }

    /// Folds an entry another run made (`merge`): counted and spilled, with its time when the
    /// shard's `junit.xml` gave one.
    pub(crate) fn add_entry(
        &self,
        entry: &ScenarioReport,
        time: Option<std::time::Duration>,
    ) -> Result<(), Error> {
        let mut st = crate::par::lock(&self.state);
        if let Some(t) = time {
            st.timings.insert(entry.id.clone(), t);
        }
        st.totals.add(entry);
        st.spill.push(entry)
    }

    /// The first input that could not be used, if any (a one-plan run makes it its error).
    pub(crate) fn broken_input(&self) -> Option<InputError> {
        crate::par::lock(&self.state).broken.first().cloned()
    }

    /// Ends the run with the head made from what was judged: its ids, modes and totals.
    pub fn finish(self, end: End) -> Result<u8, Error> {
        let modes = self.modes.clone();
        self.finish_with(end, |spill, totals| {
            Ok(Report::head(&spill.ids(), &modes, totals.summary()))
        })
    }

    /// Ends the run with the head `head` makes of the entries and totals (`merge` takes
    /// the parts' heads): then prints, writes every output and returns the exit code.
    pub(crate) fn finish_with(
        self,
        end: End,
        head: impl FnOnce(&Spill, Totals) -> Result<Report, Error>,
    ) -> Result<u8, Error> {
        if let Some(p) = &self.progress {
            p.finish();
        }
        let State {
            mut spill,
            totals,
            timings,
            mut broken,
        } = self.state.into_inner().unwrap_or_else(|p| p.into_inner());
        // Broken inputs are also said as errors on standard error, as a script expects.
        broken.sort_by(|a, b| a.file.cmp(&b.file));
        for e in &broken {
            eprintln!("{} {e}", end.error_prefix);
        }
        let mut report = head(&spill, totals)?;
        let judged = spill.count();
        if let Some((shard, all_ids)) = &end.shard {
            report = report.into_shard(all_ids, *shard);
        }
        // Stopped even after its last scenario, a run reads red everywhere its exit code does.
        if let Some((signal, _)) = end.stopped {
            report.incomplete = Some(format!(
                "stopped by {signal}: {judged} of {} scenarios judged",
                end.asked
            ));
        }
        if report.narrowed.is_none() {
            report.narrowed = end.narrowed.clone();
        }
        report.slow = end.slow.map(|limit| Slow::of(&timings, limit));
        let say = &end.say;
        if let Some(dir) = end.captures {
            let o = write_captures(&mut spill, &FromRecordings, dir)?;
            say.info(format!(
                "captures: {} in {}",
                plural(o.files, "file", "files"),
                dir.display()
            ));
            for m in &o.missing {
                say.info(format!("  no pictures for {m}"));
            }
        }
        let report = ReportRef {
            head: &report,
            entries: &spill,
        };
        print_summary(report, say)?;
        let code = match end.dir {
            Some(dir) => write_outputs(
                report,
                &timings,
                &FromRecordings,
                dir,
                &end.outputs,
                end.gate,
                say,
            )?,
            None => Verdict::of(report.head, None, broken.len()).exit_code(),
        };
        if end.json_stdout {
            write_json_to(report, &mut std::io::stdout().lock())?;
        }
        if let Some(slow) = &report.head.slow {
            print_slow(slow, say);
        }
        print_verdict(report.head, end.dir, say);
        Ok(end.stopped.map_or(code, |(_, exit)| exit))
    }
}
