//! `check PLAN --recording DIR`: the pre-approval check replays the plan against its own
//! recording, chained and under the standard perturbations, and turns what breaks into
//! findings at the step's field path, with a hint on how to make the step sturdier.

use std::collections::BTreeMap;

use super::follower::{Prepared, replay};
use super::robustness::{DEFAULT_SEED, robustness};
use super::trace::{Event, Mode, StepStatus};
use crate::errors::{FieldPath, InputError};
use crate::perturb::{Perturbation, STANDARD};
use crate::plan::Plan;
use crate::plan::check::{Finding, Severity};
use crate::recording::Recording;
use crate::scenario::{FailReason, Outcome, ScenarioFile};

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

/// `given` with every confirm approved, every prefilled field replaced, every unconditioned
/// `stop_if` gone on from and a stand-in for each secret: the person is not under test when a
/// plan is checked against its recording.
pub(crate) fn lenient(plan: &Plan, given: &ScenarioFile) -> ScenarioFile {
    let mut lenient = given.clone();
    lenient.expect = crate::scenario::Expected::completed();
    lenient.perturbations.clear();
    for step in &plan.steps {
        lenient
            .answers
            .confirm
            .insert(step.id.clone(), crate::scenario::Answer::Approve);
        lenient.answers.replace.insert(step.id.clone(), true);
        if step.stop_if.as_ref().is_some_and(|c| c.when.is_none()) {
            lenient
                .answers
                .stop_if
                .entry(step.id.clone())
                .or_insert(crate::scenario::StopAnswer::GoOn);
        }
    }
    for input in plan.inputs.iter().filter(|i| i.sensitive) {
        lenient
            .answers
            .sensitive
            .entry(input.id.clone())
            .or_insert_with(|| "0000".into());
    }
    lenient
}

/// Replays `plan` on `rec` under the [`lenient`] scenario `lenient` and returns what a guide
/// author must fix (errors) or should look at (warnings). A step the replay could not reach
/// is an error, never a clean pass. `said` gives what `run` says of a step that failed in a
/// mode (its words, reason and detail), so `check` says it in the same words.
pub(crate) fn approval_findings(
    plan: &Plan,
    rec: &Recording,
    lenient: &ScenarioFile,
    said: &dyn Fn(Mode, &str) -> Option<String>,
) -> Result<Vec<Finding>, InputError> {
    let mut out = Vec::new();
    let chained = replay(plan, &Prepared::new(rec), lenient, Mode::Chained);
    let (outcome, reason, stopped_at) = chained.outcome();
    let stop = stopped_at
        .as_deref()
        .and_then(|id| plan.steps.iter().position(|s| s.id == id));
    if let (Outcome::Failed, Some(reason), Some(i)) = (outcome, reason, stop)
        && reason != FailReason::NotSimulated
    {
        let code = match reason {
            FailReason::TargetNotFound => "replay-target-not-found",
            FailReason::TargetAmbiguous => "replay-target-ambiguous",
            FailReason::ExpectFailed => "replay-expect-failed",
            FailReason::Diverged => "replay-diverged",
            FailReason::Unbound => "replay-unbound",
            FailReason::WindowNotFound => "replay-window-not-found",
            _ => "replay-stopped",
        };
        out.push(replay_finding(
            plan,
            i,
            reason,
            code,
            "replayed on its own recording",
            said(Mode::Chained, &plan.steps[i].id),
            window_missed(&chained, i),
        ));
    }
    out.extend(unchecked(plan, rec, lenient, &chained, stop, reason, said));
    let standard: Vec<Perturbation> = STANDARD.iter().filter_map(|p| p.parse().ok()).collect();
    let r = robustness(plan, rec, lenient, &standard, DEFAULT_SEED)?;
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
    let taint = lenient.taint().join(&plan.secrets());
    for f in &mut out {
        f.message = taint.text(&f.message);
    }
    Ok(out)
}

