//! The `stepreplay-report/1` document, folded from traces. Every report format reads this
//! one structure, so JSON, JUnit, Markdown and HTML never disagree about what happened.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::diff::StepDiff;
use crate::evidence::PairKey;
use crate::expect::Check;
use crate::expect::OpCheck;
use crate::fnv::fnv1a64;
use crate::plan::check::Finding;
use crate::recording::ax::Rect;
use crate::replay::{Event, Mode, Robustness, StepStatus, Trace};
use crate::resolve::{Resolution, Strategy};
use crate::result::{AgentFacts, Cause, PlanRun, Ran, ScenarioResult, StepInfo};
use crate::scenario::{Expected, FailReason, Outcome};
use crate::score::{Scores, Tally};
use crate::shard::Shard;
use crate::text::word;

/// The schema string of a report.
pub(crate) const REPORT_SCHEMA: &str = "stepreplay-report/1";

/// A whole run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Report {
    /// Always [`REPORT_SCHEMA`].
    pub(crate) schema: String,
    /// The harness that wrote it.
    pub harness: String,
    /// Modes run, in order.
    pub modes: Vec<Mode>,
    /// Which suite ran, so `merge` joins only shards of one suite.
    pub suite: SuiteId,
    /// This report's part of a sharded run; absent when whole (and after `merge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Scenario counts and mean scores over the whole run.
    pub summary: Summary,
    /// Why the run stopped before every scenario was judged (a Ctrl-C, SIGTERM); absent for
    /// a whole run. Such a report holds what was judged and is never a baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
    /// How the run was narrowed (`--grep`, `--filter`) from its suite; absent for a whole
    /// suite. Green then speaks for the scenarios that ran, and `baseline accept` updates only
    /// those.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub narrowed: Option<String>,
    /// With `run --slow SECONDS`: the scenarios that took longer. Wall-clock, so a report
    /// that has it differs from run to run; absent otherwise (and after `merge`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow: Option<Slow>,
    /// Every scenario, by id.
    pub scenarios: Vec<ScenarioReport>,
}

/// The scenarios a run took longer than a threshold on (`run --slow`), slowest first.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Slow {
    /// The threshold, in seconds.
    pub threshold: f64,
    /// Each scenario over it, slowest first (ties by id).
    pub scenarios: Vec<SlowScenario>,
}

/// One slow scenario: its id and wall-clock time.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SlowScenario {
    /// The scenario's id.
    pub id: String,
    /// Seconds it took, to two decimals.
    pub seconds: f64,
}

impl Slow {
    /// The scenarios of `timings` (wall-clock time by id) that took longer than `threshold`
    /// seconds.
    pub fn of(timings: &BTreeMap<String, std::time::Duration>, threshold: f64) -> Slow {
        let mut scenarios: Vec<SlowScenario> = timings
            .iter()
            .map(|(id, d)| (id, d.as_secs_f64()))
            .filter(|(_, secs)| *secs > threshold)
            .map(|(id, secs)| SlowScenario {
                id: id.clone(),
                seconds: (secs * 100.0).round() / 100.0,
            })
            .collect();
        scenarios.sort_by(|a, b| b.seconds.total_cmp(&a.seconds).then(a.id.cmp(&b.id)));
        Slow {
            threshold,
            scenarios,
        }
    }

    /// The seconds scenario `id` took, when it was slow.
    pub(crate) fn of_scenario(&self, id: &str) -> Option<f64> {
        self.scenarios
            .iter()
            .find(|s| s.id == id)
            .map(|s| s.seconds)
    }
}

/// A suite's identity: its scenario ids before sharding. Ids, not paths, so shards checked
/// out in different folders still merge.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SuiteId {
    /// Scenarios in the whole suite.
    pub scenarios: u64,
    /// FNV-1a (64 bits, hex) of the sorted ids, one per line.
    pub(crate) ids_fnv1a: String,
}

impl SuiteId {
    /// The identity of a suite with these ids (any order).
    pub(crate) fn of<S: AsRef<str>>(ids: &[S]) -> SuiteId {
        let mut v: Vec<&str> = ids.iter().map(AsRef::as_ref).collect();
        v.sort_unstable();
        let mut text = String::new();
        for id in &v {
            text.push_str(id);
            text.push('\n');
        }
        SuiteId {
            scenarios: v.len() as u64,
            ids_fnv1a: format!("{:016x}", fnv1a64(text.as_bytes())),
        }
    }
}

