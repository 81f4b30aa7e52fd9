//! The reference follower: runs a plan against a recording the way "following a plan well"
//! asks, and records everything it does as a [`Trace`].
//!
//! Its manners are part of what is tested: it stops at every `confirm` step and takes the
//! scripted answer, asks for every sensitive input each time and never keeps the value past
//! the step, asks before replacing text the guide doesn't mention, and stops when `stop_if`
//! holds.

use std::collections::BTreeMap;
use std::path::Path;

use super::trace::{AskKind, Event, Mode, StepStatus, Trace};
use crate::desktop::{Acted, Desktop};
use crate::expect::{
    Check, CheckKind, ExpectCtx, OpCheck, Shown, check_diffshot, check_done, check_expect,
    check_next_control, check_operation, check_reads_text, check_received, check_simulated,
    check_unknown_role, origin,
};
use crate::plan::{Action, Part, Plan, Step, Target, Text, fill_known, selected_all_before};
use crate::resolve::{ResolveContext, nearest_windows, resolve};
use crate::scenario::{Answer, FailReason, Outcome, ScenarioFile, StopAnswer};
use crate::secret::REDACTED;
use crate::text::normalize_label;

mod act;
mod browser;
mod checks;
mod target;

pub use super::prepared::Prepared;

/// Replays a plan in one mode.
pub fn replay(plan: &Plan, prep: &Prepared, scenario: &ScenarioFile, mode: Mode) -> Trace {
    let mut f = Follower {
        plan,
        prep,
        scenario,
        anchors: anchors(plan),
        events: Vec::new(),
        served: vec![false; prep.rec.file.exchanges.len()],
        received: std::collections::HashMap::new(),
        mode,
    };
    let (review, refused) = crate::replay::web::review(plan, scenario);
    f.events.extend(review);
    match (refused, mode) {
        (Some(reason), _) => f.events.push(Event::Finished {
            outcome: Outcome::Refused,
            reason: Some(reason),
            step_id: None,
        }),
        (None, Mode::Chained | Mode::Agent) => f.chained(),
        (None, Mode::PerStep) => f.per_step(),
    }
    Trace {
        mode,
        truth: prep.truth(plan),
        operations: prep.operations(plan),
        events: f.events,
    }
}

struct Follower<'a, 'r> {
    plan: &'a Plan,
    prep: &'a Prepared<'r>,
    scenario: &'a ScenarioFile,
    /// The plan's named and placed targets, for telling how far a step's window moved.
    anchors: Vec<&'a Target>,
    events: Vec<Event>,
    /// The recording's exchanges already served back (each answers one ask).
    served: Vec<bool>,
    /// The answer each step was served last, by step id, for later `correlation`.
    received: std::collections::HashMap<String, serde_json::Value>,
    mode: Mode,
}

/// The plan's targets with a label and a place: all a follower knows about where controls
/// were, which is what tells it how far a window moved (the resolver keeps those in the
/// step's own window).
fn anchors(plan: &Plan) -> Vec<&Target> {
    plan.steps
        .iter()
        .filter_map(|s| s.target.as_ref())
        .filter(|t| t.label.is_some() && (t.bounds.is_some() || t.point.is_some()))
        .collect()
}

/// How a step ended, when it did not pass.
type Stop = (StepStatus, FailReason);

