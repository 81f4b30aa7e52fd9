//! `junit.xml` ([`to_junit`]): the report as JUnit XML for CI test viewers, through
//! `quick-junit` (which escapes text), with every character XML 1.0 refuses replaced
//! ([`xml_safe`](crate::text::xml_safe)).
//!
//! A test suite per scenario, a test case per step of the deciding (first) mode, plus one
//! `expectation` case carrying the scenario's verdict (and, for an agent under test, a
//! `compliance` case carrying the safety rules it broke). A step that failed or stopped where the
//! scenario expected it (`mini-declined` stops at Send on purpose) passes, with the reason in
//! its output; the same step in a scenario that missed its expectation fails with the reason
//! code as the failure's type, the step by its number and words (`step 4 “Click Send”`, as
//! every report names it) and the expect that failed. Each
//! case carries the plan's `file` and the step's `line`, so viewers link to the place.
//! Given the run's timings, each scenario's suite and `expectation` case carry its wall-clock
//! `time` (the one part of the file that changes between runs; `merge` has the shards' own,
//! `report.json` none); tests write none.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::baseline::RegressionReport;
use super::entries::ReportRef;
use super::model::{Report, ScenarioReport, StepReport};
use crate::errors::Error;
use crate::result::{AgentFacts, Cause};
use crate::text::word;

/// The JUnit XML text of a report. With the regressions against a baseline, each scenario
/// gets a `baseline` case that fails when it regressed (and the run's totals a suite of their
/// own), so a viewer shows red exactly when the gate's exit code is 1.
pub fn to_junit(report: &Report, regressions: Option<&RegressionReport>) -> String {
    // A held report's entries are read without I/O: this cannot fail.
    to_junit_timed(report, regressions, &Timings::new()).unwrap_or_default()
}

/// Wall-clock time per scenario id.
pub type Timings = BTreeMap<String, Duration>;

/// [`to_junit`], with each scenario's time from `timings` (those absent have none), for a
/// report wherever its entries are: [`write_junit`] into a string.
pub fn to_junit_timed<'a>(
    report: impl Into<ReportRef<'a>>,
    regressions: Option<&RegressionReport>,
    timings: &Timings,
) -> Result<String, Error> {
    let mut out = Vec::new();
    write_junit(report, regressions, timings, &mut out, Path::new("-"))?;
    String::from_utf8(out).map_err(|e| Error::Internal(format!("JUnit XML not UTF-8: {e}")))
}

/// Writes the JUnit XML of a report to `out` a test suite at a time, in the bytes
/// quick-junit gives the whole document: the root element carries the totals, so a first
/// pass over the entries counts them and a second writes each suite as quick-junit
/// serializes it (its escaping and layout), never the whole document in memory. A failed
/// write names `name`.
pub(crate) fn write_junit<'a>(
    report: impl Into<ReportRef<'a>>,
    regressions: Option<&RegressionReport>,
    timings: &Timings,
    out: &mut dyn Write,
    name: &Path,
) -> Result<(), Error> {
    let report = report.into();
    let io = crate::output::write_error(name);
    let mut root = quick_junit::Report::new("stepreplay");
    if !timings.is_empty() {
        root.set_time(timings.values().sum::<Duration>());
    }
    let mut suites = 0usize;
    each_suite(report, regressions, timings, &mut |ts| {
        suites += 1;
        root.tests += ts.tests;
        root.failures += ts.failures;
        root.errors += ts.errors;
        root.skipped += ts.skipped;
        if let Some(d) = ts.disabled {
            *root.disabled.get_or_insert(0) += d;
        }
        Ok(())
    })?;
    let whole = xml(&root)?;
    if suites == 0 {
        return out.write_all(whole.as_bytes()).map_err(io);
    }
    let (open, _) = split_root(&whole)?;
    out.write_all(open.as_bytes()).map_err(&io)?;
    let mut close = String::new();
    each_suite(report, regressions, timings, &mut |ts| {
        let mut one = quick_junit::Report::new("stepreplay");
        one.add_test_suite(ts);
        let doc = xml(&one)?;
        let (_, rest) = split_root(&doc)?;
        let end = rest.rfind(CLOSE).ok_or_else(|| unexpected(&doc))?;
        out.write_all(&rest.as_bytes()[..end]).map_err(&io)?;
        if close.is_empty() {
            close = rest[end..].to_string();
        }
        Ok(())
    })?;
    out.write_all(close.as_bytes()).map_err(io)
}

/// How the root element ends, after its last suite (quick-junit indents each on a line).
const CLOSE: &str = "\n</testsuites>";

