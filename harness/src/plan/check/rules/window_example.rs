//! `window-holds-example`
//!
//! What: a `target.window` or `expect.window` that holds the `example` of an input that
//! `changes` `each-time` (as a whole word, in any case and spacing).
//! Why: a window title is matched exactly, so a title made from this run's value ("Re:
//! accounts@example.com") names a window the next run, with another value, never has: the
//! target is not found or the expect fails. The author recorded the value, not the window.
//! Example: `"window": "Re: accounts@example.com"` with `client-email` each-time and that
//! example → warning at `steps[2].target.window`.

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::plan::foxstep::{Changes, Input};
use crate::text::holds_phrase as holds;

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    let each_time: Vec<(&Input, &str)> = ctx
        .fox
        .inputs
        .iter()
        .filter(|inp| inp.changes == Changes::EachTime)
        .filter_map(|inp| Some((inp, inp.example.as_deref()?)))
        .collect();
    if each_time.is_empty() {
        return;
    }
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let windows = [
            (
                "target",
                step.target.as_ref().and_then(|t| t.window.as_deref()),
            ),
            (
                "expect",
                step.expect.as_ref().and_then(|e| e.window.as_deref()),
            ),
        ];
        for (field, window) in windows {
            let Some(window) = window else { continue };
            let Some(&(inp, example)) = each_time.iter().find(|(_, ex)| holds(window, ex)) else {
                continue;
            };
            // A sensitive value is never printed, and the title holds it.
            let message = if inp.sensitive {
                format!(
                    "the window title holds the example of sensitive input `{}`, which changes each time",
                    inp.id
                )
            } else {
                format!(
                    "the window title “{window}” holds “{example}”, the example of `{}`, which changes each time",
                    inp.id
                )
            };
            out.push(
                Finding::new(
                    Severity::Warning,
                    "window-holds-example",
                    step_path(i).key(field).key("window"),
                    message,
                )
                .hint("leave `window` out, or name a window whose title is the same every run"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::check;
    use crate::plan::check::rules::testing::{run, seed};

    /// `(severity reason path, message)` of each finding.
    fn findings(plan: &Value) -> Vec<(String, String)> {
        run(check, plan)
            .iter()
            .map(|f| {
                let head = format!("{} {} {}", f.severity.as_str(), f.reason, f.path);
                (head, f.message.clone())
            })
            .collect()
    }

    #[test]
    fn the_seed_plan_gives_none() {
        let got = findings(&seed());
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn fires_on_target_window() {
        let mut plan = seed();
        plan["steps"][2]["target"]["window"] = json!("Re: accounts@example.com");
        let got = findings(&plan);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(
            got[0].0,
            "warning window-holds-example steps[2].target.window"
        );
        assert!(got[0].1.contains("“accounts@example.com”"), "{}", got[0].1);
    }

    #[test]
    fn fires_on_expect_window() {
        let mut plan = seed();
        plan["steps"][0]["expect"]["window"] = json!("ACCOUNTS@example.com — Draft");
        let got = findings(&plan);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(
            got[0].0,
            "warning window-holds-example steps[0].expect.window"
        );
    }

    #[test]
    fn a_same_input_example_is_not_flagged() {
        let mut plan = seed();
        plan["inputs"][0]["changes"] = json!("same");
        plan["steps"][2]["target"]["window"] = json!("Re: accounts@example.com");
        plan["steps"][0]["expect"]["window"] = json!("accounts@example.com");
        let got = findings(&plan);
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn a_sensitive_example_is_never_printed() {
        let mut plan = seed();
        plan["inputs"][0]["sensitive"] = json!(true);
        plan["steps"][2]["target"]["window"] = json!("Re: accounts@example.com");
        let got = findings(&plan);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(!got[0].1.contains("accounts"), "{}", got[0].1);
        assert!(got[0].1.contains("`client-email`"), "{}", got[0].1);
    }
}
