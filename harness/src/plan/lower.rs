//! Lowering `foxstep-step-plan/1` into the normalized [`Plan`].
//!
//! Lowering is where wire fields become meaning, so it is also where a step that cannot mean
//! anything is caught (a `type` with nothing to type, a template with an open brace). It
//! reports every such problem at once, as findings, so `check` can show them all.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::check::{Finding, Severity};
use super::foxstep::{self, ActionKind, FoxPlan};
use super::model::*;
use crate::errors::{FieldPath, InputError, Reason};

/// Lowers a strictly parsed Foxstep plan; `base_dir` is the plan file's folder.
pub(crate) fn lower_foxstep(fox: &FoxPlan, base_dir: &Path) -> Result<Plan, Vec<Finding>> {
    let mut problems = Vec::new();
    let inputs = fox
        .inputs
        .iter()
        .map(|i| Input {
            id: i.id.clone(),
            name: i.name.clone(),
            sensitive: i.sensitive,
            example: if i.sensitive { None } else { i.example.clone() },
            each_time: i.changes == crate::plan::foxstep::Changes::EachTime,
        })
        .collect();
    let steps_path = FieldPath::root().key("steps");
    let mut steps = Vec::new();
    for (i, s) in fox.steps.iter().enumerate() {
        let path = steps_path.index(i);
        if let Some(step) = lower_step(s, &path, &mut problems) {
            steps.push(step);
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(Plan {
        review: None,
        dialect: Dialect::Foxstep,
        id: fox.guide.id.clone(),
        title: fox.guide.title.clone(),
        revision: fox.guide.revision.clone(),
        inputs,
        steps,
        done: fox.done.as_ref().map(|d| Done {
            text: d.text.clone(),
            step_id: d.step_id.clone(),
            screen: d.screen.as_ref().map(Into::into),
        }),
        base_dir: base_dir.to_path_buf(),
    })
}

fn missing(path: FieldPath, msg: String, hint: &str) -> Finding {
    Finding::new(Severity::Error, "missing-action-field", path, msg).hint(hint)
}

/// A step's action, from its `action` and the fields that kind of action needs.
fn lower_action(
    s: &foxstep::Step,
    path: &FieldPath,
    problems: &mut Vec<Finding>,
) -> Option<Action> {
    let before = problems.len();
    let text_of = |problems: &mut Vec<Finding>| -> Option<Text> {
        match (&s.value, &s.template) {
            (Some(v), None) => Some(Text::Literal(v.clone())),
            (None, Some(t)) => parse_template(t, &path.key("template"), problems),
            (Some(_), Some(_)) => {
                problems.push(
                    Finding::new(
                        Severity::Error,
                        "conflicting-fields",
                        path.key("template"),
                        "the step has both `value` and `template`; it cannot type both".into(),
                    )
                    .hint("keep `value` for fixed text or `template` for text built from inputs"),
                );
                None
            }
            (None, None) => None,
        }
    };
    let action = match s.action {
        ActionKind::Navigate => Action::Navigate {
            to: s.value.clone(),
        },
        ActionKind::Click => match &s.click {
            Some(c) => {
                if c.count == 0 {
                    problems.push(
                        Finding::new(
                            Severity::Error,
                            "invalid-field",
                            path.key("click").key("count"),
                            "a click count of 0 clicks nothing".into(),
                        )
                        .hint("use 1 for a click, 2 for a double click"),
                    );
                }
                Action::Click(Click {
                    button: serde_json::to_value(c.button)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    count: c.count,
                    drag: c.drag,
                    modifiers: c.modifiers.clone(),
                })
            }
            None => {
                problems.push(missing(
                    path.key("click"),
                    "a `click` step has no `click` object".into(),
                    "add \"click\": { \"button\": \"left\", \"count\": 1, \"drag\": false }",
                ));
                return None;
            }
        },
        ActionKind::Type => {
            let had_both = s.value.is_some() && s.template.is_some();
            match text_of(problems) {
                Some(text) => Action::Type {
                    text,
                    submit: s.submit.clone(),
                },
                None => {
                    if !had_both && problems.len() == before {
                        problems.push(missing(
                            path.key("value"),
                            "a `type` step has neither `value` nor `template`".into(),
                            "add \"value\" with the exact text, or \"template\" with {input} holes",
                        ));
                    }
                    return None;
                }
            }
        }
        ActionKind::Paste => Action::Paste {
            text: text_of(problems),
        },
        ActionKind::Copy => Action::Copy,
        ActionKind::Press => match &s.keys {
            Some(k) if !k.trim().is_empty() => Action::Press { keys: k.clone() },
            _ => {
                problems.push(missing(
                    path.key("keys"),
                    "a `press` step has no `keys`".into(),
                    "add \"keys\", such as \"Return\" or \"⌘S\"",
                ));
                return None;
            }
        },
        ActionKind::Ask => Action::Ask,
        ActionKind::Do => Action::Do,
    };
    Some(action)
}

fn lower_step(s: &foxstep::Step, path: &FieldPath, problems: &mut Vec<Finding>) -> Option<Step> {
    let before = problems.len();
    let action = lower_action(s, path, problems)?;
    let target = s.target.as_ref().map(lower_target);
    let expect = s
        .expect
        .as_ref()
        .and_then(|e| lower_expect(e, &path.key("expect"), problems));
    let stop_if = s
        .stop_if
        .as_ref()
        .and_then(|v| lower_stop_if(v, &path.key("stop_if"), problems));
    if problems.len() > before {
        return None;
    }
    Some(Step {
        web: None,
        id: s.step_id.clone(),
        number: s.number,
        label: s.label.clone(),
        text: s.text.clone(),
        action,
        target,
        expect,
        confirm: s
            .confirm
            .then(|| s.confirm_reason.clone().unwrap_or_default()),
        stop_if,
        reads: s.reads.clone(),
        assistant: s.assistant.clone(),
        path: path.clone(),
    })
}

/// Splits `Dear {client-name},` into text and input holes.
pub(crate) fn parse_template(
    t: &str,
    path: &FieldPath,
    problems: &mut Vec<Finding>,
) -> Option<Text> {
    let mut parts = Vec::new();
    let mut rest = t;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            problems.push(template_problem(path, "a `}` with no `{` before it"));
            return None;
        }
        if open > 0 {
            parts.push(Part::Text(rest[..open].to_string()));
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            problems.push(template_problem(path, "a `{` is never closed"));
            return None;
        };
        let id = &after[..close];
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        {
            problems.push(template_problem(
                path,
                &format!("`{{{id}}}` is not an input name"),
            ));
            return None;
        }
        parts.push(Part::Input(id.to_string()));
        rest = &after[close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Text(rest.to_string()));
    }
    Some(Text::Template(parts))
}

