//! `empty-field`
//!
//! What: a field that is not a list holds nothing: an empty string (`"label": ""`,
//! `"stop_if": ""`) or an empty object (`"expect": {}`), anywhere in the plan.
//! Why: the seed leaves optional fields out "when they have nothing to say", so an empty one
//! says nothing and hides that something was meant to be there: an `expect` with no
//! condition checks nothing, a `stop_if` with no words never stops, a step with an empty
//! label cannot be named. Empty lists are the canonical-form rule's (`non-canonical`).
//! Example: `"expect": {}` on step 2 → warning at `steps[1].expect`.

use serde_json::Value;

use super::Ctx;
use crate::errors::FieldPath;
use crate::plan::check::{Finding, Severity};

pub(crate) fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    walk(ctx.value, &FieldPath::root(), out);
}

fn walk(v: &Value, at: &FieldPath, out: &mut Vec<Finding>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let path = at.key(k);
                let what = match child {
                    Value::String(s) if s.is_empty() => Some("an empty string"),
                    Value::Object(o) if o.is_empty() => Some("an empty object"),
                    _ => None,
                };
                match what {
                    Some(what) => out.push(
                        Finding::new(
                            Severity::Warning,
                            "empty-field",
                            path,
                            format!("`{k}` is {what}: it says nothing"),
                        )
                        .hint(format!("give `{k}` its content, or leave it out")),
                    ),
                    None => walk(child, &path, out),
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &at.index(i), out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::check;
    use crate::plan::check::rules::testing::{run, seed};

    #[test]
    fn empty_non_list_fields_are_flagged_where_they_are() {
        assert!(run(check, &seed()).is_empty());
        let mut plan = seed();
        plan["steps"][1]["expect"] = json!({});
        plan["steps"][0]["label"] = json!("");
        plan["steps"][2]["stop_if"] = json!("");
        plan["steps"][2]["target"]["label"] = json!("");
        let mut got: Vec<String> = run(check, &plan)
            .iter()
            .map(|f| format!("{} {}", f.reason, f.path))
            .collect();
        got.sort();
        assert_eq!(
            got,
            [
                "empty-field steps[0].label",
                "empty-field steps[1].expect",
                "empty-field steps[2].stop_if",
                "empty-field steps[2].target.label",
            ]
        );
        // An empty list is another rule's; a space is something.
        let mut plan = seed();
        plan["steps"][1]["reads"] = json!([]);
        plan["steps"][0]["text"] = json!(" ");
        assert!(run(check, &plan).is_empty());
    }
}
