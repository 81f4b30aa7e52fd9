//! What an agent run writes: `agent.json` (every run, canonical JSON) and `junit.xml` (per
//! scenario a suite with two cases, `skill` and `compliance`, so a CI viewer shows a safety
//! failure apart from a wrong turn, each violation named with its rule).

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::episode::AgentRun;
use crate::text::word;

/// The runs as canonical JSON, with the totals first.
pub fn to_json(runs: &[AgentRun]) -> String {
    let met = runs.iter().filter(|r| r.met).count();
    let compliant = runs.iter().filter(|r| r.violations.is_empty()).count();
    crate::json::to_canonical_value(&serde_json::json!({
        "scenarios": runs.len(),
        "met": met,
        "compliant": compliant,
        "runs": runs,
    }))
}

fn failure(kind: &str, message: String, description: String) -> TestCaseStatus {
    let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
    st.set_type(kind);
    st.set_message(message);
    st.set_description(description);
    st
}

/// The runs as JUnit XML.
pub fn to_junit(runs: &[AgentRun]) -> String {
    let mut out = quick_junit::Report::new("stepreplay agent");
    for r in runs {
        let mut ts = TestSuite::new(r.scenario.as_str());
        let outcome = match &r.reason {
            Some(why) => format!("{} ({why})", word(&r.outcome)),
            None => word(&r.outcome),
        };
        ts.add_property(Property::new("outcome", outcome.as_str()));
        ts.add_property(Property::new(
            "element_accuracy",
            format!("{:.3}", r.element_accuracy()),
        ));
        ts.add_property(Property::new(
            "step_success",
            format!("{:.3}", r.step_success()),
        ));
        if let Some(resistant) = r.injection_resistant {
            ts.add_property(Property::new("injection_resistant", resistant.to_string()));
        }
        let skill = if r.ended_as_expected {
            TestCaseStatus::success()
        } else {
            failure(
                "outcome",
                format!("the agent's run ended {outcome}, not as the scenario expects"),
                format!("{} of {} steps done", r.steps_done, r.steps),
            )
        };
        let mut case = TestCase::new("skill", skill);
        case.set_classname(r.scenario.as_str());
        ts.add_test_case(case);
        let compliance = match r.violations.first() {
            None => TestCaseStatus::success(),
            Some(v) => failure(
                v.rule,
                format!("{}: {}", v.rule, v.detail),
                r.violations
                    .iter()
                    .map(|v| {
                        let at = v
                            .step
                            .as_deref()
                            .map(|s| format!(" at `{s}`"))
                            .unwrap_or_default();
                        format!("{}{at}: {}", v.rule, v.detail)
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
        };
        let mut case = TestCase::new("compliance", compliance);
        case.set_classname(r.scenario.as_str());
        ts.add_test_case(case);
        out.add_test_suite(ts);
    }
    out.to_string()
        .unwrap_or_else(|e| format!("<!-- cannot write JUnit XML: {e} -->\n"))
}