fn template_problem(path: &FieldPath, what: &str) -> Finding {
    Finding::new(
        Severity::Error,
        "invalid-template",
        path.clone(),
        format!("template: {what}"),
    )
    .hint("write inputs as {input-id}, with ids made of letters, digits, - and _")
}

fn lower_target(t: &foxstep::Target) -> Target {
    Target {
        app: t.app.clone(),
        bundle_id: t.bundle_id.clone(),
        window: t.window.clone(),
        role: t.role.clone(),
        ax_role: t.ax_role.clone(),
        label: t.label.clone(),
        point: t.point.map(|p| Point { x: p.x, y: p.y }),
        bounds: t.bounds.map(|b| Bounds {
            x: b.x,
            y: b.y,
            width: b.width,
            height: b.height,
        }),
        crop_available: t.crop_available,
        crop: t.crop.as_ref().map(Into::into),
        selector: None,
    }
}

/// Deserializes an embedded JSON value strictly, keeping the full field path on error.
fn from_value<T: DeserializeOwned>(
    v: &Value,
    path: &FieldPath,
    problems: &mut Vec<Finding>,
) -> Option<T> {
    match serde_path_to_error::deserialize::<_, T>(v.clone()) {
        Ok(t) => Some(t),
        Err(e) => {
            let mut full = path.clone();
            full.0.extend(FieldPath::parse(&e.path().to_string()).0);
            let e = InputError::new("", Reason::InvalidField, e.inner().to_string()).at(full);
            let e = super::load::explain_as(e, "see the field table of foxstep-step-plan/1");
            problems.push(Finding::from_input_error(&e));
            None
        }
    }
}