/// The steps the chained replay never judged (it stopped before them, or could not judge
/// them), as one error naming them and why. Each is also replayed alone on its recorded
/// screen, so a wrong step after the stop is still caught.
fn unchecked(
    plan: &Plan,
    rec: &Recording,
    scenario: &ScenarioFile,
    chained: &super::Trace,
    stop: Option<usize>,
    reason: Option<FailReason>,
    said: &dyn Fn(Mode, &str) -> Option<String>,
) -> Vec<Finding> {
    let judged = |t: &super::Trace, i: usize| {
        t.step_events(i).any(|e| {
            matches!(
                e,
                Event::StepFinished {
                    status: StepStatus::Passed | StepStatus::Deduplicated,
                    ..
                }
            )
        })
    };
    // The step a failure stopped on is reported on its own; the rest went unchecked.
    let failed_here = |i: usize| {
        Some(i) == stop
            && !matches!(
                reason,
                Some(
                    FailReason::NeedsInput
                        | FailReason::NotSimulated
                        | FailReason::StopIf
                        | FailReason::StoppedByPerson
                )
            )
    };
    let missed: Vec<usize> = (0..plan.steps.len())
        .filter(|&i| !judged(chained, i) && !failed_here(i))
        .collect();
    let Some(&first) = missed.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let why = |i: usize| {
        chained.step_events(i).find_map(|e| match e {
            Event::StepFinished {
                reason: Some(r), ..
            } => Some(*r),
            _ => None,
        })
    };
    let named: Vec<String> = missed
        .iter()
        .map(|&i| plan.steps[i].number.to_string())
        .collect();
    let cause = match (stop, reason) {
        (Some(s), Some(r)) => format!(
            "the replay stopped at step {} ({})",
            plan.steps[s].number,
            crate::text::word(&r)
        ),
        (None, Some(r)) => format!("the replay did not start ({})", crate::text::word(&r)),
        _ => "the replay did not reach them".to_string(),
    };
    let needs_input = missed
        .iter()
        .any(|&i| why(i) == Some(FailReason::NeedsInput))
        || reason == Some(FailReason::NeedsInput);
    let finding = Finding::new(
        Severity::Error,
        "steps-unchecked",
        FieldPath::root().key("steps").index(first),
        format!(
            "step{} {} went unchecked: {cause}",
            if named.len() == 1 { "" } else { "s" },
            named.join(", ")
        ),
    );
    // A hint only where the fix is not the failure reported above it.
    out.push(match (needs_input, stop, reason) {
        (true, ..) => finding.hint(missing_values(plan, scenario)),
        (false, Some(_), Some(FailReason::StopIf | FailReason::StoppedByPerson))
        | (false, None, _) => {
            finding.hint("give the answers the plan needs with --answers FILE or --scenario FILE")
        }
        _ => finding,
    });
    // Alone on its recorded screen, a step after the stop can still be judged.
    let alone = replay(plan, &Prepared::new(rec), scenario, Mode::PerStep);
    for &i in &missed {
        let failed = alone.step_events(i).find_map(|e| match e {
            Event::StepFinished {
                status: StepStatus::Failed,
                reason: Some(r),
                ..
            } => Some(*r),
            _ => None,
        });
        let (r, code) = match failed {
            Some(r @ FailReason::TargetNotFound) => (r, "replay-target-not-found"),
            Some(r @ FailReason::TargetAmbiguous) => (r, "replay-target-ambiguous"),
            Some(r @ FailReason::ExpectFailed) => (r, "replay-expect-failed"),
            Some(r @ FailReason::OperationMismatch) => (r, "replay-operation-mismatch"),
            Some(r @ FailReason::Unbound) => (r, "replay-unbound"),
            Some(r @ FailReason::WindowNotFound) => (r, "replay-window-not-found"),
            _ => continue,
        };
        out.push(replay_finding(
            plan,
            i,
            r,
            code,
            "replayed alone on its recorded screen",
            said(Mode::PerStep, &plan.steps[i].id),
            window_missed(&alone, i),
        ));
    }
    out
}

/// The each-time inputs `scenario` gives no value, and the JSON that gives them: what a
/// replay that stopped for a value needs.
fn missing_values(plan: &Plan, scenario: &ScenarioFile) -> String {
    let missing: serde_json::Map<String, serde_json::Value> = plan
        .inputs
        .iter()
        .filter(|i| i.each_time && !i.sensitive && !scenario.inputs.contains_key(&i.id))
        .map(|i| {
            let value = i.example.clone().unwrap_or_else(|| "…".into());
            (i.id.clone(), value.into())
        })
        .collect();
    let ids: Vec<&String> = missing.keys().collect();
    let json = serde_json::json!({ "inputs": missing });
    format!(
        "each-time input{} {} ha{} no value: add {json} to the file given with --answers (it may be the scenario file)",
        if ids.len() == 1 { "" } else { "s" },
        ids.iter()
            .map(|i| format!("`{i}`"))
            .collect::<Vec<_>>()
            .join(", "),
        if ids.len() == 1 { "s" } else { "ve" },
    )
}

/// Whether a `window` check of step `i` failed in `trace`: the step is placed at the field
/// naming the window.
fn window_missed(trace: &super::Trace, i: usize) -> bool {
    trace.step_events(i).any(
        |e| matches!(e, Event::Checked { check, .. } if check.kind == crate::expect::CheckKind::Window && !check.passed),
    )
}

/// Step `i` failing its replay with `reason`, placed at its `expect` when that failed, else at
/// its `target`.
fn replay_finding(
    plan: &Plan,
    i: usize,
    reason: FailReason,
    code: &'static str,
    how: &str,
    said: Option<String>,
    window_missed: bool,
) -> Finding {
    let labelled = plan.steps[i]
        .target
        .as_ref()
        .is_some_and(|t| t.label.is_some());
    let field = match reason {
        FailReason::ExpectFailed if window_missed => "expect.window",
        FailReason::ExpectFailed => "expect",
        FailReason::WindowNotFound => "target.window",
        FailReason::Unbound if plan.dialect == crate::plan::Dialect::Foxstep => "step_id",
        // Placed where `run` places it: at the name that matched nothing (or too much).
        FailReason::TargetNotFound | FailReason::TargetAmbiguous | FailReason::Diverged
            if labelled =>
        {
            "target.label"
        }
        _ => "target",
    };
    let path = match field.split_once('.') {
        Some((a, b)) => step_path(i, a).key(b),
        None => step_path(i, field),
    };
    let finding = Finding::new(
        Severity::Error,
        code,
        path,
        format!(
            "{how}: {}",
            said.unwrap_or_else(|| format!(
                "step {} {}",
                plan.steps[i].number,
                crate::text::word(&reason)
            ))
        ),
    );
    // The failure's own words say what to fix; an unbound step needs to be told how.
    if reason == FailReason::Unbound {
        return finding.hint("use the recording's step id for this step, or bind the recording to this plan with `stepreplay import SRC --out DIR --plan PLAN`");
    }
    finding
}
