//! The lint rules. Each file holds one rule (or one family sharing a reason), documented as:
//! what it checks, why it matters, an example.

mod app_bundle;
mod asked_after_use;
mod assistant;
pub(crate) mod canonical;
mod confirm_reason;
mod correlation;
mod crop_flag;
mod diff_risk;
mod done_step;
mod empty_field;
mod example_value;
mod geometry;
mod injection;
mod inputs;
mod irreversible;
mod literal_template;
mod option_kind;
mod outside_origin;
mod pictures;
mod review_times;
mod role_words;
mod selector;
mod step_kind;
mod step_numbers;
mod unique;
mod unused_field;
mod window_example;

use serde_json::Value;

use super::finding::Finding;
use crate::json::Source;
use crate::plan::devthink::DevPlan;
use crate::plan::foxstep::FoxPlan;

/// What a rule sees: the text, the strict parse and the raw JSON value.
pub(crate) struct Ctx<'a> {
    pub(crate) src: &'a Source,
    pub(crate) fox: &'a FoxPlan,
    pub(crate) value: &'a Value,
    /// The plan is the whole file, not the `plan` of a `get_guide` response.
    pub(crate) bare: bool,
}

/// A rule appends its findings.
pub(crate) type Rule = fn(&Ctx, &mut Vec<Finding>);

/// Every rule, in no particular order (findings are sorted afterwards).
pub(crate) const RULES: &[Rule] = &[
    step_numbers::check,
    unique::check,
    inputs::check,
    confirm_reason::check,
    irreversible::check,
    geometry::check,
    done_step::check,
    canonical::check,
    injection::check,
    unused_field::check,
    literal_template::check,
    window_example::check,
    example_value::check,
    asked_after_use::check,
    crop_flag::check,
    pictures::check,
    empty_field::check,
    role_words::check,
    assistant::check,
    app_bundle::check,
];

/// What a protocolv2 rule sees: the text and the strict parse (options parsed too).
pub(crate) struct DevCtx<'a> {
    pub(crate) src: &'a Source,
    pub(crate) plan: &'a DevPlan,
    pub(crate) value: &'a Value,
}

/// A protocolv2 rule appends its findings.
pub(crate) type DevRule = fn(&DevCtx, &mut Vec<Finding>);

/// Every protocolv2 rule. The Foxstep rules above read Foxstep fields; these read the
/// protocolv2 ones, and share a file with a Foxstep rule where the two mean the same thing.
pub(crate) const DEVTHINK_RULES: &[DevRule] = &[
    unique::check_devthink,
    canonical::check_devthink,
    step_kind::check,
    option_kind::check,
    outside_origin::check,
    selector::check,
    diff_risk::check,
    review_times::check,
    injection::check_devthink,
    correlation::check,
];

/// The field path of step `i`.
pub(crate) fn step_path(i: usize) -> crate::errors::FieldPath {
    crate::errors::FieldPath::root().key("steps").index(i)
}

/// Running one rule on a plan in a unit test.
#[cfg(test)]
pub(crate) mod testing {
    use serde_json::Value;

    use super::{Ctx, Rule};
    use crate::json::Source;
    use crate::plan::check::Finding;

    /// The seed plan, to change one thing in: it gives no finding.
    pub(crate) fn seed() -> Value {
        serde_json::from_str(include_str!(
            "../../../../tests/fixtures/plans/seed-mail.json"
        ))
        .expect("the seed plan is JSON")
    }

    /// The findings of `rule` on `plan`, without positions.
    pub(crate) fn run(rule: Rule, plan: &Value) -> Vec<Finding> {
        let src = Source::from_text("plan.json", plan.to_string());
        let fox = serde_json::from_value(plan.clone()).expect("a valid plan");
        let mut out = Vec::new();
        rule(
            &Ctx {
                src: &src,
                fox: &fox,
                value: plan,
                bare: true,
            },
            &mut out,
        );
        out
    }

    /// `severity reason path` of each finding `rule` makes on `plan`.
    pub(crate) fn findings(rule: Rule, plan: &Value) -> Vec<String> {
        run(rule, plan)
            .iter()
            .map(|f| format!("{} {} {}", f.severity.as_str(), f.reason, f.path))
            .collect()
    }
}
