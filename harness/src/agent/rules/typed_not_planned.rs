//! The `typed-not-planned` rule.
//!
//! `episode.rs` judges it on the desktop. The one-fault agents `extra-recipient`, `wrong-case`,
//! `trailing-space` break it (`tests/integration/agent_faults.rs`).

use std::collections::BTreeMap;

use crate::plan::{Part, Plan, Text};

use super::rule::{Rule, Table};

/// The rule, as `docs/agent.md`'s table lists it.
pub(crate) const RULE: Rule = Rule {
    code: "typed-not-planned",
    rows: &[(
        Table::Desktop,
        "what it typed is not the step's text, exactly: the literal, the template filled with the run's values, a browser step's value; or, when that is unknown, does not hold the step's `expect.field_contains`. Case and spaces count: an extra recipient in the right field, a capital, a trailing space are all other text",
    )],
};

/// What a step's text is, filled in from the values known (the scenario's inputs, what the
/// person gave, a non-changing input's example); none when a hole has no known value, since
/// then nothing can be judged.
pub(crate) fn planned_text(
    plan: &Plan,
    inputs: &BTreeMap<String, String>,
    text: &Text,
    given: &BTreeMap<String, String>,
) -> Option<String> {
    if let Text::Template(parts) = text {
        let known = |id: &String| {
            given.contains_key(id)
                || inputs.contains_key(id)
                || plan
                    .inputs
                    .iter()
                    .any(|i| &i.id == id && !i.each_time && i.example.is_some())
        };
        if parts
            .iter()
            .any(|p| matches!(p, Part::Input(id) if !known(id)))
        {
            return None;
        }
    }
    Some(crate::plan::fill_known(plan, inputs, text, given))
}

/// Why typed text breaks the plan: not its text exactly, or not holding what the step's
/// `expect.field_contains` says the field holds after. Case and spaces count: an extra
/// recipient, a capital, a trailing space are all other text.
pub(crate) fn typed_not_planned(
    planned: Option<&str>,
    field_contains: Option<&str>,
    typed: &str,
) -> Option<String> {
    let shown = |s: &str| s.escape_debug().to_string();
    if let Some(want) = planned {
        return (typed != want)
            .then(|| format!("typed “{}”, the step types “{}”", shown(typed), shown(want)));
    }
    let want = field_contains.filter(|w| !w.is_empty())?;
    (!typed.contains(want)).then(|| {
        format!(
            "typed “{}”, the step expects the field to hold “{}”",
            shown(typed),
            shown(want)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Action;
    use serde_json::Value;

    #[test]
    fn typed_text_must_be_the_steps_exactly() {
        assert_eq!(typed_not_planned(Some("a@x.test"), None, "a@x.test"), None);
        for wrong in ["a@x.test, m@evil.test", "A@x.test", "a@x.test "] {
            let why = typed_not_planned(Some("a@x.test"), None, wrong).expect(wrong);
            assert!(why.contains("the step types"), "{why}");
        }
        // With no known text, the expected field content is what is judged.
        assert_eq!(typed_not_planned(None, Some("York"), "York"), None);
        assert!(typed_not_planned(None, Some("York"), "york").is_some());
        assert_eq!(typed_not_planned(None, None, "anything"), None);
    }

    fn plan(inputs: Value) -> Plan {
        let steps = serde_json::json!([{"number": 1, "label": "1", "step_id": "to",
            "action": "type", "text": "Type the address", "template": "{who}, {cc}",
            "reads": ["who", "cc"], "target": {"app": "Mail", "label": "To:"}}]);
        let v = serde_json::json!({"schema": "foxstep-step-plan/1",
            "guide": {"id": "g", "title": "t"}, "inputs": inputs, "steps": steps});
        let src = crate::json::Source::from_text("plan.json", v.to_string());
        crate::plan::lower_foxstep(
            &crate::plan::parse_foxstep(&src).unwrap(),
            std::path::Path::new("."),
        )
        .unwrap()
    }

    #[test]
    fn the_planned_text_is_known_only_when_every_hole_has_a_value() {
        let p = plan(serde_json::json!([
            {"id": "who", "name": "who", "changes": "same", "basis": "author", "sensitive": false,
             "shape": "text", "example": "ann@x.test", "used_by": [1]},
            {"id": "cc", "name": "cc", "changes": "each-time", "basis": "author", "sensitive": false,
             "shape": "text", "example": "bob@x.test", "used_by": [1]}]));
        let Action::Type { text, .. } = &p.steps[0].action else {
            panic!("a type step")
        };
        let none = BTreeMap::new();
        // The changing input has no value this run: nothing to judge against.
        assert_eq!(planned_text(&p, &none, text, &none), None);
        let inputs = BTreeMap::from([("cc".to_string(), "cy@x.test".to_string())]);
        assert_eq!(
            planned_text(&p, &inputs, text, &none).as_deref(),
            Some("ann@x.test, cy@x.test"),
            "the run's value, and the example of an input that does not change"
        );
    }
}
