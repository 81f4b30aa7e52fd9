//! What replaying a reviewed browser plan (devthink) adds to following steps: the review
//! lifecycle before the first step, idempotent retries, the plan's exact origin, and the
//! capture and read options after a step.
//!
//! The lifecycle is judged against the scenario's fixed `clock`, never the wall clock, so a
//! report reads the same next year. Only an approved, unexpired plan runs; a pending one is
//! put to the scripted person (preview, then approve or reject); every other state is refused.

use super::scenario::{FailReason, ReviewAnswer, ScenarioFile};
use super::trace::{Event, ReviewMessage};
use crate::plan::devthink::State;
use crate::plan::devthink::origin::Origin;
use crate::plan::{Action, Plan, Step};
use crate::recording::dom::DomSnapshot;

fn review_event(message: ReviewMessage, detail: String) -> Event {
    Event::Review { message, detail }
}

/// The review surface's messages before the first step, and the refusal when the plan may
/// not run. Plans without a review (Foxstep) pass untouched.
pub(super) fn review(plan: &Plan, scenario: &ScenarioFile) -> (Vec<Event>, Option<FailReason>) {
    let Some(r) = &plan.review else {
        return (Vec::new(), None);
    };
    let Some(clock) = scenario.clock else {
        // `scenario_check` refuses such a scenario; an in-memory one (the approval check)
        // judges the steps, not the review.
        return (Vec::new(), None);
    };
    let expired = clock >= r.expires_at;
    let at = format!("at {clock}, the plan expires at {}", r.expires_at);
    match r.state {
        State::Approved if expired => (
            vec![review_event(
                ReviewMessage::Execute,
                format!("refused: {at}"),
            )],
            Some(FailReason::PlanExpired),
        ),
        State::Approved => (
            vec![review_event(
                ReviewMessage::Execute,
                format!(
                    "approved plan `{}`, {} steps ({at})",
                    plan.id,
                    plan.steps.len()
                ),
            )],
            None,
        ),
        // An expired plan is not put to a person: approving it could not make it run.
        State::Pending if expired => (
            vec![review_event(
                ReviewMessage::Preview,
                format!("not shown: {at}"),
            )],
            Some(FailReason::PlanExpired),
        ),
        State::Pending => {
            let mut events = vec![review_event(
                ReviewMessage::Preview,
                format!(
                    "pending plan `{}`, {} steps, shown to the person",
                    plan.id,
                    plan.steps.len()
                ),
            )];
            match scenario.answers.review {
                Some(ReviewAnswer::Approve) => {
                    events.push(review_event(
                        ReviewMessage::Approve,
                        "the person approved".into(),
                    ));
                    events.push(review_event(
                        ReviewMessage::Execute,
                        format!("approved plan ({at})"),
                    ));
                    (events, None)
                }
                answer => {
                    let why = if answer.is_some() {
                        "the person rejected it"
                    } else {
                        "no answer (rejected)"
                    };
                    events.push(review_event(ReviewMessage::Reject, why.into()));
                    (events, Some(FailReason::PlanRejected))
                }
            }
        }
        other => (
            vec![review_event(
                ReviewMessage::Execute,
                format!(
                    "refused: the plan is {}, only an approved plan runs",
                    other.word()
                ),
            )],
            Some(FailReason::PlanNotApproved),
        ),
    }
}

/// Why a plan may not run at all in `scenario` (its review state or expiry, judged at the
/// scenario's clock), for front doors that run plans without the follower.
pub(crate) fn refusal(plan: &Plan, scenario: &ScenarioFile) -> Option<FailReason> {
    review(plan, scenario).1
}

/// The idempotency key step `i` repeats from an earlier step: a retry, not applied again.
pub(crate) fn retry_key(plan: &Plan, i: usize) -> Option<&str> {
    let key = plan.steps[i].web.as_ref()?.idempotency_key.as_deref()?;
    plan.steps[..i]
        .iter()
        .any(|s| s.web.as_ref().and_then(|w| w.idempotency_key.as_deref()) == Some(key))
        .then_some(key)
}

/// Why step `step` would act outside the plan's origin, on a page showing `page` (the
/// frame's URL, when the frame has a DOM).
pub(crate) fn outside_origin(
    plan: &Plan,
    step: &Step,
    page: Option<&DomSnapshot>,
) -> Option<String> {
    let origin = Origin::exact(&plan.review.as_ref()?.origin).ok()?;
    let shown = &plan.review.as_ref()?.origin;
    if let Action::Navigate { to: Some(to) } = &step.action {
        return (!origin.contains(to))
            .then(|| format!("`{to}` is outside the plan's origin `{shown}`"));
    }
    let url = &page?.url;
    // A page before any navigation (about:blank) has no origin to leave.
    (step.target.is_some() && !url.starts_with("about:") && !origin.contains(url))
        .then(|| format!("the page `{url}` is outside the plan's origin `{shown}`"))
}

/// A capture's file name: the step's `naming` pattern (default `{step}-{phase}.png`) with
/// `{step}`, `{phase}`, `{number}` and `{plan}` filled in; other placeholders stay as written.
pub(super) fn capture_name(plan: &Plan, step: &Step, phase: &str) -> String {
    let pattern = step
        .web
        .as_ref()
        .and_then(|w| w.naming.clone())
        .unwrap_or_else(|| "{step}-{phase}.png".into());
    pattern
        .replace("{step}", &step.id)
        .replace("{phase}", phase)
        .replace("{number}", &step.number.to_string())
        .replace("{plan}", &plan.id)
}

/// The text a read of `element` gives on a frame's DOM.
pub(super) fn read_text(dom: &DomSnapshot, element: &str) -> Option<String> {
    dom.position(element).map(|i| dom.text_of(i))
}

