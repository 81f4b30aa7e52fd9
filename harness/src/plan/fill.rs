//! What the plan alone says about a step, the same for every follower: its text filled in
//! from values already known, and whether the step before selected all of its field's text.

use std::collections::BTreeMap;

use super::keys::selects_all;
use super::{Action, Part, Plan, Text};
use crate::text::normalize_label;

/// Whether the step before `i` selected all of the text of the field step `i` types into
/// (⌘A / Ctrl+A, or a triple-click on the same control): typing then replaces the text
/// the plan chose to select, so there is nothing to ask. Judged from the plan, so per-step
/// replays, which start each step afresh, agree with chained ones.
pub(crate) fn selected_all_before(plan: &Plan, i: usize) -> bool {
    let Some(prev) = i.checked_sub(1).map(|j| &plan.steps[j]) else {
        return false;
    };
    let same_control = |a: Option<&crate::plan::Target>| match (a, &plan.steps[i].target) {
        (Some(a), Some(b)) => {
            a.label.as_deref().map(normalize_label) == b.label.as_deref().map(normalize_label)
        }
        _ => true,
    };
    match &prev.action {
        Action::Press { keys } => selects_all(keys),
        Action::Click(c) => c.count == 3 && !c.drag && same_control(prev.target.as_ref()),
        _ => false,
    }
}

/// Fills a template from values already known in this step (no new questions).
pub(crate) fn fill_known(
    plan: &Plan,
    inputs: &BTreeMap<String, String>,
    t: &Text,
    asked: &BTreeMap<String, String>,
) -> String {
    match t {
        Text::Literal(s) | Text::Secret(s) => s.clone(),
        Text::Template(parts) => parts
            .iter()
            .map(|p| match p {
                Part::Text(s) => s.clone(),
                Part::Input(id) => asked
                    .get(id)
                    .cloned()
                    .or_else(|| inputs.get(id).cloned())
                    .or_else(|| {
                        plan.inputs
                            .iter()
                            .find(|i| &i.id == id && !i.each_time)
                            .and_then(|i| i.example.clone())
                    })
                    .unwrap_or_default(),
            })
            .collect(),
    }
}