/// Totals over the run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    /// Scenarios run.
    pub scenarios: u64,
    /// Met their expectation.
    pub met: u64,
    /// Did not.
    pub not_met: u64,
    /// Scores per mode.
    pub scores: BTreeMap<Mode, Scores>,
    /// The counts behind them.
    pub(crate) tallies: BTreeMap<Mode, Tally>,
    /// Step × perturbation pairs still right, over the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robustness: Option<RobustnessTotal>,
    /// An agent run's figures: utility, utility under attack, attack success, rules broken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<super::AgentFigures>,
    /// One-fault copies of the plans the gate passed (`mutate`, `run --mutants`): the run
    /// fails on any.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub survived: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Robustness over a run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RobustnessTotal {
    /// `ok / total`.
    pub score: f64,
    /// Pairs still right.
    pub ok: u64,
    /// All pairs.
    pub total: u64,
}

/// Totals added up one scenario at a time, in any order (every count is an integer, so the
/// sums are the same however the scenarios arrive): how `run` folds entries as they finish.
#[derive(Clone, Debug)]
pub struct Totals {
    scenarios: u64,
    met: u64,
    tallies: BTreeMap<Mode, Tally>,
    robust: Option<(u64, u64)>,
    agent: super::AgentFigures,
    survived: u64,
}

impl Totals {
    /// No scenarios yet; every mode in `modes` has a tally even when none adds to it.
    pub fn new(modes: &[Mode]) -> Totals {
        Totals {
            scenarios: 0,
            met: 0,
            tallies: modes.iter().map(|&m| (m, Tally::default())).collect(),
            robust: None,
            agent: Default::default(),
            survived: 0,
        }
    }

    /// Adds one scenario.
    pub fn add(&mut self, s: &ScenarioReport) {
        self.scenarios += 1;
        self.met += u64::from(s.met);
        self.agent.add(s);
        self.survived += s.mutation.as_ref().map_or(0, |m| m.survived as u64);
        for (m, run) in &s.runs {
            self.tallies.entry(*m).or_default().add(&run.tally);
        }
        if let Some(r) = &s.robustness {
            let (ok, total) = self.robust.get_or_insert((0, 0));
            *ok += r.ok;
            *total += r.total;
        }
    }

    /// The summary: tallies re-added (so shards sum exactly), scores from them.
    pub fn summary(self) -> Summary {
        Summary {
            scenarios: self.scenarios,
            met: self.met,
            not_met: self.scenarios - self.met,
            scores: self.tallies.iter().map(|(m, t)| (*m, t.scores())).collect(),
            tallies: self.tallies,
            // `None` when no scenario was perturbed.
            robustness: self.robust.map(|(ok, total)| RobustnessTotal {
                score: if total == 0 {
                    1.0
                } else {
                    crate::json::round(ok as f64 / total as f64)
                },
                ok,
                total,
            }),
            agent: self.agent.finish(),
            survived: self.survived,
        }
    }
}

impl Summary {
    /// Totals of these scenarios.
    pub(crate) fn fold(scenarios: &[ScenarioReport], modes: &[Mode]) -> Summary {
        let mut t = Totals::new(modes);
        scenarios.iter().for_each(|s| t.add(s));
        t.summary()
    }
}

/// One scenario.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ScenarioReport {
    /// The scenario's id, as its file gives it.
    pub id: String,
    /// Scenario file.
    pub(crate) file: String,
    /// One line.
    pub description: String,
    /// The scenario file's tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Plan file.
    pub(crate) plan: String,
    /// Recording folder.
    pub recording: String,
    /// What should have happened.
    pub(crate) expected: Expected,
    /// Whether it did.
    pub met: bool,
    /// Why not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<String>,
    /// What kind of thing differed (where the failure points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cause: Option<Cause>,
    /// Each mode's run.
    pub runs: BTreeMap<Mode, RunReport>,
    /// Under perturbations, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robustness: Option<Robustness>,
    /// A bridge scenario's checks: each command's outcome, the final state, safety.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) bridge: Option<serde_json::Value>,
    /// An agent under test: its safety rules broken, turns, and why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentFacts>,
    /// What `check` finds against the plan at error level, or why it was refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) plan_errors: Vec<PlanFinding>,
    /// `check`'s other findings against the plan (warnings, canonical layout): shown here,
    /// they never fail a run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) plan_warnings: Vec<PlanFinding>,
    /// How well the gate guards the plan: its one-fault copies, when `run --mutants` made
    /// them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutation: Option<MutationScore>,
}

