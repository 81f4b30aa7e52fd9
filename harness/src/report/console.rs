//! The console reporter: a line per scenario as it finishes (live on a terminal), then the
//! score table, the failures and the regressions, read from the same [`Report`] every other
//! format reads. [`Say`] decides where each line goes.

use std::io::{IsTerminal, Write as _};
use std::sync::Mutex;
use std::time::Instant;

use super::baseline::RegressionReport;
use super::entries::ReportRef;
use super::failure::{Failure, github_annotation};
use super::model::{Report, ScenarioReport};
use crate::errors::Error;
use crate::replay::Event;
use crate::result::ScenarioResult;
use crate::score::COLUMNS;
use crate::text::{plural, word};

/// Where the console's lines go. Standard output carries lines for people, or nothing but
/// the JSON report when a script asked for it (then failures and regressions go to standard
/// error); quiet keeps the failures and the last line.
#[derive(Clone, Copy, Debug)]
pub struct Say {
    human: bool,
    quiet: bool,
    color: bool,
}

impl Say {
    /// `human`: lines for people on standard output (else JSON is); `quiet`: only what
    /// nobody should miss; `color`: paint the verdicts.
    pub fn new(human: bool, quiet: bool, color: bool) -> Say {
        Say {
            human,
            quiet,
            color: human && color,
        }
    }

    /// Whether only the lines nobody should miss are printed.
    pub fn quiet(&self) -> bool {
        self.quiet
    }

    /// A line a person reads: progress, tables, notes.
    pub fn info(&self, line: impl std::fmt::Display) {
        if self.human && !self.quiet {
            println!("{line}");
        }
    }

    /// A line nobody should miss: a failure, a regression, the verdict.
    pub fn verdict(&self, line: impl std::fmt::Display) {
        if self.human {
            println!("{line}");
        } else {
            eprintln!("{line}");
        }
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
}

/// ` · 0.31 s`: shown, never written to a deterministic report.
fn took(r: &ScenarioResult) -> String {
    format!(" · {:.2} s", r.duration.as_secs_f64())
}

/// One scenario's line: its verdict, how it ended and, when not as expected, where to look.
pub fn line(r: &ScenarioResult, say: &Say) -> String {
    let verdict = if r.met {
        say.paint("32", "ok  ")
    } else {
        say.paint("1;31", "FAIL")
    };
    let rules = r
        .agent
        .as_ref()
        .filter(|a| !a.violations.is_empty())
        .map(|a| {
            let rules: Vec<&str> = a.violations.iter().map(|v| v.rule.as_str()).collect();
            format!(" · broke {}", rules.join(", "))
        })
        .unwrap_or_default();
    let Some(trace) = r.traces().first() else {
        let why = r
            .mismatch
            .as_ref()
            .map(|m| format!(" — {}", m.text))
            .unwrap_or_default();
        let what = if r.agent.is_some() {
            "agent on the bridge"
        } else {
            "bridge batch"
        };
        return format!("{verdict} {:<36} {what}{}{rules}{why}", r.id, took(r));
    };
    let (outcome, reason, _) = trace.outcome();
    let mut got = match reason {
        Some(rs) => format!("{} ({})", word(&outcome), word(&rs)),
        None => word(&outcome),
    };
    let unjudged = trace
        .events
        .iter()
        .any(|e| matches!(e, Event::Done { judged: false, .. }));
    if unjudged {
        got.push_str(", done not judged");
    }
    got.push_str(&took(r));
    got.push_str(&rules);
    if r.met {
        return format!("{verdict} {:<36} {got}", r.id);
    }
    // Where to look: the step (or plan error) in the plan file, and why, in words.
    let at = ScenarioReport::of(r)
        .failure(trace.mode)
        .map(|f| format!("\n     at {f}"))
        .or_else(|| r.mismatch.as_ref().map(|m| format!("\n     {}", m.text)))
        .unwrap_or_default();
    r.taint.text(&format!("{verdict} {:<36} {got}{at}", r.id))
}

/// Each step of a scenario's first run, one line each: how it ended and, when it did not
/// pass, why in the run's words. What `record --plan` shows after following a guide live.
pub(crate) fn print_steps(entry: &ScenarioReport, say: &Say) {
    let Some(run) = entry.runs.values().next() else {
        return;
    };
    for s in &run.steps {
        let how = match (&s.status[..], &s.reason) {
            ("passed", _) => say.paint("32", "passed"),
            (status, Some(r)) => say.paint("1;31", &format!("{status} ({})", word(r))),
            (status, None) => status.to_string(),
        };
        say.verdict(format!(
            "  step {:>2} {:<48} {how}",
            s.number,
            format!("“{}”", s.text)
        ));
    }
}

/// Live progress: one redrawn status line on a terminal (done, failing, ETA), with failures
/// printed above it; plain lines otherwise. Wall-clock time is shown, never written.
pub(crate) struct Progress {
    live: bool,
    say: Say,
    total: usize,
    start: Instant,
    state: Mutex<(usize, usize)>,
}

impl Progress {
    /// Progress over `total` scenarios.
    pub fn new(total: usize, say: Say) -> Progress {
        // Both streams on a terminal: `run | tee log` gets plain lines.
        let live = say.human
            && !say.quiet
            && std::io::stderr().is_terminal()
            && std::io::stdout().is_terminal();
        if live {
            eprint!("[0/{total}] replaying…");
        }
        Progress {
            live,
            say,
            total,
            start: Instant::now(),
            state: Mutex::new((0, 0)),
        }
    }