impl<'a, 'r> Follower<'a, 'r> {
    fn chained(&mut self) {
        // The desktop starts as the recording starts: a plan that skips a step the recording
        // needed (opening a window) must not find that step's window already open.
        let start = 0;
        let mut desk = Desktop::new(self.prep.rec, start);
        // The first step the harness could not judge: the run goes on, but cannot complete.
        let mut unjudged: Option<(usize, FailReason)> = None;
        for i in 0..self.plan.steps.len() {
            let result = match self.deduplicated(i, Some(desk.frame_id())) {
                Some(Ok(())) => continue,
                Some(Err(stop)) => Err(stop),
                None => self.step(i, &mut desk),
            };
            if let Err((
                status,
                reason @ (FailReason::NotSimulated
                | FailReason::OriginUnjudged
                | FailReason::Unjudged
                | FailReason::Unbound),
            )) = result
            {
                self.events.push(Event::StepFinished {
                    step: i,
                    status,
                    reason: Some(reason),
                });
                unjudged.get_or_insert((i, reason));
                continue;
            }
            if let Err((status, reason)) = result {
                self.events.push(Event::StepFinished {
                    step: i,
                    status,
                    reason: Some(reason),
                });
                // After an unbound step the recording no longer says what comes next (its
                // action for that step is "left out"): the unbound step is the cause.
                if let Some((j, FailReason::Unbound)) = unjudged {
                    self.events.push(Event::Finished {
                        outcome: Outcome::Failed,
                        reason: Some(FailReason::Unbound),
                        step_id: Some(self.plan.steps[j].id.clone()),
                    });
                    return;
                }
                let outcome = if status == StepStatus::Stopped {
                    Outcome::Stopped
                } else {
                    Outcome::Failed
                };
                self.events.push(Event::Finished {
                    outcome,
                    reason: Some(reason),
                    step_id: Some(self.plan.steps[i].id.clone()),
                });
                return;
            }
            self.events.push(Event::StepFinished {
                step: i,
                status: StepStatus::Passed,
                reason: None,
            });
        }
        if let Some(why) = self.left_out_at_end()
            && let Some(i) = self.plan.steps.len().checked_sub(1)
        {
            self.events.push(Event::Checked {
                step: i,
                check: Check::new(CheckKind::Order, false, why),
            });
            self.events.push(Event::Finished {
                outcome: Outcome::Failed,
                reason: Some(FailReason::StepOrder),
                step_id: Some(self.plan.steps[i].id.clone()),
            });
            return;
        }
        if let Some((i, reason)) = unjudged {
            self.events.push(Event::Finished {
                outcome: Outcome::Failed,
                reason: Some(reason),
                step_id: Some(self.plan.steps[i].id.clone()),
            });
            return;
        }
        let outcome = match self.check_done(&desk) {
            Some(false) => Outcome::NotDone,
            _ => Outcome::Completed,
        };
        self.events.push(Event::Finished {
            outcome,
            reason: None,
            step_id: None,
        });
    }

    /// Checks the plan's `done` on the screen a completed run ended on. `Some(false)` only
    /// when the finished screen was compared and is not this one; a done that cannot be judged
    /// is reported as such and does not decide the outcome.
    fn check_done(&mut self, desk: &Desktop<'r>) -> Option<bool> {
        let done = self.plan.done.as_ref()?;
        let frame = done
            .step_id
            .as_deref()
            .and_then(|id| self.prep.done_frame(id));
        let no_frame = |_: &str| None;
        let picture = |rel: &Path| self.prep.picture(&self.plan.base_dir, rel);
        let ctx = ExpectCtx {
            index: self.prep.frame_index(desk.frame_index()),
            desktop: desk,
            acted: None,
            screen: self.prep.screen(),
            field_text: None,
            step_frame: &no_frame,
            picture: &picture,
        };
        let (check, judged) = check_done(done, frame, &ctx);
        let held = !judged || check.passed;
        self.events.push(Event::Done {
            text: done.text.clone(),
            check,
            judged,
        });
        Some(held)
    }

    fn per_step(&mut self) {
        let mut first_failure = None;
        for i in 0..self.plan.steps.len() {
            // A retry sits on the screen the step before it led to.
            let here = i
                .checked_sub(1)
                .and_then(|j| self.prep.transition(&self.plan.steps[j].id))
                .map_or_else(
                    || self.prep.rec.frames.first().map(|f| f.id.clone()),
                    |t| Some(t.to.clone()),
                );
            let result = match self.deduplicated(i, here.as_deref()) {
                Some(Ok(())) => continue,
                Some(Err(stop)) => Err(stop),
                None => match self.prep.step_frame(self.plan, i) {
                    Some(frame) => self.step(i, &mut Desktop::new(self.prep.rec, frame)),
                    None => Err((StepStatus::Failed, FailReason::Unbound)),
                },
            };
            match result {
                Ok(()) => self.events.push(Event::StepFinished {
                    step: i,
                    status: StepStatus::Passed,
                    reason: None,
                }),
                Err((status, reason)) => {
                    self.events.push(Event::StepFinished {
                        step: i,
                        status,
                        reason: Some(reason),
                    });
                    first_failure.get_or_insert((status, reason, self.plan.steps[i].id.clone()));
                }
            }
        }
        self.events.push(match first_failure {
            None => Event::Finished {
                outcome: Outcome::Completed,
                reason: None,
                step_id: None,
            },
            Some((status, reason, id)) => Event::Finished {
                outcome: if status == StepStatus::Stopped {
                    Outcome::Stopped
                } else {
                    Outcome::Failed
                },
                reason: Some(reason),
                step_id: Some(id),
            },
        });
    }

