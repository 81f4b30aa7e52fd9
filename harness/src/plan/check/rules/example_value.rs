//! `example-as-value`
//!
//! What: a step's literal text — its `value`, or the text of its `template` outside `{id}`
//! references — that holds the `example` of an input that `changes` `each-time` (as whole
//! words, in any case and spacing).
//! Why: an each-time input is asked for on every run; its example is one run's value. Text
//! typed as written types that one value every time instead of the person's: a reminder goes
//! to the recorded client, not this run's. The author meant `{id}`.
//! An error when the text is the example itself, or the input is read by no step (the text
//! took its place); a warning when the example is only part of the text and the input is
//! still read elsewhere, since a longer text may hold a common word by chance.
//! Example: `"value": "accounts@example.com"` with `client-email` each-time and that example
//! → error at `steps[1].value`.

use super::{Ctx, step_path};
use crate::plan::check::{Finding, Severity};
use crate::plan::foxstep::{Changes, Input};
use crate::plan::model::{Part, Text};
use crate::text::{holds_phrase, normalize_label};

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    let each_time: Vec<(&Input, &str)> = ctx
        .fox
        .inputs
        .iter()
        .filter(|inp| inp.changes == Changes::EachTime && !inp.sensitive)
        .filter_map(|inp| Some((inp, inp.example.as_deref()?)))
        .collect();
    if each_time.is_empty() {
        return;
    }
    for (i, step) in ctx.fox.steps.iter().enumerate() {
        let literal: Vec<(&str, String)> = match (&step.value, &step.template) {
            (Some(v), _) => vec![("value", v.clone())],
            (None, Some(t)) => literal_parts(t)
                .into_iter()
                .map(|p| ("template", p))
                .collect(),
            (None, None) => continue,
        };
        let found = literal.iter().find_map(|(field, text)| {
            each_time
                .iter()
                .find(|(_, ex)| holds_phrase(text, ex))
                .map(|&(inp, ex)| (*field, inp, ex))
        });
        let Some((field, inp, example)) = found else {
            continue;
        };
        let whole = literal
            .iter()
            .any(|(_, text)| normalize_label(text) == normalize_label(example));
        let read =
            !inp.used_by.is_empty() || ctx.fox.steps.iter().any(|s| s.reads.contains(&inp.id));
        out.push(
            Finding::new(
                if whole || !read {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                "example-as-value",
                step_path(i).key(field),
                format!(
                    "the text typed as written holds “{example}”, the example of `{}`, which changes each time: every run would type the example instead of the person's value",
                    inp.id
                ),
            )
            .hint(format!(
                "put `{{{}}}` where the example is, in a `template` that `reads` it",
                inp.id
            )),
        );
    }
}

/// The literal text of a template, each run between references on its own (a reference's
/// braces never join two words); nothing for a template that does not parse (another rule
/// says why).
fn literal_parts(template: &str) -> Vec<String> {
    let mut ignored = Vec::new();
    let Some(Text::Template(parts)) = crate::plan::lower::parse_template(
        template,
        &crate::errors::FieldPath::root(),
        &mut ignored,
    ) else {
        return Vec::new();
    };
    parts
        .into_iter()
        .filter_map(|p| match p {
            Part::Text(s) => Some(s),
            Part::Input(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::check;
    use crate::plan::check::rules::testing::{self, seed};

    fn findings(plan: &Value) -> Vec<String> {
        testing::findings(check, plan)
    }

    /// The seed plan with step 2 typing `value` as written instead of its template.
    fn typing(value: &str) -> Value {
        let mut plan = seed();
        let step = plan["steps"][1].as_object_mut().unwrap();
        step.remove("template");
        step.remove("reads");
        step.insert("value".into(), json!(value));
        plan["inputs"][0]["used_by"] = json!([]);
        plan
    }

    #[test]
    fn the_seed_plan_gives_none() {
        assert_eq!(findings(&seed()), Vec::<String>::new());
    }

    #[test]
    fn fires_on_a_value_that_is_the_example() {
        assert_eq!(
            findings(&typing("accounts@example.com")),
            ["error example-as-value steps[1].value"]
        );
        assert_eq!(
            findings(&typing("  ACCOUNTS@example.com ")),
            ["error example-as-value steps[1].value"]
        );
    }

    #[test]
    fn fires_on_a_value_that_holds_the_example_as_words() {
        // No step reads the input any more: the text took its place.
        let mut plan = typing("Write to accounts@example.com today");
        assert_eq!(findings(&plan), ["error example-as-value steps[1].value"]);
        plan["steps"][1]["value"] = json!("myaccounts@example.com");
        assert_eq!(findings(&plan), Vec::<String>::new());
    }

    #[test]
    fn fires_on_template_text_outside_references() {
        // The input is still read here, and the example is only part of the text: advice.
        let mut plan = seed();
        plan["steps"][1]["template"] = json!("{client-email}, cc accounts@example.com");
        assert_eq!(
            findings(&plan),
            ["warning example-as-value steps[1].template"]
        );
        // The reference itself is the input, not its example.
        plan["steps"][1]["template"] = json!("{client-email}");
        assert_eq!(findings(&plan), Vec::<String>::new());
    }

    #[test]
    fn an_input_that_stays_the_same_may_be_written_out() {
        let mut plan = typing("accounts@example.com");
        plan["inputs"][0]["changes"] = json!("same");
        assert_eq!(findings(&plan), Vec::<String>::new());
    }
}
