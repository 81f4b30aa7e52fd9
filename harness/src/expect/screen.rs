//! `screen_step_id` / `screen`: the screen should now look like a recorded screenshot, or like
//! the picture a skill export ships beside its plan.
//!
//! The same recorded frame passes without decoding a pixel. Otherwise the two screenshots are
//! compared with the pixelmatch-compatible diff; up to 0.5% changed pixels (a caret, a clock)
//! still counts as the same screen. The same comparison judges a plan's `done`.

use std::path::Path;

use image::RgbaImage;

use super::check::{Check, CheckKind, ExpectCtx};
use crate::diff::pixel::{Options, diff};

/// Largest share of changed pixels that still counts as the same screen.
const MAX_CHANGED_RATIO: f64 = 0.005;

/// Why a screen comparison could not be made (no screenshot, an unreadable picture, another
/// size): the caller decides whether that fails the check or leaves it unjudged.
pub(crate) type Unjudged = String;

pub(super) fn check(step_id: &str, ctx: &ExpectCtx) -> Check {
    let result = match (ctx.step_frame)(step_id) {
        Some(want) => against_frame(
            &want,
            &format!("the screen of step `{step_id}`"),
            CheckKind::Screen,
            ctx,
        ),
        None => Err(format!("no recorded screenshot for step `{step_id}`")),
    };
    result.unwrap_or_else(|why| Check::new(CheckKind::Screen, false, why))
}

pub(super) fn check_picture(rel: &Path, ctx: &ExpectCtx) -> Check {
    against_picture(rel, CheckKind::Screen, ctx)
        .unwrap_or_else(|why| Check::new(CheckKind::Screen, false, why))
}

/// The screen now against recorded frame `want`, described as `what` in the detail.
pub(crate) fn against_frame(
    want: &str,
    what: &str,
    kind: CheckKind,
    ctx: &ExpectCtx,
) -> Result<Check, Unjudged> {
    let now = ctx.desktop.frame_id();
    if want == now {
        return Ok(Check::new(kind, true, format!("frame `{now}` is {what}")));
    }
    let rec = ctx.desktop.recording();
    let b = rec
        .frame(want)
        .ok_or(format!("frame `{want}` is missing"))?;
    let b = b
        .pixels()
        .map_err(|e| format!("cannot read a screenshot: {e}"))?;
    compare(&b, what, kind, ctx)
}

/// The screen now against a plan picture (relative to the plan's folder).
pub(crate) fn against_picture(
    rel: &Path,
    kind: CheckKind,
    ctx: &ExpectCtx,
) -> Result<Check, Unjudged> {
    let picture = (ctx.picture)(rel)
        .ok_or_else(|| format!("the picture `{}` cannot be read", rel.display()))?;
    compare(
        &picture,
        &format!("the picture `{}`", rel.display()),
        kind,
        ctx,
    )
}

fn compare(
    want: &RgbaImage,
    what: &str,
    kind: CheckKind,
    ctx: &ExpectCtx,
) -> Result<Check, Unjudged> {
    let rec = ctx.desktop.recording();
    let now = rec
        .frame(ctx.desktop.frame_id())
        .ok_or("the screen showing is missing from the recording")?
        .pixels()
        .map_err(|e| format!("cannot read a screenshot: {e}"))?;
    if now.dimensions() != want.dimensions() {
        return Err(format!(
            "{what} is {}×{} and the screen {}×{}: they cannot be compared",
            want.width(),
            want.height(),
            now.width(),
            now.height()
        ));
    }
    let d = diff(
        now.as_raw(),
        want.as_raw(),
        now.width(),
        now.height(),
        &Options::default(),
        None,
    )
    .map_err(|e| e.to_string())?;
    let ratio = d.mismatched as f64 / (now.width() as f64 * now.height() as f64).max(1.0);
    Ok(Check::new(
        kind,
        ratio <= MAX_CHANGED_RATIO,
        format!(
            "{} pixels ({:.2}%) differ from {what}",
            d.mismatched,
            ratio * 100.0
        ),
    ))
}
