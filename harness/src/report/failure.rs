//! Where and why a scenario missed its expectation, in one sentence with a place: the
//! terminal line, the recap, JUnit and GitHub annotations all say it the same way.

use std::fmt;

use super::model::{ScenarioReport, StepReport};
use crate::replay::Mode;
use crate::result::Cause;
use crate::scenario::FailReason;
use crate::text::word;

/// A missed expectation, placed in the file to fix.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// The plan file (at the failing step or plan error), else the scenario file.
    pub(crate) file: String,
    /// Line, from 1, when known.
    pub(crate) line: Option<usize>,
    /// Column, from 1, when known.
    pub(crate) column: Option<usize>,
    /// What went wrong, root cause first.
    pub(crate) message: String,
    /// The step it went wrong at and why (`step 3 “Type the subject” target-not-found — …`),
    /// when a step did: the root cause a regression line starts with.
    pub(crate) step: Option<String>,
}

impl Failure {
    /// `plan.json:79:18`: the file, and the line and column when known.
    pub(crate) fn place(&self) -> String {
        place(&self.file, self.line, self.column)
    }
}

/// `plan.json:79:18`: a file, and the line and column when known.
pub(crate) fn place(file: &str, line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("{file}:{l}:{c}"),
        (Some(l), None) => format!("{file}:{l}"),
        _ => file.to_string(),
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl ScenarioReport {
    /// Why the scenario missed its expectation in `mode`'s run, and where; `None` when met.
    pub fn failure(&self, mode: Mode) -> Option<Failure> {
        if self.met {
            return None;
        }
        let mismatch = self.mismatch.as_deref().unwrap_or("not as expected");
        let run = self.runs.get(&mode);
        let stopped_at = run.and_then(|r| {
            let id = r.step_id.as_deref()?;
            r.steps.iter().find(|s| s.step_id == id)
        });
        // The plan error the mismatch names: the first one the scenario did not declare.
        let undeclared = self.plan_errors.iter().find(|f| {
            f.reason != "plan-needs-review" && !self.expected.plan_errors.contains(&f.reason)
        });
        if let Some(e) = undeclared
            && self.cause == Some(Cause::PlanError)
        {
            return Some(Failure {
                file: self.plan.clone(),
                line: e.line,
                column: e.column,
                message: format!("{mismatch} at `{}`", e.path),
                step: None,
            });
        }
        // An input that could not be used: its own file and place, said once.
        if let (Some(Cause::BrokenInput), [e]) = (self.cause, &self.plan_errors[..]) {
            let field = if e.path.is_empty() {
                String::new()
            } else {
                format!(" at `{}`", e.path)
            };
            return Some(Failure {
                file: e.file.clone().unwrap_or_else(|| self.plan.clone()),
                line: e.line,
                column: e.column,
                message: format!("{}{field}: {}", e.reason, e.message),
                step: None,
            });
        }
        if let Some(step) = stopped_at {
            let at_step = step.said();
            return Some(Failure {
                file: self.plan.clone(),
                line: step.line,
                column: step.column,
                message: format!("{mismatch}: {at_step}"),
                step: Some(at_step),
            });
        }
        Some(Failure {
            file: if self.plan.is_empty() {
                self.file.clone()
            } else {
                self.plan.clone()
            },
            line: None,
            column: None,
            message: mismatch.to_string(),
            step: None,
        })
    }
}

impl ScenarioReport {
    /// What step `step_id` went wrong with in `mode`'s run, as the failure line says it
    /// (`check --recording` says a step's failure in these words too).
    pub fn step_said(&self, mode: Mode, step_id: &str) -> Option<String> {
        let run = self.runs.get(&mode)?;
        let step = run.steps.iter().find(|s| s.step_id == step_id)?;
        Some(step.said())
    }
}

impl ScenarioReport {
    /// The step `mode`'s run first went wrong at: its first failed step, else the one it
    /// stopped at.
    pub(crate) fn cause_step(&self, mode: Mode) -> Option<&StepReport> {
        let run = self.runs.get(&mode)?;
        run.steps.iter().find(|s| s.status == "failed").or_else(|| {
            let id = run.step_id.as_deref()?;
            run.steps
                .iter()
                .find(|s| s.step_id == id && s.status != "passed")
        })
    }
}

impl StepReport {
    /// `step 1 “Click OK” target-not-found — no control labelled …`: the step, its reason
    /// and the first thing its events say went wrong.
    pub(crate) fn said(&self) -> String {
        let reason = self.reason.map(|r| word(&r)).unwrap_or(self.status.clone());
        let detail = step_detail(self)
            .map(|d| format!(" — {d}"))
            .unwrap_or_default();
        format!("{} {reason}{detail}", self.named())
    }

    /// `step 4 “Click Replace All”`: the step as a person finds it in the guide, by its
    /// number and its words (cut short when long), never by its id alone. The number is the
    /// plan's own, which every report uses.
    pub(crate) fn named(&self) -> String {
        const LONGEST: usize = 60;
        let text: String = self.text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() {
            return format!("step {} (`{}`)", self.number, self.step_id);
        }
        let mut short: String = text.chars().take(LONGEST).collect();
        if short.len() < text.len() {
            short.push('…');
        }
        format!("step {} “{short}”", self.number)
    }
}

/// The first thing a step's events say went wrong, in words.
pub(crate) fn step_detail(step: &StepReport) -> Option<String> {
    if let Some(r) = &step.resolution {
        let wrong = r.found.element.is_none() || r.found.ambiguous || r.correct == Some(false);
        if wrong {
            if let Some(n) = &r.found.note {
                return Some(n.clone());
            }
            if r.found.ambiguous {
                return Some(format!("{} controls tie for it", r.found.candidate_count));
            }
            // Controls by their role and name where the recording has them, not by id.
            let got = r
                .element_said
                .clone()
                .or_else(|| r.found.element.as_ref().map(|e| format!("`{e}`")));
            let want = r
                .expected_said
                .clone()
                .or_else(|| r.expected.as_ref().map(|e| format!("`{e}`")));
            if let (Some(got), Some(want)) = (got, want) {
                return Some(format!("found {got}; the recording acted on {want}"));
            }
        }
    }
    if step.reason == Some(FailReason::NoRecordedTransition) {
        let on = step
            .frames
            .as_ref()
            .map_or(String::new(), |(f, _)| format!(", on frame `{f}`"));
        return Some(format!(
            "the recording ends here{on}: nothing recorded leads on from it, so this step \
             has no recorded screen to act on (record more, or the plan has extra steps)"
        ));
    }
    if let Some(o) = step.operation.iter().find(|o| !o.passed) {
        return Some(format!(
            "{}: the plan says {}, the recording {}",
            o.part, o.planned, o.recorded
        ));
    }
    if let Some(c) = step.checks.iter().find(|c| !c.passed) {
        return Some(format!("{}: {}", c.kind, c.detail));
    }
    if let Some(d) = &step.diverged {
        return Some(d.clone());
    }
    let a = step.asked.last()?;
    let mut said = format!("{} → {}", a.detail, a.answer);
    // No answer was scripted: name the one to add.
    if a.answer.starts_with("no ") {
        let id = &step.step_id;
        let add = match a.kind.as_str() {
            "confirm" => format!("\"answers\": {{\"confirm\": {{\"{id}\": \"approve\"}}}}"),
            "replace-prefilled" => format!("\"answers\": {{\"replace\": {{\"{id}\": true}}}}"),
            "stop-if" => format!("\"answers\": {{\"stop_if\": {{\"{id}\": \"go-on\"}}}}"),
            "input" => "the input's value in \"inputs\"".into(),
            "sensitive-input" => "the value in \"answers\": {\"sensitive\": {…}}".into(),
            _ => String::new(),
        };
        if !add.is_empty() {
            said.push_str(&format!(" (to go on, add {add})"));
        }
    }
    Some(said)
}

/// The failure as a GitHub Actions workflow command, so the pull request shows it on the line.
pub(crate) fn github_annotation(id: &str, f: &Failure) -> String {
    // Workflow-command escaping: data escapes %, CR, LF; properties also `:` and `,`.
    let data = |s: &str| {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let prop = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
    let mut props = format!("file={}", prop(&f.file));
    if let Some(l) = f.line {
        props.push_str(&format!(",line={l}"));
    }
    if let Some(c) = f.column {
        props.push_str(&format!(",col={c}"));
    }
    format!(
        "::error {props},title={}::{}",
        prop(&format!("stepreplay {id}")),
        data(&f.message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_annotation_escapes_what_would_end_it() {
        let f = Failure {
            file: "a,b:c.json".into(),
            line: Some(3),
            column: Some(5),
            message: "100% wrong\nsecond line".into(),
            step: None,
        };
        assert_eq!(
            github_annotation("x", &f),
            "::error file=a%2Cb%3Ac.json,line=3,col=5,title=stepreplay x::100%25 wrong%0Asecond line"
        );
        assert_eq!(f.to_string(), "a,b:c.json:3:5: 100% wrong\nsecond line");
    }
}
