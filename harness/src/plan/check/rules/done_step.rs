//! `unknown-id` (step references), `done-not-last`
//!
//! What: every `screen_step_id` (in `expect` or `stop_if`) names a step of this plan (or the
//! done screen), and `done.step_id`, when it names one of the plan's steps, names the last one.
//! Why: the follower compares the screen with that step's picture; a dangling id makes the
//! check impossible. The seed plan shows that `done.step_id` is the id of the finished
//! screen's own capture, which need not be a plan step — so only a done that points *back*
//! into the middle of the plan is wrong.
//! Example: `"screen_step_id": "no-such-step"` → finding at `steps[1].expect.screen_step_id`.

use std::collections::HashSet;

use super::{Ctx, step_path};
use crate::errors::FieldPath;
use crate::plan::check::{Finding, Severity};

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    let steps = &ctx.fox.steps;
    let mut ids: HashSet<&str> = steps.iter().map(|s| s.step_id.as_str()).collect();
    if let Some(id) = ctx.fox.done.as_ref().and_then(|d| d.step_id.as_deref()) {
        if let Some(i) = steps.iter().position(|s| s.step_id == id)
            && i + 1 != steps.len()
        {
            out.push(
                Finding::new(
                    Severity::Error,
                    "done-not-last",
                    FieldPath::root().key("done").key("step_id"),
                    format!(
                        "`done` points at step {}, which is not the last step",
                        steps[i].number
                    ),
                )
                .hint("point `done.step_id` at the finished screen or the last step"),
            );
        }
        ids.insert(id);
    }
    for (i, step) in steps.iter().enumerate() {
        // `stop_if` may carry the conditions of an `expect`, screen included.
        let refs = [
            (
                "expect",
                step.expect
                    .as_ref()
                    .and_then(|e| e.screen_step_id.as_deref()),
            ),
            (
                "stop_if",
                step.stop_if
                    .as_ref()
                    .and_then(|v| v.get("screen_step_id"))
                    .and_then(|v| v.as_str()),
            ),
        ];
        for (field, id) in refs {
            let Some(id) = id.filter(|id| !ids.contains(id)) else {
                continue;
            };
            out.push(
                Finding::new(
                    Severity::Error,
                    "unknown-id",
                    step_path(i).key(field).key("screen_step_id"),
                    format!("no step has the id `{id}`"),
                )
                .hint("use the `step_id` of one of this plan's steps"),
            );
        }
    }
}
