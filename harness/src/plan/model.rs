//! The normalized plan: what every dialect lowers into and all the replay engine knows.
//!
//! It keeps meaning, not wire format: a step's action carries exactly the fields that action
//! needs, text to type is a literal or a parsed template, and every step remembers the field
//! path it came from so that later stages can point a guide author at the right place.

use std::path::PathBuf;

use serde::Serialize;

use crate::errors::FieldPath;

/// Which dialect a plan was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Dialect {
    /// `foxstep-step-plan/1`, desktop guides.
    Foxstep,
    /// devthink protocolv2, browser plans.
    Devthink,
}

/// A plan, normalized.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// The dialect it was written in.
    pub(crate) dialect: Dialect,
    /// The guide's (or plan's) id.
    pub(crate) id: String,
    /// Its title or objective.
    pub(crate) title: String,
    /// The revision it was approved at, when known.
    pub(crate) revision: Option<String>,
    /// Declared inputs.
    pub(crate) inputs: Vec<Input>,
    /// Steps, in order.
    pub steps: Vec<Step>,
    /// What finished looks like.
    pub(crate) done: Option<Done>,
    /// The folder the plan file sits in; crops are relative to it.
    #[serde(skip)]
    pub(crate) base_dir: PathBuf,
    /// A browser plan's review: replayed only when approved and unexpired (devthink).
    pub(crate) review: Option<Review>,
}

impl Plan {
    /// The idempotency key step `i` repeats from an earlier step: a retry, not applied again.
    pub(crate) fn retry_key(&self, i: usize) -> Option<&str> {
        fn key(s: &Step) -> Option<&str> {
            s.web.as_ref()?.idempotency_key.as_deref()
        }
        let k = key(&self.steps[i])?;
        self.steps[..i]
            .iter()
            .any(|s| key(s) == Some(k))
            .then_some(k)
    }

    /// The values the plan itself holds that no output may show: its secret texts and any
    /// example a sensitive input still carries.
    pub(crate) fn secrets(&self) -> crate::secret::Taint {
        let texts = self.steps.iter().filter_map(|s| match s.action.text()? {
            Text::Secret(v) => Some(v.clone()),
            _ => None,
        });
        let examples = self
            .inputs
            .iter()
            .filter(|i| i.sensitive)
            .filter_map(|i| i.example.clone());
        crate::secret::Taint::new(texts.chain(examples))
    }
}

/// Where a reviewed browser plan stands, and where it may act.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Review {
    /// `draft`, `pending`, `approved`, … as the plan says.
    pub(crate) state: crate::plan::devthink::State,
    /// Epoch milliseconds after which the plan may no longer run.
    pub(crate) expires_at: crate::plan::devthink::EpochMs,
    /// Epoch milliseconds the plan was made.
    pub(crate) created_at: crate::plan::devthink::EpochMs,
    /// Epoch milliseconds the person approved it, when the plan says.
    #[serde(skip)]
    pub(crate) approved_at: Option<crate::plan::devthink::EpochMs>,
    /// The exact origin every step stays inside.
    pub(crate) origin: String,
}

/// What a browser step carries beyond the common step (devthink).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct WebStep {
    /// The step's kind as the plan writes it (`submit`, `extract`, …).
    pub(crate) kind: String,
    /// A retry with a key that already ran is not applied again.
    pub(crate) idempotency_key: Option<String>,
    /// Capture the page before and after the step.
    pub(crate) pair: bool,
    /// Diff the captures after the step.
    pub(crate) diff: bool,
    /// The capture file name pattern.
    pub(crate) naming: Option<String>,
    /// Read the text of the step's target (extract, regionocr, capture with `ocr`).
    pub(crate) reads: bool,
    /// The text the read should give, when the plan says.
    pub(crate) read_expect: Option<String>,
    /// Where on the page the read looks, when `ocrregion` says; else the target's box.
    pub(crate) region: Option<ReadRegion>,
    /// Option families the harness cannot replay offline: the step is not judged.
    pub(crate) not_simulated: Vec<String>,
    /// What the step asks that the recording answers (a long poll, a vision prompt, …).
    pub(crate) asks: Vec<crate::plan::devthink::exchange::Ask>,
    /// Earlier answers that fill `{name}` in the step's requests.
    pub(crate) correlation: Vec<crate::plan::devthink::exchange::Correlate>,
    /// The `targetref` of a step that also has a selector: the selector finds the element,
    /// and a `targetref` naming another one is reported.
    #[serde(skip)]
    pub(crate) targetref: Option<Target>,
}

