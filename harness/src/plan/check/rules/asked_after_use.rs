//! `asked-after-use`
//!
//! What: an `ask` or `do` step whose words speak of an input (by its name, or its id read as
//! words) placed after a step that reads that input.
//! Why: such a step is where the person is asked for the value, or gets it ready; a step
//! before it that already types the value types what nobody gave yet. Words-only steps leave
//! nothing in a recording, so their order is only seen here.
//! A `do` step that checks what was done ("Check the client email is right") comes after by
//! nature, and is left alone.
//! Example: step 1 types `Write a {tone} reply`, step 2 is "Ask which tone the reply should
//! have" → error at `steps[1]`.

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::plan::foxstep::ActionKind;
use crate::text::speaks_of;

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let checks = step.action == ActionKind::Do && checks_what_was_done(&step.text);
        if !matches!(step.action, ActionKind::Ask | ActionKind::Do) || checks {
            continue;
        }
        for inp in &ctx.fox.inputs {
            if !speaks_of(&step.text, &inp.id, &inp.name) {
                continue;
            }
            let Some(user) = ctx.fox.steps[..i]
                .iter()
                .find(|s| s.reads.contains(&inp.id))
            else {
                continue;
            };
            out.push(
                Finding::new(
                    Severity::Error,
                    "asked-after-use",
                    step_path(i),
                    format!(
                        "step {} speaks of `{}`, but step {} before it already uses it",
                        step.number, inp.id, user.number
                    ),
                )
                .hint(format!(
                    "move step {} before step {}",
                    step.number, user.number
                )),
            );
        }
    }
}

/// Whether a `do` step's words check or wait on what was done, rather than ready something.
fn checks_what_was_done(words: &str) -> bool {
    let w = crate::text::words(words);
    let first = w.first().map(String::as_str);
    matches!(
        first,
        Some("check" | "verify" | "confirm" | "ensure" | "see" | "look" | "wait" | "review")
    ) || (first == Some("make") && w.get(1).map(String::as_str) == Some("sure"))
        || (first == Some("double") && w.get(1).map(String::as_str) == Some("check"))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::check;
    use crate::plan::check::rules::testing::{self, seed};

    fn findings(plan: &Value) -> Vec<String> {
        testing::findings(check, plan)
    }

    /// The seed plan with an `ask` step about the client's email at `at` (0-based), numbered
    /// afresh, the input's `used_by` following the step that reads it.
    fn with_ask(at: usize, text: &str) -> Value {
        let mut plan = seed();
        let ask = json!({
            "action": "ask", "confirm": false, "label": "0", "number": 0,
            "step_id": "D0D0D0D0-0000-4000-8000-000000000000", "text": text
        });
        plan["steps"].as_array_mut().unwrap().insert(at, ask);
        let mut reader = 0;
        for (k, s) in plan["steps"].as_array_mut().unwrap().iter_mut().enumerate() {
            s["number"] = json!(k + 1);
            s["label"] = json!((k + 1).to_string());
            if s.get("reads").is_some() {
                reader = k + 1;
            }
        }
        plan["inputs"][0]["used_by"] = json!([reader]);
        plan
    }

    #[test]
    fn the_seed_plan_gives_none() {
        assert_eq!(findings(&seed()), Vec::<String>::new());
    }

    #[test]
    fn an_ask_before_the_use_is_fine() {
        assert_eq!(
            findings(&with_ask(1, "Ask for the client email")),
            Vec::<String>::new()
        );
    }

    #[test]
    fn an_ask_after_the_use_is_an_error() {
        assert_eq!(
            findings(&with_ask(2, "Ask for the client email")),
            ["error asked-after-use steps[2]"]
        );
        let mut plan = with_ask(2, "Have the client email ready");
        plan["steps"][2]["action"] = json!("do");
        assert_eq!(findings(&plan), ["error asked-after-use steps[2]"]);
    }

    #[test]
    fn a_do_that_checks_what_was_done_may_come_after() {
        for words in [
            "Check the client email is right",
            "Make sure the client email is right",
        ] {
            let mut plan = with_ask(2, words);
            plan["steps"][2]["action"] = json!("do");
            assert_eq!(findings(&plan), Vec::<String>::new(), "{words}");
        }
    }

    #[test]
    fn an_ask_about_something_else_may_come_anywhere() {
        assert_eq!(
            findings(&with_ask(2, "Ask whether to attach the invoice")),
            Vec::<String>::new()
        );
    }
}