    /// A retry whose idempotency key already ran is reported and not applied again.
    /// `None` when step `i` is no retry. A retry the recording shows acted on was applied
    /// twice by the system recorded: that fails the step.
    fn deduplicated(&mut self, i: usize, frame: Option<&str>) -> Option<Result<(), Stop>> {
        let key = self.plan.retry_key(i)?.to_string();
        if let Some(frame) = frame {
            self.events.push(Event::StepStarted {
                step: i,
                frame: frame.to_string(),
            });
        }
        if self.prep.transition(&self.plan.steps[i].id).is_some() {
            let why =
                format!("the key `{key}` already ran, and the recording applied the step again");
            let check = Check::new(CheckKind::Idempotency, false, why);
            return Some(Err(self.failed(i, check, FailReason::AppliedTwice)));
        }
        self.events.push(Event::StepFinished {
            step: i,
            status: StepStatus::Deduplicated,
            reason: None,
        });
        Some(Ok(()))
    }

    /// A check that failed step `i`, kept in its trace, and how the step ends.
    fn failed(&mut self, i: usize, check: Check, reason: FailReason) -> Stop {
        self.events.push(Event::Checked { step: i, check });
        (StepStatus::Failed, reason)
    }

    fn ask(&mut self, step: usize, kind: AskKind, detail: String, answer: String) {
        self.events.push(Event::Asked {
            step,
            kind,
            detail,
            answer,
        });
    }