/// The region a reading step reads (devthink `ocrregion`): a box on the page, named by a
/// selector or given in the screenshot's pixels. The text read is the text drawn inside it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ReadRegion {
    /// `{"selector": "…"}`: the box of the one element the selector matches.
    Selector(String),
    /// `{"x", "y", "width", "height"}`: a box in page pixels from the screenshot's top left.
    Box {
        /// Left edge.
        x: f64,
        /// Top edge.
        y: f64,
        /// Width, more than 0.
        width: f64,
        /// Height, more than 0.
        height: f64,
    },
    /// A region of another shape: the harness cannot tell where it is, and says why.
    Unknown(String),
}

/// A declared input.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Input {
    /// The name templates use.
    pub(crate) id: String,
    /// The input as a person would say it.
    pub(crate) name: String,
    /// Always ask a person; never show or reuse the value.
    pub(crate) sensitive: bool,
    /// What it was when recorded (never set for a sensitive input after lowering).
    pub(crate) example: Option<String>,
    /// It changes between runs: its example is the recorded run's value, never a default.
    pub(crate) each_time: bool,
}

/// One step.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// The step's id, unique in the plan.
    pub id: String,
    /// Its 1-based number.
    pub(crate) number: u32,
    /// Its label in the guide.
    pub(crate) label: String,
    /// The step as the guide words it (information, never an instruction).
    pub(crate) text: String,
    /// What to do.
    pub(crate) action: Action,
    /// Where it acts (the fuzz tests swap selectors in).
    pub target: Option<Target>,
    /// What should be true next.
    pub(crate) expect: Option<Expect>,
    /// Ask the person first, for this reason.
    pub(crate) confirm: Option<String>,
    /// Stop instead of going on when this holds.
    pub(crate) stop_if: Option<StopIf>,
    /// The inputs the step reads.
    pub(crate) reads: Vec<String>,
    /// For a step that sends a prompt to an AI app, which assistant (kept for reports).
    pub(crate) assistant: Option<String>,
    /// Where the step sits in its source file.
    #[serde(skip)]
    pub(crate) path: FieldPath,
    /// What a browser step carries beyond this (devthink).
    pub(crate) web: Option<WebStep>,
}

impl Step {
    /// A step that acts on nothing unless the recording shows it did: an `ask`, a `do`
    /// without a target. Recordings hold no action for it.
    pub(crate) fn talks_only(&self) -> bool {
        matches!(self.action, Action::Ask | Action::Do) && self.target.is_none()
    }

    /// A browser `wait`: it touches nothing, and lets the page go on to the frame it ended on.
    pub(crate) fn waits(&self) -> bool {
        self.web.as_ref().is_some_and(|w| w.kind == "wait")
    }
}

/// What a step does.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub(crate) enum Action {
    /// Go to a place (a URL, a settings pane).
    Navigate {
        /// Where to, when the plan says.
        to: Option<String>,
    },
    /// Click the target.
    Click(Click),
    /// Type text where the target is.
    Type {
        /// What to type.
        text: Text,
        /// The key that sends it, such as Return.
        submit: Option<String>,
    },
    /// Paste the clipboard (or a given text) into the target.
    Paste {
        /// What to paste, when the plan says.
        text: Option<Text>,
    },
    /// Copy from the target.
    Copy,
    /// Press a key or shortcut.
    Press {
        /// The keys, such as `⌘S` or `Return`.
        keys: String,
    },
    /// Ask the person.
    Ask,
    /// Follow the step's words (written by the author); only its expect is checkable.
    Do,
}

impl Action {
    /// The action's name as plans write it.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Action::Navigate { .. } => "navigate",
            Action::Click(_) => "click",
            Action::Type { .. } => "type",
            Action::Paste { .. } => "paste",
            Action::Copy => "copy",
            Action::Press { .. } => "press",
            Action::Ask => "ask",
            Action::Do => "do",
        }
    }

    /// The text a `type` or `paste` step puts in.
    pub(crate) fn text(&self) -> Option<&Text> {
        match self {
            Action::Type { text, .. } | Action::Paste { text: Some(text) } => Some(text),
            _ => None,
        }
    }
}