/// The gate's mutation score on one scenario's plan: how many one-fault copies it fails.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct MutationScore {
    /// Copies made.
    pub mutants: usize,
    /// Copies the gate fails.
    pub caught: usize,
    /// Copies that change nothing the plan does: not counted.
    pub equivalent: usize,
    /// Copies the gate passes.
    pub survived: usize,
    /// caught ÷ (mutants − equivalent); absent when nothing counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Why no copies were made (the scenario does not complete as it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Each copy the gate passes, in words (`typed-text` step 2: …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub survivors: Vec<String>,
}

/// One `check` finding against a scenario's plan.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct PlanFinding {
    /// The reason code.
    pub(crate) reason: String,
    /// The field path, as `steps[2].target.label`.
    pub(crate) path: String,
    /// What is wrong.
    pub(crate) message: String,
    /// Where in the plan file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) line: Option<usize>,
    /// See `line`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) column: Option<usize>,
    /// The file it is in when not the plan (a broken scenario file or recording).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) file: Option<String>,
}

/// One scenario in one mode.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunReport {
    /// How it ended.
    pub(crate) outcome: Outcome,
    /// Why it did not complete (none when it did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<FailReason>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) step_id: Option<String>,
    /// The scenario's scores, one per column.
    pub scores: Scores,
    pub(crate) tally: Tally,
    /// Each step of the plan (steps never reached say so).
    pub steps: Vec<StepReport>,
    /// The plan's `done`, as checked at the end of a completed run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) done: Option<DoneReport>,
    /// A browser plan's review surface, message by message (`approve: …`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) review: Vec<String>,
}

/// What finished looks like, and whether the run ended there.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct DoneReport {
    /// The guide's words.
    pub(crate) text: String,
    /// Whether the screen matched; absent when it could not be judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) passed: Option<bool>,
    /// What was compared, or why nothing could be.
    pub(crate) detail: String,
}

/// One step in one run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StepReport {
    /// Step id.
    pub(crate) step_id: String,
    /// The step's number in the plan, from 1.
    pub(crate) number: u32,
    pub(crate) action: String,
    /// The guide's words.
    pub text: String,
    /// Where the step is written in the plan file: line, from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) line: Option<usize>,
    /// See `line`: column, from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) column: Option<usize>,
    /// For a step that sends a prompt to an AI app, which assistant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) assistant: Option<String>,
    /// Whether the guide has a picture of the step's control (steps with a target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) crop_available: Option<bool>,
    /// `passed`, `failed`, `stopped` or `not-run`.
    pub status: String,
    /// Why it did not pass (none when it did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<FailReason>,
    /// Frame before and after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) frames: Option<(String, String)>,
    /// How the target was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<ResolutionReport>,
    /// What the step did, part by part against the recording.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) operation: Vec<OpCheck>,
    /// Expect checks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckReport>,
    /// What the follower asked the person.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) asked: Vec<AskReport>,
    /// What the recording did where we diverged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) diverged: Option<String>,
    /// What the step changed on screen and in the AX tree (steps that acted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<StepDiff>,
    /// The pictures `run --captures` wrote for this step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captures: Option<CaptureFiles>,
    /// What a browser step's options captured and read.
    #[serde(default, skip_serializing_if = "WebReport::is_empty")]
    pub(crate) web: WebReport,
    /// Every judgement the step's verdict stands on (the evidence ledger).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judgements: Vec<crate::replay::ledger::Judgement>,
}

/// A browser step's named captures and reads (devthink options).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct WebReport {
    /// `pair` captures: file name and the frame it shows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) captures: Vec<(String, String)>,
    /// What the step read, and from where.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) read: Option<(String, crate::replay::ReadSource)>,
}

impl WebReport {
    fn is_empty(&self) -> bool {
        self.captures.is_empty() && self.read.is_none()
    }
}

impl StepReport {
    /// The browser step's captures and reads as lines for people (every reporter prints them).
    pub(crate) fn web_notes(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .web
            .captures
            .iter()
            .map(|(name, frame)| format!("capture `{name}`: frame `{frame}`"))
            .collect();
        if let Some((text, source)) = &self.web.read {
            out.push(format!("read “{text}” ({})", crate::text::word(source)));
        }
        out
    }
}