/// Whether a read gives what the plan expects: equal once white space is folded.
pub(super) fn read_matches(read: &str, expected: &str) -> bool {
    read.split_whitespace().eq(expected.split_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Source;
    use crate::plan::devthink::{lower_devthink, parse_protocolv2};

    const MADE: u64 = 1767225600000;
    const EXPIRES: u64 = 1767312000000;

    fn login(edit: impl FnOnce(&mut serde_json::Value)) -> Plan {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../recordings/scripts/browser/login.json"
        );
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        edit(&mut v);
        let src = Source::from_text("plan.json", serde_json::to_string(&v).unwrap());
        lower_devthink(&parse_protocolv2(&src).unwrap(), std::path::Path::new("."))
    }

    fn scenario(clock: Option<u64>, review: Option<ReviewAnswer>) -> ScenarioFile {
        let mut s: ScenarioFile = serde_json::from_value(serde_json::json!({
            "schema": super::super::SCENARIO_SCHEMA, "id": "t", "plan": "", "recording": "",
            "expect": {"outcome": "completed"}
        }))
        .unwrap();
        s.clock = clock;
        s.answers.review = review;
        s
    }

    fn messages(events: &[Event]) -> Vec<ReviewMessage> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Review { message, .. } => Some(*message),
                _ => None,
            })
            .collect()
    }

    fn judged(
        state: &str,
        clock: u64,
        answer: Option<ReviewAnswer>,
    ) -> (Vec<ReviewMessage>, Option<FailReason>) {
        let plan = login(|v| v["state"] = state.into());
        let (events, reason) = review(&plan, &scenario(Some(clock), answer));
        (messages(&events), reason)
    }

    use ReviewMessage::*;

    #[test]
    fn an_approved_plan_runs_until_it_expires_by_the_scenarios_clock() {
        assert_eq!(judged("approved", MADE, None), (vec![Execute], None));
        assert_eq!(judged("approved", EXPIRES - 1, None), (vec![Execute], None));
        assert_eq!(
            judged("approved", EXPIRES, None),
            (vec![Execute], Some(FailReason::PlanExpired)),
            "expiresat is the first moment it may not run"
        );
    }

    #[test]
    fn a_pending_plan_is_previewed_and_the_person_decides() {
        let approve = Some(ReviewAnswer::Approve);
        assert_eq!(
            judged("pending", MADE, approve),
            (vec![Preview, Approve, Execute], None)
        );
        assert_eq!(
            judged("pending", MADE, Some(ReviewAnswer::Reject)),
            (vec![Preview, Reject], Some(FailReason::PlanRejected))
        );
        assert_eq!(
            judged("pending", MADE, None),
            (vec![Preview, Reject], Some(FailReason::PlanRejected)),
            "no answer is no approval"
        );
        assert_eq!(
            judged("pending", EXPIRES + 5, approve),
            (vec![Preview], Some(FailReason::PlanExpired)),
            "an expired plan is never put to the person"
        );
    }

    #[test]
    fn every_other_state_is_refused_whatever_the_person_says() {
        for state in ["draft", "rejected", "expired", "completed", "cancelled"] {
            let (said, reason) = judged(state, MADE, Some(ReviewAnswer::Approve));
            assert_eq!(reason, Some(FailReason::PlanNotApproved), "{state}");
            assert_eq!(said, vec![Execute], "{state}");
        }
    }

    #[test]
    fn foxstep_plans_and_in_memory_scenarios_have_no_review() {
        let plan = login(|_| {});
        assert_eq!(review(&plan, &scenario(None, None)).1, None);
    }

    #[test]
    fn a_retry_is_a_later_step_with_a_key_already_used() {
        let plan = login(|v| {
            v["steps"][4]["idempotencykey"] = "plan-login/signin".into();
        });
        assert_eq!(retry_key(&plan, 3), None, "the first use runs");
        assert_eq!(retry_key(&plan, 4), Some("plan-login/signin"));
        assert_eq!(retry_key(&plan, 1), None, "no key, no retry");
    }

    #[test]
    fn steps_outside_the_origin_are_named_with_the_url() {
        let plan = login(|v| v["steps"][0]["value"] = "https://evil.test/x".into());
        let why = outside_origin(&plan, &plan.steps[0], None).unwrap();
        assert!(why.contains("https://evil.test/x"), "{why}");
        let inside = login(|_| {});
        assert_eq!(outside_origin(&inside, &inside.steps[0], None), None);
        let dom = DomSnapshot {
            schema: crate::recording::dom::DOM_SCHEMA.into(),
            url: "http://127.0.0.1:9000/login.html".into(),
            title: String::new(),
            nodes: Vec::new(),
        };
        assert!(outside_origin(&inside, &inside.steps[1], Some(&dom)).is_some());
        let blank = DomSnapshot {
            url: "about:blank".into(),
            ..dom
        };
        assert_eq!(
            outside_origin(&inside, &inside.steps[1], Some(&blank)),
            None
        );
    }

    #[test]
    fn captures_are_named_by_the_pattern() {
        let plan = login(|v| {
            v["steps"][3]["options"] = r#"{"naming": "{plan}-{number}-{step}-{phase}.png"}"#.into();
        });
        assert_eq!(
            capture_name(&plan, &plan.steps[3], "after"),
            "plan-login-4-signin-after.png"
        );
        assert_eq!(
            capture_name(&plan, &plan.steps[1], "before"),
            "user-before.png"
        );
        assert!(read_matches("Blue  mug\n$12", "Blue mug $12"));
        assert!(!read_matches("Blue mug", "Blue mug $12"));
    }
}
