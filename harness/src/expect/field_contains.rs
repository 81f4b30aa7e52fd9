//! `field_contains`: text the acted-on field should now hold.
//!
//! Compared after label normalization (case and spacing), against what the desktop shows:
//! our typed text over the recorded value. A sensitive value is compared in memory and never
//! written into the detail.

use super::check::{Check, CheckKind, ExpectCtx};
use crate::secret::REDACTED;
use crate::text::normalize_label;

pub(super) fn check(ctx: &ExpectCtx) -> Check {
    let Some((want, sensitive)) = &ctx.field_text else {
        return Check::new(CheckKind::FieldContains, false, "nothing to compare".into());
    };
    let shown = |s: &str| {
        if *sensitive {
            REDACTED.to_string()
        } else {
            format!("“{s}”")
        }
    };
    let Some(el) = ctx.acted else {
        return Check::new(
            CheckKind::FieldContains,
            false,
            format!("no field was acted on to hold {}", shown(want)),
        );
    };
    let have = ctx.desktop.field_value(el).unwrap_or_default();
    let ok = normalize_label(&have).contains(&normalize_label(want));
    let detail = if ok {
        format!("the field holds {}", shown(want))
    } else if *sensitive {
        format!("the field does not hold {REDACTED}")
    } else {
        format!("expected the field to hold “{want}”, it holds “{have}”")
    };
    Check::new(CheckKind::FieldContains, ok, detail)
}
