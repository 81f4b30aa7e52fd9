//! `step-number-order`
//!
//! What: step numbers run 1, 2, … n in the order the steps are listed.
//! Why: people and AIs refer to steps by number ("step 3"); `used_by` lists numbers. A gap or
//! a swap makes every such reference point at the wrong step.
//! Example: steps numbered 1, 3, 2 → findings at `steps[1].number` and `steps[2].number`.

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let want = i as u32 + 1;
        if step.number != want {
            out.push(
                Finding::new(
                    Severity::Error,
                    "step-number-order",
                    step_path(i).key("number"),
                    format!("step {} is listed at position {want}", step.number),
                )
                .hint(format!(
                    "number the steps 1..n in order: this one is {want}"
                )),
            );
        }
    }
}
