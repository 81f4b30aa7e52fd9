//! `review-time` (protocolv2)
//!
//! What: `approvedat` and `completedat` against the plan's state and its other times: an
//! approval time on a plan never approved (`draft`, `pending`, `rejected`), a completion time
//! on a plan not `completed`, an approval before the plan was created or at or after it
//! expired, a completion before the plan was created or approved.
//! Why: the review surface reads these times to show who decided what and when; one that
//! contradicts the state or the order of events is a hand edit or a lost transition, and the
//! reviewer is shown a history that did not happen. A warning: replay is gated by `state`
//! and `expiresat` alone.
//! Example: `"state": "pending", "approvedat": 1767225900000` → warning at `approvedat`.

use super::DevCtx;
use crate::errors::FieldPath;
use crate::plan::check::{Finding, Severity};
use crate::plan::devthink::State;

pub(crate) fn check(ctx: &DevCtx, out: &mut Vec<Finding>) {
    let p = ctx.plan;
    let (created, expires) = (p.createdat, p.expiresat);
    let mut flag = |field: &str, msg: String, hint: &str| {
        out.push(
            Finding::new(
                Severity::Warning,
                "review-time",
                FieldPath::root().key(field),
                msg,
            )
            .hint(hint),
        );
    };
    if let Some(at) = p.approvedat {
        if matches!(p.state, State::Draft | State::Pending | State::Rejected) {
            flag(
                "approvedat",
                format!(
                    "a `{}` plan was never approved, but has `approvedat`",
                    p.state.word()
                ),
                "leave `approvedat` out until the plan is approved",
            );
        } else if at < created {
            flag(
                "approvedat",
                format!("approved at {at}, before the plan was created at {created}"),
                "approval comes after `createdat`",
            );
        } else if at >= expires {
            flag(
                "approvedat",
                format!("approved at {at}, when the plan had expired at {expires}"),
                "an expired plan cannot be approved",
            );
        }
    }
    if let Some(at) = p.completedat {
        let approved = p.approvedat;
        if p.state != State::Completed {
            flag(
                "completedat",
                format!("a `{}` plan has `completedat`", p.state.word()),
                "only a `completed` plan says when it completed",
            );
        } else if at < created || approved.is_some_and(|a| at < a) {
            flag(
                "completedat",
                format!("completed at {at}, before it was created or approved"),
                "completion comes after `createdat` and `approvedat`",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::check;
    use crate::json::Source;
    use crate::plan::check::rules::DevCtx;
    use crate::plan::devthink::parse_protocolv2;

    /// The findings (path, message) on the devthink example with `change` made.
    fn run(change: impl FnOnce(&mut Value)) -> Vec<(String, String)> {
        let mut v: Value = serde_json::from_str(include_str!(
            "../../../../tests/fixtures/plans/devthink-login.json"
        ))
        .unwrap();
        change(&mut v);
        let src = Source::from_text("plan.json", v.to_string());
        let plan = parse_protocolv2(&src).unwrap();
        let mut out = Vec::new();
        check(
            &DevCtx {
                src: &src,
                plan: &plan,
                value: &v,
            },
            &mut out,
        );
        out.iter()
            .map(|f| (f.path.to_string(), f.message.clone()))
            .collect()
    }

    #[test]
    fn review_times_that_contradict_the_state_or_each_other_are_flagged() {
        assert!(run(|_| {}).is_empty(), "the example is consistent");
        let made = 1_767_225_600_000u64;
        let expires = 1_767_312_000_000u64;
        type Change = Box<dyn Fn(&mut Value)>;
        let cases: [(&str, Change, &str); 6] = [
            (
                "approvedat",
                Box::new(|v| v["state"] = json!("pending")),
                "never approved",
            ),
            (
                "approvedat",
                Box::new(move |v| v["approvedat"] = json!(made - 1)),
                "before",
            ),
            (
                "approvedat",
                Box::new(move |v| v["approvedat"] = json!(expires)),
                "expired",
            ),
            (
                "completedat",
                Box::new(move |v| v["completedat"] = json!(made + 1)),
                "`approved` plan",
            ),
            (
                "completedat",
                Box::new(move |v| {
                    v["state"] = json!("completed");
                    v["completedat"] = json!(made + 1);
                }),
                "before",
            ),
            (
                "approvedat",
                Box::new(|v| v["state"] = json!("rejected")),
                "never approved",
            ),
        ];
        for (path, change, words) in cases {
            let got = run(change);
            assert_eq!(got.len(), 1, "{path}: {got:?}");
            assert_eq!(got[0].0, path);
            assert!(got[0].1.contains(words), "{got:?}");
        }
        // Completed after its approval, and an expired plan approved in time: consistent.
        assert!(
            run(|v| {
                v["state"] = json!("completed");
                v["completedat"] = json!(made + 600_000);
            })
            .is_empty()
        );
        assert!(run(|v| v["state"] = json!("expired")).is_empty());
    }
}
