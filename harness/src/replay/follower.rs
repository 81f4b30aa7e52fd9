//! The reference follower: runs a plan against a recording the way "following a plan well"
//! asks, and records everything it does as a [`Trace`].
//!
//! Its manners are part of what is tested: it stops at every `confirm` step and takes the
//! scripted answer, asks for every sensitive input each time and never keeps the value past
//! the step, asks before replacing text the guide doesn't mention, and stops when `stop_if`
//! holds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use image::RgbaImage;

use super::trace::{AskKind, Event, Mode, StepStatus, Trace, Truth};
use crate::desktop::{Acted, Desktop};
use crate::diff::StepDiff;
use crate::diff::step::StepDiffs;
use crate::errors::FieldPath;
use crate::expect::{
    Check, ExpectCtx, OpCheck, Shown, check_diffshot, check_done, check_expect, check_next_control,
    check_operation, check_reads_text, check_simulated, check_unknown_role,
};
use crate::plan::{
    Action, Bounds, Part, Plan, Step, Target, Text, fill_known, selected_all_before,
};
use crate::png::decode_png;
use crate::recording::Recording;
use crate::resolve::crop::GrayScreen;
use crate::resolve::{FrameIndex, ResolveContext, resolve};
use crate::safe_path::safe_join;
use crate::scenario::{Answer, FailReason, Outcome, ScenarioFile, StopAnswer};
use crate::secret::REDACTED;
use crate::text::normalize_label;

/// A box cut from a recorded frame: (frame, left, top, right, bottom) in pixels.
type Cut = (usize, u32, u32, u32, u32);

/// A recording prepared for replays: frame indexes, grey screens and crops built once, on
/// first use.
pub struct Prepared<'r> {
    /// The recording.
    pub(crate) rec: &'r Recording,
    indexes: Vec<OnceLock<FrameIndex<'r>>>,
    grays: Vec<OnceLock<Option<GrayScreen>>>,
    crops: Mutex<BTreeMap<PathBuf, Option<Arc<RgbaImage>>>>,
    /// Pictures cut from recorded frames (frame, left, top, right, bottom), as
    /// `get_step_image` gives them.
    cuts: Mutex<BTreeMap<Cut, Option<Arc<RgbaImage>>>>,
    /// Step diffs of this recording; `None` when diffs are off.
    diffs: Option<Arc<StepDiffs>>,
    /// Where reading steps get their text.
    ocr: super::Ocr,
    reads: super::ocr::Reads,
    /// Every window title on any frame, folded: a step naming none of them is a stale guide.
    titles: OnceLock<BTreeSet<String>>,
}

impl<'r> Prepared<'r> {
    /// Wraps a recording.
    pub fn new(rec: &'r Recording) -> Self {
        Prepared {
            rec,
            indexes: (0..rec.frames.len()).map(|_| OnceLock::new()).collect(),
            grays: (0..rec.frames.len()).map(|_| OnceLock::new()).collect(),
            crops: Mutex::new(BTreeMap::new()),
            cuts: Mutex::new(BTreeMap::new()),
            diffs: None,
            ocr: super::Ocr::Dom,
            reads: Default::default(),
            titles: OnceLock::new(),
        }
    }

    /// Turns on the before/after diff of every step that acts, computed through `diffs` (one
    /// per recording, shared by every scenario on it). `run` reports carry them; the
    /// perturbation and approval replays leave them off, as they only judge resolutions.
    pub(crate) fn with_diffs(mut self, diffs: Arc<StepDiffs>) -> Self {
        self.diffs = Some(diffs);
        self
    }

    /// Reads text with `ocr` (the recorded DOM unless Tesseract is asked for).
    pub(crate) fn with_ocr(mut self, ocr: super::Ocr) -> Self {
        self.ocr = ocr;
        self
    }

    /// What a reading step reads on frame `i`, and from where: the text in `region` when the
    /// step gives one, else that of `element`.
    fn read(
        &self,
        i: usize,
        element: Option<&str>,
        region: Option<&crate::plan::ReadRegion>,
    ) -> Option<(Result<String, String>, super::ReadSource)> {
        let dom = self.rec.frames[i].dom.as_deref();
        let rect = region.map(|r| super::web::region_box(dom, r));
        match self.ocr {
            super::Ocr::Dom => {
                let dom = dom?;
                let text = match rect {
                    Some(rect) => rect.map(|r| super::web::text_in(dom, r)),
                    None => super::web::read_text(dom, element?)
                        .ok_or_else(|| "not in the DOM".to_string()),
                };
                Some((text, super::ReadSource::DomText))
            }
            super::Ocr::Tesseract => {
                let rect = match rect {
                    Some(rect) => rect,
                    None => Ok(self.frame_index(i).by_id(element?)?.frame),
                };
                let pixels = || self.rec.frames[i].pixels().map_err(|e| e.message);
                Some((
                    rect.and_then(|r| self.reads.read(i, r, pixels)),
                    super::ReadSource::Tesseract,
                ))
            }
        }
    }