impl StepReport {
    /// The frame pair the step went between in `recording`, named as the
    /// [`Evidence`](crate::evidence::Evidence) keeps it.
    pub(crate) fn pair(&self, recording: &str) -> Option<PairKey> {
        let (before, after) = self.frames.clone()?;
        Some((recording.to_string(), before, after))
    }
}

/// A step's before, after and diff PNGs, as paths under the captures folder given to `run`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct CaptureFiles {
    /// The screen before the step.
    pub before: String,
    /// The screen after it.
    pub(crate) after: String,
    /// pixelmatch's diff image of the two.
    pub(crate) diff: String,
}

/// A resolution, as reported: what the resolver found (or an agent picked), against what the
/// recording acted on.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ResolutionReport {
    /// The winner, its score, candidates and click point.
    #[serde(flatten)]
    pub found: Resolution,
    /// The element the recording acted on.
    pub(crate) expected: Option<String>,
    /// Right or wrong against it.
    pub correct: Option<bool>,
    /// Click point inside its box.
    pub(crate) click_in_box: Option<bool>,
    /// The winner's box in pixels (for drawing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element_frame: Option<Rect>,
    /// The recorded element's box, when it is not the winner's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_frame: Option<Rect>,
    /// When wrong: the winner as a person names it (`the button “Send”`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) element_said: Option<String>,
    /// When wrong: the recorded element as a person names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) expected_said: Option<String>,
}

impl ResolutionReport {
    /// The element an agent under test picked, against the recording's.
    pub(crate) fn picked(
        element: &Option<String>,
        expected: &Option<String>,
        correct: Option<bool>,
        click: Option<(f64, f64)>,
        click_in_box: Option<bool>,
    ) -> ResolutionReport {
        ResolutionReport {
            found: Resolution {
                element: element.clone(),
                strategy: Strategy::Agent,
                confidence: 1.0,
                margin: 0.0,
                candidates: Vec::new(),
                candidate_count: usize::from(element.is_some()),
                ambiguous: false,
                click,
                note: None,
                tie_break: None,
                picture: None,
            },
            expected: expected.clone(),
            correct,
            click_in_box,
            element_frame: None,
            expected_frame: None,
            element_said: None,
            expected_said: None,
        }
    }
}

/// An expect check, as reported.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CheckReport {
    /// Which check.
    pub(crate) kind: String,
    /// Held or not.
    pub passed: bool,
    /// In words.
    pub detail: String,
}

/// A question to the person, as reported.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct AskReport {
    /// What kind.
    pub(crate) kind: String,
    /// The question.
    pub(crate) detail: String,
    /// The answer (sensitive values redacted).
    pub(crate) answer: String,
}

