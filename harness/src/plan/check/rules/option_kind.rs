//! `option-not-for-kind` (protocolv2)
//!
//! What: an option family the seed ties to some kinds appears only on steps of those kinds
//! (`modifiers` on key steps, `pipeline` on extract, `pollrequest` on transport, `graphql` on
//! channel, `vision` on capture, `ocrregion` on regionocr, `snapshot` on capturesession, `ocr`
//! on capture steps, `targetref` on steps that address an element; the table is
//! `devthink::kinds::BOUND_FAMILIES`).
//! Why: the options are reviewed with the step. An option the step's kind never reads is
//! either a mistake (the wrong step) or something the reviewer approves that never happens.
//! Example: `modifiers` on a `click` step → warning at `steps[1].options.modifiers`.
//! A warning, not an error: the frozen schema lets any step carry any family, and only the
//! families' descriptions tie them to kinds. An empty `modifiers` list holds no key, so it
//! is no finding at all.

use super::{DevCtx, step_path};
use crate::errors::FieldPath;
use crate::plan::check::{Finding, Severity};
use crate::plan::devthink::kinds::{BOUND_FAMILIES, Kind};
use crate::plan::devthink::options::locate_in_options;

pub(crate) fn check(ctx: &DevCtx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.plan.steps.iter().enumerate() {
        // An unknown kind is its own finding; nothing fits it or not.
        let Some(kind) = Kind::parse(&step.kind) else {
            continue;
        };
        let text = step.options.as_deref().unwrap_or_default();
        let at = step_path(i).key("options");
        for family in &step.parsed.families {
            let empty =
                family == "modifiers" && step.parsed.modifiers.as_ref().is_some_and(Vec::is_empty);
            if kind.allows(family) || empty {
                continue;
            }
            let kinds = BOUND_FAMILIES
                .iter()
                .find(|(f, _)| f == family)
                .map(|(_, ks)| ks.iter().map(|k| k.word()).collect::<Vec<_>>().join(", "))
                .unwrap_or_default();
            let inner = FieldPath::root().key(family);
            let position = locate_in_options(ctx.src, &at, text, &inner);
            out.push(
                Finding::new(
                    Severity::Warning,
                    "option-not-for-kind",
                    at.join(&inner),
                    format!(
                        "`{family}` is an option of {kinds} steps, not of a `{}` step",
                        kind.word()
                    ),
                )
                .hint(format!(
                    "remove `{family}`, or move it to the step it belongs to"
                ))
                .at(position),
            );
        }
    }
}
