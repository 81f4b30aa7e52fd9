//! `app-bundle-mismatch`
//!
//! What: targets of one plan that pair an app's name with two bundle IDs, or one bundle ID
//! with two app names.
//! Why: the seed names a step's app twice, by name and by bundle ID, and the resolver takes a
//! window that matches either; when the two disagree, a step can act in another app than the
//! one its words name. The plan's own pairs are what `check` can compare (with `--recording`,
//! the replay names the app a control is really in).
//! Example: step 1 `"app": "Mail", "bundle_id": "com.apple.mail"`, step 2 `"app": "Mail",
//! "bundle_id": "com.apple.Notes"` → warning at `steps[1].target.bundle_id`.

use std::collections::HashMap;

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::text::normalize_label;

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    // The first pair each app name and each bundle ID (case-folded, as macOS compares them)
    // was seen in, with its step's number.
    let mut by_app: HashMap<String, (&str, u32)> = HashMap::new();
    let mut by_bundle: HashMap<String, (&str, u32)> = HashMap::new();
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let Some(t) = &step.target else { continue };
        let (Some(app), Some(bundle)) = (t.app.as_deref(), t.bundle_id.as_deref()) else {
            continue;
        };
        let (app_key, bundle_key) = (normalize_label(app), bundle.to_lowercase());
        let (seen_bundle, n) = *by_app
            .entry(app_key.clone())
            .or_insert((bundle, step.number));
        let (seen_app, m) = *by_bundle.entry(bundle_key).or_insert((app, step.number));
        let (field, message) = if seen_bundle.to_lowercase() != bundle.to_lowercase() {
            let message = format!("`{app}` is `{seen_bundle}` at step {n}, but `{bundle}` here");
            ("bundle_id", message)
        } else if normalize_label(seen_app) != app_key {
            (
                "app",
                format!("`{bundle}` is `{seen_app}` at step {m}, but `{app}` here"),
            )
        } else {
            continue;
        };
        out.push(
            Finding::new(
                Severity::Warning,
                "app-bundle-mismatch",
                step_path(i).key("target").key(field),
                message,
            )
            .hint("give each app one name and one bundle ID throughout the plan"),
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::check;
    use crate::plan::check::rules::testing::{findings, run, seed};

    #[test]
    fn an_app_named_with_two_bundle_ids_or_a_bundle_id_with_two_names_is_flagged() {
        assert!(run(check, &seed()).is_empty());
        let mut plan = seed();
        plan["steps"][1]["target"]["bundle_id"] = json!("com.apple.Notes");
        assert_eq!(
            findings(check, &plan),
            ["warning app-bundle-mismatch steps[1].target.bundle_id"]
        );
        let got = run(check, &plan);
        assert!(
            got[0].message.contains("`com.apple.mail` at step 1"),
            "{got:?}"
        );
        let mut plan = seed();
        plan["steps"][2]["target"]["app"] = json!("Notes");
        assert_eq!(
            findings(check, &plan),
            ["warning app-bundle-mismatch steps[2].target.app"]
        );
        // Case and spacing are one name, and a bundle ID's case is one ID.
        let mut plan = seed();
        plan["steps"][1]["target"]["app"] = json!(" mail");
        plan["steps"][2]["target"]["bundle_id"] = json!("com.apple.Mail");
        assert!(run(check, &plan).is_empty(), "{:?}", run(check, &plan));
    }
}