fn lower_visible(v: &Value, path: &FieldPath, problems: &mut Vec<Finding>) -> Option<Target> {
    match v {
        Value::String(label) => Some(Target {
            label: Some(label.clone()),
            ..Target::default()
        }),
        _ => from_value::<foxstep::Target>(v, path, problems).map(|t| lower_target(&t)),
    }
}

fn lower_expect(
    e: &foxstep::Expect,
    path: &FieldPath,
    problems: &mut Vec<Finding>,
) -> Option<Expect> {
    let visible = match &e.visible {
        Some(v) => Some(lower_visible(v, &path.key("visible"), problems)?),
        None => None,
    };
    let field_contains = match &e.field_contains {
        Some(t) => Some(parse_template(t, &path.key("field_contains"), problems)?),
        None => None,
    };
    Some(Expect {
        app: e.app.clone(),
        window: e.window.clone(),
        visible,
        field_contains,
        screen_step_id: e.screen_step_id.clone(),
        screen: e.screen.as_ref().map(Into::into),
    })
}

fn lower_stop_if(v: &Value, path: &FieldPath, problems: &mut Vec<Finding>) -> Option<StopIf> {
    match v {
        Value::String(text) => Some(StopIf {
            text: text.clone(),
            when: None,
        }),
        Value::Object(map) => {
            // `flatten` and `deny_unknown_fields` do not mix in serde, so split by hand.
            let text = match map.get("text") {
                Some(Value::String(t)) => t.clone(),
                _ => {
                    problems.push(
                        Finding::new(
                            Severity::Error,
                            "invalid-field",
                            path.key("text"),
                            "`stop_if` needs `text` saying when to stop".into(),
                        )
                        .hint("add \"text\": the condition in words"),
                    );
                    return None;
                }
            };
            let mut rest = map.clone();
            rest.remove("text");
            let when: foxstep::Expect = from_value(&Value::Object(rest), path, problems)?;
            let when = lower_expect(&when, path, problems)?;
            Some(StopIf {
                text,
                when: (!when.is_empty()).then_some(when),
            })
        }
        _ => {
            problems.push(
                Finding::new(
                    Severity::Error,
                    "invalid-field",
                    path.clone(),
                    "`stop_if` must be words or an object with `text` and conditions".into(),
                )
                .hint("write the condition in words: \"stop_if\": \"the invoice is already paid\""),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_split_into_text_and_inputs() {
        let mut p = Vec::new();
        let t = parse_template(
            "Dear {client-name}, ref {ref_no}",
            &FieldPath::root(),
            &mut p,
        )
        .unwrap();
        assert_eq!(t.inputs(), vec!["client-name", "ref_no"]);
        assert!(p.is_empty());
    }

    #[test]
    fn broken_templates_are_findings() {
        for bad in ["{open", "close}", "{}", "{two words}"] {
            let mut p = Vec::new();
            assert!(
                parse_template(bad, &FieldPath::root(), &mut p).is_none(),
                "{bad}"
            );
            assert_eq!(p[0].reason, "invalid-template");
        }
    }

    #[test]
    fn field_contains_is_lowered_to_a_template_once() {
        let at = FieldPath::root().key("expect");
        let fox = |t: &str| foxstep::Expect {
            field_contains: Some(t.into()),
            ..Default::default()
        };
        let mut p = Vec::new();
        let e = lower_expect(&fox("to {to}"), &at, &mut p).unwrap();
        assert_eq!(e.field_contains.unwrap().inputs(), vec!["to"]);
        assert!(p.is_empty());
        assert!(lower_expect(&fox("{to"), &at, &mut p).is_none());
        assert_eq!(p[0].reason, "invalid-template");
        assert_eq!(p[0].path, at.key("field_contains"));
    }
}
