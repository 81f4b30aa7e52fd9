//! `correlation-unresolved` (protocolv2)
//!
//! What: a `correlation` entry (`{"rid": "poll.requestId"}`) whose step is not an earlier step
//! of the plan that asks for something (a `pollrequest`, `graphql`, `vision`, `snapshot` or
//! `pipeline`): a step id the plan lacks, the step itself or a later one, a step that asks
//! nothing, or a value that is not a string.
//! Why: correlation fills a request from what an earlier step received; with nothing received
//! yet, replay fails the step with the same reason. Said here, before a run, at the entry.
//! Whether the field is in the answer only the recording tells (`check --recording`). A
//! warning: the schema leaves the map free-form, and `step.field` is the harness's reading.
//! Example: `"correlation": {"rid": "result.requestId"}` on step `result` → warning at
//! `steps[2].options.correlation.rid`.

use super::{DevCtx, step_path};
use crate::errors::FieldPath;
use crate::plan::check::{Finding, Severity};
use crate::plan::devthink::exchange::{asks, correlations};
use crate::plan::devthink::options::locate_in_options;

pub(crate) fn check(ctx: &DevCtx, out: &mut Vec<Finding>) {
    let steps = &ctx.plan.steps;
    for (i, step) in steps.iter().enumerate() {
        let at = step_path(i).key("options");
        let text = step.options.as_deref().unwrap_or_default();
        for c in correlations(&step.parsed) {
            let from = steps.iter().position(|s| s.id == c.step);
            let why = match from {
                _ if c.step.is_empty() => "names no step".to_string(),
                None => format!("names `{}`, a step the plan does not have", c.step),
                Some(j) if j >= i => format!(
                    "names `{}`, which runs {} this step: nothing is received from it yet",
                    c.step,
                    if j == i { "as" } else { "after" }
                ),
                Some(j) if asks(&steps[j].parsed, None, None).is_empty() => {
                    format!("names `{}`, a step that asks for nothing", c.step)
                }
                Some(_) => continue,
            };
            let inner = FieldPath::root().key("correlation").key(&c.name);
            out.push(
                Finding::new(
                    Severity::Warning,
                    "correlation-unresolved",
                    at.join(&inner),
                    format!("`{}` {why}", c.name),
                )
                .hint("name an earlier step that asks for something, as `step.field`")
                .at(locate_in_options(ctx.src, &at, text, &inner)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::check;
    use crate::json::Source;
    use crate::plan::check::rules::DevCtx;
    use crate::plan::devthink::parse_protocolv2;

    /// `path message` of each finding on the orders plan with step `i`'s correlation set to
    /// `map` (steps: open, poll, result, …), and the text at the finding's line and column.
    fn run(i: usize, map: Value) -> Vec<(String, String)> {
        let mut v: Value = serde_json::from_str(include_str!(
            "../../../../../recordings/scripts/browser/orders.json"
        ))
        .unwrap();
        if !map.is_null() {
            let mut options: Value =
                serde_json::from_str(v["steps"][i]["options"].as_str().unwrap_or("{}")).unwrap();
            options["correlation"] = map;
            v["steps"][i]["options"] = json!(options.to_string());
        }
        let src = Source::from_text("plan.json", serde_json::to_string_pretty(&v).unwrap());
        let plan = parse_protocolv2(&src).unwrap();
        let mut out = Vec::new();
        check(
            &DevCtx {
                src: &src,
                plan: &plan,
                value: &v,
            },
            &mut out,
        );
        out.iter()
            .map(|f| {
                let line = src.text.lines().nth(f.line.unwrap_or(0).wrapping_sub(1));
                let at: String = line
                    .unwrap_or_default()
                    .chars()
                    .skip(f.column.unwrap_or(1) - 1)
                    .collect();
                (format!("{} {}", f.path, f.message), at)
            })
            .collect()
    }

    #[test]
    fn a_correlation_naming_no_earlier_asking_step_is_found_at_its_entry() {
        assert!(run(0, Value::Null).is_empty(), "the bundled plan is clean");
        let first = |i, map| {
            let got = run(i, map);
            assert_eq!(got.len(), 1, "{got:?}");
            got[0].clone()
        };
        let one = |i, map| first(i, map).0;
        let (got, at) = first(2, json!({"rid": "pol.requestId"}));
        assert_eq!(
            got,
            "steps[2].options.correlation.rid `rid` names `pol`, a step the plan does not have"
        );
        // The position is the entry's, inside the options string.
        assert!(at.starts_with(r#"\"pol.requestId\""#), "{at}");
        let got = one(2, json!({"rid": "watch.id"}));
        assert!(
            got.contains("names `watch`, which runs after this step"),
            "{got}"
        );
        let got = one(2, json!({"rid": "result.requestId"}));
        assert!(got.contains("which runs as this step"), "{got}");
        let got = one(2, json!({"rid": "open.url"}));
        assert!(
            got.contains("names `open`, a step that asks for nothing"),
            "{got}"
        );
        let got = one(2, json!({"rid": 7}));
        assert!(got.ends_with("`rid` names no step"), "{got}");
    }
}
