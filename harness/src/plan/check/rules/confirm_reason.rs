//! `confirm-without-reason`
//!
//! What: a step with `"confirm": true` has a non-empty `confirm_reason`.
//! Why: the follower must say *why* it asks; "Shall I go on?" with no reason gets a reflexive yes.
//! Example: `"confirm": true` alone → finding at `steps[2].confirm_reason`.

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let empty = step
            .confirm_reason
            .as_deref()
            .is_none_or(|r| r.trim().is_empty());
        if step.confirm && empty {
            out.push(
                Finding::new(
                    Severity::Error,
                    "confirm-without-reason",
                    step_path(i).key("confirm_reason"),
                    format!(
                        "step {} asks the person first but says no reason",
                        step.number
                    ),
                )
                .hint("add \"confirm_reason\", such as “Send” acts straight away."),
            );
        } else if !step.confirm && !empty {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "confirm-without-reason",
                    step_path(i).key("confirm"),
                    format!(
                        "step {} has a `confirm_reason` but does not ask",
                        step.number
                    ),
                )
                .hint("set \"confirm\": true, or remove `confirm_reason`"),
            );
        }
    }
}
