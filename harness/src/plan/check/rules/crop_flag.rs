//! `crop-flag-mismatch`
//!
//! What: a target with a `crop` (a picture of its control) whose `crop_available` is false.
//! Why: the two say opposite things. A follower that trusts the flag ignores a picture it was
//! given, one that trusts the file uses a picture the guide says is not there; a skill export
//! writes both from one fact, so one of them was edited by hand.
//! Example: `"crop": "crops/step-2.png", "crop_available": false` → warning at
//! `steps[1].target.crop_available`.

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let Some(t) = &step.target else { continue };
        if let (Some(crop), false) = (&t.crop, t.crop_available) {
            out.push(
                Finding::new(
                    Severity::Warning,
                    "crop-flag-mismatch",
                    step_path(i).key("target").key("crop_available"),
                    format!("the target has a picture (`{crop}`) but says `crop_available: false`"),
                )
                .hint("set `crop_available` to true, or leave `crop` out"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::check;
    use crate::plan::check::rules::testing::{run, seed};

    #[test]
    fn a_picture_said_to_be_missing_is_flagged_and_nothing_else() {
        assert!(run(check, &seed()).is_empty());
        let mut plan = seed();
        plan["steps"][1]["target"]["crop"] = json!("crops/step-2.png");
        plan["steps"][1]["target"]["crop_available"] = json!(false);
        let got = run(check, &plan);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].reason, "crop-flag-mismatch");
        assert_eq!(got[0].path.to_string(), "steps[1].target.crop_available");
        // The flag without a file is the MCP form (the picture comes from get_step_image).
        let mut plan = seed();
        plan["steps"][1]["target"]["crop_available"] = json!(true);
        plan["steps"][1]["target"]
            .as_object_mut()
            .unwrap()
            .remove("crop");
        assert!(run(check, &plan).is_empty());
    }
}