    fn step_diff(&self, before: usize, after: usize) -> Option<StepDiff> {
        Some(self.diffs.as_ref()?.get(&self.rec.frames, before, after))
    }

    /// Frame `i` in grey, for crop matching (None when its screenshot cannot be read).
    pub(crate) fn gray(&self, i: usize) -> Option<&GrayScreen> {
        self.grays[i]
            .get_or_init(|| {
                self.rec.frames[i]
                    .pixels()
                    .ok()
                    .map(|p| GrayScreen::new(&p))
            })
            .as_ref()
    }

    /// A plan's picture (a control's crop, a skill export's screen), decoded once; None when
    /// it is missing, unsafe or unreadable (the resolver then does without it, as a follower
    /// without the picture would; a screen check says it cannot compare).
    pub(crate) fn picture(&self, base: &Path, rel: &Path) -> Option<Arc<RgbaImage>> {
        let mut crops = crate::par::lock(&self.crops);
        crops
            .entry(base.join(rel))
            .or_insert_with(|| {
                let path = safe_join(base, &rel.to_string_lossy(), base, FieldPath::root()).ok()?;
                decode_png(&path).ok().map(Arc::new)
            })
            .clone()
    }

    /// The picture of step `i`'s control an MCP-form plan gets from `get_step_image` with
    /// `region: "target"`: the step's recorded screenshot cut at its `bounds`. None when the
    /// step has no recorded screenshot or the box is empty.
    pub(crate) fn step_image(&self, plan: &Plan, i: usize, b: &Bounds) -> Option<Arc<RgbaImage>> {
        let f = self.step_frame(plan, i)?;
        let (w, h) = self.screen();
        let px = |share: f64, size: u32| {
            let v = (share * f64::from(size))
                .round()
                .clamp(0.0, f64::from(size));
            // Clamped to 0..=size just above, so it fits.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let v = v as u32;
            v
        };
        let (x0, y0) = (px(b.x, w), px(b.y, h));
        let (x1, y1) = (px(b.x + b.width, w), px(b.y + b.height, h));
        if x1 <= x0 || y1 <= y0 {
            return None;
        }
        let mut cuts = crate::par::lock(&self.cuts);
        cuts.entry((f, x0, y0, x1, y1))
            .or_insert_with(|| {
                let pixels = self.rec.frames[f].pixels().ok()?;
                let (pw, ph) = pixels.dimensions();
                let (x1, y1) = (x1.min(pw), y1.min(ph));
                (x1 > x0 && y1 > y0).then(|| {
                    Arc::new(
                        image::imageops::crop_imm(&*pixels, x0, y0, x1 - x0, y1 - y0).to_image(),
                    )
                })
            })
            .clone()
    }

    /// Whether the window `title` shows on some frame of the recording: as written, with a
    /// suffix after a break (a retitled document, "Report — Edited"), or with other values where
    /// `wild` (each-time inputs' examples) stand in it.
    fn shows_window(&self, title: &str, wild: &[String]) -> bool {
        let titles = self.titles.get_or_init(|| {
            self.rec
                .frames
                .iter()
                .flat_map(|f| f.ax.apps.iter())
                .flat_map(|a| a.windows.iter())
                .map(|w| normalize_label(&w.title))
                .collect()
        });
        let want = normalize_label(title);
        titles.iter().any(|t| title_fits(&want, t, wild))
    }

