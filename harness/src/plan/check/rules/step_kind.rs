//! `unknown-kind`, `risk-below-kind` (protocolv2)
//!
//! What: a step's `kind` is one of the vocabulary in `docs/devthink.md`, and its declared
//! `risk` is at least its kind's risk class (read < interaction < sensitive).
//! Why: the schema calls `risk` *derived*: the review shows it, and an approval is only as good
//! as what it shows. A `submit` declared `read` hides from the reviewer that it sends a form;
//! a kind the harness does not know cannot be given a class at all.
//! Example: `"kind": "submit", "risk": "interaction"` → `risk-below-kind` at `steps[3].risk`.
//! `unknown-kind` is a warning: the frozen schema types `kind` as any string and lists no
//! vocabulary, so a plan with another kind is valid; replay finds its target and follows
//! the recording, and the warning tells the reviewer its risk could not be derived.

use super::{DevCtx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::plan::devthink::kinds::{Kind, kind_list};

pub(crate) fn check(ctx: &DevCtx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.plan.steps.iter().enumerate() {
        let Some(kind) = Kind::parse(&step.kind) else {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "unknown-kind",
                    step_path(i).key("kind"),
                    format!("step `{}` has the unknown kind `{}`", step.id, step.kind),
                )
                .hint(format!("use one of: {}", kind_list())),
            );
            continue;
        };
        let class = kind.risk_class();
        if step.risk < class {
            out.push(
                Finding::new(
                    Severity::Error,
                    "risk-below-kind",
                    step_path(i).key("risk"),
                    format!(
                        "step `{}` is declared `{}`, but a `{}` step is `{}`",
                        step.id,
                        step.risk.word(),
                        kind.word(),
                        class.word()
                    ),
                )
                .hint(format!("declare \"risk\": \"{}\" or higher", class.word())),
            );
        }
    }
}
