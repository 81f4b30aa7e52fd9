//! The trace: what happened during one replay, as a list of events. The replay only
//! produces it; scores and every report format consume it (nextest's runner/reporter split).

use serde::{Deserialize, Serialize};

use crate::diff::StepDiff;
use crate::expect::{Check, OpCheck};
use crate::recording::ax::Rect;
use crate::resolve::Resolution;
use crate::scenario::{FailReason, Outcome};

/// Chained or per-step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// One desktop through all steps; a wrong step diverges and the run stops.
    Chained,
    /// Each step on its own recorded before-frame, as offline benchmarks score.
    PerStep,
    /// An agent under test at the controls (`stepreplay agent`), chained as the follower is.
    Agent,
}

/// What the follower asked the person.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AskKind {
    /// May I do this confirm step?
    Confirm,
    /// What is the value of this sensitive input?
    SensitiveInput,
    /// What is the value of this input, which changes each run?
    Input,
    /// The field already holds text the guide doesn't mention: replace it?
    ReplacePrefilled,
    /// The plan's own `ask` step.
    Question,
    /// A `stop_if` in words: stop or go on?
    StopIf,
}

/// How a step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepStatus {
    /// Right target, action applied, every check held.
    Passed,
    /// See the reason.
    Failed,
    /// The person or a `stop_if` stopped here.
    Stopped,
    /// A retry whose idempotency key already ran: rightly not applied again.
    Deduplicated,
}

/// One thing that happened.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// A step begins on a frame.
    StepStarted {
        /// Step index in the plan.
        step: usize,
        /// Frame showing.
        frame: String,
    },
    /// The follower asked the person.
    Asked {
        /// Step index.
        step: usize,
        /// What about.
        kind: AskKind,
        /// The question (never a sensitive value).
        detail: String,
        /// The answer (sensitive values redacted).
        answer: String,
    },
    /// The target was resolved.
    Resolved {
        /// Step index.
        step: usize,
        /// The ranked result.
        resolution: Resolution,
        /// The element the recording acted on, when known.
        expected: Option<String>,
        /// Whether the winner is that element.
        correct: Option<bool>,
        /// Whether the click point falls inside that element's frame.
        click_in_box: Option<bool>,
        /// The winner's frame in pixels, on the frame it was resolved on (reports draw it).
        element_frame: Option<Rect>,
        /// The recorded element's frame there, when known and different from the winner's.
        expected_frame: Option<Rect>,
        /// When the winner is not the recorded element: each as a person names it (`the
        /// button “Send”`), for the messages.
        said: Option<(Option<String>, Option<String>)>,
    },
    /// The desktop moved (or did not).
    Acted {
        /// Step index.
        step: usize,
        /// Element acted on.
        element: Option<String>,
        /// Frame before.
        from: String,
        /// Frame after.
        to: String,
    },
    /// The screens and AX trees before and after the action, compared (when diffs are on).
    Captured {
        /// Step index.
        step: usize,
        /// What changed.
        diff: StepDiff,
    },
    /// The action left the recording.
    Diverged {
        /// Step index.
        step: usize,
        /// What the recording acted on, as a person names it (`the button “Send”`, else its
        /// element id in backticks).
        recorded: Option<String>,
        /// What we acted on.
        acted: Option<String>,
    },
    /// An expect check ran.
    Checked {
        /// Step index.
        step: usize,
        /// The result.
        check: Check,
    },
    /// What the step did, compared part by part with what was recorded.
    Operation {
        /// Step index.
        step: usize,
        /// Each part compared.
        checks: Vec<OpCheck>,
    },
    /// A browser plan's review surface spoke (`preview`, `approve`, `reject`, `execute`).
    Review {
        /// The message, as the review surface names it.
        message: ReviewMessage,
        /// What it was about.
        detail: String,
    },
    /// A capture a browser step's options ask for (`pair`), named by its `naming` pattern.
    NamedCapture {
        /// Step index.
        step: usize,
        /// The capture's file name.
        name: String,
        /// The frame it shows.
        frame: String,
    },
    /// What a reading step read, and from where.
    Read {
        /// Step index.
        step: usize,
        /// The text.
        text: String,
        /// Where it came from.
        source: ReadSource,
    },
    /// An agent picked the element it acted on: element accuracy counts it as a resolution.
    Picked {
        /// Step index.
        step: usize,
        /// The element it acted on, if it named or pointed at one.
        element: Option<String>,
        /// The element the recording acted on, when known.
        expected: Option<String>,
        /// Whether it is that element (none when the recording names none).
        correct: Option<bool>,
        /// Where it clicked, when it gave a point.
        click: Option<(f64, f64)>,
        /// Whether that point falls inside the recorded element's frame.
        click_in_box: Option<bool>,
    },
    /// An agent broke a safety rule.
    Violated {
        /// Step index (none past the end of the plan).
        step: Option<usize>,
        /// The rule's reason code.
        rule: String,
        /// What happened (never a sensitive value).
        detail: String,
    },
    /// A step ended.
    StepFinished {
        /// Step index.
        step: usize,
        /// How it ended.
        status: StepStatus,
        /// Why, when not passed.
        reason: Option<FailReason>,
    },
    /// The plan's `done` was checked at the end of a completed run.
    Done {
        /// What finished looks like, in the guide's words.
        text: String,
        /// The comparison with the finished screen.
        check: Check,
        /// False when there was nothing to compare with: the check says why.
        judged: bool,
    },
    /// The run ended.
    Finished {
        /// How the run ended.
        outcome: Outcome,
        /// Why, when not completed.
        reason: Option<FailReason>,
        /// The step it ended on, when not completed.
        step_id: Option<String>,
    },
}

