//! `value-looks-like-template`
//!
//! What: a `value` (text typed exactly as written) that contains `{id}` for a declared input.
//! Why: `value` is never filled in, so the follower types the braces themselves — an email
//! goes to `{client-email}`. The author almost always meant `template` (and `reads`).
//! Example: `"value": "{client-email}"` → warning at `steps[1].value`.

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let Some(value) = step.value.as_deref() else {
            continue;
        };
        let Some(input) = ctx
            .fox
            .inputs
            .iter()
            .find(|inp| value.contains(&format!("{{{}}}", inp.id)))
        else {
            continue;
        };
        out.push(
            Finding::new(
                Severity::Warning,
                "value-looks-like-template",
                step_path(i).key("value"),
                format!(
                    "`value` holds `{{{}}}`, which is typed as it stands, braces and all",
                    input.id
                ),
            )
            .hint(if step.reads.contains(&input.id) {
                "rename `value` to `template`".to_string()
            } else {
                format!(
                    "rename `value` to `template` and add \"{}\" to `reads`",
                    input.id
                )
            }),
        );
    }
}
