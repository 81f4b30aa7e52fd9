//! What replaying a reviewed browser plan (devthink) adds to following steps: the review
//! lifecycle before the first step, idempotent retries, the plan's exact origin, and the
//! capture and read options after a step.
//!
//! The lifecycle is judged against the scenario's fixed `clock`, never the wall clock, so a
//! report reads the same next year. Only an approved, unexpired plan runs; a pending one is
//! put to the scripted person (preview, then approve or reject); every other state is refused.

use super::trace::{Event, ReviewMessage};
use crate::plan::devthink::State;
use crate::plan::{Plan, ReadRegion, Step};
use crate::recording::Rect;
use crate::recording::dom::{DomSnapshot, TEXT};
use crate::scenario::{FailReason, ReviewAnswer, ScenarioFile};

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
        // `scenario::check_scenario` refuses such a scenario; an in-memory one (the approval check)
        // judges the steps, not the review.
        return (Vec::new(), None);
    };
    let expired = r.expires_at.reached_by(clock);
    let at = format!("at {clock}, the plan expires at {}", r.expires_at);
    // The run happens at its clock: a plan made or approved later than that was not yet
    // approved when the run would act on it.
    let later = [("created", Some(r.created_at)), ("approved", r.approved_at)]
        .into_iter()
        .find_map(|(what, t)| t.filter(|t| t.0 > clock as f64).map(|t| (what, t)));
    match r.state {
        State::Approved if later.is_some() => {
            let (what, t) = later.unwrap_or_default();
            (
                vec![review_event(
                    ReviewMessage::Execute,
                    format!("refused: at {clock}, the plan was not yet {what} (it was at {t})"),
                )],
                Some(FailReason::PlanNotApproved),
            )
        }
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

/// The box an `ocrregion` places on a frame's page, or why it places none.
pub(super) fn region_box(dom: Option<&DomSnapshot>, region: &ReadRegion) -> Result<Rect, String> {
    match region {
        ReadRegion::Box {
            x,
            y,
            width,
            height,
        } => Ok(Rect {
            x: x.floor() as i32,
            y: y.floor() as i32,
            width: width.ceil() as i32,
            height: height.ceil() as i32,
        }),
        ReadRegion::Selector(sel) => {
            let dom = dom.ok_or("the frame has no DOM to find the region's selector in")?;
            let parsed = crate::resolve::selector::parse(sel)
                .map_err(|e| format!("the region's selector `{sel}` does not parse: {e}"))?;
            match crate::resolve::selector::matches(dom, &parsed).as_slice() {
                [one] => dom.nodes[*one]
                    .rect
                    .ok_or_else(|| format!("the region's element `{sel}` is not rendered")),
                [] => Err(format!("no element matches the region's selector `{sel}`")),
                many => Err(format!(
                    "the region's selector `{sel}` matches {} elements",
                    many.len()
                )),
            }
        }
        ReadRegion::Unknown(why) => Err(format!("the ocrregion places no region: {why}")),
    }
}

/// The text drawn inside `rect` on a frame's page: each text node whose box's centre is in it,
/// in document order, with runs of white space made one space.
pub(super) fn text_in(dom: &DomSnapshot, rect: Rect) -> String {
    let mut words = Vec::new();
    for n in dom.nodes.iter().filter(|n| n.tag == TEXT) {
        if let Some(r) = n.rect
            && rect.contains(r.center().0, r.center().1)
        {
            words.extend(n.text.as_deref().unwrap_or("").split_whitespace());
        }
    }
    words.join(" ")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::json::Source;
    use crate::plan::devthink::{lower_devthink, parse_protocolv2};

    const MADE: u64 = 1767225600000;
    const EXPIRES: u64 = 1767312000000;
    const APPROVED: u64 = 1767225900000;

    pub(crate) fn login(edit: impl FnOnce(&mut serde_json::Value)) -> Plan {
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
            "schema": crate::scenario::SCENARIO_SCHEMA, "id": "t", "plan": "", "recording": "",
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
        // From its approval (`approvedat`, after `createdat`) until it expires.
        assert_eq!(judged("approved", APPROVED, None), (vec![Execute], None));
        assert_eq!(judged("approved", EXPIRES - 1, None), (vec![Execute], None));
        assert_eq!(
            judged("approved", EXPIRES, None),
            (vec![Execute], Some(FailReason::PlanExpired)),
            "expiresat is the first moment it may not run"
        );
    }

    #[test]
    fn the_expiry_window_has_no_cap() {
        // A thousand years after it was made, or the largest time a JSON number spells: the
        // plan checks clean and runs until then.
        let findings = |expires: Option<f64>| {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../recordings/scripts/browser/login.json"
            );
            let mut v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            if let Some(at) = expires {
                v["expiresat"] = serde_json::json!(at);
            }
            let src = Source::from_text("plan.json", crate::json::to_canonical(&v));
            let found = crate::plan::check::check_source(&src).findings;
            found.iter().map(|f| f.reason).collect::<Vec<_>>()
        };
        let millennium = MADE as f64 + 1000.0 * 365.25 * 86_400_000.0;
        for (expires, clock) in [(millennium, millennium as u64 - 1), (1e300, u64::MAX)] {
            let plan = login(|v| v["expiresat"] = serde_json::json!(expires));
            let ran = review(&plan, &scenario(Some(clock), None)).1;
            assert_eq!(ran, None, "{expires}");
            assert_eq!(findings(Some(expires)), findings(None), "{expires}");
        }
    }

    #[test]
    fn an_approval_dated_after_the_runs_clock_has_not_happened_yet() {
        let at = |clock: u64| review(&login(|_| {}), &scenario(Some(clock), None));
        assert_eq!(at(APPROVED).1, None);
        let (events, reason) = at(APPROVED - 1);
        assert_eq!(reason, Some(FailReason::PlanNotApproved));
        assert!(
            matches!(&events[..], [Event::Review { detail, .. }] if detail.contains("not yet approved")),
            "{events:?}"
        );
        // Made after the clock: not yet approved either.
        let plan = login(|v| {
            v.as_object_mut().unwrap().remove("approvedat");
        });
        let created = plan.review.as_ref().unwrap().created_at;
        assert_eq!(
            review(&plan, &scenario(Some(created.first_clock() - 1), None)).1,
            Some(FailReason::PlanNotApproved)
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
        assert_eq!(plan.retry_key(3), None, "the first use runs");
        assert_eq!(plan.retry_key(4), Some("plan-login/signin"));
        assert_eq!(plan.retry_key(1), None, "no key, no retry");
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
    }
}