/// The review surface's messages (devthink protocolv2 `reviewsurface.messages`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub enum ReviewMessage {
    Preview,
    Approve,
    Reject,
    Execute,
}

/// Where a read's text came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadSource {
    /// The recorded DOM's text under the element (what a page bridge reads).
    DomText,
    /// Tesseract on the element's box in the screenshot (`run --ocr tesseract`).
    Tesseract,
}

/// What the recording says about a plan step's target, known before replay: scores count
/// every plan step, reached or not, so they must know which ones could be judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Truth {
    /// The step has no target to find (a key press into the focused field, a question).
    NoTarget,
    /// The step has a target, but the recording names no element for it: it cannot be judged.
    Unrecorded,
    /// The recording names the element the step acted on.
    Recorded,
}

/// Everything one replay of one scenario did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Trace {
    /// The mode it ran in.
    pub mode: Mode,
    /// One per plan step, in order.
    pub(crate) truth: Vec<Truth>,
    /// One per plan step: whether what it does can be judged (it acts and was recorded).
    pub(crate) operations: Vec<bool>,
    /// The events, in order.
    pub events: Vec<Event>,
}

impl Trace {
    /// A replay that never started: the plan may not be followed.
    pub(crate) fn refused(mode: Mode, reason: FailReason) -> Trace {
        Trace {
            mode,
            truth: Vec::new(),
            operations: Vec::new(),
            events: vec![Event::Finished {
                outcome: Outcome::Refused,
                reason: Some(reason),
                step_id: None,
            }],
        }
    }

    /// The final event's outcome.
    pub fn outcome(&self) -> (Outcome, Option<FailReason>, Option<String>) {
        for e in self.events.iter().rev() {
            if let Event::Finished {
                outcome,
                reason,
                step_id,
            } = e
            {
                return (*outcome, *reason, step_id.clone());
            }
        }
        (Outcome::Failed, None, None)
    }

    /// The events of one step, in order.
    pub(crate) fn step_events(&self, step: usize) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(move |e| e.step() == Some(step))
    }
}

impl Event {
    /// The step an event belongs to.
    pub(crate) fn step(&self) -> Option<usize> {
        match self {
            Event::StepStarted { step, .. }
            | Event::Asked { step, .. }
            | Event::Resolved { step, .. }
            | Event::Acted { step, .. }
            | Event::Captured { step, .. }
            | Event::Diverged { step, .. }
            | Event::Checked { step, .. }
            | Event::Operation { step, .. }
            | Event::NamedCapture { step, .. }
            | Event::Read { step, .. }
            | Event::Picked { step, .. }
            | Event::StepFinished { step, .. } => Some(*step),
            Event::Violated { step, .. } => *step,
            Event::Finished { .. } | Event::Done { .. } | Event::Review { .. } => None,
        }
    }
}
