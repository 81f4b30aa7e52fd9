//! Binding a plan to a recording made without it: a guide author writes a plan from a real
//! recording, with step ids of their own, and the recording numbers its actions. Replay ties
//! transitions to plan steps only by id, so an unbound recording would leave every step with
//! no screen of its own. Step i of the plan that acts is bound to recorded action i, and only
//! when the counts and the kinds of action agree: a plan that does not follow the recording
//! is refused at its first disagreement, never bound loosely.

use crate::errors::{FieldPath, InputError, Reason};
use crate::json::Source;
use crate::plan::{Action, Plan};

/// One recorded action, as the source names it.
#[derive(Clone, Debug)]
pub(crate) struct RecordedAction {
    /// The source's operation: `click`, `type`, `key`, …
    pub(crate) op: String,
    /// The source's words for it, for error messages.
    pub(crate) description: String,
}

/// Whether a plan action can be the recorded operation `op`. Typing and pasting both put
/// text in (a recorder types what a paste would insert); a `press` or a `copy` is a key.
pub(crate) fn kinds_agree(action: &Action, op: &str) -> bool {
    match action {
        Action::Click(_) => op == "click",
        Action::Type { .. } => op == "type",
        Action::Paste { .. } => matches!(op, "type" | "paste"),
        Action::Press { .. } => matches!(op, "key" | "press"),
        Action::Copy => matches!(op, "key" | "copy"),
        Action::Navigate { .. } => op == "navigate",
        // The author's words say what happens; any recorded action can be it.
        Action::Ask | Action::Do => true,
    }
}