/// One plan step of a trace, folded from its events.
fn fold_step(info: &StepInfo, trace: &Trace, i: usize) -> StepReport {
    let mut s = StepReport {
        step_id: info.id.clone(),
        number: info.number,
        action: info.action.to_string(),
        text: info.text.clone(),
        line: info.position.map(|p| p.line),
        column: info.position.map(|p| p.column),
        assistant: info.assistant.clone(),
        crop_available: info.crop_available,
        status: "not-run".into(),
        reason: None,
        frames: None,
        resolution: None,
        operation: Vec::new(),
        checks: Vec::new(),
        asked: Vec::new(),
        diverged: None,
        diff: None,
        captures: None,
        web: WebReport::default(),
        judgements: crate::replay::ledger::of_step(trace, i),
    };
    for e in trace.step_events(i) {
        match e {
            Event::StepStarted { frame, .. } => s.frames = Some((frame.clone(), frame.clone())),
            Event::Asked {
                kind,
                detail,
                answer,
                ..
            } => s.asked.push(AskReport {
                kind: word(kind),
                detail: detail.clone(),
                answer: answer.clone(),
            }),
            Event::Resolved {
                resolution: r,
                expected,
                correct,
                click_in_box,
                element_frame,
                expected_frame,
                said,
                ..
            } => {
                let (element_said, expected_said) = said.clone().unwrap_or_default();
                // What the picture said is in the follower's verdict; the report keeps that.
                s.resolution = Some(ResolutionReport {
                    found: Resolution {
                        picture: None,
                        ..r.clone()
                    },
                    expected: expected.clone(),
                    correct: *correct,
                    click_in_box: *click_in_box,
                    element_frame: *element_frame,
                    expected_frame: *expected_frame,
                    element_said,
                    expected_said,
                })
            }
            Event::Picked {
                element,
                expected,
                correct,
                click,
                click_in_box,
                ..
            } => {
                s.resolution = Some(ResolutionReport::picked(
                    element,
                    expected,
                    *correct,
                    *click,
                    *click_in_box,
                ));
            }
            Event::Acted { from, to, .. } => s.frames = Some((from.clone(), to.clone())),
            Event::Captured { diff, .. } => s.diff = Some(diff.clone()),
            Event::Diverged { recorded, .. } => {
                s.diverged = Some(match recorded {
                    Some(r) => format!("the recording acted on {r} here"),
                    None => "the recording pressed keys here".into(),
                })
            }
            Event::Checked {
                check:
                    Check {
                        kind,
                        passed,
                        detail,
                    },
                ..
            } => s.checks.push(CheckReport {
                kind: word(kind),
                passed: *passed,
                detail: detail.clone(),
            }),
            Event::Operation { checks, .. } => s.operation = checks.clone(),
            Event::NamedCapture { name, frame, .. } => {
                s.web.captures.push((name.clone(), frame.clone()))
            }
            Event::Read { text, source, .. } => s.web.read = Some((text.clone(), *source)),
            Event::StepFinished { status, reason, .. } => {
                s.status = word(status);
                s.reason = *reason;
                debug_assert!(*status != StepStatus::Passed || reason.is_none());
            }
            Event::Finished { .. }
            | Event::Done { .. }
            | Event::Review { .. }
            | Event::Violated { .. } => {}
        }
    }
    at_target_if_missed(&mut s, info);
    s
}

/// A step that did not find its control is placed at the field that names it (its label),
/// one whose window was not there at the `window` field that names it.
fn at_target_if_missed(s: &mut StepReport, info: &StepInfo) {
    let (target_window, expect_window) = info.window_positions;
    let window = match s.reason {
        Some(FailReason::WindowNotFound) => target_window,
        Some(FailReason::ExpectFailed) => {
            expect_window.filter(|_| s.checks.iter().any(|c| !c.passed && c.kind == "window"))
        }
        _ => None,
    };
    if let Some(p) = window {
        (s.line, s.column) = (Some(p.line), Some(p.column));
        return;
    }
    let missed = matches!(
        s.reason,
        Some(FailReason::TargetNotFound | FailReason::TargetAmbiguous)
    ) || (s.status == "failed"
        && s.resolution
            .as_ref()
            .is_some_and(|r| r.correct == Some(false)));
    if let (true, Some(p)) = (missed, info.target_position) {
        (s.line, s.column) = (Some(p.line), Some(p.column));
    }
}

fn fold_run(result: &PlanRun, trace: &Trace) -> RunReport {
    let (outcome, reason, step_id) = trace.outcome();
    let tally = Tally::of(trace);
    let steps = result
        .steps
        .iter()
        .enumerate()
        .map(|(i, info)| fold_step(info, trace, i))
        .collect();
    let done = trace.events.iter().find_map(|e| match e {
        Event::Done {
            text,
            check,
            judged,
        } => Some(DoneReport {
            text: text.clone(),
            passed: judged.then_some(check.passed),
            detail: check.detail.clone(),
        }),
        _ => None,
    });
    let review = trace
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Review { message, detail } => {
                Some(format!("{}: {detail}", crate::text::word(message)))
            }
            _ => None,
        })
        .collect();
    RunReport {
        outcome,
        reason,
        step_id,
        scores: tally.scores(),
        tally,
        steps,
        done,
        review,
    }
}

