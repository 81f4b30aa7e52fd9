//! `done`: what finished looks like, checked once a chained run has done every step.
//!
//! The finished screen is `done.screen` (a skill export's picture) or the recorded frame
//! `done.step_id` names. A done in words only, or one whose capture is not in the recording,
//! cannot be judged: the check says so instead of passing.

use super::check::{Check, CheckKind, ExpectCtx};
use super::screen::{against_frame, against_picture};
use crate::plan::Done;

/// The done check, and whether it could be judged at all.
pub(crate) fn check_done(done: &Done, frame: Option<&str>, ctx: &ExpectCtx) -> (Check, bool) {
    let result = match (&done.screen, &done.step_id, frame) {
        (Some(picture), _, _) => against_picture(picture, CheckKind::Done, ctx),
        (None, Some(id), Some(frame)) => against_frame(
            frame,
            &format!("the finished screen `{id}`"),
            CheckKind::Done,
            ctx,
        ),
        (None, Some(id), None) => Err(format!(
            "the recording has no capture of the finished screen `{id}`"
        )),
        (None, None, _) => Err("`done` is in words only; there is no screen to compare".into()),
    };
    match result {
        Ok(check) => (check, true),
        Err(why) => (Check::new(CheckKind::Done, false, why), false),
    }
}
