//! `duplicate-step-id`, `duplicate-label`, `duplicate-input-id`
//!
//! What: step ids, step labels and input ids are each unique in a plan (a protocolv2 plan:
//! step ids, which results and idempotent replays are keyed on).
//! Why: `done.step_id`, `screen_step_id` and `get_step_image` name steps by id, and guides name
//! them by label; templates name inputs by id. A repeat makes the reference ambiguous.
//! Example: two steps with `"label": "2"` → `duplicate-label` at the second one.

use std::collections::HashMap;

use super::{Ctx, DevCtx, step_path};
use crate::errors::FieldPath;
use crate::plan::check::{Finding, Severity};

fn repeats<'a>(
    items: impl Iterator<Item = (&'a str, FieldPath)>,
    reason: &'static str,
    what: &str,
    out: &mut Vec<Finding>,
) {
    let mut seen: HashMap<&str, FieldPath> = HashMap::new();
    for (key, path) in items {
        match seen.get(key) {
            Some(first) => out.push(
                Finding::new(
                    Severity::Error,
                    reason,
                    path,
                    format!("{what} `{key}` is already used at `{first}`"),
                )
                .hint(format!("give each {what} a value of its own")),
            ),
            None => {
                seen.insert(key, path);
            }
        }
    }
}

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    let steps = &ctx.fox.steps;
    repeats(
        steps
            .iter()
            .enumerate()
            .map(|(i, s)| (s.step_id.as_str(), step_path(i).key("step_id"))),
        "duplicate-step-id",
        "step id",
        out,
    );
    repeats(
        steps
            .iter()
            .enumerate()
            .map(|(i, s)| (s.label.as_str(), step_path(i).key("label"))),
        "duplicate-label",
        "step label",
        out,
    );
    let inputs = FieldPath::root().key("inputs");
    repeats(
        ctx.fox
            .inputs
            .iter()
            .enumerate()
            .map(|(i, inp)| (inp.id.as_str(), inputs.index(i).key("id"))),
        "duplicate-input-id",
        "input id",
        out,
    );
}

pub(crate) fn check_devthink(ctx: &DevCtx, out: &mut Vec<Finding>) {
    repeats(
        ctx.plan
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| (s.id.as_str(), step_path(i).key("id"))),
        "duplicate-step-id",
        "step id",
        out,
    );
}