/// The plan step id for each recorded action, in order. Steps that only talk (an `ask`, a
/// `do` without a target) have no recorded action and are skipped. A `partial` recording
/// (one that followed the plan and stopped) may end before the plan does.
pub(crate) fn bind(
    plan: &Plan,
    plan_src: &Source,
    recorded: &[RecordedAction],
    partial: bool,
) -> Result<Vec<String>, InputError> {
    let acting: Vec<_> = plan.steps.iter().filter(|s| !s.talks_only()).collect();
    for (i, (step, rec)) in acting.iter().zip(recorded).enumerate() {
        if !kinds_agree(&step.action, &rec.op) {
            return Err(plan_src
                .error(
                    step.path.clone().key("action"),
                    Reason::PlanRecordingMismatch,
                    format!(
                        "step {} (`{}`) is the plan's acting step {}, but recorded action {} \
                         is a `{}` ({})",
                        step.number,
                        step.action.name(),
                        i + 1,
                        i + 1,
                        rec.op,
                        rec.description
                    ),
                )
                .hint("write the plan's steps in the order and kinds the recording did them"));
        }
    }
    if acting.len() != recorded.len() && !(partial && recorded.len() < acting.len()) {
        let path = match acting.get(recorded.len()) {
            Some(extra) => extra.path.clone(),
            None => FieldPath::root().key("steps"),
        };
        return Err(plan_src
            .error(
                path,
                Reason::PlanRecordingMismatch,
                format!(
                    "the plan has {} steps that act and the recording {} actions",
                    acting.len(),
                    recorded.len()
                ),
            )
            .hint(match acting.len() > recorded.len() {
                true => "this step and those after it were never recorded",
                false => "the recording goes on past the plan's last step",
            }));
    }
    Ok(acting
        .iter()
        .take(recorded.len())
        .map(|s| s.id.clone())
        .collect())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::plan::{lower_foxstep, parse_foxstep};

    fn plan(steps: serde_json::Value) -> (Plan, Source) {
        let v = json!({"schema": "foxstep-step-plan/1", "guide": {"id": "g", "title": "t"},
            "inputs": [], "steps": steps});
        let text = serde_json::to_string_pretty(&v).unwrap();
        let src = Source::from_text("plan.json", text);
        let p = lower_foxstep(&parse_foxstep(&src).unwrap(), Path::new(".")).unwrap();
        (p, src)
    }

    fn step(n: u32, id: &str, action: &str) -> serde_json::Value {
        let mut s = json!({"number": n, "label": n.to_string(), "step_id": id, "action": action,
            "text": format!("step {n}")});
        match action {
            "click" => {
                s["click"] = json!({"button": "left", "count": 1});
                s["target"] = json!({"app": "A", "label": "OK"});
            }
            "type" => s["value"] = json!("x"),
            "press" => s["keys"] = json!("Tab"),
            _ => {}
        }
        s
    }

    fn rec(ops: &[&str]) -> Vec<RecordedAction> {
        ops.iter()
            .map(|op| RecordedAction {
                op: op.to_string(),
                description: format!("{op} something"),
            })
            .collect()
    }

    #[test]
    fn acting_steps_bind_in_order_and_talking_steps_are_skipped() {
        let (p, src) = plan(json!([
            step(1, "A1", "click"),
            step(2, "A2", "ask"),
            step(3, "A3", "type"),
            step(4, "A4", "press")
        ]));
        let ids = bind(&p, &src, &rec(&["click", "type", "key"]), false).unwrap();
        assert_eq!(ids, ["A1", "A3", "A4"]);
    }

    #[test]
    fn a_do_step_binds_to_whatever_was_done_only_when_it_names_a_target() {
        // Without a target, a `do` is the person following words: nothing is recorded for it.
        let (p, src) = plan(json!([
            step(1, "A1", "click"),
            step(2, "A2", "do"),
            step(3, "A3", "type")
        ]));
        let ids = bind(&p, &src, &rec(&["click", "type"]), false).unwrap();
        assert_eq!(ids, ["A1", "A3"]);
        // With one, its words say what it does: any recorded action can be it.
        let mut acting = step(2, "A2", "do");
        acting["target"] = json!({"app": "A", "label": "Notes"});
        let (p, src) = plan(json!([
            step(1, "A1", "click"),
            acting,
            step(3, "A3", "type")
        ]));
        for op in ["key", "click", "type"] {
            let ids = bind(&p, &src, &rec(&["click", op, "type"]), false).unwrap();
            assert_eq!(ids, ["A1", "A2", "A3"], "{op}");
        }
        assert!(bind(&p, &src, &rec(&["click", "type"]), false).is_err());
    }

    #[test]
    fn a_recording_that_followed_the_plan_live_may_stop_early_but_never_run_past_it() {
        let (p, src) = plan(json!([
            step(1, "A1", "click"),
            step(2, "A2", "ask"),
            step(3, "A3", "type"),
            step(4, "A4", "press")
        ]));
        let ids = bind(&p, &src, &rec(&["click", "type"]), true).unwrap();
        assert_eq!(ids, ["A1", "A3"]);
        assert!(bind(&p, &src, &rec(&["click", "type"]), false).is_err());
        let past = bind(&p, &src, &rec(&["click", "type", "key", "key"]), true);
        assert!(past.is_err(), "a recording longer than the plan is refused");
        let wrong = bind(&p, &src, &rec(&["click", "key"]), true);
        assert!(wrong.is_err(), "kinds must still agree");
    }

    #[test]
    fn the_first_kind_that_disagrees_is_refused_at_its_step() {
        let (p, src) = plan(json!([
            step(1, "A1", "click"),
            step(2, "A2", "press"),
            step(3, "A3", "type")
        ]));
        let e = bind(&p, &src, &rec(&["click", "type", "key"]), false).unwrap_err();
        assert_eq!(e.reason, Reason::PlanRecordingMismatch);
        assert_eq!(e.path.to_string(), "steps[1].action");
        assert!(e.position.is_some(), "{e}");
        assert!(e.message.contains("recorded action 2 is a `type`"), "{e}");
    }

    #[test]
    fn counts_that_differ_are_refused() {
        let (p, src) = plan(json!([step(1, "A1", "click"), step(2, "A2", "type")]));
        let e = bind(&p, &src, &rec(&["click"]), false).unwrap_err();
        assert_eq!(e.path.to_string(), "steps[1]");
        assert!(
            e.message.contains("2 steps that act and the recording 1"),
            "{e}"
        );
        let e = bind(&p, &src, &rec(&["click", "type", "click"]), false).unwrap_err();
        assert_eq!(e.path.to_string(), "steps");
    }
}
