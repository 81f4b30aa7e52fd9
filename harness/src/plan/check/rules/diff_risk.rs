//! `diff-without-sensitive` (protocolv2)
//!
//! What: the `diff` option is set only on a step declared `sensitive`.
//! Why: the seed defines `diff` as "the diffshot comparison after a sensitive step". On a step
//! of lower risk the reviewer approves a comparison the protocol never runs, or the step's
//! risk is declared too low; either way the review shows something untrue. A warning: the
//! plan still runs as written.
//! Example: `"options": "{\"diff\": true}"` on a `click` declared `interaction` → finding at
//! `steps[1].options.diff`.

use super::{DevCtx, step_path};
use crate::errors::FieldPath;
use crate::plan::check::{Finding, Severity};
use crate::plan::devthink::Risk;
use crate::plan::devthink::options::locate_in_options;

pub(crate) fn check(ctx: &DevCtx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.plan.steps.iter().enumerate() {
        if step.parsed.diff != Some(true) || step.risk == Risk::Sensitive {
            continue;
        }
        let at = step_path(i).key("options");
        let inner = FieldPath::root().key("diff");
        let text = step.options.as_deref().unwrap_or_default();
        out.push(
            Finding::new(
                Severity::Warning,
                "diff-without-sensitive",
                at.join(&inner),
                format!(
                    "step `{}` asks for a diff, which runs after a sensitive step, but is declared `{}`",
                    step.id,
                    step.risk.word()
                ),
            )
            .hint("declare the step \"sensitive\", or remove `diff`")
            .at(locate_in_options(ctx.src, &at, text, &inner)),
        );
    }
}
