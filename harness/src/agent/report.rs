//! What an agent run writes: `agent.json` (every run, canonical JSON), `junit.xml` (per
//! scenario a suite with two cases, `skill` and `compliance`, so a CI viewer shows a safety
//! failure apart from a wrong turn, each violation named with its rule) and `agent.html`.

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
            super::shown(r.element_accuracy()),
        ));
        ts.add_property(Property::new(
            "operation_accuracy",
            super::shown(r.operation_accuracy()),
        ));
        ts.add_property(Property::new(
            "step_success",
            super::shown(r.step_success()),
        ));
        if let Some(resistant) = r.injection_resistant {
            ts.add_property(Property::new("injection_resistant", resistant.to_string()));
        }
        if let Some(b) = &r.bridge {
            for (k, v) in bridge_facts(b) {
                ts.add_property(Property::new(k, v));
            }
        }
        let skill = if r.ended_as_expected {
            TestCaseStatus::success()
        } else {
            let detail = match &r.bridge {
                Some(b) => b.state_diff.clone().unwrap_or_else(|| {
                    format!(
                        "the commands {}; the scenario expects {}",
                        word(&b.actual),
                        word(&b.expected)
                    )
                }),
                None => format!("{} of {} steps done", r.steps_done, r.steps),
            };
            failure(
                "outcome",
                format!("the agent's run ended {outcome}, not as the scenario expects"),
                detail,
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

/// A bridge run's facts as name/value pairs, for JUnit properties and the HTML page.
fn bridge_facts(b: &super::bridge::BridgeFacts) -> Vec<(&'static str, String)> {
    vec![
        ("bridge_written", b.written.to_string()),
        ("bridge_outcome", word(&b.actual)),
        ("bridge_expected", word(&b.expected)),
        (
            "bridge_reported",
            b.reported.clone().unwrap_or_else(|| "nothing".into()),
        ),
        ("bridge_state_match", b.state_match.to_string()),
    ]
}

/// The runs as one self-contained HTML page: a row per scenario, and each run's broken rules.
pub fn to_html(runs: &[AgentRun]) -> String {
    use std::fmt::Write;
    let e = crate::report::html_escape;
    let mut h = String::from(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>stepreplay agent</title>\
         <style>body{font:14px system-ui,sans-serif;margin:24px}table{border-collapse:collapse}\
         td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}.ok{color:#176f2c}.bad{color:#b3261e}\
         </style></head><body><h1>Agent runs</h1>",
    );
    let met = runs.iter().filter(|r| r.met).count();
    let _ = write!(
        h,
        "<p>{} · {met} as expected and compliant</p><table><tr><th></th><th>scenario</th>\
         <th>outcome</th><th>element accuracy</th><th>operation accuracy</th><th>step success</th>\
         <th>compliance</th></tr>",
        e(&crate::text::plural(runs.len(), "scenario", "scenarios"))
    );
    for r in runs {
        let outcome = match &r.reason {
            Some(why) => format!("{} ({why})", word(&r.outcome)),
            None => word(&r.outcome),
        };
        let rules: Vec<&str> = r.violations.iter().map(|v| v.rule).collect();
        let _ = write!(
            h,
            "<tr><td class=\"{}\">{}</td><td><a href=\"#{id}\">{id}</a></td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>",
            if r.met { "ok" } else { "bad" },
            if r.met { "✔" } else { "✘" },
            e(&outcome),
            super::shown(r.element_accuracy()),
            super::shown(r.operation_accuracy()),
            super::shown(r.step_success()),
            if rules.is_empty() {
                "compliant".to_string()
            } else {
                e(&rules.join(", "))
            },
            id = e(&r.scenario),
        );
    }
    h.push_str("</table>");
    for r in runs.iter().filter(|r| !r.violations.is_empty() || !r.met) {
        let _ = write!(h, "<h2 id=\"{0}\">{0}</h2><ul>", e(&r.scenario));
        if let Some(b) = &r.bridge {
            let facts: Vec<String> = bridge_facts(b)
                .into_iter()
                .map(|(k, v)| format!("{}: {}", k.trim_start_matches("bridge_"), v))
                .collect();
            let _ = write!(h, "<li>{}</li>", e(&facts.join(" · ")));
            if let Some(d) = &b.state_diff {
                let _ = write!(h, "<li><pre>{}</pre></li>", e(d));
            }
        }
        for v in &r.violations {
            let at = v
                .step
                .as_deref()
                .map(|s| format!(" at <code>{}</code>", e(s)))
                .unwrap_or_default();
            let _ = write!(
                h,
                "<li class=\"bad\"><b>{}</b>{at}: {}</li>",
                e(v.rule),
                e(&v.detail)
            );
        }
        h.push_str("</ul>");
    }
    h.push_str("</body></html>\n");
    h
}
