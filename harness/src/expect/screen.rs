//! `screen_step_id`: the screen should now look like that step's recorded screenshot.
//!
//! The same recorded frame passes without decoding a pixel. Otherwise the two screenshots are
//! compared with the pixelmatch-compatible diff; up to 0.5% changed pixels (a caret, a clock)
//! still counts as the same screen.

use super::check::{Check, ExpectCtx};
use crate::diff::pixel::{Options, diff};

/// Largest share of changed pixels that still counts as the same screen.
const MAX_CHANGED_RATIO: f64 = 0.005;

pub(super) fn check(step_id: &str, ctx: &ExpectCtx) -> Check {
    let Some(want) = (ctx.step_frame)(step_id) else {
        return Check::new(
            "screen",
            false,
            format!("no recorded screenshot for step `{step_id}`"),
        );
    };
    let now = ctx.desktop.frame_id();
    if want == now {
        return Check::new(
            "screen",
            true,
            format!("frame `{now}` is the screen of step `{step_id}`"),
        );
    }
    let rec = ctx.desktop.recording();
    let (Some(a), Some(b)) = (rec.frame(now), rec.frame(&want)) else {
        return Check::new("screen", false, format!("frame `{want}` is missing"));
    };
    let (pa, pb) = match (a.pixels(), b.pixels()) {
        (Ok(pa), Ok(pb)) => (pa, pb),
        (Err(e), _) | (_, Err(e)) => {
            return Check::new("screen", false, format!("cannot read a screenshot: {e}"));
        }
    };
    match diff(
        pa.as_raw(),
        pb.as_raw(),
        pa.width(),
        pa.height(),
        &Options::default(),
        None,
    ) {
        Ok(d) => {
            let ratio = d.mismatched as f64 / (pa.width() as f64 * pa.height() as f64).max(1.0);
            Check::new(
                "screen",
                ratio <= MAX_CHANGED_RATIO,
                format!(
                    "{} pixels ({:.2}%) differ from the screen of step `{step_id}`",
                    d.mismatched,
                    ratio * 100.0
                ),
            )
        }
        Err(e) => Check::new("screen", false, format!("{e}")),
    }
}