/// Each scenario's suite (with its `baseline` case when compared), in id order, then the
/// run's own `baseline` suite.
fn each_suite(
    ReportRef { head, entries }: ReportRef,
    regressions: Option<&RegressionReport>,
    timings: &Timings,
    f: &mut dyn FnMut(TestSuite) -> Result<(), Error>,
) -> Result<(), Error> {
    entries.each(&mut |s| {
        let mut ts = suite(head, s, timings.get(&s.id).copied());
        if let Some(r) = regressions {
            ts.add_test_case(baseline_case(&s.id, r, Some(s.id.as_str())));
        }
        f(ts)
    })?;
    if let Some(r) = regressions {
        let mut ts = TestSuite::new("baseline");
        ts.add_test_case(baseline_case("(all scenarios)", r, None));
        f(ts)?;
    }
    // A run cut short is an error of its own, so no publisher counts it as passed.
    if let Some(why) = &head.incomplete {
        let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
        st.set_type("incomplete");
        st.set_message(format!("incomplete: {why}"));
        let mut ts = TestSuite::new("run");
        ts.add_test_case(TestCase::new("every scenario judged", st));
        f(ts)?;
    }
    Ok(())
}

/// The document quick-junit writes, with every character XML 1.0 refuses (quick-junit drops
/// only the C0 controls; U+FFFF is legal in JSON) replaced: the markup is ASCII, so this
/// touches only the text that came from the inputs.
fn xml(r: &quick_junit::Report) -> Result<String, Error> {
    r.to_string()
        .map(|doc| crate::text::xml_safe(&doc).into_owned())
        .map_err(|e| Error::Internal(format!("cannot write JUnit XML: {e}")))
}

/// A document cut after its root start tag (`<testsuites …>`, whose attributes hold no `>`:
/// quick-xml escapes it).
fn split_root(doc: &str) -> Result<(&str, &str), Error> {
    let at = doc
        .find("<testsuites")
        .and_then(|i| doc[i..].find('>').map(|j| i + j + 1))
        .ok_or_else(|| unexpected(doc))?;
    Ok(doc.split_at(at))
}

fn unexpected(doc: &str) -> Error {
    let head: String = doc.chars().take(200).collect();
    Error::Internal(format!("quick-junit wrote an unexpected document: {head}"))
}

fn suite(report: &Report, s: &ScenarioReport, time: Option<Duration>) -> TestSuite {
    let mut ts = TestSuite::new(s.id.as_str());
    if let Some(t) = time {
        ts.set_time(t);
    }
    ts.add_property(Property::new("description", s.description.as_str()));
    ts.add_property(Property::new("expected", word(&s.expected.outcome)));
    for (mode, run) in &s.runs {
        let got = match run.reason {
            Some(r) => format!("{} ({})", word(&run.outcome), word(&r)),
            None => word(&run.outcome),
        };
        ts.add_property(Property::new(format!("outcome.{}", word(mode)), got));
    }
    // A broken safety rule fails the `compliance` case, not the skill's `expectation`.
    let verdict = if s.met || s.cause == Some(Cause::Violation) {
        TestCaseStatus::success()
    } else {
        let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
        st.set_type("expectation-not-met");
        st.set_message(s.mismatch.as_deref().unwrap_or("not as expected"));
        st
    };
    let mut case = TestCase::new("expectation", verdict);
    case.set_classname(s.id.as_str());
    if let Some(t) = time {
        case.set_time(t);
    }
    // Viewers (GitLab, many CI plugins) link a case to `file` and `line`.
    if let Some(f) = report.modes.first().and_then(|m| s.failure(*m)) {
        place(&mut case, &f.file, f.line);
    }
    ts.add_test_case(case);
    if let Some(agent) = &s.agent {
        for line in agent_properties(agent) {
            if let Some((k, v)) = line.split_once(": ") {
                ts.add_property(Property::new(k, v));
            }
        }
        ts.add_test_case(compliance_case(s, agent));
    }

    let Some(run) = report.modes.first().and_then(|m| s.runs.get(m)) else {
        return ts;
    };
    for step in &run.steps {
        ts.add_test_case(step_case(s, step));
    }
    ts
}

