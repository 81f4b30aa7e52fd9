//! `unused-field`
//!
//! What: a step carries only the action fields its `action` uses — `click` on a click,
//! `keys` on a press, `value`/`template`/`submit` on a type, `value`/`template` on a paste,
//! `value` on a navigate.
//! Why: a follower ignores the others, so they say something that will not happen: `keys` on a
//! click step reads as "then press Return", and nothing presses it. Usually the action or the
//! field is a mistake.
//! Example: `"action": "click"` with `"keys": "Return"` → warning at `steps[0].keys`.

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::plan::foxstep::{ActionKind, Step};

/// The action-specific fields a step carries, by name.
fn present(step: &Step) -> [(&'static str, bool); 5] {
    [
        ("click", step.click.is_some()),
        ("keys", step.keys.is_some()),
        ("submit", step.submit.is_some()),
        ("template", step.template.is_some()),
        ("value", step.value.is_some()),
    ]
}

/// The action-specific fields `action` uses.
fn used_by(action: ActionKind) -> &'static [&'static str] {
    match action {
        ActionKind::Navigate => &["value"],
        ActionKind::Click => &["click"],
        ActionKind::Type => &["value", "template", "submit"],
        ActionKind::Paste => &["value", "template"],
        ActionKind::Press => &["keys"],
        ActionKind::Copy | ActionKind::Ask | ActionKind::Do => &[],
    }
}

/// The action a field belongs to, for the hint.
fn owner(field: &str) -> &'static str {
    match field {
        "click" => "click",
        "keys" => "press",
        _ => "type",
    }
}

fn action_name(action: ActionKind) -> String {
    serde_json::to_value(action)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let allowed = used_by(step.action);
        for (field, _) in present(step)
            .into_iter()
            .filter(|(f, there)| *there && !allowed.contains(f))
        {
            let action = action_name(step.action);
            out.push(
                Finding::new(
                    Severity::Warning,
                    "unused-field",
                    step_path(i).key(field),
                    format!("`{field}` does nothing on a `{action}` step"),
                )
                .hint(format!(
                    "remove `{field}`, or make the step a `{}` step",
                    owner(field)
                )),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_has_an_action_that_uses_it() {
        let all = [
            ActionKind::Navigate,
            ActionKind::Click,
            ActionKind::Type,
            ActionKind::Paste,
            ActionKind::Copy,
            ActionKind::Press,
            ActionKind::Ask,
            ActionKind::Do,
        ];
        for field in ["click", "keys", "submit", "template", "value"] {
            assert!(all.iter().any(|a| used_by(*a).contains(&field)), "{field}");
            assert!(
                used_by(
                    serde_json::from_value(serde_json::Value::String(owner(field).into())).unwrap()
                )
                .contains(&field)
            );
        }
    }
}
