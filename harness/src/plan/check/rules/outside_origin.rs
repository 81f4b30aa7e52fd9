//! `outside-origin` (protocolv2)
//!
//! What: a `navigate` step's URL (its `value`, or its `target` when that is a URL) stays
//! inside the plan's `origin`: relative, or the same scheme, host and port.
//! Why: the plan is reviewed and approved for one origin ("the exact origin the plan runs
//! inside"); a step that leaves it acts where nobody approved anything.
//! Example: origin `http://127.0.0.1:8000`, `"value": "https://evil.test/"` → finding at
//! `steps[0].value`.

use super::{DevCtx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::plan::devthink::kinds::Kind;
use crate::plan::devthink::origin::Origin;

pub(crate) fn check(ctx: &DevCtx, out: &mut Vec<Finding>) {
    // The parse refused a plan whose origin is not exact.
    let Ok(origin) = Origin::exact(&ctx.plan.origin) else {
        return;
    };
    for (i, step) in ctx.plan.steps.iter().enumerate() {
        if Kind::parse(&step.kind) != Some(Kind::Navigate) {
            continue;
        }
        // `target` is a CSS selector elsewhere; on a navigate step only a URL-looking one is
        // an address (a selector never holds `:` followed by `//`).
        let urls = [
            ("value", step.value.as_deref()),
            ("target", step.target.as_deref()),
        ];
        for (field, url) in urls {
            let Some(url) = url else { continue };
            if field == "target" && !url.contains("//") {
                continue;
            }
            if !origin.contains(url) {
                out.push(
                    Finding::new(
                        Severity::Error,
                        "outside-origin",
                        step_path(i).key(field),
                        format!(
                            "step `{}` navigates to `{url}`, outside the plan's origin `{}`",
                            step.id, ctx.plan.origin
                        ),
                    )
                    .hint("navigate inside the origin, or make it a plan of its own for review"),
                );
            }
        }
    }
}