    /// One scenario finished.
    pub fn done(&self, r: &ScenarioResult) {
        let mut st = crate::par::lock(&self.state);
        st.0 += 1;
        st.1 += usize::from(!r.met);
        if !self.live {
            if r.met {
                self.say.info(line(r, &self.say));
            } else {
                self.say.verdict(line(r, &self.say));
            }
            return;
        }
        let mut err = std::io::stderr().lock();
        if !r.met {
            let _ = writeln!(err, "\r\x1b[K{}", line(r, &self.say));
        }
        let elapsed = self.start.elapsed().as_secs_f64();
        let eta = elapsed / st.0 as f64 * self.total.saturating_sub(st.0) as f64;
        let _ = write!(
            err,
            "\r\x1b[K[{}/{}] {} failing · {:.0}s elapsed · ETA {:.0}s · {}",
            st.0, self.total, st.1, elapsed, eta, r.id
        );
        let _ = err.flush();
    }

    /// Clears the status line.
    pub fn finish(&self) {
        if self.live {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}

/// One line per place the regressions come from: the step to fix and the scenarios that
/// went wrong there, or a scenario's root cause and how many follow-on changes came with it
/// (each is in `regressions.json` and the reports). Failures come before score changes.
pub(crate) fn print_regressions(r: &RegressionReport, say: &Say) {
    if r.regressions.is_empty() {
        say.info("no regressions against the baseline");
        return;
    }
    say.verdict(format!("{}:", r.headline()));
    for (line, _) in r.place_lines() {
        say.verdict(format!("  {line}"));
    }
}

/// The score table of the deciding mode, the totals, the broken perturbations and the
/// failures again together at the end, where a reader of a long log looks (and, on GitHub
/// Actions, as annotations).
pub(crate) fn print_summary(report: ReportRef, say: &Say) -> Result<(), Error> {
    let Some(&first) = report.head.modes.first() else {
        return Ok(());
    };
    let per_scenario = || COLUMNS.iter().filter(|c| c.per_scenario);
    let mut rows = Vec::new();
    let mut broken = Vec::new();
    let mut failures: Vec<(String, Failure)> = Vec::new();
    report.entries.each(&mut |s| {
        if let Some(run) = s.runs.get(&first) {
            let mut row = format!("{:<36}", s.id);
            for c in per_scenario() {
                row.push_str(&format!(" {:>8}", c.of(&run.scores)));
            }
            let flag = if s.met { "" } else { "  ← not as expected" };
            rows.push(format!("{row}{flag}"));
        }
        for p in s.robustness.iter().flat_map(|r| &r.broken) {
            broken.push(format!(
                "  {} under {}: {}",
                s.id,
                p.perturbation,
                p.why.as_deref().unwrap_or("")
            ));
        }
        if let Some(f) = s.failure(first) {
            failures.push((s.id.clone(), f));
        }
        Ok(())
    })?;
    say.info("");
    let mut head = format!("{:<36}", "scenario");
    for c in per_scenario() {
        head.push_str(&format!(" {:>8}", c.short));
    }
    say.info(head);
    rows.into_iter().for_each(|r| say.info(r));
    print_totals(report.head, say, broken);
    if !failures.is_empty() {
        say.verdict("");
        say.verdict(format!(
            "{} not as expected:",
            plural(failures.len(), "scenario", "scenarios")
        ));
        for (id, f) in &failures {
            say.verdict(format!(
                "  {} {id}\n       at {f}",
                say.paint("1;31", "FAIL")
            ));
        }
    }
    if std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true") {
        for (id, f) in &failures {
            // The runner reads workflow commands from either stream: under `--format json`
            // they go to standard error with the other lines, leaving the JSON whole.
            say.verdict(github_annotation(id, f));
        }
    }
    Ok(())
}

fn print_totals(head: &Report, say: &Say, broken: Vec<String>) {
    for (mode, sc) in &head.summary.scores {
        let cells: Vec<String> = COLUMNS
            .iter()
            .map(|c| format!("{} {}", c.short, c.of(sc)))
            .collect();
        say.info(format!(
            "{:<36} {}",
            format!("all ({})", word(mode)),
            cells.join("  ")
        ));
    }
    if let Some(f) = &head.summary.agent {
        f.lines().into_iter().for_each(|l| say.info(l));
    }
    if let Some(r) = &head.summary.robustness {
        say.info(format!(
            "robustness: {:.3} ({} of {} step × perturbation pairs still right)",
            r.score, r.ok, r.total
        ));
        broken.into_iter().for_each(|b| say.info(b));
    }
}

/// The scenarios slower than the threshold, slowest first (ties by id).
pub(crate) fn print_slow(slow: &super::Slow, say: &Say) {
    let limit = slow.threshold;
    if slow.scenarios.is_empty() {
        say.info(format!("no scenario took longer than {limit} s"));
        return;
    }
    say.verdict(format!(
        "{} slower than {limit} s:",
        plural(slow.scenarios.len(), "scenario", "scenarios")
    ));
    for s in &slow.scenarios {
        say.verdict(format!("  SLOW {:<36} {:.2} s", s.id, s.seconds));
    }
}

/// The last line: how many scenarios met their expectation, and where the reports are.
pub(crate) fn print_verdict(head: &Report, dir: Option<&std::path::Path>, say: &Say) {
    let shard = head
        .shard
        .map(|s| format!(" (shard {s} of a {}-scenario suite)", head.suite.scenarios))
        .unwrap_or_default();
    let at = dir
        .map(|d| format!("; reports in {}", d.display()))
        .unwrap_or_default();
    // Said before the counts, so the last lines never read as a whole run's.
    if let Some(why) = &head.incomplete {
        say.verdict(format!(
            "incomplete: {why}; the reports hold what was judged"
        ));
    }
    if let Some(n) = &head.narrowed {
        say.verdict(format!("narrowed: {n}"));
    }
    say.verdict(format!(
        "{}{shard}: {} as expected, {} not{at}",
        plural(head.summary.scenarios as usize, "scenario", "scenarios"),
        head.summary.met,
        head.summary.not_met,
    ));
}
