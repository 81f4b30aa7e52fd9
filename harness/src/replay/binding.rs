//! Binding: which plan steps a recording's actions are bound to (by step id). An unbound step
//! that acts has nothing recorded to compare its element and operation with, so it never
//! passes; a plan none of whose acting steps is bound is the wrong pair, not a run.

use std::path::Path;

use crate::errors::{FieldPath, InputError, Reason};
use crate::json::Source;
use crate::plan::{Dialect, Plan};
use crate::recording::Recording;

/// Whether step `i` acts (it is no retry and does more than talk) and no recorded action is
/// bound to its id.
pub(crate) fn is_unbound(rec: &Recording, plan: &Plan, i: usize) -> bool {
    let step = &plan.steps[i];
    needs_binding(plan, i)
        && !rec
            .file
            .transitions
            .iter()
            .any(|t| t.step_id.as_deref() == Some(step.id.as_str()))
}

/// Whether step `i` acts, so a recorded action must be bound to it: no retry (rightly not
/// acted again) and more than talk.
fn needs_binding(plan: &Plan, i: usize) -> bool {
    !plan.steps[i].talks_only() && plan.retry_key(i).is_none()
}

/// The recording's step ids that no step of `plan` has (where an unbound step's id should
/// likely be), for a message: the first few and how many more.
pub(crate) fn recorded_step_ids(rec: &Recording, plan: &Plan) -> String {
    const SHOWN: usize = 6;
    let ids: Vec<&str> = rec
        .file
        .transitions
        .iter()
        .filter_map(|t| t.step_id.as_deref())
        .filter(|id| !plan.steps.iter().any(|s| s.id == *id))
        .collect();
    if ids.is_empty() {
        return "it binds none of its actions to another step".into();
    }
    let mut out: Vec<String> = ids.iter().take(SHOWN).map(|id| format!("`{id}`")).collect();
    if ids.len() > SHOWN {
        out.push(format!("and {} more", ids.len() - SHOWN));
    }
    format!("its steps no plan step names are {}", out.join(", "))
}

/// Whether no step of `plan` that acts is bound to `rec` (and one acts).
pub(crate) fn wholly_unbound(plan: &Plan, rec: &Recording) -> bool {
    let mut acting = (0..plan.steps.len())
        .filter(|&i| needs_binding(plan, i))
        .peekable();
    acting.peek().is_some() && acting.all(|i| is_unbound(rec, plan, i))
}

/// An error when no step of `plan` (read from `src`) that acts is bound to `rec`: there is
/// nothing to compare, so the pair is bad input (`plan-recording-mismatch`), never a run that
/// "completed". It points at the first step's id.
pub(crate) fn check_bound(
    plan: &Plan,
    rec: &Recording,
    src: &Source,
    rec_dir: &Path,
) -> Result<(), InputError> {
    if !wholly_unbound(plan, rec) {
        return Ok(());
    }
    let first = (0..plan.steps.len())
        .find(|&i| is_unbound(rec, plan, i))
        .unwrap_or(0);
    let at = FieldPath::root().key("steps").index(first);
    let at = match plan.dialect {
        Dialect::Foxstep => at.key("step_id"),
        Dialect::Devthink => at,
    };
    Err(src
        .error(
            at,
            Reason::PlanRecordingMismatch,
            format!(
                "none of the plan's steps is bound to the recording `{}`: {}",
                rec_dir.display(),
                recorded_step_ids(rec, plan)
            ),
        )
        .hint("use the recording's step ids, or bind its actions to this plan: stepreplay import SRC --out DIR --plan PLAN"))
}
