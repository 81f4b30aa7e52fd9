//! The evidence ledger: every judgement a run made — a step's binding to the recording, its
//! element, each part of its operation, each expect, and the plan's `done` — each `passed`,
//! `failed` or `unjudged`, with what it stood on. Folded from the trace in one place; the
//! reports show it and a scenario's verdict asks it what went unjudged.

use serde::{Deserialize, Serialize};

use super::trace::{Event, Trace, Truth};
use crate::expect::CheckKind;
use crate::scenario::FailReason;

/// What a judgement concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Judged {
    /// The evidence agrees with the plan.
    Passed,
    /// The evidence disagrees.
    Failed,
    /// There was no evidence to judge by.
    Unjudged,
}

pub(crate) use crate::scenario::Kind;

/// One judgement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    /// What was judged.
    pub kind: Kind,
    /// What it concluded.
    pub judged: Judged,
    /// What it stood on, in words (the recorded element, the field's text, the frame).
    pub evidence: String,
}

impl Judgement {
    fn new(kind: Kind, judged: Judged, evidence: impl Into<String>) -> Judgement {
        Judgement {
            kind,
            judged,
            evidence: evidence.into(),
        }
    }
}

/// Step `i`'s judgements, in the order they were made.
pub(crate) fn of_step(trace: &Trace, i: usize) -> Vec<Judgement> {
    let reason = trace.step_events(i).find_map(|e| match e {
        Event::StepFinished { reason, .. } => *reason,
        _ => None,
    });
    let targeted = trace.truth.get(i).is_none_or(|t| *t != Truth::NoTarget);
    let mut out = Vec::new();
    for e in trace.step_events(i) {
        match e {
            Event::Operation { checks, .. } => out.extend(checks.iter().map(|c| {
                let judged = if c.unjudged {
                    Judged::Unjudged
                } else if c.passed {
                    Judged::Passed
                } else {
                    Judged::Failed
                };
                let evidence = if c.unjudged {
                    c.recorded.clone()
                } else {
                    format!("planned {}, recorded {}", c.planned, c.recorded)
                };
                Judgement::new(kind_of_part(&c.part), judged, evidence)
            })),
            // An agent's pick on a step with no target (a page opened, a key pressed) is
            // no element to judge.
            Event::Resolved {
                expected, correct, ..
            }
            | Event::Picked {
                expected, correct, ..
            } if targeted => out.push(element(expected.as_deref(), *correct)),
            Event::Checked { check, .. } => {
                let (kind, judged) = match check.kind {
                    CheckKind::Simulated => (Kind::Simulated, Judged::Unjudged),
                    CheckKind::Origin if reason == Some(FailReason::OriginUnjudged) => {
                        (Kind::Origin, Judged::Unjudged)
                    }
                    CheckKind::Origin => (Kind::Origin, passed(check.passed)),
                    _ => (Kind::Expect, passed(check.passed)),
                };
                let evidence = format!("{}: {}", crate::text::word(&check.kind), check.detail);
                out.push(Judgement::new(kind, judged, evidence));
            }
            _ => {}
        }
    }
    out
}

/// The plan's `done`, when a finished run checked it.
pub(crate) fn of_done(trace: &Trace) -> Option<Judgement> {
    trace.events.iter().find_map(|e| match e {
        Event::Done { check, judged, .. } => Some(Judgement::new(
            Kind::Done,
            if *judged {
                passed(check.passed)
            } else {
                Judged::Unjudged
            },
            check.detail.clone(),
        )),
        _ => None,
    })
}

/// Every judgement of the run that went unjudged, with its step (none for `done`), in order.
pub fn unjudged(trace: &Trace, steps: usize) -> Vec<(Option<usize>, Judgement)> {
    let mut out: Vec<(Option<usize>, Judgement)> = (0..steps)
        .flat_map(|i| of_step(trace, i).into_iter().map(move |j| (Some(i), j)))
        .chain(of_done(trace).map(|j| (None, j)))
        .filter(|(_, j)| j.judged == Judged::Unjudged)
        .collect();
    out.dedup_by(|a, b| a.0 == b.0 && a.1.kind == b.1.kind);
    out
}

/// The kind of an operation part (`text`, `keys`, … as `expect::operation` names them).
fn kind_of_part(part: &str) -> Kind {
    match part {
        "binding" => Kind::Binding,
        "text" => Kind::TypedText,
        "keys" => Kind::Keys,
        "submit" => Kind::Submit,
        "url" => Kind::Url,
        "button" => Kind::Button,
        "count" => Kind::Count,
        "modifiers" => Kind::Modifiers,
        "drag" => Kind::Drag,
        "role" => Kind::Role,
        _ => Kind::Operation,
    }
}

fn passed(p: bool) -> Judged {
    if p { Judged::Passed } else { Judged::Failed }
}

/// The element judgement: against the element the recording acted on, when it names one.
fn element(expected: Option<&str>, correct: Option<bool>) -> Judgement {
    match (expected, correct) {
        (Some(id), Some(true)) => Judgement::new(
            Kind::Element,
            Judged::Passed,
            format!("the recorded `{id}`"),
        ),
        (Some(id), _) => Judgement::new(
            Kind::Element,
            Judged::Failed,
            format!("the recording acted on `{id}`"),
        ),
        (None, _) => Judgement::new(
            Kind::Element,
            Judged::Unjudged,
            "the recording names no element for this step",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_is_read_by_its_name_and_a_typo_names_the_kinds() {
        assert_eq!("typed-text".parse::<Kind>(), Ok(Kind::TypedText));
        let e = "typed_text".parse::<Kind>().unwrap_err();
        assert!(e.contains("typed-text") && e.contains("done"), "{e}");
    }

    #[test]
    fn an_element_the_recording_does_not_name_is_unjudged_never_passed() {
        assert_eq!(element(None, None).judged, Judged::Unjudged);
        assert_eq!(element(Some("e1"), Some(false)).judged, Judged::Failed);
        assert_eq!(element(Some("e1"), None).judged, Judged::Failed);
        assert_eq!(element(Some("e1"), Some(true)).judged, Judged::Passed);
    }
}