    /// The index of frame `i`.
    pub(crate) fn frame_index(&self, i: usize) -> &FrameIndex<'r> {
        self.indexes[i].get_or_init(|| {
            let f = &self.rec.frames[i];
            FrameIndex::new(&f.ax).with_dom(f.dom.as_deref())
        })
    }

    fn screen(&self) -> (u32, u32) {
        (self.rec.file.screen.width, self.rec.file.screen.height)
    }

    /// The recorded transition for a step.
    fn transition(&self, step_id: &str) -> Option<&'r crate::recording::Transition> {
        self.rec
            .file
            .transitions
            .iter()
            .find(|t| t.step_id.as_deref() == Some(step_id))
    }

    /// The frame a step was recorded on (its screenshot); `None` when the recording has no
    /// transition for a step that acts. A step that only talks (an `ask`, a `do` without a
    /// target) acts on nothing, so it sits on the screen the step before it led to (the first
    /// screen, before step 1). Nothing else falls back to another frame: a step replayed on a
    /// screen it was not recorded on would be judged against the wrong truth.
    fn step_frame(&self, plan: &Plan, i: usize) -> Option<usize> {
        if let Some(t) = self.transition(&plan.steps[i].id) {
            return self.rec.frame_index(&t.from);
        }
        if !plan.steps[i].talks_only() {
            return None;
        }
        let Some(j) = i.checked_sub(1) else {
            return Some(0);
        };
        match self.transition(&plan.steps[j].id) {
            Some(t) => self.rec.frame_index(&t.to),
            None => self.step_frame(plan, j),
        }
    }

    /// The recorded frame of the finished screen `done.step_id` names: what that plan step
    /// led to, or a capture bound to the id (`frames[].step_id`).
    fn done_frame(&self, id: &str) -> Option<&'r str> {
        if let Some(t) = self.transition(id) {
            return Some(&t.to);
        }
        let f = self
            .rec
            .file
            .frames
            .iter()
            .find(|f| f.step_id.as_deref() == Some(id))?;
        Some(&f.id)
    }

    /// What the recording says about each plan step's target.
    pub(crate) fn truth(&self, plan: &Plan) -> Vec<Truth> {
        plan.steps
            .iter()
            .enumerate()
            .map(|(i, st)| match (&st.target, self.transition(&st.id)) {
                // A retry is rightly not acted: there is nothing to find.
                _ if super::web::retry_key(plan, i).is_some() => Truth::NoTarget,
                (None, _) => Truth::NoTarget,
                (Some(_), Some(t)) if t.element.is_some() => Truth::Recorded,
                (Some(_), _) => Truth::Unrecorded,
            })
            .collect()
    }

    /// For each step, whether what it does can be judged: it acts and was recorded.
    pub(crate) fn operations(&self, plan: &Plan) -> Vec<bool> {
        plan.steps
            .iter()
            .map(|st| !st.talks_only() && self.transition(&st.id).is_some())
            .enumerate()
            .map(|(i, judged)| judged && super::web::retry_key(plan, i).is_none())
            .collect()
    }
}

/// Whether the recorded title `have` is the plan's `want`: equal, retitled (`want` then a
/// break and more), or equal but for other text where each-time values `wild` stand.
fn title_fits(want: &str, have: &str, wild: &[String]) -> bool {
    let retitled = have
        .strip_prefix(want)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(|c: char| !c.is_alphanumeric()));
    if retitled {
        return true;
    }
    let mut pieces = vec![want.to_string()];
    for v in wild
        .iter()
        .map(|v| normalize_label(v))
        .filter(|v| !v.is_empty())
    {
        pieces = pieces
            .iter()
            .flat_map(|p| p.split(v.as_str()).map(str::to_string).collect::<Vec<_>>())
            .collect();
    }
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    pieces.len() > 1 && fits_around(&pieces, have)
}

/// Whether `have` is `pieces` in order with some text (at least a character) between each two.
fn fits_around(pieces: &[&str], have: &str) -> bool {
    match pieces {
        [] => have.is_empty(),
        [only] => have == *only,
        [first, rest @ ..] => have.strip_prefix(first).is_some_and(|left| {
            left.char_indices()
                .skip(1)
                .map(|(k, _)| k)
                .chain([left.len()].into_iter().filter(|_| !left.is_empty()))
                .any(|k| fits_around(rest, &left[k..]))
        }),
    }
}