impl ScenarioReport {
    /// One scenario's result, folded.
    pub fn of(r: &ScenarioResult) -> ScenarioReport {
        let mut report = ScenarioReport {
            id: r.id.clone(),
            file: r.file.clone(),
            description: r.description.clone(),
            tags: r.tags.clone(),
            plan: String::new(),
            recording: String::new(),
            expected: Expected::completed(),
            met: r.met,
            mismatch: r.mismatch.as_ref().map(|m| m.text.clone()),
            cause: r.mismatch.as_ref().map(|m| m.cause),
            runs: BTreeMap::new(),
            robustness: None,
            bridge: None,
            agent: r.agent.clone(),
            plan_errors: Vec::new(),
            plan_warnings: Vec::new(),
            mutation: None,
        };
        match &r.run {
            Ran::Plan(p) => {
                report.plan = p.plan.clone();
                report.recording = p.recording.clone();
                report.expected = p.expected.clone();
                report.runs = p.traces.iter().map(|t| (t.mode, fold_run(p, t))).collect();
                report.robustness = p.robustness.clone();
                let shown = |fs: &[Finding]| -> Vec<PlanFinding> {
                    fs.iter()
                        .map(|f| PlanFinding {
                            reason: f.reason.to_string(),
                            path: f.path.to_string(),
                            message: f.message.clone(),
                            line: f.line,
                            column: f.column,
                            file: None,
                        })
                        .collect()
                };
                report.plan_errors = shown(&p.plan_errors);
                // A broken input's one finding is in the file the error names.
                if let (Some(e), [f]) = (&r.broken, &mut report.plan_errors[..]) {
                    let file = e.file.display().to_string();
                    f.file = (file != report.plan).then_some(file);
                }
                report.plan_warnings = shown(&p.plan_warnings);
            }
            // The report keeps the batch as JSON: it is read back by `merge` and `baseline`.
            Ran::Bridge(b) => report.bridge = serde_json::to_value(b).ok(),
            Ran::Agent => {}
        }
        let hidden = report.hidden();
        r.taint.report(report).unwrap_or(hidden)
    }

    /// The scenario with nothing shown but its id, file and verdict: what stands in when its
    /// report cannot be redacted as a whole (a tainted value was also a word the report's
    /// format needs).
    fn hidden(&self) -> ScenarioReport {
        ScenarioReport {
            description: crate::secret::REDACTED.into(),
            mismatch: self
                .mismatch
                .as_ref()
                .map(|_| crate::secret::REDACTED.into()),
            runs: BTreeMap::new(),
            bridge: None,
            agent: None,
            plan_errors: Vec::new(),
            plan_warnings: Vec::new(),
            ..self.clone()
        }
    }
}

impl Report {
    /// Folds results into a report. `results` must be sorted by id.
    pub fn from_results(results: &[ScenarioResult], modes: &[Mode]) -> Report {
        Report::from_scenarios(results.iter().map(ScenarioReport::of).collect(), modes)
    }

    /// A report of scenarios already folded (each as its run finished), sorted by id.
    pub(crate) fn from_scenarios(scenarios: Vec<ScenarioReport>, modes: &[Mode]) -> Report {
        let ids: Vec<&str> = scenarios.iter().map(|s| s.id.as_str()).collect();
        let head = Report::head(&ids, modes, Summary::fold(&scenarios, modes));
        Report { scenarios, ..head }
    }

    /// The run-wide part of a report of the scenarios `ids` whose totals are `summary`,
    /// holding no entries: what `run` pairs with the entries it spilled.
    pub fn head<S: AsRef<str>>(ids: &[S], modes: &[Mode], summary: Summary) -> Report {
        Report {
            schema: REPORT_SCHEMA.into(),
            harness: format!("stepreplay {}", env!("CARGO_PKG_VERSION")),
            modes: modes.to_vec(),
            suite: SuiteId::of(ids),
            shard: None,
            summary,
            incomplete: None,
            narrowed: None,
            slow: None,
            scenarios: Vec::new(),
        }
    }

    /// A copy of everything but the entries.
    pub(crate) fn without_entries(&self) -> Report {
        Report {
            schema: self.schema.clone(),
            harness: self.harness.clone(),
            modes: self.modes.clone(),
            suite: self.suite.clone(),
            shard: self.shard,
            summary: self.summary.clone(),
            incomplete: self.incomplete.clone(),
            narrowed: self.narrowed.clone(),
            slow: self.slow.clone(),
            scenarios: Vec::new(),
        }
    }
}

impl ScenarioReport {
    /// Whether the scenario failed because its plan, recording or inputs could not be used.
    pub(crate) fn broken_input(&self) -> bool {
        self.cause == Some(Cause::BrokenInput)
    }

    /// Every step of every run.
    pub fn steps(&self) -> impl Iterator<Item = &StepReport> {
        self.runs.values().flat_map(|run| &run.steps)
    }
}