    /// Fills a text, asking for sensitive inputs. Returns the text and whether it holds a secret.
    fn fill(
        &mut self,
        i: usize,
        text: &Text,
        asked: &mut BTreeMap<String, String>,
    ) -> Result<(String, bool), Stop> {
        let parts = match text {
            Text::Literal(s) => return Ok((s.clone(), false)),
            Text::Secret(s) => return Ok((s.clone(), true)),
            Text::Template(parts) => parts,
        };
        let mut out = String::new();
        let mut sensitive = false;
        for p in parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Input(id) => {
                    let input = self.plan.inputs.iter().find(|inp| &inp.id == id);
                    if input.is_some_and(|inp| inp.sensitive) {
                        sensitive = true;
                        // Asked each time: a value from an earlier step is never reused.
                        let value = match asked.get(id) {
                            Some(v) => Some(v.clone()),
                            None => {
                                let v = self.scenario.answers.sensitive.get(id).cloned();
                                let name = input.map_or(id.clone(), |inp| inp.name.clone());
                                let answer = if v.is_some() {
                                    REDACTED.to_string()
                                } else {
                                    "no value given".into()
                                };
                                self.ask(
                                    i,
                                    AskKind::SensitiveInput,
                                    format!("what is the {name}?"),
                                    answer,
                                );
                                v
                            }
                        };
                        let Some(v) = value else {
                            return Err((StepStatus::Stopped, FailReason::StoppedByPerson));
                        };
                        asked.insert(id.clone(), v.clone());
                        out.push_str(&v);
                    } else {
                        let v = match (self.scenario.inputs.get(id), input) {
                            (Some(v), _) => v.clone(),
                            // A value that changes each run is asked for, never taken from
                            // the recorded run.
                            (None, Some(inp)) if inp.each_time => {
                                self.ask(
                                    i,
                                    AskKind::Input,
                                    format!("what is the {}?", inp.name),
                                    "no value given".into(),
                                );
                                return Err((StepStatus::Stopped, FailReason::NeedsInput));
                            }
                            (None, inp) => inp.and_then(|x| x.example.clone()).unwrap_or_default(),
                        };
                        out.push_str(&v);
                    }
                }
            }
        }
        Ok((out, sensitive))
    }

    /// One step, phase by phase, as a careful person takes it: `stop_if` first, then find the
    /// control, ask before a confirm step, ask for values, guard pre-filled text, compare what
    /// is done with the recording, act and capture, and check what should now be true.
    fn step(&mut self, i: usize, desk: &mut Desktop<'r>) -> Result<(), Stop> {
        let step: &Step = &self.plan.steps[i];
        self.events.push(Event::StepStarted {
            step: i,
            frame: desk.frame_id().to_string(),
        });
        // Values asked for in this step; a secret leaves with the step.
        let mut asked = BTreeMap::new();
        self.stop_if(i, desk)?;
        let page = self.prep.rec.frames[desk.frame_index()].dom.as_deref();
        if let Some(why) = origin::outside_origin(self.plan, step, page) {
            return Err(self.failed(i, origin::check(why), FailReason::OutsideOrigin));
        }
        let recorded = self.prep.transition(&step.id);
        let unbound = self.unbound(i);
        let element = self.find_target(i, desk, recorded)?;
        if let Some(why) = origin::link_out(self.plan, step, page, element.as_deref()) {
            return Err(self.failed(i, origin::check(why), FailReason::OutsideOrigin));
        }
        // After the target: a control that is not on screen is the first thing wrong.
        self.in_order(i, recorded)?;
        self.confirm(i)?;
        // Values are asked for once the field is found, as a person would be asked.
        let text = match &step.action {
            Action::Type { text, .. } => Some(self.fill(i, text, &mut asked)?),
            Action::Paste { text: Some(text) } => Some(self.fill(i, text, &mut asked)?),
            _ => None,
        };
        self.guard_prefilled(i, desk, element.as_deref(), text.as_ref())?;
        if matches!(step.action, Action::Ask) {
            self.ask(i, AskKind::Question, step.text.clone(), "answered".into());
        }
        // A control the recording gives no role cannot confirm the role the plan names.
        let role = step.target.as_ref().and_then(|t| {
            let el = element.as_deref()?;
            let (_, _, e) = self.prep.rec.frames[desk.frame_index()].ax.find(el)?;
            check_unknown_role(t.ax_role.as_deref(), &e.ax_role)
        });
        let unjudged = self.judge_operation(i, recorded, text.as_ref(), role)?;
        let before = desk.frame_index();
        let acts_on = match self.act(i, desk, element.as_deref(), recorded, text.as_ref()) {
            // Nothing recorded for this step: that it is unbound is the cause.
            Err((status, FailReason::NoRecordedTransition)) if unbound => {
                return Err((status, FailReason::Unbound));
            }
            other => other?,
        };
        self.landed(i, before, desk, element.as_deref())?;
        self.web_options(i, before, desk, acts_on.as_deref())?;
        self.expects(i, desk, acts_on.as_deref(), &asked)?;
        // Acted and checked, so a chained run goes on; but nothing, or a detail, was judged
        // against the recording.
        if unbound {
            return Err((StepStatus::Failed, FailReason::Unbound));
        }
        if unjudged {
            return Err((StepStatus::Failed, FailReason::Unjudged));
        }
        Ok(())
    }

    /// Whether step `i` is unbound; when it is, says so in its trace with the recording's
    /// step ids, as the evidence its element and operation could not be judged against.
    fn unbound(&mut self, i: usize) -> bool {
        if !super::binding::is_unbound(self.prep.rec, self.plan, i) {
            return false;
        }
        self.events.push(Event::Operation {
            step: i,
            checks: vec![crate::expect::unbound(
                &self.plan.steps[i].id,
                &super::binding::recorded_step_ids(self.prep.rec, self.plan),
            )],
        });
        true
    }

    /// A confirm step asks the person first.
    fn confirm(&mut self, i: usize) -> Result<(), Stop> {
        let step: &Step = &self.plan.steps[i];
        // Asked once the control is found: the person is asked about the one that would be
        // clicked, and a declined step still shows whether it was the right one.
        if let Some(reason) = &step.confirm {
            let answer = self.scenario.answers.confirm.get(&step.id).copied();
            let word = match answer {
                Some(Answer::Approve) => "approve",
                Some(Answer::Decline) => "decline",
                None => "no answer (declined)",
            };
            self.ask(
                i,
                AskKind::Confirm,
                format!("step {}: {reason}", step.number),
                word.into(),
            );
            if answer != Some(Answer::Approve) {
                return Err((StepStatus::Stopped, FailReason::StoppedByPerson));
            }
        }
        Ok(())
    }

    fn selected_all_before(&self, i: usize) -> bool {
        selected_all_before(self.plan, i)
    }

    fn fill_known(&self, t: &Text, asked: &BTreeMap<String, String>) -> String {
        fill_known(self.plan, &self.scenario.inputs, t, asked)
    }
}