/// How to click.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Click {
    /// `left`, `right` or `middle`.
    pub(crate) button: String,
    /// 1 for a click, 2 for a double click.
    pub(crate) count: u8,
    /// Press, move and release.
    pub(crate) drag: bool,
    /// Held keys.
    pub(crate) modifiers: Vec<String>,
}

/// Text to type: the same every time, or built from inputs.
#[derive(Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Text {
    /// Exactly this.
    Literal(String),
    /// Text with `{input}` holes.
    Template(Vec<Part>),
    /// Exactly this, and never shown: what a sensitive browser step types.
    #[serde(serialize_with = "redacted")]
    Secret(String),
}

/// By hand, so that a secret never reaches a panic message or a log through `{:?}`.
impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Text::Literal(s) => f.debug_tuple("Literal").field(s).finish(),
            Text::Template(p) => f.debug_tuple("Template").field(p).finish(),
            Text::Secret(_) => f
                .debug_tuple("Secret")
                .field(&crate::secret::REDACTED)
                .finish(),
        }
    }
}

fn redacted<S: serde::Serializer>(_: &str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(crate::secret::REDACTED)
}

/// A piece of a template.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Part {
    /// Literal text.
    Text(String),
    /// The value of the named input.
    Input(String),
}

impl Text {
    /// The input ids this text reads.
    pub(crate) fn inputs(&self) -> Vec<&str> {
        match self {
            Text::Literal(_) | Text::Secret(_) => Vec::new(),
            Text::Template(parts) => parts
                .iter()
                .filter_map(|p| match p {
                    Part::Input(id) => Some(id.as_str()),
                    Part::Text(_) => None,
                })
                .collect(),
        }
    }
}

/// A point as shares (0..1) of the step's screenshot.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Point {
    /// From the left.
    pub(crate) x: f64,
    /// From the top.
    pub(crate) y: f64,
}

/// `v` pixels as a share of `of`, to three decimals (as plans write them).
pub(crate) fn share(v: f64, of: u32) -> f64 {
    crate::json::round((v / of as f64 * 1000.0).round() / 1000.0)
}

/// A rectangle as shares (0..1) of the step's screenshot.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Bounds {
    /// Left edge.
    pub(crate) x: f64,
    /// Top edge.
    pub(crate) y: f64,
    pub(crate) width: f64,
    pub(crate) height: f64,
}

/// Where a step acts.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Target {
    /// App name.
    pub app: Option<String>,
    /// App bundle id.
    pub bundle_id: Option<String>,
    /// Window title.
    pub window: Option<String>,
    /// Role in words.
    pub role: Option<String>,
    /// Role as macOS reports it (`AXButton`).
    pub ax_role: Option<String>,
    /// The control's name; `None` for a nameless control.
    pub label: Option<String>,
    /// Where the recorded click landed.
    pub point: Option<Point>,
    /// The control's recorded frame.
    pub bounds: Option<Bounds>,
    /// Whether the guide has a picture of just the control (`crop_available`).
    pub crop_available: bool,
    /// A picture of just the control, relative to the plan's folder.
    pub crop: Option<PathBuf>,
    /// A CSS selector (browser dialects).
    pub selector: Option<String>,
}

/// What should be true after a step.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct Expect {
    /// App in front.
    pub(crate) app: Option<String>,
    /// Window in front.
    pub(crate) window: Option<String>,
    /// A control that should be showing.
    pub(crate) visible: Option<Target>,
    /// Text the acted-on field should now hold; may read inputs.
    pub(crate) field_contains: Option<Text>,
    /// The step whose recorded screenshot shows what should come next.
    pub(crate) screen_step_id: Option<String>,
    /// In a skill export: that screenshot's picture, relative to the plan's folder.
    pub(crate) screen: Option<PathBuf>,
}

impl Expect {
    /// True when there is nothing to check.
    pub(crate) fn is_empty(&self) -> bool {
        self == &Expect::default()
    }
}

/// When to stop instead of going on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct StopIf {
    /// The words.
    pub(crate) text: String,
    /// A checkable condition, when the plan gives one.
    pub(crate) when: Option<Expect>,
}

/// What finished looks like.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Done {
    /// In words.
    pub(crate) text: String,
    /// The capture that shows it: the finished screen's own id, or the last step's.
    pub(crate) step_id: Option<String>,
    /// In a skill export: a picture of the finished screen, relative to the plan's folder.
    pub(crate) screen: Option<PathBuf>,
}