fn step_case(s: &ScenarioReport, step: &StepReport) -> TestCase {
    // The plan's own step number and words, as the terminal, summary and page name it;
    // unique in the suite, since the number is.
    let name = step.named();
    let reason = step.reason.map(|r| word(&r));
    let failed_checks: Vec<String> = step
        .checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| format!("{}: {}", c.kind, c.detail))
        .collect();
    let why = || {
        let mut lines = vec![format!(
            "{name} (`{}`) {}: {}",
            step.step_id,
            step.status,
            reason.as_deref().unwrap_or("no reason")
        )];
        if let Some(r) = &step.resolution {
            lines.push(format!(
                "target: {} by {} (confidence {}, {} candidates){}",
                r.found.element.as_deref().unwrap_or("none"),
                word(&r.found.strategy),
                r.found.confidence,
                r.found.candidate_count,
                r.found
                    .note
                    .as_deref()
                    .map(|n| format!(" — {n}"))
                    .unwrap_or_default()
            ));
        }
        for c in &failed_checks {
            lines.push(format!("expect failed: {c}"));
        }
        if let Some(d) = &step.diverged {
            lines.push(format!("diverged: {d}"));
        }
        lines.extend(asked_lines(step));
        lines.extend(step.web_notes());
        lines.join("\n")
    };
    let status = match step.status.as_str() {
        "passed" => TestCaseStatus::success(),
        "not-run" => {
            let mut st = TestCaseStatus::skipped();
            st.set_message("not reached");
            st
        }
        _ if s.met => TestCaseStatus::success(),
        _ => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            st.set_type(reason.clone().unwrap_or_else(|| step.status.clone()));
            let what = failed_checks
                .first()
                .map(|c| format!(" — expect failed: {c}"))
                .unwrap_or_default();
            st.set_message(format!(
                "{name}: {}{what}",
                reason.as_deref().unwrap_or(&step.status)
            ));
            st.set_description(why());
            st
        }
    };
    let mut case = TestCase::new(name.clone(), status);
    case.set_classname(s.id.as_str());
    place(&mut case, &s.plan, step.line);
    if step.status != "passed" && step.status != "not-run" && s.met {
        case.set_system_out(format!("as expected — {}", why()));
    } else if step.status == "passed" && !step.asked.is_empty() {
        // What the person was asked shows on a passing step too (a stop_if they let go on).
        case.set_system_out(asked_lines(step).join("\n"));
    }
    case
}

/// An agent's `compliance` case: it fails with the first broken rule as its type, every
/// rule broken in its text, so CI shows safety apart from skill.
fn compliance_case(s: &ScenarioReport, agent: &AgentFacts) -> TestCase {
    let status = match agent.violations.first() {
        None => TestCaseStatus::success(),
        Some(v) => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            st.set_type(v.rule.as_str());
            st.set_message(format!("{}: {}", v.rule, v.detail));
            let all: Vec<String> = agent
                .violations
                .iter()
                .map(|v| {
                    let at = v
                        .step
                        .as_deref()
                        .map(|s| format!(" at `{s}`"))
                        .unwrap_or_default();
                    format!("{}{at}: {}", v.rule, v.detail)
                })
                .collect();
            st.set_description(all.join("\n"));
            st
        }
    };
    let mut case = TestCase::new("compliance", status);
    case.set_system_out(agent_properties(agent).join("\n"));
    case.set_classname(s.id.as_str());
    case
}

/// An agent's facts as `name: value` lines: turns, injection resistance, and on the bridge
/// what became of its commands (`bridge_actual: failed`).
fn agent_properties(agent: &AgentFacts) -> Vec<String> {
    let mut out = vec![format!("agent_turns: {}", agent.turns)];
    if let Some(r) = agent.injection_resistant {
        out.push(format!("injection_resistant: {r}"));
    }
    for (k, v) in agent.bridge.iter().flat_map(|b| b.as_object()).flatten() {
        // The state's diff is many lines: the compliance case's text has the rest.
        if !v.is_object() && !v.is_null() && k != "state_diff" {
            out.push(format!(
                "bridge_{k}: {}",
                v.as_str().map_or(v.to_string(), str::to_string)
            ));
        }
    }
    out
}

/// The `baseline` case of one scenario (or, for `None`, of the run's totals).
fn baseline_case(class: &str, r: &RegressionReport, scenario: Option<&str>) -> TestCase {
    let mine: Vec<String> = r
        .regressions
        .iter()
        .filter(|g| g.scenario.as_deref() == scenario)
        .map(|g| format!("{} {g}", word(&g.kind)))
        .collect();
    let status = match mine.first() {
        None => TestCaseStatus::success(),
        Some(first) => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            st.set_type("regression");
            st.set_message(first.as_str());
            st.set_description(mine.join("\n"));
            st
        }
    };
    let mut case = TestCase::new("baseline", status);
    case.set_classname(class);
    case
}

/// The case's `file` and `line` attributes (a bridge batch has no plan file).
fn place(case: &mut TestCase, file: &str, line: Option<usize>) {
    if file.is_empty() {
        return;
    }
    case.extra.insert("file".into(), file.into());
    if let Some(l) = line {
        case.extra.insert("line".into(), l.to_string().into());
    }
}

/// `asked (stop-if): step 5: stop if …? → go on`, one line per question.
fn asked_lines(step: &StepReport) -> Vec<String> {
    step.asked
        .iter()
        .map(|a| format!("asked ({}): {} → {}", a.kind, a.detail, a.answer))
        .collect()
}
