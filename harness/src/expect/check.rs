//! [`Check`], the result of one expect check, and [`check_expect`], which runs every check an
//! `expect` names.

use std::path::Path;
use std::sync::Arc;

use image::RgbaImage;
use serde::Serialize;

use crate::desktop::Desktop;
use crate::plan::Expect;
use crate::resolve::FrameIndex;

/// What a check looks at, named in traces and reports by its kebab-case word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum CheckKind {
    App,
    Window,
    Visible,
    FieldContains,
    Screen,
    NextControl,
    // A browser step's: the page changed, the text read, a request's answer, an option not
    // replayed offline, where the page landed, whether it loaded, a correlation resolved.
    Diffshot,
    ReadsText,
    Received,
    Simulated,
    Origin,
    Load,
    Correlation,
    // The follower's own: the steps' order, a retry not acted twice, the plan's `done`.
    Order,
    Idempotency,
    Done,
}

/// One expect check's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    /// What it looked at.
    pub(crate) kind: CheckKind,
    /// Whether it held.
    pub(crate) passed: bool,
    /// What was expected and what was found (sensitive values redacted).
    pub(crate) detail: String,
}

impl Check {
    pub(crate) fn new(kind: CheckKind, passed: bool, detail: String) -> Self {
        Check {
            kind,
            passed,
            detail,
        }
    }
}

/// What the checks look at.
pub(crate) struct ExpectCtx<'a, 'r> {
    /// The frame now showing, indexed.
    pub(crate) index: &'a FrameIndex<'a>,
    /// The desktop (typed values, frame).
    pub(crate) desktop: &'a Desktop<'r>,
    /// The element the step acted on.
    pub(crate) acted: Option<&'a str>,
    /// Screenshot size in pixels.
    pub(crate) screen: (u32, u32),
    /// Expected text with inputs filled in, and whether it holds a sensitive value.
    pub(crate) field_text: Option<(String, bool)>,
    /// The recorded frame id of a step's screenshot (its before-frame), by step id.
    pub(crate) step_frame: &'a dyn Fn(&str) -> Option<String>,
    /// A plan picture (relative to the plan's folder), decoded; `None` when unreadable.
    pub(crate) picture: &'a dyn Fn(&Path) -> Option<Arc<RgbaImage>>,
}

/// Runs every check `expect` names, in a fixed order.
pub(crate) fn check_expect(e: &Expect, ctx: &ExpectCtx) -> Vec<Check> {
    let mut out = Vec::new();
    super::app_window::check(e, ctx, &mut out);
    if let Some(v) = &e.visible {
        out.push(super::visible::check(v, e, ctx));
    }
    if e.field_contains.is_some() {
        out.push(super::field_contains::check(ctx));
    }
    // A skill export's picture is the guide's own evidence; the recording's frame stands in
    // for it otherwise.
    match (&e.screen, &e.screen_step_id) {
        (Some(picture), _) => out.push(super::screen::check_picture(picture, ctx)),
        (None, Some(id)) => out.push(super::screen::check(id, ctx)),
        (None, None) => {}
    }
    out
}

pub(crate) use super::next_control::check as check_next_control;
