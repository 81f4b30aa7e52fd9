//! `check` on a scenario file: the file as the runner reads it, then what it points at — the
//! plan and the recording load, and every step id and input it names is the plan's. A typo in
//! `answers.confirm` would otherwise only show as a declined step at run time.

use super::file::{ScenarioFile, parse_scenario};
use crate::errors::{FieldPath, InputError, Reason};
use crate::json::Source;
use crate::plan::check::{CheckReport, Finding, Severity};
use crate::plan::{Plan, load_plan};
use crate::recording::load_recording;

/// Checks a scenario file's text: exit 2 when it cannot be read as a scenario, findings at its
/// fields (with line and column) for what it names that is not there.
pub fn check_scenario(src: &Source) -> CheckReport {
    let sc = match parse_scenario(src) {
        Ok(sc) => sc,
        Err(e) => return CheckReport::unreadable(&src.path, Finding::from_input_error(&e)),
    };
    let mut findings = Vec::new();
    let mut pointed = |field: &str, what: &str, e: InputError| {
        let msg = format!(
            "the {what} `{}` does not load: {} ({})",
            e.file.display(),
            e.message,
            e.reason.code()
        );
        findings.push(Finding::new(
            Severity::Error,
            e.reason.code(),
            FieldPath::root().key(field),
            msg,
        ));
    };
    // A plan the scenario expects to be refused (`expect.reason` or `plan_errors` names the
    // code) is what it tests, not a mistake in it.
    let expect = &sc.file.expect;
    let expected = |code: &str| {
        expect.reason.is_some_and(|r| crate::text::word(&r) == code)
            || expect.plan_errors.iter().any(|c| c == code)
    };
    let plan = match load_plan(&sc.plan_path) {
        Ok(plan) => Some(plan),
        Err(e) if expected(e.reason.code()) => None,
        Err(e) => {
            pointed("plan", "plan", e);
            None
        }
    };
    match load_recording(&sc.recording_dir) {
        // What an import left out of a real recording is worth a look, never a failure.
        Ok(rec) => findings.extend(rec.file.source.notes.iter().map(|note| {
            Finding::new(
                Severity::Warning,
                "import-note",
                FieldPath::root().key("recording"),
                format!("the recording `{}`: {note}", sc.recording_dir.display()),
            )
        })),
        Err(e) => pointed("recording", "recording", e),
    }
    for (i, name) in sc.file.perturbations.iter().enumerate() {
        if let Err(e) = name.parse::<crate::perturb::Perturbation>() {
            findings.push(
                Finding::new(
                    Severity::Error,
                    e.reason.code(),
                    FieldPath::root().key("perturbations").index(i),
                    e.message,
                )
                .hint(format!(
                    "name one of {}",
                    crate::perturb::STANDARD.join(", ")
                )),
            );
        }
    }
    if let Some(plan) = plan {
        if let Some((why, hint)) = super::file::missing_clock(&plan, &sc.file) {
            findings.push(
                Finding::new(
                    Severity::Error,
                    Reason::InvalidField.code(),
                    FieldPath::root().key("clock"),
                    why,
                )
                .hint(hint),
            );
        }
        let unknown = unknown_names(&sc.file, &plan);
        findings.extend(unknown.iter().map(Finding::from_input_error));
    }
    let placed = findings.into_iter().map(|f| {
        let at = src.position(&f.path);
        f.at(at)
    });
    CheckReport::of(&src.path, placed.collect())
}

/// Every step id and input the scenario names that the plan does not have, each at its field
/// with the nearest the plan has: `check` lists them, `run` refuses the scenario with the first.
pub(crate) fn unknown_names(f: &ScenarioFile, plan: &Plan) -> Vec<InputError> {
    let steps: Vec<&str> = plan.steps.iter().map(|s| s.id.as_str()).collect();
    let inputs: Vec<&str> = plan.inputs.iter().map(|i| i.id.as_str()).collect();
    let a = &f.answers;
    let mut out = Vec::new();
    let mut unknown = |path: FieldPath, what: &str, id: &str, known: &[&str]| {
        if known.contains(&id) {
            return;
        }
        let listed = if known.is_empty() {
            "it has none".to_string()
        } else {
            format!("it has {}", known.join(", "))
        };
        let meant = crate::text::closest(id, known)
            .map(|m| format!("; did you mean `{m}`?"))
            .unwrap_or_default();
        out.push(
            InputError::new(
                &f.plan,
                Reason::UnknownId,
                format!("the plan has no {what} `{id}`; {listed}{meant}"),
            )
            .at(path)
            .hint(format!("use one of the {what}s of {}", f.plan)),
        );
    };
    let key = |field: &str, sub: &str, id: &str| FieldPath::root().key(field).key(sub).key(id);
    for id in a.confirm.keys() {
        unknown(key("answers", "confirm", id), "step", id, &steps);
    }
    for id in a.replace.keys() {
        unknown(key("answers", "replace", id), "step", id, &steps);
    }
    for id in a.stop_if.keys() {
        unknown(key("answers", "stop_if", id), "step", id, &steps);
    }
    for id in a.sensitive.keys() {
        unknown(key("answers", "sensitive", id), "input", id, &inputs);
    }
    for id in f.inputs.keys() {
        unknown(
            FieldPath::root().key("inputs").key(id),
            "input",
            id,
            &inputs,
        );
    }
    if let Some(id) = &f.expect.step_id {
        unknown(
            FieldPath::root().key("expect").key("step_id"),
            "step",
            id,
            &steps,
        );
    }
    out
}