/// Replays a plan in one mode.
pub fn replay(plan: &Plan, prep: &Prepared, scenario: &ScenarioFile, mode: Mode) -> Trace {
    let mut f = Follower {
        plan,
        prep,
        scenario,
        anchors: anchors(plan),
        events: Vec::new(),
    };
    let (review, refused) = super::web::review(plan, scenario);
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
                check: Check::new("order", false, why),
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
        let key = super::web::retry_key(self.plan, i)?.to_string();
        if let Some(frame) = frame {
            self.events.push(Event::StepStarted {
                step: i,
                frame: frame.to_string(),
            });
        }
        if self.prep.transition(&self.plan.steps[i].id).is_some() {
            self.events.push(Event::Checked {
                step: i,
                check: Check::new(
                    "idempotency",
                    false,
                    format!(
                        "the key `{key}` already ran, and the recording applied the step again"
                    ),
                ),
            });
            return Some(Err((StepStatus::Failed, FailReason::AppliedTwice)));
        }
        self.events.push(Event::StepFinished {
            step: i,
            status: StepStatus::Deduplicated,
            reason: None,
        });
        Some(Ok(()))
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
        if let Some(why) = super::web::outside_origin(self.plan, step, page) {
            self.events.push(Event::Checked {
                step: i,
                check: Check::new("origin", false, why),
            });
            return Err((StepStatus::Failed, FailReason::OutsideOrigin));
        }
        let recorded = self.prep.transition(&step.id);
        let unbound = self.unbound(i);
        let element = self.find_target(i, desk, recorded)?;
        if let Some(why) = super::web::link_out(self.plan, step, page, element.as_deref()) {
            self.events.push(Event::Checked {
                step: i,
                check: Check::new("origin", false, why),
            });
            return Err((StepStatus::Failed, FailReason::OutsideOrigin));
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

    /// `stop_if` on the screen as it is, before acting.
    fn stop_if(&mut self, i: usize, desk: &Desktop<'r>) -> Result<(), Stop> {
        let step: &Step = &self.plan.steps[i];
        let screen = self.prep.screen();
        // stop_if is checked on the screen as it is, before acting: by its conditions when it
        // has them, else its words go to the person, who says stop or go on (no answer: stop).
        if let Some(stop_if) = &step.stop_if {
            match &stop_if.when {
                Some(when) => {
                    let ix = self.prep.frame_index(desk.frame_index());
                    let no_frame = |_: &str| None;
                    let picture = |rel: &Path| self.prep.picture(&self.plan.base_dir, rel);
                    let ctx = ExpectCtx {
                        index: ix,
                        desktop: desk,
                        acted: None,
                        screen,
                        field_text: None,
                        step_frame: &no_frame,
                        picture: &picture,
                    };
                    let checks = check_expect(when, &ctx);
                    if !checks.is_empty() && checks.iter().all(|c| c.passed) {
                        return Err((StepStatus::Stopped, FailReason::StopIf));
                    }
                }
                None => {
                    let answer = self.scenario.answers.stop_if.get(&step.id).copied();
                    let word = match answer {
                        Some(StopAnswer::GoOn) => "go on",
                        Some(StopAnswer::Stop) => "stop",
                        None => "no answer (stop)",
                    };
                    self.ask(
                        i,
                        AskKind::StopIf,
                        format!("step {}: stop if {}?", step.number, stop_if.text),
                        word.into(),
                    );
                    if answer != Some(StopAnswer::GoOn) {
                        return Err((StepStatus::Stopped, FailReason::StopIf));
                    }
                }
            }
        }
        Ok(())
    }

    /// The step's control on the screen now, reported with what the recording says it was.
    fn find_target(
        &mut self,
        i: usize,
        desk: &Desktop<'r>,
        recorded: Option<&'r crate::recording::Transition>,
    ) -> Result<Option<String>, Stop> {
        let step: &Step = &self.plan.steps[i];
        let screen = self.prep.screen();
        if let Some(target) = &step.target {
            self.window_shown(i, target.window.as_deref(), "target")?;
            // A `wait` is for what the page shows later: its control is looked for on the frame
            // the wait ended on, not on the one before it.
            let frame = match (&step.web, recorded) {
                (Some(w), Some(t)) if w.kind == "wait" => self
                    .prep
                    .rec
                    .frame_index(&t.to)
                    .unwrap_or(desk.frame_index()),
                _ => desk.frame_index(),
            };
            let ix = self.prep.frame_index(frame);
            // A skill export ships the picture; the MCP form has the flag only, and the picture
            // is what `get_step_image` cuts from the step's screenshot.
            let crop = match (&target.crop, &target.bounds) {
                (Some(c), _) => self.prep.picture(&self.plan.base_dir, c),
                (None, Some(b)) if target.crop_available => self.prep.step_image(self.plan, i, b),
                _ => None,
            };
            let gray = crop.as_ref().and_then(|_| self.prep.gray(frame));
            let mut r = resolve(
                target,
                ix,
                &ResolveContext {
                    screen,
                    crop: gray.zip(crop.as_deref()),
                    anchors: &self.anchors,
                },
            );
            // A selector and a `targetref` are two reviewed names for one element: when the
            // second names another one, the review approved something else than what runs.
            if let (Some(found), Some(by_ref)) = (
                r.element.clone(),
                step.web.as_ref().and_then(|w| w.targetref.as_ref()),
            ) {
                let other = resolve(
                    by_ref,
                    ix,
                    &ResolveContext {
                        screen,
                        crop: None,
                        anchors: &self.anchors,
                    },
                );
                if let Some(o) = other.element.filter(|o| !other.ambiguous && *o != found) {
                    let why = format!(
                        "the selector and the targetref name different elements: `{found}` and `{o}`"
                    );
                    r.note = Some(r.note.take().map_or(why.clone(), |n| format!("{n}; {why}")));
                }
            }
            // The plan has a picture the harness cannot read: say so rather than quietly
            // resolving as if there were none.
            if let (Some(c), None) = (&target.crop, &crop) {
                let why = format!("the step's picture `{}` cannot be read", c.display());
                r.note = Some(r.note.take().map_or(why.clone(), |n| format!("{n}; {why}")));
            }
            let expected = recorded.and_then(|t| t.element.clone());
            // A tie is never correct, whichever way it happened to fall.
            let correct = expected.as_ref().map(|e| {
                !r.ambiguous
                    && (r.element.as_deref() == Some(e.as_str())
                        || recorded.is_some_and(|t| {
                            t.equivalent
                                .iter()
                                .any(|q| Some(q.as_str()) == r.element.as_deref())
                        }))
            });
            let click_in_box = match (&expected, r.click) {
                (Some(e), Some((x, y))) => {
                    Some(!r.ambiguous && ix.by_id(e).is_some_and(|n| n.frame.contains(x, y)))
                }
                _ => None,
            };
            let frame_of = |id: Option<&str>| id.and_then(|e| ix.by_id(e)).map(|n| n.frame);
            let element_frame = frame_of(r.element.as_deref());
            let expected_frame =
                frame_of(expected.as_deref()).filter(|f| Some(f) != element_frame.as_ref());
            let said_of = |id: Option<&str>| id.and_then(|e| ix.by_id(e)).map(|n| n.said());
            let said = (correct == Some(false))
                .then(|| (said_of(r.element.as_deref()), said_of(expected.as_deref())));
            let (found, ambiguous) = (r.element.clone(), r.ambiguous);
            self.events.push(Event::Resolved {
                step: i,
                resolution: r,
                expected,
                correct,
                click_in_box,
                element_frame,
                expected_frame,
                said,
            });
            match found {
                None => Err((StepStatus::Failed, FailReason::TargetNotFound)),
                Some(_) if ambiguous => Err((StepStatus::Failed, FailReason::TargetAmbiguous)),
                Some(id) => Ok(Some(id)),
            }
        } else {
            Ok(None)
        }
    }

    /// The recording's steps before this one's must be the plan's steps before it: a step the
    /// recording shows and the plan left out, or two steps done in the other order, make a
    /// plan that does something else than was recorded.
    fn in_order(
        &mut self,
        i: usize,
        recorded: Option<&'r crate::recording::Transition>,
    ) -> Result<(), Stop> {
        let Some(t) = recorded else { return Ok(()) };
        let all = &self.prep.rec.file.transitions;
        let Some(at) = all.iter().position(|x| std::ptr::eq(x, t)) else {
            return Ok(());
        };
        let plan = self.plan;
        let out_of_place = all[..at].iter().find_map(|x| {
            let id = x.step_id.as_deref()?;
            match plan.steps.iter().position(|s| s.id == id) {
                None => Some(format!(
                    "the recording does `{id}` ({}) before this step; the plan has no such step",
                    x.action
                )),
                Some(j) if j > i => Some(format!(
                    "the recording does step {} (`{id}`) before this one; the plan has it after",
                    plan.steps[j].number
                )),
                Some(_) => None,
            }
        });
        match out_of_place {
            None => Ok(()),
            Some(why) => {
                self.events.push(Event::Checked {
                    step: i,
                    check: Check::new("order", false, why),
                });
                Err((StepStatus::Failed, FailReason::StepOrder))
            }
        }
    }

    /// The recorded steps after the plan's last one that the plan does not have: a plan that
    /// ends early leaves what the recording went on to do undone.
    fn left_out_at_end(&self) -> Option<String> {
        let all = &self.prep.rec.file.transitions;
        let last = all.iter().rposition(|x| {
            x.step_id
                .as_deref()
                .is_some_and(|id| self.plan.steps.iter().any(|s| s.id == id))
        })?;
        all[last + 1..].iter().find_map(|x| {
            let id = x.step_id.as_deref()?;
            (!self.plan.steps.iter().any(|s| s.id == id)).then(|| {
                format!(
                    "the recording goes on to `{id}` ({}); the plan has no such step",
                    x.action
                )
            })
        })
    }

    /// A step naming a window that shows on no frame of the recording follows a stale guide:
    /// finding its control in any window of the app would hide that.
    fn window_shown(&mut self, i: usize, window: Option<&str>, field: &str) -> Result<(), Stop> {
        let Some(title) = window.filter(|t| !t.trim().is_empty()) else {
            return Ok(());
        };
        let wild: Vec<String> = self
            .plan
            .inputs
            .iter()
            .filter(|inp| inp.each_time)
            .filter_map(|inp| inp.example.clone())
            .collect();
        if self.prep.shows_window(title, &wild) {
            return Ok(());
        }
        self.events.push(Event::Checked {
            step: i,
            check: Check::new(
                "window",
                false,
                format!("{field}.window “{title}” shows on no frame of the recording"),
            ),
        });
        Err((StepStatus::Failed, FailReason::WindowNotFound))
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

    /// Typing over text the guide does not mention is asked first.
    fn guard_prefilled(
        &mut self,
        i: usize,
        desk: &Desktop<'r>,
        element: Option<&str>,
        text: Option<&(String, bool)>,
    ) -> Result<(), Stop> {
        let step: &Step = &self.plan.steps[i];
        if let (Action::Type { .. }, Some((typed, _))) = (&step.action, text) {
            let field = element.map(str::to_string).or_else(|| desk.focused());
            if let Some(field) = &field {
                let current = desk.field_value(field).unwrap_or_default();
                let mentioned = current.trim().is_empty()
                    || desk.typed_into(field)
                    || self.selected_all_before(i)
                    || normalize_label(&current) == normalize_label(typed)
                    || normalize_label(&step.text).contains(&normalize_label(&current));
                if !mentioned {
                    let allow = self
                        .scenario
                        .answers
                        .replace
                        .get(&step.id)
                        .copied()
                        .unwrap_or(false);
                    self.ask(
                        i,
                        AskKind::ReplacePrefilled,
                        "the field already holds text the guide does not mention; replace it?"
                            .into(),
                        if allow { "replace" } else { "keep (declined)" }.into(),
                    );
                    if !allow {
                        return Err((StepStatus::Stopped, FailReason::StoppedByPerson));
                    }
                }
            }
        }
        Ok(())
    }

    /// What is done, apart from where, against what the recording kept of it.
    fn judge_operation(
        &mut self,
        i: usize,
        recorded: Option<&'r crate::recording::Transition>,
        text: Option<&(String, bool)>,
        role: Option<OpCheck>,
    ) -> Result<bool, Stop> {
        let step: &Step = &self.plan.steps[i];
        // What is done, apart from where: judged against what the recording kept of it.
        // `true` when a part the step sets went unjudged.
        if let Some(t) = recorded.filter(|_| !step.talks_only()) {
            let typed = text.map(|(s, _)| s.as_str());
            let secret = text.is_some_and(|(_, s)| *s);
            let rec = &self.prep.rec;
            let (from, to) = (rec.frame(&t.from), rec.frame(&t.to));
            let shown = match &step.action {
                // Where a navigation led: the page the recording then shows, or the address
                // its browser shows.
                Action::Navigate { .. } => Shown {
                    page: to.and_then(|f| {
                        f.dom
                            .as_deref()
                            .map(|d| d.url.as_str())
                            .or_else(|| f.ax.address_shown())
                    }),
                    field: None,
                },
                // What the field typed into shows after the step (and showed before it).
                Action::Type { .. } | Action::Paste { .. } => {
                    let id = t.element.as_deref();
                    Shown {
                        page: None,
                        field: field_value(to, id).map(|after| (field_value(from, id), after)),
                    }
                }
                _ => Shown::default(),
            };
            let mut checks = check_operation(&step.action, t, typed, secret, shown);
            checks.extend(role);
            let wrong = checks.iter().any(|c| !c.passed && !c.unjudged);
            let unjudged = checks.iter().any(|c| c.unjudged);
            self.events.push(Event::Operation { step: i, checks });
            if wrong {
                return Err((StepStatus::Failed, FailReason::OperationMismatch));
            }
            return Ok(unjudged);
        }
        let unjudged = role.is_some();
        if let Some(role) = role {
            self.events.push(Event::Operation {
                step: i,
                checks: vec![role],
            });
        }
        Ok(unjudged)
    }

    /// Acts on the desktop, captures the step's diff, and applies what was typed or copied;
    /// returns the control acted on.
    fn act(
        &mut self,
        i: usize,
        desk: &mut Desktop<'r>,
        element: Option<&str>,
        recorded: Option<&'r crate::recording::Transition>,
        text: Option<&(String, bool)>,
    ) -> Result<Option<String>, Stop> {
        let step: &Step = &self.plan.steps[i];
        // Act. Steps that only talk (ask) or follow words (do) move the desktop only when the
        // recording shows something happening for them.
        let acts_on = match &step.action {
            Action::Type { .. } | Action::Paste { .. } | Action::Press { .. } => {
                element.map(str::to_string).or_else(|| desk.focused())
            }
            _ => element.map(str::to_string),
        };
        let only_if_recorded = step.talks_only();
        let from = desk.frame_id().to_string();
        let from_index = desk.frame_index();
        let acted = if only_if_recorded && recorded.is_none_or(|t| t.from != from) {
            Acted::Stayed
        } else {
            // Without a target, a keyboard action lands on the focused field; it matches the
            // recording when the recording acted on that same field.
            // A wait touches nothing: it lets the page go on to the frame it ended on, which a
            // recording keeps with the element waited for, or with none when it did not see it
            // before the wait.
            let el = if step.web.as_ref().is_some_and(|w| w.kind == "wait") {
                element.filter(|_| recorded.is_some_and(|t| t.element.is_some()))
            } else if step.target.is_some() {
                element
            } else {
                acts_on
                    .as_deref()
                    .filter(|f| recorded.and_then(|t| t.element.as_deref()) == Some(*f))
            };
            desk.act(&step.id, el)
        };
        match acted {
            Acted::Advanced { from, to } => self.events.push(Event::Acted {
                step: i,
                element: element.map(str::to_string),
                from,
                to,
            }),
            // The recording ends here: what this action does was never recorded, so the step
            // cannot be judged and must not pass as if it had been.
            Acted::Stayed if !step.talks_only() => {
                return Err((StepStatus::Failed, FailReason::NoRecordedTransition));
            }
            Acted::Stayed => {
                let here = desk.frame_id().to_string();
                self.events.push(Event::Acted {
                    step: i,
                    element: element.map(str::to_string),
                    from: here.clone(),
                    to: here,
                });
            }
            Acted::Diverged { recorded, acted } => {
                // Named as a person would name it on the screen it was on.
                let recorded = recorded.map(|r| {
                    self.prep
                        .frame_index(from_index)
                        .by_id(&r)
                        .map_or_else(|| format!("`{r}`"), |n| n.said())
                });
                self.events.push(Event::Diverged {
                    step: i,
                    recorded,
                    acted,
                });
                return Err((StepStatus::Failed, FailReason::Diverged));
            }
        }
        if let Some(diff) = self.prep.step_diff(from_index, desk.frame_index()) {
            self.events.push(Event::Captured { step: i, diff });
        }
        match &step.action {
            Action::Type { .. } | Action::Paste { .. } => {
                let value = match (&step.action, text) {
                    (_, Some((t, _))) => Some(t.clone()),
                    (Action::Paste { .. }, None) => desk.clipboard().map(str::to_string),
                    _ => None,
                };
                if let (Some(field), Some(v)) = (acts_on.as_deref(), value) {
                    desk.type_text(field, &v);
                }
            }
            Action::Copy => desk.copy_from(element),
            _ => {}
        }
        Ok(acts_on)
    }

    /// Where the recorded page went when the step acted: a link (clicked, or followed by a
    /// navigate's selector) can leave the origin though no URL in the plan does.
    fn landed(
        &mut self,
        i: usize,
        before: usize,
        desk: &Desktop<'r>,
        element: Option<&str>,
    ) -> Result<(), Stop> {
        let frames = &self.prep.rec.frames;
        if let Some(why) = super::web::failed_load(frames[desk.frame_index()].dom.as_deref()) {
            self.events.push(Event::Checked {
                step: i,
                check: Check::new("load", false, why),
            });
            return Err((StepStatus::Failed, FailReason::ExpectFailed));
        }
        let landing = super::web::landing(
            self.plan,
            &self.plan.steps[i],
            frames[before].dom.as_deref(),
            frames[desk.frame_index()].dom.as_deref(),
            element,
        );
        let (why, reason) = match landing {
            super::web::Landing::Stayed => return Ok(()),
            super::web::Landing::Left(why) => (why, FailReason::OutsideOrigin),
            super::web::Landing::Unknown(why) => (why, FailReason::OriginUnjudged),
        };
        self.events.push(Event::Checked {
            step: i,
            check: Check::new("origin", false, why),
        });
        Err((StepStatus::Failed, reason))
    }

    /// A browser step's options, once it has acted: `pair` names the captures before and
    /// after, `diff` checks the page changed, a reading step reads its target's text (and
    /// checks it when the plan says what it should be). A step with an option that cannot be
    /// replayed offline ends here, not judged.
    fn web_options(
        &mut self,
        i: usize,
        before: usize,
        desk: &Desktop<'r>,
        acts_on: Option<&str>,
    ) -> Result<(), Stop> {
        let step: &Step = &self.plan.steps[i];
        let Some(web) = &step.web else {
            return Ok(());
        };
        let frames = &self.prep.rec.frames;
        let after = desk.frame_index();
        if web.pair {
            for (phase, f) in [("before", before), ("after", after)] {
                self.events.push(Event::NamedCapture {
                    step: i,
                    name: super::web::capture_name(self.plan, step, phase),
                    frame: frames[f].id.clone(),
                });
            }
        }
        if web.diff
            && let Some(d) = self.prep.step_diff(before, after)
            && let Some(p) = &d.pixel
        {
            let check = check_diffshot(p.mismatched, p.pixels);
            let changed = check.passed;
            self.events.push(Event::Checked { step: i, check });
            if !changed {
                return Err((StepStatus::Failed, FailReason::ExpectFailed));
            }
        }
        if web.reads {
            let read = self.prep.read(after, acts_on, web.region.as_ref());
            if let Some((Ok(text), source)) = &read {
                self.events.push(Event::Read {
                    step: i,
                    text: text.clone(),
                    source: *source,
                });
            }
            if let Some(want) = &web.read_expect {
                let source = read.as_ref().map(|(_, s)| crate::text::word(s));
                let read = read
                    .as_ref()
                    .zip(source.as_deref())
                    .map(|((r, _), s)| (r, s));
                let check = check_reads_text(read, want);
                let passed = check.passed;
                self.events.push(Event::Checked { step: i, check });
                if !passed {
                    return Err((StepStatus::Failed, FailReason::ReadMismatch));
                }
            }
        }
        if let Some(check) = check_simulated(&web.not_simulated) {
            self.events.push(Event::Checked { step: i, check });
            return Err((StepStatus::Failed, FailReason::NotSimulated));
        }
        Ok(())
    }

    /// What should be true now: the step's `expect`, else the next step's control is there.
    fn expects(
        &mut self,
        i: usize,
        desk: &Desktop<'r>,
        acts_on: Option<&str>,
        asked: &BTreeMap<String, String>,
    ) -> Result<(), Stop> {
        let step: &Step = &self.plan.steps[i];
        let screen = self.prep.screen();
        // Check what should be true now.
        let ix = self.prep.frame_index(desk.frame_index());
        let step_frame = |id: &str| {
            let j = self.plan.steps.iter().position(|s| s.id == id)?;
            Some(
                self.prep.rec.frames[self.prep.step_frame(self.plan, j)?]
                    .id
                    .clone(),
            )
        };
        let field_text = step
            .expect
            .as_ref()
            .and_then(|e| e.field_contains.as_ref())
            .map(|t| {
                let sensitive = t.inputs().iter().any(|id| {
                    self.plan
                        .inputs
                        .iter()
                        .any(|inp| inp.id == *id && inp.sensitive)
                });
                (self.fill_known(t, asked), sensitive)
            });
        let ctx = ExpectCtx {
            index: ix,
            desktop: desk,
            acted: acts_on,
            screen,
            field_text,
            step_frame: &step_frame,
            picture: &|rel: &Path| self.prep.picture(&self.plan.base_dir, rel),
        };
        let checks: Vec<Check> = match (
            &step.expect,
            self.plan.steps.get(i + 1).and_then(|s| s.target.as_ref()),
        ) {
            (Some(e), _) if !e.is_empty() => check_expect(e, &ctx),
            (_, Some(next)) => vec![check_next_control(next, &ctx)],
            _ => Vec::new(),
        };
        let expect_failed = step.expect.is_some() && checks.iter().any(|c| !c.passed);
        for c in checks {
            self.events.push(Event::Checked { step: i, check: c });
        }
        if expect_failed {
            return Err((StepStatus::Failed, FailReason::ExpectFailed));
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

/// The text the field `id` holds on frame `f`, when the frame's AX snapshot has it.
fn field_value<'a>(f: Option<&'a crate::recording::Frame>, id: Option<&str>) -> Option<&'a str> {
    f?.ax.find(id?)?.2.value.as_deref()
}

#[cfg(test)]
mod title_tests {
    use super::title_fits;

    #[test]
    fn a_window_fits_as_written_retitled_or_with_another_each_time_value() {
        let wild = ["Ada".to_string()];
        assert!(title_fits("add contact", "add contact", &[]));
        assert!(title_fits("add contact", "add contact — edited", &[]));
        assert!(!title_fits("add contact", "add contacts", &[]));
        assert!(!title_fits("add contcat", "add contact", &[]));
        assert!(title_fits("chat with ada", "chat with grace", &wild));
        assert!(title_fits("ada's notes", "grace's notes", &wild));
        assert!(!title_fits("chat with ada", "chat with ", &wild));
        assert!(!title_fits("chat with ada", "talk with grace", &wild));
        assert!(!title_fits("chat with ada", "chat with grace", &[]));
    }
}
