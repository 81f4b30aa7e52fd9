//! `check PLAN --recording DIR`: the pre-approval check replays the plan against its own
//! recording, chained and under the standard perturbations, and turns what breaks into
//! findings at the step's field path, with a hint on how to make the step sturdier.

use std::collections::BTreeMap;

use super::follower::{Prepared, replay};
use super::robustness::{DEFAULT_SEED, robustness};
use super::scenario::{FailReason, Outcome, ScenarioFile};
use super::trace::Mode;
use crate::errors::{FieldPath, InputError};
use crate::perturb::{Perturbation, STANDARD};
use crate::plan::Plan;
use crate::plan::check::{Finding, Severity};
use crate::recording::Recording;

fn step_path(i: usize, field: &str) -> FieldPath {
    FieldPath::root().key("steps").index(i).key(field)
}

fn hint(plan: &Plan, i: usize, perturbations: &[&str], reason: Option<FailReason>) -> String {
    let step = &plan.steps[i];
    let named = step.target.as_ref().is_some_and(|t| t.label.is_some());
    let has_crop = step.target.as_ref().is_some_and(|t| t.crop.is_some());
    if !named && step.target.is_some() {
        return if has_crop {
            "give this control a label: points and pictures break when windows move or themes change".into()
        } else {
            "give this control a label, or add a crop: a point alone breaks as soon as the window moves".into()
        };
    }
    if reason == Some(FailReason::TargetAmbiguous) {
        return "name the window, or a label only this control has: a look-alike makes the target ambiguous".into();
    }
    if perturbations.contains(&"retitle-window") && reason == Some(FailReason::ExpectFailed) {
        return "expect a control to be visible rather than a window title, which changes".into();
    }
    if step.expect.is_none() {
        return "add an expect, so a wrong turn is caught at this step".into();
    }
    if !has_crop {
        return "add a crop, so the control can be found when its name changes".into();
    }
    "review this step: it breaks when the desktop changes".into()
}

/// Replays `plan` on `rec` with every confirm approved (the person is not under test here)
/// and returns what a guide author must fix (errors) or should look at (warnings).
pub fn approval_findings(plan: &Plan, rec: &Recording) -> Result<Vec<Finding>, InputError> {
    let scenario: ScenarioFile = serde_json::from_value(serde_json::json!({
        "schema": super::SCENARIO_SCHEMA, "id": "check", "plan": "", "recording": "",
        "expect": {"outcome": "completed"}
    }))
    .map_err(|e| InputError::new("", crate::Reason::InvalidArgument, e.to_string()))?;
    let mut lenient = scenario.clone();
    for step in &plan.steps {
        lenient
            .answers
            .confirm
            .insert(step.id.clone(), super::Answer::Approve);
        lenient.answers.replace.insert(step.id.clone(), true);
    }
    for input in plan.inputs.iter().filter(|i| i.sensitive) {
        lenient
            .answers
            .sensitive
            .insert(input.id.clone(), "0000".into());
    }
    let mut out = Vec::new();
    let chained = replay(plan, &Prepared::new(rec), &lenient, Mode::Chained);
    if let (Outcome::Failed, Some(reason), Some(id)) = chained.outcome()
        && let Some(i) = plan.steps.iter().position(|s| s.id == id)
    {
        let field = if reason == FailReason::ExpectFailed {
            "expect"
        } else {
            "target"
        };
        out.push(
            Finding::new(
                Severity::Error,
                match reason {
                    FailReason::TargetNotFound => "replay-target-not-found",
                    FailReason::TargetAmbiguous => "replay-target-ambiguous",
                    FailReason::ExpectFailed => "replay-expect-failed",
                    FailReason::Diverged => "replay-diverged",
                    _ => "replay-stopped",
                },
                step_path(i, field),
                format!(
                    "replayed on its own recording, step {} fails: {}",
                    plan.steps[i].number,
                    crate::text::word(&reason)
                ),
            )
            .hint("fix the step so it matches what the recording shows"),
        );
    }
    let standard: Vec<Perturbation> = STANDARD.iter().filter_map(|p| p.parse().ok()).collect();
    let r = robustness(plan, rec, &lenient, &standard, DEFAULT_SEED)?;
    let mut by_step: BTreeMap<usize, (Vec<&str>, Option<FailReason>, String)> = BTreeMap::new();
    for pair in &r.broken {
        if let Some(i) = plan.steps.iter().position(|s| s.id == pair.step_id) {
            let e = by_step.entry(i).or_insert_with(|| {
                (
                    Vec::new(),
                    pair.reason,
                    pair.why.clone().unwrap_or_default(),
                )
            });
            e.0.push(pair.perturbation.as_str());
        }
    }
    for (i, (perturbations, reason, why)) in by_step {
        out.push(
            Finding::new(
                Severity::Warning,
                "fragile-step",
                step_path(i, "target"),
                format!("breaks under {}: {why}", perturbations.join(", ")),
            )
            .hint(hint(plan, i, &perturbations, reason)),
        );
    }
    Ok(out)
}
